// SPDX-License-Identifier: MIT
// The GEMM configurations the ISA checks compile (tests/isa): one named config per row, shared by
// the HIP translation unit that emits the kernels and the host checker that reads their assembly.
//
// Each config is a struct deriving from GemmConfig, and the kernel is compiled as
// NamedKernel<config>, a struct deriving from the config's kernel (Config::Kernel) and adding
// nothing, so the config's name appears verbatim in the mangled kernel symbol
// (_ZN7fp8gemm4arch12kernel_entryINS_3isa11NamedKernelINS2_21Gfx950E4m3PerTensorNk...) and the
// checker finds the kernel without demangling; the kernel is the library's kernel unchanged.
#pragma once

#include "fp8gemm/fp8gemm.hpp"

namespace fp8gemm::isa {

template <class Config>
struct NamedKernel : Config::Kernel {};

using EpilogueBf16GeluTanh = Epilogue<bf16, GeluTanh>;
using Blockwise128 = Blockwise<1, 128, 128>;

// clang-format off
struct Gfx942E4m3PerTensorNk     : GemmConfig<Cdna3Default<e4m3fnuz, e4m3fnuz>, PerTensor,    LayoutB::kNK, EpilogueBf16GeluTanh> {};
struct Gfx942E4m3BlockwiseNk     : GemmConfig<Cdna3Default<e4m3fnuz, e4m3fnuz>, Blockwise128, LayoutB::kNK, EpilogueBf16GeluTanh> {};
struct Gfx942E4m3PerTensorKn     : GemmConfig<Cdna3Default<e4m3fnuz, e4m3fnuz>, PerTensor,    LayoutB::kKN, EpilogueBf16GeluTanh> {};
struct Gfx942E4m3E5m2PerTensorNk : GemmConfig<Cdna3Default<e4m3fnuz, e5m2fnuz>, PerTensor,    LayoutB::kNK, EpilogueBf16GeluTanh> {};
struct Gfx950E4m3PerTensorNk     : GemmConfig<Cdna4Default<e4m3fn, e4m3fn>,     PerTensor,    LayoutB::kNK, EpilogueBf16GeluTanh> {};
struct Gfx950E4m3BlockwiseNk     : GemmConfig<Cdna4KBlocked<e4m3fn, e4m3fn>,    Blockwise128, LayoutB::kNK, EpilogueBf16GeluTanh> {};
struct Gfx950E4m3PerTensorKn     : GemmConfig<Cdna4Default<e4m3fn, e4m3fn>,     PerTensor,    LayoutB::kKN, EpilogueBf16GeluTanh> {};
struct Gfx950E4m3E5m2PerTensorNk : GemmConfig<Cdna4Default<e4m3fn, e5m2>,       PerTensor,    LayoutB::kNK, EpilogueBf16GeluTanh> {};
struct Gfx950E4m3Mx32Nk          : GemmConfig<Cdna4Default<e4m3fn, e4m3fn>,     Mx32,         LayoutB::kNK, EpilogueBf16GeluTanh> {};
// gfx942 mk_nk_mn with its 4-byte direct-to-LDS loads in place of the default's register staging
// (the comparison in docs/isa_report.md): the same mainloop and schedule, another tile-load path.
struct Gfx942E4m3PerTensorNkDirectToLds : Gfx942E4m3PerTensorNk {
  using Mainloop = BufferLdsPingPongMainloop<Policy, Granularity, LayoutB::kNK, 0, 0, arch::DirectToLds>;
  using Kernel = GemmKernel<Mainloop, CollectiveEpilogue, TileScheduler>;
  using Params = typename Kernel::Params;
};
// The 32x32 atoms, in the policies the emulator tests use (tests/emulator/gemm_mfma32_emulator_test.cpp).
using Gfx942Mfma32Policy = TilePolicy<128, 128, 64, 2, 2, arch::Cdna3Mma32x32x16<e4m3fnuz, e5m2fnuz>, 2>;
using Gfx950Mfma32Policy = TilePolicy<128, 128, 128, 2, 2, arch::Cdna4Mma32x32x64<e5m2, e4m3fn>, 2>;
struct Gfx942Mfma32PerChannelNk  : GemmConfig<Gfx942Mfma32Policy, PerChannel, LayoutB::kNK, EpilogueBf16GeluTanh> {};
struct Gfx950Mfma32Mx32Nk        : GemmConfig<Gfx950Mfma32Policy, Mx32,       LayoutB::kNK, EpilogueBf16GeluTanh> {};
// clang-format on

/// The grouped kernel of a config (device/grouped_gemm.hpp: GroupedGemm<Base>'s kernel): the same
/// mainloop and epilogue, walked by the grouped tile scheduler.
template <class Base>
struct GroupedOf : Base {
  using Kernel = typename GroupedKernelPieces<Base>::Kernel;
  using Params = typename Kernel::Params;
};
struct Gfx942E4m3PerTensorNkGrouped : GroupedOf<Gfx942E4m3PerTensorNk> {};
struct Gfx942E4m3BlockwiseNkGrouped : GroupedOf<Gfx942E4m3BlockwiseNk> {};
struct Gfx950E4m3PerTensorNkGrouped : GroupedOf<Gfx950E4m3PerTensorNk> {};
struct Gfx950E4m3BlockwiseNkGrouped : GroupedOf<Gfx950E4m3BlockwiseNk> {};

}  // namespace fp8gemm::isa

/// X(config): every config compiled for gfx942 / for gfx950.
#define FP8GEMM_ISA_GFX942_CONFIGS(X) \
  X(Gfx942E4m3PerTensorNk)            \
  X(Gfx942E4m3BlockwiseNk)            \
  X(Gfx942E4m3PerTensorKn)            \
  X(Gfx942E4m3E5m2PerTensorNk)        \
  X(Gfx942E4m3PerTensorNkDirectToLds) \
  X(Gfx942Mfma32PerChannelNk)         \
  X(Gfx942E4m3PerTensorNkGrouped)     \
  X(Gfx942E4m3BlockwiseNkGrouped)
#define FP8GEMM_ISA_GFX950_CONFIGS(X) \
  X(Gfx950E4m3PerTensorNk)            \
  X(Gfx950E4m3BlockwiseNk)            \
  X(Gfx950E4m3PerTensorKn)            \
  X(Gfx950E4m3E5m2PerTensorNk)        \
  X(Gfx950E4m3Mx32Nk)                 \
  X(Gfx950Mfma32Mx32Nk)               \
  X(Gfx950E4m3PerTensorNkGrouped)     \
  X(Gfx950E4m3BlockwiseNkGrouped)
