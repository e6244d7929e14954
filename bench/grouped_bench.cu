// SPDX-License-Identifier: MIT
// fp8gemm_grouped_bench: GroupedGemm (several tile policies) against a CUDA-graph-captured loop of
// cuBLASLt matmuls (one per non-empty group, each with its own M) in the same scale mode, on the
// mixture-of-experts and batched cases of issue 34; writes JSON.
//
//   fp8gemm_grouped_bench --out grouped.json [--rounds 7] [--cases name,...] [--commit C]
//                         [--entries name,...]
//
// --cases: cases of the fixed list (all_cases), or contiguous ones named as they are
// ("{groups}x{rows}_n{N}_k{K}_{granularity}"); --entries: only those entries (and the cuBLASLt
// loop, which the ratios divide by).
// Batched per-tensor cases also time cuBLASLt's strided-batched matmul ("cublaslt_strided"); every
// case AutoGroupedGemm as a user calls it ("auto_<choice>"), and the few-tile cases split-K 2, 4
// and 8 of the 128 x 256 and 128 x 128 tiles ("..._split<S>").
// Method, per case: every entry (each of our policies, the cuBLASLt loop) captured once as a CUDA
// graph of one call; `rounds` rounds replay every entry's graph in a fresh random order (seeded),
// once untimed and once between two events; an entry's time is the median over rounds. The MoE
// and batched cases' A and B exceed the H200's 50 MB L2 several times (the smallest, 64 x (128 x
// 7168 x 512), moves 240 MB), so no operand rotation; the two few-tile cases (about 31 MB) stay
// in L2 between replays, for every entry alike. Group sizes: contiguous cases draw each expert's
// rows around the mean (a fixed seed; the JSON lists them); bf16 C, no bias.
// TFLOP/s count 2 ΣM N K; decode cases also report the active experts' weight bytes per second.
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench_check.hpp"
#include "cublaslt_fp8.hpp"
#include "fp8gemm/device/auto_grouped_gemm.hpp"
#include "fp8gemm/device/grouped_gemm.hpp"
#include "fp8gemm/fp8gemm.hpp"

