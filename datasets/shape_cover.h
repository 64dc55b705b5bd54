// CoveringShapes, EdgesFirstShapes: the shapes a campaign tunes, chosen to cover a distribution's support instead of
// drawn from it.
//
// Random draws concentrate where a distribution's mass is: eight draws of decode batch sizes (lognormal, median
// 6, up to 64) seldom include one above 20, and a policy tuned on them extrapolates to the large shapes — the
// ones that take longest and set the tail. CoveringShapes draws a pool of shapes, keeps the distinct ones and
// chooses n of them that minimise the mean distance from every distinct pool shape to its nearest chosen shape
// (k-medoids: greedy picks, then single swaps while one lowers the mean, at most 8 passes: a local optimum, not
// always the global one). Distance is Euclidean over the dims
// in log2 — the distance of the "nearest tuned shape" baseline and of the policy's table lookup. Each distinct
// shape counts once, however often it was drawn, so rare large shapes are covered as well as common ones; the
// pool's size bounds how rare: a shape much less likely than 1 in the pool's draws seldom enters it.
//
// Deterministic for a seed (the pool comes from SampleDistinct's generator rule). Pure; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/workload.h"
#include "datasets/distribution.h"

namespace crmap {

// The pool: kCoverPoolDrawsPerShape x n draws, at least kCoverPoolMinDraws, at most kCoverPoolMaxDraws; and the
// most shapes a cover chooses. Each swap pass costs n x (n + pool) x pool distance look-ups (about 7e7 at the
// caps, a fraction of a second), the pairwise distances pool^2 doubles (8 MiB at the cap).
inline constexpr size_t kCoverPoolDrawsPerShape = 32;
inline constexpr size_t kCoverPoolMinDraws = 256;
inline constexpr size_t kCoverPoolMaxDraws = 1024;
inline constexpr size_t kMaxCoveringShapes = 64;

// n shapes (all distinct shapes of the pool, in draw order, if it has n or fewer). n must be <=
// kMaxCoveringShapes (callers check and say so; more are cut to it); 0 gives none.
std::vector<Dims> CoveringShapes(const ShapeDistribution& distribution, size_t n, uint64_t seed);

// Edges first: the pool's shapes with the smallest and the largest value of each dim (dims by name; the first such
// shape in pool order; each once), then the cover's medoids around them — held-out shapes then seldom lie beyond
// the tuned range, where a policy (and the nearest-tuned-shape lookup) extrapolates. If the edges alone are n or
// more, the first n of them (each dim's smallest, then largest, dims by name). n as in CoveringShapes.
std::vector<Dims> EdgesFirstShapes(const ShapeDistribution& distribution, size_t n, uint64_t seed);

// The pool indices of the edge shapes EdgesFirstShapes starts from; exposed for tests.
std::vector<size_t> EdgeShapeIndices(const std::vector<Dims>& pool);

// The mean over `pool` of the distance from each shape to its nearest shape in `chosen` (log2 dims, Euclidean;
// dims missing from a shape count as 1). What CoveringShapes minimises; exposed for tests and reports.
double MeanCoverDistance(const std::vector<Dims>& pool, const std::vector<Dims>& chosen);

}  // namespace crmap
