// SPDX-License-Identifier: MIT
// fp8gemm_tune: times every AutoGemm candidate (and its split-K variants), AutoGemm's own choice
// and cuBLASLt in the same scale mode on a list of shapes, on this GPU, and writes JSON that
// bench/make_table.py turns into AutoGemm's measured table (tier 1) and bench/tune_report.py into
// the bars (regret against the best candidate, ratio to cuBLASLt).
//
//   fp8gemm_tune --shapes bench/shapes/llm_shapes.csv --out tune.json
//                [--granularities per_tensor,per_channel,blockwise] [--rounds 5]
//                [--max-tflop 80] [--only-auto] [--prune 3] [--layers model/layer,...]
//                [--m LO:HI] [--commit C]
//
// Method, per (shape, granularity): operands rotated over enough buffer sets (>= 3x L2) that no
// launch finds its inputs in L2; each entry launched 8 times directly (warm-up; its host time
// per call is recorded as host_us), then captured as one CUDA graph of L launches on consecutive
// sets (L = 1..32, aiming at >= 200 us of GPU time per replay; L is set from one directly
// launched, event-timed launch); then `rounds` rounds, each replaying every entry's graph in a
// fresh random order (seeded by the shape: reproducible), once untimed and once between two
// events; an entry's time is the median over rounds of replay time / L: GPU time, without the
// host's launch work (which bounds a few-microsecond GEMM launched directly). Operand sets are
// capped at 64 (below about 2.4 MB of A and B that is less than 3x L2); C, the scales and the
// split-K workspaces are not rotated. SIGTERM / SIGINT stop the sweep after the current point
// with the JSON closed ("complete": false). The best
// candidate: the fastest median; medians within kTieFraction of it count as ties, broken at
// M >= kTrafficTieM by the least operand traffic of the tile (1 / BM + 1 / BN, unswapped tiles
// only), then by the target's candidate order, then the smaller split (a fixed order, not the
// noise). Entries whose
// model estimate exceeds --prune times the least estimate are listed as pruned, not timed.
// cuBLASLt: per-tensor = its default (promoting) FP8 matmul; per-channel = its OUTER_VEC_32F scale
// mode when it runs on this GPU, else its per-tensor matmul (it does strictly less work; the
// JSON's cublaslt.mode says which); blockwise = VEC128_32F (A) / BLK128x128_32F (B).
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench_check.hpp"
#include "cublaslt_fp8.hpp"
#include "fp8gemm/device/auto_gemm.hpp"
#include "fp8gemm/fp8gemm.hpp"

namespace {

using namespace fp8gemm;

/// Medians within this fraction of the fastest are ties (the spread between interleaved rounds
/// of one process on the H200 is about 0.5 %: bench/NOTES.md).
constexpr double kTieFraction = 0.01;
/// From this M on, ties go to the tile that moves the fewest operand bytes per output first: a
/// tie on one GPU is not one on a GPU with less bandwidth (4096 x 16384 x 53248 per-tensor:
/// 128 x 128 tied with 128 x 256 within 0.7 % on the H200 and ran 0.57x cuBLASLt on an H100;
/// docs/selection.md). bench/make_table.py applies the same rule (best_of).
constexpr int kTrafficTieM = 1024;

/// 1 / BM + 1 / BN of a candidate's config name (sm90a_wgmma64xNx32_128x256x128_w2x1_...: the
/// first "_BMxBNxBK_w<warps>"), 0 for a swapped tile or a name without a tile (never preferred
/// by traffic). bench/make_table.py's tile_traffic reads the same field.
double tile_traffic(std::string const& config_name) {
  if (config_name.find("swapab") != std::string::npos) return 0;
  for (std::size_t at = config_name.find('_'); at != std::string::npos;
       at = config_name.find('_', at + 1)) {
    int bm = 0, bn = 0, bk = 0, warps = 0;
    if (std::sscanf(config_name.c_str() + at, "_%dx%dx%d_w%d", &bm, &bn, &bk, &warps) == 4 &&
        bm > 0 && bn > 0)
      return 1.0 / bm + 1.0 / bn;
  }
  return 0;
}

struct Options {
  std::string shapes = "bench/shapes/llm_shapes.csv";
  std::string out = "tune.json";
  std::vector<std::string> granularities = {"per_tensor", "per_channel"};
  std::vector<std::string> layers;  // "model/layer"; empty: all
  int m_lo = 1, m_hi = 1 << 30;     // --m LO:HI: only the points with M in [LO, HI]
  int rounds = 5;
  double max_tflop = 80;  // skip points above this many TFLOP (2MNK / 1e12)
  double prune = 3.0;
  bool only_auto = false;          // time AutoGemm and cuBLASLt only
  std::string commit = "unknown";  // the fp8gemm commit the binary was built at (provenance)
};

struct Point {
  std::string model, layer, granularity;
  int m, n, k;
};

std::vector<std::string> split(std::string const& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, sep))
    if (!item.empty()) out.push_back(item);
  return out;
}