namespace {

using namespace fp8gemm;

struct Case {
  std::string name;
  GroupMode mode;
  std::string granularity;  // per_tensor, per_channel, blockwise
  int groups, mean_rows, n, k;
  bool decode = false;  // report weight bytes per second
};

std::vector<Case> all_cases() {
  std::vector<Case> v;
  for (std::string g : {"per_channel", "blockwise"}) {
    v.push_back({"8x4096_n4096_k7168_" + g, GroupMode::kContiguous, g, 8, 4096, 4096, 7168, false});
    v.push_back({"4x8192_n7168_k2048_" + g, GroupMode::kContiguous, g, 4, 8192, 7168, 2048, false});
    v.push_back({"4x8192_n4096_k7168_" + g, GroupMode::kContiguous, g, 4, 8192, 4096, 7168, false});
    v.push_back(
        {"256x512_n4096_k7168_" + g, GroupMode::kContiguous, g, 256, 512, 4096, 7168, false});
    v.push_back(
        {"128x256_n4096_k1536_" + g, GroupMode::kContiguous, g, 128, 256, 4096, 1536, false});
    v.push_back(
        {"masked_1x1024_n4096_k7168_" + g, GroupMode::kMasked, g, 1, 1024, 4096, 7168, false});
    v.push_back(
        {"masked_4x256_n4096_k7168_" + g, GroupMode::kMasked, g, 4, 256, 4096, 7168, false});
    v.push_back(
        {"masked_4x256_n7168_k2048_" + g, GroupMode::kMasked, g, 4, 256, 7168, 2048, false});
  }
  v.push_back({"decode_256x2_n4096_k7168_per_channel", GroupMode::kContiguous, "per_channel", 256,
               2, 4096, 7168, true});
  v.push_back({"decode_256x32_n4096_k7168_per_channel", GroupMode::kContiguous, "per_channel", 256,
               32, 4096, 7168, true});
  v.push_back({"batched_16x2048_n2048_k2048_per_tensor", GroupMode::kBatched, "per_tensor", 16,
               2048, 2048, 2048, false});
  v.push_back({"batched_64x128_n7168_k512_per_tensor", GroupMode::kBatched, "per_tensor", 64, 128,
               7168, 512, false});
  // few tiles for the SMs (split-K): two experts of ~128 rows, N 2048; four masked groups of 64
  // rows, N 1024 (blockwise)
  v.push_back({"few_2x128_n2048_k7168_per_channel", GroupMode::kContiguous, "per_channel", 2, 128,
               2048, 7168, false});
  v.push_back({"masked_4x64_n1024_k7168_blockwise", GroupMode::kMasked, "blockwise", 4, 64, 1024,
               7168, false});
  return v;
}

/// A contiguous case named as all_cases' are, "{groups}x{rows}_n{N}_k{K}_{granularity}" (e.g.
/// 64x512_n4096_k7168_per_channel), for shapes the fixed list lacks; false where the name is not
/// of that form.
bool case_from_name(std::string const& name, Case& c) {
  int g = 0, r = 0, n = 0, k = 0, used = 0;
  if (std::sscanf(name.c_str(), "%dx%d_n%d_k%d_%n", &g, &r, &n, &k, &used) != 4 || used == 0)
    return false;
  std::string const gran = name.substr(used);
  if (gran != "per_channel" && gran != "blockwise" && gran != "per_tensor") return false;
  if (g < 1 || r < 1 || n < 1 || k < 1) return false;
  c = {name, GroupMode::kContiguous, gran, g, r, n, k, false};
  return true;
}

/// Each group's rows: the mean for masked and batched; contiguous: uniform in [mean / 2,
/// 3 mean / 2] (at least 0), a fixed seed, so that groups are uneven as routed tokens are.
std::vector<int> group_rows(Case const& c) {
  std::vector<int> rows(c.groups, c.mean_rows);
  if (c.mode != GroupMode::kContiguous || c.groups == 1) return rows;
  std::mt19937 rng(1234 + c.groups);
  std::uniform_int_distribution<int> d(c.mean_rows / 2, c.mean_rows + c.mean_rows / 2);
  for (int& r : rows) r = d(rng);
  return rows;
}

__global__ void fill_fp8(std::uint8_t* p, std::size_t n, std::uint32_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    std::uint32_t h = std::uint32_t(i) * 2654435761u ^ seed;
    h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
    // e4m3fn / e5m2 bytes of moderate magnitude: sign, exponent field 4..9, mantissa
    p[i] = std::uint8_t((h & 0x87u) | ((4u + (h >> 8) % 6u) << 3));
  }
}
__global__ void fill_float(float* p, std::size_t n, float v) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = v;
}

struct Entry {
  Entry(std::string n, std::function<void(cudaStream_t)> l)
      : name(std::move(n)), launch(std::move(l)) {}
  std::string name;
  std::function<void(cudaStream_t)> launch;
  std::vector<double> us;
  cudaGraphExec_t graph = nullptr;
  double median() const {
    std::vector<double> v = us;
    std::sort(v.begin(), v.end());
    return v.empty()      ? 0
           : v.size() % 2 ? v[v.size() / 2]
                          : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  }
};

