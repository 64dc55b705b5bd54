#include "runtime/hook/policy_file.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

#include "common/atomic_file.h"
#include "common/file_read.h"
#include "common/hash.h"

namespace crmap {

namespace {

constexpr size_t kHeaderBytes = 8 + 4 + 4 + 8;
constexpr size_t kChecksumBytes = 8;

class Writer {
 public:
  void U32(uint32_t v) { Raw(&v, 4); }
  void U64(uint64_t v) { Raw(&v, 8); }
  void I64(int64_t v) { Raw(&v, 8); }
  void F32(float v) { Raw(&v, 4); }
  void F64(double v) { Raw(&v, 8); }
  void U8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void Str(const std::string& s) {
    U32(static_cast<uint32_t>(s.size()));
    out_.append(s);
  }
  void Floats(const std::vector<float>& v) {
    U32(static_cast<uint32_t>(v.size()));
    for (float f : v) F32(f);
  }
  void Layer(const DenseLayer& l) {
    U32(l.in);
    U32(l.out);
    Floats(l.weights);
    Floats(l.bias);
  }
  void Critic(const CriticWeights& c) {
    Layer(c.layer1);
    Layer(c.layer2);
    Layer(c.layer3);
  }
  std::string& bytes() { return out_; }

 private:
  // The host is little-endian x86-64; the format is little-endian by definition (checked at compile time).
  void Raw(const void* p, size_t n) { out_.append(static_cast<const char*>(p), n); }
  std::string out_;
};

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the policy codec assumes a little-endian host");

// Bounds-checked reader: every read fails (sticky) rather than run past the end.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : data_(bytes) {}
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  size_t remaining() const { return data_.size() - pos_; }

  uint32_t U32(const char* what) { return Fixed<uint32_t>(what); }
  uint64_t U64(const char* what) { return Fixed<uint64_t>(what); }
  int64_t I64(const char* what) { return Fixed<int64_t>(what); }
  float F32(const char* what) { return Fixed<float>(what); }
  double F64(const char* what) { return Fixed<double>(what); }
  uint8_t U8(const char* what) { return Fixed<uint8_t>(what); }

