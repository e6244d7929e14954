// SPDX-License-Identifier: MIT
// can_implement on the host build (CDNA policies): every refusal names its check and its code.
#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <vector>

#include "common/can_implement_cases.hpp"

namespace fp8gemm::test {
namespace {

TEST(GemmCanImplement, ExplainsEveryRefusalGfx950) {
  check_every_refusal<GemmConfig<Cdna4Default<>, PerChannel, LayoutB::kNK, Epilogue<bf16, GeluTanh>>>();
  check_every_refusal<GemmConfig<Cdna4KBlocked<>, Mx32, LayoutB::kKN, Epilogue<e4m3fn, Identity>>>();
}

TEST(GemmCanImplement, ExplainsEveryRefusalGfx942) {
  check_every_refusal<GemmConfig<Cdna3Default<>, Blockwise<1, 128, 128>, LayoutB::kKN, Epilogue<float, GeluErf>>>();
}

// The Hopper policies' host-side checks (the GPU API test runs the same cases on the H200).
TEST(GemmCanImplement, ExplainsEveryRefusalSm90) {
  check_every_refusal<
      GemmConfig<Sm90Default<>, PerChannel, LayoutB::kNK, Epilogue<bf16, GeluTanh>>>();
  check_every_refusal<
      GemmConfig<Sm90SmallM<>, PerTensor, LayoutB::kNK, Epilogue<float, Identity>>>();
}

// Gemm::scale_shape_a / scale_shape_b state the scale arrays each granularity expects, and Scale
// is the element they hold (e8m0 for Mx32); can_implement takes exactly their sizes.
TEST(GemmScaleShape, StatesTheShapeEachGranularityExpects) {
  using PerTensorGemm =
      Gemm<GemmConfig<Cdna4Default<>, PerTensor, LayoutB::kNK, Epilogue<bf16, Identity>>>;
  using PerChannelGemm =
      Gemm<GemmConfig<Cdna4Default<>, PerChannel, LayoutB::kNK, Epilogue<bf16, Identity>>>;
  using BlockwiseGemm = Gemm<
      GemmConfig<Cdna4KBlocked<>, Blockwise<1, 128, 128>, LayoutB::kKN, Epilogue<float, Identity>>>;
  using Mx32Gemm = Gemm<GemmConfig<Cdna4KBlocked<>, Mx32, LayoutB::kNK, Epilogue<bf16, Identity>>>;
  static_assert(std::is_same_v<PerChannelGemm::Scale, float> &&
                std::is_same_v<BlockwiseGemm::Scale, float>);
  static_assert(std::is_same_v<Mx32Gemm::Scale, e8m0>);
  auto shape = [](ScaleShape s) { return std::to_string(s.rows) + "x" + std::to_string(s.cols); };
  EXPECT_EQ(shape(PerTensorGemm::scale_shape_a(300, 1000)), "1x1");
  EXPECT_EQ(shape(PerTensorGemm::scale_shape_b(200, 1000)), "1x1");
  EXPECT_EQ(shape(PerChannelGemm::scale_shape_a(300, 1000)), "300x1");
  EXPECT_EQ(shape(PerChannelGemm::scale_shape_b(200, 1000)), "200x1");
  EXPECT_EQ(shape(BlockwiseGemm::scale_shape_a(300, 1000)), "300x8");  // ceil(1000 / 128) = 8
  EXPECT_EQ(shape(BlockwiseGemm::scale_shape_b(200, 1000)), "2x8");    // ceil(200 / 128) = 2
  EXPECT_EQ(shape(Mx32Gemm::scale_shape_a(300, 1000)), "300x32");      // ceil(1000 / 32) = 32
  EXPECT_EQ(shape(Mx32Gemm::scale_shape_b(200, 1000)), "200x32");
  auto args = valid_arguments_64<
      GemmConfig<Cdna4KBlocked<>, Mx32, LayoutB::kNK, Epilogue<bf16, Identity>>>();
  EXPECT_EQ(args.scale_a_count, 64 * 2);
  EXPECT_TRUE(Mx32Gemm::can_implement(args).ok()) << Mx32Gemm::can_implement(args).to_string();
}

// The grouped tile order is a bijection of [0, tiles_m * tiles_n) onto the tile grid for any
// group_m >= 1, including groups taller than the matrix (INT32_MAX: "no grouping"), whose
// group_m * tiles_n would overflow int without the clamp.
TEST(GroupedTileOrder, EveryTileExactlyOnceForAnyGroupM) {
  for (int tiles_m : {1, 3, 8, 13})
    for (int tiles_n : {1, 5, 16})
      for (int group_m : {1, 2, 4, 8, 13, 100, INT32_MAX}) {
        std::vector<int> seen(static_cast<std::size_t>(tiles_m) * tiles_n, 0);
        for (int linear = 0; linear < tiles_m * tiles_n; ++linear) {
          TileCoord const t = grouped_tile(linear, tiles_m, tiles_n, group_m);
          ASSERT_TRUE(t.m >= 0 && t.m < tiles_m && t.n >= 0 && t.n < tiles_n)
              << tiles_m << "x" << tiles_n << " group_m " << group_m << " linear " << linear;
          ++seen[static_cast<std::size_t>(t.m) * tiles_n + t.n];
        }
        for (int v : seen) ASSERT_EQ(v, 1) << tiles_m << "x" << tiles_n << " group_m " << group_m;
      }
  // Consecutive workgroups walk down one tile column of the group first.
  EXPECT_EQ(grouped_tile(1, 8, 8, 4).m, 1);
  EXPECT_EQ(grouped_tile(1, 8, 8, 4).n, 0);
  EXPECT_EQ(grouped_tile(4, 8, 8, 4).n, 1);
}

}  // namespace
}  // namespace fp8gemm::test
