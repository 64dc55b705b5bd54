#include "runtime/serve/chrome_trace.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "common/atomic_file.h"

namespace crmap::serve {

namespace {

constexpr int kPid = 1;
constexpr int kRequestTrack = 0;  // async spans and counters; executors are tracks 1, 2, ...

}  // namespace

Json ChromeTrace(const ServeResult& result) {
  Json events = Json::array();
  // Executor tracks, in order of first use.
  std::map<std::string, int> tracks;
  for (const BatchRecord& b : result.batch_records)
    if (!tracks.count(b.executor)) {
      const int tid = static_cast<int>(tracks.size()) + 1;
      tracks[b.executor] = tid;
    }
  events.push_back({{"ph", "M"}, {"pid", kPid}, {"name", "process_name"}, {"args", {{"name", "crmap serve"}}}});
  events.push_back({{"ph", "M"}, {"pid", kPid}, {"tid", kRequestTrack}, {"name", "thread_name"},
                    {"args", {{"name", "requests"}}}});
  for (const auto& [name, tid] : tracks)
    events.push_back(
        {{"ph", "M"}, {"pid", kPid}, {"tid", tid}, {"name", "thread_name"}, {"args", {{"name", name}}}});

  // Queue depth: +1 at arrival, -1 when the request leaves the queue (its batch starts, or it is rejected).
  std::vector<std::pair<double, int>> depth_changes;
  for (const RequestRecord& r : result.records) {
    const std::string name = OutcomeName(r.outcome);
    Json args = {{"stream", r.stream}, {"dims", r.dims}};
    if (r.outcome == Outcome::kRejected) args["reason"] = RejectReasonName(r.reason);
    events.push_back({{"ph", "b"}, {"cat", "request"}, {"name", name}, {"id", r.id}, {"pid", kPid},
                      {"tid", kRequestTrack}, {"ts", r.arrival_us}, {"args", args}});
    events.push_back({{"ph", "e"}, {"cat", "request"}, {"name", name}, {"id", r.id}, {"pid", kPid},
                      {"tid", kRequestTrack}, {"ts", std::max(r.end_us, r.arrival_us)}});
    depth_changes.emplace_back(r.arrival_us, +1);
    const bool started = r.outcome != Outcome::kRejected || r.start_us > 0;  // rejected between chunks
    depth_changes.emplace_back(started ? r.start_us : std::max(r.end_us, r.arrival_us), -1);
  }
  for (const BatchRecord& b : result.batch_records) {
    Json batch_args = {{"batch_id", b.id},       {"batch_size", b.size}, {"dims", b.dims},
                       {"config", b.config},     {"plan", b.plan},       {"source", b.source},
                       {"compile_wait_us", b.compile_wait_us}, {"substituted", b.substituted}, {"ok", b.ok}};
    if (b.chunk) batch_args["chunk"] = true;
    const std::string name = b.chunk ? "chunk" : "batch of " + std::to_string(b.size);
    events.push_back({{"ph", "X"}, {"cat", "batch"}, {"name", name}, {"pid", kPid}, {"tid", tracks[b.executor]},
                      {"ts", b.start_us}, {"dur", std::max(0.0, b.end_us - b.start_us)}, {"args", batch_args}});
  }
  // Leaves before arrivals at the same instant, so the depth never reads one too high.
  std::sort(depth_changes.begin(), depth_changes.end());
  int depth = 0;
  for (size_t i = 0; i < depth_changes.size(); ++i) {
    depth += depth_changes[i].second;
    if (i + 1 < depth_changes.size() && depth_changes[i + 1].first == depth_changes[i].first) continue;
    events.push_back({{"ph", "C"}, {"pid", kPid}, {"tid", kRequestTrack}, {"name", "queue depth"},
                      {"ts", depth_changes[i].first}, {"args", {{"depth", depth}}}});
  }
  return Json{{"traceEvents", events}, {"displayTimeUnit", "ms"}};
}

Status WriteChromeTrace(const std::string& path, const ServeResult& result) {
  return WriteFileAtomically(path, ChromeTrace(result).dump() + "\n");
}

}  // namespace crmap::serve
