// SPDX-License-Identifier: MIT
// The ops' entry points and their registration (stable ABI: STABLE_TORCH_LIBRARY_IMPL). Schemas
// are defined in python/fp8gemm/_ops.py, which loads this library after defining them.
#include <optional>
#include <tuple>

#include "torch_ops.hpp"

namespace fp8gemm::torch_ops {
namespace {

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

Recipe recipe_of(std::int64_t r) {
  if (r < 0 || r > 3) bad_argument("recipe code " + std::to_string(r) + " is not 0 .. 3");
  return static_cast<Recipe>(r);
}
Act act_of(std::int64_t a) {
  if (a < 0 || a > 2) bad_argument("activation code " + std::to_string(a) + " is not 0 .. 2");
  return static_cast<Act>(a);
}

void check_scales(Tensor const& s, Tensor const& a, Recipe r, char const* name) {
  expect_same_device(s, a, name);
  expect_contiguous(s, name);
  if (r == Recipe::kMx32) {
    // float8_e8m0fnu reaches the op as its uint8 bits (the stable ABI of torch 2.10 has no e8m0)
    expect_dtype(s, ScalarType::Byte, name);
  } else {
    expect_dtype(s, ScalarType::Float, name);
  }
}

Tensor checked_bias(std::optional<Tensor> const& bias, Tensor const& a) {
  if (!bias.has_value()) return Tensor();
  expect_same_device(*bias, a, "bias");
  expect_dtype(*bias, ScalarType::Float, "bias (as the op takes it)");
  expect_contiguous(*bias, "bias");
  return *bias;
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
  check_scales(scale_a, a, r, "scale_a");
  check_scales(scale_b, a, r, "scale_b");
  DenseCall c;
  c.a = a;
  c.b = b;
  c.scale_a = scale_a;
  c.scale_b = scale_b;
  c.bias = checked_bias(bias, a);
  c.recipe = r;
  c.act = act_of(activation);
  c.out_dtype = out_dtype;
  c.out_scale = out_scale.has_value() ? *out_scale : std::numeric_limits<double>::quiet_NaN();
  c.fast_accum = fast_accum;
  c.out = torch::stable::new_empty(a, {a.size(0), b.size(0)}, out_dtype);
  c.amax = make_amax(a, want_amax);
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
  return {c.out, c.amax};
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
  expect(a.dim() == (masked ? 3 : 2), masked ? "masked groups take a as (G, capacity, K)"
                                             : "contiguous groups take a as (M, K)");
  expect_contiguous(a, "a");
  expect_contiguous(b, "b (as (G, N, K))");
  expect_same_device(b, a, "b");
  Tensor const counts = masked ? *masked_m : *offs;
  expect_same_device(counts, a, masked ? "masked_m" : "offs");
  expect_dtype(counts, ScalarType::Int, masked ? "masked_m" : "offs");
  expect_contiguous(counts, masked ? "masked_m" : "offs");
  expect(counts.dim() == 1 && counts.size(0) == b.size(0),
         std::string(masked ? "masked_m" : "offs") + " must be 1-D with one entry per group (" +
             std::to_string(b.size(0)) + ")");
  std::int64_t const k = a.size(a.dim() - 1);
  expect(b.size(2) == k,
         "a's K (" + std::to_string(k) + ") and b's K (" + std::to_string(b.size(2)) + ") differ");
  if (masked) expect(a.size(0) == b.size(0), "a's groups and b's groups differ");
  Recipe const r = recipe_of(recipe);
  check_scales(scale_a, a, r, "scale_a");
  check_scales(scale_b, a, r, "scale_b");
  GroupedCall c;
  c.a = a;
  c.b = b;
  c.scale_a = scale_a;
  c.scale_b = scale_b;
  if (masked)
    c.masked_m = counts;
  else
    c.offs = counts;
  c.bias = checked_bias(bias, a);
  c.recipe = r;
  c.out_dtype = out_dtype;
  c.masked = masked;
  c.groups = b.size(0);
  c.n = b.size(1);
  c.k = k;
  c.m = masked ? a.size(1) : a.size(0);
  c.expected_m = expected_m;
  c.out = masked ? torch::stable::new_empty(a, {a.size(0), a.size(1), c.n}, out_dtype)
                 : torch::stable::new_empty(a, {a.size(0), c.n}, out_dtype);
  grouped(c);
  return c.out;
}

#if defined(FP8GEMM_TORCH_BACKEND_CPU)
/// The library's host quantizer (quantize_a_host / quantize_b_host), what fp8gemm.quantize is
/// tested against: x float32 [R, K] contiguous; weight: 128 x 128 blocks over (rows, K) as operand
/// B (recipe block), else operand A's blocks. Returns q [R, K] and the scales in fp8gemm's
/// row-major layout.
std::tuple<Tensor, Tensor> quantize_reference(Tensor x, ScalarType dtype, std::int64_t recipe,
                                              bool weight) {
  expect_dtype(x, ScalarType::Float, "x");
  expect(x.dim() == 2, "x must be 2-D");
  expect_contiguous(x, "x");
  Recipe const r = recipe_of(recipe);
  std::int64_t const rows = x.size(0), k = x.size(1);
  Tensor q = torch::stable::new_empty(x, {rows, k}, dtype);
  Tensor scales;
  with_fp8(dtype, [&](auto t) {
    using T = decltype(t);
    auto go = [&](auto g) {
      using G = decltype(g);
      Operand const op = weight ? Operand::kB : Operand::kA;
      ScaleShape const shape = scale_shape<G>(op, rows, k);
      bool const mx = std::is_same_v<G, Mx32>;
      scales = torch::stable::new_empty(x, {shape.rows, shape.cols},
                                        mx ? ScalarType::Byte : ScalarType::Float);
      Status s;
      if (weight) {
        QuantizeBArgs<T> qa;
        qa.x = ptr<float const>(x);
        qa.n = rows;
        qa.k = k;
        qa.ldb = k;
        qa.layout = LayoutB::kNK;
        qa.q = ptr<T>(q);
        qa.ldq = k;
        if (mx)
          qa.mx_scales = ptr<e8m0>(scales);
        else
          qa.scales = ptr<float>(scales);
        qa.scale_count = shape.size();
        s = quantize_b_host<T, G>(qa);
      } else {
        QuantizeAArgs<T> qa;
        qa.x = ptr<float const>(x);
        qa.m = rows;
        qa.k = k;
        qa.lda = k;
        qa.q = ptr<T>(q);
        qa.ldq = k;
        if (mx)
          qa.mx_scales = ptr<e8m0>(scales);
        else
          qa.scales = ptr<float>(scales);
        qa.scale_count = shape.size();
        s = quantize_a_host<T, G>(qa);
      }
      check(s);
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

void grouped(GroupedCall& c) {
  switch (c.recipe) {
    case Recipe::kTensor:
      return grouped_impl<Recipe::kTensor>(c);
    case Recipe::kRow:
      return grouped_impl<Recipe::kRow>(c);
    case Recipe::kBlock:
      return grouped_impl<Recipe::kBlock>(c);
    case Recipe::kMx32:
      return grouped_impl<Recipe::kMx32>(c);
  }
}

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
