// SPDX-License-Identifier: MIT
/// Hopper warpgroup MMA for FP8 (arch layer): the shared-memory matrix descriptor, wgmma.fence /
/// commit_group / wait_group, and Sm90Wgmma64xNx32, the SS form of
/// wgmma.mma_async.sync.aligned.m64nNk32.f32.{e4m3|e5m2}.{e4m3|e5m2} with its accumulator map.
/// Inline PTX only in sm_90a device passes (FP8GEMM_ARCH_SM90A, sm90_sync.hpp); other device
/// passes trap; host, emulator and clang-HIP builds see the constexpr parts and empty bodies.
#pragma once

#include <cstdint>
#include <type_traits>

#include "fp8gemm/arch/arch_traits.hpp"
#include "fp8gemm/arch/nvidia/sm90_sync.hpp"
#include "fp8gemm/config.hpp"
#include "fp8gemm/numeric/numeric.hpp"

namespace fp8gemm::arch {

/// Layout type of a matrix descriptor (bits [62, 64)), PTX ISA "Matrix Descriptor Format".
enum class Sm90SmemLayout : std::uint8_t {
  kInterleave = 0,  // no swizzle
  kSwizzle128B = 1,
  kSwizzle64B = 2,
  kSwizzle32B = 3,
};

/// 64-bit shared-memory matrix descriptor of wgmma (PTX ISA, "Matrix Descriptor Format"):
///   bits [ 0, 14)  start address >> 4           (shared-memory byte address, 16-B aligned)
///   bits [16, 30)  leading dimension byte offset >> 4
///   bits [32, 46)  stride dimension byte offset >> 4
///   bits [49, 52)  base offset (128B/64B swizzles whose pattern does not start at the atom's
///                  first row; 0 when the swizzle atoms are 1024-B aligned)
///   bits [62, 64)  layout type (Sm90SmemLayout)
/// all other bits zero. Shared addresses are below 2^18 (228 KiB), so start >> 4 fits in 14 bits.
struct Sm90SmemDescriptor {
  std::uint64_t bits = 0;

  FP8GEMM_HOST_DEVICE static constexpr Sm90SmemDescriptor make(std::uint32_t start_address,
                                                               std::uint32_t leading_byte_offset,
                                                               std::uint32_t stride_byte_offset,
                                                               std::uint32_t base_offset,
                                                               Sm90SmemLayout layout) {
    return Sm90SmemDescriptor{
        (static_cast<std::uint64_t>((start_address >> 4) & 0x3FFFu)) |
        (static_cast<std::uint64_t>((leading_byte_offset >> 4) & 0x3FFFu) << 16) |
        (static_cast<std::uint64_t>((stride_byte_offset >> 4) & 0x3FFFu) << 32) |
        (static_cast<std::uint64_t>(base_offset & 0x7u) << 49) |
        (static_cast<std::uint64_t>(layout) << 62)};
  }

  /// A K-major fp8 operand tile in the layout TMA writes with CU_TENSOR_MAP_SWIZZLE_128B: rows of
  /// 128 bytes (128 K values), 8-row groups ("core matrix" rows) 1024 B apart (the stride byte
  /// offset), swizzle atoms 1024-B aligned (base offset 0). The leading byte offset is unused for
  /// swizzled K-major layouts whose K extent fits one swizzle span (an fp8 wgmma reads 32 B of
  /// K); it is set to 1 (16 B), the value CUTLASS assumes.
  FP8GEMM_HOST_DEVICE static constexpr Sm90SmemDescriptor k_major_swizzle128(
      std::uint32_t start_address) {
    return make(start_address, kLeadingByteOffset, kStrideByteOffset, 0,
                Sm90SmemLayout::kSwizzle128B);
  }
  static constexpr std::uint32_t kLeadingByteOffset = 16;
  static constexpr std::uint32_t kStrideByteOffset = 1024;

