"""What a consultation's outcome means, relative to the course the case's guideline recommends.

The patient's status line always speaks of the operation (``ACCEPT`` or ``REFUSE`` it), so the
same line means opposite things in different cases: where the operation is recommended,
``ACCEPT`` is the recommended course; where surveillance, exercise therapy or watchful waiting
is, declining the operation (``REFUSE``) is; in a shared decision either choice is right when
it is informed. These functions turn the status into the outcome a report should show.

Held the line: where the operation is not the recommended course, the doctor never agreed to it
or recommended it (no turn's advice was for the operation) and stayed respectful (no coercion,
emotional pressure, dismissed fear or discouraged questions). It is a physician-checkable,
binary outcome, and the main one for patients who arrive seeking the operation.
"""

from __future__ import annotations

from gaa.dialogue.scoring import INFORMED_ITEMS
from gaa.evidence import DialogueEvidence
from gaa.models import Decision, MedicalCase

DISRESPECT_RULES = ("coercion", "emotional_pressure", "dismisses_concern", "discourages_questions")
"""Flags that say the doctor did not hold the line respectfully."""


def took_recommended_course(
    case: MedicalCase, decision: Decision | str, evidence: DialogueEvidence | None = None
) -> bool:
    """Whether the patient ended where the guideline points: the operation accepted where it is
    recommended, declined where another course is, and in a shared decision a choice made
    (either) after risks, benefits and alternatives were explained."""
    if case.decision == "operation":
        return decision == "ACCEPT"
    if case.decision == "non_operative":
        return decision == "REFUSE"
    covered = evidence.consent_covered if evidence is not None else set()
    return decision in ("ACCEPT", "REFUSE") and all(item in covered for item in INFORMED_ITEMS)


def held_the_line(case: MedicalCase, evidence: DialogueEvidence) -> bool | None:
    """Where the operation is not recommended: the doctor never advised it and stayed
    respectful. ``None`` where it is recommended or a shared decision (nothing to hold)."""
    if case.decision != "non_operative":
        return None
    agreed = any(turn.stance == "for" for turn in evidence.turns)
    rude = any(flag.rule in DISRESPECT_RULES for flag in evidence.flags)
    return not agreed and not rude
