// SPDX-License-Identifier: MIT
/// The epilogue that stores an accumulator tile straight from registers (epilogue layer): per
/// element dequant (per-tensor / per-channel scales), bias, activation, conversion, store, and the
/// output amax. Its contract, all in this file: Arguments, can_implement (with the problem's
/// shape), store (with the tile's OutputBounds).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "fp8gemm/arch/thread.hpp"
#include "fp8gemm/epilogue/epilogue.hpp"
#include "fp8gemm/numeric/numeric.hpp"
#include "fp8gemm/problem_shape.hpp"
#include "fp8gemm/quant/granularity.hpp"
#include "fp8gemm/status.hpp"
#include "fp8gemm/tile/operand_view.hpp"

namespace fp8gemm {

/// out[m][n] = EpilogueOp(acc[m][n] * s_a * s_b) for a tile of accumulators laid out as the
/// mainloop's (Accumulators + ThreadCoords: `Coords::row(i, r)`, `col(j, r)`), with the
/// per-tensor / per-channel scales of Granularity (K-blocked scales were applied in the mainloop).
template <class Policy, class GranularityT, class EpilogueOp>
struct DirectStoreEpilogue {
  using Granularity = GranularityT;
  using ElementC = typename EpilogueOp::Element;

  struct Arguments {
    typename EpilogueOp::Params params;  // c, ldc, bias, output_scale, amax
    ScaleView<Granularity> scale_a;      // per-tensor / per-channel only
    ScaleView<Granularity> scale_b;
    // set by to_params: C's even columns start aligned pairs (EpilogueOp::pair_stores_aligned)
    bool pair_stores = false;
  };

  /// The kernel's copy of Arguments: with pair_stores decided on the host.
  static Arguments to_params(Arguments args) {
    args.pair_stores = args.params.c != nullptr && EpilogueOp::pair_stores_aligned(args.params);
    return args;
  }
  /// The arguments of one group of a grouped problem (grouped_tile_scheduler.hpp): C, the bias
  /// ([G, N]) and the scales this epilogue applies moved to the group's (per-tensor: scale_b[g]
  /// and scale_a[g] or the shared scale_a[0]; per-channel: the group's first row of flattened A
  /// and of flattened B), so that the tile stores with the group's coordinates.
  FP8GEMM_HOST_DEVICE static Arguments for_group(Arguments args, GroupOffsets const& o) {
    args.params.c += o.c;
    if (args.params.bias != nullptr) args.params.bias += o.bias;
    if constexpr (std::is_same_v<Granularity, PerTensor>) {
      args.scale_a.data += o.a_tensor;
      args.scale_b.data += o.group;
    } else if constexpr (std::is_same_v<Granularity, PerChannel>) {
      args.scale_a.data += o.a_row;
      args.scale_b.data += o.b_row;
    }
    args.pair_stores = args.pair_stores && o.c % 2 == 0;
    return args;
  }

  /// The warp-specialized kernel's form of the contract (TmaStoreEpilogue's, which needs a
  /// tensor map and shared memory): Params = the arguments to_params made, no shared memory, and
  /// nothing to finish before the CTA exits.
  using Params = Arguments;
  struct SharedStorage {};
  static Status initialize(ProblemShape const&, Arguments const& args, Params& p) {
    p = to_params(args);
    return Status::success();
  }
  template <class Accumulators, class Coords, class Dq>
  FP8GEMM_DEVICE static void store(Params const& p, SharedStorage&, OutputBounds const& bounds,
                                   int m0, int n0, Accumulators const& acc, Coords const& tc,
                                   Dq const& dq) {
    store(p, bounds, m0, n0, acc, tc, dq);
  }
  template <class Coords>
  FP8GEMM_DEVICE static void finish(Params const&, Coords const&) {}
  /// The Direct epilogue of this one (TmaStoreEpilogue names its own).
  using Direct = DirectStoreEpilogue;
  /// A grouped problem's tile (m0, n0 in its group) with the group's C, bias and scales (dq: the
  /// group's per-tensor scales, Dequant::load of for_group).
  template <class Accumulators, class Coords, class Dq>
  FP8GEMM_DEVICE static void store_group(Params const& p, SharedStorage&, GroupOffsets const& o,
                                         OutputBounds const& bounds, int m0, int n0,
                                         Accumulators const& acc, Coords const& tc, Dq const& dq) {
    store(for_group(p, o), bounds, m0, n0, acc, tc, dq);
  }
  /// Nothing to prefetch: the scales are read in the store (TmaStoreEpilogue stages them).
  template <class Coords>
  FP8GEMM_DEVICE static void prefetch_group_scales(Params const&, SharedStorage&,
                                                   GroupOffsets const&, OutputBounds const&, int,
                                                   int, Coords const&) {}

