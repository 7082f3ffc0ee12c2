#version 450
// XPBD: one pass over one colour range [first, first + count). No two constraints of a colour
// share a particle, so the threads of a dispatch never touch the same particle. With kMoves each
// end's move also goes into its velocity (the substep's velocity summed move by move, wfCpuMoved).
#include "common.glsl"

void main()
{
	uint k = WfElement();
	if (k == 0xffffffffu)
		return;
	uvec4 q = con[k];
	bool first = (pc.flags & WF_GPU_PUSH_FIRST_ITERATION) != 0u;
	vec4 a = pos[q.x], b = pos[q.y];
	precise float wsum = a.w + b.w;
	precise float dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
	precise float len = sqrt(dx * dx + dy * dy + dz * dz);
	if (wsum == 0.0 || len < WF_MIN_LENGTH) {
		// lambda restarts every substep: clear what the previous substep left.
		if (first)
			lambda[k] = 0.0;
		return;
	}
	// dLambda = -(C + alpha~ lambda) / (w_a + w_b + alpha~), gradient n = (a - b) / |a - b|.
	float at = P.alphaTilde[q.w];
	float lam = first ? 0.0 : lambda[k];
	precise float dl = -(len - uintBitsToFloat(q.z) + at * lam) / (wsum + at);
	precise float nl = lam + dl;
	lambda[k] = nl;
	precise float s = dl / len;
	precise float sa = s * a.w, sb = s * b.w;
	precise vec3 ma = vec3(sa * dx, sa * dy, sa * dz), mb = vec3(sb * dx, sb * dy, sb * dz);
	precise vec4 na = vec4(a.x + ma.x, a.y + ma.y, a.z + ma.z, a.w);
	precise vec4 nb = vec4(b.x - mb.x, b.y - mb.y, b.z - mb.z, b.w);
	pos[q.x] = na;
	pos[q.y] = nb;
	// The moves into the ends' velocities (wfCpuMoved).
	if (!kMoves)
		return;
	const vec4 va = vel[q.x], vb = vel[q.y];
	precise vec4 ua = vec4(va.x + ma.x * P.invH, va.y + ma.y * P.invH, va.z + ma.z * P.invH, va.w);
	precise vec4 ub = vec4(vb.x - mb.x * P.invH, vb.y - mb.y * P.invH, vb.z - mb.z * P.invH, vb.w);
	vel[q.x] = ua;
	vel[q.y] = ub;
}
