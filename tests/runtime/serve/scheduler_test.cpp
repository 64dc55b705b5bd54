#include "runtime/serve/scheduler.h"

#include <algorithm>
#include <cmath>
#include <random>

#include <gtest/gtest.h>

namespace crmap::serve {
namespace {

ServeRequest Request(int64_t id, int64_t tokens, int stream = 0, int64_t seq = 0) {
  ServeRequest r;
  r.id = id;
  r.dims = {{"tokens", tokens}};
  if (seq) r.dims["seq"] = seq;
  r.stream = stream;
  return r;
}

std::function<BatchLimits(const ServeRequest&)> Limits(int max_batch, double max_delay_us) {
  return [=](const ServeRequest&) { return BatchLimits{max_batch, max_delay_us}; };
}

std::vector<int64_t> Ids(const Batch& batch) {
  std::vector<int64_t> ids;
  for (const auto& q : batch.requests) ids.push_back(q.request.id);
  return ids;
}

const BatchRule kTokensAddUp{"tokens", 4096};

TEST(SchedulerTest, AFullBatchIsReleasedAtOnceAndItsSummingDimAddsUp) {
  Scheduler scheduler({StreamSettings{}}, kTokensAddUp);
  for (int i = 0; i < 5; ++i) ASSERT_FALSE(scheduler.Arrive(Request(i, 10 + i), 100.0 + i));
  auto batch = scheduler.NextBatch(105, Limits(4, 1000));
  ASSERT_TRUE(batch);
  EXPECT_EQ(Ids(*batch), (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(batch->dims, (Dims{{"tokens", 10 + 11 + 12 + 13}}));
  EXPECT_TRUE(batch->full);
  EXPECT_EQ(scheduler.depth(), 1);
}

TEST(SchedulerTest, APartialBatchWaitsForItsHeadsDelayThenGoes) {
  Scheduler scheduler({StreamSettings{}}, kTokensAddUp);
  scheduler.Arrive(Request(0, 8), 1000);
  scheduler.Arrive(Request(1, 8), 1030);
  double wake = 0;
  EXPECT_FALSE(scheduler.NextBatch(1040, Limits(4, 100), &wake));
  EXPECT_EQ(wake, 1100);  // the head arrived at 1000 and may wait 100 us
  auto batch = scheduler.NextBatch(1100, Limits(4, 100), &wake);
  ASSERT_TRUE(batch);
  EXPECT_FALSE(batch->full);
  EXPECT_EQ(Ids(*batch), (std::vector<int64_t>{0, 1}));
  EXPECT_FALSE(scheduler.NextBatch(1100, Limits(4, 100), &wake));
  EXPECT_TRUE(std::isinf(wake));  // nothing queued
}

TEST(SchedulerTest, WithoutDelayWhatIsQueuedGoesAtOnce) {
  Scheduler scheduler({StreamSettings{}}, kTokensAddUp);
  scheduler.Arrive(Request(0, 8), 0);
  auto batch = scheduler.NextBatch(0, Limits(16, 0));
  ASSERT_TRUE(batch);
  EXPECT_EQ(batch->requests.size(), 1u);
}

TEST(SchedulerTest, OnlyRequestsWhoseOtherDimsMatchShareABatch) {
  Scheduler scheduler({StreamSettings{}}, BatchRule{"tokens", 0});
  scheduler.Arrive(Request(0, 4, 0, 128), 0);
  scheduler.Arrive(Request(1, 4, 0, 256), 1);
  scheduler.Arrive(Request(2, 4, 0, 128), 2);
  auto batch = scheduler.NextBatch(10, Limits(8, 0));
  ASSERT_TRUE(batch);
  EXPECT_EQ(Ids(*batch), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(batch->dims, (Dims{{"seq", 128}, {"tokens", 8}}));
  // Without a summing dim, only identical dims combine (and the dims stay the head's).
  Scheduler exact({StreamSettings{}}, BatchRule{});
  exact.Arrive(Request(0, 4), 0);
  exact.Arrive(Request(1, 5), 1);
  exact.Arrive(Request(2, 4), 2);
  auto same = exact.NextBatch(10, Limits(8, 0));
  ASSERT_TRUE(same);
  EXPECT_EQ(Ids(*same), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(same->dims, (Dims{{"tokens", 4}}));
}

TEST(SchedulerTest, ARequestThatWouldOverflowTheSummingDimWaitsForTheNextBatch) {
  Scheduler scheduler({StreamSettings{}}, BatchRule{"tokens", 100});
  scheduler.Arrive(Request(0, 60), 0);
  scheduler.Arrive(Request(1, 50), 1);
  scheduler.Arrive(Request(2, 40), 2);
  auto batch = scheduler.NextBatch(3, Limits(8, 1000));
  ASSERT_TRUE(batch);
  EXPECT_TRUE(batch->full);  // nothing more fits: no point waiting
  EXPECT_EQ(Ids(*batch), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(batch->dims.at("tokens"), 100);
  // A single request larger than the maximum still runs, alone.
  Scheduler big({StreamSettings{}}, BatchRule{"tokens", 100});
  big.Arrive(Request(0, 150), 0);
  auto alone = big.NextBatch(0, Limits(8, 0));
  ASSERT_TRUE(alone);
  EXPECT_EQ(alone->dims.at("tokens"), 150);
}

// A long request runs alone, a chunk at a time and at once; the requests that arrive while a chunk runs go
// before its next chunk; its last part batches like any request and waits for no company.
TEST(SchedulerTest, ALongRequestRunsInChunksBetweenTheOthers) {
  Scheduler scheduler({StreamSettings{}}, BatchRule{"tokens", 4096, 256});
  ASSERT_FALSE(scheduler.Arrive(Request(0, 600), 0));
  auto first = scheduler.NextBatch(0, Limits(16, 1000));
  ASSERT_TRUE(first);
  EXPECT_EQ(Ids(*first), (std::vector<int64_t>{0}));
  EXPECT_EQ(first->chunk, 256);
  EXPECT_EQ(first->dims, (Dims{{"tokens", 256}}));
  EXPECT_TRUE(first->full);
  EXPECT_EQ(scheduler.depth(), 0);
  ASSERT_FALSE(scheduler.Arrive(Request(1, 10), 5));
  ASSERT_FALSE(scheduler.Arrive(Request(2, 20), 6));
  scheduler.Requeue(first->requests.front(), first->chunk, 10);
  EXPECT_EQ(scheduler.depth(), 3);
  auto second = scheduler.NextBatch(10, Limits(16, 0));
  ASSERT_TRUE(second);
  EXPECT_EQ(Ids(*second), (std::vector<int64_t>{1, 2})) << "344 tokens left: it does not join a batch";
  EXPECT_EQ(second->dims, (Dims{{"tokens", 30}}));
  EXPECT_EQ(second->chunk, 0);
  auto third = scheduler.NextBatch(10, Limits(16, 0));
  ASSERT_TRUE(third);
  EXPECT_EQ(third->chunk, 256);
  EXPECT_EQ(third->requests.front().served, 256);
  scheduler.Requeue(third->requests.front(), third->chunk, 20);
  ASSERT_FALSE(scheduler.Arrive(Request(3, 8), 21));
  auto last = scheduler.NextBatch(21, Limits(16, 1000));
  ASSERT_TRUE(last) << "the rest of a chunked request does not wait 1000 us for company";
  EXPECT_EQ(Ids(*last), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(last->dims, (Dims{{"tokens", 88 + 8}}));
  EXPECT_EQ(last->chunk, 0);
  EXPECT_EQ(last->requests.front().served, 512);
  EXPECT_EQ(scheduler.depth(), 0);
}

// Between its chunks a request waits in its queue like any: its timeout counts from its requeue, and a drain
// (stop with --on-stop reject) rejects it with the others.
TEST(SchedulerTest, ARequeuedChunkTimesOutFromItsRequeueAndDrainsLikeAnyRequest) {
  StreamSettings timed;
  timed.policy.timeout_us = 100;
  Scheduler scheduler({timed}, BatchRule{"tokens", 4096, 256});
  ASSERT_FALSE(scheduler.Arrive(Request(0, 600), 0));
  auto first = scheduler.NextBatch(0, Limits(16, 0));
  ASSERT_TRUE(first);
  QueuedRequest started = first->requests.front();
  started.first_start_us = 20;  // as the server keeps it
  started.compile_wait_us = 3;
  scheduler.Requeue(started, first->chunk, 150);  // its arrival is 150 us old by now
  EXPECT_TRUE(scheduler.Expire(249).empty()) << "not timed out: 99 us since its requeue";
  auto expired = scheduler.Expire(250);
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].request.id, 0);
  EXPECT_EQ(expired[0].reason, RejectReason::kTimeout);
  EXPECT_EQ(expired[0].first_start_us, 20) << "what its chunks ran goes with its rejection";
  EXPECT_EQ(expired[0].compile_wait_us, 3);
  EXPECT_EQ(scheduler.depth(), 0);

  ASSERT_FALSE(scheduler.Arrive(Request(1, 600), 300));
  auto chunk = scheduler.NextBatch(300, Limits(16, 0));
  ASSERT_TRUE(chunk);
  QueuedRequest second = chunk->requests.front();
  second.first_start_us = 300;
  scheduler.Requeue(second, chunk->chunk, 310);
  ASSERT_FALSE(scheduler.Arrive(Request(2, 5), 311));
  auto drained = scheduler.Drain(320);
  ASSERT_EQ(drained.size(), 2u);
  EXPECT_EQ(drained[0].request.id, 1);
  EXPECT_EQ(drained[0].reason, RejectReason::kShutdown);
  EXPECT_EQ(drained[0].first_start_us, 300) << "a drained chunked request keeps its start too";
  EXPECT_EQ(drained[1].first_start_us, -1) << "none of it ran";
  EXPECT_EQ(scheduler.depth(), 0);
}

TEST(SchedulerTest, WithoutChunksALongRequestRunsWhole) {
  Scheduler scheduler({StreamSettings{}}, kTokensAddUp);
  ASSERT_FALSE(scheduler.Arrive(Request(0, 600), 0));
  auto batch = scheduler.NextBatch(0, Limits(16, 0));
  ASSERT_TRUE(batch);
  EXPECT_EQ(batch->dims, (Dims{{"tokens", 600}}));
  EXPECT_EQ(batch->chunk, 0);
}

TEST(SchedulerTest, AHigherPriorityStreamIsServedFirstAndTiesGoToTheOldest) {
  StreamSettings low, high;
  low.priority = 1;
  high.priority = 0;
  Scheduler scheduler({low, high, low}, BatchRule{});
  scheduler.Arrive(Request(0, 1, 0), 0);
  scheduler.Arrive(Request(1, 2, 2), 5);
  scheduler.Arrive(Request(2, 3, 1), 10);
  std::vector<int64_t> order;
  while (auto batch = scheduler.NextBatch(20, Limits(1, 0))) order.push_back(batch->requests[0].request.id);
  EXPECT_EQ(order, (std::vector<int64_t>{2, 0, 1}));
}

TEST(SchedulerTest, AFullQueueRejectsArrivalsPerStream) {
  StreamSettings bounded;
  bounded.policy.max_queue_size = 2;
  Scheduler scheduler({bounded, StreamSettings{}}, kTokensAddUp);
  EXPECT_FALSE(scheduler.Arrive(Request(0, 1, 0), 0));
  EXPECT_FALSE(scheduler.Arrive(Request(1, 1, 0), 1));
  auto rejected = scheduler.Arrive(Request(2, 1, 0), 2);
  ASSERT_TRUE(rejected);
  EXPECT_EQ(rejected->reason, RejectReason::kQueueFull);
  EXPECT_EQ(rejected->request.id, 2);
  EXPECT_FALSE(scheduler.Arrive(Request(3, 1, 1), 3));  // the other stream has no limit
  EXPECT_EQ(scheduler.depth(0), 2);
  EXPECT_EQ(scheduler.depth(), 3);
}

TEST(SchedulerTest, RejectTimeoutsRemoveRequestsThatWaitedTooLong) {
  StreamSettings timed;
  timed.policy.timeout_us = 500;
  Scheduler scheduler({timed}, kTokensAddUp);
  scheduler.Arrive(Request(0, 1), 0);
  scheduler.Arrive(Request(1, 1), 300);
  double wake = 0;
  EXPECT_FALSE(scheduler.NextBatch(100, Limits(8, 10000), &wake));
  EXPECT_EQ(wake, 500);  // the first timeout comes before the head's delay runs out
  EXPECT_TRUE(scheduler.Expire(499).empty());
  auto expired = scheduler.Expire(500);
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].request.id, 0);
  EXPECT_EQ(expired[0].reason, RejectReason::kTimeout);
  EXPECT_EQ(scheduler.depth(), 1);
}

TEST(SchedulerTest, DelayTimeoutsServeTimedOutRequestsOnlyWhenNothingElseWaits) {
  StreamSettings delayed_high;
  delayed_high.priority = 0;
  delayed_high.policy.timeout_us = 100;
  delayed_high.policy.timeout_action = TimeoutAction::kDelay;
  StreamSettings low;
  low.priority = 1;
  Scheduler scheduler({delayed_high, low}, BatchRule{});
  scheduler.Arrive(Request(0, 1, 0), 0);    // will time out
  scheduler.Arrive(Request(1, 2, 0), 150);  // high priority, fresh
  scheduler.Arrive(Request(2, 3, 1), 160);  // low priority
  EXPECT_TRUE(scheduler.Expire(200).empty());  // delayed, not rejected
  std::vector<int64_t> order;
  while (auto batch = scheduler.NextBatch(200, Limits(1, 0))) order.push_back(batch->requests[0].request.id);
  EXPECT_EQ(order, (std::vector<int64_t>{1, 2, 0}));
}

TEST(SchedulerTest, OutOfRangeRequestsAreRejectedOnArrivalAndDrainRejectsTheRest) {
  Scheduler scheduler({StreamSettings{}}, kTokensAddUp);
  ServeRequest flagged = Request(0, 1);
  flagged.out_of_range = true;
  auto rejected = scheduler.Arrive(flagged, 0);
  ASSERT_TRUE(rejected);
  EXPECT_EQ(rejected->reason, RejectReason::kOutOfRange);
  scheduler.Arrive(Request(1, 1), 1);
  scheduler.Arrive(Request(2, 1), 2);
  auto drained = scheduler.Drain(3);
  ASSERT_EQ(drained.size(), 2u);
  EXPECT_EQ(drained[0].reason, RejectReason::kShutdown);
  EXPECT_EQ(scheduler.depth(), 0);
  EXPECT_STREQ(RejectReasonName(RejectReason::kQueueFull), "queue_full");
}

// Random streams, limits and policies: every request that arrives leaves exactly once, batched or rejected,
// batches respect their limits and never mix incompatible dims. Many seeds, not one lucky one.
TEST(SchedulerTest, EveryArrivalLeavesExactlyOnceUnderRandomLoad) {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    std::mt19937 rng(seed);
    std::vector<StreamSettings> streams(3);
    for (auto& s : streams) {
      s.priority = static_cast<int>(rng() % 2);
      s.policy.max_queue_size = rng() % 3 == 0 ? 0 : 1 + rng() % 20;
      s.policy.timeout_us = rng() % 2 ? 0 : 200 + rng() % 2000;
      s.policy.timeout_action = rng() % 2 ? TimeoutAction::kReject : TimeoutAction::kDelay;
    }
    Scheduler scheduler(streams, BatchRule{"tokens", 256});
    const int max_batch = 1 + static_cast<int>(rng() % 8);
    const double max_delay = rng() % 300;
    std::vector<int> seen(400, 0);
    double now = 0, executor_free_at = 0;
    int64_t id = 0;
    auto leave = [&](int64_t request_id) { ++seen.at(request_id); };
    while (id < 400 || scheduler.depth() > 0) {
      if (id < 400) {
        now += std::exponential_distribution<double>(1.0 / 40)(rng);
        ServeRequest r = Request(id, 1 + rng() % 200, static_cast<int>(rng() % 3), 64 << (rng() % 2));
        r.out_of_range = rng() % 50 == 0;
        ++id;
        if (auto rejected = scheduler.Arrive(r, now)) leave(rejected->request.id);
      } else {
        now += 50;
      }
      for (const auto& rejected : scheduler.Expire(now)) leave(rejected.request.id);
      if (now < executor_free_at) continue;
      if (auto batch = scheduler.NextBatch(now, Limits(max_batch, max_delay))) {
        ASSERT_LE(static_cast<int>(batch->requests.size()), max_batch);
        int64_t tokens = 0;
        for (const auto& q : batch->requests) {
          ASSERT_EQ(q.request.dims.at("seq"), batch->dims.at("seq")) << "seed " << seed;
          tokens += q.request.dims.at("tokens");
          leave(q.request.id);
        }
        ASSERT_EQ(tokens, batch->dims.at("tokens"));
        ASSERT_TRUE(batch->requests.size() == 1 || tokens <= 256) << "seed " << seed;
        executor_free_at = now + 20.0 * static_cast<double>(batch->requests.size());
      }
    }
    for (int i = 0; i < 400; ++i) ASSERT_EQ(seen[i], 1) << "request " << i << ", seed " << seed;
  }
}

// The batcher against a brute-force model of its rule (every queued request sorted by priority, then arrival;
// the head first; compatible requests taken in that order while the summing dim fits, up to max_batch) on random
// queues of three streams with priorities, no timeouts: same requests, same order, every time.
TEST(SchedulerTest, BatchesMatchABruteForceModelOfTheRule) {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    std::mt19937 rng(seed);
    std::vector<StreamSettings> streams(3);
    for (auto& s : streams) s.priority = static_cast<int>(rng() % 3);
    const int64_t sum_max = 64 + rng() % 200;
    Scheduler scheduler(streams, BatchRule{"tokens", sum_max});
    struct Queued {
      ServeRequest request;
      double at;
    };
    std::vector<Queued> model;
    double now = 0;
    for (int64_t id = 0; id < 300; ++id) {
      now += 1;
      ServeRequest r = Request(id, 1 + rng() % 100, static_cast<int>(rng() % 3), 64 << (rng() % 2));
      ASSERT_FALSE(scheduler.Arrive(r, now).has_value());
      model.push_back({r, now});
      if (rng() % 3 != 0) continue;
      const int max_batch = 1 + static_cast<int>(rng() % 6);
      auto batch = scheduler.NextBatch(now, Limits(max_batch, 0));
      ASSERT_TRUE(batch.has_value());
      // The model.
      std::vector<Queued> order = model;
      std::stable_sort(order.begin(), order.end(), [&](const Queued& a, const Queued& b) {
        return std::make_tuple(streams[a.request.stream].priority, a.at, a.request.id) <
               std::make_tuple(streams[b.request.stream].priority, b.at, b.request.id);
      });
      const ServeRequest& head = order.front().request;
      std::vector<int64_t> expected;
      int64_t sum = 0;
      for (const Queued& q : order) {
        if (static_cast<int>(expected.size()) == max_batch) break;
        if (q.request.dims.at("seq") != head.dims.at("seq")) continue;
        const int64_t tokens = q.request.dims.at("tokens");
        if (!expected.empty() && sum + tokens > sum_max) continue;
        sum += tokens;
        expected.push_back(q.request.id);
      }
      ASSERT_EQ(Ids(*batch), expected) << "seed " << seed << ", after request " << id;
      for (int64_t taken : expected)
        model.erase(std::find_if(model.begin(), model.end(), [&](const Queued& q) { return q.request.id == taken; }));
    }
  }
}

}  // namespace
}  // namespace crmap::serve
