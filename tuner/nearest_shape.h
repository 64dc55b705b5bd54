// NearestShapes: the shape of a set nearest some dims by squared log2 distance over the asked dims (a dim a shape
// lacks counts as 1) — "the config of the nearest tuned shape", the lookup baseline of replay and serve's oracle
// mode. The log2 of every shape is computed once; Nearest is then a scan with no allocation. Immutable and
// thread-safe after construction.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "common/workload.h"

namespace crmap {

class NearestShapes {
 public:
  explicit NearestShapes(std::vector<Dims> shapes);  // at least one
  // Index into shapes() of the nearest (the first of equals).
  size_t Nearest(const Dims& dims) const;
  // Indices of the nearest and the next nearest (the first of equals first). Needs at least two shapes: with one
  // the second index is 1, out of range.
  std::pair<size_t, size_t> NearestTwo(const Dims& dims) const;
  // Squared log2 distance from shapes()[shape] to `dims` over the dims of `dims`.
  double SquaredDistance(size_t shape, const Dims& dims) const;
  const std::vector<Dims>& shapes() const { return shapes_; }

 private:
  std::vector<Dims> shapes_;
  std::vector<std::vector<std::pair<std::string, double>>> log2_;  // per shape, per dim (sorted by name)
};

// Whether `shape` lies beyond the range of `shapes`: some dim of it below the smallest or above the largest value
// that dim takes among them (a dim none of them has is not counted) — where a policy tuned on `shapes`
// extrapolates (`crmap evaluate` reports it per held-out shape). False when `shapes` is empty.
bool BeyondRangeOf(const Dims& shape, const std::vector<Dims>& shapes);

// Whether `shape` lies above the range of `shapes`: some dim above the largest value that dim takes among them,
// none below the smallest (a dim none of them has is not counted) — where a campaign's range probe measures
// (tuner/range_probe.h). False when `shapes` is empty.
bool AboveRangeOf(const Dims& shape, const std::vector<Dims>& shapes);

}  // namespace crmap
