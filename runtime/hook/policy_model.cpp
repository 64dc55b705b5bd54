#include "runtime/hook/policy_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/two_nearest.h"
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
  // The critic re-ranks the measured configs (table, fallback, incumbent) against the policy's own choice; a config
  // holding a value the mask forbids is never offered, so a decision away from the table obeys the mask.
  auto offer = [&f, &candidates = model->candidates_](const std::vector<uint32_t>& config) {
    for (size_t k = 0; k < config.size(); ++k)
      if (!f.mask[k][config[k]]) return;
    if (std::find(candidates.begin(), candidates.end(), config) == candidates.end()) candidates.push_back(config);
  };
  for (const auto& entry : f.table) offer(entry.config);
  offer(f.fallback);
  if (!f.incumbent.empty()) {  // the incumbent is screened too; one the mask forbids is never kept
    offer(f.incumbent);
    auto found = std::find(model->candidates_.begin(), model->candidates_.end(), f.incumbent);
    if (found != model->candidates_.end()) model->incumbent_index_ = found - model->candidates_.begin();
    model->switch_log_margin_ = std::log1p(static_cast<double>(f.switch_margin));
  }
  for (const auto& entry : f.table) {
    auto found = std::find(model->candidates_.begin(), model->candidates_.end(), entry.config);
    model->table_candidate_.push_back(found == model->candidates_.end() ? -1 : found - model->candidates_.begin());
    for (int64_t value : entry.dims)
      model->table_log2_.push_back(std::log2(static_cast<double>(std::max<int64_t>(value, 1))));
  }
  model->trunk1_ = Transpose(f.policy.trunk1);
  std::vector<const CriticWeights*> critics = {&f.critic};
  for (const auto& member : f.critic_members) critics.push_back(&member);
  for (const CriticWeights* weights : critics) {
    Critic critic;
    critic.layer1 = Transpose(weights->layer1);
    critic.layer2 = Transpose(weights->layer2);
    critic.layer3 = Transpose(weights->layer3);
    for (const auto& candidate : model->candidates_) {
      std::vector<float> rows(critic.layer1.out, 0.f);
      model->AddCriticKnobRows(critic, candidate.data(), rows.data());
      critic.candidate_rows.push_back(rows);
    }
    model->critics_.push_back(std::move(critic));
  }
  model->trunk2_ = Transpose(f.policy.trunk2);
  for (const auto& head : f.policy.heads) model->heads_.push_back(Transpose(head));
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

long PolicyModel::IncumbentAt(const int64_t* dims) const {
  if (!file_.neighbour_incumbent) return incumbent_index_;
  const size_t n = file_.dims.size();
  double query[kMaxPolicyDims];
  // As the networks see them (DimFeatures): a dim beyond its declared range counts as the nearest value inside it.
  for (size_t i = 0; i < n; ++i) {
    const int64_t value = std::clamp(dims[i], file_.dims[i].min, file_.dims[i].max);
    query[i] = std::log2(static_cast<double>(std::max<int64_t>(value, 1)));
  }
  // The two nearest entries not at `dims` (the first of equals, in table order).
  TwoNearest nearest;
  for (size_t e = 0; e < file_.table.size(); ++e) {
    if (std::equal(file_.table[e].dims.begin(), file_.table[e].dims.end(), dims)) continue;
    const double* log2 = table_log2_.data() + e * n;
    double distance = 0;
    for (size_t i = 0; i < n; ++i) distance += (log2[i] - query[i]) * (log2[i] - query[i]);
    nearest.Offer(static_cast<long>(e), distance);
  }
  if (nearest.second < 0) return incumbent_index_;
  const long shared = table_candidate_[static_cast<size_t>(nearest.first)];
  return shared >= 0 && shared == table_candidate_[static_cast<size_t>(nearest.second)] ? shared : incumbent_index_;
}

double PolicyModel::Decide(const int64_t* dims, uint32_t* config, double* confidence) const {
  uint32_t greedy[kMaxPolicyKnobs];
  DecodeGreedy(dims, greedy);
  return Screen(dims, greedy, nullptr, config, confidence);
}

double PolicyModel::ConfidenceOf(const int64_t* dims, const uint32_t* config) const {
  if (critics_.size() < 2) return -1;
  uint32_t greedy[kMaxPolicyKnobs];
  DecodeGreedy(dims, greedy);
  double confidence = -1;
  Screen(dims, greedy, config, nullptr, &confidence);
  return confidence;
}

double PolicyModel::Calibrated(double agreement) const {
  if (agreement < 0 || file_.calibration.empty()) return agreement;
  size_t bin = 0;
  // As floats (the bins' type): an agreement of 4 of 5 critics, 0.8, falls in a band from 0.8f.
  while (bin + 1 < file_.calibration.size() && static_cast<float>(agreement) >= file_.calibration[bin + 1].from) ++bin;
  return file_.calibration[bin].rate;
}

