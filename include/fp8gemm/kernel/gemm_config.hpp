// SPDX-License-Identifier: MIT
/// GemmConfig: one GEMM's compile-time choices, and the kernel they compose (kernel layer).
#pragma once

#include <type_traits>

#include "fp8gemm/config.hpp"
#include "fp8gemm/epilogue/direct_store_epilogue.hpp"
#include "fp8gemm/epilogue/tma_store_epilogue.hpp"
#include "fp8gemm/kernel/gemm_kernel.hpp"
#include "fp8gemm/kernel/gemm_kernel_warp_specialized.hpp"
#include "fp8gemm/kernel/grouped_tile_scheduler.hpp"
#include "fp8gemm/kernel/tile_scheduler.hpp"
#include "fp8gemm/mainloop/buffer_lds_pingpong.hpp"
#include "fp8gemm/mainloop/lds_multistage.hpp"
#include "fp8gemm/mainloop/tma_wgmma_warp_specialized.hpp"
#include "fp8gemm/numeric/numeric.hpp"
#include "fp8gemm/policy/wgmma_policy.hpp"
#include "fp8gemm/quant/granularity.hpp"
#include "fp8gemm/tile/operand_view.hpp"

namespace fp8gemm {

/// Accumulation tags. PromoteEvery<K>: accumulate K of the reduction in the matrix unit, then add
/// the partial sum into FP32 registers (Hopper's recommended setting: 128). FastAccumulation: let
/// the matrix unit accumulate the whole K. AtomDefaultAccumulation: the atom's kDefaultPromoteK.
template <int K>
struct PromoteEvery {
  static_assert(K > 0, "promotion interval must be positive");
  static constexpr int kPromoteK = K;
};
struct FastAccumulation {
  static constexpr int kPromoteK = 0;
};
struct AtomDefaultAccumulation {
  static constexpr int kPromoteK = -1;
};

/// The kernel a policy runs: TilePolicy -> the portable LDS multistage mainloop, one workgroup
/// per tile (GemmKernel); WgmmaTilePolicy -> the Hopper TMA + WGMMA mainloop in the persistent
/// warp-specialized kernel. GemmConfig picks one by IsWgmmaPolicy.
template <class P, class G, LayoutB LB, class E, int PromoteK>
struct PortableKernelPieces {
  /// gfx950 direct-to-LDS ping-pong loop where it applies (BufferLdsPingPongSupports), else the
  /// register-staged / cp.async multi-stage loop (gfx942, sm90, mk_kn_mn, 32x32x64 atoms).
  using Mainloop = std::conditional_t<BufferLdsPingPongSupports<P, G, LB, PromoteK>::value,
                                      BufferLdsPingPongMainloop<P, G, LB, PromoteK>,
                                      LdsMultistageMainloop<P, G, LB, PromoteK>>;
  using CollectiveEpilogue = DirectStoreEpilogue<P, G, E>;
  using TileScheduler = RasterTileScheduler<P>;
  using Kernel = GemmKernel<Mainloop, CollectiveEpilogue, TileScheduler>;
};
/// The WGMMA kernel's epilogue: TmaStoreEpilogue (C staged in shared memory, stored by TMA while
/// the consumers go on) for cooperative tiles of one m64 row block per consumer, rows of C that
/// are whole 128-byte boxes, and a ring and staging tiles that fit the 227 KiB together
/// (Sm90WgmmaDefault: 192 KiB of ring + 32 KiB of bf16 / fp16 or 16 KiB of fp8 staging;
/// Sm90WgmmaLarge: 144 + 64 KiB of bf16 / fp16; Sm90WgmmaSmallM with 2- or 4-byte C); else
/// DirectStoreEpilogue (stores from registers): ping-pong, swapped operands with one consumer
/// (Sm90WgmmaDecode: not measured through TMA; the two-consumer Sm90WgmmaMidM stages its
/// transposed accumulators: bf16 / fp16 C, whose staging its stages leave room for, and fp32
/// where that fits too, at 64 and 80 columns), 256-row tiles, fp32 C on Sm90WgmmaDefault / Large
/// (64 / 128 KiB of staging next to the ring), fp8 C 64 columns wide, and an activation beside more
/// than 64 accumulators per thread (Sm90WgmmaLarge's 128, 128 x 192's 96) unless it is GELU-tanh
/// with per-tensor scales: beyond that ptxas spills in the staging loop (tests/ptxas compiles
/// GELU-tanh on 128 x 192 and 128 x 256, promoted and fast). Measured:
/// docs/performance.md#wgmma-epilogue.
///
/// The Blockwise scale ring's slots (TmaWgmmaMainloop::kScaleRing) take up to a few KiB beside the
/// ring. Where they alone keep the TMA-store epilogue from fitting (Sm90WgmmaDefault with bf16 /
/// fp16 C: 1 KiB to spare), the mainloop goes without the ring and keeps the TMA stores, measured
/// ahead of the stores from registers (docs/performance.md#wgmma-epilogue) while the ring is not
/// yet measured (#sm90-scale-ring). kScaleRing: whether the config's mainloop may have the ring.
/// StageScales (a grouped kernel's epilogue): counted with the grouped kernel's placements
/// beside the ring (WarpSpecializedGemmKernel::GroupedShared), as that kernel lays them out.
template <class P, class G, class E, int PromoteK, bool Ring, bool StageScales = false>
struct WgmmaTmaStoreFits {
  struct Both {
    typename TmaWgmmaMainloop<P, G, PromoteK, Ring>::SharedStorage mainloop;
    typename TmaStoreEpilogue<P, G, E, StageScales>::SharedStorage epilogue;
  };
  struct BothGrouped : Both {
    GroupedPlacement work[P::kStages];
  };
  static constexpr bool value =
      sizeof(std::conditional_t<StageScales, BothGrouped, Both>) + P::Arch::kSmemAlignment <=
      P::Arch::kLdsBytes;
};
template <class P, class G, class E, int PromoteK,
          bool Candidate =
              !P::kPingPong && P::kAtomsM == 1 &&
              (WgmmaSwapsAB<P>::value ? P::kConsumers == 2 && sizeof(typename E::Element) >= 2
                                      : P::kBlockN * sizeof(typename E::Element) % 128 == 0) &&
              (std::is_same_v<typename E::Act, Identity> || P::kAccumulators <= 64 ||
               (std::is_same_v<typename E::Act, GeluTanh> && std::is_same_v<G, PerTensor> &&
                P::kAccumulators <= 128))>
struct WgmmaEpilogueChoice {
  using type = DirectStoreEpilogue<P, G, E>;
  static constexpr bool kScaleRing = true;
};
template <class P, class G, class E, int PromoteK>
struct WgmmaEpilogueChoice<P, G, E, PromoteK, true> {
  static constexpr bool kFitsWithRing = WgmmaTmaStoreFits<P, G, E, PromoteK, true>::value;
  static constexpr bool kFits = kFitsWithRing || WgmmaTmaStoreFits<P, G, E, PromoteK, false>::value;
  static constexpr bool kScaleRing = kFitsWithRing || !kFits;
  /// Per-channel grouped tiles' scales staged in shared memory where they fit too, beside the
  /// grouped kernel's placements (Large: 2.5 KiB, 3 with the staging tiles' 1024-byte alignment,
  /// beside 216; not Default with bf16 C, 1 KiB to spare, nor 64 x 64 with fp32 C). A dense
  /// kernel of such a config reserves the bytes and leaves them unused.
  static constexpr bool kStageScales =
      TmaStoreEpilogue<P, G, E, true>::kStagesScales &&
      WgmmaTmaStoreFits<P, G, E, PromoteK, kScaleRing, true>::value;
  using type = std::conditional_t<kFits, TmaStoreEpilogue<P, G, E, kStageScales>,
                                  DirectStoreEpilogue<P, G, E>>;
};

template <class P, class G, LayoutB LB, class E, int PromoteK>
struct WgmmaKernelPieces {
  static_assert(TmaWgmmaRules<P, G, PromoteK, LB>::kBKMajor, FP8GEMM_RULE_WGMMA_KN_B);
  using Choice = WgmmaEpilogueChoice<P, G, E, PromoteK>;
  using Mainloop = TmaWgmmaMainloop<P, G, PromoteK, Choice::kScaleRing>;
  using CollectiveEpilogue = typename Choice::type;
  using TileScheduler = PersistentTileScheduler<P>;
  using Kernel = WarpSpecializedGemmKernel<Mainloop, CollectiveEpilogue, TileScheduler>;
};

/// Compile-time GEMM: C[M,N] = epilogue(A[M,K] (mk) * B (nk or kn), scales), and the kernel that
/// computes it: Kernel = GemmKernel<Mainloop, CollectiveEpilogue, TileScheduler> (portable) or
/// WarpSpecializedGemmKernel<...> (WGMMA). A config with other pieces (another mainloop, a
/// grouped scheduler) is how a new kernel plugs in.
template <class PolicyT, class GranularityT, LayoutB LayoutBV, class EpilogueT,
          class AccumulationT = AtomDefaultAccumulation>
struct GemmConfig {
  using Policy = PolicyT;
  using Granularity = GranularityT;
  using Epilogue = EpilogueT;  // the element-wise epilogue: Epilogue<ElementC, Activation>
  using ElementA = typename Policy::ElementA;
  using ElementB = typename Policy::ElementB;
  using ElementC = typename Epilogue::Element;
  using Scale = ScaleElement<Granularity>;
  static constexpr LayoutB kLayoutB = LayoutBV;
  static constexpr int kPromoteK =
      AccumulationT::kPromoteK < 0 ? Policy::Atom::kDefaultPromoteK : AccumulationT::kPromoteK;

  using Pieces =
      std::conditional_t<IsWgmmaPolicy<Policy>::value,
                         WgmmaKernelPieces<Policy, Granularity, kLayoutB, Epilogue, kPromoteK>,
                         PortableKernelPieces<Policy, Granularity, kLayoutB, Epilogue, kPromoteK>>;
  using Mainloop = typename Pieces::Mainloop;
  using CollectiveEpilogue = typename Pieces::CollectiveEpilogue;
  using TileScheduler = typename Pieces::TileScheduler;
  using Kernel = typename Pieces::Kernel;
  /// What the kernel receives (Gemm<Config>::to_params builds it from the user's Arguments).
  using Params = typename Kernel::Params;
};

}  // namespace fp8gemm
