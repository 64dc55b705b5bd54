#include "common/file_read.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/hash.h"

namespace crmap {
namespace {

namespace fs = std::filesystem;

class FileReadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() / ("crmap_file_read_test." + std::to_string(getpid()));
    fs::remove_all(folder_);
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }
  fs::path Write(const std::string& name, const std::string& text) {
    fs::path path = folder_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  fs::path folder_;
};

TEST_F(FileReadTest, ReadsAWholeFileUpToTheCap) {
  const std::string text(1000, 'x');
  auto read = ReadFileCapped(Write("a.json", text).string(), 1000, "workload file");
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(*read, text);
}

TEST_F(FileReadTest, RefusesAFileOverTheCapNamingTheLimitAndTheKind) {
  auto read = ReadFileCapped(Write("a.json", std::string(1001, 'x')).string(), 1000, "workload file");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(read.status().message().find("larger than 1000 bytes, the limit for a workload file"), std::string::npos)
      << read.status().message();
}

TEST_F(FileReadTest, ASparseFileIsRefusedBySizeWithoutBeingRead) {
  const fs::path path = folder_ / "sparse.jsonl";
  std::ofstream(path).close();
  fs::resize_file(path, (uint64_t{3} << 30));  // 3 GiB of holes: reading it whole would take gigabytes
  auto read = ReadFileCapped(path.string(), kMaxDatasetFileBytes, "distribution file");
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find("16 MiB"), std::string::npos) << read.status().message();
}

TEST_F(FileReadTest, EndlessDevicesStopAtTheCap) {
  for (const char* device : {"/dev/zero", "/dev/urandom"}) {
    auto read = ReadFileCapped(device, 1 << 20, "campaign spec");
    ASSERT_FALSE(read.ok()) << device;
    EXPECT_NE(read.status().message().find("larger than 1 MiB, the limit for a campaign spec"), std::string::npos)
        << read.status().message();
  }
}

TEST_F(FileReadTest, MissingFilesAndFoldersHaveTheirOwnErrors) {
  auto missing = ReadFileCapped((folder_ / "none").string(), 100, "workload file");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  auto folder = ReadFileCapped(folder_.string(), 100, "workload file");
  EXPECT_EQ(folder.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(folder.status().message().find("directory"), std::string::npos);
}

TEST_F(FileReadTest, DigestIsFnvOfTheBytesAndHonoursTheCap) {
  const std::string text(200000, 'q');  // several read chunks
  const fs::path path = Write("db.jsonl", text + "end");
  auto digest = DigestFile(path.string(), 1 << 20, "tuning database");
  ASSERT_TRUE(digest.ok());
  EXPECT_EQ(*digest, Fnv1a64(text + "end"));
  EXPECT_FALSE(DigestFile(path.string(), 1000, "tuning database").ok());
}

TEST(FormatBytesTest, NamesUnitsAUserReads) {
  EXPECT_EQ(FormatBytes(312), "312 bytes");
  EXPECT_EQ(FormatBytes(16 * kMiB), "16 MiB");
  EXPECT_EQ(FormatBytes(uint64_t{1} << 30), "1 GiB");
  EXPECT_EQ(FormatBytes(3 * kMiB / 2), "1.5 MiB");
}

}  // namespace
}  // namespace crmap
