#version 450
// Predict (XPBD and Jacobi): v = v / (1 + h w d) + h a (XPBD damping, implicit on v only) or v += h a; p = x; x += h v.
// A grabbed particle (inverse mass 0) is placed at the grab target (wfCpuPlaceGrab).
// With WF_GPU_PUSH_SHIFT it only re-centres the cloth at the frame start: x -= shift; with
// WF_GPU_PUSH_AERO it only writes the particle's drag and lift acceleration into prev (wfAeroAccel).
#include "common.glsl"
#include "tether.glsl"

void main()
{
	uint i = WfElement();
	if (i == 0xffffffffu)
		return;
	vec4 x = pos[i];
	if ((pc.flags & WF_GPU_PUSH_SHIFT) != 0u) {
		// The frame start's re-centring (wfClothLocal), a dispatch of its own before substep 0.
		precise vec3 y = x.xyz - P.shift.xyz;
		pos[i] = vec4(y, x.w);
		return;
	}
	if ((pc.flags & WF_GPU_PUSH_TETHER) != 0u) {
		WfTether(i, x);
		return;
	}
	if ((pc.flags & WF_GPU_PUSH_AERO) != 0u) {
		prev[i] = vec4(WfAeroAccel(i), 0.0);
		return;
	}
	vec3 air = (P.flags & WF_GPU_FLAG_AERO) != 0u ? prev[i].xyz : vec3(0.0);
	prev[i] = x;
	if (x.w == 0.0) {
		if (int(i) == P.grabIndex)
			pos[i] = vec4(P.grabTarget.xyz, x.w);
		return;
	}
	precise vec3 a = WfExternalAccel(pc.substep, i % P.cols, x.w);
	if ((P.flags & WF_GPU_FLAG_AERO) != 0u) {
		a.x += air.x;
		a.y += air.y;
		a.z += air.z;
	}
	float h = P.h;
	precise vec4 v = vel[i];
	if ((pc.flags & WF_GPU_PUSH_DAMPED) != 0u) {
		precise float k = 1.0 + h * x.w * P.damping;
		v.x = v.x / k + h * a.x;
		v.y = v.y / k + h * a.y;
		v.z = v.z / k + h * a.z;
	} else {
		v.x += h * a.x;
		v.y += h * a.y;
		v.z += h * a.z;
	}
	vel[i] = v;
	precise vec4 y = vec4(x.x + h * v.x, x.y + h * v.y, x.z + h * v.z, x.w);
	pos[i] = y;
}
