#!/bin/sh
# The files .clang-format covers: every tracked C and C++ source and header (src/gpu/kernel_abi.h,
# which GLSL includes too, among them). Run from anywhere inside the repository.
cd "$(git rev-parse --show-toplevel)" || exit 1
git ls-files -- '*.c' '*.h' '*.cpp' ':!:src/vulkan/shaders/*'
