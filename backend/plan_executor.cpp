#include "backend/plan_executor.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>

#include "backend/team_warmer.h"

namespace crmap {

Dims BucketDims(const Workload& workload, const Dims& dims) {
  Dims bucket = dims;
  const std::string& sum_dim = workload.batch_dim();
  auto it = bucket.find(sum_dim);
  if (sum_dim.empty() || it == bucket.end()) return bucket;
  const int64_t max = workload.dims().at(sum_dim).max;
  int64_t b = 1;
  while (b < it->second) {
    // 1, 2, 3, 4, 6, 8, 12, 16, ...: after a power of two p comes 1.5p (for p >= 2), then 2p.
    const bool power_of_two = (b & (b - 1)) == 0;
    b = power_of_two && b >= 2 ? b + b / 2 : (power_of_two ? b * 2 : b / 3 * 4);
  }
  it->second = std::min(b, max);
  return bucket;
}

std::vector<int> AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpus;
}

// --- PlanCache -------------------------------------------------------------------------------------------------

PlanCache::PlanCache(const Workload& workload, const SearchSpace& space, PlanCacheOptions options)
    : workload_(workload), space_(space), options_(std::move(options)) {
  if (options_.background_compile) compiler_ = std::thread([this] { CompileLoop(); });
}

PlanCache::~PlanCache() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (compiler_.joinable()) compiler_.join();
}

std::string PlanCache::Key(const Config& config, const Dims& dims, const std::string& owner) const {
  return space_.PlanKey(config) + "@" + DimsToText(dims) + "#" + owner;
}

void PlanCache::Enqueue(const std::string& key, const Config& config, const Dims& dims, const std::string& owner) {
  Entry& entry = entries_[key];
  entry.state = Entry::State::kCompiling;
  entry.config = config;
  entry.dims = dims;
  entry.owner = owner;
  jobs_.push_back(key);
  changed_.notify_all();
}

void PlanCache::CompileLoop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    if (stopping_) return;
    const std::string key = jobs_.front();
    jobs_.pop_front();
    lock.unlock();
    Compile(key);
    lock.lock();
  }
}

// Compiles the entry `key` (state kCompiling) without holding the lock during the compile.
void PlanCache::Compile(const std::string& key) {
  Config config;
  Dims dims;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return;
    config = it->second.config;
    dims = it->second.dims;
  }
  const auto begin = std::chrono::steady_clock::now();
  Result<Plan> plan = CompilePlan(workload_, space_, dims, config, options_.compile);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Entry& entry = entries_[key];
    stats_.compile_ms_total += ms;
    if (plan.ok()) {
      ++stats_.compiles;
      entry.plan = std::make_unique<Plan>(std::move(plan).value());
      entry.bytes = entry.plan->info().peak_bytes;
      entry.state = Entry::State::kReady;
      entry.last_used = ++clock_;
      stats_.bytes += entry.bytes;
      EvictLocked(key);
    } else {
      ++stats_.compile_failures;
      entry.state = Entry::State::kFailed;
      entry.error = plan.status().message();
    }
  }
  changed_.notify_all();
}

// Evicts least recently used ready plans until the count and the budget hold; never `keep` nor a plan an
// executor holds (its last lease: an executor runs the plan it acquired until it acquires the next one).
void PlanCache::EvictLocked(const std::string& keep) {
  for (;;) {
    size_t ready = 0;
    for (const auto& [k, e] : entries_) ready += e.state == Entry::State::kReady;
    if (ready <= options_.max_plans && stats_.bytes <= options_.memory_budget_bytes) return;
    std::string victim;
    uint64_t oldest = UINT64_MAX;
    for (const auto& [k, e] : entries_)
      if (e.state == Entry::State::kReady && k != keep && e.last_used < oldest && !Leased(k)) {
        oldest = e.last_used;
        victim = k;
      }
    if (victim.empty()) return;
    stats_.bytes -= entries_[victim].bytes;
    entries_.erase(victim);
    ++stats_.evictions;
  }
}

