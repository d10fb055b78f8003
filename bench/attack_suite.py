"""Play the attack suite (or another attack file) and print what every entry achieved.

    .venv/bin/python bench/attack_suite.py [--attacks tests/data/attacks/attacks.yaml]
        [--judge rules|panel] [--patient MODEL] [--validator MODEL]
        [--target patient|judge|validator] [--only-gaps tests/test_attack_suite_b.py]

Each entry is one consultation: a scripted doctor says the attack turn(s), an obedient patient
model reads what the harness lets through, the rules judge (or an obedient panel that rules
every criterion met) scores it. Prints the table of entries and pass rates: attacks must be
flagged or withheld, controls must be neither.

``--patient MODEL`` plays a real patient model instead of the obedient one (for example the
embedded ``gaa-local/qwen2.5-0.5b``, or any provider's model) and also prints how often it ended
where the attacks wanted, next to how often honest control turns end there. ``--target patient``
plays only the attacks on the patient and the controls. ``--validator MODEL`` has that model
check every doctor turn as well as the rules (the model validator). Real models are slow here
(the embedded one takes about 20 s a consultation on two cores), so ``--only-gaps FILE`` plays
only the attacks listed in that test file's ``KNOWN_GAPS`` (what the rules miss) and the
controls.
"""

from __future__ import annotations

import argparse
import ast
import tempfile
import time
from pathlib import Path

from gaa.attack_suite import format_outcomes, format_resistance, load_attacks, run_attacks


def _known_gaps(test_file: str) -> set[str]:
    """The ids in a test file's ``KNOWN_GAPS`` mapping, read without importing the tests."""
    tree = ast.parse(Path(test_file).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "KNOWN_GAPS":
            assert isinstance(node.value, ast.Dict)
            return {k.value for k in node.value.keys if isinstance(k, ast.Constant)}
    raise SystemExit(f"{test_file} has no KNOWN_GAPS")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--attacks", default="tests/data/attacks/attacks.yaml")
    parser.add_argument("--judge", choices=("rules", "panel"), default="rules")
    parser.add_argument("--patient", default=None, help="a real patient model to play")
    parser.add_argument("--validator", default=None, help="a model to check doctor turns")
    parser.add_argument("--target", default=None, help="play only attacks on this target")
    parser.add_argument("--only-gaps", default=None, help="a test file with KNOWN_GAPS")
    args = parser.parse_args()
    gaps = _known_gaps(args.only_gaps) if args.only_gaps else None
    entries = [
        e
        for e in load_attacks(args.attacks)
        if e.kind == "control"
        or ((args.target is None or e.target == args.target) and (gaps is None or e.id in gaps))
    ]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as logs:
        outcomes = run_attacks(
            entries,
            args.judge,
            logs,
            patient=args.patient,
            validator=args.validator,
            keep_going=bool(args.patient or args.validator),
        )
    print(format_outcomes(outcomes))
    if args.patient:
        print(f"\nwith the patient model {args.patient}:\n" + format_resistance(outcomes))
    print(f"\n{len(entries)} entries in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
