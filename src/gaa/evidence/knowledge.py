"""Checking claims against a case's knowledge base, the way a clinician reads a figure.

A sentence that repeats a fact's statement word for word is supported by it. Otherwise the
figure is read in its clause (the part of the sentence around it, so "40 to 70 in 100 without
an operation, 1 to 5 after it" gives two readings):

1. **Units**: only facts measured in the same kind of unit are candidates (times are compared
   in days, lengths in millimetres, growth in millimetres a year; percentages and yearly
   percentages together).
2. **Quantity**: the clause must name what the figure measures (recurrence, survival, death,
   rupture, growth, size, a named complication, ...: ``prompts/evidence/quantities.yaml``);
   only facts about one of those quantities stay. Facts without a declared quantity fall back
   to their keywords.
3. **Option**: when the clause says under which option the figure holds (after the operation,
   without it, with radiotherapy, after a stent repair, if it bursts), facts under another
   option drop out.

The claim is **supported** when a remaining fact agrees with its figure (within 15% of the
fact's bounds), **contradicted** only when every remaining fact measures the same quantity
and none agrees, under a known option or, where the option is not said, under every option the
case has a figure for ("the chance of a third is nine in ten" is false without the operation
and after it alike), and otherwise **unverifiable**: an ambiguity that some reading resolves
never contradicts. A figure inside a hypothetical about the condition ("if it grows by more than
1 cm in a year", "once it reaches 5.5 cm") states a trigger, not a fact, and is never
contradicted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from gaa.evidence.claims import Claim, sentence_claims
from gaa.evidence.quantities import allowed_settings, lexicon, quantities_in, settings_in
from gaa.models import KnowledgeFact, MedicalCase

Verdict = Literal["supported", "contradicted", "unverifiable"]
TOLERANCE = 0.15
ABSOLUTE_SLACK = 0.05

_DAYS = {"hours": 1 / 24, "days": 1.0, "weeks": 7.0, "months": 30.44, "years": 365.25}
_SCALE: dict[str, tuple[str, float]] = {
    "percent": ("percent", 1.0),
    "percent_per_year": ("percent", 1.0),
    "cm": ("length", 10.0),
    "mm": ("length", 1.0),
    "cm_per_year": ("rate", 10.0),
    "mm_per_year": ("rate", 1.0),
    **{unit: ("time", days) for unit, days in _DAYS.items()},
}
"""Unit -> (family, factor to the family's base unit)."""

_HYPOTHETICAL = re.compile(
    r"\b(?:if|once|when|unless|should|until)\s+(?:it|the (?:aneurysm|tumou?r|swelling|bulge|"
    r"artery|nodule|spot)|they|things)\b(?!(?:'s| is| has been| was) (?:out|removed|fixed|repaired|"
    r"done|gone|taken out))",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class ClaimVerdict:
    claim: Claim
    verdict: Verdict
    fact: KnowledgeFact | None


def _normal(text: str) -> str:
    return " ".join(text.lower().split())


def in_base_units(unit: str | None, low: float, high: float) -> tuple[str, float, float] | None:
    scale = _SCALE.get(unit or "")
    if scale is None:
        return None
    family, factor = scale
    return family, low * factor, high * factor


_CONTRAST = re.compile(
    r"[;]|,(?!\d{3})|\band\b(?!\s*(?:\d|a half|one|two|three|four|five|six|seven|eight|nine|ten|"
    r"twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred))|\s[-\u2013\u2014]\s|"
    r"\b(?:compared (?:with|to)|versus|vs\.?|whereas|while|"
    r"but|than|against|down to|to (?=about|around|roughly|approximately|just|only|under|below|"
    r"less|fewer|\d))\b"
)
_REDUCTION = (
    r"\b(?:cut|cuts|cutting|reduc\w*|lower\w*|bring\w* down|brings|drop\w*|fall\w*|go(?:es)? down|"
    r"decreas\w*|takes?|taking)\b[^.]*?\bfrom\s+"
)
_FROM_BEFORE = re.compile(_REDUCTION + r"(?:about\s+|around\s+|roughly\s+|approximately\s+)?$")
_TO_BEFORE = re.compile(
    _REDUCTION + r"[^.]*?\bto\s+(?:about\s+|around\s+|roughly\s+|approximately\s+|just\s+)?$"
)


def claim_clause(claim: Claim) -> str:
    """The part of the sentence around the claim, so a comparison's two figures are read apart."""
    sentence = _normal(claim.sentence)
    quote = _normal(claim.quote)
    position = sentence.find(quote)
    if position < 0:
        return sentence
    starts = [0] + [m.end() for m in _CONTRAST.finditer(sentence) if m.end() <= position]
    ends = [m.start() for m in _CONTRAST.finditer(sentence) if m.start() >= position + len(quote)]
    return sentence[max(starts) : min(ends) if ends else len(sentence)]


NEUTRAL_MARGIN = 1.5
"""Times and sizes vary between units and clinicians: a figure about them is contradicted only
when it lies beyond this factor of the fact's bounds (between, it is unverifiable)."""


def _far_off(fact: KnowledgeFact, claim: Claim) -> bool:
    """For a neutral quantity, whether the figure lies beyond :data:`NEUTRAL_MARGIN`."""
    if lexicon().polarity(fact.about) != "neutral":
        return True
    claimed = in_base_units(claim.unit, claim.low, claim.high)
    known = in_base_units(fact.unit, *(fact.bounds or (0.0, 0.0)))
    if claimed is None or known is None:
        return False
    return claimed[2] < known[1] / NEUTRAL_MARGIN or claimed[1] > known[2] * NEUTRAL_MARGIN


def _supports(fact: KnowledgeFact, claim: Claim) -> bool:
    fact_bounds = fact.bounds
    claimed = in_base_units(claim.unit, claim.low, claim.high)
    if fact_bounds is None or claimed is None:
        return False
    known = in_base_units(fact.unit, *fact_bounds)
    if known is None or known[0] != claimed[0]:
        return False
    _, low, high = known
    _, claim_low, claim_high = claimed
    return (
        claim_high >= low * (1 - TOLERANCE) - ABSOLUTE_SLACK
        and claim_low <= high * (1 + TOLERANCE) + ABSOLUTE_SLACK
    )


def restated_fact(claim: Claim, case: MedicalCase) -> KnowledgeFact | None:
    """The fact whose statement the claim's sentence repeats word for word, if any."""
    sentence = _normal(claim.sentence)
    for fact in case.facts:
        statement = _normal(fact.statement)
        if statement in sentence or (len(sentence) > 20 and sentence in statement):
            return fact
    return None


def _keyword_hits(fact: KnowledgeFact, text: str) -> int:
    return sum(
        len(k.split()) for k in fact.keywords if re.search(rf"\b{re.escape(k.lower())}\b", text)
    )


def _same_family(fact: KnowledgeFact, claim: Claim) -> bool:
    fact_scale = _SCALE.get(fact.unit or "")
    claim_scale = _SCALE.get(claim.unit)
    return (
        fact.bounds is not None
        and fact_scale is not None
        and claim_scale is not None
        and fact_scale[0] == claim_scale[0]
    )


def _comparable_units(claimed: str, known: str | None) -> bool:
    """Figures in far-apart units (hours against days, years against months) measure
    different things: such a pair can support but never contradict."""
    if claimed == known or known is None:
        return True
    a, b = _SCALE.get(claimed), _SCALE.get(known)
    if a is None or b is None or a[0] != "time":
        return True
    return max(a[1], b[1]) / min(a[1], b[1]) <= 7.0


@dataclass(frozen=True)
class Reading:
    """How a claim's words were read: the candidate facts and whether they are unambiguous."""

    candidates: list[KnowledgeFact]
    decisive: bool
    """One quantity under one option: contradicted when no candidate agrees."""
    every_option: bool = False
    """One quantity, its option unsaid: contradicted only if no option's figure agrees (not
    decisive, but it may contradict too)."""


_OTHER_POPULATION = re.compile(
    r"\b(?:in (?:the|both|all|those) (?:trials?|stud(?:y|ies)|groups?|series)|in both groups|"
    r"across (?:all|every)|all stages|in general|nationally|worldwide|in the population|"
    r"of all (?:people|patients|men|women))\b",
    re.IGNORECASE,
)
"""A figure said of another population than the patient's ("the death rate in the trials was
30 percent in both groups", "across all stages 20 percent are alive"): with its option unsaid it
is never contradicted."""


def read_claim(claim: Claim, case: MedicalCase) -> Reading:
    """The facts the claim's clause can be about (see the module docstring)."""
    clause = claim_clause(claim)
    sentence = _normal(claim.sentence)
    units = [fact for fact in case.facts if _same_family(fact, claim)]
    quantities = quantities_in(clause)
    named_in_clause = len(quantities) == 1
    sentence_quantities = quantities_in(sentence)
    if "threshold" in quantities:
        quantities.discard("size")
    family = _SCALE.get(claim.unit, ("", 1.0))[0]
    borrowed = not quantities and any(
        _SCALE.get(other.unit, ("", 1.0))[0] == family
        for other in sentence_claims(claim.sentence)
        if other.quote != claim.quote
    )
    if not quantities:
        quantities = sentence_quantities
    settings = settings_in(clause)
    if not settings and clause != sentence and len(sentence_claims(claim.sentence)) == 1:
        # "Without surgery, it comes back in 40-70 in 100": the nearest option named before
        # the figure, else one named after it
        cut = sentence.find(clause)
        settings = settings_in(sentence[:cut]) or settings_in(sentence[cut + len(clause) :])
    before = sentence[: max(0, sentence.find(_normal(claim.quote)))]
    if _FROM_BEFORE.search(before):  # "the operation cuts it from 40-70% (without) ..."
        settings = {"none"}
    elif _TO_BEFORE.search(before):  # "... to 1-5% (with it)"
        settings = {"surgery"}
    allowed = allowed_settings(settings)

    def quantity_matches(fact: KnowledgeFact) -> bool:
        if fact.about is not None and fact.about in lexicon().quantities:
            return fact.about in quantities
        return _keyword_hits(fact, clause) > 0

    def setting_matches(fact: KnowledgeFact) -> bool:
        named_only = lexicon().named_only
        if fact.setting in named_only or (allowed and allowed <= named_only):
            return allowed is not None and fact.setting in allowed
        return allowed is None or fact.setting is None or fact.setting in allowed

    candidates = [f for f in units if quantity_matches(f) and setting_matches(f)]
    if not candidates:
        return Reading([], False)
    annotated = all(f.about is not None for f in candidates)
    one_quantity = len({f.about for f in candidates}) == 1
    one_setting = allowed is not None or len({f.setting for f in candidates}) == 1
    if annotated:
        decisive = one_quantity
    else:
        decisive = len(candidates) == 1 and _keyword_hits(candidates[0], clause) >= 2
    cut = sentence.find(clause)
    if _HYPOTHETICAL.search(sentence[: cut + len(clause)] if cut >= 0 else clause) or borrowed:
        decisive = False
    if "threshold" in quantities | sentence_quantities and any(
        f.about != "threshold" for f in candidates
    ):
        decisive = False  # "repair once it grows more than 1 cm in a year" names a trigger
    if decisive and not all(_comparable_units(claim.unit, f.unit) for f in candidates):
        decisive = False  # "2 to 4 hours" is not a hospital stay in days
    if decisive and annotated and not one_setting:
        # the option unsaid: every option's figure must disagree, the figure's own clause must
        # name the one thing it measures (a quantity borrowed from elsewhere in the sentence,
        # or two in one clause, is too weak a reading to contradict across options), and that
        # thing must be a risk or a benefit: a size or a time belongs to whatever the clause
        # is about (a tumour, a cut, a stay), which no option settles
        polar = lexicon().polarity(candidates[0].about) != "neutral"
        elsewhere = _OTHER_POPULATION.search(sentence) is not None
        return Reading(candidates, False, every_option=named_in_clause and polar and not elsewhere)
    return Reading(candidates, decisive)


_COMPLEMENT = re.compile(
    r"\b(?:never|not|no|n't|without|free (?:of|from)|stay(?:s)? free|no more|no further|"
    r"clear of|avoid)\b(?:\s+\w+){0,5}\s*$",
    re.IGNORECASE,
)
_OUTCOME_WORDS = re.compile(
    r"\b(?:again|come back|comes back|recur\w*|another|further|return\w*|die|dying|death|burst\w*|"
    r"ruptur\w*|complications?)\b",
    re.IGNORECASE,
)


_SPARED_BEFORE = re.compile(
    r"\bfree(?:dom)? (?:of|from) (?:\w+ )?(?:recurrence|collapse|rupture|relapse)\b[^.;,]{0,15}$"
    r"|\b(?:won't|will not|never|doesn't|does not|don't|do not) (?:\w+ ){0,2}?(?:happen again|"
    r"come back|recur|return|collapse again)\b[^.;:,\u2014\u2013-]{0,15}$",
    re.IGNORECASE,
)
"""Words before a figure that make it a share spared ("freedom from recurrence 95 to 99%",
"'won't happen again' means about 95 to 99 in 100")."""


def complement(claim: Claim) -> Claim:
    """A share of people *spared* an outcome ("95 to 99 in 100 never have it again", "freedom
    from recurrence 95-99%") read as the share who have it (1 to 5 in 100)."""
    if claim.unit != "percent":
        return claim
    clause = claim_clause(claim)
    quote = _normal(claim.quote)
    after = clause[clause.find(quote) + len(quote) :] if quote in clause else ""
    before = _normal(claim.sentence)
    before = before[: before.find(quote)] if quote in before else ""
    outcome = _OUTCOME_WORDS.search(after)
    spared_after = outcome is not None and _COMPLEMENT.search(after[: outcome.start()])
    if not (spared_after or _SPARED_BEFORE.search(before)):
        return claim
    return Claim(claim.sentence, 100 - claim.high, 100 - claim.low, claim.unit, claim.quote)


def check_claim(claim: Claim, case: MedicalCase) -> ClaimVerdict:
    """Supported when a fact the claim can be about agrees with it; contradicted when its
    reading is unambiguous and no such fact agrees; else unverifiable."""
    restated = restated_fact(claim, case)
    if restated is not None:
        return ClaimVerdict(claim, "supported", restated)
    claim = complement(claim)
    reading = read_claim(claim, case)
    agreeing = next((fact for fact in reading.candidates if _supports(fact, claim)), None)
    if agreeing is not None:
        return ClaimVerdict(claim, "supported", agreeing)
    if (
        (reading.decisive or reading.every_option)
        and _other_reading(claim, case) is None
        and all(_far_off(fact, claim) for fact in reading.candidates)
    ):
        return ClaimVerdict(claim, "contradicted", _nearest(reading.candidates, claim))
    return ClaimVerdict(claim, "unverifiable", None)


def _other_reading(claim: Claim, case: MedicalCase) -> KnowledgeFact | None:
    """A threshold of the case that the figure agrees with, in a sentence about a threshold or
    growth: "repair for growth of more than 1 cm in a year" names the trigger, not a rate. A
    figure that some reading supports is ambiguous, and ambiguity never contradicts."""
    if not quantities_in(_normal(claim.sentence)) & {"threshold", "growth"}:
        return None  # "your biggest stone measures 3 cm" is a size, whatever the threshold
    return next(
        (
            fact
            for fact in case.facts
            if fact.about == "threshold" and _same_family(fact, claim) and _supports(fact, claim)
        ),
        None,
    )


def _nearest(facts: list[KnowledgeFact], claim: Claim) -> KnowledgeFact:
    claimed = in_base_units(claim.unit, claim.low, claim.high)

    def distance(fact: KnowledgeFact) -> float:
        known = in_base_units(fact.unit, *(fact.bounds or (0.0, 0.0)))
        if claimed is None or known is None:
            return 0.0
        return max(known[1] - claimed[2], claimed[1] - known[2], 0.0)

    return min(facts, key=distance)


Misstatement = Literal["understates_harm", "overstates_benefit", "overstates_harm",
                       "understates_benefit"]  # fmt: skip
MATERIAL_FACTOR = 2.0
"""A misstatement is material when the figure is off by at least this factor: half or less
of a harm's lowest accepted value, or, for a benefit given as a percentage, leaving half or
less of the accepted chance of the bad outcome (98% survival against 75-85% leaves 2% of
the 15-25% who die), or, for other benefits, twice the highest accepted value or more."""


def misstatement(claim: Claim, fact: KnowledgeFact) -> tuple[Misstatement, bool] | None:
    """How a contradicted figure misstates a risk or a benefit, and whether materially;
    ``None`` for facts that are neither (sizes, times, intervals)."""
    polarity = lexicon().polarity(fact.about)
    bounds = fact.bounds
    if polarity == "neutral" or bounds is None:
        return None
    claimed = in_base_units(claim.unit, claim.low, claim.high)
    known = in_base_units(fact.unit, *bounds)
    if claimed is None or known is None:
        return None
    family, low, high = known
    _, claim_low, claim_high = claimed
    if polarity == "harm":
        if claim_high < low:
            return "understates_harm", claim_high <= low / MATERIAL_FACTOR
        return "overstates_harm", False
    if claim_low > high:
        if family == "percent":
            return "overstates_benefit", 100 - claim_low <= (100 - high) / MATERIAL_FACTOR
        return "overstates_benefit", claim_low >= MATERIAL_FACTOR * high
    return "understates_benefit", False
