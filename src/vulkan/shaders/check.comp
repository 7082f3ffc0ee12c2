#version 450
// Frame check (FrameIsBad in cpu_backend.c): records the first particle with a non-finite value and
// the first moving faster than 1e4 m/s; the host compares them as the CPU's ordered scan would.
#include "common.glsl"

void main()
{
	uint i = WfElement();
	if (i == 0xffffffffu)
		return;
	vec4 x = pos[i], v = vel[i];
	precise float s = x.x + x.y + x.z + v.x + v.y + v.z;
	// Exponent bits all ones: inf or NaN (robust where a compiler assumes finite math).
	if ((floatBitsToUint(s) & 0x7f800000u) == 0x7f800000u)
		atomicMin(status.firstNonFinite, i);
	else if (abs(v.x) > 1e4 || abs(v.y) > 1e4 || abs(v.z) > 1e4)
		atomicMin(status.firstUnstable, i);
}
