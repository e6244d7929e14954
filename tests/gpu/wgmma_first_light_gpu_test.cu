// SPDX-License-Identifier: MIT
// First light of the Hopper building blocks on the H200 (label gpu): one CTA, a producer
// warpgroup whose elected thread issues TMA loads into a 2-stage ring of 128B-swizzled,
// 1024-B aligned stages completed on mbarriers, one consumer warpgroup issuing
// wgmma.mma_async m64nNk32 (fast accumulation: the whole K in the tensor core), and both a direct
// store through the accumulator map and a TMA store from shared memory. Checks: TMA's 128-byte
// swizzle equals Swizzle128B byte for byte; every e4m3/e5m2 pair and N in {64, 128, 256} is exact
// on small-integer data and inside the derived bound on random data against FP64, with the outputs
// poisoned first; and a crafted-input experiment measures how many accumulator bits the FP8
// tensor core keeps (printed, and recorded as gtest properties). Also the epilogue's GELU-tanh
// approximations, on every FP32 input that matters (EpilogueApproximations).

// A pipeline bug hangs in an mbarrier wait: give up after ~2 s of SM cycles and trap instead.
#define FP8GEMM_MBARRIER_TIMEOUT_CYCLES 4000000000LL

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "common/device_buffer.hpp"
#include "common/metrics.hpp"
#include "common/poison.hpp"
#include "common/sm90_accumulation_model.hpp"
#include "common/tolerance.hpp"
#include "fp8gemm/arch/nvidia/sm90_sync.hpp"
#include "fp8gemm/arch/nvidia/sm90_tma.hpp"
#include "fp8gemm/arch/nvidia/sm90_wgmma.hpp"
#include "fp8gemm/epilogue/functors.hpp"
#include "fp8gemm/numeric/numeric.hpp"
#include "fp8gemm/tile/smem_swizzle.hpp"

namespace fp8gemm::test {
namespace {

#define FIRST_LIGHT_CUDA(call)                                                         \
  do {                                                                                 \
    cudaError_t const e_ = (call);                                                     \
    if (e_ != cudaSuccess)                                                             \
      return ::testing::AssertionFailure() << #call << ": " << cudaGetErrorString(e_); \
  } while (0)
#define FIRST_LIGHT_STATUS(expr)                                                           \
  do {                                                                                     \
    ::fp8gemm::Status const s_ = (expr);                                                   \
    if (!s_.ok()) return ::testing::AssertionFailure() << #expr << ": " << s_.to_string(); \
  } while (0)

constexpr int kM = 64;        // one consumer warpgroup's wgmma rows
constexpr int kBlockK = 128;  // K per stage: one 128-byte swizzle span of fp8
constexpr int kStages = 2;
constexpr int kThreads = 384;  // producer, consumer, idle warpgroup (the 168-register start)

/// Shared memory of the first-light kernel, offsets from a 1024-B aligned base.
template <int N>
struct Layout {
  static constexpr int kABytes = kM * kBlockK;              // [64, 128] fp8, swizzled
  static constexpr int kBBytes = N * kBlockK;               // [N, 128] fp8, swizzled
  static constexpr int kStageBytes = kABytes + kBBytes;     // a multiple of 1024
  static constexpr int kCOffset = kStages * kStageBytes;    // [64, N] f32 staging, row-major
  static constexpr int kBarOffset = kCOffset + kM * N * 4;  // full[kStages], empty[kStages]
  static constexpr int kBytes = kBarOffset + 2 * kStages * 8;
  static constexpr int kAlloc = kBytes + 1024;  // room to align the base
  static_assert(kStageBytes % 1024 == 0 && kCOffset % 1024 == 0, "1024-B aligned stages");
};

/// C[64, N] = A[64, K] · B[N, K]^T for K = 128 · k_blocks.
template <int N, class EA, class EB>
__global__ void __launch_bounds__(kThreads, 1)
    first_light_kernel(__grid_constant__ arch::TmaDescriptor const map_a,
                       __grid_constant__ arch::TmaDescriptor const map_b,
                       __grid_constant__ arch::TmaDescriptor const map_c, float* c_direct,
                       int k_blocks) {
  using Wgmma = arch::Sm90Wgmma64xNx32<N, EA, EB>;
  using L = Layout<N>;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  std::uint32_t const raw = arch::smem_address(smem_raw);
  unsigned char* const smem = smem_raw + ((1024u - raw % 1024u) % 1024u);
  auto* const full = reinterpret_cast<std::uint64_t*>(smem + L::kBarOffset);
  std::uint64_t* const empty = full + kStages;
  int const warpgroup = static_cast<int>(threadIdx.x) / 128;
  int const t = static_cast<int>(threadIdx.x) % 128;

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      arch::Mbarrier::init(&full[s], 1);   // the producer's arrive_expect_tx
      arch::Mbarrier::init(&empty[s], 4);  // one arrive per consumer warp
    }
    arch::fence_mbarrier_init();
    arch::tma_prefetch_descriptor(&map_a);
    arch::tma_prefetch_descriptor(&map_b);
  }
  __syncthreads();  // waits for: barriers initialized (no block-wide barrier after this point)