/// bench/shapes/llm_shapes.csv: model,layer,n,k,m1;m2;...,g1;g2;... ('#' lines are comments).
std::vector<Point> read_points(Options const& o) {
  std::ifstream in(o.shapes);
  if (!in) {
    std::fprintf(stderr, "fp8gemm_tune: cannot open %s\n", o.shapes.c_str());
    std::exit(2);
  }
  std::vector<Point> pts;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {  // model,layer,n,k,m,granularities
      header = false;
      continue;
    }
    std::vector<std::string> f = split(line, ',');
    if (f.size() != 6) {
      std::fprintf(stderr, "fp8gemm_tune: %s: not 6 fields: %s\n", o.shapes.c_str(), line.c_str());
      std::exit(2);
    }
    if (!o.layers.empty() &&
        std::find(o.layers.begin(), o.layers.end(), f[0] + "/" + f[1]) == o.layers.end())
      continue;
    std::vector<std::string> const gs = split(f[5], ';');
    for (std::string const& g : o.granularities) {
      if (std::find(gs.begin(), gs.end(), g) == gs.end()) continue;
      for (std::string const& m : split(f[4], ';')) {
        Point p{f[0], f[1], g, std::stoi(m), std::stoi(f[2]), std::stoi(f[3])};
        if (2.0 * p.m * p.n * p.k / 1e12 <= o.max_tflop && p.m >= o.m_lo && p.m <= o.m_hi)
          pts.push_back(p);
      }
    }
  }
  return pts;
}

/// e4m3fn bytes of N(0, 1) values (never zero-filled): a 64 MiB pattern, repeated.
std::vector<std::uint8_t> const& pattern() {
  static std::vector<std::uint8_t> p = [] {
    std::vector<std::uint8_t> v(64u << 20);
    std::mt19937 rng(42);
    std::normal_distribution<float> normal;
    std::uint8_t table[4096];
    for (auto& t : table) t = float_to_fp8<e4m3fn>(normal(rng)).bits;
    std::uint64_t x = 0x9E3779B97F4A7C15ull;
    for (auto& b : v) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      b = table[x & 4095];
    }
    return v;
  }();
  return p;
}

void fill(void* dst, std::size_t bytes) {
  std::vector<std::uint8_t> const& p = pattern();
  for (std::size_t off = 0; off < bytes; off += p.size())
    BENCH_CHECK_CUDA(cudaMemcpy(static_cast<char*>(dst) + off, p.data(),
                                std::min(p.size(), bytes - off), cudaMemcpyHostToDevice));
}

/// Rotating operand sets (>= 3x L2 together), one C, scales for the granularity.
struct Operands {
  int m, n, k, sets;
  std::vector<void*> a, b;
  void* c = nullptr;
  float* scale_a = nullptr;
  float* scale_b = nullptr;
  std::int64_t scale_a_count = 1, scale_b_count = 1;

