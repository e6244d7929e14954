// SPDX-License-Identifier: MIT
// fp8gemm (named policies and AutoGemm, which chooses) vs cuBLASLt FP8 on the same inputs, same
// process, same scale mode and accumulation mode
// (e4m3fn A and B, bf16 C, mk_nk_mn = cuBLASLt "TN"): per-tensor scales (cuBLASLt's default, which
// promotes, and its fast accumulation), 1x128 . 128x128 block scales (cuBLASLt's VEC128 /
// BLK128x128 modes), and the fused GELU epilogue against cuBLASLt followed by a separate GELU
// kernel. Google Benchmark with manual time from CUDA events: warm-up launches first, then per
// iteration one event pair around kLaunchesPerEventPair back-to-back launches (iteration time =
// elapsed / launches), behind one untimed launch, so the host work of a launch (fp8gemm: checks
// and two tensor-map encodes; cuBLASLt: its own) overlaps the previous launch instead of sitting
// inside the timed interval;
// that host time is reported apart (host_us). A/B rotate over enough buffer sets that every launch
// reads operands not left in L2 by the one before. Run with --benchmark_repetitions and
// --benchmark_enable_random_interleaving so the two libraries alternate; report the median.
#include <benchmark/benchmark.h>
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench_check.hpp"
#include "cublaslt_fp8.hpp"
#include "fp8gemm/device/auto_gemm.hpp"
#include "fp8gemm/fp8gemm.hpp"

namespace {

using namespace fp8gemm;

/// Random e4m3fn bytes (N(0,1) values, never all zeros), generated once and grown on demand.
std::vector<std::uint8_t> const& random_fp8_bytes(std::size_t bytes) {
  static std::vector<std::uint8_t> host;
  static std::mt19937 rng(42);
  std::normal_distribution<float> normal;
  while (host.size() < bytes) host.push_back(float_to_fp8<e4m3fn>(normal(rng)).bits);
  return host;
}

/// Rotating operand sets: together at least 3x the L2 size, so no iteration finds its inputs in L2.
struct Operands {
  int m, n, k, sets;
  std::int64_t ldb;  // B's row pitch in bytes: K, or more (bench_fp8gemm's ldb_pad)
  std::vector<void*> a, b;
  void* c = nullptr;
  float* scale_a = nullptr;  // per-tensor: one float each, in separate (256-byte aligned)
  float* scale_b = nullptr;  // allocations; blockwise: [M][K/128] and [N/128][K/128]
  std::int64_t scale_a_count = 1, scale_b_count = 1;

