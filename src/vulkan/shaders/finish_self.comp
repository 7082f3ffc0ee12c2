#version 450
// finish.glsl with the self-collision pass's move.
#define WF_FINISH_SELF
#include "finish.glsl"
