#include "tuner/policy_export.h"

#include <gtest/gtest.h>

#include "tests/runtime/hook/policy_test_support.h"

namespace crmap {
namespace {

TEST(PolicyExportTest, NamesValuesListsAllowedOnesAndPutsIdentityFirst) {
  testing::SyntheticPolicyOptions options;
  options.masked = {{"precision", "bf16"}};
  options.calibrated = true;
  options.incumbent = true;
  PolicyFile file = testing::MakeSyntheticPolicy(options);
  nlohmann::ordered_json json = PolicyToJson(file);
  EXPECT_EQ(json.begin().key(), "format_version");
  EXPECT_EQ(json["workload"], file.workload);
  EXPECT_EQ(json["workload_source"], file.workload_source);
  EXPECT_EQ(json["fallback"], PolicyConfigString(file.knobs, file.fallback));
  EXPECT_EQ(json["incumbent"], PolicyConfigString(file.knobs, file.incumbent));
  EXPECT_EQ(json["switch_margin"], file.switch_margin);
  EXPECT_EQ(json["neighbour_incumbent"], false);
  file.neighbour_incumbent = true;
  EXPECT_EQ(PolicyToJson(file)["neighbour_incumbent"], true);
  PolicyFile without = file;  // before format version 5: no incumbent
  without.incumbent.clear();
  without.switch_margin = 0;
  EXPECT_TRUE(PolicyToJson(without)["incumbent"].is_null());
  ASSERT_EQ(json["table"].size(), file.table.size());
  EXPECT_EQ(json["table"][0]["config"], PolicyConfigString(file.knobs, file.table[0].config));
  EXPECT_EQ(json["table"][0]["dims"][file.dims[0].name], file.table[0].dims[0]);
  for (const auto& knob : json["knobs"]) {
    if (knob["name"] != "precision") continue;
    EXPECT_EQ(knob["allowed"], nlohmann::ordered_json::array({"f32"}));  // bf16 masked
    EXPECT_EQ(knob["values"].size(), 2u);
  }
  EXPECT_EQ(json["critic"]["layer1"]["in"], file.critic.layer1.in);
  EXPECT_EQ(json["table"][0]["confidence"], file.table[0].confidence);
  EXPECT_EQ(json["pessimism"], file.pessimism);
  // Each calibration band with where it ends: the next band's start, the last one's 1.
  ASSERT_EQ(json["calibration"].size(), 3u);
  EXPECT_EQ(json["calibration"][0]["to"], file.calibration[1].from);
  EXPECT_EQ(json["calibration"][2]["to"], 1.0f);
  EXPECT_EQ(json["calibration"][1]["folds"], file.calibration[1].folds);
  EXPECT_EQ(json["calibration"][1]["within"], file.calibration[1].within);
  EXPECT_EQ(json["calibration"][1]["rate"], file.calibration[1].rate);
  EXPECT_TRUE(CalibrationJson({}).empty());
  ASSERT_EQ(json["critic_members"].size(), file.critic_members.size());
  EXPECT_EQ(json["critic_members"][0]["layer1"]["out"], file.critic_members[0].layer1.out);
  EXPECT_EQ((--json.end()).key(), "critic_members");  // the long weights last
}

}  // namespace
}  // namespace crmap
