"""Small statistics for reports: a summary with a 95% interval that stays inside the scale, an
exact paired sign test, and a test-retest figure for repeated runs (epochs).

The interval is a percentile bootstrap of the mean over the units given (personas, in a
report): it cannot leave the range of the values, so never the scale, where a t interval on
bounded, skewed scores does (95.3-101.4 on 0-100). No SciPy: the bootstrap uses NumPy with a
fixed seed (the same logs give the same report), and the sign test is an exact binomial sum.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import fmean, stdev

from gaa._stats import mcnemar_exact


@dataclass(frozen=True)
class Summary:
    """Mean, standard deviation, range and 95% interval of one metric (NaN where undefined)."""

    n: int
    mean: float
    sd: float
    min: float
    max: float
    low: float
    high: float

    def as_dict(self) -> dict[str, float | int | None]:
        def clean(value: float) -> float | None:
            return None if math.isnan(value) else value

        return {
            "n": self.n,
            "mean": clean(self.mean),
            "sd": clean(self.sd),
            "min": clean(self.min),
            "max": clean(self.max),
            "ci95_low": clean(self.low),
            "ci95_high": clean(self.high),
        }


BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20261126


def bootstrap_interval(values: list[float], level: float = 0.95) -> tuple[float, float]:
    """The percentile bootstrap interval of the mean of ``values`` (resampled with a fixed
    seed): always inside ``[min(values), max(values)]``; NaN for fewer than two values."""
    if len(values) < 2:
        return math.nan, math.nan
    import numpy

    data = numpy.asarray(values, dtype=float)
    rng = numpy.random.default_rng(BOOTSTRAP_SEED)
    picks = rng.integers(0, len(data), size=(BOOTSTRAP_RESAMPLES, len(data)))
    means = data[picks].mean(axis=1)
    tail = (1 - level) / 2
    low, high = numpy.quantile(means, [tail, 1 - tail])
    return max(float(low), float(data.min())), min(float(high), float(data.max()))


def summarise(values: list[float]) -> Summary:
    """The summary of ``values``; the interval is the percentile bootstrap interval of the mean
    (:func:`bootstrap_interval`), so it stays inside the values' range."""
    n = len(values)
    if n == 0:
        return Summary(0, math.nan, math.nan, math.nan, math.nan, math.nan, math.nan)
    mean = fmean(values)
    if n == 1:
        return Summary(1, mean, math.nan, values[0], values[0], math.nan, math.nan)
    low, high = bootstrap_interval(values)
    return Summary(n, mean, stdev(values), min(values), max(values), low, high)


@dataclass(frozen=True)
class Reliability:
    """How well repeated runs (epochs) of the same personas agree on overall.

    ``icc`` is ICC(2,1) (Shrout and Fleiss: two-way random effects, absolute agreement, a
    single run): the share of the variance in one run's scores that is real difference between
    personas rather than run-to-run noise; 1 is perfect agreement. ``within_sd`` is the mean,
    over personas, of the standard deviation of a persona's overall across epochs."""

    personas: int
    epochs: int
    icc: float
    within_sd: float


def icc_2_1(matrix: list[list[float]]) -> float:
    """ICC(2,1) of a table with one row per subject (persona) and one column per rater (epoch);
    NaN when undefined (fewer than two rows or columns, or no variance at all)."""
    n = len(matrix)
    k = len(matrix[0]) if matrix else 0
    if n < 2 or k < 2 or any(len(row) != k for row in matrix):
        return math.nan
    grand = fmean(value for row in matrix for value in row)
    row_means = [fmean(row) for row in matrix]
    col_means = [fmean(row[j] for row in matrix) for j in range(k)]
    ss_rows = k * sum((m - grand) ** 2 for m in row_means)
    ss_cols = n * sum((m - grand) ** 2 for m in col_means)
    ss_total = sum((value - grand) ** 2 for row in matrix for value in row)
    ss_error = ss_total - ss_rows - ss_cols
    ms_rows = ss_rows / (n - 1)
    ms_cols = ss_cols / (k - 1)
    ms_error = ss_error / ((n - 1) * (k - 1))
    denominator = ms_rows + (k - 1) * ms_error + k * (ms_cols - ms_error) / n
    if denominator <= 0:
        return math.nan
    return (ms_rows - ms_error) / denominator


def reliability(repeats: dict[str, list[float]]) -> Reliability | None:
    """Test-retest agreement of the personas scored in every epoch (``repeats``: persona ->
    overall per epoch); None when no persona was scored more than once."""
    most = max((len(values) for values in repeats.values()), default=0)
    if most < 2:
        return None
    complete = [values for values in repeats.values() if len(values) == most]
    return Reliability(
        personas=len(complete),
        epochs=most,
        icc=icc_2_1(complete),
        within_sd=fmean(stdev(values) for values in complete),
    )


def sign_test(differences: list[float]) -> float:
    """Exact two-sided sign test p-value for paired differences (ties dropped); 1.0 if none.
    It is McNemar's exact test on the counts of positive and negative differences."""
    return mcnemar_exact(sum(d > 0 for d in differences), sum(d < 0 for d in differences))
