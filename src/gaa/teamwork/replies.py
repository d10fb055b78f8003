"""Parsing what team members and the leader reply: lenient about wrapping, strict about content.

Replies are JSON objects, possibly inside a Markdown fence or surrounded by prose. A reply that
cannot be read raises :class:`ReplyError` with a reason the repair request quotes back.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import permutations
from typing import Any

from gaa.teamwork.questions import Question, QuestionBatch

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


class ReplyError(ValueError):
    """A reply that does not follow the requested format; the message says how."""


@dataclass(frozen=True)
class Answer:
    """One member's answer to one question."""

    ranking: list[str]
    confidence: float | None = None
    rationale: str = ""

    @property
    def choice(self) -> str:
        return self.ranking[0]


@dataclass(frozen=True)
class MemberReply:
    """A member's answers to the whole batch, and the facts it relied on."""

    answers: dict[str, Answer]
    facts: list[str] = field(default_factory=list)


MAX_JSON_CHARS = 100_000
MAX_JSON_STARTS = 50
_UNREADABLE = (ValueError, RecursionError, OverflowError, MemoryError)
"""What decoding hostile JSON can raise: malformed, nested too deep, numbers too large."""


def extract_json(text: str) -> dict[str, Any]:
    """The first JSON object in ``text``: in a fenced block, or starting at one of the first
    ``{``. Bounded (the first :data:`MAX_JSON_CHARS` characters, :data:`MAX_JSON_STARTS`
    starts), and anything that cannot be decoded, however it fails, is a :class:`ReplyError`."""
    text = text[:MAX_JSON_CHARS]
    for fenced in _FENCE.finditer(text):
        try:
            data = json.loads(fenced.group(1))
        except _UNREADABLE:
            continue
        if isinstance(data, dict):
            return data
    decoder = json.JSONDecoder()
    starts = (i for i, char in enumerate(text) if char == "{")
    for _, start in zip(range(MAX_JSON_STARTS), starts, strict=False):
        try:
            data, _ = decoder.raw_decode(text, start)
        except _UNREADABLE:
            continue
        if isinstance(data, dict):
            return data
    raise ReplyError("the reply contains no JSON object that can be read")


_SYNONYMS = {
    "n/a": "not_relevant", "na": "not_relevant", "not_applicable": "not_relevant",
    "irrelevant": "not_relevant", "yes": "met", "no": "not_met", "unmet": "not_met",
}  # fmt: skip


_SEPARATORS = re.compile(r"[\s\-]+")


def _key(text: str) -> str:
    return _SEPARATORS.sub("_", text.strip().lower())


@lru_cache(maxsize=1024)
def _label_keys(labels: tuple[str, ...]) -> dict[str, str]:
    return {_key(label): label for label in labels}


def _label(value: Any, question: Question) -> str | None:
    if not isinstance(value, str):
        return None
    if value in question.options:  # the common case: a label, as asked
        return value
    text = value.strip()
    keys = _label_keys(tuple(question.options))
    first_word = _key(re.split(r"[(:,.]", text)[0])
    for candidate in (_key(text), _SYNONYMS.get(_key(text), ""), first_word):
        if candidate in keys:
            return keys[candidate]
    match = re.match(r"^\(?([A-Za-z0-9_]+)[).:]", text)
    if match:
        for label in question.labels:
            if match.group(1).upper() == label.upper():
                return label
    for label, option in question.options.items():
        if text.lower() == option.strip().lower():
            return label
    return None


