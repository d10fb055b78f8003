"""The lexicon of what a figure is about (``prompts/evidence/quantities.yaml``).

:func:`read_clause` tells which quantities (recurrence, survival, mortality, ...) and which
options (the operation, no operation, radiotherapy, a stent repair, ...) a clause speaks of.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Literal

from gaa.evidence._prefilter import candidates, lowered_for_prefilter, share_vocabulary
from gaa.evidence.rules import RuleDataError, compile_patterns, load_rule_file

Polarity = Literal["harm", "good", "neutral"]
GENERIC_SURGERY = "surgery"
NO_SURGERY = "none"


@dataclass(frozen=True)
class Quantity:
    id: str
    polarity: Polarity
    cues: tuple[re.Pattern[str], ...]


@dataclass(frozen=True)
class Lexicon:
    quantities: dict[str, Quantity]
    settings: dict[str, tuple[re.Pattern[str], ...]]
    surgery_kinds: frozenset[str]
    specific_settings: frozenset[str]
    named_only: frozenset[str] = frozenset()
    """Settings whose facts a figure is about only when its clause names them (a healthy
    aorta's width is never a reading of "it measures 2 cm")."""

    def polarity(self, quantity: str | None) -> Polarity:
        found = self.quantities.get(quantity or "")
        return found.polarity if found else "neutral"


@cache
def lexicon() -> Lexicon:
    data = load_rule_file("quantities.yaml")
    quantities = {}
    for name, entry in (data.get("quantities") or {}).items():
        where = f"quantities.yaml quantities.{name}"
        polarity = entry.get("polarity")
        if polarity not in ("harm", "good", "neutral"):
            raise RuleDataError(f"{where}: polarity must be harm, good or neutral")
        quantities[name] = Quantity(name, polarity, compile_patterns(entry.get("cues"), where))
    settings = {
        name: compile_patterns(patterns, f"quantities.yaml settings.{name}")
        for name, patterns in (data.get("settings") or {}).items()
    }
    return Lexicon(
        quantities=quantities,
        settings=settings,
        surgery_kinds=frozenset(data.get("surgery_kinds", [])),
        specific_settings=frozenset(data.get("specific_settings", [])),
        named_only=frozenset(data.get("named_only", [])),
    )


READ_CACHE_SIZE = 4096
"""Clauses remembered per process: a sentence's quantities and options are read for each of
its figures and each fact the validator tests it against."""


def quantities_in(text: str) -> set[str]:
    """The quantities whose cues appear in ``text``."""
    return set(_quantities_in(text))


@lru_cache(maxsize=READ_CACHE_SIZE)
def _quantities_in(text: str) -> frozenset[str]:
    cues, owners = _every_cue()
    found: set[str] = set()
    for cue in candidates(cues, lowered_for_prefilter(text)):  # one prefilter pass for all
        names = owners[id(cue)]
        if not names <= found and cue.search(text):
            found |= names
    return frozenset(found)


@cache
def _every_cue() -> tuple[tuple[re.Pattern[str], ...], dict[int, frozenset[str]]]:
    """Every quantity's cues in one tuple, and the quantities each cue names (``re`` hands out
    one compiled pattern for a pattern written twice, so a cue can belong to several)."""
    owners: dict[int, set[str]] = {}
    cues: dict[int, re.Pattern[str]] = {}
    for name, quantity in lexicon().quantities.items():
        for cue in quantity.cues:
            cues.setdefault(id(cue), cue)
            owners.setdefault(id(cue), set()).add(name)
    every = tuple(cues.values())
    share_vocabulary([every])
    return every, {key: frozenset(names) for key, names in owners.items()}


def settings_in(text: str) -> set[str]:
    """The options ``text`` puts a figure under. "Without an operation" is no operation, not
    the operation; a named alternative overrides a generic "without surgery" in the same
    clause ("radiotherapy, without an operation, ...")."""
    return set(_settings_in(text))


@lru_cache(maxsize=READ_CACHE_SIZE)
def _settings_in(text: str) -> frozenset[str]:
    settings, every = _prefiltered_settings()

    def possible_in(clause: str) -> set[int]:
        return {id(p) for p in candidates(every, lowered_for_prefilter(clause))}

    found: set[str] = set()
    masked = text
    possible = possible_in(masked)
    for pattern in settings.get(NO_SURGERY, ()):
        if id(pattern) in possible and pattern.search(masked):
            found.add(NO_SURGERY)
            masked = pattern.sub(" ", masked)
            possible = possible_in(masked)  # the masked words no longer count
    for name, patterns in settings.items():
        if name != NO_SURGERY and any(id(p) in possible and p.search(masked) for p in patterns):
            found.add(name)
    return frozenset(found)


@cache
def _prefiltered_settings() -> tuple[
    dict[str, tuple[re.Pattern[str], ...]], tuple[re.Pattern[str], ...]
]:
    """The lexicon's option cues, and all of them in one tuple to prefilter at once (a cue whose
    words a clause lacks is not run: see :mod:`gaa.evidence._prefilter`)."""
    settings = lexicon().settings
    every = tuple(pattern for patterns in settings.values() for pattern in patterns)
    share_vocabulary([every])
    return settings, every


def allowed_settings(found: set[str]) -> set[str] | None:
    """The fact settings a figure with these setting cues may be about; ``None`` when the
    clause leaves the option open (no cue, or the operation and no operation both)."""
    lex = lexicon()
    specific = found & lex.specific_settings
    if specific:
        return specific
    if GENERIC_SURGERY in found and NO_SURGERY not in found:
        return {GENERIC_SURGERY, *lex.surgery_kinds}
    if NO_SURGERY in found and GENERIC_SURGERY not in found:
        return {NO_SURGERY}
    return None