/// The operands of one case on the device: A [rows_a, K], B [G, N, K], C [rows_c, N] bf16, scales
/// with room for every mode, the counts, the workspace.
struct Operands {
  int rows_a = 0, rows_c = 0;
  std::vector<int> rows, offs;
  void *a = nullptr, *b = nullptr, *c = nullptr, *ws = nullptr;
  float *sa = nullptr, *sb = nullptr;
  int* counts = nullptr;
  static constexpr std::size_t kWorkspaceBytes = std::size_t(64) << 20;
  Operands(Case const& cs) {
    rows = group_rows(cs);
    int sum = 0;
    for (int r : rows) offs.push_back(sum += r);
    rows_a = cs.mode == GroupMode::kContiguous ? sum : cs.groups * cs.mean_rows;
    rows_c = rows_a;
    std::size_t const a_bytes = std::size_t(rows_a) * cs.k,
                      b_bytes = std::size_t(cs.groups) * cs.n * cs.k;
    BENCH_CHECK_CUDA(cudaMalloc(&a, a_bytes));
    BENCH_CHECK_CUDA(cudaMalloc(&b, b_bytes));
    BENCH_CHECK_CUDA(cudaMalloc(&c, std::size_t(rows_c) * cs.n * 2));
    std::size_t const kb = (cs.k + 127) / 128;
    std::size_t const sa_n = std::max<std::size_t>(std::size_t(rows_a) * kb, cs.groups) + 1024;
    std::size_t const sb_n =
        std::size_t(cs.groups) * std::max<std::size_t>(cs.n, (cs.n + 127) / 128 * kb) + 1024;
    BENCH_CHECK_CUDA(cudaMalloc(&sa, sa_n * sizeof(float)));
    BENCH_CHECK_CUDA(cudaMalloc(&sb, sb_n * sizeof(float)));
    BENCH_CHECK_CUDA(cudaMalloc(&counts, sizeof(int) * cs.groups));
    BENCH_CHECK_CUDA(cudaMalloc(&ws, kWorkspaceBytes));
    std::vector<int> const& dev = cs.mode == GroupMode::kMasked ? rows : offs;
    BENCH_CHECK_CUDA(
        cudaMemcpy(counts, dev.data(), sizeof(int) * cs.groups, cudaMemcpyHostToDevice));
    fill_fp8<<<1024, 256>>>(static_cast<std::uint8_t*>(a), a_bytes, 11);
    fill_fp8<<<1024, 256>>>(static_cast<std::uint8_t*>(b), b_bytes, 22);
    fill_float<<<256, 256>>>(sa, sa_n, 0.01f);
    fill_float<<<256, 256>>>(sb, sb_n, 0.02f);
    BENCH_CHECK_CUDA(cudaDeviceSynchronize());
  }
  ~Operands() {
    for (void* p :
         {a, b, c, ws, static_cast<void*>(sa), static_cast<void*>(sb), static_cast<void*>(counts)})
      cudaFree(p);
  }
};

/// One entry: Op (a GroupedGemm, an AutoGroupedGemm or a Gemm) run on `args`; false (and why)
/// where it refuses them or its workspace would pass the bench's.
template <class Op, class Args>
bool add_entry(std::vector<Entry>& entries, std::string const& label, Args const& args) {
  Status const st = Op::workspace_size(args) > Operands::kWorkspaceBytes
                        ? Status::error(StatusCode::kErrorInvalidSize,
                                        "its workspace passes the bench's " +
                                            std::to_string(Operands::kWorkspaceBytes) + " bytes")
                        : Op::can_implement(args);
  if (!st.ok()) {
    std::fprintf(stderr, "  %s refused: %s\n", label.c_str(), st.to_string().c_str());
    return false;
  }
  entries.emplace_back(label, [args](cudaStream_t s) {
    Status const r = Op::run(args, s);
    if (!r.ok()) {
      std::fprintf(stderr, "run: %s\n", r.to_string().c_str());
      std::exit(1);
    }
  });
  return true;
}

/// A case's grouped arguments (GG: the GroupedGemm whose Arguments and scale counts they are).
template <class GG>
void fill_grouped(typename GG::Arguments& args, Case const& cs, Operands& ops) {
  args.mode = cs.mode;
  args.problem = {cs.mode == GroupMode::kContiguous ? ops.rows_a : cs.mean_rows, cs.n, cs.k,
                  cs.groups};
  args.a = static_cast<typename GG::ElementA const*>(ops.a), args.lda = cs.k;
  args.b = static_cast<typename GG::ElementB const*>(ops.b), args.ldb = cs.k;
  if (cs.mode == GroupMode::kContiguous) args.offs = ops.counts;
  if (cs.mode == GroupMode::kMasked) args.masked_m = ops.counts;
  args.scale_a = ops.sa, args.scale_b = ops.sb;
  args.scale_a_count = GG::scale_count_a(args);
  args.scale_b_count = GG::scale_count_b(args);
  args.epilogue.c = static_cast<bf16*>(ops.c), args.epilogue.ldc = cs.n;
  args.workspace = ops.ws;
}

/// Our GroupedGemm<Config> on the case's operands, split_k as given.
template <class Config>
bool add_ours(std::vector<Entry>& entries, std::string const& label, Case const& cs, Operands& ops,
              int split_k = 1) {
  using GG = GroupedGemm<Config>;
  typename GG::Arguments args;
  fill_grouped<GG>(args, cs, ops);
  args.split_k = split_k;
  return add_entry<GG>(entries, label, args);
}

