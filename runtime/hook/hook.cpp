// libcrmap_hook: the C API of crmap_hook.h over PolicyModel.
//
// Concurrency: the current policy generation (HookState) is published through an atomic pointer. Readers
// (decide, metrics) register in one of two counters (per thread shard) chosen by the parity of an epoch before
// loading the pointer; reload publishes the new generation, then flips the epoch twice, each time waiting for the
// counter of the previous parity to drain, and only then frees the old generation — the two-phase grace
// period of userspace RCU, so no reader can still hold it. Readers take no lock and never wait.
// The per-shape cache is a table of seqlocked slots; decision ids index a ring of predictions for observe.
#include "runtime/hook/crmap_hook.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "common/hash.h"
#include "runtime/hook/host_isa.h"
#include "runtime/hook/policy_model.h"

namespace {

using crmap::PolicyFile;
using crmap::PolicyModel;
using crmap::Status;
using crmap::StatusCode;

thread_local char g_last_error[512] = "";

crmap_status Error(crmap_status status, const char* format, ...) __attribute__((format(printf, 2, 3)));
crmap_status Error(crmap_status status, const char* format, ...) {
  va_list args;
  va_start(args, format);
  std::vsnprintf(g_last_error, sizeof g_last_error, format, args);
  va_end(args);
  return status;
}

crmap_status FromStatus(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk: return CRMAP_OK;
    case StatusCode::kNotFound: return Error(CRMAP_ERR_NOT_FOUND, "%s", status.message().c_str());
    case StatusCode::kCorruption: return Error(CRMAP_ERR_CORRUPTION, "%s", status.message().c_str());
    case StatusCode::kInvalidArgument:
      return Error(status.message().find("format version") != std::string::npos ? CRMAP_ERR_VERSION
                                                                                : CRMAP_ERR_INVALID_ARGUMENT,
                   "%s", status.message().c_str());
    default: return Error(CRMAP_ERR_INTERNAL, "%s", status.message().c_str());
  }
}

void AtomicAdd(std::atomic<double>& target, double value) {
  double current = target.load(std::memory_order_relaxed);
  while (!target.compare_exchange_weak(current, current + value, std::memory_order_relaxed)) {
  }
}

constexpr size_t kCacheSlots = 4096;  // power of two
constexpr size_t kCacheDims = 4;      // policies with more dims are not cached
constexpr size_t kRingSlots = 65536;  // power of two: ~20 ms of decisions at 3 M/s, 1 MiB per hook

// One cached policy answer. Written under a seqlock: seq is odd while a writer is inside.
struct CacheSlot {
  std::atomic<uint64_t> seq{0};
  std::atomic<int64_t> dims[kCacheDims] = {};
  std::atomic<uint64_t> config_id{0};
  std::atomic<double> predicted_us{0};
  std::atomic<double> confidence{-1};
};

// One loaded policy and the cache of its answers.
struct HookState {
  std::unique_ptr<PolicyModel> model;
  uint64_t generation = 0;
  std::unique_ptr<CacheSlot[]> cache{new CacheSlot[kCacheSlots]};

  static size_t SlotOf(const int64_t* dims, size_t n) {
    uint64_t h = crmap::kFnvOffsetBasis;
    for (size_t i = 0; i < n; ++i) h = crmap::FnvMixWord(h, static_cast<uint64_t>(dims[i]));
    return static_cast<size_t>(h ^ (h >> 29)) & (kCacheSlots - 1);
  }

  bool Lookup(const int64_t* dims, size_t n, uint64_t* id, double* predicted, double* confidence) const {
    if (n > kCacheDims) return false;
    const CacheSlot& slot = cache[SlotOf(dims, n)];
    uint64_t s1 = slot.seq.load(std::memory_order_acquire);
    if (s1 == 0 || (s1 & 1)) return false;
    bool same = true;
    for (size_t i = 0; i < n; ++i) same &= slot.dims[i].load(std::memory_order_relaxed) == dims[i];
    uint64_t value = slot.config_id.load(std::memory_order_relaxed);
    double p = slot.predicted_us.load(std::memory_order_relaxed);
    double c = slot.confidence.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (slot.seq.load(std::memory_order_relaxed) != s1 || !same) return false;
    *id = value;
    *predicted = p;
    *confidence = c;
    return true;
  }

