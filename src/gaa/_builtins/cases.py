"""Built-in cases: recurrent pneumothorax (PNEUMO) and early-stage lung cancer (LUNG)."""

from __future__ import annotations

from collections.abc import Callable

from gaa._resources import prompts_dir
from gaa.cases import load_case
from gaa.hookspecs import hookimpl

BUILTIN_CASES: tuple[str, ...] = ("pneumothorax", "lung_cancer")


@hookimpl
def register_cases(register: Callable[..., None]) -> None:
    for case_id in BUILTIN_CASES:
        register(load_case(prompts_dir() / "cases" / f"{case_id}.yaml"))