  std::string Str(const char* what) {
    uint32_t n = U32(what);
    if (!ok()) return {};
    if (n > kMaxPolicyString) return Fail(std::string(what) + ": string of " + std::to_string(n) + " bytes"), "";
    if (n > remaining()) return Fail(std::string(what) + ": truncated"), "";
    std::string s(data_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  // A count of items each at least `item_bytes` long, at most `limit`.
  uint32_t Count(const char* what, uint32_t limit, size_t item_bytes) {
    uint32_t n = U32(what);
    if (!ok()) return 0;
    if (n > limit) return Fail(std::string(what) + ": count " + std::to_string(n) + " exceeds " + std::to_string(limit)), 0;
    if (static_cast<uint64_t>(n) * item_bytes > remaining()) return Fail(std::string(what) + ": truncated"), 0;
    return n;
  }
  std::vector<float> Floats(const char* what, uint32_t limit) {
    uint32_t n = Count(what, limit, 4);
    std::vector<float> v(n);
    for (uint32_t i = 0; i < n && ok(); ++i) v[i] = F32(what);
    return v;
  }
  DenseLayer Layer(const char* what) {
    DenseLayer l;
    l.in = U32(what);
    l.out = U32(what);
    if (!ok()) return l;
    if (l.in == 0 || l.out == 0 || l.in > kMaxLayerInputs || l.out > kMaxLayerInputs)
      return Fail(std::string(what) + ": absurd layer size " + std::to_string(l.in) + "x" + std::to_string(l.out)), l;
    l.weights = Floats(what, l.in * l.out);
    l.bias = Floats(what, l.out);
    return l;
  }
  // Three layers named "<what> layer 1" to "<what> layer 3".
  CriticWeights Critic(const std::string& what) {
    CriticWeights c;
    c.layer1 = Layer((what + " layer 1").c_str());
    c.layer2 = Layer((what + " layer 2").c_str());
    c.layer3 = Layer((what + " layer 3").c_str());
    return c;
  }
  void Fail(const std::string& message) {
    if (error_.empty()) error_ = message + " (at byte " + std::to_string(pos_) + ")";
  }

 private:
  template <typename T>
  T Fixed(const char* what) {
    T v{};
    if (!ok()) return v;
    if (remaining() < sizeof(T)) {
      Fail(std::string(what) + ": truncated");
      return v;
    }
    std::memcpy(&v, data_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  std::string_view data_;
  size_t pos_ = 0;
  std::string error_;
};

void EncodePayload(const PolicyFile& f, Writer& w) {
  w.Str(f.workload);
  w.Str(f.workload_fingerprint);
  w.Str(f.space_fingerprint);
  w.U32(static_cast<uint32_t>(f.dims.size()));
  for (const auto& d : f.dims) {
    w.Str(d.name);
    w.I64(d.min);
    w.I64(d.max);
  }
  w.U32(static_cast<uint32_t>(f.knobs.size()));
  for (const auto& k : f.knobs) {
    w.Str(k.name);
    w.U8(k.plan ? 1 : 0);
    w.U32(k.default_index);
    w.U32(static_cast<uint32_t>(k.values.size()));
    for (const auto& v : k.values) w.Str(v);
  }
  w.U32(static_cast<uint32_t>(f.features.size()));
  for (const auto& feature : f.features) {
    w.Str(feature.name);
    w.F64(feature.lo);
    w.F64(feature.hi);
  }
  w.U32(static_cast<uint32_t>(f.mask.size()));
  for (const auto& row : f.mask) {
    w.U32(static_cast<uint32_t>(row.size()));
    for (uint8_t m : row) w.U8(m);
  }
  w.Layer(f.policy.trunk1);
  w.Layer(f.policy.trunk2);
  w.U32(static_cast<uint32_t>(f.policy.heads.size()));
  for (const auto& h : f.policy.heads) w.Layer(h);
  w.Critic(f.critic);
  w.Floats(f.latency_model);
  w.U32(static_cast<uint32_t>(f.table.size()));
  for (const auto& e : f.table) {
    for (int64_t d : e.dims) w.I64(d);
    for (uint32_t c : e.config) w.U32(c);
    w.F32(e.median_us);
    w.F32(e.p99_us);
    w.F32(e.speedup);
  }
  for (uint32_t c : f.fallback) w.U32(c);
  w.Str(f.host.cpu);
  w.Str(f.host.isa);
  w.Str(f.host.onednn_version);
  w.U32(f.host.cores);
  w.Str(f.training.db_path);
  w.Str(f.training.db_digest);
  w.Str(f.training.date);
  w.Str(f.training.crmap_version);
  w.U64(f.training.records_used);
  w.U64(f.training.seed);
  w.Str(f.workload_source);  // since version 2
  w.U32(static_cast<uint32_t>(f.critic_members.size()));  // since version 3
  for (const auto& member : f.critic_members) w.Critic(member);
  w.F32(f.pessimism);
  for (const auto& e : f.table) w.F32(e.confidence);
  w.U32(static_cast<uint32_t>(f.calibration.size()));  // since version 4
  for (const auto& bin : f.calibration) {
    w.F32(bin.from);
    w.U32(bin.folds);
    w.U32(bin.within);
    w.F32(bin.rate);
  }
  w.U32(static_cast<uint32_t>(f.incumbent.size()));  // since version 5
  for (uint32_t c : f.incumbent) w.U32(c);
  w.F32(f.switch_margin);
  w.U8(f.neighbour_incumbent ? 1 : 0);  // since version 6
}

PolicyFile DecodePayload(Reader& r, uint32_t version) {
  PolicyFile f;
  f.workload = r.Str("workload");
  f.workload_fingerprint = r.Str("workload fingerprint");
  f.space_fingerprint = r.Str("space fingerprint");
  uint32_t dims = r.Count("dims", kMaxPolicyDims, 4 + 16);
  for (uint32_t i = 0; i < dims && r.ok(); ++i) {
    PolicyDim d;
    d.name = r.Str("dim name");
    d.min = r.I64("dim min");
    d.max = r.I64("dim max");
    f.dims.push_back(d);
  }
  uint32_t knobs = r.Count("knobs", kMaxPolicyKnobs, 4 + 1 + 4 + 4);
  for (uint32_t i = 0; i < knobs && r.ok(); ++i) {
    PolicyKnob k;
    k.name = r.Str("knob name");
    k.plan = r.U8("knob scope") != 0;
    k.default_index = r.U32("knob default");
    uint32_t values = r.Count("knob values", kMaxKnobValues, 4);
    for (uint32_t v = 0; v < values && r.ok(); ++v) k.values.push_back(r.Str("knob value"));
    f.knobs.push_back(k);
  }
  uint32_t features = r.Count("features", kMaxLayerInputs, 4 + 16);
  for (uint32_t i = 0; i < features && r.ok(); ++i) {
    PolicyFeature feature;
    feature.name = r.Str("feature name");
    feature.lo = r.F64("feature lo");
    feature.hi = r.F64("feature hi");
    f.features.push_back(feature);
  }
  uint32_t mask_rows = r.Count("mask", kMaxPolicyKnobs, 4);
  for (uint32_t i = 0; i < mask_rows && r.ok(); ++i) {
    uint32_t n = r.Count("mask row", kMaxKnobValues, 1);
    std::vector<uint8_t> row(n);
    for (uint32_t v = 0; v < n && r.ok(); ++v) row[v] = r.U8("mask");
    f.mask.push_back(row);
  }
  f.policy.trunk1 = r.Layer("policy trunk 1");
  f.policy.trunk2 = r.Layer("policy trunk 2");
  uint32_t heads = r.Count("policy heads", kMaxPolicyKnobs, 8);
  for (uint32_t i = 0; i < heads && r.ok(); ++i) f.policy.heads.push_back(r.Layer("policy head"));
  f.critic = r.Critic("critic");
  f.latency_model = r.Floats("latency model", kMaxPolicyDims + 1);
  const size_t entry_bytes = f.dims.size() * 8 + f.knobs.size() * 4 + 12;
  uint32_t entries = r.Count("table", kMaxTableEntries, entry_bytes);
  for (uint32_t i = 0; i < entries && r.ok(); ++i) {
    TableEntry e;
    for (size_t d = 0; d < f.dims.size(); ++d) e.dims.push_back(r.I64("table dims"));
    for (size_t k = 0; k < f.knobs.size(); ++k) e.config.push_back(r.U32("table config"));
    e.median_us = r.F32("table median");
    e.p99_us = r.F32("table p99");
    e.speedup = r.F32("table speedup");
    f.table.push_back(e);
  }
  for (size_t k = 0; k < f.knobs.size() && r.ok(); ++k) f.fallback.push_back(r.U32("fallback"));
  f.host.cpu = r.Str("host cpu");
  f.host.isa = r.Str("host isa");
  f.host.onednn_version = r.Str("host oneDNN");
  f.host.cores = r.U32("host cores");
  f.training.db_path = r.Str("training db path");
  f.training.db_digest = r.Str("training db digest");
  f.training.date = r.Str("training date");
  f.training.crmap_version = r.Str("training crmap version");
  f.training.records_used = r.U64("training records");
  f.training.seed = r.U64("training seed");
  if (version >= 2) f.workload_source = r.Str("workload source");
  if (version >= 3) {
    uint32_t members = r.Count("critic members", kMaxCriticMembers, 3 * 8);
    for (uint32_t i = 0; i < members && r.ok(); ++i) f.critic_members.push_back(r.Critic("critic member"));
    f.pessimism = r.F32("pessimism");
    for (size_t i = 0; i < f.table.size() && r.ok(); ++i) f.table[i].confidence = r.F32("table confidence");
  }
  if (version >= 4) {
    uint32_t bins = r.Count("calibration bins", kMaxCalibrationBins, 16);
    for (uint32_t i = 0; i < bins && r.ok(); ++i) {
      CalibrationBin bin;
      bin.from = r.F32("calibration band");
      bin.folds = r.U32("calibration folds");
      bin.within = r.U32("calibration within");
      bin.rate = r.F32("calibration rate");
      f.calibration.push_back(bin);
    }
  }
  if (version >= 5) {
    uint32_t incumbent = r.Count("incumbent", kMaxPolicyKnobs, 4);
    for (uint32_t i = 0; i < incumbent && r.ok(); ++i) f.incumbent.push_back(r.U32("incumbent"));
    f.switch_margin = r.F32("switch margin");
  }
  if (version >= 6) {
    const uint8_t neighbour_incumbent = r.U8("neighbour incumbent");
    if (neighbour_incumbent > 1) r.Fail("the neighbour incumbent flag is " + std::to_string(neighbour_incumbent) +
                                        "; it must be 0 or 1");
    f.neighbour_incumbent = neighbour_incumbent == 1;
  }
  return f;
}

Status CheckLayer(const DenseLayer& l, uint32_t in, uint32_t out, const std::string& what) {
  if (l.in != in || l.out != out)
    return Status::Corruption(what + " is " + std::to_string(l.in) + "->" + std::to_string(l.out) + ", expected " +
                              std::to_string(in) + "->" + std::to_string(out));
  if (l.weights.size() != static_cast<size_t>(in) * out || l.bias.size() != out)
    return Status::Corruption(what + " has the wrong number of weights");
  for (float v : l.weights)
    if (!std::isfinite(v)) return Status::Corruption(what + " holds a NaN or infinite weight");
  for (float v : l.bias)
    if (!std::isfinite(v)) return Status::Corruption(what + " holds a NaN or infinite bias");
  return Status::Ok();
}

Status CheckConfig(const std::vector<PolicyKnob>& knobs, const std::vector<uint32_t>& config, const std::string& what) {
  if (config.size() != knobs.size()) return Status::Corruption(what + " has the wrong number of knob values");
  for (size_t k = 0; k < knobs.size(); ++k)
    if (config[k] >= knobs[k].values.size())
      return Status::Corruption(what + ": value index " + std::to_string(config[k]) + " of knob '" + knobs[k].name +
                                "' is out of range");
  return Status::Ok();
}

}  // namespace

std::string PolicyConfigString(const std::vector<PolicyKnob>& knobs, const std::vector<uint32_t>& config) {
  std::string text;
  for (size_t k = 0; k < knobs.size() && k < config.size(); ++k) {
    if (k) text += ";";
    text += knobs[k].name + "=" + knobs[k].values[config[k]];
  }
  return text;
}

Status ValidatePolicyFile(const PolicyFile& f) {
  if (f.workload.empty()) return Status::Corruption("the policy names no workload");
  if (f.dims.empty()) return Status::Corruption("the policy has no dims");
  // The decoder enforces these limits on files; a PolicyFile built in memory must meet them too (the
  // evaluator's fixed-size buffers rely on them).
  if (f.dims.size() > kMaxPolicyDims)
    return Status::Corruption("the policy has " + std::to_string(f.dims.size()) + " dims; at most " +
                              std::to_string(kMaxPolicyDims) + " are supported");
  if (f.knobs.size() > kMaxPolicyKnobs)
    return Status::Corruption("the policy has " + std::to_string(f.knobs.size()) + " knobs; at most " +
                              std::to_string(kMaxPolicyKnobs) + " are supported");
  for (const auto& k : f.knobs)
    if (k.values.size() > kMaxKnobValues)
      return Status::Corruption("knob '" + k.name + "' has " + std::to_string(k.values.size()) + " values; at most " +
                                std::to_string(kMaxKnobValues) + " are supported");
  if (f.features.size() > kMaxLayerInputs) return Status::Corruption("the feature spec is too long");
  for (const auto& d : f.dims)
    if (d.min < 1 || d.max < d.min) return Status::Corruption("dim '" + d.name + "' has an invalid range");
  if (f.knobs.empty()) return Status::Corruption("the policy has no knobs");
  size_t plan_knobs = 0, choice_width = 0;
  for (const auto& k : f.knobs) {
    if (k.values.empty() || k.default_index >= k.values.size())
      return Status::Corruption("knob '" + k.name + "' has no values or an out-of-range default");
    if (k.plan) {
      ++plan_knobs;
      choice_width += k.values.size();
    }
  }
  // The feature spec is defined by the dims and plan knobs (search_space/features.h); check it exactly.
  std::vector<std::string> expected;
  for (const auto& d : f.dims) expected.push_back("dim." + d.name);
  for (const auto& k : f.knobs)
    if (k.plan)
      for (const auto& v : k.values) expected.push_back("knob." + k.name + "=" + v);
  if (f.features.size() != expected.size())
    return Status::Corruption("feature spec has " + std::to_string(f.features.size()) + " features; the dims and knobs "
                              "define " + std::to_string(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) {
    if (f.features[i].name != expected[i])
      return Status::Corruption("feature " + std::to_string(i) + " is '" + f.features[i].name + "', expected '" +
                                expected[i] + "'");
    if (!std::isfinite(f.features[i].lo) || !std::isfinite(f.features[i].hi))
      return Status::Corruption("feature '" + expected[i] + "' has a non-finite scale");
  }
  // A dim's feature scales log2(value) over log2 of its declared range (search_space/feature_math.h); any other
  // scale (hi == lo for a range that is not a single value, hi < lo) would distort every decision.
  for (size_t i = 0; i < f.dims.size(); ++i) {
    const double lo = std::log2(static_cast<double>(f.dims[i].min)), hi = std::log2(static_cast<double>(f.dims[i].max));
    if (std::fabs(f.features[i].lo - lo) > 1e-9 * (1 + std::fabs(lo)) ||
        std::fabs(f.features[i].hi - hi) > 1e-9 * (1 + std::fabs(hi)))
      return Status::Corruption("feature '" + expected[i] + "' scales over [" + std::to_string(f.features[i].lo) +
                                ", " + std::to_string(f.features[i].hi) + "]; the dim's range [" +
                                std::to_string(f.dims[i].min) + ", " + std::to_string(f.dims[i].max) +
                                "] defines [log2 min, log2 max] = [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  if (f.mask.size() != f.knobs.size()) return Status::Corruption("the mask does not cover every knob");
  for (size_t k = 0; k < f.knobs.size(); ++k)
    if (f.mask[k].size() != f.knobs[k].values.size())
      return Status::Corruption("the mask of knob '" + f.knobs[k].name + "' has the wrong size");

  const uint32_t hidden = f.policy.trunk1.out;
  if (hidden == 0 || hidden > kMaxHidden) return Status::Corruption("policy hidden size out of range");
  CRMAP_RETURN_IF_ERROR(CheckLayer(f.policy.trunk1, static_cast<uint32_t>(f.dims.size() + choice_width), hidden,
                                   "policy trunk 1"));
  CRMAP_RETURN_IF_ERROR(CheckLayer(f.policy.trunk2, hidden, hidden, "policy trunk 2"));
  if (f.policy.heads.size() != plan_knobs) return Status::Corruption("the policy needs one head per plan knob");
  size_t head = 0;
  for (const auto& k : f.knobs)
    if (k.plan)
      CRMAP_RETURN_IF_ERROR(CheckLayer(f.policy.heads[head++], hidden, static_cast<uint32_t>(k.values.size()),
                                       "policy head of '" + k.name + "'"));
  const uint32_t critic_hidden = f.critic.layer1.out;
  if (critic_hidden == 0 || critic_hidden > kMaxHidden) return Status::Corruption("critic hidden size out of range");
  CRMAP_RETURN_IF_ERROR(CheckLayer(f.critic.layer1, static_cast<uint32_t>(f.features.size()), critic_hidden,
                                   "critic layer 1"));
  CRMAP_RETURN_IF_ERROR(CheckLayer(f.critic.layer2, critic_hidden, critic_hidden, "critic layer 2"));
  CRMAP_RETURN_IF_ERROR(CheckLayer(f.critic.layer3, critic_hidden, 1, "critic layer 3"));
  if (f.critic_members.size() > kMaxCriticMembers)
    return Status::Corruption("the policy has " + std::to_string(f.critic_members.size()) + " critic members; at most " +
                              std::to_string(kMaxCriticMembers) + " are supported");
  for (size_t m = 0; m < f.critic_members.size(); ++m) {
    const CriticWeights& member = f.critic_members[m];
    const std::string what = "critic member " + std::to_string(m);
    CRMAP_RETURN_IF_ERROR(CheckLayer(member.layer1, static_cast<uint32_t>(f.features.size()), critic_hidden,
                                     what + " layer 1"));
    CRMAP_RETURN_IF_ERROR(CheckLayer(member.layer2, critic_hidden, critic_hidden, what + " layer 2"));
    CRMAP_RETURN_IF_ERROR(CheckLayer(member.layer3, critic_hidden, 1, what + " layer 3"));
  }
  if ((1 + f.critic_members.size()) * critic_hidden > kMaxCriticFloats)
    return Status::Corruption("the critic has hidden size " + std::to_string(critic_hidden) + " and " +
                              std::to_string(f.critic_members.size()) + " members; (1 + members) x hidden must be at "
                              "most " + std::to_string(kMaxCriticFloats));
  if (!std::isfinite(f.pessimism) || f.pessimism < 0 || f.pessimism > 100)
    return Status::Corruption("the pessimism is " + std::to_string(f.pessimism) + "; it must be in [0, 100]");
  if (f.calibration.size() > kMaxCalibrationBins)
    return Status::Corruption("the policy has " + std::to_string(f.calibration.size()) + " calibration bins; at most " +
                              std::to_string(kMaxCalibrationBins) + " are supported");
  if (!f.calibration.empty() && f.critic_members.empty())
    return Status::Corruption("the policy has a confidence calibration but no critic members to calibrate");
  for (size_t i = 0; i < f.calibration.size(); ++i) {
    const CalibrationBin& bin = f.calibration[i];
    const std::string what = "calibration bin " + std::to_string(i);
    const float floor = i == 0 ? 0.f : f.calibration[i - 1].from;
    if (!(i == 0 ? bin.from == 0 : bin.from > floor && bin.from <= 1))
      return Status::Corruption(what + " starts at " + std::to_string(bin.from) + "; bins start at 0 and ascend "
                                "within [0, 1]");
    if (!(bin.rate >= 0 && bin.rate <= 1))
      return Status::Corruption(what + " has rate " + std::to_string(bin.rate) + "; it must be in [0, 1]");
    if (bin.within > bin.folds)
      return Status::Corruption(what + " counts " + std::to_string(bin.within) + " right of " +
                                std::to_string(bin.folds) + " folds");
  }
  if (f.latency_model.size() != f.dims.size() + 1)
    return Status::Corruption("the latency model needs one weight per dim plus a bias");
  for (float v : f.latency_model)
    if (!std::isfinite(v)) return Status::Corruption("the latency model holds a NaN or infinite weight");
  for (size_t i = 0; i < f.table.size(); ++i) {
    const TableEntry& e = f.table[i];
    std::string what = "table entry " + std::to_string(i);
    if (e.dims.size() != f.dims.size()) return Status::Corruption(what + " has the wrong number of dims");
    CRMAP_RETURN_IF_ERROR(CheckConfig(f.knobs, e.config, what));
    if (!std::isfinite(e.median_us) || !std::isfinite(e.p99_us) || !std::isfinite(e.speedup))
      return Status::Corruption(what + " holds a NaN or infinite number");
    if (!(e.confidence == -1 || (e.confidence >= 0 && e.confidence <= 1)))
      return Status::Corruption(what + " has confidence " + std::to_string(e.confidence) +
                                "; it must be in [0, 1], or -1 for unknown");
    if (!(e.median_us > 0) || !(e.p99_us > 0) || !(e.speedup > 0))
      return Status::Corruption(what + " holds a latency or speedup <= 0 (median " + std::to_string(e.median_us) +
                                " us, p99 " + std::to_string(e.p99_us) + " us, speedup " + std::to_string(e.speedup) +
                                "); measured figures are positive");
  }
  CRMAP_RETURN_IF_ERROR(CheckConfig(f.knobs, f.fallback, "fallback config"));
  if (!f.incumbent.empty()) CRMAP_RETURN_IF_ERROR(CheckConfig(f.knobs, f.incumbent, "incumbent config"));
  if (!(f.switch_margin >= 0 && f.switch_margin <= 1))
    return Status::Corruption("the switch margin is " + std::to_string(f.switch_margin) + "; it must be in [0, 1]");
  if (f.incumbent.empty() && f.switch_margin != 0)
    return Status::Corruption("the policy has a switch margin of " + std::to_string(f.switch_margin) +
                              " but no incumbent config to keep");
  if (f.incumbent.empty() && f.neighbour_incumbent)
    return Status::Corruption("the policy asks for the neighbours' incumbent but has no incumbent config");
  return Status::Ok();
}

std::string EncodePolicyFile(const PolicyFile& file) {
  Writer payload;
  EncodePayload(file, payload);
  Writer out;
  out.bytes().append(kPolicyMagic, sizeof kPolicyMagic);
  out.U32(kPolicyFormatVersion);
  out.U32(0);
  out.U64(payload.bytes().size());
  out.bytes() += payload.bytes();
  out.U64(Fnv1a64(out.bytes()));
  return out.bytes();
}

Result<PolicyFile> DecodePolicyFile(std::string_view bytes) {
  // A short file that does not even start like a policy file (JSON, text) is named as such, not as truncated.
  if (!bytes.empty() && std::memcmp(bytes.data(), kPolicyMagic, std::min(bytes.size(), sizeof kPolicyMagic)) != 0)
    return Status::Corruption("not a crmap policy file (wrong magic)");
  if (bytes.size() < kHeaderBytes + kChecksumBytes)
    return Status::Corruption("policy file truncated: " + std::to_string(bytes.size()) + " bytes");
  Reader header(bytes.substr(8, kHeaderBytes - 8));
  uint32_t version = header.U32("version");
  uint32_t flags = header.U32("flags");
  uint64_t payload_length = header.U64("payload length");
  if (version < kOldestPolicyFormatVersion || version > kPolicyFormatVersion)
    return Status::InvalidArgument("policy format version " + std::to_string(version) + "; this crmap reads versions " +
                                   std::to_string(kOldestPolicyFormatVersion) + " to " +
                                   std::to_string(kPolicyFormatVersion));
  if (flags != 0) return Status::Corruption("unknown policy flags " + std::to_string(flags));
  if (payload_length != bytes.size() - kHeaderBytes - kChecksumBytes)
    return Status::Corruption("policy file truncated or padded: payload length " + std::to_string(payload_length) +
                              ", file holds " + std::to_string(bytes.size() - kHeaderBytes - kChecksumBytes));
  uint64_t stored;
  std::memcpy(&stored, bytes.data() + bytes.size() - kChecksumBytes, kChecksumBytes);
  if (stored != Fnv1a64(bytes.substr(0, bytes.size() - kChecksumBytes)))
    return Status::Corruption("policy file checksum mismatch (damaged or edited)");
  Reader reader(bytes.substr(kHeaderBytes, payload_length));
  PolicyFile file = DecodePayload(reader, version);
  if (!reader.ok()) return Status::Corruption("policy file: " + reader.error());
  if (reader.remaining() != 0) return Status::Corruption("policy file has trailing bytes in its payload");
  CRMAP_RETURN_IF_ERROR(ValidatePolicyFile(file));
  return file;
}

Result<PolicyFile> ReadPolicyFile(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return Status::NotFound("no such policy file: " + path);
  if (!S_ISREG(info.st_mode)) return Status::InvalidArgument(path + " is not a regular file");
  CRMAP_ASSIGN_OR_RETURN(std::string bytes, ReadFileCapped(path, kMaxPolicyFileBytes, "policy file"));
  Result<PolicyFile> file = DecodePolicyFile(bytes);
  if (!file.ok()) return file.status().WithContext(path);
  return file;
}

Status WritePolicyFile(const std::string& path, const PolicyFile& file) {
  CRMAP_RETURN_IF_ERROR(ValidatePolicyFile(file).WithContext("refusing to write an inconsistent policy"));
  return WriteFileAtomically(path, EncodePolicyFile(file));
}

}  // namespace crmap