def parse_confidence(value: Any) -> float | None:
    """A confidence in [0, 1]; percentages (1 < x <= 100) are rescaled."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        value = value.strip().rstrip("%")
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    if not math.isfinite(number):
        return None
    if 1.0 < number <= 100.0:
        number /= 100.0
    return min(max(number, 0.0), 1.0)


def parse_answer(data: Any, question: Question) -> Answer:
    """Read ``{"ranking": [...], "confidence": ..., "rationale": ...}`` (or ``"answer"``)."""
    if isinstance(data, str):
        data = {"answer": data}
    if not isinstance(data, dict):
        raise ReplyError(f"the answer to {question.id} is not an object")
    raw = data.get("ranking")
    if raw is None and "answer" in data:
        raw = [data["answer"]]
    if isinstance(raw, str):
        raw = [part for part in re.split(r"[\s,>]+", raw) if part]
    if not isinstance(raw, list) or not raw:
        raise ReplyError(f"the answer to {question.id} has no ranking")
    ranking: list[str] = []
    for item in raw:
        label = _label(item, question)
        if label is None:
            raise ReplyError(
                f"the ranking for {question.id} contains {item!r}; "
                f"use the option labels {', '.join(question.labels)}"
            )
        if label not in ranking:
            ranking.append(label)
    rationale = data.get("rationale") or data.get("reason") or ""
    return Answer(ranking, parse_confidence(data.get("confidence")), str(rationale).strip())


MAX_PERMUTED_LABELS = 5
"""Up to this many options, a constrained ranking is one of the full orderings (5! = 120)."""
RATIONALE_CHARS = 200
FACT_CHARS = 160
REPLY_TOKENS_BASE = 200
REPLY_TOKENS_PER_QUESTION = 90
COMPACT_ABOVE = 8
"""A constrained reply to more questions than this gives each question's answer label only."""
COMPACT_TOKENS_PER_QUESTION = 24


def ranking_schema(labels: list[str]) -> dict[str, Any]:
    """A ranking that lists every label once, best first: an enum of the orderings when there
    are few labels (JSON schema has no "permutation" keyword), otherwise labels in any order."""
    if len(labels) <= MAX_PERMUTED_LABELS:
        return {"enum": [list(order) for order in permutations(labels)]}
    return {"type": "array", "items": {"enum": labels}}


def compact(batch: QuestionBatch) -> bool:
    return len(batch.questions) > COMPACT_ABOVE


def member_schema(batch: QuestionBatch) -> dict[str, Any]:
    """The JSON schema of a member's reply to ``batch`` (for runtimes that constrain output).

    Tight enough that a grammar-constrained small model cannot run away: rankings are
    orderings of the labels, confidence is a number in [0, 1], rationales and facts are capped.
    For a large batch (the judge's rubric) the reply is compact, ``{"answers": {id: label}}``:
    the runtimes that constrain output are small local models, for which 39 rankings,
    confidences and rationales cost minutes per call (about 40 tokens a criterion instead of 14).
    """
    if compact(batch):
        labels = {question.id: {"enum": question.labels} for question in batch.questions}
        return {
            "type": "object",
            "properties": {
                "answers": {"type": "object", "properties": labels, "required": batch.ids}
            },
            "required": ["answers"],
        }
    answers = {
        question.id: {
            "type": "object",
            "properties": {
                "ranking": ranking_schema(question.labels),
                "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                "rationale": {"type": "string", "maxLength": RATIONALE_CHARS},
            },
            "required": ["ranking", "confidence", "rationale"],
        }
        for question in batch.questions
    }
    return {
        "type": "object",
        "properties": {
            "answers": {"type": "object", "properties": answers, "required": batch.ids},
            "facts": {"type": "array", "items": {"type": "string", "maxLength": FACT_CHARS}},
        },
        "required": ["answers", "facts"],
    }


def reply_token_budget(batch: QuestionBatch) -> int:
    """Enough output tokens for a constrained reply to every question of ``batch``."""
    per_question = COMPACT_TOKENS_PER_QUESTION if compact(batch) else REPLY_TOKENS_PER_QUESTION
    return REPLY_TOKENS_BASE + per_question * len(batch.questions)


def parse_member_reply(text: str, batch: QuestionBatch) -> MemberReply:
    """A member's answers to every question of ``batch``."""
    data = extract_json(text)
    answers_data = data.get("answers")
    if answers_data is None and len(batch.questions) == 1:
        answers_data = {batch.questions[0].id: data}
    if not isinstance(answers_data, dict):
        raise ReplyError('the reply has no "answers" object keyed by question id')
    answers: dict[str, Answer] = {}
    missing = []
    for question in batch.questions:
        if question.id not in answers_data:
            missing.append(question.id)
            continue
        answers[question.id] = parse_answer(answers_data[question.id], question)
    if missing:
        raise ReplyError(f"the reply has no answer for {', '.join(missing)}")
    facts = data.get("facts") or []
    if not isinstance(facts, list):
        facts = [facts]
    return MemberReply(answers, [str(fact).strip() for fact in facts if str(fact).strip()])
