// SPDX-License-Identifier: MIT
/// Runs a GemmProblem on the GPU (device copies of every operand), checks it against FP64.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "common/device_buffer.hpp"
#include "common/gemm_harness.hpp"
#include "common/scale_layouts.hpp"

namespace fp8gemm::test {

#define FP8GEMM_TEST_CUDA(call)                                                        \
  do {                                                                                 \
    cudaError_t const e_ = (call);                                                     \
    if (e_ != cudaSuccess)                                                             \
      return ::testing::AssertionFailure() << #call << ": " << cudaGetErrorString(e_); \
  } while (0)

/// Poisons C on the device, runs Gemm<Config>, copies C and amax back, checks against FP64; `c_out`
/// (if given) gets C. scale_a_ld > 0 (Blockwise): A's scales go K-block-major with that leading
/// dimension (Gemm::Arguments::scale_a_ld), NaN between the rows.
template <class Config>
::testing::AssertionResult run_on_gpu_with(GemmProblem<Config> const& p, std::string* report,
                                           std::vector<typename Config::ElementC>* c_out,
                                           std::int64_t scale_a_ld) {
  using ElementC = typename Config::ElementC;
  using Scale = typename Config::Scale;
  DeviceBuffer a, b, sa, sb, bias, c, amax, workspace;
  FP8GEMM_TEST_CUDA(upload(a, p.a_q));
  FP8GEMM_TEST_CUDA(upload(b, p.b_q));
  std::vector<Scale> sa_host(p.host_scale_a(), p.host_scale_a() + p.scale_a_size());
  ScaleShape const sa_shape =
      scale_shape<typename Config::Granularity>(Operand::kA, p.cs.m, p.cs.k);
  if constexpr (!std::is_same_v<Scale, float>) {
    if (scale_a_ld > 0) return ::testing::AssertionFailure() << "scale_a_ld is for float scales";
  } else if (scale_a_ld > 0) {
    sa_host = k_block_major(sa_host, sa_shape.rows, sa_shape.cols, scale_a_ld);
  }
  FP8GEMM_TEST_CUDA(upload(sa, sa_host));
  FP8GEMM_TEST_CUDA(
      upload(sb, std::vector<Scale>(p.host_scale_b(), p.host_scale_b() + p.scale_b_size())));
  if (p.cs.bias) FP8GEMM_TEST_CUDA(upload(bias, p.bias_f));
  FP8GEMM_TEST_CUDA(c.allocate(p.c_size() * sizeof(ElementC)));
  FP8GEMM_TEST_CUDA(poison_device(c.as<ElementC>(), p.c_size()));
  FP8GEMM_TEST_CUDA(amax.allocate(sizeof(float)));
  FP8GEMM_TEST_CUDA(cudaMemset(amax.ptr, 0xFF, sizeof(float)));  // NaN: must be overwritten
  auto args = p.arguments(a.as<typename Config::ElementA>(), b.as<typename Config::ElementB>(),
                          sa.as<Scale>(), sb.as<Scale>(), p.cs.bias ? bias.as<float>() : nullptr,
                          c.as<ElementC>(), amax.as<float>());
  if (scale_a_ld > 0) {
    args.scale_a_ld = scale_a_ld;
    args.scale_a_count = static_cast<std::int64_t>(sa_host.size());
  }
  std::size_t const ws = Gemm<Config>::workspace_size(args);
  if (ws > 0) {
    FP8GEMM_TEST_CUDA(workspace.allocate(ws));
    FP8GEMM_TEST_CUDA(cudaMemset(workspace.ptr, 0xFF, ws));
    args.workspace = workspace.ptr;
  }
  Status const st = Gemm<Config>::run(args, nullptr);
  if (!st.ok()) return ::testing::AssertionFailure() << "run: " << st.to_string();
  FP8GEMM_TEST_CUDA(cudaDeviceSynchronize());
  std::vector<ElementC> out(p.c_size());
  float amax_h = 0;
  FP8GEMM_TEST_CUDA(download(out, c));
  FP8GEMM_TEST_CUDA(cudaMemcpy(&amax_h, amax.ptr, sizeof(float), cudaMemcpyDeviceToHost));
  if (c_out != nullptr) *c_out = out;
  return p.check(out, amax_h, report);
}

/// run_on_gpu_with, A's scales row-major (a function callers may pass by reference).
template <class Config>
::testing::AssertionResult run_on_gpu(GemmProblem<Config> const& p, std::string* report = nullptr,
                                      std::vector<typename Config::ElementC>* c_out = nullptr) {
  return run_on_gpu_with(p, report, c_out, 0);
}

}  // namespace fp8gemm::test
