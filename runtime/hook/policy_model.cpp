#include "runtime/hook/policy_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "search_space/feature_math.h"

namespace crmap {

namespace {

// Function multiversioning: an AVX2 clone picked at load time. Not under ThreadSanitizer, which instruments
// the clone resolvers GCC emits and crashes when they run before its runtime starts.
#if defined(__SANITIZE_THREAD__)
#define CRMAP_VECTOR_CLONES
#else
#define CRMAP_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#endif

// y = W x + b with W stored transposed ([in][out], see PolicyModel::Transposed): the inner loop runs over the
// outputs, so it vectorises without horizontal sums. The AVX2 clone is picked at load time on CPUs that have
// it; the library stays portable.
CRMAP_VECTOR_CLONES void Dense(const PolicyModel::Transposed& layer,
                                                              const float* __restrict x, float* __restrict y) {
  const uint32_t out = layer.out;
  const float* __restrict weights = layer.weights.data();
  std::memcpy(y, layer.bias.data(), out * sizeof(float));
  for (uint32_t i = 0; i < layer.in; ++i) {
    const float* __restrict column = weights + static_cast<size_t>(i) * out;
    const float xi = x[i];
    for (uint32_t o = 0; o < out; ++o) y[o] += column[o] * xi;
  }
}

// tanh over an array (vectorisable: no aliasing, no calls).
CRMAP_VECTOR_CLONES void TanhInto(const float* __restrict in, float* __restrict out,
                                                                 uint32_t n);

// tanh within 1.5e-7 of std::tanh over all floats (measured), ~10x faster: a [7/6] Pade approximant of
// tanh(x / 4), then tanh(2y) = 2 tanh(y) / (1 + tanh(y)^2) twice.
inline float FastTanh(float x) {
  float y = x * 0.25f;
  y = y > 4.5f ? 4.5f : y;
  y = y < -4.5f ? -4.5f : y;
  float y2 = y * y;
  float t = y * (135135.f + y2 * (17325.f + y2 * (378.f + y2))) /
            (135135.f + y2 * (62370.f + y2 * (3150.f + 28.f * y2)));
  t = 2.f * t / (1.f + t * t);
  return 2.f * t / (1.f + t * t);
}

CRMAP_VECTOR_CLONES void TanhInto(const float* __restrict in, float* __restrict out,
                                                                 uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) out[i] = FastTanh(in[i]);
}

}  // namespace

PolicyModel::Transposed PolicyModel::Transpose(const DenseLayer& layer) {
  Transposed t;
  t.in = layer.in;
  t.out = layer.out;
  t.bias = layer.bias;
  t.weights.resize(layer.weights.size());
  for (uint32_t o = 0; o < layer.out; ++o)
    for (uint32_t i = 0; i < layer.in; ++i) t.weights[static_cast<size_t>(i) * layer.out + o] = layer.weights[static_cast<size_t>(o) * layer.in + i];
  return t;
}

Result<std::unique_ptr<PolicyModel>> PolicyModel::Create(PolicyFile file) {
  CRMAP_RETURN_IF_ERROR(ValidatePolicyFile(file));
  std::unique_ptr<PolicyModel> model(new PolicyModel(std::move(file)));
  const PolicyFile& f = model->file_;
  size_t choice = 0, feature = f.dims.size();
  for (size_t k = 0; k < f.knobs.size(); ++k) {
    model->feature_offset_.push_back(f.knobs[k].plan ? feature : SIZE_MAX);
    if (!f.knobs[k].plan) {
      model->runtime_knobs_.push_back(k);
      continue;
    }
    model->plan_knobs_.push_back(k);
    model->choice_offset_.push_back(choice);
    choice += f.knobs[k].values.size();
    feature += f.knobs[k].values.size();
  }
  uint64_t size = 1;
  for (size_t k = 0; k < f.knobs.size(); ++k) {
    const PolicyKnob& knob = f.knobs[k];
    size_t longest = 0;
    for (const auto& v : knob.values) longest = std::max(longest, v.size());
    model->max_config_length_ += (k ? 1 : 0) + knob.name.size() + 1 + longest;
    if (size > UINT64_MAX / knob.values.size()) model->ids_fit_ = false;
    size *= knob.values.size();
  }
  // The critic re-ranks the measured configs (table and fallback) against the policy's own choice; a config
  // holding a value the mask forbids is never offered, so a decision away from the table obeys the mask.
  auto offer = [&f, &candidates = model->candidates_](const std::vector<uint32_t>& config) {
    for (size_t k = 0; k < config.size(); ++k)
      if (!f.mask[k][config[k]]) return;
    if (std::find(candidates.begin(), candidates.end(), config) == candidates.end()) candidates.push_back(config);
  };
  for (const auto& entry : f.table) offer(entry.config);
  offer(f.fallback);
  model->trunk1_ = Transpose(f.policy.trunk1);
  model->critic1_ = Transpose(f.critic.layer1);
  for (const auto& candidate : model->candidates_) {
    std::vector<float> rows(model->critic1_.out, 0.f);
    model->AddCriticKnobRows(candidate.data(), rows.data());
    model->candidate_rows_.push_back(rows);
  }
  model->trunk2_ = Transpose(f.policy.trunk2);
  for (const auto& head : f.policy.heads) model->heads_.push_back(Transpose(head));
  model->critic2_ = Transpose(f.critic.layer2);
  model->critic3_ = Transpose(f.critic.layer3);
  model->table_order_.resize(f.table.size());
  for (uint32_t i = 0; i < f.table.size(); ++i) model->table_order_[i] = i;
  std::sort(model->table_order_.begin(), model->table_order_.end(),
            [&](uint32_t a, uint32_t b) { return f.table[a].dims < f.table[b].dims; });
  for (size_t i = 1; i < model->table_order_.size(); ++i)
    if (f.table[model->table_order_[i]].dims == f.table[model->table_order_[i - 1]].dims)
      return Status::Corruption("the policy table lists a shape twice");
  return model;
}

