// Policy evaluation: compile-time mapping accuracy (CTMA) of a policy file on shapes it was not tuned on
// (`crmap evaluate`).
//
// Protocol: held-out shapes (listed, or drawn from a distribution with a seed; never a tuned shape) -> for each
// shape, the picks of four methods — the policy through the runtime hook (its ISA check included), the static
// plan (config_scores.h: the best geometric-mean speedup over the tuned shapes among configs measured at all of
// them, from the training database), the nearest tuned shape's config (TVM-style history-best dispatch, log
// distance), the default, and optionally a second policy file of the same workload and space (a before/after
// comparison: request.compare_policy_path, through its own hook) — are measured in one sweep of the whole plan
// space, whose final interleaved run holds every pick next to the best screened configs; the oracle is that run's
// fastest config at the objective (request.sweep.objective: the median of per-round ratios to the default, or the
// ratio of the tails) -> a confirmation run (request.confirm_rounds, on by default): a second, independent
// interleaved run of the oracle (its anchor) and the distinct picks. The oracle was chosen as the smallest of
// several noisy ratios, so in the run that chose it its figure is biased low (the winner's curse) and every pick
// looks worse than it is; measured again, it is not. Each pick's oracle ratio comes from the confirmation run
// (oracle / pick at the objective, at most 1), with a 95% interval from the order statistics of its per-round
// ratios to the oracle (median objective; a tail has none, its interval is the point) -> per method: the share of
// shapes within 5% of the oracle (CTMA), the geometric-mean oracle ratio (a failing pick scores 0, counted as 1e-6
// in the mean), the worst shape, and how many shapes are clearly within (the interval's low end >= 0.95) and
// clearly missed (its high end < 0.95): the rest are ties the run cannot separate from 5%. The sweep run's own
// figures stay in the JSON report (sweep_*), to show the bias. Not thread-safe (it measures).
#pragma once

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "common/json_fields.h"
#include "common/status.h"
#include "common/workload.h"
#include "runtime/hook/policy_file.h"
#include "tuner/sweep.h"

namespace crmap {

struct EvaluationRequest {
  std::string policy_path;
  std::string compare_policy_path;  // "": none; else its picks are a fifth method, "compared policy (hook)"
  std::string shapes;          // a distribution (name or path) or a list "tokens=1;tokens=64"
  int held_out = 8;            // shapes to evaluate; with a list, at most this many when held_out_given
  bool held_out_given = false;
  std::string db_path;         // the training database ("": the one the policy's metadata names)
  std::string workload;        // --workload ("": the policy's recorded source, or the built-in)
  uint64_t seed = 101;         // of the shapes drawn
  bool allow_other_isa = false;
  SweepOptions sweep;          // rounds, warm-up, timeouts, compile options of every shape's sweep
  // Rounds of each shape's confirmation run: -1 as many as the sweep's final run, 0 none (the oracle ratios of the
  // sweep's final run, biased low), else at least MinimumRounds(sweep.objective).
  int confirm_rounds = -1;
  std::function<void(size_t shape, size_t shapes, const std::string& stage, int done, int total)> on_progress;
};

struct EvaluationReport {
  Json json;         // workload, policy, held_out, static_plan, methods, shapes
  std::string text;  // the held-out shapes and the table of methods
};

// The steps of the protocol, exposed for tests:
// The held-out shapes: the listed shapes, or distinct draws from the distribution (request.seed); then the first
// request.held_out of them that are not tuned shapes. InvalidArgument when none is left.
Result<std::vector<Dims>> HeldOutShapes(const EvaluationRequest& request, const Workload& workload,
                                        const PolicyFile& file);
// The index of the tuned shape (file.table) nearest to `dims` (squared distance of their log2 values, in the
// policy's dim order); the first on ties.
size_t NearestTunedShape(const PolicyFile& file, const std::vector<int64_t>& dims);

// One method's pick at one shape: oracle latency / pick latency at the objective, at most 1 (0: the pick failed),
// and an interval of at least 95% around it (low <= ratio <= high; high may pass 1: the pick may be the faster).
// Where no interval is known the ends are 0 and infinity (Unknown): the shape then counts as neither clearly
// within nor clearly missed.
struct OracleRatio {
  double ratio = 0;
  double low = 0;
  double high = 0;
  static OracleRatio Unknown(double ratio) { return {ratio, 0, std::numeric_limits<double>::infinity()}; }
};

// The oracle ratio of `pick`, measured in a run whose anchor (first config) was the oracle: from the median of its
// per-round ratios to the anchor and that median's interval (median objective, 6 rounds or more), or the ratio of
// the tails; the interval unknown (OracleRatio::Unknown) for a tail, or fewer rounds. {0, 0, 0} — a clear miss —
// for a pick that failed or has no ratio.
OracleRatio OracleRatioInRun(const CandidateResult& pick, Objective objective);

// One method over the held-out shapes.
struct MethodSummary {
  double ctma = 0;              // share of shapes with ratio >= 0.95
  double geo_mean = 0;          // of the ratios, each floored at 1e-6
  double worst = 1;
  size_t worst_shape = 0;       // index of the first worst shape
  size_t within = 0;            // shapes with ratio >= 0.95
  size_t clearly_within = 0;    // shapes whose interval's low end >= 0.95
  size_t clear_misses = 0;      // shapes whose interval's high end < 0.95
};
// Summary of one method's ratios (one per shape; none: all zero but worst 1).
MethodSummary SummarizeOracleRatios(const std::vector<OracleRatio>& ratios);

// InvalidArgument for bad input (a policy without tuned shapes, no held-out shape, a mismatched workload or
// space, a compared policy of another workload or space, the compared policy given as the policy itself, or too
// few confirmation rounds for the objective), Unsupported when the hook refuses a policy of another ISA, NotFound
// for missing files.
Result<EvaluationReport> EvaluatePolicy(const EvaluationRequest& request);

}  // namespace crmap
