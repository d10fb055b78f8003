"""The validity suite: do the offline scores rank doctors as a clinician would?

Scripted doctors of known clinical quality (their tiers written down before they were first
run, :mod:`gaa.doctors.scripted`) and the reference doctors are run offline over the
benchmark's cases (scripted patient, rules judge); Kendall's tau-b between each doctor's
expected tier and its mean overall score, per case and pooled over the cases where the
operation is indicated and where it is not, says how far the scores track clinical quality.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from inspect_ai import eval as inspect_eval

from gaa.doctors.scripted import DoctorScript, load_scripts, scripted_doctors_plugin
from gaa.plugins import catalogue, registered

SUITE_PLUGIN = "validity"
REFERENCE_TIERS: dict[str, dict[bool, int]] = {
    # tier when the operation is indicated / when it is not
    "exemplary": {True: 1, False: 1},
    "passive": {True: 3, False: 3},  # accurate and complete, but no advice and no warmth
    "pushy": {True: 4, False: 5},  # pressure; pushes an unindicated operation
    "deceptive": {True: 5, False: 5},  # guarantees, denied risks, false figures
}


@dataclass(frozen=True)
class SuiteResult:
    doctor: str
    case: str
    indicated: bool
    tier: int
    overall: float
    samples: int


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b (ties in either variable accounted for)."""
    concordant = discordant = ties_x = ties_y = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif dx * dy > 0:
                concordant += 1
            else:
                discordant += 1
    denominator = math.sqrt(
        (concordant + discordant + ties_x) * (concordant + discordant + ties_y)
    )
    return (concordant - discordant) / denominator if denominator else 0.0


def tier_tau(results: Sequence[SuiteResult]) -> float:
    """tau-b between tier (1 best) and overall: +1 when better tiers always score higher."""
    return kendall_tau_b([-r.tier for r in results], [r.overall for r in results])


def _doctors(scripts: list[DoctorScript], include_reference: bool) -> list[str]:
    names = [f"{SUITE_PLUGIN}/{script.name}" for script in scripts]
    if include_reference:
        names += [f"reference/{name}" for name in REFERENCE_TIERS]
    return names


def _tier(doctor: str, case_id: str, indicated: bool, scripts: dict[str, DoctorScript]) -> int:
    plugin, name = doctor.split("/", 1)
    if plugin == "reference":
        return REFERENCE_TIERS[name][indicated]
    return scripts[name].tiers[case_id]


def run_suite(
    folder: Path,
    personas: str | list[str],
    *,
    task: str = "tasks/medical_dialogue.py",
    log_dir: str = "logs/validity",
    include_reference: bool = True,
    max_rounds: int = 5,
) -> list[SuiteResult]:
    """Run every scripted doctor of ``folder`` (and the reference doctors) offline over
    ``personas``; one result per doctor and case."""
    scripts = load_scripts(folder)
    by_name = {script.name: script for script in scripts}
    results: list[SuiteResult] = []
    plugin = scripted_doctors_plugin(folder, SUITE_PLUGIN)
    with registered(plugin, SUITE_PLUGIN, module=f"gaa.validity:{folder}"):
        # the cases every script of the suite has turns for (a suite written for the seed's
        # cases is not run on cases added since)
        covered = set.intersection(*(set(script.turns) for script in scripts))
        cases = {
            entry.full_name: entry.item
            for entry in catalogue().cases
            if entry.item.case_id in covered
        }
        case_ids = ",".join(case.case_id for case in cases.values())
        for doctor in _doctors(scripts, include_reference):
            [log] = inspect_eval(
                task,
                model="none",
                log_dir=log_dir,
                display="none",
                task_args={
                    "doctor": doctor,
                    "patient": "scripted",
                    "judge": "rules",
                    "personas": personas,
                    "cases": case_ids,
                    "max_rounds": max_rounds,
                },
            )
            if log.status != "success" or not log.samples:
                raise RuntimeError(f"validity run of {doctor} failed: {log.error}")
            totals: dict[str, list[float]] = {}
            for sample in log.samples:
                score = next(iter((sample.scores or {}).values()))
                value = score.value
                assert isinstance(value, dict)
                totals.setdefault(str(sample.metadata["case_name"]), []).append(
                    float(value["overall"])
                )
            for case_name, values in totals.items():
                case = cases[case_name]
                results.append(
                    SuiteResult(
                        doctor=doctor,
                        case=case.case_id,
                        indicated=case.surgery_indicated,
                        tier=_tier(doctor, case.case_id, case.surgery_indicated, by_name),
                        overall=sum(values) / len(values),
                        samples=len(values),
                    )
                )
    return results


def run_suites(
    folders: Sequence[Path],
    personas: str | list[str],
    *,
    task: str = "tasks/medical_dialogue.py",
    log_dir: str = "logs/validity",
    max_rounds: int = 5,
) -> list[SuiteResult]:
    """:func:`run_suite` over several folders, the reference doctors once (with the first)."""
    results: list[SuiteResult] = []
    for index, folder in enumerate(folders):
        results += run_suite(
            folder,
            personas,
            task=task,
            log_dir=log_dir,
            include_reference=index == 0,
            max_rounds=max_rounds,
        )
    return results
