#include "backend/host.h"

#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "backend/torch_reference.h"

namespace crmap {
namespace {

TEST(HostTest, DescribesTheMachineConsistently) {
  const HostInfo& host = DetectHost();
  EXPECT_FALSE(host.cpu.empty());
  EXPECT_NE(host.isa, "unknown");
  EXPECT_GE(host.cores, 1);
  EXPECT_EQ(host.onednn_version.rfind("2.", 0), 0u) << host.onednn_version;
  EXPECT_TRUE(!host.native_bf16 || host.has_bf16) << "native bf16 implies bf16";
  EXPECT_EQ(&DetectHost(), &host);  // cached
}

// The suite's AVX2 twin (tests/CMakeLists.txt) must cap both oneDNN and LibTorch: a variable that does not
// reach the test process (gtest_discover_tests splits list-valued properties) fails here, not silently.
TEST(HostTest, TheAvx2TwinCapsOnednnAndLibtorch) {
  const char* onednn = std::getenv("ONEDNN_MAX_CPU_ISA");
  if (!onednn || std::string(onednn) != "AVX2") GTEST_SKIP() << "runs in the suite's AVX2 twin (ctest -L isa_avx2)";
  const char* aten = std::getenv("ATEN_CPU_CAPABILITY");
  ASSERT_NE(aten, nullptr) << "ONEDNN_MAX_CPU_ISA=AVX2 without ATEN_CPU_CAPABILITY: LibTorch is not capped";
  EXPECT_EQ(std::string(aten), "avx2");
  EXPECT_EQ(DetectHost().isa, "avx2");
  EXPECT_FALSE(DetectHost().has_bf16);
  EXPECT_EQ(DetectTorch().cpu_capability, "AVX2");
}

}  // namespace
}  // namespace crmap
