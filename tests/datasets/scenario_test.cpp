#include "datasets/scenario.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "datasets/catalog.h"

namespace crmap {
namespace {

namespace fs = std::filesystem;

const Workload& BertFfn() {
  static const Workload workload = LoadWorkload("bert_ffn").value();
  return workload;
}

Result<Scenario> Parse(const std::string& text, const std::string& base_dir = "") {
  CRMAP_ASSIGN_OR_RETURN(Json json, ParseJsonText(text, "s.json"));
  return ParseScenario(json, "s.json", BertFfn(), base_dir);
}

// A bert_ffn scenario file with the given phases.
std::string WithPhases(const std::string& phases, const std::string& extra = "") {
  return R"({"format": "crmap.scenario/1", "name": "s", "workload": "bert_ffn", )" + extra +
         R"("phases": )" + phases + "}";
}

const char* kFixedTokens = R"({"dims": {"tokens": {"type": "fixed", "value": 7}}})";

TEST(ScenarioTest, LoadsABuiltinScenario) {
  auto scenario = LoadScenario("bert_ffn_chat_to_docs", BertFfn());
  ASSERT_TRUE(scenario.ok()) << scenario.status().ToString();
  EXPECT_EQ(scenario->name(), "bert_ffn_chat_to_docs");
  EXPECT_EQ(scenario->workload_name(), "bert_ffn");
  EXPECT_FALSE(scenario->description().empty());
  EXPECT_EQ(scenario->streams(), 2);
  ASSERT_EQ(scenario->phases().size(), 3u);
  EXPECT_EQ(scenario->phases()[0].name, "chat");
  EXPECT_EQ(scenario->phases()[0].distribution.name(), "bert_ffn_chat");
  EXPECT_EQ(scenario->phases()[1].name, "summarise");
  EXPECT_EQ(scenario->phases()[1].distribution.name(), "bert_ffn_long_docs");
  EXPECT_DOUBLE_EQ(scenario->total_duration_s(), 45.0);
  EXPECT_DOUBLE_EQ(scenario->phase_start_s(0), 0.0);
  EXPECT_DOUBLE_EQ(scenario->phase_start_s(1), 15.0);
  EXPECT_DOUBLE_EQ(scenario->phase_start_s(2), 30.0);
}

TEST(ScenarioTest, BuiltinDriftChangesTheShapes) {
  // The chat phase's median prompt is far shorter than the summarise phase's documents.
  auto scenario = LoadScenario("bert_ffn_chat_to_docs", BertFfn());
  ASSERT_TRUE(scenario.ok());
  std::mt19937_64 rng(1);
  auto mean_tokens = [&](const ShapeDistribution& distribution) {
    double sum = 0;
    for (int i = 0; i < 2000; ++i) sum += distribution.Sample(rng).at("tokens");
    return sum / 2000;
  };
  EXPECT_GT(mean_tokens(scenario->phases()[1].distribution), 4 * mean_tokens(scenario->phases()[0].distribution));
}

TEST(ScenarioTest, InlineDistributionGetsADefaultName) {
  auto dlrm = LoadWorkload("dlrm_mlp");
  ASSERT_TRUE(dlrm.ok());
  auto scenario = LoadScenario("dlrm_mlp_online_to_bulk", *dlrm);
  ASSERT_TRUE(scenario.ok()) << scenario.status().ToString();
  ASSERT_EQ(scenario->phases().size(), 3u);
  EXPECT_EQ(scenario->phases()[1].distribution.name(), "dlrm_mlp_online_to_bulk/flash_sale");
  EXPECT_EQ(scenario->phases()[1].distribution.dims().at("batch").multiple_of, 8);
}

TEST(ScenarioTest, ParsesPhasesAndDefaults) {
  auto scenario = Parse(WithPhases(std::string(R"([{"name": "a", "duration_s": 2.5, "rate_rps": 40,
      "distribution": )") + kFixedTokens + R"(}, {"name": "b", "duration_s": 1, "rate_rps": 0.5,
      "distribution": "bert_ffn_chat"}])"));
  ASSERT_TRUE(scenario.ok()) << scenario.status().ToString();
  EXPECT_EQ(scenario->streams(), 1) << "streams defaults to 1";
  EXPECT_EQ(scenario->description(), "");
  ASSERT_EQ(scenario->phases().size(), 2u);
  EXPECT_DOUBLE_EQ(scenario->phases()[0].duration_s, 2.5);
  EXPECT_DOUBLE_EQ(scenario->phases()[0].rate_rps, 40);
  EXPECT_EQ(scenario->phases()[0].distribution.name(), "s/a");
  EXPECT_DOUBLE_EQ(scenario->phases()[1].rate_rps, 0.5);
  EXPECT_DOUBLE_EQ(scenario->total_duration_s(), 3.5);
}

TEST(ScenarioTest, RelativeDistributionPathsResolveAgainstTheScenarioFile) {
  fs::path dir = fs::path(::testing::TempDir()) / "crmap_scenario_relative";
  fs::remove_all(dir);
  fs::create_directories(dir / "dists");
  std::ofstream(dir / "dists" / "tiny.json")
      << R"({"format": "crmap.distribution/1", "name": "tiny", "workload": "bert_ffn",
            "dims": {"tokens": {"type": "fixed", "value": 3}}})";
  std::ofstream(dir / "s.json") << WithPhases(
      R"([{"name": "a", "duration_s": 1, "rate_rps": 1, "distribution": "dists/tiny.json"}])");
  auto scenario = LoadScenario((dir / "s.json").string(), BertFfn());
  ASSERT_TRUE(scenario.ok()) << scenario.status().ToString();
  EXPECT_EQ(scenario->phases()[0].distribution.name(), "tiny");
  fs::remove_all(dir);
}

