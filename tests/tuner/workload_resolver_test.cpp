#include "tuner/workload_resolver.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "datasets/catalog.h"

namespace crmap {
namespace {

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class WorkloadResolverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/crmap_resolver_test.XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    path_ = dir_ + "/tiny_mlp.json";
    text_ = ReadText(std::string(CRMAP_SOURCE_DIR) + "/tests/data/tiny_mlp.json");
    ASSERT_FALSE(text_.empty());
    Write(path_, text_);
    auto loaded = LoadWorkload(path_);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    fingerprint_ = loaded->fingerprint();
  }
  void TearDown() override {
    std::remove(path_.c_str());
    std::remove((dir_ + "/moved.json").c_str());
    std::remove((dir_ + "/edited.json").c_str());
    rmdir(dir_.c_str());
  }
  static void Write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }
  WorkloadRef Ref() const { return WorkloadRef{"tiny_mlp", {fingerprint_}, path_}; }

  std::string dir_, path_, text_, fingerprint_;
};

TEST_F(WorkloadResolverTest, AWorkloadLoadedByPathRecordsItsAbsolutePath) {
  auto loaded = LoadWorkload(path_);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->origin(), path_);
  EXPECT_EQ(LoadWorkload("bert_ffn")->origin(), kBuiltinOrigin);
}

TEST_F(WorkloadResolverTest, FindsTheRecordedFileWithoutBeingTold) {
  auto found = ResolveWorkload(Ref(), "", "policy p");
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->name(), "tiny_mlp");
  EXPECT_EQ(found->fingerprint(), fingerprint_);
}

TEST_F(WorkloadResolverTest, AMovedFileIsNotFoundAndTheMessageSaysWhatToPass) {
  ASSERT_EQ(std::rename(path_.c_str(), (dir_ + "/moved.json").c_str()), 0);
  auto missing = ResolveWorkload(Ref(), "", "policy p");
  ASSERT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find(path_ + ", which no longer exists; pass --workload PATH"),
            std::string::npos)
      << missing.status().message();
  auto given = ResolveWorkload(Ref(), dir_ + "/moved.json", "policy p");
  ASSERT_TRUE(given.ok()) << given.status().ToString();
}

TEST_F(WorkloadResolverTest, AFileThatChangedIsRefusedNamingBothFingerprints) {
  std::string edited = text_;
  edited.replace(edited.find("\"seed\": 5"), 9, "\"seed\": 6");
  Write(dir_ + "/edited.json", edited);
  auto refused = ResolveWorkload(Ref(), dir_ + "/edited.json", "policy p");
  ASSERT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("but policy p was made with " + fingerprint_), std::string::npos)
      << refused.status().message();
  // The recorded file itself, edited in place, is refused the same way.
  Write(path_, edited);
  EXPECT_EQ(ResolveWorkload(Ref(), "", "policy p").status().code(), StatusCode::kInvalidArgument);
}

TEST_F(WorkloadResolverTest, AnotherWorkloadGivenIsRefused) {
  auto other = ResolveWorkload(Ref(), "bert_ffn", "policy p");
  ASSERT_EQ(other.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(other.status().message().find("is workload 'bert_ffn', but policy p is for 'tiny_mlp'"),
            std::string::npos)
      << other.status().message();
}

TEST_F(WorkloadResolverTest, BuiltinsAndUnrecordedFiles) {
  Workload ffn = *LoadWorkload("bert_ffn");
  EXPECT_TRUE(ResolveWorkload(WorkloadRef{"bert_ffn", {ffn.fingerprint()}, kBuiltinOrigin}, "", "db").ok());
  EXPECT_TRUE(ResolveWorkload(WorkloadRef{"bert_ffn", {ffn.fingerprint()}, ""}, "", "db").ok());  // older records
  auto stale = ResolveWorkload(WorkloadRef{"bert_ffn", {"0123456789abcdef"}, kBuiltinOrigin}, "", "db");
  EXPECT_EQ(stale.status().code(), StatusCode::kInvalidArgument);
  auto unknown = ResolveWorkload(WorkloadRef{"tiny_mlp", {fingerprint_}, ""}, "", "db");
  ASSERT_EQ(unknown.status().code(), StatusCode::kNotFound);
  EXPECT_NE(unknown.status().message().find("pass --workload PATH"), std::string::npos);
}

TEST_F(WorkloadResolverTest, TheWorkloadOfADatabase) {
  TuningRecord a, b;
  a.workload = "tiny_mlp";
  a.workload_fingerprint = fingerprint_;
  a.workload_source = path_;
  b.workload = "bert_ffn";
  b.workload_fingerprint = LoadWorkload("bert_ffn")->fingerprint();
  b.workload_source = kBuiltinOrigin;
  auto only = ResolveDbWorkload({a}, "", "db.jsonl");
  ASSERT_TRUE(only.ok()) << only.status().ToString();
  EXPECT_EQ(only->origin(), path_);
  auto several = ResolveDbWorkload({a, b}, "", "db.jsonl");
  ASSERT_EQ(several.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(several.status().message().find("holds 2 workloads; name one with --workload (bert_ffn, tiny_mlp)"),
            std::string::npos)
      << several.status().message();
  EXPECT_TRUE(ResolveDbWorkload({a, b}, "bert_ffn", "db.jsonl").ok());
  auto absent = ResolveDbWorkload({b}, path_, "db.jsonl");
  EXPECT_NE(absent.status().message().find("holds no records of workload 'tiny_mlp'"), std::string::npos);
  EXPECT_EQ(ResolveDbWorkload({}, "", "db.jsonl").status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace crmap
