#include "runtime/serve/server.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

namespace crmap::serve {
namespace {

RequestStream Stream(int n, double gap_us, int streams = 1) {
  RequestStream stream;
  for (int i = 0; i < n; ++i) {
    ServeRequest r;
    r.id = i;
    r.arrival_us = gap_us * i;
    r.dims = {{"tokens", 1 + i % 7}};
    r.stream = i % streams;
    stream.requests.push_back(r);
  }
  stream.report.requests = n;
  stream.report.duration_us = gap_us * (n - 1);
  return stream;
}

// Answers fixed limits; counts decisions and observations per config.
class FixedDecider : public Decider {
 public:
  explicit FixedDecider(BatchLimits limits) : limits_(limits) {}
  Decision Decide(const Dims& dims, int64_t) override {
    std::lock_guard<std::mutex> lock(mutex_);
    Decision d;
    d.config = "tokens=" + std::to_string(dims.at("tokens"));
    d.limits = limits_;
    d.source = "fixed";
    d.decision_id = ++decisions_;
    return d;
  }
  void Observe(const Decision& decision, double latency_us, double) override {
    std::lock_guard<std::mutex> lock(mutex_);
    observed_[decision.config] += 1;
    EXPECT_GE(latency_us, 0);
    ++observations_;
  }
  int observations() {
    std::lock_guard<std::mutex> lock(mutex_);
    return observations_;
  }
  uint64_t decisions() {
    std::lock_guard<std::mutex> lock(mutex_);
    return decisions_;
  }
  std::map<std::string, int> observed() {
    std::lock_guard<std::mutex> lock(mutex_);
    return observed_;
  }

 private:
  std::mutex mutex_;
  BatchLimits limits_;
  uint64_t decisions_ = 0;
  int observations_ = 0;
  std::map<std::string, int> observed_;
};

// Sleeps a scripted time per batch, or blocks until released; records the dims it ran.
class FakeExecutor : public Executor {
 public:
  explicit FakeExecutor(std::string name, double service_us = 50) : name_(std::move(name)), service_us_(service_us) {}
  std::string name() const override { return name_; }
  Execution Run(const Dims& dims, const std::string& config) override {
    if (gate_) gate_();
    std::this_thread::sleep_for(std::chrono::duration<double, std::micro>(service_us_));
    std::lock_guard<std::mutex> lock(mutex_);
    ran_.push_back(dims);
    Execution e;
    e.config_run = config;
    if (fail_) e.status = Status::Internal("kernel failed");
    e.compile_wait_us = compile_wait_us_;
    return e;
  }
  // Records what it warmed, then runs it like a batch.
  Execution Warm(const Dims& dims, const std::string& config) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      warmed_.push_back(Warmup{dims, config});
    }
    return Run(dims, config);
  }
  // Spins (like a real team) until told to stop, at most 10 s; counts the calls and how each ended.
  double KeepWarm(double budget_us, const std::function<bool()>& stop_waiting) override {
    const auto start = std::chrono::steady_clock::now();
    bool stopped = false;
    while (!(stopped = stop_waiting()) && std::chrono::steady_clock::now() - start < std::chrono::seconds(10) &&
           std::chrono::steady_clock::now() - start < std::chrono::duration<double, std::micro>(budget_us)) {
    }
    std::lock_guard<std::mutex> lock(mutex_);
    ++keep_warm_calls_;
    if (stopped) ++keep_warm_stopped_;
    budgets_.push_back(budget_us);
    return 7;  // thread-microseconds, summed by the server
  }
  std::function<void()> gate_;
  bool fail_ = false;
  double compile_wait_us_ = 0;  // reported by every run
  std::vector<Dims> ran_;
  std::vector<Warmup> warmed_;
  int keep_warm_calls_ = 0, keep_warm_stopped_ = 0;
  std::vector<double> budgets_;

 private:
  std::string name_;
  double service_us_;
  std::mutex mutex_;
};

ServerOptions KeepingRecords() {
  ServerOptions options;
  options.keep_records = true;
  return options;
}

