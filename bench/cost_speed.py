"""Cost and speed of the medical_dialogue benchmark, in one run.

    .venv/bin/python bench/cost_speed.py [--personas all] [--skip SECTION ...] [--repeat 5]

Sections (each prints its figures and the issue's target):

- ``tokens``: judge input tokens per persona for panel ``all`` and ``base`` as the provider
  reports them (Inspect's model usage: a scripted judge that counts with a real tokenizer and
  serves prefixes from a simulated provider prompt cache), the share of input in a prefix shared
  across personas, and the share a provider's cache serves.
- ``cpu``: the harness's CPU at zero latency (model doctor, model patient, panel ``all``)
  next to Inspect's floor: a bare Inspect task replaying the very same calls, per sample (the
  doctor's and patient's in a solver, the judge's in a scorer). Each side runs in a fresh
  process, as ``inspect eval`` does, and warms up on a persona of each case first (the floor
  replays their calls); the floor's process builds no GAA task, so GAA's collector tuning is
  off there, and holds what ``inspect eval`` loads in this environment. ``--repeat`` runs,
  each with a doctor whose sentences are all new (its clauses do repeat), each followed by the
  replay of its own calls; the median of the runs' ratios counts (shared machines are noisy),
  the fastest of each side is shown too, and the harness's CPU less the replay's in seconds.
  The replay makes GAA's very calls, so it gets cheaper too whenever GAA sends calls that
  cost Inspect less (one message object sent again instead of a new one each call, say): the
  ratio can rise while the harness gets faster. ``--floor-anew`` adds a second replay whose
  every message is made anew for each call (a new object and id, built before the timing), as
  a task that shares no message objects between calls would send them: the other bound of
  Inspect's floor, since a plain Inspect dialogue shares some objects (its history) and not
  others.
- ``offline``: 640 consultations (reference doctor, scripted patient, rules judge) and their
  CPU.
- ``wall``: wall time over the critical path at 1 s a call (``--latency``), on a few personas.
- ``startup``: ``gaa --help`` and ``gaa personas all``.

The reference doctor ``reference/exemplary`` talks to the scripted patient for five rounds, so
transcripts have a realistic length; the judge is a well-behaved scripted team.
"""

from __future__ import annotations

import argparse
import fnmatch
import gc
import json
import os
import pickle
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _prefix_cache import CallTokens, PrefixCache, block_chain, rendered, shared_prefix_tokens
from _prefix_cache import tokenizer as load_tokenizer
from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, ModelUsage
from inspect_ai.solver._task_state import sample_state

from gaa.runs import check_completed
from gaa.testing import ScriptedModel, TeamScript

REPO = Path(__file__).resolve().parents[1]
SUMMARY = json.dumps(
    {"strengths": ["clear"], "weaknesses": ["no figures"], "critical_incidents": []}
)
TEAM_SIZE = 3
SECTIONS = ("tokens", "cpu", "offline", "wall", "startup")
Calls = dict[str, list[tuple[str, list[ChatMessage], GenerateConfig, str]]]
"""A run's model calls per sample: role, input messages, generation settings, reply."""


def judge_reply(messages: list[ChatMessage]) -> str:
    if "evaluation summary" in messages[-1].text:
        return SUMMARY
    return TeamScript(choose=lambda q, labels, role: labels[0], n_agents=TEAM_SIZE).respond(
        messages
    )


class CountingJudge:
    """A scripted judge reporting usage as a provider with a prefix cache would."""

    def __init__(self) -> None:
        self.name, self.tokenize = load_tokenizer()
        self.cache = PrefixCache()
        self.calls: list[CallTokens] = []
        self.scripted = ScriptedModel(self.respond, name="counting-judge")

    def respond(self, messages: list[ChatMessage]) -> ModelOutput:
        text = judge_reply(messages)
        tokens = self.tokenize(rendered(messages))
        state = sample_state()
        self.calls.append(
            CallTokens(str(state.sample_id if state else "?"), block_chain(tokens), len(tokens))
        )
        cached = self.cache.read(tokens)
        output = ModelOutput.from_content(model="counting-judge", content=text)
        out = len(self.tokenize(text))
        output.usage = ModelUsage(  # Inspect's convention: input_tokens excludes cache reads
            input_tokens=len(tokens) - cached,
            output_tokens=out,
            total_tokens=len(tokens) + out,
            input_tokens_cache_read=cached,
        )
        return output


