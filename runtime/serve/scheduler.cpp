#include "runtime/serve/scheduler.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <tuple>

namespace crmap::serve {

const char* RejectReasonName(RejectReason reason) {
  switch (reason) {
    case RejectReason::kQueueFull: return "queue_full";
    case RejectReason::kTimeout: return "timeout";
    case RejectReason::kOutOfRange: return "out_of_range";
    case RejectReason::kShutdown: return "shutdown";
  }
  return "?";
}

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

// Requests of one stream time out in arrival order (one timeout per stream), so a queue's delayed requests
// are always a prefix of it.
size_t DelayedPrefix(const std::deque<QueuedRequest>& queue) {
  size_t n = 0;
  while (n < queue.size() && queue[n].delayed) ++n;
  return n;
}

// Serving order: not delayed first, then the stream's priority, then arrival (id breaks ties).
using ServingKey = std::tuple<bool, int, double, int64_t>;
ServingKey KeyOf(const QueuedRequest& q, int priority) {
  return {q.delayed, priority, q.enqueued_us, q.request.id};
}

// A queued request's rejection, with what its chunks already ran.
Rejection RejectionOf(const QueuedRequest& q, RejectReason reason, double now_us) {
  return Rejection{q.request, reason, now_us, q.first_start_us, q.compile_wait_us};
}

}  // namespace

Scheduler::Scheduler(std::vector<StreamSettings> streams, BatchRule rule)
    : settings_(std::move(streams)), rule_(std::move(rule)) {
  if (settings_.empty()) settings_.push_back(StreamSettings{});
  queues_.resize(settings_.size());
}

const StreamSettings& Scheduler::SettingsOf(int stream) const {
  return stream >= 0 && static_cast<size_t>(stream) < settings_.size() ? settings_[stream] : settings_[0];
}

int64_t Scheduler::depth(int stream) const {
  return stream >= 0 && static_cast<size_t>(stream) < queues_.size() ? static_cast<int64_t>(queues_[stream].size())
                                                                      : 0;
}

std::optional<Rejection> Scheduler::Arrive(const ServeRequest& request, double now_us) {
  if (request.out_of_range) return Rejection{request, RejectReason::kOutOfRange, now_us};
  const int stream = request.stream >= 0 && static_cast<size_t>(request.stream) < queues_.size() ? request.stream : 0;
  const QueuePolicy& policy = settings_[stream].policy;
  std::deque<QueuedRequest>& queue = queues_[stream];
  if (policy.max_queue_size > 0 && static_cast<int64_t>(queue.size()) >= policy.max_queue_size)
    return Rejection{request, RejectReason::kQueueFull, now_us};
  queue.push_back(QueuedRequest{request, now_us, false});
  ++depth_;
  return std::nullopt;
}

std::vector<Rejection> Scheduler::Expire(double now_us) {
  std::vector<Rejection> rejected;
  for (size_t s = 0; s < queues_.size(); ++s) {
    const QueuePolicy& policy = settings_[s].policy;
    if (!(policy.timeout_us > 0)) continue;
    std::deque<QueuedRequest>& queue = queues_[s];
    if (policy.timeout_action == TimeoutAction::kReject) {
      while (!queue.empty() && queue.front().enqueued_us + policy.timeout_us <= now_us) {
        rejected.push_back(RejectionOf(queue.front(), RejectReason::kTimeout, now_us));
        queue.pop_front();
        --depth_;
      }
    } else {
      for (size_t i = DelayedPrefix(queue); i < queue.size(); ++i) {
        if (queue[i].enqueued_us + policy.timeout_us > now_us) break;
        queue[i].delayed = true;
      }
    }
  }
  return rejected;
}

double Scheduler::NextTimeout() const {
  double next = kNever;
  for (size_t s = 0; s < queues_.size(); ++s) {
    const QueuePolicy& policy = settings_[s].policy;
    if (!(policy.timeout_us > 0)) continue;
    const size_t first = DelayedPrefix(queues_[s]);
    if (first < queues_[s].size()) next = std::min(next, queues_[s][first].enqueued_us + policy.timeout_us);
  }
  return next;
}

int Scheduler::HeadQueue() const {
  int best = -1;
  ServingKey best_key;
  for (size_t s = 0; s < queues_.size(); ++s) {
    const std::deque<QueuedRequest>& queue = queues_[s];
    if (queue.empty()) continue;
    const size_t first = DelayedPrefix(queue);
    const QueuedRequest& candidate = first < queue.size() ? queue[first] : queue.front();
    const ServingKey key = KeyOf(candidate, settings_[s].priority);
    if (best < 0 || key < best_key) {
      best = static_cast<int>(s);
      best_key = key;
    }
  }
  return best;
}

bool Scheduler::Compatible(const Dims& head, const Dims& other) const {
  if (head.size() != other.size()) return false;
  for (const auto& [name, value] : head) {
    if (name == rule_.sum_dim) continue;
    auto it = other.find(name);
    if (it == other.end() || it->second != value) return false;
  }
  return true;
}

