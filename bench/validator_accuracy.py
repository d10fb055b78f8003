"""Precision and recall of the evidence validator on the labelled corpus.

    python bench/validator_accuracy.py [--corpus tests/data/validator_corpus] [--mistakes N]
    python bench/validator_accuracy.py --validator model --model openai/gpt-4o-mini

Prints one table per kind of finding (safety rules, consent items, stance, figures) with
precision, recall and counts, marks the findings that bind a judge, and checks them against
the targets (binding findings: precision >= 0.95; safety rules: recall >= 0.8). With
``--mistakes N`` it lists up to N disagreements per label, for working on the rules.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gaa.evidence.corpus import CorpusReport, Tally, Validate, load_folders, measure
from gaa.evidence.rules import contradicted_figures_binding, safety_rules
from gaa.evidence.validator import TurnValidation, validate_turn

ROOT = Path(__file__).resolve().parents[1]
PRECISION_TARGET = 0.95
RECALL_TARGET = 0.8


def _pct(value: float | None) -> str:
    return "  -  " if value is None else f"{value:5.2f}"


def _row(name: str, tally: Tally, note: str = "") -> str:
    return (
        f"| {name:<26} | {_pct(tally.precision)} | {_pct(tally.recall)} | {tally.tp:>3} | "
        f"{tally.fp:>3} | {tally.fn:>3} | {note} |"
    )


def _table(title: str, rows: list[str]) -> None:
    print(f"\n{title}\n")
    print("| finding                    | prec. | recall |  tp |  fp |  fn | note |")
    print("|----------------------------|-------|--------|-----|-----|-----|------|")
    for row in rows:
        print(row)


def report_tables(report: CorpusReport) -> list[str]:
    """Print the tables; return the targets missed."""
    missed = []
    rules = {rule.id: rule for rule in safety_rules()}
    rows = []
    for rule_id, tally in report.flags.items():
        rule = rules[rule_id]
        binding = rule.binding
        notes = [rule.severity, "binding" if binding else "advisory"]
        if binding and (tally.precision or 0) < PRECISION_TARGET:
            missed.append(f"{rule_id} precision {_pct(tally.precision)}")
            notes.append("BELOW PRECISION TARGET")
        if (tally.recall or 0) < RECALL_TARGET:
            missed.append(f"{rule_id} recall {_pct(tally.recall)}")
            notes.append("below recall target")
        rows.append(_row(rule_id, tally, ", ".join(notes)))
    _table("Safety rules", rows)
    _table("Consent items", [_row(k, v) for k, v in report.consent.items()])
    _table("Recommendation stance", [_row(k, v) for k, v in report.stance.items()])
    verdict_rows = [_row("figure extraction", report.figures)]
    for verdict, tally in report.verdicts.items():
        note = ""
        if verdict == "contradicted":
            note = "binding" if contradicted_figures_binding() else "advisory"
            if note == "binding" and (tally.precision or 0) < PRECISION_TARGET:
                missed.append(f"contradicted precision {_pct(tally.precision)}")
                note += ", BELOW PRECISION TARGET"
        verdict_rows.append(_row(f"verdict {verdict}", tally, note))
    right, wrong = report.attribution["right"], report.attribution["wrong"]
    _table("Figures", verdict_rows)
    if report.qualifiers:
        print(f"\n{report.qualifiers} labelled time spans that qualify another figure (\"alive at "
              "five years\") are read as part of it by design and not scored.")  # fmt: skip
    if right + wrong:
        print(f"\nAttribution: {right}/{right + wrong} figures named the labelled fact "
              f"({right / (right + wrong):.2f}).")  # fmt: skip
    return missed


def model_validations(corpora: list, model_name: str, concurrency: int) -> Validate:  # type: ignore[type-arg]
    """Run the model validator on every item first (concurrently); look the results up."""
    import asyncio

    from inspect_ai.model import get_model

    from gaa.evidence.model_validator import model_validate_turn

    model = get_model(model_name)
    results: dict[tuple[str, str], TurnValidation] = {}
    fallbacks: list[str] = []

    async def run_all() -> None:
        gate = asyncio.Semaphore(concurrency)

        async def one(text: str, case: object) -> None:
            async with gate:
                checked = await model_validate_turn(text, case, model)  # type: ignore[arg-type]
            results[(text, case.case_id)] = checked.validation  # type: ignore[attr-defined]
            if checked.fallback:
                fallbacks.append(checked.fallback)

        await asyncio.gather(
            *(one(item.text, case) for corpus, case in corpora for item in corpus.items)
        )

    asyncio.run(run_all())
    print(f"Model validator {model_name}: {len(results)} items, {len(fallbacks)} fell back")
    return lambda text, case: results[(text, case.case_id)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpus",
        type=Path,
        nargs="+",
        default=[ROOT / "tests/data/validator_corpus"],
        help="one or more corpus folders, measured together",
    )
    parser.add_argument("--mistakes", type=int, default=0)
    parser.add_argument("--label", default="", help="only list mistakes whose label starts so")
    parser.add_argument(
        "--validator", choices=("rules", "model"), default="rules", help="the validator measured"
    )
    parser.add_argument("--model", default=None, help="the model of --validator model")
    parser.add_argument("--concurrency", type=int, default=8, help="model calls at once")
    args = parser.parse_args()
    corpora = load_folders(*args.corpus)
    validate: Validate = validate_turn
    if args.validator == "model":
        if not args.model:
            parser.error("--validator model needs --model <inspect model name>")
        validate = model_validations(corpora, args.model, args.concurrency)
    report, files = measure(corpora, validate), len(corpora)
    names = ", ".join(folder.name for folder in args.corpus)
    print(f"Validator corpus: {report.items} items in {files} files ({names})")
    missed = report_tables(report)
    if args.mistakes:
        shown: dict[str, int] = {}
        print("\nDisagreements:")
        for mistake in report.mistakes:
            if not mistake.label.startswith(args.label):
                continue
            shown[mistake.label] = shown.get(mistake.label, 0) + 1
            if shown[mistake.label] <= args.mistakes:
                print(f"- {mistake.item} {mistake.label}: expected {mistake.expected}, "
                      f"found {mistake.found}: {mistake.text}")  # fmt: skip
    print("\nTargets " + ("met." if not missed else "missed: " + "; ".join(missed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