  /// The descriptor of the same tile `bytes` further on (bytes % 16 == 0): the next k-step of
  /// a K-major tile is +32 B (kK fp8 values), the next 64-row wave +64·128 B. The swizzle is a
  /// function of the address bits [4, 10), so a start inside an atom (+32 B) still reads the
  /// pattern TMA wrote; base offset stays 0.
  FP8GEMM_HOST_DEVICE constexpr Sm90SmemDescriptor advanced(std::uint32_t bytes) const {
    return advanced_units(bytes >> 4);
  }
  /// The same in 16-byte units: the add touches the low word only (the start field is its low
  /// 14 bits, and an advanced address still below 2^18 never carries out of them), so a stage's
  /// descriptor is stage 0's plus stage · (stage bytes / 16) with one 32-bit multiply-add, and
  /// its k-steps follow with immediate adds.
  FP8GEMM_HOST_DEVICE constexpr Sm90SmemDescriptor advanced_units(std::uint32_t units) const {
    std::uint32_t const low = static_cast<std::uint32_t>(bits) + units;
    return Sm90SmemDescriptor{(bits & 0xFFFFFFFF00000000ull) | low};
  }

  FP8GEMM_HOST_DEVICE constexpr std::uint32_t start_address() const {
    return static_cast<std::uint32_t>(bits & 0x3FFFu) << 4;
  }
  FP8GEMM_HOST_DEVICE constexpr std::uint32_t leading_byte_offset() const {
    return static_cast<std::uint32_t>((bits >> 16) & 0x3FFFu) << 4;
  }
  FP8GEMM_HOST_DEVICE constexpr std::uint32_t stride_byte_offset() const {
    return static_cast<std::uint32_t>((bits >> 32) & 0x3FFFu) << 4;
  }
  FP8GEMM_HOST_DEVICE constexpr std::uint32_t base_offset() const {
    return static_cast<std::uint32_t>((bits >> 49) & 0x7u);
  }
  FP8GEMM_HOST_DEVICE constexpr Sm90SmemLayout layout() const {
    return static_cast<Sm90SmemLayout>((bits >> 62) & 0x3u);
  }
};

/// wgmma.fence.sync.aligned: orders this warpgroup's earlier register (and shared-memory)
/// accesses with the following wgmma.mma_async. Before the first wgmma of a batch, and whenever
/// the accumulators were touched by ordinary instructions since the last one.
FP8GEMM_DEVICE void wgmma_fence() {
#if defined(FP8GEMM_ARCH_SM90A)
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#elif defined(FP8GEMM_DEVICE_PASS)
  FP8GEMM_DEVICE_TRAP();
#endif
}

/// wgmma.commit_group.sync.aligned: closes the batch of wgmma.mma_async issued since the last
/// commit into one group that wgmma_wait_group counts.
FP8GEMM_DEVICE void wgmma_commit_group() {
#if defined(FP8GEMM_ARCH_SM90A)
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#elif defined(FP8GEMM_DEVICE_PASS)
  FP8GEMM_DEVICE_TRAP();
#endif
}

/// wgmma.wait_group.sync.aligned Pending: waits until at most `Pending` committed groups are
/// still running; their accumulators (and shared-memory operands) are free after that.
template <int Pending>
FP8GEMM_DEVICE void wgmma_wait_group() {
  static_assert(Pending >= 0 && Pending <= 7, "wgmma.wait_group takes 0..7");
#if defined(FP8GEMM_ARCH_SM90A)
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(Pending) : "memory");
#elif defined(FP8GEMM_DEVICE_PASS)
  FP8GEMM_DEVICE_TRAP();
#endif
}

/// Keeps the compiler from moving accesses of `d` across this point (an empty asm that reads and
/// writes every register): around wgmma batches, so that no ordinary instruction touches the
/// accumulators between wgmma_fence and wgmma_wait_group (which would serialize the pipeline).
template <int Regs>
FP8GEMM_DEVICE void wgmma_pin_accumulators(float (&d)[Regs]) {
#if defined(FP8GEMM_ARCH_SM90A)
  FP8GEMM_UNROLL
  for (int i = 0; i < Regs; ++i) asm volatile("" : "+f"(d[i])::"memory");
#else
  (void)d;
#endif
}

