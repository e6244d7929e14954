// SPDX-License-Identifier: MIT
// GroupedGemm on the host emulator: the CDNA default policies (gfx950, gfx942) and the portable
// sm90 policy, every granularity and all four format pairs, contiguous / masked / batched groups
// against FP64 per group.
// Group sizes at the tile's edges (0, 1, 15, 16, 17, BM - 1, BM, BM + 1), all groups empty, more
// groups than the counts kernel's threads, counts changed between two runs on the same buffers,
// and bad counts (refused on the device: nothing written, counts_status names the group).
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "common/grouped_harness.hpp"
#include "common/poison.hpp"
#include "fp8gemm/device/auto_grouped_gemm.hpp"

namespace fp8gemm::test {
namespace {

/// Poisons C, runs GroupedGemm on host memory, checks against FP64 per group. `counts` replaces
/// the problem's device counts when given (a bad count: run must succeed, counts_status fail).
template <class Config>
::testing::AssertionResult run_grouped_on_host(GroupedProblem<Config> const& p,
                                               std::vector<int> const* counts = nullptr,
                                               Status* counts_status = nullptr,
                                               std::vector<int>* workspace_in = nullptr) {
  using GG = GroupedGemm<Config>;
  std::vector<typename Config::ElementC> c(p.c_size());
  poison_host(c);
  float amax = -1.0f;
  std::vector<int> dev_counts = counts != nullptr ? *counts : p.counts();
  auto args = p.arguments(p.a.data(), p.b.data(), p.sa.data(), p.sb.data(), p.bias.data(),
                          dev_counts.data(), c.data(), &amax, nullptr);
  std::vector<int> own(GG::workspace_size(args) / sizeof(int) + 1, -7);
  std::vector<int>& workspace = workspace_in != nullptr ? *workspace_in : own;
  if (workspace.size() * sizeof(int) < GG::workspace_size(args))
    return ::testing::AssertionFailure() << "workspace too small";
  args.workspace = workspace.data();
  Status const st = GG::run(args);
  if (!st.ok()) return ::testing::AssertionFailure() << "run: " << st.to_string();
  Status const cst = GG::counts_status(args);
  if (counts_status != nullptr) {
    *counts_status = cst;
    for (auto const& v : c)
      if (!is_poison(v)) return ::testing::AssertionFailure() << "a bad count wrote C";
    return ::testing::AssertionSuccess();
  }
  if (!cst.ok()) return ::testing::AssertionFailure() << "counts: " << cst.to_string();
  return p.check(c, amax);
}

template <class Config>
class GroupedOnEmulator : public ::testing::Test {};
TYPED_TEST_SUITE_P(GroupedOnEmulator);

template <class Config>
constexpr int kBm = Config::Policy::kBlockM;
/// N for a config: a multiple of B's scale block for K-blocked scales, else one no tile divides.
template <class Config>
constexpr int kN =
    Config::Granularity::kBlockK > 0 && !std::is_same_v<typename Config::Granularity, Mx32> ? 128
                                                                                            : 72;

TYPED_TEST_P(GroupedOnEmulator, ContiguousGroupsAtTileEdges) {
  constexpr int bm = kBm<TypeParam>;
  GroupedCase c;
  c.mode = GroupMode::kContiguous;
  c.n = kN<TypeParam>, c.k = 256, c.seed = 11;
  c.rows = std::vector<int>{0, 1, 15, 16, 17, bm - 1, bm, bm + 1};
  GroupedProblem<TypeParam> const p(c);
  EXPECT_TRUE(run_grouped_on_host(p)) << describe(p.cs);
}

TYPED_TEST_P(GroupedOnEmulator, MaskedAndBatched) {
  GroupedCase m;
  m.mode = GroupMode::kMasked;
  m.n = kN<TypeParam>, m.k = 384, m.seed = 12;
  m.rows = std::vector<int>{5, 0, 40, 33};
  m.m = 40;  // masked_m 0 and = capacity
  GroupedProblem<TypeParam> const pm(m);
  EXPECT_TRUE(run_grouped_on_host(pm)) << describe(pm.cs);

  GroupedCase b;
  b.mode = GroupMode::kBatched;
  b.n = kN<TypeParam>, b.k = 128, b.seed = 13;
  b.rows = std::vector<int>{70, 70, 70};
  constexpr bool kBlocked = TypeParam::Granularity::kBlockK > 0;
  b.a_pad_rows = kBlocked ? 0 : 2;  // strides beyond the dense ones
  b.b_pad_rows = kBlocked ? 0 : 3;
  GroupedProblem<TypeParam> const pb(b);
  EXPECT_TRUE(run_grouped_on_host(pb)) << describe(pb.cs);
}

/// Split-K (GroupedArguments::split_k): each tile's K in parts, their partial sums added by the
/// reduction kernel, which applies each group's epilogue to its rows only. Uneven splits (K = 640
/// in 3), as many splits as K blocks, an empty group, rows past the last group left poisoned
/// (check), masked rows past masked_m, batched.
TYPED_TEST_P(GroupedOnEmulator, SplitK) {
  constexpr int bm = kBm<TypeParam>;
  constexpr int kBlockK = TypeParam::Policy::kBlockK;
  GroupedCase c;
  c.mode = GroupMode::kContiguous;
  c.n = kN<TypeParam>, c.k = 5 * 128, c.seed = 21;
  c.rows = std::vector<int>{0, 17, bm + 1, 3};
  c.split_k = 3;
  GroupedProblem<TypeParam> const p(c);
  EXPECT_TRUE(run_grouped_on_host(p)) << describe(p.cs);

  GroupedCase m = c;
  m.mode = GroupMode::kMasked;
  m.rows = std::vector<int>{5, 0, 33};
  m.m = 40;
  m.split_k = (m.k + kBlockK - 1) / kBlockK;  // one K block per split
  m.seed = 22;
  GroupedProblem<TypeParam> const pm(m);
  EXPECT_TRUE(run_grouped_on_host(pm)) << describe(pm.cs);

  GroupedCase b = c;
  b.mode = GroupMode::kBatched;
  b.rows = std::vector<int>{30, 30};
  b.split_k = 2;
  b.seed = 23;
  GroupedProblem<TypeParam> const pb(b);
  EXPECT_TRUE(run_grouped_on_host(pb)) << describe(pb.cs);
}

REGISTER_TYPED_TEST_SUITE_P(GroupedOnEmulator, ContiguousGroupsAtTileEdges, MaskedAndBatched,
                            SplitK);

template <class P, class G, class Out, class Act = Identity>
using Nk = GemmConfig<P, G, LayoutB::kNK, Epilogue<Out, Act>>;
using Bw = Blockwise<1, 128, 128>;
// clang-format off
using GroupedConfigs = ::testing::Types<
    Nk<Cdna4Default<e4m3fn, e4m3fn>,  PerTensor,  bf16,   GeluTanh>,
    Nk<Cdna4Default<e4m3fn, e5m2>,    PerChannel, float,  GeluErf>,
    Nk<Cdna4KBlocked<e5m2, e4m3fn>,   Bw,         fp16>,
    Nk<Cdna4Default<e5m2, e5m2>,      Mx32,       e4m3fn>,
    Nk<Cdna3Default<e4m3fnuz, e5m2fnuz>, PerChannel, e4m3fnuz>,
    Nk<Cdna3Default<e5m2fnuz, e5m2fnuz>, Bw,      bf16,   GeluTanh>,
    Nk<Sm90Default<e4m3fn, e4m3fn>,   PerTensor,  e5m2>,
    Nk<Sm90Default<e5m2, e4m3fn>,     Bw,         float>>;
// clang-format on
INSTANTIATE_TYPED_TEST_SUITE_P(Grouped, GroupedOnEmulator, GroupedConfigs, ConfigName);

using Small = Nk<Sm90Default<e4m3fn, e4m3fn>, PerChannel, bf16>;

TEST(GroupedGemmCounts, EveryGroupEmptyWritesNothing) {
  GroupedCase c;
  c.n = 64, c.k = 64, c.rows = std::vector<int>{0, 0, 0}, c.m = 7;
  GroupedProblem<Small> const p(c);
  EXPECT_TRUE(run_grouped_on_host(p));
  c.m = 0;  // no rows at all (an expert-parallel rank without tokens): a no-op, counts checked
  GroupedProblem<Small> const none(c);
  EXPECT_TRUE(run_grouped_on_host(none));
  c.mode = GroupMode::kMasked;
  GroupedProblem<Small> const masked_none(c);
  EXPECT_TRUE(run_grouped_on_host(masked_none));
}

TEST(GroupedGemmCounts, EdgesOfTheLayouts) {
  GroupedCase c;  // one group; then groups ending exactly at the rows of A and C
  c.n = 72, c.k = 128, c.seed = 24, c.rows = std::vector<int>{77};
  for (GroupMode mode : {GroupMode::kContiguous, GroupMode::kMasked, GroupMode::kBatched}) {
    c.mode = mode;
    GroupedProblem<Small> const p(c);
    EXPECT_TRUE(run_grouped_on_host(p)) << describe(p.cs);
  }
  GroupedCase e;
  e.n = 72, e.k = 128, e.seed = 25, e.rows = std::vector<int>{30, 0, 41}, e.m = 71;
  GroupedProblem<Small> const pe(e);
  EXPECT_TRUE(run_grouped_on_host(pe)) << describe(pe.cs);
  // groups of C further apart than their rows: whole rows, then not whole rows (an odd element
  // offset: pair stores off for those groups), with pair-aligned ldc
  for (int elems : {0, 1}) {
    GroupedCase m;
    m.mode = GroupMode::kMasked;
    m.n = 72, m.k = 128, m.seed = 26 + elems, m.m = 40, m.ldc_pad = 0;
    m.c_pad_rows = 3, m.c_pad_elems = elems, m.rows = std::vector<int>{40, 7, 0, 19};
    GroupedProblem<Small> const pm(m);
    EXPECT_TRUE(run_grouped_on_host(pm)) << describe(pm.cs);
  }
}

TEST(GroupedGemmCounts, MoreGroupsThanThreadsOfTheCountsKernel) {
  GroupedCase c;  // 300 groups: the counts kernel's 256 threads take two groups each
  c.n = 64, c.k = 64, c.seed = 21;
  for (int g = 0; g < 300; ++g) c.rows.push_back((g * 7) % 5);  // 0 .. 4 rows
  GroupedProblem<Small> const p(c);
  EXPECT_TRUE(run_grouped_on_host(p)) << describe(p.cs);
}

TEST(GroupedGemmCounts, WorkspaceReusedWithOtherCounts) {
  GroupedCase c;
  c.n = 64, c.k = 128, c.seed = 22, c.rows = std::vector<int>{30, 2, 60, 9};
  GroupedProblem<Small> const p(c);
  std::vector<int> workspace(64, -7);  // one workspace for both runs: its prefix is rewritten
  ASSERT_TRUE(run_grouped_on_host(p, nullptr, nullptr, &workspace));
  GroupedCase d = c;  // other group sizes, the same number of groups
  d.rows = std::vector<int>{1, 60, 0, 40};
  GroupedProblem<Small> const q(d);
  EXPECT_TRUE(run_grouped_on_host(q, nullptr, nullptr, &workspace));
}

TEST(GroupedGemmCounts, BadCountsRefusedOnTheDeviceInWords) {
  GroupedCase c;
  c.n = 64, c.k = 64, c.seed = 23, c.rows = std::vector<int>{10, 20, 30};
  GroupedProblem<Small> const p(c);  // offs {10, 30, 60}, m = 65
  struct Bad {
    std::vector<int> counts;
    std::string words;
  };
  for (Bad const& bad : {Bad{{10, 5, 60}, "offs[1] = 5 is below group 1's first row 10"},
                         Bad{{-1, 30, 60}, "offs[0] = -1 is below group 0's first row 0"},
                         Bad{{10, 30, 66}, "offs[2] = 66 is past the rows of A and C"}}) {
    Status st;
    ASSERT_TRUE(run_grouped_on_host(p, &bad.counts, &st));
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find(bad.words), std::string::npos) << st.message();
  }
  GroupedCase m = c;
  m.mode = GroupMode::kMasked;
  m.m = 30;
  GroupedProblem<Small> const pm(m);
  for (Bad const& bad : {Bad{{10, 31, 3}, "masked_m[1] = 31 is past the capacity"},
                         Bad{{10, 20, -2}, "masked_m[2] = -2 is negative"}}) {
    Status st;
    ASSERT_TRUE(run_grouped_on_host(pm, &bad.counts, &st));
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find(bad.words), std::string::npos) << st.message();
  }
}

