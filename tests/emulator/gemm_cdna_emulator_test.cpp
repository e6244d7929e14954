// SPDX-License-Identifier: MIT
// The default gfx942 and gfx950 policies, executed on the host emulator (every MFMA computed from
// the 64 lanes' registers per the documented layout), against the FP64 reference: every format
// pair x granularity, with the epilogue (activation, output type, bias) and the B layout rotating
// across the set so that each appears several times.
#include <gtest/gtest.h>

#include "common/gemm_host_run.hpp"

namespace fp8gemm::test {
namespace {

template <class Config>
class CdnaOnEmulator : public ::testing::Test {};

struct ConfigName {
  template <class T>
  static std::string GetName(int) { return Gemm<T>::name(); }
};

template <class EA, class EB>
using G950 = Cdna4Default<EA, EB>;
template <class EA, class EB>
using G950K = Cdna4KBlocked<EA, EB>;  // gfx950 with K-blocked scales (Blockwise, MX-32)
template <class EA, class EB>
using G942 = Cdna3Default<EA, EB>;
using F = e4m3fn;
using E = e5m2;
using Fz = e4m3fnuz;
using Ez = e5m2fnuz;

using Configs = ::testing::Types<
    // gfx950: OCP formats; MX-32 through the hardware-scaled MFMA (E8M0 scale byte per lane).
    GemmConfig<G950<F, F>, PerTensor, LayoutB::kNK, Epilogue<bf16, GeluTanh>>,
    GemmConfig<G950<F, E>, PerTensor, LayoutB::kKN, Epilogue<float, Identity>>,
    GemmConfig<G950<E, F>, PerChannel, LayoutB::kNK, Epilogue<fp16, GeluErf>>,
    GemmConfig<G950<E, E>, PerChannel, LayoutB::kKN, Epilogue<e4m3fn, GeluTanh>>,
    GemmConfig<G950K<F, F>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16, Identity>>,
    GemmConfig<G950K<E, F>, Blockwise<1, 128, 128>, LayoutB::kKN, Epilogue<e5m2, GeluErf>>,
    GemmConfig<G950K<F, F>, Mx32, LayoutB::kNK, Epilogue<bf16, GeluErf>>,
    GemmConfig<G950K<E, E>, Mx32, LayoutB::kKN, Epilogue<float, Identity>>,
    // gfx942: FNUZ formats.
    GemmConfig<G942<Fz, Fz>, PerTensor, LayoutB::kNK, Epilogue<bf16, GeluTanh>>,
    GemmConfig<G942<Fz, Ez>, PerChannel, LayoutB::kKN, Epilogue<float, Identity>>,
    GemmConfig<G942<Ez, Fz>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<e4m3fnuz, GeluErf>>,
    GemmConfig<G942<Ez, Ez>, Mx32, LayoutB::kKN, Epilogue<fp16, GeluTanh>>,
    GemmConfig<G942<Fz, Fz>, Mx32, LayoutB::kNK, Epilogue<e5m2fnuz, Identity>>,
    GemmConfig<G942<Ez, Fz>, PerTensor, LayoutB::kKN, Epilogue<bf16, GeluErf>>>;
TYPED_TEST_SUITE(CdnaOnEmulator, Configs, ConfigName);

TYPED_TEST(CdnaOnEmulator, MatchesFp64OnRaggedShapes) {
  std::uint64_t seed = 500;
  for (GemmCase c : {GemmCase{1, 1, 1}, GemmCase{17, 33, 65}, GemmCase{256, 256, 256, 0, Distribution::kRowRanges},
                     GemmCase{300, 200, 1000, 0, Distribution::kOutliers}}) {
    c.seed = seed++;
    GemmProblem<TypeParam> const p(c);
    std::string report;
    EXPECT_TRUE(run_on_host(p, &report)) << describe(c);
    std::cout << "  " << report << "\n";
  }
}

TYPED_TEST(CdnaOnEmulator, NanPropagatesAndSplitKMatches) {
  GemmCase c{70, 40, 700, 900};
  c.nan_at = 3 * 700 + 650;
  c.split_k = 2;
  GemmProblem<TypeParam> const p(c);
  EXPECT_TRUE(run_on_host(p));
}

}  // namespace
}  // namespace fp8gemm::test
