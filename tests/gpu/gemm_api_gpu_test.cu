// SPDX-License-Identifier: MIT
// can_implement: every refusal names its check; workspace_size; split-K determinism; chained
// GEMMs under programmatic dependent launch (label gpu).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "common/can_implement_cases.hpp"
#include "gpu_run.hpp"

namespace fp8gemm::test {
namespace {

TEST(GemmCanImplement, ExplainsEveryRefusal) {
  check_every_refusal<
      GemmConfig<Sm90Default<>, PerChannel, LayoutB::kNK, Epilogue<bf16, GeluTanh>>>();
  check_every_refusal<GemmConfig<Sm90Default<>, Mx32, LayoutB::kKN, Epilogue<e4m3fn, Identity>>>();
  check_every_refusal<
      GemmConfig<Sm90SmallM<>, PerTensor, LayoutB::kNK, Epilogue<float, Identity>>>();
}

// A CDNA policy compiles into an nvcc build (its MFMA is a trap there) and is refused at run time.
TEST(GemmCanImplement, RefusesAnAmdPolicyOnNvidia) {
  using Cdna4 = GemmConfig<Cdna4Default<>, PerTensor, LayoutB::kNK, Epilogue<bf16, Identity>>;
  using Cdna3 = GemmConfig<Cdna3Default<>, PerChannel, LayoutB::kKN, Epilogue<float, GeluErf>>;
  for (Status const& s : {Gemm<Cdna4>::run(valid_arguments_64<Cdna4>()),
                          Gemm<Cdna3>::run(valid_arguments_64<Cdna3>())}) {
    EXPECT_EQ(s.code(), StatusCode::kErrorUnsupported) << s.to_string();
    EXPECT_NE(s.message().find("(AMD) but this build runs on an NVIDIA GPU"), std::string::npos)
        << s.message();
  }
}

// run() on real device memory with one pointer misaligned (or output_scale set for a float C):
// refused with its check before any launch, C untouched, no CUDA error left behind, and the same
// arguments with the pointer restored then run and match FP64.
TEST(GemmCanImplement, RefusesMisalignedDevicePointersBeforeLaunching) {
  using C32 = GemmConfig<Sm90Default<>, PerChannel, LayoutB::kNK, Epilogue<float, Identity>>;
  GemmProblem<C32> const p(GemmCase{96, 80, 256, 31});
  DeviceBuffer a, b, sa, sb, bias, c, amax;
  ASSERT_EQ(upload(a, p.a_q), cudaSuccess);
  ASSERT_EQ(upload(b, p.b_q), cudaSuccess);
  ASSERT_EQ(upload(sa, p.sa_f), cudaSuccess);
  ASSERT_EQ(upload(sb, p.sb_f), cudaSuccess);
  ASSERT_EQ(upload(bias, p.bias_f), cudaSuccess);
  ASSERT_EQ(c.allocate(p.c_size() * sizeof(float) + 16), cudaSuccess);  // room for c + 1 element
  ASSERT_EQ(amax.allocate(2 * sizeof(float)), cudaSuccess);
  ASSERT_EQ(poison_device(c.as<float>(), p.c_size() + 4), cudaSuccess);
  auto const valid = p.arguments(a.as<e4m3fn>(), b.as<e4m3fn>(), sa.as<float>(), sb.as<float>(),
                                 bias.as<float>(), c.as<float>(), amax.as<float>());
  auto refused = [](Gemm<C32>::Arguments const& args, StatusCode code, char const* phrase) {
    Status const st = Gemm<C32>::run(args);
    EXPECT_EQ(st.code(), code) << st.to_string();
    EXPECT_NE(st.message().find(phrase), std::string::npos) << st.message();
  };
  auto const misaligned = StatusCode::kErrorMisaligned;
  auto args = valid;
  args.epilogue.c = offset_bytes(c.as<float>(), 1);
  refused(args, misaligned, "C must be 4-byte aligned");
  args = valid, args.epilogue.c = offset_bytes(c.as<float>(), 2);
  refused(args, misaligned, "C must be 4-byte aligned");
  args = valid, args.scale_a = offset_bytes(sa.as<float>(), 1);
  refused(args, misaligned, "scale_a must be 4-byte aligned");
  args = valid, args.scale_b = offset_bytes(sb.as<float>(), 2);
  refused(args, misaligned, "scale_b must be 4-byte aligned");
  args = valid, args.epilogue.bias = offset_bytes(bias.as<float>(), 3);
  refused(args, misaligned, "epilogue.bias must be 4-byte aligned");
  args = valid, args.epilogue.amax = offset_bytes(amax.as<float>(), 2);
  refused(args, misaligned, "epilogue.amax must be 4-byte aligned");
  args = valid, args.epilogue.output_scale = 1.0f;
  refused(args, StatusCode::kErrorInvalidArgument, "output_scale is for fp8 outputs only");
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  std::vector<float> out(p.c_size() + 4);
  ASSERT_EQ(cudaMemcpy(out.data(), c.ptr, out.size() * sizeof(float), cudaMemcpyDeviceToHost),
            cudaSuccess);
  for (std::size_t i = 0; i < out.size(); ++i)
    ASSERT_TRUE(is_poison(out[i])) << "C[" << i << "] written by a refused run";
  ASSERT_TRUE(Gemm<C32>::run(valid).ok());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  out.resize(p.c_size());
  float amax_h = 0;
  ASSERT_EQ(cudaMemcpy(out.data(), c.ptr, out.size() * sizeof(float), cudaMemcpyDeviceToHost),
            cudaSuccess);
  ASSERT_EQ(cudaMemcpy(&amax_h, amax.ptr, sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_TRUE(p.check(out, amax_h, nullptr));
}

// Split-K: each run within the derived bound of FP64, bit-identical from run to run, and as close
// to the unsplit GEMM of the same inputs as the two bounds allow.
TEST(GemmSplitK, DeterministicAndMatchesUnsplit) {
  using C32 = GemmConfig<Sm90Default<>, PerChannel, LayoutB::kNK, Epilogue<float, Identity>>;
  GemmCase c{200, 300, 4096, 5};
  c.split_k = 5;
  EXPECT_TRUE(split_k_consistent<C32>(c, run_on_gpu<C32>));
  GemmProblem<C32> const p(c);
  auto const args = p.arguments(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
  EXPECT_EQ(Gemm<C32>::workspace_size(args), std::size_t(5) * 200 * 300 * 4);
}

/// Two GEMMs on the default WGMMA policy where the second's A is the first's output: C1 [M, N1]
/// (fp8, ldc = N1) is A2 [M, K2] with K2 = N1 and lda = K2; fresh seeds per run.
using ChainFirst = GemmConfig<Sm90WgmmaDefault<>, PerTensor, LayoutB::kNK, Epilogue<e4m3fn>>;
using ChainSecond = GemmConfig<Sm90WgmmaDefault<>, PerTensor, LayoutB::kNK, Epilogue<float>>;
struct ChainProblems {
  int m = 1000, n1 = 768, n2 = 520;
  GemmCase c1 = first_case(m, n1);
  GemmCase c2{m, n2, n1, c1.seed + 1};
  GemmProblem<ChainFirst> p1{c1};
  GemmProblem<ChainSecond> p2{c2};
  static GemmCase first_case(int m, int n1) {
    GemmCase c{m, n1, 2048, std::random_device{}()};
    c.ldc_pad = 0;
    return c;
  }
};

// Programmatic dependent launch (the WGMMA kernel starts while the stream's previous kernel
// drains, and waits in griddepcontrol.wait before touching memory): GEMM 2 reads GEMM 1's e4m3
// output as its A, launched right behind it, for several fresh output buffers poisoned with NaN
// beforehand. A GEMM 2 that read its A before GEMM 1 finished would see NaN or stale bytes; each
// result must be bit-identical to GEMM 2 run again after a device synchronize on the same bytes,
// and free of NaN.
TEST(WgmmaProgrammaticLaunch, ChainedGemmReadsThePreviousOutput) {
  using First = ChainFirst;
  using Second = ChainSecond;
  ChainProblems const ch;
  int const m = ch.m, n1 = ch.n1, n2 = ch.n2;
  auto const &c1 = ch.c1, &c2 = ch.c2;
  GemmProblem<First> const& p1 = ch.p1;
  GemmProblem<Second> const& p2 = ch.p2;
  DeviceBuffer a1, b1, sa1, sb1, b2, sa2, sb2;
  ASSERT_EQ(upload(a1, p1.a_q), cudaSuccess);
  ASSERT_EQ(upload(b1, p1.b_q), cudaSuccess);
  ASSERT_EQ(upload(sa1, p1.sa_f), cudaSuccess);
  ASSERT_EQ(upload(sb1, p1.sb_f), cudaSuccess);
  ASSERT_EQ(upload(b2, p2.b_q), cudaSuccess);
  ASSERT_EQ(upload(sa2, p2.sa_f), cudaSuccess);
  ASSERT_EQ(upload(sb2, p2.sb_f), cudaSuccess);
  constexpr int kChains = 6;
  std::size_t const c1_count = static_cast<std::size_t>(m) * n1;
  std::size_t const c2_count = static_cast<std::size_t>(m) * p2.ldc;
  DeviceBuffer c1s[kChains], c2s[kChains], again;
  for (int i = 0; i < kChains; ++i) {
    ASSERT_EQ(c1s[i].allocate(c1_count), cudaSuccess);
    ASSERT_EQ(c2s[i].allocate(c2_count * sizeof(float)), cudaSuccess);
    ASSERT_EQ(poison_device(c1s[i].as<e4m3fn>(), c1_count), cudaSuccess);
    ASSERT_EQ(poison_device(c2s[i].as<float>(), c2_count), cudaSuccess);
  }
  ASSERT_EQ(again.allocate(c2_count * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  auto second_args = [&](int i, float* out) {
    auto args = p2.arguments(nullptr, b2.as<e4m3fn>(), sa2.as<float>(), sb2.as<float>(), nullptr,
                             out, nullptr);
    args.a = c1s[i].as<e4m3fn>(), args.lda = n1;
    return args;
  };
  // back to back on a created stream (not the legacy default one), no host sync in between
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  for (int i = 0; i < kChains; ++i) {
    auto a = p1.arguments(a1.as<e4m3fn>(), b1.as<e4m3fn>(), sa1.as<float>(), sb1.as<float>(),
                          nullptr, c1s[i].as<e4m3fn>(), nullptr);
    a.epilogue.ldc = n1;
    Status const s1 = Gemm<First>::run(a, stream);
    ASSERT_TRUE(s1.ok()) << s1.to_string();
    Status const s2 = Gemm<Second>::run(second_args(i, c2s[i].as<float>()), stream);
    ASSERT_TRUE(s2.ok()) << s2.to_string();
  }
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  std::vector<float> got(c2_count), want(c2_count);
  for (int i = 0; i < kChains; ++i) {
    ASSERT_EQ(poison_device(again.as<float>(), c2_count), cudaSuccess);
    ASSERT_TRUE(Gemm<Second>::run(second_args(i, again.as<float>())).ok());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_EQ(download(got, c2s[i]), cudaSuccess);
    ASSERT_EQ(download(want, again), cudaSuccess);
    std::size_t differ = 0, nan = 0;
    for (int r = 0; r < m; ++r)
      for (int col = 0; col < n2; ++col) {
        std::size_t const k = static_cast<std::size_t>(r) * p2.ldc + col;
        differ += std::memcmp(&got[k], &want[k], sizeof(float)) != 0;
        nan += std::isnan(got[k]) ? 1 : 0;
      }
    EXPECT_EQ(differ, 0u) << "chain " << i << ", " << describe(c1) << " then " << describe(c2);
    EXPECT_EQ(nan, 0u) << "chain " << i << ", " << describe(c1) << " then " << describe(c2);
  }
}

/// The other order hazard of programmatic launches (write after read): every chain's first GEMM
/// writes the same C1 that the previous chain's second GEMM reads as its A. Each chain's first GEMM
/// has its own scale for A, so the chains' C1 differ; a first GEMM that overwrote C1 while the
/// previous second GEMM still read it would change that chain's C2. Each C2 must equal, bit for
/// bit, the same two GEMMs run alone with a device sync between them.
TEST(WgmmaProgrammaticLaunch, ChainsSharingOneIntermediateKeepTheirOrder) {
  using First = ChainFirst;
  using Second = ChainSecond;
  ChainProblems const ch;
  int const m = ch.m, n1 = ch.n1, n2 = ch.n2;
  auto const &c1 = ch.c1, &c2 = ch.c2;
  GemmProblem<First> const& p1 = ch.p1;
  GemmProblem<Second> const& p2 = ch.p2;
  constexpr int kChains = 6;
  // chain i scales A1 by sa1 * (1 + i / 4): C1 changes (fp8 outputs of other magnitudes)
  std::vector<float> sa1_chain(kChains);
  for (int i = 0; i < kChains; ++i) sa1_chain[i] = p1.sa_f[0] * (1.0f + 0.25f * i);
  DeviceBuffer a1, b1, sa1s, sb1, b2, sa2, sb2, shared_c1, c1_alone, c2s[kChains], again;
  ASSERT_EQ(upload(a1, p1.a_q), cudaSuccess);
  ASSERT_EQ(upload(b1, p1.b_q), cudaSuccess);
  ASSERT_EQ(upload(sa1s, sa1_chain), cudaSuccess);
  ASSERT_EQ(upload(sb1, p1.sb_f), cudaSuccess);
  ASSERT_EQ(upload(b2, p2.b_q), cudaSuccess);
  ASSERT_EQ(upload(sa2, p2.sa_f), cudaSuccess);
  ASSERT_EQ(upload(sb2, p2.sb_f), cudaSuccess);
  std::size_t const c1_count = static_cast<std::size_t>(m) * n1;
  std::size_t const c2_count = static_cast<std::size_t>(m) * p2.ldc;
  for (DeviceBuffer* c : {&shared_c1, &c1_alone}) {
    ASSERT_EQ(c->allocate(c1_count), cudaSuccess);
    ASSERT_EQ(poison_device(c->as<e4m3fn>(), c1_count), cudaSuccess);
  }
  for (DeviceBuffer* c : {&c2s[0], &c2s[1], &c2s[2], &c2s[3], &c2s[4], &c2s[5], &again}) {
    ASSERT_EQ(c->allocate(c2_count * sizeof(float)), cudaSuccess);
    ASSERT_EQ(poison_device(c->as<float>(), c2_count), cudaSuccess);
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  auto first_args = [&](int i, e4m3fn* out) {
    auto a = p1.arguments(a1.as<e4m3fn>(), b1.as<e4m3fn>(), sa1s.as<float>() + i, sb1.as<float>(),
                          nullptr, out, nullptr);
    a.epilogue.ldc = n1;
    return a;
  };
  auto second_args = [&](e4m3fn const* in, float* out) {
    auto a = p2.arguments(nullptr, b2.as<e4m3fn>(), sa2.as<float>(), sb2.as<float>(), nullptr, out,
                          nullptr);
    a.a = in, a.lda = n1;
    return a;
  };
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  for (int i = 0; i < kChains; ++i) {
    Status const s1 = Gemm<First>::run(first_args(i, shared_c1.as<e4m3fn>()), stream);
    ASSERT_TRUE(s1.ok()) << s1.to_string();
    Status const s2 =
        Gemm<Second>::run(second_args(shared_c1.as<e4m3fn>(), c2s[i].as<float>()), stream);
    ASSERT_TRUE(s2.ok()) << s2.to_string();
  }
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  std::vector<float> got(c2_count), want(c2_count), previous;
  for (int i = 0; i < kChains; ++i) {
    ASSERT_TRUE(Gemm<First>::run(first_args(i, c1_alone.as<e4m3fn>())).ok());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_EQ(poison_device(again.as<float>(), c2_count), cudaSuccess);
    ASSERT_TRUE(Gemm<Second>::run(second_args(c1_alone.as<e4m3fn>(), again.as<float>())).ok());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    ASSERT_EQ(download(got, c2s[i]), cudaSuccess);
    ASSERT_EQ(download(want, again), cudaSuccess);
    std::size_t differ = 0, nan = 0, same_as_previous = 0;
    for (int r = 0; r < m; ++r)
      for (int col = 0; col < n2; ++col) {
        std::size_t const k = static_cast<std::size_t>(r) * p2.ldc + col;
        differ += std::memcmp(&got[k], &want[k], sizeof(float)) != 0;
        nan += std::isnan(got[k]) ? 1 : 0;
        same_as_previous += !previous.empty() && previous[k] == want[k];
      }
    EXPECT_EQ(differ, 0u) << "chain " << i << ", " << describe(c1) << " then " << describe(c2);
    EXPECT_EQ(nan, 0u) << "chain " << i;
    // the chains must be told apart: most outputs change with the first GEMM's scale
    if (i > 0) EXPECT_LT(same_as_previous, static_cast<std::size_t>(m) * n2 / 2) << "chain " << i;
    previous = want;
  }
}

}  // namespace
}  // namespace fp8gemm::test
