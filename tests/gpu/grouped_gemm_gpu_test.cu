// SPDX-License-Identifier: MIT
// GroupedGemm on the H200 (label gpu): the persistent TMA + WGMMA kernel (cooperative, ping-pong,
// swapped decode tiles) and the portable path, contiguous / masked / batched groups against FP64
// per group; 1024 groups; a CUDA graph replayed with other group sizes written on the device;
// bad counts refused on the device with nothing written; K-block-major block scales (the scale
// ring) against row-major ones.
#include <gtest/gtest.h>

#include <cstring>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "common/grouped_harness.hpp"
#include "common/scale_layouts.hpp"
#include "fp8gemm/device/auto_grouped_gemm.hpp"
#include "gpu_run.hpp"

namespace fp8gemm::test {
namespace {

/// A GroupedProblem's buffers on the device.
template <class Config>
struct GroupedBuffers {
  DeviceBuffer a, b, sa, sb, bias, counts, c, amax, workspace;
  typename GroupedGemm<Config>::Arguments args;

  ::testing::AssertionResult upload_all(GroupedProblem<Config> const& p) {
    using ElementC = typename Config::ElementC;
    FP8GEMM_TEST_CUDA(upload(a, p.a));
    FP8GEMM_TEST_CUDA(upload(b, p.b));
    FP8GEMM_TEST_CUDA(upload(sa, p.sa));
    FP8GEMM_TEST_CUDA(upload(sb, p.sb));
    FP8GEMM_TEST_CUDA(upload(bias, p.bias));
    FP8GEMM_TEST_CUDA(upload(counts, p.counts()));
    FP8GEMM_TEST_CUDA(c.allocate(p.c_size() * sizeof(ElementC)));
    FP8GEMM_TEST_CUDA(amax.allocate(sizeof(float)));
    args = p.arguments(a.as<typename Config::ElementA>(), b.as<typename Config::ElementB>(),
                       sa.as<typename Config::Scale>(), sb.as<typename Config::Scale>(),
                       bias.as<float>(), counts.as<int>(), c.as<ElementC>(), amax.as<float>(),
                       nullptr);
    std::size_t const ws = GroupedGemm<Config>::workspace_size(args);
    FP8GEMM_TEST_CUDA(workspace.allocate(ws));
    FP8GEMM_TEST_CUDA(cudaMemset(workspace.ptr, 0xFF, ws == 0 ? 1 : ws));
    args.workspace = ws > 0 ? workspace.ptr : nullptr;
    return poison();
  }
  /// C poisoned, amax NaN (each must be overwritten or stay untouched as the test expects).
  ::testing::AssertionResult poison() {
    FP8GEMM_TEST_CUDA(poison_device(args.epilogue.c, c_elements()));
    FP8GEMM_TEST_CUDA(cudaMemset(amax.ptr, 0xFF, sizeof(float)));
    return ::testing::AssertionSuccess();
  }
  std::size_t c_elements() const { return c_elements_; }
  std::size_t c_elements_ = 0;

