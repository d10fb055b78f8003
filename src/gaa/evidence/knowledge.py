"""Checking claims against a case's knowledge base.

A sentence that repeats a fact's statement word for word is supported by it. Otherwise a
claim is matched to the fact with the same kind of unit whose keywords the sentence uses most
(multi-word keywords weigh more; between equally likely facts, one the figure agrees with).
The claim is *supported* when its figure overlaps the fact's value or range (with a tolerance
of 15% of the fact's upper bound, or of 1 unit when that bound is smaller), *contradicted*
when it does not, and *unverifiable* when no fact is about it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from gaa.evidence.claims import Claim
from gaa.models import KnowledgeFact, MedicalCase

Verdict = Literal["supported", "contradicted", "unverifiable"]
TOLERANCE = 0.15

_UNIT_FAMILY = {
    "percent": "percent", "percent_per_year": "percent", "ratio": "percent",
    "days": "days", "weeks": "weeks", "months": "months", "years": "years", "hours": "hours",
    "cm": "cm", "mm": "mm", "mm_per_year": "mm",
}  # fmt: skip


@dataclass(frozen=True)
class ClaimVerdict:
    claim: Claim
    verdict: Verdict
    fact: KnowledgeFact | None


def _normal(text: str) -> str:
    return " ".join(text.lower().split())


def _relevance(fact: KnowledgeFact, sentence: str) -> int:
    """Keyword evidence that the sentence is about ``fact``; longer keywords count for more."""
    return sum(len(k.split()) for k in fact.keywords if k.lower() in sentence)


def _contains(fact: KnowledgeFact, claim: Claim) -> bool:
    low, high = fact.bounds or (0.0, 0.0)
    return claim.high >= low and claim.low <= high


def restated_fact(claim: Claim, case: MedicalCase) -> KnowledgeFact | None:
    """The fact whose statement the claim's sentence repeats word for word, if any."""
    sentence = _normal(claim.sentence)
    for fact in case.facts:
        statement = _normal(fact.statement)
        if statement in sentence or (len(sentence) > 20 and sentence in statement):
            return fact
    return None


def match_fact(claim: Claim, case: MedicalCase) -> KnowledgeFact | None:
    sentence = _normal(claim.sentence)
    candidates = [
        fact
        for fact in case.facts
        if fact.bounds is not None and _UNIT_FAMILY.get(fact.unit or "") == claim.unit
    ]
    scored = [(_relevance(fact, sentence), fact) for fact in candidates]
    best = max((score for score, _ in scored), default=0)
    if best == 0:
        return None
    tied = [fact for score, fact in scored if score == best]
    # an ambiguous claim is checked against the reading that supports it, if there is one
    return next((fact for fact in tied if _contains(fact, claim)), tied[0])


def check_claim(claim: Claim, case: MedicalCase) -> ClaimVerdict:
    restated = restated_fact(claim, case)
    if restated is not None:
        return ClaimVerdict(claim, "supported", restated)
    fact = match_fact(claim, case)
    if fact is None or fact.bounds is None:
        return ClaimVerdict(claim, "unverifiable", None)
    low, high = fact.bounds
    slack = TOLERANCE * max(abs(high), 1.0)
    supported = claim.high >= low - slack and claim.low <= high + slack
    return ClaimVerdict(claim, "supported" if supported else "contradicted", fact)
