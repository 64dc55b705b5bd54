#include "backend/blas_info.h"

#include <gtest/gtest.h>

namespace crmap {
namespace {

TEST(BlasInfoTest, CoreLevelsFollowTheirVectorIsa) {
  EXPECT_EQ(OpenBlasCoreLevel("Prescott"), 1);
  EXPECT_EQ(OpenBlasCoreLevel("nehalem"), 1);
  EXPECT_EQ(OpenBlasCoreLevel("Sandybridge"), 2);
  EXPECT_EQ(OpenBlasCoreLevel("HASWELL"), 3);
  EXPECT_EQ(OpenBlasCoreLevel("Zen"), 3);
  EXPECT_EQ(OpenBlasCoreLevel("SkylakeX"), 4);
  EXPECT_EQ(OpenBlasCoreLevel("Cooperlake"), 4);
  EXPECT_EQ(OpenBlasCoreLevel("Pentium9"), 0);
  EXPECT_EQ(OnednnIsaLevel("avx2"), 3);
  EXPECT_EQ(OnednnIsaLevel("avx2_vnni"), 3);
  EXPECT_EQ(OnednnIsaLevel("avx512_core_vnni"), 4);
  EXPECT_EQ(OnednnIsaLevel("unknown"), 0);
}

TEST(BlasInfoTest, TheMatchingCoreDependsOnIsaAndVendor) {
  EXPECT_EQ(OpenBlasCoreFor("avx512_core_vnni", false), "SkylakeX");
  EXPECT_EQ(OpenBlasCoreFor("avx512_core", true), "SkylakeX");
  EXPECT_EQ(OpenBlasCoreFor("avx512_core_bf16", true), "Cooperlake");
  EXPECT_EQ(OpenBlasCoreFor("avx2", false), "Haswell");
  EXPECT_EQ(OpenBlasCoreFor("avx2", true), "Zen");
  EXPECT_EQ(OpenBlasCoreFor("unknown", false), "");
}

TEST(BlasInfoTest, ACoreIsBelowTheHostOnlyWhenItsIsaIsOlder) {
  EXPECT_TRUE(BlasCoreBelowIsa("Prescott", "avx512_core_vnni"));  // the Xeon VM of issue 8
  EXPECT_TRUE(BlasCoreBelowIsa("Haswell", "avx512_core"));
  EXPECT_FALSE(BlasCoreBelowIsa("SkylakeX", "avx512_core_vnni"));
  EXPECT_FALSE(BlasCoreBelowIsa("SkylakeX", "avx2"));  // above, not below
  EXPECT_FALSE(BlasCoreBelowIsa("Zen", "avx2"));
  EXPECT_FALSE(BlasCoreBelowIsa("Pentium9", "avx2"));  // unknown: no claim
}

TEST(BlasInfoTest, DetectsTheBlasThisProcessLoaded) {
  // The test binary links LibTorch, which links the system BLAS (libblas.so.3).
  const BlasInfo& blas = DetectBlas();
  EXPECT_FALSE(blas.library.empty());
  if (blas.openblas) {
    EXPECT_GT(OpenBlasCoreLevel(blas.core), 0) << blas.core;
    EXPECT_NE(blas.config.find("OpenBLAS"), std::string::npos) << blas.config;
  }
}

}  // namespace
}  // namespace crmap