  ::testing::AssertionResult check(GroupedProblem<Config> const& p) {
    std::vector<typename Config::ElementC> out(p.c_size());
    float amax_h = 0;
    FP8GEMM_TEST_CUDA(cudaDeviceSynchronize());
    FP8GEMM_TEST_CUDA(download(out, c));
    FP8GEMM_TEST_CUDA(cudaMemcpy(&amax_h, amax.ptr, sizeof(float), cudaMemcpyDeviceToHost));
    Status const st = GroupedGemm<Config>::counts_status(args);
    if (!st.ok()) return ::testing::AssertionFailure() << "counts: " << st.to_string();
    return p.check(out, amax_h);
  }
};

template <class Config>
::testing::AssertionResult run_grouped_on_gpu(GroupedProblem<Config> const& p) {
  GroupedBuffers<Config> d;
  d.c_elements_ = p.c_size();
  ::testing::AssertionResult const up = d.upload_all(p);
  if (!up) return up;
  Status const st = GroupedGemm<Config>::run(d.args, nullptr);
  if (!st.ok()) return ::testing::AssertionFailure() << "run: " << st.to_string();
  return d.check(p);
}

template <class Config>
class GroupedOnGpu : public ::testing::Test {};
TYPED_TEST_SUITE_P(GroupedOnGpu);

template <class Config>
constexpr bool kBlocked = Config::Granularity::kBlockK > 0;

TYPED_TEST_P(GroupedOnGpu, ContiguousMaskedBatched) {
  constexpr int bm = TypeParam::Policy::kBlockM;
  // ldc = N + 3: every tile stored from registers; ldc = N = 384 (rows of 16-byte multiples):
  // the tiles whole inside their group through TMA where the config's epilogue has it
  for (int pad : {3, 0}) {
    int const n = kBlocked<TypeParam> || pad == 0 ? 384 : 328;
    GroupedCase c;  // tile edges, an empty group, one hot expert
    c.mode = GroupMode::kContiguous;
    c.n = n, c.k = 1024, c.seed = 31 + pad, c.ldc_pad = pad;
    c.rows = std::vector<int>{0, 1, 15, 16, 17, bm - 1, bm, bm + 1, 700, 0, 3};
    GroupedProblem<TypeParam> const pc(c);
    EXPECT_TRUE(run_grouped_on_gpu(pc)) << describe(pc.cs);

    GroupedCase m;
    m.mode = GroupMode::kMasked;
    m.n = n, m.k = 768, m.seed = 32 + pad, m.m = 200, m.ldc_pad = pad;
    m.rows = std::vector<int>{5, 0, 200, 33, 129};
    GroupedProblem<TypeParam> const pm(m);
    EXPECT_TRUE(run_grouped_on_gpu(pm)) << describe(pm.cs);
  }
  int const n = kBlocked<TypeParam> ? 384 : 328;

  GroupedCase b;
  b.mode = GroupMode::kBatched;
  b.n = n, b.k = 512, b.seed = 33;
  b.rows = std::vector<int>(6, 150);
  b.a_pad_rows = kBlocked<TypeParam> ? 0 : 2;
  b.b_pad_rows = kBlocked<TypeParam> ? 0 : 8;
  GroupedProblem<TypeParam> const pb(b);
  EXPECT_TRUE(run_grouped_on_gpu(pb)) << describe(pb.cs);
}

/// Split-K (GroupedArguments::split_k): each tile's K in parts (K = 1024: 8 k-blocks of 128 in
/// 3 uneven splits; 6 in 6; 4 in 4), their partial sums added by the reduction kernel, which
/// stores each group's rows only (rows of no group stay poisoned: check). Ping-pong policies
/// refuse it in words.
TYPED_TEST_P(GroupedOnGpu, SplitK) {
  constexpr int bm = TypeParam::Policy::kBlockM;
  int const n = kBlocked<TypeParam> ? 384 : 328;
  GroupedCase c;
  c.mode = GroupMode::kContiguous;
  c.n = n, c.k = 1024, c.seed = 41, c.split_k = 3;
  c.rows = std::vector<int>{0, 17, bm + 1, 300, 3};
  GroupedProblem<TypeParam> const pc(c);
  if constexpr (GroupedGemm<TypeParam>::Kernel::TileScheduler::kPingPong) {
    GroupedBuffers<TypeParam> d;
    d.c_elements_ = pc.c_size();
    ASSERT_TRUE(d.upload_all(pc));
    Status const st = GroupedGemm<TypeParam>::can_implement(d.args);
    EXPECT_NE(st.message().find("split_k > 1 takes a cooperative policy"), std::string::npos)
        << st.message();
  } else {
    EXPECT_TRUE(run_grouped_on_gpu(pc)) << describe(pc.cs);
    GroupedCase m;
    m.mode = GroupMode::kMasked;
    m.n = n, m.k = 768, m.seed = 42, m.m = 200, m.split_k = 6;
    m.rows = std::vector<int>{5, 0, 200, 33};
    GroupedProblem<TypeParam> const pm(m);
    EXPECT_TRUE(run_grouped_on_gpu(pm)) << describe(pm.cs);
    GroupedCase b;
    b.mode = GroupMode::kBatched;
    b.n = n, b.k = 512, b.seed = 43, b.split_k = 4;
    b.rows = std::vector<int>(3, 150);
    GroupedProblem<TypeParam> const pb(b);
    EXPECT_TRUE(run_grouped_on_gpu(pb)) << describe(pb.cs);
  }
}

REGISTER_TYPED_TEST_SUITE_P(GroupedOnGpu, ContiguousMaskedBatched, SplitK);

template <class P, class G, class Out, class Act = Identity>
using Nk = GemmConfig<P, G, LayoutB::kNK, Epilogue<Out, Act>>;
using Bw = Blockwise<1, 128, 128>;
using PingPong = WgmmaTilePolicy<128, 128, 2, 6, e4m3fn, e4m3fn, WgmmaSchedule::kPingPong>;
// clang-format off
using GroupedConfigs = ::testing::Types<
    Nk<Sm90WgmmaDefault<e4m3fn, e4m3fn>, PerChannel, bf16>,
    Nk<Sm90WgmmaLarge<e4m3fn, e4m3fn>,   PerTensor,  e4m3fn>,
    Nk<Sm90WgmmaLarge<e4m3fn, e4m3fn>,   PerChannel, bf16>,  // scales staged in shared memory
    Nk<Sm90WgmmaDefault<e4m3fn, e4m3fn>, Bw,         bf16,  GeluTanh>,
    Nk<Sm90WgmmaDecode<16>,              PerChannel, bf16>,
    Nk<Sm90WgmmaDecode<16>,              Bw,         bf16>,
    Nk<Sm90WgmmaDecode<64, e4m3fn, e5m2>, Bw,        float, GeluTanh>,
    Nk<PingPong,                         PerChannel, fp16,  GeluErf>,
    Nk<Sm90WgmmaSmallM<e5m2, e4m3fn>,    PerTensor,  float>,
    Nk<Sm90Default<e4m3fn, e5m2>,        Bw,         float>>;
// clang-format on
INSTANTIATE_TYPED_TEST_SUITE_P(Grouped, GroupedOnGpu, GroupedConfigs, ConfigName);
static_assert(
    Nk<Sm90WgmmaLarge<e4m3fn, e4m3fn>, PerChannel, bf16>::CollectiveEpilogue::kStagesScales,
    "the per-channel 128 x 256 tile stages its grouped scales (the case above tests it)");
static_assert(
    !Nk<Sm90WgmmaDefault<e4m3fn, e4m3fn>, PerChannel, bf16>::CollectiveEpilogue::kStagesScales,
    "the per-channel 128 x 128 tile has no room to stage its scales");

using Main = Nk<Sm90WgmmaDefault<e4m3fn, e4m3fn>, PerChannel, bf16>;

/// Blockwise A scales K-block-major over the groups' rows (GroupedGemm::Arguments::scale_a_ld,
/// NaN between the rows) through the scale ring, against row-major ones loaded by the
/// consumers: the same bits, contiguous groups at arbitrary rows and masked groups, on the
/// 128 x 256 and 64-row tiles (which have the ring with bf16 C). On 3 SMs every CTA walks several
/// tiles, each past its first checked by the producer warpgroup's spare warps (checked tiles,
/// TmaWgmmaMainloop::check_tile: all products normal, the folded form alone); poisoned A scales
/// (a zero, an underflowing product, a NaN) and the NaN rows past the last group send their tiles
/// to the voting loop.
TEST(GroupedGemmOnGpu, KBlockMajorBlockScalesGiveTheSameBits) {
  auto same_bits = [](auto config, GroupedCase c, int sm_count = 0,
                      bool poison = false) -> ::testing::AssertionResult {
    using Config = decltype(config);
    static_assert(Config::Mainloop::kScaleRing && Config::Mainloop::kCheckedTiles);
    using ElementC = typename Config::ElementC;
    GroupedProblem<Config> p(c);
    ScaleShape const shape = scale_shape<Blockwise<1, 128, 128>>(Operand::kA, p.rows_a, c.k);
    if (poison) {  // flattened A's scales [rows][K / 128]: one row in the middle of each group
      float const bad[] = {0.0f, 1e-38f, std::numeric_limits<float>::quiet_NaN()};
      for (int g = 0; g < p.groups; ++g)
        if (c.rows[g] > 0)
          p.sa[static_cast<std::size_t>(p.first[g] + c.rows[g] / 2) * shape.cols + g % 3] =
              bad[g % 3];
    }
    GroupedBuffers<Config> d;
    d.c_elements_ = p.c_size();
    if (auto up = d.upload_all(p); !up) return up;
    d.args.sm_count = sm_count;
    Status st = GroupedGemm<Config>::run(d.args, nullptr);
    if (!st.ok()) return ::testing::AssertionFailure() << "run: " << st.to_string();
    // (poisoned: the FP64 reference holds the clean scales; the bits are compared below)
    if (!poison)
      if (auto r = d.check(p); !r) return r << " (row-major scales)";
    std::vector<ElementC> row(p.c_size()), kb(p.c_size());
    FP8GEMM_TEST_CUDA(download(row, d.c));
    // the same scales K-block-major, ld = rows + 3, NaN between
    std::int64_t const ld = shape.rows + 3;
    std::vector<float> const major = k_block_major(p.sa, shape.rows, shape.cols, ld);
    DeviceBuffer sa;
    FP8GEMM_TEST_CUDA(upload(sa, major));
    if (auto r = d.poison(); !r) return r;
    auto args = d.args;
    args.scale_a = sa.as<float>();
    args.scale_a_ld = ld;
    args.scale_a_count = static_cast<std::int64_t>(major.size());
    st = GroupedGemm<Config>::run(args, nullptr);
    if (!st.ok()) return ::testing::AssertionFailure() << "run: " << st.to_string();
    FP8GEMM_TEST_CUDA(cudaDeviceSynchronize());
    FP8GEMM_TEST_CUDA(download(kb, d.c));
    if (std::memcmp(row.data(), kb.data(), row.size() * sizeof(ElementC)) != 0)
      return ::testing::AssertionFailure()
             << describe(c) << " on " << sm_count << " SMs" << (poison ? " (poisoned)" : "")
             << ": differs from row-major scales";
    return ::testing::AssertionSuccess();
  };
  GroupedCase contiguous;
  contiguous.n = 512, contiguous.k = 1024, contiguous.seed = std::random_device{}();
  contiguous.rows = {70, 0, 300, 1, 129};
  std::cout << "  seed " << contiguous.seed << "\n";
  GroupedCase masked = contiguous;
  masked.mode = GroupMode::kMasked, masked.rows = {40, 0, 7}, masked.m = 40;
  using Large = Nk<Sm90WgmmaLarge<e4m3fn, e4m3fn>, Bw, bf16>;
  using SmallM = Nk<Sm90WgmmaSmallM<e4m3fn, e4m3fn>, Bw, bf16>;
  EXPECT_TRUE(same_bits(Large{}, contiguous));
  EXPECT_TRUE(same_bits(Large{}, masked));
  EXPECT_TRUE(same_bits(SmallM{}, contiguous));
  EXPECT_TRUE(same_bits(SmallM{}, masked));
  GroupedCase split = contiguous;  // split-K: the checked tiles' items are a tile's splits
  split.split_k = 3;
  EXPECT_TRUE(same_bits(Large{}, split, 3, true));
  EXPECT_TRUE(same_bits(SmallM{}, split, 5));
  for (bool poison : {false, true}) {  // checked tiles
    EXPECT_TRUE(same_bits(Large{}, contiguous, 3, poison));
    EXPECT_TRUE(same_bits(Large{}, masked, 3, poison));
    EXPECT_TRUE(same_bits(SmallM{}, contiguous, 3, poison));
    EXPECT_TRUE(same_bits(SmallM{}, masked, 3, poison));
  }
}

TEST(GroupedGemmOnGpu, ThousandGroups) {
  GroupedCase c;
  c.n = 256, c.k = 256, c.seed = 41;
  for (int g = 0; g < 1024; ++g) c.rows.push_back((g * 37) % 7);  // 0 .. 6 rows each
  GroupedProblem<Main> const p(c);
  EXPECT_TRUE(run_grouped_on_gpu(p)) << describe(p.cs);
  GroupedCase e = c;  // every group empty
  e.rows.assign(256, 0);
  e.m = 64;
  GroupedProblem<Main> const pe(e);
  EXPECT_TRUE(run_grouped_on_gpu(pe)) << describe(pe.cs);
}

/// One capture, two replays: the second after other group sizes (and their data) were written
/// into the same device buffers. Counts live on the device: the replay computes the new groups.
TEST(GroupedGemmOnGpu, GraphReplayWithCountsChangedOnTheDevice) {
  for (GroupMode mode : {GroupMode::kContiguous, GroupMode::kMasked}) {
    GroupedCase c;
    c.mode = mode;
    c.n = 512, c.k = 512, c.seed = 51, c.m = 640, c.ldc_pad = 0;  // TMA stores of C
    c.rows = std::vector<int>{100, 0, 257, 3, 128};
    GroupedCase d = c;
    d.seed = 52;
    d.rows = std::vector<int>{1, 300, 64, 0, 200};
    if (mode == GroupMode::kMasked) c.m = d.m = 300;
    GroupedProblem<Main> const p1(c), p2(d);
    GroupedBuffers<Main> buf;
    buf.c_elements_ = p1.c_size();
    ASSERT_TRUE(buf.upload_all(p1));
    cudaStream_t stream;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
    Status const st = GroupedGemm<Main>::run(buf.args, stream);
    ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess);
    ASSERT_TRUE(st.ok()) << st.to_string();
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_TRUE(buf.check(p1)) << "first replay, " << describe(p1.cs);
    // the second problem's bytes into the same buffers (same sizes), then replay
    auto put = [](DeviceBuffer& d, auto const& h) {
      return cudaMemcpy(d.ptr, h.data(), h.size() * sizeof(h[0]), cudaMemcpyHostToDevice);
    };
    ASSERT_EQ(put(buf.a, p2.a), cudaSuccess);
    ASSERT_EQ(put(buf.b, p2.b), cudaSuccess);
    ASSERT_EQ(put(buf.sa, p2.sa), cudaSuccess);
    ASSERT_EQ(put(buf.sb, p2.sb), cudaSuccess);
    ASSERT_EQ(put(buf.bias, p2.bias), cudaSuccess);
    ASSERT_EQ(put(buf.counts, p2.counts()), cudaSuccess);
    ASSERT_TRUE(buf.poison());
    ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_TRUE(buf.check(p2)) << "second replay, " << describe(p2.cs);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(stream);
  }
}

/// The store paths of C on the WGMMA kernel: with 16-byte rows of C whole tiles go through TMA
/// (asserted on the launch's parameters) at each group's first row, also with groups of C further
/// apart than their rows; groups of C not whole rows apart store every tile from registers. One
/// group; groups ending exactly at the rows of A and C; no rows at all.
TEST(GroupedGemmOnGpu, StorePathsAndEdges) {
  using GG = GroupedGemm<Main>;
  for (int elems : {0, 6}) {  // 6: groups of C not whole rows apart (bf16: 12 bytes)
    GroupedCase m;
    m.mode = GroupMode::kMasked;
    m.n = 384, m.k = 512, m.seed = 70 + elems, m.m = 300, m.ldc_pad = 0;
    m.c_pad_rows = 5, m.c_pad_elems = elems, m.rows = std::vector<int>{300, 129, 0, 256};
    GroupedProblem<Main> const p(m);
    GroupedBuffers<Main> buf;
    buf.c_elements_ = p.c_size();
    ASSERT_TRUE(buf.upload_all(p));
    typename GG::Kernel::Params params;
    ASSERT_TRUE(GG::Kernel::initialize(GG::kernel_arguments(buf.args), nullptr, params).ok());
    EXPECT_EQ(params.epilogue.tma_store, elems == 0) << "C's tensor map: " << describe(p.cs);
    ASSERT_TRUE(GG::run(buf.args, nullptr).ok());
    EXPECT_TRUE(buf.check(p)) << describe(p.cs);
  }
  GroupedCase one;
  one.n = 256, one.k = 384, one.seed = 75, one.rows = std::vector<int>{333}, one.ldc_pad = 0;
  for (GroupMode mode : {GroupMode::kContiguous, GroupMode::kMasked, GroupMode::kBatched}) {
    one.mode = mode;
    GroupedProblem<Main> const p(one);
    EXPECT_TRUE(run_grouped_on_gpu(p)) << describe(p.cs);
  }
  GroupedCase exact;  // the last group ends at problem.m, on a whole tile and on a partial one
  exact.n = 256, exact.k = 384, exact.seed = 76, exact.ldc_pad = 0;
  for (int last : {128, 77}) {
    exact.rows = std::vector<int>{130, 0, last};
    exact.m = 130 + last;
    GroupedProblem<Main> const p(exact);
    EXPECT_TRUE(run_grouped_on_gpu(p)) << describe(p.cs);
  }
  GroupedCase none;  // no rows at all: the counts kernel only
  none.n = 256, none.k = 384, none.rows = std::vector<int>{0, 0}, none.m = 0;
  GroupedProblem<Main> const pn(none);
  EXPECT_TRUE(run_grouped_on_gpu(pn));
}

TEST(GroupedGemmOnGpu, BadCountsWriteNothingAndAreReported) {
  GroupedCase c;
  c.n = 256, c.k = 256, c.seed = 61, c.rows = std::vector<int>{40, 50, 60};
  GroupedProblem<Main> const p(c);  // m = 155
  GroupedBuffers<Main> buf;
  buf.c_elements_ = p.c_size();
  ASSERT_TRUE(buf.upload_all(p));
  std::vector<int> const bad = {40, 1 << 30, 150};  // an end far past A's rows
  ASSERT_EQ(cudaMemcpy(buf.counts.ptr, bad.data(), sizeof(int) * 3, cudaMemcpyHostToDevice),
            cudaSuccess);
  Status const st = GroupedGemm<Main>::run(buf.args, nullptr);
  ASSERT_TRUE(st.ok()) << st.to_string();
  Status const counts = GroupedGemm<Main>::counts_status(buf.args);
  EXPECT_FALSE(counts.ok());
  EXPECT_NE(counts.message().find("offs[1] = 1073741824 is past the rows of A and C"),
            std::string::npos)
      << counts.message();
  std::vector<bf16> out(p.c_size());
  ASSERT_EQ(download(out, buf.c), cudaSuccess);
  for (bf16 v : out) ASSERT_TRUE(is_poison(v)) << "a bad count wrote C";

  GroupedCase m = c;  // masked: a count past the capacity
  m.mode = GroupMode::kMasked, m.m = 60;
  GroupedProblem<Main> const pm(m);
  GroupedBuffers<Main> mb;
  mb.c_elements_ = pm.c_size();
  ASSERT_TRUE(mb.upload_all(pm));
  std::vector<int> const over = {40, 61, 60};
  ASSERT_EQ(cudaMemcpy(mb.counts.ptr, over.data(), sizeof(int) * 3, cudaMemcpyHostToDevice),
            cudaSuccess);
  ASSERT_TRUE(GroupedGemm<Main>::run(mb.args, nullptr).ok());
  Status const masked = GroupedGemm<Main>::counts_status(mb.args);
  EXPECT_NE(masked.message().find("masked_m[1] = 61 is past the capacity"), std::string::npos)
      << masked.message();
  std::vector<bf16> mout(pm.c_size());
  ASSERT_EQ(download(mout, mb.c), cudaSuccess);
  for (bf16 v : mout) ASSERT_TRUE(is_poison(v)) << "a bad masked count wrote C";
}

/// AutoGroupedGemm<Sm90Target>, per-channel: its choices at about 2, 40, 200 and 600 expected rows
/// per group (the 16- and 64-column swapped tiles; at 200 rows 128 x 128, the few-tiles rule's
/// (12 x 2 x 2 tiles of 128 x 256 on 132 SMs, at most 120 of 128 x 128); at 600 128 x 256) run
/// through AutoGroupedGemm::run and match FP64 per group.
TEST(GroupedGemmOnGpu, AutoGroupedChoicesMatchFp64) {
  using Auto = AutoGroupedGemm<selection::Sm90Target, e4m3fn, e4m3fn, PerChannel, Epilogue<bf16>>;
  for (int mean : {2, 40, 200, 600}) {
    GroupedCase c;
    c.n = 512, c.k = 1024, c.seed = 80 + mean, c.ldc_pad = 0;
    for (int g = 0; g < 12; ++g) c.rows.push_back(mean / 2 + (g * 37) % (mean + 1));
    Auto::Arguments probe;
    probe.problem = {0, c.n, c.k, int(c.rows.size())};
    probe.expected_m = mean;
    Choice const choice = Auto::select(probe);
    ASSERT_GE(choice.index, 0) << choice.reason;
    std::cout << "  " << Auto::explain(probe) << "\n";
    // 12 x 2 x 2 tiles of 128 x 256 expected; at most floor(12 x 327 / 128) x 4 = 120 of 128 x 128
    int const sms = Auto::planned_sms(probe);
    if (mean == 200 && 48 <= sms / 2 && 120 <= sms)
      EXPECT_EQ(Auto::candidate_short_name(choice.index), "sm90_wgmma_default") << choice.reason;
    Auto::visit(choice.index, [&](auto tag) {
      using Config = typename decltype(tag)::type;
      GroupedProblem<Config> const p(c);
      GroupedBuffers<Config> buf;
      buf.c_elements_ = p.c_size();
      ASSERT_TRUE(buf.upload_all(p));
      Auto::Arguments args;
      static_cast<typename GroupedGemm<Config>::Arguments&>(args) = buf.args;
      args.expected_m = mean;
      ASSERT_EQ(Auto::select(args).index, choice.index);
      Status const st = Auto::run(args, nullptr);
      ASSERT_TRUE(st.ok()) << st.to_string();
      EXPECT_TRUE(buf.check(p)) << describe(p.cs);
    });
  }
}

}  // namespace
}  // namespace fp8gemm::test
