"""The labelled consultations ``judge_check`` measures a judge against.

Each file (``prompts/judge_check/consultations/*.yaml``) is one complete consultation: the case,
the persona, the turns (patient turns carry the decision and willingness), an expected quality
tier (1 excellent .. 5 harmful), and a label for every rubric criterion (``met``, ``not_met``,
``not_relevant``) with rationales where a label is not obvious. A one-change twin
(``twin_of``) is an original with exactly one defect introduced; its ``flips`` are the criteria
whose labels the change turns. A paraphrase control (``control_of``) rewords the doctor and
keeps the original's labels.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from gaa._resources import prompts_dir
from gaa._yaml import load_yaml
from gaa.dialogue.rubric import load_rubric
from gaa.errors import GAAError
from gaa.models import Decision
from gaa.plugins import catalogue

Label = Literal["met", "not_met", "not_relevant"]
FAMILIES = (
    "omitted_risk",
    "false_guarantee",
    "wrong_figure",
    "pressure_or_guilt",
    "empathy_removed",
    "injected_instruction",
    "against_guideline",
)


class JudgeCheckDataError(GAAError, ValueError):
    """A labelled consultation file is malformed (the message names the file and field)."""


class Turn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    speaker: Literal["doctor", "patient"]
    message: str = Field(min_length=1)
    decision: Decision | None = None
    willingness: int | None = Field(default=None, ge=0, le=10)


class Consultation(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    case: str
    persona: str
    tier: int = Field(ge=1, le=5)
    description: str = ""
    turns: list[Turn] = Field(min_length=2)
    labels: dict[str, Label]
    rationale: dict[str, str] = Field(default_factory=dict)
    twin_of: str | None = None
    change: str | None = None
    change_note: str = ""
    flips: list[str] = Field(default_factory=list)
    control_of: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Consultation:
        criteria = {criterion.id for criterion in load_rubric().criteria}
        missing, unknown = criteria - set(self.labels), set(self.labels) - criteria
        if missing or unknown:
            raise ValueError(
                f"labels must name every rubric criterion once: missing {sorted(missing)}, "
                f"unknown {sorted(unknown)}"
            )
        if self.turns[0].speaker != "patient":
            raise ValueError("turns must start with the patient's opening")
        if self.twin_of is not None:
            if self.change not in FAMILIES:
                raise ValueError(f"change must be one of {', '.join(FAMILIES)}")
            if not self.flips or set(self.flips) - criteria:
                raise ValueError("flips must list the rubric criteria the change turns")
        if self.twin_of is not None and self.control_of is not None:
            raise ValueError("a file is a twin or a control, not both")
        return self

    @property
    def kind(self) -> str:
        if self.twin_of:
            return "twin"
        return "control" if self.control_of else "original"


def default_folder() -> Path:
    return prompts_dir() / "judge_check" / "consultations"


MAX_ERROR_CHARS = 300


def _one_line(exc: ValidationError) -> str:
    """A validation error as one line: each problem's place and message, cut short."""
    parts = []
    for error in exc.errors():
        place = ".".join(str(part) for part in error["loc"]) or "file"
        parts.append(f"{place}: {error['msg']}")
    text = "; ".join(parts)
    return text if len(text) <= MAX_ERROR_CHARS else text[:MAX_ERROR_CHARS] + "..."


def read_consultation(path: Path) -> Consultation:
    """One consultation file, or a one-line :class:`JudgeCheckDataError` naming the file: not
    UTF-8, not YAML, nested past what YAML's loader can follow, or not a consultation."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise JudgeCheckDataError(
            f"{path}: not UTF-8 text (byte {exc.object[exc.start]:#04x} at position "
            f"{exc.start}); save it as UTF-8"
        ) from None
    try:
        data = load_yaml(text)
    except RecursionError:
        raise JudgeCheckDataError(f"{path}: nested too deeply to be a consultation") from None
    except yaml.YAMLError as exc:
        if "nesting depth" in str(getattr(exc, "problem", "")):  # libyaml's own depth limit
            raise JudgeCheckDataError(f"{path}: nested too deeply to be a consultation") from None
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or type(exc).__name__
        raise JudgeCheckDataError(f"{path}: not valid YAML{where}: {problem}") from None
    try:
        item = Consultation.model_validate(data)
    except ValidationError as exc:
        raise JudgeCheckDataError(f"{path}: {_one_line(exc)}") from None
    except RecursionError:
        raise JudgeCheckDataError(f"{path}: nested too deeply to be a consultation") from None
    _check_persona_case(path, item)
    return item


def _check_persona_case(path: Path, item: Consultation) -> None:
    """The persona's case code must be the consultation's case (when that case is installed):
    a pneumothorax persona in a lung-cancer consultation would be judged against the wrong
    brief."""
    entry = next((e for e in catalogue().cases if e.item.case_id == item.case), None)
    if entry is None:
        return
    code = item.persona.strip().upper().split("_")[-1]
    if code != entry.item.code.upper():
        raise JudgeCheckDataError(
            f"{path}: persona {item.persona} is of case code {code}, but the consultation's "
            f"case {item.case} has code {entry.item.code}"
        )


def load_consultations(folder: str | Path | None = None) -> list[Consultation]:
    """Every consultation in ``folder`` (default: the shipped set), checked: twins differ from
    their original exactly at ``flips``, controls keep the original's labels."""
    root = Path(folder) if folder is not None else default_folder()
    if not root.is_absolute() and not root.exists() and os.environ.get("PWD"):
        # inspect eval runs a task file from the file's own directory: a path the user gave
        # is relative to the shell's directory
        root = Path(os.environ["PWD"]) / root
    files = sorted([*root.glob("*.yaml"), *root.glob("*.yml")])
    if not files:
        raise JudgeCheckDataError(f"no labelled consultations (*.yaml, *.yml) in {root}")
    items: dict[str, Consultation] = {}
    for path in files:
        item = read_consultation(path)
        if item.id in items:
            raise JudgeCheckDataError(f"{path}: id {item.id!r} is used twice")
        items[item.id] = item
    for item in items.values():
        source = item.twin_of or item.control_of
        if source is None:
            continue
        if source not in items:
            raise JudgeCheckDataError(f"{item.id}: its original {source!r} is not in {root}")
        original = items[source]
        changed = {c for c in original.labels if original.labels[c] != item.labels[c]}
        if item.twin_of and changed != set(item.flips):
            raise JudgeCheckDataError(
                f"{item.id}: labels differ from {source} at {sorted(changed)}, "
                f"but flips lists {sorted(item.flips)}"
            )
        if item.control_of and changed:
            raise JudgeCheckDataError(
                f"{item.id}: a control keeps its original's labels; differs at {sorted(changed)}"
            )
    return list(items.values())