  if (warpgroup == 0) {  // producer
    arch::setmaxnreg_dec<40>();
    if (t < 32 && arch::elect_one_sync()) {
      for (int kb = 0; kb < k_blocks; ++kb) {
        int const s = kb % kStages, phase = (kb / kStages) % 2;
        arch::Mbarrier::wait(&empty[s], phase ^ 1);  // waits for: the consumer freed stage s
        unsigned char* const stage = smem + s * L::kStageBytes;
        arch::Mbarrier::arrive_expect_tx(&full[s], L::kStageBytes);
        arch::tma_load_2d(stage, &map_a, &full[s], kb * kBlockK, 0);
        arch::tma_load_2d(stage + L::kABytes, &map_b, &full[s], kb * kBlockK, 0);
      }
    }
  } else if (warpgroup == 1) {  // consumer
    arch::setmaxnreg_inc<232>();
    float d[Wgmma::kAccumulators];
    for (int kb = 0; kb < k_blocks; ++kb) {
      int const s = kb % kStages, phase = (kb / kStages) % 2;
      arch::Mbarrier::wait(&full[s], phase);  // waits for: both TMA boxes of stage s landed
      unsigned char* const stage = smem + s * L::kStageBytes;
      auto const desc_a = arch::Sm90SmemDescriptor::k_major_swizzle128(arch::smem_address(stage));
      auto const desc_b =
          arch::Sm90SmemDescriptor::k_major_swizzle128(arch::smem_address(stage + L::kABytes));
      arch::wgmma_fence();
      FP8GEMM_UNROLL
      for (int k = 0; k < kBlockK / Wgmma::kK; ++k) {
        Wgmma::mma(d, desc_a.advanced(k * Wgmma::kKStepBytes).bits,
                   desc_b.advanced(k * Wgmma::kKStepBytes).bits, kb > 0 || k > 0);
      }
      arch::wgmma_commit_group();
      arch::wgmma_wait_group<0>();  // waits for: this stage's wgmmas (smem reads, accumulators)
      if (t % 32 == 0) arch::Mbarrier::arrive(&empty[s]);
    }
    // Epilogue 1: straight to global memory through the accumulator map.
    auto* const c_smem = reinterpret_cast<float*>(smem + L::kCOffset);
    FP8GEMM_UNROLL
    for (int i = 0; i < Wgmma::kAccumulators; ++i) {
      int const r = Wgmma::acc_row(t, i), c = Wgmma::acc_col(t, i);
      c_direct[r * N + c] = d[i];
      c_smem[r * N + c] = d[i];
    }
    // Epilogue 2: the same values through shared memory and a TMA store.
    arch::fence_proxy_async_shared();  // each writer: its st.shared before the async proxy reads
    arch::named_barrier_sync(1, 128);  // waits for: all 128 consumer threads wrote c_smem
    if (t == 0) {
      arch::tma_store_2d(&map_c, c_smem, 0, 0);
      arch::tma_store_commit_group();
      arch::tma_store_wait<0>();
    }
  } else {  // warpgroup 2 gives its registers back and leaves
    arch::setmaxnreg_dec<40>();
  }
}

/// Copies one TMA-loaded [64, 128] box (128B swizzle) out of shared memory unchanged.
__global__ void __launch_bounds__(128)
    swizzle_probe_kernel(__grid_constant__ arch::TmaDescriptor const map, std::uint8_t* out) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  std::uint32_t const raw = arch::smem_address(smem_raw);
  unsigned char* const tile = smem_raw + ((1024u - raw % 1024u) % 1024u);
  auto* const bar = reinterpret_cast<std::uint64_t*>(tile + 64 * 128);
  if (threadIdx.x == 0) {
    arch::Mbarrier::init(bar, 1);
    arch::fence_mbarrier_init();
  }
  __syncthreads();  // waits for: barrier initialized
  if (threadIdx.x == 0) {
    arch::Mbarrier::arrive_expect_tx(bar, 64 * 128);
    arch::tma_load_2d(tile, &map, bar, 0, 0);
  }
  arch::Mbarrier::wait(bar, 0);  // waits for: the box landed
  for (int i = static_cast<int>(threadIdx.x); i < 64 * 128; i += 128) out[i] = tile[i];
}

// ---- host side --------------------------------------------------------------------------------

arch::TmaTensor2d fp8_operand(void const* base, int rows, int k, int box_rows) {
  arch::TmaTensor2d t;
  t.base = base;
  t.element = arch::TmaElement::kU8;
  t.inner = static_cast<std::uint64_t>(k);
  t.outer = static_cast<std::uint64_t>(rows);
  t.row_stride_bytes = static_cast<std::uint64_t>(k);
  t.box_inner = kBlockK;
  t.box_outer = static_cast<std::uint32_t>(box_rows);
  t.swizzle = arch::TmaSwizzle::k128B;
  return t;
}

