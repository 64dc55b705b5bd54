#include "runtime/serve/server.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

#include <time.h>

#include "common/numeric.h"

namespace crmap::serve {

const char* OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kCompleted: return "completed";
    case Outcome::kRejected: return "rejected";
    case Outcome::kFailed: return "failed";
  }
  return "?";
}

namespace {

using Clock = std::chrono::steady_clock;

// The longest the generator sleeps at once, so that a stop is noticed during a long gap between arrivals.
constexpr double kSleepSliceUs = 20000;

// CPU time of the whole process so far (every thread).
double ProcessCpuUs() {
  timespec now{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e6 + static_cast<double>(now.tv_nsec) / 1e3;
}

class Run {
 public:
  Run(const RequestStream& stream, Decider& decider, const ServerOptions& options)
      : stream_(stream),
        decider_(decider),
        options_(options),
        scheduler_(options.streams, options.rule) {}

  ServeResult Go(const std::vector<Executor*>& executors) {
    // Each dispatcher warms up on its own thread (an OpenMP team belongs to the thread that starts it), then
    // waits until every executor is warm and the clock has started.
    const Clock::time_point begin = Clock::now();
    std::mutex start_mutex;
    std::condition_variable start_changed;
    size_t warm = 0;
    bool started = false;
    std::vector<Warmup> warmups;
    if (options_.warmup && !stream_.requests.empty())
      warmups.push_back(Warmup{FirstRunDims(stream_.requests.front().dims), ""});
    warmups.insert(warmups.end(), options_.warmups.begin(), options_.warmups.end());
    for (Warmup& w : warmups)
      if (w.config.empty()) w.config = decider_.Decide(w.dims, 0).config;
    std::vector<std::thread> dispatchers;
    for (Executor* executor : executors)
      dispatchers.emplace_back([&, executor] {
        for (const Warmup& w : warmups) (void)executor->Warm(w.dims, w.config);
        {
          std::unique_lock<std::mutex> lock(start_mutex);
          ++warm;
          start_changed.notify_all();
          start_changed.wait(lock, [&] { return started; });
        }
        Dispatch(executor);
      });
    {
      std::unique_lock<std::mutex> lock(start_mutex);
      start_changed.wait(lock, [&] { return warm == executors.size(); });
      warmup_us_ = warmups.empty() ? 0 : std::chrono::duration<double, std::micro>(Clock::now() - begin).count();
      start_ = Clock::now();
      cpu_at_start_us_ = ProcessCpuUs();
      started = true;
      start_changed.notify_all();
    }
    Generate();
    for (auto& t : dispatchers) t.join();
    ServeResult result;
    result.records = std::move(kept_);
    std::sort(result.records.begin(), result.records.end(),
              [](const RequestRecord& a, const RequestRecord& b) { return a.id < b.id; });
    result.statistics = std::move(statistics_);
    result.batch_records = std::move(kept_batches_);
    result.batches = next_batch_id_;
    result.batched_requests = batched_requests_;
    result.keep_warm_cpu_us = keep_warm_cpu_us_;
    result.warmup_us = warmup_us_;
    result.process_cpu_us = ProcessCpuUs() - cpu_at_start_us_;
    result.not_released = static_cast<int64_t>(stream_.requests.size()) - released_;
    result.wall_us = result.statistics.last_end_us - result.statistics.first_arrival_us;
    return result;
  }

 private:
  double NowUs() const { return std::chrono::duration<double, std::micro>(Clock::now() - start_).count(); }
  Clock::time_point At(double us) const {
    return start_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::micro>(us));
  }
  bool StopRequested() const { return options_.stop && options_.stop->load(); }

  // The dims a request alone first runs at: its own, or its first chunk's when chunks cut it.
  Dims FirstRunDims(Dims dims) const {
    const BatchRule& rule = options_.rule;
    auto it = dims.find(rule.sum_dim);
    if (rule.chunk > 0 && it != dims.end() && it->second > rule.chunk) it->second = rule.chunk;
    return dims;
  }

  // From the generator thread: folds the rejections deferred at arrival when the records are free, and reports
  // progress every progress_interval_us (or when forced) without waiting for the records while arrivals go on
  // (a busy record lock reports the last recent p99 again).
  void Progress(bool force) {
    if (!rejected_at_arrival_.empty()) FinishAtArrival(std::nullopt, /*flush=*/false);
    if (!options_.on_progress) return;
    const double now = NowUs();
    if (!force && now < next_progress_us_) return;
    next_progress_us_ = now + options_.progress_interval_us;
    ServeProgress p;
    p.elapsed_us = now;
    p.total_us = options_.duration_us > 0 ? std::min(options_.duration_us, stream_.report.duration_us)
                                          : stream_.report.duration_us;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      p.released = released_;
      p.queue_depth = scheduler_.depth();
    }
    std::vector<double> recent;
    bool read_recent = false;
    {
      std::unique_lock<std::mutex> lock(record_mutex_, std::defer_lock);
      if (force) {
        lock.lock();
      } else {
        (void)lock.try_lock();
      }
      read_recent = lock.owns_lock();
      if (read_recent) recent = recent_latency_us_;
    }
    if (read_recent) {
      std::sort(recent.begin(), recent.end());
      last_recent_p99_us_ = Percentile(recent, 0.99);
    }
    p.done = done_.load();
    p.recent_p99_us = last_recent_p99_us_;
    options_.on_progress(p);
  }

