// Campaign: an agent spends a measurement budget over a set of shapes.
//
// Data flow: history (the records a database already holds for this workload and space) -> agent.Observe,
// so nothing is measured twice and a resumed campaign continues where it stopped -> loop: agent.Propose(batch)
// -> drop candidates measured before -> evaluator.Evaluate -> sink (the tuning database: every result is
// stored before the agent sees it) -> agent.Observe (with the evaluator's side measurements: the anchors) ->
// progress. The loop ends when the budget is spent, the
// agent has nothing new to propose, the time limit passes, `stop` is raised (Ctrl-C: the batch in flight
// is finished and stored first), or the agent failed max_consecutive_failures times in a row.
// Saving is a callback: the campaign never touches files. Not thread-safe.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "agents/agent.h"
#include "agents/evaluator.h"
#include "common/status.h"

namespace crmap {

struct CampaignProgress {
  size_t measured = 0;  // charged to the budget by this campaign, resumed records included
  size_t budget = 0;
  double elapsed_s = 0;
  double eta_s = 0;     // from the pace of this run; 0 until known
  double best_speedup = 0;
  std::string best_shape;
};

using ResultSink = std::function<Status(const std::vector<Candidate>&, const std::vector<Evaluation>&)>;

struct CampaignOptions {
  // Measurements of agent proposals (resumed ones count; anchors do not). A candidate the host refuses
  // (kUnsupported: oneDNN has no kernel for it on this CPU) was compiled, never timed: it is stored and observed
  // like any result but not charged, so a space half of which the host cannot run (bf16 on AVX2) does not spend
  // half the budget on refusals. The failure cap still counts refusals.
  size_t budget = 100;
  size_t batch = 8;
  double time_limit_s = 0;  // 0: none
  size_t max_consecutive_failures = 48;
  size_t already_measured = 0;  // the agent's charged records of this campaign in the database (resume; no
                                // rechecks, no refusals)
  const std::atomic<bool>* stop = nullptr;
  std::function<void(const CampaignProgress&)> on_progress;
};

struct ShapeOutcome {
  Dims dims;
  size_t measurements = 0;  // at this shape: history, this run's and the evaluator's side measurements
  size_t ok = 0;
  bool found = false;       // some config succeeded
  Config best;
  Evaluation best_evaluation;
  // The best few configs by reward, best first (best included): a single batch can flatter a config on a
  // noisy machine, so a final confirmation measures these side by side.
  std::vector<Config> leaders;
};

constexpr size_t kCampaignLeaders = 3;

enum class CampaignEnd { kBudget, kExhausted, kTimeLimit, kStopped, kFailureCap };
const char* CampaignEndName(CampaignEnd end);

struct CampaignOutcome {
  CampaignEnd end = CampaignEnd::kBudget;
  size_t measured_now = 0;      // in this run, refusals included
  size_t probes_now = 0;        // of them, active-learning probes (Candidate::probe), refusals not included
  size_t climbs_now = 0;        // and climbs (Candidate::climb), refusals not included
  size_t refused_now = 0;       // of measured_now, those the host refused (kUnsupported): stored, not charged
  size_t measured_total = 0;    // charged to the budget: this campaign's agent's measurements, resumed ones
                                // included (no rechecks, no refusals)
  size_t duplicates_dropped = 0;
  std::vector<ShapeOutcome> shapes;  // in the order of the campaign's shapes
  // This run's measurements charged to the budget.
  size_t charged_now() const { return measured_now - refused_now; }
};

// `history`: observations already in the database (any campaign) for this workload and space.
// Fails only if the sink fails (e.g. the database cannot be written): then nothing more is measured.
Result<CampaignOutcome> RunCampaign(const SearchSpace& space, const std::vector<Dims>& shapes, Agent& agent,
                                    Evaluator& evaluator, const ResultSink& sink,
                                    const std::vector<std::pair<Candidate, Evaluation>>& history,
                                    const CampaignOptions& options);

}  // namespace crmap