// Holds `executor`'s first batch until `released` requests have arrived, then raises the stop (with --on-stop
// reject) while the rest are queued, and lets the generator's drain loop see it before the batch ends.
struct StopDuringFirstBatch {
  StopDuringFirstBatch(FakeExecutor* executor, ServerOptions* options, int64_t released_before_stop) {
    executor->gate_ = [this, released_before_stop] {
      if (++runs != 1) return;
      for (int i = 0; i < 6000 && released.load() < released_before_stop; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      stop = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    };
    options->stop = &stop;
    options->on_stop = OnStop::kRejectQueued;
    options->progress_interval_us = 0;
    options->on_progress = [this](const ServeProgress& p) { released = p.released; };
  }
  std::atomic<bool> stop{false};
  std::atomic<int> runs{0};
  std::atomic<int64_t> released{0};
};

// Every released request is in the records once, and the run's statistics counted each record's outcome.
void ExpectEveryRequestOnce(const ServeResult& result, const RequestStream& stream) {
  std::vector<int> seen(stream.requests.size(), 0);
  int64_t completed = 0, failed = 0, rejected = 0;
  for (const RequestRecord& r : result.records) {
    ++seen.at(r.id);
    completed += r.outcome == Outcome::kCompleted;
    failed += r.outcome == Outcome::kFailed;
    rejected += r.outcome == Outcome::kRejected;
  }
  int64_t released = 0;
  for (int s : seen) {
    EXPECT_LE(s, 1);
    released += s;
  }
  EXPECT_EQ(released + result.not_released, static_cast<int64_t>(stream.requests.size()));
  EXPECT_EQ(result.statistics.released, released);
  EXPECT_EQ(result.statistics.completed, completed);
  EXPECT_EQ(result.statistics.failed, failed);
  int64_t rejected_counted = 0;
  for (int64_t n : result.statistics.rejected) rejected_counted += n;
  EXPECT_EQ(rejected_counted, rejected);
  EXPECT_EQ(result.statistics.latency.count(), completed);
}

TEST(ServerTest, EveryRequestCompletesOnceInBatchesWithinTheLimits) {
  RequestStream stream = Stream(300, 20);
  FixedDecider decider(BatchLimits{8, 200});
  FakeExecutor a("fake[0]"), b("fake[1]");
  ServerOptions options = KeepingRecords();
  options.rule = BatchRule{"tokens", 4096};
  std::atomic<int> recorded{0};
  options.on_record = [&](const RequestRecord&) { ++recorded; };
  auto result = Serve(stream, decider, {&a, &b}, options);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->records.size(), 300u);
  ExpectEveryRequestOnce(*result, stream);
  EXPECT_EQ(recorded.load(), 300);
  std::map<int64_t, int> batch_sizes;
  for (const RequestRecord& r : result->records) {
    EXPECT_EQ(r.outcome, Outcome::kCompleted);
    EXPECT_LE(r.batch_size, 8);
    EXPECT_GE(r.start_us, r.arrival_us);
    EXPECT_GE(r.end_us, r.start_us);
    EXPECT_DOUBLE_EQ(r.queue_wait_us, r.start_us - r.arrival_us);
    EXPECT_EQ(r.source, "fixed");
    ++batch_sizes[r.batch_id];
  }
  EXPECT_EQ(static_cast<int64_t>(batch_sizes.size()), result->batches);
  for (const auto& [id, size] : batch_sizes) {
    for (const RequestRecord& r : result->records) {
      if (r.batch_id == id) {
        EXPECT_EQ(r.batch_size, size);
      }
    }
  }
  // One observation per batch, for the config that ran (the combined dims' decision).
  EXPECT_EQ(decider.observations(), result->batches);
  int64_t tokens_run = 0;
  for (const Dims& d : a.ran_) tokens_run += d.at("tokens");
  for (const Dims& d : b.ran_) tokens_run += d.at("tokens");
  int64_t tokens_asked = 0;
  for (const ServeRequest& r : stream.requests) tokens_asked += r.dims.at("tokens");
  EXPECT_EQ(tokens_run, tokens_asked);
}