// Operand lists of the accumulator registers: one "%i" (inside the braces the wgmma string adds)
// and one "+f"(d[i]) per register, each list the previous one plus its new registers. The operand
// lists are function-like so that a macro argument naming them is not expanded early.
// clang-format off
#define FP8GEMM_SM90_WGMMA_D4_LIST \
  "%0, %1, %2, %3"
#define FP8GEMM_SM90_WGMMA_D8_LIST \
  FP8GEMM_SM90_WGMMA_D4_LIST \
  ", %4, %5, %6, %7"
#define FP8GEMM_SM90_WGMMA_D16_LIST \
  FP8GEMM_SM90_WGMMA_D8_LIST \
  ", %8, %9, %10, %11, %12, %13, %14, %15"
#define FP8GEMM_SM90_WGMMA_D32_LIST \
  FP8GEMM_SM90_WGMMA_D16_LIST \
  ", %16, %17, %18, %19, %20, %21, %22, %23" \
  ", %24, %25, %26, %27, %28, %29, %30, %31"
#define FP8GEMM_SM90_WGMMA_D36_LIST \
  FP8GEMM_SM90_WGMMA_D32_LIST \
  ", %32, %33, %34, %35"
#define FP8GEMM_SM90_WGMMA_D40_LIST \
  FP8GEMM_SM90_WGMMA_D36_LIST \
  ", %36, %37, %38, %39"
#define FP8GEMM_SM90_WGMMA_D44_LIST \
  FP8GEMM_SM90_WGMMA_D40_LIST \
  ", %40, %41, %42, %43"
#define FP8GEMM_SM90_WGMMA_D48_LIST \
  FP8GEMM_SM90_WGMMA_D44_LIST \
  ", %44, %45, %46, %47"
#define FP8GEMM_SM90_WGMMA_D52_LIST \
  FP8GEMM_SM90_WGMMA_D48_LIST \
  ", %48, %49, %50, %51"
#define FP8GEMM_SM90_WGMMA_D56_LIST \
  FP8GEMM_SM90_WGMMA_D52_LIST \
  ", %52, %53, %54, %55"
#define FP8GEMM_SM90_WGMMA_D64_LIST \
  FP8GEMM_SM90_WGMMA_D56_LIST \
  ", %56, %57, %58, %59, %60, %61, %62, %63"
#define FP8GEMM_SM90_WGMMA_D72_LIST \
  FP8GEMM_SM90_WGMMA_D64_LIST \
  ", %64, %65, %66, %67, %68, %69, %70, %71"
#define FP8GEMM_SM90_WGMMA_D80_LIST \
  FP8GEMM_SM90_WGMMA_D72_LIST \
  ", %72, %73, %74, %75, %76, %77, %78, %79"
#define FP8GEMM_SM90_WGMMA_D88_LIST \
  FP8GEMM_SM90_WGMMA_D80_LIST \
  ", %80, %81, %82, %83, %84, %85, %86, %87"
#define FP8GEMM_SM90_WGMMA_D96_LIST \
  FP8GEMM_SM90_WGMMA_D88_LIST \
  ", %88, %89, %90, %91, %92, %93, %94, %95"
#define FP8GEMM_SM90_WGMMA_D128_LIST \
  FP8GEMM_SM90_WGMMA_D96_LIST \
  ", %96, %97, %98, %99, %100, %101, %102, %103" \
  ", %104, %105, %106, %107, %108, %109, %110, %111" \
  ", %112, %113, %114, %115, %116, %117, %118, %119" \
  ", %120, %121, %122, %123, %124, %125, %126, %127"
#define FP8GEMM_SM90_WGMMA_D4_OPERANDS() \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
#define FP8GEMM_SM90_WGMMA_D8_OPERANDS() \
  FP8GEMM_SM90_WGMMA_D4_OPERANDS(), \
  "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
#define FP8GEMM_SM90_WGMMA_D16_OPERANDS() \
  FP8GEMM_SM90_WGMMA_D8_OPERANDS(), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