/// Our dense Gemm<Config> on one matrix of every group's rows (M = the rows of A), N, K, group 0's
/// B: the same FLOPs as the grouped call without the groups (what grouping costs).
template <class Config>
void add_dense(std::vector<Entry>& entries, std::string const& label, Case const& cs,
               Operands& ops) {
  using G = Gemm<Config>;
  typename G::Arguments args;
  args.problem = {ops.rows_a, cs.n, cs.k};
  args.a = static_cast<typename Config::ElementA const*>(ops.a), args.lda = cs.k;
  args.b = static_cast<typename Config::ElementB const*>(ops.b), args.ldb = cs.k;
  args.scale_a = ops.sa, args.scale_b = ops.sb;
  args.scale_a_count = G::scale_shape_a(ops.rows_a, cs.k).size();
  args.scale_b_count = G::scale_shape_b(cs.n, cs.k).size();
  args.epilogue.c = static_cast<bf16*>(ops.c), args.epilogue.ldc = cs.n;
  add_entry<G>(entries, label, args);
}

/// cuBLASLt, one matmul per non-empty group (its M, its rows of A and C, its B and scales).
struct LtLoop {
  cublasLtHandle_t handle = nullptr;
  struct One {
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t la, lb, lc;
    cublasLtMatmulAlgo_t algo;
    void const *a, *b;
    void* c;
  };
  std::vector<One> calls;
  void* ws = nullptr;
  std::size_t ws_bytes = 32u << 20;
  bool ok = true;

  LtLoop(Case const& cs, Operands const& ops) {
    BENCH_CHECK_CUBLAS(cublasLtCreate(&handle));
    BENCH_CHECK_CUDA(cudaMalloc(&ws, ws_bytes));
    std::string const& g = cs.granularity;
    cublasLtMatmulMatrixScale_t const ma =
        g == "blockwise"     ? CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F
        : g == "per_channel" ? CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F
                             : CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
    cublasLtMatmulMatrixScale_t const mb =
        g == "blockwise"     ? CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F
        : g == "per_channel" ? CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F
                             : CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
    std::size_t const kb = (cs.k + 127) / 128;
    for (int grp = 0; grp < cs.groups; ++grp) {
      int const m = ops.rows[grp];
      if (m == 0) continue;
      std::int64_t const first =
          cs.mode == GroupMode::kContiguous ? ops.offs[grp] - m : std::int64_t(grp) * cs.mean_rows;
      // scale pointers 16-byte aligned (cuBLASLt refuses others): the group's, rounded down (the
      // values are all equal; only the timing matters)
      auto aligned = [](std::size_t at) { return at / 4 * 4; };
      float const* sa =
          ops.sa + (g == "per_tensor" ? 0 : aligned(first * (g == "blockwise" ? kb : 1)));
      float const* sb =
          ops.sb + (g == "per_tensor"  ? std::size_t(grp) * 4
                    : g == "blockwise" ? aligned(std::size_t(grp) * ((cs.n + 127) / 128) * kb)
                                       : aligned(std::size_t(grp) * cs.n));
      One o{};
      o.desc = fp8_tn_desc(sa, sb, ma, mb);
      BENCH_CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&o.la, CUDA_R_8F_E4M3, cs.k, cs.n, cs.k));
      BENCH_CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&o.lb, CUDA_R_8F_E4M3, cs.k, m, cs.k));
      BENCH_CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&o.lc, CUDA_R_16BF, cs.n, m, cs.n));
      o.a = static_cast<std::uint8_t const*>(ops.a) + first * cs.k;
      o.b = static_cast<std::uint8_t const*>(ops.b) + std::size_t(grp) * cs.n * cs.k;
      o.c = static_cast<std::uint16_t*>(ops.c) + first * cs.n;
      cublasLtMatmulHeuristicResult_t heur[8] = {};
      int const found = fp8_heuristics(handle, o.desc, o.la, o.lb, o.lc, ws_bytes, heur);
      bool ran = false;
      float const alpha = 1.0f, beta = 0.0f;
      for (int i = 0; i < found && !ran; ++i)
        if (cublasLtMatmul(handle, o.desc, &alpha, o.b, o.la, o.a, o.lb, &beta, o.c, o.lc, o.c,
                           o.lc, &heur[i].algo, ws, ws_bytes, nullptr) == CUBLAS_STATUS_SUCCESS)
          o.algo = heur[i].algo, ran = true;
      if (!ran) {
        ok = false;
        cudaGetLastError();
        return;
      }
      calls.push_back(o);
    }
    BENCH_CHECK_CUDA(cudaDeviceSynchronize());
  }
  void launch(cudaStream_t s) const {
    float const alpha = 1.0f, beta = 0.0f;
    for (One const& o : calls)
      BENCH_CHECK_CUBLAS(cublasLtMatmul(handle, o.desc, &alpha, o.b, o.la, o.a, o.lb, &beta, o.c,
                                        o.lc, o.c, o.lc, &o.algo, ws, ws_bytes, s));
  }
  ~LtLoop() {
    for (One const& o : calls) {
      cublasLtMatmulDescDestroy(o.desc);
      cublasLtMatrixLayoutDestroy(o.la);
      cublasLtMatrixLayoutDestroy(o.lb);
      cublasLtMatrixLayoutDestroy(o.lc);
    }
    cublasLtDestroy(handle);
    cudaFree(ws);
  }
};

