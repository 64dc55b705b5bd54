#include "common/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace crmap {
namespace {

namespace fs = std::filesystem;

class AtomicFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = fs::temp_directory_path() / ("crmap_atomic_file_test." + std::to_string(getpid()));
    fs::remove_all(folder_);
    fs::create_directories(folder_);
  }
  void TearDown() override {
    fs::permissions(folder_, fs::perms::owner_all, fs::perm_options::add);
    fs::remove_all(folder_);
  }
  static std::string Read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  size_t Entries() const { return static_cast<size_t>(std::distance(fs::directory_iterator(folder_), {})); }
  fs::path folder_;
};

TEST_F(AtomicFileTest, WritesAndReplacesWholeFilesLeavingNoTemporary) {
  const fs::path path = folder_ / "out.json";
  ASSERT_TRUE(WriteFileAtomically(path.string(), "first").ok());
  EXPECT_EQ(Read(path), "first");
  ASSERT_TRUE(WriteFileAtomically(path.string(), std::string("sec\0ond", 7)).ok());
  EXPECT_EQ(Read(path), std::string("sec\0ond", 7));
  EXPECT_EQ(Entries(), 1u);
}

TEST_F(AtomicFileTest, AMissingFolderIsInvalidArgumentAndTouchesNothing) {
  const fs::path path = folder_ / "missing" / "out.json";
  Status status = WriteFileAtomically(path.string(), "x");
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find(path.string()), std::string::npos) << status.message();
  EXPECT_EQ(Entries(), 0u);
}

TEST_F(AtomicFileTest, CheckWritableFileAcceptsWhatCanBeWrittenAndNamesWhatCannot) {
  EXPECT_TRUE(CheckWritableFile((folder_ / "new.json").string()).ok());
  ASSERT_TRUE(WriteFileAtomically((folder_ / "old.json").string(), "x").ok());
  EXPECT_TRUE(CheckWritableFile((folder_ / "old.json").string()).ok());  // replaced when written

  Status missing = CheckWritableFile((folder_ / "nope" / "x.json").string());
  EXPECT_EQ(missing.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(missing.message().find("does not exist"), std::string::npos) << missing.message();

  Status folder = CheckWritableFile(folder_.string());
  EXPECT_EQ(folder.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(folder.message().find("is a folder"), std::string::npos) << folder.message();

  EXPECT_EQ(CheckWritableFile("").code(), StatusCode::kInvalidArgument);

  if (geteuid() != 0) {  // root writes anywhere
    fs::permissions(folder_, fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                    fs::perm_options::remove);
    Status locked = CheckWritableFile((folder_ / "x.json").string());
    EXPECT_EQ(locked.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(locked.message().find("not writable"), std::string::npos) << locked.message();
  }
}

}  // namespace
}  // namespace crmap
