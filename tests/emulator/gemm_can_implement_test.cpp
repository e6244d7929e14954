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