/// cuBLASLt's strided-batched FP8 for the batched per-tensor cases: one matmul over the G groups
/// (BATCH_COUNT, STRIDED_BATCH_OFFSET on the three layouts), one scale pair for the whole batch
/// (the bench's scales are all equal: only the timing matters). ok: cuBLASLt found and ran an
/// algorithm.
struct LtStrided {
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatmulAlgo_t algo{};
  void const *a = nullptr, *b = nullptr;
  void* c = nullptr;
  void* ws = nullptr;
  std::size_t ws_bytes = 32u << 20;
  bool ok = false;

  static void batch(cublasLtMatrixLayout_t l, int count, std::int64_t stride) {
    BENCH_CHECK_CUBLAS(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                                        &count, sizeof count));
    BENCH_CHECK_CUBLAS(cublasLtMatrixLayoutSetAttribute(
        l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride));
  }
  LtStrided(Case const& cs, Operands const& ops) {
    if (cs.mode != GroupMode::kBatched || cs.granularity != "per_tensor") return;
    BENCH_CHECK_CUBLAS(cublasLtCreate(&handle));
    BENCH_CHECK_CUDA(cudaMalloc(&ws, ws_bytes));
    std::int64_t const m = cs.mean_rows;
    desc = fp8_tn_desc(ops.sa, ops.sb);
    // our row-major C[m, N] = A[m, K] B[N, K]^T is cuBLAS's D^T = B A^T (cublaslt_fp8.hpp)
    BENCH_CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, cs.k, cs.n, cs.k));
    BENCH_CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, cs.k, m, cs.k));
    BENCH_CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, cs.n, m, cs.n));
    batch(la, cs.groups, std::int64_t(cs.n) * cs.k);
    batch(lb, cs.groups, m * cs.k);
    batch(lc, cs.groups, m * cs.n);
    a = ops.a, b = ops.b, c = ops.c;
    cublasLtMatmulHeuristicResult_t heur[8] = {};
    int const found = fp8_heuristics(handle, desc, la, lb, lc, ws_bytes, heur);
    float const alpha = 1.0f, beta = 0.0f;
    for (int i = 0; i < found && !ok; ++i)
      if (cublasLtMatmul(handle, desc, &alpha, b, la, a, lb, &beta, c, lc, c, lc, &heur[i].algo, ws,
                         ws_bytes, nullptr) == CUBLAS_STATUS_SUCCESS)
        algo = heur[i].algo, ok = true;
    if (!ok) cudaGetLastError();
    BENCH_CHECK_CUDA(cudaDeviceSynchronize());
  }
  void launch(cudaStream_t s) const {
    float const alpha = 1.0f, beta = 0.0f;
    BENCH_CHECK_CUBLAS(cublasLtMatmul(handle, desc, &alpha, b, la, a, lb, &beta, c, lc, c, lc,
                                      &algo, ws, ws_bytes, s));
  }
  ~LtStrided() {
    if (handle == nullptr) return;
    cublasLtMatmulDescDestroy(desc);
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(lc);
    cublasLtDestroy(handle);
    cudaFree(ws);
  }
};