def run_dialogue(personas: str, teamwork: str, judge: ScriptedModel, log_dir: str) -> EvalLog:
    [log] = eval(
        "tasks/medical_dialogue.py",
        model="mockllm/unused",
        model_roles={"judge": judge.model},
        task_args={
            "personas": personas,
            "teamwork": teamwork,
            "doctor": "reference/exemplary",
            "patient": "scripted",
        },
        max_connections=10_000,
        log_dir=log_dir,
        display="none",
    )
    check_completed([log])
    return log


def tokens_section(personas: str, log_dir: str) -> None:
    print("## Judge tokens per persona (provider-reported usage)")
    for teamwork in ("all", "base"):
        judge = CountingJudge()
        log = run_dialogue(personas, teamwork, judge.scripted, log_dir)
        n = len(log.samples or [])
        usage = log.stats.model_usage["mockllm/counting-judge"]
        total = usage.input_tokens + (usage.input_tokens_cache_read or 0)
        across = shared_prefix_tokens(judge.calls, across_groups=True)
        within = shared_prefix_tokens(judge.calls, across_groups=False)
        print(
            f"panel {teamwork:<4}: {total / n:>9,.0f} input tokens/persona ({judge.name}), "
            f"{len(judge.calls) / n:.1f} calls; output {usage.output_tokens / n:,.0f}"
        )
        print(
            f"  in a prefix shared across personas: {across / total:6.1%}   "
            f"shared with any other call: {within / total:6.1%}   "
            f"served by the simulated cache: {(usage.input_tokens_cache_read or 0) / total:6.1%}"
        )
    print("  targets: panel all <= 100,000 per persona, >= 60% in a prefix shared across personas")


DOCTOR_TEXT = (
    "I understand this is a lot to take in. The operation is done under general anaesthetic "
    "through small cuts; about 1 to 5 in 100 people have the lung collapse again afterwards. "
    "It is entirely your decision; take your time. What questions do you have?"
)
BRIEF = "You are Sam, a careful patient. " + "You worry about pain and time off work. " * 20


def patient_reply(messages: list[ChatMessage]) -> str:
    if "You write the character brief" in messages[-1].text:
        return BRIEF
    return "I'm still not sure about it.\nDECISION: UNDECIDED | WILLINGNESS: 5"


class Recorder:
    """Scripted doctor, patient and judge that remember every call per sample, to replay."""

    def __init__(self, latency: float = 0.0, tag: str = "") -> None:
        self.tag = tag
        self.calls: Calls = {}
        self.turns = 0
        self.model_seconds = 0.0
        """CPU the scripted models spent making their replies (a provider's work, not the
        harness's: left out of the harness's figure)."""
        self.models = {
            role: ScriptedModel(self._responder(role, fn), latency=latency, name=f"rec-{role}")
            for role, fn in (
                ("doctor", self._doctor),
                ("patient", patient_reply),
                ("judge", judge_reply),
            )
        }

    def _doctor(self, messages: list[ChatMessage]) -> str:
        """The doctor's text, every sentence unique (no sentence repeats across calls, as with a
        real model, so nothing the harness remembers between calls flatters it)."""
        self.turns += 1
        return " ".join(
            f"{sentence} (Note {self.tag}{self.turns}-{i}.)"
            for i, sentence in enumerate(DOCTOR_TEXT.split(". "))
        )

    def _responder(self, role: str, fn: Callable[[list[ChatMessage]], str]) -> Callable[..., str]:
        def respond(messages: list[ChatMessage]) -> str:
            started = time.process_time()
            text = fn(messages)
            self.model_seconds += time.process_time() - started
            state = sample_state()
            key = str(state.sample_id) if state else "?"
            # this call's settings, as the model received them: the scripted model records
            # the call just before it asks for the reply, with no wait in between at zero
            # latency (the cpu section's; with latency, calls interleave and this is a guess)
            config = self.models[role].calls[-1].config
            self.calls.setdefault(key, []).append((role, list(messages), config, text))
            return text

        return respond


def run_model_dialogue(personas: str, recorder: Recorder, log_dir: str, rounds: int = 5) -> float:
    """CPU seconds of a full benchmark run with model doctor, patient and panel judge."""
    started = time.process_time()
    [log] = eval(
        "tasks/medical_dialogue.py",
        model=recorder.models["doctor"].model,
        model_roles={
            "patient": recorder.models["patient"].model,
            "judge": recorder.models["judge"].model,
        },
        task_args={"personas": personas, "max_rounds": rounds},
        max_connections=10_000,
        max_samples=1000,
        log_dir=log_dir,
        display="none",
    )
    check_completed([log])
    return time.process_time() - started


