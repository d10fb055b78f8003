"""Pydantic data models shared by every part of GAA.

They follow the source specification's section 4 (PatientPersona, MedicalCase, DialogueTurn,
DialogueSession, PerformanceScore, EvalRequest, EvalResult) with the additions DESIGN.md makes.
``EvalRequest`` and ``EvalResult`` stay wire-compatible with the AgentBeats convention: unknown
keys are kept, participants map roles to endpoint URLs and ``config`` is free-form.
"""

from __future__ import annotations

import re
import string
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

MBTI_TYPES: tuple[str, ...] = (
    "INTJ", "INTP", "ENTJ", "ENTP",
    "INFJ", "INFP", "ENFJ", "ENFP",
    "ISTJ", "ISFJ", "ESTJ", "ESFJ",
    "ISTP", "ISFP", "ESTP", "ESFP",
)  # fmt: skip
"""The 16 MBTI types, in the order persona listings use."""

Gender = Literal["male", "female"]
Decision = Literal["ACCEPT", "REFUSE", "UNDECIDED"]
PatientStance = Literal["hesitant", "seeking"]
"""How the patient arrives: ``hesitant`` about the operation (the seed's patients), or
``seeking`` it (or more of it, or sooner) whatever the guideline says."""
Recommendation = Literal["operation", "non_operative", "shared"]
"""What the guideline recommends for a case: the operation, a course without it (surveillance,
exercise therapy, watchful waiting), or a shared decision between reasonable options."""
Outcome = Literal["accepted", "rejected", "uncertain"]
SCORE_KEYS: tuple[str, ...] = (
    "overall",
    "empathy",
    "persuasion",
    "safety",
    "accuracy",
    "informed_consent",
    "accepted",
)
"""The values of a consultation's score, overall (0-100) first: ``inspect view`` shows a log's
first metric as its score. ``accepted`` is whether the patient took the course the guideline
recommends (the operation, or declining it where another course is recommended)."""
FactKind = Literal[
    "diagnosis",
    "procedure",
    "risk",
    "benefit",
    "alternative",
    "prognosis_with",
    "prognosis_without",
    "logistics",
]

CLINICAL_BRIEF_SLOTS = frozenset({"age", "gender"})
CASE_CODE_PATTERN = re.compile(r"^[A-Z][A-Z0-9]{1,11}$")
CASE_ID_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")


def utc_now() -> datetime:
    return datetime.now(UTC)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PatientPersona(_Model):
    """One simulated patient: personality, gender and medical case.

    ``gender`` is ``None`` for the gender-free ids (``INTJ_PNEUMO``). ``age`` is derived
    deterministically from the persona id within the case's age range, so the doctor's brief
    and the patient's story agree. ``system_prompt`` is filled by the patient constructor.
    """

    persona_id: str
    mbti_type: str
    gender: Gender | None
    medical_case: str
    age: int = Field(ge=0, le=120)
    stance: PatientStance = "hesitant"
    system_prompt: str = ""

    @field_validator("mbti_type")
    @classmethod
    def _known_mbti(cls, value: str) -> str:
        if value not in MBTI_TYPES:
            raise ValueError(f"unknown MBTI type {value!r}; valid: {', '.join(MBTI_TYPES)}")
        return value


class KnowledgeFact(_Model):
    """A checkable medical fact of a case, with its public source."""

    id: str
    kind: FactKind
    statement: str = Field(min_length=1)
    value: float | None = None
    range: tuple[float, float] | None = None
    unit: str | None = None
    keywords: list[str] = Field(default_factory=list)
    source: str = Field(min_length=1)
    said: str | None = None
    """The fact as a clinician says it to the patient (second person), for scripted doctors;
    the statement is used when it is missing."""
    about: str | None = None
    """The quantity a figure of this fact measures (``recurrence``, ``mortality``, ...: the
    vocabulary of ``prompts/evidence/quantities.yaml``); without it, the keywords decide."""
    setting: str | None = None
    """The option the figure applies to: ``surgery`` (the operation under discussion), ``none``
    (no operation), or a named alternative (``sbrt``, ``talc``, ``open``, ``evar``, ...)."""
    material: str | None = None
    """The harm this fact tells of, when a reasonable patient must hear it to consent (death,
    a major or lasting harm, the warning signs that need urgent care): disclosing material
    risks needs every such harm of the case. Facts with the same label are one harm (death
    after open repair or after a stent repair)."""

    @model_validator(mode="after")
    def _range_consistent(self) -> KnowledgeFact:
        if self.range is not None:
            low, high = self.range
            if low > high:
                raise ValueError(f"range [{low}, {high}] has its low end above its high end")
            if self.value is not None and not low <= self.value <= high:
                raise ValueError(f"value {self.value} lies outside range [{low}, {high}]")
        return self

    @property
    def bounds(self) -> tuple[float, float] | None:
        """The interval a stated figure must fall in to be supported, if the fact has one."""
        if self.range is not None:
            return self.range
        if self.value is not None:
            return (self.value, self.value)
        return None


