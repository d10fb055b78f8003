"""Building a task freezes the objects start-up made, once per process, and spaces the
collector's runs out, unless turned off."""

from __future__ import annotations

import ast
import gc
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gaa import _heap

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def stock_collector(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    threshold = gc.get_threshold()
    gc.unfreeze()
    gc.set_threshold(700, 10, 10)
    monkeypatch.setattr(_heap, "_frozen", False)
    monkeypatch.delenv("GAA_GC_TUNE", raising=False)
    yield
    gc.set_threshold(*threshold)


@pytest.mark.usefixtures("stock_collector")
def test_settle_heap_freezes_once_and_spaces_collections() -> None:
    _heap.settle_heap()
    frozen = gc.get_freeze_count()
    assert frozen > 0
    assert gc.get_threshold() == (3_000, 10, 10)
    made_later = [[i] for i in range(1000)]  # noqa: F841 - objects made after set-up
    _heap.settle_heap()  # a second task in the same process freezes nothing more
    assert gc.get_freeze_count() == frozen


@pytest.mark.usefixtures("stock_collector")
def test_settle_heap_never_changes_a_threshold_set_higher() -> None:
    gc.set_threshold(50_000, 5, 100)
    _heap.settle_heap()
    assert gc.get_threshold() == (50_000, 5, 100)


@pytest.mark.usefixtures("stock_collector")
def test_settle_heap_can_be_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAA_GC_TUNE", "0")
    _heap.settle_heap()
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == (700, 10, 10)


RUN_AFTER_BUILD = """
import sys
from inspect_ai import eval
import gaa.dialogue.task as task_module

built = {}
settle = task_module.settle_heap

def settle_and_note() -> None:
    settle()
    built.setdefault("modules", set(sys.modules))

task_module.settle_heap = settle_and_note
[log] = eval(
    task_module.medical_dialogue(
        personas="INTJ_M_PNEUMO", doctor="reference/exemplary", patient="scripted",
        judge="rules",
    ),
    model="none", log_dir=sys.argv[1], display="none",
)
assert log.status == "success", log.error
print(sorted(m for m in sys.modules if m not in built["modules"]))
"""


def modules_a_run_imports_after_the_build(log_dir: Path, tune: bool) -> list[str]:
    environment = {key: value for key, value in os.environ.items() if key != "GAA_GC_TUNE"}
    if not tune:
        environment["GAA_GC_TUNE"] = "0"
    done = subprocess.run(
        [sys.executable, "-c", RUN_AFTER_BUILD, str(log_dir)],
        capture_output=True, text=True, timeout=300, check=False, cwd=REPO, env=environment,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    later: list[str] = ast.literal_eval(done.stdout.strip().splitlines()[-1])
    return later


def test_the_run_imports_are_what_a_run_imports(tmp_path: Path) -> None:
    # a run left alone imports each of them after the build: importing them earlier costs
    # nothing a run would not pay
    later = modules_a_run_imports_after_the_build(tmp_path, tune=False)
    assert len(later) > 500  # Inspect's run-time modules, which the check below rules out
    assert [name for name in _heap.RUN_IMPORTS if name not in later] == []


def test_a_run_imports_little_after_its_task_is_built(tmp_path: Path) -> None:
    # what a run imports after the build is not frozen, and every full collection of the run
    # walks it: about 1,000 modules without RUN_IMPORTS; with them OpenAI's client and types
    # (left out on purpose) and about 230 others (HTTP clients, Markdown rendering, GAA's
    # reference doctors), none of them the control server's, the agent protocol server's or
    # numpy's
    later = modules_a_run_imports_after_the_build(tmp_path, tune=True)
    others = [name for name in later if name.split(".")[0] != "openai"]
    assert len(others) < 300, others
    assert [name for name in others if name in _heap.RUN_IMPORTS] == []
    covered = ("numpy.", "pydantic.v1.", "fastapi.routing", "inspect_ai._control.server")
    assert [name for name in others if name.startswith(covered)] == []
