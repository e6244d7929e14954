// SPDX-License-Identifier: MIT
// 64-bit offsets in the TMA + WGMMA kernel (H200, label gpu): A and C each hold more than 2^31
// elements (M = 65,536, K = 40,960, N = 33,024: A 2.68e9 bytes, C 2.16e9 bf16 elements). The
// operands are generated on the GPU from a hash of (seed, index), so the host recomputes any row
// without copying 4 GB; sampled outputs (the far corners, rows beyond 2^31 / ldc, random ones)
// are checked against FP64 with the derived bound. Needs ~8.5 GB of device memory.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <vector>

#include "gpu_run.hpp"

namespace fp8gemm::test {
namespace {

/// splitmix64: a well-mixed 64-bit hash of (seed, index), the same on host and device.
__host__ __device__ inline std::uint64_t mix(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// An e4m3fn byte: random sign, exponent field 5..7 with a random mantissa: |x| in [0.25, 1.875]
/// (no NaN, no zero, products never underflow).
__host__ __device__ inline std::uint8_t operand_byte(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t const h = mix(seed, i);
  return static_cast<std::uint8_t>((h & 0x80u) | (0x28u + (h >> 8) % 24u));
}

__global__ void fill_operand(std::uint8_t* p, std::uint64_t count, std::uint64_t seed) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < count;
       i += std::uint64_t(gridDim.x) * blockDim.x)
    p[i] = operand_byte(seed, i);
}

template <class Policy>
void check_sixty_four_bit_offsets() {
  using Config = GemmConfig<Policy, PerTensor, LayoutB::kNK, Epilogue<bf16>>;
  using G = Gemm<Config>;
  std::cout << "  " << G::name() << "\n";
  constexpr int kM = 65536, kN = 33024, kK = 40960;
  std::uint64_t const a_count = std::uint64_t(kM) * kK, b_count = std::uint64_t(kN) * kK;
  std::uint64_t const c_count = std::uint64_t(kM) * kN;
  ASSERT_GT(a_count, std::uint64_t{1} << 31);
  ASSERT_GT(c_count, std::uint64_t{1} << 31);
  std::uint64_t const seed = std::random_device{}();
  std::uint64_t const seed_a = mix(seed, 1), seed_b = mix(seed, 2);
  std::cout << "  seed " << seed << "\n";

  DeviceBuffer a, b, sa, sb, c;
  ASSERT_EQ(a.allocate(a_count), cudaSuccess);
  ASSERT_EQ(b.allocate(b_count), cudaSuccess);
  ASSERT_EQ(c.allocate(c_count * sizeof(bf16)), cudaSuccess);
  fill_operand<<<1056, 256>>>(a.as<std::uint8_t>(), a_count, seed_a);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  fill_operand<<<1056, 256>>>(b.as<std::uint8_t>(), b_count, seed_b);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(poison_device(c.as<bf16>(), c_count), cudaSuccess);
  float const scale_a = 0.5f, scale_b = 0.25f;  // powers of two: (acc·s_a)·s_b exact
  ASSERT_EQ(upload(sa, std::vector<float>{scale_a}), cudaSuccess);
  ASSERT_EQ(upload(sb, std::vector<float>{scale_b}), cudaSuccess);

  typename G::Arguments args;
  args.problem.m = kM, args.problem.n = kN, args.problem.k = kK;
  args.a = a.as<e4m3fn>(), args.lda = kK, args.b = b.as<e4m3fn>(), args.ldb = kK;
  args.scale_a = sa.as<float>(), args.scale_a_count = 1;
  args.scale_b = sb.as<float>(), args.scale_b_count = 1;
  args.epilogue.c = c.as<bf16>(), args.epilogue.ldc = kN;
  Status const st = G::run(args);
  ASSERT_TRUE(st.ok()) << st.to_string();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  // Samples: the four corners, rows whose offset m·N exceeds 2^31 (m >= 65,029), random ones.
  std::mt19937_64 rng(seed);
  std::vector<std::pair<int, int>> samples = {{0, 0}, {0, kN - 1}, {kM - 1, 0}, {kM - 1, kN - 1}};
  for (int i = 0; i < 24; ++i)
    samples.push_back(
        {65029 + static_cast<int>(rng() % (kM - 65029)), static_cast<int>(rng() % kN)});
  for (int i = 0; i < 36; ++i)
    samples.push_back({static_cast<int>(rng() % kM), static_cast<int>(rng() % kN)});

  // |C - C_64| <= (gamma_{128+8}(2^-13) + gamma_{K/128+4}(2^-24)) s_a s_b sum|ab| + bf16 rounding
  // (the promoted path's bound, tests/gpu/gemm_wgmma_gpu_test.cu)
  double const rel = gamma_n(128 + 8, 1.0 / (1 << 13)) + gamma_n(kK / 128 + 4);
  std::vector<double> arow(kK), brow(kK);
  double worst = 0;
  for (auto const& [m, n] : samples) {
    for (int k = 0; k < kK; ++k) {
      arow[k] = fp8_to_float(e4m3fn::from_bits(operand_byte(seed_a, std::uint64_t(m) * kK + k)));
      brow[k] = fp8_to_float(e4m3fn::from_bits(operand_byte(seed_b, std::uint64_t(n) * kK + k)));
    }
    double ref = 0, abs_sum = 0;
    for (int k = 0; k < kK; ++k) ref += arow[k] * brow[k], abs_sum += std::fabs(arow[k] * brow[k]);
    ref *= double(scale_a) * scale_b;
    abs_sum *= double(scale_a) * scale_b;
    bf16 got;
    ASSERT_EQ(cudaMemcpy(&got, c.as<bf16>() + std::uint64_t(m) * kN + n, sizeof got,
                         cudaMemcpyDeviceToHost),
              cudaSuccess);
    double const y = bf16_to_float(got);
    double const bound = rel * abs_sum + output_rounding_bound(OutputType::kBf16, ref);
    EXPECT_LE(std::fabs(y - ref), bound) << "C[" << m << "][" << n << "] = " << y << ", FP64 "
                                         << ref << " (offset " << std::uint64_t(m) * kN + n << ")";
    worst = std::max(worst, std::fabs(y - ref) / bound);
  }
  std::cout << "  " << samples.size() << " sampled outputs, worst error / bound " << worst << "\n";
}

// The 128 x 128 default tile and the 128 x 256 one (the per-tensor policy for large M: its
// chunked promotion and TMA-store epilogue address C through their own offsets).
TEST(WgmmaLarge, SixtyFourBitOffsetsInAAndC) {
  check_sixty_four_bit_offsets<Sm90WgmmaDefault<>>();
}
TEST(WgmmaLarge, SixtyFourBitOffsetsInAAndCOnTheLargeTile) {
  check_sixty_four_bit_offsets<Sm90WgmmaLarge<>>();
}

}  // namespace
}  // namespace fp8gemm::test