  void Store(const int64_t* dims, size_t n, uint64_t id, double predicted, double confidence) {
    if (n > kCacheDims) return;
    CacheSlot& slot = cache[SlotOf(dims, n)];
    uint64_t s = slot.seq.load(std::memory_order_relaxed);
    if ((s & 1) || !slot.seq.compare_exchange_strong(s, s + 1, std::memory_order_acquire)) return;  // busy: skip
    std::atomic_thread_fence(std::memory_order_release);
    for (size_t i = 0; i < n; ++i) slot.dims[i].store(dims[i], std::memory_order_relaxed);
    slot.config_id.store(id, std::memory_order_relaxed);
    slot.predicted_us.store(predicted, std::memory_order_relaxed);
    slot.confidence.store(confidence, std::memory_order_relaxed);
    slot.seq.store(s + 2, std::memory_order_release);
  }
};

// Counters a decide touches, kept per shard: each thread uses one shard (its own cache line), so concurrent
// deciders do not bounce lines between cores. Readers of the totals sum the shards.
constexpr size_t kShards = 16;
struct alignas(64) Shard {
  std::atomic<int64_t> readers[2] = {};  // RCU reader counts, by epoch parity
  std::atomic<uint64_t> by_source[3] = {};
  std::atomic<uint64_t> cache_hits{0};
  std::atomic<uint64_t> network_evaluations{0};
  std::atomic<uint64_t> out_of_range{0};
};

size_t MyShard() {
  static std::atomic<size_t> next{0};
  thread_local size_t shard = next.fetch_add(1, std::memory_order_relaxed) % kShards;
  return shard;
}

// One decision awaiting its observation. id 0: empty or already observed. A decision overwrites the slot of
// the decision kRingSlots before it; Consume accepts only the id it finds there, once, with that decision's
// prediction (the fences order "id cleared" before "prediction replaced", so a Consume that read a newer
// prediction sees the cleared id and fails).
struct RingSlot {
  std::atomic<uint64_t> id{0};
  std::atomic<double> predicted_us{0};

  void Issue(uint64_t decision_id, double predicted) {
    id.store(0, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    predicted_us.store(predicted, std::memory_order_relaxed);
    id.store(decision_id, std::memory_order_release);
  }
  bool Consume(uint64_t decision_id, double* predicted) {
    if (id.load(std::memory_order_acquire) != decision_id) return false;
    double p = predicted_us.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    uint64_t expected = decision_id;
    if (!id.compare_exchange_strong(expected, 0, std::memory_order_acq_rel)) return false;
    *predicted = p;
    return true;
  }
};

}  // namespace

struct crmap_hook {
  std::atomic<HookState*> current{nullptr};
  std::atomic<uint64_t> epoch{0};
  Shard shards[kShards];
  std::mutex reload_mutex;
  uint64_t generations = 0;  // guarded by reload_mutex
  std::string fallback;
  std::string expected_workload;
  std::string expected_space;
  bool allow_other_isa = false;
  std::string workload;  // of the loaded policy: reloads must match it
  std::string space;
  // Fixed by the first policy that loads (reloads must match): published once, immutable, freed at close, so
  // dim_count/dim_name may run concurrently with a reload that publishes them (a hook opened on its fallback).
  std::atomic<const std::vector<std::string>*> dim_names{nullptr};
  std::unique_ptr<const std::vector<std::string>> dim_names_owner;  // guarded by reload_mutex