/// Runs the kernel on a [64, K] and b [N, K] (fp8 codes, K-major); returns both outputs.
template <int N, class EA, class EB>
::testing::AssertionResult run_first_light(std::vector<std::uint8_t> const& a,
                                           std::vector<std::uint8_t> const& b, int k,
                                           std::vector<float>& c_direct,
                                           std::vector<float>& c_tma) {
  using L = Layout<N>;
  DeviceBuffer da, db, dc1, dc2;
  FIRST_LIGHT_CUDA(cudaMalloc(&da.ptr, a.size()));
  FIRST_LIGHT_CUDA(cudaMalloc(&db.ptr, b.size()));
  FIRST_LIGHT_CUDA(cudaMalloc(&dc1.ptr, sizeof(float) * kM * N));
  FIRST_LIGHT_CUDA(cudaMalloc(&dc2.ptr, sizeof(float) * kM * N));
  FIRST_LIGHT_CUDA(cudaMemcpy(da.ptr, a.data(), a.size(), cudaMemcpyHostToDevice));
  FIRST_LIGHT_CUDA(cudaMemcpy(db.ptr, b.data(), b.size(), cudaMemcpyHostToDevice));
  FIRST_LIGHT_CUDA(poison_device(static_cast<float*>(dc1.ptr), kM * N));
  FIRST_LIGHT_CUDA(poison_device(static_cast<float*>(dc2.ptr), kM * N));
  arch::TmaDescriptor map_a, map_b, map_c;
  FIRST_LIGHT_STATUS(arch::encode_tma_descriptor(fp8_operand(da.ptr, kM, k, kM), &map_a));
  FIRST_LIGHT_STATUS(arch::encode_tma_descriptor(fp8_operand(db.ptr, N, k, N), &map_b));
  arch::TmaTensor2d c;
  c.base = dc2.ptr;
  c.element = arch::TmaElement::kF32;
  c.inner = N;
  c.outer = kM;
  c.row_stride_bytes = sizeof(float) * N;
  c.box_inner = N;
  c.box_outer = kM;
  FIRST_LIGHT_STATUS(arch::encode_tma_descriptor(c, &map_c));
  auto* kernel = &first_light_kernel<N, EA, EB>;
  FIRST_LIGHT_CUDA(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, L::kAlloc));
  kernel<<<1, kThreads, L::kAlloc>>>(map_a, map_b, map_c, static_cast<float*>(dc1.ptr),
                                     k / kBlockK);
  FIRST_LIGHT_CUDA(cudaGetLastError());
  FIRST_LIGHT_CUDA(cudaDeviceSynchronize());
  c_direct.assign(kM * N, 0.0f);
  c_tma.assign(kM * N, 0.0f);
  FIRST_LIGHT_CUDA(
      cudaMemcpy(c_direct.data(), dc1.ptr, sizeof(float) * kM * N, cudaMemcpyDeviceToHost));
  FIRST_LIGHT_CUDA(
      cudaMemcpy(c_tma.data(), dc2.ptr, sizeof(float) * kM * N, cudaMemcpyDeviceToHost));
  auto const w1 = all_written(c_direct.data(), kM, N, N);
  if (!w1) return ::testing::AssertionFailure() << "direct store: " << w1.message();
  auto const w2 = all_written(c_tma.data(), kM, N, N);
  if (!w2) return ::testing::AssertionFailure() << "TMA store: " << w2.message();
  return ::testing::AssertionSuccess();
}

template <class E>
std::uint8_t code(float x) {
  return float_to_fp8<E>(x).bits;
}
template <class E>
double value(std::uint8_t c) {
  return static_cast<double>(fp8_to_float(E::from_bits(c)));
}

/// C[m][n] = Σ_k A[m][k] B[n][k] and Σ_k |A[m][k] B[n][k]| in FP64 (exact for these sizes).
template <class EA, class EB>
void reference(std::vector<std::uint8_t> const& a, std::vector<std::uint8_t> const& b, int n, int k,
               std::vector<double>& c, std::vector<double>& abs_c) {
  c.assign(static_cast<std::size_t>(kM) * n, 0.0);
  abs_c.assign(static_cast<std::size_t>(kM) * n, 0.0);
  for (int r = 0; r < kM; ++r) {
    for (int col = 0; col < n; ++col) {
      double s = 0.0, sa = 0.0;
      for (int kk = 0; kk < k; ++kk) {
        double const p = value<EA>(a[r * k + kk]) * value<EB>(b[col * k + kk]);
        s += p;
        sa += std::fabs(p);
      }
      c[r * n + col] = s;
      abs_c[r * n + col] = sa;
    }
  }
}

/// The exact product of two fp8 codes with its operand exponent sum (sm90_accumulation_model.hpp).
template <class EA, class EB>
Sm90Product product(std::uint8_t ca, std::uint8_t cb) {
  double const a = value<EA>(ca), b = value<EB>(cb);
  Sm90Product p;
  p.value = a * b;
  if (p.value != 0.0) {
    p.exponent = fp8_operand_exponent(a, std::ilogb(FormatTraits<EA>::kMinNormal)) +
                 fp8_operand_exponent(b, std::ilogb(FormatTraits<EB>::kMinNormal));
  }
  return p;
}

/// Appends a, b and the kernel's C of one case to $FP8GEMM_FIRST_LIGHT_DUMP (if set), so that
/// accumulation models can be fitted offline: int32 {N, K, EA is e4m3, EB is e4m3}, a [64 K],
/// b [N K], c [64 N] f32.
template <class EA, class EB>
void dump_case(int n, int k, std::vector<std::uint8_t> const& a, std::vector<std::uint8_t> const& b,
               std::vector<float> const& c) {
  char const* path = std::getenv("FP8GEMM_FIRST_LIGHT_DUMP");
  if (path == nullptr) return;
  std::FILE* f = std::fopen(path, "ab");
  ASSERT_NE(f, nullptr) << path;
  std::int32_t const header[4] = {n, k, std::is_same_v<EA, e4m3fn> ? 1 : 0,
                                  std::is_same_v<EB, e4m3fn> ? 1 : 0};
  bool ok = std::fwrite(header, sizeof header, 1, f) == 1;
  ok = ok && std::fwrite(a.data(), 1, a.size(), f) == a.size();
  ok = ok && std::fwrite(b.data(), 1, b.size(), f) == b.size();
  ok = ok && std::fwrite(c.data(), sizeof(float), c.size(), f) == c.size();
  EXPECT_TRUE(ok) << "short write to " << path;
  EXPECT_EQ(std::fclose(f), 0);
}

