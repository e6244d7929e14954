// SPDX-License-Identifier: MIT
// The kernels behind fp8gemm's PyTorch ops, without torch: calls described by raw pointers and
// type codes, dispatched to AutoGemm / AutoGroupedGemm instantiations. ops.cpp turns tensors into
// these calls; dense_<recipe>.cpp and grouped.cpp hold the instantiations (no torch headers, so
// they also compile for gfx942 / gfx950 devices, where tests/isa checks their code).
//
// One library per backend, built from the same sources with one of these defined:
//   FP8GEMM_TORCH_BACKEND_CPU   the host emulator: OCP formats on gfx950's kernels, FNUZ on
//                               gfx942's
//   FP8GEMM_TORCH_BACKEND_CUDA  sm_90a, OCP formats
//   FP8GEMM_TORCH_BACKEND_HIP   gfx950, OCP formats (_C_hip_gfx950.so), or, with
//                               FP8GEMM_TORCH_HIP_FNUZ, gfx942, FNUZ formats (_C_hip_gfx942.so)
#pragma once

// config.hpp first: on HIP it brings hip_runtime.h in before any standard header, so that
// std::memcpy is callable from device code
#include "fp8gemm/config.hpp"
// then the standard headers and the rest of fp8gemm
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "fp8gemm/device/auto_gemm.hpp"
#include "fp8gemm/device/auto_grouped_gemm.hpp"
#include "fp8gemm/fp8gemm.hpp"

