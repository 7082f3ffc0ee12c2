// wfCpuTethers for particle i at x (predict.comp's WF_GPU_PUSH_TETHER, tether_keys.comp): back
// within the limit of its anchor (pinned at creation, so never moved here); returns where it is.
vec4 WfTether(uint i, vec4 x)
{
	const uvec4 t = con[P.tetherBase + i];
	if (t.y == 0xffffffffu || x.w == 0.0)
		return x;
	const vec4 q = pos[t.y];
	const float limit = uintBitsToFloat(t.z);
	precise float dx = x.x - q.x, dy = x.y - q.y, dz = x.z - q.z;
	precise float d2 = dx * dx + dy * dy + dz * dz;
	if (d2 <= limit * limit)
		return x;
	precise float d = sqrt(d2), s = limit / d;
	precise vec4 y = vec4(q.x + dx * s, q.y + dy * s, q.z + dz * s, x.w);
	pos[i] = y;
	if ((pc.flags & WF_GPU_PUSH_TETHER_VEL) == 0u) {
		// XPBD, Jacobi: the move into the substep's velocity (wfCpuMoved).
		if (kMoves) {
			vec4 v = vel[i];
			WfMoved(v, y.xyz - x.xyz, P.invH);
			vel[i] = v;
		}
	} else {
		precise float nx = dx / d, ny = dy / d, nz = dz / d;
		const vec4 v = vel[i];
		precise float vn = v.x * nx + v.y * ny + v.z * nz;
		if (vn > 0.0) {
			precise vec4 u = vec4(v.x - vn * nx, v.y - vn * ny, v.z - vn * nz, 0.0);
			vel[i] = u;
		}
	}
	return y;
}
