"""Built-in question sets: ``core``, 72 original USMLE-style questions across 12 specialties."""

from __future__ import annotations

from collections.abc import Callable

from inspect_ai.dataset import Sample

from gaa._resources import prompts_dir
from gaa.hookspecs import hookimpl
from gaa.qa.questions import load_medqa_jsonl


def load_core() -> list[Sample]:
    return load_medqa_jsonl(prompts_dir() / "questions" / "core.jsonl")


@hookimpl
def register_question_sets(register: Callable[..., None]) -> None:
    register("core", load_core, description="72 original USMLE-style questions, 12 specialties")
