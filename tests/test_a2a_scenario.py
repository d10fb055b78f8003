"""``gaa run scenario.toml``: agents started, assessed, and stopped, also when things fail."""

from __future__ import annotations

import json
import re
import socket
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gaa.a2a.scenario import Agent, ScenarioError, load_scenario, started, wait_ready
from gaa.cli import main
from gaa.models import EvalResult
from gaa.testing import free_port

REPO = Path(__file__).resolve().parents[1]


def listening(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def write_scenario(tmp_path: Path, green_port: int, doctor_port: int, config: str) -> Path:
    path = tmp_path / "scenario.toml"
    path.write_text(
        f"""
[green_agent]
endpoint = "http://127.0.0.1:{green_port}"
cmd = "gaa serve green --port {green_port} --log-dir {tmp_path / "logs"}"

[[participants]]
role = "doctor"
endpoint = "http://127.0.0.1:{doctor_port}"
cmd = "gaa serve doctor --doctor reference/pushy --port {doctor_port}"

[config]
{config}
""",
        encoding="utf-8",
    )
    return path


def test_a_scenario_runs_end_to_end_and_stops_its_agents(tmp_path: Path) -> None:
    green_port, doctor_port = free_port(), free_port()
    scenario = write_scenario(
        tmp_path,
        green_port,
        doctor_port,
        'persona_ids = ["INTJ_M_PNEUMO", "ESFJ_F_LUNG"]\nmax_rounds = 3',
    )
    output = tmp_path / "result.json"
    result = CliRunner().invoke(
        main,
        [
            "run",
            str(scenario),
            "--output",
            str(output),
            "--agent-logs",
            str(tmp_path / "agents"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "green_agent is ready" in result.output and "doctor is ready" in result.output
    assert "Completed 2/2 personas" in result.output
    assert "INTJ_M_PNEUMO" in result.output and "ESFJ_F_LUNG" in result.output
    evaluation = EvalResult.model_validate(json.loads(output.read_text()))
    assert sorted(evaluation.personas) == ["ESFJ_F_LUNG", "INTJ_M_PNEUMO"]
    assert len(evaluation.scores) == 2
    assert evaluation.doctor_agent_url == f"http://127.0.0.1:{doctor_port}"
    assert f"Mean overall: {evaluation.mean_overall_score:.2f}/100" in result.output
    assert all(session.turns for session in evaluation.sessions)
    assert not listening(green_port) and not listening(doctor_port)  # both stopped
    assert (tmp_path / "agents" / "green_agent.log").exists()


def test_an_invalid_config_fails_the_run_and_still_stops_the_agents(tmp_path: Path) -> None:
    green_port, doctor_port = free_port(), free_port()
    scenario = write_scenario(tmp_path, green_port, doctor_port, "max_rounds = 40")
    result = CliRunner().invoke(
        main, ["run", str(scenario), "--agent-logs", str(tmp_path / "agents")]
    )
    assert result.exit_code == 1
    assert "config.max_rounds" in result.output
    assert not listening(green_port) and not listening(doctor_port)


def test_an_agent_that_exits_at_once_is_named(tmp_path: Path) -> None:
    port = free_port()
    agents = [Agent("doctor", f"http://127.0.0.1:{port}", f"{sys.executable} -c 'exit(3)'")]
    with (
        pytest.raises(ScenarioError, match="doctor exited with status 3 before it was ready"),
        started(agents, show_logs=False) as processes,
    ):
        wait_ready(agents, processes, timeout=20)


def test_an_agent_that_never_serves_its_card_times_out_and_is_stopped(tmp_path: Path) -> None:
    port = free_port()
    # a web server, but not an A2A agent: no card at /.well-known/agent-card.json
    cmd = f"{sys.executable} -m http.server {port} --bind 127.0.0.1 --directory {tmp_path}"
    agents = [Agent("doctor", f"http://127.0.0.1:{port}", cmd)]
    seen: dict[str, Any] = {}
    with pytest.raises(ScenarioError, match=r"no agent card after 2 s from: doctor"):  # noqa: SIM117
        with started(agents, show_logs=False) as processes:
            seen.update(processes)
            wait_ready(agents, processes, timeout=2)
    assert seen["doctor"].poll() is not None  # stopped on the way out


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[config]\nmax_rounds = 3\n", "green_agent] is missing"),
        ('[green_agent]\nendpoint = "http://127.0.0.1:1"\n', "at least one [[participants]]"),
        (
            '[green_agent]\nendpoint = "127.0.0.1:1"\n[[participants]]\nrole = "doctor"\n'
            'endpoint = "http://127.0.0.1:2"\n',
            "green_agent.endpoint must be an http(s) URL",
        ),
        (
            '[green_agent]\nendpoint = "http://127.0.0.1:1"\n[[participants]]\n'
            'endpoint = "http://127.0.0.1:2"\n',
            "participants #1 has no role",
        ),
        ("[green_agent\n", "is not valid TOML"),
    ],
)
def test_scenario_files_are_checked_with_the_field_named(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError, match=re.escape(message)):
        load_scenario(path)


def test_a_port_already_in_use_stops_the_run_before_anything_starts(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        agents = [Agent("doctor", f"http://127.0.0.1:{port}", "gaa serve doctor --doctor x")]
        with pytest.raises(ScenarioError, match="already listens"), started(agents, False):
            pass


def test_sigterm_stops_the_agents_it_started(tmp_path: Path) -> None:
    import signal
    import subprocess
    import time

    green_port, doctor_port = free_port(), free_port()
    scenario = write_scenario(tmp_path, green_port, doctor_port, "max_rounds = 1")
    runner = subprocess.Popen(
        [sys.executable, "-m", "gaa", "run", str(scenario), "--serve-only",
         "--agent-logs", str(tmp_path / "agents")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 90
        while not (listening(green_port) and listening(doctor_port)):
            assert runner.poll() is None and time.monotonic() < deadline, "agents did not start"
            time.sleep(0.2)
        runner.send_signal(signal.SIGTERM)
        runner.wait(60)
    finally:
        if runner.poll() is None:
            runner.kill()
    assert not listening(green_port) and not listening(doctor_port)
