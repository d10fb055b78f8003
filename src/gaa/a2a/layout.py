"""The text a remote doctor receives each turn, and how a served doctor reads it back.

A2A doctors written for the predecessor benchmark (AgentBeats "purple" agents) expect one text
message per turn, laid out as::

    <one instruction line>

    === Patient Clinical Information ===
    Age: 45
    Gender: Male
    Medical Case: Primary spontaneous pneumothorax
    Diagnosis: ...
    Recommended Treatment: ...

    === Treatment Details ===
    Risks: ...
    Benefits: ...
    Prognosis with Treatment: ...
    Prognosis without Treatment: ...

    === Dialogue History ===
    PATIENT: ...

    DOCTOR: ...

    Now provide your next response to the patient.

Every field is one line (``Key: value``); turns are separated by a blank line. GAA adds two
lines their parsers ignore (``Alternatives`` and ``Case ID``), which let ``gaa serve doctor``
find the case again. :func:`render_request` writes the layout; :func:`parse_request` reads it,
also when it comes from another benchmark (the case is then matched by its name).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gaa._text import LINE_BREAKS
from gaa.models import Gender, KnowledgeFact, MedicalCase

INSTRUCTION = (
    "You are the doctor in a consultation with a patient who faces a decision about surgery; "
    "reply with your next message to the patient only."
)
CLINICAL_HEADER = "=== Patient Clinical Information ==="
TREATMENT_HEADER = "=== Treatment Details ==="
HISTORY_HEADER = "=== Dialogue History ==="
CLOSING = "Now provide your next response to the patient."
SPEAKERS = {"doctor": "DOCTOR", "patient": "PATIENT"}
_FIELD_LINE = re.compile(r"^([A-Za-z][A-Za-z /]{0,40}):\s*(.*)$")
_BLANK_RUNS = re.compile(r"\n\s*\n+")
_TURN_START = re.compile(r"^(DOCTOR|PATIENT):\s?", re.IGNORECASE)


class LayoutError(ValueError):
    """A doctor request that is not in the expected layout (names what is missing)."""


@dataclass
class DoctorRequest:
    """What one turn's message says: the clinical fields and the dialogue so far."""

    clinical: dict[str, str] = field(default_factory=dict)
    treatment: dict[str, str] = field(default_factory=dict)
    history: list[tuple[str, str]] = field(default_factory=list)
    """(speaker, message) pairs, speaker ``doctor`` or ``patient``, oldest first."""

    @property
    def age(self) -> int | None:
        digits = re.match(r"\s*(\d{1,3})", self.clinical.get("Age", ""))
        return int(digits.group(1)) if digits else None

    @property
    def gender(self) -> Gender | None:
        value = self.clinical.get("Gender", "").strip().lower()
        if value in ("male", "m", "man"):
            return "male"
        if value in ("female", "f", "woman"):
            return "female"
        return None


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _facts_text(facts: list[KnowledgeFact]) -> str:
    return _one_line(" ".join(fact.statement for fact in facts)) or "not stated"


def _turn_text(text: str) -> str:
    """A message kept on its lines but without blank lines (they separate turns); every
    line-break form becomes one newline first, so no break can fake a turn."""
    return _BLANK_RUNS.sub("\n", LINE_BREAKS.sub("\n", text).strip())


