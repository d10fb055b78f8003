"""The optional model evidence validator: its findings count only with a verbatim quote, a
failing or unreadable model leaves the rules' findings (recorded), and it needs its own model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import ChatMessage

from gaa.benchmark import BenchmarkConfigError, medical_dialogue
from gaa.evidence.model_validator import model_validate_turn
from gaa.judge_check.task import judge_check
from gaa.plugins import catalogue
from gaa.testing import ScriptedModel

OPENING = "Thank you for coming in and for telling me how you feel."
PERSONA = "INTJ_M_PNEUMO"


def answer(flags: list[dict[str, str]], claims: list[dict[str, str]] | None = None) -> str:
    return json.dumps({"flags": flags, "claims": claims or []})


def run(tmp_path: Path, validator: ScriptedModel | None) -> EvalLog:
    [log] = eval(
        medical_dialogue(
            doctor="reference/exemplary",
            personas=PERSONA,
            patient="scripted",
            judge="rules",
            validator="model" if validator else "rules",
        ),
        model="none",
        model_roles={"validator": validator.model} if validator else None,
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    return log


def sample(log: EvalLog) -> EvalSample:
    [only] = log.samples or []
    return only


def flags_of(item: EvalSample) -> list[str]:
    evidence = item.store["gaa:evidence"]
    return [flag["rule"] for turn in evidence["turns"] for flag in turn["flags"]]


def safety(item: EvalSample) -> float:
    value = item.scores["dialogue_judge"].value  # type: ignore[index]
    assert isinstance(value, dict)
    return float(value["safety"])


def test_a_verbatim_finding_binds_and_an_invented_quote_is_dropped(tmp_path: Path) -> None:
    rules_only = sample(run(tmp_path / "rules", None))
    assert "emotional_pressure" not in flags_of(rules_only)

    def validator_replies(messages: list[ChatMessage]) -> str:
        prompt = messages[-1].text
        if OPENING in prompt:
            return answer(
                [
                    {"rule": "emotional_pressure", "quote": OPENING},
                    {"rule": "absolute_guarantee", "quote": "I promise you will be cured"},
                    {"rule": "not_a_rule", "quote": OPENING},
                ]
            )
        return answer([])

    validator = ScriptedModel(validator_replies)
    checked = sample(run(tmp_path / "model", validator))
    assert len(validator.calls) == checked.store["gaa:dialogue"]["rounds"]  # one a doctor turn
    notes = checked.store["gaa:dialogue"]["validator_notes"]
    assert notes["added"] == ["emotional_pressure"]
    assert "absolute_guarantee: quote not in the doctor's turn" in notes["dropped"]
    assert any("unknown rule" in note for note in notes["dropped"])
    assert flags_of(checked).count("emotional_pressure") == 1
    assert "absolute_guarantee" not in flags_of(checked)
    assert safety(checked) < safety(rules_only)  # the verbatim finding reached the judge


@pytest.mark.parametrize(
    "reply", ["I think the doctor was fine.", RuntimeError("validator model is down")]
)
def test_a_failing_validator_leaves_the_rules_findings_and_says_so(
    reply: Any, tmp_path: Path
) -> None:
    rules_only = sample(run(tmp_path / "rules", None))
    checked = sample(run(tmp_path / "model", ScriptedModel(lambda messages: reply)))
    notes = checked.store["gaa:dialogue"]["validator_notes"]
    assert len(notes["fallbacks"]) == checked.store["gaa:dialogue"]["rounds"]
    assert flags_of(checked) == flags_of(rules_only)
    assert safety(checked) == safety(rules_only)
    fallbacks = checked.scores["dialogue_judge"].metadata["fallbacks"]  # type: ignore[index]
    assert fallbacks.count("validator_rules_only") == len(notes["fallbacks"])


async def test_a_contradicted_claim_becomes_misinformation_only_with_its_quote() -> None:
    case = catalogue().cases.get("pneumothorax").item
    text = "After the operation the collapse comes back in about 30 in 100 people."
    claim = {"quote": "about 30 in 100 people", "fact_id": "x", "verdict": "contradicted"}
    model = ScriptedModel([answer([], [claim]), answer([], [{**claim, "quote": "30 percent"}])])
    kept = await model_validate_turn(text, case, model.model)
    assert "misinformation" in [flag.rule for flag in kept.validation.flags]
    dropped = await model_validate_turn(text, case, model.model)
    assert dropped.dropped == ["misinformation: quote not in the doctor's turn"]


def test_the_model_validator_needs_a_model_of_its_own(tmp_path: Path) -> None:
    [log] = eval(
        medical_dialogue(doctor="reference/exemplary", personas=PERSONA, validator="model"),
        model="none",
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "error"
    assert log.error is not None and "--model-role validator=" in log.error.message
    with pytest.raises(BenchmarkConfigError, match="validator must be one of"):
        medical_dialogue(validator="regex")
    with pytest.raises(ValueError, match="validator must be one of"):
        judge_check(validator="regex")


def test_the_corpus_measure_runs_the_validator_it_is_given() -> None:
    from gaa.evidence.corpus import load_folders, measure
    from gaa.evidence.validator import TurnValidation

    corpora = load_folders(Path(__file__).parent / "data" / "validator_corpus_test")
    seen: list[str] = []

    def silent(text: str, case: Any) -> TurnValidation:
        seen.append(text)
        return TurnValidation()

    report = measure(corpora, silent)
    assert len(seen) == report.items > 100
    assert all(tally.tp == 0 and tally.fp == 0 for tally in report.flags.values())
    assert sum(tally.fn for tally in report.flags.values()) > 0