TEST(ScenarioTest, UnknownDistributionNameIsNotFoundWithThePhase) {
  auto scenario = Parse(WithPhases(R"([{"name": "a", "duration_s": 1, "rate_rps": 1, "distribution": "nope"}])"));
  ASSERT_FALSE(scenario.ok());
  EXPECT_EQ(scenario.status().code(), StatusCode::kNotFound);
  EXPECT_NE(scenario.status().message().find("phases[0]"), std::string::npos) << scenario.status().message();
  EXPECT_NE(scenario.status().message().find("'nope'"), std::string::npos) << scenario.status().message();
}

TEST(ScenarioTest, RejectsADistributionOfAnotherWorkload) {
  auto scenario = Parse(WithPhases(R"([{"name": "a", "duration_s": 1, "rate_rps": 1,
      "distribution": "dlrm_mlp_online"}])"));
  ASSERT_FALSE(scenario.ok());
  EXPECT_EQ(scenario.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(scenario.status().message().find("dlrm_mlp"), std::string::npos) << scenario.status().message();
  EXPECT_NE(scenario.status().message().find("bert_ffn"), std::string::npos) << scenario.status().message();
}

std::string Phase(const std::string& fields) {
  return std::string(R"({"name": "a", "distribution": )") + kFixedTokens + ", " + fields + "}";
}

TEST(ScenarioTest, BadInputIsInvalidArgumentNamingTheField) {
  struct BadCase {
    const char* label;
    std::string text;
    std::vector<std::string> expected;
  };
  std::string ok_phase = Phase(R"("duration_s": 1, "rate_rps": 1)");
  const std::vector<BadCase> cases = {
      {"malformed", "{", {"s.json", "malformed"}},
      {"not an object", "3", {"object"}},
      {"wrong format", R"({"format": "crmap.distribution/1", "name": "s", "workload": "bert_ffn", "phases": []})",
       {"'format'", "crmap.scenario/1"}},
      {"unknown field", WithPhases("[" + ok_phase + "]", R"("speed": 2, )"), {"'speed'", "allowed"}},
      {"missing name", R"({"format": "crmap.scenario/1", "workload": "bert_ffn", "phases": [)" + ok_phase + "]}",
       {"'name'"}},
      {"other workload", R"({"format": "crmap.scenario/1", "name": "s", "workload": "dlrm_mlp", "phases": [)" +
                             ok_phase + "]}",
       {"'workload'", "dlrm_mlp", "bert_ffn"}},
      {"missing phases", R"({"format": "crmap.scenario/1", "name": "s", "workload": "bert_ffn"})", {"'phases'"}},
      {"empty phases", WithPhases("[]"), {"'phases'", "non-empty"}},
      {"phases not array", WithPhases("{}"), {"'phases'"}},
      {"zero streams", WithPhases("[" + ok_phase + "]", R"("streams": 0, )"), {"'streams'", "[1, 1024]"}},
      {"fractional streams", WithPhases("[" + ok_phase + "]", R"("streams": 1.5, )"), {"'streams'"}},
      {"phase not object", WithPhases("[1]"), {"phases[0]", "object"}},
      {"phase unknown field", WithPhases("[" + Phase(R"("duration_s": 1, "rate_rps": 1, "burst": 2)") + "]"),
       {"phases[0]", "'burst'"}},
      {"missing duration", WithPhases("[" + Phase(R"("rate_rps": 1)") + "]"), {"phases[0]", "'duration_s'"}},
      {"zero duration", WithPhases("[" + Phase(R"("duration_s": 0, "rate_rps": 1)") + "]"),
       {"phases[0]", "'duration_s'", "> 0"}},
      {"negative rate", WithPhases("[" + ok_phase + ", " + Phase(R"("duration_s": 1, "rate_rps": -2)") + "]"),
       {"phases[1]", "'rate_rps'", "> 0"}},
      {"string rate", WithPhases("[" + Phase(R"("duration_s": 1, "rate_rps": "fast")") + "]"),
       {"phases[0]", "'rate_rps'", "number"}},
      {"missing distribution", WithPhases(R"([{"name": "a", "duration_s": 1, "rate_rps": 1}])"),
       {"phases[0]", "'distribution'"}},
      {"distribution number", WithPhases(R"([{"name": "a", "duration_s": 1, "rate_rps": 1, "distribution": 4}])"),
       {"phases[0]", "'distribution'"}},
      {"bad inline distribution",
       WithPhases(R"([{"name": "a", "duration_s": 1, "rate_rps": 1,
                       "distribution": {"dims": {"tokens": {"type": "fixed", "value": 99999}}}}])"),
       {"phases[0]", "distribution", "dims.tokens", "'value'"}},
      {"empty phase name", WithPhases(R"([{"name": "", "duration_s": 1, "rate_rps": 1, "distribution": "x"}])"),
       {"phases[0]", "'name'"}},
      {"duplicate phase names", WithPhases("[" + ok_phase + ", " + ok_phase + "]"),
       {"phases[1]", "'name'", "distinct"}},
      {"too many requests", WithPhases("[" + Phase(R"("duration_s": 100000, "rate_rps": 1000)") + "]"),
       {"rate_rps", "duration_s", "1e+07"}},
  };
  for (const auto& c : cases) {
    auto result = Parse(c.text);
    ASSERT_FALSE(result.ok()) << c.label;
    EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument) << c.label << ": " << result.status().ToString();
    for (const auto& expected : c.expected)
      EXPECT_NE(result.status().message().find(expected), std::string::npos)
          << c.label << ": '" << expected << "' not in: " << result.status().message();
  }
}

}  // namespace
}  // namespace crmap
