// SPDX-License-Identifier: MIT
/// Per-target machine facts the policies size themselves by (arch layer).
#pragma once

#include <cstdint>

namespace fp8gemm::arch {

/// NVIDIA Hopper (sm_90a) running the portable mma.sync path.
struct Sm90 {
  static constexpr char const* kName = "sm90";
  static constexpr int kWaveSize = 32;             // a warp
  static constexpr int kLdsBytes = 227 * 1024;     // max dynamic shared memory per block
  static constexpr int kLdsBanks = 32;             // 4-byte banks
  static constexpr int kMaxAccumulatorRegs = 160;  // FP32 accumulators per thread we allow (of 255)
  static constexpr bool kFnuz = false;             // OCP e4m3fn / e5m2
  /// Global -> LDS copies without registers (cp.async), so K-tiles can be in flight kStages - 1
  /// deep. CDNA stages copies through registers (gfx950's 16-byte global_load_lds could do the
  /// same; not used yet).
  static constexpr bool kAsyncCopy = true;
  /// Registers one thread may use: 255 whatever the block size.
  static constexpr int registers_per_lane(int /*waves_per_block*/) { return 255; }
  /// Largest grid.x: 2^31 - 1 blocks (CUDA), whatever the block size.
  static constexpr std::int64_t max_blocks_x(int /*threads_per_block*/) { return 2147483647; }
  static constexpr std::int64_t kMaxBlocksY = 65535;
  static constexpr int kXcds = 1;  // one L2 for the whole GPU
  /// The compiler takes a minimum-blocks-per-SM hint (__launch_bounds__'s second argument), which
  /// caps registers per thread at 65536 / (blocks x threads).
  static constexpr bool kTakesMinBlocksHint = true;
  static constexpr int kRegistersPerSm = 65536;
  static constexpr int kLdsPerSm = 228 * 1024;  // shared memory per SM, for two blocks' stages
};

/// NVIDIA Hopper with its architecture-specific features (sm_90a: wgmma, setmaxnreg, TMA): the
/// warp-specialized TMA + WGMMA path. Same machine facts as Sm90; code built with
/// -gencode=arch=compute_90a,code=sm_90a runs only on compute capability 9.0.
struct Sm90a : Sm90 {
  static constexpr char const* kName = "sm90a";
  static constexpr int kWarpgroupThreads = 128;  // 4 warps issue one wgmma together
  static constexpr int kSmemAlignment = 1024;    // a 128-byte-swizzled TMA tile's alignment
};

/// AMD CDNA3 (gfx942: MI300X/MI325X). FP8 is FNUZ here.
struct Cdna3 {
  static constexpr char const* kName = "gfx942";
  static constexpr int kWaveSize = 64;
  static constexpr int kLdsBytes = 64 * 1024;
  static constexpr int kLdsBanks = 32;
  // 256 arch VGPRs + 256 AGPRs per lane at 1 wave/SIMD
  static constexpr int kMaxAccumulatorRegs = 256;
  static constexpr bool kFnuz = true;          // e4m3fnuz / e5m2fnuz
  static constexpr bool kAsyncCopy = false;    // global_load_lds is 4 bytes per lane here
  static constexpr int kDirectToLdsBytes = 4;  // buffer_load_dword ... lds: 4 bytes per lane
  /// Accelerator dies (XCDs), each with its own L2; workgroups are dispatched round-robin over
  /// them (MI300X: 8 x 38 CUs).
  static constexpr int kXcds = 8;
  static constexpr bool kTakesMinBlocksHint = false;  // HIP's second argument means something else
  /// VGPRs + AGPRs per lane: 512 per SIMD lane, shared by the block's waves on that SIMD (a
  /// block's waves spread over the CU's 4 SIMDs).
  static constexpr int registers_per_lane(int waves_per_block) {
    return 512 / ((waves_per_block + 3) / 4);
  }
  /// Largest grid.x: the dispatch packet counts work-items in 32 bits, so blocks x threads < 2^32.
  static constexpr std::int64_t max_blocks_x(int threads_per_block) {
    return 4294967295LL / threads_per_block;
  }
  static constexpr std::int64_t kMaxBlocksY = 65535;
};

/// AMD CDNA4 (gfx950: MI350X/MI355X). FP8 is OCP here.
struct Cdna4 {
  static constexpr char const* kName = "gfx950";
  static constexpr int kWaveSize = 64;
  static constexpr int kLdsBytes = 160 * 1024;
  static constexpr int kLdsBanks = 64;
  static constexpr int kMaxAccumulatorRegs = 256;
  static constexpr bool kFnuz = false;
  static constexpr bool kAsyncCopy = false;
  /// buffer_load_dwordx4 ... lds: 16 bytes per lane straight into LDS (the buffer-load mainloop,
  /// mainloop/buffer_lds_pingpong*.hpp; LdsMultistageMainloop stages through registers).
  static constexpr int kDirectToLdsBytes = 16;
  // MI355X: 8 dies x 32 CUs, 4 MB of L2 each, workgroups dispatched round-robin over the dies.
  static constexpr int kXcds = 8;
  static constexpr bool kTakesMinBlocksHint =
      false;  // HIP's 2nd __launch_bounds__ argument differs
  static constexpr int registers_per_lane(int waves_per_block) {
    return 512 / ((waves_per_block + 3) / 4);
  }
  /// Largest grid.x: the dispatch packet counts work-items in 32 bits, so blocks x threads < 2^32.
  static constexpr std::int64_t max_blocks_x(int threads_per_block) {
    return 4294967295LL / threads_per_block;
  }
  static constexpr std::int64_t kMaxBlocksY = 65535;
};

}  // namespace fp8gemm::arch