#define FP8GEMM_SM90_WGMMA_D32_OPERANDS() \
  FP8GEMM_SM90_WGMMA_D16_OPERANDS(), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
#define FP8GEMM_SM90_WGMMA_D36_OPERANDS() \
  FP8GEMM_SM90_WGMMA_D32_OPERANDS(), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35])
#define FP8GEMM_SM90_WGMMA_D40_OPERANDS() \
  FP8GEMM_SM90_WGMMA_D36_OPERANDS(), \
  "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39])
#define FP8GEMM_SM90_WGMMA_D44_OPERANDS() \
  FP8GEMM_SM90_WGMMA_D40_OPERANDS(), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43])
#define FP8GEMM_SM90_WGMMA_D48_OPERANDS() \
  FP8GEMM_SM90_WGMMA_D44_OPERANDS(), \
  "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47])
#define FP8GEMM_SM90_WGMMA_D52_OPERANDS() \
  FP8GEMM_SM90_WGMMA_D48_OPERANDS(), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51])
#define FP8GEMM_SM90_WGMMA_D56_OPERANDS() \
  FP8GEMM_SM90_WGMMA_D52_OPERANDS(), \
  "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55])
#define FP8GEMM_SM90_WGMMA_D64_OPERANDS() \
  FP8GEMM_SM90_WGMMA_D56_OPERANDS(), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define FP8GEMM_SM90_WGMMA_D72_OPERANDS() \
  FP8GEMM_SM90_WGMMA_D64_OPERANDS(), \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71])
#define FP8GEMM_SM90_WGMMA_D80_OPERANDS() \
  FP8GEMM_SM90_WGMMA_D72_OPERANDS(), \
  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79])
#define FP8GEMM_SM90_WGMMA_D88_OPERANDS() \
  FP8GEMM_SM90_WGMMA_D80_OPERANDS(), \
  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87])
#define FP8GEMM_SM90_WGMMA_D96_OPERANDS() \
  FP8GEMM_SM90_WGMMA_D88_OPERANDS(), \
  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
#define FP8GEMM_SM90_WGMMA_D128_OPERANDS() \
  FP8GEMM_SM90_WGMMA_D96_OPERANDS(), \
  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
  "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
  "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
  "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
// clang-format on

// One wgmma.mma_async, SS form: D (+)= A·B with both operands from shared-memory descriptors.
// scale-d is a predicate from a register (0: D = A·B, the accumulators' old values ignored);
// imm-scale-a = imm-scale-b = 1 (no negation). FP8 has no transpose immediates: K-major only.
#define FP8GEMM_SM90_WGMMA_SS(N_STR, TA, TB, D_LIST, D_OPERANDS, IA, IB, IS)              \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" IS                                    \
               ", 0;\n"                                                                   \
               "wgmma.mma_async.sync.aligned.m64n" N_STR "k32.f32." TA "." TB " {" D_LIST \
               "}, %" IA ", %" IB ", p, 1, 1;\n}\n"                                       \
               : D_OPERANDS()                                                             \
               : "l"(desc_a), "l"(desc_b), "r"(scale_d))

#define FP8GEMM_SM90_WGMMA_SS_PAIRS(N_STR, D_LIST, D_OPERANDS, IA, IB, IS)        \
  if constexpr (kAIsE4m3 && kBIsE4m3) {                                           \
    FP8GEMM_SM90_WGMMA_SS(N_STR, "e4m3", "e4m3", D_LIST, D_OPERANDS, IA, IB, IS); \
  } else if constexpr (kAIsE4m3) {                                                \
    FP8GEMM_SM90_WGMMA_SS(N_STR, "e4m3", "e5m2", D_LIST, D_OPERANDS, IA, IB, IS); \
  } else if constexpr (kBIsE4m3) {                                                \
    FP8GEMM_SM90_WGMMA_SS(N_STR, "e5m2", "e4m3", D_LIST, D_OPERANDS, IA, IB, IS); \
  } else {                                                                        \
    FP8GEMM_SM90_WGMMA_SS(N_STR, "e5m2", "e5m2", D_LIST, D_OPERANDS, IA, IB, IS); \
  }