  Operands(int m_, int n_, int k_, bool blockwise = false, int ldb_pad = 0)
      : m(m_), n(n_), k(k_), ldb(std::int64_t(k_) + ldb_pad) {
    int l2 = 0;
    BENCH_CHECK_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    std::size_t const b_bytes = std::size_t(n) * std::size_t(ldb);
    std::size_t const set_bytes = std::size_t(m) * k + b_bytes;
    sets = static_cast<int>(std::min<std::size_t>(64, 3 * std::size_t(l2) / set_bytes + 1));
    std::vector<std::uint8_t> const& host = random_fp8_bytes(std::max(std::size_t(m) * k, b_bytes));
    for (int s = 0; s < sets; ++s) {
      void* pa = nullptr;
      void* pb = nullptr;
      BENCH_CHECK_CUDA(cudaMalloc(&pa, std::size_t(m) * k));
      BENCH_CHECK_CUDA(cudaMalloc(&pb, b_bytes));
      BENCH_CHECK_CUDA(cudaMemcpy(pa, host.data(), std::size_t(m) * k, cudaMemcpyHostToDevice));
      BENCH_CHECK_CUDA(cudaMemcpy(pb, host.data(), b_bytes, cudaMemcpyHostToDevice));
      a.push_back(pa);
      b.push_back(pb);
    }
    BENCH_CHECK_CUDA(cudaMalloc(&c, std::size_t(m) * n * 2));
    if (blockwise) {
      std::int64_t const kb = (k + 127) / 128;
      scale_a_count = std::int64_t(m) * kb;
      scale_b_count = std::int64_t((n + 127) / 128) * kb;
    }
    BENCH_CHECK_CUDA(cudaMalloc(&scale_a, scale_a_count * sizeof(float)));
    BENCH_CHECK_CUDA(cudaMalloc(&scale_b, scale_b_count * sizeof(float)));
    std::vector<float> const sa(scale_a_count, 0.01f), sb(scale_b_count, 0.02f);
    BENCH_CHECK_CUDA(
        cudaMemcpy(scale_a, sa.data(), sa.size() * sizeof(float), cudaMemcpyHostToDevice));
    BENCH_CHECK_CUDA(
        cudaMemcpy(scale_b, sb.data(), sb.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
  ~Operands() {
    for (void* p : a) BENCH_CHECK_CUDA(cudaFree(p));
    for (void* p : b) BENCH_CHECK_CUDA(cudaFree(p));
    BENCH_CHECK_CUDA(cudaFree(c));
    BENCH_CHECK_CUDA(cudaFree(scale_a));
    BENCH_CHECK_CUDA(cudaFree(scale_b));
  }
};

/// Launches per event pair: enough that the first launch's exposed host work is a few percent
/// of the interval even at the 20 µs decode shapes.
constexpr int kLaunchesPerEventPair = 10;

/// Times `launch(set)` with CUDA events, kLaunchesPerEventPair launches per iteration, rotating
/// operand sets; the iteration time is per launch. host_us: the host's time per launch call.
template <class Launch>
void time_loop(benchmark::State& state, Operands const& ops, Launch&& launch) {
  cudaEvent_t start, stop;
  BENCH_CHECK_CUDA(cudaEventCreate(&start));
  BENCH_CHECK_CUDA(cudaEventCreate(&stop));
  for (int i = 0; i < 2 * ops.sets; ++i) launch(i % ops.sets);  // warm-up
  BENCH_CHECK_CUDA(cudaDeviceSynchronize());
  int it = 0;
  double host_s = 0;
  for (auto _ : state) {
    launch(it % ops.sets);  // untimed: the first timed launch's host work runs under it
    BENCH_CHECK_CUDA(cudaEventRecord(start));
    auto const t0 = std::chrono::steady_clock::now();
    for (int l = 0; l < kLaunchesPerEventPair; ++l) launch(it++ % ops.sets);
    host_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    BENCH_CHECK_CUDA(cudaEventRecord(stop));
    BENCH_CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    BENCH_CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    state.SetIterationTime(ms * 1e-3 / kLaunchesPerEventPair);
  }
  BENCH_CHECK_CUDA(cudaGetLastError());
  double const flops = 2.0 * ops.m * ops.n * ops.k;
  state.counters["TFLOP/s"] =
      benchmark::Counter(flops * 1e-12, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["sets"] = ops.sets;
  state.counters["launches_per_event_pair"] = kLaunchesPerEventPair;
  state.counters["host_us"] = it > 0 ? host_s * 1e6 / it : 0.0;
  BENCH_CHECK_CUDA(cudaEventDestroy(start));
  BENCH_CHECK_CUDA(cudaEventDestroy(stop));
}

/// Times G (Gemm<Config> or an AutoGemm: the same surface) on ops with args as filled in (the
/// operand pointers rotate): a workspace of G::workspace_size(args) bytes, can_implement's refusal
/// as the benchmark's error. Returns false when refused.
template <class G>
bool time_gemm(benchmark::State& state, Operands const& ops, typename G::Arguments& args) {
  void* workspace = nullptr;
  if (std::size_t const ws = G::workspace_size(args); ws > 0)
    BENCH_CHECK_CUDA(cudaMalloc(&workspace, ws));
  args.workspace = workspace;
  bool const ok = [&] {
    if (Status const st = G::can_implement(args); !st.ok()) {
      state.SkipWithError(st.to_string().c_str());
      return false;
    }
    time_loop(state, ops, [&](int set) {
      args.a = static_cast<e4m3fn const*>(ops.a[set]);
      args.b = static_cast<e4m3fn const*>(ops.b[set]);
      Status const s = G::run(args, nullptr);
      if (!s.ok()) {
        std::fprintf(stderr, "fp8gemm run: %s\n", s.to_string().c_str());
        std::exit(1);
      }
    });
    return true;
  }();
  BENCH_CHECK_CUDA(cudaFree(workspace));
  args.workspace = nullptr;
  return ok;
}

/// scale_a_ld > 0 (Blockwise): A's scales read K-block-major with that leading dimension (the
/// same buffer, M x K/128 floats: ld = M), so the scales go through the scale ring where the
/// mainloop has it (docs/performance.md#sm90-scale-ring; not on the swapped tiles); 0: row-major,
/// loaded by the consumers. ldb_pad > 0: B's rows ldb = K + ldb_pad bytes apart (a measurement of
/// how the weights' DRAM addresses map, not a layout users have).
template <class Policy, class Accumulation = AtomDefaultAccumulation, class Granularity = PerTensor,
          class Act = Identity>
void bench_fp8gemm(benchmark::State& state, int m, int n, int k, int split_k = 1,
                   std::int64_t scale_a_ld = 0, int ldb_pad = 0) {
  using Config = GemmConfig<Policy, Granularity, LayoutB::kNK, Epilogue<bf16, Act>, Accumulation>;
  Operands ops(m, n, k, IsBlockwise<Granularity>::value, ldb_pad);
  typename Gemm<Config>::Arguments args;
  args.split_k = split_k;
  args.problem.m = m, args.problem.n = n, args.problem.k = k, args.lda = k, args.ldb = ops.ldb;
  args.scale_a = ops.scale_a, args.scale_b = ops.scale_b;
  args.scale_a_count = ops.scale_a_count, args.scale_b_count = ops.scale_b_count;
  args.epilogue.c = static_cast<bf16*>(ops.c), args.epilogue.ldc = n;
  args.a = static_cast<e4m3fn const*>(ops.a[0]), args.b = static_cast<e4m3fn const*>(ops.b[0]);
  args.scale_a_ld = scale_a_ld;
  if (time_gemm<Gemm<Config>>(state, ops, args))
    state.SetLabel(Gemm<Config>::name() +
                   (split_k > 1 ? " split_k " + std::to_string(split_k) : "") +
                   (scale_a_ld > 0 ? " A scales K-block-major" : "") +
                   (ldb_pad > 0 ? " ldb K + " + std::to_string(ldb_pad) : ""));
}

/// 128 x BlockN cooperative tiles in 2-CTA clusters sharing A (kA) or B (kB) by TMA multicast.
template <int BlockN, int Stages, WgmmaMulticast Mc>
using Multicast =
    WgmmaTilePolicy<128, BlockN, 2, Stages, e4m3fn, e4m3fn, WgmmaSchedule::kCooperative, Mc>;
template <class P>
struct PolicyTag {
  using type = P;
};

/// AutoGemm<Sm90Target> as a user calls it: the choice for (M, N, K) on this device (its tier and
/// candidate in the label), with a workspace of workspace_size(args) bytes.
template <class Granularity = PerTensor>
void bench_auto(benchmark::State& state, int m, int n, int k) {
  using Auto =
      AutoGemm<selection::Sm90Target, e4m3fn, e4m3fn, Granularity, LayoutB::kNK, Epilogue<bf16>>;
  Operands ops(m, n, k, IsBlockwise<Granularity>::value);
  typename Auto::Arguments args;
  args.problem = {m, n, k};
  args.lda = k, args.ldb = k;
  args.scale_a = ops.scale_a, args.scale_b = ops.scale_b;
  args.scale_a_count = ops.scale_a_count, args.scale_b_count = ops.scale_b_count;
  args.epilogue.c = static_cast<bf16*>(ops.c), args.epilogue.ldc = n;
  args.a = static_cast<e4m3fn const*>(ops.a[0]), args.b = static_cast<e4m3fn const*>(ops.b[0]);
  if (!time_gemm<Auto>(state, ops, args)) return;
  args.workspace = &ops;  // select() keys on whether a workspace was given: as it was timed
  Choice const c = Auto::select(args);
  state.SetLabel("auto [" + std::string(selection::to_string(c.tier)) + "] " + c.short_name +
                 " split_k " + std::to_string(c.split_k));
}

/// GELU-tanh of one bf16 pair (low half first): GeluTanh::apply in FP32, rounded to bf16 (RNE).
__device__ std::uint32_t gelu_tanh_bf16x2(std::uint32_t v) {
  float x[2] = {__uint_as_float(v << 16), __uint_as_float(v & 0xFFFF0000u)};
  FP8GEMM_UNROLL
  for (float& e : x) e = GeluTanh::apply(e);
  return (std::uint32_t(float_to_bf16(x[1]).bits) << 16) | float_to_bf16(x[0]).bits;
}

/// y = GELU-tanh(x) on bf16, in place: the separate activation kernel a cuBLASLt user runs after
/// the GEMM. 16 bytes (8 elements) per thread and step, grid-stride; the last pairs % 4 pairs one
/// per thread. Launched with 8 blocks of 256 per SM (2048 threads, 32 KiB in flight per SM): 979
/// µs for cuBLASLt + this kernel at 8192^3 against 995 with the 4-byte version this replaced
/// (bench/NOTES.md, 2026-12-02), which was latency-bound (8 KiB in flight per SM).
__global__ void gelu_tanh_bf16_inplace(uint4* c, std::int64_t vecs, std::uint32_t* tail,
                                       std::int64_t tail_pairs) {
  std::int64_t const first = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  std::int64_t const stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = first; i < vecs; i += stride) {
    uint4 v = c[i];
    v.x = gelu_tanh_bf16x2(v.x), v.y = gelu_tanh_bf16x2(v.y);
    v.z = gelu_tanh_bf16x2(v.z), v.w = gelu_tanh_bf16x2(v.w);
    c[i] = v;
  }
  for (std::int64_t i = first; i < tail_pairs; i += stride) tail[i] = gelu_tanh_bf16x2(tail[i]);
}

/// gelu_tanh_bf16_inplace's launch: blocks per SM and threads per block.
constexpr int kGeluBlocksPerSm = 8, kGeluThreads = 256;

/// Applies gelu_tanh_bf16_inplace to `pairs` bf16 pairs at c (16-byte aligned, as cudaMalloc's).
void gelu_tanh_bf16(void* c, std::int64_t pairs, int sms) {
  std::int64_t const vecs = pairs / 4;
  gelu_tanh_bf16_inplace<<<kGeluBlocksPerSm * sms, kGeluThreads>>>(
      static_cast<uint4*>(c), vecs, static_cast<std::uint32_t*>(c) + 4 * vecs, pairs - 4 * vecs);
  BENCH_CHECK_CUDA(cudaGetLastError());
}

/// One thread per pair: the reference gelu_tanh_bf16 is checked against at startup.
__global__ void gelu_tanh_bf16_pairs(std::uint32_t* c, std::int64_t pairs) {
  std::int64_t const i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (i < pairs) c[i] = gelu_tanh_bf16x2(c[i]);
}

/// What cuBLASLt is asked to do (the fp8gemm benchmark it is the baseline of).
enum class LtMode {
  kPerTensor,      // default accumulation (cuBLASLt promotes)
  kFastAccum,      // CUBLASLT_MATMUL_DESC_FAST_ACCUM
  kBlockwise,      // A: 1x128 (VEC128_32F), B: 128x128 (BLK128x128_32F)
  kPerTensorGelu,  // per-tensor, then gelu_tanh_bf16 on C
};

/// cuBLASLt FP8: D[M,N] (row-major) = s_a s_b A[M,K] B[N,K]^T, as column-major D^T = B A^T ("TN").
/// ldb_pad: B's rows K + ldb_pad bytes apart (bench_fp8gemm's).
void bench_cublaslt(benchmark::State& state, int m, int n, int k, LtMode mode, int ldb_pad = 0) {
  Operands ops(m, n, k, mode == LtMode::kBlockwise, ldb_pad);
  cublasLtHandle_t handle;
  BENCH_CHECK_CUBLAS(cublasLtCreate(&handle));
  bool const blockwise = mode == LtMode::kBlockwise;  // our A: 1x128, our B: 128x128
  cublasLtMatmulDesc_t desc = fp8_tn_desc(
      ops.scale_a, ops.scale_b,
      blockwise ? CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F : CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F,
      blockwise ? CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F
                : CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F);
  if (mode == LtMode::kFastAccum) {
    std::int8_t const fast = 1;
    BENCH_CHECK_CUBLAS(
        cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast));
  }
  cublasLtMatrixLayout_t la, lb, lc;
  BENCH_CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, k, n, ops.ldb));
  BENCH_CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, k, m, k));
  BENCH_CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, n, m, n));
  std::size_t const ws_bytes = 64u << 20;
  void* ws = nullptr;
  BENCH_CHECK_CUDA(cudaMalloc(&ws, ws_bytes));
  cublasLtMatmulHeuristicResult_t heur[8] = {};
  int const found = fp8_heuristics(handle, desc, la, lb, lc, ws_bytes, heur);
  float const alpha = 1.0f, beta = 0.0f;
  // The first heuristic result that runs (in heuristic order) is the one timed.
  int chosen = -1;
  cublasStatus_t last = CUBLAS_STATUS_NOT_SUPPORTED;
  for (int i = 0; i < found && chosen < 0; ++i) {
    last = cublasLtMatmul(handle, desc, &alpha, ops.b[0], la, ops.a[0], lb, &beta, ops.c, lc, ops.c,
                          lc, &heur[i].algo, ws, ws_bytes, nullptr);
    if (last == CUBLAS_STATUS_SUCCESS) chosen = i;
  }
  if (chosen < 0) {  // diagnose: does the same call run without the scale pointers?
    float const* none = nullptr;
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &none, sizeof none);
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &none, sizeof none);
    cublasStatus_t const unscaled =
        found > 0 ? cublasLtMatmul(handle, desc, &alpha, ops.b[0], la, ops.a[0], lb, &beta, ops.c,
                                   lc, ops.c, lc, &heur[0].algo, ws, ws_bytes, nullptr)
                  : CUBLAS_STATUS_NOT_SUPPORTED;
    std::fprintf(stderr, "cuBLASLt %dx%dx%d: scaled status %d, unscaled status %d\n", m, n, k,
                 int(last), int(unscaled));
    state.SkipWithError(("cuBLASLt: no FP8 algorithm runs for this shape (found " +
                         std::to_string(found) + ", last status " + std::to_string(int(last)) + ")")
                            .c_str());
    return;
  }
  std::int64_t const pairs = std::int64_t(m) * n / 2;
  int sms = 0;
  BENCH_CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  time_loop(state, ops, [&](int set) {
    BENCH_CHECK_CUBLAS(cublasLtMatmul(handle, desc, &alpha, ops.b[set], la, ops.a[set], lb, &beta,
                                      ops.c, lc, ops.c, lc, &heur[chosen].algo, ws, ws_bytes,
                                      nullptr));
    if (mode == LtMode::kPerTensorGelu) gelu_tanh_bf16(ops.c, pairs, sms);
  });
  state.SetLabel(mode == LtMode::kFastAccum       ? "cublaslt_fp8_e4m3_tn_bf16_fast_accum"
                 : mode == LtMode::kBlockwise     ? "cublaslt_fp8_e4m3_tn_bf16_1x128_128x128"
                 : mode == LtMode::kPerTensorGelu ? "cublaslt_fp8_e4m3_tn_bf16 + gelu_tanh kernel"
                                                  : "cublaslt_fp8_e4m3_tn_bf16");
  BENCH_CHECK_CUBLAS(cublasLtMatrixLayoutDestroy(la));
  BENCH_CHECK_CUBLAS(cublasLtMatrixLayoutDestroy(lb));
  BENCH_CHECK_CUBLAS(cublasLtMatrixLayoutDestroy(lc));
  BENCH_CHECK_CUBLAS(cublasLtMatmulDescDestroy(desc));
  BENCH_CHECK_CUBLAS(cublasLtDestroy(handle));
  BENCH_CHECK_CUDA(cudaFree(ws));
}