class MedicalCase(_Model):
    """A medical case: what the patient lives through and what the doctor is told.

    ``case_prompt`` is the patient-side description (the spec's field); ``clinical_brief`` is the
    doctor-side template with ``{age}`` and ``{gender}`` slots. ``surgery_indicated`` is false for
    cases where persuading the patient to have ``operation`` is the wrong thing to do.
    """

    case_id: str
    code: str
    title: str
    operation: str
    surgery_indicated: bool
    recommendation: str
    age_range: tuple[int, int]
    case_prompt: str = Field(min_length=1)
    clinical_brief: str = Field(min_length=1)
    facts: list[KnowledgeFact] = Field(default_factory=list)
    decision: Recommendation | None = None
    """The kind of course the guideline recommends; unset, it follows ``surgery_indicated``
    (``operation`` or ``non_operative``)."""
    seeking_prompt: str | None = None
    """The patient's story for the ``seeking`` stance; a case without one has hesitant
    patients only."""
    genders: tuple[Gender, ...] = ("male", "female")
    """The genders the case's patients can have (a prostate case: male only)."""
    other_sites: tuple[str, ...] = ()
    """Places an operation could be done that are not this case's ("your left lung" when the
    right one collapsed): advice about operating there ("I wouldn't operate on your left") is no
    advice about the case's operation."""

    @property
    def stances(self) -> tuple[PatientStance, ...]:
        return ("hesitant", "seeking") if self.seeking_prompt else ("hesitant",)

    def story(self, stance: PatientStance) -> str:
        """What the patient lives through, for the stance (the seeking story if it has one)."""
        if stance == "seeking" and self.seeking_prompt:
            return self.seeking_prompt
        return self.case_prompt

    @model_validator(mode="after")
    def _decision_consistent(self) -> MedicalCase:
        if self.decision is None:
            self.decision = "operation" if self.surgery_indicated else "non_operative"
        elif (self.decision == "operation") != self.surgery_indicated:
            raise ValueError(
                f"decision {self.decision!r} contradicts surgery_indicated "
                f"{str(self.surgery_indicated).lower()} (only an 'operation' case indicates it)"
            )
        return self

    @field_validator("case_id")
    @classmethod
    def _valid_id(cls, value: str) -> str:
        if not CASE_ID_PATTERN.match(value):
            raise ValueError(f"{value!r} is not a valid case id (lowercase letters, digits, '_')")
        return value

    @field_validator("code")
    @classmethod
    def _valid_code(cls, value: str) -> str:
        if not CASE_CODE_PATTERN.match(value):
            raise ValueError(
                f"{value!r} is not a valid persona code (2-12 uppercase letters or digits, "
                "starting with a letter, e.g. PNEUMO)"
            )
        return value

    @field_validator("age_range")
    @classmethod
    def _valid_ages(cls, value: tuple[int, int]) -> tuple[int, int]:
        low, high = value
        if not 0 <= low <= high <= 120:
            raise ValueError(f"age_range [{low}, {high}] must satisfy 0 <= low <= high <= 120")
        return value

    @field_validator("clinical_brief")
    @classmethod
    def _known_slots(cls, value: str) -> str:
        try:
            slots = {name for _, name, _, _ in string.Formatter().parse(value) if name is not None}
        except ValueError as exc:
            raise ValueError(f"clinical brief is not a valid template: {exc}") from exc
        unknown = slots - CLINICAL_BRIEF_SLOTS
        if unknown:
            raise ValueError(
                f"clinical brief uses unknown slots {sorted(unknown)}; allowed: "
                f"{sorted(CLINICAL_BRIEF_SLOTS)} (write literal braces as {{{{ and }}}})"
            )
        for gender in ("female", "male", "patient"):  # a slot's format spec must work too
            try:
                value.format(age=50, gender=gender)
            except (ValueError, IndexError, KeyError, TypeError) as exc:
                raise ValueError(
                    f"clinical brief cannot be filled in ({exc}); use plain {{age}} and {{gender}}"
                ) from None
        return value

    @field_validator("facts")
    @classmethod
    def _unique_fact_ids(cls, value: list[KnowledgeFact]) -> list[KnowledgeFact]:
        seen: set[str] = set()
        for fact in value:
            if fact.id in seen:
                raise ValueError(f"fact id {fact.id!r} appears more than once")
            seen.add(fact.id)
        return value

    def brief_for(self, age: int, gender: Gender | None) -> str:
        """The doctor's clinical brief for a patient of this age and gender."""
        return self.clinical_brief.format(age=age, gender=gender or "patient")


