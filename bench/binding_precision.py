"""How often the validator's safety flags are right on whole consultations written by someone
who never saw its rules (``tests/data/flag_labels_holdout/``): each doctor turn is labelled with
the unsafe behaviours a clinician sees in it, and every flag the validator raises is checked
against the labels of its turn.

    .venv/bin/python bench/binding_precision.py [--folder tests/data/flag_labels_holdout]

Prints, for the binding rules (those that can overrule an LLM judge) and for all rules: the
flags raised, how many name a behaviour labelled in that turn (strict: the same behaviour;
lenient: any labelled behaviour, since a clinician may name one unsafe sentence differently),
precision, and the recall of each labelled behaviour. The advice finding of the whole
consultation (an unindicated push, steering away from an indicated operation) is checked
against the labels of any turn.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

import yaml

from gaa._text import clean_text
from gaa.evidence import DialogueEvidence, validate_turn
from gaa.evidence.rules import safety_rule
from gaa.plugins import catalogue

CASES = {"small_aaa": "example/small_aaa"}
LABEL_OF = {"absolute_guarantee": "false_guarantee", "steers_from_indicated": "unindicated_push"}
"""The validator's rule ids that the labels name differently."""


def _binding(rule: str) -> bool:
    try:
        return safety_rule(rule).binding
    except Exception:  # a finding that is not a rule of the file (the advice finding)
        return False


def measure(folder: Path) -> dict[str, Counter[str]]:
    names = ("strict", "lenient", "raised", "labelled", "found")
    counts: dict[str, Counter[str]] = {name: Counter() for name in names}
    for path in sorted(folder.glob("c*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        case = catalogue().cases.get(CASES.get(data["case"], data["case"])).item
        evidence = DialogueEvidence.for_case(case)
        labels = [set(turn.get("behaviours") or []) for turn in data["turns"]]
        everywhere = set().union(*labels)
        raised_by_turn: list[set[str]] = []
        for turn, wanted in zip(data["turns"], labels, strict=True):
            validation = validate_turn(clean_text(turn["doctor"]), case)
            evidence.add(validation)
            raised = {LABEL_OF.get(flag.rule, flag.rule) for flag in validation.flags}
            raised_by_turn.append(raised)
            for label in wanted:
                counts["labelled"][label] += 1
                counts["found"][label] += label in raised
            for flag in validation.flags:
                name = LABEL_OF.get(flag.rule, flag.rule)
                kind = "binding" if _binding(flag.rule) else "advisory"
                counts["raised"][kind] += 1
                counts["strict"][kind] += name in wanted
                counts["lenient"][kind] += bool(wanted)
        per_turn = len([f for t in evidence.turns for f in t.flags])
        for flag in evidence.flags[per_turn:]:  # the advice finding of the whole consultation
            name = LABEL_OF.get(flag.rule, flag.rule)
            counts["raised"]["advice"] += 1
            counts["strict"]["advice"] += name in everywhere
            counts["lenient"]["advice"] += bool(everywhere)
            # a push labelled in some turn is found when the consultation's advice is flagged
            counts["found"][name] += sum(
                name in wanted and name not in raised
                for wanted, raised in zip(labels, raised_by_turn, strict=True)
            )
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, default=Path("tests/data/flag_labels_holdout"))
    counts = measure(parser.parse_args().folder)
    print("| flags | raised | right (same behaviour) | right (any labelled) | precision |")
    print("|---|---|---|---|---|")
    for kind in ("binding", "advisory", "advice"):
        raised = counts["raised"][kind]
        strict, lenient = counts["strict"][kind], counts["lenient"][kind]
        precision = f"{strict / raised:.2f} / {lenient / raised:.2f}" if raised else "-"
        print(f"| {kind} | {raised} | {strict} | {lenient} | {precision} |")
    print("\n| labelled behaviour | turns | flagged (same behaviour) | recall |")
    print("|---|---|---|---|")
    for label, n in sorted(counts["labelled"].items()):
        found = counts["found"][label]
        print(f"| {label} | {n} | {found} | {found / n:.2f} |")


if __name__ == "__main__":
    main()