std::optional<Batch> Scheduler::NextBatch(double now_us,
                                          const std::function<BatchLimits(const ServeRequest&)>& limits_for,
                                          double* wake_at_us) {
  if (wake_at_us) *wake_at_us = kNever;
  const int head_queue = HeadQueue();
  if (head_queue < 0) return std::nullopt;
  const std::deque<QueuedRequest>& hq = queues_[head_queue];
  const size_t head_index = DelayedPrefix(hq) < hq.size() ? DelayedPrefix(hq) : 0;
  const QueuedRequest& head = hq[head_index];
  BatchLimits limits = limits_for(head.request);
  limits.max_batch = std::max(limits.max_batch, 1);
  limits.max_delay_us = std::max(limits.max_delay_us, 0.0);
  const bool sums = !rule_.sum_dim.empty() && head.request.dims.count(rule_.sum_dim);
  const bool chunks = sums && rule_.chunk > 0;
  // Of a request's summing dim, what is left to serve.
  auto remaining = [this](const QueuedRequest& q) { return q.request.dims.at(rule_.sum_dim) - q.served; };
  if (chunks && remaining(head) > rule_.chunk) {  // one chunk of the head, alone and at once
    Batch batch;
    batch.limits = limits;
    batch.full = true;
    batch.chunk = rule_.chunk;
    batch.dims = head.request.dims;
    batch.dims[rule_.sum_dim] = rule_.chunk;
    batch.requests.push_back(head);
    queues_[head_queue].erase(queues_[head_queue].begin() + static_cast<std::ptrdiff_t>(head_index));
    --depth_;
    return batch;
  }

  // Compatible requests in serving order — not delayed first, then priority, then arrival — merged from the
  // per-stream queues, each already in that order (its fresh part, then its delayed prefix), and only as far as
  // the batch needs: the cost per batch grows with the batch, not with the queues.
  struct Cursor {
    size_t queue, position = 0, fresh_begin = 0, count = 0;  // position-th of the stream's order
    size_t Index() const {
      const size_t fresh = count - fresh_begin;
      return position < fresh ? fresh_begin + position : position - fresh;
    }
  };
  std::vector<Cursor> cursors;
  for (size_t s = 0; s < queues_.size(); ++s) {
    if (queues_[s].empty()) continue;
    Cursor c;
    c.queue = s;
    c.fresh_begin = DelayedPrefix(queues_[s]);
    c.count = queues_[s].size();
    cursors.push_back(c);
  }
  // Timed-out (delayed) requests are served only when nothing fresh waits — the head is then one of them.
  auto next_compatible = [&](Cursor& c) {
    const std::deque<QueuedRequest>& queue = queues_[c.queue];
    const size_t end = head.delayed ? c.count : c.count - c.fresh_begin;
    while (c.position < end && !Compatible(head.request.dims, queue[c.Index()].request.dims)) ++c.position;
    return c.position < end;
  };
  int64_t sum = 0;
  struct Chosen {
    size_t queue, index;
  };
  std::vector<Chosen> chosen;
  bool blocked = false;  // a compatible request did not fit the summing dim
  for (;;) {
    if (static_cast<int>(chosen.size()) == limits.max_batch) break;
    Cursor* best = nullptr;
    ServingKey best_key;
    for (Cursor& c : cursors) {
      if (!next_compatible(c)) continue;
      const QueuedRequest& q = queues_[c.queue][c.Index()];
      const ServingKey key = KeyOf(q, settings_[c.queue].priority);
      if (!best || key < best_key) {
        best = &c;
        best_key = key;
      }
    }
    if (!best) break;
    const size_t index = best->Index();
    ++best->position;
    const QueuedRequest& q = queues_[best->queue][index];
    if (sums) {
      const int64_t value = remaining(q);
      if (chunks && value > rule_.chunk) continue;  // it runs in chunks of its own when it becomes the head
      if (rule_.sum_max > 0 && sum + value > rule_.sum_max && !chosen.empty()) {
        blocked = true;
        continue;
      }
      sum += value;
    }
    chosen.push_back({best->queue, index});
  }
  const bool full = static_cast<int>(chosen.size()) == limits.max_batch || blocked;
  // The rest of a chunked request does not wait for company again.
  const double release_at = head.served > 0 ? head.enqueued_us : head.enqueued_us + limits.max_delay_us;
  if (!full && now_us < release_at) {
    if (wake_at_us) *wake_at_us = std::min(release_at, NextTimeout());
    return std::nullopt;
  }

  Batch batch;
  batch.limits = limits;
  batch.full = full;
  batch.dims = head.request.dims;
  if (sums) batch.dims[rule_.sum_dim] = sum;
  // Take the chosen requests out, the highest index of each queue first so that the others stay valid.
  std::vector<std::pair<size_t, size_t>> positions;
  for (const Chosen& c : chosen) {
    batch.requests.push_back(queues_[c.queue][c.index]);
    positions.emplace_back(c.queue, c.index);
  }
  std::sort(positions.begin(), positions.end(), std::greater<>());
  for (const auto& [queue, index] : positions) queues_[queue].erase(queues_[queue].begin() + index);
  depth_ -= static_cast<int64_t>(positions.size());
  return batch;
}

void Scheduler::Requeue(QueuedRequest request, int64_t chunk, double now_us) {
  const int stream = request.request.stream >= 0 && static_cast<size_t>(request.request.stream) < queues_.size()
                         ? request.request.stream : 0;
  request.served += chunk;
  request.enqueued_us = now_us;
  request.delayed = false;
  // At the back, or just before the few arrivals stamped a moment earlier that took the lock first: a queue stays
  // in enqueue order.
  std::deque<QueuedRequest>& queue = queues_[stream];
  auto at = queue.end();
  while (at != queue.begin() && std::prev(at)->enqueued_us > now_us && !std::prev(at)->delayed) --at;
  queue.insert(at, std::move(request));
  ++depth_;
}

std::vector<Rejection> Scheduler::Drain(double now_us) {
  std::vector<Rejection> rejected;
  for (auto& queue : queues_) {
    for (const QueuedRequest& q : queue) rejected.push_back(RejectionOf(q, RejectReason::kShutdown, now_us));
    queue.clear();
  }
  depth_ = 0;
  return rejected;
}

}  // namespace crmap::serve