  Operands(Point const& p) : m(p.m), n(p.n), k(p.k) {
    int l2 = 0;
    BENCH_CHECK_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    std::size_t const abytes = std::size_t(m) * k, bbytes = std::size_t(n) * k;
    sets = int(std::min<std::size_t>(64, 3 * std::size_t(l2) / (abytes + bbytes) + 1));
    for (int s = 0; s < sets; ++s) {
      void *pa = nullptr, *pb = nullptr;
      BENCH_CHECK_CUDA(cudaMalloc(&pa, abytes));
      BENCH_CHECK_CUDA(cudaMalloc(&pb, bbytes));
      fill(pa, abytes), fill(pb, bbytes);
      a.push_back(pa), b.push_back(pb);
    }
    BENCH_CHECK_CUDA(cudaMalloc(&c, std::size_t(m) * n * 2));
    if (p.granularity == "per_channel") {
      scale_a_count = m, scale_b_count = n;
    } else if (p.granularity == "blockwise") {
      std::int64_t const kb = (k + 127) / 128;
      scale_a_count = std::int64_t(m) * kb, scale_b_count = std::int64_t((n + 127) / 128) * kb;
    }
    BENCH_CHECK_CUDA(cudaMalloc(&scale_a, scale_a_count * sizeof(float)));
    BENCH_CHECK_CUDA(cudaMalloc(&scale_b, scale_b_count * sizeof(float)));
    std::vector<float> const sa(scale_a_count, 0.01f), sb(scale_b_count, 0.02f);
    BENCH_CHECK_CUDA(cudaMemcpy(scale_a, sa.data(), sa.size() * 4, cudaMemcpyHostToDevice));
    BENCH_CHECK_CUDA(cudaMemcpy(scale_b, sb.data(), sb.size() * 4, cudaMemcpyHostToDevice));
  }
  ~Operands() {
    for (void* p : a) BENCH_CHECK_CUDA(cudaFree(p));
    for (void* p : b) BENCH_CHECK_CUDA(cudaFree(p));
    BENCH_CHECK_CUDA(cudaFree(c));
    BENCH_CHECK_CUDA(cudaFree(scale_a));
    BENCH_CHECK_CUDA(cudaFree(scale_b));
  }
};

/// One timed thing: a launch on operand set `set`.
struct Entry {
  std::string kind;  // "candidate", "auto", "cublaslt"
  std::string name, detail;
  int order = 0;  // the target's candidate order (tie-break), then split
  int split_k = 1;
  double estimate_us = 0;
  std::function<void(int, cudaStream_t)> launch;
  std::vector<double> us;
  double host_us = 0;  // host time per launch call, launched directly (no graph)
  double median() const {
    std::vector<double> v = us;
    std::sort(v.begin(), v.end());
    return v.empty()      ? 0
           : v.size() % 2 ? v[v.size() / 2]
                          : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  }
};

/// cuBLASLt in the granularity's mode on ops (D^T = B A^T, "TN"); mode says what ran.
struct Lt {
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatmulAlgo_t algo{};
  void* ws = nullptr;
  std::size_t ws_bytes = 64u << 20;
  std::string mode;
  bool ok = false;

  bool try_mode(Operands const& ops, std::string const& g) {
    release_desc();
    // per-channel: one scale per row of A and of B (cuBLASLt's outer vectors); blockwise: our A
    // 1x128, our B 128x128
    cublasLtMatmulMatrixScale_t const ma =
        g == "blockwise"     ? CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F
        : g == "per_channel" ? CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F
                             : CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
    cublasLtMatmulMatrixScale_t const mb =
        g == "blockwise"     ? CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F
        : g == "per_channel" ? CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F
                             : CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
    desc = fp8_tn_desc(ops.scale_a, ops.scale_b, ma, mb);
    cublasLtMatmulHeuristicResult_t heur[8] = {};
    int const found = fp8_heuristics(handle, desc, la, lb, lc, ws_bytes, heur);
    float const alpha = 1.0f, beta = 0.0f;
    for (int i = 0; i < found; ++i) {  // the first heuristic result that runs
      if (cublasLtMatmul(handle, desc, &alpha, ops.b[0], la, ops.a[0], lb, &beta, ops.c, lc, ops.c,
                         lc, &heur[i].algo, ws, ws_bytes, nullptr) == CUBLAS_STATUS_SUCCESS) {
        algo = heur[i].algo;
        BENCH_CHECK_CUDA(cudaDeviceSynchronize());
        return true;
      }
    }
    cudaGetLastError();
    return false;
  }

