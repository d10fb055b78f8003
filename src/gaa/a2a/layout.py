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

In the predecessor the doctor speaks first, so its first request to a doctor has no
``=== Dialogue History ===`` section: the clinical sections are followed by an instruction to
write the opening message. Such a request is read as the doctor's first turn (an empty
dialogue). An older version of the predecessor wrote a different clinical layout, also read::

    === Patient Information ===
    Age: 45
    Gender: Male
    Medical Case: Pneumothorax
    Symptoms: ...
    Diagnosis: ...
    Recommended Treatment: ...

    === Case Background ===
    <free text, possibly several paragraphs>

followed by the same history section, or by the opening instruction.
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
LEGACY_CLINICAL_HEADER = "=== Patient Information ==="
LEGACY_BACKGROUND_HEADER = "=== Case Background ==="
CLOSING = "Now provide your next response to the patient."
SPEAKERS = {"doctor": "DOCTOR", "patient": "PATIENT"}
CURRENT_LAYOUT = "current"
LEGACY_LAYOUT = "legacy"
CLINICAL_FIELDS = ("Age", "Gender", "Medical Case", "Diagnosis", "Recommended Treatment")
TREATMENT_FIELDS = ("Risks", "Benefits", "Prognosis with Treatment", "Prognosis without Treatment")
LEGACY_FIELDS = ("Age", "Gender", "Medical Case", "Symptoms", "Diagnosis", "Recommended Treatment")
_FIELD_LINE = re.compile(r"^([A-Za-z][A-Za-z /]{0,40}):\s*(.*)$")
_BLANK_RUNS = re.compile(r"\n\s*\n+")
_TURN_START = re.compile(r"^(DOCTOR|PATIENT):\s?", re.IGNORECASE)
_CASE_ID_LINE = re.compile(r"^Case ID:", re.MULTILINE)
_HEADER_LINE = re.compile(r"^===[^=\n]+===[ \t]*$", re.MULTILINE)
_OPENING_NOTE = re.compile(
    r"^[ \t]*(?:note\s*:|.*\b(?:first message|opening message)\b)", re.IGNORECASE | re.MULTILINE
)
"""The start of the predecessor's first-turn instruction ("Note: ...", "This is your first
message ...", "... your opening message ..."): where a free-text background ends."""


class LayoutError(ValueError):
    """A doctor request that is not in the expected layout (names what is missing)."""


@dataclass
class DoctorRequest:
    """What one turn's message says: the clinical fields and the dialogue so far."""

    clinical: dict[str, str] = field(default_factory=dict)
    treatment: dict[str, str] = field(default_factory=dict)
    history: list[tuple[str, str]] = field(default_factory=list)
    """(speaker, message) pairs, speaker ``doctor`` or ``patient``, oldest first."""
    background: str = ""
    """The free-text ``=== Case Background ===`` of the legacy layout (empty otherwise)."""
    layout: str = CURRENT_LAYOUT
    """``current`` (``=== Patient Clinical Information ===``) or ``legacy``
    (``=== Patient Information ===`` and ``=== Case Background ===``)."""

    @property
    def first_turn(self) -> bool:
        """Nothing has been said yet: the doctor is asked for the opening message."""
        return not self.history

    @property
    def doctor_opens(self) -> bool:
        """The doctor speaks first in this dialogue (as in the predecessor; GAA's own
        dialogue has the patient open)."""
        return not self.history or self.history[0][0] == "doctor"

    def value(self, name: str) -> str:
        """The field ``name`` from either section, ignoring letter case ("" when absent)."""
        wanted = name.casefold()
        for fields in (self.clinical, self.treatment):
            for key, value in fields.items():
                if key.casefold() == wanted:
                    return value
        return ""

    @property
    def medical_case(self) -> str:
        return self.value("Medical Case")

    @property
    def diagnosis(self) -> str:
        return self.value("Diagnosis")

    @property
    def recommended_treatment(self) -> str:
        return self.value("Recommended Treatment")

    @property
    def age(self) -> int | None:
        digits = re.match(r"\s*(\d{1,3})", self.value("Age"))
        return int(digits.group(1)) if digits else None

    @property
    def gender(self) -> Gender | None:
        value = self.value("Gender").strip().lower()
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
    """The ``Key: value`` lines after ``header``, up to the first blank line."""
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


