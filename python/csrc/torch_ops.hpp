// SPDX-License-Identifier: MIT
// fp8gemm's PyTorch ops (stable ABI): the C++ half. The schemas, argument forms and layout
// conversions live in python/fp8gemm/_ops.py; the ops here take tensors already in fp8gemm's
// layouts, pick the kernel with AutoGemm / AutoGroupedGemm and run it on the current stream.
//
// One shared library per backend, each built from the same sources with one of
//   FP8GEMM_TORCH_BACKEND_CPU   the host emulator (CDNA kernels on the CPU): OCP -> gfx950, FNUZ ->
//   gfx942 FP8GEMM_TORCH_BACKEND_CUDA  sm_90a (OCP formats) FP8GEMM_TORCH_BACKEND_HIP   gfx950
//   (OCP) and gfx942 (FNUZ); ROCm torch's device type is "cuda"
// The kernels compiled into each library are the matrix of kernel_compiled() below; the Python
// side mirrors it in _ops.py (_compiled), and tests/python checks that the two agree.
#pragma once

#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>
#include <torch/headeronly/core/ScalarType.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "fp8gemm/device/auto_gemm.hpp"
#include "fp8gemm/device/auto_grouped_gemm.hpp"
#include "fp8gemm/fp8gemm.hpp"
#include "fp8gemm/quant/quantize_host.hpp"
#if !defined(FP8GEMM_TORCH_BACKEND_CPU)
#include <torch/csrc/inductor/aoti_torch/c/shim.h>
#include <torch/csrc/stable/accelerator.h>
#endif

