#version 450
// Frame check (wfCheckFrame in frame.c): records the first particle with a non-finite value and
// the first moving faster than maxSpeed; the host compares them as the CPU's ordered scan would.
// The reference particle's position goes along for the next frame's re-centring.
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
	else if (WfTooFast(v.xyz)) {
		atomicMin(status.firstUnstable, i);
		if (WfInContact(x.xyz, pc.substep))
			atomicMin(status.firstUnstableInContact, i);
	}
	if (i == P.particleCount / 2u)
		status.reference = vec4(x.xyz, 0.0);
}
