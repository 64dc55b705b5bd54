#include "backend/peer.h"

#include <gtest/gtest.h>

#include "backend/blas_info.h"
#include "backend/host.h"
#include "tests/test_support.h"

namespace crmap {
namespace {

TEST(PeerTest, LabelsNameThePathAndTheCore) {
  EXPECT_EQ(PeerBaseline{}.Label(), "libtorch");
  EXPECT_EQ((PeerBaseline{TorchPath::kMkldnn, ""}.Label()), "libtorch[mkldnn]");
  EXPECT_EQ((PeerBaseline{TorchPath::kEager, "Haswell"}.Label()), "libtorch[openblas=Haswell]");
  EXPECT_EQ((PeerBaseline{TorchPath::kMkldnn, "SkylakeX"}.Label()), "libtorch[mkldnn,openblas=SkylakeX]");
}

TEST(PeerTest, ParsesListsOfLabelsAndRoundTrips) {
  Workload workload = testing::MustLoad("bert_ffn");
  auto peers = ParsePeers("libtorch,libtorch[mkldnn],libtorch[mkldnn,openblas=Zen]", workload);
  ASSERT_TRUE(peers.ok()) << peers.status().ToString();
  ASSERT_EQ(peers->size(), 3u);
  EXPECT_EQ((*peers)[0], PeerBaseline{});
  EXPECT_EQ((*peers)[1], (PeerBaseline{TorchPath::kMkldnn, ""}));
  EXPECT_EQ((*peers)[2], (PeerBaseline{TorchPath::kMkldnn, "Zen"}));
  for (const PeerBaseline& peer : *peers) {
    auto again = ParsePeers(peer.Label(), workload);
    ASSERT_TRUE(again.ok()) << peer.Label();
    // "libtorch" alone means the default set; every other label is itself.
    if (peer.Label() != "libtorch") {
      EXPECT_EQ(again->at(0), peer);
    }
  }
}

TEST(PeerTest, RejectsUnknownPeersAndOptionsNamingWhatIsAllowed) {
  Workload workload = testing::MustLoad("bert_ffn");
  for (const char* bad : {"pytorch", "libtorch[gpu]", "libtorch[openblas=Pentium9]", "libtorch,", ",",
                                 "libtorch,libtorch", "libtorch[mkldnn"}) {
    auto peers = ParsePeers(bad, workload);
    ASSERT_FALSE(peers.ok()) << bad;
    EXPECT_EQ(peers.status().code(), StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_NE(ParsePeers("libtorch[gpu]", workload).status().message().find("allowed: libtorch"), std::string::npos);
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
