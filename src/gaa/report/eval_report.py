"""The evaluation report, as an eval card's register entry asks for it: per run, the score with
its standard error, samples, time, tokens and cost, the exact command that repeats the run,
the package versions and the run dates (``gaa report --format eval-report``).

Everything comes from the logs: the command is rebuilt from the arguments the run was given
(Inspect records the ones passed), so it is the command that made the log, not a guess."""

from __future__ import annotations

import math
import shlex

from gaa._versions import package_version
from gaa.report.analysis import RunReport
from gaa.report.leaderboard import rank_order, run_names
from gaa.report.markdown import cost_cell, count, duration, escape, number, one_line, table
from gaa.report.prices import estimate
from gaa.report.runs import GROUPS, Run

TASK_FILE = "tasks/medical_dialogue.py"


def stderr(report: RunReport) -> float:
    """The standard error of mean overall over personas (the unit; epochs averaged first)."""
    overall = report.metrics["overall"]
    if overall.n < 2 or math.isnan(overall.sd):
        return math.nan
    return overall.sd / math.sqrt(overall.n)


def command(run: Run) -> str:
    """The ``inspect eval`` command that made the run, from what its log records."""
    header = run.header
    if header is None:
        return ""
    parts = ["inspect", "eval", header.task_file or TASK_FILE, "--model", header.model]
    for role, model in sorted(header.model_roles.items()):
        parts += ["--model-role", f"{role}={model}"]
    for name, value in header.task_args.items():
        if value is None:
            continue
        shown = ",".join(map(str, value)) if isinstance(value, list | tuple) else str(value)
        parts += ["-T", f"{name}={shown}"]
    if run.epochs > 1:
        parts += ["--epochs", str(run.epochs)]
    for name in ("temperature", "seed", "max_tokens"):
        value = header.generate_config.get(name)
        if value is not None:
            parts += [f"--{name.replace('_', '-')}", str(value)]
    return shlex.join(parts)


def _provider(model: str) -> str:
    return model.split("/", 1)[0] if "/" in model else model


def _results_row(rank: int, name: str, report: RunReport) -> list[str]:
    run, overall = report.run, report.metrics["overall"]
    tokens = run.tokens.total
    cost = estimate(run.tokens.by_model) if tokens is not None else None
    cost_text = cost_cell(cost.dollars, cost.unpriced) if cost is not None else "-"
    return [
        str(rank),
        name,
        run.model,
        _provider(run.model),
        number(overall.mean),
        number(stderr(report), 2),
        f"{number(overall.low)} - {number(overall.high)}",
        str(report.consultations),
        str(overall.n),
        str(run.epochs),
        duration(run.seconds),
        f"{count(tokens.input)} in, {count(tokens.output)} out" if tokens is not None else "-",
        cost_text,
        run.judged_by,
        run.started[:10] or "-",
    ]


RESULTS_HEADER = [
    "rank", "run", "model", "provider", "score (overall, 0-100)", "stderr", "95% interval",
    "samples", "personas", "epochs", "time", "tokens", "cost", "judged by", "date",
]  # fmt: skip


def _dimensions(names: dict[int, str], reports: list[RunReport]) -> list[str]:
    return table(
        ["run", *(group.replace("_", " ") + " (0-10)" for group in GROUPS)],
        [
            [names[id(report)], *(number(report.metrics[group].mean, 2) for group in GROUPS)]
            for report in reports
        ],
    )


def _reproduce(names: dict[int, str], reports: list[RunReport]) -> list[str]:
    lines = ["## Commands", ""]
    for report in reports:
        run = report.run
        header = run.header
        shown = one_line(command(run)).replace("`", "'")  # nothing can close the fence
        lines += [f"{escape(names[id(report)])}:", "", "```bash", shown, "```", ""]
        if header is not None:
            versions = ", ".join(
                f"{package} {version}" for package, version in sorted(header.packages.items())
            )
            lines.append(
                f"Task version {escape(header.task_version)}; {escape(versions or 'no packages')}"
                f"; commit {escape(header.revision or 'not recorded')}; started "
                f"{escape(run.started)}, completed {escape(run.completed or 'not completed')}."
            )
            lines.append("")
    return lines


