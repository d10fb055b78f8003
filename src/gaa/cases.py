"""Medical cases as data: a YAML file (case facts, doctor brief) beside a text file (patient side).

``load_case`` turns such a pair into a validated :class:`~gaa.models.MedicalCase`; built-in and
plugin cases are loaded the same way. Errors name the file and the field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gaa._yaml import load_yaml
from gaa.errors import CaseDataError
from gaa.models import Gender, KnowledgeFact, MedicalCase, Recommendation


class CaseFile(BaseModel):
    """The schema of a case YAML file (``patient_prompt`` names the sibling text file)."""

    model_config = ConfigDict(extra="forbid")

    id: str
    code: str
    title: str
    operation: str
    surgery_indicated: bool
    recommendation: str
    age_range: tuple[int, int]
    patient_prompt: str
    clinical_brief: str
    facts: list[KnowledgeFact] = Field(default_factory=list)
    decision: Recommendation | None = None
    seeking_prompt: str | None = None
    """The sibling text file of the seeking patient's story."""
    genders: list[Gender] | None = None
    other_sites: list[Annotated[str, Field(min_length=1, pattern=r"\S")]] = Field(
        default_factory=list
    )
    """Places the operation could be done but this case's is not (see ``MedicalCase``)."""


def _field_path(loc: tuple[int | str, ...]) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or "(top level)"


def _describe(error: ValidationError, data: dict[str, Any] | None = None) -> str:
    lines = []
    for item in error.errors():
        where = _field_path(item["loc"])
        facts = (data or {}).get("facts")
        loc = item["loc"]
        if loc[:1] == ("facts",) and len(loc) > 1 and isinstance(loc[1], int) and facts:
            fact = facts[loc[1]] if loc[1] < len(facts) else None
            if isinstance(fact, dict) and "id" in fact:
                where += f" (fact {fact['id']!r})"
        lines.append(f"{where}: {item['msg']}")
    return "; ".join(lines)


def _sibling_text(path: Path, field: str, name: str) -> str:
    """The text file a case file's ``field`` names, next to it."""
    prompt_path = path.parent / name
    try:
        return prompt_path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CaseDataError(
            f"Case file {path}: field {field} names {prompt_path}, which does not exist"
        ) from None
    except (UnicodeDecodeError, IsADirectoryError, PermissionError) as exc:
        raise CaseDataError(
            f"Case file {path}: field {field} names {prompt_path}, which cannot be read "
            f"as UTF-8 text: {exc}"
        ) from None


def load_case(path: str | Path) -> MedicalCase:
    """Load and validate a case YAML file and the patient prompt it names."""
    path = Path(path)
    try:
        raw = load_yaml(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CaseDataError(f"Case file {path} does not exist") from None
    except (UnicodeDecodeError, IsADirectoryError, PermissionError) as exc:
        raise CaseDataError(f"Case file {path} cannot be read as UTF-8 text: {exc}") from None
    except yaml.YAMLError as exc:
        raise CaseDataError(f"Case file {path} is not valid YAML: {exc}") from None
    if not isinstance(raw, dict):
        raise CaseDataError(f"Case file {path}: expected a mapping of fields at the top level")
    try:
        spec = CaseFile.model_validate(raw)
    except ValidationError as exc:
        raise CaseDataError(f"Case file {path}: {_describe(exc, raw)}") from None

    case_prompt = _sibling_text(path, "patient_prompt", spec.patient_prompt)
    seeking_prompt = (
        _sibling_text(path, "seeking_prompt", spec.seeking_prompt) if spec.seeking_prompt else None
    )

    try:
        return MedicalCase(
            case_id=spec.id,
            code=spec.code,
            title=spec.title,
            operation=spec.operation,
            surgery_indicated=spec.surgery_indicated,
            recommendation=spec.recommendation,
            age_range=spec.age_range,
            case_prompt=case_prompt,
            clinical_brief=spec.clinical_brief,
            facts=spec.facts,
            decision=spec.decision,
            seeking_prompt=seeking_prompt,
            other_sites=tuple(spec.other_sites),
            **({"genders": tuple(spec.genders)} if spec.genders else {}),
        )
    except ValidationError as exc:
        renamed = {"case_id": "id", "case_prompt": "patient_prompt"}
        detail = "; ".join(
            (
                f"{renamed.get(str(e['loc'][0]), _field_path(e['loc']))}: {e['msg']}"
                if e["loc"]
                else str(e["msg"]).removeprefix("Value error, ")
            )
            for e in exc.errors()
        )
        raise CaseDataError(f"Case file {path}: {detail}") from None
