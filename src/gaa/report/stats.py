"""Small statistics for reports: a summary with a 95% interval, and an exact paired sign test.

No SciPy: the t quantiles come from a table (df 1-30, then the normal value), and the sign test
is an exact binomial sum.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist, fmean, stdev

from gaa._stats import mcnemar_exact

_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip
"""Two-sided 95% quantiles of Student's t for 1 to 30 degrees of freedom."""


def t975(df: int) -> float:
    """The 97.5th percentile of Student's t with ``df`` degrees of freedom."""
    if df < 1:
        return math.nan
    if df <= len(_T975):
        return _T975[df - 1]
    return NormalDist().inv_cdf(0.975) * (1 + 1 / (4 * df))  # close for df > 30


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


def summarise(values: list[float]) -> Summary:
    """The summary of ``values``; the interval is the t interval of the mean."""
    n = len(values)
    if n == 0:
        return Summary(0, math.nan, math.nan, math.nan, math.nan, math.nan, math.nan)
    mean = fmean(values)
    if n == 1:
        return Summary(1, mean, math.nan, values[0], values[0], math.nan, math.nan)
    sd = stdev(values)
    half = t975(n - 1) * sd / math.sqrt(n)
    return Summary(n, mean, sd, min(values), max(values), mean - half, mean + half)


def sign_test(differences: list[float]) -> float:
    """Exact two-sided sign test p-value for paired differences (ties dropped); 1.0 if none.
    It is McNemar's exact test on the counts of positive and negative differences."""
    return mcnemar_exact(sum(d > 0 for d in differences), sum(d < 0 for d in differences))