WARM_UP = "INTJ_M_*"
"""Each side's warm-up: a persona of each case (the harness runs them, the floor replays their
calls), so neither pays for first imports, compiled patterns or first model set-up."""
CHILD_TIMEOUT = 1800


def in_fresh_process(*args: str) -> dict[str, Any]:
    """Run this script with ``args`` in a new Python process; the JSON of its last line."""
    command = [sys.executable, __file__, *args]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, check=False, timeout=CHILD_TIMEOUT
        )
    except subprocess.TimeoutExpired as exc:
        raise RuntimeError(f"{args[0]} took over {CHILD_TIMEOUT} s: {exc.stderr!r:.3000}") from None
    lines = done.stdout.strip().splitlines()
    try:
        if done.returncode != 0:
            raise ValueError(f"exit status {done.returncode}")
        found: dict[str, Any] = json.loads(lines[-1])
    except (ValueError, IndexError) as exc:
        raise RuntimeError(
            f"{args[0]} failed ({exc}):\nstdout: {done.stdout[-1000:]}\n"
            f"stderr: {done.stderr[-3000:]}"
        ) from None
    return found


def harness_here(personas: str, tag: str, calls_path: str, log_dir: str) -> None:
    """A fresh process's timed benchmark run, after a warm-up run (:data:`WARM_UP`); its calls
    go to ``calls_path``. The timed part is one ``eval`` call: loading the task file, the run
    and writing its log. Prints ``{"cpu": seconds less the scripted models' own,
    "model_seconds": .., "calls": .., "personas": .., "peak_mb": ..}``."""
    run_model_dialogue(WARM_UP, Recorder(tag=f"warm-up {tag}"), log_dir)
    recorder = Recorder(tag=tag)
    cpu = run_model_dialogue(personas, recorder, log_dir) - recorder.model_seconds
    calls = {key: made for key, made in recorder.calls.items() if key != "?"}
    with open(calls_path, "wb") as file:
        pickle.dump(calls, file)
    made = sum(len(c) for c in calls.values())
    print(
        json.dumps(
            {
                "cpu": cpu,
                "model_seconds": recorder.model_seconds,
                "calls": made,
                "personas": len(calls),
                "peak_mb": peak_rss_mb(),
            }
        )
    )


def made_anew(calls: Calls) -> Calls:
    """The same calls with every message a new object with a new id, for every call."""
    return {
        key: [
            (
                role,
                [type(m).model_validate(m.model_dump(exclude={"id"})) for m in messages],
                config,
                text,
            )
            for role, messages, config, text in made
        ]
        for key, made in calls.items()
    }


def floor_here(calls_path: str, log_dir: str, anew: bool = False) -> None:
    """A fresh process's bare Inspect replay of the calls in ``calls_path``, after a warm-up
    replay of the :data:`WARM_UP` personas' calls. The process builds no GAA task, so GAA's
    collector tuning is off; its heap holds what ``inspect eval`` loads in this environment
    (Inspect's entry points import GAA's registry). Prints ``{"cpu": seconds, "peak_mb": ..}``."""
    with open(calls_path, "rb") as file:
        calls: Calls = pickle.load(file)
    if anew:
        calls = made_anew(calls)
    warm = {key: made for key, made in calls.items() if fnmatch.fnmatch(key, WARM_UP)}
    replay_calls_in_inspect(warm or dict([next(iter(calls.items()))]), log_dir)
    cpu = replay_calls_in_inspect(calls, log_dir)
    if gc.get_freeze_count():
        raise RuntimeError("the floor's process froze objects: it must build no GAA task")
    print(json.dumps({"cpu": cpu, "peak_mb": peak_rss_mb()}))


