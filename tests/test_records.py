"""A finished record is shared by deep copies (Inspect copies each score once per value when it
computes metrics) and is a plain dict everywhere else."""

from __future__ import annotations

import copy
import json

from inspect_ai.scorer import SampleScore, Score

from gaa._records import FinishedRecord


def test_a_deep_copy_of_a_score_shares_its_finished_record() -> None:
    record = FinishedRecord({"criteria": [{"criterion": "empathy.a", "verdict": "met"}]})
    score = SampleScore(score=Score(value={"overall": 50.0}, metadata={"performance": record}))
    copied = copy.deepcopy(score)
    assert copied.score.metadata is not None and score.score.metadata is not None
    assert copied.score.metadata is not score.score.metadata  # the rest is copied as before
    assert copied.score.metadata["performance"] is record
    copied.score.value = 1.0  # what Inspect's metrics change on their copy
    assert score.score.value == {"overall": 50.0}


def test_a_finished_record_serializes_as_the_dict_it_holds() -> None:
    record = FinishedRecord({"overall_score": 61.5, "flags": ["x: y"]})
    score = Score(value=1.0, metadata={"performance": record})
    dumped = json.loads(score.model_dump_json())
    assert dumped["metadata"]["performance"] == {"overall_score": 61.5, "flags": ["x: y"]}
    assert copy.copy(record) == record and type(copy.copy(record)) is FinishedRecord
