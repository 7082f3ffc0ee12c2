#version 450
// One averaged Jacobi sweep (cpu_jacobi.c): every particle gathers the corrections of its
// constraints from pos into posAlt, and with kMoves adds its move to its velocity from vel into
// velAlt.
// Descriptor set variants swap the two pairs.
#include "common.glsl"

void main()
{
	uint i = WfElement();
	if (i == 0xffffffffu)
		return;
	vec4 xi = pos[i];
	const vec4 vi = kMoves ? vel[i] : vec4(0.0);
	if (xi.w == 0.0) {
		posAlt[i] = xi;
		if (kMoves)
			velAlt[i] = vi;
		return;
	}
	precise float cx = 0.0, cy = 0.0, cz = 0.0;
	const bool byDegree = (P.flags & WF_GPU_FLAG_JACOBI_DEGREE) != 0u;
	// The neighbours in batches of WF_GATHER, loads first, sums in adjacency order (as springs.comp).
	int first = adjStart[i], end = adjStart[i + 1];
	for (int e = first; e < end; e += WF_GATHER) {
		uint j[WF_GATHER_SLOTS], k[WF_GATHER_SLOTS];
		[[unroll]] for (int b = 0; b < WF_GATHER; ++b) {
			int at = min(e + b, end - 1);
			j[b] = adjOther[at];
			k[b] = adjConstraint[at];
		}
		vec4 xj[WF_GATHER_SLOTS];
		float weight[WF_GATHER_SLOTS], rest[WF_GATHER_SLOTS];
		[[unroll]] for (int b = 0; b < WF_GATHER; ++b) {
			xj[b] = pos[j[b]];
			weight[b] = jacobiWeight[k[b]];
			rest[b] = WfRest(k[b]);
		}
		[[unroll]] for (int b = 0; b < WF_GATHER; ++b) {
			if (e + b >= end)
				break;
			precise float dx = xj[b].x - xi.x, dy = xj[b].y - xi.y, dz = xj[b].z - xi.z;
			precise float len = sqrt(dx * dx + dy * dy + dz * dz);
			if (len < WF_MIN_LENGTH)
				continue;
			precise float f = byDegree ? 1.0 : 2.0 * xi.w / (xi.w + xj[b].w);
			precise float g = weight[b] * f * (len - rest[b]) / len;
			cx += g * dx;
			cy += g * dy;
			cz += g * dz;
		}
	}
	// wfCpuJacobiSubstep's per-particle factor: s / deg(i) (degree weights) or s.
	precise float s = P.relaxation;
	if (byDegree)
		s = end > first ? P.relaxation / float(end - first) : 0.0;
	precise float mx = s * cx, my = s * cy, mz = s * cz;
	precise vec4 y = vec4(xi.x + mx, xi.y + my, xi.z + mz, xi.w);
	posAlt[i] = y;
	// The move into the substep's velocity (wfCpuMoved), ping-ponged with the positions.
	if (!kMoves)
		return;
	vec4 u = vi;
	WfMoved(u, vec3(mx, my, mz), P.invH);
	velAlt[i] = u;
}
