#version 450
// Frame check (wfCheckFrame in frame.c): records the first particle with a non-finite value and
// the first moving faster than maxSpeed; the host compares them as the CPU's ordered scan would.
// The reference particle's position goes along for the next frame's re-centring.
// With them the motion tests over the frame-start state (the backup): the first particle that
// passed through the sphere (wfTunnelled), and the energy rule's sums (wfMotionSumsCompute).
// Dispatched over max(particles, constraints) elements: element k is particle k and constraint k.
// pc.flags: the constraint count, the solver (wfSolverType) in bits 30 and 31.
#include "common.glsl"

shared vec4 sSum[WF_VK_GROUP_SIZE]; // gain, kinetic, free, release

void main()
{
	uint i = WfElement();
	const uint constraints = pc.flags & 0x3fffffffu, solver = pc.flags >> 30;
	vec4 terms = vec4(0.0);
	float release = 0.0;
	if (i != 0xffffffffu && i < P.particleCount) {
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
		// The frame start in this frame's local coordinates (the backup precedes the shift).
		vec4 b = backup[i];
		precise vec3 x0 = b.xyz - P.shift.xyz;
		if ((P.flags & WF_VK_FLAG_SPHERE) != 0u) {
			precise vec3 c0 = P.sphereCenter.xyz + S[0].sphereMotion.xyz;
			precise vec3 c1 = P.sphereCenter.xyz + S[pc.substep].sphereMotion.xyz;
			if (WfTunnelled(P.contactBand.z, pc.substep + 1u, c0, c1, x0, x.xyz))
				atomicMin(status.firstTunnelled, i);
		}
		terms = WfMotionTerms(vec4(x0, b.w), backup[floatBitsToUint(P.contactBand.w) + i], x.xyz, v.xyz);
		if (b.w != 0.0)
			release = WfPushRelease(P.sphereCenter.xyz + S[0].sphereMotion.xyz, vec4(x0, b.w));
		atomicMin(status.speed2, ~floatBitsToUint(terms.w));
	}
	if (i != 0xffffffffu && i < constraints) {
		uvec4 c = con[i];
		float alphaTilde = solver == 0u ? P.alphaTilde[c.w] : 0.0;
		release += WfRelease(backup[c.x], backup[c.y], uintBitsToFloat(c.z), alphaTilde, solver == 2u);
	}

	// The workgroup's sums, then its partial; the last workgroup to finish sums the partials in order.
	const uint t = gl_LocalInvocationID.x;
	sSum[t] = vec4(terms.xyz, release);
	memoryBarrierShared();
	barrier();
	for (uint half_ = WF_VK_GROUP_SIZE / 2u; half_ > 0u; half_ >>= 1u) {
		if (t < half_)
			sSum[t] += sSum[t + half_];
		memoryBarrierShared();
		barrier();
	}
	const uint groups = (pc.count + WF_VK_GROUP_SIZE - 1u) / WF_VK_GROUP_SIZE;
	const uint g = WfGroup();
	if (t == 0u) {
		partials[g].sum0 = sSum[0].x;
		partials[g].sum1 = sSum[0].y;
		partials[g].sum2 = sSum[0].z;
		partials[g].sum3 = sSum[0].w;
		memoryBarrierBuffer();
		// groupsDone starts at 0xffffffff: the last group sees groups - 2.
		sSum[0].x = (atomicAdd(status.groupsDone, 1u) + 2u == groups) ? 1.0 : 0.0;
	}
	memoryBarrierShared();
	barrier();
	if (sSum[0].x == 0.0)
		return;
	memoryBarrierBuffer();
	vec4 total = vec4(0.0);
	for (uint k = t; k < groups; k += WF_VK_GROUP_SIZE)
		total += vec4(partials[k].sum0, partials[k].sum1, partials[k].sum2, partials[k].sum3);
	barrier();
	sSum[t] = total;
	memoryBarrierShared();
	barrier();
	for (uint half_ = WF_VK_GROUP_SIZE / 2u; half_ > 0u; half_ >>= 1u) {
		if (t < half_)
			sSum[t] += sSum[t + half_];
		memoryBarrierShared();
		barrier();
	}
	if (t == 0u)
		status.energy = vec4(sSum[0].x, sSum[0].y, sSum[0].w, sSum[0].z);
}
