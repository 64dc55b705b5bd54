#include "backend/peer_label.h"

#include <gtest/gtest.h>

namespace crmap {
namespace {

TEST(PeerLabelTest, LabelsNameThePathAndTheCore) {
  EXPECT_EQ(PeerBaseline{}.Label(), "libtorch");
  EXPECT_EQ((PeerBaseline{TorchPath::kMkldnn, ""}.Label()), "libtorch[mkldnn]");
  EXPECT_EQ((PeerBaseline{TorchPath::kEager, "Haswell"}.Label()), "libtorch[openblas=Haswell]");
  EXPECT_EQ((PeerBaseline{TorchPath::kMkldnn, "SkylakeX"}.Label()), "libtorch[mkldnn,openblas=SkylakeX]");
}

TEST(PeerLabelTest, ParsesListsOfLabelsAndRoundTrips) {
  auto peers = ParsePeerLabels("libtorch,libtorch[mkldnn],libtorch[mkldnn,openblas=Zen]");
  ASSERT_TRUE(peers.ok()) << peers.status().ToString();
  ASSERT_EQ(peers->size(), 3u);
  EXPECT_EQ((*peers)[0], PeerBaseline{});
  EXPECT_EQ((*peers)[1], (PeerBaseline{TorchPath::kMkldnn, ""}));
  EXPECT_EQ((*peers)[2], (PeerBaseline{TorchPath::kMkldnn, "Zen"}));
  for (const PeerBaseline& peer : *peers) {
    auto again = ParsePeerLabels(peer.Label());
    ASSERT_TRUE(again.ok()) << peer.Label();
    ASSERT_EQ(again->size(), 1u);
    EXPECT_EQ(again->at(0), peer);
  }
  // Options in either order mean the same peer.
  auto swapped = ParsePeerLabels("libtorch[openblas=Zen,mkldnn]");
  ASSERT_TRUE(swapped.ok());
  EXPECT_EQ(swapped->at(0), (PeerBaseline{TorchPath::kMkldnn, "Zen"}));
}

TEST(PeerLabelTest, RejectsUnknownRepeatedAndEmptyNamingWhatIsAllowed) {
  for (const char* bad : {"pytorch", "libtorch[gpu]", "libtorch[openblas=Pentium9]", "libtorch,", ",", "",
                          "libtorch,libtorch", "libtorch[mkldnn", "libtorch[mkldnn,mkldnn]",
                          "libtorch[openblas=Zen,openblas=Haswell]", "libtorch[]", "libtorch]["}) {
    auto peers = ParsePeerLabels(bad);
    ASSERT_FALSE(peers.ok()) << bad;
    EXPECT_EQ(peers.status().code(), StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_NE(ParsePeerLabels("libtorch[gpu]").status().message().find("allowed: libtorch"), std::string::npos);
  EXPECT_NE(ParsePeerLabels("libtorch[mkldnn,mkldnn]").status().message().find("repeated"), std::string::npos);
}

}  // namespace
}  // namespace crmap
