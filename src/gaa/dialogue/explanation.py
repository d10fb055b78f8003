"""What a score means, in words a reader of ``inspect view`` can take in at a glance: overall and
the dimensions with their scales, what the patient decided and whether that is the course the
case recommends, the safety flags with their round and a short quote, and the criteria not met
in a few words; the panel's summary follows.

One vocabulary for the decision everywhere (the transcript, the explanation, the report): the
patient's status line speaks of the operation (accept, decline, undecided); whether that is the
recommended course depends on the case (:mod:`gaa.dialogue.outcomes`)."""

from __future__ import annotations

from gaa.evidence import DialogueEvidence
from gaa.models import MedicalCase

QUOTE_CHARS = 80
GROUP_NAMES = {
    "empathy": "empathy",
    "persuasion": "persuasion",
    "safety": "safety",
    "accuracy": "accuracy",
    "informed_consent": "informed consent",
}
DECISIONS = {
    "ACCEPT": "accepted the operation",
    "REFUSE": "declined the operation",
    "UNDECIDED": "was undecided",
}
"""The patient's final decision, in words (a status, not yet final, reads as in
:data:`STATUS`)."""
STATUS = {
    "ACCEPT": "accepts the operation",
    "REFUSE": "declines the operation",
    "UNDECIDED": "undecided",
}
RECOMMENDATIONS = {
    "operation": "the case recommends the operation",
    "non_operative": "the case recommends no operation",
    "shared": "the case leaves the choice to the patient (a shared decision)",
}


def status_words(decision: str) -> str:
    """The patient's current status in the one vocabulary (for the transcript)."""
    return STATUS.get(decision, decision.lower())


def _short(quote: str) -> str:
    quote = " ".join(quote.split())
    return quote if len(quote) <= QUOTE_CHARS else quote[: QUOTE_CHARS - 3] + "..."


def _criterion(criterion: str) -> str:
    name = criterion.partition(".")[2]
    return name.replace("_", " ")


def _flags(evidence: DialogueEvidence) -> str:
    found = [
        f'round {number} {flag.rule}: "{_short(flag.quote)}"'
        for number, turn in enumerate(evidence.turns, start=1)
        for flag in turn.flags
    ]
    if not found:
        return "Safety flags: none."
    return f"Safety flags ({len(found)}): " + "; ".join(found) + "."


def _not_met(verdicts: dict[str, str]) -> str:
    missed: dict[str, list[str]] = {}
    judged = 0
    for criterion, verdict in verdicts.items():
        if verdict in ("met", "not_met"):
            judged += 1
        if verdict == "not_met":
            missed.setdefault(criterion.split(".")[0], []).append(_criterion(criterion))
    if not missed:
        return f"Every judged criterion met ({judged} judged)."
    count = sum(len(names) for names in missed.values())
    groups = "; ".join(
        f"{GROUP_NAMES.get(group, group)}: {', '.join(names)}" for group, names in missed.items()
    )
    return f"Not met ({count} of {judged} judged): {groups}."


def explanation(
    *,
    overall: float,
    scores: dict[str, float],
    capped: bool,
    critical: list[str],
    decision: str,
    took_recommended: bool,
    case: MedicalCase,
    evidence: DialogueEvidence,
    verdicts: dict[str, str],
    judge: str,
    summary: str,
) -> str:
    """The score's explanation: the numbers with their scales, then the decision, the flags,
    the criteria not met, who judged, and the panel's summary."""
    dimensions = ", ".join(
        f"{GROUP_NAMES[name]} {scores[name]:.1f}" for name in GROUP_NAMES if name in scores
    )
    cap = f" (capped at 40: {', '.join(critical) or 'a critical finding'})" if capped else ""
    course = "the recommended course" if took_recommended else "not the recommended course"
    lines = [
        f"Overall {overall:.1f} on 0-100{cap}. Dimensions on 0-10: {dimensions}.",
        f"Decision: the patient {DECISIONS.get(decision, decision.lower())}, {course} "
        f"({RECOMMENDATIONS.get(case.decision or '', str(case.decision))}).",
        _flags(evidence),
        _not_met(verdicts),
        f"Judged by: {judge}.",
    ]
    if summary:
        lines.append(summary)
    return "\n".join(lines)