  Lt(Operands const& ops, std::string const& g) {
    BENCH_CHECK_CUBLAS(cublasLtCreate(&handle));
    BENCH_CHECK_CUDA(cudaMalloc(&ws, ws_bytes));
    BENCH_CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, ops.k, ops.n, ops.k));
    BENCH_CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, ops.k, ops.m, ops.k));
    BENCH_CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, ops.n, ops.m, ops.n));
    if (try_mode(ops, g)) {
      mode = g == "per_tensor" ? "per_tensor" : g == "per_channel" ? "outer_vec" : "blockwise";
      ok = true;
    } else if (g == "per_channel" && try_mode(ops, "per_tensor")) {
      mode = "per_tensor (outer_vec refused)";
      ok = true;
    }
  }
  void launch(Operands const& ops, int set, cudaStream_t stream) const {
    float const alpha = 1.0f, beta = 0.0f;
    BENCH_CHECK_CUBLAS(cublasLtMatmul(handle, desc, &alpha, ops.b[set], la, ops.a[set], lb, &beta,
                                      ops.c, lc, ops.c, lc, &algo, ws, ws_bytes, stream));
  }
  void release_desc() {
    if (desc) BENCH_CHECK_CUBLAS(cublasLtMatmulDescDestroy(desc));
    desc = nullptr;
  }
  ~Lt() {
    release_desc();
    BENCH_CHECK_CUBLAS(cublasLtMatrixLayoutDestroy(la));
    BENCH_CHECK_CUBLAS(cublasLtMatrixLayoutDestroy(lb));
    BENCH_CHECK_CUBLAS(cublasLtMatrixLayoutDestroy(lc));
    BENCH_CHECK_CUBLAS(cublasLtDestroy(handle));
    BENCH_CHECK_CUDA(cudaFree(ws));
  }
};

/// s as a JSON string: quotes and backslashes escaped, control bytes as \u00XX.
std::string json_str(std::string const& s) {
  std::string o = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') {
      o += '\\';
      o += ch;
    } else if (static_cast<unsigned char>(ch) < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", static_cast<unsigned>(ch));
      o += b;
    } else {
      o += ch;
    }
  }
  return o + "\"";
}

/// Split-K workspaces, one allocation per entry (an entry's launches keep its pointer).
struct Workspaces {
  std::vector<void*> held;
  void* get(std::size_t bytes) {
    void* p = nullptr;
    BENCH_CHECK_CUDA(cudaMalloc(&p, std::max<std::size_t>(bytes, 256)));
    held.push_back(p);
    return p;
  }
  ~Workspaces() {
    for (void* p : held) BENCH_CHECK_CUDA(cudaFree(p));
  }
};

