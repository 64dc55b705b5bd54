// Range probe: how a campaign spends the share of its budget kept back for measuring above its tuned range
// (`crmap tune --probe-share`). A policy answers shapes beyond the range of the shapes it was tuned on with the
// labels it learned inside it, and there the thread count that wins can differ from every label's: on the bf16
// host dlrm_mlp's largest batches — the distribution's tail — ran 0.55-0.80 of the oracle because no campaign had
// measured its labels on two threads there (experiments/RESULTS.md, "Measuring the labels at every thread count at
// the support's extremes"). So after the search, a probe takes the shape of the distribution's pool farthest
// beyond the tuned range *above* and measures there every tuned shape's label at every thread count of the space:
// the probed shape becomes a table entry whose candidates are the labels the search chose. Never below the range:
// a small shape probed the same way became a table entry with a label no search chose (AVX2 bert_ffn tokens 5,
// 0.98 -> 0.68 of the oracle). Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <map>
#include <vector>

#include "search_space/search_space.h"
#include "tuner/config_scores.h"

namespace crmap {

// Shapes a share probes at most: the farthest above the range, then the next, if the share allows.
inline constexpr size_t kMaxRangeProbeShapes = 2;
// The pool a probe's shapes are chosen from: this many draws of the task's distribution with the campaign's seed
// (`crmap suggest`'s default pool).
inline constexpr size_t kRangeProbePool = 200;

// The shapes of `pool` above the range of `tuned` (tuner/nearest_shape.h: AboveRangeOf), farthest first by log2
// distance to the nearest tuned shape (tuner/nearest_shape.h), then in pool order; duplicates skipped.
std::vector<Dims> ShapesAboveRange(const std::vector<Dims>& tuned, const std::vector<Dims>& pool);

// What a probe measures at a shape: the labels of the `tuned` shapes (NoiseAwareLabel over `scores` with their
// record noise, EstimateRecordNoise, given the space — the trainer's rule), distinct, ordered by how many tuned
// shapes each labels (most first, then the config string); each at every value of the space's threads knob in the
// knob's order (the label alone with no threads knob); the default config left out (a campaign measures it beside
// every batch as the anchor) and every config once. Tuned shapes without scores label nothing.
std::vector<Config> RangeProbeConfigs(const SearchSpace& space, const std::map<Dims, ShapeScores>& scores,
                                      const std::vector<Dims>& tuned);

}  // namespace crmap
