#include "common/json_fields.h"

#include <gtest/gtest.h>

#include <string>

namespace crmap {
namespace {

// Passes if `text` contains `part`; the failure message shows the whole text.
::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

const Json kObject = Json::parse(R"({
  "name": "fc1", "count": 3, "whole_float": 4.0, "fraction": 2.5, "flag": true, "nothing": null,
  "list": [1, 2], "big": 1e300, "negative": -7
})");

TEST(ParseJsonTextTest, ParsesValidText) {
  auto json = ParseJsonText(R"({"a": [1, 2, 3]})", "test");
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  EXPECT_EQ((*json)["a"].size(), 3u);
}

TEST(ParseJsonTextTest, MalformedTextNamesTheSource) {
  auto json = ParseJsonText("{\"a\": ", "my_file.json");
  ASSERT_FALSE(json.ok());
  EXPECT_EQ(json.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(json.status().message(), "my_file.json"));
  EXPECT_TRUE(Contains(json.status().message(), "malformed JSON"));
}

TEST(ParseJsonTextTest, EmptyTextIsAnError) { EXPECT_FALSE(ParseJsonText("", "empty").ok()); }

TEST(ParseJsonTextTest, ANumberBeyondDoubleIsAnErrorNotAnAbort) {
  for (const char* text : {"{\"weights\": 1e999}", "[-1e400]", "{\"a\": {\"b\": 2e308}}"}) {
    Result<Json> json = ParseJsonText(text, "spec.json");
    ASSERT_FALSE(json.ok()) << text;
    EXPECT_EQ(json.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(json.status().message().find("spec.json"), std::string::npos) << json.status().message();
  }
}

TEST(ParseJsonTextTest, AKeyRepeatedInOneObjectIsAnErrorNamingIt) {
  Result<Json> json = ParseJsonText(R"({"name": "bert_ffn", "dims": {}, "name": "other"})", "w.json");
  ASSERT_FALSE(json.ok());
  EXPECT_NE(json.status().message().find("key 'name' appears twice"), std::string::npos) << json.status().message();
  EXPECT_FALSE(ParseJsonText(R"({"a": [{"x": 1, "x": 2}]})", "nested").ok());
  // The same key in different objects is fine.
  EXPECT_TRUE(ParseJsonText(R"({"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 3}, {"x": 4}]})", "ok").ok());
}

TEST(CheckKnownFieldsTest, AcceptsKnownFields) {
  EXPECT_TRUE(CheckKnownFields(Json::parse(R"({"a": 1, "b": 2})"), {"a", "b", "c"}, "thing").ok());
  EXPECT_TRUE(CheckKnownFields(Json::object(), {"a"}, "thing").ok());
}

TEST(CheckKnownFieldsTest, UnknownFieldIsNamedAndAllowedListed) {
  Status status = CheckKnownFields(Json::parse(R"({"a": 1, "zeta": 2})"), {"a", "b", "c"}, "op 'fc1'");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(status.message(), "op 'fc1'"));
  EXPECT_TRUE(Contains(status.message(), "'zeta'"));
  EXPECT_TRUE(Contains(status.message(), "allowed: a, b, c"));
}

TEST(CheckKnownFieldsTest, NonObjectIsAnError) {
  Status status = CheckKnownFields(Json::array({1, 2}), {"a"}, "where");
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(Contains(status.message(), "expected a JSON object"));
}

TEST(GetStringTest, ReadsAndRejects) {
  auto name = GetString(kObject, "name", "op");
  ASSERT_TRUE(name.ok());
  EXPECT_EQ(*name, "fc1");

  auto wrong = GetString(kObject, "count", "op #2");
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message(), "op #2: field 'count' must be a string");

  auto missing = GetString(kObject, "absent", "op #2");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "op #2: missing field 'absent'");

  auto null = GetString(kObject, "nothing", "op");
  EXPECT_FALSE(null.ok());
}

TEST(GetIntTest, ReadsIntegersAndIntegralFloats) {
  EXPECT_EQ(*GetInt(kObject, "count", "w"), 3);
  EXPECT_EQ(*GetInt(kObject, "negative", "w"), -7);
  EXPECT_EQ(*GetInt(kObject, "whole_float", "w"), 4);
}

TEST(GetIntTest, AnIntegerBeyondInt64IsRefusedNotWrapped) {
  Json object = Json::parse(R"({"n": 9223372036854775808, "m": 9223372036854775807})");
  Result<int64_t> n = GetInt(object, "n", "record");
  ASSERT_FALSE(n.ok());  // was -9223372036854775808
  EXPECT_NE(n.status().message().find("9223372036854775808"), std::string::npos) << n.status().message();
  ASSERT_TRUE(GetInt(object, "m", "record").ok());
  EXPECT_EQ(*GetInt(object, "m", "record"), INT64_MAX);
}

