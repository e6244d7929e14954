// SPDX-License-Identifier: MIT
// transpose_kn_to_nk_host: every byte lands at its transposed place, padding untouched; refusals.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "fp8gemm/numeric/numeric.hpp"
#include "fp8gemm/quant/transpose.hpp"

namespace fp8gemm {
namespace {

TEST(TransposeHost, EveryByteToItsPlace) {
  std::mt19937 rng(std::random_device{}());
  for (auto [k, n] : {std::pair{1, 1}, std::pair{17, 33}, std::pair{130, 64}, std::pair{3, 300}}) {
    TransposeArgs t{k, n, n + 5, (k + 15) / 16 * 16 + 16};
    std::vector<e4m3fn> src(static_cast<std::size_t>(k * t.ld_src));
    for (auto& x : src) x = e4m3fn::from_bits(static_cast<std::uint8_t>(rng()));
    std::vector<e4m3fn> dst(static_cast<std::size_t>(n * t.ld_dst), e4m3fn::from_bits(0x7F));
    ASSERT_TRUE(transpose_kn_to_nk_host(src.data(), dst.data(), t).ok());
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < t.ld_dst; ++c)
        ASSERT_EQ(dst[r * t.ld_dst + c].bits,
                  c < k ? src[c * t.ld_src + r].bits : std::uint8_t{0x7F})
            << "K=" << k << " N=" << n << " dst[" << r << "][" << c << "]";
  }
}

TEST(TransposeHost, RefusesInWords) {
  std::vector<e4m3fn> buf(64);
  auto msg = [&](TransposeArgs t, bool null_src = false) {
    return transpose_kn_to_nk_host<e4m3fn>(null_src ? nullptr : buf.data(), buf.data(), t)
        .message();
  };
  EXPECT_NE(msg({4, 4, 4, 4}, true).find("null"), std::string::npos);
  EXPECT_NE(msg({0, 4, 4, 4}).find("K and N must be >= 1"), std::string::npos);
  EXPECT_NE(msg({4, 4, 3, 4}).find("ld_src (3) must be >= N (4)"), std::string::npos);
  EXPECT_NE(msg({4, 4, 4, 2}).find("ld_dst (2) must be >= K (4)"), std::string::npos);
}

}  // namespace
}  // namespace fp8gemm
