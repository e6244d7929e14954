// SPDX-License-Identifier: MIT
/// clang HIP device-only build of the Hopper building blocks for an AMD target: every sm90
/// primitive compiles to an empty body there (assembly only; nothing is launched).
#include "sm90_device_kernels.hpp"