/// Times every entry interleaved (see the file comment); fills Entry::us and Entry::host_us.
void time_entries(std::vector<Entry>& entries, Operands const& ops, int rounds, unsigned seed) {
  cudaStream_t stream;
  BENCH_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t start, stop;
  BENCH_CHECK_CUDA(cudaEventCreate(&start));
  BENCH_CHECK_CUDA(cudaEventCreate(&stop));
  auto elapsed_us = [&] {
    BENCH_CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    BENCH_CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    return double(ms) * 1e3;
  };
  // Warm-up: kWarm direct launches per entry, their host time per call kept (host_us); then one
  // timed launch for the entry's launches per graph (>= 200 us of GPU time, 1 to 32 launches).
  constexpr int kWarm = 8;
  std::vector<int> per_graph(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    Entry& e = entries[i];
    e.launch(0, stream);  // first-use costs (module load, attributes) stay out of host_us
    BENCH_CHECK_CUDA(cudaStreamSynchronize(stream));
    auto const t0 = std::chrono::steady_clock::now();
    for (int l = 0; l < kWarm; ++l) e.launch(l % ops.sets, stream);
    e.host_us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
        kWarm;
    BENCH_CHECK_CUDA(cudaEventRecord(start, stream));
    e.launch(kWarm % ops.sets, stream);
    BENCH_CHECK_CUDA(cudaEventRecord(stop, stream));
    per_graph[i] = std::clamp(int(std::ceil(200.0 / std::max(elapsed_us(), 0.5))), 1, 32);
  }
  // One CUDA graph per entry of per_graph launches on consecutive operand sets: replays time the
  // GPU alone (a few-microsecond GEMM is otherwise bound by the host's launch work).
  std::vector<cudaGraphExec_t> graphs(entries.size());
  int set = 0;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    cudaGraph_t g;
    BENCH_CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (int l = 0; l < per_graph[i]; ++l) entries[i].launch(set++ % ops.sets, stream);
    BENCH_CHECK_CUDA(cudaStreamEndCapture(stream, &g));
    BENCH_CHECK_CUDA(cudaGraphInstantiate(&graphs[i], g, 0));
    BENCH_CHECK_CUDA(cudaGraphDestroy(g));
    BENCH_CHECK_CUDA(cudaGraphLaunch(graphs[i], stream));  // warm the graph
  }
  BENCH_CHECK_CUDA(cudaStreamSynchronize(stream));
  std::mt19937 rng(seed);
  std::vector<int> order(entries.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = int(i);
  for (int r = 0; r < rounds; ++r) {
    std::shuffle(order.begin(), order.end(), rng);
    for (int i : order) {
      // an untimed replay first: the timed one's launch latency hides behind it
      BENCH_CHECK_CUDA(cudaGraphLaunch(graphs[i], stream));
      BENCH_CHECK_CUDA(cudaEventRecord(start, stream));
      BENCH_CHECK_CUDA(cudaGraphLaunch(graphs[i], stream));
      BENCH_CHECK_CUDA(cudaEventRecord(stop, stream));
      entries[i].us.push_back(elapsed_us() / per_graph[i]);
    }
  }
  BENCH_CHECK_CUDA(cudaGetLastError());
  for (cudaGraphExec_t g : graphs) BENCH_CHECK_CUDA(cudaGraphExecDestroy(g));
  BENCH_CHECK_CUDA(cudaEventDestroy(start));
  BENCH_CHECK_CUDA(cudaEventDestroy(stop));
  BENCH_CHECK_CUDA(cudaStreamDestroy(stream));
}

