#include "runtime/serve/request_source.h"

#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace crmap::serve {
namespace {

const char* kHeader = "TIMESTAMP,ContextTokens,GeneratedTokens\n";

CsvMapping TokensFromContext(OutOfRange policy = OutOfRange::kReject, double time_scale = 1) {
  CsvMapping mapping;
  mapping.columns = {{"tokens", "ContextTokens"}};
  mapping.out_of_range = policy;
  mapping.time_scale = time_scale;
  return mapping;
}

TEST(RequestSourceTest, AzureRowsBecomeRequestsTimedFromTheFirstOne) {
  Workload ffn = testing::MustLoad("bert_ffn");  // tokens in [1, 4096]
  auto stream = ParseAzureCsv(std::string(kHeader) +
                                  "2023-11-16 18:17:03.9799600,4000,10\r\n"
                                  "2023-11-16 18:17:04.0319600,180,8\r\n"
                                  "2023-11-16 18:17:05,7,27\n",
                              "t.csv", ffn, TokensFromContext());
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  ASSERT_EQ(stream->requests.size(), 3u);
  EXPECT_EQ(stream->requests[0].arrival_us, 0);
  EXPECT_NEAR(stream->requests[1].arrival_us, 52000, 0.01);
  EXPECT_NEAR(stream->requests[2].arrival_us, 1020040, 0.01);
  EXPECT_EQ(stream->requests[1].dims, (Dims{{"tokens", 180}}));
  EXPECT_EQ(stream->requests[2].id, 2);
  EXPECT_EQ(stream->report.requests, 3);
  EXPECT_EQ(stream->report.out_of_range, 0);
  EXPECT_NEAR(stream->report.duration_us, 1020040, 0.01);
}

TEST(RequestSourceTest, AByteOrderMarkBeforeTheHeaderIsSkipped) {
  Workload ffn = testing::MustLoad("bert_ffn");
  auto stream = ParseAzureCsv("\xEF\xBB\xBF" + std::string(kHeader) + "2023-11-16 18:17:03,12,1\n", "t.csv", ffn,
                              TokensFromContext());
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  EXPECT_EQ(stream->requests.at(0).dims, (Dims{{"tokens", 12}}));
}

TEST(RequestSourceTest, TimeScaleMultipliesEveryRecordedTime) {
  Workload ffn = testing::MustLoad("bert_ffn");
  const std::string csv = std::string(kHeader) + "2023-12-31 23:59:59,1,1\n2024-01-01 00:00:01,2,1\n";
  auto half = ParseAzureCsv(csv, "t.csv", ffn, TokensFromContext(OutOfRange::kReject, 0.5));
  ASSERT_TRUE(half.ok()) << half.status().ToString();
  EXPECT_NEAR(half->requests[1].arrival_us, 1e6, 1e-6);  // 2 s recorded across a year's end, replayed in 1 s
}

TEST(RequestSourceTest, OutOfRangeValuesAreClampedScaledOrRejectedAndCounted) {
  Workload ffn = testing::MustLoad("bert_ffn");  // tokens in [1, 4096]
  const std::string csv = std::string(kHeader) + "2023-11-16 18:17:03,8192,1\n2023-11-16 18:17:04,2048,1\n"
                                                 "2023-11-16 18:17:05,0,1\n";
  auto clamp = ParseAzureCsv(csv, "t.csv", ffn, TokensFromContext(OutOfRange::kClamp));
  ASSERT_TRUE(clamp.ok());
  EXPECT_EQ(clamp->requests[0].dims.at("tokens"), 4096);
  EXPECT_EQ(clamp->requests[1].dims.at("tokens"), 2048);
  EXPECT_EQ(clamp->requests[2].dims.at("tokens"), 1);
  EXPECT_EQ(clamp->report.adjusted, 2);
  EXPECT_EQ(clamp->report.out_of_range, 0);

  auto scale = ParseAzureCsv(csv, "t.csv", ffn, TokensFromContext(OutOfRange::kScale));
  ASSERT_TRUE(scale.ok());
  EXPECT_EQ(scale->requests[0].dims.at("tokens"), 4096);  // the column's largest value becomes the dim's max
  EXPECT_EQ(scale->requests[1].dims.at("tokens"), 1024);  // and the rest keep their proportion
  EXPECT_EQ(scale->requests[2].dims.at("tokens"), 1);
  EXPECT_EQ(scale->report.adjusted, 3);

  auto reject = ParseAzureCsv(csv, "t.csv", ffn, TokensFromContext(OutOfRange::kReject));
  ASSERT_TRUE(reject.ok());
  ASSERT_EQ(reject->requests.size(), 3u);  // kept in the stream, never dropped
  EXPECT_TRUE(reject->requests[0].out_of_range);
  EXPECT_FALSE(reject->requests[1].out_of_range);
  EXPECT_TRUE(reject->requests[2].out_of_range);
  EXPECT_EQ(reject->report.out_of_range, 2);
  EXPECT_EQ(reject->report.adjusted, 0);
}

TEST(RequestSourceTest, UnmappedDimsTakeTheirFixedValue) {
  Workload attention = testing::MustLoad("bert_attention");  // batch in [1, 16], seq in [8, 512]
  CsvMapping mapping;
  mapping.columns = {{"seq", "ContextTokens"}};
  mapping.fixed = {{"batch", 2}};
  mapping.out_of_range = OutOfRange::kClamp;
  auto stream = ParseAzureCsv(std::string(kHeader) + "2023-11-16 18:17:03,100,1\n", "t.csv", attention, mapping);
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  EXPECT_EQ(stream->requests[0].dims, (Dims{{"batch", 2}, {"seq", 100}}));
  mapping.fixed.clear();
  auto missing = ParseAzureCsv(std::string(kHeader) + "2023-11-16 18:17:03,100,1\n", "t.csv", attention, mapping);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("dim 'batch'"), std::string::npos) << missing.status().message();
}

