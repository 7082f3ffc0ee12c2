#version 450
// Fused small-cloth frame, jacobi: one workgroup steps a whole frame of one cloth (fused.glsl).
#extension GL_GOOGLE_include_directive : require
#define WF_FUSED_JACOBI 1
#include "fused.glsl"