/// One point with AutoGemm<Sm90Target, e4m3fn, e4m3fn, G, kNK, Epilogue<bf16>>: builds the
/// entries, times them, returns the point's JSON object.
template <class G>
std::string tune_point(Point const& p, Options const& o) {
  using Auto = AutoGemm<selection::Sm90Target, e4m3fn, e4m3fn, G, LayoutB::kNK, Epilogue<bf16>>;
  Operands ops(p);
  Workspaces ws;
  typename Auto::Arguments base;
  base.problem = {p.m, p.n, p.k};
  base.lda = p.k, base.ldb = p.k;
  base.scale_a = ops.scale_a, base.scale_b = ops.scale_b;
  base.scale_a_count = ops.scale_a_count, base.scale_b_count = ops.scale_b_count;
  base.epilogue.c = static_cast<bf16*>(ops.c), base.epilogue.ldc = p.n;
  base.a = static_cast<e4m3fn const*>(ops.a[0]), base.b = static_cast<e4m3fn const*>(ops.b[0]);
  // Blockwise: A's scales K-block-major (ld = M), the layout torch's blockwise scales have and
  // fp8gemm.scaled_mm passes on: the Hopper kernels' scale ring and checked tiles
  if constexpr (IsBlockwise<G>::value) base.scale_a_ld = p.m;

  auto gemm_launch = [&ops](typename Auto::Arguments args) {
    return [args, &ops](int set, cudaStream_t stream) mutable {
      args.a = static_cast<e4m3fn const*>(ops.a[set]);
      args.b = static_cast<e4m3fn const*>(ops.b[set]);
      Status const s = Auto::run(args, stream);
      if (!s.ok()) {
        std::fprintf(stderr, "fp8gemm run: %s\n", s.to_string().c_str());
        std::exit(1);
      }
    };
  };

  std::vector<Entry> entries;
  std::vector<std::string> pruned, refused;
  std::deque<std::string> names;  // force_policy points into these while the entries launch
  int const sms = Auto::device_sm_count();
  if (!o.only_auto) {
    std::vector<Entry> cands;
    for (int i = 0; i < Auto::kCandidates; ++i) {
      std::string const& name = names.emplace_back(Auto::candidate_short_name(i));
      for (int sk : {1, 2, 3, 4, 6, 8}) {
        typename Auto::Arguments a = base;
        a.force_policy = name.c_str();
        a.split_k = sk;
        if (Auto::candidate_needs_workspace(i)) {  // stream-K: cuts K itself, needs a workspace
          if (sk > 1) continue;
          a.workspace = &ops;  // marks "given" for the size query (never dereferenced)
          a.workspace = ws.get(Auto::workspace_size(a));
        } else if (sk > 1) {
          // split-K only where the candidate's tiles leave SMs idle (as the model tries it)
          std::int64_t tiles = 0;
          Auto::visit(i, [&](auto tag) {
            using P = typename decltype(tag)::type::Policy;  // kBlockM x kBlockN: C's tile
            tiles = base.problem.template tiles_m<P::kBlockM>() *
                    base.problem.template tiles_n<P::kBlockN>();
          });
          if (tiles >= sms) continue;
          a.workspace = &ops;  // marks "given" for the size query (never dereferenced)
          a.workspace = ws.get(Auto::workspace_size(a));
        }
        Status const s = Auto::can_implement(a);
        if (!s.ok()) {
          if (sk == 1) refused.push_back(name + ": " + s.to_string());
          continue;
        }
        Choice const c = Auto::select(a);
        Entry e;
        e.kind = "candidate", e.name = name, e.detail = c.name, e.order = i, e.split_k = sk;
        e.estimate_us = c.estimated_us;
        e.launch = gemm_launch(a);
        cands.push_back(std::move(e));
      }
    }
    double least = 1e30;
    for (Entry const& e : cands) least = std::min(least, e.estimate_us);
    for (Entry& e : cands) {
      // table-only candidates have no efficiency the estimate could trust: always timed
      if (Auto::candidate_modelled(e.order) && e.estimate_us > o.prune * least)
        pruned.push_back(e.name + " split_k " + std::to_string(e.split_k));
      else
        entries.push_back(std::move(e));
    }
  }
  // AutoGemm as a user calls it: a workspace of workspace_size(args) bytes.
  typename Auto::Arguments auto_args = base;
  auto_args.workspace = &ops;  // marks "given" for the size query (never dereferenced)
  std::size_t const auto_ws = Auto::workspace_size(auto_args);
  auto_args.workspace = auto_ws > 0 ? ws.get(auto_ws) : nullptr;
  Choice const auto_choice = Auto::select(auto_args);
  Status const auto_ok = Auto::can_implement(auto_args);
  if (auto_ok.ok()) {
    Entry e;
    e.kind = "auto", e.name = "auto", e.detail = auto_choice.short_name;
    e.split_k = auto_choice.split_k, e.estimate_us = auto_choice.estimated_us;
    e.order = 1000;
    e.launch = gemm_launch(auto_args);
    entries.push_back(std::move(e));
  }
  // The chosen config through Gemm<Config>::run directly: host_us(auto) - host_us(gemm) is what
  // the selection adds to a launch.
  if (auto_ok.ok())
    Auto::visit(auto_choice.index, [&](auto tag) {
      using Config = typename decltype(tag)::type;
      typename Gemm<Config>::Arguments g =
          Auto::template to_gemm_arguments<Config>(auto_args, auto_choice);
      Entry e;
      e.kind = "gemm", e.name = "gemm", e.detail = auto_choice.name;
      e.split_k = auto_choice.split_k, e.order = 1001;
      e.launch = [g, &ops](int set, cudaStream_t stream) mutable {
        g.a = static_cast<e4m3fn const*>(ops.a[set]);
        g.b = static_cast<e4m3fn const*>(ops.b[set]);
        Status const s = Gemm<Config>::run(g, stream);
        if (!s.ok()) {
          std::fprintf(stderr, "fp8gemm Gemm::run: %s\n", s.to_string().c_str());
          std::exit(1);
        }
      };
      entries.push_back(std::move(e));
    });
  Lt lt(ops, p.granularity);
  if (lt.ok) {
    Entry e;
    e.kind = "cublaslt", e.name = "cublaslt", e.detail = lt.mode, e.order = 2000;
    e.launch = [&lt, &ops](int set, cudaStream_t stream) { lt.launch(ops, set, stream); };
    entries.push_back(std::move(e));
  }
  unsigned const seed = unsigned(p.m) * 2654435761u ^ unsigned(p.n) * 40503u ^ unsigned(p.k);
  time_entries(entries, ops, o.rounds, seed);

  // the best candidate: the fastest median; ties within kTieFraction by (tile traffic at M >=
  // kTrafficTieM, order, split); a tile without a traffic (swapped) after those with one
  Entry const* best = nullptr;
  double fastest = 1e30;
  for (Entry const& e : entries)
    if (e.kind == "candidate") fastest = std::min(fastest, e.median());
  auto traffic = [&](Entry const& e) {
    double const t = p.m >= kTrafficTieM ? tile_traffic(e.detail) : 0;
    return t > 0 ? t : 1e30;
  };
  for (Entry const& e : entries) {
    if (e.kind != "candidate" || e.median() > fastest * (1 + kTieFraction)) continue;
    if (!best || traffic(e) < traffic(*best) ||
        (traffic(e) == traffic(*best) &&
         (e.order < best->order || (e.order == best->order && e.split_k < best->split_k))))
      best = &e;
  }

  std::ostringstream js;
  js.precision(9);  // medians as measured: make_table.py re-decides ties from them
  js << "{\"model\": " << json_str(p.model) << ", \"layer\": " << json_str(p.layer)
     << ", \"granularity\": " << json_str(p.granularity) << ", \"m\": " << p.m << ", \"n\": " << p.n
     << ", \"k\": " << p.k << ", \"sm_count\": " << sms;
  js << ", \"auto\": {\"choice\": " << json_str(auto_choice.short_name)
     << ", \"split_k\": " << auto_choice.split_k
     << ", \"tier\": " << json_str(selection::to_string(auto_choice.tier))
     << ", \"reason\": " << json_str(auto_choice.reason)
     << ", \"can_implement\": " << json_str(auto_ok.to_string()) << "}";
  if (best)
    js << ", \"best\": {\"candidate\": " << json_str(best->name)
       << ", \"split_k\": " << best->split_k << ", \"median_us\": " << best->median()
       << ", \"fastest_us\": " << fastest << "}";
  js << ", \"entries\": [";
  for (std::size_t i = 0; i < entries.size(); ++i) {
    Entry const& e = entries[i];
    js << (i ? ", " : "") << "{\"kind\": " << json_str(e.kind) << ", \"name\": " << json_str(e.name)
       << ", \"detail\": " << json_str(e.detail) << ", \"split_k\": " << e.split_k
       << ", \"estimate_us\": " << e.estimate_us << ", \"median_us\": " << e.median()
       << ", \"host_us\": " << e.host_us << ", \"us\": [";
    for (std::size_t r = 0; r < e.us.size(); ++r) js << (r ? ", " : "") << e.us[r];
    js << "]}";
  }
  js << "], \"pruned\": [";
  for (std::size_t i = 0; i < pruned.size(); ++i) js << (i ? ", " : "") << json_str(pruned[i]);
  js << "], \"refused\": [";
  for (std::size_t i = 0; i < refused.size(); ++i) js << (i ? ", " : "") << json_str(refused[i]);
  js << "]}";

  double const lt_us = [&] {
    for (Entry const& e : entries)
      if (e.kind == "cublaslt") return e.median();
    return 0.0;
  }();
  double const auto_us = [&] {
    for (Entry const& e : entries)
      if (e.kind == "auto") return e.median();
    return 0.0;
  }();
  std::printf(
      "%-16s %-14s %-11s %6d x %6d x %6d  auto %-28s %9.1f us  best %-28s %9.1f us  "
      "cublaslt %9.1f us  auto/lt %.3f\n",
      p.model.c_str(), p.layer.c_str(), p.granularity.c_str(), p.m, p.n, p.k,
      (auto_choice.short_name + "/" + std::to_string(auto_choice.split_k)).c_str(), auto_us,
      best ? (best->name + "/" + std::to_string(best->split_k)).c_str() : "-",
      best ? best->median() : 0.0, lt_us, auto_us > 0 ? lt_us / auto_us : 0.0);
  std::fflush(stdout);
  return js.str();
}