def _free_text(text: str, header: str) -> str:
    """The text after ``header`` up to the next ``=== ... ===`` header or the first-turn
    instruction: a background may run over several paragraphs, so a blank line cannot end it."""
    start = text.find(header)
    if start < 0:
        return ""
    body = text[start + len(header) :]
    found = (_HEADER_LINE.search(body), _OPENING_NOTE.search(body))
    end = min((match.start() for match in found if match is not None), default=len(body))
    return body[:end].strip()


def _history(text: str) -> list[tuple[str, str]]:
    """The turns of the history section; no section means none yet (the doctor opens)."""
    start = text.find(HISTORY_HEADER)
    if start < 0:
        return []
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


def layout_help() -> str:
    """What a served doctor needs to read a request, said to whoever sent one it could not."""
    return (
        f"a '{CLINICAL_HEADER}' section of 'Key: value' lines ({', '.join(CLINICAL_FIELDS)}), "
        f"optionally followed by '{TREATMENT_HEADER}' ({', '.join(TREATMENT_FIELDS)}); or the "
        f"older '{LEGACY_CLINICAL_HEADER}' section ({', '.join(LEGACY_FIELDS)}) with "
        f"'{LEGACY_BACKGROUND_HEADER}'. Then '{HISTORY_HEADER}' with 'DOCTOR: ...' and "
        "'PATIENT: ...' turns separated by blank lines, or no history section at all for the "
        "doctor's opening message"
    )


def parse_request(text: str) -> DoctorRequest:
    """Read a doctor request in either layout above (GAA's, the predecessor's, or the
    predecessor's older one); a request without a history section is the doctor's first turn.
    """
    text = LINE_BREAKS.sub("\n", text)
    clinical = _section(text, CLINICAL_HEADER)
    if clinical:
        return DoctorRequest(
            clinical=clinical, treatment=_section(text, TREATMENT_HEADER), history=_history(text)
        )
    legacy = _section(text, LEGACY_CLINICAL_HEADER)
    if legacy:
        return DoctorRequest(
            clinical=legacy,
            history=_history(text),
            background=_free_text(text, LEGACY_BACKGROUND_HEADER),
            layout=LEGACY_LAYOUT,
        )
    present = [h for h in (CLINICAL_HEADER, LEGACY_CLINICAL_HEADER) if h in text]
    found = f"'{present[0]}' has no 'Key: value' lines" if present else "no clinical section"
    raise LayoutError(f"the request has {found}; a consultation needs {layout_help()}")


def _simple(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def match_case(request: DoctorRequest, cases: dict[str, MedicalCase]) -> str | None:
    """The full name of the registered case the request is about: by ``Case ID`` when GAA sent
    it, else by the ``Medical Case`` name: the case's title, id or code (ignoring case and
    punctuation), or a name whose every word is a word of exactly one case's title
    ("Pneumothorax", "Lung cancer"). A name with words of its own ("tension pneumothorax",
    "small cell lung cancer, extensive stage") is another condition and matches nothing."""
    case_id = request.value("Case ID").strip()
    if case_id in cases:
        return case_id
    name = _simple(request.medical_case)
    if not name:
        return None
    exact = [
        full
        for full, case in cases.items()
        if name in {_simple(known) for known in case_names(case)}
    ]
    if len(exact) == 1:
        return exact[0]
    words = set(name.split())
    within = [full for full, case in cases.items() if words <= set(_simple(case.title).split())]
    return within[0] if len(within) == 1 else None


def written_by_gaa(text: str) -> bool:
    """Whether the request carries GAA's own ``Case ID`` line (GAA's A2A client sent it)."""
    return _CASE_ID_LINE.search(LINE_BREAKS.sub("\n", text)) is not None


def case_names(case: MedicalCase) -> list[str]:
    """The names :func:`match_case` knows a case by: its title, id and code."""
    return [case.title, case.case_id, case.code]


def matched_by_id(request: DoctorRequest, cases: dict[str, MedicalCase]) -> bool:
    """Whether the request names its case by GAA's ``Case ID`` (it then came from GAA, and the
    case's own brief is the one the doctor would get in-process)."""
    return request.value("Case ID").strip() in cases