void PlanCache::LeaseLocked(const std::string& owner, const std::string& key) {
  leased_[owner] = key;
  EvictLocked(key);  // the plan this owner ran before may go now
}

bool PlanCache::Leased(const std::string& key) const {
  for (const auto& [owner, leased] : leased_)
    if (leased == key) return true;
  return false;
}

std::map<std::string, PlanCache::Entry>::iterator PlanCache::SubstituteLocked(const Config& config, const Dims& dims,
                                                                             const std::string& owner) {
  const std::string& sum_dim = workload_.batch_dim();
  auto sum_of = [&](const Dims& d) {
    auto it = d.find(sum_dim);
    return it == d.end() ? int64_t{0} : it->second;
  };
  // Whether `d` differs from `dims` only in a larger summing dim, at most twice it (padding bounded: a 1-token
  // batch never runs on a 4,096-token plan), its other dims equal.
  auto holds = [&](const Dims& d) {
    if (sum_dim.empty() || d.size() != dims.size() || sum_of(d) <= sum_of(dims) || sum_of(d) > 2 * sum_of(dims))
      return false;
    for (const auto& [name, value] : dims)
      if (name != sum_dim && (!d.count(name) || d.at(name) != value)) return false;
    return true;
  };
  auto best = entries_.end();
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    const Entry& e = it->second;
    if (e.state != Entry::State::kReady || e.owner != owner) continue;
    if (e.dims == dims) return it;  // the same dims first, whatever its config
    if (!holds(e.dims)) continue;
    if (best == entries_.end() || sum_of(e.dims) < sum_of(best->second.dims) ||
        (sum_of(e.dims) == sum_of(best->second.dims) && e.config == config))
      best = it;
  }
  return best;
}

Result<PlanCache::Lease> PlanCache::Acquire(const Config& config, const Dims& dims, const std::string& owner,
                                            bool substitute) {
  const auto begin = std::chrono::steady_clock::now();
  auto waited_us = [&] {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - begin).count();
  };
  Config wanted = config;
  bool waited = false;  // for a compile of the plan returned (synchronous, or in the background)
  std::unique_lock<std::mutex> lock(mutex_);
  for (int attempt = 0; attempt < 2; ++attempt) {
    const std::string key = Key(wanted, dims, owner);
    auto it = entries_.find(key);
    if (it == entries_.end()) {
      if (!options_.background_compile) {
        Entry& entry = entries_[key];
        entry.config = wanted;
        entry.dims = dims;
        entry.owner = owner;
        lock.unlock();
        Compile(key);
        lock.lock();
        waited = true;
      } else {
        Enqueue(key, wanted, dims, owner);
      }
      it = entries_.find(key);
    }
    if (it != entries_.end() && it->second.state == Entry::State::kCompiling) {
      // Meanwhile (unless a warm-up), a ready plan of the owner's that holds the batch (SubstituteLocked).
      if (substitute)
        if (auto found = SubstituteLocked(wanted, dims, owner); found != entries_.end()) {
          Entry& e = found->second;
          e.last_used = ++clock_;
          ++stats_.substitutions;
          LeaseLocked(owner, found->first);
          return Lease{e.plan.get(), space_.ToString(e.config), true, 0};
        }
      waited = true;
      changed_.wait(lock, [&] {
        auto found = entries_.find(key);
        return stopping_ || found == entries_.end() || found->second.state != Entry::State::kCompiling;
      });
      it = entries_.find(key);
    }
    if (it != entries_.end() && it->second.state == Entry::State::kReady) {
      it->second.last_used = ++clock_;
      if (attempt > 0) {
        ++stats_.substitutions;  // the default config's plan stands in for one that cannot compile here
      } else if (!waited) {
        ++stats_.hits;
      }
      LeaseLocked(owner, key);
      return Lease{it->second.plan.get(), space_.ToString(it->second.config), attempt > 0,
                   waited ? waited_us() : 0};
    }
    const std::string error = it != entries_.end() ? it->second.error : "evicted while compiling";
    if (wanted == space_.PlanPart(space_.Default()) || attempt == 1)
      return Status::Unsupported("no plan for " + space_.ToString(config) + " at " + DimsToText(dims) + ": " + error);
    // The config cannot compile here (e.g. bf16 below AVX-512): the default config's plan instead.
    wanted = space_.PlanPart(space_.Default());
    const int threads_knob = space_.FindKnobOfKind(KnobKind::kThreads);
    if (threads_knob >= 0) wanted.values[threads_knob] = config.values[threads_knob];
  }
  return Status::Internal("unreachable");
}

