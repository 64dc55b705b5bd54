#include "backend/host.h"

#include <gtest/gtest.h>

namespace crmap {
namespace {

TEST(HostTest, DescribesTheMachineConsistently) {
  const HostInfo& host = DetectHost();
  EXPECT_FALSE(host.cpu.empty());
  EXPECT_NE(host.isa, "unknown");
  EXPECT_GE(host.cores, 1);
  EXPECT_EQ(host.onednn_version.rfind("2.", 0), 0u) << host.onednn_version;
  EXPECT_EQ(host.has_bf16, host.isa.rfind("avx512_core", 0) == 0);
  EXPECT_EQ(host.blocked_channels, host.has_bf16 ? 16 : 8);
  EXPECT_EQ(&DetectHost(), &host);  // cached
}

}  // namespace
}  // namespace crmap
