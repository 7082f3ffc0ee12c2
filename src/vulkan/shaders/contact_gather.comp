#version 450
// The contact pass's Jacobi gather (cpu_self.c wfCpuSelfCollide, wfCpuClothContacts): each
// particle sums its inverse-mass share of every overlap with a particle of the 27 cells around it
// (and Coulomb friction on the pair's motion of the substep), averages over its contacts and writes
// the push to delta; the particles move in a later pass. The cells are visited in the CPU's order
// (dz, dy, dx from -1 to 1, a key seen before skipped) and each cell's particles in ascending
// index, so each particle adds the same terms in the same order as the CPU: the same bits.
// Self-collision (a cloth's own particles, its set 0 bound): pairs closer than CP.exclude in the
// rest shape skipped. WF_GPU_CONTACT_WORLD (cloth against cloth): particles of the world's arrays,
// pairs of one cloth and pairs whose per-pair switch is off skipped.
// The WGSL build (WF_WGSL) gathers a cloth's own particles only (the page steps one cloth):
// without cloth against cloth's three arrays the module binds 7 storage buffers, within WebGPU's
// default 8 (10 with them).
#ifdef WF_WGSL
#define WF_GATHER_SELF_ONLY
#endif
#include "common.glsl"
#include "contact.glsl"

void main()
{
	const uint i = WfElement();
	if (i == 0xffffffffu)
		return;
#ifndef WF_GATHER_SELF_ONLY
	const bool world = (pc.flags & WF_GPU_CONTACT_WORLD) != 0u;
#else
	const bool world = false;
#endif
	const bool friction = (pc.flags & WF_GPU_CONTACT_FRICTION) != 0u;
	const uint mask = pc.substep;
	// Loads behind branches, not selects: the other mode's arrays are not this dispatch's size.
	vec4 xi, ri = vec4(0.0), pi = vec4(0.0), mi = vec4(0.0);
	uvec4 own = uvec4(0u); // cloth against cloth: the base, collisionGroup, collisionMask
	if (world) {
#ifndef WF_GATHER_SELF_ONLY
		xi = cx[i];
		own = owner[i];
		if (friction)
			mi = motion[i];
#endif
	} else {
		xi = pos[i];
		ri = rest[i];
		if (friction)
			pi = prev[i];
	}
	if (xi.w == 0.0) {
		delta[i] = vec4(0.0);
		return;
	}
	const float d = CP.distance;
	precise float d2 = d * d;
	precise float exclude2 = CP.exclude * CP.exclude;
	// The 27 cells' keys in the CPU's order (q = 9 (dz + 1) + 3 (dy + 1) + dx + 1); a key equal to
	// an earlier one is not visited again (two cells may share a key), as in the CPU's
	// deduplicated list. Unrolled, so the keys and the mask stay in registers.
	const int cx0 = WfCellOf(xi.x, CP.invCell), cy0 = WfCellOf(xi.y, CP.invCell), cz0 = WfCellOf(xi.z, CP.invCell);
	uint keys[27];
	[[unroll]] for (int q = 0; q < 27; ++q)
		keys[q] = WfCellKey(cx0 + q % 3 - 1, cy0 + (q / 3) % 3 - 1, cz0 + q / 9 - 1, mask);
	uint visit = 0u;
	[[unroll]] for (int q = 0; q < 27; ++q) {
		bool seen = false;
		[[unroll]] for (int r = 0; r < q; ++r)
			seen = seen || keys[r] == keys[q];
		visit |= seen ? 0u : 1u << q;
	}
	vec3 sum = vec3(0.0);
	int contacts = 0;
	// By rows of three cells (dx from -1 to 1). A row whose three keys follow each other and were
	// not seen before lists its particles in one run of `sorted` (the cells' lists are adjacent):
	// walked in one loop, the same particles in the same order.
	[[unroll]] for (int q = 0; q < 27; ++q) {
		const int q0 = q - q % 3;
		const uint k0 = keys[q0];
		const bool run = ((visit >> uint(q0)) & 7u) == 7u && keys[q0 + 1] == k0 + 1u && keys[q0 + 2] == k0 + 2u;
		if (run ? q != q0 : (visit & (1u << q)) == 0u)
			continue;
		const uint end = cells[run ? k0 + 3u : keys[q] + 1u];
		for (uint at = cells[keys[q]]; at < end; ++at) {
			const uint j = sorted[at];
			if (j == i)
				continue;
			vec4 xj;
			if (world) {
#ifndef WF_GATHER_SELF_ONLY
				const uvec4 oj = owner[j];
				if (oj.x == own.x)
					continue; // the same cloth: its self-collision's business
				// The pair's switch (wfClothDef.collisionGroup, collisionMask), symmetric.
				if ((own.y & oj.z) == 0u || (oj.y & own.z) == 0u)
					continue;
				xj = cx[j];
#endif
			} else {
				xj = pos[j];
			}
			precise float ex = xi.x - xj.x, ey = xi.y - xj.y, ez = xi.z - xj.z;
			precise float dist2 = ex * ex + ey * ey + ez * ez;
			if (dist2 >= d2)
				continue;
			if (!world) {
				// Neighbours along the cloth: close in the rest shape.
				const vec4 rj = rest[j];
				precise float rx = ri.x - rj.x, ry = ri.y - rj.y, rz = ri.z - rj.z;
				precise float r2 = rx * rx + ry * ry + rz * rz;
				if (r2 < exclude2)
					continue;
			}
			precise float dist = sqrt(dist2);
			if (!(dist > 1e-9))
				continue;
			precise vec3 m = vec3(0.0);
			if (friction && world) {
#ifndef WF_GATHER_SELF_ONLY
				const vec4 mj = motion[j];
				m = vec3(mi.x - mj.x, mi.y - mj.y, mi.z - mj.z);
#endif
			} else if (friction) {
				const vec4 pj = prev[j];
				m = vec3((xi.x - pi.x) - (xj.x - pj.x), (xi.y - pi.y) - (xj.y - pj.y), (xi.z - pi.z) - (xj.z - pj.z));
			}
			precise float share = xi.w / (xi.w + xj.w);
			WfPairPush(ex, ey, ez, dist, CP.distance, share, friction, CP.friction, m, sum);
			contacts++;
		}
	}
	if (contacts > 0) {
		const float c = float(contacts);
		precise vec4 push = vec4(sum.x / c, sum.y / c, sum.z / c, 1.0);
		delta[i] = push;
	} else {
		delta[i] = vec4(0.0);
	}
}