  void Generate() {
    for (const ServeRequest& request : stream_.requests) {
      if (options_.duration_us > 0 && request.arrival_us > options_.duration_us) break;
      // Sleep until its time, in slices so that a stop is noticed.
      for (;;) {
        if (StopRequested()) break;
        const double wait = request.arrival_us - NowUs();
        if (wait <= 0) break;
        std::this_thread::sleep_until(At(NowUs() + std::min(wait, kSleepSliceUs)));
        Progress(false);
      }
      if (StopRequested()) break;
      std::optional<Rejection> rejected;
      const double now = NowUs();  // stamped before the locks: waiting for them is part of the request's latency
      {
        // In flight before a dispatcher can see it; a lock of its own, so that arrivals never wait for records
        // being folded or handed out.
        std::lock_guard<std::mutex> lock(in_flight_mutex_);
        RequestRecord& r = in_flight_[request.id];
        r.id = request.id;
        r.stream = request.stream;
        r.dims = request.dims;
        r.scheduled_us = request.arrival_us;
        r.arrival_us = now;
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        rejected = scheduler_.Arrive(request, now);
        ++released_;
        arrivals_seen_.fetch_add(1, std::memory_order_release);
      }
      if (rejected) FinishAtArrival(*rejected, /*flush=*/false);
      wake_.notify_all();
      Progress(false);
    }
    if (!rejected_at_arrival_.empty()) FinishAtArrival(std::nullopt, /*flush=*/true);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      arrivals_done_ = true;
      stopped_ = StopRequested();
    }
    arrivals_seen_.fetch_add(1, std::memory_order_release);  // ends any keep-warm spin
    wake_.notify_all();
    // Progress while the queues drain; a stop during the drain still applies --on-stop.
    for (;;) {
      {
        std::lock_guard<std::mutex> lock(record_mutex_);
        if (done_ >= released_) break;
      }
      if (StopRequested()) {
        bool newly = false;
        {
          std::lock_guard<std::mutex> lock(mutex_);
          newly = !stopped_;
          stopped_ = true;
        }
        if (newly) wake_.notify_all();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      Progress(false);
    }
    Progress(true);
  }

  // Records rejections (never called with mutex_ held).
  void Finish(const std::vector<Rejection>& rejections) {
    if (rejections.empty()) return;
    std::vector<RequestRecord> records;
    records.reserve(rejections.size());
    for (const Rejection& rejection : rejections) records.push_back(Rejected(rejection));
    std::lock_guard<std::mutex> lock(record_mutex_);
    for (RequestRecord& r : records) Done(std::move(r));
  }

