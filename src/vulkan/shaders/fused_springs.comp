#version 450
// Fused small-cloth frame, springs: one workgroup steps a whole frame of one cloth (fused.glsl);
// here the substep: forces, integration and collision in one pass.
#extension GL_GOOGLE_include_directive : require
#define WF_FUSED_SPRINGS 1
#include "fused.glsl"

// springs.comp for the owned particles: every force is gathered from the old state into registers,
// then the new positions and velocities are stored (velocities also to VEL for the neighbours).
void Substep(uint substep, uint iterations)
{
	uint t = gl_LocalInvocationID.x;
	float mass = P.mass, k = P.stiffness, damping = P.springDamping, h = P.h;
	vec3 nx[kPer];
	const WfStill s0 = WfStillAt(substep, 0u), s1 = WfStillAt(substep, 1u); // once for the owned particles
	[[unroll]] for (uint j = 0u; j < kPer; ++j) {
		uint i = t + j * kGroup;
		if (i >= P.particleCount)
			break;
		vec3 xi = LoadX(i), vi = gV[j];
		float w = gW[j];
		if (w == 0.0) {
			nx[j] = int(i) == P.grabIndex ? P.grabTarget.xyz : xi;
			gV[j] = vec3(0.0);
			continue;
		}
		vec3 a = WfExternalAccel(substep, i % P.cols, w);
		precise float fx = mass * a.x, fy = mass * a.y, fz = mass * a.z;
		int end = ADJ_START(i + 1u);
		for (int e = ADJ_START(i); e < end; ++e) {
			uint o = ADJ_OTHER(e);
			vec3 xj = LoadX(o), vj = VEL(o).xyz;
			precise float dx = xj.x - xi.x, dy = xj.y - xi.y, dz = xj.z - xi.z;
			precise float len = sqrt(dx * dx + dy * dy + dz * dz);
			if (len < WF_MIN_LENGTH)
				continue;
			dx /= len;
			dy /= len;
			dz /= len;
			precise float spring = k * (len - REST(ADJ_CONSTRAINT(e)));
			precise float damper = damping * ((vj.x - vi.x) * dx + (vj.y - vi.y) * dy + (vj.z - vi.z) * dz);
			fx += (spring + damper) * dx;
			fy += (spring + damper) * dy;
			fz += (spring + damper) * dz;
		}
		precise vec4 v = vec4(vi.x + h * fx * w, vi.y + h * fy * w, vi.z + h * fz * w, 0.0);
		precise vec4 x = vec4(xi.x + h * v.x, xi.y + h * v.y, xi.z + h * v.z, w);
		WfCollideWith(x, v, substep, s0, s1);
		nx[j] = x.xyz;
		gV[j] = v.xyz;
	}
	barrier();
	[[unroll]] for (uint j = 0u; j < kPer; ++j) {
		uint i = t + j * kGroup;
		if (i >= P.particleCount)
			break;
		StoreX(i, nx[j]);
		VEL(i) = vec4(gV[j], 0.0);
	}
	StateBarrier();
	if (SelfOn())
		SelfCollide(false, false); // the CPU's springs pass no previous positions: no friction
}

#include "fused_main.glsl"
