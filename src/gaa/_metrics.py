"""Metrics Inspect does not have: means of a score by several metadata keys at once."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from inspect_ai.scorer import Metric, SampleScore, Value, metric

GROUP_KEYS: tuple[str, ...] = ("mbti", "gender", "case")


@metric(name="by")
def group_means(keys: Sequence[str] = GROUP_KEYS) -> Metric:
    """Mean of the score for each value of each metadata key: ``{"mbti:INTJ": ..,
    "gender:female": .., "case:lung_cancer": ..}`` (Inspect keeps one ``grouped`` per score)."""

    def compute(scores: list[SampleScore]) -> Value:
        sums: dict[str, list[float]] = defaultdict(list)
        for sample_score in scores:
            metadata = sample_score.sample_metadata or {}
            value = sample_score.score.as_float()
            for key in keys:
                if key in metadata:
                    sums[f"{key}:{metadata[key]}"].append(value)
        return {name: sum(values) / len(values) for name, values in sums.items()}

    return compute
