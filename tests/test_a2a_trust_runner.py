"""``gaa run`` cleans up every process it starts (grandchildren that left the process group
too), and a bad endpoint is a one-line error naming the agent."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import psutil  # type: ignore[import-untyped]
import pytest

from gaa.a2a.scenario import Agent, ScenarioError, agent_environment, load_scenario, started

ESCAPING_CHILD = (
    "import subprocess, sys, time; "
    "p = subprocess.Popen([sys.executable, '-c', "
    "'import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)'], "
    "start_new_session=True); "
    "open(sys.argv[1], 'w').write(str(p.pid)); time.sleep(600)"
)


def test_stopping_kills_a_grandchild_that_left_the_process_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    cmd = f'{sys.executable} -c "{ESCAPING_CHILD}" {pid_file}'
    agent = Agent(name="doctor", endpoint="http://127.0.0.1:9", cmd=cmd)
    with started([agent], show_logs=True) as processes:
        deadline = time.monotonic() + 30
        while not (pid_file.exists() and pid_file.read_text()):
            assert time.monotonic() < deadline, "the grandchild did not start"
            time.sleep(0.05)
        grandchild = psutil.Process(int(pid_file.read_text()))
        assert grandchild.is_running()
        assert os.getpgid(grandchild.pid) != os.getpgid(processes["doctor"].pid)
    assert processes["doctor"].poll() is not None
    gone = not grandchild.is_running() or grandchild.status() == psutil.STATUS_ZOMBIE
    assert gone, "the grandchild (which ignores SIGTERM) survived the run"


@pytest.mark.parametrize(
    ("endpoint", "said"),
    [
        ('"ftp://127.0.0.1:9"', "must be an http(s) URL"),
        ('"http://"', "has no host"),
        ('"http://127.0.0.1:99999"', "is not a URL"),
        ('"http://127.0.0.1:9?x=1"', "must not have a query"),
        ("7", "must be an http(s) URL"),
    ],
)
def test_a_bad_endpoint_is_one_line_naming_the_agent(
    endpoint: str, said: str, tmp_path: Path
) -> None:
    scenario = tmp_path / "s.toml"
    scenario.write_text(
        f'[green_agent]\nendpoint = "http://127.0.0.1:9009"\n\n'
        f'[[participants]]\nrole = "doctor"\nendpoint = {endpoint}\n'
    )
    with pytest.raises(ScenarioError) as error:
        load_scenario(scenario)
    message = str(error.value)
    assert "participants.doctor" in message and said in message and "\n" not in message


def test_scenario_tokens_reach_the_started_agents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_GREEN_TOKEN", "green-token-0123456789")
    scenario = tmp_path / "s.toml"
    scenario.write_text(
        '[green_agent]\nendpoint = "http://127.0.0.1:9009"\ntoken_env = "MY_GREEN_TOKEN"\n'
        'cmd = "gaa serve green --port 9009"\n\n'
        '[[participants]]\nrole = "doctor"\nendpoint = "http://127.0.0.1:9019"\n'
        'token = "doctor-token-0123456789"\n'
    )
    plan = load_scenario(scenario)
    assert plan.green.token == "green-token-0123456789"
    assert "doctor-token" not in repr(plan.participants["doctor"])
    env = agent_environment(plan.green, plan.agents)
    assert env is not None
    assert env["GAA_A2A_TOKEN"] == "green-token-0123456789"
    assert env["GAA_A2A_DOCTOR_TOKEN"] == "doctor-token-0123456789"
    monkeypatch.delenv("MY_GREEN_TOKEN")
    with pytest.raises(ScenarioError, match=r"green_agent\.token_env: the environment variable"):
        load_scenario(scenario)
