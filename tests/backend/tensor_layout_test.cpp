#include "backend/tensor_layout.h"

#include <gtest/gtest.h>

namespace crmap {
namespace {

using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

TEST(TensorLayoutTest, ParsesLayoutNamesAndMapsToTags) {
  EXPECT_EQ(ParseImageLayout("nhwc"), ImageLayout::kNhwc);
  EXPECT_EQ(ParseImageLayout("blocked"), ImageLayout::kBlocked);
  EXPECT_EQ(ParseImageLayout("any"), ImageLayout::kAny);
  EXPECT_EQ(ParseImageLayout("plain"), ImageLayout::kPlain);
  EXPECT_EQ(ImageTag(ImageLayout::kBlocked, 8), tag::nChw8c);
  EXPECT_EQ(ImageTag(ImageLayout::kBlocked, 16), tag::nChw16c);
  EXPECT_EQ(ImageTag(ImageLayout::kPlain, 8), tag::nchw);
  EXPECT_EQ(PlainTag(3), tag::abc);
}

TEST(TensorLayoutTest, ContiguityAndStrides) {
  dnnl::memory::desc plain = PlainDesc({4, 6}, dt::f32);
  dnnl::memory::desc transposed({4, 6}, dt::f32, tag::ba);
  EXPECT_TRUE(IsPlainContiguous(plain));
  EXPECT_FALSE(IsPlainContiguous(transposed));
  EXPECT_EQ(StridesOf(plain), (std::vector<int64_t>{6, 1}));
  EXPECT_EQ(StridesOf(transposed), (std::vector<int64_t>{1, 4}));
  dnnl::memory::desc blocked({1, 16, 3, 3}, dt::f32, tag::nChw8c);
  EXPECT_TRUE(StridesOf(blocked).empty());
  EXPECT_FALSE(IsPlainContiguous(blocked));
}

TEST(TensorLayoutTest, DescribesLikeOneDnnTags) {
  EXPECT_EQ(DescribeDesc(PlainDesc({4, 6}, dt::f32)), "f32 ab 4x6");
  EXPECT_EQ(DescribeDesc(dnnl::memory::desc({4, 6}, dt::f32, tag::ba)), "f32 ba 4x6");
  EXPECT_EQ(DescribeDesc(dnnl::memory::desc({1, 16, 3, 3}, dt::f32, tag::nChw8c)), "f32 aBcd8b 1x16x3x3");
  EXPECT_EQ(DescribeDesc(dnnl::memory::desc({2, 3}, dt::f32, dnnl::memory::dims{10, 1})), "f32 ab(strided) 2x3");
  EXPECT_EQ(DescribeDesc(dnnl::memory::desc({2, 3}, dt::f32, tag::any)), "f32 any 2x3");
}

}  // namespace
}  // namespace crmap
