#!/bin/sh
# The files .clang-format covers: every tracked C and C++ source and header, except the shader
# folder (shared.h there is GLSL as much as C). Run from anywhere inside the repository.
cd "$(git rev-parse --show-toplevel)" || exit 1
git ls-files -- '*.c' '*.h' '*.cpp' ':!:src/vulkan/shaders/*'
