// Google Benchmark of crmap_hook_decide: a table hit, a cache hit and a network evaluation, on 1 and 2 threads,
// next to LibTorch running the same policy network (greedy decode, same architecture and width).
//
// Every call is timed on its own with steady_clock, so that the p50 and p99 of single decisions — what a
// serving runtime pays per batch — are reported as counters next to Google Benchmark's mean (clock overhead,
// ~20 ns, is included). Usage: crmap_hook_benchmark --policy P.policy [google benchmark flags]
#include <algorithm>
#include <atomic>
#include <thread>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "agents/policy_network.h"
#include "datasets/catalog.h"
#include "search_space/features.h"
#include "runtime/hook/crmap_hook.h"
#include "runtime/hook/policy_file.h"

namespace {

std::string g_policy_path;
crmap_hook* g_hook = nullptr;
std::vector<int64_t> g_table_dims;  // a tuned shape
std::vector<int64_t> g_unseen_dims;  // a shape not in the table

// Per-call samples of all threads of one benchmark run.
std::mutex g_samples_mutex;
std::vector<double> g_samples;

std::atomic<int> g_reported{0};

void Report(benchmark::State& state, std::vector<double>& local) {
  {
    std::lock_guard<std::mutex> lock(g_samples_mutex);
    g_samples.insert(g_samples.end(), local.begin(), local.end());
  }
  g_reported.fetch_add(1);
  if (state.thread_index() != 0) return;
  while (g_reported.load() < state.threads()) std::this_thread::yield();  // every thread's samples are in
  g_reported.store(0);
  std::lock_guard<std::mutex> lock(g_samples_mutex);
  std::vector<double> all = std::move(g_samples);
  g_samples.clear();
  if (all.empty()) return;
  std::sort(all.begin(), all.end());
  auto pct = [&](double q) { return all[std::min(all.size() - 1, static_cast<size_t>(q * (all.size() - 1)))]; };
  state.counters["p50_ns"] = pct(0.50);
  state.counters["p99_ns"] = pct(0.99);
  state.counters["samples"] = static_cast<double>(all.size());
}

template <typename Call>
void TimedLoop(benchmark::State& state, Call call) {
  std::vector<double> local;
  local.reserve(1 << 20);
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    call();
    auto end = std::chrono::steady_clock::now();
    if (local.size() < (1u << 20)) local.push_back(std::chrono::duration<double, std::nano>(end - start).count());
  }
  Report(state, local);
}

void BM_DecideTableHit(benchmark::State& state) {
  crmap_decision decision;
  TimedLoop(state, [&] {
    crmap_hook_decide(g_hook, g_table_dims.data(), g_table_dims.size(), nullptr, &decision);
    benchmark::DoNotOptimize(decision.decision_id);
  });
  if (decision.source != CRMAP_SOURCE_TABLE) state.SkipWithError("expected table hits");
}

void BM_DecideCacheHit(benchmark::State& state) {
  crmap_decision decision;
  crmap_hook_decide(g_hook, g_unseen_dims.data(), g_unseen_dims.size(), nullptr, &decision);  // fills the cache
  TimedLoop(state, [&] {
    crmap_hook_decide(g_hook, g_unseen_dims.data(), g_unseen_dims.size(), nullptr, &decision);
    benchmark::DoNotOptimize(decision.decision_id);
  });
  if (decision.source != CRMAP_SOURCE_POLICY) state.SkipWithError("expected policy answers");
}

void BM_DecideNetwork(benchmark::State& state) {
  // Every call a dims value never asked before: a cache miss, so the network runs.
  crmap_decision decision;
  std::vector<int64_t> dims = g_unseen_dims;
  int64_t next = 1000000 + 1000000 * static_cast<int64_t>(state.thread_index());
  TimedLoop(state, [&] {
    dims[0] = next++;
    crmap_hook_decide(g_hook, dims.data(), dims.size(), nullptr, &decision);
    benchmark::DoNotOptimize(decision.decision_id);
  });
}

// LibTorch running the same architecture: the policy network's greedy decode (agents/policy_network.h).
void BM_LibTorchPolicyForward(benchmark::State& state) {
  static std::unique_ptr<crmap::SearchSpace> space;
  static std::unique_ptr<crmap::PolicyNetwork> network;
  static std::once_flag once;
  static size_t dims_count = 0;
  std::call_once(once, [] {
    auto file = crmap::ReadPolicyFile(g_policy_path);
    auto workload = crmap::LoadWorkload(file->workload);
    space = std::make_unique<crmap::SearchSpace>(crmap::SearchSpace::Build(*workload).value());
    dims_count = file->dims.size();
    network = std::make_unique<crmap::PolicyNetwork>(*space, dims_count, 1,
                                                     crmap::PolicyOptions{static_cast<int>(file->policy.trunk1.out)});
  });
  std::mt19937_64 rng(1);
  std::vector<float> features(dims_count, 0.5f);
  crmap::KnobMask mask = crmap::AllowAll(*space);
  TimedLoop(state, [&] {
    crmap::Config c = network->Sample(features, mask, rng, /*greedy=*/true);
    benchmark::DoNotOptimize(c.values.data());
  });
}

}  // namespace

BENCHMARK(BM_DecideTableHit)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_DecideCacheHit)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_DecideNetwork)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_LibTorchPolicyForward)->Threads(1)->UseRealTime();

int main(int argc, char** argv) {
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--policy") == 0 && i + 1 < argc) {
      g_policy_path = argv[++i];
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (g_policy_path.empty()) {
    std::fprintf(stderr, "usage: %s --policy P.policy [benchmark flags]\n", argv[0]);
    return 2;
  }
  if (crmap_hook_open(g_policy_path.c_str(), nullptr, &g_hook) != CRMAP_OK) {
    std::fprintf(stderr, "crmap_hook_benchmark: %s\n", crmap_hook_last_error());
    return 2;
  }
  auto file = crmap::ReadPolicyFile(g_policy_path);
  if (!file.ok() || file->table.empty()) {
    std::fprintf(stderr, "crmap_hook_benchmark: the policy needs a table of tuned shapes\n");
    return 2;
  }
  g_table_dims = file->table[0].dims;
  g_unseen_dims = g_table_dims;
  g_unseen_dims[0] = g_table_dims[0] + 1;
  while (true) {  // a shape near the first tuned one that is not itself tuned
    bool tuned = false;
    for (const auto& e : file->table) tuned |= e.dims == g_unseen_dims;
    if (!tuned) break;
    ++g_unseen_dims[0];
  }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  crmap_hook_close(g_hook);
  return 0;
}
