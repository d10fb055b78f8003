"""Measuring the validator on a labelled corpus of doctor sentences.

A corpus file holds doctor utterances for one case, each labelled with what the validator must
find: every figure (with the fact it is about and its verdict), the safety rules it breaks, the
consent items it covers and the doctor's stance. The rules raised from the stance
(``unindicated_push``, ``steers_from_indicated``) and from figures (``misinformation``) are
expected from those labels, not labelled twice. :func:`measure` runs the validator on every
item and counts agreement per label, so precision and recall can be read per rule, per consent
item, for stance and for figures.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, Field, ValidationError, model_validator

from gaa._yaml import load_yaml
from gaa.errors import GAAError
from gaa.evidence.claims import qualifiers, sentences
from gaa.evidence.quantities import lexicon
from gaa.evidence.rules import consent_items, safety_rules
from gaa.evidence.stance import Stance
from gaa.evidence.validator import DialogueEvidence, TurnValidation, validate_turn
from gaa.models import MedicalCase
from gaa.plugins import catalogue

Verdict = Literal["supported", "contradicted", "unverifiable"]


class CorpusError(GAAError, ValueError):
    """A corpus file that cannot be read or is mislabelled."""


class LabelledClaim(BaseModel):
    figure: str
    fact: str | None = None
    verdict: Verdict


class CorpusItem(BaseModel):
    id: str
    text: str
    register_: str = Field("plain", alias="register")
    tags: list[str] = Field(default_factory=list)
    stance: Stance
    flags: list[str] = Field(default_factory=list)
    consent: list[str] = Field(default_factory=list)
    claims: list[LabelledClaim] = Field(default_factory=list)
    note: str | None = None

    @model_validator(mode="after")
    def _figures_in_text(self) -> CorpusItem:
        for claim in self.claims:
            if claim.figure not in self.text:
                raise ValueError(f"figure {claim.figure!r} is not in the text")
        return self


class Corpus(BaseModel):
    case: str
    items: list[CorpusItem]


def load_corpus(path: Path) -> Corpus:
    try:
        return Corpus.model_validate(load_yaml(path.read_text(encoding="utf-8")))
    except (OSError, yaml.YAMLError, ValidationError) as exc:
        raise CorpusError(f"Corpus {path} is invalid: {exc}") from None


@dataclass
class Tally:
    """True positives, false positives and false negatives of one label."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    def add(self, expected: bool, found: bool) -> None:
        if expected and found:
            self.tp += 1
        elif found:
            self.fp += 1
        elif expected:
            self.fn += 1

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None


@dataclass
class Mistake:
    item: str
    label: str
    expected: str
    found: str
    text: str


@dataclass
class CorpusReport:
    items: int = 0
    flags: dict[str, Tally] = field(default_factory=dict)
    consent: dict[str, Tally] = field(default_factory=dict)
    stance: dict[str, Tally] = field(default_factory=dict)
    verdicts: dict[str, Tally] = field(default_factory=dict)
    figures: Tally = field(default_factory=Tally)
    """Extraction: a labelled figure found (tp), missed (fn), or a figure found unlabelled (fp)."""
    attribution: Counter[str] = field(default_factory=Counter)
    """Matched figures with a labelled fact: ``right`` or ``wrong`` fact named."""
    mistakes: list[Mistake] = field(default_factory=list)
    qualifiers: int = 0
    """Labelled time spans the extractor reads as qualifiers of another figure, not scored."""

    def tally(self, table: dict[str, Tally], label: str) -> Tally:
        return table.setdefault(label, Tally())


DERIVED_FROM_STANCE = {"unindicated_push", "steers_from_indicated"}
DERIVED_FROM_CLAIMS = {"misinformation"}


def expected_flags(item: CorpusItem, case: MedicalCase) -> set[str]:
    """The labelled flags plus those that follow from the labelled stance and figures."""
    flags = set(item.flags)
    if item.stance == "for" and not case.surgery_indicated:
        flags.add("unindicated_push")
    if item.stance == "against" and case.surgery_indicated:
        flags.add("steers_from_indicated")
    facts = {fact.id: fact for fact in case.facts}
    for claim in item.claims:
        fact = facts.get(claim.fact or "")
        if claim.verdict == "contradicted" and fact and lexicon().polarity(fact.about) != "neutral":
            flags.add("misinformation")
    return flags


