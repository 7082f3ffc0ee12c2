#version 450
// Fused small-cloth frame, jacobi: one workgroup steps a whole frame of one cloth (fused.glsl);
// here the substep: predict, the sweeps, finish.
#extension GL_GOOGLE_include_directive : require
#define WF_FUSED_JACOBI 1
#include "fused.glsl"
#include "fused_stages.glsl"

// jacobi_sweep.comp for particle i (dynamic), into a register; its move into `move`.
vec3 SweepParticle(uint i, vec3 xi, float wi, out vec3 move)
{
	precise float cx = 0.0, cy = 0.0, cz = 0.0;
	const bool byDegree = (P.flags & WF_GPU_FLAG_JACOBI_DEGREE) != 0u;
	int first = ADJ_START(i), end = ADJ_START(i + 1u);
	for (int e = first; e < end; ++e) {
		uint k = ADJ_CONSTRAINT(e);
		uint o = ADJ_OTHER(e);
		vec3 xj = LoadX(o);
		float wj = Weight(o);
		precise float dx = xj.x - xi.x, dy = xj.y - xi.y, dz = xj.z - xi.z;
		precise float len = sqrt(dx * dx + dy * dy + dz * dz);
		if (len < WF_MIN_LENGTH)
			continue;
		precise float f = byDegree ? 1.0 : 2.0 * wi / (wi + wj);
		precise float g = JACOBI_WEIGHT(k) * f * (len - REST(k)) / len;
		cx += g * dx;
		cy += g * dy;
		cz += g * dz;
	}
	precise float s = P.relaxation;
	if (byDegree)
		s = end > first ? P.relaxation / float(end - first) : 0.0;
	precise vec3 m = vec3(s * cx, s * cy, s * cz);
	move = m;
	precise vec3 y = vec3(xi.x + m.x, xi.y + m.y, xi.z + m.z);
	return y;
}

void Substep(uint substep, uint iterations)
{
	uint t = gl_LocalInvocationID.x;
	Predict(substep, false);
	StateBarrier();
	for (uint it = 0u; it < iterations; ++it) {
		// Every particle reads its neighbours' old positions before any is overwritten.
		vec3 y[kPer];
		[[unroll]] for (uint j = 0u; j < kPer; ++j) {
			uint i = t + j * kGroup;
			if (i < P.particleCount && gW[j] != 0.0) {
				vec3 m;
				y[j] = SweepParticle(i, LoadX(i), gW[j], m);
				// The move into the particle's velocity (wfCpuMoved), in its register.
				if (kMoves) {
					const vec3 v = gV[j];
					precise vec3 u = vec3(v.x + m.x * P.invH, v.y + m.y * P.invH, v.z + m.z * P.invH);
					gV[j] = u;
				}
			}
		}
		barrier();
		[[unroll]] for (uint j = 0u; j < kPer; ++j) {
			uint i = t + j * kGroup;
			if (i < P.particleCount && gW[j] != 0.0)
				StoreX(i, y[j]);
		}
		StateBarrier();
	}
	if (SelfOn())
		SelfCollide(true, kMoves);
	Finish(substep);
}

#include "fused_main.glsl"