template <class E>
char const* fmt() {
  return FormatTraits<E>::kName;
}

// ---- TMA swizzle ------------------------------------------------------------------------------

TEST(WgmmaFirstLight, TmaSwizzle128BMatchesSwizzle128B) {
  constexpr int kRows = 64, kK = 256;  // the box is the first 128 bytes of each of 64 rows
  std::mt19937_64 rng(7);
  std::vector<std::uint8_t> src(kRows * kK);
  for (auto& x : src) x = static_cast<std::uint8_t>(rng());
  DeviceBuffer d_src, d_out;
  ASSERT_EQ(cudaMalloc(&d_src.ptr, src.size()), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_out.ptr, 64 * 128), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_src.ptr, src.data(), src.size(), cudaMemcpyHostToDevice), cudaSuccess);
  arch::TmaDescriptor map;
  Status const st = arch::encode_tma_descriptor(fp8_operand(d_src.ptr, kRows, kK, kRows), &map);
  ASSERT_TRUE(st.ok()) << st.to_string();
  int const smem = 64 * 128 + 8 + 1024;
  swizzle_probe_kernel<<<1, 128, smem>>>(map, static_cast<std::uint8_t*>(d_out.ptr));
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<std::uint8_t> out(64 * 128);
  ASSERT_EQ(cudaMemcpy(out.data(), d_out.ptr, out.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  int mismatches = 0, identity_matches = 0;
  for (std::uint32_t r = 0; r < 64; ++r) {
    for (std::uint32_t c = 0; c < 128; ++c) {
      mismatches += out[Swizzle128B::offset(r, c)] != src[r * kK + c] ? 1 : 0;
      identity_matches += out[r * 128 + c] == src[r * kK + c] ? 1 : 0;
    }
  }
  EXPECT_EQ(mismatches, 0) << "bytes where TMA's SWIZZLE_128B differs from Swizzle128B";
  // rows r % 8 == 0 are unpermuted, plus chance byte matches: far fewer than all 8192
  EXPECT_LT(identity_matches, 64 * 128 / 4) << "the copy was not swizzled at all";
  std::printf("TMA 128B swizzle: %d of 8192 bytes where Swizzle128B is wrong\n", mismatches);
}

// ---- exact integer data -----------------------------------------------------------------------

/// Values in {-3, ..., 3}: every product and partial sum is an integer below 2^14 in magnitude
/// (|sum| <= 9 K = 10,368 at K = 1152; in practice a few hundred: the sum's standard deviation is
/// 4 sqrt(K) = 136), exact in any accumulator that keeps >= 14 significant bits (13 fraction bits
/// below the leading one), so the result must equal the FP64 reference exactly: any
/// mistake of TMA, swizzle, descriptor, k-step, stage/parity or accumulator map shows.
template <int N, class EA, class EB>
void expect_exact_on_integers(int k, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> pick(-3, 3);
  std::vector<std::uint8_t> a(static_cast<std::size_t>(kM) * k), b(static_cast<std::size_t>(N) * k);
  for (auto& x : a) x = code<EA>(static_cast<float>(pick(rng)));
  for (auto& x : b) x = code<EB>(static_cast<float>(pick(rng)));
  std::vector<float> c1, c2;
  ASSERT_TRUE((run_first_light<N, EA, EB>(a, b, k, c1, c2)));
  std::vector<double> ref, abs_ref;
  reference<EA, EB>(a, b, N, k, ref, abs_ref);
  int bad1 = 0, bad2 = 0, first = -1;
  for (int i = 0; i < kM * N; ++i) {
    if (static_cast<double>(c1[i]) != ref[i]) {
      if (first < 0) first = i;
      ++bad1;
    }
    bad2 += static_cast<double>(c2[i]) != ref[i] ? 1 : 0;
  }
  EXPECT_EQ(bad1, 0) << fmt<EA>() << " x " << fmt<EB>() << " N " << N << " K " << k
                     << ": direct store, first at (" << first / N << ", " << first % N
                     << "): " << (first >= 0 ? c1[first] : 0.f) << " vs "
                     << (first >= 0 ? ref[first] : 0.);
  EXPECT_EQ(bad2, 0) << fmt<EA>() << " x " << fmt<EB>() << " N " << N << ": TMA store";
  std::printf("exact integers %s x %s N %3d K %4d: %d / %d wrong (direct), %d (TMA store)\n",
              fmt<EA>(), fmt<EB>(), N, k, bad1, kM * N, bad2);
}

template <int N, class EA, class EB>
void exact_all_k() {
  for (int k : {128, 512, 1152}) expect_exact_on_integers<N, EA, EB>(k, 100 + N + k);
}

// The narrow atoms of the swapped decode policies (Sm90WgmmaDecode: wgmma N = 8, 16, 32): an
// 8-row B tile is one swizzle atom (its stride byte offset unused), 16 and 32 rows use it.
TEST(WgmmaFirstLight, ExactOnIntegersNarrowN) {
  exact_all_k<8, e4m3fn, e4m3fn>();
  exact_all_k<8, e5m2, e4m3fn>();
  exact_all_k<16, e4m3fn, e5m2>();
  exact_all_k<16, e5m2, e5m2>();
  exact_all_k<32, e4m3fn, e4m3fn>();
  exact_all_k<32, e5m2, e4m3fn>();
}

TEST(WgmmaFirstLight, ExactOnIntegersE4m3E4m3) {
  exact_all_k<64, e4m3fn, e4m3fn>();
  exact_all_k<128, e4m3fn, e4m3fn>();
  exact_all_k<256, e4m3fn, e4m3fn>();
}
TEST(WgmmaFirstLight, ExactOnIntegersE4m3E5m2) {
  exact_all_k<64, e4m3fn, e5m2>();
  exact_all_k<128, e4m3fn, e5m2>();
  exact_all_k<256, e4m3fn, e5m2>();
}
TEST(WgmmaFirstLight, ExactOnIntegersE5m2E4m3) {
  exact_all_k<64, e5m2, e4m3fn>();
  exact_all_k<128, e5m2, e4m3fn>();
  exact_all_k<256, e5m2, e4m3fn>();
}
TEST(WgmmaFirstLight, ExactOnIntegersE5m2E5m2) {
  exact_all_k<64, e5m2, e5m2>();
  exact_all_k<128, e5m2, e5m2>();
  exact_all_k<256, e5m2, e5m2>();
}

// ---- random data against FP64 -----------------------------------------------------------------

/// Tolerance (tests/common/tolerance.hpp's γ form, for the measured accumulation of
/// common/sm90_accumulation_model.hpp, u = kAccumulatorUnitRoundoff = 2^-13): each k-step cuts
/// its 32 products and D at q <= u · max |term| (to first order; an fp8 subnormal operand can
/// make q larger than that, by at most the subnormal's own tiny size) and then the sum at
/// u · |sum|, so it adds at most 34 u · (Σ|a_k b_k| so far); over K/32 k-steps that is
/// (K + K/16) u Σ|a_k b_k|, i.e. γ_{K'} with extra_ops = K/16 + 1. Output is f32 (half an ulp).
template <int N, class EA, class EB>
void expect_within_bound_on_random(int k, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<std::uint8_t> a(static_cast<std::size_t>(kM) * k), b(static_cast<std::size_t>(N) * k);
  for (auto& x : a) x = code<EA>(normal(rng));
  for (auto& x : b) x = code<EB>(normal(rng));
  std::vector<float> c1, c2;
  ASSERT_TRUE((run_first_light<N, EA, EB>(a, b, k, c1, c2)));
  std::vector<double> ref, abs_ref;
  reference<EA, EB>(a, b, N, k, ref, abs_ref);
  ToleranceParams p;
  p.k = k;
  p.extra_ops = k / 16 + 1;
  p.unit_roundoff = arch::Sm90Wgmma64xNx32<N, EA, EB>::kAccumulatorUnitRoundoff;
  std::vector<double> out1(c1.begin(), c1.end()), out2(c2.begin(), c2.end()), bound(ref.size());
  double worst = 0.0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    bound[i] = element_bound(p, abs_ref[i], ref[i], ref[i]);
    worst = std::fmax(worst, std::fabs(out1[i] - ref[i]) / bound[i]);
  }
  EXPECT_TRUE(all_within_bound(out1, ref, bound, kM, N)) << fmt<EA>() << " x " << fmt<EB>();
  EXPECT_TRUE(all_within_bound(out2, out1, std::vector<double>(ref.size(), 0.0), kM, N))
      << "TMA store differs from the direct store";
  ErrorStats const e = error_stats(out1, ref, kM, N);
  std::printf(
      "random N(0,1) %s x %s N %3d K %4d: normwise %.3g, max |err| %.3g, worst err/bound %.3g\n",
      fmt<EA>(), fmt<EB>(), N, k, e.normwise_rel, e.max_abs, worst);
  dump_case<EA, EB>(N, k, a, b, c1);
  // Bit for bit against the accumulation model (common/sm90_accumulation_model.hpp): the measured
  // model must reproduce every element; its simpler variants are printed to show that the check
  // tells them apart (they missed 9-19 % of the elements on 2026-11-30).
  for (Sm90AccumulationModel m : kAllAccumulationModels) {
    int same = 0;
    std::vector<Sm90Product> products(static_cast<std::size_t>(k));
    for (int r = 0; r < kM; ++r) {
      for (int col = 0; col < N; ++col) {
        for (int kk = 0; kk < k; ++kk)
          products[kk] = product<EA, EB>(a[r * k + kk], b[col * k + kk]);
        same += sm90_wgmma_accumulate(products, m) == c1[r * N + col] ? 1 : 0;
      }
    }
    std::printf("  model '%s': %d of %d elements bit-identical\n", model_name(m), same, kM * N);
    ::testing::Test::RecordProperty(std::string("model_matches ") + fmt<EA>() + "x" + fmt<EB>() +
                                        " N" + std::to_string(N) + " " + model_name(m),
                                    same);
    if (m == Sm90AccumulationModel::kMeasured) {
      EXPECT_EQ(same, kM * N)
          << "the measured accumulation model no longer reproduces the hardware";
    }
  }
}

