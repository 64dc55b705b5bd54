// QuantileShapes: the shapes a campaign tunes, one per equal share of a distribution's mass (a Latin hypercube
// over its dims).
//
// Random draws leave the tuned range wherever they happen to fall: a new draw lies beyond the smallest or largest of
// n drawn values of a dim with probability 2 / (n + 1) (22% at 8), and held-out shapes beyond the tuned range are
// where a policy extrapolates and misses most (experiments/RESULTS.md, "Evaluations that state their
// reproducibility"). CoveringShapes and EdgesFirstShapes (shape_cover.h) reach the support's extremes but count
// every distinct shape once, so the shapes where the mass is get fewer tuned shapes near them. QuantileShapes keeps
// the mass: for each dim, the values at the quantiles (i + 0.5) / n of QuantilePoolDraws(n) draws of that dim
// (duplicates kept, so a common value weighs as often as it is drawn) — a new draw then lies beyond their range
// with probability about 1 / n per dim (at most that for a dim of few values; a shape of d dims about d / n, the
// way evaluate's beyond_tuned_range counts it) — and the dims are paired by a seeded shuffle (dims are independent
// in a distribution, so every pairing lies in its support). Neighbouring quantiles may be one value (a dim of few
// values, or integers rounded near a narrow median), so two pairings can coincide: the shape is then kept once and
// distinct draws of the distribution fill the places, in draw order.
//
// Deterministic for a seed; draws only through the distribution's portable rules (distribution.h). Pure;
// thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/workload.h"
#include "datasets/distribution.h"

namespace crmap {

// Draws of each dim the quantiles are read from: kQuantilePoolDraws, or 16 per shape when n asks for more.
inline constexpr size_t kQuantilePoolDraws = 4096;
inline size_t QuantilePoolDraws(size_t n) { return n > kQuantilePoolDraws / 16 ? 16 * n : kQuantilePoolDraws; }

// n distinct shapes (fewer only if the distribution has fewer distinct shapes than its draws find); 0 gives none.
std::vector<Dims> QuantileShapes(const ShapeDistribution& distribution, size_t n, uint64_t seed);

// Each dim's values at the quantiles (i + 0.5) / n, ascending, from the same draws QuantileShapes reads; exposed
// for tests and reports.
std::map<std::string, std::vector<int64_t>> DimQuantiles(const ShapeDistribution& distribution, size_t n,
                                                         uint64_t seed);

}  // namespace crmap