/// A bad count with split-K: the reduction writes nothing either.
TEST(GroupedGemmCounts, BadCountsWithSplitKWriteNothing) {
  GroupedCase c;
  c.n = 64, c.k = 512, c.seed = 31, c.rows = std::vector<int>{10, 20, 30};
  c.split_k = 3;
  GroupedProblem<Small> const p(c);  // offs {10, 30, 60}, m = 65
  std::vector<int> const bad{10, 5, 60};
  Status st;
  ASSERT_TRUE(run_grouped_on_host(p, &bad, &st));
  EXPECT_NE(st.message().find("offs[1] = 5 is below group 1's first row 10"), std::string::npos)
      << st.message();
  GroupedCase m = c;
  m.mode = GroupMode::kMasked;
  m.m = 30;
  GroupedProblem<Small> const pm(m);
  std::vector<int> const bad_m{10, 31, 3};
  ASSERT_TRUE(run_grouped_on_host(pm, &bad_m, &st));
  EXPECT_NE(st.message().find("masked_m[1] = 31 is past the capacity"), std::string::npos)
      << st.message();
}

TEST(GroupedGemmCanImplement, RefusalsInWords) {
  GroupedCase c;
  c.n = 128, c.k = 128, c.rows = std::vector<int>{3, 4};
  GroupedProblem<Small> const p(c);
  std::vector<int> ws(16);
  auto ok = p.arguments(p.a.data(), p.b.data(), p.sa.data(), p.sb.data(), p.bias.data(),
                        p.offs.data(), nullptr, nullptr, ws.data());
  std::vector<bf16> cbuf(p.c_size());
  ok.epilogue.c = cbuf.data();
  ASSERT_TRUE(GroupedGemm<Small>::can_implement(ok).ok())
      << GroupedGemm<Small>::can_implement(ok).to_string();
  auto expect = [](auto args, std::string const& words) {
    Status const st = GroupedGemm<Small>::can_implement(args);
    EXPECT_FALSE(st.ok()) << words;
    EXPECT_NE(st.message().find(words), std::string::npos) << st.message();
  };
  auto a = ok;
  a.offs = nullptr;
  expect(a, "contiguous groups need offs");
  a = ok;
  a.problem.l = 0;
  expect(a, "number of groups and must be >= 1");
  a = ok;
  a.stride_b = ok.stride_b + 1;
  expect(a, "stride_b (");
  a = ok;
  a.scale_b_count -= 1;
  expect(a, "per_channel scale_b: expected");
  a = ok;
  a.workspace = nullptr;
  expect(a, "need a workspace");
  a = ok;
  a.masked_m = p.offs.data();
  expect(a, "masked_m is for masked groups");
  a = ok;
  a.sm_count = 4;
  expect(a, "sm_count applies to the persistent WGMMA kernel");
  a = ok;
  a.stride_a = 4096;
  expect(a, "stride_a and stride_c are for masked and batched groups");
  a = ok;
  a.mode = GroupMode::kBatched, a.offs = nullptr;
  a.stride_b = std::int64_t(1) << 40;  // 2^40 / ldb rows between groups: past int
  expect(a, "must stay below 2^31 - 1");
  a = ok;
  a.split_k = 0;
  expect(a, "split_k must be >= 1");
  a = ok;
  a.split_k = 1 + (c.k + Small::Policy::kBlockK - 1) / Small::Policy::kBlockK;
  expect(a, "split_k must be in [1, ceil(K / BlockK)");
  a = ok;
  a.split_k = 2;  // K = 128: two splits where the block is 64 deep, else refused above
  if (Small::Policy::kBlockK <= 64) {
    a.workspace = nullptr;
    expect(a, "with split_k > 1 need a workspace of workspace_size(args)");
  }

  using Tall = Nk<Sm90Default<e4m3fn, e4m3fn>, Blockwise<128, 128, 128>, bf16>;
  GroupedProblem<Tall> const t([] {
    GroupedCase x;
    x.mode = GroupMode::kMasked;
    x.n = 128, x.k = 128, x.rows = std::vector<int>{3, 4}, x.m = 128;
    return x;
  }());
  auto targs = t.arguments(t.a.data(), t.b.data(), t.sa.data(), t.sb.data(), t.bias.data(),
                           t.masked_m.data(), nullptr, nullptr, ws.data());
  std::vector<bf16> tc(t.c_size());
  targs.epilogue.c = tc.data();
  EXPECT_TRUE(GroupedGemm<Tall>::can_implement(targs).ok())
      << GroupedGemm<Tall>::can_implement(targs).to_string();
  targs.mode = GroupMode::kContiguous;
  targs.masked_m = nullptr;
  targs.stride_a = targs.stride_c = 0;
  targs.offs = t.offs.data();
  Status const st = GroupedGemm<Tall>::can_implement(targs);
  EXPECT_NE(st.message().find("A's scale blocks must be one row tall"), std::string::npos)
      << st.message();
}