def replay_calls_in_inspect(calls: Calls, log_dir: str) -> float:
    """CPU seconds of a bare Inspect task making the same calls, sample by sample: the
    doctor's and patient's in a solver, the judge's in a scorer."""
    from inspect_ai import Task
    from inspect_ai.dataset import Sample
    from inspect_ai.model import get_model
    from inspect_ai.scorer import Score, Target, mean, scorer
    from inspect_ai.solver import Generate, TaskState, solver

    queues: dict[tuple[str, str], list[str]] = {}
    for key, sample_calls in calls.items():
        for role, _, _, text in sample_calls:
            queues.setdefault((key, role), []).append(text)

    def replier(role: str) -> Callable[[list[ChatMessage]], str]:
        """The very reply the benchmark got for this sample's next call of ``role``."""

        def reply(messages: list[ChatMessage]) -> str:
            state = sample_state()
            return queues[(str(state.sample_id) if state else "?", role)].pop(0)

        return reply

    replies = {
        role: ScriptedModel(replier(role), name=f"replay-{role}")
        for role in ("doctor", "patient", "judge")
    }

    async def replay_calls(sample_id: object, roles: set[str]) -> None:
        for role, messages, config, _ in calls[str(sample_id)]:
            if role in roles:
                await get_model(role=role).generate(messages, config=config)

    @solver
    def replay() -> Callable[..., Any]:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            await replay_calls(state.sample_id, {"doctor", "patient"})
            return state

        return solve

    @scorer(metrics=[mean()])
    def replay_judge() -> Callable[..., Any]:
        """The judge's calls in a scorer, as the benchmark makes them (Inspect opens its
        scorer spans and logs a score event for any benchmark that scores)."""

        async def score(state: TaskState, target: Target) -> Score:
            await replay_calls(state.sample_id, {"judge"})
            return Score(value=1.0)

        return score

    task = Task(
        dataset=[Sample(input="x", id=key) for key in calls],
        solver=replay(),
        scorer=replay_judge(),
    )
    started = time.process_time()
    [log] = eval(
        task,
        model=replies["doctor"].model,
        model_roles={"patient": replies["patient"].model, "judge": replies["judge"].model},
        max_connections=10_000,
        max_samples=1000,
        log_dir=log_dir,
        display="none",
    )
    elapsed = time.process_time() - started
    check_completed([log])
    return elapsed


def cpu_section(personas: str, log_dir: str, repeat: int, anew: bool = False) -> None:
    print("\n## Harness CPU against Inspect's floor (zero latency, same calls)")
    ours: list[float] = []
    floors: list[float] = []
    floors_anew: list[float] = []
    peaks: list[tuple[float, float]] = []
    calls_path = str(Path(log_dir) / "calls.pickle")
    for run in range(repeat):
        # each side in a fresh process; every run's doctor says sentences no other run said
        harness = in_fresh_process(
            "--harness-run", calls_path, "--personas", personas, "--tag", f"run {run} ",
            "--log-dir", log_dir,
        )  # fmt: skip
        ours.append(harness["cpu"])
        floor = in_fresh_process("--floor-run", calls_path, "--log-dir", log_dir)
        floors.append(floor["cpu"])
        peaks.append((harness["peak_mb"], floor["peak_mb"]))
        if anew:
            floors_anew.append(
                in_fresh_process("--floor-run", calls_path, "--log-dir", log_dir, "--floor-anew")[
                    "cpu"
                ]
            )
        print(
            f"run {run + 1}: model calls {harness['calls']}; GAA {ours[-1]:.1f} s CPU (less "
            f"{harness['model_seconds']:.1f} s the scripted models spent on their replies), bare "
            f"Inspect replay {floors[-1]:.1f} s"
            + (f", messages made anew {floors_anew[-1]:.1f} s" if anew else "")
        )
    os.unlink(calls_path)
    ratios = sorted(o / f for o, f in zip(ours, floors, strict=True))
    print(
        f"GAA benchmark: {min(ours):6.1f} s CPU   bare Inspect replay: {min(floors):6.1f} s CPU "
        f"(fastest of {repeat}: ratio {min(ours) / min(floors):.2f})"
    )
    print(
        f"ratio: {statistics.median(ratios):.2f}, the median of each run against the replay of "
        f"its own calls (per run {', '.join(f'{r:.2f}' for r in ratios)})  (target <= 1.3)"
    )
    extra = statistics.median(o - f for o, f in zip(ours, floors, strict=True))
    personas_run = harness["personas"]
    print(
        f"harness CPU less the replay's: {extra:.2f} s, {extra / personas_run * 1000:.0f} ms a "
        f"persona (the median over the runs)"
    )
    if anew:
        ratios_anew = sorted(o / f for o, f in zip(ours, floors_anew, strict=True))
        print(
            f"ratio against the replay with every message made anew: "
            f"{statistics.median(ratios_anew):.2f} (per run "
            f"{', '.join(f'{r:.2f}' for r in ratios_anew)}; fastest replay "
            f"{min(floors_anew):.1f} s)"
        )
    print(
        f"peak RSS of a run's process: GAA {max(p for p, _ in peaks):.0f} MB, bare Inspect "
        f"replay {max(p for _, p in peaks):.0f} MB"
    )


