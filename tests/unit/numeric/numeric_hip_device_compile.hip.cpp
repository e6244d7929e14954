// SPDX-License-Identifier: MIT
/// clang HIP device-only build of the numeric headers for gfx942 / gfx950 (assembly only).
#include "numeric_device_kernel.hpp"
