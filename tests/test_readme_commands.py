"""The README's quick-start commands that need no model or key, run verbatim."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def quick_start_commands() -> list[str]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Quick start", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    joined = re.sub(r"\\\n\s*", "", block)
    commands = []
    for line in joined.splitlines():
        command = line.split("  #", 1)[0].strip()
        offline = "--model none" in command or not command.startswith(".venv/bin/inspect")
        if command.startswith(".venv/bin/") and offline and "inspect view" not in command:
            commands.append(command)
    return commands


def test_the_quick_start_lists_the_offline_commands() -> None:
    commands = quick_start_commands()
    assert any(c.startswith(".venv/bin/inspect eval") for c in commands)
    assert len(commands) >= 4


@pytest.mark.parametrize("command", quick_start_commands())
def test_quick_start_command_runs_as_written(command: str, tmp_path: Path) -> None:
    argv = shlex.split(command)
    argv[0] = str(BIN / Path(argv[0]).name)
    env = {**os.environ, "INSPECT_LOG_DIR": str(tmp_path), "INSPECT_DISPLAY": "none"}
    cwd = REPO
    if argv[1:2] == ["report"]:
        # the quick start runs it after make demo-offline: give it such logs, in a directory of
        # its own so the checkout's logs/ is neither needed nor written to
        cwd = tmp_path / "checkout"
        cwd.mkdir()
        demo = [str(BIN / "gaa"), "demo", "--personas", "INTJ_*", "--log-dir", "logs"]
        subprocess.run([*demo, "--report", ""], cwd=cwd, check=True, timeout=900)
    result = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-2000:]
    if argv[1:2] == ["report"]:
        page = (cwd / "report" / "index.html").read_text(encoding="utf-8")
        assert "reference/exemplary" in page and "reference/pushy" in page
    if argv[1:2] == ["eval"]:
        [info] = list_eval_logs(str(tmp_path))
        log = read_eval_log(info)
        assert log.status == "success"
        assert log.results is not None and log.results.total_samples == 64
