"""Harness overhead of the medical_dialogue benchmark on scripted models with a fixed latency.

Every role (doctor, patient, judge panel) is a scripted model that waits ``--latency`` seconds
per call, and the patient never decides, so every persona runs all rounds and the full teamwork
judge. The critical path is the number of calls one persona must make one after another
(constructor, opening, doctor and patient each round, then the judge's deliberation steps)
times the latency. Prints the wall time, the bound, their ratio, the sequential run
(``--max-samples 1``) and the speed-up, calls and tokens per persona for every teamwork preset,
and peak RSS.

    .venv/bin/python bench/harness_overhead.py [--latency 0.05] [--personas all] [--skip-sequential]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import tempfile
import time
from pathlib import Path

from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage

from gaa.runs import check_completed
from gaa.teamwork import TeamworkConfig, planned_calls
from gaa.teamwork.config import ABLATION_PRESETS
from gaa.testing import ScriptedModel, TeamScript

REPO = Path(__file__).resolve().parents[1]
DOCTOR = (
    "I understand this is a lot to take in. The operation is done under general anaesthetic "
    "through small cuts. It is entirely your decision; take your time. What questions do you have?"
)
BRIEF = "You are Sam, a careful patient. " + "You worry about pain and time off work. " * 20
SUMMARY = json.dumps(
    {"strengths": ["clear"], "weaknesses": ["no figures"], "critical_incidents": []}
)
TEAM_SIZE = 3


def patient(messages: list[ChatMessage]) -> str:
    if "You write the character brief" in messages[-1].text:
        return BRIEF
    return "I'm still not sure about it.\nDECISION: UNDECIDED | WILLINGNESS: 5"


def judge(messages: list[ChatMessage]) -> str:
    if "evaluation summary" in messages[-1].text:
        return SUMMARY
    return TeamScript(choose=lambda q, labels, role: "met", n_agents=TEAM_SIZE).respond(messages)


def critical_path_calls(teamwork: str, rounds: int) -> int:
    config = TeamworkConfig.parse(teamwork)
    plan = planned_calls(config, TEAM_SIZE)
    members = TEAM_SIZE * config.n_turns
    # members of one step answer in parallel: a step costs one call of latency
    judge_depth = (
        plan["R1"] + 1 + (plan["R2"] - TEAM_SIZE) + config.n_turns + (plan["R3"] - members)
    )
    return 2 + 2 * rounds + judge_depth + 1  # constructor, opening, rounds, judge, summary


def run(
    personas: str, teamwork: str, rounds: int, latency: float, max_samples: int, log_dir: str
) -> tuple[float, EvalLog, int]:
    models = {
        role: ScriptedModel(fn, latency=latency)
        for role, fn in (("doctor", lambda m: DOCTOR), ("patient", patient), ("judge", judge))
    }
    started = time.perf_counter()
    [log] = eval(
        "tasks/medical_dialogue.py",
        model=models["doctor"].model,
        model_roles={"patient": models["patient"].model, "judge": models["judge"].model},
        task_args={"personas": personas, "teamwork": teamwork, "max_rounds": rounds},
        max_samples=max_samples,
        max_connections=10_000,
        log_dir=log_dir,
        display="none",
    )
    elapsed = time.perf_counter() - started
    check_completed([log])
    calls = sum(len(m.calls) for m in models.values())
    return elapsed, log, calls


def tokens(log: EvalLog) -> int:
    return sum(usage.total_tokens for usage in log.stats.model_usage.values())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--personas", default="all")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--teamwork", default="all")
    parser.add_argument("--skip-sequential", action="store_true")
    parser.add_argument(
        "--sequential-personas",
        default=None,
        help="run the sequential comparison on these personas only and scale it to the full set",
    )
    parser.add_argument(
        "--preset-personas", default="*_M_PNEUMO", help="personas for the per-preset cost table"
    )
    args = parser.parse_args()
    os.chdir(REPO)
    with tempfile.TemporaryDirectory() as log_dir:
        wall, log, calls = run(
            args.personas, args.teamwork, args.rounds, args.latency, 1000, log_dir
        )
        n = len(log.samples or [])
        bound = critical_path_calls(args.teamwork, args.rounds) * args.latency
        print(
            f"personas: {n}, rounds: {args.rounds}, judge: panel teamwork={args.teamwork}, "
            f"latency {args.latency * 1000:.0f} ms/call"
        )
        print(f"parallel wall time:     {wall:8.2f} s")
        depth = critical_path_calls(args.teamwork, args.rounds)
        print(f"critical path bound:    {bound:8.2f} s  ({depth} sequential calls)")
        print(f"ratio wall / bound:     {wall / bound:8.2f}  (target <= 1.2)")
        print(f"calls per persona:      {calls / n:8.1f}")
        print(f"tokens per persona:     {tokens(log) / n:8.0f}")
        if not args.skip_sequential:
            subset = args.sequential_personas or args.personas
            sequential, seq_log, _ = run(
                subset, args.teamwork, args.rounds, args.latency, 1, log_dir
            )
            seq_n = len(seq_log.samples or [])
            scaled = sequential * n / seq_n
            note = "" if seq_n == n else f", measured on {seq_n} personas and scaled to {n}"
            print(f"sequential wall time:   {scaled:8.2f} s  (--max-samples 1{note})")
            print(f"speed-up:               {scaled / wall:8.1f}x  (target >= 40x)")
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak RSS:               {peak:8.0f} MB  (target < 500 MB)")
        print(f"\ncalls and tokens per persona by preset ({args.preset_personas}, no latency):")
        print(f"{'preset':<8} {'calls':>7} {'tokens':>9}")
        for preset in ABLATION_PRESETS:
            _, preset_log, preset_calls = run(
                args.preset_personas, preset, args.rounds, 0.0, 1000, log_dir
            )
            count = len(preset_log.samples or [])
            print(f"{preset:<8} {preset_calls / count:>7.1f} {tokens(preset_log) / count:>9.0f}")


if __name__ == "__main__":
    main()
