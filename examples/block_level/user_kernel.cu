// SPDX-License-Identifier: MIT
// Block-level API: a user's own __global__ kernel that computes one output tile per workgroup
// with fp8gemm's mainloop + epilogue (GemmBlock), with LDS it provides itself. Here the user
// walks tiles in their own order (a persistent loop over tiles) instead of fp8gemm's scheduler.
#include <cmath>
#include <cstdio>
#include <vector>

#include "fp8gemm/fp8gemm.hpp"

using namespace fp8gemm;

/// Every CUDA call is checked: on failure, say which call and why, and leave main with 1.
#define CHECK(call)                                                  \
  do {                                                               \
    cudaError_t const e_ = (call);                                   \
    if (e_ != cudaSuccess) {                                         \
      std::printf("%s failed: %s\n", #call, cudaGetErrorString(e_)); \
      return 1;                                                      \
    }                                                                \
  } while (0)
using Config = GemmConfig<Sm90Default<>, PerTensor, LayoutB::kNK, Epilogue<float, Identity>>;
using Block = GemmBlock<Config>;

/// Persistent kernel: workgroup b takes tiles b, b + gridDim.x, ... in row-major tile order.
__global__ void __launch_bounds__(Block::kThreads) my_persistent_gemm(Config::Params p) {
  extern __shared__ __align__(16) unsigned char lds[];
  auto& storage = *reinterpret_cast<Block::SharedStorage*>(lds);
  auto const& tiles =
      p.scheduler;  // tile counts (the library's own kernel uses its tile scheduler)
  for (int t = blockIdx.x; t < tiles.tiles_m * tiles.tiles_n; t += gridDim.x) {
    Block::run_tile(p, t / tiles.tiles_n, t % tiles.tiles_n, 0, tiles.k_tiles, storage);
    __syncthreads();  // waits for: every wave done with the LDS stages before the next tile's
                      // prologue
  }
}

int main() {
  int const m = 300, n = 260, k = 512;
  std::vector<e4m3fn> a(m * k), b(n * k);
  for (int i = 0; i < m * k; ++i) a[i] = float_to_fp8<e4m3fn>(float((i * 7) % 13) - 6.0f);
  for (int i = 0; i < n * k; ++i) b[i] = float_to_fp8<e4m3fn>(float((i * 5) % 11) - 5.0f);
  e4m3fn *da, *db;
  float *dc, *ds;
  float const scales[2] = {0.5f, 0.25f};
  CHECK(cudaMalloc(&da, a.size()));
  CHECK(cudaMalloc(&db, b.size()));
  CHECK(cudaMalloc(&dc, m * n * 4));
  CHECK(cudaMalloc(&ds, 8));
  CHECK(cudaMemcpy(da, a.data(), a.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), b.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(ds, scales, 8, cudaMemcpyHostToDevice));
  Gemm<Config>::Arguments args;
  args.problem.m = m, args.problem.n = n, args.problem.k = k, args.a = da, args.lda = k,
  args.b = db, args.ldb = k;
  args.scale_a = ds, args.scale_b = ds + 1, args.scale_a_count = 1, args.scale_b_count = 1;
  args.epilogue.c = dc, args.epilogue.ldc = n;
  Status const st = Gemm<Config>::can_implement(args);  // the same checks apply to block-level use
  if (!st.ok()) {
    std::printf("%s\n", st.to_string().c_str());
    return 1;
  }
  Config::Params const p = Gemm<Config>::to_params(args);
  CHECK(cudaFuncSetAttribute(my_persistent_gemm, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             Block::kSharedBytes));
  my_persistent_gemm<<<16, Block::kThreads, Block::kSharedBytes>>>(p);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> c(m * n);
  CHECK(cudaMemcpy(c.data(), dc, c.size() * 4, cudaMemcpyDeviceToHost));
  double worst = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double r = 0;
      for (int kk = 0; kk < k; ++kk)
        r += double(fp8_to_float(a[i * k + kk])) * fp8_to_float(b[j * k + kk]);
      worst = std::fmax(worst, std::fabs(r * 0.125 - c[i * n + j]));
    }
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  CHECK(cudaFree(ds));
  std::printf("user kernel with GemmBlock: max |C - FP64| = %g -> %s\n", worst,
              worst < 1e-3 ? "PASS" : "FAIL");
  return worst < 1e-3 ? 0 : 1;
}