  alignas(64) std::atomic<uint64_t> next_decision{1};
  std::atomic<uint64_t> observations{0};
  std::atomic<uint64_t> unknown_observations{0};
  std::atomic<uint64_t> expired_observations{0};
  std::atomic<uint64_t> predicted_observations{0};
  std::atomic<double> sum_abs_log_error{0};
  std::atomic<double> sum_latency_us{0};
  std::atomic<double> sum_queue_wait_us{0};
  std::atomic<uint64_t> reloads{0};
  std::unique_ptr<RingSlot[]> ring{new RingSlot[kRingSlots]};

  int64_t ReadersOf(uint64_t parity) {
    int64_t total = 0;
    for (const Shard& s : shards) total += s.readers[parity & 1].load();
    return total;
  }
  template <typename Field>
  uint64_t Sum(Field field) const {
    uint64_t total = 0;
    for (const Shard& s : shards) total += (s.*field).load(std::memory_order_relaxed);
    return total;
  }

  // Frees `old` once no reader can hold it (see the file comment).
  void RetireAfterGracePeriod(HookState* old) {
    for (int flip = 0; flip < 2; ++flip) {
      uint64_t previous = epoch.fetch_add(1);
      while (ReadersOf(previous) != 0) std::this_thread::yield();
    }
    delete old;
  }
};

namespace {

// Registers a reader for the lifetime of one call.
class ReadGuard {
 public:
  explicit ReadGuard(crmap_hook* hook) : hook_(hook) {
    parity_ = hook->epoch.load() & 1;
    shard_ = &hook->shards[MyShard()];
    shard_->readers[parity_].fetch_add(1);
    state_ = hook->current.load();
  }
  ~ReadGuard() { shard_->readers[parity_].fetch_sub(1); }
  Shard& shard() const { return *shard_; }
  HookState* state() const { return state_; }

 private:
  crmap_hook* hook_;
  uint64_t parity_;
  Shard* shard_;
  HookState* state_;
};

// Loads and checks a policy for `hook`: expected workload/space from the options, and the dims and identity
// of the policy already loaded (a reload may not change workloads).
crmap_status LoadState(crmap_hook* hook, const char* path, std::unique_ptr<HookState>* out) {
  auto file = crmap::ReadPolicyFile(path);
  if (!file.ok()) return FromStatus(file.status());
  if (!hook->expected_workload.empty() && file->workload != hook->expected_workload)
    return Error(CRMAP_ERR_MISMATCH, "%s: policy for workload '%s', expected '%s'", path, file->workload.c_str(),
                 hook->expected_workload.c_str());
  if (!hook->expected_space.empty() && file->space_fingerprint != hook->expected_space)
    return Error(CRMAP_ERR_MISMATCH, "%s: policy for search space %s, expected %s", path,
                 file->space_fingerprint.c_str(), hook->expected_space.c_str());
  if (!hook->workload.empty() && (file->workload != hook->workload || file->space_fingerprint != hook->space))
    return Error(CRMAP_ERR_MISMATCH, "%s: policy for %s (space %s) cannot replace the loaded one for %s (space %s)",
                 path, file->workload.c_str(), file->space_fingerprint.c_str(), hook->workload.c_str(),
                 hook->space.c_str());
  if (!hook->allow_other_isa && file->host.isa != crmap::HostIsa())
    return Error(CRMAP_ERR_HOST,
                 "%s: policy tuned on a host with CPU ISA '%s' (%s); this host is '%s': its configs were ranked on "
                 "another kind of CPU. Retune here, or open it anyway (allow_other_isa, `crmap query --force`)",
                 path, file->host.isa.empty() ? "unrecorded" : file->host.isa.c_str(), file->host.cpu.c_str(),
                 crmap::HostIsa().c_str());
  if (file->knobs.size() > CRMAP_HOOK_MAX_KNOBS)
    return Error(CRMAP_ERR_CORRUPTION, "%s: %zu knobs; this hook answers at most %d", path, file->knobs.size(),
                 CRMAP_HOOK_MAX_KNOBS);
  auto model = PolicyModel::Create(std::move(file).value());
  if (!model.ok()) return FromStatus(model.status().WithContext(path));
  if ((*model)->max_config_length() >= CRMAP_HOOK_CONFIG_CAPACITY)
    return Error(CRMAP_ERR_CORRUPTION, "%s: its config strings can reach %zu bytes; decisions hold at most %d", path,
                 (*model)->max_config_length(), CRMAP_HOOK_CONFIG_CAPACITY - 1);
  auto state = std::make_unique<HookState>();
  state->model = std::move(model).value();
  *out = std::move(state);
  return CRMAP_OK;
}

void Publish(crmap_hook* hook, std::unique_ptr<HookState> state) {
  const PolicyFile& f = state->model->file();
  hook->workload = f.workload;
  hook->space = f.space_fingerprint;
  if (!hook->dim_names_owner) {
    auto names = std::make_unique<std::vector<std::string>>();
    for (const auto& d : f.dims) names->push_back(d.name);
    hook->dim_names_owner = std::move(names);
    hook->dim_names.store(hook->dim_names_owner.get(), std::memory_order_release);
  }
  state->generation = ++hook->generations;
  HookState* old = hook->current.exchange(state.release());
  if (old) hook->RetireAfterGracePeriod(old);
}

}  // namespace