template <class P, class G>
using Cfg = GemmConfig<P, G, LayoutB::kNK, Epilogue<bf16>>;
using PingPong = WgmmaTilePolicy<128, 128, 2, 6, e4m3fn, e4m3fn, WgmmaSchedule::kPingPong>;
using PingPong64x256 = WgmmaTilePolicy<64, 256, 2, 5, e4m3fn, e4m3fn, WgmmaSchedule::kPingPong>;
using Bw = Blockwise<1, 128, 128>;

/// Cfg with its epilogue storing every tile from registers (DirectStoreEpilogue), where Cfg's own
/// stores whole tiles through TMA: the two epilogues side by side.
template <class P, class G>
struct DirectCfg : Cfg<P, G> {
  using CollectiveEpilogue = DirectStoreEpilogue<P, G, Epilogue<bf16>>;
};

/// AutoGroupedGemm as a user calls it (its policy and split-K from the expected rows, its
/// workspace_size), labelled with its choice.
template <class Granularity>
void add_auto(std::vector<Entry>& entries, Case const& cs, Operands& ops) {
  using Auto = AutoGroupedGemm<selection::Sm90Target, e4m3fn, e4m3fn, Granularity, Epilogue<bf16>>;
  typename Auto::Arguments args;
  fill_grouped<typename Auto::Base>(args, cs, ops);
  Choice const c = Auto::select(args);
  add_entry<Auto>(entries,
                  "auto_" + c.short_name +
                      (c.split_k > 1 ? "_split" + std::to_string(c.split_k) : std::string()),
                  args);
}

/// Split-K entries where a case has fewer 128 x 256 tiles than half the SMs.
template <class Granularity>
void add_splits(std::vector<Entry>& e, Case const& cs, Operands& ops) {
  int const tile_rows =
      cs.groups * ((cs.mean_rows + 127) / 128 + (cs.mode == GroupMode::kContiguous));
  if (tile_rows * ((cs.n + 255) / 256) * 2 > 132) return;
  for (int split : {2, 4, 8}) {
    add_ours<Cfg<Sm90WgmmaLarge<>, Granularity>>(e, "large_128x256_split" + std::to_string(split),
                                                 cs, ops, split);
    add_ours<Cfg<Sm90WgmmaDefault<>, Granularity>>(
        e, "default_128x128_split" + std::to_string(split), cs, ops, split);
  }
}

