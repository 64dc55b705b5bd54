"""The shape rules of tuner/nearest_shape.h, for the experiment scripts that read stored results.

beyond_range: whether a shape lies beyond the range of tuned shapes (BeyondRangeOf): some dim below the smallest or
above the largest value the tuned shapes give it (a dim no tuned shape has is not judged).
above_range: whether it lies above that range (AboveRangeOf): some dim above its largest tuned value, none below its
smallest — where `crmap tune --probe-share` probes (tuner/range_probe.h).
log2_distance: the squared log2 distance over the asked dims, a dim the other shape lacks counting as 1 (the
distance NearestShapes ranks by).
"""
import math


def _sides(dims, tuned):
    """Per dim of `dims` that some tuned shape has: -1 below the tuned range, 1 above it, 0 inside."""
    sides = []
    for name, value in dims.items():
        values = [shape[name] for shape in tuned if name in shape]
        if values:
            sides.append(-1 if value < min(values) else 1 if value > max(values) else 0)
    return sides


def beyond_range(dims, tuned):
    """`dims` ({name: value}) against `tuned` (a list of such dicts)."""
    return any(side != 0 for side in _sides(dims, tuned))


def above_range(dims, tuned):
    """`dims` ({name: value}) above the range of `tuned` (a list of such dicts)."""
    sides = _sides(dims, tuned)
    return 1 in sides and -1 not in sides


def log2_distance(values, dims):
    """From a shape `values` ({name: value}) to the asked `dims`, over the dims asked."""
    return sum((math.log2(values.get(name, 1)) - math.log2(value)) ** 2 for name, value in dims.items())
