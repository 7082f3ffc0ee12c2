#version 450
// The continuous point-triangle pass of self-collision (cpu_self.c PointTriangle), after the
// particle contacts have moved the particles: a particle that crossed the plane of a triangle of
// its cloth within the substep, inside the triangle at the time of the crossing, goes back to the
// side it came from, the contact distance off the end plane; the deepest crossing wins. Candidates:
// the triangles of the particles in the 5 x 5 x 5 cells around it (the hash of the particle
// contacts), visited in the CPU's order with its float operations: the same bits. The triangles
// at the particle, or at a copy of its particle of the untorn cloth, are skipped:
// WF_GPU_CONTACT_SOURCE says the cloth has torn and rank[] holds each particle's source (the
// recorder copies it there; the ranks are spent once the hash is sorted). Writes delta; the finish
// adds it.
#include "common.glsl"
#include "contact.glsl"

void main()
{
	const uint i = WfElement();
	if (i == 0xffffffffu)
		return;
	const bool torn = (pc.flags & WF_GPU_CONTACT_SOURCE) != 0u;
	const uint mask = pc.substep;
	const vec4 xi = pos[i], pi = prev[i];
	delta[i] = vec4(0.0);
	if (xi.w == 0.0)
		return;
	const uint si = torn ? cellRank[i] : i;
	const int cx = WfCellOf(xi.x, CP.invCell), cy = WfCellOf(xi.y, CP.invCell), cz = WfCellOf(xi.z, CP.invCell);
	const float d = CP.distance;
	float deepest = 0.0;
	for (int dz = -2; dz <= 2; ++dz)
		for (int dy = -2; dy <= 2; ++dy) {
			// A row's five cells at consecutive keys (none past the mask) list their particles in
			// one run of `sorted`: walked in one loop, the same particles in the same order.
			const uint k0 = WfCellKey(cx - 2, cy + dy, cz + dz, mask);
			const bool run = k0 + 4u <= mask;
			for (int dx = -2; dx <= (run ? -2 : 2); ++dx) {
				const uint k = run ? k0 : WfCellKey(cx + dx, cy + dy, cz + dz, mask);
				const uint end = cells[run ? k0 + 5u : k + 1u];
				for (uint e = cells[k]; e < end; ++e) {
					const uint j = sorted[e];
					for (int r = triStart[j]; r < triStart[j + 1u]; ++r) {
						const uint t0 = indices[3u * triList[r]], t1 = indices[3u * triList[r] + 1u],
								   t2 = indices[3u * triList[r] + 2u];
						if (i == t0 || i == t1 || i == t2)
							continue;
						if (torn && (cellRank[t0] == si || cellRank[t1] == si || cellRank[t2] == si))
							continue;
						const vec4 a0 = prev[t0], b0 = prev[t1], c0 = prev[t2];
						const vec4 a1 = pos[t0], b1 = pos[t1], c1 = pos[t2];
						// The planes at the start and the end of the substep, and the signed distances.
						precise float n0x = (b0.y - a0.y) * (c0.z - a0.z) - (b0.z - a0.z) * (c0.y - a0.y);
						precise float n0y = (b0.z - a0.z) * (c0.x - a0.x) - (b0.x - a0.x) * (c0.z - a0.z);
						precise float n0z = (b0.x - a0.x) * (c0.y - a0.y) - (b0.y - a0.y) * (c0.x - a0.x);
						precise float n1x = (b1.y - a1.y) * (c1.z - a1.z) - (b1.z - a1.z) * (c1.y - a1.y);
						precise float n1y = (b1.z - a1.z) * (c1.x - a1.x) - (b1.x - a1.x) * (c1.z - a1.z);
						precise float n1z = (b1.x - a1.x) * (c1.y - a1.y) - (b1.y - a1.y) * (c1.x - a1.x);
						precise float l0 = sqrt(n0x * n0x + n0y * n0y + n0z * n0z);
						precise float l1 = sqrt(n1x * n1x + n1y * n1y + n1z * n1z);
						if (!(l0 > 1e-12) || !(l1 > 1e-12))
							continue;
						precise float d0 = ((pi.x - a0.x) * n0x + (pi.y - a0.y) * n0y + (pi.z - a0.z) * n0z) / l0;
						precise float d1 = ((xi.x - a1.x) * n1x + (xi.y - a1.y) * n1y + (xi.z - a1.z) * n1z) / l1;
						if ((d0 > 0.0) == (d1 > 0.0) || d0 == 0.0)
							continue;
						// Where the distance crosses zero: the particle inside the triangle then?
						precise float s = d0 / (d0 - d1);
						precise float px = pi.x + s * (xi.x - pi.x), py = pi.y + s * (xi.y - pi.y), pz = pi.z + s * (xi.z - pi.z);
						precise float ax = a0.x + s * (a1.x - a0.x), ay = a0.y + s * (a1.y - a0.y), az = a0.z + s * (a1.z - a0.z);
						precise float ux = b0.x + s * (b1.x - b0.x) - ax, uy = b0.y + s * (b1.y - b0.y) - ay,
									  uz = b0.z + s * (b1.z - b0.z) - az;
						precise float vx = c0.x + s * (c1.x - c0.x) - ax, vy = c0.y + s * (c1.y - c0.y) - ay,
									  vz = c0.z + s * (c1.z - c0.z) - az;
						precise float wx = px - ax, wy = py - ay, wz = pz - az;
						precise float uu = ux * ux + uy * uy + uz * uz, uv = ux * vx + uy * vy + uz * vz,
									  vv = vx * vx + vy * vy + vz * vz;
						precise float wu = wx * ux + wy * uy + wz * uz, wv = wx * vx + wy * vy + wz * vz;
						precise float den = uu * vv - uv * uv;
						if (!(den > 0.0))
							continue;
						precise float beta = (vv * wu - uv * wv) / den, gamma = (uu * wv - uv * wu) / den;
						if (beta < 0.0 || gamma < 0.0 || beta + gamma > 1.0)
							continue;
						// Back to the side it came from, d off the end plane; the deepest crossing wins.
						if (abs(d1) <= deepest)
							continue;
						deepest = abs(d1);
						precise float back = (d0 > 0.0 ? d : -d) - d1;
						precise vec4 m = vec4(back * n1x / l1, back * n1y / l1, back * n1z / l1, 1.0);
						delta[i] = m;
					}
				}
			}
		}
}
