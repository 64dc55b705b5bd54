// The hook's concurrency under ThreadSanitizer: built with -fsanitize=thread from only the hook's sources (no
// gtest, LibTorch, oneDNN or JSON), run with TSAN_OPTIONS=halt_on_error=1 so that any data race fails it.
//
// Three threads decide (and observe each decision) at random dims, one reads metrics, one reloads between two
// policies in a loop and also tries a bad file. Every decision must be OK and one of the two policies' answers
// for its dims (computed up front with PolicyModel). Runs until enough reloads and decisions have overlapped;
// no wall-clock limits. Then two smaller phases: two threads observe the same decisions concurrently (each
// decision must be accepted exactly once), and threads read a fallback-only hook's dim names while another
// reloads a real policy into it. Exit status 0 on success, 1 with a message on any failure.
#include <atomic>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tests/runtime/hook/policy_test_support.h"
#include "runtime/hook/crmap_hook.h"
#include "runtime/hook/policy_model.h"

namespace {

using crmap::PolicyModel;

int Fail(const std::string& message) {
  std::fprintf(stderr, "hook_tsan_test: FAILED: %s\n", message.c_str());
  return 1;
}

std::string Answer(const PolicyModel& model, const int64_t* dims) {
  std::vector<uint32_t> config(model.knob_count());
  long entry = model.FindTableEntry(dims);
  if (entry >= 0)
    config = model.file().table[static_cast<size_t>(entry)].config;
  else
    model.Decide(dims, config.data());
  return crmap::PolicyConfigString(model.file().knobs, config);
}

// Two threads observe every one of `count` decisions: each must be accepted exactly once.
bool EveryDecisionIsObservedOnce(crmap_hook* hook, const std::vector<int64_t>& dims, int count, std::string* error) {
  std::vector<uint64_t> ids;
  for (int i = 0; i < count; ++i) {
    crmap_decision d;
    if (crmap_hook_decide(hook, dims.data(), dims.size(), nullptr, &d) != CRMAP_OK) {
      *error = crmap_hook_last_error();
      return false;
    }
    ids.push_back(d.decision_id);
  }
  std::atomic<int> accepted{0};
  auto observer = [&] {
    for (uint64_t id : ids)
      if (crmap_hook_observe(hook, id, 50, 1) == CRMAP_OK) ++accepted;
  };
  std::thread first(observer), second(observer);
  first.join();
  second.join();
  if (accepted.load() != count) {
    *error = std::to_string(accepted.load()) + " observations accepted for " + std::to_string(count) + " decisions";
    return false;
  }
  return true;
}

// Readers of a fallback-only hook's dims while another thread reloads a real policy into it: they see either
// no dims or the policy's, never anything else.
bool DimNamesArePublishedSafely(const std::string& bad_path, const std::string& good_path,
                                const std::vector<std::string>& expected, std::string* error) {
  crmap_open_options options{};
  options.fallback_config = "threads=1";
  crmap_hook* hook = nullptr;
  if (crmap_hook_open(bad_path.c_str(), &options, &hook) == CRMAP_OK || !hook) {
    *error = "the bad policy opened, or no fallback hook";
    return false;
  }
  std::atomic<bool> reloaded{false};
  std::atomic<int> wrong{0};
  auto reader = [&] {
    for (int n = 0; n < 2000 || !reloaded.load(); ++n) {
      size_t count = crmap_hook_dim_count(hook);
      if (count != 0 && count != expected.size()) ++wrong;
      for (size_t i = 0; i < count; ++i) {
        const char* name = crmap_hook_dim_name(hook, i);
        if (!name || expected[i] != name) ++wrong;
      }
    }
  };
  std::thread r1(reader), r2(reader);
  if (crmap_hook_reload(hook, good_path.c_str()) != CRMAP_OK) ++wrong;
  reloaded = true;
  r1.join();
  r2.join();
  crmap_hook_close(hook);
  if (wrong.load()) {
    *error = std::to_string(wrong.load()) + " wrong dim reads";
    return false;
  }
  return true;
}

}  // namespace

