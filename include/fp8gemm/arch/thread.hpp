// SPDX-License-Identifier: MIT
/// The thin arch layer the mainloop and epilogue are written against: thread/block indices,
/// barriers, LDS and global memory accesses, atomics. On a GPU these are the hardware's; in a
/// host build with the emulator enabled (FP8GEMM_EMULATOR, target fp8gemm::emulator) they are the
/// host emulator's (arch/emu), so the same kernel source runs on the CPU; in a plain host build
/// they are inert (kernels are never launched there).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "fp8gemm/config.hpp"
#include "fp8gemm/numeric/half.hpp"

#if defined(FP8GEMM_EMULATOR)
#include "fp8gemm/arch/emu/lds_bank_model.hpp"
#include "fp8gemm/arch/emu/runtime.hpp"
#endif

namespace fp8gemm::arch {

/// `Bytes` bytes moved as one access (ld.shared.v4 / ds_read_b128 for 16).
template <int Bytes>
struct alignas(Bytes) Vec {
  static_assert(Bytes == 1 || Bytes == 2 || Bytes == 4 || Bytes == 8 || Bytes == 16,
                "LDS/global vectors are 1, 2, 4, 8 or 16 bytes");
  std::uint8_t b[Bytes];
};
template <>
struct alignas(4) Vec<4> {
  std::uint32_t w[1];
};
template <>
struct alignas(8) Vec<8> {
  std::uint32_t w[2];
};
template <>
struct alignas(16) Vec<16> {
  std::uint32_t w[4];
};

/// x is a normal FP32 number (not 0, subnormal, infinite or NaN). AMD device code: one
/// v_cmp_class_f32. Elsewhere: its exponent field is in [1, 254], i.e. |x|'s bits - 0x00800000
/// (FLT_MIN) is below 0x7f000000 (FLT_MAX's bits + 1 - FLT_MIN's) as unsigned numbers; 0 and
/// subnormals wrap around. Three integer operations.
FP8GEMM_HOST_DEVICE bool is_normal_fp32(float x) {
#if defined(FP8GEMM_DEVICE_PASS) && defined(__HIP_PLATFORM_AMD__)
  return __builtin_isnormal(x);
#else
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return (bits & 0x7fffffffu) - 0x00800000u < 0x7f000000u;
#endif
}

FP8GEMM_DEVICE int thread_idx() {
#if defined(FP8GEMM_DEVICE_PASS)
  return static_cast<int>(threadIdx.x);
#elif defined(FP8GEMM_EMULATOR)
  return emu::thread_idx();
#else
  return 0;  // host pass of a GPU build: device code is never executed here
#endif
}

FP8GEMM_DEVICE int block_idx_x() {
#if defined(FP8GEMM_DEVICE_PASS)
  return static_cast<int>(blockIdx.x);
#elif defined(FP8GEMM_EMULATOR)
  return emu::block_idx().x;
#else
  return 0;
#endif
}

FP8GEMM_DEVICE int block_idx_y() {
#if defined(FP8GEMM_DEVICE_PASS)
  return static_cast<int>(blockIdx.y);
#elif defined(FP8GEMM_EMULATOR)
  return emu::block_idx().y;
#else
  return 0;
#endif
}

/// Workgroup barrier (__syncthreads / s_barrier). Orders LDS accesses of all threads of the block.
FP8GEMM_DEVICE void sync_block() {
#if defined(FP8GEMM_DEVICE_PASS)
  __syncthreads();
#elif defined(FP8GEMM_EMULATOR)
  emu::sync_threads();
#endif
}

/// LDS read of `Bytes` bytes at `lds + offset` into `dst` (ds_read_b<8*Bytes> / ld.shared).
template <int Bytes>
FP8GEMM_DEVICE void lds_load(Vec<Bytes>& dst, std::uint8_t const* lds, std::uint32_t offset) {
  dst = *reinterpret_cast<Vec<Bytes> const*>(lds + offset);
#if defined(FP8GEMM_EMULATOR)
  emu::lds_access(lds + offset, Bytes, /*is_write=*/false);
#endif
}

/// LDS write of `Bytes` bytes at `lds + offset`.
template <int Bytes>
FP8GEMM_DEVICE void lds_store(std::uint8_t* lds, std::uint32_t offset, Vec<Bytes> const& src) {
  *reinterpret_cast<Vec<Bytes>*>(lds + offset) = src;
#if defined(FP8GEMM_EMULATOR)
  emu::lds_access(lds + offset, Bytes, /*is_write=*/true);
#endif
}

/// Asynchronous 16-byte global -> LDS copy: the first `valid` (0..16) bytes at `src`, zeros after;
/// nothing past `valid` is read. Lands at the async_copy_wait that covers its commit group.
/// sm_80+: cp.async.cg with a source size (the hardware zero-fills); the host emulator queues it
/// per thread until that wait (emu::async_copy); other GPUs copy at once. src and lds + offset
/// must be 16-byte aligned.
FP8GEMM_DEVICE void copy_global_to_lds16(std::uint8_t* lds, std::uint32_t offset, void const* src,
                                         int valid) {
#if defined(FP8GEMM_ARCH_SM80_PLUS)
  auto const dst = static_cast<unsigned>(__cvta_generic_to_shared(lds + offset));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(valid));
#elif defined(FP8GEMM_EMULATOR)
  emu::async_copy(lds + offset, src, 16, valid);
  emu::lds_access(lds + offset, 16, /*is_write=*/true);
#else
  Vec<16> v{};
  auto const* bytes = static_cast<std::uint8_t const*>(src);
  FP8GEMM_UNROLL
  for (int j = 0; j < 16; ++j)
    if (j < valid) v.w[j / 4] |= std::uint32_t(bytes[j]) << (8 * (j % 4));
  lds_store<16>(lds, offset, v);
#endif
}