TEST(GetIntTest, RejectsFractionsHugeValuesAndOtherTypes) {
  for (const char* key : {"fraction", "big", "name", "flag", "list", "nothing"}) {
    auto value = GetInt(kObject, key, "dim 'tokens'");
    ASSERT_FALSE(value.ok()) << key;
    EXPECT_EQ(value.status().message(), std::string("dim 'tokens': field '") + key + "' must be an integer");
  }
  auto missing = GetInt(kObject, "min", "dim 'tokens'");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(Contains(missing.status().message(), "missing field 'min'"));
}

TEST(GetNumberTest, ReadsIntegersAndFloats) {
  EXPECT_DOUBLE_EQ(*GetNumber(kObject, "fraction", "w"), 2.5);
  EXPECT_DOUBLE_EQ(*GetNumber(kObject, "count", "w"), 3.0);
  EXPECT_DOUBLE_EQ(*GetNumber(kObject, "big", "w"), 1e300);
}

TEST(GetNumberTest, RejectsNonNumbersNamingTheField) {
  auto value = GetNumber(kObject, "name", "accuracy_budget");
  ASSERT_FALSE(value.ok());
  EXPECT_EQ(value.status().message(), "accuracy_budget: field 'name' must be a number");
  EXPECT_FALSE(GetNumber(kObject, "flag", "w").ok());
  EXPECT_TRUE(Contains(GetNumber(kObject, "absent", "w").status().message(), "missing field 'absent'"));
}

TEST(GetBoolTest, ReadsAndRejects) {
  EXPECT_TRUE(*GetBool(kObject, "flag", "w"));
  auto wrong = GetBool(kObject, "count", "op 'fc1'");
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message(), "op 'fc1': field 'count' must be true or false");
  EXPECT_TRUE(Contains(GetBool(kObject, "absent", "w").status().message(), "'absent'"));
}

TEST(GetterTest, NonObjectIsAnError) {
  Json array = Json::array({1});
  EXPECT_TRUE(Contains(GetString(array, "a", "where").status().message(), "expected a JSON object"));
  EXPECT_FALSE(GetInt(array, "a", "where").ok());
  EXPECT_FALSE(GetNumber(array, "a", "where").ok());
  EXPECT_FALSE(GetBool(array, "a", "where").ok());
}

TEST(OptionalGetterTest, AbsentKeysGiveTheFallback) {
  EXPECT_EQ(*GetStringOr(kObject, "absent", "dflt", "w"), "dflt");
  EXPECT_EQ(*GetIntOr(kObject, "absent", 17, "w"), 17);
  EXPECT_DOUBLE_EQ(*GetNumberOr(kObject, "absent", 0.5, "w"), 0.5);
  EXPECT_FALSE(*GetBoolOr(kObject, "absent", false, "w"));
  EXPECT_TRUE(*GetBoolOr(kObject, "absent", true, "w"));
}

TEST(OptionalGetterTest, PresentKeysAreRead) {
  EXPECT_EQ(*GetStringOr(kObject, "name", "dflt", "w"), "fc1");
  EXPECT_EQ(*GetIntOr(kObject, "count", 17, "w"), 3);
  EXPECT_DOUBLE_EQ(*GetNumberOr(kObject, "fraction", 0.5, "w"), 2.5);
  EXPECT_TRUE(*GetBoolOr(kObject, "flag", false, "w"));
}

TEST(OptionalGetterTest, PresentKeysOfTheWrongTypeAreErrorsNamingTheField) {
  auto s = GetStringOr(kObject, "count", "dflt", "input 'x'");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "input 'x': field 'count' must be a string");
  auto i = GetIntOr(kObject, "fraction", 1, "input 'x'");
  ASSERT_FALSE(i.ok());
  EXPECT_EQ(i.status().message(), "input 'x': field 'fraction' must be an integer");
  auto d = GetNumberOr(kObject, "name", 1.0, "input 'x'");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().message(), "input 'x': field 'name' must be a number");
  auto b = GetBoolOr(kObject, "name", true, "input 'x'");
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().message(), "input 'x': field 'name' must be true or false");
  // A present null is not treated as absent.
  EXPECT_FALSE(GetIntOr(kObject, "nothing", 1, "w").ok());
}

TEST(JoinNamesTest, JoinsWithTheSeparator) {
  EXPECT_EQ(JoinNames({}), "");
  EXPECT_EQ(JoinNames({"a"}), "a");
  EXPECT_EQ(JoinNames({"a", "b", "c"}), "a, b, c");
  EXPECT_EQ(JoinNames({"batch", "seq"}, "*"), "batch*seq");
}

}  // namespace
}  // namespace crmap
