#include "tuner/shape_suggestion.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "search_space/feature_math.h"
#include "tuner/nearest_shape.h"

namespace crmap {

namespace {

std::vector<float> Scaled(const PolicyFile& file, const std::vector<int64_t>& dims) {
  std::vector<float> out(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t value = std::clamp(dims[i], file.dims[i].min, file.dims[i].max);  // as the hook answers it
    out[i] = ScaledLogDim(value, file.features[i].lo, file.features[i].hi);
  }
  return out;
}

double Distance(const std::vector<float>& a, const std::vector<float>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(sum);
}

}  // namespace

std::vector<SuggestedShape> SuggestShapes(const PolicyModel& model, const std::vector<Dims>& pool, size_t count) {
  const PolicyFile& file = model.file();
  struct Candidate {
    SuggestedShape shape;
    std::vector<float> scaled;
    Dims answered;  // the policy's dims only, each clamped to its declared range: what the hook answers
  };
  auto answered_dims = [&file](const std::vector<int64_t>& values) {
    Dims dims;
    for (size_t i = 0; i < values.size(); ++i)
      dims[file.dims[i].name] = std::clamp(values[i], file.dims[i].min, file.dims[i].max);
    return dims;
  };
  std::vector<Candidate> candidates;
  std::set<std::vector<int64_t>> seen;
  for (const TableEntry& entry : file.table) seen.insert(entry.dims);
  for (const Dims& dims : pool) {
    std::vector<int64_t> values;
    for (const PolicyDim& dim : file.dims) {
      auto it = dims.find(dim.name);
      if (it == dims.end()) break;
      values.push_back(it->second);
    }
    if (values.size() != file.dims.size() || !seen.insert(values).second) continue;
    Candidate c;
    c.shape.dims = dims;
    c.scaled = Scaled(file, values);
    c.answered = answered_dims(values);
    std::vector<uint32_t> config(model.knob_count());
    model.Decide(values.data(), config.data(), &c.shape.confidence);
    model.SetRuntimeKnobs(config.data());
    c.shape.config = PolicyConfigString(file.knobs, config);
    c.shape.distance = std::numeric_limits<double>::infinity();
    for (const TableEntry& entry : file.table)
      c.shape.distance = std::min(c.shape.distance, Distance(c.scaled, Scaled(file, entry.dims)));
    candidates.push_back(std::move(c));
  }

  std::vector<Dims> covered;  // the tuned shapes, then each pick: the range a pick may lie beyond
  for (const TableEntry& entry : file.table) covered.push_back(answered_dims(entry.dims));
  std::vector<SuggestedShape> chosen;
  std::vector<bool> taken(candidates.size(), false);
  while (chosen.size() < count) {
    long best = -1;
    for (size_t i = 0; i < candidates.size(); ++i) {
      if (taken[i]) continue;
      SuggestedShape& a = candidates[i].shape;
      a.beyond_tuned_range = BeyondRangeOf(candidates[i].answered, covered);
      if (best < 0) {
        best = static_cast<long>(i);
        continue;
      }
      const SuggestedShape& b = candidates[static_cast<size_t>(best)].shape;
      if (a.beyond_tuned_range != b.beyond_tuned_range) {
        if (a.beyond_tuned_range) best = static_cast<long>(i);
      } else if (a.beyond_tuned_range) {  // the farthest extreme first, not one a step past the range
        if (a.distance > b.distance) best = static_cast<long>(i);
      } else if (a.confidence < b.confidence || (a.confidence == b.confidence && a.distance > b.distance)) {
        best = static_cast<long>(i);
      }
    }
    if (best < 0) break;
    taken[static_cast<size_t>(best)] = true;
    const Candidate& pick = candidates[static_cast<size_t>(best)];
    chosen.push_back(pick.shape);
    covered.push_back(pick.answered);
    for (size_t i = 0; i < candidates.size(); ++i) {
      SuggestedShape& other = candidates[i].shape;
      if (!taken[i]) other.distance = std::min(other.distance, Distance(candidates[i].scaled, pick.scaled));
    }
  }
  return chosen;
}

}  // namespace crmap
