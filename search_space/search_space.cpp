#include "common/strings.h"
#include "search_space/search_space.h"

#include <algorithm>
#include <sstream>
#include <thread>

#include "common/hash.h"
#include "common/json_fields.h"

namespace crmap {

namespace {

std::vector<std::string> ThreadValues(int max_threads) {
  std::vector<std::string> values;
  for (int t = 1; t < max_threads; t *= 2) values.push_back(std::to_string(t));
  values.push_back(std::to_string(max_threads));
  return values;
}

}  // namespace

const char* KnobKindName(KnobKind kind) {
  switch (kind) {
    case KnobKind::kFusion: return "fusion";
    case KnobKind::kLayout: return "layout";
    case KnobKind::kWeights: return "weights";
    case KnobKind::kPrecision: return "precision";
    case KnobKind::kThreads: return "threads";
    case KnobKind::kBatch: return "batch";
    case KnobKind::kQueueDelay: return "queue_delay";
    case KnobKind::kPlacement: return "placement";
  }
  return "unknown";
}

Result<SearchSpace> SearchSpace::Build(const Workload& workload, SpaceOptions options) {
  SearchSpace space;
  space.workload_name_ = workload.name();
  int max_threads = options.max_threads > 0 ? options.max_threads
                                            : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  bool has_compute = false;
  bool has_weights = false;
  for (size_t i = 0; i < workload.ops().size(); ++i) {
    const OpSpec& op = workload.ops()[i];
    if (!IsComputeOp(op.kind)) continue;
    has_compute = true;
    has_weights |= op.kind != OpKind::kMatmul;
    std::vector<FusableStep> chain = FusionChain(workload, i);
    if (chain.empty()) continue;
    Knob knob{"fuse." + op.name, KnobKind::kFusion, KnobScope::kPlan, FusionValueNames(chain), 0,
              "post-ops absorbed into " + op.name + "'s primitive", i};
    space.knobs_.push_back(knob);
  }
  if (workload.HasImageOps()) {
    space.knobs_.push_back({"layout", KnobKind::kLayout, KnobScope::kPlan, {"plain", "nhwc", "blocked", "any"}, 0,
                            "activation layout of image tensors (blocked = nChw8c on AVX2, nChw16c on AVX-512; "
                            "any = each primitive's choice); reorders only where it changes"});
  }
  if (has_weights) {
    space.knobs_.push_back({"weights", KnobKind::kWeights, KnobScope::kPlan, {"stored", "packed"}, 0,
                            "weights as stored ([out, in] / oihw) or pre-packed to the kernel's format at plan time"});
  }
  if (has_compute) {
    space.knobs_.push_back({"precision", KnobKind::kPrecision, KnobScope::kPlan, {"f32", "bf16"}, 0,
                            "data type of compute-op inputs and weights (accumulation and outputs stay f32)"});
  }
  std::vector<std::string> threads = ThreadValues(max_threads);
  space.knobs_.push_back({"threads", KnobKind::kThreads, KnobScope::kPlan, threads,
                          static_cast<int>(threads.size()) - 1, "OpenMP threads per executor"});
  space.knobs_.push_back({"batch", KnobKind::kBatch, KnobScope::kRuntime, {"1", "4", "16", "64"}, 0,
                          "max requests the serving runtime merges into one batch"});
  space.knobs_.push_back({"queue_delay_us", KnobKind::kQueueDelay, KnobScope::kRuntime, {"0", "200", "1000", "5000"}, 0,
                          "max time a request waits for a batch to fill"});
  space.knobs_.push_back({"placement", KnobKind::kPlacement, KnobScope::kRuntime, {"shared", "per_core"}, 0,
                          "one executor on all cores, or one single-threaded executor per core"});

  // Ids are mixed-radix uint64: refuse spaces whose size does not fit (a graph with ~40 fusable ops).
  uint64_t size = 1;
  for (const auto& knob : space.knobs_) {
    if (size > kMaxSpaceSize / knob.values.size())
      return Status::InvalidArgument("workload '" + workload.name() + "' spans more than 2^62 configs (" +
                                     std::to_string(space.knobs_.size()) + " knobs); split the graph");
    size *= knob.values.size();
  }
  space.constraints_.memory_budget_bytes = workload.memory_budget_bytes();
  space.constraints_.accuracy = workload.accuracy_budget();

  std::string description = workload.fingerprint();
  for (const auto& knob : space.knobs_) description += "|" + knob.name + "=" + JoinNames(knob.values, ",");
  space.fingerprint_ = HexDigest(Fnv1a64(description));
  return space;
}

int SearchSpace::FindKnob(const std::string& name) const {
  for (size_t i = 0; i < knobs_.size(); ++i)
    if (knobs_[i].name == name) return static_cast<int>(i);
  return -1;
}

int SearchSpace::FindKnobOfKind(KnobKind kind) const {
  for (size_t i = 0; i < knobs_.size(); ++i)
    if (knobs_[i].kind == kind) return static_cast<int>(i);
  return -1;
}

std::string SearchSpace::ValueOf(const Config& config, KnobKind kind) const {
  int k = FindKnobOfKind(kind);
  if (k < 0) return "";
  return knobs_[k].values[config.values[k]];
}

uint64_t SearchSpace::Size(KnobScope scope) const {
  uint64_t size = 1;
  for (const auto& knob : knobs_)
    if (knob.scope == scope) size *= knob.values.size();
  return size;
}

uint64_t SearchSpace::TotalSize() const { return Size(KnobScope::kPlan) * Size(KnobScope::kRuntime); }

Config SearchSpace::Default() const {
  Config config;
  for (const auto& knob : knobs_) config.values.push_back(knob.default_index);
  return config;
}

Result<Config> SearchSpace::Parse(const std::string& raw) const {
  std::string text = Trim(raw);
  Config config = Default();
  if (text.empty()) return Status::InvalidArgument("config: empty (use 'default', knob=value;... or a JSON object)");
  if (text == "default") return config;

  std::vector<std::pair<std::string, std::string>> items;
  if (text[0] == '{') {
    CRMAP_ASSIGN_OR_RETURN(Json json, ParseJsonText(text, "config"));
    if (!json.is_object()) return Status::InvalidArgument("config: JSON config must be an object {\"knob\": value}");
    for (const auto& item : json.items()) {
      const Json& v = item.value();
      if (v.is_string()) items.emplace_back(item.key(), v.get<std::string>());
      else if (v.is_number_integer()) items.emplace_back(item.key(), std::to_string(v.get<int64_t>()));
      else return Status::InvalidArgument("config: value of '" + item.key() + "' must be a string or an integer");
    }
  } else {
    std::string item;
    for (char& c : text)
      if (c == ',') c = ';';
    std::stringstream stream(text);
    while (std::getline(stream, item, ';')) {
      item = Trim(item);
      if (item.empty()) continue;
      size_t eq = item.find('=');
      if (eq == std::string::npos)
        return Status::InvalidArgument("config: expected knob=value, got '" + item + "'");
      items.emplace_back(Trim(item.substr(0, eq)), Trim(item.substr(eq + 1)));
    }
  }

  std::vector<bool> seen(knobs_.size(), false);
  for (const auto& [name, value] : items) {
    int k = FindKnob(name);
    if (k < 0) {
      std::vector<std::string> names;
      for (const auto& knob : knobs_) names.push_back(knob.name);
      return Status::InvalidArgument("config: unknown knob '" + name + "'; knobs of workload '" + workload_name_ +
                                     "': " + JoinNames(names));
    }
    if (seen[k]) return Status::InvalidArgument("config: knob '" + name + "' given twice");
    seen[k] = true;
    const auto& values = knobs_[k].values;
    auto it = std::find(values.begin(), values.end(), value);
    if (it == values.end())
      return Status::InvalidArgument("config: knob '" + name + "' has no value '" + value + "'; allowed: " +
                                     JoinNames(values));
    config.values[k] = static_cast<int>(it - values.begin());
  }
  return config;
}

std::string SearchSpace::ToString(const Config& config) const {
  std::string text;
  for (size_t k = 0; k < knobs_.size(); ++k) {
    if (k) text += ";";
    text += knobs_[k].name + "=" + knobs_[k].values[config.values[k]];
  }
  return text;
}

std::string SearchSpace::PlanKey(const Config& config) const {
  std::string text;
  for (size_t k = 0; k < knobs_.size(); ++k) {
    if (knobs_[k].scope != KnobScope::kPlan) continue;
    if (!text.empty()) text += ";";
    text += knobs_[k].name + "=" + knobs_[k].values[config.values[k]];
  }
  return text;
}

uint64_t SearchSpace::ToId(const Config& config) const {
  uint64_t id = 0;
  uint64_t radix = 1;
  for (size_t k = 0; k < knobs_.size(); ++k) {
    id += radix * static_cast<uint64_t>(config.values[k]);
    radix *= knobs_[k].values.size();
  }
  return id;
}

Result<Config> SearchSpace::FromId(uint64_t id) const {
  if (id >= TotalSize())
    return Status::InvalidArgument("config id " + std::to_string(id) + " is out of range [0, " +
                                   std::to_string(TotalSize()) + ")");
  Config config;
  for (const auto& knob : knobs_) {
    config.values.push_back(static_cast<int>(id % knob.values.size()));
    id /= knob.values.size();
  }
  return config;
}

Config SearchSpace::PlanPart(const Config& config) const {
  Config plan = config;
  for (size_t k = 0; k < knobs_.size(); ++k)
    if (knobs_[k].scope != KnobScope::kPlan) plan.values[k] = knobs_[k].default_index;
  return plan;
}

Status SearchSpace::Validate(const Config& config) const {
  if (config.values.size() != knobs_.size())
    return Status::InvalidArgument("config has " + std::to_string(config.values.size()) + " knob values; space '" +
                                   workload_name_ + "' has " + std::to_string(knobs_.size()) + " knobs");
  for (size_t k = 0; k < knobs_.size(); ++k)
    if (config.values[k] < 0 || config.values[k] >= static_cast<int>(knobs_[k].values.size()))
      return Status::InvalidArgument("config: value index " + std::to_string(config.values[k]) + " of knob '" +
                                     knobs_[k].name + "' is out of range");
  return Status::Ok();
}

std::vector<Config> SearchSpace::Enumerate(KnobScope scope) const {
  std::vector<Config> configs;
  uint64_t size = Size(scope);
  configs.reserve(size);
  for (uint64_t i = 0; i < size; ++i) configs.push_back(NthConfig(i, scope));
  return configs;
}

Config SearchSpace::NthConfig(uint64_t i, KnobScope scope) const {
  Config config = Default();
  for (size_t k = 0; k < knobs_.size(); ++k) {
    if (knobs_[k].scope != scope) continue;
    config.values[k] = static_cast<int>(i % knobs_[k].values.size());
    i /= knobs_[k].values.size();
  }
  return config;
}

Config SearchSpace::Sample(std::mt19937_64& rng, KnobScope scope) const {
  Config config = Default();
  for (size_t k = 0; k < knobs_.size(); ++k) {
    if (knobs_[k].scope != scope) continue;
    std::uniform_int_distribution<int> pick(0, static_cast<int>(knobs_[k].values.size()) - 1);
    config.values[k] = pick(rng);
  }
  return config;
}

std::vector<Config> SearchSpace::Neighbours(const Config& config, KnobScope scope) const {
  std::vector<Config> neighbours;
  for (size_t k = 0; k < knobs_.size(); ++k) {
    if (knobs_[k].scope != scope) continue;
    for (int v = 0; v < static_cast<int>(knobs_[k].values.size()); ++v) {
      if (v == config.values[k]) continue;
      Config next = config;
      next.values[k] = v;
      neighbours.push_back(next);
    }
  }
  return neighbours;
}

int SearchSpace::FusionDepth(const Config& config) const {
  int depth = 0;
  for (size_t k = 0; k < knobs_.size() && k < config.values.size(); ++k)
    if (knobs_[k].kind == KnobKind::kFusion) depth += config.values[k];
  return depth;
}

bool SearchSpace::FusesFurther(const Config& deeper, const Config& than) const {
  if (deeper.values.size() != knobs_.size() || than.values.size() != knobs_.size()) return false;
  bool further = false;
  for (size_t k = 0; k < knobs_.size(); ++k) {
    if (knobs_[k].kind != KnobKind::kFusion) {
      if (deeper.values[k] != than.values[k]) return false;
    } else if (deeper.values[k] < than.values[k]) {
      return false;
    } else {
      further |= deeper.values[k] > than.values[k];
    }
  }
  return further;
}

}  // namespace crmap
