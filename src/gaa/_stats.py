"""Small statistics the reports need, without a SciPy dependency."""

from __future__ import annotations

from math import comb


def mcnemar_exact(only_first_right: int, only_second_right: int) -> float:
    """Two-sided exact McNemar p-value from the discordant pair counts.

    Under the null hypothesis each discordant pair is equally likely to favour either system,
    so the smaller count follows Binomial(b + c, 1/2); the p-value doubles its lower tail
    (capped at 1).
    """
    n = only_first_right + only_second_right
    if n == 0:
        return 1.0
    k = min(only_first_right, only_second_right)
    tail: float = sum(comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2.0 * tail)
