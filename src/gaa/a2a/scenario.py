"""``gaa run scenario.toml``: start the agents a scenario lists, assess, stop them.

A scenario file has the AgentBeats layout::

    [green_agent]
    endpoint = "http://127.0.0.1:9009"
    cmd = "gaa serve green --port 9009"

    [[participants]]
    role = "doctor"
    endpoint = "http://127.0.0.1:9019"
    cmd = "gaa serve doctor --doctor reference/exemplary --port 9019"

    [config]
    persona_ids = ["all"]
    max_rounds = 5

``cmd`` is optional (leave it out for an agent that is already running). A command starting
with ``gaa`` runs with this Python (``python -m gaa``), so no activated environment is needed.
Every started process is stopped on exit, on failure and on Ctrl-C.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from gaa.errors import GAAError

CARD_PATH = "/.well-known/agent-card.json"
DEFAULT_READY_TIMEOUT = 60.0
STOP_GRACE = 10.0


class ScenarioError(GAAError, ValueError):
    """A scenario file that cannot be run, or an agent that did not come up."""


@dataclass(frozen=True)
class Agent:
    name: str
    endpoint: str
    cmd: str | None = None


@dataclass(frozen=True)
class Scenario:
    green: Agent
    participants: dict[str, Agent]
    config: dict[str, Any] = field(default_factory=dict)

    @property
    def agents(self) -> list[Agent]:
        return [self.green, *self.participants.values()]


def _agent(table: Any, where: str, name: str) -> Agent:
    if not isinstance(table, dict):
        raise ScenarioError(f"{where} must be a table with endpoint (and optionally cmd)")
    endpoint = table.get("endpoint")
    if not isinstance(endpoint, str) or not endpoint.startswith(("http://", "https://")):
        raise ScenarioError(f"{where}.endpoint must be an http(s) URL, not {endpoint!r}")
    cmd = table.get("cmd")
    if cmd is not None and (not isinstance(cmd, str) or not cmd.strip()):
        raise ScenarioError(f"{where}.cmd must be a command line, not {cmd!r}")
    return Agent(name=name, endpoint=endpoint.rstrip("/"), cmd=cmd)


def load_scenario(path: str | Path) -> Scenario:
    """Read and check a scenario file (errors name the file and the field)."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ScenarioError(f"no scenario file at {path}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{path} is not valid TOML: {exc}") from None
    if "green_agent" not in data:
        raise ScenarioError(f"{path}: [green_agent] is missing")
    green = _agent(data["green_agent"], f"{path}: green_agent", "green_agent")
    participants: dict[str, Agent] = {}
    tables = data.get("participants", [])
    if not isinstance(tables, list) or not tables:
        raise ScenarioError(f"{path}: at least one [[participants]] table is needed")
    for number, table in enumerate(tables, start=1):
        role = table.get("role") if isinstance(table, dict) else None
        if not isinstance(role, str) or not role:
            raise ScenarioError(f"{path}: participants #{number} has no role")
        if role in participants:
            raise ScenarioError(f"{path}: role {role!r} appears twice in participants")
        participants[role] = _agent(table, f"{path}: participants.{role}", role)
    config = data.get("config", {})
    if not isinstance(config, dict):
        raise ScenarioError(f"{path}: [config] must be a table")
    return Scenario(green=green, participants=participants, config=config)


def command_line(cmd: str) -> list[str]:
    """The argv for ``cmd``; ``gaa ...`` runs with this interpreter."""
    argv = shlex.split(cmd)
    if argv and argv[0] == "gaa":
        return [sys.executable, "-m", "gaa", *argv[1:]]
    return argv