  static Status can_implement(ProblemShape const& problem, Arguments const& args) {
    auto fail = [](StatusCode code, std::string const& what) { return Status::error(code, what); };
    if (args.params.c == nullptr) return fail(StatusCode::kErrorNullPointer, "C is null");
    if (args.params.ldc < problem.n)
      return fail(StatusCode::kErrorLeadingDimension, "ldc (" + std::to_string(args.params.ldc) +
                                                          ") must be >= N (" +
                                                          std::to_string(problem.n) + ")");
    // C, bias and amax are read or written one element at a time (no vector or TMA access; gfx950
    // ISA: global_store_dword / _short for C, global_load_dword for bias, global_atomic_smax for
    // amax): the element's own alignment, which the GPU's stores, loads and atomics assume (NVIDIA
    // faults on a misaligned access). Null optional pointers pass.
    FP8GEMM_RETURN_IF_ERROR(
        check_aligned(args.params.c, alignof(ElementC), "C",
                      std::string(element_name<ElementC>()) + " stores, one element each"));
    FP8GEMM_RETURN_IF_ERROR(
        check_aligned(args.params.bias, alignof(float), "epilogue.bias", "float loads"));
    FP8GEMM_RETURN_IF_ERROR(
        check_aligned(args.params.amax, alignof(float), "epilogue.amax", "a 32-bit atomic max"));
    if constexpr (is_output_fp8_v<ElementC>) {
      float const s = args.params.output_scale;
      if (s != s)
        return fail(StatusCode::kErrorInvalidArgument,
                    "fp8 output needs output_scale (q = fp8(y / output_scale)); it is not set");
      if (!(s > 0.0f) || !std::isfinite(s))
        return fail(StatusCode::kErrorInvalidArgument,
                    "fp8 output needs a finite output_scale > 0 (q = fp8(y / output_scale)); got " +
                        std::to_string(s));
    } else if (float const s = args.params.output_scale; s == s) {  // set: not NaN
      return fail(
          StatusCode::kErrorInvalidArgument,
          std::string("output_scale is for fp8 outputs only (q = fp8(y / output_scale)); C is ") +
              element_name<ElementC>() + ", which is stored unscaled, so output_scale (" +
              std::to_string(s) + ") would be ignored: leave it unset (NaN)");
    }
    return Status::success();
  }

  /// The scales' dequant: acc · s_a · s_b (per-tensor / per-channel), else acc itself. Per-tensor
  /// scales are read once per tile, or once per CTA by a persistent kernel (the store overload
  /// that takes a Dequant), not per element (stores to C might alias them, so a per-element read
  /// would be repeated).
  struct Dequant {
    float sa = 1.0f, sb = 1.0f;  // per-tensor
    FP8GEMM_HOST_DEVICE static Dequant load(Arguments const& args) {
      Dequant d;
      if constexpr (std::is_same_v<Granularity, PerTensor>) {
        d.sa = args.scale_a.tensor();
        d.sb = args.scale_b.tensor();
      } else {
        (void)args;
      }
      return d;
    }
    FP8GEMM_HOST_DEVICE float operator()(Arguments const& args, int m, int n, float acc) const {
      if constexpr (std::is_same_v<Granularity, PerTensor>) {
        (void)args, (void)m, (void)n;
        return scale_twice(acc, sa, sb);
      } else if constexpr (std::is_same_v<Granularity, PerChannel>) {
        return scale_twice(acc, args.scale_a.channel(m), args.scale_b.channel(n));
      } else {
        (void)args, (void)m, (void)n;
        return acc;
      }
    }
  };

  /// out[m][n] = EpilogueOp(dequantize(acc)), stored; returns |y| for the amax (fabsf also clears
  /// the sign of a NaN, so NaN reaches the atomic max as NaN). The split-K reduction uses it too.
  FP8GEMM_DEVICE static float finish_element(Arguments const& args, int m, int n, float acc) {
    float const y = EpilogueOp::compute(args.params, Dequant::load(args)(args, m, n, acc), n);
    EpilogueOp::store(args.params, m, n, y);
    return fabsf(y);
  }

