#include "tuner/campaign_task.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include <gtest/gtest.h>

#include "datasets/catalog.h"
#include "tuner/config_scores.h"
#include "tuner/range_probe.h"
#include "tests/test_support.h"

namespace crmap {
namespace {

namespace fs = std::filesystem;

class CampaignTaskTest : public ::testing::Test {
 protected:
  TuningRecord Record(int64_t batch, const std::string& config, const std::string& campaign,
                      const std::string& agent, const std::string& status = "ok") {
    TuningRecord r;
    r.dims = {{"batch", batch}};
    r.config = space_.ToString(testing::MustConfig(space_, config));
    r.campaign = campaign;
    r.agent = agent;
    r.status = status;
    return r;
  }
  // An empty temporary folder named `name`.
  static fs::path FreshDir(const std::string& name) {
    const fs::path dir = fs::path(::testing::TempDir()) / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
  }
  // A random-agent campaign of `budget` on tiny_mlp at two shapes.
  static TuneTask TinyTask(size_t budget) {
    TuneTask task;
    task.workload = std::string(CRMAP_SOURCE_DIR) + "/tests/data/tiny_mlp.json";
    task.shapes = "batch=2;batch=16";
    task.agent = "random";
    task.budget = budget;
    return task;
  }
  // A tiny_mlp distribution file in `dir` over the batches `values` with `weights` (JSON arrays); its path.
  static std::string WriteTinyDistribution(const fs::path& dir, const std::string& values,
                                           const std::string& weights) {
    const fs::path path = dir / "tiny_distribution.json";
    std::ofstream(path) << R"({"format": "crmap.distribution/1", "name": "tiny", "workload": "tiny_mlp", "dims": )"
                        << R"({"batch": {"type": "categorical", "values": )" << values << R"(, "weights": )"
                        << weights << "}}}";
    return path.string();
  }
  // A random-agent campaign of `budget` on tiny_mlp at the two shapes first drawn from a distribution over the
  // batches `values` with `weights` (written into `dir`).
  static TuneTask TinyProbingTask(const fs::path& dir, size_t budget, const std::string& values,
                                  const std::string& weights) {
    TuneTask task = TinyTask(budget);
    task.shapes = WriteTinyDistribution(dir, values, weights);
    task.num_shapes = 2;
    return task;
  }
  // QuickSettings without the confirmation round, with a probe share.
  static TaskSettings ProbingSettings(const std::string& campaign, const fs::path& dir, double probe_share) {
    TaskSettings settings = QuickSettings(campaign, dir);
    settings.confirm = false;
    settings.probe_share = probe_share;
    return settings;
  }
  // Few rounds, no warm-up or cold samples, database in `dir`.
  static TaskSettings QuickSettings(const std::string& campaign, const fs::path& dir) {
    TaskSettings settings;
    settings.campaign = campaign;
    settings.db = (dir / "db.jsonl").string();
    settings.rounds = 2;
    settings.warmup = 0;
    settings.session.measure.cold_samples = 0;
    settings.session.peer_executable = "";  // no child-process peer here (tiny_mlp's BLAS core is the host's)
    return settings;
  }
  Workload workload_ = testing::MustLoad("dlrm_mlp");
  SearchSpace space_ = testing::MustSpace(workload_, 2);
  std::vector<Dims> shapes_ = {{{"batch", 1}}, {{"batch", 8}}};
};

TEST_F(CampaignTaskTest, ResumeCountsThisCampaignsProposalsAtItsShapesOnly) {
  std::vector<TuningRecord> records = {
      Record(1, "default", "c", "anchor"),                       // an anchor: not a proposal
      Record(1, "threads=1", "c", "rl"),                         // counts
      Record(1, "weights=packed", "c", "rl", "unsupported"),     // refused: at the shape, not charged
      Record(8, "threads=1", "c", "rl"),                         // counts
      Record(8, "threads=1", "c", "recheck"),                    // counts, and as a recheck
      Record(64, "threads=1", "c", "rl"),                        // another shape: does not count
      Record(64, "weights=packed", "c", "probe"),                // a range probe: counts as one, elsewhere
      Record(8, "weights=packed", "c", "probe"),                 // ... and at a shape tuned now: still a probe
      Record(8, "weights=packed", "other", "rl"),                // another campaign
      Record(8, "default", "other", "anchor"),                   // ... whose anchor still anchors batch=8
  };
  TuningRecord peer = Record(1, "default", "c", "confirm");
  peer.baseline = true;
  peer.config = "libtorch";
  records.push_back(peer);  // a confirmation ran at batch=1
  auto state = AccountForResume(records, "c", shapes_, space_, /*resume=*/true, "dlrm_mlp in db");
  ASSERT_TRUE(state.ok()) << state.status().ToString();
  EXPECT_EQ(state->already, 3u);
  EXPECT_EQ(state->refused, 1u);
  EXPECT_EQ(state->rechecked, 1u);
  EXPECT_EQ(state->probed, 2u);
  EXPECT_EQ(state->elsewhere, 1u) << "a range probe is not a proposal at another shape";
  EXPECT_EQ(state->spent.at("batch=1"), 1u);  // the refusal is stored there, not charged
  EXPECT_EQ(state->spent_ok.at("batch=1"), 1u);
  EXPECT_EQ(state->spent.at("batch=8"), 2u);
  EXPECT_EQ(state->confirmed_shapes, (std::set<std::string>{"batch=1"}));
  EXPECT_EQ(state->anchored, (std::set<std::string>{"batch=1", "batch=8"}));

  auto refused = AccountForResume(records, "c", shapes_, space_, /*resume=*/false, "dlrm_mlp in db");
  ASSERT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("campaign 'c' already has 4 measurements of dlrm_mlp in db"),
            std::string::npos)
      << refused.status().message();
  EXPECT_TRUE(AccountForResume(records, "new", shapes_, space_, /*resume=*/false, "x").ok());
  // A campaign whose every proposal was refused has run all the same: repeating it needs --resume.
  std::vector<TuningRecord> only_refusals = {Record(1, "weights=packed", "r", "rl", "unsupported")};
  EXPECT_EQ(AccountForResume(only_refusals, "r", shapes_, space_, /*resume=*/false, "x").status().code(),
            StatusCode::kInvalidArgument);
}

// Only the agent's refusals go uncharged: a recheck or range probe counts whatever its status, as when it was
// measured, so a resume charges exactly what the run that stored them charged.
TEST_F(CampaignTaskTest, ResumeLeavesOutTheAgentsRefusalsOnly) {
  std::vector<TuningRecord> records = {Record(1, "threads=1", "c", "rl", "unsupported"),
                                       Record(1, "weights=packed", "c", "recheck", "unsupported"),
                                       Record(8, "threads=1", "c", "probe", "unsupported"),
                                       Record(8, "weights=packed", "c", "rl")};
  auto state = AccountForResume(records, "c", shapes_, space_, /*resume=*/true, "dlrm_mlp in db");
  ASSERT_TRUE(state.ok()) << state.status().ToString();
  EXPECT_EQ(state->refused, 1u);
  EXPECT_EQ(state->already, 2u);
  EXPECT_EQ(state->rechecked, 1u);
  EXPECT_EQ(state->probed, 1u);
  EXPECT_EQ(state->spent.at("batch=1"), 1u) << "the recheck, not the refused proposal";
  EXPECT_EQ(state->spent.at("batch=8"), 1u);
}

// What a resume at shapes the campaign never measured is told (RunTuneTask's warning rests on it): its
// proposals elsewhere, anchors not counted.
TEST_F(CampaignTaskTest, CountsTheCampaignsProposalsAtOtherShapes) {
  std::vector<TuningRecord> records = {Record(64, "default", "c", "anchor"), Record(64, "threads=1", "c", "rl"),
                                       Record(64, "weights=packed", "c", "rl"), Record(64, "threads=1", "d", "rl")};
  auto state = AccountForResume(records, "c", shapes_, space_, /*resume=*/true, "dlrm_mlp in db");
  ASSERT_TRUE(state.ok()) << state.status().ToString();
  EXPECT_EQ(state->already, 0u);
  EXPECT_EQ(state->elsewhere, 2u);
  records.push_back(Record(8, "threads=1", "c", "rl"));  // one shape in common
  state = AccountForResume(records, "c", shapes_, space_, /*resume=*/true, "dlrm_mlp in db");
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(state->already, 1u);
  EXPECT_EQ(state->elsewhere, 2u);
}

// A tiny real campaign: every proposal and each shape's anchor stored, the confirmation round's peer rows stored,
// and a second run of the same campaign refused without --resume.
TEST_F(CampaignTaskTest, ASpecWithOneBadTaskMeasuresNothing) {
  const fs::path dir = fs::path(::testing::TempDir()) / "crmap_campaign_spec_validation_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  CampaignSpec spec;
  spec.name = "v";
  TuneTask good;
  good.workload = std::string(CRMAP_SOURCE_DIR) + "/tests/data/tiny_mlp.json";
  good.shapes = "batch=2";
  good.agent = "random";
  good.budget = 2;
  for (const char* broken : {"workload", "agent", "shapes"}) {
    TuneTask bad = good;
    if (std::string(broken) == "workload") bad.workload = "no_such_workload";
    if (std::string(broken) == "agent") bad.agent = "genetic";
    if (std::string(broken) == "shapes") bad.shapes = "batch=99999";
    spec.tasks = {good, bad};
    TaskSettings settings;
    settings.db = (dir / "db.jsonl").string();
    settings.rounds = 1;
    settings.warmup = 0;
    std::vector<TaskReport> reports;
    Status ran = RunCampaignSpec(spec, settings, &reports);
    ASSERT_FALSE(ran.ok()) << broken;
    EXPECT_NE(ran.message().find("task 2"), std::string::npos) << ran.message();
    EXPECT_NE(ran.message().find("nothing was measured"), std::string::npos) << ran.message();
    EXPECT_TRUE(reports.empty());
    EXPECT_FALSE(fs::exists(settings.db)) << broken << ": the first task was measured before the second was checked";
  }
}

TEST(CampaignNameTest, EmptyControlAndOverlongNamesAreRefused) {
  EXPECT_TRUE(CheckCampaignName("spec/bert_ffn/rl#2").ok());
  EXPECT_FALSE(CheckCampaignName("").ok());
  EXPECT_FALSE(CheckCampaignName("a\nb").ok());
  EXPECT_FALSE(CheckCampaignName(std::string(201, 'x')).ok());
}

// Leader climbs are the rl agent's: asked of another agent, the task is refused before anything is measured.
TEST_F(CampaignTaskTest, LeaderClimbsWithAnotherAgentAreRefusedBeforeMeasuring) {
  const fs::path dir = FreshDir("crmap_campaign_task_leader_climbs_test");
  TaskSettings settings = QuickSettings("t", dir);
  settings.leader_climbs = true;
  TaskReport report;
  Status ran = RunTuneTask(TinyTask(2), settings, &report);  // agent random
  ASSERT_FALSE(ran.ok());
  EXPECT_NE(ran.message().find("rl agent only"), std::string::npos) << ran.message();
  EXPECT_FALSE(fs::exists(settings.db)) << "nothing measured, nothing written";
}

TEST_F(CampaignTaskTest, RunsStoresConfirmsAndRefusesToRepeatItself) {
  const fs::path dir = FreshDir("crmap_campaign_task_test");
  TuneTask task = TinyTask(6);
  TaskSettings settings = QuickSettings("t", dir);
  TaskReport report;
  Status ran = RunTuneTask(task, settings, &report);
  ASSERT_TRUE(ran.ok()) << ran.ToString();
  auto db = ReadTuningDb(settings.db);
  ASSERT_TRUE(db.ok());
  size_t proposals = 0, refused = 0, anchors = 0, confirms = 0;
  for (const auto& r : db->records) {
    const bool proposal = r.agent == "random";
    proposals += proposal && r.status != "unsupported";
    refused += proposal && r.status == "unsupported";  // bf16 where the ISA has none (the avx2. copy): not charged
    anchors += r.agent == "anchor";
    confirms += r.agent == "confirm";
    EXPECT_EQ(r.campaign, "t");
  }
  EXPECT_EQ(proposals, 6u);
  EXPECT_LE(anchors, 2u);  // once per shape at most (the default may also be a proposal)
  EXPECT_GE(confirms, 2u);  // at least LibTorch as installed at each shape
  EXPECT_EQ(report.json["measured_now"], 6);
  EXPECT_EQ(report.json["measured_total"], 6);
  EXPECT_EQ(report.json["refused_now"], refused);
  EXPECT_EQ(report.json["refused_total"], refused);
  EXPECT_EQ(report.text.find("refused:") != std::string::npos, refused > 0) << report.text;
  EXPECT_EQ(report.json["shapes"].size(), 2u);
  EXPECT_NE(report.text.find("batch=16"), std::string::npos);

  TaskReport again;
  EXPECT_EQ(RunTuneTask(task, settings, &again).code(), StatusCode::kInvalidArgument);
  fs::remove_all(dir);
}

// A recheck share: the agent spends the budget less the share, the rest measures leaders again — configs the
// campaign measured at that shape, never the default — and a resume finds the whole budget spent.
TEST_F(CampaignTaskTest, RechecksMeasureTheLeadersAgainWithinTheBudget) {
  const fs::path dir = FreshDir("crmap_campaign_task_recheck_test");
  TuneTask task = TinyTask(8);
  TaskSettings settings = QuickSettings("r", dir);
  settings.confirm = false;
  settings.recheck_share = 0.5;
  TaskReport report;
  Status ran = RunTuneTask(task, settings, &report);
  ASSERT_TRUE(ran.ok()) << ran.ToString();
  auto db = ReadTuningDb(settings.db);
  ASSERT_TRUE(db.ok());
  size_t proposals = 0, rechecks = 0;
  std::set<std::pair<std::string, std::string>> proposed;  // (dims, config) the agent measured
  for (const auto& r : db->records) {
    if (r.agent == "random" && r.status != "unsupported") {  // a refusal is not charged (campaign.h)
      ++proposals;
      proposed.insert({DimsToText(r.dims), r.config});
    }
    if (r.agent != "recheck") continue;
    ++rechecks;
    EXPECT_TRUE(proposed.count({DimsToText(r.dims), r.config})) << r.config << " at " << DimsToText(r.dims);
    EXPECT_NE(r.config, r.anchor);  // never the default
    EXPECT_FALSE(std::isnan(r.ratio_to_anchor));  // side by side with the default, like every measurement
  }
  EXPECT_EQ(proposals, 4u);
  EXPECT_GE(rechecks, 3u);  // 4 kept back; a pair that does not fit the last one may leave it unspent
  EXPECT_LE(rechecks, 4u);
  EXPECT_EQ(report.json["rechecks_now"], rechecks);
  EXPECT_EQ(report.json["recheck_budget"], 4);
  EXPECT_EQ(report.json["measured_now"], proposals + rechecks);

  TaskSettings again_settings = settings;
  again_settings.resume = true;
  TaskReport again;
  ASSERT_TRUE(RunTuneTask(task, again_settings, &again).ok());
  EXPECT_EQ(again.json["measured_now"], 0);  // both shares spent (or what is left fits no recheck)
  EXPECT_EQ(again.json["measured_total"], proposals + rechecks);
  fs::remove_all(dir);
}

// A resume that asks for another share than the campaign ran with never spends more than the budget in all: a
// share raised after the agent spent everything adds no rechecks, and a share dropped (the flag left out) gives
// the agent nothing of what the rechecks spent.
TEST_F(CampaignTaskTest, AResumeWithAnotherRecheckShareStaysWithinTheBudget) {
  for (const auto& [first_share, resumed_share] : {std::pair{0.0, 0.5}, std::pair{0.5, 0.0}}) {
    const fs::path dir = FreshDir("crmap_campaign_task_recheck_resume_test");
    TuneTask task = TinyTask(6);
    TaskSettings settings = QuickSettings("s", dir);
    settings.confirm = false;
    settings.recheck_share = first_share;
    TaskReport first;
    ASSERT_TRUE(RunTuneTask(task, settings, &first).ok());
    const size_t spent = first.json["measured_total"].get<size_t>();
    EXPECT_LE(spent, 6u);
    EXPECT_GE(spent, 5u) << "share " << first_share;  // at most one measurement fits no recheck
    settings.resume = true;
    settings.recheck_share = resumed_share;
    TaskReport resumed;
    ASSERT_TRUE(RunTuneTask(task, settings, &resumed).ok());
    // What the first run left unspent (a measurement no recheck fitted) may go to the agent now; never more.
    const size_t now = resumed.json["measured_now"].get<size_t>();
    EXPECT_EQ(resumed.json["measured_total"], spent + now);
    EXPECT_LE(spent + now, 6u) << "share " << first_share << " then " << resumed_share;
    fs::remove_all(dir);
  }
}

// A probe share: the agent spends the budget less the share; the rest measures the tuned shapes' labels at every
// thread count at the distribution's shapes above the tuned range, the farthest first and at most two — never at
// or below it — and a resume finds the budget spent. The distribution's weights make the tuned shapes batch 2 and
// 4 and the pool's shapes above them 64 (farthest), 32 and 16.
TEST_F(CampaignTaskTest, RangeProbesMeasureTheLabelsThreadCountsAboveTheTunedRange) {
  const fs::path dir = FreshDir("crmap_campaign_task_probe_test");
  const SearchSpace space = testing::MustSpace(testing::MustLoad(TinyTask(1).workload), 0);  // the host's threads
  if (space.knobs()[static_cast<size_t>(space.FindKnobOfKind(KnobKind::kThreads))].values.size() < 2)
    GTEST_SKIP() << "one thread count on this host: a label has no other to probe";
  const TuneTask task = TinyProbingTask(dir, 12, "[2, 4, 16, 32, 64]", "[1000, 1000, 1, 1, 1]");
  const TaskSettings settings = ProbingSettings("p", dir, 0.5);
  TaskReport report;
  Status ran = RunTuneTask(task, settings, &report);
  ASSERT_TRUE(ran.ok()) << ran.ToString();
  const std::vector<Dims> tuned = {{{"batch", 2}}, {{"batch", 4}}};
  ASSERT_EQ(report.json["shapes"].size(), 2u);
  for (const auto& row : report.json["shapes"])
    ASSERT_TRUE(row["dims"].get<Dims>() == tuned[0] || row["dims"].get<Dims>() == tuned[1]) << row.dump();

  auto db = ReadTuningDb(settings.db);
  ASSERT_TRUE(db.ok());
  std::vector<TuningRecord> at_tuned;
  std::vector<const TuningRecord*> probes;
  size_t proposals = 0;
  for (const auto& r : db->records) {
    proposals += r.agent == "random" && r.status != "unsupported";  // a refusal is not charged (campaign.h)
    if (r.agent == "probe") probes.push_back(&r);
    if (r.dims == tuned[0] || r.dims == tuned[1]) at_tuned.push_back(r);
  }
  std::set<std::string> expected_configs;
  for (const Config& c : RangeProbeConfigs(space, ScoreConfigs(space, at_tuned), tuned))
    expected_configs.insert(space.ToString(c));
  ASSERT_FALSE(expected_configs.empty());  // a label at another thread count is never the default
  EXPECT_EQ(proposals, 6u);
  EXPECT_EQ(probes.size(), std::min<size_t>(6, 2 * expected_configs.size()));
  bool at_32_yet = false;
  for (const TuningRecord* r : probes) {
    const int64_t batch = r->dims.at("batch");
    ASSERT_TRUE(batch == 64 || batch == 32) << DimsToText(r->dims) << ": the two farthest shapes above only";
    EXPECT_FALSE(at_32_yet && batch == 64) << "the farthest shape is probed first";
    at_32_yet = at_32_yet || batch == 32;
    EXPECT_TRUE(expected_configs.count(r->config)) << r->config;
    EXPECT_FALSE(std::isnan(r->ratio_to_anchor));  // side by side with the default, like every measurement
  }
  EXPECT_EQ(report.json["range_probes_now"], probes.size());
  EXPECT_EQ(report.json["range_probe_budget"], 6);
  EXPECT_EQ(report.json["range_probe_shapes"][0], Json(Dims{{"batch", 64}}));
  EXPECT_EQ(report.json["measured_now"], proposals + probes.size());

  TaskSettings again_settings = settings;
  again_settings.resume = true;
  TaskReport again;
  ASSERT_TRUE(RunTuneTask(task, again_settings, &again).ok());
  EXPECT_EQ(again.json["measured_now"], 0);  // the agent's share spent; every probe config stored
  EXPECT_EQ(again.json["measured_total"], proposals + probes.size());
  fs::remove_all(dir);
}

// With the tuned shapes at the top of the distribution nothing lies above them: the share stays unspent (not given
// to the agent) and the report says why.
TEST_F(CampaignTaskTest, NothingAboveTheTunedRangeLeavesTheProbeShareUnspent) {
  const fs::path dir = FreshDir("crmap_campaign_task_probe_nothing_test");
  TaskReport report;
  ASSERT_TRUE(RunTuneTask(TinyProbingTask(dir, 12, "[2, 4]", "[1, 1]"), ProbingSettings("n", dir, 0.5), &report).ok());
  EXPECT_EQ(report.json["range_probes_now"], 0);
  EXPECT_EQ(report.json["measured_total"], 6);
  EXPECT_NE(report.text.find("no shape of the distribution lies above it"), std::string::npos) << report.text;
  fs::remove_all(dir);
}

// A resume that asks for other shares than the campaign ran with never spends more than the budget in all, probes
// stored before included.
TEST_F(CampaignTaskTest, AResumeWithAnotherProbeOrRecheckShareStaysWithinTheBudget) {
  struct Shares {
    double recheck, probe;
  };
  for (const auto& [first, resumed] : {std::pair{Shares{0, 0.3}, Shares{0.3, 0.3}},
                                       std::pair{Shares{0, 0.5}, Shares{0.3, 0.2}},
                                       std::pair{Shares{0, 0.5}, Shares{0, 0}}}) {
    const fs::path dir = FreshDir("crmap_campaign_task_probe_resume_test");
    const TuneTask task = TinyProbingTask(dir, 10, "[2, 4, 16, 32, 64]", "[1000, 1000, 1, 1, 1]");
    TaskSettings settings = ProbingSettings("s", dir, first.probe);
    settings.recheck_share = first.recheck;
    TaskReport first_run;
    ASSERT_TRUE(RunTuneTask(task, settings, &first_run).ok());
    const size_t spent = first_run.json["measured_total"].get<size_t>();
    settings.resume = true;
    settings.recheck_share = resumed.recheck;
    settings.probe_share = resumed.probe;
    TaskReport resumed_run;
    ASSERT_TRUE(RunTuneTask(task, settings, &resumed_run).ok());
    const size_t now = resumed_run.json["measured_now"].get<size_t>();
    EXPECT_EQ(resumed_run.json["measured_total"], spent + now);
    EXPECT_LE(spent + now, 10u) << "probe " << first.probe << " then recheck " << resumed.recheck << ", probe "
                                << resumed.probe;
    auto db = ReadTuningDb(settings.db);
    ASSERT_TRUE(db.ok());
    size_t stored = 0;  // what the budget counts: proposals (not their refusals), rechecks and probes; no anchors
    for (const auto& r : db->records)
      stored += r.agent != "anchor" && !r.baseline &&
                (r.status != "unsupported" || r.agent == "recheck" || r.agent == "probe");
    EXPECT_EQ(stored, spent + now);
    fs::remove_all(dir);
  }
}

// A probe share with a list of shapes (no pool to probe above), and shares leaving the agent nothing, are refused
// before anything is measured.
TEST_F(CampaignTaskTest, AProbeShareWithAListAndSharesLeavingTheAgentNothingAreRefused) {
  const fs::path dir = FreshDir("crmap_campaign_task_shares_test");
  TaskSettings settings = QuickSettings("q", dir);
  settings.probe_share = 0.5;
  TaskReport report;
  Status ran = RunTuneTask(TinyTask(4), settings, &report);
  EXPECT_EQ(ran.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(ran.message().find("not a list of shapes"), std::string::npos) << ran.ToString();
  settings.recheck_share = 0.5;
  ran = RunTuneTask(TinyTask(4), settings, &report);
  EXPECT_EQ(ran.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(ran.message().find("sum to below 1"), std::string::npos) << ran.ToString();
  EXPECT_FALSE(fs::exists(settings.db));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace crmap
