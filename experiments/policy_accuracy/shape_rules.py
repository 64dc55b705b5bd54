"""The shape rules of tuner/nearest_shape.h, for the experiment scripts that read stored results.

beyond_range: whether a shape lies beyond the range of tuned shapes (BeyondRangeOf): some dim below the smallest or
above the largest value the tuned shapes give it (a dim no tuned shape has is not judged).
log2_distance: the squared log2 distance over the asked dims, a dim the other shape lacks counting as 1 (the
distance NearestShapes ranks by).
"""
import math


def beyond_range(dims, tuned):
    """`dims` ({name: value}) against `tuned` (a list of such dicts)."""
    for name, value in dims.items():
        values = [shape[name] for shape in tuned if name in shape]
        if values and (value < min(values) or value > max(values)):
            return True
    return False


def log2_distance(values, dims):
    """From a shape `values` ({name: value}) to the asked `dims`, over the dims asked."""
    return sum((math.log2(values.get(name, 1)) - math.log2(value)) ** 2 for name, value in dims.items())
