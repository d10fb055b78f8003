"""What a team deliberates over: a batch of questions, each with labelled options.

The engine is generic: a medical multiple-choice question is a batch of one; the dialogue judge's
rubric is a batch of many criteria (options ``met``/``not_met``/``not_relevant``) that share one
preamble (the transcript). Every call of a deliberation covers the whole batch.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")


class Question(BaseModel):
    """One question: an id unique in its batch, the text, and options keyed by label."""

    model_config = ConfigDict(frozen=True)

    id: str
    text: str = Field(min_length=1)
    options: dict[str, str]

    @field_validator("id")
    @classmethod
    def _valid_id(cls, value: str) -> str:
        if not _ID.match(value):
            raise ValueError(f"question id {value!r} must be letters, digits, '_', '-' or '.'")
        return value

    @field_validator("options")
    @classmethod
    def _two_or_more(cls, value: dict[str, str]) -> dict[str, str]:
        if len(value) < 2:
            raise ValueError("a question needs at least two options")
        return value

    @property
    def labels(self) -> list[str]:
        return list(self.options)


class QuestionBatch(BaseModel):
    """Questions answered together, with the task and any shared material (``preamble``)."""

    model_config = ConfigDict(frozen=True)

    task: str = "Answer each multiple-choice question."
    preamble: str = ""
    questions: list[Question] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_ids(self) -> QuestionBatch:
        ids = [q.id for q in self.questions]
        if len(set(ids)) != len(ids):
            raise ValueError(f"question ids must be unique in a batch: {ids}")
        return self

    def get(self, question_id: str) -> Question:
        return next(q for q in self.questions if q.id == question_id)

    @property
    def ids(self) -> list[str]:
        return [q.id for q in self.questions]
