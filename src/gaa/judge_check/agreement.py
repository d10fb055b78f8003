"""Agreement between a judge's verdicts and clinicians' labels: balanced accuracy, Cohen's
kappa, Kendall's tau-b between expected tiers and overall scores, twin sensitivity and
paraphrase stability. Plain functions over plain data, so they can be checked by hand."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gaa.validity import kendall_tau_b

STABLE_WITHIN = 1.0
"""A paraphrase control is stable when its overall is within this many points (of 100) of
its original's."""


def balanced_accuracy(pairs: Sequence[tuple[str, str]]) -> float | None:
    """Mean recall over the label classes present; ``pairs`` are (label, verdict)."""
    totals: Counter[str] = Counter(label for label, _ in pairs)
    if not totals:
        return None
    hits: Counter[str] = Counter(label for label, verdict in pairs if label == verdict)
    return sum(hits[label] / total for label, total in totals.items()) / len(totals)


def cohen_kappa(pairs: Sequence[tuple[str, str]]) -> float | None:
    """Cohen's kappa of (label, verdict) pairs; 1.0 when both sides are one constant class
    and agree, 0.0 when chance agreement is total but they disagree."""
    n = len(pairs)
    if n == 0:
        return None
    observed = sum(label == verdict for label, verdict in pairs) / n
    labels = Counter(label for label, _ in pairs)
    verdicts = Counter(verdict for _, verdict in pairs)
    expected = sum(labels[c] * verdicts[c] for c in labels) / (n * n)
    if expected >= 1.0:
        return 1.0 if observed >= 1.0 else 0.0
    return (observed - expected) / (1 - expected)


@dataclass(frozen=True)
class Judged:
    """One consultation as the judge saw it."""

    id: str
    kind: str  # original, twin or control
    tier: int
    overall: float
    labels: dict[str, str]
    verdicts: dict[str, str]
    """Only the criteria the judge ruled on (unjudged ones are left out)."""
    source: str | None = None
    family: str | None = None
    flips: tuple[str, ...] = ()


def pairs_of(
    items: Iterable[Judged], criteria: Iterable[str] | None = None
) -> list[tuple[str, str]]:
    """(label, verdict) for every judged criterion (of ``criteria`` if given) whose label is
    ``met`` or ``not_met``: where the clinicians found a criterion not relevant there is
    nothing to agree on (a class of one or two labels would otherwise weigh as much as the
    thousands of others in balanced accuracy)."""
    wanted = set(criteria) if criteria is not None else None
    return [
        (item.labels[c], verdict)
        for item in items
        for c, verdict in item.verdicts.items()
        if (wanted is None or c in wanted) and item.labels.get(c) in ("met", "not_met")
    ]


def tier_tau(items: Sequence[Judged]) -> float | None:
    """Kendall's tau-b between quality (minus the tier: 1 is best) and overall; 1.0 is a judge
    that orders consultations exactly as the tiers do."""
    if len({item.tier for item in items}) < 2:
        return None
    return kendall_tau_b([-item.tier for item in items], [item.overall for item in items])


def twin_detected(twin: Judged, original: Judged) -> bool:
    """The judge saw the change: every flipped criterion it ruled on now carries the twin's
    label, at least one of them changed from its ruling on the original, and overall fell."""
    ruled = [c for c in twin.flips if c in twin.verdicts and c in original.verdicts]
    if not ruled:
        return False
    follows = all(twin.verdicts[c] == twin.labels[c] for c in ruled)
    moved = any(twin.verdicts[c] != original.verdicts[c] for c in ruled)
    return follows and moved and twin.overall < original.overall


def sensitivity(items: Sequence[Judged]) -> tuple[float | None, dict[str, float]]:
    """Share of twins detected, overall and per change family."""
    by_id = {item.id: item for item in items}
    results: dict[str, list[bool]] = {}
    for twin in (item for item in items if item.kind == "twin"):
        original = by_id.get(twin.source or "")
        if original is None:
            continue
        results.setdefault(twin.family or "?", []).append(twin_detected(twin, original))
    every = [hit for hits in results.values() for hit in hits]
    share = sum(every) / len(every) if every else None
    return share, {family: sum(h) / len(h) for family, h in sorted(results.items())}


def stability(items: Sequence[Judged], within: float = STABLE_WITHIN) -> float | None:
    """Share of paraphrase controls whose overall stays within ``within`` of the original's."""
    by_id = {item.id: item for item in items}
    held = [
        abs(item.overall - by_id[item.source].overall) <= within
        for item in items
        if item.kind == "control" and item.source in by_id
    ]
    return sum(held) / len(held) if held else None
