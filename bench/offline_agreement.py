"""Measure the rules judge's agreement with labels per criterion and write the file that
decides which criteria the offline judge rules on.

    python bench/offline_agreement.py [--consultations FOLDER [FOLDER ...]] [--out FILE]

Runs ``judge_check`` with ``judge=rules-all`` (every criterion with a rule, nothing withheld)
over the labelled consultations (the shipped set by default; several folders are pooled),
prints Cohen's kappa per criterion and writes them with the threshold: the rules judge
(``judge=rules``) leaves every criterion below the threshold unjudged. Measure on
consultations the rules were not written from, and confirm on a held-out set you never tune on.
"""

from __future__ import annotations

import argparse
import datetime
import os
import subprocess
import sys
from pathlib import Path

import yaml
from inspect_ai import eval as inspect_eval
from inspect_ai.scorer import SampleScore

from gaa.dialogue.scoring import AGREEMENT_THRESHOLD, MIN_LABELS
from gaa.dialogue.scoring import low_agreement_row as low
from gaa.judge_check.agreement import pairs_of
from gaa.judge_check.task import criterion_agreement, judged_items

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--consultations", nargs="+", default=[str(ROOT / "prompts/judge_check/consultations")]
    )
    parser.add_argument("--out", default=str(ROOT / "prompts/judge/offline_agreement.yaml"))
    parser.add_argument("--log-dir", default=str(ROOT / "logs/offline_agreement"))
    args = parser.parse_args()
    os.chdir(ROOT)  # Inspect reads task files by relative path
    scores: list[SampleScore] = []
    for folder in args.consultations:
        [log] = inspect_eval(
            "tasks/judge_check.py",
            model="none",
            display="none",
            log_dir=args.log_dir,
            task_args={"judge": "rules-all", "consultations": folder},
        )
        if log.status != "success" or not log.samples:
            print(f"judge_check failed on {folder}: {log.error}", file=sys.stderr)
            return 1
        scores += [
            SampleScore(
                score=sample.scores["judge_check_scorer"], sample_id=f"{folder}:{sample.id}"
            )
            for sample in log.samples
            if sample.scores and "judge_check_scorer" in sample.scores
        ]
    items = judged_items(scores)
    table = criterion_agreement(items)
    measured = {}
    for name, row in table.items():
        if row["kappa"] is None or not row["n"]:
            continue
        labels = [label for label, _ in pairs_of(items, [name])]
        measured[name] = {
            "kappa": round(float(row["kappa"]), 2),
            "met": labels.count("met"),
            "not_met": labels.count("not_met"),
        }
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    data = {
        "threshold": AGREEMENT_THRESHOLD,
        "min_labels": MIN_LABELS,
        "measured_on": f"{', '.join(Path(f).name for f in args.consultations)} "
        f"({len(scores)} consultations)",
        "commit": commit,
        "date": datetime.date.today().isoformat(),
        "criteria": measured,
    }
    header = (
        "# The rules judge's agreement with labels (Cohen's kappa), per criterion, written by\n"
        "# bench/offline_agreement.py, with the labels of each kind it rests on. The offline\n"
        "# judge (judge=rules) leaves a criterion unjudged (out of its denominator, as criteria\n"
        "# with no rule are) when its kappa is below the threshold and rests on at least\n"
        "# min_labels labels of each kind; on fewer, the agreement is not established and the\n"
        "# criterion stays judged (a kappa from five positive labels says little either way).\n"
    )
    Path(args.out).write_text(header + yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    below = [name for name, row in measured.items() if low(row)]
    for name, row in measured.items():
        note = "  unjudged" if name in below else ""
        if row["kappa"] < AGREEMENT_THRESHOLD and name not in below:
            note = "  (too few labels to establish)"
        print(f"{name:<45} {row['kappa']:5.2f} {row['met']:4d} {row['not_met']:4d}{note}")
    print(f"\n{len(below)} of {len(measured)} criteria unjudged offline: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
