"""The geometric mean the experiment scripts summarise ratios with (policy / oracle, B / A, one rule over another).

geometric_mean: exp of the mean log of the values, each floored at `floor` (a ratio of 0 — in an evaluation, a pick
that failed in the sweep or the confirmation run — counts as the floor instead of ending the script); NaN for no
values, so a table prints "nan" for an empty group rather than failing.
"""
import math


def geometric_mean(values, floor=1e-6):
    values = list(values)
    if not values:
        return float("nan")
    return math.exp(sum(math.log(max(v, floor)) for v in values) / len(values))