def _listening(endpoint: str) -> bool:
    """Whether something already accepts connections at the endpoint's host and port."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(endpoint)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((parts.hostname or "127.0.0.1", port)) == 0


@contextmanager
def _stopped_on_signals() -> Iterator[None]:
    """SIGTERM and SIGHUP end the run like Ctrl-C does, so the started agents are stopped."""

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    previous = {}
    for sig in (signal.SIGTERM, signal.SIGHUP):
        with suppress(ValueError):  # not the main thread: signals stay as they are
            previous[sig] = signal.signal(sig, interrupt)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@contextmanager
def started(
    agents: list[Agent], show_logs: bool, log_dir: Path | None = None
) -> Iterator[dict[str, subprocess.Popen[bytes]]]:
    """Start each agent's command; stop them all on exit (SIGTERM, then SIGKILL). Their output
    goes to the terminal with ``show_logs``, else to ``<log_dir>/<agent>.log`` (if given)."""
    processes: dict[str, subprocess.Popen[bytes]] = {}
    files: list[Any] = []
    busy = [agent for agent in agents if agent.cmd and _listening(agent.endpoint)]
    if busy:
        names = ", ".join(f"{agent.name} ({agent.endpoint})" for agent in busy)
        raise ScenarioError(
            f"something already listens where the scenario starts {names}: stop it, or leave "
            "out the agent's cmd to use the running one"
        )
    with ExitStack() as stack:
        stack.enter_context(_stopped_on_signals())
        stack.callback(_close, files)
        stack.callback(stop, processes)
        for agent in agents:
            if agent.cmd:
                output: Any = None
                if not show_logs and log_dir is not None:
                    log_dir.mkdir(parents=True, exist_ok=True)
                    output = open(log_dir / f"{agent.name}.log", "wb")  # noqa: SIM115
                    files.append(output)
                elif not show_logs:
                    output = subprocess.DEVNULL
                try:
                    processes[agent.name] = subprocess.Popen(
                        command_line(agent.cmd),
                        stdout=output,
                        stderr=subprocess.STDOUT if output is not None else None,
                        start_new_session=True,
                    )
                except OSError as exc:
                    raise ScenarioError(
                        f"{agent.name}: cannot start {agent.cmd!r} ({exc})"
                    ) from exc
        yield processes


def _close(files: list[Any]) -> None:
    for file in files:
        file.close()


def stop(started: dict[str, subprocess.Popen[bytes]] | list[subprocess.Popen[bytes]]) -> None:
    """SIGTERM to every process (and its group), then SIGKILL after a grace period."""
    processes = list(started.values()) if isinstance(started, dict) else list(started)
    for process in processes:
        if process.poll() is None:
            _signal(process, signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE
    for process in processes:
        try:
            process.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            _signal(process, signal.SIGKILL)
            process.wait()


def _signal(process: subprocess.Popen[bytes], sig: int) -> None:
    try:
        os.killpg(process.pid, sig)
    except (ProcessLookupError, PermissionError):
        with suppress(ProcessLookupError):
            process.send_signal(sig)


def wait_ready(
    agents: list[Agent],
    processes: dict[str, subprocess.Popen[bytes]],
    timeout: float = DEFAULT_READY_TIMEOUT,
    say: Callable[[str], None] = lambda text: None,
) -> None:
    """Wait until every agent serves its card; fail early if a started process exits."""
    deadline = time.monotonic() + timeout
    waiting = {agent.name: agent for agent in agents}
    with httpx.Client(timeout=2.0) as http:
        while waiting:
            for name, agent in list(waiting.items()):
                process = processes.get(name)
                if process is not None and process.poll() is not None:
                    raise ScenarioError(
                        f"{name} exited with status {process.returncode} before it was ready "
                        f"({agent.cmd}); its output says why (--show-logs shows it)"
                    )
                try:
                    ready = http.get(agent.endpoint + CARD_PATH).status_code == 200
                except httpx.HTTPError:
                    ready = False
                if ready and process is not None and process.poll() is not None:
                    raise ScenarioError(
                        f"{name} exited with status {process.returncode}, and another process "
                        f"answers at {agent.endpoint}"
                    )
                if ready:
                    del waiting[name]
                    say(f"{name} is ready at {agent.endpoint}")
            if waiting and time.monotonic() > deadline:
                names = ", ".join(f"{n} ({a.endpoint})" for n, a in waiting.items())
                raise ScenarioError(f"no agent card after {timeout:g} s from: {names}")
            if waiting:
                time.sleep(0.25)