// Chunks: every request completes once, the kernels run exactly the tokens asked, no batch holds more than a
// chunk of a long request, and a long request's record spans its chunks.
TEST(ServerTest, LongRequestsRunInChunksAndCompleteOnce) {
  RequestStream stream = Stream(200, 30);
  for (ServeRequest& r : stream.requests)
    if (r.id % 10 == 0) r.dims["tokens"] = 520;
  FixedDecider decider(BatchLimits{8, 100});
  FakeExecutor a("fake[0]"), b("fake[1]");
  a.compile_wait_us_ = b.compile_wait_us_ = 1;  // one unit per run: a record's sum counts its runs
  ServerOptions options = KeepingRecords();
  options.rule = BatchRule{"tokens", 4096, 128};
  int64_t batches_handed_out = 0;
  options.on_batch = [&](const BatchRecord&) { ++batches_handed_out; };
  auto result = Serve(stream, decider, {&a, &b}, options);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ExpectEveryRequestOnce(*result, stream);
  // Every batch is recorded, each chunk with more to run marked as one; a chunk's batch holds its one request.
  EXPECT_EQ(batches_handed_out, result->batches);
  ASSERT_EQ(static_cast<int64_t>(result->batch_records.size()), result->batches);
  int64_t marked_chunks = 0, batched = 0;
  for (const BatchRecord& batch : result->batch_records) {
    marked_chunks += batch.chunk;
    batched += batch.size;
    if (batch.chunk) {
      EXPECT_EQ(batch.size, 1);
      EXPECT_EQ(batch.dims.at("tokens"), 128);
    }
  }
  EXPECT_EQ(marked_chunks, 20 * 4);
  EXPECT_EQ(batched, 180 + 20 * 5);
  EXPECT_EQ(result->batched_requests, batched);
  int64_t tokens_run = 0, runs = 0, chunk_runs = 0;
  for (const FakeExecutor* e : {&a, &b})
    for (const Dims& d : e->ran_) {
      tokens_run += d.at("tokens");
      ++runs;
      chunk_runs += d.at("tokens") == 128;
    }
  int64_t tokens_asked = 0;
  for (const ServeRequest& r : stream.requests) tokens_asked += r.dims.at("tokens");
  EXPECT_EQ(tokens_run, tokens_asked);
  // Each 520-token request runs 4 chunks of 128 before its last 8; no other batch reaches 128 (at most 8
  // requests of at most 8 tokens).
  EXPECT_EQ(chunk_runs, 20 * 4);
  EXPECT_EQ(result->batches, runs);
  for (const RequestRecord& r : result->records) {
    EXPECT_EQ(r.outcome, Outcome::kCompleted);
    EXPECT_DOUBLE_EQ(r.service_us, r.end_us - r.start_us);
    EXPECT_DOUBLE_EQ(r.queue_wait_us, r.start_us - r.arrival_us);
    EXPECT_DOUBLE_EQ(r.compile_wait_us, r.dims.at("tokens") == 520 ? 5 : 1) << "request " << r.id;
  }
}

// The executor holds its first batch until all but three requests were refused: at most the one running and
// max_queue_size queued ones complete (two, when the dispatcher started after the queue had filled).
TEST(ServerTest, AFullQueueRejectsWhatArrivesWhileTheExecutorIsBusy) {
  const int n = 50;
  RequestStream stream = Stream(n, 10);
  FixedDecider decider(BatchLimits{1, 0});
  FakeExecutor executor("fake", 0);
  std::mutex mutex;
  std::condition_variable changed;
  int rejected = 0;
  bool first = true;
  executor.gate_ = [&] {
    std::unique_lock<std::mutex> lock(mutex);
    if (!first) return;
    first = false;
    changed.wait_for(lock, std::chrono::minutes(1), [&] { return rejected >= n - 3; });
  };
  StreamSettings bounded;
  bounded.policy.max_queue_size = 2;
  ServerOptions options = KeepingRecords();
  options.streams = {bounded};
  options.on_record = [&](const RequestRecord& r) {
    if (r.outcome != Outcome::kRejected) return;
    std::lock_guard<std::mutex> lock(mutex);
    EXPECT_EQ(r.reason, RejectReason::kQueueFull);
    ++rejected;
    changed.notify_all();
  };
  auto result = Serve(stream, decider, {&executor}, options);
  ASSERT_TRUE(result.ok());
  ExpectEveryRequestOnce(*result, stream);
  int completed = 0, refused = 0;
  for (const RequestRecord& r : result->records) {
    completed += r.outcome == Outcome::kCompleted;
    refused += r.outcome == Outcome::kRejected;
  }
  EXPECT_EQ(completed + refused, n);
  EXPECT_GE(completed, 2);
  EXPECT_LE(completed, 3);
}

