// SPDX-License-Identifier: MIT
// LDS bank conflicts of the default policies, measured by the emulator's bank model
// (arch/emu/lds_bank_model.hpp) while one 256 x 256 x 256 GEMM runs: one table per policy and B
// layout (extra cycles = sum over phases of conflict degree - 1), and zero extra cycles asserted
// for every fragment read and tile store. Sm90Default (32 banks, 32-lane warps) is measured too.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "common/gemm_host_run.hpp"

namespace fp8gemm::test {
namespace {

template <class Config>
class LdsBankConflicts : public ::testing::Test {};

template <class Policy, LayoutB kLayout>
using Measured = GemmConfig<Policy, PerTensor, kLayout, Epilogue<float, Identity>>;
/// gfx942 mk_nk_mn with 4-byte direct-to-LDS loads in place of the default's register staging.
using Cdna3DirectToLds =
    WithMainloop<Measured<Cdna3Default<e4m3fnuz, e4m3fnuz>, LayoutB::kNK>,
                 BufferLdsPingPongMainloop<Cdna3Default<e4m3fnuz, e4m3fnuz>, PerTensor,
                                           LayoutB::kNK, 0, 0, arch::DirectToLds>>;

using Configs =
    ::testing::Types<Measured<Cdna4Default<e4m3fn, e4m3fn>, LayoutB::kNK>,
                     Measured<Cdna4Default<e4m3fn, e4m3fn>, LayoutB::kKN>,
                     Measured<Cdna3Default<e4m3fnuz, e4m3fnuz>, LayoutB::kNK>, Cdna3DirectToLds,
                     Measured<Cdna3Default<e4m3fnuz, e4m3fnuz>, LayoutB::kKN>,
                     Measured<Sm90Default<>, LayoutB::kNK>, Measured<Sm90Default<>, LayoutB::kKN>>;
/// Gemm::name(), with the gfx942 direct-to-LDS variant told apart from the default.
struct MeasuredName {
  template <class Config>
  static std::string GetName(int) {
    return Gemm<Config>::name() +
           (std::is_same_v<Config, Cdna3DirectToLds> ? "_direct_to_lds" : "");
  }
};
TYPED_TEST_SUITE(LdsBankConflicts, Configs, MeasuredName);

/// The instruction behind a site: ds_read_b128 / ds_write_b64 (AMD), ld.shared.b32 (NVIDIA).
std::string instruction_name(bool amd, bool read, int width_bytes, bool direct_to_lds = false) {
  std::string const bits = std::to_string(8 * width_bytes);
  if (amd && !read && direct_to_lds)
    return width_bytes == 16 ? "buffer_load_dwordx4 ... lds" : "buffer_load_dword ... lds";
  if (amd) return (read ? "ds_read_b" : "ds_write_b") + bits;
  return (read ? "ld.shared.b" : "st.shared.b") + bits;
}

constexpr int kM = 256, kN = 256, kK = 256;

// The row pairing derived in global_to_lds.hpp's NOTE (the table below measures it).
template <class Policy>
using MainloopOf = typename Measured<Policy, LayoutB::kNK>::Mainloop;
// mk_nk_mn runs the buffer-load mainloop: XOR-swizzled rows, whole wave writes of 1 KiB (gfx950:
// direct-to-LDS, 128-byte rows; gfx942: through registers, 64-byte rows; its direct-to-LDS
// variant writes 256 B per load).
static_assert(std::is_same_v<MainloopOf<Cdna4Default<>>::LdsLayoutA, XorSwizzledLayout<256>>);
static_assert(
    std::is_same_v<MainloopOf<Cdna3Default<>>::LdsLayoutA, XorSwizzledLayout<128, 128, 128, 64>>);
// gfx942 mk_kn_mn stages through registers into padded rows.
static_assert(Measured<Cdna3Default<>, LayoutB::kKN>::Mainloop::CopyA::kDelta == 8);

/// Whether Mainloop is the buffer-load one (BufferLdsPingPongMainloop: kLoadsPerTile).
template <class Mainloop, class = void>
constexpr bool kIsBufferLds = false;
template <class Mainloop>
constexpr bool kIsBufferLds<Mainloop, std::void_t<decltype(Mainloop::kLoadsPerTile)>> = true;
template <class Mainloop>
constexpr bool direct_to_lds() {
  if constexpr (kIsBufferLds<Mainloop>) {
    return !Mainloop::kStaged;
  } else {
    return false;
  }
}
static_assert(MainloopOf<Sm90Default<>>::CopyA::Order::kDelta == 4);

/// Bytes one lane's tile store writes: the buffer-load mainloop's load width (16; 4 with gfx942's
/// direct-to-LDS loads), the row copy's store width else.
template <class Mainloop, class Arch>
constexpr int tile_store_bytes() {
  if constexpr (kIsBufferLds<Mainloop>) {
    return Mainloop::kLoadBytes;
  } else {
    return RowMajorTileCopy<typename Mainloop::LdsLayoutA, Mainloop::kCopyThreads,
                            Arch::kLdsBanks>::kStoreBytes;
  }
}

TYPED_TEST(LdsBankConflicts, DefaultPolicyIsConflictFree) {
  using Policy = typename TypeParam::Policy;
  using Arch = typename Policy::Arch;
  using Mainloop = typename TypeParam::Mainloop;
  using Storage = typename Mainloop::SharedStorage;
  GemmProblem<TypeParam> const p(GemmCase{kM, kN, kK, /*seed=*/31});
  std::vector<emu::LdsSiteStats> sites;
  {
    // The mainloop's LDS regions: A stages, then B stages (SharedStorage's members).
    auto const a_end = static_cast<std::uint32_t>(sizeof(Storage::a));
    emu::LdsRecordingScope recording(
        {{"A", 0, a_end}, {"B", a_end, static_cast<std::uint32_t>(sizeof(Storage))}});
    ASSERT_TRUE(run_on_host(p));
    sites = emu::LdsBankRecorder::instance().snapshot();
  }

  // Bytes each site must have moved (the shape is whole tiles): every tile is stored once, and
  // each wave reads its rows of A (B) for every K-step, so A is read kWavesN times, B kWavesM.
  constexpr std::uint64_t kTiles = (kM / Policy::kBlockM) * (kN / Policy::kBlockN);
  constexpr std::uint64_t kKTiles = kK / Policy::kBlockK;
  constexpr std::uint64_t kABytes = kTiles * kKTiles * Policy::kBlockM * Policy::kBlockK;
  constexpr std::uint64_t kBBytes = kTiles * kKTiles * Policy::kBlockN * Policy::kBlockK;
  // Access widths: fragment chunks of the atom; row-major tile stores 16 or 8 bytes; the mk_kn_mn
  // B copy stores 4-byte words.
  using Atom = typename Policy::Atom;
  // Direct-to-LDS loads write 16 (gfx950) or 4 (gfx942) bytes per lane; that mainloop reads a
  // lane's tile bytes of a row with ds_read_b128 (on gfx942 one read feeds two 8-byte MFMAs).
  constexpr int kAStoreBytes = tile_store_bytes<Mainloop, Arch>();
  constexpr int kBStoreBytes = TypeParam::kLayoutB == LayoutB::kNK ? kAStoreBytes : 4;
  constexpr bool kBufferLds = kIsBufferLds<Mainloop>;
  constexpr bool kDirect = direct_to_lds<Mainloop>();
  constexpr int kAReadBytes = kBufferLds ? 16 : Atom::kAChunkBytes;
  constexpr int kBReadBytes = kBufferLds ? 16 : Atom::kBChunkBytes;
  struct Expected {
    char const* site;   // the recorder's: region and direction
    char const* label;  // the table's
    std::uint64_t bytes;
    int width;
  };
  std::uint64_t a_written = kABytes, b_written = kBBytes, b_read = kBBytes * Policy::kWavesM;
  if constexpr (kBufferLds) {
    // Tiles past the end are reloads (Mainloop::loaded_bytes_a), and the last tile's last
    // cluster reads the next tile's first B cluster ahead (one of kClusters, never multiplied).
    a_written = kTiles * static_cast<std::uint64_t>(Mainloop::loaded_bytes_a(kKTiles));
    b_written = kTiles * static_cast<std::uint64_t>(Mainloop::loaded_bytes_b(kKTiles));
    b_read += kTiles * Policy::kWavesM * Policy::kBlockN * Policy::kBlockK / Mainloop::kClusters;
  }
  Expected const expected[] = {
      {"A read", "A fragment read", kABytes * Policy::kWavesN, kAReadBytes},
      {"A write", kDirect ? "A tile load (direct to LDS)" : "A tile store", a_written,
       kAStoreBytes},
      {"B read", "B fragment read", b_read, kBReadBytes},
      {"B write", kDirect ? "B tile load (direct to LDS)" : "B tile store", b_written,
       kBStoreBytes}};
  ASSERT_EQ(sites.size(), std::size(expected)) << emu::LdsBankRecorder::instance().report();

  std::string table = "### " + MeasuredName::GetName<TypeParam>(0) + " (" + Arch::kName + ", " +
                      std::to_string(Arch::kLdsBanks) + " banks, LDS row " +
                      std::to_string(Mainloop::LdsLayoutA::kPitch) + " B" +
                      (kBufferLds ? ", XOR-swizzled" : "") + ")\n\n" +
                      "| site | instruction | instructions | bytes | extra cycles | extra/instr "
                      "| max degree |\n|---|---|--:|--:|--:|--:|--:|\n";
  bool const amd = Arch::kWaveSize == 64;
  for (std::size_t i = 0; i < sites.size(); ++i) {
    emu::LdsSiteStats const& s = sites[i];
    EXPECT_EQ(s.site, expected[i].site);
    EXPECT_EQ(s.width, expected[i].width) << s.site;
    EXPECT_EQ(s.bytes, expected[i].bytes) << s.site;
    ASSERT_GT(s.instructions, 0u) << s.site;
    int const width = expected[i].width;
    char row[256];
    std::snprintf(
        row, sizeof row, "| %s | %s | %llu | %llu | %llu | %.2f | %d |\n", expected[i].label,
        instruction_name(amd, s.reads > 0, width, kDirect && s.reads == 0).c_str(),
        static_cast<unsigned long long>(s.instructions), static_cast<unsigned long long>(s.bytes),
        static_cast<unsigned long long>(s.extra_cycles),
        static_cast<double>(s.extra_cycles) / static_cast<double>(s.instructions), s.max_degree);
    table += row;
    EXPECT_EQ(s.extra_cycles, 0u) << s.site << " has bank conflicts (max degree " << s.max_degree
                                  << ")";
  }
  std::printf("%s\n", table.c_str());
}

}  // namespace
}  // namespace fp8gemm::test
