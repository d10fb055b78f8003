"""Built-in question sets: ``core``, 72 original USMLE-style questions across 12 specialties."""

from __future__ import annotations

from collections.abc import Callable

from gaa.hookspecs import hookimpl


@hookimpl
def register_question_sets(register: Callable[..., None]) -> None:
    register(
        "core",
        "gaa.qa.questions:load_core",
        description="72 original USMLE-style questions, 12 specialties",
    )