// Arrivals go on while a dispatcher holds the records: its on_record waits until progress reports every request
// released (at most 60 s), which it can only do if the rejections at arrival meanwhile did not wait for the
// records. They are recorded later, once each, as rejected at their arrival.
TEST(ServerTest, RejectionsAtArrivalNeverWaitForTheRecords) {
  const int n = 60;
  RequestStream stream = Stream(n, 2000);
  FixedDecider decider(BatchLimits{1, 0});
  FakeExecutor executor("fake", 0);
  StreamSettings bounded;
  bounded.policy.max_queue_size = 1;
  ServerOptions options = KeepingRecords();
  options.streams = {bounded};
  options.progress_interval_us = 0;  // every pass of the arrival thread
  std::mutex mutex;
  std::condition_variable changed;
  int64_t released = 0;
  options.on_progress = [&](const ServeProgress& p) {
    std::lock_guard<std::mutex> lock(mutex);
    released = p.released;
    changed.notify_all();
  };
  bool held = false, all_released_while_held = false;
  std::map<int64_t, int> seen;
  options.on_record = [&](const RequestRecord& r) {
    ++seen[r.id];  // serialised by the server
    if (held || r.outcome != Outcome::kCompleted) return;
    held = true;
    std::unique_lock<std::mutex> lock(mutex);
    all_released_while_held = changed.wait_for(lock, std::chrono::seconds(60), [&] { return released == n; });
  };
  auto result = Serve(stream, decider, {&executor}, options);
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(all_released_while_held) << "arrivals waited for the records";
  ExpectEveryRequestOnce(*result, stream);
  EXPECT_EQ(static_cast<int>(seen.size()), n);
  for (const auto& [id, times] : seen) EXPECT_EQ(times, 1) << "request " << id;
  int refused = 0;
  for (const RequestRecord& r : result->records) {
    if (r.outcome != Outcome::kRejected) continue;
    ++refused;
    EXPECT_EQ(r.reason, RejectReason::kQueueFull);
    EXPECT_DOUBLE_EQ(r.end_us, r.arrival_us) << "rejected as it arrived, whenever it was recorded";
  }
  EXPECT_GT(refused, 0);
  EXPECT_EQ(result->statistics.rejected[static_cast<size_t>(RejectReason::kQueueFull)], refused);
}

TEST(ServerTest, AStopEndsArrivalsAndRejectsWhatIsQueuedWhenAskedTo) {
  RequestStream stream = Stream(400, 500);  // 200 ms of arrivals
  FixedDecider decider(BatchLimits{1, 0});
  FakeExecutor executor("fake", 0);
  std::atomic<bool> stop{false};
  std::atomic<int> runs{0};
  // The fifth batch raises the stop and holds until the generator has seen it.
  executor.gate_ = [&] {
    if (++runs == 5) {
      stop = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  };
  ServerOptions options = KeepingRecords();
  options.stop = &stop;
  options.on_stop = OnStop::kRejectQueued;
  auto result = Serve(stream, decider, {&executor}, options);
  ASSERT_TRUE(result.ok());
  ExpectEveryRequestOnce(*result, stream);
  EXPECT_GT(result->not_released, 0);
  for (const RequestRecord& r : result->records) {
    if (r.outcome == Outcome::kRejected) {
      EXPECT_EQ(r.reason, RejectReason::kShutdown);
    }
  }
}

TEST(ServerTest, AFailingExecutorFailsItsRequestsAndTheRunGoesOn) {
  RequestStream stream = Stream(20, 10);
  FixedDecider decider(BatchLimits{4, 0});
  FakeExecutor executor("fake", 0);
  executor.fail_ = true;
  auto result = Serve(stream, decider, {&executor}, KeepingRecords());
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->records.size(), 20u);
  for (const RequestRecord& r : result->records) {
    EXPECT_EQ(r.outcome, Outcome::kFailed);
    EXPECT_EQ(r.error, "kernel failed");
  }
  EXPECT_EQ(decider.observations(), 0);  // a failed batch teaches the policy nothing
}