long PolicyModel::FindTableEntry(const int64_t* dims) const {
  const size_t n = file_.dims.size();
  auto less = [&](uint32_t index, const int64_t* key) {
    return std::lexicographical_compare(file_.table[index].dims.begin(), file_.table[index].dims.end(), key, key + n);
  };
  auto it = std::lower_bound(table_order_.begin(), table_order_.end(), dims, less);
  if (it == table_order_.end() || !std::equal(file_.table[*it].dims.begin(), file_.table[*it].dims.end(), dims))
    return -1;
  return static_cast<long>(*it);
}

void PolicyModel::DimFeatures(const int64_t* dims, float* out) const {
  // Outside its declared range a dim is answered as the nearest value inside it: the networks and the latency
  // model are not extrapolated (a dim of 2^62 would otherwise predict 10^14 us).
  for (size_t i = 0; i < file_.dims.size(); ++i) {
    const int64_t value = std::clamp(dims[i], file_.dims[i].min, file_.dims[i].max);
    out[i] = ScaledLogDim(value, file_.features[i].lo, file_.features[i].hi);
  }
}

double PolicyModel::Decide(const int64_t* dims, uint32_t* config) const {
  DecodeGreedy(dims, config);
  const uint32_t hidden = critic1_.out;
  float common[kMaxHidden], layer1[kMaxHidden];
  CriticDimPart(dims, common);
  std::memcpy(layer1, common, hidden * sizeof(float));
  AddCriticKnobRows(config, layer1);
  double best = CriticFromLayer1(layer1);
  long choice = -1;
  for (size_t c = 0; c < candidates_.size(); ++c) {
    const float* rows = candidate_rows_[c].data();
    for (uint32_t o = 0; o < hidden; ++o) layer1[o] = common[o] + rows[o];
    double predicted = CriticFromLayer1(layer1);
    if (predicted > best) {
      best = predicted;
      choice = static_cast<long>(c);
    }
  }
  if (choice >= 0) std::copy(candidates_[choice].begin(), candidates_[choice].end(), config);
  return best;
}

void PolicyModel::DecodeGreedy(const int64_t* dims, uint32_t* config) const {
  const uint32_t hidden = trunk1_.out;
  const size_t dim_count = file_.dims.size();
  float features[kMaxPolicyDims];
  DimFeatures(dims, features);
  for (size_t k = 0; k < file_.knobs.size(); ++k) config[k] = file_.knobs[k].default_index;

  // First layer pre-activation for "no choice made yet"; each choice then adds one weight column (a row of
  // the transposed matrix).
  float pre[kMaxHidden], h1[kMaxHidden], h2[kMaxHidden], h3[kMaxHidden], logits[kMaxKnobValues];
  std::memcpy(pre, trunk1_.bias.data(), hidden * sizeof(float));
  for (size_t i = 0; i < dim_count; ++i) {
    const float* row = trunk1_.weights.data() + i * hidden;
    for (uint32_t o = 0; o < hidden; ++o) pre[o] += row[o] * features[i];
  }
  for (size_t p = 0; p < plan_knobs_.size(); ++p) {
    const size_t k = plan_knobs_[p];
    TanhInto(pre, h1, hidden);
    Dense(trunk2_, h1, h2);
    TanhInto(h2, h3, hidden);
    const Transposed& head = heads_[p];
    Dense(head, h3, logits);
    const std::vector<uint8_t>& allowed = file_.mask[k];
    long best = -1;
    for (uint32_t v = 0; v < head.out; ++v)
      if (allowed[v] && (best < 0 || logits[v] > logits[best])) best = v;
    if (best >= 0) config[k] = static_cast<uint32_t>(best);  // everything masked: keep the default
    const float* row = trunk1_.weights.data() + (dim_count + choice_offset_[p] + config[k]) * hidden;
    for (uint32_t o = 0; o < hidden; ++o) pre[o] += row[o];
  }
}

