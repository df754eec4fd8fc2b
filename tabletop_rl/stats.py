"""Statistics the suite reports: the Wilson score interval of a win share.

One definition for the arena, training's evaluations and the benchmarks: z = 1.959963984540054
(the exact two-sided 95% normal quantile); `successes` may be fractional (a shared win counts 1/k
to each of the k winners); with no games (n = 0) nothing is known and the interval is the whole
[0, 1]; a negative n, or successes outside 0..n, raises ValueError.
"""
from __future__ import annotations

import math

Z95 = 1.959963984540054

__all__ = ["Z95", "wilson_interval"]


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval (low, high) for the proportion successes / n."""
    if n < 0:
        raise ValueError(f"n must be >= 0; got {n}")
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be in 0..n={n}; got {successes}")
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    # Exact ends: at p = 0 the lower bound is 0 and at p = 1 the upper bound is 1 (rounding would
    # otherwise leave ~1e-17 there, an interval that misses its own estimate).
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high
