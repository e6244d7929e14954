// SPDX-License-Identifier: MIT
// The Hopper WGMMA default policies' kernels, compiled with -Xptxas -v by ptxas_check.cmake (label
// ptxas, no GPU): ptxas must report no spills and no wgmma serialization (C75xx) for any of them.
// Besides the named defaults: the paths whose register arrays could fall to local memory (two
// partial-sum sets over two row blocks, two B scale groups per tile, both ping-pong tiles), the
// 2-CTA multicast variants of the defaults (remote arrivals, multicast copies, paired tiles), and
// the grouped kernels that do not spill.
#include "fp8gemm/fp8gemm.hpp"

namespace fp8gemm {
using PromotedBf16 = GemmConfig<Sm90WgmmaDefault<>, PerTensor, LayoutB::kNK, Epilogue<bf16>>;
using PromotedGelu =
    GemmConfig<Sm90WgmmaDefault<e4m3fn, e5m2>, PerChannel, LayoutB::kNK, Epilogue<bf16, GeluTanh>>;
using BlockwiseFp8 =
    GemmConfig<Sm90WgmmaDefault<>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<e4m3fn, GeluErf>>;
using FastBf16 =
    GemmConfig<Sm90WgmmaLarge<>, PerTensor, LayoutB::kNK, Epilogue<bf16>, FastAccumulation>;
// wgmma n192: 128 x 192 promoted (96 accumulators + two sets of 48 partial sums: two n96
// chunks), TMA stores with GELU-tanh
using Promoted192 =
    GemmConfig<WgmmaTilePolicy<128, 192, 2, 4>, PerTensor, LayoutB::kNK, Epilogue<bf16, GeluTanh>>;
// 128 x 256 promoted in four n64 chunks (128 accumulators + two sets of 32 partial sums), TMA
// stores (with GELU-tanh as well); with GELU-erf from registers
using LargeBf16 = GemmConfig<Sm90WgmmaLarge<>, PerTensor, LayoutB::kNK, Epilogue<bf16>>;
using LargeGeluTanh =
    GemmConfig<Sm90WgmmaLarge<>, PerTensor, LayoutB::kNK, Epilogue<bf16, GeluTanh>>;
using LargeGelu =
    GemmConfig<Sm90WgmmaLarge<e5m2, e4m3fn>, PerChannel, LayoutB::kNK, Epilogue<bf16, GeluErf>>;
using LargeBlockwise =
    GemmConfig<Sm90WgmmaLarge<>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16>>;
// GELU-tanh on the 128 x 256 tile with fast accumulation (TMA stores)
using FastGelu = GemmConfig<Sm90WgmmaLarge<>, PerTensor, LayoutB::kNK, Epilogue<bf16, GeluTanh>,
                            FastAccumulation>;
using SmallMFp32 = GemmConfig<Sm90WgmmaSmallM<>, PerTensor, LayoutB::kNK, Epilogue<float>>;
using MediumMBf16 = GemmConfig<Sm90WgmmaMediumM<>, PerTensor, LayoutB::kNK, Epilogue<bf16>>;
using SmallMBlockwise =
    GemmConfig<Sm90WgmmaSmallM<>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16>>;
using TwoGroups =
    GemmConfig<Sm90WgmmaDefault<>, Blockwise<1, 64, 128>, LayoutB::kNK, Epilogue<bf16>>;
using TwoRowBlocksPipelined =
    GemmConfig<WgmmaTilePolicy<256, 64, 2, 4>, Blockwise<1, 64, 128>, LayoutB::kNK, Epilogue<bf16>>;
// 256 x 128: two row blocks per consumer, one partial-sum set (128 accumulators + 64 partial
// sums), the scale ring and checked tiles
using TwoRowBlocks256x128 = GemmConfig<WgmmaTilePolicy<256, 128, 2, 4>, Blockwise<1, 128, 128>,
                                       LayoutB::kNK, Epilogue<bf16>>;
Status run_row_blocks(Gemm<TwoRowBlocks256x128>::Arguments const& a) {
  return Gemm<TwoRowBlocks256x128>::run(a);
}
using PingPongPromoted =
    GemmConfig<WgmmaTilePolicy<128, 128, 2, 6, e4m3fn, e4m3fn, WgmmaSchedule::kPingPong>,
               Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16>>;
using PingPongFast =
    GemmConfig<WgmmaTilePolicy<64, 256, 2, 5, e4m3fn, e4m3fn, WgmmaSchedule::kPingPong>, PerTensor,
               LayoutB::kNK, Epilogue<bf16>, FastAccumulation>;
using MulticastA =
    GemmConfig<Sm90WgmmaDefaultMulticastA<>, PerTensor, LayoutB::kNK, Epilogue<bf16>>;
using MulticastB =
    GemmConfig<Sm90WgmmaDefaultMulticastB<>, PerTensor, LayoutB::kNK, Epilogue<bf16>>;
using MulticastABlockwise =
    GemmConfig<Sm90WgmmaDefaultMulticastA<>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16>>;
using FastMulticastA = GemmConfig<Sm90WgmmaFastMulticastA<>, PerTensor, LayoutB::kNK,
                                  Epilogue<bf16>, FastAccumulation>;
using FastMulticastB = GemmConfig<Sm90WgmmaFastMulticastB<>, PerTensor, LayoutB::kNK,
                                  Epilogue<bf16>, FastAccumulation>;

// stream-K (StreamK<P>): the slots' stores and adds beside the accumulators, the flags; AutoGemm's
// stream-K candidates (128 x 128 per-tensor and its five-stage Blockwise form, 128 x 192, 128 x 256
// Blockwise) and the two-consumer swapped tile. (StreamK<Sm90WgmmaLarge> per-tensor, 128
// accumulators and two sets of 32 partial sums, spills a little: spilling_policies.cu.)
using StreamKDefault =
    GemmConfig<StreamK<Sm90WgmmaDefault<>>, PerTensor, LayoutB::kNK, Epilogue<bf16>>;
using StreamKDefaultBlockwise = GemmConfig<StreamK<Sm90WgmmaDefaultBlockwise<>>,
                                           Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16>>;
using StreamK192PerChannel =
    GemmConfig<StreamK<WgmmaTilePolicy<128, 192, 2, 4>>, PerChannel, LayoutB::kNK, Epilogue<bf16>>;
using StreamKLargeBlockwise =
    GemmConfig<StreamK<Sm90WgmmaLarge<>>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16>>;
using StreamKMidM =
    GemmConfig<StreamK<Sm90WgmmaMidM<104>>, PerChannel, LayoutB::kNK, Epilogue<bf16>>;

Status run_stream_k(Gemm<StreamKDefault>::Arguments const& a,
                    Gemm<StreamKDefaultBlockwise>::Arguments const& b,
                    Gemm<StreamKMidM>::Arguments const& c,
                    Gemm<StreamK192PerChannel>::Arguments const& d,
                    Gemm<StreamKLargeBlockwise>::Arguments const& e) {
  FP8GEMM_RETURN_IF_ERROR(Gemm<StreamKDefault>::run(a));
  FP8GEMM_RETURN_IF_ERROR(Gemm<StreamKDefaultBlockwise>::run(b));
  FP8GEMM_RETURN_IF_ERROR(Gemm<StreamK192PerChannel>::run(d));
  FP8GEMM_RETURN_IF_ERROR(Gemm<StreamKLargeBlockwise>::run(e));
  return Gemm<StreamKMidM>::run(c);
}

// AutoGemm's 128 x 144 and 128 x 160 candidates (two n72 / n80 chunks, C from registers)
using Wide144PerTensor =
    GemmConfig<WgmmaTilePolicy<128, 144, 2, 6>, PerTensor, LayoutB::kNK, Epilogue<bf16>>;
using Wide160PerChannel =
    GemmConfig<WgmmaTilePolicy<128, 160, 2, 6>, PerChannel, LayoutB::kNK, Epilogue<bf16>>;

Status run_wide_n(Gemm<Wide144PerTensor>::Arguments const& a,
                  Gemm<Wide160PerChannel>::Arguments const& b) {
  FP8GEMM_RETURN_IF_ERROR(Gemm<Wide144PerTensor>::run(a));
  return Gemm<Wide160PerChannel>::run(b);
}

// grouped, per-channel, 128 x 256: the tile's scales copied into shared memory beside its main
// loop and read there by the TMA staging loop (TmaStoreEpilogue's staged scales)
using GroupedLargePerChannel =
    GemmConfig<Sm90WgmmaLarge<>, PerChannel, LayoutB::kNK, Epilogue<bf16>>;
static_assert(GroupedLargePerChannel::CollectiveEpilogue::kStagesScales);

// AutoGroupedGemm's 128 x 128 candidate per-tensor and Blockwise, the 128 x 256 one per-tensor
// with GELU-tanh, and the two-consumer MediumM Blockwise tile: their consumers read the K range
// from shared memory, and the SASS check's moved-descriptor rule guards its broadcast. (The
// Blockwise 128 x 256 grouped kernel spills a little: spilling_policies.cu. Not listed at all:
// the one-consumer 64 x 64 grouped Blockwise kernel, whose descriptors are moved from vector
// registers, as the SASS check forbids; with them uniform it ran 2.9-3.4 % slower on
// decode-sized groups, docs/grouped.md.)
using GroupedDefaultPerTensor =
    GemmConfig<Sm90WgmmaDefault<>, PerTensor, LayoutB::kNK, Epilogue<bf16>>;
using GroupedDefaultBlockwise =
    GemmConfig<Sm90WgmmaDefault<>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16>>;
using GroupedLargeGeluTanh =
    GemmConfig<Sm90WgmmaLarge<>, PerTensor, LayoutB::kNK, Epilogue<bf16, GeluTanh>>;
using GroupedMediumMBlockwise =
    GemmConfig<Sm90WgmmaMediumM<>, Blockwise<1, 128, 128>, LayoutB::kNK, Epilogue<bf16>>;

Status run_grouped(GroupedGemm<GroupedLargePerChannel>::Arguments const& a,
                   GroupedGemm<GroupedDefaultPerTensor>::Arguments const& b,
                   GroupedGemm<GroupedDefaultBlockwise>::Arguments const& c,
                   GroupedGemm<GroupedLargeGeluTanh>::Arguments const& d,
                   GroupedGemm<GroupedMediumMBlockwise>::Arguments const& e) {
  FP8GEMM_RETURN_IF_ERROR(GroupedGemm<GroupedLargePerChannel>::run(a));
  FP8GEMM_RETURN_IF_ERROR(GroupedGemm<GroupedDefaultPerTensor>::run(b));
  FP8GEMM_RETURN_IF_ERROR(GroupedGemm<GroupedDefaultBlockwise>::run(c));
  FP8GEMM_RETURN_IF_ERROR(GroupedGemm<GroupedLargeGeluTanh>::run(d));
  return GroupedGemm<GroupedMediumMBlockwise>::run(e);
}

Status run_multicast(Gemm<MulticastA>::Arguments const& a, Gemm<MulticastB>::Arguments const& b,
                     Gemm<MulticastABlockwise>::Arguments const& c,
                     Gemm<FastMulticastA>::Arguments const& d,
                     Gemm<FastMulticastB>::Arguments const& e) {
  FP8GEMM_RETURN_IF_ERROR(Gemm<MulticastA>::run(a));
  FP8GEMM_RETURN_IF_ERROR(Gemm<MulticastB>::run(b));
  FP8GEMM_RETURN_IF_ERROR(Gemm<MulticastABlockwise>::run(c));
  FP8GEMM_RETURN_IF_ERROR(Gemm<FastMulticastA>::run(d));
  return Gemm<FastMulticastB>::run(e);
}

Status run_all(Gemm<PromotedBf16>::Arguments const& a, Gemm<PromotedGelu>::Arguments const& b,
               Gemm<BlockwiseFp8>::Arguments const& c, Gemm<FastBf16>::Arguments const& d,
               Gemm<SmallMFp32>::Arguments const& e, Gemm<SmallMBlockwise>::Arguments const& f,
               Gemm<TwoGroups>::Arguments const& g, Gemm<TwoRowBlocksPipelined>::Arguments const& h,
               Gemm<PingPongPromoted>::Arguments const& i, Gemm<PingPongFast>::Arguments const& j,
               Gemm<MediumMBf16>::Arguments const& k, Gemm<FastGelu>::Arguments const& l,
               Gemm<Promoted192>::Arguments const& m, Gemm<LargeBf16>::Arguments const& n,
               Gemm<LargeGelu>::Arguments const& o, Gemm<LargeBlockwise>::Arguments const& q,
               Gemm<LargeGeluTanh>::Arguments const& r) {
  FP8GEMM_RETURN_IF_ERROR(Gemm<LargeGeluTanh>::run(r));
  FP8GEMM_RETURN_IF_ERROR(Gemm<LargeBlockwise>::run(q));
  FP8GEMM_RETURN_IF_ERROR(Gemm<LargeBf16>::run(n));
  FP8GEMM_RETURN_IF_ERROR(Gemm<LargeGelu>::run(o));
  FP8GEMM_RETURN_IF_ERROR(Gemm<Promoted192>::run(m));
  FP8GEMM_RETURN_IF_ERROR(Gemm<FastGelu>::run(l));
  FP8GEMM_RETURN_IF_ERROR(Gemm<MediumMBf16>::run(k));
  FP8GEMM_RETURN_IF_ERROR(Gemm<PromotedBf16>::run(a));
  FP8GEMM_RETURN_IF_ERROR(Gemm<PromotedGelu>::run(b));
  FP8GEMM_RETURN_IF_ERROR(Gemm<BlockwiseFp8>::run(c));
  FP8GEMM_RETURN_IF_ERROR(Gemm<FastBf16>::run(d));
  FP8GEMM_RETURN_IF_ERROR(Gemm<SmallMFp32>::run(e));
  FP8GEMM_RETURN_IF_ERROR(Gemm<SmallMBlockwise>::run(f));
  FP8GEMM_RETURN_IF_ERROR(Gemm<TwoGroups>::run(g));
  FP8GEMM_RETURN_IF_ERROR(Gemm<TwoRowBlocksPipelined>::run(h));
  FP8GEMM_RETURN_IF_ERROR(Gemm<PingPongPromoted>::run(i));
  return Gemm<PingPongFast>::run(j);
}
}  // namespace fp8gemm
