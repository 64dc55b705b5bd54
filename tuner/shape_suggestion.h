// Shape suggestion: where a campaign should measure next, chosen with the policy it would improve
// (`crmap suggest`). Active learning over a shape distribution's support: among a pool of shapes drawn from it,
// first those beyond the tuned range (some dim below the smallest or above the largest value the tuned and
// already-suggested shapes give it: there the critics extrapolate, and the confidence they state is too high —
// experiments/RESULTS.md, "The confidence, checked against confirmed held-out results"; the farthest first), then
// those the policy
// states the least confidence in (policy_model.h: Decide's confidence — calibrated by leaving
// each tuned shape out, policy-format.md), ties broken by the distance to the nearest shape already tuned (the
// policy's table) or already suggested, in the dims' scaled log space the networks see — so K suggestions spread
// over the support where the policy is unsure instead of clustering, and with no confidence (a policy without
// critic members) the rule is plain farthest-point coverage. Shapes in the table are never suggested.
// Pure; thread-safe (PolicyModel is immutable).
#pragma once

#include <string>
#include <vector>

#include "common/workload.h"
#include "runtime/hook/policy_model.h"

namespace crmap {

// One suggestion: the shape, what the policy says there now, and how far it is from what was tuned.
struct SuggestedShape {
  Dims dims;
  double confidence = -1;  // the policy's confidence in its decision there (-1 unknown)
  // To the nearest tuned or earlier-suggested shape, in scaled log dims (Euclidean; dims clamped to their declared
  // ranges, as the hook answers them); infinite when there is neither.
  double distance = 0;
  // Beyond the range of the tuned and earlier-suggested shapes when it was picked (tuner/nearest_shape.h:
  // BeyondRangeOf).
  bool beyond_tuned_range = false;
  std::string config;      // the policy's decision there
};

// Up to `count` shapes of `pool` (each holding every dim of the policy; duplicates and tuned shapes skipped), in
// the order chosen, by one key: beyond the range of the tuned and earlier picks (dims clamped to their declared
// ranges, as the hook answers them) before inside it; among those beyond, the largest distance; among those
// inside, the lowest confidence, then the largest distance; then the earliest in the pool. So the pool's untuned
// extremes come first, the farthest of them first, then the least confident shapes inside the range.
std::vector<SuggestedShape> SuggestShapes(const PolicyModel& model, const std::vector<Dims>& pool, size_t count);

}  // namespace crmap
