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
Every started process is stopped on exit, on failure and on Ctrl-C, with every process it
started in turn (its whole tree, found with psutil before anything is signalled: a child that
left the process group, or whose parent has exited, is stopped too).

An agent may have a bearer token: ``token_env = "NAME"`` (the environment variable holding it;
preferred) or ``token = "..."``. A started agent gets its own token as ``GAA_A2A_TOKEN``; the
assessor also gets the doctor's as ``GAA_A2A_DOCTOR_TOKEN``; ``gaa run`` sends the assessor's
token with the EvalRequest.
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
    token: str | None = field(default=None, repr=False)


@dataclass(frozen=True)
class Scenario:
    green: Agent
    participants: dict[str, Agent]
    config: dict[str, Any] = field(default_factory=dict)

    @property
    def agents(self) -> list[Agent]:
        return [self.green, *self.participants.values()]


def check_endpoint(endpoint: object, where: str) -> str:
    """``endpoint`` if it is an http(s) URL with a host and a valid port, else a one-line
    :class:`ScenarioError` naming ``where`` (the agent) and what is wrong."""
    from urllib.parse import urlsplit

    if not isinstance(endpoint, str) or not endpoint.strip():
        raise ScenarioError(f"{where}.endpoint must be an http(s) URL, not {endpoint!r}")
    endpoint = endpoint.strip()
    try:
        parts = urlsplit(endpoint)
        port = parts.port
    except ValueError as exc:
        raise ScenarioError(f"{where}.endpoint {endpoint!r} is not a URL ({exc})") from None
    if parts.scheme not in ("http", "https"):
        raise ScenarioError(f"{where}.endpoint must be an http(s) URL, not {endpoint!r}")
    if not parts.hostname:
        raise ScenarioError(f"{where}.endpoint {endpoint!r} has no host")
    if port == 0 or any(c.isspace() for c in endpoint):
        raise ScenarioError(f"{where}.endpoint {endpoint!r} is not a usable address")
    if parts.query or parts.fragment:
        raise ScenarioError(f"{where}.endpoint {endpoint!r} must not have a query or fragment")
    return endpoint.rstrip("/")


def _token(table: dict[str, Any], where: str) -> str | None:
    token, env = table.get("token"), table.get("token_env")
    if token is not None and env is not None:
        raise ScenarioError(f"{where}: give token or token_env, not both")
    if env is not None:
        if not isinstance(env, str) or not env:
            raise ScenarioError(f"{where}.token_env must name an environment variable")
        value = os.environ.get(env, "").strip()
        if not value:
            raise ScenarioError(f"{where}.token_env: the environment variable {env} is not set")
        return value
    if token is not None and (not isinstance(token, str) or not token.strip()):
        raise ScenarioError(f"{where}.token must be a non-empty string")
    return token.strip() if isinstance(token, str) else None


def _agent(table: Any, where: str, name: str) -> Agent:
    if not isinstance(table, dict):
        raise ScenarioError(f"{where} must be a table with endpoint (and optionally cmd)")
    endpoint = check_endpoint(table.get("endpoint"), where)
    cmd = table.get("cmd")
    if cmd is not None and (not isinstance(cmd, str) or not cmd.strip()):
        raise ScenarioError(f"{where}.cmd must be a command line, not {cmd!r}")
    return Agent(name=name, endpoint=endpoint, cmd=cmd, token=_token(table, where))


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
    try:
        infos = socket.getaddrinfo(parts.hostname or "127.0.0.1", port, type=socket.SOCK_STREAM)
    except OSError:
        return False
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(address) == 0


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


def agent_environment(agent: Agent, agents: list[Agent]) -> dict[str, str] | None:
    """The environment a started agent runs with: its own token as ``GAA_A2A_TOKEN``, and for
    the assessor the doctor's as ``GAA_A2A_DOCTOR_TOKEN`` (None: this process's as it is)."""
    extra: dict[str, str] = {}
    if agent.token:
        extra["GAA_A2A_TOKEN"] = agent.token
    if agent.name == "green_agent":
        doctor = next((a for a in agents if a.name == "doctor"), None)
        if doctor is not None and doctor.token:
            extra["GAA_A2A_DOCTOR_TOKEN"] = doctor.token
    return {**os.environ, **extra} if extra else None


@contextmanager
def started(
    agents: list[Agent], show_logs: bool, log_dir: Path | None = None
) -> Iterator[dict[str, subprocess.Popen[bytes]]]:
    """Start each agent's command; stop them all on exit, with every process they started
    (SIGTERM, then SIGKILL). Their output goes to the terminal with ``show_logs``, else to
    ``<log_dir>/<agent>.log`` (if given)."""
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
                        env=agent_environment(agent, agents),
                    )
                except OSError as exc:
                    raise ScenarioError(
                        f"{agent.name}: cannot start {agent.cmd!r} ({exc})"
                    ) from exc
        yield processes


def _close(files: list[Any]) -> None:
    for file in files:
        file.close()


def _descendants(processes: list[subprocess.Popen[bytes]]) -> list[Any]:
    """Every live process below ``processes`` (psutil), found before anything is signalled:
    once a parent exits, its children are re-parented and cannot be found from it."""
    try:
        import psutil  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - psutil comes with inspect_ai
        return []
    found: dict[int, Any] = {}
    for process in processes:
        with suppress(psutil.Error):
            for child in psutil.Process(process.pid).children(recursive=True):
                found[child.pid] = child
    return list(found.values())


def stop(
    started: dict[str, subprocess.Popen[bytes]] | list[subprocess.Popen[bytes]],
    grace: float = STOP_GRACE,
) -> list[int]:
    """SIGTERM to every process, its group and every process below it, then SIGKILL to what is
    left after ``grace`` seconds. Returns the pids still alive after that (none, normally)."""
    processes = list(started.values()) if isinstance(started, dict) else list(started)
    tree = _descendants(processes)
    for process in processes:
        if process.poll() is None:
            _signal(process, signal.SIGTERM)
    for child in tree:
        _signal_descendant(child, signal.SIGTERM)
    deadline = time.monotonic() + grace
    for process in processes:
        try:
            process.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            _signal(process, signal.SIGKILL)
            process.wait()
    return _finish(tree, max(0.1, deadline - time.monotonic()))


def _finish(tree: list[Any], wait: float) -> list[int]:
    """Wait for the descendants, SIGKILL those still alive, and return any that survive."""
    if not tree:
        return []
    import psutil

    _, alive = psutil.wait_procs(tree, timeout=wait)
    for child in alive:
        _signal_descendant(child, signal.SIGKILL)
    _, alive = psutil.wait_procs(alive, timeout=5)
    return [child.pid for child in alive]


def _signal(process: subprocess.Popen[bytes], sig: int) -> None:
    try:
        os.killpg(process.pid, sig)
    except (ProcessLookupError, PermissionError):
        with suppress(ProcessLookupError):
            process.send_signal(sig)


def _signal_descendant(child: Any, sig: int) -> None:
    import psutil

    with suppress(psutil.Error):
        child.send_signal(sig)


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