def offline_section(log_dir: str) -> None:
    print("\n## Offline throughput (reference doctor, scripted patient, rules judge)")
    started, wall = time.process_time(), time.perf_counter()
    [log] = eval(
        "tasks/medical_dialogue.py",
        model="mockllm/unused",
        task_args={"doctor": "reference/exemplary", "patient": "scripted", "judge": "rules"},
        epochs=10,
        max_samples=1000,
        log_dir=log_dir,
        display="none",
    )
    check_completed([log])
    cpu, elapsed = time.process_time() - started, time.perf_counter() - wall
    n = len(log.samples or [])
    print(f"{n} consultations: {cpu:.1f} s CPU, {elapsed:.1f} s wall ({n / elapsed:.1f} a second)")
    print("target: 640 consultations in <= 45 s of CPU")


def wall_section(personas: str, latency: float, log_dir: str) -> None:
    from harness_overhead import critical_path_calls

    print(f"\n## Wall time over the critical path ({latency:g} s a call, {personas})")
    recorder = Recorder(latency=latency)
    started = time.perf_counter()
    run_model_dialogue(personas, recorder, log_dir)
    wall = time.perf_counter() - started
    bound = critical_path_calls("all", 5) * latency
    print(
        f"wall {wall:.1f} s, critical path {bound:.1f} s: ratio {wall / bound:.2f} (target <= 1.1)"
    )


def startup_section() -> None:
    print("\n## Start-up")
    gaa = str(Path(sys.executable).with_name("gaa"))
    for args in (["--help"], ["personas", "all"]):
        started = time.perf_counter()
        subprocess.run([gaa, *args], capture_output=True, check=True)
        print(f"gaa {' '.join(args):<14} {time.perf_counter() - started:5.2f} s")
    print("target: gaa --help under 0.5 s")


def peak_rss_mb() -> float:
    """This process's peak resident memory. Read from ``/proc`` where there is one: the
    ``getrusage`` figure survives ``exec``, so a child started by a large parent would report
    the parent's peak."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # bytes on macOS, else KiB
    return peak / 1024 / (1024 if sys.platform == "darwin" else 1)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--personas", default="all")
    parser.add_argument("--skip", nargs="*", default=[], choices=SECTIONS)
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument(
        "--repeat", type=int, default=5, help="timed runs of the cpu section (median counts)"
    )
    parser.add_argument("--wall-personas", default="I*_M_PNEUMO")
    parser.add_argument(
        "--floor-anew",
        action="store_true",
        help="cpu section: also replay the calls with every message made anew for each call",
    )
    # the cpu section's fresh processes
    parser.add_argument("--harness-run", metavar="CALLS", help=argparse.SUPPRESS)
    parser.add_argument("--floor-run", metavar="CALLS", help=argparse.SUPPRESS)
    parser.add_argument("--tag", default="", help=argparse.SUPPRESS)
    parser.add_argument("--log-dir", help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.chdir(REPO)
    if args.harness_run:
        harness_here(args.personas, args.tag, args.harness_run, args.log_dir)
        return 0
    if args.floor_run:
        floor_here(args.floor_run, args.log_dir, args.floor_anew)
        return 0
    sections: dict[str, Callable[[str], None]] = {
        "tokens": lambda log_dir: tokens_section(args.personas, log_dir),
        "cpu": lambda log_dir: cpu_section(args.personas, log_dir, args.repeat, args.floor_anew),
        "offline": offline_section,
        "wall": lambda log_dir: wall_section(args.wall_personas, args.latency, log_dir),
        "startup": lambda log_dir: startup_section(),
    }
    peaks = []
    with tempfile.TemporaryDirectory() as log_dir:
        for name, section in sections.items():
            if name not in args.skip:
                section(log_dir)
                peaks.append(f"{name} {peak_rss_mb():.0f}")
    print(
        f"\npeak RSS of this process: {peak_rss_mb():.0f} MB (after each section: "
        f"{', '.join(peaks)})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