int main() {
  crmap::testing::SyntheticPolicyOptions a, b;
  a.workload = b.workload = crmap::testing::TestWorkload::kBertAttention;  // two dims
  a.seed = 1;
  b.seed = 2;
  crmap::PolicyFile policy_a = crmap::testing::MakeSyntheticPolicy(a);
  crmap::PolicyFile policy_b = crmap::testing::MakeSyntheticPolicy(b);
  const std::string path_a = crmap::testing::WriteTestPolicy("tsan_a.policy", policy_a);
  const std::string path_b = crmap::testing::WriteTestPolicy("tsan_b.policy", policy_b);
  const std::string path_bad = crmap::testing::TestTempPath("tsan_bad.policy");
  if (path_a.empty() || path_b.empty() || !crmap::testing::WriteBytes(path_bad, "CRMAPPOL garbage"))
    return Fail("cannot write the test policies");
  auto model_a = PolicyModel::Create(policy_a);
  auto model_b = PolicyModel::Create(policy_b);
  if (!model_a.ok() || !model_b.ok()) return Fail("synthetic policies do not load");

  std::vector<std::vector<int64_t>> dims;
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int64_t> batch(1, 20), seq(4, 600);  // partly out of range
  for (int i = 0; i < 256; ++i) dims.push_back({batch(rng), seq(rng)});
  for (const auto& e : policy_a.table) dims.push_back(e.dims);
  std::vector<std::string> answer_a, answer_b;
  for (const auto& d : dims) {
    answer_a.push_back(Answer(**model_a, d.data()));
    answer_b.push_back(Answer(**model_b, d.data()));
  }

  crmap_hook* hook = nullptr;
  if (crmap_hook_open(path_a.c_str(), nullptr, &hook) != CRMAP_OK) return Fail(crmap_hook_last_error());

  constexpr uint64_t kMinReloads = 30;
  constexpr uint64_t kMinDecisionsPerThread = 3000;
  std::atomic<uint64_t> reloads{0}, failures{0}, foreign{0}, deciders_done{0};
  auto decider = [&](uint64_t seed) {
    std::mt19937_64 local(seed);
    std::uniform_int_distribution<size_t> pick(0, dims.size() - 1);
    for (uint64_t n = 0; n < kMinDecisionsPerThread || reloads.load() < kMinReloads; ++n) {
      size_t i = pick(local);
      crmap_decision d;
      crmap_telemetry telemetry{static_cast<double>(n % 7), 100};
      if (crmap_hook_decide(hook, dims[i].data(), 2, &telemetry, &d) != CRMAP_OK) {
        ++failures;
        continue;
      }
      if (d.config != answer_a[i] && d.config != answer_b[i]) ++foreign;
      crmap_hook_observe(hook, d.decision_id, 10.0 + static_cast<double>(i), 1.0);  // may be unknown: fine
    }
    ++deciders_done;
  };
  std::vector<std::thread> threads;
  for (uint64_t t = 0; t < 3; ++t) threads.emplace_back(decider, 10 + t);
  threads.emplace_back([&] {
    while (deciders_done.load() < 3) {
      crmap_metrics m;
      if (crmap_hook_metrics(hook, &m) != CRMAP_OK || m.policy_generation == 0) ++failures;
      std::this_thread::yield();
    }
  });
  threads.emplace_back([&] {
    for (uint64_t n = 0; deciders_done.load() < 3; ++n) {
      if (crmap_hook_reload(hook, (n % 2 ? path_a : path_b).c_str()) != CRMAP_OK) ++failures;
      if (n % 8 == 0 && crmap_hook_reload(hook, path_bad.c_str()) != CRMAP_ERR_CORRUPTION) ++failures;
      ++reloads;
    }
  });
  for (auto& t : threads) t.join();

  crmap_metrics m;
  if (crmap_hook_metrics(hook, &m) != CRMAP_OK) return Fail("metrics");
  std::string error;
  if (!EveryDecisionIsObservedOnce(hook, dims[0], 2000, &error)) return Fail("observe once: " + error);
  crmap_hook_close(hook);
  std::vector<std::string> dim_names;
  for (const auto& d : policy_a.dims) dim_names.push_back(d.name);
  if (!DimNamesArePublishedSafely(path_bad, path_a, dim_names, &error)) return Fail("dim names: " + error);
  if (failures.load()) return Fail(std::to_string(failures.load()) + " failed calls");
  if (foreign.load()) return Fail(std::to_string(foreign.load()) + " decisions matched neither policy");
  if (m.reloads != reloads.load() || m.policy_generation != reloads.load() + 1)
    return Fail("reload counters: " + std::to_string(m.reloads) + " reloads, generation " +
                std::to_string(m.policy_generation) + ", expected " + std::to_string(reloads.load()));
  std::printf("hook_tsan_test: ok: %llu decisions, %llu observations, %llu reloads, %llu cache hits\n",
              static_cast<unsigned long long>(m.decisions), static_cast<unsigned long long>(m.observations),
              static_cast<unsigned long long>(m.reloads), static_cast<unsigned long long>(m.cache_hits));
  return 0;
}
