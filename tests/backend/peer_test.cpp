#include "backend/peer.h"

#include <gtest/gtest.h>

#include "backend/blas_info.h"
#include "backend/host.h"
#include "tests/test_support.h"

namespace crmap {
namespace {

TEST(PeerTest, LibtorchAloneMeansTheDefaultPeersAndAListIsParsedAsLabels) {
  Workload workload = testing::MustLoad("bert_ffn");
  auto defaults = ParsePeers("libtorch", workload);
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(*defaults, DefaultPeers(workload));
  auto listed = ParsePeers("libtorch,libtorch[mkldnn]", workload);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_EQ(*listed, (std::vector<PeerBaseline>{PeerBaseline{}, PeerBaseline{TorchPath::kMkldnn, ""}}));
  EXPECT_EQ(ParsePeers("libtorch[gpu]", workload).status().code(), StatusCode::kInvalidArgument);
}

TEST(PeerTest, DefaultPeersAreEagerAsInstalledThenTheMatchingCoreThenTheOnednnPath) {
  Workload ffn = testing::MustLoad("bert_ffn");     // linear ops
  Workload stem = testing::MustLoad("resnet_stem");  // a convolution only
  std::vector<PeerBaseline> with_linear = DefaultPeers(ffn), conv_only = DefaultPeers(stem);
  ASSERT_FALSE(with_linear.empty());
  EXPECT_EQ(with_linear.front(), PeerBaseline{});
  const BlasInfo& blas = DetectBlas();
  const bool below = blas.openblas && BlasCoreBelowIsa(blas.core, DetectHost().isa);
  // A convolution runs on LibTorch's own oneDNN: neither another BLAS core nor the linear oneDNN path applies.
  EXPECT_EQ(conv_only.size(), 1u);
  EXPECT_EQ(with_linear.size(), 1u + (below ? 1 : 0) + (DetectTorch().mkldnn ? 1 : 0));
  if (below) {
    EXPECT_FALSE(with_linear[1].blas_core.empty());
  }
}

}  // namespace
}  // namespace crmap
