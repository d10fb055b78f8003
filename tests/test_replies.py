from __future__ import annotations

import pytest

from gaa.teamwork import Question, QuestionBatch
from gaa.teamwork.replies import ReplyError, extract_json, parse_member_reply

Q1 = Question(id="q1", text="Which?", options={"A": "Aspirin", "B": "Heparin", "C": "Warfarin"})
Q2 = Question(id="q2", text="Met?", options={"met": "met", "not_met": "not met"})
ONE = QuestionBatch(questions=[Q1])
TWO = QuestionBatch(questions=[Q1, Q2])


def test_json_in_fences_or_prose() -> None:
    assert extract_json('Sure!\n```json\n{"a": 1}\n```\nThanks') == {"a": 1}
    assert extract_json('I think {"a": {"b": 2}} is it') == {"a": {"b": 2}}
    with pytest.raises(ReplyError, match="no JSON object"):
        extract_json("The answer is B.")


def test_full_batch_reply() -> None:
    reply = parse_member_reply(
        '{"answers": {"q1": {"ranking": ["b", "A", "C"], "confidence": 80, "rationale": "x"},'
        ' "q2": {"answer": "met"}}, "facts": ["heparin acts fast", ""]}',
        TWO,
    )
    assert reply.answers["q1"].ranking == ["B", "A", "C"]
    assert reply.answers["q1"].confidence == pytest.approx(0.8)
    assert reply.answers["q2"].ranking == ["met"] and reply.answers["q2"].confidence is None
    assert reply.facts == ["heparin acts fast"]


def test_single_question_may_skip_the_answers_wrapper() -> None:
    reply = parse_member_reply('{"ranking": "C > A > B", "confidence": 0.3}', ONE)
    assert reply.answers["q1"].ranking == ["C", "A", "B"]
    assert parse_member_reply('{"answer": "(B) Heparin"}', ONE).answers["q1"].choice == "B"
    assert parse_member_reply('{"answer": "Warfarin"}', ONE).answers["q1"].choice == "C"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"answers": {"q1": {"ranking": ["A"]}}}', "no answer for q2"),
        ('{"answers": {"q1": {"ranking": ["Z"]}, "q2": {"answer": "met"}}}', "contains 'Z'"),
        ('{"answers": {"q1": {"ranking": []}, "q2": {"answer": "met"}}}', "has no ranking"),
        ('{"answers": ["A"]}', '"answers" object'),
    ],
)
def test_unusable_replies_say_why(text: str, problem: str) -> None:
    with pytest.raises(ReplyError, match=problem):
        parse_member_reply(text, TWO)


def test_label_variants_and_trailing_prose() -> None:
    reply = parse_member_reply(
        '{"answers": {"q1": {"ranking": ["B"]}, "q2": {"answer": "Not met"}}} Note: {see above}',
        TWO,
    )
    assert reply.answers["q2"].choice == "not_met"
    three = QuestionBatch(
        questions=[
            Question(id="c", text="?", options={"met": "m", "not_met": "n", "not_relevant": "r"})
        ]
    )
    assert parse_member_reply('{"answer": "N/A"}', three).answers["c"].choice == "not_relevant"
    assert parse_member_reply('{"answer": "Met (clearly)"}', three).answers["c"].choice == "met"
    assert (
        parse_member_reply('{"answer": "B", "confidence": "85%"}', ONE).answers["q1"].confidence
        == 0.85
    )