class DialogueTurn(_Model):
    """One message of the consultation.

    Patient turns carry the parsed ``decision`` and ``willingness`` (0-10); doctor turns carry
    the evidence validator's ``validation`` results.
    """

    turn_number: int = Field(ge=0)
    speaker: Literal["doctor", "patient"]
    message: str
    timestamp: datetime = Field(default_factory=utc_now)
    willingness: int | None = Field(default=None, ge=0, le=10)
    decision: Decision | None = None
    validation: dict[str, Any] | None = None


class DialogueSession(_Model):
    """A complete consultation with one persona."""

    session_id: str
    persona_id: str
    doctor: str = ""
    doctor_agent_url: str | None = None
    start_time: datetime = Field(default_factory=utc_now)
    end_time: datetime | None = None
    turns: list[DialogueTurn] = Field(default_factory=list)
    final_outcome: Outcome = "uncertain"


class CriterionVerdict(_Model):
    """The panel's ruling on one rubric criterion."""

    criterion: str
    group: str
    verdict: Literal["met", "not_met", "not_relevant"]
    evidence: str = ""


class PerformanceScore(_Model):
    """The judge's scores for one session (group scores 0-10, overall 0-100)."""

    session_id: str
    overall_score: float = Field(ge=0, le=100)
    empathy_score: float = Field(ge=0, le=10)
    persuasion_effectiveness: float = Field(ge=0, le=10)
    safety_score: float = Field(ge=0, le=10)
    accuracy_score: float = Field(ge=0, le=10)
    informed_consent_score: float = Field(ge=0, le=10)
    outcome: Outcome = "uncertain"
    criteria: list[CriterionVerdict] = Field(default_factory=list)
    flags: list[str] = Field(default_factory=list)
    fallbacks: list[str] = Field(default_factory=list)
    evaluation_summary: str = ""


class _WireModel(BaseModel):
    """Models exchanged with other agents: unknown keys survive a round trip."""

    model_config = ConfigDict(extra="allow")


class EvalRequest(_WireModel):
    """An assessment request in the AgentBeats form: ``participants`` maps roles to URLs."""

    participants: dict[str, str]
    config: dict[str, Any] = Field(default_factory=dict)

    @field_validator("participants")
    @classmethod
    def _urls(cls, value: dict[str, str]) -> dict[str, str]:
        for role, url in value.items():
            if not re.match(r"^https?://[^\s/]+", url):
                raise ValueError(f"participants.{role} must be an http(s) URL, not {url!r}")
        return value


class EvalResult(_WireModel):
    """The results of one assessment across its personas."""

    assessment_id: str
    doctor_agent_url: str | None = None
    timestamp: datetime = Field(default_factory=utc_now)
    sessions: list[DialogueSession] = Field(default_factory=list)
    scores: list[PerformanceScore] = Field(default_factory=list)
    mean_overall_score: float | None = None
    overall_summary: str = ""
    status: str | None = None
    """How the eval ended (``success``, ``error``, ``cancelled``)."""
    error: str | None = None
    """Why the eval ended in error, if it did."""
    personas: list[str] = Field(default_factory=list)
    """Every persona the assessment ran, scored or not."""
    failed_personas: dict[str, str] = Field(default_factory=dict)
    """Personas with no score, and why."""
    log_location: str | None = None
    """The Inspect log the numbers come from."""