  // Records a rejection at arrival from the generator thread without waiting for record_mutex_: while a dispatcher
  // holds it (folding a batch, handing records out), the record waits in rejected_at_arrival_ and goes at the
  // generator's next pass that finds the lock free (every arrival and every sleep slice, through Progress), or
  // with `flush` (which waits) once arrivals are over.
  void FinishAtArrival(const std::optional<Rejection>& rejection, bool flush) {
    if (rejection) rejected_at_arrival_.push_back(Rejected(*rejection));
    std::unique_lock<std::mutex> lock(record_mutex_, std::defer_lock);
    if (flush) {
      lock.lock();
    } else if (!lock.try_lock()) {
      return;
    }
    for (RequestRecord& r : rejected_at_arrival_) Done(std::move(r));
    rejected_at_arrival_.clear();
  }

  // A rejected request's record, out of the in-flight table. One whose chunks had started keeps that start: its
  // queue wait runs to it, its service from it to the rejection.
  RequestRecord Rejected(const Rejection& rejection) {
    RequestRecord r = TakeInFlight(rejection.request.id);
    r.end_us = rejection.at_us;
    r.outcome = Outcome::kRejected;
    r.reason = rejection.reason;
    if (rejection.first_start_us >= 0) {
      r.start_us = rejection.first_start_us;
      r.queue_wait_us = r.start_us - r.arrival_us;
      r.service_us = r.end_us - r.start_us;
      r.compile_wait_us = rejection.compile_wait_us;
    }
    return r;
  }

  // A released request's record, out of the in-flight table.
  RequestRecord TakeInFlight(int64_t id) {
    std::lock_guard<std::mutex> lock(in_flight_mutex_);
    auto node = in_flight_.extract(id);
    return std::move(node.mapped());
  }

  // A request's fate is known: into the statistics, out to on_record, kept or forgotten (record_mutex_ held).
  void Done(RequestRecord&& r) {
    statistics_.Add(r);
    ++done_;
    if (options_.on_record) options_.on_record(r);
    if (options_.keep_records) kept_.push_back(std::move(r));
  }

