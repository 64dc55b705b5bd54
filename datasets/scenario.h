// Scenario: a serving load that drifts, as a sequence of phases, parsed from a JSON file.
//
// Each phase runs for a duration at a request rate and draws request shapes from its own ShapeDistribution;
// phases follow each other back to back, so the shape distribution changes abruptly at each phase boundary.
// That is where the runtime's drift detection and adaptation are judged (docs/design.md, "runtime adaptation
// gain"). `streams` is the number of independent request sources (clients) sharing the server; a trace
// (trace.h) assigns each request to one of them. The file format is documented in docs/dataset-formats.md.
//
// A phase's "distribution" is a distribution name or path (loaded with LoadDistribution) or an inline
// distribution object. A relative path is resolved against the scenario file's folder when the scenario was
// itself read from a file on disk.
//
// A Scenario is an immutable value after parsing; all methods are const and thread-safe.
#pragma once

#include <string>
#include <vector>

#include "common/json_fields.h"
#include "common/status.h"
#include "common/workload.h"
#include "datasets/distribution.h"

namespace crmap {

struct ScenarioPhase {
  std::string name;
  double duration_s = 0;  // > 0
  double rate_rps = 0;    // mean request rate (Poisson), > 0
  ShapeDistribution distribution;
};

class Scenario {
 public:
  const std::string& name() const { return name_; }
  const std::string& workload_name() const { return workload_name_; }
  const std::string& description() const { return description_; }
  int streams() const { return streams_; }
  const std::vector<ScenarioPhase>& phases() const { return phases_; }
  // Sum of the phase durations.
  double total_duration_s() const;
  // Start time of phase `index` (< phases().size()) in seconds from the scenario's start.
  double phase_start_s(size_t index) const;

 private:
  friend class ScenarioParser;  // the only way to build one: parsing validates everything
  std::string name_;
  std::string workload_name_;
  std::string description_;
  int streams_ = 1;
  std::vector<ScenarioPhase> phases_;
};

// Upper bounds that keep a scenario's trace in memory: at most this many streams, and at most this many
// expected requests (sum of rate_rps * duration_s over the phases).
constexpr int kMaxScenarioStreams = 1024;
constexpr double kMaxScenarioRequests = 1e7;

// Parses a scenario file's JSON. "format" ("crmap.scenario/1"), "name", "workload" (must equal
// workload.name()) and a non-empty "phases" are required. `base_dir`, if not empty, is the folder against
// which relative distribution paths are resolved. Returns InvalidArgument naming the offending field and what
// is allowed, or the status of loading a referenced distribution (NotFound for an unknown name).
Result<Scenario> ParseScenario(const Json& json, const std::string& source, const Workload& workload,
                               const std::string& base_dir = "");

// Reads a built-in scenario by name or a file by path (see ReadDataset in catalog.h) and parses it.
Result<Scenario> LoadScenario(const std::string& name_or_path, const Workload& workload);

}  // namespace crmap