/// AutoGroupedGemm's CDNA choices (the policy for the granularity: tier default, unmeasured) run
/// on the emulator against FP64; the arguments are GroupedGemm's, field for field.
template <class Auto>
void expect_auto_grouped_matches_fp64(GroupedCase const& c) {
  Choice probe_choice;
  typename Auto::Arguments probe;
  probe.mode = c.mode;
  probe.problem = {c.m, c.n, c.k, int(c.rows.size())};
  probe_choice = Auto::select(probe);
  ASSERT_GE(probe_choice.index, 0) << probe_choice.reason;
  EXPECT_EQ(probe_choice.tier, Tier::kDefault);
  std::cout << "  " << Auto::explain(probe) << "\n";
  Auto::visit(probe_choice.index, [&](auto tag) {
    using Config = typename decltype(tag)::type;
    GroupedProblem<Config> const p(c);
    std::vector<typename Config::ElementC> out(p.c_size());
    poison_host(out);
    float amax = -1.0f;
    std::vector<int> counts = p.counts(), workspace(p.groups + 8);
    typename Auto::Arguments args;
    static_cast<typename GroupedGemm<Config>::Arguments&>(args) =
        p.arguments(p.a.data(), p.b.data(), p.sa.data(), p.sb.data(), p.bias.data(), counts.data(),
                    out.data(), &amax, workspace.data());
    EXPECT_EQ(Auto::select(args).index, probe_choice.index);
    Status const st = Auto::run(args);
    ASSERT_TRUE(st.ok()) << st.to_string();
    EXPECT_TRUE(Auto::counts_status(args).ok());
    EXPECT_TRUE(p.check(out, amax)) << describe(p.cs);
  });
}