extern "C" {

const char* crmap_status_name(crmap_status status) {
  switch (status) {
    case CRMAP_OK: return "ok";
    case CRMAP_ERR_INVALID_ARGUMENT: return "invalid argument";
    case CRMAP_ERR_NOT_FOUND: return "not found";
    case CRMAP_ERR_CORRUPTION: return "corruption";
    case CRMAP_ERR_VERSION: return "unsupported version";
    case CRMAP_ERR_MISMATCH: return "workload or space mismatch";
    case CRMAP_ERR_INTERNAL: return "internal error";
    case CRMAP_ERR_HOST: return "tuned on another CPU ISA";
  }
  return "unknown status";
}

const char* crmap_hook_last_error(void) { return g_last_error; }

namespace {

// The caller's fallback config: "knob=value;knob=value", names of [a-z0-9_.], values of [A-Za-z0-9_.+-]; and,
// when a policy is loaded, only its knobs with their values. An empty string when it is fine, else the problem.
std::string FallbackProblem(const std::string& text, const crmap::PolicyFile* file) {
  auto name_char = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.'; };
  auto value_char = [&](char c) {
    return name_char(c) || (c >= 'A' && c <= 'Z') || c == '+' || c == '-';
  };
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find(';', begin);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(begin, end - begin);
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      return "'" + item + "' is not knob=value";
    const std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    if (!std::all_of(name.begin(), name.end(), name_char) || !std::all_of(value.begin(), value.end(), value_char))
      return "'" + item + "' holds a character a knob name ([a-z0-9_.]) or value ([A-Za-z0-9_.+-]) cannot";
    if (file) {
      auto knob = std::find_if(file->knobs.begin(), file->knobs.end(), [&](const auto& k) { return k.name == name; });
      if (knob == file->knobs.end()) return "the policy has no knob '" + name + "'";
      if (std::find(knob->values.begin(), knob->values.end(), value) == knob->values.end())
        return "knob '" + name + "' has no value '" + value + "' in the policy";
    }
    begin = end + 1;
  }
  return "";
}

}  // namespace

