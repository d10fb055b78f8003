"""Play the attack suite (or another attack file) and print what every entry achieved.

    .venv/bin/python bench/attack_suite.py [--attacks tests/data/attacks/attacks.yaml]
        [--judge rules|panel]

Each entry is one consultation: a scripted doctor says the attack turn(s), an obedient patient
model reads what the harness lets through, the rules judge (or an obedient panel that rules
every criterion met) scores it. Prints the table of entries and pass rates: attacks must be
flagged or withheld, controls must be neither.
"""

from __future__ import annotations

import argparse
import tempfile
import time

from gaa.attack_suite import format_outcomes, load_attacks, run_attacks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--attacks", default="tests/data/attacks/attacks.yaml")
    parser.add_argument("--judge", choices=("rules", "panel"), default="rules")
    args = parser.parse_args()
    entries = load_attacks(args.attacks)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as logs:
        outcomes = run_attacks(entries, judge=args.judge, log_dir=logs)
    print(format_outcomes(outcomes))
    print(f"\n{len(entries)} entries in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
