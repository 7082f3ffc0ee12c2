#version 450
// Statistics over constraints (wfComputeStats): elastic energy of the solver's model, strain of
// the stretch family; one wfGpuPartial per workgroup, after the particle partials.
#include "common.glsl"

shared float sEnergy[WF_GPU_GROUP_SIZE];
shared float sStrain[WF_GPU_GROUP_SIZE];
shared float sMax[WF_GPU_GROUP_SIZE];
shared uint sCount[WF_GPU_GROUP_SIZE];
shared uint sBad[WF_GPU_GROUP_SIZE];

void main()
{
	uint k = WfElement();
	uint t = gl_LocalInvocationID.x;
	precise float energy = 0.0, strain = 0.0, largest = 0.0;
	uint stretch = 0u, bad = 0u;
	if (k != 0xffffffffu) {
		uvec4 q = con[k];
		vec4 a = pos[q.x], b = pos[q.y];
		precise float dx = b.x - a.x, dy = b.y - a.y, dz = b.z - a.z;
		float rest = uintBitsToFloat(q.z);
		precise float C = sqrt(dx * dx + dy * dy + dz * dz) - rest;
		float alpha = SP.compliance[q.w];
		if ((SP.flags & WF_GPU_STATS_XPBD) != 0u && alpha > 0.0)
			energy = 0.5 * C * C / alpha;
		else if ((SP.flags & WF_GPU_STATS_SPRINGS) != 0u)
			energy = 0.5 * SP.stiffness * C * C;
		if (q.w == 0u && rest > 0.0) {
			strain = abs(C) / rest;
			stretch = 1u;
			if (WfFinite(strain))
				largest = strain;
			else
				bad = 1u;
		}
	}
	sEnergy[t] = energy;
	sStrain[t] = strain;
	sMax[t] = largest;
	sCount[t] = stretch;
	sBad[t] = bad;
	barrier();
	for (uint half_ = WF_GPU_GROUP_SIZE / 2u; half_ > 0u; half_ >>= 1u) {
		if (t < half_) {
			sEnergy[t] += sEnergy[t + half_];
			sStrain[t] += sStrain[t + half_];
			sMax[t] = sMax[t + half_] > sMax[t] ? sMax[t + half_] : sMax[t];
			sCount[t] += sCount[t + half_];
			sBad[t] += sBad[t + half_];
		}
		barrier();
	}
	// Groups past the end of a dispatch spilled into y own no elements and write nothing.
	if (t == 0u && WfGroup() * WF_GPU_GROUP_SIZE < pc.count) {
		uint g = SP.particleGroups + WfGroup();
		partials[g].sum0 = sEnergy[0];
		partials[g].sum1 = sStrain[0];
		partials[g].sum2 = 0.0;
		partials[g].sum3 = 0.0;
		partials[g].sum4 = 0.0;
		partials[g].min0 = -sMax[0];
		partials[g].min1 = 0.0;
		partials[g].count = sCount[0];
		partials[g].bad = sBad[0];
	}
}