crmap_status crmap_hook_open(const char* policy_path, const crmap_open_options* options, crmap_hook** hook) {
  if (!hook) return Error(CRMAP_ERR_INVALID_ARGUMENT, "crmap_hook_open: hook is NULL");
  *hook = nullptr;
  std::unique_ptr<crmap_hook> created;
  try {
    created = std::make_unique<crmap_hook>();
    if (options && options->expected_workload) created->expected_workload = options->expected_workload;
    if (options && options->expected_space_fingerprint) created->expected_space = options->expected_space_fingerprint;
    if (options && options->fallback_config) created->fallback = options->fallback_config;
    if (options) created->allow_other_isa = options->allow_other_isa != 0;
    if (created->fallback.size() >= CRMAP_HOOK_CONFIG_CAPACITY)
      return Error(CRMAP_ERR_INVALID_ARGUMENT, "fallback config longer than %d bytes", CRMAP_HOOK_CONFIG_CAPACITY - 1);
    crmap_status status = CRMAP_ERR_INVALID_ARGUMENT;
    std::unique_ptr<HookState> state;
    if (!policy_path) {
      Error(CRMAP_ERR_INVALID_ARGUMENT, "crmap_hook_open: policy path is NULL");
    } else {
      status = LoadState(created.get(), policy_path, &state);
    }
    if (options && options->fallback_config) {  // its syntax, and its knobs and values when a policy loaded
      std::string problem = FallbackProblem(created->fallback, status == CRMAP_OK ? &state->model->file() : nullptr);
      if (!problem.empty())
        return Error(CRMAP_ERR_INVALID_ARGUMENT, "fallback config '%s'%s: %s", created->fallback.c_str(),
                     status == CRMAP_OK ? " does not fit the policy" : "", problem.c_str());
    }
    if (status == CRMAP_OK) {
      std::lock_guard<std::mutex> lock(created->reload_mutex);
      Publish(created.get(), std::move(state));
      *hook = created.release();
      return CRMAP_OK;
    }
    if (!created->fallback.empty()) *hook = created.release();  // answers with the fallback config
    return status;
  } catch (const std::exception& e) {
    return Error(CRMAP_ERR_INTERNAL, "crmap_hook_open: %s", e.what());
  }
}

size_t crmap_hook_dim_count(const crmap_hook* hook) {
  const std::vector<std::string>* names = hook ? hook->dim_names.load(std::memory_order_acquire) : nullptr;
  return names ? names->size() : 0;
}

const char* crmap_hook_dim_name(const crmap_hook* hook, size_t index) {
  const std::vector<std::string>* names = hook ? hook->dim_names.load(std::memory_order_acquire) : nullptr;
  return names && index < names->size() ? (*names)[index].c_str() : nullptr;
}

