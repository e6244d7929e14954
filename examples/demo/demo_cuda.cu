// SPDX-License-Identifier: MIT
// The demo built as CUDA: the same source, on the GPU.
#include "demo.cpp"
