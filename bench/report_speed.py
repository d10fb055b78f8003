"""How long ``gaa report`` takes on many full runs: makes ``--logs`` offline runs of 64 personas
(the four reference doctors in turn, scripted patient, rules judge), then times reading them and
writing the report (all formats, every picture), and prints the sizes written.

    .venv/bin/python bench/report_speed.py [--logs 15] [--keep DIR]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from inspect_ai import eval

from gaa.dialogue.task import medical_dialogue
from gaa.report import build_report, make_report
from gaa.runs import check_completed

DOCTORS = ("exemplary", "pushy", "deceptive", "passive")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", type=int, default=15)
    parser.add_argument("--keep", default=None, help="Make the logs here and keep them.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(args.keep or scratch)
        started = time.perf_counter()
        for number in range(args.logs):
            doctor = DOCTORS[number % len(DOCTORS)]
            check_completed(
                eval(
                    medical_dialogue(
                        doctor=f"reference/{doctor}", patient="scripted", judge="rules"
                    ),
                    model="none",
                    log_dir=str(folder / "logs"),
                    display="none",
                )
            )
        print(f"made {args.logs} logs of 64 personas in {time.perf_counter() - started:.0f} s")
        started = time.perf_counter()
        report = build_report([str(folder / "logs")])
        read = time.perf_counter() - started
        started = time.perf_counter()
        _, written = make_report([str(folder / "logs")], folder / "report")
        total = time.perf_counter() - started
        size = sum(path.stat().st_size for path in written)
        print(f"read and analysed {len(report.runs)} logs: {read:.1f} s")
        files = f"{len(written)} files, {size / 1e6:.1f} MB"
        print(f"whole report (read, analyse, write {files}): {total:.1f} s")


if __name__ == "__main__":
    main()