crmap_status crmap_hook_decide(crmap_hook* hook, const int64_t* dims, size_t dim_count,
                               const crmap_telemetry* telemetry, crmap_decision* decision) {
  (void)telemetry;
  if (!hook || !decision || (dim_count && !dims))
    return Error(CRMAP_ERR_INVALID_ARGUMENT, "crmap_hook_decide: NULL hook, dims or decision");
  ReadGuard guard(hook);
  HookState* state = guard.state();
  decision->propensity = 1.0;
  decision->confidence = -1;
  if (!state) {
    std::memcpy(decision->config, hook->fallback.c_str(), hook->fallback.size() + 1);
    decision->knob_count = 0;
    decision->predicted_latency_us = 0;
    decision->source = CRMAP_SOURCE_FALLBACK;
    decision->decision_id = hook->next_decision.fetch_add(1, std::memory_order_relaxed);
    hook->ring[decision->decision_id & (kRingSlots - 1)].Issue(decision->decision_id, 0);  // latency still recorded
    guard.shard().by_source[CRMAP_SOURCE_FALLBACK].fetch_add(1, std::memory_order_relaxed);
    return CRMAP_OK;
  }
  const PolicyModel& model = *state->model;
  const PolicyFile& file = model.file();
  if (dim_count != model.dim_count())
    return Error(CRMAP_ERR_INVALID_ARGUMENT, "crmap_hook_decide: %zu dims given, the policy has %zu", dim_count,
                 model.dim_count());
  bool in_range = true;
  for (size_t i = 0; i < dim_count; ++i) {
    if (dims[i] < 1)
      return Error(CRMAP_ERR_INVALID_ARGUMENT, "crmap_hook_decide: dim '%s' = %lld; dims must be >= 1",
                   file.dims[i].name.c_str(), static_cast<long long>(dims[i]));
    in_range &= dims[i] >= file.dims[i].min && dims[i] <= file.dims[i].max;
  }
  uint32_t config[CRMAP_HOOK_MAX_KNOBS];
  double predicted = 0, confidence = -1;
  int32_t source = CRMAP_SOURCE_POLICY;
  long entry = model.FindTableEntry(dims);
  uint64_t id = 0;
  if (entry >= 0) {
    const crmap::TableEntry& e = file.table[static_cast<size_t>(entry)];
    std::copy(e.config.begin(), e.config.end(), config);
    predicted = e.median_us;
    confidence = e.confidence;
    source = CRMAP_SOURCE_TABLE;
  } else if (model.ids_fit() && state->Lookup(dims, dim_count, &id, &predicted, &confidence)) {
    model.ConfigFromId(id, config);
    guard.shard().cache_hits.fetch_add(1, std::memory_order_relaxed);
  } else {
    predicted = model.LatencyFromLogSpeedup(dims, model.Decide(dims, config, &confidence));
    if (model.ids_fit()) state->Store(dims, dim_count, model.ConfigId(config), predicted, confidence);
    guard.shard().network_evaluations.fetch_add(1, std::memory_order_relaxed);
  }
  model.SetRuntimeKnobs(config);
  if (model.FormatConfig(config, decision->config, sizeof decision->config) == 0)
    return Error(CRMAP_ERR_INTERNAL, "crmap_hook_decide: config string longer than %d bytes",
                 CRMAP_HOOK_CONFIG_CAPACITY - 1);
  decision->knob_count = static_cast<int32_t>(model.knob_count());
  for (size_t k = 0; k < model.knob_count(); ++k) decision->values[k] = static_cast<int32_t>(config[k]);
  decision->predicted_latency_us = predicted;
  decision->confidence = confidence;
  decision->source = source;
  decision->decision_id = hook->next_decision.fetch_add(1, std::memory_order_relaxed);
  hook->ring[decision->decision_id & (kRingSlots - 1)].Issue(decision->decision_id, predicted);
  guard.shard().by_source[source].fetch_add(1, std::memory_order_relaxed);
  if (!in_range) guard.shard().out_of_range.fetch_add(1, std::memory_order_relaxed);
  return CRMAP_OK;
}

crmap_status crmap_hook_observe(crmap_hook* hook, uint64_t decision_id, double latency_us, double queue_wait_us) {
  if (!hook) return Error(CRMAP_ERR_INVALID_ARGUMENT, "crmap_hook_observe: hook is NULL");
  if (!(latency_us >= 0) || !(queue_wait_us >= 0) || !std::isfinite(latency_us) || !std::isfinite(queue_wait_us))
    return Error(CRMAP_ERR_INVALID_ARGUMENT, "crmap_hook_observe: latency and queue wait must be finite and >= 0");
  double predicted = 0;
  if (decision_id == 0 || !hook->ring[decision_id & (kRingSlots - 1)].Consume(decision_id, &predicted)) {
    const uint64_t next = hook->next_decision.load(std::memory_order_relaxed);
    if (decision_id != 0 && decision_id < next && next - decision_id > kRingSlots) {
      // Issued, but the window moved on: the caller observed too late. Counted apart from caller errors.
      hook->expired_observations.fetch_add(1, std::memory_order_relaxed);
      return Error(CRMAP_ERR_INVALID_ARGUMENT,
                   "crmap_hook_observe: decision %llu expired: %llu decisions were made after it and only the last "
                   "%zu are kept (counted in expired_observations)",
                   static_cast<unsigned long long>(decision_id), static_cast<unsigned long long>(next - 1 - decision_id),
                   kRingSlots);
    }
    hook->unknown_observations.fetch_add(1, std::memory_order_relaxed);
    return Error(CRMAP_ERR_INVALID_ARGUMENT, "crmap_hook_observe: decision %llu is unknown: never issued or already observed",
                 static_cast<unsigned long long>(decision_id));
  }
  hook->observations.fetch_add(1, std::memory_order_relaxed);
  AtomicAdd(hook->sum_latency_us, latency_us);
  AtomicAdd(hook->sum_queue_wait_us, queue_wait_us);
  if (predicted > 0 && latency_us > 0) {
    hook->predicted_observations.fetch_add(1, std::memory_order_relaxed);
    AtomicAdd(hook->sum_abs_log_error, std::fabs(std::log(latency_us / predicted)));
  }
  return CRMAP_OK;
}