/// Our policies for a case's granularity.
void add_all_ours(std::vector<Entry>& e, Case const& cs, Operands& ops) {
  if (cs.granularity == "per_channel") {
    add_ours<Cfg<Sm90WgmmaLarge<>, PerChannel>>(e, "large_128x256", cs, ops);
    add_ours<Cfg<Sm90WgmmaDefault<>, PerChannel>>(e, "default_128x128", cs, ops);
    add_ours<Cfg<PingPong, PerChannel>>(e, "pingpong_128x128", cs, ops);
    add_ours<Cfg<Sm90WgmmaMediumM<>, PerChannel>>(e, "medium_128x64", cs, ops);
    add_ours<Cfg<Sm90WgmmaSmallM<>, PerChannel>>(e, "small_64x64", cs, ops);
    add_ours<Cfg<Sm90WgmmaDecode<16>, PerChannel>>(e, "decode16", cs, ops);
    add_ours<Cfg<Sm90WgmmaDecode<32>, PerChannel>>(e, "decode32", cs, ops);
    add_ours<Cfg<Sm90WgmmaDecode<64>, PerChannel>>(e, "decode64", cs, ops);
    add_ours<DirectCfg<Sm90WgmmaLarge<>, PerChannel>>(e, "large_128x256_direct", cs, ops);
    add_ours<DirectCfg<Sm90WgmmaDefault<>, PerChannel>>(e, "default_128x128_direct", cs, ops);
    add_dense<Cfg<Sm90WgmmaLarge<>, PerChannel>>(e, "dense_large_all_rows", cs, ops);
    add_auto<PerChannel>(e, cs, ops);
    add_splits<PerChannel>(e, cs, ops);
  } else if (cs.granularity == "blockwise") {
    add_ours<Cfg<Sm90WgmmaLarge<>, Bw>>(e, "large_128x256", cs, ops);
    add_ours<Cfg<Sm90WgmmaDefault<>, Bw>>(e, "default_128x128", cs, ops);
    add_ours<Cfg<Sm90WgmmaMediumM<>, Bw>>(e, "medium_128x64", cs, ops);
    add_ours<Cfg<Sm90WgmmaSmallM<>, Bw>>(e, "small_64x64", cs, ops);
    add_ours<DirectCfg<Sm90WgmmaLarge<>, Bw>>(e, "large_128x256_direct", cs, ops);
    add_dense<Cfg<Sm90WgmmaLarge<>, Bw>>(e, "dense_large_all_rows", cs, ops);
    add_auto<Bw>(e, cs, ops);
    add_splits<Bw>(e, cs, ops);
  } else {
    add_ours<Cfg<Sm90WgmmaLarge<>, PerTensor>>(e, "large_128x256", cs, ops);
    add_ours<Cfg<Sm90WgmmaDefault<>, PerTensor>>(e, "default_128x128", cs, ops);
    add_ours<Cfg<Sm90WgmmaMediumM<>, PerTensor>>(e, "medium_128x64", cs, ops);
    // ping-pong: one consumer's epilogue under the other's main loop (for short K, as the
    // batched 64 x 128 x 7168 x 512 case; timed at every per-tensor case; 64 x 256 not yet run)
    add_ours<Cfg<PingPong, PerTensor>>(e, "pingpong_128x128", cs, ops);
    add_ours<Cfg<PingPong64x256, PerTensor>>(e, "pingpong_64x256", cs, ops);
    add_ours<DirectCfg<Sm90WgmmaLarge<>, PerTensor>>(e, "large_128x256_direct", cs, ops);
    add_dense<Cfg<Sm90WgmmaLarge<>, PerTensor>>(e, "dense_large_all_rows", cs, ops);
    add_auto<PerTensor>(e, cs, ops);
    add_splits<PerTensor>(e, cs, ops);
  }
}

