"""The validator's rule data: safety rules, the consent checklist and communication cues.

They live in ``prompts/evidence/*.yaml`` so a clinician can review them; this module loads and
compiles them once, with errors that name the file and the entry.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any, Literal

import yaml

from gaa._memo import by_identity
from gaa._resources import prompts_dir
from gaa._yaml import load_yaml
from gaa.errors import GAAError
from gaa.evidence._prefilter import (
    candidates,
    lowered_for_prefilter,
    share_vocabulary,
)
from gaa.evidence._start_class import with_start_class

Severity = Literal["critical", "major"]
_NEGATION = re.compile(
    r"\b(?:not|no|never|don't|doesn't|didn't|won't|can't|cannot|isn't|aren't|wouldn't|shouldn't|"
    r"nobody|nothing|none|hardly|wish|shan't|mustn't|needn't|nor|pretend)\b"
)
CONDITIONAL = re.compile(r"\b(?:if|when|once|unless|should it|after|afterwards|later)\b")
SENTENCE_BREAK = re.compile(r"[.!?;](?=\s|$)|\n")
NEGATION_WINDOW = 80
ALWAYS = "(?#always)"
_REPORTED = re.compile(
    r"\b(?:told you|you (?:said|asked|mentioned|read)|(?:people|they|some) (?:say|said|call|"
    r"will tell "
    r"you)|you(?:'ve| have| may have| might have) heard|I'd be lying if|if I said|calls? it|"
    r"called it)\b",
    re.IGNORECASE,
)
"""Words that report someone else's words: "your neighbour told you it's a time bomb" is not
the doctor frightening the patient."""
QUOTED = re.compile(
    r"(?<![A-Za-z])['\"\u2018\u201c]((?:[^'\"\u2018\u2019\u201c\u201d]|"
    r"(?<=[A-Za-z])['\u2019](?=[A-Za-z]))"
    r"{3,200})['\"\u2019\u201d](?![A-Za-z])"
)
"""A pattern starting with this regex comment holds its own negation ("you don't need a second
opinion") and is not skipped after a negation word."""
_CLAUSE_BREAK = re.compile(r"[.!?;,:](?=\s|$)|\n|\bbut\b|\s[\u2014\u2013-]\s")


_TYPOGRAPHY = str.maketrans("\u2019\u2018\u201c\u201d", "''\"\"")


def blank_out(pattern: re.Pattern[str], text: str) -> str:
    """``text`` with every match of ``pattern`` replaced by spaces of its length (offsets kept)."""
    return pattern.sub(lambda found: " " * len(found.group(0)), text)


def normalise(text: str) -> str:
    """Straight apostrophes and quotes, so patterns written with ' match LLM typography."""
    return text.translate(_TYPOGRAPHY)


class RuleDataError(GAAError, ValueError):
    """A rule file that is missing or malformed."""


_BACKREFERENCE = re.compile(r"\\[1-9]|\(\?P=")


@by_identity
def any_of(patterns: tuple[re.Pattern[str], ...]) -> re.Pattern[str] | None:
    """One pattern that matches where any of ``patterns`` does (alternation finds a match
    wherever one alternative would), to screen text before the patterns run one by one; None
    when they cannot be merged faithfully (different flags, back-references, clashing names)."""
    if len(patterns) < 2 or len({p.flags for p in patterns}) != 1:
        return None
    if any(_BACKREFERENCE.search(p.pattern) for p in patterns):
        return None
    try:
        return re.compile("|".join(f"(?:{p.pattern})" for p in patterns), patterns[0].flags)
    except re.error:
        return None


def find_unnegated(
    patterns: tuple[re.Pattern[str], ...],
    text: str,
    negatable: bool = True,
    guard: re.Pattern[str] = _NEGATION,
    breaks: re.Pattern[str] = _CLAUSE_BREAK,
    inside: bool = False,
) -> str | None:
    """The first match not preceded, in the same clause, by a word of ``guard`` (a negation by
    default: "no need for a second opinion" is not an offer of one, "I can't guarantee" is not
    a guarantee)."""
    text, lowered = _prepared(text)
    possible = candidates(patterns, lowered)
    if not possible:
        return None  # every pattern needs a word the text lacks
    screen = any_of(patterns) if len(possible) == len(patterns) else None
    if screen is not None and screen.search(text) is None:
        return None  # no pattern matches anywhere: one search instead of one per pattern
    for pattern in possible:
        for match in pattern.finditer(text):
            always = pattern.pattern.startswith(ALWAYS)
            before = text[max(0, match.start() - NEGATION_WINDOW) : match.start()]
            before = breaks.split(before)[-1]
            if negatable and not always and guard.search(before.lower()):
                continue
            if negatable and _REPORTED.search(before):
                continue
            if inside and not always and _negated_inside(pattern, match.group(0), guard, breaks):
                continue
            return match.group(0)
    return None


def _negated_inside(
    pattern: re.Pattern[str], found: str, guard: re.Pattern[str], breaks: re.Pattern[str]
) -> bool:
    """A negation inside the match, in the clause that ends it, that the pattern does not
    itself need: "decision, you don't need to make it today" matches a pattern whose gap let
    "don't" in. The negation is the pattern's own ("no real risk") when the match fails
    without it; one in an earlier clause ("your decision, not next week, today") negates
    something else."""
    last = [m.end() for m in breaks.finditer(found)]
    start = last[-1] if last else 0
    for negation in guard.finditer(found[start:].lower()):
        begin, end = start + negation.start(), start + negation.end()
        if found[begin:end].lower() != negation.group(0):
            continue  # lowercasing changed the text's length: leave the match alone
        blanked = found[:begin] + "x" * (end - begin) + found[end:]
        if pattern.fullmatch(blanked):
            return True
    return False


_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_TOGETHER_ENDS = re.compile(r"(?<=[.!?])\s+|(?<=[\u3002\uff01\uff1f])")
"""Sentence ends for ``together`` terms, with the full stops of Chinese and Japanese."""


@dataclass(frozen=True)
class Together:
    """Term lists that fire together: one sentence holds a match of every list.

    An audience term ("the auditor", "Prüfer") alone or an evaluative term ("all criteria
    were met") alone is ordinary talk; the two in one sentence are a note to an evaluator.
    """

    name: str
    terms: tuple[tuple[re.Pattern[str], ...], ...]

    def find(self, sentence: str) -> str | None:
        spans = []
        lowered = lowered_for_prefilter(sentence)
        for patterns in self.terms:
            possible = candidates(patterns, lowered)
            match = next((m for p in possible if (m := p.search(sentence))), None)
            if match is None:
                return None
            spans.append((match.start(), match.end()))
        start, end = min(s for s, _ in spans), max(e for _, e in spans)
        return sentence[start:end]


FIND_CACHE_SIZE = 32_768
"""Sentences remembered per process: the patient's sanitiser and the validator read the same
doctor sentences with the same rules, and scripted doctors repeat theirs across personas."""


@dataclass(frozen=True, eq=False)
class SafetyRule:
    """One safety rule of ``prompts/evidence/safety_rules.yaml``.

    A pattern rule fires on a match that no negation precedes in its clause and whose sentence
    holds none of the rule's ``unless`` patterns. It also fires when one sentence holds a term
    of every list of one of its ``together`` entries (no negation is looked for there: use them
    in rules that are not negatable). Its ``asides`` are blanked before any of this (phrases it
    never reads). A ``derived`` rule has no patterns: the validator raises
    it from the doctor's stance or from contradicted figures.
    """

    id: str
    severity: Severity
    description: str
    patterns: tuple[re.Pattern[str], ...]
    negatable: bool = True
    unless: tuple[re.Pattern[str], ...] = ()
    derived: str | None = None
    binding: bool = True
    reasoning: str = ""
    together: tuple[Together, ...] = ()
    asides: tuple[re.Pattern[str], ...] = ()

    def find(self, text: str) -> str | None:
        """The rule's first finding in ``text`` (remembered: rules are pure functions of it)."""
        if not self.patterns and not self.together:
            return None
        return _remembered_find(self, text)

    def _find(self, text: str) -> str | None:
        text, pieces = _read_pieces(text, self.negatable, self.asides)
        for sentence in pieces:
            if (found := _remembered_sentence(self, sentence)) is not None:
                return found
        return self._find_together(text)

    def _find_in_sentence(self, sentence: str) -> str | None:
        found = find_unnegated(self.patterns, sentence, self.negatable, inside=self.negatable)
        return None if found is None or self._excused(sentence) else found

    def _excused(self, sentence: str) -> bool:
        """The sentence holds one of the rule's ``unless`` patterns (looked for only once a
        finding needs excusing: most sentences have none)."""
        return any(p.search(sentence) for p in self.unless)

    def _find_together(self, text: str) -> str | None:
        """Terms that fire together, never across a sentence end (``unless`` still applies)."""
        if not self.together:
            return None
        pieces = [piece for line in text.splitlines() for piece in _TOGETHER_ENDS.split(line)]
        if not self.negatable:  # a note split over lines is still one note
            pieces += _TOGETHER_ENDS.split(" ".join(text.split()))
        for sentence in dict.fromkeys(pieces):
            if (found := _remembered_together(self, sentence)) is not None:
                return found
        return None

    def _together_in_sentence(self, sentence: str) -> str | None:
        for group in self.together:
            if (found := group.find(sentence)) is not None:
                return None if self._excused(sentence) else found
        return None


SENTENCE_CACHE_SIZE = 8192
"""Sentences remembered per rule kind of reading: the validator asks about a turn's sentences
and then about the turn within moments, so a shorter memory serves."""


# Rules are pure functions of the text, and of each sentence: a turn's sentences are read once
# whether a rule is asked about the turn or about each sentence of it.
@lru_cache(maxsize=FIND_CACHE_SIZE)
def _remembered_find(rule: SafetyRule, text: str) -> str | None:
    return rule._find(text)


@lru_cache(maxsize=SENTENCE_CACHE_SIZE)
def _read_pieces(
    text: str, negatable: bool, asides: tuple[re.Pattern[str], ...]
) -> tuple[str, tuple[str, ...]]:
    """The text as a rule reads it, and its pieces (sentences), each once: the same for every
    rule with the same ``negatable`` and ``asides``, so a turn is prepared once for most."""
    text = normalise(text)
    if negatable:  # the patient's words quoted back are not the doctor's
        text = QUOTED.sub(" ", text)
    for aside in asides:  # phrases the rule never reads, blanked in place
        text = blank_out(aside, text)
    pieces = _SENTENCES.split(text)
    if not negatable:  # an instruction split over lines is still one instruction
        pieces.append(" ".join(text.split()))
    return text, tuple(dict.fromkeys(pieces))  # a piece said twice is read once


@lru_cache(maxsize=SENTENCE_CACHE_SIZE)
def _prepared(text: str) -> tuple[str, str | None]:
    """A text's typography made plain, and its lowercase for the prefilter (see
    :func:`gaa.evidence._prefilter.lowered_for_prefilter`)."""
    text = normalise(text)
    return text, lowered_for_prefilter(text)


@lru_cache(maxsize=SENTENCE_CACHE_SIZE)
def _remembered_sentence(rule: SafetyRule, sentence: str) -> str | None:
    return rule._find_in_sentence(sentence)


@lru_cache(maxsize=SENTENCE_CACHE_SIZE)
def _remembered_together(rule: SafetyRule, sentence: str) -> str | None:
    return rule._together_in_sentence(sentence)


@dataclass(frozen=True)
class ConsentItem:
    id: str
    description: str
    fact_kinds: tuple[str, ...]
    patterns: tuple[re.Pattern[str], ...]


def compile_patterns(patterns: Any, where: str) -> tuple[re.Pattern[str], ...]:
    if not isinstance(patterns, list):
        raise RuleDataError(f"{where}: 'patterns' must be a list of regular expressions")
    compiled = []
    for pattern in patterns:
        try:
            compiled.append(with_start_class(re.compile(pattern, re.IGNORECASE | re.MULTILINE)))
        except (re.error, TypeError) as exc:
            raise RuleDataError(f"{where}: invalid pattern {pattern!r}: {exc}") from None
    return tuple(compiled)


def compile_together(entries: Any, where: str) -> tuple[Together, ...]:
    """A rule's ``together`` entries: each a ``name`` and ``all``, a list of pattern lists."""
    if not isinstance(entries, list):
        raise RuleDataError(f"{where}: 'together' must be a list")
    groups = []
    for j, entry in enumerate(entries):
        here = f"{where} together[{j}]"
        lists = entry.get("all") if isinstance(entry, dict) else None
        if not isinstance(lists, list) or len(lists) < 2:
            raise RuleDataError(f"{here}: 'all' must hold two or more lists of patterns")
        terms = tuple(compile_patterns(patterns, here) for patterns in lists)
        if not all(terms):
            raise RuleDataError(f"{here}: every list of 'all' needs a pattern")
        groups.append(Together(name=str(entry.get("name", j)), terms=terms))
    return tuple(groups)


def load_rule_file(name: str) -> dict[str, Any]:
    path = prompts_dir() / "evidence" / name
    try:
        data = load_yaml(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise RuleDataError(f"Rule file {path} cannot be read: {exc}") from None
    if not isinstance(data, dict):
        raise RuleDataError(f"Rule file {path}: expected a mapping at the top level")
    return data


@cache
def safety_rules() -> tuple[SafetyRule, ...]:
    rules = []
    for i, entry in enumerate(load_rule_file("safety_rules.yaml").get("rules", [])):
        where = f"safety_rules.yaml rules[{i}]"
        try:
            derived = entry.get("derived")
            if derived not in (None, "stance", "claims"):
                raise RuleDataError(f"{where}: derived must be stance or claims")
            rules.append(
                SafetyRule(
                    id=entry["id"],
                    severity=entry["severity"],
                    description=entry["description"],
                    patterns=compile_patterns(entry.get("patterns", []), where),
                    negatable=bool(entry.get("negatable", True)),
                    unless=compile_patterns(entry.get("unless", []), where),
                    derived=derived,
                    binding=bool(entry.get("binding", True)),
                    reasoning=str(entry.get("reasoning", "")),
                    together=compile_together(entry.get("together", []), where),
                    asides=compile_patterns(entry.get("asides", []), where),
                )
            )
        except KeyError as exc:
            raise RuleDataError(f"{where}: missing field {exc}") from None
        if rules[-1].severity not in ("critical", "major"):
            raise RuleDataError(f"{where}: severity must be critical or major")
    share_vocabulary(
        [rule.patterns for rule in rules]
        + [terms for rule in rules for group in rule.together for terms in group.terms]
    )
    return tuple(rules)


@cache
def contradicted_figures_binding() -> bool:
    """Whether a contradicted figure alone may overrule a judge (see safety_rules.yaml)."""
    return bool(load_rule_file("safety_rules.yaml").get("contradicted_figures_binding", True))


def safety_rule(rule_id: str) -> SafetyRule:
    return next(rule for rule in safety_rules() if rule.id == rule_id)


@cache
def consent_items() -> tuple[ConsentItem, ...]:
    items = []
    for i, entry in enumerate(load_rule_file("consent.yaml").get("items", [])):
        where = f"consent.yaml items[{i}]"
        try:
            items.append(
                ConsentItem(
                    id=entry["id"],
                    description=entry["description"],
                    fact_kinds=tuple(entry.get("fact_kinds", [])),
                    patterns=compile_patterns(entry.get("patterns", []), where),
                )
            )
        except KeyError as exc:
            raise RuleDataError(f"{where}: missing field {exc}") from None
    share_vocabulary(item.patterns for item in items)
    return tuple(items)


@cache
def communication_cues() -> dict[str, tuple[re.Pattern[str], ...]]:
    cues = load_rule_file("communication.yaml").get("cues", {})
    compiled = {
        name: compile_patterns(patterns, f"communication.yaml cues.{name}")
        for name, patterns in cues.items()
    }
    share_vocabulary(compiled.values())
    return compiled
