"""The validity suite: offline scores of doctors of known clinical quality against their tiers.

    python bench/validity_suite.py [--personas 'I*_M_*'] [--doctors tests/data/validity_doctors]

Runs every scripted doctor of the suite and the four reference doctors offline (scripted
patient, rules judge) over the personas, prints each doctor's tier and mean overall per case,
and Kendall's tau-b between tiers and mean overall on the cases where the operation is
indicated and where it is not (target: at least 0.7 on each), with the wall time.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from gaa.validity import run_suites, tier_tau

ROOT = Path(__file__).resolve().parents[1]
SUITES = ("validity_doctors", "validity_doctors_holdout")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--personas", default="*_M_*")
    parser.add_argument(
        "--doctors",
        type=Path,
        nargs="+",
        default=[ROOT / "tests/data" / name for name in SUITES],
    )
    parser.add_argument("--log-dir", default=str(ROOT / "logs/validity"))
    args = parser.parse_args()
    started = time.perf_counter()
    results = run_suites(args.doctors, args.personas, log_dir=args.log_dir)
    elapsed = time.perf_counter() - started
    cases = sorted({r.case for r in results})
    print(f"| doctor | {' | '.join(f'{c} tier | {c} overall' for c in cases)} |")
    print("|---" * (1 + 2 * len(cases)) + "|")
    for doctor in sorted({r.doctor for r in results}):
        cells = []
        for case in cases:
            found = [r for r in results if r.doctor == doctor and r.case == case]
            cells += [str(found[0].tier), f"{found[0].overall:.1f}"] if found else ["-", "-"]
        print(f"| {doctor} | {' | '.join(cells)} |")
    print()
    for label, indicated in (("indicated", True), ("not indicated", False)):
        group = [r for r in results if r.indicated == indicated]
        print(f"tau-b ({label}, {len(group)} doctor-case pairs): {tier_tau(group):.2f}")
    for case in cases:
        print(f"tau-b ({case}): {tier_tau([r for r in results if r.case == case]):.2f}")
    if len(args.doctors) > 1:
        for folder in args.doctors:
            names = {f"validity/{path.stem}" for path in folder.glob("*.yaml")}
            for label, indicated in (("indicated", True), ("not indicated", False)):
                group = [r for r in results if r.doctor in names and r.indicated == indicated]
                print(f"tau-b ({folder.name} only, {label}): {tier_tau(group):.2f}")
    samples = sum(r.samples for r in results)
    print(f"\n{samples} consultations in {elapsed:.0f} s ({samples / elapsed:.1f} per second)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
