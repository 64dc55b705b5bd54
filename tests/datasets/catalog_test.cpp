#include "datasets/catalog.h"

#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "common/json_fields.h"
#include "datasets/distribution.h"
#include "datasets/scenario.h"

namespace crmap {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kWorkloads = {"bert_attention", "bert_ffn", "dlrm_mlp", "resnet_bottleneck",
                                             "resnet_stem"};

class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::path(::testing::TempDir()) / ("crmap_catalog_" + std::string(info->name()));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string Write(const std::string& name, const std::string& text) const {
    std::string file = (path_ / name).string();
    std::ofstream(file) << text;
    return file;
  }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

// The "workload" field of a built-in distribution or scenario file.
std::string WorkloadOf(DatasetKind kind, const std::string& name) {
  auto file = ReadDataset(kind, name);
  EXPECT_TRUE(file.ok()) << file.status().ToString();
  auto json = ParseJsonText(file->text, file->source);
  EXPECT_TRUE(json.ok()) << json.status().ToString();
  return json->value("workload", "");
}

TEST(CatalogTest, BuiltinWorkloadsAreExactlyTheFive) {
  EXPECT_EQ(BuiltinNames(DatasetKind::kWorkload), kWorkloads);
}

TEST(CatalogTest, EveryBuiltinWorkloadLoads) {
  for (const auto& name : BuiltinNames(DatasetKind::kWorkload)) {
    auto workload = LoadWorkload(name);
    ASSERT_TRUE(workload.ok()) << name << ": " << workload.status().ToString();
    EXPECT_EQ(workload->name(), name);
  }
}

TEST(CatalogTest, EveryBuiltinDistributionLoadsAndSamplesValidShapes) {
  auto names = BuiltinNames(DatasetKind::kDistribution);
  ASSERT_GE(names.size(), kWorkloads.size());
  std::set<DimSpecKind> kinds;
  for (const auto& name : names) {
    auto workload = LoadWorkload(WorkloadOf(DatasetKind::kDistribution, name));
    ASSERT_TRUE(workload.ok()) << name << ": " << workload.status().ToString();
    auto distribution = LoadDistribution(name, *workload);
    ASSERT_TRUE(distribution.ok()) << name << ": " << distribution.status().ToString();
    EXPECT_EQ(distribution->name(), name) << "the file name and the 'name' field must agree";
    EXPECT_FALSE(distribution->description().empty()) << name;
    EXPECT_TRUE(name.rfind(workload->name() + "_", 0) == 0) << name << " must start with its workload's name";
    for (const auto& [dim, spec] : distribution->dims()) kinds.insert(spec.kind);
    std::mt19937_64 rng(7);
    for (int i = 0; i < 500; ++i) {
      Dims dims = distribution->Sample(rng);
      ASSERT_TRUE(workload->CheckDims(dims).ok()) << name << ": " << DimsToText(dims);
    }
  }
  EXPECT_EQ(kinds.size(), 4u) << "the built-in files should use every dim spec type";
}

TEST(CatalogTest, EveryBuiltinScenarioLoadsAndDrifts) {
  auto names = BuiltinNames(DatasetKind::kScenario);
  ASSERT_GE(names.size(), kWorkloads.size());
  for (const auto& name : names) {
    auto workload = LoadWorkload(WorkloadOf(DatasetKind::kScenario, name));
    ASSERT_TRUE(workload.ok()) << name << ": " << workload.status().ToString();
    auto scenario = LoadScenario(name, *workload);
    ASSERT_TRUE(scenario.ok()) << name << ": " << scenario.status().ToString();
    EXPECT_EQ(scenario->name(), name);
    ASSERT_GE(scenario->phases().size(), 2u) << name << ": a scenario needs a drift";
    std::set<std::string> distributions;
    for (const auto& phase : scenario->phases()) distributions.insert(phase.distribution.name());
    EXPECT_GE(distributions.size(), 2u) << name << ": phases must use different distributions";
  }
}

TEST(CatalogTest, EveryWorkloadHasADistributionAndAScenario) {
  std::set<std::string> with_distribution, with_scenario;
  for (const auto& name : BuiltinNames(DatasetKind::kDistribution))
    with_distribution.insert(WorkloadOf(DatasetKind::kDistribution, name));
  for (const auto& name : BuiltinNames(DatasetKind::kScenario))
    with_scenario.insert(WorkloadOf(DatasetKind::kScenario, name));
  for (const auto& workload : kWorkloads) {
    EXPECT_TRUE(with_distribution.count(workload)) << workload;
    EXPECT_TRUE(with_scenario.count(workload)) << workload;
  }
}

// The held-out set (datasets/heldout, issue 12): workloads no method was developed on, loaded by path. Each loads,
// is not a built-in, and has a distribution of its own whose every sample the workload accepts.
TEST(CatalogTest, EveryHeldOutWorkloadLoadsByPathWithADistributionOfItsOwn) {
  const fs::path root = fs::path(CRMAP_SOURCE_DIR) / "datasets" / "heldout";
  std::set<std::string> workloads, with_distribution;
  for (const auto& entry : fs::directory_iterator(root / "workloads")) {
    auto workload = LoadWorkload(entry.path().string());
    ASSERT_TRUE(workload.ok()) << entry.path() << ": " << workload.status().ToString();
    EXPECT_EQ(workload->name(), entry.path().stem().string()) << "the file name and the 'name' field must agree";
    for (const auto& builtin : kWorkloads) EXPECT_NE(workload->name(), builtin) << "a held-out workload is no built-in";
    workloads.insert(workload->name());
  }
  EXPECT_GE(workloads.size(), 3u) << "issue 12 asks for at least three held-out workloads";
  for (const auto& entry : fs::directory_iterator(root / "distributions")) {
    auto file = ReadDataset(DatasetKind::kDistribution, entry.path().string());
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    auto json = ParseJsonText(file->text, file->source);
    ASSERT_TRUE(json.ok()) << json.status().ToString();
    const std::string workload_name = json->value("workload", "");
    ASSERT_TRUE(workloads.count(workload_name)) << entry.path() << " names a workload outside the held-out set";
    auto workload = LoadWorkload((root / "workloads" / (workload_name + ".json")).string());
    ASSERT_TRUE(workload.ok()) << workload.status().ToString();
    auto distribution = LoadDistribution(entry.path().string(), *workload);
    ASSERT_TRUE(distribution.ok()) << entry.path() << ": " << distribution.status().ToString();
    EXPECT_EQ(distribution->name(), entry.path().stem().string());
    std::mt19937_64 rng(11);
    for (int i = 0; i < 500; ++i) {
      Dims dims = distribution->Sample(rng);
      ASSERT_TRUE(workload->CheckDims(dims).ok()) << entry.path() << ": " << DimsToText(dims);
    }
    with_distribution.insert(workload_name);
  }
  EXPECT_EQ(with_distribution, workloads) << "every held-out workload needs a distribution";
}

TEST(CatalogTest, UnknownNameIsNotFoundAndListsBuiltins) {
  auto workload = LoadWorkload("no_such_workload");
  ASSERT_FALSE(workload.ok());
  EXPECT_EQ(workload.status().code(), StatusCode::kNotFound);
  EXPECT_NE(workload.status().message().find("no_such_workload"), std::string::npos);
  EXPECT_NE(workload.status().message().find("bert_ffn, dlrm_mlp"), std::string::npos)
      << workload.status().message();

  auto bert = LoadWorkload("bert_ffn");
  ASSERT_TRUE(bert.ok());
  auto distribution = LoadDistribution("no_such_distribution", *bert);
  ASSERT_FALSE(distribution.ok());
  EXPECT_EQ(distribution.status().code(), StatusCode::kNotFound);
  EXPECT_NE(distribution.status().message().find("bert_ffn_chat"), std::string::npos);

  auto scenario = LoadScenario("no_such_scenario", *bert);
  ASSERT_FALSE(scenario.ok());
  EXPECT_EQ(scenario.status().code(), StatusCode::kNotFound);
  EXPECT_NE(scenario.status().message().find("bert_ffn_chat_to_docs"), std::string::npos);
}

TEST(CatalogTest, MissingPathIsNotFound) {
  TempDir dir;
  auto result = ReadDataset(DatasetKind::kDistribution, dir.path() + "/missing.json");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kNotFound);
  EXPECT_NE(result.status().message().find("missing.json"), std::string::npos);
}