// Without a summing dim, requests batch only with equal dims and each needs its own kernel call.
TEST(ServerTest, RequestsThatDoNotAddUpRunOneCallEach) {
  RequestStream stream;
  for (int i = 0; i < 12; ++i) {
    ServeRequest r;
    r.id = i;
    r.arrival_us = 0;
    r.dims = {{"tokens", 4}};
    stream.requests.push_back(r);
  }
  FixedDecider decider(BatchLimits{4, 1e6});
  FakeExecutor executor("fake", 0);
  ServerOptions options = KeepingRecords();  // no BatchRule: nothing sums
  auto result = Serve(stream, decider, {&executor}, options);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(executor.ran_.size(), 12u);  // 12 calls, however the requests were batched
  for (const Dims& d : executor.ran_) EXPECT_EQ(d, (Dims{{"tokens", 4}}));
}

// A stop raised while the queues drain after the last arrival still rejects what is queued (kRejectQueued).
TEST(ServerTest, AStopDuringTheDrainRejectsWhatIsStillQueued) {
  RequestStream stream = Stream(30, 1);  // all released within ~30 us
  FixedDecider decider(BatchLimits{1, 0});
  FakeExecutor executor("fake", 0);
  ServerOptions options = KeepingRecords();
  StopDuringFirstBatch stopper(&executor, &options, 30);
  auto result = Serve(stream, decider, {&executor}, options);
  ASSERT_TRUE(result.ok());
  ExpectEveryRequestOnce(*result, stream);
  EXPECT_EQ(result->not_released, 0);
  int shutdown = 0;
  for (const RequestRecord& r : result->records) shutdown += r.outcome == Outcome::kRejected;
  EXPECT_GT(shutdown, 0);
}

// A stop between a long request's chunks rejects it with the rest of the queue (--on-stop reject): once, as
// shutdown, its remaining chunks never run.
TEST(ServerTest, AStopBetweenChunksRejectsTheRestOfALongRequest) {
  RequestStream stream = Stream(30, 1);
  stream.requests[0].dims["tokens"] = 520;
  FixedDecider decider(BatchLimits{1, 0});
  FakeExecutor executor("fake", 0);
  ServerOptions options = KeepingRecords();
  options.rule = BatchRule{"tokens", 4096, 128};
  StopDuringFirstBatch stopper(&executor, &options, 30);  // the long request's first chunk
  auto result = Serve(stream, decider, {&executor}, options);
  ASSERT_TRUE(result.ok());
  ExpectEveryRequestOnce(*result, stream);
  ASSERT_FALSE(result->records.empty());
  const RequestRecord& chunked = result->records.front();
  ASSERT_EQ(chunked.id, 0);
  EXPECT_EQ(chunked.outcome, Outcome::kRejected);
  EXPECT_EQ(chunked.reason, RejectReason::kShutdown);
  EXPECT_GT(chunked.start_us, 0) << "its first chunk ran: the record keeps when";
  EXPECT_LE(chunked.start_us, chunked.end_us);
  EXPECT_DOUBLE_EQ(chunked.queue_wait_us, chunked.start_us - chunked.arrival_us);
  EXPECT_DOUBLE_EQ(chunked.service_us, chunked.end_us - chunked.start_us);
  EXPECT_EQ(result->statistics.failed, 0);
  int64_t tokens_run = 0;
  for (const Dims& d : executor.ran_) tokens_run += d.at("tokens");
  EXPECT_LT(tokens_run, 520) << "its remaining chunks did not run";
}