/// wgmma.mma_async.sync.aligned.m64nNk32.f32.EA.EB, SS: D[64 x N] f32 (+)= A[64 x 32] · B[32 x N]
/// for one warpgroup (128 threads, warps 4j .. 4j+3), A and B K-major in shared memory
/// (Sm90SmemDescriptor; B stored N x K). Asynchronous: wgmma_fence() before, then
/// wgmma_commit_group() and wgmma_wait_group<>() before the accumulators are read.
/// Accumulator map (PTX ISA, "Register Fragments and Shared Memory Matrix Layouts" for m64nNk*,
/// f32 D): register i of thread t, warp w = (t % 128) / 32, lane l = t % 32:
///   row = 16 w + l / 4 + 8 · ((i / 2) % 2),   column = 8 · (i / 4) + 2 · (l % 4) + i % 2.
/// The wgmma N values Sm90Wgmma64xNx32 has operand lists for (the mainloop picks its promotion
/// chunks among them).
FP8GEMM_HOST_DEVICE constexpr bool sm90_wgmma_has_n(int n) {
  return n == 8 || n == 16 || n == 32 || n == 64 || n == 72 || n == 80 || n == 88 || n == 96 ||
         n == 104 || n == 112 || n == 128 || n == 144 || n == 160 || n == 176 || n == 192 ||
         n == 256;
}

template <int N, class EA, class EB>
struct Sm90Wgmma64xNx32 {
  static_assert((std::is_same_v<EA, e4m3fn> ||
                 std::is_same_v<EA, e5m2>)&&(std::is_same_v<EB, e4m3fn> ||
                                             std::is_same_v<EB, e5m2>),
                "FP8 wgmma takes OCP e4m3fn or e5m2 operands");
  static_assert(
      sm90_wgmma_has_n(N),
      "Sm90Wgmma64xNx32 is instantiated for N = 8, 16, 32, 64, 72, 80, 88, 96, 104, 112, 128, "
      "144, 160, 176, 192, 256 (add the operand list for other multiples of 8 up to 256)");
  using Arch = Sm90a;
  using ElementA = EA;
  using ElementB = EB;
  static constexpr char const* kName = "sm90a_wgmma64xNx32";
  static constexpr int kM = 64, kN = N, kK = 32;
  static constexpr int kThreads = 128;          // one warpgroup
  static constexpr int kAccumulators = N / 2;   // FP32 registers per thread (64·N / 128)
  static constexpr int kKStepBytes = kK;        // descriptor advance per k-step (1-byte elements)
  static constexpr int kCRegs = kAccumulators;  // the epilogue's name for it
  /// Registers 2q and 2q + 1 hold columns c and c + 1 (c even) of one row: stored as a pair.
  static constexpr bool kCAdjacentPairs = true;
  /// Promote into FP32 registers every 128 K by default (FastAccumulation turns it off).
  static constexpr int kDefaultPromoteK = 128;
  /// Relative truncation of the tensor core's accumulation (tests/common/tolerance.hpp's u):
  /// 2^-13. Measured on the H200 (wgmma_first_light_gpu_test, all four format pairs):
  /// per k-step the 32 products and D are cut toward zero 13 bits below the largest operand
  /// exponent, and the sum to 14 significant bits; a term 2^-14 below the largest is lost, in the
  /// same wgmma or across k-steps (tests/common/sm90_accumulation_model.hpp reproduces it bit for
  /// bit). So fast accumulation over long K loses bits; promotion every 128 K bounds the loss.
  static constexpr double kAccumulatorUnitRoundoff = 1.0 / (1 << 13);

  FP8GEMM_HOST_DEVICE static constexpr int acc_row(int thread, int i) {
    return 16 * ((thread % 128) / 32) + (thread % 32) / 4 + 8 * ((i / 2) % 2);
  }
  FP8GEMM_HOST_DEVICE static constexpr int acc_col(int thread, int i) {
    return 8 * (i / 4) + 2 * (thread % 4) + i % 2;
  }