TEST(WgmmaFirstLight, RandomWithinBound) {
  expect_within_bound_on_random<128, e4m3fn, e4m3fn>(512, 11);
  expect_within_bound_on_random<128, e4m3fn, e5m2>(512, 12);
  expect_within_bound_on_random<128, e5m2, e4m3fn>(512, 13);
  expect_within_bound_on_random<128, e5m2, e5m2>(512, 14);
  expect_within_bound_on_random<256, e4m3fn, e4m3fn>(1152, 15);
  expect_within_bound_on_random<64, e5m2, e5m2>(1152, 16);
}

// ---- accumulator precision --------------------------------------------------------------------

/// Crafted inputs (powers of two, normal in both e4m3 and e5m2, so every pair reads the same
/// values): column n holds a "big" B value 2^(n-6) at k = 0 and k = 480 and 2^-6 everywhere else;
/// each experiment row r puts A = 2^8 at one big position and A = s (2^-6 or 1) at its "small"
/// positions, so big = 2^(n+2) and one small product = 2^-12 or 2^-6: the small term sits
/// t = n + 14 or n + 8 bits below the big one (t = 8 .. 28 over n = 0 .. 14). FP32 keeps a lone
/// small term exactly up to t = 23 (1 + 2^-23) and drops it from t = 24 on (round to nearest
/// even). A tensor core that aligns to the largest term and keeps m fraction bits keeps it up to
/// t = m.
struct Experiment {
  char const* name;
  int big_k;                  // 0 or 480
  std::vector<int> small_ks;  // positions of the small products
};