/// Closes the group of async copies issued since the last commit (cp.async.commit_group).
FP8GEMM_DEVICE void async_copy_commit() {
#if defined(FP8GEMM_ARCH_SM80_PLUS)
  asm volatile("cp.async.commit_group;\n" ::);
#elif defined(FP8GEMM_EMULATOR)
  emu::async_commit();
#endif
}

/// Waits until at most `kPending` of this thread's committed copy groups are still in flight
/// (cp.async.wait_group). Other threads' copies need a barrier after it.
template <int kPending>
FP8GEMM_DEVICE void async_copy_wait() {
#if defined(FP8GEMM_ARCH_SM80_PLUS)
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
#elif defined(FP8GEMM_EMULATOR)
  emu::async_wait(kPending);
#endif
}

/// 16-byte global load (global_load_dwordx4 / ld.global.v4); `p` must be 16-byte aligned.
FP8GEMM_DEVICE Vec<16> global_load16(void const* p) {
  return *static_cast<Vec<16> const*>(p);
}

/// Atomic max of a non-negative float (the output amax). Non-negative IEEE floats order like
/// their bit patterns as signed integers, so an integer atomic max is exact.
FP8GEMM_DEVICE void atomic_max_nonnegative(float* addr, float value) {
  int bits;
  std::memcpy(&bits, &value, sizeof bits);
#if defined(FP8GEMM_DEVICE_PASS)
  atomicMax(reinterpret_cast<int*>(addr), bits);
#elif defined(FP8GEMM_EMULATOR)
  int* word = reinterpret_cast<int*>(addr);
  int seen = __atomic_load_n(word, __ATOMIC_RELAXED);
  while (seen < bits && !__atomic_compare_exchange_n(word, &seen, bits, true, __ATOMIC_RELAXED,
                                                     __ATOMIC_RELAXED)) {
  }
#else
  (void)addr;
  (void)bits;
#endif
}

/// x / (1 + 2^t), the logistic function's form of the epilogue's GELU-tanh (t carries the
/// functor's -2 log2(e) factor). Device code takes the hardware's approximations as they are,
/// one MUFU op each and nothing around them (docs/performance.md#gelu-tanh-mufu):
///   NVIDIA (nvcc, or HIP on NVIDIA: any __CUDA_ARCH__ pass): ex2.approx.ftz.f32,
///     rcp.approx.ftz.f32 and a multiply. 2^t past FP32's range is inf,
///     whose reciprocal is 0: y = ±0, as x / inf is; below 2^-126 it flushes to 0: y = x, as
///     x / (1 + 2^-127) rounds; 1 + 2^t past 2^126 has a subnormal reciprocal, flushed: y = ±0,
///     where x / (1 + 2^t) is below 2^-126 |x|. Their errors, measured on every FP32 input
///     that matters on the H200, are pinned by tests/gpu/wgmma_first_light_gpu_test.cu.
///   AMD: exp2f and __fdividef, as the HIP headers define them (with this project's flags, no
///     fast math, a correctly rounded division and exp2f's denormal handling; not measured on
///     hardware, the emulator runs the host formula).
/// On the host (and the emulator): exp2 and a division.
FP8GEMM_HOST_DEVICE float div_one_plus_exp2(float x, float t) {
#if defined(__CUDA_ARCH__)
  float e, r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(t));
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(1.0f + e));
  return x * r;
#elif defined(FP8GEMM_DEVICE_PASS)
  return __fdividef(x, 1.0f + exp2f(t));
#else
  return x / (1.0f + std::exp2(t));
#endif
}

/// float -> fp16, round to nearest even: v_cvt_f16_f32 in an AMD device pass (rounding from the
/// mode register, nearest even in every kernel; fp16 subnormals kept), the library's software
/// rounding elsewhere. The same bits except NaN payloads. In software it is about 25 instructions
/// per element, enough to make clang give up unrolling an epilogue of 128 GELU-erf outputs per
/// thread, which then put the accumulators in scratch memory.
FP8GEMM_HOST_DEVICE fp16 to_fp16(float x) {
#if defined(FP8GEMM_DEVICE_PASS) && defined(__HIP_PLATFORM_AMD__)
  return fp16::from_bits(__builtin_bit_cast(std::uint16_t, static_cast<_Float16>(x)));
#else
  return float_to_fp16(x);
#endif
}

/// Two floats as one 32-bit word of two bf16 / fp16 (lo in the low half), round to nearest even:
/// one cvt.rn.{bf16x2,f16x2}.f32 on NVIDIA; to_fp16 and the library's software bf16 rounding
/// elsewhere, which give the same bits except NaN payloads (the instruction returns the canonical
/// NaN).
template <class Half>
FP8GEMM_DEVICE std::uint32_t pack_half2(float lo, float hi) {
  static_assert(std::is_same_v<Half, bf16> || std::is_same_v<Half, fp16>, "bf16 or fp16");
#if defined(FP8GEMM_DEVICE_PASS) && defined(FP8GEMM_BACKEND_CUDA) && defined(FP8GEMM_ARCH_SM80_PLUS)
  std::uint32_t out;
  if constexpr (std::is_same_v<Half, bf16>)
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(out) : "f"(hi), "f"(lo));
  else
    asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(out) : "f"(hi), "f"(lo));
  return out;
#else
  if constexpr (std::is_same_v<Half, bf16>)
    return std::uint32_t(float_to_bf16(lo).bits) | (std::uint32_t(float_to_bf16(hi).bits) << 16);
  else
    return std::uint32_t(to_fp16(lo).bits) | (std::uint32_t(to_fp16(hi).bits) << 16);
#endif
}

}  // namespace fp8gemm::arch