TEST(AutoGroupedGemm, CdnaChoicesRunOnTheEmulator) {
  GroupedCase c;
  c.n = 128, c.k = 256, c.seed = 71, c.rows = std::vector<int>{3, 0, 130, 40}, c.m = 180;
  expect_auto_grouped_matches_fp64<
      AutoGroupedGemm<selection::Cdna4Target, e4m3fn, e4m3fn, PerChannel, Epilogue<bf16>>>(c);
  expect_auto_grouped_matches_fp64<AutoGroupedGemm<selection::Cdna4Target, e4m3fn, e5m2,
                                                   Blockwise<1, 128, 128>, Epilogue<fp16>>>(c);
  c.mode = GroupMode::kMasked, c.m = 130;
  expect_auto_grouped_matches_fp64<AutoGroupedGemm<selection::Cdna3Target, e4m3fnuz, e4m3fnuz,
                                                   PerTensor, Epilogue<bf16, GeluTanh>>>(c);
}

/// Every sm90 grouped candidate's kernel, for each output type and the granularities that take
/// it, fits the shared memory a block may use: instantiating the kernel class runs its
/// static_assert (the epilogue's choices — TMA stores, staged scales — are made without the
/// kernel, so a config that passes them and then overflows fails to compile here, not in a
/// user's build). Host-compiled: the layout is the same in the device pass.
template <class Granularity, class Out>
struct GroupedKernelsFit {
  using Auto = AutoGroupedGemm<selection::Sm90Target, e4m3fn, e4m3fn, Granularity, Epilogue<Out>>;
  template <std::size_t... Is>
  static constexpr int max_bytes(std::index_sequence<Is...>) {
    int m = 0;
    ((m = std::max(m, GroupedKernelPieces<
                          typename Auto::template CandidateConfig<int(Is)>>::Kernel::kSharedBytes)),
     ...);
    return m;
  }
  static constexpr int kBytes = max_bytes(std::make_index_sequence<Auto::kCandidates>{});
};
template <class G>
constexpr bool every_output_fits() {
  return GroupedKernelsFit<G, bf16>::kBytes <= arch::Sm90a::kLdsBytes &&
         GroupedKernelsFit<G, fp16>::kBytes <= arch::Sm90a::kLdsBytes &&
         GroupedKernelsFit<G, float>::kBytes <= arch::Sm90a::kLdsBytes &&
         GroupedKernelsFit<G, e4m3fn>::kBytes <= arch::Sm90a::kLdsBytes;
}
static_assert(every_output_fits<PerTensor>() && every_output_fits<PerChannel>() &&
              every_output_fits<Blockwise<1, 128, 128>>());