double PolicyModel::Screen(const int64_t* dims, const uint32_t* greedy, const uint32_t* forced, uint32_t* config,
                           double* confidence) const {
  // Streams over the candidates (the greedy config first, then the screened ones, then `forced`), keeping per
  // critic its best prediction and the chosen candidate's prediction: no per-candidate storage.
  const size_t critic_count = critics_.size();
  const uint32_t hidden = critics_[0].layer1.out;
  float dim_parts[kMaxCriticFloats], layer1[kMaxHidden];
  double predictions[kMaxCriticMembers + 1], best_of_critic[kMaxCriticMembers + 1];
  double chosen[kMaxCriticMembers + 1] = {};
  for (size_t j = 0; j < critic_count; ++j) {
    CriticDimPart(critics_[j], dims, dim_parts + j * hidden);
    best_of_critic[j] = -1e300;
  }
  const double pessimism = critic_count > 1 ? file_.pessimism : 0.0;
  double best_score = -1e300, chosen_mean = 0;
  long choice = -2;  // -2: none yet, -1: greedy (or forced), >= 0: a screened candidate
  const long incumbent = forced ? -1 : IncumbentAt(dims);
  double incumbent_score = 0, incumbent_mean = 0, incumbent_predictions[kMaxCriticMembers + 1] = {};
  auto consider = [&](long index, const uint32_t* candidate) {
    double sum = 0, sum_squares = 0;
    for (size_t j = 0; j < critic_count; ++j) {
      const float* part = dim_parts + j * hidden;
      if (index >= 0) {
        const float* rows = critics_[j].candidate_rows[static_cast<size_t>(index)].data();
        for (uint32_t o = 0; o < hidden; ++o) layer1[o] = part[o] + rows[o];
      } else {
        std::memcpy(layer1, part, hidden * sizeof(float));
        AddCriticKnobRows(critics_[j], candidate, layer1);
      }
      predictions[j] = CriticFromLayer1(critics_[j], layer1);
      best_of_critic[j] = std::max(best_of_critic[j], predictions[j]);
      sum += predictions[j];
      sum_squares += predictions[j] * predictions[j];
    }
    const double mean = sum / static_cast<double>(critic_count);
    const double variance = std::max(0.0, sum_squares / static_cast<double>(critic_count) - mean * mean);
    const double score = mean - pessimism * std::sqrt(variance);
    if (index >= 0 && index == incumbent) {
      incumbent_score = score;
      incumbent_mean = mean;
      std::copy(predictions, predictions + critic_count, incumbent_predictions);
    }
    // The first candidate (greedy) is always taken, so non-finite predictions keep it, as before ensembles.
    if (forced ? index == -1 && candidate == forced : choice == -2 || score > best_score) {
      best_score = score;
      choice = index;
      chosen_mean = mean;
      std::copy(predictions, predictions + critic_count, chosen);
    }
  };
  consider(-1, greedy);
  for (size_t c = 0; c < candidates_.size(); ++c) consider(static_cast<long>(c), nullptr);
  if (forced) consider(-1, forced);
  // The incumbent stays unless the best score beats its own by more than the switch margin (a tie keeps it; a
  // NaN score never displaces the choice made so far).
  if (!forced && incumbent >= 0 && choice != incumbent && best_score <= incumbent_score + switch_log_margin_) {
    choice = incumbent;
    chosen_mean = incumbent_mean;
    std::copy(incumbent_predictions, incumbent_predictions + critic_count, chosen);
  }
  if (config) {
    const uint32_t* source = choice >= 0 ? candidates_[static_cast<size_t>(choice)].data() : greedy;
    std::copy(source, source + file_.knobs.size(), config);
  }
  if (confidence) {
    size_t agree = 0;
    for (size_t j = 0; j < critic_count; ++j) agree += chosen[j] >= best_of_critic[j] - std::log(1.05);
    *confidence = critic_count > 1 ? Calibrated(static_cast<double>(agree) / static_cast<double>(critic_count)) : -1.0;
  }
  return chosen_mean;
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

void PolicyModel::CriticDimPart(const Critic& critic, const int64_t* dims, float* out) const {
  const uint32_t hidden = critic.layer1.out;
  float features[kMaxPolicyDims];
  DimFeatures(dims, features);
  std::memcpy(out, critic.layer1.bias.data(), hidden * sizeof(float));
  for (size_t i = 0; i < file_.dims.size(); ++i) {
    const float* row = critic.layer1.weights.data() + i * hidden;
    for (uint32_t o = 0; o < hidden; ++o) out[o] += row[o] * features[i];
  }
}

void PolicyModel::AddCriticKnobRows(const Critic& critic, const uint32_t* config, float* layer1) const {
  const uint32_t hidden = critic.layer1.out;
  for (size_t k = 0; k < file_.knobs.size(); ++k) {
    if (feature_offset_[k] == SIZE_MAX) continue;
    const float* row = critic.layer1.weights.data() + (feature_offset_[k] + config[k]) * hidden;
    for (uint32_t o = 0; o < hidden; ++o) layer1[o] += row[o];
  }
}

double PolicyModel::CriticFromLayer1(const Critic& critic, const float* layer1) {
  // The input is the dim features plus a one-hot per plan knob, so the first layer is a sum of weight rows.
  const uint32_t hidden = critic.layer1.out;
  float a[kMaxHidden], b[kMaxHidden], out[1];
  for (uint32_t i = 0; i < hidden; ++i) a[i] = std::max(0.f, layer1[i]);
  Dense(critic.layer2, a, b);
  for (uint32_t i = 0; i < critic.layer2.out; ++i) b[i] = std::max(0.f, b[i]);
  Dense(critic.layer3, b, out);
  return out[0];
}

double PolicyModel::PredictLogSpeedup(const int64_t* dims, const uint32_t* config) const {
  float layer1[kMaxHidden];
  double sum = 0;
  for (const Critic& critic : critics_) {
    CriticDimPart(critic, dims, layer1);
    AddCriticKnobRows(critic, config, layer1);
    sum += CriticFromLayer1(critic, layer1);
  }
  return sum / static_cast<double>(critics_.size());
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