std::vector<Experiment> experiments() {
  std::vector<Experiment> e;
  e.push_back({"one small, same wgmma (k=1)", 0, {1}});
  e.push_back({"one small, same wgmma (k=8)", 0, {8}});
  e.push_back({"one small, same wgmma (k=16)", 0, {16}});
  std::vector<int> same;
  for (int k = 1; k < 32; ++k) same.push_back(k);
  e.push_back({"31 smalls, same wgmma", 0, same});
  e.push_back({"one small, next k-step (k=32)", 0, {32}});
  std::vector<int> later;
  for (int j = 1; j < 15; ++j) later.push_back(32 * j);
  e.push_back({"14 smalls, one per later k-step", 0, later});
  std::vector<int> all;
  for (int k = 1; k < 512; ++k) {
    if (k != 480) all.push_back(k);
  }
  e.push_back({"510 smalls, all of K", 0, all});
  e.push_back({"small first (k=1), big in last k-step", 480, {1}});
  return e;
}

constexpr int kBitsK = 512;
constexpr int kBitsColumns = 15;  // n = 0 .. 14

struct BitsResult {
  int exact_up_to = 0;  // largest t with every t' <= t exact (from t = 8)
  std::string counts;   // surviving smalls (in units of one small) per t
};

template <class EA, class EB>
std::vector<BitsResult> measure_accumulator_bits(bool& ok) {
  constexpr int N = 128;
  auto const ex = experiments();
  std::vector<std::uint8_t> a(static_cast<std::size_t>(kM) * kBitsK, code<EA>(0.0f));
  std::vector<std::uint8_t> b(static_cast<std::size_t>(N) * kBitsK, code<EB>(0.0f));
  for (int n = 0; n < kBitsColumns; ++n) {
    for (int k = 0; k < kBitsK; ++k) b[n * kBitsK + k] = code<EB>(std::ldexp(1.0f, -6));
    b[n * kBitsK + 0] = b[n * kBitsK + 480] = code<EB>(std::ldexp(1.0f, n - 6));
  }
  for (std::size_t v = 0; v < ex.size(); ++v) {
    for (int half = 0; half < 2; ++half) {  // row 2v: small A = 2^-6; row 2v+1: small A = 1
      int const r = static_cast<int>(2 * v) + half;
      a[r * kBitsK + ex[v].big_k] = code<EA>(256.0f);
      for (int k : ex[v].small_ks)
        a[r * kBitsK + k] = code<EA>(half == 0 ? std::ldexp(1.0f, -6) : 1.0f);
    }
  }
  std::vector<float> c1, c2;
  auto const run = run_first_light<N, EA, EB>(a, b, kBitsK, c1, c2);
  ok = static_cast<bool>(run);
  EXPECT_TRUE(run);
  std::vector<BitsResult> results(ex.size());
  if (!ok) return results;
  // The whole tile, bit for bit, against the measured accumulation model.
  int model_mismatches = 0;
  std::vector<Sm90Product> products(kBitsK);
  for (int r = 0; r < kM; ++r) {
    for (int col = 0; col < N; ++col) {
      for (int kk = 0; kk < kBitsK; ++kk)
        products[kk] = product<EA, EB>(a[r * kBitsK + kk], b[col * kBitsK + kk]);
      model_mismatches += sm90_wgmma_accumulate(products) != c1[r * N + col];
    }
  }
  EXPECT_EQ(model_mismatches, 0) << "the measured accumulation model misses crafted outputs";
  std::printf("crafted tile %s x %s: %d of %d outputs differ from the measured model\n", fmt<EA>(),
              fmt<EB>(), model_mismatches, kM * N);
  for (std::size_t v = 0; v < ex.size(); ++v) {
    std::ostringstream counts;
    bool exact_so_far = true;
    int exact_up_to = 7;
    double const count = static_cast<double>(ex[v].small_ks.size());
    for (int t = 8; t <= 28; ++t) {
      // rows covering t: row 2v (t = n + 14) and row 2v+1 (t = n + 8)
      bool all_exact = true;
      double survived = -1.0;
      for (int half = 0; half < 2; ++half) {
        int const n = t - (half == 0 ? 14 : 8);
        if (n < 0 || n >= kBitsColumns) continue;
        int const r = static_cast<int>(2 * v) + half;
        double const big = std::ldexp(1.0, n + 2);
        double const small = std::ldexp(1.0, half == 0 ? -12 : -6);
        double const got = c1[r * N + n];
        double const expect = big + count * small;
        all_exact = all_exact && got == expect;
        if (survived < 0.0) survived = (got - big) / small;
        EXPECT_EQ(c2[r * N + n], c1[r * N + n]) << "TMA store differs";
      }
      if (exact_so_far && all_exact) exact_up_to = t;
      exact_so_far = exact_so_far && all_exact;
      counts << " " << t << ":" << survived;
    }
    results[v] = {exact_up_to, counts.str()};
  }
  return results;
}

