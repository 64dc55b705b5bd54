// Campaign task: one `crmap tune` task (or one task of a campaign spec) end to end on the real backend.
//
// Data flow: the workload, its shapes and agent -> the records the tuning database already holds for this
// workload and space (AccountForResume: what this campaign spent at these shapes, which shapes its
// confirmation already covered, which have a stored default) -> RunCampaign (campaign.h) with a BackendEvaluator,
// every result appended to the database before the agent sees it (anchors stored once per shape) -> per shape,
// the confirmation round: the campaign's leaders, the default and LibTorch's peers (backend/peer.h) in one
// interleaved run; the fastest of that run is the shape's best, its speedups are from that run, and the peers'
// rows are stored (agent "confirm"). With a recheck share, the agent spends the budget less that share and the
// rest measures the shapes' leaders again (tuner/leader_recheck.h; records of agent "recheck") before the
// confirmation. With a probe share, that share measures the shapes' labels at every thread count above the
// tuned range (tuner/range_probe.h; records of agent "probe", at shapes the task did not tune). A resumed
// campaign that measured nothing new at its shapes does not confirm again where its confirmation already ran.
// The report is text and JSON for the CLI to print. Not thread-safe (it measures).
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "backend/session.h"
#include "common/json_fields.h"
#include "common/status.h"
#include "tuner/campaign.h"
#include "tuner/campaign_spec.h"
#include "tuner/tuning_db.h"

namespace crmap {

struct TaskSettings {
  std::string campaign;  // recorded with every measurement
  std::string db;
  int rounds = 10;  // a tail objective needs MinimumRounds(objective)
  int warmup = 2;
  Objective objective = Objective::kMedian;  // the latency statistic agents and the confirmation compare
  size_t batch = 8;
  uint64_t seed = 1;
  double time_limit_s = 0;
  bool resume = false;
  bool confirm = true;
  // Share of the budget in [0, 1) kept back from the agent to measure each shape's two leaders again
  // (tuner/leader_recheck.h): ShareOfBudget(budget, recheck_share) measurements. 0: the agent spends it all.
  double recheck_share = 0;
  // Share of the budget in [0, 1) kept back to measure the tuned shapes' labels at every thread count at the
  // pool's shapes above the tuned range (tuner/range_probe.h): ShareOfBudget(budget, probe_share) measurements,
  // never given back to the agent. 0: none. recheck_share + probe_share < 1; a probe share needs a distribution.
  double probe_share = 0;
  bool leader_climbs = false;  // the rl agent's leader climbs (RlOptions::leader_climbs); another agent: refused
  int max_failures = -1;   // consecutive failures before the agent is stopped; -1: 48, none for grid
  SessionOptions session;  // compile options, validation, timeout, warm and cold samples, peer executable
  const std::atomic<bool>* stop = nullptr;  // raised: finish and store the batch in flight, confirm nothing more
  // Progress of the campaign ("bert_ffn rl best 1.20x @ tokens=4 ETA 30s") and of the confirmation round.
  std::function<void(const std::string& stage, int done, int total)> on_progress;
};

struct TaskReport {
  Json json;
  std::string text;
  CampaignEnd end = CampaignEnd::kBudget;
};

// What a campaign already did at its shapes, from the records of its workload and space.
struct ResumeState {
  size_t already = 0;                       // this campaign's measurements of agent proposals at these shapes,
                                            // charged to its budget (refusals are not)
  size_t rechecked = 0;                     // ... of them, rechecks of its leaders (agent "recheck")
  size_t refused = 0;                       // its agent's proposals there the host refused ("unsupported")
  size_t probed = 0;                        // its range probes (agent "probe", at any shape; not in `already`)
  std::map<std::string, size_t> spent;      // per shape (DimsToText), charged records only
  std::map<std::string, size_t> spent_ok;   // ... of them, those that ran and validated
  std::set<std::string> confirmed_shapes;   // where its confirmation round already ran
  std::set<std::string> anchored;           // shapes whose default config is stored (by any campaign)
  size_t elsewhere = 0;                      // this campaign's measurements of agent proposals at other shapes
};

// Counts what campaign `campaign` stored at `shapes` (its records at other shapes do not count against the
// budget, but for its range probes, wherever they are; anchors and peer rows are not agent proposals).
// InvalidArgument when it already has measurements there and `resume` is false (`what` names the workload and
// database in the message). A resume at new shapes is allowed
// (it grows the campaign); RunTuneTask warns when none of the shapes was measured before (`elsewhere` > 0,
// `already` 0), which is also what resuming with another --shape-choice, --num-shapes or --seed looks like.
Result<ResumeState> AccountForResume(const std::vector<TuningRecord>& records, const std::string& campaign,
                                     const std::vector<Dims>& shapes, const SearchSpace& space, bool resume,
                                     const std::string& what);

// A campaign name as records store it: 1 to 200 printable characters (no control characters); InvalidArgument
// naming the rule otherwise.
Status CheckCampaignName(const std::string& name);

// Runs one task; on success fills `report`. InvalidArgument for bad input, the database's status when it cannot be
// read or written.
Status RunTuneTask(const TuneTask& task, const TaskSettings& settings, TaskReport* report);

// Every task of a spec into one database (all tasks validated first: nothing is measured if one is bad), task by task, each recorded as campaign "<spec>/<workload>/<agent>"
// ("#2", "#3", ... appended for a second task of the same workload and agent). Stops before the next task when
// settings.stop is raised; the reports of the tasks that ran are in *reports.
Status RunCampaignSpec(const CampaignSpec& spec, const TaskSettings& settings, std::vector<TaskReport>* reports);

}  // namespace crmap