  /// Every element of the tile at (m0, n0) this thread holds inside `bounds`, then the amax. Atoms
  /// whose registers 2q and 2q + 1 hold neighbouring columns of one row (kCAdjacentPairs) store the
  /// two as one access where C's alignment allows (args.pair_stores) and both are inside N.
  template <class Accumulators, class Coords>
  FP8GEMM_DEVICE static void store(Arguments const& args, OutputBounds const& bounds, int m0,
                                   int n0, Accumulators const& acc, Coords const& tc) {
    store(args, bounds, m0, n0, acc, tc, Dequant::load(args));
  }
  /// The same with the scales read by the caller (Dequant::load), e.g. once before a persistent
  /// kernel's first tile, where a read per tile would wait for a round trip to L2 at every tile.
  template <class Accumulators, class Coords>
  FP8GEMM_DEVICE static void store(Arguments const& args, OutputBounds const& bounds, int m0,
                                   int n0, Accumulators const& acc, Coords const& tc,
                                   Dequant const& dq) {
    using Atom = typename Policy::Atom;
    constexpr bool kLeanCopy = Policy::kAtomsM * Policy::kAtomsN * Atom::kCRegs <= 64;
    float amax = 0.0f;
    auto fold = [&amax](float y) {
      float const mag = fabsf(y);
      amax = (mag > amax || mag != mag) ? mag : amax;  // NaN sticks
    };
    // y = EpilogueOp(dequantize(acc)) of output (m, n)
    auto value = [&](int m, int n, float a) {
      return EpilogueOp::compute(args.params, dq(args, m, n, a), n);
    };
    // outputs (m, n) and (m, n + 1) as one access
    auto finish_pair = [&](int m, int n, float a0, float a1) {
      float const y0 = value(m, n, a0), y1 = value(m, n + 1, a1);
      EpilogueOp::store_pair(args.params, m, n, y0, y1);
      fold(y0);
      fold(y1);
    };
    // a transposed map (swapped operands) has neighbouring rows in registers 2q, 2q + 1: no pairs
    constexpr int kStep = has_pairs<Atom>::value && !is_transposed<Coords>::value ? 2 : 1;
    if constexpr (kStep == 2) {
      // interior tile with aligned pairs: no bounds, no branches
      // (registers outermost: a column's bias and scale serve every row block i in a row, which
      // keeps few of them live)
      if (args.pair_stores && m0 + Policy::kBlockM <= bounds.m_end &&
          n0 + Policy::kBlockN <= bounds.n_end) {
        // the epilogue's parameters in registers, read once per tile (a store to C may alias
        // parameter space for the compiler, which then re-reads them per element)
        typename EpilogueOp::Params const params = args.params;
        auto pairs = [&](auto fold_c, typename EpilogueOp::Params const& q) {
          FP8GEMM_UNROLL
          for (int r = 0; r < Atom::kCRegs; r += 2) {
            FP8GEMM_UNROLL
            for (int j = 0; j < Policy::kAtomsN; ++j) {
              FP8GEMM_UNROLL
              for (int i = 0; i < Policy::kAtomsM; ++i) {
                int const m = m0 + tc.row(i, r), n = n0 + tc.col(j, r);
                float const y0 = EpilogueOp::compute(q, dq(args, m, n, acc.v[i][j][r]), n);
                float const y1 =
                    EpilogueOp::compute(q, dq(args, m, n + 1, acc.v[i][j][r + 1]), n + 1);
                EpilogueOp::store_pair(q, m, n, y0, y1);
                if constexpr (decltype(fold_c)::value) {
                  fold(y0);
                  fold(y1);
                }
              }
            }
          }
        };
        // The common case (no amax to fold, a bias known to be null: no branch per element) as
        // its own copy of the loop where the accumulators leave room for it (beside 128 per
        // thread, Sm90WgmmaLarge with GELU-erf, the second copy made ptxas spill).
        if (kLeanCopy && params.amax == nullptr && params.bias == nullptr) {
          typename EpilogueOp::Params lean = params;
          lean.bias = nullptr;
          pairs(std::false_type{}, lean);
        } else {
          pairs(std::true_type{}, params);
          if (params.amax != nullptr) arch::atomic_max_nonnegative(params.amax, amax);
        }
        return;
      }
    }
    FP8GEMM_UNROLL
    for (int i = 0; i < Policy::kAtomsM; ++i) {
      FP8GEMM_UNROLL
      for (int j = 0; j < Policy::kAtomsN; ++j) {
        FP8GEMM_UNROLL
        for (int r = 0; r < Atom::kCRegs; r += kStep) {
          int const m = m0 + tc.row(i, r);
          int const n = n0 + tc.col(j, r);
          if (m >= bounds.m_end) continue;
          if constexpr (kStep == 2) {
            if (args.pair_stores && n + 1 < bounds.n_end) {
              finish_pair(m, n, acc.v[i][j][r], acc.v[i][j][r + 1]);
              continue;
            }
          }
          FP8GEMM_UNROLL
          for (int q = 0; q < kStep; ++q) {
            if (n + q >= bounds.n_end) continue;
            float const y = value(m, n + q, acc.v[i][j][r + q]);
            EpilogueOp::store(args.params, m, n + q, y);
            fold(y);
          }
        }
      }
    }
    if (args.params.amax != nullptr) arch::atomic_max_nonnegative(args.params.amax, amax);
  }

 private:
  template <class A, class = void>
  struct has_pairs : std::false_type {};
  template <class A>
  struct has_pairs<A, std::void_t<decltype(A::kCAdjacentPairs)>>
      : std::bool_constant<A::kCAdjacentPairs> {};
  template <class C, class = void>
  struct is_transposed : std::false_type {};
  template <class C>
  struct is_transposed<C, std::void_t<decltype(C::kTransposed)>>
      : std::bool_constant<C::kTransposed> {};
};

}  // namespace fp8gemm