// and the measured case keeps its staged scales (docs/grouped.md): 128 x 256, per-channel, bf16
static_assert(GemmConfig<Sm90WgmmaLarge<e4m3fn, e4m3fn>, PerChannel, LayoutB::kNK,
                         Epilogue<bf16>>::CollectiveEpilogue::kStagesScales);

/// The sm90 rule as measured (docs/grouped.md): the swapped decode tiles up to 16 and 64 expected
/// rows (64 x 64 for Blockwise, which has none), 128 x 256 above (per-tensor up to K = 1024:
/// 128 x 128); a forced name
/// wins, an unknown one is refused in words; expected_m derived per mode when not given.
TEST(AutoGroupedGemm, Sm90RuleAndOverrides) {
  using A = AutoGroupedGemm<selection::Sm90Target, e4m3fn, e4m3fn, PerChannel, Epilogue<bf16>>;
  using B = AutoGroupedGemm<selection::Sm90Target, e4m3fn, e4m3fn, Blockwise<1, 128, 128>,
                            Epilogue<bf16>>;
  A::Arguments a;
  a.mode = GroupMode::kContiguous;
  a.problem = {515, 4096, 7168, 256};  // about 2 rows per expert
  auto pick = [](auto const& args, auto tag) {
    using Auto = typename decltype(tag)::type;
    return Auto::candidate_short_name(Auto::select(args).index);
  };
  EXPECT_EQ(A::expected_rows(a), 3);
  EXPECT_EQ(pick(a, A::TypeTag<A>{}), "sm90_wgmma_decode16");
  EXPECT_EQ(A::select(a).tier, Tier::kTable);
  a.expected_m = 16;
  EXPECT_EQ(pick(a, A::TypeTag<A>{}), "sm90_wgmma_decode16");
  a.expected_m = 17;
  EXPECT_EQ(pick(a, A::TypeTag<A>{}), "sm90_wgmma_decode64");
  a.expected_m = 64;
  EXPECT_EQ(pick(a, A::TypeTag<A>{}), "sm90_wgmma_decode64");
  a.expected_m = 65;
  EXPECT_EQ(pick(a, A::TypeTag<A>{}), "sm90_wgmma_large");
  a.expected_m = 0, a.mode = GroupMode::kMasked, a.problem.m = 1024;  // the capacity
  EXPECT_EQ(A::expected_rows(a), 1024);
  EXPECT_EQ(pick(a, A::TypeTag<A>{}), "sm90_wgmma_large");
  a.force_policy = "sm90_wgmma_decode64";
  EXPECT_EQ(pick(a, A::TypeTag<A>{}), "sm90_wgmma_decode64");
  EXPECT_EQ(A::select(a).tier, Tier::kForced);
  a.force_policy = "sm90_wgmma_default";  // 128 x 128: the rows rule's per-tensor only, a
  EXPECT_EQ(pick(a, A::TypeTag<A>{}), "sm90_wgmma_default");  // forced name takes it for any
  a.force_policy = "sm90_wgmma_decode8";
  EXPECT_LT(A::select(a).index, 0);
  Status const st = A::can_implement(a);
  EXPECT_NE(st.message().find("names no grouped candidate of sm90"), std::string::npos)
      << st.message();
  B::Arguments b;
  b.problem = {515, 4096, 7168, 256};
  EXPECT_EQ(pick(b, B::TypeTag<B>{}), "sm90_wgmma_small_m");
  b.expected_m = 256;  // Blockwise: 128 x 256 from 65 rows (measured ahead of 128 x 128)
  EXPECT_EQ(pick(b, B::TypeTag<B>{}), "sm90_wgmma_large");
  // per-tensor at K <= 1024: 128 x 128 (measured 3-6 % ahead at K = 512); per-channel there and
  // per-tensor above: 128 x 256
  using T = AutoGroupedGemm<selection::Sm90Target, e4m3fn, e4m3fn, PerTensor, Epilogue<bf16>>;
  T::Arguments t;
  t.mode = GroupMode::kBatched;
  t.problem = {128, 7168, 512, 64};
  EXPECT_EQ(pick(t, T::TypeTag<T>{}), "sm90_wgmma_default");
  EXPECT_NE(T::explain(t).find("K 512 <= 1024"), std::string::npos) << T::explain(t);
  t.problem.k = 1024;
  EXPECT_EQ(pick(t, T::TypeTag<T>{}), "sm90_wgmma_default");
  t.problem.k = 1025;
  EXPECT_EQ(pick(t, T::TypeTag<T>{}), "sm90_wgmma_large");
  t.problem = {128, 7168, 512, 64}, t.expected_m = 32;  // decode rows: the swapped tile first
  EXPECT_EQ(pick(t, T::TypeTag<T>{}), "sm90_wgmma_decode64");
  a.force_policy = nullptr, a.mode = GroupMode::kBatched, a.expected_m = 0;
  a.problem = {128, 7168, 512, 64};
  EXPECT_EQ(pick(a, A::TypeTag<A>{}), "sm90_wgmma_large");  // per-channel at K = 512

  // few tiles: 2 groups of 128 expected rows, N 1024 on 132 SMs: 2 x 1 x 4 tiles of 128 x 256,
  // at most half the SMs, so 128 x 128 (2 x 1 x 8 tiles expected, at most 3 x 8 if the 256 rows
  // fall unevenly), whole: no automatic split there
  A::Arguments f;
  f.mode = GroupMode::kContiguous;
  f.problem = {256, 1024, 7168, 2};
  f.sm_count = 132;
  EXPECT_EQ(pick(f, A::TypeTag<A>{}), "sm90_wgmma_default");
  EXPECT_NE(A::explain(f).find("few tiles: 8 expected tiles of 128 x 256 (sm90_wgmma_large) fill "
                               "at most half of 132 SMs, so sm90_wgmma_default (128 x 128, at "
                               "most 24 tiles: one wave)"),
            std::string::npos)
      << A::explain(f);
  f.max_split_k = 8;
  EXPECT_EQ(A::select(f).split_k, 1) << A::explain(f);
  f.split_k = 3;  // the caller's split is taken as given, on the narrowed tile too
  EXPECT_EQ(A::select(f).split_k, 3);
  EXPECT_EQ(pick(f, A::TypeTag<A>{}), "sm90_wgmma_default");
  f.split_k = 1, f.max_split_k = 1;
  f.sm_count = 15;  // 8 tiles of 128 x 256 > 15 / 2: the rows rule's pick
  EXPECT_EQ(pick(f, A::TypeTag<A>{}), "sm90_wgmma_large");
  f.sm_count = 132;

  // split-K for few tiles (modelled), on 128 x 256 named (a forced name is not narrowed): 2 x 1 x
  // 4 tiles; K 7168 = 56 blocks: S = min(132 / 8, 56 / 4, 8) = 8
  f.force_policy = "sm90_wgmma_large";
  EXPECT_EQ(pick(f, A::TypeTag<A>{}), "sm90_wgmma_large");
  EXPECT_EQ(A::select(f).split_k, 1);  // opt-in (max_split_k = 1 by default)
  f.max_split_k = 8;
  EXPECT_EQ(A::select(f).split_k, 8);
  EXPECT_NE(A::explain(f).find("split_k 8 [forced]"), std::string::npos) << A::explain(f);
  EXPECT_NE(A::explain(f).find("split-K 8: 8 expected tiles on 132 SMs"), std::string::npos);
  A::Arguments eight = f;
  eight.split_k = 8;
  EXPECT_EQ(A::workspace_size(f), A::Base::workspace_size(eight));
  EXPECT_GT(A::workspace_size(f), std::size_t(8) * 256 * 1024 * sizeof(float));
  f.sm_count = 40;  // 40 / 8 = 5 splits
  EXPECT_EQ(A::select(f).split_k, 5);
  f.sm_count = 132;
  f.problem.l = 0;  // no groups, no tiles: no split (and no division by their count)
  EXPECT_EQ(A::select(f).split_k, 1);
  f.problem.l = 2;
  f.problem.k = 896;  // 7 K blocks: whole tiles
  EXPECT_EQ(A::select(f).split_k, 1);
  f.problem.k = 7168, f.problem.n = 16384;  // 2 x 64 = 128 tiles: more than half the SMs
  EXPECT_EQ(A::select(f).split_k, 1);
  f.problem.n = 1024;
  f.max_split_k = 1;  // whole tiles
  EXPECT_EQ(A::select(f).split_k, 1);
  EXPECT_EQ(A::workspace_size(f), A::Base::workspace_size(f));
  f.max_split_k = 3;
  EXPECT_EQ(A::select(f).split_k, 3);
  f.max_split_k = 8;
  f.split_k = 3;  // the caller's
  EXPECT_EQ(A::select(f).split_k, 3);
  EXPECT_NE(A::explain(f).find("split_k 3 (Arguments::split_k)"), std::string::npos);
  f.split_k = 0;  // the caller's (GroupedGemm refuses it in words: RefusalsInWords)
  EXPECT_EQ(A::select(f).split_k, 0);
  f.split_k = 1;
  // batched: split only where a workspace is planned (a call without one needs none)
  f.mode = GroupMode::kBatched, f.problem = {128, 1024, 7168, 2};
  EXPECT_EQ(A::select(f).split_k, 1);
  EXPECT_EQ(A::workspace_size(f), 0u);
  int marker = 0;
  f.workspace = &marker;
  EXPECT_EQ(A::select(f).split_k, 8);
  // masked: the partial sums cover the whole capacity; capped at 64 MiB of them (4 x 4096 rows x
  // N 1024: 64 MiB per split, none)
  f.mode = GroupMode::kMasked, f.problem = {4096, 1024, 7168, 4}, f.expected_m = 64;
  f.lda = f.ldb = 7168;
  EXPECT_EQ(A::select(f).split_k, 1);
  f.problem.m = 1024;  // 16 MiB per split: as many as the rule asks (<= 4)
  EXPECT_GE(A::select(f).split_k, 2);
  EXPECT_LE(A::select(f).split_k, 4);
}

