#version 450
// Statistics over particles (wfComputeStats): energies and momentum of the dynamic particles,
// non-finite count, clearances to the colliders; one wfGpuPartial per workgroup.
#include "common.glsl"

shared float sSum[5][WF_GPU_GROUP_SIZE];
shared float sMin[2][WF_GPU_GROUP_SIZE];
shared uint sCount[WF_GPU_GROUP_SIZE];

void main()
{
	uint i = WfElement();
	uint t = gl_LocalInvocationID.x;
	// precise: the same roundings as the CPU's float expressions (no fused multiply-add).
	precise float ke = 0.0, pe = 0.0, mx = 0.0, my = 0.0, mz = 0.0;
	precise float sphere = WF_FLOAT_MAX, floorY = WF_FLOAT_MAX;
	uint nonFinite = 0u;
	if (i != 0xffffffffu) {
		vec4 x = pos[i], v = vel[i];
		float m = SP.mass;
		if (!WfFinite(x.x) || !WfFinite(x.y) || !WfFinite(x.z) || !WfFinite(v.x) || !WfFinite(v.y) || !WfFinite(v.z)) {
			nonFinite = 1u;
		} else if (x.w != 0.0) { // pinned and grabbed particles carry no momentum or energy
			ke = 0.5 * m * (v.x * v.x + v.y * v.y + v.z * v.z);
			pe = -m * (SP.gravity.x * x.x + SP.gravity.y * x.y + SP.gravity.z * x.z);
			mx = m * v.x;
			my = m * v.y;
			mz = m * v.z;
		}
		if ((SP.flags & WF_GPU_STATS_SPHERE) != 0u) {
			precise vec3 d = x.xyz - SP.sphereCenter.xyz;
			precise float c = sqrt(d.x * d.x + d.y * d.y + d.z * d.z) - SP.sphereRadius;
			if (c < sphere)
				sphere = c;
		}
		if ((SP.flags & WF_GPU_STATS_FLOOR) != 0u && x.y - SP.floorHeight < floorY)
			floorY = x.y - SP.floorHeight;
	}
	sSum[0][t] = ke;
	sSum[1][t] = pe;
	sSum[2][t] = mx;
	sSum[3][t] = my;
	sSum[4][t] = mz;
	sMin[0][t] = sphere;
	sMin[1][t] = floorY;
	sCount[t] = nonFinite;
	barrier();
	for (uint half_ = WF_GPU_GROUP_SIZE / 2u; half_ > 0u; half_ >>= 1u) {
		if (t < half_) {
			for (int q = 0; q < 5; ++q)
				sSum[q][t] += sSum[q][t + half_];
			for (int q = 0; q < 2; ++q)
				sMin[q][t] = sMin[q][t + half_] < sMin[q][t] ? sMin[q][t + half_] : sMin[q][t];
			sCount[t] += sCount[t + half_];
		}
		barrier();
	}
	// Groups past the end of a dispatch spilled into y own no elements and write nothing.
	if (t == 0u && WfGroup() * WF_GPU_GROUP_SIZE < pc.count) {
		uint g = WfGroup();
		partials[g].sum0 = sSum[0][0];
		partials[g].sum1 = sSum[1][0];
		partials[g].sum2 = sSum[2][0];
		partials[g].sum3 = sSum[3][0];
		partials[g].sum4 = sSum[4][0];
		partials[g].min0 = sMin[0][0];
		partials[g].min1 = sMin[1][0];
		partials[g].count = sCount[0];
		partials[g].bad = 0u;
	}
}
