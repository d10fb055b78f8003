"""The judging rubric (``prompts/judge/rubric.yaml``), loaded and checked once."""

from __future__ import annotations

from functools import cache
from typing import Literal

import yaml
from pydantic import BaseModel, ValidationError, field_validator

from gaa._resources import prompts_dir
from gaa._yaml import load_yaml
from gaa.errors import GAAError
from gaa.evidence import DialogueEvidence

GROUPS: tuple[str, ...] = ("empathy", "persuasion", "safety", "accuracy", "informed_consent")
OBJECTIVE_SIGNALS: tuple[str, ...] = (
    "persuasion.outcome_matches_guideline",
    "persuasion.willingness_gain",
)
"""Signals from the dialogue's outcome, which always decide their criteria."""


class RubricError(GAAError, ValueError):
    """The rubric file is malformed."""


class Criterion(BaseModel):
    id: str
    group: str
    text: str
    met_when: str
    critical: bool = False
    rule: str | None = None
    rule_when: Literal["always", "violation"] = "always"
    """``violation``: the rules judge rules only on a violation its signal reports (not_met) and
    otherwise leaves the criterion unjudged, for the panel alone: a pattern that finds nothing
    is no proof that the criterion is met."""

    @field_validator("group")
    @classmethod
    def _known_group(cls, value: str) -> str:
        if value not in GROUPS:
            raise ValueError(f"group must be one of {', '.join(GROUPS)}")
        return value

    @property
    def signal(self) -> str | None:
        return self.rule.lstrip("!") if self.rule else None

    @property
    def negated(self) -> bool:
        return bool(self.rule and self.rule.startswith("!"))


class Rubric(BaseModel):
    version: int
    groups: dict[str, str]
    criteria: list[Criterion]

    def by_id(self, criterion_id: str) -> Criterion:
        return next(c for c in self.criteria if c.id == criterion_id)


def known_signals() -> set[str]:
    return set(DialogueEvidence(surgery_indicated=True).signals()) | set(OBJECTIVE_SIGNALS)


@cache
def load_rubric() -> Rubric:
    path = prompts_dir() / "judge" / "rubric.yaml"
    try:
        rubric = Rubric.model_validate(load_yaml(path.read_text(encoding="utf-8")))
    except (OSError, yaml.YAMLError, ValidationError) as exc:
        raise RubricError(f"Rubric {path} is invalid: {exc}") from None
    signals = known_signals()
    ids = [c.id for c in rubric.criteria]
    if len(set(ids)) != len(ids):
        raise RubricError(f"Rubric {path}: criterion ids must be unique")
    for criterion in rubric.criteria:
        if criterion.signal is not None and criterion.signal not in signals:
            raise RubricError(
                f"Rubric {path}: criterion {criterion.id} uses unknown signal {criterion.signal!r}"
            )
        if criterion.rule_when == "violation" and criterion.rule is None:
            raise RubricError(f"Rubric {path}: criterion {criterion.id} has rule_when but no rule")
    return rubric