/// The few-tiles rule (docs/grouped.md#few-tiles): 128 x 128 where the rows rule's 128 x 256
/// tiles fill at most half the SMs, for every granularity; the boundary at exactly half; not for
/// a forced name, and not where the pick is not 128 rows tall.
TEST(AutoGroupedGemm, Sm90FewTiles) {
  using C = AutoGroupedGemm<selection::Sm90Target, e4m3fn, e4m3fn, PerChannel, Epilogue<bf16>>;
  using B = AutoGroupedGemm<selection::Sm90Target, e4m3fn, e4m3fn, Blockwise<1, 128, 128>,
                            Epilogue<bf16>>;
  using T = AutoGroupedGemm<selection::Sm90Target, e4m3fn, e4m3fn, PerTensor, Epilogue<fp16>>;
  auto pick = [](auto const& args, auto tag) {
    using Auto = typename decltype(tag)::type;
    return Auto::candidate_short_name(Auto::select(args).index);
  };
  // the measured case: 2 experts of about 115 rows, N 2048, K 7168: 2 x 1 x 8 = 16 tiles of
  // 128 x 256 on 132 SMs; at most 3 x 16 = 48 of 128 x 128 (the rows round up per group)
  C::Arguments c;
  c.mode = GroupMode::kContiguous;
  c.problem = {230, 2048, 7168, 2};
  c.sm_count = 132;
  EXPECT_EQ(pick(c, C::TypeTag<C>{}), "sm90_wgmma_default") << C::explain(c);
  EXPECT_EQ(C::select(c).tier, Tier::kTable);
  // the second measured case, where 128 x 256 won: 2 experts of 194 + 266 rows, N 4096: 64
  // expected tiles of 128 x 256 (half the SMs), but up to 5 x 32 = 160 of 128 x 128: two waves
  c.problem = {460, 4096, 7168, 2};
  EXPECT_EQ(pick(c, C::TypeTag<C>{}), "sm90_wgmma_large") << C::explain(c);
  // the one-wave boundary of the narrower tile: N 13 x 256 (5 x 26 = 130 tiles): narrowed;
  // 14 x 256 (5 x 28 = 140): not
  c.problem.n = 13 * 256;
  EXPECT_EQ(pick(c, C::TypeTag<C>{}), "sm90_wgmma_default") << C::explain(c);
  c.problem.n = 14 * 256;
  EXPECT_EQ(pick(c, C::TypeTag<C>{}), "sm90_wgmma_large") << C::explain(c);
  // the half-SMs boundary, one group of 128 rows (no rounding between groups): 66 tiles = half
  // of 132 at N 66 x 256 (132 of 128 x 128: one wave): still few; 67: not
  c.problem = {128, 66 * 256, 7168, 1};
  EXPECT_EQ(pick(c, C::TypeTag<C>{}), "sm90_wgmma_default") << C::explain(c);
  c.problem.n = 67 * 256;
  EXPECT_EQ(pick(c, C::TypeTag<C>{}), "sm90_wgmma_large") << C::explain(c);
  c.problem = {230, 2048, 7168, 2};
  c.force_policy = "sm90_wgmma_large";  // a forced name is taken as given
  EXPECT_EQ(pick(c, C::TypeTag<C>{}), "sm90_wgmma_large");
  c.force_policy = nullptr;
  c.expected_m = 40;  // the swapped decode tile (40 columns of M): never narrowed
  EXPECT_EQ(pick(c, C::TypeTag<C>{}), "sm90_wgmma_decode64");
  // Blockwise and per-tensor (above K = 1024) alike; masked: the expected rows decide
  B::Arguments b;
  b.mode = GroupMode::kMasked;
  b.problem = {1024, 2048, 7168, 4};
  b.expected_m = 135;  // the measured case: 4 x 2 x 8 = 64 tiles of 128 x 256, <= 8 x 16 = 128
  b.sm_count = 132;
  EXPECT_EQ(pick(b, B::TypeTag<B>{}), "sm90_wgmma_default") << B::explain(b);
  b.expected_m = 200;  // 64 tiles of 128 x 256, but up to 10 x 16 = 160 of 128 x 128
  EXPECT_EQ(pick(b, B::TypeTag<B>{}), "sm90_wgmma_large") << B::explain(b);
  b.expected_m = 300;  // 4 x 3 x 8 = 96
  EXPECT_EQ(pick(b, B::TypeTag<B>{}), "sm90_wgmma_large") << B::explain(b);
  // masked without a hint: every group may hold its capacity, no more: capacity 100, N 4096:
  // 4 x 1 x 16 = 64 tiles of 128 x 256, at most 4 x 1 x 32 = 128 of 128 x 128 (the uneven-groups
  // bound alone would count floor(4 x 227 / 128) x 32 = 224)
  b.problem = {100, 4096, 7168, 4};
  b.expected_m = 0;
  EXPECT_EQ(pick(b, B::TypeTag<B>{}), "sm90_wgmma_default") << B::explain(b);
  T::Arguments t;
  t.mode = GroupMode::kBatched;
  t.problem = {256, 1024, 4096, 8};  // 8 x 2 x 4 = 64 tiles; batched: exactly 128 of 128 x 128
  t.sm_count = 132;
  EXPECT_EQ(pick(t, T::TypeTag<T>{}), "sm90_wgmma_default") << T::explain(t);
  t.problem.l = 9;  // 72
  EXPECT_EQ(pick(t, T::TypeTag<T>{}), "sm90_wgmma_large") << T::explain(t);
  // batched: the groups' rows are M, whatever the hint says: a hint of 256 at M = 300 counts 8 x
  // 2 x 4 = 64 tiles of 128 x 256 (few) and 128 of 128 x 128, but the groups make 8 x 3 x 8 = 192
  t.problem = {300, 1024, 4096, 8};
  t.expected_m = 256;
  EXPECT_EQ(pick(t, T::TypeTag<T>{}), "sm90_wgmma_large") << T::explain(t);
  // a huge hint: the tile count saturates, never wraps into "few"
  c.expected_m = INT32_MAX, c.problem = {INT32_MAX, INT32_MAX, 7168, INT32_MAX};
  EXPECT_EQ(pick(c, C::TypeTag<C>{}), "sm90_wgmma_large") << C::explain(c);
}

}  // namespace
}  // namespace fp8gemm::test