/// Set by SIGTERM / SIGINT (e.g. `timeout`): the sweep stops after the point in progress and
/// still writes a complete JSON document (complete: false).
volatile std::sig_atomic_t g_stop = 0;
extern "C" void on_stop(int) {
  g_stop = 1;
}

std::string now_utc() {
  std::time_t const t = std::time(nullptr);
  char b[32];
  std::strftime(b, sizeof b, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string const a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "fp8gemm_tune: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--shapes")
      o.shapes = value();
    else if (a == "--out")
      o.out = value();
    else if (a == "--granularities")
      o.granularities = split(value(), ',');
    else if (a == "--layers")
      o.layers = split(value(), ',');
    else if (a == "--m") {
      std::vector<std::string> const r = split(value(), ':');
      if (r.size() != 2) {
        std::fprintf(stderr, "fp8gemm_tune: --m takes LO:HI\n");
        return 2;
      }
      o.m_lo = std::stoi(r[0]), o.m_hi = std::stoi(r[1]);
    } else if (a == "--rounds")
      o.rounds = std::max(1, std::stoi(value()));
    else if (a == "--max-tflop")
      o.max_tflop = std::stod(value());
    else if (a == "--prune")
      o.prune = std::stod(value());
    else if (a == "--only-auto")
      o.only_auto = true;
    else if (a == "--commit")
      o.commit = value();
    else {
      std::fprintf(
          stderr,
          "usage: fp8gemm_tune [--shapes FILE] [--out FILE] [--granularities "
          "per_tensor,per_channel,blockwise] [--layers model/layer,...] [--m LO:HI] [--rounds R] "
          "[--max-tflop T] [--prune F] [--only-auto] [--commit C]\n");
      return 2;
    }
  }
  for (std::string const& g : o.granularities)
    if (g != "per_tensor" && g != "per_channel" && g != "blockwise") {
      std::fprintf(stderr, "fp8gemm_tune: unknown granularity %s\n", g.c_str());
      return 2;
    }
  std::vector<Point> const pts = read_points(o);
  cudaDeviceProp prop{};
  BENCH_CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  int driver = 0, runtime = 0;
  BENCH_CHECK_CUDA(cudaDriverGetVersion(&driver));
  BENCH_CHECK_CUDA(cudaRuntimeGetVersion(&runtime));
  std::ofstream out(o.out);
  out << "{\"tool\": \"fp8gemm_tune\", \"commit\": " << json_str(o.commit)
      << ", \"date\": " << json_str(now_utc()) << ", \"gpu\": " << json_str(prop.name)
      << ", \"sm_count\": " << prop.multiProcessorCount << ", \"cuda_driver\": " << driver
      << ", \"cuda_runtime\": " << runtime << ", \"cublaslt\": " << cublasLtGetVersion()
      << ", \"rounds\": " << o.rounds << ", \"tie_fraction\": " << kTieFraction
      << ", \"tie_traffic_m\": " << kTrafficTieM << ", \"prune\": " << o.prune
      << ", \"only_auto\": " << (o.only_auto ? "true" : "false")
      << ", \"shapes\": " << json_str(o.shapes) << ", \"m_range\": [" << o.m_lo << ", " << o.m_hi
      << "], \"points\": [\n";
  std::printf("fp8gemm_tune: %zu points on %s (%d SMs), commit %s\n", pts.size(), prop.name,
              prop.multiProcessorCount, o.commit.c_str());
  std::signal(SIGTERM, on_stop);
  std::signal(SIGINT, on_stop);
  std::size_t done = 0;
  for (std::size_t i = 0; i < pts.size() && !g_stop; ++i, ++done) {
    Point const& p = pts[i];
    std::string const js = p.granularity == "per_tensor" ? tune_point<PerTensor>(p, o)
                           : p.granularity == "per_channel"
                               ? tune_point<PerChannel>(p, o)
                               : tune_point<Blockwise<1, 128, 128>>(p, o);
    out << (i ? ",\n" : "") << js;
    out.flush();
  }
  out << "\n], \"points_planned\": " << pts.size() << ", \"points_done\": " << done
      << ", \"complete\": " << (done == pts.size() ? "true" : "false") << "}\n";
  if (done < pts.size())
    std::printf("fp8gemm_tune: stopped after %zu of %zu points\n", done, pts.size());
  return 0;
}