template <class EA, class EB>
void report_accumulator_bits() {
  bool ok = false;
  auto const r = measure_accumulator_bits<EA, EB>(ok);
  if (!ok) return;
  auto const ex = experiments();
  std::printf(
      "accumulator bits %s x %s (t = bits between the big term's leading bit and a small "
      "term; FP32 keeps a lone small term up to t = 23):\n",
      fmt<EA>(), fmt<EB>());
  for (std::size_t v = 0; v < ex.size(); ++v) {
    std::printf("  %-40s exact up to t = %2d; smalls surviving per t:%s\n", ex[v].name,
                r[v].exact_up_to, r[v].counts.c_str());
    ::testing::Test::RecordProperty(
        std::string("exact_up_to_t ") + fmt<EA>() + "x" + fmt<EB>() + " " + ex[v].name,
        r[v].exact_up_to);
  }
  // What must hold whatever the width: small terms 2^-10 below the big one survive (a narrower
  // accumulator would break the integer tests too), and a lone term 2^-24 or less below is gone
  // (1 + 2^-24 is no FP32 number) -- else the experiment does not measure what it claims.
  for (std::size_t v = 0; v < ex.size(); ++v) EXPECT_GE(r[v].exact_up_to, 10) << ex[v].name;
  EXPECT_LE(r[0].exact_up_to, 23) << "a lone term 2^-24 below survived: FP32 cannot hold that";
  // The atom's recorded unit roundoff must not claim more bits than the hardware kept in the
  // experiments that model fast accumulation (one term in the same wgmma, one term one k-step on).
  double const claimed = arch::Sm90Wgmma64xNx32<128, EA, EB>::kAccumulatorUnitRoundoff;
  int const claimed_bits = -std::ilogb(claimed);
  EXPECT_LE(claimed_bits, r[0].exact_up_to) << "kAccumulatorUnitRoundoff claims too many bits";
  EXPECT_LE(claimed_bits, r[4].exact_up_to) << "kAccumulatorUnitRoundoff claims too many bits";
}

TEST(WgmmaFirstLight, AccumulatorBitsE4m3E4m3) {
  report_accumulator_bits<e4m3fn, e4m3fn>();
}
TEST(WgmmaFirstLight, AccumulatorBitsE4m3E5m2) {
  report_accumulator_bits<e4m3fn, e5m2>();
}
TEST(WgmmaFirstLight, AccumulatorBitsE5m2E4m3) {
  report_accumulator_bits<e5m2, e4m3fn>();
}
TEST(WgmmaFirstLight, AccumulatorBitsE5m2E5m2) {
  report_accumulator_bits<e5m2, e5m2>();
}

// ---- the epilogue's GELU-tanh approximations, on every input
// -------------------------------------

/// Largest relative error (as FP32 bits of a nonnegative float, so atomicMax orders them) of
/// ex2.approx.ftz.f32 over every FP32 t in [-126, 128) (results normal: 2^-126 .. 2^128), and
/// whether every t >= 128 gives inf; and of rcp.approx.ftz.f32 over every FP32 d in [1, 2^126).
/// A NaN result counts in `nans` (fmaxf would pass over its error).
__global__ void approximation_errors(unsigned* ex2_err, unsigned* rcp_err, unsigned* ex2_not_inf,
                                     unsigned* nans) {
  float ex2_worst = 0.0f, rcp_worst = 0.0f;
  unsigned not_inf = 0, nan_results = 0;
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < (1ull << 32);
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    float const v = __uint_as_float(static_cast<unsigned>(i));
    float r;
    if (v >= -126.0f && v < 128.0f) {
      asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
      double const want = exp2(double(v));
      ex2_worst = fmaxf(ex2_worst, float(fabs(double(r) - want) / want));
      nan_results += isnan(r);
    } else if (v >= 128.0f) {
      asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
      not_inf += !isinf(r);
    }
    if (v >= 1.0f && v < 0x1p126f) {
      asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v));
      double const want = 1.0 / double(v);
      rcp_worst = fmaxf(rcp_worst, float(fabs(double(r) - want) / want));
      nan_results += isnan(r);
    }
  }
  atomicMax(ex2_err, __float_as_uint(ex2_worst));
  atomicMax(rcp_err, __float_as_uint(rcp_worst));
  atomicAdd(ex2_not_inf, not_inf);
  atomicAdd(nans, nan_results);
}

/// The largest error of GeluTanh::apply (the device's) against GELU-tanh in FP64 (as the logistic
/// function, which does not cancel), in units of 2^-24 (|y| + |x|): the activation term of the
/// tests' tolerance (tests/common/tolerance.hpp), over every FP32 x with |x| <= 64 and every
/// 4096th bit pattern beyond; NaN must stay NaN, and nothing else may become NaN (`nans`).
__global__ void gelu_tanh_errors(unsigned* worst_ulps, unsigned* nan_lost, unsigned* nans) {
  float worst = 0.0f;
  unsigned lost = 0, nan_results = 0;
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < (1ull << 32);
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    float const x = __uint_as_float(static_cast<unsigned>(i));
    if (isnan(x)) {
      lost += !isnan(GeluTanh::apply(x));
      continue;
    }
    if (!(fabsf(x) <= 64.0f) && (i & 0xFFFu) != 0) continue;  // beyond 64: every 4096th
    double const xd = x, u = 0.7978845608028654 * (xd + 0.044715 * xd * xd * xd);
    double const want = xd / (1.0 + exp(-2.0 * u));
    double const got = GeluTanh::apply(x);
    if (isinf(x)) continue;  // checked below: +inf -> inf; -inf gives NaN (-inf · 0)
    nan_results += isnan(got);
    // less the FP32 result's own rounding where it underflows (at most half the smallest
    // subnormal: y = -2^-149 / 2 rounds to -0), which the tolerance counts as output rounding
    double const beyond_underflow = fmax(fabs(got - want) - 0x1p-150, 0.0);
    worst = fmaxf(worst, float(beyond_underflow / (0x1p-24 * (fabs(want) + fabs(xd)))));
  }
  atomicMax(worst_ulps, __float_as_uint(worst));
  atomicAdd(nan_lost, lost);
  atomicAdd(nans, nan_results);
}

