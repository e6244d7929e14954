// SPDX-License-Identifier: MIT
/// nvcc build of the Hopper building blocks: the never-launched kernel of sm90_device_kernels.hpp
/// is compiled for sm_90a (the inline PTX assembles) and sm_90 (every primitive traps), then the
/// host tests of sm90_primitives_test.cpp run with the CUDA backend's headers. No GPU.
#include "sm90_device_kernels.hpp"
#include "sm90_primitives_test.cpp"