TEST(RequestSourceTest, BadFilesAndMappingsNameTheFileTheLineAndWhatExists) {
  Workload ffn = testing::MustLoad("bert_ffn");
  struct Case {
    std::string csv;
    CsvMapping mapping;
    std::string expected;
  };
  CsvMapping unknown_column = TokensFromContext();
  unknown_column.columns = {{"tokens", "Prompt"}};
  CsvMapping unknown_dim = TokensFromContext();
  unknown_dim.columns = {{"batch", "ContextTokens"}};
  const std::string good_row = "2023-11-16 18:17:03,5,1\n";
  const std::vector<Case> cases = {
      {"", TokensFromContext(), "t.csv: empty"},
      {"ContextTokens,GeneratedTokens\n1,2\n", TokensFromContext(), "no TIMESTAMP column; its columns: ContextTokens, GeneratedTokens"},
      {std::string(kHeader) + good_row, unknown_column, "its columns: TIMESTAMP, ContextTokens, GeneratedTokens"},
      {std::string(kHeader) + good_row, unknown_dim, "its dims: tokens"},
      {std::string(kHeader) + good_row + "2023-11-16 18:17:04,5\n", TokensFromContext(), "t.csv:3: 2 fields"},
      {std::string(kHeader) + "2023-11-16 18:17:04,-5,1\n", TokensFromContext(), "t.csv:2: column ContextTokens"},
      {std::string(kHeader) + "2023-11-16 18:17:04,5x,1\n", TokensFromContext(), "t.csv:2: column ContextTokens"},
      {std::string(kHeader) + "2023-02-30 18:17:04,5,1\n", TokensFromContext(), "t.csv:2: TIMESTAMP"},
      {std::string(kHeader) + "2023-11-16T18:17:04,5,1\n", TokensFromContext(), "t.csv:2: TIMESTAMP"},
      {std::string(kHeader) + "2023-11-16 18:17:04.,5,1\n", TokensFromContext(), "t.csv:2: TIMESTAMP"},
      {std::string(kHeader) + "2023-11-16 18:17:04,5,1\n2023-11-16 18:17:03,5,1\n", TokensFromContext(),
       "t.csv:3: TIMESTAMP is earlier"},
      {std::string(kHeader) + good_row + "\n" + good_row, TokensFromContext(), "t.csv:3: blank line"},
      {std::string(kHeader), TokensFromContext(), "no requests"},
      {std::string(kHeader) + good_row, TokensFromContext(OutOfRange::kClamp, 0), "--time-scale"},
  };
  for (const Case& c : cases) {
    auto stream = ParseAzureCsv(c.csv, "t.csv", ffn, c.mapping);
    ASSERT_FALSE(stream.ok()) << c.expected;
    EXPECT_EQ(stream.status().code(), StatusCode::kInvalidArgument) << c.expected;
    EXPECT_NE(stream.status().message().find(c.expected), std::string::npos) << stream.status().message();
  }
}

TEST(RequestSourceTest, ColumnMapsAndOutOfRangeNamesParse) {
  auto map = ParseColumnMap("tokens=ContextTokens,batch=GeneratedTokens");
  ASSERT_TRUE(map.ok());
  EXPECT_EQ(map->at("batch"), "GeneratedTokens");
  for (const char* bad : {"", "tokens", "=X", "tokens=", "tokens=A,tokens=B", "tokens=A,"})
    EXPECT_FALSE(ParseColumnMap(bad).ok()) << bad;
  EXPECT_EQ(*ParseOutOfRange("scale"), OutOfRange::kScale);
  EXPECT_NE(ParseOutOfRange("drop").status().message().find("clamp, scale, reject"), std::string::npos);
}

TEST(RequestSourceTest, TracesKeepTheirStreamsAndScaleTheirTimes) {
  std::vector<TraceRequest> trace = {{0, {{"tokens", 4}}, 0, 0}, {1000, {{"tokens", 8}}, 1, 0}};
  RequestStream stream = FromTrace(trace, 2, 2.0, "trace");
  ASSERT_EQ(stream.requests.size(), 2u);
  EXPECT_EQ(stream.requests[1].arrival_us, 2000);
  EXPECT_EQ(stream.requests[1].stream, 1);
  EXPECT_EQ(stream.requests[1].id, 1);
  EXPECT_EQ(stream.report.streams, 2);
  EXPECT_EQ(stream.report.duration_us, 2000);
}

}  // namespace
}  // namespace crmap::serve
