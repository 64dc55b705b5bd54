#include "tuner/campaign_spec.h"

#include <gtest/gtest.h>

#include "common/json_fields.h"
#include "datasets/shape_cover.h"
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

TEST(CampaignSpecTest, ShapesCoverADistributionWhenAsked) {
  Workload workload = testing::MustLoad("bert_ffn");
  auto covering = ResolveShapes(workload, "bert_ffn_chat", 5, 3, ShapeChoice::kCover);
  ASSERT_TRUE(covering.ok());
  EXPECT_EQ(covering->size(), 5u);
  EXPECT_NE(*covering, *ResolveShapes(workload, "bert_ffn_chat", 5, 3, ShapeChoice::kDraws));
  auto too_many = ResolveShapes(workload, "bert_ffn_chat", kMaxCoveringShapes + 1, 3, ShapeChoice::kCover);
  EXPECT_EQ(too_many.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(too_many.status().message().find("at most 64"), std::string::npos) << too_many.status().message();
  auto edges = ResolveShapes(workload, "bert_ffn_chat", 5, 3, ShapeChoice::kEdges);
  ASSERT_TRUE(edges.ok()) << edges.status().ToString();
  EXPECT_EQ(edges->size(), 5u);
  EXPECT_NE(*edges, *covering) << "the edges come first";
  auto too_many_edges = ResolveShapes(workload, "bert_ffn_chat", kMaxCoveringShapes + 1, 3, ShapeChoice::kEdges);
  EXPECT_NE(too_many_edges.status().message().find("shape choice edges: a cover takes at most 64"),
            std::string::npos)
      << too_many_edges.status().message();
  auto quantiles = ResolveShapes(workload, "bert_ffn_chat", 5, 3, ShapeChoice::kQuantiles);
  ASSERT_TRUE(quantiles.ok()) << quantiles.status().ToString();
  EXPECT_EQ(quantiles->size(), 5u);
  EXPECT_NE(*quantiles, *covering);
  EXPECT_NE(*quantiles, *ResolveShapes(workload, "bert_ffn_chat", 5, 3, ShapeChoice::kDraws));
  auto many_quantiles = ResolveShapes(workload, "bert_ffn_chat", kMaxCoveringShapes + 1, 3, ShapeChoice::kQuantiles);
  ASSERT_TRUE(many_quantiles.ok()) << "quantiles run no k-medoids search: no cover's cap";
  EXPECT_EQ(many_quantiles->size(), kMaxCoveringShapes + 1);
  // A list is taken as listed whatever the choice.
  auto listed = ResolveShapes(workload, "tokens=7", 5, 3, ShapeChoice::kCover);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_EQ(listed->size(), 1u);
}

TEST(CampaignSpecTest, ATaskNamesItsShapeChoice) {
  auto spec = ParseCampaignSpec(R"({"format": "crmap.campaign/1", "tasks": [
      {"workload": "bert_ffn", "shapes": "bert_ffn_chat", "shape_choice": "cover"},
      {"workload": "bert_ffn", "shapes": "bert_ffn_chat"},
      {"workload": "bert_ffn", "shapes": "bert_ffn_chat", "shape_choice": "edges"},
      {"workload": "bert_ffn", "shapes": "bert_ffn_chat", "shape_choice": "quantiles", "num_shapes": 100}]})",
                                "spec.json");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->tasks[0].shape_choice, ShapeChoice::kCover);
  EXPECT_EQ(spec->tasks[2].shape_choice, ShapeChoice::kEdges);
  EXPECT_STREQ(ShapeChoiceName(ShapeChoice::kEdges), "edges");
  EXPECT_EQ(spec->tasks[3].shape_choice, ShapeChoice::kQuantiles);
  EXPECT_STREQ(ShapeChoiceName(ShapeChoice::kQuantiles), "quantiles");
  EXPECT_EQ(spec->tasks[1].shape_choice, ShapeChoice::kDraws) << "draws unless a task says otherwise";
  auto unknown = ParseCampaignSpec(R"({"format": "crmap.campaign/1", "tasks": [
      {"workload": "bert_ffn", "shapes": "bert_ffn_chat", "shape_choice": "spread"}]})",
                                   "spec.json");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("'spread'"), std::string::npos) << unknown.status().message();
  EXPECT_NE(unknown.status().message().find("draws"), std::string::npos);
  EXPECT_NE(unknown.status().message().find("cover"), std::string::npos);
  EXPECT_NE(unknown.status().message().find("edges"), std::string::npos);
  EXPECT_NE(unknown.status().message().find("quantiles"), std::string::npos);
  auto too_many = ParseCampaignSpec(R"({"format": "crmap.campaign/1", "tasks": [
      {"workload": "bert_ffn", "shapes": "bert_ffn_chat", "shape_choice": "cover", "num_shapes": 65}]})",
                                    "spec.json");
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.status().message().find("num_shapes must be in [1, 64] with shape_choice cover"),
            std::string::npos)
      << too_many.status().message();
  auto too_many_edges = ParseCampaignSpec(R"({"format": "crmap.campaign/1", "tasks": [
      {"workload": "bert_ffn", "shapes": "bert_ffn_chat", "shape_choice": "edges", "num_shapes": 65}]})",
                                          "spec.json");
  ASSERT_FALSE(too_many_edges.ok());
  EXPECT_NE(too_many_edges.status().message().find("with shape_choice edges"), std::string::npos)
      << too_many_edges.status().message();
}

}  // namespace
}  // namespace crmap