crmap_status crmap_hook_metrics(const crmap_hook* hook, crmap_metrics* metrics) {
  if (!hook || !metrics) return Error(CRMAP_ERR_INVALID_ARGUMENT, "crmap_hook_metrics: NULL hook or metrics");
  crmap_hook* h = const_cast<crmap_hook*>(hook);
  metrics->decisions = 0;
  for (int s = 0; s < 3; ++s) {
    metrics->by_source[s] = 0;
    for (const Shard& shard : h->shards) metrics->by_source[s] += shard.by_source[s].load(std::memory_order_relaxed);
    metrics->decisions += metrics->by_source[s];
  }
  metrics->cache_hits = h->Sum(&Shard::cache_hits);
  metrics->network_evaluations = h->Sum(&Shard::network_evaluations);
  metrics->out_of_range = h->Sum(&Shard::out_of_range);
  metrics->observations = h->observations.load();
  metrics->unknown_observations = h->unknown_observations.load();
  metrics->expired_observations = h->expired_observations.load();
  uint64_t predicted = h->predicted_observations.load();
  metrics->mean_abs_log_error = predicted ? h->sum_abs_log_error.load() / static_cast<double>(predicted) : 0;
  metrics->mean_latency_us = metrics->observations ? h->sum_latency_us.load() / metrics->observations : 0;
  metrics->mean_queue_wait_us = metrics->observations ? h->sum_queue_wait_us.load() / metrics->observations : 0;
  metrics->reloads = h->reloads.load();
  ReadGuard guard(h);
  metrics->policy_generation = guard.state() ? guard.state()->generation : 0;
  return CRMAP_OK;
}

crmap_status crmap_hook_reload(crmap_hook* hook, const char* policy_path) {
  if (!hook || !policy_path) return Error(CRMAP_ERR_INVALID_ARGUMENT, "crmap_hook_reload: NULL hook or path");
  try {
    std::lock_guard<std::mutex> lock(hook->reload_mutex);
    std::unique_ptr<HookState> state;
    crmap_status status = LoadState(hook, policy_path, &state);
    if (status != CRMAP_OK) return status;
    if (const std::vector<std::string>* names = hook->dim_names_owner.get()) {
      const auto& dims = state->model->file().dims;
      bool same = dims.size() == names->size();
      for (size_t i = 0; same && i < dims.size(); ++i) same = dims[i].name == (*names)[i];
      if (!same) return Error(CRMAP_ERR_MISMATCH, "%s: its dims differ from the loaded policy's", policy_path);
    }
    Publish(hook, std::move(state));
    hook->reloads.fetch_add(1);
    return CRMAP_OK;
  } catch (const std::exception& e) {
    return Error(CRMAP_ERR_INTERNAL, "crmap_hook_reload: %s", e.what());
  }
}

void crmap_hook_close(crmap_hook* hook) {
  if (!hook) return;
  delete hook->current.exchange(nullptr);
  delete hook;
}

}  // extern "C"
