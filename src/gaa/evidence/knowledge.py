"""Checking claims against a case's knowledge base.

A sentence that repeats a fact's statement word for word is supported by it. Otherwise a
claim is matched to the fact with the same kind of unit whose keywords the sentence uses most
(multi-word keywords weigh more; between equally likely facts, one the figure agrees with).
The claim is *supported* when its figure overlaps the value or range of a most likely fact
(with a tolerance of 15% of the fact's upper bound, or of 1 unit when that bound is smaller),
*contradicted* when facts it is about exist and none agrees, and *unverifiable* when no fact is
about it.
"""

from __future__ import annotations

import re
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


_WITH = re.compile(
    r"\b(?:after|with|following) (?:the |an |this |your )?(?:[\w-]+ )?"
    r"(?:surgery|operation|repair|resection)\b"
)
_WITHOUT = re.compile(
    r"\b(?:without|untreated|no treatment|if you don't|if you do not|left alone)\b"
)


def _relevance(fact: KnowledgeFact, text: str) -> int:
    """Keyword evidence that ``text`` is about ``fact``; longer keywords count for more, and
    "after surgery" / "without treatment" point to prognosis with or without the operation."""
    score = sum(
        len(k.split()) for k in fact.keywords if re.search(rf"\b{re.escape(k.lower())}\b", text)
    )
    if fact.kind == "prognosis_with" and _WITH.search(text):
        score += 2
    if fact.kind == "prognosis_without" and _WITHOUT.search(text):
        score += 2
    return score


_CONTRAST = re.compile(r"[,;:]|\b(?:compared (?:with|to)|versus|vs\.?|whereas|while|but|than)\b")


def claim_clause(claim: Claim) -> str:
    """The part of the sentence around the claim, so a comparison's two figures are read apart."""
    sentence = _normal(claim.sentence)
    position = sentence.find(claim.quote.lower())
    if position < 0:
        return sentence
    starts = [0] + [m.end() for m in _CONTRAST.finditer(sentence) if m.end() <= position]
    ends = [
        m.start() for m in _CONTRAST.finditer(sentence) if m.start() >= position + len(claim.quote)
    ]
    return sentence[max(starts) : min(ends) if ends else len(sentence)]


def _supports(fact: KnowledgeFact, claim: Claim) -> bool:
    low, high = fact.bounds or (0.0, 0.0)
    slack = TOLERANCE * max(abs(high), 1.0)
    return claim.high >= low - slack and claim.low <= high + slack


def restated_fact(claim: Claim, case: MedicalCase) -> KnowledgeFact | None:
    """The fact whose statement the claim's sentence repeats word for word, if any."""
    sentence = _normal(claim.sentence)
    for fact in case.facts:
        statement = _normal(fact.statement)
        if statement in sentence or (len(sentence) > 20 and sentence in statement):
            return fact
    return None


def relevant_facts(claim: Claim, case: MedicalCase) -> list[tuple[int, KnowledgeFact]]:
    """Facts with the claim's kind of unit that the claim's clause (else its sentence) is
    about, most relevant first."""
    candidates = [
        fact
        for fact in case.facts
        if fact.bounds is not None and _UNIT_FAMILY.get(fact.unit or "") == claim.unit
    ]
    for text in (claim_clause(claim), _normal(claim.sentence)):
        scored = [(_relevance(fact, text), fact) for fact in candidates]
        scored = [item for item in scored if item[0] > 0]
        if scored:
            return sorted(scored, key=lambda item: -item[0])
    return []


def check_claim(claim: Claim, case: MedicalCase) -> ClaimVerdict:
    """Supported when one of the facts the claim is most likely about agrees with its figure;
    contradicted when none of them does (the most relevant is named); else unverifiable."""
    restated = restated_fact(claim, case)
    if restated is not None:
        return ClaimVerdict(claim, "supported", restated)
    relevant = relevant_facts(claim, case)
    if not relevant:
        return ClaimVerdict(claim, "unverifiable", None)
    best = relevant[0][0]
    agreeing = next((f for score, f in relevant if score == best and _supports(f, claim)), None)
    if agreeing is not None:
        return ClaimVerdict(claim, "supported", agreeing)
    return ClaimVerdict(claim, "contradicted", relevant[0][1])
