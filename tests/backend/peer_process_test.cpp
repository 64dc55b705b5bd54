#include "backend/peer_process.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "backend/blas_info.h"
#include "tests/test_support.h"

namespace crmap {
namespace {

// Runs the worker's side of the protocol on `commands`, returns what it answered.
std::string Serve(const Workload& workload, const PeerWorkerSpec& spec, const std::string& commands, int* code) {
  std::FILE* in = fmemopen(const_cast<char*>(commands.data()), commands.size(), "r");
  char* answer = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&answer, &size);
  *code = ServePeerWorker(workload, spec, in, out);
  std::fclose(in);
  std::fclose(out);
  std::string text(answer, size);
  std::free(answer);
  return text;
}

class PeerWorkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char dir[] = "/tmp/crmap_peer_test.XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    spec_.dims = {{"batch", 2}};
    spec_.outputs_path = dir_ + "/outputs.f32";
  }
  void TearDown() override {
    unlink(spec_.outputs_path.c_str());
    rmdir(dir_.c_str());
  }
  Workload workload_ = testing::MustLoad("dlrm_mlp");
  std::string dir_;
  PeerWorkerSpec spec_;
};

TEST_F(PeerWorkerTest, AnswersReadyWithItsCoreThenTimesEachRunAndQuits) {
  int code = -1;
  std::string answer = Serve(workload_, spec_, "run 1\nrun 0\nquit\nrun 0\n", &code);
  EXPECT_EQ(code, 0);
  const std::string core = DetectBlas().core.empty() ? "none" : DetectBlas().core;
  ASSERT_EQ(answer.rfind("ready " + core + "\n", 0), 0u) << answer;
  // Two timed runs, nothing after quit.
  size_t first = answer.find("\nok "), second = answer.find("\nok ", first + 1);
  ASSERT_NE(first, std::string::npos) << answer;
  ASSERT_NE(second, std::string::npos) << answer;
  EXPECT_EQ(answer.find("\nok ", second + 1), std::string::npos) << answer;
  EXPECT_GT(std::atoll(answer.c_str() + first + 4), 0);
  // The outputs of the first run: dlrm_mlp's single output of batch x 1 floats.
  std::ifstream outputs(spec_.outputs_path, std::ios::binary | std::ios::ate);
  EXPECT_EQ(static_cast<size_t>(outputs.tellg()), 2 * sizeof(float));
}

TEST_F(PeerWorkerTest, AnUnknownCommandIsAnErrorLineAndExitStatus1) {
  int code = -1;
  std::string answer = Serve(workload_, spec_, "run -3\n", &code);
  EXPECT_EQ(code, 1);
  EXPECT_NE(answer.find("\nerror unknown command 'run -3'; allowed: run N (0-1000), quit\n"), std::string::npos)
      << answer;
}

TEST_F(PeerWorkerTest, AModelThatCannotBeBuiltIsReportedBeforeReady) {
  int code = -1;
  spec_.dims = {{"batch", 1 << 30}};  // over any memory this test has
  std::string answer = Serve(workload_, spec_, "", &code);
  EXPECT_EQ(code, 1);
  EXPECT_EQ(answer.rfind("error ", 0), 0u) << answer;
}

TEST(PeerProcessTest, AMissingExecutableIsAnInternalErrorNamingIt) {
  Workload workload = testing::MustLoad("dlrm_mlp");
  auto process = PeerProcess::Start("/nonexistent/crmap", workload, {{"batch", 2}}, 1, 0,
                                    PeerBaseline{TorchPath::kEager, "Haswell"});
  ASSERT_FALSE(process.ok());
  EXPECT_NE(process.status().message().find("/nonexistent/crmap"), std::string::npos) << process.status().message();
}

TEST(PeerProcessTest, WithoutAnExecutableNothingStarts) {
  Workload workload = testing::MustLoad("dlrm_mlp");
  auto process = PeerProcess::Start("", workload, {{"batch", 2}}, 1, 0, PeerBaseline{TorchPath::kEager, "Haswell"});
  EXPECT_EQ(process.status().code(), StatusCode::kInvalidArgument);
}

TEST(PeerProcessTest, APeerInThisProcessNeedsNoChild) {
  Workload workload = testing::MustLoad("dlrm_mlp");
  auto process = PeerProcess::Start("/bin/true", workload, {{"batch", 2}}, 1, 0, PeerBaseline{});
  EXPECT_EQ(process.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace crmap
