#version 450
// Frame check (wfCheckFrame in frame_policy.c): records the first particle with a non-finite value and
// the first moving faster than maxSpeed; the host compares them as the CPU's ordered scan would.
// The reference particle's position goes along for the next frame's re-centring. With them the
// motion tests against the frame-start state (the backup): the first particle that passed the
// tunnelling test (wfTunnelled), and the energy pre-test's sums (wfMotionSums), summed per
// workgroup; the last workgroup to finish sums the workgroups' partials into the status. WGSL
// (WF_WGSL) has no device-scope fence for that: there a dispatch of its own with
// WF_GPU_PUSH_CHECK_SUM (one workgroup, pc.count the partials) sums them, in the same order.
#include "common.glsl"

shared vec4 sSum[WF_GPU_GROUP_SIZE];
shared uint sLast;

// The sum of `v` over the workgroup, for invocation 0: 32 partial sums of WF_GPU_GROUP_SIZE / 32
// entries each, then invocation 0's of those (three barriers).
vec4 WfGroupSum(vec4 v, uint t)
{
	const uint per = WF_GPU_GROUP_SIZE / 32u;
	sSum[t] = v;
	memoryBarrierShared();
	barrier();
	vec4 part = vec4(0.0);
	if (t < 32u) {
		for (uint k = 0u; k < per; ++k)
			part += sSum[t * per + k];
	}
	barrier();
	if (t < 32u)
		sSum[t] = part;
	memoryBarrierShared();
	barrier();
	vec4 sum = vec4(0.0);
	if (t == 0u) {
		for (uint k = 0u; k < 32u; ++k)
			sum += sSum[k];
	}
	barrier(); // sSum may be written again
	return sum;
}

// The sum of the first `groups` partials into the status, by one workgroup (invocation t): the
// last workgroup's part (a macro: Vulkan's SPIR-V as it was with the lines in main).
#define WF_SUM_PARTIALS(groups, t)                                                                            \
	vec4 total = vec4(0.0);                                                                                   \
	for (uint k = t; k < groups; k += WF_GPU_GROUP_SIZE)                                                     \
		total += vec4(partials[k].sum0, partials[k].sum1, partials[k].sum2, partials[k].sum3);                \
	total = WfGroupSum(total, t);                                                                             \
	if (t == 0u)                                                                                              \
		status.energy = total;

void main()
{
#ifdef WF_WGSL
	if ((pc.flags & WF_GPU_PUSH_CHECK_SUM) != 0u) {
		const uint t = gl_LocalInvocationID.x;
		WF_SUM_PARTIALS(pc.count, t)
		return;
	}
#endif
	// Invocation e of T takes particles e, e + T, ...: one, or for a large cloth several
	// (WF_GPU_CHECK_PER_THREAD_LARGE), so that the last workgroup has fewer partials to sum.
	const uint e = WfElement(), t = gl_LocalInvocationID.x, n = P.particleCount;
	const uint threads = pc.count;
	vec4 terms = vec4(0.0);
	for (uint i = e; e != 0xffffffffu && i < n; i += threads) {
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
		if (i == n / 2u)
			status.reference = vec4(x.xyz, 0.0);
		const vec4 x0 = backup[i];
		if ((P.flags & WF_GPU_FLAG_SPHERE) != 0u) {
			precise vec3 c0 = P.sphereCenter.xyz + S[0].sphereMotion.xyz;
			precise vec3 c1 = P.sphereCenter.xyz + S[pc.substep].sphereMotion.xyz;
			precise float r2 = P.contactBand.z * P.contactBand.z;
			precise float k = float(pc.substep + 1u);
			precise float n4 = 4.0 * k * k;
			if (WfTunnelled(x0.xyz, x.xyz, c0, c1, r2, n4))
				atomicMin(status.firstTunnelled, i);
		}
		terms += WfMotionTerms(x0, backup[floatBitsToUint(P.contactBand.w) + i].xyz, x.xyz, v.xyz);
	}

	// The workgroup's sum (WfGroupSum), its partial; the last workgroup to finish sums the partials.
	const vec4 sum = WfGroupSum(terms, t);
	const uint groups = (pc.count + WF_GPU_GROUP_SIZE - 1u) / WF_GPU_GROUP_SIZE;
	if (t == 0u) {
		const uint g = WfGroup();
		partials[g].sum0 = sum.x;
		partials[g].sum1 = sum.y;
		partials[g].sum2 = sum.z;
		partials[g].sum3 = sum.w;
#ifndef WF_WGSL
		memoryBarrierBuffer();
		// groupsDone starts at 0xffffffff: the last group to get here sees groups - 2.
		sLast = atomicAdd(status.groupsDone, 1u) + 2u == groups ? 1u : 0u;
#endif
	}
#ifndef WF_WGSL
	memoryBarrierShared();
	barrier();
	if (sLast == 0u)
		return;
	memoryBarrierBuffer();
	WF_SUM_PARTIALS(groups, t)
#endif
}
