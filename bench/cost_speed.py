"""Cost and speed of the medical_dialogue benchmark, in one run.

    .venv/bin/python bench/cost_speed.py [--personas all] [--skip SECTION ...]

Sections (each prints its figures and the issue's target):

- ``tokens``: judge input tokens per persona for panel ``all`` and ``base`` as the provider
  reports them (Inspect's model usage: a scripted judge that counts with a real tokenizer and
  serves prefixes from a simulated provider prompt cache), the share of input in a prefix shared
  across personas, and the share a provider's cache serves.

The reference doctor ``reference/exemplary`` talks to the scripted patient for five rounds, so
transcripts have a realistic length; the judge is a well-behaved scripted team.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from _prefix_cache import CallTokens, PrefixCache, block_chain, rendered, shared_prefix_tokens
from _prefix_cache import tokenizer as load_tokenizer
from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage
from inspect_ai.solver._task_state import sample_state

from gaa.runs import check_completed
from gaa.testing import ScriptedModel, TeamScript

REPO = Path(__file__).resolve().parents[1]
SUMMARY = json.dumps(
    {"strengths": ["clear"], "weaknesses": ["no figures"], "critical_incidents": []}
)
TEAM_SIZE = 3
SECTIONS = ("tokens",)


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
        output.usage = ModelUsage(
            input_tokens=len(tokens),
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
        total = usage.input_tokens
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


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--personas", default="all")
    parser.add_argument("--skip", nargs="*", default=[], choices=SECTIONS)
    args = parser.parse_args()
    os.chdir(REPO)
    with tempfile.TemporaryDirectory() as log_dir:
        if "tokens" not in args.skip:
            tokens_section(args.personas, log_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
