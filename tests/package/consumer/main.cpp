// SPDX-License-Identifier: MIT
// Downstream smoke test: the installed headers compile in a plain host build and Status works.
#include <cstdio>
#include <cstring>

#include "fp8gemm/config.hpp"
#include "fp8gemm/status.hpp"

#if !defined(FP8GEMM_BACKEND_HOST)
#error "a plain C++ compile must select the host backend"
#endif

namespace {
fp8gemm::Status check_m(int m) {
  if (m < 1) return fp8gemm::Status::error(fp8gemm::StatusCode::kErrorInvalidSize, "M must be >= 1");
  return fp8gemm::Status::success();
}
fp8gemm::Status forward(int m) {
  FP8GEMM_RETURN_IF_ERROR(check_m(m));
  return fp8gemm::Status::success();
}
}  // namespace

int main() {
  fp8gemm::Status const good = forward(4);
  fp8gemm::Status const bad = forward(0);
  if (!good.ok() || bad.ok() || bad.code() != fp8gemm::StatusCode::kErrorInvalidSize) return 1;
  if (bad.to_string() != "invalid size: M must be >= 1") return 2;
  std::printf("fp8gemm consumer OK: %s\n", bad.to_string().c_str());
  return 0;
}