def _matches(text: str, figure: str, sentence: str, quote: str) -> bool:
    start = text.find(figure)
    where = text.find(sentence)
    if start < 0 or where < 0:
        return False
    at = where + sentence.find(quote)
    return at < start + len(figure) and start < at + len(quote)


def _score_claims(
    report: CorpusReport, item: CorpusItem, validation: TurnValidation, text: str
) -> None:
    found = list(validation.claims)
    spans = [q for sentence in sentences(text) for q in qualifiers(sentence)]
    for label in item.claims:
        if any(label.figure in span or span in label.figure for span in spans):
            report.qualifiers += 1  # "alive at five years": read as a qualifier by design
            continue
        match = next((c for c in found if _matches(text, label.figure, c.sentence, c.quote)), None)
        report.figures.add(True, match is not None)
        if match is None:
            report.tally(report.verdicts, label.verdict).add(True, False)
            continue
        found.remove(match)
        for verdict in ("supported", "contradicted", "unverifiable"):
            report.tally(report.verdicts, verdict).add(
                label.verdict == verdict, match.verdict == verdict
            )
        if match.verdict != label.verdict:
            report.mistakes.append(
                Mistake(item.id, "verdict", f"{label.verdict} {label.fact}",
                        f"{match.verdict} {match.fact_id} ({match.quote})", item.text)
            )  # fmt: skip
        if label.fact and match.fact_id:
            report.attribution["right" if match.fact_id == label.fact else "wrong"] += 1
    for extra in found:
        report.figures.add(False, True)
        report.tally(report.verdicts, extra.verdict).add(False, True)
        if extra.verdict == "contradicted":
            report.mistakes.append(
                Mistake(item.id, "verdict", "no figure", f"contradicted ({extra.quote})", item.text)
            )


Validate = Callable[[str, MedicalCase], TurnValidation]
"""A validator: the findings on one doctor text for one case."""


def measure(
    corpora: Iterable[tuple[Corpus, MedicalCase]], validate: Validate = validate_turn
) -> CorpusReport:
    """Run ``validate`` (the rules validator by default) on every item and count agreement
    with its labels."""
    report = CorpusReport()
    rules = [rule.id for rule in safety_rules()]
    for corpus, case in corpora:
        for item in corpus.items:
            report.items += 1
            validation = validate(item.text, case)
            text = " ".join(item.text.replace("\u2019", "'").split())
            expected = expected_flags(item, case)
            alone = DialogueEvidence(surgery_indicated=case.surgery_indicated, turns=[validation])
            found = {flag.rule for flag in alone.flags}  # the item read as a consultation
            for rule in rules:
                report.tally(report.flags, rule).add(rule in expected, rule in found)
                if (rule in expected) != (rule in found):
                    report.mistakes.append(
                        Mistake(item.id, f"flag {rule}", str(rule in expected),
                                str(rule in found), item.text)
                    )  # fmt: skip
            for consent in consent_items():
                wanted, got = consent.id in item.consent, consent.id in validation.consent
                report.tally(report.consent, consent.id).add(wanted, got)
                if wanted != got:
                    report.mistakes.append(
                        Mistake(item.id, f"consent {consent.id}", str(wanted), str(got), item.text)
                    )
            for stance in ("for", "against", "neutral"):
                report.tally(report.stance, stance).add(
                    item.stance == stance, validation.stance == stance
                )
            if item.stance != validation.stance:
                report.mistakes.append(
                    Mistake(item.id, "stance", item.stance, validation.stance, item.text)
                )
            _score_claims(report, item, validation, text)
    return report


def load_folders(*folders: Path) -> list[tuple[Corpus, MedicalCase]]:
    """Every ``*.yaml`` corpus in ``folders``, with its registered case."""
    cases = {entry.item.case_id: entry.item for entry in catalogue().cases}
    paths = [path for folder in folders for path in sorted(folder.glob("*.yaml"))]
    return [(corpus, cases[corpus.case]) for corpus in (load_corpus(path) for path in paths)]


def measure_folders(*folders: Path, validate: Validate = validate_turn) -> tuple[CorpusReport, int]:
    """Measure every ``*.yaml`` corpus in ``folders`` against the registered cases; returns the
    report and the number of files read."""
    corpora = load_folders(*folders)
    return measure(corpora, validate), len(corpora)
