"""The cost of the A2A hop: a doctor turn over A2A on loopback against the same doctor
in-process, and 64 personas against one served reference doctor.

Starts ``gaa serve doctor --doctor reference/exemplary`` in a subprocess (as a real purple agent
runs), then measures

1. one doctor turn, called one after another ``--turns`` times: the reference doctor in-process,
   and the A2A doctor (card resolved once, a fresh HTTP connection and one ``message/send`` a
   turn, the whole dialogue re-sent each time); median and mean milliseconds, and the difference;
2. the offline benchmark (scripted patient, rules judge) on ``--personas`` (default all 64):
   in-process and over A2A, wall time of each and the extra time per doctor turn.

    .venv/bin/python bench/a2a_overhead.py [--turns 200] [--personas all] [--connections 8]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
from inspect_ai import eval
from inspect_ai.agent import Agent, AgentState
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser
from inspect_ai.util import Store
from inspect_ai.util._store import init_subtask_store

from gaa.a2a.client import a2a_doctor
from gaa.dialogue.task import medical_dialogue
from gaa.doctors.model_doctor import doctor_system_prompt
from gaa.doctors.reference import CASE_STORE_KEY, PERSONA_STORE_KEY, reference_doctor
from gaa.personas import parse_persona_id
from gaa.plugins import catalogue
from gaa.runs import check_completed
from gaa.testing import free_port

REPO = Path(__file__).resolve().parents[1]
PERSONA = "INTJ_M_PNEUMO"


def start_server(port: int) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [sys.executable, "-m", "gaa", "serve", "doctor", "--doctor", "reference/exemplary",
         "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/.well-known/agent-card.json").status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("the doctor server did not start")


def view_with_rounds(rounds: int) -> list[ChatMessage]:
    persona = parse_persona_id(PERSONA)
    case = catalogue().cases.get(persona.medical_case).item
    view: list[ChatMessage] = [ChatMessageSystem(content=doctor_system_prompt(case, persona))]
    view.append(ChatMessageUser(content="I'm worried about this operation."))
    for number in range(rounds):
        view.append(ChatMessageAssistant(content=f"Doctor turn {number}: it is your decision."))
        view.append(ChatMessageUser(content="I see. What are the risks?"))
    return view


async def time_turns(doctor: Agent, turns: int) -> list[float]:
    persona = parse_persona_id(PERSONA)
    store = Store()
    store.set(CASE_STORE_KEY, catalogue().cases.get(persona.medical_case).full_name)
    store.set(PERSONA_STORE_KEY, persona.model_dump(mode="json"))
    init_subtask_store(store)
    timings = []
    for number in range(turns):
        state = AgentState(messages=view_with_rounds(number % 5))
        started = time.perf_counter()
        await doctor(state)
        timings.append(1000 * (time.perf_counter() - started))
    return timings


def describe(label: str, timings: list[float]) -> str:
    return (
        f"  {label:<12} median {statistics.median(timings):7.2f} ms   "
        f"mean {statistics.mean(timings):7.2f} ms   n={len(timings)}"
    )


def run_benchmark(personas: str, extra: dict[str, object], log_dir: str) -> tuple[float, int]:
    started = time.perf_counter()
    [log] = eval(
        medical_dialogue(personas=personas, patient="scripted", judge="rules", **extra),  # type: ignore[arg-type]
        model="none",
        log_dir=log_dir,
        display="none",
    )
    seconds = time.perf_counter() - started
    check_completed([log])
    turns = sum(
        sum(t["speaker"] == "doctor" for t in sample.store["gaa:session"]["turns"])
        for sample in log.samples or []
    )
    return seconds, turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--personas", default="all")
    parser.add_argument("--connections", type=int, default=8)
    args = parser.parse_args()
    port = free_port()
    server = start_server(port)
    url = f"http://127.0.0.1:{port}"
    try:
        local: Callable[[], Awaitable[list[float]]] = lambda: time_turns(  # noqa: E731
            reference_doctor("exemplary")(), args.turns
        )
        remote = lambda: time_turns(a2a_doctor(url=url), args.turns)  # noqa: E731
        asyncio.run(time_turns(a2a_doctor(url=url), 5))  # warm the server up
        local_ms, remote_ms = asyncio.run(local()), asyncio.run(remote())
        print(f"One doctor turn ({PERSONA}, 0-4 rounds of history), sequential:")
        print(describe("in-process", local_ms))
        print(describe("A2A", remote_ms))
        hop = statistics.median(remote_ms) - statistics.median(local_ms)
        print(f"  A2A hop: {hop:.2f} ms a turn (median difference)")
        with tempfile.TemporaryDirectory() as logs:
            run_benchmark(PERSONA, {"doctor": "reference/exemplary"}, f"{logs}/warm-up")
            local_s, turns = run_benchmark(
                args.personas, {"doctor": "reference/exemplary"}, f"{logs}/local"
            )
            remote_s, remote_turns = run_benchmark(
                args.personas,
                {"doctor": "a2a", "doctor_url": url, "doctor_connections": args.connections},
                f"{logs}/a2a",
            )
        print(f"\nOffline benchmark, personas={args.personas}, scripted patient, rules judge:")
        print(f"  in-process doctor: {local_s:6.1f} s  ({turns} doctor turns)")
        print(
            f"  A2A doctor:        {remote_s:6.1f} s  ({remote_turns} doctor turns, "
            f"{args.connections} connections)"
        )
        print(f"  extra wall time per doctor turn: {1000 * (remote_s - local_s) / turns:.1f} ms")
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
