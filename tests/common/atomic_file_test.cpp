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

TEST_F(AtomicFileTest, ASymlinkStaysALinkAndItsTargetIsReplaced) {
  const fs::path target = folder_ / "target.json", link = folder_ / "link.json";
  ASSERT_TRUE(WriteFileAtomically(target.string(), "old").ok());
  fs::create_symlink(target, link);
  ASSERT_TRUE(WriteFileAtomically(link.string(), "new").ok());
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(Read(target), "new");
}

TEST_F(AtomicFileTest, ADeviceIsWrittenThroughNeverReplaced) {
  // Before: the rename replaced /dev/full-like paths with a regular file. Here: a character device stays one,
  // and a device that cannot take the bytes is an error naming the path.
  ASSERT_TRUE(WriteFileAtomically("/dev/null", "bytes").ok());
  struct stat info {};
  ASSERT_EQ(::stat("/dev/null", &info), 0);
  EXPECT_TRUE(S_ISCHR(info.st_mode));
  Status full = WriteFileAtomically("/dev/full", "bytes");
  EXPECT_FALSE(full.ok());
  EXPECT_NE(full.message().find("/dev/full"), std::string::npos) << full.message();
  ASSERT_EQ(::stat("/dev/full", &info), 0);
  EXPECT_TRUE(S_ISCHR(info.st_mode));
}

TEST_F(AtomicFileTest, CheckOutputPathRefusesAnInputUnderAnyNameUnlessForced) {
  const fs::path db = folder_ / "db.jsonl", hard = folder_ / "hard.jsonl", soft = folder_ / "soft.jsonl";
  ASSERT_TRUE(WriteFileAtomically(db.string(), "{}\n").ok());
  fs::create_hard_link(db, hard);
  fs::create_symlink(db, soft);
  const std::vector<std::pair<std::string, std::string>> inputs = {{"--workload", "bert_ffn"}, {"--db", db.string()}};
  for (const fs::path& out : {db, hard}) {
    Status same = CheckOutputPath("--out", out.string(), inputs, /*force=*/false);
    EXPECT_EQ(same.code(), StatusCode::kInvalidArgument) << out;
    EXPECT_NE(same.message().find("is the same file as --db"), std::string::npos) << same.message();
    EXPECT_TRUE(CheckOutputPath("--out", out.string(), inputs, /*force=*/true).ok());
  }
  EXPECT_EQ(CheckOutputPath("--out", soft.string(), inputs, false).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(CheckOutputPath("--out", (folder_ / "report.json").string(), inputs, false).ok());
}

TEST_F(AtomicFileTest, CheckOutputPathRefusesFifosDevicesAndSymlinksUnlessForced) {
  const fs::path fifo = folder_ / "pipe", link = folder_ / "link.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  ASSERT_TRUE(WriteFileAtomically((folder_ / "t.json").string(), "x").ok());
  fs::create_symlink(folder_ / "t.json", link);
  for (const std::string& out : {fifo.string(), link.string(), std::string("/dev/full")}) {
    Status refused = CheckOutputPath("--out", out, {}, /*force=*/false);
    EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument) << out;
    EXPECT_NE(refused.message().find("not a regular file"), std::string::npos) << refused.message();
    EXPECT_TRUE(CheckOutputPath("--out", out, {}, /*force=*/true).ok()) << out;
  }
  EXPECT_EQ(SpecialFileKind(fifo.string()), "a FIFO");
  EXPECT_EQ(SpecialFileKind("/dev/full"), "a character device");
  EXPECT_EQ(SpecialFileKind((folder_ / "t.json").string()), "");
}

}  // namespace
}  // namespace crmap
