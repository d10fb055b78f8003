"""Borda aggregation of ranked answers, per question.

Each member's ranking gives an option ``k - 1 - position`` points (``k`` options; an option the
member left unranked gets 0). A member's points are multiplied by its weight: 1 for the
standard Borda count, the hierarchical weight of its role for team orientation, its trust score
for the trust network. The highest total wins.

Ties go to the leader's choice when there is a leader and it is among the tied options.
Otherwise the deterministic rule is, in order: the most (weighted) first-place votes; then the
highest summed confidence of the members who ranked it first; then the earliest option label.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

VotingMethod = Literal["borda", "hierarchical_borda", "trust_borda", "single"]

TieRule = Literal["none", "leader", "first_place_votes", "confidence", "label_order"]


def borda_points(ranking: Sequence[str], labels: Sequence[str]) -> dict[str, float]:
    """Points one ranking gives each option."""
    k = len(labels)
    points = dict.fromkeys(labels, 0.0)
    for position, label in enumerate(ranking):
        if label in points:
            points[label] = float(k - 1 - position)
    return points


def borda_scores(
    rankings: Mapping[int, Sequence[str]],
    labels: Sequence[str],
    weights: Mapping[int, float] | None = None,
) -> dict[str, float]:
    """Weighted Borda totals of the members' rankings (weight 1 for members not in ``weights``)."""
    totals = dict.fromkeys(labels, 0.0)
    for member, ranking in rankings.items():
        weight = 1.0 if weights is None else weights.get(member, 1.0)
        for label, points in borda_points(ranking, labels).items():
            totals[label] += weight * points
    return totals


@dataclass(frozen=True)
class VoteOutcome:
    answer: str
    scores: dict[str, float]
    tied: list[str]
    tie_rule: TieRule


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9


def decide(
    rankings: Mapping[int, Sequence[str]],
    labels: Sequence[str],
    weights: Mapping[int, float] | None = None,
    confidences: Mapping[int, float | None] | None = None,
    leader_choice: str | None = None,
) -> VoteOutcome:
    """The winning option, with the documented tie-break rules."""
    if not rankings:
        raise ValueError("no rankings to aggregate")
    scores = borda_scores(rankings, labels, weights)
    best = max(scores.values())
    tied = [label for label in labels if _close(scores[label], best)]
    if len(tied) == 1:
        return VoteOutcome(tied[0], scores, tied, "none")
    if leader_choice in tied:
        assert leader_choice is not None
        return VoteOutcome(leader_choice, scores, tied, "leader")

    def weight(member: int) -> float:
        return 1.0 if weights is None else weights.get(member, 1.0)

    firsts = dict.fromkeys(tied, 0.0)
    confidence = dict.fromkeys(tied, 0.0)
    for member, ranking in rankings.items():
        if ranking and ranking[0] in firsts:
            firsts[ranking[0]] += weight(member)
            confidence[ranking[0]] += (confidences or {}).get(member) or 0.0
    candidates = tied
    rules: tuple[tuple[TieRule, dict[str, float]], ...] = (
        ("first_place_votes", firsts),
        ("confidence", confidence),
    )
    for rule, key in rules:
        top = max(key[label] for label in candidates)
        candidates = [label for label in candidates if _close(key[label], top)]
        if len(candidates) == 1:
            return VoteOutcome(candidates[0], scores, tied, rule)
    return VoteOutcome(candidates[0], scores, tied, "label_order")