  void Dispatch(Executor* executor) {
    const std::string name = executor->name();
    int64_t memo_head = -1;
    Decision memo;
    // Runtime overhead: from the last kernel call's end, minus the time slept (waiting for work) or spun.
    double last_end_us = -1, idle_us = 0;
    auto sleep = [&](auto&& wait) {
      const double before = NowUs();
      wait();
      idle_us += NowUs() - before;
    };
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      const double now = NowUs();
      std::vector<Rejection> rejected = scheduler_.Expire(now);
      if (stopped_ && options_.on_stop == OnStop::kRejectQueued) {
        auto drained = scheduler_.Drain(now);
        rejected.insert(rejected.end(), drained.begin(), drained.end());
      }
      const bool arrivals_done = arrivals_done_;
      const int64_t depth = scheduler_.depth();
      auto limits_for = [&](const ServeRequest& head) {
        if (head.id != memo_head) {
          memo = decider_.Decide(head.dims, depth);
          memo_head = head.id;
        }
        BatchLimits limits = memo.limits;
        if (arrivals_done) limits.max_delay_us = 0;  // nobody else is coming
        return limits;
      };
      double wake_us = 0;
      std::optional<Batch> batch = scheduler_.NextBatch(now, limits_for, &wake_us);
      if (!batch && arrivals_done && scheduler_.depth() == 0) {
        lock.unlock();
        Finish(rejected);
        wake_.notify_all();
        return;
      }
      if (!batch) {
        if (!rejected.empty()) {
          lock.unlock();
          Finish(rejected);
          lock.lock();
          continue;
        }
        if (std::isinf(wake_us)) {
          sleep([&] { wake_.wait(lock); });
        } else {
          sleep([&] { wake_.wait_until(lock, At(wake_us)); });
        }
        continue;
      }
      const int64_t batch_id = next_batch_id_++;
      const Decision head_decision = memo;
      memo_head = -1;
      lock.unlock();
      Finish(rejected);
      const BatchTimes times = RunBatch(executor, name, *batch, batch_id, head_decision, depth);
      if (last_end_us >= 0) {
        std::lock_guard<std::mutex> record_lock(record_mutex_);
        statistics_.AddBatchOverhead(std::max(0.0, times.start_us - last_end_us - idle_us));
      }
      last_end_us = times.end_us;
      idle_us = 0;
      const double keep_warm_us = times.keep_warm_us;
      lock.lock();
      if (times.requeue) {
        scheduler_.Requeue(std::move(*times.requeue), times.chunk, NowUs());
        wake_.notify_all();
        continue;  // its next chunk, or what arrived meanwhile, runs at once: no keep-warm gap
      }
      if (keep_warm_us > 0 && scheduler_.depth() == 0 && !arrivals_done_ && !stopped_) {
        const int64_t seen = arrivals_seen_.load(std::memory_order_acquire);
        lock.unlock();
        double cpu_us = 0;
        sleep([&] {
          cpu_us = executor->KeepWarm(keep_warm_us, [this, seen] {
            return arrivals_seen_.load(std::memory_order_acquire) != seen || StopRequested();
          });
        });
        lock.lock();
        keep_warm_cpu_us_ += cpu_us;
      }
    }
  }

  struct BatchTimes {
    double start_us = 0, end_us = 0;  // around the executor's calls
    double keep_warm_us = 0;          // the run decision's
    std::optional<QueuedRequest> requeue;  // a chunked request with more to run
    int64_t chunk = 0;                     // what of it ran
  };
  BatchTimes RunBatch(Executor* executor, const std::string& name, const Batch& batch, int64_t batch_id,
                  const Decision& head_decision, int64_t depth) {
    Decision run = head_decision;
    if (batch.dims != batch.requests.front().request.dims) run = decider_.Decide(batch.dims, depth);
    // Requests that do not add up along a summing dim ran one after another: one kernel call each.
    const bool sums = !options_.rule.sum_dim.empty() && batch.dims.count(options_.rule.sum_dim);
    const size_t calls = sums ? 1 : batch.requests.size();
    const double start = NowUs();
    Execution execution;
    for (size_t i = 0; i < calls; ++i) {
      Execution one = executor->Run(batch.dims, run.config);
      if (i == 0) {
        execution = one;
      } else {
        if (execution.status.ok() && !one.status.ok()) execution.status = one.status;
        execution.substituted |= one.substituted;
        execution.compile_wait_us += one.compile_wait_us;
      }
    }
    const double end = NowUs();
    // The policy learns from clean runs only: not a substituted plan, a compile wait or a failure.
    if (execution.status.ok() && !execution.substituted && execution.compile_wait_us == 0)
      decider_.Observe(run, end - start, start - batch.requests.front().enqueued_us);
    const bool more_chunks = batch.chunk > 0 && execution.status.ok();
    BatchRecord b;
    {
      b.id = batch_id;
      b.executor = name;
      b.dims = batch.dims;
      b.size = static_cast<int>(batch.requests.size());
      b.start_us = start;
      b.end_us = end;
      b.config = run.config;
      b.plan = execution.config_run;
      b.source = run.source;
      b.compile_wait_us = execution.compile_wait_us;
      b.substituted = execution.substituted;
      b.chunk = more_chunks;
      b.ok = execution.status.ok();
    }
    auto record_batch = [&] {  // record_mutex_ held
      batched_requests_ += b.size;
      if (options_.on_batch) options_.on_batch(b);
      if (options_.keep_records) kept_batches_.push_back(std::move(b));
    };
    if (more_chunks) {  // one chunk of a request with more to run: back it goes, its record stays in flight
      {
        std::lock_guard<std::mutex> lock(record_mutex_);
        record_batch();
      }
      QueuedRequest rest = batch.requests.front();
      if (rest.first_start_us < 0) rest.first_start_us = start;
      rest.compile_wait_us += execution.compile_wait_us;
      return BatchTimes{start, end, run.limits.keep_warm_us, std::move(rest), batch.chunk};
    }
    std::vector<RequestRecord> records;
    records.reserve(batch.requests.size());
    for (const QueuedRequest& q : batch.requests) {
      records.push_back(TakeInFlight(q.request.id));
      RequestRecord& r = records.back();
      r.start_us = q.first_start_us >= 0 ? q.first_start_us : start;  // a chunked request: its first chunk's
      r.end_us = end;
      r.queue_wait_us = r.start_us - r.arrival_us;
      r.compile_wait_us = q.compile_wait_us + execution.compile_wait_us;
      r.service_us = end - r.start_us;
      r.batch_id = b.id;  // the batch's own record says the rest
      r.batch_size = b.size;
      r.executor = b.executor;
      r.config = b.config;
      r.plan = b.plan;
      r.substituted = b.substituted;
      r.source = b.source;
      r.generation = run.generation;
      r.outcome = execution.status.ok() ? Outcome::kCompleted : Outcome::kFailed;
      if (!execution.status.ok()) r.error = execution.status.message();
    }
    std::lock_guard<std::mutex> lock(record_mutex_);
    record_batch();
    for (RequestRecord& r : records) {
      if (r.outcome == Outcome::kCompleted) {
        if (recent_latency_us_.size() < kRecentWindow) {
          recent_latency_us_.push_back(r.latency_us());
        } else {
          recent_latency_us_[recent_next_++ % kRecentWindow] = r.latency_us();
        }
      }
      Done(std::move(r));
    }
    return BatchTimes{start, end, run.limits.keep_warm_us, std::nullopt, 0};
  }

  const RequestStream& stream_;
  Decider& decider_;
  const ServerOptions& options_;
  Clock::time_point start_;

  std::mutex mutex_;  // the scheduler and the flags below
  std::condition_variable wake_;
  Scheduler scheduler_;
  bool arrivals_done_ = false;
  bool stopped_ = false;
  int64_t released_ = 0;
  int64_t next_batch_id_ = 0;
  double keep_warm_cpu_us_ = 0;
  double warmup_us_ = 0;
  double cpu_at_start_us_ = 0;
  std::atomic<int64_t> arrivals_seen_{0};  // bumped on every release and at the end of arrivals

  std::mutex in_flight_mutex_;  // in_flight_ alone; never held with another lock
  std::unordered_map<int64_t, RequestRecord> in_flight_;  // released, fate not yet known; by request id
  std::vector<RequestRecord> rejected_at_arrival_;  // the generator thread's alone (FinishAtArrival)
  double last_recent_p99_us_ = 0;                    // the generator thread's alone (Progress)
  std::mutex record_mutex_;  // the members below it, on_record, on_batch
  RunStatistics statistics_;
  std::vector<RequestRecord> kept_;  // with keep_records
  std::vector<BatchRecord> kept_batches_;  // with keep_records
  int64_t batched_requests_ = 0;
  std::atomic<int64_t> done_{0};  // written under record_mutex_, read anywhere
  static constexpr size_t kRecentWindow = 1000;
  std::vector<double> recent_latency_us_;  // the last kRecentWindow completed latencies (a ring)
  size_t recent_next_ = 0;
  double next_progress_us_ = 0;
};

}  // namespace

Result<ServeResult> Serve(const RequestStream& stream, Decider& decider, const std::vector<Executor*>& executors,
                          const ServerOptions& options) {
  if (executors.empty()) return Status::InvalidArgument("serve needs at least one executor");
  for (size_t i = 0; i < stream.requests.size(); ++i)
    if (stream.requests[i].id != static_cast<int64_t>(i))
      return Status::InvalidArgument("request ids must be 0..n-1 in stream order");
  Run run(stream, decider, options);
  return run.Go(executors);
}

}  // namespace crmap::serve
