// SPDX-License-Identifier: MIT
/// Gemm::can_implement: every refusal, with its code and the words of its message (test helpers).
/// Shared by the GPU API test and the host-emulator one (the checks are host code either way).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "fp8gemm/fp8gemm.hpp"

namespace fp8gemm::test {

/// Valid arguments for a 64 x 64 x 64 problem over static host buffers (never dereferenced).
template <class Config>
typename Gemm<Config>::Arguments valid_arguments_64() {
  using G = Gemm<Config>;
  alignas(16) static typename Config::ElementA a[64 * 64];
  alignas(16) static typename Config::ElementB b[64 * 64];
  static typename Config::Scale sa[64 * 2], sb[64 * 2];
  static typename Config::ElementC c[64 * 64];
  typename G::Arguments args;
  args.problem.m = 64, args.problem.n = 64, args.problem.k = 64;
  args.a = a, args.lda = 64, args.b = b, args.ldb = 64;
  args.scale_a = sa, args.scale_b = sb;
  args.scale_a_count = G::scale_shape_a(64, 64).size();
  args.scale_b_count = G::scale_shape_b(64, 64).size();
  args.epilogue.c = c, args.epilogue.ldc = 64;
  if constexpr (is_output_fp8_v<typename Config::ElementC>) args.epilogue.output_scale = 0.5f;
  return args;
}

/// p moved by `bytes` bytes (a deliberately misaligned pointer; never dereferenced).
template <class T>
T* offset_bytes(T* p, int bytes) {
  return reinterpret_cast<T*>(reinterpret_cast<std::uintptr_t>(p) + bytes);
}

template <class Config>
void expect_refused(typename Gemm<Config>::Arguments const& args, StatusCode code,
                    std::string const& phrase) {
  Status const s = Gemm<Config>::can_implement(args);
  EXPECT_EQ(s.code(), code) << s.to_string();
  EXPECT_NE(s.message().find(phrase), std::string::npos)
      << "message: " << s.message() << "\nwanted: " << phrase;
}

/// Each precondition broken alone, on otherwise valid arguments.
template <class Config>
void check_every_refusal() {
  using G = Gemm<Config>;
  auto const valid = valid_arguments_64<Config>();
  ASSERT_TRUE(G::can_implement(valid).ok()) << G::can_implement(valid).to_string();
  auto args = valid;
  args.problem.m = 0;
  expect_refused<Config>(args, StatusCode::kErrorInvalidSize, "M, N and K must be >= 1 (got M=0");
  args = valid, args.problem.k = -3;
  expect_refused<Config>(args, StatusCode::kErrorInvalidSize, "K=-3");
  args = valid, args.problem.m = INT32_MAX - 10;  // m0 + row would wrap past 2^31
  expect_refused<Config>(args, StatusCode::kErrorInvalidSize,
                         "so that tile indices fit in int; got M=2147483637");
  args = valid, args.problem.n = INT32_MAX - 1;
  expect_refused<Config>(args, StatusCode::kErrorInvalidSize, "N=2147483646");
  args = valid, args.problem.k = INT32_MAX - Config::Policy::kBlockK + 1;  // one past the largest K
  expect_refused<Config>(
      args, StatusCode::kErrorInvalidSize,
      "so that tile indices fit in int; got M=64, N=64, K=" + std::to_string(args.problem.k));
  args = valid,
  args.problem.m = INT32_MAX - Config::Policy::kBlockM;  // the largest M: refused later, if at all
  EXPECT_EQ(G::can_implement(args).message().find("tile indices fit"), std::string::npos);
  args = valid, args.problem.m = 1 << 23,
  args.problem.n = 1 << 23;  // 2^46 outputs: more tiles than any grid.x holds
  args.ldb = Config::kLayoutB == LayoutB::kNK ? 64 : args.problem.n,
  args.epilogue.ldc = args.problem.n;
  expect_refused<Config>(args, StatusCode::kErrorInvalidSize,
                         "output tiles (one workgroup each); a " +
                             std::string(Config::Policy::Arch::kName) + " grid holds at most");
  args = valid, args.a = nullptr;
  expect_refused<Config>(args, StatusCode::kErrorNullPointer, "A is null");
  args = valid, args.b = nullptr;
  expect_refused<Config>(args, StatusCode::kErrorNullPointer, "B is null");
  args = valid, args.epilogue.c = nullptr;
  expect_refused<Config>(args, StatusCode::kErrorNullPointer, "C is null");
  args = valid, args.scale_a = nullptr;
  expect_refused<Config>(args, StatusCode::kErrorNullPointer, "scale_a is null");
  args = valid, args.scale_b = nullptr;
  expect_refused<Config>(args, StatusCode::kErrorNullPointer, "scale_b is null");
  args = valid, args.lda = 63;
  expect_refused<Config>(args, StatusCode::kErrorLeadingDimension, "lda (63) must be >= K (64)");
  args = valid, args.ldb = 48;
  expect_refused<Config>(args, StatusCode::kErrorLeadingDimension, "ldb (48) must be >= ");
  args = valid, args.epilogue.ldc = 10;
  expect_refused<Config>(args, StatusCode::kErrorLeadingDimension, "ldc (10) must be >= N (64)");
  args = valid, args.a = args.a + 1;
  expect_refused<Config>(
      args, StatusCode::kErrorMisaligned,
      "A must be 16-byte aligned (16-byte vector loads); its address is 1 byte past");
  args = valid, args.b = args.b + 8;
  expect_refused<Config>(
      args, StatusCode::kErrorMisaligned,
      "B must be 16-byte aligned (16-byte vector loads); its address is 8 bytes past");
  args = valid, args.lda = 72;
  expect_refused<Config>(
      args, StatusCode::kErrorMisaligned,
      "lda must be a multiple of 16 (16-byte vector loads of every row); got lda=72");
  args = valid, args.ldb = 72;
  expect_refused<Config>(
      args, StatusCode::kErrorMisaligned,
      "ldb must be a multiple of 16 (16-byte vector loads of every row); got ldb=72");
  // Pointers accessed one element at a time: aligned to the element (C, scales), 4 bytes (bias,
  // amax); the message gives the address's misalignment and the alignment.
  using ElementC = typename Config::ElementC;
  using Scale = typename Config::Scale;
  alignas(16) static float bias[64 + 4], amax[4];
  args = valid, args.epilogue.bias = bias, args.epilogue.amax = amax;
  EXPECT_TRUE(G::can_implement(args).ok()) << G::can_implement(args).to_string();
  if constexpr (sizeof(ElementC) > 1) {
    std::string const size = std::to_string(sizeof(ElementC));
    args = valid, args.epilogue.c = offset_bytes(args.epilogue.c, 1);
    expect_refused<Config>(args, StatusCode::kErrorMisaligned,
                           "C must be " + size + "-byte aligned (");
    expect_refused<Config>(args, StatusCode::kErrorMisaligned,
                           "its address is 1 byte past a multiple of " + size);
    args = valid,
    args.epilogue.c = offset_bytes(args.epilogue.c, 16 + 1);  // past a 16-byte boundary
    expect_refused<Config>(args, StatusCode::kErrorMisaligned,
                           "its address is 1 byte past a multiple of " + size);
  }
  args = valid, args.epilogue.c += 1, args.scale_a += 1, args.scale_b += 1;  // one element in: fine
  EXPECT_TRUE(G::can_implement(args).ok()) << G::can_implement(args).to_string();
  if constexpr (std::is_same_v<ElementC, float>) {
    args = valid, args.epilogue.c = offset_bytes(args.epilogue.c, 2);
    expect_refused<Config>(args, StatusCode::kErrorMisaligned,
                           "C must be 4-byte aligned (float stores, one element each); its address "
                           "is 2 bytes past a multiple of 4");
  }
  if constexpr (std::is_same_v<ElementC, bf16>) {
    args = valid, args.epilogue.c = offset_bytes(args.epilogue.c, 3);
    expect_refused<Config>(args, StatusCode::kErrorMisaligned,
                           "C must be 2-byte aligned (bf16 stores, one element each); its address "
                           "is 1 byte past a multiple of 2");
  }
  if constexpr (std::is_same_v<Scale, float>) {
    args = valid, args.scale_a = offset_bytes(args.scale_a, 1);
    expect_refused<Config>(args, StatusCode::kErrorMisaligned,
                           "scale_a must be 4-byte aligned (float loads); its address is 1 byte "
                           "past a multiple of 4");
    args = valid, args.scale_b = offset_bytes(args.scale_b, 6);
    expect_refused<Config>(args, StatusCode::kErrorMisaligned,
                           "scale_b must be 4-byte aligned (float loads); its address is 2 bytes "
                           "past a multiple of 4");
  } else {  // e8m0: one byte, any address
    static_assert(sizeof(Scale) == 1);
    args = valid, args.scale_a = offset_bytes(args.scale_a, 1),
    args.scale_b = offset_bytes(args.scale_b, 3);
    EXPECT_TRUE(G::can_implement(args).ok()) << G::can_implement(args).to_string();
  }
  args = valid, args.epilogue.bias = offset_bytes(bias, 2);
  expect_refused<Config>(args, StatusCode::kErrorMisaligned,
                         "epilogue.bias must be 4-byte aligned (float loads); its address is 2 "
                         "bytes past a multiple of 4");
  args = valid, args.epilogue.amax = offset_bytes(amax, 16 + 3);
  expect_refused<Config>(args, StatusCode::kErrorMisaligned,
                         "epilogue.amax must be 4-byte aligned (a 32-bit atomic max); its address "
                         "is 3 bytes past a multiple of 4");
  args = valid, args.scale_a_count -= 1;
  expect_refused<Config>(args, StatusCode::kErrorScaleShape,
                         std::string(Config::Granularity::kName) + " scale_a: expected");
  expect_refused<Config>(args, StatusCode::kErrorScaleShape,
                         "(Gemm::scale_shape_a(M, K) gives the shape");
  args = valid, args.scale_b_count += 1;
  expect_refused<Config>(args, StatusCode::kErrorScaleShape,
                         std::string(Config::Granularity::kName) + " scale_b: expected");
  expect_refused<Config>(args, StatusCode::kErrorScaleShape,
                         "(Gemm::scale_shape_b(N, K) gives the shape");
  args = valid, args.split_k = 1000;
  expect_refused<Config>(args, StatusCode::kErrorInvalidArgument,
                         "split_k must be in [1, min(ceil(K / BlockK)");
  args = valid, args.split_k = 1, args.band_m = -1;
  expect_refused<Config>(args, StatusCode::kErrorInvalidArgument,
                         "band_m must be >= 0 (0: the scheduler's choice); got -1");
  if constexpr (!IsWgmmaPolicy<typename Config::Policy>::value) {  // persistent WGMMA kernel only
    args = valid, args.sm_count = 8;
    expect_refused<Config>(args, StatusCode::kErrorUnsupported,
                           "sm_count applies to the persistent WGMMA kernel");
  }
  if constexpr (is_output_fp8_v<typename Config::ElementC>) {
    args = valid, args.epilogue.output_scale = 0.0f;
    expect_refused<Config>(args, StatusCode::kErrorInvalidArgument, "finite output_scale > 0");
    args = valid,
    args.epilogue.output_scale = typename G::Arguments{}.epilogue.output_scale;  // never set
    expect_refused<Config>(
        args, StatusCode::kErrorInvalidArgument,
        "fp8 output needs output_scale (q = fp8(y / output_scale)); it is not set");
  } else {  // stored unscaled: a set output_scale would be silently ignored, so it is refused
    for (float const s : {1.0f, 0.5f}) {
      args = valid, args.epilogue.output_scale = s;
      expect_refused<Config>(
          args, StatusCode::kErrorInvalidArgument,
          std::string("output_scale is for fp8 outputs only (q = fp8(y / output_scale)); C is ") +
              element_name<ElementC>() + ", which is stored unscaled");
    }
  }
  if (G::workspace_size(valid) == 0) {
    args = valid;
    args.problem.k = 4096, args.lda = 4096, args.ldb = Config::kLayoutB == LayoutB::kNK ? 4096 : 64;
    args.scale_a_count = scale_shape<typename Config::Granularity>(Operand::kA, 64, 4096).size();
    args.scale_b_count = scale_shape<typename Config::Granularity>(Operand::kB, 64, 4096).size();
    args.split_k = 2;  // no workspace given
    expect_refused<Config>(args, StatusCode::kErrorNullPointer, "split_k > 1 needs a workspace of");
    alignas(16) static unsigned char workspace[16];
    args.workspace = workspace + 2;
    expect_refused<Config>(args, StatusCode::kErrorMisaligned,
                           "workspace must be 4-byte aligned (FP32 partial sums); its address is 2 "
                           "bytes past a multiple of 4");
    args.workspace = workspace;
    EXPECT_TRUE(G::can_implement(args).ok()) << G::can_implement(args).to_string();
    // side x side outputs: few enough output tiles for the main grid, too many reduction workgroups
    // of 256 threads (NVIDIA: 2^26 tiles, 2^32 > 2^31 - 1 workgroups; AMD, where workgroups x
    // threads < 2^32: 2^18 tiles, 2^26 > 2^24 - 1 workgroups).
    int const side =
        Config::Policy::Arch::max_blocks_x(256) > (std::int64_t(1) << 30) ? (1 << 20) : (1 << 17);
    args.problem.m = side, args.problem.n = side;
    args.ldb = Config::kLayoutB == LayoutB::kNK ? 4096 : side;
    args.epilogue.ldc = side;
    args.scale_a_count = scale_shape<typename Config::Granularity>(Operand::kA, side, 4096).size();
    args.scale_b_count = scale_shape<typename Config::Granularity>(Operand::kB, side, 4096).size();
    args.workspace =
        nullptr;  // the size refusal comes first: workspace_size would not be meaningful
    expect_refused<Config>(args, StatusCode::kErrorInvalidSize, "outputs needs more than");
  }
}

}  // namespace fp8gemm::test
