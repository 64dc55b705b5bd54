// FeatureSpec: the numeric encoding of (dims, config) that learners train on and the runtime hook evaluates.
//
// Defined once here and shared by the exporter and the hook (the MLGO rule: the model file carries its
// feature spec and the loader checks it). Layout of a feature vector:
//   one feature per workload dim: log2(value) scaled to [0, 1] over the dim's declared range;
//   one-hot per knob value of the chosen scope(s), in knob order.
// Immutable after construction; Encode is const, allocation-free when given an output buffer, thread-safe.
#pragma once

#include <string>
#include <vector>

#include "common/workload.h"
#include "search_space/search_space.h"

namespace crmap {

struct FeatureInfo {
  std::string name;  // "dim.tokens" or "knob.precision=bf16"
  double lo = 0;     // dims: log2(min); knobs: unused
  double hi = 1;     // dims: log2(max)
};

class FeatureSpec {
 public:
  FeatureSpec(const Workload& workload, const SearchSpace& space, bool include_runtime_knobs = false);

  const std::vector<FeatureInfo>& features() const { return features_; }
  size_t size() const { return features_.size(); }
  size_t dim_feature_count() const { return dim_names_.size(); }

  // Writes size() features into `out` (which must hold that many floats).
  void Encode(const Dims& dims, const Config& config, float* out) const;
  std::vector<float> Encode(const Dims& dims, const Config& config) const;
  // Only the dim features (the shape-conditioning part), dim_feature_count() values.
  void EncodeDims(const Dims& dims, float* out) const;

 private:
  std::vector<FeatureInfo> features_;
  std::vector<std::string> dim_names_;
  std::vector<size_t> knob_offsets_;  // first one-hot slot of each knob, or npos for excluded knobs
};

}  // namespace crmap
