"""The ablation runner: ``medical_qa`` for several teamwork presets as one Inspect eval set.

Each preset becomes one task of an ``eval_set`` (so an interrupted run resumes without redoing
finished work). The table gives accuracy with its standard error, convergence, calls and tokens
per question, and a paired comparison with ``base`` on the question ids both answered
(exact McNemar test on the discordant pairs).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inspect_ai import eval_set
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import Model

from gaa._stats import mcnemar_exact
from gaa.errors import GAAError
from gaa.qa.task import medical_qa
from gaa.teamwork.config import ABLATION_PRESETS, TeamworkConfig

SCORER = "teamwork_qa_scorer"
BASELINE = "base"


@dataclass(frozen=True)
class AblationRow:
    preset: str
    questions: int
    accuracy: float
    stderr: float
    convergence: float
    calls: float
    tokens: float
    vs_base: tuple[int, int, float] | None
    """(questions only base got right, only this preset got right, McNemar p), or None for base."""


def _metric(log: EvalLog, name: str, stat: str = "mean") -> float:
    if log.results is None:
        raise GAAError(f"the {log.eval.task} log has no results: {log.error}")
    for score in log.results.scores:
        if score.name == name:
            return score.metrics[stat].value
    raise GAAError(f"the log has no '{name}' metric")


def _correct_by_id(log: EvalLog) -> dict[str, bool]:
    correct = {}
    for sample in log.samples or []:
        score = (sample.scores or {}).get(SCORER)
        if score is not None and isinstance(score.value, dict):
            correct[str(sample.id)] = bool(score.value.get("accuracy"))
    return correct


def preset_of(log: EvalLog) -> str:
    return str((log.eval.metadata or {}).get("teamwork", log.eval.task_args.get("teamwork")))


def ablation_table(logs: Sequence[EvalLog]) -> list[AblationRow]:
    """One row per log, in the given order, each compared with the ``base`` log if present."""
    by_preset = {preset_of(log): log for log in logs}
    base = _correct_by_id(by_preset[BASELINE]) if BASELINE in by_preset else None
    rows = []
    for preset, log in by_preset.items():
        correct = _correct_by_id(log)
        comparison = None
        if base is not None and preset != BASELINE:
            shared = sorted(set(base) & set(correct))
            only_base = sum(base[i] and not correct[i] for i in shared)
            only_this = sum(correct[i] and not base[i] for i in shared)
            comparison = (only_base, only_this, mcnemar_exact(only_base, only_this))
        rows.append(
            AblationRow(
                preset=preset,
                questions=len(correct),
                accuracy=_metric(log, "accuracy"),
                stderr=_metric(log, "accuracy", "stderr"),
                convergence=_metric(log, "convergence"),
                calls=_metric(log, "calls"),
                tokens=_metric(log, "tokens"),
                vs_base=comparison,
            )
        )
    return rows


def format_table(rows: Sequence[AblationRow]) -> str:
    lines = [
        f"{'preset':<14} {'n':>4} {'accuracy':>15} {'converg.':>8} {'calls/q':>8} "
        f"{'tokens/q':>9}  vs base (b/c, McNemar p)"
    ]
    for row in rows:
        versus = "-"
        if row.vs_base is not None:
            only_base, only_this, p = row.vs_base
            versus = f"{only_base}/{only_this}, p={p:.3f}"
        lines.append(
            f"{row.preset:<14} {row.questions:>4} {row.accuracy:>7.3f} ± {row.stderr:<5.3f} "
            f"{row.convergence:>8.2f} {row.calls:>8.1f} {row.tokens:>9.0f}  {versus}"
        )
    return "\n".join(lines)


def run_ablation(
    presets: Sequence[str] = ABLATION_PRESETS,
    *,
    limit: int | None = None,
    log_dir: str = "logs/ablation",
    model: str | Model | None = None,
    model_roles: dict[str, Any] | None = None,
    question_set: str = "core",
    dataset: str | None = None,
    n_agents: int | str = "auto",
    n_turns: int = 2,
    display: str | None = None,
) -> list[AblationRow]:
    """Run ``medical_qa`` for each preset (``base`` is added for the comparison) and tabulate."""
    presets = list(dict.fromkeys([BASELINE, *presets]))
    for preset in presets:
        TeamworkConfig.parse(preset, n_agents, n_turns)  # every preset checked before any run
    tasks = [
        medical_qa(
            question_set=question_set,
            dataset=dataset,
            teamwork=preset,
            n_agents=n_agents,
            n_turns=n_turns,
        )
        for preset in presets
    ]
    success, logs = eval_set(
        tasks,
        log_dir=log_dir,
        model=model,
        model_roles=model_roles,
        limit=limit,
        display=display,  # type: ignore[arg-type]
    )
    if not success:
        failed = [preset_of(log) for log in logs if log.status != "success"]
        raise GAAError(f"the ablation did not complete for {', '.join(failed)}; see {log_dir}")
    logs = [read_eval_log(log.location) for log in logs]  # eval_set returns headers only
    order = {preset: i for i, preset in enumerate(presets)}
    return ablation_table(sorted(logs, key=lambda log: order.get(preset_of(log), len(order))))