PlanCacheStats PlanCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  PlanCacheStats s = stats_;
  for (const auto& [k, e] : entries_) s.plans += e.state == Entry::State::kReady;
  return s;
}

// --- PlanExecutor ----------------------------------------------------------------------------------------------

PlanExecutor::PlanExecutor(const SearchSpace& space, const Workload& workload, PlanCache* cache, int max_threads,
                           int core)
    : space_(space),
      workload_(workload),
      cache_(cache),
      max_threads_(std::max(1, max_threads)),
      core_(core),
      owner_("executor " + std::to_string(NextExecutorId())) {}

int PlanExecutor::NextExecutorId() {
  static std::atomic<int> next{0};
  return next++;
}

std::string PlanExecutor::name() const {
  return core_ >= 0 ? "onednn[cpu " + std::to_string(core_) + "]" : "onednn";
}

serve::Execution PlanExecutor::Run(const Dims& dims, const std::string& config_text) {
  return RunPlan(dims, config_text, /*substitute=*/true);
}

serve::Execution PlanExecutor::Warm(const Dims& dims, const std::string& config_text) {
  return RunPlan(dims, config_text, /*substitute=*/false);
}

serve::Execution PlanExecutor::RunPlan(const Dims& dims, const std::string& config_text, bool substitute) {
  serve::Execution execution;
  if (core_ >= 0 && pinned_thread_ != std::this_thread::get_id()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(core_, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) {
      execution.status = Status::Internal("could not pin the executor to cpu " + std::to_string(core_));
      return execution;
    }
    pinned_thread_ = std::this_thread::get_id();
  }
  auto parsed = space_.Parse(config_text);
  if (!parsed.ok()) {
    execution.status = parsed.status();
    return execution;
  }
  Config config = space_.PlanPart(*parsed);
  // The thread cap (1 per pinned core): the largest threads value within it.
  const int threads_knob = space_.FindKnobOfKind(KnobKind::kThreads);
  if (threads_knob >= 0) {
    const auto& values = space_.knobs()[threads_knob].values;
    if (std::stoi(values[config.values[threads_knob]]) > max_threads_) {
      int best = 0;
      for (size_t i = 0; i < values.size(); ++i)
        if (std::stoi(values[i]) <= max_threads_ && std::stoi(values[i]) >= std::stoi(values[best]))
          best = static_cast<int>(i);
      config.values[threads_knob] = best;
    }
  }
  auto lease = cache_->Acquire(config, BucketDims(workload_, dims), owner_, substitute);
  if (!lease.ok()) {
    execution.status = lease.status();
    return execution;
  }
  execution.config_run = lease->config;
  execution.substituted = lease->substituted;
  execution.compile_wait_us = lease->compile_wait_us;
  last_threads_ = lease->plan->info().threads;
  execution.status = lease->plan->Execute();
  return execution;
}

double PlanExecutor::KeepWarm(double budget_us, const std::function<bool()>& stop_waiting) {
  return KeepTeamWarm(last_threads_, budget_us, stop_waiting);
}

}  // namespace crmap