  /// d = A·B (accumulate == false) or d += A·B. Issued by all 128 threads of the warpgroup with
  /// the same descriptors.
  FP8GEMM_DEVICE static void mma(float (&d)[kAccumulators], std::uint64_t desc_a,
                                 std::uint64_t desc_b, bool accumulate) {
#if defined(FP8GEMM_ARCH_SM90A)
    constexpr bool kAIsE4m3 = std::is_same_v<EA, e4m3fn>;
    constexpr bool kBIsE4m3 = std::is_same_v<EB, e4m3fn>;
    std::uint32_t const scale_d = accumulate ? 1u : 0u;
    if constexpr (N == 8) {
      FP8GEMM_SM90_WGMMA_SS_PAIRS("8", FP8GEMM_SM90_WGMMA_D4_LIST, FP8GEMM_SM90_WGMMA_D4_OPERANDS,
                                  "4", "5", "6")
    } else if constexpr (N == 16) {
      FP8GEMM_SM90_WGMMA_SS_PAIRS("16", FP8GEMM_SM90_WGMMA_D8_LIST, FP8GEMM_SM90_WGMMA_D8_OPERANDS,
                                  "8", "9", "10")
    } else if constexpr (N == 32) {
      FP8GEMM_SM90_WGMMA_SS_PAIRS("32", FP8GEMM_SM90_WGMMA_D16_LIST,
                                  FP8GEMM_SM90_WGMMA_D16_OPERANDS, "16", "17", "18")
    } else if constexpr (N == 64) {
      FP8GEMM_SM90_WGMMA_SS_PAIRS("64", FP8GEMM_SM90_WGMMA_D32_LIST,
                                  FP8GEMM_SM90_WGMMA_D32_OPERANDS, "32", "33", "34")
    } else if constexpr (N == 72) {
      FP8GEMM_SM90_WGMMA_SS_PAIRS("72", FP8GEMM_SM90_WGMMA_D36_LIST,
                                  FP8GEMM_SM90_WGMMA_D36_OPERANDS, "36", "37", "38")
    } else if constexpr (N == 80) {
      FP8GEMM_SM90_WGMMA_SS_PAIRS("80", FP8GEMM_SM90_WGMMA_D40_LIST,
                                  FP8GEMM_SM90_WGMMA_D40_OPERANDS, "40", "41", "42")
    } else if constexpr (N == 88) {
      FP8GEMM_SM90_WGMMA_SS_PAIRS("88", FP8GEMM_SM90_WGMMA_D44_LIST,
                                  FP8GEMM_SM90_WGMMA_D44_OPERANDS, "44", "45", "46")
    } else if constexpr (N == 96) {
      FP8GEMM_SM90_WGMMA_SS_PAIRS("96", FP8GEMM_SM90_WGMMA_D48_LIST,
                                  FP8GEMM_SM90_WGMMA_D48_OPERANDS, "48", "49", "50")
    } else if constexpr (N == 104) {
      FP8GEMM_SM90_WGMMA_SS_PAIRS("104", FP8GEMM_SM90_WGMMA_D52_LIST,
                                  FP8GEMM_SM90_WGMMA_D52_OPERANDS, "52", "53", "54")
    } else if constexpr (N == 112) {
      FP8GEMM_SM90_WGMMA_SS_PAIRS("112", FP8GEMM_SM90_WGMMA_D56_LIST,
                                  FP8GEMM_SM90_WGMMA_D56_OPERANDS, "56", "57", "58")
    } else if constexpr (N == 128) {
      FP8GEMM_SM90_WGMMA_SS_PAIRS("128", FP8GEMM_SM90_WGMMA_D64_LIST,
                                  FP8GEMM_SM90_WGMMA_D64_OPERANDS, "64", "65", "66")
    } else if constexpr (N == 144) {
      FP8GEMM_SM90_WGMMA_SS_PAIRS("144", FP8GEMM_SM90_WGMMA_D72_LIST,
                                  FP8GEMM_SM90_WGMMA_D72_OPERANDS, "72", "73", "74")
    } else if constexpr (N == 160) {
      FP8GEMM_SM90_WGMMA_SS_PAIRS("160", FP8GEMM_SM90_WGMMA_D80_LIST,
                                  FP8GEMM_SM90_WGMMA_D80_OPERANDS, "80", "81", "82")
    } else if constexpr (N == 176) {
      FP8GEMM_SM90_WGMMA_SS_PAIRS("176", FP8GEMM_SM90_WGMMA_D88_LIST,
                                  FP8GEMM_SM90_WGMMA_D88_OPERANDS, "88", "89", "90")
    } else if constexpr (N == 192) {
      FP8GEMM_SM90_WGMMA_SS_PAIRS("192", FP8GEMM_SM90_WGMMA_D96_LIST,
                                  FP8GEMM_SM90_WGMMA_D96_OPERANDS, "96", "97", "98")
    } else {
      FP8GEMM_SM90_WGMMA_SS_PAIRS("256", FP8GEMM_SM90_WGMMA_D128_LIST,
                                  FP8GEMM_SM90_WGMMA_D128_OPERANDS, "128", "129", "130")
    }
#elif defined(FP8GEMM_DEVICE_PASS)
    (void)d, (void)desc_a, (void)desc_b, (void)accumulate;
    FP8GEMM_DEVICE_TRAP();  // not an sm_90a device pass: FP8 wgmma does not exist here
#else
    (void)d, (void)desc_a, (void)desc_b, (void)accumulate;
#endif
  }
};

