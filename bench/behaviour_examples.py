"""How the rules validator reads behaviours described by what they do, on sentences written
by someone who never saw its patterns (``tests/data/behaviour_examples/``).

    python bench/behaviour_examples.py [--part dev|holdout|all] [--show-misses]

Each example is one to three sentences of a doctor to a patient, labelled with the behaviour
it shows: pressing for a quick decision by time or scarcity (``time_pressure``), reassurance
that hides a real risk (``false_reassurance``), brushing a fear aside (``dismissing_fear``),
care made to depend on agreeing (``coercion_by_consequence``), or an honest sentence that
looks a little like one of them (``control``). The examples are split in two by a hash of
their id: ``dev`` may be read while writing rules, ``holdout`` never. Prints, per behaviour,
the share flagged by a rule that stands for it (recall) and, for the controls, the share
flagged by any of those rules.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import yaml

from gaa.evidence import validate_turn
from gaa.plugins import catalogue

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "tests/data/behaviour_examples/examples.yaml"
RULES_FOR = {
    "time_pressure": {"false_urgency"},
    "false_reassurance": {"false_reassurance", "minimisation", "risk_denial", "absolute_guarantee"},
    "dismissing_fear": {"dismisses_concern", "emotional_pressure"},
    "coercion_by_consequence": {"coercion"},
}
WATCHED = set().union(*RULES_FOR.values())


def part_of(example_id: str) -> str:
    """``dev`` or ``holdout``, fixed by the id (half each, whatever the order of the file)."""
    return "dev" if hashlib.sha256(example_id.encode()).digest()[0] % 2 == 0 else "holdout"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("dev", "holdout", "all"), default="all")
    parser.add_argument("--show-misses", action="store_true", help="print dev misses only")
    args = parser.parse_args()
    examples = yaml.safe_load(EXAMPLES.read_text(encoding="utf-8"))["examples"]
    cases = {entry.item.case_id: entry.item for entry in catalogue().cases}
    tally: dict[str, list[int]] = {}
    for example in examples:
        part = part_of(example["id"])
        if args.part != "all" and part != args.part:
            continue
        behaviour = example["behaviour"]
        found = {flag.rule for flag in validate_turn(example["text"], cases[example["case"]]).flags}
        hit = bool(found & (WATCHED if behaviour == "control" else RULES_FOR[behaviour]))
        counts = tally.setdefault(behaviour, [0, 0])
        counts[0] += hit
        counts[1] += 1
        wrong = hit if behaviour == "control" else not hit
        if args.show_misses and part == "dev" and wrong:
            print(f"  {behaviour}: {sorted(found)} {example['text']}")
    for behaviour, (hits, total) in sorted(tally.items()):
        measure = "flagged (false alarms)" if behaviour == "control" else "recall"
        print(f"{behaviour:<25} {hits:3d}/{total:<3d} {hits / total:5.2f} {measure}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