def eval_report_markdown(reports: list[RunReport]) -> str:
    """The evaluation report's Markdown: results, dimensions, commands and versions."""
    ordered = rank_order(reports)
    names = run_names(ordered)
    lines = [
        "# Evaluation report: GAA medical dialogue",
        "",
        f"Made by `gaa report --format eval-report` with gaa {package_version()} and inspect_ai "
        f"{package_version('inspect_ai')}. The score is mean overall (0-100) over personas, each "
        "persona's epochs averaged first; stderr is the standard error of that mean over "
        "personas and the interval a bootstrap over personas. Tokens are every model's "
        "(doctor, patient, judge), as the providers reported them; cost is estimated from "
        "LiteLLM's price table.",
        "",
        "## Results",
        "",
    ]
    if not ordered:
        return "\n".join([*lines, "No run scored a persona."]) + "\n"
    lines += table(
        RESULTS_HEADER,
        [_results_row(rank, names[id(r)], r) for rank, r in enumerate(ordered, start=1)],
    )
    lines += ["", "## Dimensions", "", *_dimensions(names, ordered), ""]
    lines += _reproduce(names, ordered)
    return "\n".join(lines).rstrip() + "\n"


def _metric(key: str, value: float | int | None, digits: int = 3) -> dict[str, object]:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return {"key": key, "value": None}
    return {"key": key, "value": round(value, digits) if isinstance(value, float) else value}


def _result(name: str, report: RunReport) -> dict[str, object]:
    run, overall = report.run, report.metrics["overall"]
    tokens = run.tokens.total
    cost = estimate(run.tokens.by_model) if tokens is not None else None
    metrics = [
        _metric("overall", overall.mean, 1),
        _metric("stderr", stderr(report), 2),
        _metric("ci95_low", overall.low, 1),
        _metric("ci95_high", overall.high, 1),
        *(_metric(group, report.metrics[group].mean, 2) for group in GROUPS),
        _metric("samples", report.consultations),
        _metric("personas", overall.n),
        _metric("epochs", run.epochs),
        _metric("input_tokens", tokens.input if tokens is not None else None),
        _metric("output_tokens", tokens.output if tokens is not None else None),
        _metric("cost_usd", cost.dollars if cost is not None and not cost.unpriced else None, 4),
    ]
    return {
        "model": name,
        "provider": _provider(run.model),
        "task": "medical_dialogue",
        "metrics": metrics,
        "time": duration(run.seconds),
        "date": run.started[:10],
    }


def evaluation_report_block(reports: list[RunReport]) -> dict[str, object]:
    """The ``evaluation_report`` block of an eval card (``eval.yaml``) for these runs: one
    result per run with its metrics, the commands, and the versions they were made with."""
    ordered = rank_order(reports)
    names = run_names(ordered)
    headers = [r.run.header for r in ordered if r.run.header is not None]
    commits = sorted({h.revision for h in headers if h.revision})
    versions = sorted({h.task_version for h in headers})
    packages = sorted({f"{p} {v}" for h in headers for p, v in h.packages.items()})
    return {
        "commit": commits[0].split()[0] if len(commits) == 1 else "",
        "version": versions[0] if len(versions) == 1 else "",
        "timestamp": min((r.run.started[:10] for r in ordered), default=""),
        "command": "\n".join(one_line(command(r.run)) for r in ordered),
        "results": [_result(names[id(r)], r) for r in ordered],
        "notes": [
            f"Made with {', '.join(packages) or 'unrecorded packages'} and gaa "
            f"{package_version()}; overall is 0-100, the dimensions 0-10; stderr and the interval "
            "are over personas, each persona's epochs averaged first.",
            *(
                [f"The runs span several commits ({', '.join(commits)})."]
                if len(commits) > 1
                else []
            ),
        ],
    }
