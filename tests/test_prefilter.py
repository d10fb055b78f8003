"""The rules' literal prefilter skips only searches that would fail: on every sentence the
project holds (validator corpora, attack suites, labelled consultations), every pattern that
matches is among the prefilter's candidates."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from gaa._memo import by_identity
from gaa._resources import prompts_dir
from gaa.evidence._prefilter import (
    _plan,
    candidates,
    lowered_for_prefilter,
    required_sets,
    required_words,
    share_vocabulary,
)
from gaa.evidence._vocabulary import Vocabulary
from gaa.evidence.quantities import lexicon
from gaa.evidence.rules import (
    _remembered_find,
    _remembered_sentence,
    communication_cues,
    consent_items,
    safety_rules,
)

DATA = Path(__file__).parent / "data"


def _strings(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for value in node.values() for s in _strings(value)]
    if isinstance(node, list):
        return [s for value in node for s in _strings(value)]
    return []


def _texts() -> list[str]:
    files = [
        *sorted((DATA / "attacks").glob("*.yaml")),
        *sorted((DATA / "validator_corpus").glob("*.yaml")),
        *sorted((DATA / "validator_corpus_test").glob("*.yaml")),
        *sorted((DATA / "flag_labels_holdout").glob("*.yaml")),
    ]
    texts = [s for f in files for s in _strings(yaml.safe_load(f.read_text(encoding="utf-8")))]
    return [t for t in texts if len(t) > 20]


def _all_patterns() -> list[re.Pattern[str]]:
    patterns = [p for rule in safety_rules() for p in (*rule.patterns, *rule.unless)]
    patterns += [
        p for rule in safety_rules() for group in rule.together for t in group.terms for p in t
    ]
    patterns += [p for quantity in lexicon().quantities.values() for p in quantity.cues]
    patterns += [p for cue in communication_cues().values() for p in cue]
    patterns += [p for item in consent_items() for p in item.patterns]
    patterns += [p for cues in lexicon().settings.values() for p in cues]
    return patterns


def _rule_file_sources() -> list[re.Pattern[str]]:
    """Every string of the rule files that compiles, once, as the file writes it, with the
    flags the rules load it with (loading may rewrite it: :mod:`gaa.evidence._start_class`)."""
    written = []
    for path in sorted((prompts_dir() / "evidence").glob("*.yaml")):
        for source in dict.fromkeys(_strings(yaml.safe_load(path.read_text(encoding="utf-8")))):
            try:
                written.append(re.compile(source, re.IGNORECASE | re.MULTILINE))
            except re.error:
                continue
    return written


def test_every_matching_pattern_is_a_candidate() -> None:
    patterns = tuple(_all_patterns())
    texts = _texts()
    assert len(texts) > 500 and len(patterns) > 300
    for text in texts:
        possible = set(candidates(patterns, lowered_for_prefilter(text)))
        missed = [p.pattern for p in patterns if p.search(text) and p not in possible]
        assert not missed, (text, missed)


def test_the_prefilter_reads_the_words_a_match_needs() -> None:
    words = required_words(re.compile(r"\b(?:need|want) (?:your|a) (?:answer|decision)\b"))
    assert words is not None and words <= {"need", "want", "your", "answer", "decision"}
    assert required_words(re.compile(r"(?:risk)?\s*\d+")) is None  # nothing is required
    assert required_words(re.compile(r"sign\w* (?:now|today)", re.I)) == {"sign"}


def test_a_pattern_of_several_parts_needs_a_word_of_each() -> None:
    pattern = re.compile(r"\b(?:guarantee|promise)\b[^.]{0,40}\b(?:cured|fixed)\b", re.I)
    assert set(required_sets(pattern)) == {
        frozenset({"guarantee", "promise"}),
        frozenset({"cured", "fixed"}),
    }
    assert required_sets(pattern)[0] == required_words(pattern)  # the most selective first
    for text, expected in (
        ("I promise you will be cured by this.", (pattern,)),
        ("I can't guarantee anything, I'm afraid.", ()),  # no word of the second part
        ("Most people are cured by the operation.", ()),  # no word of the first part
    ):
        assert candidates((pattern,), lowered_for_prefilter(text)) == expected, text
        assert bool(pattern.search(text)) == bool(expected)


@pytest.mark.parametrize("text", ["You must \u017fign today.", "\u0130 guarantee it."])
def test_letters_that_fold_to_ascii_turn_the_prefilter_off(text: str) -> None:
    assert lowered_for_prefilter(text) is None
    pattern = re.compile(r"sign today|i guarantee", re.IGNORECASE)
    assert candidates((pattern,), lowered_for_prefilter(text)) == (pattern,)


def test_remembered_by_identity_computes_once_per_object() -> None:
    calls: list[tuple[str, ...]] = []

    def compute(key: tuple[str, ...]) -> int:
        calls.append(key)
        return len(key)

    remembered = by_identity(compute)
    first = ("a", "b")
    assert remembered(first) == 2 and remembered(first) == 2
    assert len(calls) == 1
    equal = tuple(["a", "b"])  # equal, but another object: computed afresh, never confused
    assert equal is not first and remembered(equal) == 2
    assert len(calls) == 2


def test_a_rule_reads_a_turn_as_it_reads_its_sentences() -> None:
    """Sentences are remembered per rule: asking about each sentence first, then the whole
    text, finds what a fresh reading of the whole text finds."""
    texts = _texts()[:400]
    fresh = {}
    for rule in safety_rules():
        _remembered_sentence.cache_clear()
        _remembered_find.cache_clear()
        fresh[rule.id] = [rule.find(text) for text in texts]
    _remembered_find.cache_clear()
    for text in texts:
        for sentence in text.split(". "):
            for rule in safety_rules():
                rule.find(sentence)
    for rule in safety_rules():
        assert [rule.find(text) for text in texts] == fresh[rule.id], rule.id
    assert any(found for found in fresh["injected_instructions"])


def test_words_beyond_ascii_are_looked_for_only_in_texts_beyond_ascii() -> None:
    pattern = re.compile(r"\b(?:Prüfer|аудитор)\w*\s*:", re.IGNORECASE)
    assert required_words(pattern) == {"prüfer", "аудитор"}
    assert candidates((pattern,), lowered_for_prefilter("Dear reviewer: all is well.")) == ()
    for text in ("An den PRÜFER: alles gut.", "Аудитор: всё хорошо.", "Café. Prüfung."):
        assert candidates((pattern,), lowered_for_prefilter(text)) == (pattern,)
    assert pattern.search("An den PRÜFER: alles gut.")


def test_short_words_beyond_ascii_and_rare_symbols_still_rule_texts_out() -> None:
    """Two characters of Chinese, or ``[[`` and ``_``, are never or seldom in English prose,
    however short: a pattern that needs them is skipped there. Short common words are not."""
    notes = re.compile(r"\bfor the record\b|(?:记录在案|备案|存档)")
    assert required_words(notes) == {"for the record", "记录在案", "备案", "存档"}
    markup = re.compile(r"\[\[|\]\]|\b\w+_\w+\s*=")
    assert required_words(markup) in ({"[[", "]]", "_"}, {"[[", "]]", "="})
    prose = "We can talk it over again next week; there is no rush at all."
    assert candidates((notes,), lowered_for_prefilter(prose)) == ()
    assert candidates((markup,), lowered_for_prefilter(prose)) == ()
    for pattern, text in ((notes, "请备案一切正常"), (markup, "Set final_score = 10 now.")):
        assert pattern.search(text)
        assert candidates((pattern,), lowered_for_prefilter(text)) == (pattern,)
    for common in (r"\bas an AI\b|\bAF\b", r"\d+ ?%"):  # "as", "af", "%": in most prose
        assert required_words(re.compile(common)) is None


def test_a_letter_that_matches_ascii_makes_no_sure_word() -> None:
    pattern = re.compile("\u017fign now", re.IGNORECASE)  # the long s matches "s"
    assert pattern.search("sign now") and required_words(pattern) is None
    assert candidates((pattern,), lowered_for_prefilter("Please sign now.")) == (pattern,)


def test_a_vocabulary_finds_exactly_the_words_a_text_holds() -> None:
    words = ["toda", "today", "day", "a b", "decid", "decide now", "now", "ow"]
    vocabulary = Vocabulary(words)
    texts = ["you decide today, a b", "a bc decide nowhere", "nothing here", "", "ow! today?"]
    for text in texts + [t.lower() for t in _texts()[:300]]:
        assert vocabulary.present(text) == {w for w in words if w in text}, text


def test_rule_files_share_one_vocabulary_per_file() -> None:
    rules = safety_rules()
    plans = {id(_plan(rule.patterns).vocabulary) for rule in rules if rule.patterns}
    assert len(plans) == 1 and None not in {_plan(rule.patterns).vocabulary for rule in rules}
    text = "Sign the consent form today; there is no risk at all."
    lowered = text.lower()
    shared = _plan(rules[0].patterns).vocabulary
    assert shared is not None
    assert shared.present(lowered) == {w for w in shared.words if w in lowered}


def test_a_very_long_required_word_keeps_its_plan_on_substring_tests() -> None:
    long = re.compile("x" * 600 + " marks the spot", re.IGNORECASE)
    share_vocabulary([(long,)])
    assert _plan((long,)).vocabulary is None
    text = "x" * 600 + " marks the spot"
    assert candidates((long,), lowered_for_prefilter(text)) == (long,)
    assert candidates((long,), lowered_for_prefilter("nothing here")) == ()
