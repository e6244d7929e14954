// SPDX-License-Identifier: MIT
// The TMA-store epilogue (TmaStoreEpilogue), on the host: where each accumulator pair of each
// consumer thread lands in the staging tile (TMA's 128-byte-swizzled box layout: box b holds
// columns [b·128/E, (b+1)·128/E), row r at bytes [128 r, 128 r + 128) with 16-byte chunk c stored
// at chunk c ^ (r % 8), as the PTX ISA's 128B swizzle mode defines), that every element of a
// consumer's rows has its own bytes, that a warp's stores of one register pair hit 32 distinct
// banks for 2-byte C, and which configurations get this epilogue.
#include <gtest/gtest.h>

#include <set>
#include <type_traits>
#include <vector>

#include "fp8gemm/fp8gemm.hpp"

namespace fp8gemm {
namespace {

/// The layout written out by hand: the byte of (row, col) in a consumer's staging tile.
template <int kElementBytes>
std::uint32_t by_hand(int row, int col) {
  int const cols_per_box = 128 / kElementBytes;
  int const box = col / cols_per_box;
  int const byte = (col % cols_per_box) * kElementBytes;
  int const chunk = byte / 16;
  return static_cast<std::uint32_t>(box * 64 * 128 + row * 128 + ((chunk ^ (row % 8)) * 16) +
                                    byte % 16);
}

template <class ElementC>
void check_layout() {
  using Policy = Sm90WgmmaDefault<>;
  using E = TmaStoreEpilogue<Policy, PerTensor, Epilogue<ElementC, Identity>>;
  using Atom = Policy::Atom;
  constexpr int kBytes = static_cast<int>(sizeof(ElementC));
  static_assert(E::kRows == 64 && E::kBoxCols == 128 / kBytes);
  std::set<std::uint32_t> seen;  // every byte of every element, over all threads and registers
  for (int t = 0; t < 128; ++t)
    for (int r = 0; r < Atom::kAccumulators; ++r) {
      int const row = Atom::acc_row(t, r), col = Atom::acc_col(t, r);
      std::uint32_t const o = E::staging_offset(row, col);
      ASSERT_EQ(o, by_hand<kBytes>(row, col)) << "t " << t << " r " << r;
      if (r % 2 == 1) {  // the pair's second element: the next bytes (one Pair access)
        ASSERT_EQ(o, E::staging_offset(row, col - 1) + kBytes) << t << " " << r;
        ASSERT_EQ(E::staging_offset(row, col - 1) % (2 * kBytes), 0u) << "pair alignment";
      }
      for (int b = 0; b < kBytes; ++b) ASSERT_TRUE(seen.insert(o + b).second) << t << " " << r;
    }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(E::kConsumerBytes));
  EXPECT_EQ(*seen.rbegin(), static_cast<std::uint32_t>(E::kConsumerBytes - 1));
}

TEST(TmaStoreEpilogue, StagingLayoutIsTmaSwizzle128AndABijection) {
  check_layout<bf16>();
  check_layout<fp16>();
  check_layout<e4m3fn>();
  check_layout<float>();
}

/// copy_staged_rows (a grouped problem's partial tile): copy i's 16 bytes are exactly the staged
/// bytes of its row and columns [col, col + 16 / E) (staging_offset of each), the copies cover
/// the consumer's staging tile once, and each warp's copies are four rows' whole 128 bytes of C.
template <class Policy, class ElementC>
void check_copies() {
  using E = TmaStoreEpilogue<Policy, PerTensor, Epilogue<ElementC, Identity>>;
  constexpr int kBytes = static_cast<int>(sizeof(ElementC));
  std::set<std::uint32_t> seen;
  for (int i = 0; i < E::kCopies; ++i) {
    auto const x = E::staged_copy(i);
    ASSERT_LT(x.row, E::kRows);
    ASSERT_EQ(x.col % (16 / kBytes), 0) << i;
    ASSERT_EQ(x.offset % 16, 0u) << i;
    for (int e = 0; e < 16 / kBytes; ++e)  // staging wrote column col + e at offset + e · E
      ASSERT_EQ(E::staging_offset(x.row, x.col + e), x.offset + std::uint32_t(e * kBytes)) << i;
    ASSERT_TRUE(seen.insert(x.offset).second) << "copy " << i << " repeats bytes";
    if (i % 32 == 0) {  // a warp's 32 copies: rows row .. row + 3, 128 bytes each, in order
      for (int l = 0; l < 32; ++l) {
        auto const y = E::staged_copy(i + l);
        EXPECT_EQ(y.row, x.row + l / 8) << i << " " << l;
        EXPECT_EQ(y.col, x.col + (l % 8) * (16 / kBytes)) << i << " " << l;
      }
    }
  }
  EXPECT_EQ(seen.size() * 16, static_cast<std::size_t>(E::kConsumerBytes));
}

TEST(TmaStoreEpilogue, StagedRowCopiesReadWhatTheStagingWrote) {
  check_copies<Sm90WgmmaDefault<>, bf16>();
  check_copies<Sm90WgmmaDefault<>, e4m3fn>();
  check_copies<Sm90WgmmaDefault<>, float>();
  check_copies<Sm90WgmmaLarge<>, bf16>();
  check_copies<Sm90WgmmaMidM<104>, bf16>();  // swapped: all 104 rows, 64 columns
}

/// One warp's store of register pair r (bf16: 4 bytes per lane): 32 distinct banks.
TEST(TmaStoreEpilogue, PairStoresOfAWarpAreConflictFreeFor2ByteC) {
  using Policy = Sm90WgmmaDefault<>;
  using E = TmaStoreEpilogue<Policy, PerTensor, Epilogue<bf16, Identity>>;
  using Atom = Policy::Atom;
  for (int warp = 0; warp < 4; ++warp)
    for (int r = 0; r < Atom::kAccumulators; r += 2) {
      std::set<std::uint32_t> banks;
      for (int lane = 0; lane < 32; ++lane) {
        int const t = warp * 32 + lane;
        banks.insert((E::staging_offset(Atom::acc_row(t, r), Atom::acc_col(t, r)) / 4) % 32);
      }
      EXPECT_EQ(banks.size(), 32u) << "warp " << warp << " r " << r;
    }
}

/// The rule for taking the TMA path (c_allows_tma; the GPU test WgmmaTmaStore checks the launch's
/// choice): C 16-byte aligned, ldc · sizeof(C) and N · sizeof(C) multiples of 16 (the H200 wrote
/// past N up to the next 16 bytes otherwise).
TEST(TmaStoreEpilogue, TakenOnlyForWhole16ByteRows) {
  using E = TmaStoreEpilogue<Sm90WgmmaDefault<>, PerTensor, Epilogue<bf16, Identity>>;
  using E8 = TmaStoreEpilogue<Sm90WgmmaDefault<>, PerTensor, Epilogue<e4m3fn, Identity>>;
  alignas(16) static bf16 c[64 * 1024];
  alignas(16) static e4m3fn c8[64 * 1024];
  // C of 64 rows and n columns, ldc elements apart, at ptr
  auto args = [](auto* ptr, int /*n: shape(n)*/, int ldc) {
    using Args = typename TmaStoreEpilogue<
        Sm90WgmmaDefault<>, PerTensor,
        Epilogue<std::remove_pointer_t<decltype(ptr)>, Identity>>::Arguments;
    Args x;
    x.params.c = ptr, x.params.ldc = ldc;
    return x;
  };
  auto shape = [](int n) { return ProblemShape{64, n, 128}; };  // M = 64, K unused
  EXPECT_TRUE(E::c_allows_tma(shape(256), args(c, 256, 256)));
  EXPECT_TRUE(E::c_allows_tma(shape(248), args(c, 248, 256)));   // 496 B rows, ldc 512 B
  EXPECT_FALSE(E::c_allows_tma(shape(250), args(c, 250, 256)));  // 500 B: not whole 16-byte units
  EXPECT_FALSE(
      E::c_allows_tma(shape(256), args(c, 256, 258)));  // rows 516 B apart: not 16-byte aligned
  EXPECT_FALSE(E::c_allows_tma(shape(256), args(c + 1, 256, 256)));  // C itself 2 B off 16
  EXPECT_TRUE(E8::c_allows_tma(shape(272), args(c8, 272, 288)));
  EXPECT_FALSE(E8::c_allows_tma(shape(264), args(c8, 264, 288)));  // 264 B
  if (!arch::kTmaEncoderAvailable) {  // a build without the CUDA runtime never takes it
    EXPECT_FALSE(E::use_tma(shape(256), args(c, 256, 256)));
  }
}

template <class P, class E, class Acc = AtomDefaultAccumulation>
using EpilogueOf = typename GemmConfig<P, PerTensor, LayoutB::kNK, E, Acc>::CollectiveEpilogue;
template <class T>
struct IsTmaStore : std::false_type {};
template <class P, class G, class E, bool S>
struct IsTmaStore<TmaStoreEpilogue<P, G, E, S>> : std::true_type {};

// Which configurations store through TMA: the default tile with 2-byte and fp8 C (192 KiB ring +
// 32 / 16 KiB staging), with or without an activation; the 128 x 256 tile (Large = Fast) with
// 2-byte C (144 + 64 KiB), with no activation or with GELU-tanh and per-tensor scales; 128 x 192
// likewise (160 + 48 KiB); SmallM (208 + 8 KiB). From registers: fp32 C on the default and on the
// 128 x 256 tile (64 / 128 KiB of staging would not fit next to the ring), any other activation
// or granularity beside more than 64 accumulators per thread (ptxas spills: GELU-erf, per-channel
// GELU-tanh), a four-stage 128 x 256 (192 + 64 KiB), ping-pong, 256-row tiles, fp8 C on 64
// columns (64-byte rows: not a 128-byte box), 2-byte C on 144 columns (288-byte rows).
static_assert(IsTmaStore<EpilogueOf<Sm90WgmmaDefault<>, Epilogue<bf16, Identity>>>::value);
static_assert(IsTmaStore<EpilogueOf<Sm90WgmmaDefault<>, Epilogue<fp16, Identity>>>::value);
static_assert(IsTmaStore<EpilogueOf<Sm90WgmmaDefault<>, Epilogue<fp16, GeluTanh>>>::value);
static_assert(IsTmaStore<EpilogueOf<Sm90WgmmaDefault<>, Epilogue<bf16, GeluErf>>>::value);
static_assert(IsTmaStore<EpilogueOf<Sm90WgmmaDefault<>, Epilogue<e4m3fn, Identity>>>::value);
static_assert(IsTmaStore<EpilogueOf<Sm90WgmmaSmallM<>, Epilogue<bf16, Identity>>>::value);
static_assert(!IsTmaStore<EpilogueOf<Sm90WgmmaDefault<>, Epilogue<float, Identity>>>::value);
static_assert(
    IsTmaStore<EpilogueOf<Sm90WgmmaLarge<>, Epilogue<bf16, Identity>, FastAccumulation>>::value);
static_assert(
    !IsTmaStore<EpilogueOf<Sm90WgmmaLarge<>, Epilogue<float, GeluErf>, FastAccumulation>>::value);
static_assert(  // GELU-tanh beside 128 accumulators per thread: spill-free since the diet
    IsTmaStore<EpilogueOf<Sm90WgmmaLarge<>, Epilogue<bf16, GeluTanh>, FastAccumulation>>::value);
static_assert(IsTmaStore<EpilogueOf<Sm90WgmmaLarge<>, Epilogue<fp16, GeluTanh>>>::value);
static_assert(
    IsTmaStore<EpilogueOf<WgmmaTilePolicy<128, 192, 2, 4>, Epilogue<bf16, GeluTanh>>>::value);
static_assert(  // GELU-erf there: ptxas spills 36 bytes
    !IsTmaStore<EpilogueOf<Sm90WgmmaLarge<>, Epilogue<bf16, GeluErf>>>::value);
static_assert(  // per-channel GELU-tanh there: 40 bytes (fp16 C)
    !IsTmaStore<typename GemmConfig<Sm90WgmmaLarge<>, PerChannel, LayoutB::kNK,
                                    Epilogue<fp16, GeluTanh>>::CollectiveEpilogue>::value);
static_assert(  // the same tile and granularity without an activation: through TMA
    IsTmaStore<typename GemmConfig<Sm90WgmmaLarge<>, PerChannel, LayoutB::kNK,
                                   Epilogue<fp16, Identity>>::CollectiveEpilogue>::value);
static_assert(
    !IsTmaStore<EpilogueOf<WgmmaTilePolicy<128, 144, 2, 6>, Epilogue<bf16, GeluTanh>>>::value);
static_assert(!IsTmaStore<EpilogueOf<WgmmaTilePolicy<128, 256, 2, 4>, Epilogue<bf16, Identity>,
                                     FastAccumulation>>::value);
static_assert(!IsTmaStore<
              EpilogueOf<WgmmaTilePolicy<128, 128, 2, 6, e4m3fn, e4m3fn, WgmmaSchedule::kPingPong>,
                         Epilogue<bf16, Identity>>>::value);
static_assert(
    !IsTmaStore<EpilogueOf<WgmmaTilePolicy<256, 128, 2, 4>, Epilogue<bf16, Identity>>>::value);
static_assert(!IsTmaStore<EpilogueOf<Sm90WgmmaSmallM<>, Epilogue<e4m3fn, Identity>>>::value);

// The kernel's shared memory: the ring, plus the staging tiles only where the epilogue has them.
// Register stores add no bytes (Sm90WgmmaDecode<8>'s 25 stages fill the 227 KiB exactly); the
// TMA-store default adds its two consumers' 64 x 128 bf16 tiles after the 1024-aligned ring.
using DecodeKernel =
    GemmConfig<Sm90WgmmaDecode<8>, PerTensor, LayoutB::kNK, Epilogue<bf16, Identity>>::Kernel;
static_assert(sizeof(DecodeKernel::SharedStorage) == sizeof(DecodeKernel::Mainloop::SharedStorage));
static_assert(DecodeKernel::kSharedBytes <= arch::Sm90a::kLdsBytes);
using DefaultKernel =
    GemmConfig<Sm90WgmmaDefault<>, PerTensor, LayoutB::kNK, Epilogue<bf16, Identity>>::Kernel;
static_assert(sizeof(DefaultKernel::SharedStorage) >=
              sizeof(DefaultKernel::Mainloop::SharedStorage) + 2 * 64 * 128 * 2);
static_assert(DefaultKernel::kSharedBytes <= arch::Sm90a::kLdsBytes);

}  // namespace
}  // namespace fp8gemm