__global__ void apply_gelu_tanh(float* x, int n) {
  if (int(threadIdx.x) < n) x[threadIdx.x] = GeluTanh::apply(x[threadIdx.x]);
}

/// The errors the tolerance's activation term is derived from (tests/common/tolerance.hpp):
/// ex2.approx.ftz below 2^-22 relative and rcp.approx.ftz below 2^-23 on this H200, and
/// GELU-tanh as the epilogue evaluates it within 4 units of 2^-24 (|y| + |x|), the tolerance's
/// activation_eval_ulps. Measured values are printed and recorded as gtest properties.
TEST(EpilogueApproximations, Ex2RcpAndGeluTanhWithinTheToleranceTerm) {
  DeviceBuffer buf;
  ASSERT_EQ(buf.allocate(6 * sizeof(unsigned)), cudaSuccess);
  ASSERT_EQ(cudaMemset(buf.as<unsigned>(), 0, 6 * sizeof(unsigned)), cudaSuccess);
  unsigned* d = buf.as<unsigned>();
  approximation_errors<<<132 * 8, 256>>>(d, d + 1, d + 2, d + 5);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  gelu_tanh_errors<<<132 * 8, 256>>>(d + 3, d + 4, d + 5);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  unsigned h[6];
  ASSERT_EQ(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
  float ex2, rcp, gelu;
  std::memcpy(&ex2, &h[0], 4), std::memcpy(&rcp, &h[1], 4), std::memcpy(&gelu, &h[3], 4);
  std::printf(
      "  ex2.approx.ftz.f32: max relative error %.3g (%.2f units of 2^-24) over t in "
      "[-126, 128); rcp.approx.ftz.f32: %.3g (%.2f) over d in [1, 2^126); GELU-tanh: "
      "%.2f units of 2^-24 (|y| + |x|)\n",
      ex2, ex2 * 0x1p24, rcp, rcp * 0x1p24, gelu);
  ::testing::Test::RecordProperty("ex2_approx_ftz_max_rel_error_units",
                                  std::to_string(ex2 * 0x1p24));
  ::testing::Test::RecordProperty("rcp_approx_ftz_max_rel_error_units",
                                  std::to_string(rcp * 0x1p24));
  ::testing::Test::RecordProperty("gelu_tanh_max_error_units", std::to_string(gelu));
  EXPECT_GT(ex2, 0.0f);  // approximate: the sweep sees errors, so it could see too large ones
  EXPECT_LT(ex2, 0x1p-22f);
  EXPECT_EQ(h[2], 0u) << "ex2.approx.ftz of t >= 128 not inf";
  EXPECT_LT(rcp, 0x1p-23f);
  EXPECT_LE(gelu, 4.0f);
  EXPECT_EQ(h[4], 0u) << "GELU-tanh of NaN not NaN";
  EXPECT_EQ(h[5], 0u) << "NaN results from inputs that are not NaN";
  // The ends: +inf -> +inf, large negative x -> -0 (2^t overflows), large positive -> x.
  EXPECT_EQ(GeluTanh::apply(-1e30f), 0.0f);  // host formula; the device's below
  std::vector<float> xs = {INFINITY, -100.0f, 100.0f, -1e30f, 0.0f}, ys(xs.size());
  DeviceBuffer dx;
  ASSERT_EQ(dx.allocate(xs.size() * sizeof(float)), cudaSuccess);
  ASSERT_EQ(
      cudaMemcpy(dx.as<float>(), xs.data(), xs.size() * sizeof(float), cudaMemcpyHostToDevice),
      cudaSuccess);
  apply_gelu_tanh<<<1, 32>>>(dx.as<float>(), static_cast<int>(xs.size()));
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(
      cudaMemcpy(ys.data(), dx.as<float>(), ys.size() * sizeof(float), cudaMemcpyDeviceToHost),
      cudaSuccess);
  EXPECT_EQ(ys[0], INFINITY);
  EXPECT_EQ(ys[1], 0.0f);
  EXPECT_TRUE(std::signbit(ys[1]));
  EXPECT_EQ(ys[2], 100.0f);
  EXPECT_EQ(ys[3], 0.0f);
  EXPECT_EQ(ys[4], 0.0f);
}

}  // namespace
}  // namespace fp8gemm::test

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  cudaDeviceProp prop{};
  int device = 0;
  if (cudaGetDevice(&device) == cudaSuccess &&
      cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
    int clock_khz = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device);
    std::printf("device: %s, cc %d.%d, %d SMs, max SM clock %d MHz\n", prop.name, prop.major,
                prop.minor, prop.multiProcessorCount, clock_khz / 1000);
  }
  return RUN_ALL_TESTS();
}