struct Shape {
  int m, n, k;
};

std::string shape_name(Shape s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

template <class F>
void add(std::string const& name, F&& f) {
  benchmark::RegisterBenchmark(name.c_str(), std::forward<F>(f))
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
}

void add_cublaslt(std::string const& name, Shape s, LtMode mode) {
  add(name + "/" + shape_name(s),
      [s, mode](benchmark::State& st) { bench_cublaslt(st, s.m, s.n, s.k, mode); });
}

/// Swapped-operand decode (C^T = B A^T, Sm90WgmmaDecode<BlockMCols>): the smallest BlockMCols
/// >= M among 8, 16, 32 (one m-tile: B streamed once, 128 tiles at N = 8192); above 32, 128
/// (M = 128 in one m-tile: 128 tiles, one wave, 9 stages; Decode<32> would take 4 m-tiles and
/// stream B four times). H200 (bench/NOTES.md, eighteenth section): 1.09 / 1.07 / 1.03x cuBLASLt
/// at M = 1 / 16 / 32; above 32 the unswapped Sm90WgmmaSmallM (M = 64) and Sm90WgmmaMediumM
/// (M = 80-128) are faster than Decode<128>.
template <class Accumulation = AtomDefaultAccumulation>
void bench_decode_swapab(benchmark::State& st, Shape s, int split_k) {
  if (s.m <= 8)
    bench_fp8gemm<Sm90WgmmaDecode<8>, Accumulation>(st, s.m, s.n, s.k, split_k);
  else if (s.m <= 16)
    bench_fp8gemm<Sm90WgmmaDecode<16>, Accumulation>(st, s.m, s.n, s.k, split_k);
  else if (s.m <= 32)
    bench_fp8gemm<Sm90WgmmaDecode<32>, Accumulation>(st, s.m, s.n, s.k, split_k);
  else
    bench_fp8gemm<Sm90WgmmaDecode<128>, Accumulation>(st, s.m, s.n, s.k, split_k);
}

/// MidM<cols, e4m3fn, e4m3fn> for a run-time cols among 80, 96, 104, 112, 128 (and, with
/// kWide, 64, 160, 192); another value skips the benchmark. MidM: Sm90WgmmaMidM, its clustered
/// form Sm90WgmmaMidMMulticastB, or MidMStreamK.
template <template <int, class, class> class MidM, bool kWide = false>
void bench_mid_m(benchmark::State& st, Shape s, int cols) {
  auto run = [&](auto c) {
    bench_fp8gemm<MidM<decltype(c)::value, e4m3fn, e4m3fn>>(st, s.m, s.n, s.k);
  };
  switch (cols) {
    case 80:
      return run(std::integral_constant<int, 80>{});
    case 96:
      return run(std::integral_constant<int, 96>{});
    case 104:
      return run(std::integral_constant<int, 104>{});
    case 112:
      return run(std::integral_constant<int, 112>{});
    case 128:
      return run(std::integral_constant<int, 128>{});
    default:
      break;
  }
  if constexpr (kWide) {
    if (cols == 64) return run(std::integral_constant<int, 64>{});
    if (cols == 160) return run(std::integral_constant<int, 160>{});
    if (cols == 192) return run(std::integral_constant<int, 192>{});
  }
  st.SkipWithError("bench_mid_m: no policy of that width here");
}

/// Sm90WgmmaMidM with stream-K's walk.
template <int C, class EA = e4m3fn, class EB = e4m3fn>
using MidMStreamK = StreamK<Sm90WgmmaMidM<C, EA, EB>>;

/// Sm90WgmmaMidM<104> with its L2 promotion at 256 B (each TMA miss fetches the next k-block's
/// 128 B of the row too): what the tile streaming B from DRAM gains from it.
struct MidM104Promote256 : Sm90WgmmaMidM<104> {
  static constexpr arch::TmaL2Promotion kL2Promotion = arch::TmaL2Promotion::k256B;
};

/// The Sm90WgmmaMidM widths bench_mid_m has: the smallest one >= `rows`, or 0.
int mid_m_cols(int rows) {
  for (int c : {64, 80, 96, 104, 112, 128, 160, 192})
    if (c >= rows) return c;
  return 0;
}

/// Blockwise decode on the swapped tiles (WgmmaSwappedBlockScales; BlockMCols 8 / 16 / 32 by M as
/// above, 64 above 32), A's scales row-major or K-block-major (scale_a_ld = M).
void bench_decode_blockwise(benchmark::State& st, Shape s, std::int64_t scale_a_ld) {
  using Bw = Blockwise<1, 128, 128>;
  if (s.m <= 8)
    bench_fp8gemm<Sm90WgmmaDecode<8>, AtomDefaultAccumulation, Bw>(st, s.m, s.n, s.k, 1,
                                                                   scale_a_ld);
  else if (s.m <= 16)
    bench_fp8gemm<Sm90WgmmaDecode<16>, AtomDefaultAccumulation, Bw>(st, s.m, s.n, s.k, 1,
                                                                    scale_a_ld);
  else if (s.m <= 32)
    bench_fp8gemm<Sm90WgmmaDecode<32>, AtomDefaultAccumulation, Bw>(st, s.m, s.n, s.k, 1,
                                                                    scale_a_ld);
  else
    bench_fp8gemm<Sm90WgmmaDecode<64>, AtomDefaultAccumulation, Bw>(st, s.m, s.n, s.k, 1,
                                                                    scale_a_ld);
}

int register_all() {
  // Per-tensor shapes (issue 10's bars), a small one, and decode (M = 1, 16, 128).
  Shape const shapes[] = {{4096, 4096, 4096}, {8192, 8192, 8192},  {4096, 8192, 8192},
                          {1024, 4096, 1024}, {2048, 28672, 8192}, {2048, 8192, 28672},
                          {1, 8192, 8192},    {16, 8192, 8192},    {128, 8192, 8192}};
  for (Shape const s : shapes) {
    std::string const shape = shape_name(s);
    // The selecting GEMM beside cuBLASLt.
    add("fp8gemm/auto/" + shape, [s](benchmark::State& st) { bench_auto(st, s.m, s.n, s.k); });
    // Hopper TMA + WGMMA: promoted (the default) against cuBLASLt's default; fast accumulation
    // against cuBLASLt's fast accumulation.
    add("fp8gemm/sm90_wgmma_default/" + shape,
        [s](benchmark::State& st) { bench_fp8gemm<Sm90WgmmaDefault<>>(st, s.m, s.n, s.k); });
    add("fp8gemm/sm90_wgmma_fast_accum/" + shape, [s](benchmark::State& st) {
      bench_fp8gemm<Sm90WgmmaLarge<>, FastAccumulation>(st, s.m, s.n, s.k);
    });
    if (s.m <= 128) {
      add("fp8gemm/sm90_wgmma_small_m/" + shape,
          [s](benchmark::State& st) { bench_fp8gemm<Sm90WgmmaSmallM<>>(st, s.m, s.n, s.k); });
      // M = 128 in one tile row: 128 x 64, two cooperative consumers (cuBLASLt's kernel there is
      // named 128x64: 64 rows of M x 128 of N in our terms, since it computes C^T)
      add("fp8gemm/sm90_wgmma_medium_m/" + shape,
          [s](benchmark::State& st) { bench_fp8gemm<Sm90WgmmaMediumM<>>(st, s.m, s.n, s.k); });
      // swapped operands: 8 / 16 / 128 rows of A per stage next to 64 of B (the label names the
      // policy picked)
      add("fp8gemm/sm90_wgmma_decode_swapab/" + shape,
          [s](benchmark::State& st) { bench_decode_swapab(st, s, 1); });
      add("fp8gemm/sm90_wgmma_decode_swapab_fast_accum/" + shape,
          [s](benchmark::State& st) { bench_decode_swapab<FastAccumulation>(st, s, 1); });
    }
    if (s.m >= 2048) {
      // tile variant of the promoted default: 128 x 128, one m64 block per consumer (two
      // partial-sum sets: the pipelined promotion)
      add("fp8gemm/sm90_wgmma_128x128_s6/" + shape, [s](benchmark::State& st) {
        bench_fp8gemm<WgmmaTilePolicy<128, 128, 2, 6>>(st, s.m, s.n, s.k);
      });
      // ping-pong schedule: promoted 128 x 128 per consumer; fast 64 x 256 per consumer
      add("fp8gemm/sm90_wgmma_pingpong_128x128_s6/" + shape, [s](benchmark::State& st) {
        bench_fp8gemm<WgmmaTilePolicy<128, 128, 2, 6, e4m3fn, e4m3fn, WgmmaSchedule::kPingPong>>(
            st, s.m, s.n, s.k);
      });
      // 128 x 256 promoted in four n64 chunks (Sm90WgmmaLarge): 25 % fewer bytes of A and B per
      // unit of work than the 128 x 128 default
      add("fp8gemm/sm90_wgmma_large/" + shape,
          [s](benchmark::State& st) { bench_fp8gemm<Sm90WgmmaLarge<>>(st, s.m, s.n, s.k); });
      add("fp8gemm/sm90_wgmma_pingpong_fast_accum_64x256_s5/" + shape, [s](benchmark::State& st) {
        bench_fp8gemm<WgmmaTilePolicy<64, 256, 2, 5, e4m3fn, e4m3fn, WgmmaSchedule::kPingPong>,
                      FastAccumulation>(st, s.m, s.n, s.k);
      });
      // 2-CTA clusters sharing A's tile (pairs along N) or B's (pairs along M) by TMA multicast
      add("fp8gemm/sm90_wgmma_default_multicast_a/" + shape, [s](benchmark::State& st) {
        bench_fp8gemm<Sm90WgmmaDefaultMulticastA<>>(st, s.m, s.n, s.k);
      });
      add("fp8gemm/sm90_wgmma_default_multicast_b/" + shape, [s](benchmark::State& st) {
        bench_fp8gemm<Sm90WgmmaDefaultMulticastB<>>(st, s.m, s.n, s.k);
      });
      add("fp8gemm/sm90_wgmma_fast_accum_multicast_a/" + shape, [s](benchmark::State& st) {
        bench_fp8gemm<Sm90WgmmaFastMulticastA<>, FastAccumulation>(st, s.m, s.n, s.k);
      });
      add("fp8gemm/sm90_wgmma_fast_accum_multicast_b/" + shape, [s](benchmark::State& st) {
        bench_fp8gemm<Sm90WgmmaFastMulticastB<>, FastAccumulation>(st, s.m, s.n, s.k);
      });
    }
    // The portable mma.sync path.
    add("fp8gemm/sm90_default/" + shape,
        [s](benchmark::State& st) { bench_fp8gemm<Sm90Default<>>(st, s.m, s.n, s.k); });
    if (s.m <= 128)
      add("fp8gemm/sm90_small_m/" + shape,
          [s](benchmark::State& st) { bench_fp8gemm<Sm90SmallM<>>(st, s.m, s.n, s.k); });
    add_cublaslt("cublaslt", s, LtMode::kPerTensor);
    add_cublaslt("cublaslt_fast_accum", s, LtMode::kFastAccum);
  }
  // Stream-K against the tile-per-CTA walk where the tiles leave a partial last wave of the 132
  // SMs (96 tiles of 128 x 128 at 512 x 3072; 288 at 512 x 9216: 2.2 waves; 96 at 200 x 6144 and
  // 224 x 9216 with 128 x 192), and a full-wave control (4096 x 4096 x 7168: 1024 tiles, 7.8
  // waves). 256 x 6144 x 16384: 96 tiles in two rows, B 100 MB, cut in column groups (the case
  // they were made for, still behind the whole tiles: docs/performance.md#sm90-stream-k).
  for (Shape const s : {Shape{512, 3072, 8192}, Shape{512, 9216, 4096}, Shape{200, 6144, 4096},
                        Shape{224, 9216, 4096}, Shape{4096, 4096, 7168}, Shape{256, 6144, 16384}}) {
    std::string const shape = shape_name(s);
    add("fp8gemm/sm90_wgmma_default/" + shape,
        [s](benchmark::State& st) { bench_fp8gemm<Sm90WgmmaDefault<>>(st, s.m, s.n, s.k); });
    add("fp8gemm/sm90_wgmma_default_stream_k/" + shape, [s](benchmark::State& st) {
      bench_fp8gemm<StreamK<Sm90WgmmaDefault<>>>(st, s.m, s.n, s.k);
    });
    add("fp8gemm/sm90_wgmma_large/" + shape,
        [s](benchmark::State& st) { bench_fp8gemm<Sm90WgmmaLarge<>>(st, s.m, s.n, s.k); });
    add("fp8gemm/sm90_wgmma_large_stream_k/" + shape,
        [s](benchmark::State& st) { bench_fp8gemm<StreamK<Sm90WgmmaLarge<>>>(st, s.m, s.n, s.k); });
    add("fp8gemm/sm90_wgmma_128x192/" + shape, [s](benchmark::State& st) {
      bench_fp8gemm<WgmmaTilePolicy<128, 192, 2, 4>>(st, s.m, s.n, s.k);
    });
    add("fp8gemm/sm90_wgmma_128x192_stream_k/" + shape, [s](benchmark::State& st) {
      bench_fp8gemm<StreamK<WgmmaTilePolicy<128, 192, 2, 4>>>(st, s.m, s.n, s.k);
    });
    add_cublaslt("cublaslt", s, LtMode::kPerTensor);
  }
  // M = 129-256 in one tile row: the wide swapped tiles (Sm90WgmmaDecode<160 / 192 / 256>, the
  // wgmma N following M) read B once, where 128-row tiles cover M in two tile rows and pad it to
  // 256; beside both 128-row policies and cuBLASLt. Measured slower than the 128-row tiles
  // (docs/performance.md#sm90-wide-swapped-tiles): not AutoGemm candidates.
  // Beside them the two-consumer swapped tiles (Sm90WgmmaMidM<cols>), with M in one, two or
  // three tile rows of the smallest width that holds M / rows.
  for (Shape const s : {Shape{96, 28672, 4096}, Shape{160, 28672, 4096}, Shape{192, 24576, 1536},
                        Shape{200, 28672, 4096}, Shape{200, 8192, 8192}, Shape{200, 57344, 8192},
                        Shape{256, 4096, 4096}}) {
    std::string const shape = shape_name(s);
    for (int rows = 1; rows <= 3; ++rows) {
      int const cols = mid_m_cols((s.m + rows - 1) / rows);
      if (cols == 0 || (rows > 1 && cols == mid_m_cols((s.m + rows - 2) / (rows - 1)))) continue;
      add("fp8gemm/sm90_wgmma_mid_m" + std::to_string(cols) + "/" + shape,
          [s, cols](benchmark::State& st) { bench_mid_m<Sm90WgmmaMidM, true>(st, s, cols); });
      if (rows == 2 && cols >= 80 && cols <= 128)  // the cluster's two tiles: both tile rows
        add("fp8gemm/sm90_wgmma_mid_m" + std::to_string(cols) + "_multicast_b/" + shape,
            [s, cols](benchmark::State& st) { bench_mid_m<Sm90WgmmaMidMMulticastB>(st, s, cols); });
    }
    if (s.m == 200) {
      // stages (5 and 6 with the TMA-store epilogue, 7 with register stores: no room for its
      // staging) and the L2 promotion, at 104 columns
      add("fp8gemm/sm90_wgmma_mid_m104_s5/" + shape, [s](benchmark::State& st) {
        bench_fp8gemm<WgmmaSwapABPolicy<128, 104, 2, 5>>(st, s.m, s.n, s.k);
      });
      add("fp8gemm/sm90_wgmma_mid_m104_s7_register_stores/" + shape, [s](benchmark::State& st) {
        bench_fp8gemm<WgmmaSwapABPolicy<128, 104, 2, 7>>(st, s.m, s.n, s.k);
      });
      // one consumer, 64 rows of N per tile: 896 tiles at N = 28672 (6.8 waves of 132, where
      // the two-consumer tiles' 448 are 3.4), more stages (10), register stores
      add("fp8gemm/sm90_wgmma_decode104/" + shape,
          [s](benchmark::State& st) { bench_fp8gemm<Sm90WgmmaDecode<104>>(st, s.m, s.n, s.k); });
      add("fp8gemm/sm90_wgmma_mid_m104_promote256/" + shape,
          [s](benchmark::State& st) { bench_fp8gemm<MidM104Promote256>(st, s.m, s.n, s.k); });
    }
    if (s.m > 128)  // stream-K: the tiles' k-blocks cut evenly over the SMs
      add("fp8gemm/sm90_wgmma_mid_m" + std::to_string(mid_m_cols((s.m + 1) / 2)) + "_stream_k/" +
              shape,
          [s](benchmark::State& st) {
            bench_mid_m<MidMStreamK>(st, s, mid_m_cols((s.m + 1) / 2));
          });
    if (s.m > 128)  // 128-row tiles as a cluster of the two tile rows
      add("fp8gemm/sm90_wgmma_default_multicast_b/" + shape, [s](benchmark::State& st) {
        bench_fp8gemm<Sm90WgmmaDefaultMulticastB<>>(st, s.m, s.n, s.k);
      });
    if (s.m <= 128)
      add("fp8gemm/sm90_wgmma_medium_m/" + shape,
          [s](benchmark::State& st) { bench_fp8gemm<Sm90WgmmaMediumM<>>(st, s.m, s.n, s.k); });
    if (s.m > 128)
      add("fp8gemm/sm90_wgmma_decode_wide/" + shape, [s](benchmark::State& st) {
        if (s.m <= 160)
          bench_fp8gemm<Sm90WgmmaDecode<160>>(st, s.m, s.n, s.k);
        else if (s.m <= 192)
          bench_fp8gemm<Sm90WgmmaDecode<192>>(st, s.m, s.n, s.k);
        else
          bench_fp8gemm<Sm90WgmmaDecode<256>>(st, s.m, s.n, s.k);
      });
    add("fp8gemm/sm90_wgmma_default/" + shape,
        [s](benchmark::State& st) { bench_fp8gemm<Sm90WgmmaDefault<>>(st, s.m, s.n, s.k); });
    add("fp8gemm/sm90_wgmma_large/" + shape,
        [s](benchmark::State& st) { bench_fp8gemm<Sm90WgmmaLarge<>>(st, s.m, s.n, s.k); });
    add_cublaslt("cublaslt", s, LtMode::kPerTensor);
  }
  // The mid-M holes (per-tensor points below 0.95x cuBLASLt at M = 200-512,
  // docs/performance.md#sm90-narrow-n-tiles): fast accumulation, ours and cuBLASLt's, beside the
  // promoted entries the mid-M and stream-K lists above register at these shapes (what promoting
  // every k-block costs each kernel there).
  for (Shape const s : {Shape{200, 28672, 4096}, Shape{200, 8192, 8192}, Shape{256, 6144, 16384},
                        Shape{512, 9216, 4096}, Shape{512, 3072, 8192}}) {
    std::string const shape = shape_name(s);
    add("fp8gemm/sm90_wgmma_default_fast_accum/" + shape, [s](benchmark::State& st) {
      bench_fp8gemm<Sm90WgmmaDefault<>, FastAccumulation>(st, s.m, s.n, s.k);
    });
    if (s.m == 200)
      add("fp8gemm/sm90_wgmma_mid_m104_fast_accum/" + shape, [s](benchmark::State& st) {
        bench_fp8gemm<Sm90WgmmaMidM<104>, FastAccumulation>(st, s.m, s.n, s.k);
      });
    add_cublaslt("cublaslt_fast_accum", s, LtMode::kFastAccum);
    // B's rows padded past a power of two (K + 128 / + 512 bytes): whether the rate at which these
    // kernels stream the weights from DRAM depends on where their rows fall
    // (docs/performance.md#sm90-mid-m: the same bytes read at 2.05 TB/s here, 2.44 by cuBLASLt)
    for (int pad : {128, 512}) {
      std::string const tag = "_ldb_pad" + std::to_string(pad) + "/" + shape;
      add("fp8gemm/sm90_wgmma_default" + tag, [s, pad](benchmark::State& st) {
        bench_fp8gemm<Sm90WgmmaDefault<>>(st, s.m, s.n, s.k, 1, 0, pad);
      });
      if (s.m == 200)
        add("fp8gemm/sm90_wgmma_mid_m104" + tag, [s, pad](benchmark::State& st) {
          bench_fp8gemm<Sm90WgmmaMidM<104>>(st, s.m, s.n, s.k, 1, 0, pad);
        });
      add("cublaslt" + tag, [s, pad](benchmark::State& st) {
        bench_cublaslt(st, s.m, s.n, s.k, LtMode::kPerTensor, pad);
      });
    }
  }
  // Decode with fewer 64-wide tiles than SMs (N = 4096: 64 tiles): split-K over the idle SMs.
  for (Shape const s : {Shape{16, 4096, 8192}}) {
    std::string const shape = shape_name(s);
    add("fp8gemm/sm90_wgmma_small_m/" + shape,
        [s](benchmark::State& st) { bench_fp8gemm<Sm90WgmmaSmallM<>>(st, s.m, s.n, s.k); });
    add("fp8gemm/sm90_wgmma_small_m_split2/" + shape,
        [s](benchmark::State& st) { bench_fp8gemm<Sm90WgmmaSmallM<>>(st, s.m, s.n, s.k, 2); });
    add("fp8gemm/sm90_wgmma_decode_swapab/" + shape,
        [s](benchmark::State& st) { bench_decode_swapab(st, s, 1); });
    add("fp8gemm/sm90_wgmma_decode_swapab_split2/" + shape,
        [s](benchmark::State& st) { bench_decode_swapab(st, s, 2); });
    add_cublaslt("cublaslt", s, LtMode::kPerTensor);
  }
  // A few waves of tiles (128 x 128 tiles on 132 SMs): 144 (1.09 waves), 320 (2.42), 324 (2.45),
  // where the last partial wave weighs most (bench/NOTES.md: the stream-K tail measured here).
  for (Shape const s :
       {Shape{1536, 1536, 8192}, Shape{2048, 2560, 8192}, Shape{2304, 2304, 4096}}) {
    std::string const shape = shape_name(s);
    add("fp8gemm/sm90_wgmma_default/" + shape,
        [s](benchmark::State& st) { bench_fp8gemm<Sm90WgmmaDefault<>>(st, s.m, s.n, s.k); });
    add("fp8gemm/sm90_wgmma_large/" + shape,
        [s](benchmark::State& st) { bench_fp8gemm<Sm90WgmmaLarge<>>(st, s.m, s.n, s.k); });
    // split-K 2 through the workspace and the reduction kernel: 2.2 / 4.8 / 4.9 waves of half
    // tiles
    add("fp8gemm/sm90_wgmma_default_split2/" + shape,
        [s](benchmark::State& st) { bench_fp8gemm<Sm90WgmmaDefault<>>(st, s.m, s.n, s.k, 2); });
    add_cublaslt("cublaslt", s, LtMode::kPerTensor);
  }
  // Fused GELU-tanh against cuBLASLt + a separate GELU kernel.
  for (Shape const s : {Shape{4096, 4096, 4096}, Shape{8192, 8192, 8192}}) {
    add("fp8gemm/sm90_wgmma_default_gelu_tanh/" + shape_name(s), [s](benchmark::State& st) {
      bench_fp8gemm<Sm90WgmmaDefault<>, AtomDefaultAccumulation, PerTensor, GeluTanh>(st, s.m, s.n,
                                                                                      s.k);
    });
    add("fp8gemm/sm90_wgmma_large_gelu_tanh/" + shape_name(s), [s](benchmark::State& st) {
      bench_fp8gemm<Sm90WgmmaLarge<>, AtomDefaultAccumulation, PerTensor, GeluTanh>(st, s.m, s.n,
                                                                                    s.k);
    });
    add_cublaslt("cublaslt_then_gelu", s, LtMode::kPerTensorGelu);
  }
  // 1x128 (A) . 128x128 (B) block scales against cuBLASLt's blockwise mode.
  for (Shape const s : {Shape{4096, 7168, 16384}, Shape{4096, 4096, 7168}, Shape{2048, 5120, 8192},
                        Shape{2048, 28672, 8192}}) {
    add("fp8gemm/sm90_wgmma_default_blockwise/" + shape_name(s), [s](benchmark::State& st) {
      bench_fp8gemm<Sm90WgmmaDefault<>, AtomDefaultAccumulation, Blockwise<1, 128, 128>>(st, s.m,
                                                                                         s.n, s.k);
    });
    add("fp8gemm/sm90_wgmma_large_blockwise/" + shape_name(s), [s](benchmark::State& st) {
      bench_fp8gemm<Sm90WgmmaLarge<>, AtomDefaultAccumulation, Blockwise<1, 128, 128>>(st, s.m, s.n,
                                                                                       s.k);
    });
    // the 128 x 256 one with A's scales K-block-major: through the scale ring (the 128 x 128
    // tile with bf16 C keeps its TMA stores instead: WgmmaEpilogueChoice)
    add("fp8gemm/sm90_wgmma_large_blockwise_ring/" + shape_name(s), [s](benchmark::State& st) {
      bench_fp8gemm<Sm90WgmmaLarge<>, AtomDefaultAccumulation, Blockwise<1, 128, 128>>(st, s.m, s.n,
                                                                                       s.k, 1, s.m);
    });
    // 128 x 128 in five stages, where the ring's slots and the TMA-store staging both fit:
    // against sm90_wgmma_default_blockwise (six stages, TMA stores, no ring), with A's scales
    // row-major (no ring) and K-block-major (the ring)
    add("fp8gemm/wgmma_128x128_s5_blockwise/" + shape_name(s), [s](benchmark::State& st) {
      bench_fp8gemm<WgmmaTilePolicy<128, 128, 2, 5>, AtomDefaultAccumulation,
                    Blockwise<1, 128, 128>>(st, s.m, s.n, s.k);
    });
    add("fp8gemm/wgmma_128x128_s5_blockwise_ring/" + shape_name(s), [s](benchmark::State& st) {
      bench_fp8gemm<WgmmaTilePolicy<128, 128, 2, 5>, AtomDefaultAccumulation,
                    Blockwise<1, 128, 128>>(st, s.m, s.n, s.k, 1, s.m);
    });
    add("fp8gemm/sm90_wgmma_default_blockwise_multicast_a/" + shape_name(s), [s](benchmark::State&
                                                                                     st) {
      bench_fp8gemm<Sm90WgmmaDefaultMulticastA<>, AtomDefaultAccumulation, Blockwise<1, 128, 128>>(
          st, s.m, s.n, s.k);
    });
    // the scale ring in 2-CTA clusters (A or B multicast): 128 x 128 in five stages, 128 x 256
    auto ring = [s](std::string const& name, auto policy) {
      using P = typename decltype(policy)::type;
      add("fp8gemm/" + name + "_blockwise_ring/" + shape_name(s), [s](benchmark::State& st) {
        bench_fp8gemm<P, AtomDefaultAccumulation, Blockwise<1, 128, 128>>(st, s.m, s.n, s.k, 1,
                                                                          s.m);
      });
    };
    ring("wgmma_128x128_s5_multicast_a", PolicyTag<Multicast<128, 5, WgmmaMulticast::kA>>{});
    ring("wgmma_128x128_s5_multicast_b", PolicyTag<Multicast<128, 5, WgmmaMulticast::kB>>{});
    ring("sm90_wgmma_large_multicast_a", PolicyTag<Multicast<256, 3, WgmmaMulticast::kA>>{});
    ring("sm90_wgmma_large_multicast_b", PolicyTag<Multicast<256, 3, WgmmaMulticast::kB>>{});
    // 256 x 128 (two m64 row blocks per consumer, promoted per row block) with the ring and
    // checked tiles, alone and in clusters of two along N (A multicast: DeepGEMM's choice here)
    ring("wgmma_256x128_s4", PolicyTag<WgmmaTilePolicy<256, 128, 2, 4>>{});
    ring("wgmma_256x128_s4_multicast_a",
         PolicyTag<WgmmaTilePolicy<256, 128, 2, 4, e4m3fn, e4m3fn, WgmmaSchedule::kCooperative,
                                   WgmmaMulticast::kA>>{});
    add("fp8gemm/wgmma_256x128_s4/" + shape_name(s), [s](benchmark::State& st) {
      bench_fp8gemm<WgmmaTilePolicy<256, 128, 2, 4>>(st, s.m, s.n, s.k);
    });
    // fast accumulation on both tile shapes: no promotion, so no per-row-block full wait (the
    // 256 x 128 loop's bound without its promotion schedule)
    add("fp8gemm/wgmma_256x128_s4_fast_accum/" + shape_name(s), [s](benchmark::State& st) {
      bench_fp8gemm<WgmmaTilePolicy<256, 128, 2, 4>, FastAccumulation>(st, s.m, s.n, s.k);
    });
    add("fp8gemm/sm90_wgmma_large_fast_accum/" + shape_name(s), [s](benchmark::State& st) {
      bench_fp8gemm<Sm90WgmmaLarge<>, FastAccumulation>(st, s.m, s.n, s.k);
    });
    // and per-tensor on the same clustered tiles (the bound of each)
    add("fp8gemm/wgmma_128x128_s5_multicast_b/" + shape_name(s), [s](benchmark::State& st) {
      bench_fp8gemm<Multicast<128, 5, WgmmaMulticast::kB>>(st, s.m, s.n, s.k);
    });
    add("fp8gemm/sm90_wgmma_large_multicast_b/" + shape_name(s), [s](benchmark::State& st) {
      bench_fp8gemm<Multicast<256, 3, WgmmaMulticast::kB>>(st, s.m, s.n, s.k);
    });
    add("fp8gemm/auto_blockwise/" + shape_name(s),
        [s](benchmark::State& st) { bench_auto<Blockwise<1, 128, 128>>(st, s.m, s.n, s.k); });
    add_cublaslt("cublaslt_blockwise", s, LtMode::kBlockwise);
    // The same shapes per-tensor, ours and cuBLASLt's: a Blockwise kernel does all of the
    // per-tensor kernel's work and more, so cuBLASLt blockwise time / our per-tensor time bounds
    // the ratio a Blockwise kernel on the same main loop can reach (docs/benchmark.md, the bars).
    add("fp8gemm/sm90_wgmma_large/" + shape_name(s),
        [s](benchmark::State& st) { bench_fp8gemm<Sm90WgmmaLarge<>>(st, s.m, s.n, s.k); });
    add_cublaslt("cublaslt", s, LtMode::kPerTensor);
  }
  // Blockwise decode (docs/performance.md#sm90-swapped-blockwise): the swapped tiles against
  // Sm90WgmmaSmallM (what AutoGemm runs there), and the per-tensor decode tile (the bound: the
  // blockwise kernel does its work and more). cuBLASLt has no blockwise algorithm at M = 1.
  for (Shape const s : {Shape{1, 8192, 8192}, Shape{16, 7168, 2048}, Shape{32, 4096, 7168},
                        Shape{64, 8192, 8192}}) {
    std::string const shape = shape_name(s);
    add("fp8gemm/sm90_wgmma_small_m_blockwise/" + shape, [s](benchmark::State& st) {
      bench_fp8gemm<Sm90WgmmaSmallM<>, AtomDefaultAccumulation, Blockwise<1, 128, 128>>(st, s.m,
                                                                                        s.n, s.k);
    });
    add("fp8gemm/sm90_wgmma_decode_blockwise/" + shape,
        [s](benchmark::State& st) { bench_decode_blockwise(st, s, 0); });
    add("fp8gemm/sm90_wgmma_decode_blockwise_kbmajor/" + shape,
        [s](benchmark::State& st) { bench_decode_blockwise(st, s, s.m); });
    add("fp8gemm/sm90_wgmma_decode_per_tensor/" + shape,
        [s](benchmark::State& st) { bench_decode_swapab(st, s, 1); });
  }
  return 0;
}

/// The baseline's GELU kernel (gelu_tanh_bf16) against one thread per pair on random bf16 pairs
/// (normal values, |x| in [2^-8, 2^8), both signs): bit-identical, and the activation changed most
/// of them. This checks the kernel's indexing (vectors, grid stride, tail), not the activation
/// (both call gelu_tanh_bf16x2). Two and a half grid strides of vectors plus 3 pairs, so the
/// stride loop runs more than once and the tail loop runs. Returns false (and says why) otherwise.
bool gelu_baseline_is_exact() {
  int sms = 0;
  BENCH_CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  std::int64_t const stride_pairs = 4 * std::int64_t(kGeluBlocksPerSm) * sms * kGeluThreads;
  std::int64_t const pairs = 5 * stride_pairs / 2 + 3;
  std::vector<std::uint32_t> host(pairs);
  std::uint64_t const seed = std::random_device{}();
  std::mt19937_64 rng(seed);
  auto bf16_bits = [&] {  // sign, exponent 119..134 (2^-8 .. 2^7), 7 mantissa bits
    std::uint64_t const r = rng();
    return std::uint32_t((r & 0x8000u) | ((119u + (r >> 16) % 16u) << 7) | (r & 0x7Fu));
  };
  for (auto& v : host) v = bf16_bits() | (bf16_bits() << 16);
  std::uint32_t *vec = nullptr, *ref = nullptr;
  BENCH_CHECK_CUDA(cudaMalloc(&vec, pairs * 4));
  BENCH_CHECK_CUDA(cudaMalloc(&ref, pairs * 4));
  BENCH_CHECK_CUDA(cudaMemcpy(vec, host.data(), pairs * 4, cudaMemcpyHostToDevice));
  BENCH_CHECK_CUDA(cudaMemcpy(ref, host.data(), pairs * 4, cudaMemcpyHostToDevice));
  gelu_tanh_bf16(vec, pairs, sms);
  gelu_tanh_bf16_pairs<<<int((pairs + 255) / 256), 256>>>(ref, pairs);
  BENCH_CHECK_CUDA(cudaGetLastError());
  std::vector<std::uint32_t> got(pairs), want(pairs);
  BENCH_CHECK_CUDA(cudaMemcpy(got.data(), vec, pairs * 4, cudaMemcpyDeviceToHost));
  BENCH_CHECK_CUDA(cudaMemcpy(want.data(), ref, pairs * 4, cudaMemcpyDeviceToHost));
  BENCH_CHECK_CUDA(cudaFree(vec));
  BENCH_CHECK_CUDA(cudaFree(ref));
  std::int64_t differ = 0, changed = 0;
  for (std::int64_t i = 0; i < pairs; ++i)
    differ += got[i] != want[i], changed += got[i] != host[i];
  std::printf(
      "GELU baseline kernel: %lld of %lld bf16 pairs differ from one thread per pair; GELU "
      "changed %lld (seed %llu)\n",
      static_cast<long long>(differ), static_cast<long long>(pairs),
      static_cast<long long>(changed), static_cast<unsigned long long>(seed));
  return differ == 0 && changed > pairs / 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (!gelu_baseline_is_exact()) {
    std::fprintf(stderr, "the GELU baseline kernel is wrong: not benchmarking against it\n");
    return 1;
  }
  register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
