// SPDX-License-Identifier: MIT
// can_implement on the host build (CDNA policies): every refusal names its check and its code.
#include <gtest/gtest.h>

#include "common/can_implement_cases.hpp"

namespace fp8gemm::test {
namespace {

TEST(GemmCanImplement, ExplainsEveryRefusalGfx950) {
  check_every_refusal<GemmConfig<Cdna4Default<>, PerChannel, LayoutB::kNK, Epilogue<bf16, GeluTanh>>>();
  check_every_refusal<GemmConfig<Cdna4KBlocked<>, Mx32, LayoutB::kKN, Epilogue<e4m3fn, Identity>>>();
}

TEST(GemmCanImplement, ExplainsEveryRefusalGfx942) {
  check_every_refusal<GemmConfig<Cdna3Default<>, Blockwise<1, 128, 128>, LayoutB::kKN, Epilogue<float, GeluErf>>>();
}

}  // namespace
}  // namespace fp8gemm::test