TEST(CatalogTest, LoadsFilesByPath) {
  TempDir dir;
  auto builtin = ReadDataset(DatasetKind::kWorkload, "dlrm_mlp");
  ASSERT_TRUE(builtin.ok());
  auto workload = LoadWorkload(dir.Write("my_workload.json", builtin->text));
  ASSERT_TRUE(workload.ok()) << workload.status().ToString();
  EXPECT_EQ(workload->name(), "dlrm_mlp");

  std::string distribution_path = dir.Write("tiny.json", R"({"format": "crmap.distribution/1", "name": "tiny",
      "workload": "dlrm_mlp", "dims": {"batch": {"type": "fixed", "value": 3}}})");
  auto distribution = LoadDistribution(distribution_path, *workload);
  ASSERT_TRUE(distribution.ok()) << distribution.status().ToString();
  EXPECT_EQ(distribution->name(), "tiny");

  auto scenario = LoadScenario(dir.Write("s.json", R"({"format": "crmap.scenario/1", "name": "s",
      "workload": "dlrm_mlp", "phases": [{"name": "a", "duration_s": 1, "rate_rps": 5, "distribution": "tiny.json"},
                                         {"name": "b", "duration_s": 1, "rate_rps": 5,
                                          "distribution": "dlrm_mlp_online"}]})"),
                               *workload);
  ASSERT_TRUE(scenario.ok()) << scenario.status().ToString();
  EXPECT_EQ(scenario->phases()[0].distribution.name(), "tiny");
  EXPECT_EQ(scenario->phases()[1].distribution.name(), "dlrm_mlp_online");
}

}  // namespace
}  // namespace crmap
