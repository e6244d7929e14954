// SPDX-License-Identifier: MIT
/// Status: what every public host function returns; the message names the check that failed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace fp8gemm {

enum class StatusCode {
  kSuccess = 0,
  kErrorNullPointer,       // a required pointer is null
  kErrorInvalidSize,       // a size is < 1 (or a count does not fit)
  kErrorLeadingDimension,  // a leading dimension below its row, or too large for 32-bit offsets
  kErrorMisaligned,        // a pointer or leading dimension breaks the alignment vector loads need
  kErrorScaleShape,        // a scale array has the wrong length or shape for the granularity
  kErrorUnsupported,       // a valid request this build/target cannot do (says why)
  kErrorInvalidArgument,   // any other bad argument (bad option value, NaN where a scale is needed)
  kErrorGpuRuntime,        // a HIP/CUDA call failed; the message carries the runtime's text
};

inline char const* to_string(StatusCode c) {
  switch (c) {
    case StatusCode::kSuccess:
      return "success";
    case StatusCode::kErrorNullPointer:
      return "null pointer";
    case StatusCode::kErrorInvalidSize:
      return "invalid size";
    case StatusCode::kErrorLeadingDimension:
      return "invalid leading dimension";
    case StatusCode::kErrorMisaligned:
      return "misaligned";
    case StatusCode::kErrorScaleShape:
      return "scale shape mismatch";
    case StatusCode::kErrorUnsupported:
      return "unsupported";
    case StatusCode::kErrorInvalidArgument:
      return "invalid argument";
    case StatusCode::kErrorGpuRuntime:
      return "GPU runtime error";
  }
  return "unknown status";
}

/// A code plus a sentence. `Status::ok()` is the only success; every error has a message.
class Status {
 public:
  Status() = default;
  static Status success() { return Status(); }
  static Status error(StatusCode code, std::string message) {
    Status s;
    s.code_ = code;
    s.message_ = std::move(message);
    return s;
  }

  bool ok() const { return code_ == StatusCode::kSuccess; }
  explicit operator bool() const { return ok(); }
  StatusCode code() const { return code_; }
  std::string const& message() const { return message_; }
  /// "null pointer: C is null" — code name, colon, message.
  std::string to_string() const {
    return ok() ? std::string("success") : std::string(fp8gemm::to_string(code_)) + ": " + message_;
  }

 private:
  StatusCode code_ = StatusCode::kSuccess;
  std::string message_;
};

/// kErrorMisaligned unless p is a multiple of `alignment` bytes; the message names the pointer,
/// the access that needs the alignment, and how far past a multiple of it p lies. Null passes.
inline Status check_aligned(void const* p, std::size_t alignment, char const* what,
                            std::string const& access) {
  std::size_t const off = reinterpret_cast<std::uintptr_t>(p) % alignment;
  if (off == 0) return Status::success();
  return Status::error(StatusCode::kErrorMisaligned,
                       std::string(what) + " must be " + std::to_string(alignment) +
                           "-byte aligned (" + access + "); its address is " + std::to_string(off) +
                           (off == 1 ? " byte" : " bytes") + " past a multiple of " +
                           std::to_string(alignment));
}

}  // namespace fp8gemm

/// Returns early from the enclosing function with the status if it is an error.
#define FP8GEMM_RETURN_IF_ERROR(expr)                  \
  do {                                                 \
    ::fp8gemm::Status fp8gemm_status_ = (expr);        \
    if (!fp8gemm_status_.ok()) return fp8gemm_status_; \
  } while (0)

#include "fp8gemm/config.hpp"

#if defined(FP8GEMM_HAS_GPU_RUNTIME)
namespace fp8gemm {
/// Turns a HIP/CUDA return code into a Status naming the call that failed.
inline Status gpu_status(gpuError_t e, char const* what) {
  if (e == kGpuSuccess) return Status::success();
  return Status::error(StatusCode::kErrorGpuRuntime,
                       std::string(what) + " failed: " + gpu_error_string(e));
}
}  // namespace fp8gemm
/// Checks a HIP/CUDA call; returns a kErrorGpuRuntime Status naming it on failure.
#define FP8GEMM_GPU_RETURN_IF_ERROR(call) \
  FP8GEMM_RETURN_IF_ERROR(::fp8gemm::gpu_status((call), #call))
#endif