float elapsed_ms(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  BENCH_CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out = "grouped.json", commit = "unknown";
  std::vector<std::string> only, only_entries;
  int rounds = 7;
  auto split = [](std::string const& list, std::vector<std::string>& to) {
    std::stringstream ss(list);
    for (std::string s; std::getline(ss, s, ',');) to.push_back(s);
  };
  for (int i = 1; i < argc; ++i) {
    std::string const a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--out")
      out = next();
    else if (a == "--rounds")
      rounds = std::atoi(next().c_str());
    else if (a == "--commit")
      commit = next();
    else if (a == "--cases")
      split(next(), only);
    else if (a == "--entries")
      split(next(), only_entries);
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  cudaDeviceProp prop;
  BENCH_CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::ofstream js(out);
  js << "{\"tool\": \"fp8gemm_grouped_bench\", \"commit\": \"" << commit << "\", \"gpu\": \""
     << prop.name << "\", \"sms\": " << prop.multiProcessorCount << ", \"rounds\": " << rounds
     << ", \"cases\": [\n";
  cudaStream_t stream;
  BENCH_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  BENCH_CHECK_CUDA(cudaEventCreate(&e0));
  BENCH_CHECK_CUDA(cudaEventCreate(&e1));
  bool first_case = true;
  // the fixed list, or the named cases: from the list, or built from their names
  std::vector<Case> cases = all_cases();
  if (!only.empty()) {
    std::vector<Case> named;
    for (std::string const& name : only) {
      auto const it =
          std::find_if(cases.begin(), cases.end(), [&](Case const& c) { return c.name == name; });
      Case built;
      if (it != cases.end())
        named.push_back(*it);
      else if (case_from_name(name, built))
        named.push_back(built);
      else {
        std::fprintf(stderr, "unknown case %s (not listed, not GxR_nN_kK_granularity)\n",
                     name.c_str());
        return 2;
      }
    }
    cases = named;
  }
  for (Case const& cs : cases) {
    Operands ops(cs);
    std::vector<Entry> entries;
    add_all_ours(entries, cs, ops);
    LtLoop lt(cs, ops);
    if (lt.ok) entries.emplace_back("cublaslt_loop", [&lt](cudaStream_t s) { lt.launch(s); });
    LtStrided strided(cs, ops);  // batched per-tensor cases only
    if (strided.ok)
      entries.emplace_back("cublaslt_strided", [&strided](cudaStream_t s) { strided.launch(s); });
    if (!only_entries.empty())  // the named entries, and the cuBLASLt loop the ratios divide by
      entries.erase(std::remove_if(entries.begin(), entries.end(),
                                   [&](Entry const& e) {
                                     return e.name != "cublaslt_loop" &&
                                            std::find(only_entries.begin(), only_entries.end(),
                                                      e.name) == only_entries.end();
                                   }),
                    entries.end());
    for (Entry& e : entries) {  // warm, then one graph of one call
      e.launch(stream);
      BENCH_CHECK_CUDA(cudaStreamSynchronize(stream));
      cudaGraph_t g;
      BENCH_CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
      e.launch(stream);
      BENCH_CHECK_CUDA(cudaStreamEndCapture(stream, &g));
      BENCH_CHECK_CUDA(cudaGraphInstantiate(&e.graph, g, 0));
      BENCH_CHECK_CUDA(cudaGraphDestroy(g));
    }
    std::mt19937 rng(std::hash<std::string>{}(cs.name) & 0xffffffffu);
    std::vector<std::size_t> order(entries.size());
    for (int r = 0; r < rounds; ++r) {
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::shuffle(order.begin(), order.end(), rng);
      for (std::size_t i : order) {
        BENCH_CHECK_CUDA(cudaGraphLaunch(entries[i].graph, stream));
        BENCH_CHECK_CUDA(cudaEventRecord(e0, stream));
        BENCH_CHECK_CUDA(cudaGraphLaunch(entries[i].graph, stream));
        BENCH_CHECK_CUDA(cudaEventRecord(e1, stream));
        BENCH_CHECK_CUDA(cudaEventSynchronize(e1));
        entries[i].us.push_back(1000.0 * elapsed_ms(e0, e1));
      }
    }
    double rows_total = 0;
    int active = 0;
    for (int r : ops.rows) rows_total += r, active += r > 0;
    double const flops = 2.0 * rows_total * cs.n * cs.k;
    double const weight_bytes = double(active) * cs.n * cs.k;
    double lt_us = 0;
    for (Entry const& e : entries)
      if (e.name == "cublaslt_loop") lt_us = e.median();
    std::printf("%s (%s, %d groups, rows %.0f)\n", cs.name.c_str(), group_mode_name(cs.mode),
                cs.groups, rows_total);
    js << (first_case ? "" : ",\n") << "{\"name\": \"" << cs.name << "\", \"mode\": \""
       << group_mode_name(cs.mode) << "\", \"granularity\": \"" << cs.granularity
       << "\", \"groups\": " << cs.groups << ", \"n\": " << cs.n << ", \"k\": " << cs.k
       << ", \"rows\": [";
    for (std::size_t i = 0; i < ops.rows.size(); ++i) js << (i ? "," : "") << ops.rows[i];
    js << "], \"entries\": [";
    first_case = false;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      Entry const& e = entries[i];
      double const us = e.median();
      std::printf("  %-18s %10.1f us %7.1f TFLOP/s %6.2f TB/s weights  x%.3f vs cuBLASLt loop\n",
                  e.name.c_str(), us, flops / us * 1e-6, weight_bytes / us * 1e-6,
                  lt_us > 0 ? lt_us / us : 0.0);
      js << (i ? ", " : "") << "{\"name\": \"" << e.name << "\", \"median_us\": " << us
         << ", \"us\": [";
      for (std::size_t j = 0; j < e.us.size(); ++j) js << (j ? "," : "") << e.us[j];
      js << "]}";
      BENCH_CHECK_CUDA(cudaGraphExecDestroy(e.graph));
    }
    js << "], \"flop\": " << flops << ", \"weight_bytes\": " << weight_bytes << "}";
    std::fflush(stdout);
  }
  js << "\n]}\n";
  return 0;
}
