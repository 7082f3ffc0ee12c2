#version 450
#include "finish.glsl"