TEST(ServerTest, ASpinningDecisionKeepsTheTeamWarmUntilTheNextArrival) {
  // Requests every 10 ms, served in 50 us: the executor is idle between them. Spinning "forever" must end at
  // each next arrival (or the end of the run), never hold a request back.
  RequestStream stream = Stream(20, 10000);
  BatchLimits limits{1, 0};
  limits.keep_warm_us = std::numeric_limits<double>::infinity();
  FixedDecider decider(limits);
  FakeExecutor executor("fake");
  auto result = Serve(stream, decider, {&executor}, KeepingRecords());
  ASSERT_TRUE(result.ok());
  ExpectEveryRequestOnce(*result, stream);
  // After a batch when nothing waits (under load, arrivals may bunch up: not after every one).
  EXPECT_GE(executor.keep_warm_calls_, 1);
  EXPECT_LE(executor.keep_warm_calls_, 20);
  for (double budget : executor.budgets_) EXPECT_TRUE(std::isinf(budget));
  EXPECT_EQ(executor.keep_warm_stopped_, executor.keep_warm_calls_) << "a spin outlived its arrival";
  EXPECT_DOUBLE_EQ(result->keep_warm_cpu_us, 7.0 * executor.keep_warm_calls_);
}

TEST(ServerTest, APassiveDecisionNeverSpins) {
  RequestStream stream = Stream(20, 1000);
  FixedDecider decider(BatchLimits{1, 0});
  FakeExecutor executor("fake");
  auto result = Serve(stream, decider, {&executor}, KeepingRecords());
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(executor.keep_warm_calls_, 0);
  EXPECT_EQ(result->keep_warm_cpu_us, 0);
}

TEST(ServerTest, AWarmUpRunsTheFirstDecisionOnEveryExecutorBeforeTheClockStarts) {
  RequestStream stream = Stream(30, 100);
  FixedDecider decider(BatchLimits{4, 0});
  FakeExecutor a("fake[0]"), b("fake[1]");
  std::atomic<int> recorded{0};
  std::atomic<int> runs_before_any_record{0};
  a.gate_ = b.gate_ = [&] {
    if (recorded.load() == 0) ++runs_before_any_record;
  };
  ServerOptions options = KeepingRecords();
  options.rule = BatchRule{"tokens", 4096};  // one executor call per batch
  options.warmup = true;
  options.on_record = [&](const RequestRecord&) { ++recorded; };
  auto result = Serve(stream, decider, {&a, &b}, options);
  ASSERT_TRUE(result.ok());
  ExpectEveryRequestOnce(*result, stream);
  // One untimed run per executor at the first request's dims, none of it recorded or observed.
  EXPECT_EQ(static_cast<int64_t>(a.ran_.size() + b.ran_.size()), result->batches + 2);
  ASSERT_FALSE(a.ran_.empty());
  ASSERT_FALSE(b.ran_.empty());
  EXPECT_EQ(a.ran_.front(), stream.requests.front().dims);
  EXPECT_EQ(b.ran_.front(), stream.requests.front().dims);
  EXPECT_GE(runs_before_any_record.load(), 2);
  EXPECT_EQ(decider.observations(), result->batches);
  EXPECT_GT(result->warmup_us, 0);
}

// With chunks, the warm-up compiles what the first request will run: its first chunk, not its whole length.
TEST(ServerTest, AWarmUpWithChunksRunsTheFirstRequestsFirstChunk) {
  RequestStream stream = Stream(3, 1000);
  stream.requests[0].dims["tokens"] = 520;
  FixedDecider decider(BatchLimits{1, 0});
  FakeExecutor a("fake[0]");
  ServerOptions options = KeepingRecords();
  options.rule = BatchRule{"tokens", 4096, 128};
  options.warmup = true;
  auto result = Serve(stream, decider, {&a}, options);
  ASSERT_TRUE(result.ok());
  ASSERT_FALSE(a.ran_.empty());
  EXPECT_EQ(a.ran_.front().at("tokens"), 128);
}

