// SPDX-License-Identifier: MIT
// The ops' entry points and their registration (torch's stable ABI: STABLE_TORCH_LIBRARY_IMPL):
// tensors checked and turned into the calls of kernels.hpp, outputs and workspaces from torch's
// allocator, the current stream. The schemas are defined in python/fp8gemm/_ops.py, which loads
// this library after defining them.
#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>
#include <torch/headeronly/core/ScalarType.h>

#include <limits>
#include <optional>
#include <string>
#include <tuple>

#include "fp8gemm/quant/quantize_host.hpp"
#include "kernels.hpp"
#if !defined(FP8GEMM_TORCH_BACKEND_CPU)
#include <torch/csrc/inductor/aoti_torch/c/shim.h>
#include <torch/csrc/stable/accelerator.h>
#endif

namespace fp8gemm::torch_ops {
namespace {

using torch::headeronly::ScalarType;
using Tensor = torch::stable::Tensor;

DType dtype_of(ScalarType t) {
  switch (t) {
    case ScalarType::Float8_e4m3fn:
      return DType::kE4m3fn;
    case ScalarType::Float8_e5m2:
      return DType::kE5m2;
    case ScalarType::Float8_e4m3fnuz:
      return DType::kE4m3fnuz;
    case ScalarType::Float8_e5m2fnuz:
      return DType::kE5m2fnuz;
    case ScalarType::BFloat16:
      return DType::kBf16;
    case ScalarType::Half:
      return DType::kFp16;
    case ScalarType::Float:
      return DType::kF32;
    default:
      return DType::kOther;
  }
}

std::string torch_dtype_name(ScalarType t) {
  switch (t) {
    case ScalarType::Int:
      return "int32";
    case ScalarType::Long:
      return "int64";
    case ScalarType::Byte:
      return "uint8";
    case ScalarType::Double:
      return "float64";
    case ScalarType::Float8_e8m0fnu:
      return "float8_e8m0fnu";
    default:
      return dtype_name(dtype_of(t));
  }
}

#if defined(FP8GEMM_TORCH_BACKEND_CPU)
struct DeviceScope {
  explicit DeviceScope(Tensor const&) {}
};
#else
struct DeviceScope {
  explicit DeviceScope(Tensor const& t) : guard(t.get_device_index()) {}
  torch::stable::accelerator::DeviceGuard guard;
};
#endif

/// torch's current stream on the tensor's device (none on the CPU).
gpuStream_t current_stream(Tensor const& t) {
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

/// Workspaces as uint8 tensors from torch's allocator (the caching allocator on CUDA), held until
/// the op returns: enough, as torch's allocator is stream-ordered.
struct TorchWorkspace {
  Tensor like;
  Tensor held;
  static void* allocate(void* self, std::size_t bytes) {
    auto* w = static_cast<TorchWorkspace*>(self);
    w->held =
        torch::stable::new_empty(w->like, {static_cast<std::int64_t>(bytes)}, ScalarType::Byte);
    return w->held.data_ptr();
  }
  Workspace view() { return {&TorchWorkspace::allocate, this}; }
};

void const* data(Tensor const& t) {
  return t.numel() > 0 ? t.data_ptr() : nullptr;
}

void expect(bool ok, std::string const& what) {
  if (!ok) bad_argument(what);
}
void expect_contiguous(Tensor const& t, char const* name) {
  expect(t.is_contiguous(), std::string(name) + " must be contiguous in fp8gemm's layout");
}
void expect_same_device(Tensor const& t, Tensor const& ref, char const* name) {
  expect(t.get_device_index() == ref.get_device_index() && t.is_cpu() == ref.is_cpu(),
         std::string(name) + " must be on the same device as a");
}
void expect_dtype(Tensor const& t, ScalarType want, char const* name) {
  expect(t.scalar_type() == want, std::string(name) + " must be " + torch_dtype_name(want) +
                                      ", got " + torch_dtype_name(t.scalar_type()));
}

Recipe recipe_of(std::int64_t r) {
  if (r < 0 || r > 3) bad_argument("recipe code " + std::to_string(r) + " is not 0 .. 3");
  return static_cast<Recipe>(r);
}
Act act_of(std::int64_t a) {
  if (a < 0 || a > 2) bad_argument("activation code " + std::to_string(a) + " is not 0 .. 2");
  return static_cast<Act>(a);
}

/// Block A scales: row-major (0), or column-major as torch's blockwise _scaled_mm takes them,
/// (M, K blocks) with strides (1, ld >= M): K-block-major for Gemm (scale_a_ld = ld), read in
/// place. Mirrored by _ops.column_major.
std::int64_t block_scale_ld(Tensor const& s) {
  if (s.dim() == 2 && s.size(1) > 1 && s.stride(0) == 1 && s.stride(1) >= s.size(0))
    return s.stride(1);
  return 0;
}

/// scale_a's leading dimension for Gemm / GroupedGemm (0: contiguous, row-major) and the count
/// of values its layout reaches; a column-major view's shape is checked here, since the library
/// checks only the count it reaches. rows: A's rows, k: its K.
struct ScaleA {
  std::int64_t ld = 0, count = 0;
};
ScaleA scale_a_layout(Tensor const& scale_a, Recipe r, std::int64_t rows, std::int64_t k) {
  ScaleA l;
  l.ld = r == Recipe::kBlock && !scale_a.is_contiguous() ? block_scale_ld(scale_a) : 0;
  if (l.ld != 0)
    expect(scale_a.size(0) == rows && scale_a.size(1) == (k + 127) / 128,
           "column-major block scale_a must be (M, ceil(K / 128)) = (" + std::to_string(rows) +
               ", " + std::to_string((k + 127) / 128) + "), got (" +
               std::to_string(scale_a.size(0)) + ", " + std::to_string(scale_a.size(1)) + ")");
  // a column-major view reaches (cols - 1) ld + rows elements of its storage
  l.count = l.ld == 0 ? scale_a.numel() : (scale_a.size(1) - 1) * l.ld + scale_a.size(0);
  return l;
}

void check_scales(Tensor const& s, Tensor const& a, Recipe r, char const* name,
                  bool column_major_ok = false) {
  expect_same_device(s, a, name);
  if (!(column_major_ok && r == Recipe::kBlock && block_scale_ld(s) != 0))
    expect_contiguous(s, name);
  // float8_e8m0fnu reaches the op as its uint8 bits (torch 2.10's stable ABI has no e8m0)
  expect_dtype(s, r == Recipe::kMx32 ? ScalarType::Byte : ScalarType::Float, name);
}

float const* checked_bias(std::optional<Tensor> const& bias, Tensor const& a) {
  if (!bias.has_value()) return nullptr;
  expect_same_device(*bias, a, "bias");
  expect_dtype(*bias, ScalarType::Float, "bias (as the op takes it)");
  expect_contiguous(*bias, "bias");
  return static_cast<float const*>(data(*bias));
}

/// out[M, N] = epilogue(scale_a (x) scale_b * (a[M, K] b[N, K]^T)), b K-contiguous.
std::tuple<Tensor, Tensor> mm(Tensor a, Tensor b, Tensor scale_a, Tensor scale_b,
                              std::int64_t recipe, std::optional<Tensor> bias, ScalarType out_dtype,
                              std::optional<double> out_scale, std::int64_t activation,
                              bool fast_accum, bool want_amax) {
  DeviceScope scope(a);
  expect(a.dim() == 2 && b.dim() == 2, "a and b must be 2-D");
  expect(a.size(1) == b.size(1), "a is (" + std::to_string(a.size(0)) + ", " +
                                     std::to_string(a.size(1)) + ") and b (" +
                                     std::to_string(b.size(0)) + ", " + std::to_string(b.size(1)) +
                                     "): the op takes b as (N, K), K contiguous, with a's K");
  expect_contiguous(a, "a");
  expect_contiguous(b, "b (as (N, K))");
  expect_same_device(b, a, "b");
  Recipe const r = recipe_of(recipe);
  check_scales(scale_a, a, r, "scale_a", true);
  check_scales(scale_b, a, r, "scale_b");
  expect(dtype_of(out_dtype) != DType::kOther,
         "out_dtype must be bfloat16, float16, float32 or a float8 type, got " +
             torch_dtype_name(out_dtype));
  Tensor out = torch::stable::new_empty(a, {a.size(0), b.size(0)}, out_dtype);
  Tensor amax = want_amax ? torch::stable::new_zeros(a, {}, ScalarType::Float)
                          : torch::stable::new_empty(a, {0}, ScalarType::Float);
  TorchWorkspace ws{a, Tensor()};
  DenseCall c;
  c.a = data(a);
  c.b = data(b);
  c.scale_a = data(scale_a);
  c.scale_b = data(scale_b);
  c.m = a.size(0);
  c.n = b.size(0);
  c.k = a.size(1);
  ScaleA const sa = scale_a_layout(scale_a, r, a.size(0), a.size(1));
  c.scale_a_ld = sa.ld;
  c.scale_a_count = sa.count;
  c.scale_b_count = scale_b.numel();
  c.bias = checked_bias(bias, a);
  c.out = out.numel() > 0 ? out.data_ptr() : nullptr;
  c.amax = want_amax ? static_cast<float*>(amax.data_ptr()) : nullptr;
  c.a_type = dtype_of(a.scalar_type());
  c.b_type = dtype_of(b.scalar_type());
  c.out_type = dtype_of(out_dtype);
  c.recipe = r;
  c.act = act_of(activation);
  c.out_scale = out_scale.has_value() ? *out_scale : std::numeric_limits<double>::quiet_NaN();
  c.fast_accum = fast_accum;
  c.stream = current_stream(a);
  c.workspace = ws.view();
  switch (r) {
    case Recipe::kTensor:
      dense_tensor(c);
      break;
    case Recipe::kRow:
      dense_row(c);
      break;
    case Recipe::kBlock:
      dense_block(c);
      break;
    case Recipe::kMx32:
      dense_mx32(c);
      break;
  }
  return {out, amax};
}

/// Contiguous: a [M, K], offs [G] int32 inclusive ends, out [M, N]. Masked: a [G, cap, K],
/// masked_m [G] int32, out [G, cap, N]. b [G, N, K] (K contiguous) in both.
Tensor grouped_mm(Tensor a, Tensor b, Tensor scale_a, Tensor scale_b, std::optional<Tensor> offs,
                  std::optional<Tensor> masked_m, std::int64_t recipe, std::optional<Tensor> bias,
                  ScalarType out_dtype, std::int64_t expected_m) {
  DeviceScope scope(a);
  expect(b.dim() == 3, "b must be 3-D: (G, N, K) as the op takes it");
  expect(offs.has_value() != masked_m.has_value(),
         "give exactly one of offs (contiguous groups) and masked_m (masked groups)");
  bool const masked = masked_m.has_value();
  char const* counts_name = masked ? "masked_m" : "offs";
  expect(a.dim() == (masked ? 3 : 2), masked ? "masked groups take a as (G, capacity, K)"
                                             : "contiguous groups take a as (M, K)");
  expect_contiguous(a, "a");
  expect_contiguous(b, "b (as (G, N, K))");
  expect_same_device(b, a, "b");
  Tensor const counts = masked ? *masked_m : *offs;
  expect_same_device(counts, a, counts_name);
  expect_dtype(counts, ScalarType::Int, counts_name);
  expect_contiguous(counts, counts_name);
  expect(counts.dim() == 1 && counts.size(0) == b.size(0),
         std::string(counts_name) + " must be 1-D with one entry per group (" +
             std::to_string(b.size(0)) + ")");
  std::int64_t const k = a.size(a.dim() - 1);
  expect(b.size(2) == k,
         "a's K (" + std::to_string(k) + ") and b's K (" + std::to_string(b.size(2)) + ") differ");
  if (masked) expect(a.size(0) == b.size(0), "a's groups and b's groups differ");
  Recipe const r = recipe_of(recipe);
  check_scales(scale_a, a, r, "scale_a", !masked);  // contiguous: block scale_a column-major too
  check_scales(scale_b, a, r, "scale_b");
  expect(dtype_of(out_dtype) != DType::kOther,
         "out_dtype must be bfloat16, float16 or float32, got " + torch_dtype_name(out_dtype));
  std::int64_t const n = b.size(1);
  Tensor out = masked ? torch::stable::new_empty(a, {a.size(0), a.size(1), n}, out_dtype)
                      : torch::stable::new_empty(a, {a.size(0), n}, out_dtype);
  TorchWorkspace ws{a, Tensor()};
  GroupedCall c;
  c.a = data(a);
  c.b = data(b);
  c.scale_a = data(scale_a);
  c.scale_b = data(scale_b);
  (masked ? c.masked_m : c.offs) = static_cast<int const*>(counts.data_ptr());
  c.m = masked ? a.size(1) : a.size(0);
  c.n = n;
  c.k = k;
  c.groups = b.size(0);
  c.expected_m = expected_m;
  ScaleA const sa = masked ? ScaleA{0, scale_a.numel()} : scale_a_layout(scale_a, r, c.m, k);
  c.scale_a_ld = sa.ld;
  c.scale_a_count = sa.count;
  c.scale_b_count = scale_b.numel();
  c.bias = checked_bias(bias, a);
  c.out = out.numel() > 0 ? out.data_ptr() : nullptr;
  c.a_type = dtype_of(a.scalar_type());
  c.b_type = dtype_of(b.scalar_type());
  c.out_type = dtype_of(out_dtype);
  c.recipe = r;
  c.stream = current_stream(a);
  c.workspace = ws.view();
  grouped(c);
  return out;
}

#if defined(FP8GEMM_TORCH_BACKEND_CPU)
/// The library's host quantizer (quantize_a_host / quantize_b_host), what fp8gemm.quantize is
/// tested against: x float32 [R, K] contiguous; weight: 128 x 128 blocks over (rows, K) as operand
/// B (recipe block), else operand A's blocks. Returns q [R, K] and the scales in fp8gemm's
/// row-major layout (mx32: e8m0 as uint8 bits).
std::tuple<Tensor, Tensor> quantize_reference(Tensor x, ScalarType dtype, std::int64_t recipe,
                                              bool weight) {
  expect_dtype(x, ScalarType::Float, "x");
  expect(x.dim() == 2, "x must be 2-D");
  expect_contiguous(x, "x");
  Recipe const r = recipe_of(recipe);
  std::int64_t const rows = x.size(0), k = x.size(1);
  Tensor q = torch::stable::new_empty(x, {rows, k}, dtype);
  Tensor scales;
  with_fp8(dtype_of(dtype), [&](auto t) {
    using T = std::decay_t<decltype(t)>;
    auto go = [&](auto g) {
      using G = std::decay_t<decltype(g)>;
      constexpr bool mx = std::is_same_v<G, Mx32>;
      ScaleShape const shape = scale_shape<G>(weight ? Operand::kB : Operand::kA, rows, k);
      scales = torch::stable::new_empty(x, {shape.rows, shape.cols},
                                        mx ? ScalarType::Byte : ScalarType::Float);
      float* fs = mx ? nullptr : static_cast<float*>(scales.data_ptr());
      e8m0* es = mx ? static_cast<e8m0*>(scales.data_ptr()) : nullptr;
      float const* xs = static_cast<float const*>(data(x));
      T* qs = static_cast<T*>(q.numel() > 0 ? q.data_ptr() : nullptr);
      if (weight) {
        QuantizeBArgs<T> qa;
        qa.x = xs;
        qa.n = rows;
        qa.k = k;
        qa.ldb = k;
        qa.layout = LayoutB::kNK;
        qa.q = qs;
        qa.ldq = k;
        qa.scales = fs;
        qa.mx_scales = es;
        qa.scale_count = shape.size();
        check(quantize_b_host<T, G>(qa));
      } else {
        QuantizeAArgs<T> qa;
        qa.x = xs;
        qa.m = rows;
        qa.k = k;
        qa.lda = k;
        qa.q = qs;
        qa.ldq = k;
        qa.scales = fs;
        qa.mx_scales = es;
        qa.scale_count = shape.size();
        check(quantize_a_host<T, G>(qa));
      }
    };
    switch (r) {
      case Recipe::kTensor:
        return go(PerTensor{});
      case Recipe::kRow:
        return go(PerChannel{});
      case Recipe::kBlock:
        return go(Blockwise<1, 128, 128>{});  // A: 1 x 128, B: 128 x 128
      case Recipe::kMx32:
        return go(Mx32{});
    }
  });
  return {q, scales};
}
#endif

}  // namespace
}  // namespace fp8gemm::torch_ops

#if defined(FP8GEMM_TORCH_BACKEND_CPU)
STABLE_TORCH_LIBRARY_IMPL(fp8gemm, CPU, m) {
  m.impl("mm", TORCH_BOX(&fp8gemm::torch_ops::mm));
  m.impl("grouped_mm", TORCH_BOX(&fp8gemm::torch_ops::grouped_mm));
  m.impl("_quantize_reference", TORCH_BOX(&fp8gemm::torch_ops::quantize_reference));
}
#else
STABLE_TORCH_LIBRARY_IMPL(fp8gemm, CUDA, m) {
  m.impl("mm", TORCH_BOX(&fp8gemm::torch_ops::mm));
  m.impl("grouped_mm", TORCH_BOX(&fp8gemm::torch_ops::grouped_mm));
}
#endif
