// SPDX-License-Identifier: MIT
// The Hopper (mma.sync, wave32) policies' kernel source executed on the host emulator: proves the
// mainloop's indexing, tails, split-K and epilogue without a GPU (the H200 run proves the silicon).
#include <gtest/gtest.h>

#include "common/gemm_host_run.hpp"

namespace fp8gemm::test {
namespace {

using Atom44 = arch::Sm89Mma16x8x32<e4m3fn, e4m3fn>;
using Small = TilePolicy<64, 64, 64, 2, 2, Atom44, 3>;    // small tile: more tiles, 3 stages
using SmallK128 = TilePolicy<64, 64, 128, 2, 2, Atom44, 3>;

template <class Config>
class Sm90OnEmulator : public ::testing::Test {};

using Configs = ::testing::Types<
    GemmConfig<Sm90Default<>, PerTensor, LayoutB::kKN, Epilogue<bf16, Identity>>,  // fewer B blocks than threads
    GemmConfig<Small, PerTensor, LayoutB::kNK, Epilogue<float, Identity>>,
    GemmConfig<SmallK128, PerChannel, LayoutB::kKN, Epilogue<bf16, GeluTanh>>,
    GemmConfig<TilePolicy<64, 64, 128, 2, 2, arch::Sm89Mma16x8x32<e5m2, e4m3fn>>, Blockwise<1, 128, 128>,
               LayoutB::kNK, Epilogue<e4m3fn, GeluErf>>,
    GemmConfig<TilePolicy<64, 64, 128, 2, 2, arch::Sm89Mma16x8x32<e4m3fn, e5m2>>, Mx32, LayoutB::kKN,
               Epilogue<fp16, Identity>, FastAccumulation>>;

struct ConfigName {
  template <class T>
  static std::string GetName(int) { return Gemm<T>::name(); }
};
TYPED_TEST_SUITE(Sm90OnEmulator, Configs, ConfigName);

TYPED_TEST(Sm90OnEmulator, MatchesFp64OnRaggedShapes) {
  for (GemmCase c : {GemmCase{1, 1, 1, 11}, GemmCase{17, 33, 65, 12}, GemmCase{130, 70, 300, 13},
                     GemmCase{64, 128, 256, 14, Distribution::kRowRanges},
                     GemmCase{100, 90, 520, 15, Distribution::kOutliers, false, 3}}) {
    GemmProblem<TypeParam> const p(c);
    std::string report;
    EXPECT_TRUE(run_on_host(p, &report)) << describe(c);
    std::cout << "  " << report << "\n";
  }
}

TYPED_TEST(Sm90OnEmulator, NanInAPropagatesToItsRow) {
  GemmCase c{40, 20, 100, 21};
  c.nan_at = 7 * 100 + 33;  // row 7
  GemmProblem<TypeParam> const p(c);
  EXPECT_TRUE(run_on_host(p));
}

}  // namespace
}  // namespace fp8gemm::test