void PolicyModel::CriticDimPart(const int64_t* dims, float* out) const {
  const uint32_t hidden = critic1_.out;
  float features[kMaxPolicyDims];
  DimFeatures(dims, features);
  std::memcpy(out, critic1_.bias.data(), hidden * sizeof(float));
  for (size_t i = 0; i < file_.dims.size(); ++i) {
    const float* row = critic1_.weights.data() + i * hidden;
    for (uint32_t o = 0; o < hidden; ++o) out[o] += row[o] * features[i];
  }
}

void PolicyModel::AddCriticKnobRows(const uint32_t* config, float* layer1) const {
  const uint32_t hidden = critic1_.out;
  for (size_t k = 0; k < file_.knobs.size(); ++k) {
    if (feature_offset_[k] == SIZE_MAX) continue;
    const float* row = critic1_.weights.data() + (feature_offset_[k] + config[k]) * hidden;
    for (uint32_t o = 0; o < hidden; ++o) layer1[o] += row[o];
  }
}

double PolicyModel::CriticFromLayer1(const float* layer1) const {
  // The input is the dim features plus a one-hot per plan knob, so the first layer is a sum of weight rows.
  const uint32_t hidden = critic1_.out;
  float a[kMaxHidden], b[kMaxHidden], out[1];
  for (uint32_t i = 0; i < hidden; ++i) a[i] = std::max(0.f, layer1[i]);
  Dense(critic2_, a, b);
  for (uint32_t i = 0; i < critic2_.out; ++i) b[i] = std::max(0.f, b[i]);
  Dense(critic3_, b, out);
  return out[0];
}

double PolicyModel::PredictLogSpeedup(const int64_t* dims, const uint32_t* config) const {
  float layer1[kMaxHidden];
  CriticDimPart(dims, layer1);
  AddCriticKnobRows(config, layer1);
  return CriticFromLayer1(layer1);
}

double PolicyModel::PredictLatencyUs(const int64_t* dims, const uint32_t* config) const {
  return LatencyFromLogSpeedup(dims, PredictLogSpeedup(dims, config));
}

double PolicyModel::LatencyFromLogSpeedup(const int64_t* dims, double log_speedup) const {
  float features[kMaxPolicyDims];
  DimFeatures(dims, features);
  double log_default = file_.latency_model.back();
  for (size_t i = 0; i < file_.dims.size(); ++i) log_default += file_.latency_model[i] * features[i];
  return std::exp(log_default - log_speedup);
}

uint64_t PolicyModel::ConfigId(const uint32_t* config) const {
  uint64_t id = 0, radix = 1;
  for (size_t k = 0; k < file_.knobs.size(); ++k) {
    id += radix * config[k];
    radix *= file_.knobs[k].values.size();
  }
  return id;
}

void PolicyModel::ConfigFromId(uint64_t id, uint32_t* config) const {
  for (size_t k = 0; k < file_.knobs.size(); ++k) {
    config[k] = static_cast<uint32_t>(id % file_.knobs[k].values.size());
    id /= file_.knobs[k].values.size();
  }
}

size_t PolicyModel::FormatConfig(const uint32_t* config, char* buffer, size_t capacity) const {
  size_t length = 0;
  auto append = [&](const std::string& s) {
    if (length + s.size() + 1 > capacity) return false;
    std::memcpy(buffer + length, s.data(), s.size());
    length += s.size();
    return true;
  };
  for (size_t k = 0; k < file_.knobs.size(); ++k) {
    const PolicyKnob& knob = file_.knobs[k];
    if ((k && !append(";")) || !append(knob.name) || !append("=") || !append(knob.values[config[k]])) {
      if (capacity) buffer[0] = '\0';
      return 0;
    }
  }
  buffer[length] = '\0';
  return length;
}

}  // namespace crmap
