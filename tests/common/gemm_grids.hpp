// SPDX-License-Identifier: MIT
/// The format x granularity grids (test helpers): every format pair x every granularity on a
/// target's default policies, the B layout alternating and the epilogue (activation x output type)
/// rotating so that all 15 pairs appear. One list, three targets: the Hopper grid (the GPU test
/// tests/gpu/gemm_grid_gpu_test.cu and its host-emulator twin) and the gfx942 / gfx950 grids (host
/// emulator).
#pragma once

#include <gtest/gtest.h>

#include <type_traits>

#include "fp8gemm/fp8gemm.hpp"

namespace fp8gemm::test {

/// The grid over fp8 formats F0, F1 (each also an output type) on PolicyFor<A, B, Granularity>.
template <template <class, class, class> class PolicyFor, class F0, class F1>
struct FormatGranularityGrid {
  template <class A, class B, class G, LayoutB kLayout, class Out, class Act>
  using C = GemmConfig<PolicyFor<A, B, G>, G, kLayout, Epilogue<Out, Act>>;
  using Bw = Blockwise<1, 128, 128>;
  static constexpr LayoutB kNK = LayoutB::kNK, kKN = LayoutB::kKN;

  // clang-format off
  using Types = ::testing::Types<
      C<F0, F0, PerTensor,  kNK, float, Identity>,
      C<F0, F0, PerChannel, kKN, bf16,  GeluTanh>,
      C<F0, F0, Bw,         kNK, fp16,  GeluErf>,
      C<F0, F0, Mx32,       kKN, F0,    Identity>,
      C<F0, F1, PerTensor,  kKN, F1,    GeluTanh>,
      C<F0, F1, PerChannel, kNK, float, GeluErf>,
      C<F0, F1, Bw,         kKN, bf16,  Identity>,
      C<F0, F1, Mx32,       kNK, fp16,  GeluTanh>,
      C<F1, F0, PerTensor,  kNK, F0,    GeluErf>,
      C<F1, F0, PerChannel, kKN, F1,    Identity>,
      C<F1, F0, Bw,         kNK, float, GeluTanh>,
      C<F1, F0, Mx32,       kKN, bf16,  GeluErf>,
      C<F1, F1, PerTensor,  kKN, fp16,  Identity>,
      C<F1, F1, PerChannel, kNK, F0,    GeluTanh>,
      C<F1, F1, Bw,         kKN, F1,    GeluErf>,
      C<F1, F1, Mx32,       kNK, float, Identity>>;
  // clang-format on
};

template <class A, class B, class>
using Sm90GridPolicy = Sm90Default<A, B>;
template <class A, class B, class>
using Gfx942GridPolicy = Cdna3Default<A, B>;
/// gfx950 Blockwise uses Cdna4KBlocked (the promotion's scales, and on mk_kn_mn a second
/// accumulator set, beside the accumulators); MX-32 (scales in the MFMA) and the rest
/// Cdna4Default.
template <class A, class B, class G>
using Gfx950GridPolicy = std::conditional_t<(G::kBlockK > 0 && !std::is_same_v<G, Mx32>),
                                            Cdna4KBlocked<A, B>, Cdna4Default<A, B>>;

using Sm90GridConfigs = FormatGranularityGrid<Sm90GridPolicy, e4m3fn, e5m2>::Types;
using Gfx942GridConfigs = FormatGranularityGrid<Gfx942GridPolicy, e4m3fnuz, e5m2fnuz>::Types;
using Gfx950GridConfigs = FormatGranularityGrid<Gfx950GridPolicy, e4m3fn, e5m2>::Types;

}  // namespace fp8gemm::test