namespace fp8gemm::torch_ops {

using torch::headeronly::ScalarType;
using Tensor = torch::stable::Tensor;

// Recipe and activation codes, as _ops.py passes them.
enum class Recipe : int { kTensor = 0, kRow = 1, kBlock = 2, kMx32 = 3 };
enum class Act : int { kNone = 0, kGeluTanh = 1, kGeluErf = 2 };

#if defined(FP8GEMM_TORCH_BACKEND_CPU)
inline constexpr char const* kBackend = "cpu";
#elif defined(FP8GEMM_TORCH_BACKEND_CUDA)
inline constexpr char const* kBackend = "cuda";
#elif defined(FP8GEMM_TORCH_BACKEND_HIP)
inline constexpr char const* kBackend = "hip";
#else
#error "define one of FP8GEMM_TORCH_BACKEND_CPU, _CUDA, _HIP"
#endif

// ---- errors
// -------------------------------------------------------------------------------------- The stable
// ABI hands every C++ exception to Python as a RuntimeError carrying its message, so the message
// says what it is: "fp8gemm: <status code>: <why>". fp8gemm/__init__.py raises NotImplementedError
// for "unsupported", RuntimeError for "GPU runtime error", ValueError for the rest. Messages are
// built with std::string only (no iostreams: two libstdc++ may share the process).

[[noreturn]] inline void throw_status(Status const& s) {
  std::string const msg = "fp8gemm: " + s.to_string();
  switch (s.code()) {
    case StatusCode::kErrorUnsupported:
    case StatusCode::kErrorGpuRuntime:
      throw std::runtime_error(msg);
    default:
      throw std::invalid_argument(msg);
  }
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

// ---- element types
// ---------------------------------------------------------------------------------

inline char const* dtype_name(ScalarType t) {
  switch (t) {
    case ScalarType::Float8_e4m3fn:
      return "float8_e4m3fn";
    case ScalarType::Float8_e5m2:
      return "float8_e5m2";
    case ScalarType::Float8_e4m3fnuz:
      return "float8_e4m3fnuz";
    case ScalarType::Float8_e5m2fnuz:
      return "float8_e5m2fnuz";
    case ScalarType::Float8_e8m0fnu:
      return "float8_e8m0fnu";
    case ScalarType::BFloat16:
      return "bfloat16";
    case ScalarType::Half:
      return "float16";
    case ScalarType::Float:
      return "float32";
    case ScalarType::Int:
      return "int32";
    case ScalarType::Byte:
      return "uint8";
    case ScalarType::Double:
      return "float64";
    case ScalarType::Long:
      return "int64";
    default:
      return "a dtype fp8gemm does not take";
  }
}

template <class F>
constexpr void with_fp8(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::Float8_e4m3fn:
      return f(e4m3fn{});
    case ScalarType::Float8_e5m2:
      return f(e5m2{});
    case ScalarType::Float8_e4m3fnuz:
      return f(e4m3fnuz{});
    case ScalarType::Float8_e5m2fnuz:
      return f(e5m2fnuz{});
    default:
      bad_argument(std::string("operands must be float8 tensors, got ") + dtype_name(t));
  }
}
template <class F>
constexpr void with_out(ScalarType t, F&& f) {
  switch (t) {
    case ScalarType::BFloat16:
      return f(bf16{});
    case ScalarType::Half:
      return f(fp16{});
    case ScalarType::Float:
      return f(float{});
    case ScalarType::Float8_e4m3fn:
      return f(e4m3fn{});
    case ScalarType::Float8_e5m2:
      return f(e5m2{});
    case ScalarType::Float8_e4m3fnuz:
      return f(e4m3fnuz{});
    case ScalarType::Float8_e5m2fnuz:
      return f(e5m2fnuz{});
    default:
      bad_argument(
          std::string("out_dtype must be bfloat16, float16, float32 or a float8 type, got ") +
          dtype_name(t));
  }
}
template <class F>
constexpr void with_act(Act a, F&& f) {
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

// ---- the compiled matrix -----------------------------------------------------------------------
// Each entry is one AutoGemm instantiation (CUDA: 13 candidate kernels, about 20 s of nvcc). The
// set below is what the prebuilt libraries carry; anything else is refused as unsupported, naming
// this rule (mirrored by _ops.py's _compiled()):
//   A and B both e4m3 (e4m3fn, or e4m3fnuz on the FNUZ targets):
//       recipes tensor, row, block (and mx32 on gfx950 / the OCP emulator);
//       out bf16 / fp16 / fp32 with activation none, gelu_tanh or gelu_erf; out = A's fp8 type,
//       activation none
//   any other pair of one family (e4m3 x e5m2, e5m2 x e4m3, e5m2 x e5m2): recipes tensor and row,
//       out bf16 / fp16 / fp32, activation none
//   fast accumulation (sm_90 only; CDNA's MFMA always accumulates in FP32): both e4m3, recipes
//       tensor and row, out bf16 / fp16 / fp32, activation none; elsewhere the promoted kernel runs

template <class EA, class EB, Recipe R, class Out, class A>
constexpr bool kernel_compiled() {
  constexpr bool fnuz = kFnuz<EA>;
  if constexpr (kFnuz<EB> != fnuz) {
    return false;
  } else {
#if defined(FP8GEMM_TORCH_BACKEND_CUDA)
    if (fnuz) return false;
    constexpr bool mx = false;
#else
    constexpr bool mx = !fnuz;  // MX-32 on gfx950 only
#endif
    constexpr bool sixteen_or_32 =
        std::is_same_v<Out, bf16> || std::is_same_v<Out, fp16> || std::is_same_v<Out, float>;
    if (kE4m3<EA> && kE4m3<EB>) {
      bool const recipe_ok = R != Recipe::kMx32 || mx;
      if (sixteen_or_32) return recipe_ok;
      return recipe_ok && std::is_same_v<Out, EA> && std::is_same_v<A, Identity>;
    }
    return (R == Recipe::kTensor || R == Recipe::kRow) && sixteen_or_32 &&
           std::is_same_v<A, Identity>;
  }
}
template <class EA, class EB, Recipe R, class Out, class A>
constexpr bool fast_compiled() {
#if defined(FP8GEMM_TORCH_BACKEND_CUDA)
  return kE4m3<EA> && kE4m3<EB> && (R == Recipe::kTensor || R == Recipe::kRow) &&
         !std::is_same_v<Out, EA> && std::is_same_v<A, Identity> && !kFnuz<EA>;
#else
  return false;
#endif
}
// Grouped: both e4m3, recipes tensor, row and block, out bf16 / fp16 / fp32, activation none.
template <class EA, class EB, Recipe R, class Out>
constexpr bool grouped_compiled() {
  constexpr bool sixteen_or_32 =
      std::is_same_v<Out, bf16> || std::is_same_v<Out, fp16> || std::is_same_v<Out, float>;
  return kE4m3<EA> && kE4m3<EB> && sixteen_or_32 && R != Recipe::kMx32 &&
         kernel_compiled<EA, EB, R, Out, Identity>();
}

// ---- per-backend plumbing ----------------------------------------------------------------------

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

/// The stream the op runs on: torch's current stream of the tensor's device (null on the CPU).
inline gpuStream_t current_stream(Tensor const& t) {
#if defined(FP8GEMM_TORCH_BACKEND_CPU)
  (void)t;
  return gpuStream_t{};
#else
  void* s = nullptr;
  if (aoti_torch_get_current_cuda_stream(t.get_device_index(), &s) != AOTI_TORCH_SUCCESS)
    throw std::runtime_error("fp8gemm: GPU runtime error: could not get the current stream");
  return static_cast<gpuStream_t>(s);
#endif
}

template <class T>
T* ptr(Tensor const& t) {
  return t.defined() && t.numel() > 0 ? static_cast<T*>(t.data_ptr()) : nullptr;
}

inline void expect(bool ok, std::string const& what) {
  if (!ok) bad_argument(what);
}
inline void expect_contiguous(Tensor const& t, char const* name) {
  expect(t.is_contiguous(), std::string(name) + " must be contiguous in fp8gemm's layout");
}
inline void expect_same_device(Tensor const& t, Tensor const& ref, char const* name) {
  expect(t.get_device_index() == ref.get_device_index() && t.is_cpu() == ref.is_cpu(),
         std::string(name) + " must be on the same device as a");
}
inline void expect_dtype(Tensor const& t, ScalarType want, char const* name) {
  expect(t.scalar_type() == want, std::string(name) + " must be " + dtype_name(want) + ", got " +
                                      dtype_name(t.scalar_type()));
}

/// A zero-initialized float32 amax scalar, or an undefined tensor.
inline Tensor make_amax(Tensor const& like, bool want) {
  if (!want) return torch::stable::new_empty(like, {0}, ScalarType::Float);
  return torch::stable::new_zeros(like, {}, ScalarType::Float);
}

/// Workspace from torch's allocator (the caching allocator on CUDA): kept alive by the caller's
/// Tensor until the op returns, which is enough because torch's allocator is stream-ordered.
inline void* workspace(Tensor const& like, std::size_t bytes, Tensor& holder) {
  if (bytes == 0) return nullptr;
  holder = torch::stable::new_empty(like, {static_cast<std::int64_t>(bytes)}, ScalarType::Byte);
  return holder.data_ptr();
}

struct DenseCall {
  Tensor a, b, scale_a, scale_b, bias, out, amax;
  Recipe recipe;
  Act act;
  ScalarType out_dtype;
  double out_scale;  // fp8 out: q = fp8(y / out_scale); NaN for the others
  bool fast_accum;
};
struct GroupedCall {
  Tensor a, b, scale_a, scale_b, offs, masked_m, bias, out;
  Recipe recipe;
  ScalarType out_dtype;
  bool masked;
  std::int64_t m, n, k, groups, expected_m;
};

// One per recipe, in dense_<recipe>.cpp (kept apart so they compile in parallel).
void dense_tensor(DenseCall& c);
void dense_row(DenseCall& c);
void dense_block(DenseCall& c);
void dense_mx32(DenseCall& c);
void grouped(GroupedCall& c);

template <class Auto>
void fill_dense(typename Auto::Arguments& args, DenseCall& c) {
  using EA = typename Auto::ElementA;
  using EB = typename Auto::ElementB;
  using Scale = typename Auto::Scale;
  std::int64_t const m = c.a.size(0), k = c.a.size(1), n = c.b.size(0);
  args.problem = {static_cast<int>(m), static_cast<int>(n), static_cast<int>(k)};
  args.a = ptr<EA const>(c.a);
  args.lda = k;
  args.b = ptr<EB const>(c.b);
  args.ldb = k;
  args.scale_a = ptr<Scale const>(c.scale_a);
  args.scale_a_count = c.scale_a.numel();
  args.scale_b = ptr<Scale const>(c.scale_b);
  args.scale_b_count = c.scale_b.numel();
  args.epilogue.c = ptr<typename Auto::ElementC>(c.out);
  args.epilogue.ldc = n;
  args.epilogue.bias = ptr<float const>(c.bias);
  if (!std::isnan(c.out_scale)) args.epilogue.output_scale = static_cast<float>(c.out_scale);
  args.epilogue.amax = ptr<float>(c.amax);
}

template <class Auto>
void run_auto(typename Auto::Arguments& args, Tensor const& like) {
  Tensor ws;
  args.workspace = workspace(like, Auto::workspace_size(args), ws);
  check(Auto::can_implement(args));
  check(Auto::run(args, current_stream(like)));
}

/// Runs the dense GEMM for recipe R: the types come from the tensors' dtypes, the instantiation
/// from the compiled matrix (or an "unsupported" error naming it).
template <Recipe R>
void dense_impl(DenseCall& c) {
  using G = GranularityOf<R>;
  with_fp8(c.a.scalar_type(), [&](auto ea) {
    with_fp8(c.b.scalar_type(), [&](auto eb) {
      with_out(c.out_dtype, [&](auto out) {
        with_act(c.act, [&](auto act) {
          using EA = decltype(ea);
          using EB = decltype(eb);
          using Out = decltype(out);
          using A = decltype(act);
          if constexpr (!kernel_compiled<EA, EB, R, Out, A>()) {
            unsupported(std::string("fp8gemm's ") + kBackend + " library has no kernel for " +
                        dtype_name(c.a.scalar_type()) + " x " + dtype_name(c.b.scalar_type()) +
                        ", " + G::kName + " scales, " + dtype_name(c.out_dtype) + " out, " +
                        A::kName +
                        " (compiled: both operands e4m3 with tensor/row/block scales (mx32 on "
                        "gfx950), 16/32-bit out with any activation or fp8 out of A's type; mixed "
                        "or e5m2 pairs with tensor/row scales, 16/32-bit out, no activation; "
                        "instantiate AutoGemm in C++ for others)");
          } else {
            using Epi = Epilogue<Out, A>;
            if constexpr (fast_compiled<EA, EB, R, Out, A>()) {
              if (c.fast_accum) {
                using Auto =
                    AutoGemm<TargetFor<EA>, EA, EB, G, LayoutB::kNK, Epi, FastAccumulation>;
                typename Auto::Arguments args;
                fill_dense<Auto>(args, c);
                return run_auto<Auto>(args, c.a);
              }
            }
            using Auto = AutoGemm<TargetFor<EA>, EA, EB, G, LayoutB::kNK, Epi>;
            typename Auto::Arguments args;
            fill_dense<Auto>(args, c);
            run_auto<Auto>(args, c.a);
          }
        });
      });
    });
  });
}

template <Recipe R>
void grouped_impl(GroupedCall& c) {
  using G = GranularityOf<R>;
  with_fp8(c.a.scalar_type(), [&](auto ea) {
    with_fp8(c.b.scalar_type(), [&](auto eb) {
      with_out(c.out_dtype, [&](auto out) {
        using EA = decltype(ea);
        using EB = decltype(eb);
        using Out = decltype(out);
        if constexpr (!grouped_compiled<EA, EB, R, Out>()) {
          unsupported(std::string("fp8gemm's ") + kBackend + " library has no grouped kernel for " +
                      dtype_name(c.a.scalar_type()) + " x " + dtype_name(c.b.scalar_type()) + ", " +
                      G::kName + " scales, " + dtype_name(c.out_dtype) +
                      " out (compiled: both operands e4m3, tensor/row/block scales, "
                      "bf16/fp16/fp32 out)");
        } else {
          using Auto = AutoGroupedGemm<TargetFor<EA>, EA, EB, G, Epilogue<Out>>;
          using Scale = typename Auto::Base::Scale;
          typename Auto::Arguments args;
          args.mode = c.masked ? GroupMode::kMasked : GroupMode::kContiguous;
          args.problem = {static_cast<int>(c.m), static_cast<int>(c.n), static_cast<int>(c.k),
                          static_cast<int>(c.groups)};
          args.a = ptr<EA const>(c.a);
          args.lda = c.k;
          args.b = ptr<EB const>(c.b);
          args.ldb = c.k;
          args.offs = ptr<int const>(c.offs);
          args.masked_m = ptr<int const>(c.masked_m);
          args.scale_a = ptr<Scale const>(c.scale_a);
          args.scale_a_count = c.scale_a.numel();
          args.scale_b = ptr<Scale const>(c.scale_b);
          args.scale_b_count = c.scale_b.numel();
          args.epilogue.c = ptr<Out>(c.out);
          args.epilogue.ldc = c.n;
          args.epilogue.bias = ptr<float const>(c.bias);
          args.expected_m = static_cast<int>(c.expected_m);
          run_auto<Auto>(args, c.a);
        }
      });
    });
  });
}

}  // namespace fp8gemm::torch_ops
