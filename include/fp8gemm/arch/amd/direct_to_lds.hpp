// SPDX-License-Identifier: MIT
/// CDNA direct-to-LDS loads and the scheduling controls a ping-pong main loop needs (arch layer):
/// buffer_load_dwordx4 ... lds through a raw buffer resource whose range zero-fills everything
/// past it, counted waits (s_waitcnt vmcnt / lgkmcnt), a workgroup barrier without memory fences,
/// wave priority (s_setprio) and a scheduling fence (sched_barrier); for the Blockwise promotion a
/// wave vote and a fused multiply-add on float pairs. On the host emulator the loads are queued per
/// thread and land at the wait that covers them; priorities and scheduling fences do nothing there,
/// and the vote is a wave collective.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "fp8gemm/arch/thread.hpp"

namespace fp8gemm::arch {

/// Bytes one lane moves with one direct-to-LDS load on Arch (0: none): detected from
/// Arch::kDirectToLdsBytes (gfx950 16, gfx942 4).
template <class Arch, class = void>
struct direct_to_lds_bytes {
  static constexpr int value = 0;
};
template <class Arch>
struct direct_to_lds_bytes<Arch, std::void_t<decltype(Arch::kDirectToLdsBytes)>> {
  static constexpr int value = Arch::kDirectToLdsBytes;
};

/// A raw (stride 0) buffer: `num_records` bytes from `base`. A load at byte offset o (the VGPR
/// offset plus the instruction's immediate) reads 4-byte component j only when o + 4j + 4 <=
/// num_records; the rest arrives as zero (CDNA3 ISA 9.1.8; arch/emu/runtime.hpp vmem_load_lds).
struct BufferRange {
  std::uint8_t const* base = nullptr;
  std::uint32_t num_records = 0;
};

/// Word 3 of a gfx9 buffer resource: DATA_FORMAT (bits 18:15) = 4 (32 bits), every other field
/// 0. Untyped loads ignore the format but need it to be valid (CDNA3 ISA, buffer resource table).
inline constexpr int kBufferResourceWord3 = 0x00020000;

/// The calling wave's index in the workgroup as a wave-uniform (scalar) value: direct-to-LDS loads
/// take their LDS address from M0, which needs it uniform.
FP8GEMM_DEVICE int wave_index_uniform(int wave_size) {
#if defined(FP8GEMM_DEVICE_PASS) && defined(__HIP_PLATFORM_AMD__)
  return __builtin_amdgcn_readfirstlane(static_cast<int>(threadIdx.x) / wave_size);
#else
  return thread_idx() / wave_size;
#endif
}

/// True when `pred` holds on every active lane of the calling wave (its ballot equals EXEC: a
/// scalar result), so a choice made from it is wave-uniform. Every
/// lane of the wave must call it (on the emulator it is a wave collective).
FP8GEMM_DEVICE bool wave_all(bool pred) {
#if defined(FP8GEMM_DEVICE_PASS) && defined(__HIP_PLATFORM_AMD__)
  std::uint64_t holding = __builtin_amdgcn_ballot_w64(pred);
  // NOTE: an opaque copy, so the test stays a scalar compare of the ballot with EXEC (s_cmp, a
  // branch on scc): clang otherwise turns it into a branch on the lane mask itself (vccz).
  asm volatile("" : "+s"(holding));
  return holding == __builtin_amdgcn_read_exec();
#elif defined(FP8GEMM_EMULATOR)
  struct Vote {
    bool pred;
    bool all;
  } vote{pred, false};
  emu::wave_collective(&vote, [](void** slots) {
    int const lanes = emu::wave_lanes();
    bool all = true;
    for (int l = 0; l < lanes; ++l) all = all && static_cast<Vote*>(slots[l])->pred;
    for (int l = 0; l < lanes; ++l) static_cast<Vote*>(slots[l])->all = all;
  });
  return vote.all;
#else
  return pred;
#endif
}

/// Two floats in one 64-bit register pair (v_pk_* operands). nvcc (which compiles these headers
/// without ever running them on NVIDIA) has no vector types in device code: an equivalent struct.
#if !defined(__CUDACC__) || defined(__HIP_PLATFORM_AMD__)
using FloatPair = float __attribute__((vector_size(8)));
#else
struct FloatPair {
  float v[2];
  FP8GEMM_HOST_DEVICE float& operator[](int i) { return v[i]; }
  FP8GEMM_HOST_DEVICE float operator[](int i) const { return v[i]; }
  FP8GEMM_HOST_DEVICE friend FloatPair operator+(FloatPair a, FloatPair b) {
    return {{a.v[0] + b.v[0], a.v[1] + b.v[1]}};
  }
  FP8GEMM_HOST_DEVICE friend FloatPair operator*(FloatPair a, FloatPair b) {
    return {{a.v[0] * b.v[0], a.v[1] * b.v[1]}};
  }
  FP8GEMM_HOST_DEVICE FloatPair& operator+=(FloatPair b) { return *this = *this + b; }
};
#endif
/// a · b + c per element with one rounding (v_pk_fma_f32 on CDNA; std::fma per element on the
/// host), never a rounded product then an add, whatever the compiler's contraction setting.
FP8GEMM_DEVICE FloatPair fma_pair(FloatPair a, FloatPair b, FloatPair c) {
#if defined(FP8GEMM_DEVICE_PASS) && defined(__HIP_PLATFORM_AMD__)
  return __builtin_elementwise_fma(a, b, c);
#else
  FloatPair r;
  r[0] = std::fma(a[0], b[0], c[0]);
  r[1] = std::fma(a[1], b[1], c[1]);
  return r;
#endif
}

/// One lane's kBytes (Arch::kDirectToLdsBytes: 16 on gfx950, buffer_load_dwordx4 ... lds; 4 on
/// gfx942, buffer_load_dword ... lds) at r.base + soffset + voffset into lds_wave + kBytes * lane
/// (lds_wave: the wave's 64 * kBytes destination, uniform; soffset uniform). The range check
/// applies to voffset only (soffset is excluded from it): 4-byte component j is read when
/// voffset + 4j + 4 <= r.num_records, else it arrives as zero. Lands at a wait_vmcnt that covers
/// it.
template <int kBytes>
FP8GEMM_DEVICE void buffer_load_lds(BufferRange const& r, std::uint8_t* lds_wave,
                                    std::uint32_t voffset, std::uint32_t soffset) {
  static_assert(kBytes == 4 || kBytes == 16, "direct-to-LDS loads move 4 (gfx942) or 16 bytes");
#if defined(FP8GEMM_ARCH_GFX950) || defined(FP8GEMM_ARCH_GFX942)
  __amdgpu_buffer_rsrc_t const rsrc = __builtin_amdgcn_make_buffer_rsrc(
      const_cast<std::uint8_t*>(r.base), 0, static_cast<int>(r.num_records), kBufferResourceWord3);
  using LdsVoid = __attribute__((address_space(3))) void*;
  // NOTE: the size operand is a literal per branch: clang checks it against the target's sizes
  // even where the template argument rules the branch out.
  if constexpr (kBytes == 4) {
    __builtin_amdgcn_raw_ptr_buffer_load_lds(rsrc, (LdsVoid)(lds_wave), 4,  // generic -> LDS
                                             static_cast<int>(voffset), static_cast<int>(soffset),
                                             0, 0);
  } else {
#if defined(FP8GEMM_ARCH_GFX950)
    __builtin_amdgcn_raw_ptr_buffer_load_lds(
        rsrc, (LdsVoid)(lds_wave), 16, static_cast<int>(voffset), static_cast<int>(soffset), 0, 0);
#else
    (void)rsrc;
    FP8GEMM_DEVICE_TRAP();  // gfx942 loads 4 bytes per lane: its mainloop never calls this
#endif
  }
#elif defined(FP8GEMM_EMULATOR)
  emu::vmem_load_lds(lds_wave, r.base + soffset, voffset, r.num_records, kBytes);
  emu::lds_access(lds_wave + kBytes * emu::lane_id(), kBytes, /*is_write=*/true);
#elif defined(FP8GEMM_DEVICE_PASS)
  (void)r, (void)lds_wave, (void)voffset, (void)soffset;
  FP8GEMM_DEVICE_TRAP();  // not CDNA: the mainloop that calls it is chosen for gfx942/gfx950 only
#else
  (void)r, (void)lds_wave, (void)voffset, (void)soffset;
#endif
}
FP8GEMM_DEVICE void buffer_load_lds16(BufferRange const& r, std::uint8_t* lds_wave,
                                      std::uint32_t voffset, std::uint32_t soffset) {
  buffer_load_lds<16>(r, lds_wave, voffset, soffset);
}

/// How the buffer-load mainloop's tiles reach LDS: straight from memory (DirectToLds: buffer_load
/// ... lds) or through registers (ThroughRegisters: buffer_load_dwordx4 into VGPRs, ds_write_b128
/// a K tile later). DefaultTileLoad<Arch>: 16-byte direct loads where the arch has them (gfx950);
/// on gfx942, whose direct loads move 4 bytes per lane, registers (the comparison:
/// docs/isa_report.md, "gfx942: direct-to-LDS or registers").
struct DirectToLds {};
struct ThroughRegisters {};
template <class Arch>
using DefaultTileLoad =
    std::conditional_t<direct_to_lds_bytes<Arch>::value == 16, DirectToLds, ThroughRegisters>;

/// One lane's 16 bytes at r.base + soffset + voffset into registers (buffer_load_dwordx4), with
/// the range check of buffer_load_lds: 4-byte component j is read when voffset + 4j + 4 <=
/// r.num_records, else it is zero. The compiler waits for the registers where they are used.
FP8GEMM_DEVICE Vec<16> buffer_load16(BufferRange const& r, std::uint32_t voffset,
                                     std::uint32_t soffset) {
  Vec<16> v{};
#if defined(FP8GEMM_ARCH_GFX950) || defined(FP8GEMM_ARCH_GFX942)
  __amdgpu_buffer_rsrc_t const rsrc = __builtin_amdgcn_make_buffer_rsrc(
      const_cast<std::uint8_t*>(r.base), 0, static_cast<int>(r.num_records), kBufferResourceWord3);
  auto const d = __builtin_amdgcn_raw_buffer_load_b128(rsrc, static_cast<int>(voffset),
                                                       static_cast<int>(soffset), 0);
  v.w[0] = d[0], v.w[1] = d[1], v.w[2] = d[2], v.w[3] = d[3];
#elif defined(FP8GEMM_EMULATOR)
  for (int j = 0; j < 4; ++j) {
    std::uint64_t const first = std::uint64_t{voffset} + 4u * static_cast<unsigned>(j);
    if (first + 4 <= r.num_records) std::memcpy(&v.w[j], r.base + soffset + first, 4);
  }
#else
  (void)r, (void)voffset, (void)soffset;
#endif
  return v;
}

/// buffer_load16 taking its place in the emulator's vmcnt queue (as buffer_load_u8), so that a
/// counted wait behind it lands the direct-to-LDS loads issued before it, as on the GPU.
FP8GEMM_DEVICE Vec<16> buffer_load16_counted(BufferRange const& r, std::uint32_t voffset,
                                             std::uint32_t soffset) {
#if defined(FP8GEMM_EMULATOR) && !defined(FP8GEMM_DEVICE_PASS)
  emu::vmem_load_register();
#endif
  return buffer_load16(r, voffset, soffset);
}

/// One lane's 4 bytes at r.base + soffset + voffset into lds_wave + 4 * lane (buffer_load_dword
/// ... lds, gfx942 and gfx950): buffer_load_lds<4>, zero when voffset + 4 > r.num_records.
FP8GEMM_DEVICE void buffer_load_lds4(BufferRange const& r, std::uint8_t* lds_wave,
                                     std::uint32_t voffset, std::uint32_t soffset) {
  buffer_load_lds<4>(r, lds_wave, voffset, soffset);
}

/// One lane's byte at r.base + soffset + voffset into a register (buffer_load_ubyte), zero when
/// voffset >= r.num_records (soffset uniform, outside the range check). It counts in vmcnt like the
/// direct-to-LDS loads; the compiler waits for its value before the first use.
FP8GEMM_DEVICE std::uint32_t buffer_load_u8(BufferRange const& r, std::uint32_t voffset,
                                            std::uint32_t soffset) {
#if defined(FP8GEMM_ARCH_GFX950)
  __amdgpu_buffer_rsrc_t const rsrc = __builtin_amdgcn_make_buffer_rsrc(
      const_cast<std::uint8_t*>(r.base), 0, static_cast<int>(r.num_records), kBufferResourceWord3);
  return __builtin_amdgcn_raw_buffer_load_b8(rsrc, static_cast<int>(voffset),
                                             static_cast<int>(soffset), 0);
#elif defined(FP8GEMM_EMULATOR)
  emu::vmem_load_register();
  return voffset < r.num_records ? r.base[soffset + voffset] : 0u;
#else
  (void)r, (void)voffset, (void)soffset;
  return 0;
#endif
}

/// An LDS byte address as the LDS instructions take it: 32 bits on the GPU; a host pointer on the
/// emulator (and in host passes).
#if defined(FP8GEMM_DEVICE_PASS) && defined(__HIP_PLATFORM_AMD__)
using LdsAddress = std::uint32_t;
#else
using LdsAddress = std::uintptr_t;
#endif
FP8GEMM_DEVICE LdsAddress lds_address(std::uint8_t const* p) {
#if defined(FP8GEMM_DEVICE_PASS) && defined(__HIP_PLATFORM_AMD__)
  using LdsBytes = __attribute__((address_space(3))) std::uint8_t const*;
  return static_cast<LdsAddress>(reinterpret_cast<std::uintptr_t>((LdsBytes)(p)));
#else
  return reinterpret_cast<LdsAddress>(p);
#endif
}

/// ds_read_b128 of address + kImm (kImm: the instruction's 16-bit immediate) whose completion the
/// compiler does not track: the caller waits with wait_lgkmcnt. NOTE: written as inline asm
/// because clang cannot tell these reads from the in-flight direct-to-LDS loads and puts an
/// s_waitcnt vmcnt(0) in front of each (SIInsertWaitcnts, without alias scopes on the accesses);
/// the schedule's counted waits (mainloop/buffer_lds_pingpong_schedule.hpp) order them instead.
template <int kImm>
FP8GEMM_DEVICE void lds_read16_counted(Vec<16>& dst, LdsAddress address) {
  static_assert(kImm >= 0 && kImm < 65536, "ds_read offset is a 16-bit immediate");
#if defined(FP8GEMM_ARCH_GFX950) || defined(FP8GEMM_ARCH_GFX942)
  using U32x4 = __attribute__((ext_vector_type(4))) unsigned;
  U32x4 v;
  asm volatile("ds_read_b128 %0, %1 offset:%2" : "=v"(v) : "v"(address), "i"(kImm));
  dst.w[0] = v[0], dst.w[1] = v[1], dst.w[2] = v[2], dst.w[3] = v[3];
#elif defined(FP8GEMM_DEVICE_PASS)
  (void)dst, (void)address;          // not reached: other targets never run this mainloop
#else
  lds_load<16>(dst, reinterpret_cast<std::uint8_t const*>(address), kImm);
#endif
}

/// The same for 4 bytes (ds_read_b32).
template <int kImm>
FP8GEMM_DEVICE void lds_read4_counted(Vec<4>& dst, LdsAddress address) {
  static_assert(kImm >= 0 && kImm < 65536, "ds_read offset is a 16-bit immediate");
#if defined(FP8GEMM_ARCH_GFX950) || defined(FP8GEMM_ARCH_GFX942)
  unsigned v;
  asm volatile("ds_read_b32 %0, %1 offset:%2" : "=v"(v) : "v"(address), "i"(kImm));
  dst.w[0] = v;
#elif defined(FP8GEMM_DEVICE_PASS)
  (void)dst, (void)address;          // not reached: other targets never run this mainloop
#else
  lds_load<4>(dst, reinterpret_cast<std::uint8_t const*>(address), kImm);
#endif
}

/// ds_write_b128 of v to lds + offset that the compiler does not see as an LDS access: the caller
/// waits for it with wait_lgkmcnt. NOTE: clang cannot tell a ds_write from the in-flight
/// direct-to-LDS loads either and puts an s_waitcnt vmcnt(0) in front of the first one after them
/// (as lds_read16_counted); the schedule's counted waits order them instead.
FP8GEMM_DEVICE void lds_write16_counted(std::uint8_t* lds, std::uint32_t offset, Vec<16> const& v) {
#if defined(FP8GEMM_ARCH_GFX950) || defined(FP8GEMM_ARCH_GFX942)
  using U4 = unsigned __attribute__((ext_vector_type(4)));
  U4 const d = {v.w[0], v.w[1], v.w[2], v.w[3]};
  asm volatile("ds_write_b128 %0, %1" ::"v"(lds_address(lds + offset)), "v"(d) : "memory");
#elif defined(FP8GEMM_DEVICE_PASS)
  (void)lds, (void)offset, (void)v;  // not reached: other targets never run this mainloop
#else
  lds_store<16>(lds, offset, v);
#endif
}

/// s_waitcnt vmcnt(kPending): at most kPending of this wave's vector-memory loads still in flight
/// (they complete in order). Other waves' loads need a barrier after it.
template <int kPending>
FP8GEMM_DEVICE void wait_vmcnt() {
  static_assert(kPending >= 0 && kPending <= 63, "vmcnt counts 0..63 on gfx9");
#if defined(FP8GEMM_DEVICE_PASS) && defined(__HIP_PLATFORM_AMD__)
  // NOTE: inline asm, then a scheduling fence: SIInsertWaitcnts relaxes an s_waitcnt builtin to
  // what its own scoreboard needs, and the LDS reads these waits cover are inline asm it does not
  // see (lds_read16_counted), so it may drop them; nothing may move above the wait either.
  asm volatile("s_waitcnt vmcnt(%0)" ::"n"(kPending) : "memory");
  __builtin_amdgcn_sched_barrier(0);
#elif defined(FP8GEMM_EMULATOR)
  emu::vmem_wait(kPending);
#endif
}

/// s_waitcnt lgkmcnt(kPending): at most kPending of this wave's LDS accesses in flight. The
/// emulator's LDS accesses complete at once, so there it does nothing.
template <int kPending>
FP8GEMM_DEVICE void wait_lgkmcnt() {
  static_assert(kPending >= 0 && kPending <= 15, "lgkmcnt counts 0..15 on gfx9");
#if defined(FP8GEMM_DEVICE_PASS) && defined(__HIP_PLATFORM_AMD__)
  asm volatile("s_waitcnt lgkmcnt(%0)" ::"n"(kPending) : "memory");  // see wait_vmcnt
  __builtin_amdgcn_sched_barrier(0);
#endif
}

/// s_waitcnt vmcnt(kPending) the compiler sees (the builtin, not inline asm): for loads into
/// registers, whose own waits the compiler then needs no more of (SIInsertWaitcnts keeps a wait it
/// finds strong enough). Other counters are left alone (expcnt 7, lgkmcnt 15).
template <int kPending>
FP8GEMM_DEVICE void wait_vmcnt_visible() {
  static_assert(kPending >= 0 && kPending <= 63, "vmcnt counts 0..63 on gfx9");
#if defined(FP8GEMM_DEVICE_PASS) && defined(__HIP_PLATFORM_AMD__)
  // gfx9 encoding: vmcnt[3:0] in bits 3:0, expcnt 6:4, lgkmcnt 11:8, vmcnt[5:4] in bits 15:14.
  constexpr int kCode = (kPending & 15) | (7 << 4) | (15 << 8) | ((kPending >> 4) << 14);
  __builtin_amdgcn_s_waitcnt(kCode);
#elif defined(FP8GEMM_EMULATOR)
  emu::vmem_wait(kPending);
#endif
}

/// Both in one s_waitcnt: at most kVm vector-memory loads and kLgkm LDS accesses in flight.
template <int kVm, int kLgkm>
FP8GEMM_DEVICE void wait_vmcnt_lgkmcnt() {
  static_assert(kVm >= 0 && kVm <= 63 && kLgkm >= 0 && kLgkm <= 15, "gfx9 wait counts");
#if defined(FP8GEMM_DEVICE_PASS) && defined(__HIP_PLATFORM_AMD__)
  asm volatile("s_waitcnt vmcnt(%0) lgkmcnt(%1)" ::"n"(kVm), "n"(kLgkm) : "memory");
  __builtin_amdgcn_sched_barrier(0);  // see wait_vmcnt
#elif defined(FP8GEMM_EMULATOR)
  emu::vmem_wait(kVm);
#endif
}

/// Keeps the compiler from moving instructions across this point (sched_barrier(0)), and from
/// moving memory accesses across it at the IR level (an empty asm with a memory clobber).
FP8GEMM_DEVICE void schedule_fence() {
#if defined(FP8GEMM_DEVICE_PASS) && defined(__HIP_PLATFORM_AMD__)
  __builtin_amdgcn_sched_barrier(0);
#endif
}

/// s_barrier alone: no memory fence, so no s_waitcnt to zero in front of it. Orders only what the
/// caller's own counted waits have completed.
FP8GEMM_DEVICE void barrier_without_fence() {
#if defined(FP8GEMM_DEVICE_PASS) && defined(__HIP_PLATFORM_AMD__)
  schedule_fence();
  __builtin_amdgcn_s_barrier();
  schedule_fence();
#elif defined(FP8GEMM_EMULATOR)
  emu::sync_threads();
#endif
}

/// s_setprio kPriority (0..3): the wave's issue priority on its SIMD. A no-op on the emulator.
template <int kPriority>
FP8GEMM_DEVICE void set_priority() {
  static_assert(kPriority >= 0 && kPriority <= 3, "s_setprio takes 0..3");
#if defined(FP8GEMM_DEVICE_PASS) && defined(__HIP_PLATFORM_AMD__)
  __builtin_amdgcn_s_setprio(kPriority);
#endif
}

}  // namespace fp8gemm::arch
