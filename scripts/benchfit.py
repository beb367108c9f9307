"""benchfit.py - the curve fit the bench scripts share.

loglog_slope(): the least-squares slope of log(y) over log(x), the number
docs/results/targets.md, docs/results/scale.md and docs/results/results.md call a curve's slope
(1 = linear, 0 = flat).
"""
import math


def loglog_slope(pts):
    """pts: (x, y) pairs; None with fewer than 3 positive points or no spread in x."""
    pts = [(math.log(x), math.log(y)) for x, y in pts if x > 0 and y > 0]
    if len(pts) < 3:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sxx if sxx else None
