// The fused kernel's entry point (fused.glsl): the frame start, the solver's substeps (Substep),
// the frame end, the normals and the frame check.

void main()
{
	uint t = gl_LocalInvocationID.x;
	uint n = P.particleCount;
	[[unroll]] for (uint a = 0u; a < WF_GPU_SLOT_COUNT; ++a)
		gAt[a] = slotsRO[gl_WorkGroupID.x].at[a];
	gShared = (gAt[WF_GPU_SLOT_FLAGS] & WF_GPU_PUSH_SHARED) != 0u;
	gInvMass = uintBitsToFloat(gAt[WF_GPU_SLOT_INV_MASS]);
	for (uint w = t; w < WF_GPU_FUSED_MAX_PARTICLES / 32u; w += kGroup)
		sFree[w] = 0u;
	if (t == 0u)
		sBinary = 1u;
	for (uint c = t; c <= WF_GPU_FUSED_MAX_COLORS; c += kGroup)
		sColorStart[c] = P.colorStart[c];
	memoryBarrierShared();
	barrier();
	uint substeps = pc.count, iterations = pc.first;

	// Frame start: owned particles into registers, positions into shared memory, the state into
	// the backup (the host restores it if the frame goes bad) and the frame check reset: done here
	// rather than by transfer commands, which would cost several per cloth and frame.
	if (t == 0u) {
		STATUS_NON_FINITE = 0xffffffffu;
		STATUS_UNSTABLE = 0xffffffffu;
		STATUS_UNSTABLE_CONTACT = 0xffffffffu;
		STATUS_TUNNELLED = 0xffffffffu;
	}
	[[unroll]] for (uint j = 0u; j < kPer; ++j) {
		uint i = t + j * kGroup;
		gV[j] = vec3(0.0);
		gPrev[j] = vec3(0.0);
		gW[j] = 0.0;
		if (i >= n)
			continue;
		vec4 x = POS(i), v = VEL(i);
		BACKUP_POS(i) = x;
		BACKUP_VEL(i) = v;
		gW[j] = x.w;
		gV[j] = v.xyz;
		if (x.w != 0.0)
			atomicOr(sFree[i >> 5], 1u << (i & 31u));
		if (x.w != 0.0 && x.w != gInvMass)
			atomicAnd(sBinary, 0u);
		// The frame start's re-centring (predict.comp with WF_GPU_PUSH_SHIFT), after the backup.
		precise vec3 y = x.xyz - P.shift.xyz;
		StoreX(i, y);
	}
	memoryBarrierShared();
	memoryBarrierBuffer(); // the status reset before any invocation's atomics at the end
	barrier();
	gBinary = sBinary != 0u;
#ifdef WF_FUSED_XPBD
	if (!kMoves)
		FindEnds();
#endif

	// How many substeps ran, for the host (status.reference.w): a driver may end a long loop early.
	uint ran = 0u;
	for (; ran < substeps; ++ran)
		Substep(ran, iterations);

	// Frame end: the state back to the buffers (springs wrote the velocities already).
	[[unroll]] for (uint j = 0u; j < kPer; ++j) {
		uint i = t + j * kGroup;
		if (i >= n)
			break;
		if (gShared)
			POS(i) = vec4(LoadX(i), gW[j]);
		VEL(i) = vec4(gV[j], 0.0);
	}
	StateBarrier();

	// normals.comp and check.comp for the owned particles, with check.comp's motion tests against
	// the backup (the sphere's centre after the first and the last substep for the tunnelling test).
	const bool sphere = (P.flags & WF_GPU_FLAG_SPHERE) != 0u;
	precise vec3 c0 = P.sphereCenter.xyz + S[0].sphereMotion.xyz;
	precise vec3 c1 = P.sphereCenter.xyz + S[substeps - 1u].sphereMotion.xyz;
	precise float r2 = P.contactBand.z * P.contactBand.z;
	precise float k = float(substeps);
	precise float n4 = 4.0 * k * k;
	vec4 motion = vec4(0.0);
	[[unroll]] for (uint j = 0u; j < kPer; ++j) {
		uint i = t + j * kGroup;
		if (i >= n)
			break;
		precise float sx = 0.0, sy = 0.0, sz = 0.0;
		int end = TRI_START(i + 1u);
		for (int e = TRI_START(i); e < end; ++e) {
			uint tri = TRI_LIST(e);
			vec3 p0 = LoadX(INDEX(3u * tri)), p1 = LoadX(INDEX(3u * tri + 1u)), p2 = LoadX(INDEX(3u * tri + 2u));
			precise float ax = p1.x - p0.x, ay = p1.y - p0.y, az = p1.z - p0.z;
			precise float bx = p2.x - p0.x, by = p2.y - p0.y, bz = p2.z - p0.z;
			sx += ay * bz - az * by;
			sy += az * bx - ax * bz;
			sz += ax * by - ay * bx;
		}
		precise float len = sqrt(sx * sx + sy * sy + sz * sz);
		precise vec4 nrm = vec4(0.0, 1.0, 0.0, 0.0);
		if (len > WF_MIN_NORMAL_LENGTH)
			nrm = vec4(sx / len, sy / len, sz / len, 0.0);
		NORMAL(i) = nrm;

		vec3 x = LoadX(i), v = gV[j];
		precise float sum = x.x + x.y + x.z + v.x + v.y + v.z;
		if ((floatBitsToUint(sum) & 0x7f800000u) == 0x7f800000u)
			atomicMin(STATUS_NON_FINITE, i);
		else if (WfTooFast(v)) {
			atomicMin(STATUS_UNSTABLE, i);
			if (WfInContact(x, substeps - 1u))
				atomicMin(STATUS_UNSTABLE_CONTACT, i);
		}
		const vec4 x0 = BACKUP_POS(i);
		if (sphere && WfTunnelled(x0.xyz, x, c0, c1, r2, n4))
			atomicMin(STATUS_TUNNELLED, i);
		motion += WfMotionTerms(x0, BACKUP_VEL(i).xyz, x, v);
	}
	// The energy pre-test's sums over the workgroup in the positions' shared memory, free once every
	// invocation is past the normals (each invocation owns an entry: the arrays hold 4 per
	// invocation): 32 partial sums, then invocation 0's; the free particles counted in sBinary (read
	// into gBinary at the frame start).
	const vec3 reference = LoadX(n / 2u);
	memoryBarrierShared();
	barrier();
	sXY[t] = motion.xy;
	sZ[t] = motion.z;
	if (t == 0u)
		sBinary = 0u;
	memoryBarrierShared();
	barrier();
	atomicAdd(sBinary, uint(motion.w));
	const uint per = kGroup / 32u;
	vec3 part = vec3(0.0);
	if (t < 32u) {
		for (uint e = t * per; e < t * per + per; ++e)
			part += vec3(sXY[e], sZ[e]);
	}
	barrier();
	if (t < 32u) {
		sXY[t] = part.xy;
		sZ[t] = part.z;
	}
	// The frame check to the host-visible slot (atomics return the final values).
	memoryBarrierShared();
	memoryBarrierBuffer();
	barrier();
	if (t == 0u) {
		vec3 sum = vec3(0.0);
		for (uint e = 0u; e < min(32u, kGroup); ++e)
			sum += vec3(sXY[e], sZ[e]);
		statusOut[gl_WorkGroupID.x].firstNonFinite = atomicOr(STATUS_NON_FINITE, 0u);
		statusOut[gl_WorkGroupID.x].firstUnstable = atomicOr(STATUS_UNSTABLE, 0u);
		statusOut[gl_WorkGroupID.x].firstUnstableInContact = atomicOr(STATUS_UNSTABLE_CONTACT, 0u);
		statusOut[gl_WorkGroupID.x].firstTunnelled = atomicOr(STATUS_TUNNELLED, 0u);
		statusOut[gl_WorkGroupID.x].reference = vec4(reference, float(ran));
		statusOut[gl_WorkGroupID.x].energy = vec4(sum, float(sBinary));
	}
}