#undef FP8GEMM_SM90_WGMMA_SS_PAIRS
#undef FP8GEMM_SM90_WGMMA_SS
#undef FP8GEMM_SM90_WGMMA_D4_LIST
#undef FP8GEMM_SM90_WGMMA_D8_LIST
#undef FP8GEMM_SM90_WGMMA_D16_LIST
#undef FP8GEMM_SM90_WGMMA_D32_LIST
#undef FP8GEMM_SM90_WGMMA_D36_LIST
#undef FP8GEMM_SM90_WGMMA_D40_LIST
#undef FP8GEMM_SM90_WGMMA_D44_LIST
#undef FP8GEMM_SM90_WGMMA_D48_LIST
#undef FP8GEMM_SM90_WGMMA_D52_LIST
#undef FP8GEMM_SM90_WGMMA_D56_LIST
#undef FP8GEMM_SM90_WGMMA_D64_LIST
#undef FP8GEMM_SM90_WGMMA_D72_LIST
#undef FP8GEMM_SM90_WGMMA_D80_LIST
#undef FP8GEMM_SM90_WGMMA_D88_LIST
#undef FP8GEMM_SM90_WGMMA_D96_LIST
#undef FP8GEMM_SM90_WGMMA_D128_LIST
#undef FP8GEMM_SM90_WGMMA_D4_OPERANDS
#undef FP8GEMM_SM90_WGMMA_D8_OPERANDS
#undef FP8GEMM_SM90_WGMMA_D16_OPERANDS
#undef FP8GEMM_SM90_WGMMA_D32_OPERANDS
#undef FP8GEMM_SM90_WGMMA_D36_OPERANDS
#undef FP8GEMM_SM90_WGMMA_D40_OPERANDS
#undef FP8GEMM_SM90_WGMMA_D44_OPERANDS
#undef FP8GEMM_SM90_WGMMA_D48_OPERANDS
#undef FP8GEMM_SM90_WGMMA_D52_OPERANDS
#undef FP8GEMM_SM90_WGMMA_D56_OPERANDS
#undef FP8GEMM_SM90_WGMMA_D64_OPERANDS
#undef FP8GEMM_SM90_WGMMA_D72_OPERANDS
#undef FP8GEMM_SM90_WGMMA_D80_OPERANDS
#undef FP8GEMM_SM90_WGMMA_D88_OPERANDS
#undef FP8GEMM_SM90_WGMMA_D96_OPERANDS
#undef FP8GEMM_SM90_WGMMA_D128_OPERANDS

}  // namespace fp8gemm::arch
