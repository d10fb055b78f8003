"""Built-in cases: the seed's recurrent pneumothorax (PNEUMO) and early-stage lung cancer (LUNG),
and the case library, where the guideline course is often not the operation."""

from __future__ import annotations

from collections.abc import Callable

from gaa._resources import prompts_dir
from gaa.cases import load_case
from gaa.hookspecs import hookimpl

SEED_CASES: tuple[str, ...] = ("pneumothorax", "lung_cancer")
"""The seed's cases: ``personas=all`` is their 64 personas, for comparability."""
LIBRARY_CASES: tuple[str, ...] = (
    "gallstones_asymptomatic",
    "gallstones_symptomatic",
    "meniscal_tear",
    "prostate_low_risk",
    "inguinal_hernia",
    "appendicitis_uncomplicated",
    "hip_fracture",
)
BUILTIN_CASES: tuple[str, ...] = SEED_CASES + LIBRARY_CASES


@hookimpl
def register_cases(register: Callable[..., None]) -> None:
    for case_id in BUILTIN_CASES:
        register(load_case(prompts_dir() / "cases" / f"{case_id}.yaml"))
