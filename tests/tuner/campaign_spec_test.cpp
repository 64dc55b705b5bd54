#include "tuner/campaign_spec.h"

#include <gtest/gtest.h>

#include "common/json_fields.h"
#include "tests/test_support.h"

namespace crmap {
namespace {

TEST(CampaignSpecTest, DefaultSpecParsesAndNamesRealWorkloadsAndAgents) {
  auto spec = ParseCampaignSpec(DefaultCampaignSpecText(), "default");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->name, "default");
  ASSERT_GE(spec->tasks.size(), 2u);
  for (const auto& task : spec->tasks) {
    Workload workload = testing::MustLoad(task.workload);
    auto shapes = ResolveShapes(workload, task.shapes, task.num_shapes, spec->seed);
    ASSERT_TRUE(shapes.ok()) << shapes.status().ToString();
    EXPECT_EQ(shapes->size(), task.num_shapes);
    EXPECT_GT(task.budget, 0u);
  }
}

TEST(CampaignSpecTest, ErrorsNameTheField) {
  auto parse = [](const std::string& text) { return ParseCampaignSpec(text, "spec.json").status().message(); };
  EXPECT_NE(parse("{").find("malformed JSON"), std::string::npos);
  EXPECT_NE(parse(R"({"format": "crmap.campaign/9", "tasks": []})").find("unsupported format"), std::string::npos);
  EXPECT_NE(parse(R"({"format": "crmap.campaign/1", "tasks": []})").find("'tasks'"), std::string::npos);
  EXPECT_NE(parse(R"({"format": "crmap.campaign/1", "rounds": 0, "tasks": [{"workload": "a", "shapes": "b"}]})")
                .find("rounds"),
            std::string::npos);
  EXPECT_NE(parse(R"({"format": "crmap.campaign/1", "tasks": [{"workload": "a", "shapes": "b", "budgett": 3}]})")
                .find("unknown field 'budgett'"),
            std::string::npos);
  EXPECT_NE(parse(R"({"format": "crmap.campaign/1", "tasks": [{"shapes": "b"}]})").find("'workload'"),
            std::string::npos);
}

TEST(CampaignSpecTest, ShapesFromAListOrADistribution) {
  Workload workload = testing::MustLoad("bert_ffn");
  auto list = ResolveShapes(workload, "tokens=1; tokens=64;tokens=1", 8, 1);
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->size(), 2u);  // duplicates dropped
  EXPECT_EQ((*list)[1].at("tokens"), 64);
  EXPECT_EQ(ResolveShapes(workload, "tokens=99999", 8, 1).status().code(), StatusCode::kInvalidArgument);
  auto drawn = ResolveShapes(workload, "bert_ffn_chat", 5, 3);
  ASSERT_TRUE(drawn.ok());
  EXPECT_EQ(drawn->size(), 5u);
  EXPECT_EQ(*drawn, *ResolveShapes(workload, "bert_ffn_chat", 5, 3));  // same seed, same shapes
  EXPECT_EQ(ResolveShapes(workload, "no_such_distribution", 5, 3).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace crmap