namespace fp8gemm::torch_ops {

// Codes as python/fp8gemm/_ops.py passes them.
enum class Recipe : int { kTensor = 0, kRow = 1, kBlock = 2, kMx32 = 3 };
enum class Act : int { kNone = 0, kGeluTanh = 1, kGeluErf = 2 };
// Element types (ops.cpp maps torch's dtypes to these).
enum class DType : int { kE4m3fn, kE5m2, kE4m3fnuz, kE5m2fnuz, kBf16, kFp16, kF32, kOther };

#if defined(FP8GEMM_TORCH_BACKEND_CPU)
inline constexpr char const* kBackend = "cpu";
#elif defined(FP8GEMM_TORCH_BACKEND_CUDA)
inline constexpr char const* kBackend = "cuda";
#elif defined(FP8GEMM_TORCH_BACKEND_HIP) && defined(FP8GEMM_TORCH_HIP_FNUZ)
inline constexpr char const* kBackend = "hip_gfx942";
#elif defined(FP8GEMM_TORCH_BACKEND_HIP)
inline constexpr char const* kBackend = "hip_gfx950";
#else
#error "define one of FP8GEMM_TORCH_BACKEND_CPU, _CUDA, _HIP"
#endif

// ---- errors ------------------------------------------------------------------------------------
// The stable ABI hands every C++ exception to Python as a RuntimeError carrying its message, so
// the message says what it is: "fp8gemm: <status code>: <why>". fp8gemm/__init__.py raises
// NotImplementedError for "unsupported", RuntimeError for "GPU runtime error", ValueError for the
// rest. Messages are built with std::string only (no iostreams: two libstdc++ may share the
// process).

[[noreturn]] inline void throw_status(Status const& s) {
  std::string const msg = "fp8gemm: " + s.to_string();
  if (s.code() == StatusCode::kErrorUnsupported || s.code() == StatusCode::kErrorGpuRuntime)
    throw std::runtime_error(msg);
  throw std::invalid_argument(msg);
}
inline void check(Status const& s) {
  if (!s.ok()) throw_status(s);
}
[[noreturn]] inline void bad_argument(std::string const& what) {
  throw std::invalid_argument("fp8gemm: invalid argument: " + what);
}
[[noreturn]] inline void unsupported(std::string const& what) {
  throw std::runtime_error("fp8gemm: unsupported: " + what);
}

// ---- element types -----------------------------------------------------------------------------

inline char const* dtype_name(DType t) {
  switch (t) {
    case DType::kE4m3fn:
      return "float8_e4m3fn";
    case DType::kE5m2:
      return "float8_e5m2";
    case DType::kE4m3fnuz:
      return "float8_e4m3fnuz";
    case DType::kE5m2fnuz:
      return "float8_e5m2fnuz";
    case DType::kBf16:
      return "bfloat16";
    case DType::kFp16:
      return "float16";
    case DType::kF32:
      return "float32";
    case DType::kOther:
      break;
  }
  return "a dtype fp8gemm does not take";
}

template <class F>
void with_fp8(DType t, F&& f) {
  switch (t) {
    case DType::kE4m3fn:
      return f(e4m3fn{});
    case DType::kE5m2:
      return f(e5m2{});
    case DType::kE4m3fnuz:
      return f(e4m3fnuz{});
    case DType::kE5m2fnuz:
      return f(e5m2fnuz{});
    default:
      bad_argument(std::string("operands must be float8, got ") + dtype_name(t));
  }
}
template <class F>
void with_out(DType t, F&& f) {
  switch (t) {
    case DType::kBf16:
      return f(bf16{});
    case DType::kFp16:
      return f(fp16{});
    case DType::kF32:
      return f(float{});
    case DType::kE4m3fn:
      return f(e4m3fn{});
    case DType::kE5m2:
      return f(e5m2{});
    case DType::kE4m3fnuz:
      return f(e4m3fnuz{});
    case DType::kE5m2fnuz:
      return f(e5m2fnuz{});
    default:
      bad_argument(std::string("out_dtype must be bfloat16, float16, float32 or a float8 type, "
                               "got ") +
                   dtype_name(t));
  }
}
template <class F>
void with_act(Act a, F&& f) {
  switch (a) {
    case Act::kNone:
      return f(Identity{});
    case Act::kGeluTanh:
      return f(GeluTanh{});
    case Act::kGeluErf:
      return f(GeluErf{});
  }
  bad_argument("activation code " + std::to_string(int(a)) + " is not 0, 1 or 2");
}

template <class T>
inline constexpr bool kFnuz = std::is_same_v<T, e4m3fnuz> || std::is_same_v<T, e5m2fnuz>;
template <class T>
inline constexpr bool kE4m3 = std::is_same_v<T, e4m3fn> || std::is_same_v<T, e4m3fnuz>;
template <class T>
inline constexpr bool kWideOut =
    std::is_same_v<T, bf16> || std::is_same_v<T, fp16> || std::is_same_v<T, float>;

// ---- the compiled matrix -----------------------------------------------------------------------
// Each entry is one AutoGemm instantiation (CUDA: 22 candidate kernels, 10 for Blockwise). The
// prebuilt libraries carry this set; anything else is refused as unsupported, naming the rule
// (mirrored by _ops.py's compiled(), and tests/python checks the two agree):
//   A and B both e4m3 (e4m3fn, or e4m3fnuz on the FNUZ targets): recipes tensor, row, block (and
//     mx32 on gfx950 / the OCP emulator); out bf16 / fp16 / fp32 with activation none, gelu_tanh
//     or gelu_erf, or out = A's fp8 type with activation none;
//   any other pair of one family (e4m3 x e5m2, e5m2 x e4m3, e5m2 x e5m2): recipes tensor and
//     row, out bf16 / fp16 / fp32, activation none;
//   fast accumulation (sm_90 only; CDNA's MFMA accumulates in FP32 anyway): both e4m3, recipes
//     tensor and row, out bf16 / fp16 / fp32, activation none; elsewhere the promoted kernel runs.

template <class EA, class EB>
constexpr bool family_compiled() {
  constexpr bool fnuz = kFnuz<EA>;
  if (kFnuz<EB> != fnuz) return false;
#if defined(FP8GEMM_TORCH_BACKEND_CUDA)
  return !fnuz;  // Hopper: OCP only
#elif defined(FP8GEMM_TORCH_BACKEND_HIP) && defined(FP8GEMM_TORCH_HIP_FNUZ)
  return fnuz;                     // gfx942
#elif defined(FP8GEMM_TORCH_BACKEND_HIP)
  return !fnuz;  // gfx950
#else
  return true;  // the emulator runs both
#endif
}

template <class EA, class EB, Recipe R, class Out, class A>
constexpr bool kernel_compiled() {
  if (!family_compiled<EA, EB>()) return false;
#if defined(FP8GEMM_TORCH_BACKEND_CUDA)
  constexpr bool mx = false;
#else
  constexpr bool mx = !kFnuz<EA>;  // MX-32 on gfx950 only
#endif
  if (kE4m3<EA> && kE4m3<EB>) {
    bool const recipe_ok = R != Recipe::kMx32 || mx;
    if (kWideOut<Out>) return recipe_ok;
    return recipe_ok && std::is_same_v<Out, EA> && std::is_same_v<A, Identity>;
  }
  return (R == Recipe::kTensor || R == Recipe::kRow) && kWideOut<Out> &&
         std::is_same_v<A, Identity>;
}
template <class EA, class EB, Recipe R, class Out, class A>
constexpr bool fast_compiled() {
#if defined(FP8GEMM_TORCH_BACKEND_CUDA)
  return kernel_compiled<EA, EB, R, Out, A>() && kE4m3<EA> && kE4m3<EB> &&
         (R == Recipe::kTensor || R == Recipe::kRow) && kWideOut<Out> &&
         std::is_same_v<A, Identity>;
#else
  return false;
#endif
}
// Grouped: both e4m3, recipes tensor, row and block, out bf16 / fp16 / fp32, activation none.
template <class EA, class EB, Recipe R, class Out>
constexpr bool grouped_compiled() {
  return kE4m3<EA> && kE4m3<EB> && kWideOut<Out> && R != Recipe::kMx32 &&
         kernel_compiled<EA, EB, R, Out, Identity>();
}

// ---- calls -------------------------------------------------------------------------------------

/// Workspace from the caller's allocator (torch's, in ops.cpp), alive until the call returns.
struct Workspace {
  void* (*allocate)(void* context, std::size_t bytes) = nullptr;
  void* context = nullptr;
  void* get(std::size_t bytes) const { return bytes == 0 ? nullptr : allocate(context, bytes); }
};

/// out[M, N] = epilogue(scale_a (x) scale_b * (a[M, K] b[N, K]^T)), every operand contiguous in
/// fp8gemm's layout (granularity.hpp), block scale_a row-major or K-block-major (scale_a_ld).
struct DenseCall {
  void const* a = nullptr;
  void const* b = nullptr;
  void const* scale_a = nullptr;  // float, or e8m0 bits for mx32
  void const* scale_b = nullptr;
  std::int64_t m = 0, n = 0, k = 0, scale_a_count = 0, scale_b_count = 0;
  std::int64_t scale_a_ld = 0;  // block: 0 row-major, > 0 K-block-major (Gemm::Arguments)
  float const* bias = nullptr;  // [N] or null
  void* out = nullptr;
  float* amax = nullptr;  // null: not asked for
  DType a_type = DType::kOther, b_type = DType::kOther, out_type = DType::kOther;
  Recipe recipe = Recipe::kTensor;
  Act act = Act::kNone;
  double out_scale = 0;  // fp8 out: q = fp8(y / out_scale); NaN for the others
  bool fast_accum = false;
  gpuStream_t stream{};
  Workspace workspace;
};

/// Contiguous (offs, a [M, K], out [M, N]) or masked (masked_m, a [G, m, K], out [G, m, N]) groups;
/// b [G, N, K].
struct GroupedCall {
  void const* a = nullptr;
  void const* b = nullptr;
  void const* scale_a = nullptr;
  void const* scale_b = nullptr;
  int const* offs = nullptr;
  int const* masked_m = nullptr;
  std::int64_t m = 0, n = 0, k = 0, groups = 0, expected_m = 0, scale_a_count = 0,
               scale_b_count = 0;
  std::int64_t scale_a_ld = 0;  // block, contiguous: 0 row-major, > 0 K-block-major
  float const* bias = nullptr;  // [G, N] or null
  void* out = nullptr;
  DType a_type = DType::kOther, b_type = DType::kOther, out_type = DType::kOther;
  Recipe recipe = Recipe::kTensor;
  gpuStream_t stream{};
  Workspace workspace;
};

// One per recipe, in dense_<recipe>.cpp (apart so that they compile in parallel); grouped.cpp.
void dense_tensor(DenseCall const& c);
void dense_row(DenseCall const& c);
void dense_block(DenseCall const& c);
void dense_mx32(DenseCall const& c);
void grouped(GroupedCall const& c);

// ---- the instantiations ------------------------------------------------------------------------

template <class T>
using TargetFor =
#if defined(FP8GEMM_TORCH_BACKEND_CUDA)
    selection::Sm90Target;
#else
    std::conditional_t<kFnuz<T>, selection::Cdna3Target, selection::Cdna4Target>;
#endif

template <Recipe R>
using GranularityOf = std::conditional_t<
    R == Recipe::kTensor, PerTensor,
    std::conditional_t<R == Recipe::kRow, PerChannel,
                       std::conditional_t<R == Recipe::kBlock, Blockwise<1, 128, 128>, Mx32>>>;

template <class Auto, class Args>
void run_auto(Args& args, Workspace const& ws, gpuStream_t stream) {
  args.workspace = ws.get(Auto::workspace_size(args));
  check(Auto::can_implement(args));
  check(Auto::run(args, stream));
}

template <class Auto>
void run_dense(DenseCall const& c) {
  using Scale = typename Auto::Scale;
  typename Auto::Arguments args;
  args.problem = {static_cast<int>(c.m), static_cast<int>(c.n), static_cast<int>(c.k)};
  args.a = static_cast<typename Auto::ElementA const*>(c.a);
  args.lda = c.k;
  args.b = static_cast<typename Auto::ElementB const*>(c.b);
  args.ldb = c.k;
  args.scale_a = static_cast<Scale const*>(c.scale_a);
  args.scale_a_count = c.scale_a_count;
  args.scale_a_ld = c.scale_a_ld;
  args.scale_b = static_cast<Scale const*>(c.scale_b);
  args.scale_b_count = c.scale_b_count;
  args.epilogue.c = static_cast<typename Auto::ElementC*>(c.out);
  args.epilogue.ldc = c.n;
  args.epilogue.bias = c.bias;
  if (!std::isnan(c.out_scale)) args.epilogue.output_scale = static_cast<float>(c.out_scale);
  args.epilogue.amax = c.amax;
  run_auto<Auto>(args, c.workspace, c.stream);
}

/// The dense GEMM of recipe R: the types come from the call's type codes, the instantiation from
/// the compiled matrix (or an "unsupported" error naming it).
template <Recipe R>
void dense_impl(DenseCall const& c) {
  using G = GranularityOf<R>;
  with_fp8(c.a_type, [&](auto ea) {
    with_fp8(c.b_type, [&](auto eb) {
      with_out(c.out_type, [&](auto out) {
        with_act(c.act, [&](auto act) {
          using EA = std::decay_t<decltype(ea)>;
          using EB = std::decay_t<decltype(eb)>;
          using Out = std::decay_t<decltype(out)>;
          using A = std::decay_t<decltype(act)>;
          if constexpr (!kernel_compiled<EA, EB, R, Out, A>()) {
            unsupported(std::string("fp8gemm's ") + kBackend + " library has no kernel for " +
                        dtype_name(c.a_type) + " x " + dtype_name(c.b_type) + ", " + G::kName +
                        " scales, " + dtype_name(c.out_type) + " out, " + A::kName +
                        " (compiled: both operands e4m3 with tensor/row/block scales (mx32 on "
                        "gfx950 and the CPU), 16/32-bit out with any activation or fp8 out of A's "
                        "type; mixed or e5m2 pairs with tensor/row scales, 16/32-bit out, no "
                        "activation; instantiate AutoGemm in C++ for others)");
          } else {
            using Epi = Epilogue<Out, A>;
            if constexpr (fast_compiled<EA, EB, R, Out, A>()) {
              if (c.fast_accum)
                return run_dense<
                    AutoGemm<TargetFor<EA>, EA, EB, G, LayoutB::kNK, Epi, FastAccumulation>>(c);
            }
            run_dense<AutoGemm<TargetFor<EA>, EA, EB, G, LayoutB::kNK, Epi>>(c);
          }
        });
      });
    });
  });
}

template <Recipe R>
void grouped_impl(GroupedCall const& c) {
  using G = GranularityOf<R>;
  with_fp8(c.a_type, [&](auto ea) {
    with_fp8(c.b_type, [&](auto eb) {
      with_out(c.out_type, [&](auto out) {
        using EA = std::decay_t<decltype(ea)>;
        using EB = std::decay_t<decltype(eb)>;
        using Out = std::decay_t<decltype(out)>;
        if constexpr (!grouped_compiled<EA, EB, R, Out>()) {
          unsupported(std::string("fp8gemm's ") + kBackend + " library has no grouped kernel for " +
                      dtype_name(c.a_type) + " x " + dtype_name(c.b_type) + ", " + G::kName +
                      " scales, " + dtype_name(c.out_type) +
                      " out (compiled: both operands e4m3, tensor/row/block scales, "
                      "bf16/fp16/fp32 out)");
        } else {
          using Auto = AutoGroupedGemm<TargetFor<EA>, EA, EB, G, Epilogue<Out>>;
          using Scale = typename Auto::Base::Scale;
          typename Auto::Arguments args;
          args.mode = c.masked_m != nullptr ? GroupMode::kMasked : GroupMode::kContiguous;
          args.problem = {static_cast<int>(c.m), static_cast<int>(c.n), static_cast<int>(c.k),
                          static_cast<int>(c.groups)};
          args.a = static_cast<EA const*>(c.a);
          args.lda = c.k;
          args.b = static_cast<EB const*>(c.b);
          args.ldb = c.k;
          args.offs = c.offs;
          args.masked_m = c.masked_m;
          args.scale_a = static_cast<Scale const*>(c.scale_a);
          args.scale_a_count = c.scale_a_count;
          args.scale_a_ld = c.scale_a_ld;
          args.scale_b = static_cast<Scale const*>(c.scale_b);
          args.scale_b_count = c.scale_b_count;
          args.epilogue.c = static_cast<Out*>(c.out);
          args.epilogue.ldc = c.n;
          args.epilogue.bias = c.bias;
          args.expected_m = static_cast<int>(c.expected_m);
          run_auto<Auto>(args, c.workspace, c.stream);
        }
      });
    });
  });
}

}  // namespace fp8gemm::torch_ops
