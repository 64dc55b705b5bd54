#include "search_space/features.h"

#include <cmath>

#include "search_space/feature_math.h"

namespace crmap {

namespace {
constexpr size_t kExcluded = static_cast<size_t>(-1);
}

FeatureSpec::FeatureSpec(const Workload& workload, const SearchSpace& space, bool include_runtime_knobs) {
  for (const auto& [name, range] : workload.dims()) {
    dim_names_.push_back(name);
    features_.push_back({"dim." + name, std::log2(static_cast<double>(range.min)),
                         std::log2(static_cast<double>(range.max))});
  }
  for (const auto& knob : space.knobs()) {
    if (knob.scope == KnobScope::kRuntime && !include_runtime_knobs) {
      knob_offsets_.push_back(kExcluded);
      continue;
    }
    knob_offsets_.push_back(features_.size());
    for (const auto& value : knob.values) features_.push_back({"knob." + knob.name + "=" + value, 0, 1});
  }
}

void FeatureSpec::EncodeDims(const Dims& dims, float* out) const {
  for (size_t i = 0; i < dim_names_.size(); ++i) {
    const FeatureInfo& f = features_[i];
    auto it = dims.find(dim_names_[i]);
    out[i] = it == dims.end() ? 0.f : ScaledLogDim(it->second, f.lo, f.hi);
  }
}

void FeatureSpec::Encode(const Dims& dims, const Config& config, float* out) const {
  EncodeDims(dims, out);
  for (size_t i = dim_names_.size(); i < features_.size(); ++i) out[i] = 0.f;
  for (size_t k = 0; k < knob_offsets_.size(); ++k)
    if (knob_offsets_[k] != kExcluded) out[knob_offsets_[k] + config.values[k]] = 1.f;
}

std::vector<float> FeatureSpec::Encode(const Dims& dims, const Config& config) const {
  std::vector<float> out(features_.size());
  Encode(dims, config, out.data());
  return out;
}

}  // namespace crmap
