#version 450
// The box around one cloth's particles, merged into the frame's caster box (set 0, RD_BINDING_BOUNDS)
// with atomic min / max on order-preserving uints. draw.mode.x: particle count; draw.transform.xyz:
// the offset of the positions (the cloth's origin when they are the solver's local ones).
#include "render_shared.h"

layout(local_size_x = RD_BOUNDS_GROUP) in;

layout(set = 0, binding = RD_BINDING_BOUNDS) buffer Bounds { uint bounds[6]; };
layout(set = 1, binding = RD_CLOTH_POSITIONS) readonly buffer ClothPositions { vec4 clothPos[]; };
layout(push_constant) uniform RdDraw { RD_DRAW_FIELDS } draw;

shared vec3 groupLo[RD_BOUNDS_GROUP];
shared vec3 groupHi[RD_BOUNDS_GROUP];

// Floats as uints whose unsigned order is the floats' order.
uint Ordered(float f)
{
	uint u = floatBitsToUint(f);
	return (u & 0x80000000u) != 0u ? ~u : u | 0x80000000u;
}

void main()
{
	uint t = gl_LocalInvocationID.x;
	uint count = uint(draw.mode.x);
	vec3 lo = vec3(3.0e38), hi = vec3(-3.0e38);
	for (uint i = gl_GlobalInvocationID.x; i < count; i += gl_NumWorkGroups.x * RD_BOUNDS_GROUP) {
		vec3 p = draw.transform.xyz + clothPos[i].xyz;
		lo = min(lo, p);
		hi = max(hi, p);
	}
	groupLo[t] = lo;
	groupHi[t] = hi;
	barrier();
	for (uint s = RD_BOUNDS_GROUP / 2; s > 0u; s >>= 1) {
		if (t < s) {
			groupLo[t] = min(groupLo[t], groupLo[t + s]);
			groupHi[t] = max(groupHi[t], groupHi[t + s]);
		}
		barrier();
	}
	if (t == 0u) {
		for (int k = 0; k < 3; ++k) {
			atomicMin(bounds[k], Ordered(groupLo[0][k]));
			atomicMax(bounds[3 + k], Ordered(groupHi[0][k]));
		}
	}
}
