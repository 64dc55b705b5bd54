// Request traces: the concrete requests of a scenario (arrival time, shape, stream), and their JSONL files.
//
// A trace is what the serving runtime replays. GenerateTrace turns a Scenario into requests: within each
// phase, arrivals form a Poisson process at the phase's rate (exponential gaps), shapes are drawn from the
// phase's distribution and each request goes to a stream chosen uniformly. Phases follow each other back to
// back. The result depends only on the scenario and the seed, on every platform (see distribution.h); each
// phase draws from its own generators, so editing one phase does not change the requests of the others, and
// arrival times do not depend on the shape distributions.
//
// On disk a trace is JSON Lines, one request per line, in arrival order:
//   {"t_us":1234.5,"dims":{"tokens":37},"stream":1,"phase":0}
// Traces are inputs, not logs: ReadTraceJsonl rejects anything malformed, including a torn last line, with
// an error naming the line. Format details: docs/dataset-formats.md. Stateless functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/workload.h"
#include "datasets/scenario.h"

namespace crmap {

struct TraceRequest {
  double arrival_us = 0;  // microseconds from the start of the trace
  Dims dims;
  int stream = 0;  // in [0, scenario streams)
  int phase = 0;   // index into the scenario's phases

  bool operator==(const TraceRequest& other) const {
    return arrival_us == other.arrival_us && dims == other.dims && stream == other.stream && phase == other.phase;
  }
};

// All requests of the scenario, sorted by arrival time (non-decreasing). Deterministic for a seed.
std::vector<TraceRequest> GenerateTrace(const Scenario& scenario, uint64_t seed);

// Writes the trace as JSON Lines to `path` atomically (common/atomic_file.h): `path` is either left as it was
// or holds the complete trace.
Status WriteTraceJsonl(const std::string& path, const std::vector<TraceRequest>& trace);

// Reads a JSON Lines trace and checks every request's dims against `workload` (CheckDims). NotFound if the
// file does not exist; InvalidArgument naming the file and line for a malformed or torn line, an unknown or
// missing field, dims outside the workload's ranges, a negative stream or phase, or an arrival time earlier
// than the previous line's. Blank lines are skipped.
Result<std::vector<TraceRequest>> ReadTraceJsonl(const std::string& path, const Workload& workload);

}  // namespace crmap
