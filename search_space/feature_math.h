// The arithmetic of shape features, in one header-only place so that the training side (FeatureSpec) and the
// runtime hook (which must not link the search space's JSON and workload code) compute bit-identical values.
#pragma once

#include <cmath>
#include <cstdint>

namespace crmap {

// log2(value) scaled to [0, 1] over log2 of a dim's declared range: lo = log2(min), hi = log2(max).
// Values are clamped to at least 1; a zero-width range maps to 0.
inline float ScaledLogDim(int64_t value, double lo, double hi) {
  double v = std::log2(static_cast<double>(value < 1 ? 1 : value));
  double span = hi - lo;
  return span > 0 ? static_cast<float>((v - lo) / span) : 0.f;
}

}  // namespace crmap