def render_request(
    case: MedicalCase,
    case_id: str,
    age: int,
    gender: Gender | None,
    history: list[tuple[str, str]],
) -> str:
    """The message for one doctor turn; ``history`` holds (speaker, message) pairs."""

    def facts(*kinds: str) -> str:
        return _facts_text([fact for fact in case.facts if fact.kind in kinds])

    lines = [
        INSTRUCTION,
        "",
        CLINICAL_HEADER,
        f"Age: {age}",
        f"Gender: {(gender or 'not stated').capitalize()}",
        f"Medical Case: {_one_line(case.title)}",
        f"Case ID: {case_id}",
        f"Diagnosis: {facts('diagnosis')}",
        f"Recommended Treatment: {_one_line(case.recommendation)}",
        "",
        TREATMENT_HEADER,
        f"Operation: {_one_line(case.operation)}",
        f"Risks: {facts('risk')}",
        f"Benefits: {facts('benefit', 'procedure')}",
        f"Prognosis with Treatment: {facts('prognosis_with')}",
        f"Prognosis without Treatment: {facts('prognosis_without')}",
        f"Alternatives: {facts('alternative')}",
        "",
        HISTORY_HEADER,
    ]
    turns = [f"{SPEAKERS[speaker]}: {_turn_text(message)}" for speaker, message in history]
    return "\n".join(lines) + "\n" + "\n\n".join(turns) + "\n\n" + CLOSING


def _section(text: str, header: str) -> dict[str, str]:
    start = text.find(header)
    if start < 0:
        return {}
    body = text[start + len(header) :].lstrip("\n")
    end = body.find("\n\n")
    fields: dict[str, str] = {}
    for line in (body if end < 0 else body[:end]).splitlines():
        match = _FIELD_LINE.match(line.strip())
        if match:
            fields[match.group(1).strip()] = match.group(2).strip()
    return fields


def _history(text: str) -> list[tuple[str, str]]:
    start = text.find(HISTORY_HEADER)
    if start < 0:
        raise LayoutError(f"the request has no '{HISTORY_HEADER}' section")
    body = text[start + len(HISTORY_HEADER) :].strip()
    if body.endswith(CLOSING):
        body = body[: -len(CLOSING)]
    turns: list[tuple[str, str]] = []
    for block in _BLANK_RUNS.split(body.strip()):
        match = _TURN_START.match(block.strip())
        if match:
            speaker = match.group(1).lower()
            turns.append((speaker, block.strip()[match.end() :].strip()))
        elif turns and block.strip():  # a blank line inside a message: keep it with its turn
            speaker, message = turns[-1]
            turns[-1] = (speaker, f"{message}\n{block.strip()}")
    return turns


def parse_request(text: str) -> DoctorRequest:
    """Read a doctor request in the layout above (GAA's or the predecessor's)."""
    text = LINE_BREAKS.sub("\n", text)
    clinical = _section(text, CLINICAL_HEADER)
    if not clinical:
        raise LayoutError(f"the request has no '{CLINICAL_HEADER}' section with 'Key: value' lines")
    return DoctorRequest(
        clinical=clinical, treatment=_section(text, TREATMENT_HEADER), history=_history(text)
    )


def _simple(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def match_case(request: DoctorRequest, cases: dict[str, MedicalCase]) -> str | None:
    """The full name of the registered case the request is about: by ``Case ID`` when GAA sent
    it, else by the ``Medical Case`` name: the case's title, id or code (ignoring case and
    punctuation), or a name whose every word is a word of exactly one case's title
    ("Pneumothorax", "Lung cancer"). A name with words of its own ("tension pneumothorax",
    "small cell lung cancer, extensive stage") is another condition and matches nothing."""
    case_id = request.clinical.get("Case ID", "").strip()
    if case_id in cases:
        return case_id
    name = _simple(request.clinical.get("Medical Case", ""))
    if not name:
        return None
    exact = [
        full
        for full, case in cases.items()
        if name in {_simple(case.title), _simple(case.case_id), _simple(case.code)}
    ]
    if len(exact) == 1:
        return exact[0]
    words = set(name.split())
    within = [full for full, case in cases.items() if words <= set(_simple(case.title).split())]
    return within[0] if len(within) == 1 else None


def matched_by_id(request: DoctorRequest, cases: dict[str, MedicalCase]) -> bool:
    """Whether the request names its case by GAA's ``Case ID`` (it then came from GAA, and the
    case's own brief is the one the doctor would get in-process)."""
    return request.clinical.get("Case ID", "").strip() in cases
