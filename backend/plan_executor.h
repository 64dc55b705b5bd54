// PlanExecutor: the serving runtime's executor on real oneDNN plans (a serve::Executor). A batch runs the
// workload's compiled plan (backend/plan.h) for the batch's dims rounded up to a bucket, so that a few plans
// serve every batch size; requests carry no payload, the plans' inputs hold seeded data (what is measured is
// the kernels, not the copy-in).
//
// Plans live in a PlanCache keyed by (plan knobs, bucket dims), bounded by a count and a memory budget (least
// recently used plans are evicted first). A plan not in the cache is compiled by the cache's compile thread,
// off the hot path; until it is ready the batch runs on a ready plan of the same bucket dims, or of a larger
// summing dim up to twice it (recorded as substituted), or, when there is none, waits for the compile (recorded
// as compile wait). A config oneDNN cannot compile on this host (bf16 below AVX-512) falls back to the default
// config's plan, once per key.
//
// Placement: an executor may be pinned to one core (per_core placement: the dispatcher thread and therefore
// its single-threaded plans run there; sched_setaffinity on the calling thread, with the core taken from the
// process's allowed set) and caps the plans' thread count (`max_threads`: 1 per core). The cache is shared by
// the executors of one serve run; each executor runs one batch at a time, and a plan is used by one executor at
// a time: plans are per executor (the cache key includes a unique owner id per executor), and the plan an
// executor leased last is never evicted.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "backend/plan.h"
#include "backend/plan_compiler.h"
#include "common/workload.h"
#include "runtime/serve/server.h"
#include "search_space/search_space.h"

namespace crmap {

// The bucket a batch's dims run at: the summing dim rounded up to the next of 1, 2, 3, 4, 6, 8, 12, 16, 24,
// ... (powers of two and 1.5x them), capped at its range's max; other dims unchanged.
Dims BucketDims(const Workload& workload, const Dims& dims);

struct PlanCacheOptions {
  size_t max_plans = 64;
  int64_t memory_budget_bytes = int64_t{2} << 30;  // ready plans' peak bytes, summed
  bool background_compile = true;                  // false: compile on the calling thread (no substitution)
  CompileOptions compile;
};

struct PlanCacheStats {
  int64_t compiles = 0, compile_failures = 0, evictions = 0, hits = 0, substitutions = 0;
  double compile_ms_total = 0;
  int64_t bytes = 0;
  size_t plans = 0;
};

class PlanCache {
 public:
  PlanCache(const Workload& workload, const SearchSpace& space, PlanCacheOptions options);
  ~PlanCache();
  PlanCache(const PlanCache&) = delete;
  PlanCache& operator=(const PlanCache&) = delete;

  // A plan for `config` (its threads knob already capped by the executor) at `dims` (already bucketed), tagged
  // `owner` (one executor): ready -> returned; otherwise compiled (in the background when allowed) and,
  // meanwhile, a ready plan of the owner's is returned with *substituted set: one of the same dims (any config),
  // else the one of the smallest larger summing dim, at most twice `dims`', with the other dims equal (the batch
  // padded further along the dim it adds up on, as a bucket already pads it; the same config preferred among
  // equals); only when there is neither does the call wait. *compile_wait_us is how long this call waited.
  // Fails only when neither the config nor the default config compiles.
  struct Lease {
    Plan* plan = nullptr;
    std::string config;  // the config the plan was compiled for (canonical string)
    bool substituted = false;
    double compile_wait_us = 0;
  };
  // `substitute` false: never a stand-in; wait for the plan's compile (a warm-up).
  Result<Lease> Acquire(const Config& config, const Dims& dims, const std::string& owner, bool substitute = true);
  PlanCacheStats stats() const;

 private:
  struct Entry {
    enum class State { kCompiling, kReady, kFailed } state = State::kCompiling;
    std::unique_ptr<Plan> plan;
    Config config;
    Dims dims;
    std::string owner;
    std::string error;
    int64_t bytes = 0;
    uint64_t last_used = 0;
  };
  std::string Key(const Config& config, const Dims& dims, const std::string& owner) const;
  // The ready plan of `owner`'s that can run a batch at `dims` instead of `config`'s plan (see Acquire), or end.
  std::map<std::string, Entry>::iterator SubstituteLocked(const Config& config, const Dims& dims,
                                                          const std::string& owner);
  void Enqueue(const std::string& key, const Config& config, const Dims& dims, const std::string& owner);
  void CompileLoop();
  void Compile(const std::string& key);
  void EvictLocked(const std::string& keep);
  bool Leased(const std::string& key) const;
  void LeaseLocked(const std::string& owner, const std::string& key);

  const Workload& workload_;
  const SearchSpace& space_;
  const PlanCacheOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, Entry> entries_;
  std::deque<std::string> jobs_;
  std::map<std::string, std::string> leased_;  // owner -> key of the plan it runs
  uint64_t clock_ = 0;
  bool stopping_ = false;
  PlanCacheStats stats_;
  std::thread compiler_;
};

class PlanExecutor : public serve::Executor {
 public:
  // `core` < 0: not pinned. `max_threads` caps the config's threads knob.
  PlanExecutor(const SearchSpace& space, const Workload& workload, PlanCache* cache, int max_threads, int core);
  std::string name() const override;
  serve::Execution Run(const Dims& dims, const std::string& config) override;
  // Runs the plan of `config` itself, waiting for its compile rather than running a ready stand-in.
  serve::Execution Warm(const Dims& dims, const std::string& config) override;
  // Keeps the team of the plan that ran last warm (backend/team_warmer.h); nothing for a 1-thread plan.
  double KeepWarm(double budget_us, const std::function<bool()>& stop_waiting) override;

 private:
  serve::Execution RunPlan(const Dims& dims, const std::string& config, bool substitute);
  const SearchSpace& space_;
  const Workload& workload_;
  PlanCache* cache_;
  static int NextExecutorId();
  const int max_threads_;
  const int core_;
  const std::string owner_;  // unique per executor: the cache's lease owner
  std::thread::id pinned_thread_;  // the thread last pinned to core_ (warm-up and dispatch may differ)
  int last_threads_ = 1;  // of the plan that ran last
};

// The CPU ids this process may run on (sched_getaffinity), ascending: per_core placement pins executor i to
// the i-th of them.
std::vector<int> AllowedCpus();

}  // namespace crmap