// Warm-ups run on every executor before the clock starts, after the first request's, none of them recorded; a
// warm-up without a config runs the one decided at its dims (asked once for all executors), one with a config
// runs that without asking.
TEST(ServerTest, WarmupShapesRunOnEveryExecutorBeforeTheFirstArrival) {
  RequestStream stream = Stream(10, 100);
  FixedDecider decider(BatchLimits{1, 0});
  FakeExecutor a("fake[0]"), b("fake[1]");
  ServerOptions options = KeepingRecords();
  options.rule = BatchRule{"tokens", 4096};
  options.warmup = true;
  options.warmups = {Warmup{{{"tokens", 64}}, ""}, Warmup{{{"tokens", 128}}, "given"}};
  auto result = Serve(stream, decider, {&a, &b}, options);
  ASSERT_TRUE(result.ok());
  ExpectEveryRequestOnce(*result, stream);
  EXPECT_EQ(static_cast<int64_t>(a.ran_.size() + b.ran_.size()), result->batches + 2 * 3);
  const std::string first = "tokens=" + std::to_string(stream.requests.front().dims.at("tokens"));
  for (const FakeExecutor* e : {&a, &b}) {
    ASSERT_EQ(e->warmed_.size(), 3u);
    EXPECT_EQ(e->warmed_[0].dims, stream.requests.front().dims);
    EXPECT_EQ(e->warmed_[0].config, first);
    EXPECT_EQ(e->warmed_[1].dims, (Dims{{"tokens", 64}}));
    EXPECT_EQ(e->warmed_[1].config, "tokens=64");
    EXPECT_EQ(e->warmed_[2].dims, (Dims{{"tokens", 128}}));
    EXPECT_EQ(e->warmed_[2].config, "given");
    ASSERT_GE(e->ran_.size(), 3u);
    EXPECT_EQ(e->ran_[0], stream.requests.front().dims) << "warm-ups before any batch";
  }
  EXPECT_EQ(static_cast<int64_t>(decider.decisions()), result->batches + 2) << "one decision per batch, two warm-ups";
  EXPECT_GT(result->warmup_us, 0);

  // Without the first request's warm-up, the shapes alone.
  FakeExecutor c("fake[2]");
  options.warmup = false;
  auto alone = Serve(stream, decider, {&c}, options);
  ASSERT_TRUE(alone.ok());
  ASSERT_GE(c.ran_.size(), 2u);
  EXPECT_EQ(c.ran_[0], (Dims{{"tokens", 64}}));
  EXPECT_EQ(static_cast<int64_t>(c.ran_.size()), alone->batches + 2);
}

TEST(ServerTest, TheRuntimeOverheadIsMeasuredPerBatchAfterEachDispatchersFirst) {
  RequestStream stream = Stream(200, 0);  // all at once: batches back to back
  FixedDecider decider(BatchLimits{4, 0});
  FakeExecutor a("fake[0]", 0), b("fake[1]", 0);
  auto result = Serve(stream, decider, {&a, &b}, KeepingRecords());
  ASSERT_TRUE(result.ok());
  int dispatchers_that_ran = (a.ran_.empty() ? 0 : 1) + (b.ran_.empty() ? 0 : 1);
  EXPECT_EQ(static_cast<int64_t>(result->statistics.overhead.count()), result->batches - dispatchers_that_ran);
}

// A server meant to run for hours keeps no record it was not asked to: the statistics count the same run.
TEST(ServerTest, WithoutKeepRecordsOnlyTheStatisticsRemain) {
  RequestStream stream = Stream(50, 100);
  FixedDecider decider(BatchLimits{4, 0});
  FakeExecutor executor("fake", 50);
  int64_t handed_out = 0;
  ServerOptions options;
  options.on_record = [&](const RequestRecord&) { ++handed_out; };
  auto result = Serve(stream, decider, {&executor}, options);
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE(result->records.empty());
  EXPECT_EQ(handed_out, 50);
  EXPECT_EQ(result->statistics.released, 50);
  EXPECT_EQ(result->statistics.completed, 50);
  EXPECT_EQ(result->statistics.latency.count(), 50);
  EXPECT_GT(result->wall_us, 0);
}

TEST(ServerTest, RefusesNoExecutorsAndIdsOutOfOrder) {
  RequestStream stream = Stream(3, 1);
  FixedDecider decider(BatchLimits{});
  EXPECT_EQ(Serve(stream, decider, {}, KeepingRecords()).status().code(), StatusCode::kInvalidArgument);
  stream.requests[1].id = 7;
  FakeExecutor executor("fake");
  EXPECT_EQ(Serve(stream, decider, {&executor}, KeepingRecords()).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace crmap::serve
