// The measurement flags shared by the measuring commands (measure, compare, sweep, tune, campaign, evaluate), and
// the objective flag of those that rank (sweep, tune, campaign, evaluate).
#pragma once

#include <cxxopts.hpp>

#include "backend/session.h"
#include "tuner/sweep.h"
#include "common/json_fields.h"
#include "common/status.h"
#include "tuner/measurement_record.h"

namespace crmap::cli {

// `default_cold_samples`: cold-team samples per candidate (measure, compare, sweep: 5; campaigns, which measure
// hundreds of candidates, 1 — enough to store an estimate of each config's cold cost).
void AddMeasureOptions(cxxopts::Options& options, int default_rounds, int default_cold_samples = 5);
// InvalidArgument names a flag outside its allowed range.
Result<SessionOptions> ReadMeasureOptions(const cxxopts::ParseResult& args);
// --objective (tune, campaign, sweep, evaluate): which latency statistic of a config decides (backend/objective.h).
void AddObjectiveOption(cxxopts::Options& options);
// The objective asked for. A tail objective needs MinimumRounds(objective) timed rounds: without --rounds the
// rounds of `options` are raised to it; an explicit --rounds below it is InvalidArgument (naming both), as is an
// unknown name (listing the allowed ones).
Result<Objective> ReadObjectiveOption(const cxxopts::ParseResult& args, SessionOptions* options);
// The record context of a CLI run: agent `agent`, the input data seed of `options`.
RecordContext CliRecordContext(const SessionOptions& options, const std::string& agent = "manual");
// The sweep settings of these measurement options (rounds, warm-up, warm calls, cold samples, timeout, compile
// options, peer executable); the caller sets what is sweep-specific.
SweepOptions SweepOptionsFrom(const SessionOptions& options);
// --baseline: the peers to measure (backend/peer.h: "libtorch" is the default set), none when absent;
// InvalidArgument naming what is allowed otherwise.
Result<std::vector<PeerBaseline>> ReadBaselineOption(const cxxopts::ParseResult& args, const Workload& workload);
// Writes `json` to the --out file, if one was given (atomically).
Status WriteOutOption(const cxxopts::ParseResult& args, const Json& json);
// Progress on stderr, except with --json and no --out (stdout is then the machine-read result).
bool WantsProgress(const cxxopts::ParseResult& args);

}  // namespace crmap::cli
