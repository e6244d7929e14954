// SPDX-License-Identifier: MIT
/// The selection model (tier 2 of AutoGemm, device layer): an estimated time per candidate tile
/// and split-K from wave quantization over the SMs / CUs, the FLOPs the tiles issue, and the
/// bytes they move. Host-only constexpr arithmetic, no device reads (CUDA-graph safe).
#pragma once

#include <cstdint>

#include "fp8gemm/kernel/raster_band.hpp"

namespace fp8gemm::selection {

/// The machine the model plans for. Sources per target: selection/targets.hpp.
struct MachineModel {
  double peak_flops = 0;         // dense FP8 FLOP/s the model assumes sustained
  double hbm_bytes_per_s = 0;    // DRAM bandwidth
  double l2_bytes_per_s = 0;     // last-level-cache -> SM bandwidth (tile traffic)
  double l2_bytes = 0;           // an operand larger than this is streamed again by each wave
  double inflight_for_peak = 0;  // bytes in flight per SM at which it reaches its HBM share
  double reduce_seconds = 0;     // the split-K reduction kernel's fixed cost (a second launch)
  double wave_seconds = 0;       // per wave of tiles: filling the pipeline and draining the store
};

/// What the model needs of a candidate: its C tile, K tile, stages, and how fast its tile class
/// computes relative to the target's peak (selection/targets.hpp gives each its source).
struct CandidateShape {
  int block_m = 0, block_n = 0, block_k = 0, stages = 0;
  bool swap_ab = false;           // A's stage rows are always block_m (swapped decode policies)
  bool a_rows_follow_m = false;   // A's copies only as tall as M, rounded up to 8 (WGMMA)
  double compute_efficiency = 1;  // fraction of peak_flops on full tiles
};

struct Estimate {
  std::int64_t tiles = 0, units = 0, waves = 0;  // units = tiles * split_k
  double wave_efficiency = 0;                    // units / (waves * SMs)
  double flops = 0;                              // issued, whole tiles
  double dram_bytes = 0, l2_bytes = 0;
  double stream_efficiency = 0;  // min(1, bytes in flight per SM / inflight_for_peak)
  double seconds = 0;
};

constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}
constexpr double min_of(double a, double b) {
  return a < b ? a : b;
}
constexpr double max_of(double a, double b) {
  return a > b ? a : b;
}

/// time = max(flops / (peak * efficiency), dram_bytes / (hbm * stream_eff), l2_bytes / l2_bw)
///        / wave_efficiency + waves * wave_seconds
///        (+ the split-K partials' bytes and the reduction launch), where
///   tiles = ceil(M / bm) ceil(N / bn), units = tiles * split_k, waves = ceil(units / SMs),
///   wave_efficiency = units / (waves * SMs) (idle SMs in the last wave compute and load nothing),
///   flops = 2 * tiles * bm * bn * K (padded tiles issue whole MMAs),
///   l2_bytes = tiles * (a_rows + bn) * K (each tile streams its rows of A and B once),
///   dram_bytes = A * reads_a + B * reads_b + C: the scheduler's banded raster (auto_band_m of the
///     tiles in flight, tile_scheduler.hpp) walks every tile column for a band of `band` tile rows,
///     so an operand larger than l2_bytes is read again per band (reads_b = ceil(tiles_m / band)),
///     and A once if a band's rows of it fit L2 (else reads_a = min(tiles_n, waves)),
///   stream_eff = min(1, stages * (a_rows + bn) * bk / inflight_for_peak) (Little's law: an SM
///     needs that many bytes in flight for its share of HBM bandwidth).
/// a_rows = bm, or for a_rows_follow_m min(bm, round_up(M, 8)). Elements are 1 byte (FP8).
constexpr Estimate estimate(std::int64_t m, std::int64_t n, std::int64_t k, int sms, int split_k,
                            int c_bytes, CandidateShape const& c, MachineModel const& mm) {
  Estimate e;
  std::int64_t const tm = ceil_div(m, c.block_m), tn = ceil_div(n, c.block_n);
  e.tiles = tm * tn;
  e.units = e.tiles * split_k;
  e.waves = ceil_div(e.units, sms);
  e.wave_efficiency = double(e.units) / (double(e.waves) * sms);
  std::int64_t const a_rows =
      c.a_rows_follow_m && !c.swap_ab && m < c.block_m ? ceil_div(m, 8) * 8 : c.block_m;
  e.flops = 2.0 * double(e.tiles) * c.block_m * c.block_n * double(k);
  e.l2_bytes = double(e.tiles) * double(a_rows + c.block_n) * double(k);
  double const a_bytes = double(m) * k, b_bytes = double(n) * k, c_out = double(m) * n * c_bytes;
  std::int64_t const grid = e.units < sms ? e.units : sms;
  std::int64_t const in_flight = grid / split_k > 0 ? grid / split_k : 1;  // tiles
  std::int64_t band = raster_band_rows(in_flight, c.block_m, c.block_n);   // the scheduler's
  band = band < tm ? band : (tm > 0 ? tm : 1);
  bool const band_a_fits = double(band) * c.block_m * double(k) <= mm.l2_bytes;
  double const reads_a =
      a_bytes > mm.l2_bytes && !band_a_fits ? double(tn < e.waves ? tn : e.waves) : 1.0;
  double const reads_b = b_bytes > mm.l2_bytes ? double(ceil_div(tm, band)) : 1.0;
  e.dram_bytes = a_bytes * reads_a + b_bytes * reads_b + c_out;
  double const inflight = double(c.stages) * double(a_rows + c.block_n) * c.block_k;
  e.stream_efficiency = min_of(1.0, inflight / mm.inflight_for_peak);
  double const t_compute = e.flops / (mm.peak_flops * c.compute_efficiency);
  double const t_dram = e.dram_bytes / (mm.hbm_bytes_per_s * e.stream_efficiency);
  double const t_l2 = e.l2_bytes / mm.l2_bytes_per_s;
  e.seconds = max_of(t_compute, max_of(t_dram, t_l2)) / e.wave_efficiency +
              double(e.waves) * mm.wave_seconds;
  if (split_k > 1) {  // FP32 partials written and read back, then the reduction's launch
    e.dram_bytes += 2.0 * split_k * double(m) * n * 4.0;
    e.seconds += 2.0 * split_k * double(m) * n * 4.0 / mm.hbm_bytes_per_s + mm.reduce_seconds;
  }
  return e;
}

}  // namespace fp8gemm::selection
