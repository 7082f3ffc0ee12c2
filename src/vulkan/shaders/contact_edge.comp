#version 450
// The continuous edge-edge pass of self-collision (cpu_self.c EdgeEdge), after the point-triangle
// pass (or the particle contacts) has moved the particles: two edges of the cloth's triangles whose
// lines' signed distance along e x f changed sign within the substep (the normal not flipped), the
// lines' closest points inside both edges at the interpolated crossing time, go back to the contact
// distance apart along the end normal; each particle takes its share of its deepest crossing.
// Candidates: the edges of the particles in the 5 x 5 x 5 cells around it (an edge with both ends
// read by the walk from its lower end), visited in the CPU's order with its float operations: the
// same bits.
// The edges at a particle: the model's partner rows, uploaded after the triangle rows.
// WF_GPU_CONTACT_SOURCE: the cloth has torn and rank[] holds each particle's source (as in
// contact_triangle.comp). Writes delta; the finish adds it.
#include "common.glsl"
#include "contact.glsl"

// Particle i's edge partners, each once, in EdgePartners' order: row i of the model's partner rows
// (wfClothModel.partnerStart, partnerList), after the triangle rows in the same binding
// (kernel_abi.h WF_GPU_BIND_TRI_START); their entries index that array.
uint WfPartnerBegin(uint i) { return uint(triStart[P.particleCount + 1u + i]); }
uint WfPartnerEnd(uint i) { return uint(triStart[P.particleCount + 2u + i]); }
uint WfPartner(uint e) { return uint(triStart[e]); }

// The box that the edge from a0, b0 (substep start) to a1, b1 (its end) sweeps (SweptBox).
void WfSweptBox(vec4 a0, vec4 b0, vec4 a1, vec4 b1, out vec3 lo, out vec3 hi)
{
	lo = vec3(min(min(a0.x, b0.x), min(a1.x, b1.x)), min(min(a0.y, b0.y), min(a1.y, b1.y)), min(min(a0.z, b0.z), min(a1.z, b1.z)));
	hi = vec3(max(max(a0.x, b0.x), max(a1.x, b1.x)), max(max(a0.y, b0.y), max(a1.y, b1.y)), max(max(a0.z, b0.z), max(a1.z, b1.z)));
}

bool WfApart(vec3 lo, vec3 hi, vec3 flo, vec3 fhi)
{
	return fhi.x < lo.x || flo.x > hi.x || fhi.y < lo.y || flo.y > hi.y || fhi.z < lo.z || flo.z > hi.z;
}

void main()
{
	const uint i = WfElement();
	if (i == 0xffffffffu)
		return;
	const bool torn = (pc.flags & WF_GPU_CONTACT_SOURCE) != 0u;
	const uint mask = pc.substep;
	const vec4 a0 = prev[i], a1 = pos[i];
	delta[i] = vec4(0.0);
	if (a1.w == 0.0)
		return;
	// Particle i's edges and the boxes they sweep, and the box of them all.
	uint partner[WF_MAX_EDGE_PARTNERS];
	const int partners = int(WfPartnerEnd(i) - WfPartnerBegin(i));
	for (int q = 0; q < partners; ++q)
		partner[q] = WfPartner(WfPartnerBegin(i) + uint(q));
	vec3 elo[WF_MAX_EDGE_PARTNERS], ehi[WF_MAX_EDGE_PARTNERS];
#ifndef WF_WGSL
	const float inf = uintBitsToFloat(0x7f800000u);
#else
	// WGSL has no infinity (a constant expression of one is an error, and a kernel may assume none
	// at run time): the largest float, the same box for finite positions.
	const float inf = WF_FLOAT_MAX;
#endif
	vec3 lo = vec3(inf), hi = vec3(-inf);
	for (int q = 0; q < partners; ++q) {
		WfSweptBox(a0, prev[partner[q]], a1, pos[partner[q]], elo[q], ehi[q]);
		lo = min(lo, elo[q]);
		hi = max(hi, ehi[q]);
	}
	const uint si = torn ? cellRank[i] : i;
	const int cx = WfCellOf(a1.x, CP.invCell), cy = WfCellOf(a1.y, CP.invCell), cz = WfCellOf(a1.z, CP.invCell);
	const float d = CP.distance;
	float deepest = 0.0;
	for (int dz = -2; dz <= 2; ++dz)
		for (int dy = -2; dy <= 2; ++dy) {
			// A row's five cells at consecutive keys (none past the mask) list their particles in
			// one run of `sorted`: walked in one loop, the same particles in the same order.
			const uint k0 = WfCellKey(cx - 2, cy + dy, cz + dz, mask);
			const bool run = k0 + 4u <= mask;
			for (int dx = -2; dx <= (run ? -2 : 2); ++dx) {
				const uint key = run ? k0 : WfCellKey(cx + dx, cy + dy, cz + dz, mask);
				const uint end = cells[run ? k0 + 5u : key + 1u];
				for (uint e = cells[key]; e < end; ++e) {
					const uint j = sorted[e];
					const uint sj = torn ? cellRank[j] : j;
					if (sj == si)
						continue;
					const uint others = WfPartnerEnd(j);
					for (uint r = WfPartnerBegin(j); r < others; ++r) {
						const uint g = WfPartner(r);
						const uint sg = torn ? cellRank[g] : g;
						if (sg == si)
							continue;
						const vec4 c0 = prev[j], g0 = prev[g], c1 = pos[j], g1 = pos[g];
						vec3 flo, fhi;
						WfSweptBox(c0, g0, c1, g1, flo, fhi);
						if (WfApart(lo, hi, flo, fhi))
							continue; // apart from all of i's edges all the substep
						// An edge with both ends read by the walk is visited from its lower end only.
						if (g < j && WfWalked(g, g1, cx, cy, cz, mask))
							continue;
						precise float f0x = g0.x - c0.x, f0y = g0.y - c0.y, f0z = g0.z - c0.z;
						precise float f1x = g1.x - c1.x, f1y = g1.y - c1.y, f1z = g1.z - c1.z;
						for (int q = 0; q < partners; ++q) {
							const uint o = partner[q];
							const uint so = torn ? cellRank[o] : o;
							if (sj == so || sg == so)
								continue;
							if (WfApart(elo[q], ehi[q], flo, fhi))
								continue;
							const vec4 b0 = prev[o], b1 = pos[o];
							// The lines' normals and signed distances at the start and the end.
							precise float e0x = b0.x - a0.x, e0y = b0.y - a0.y, e0z = b0.z - a0.z;
							precise float e1x = b1.x - a1.x, e1y = b1.y - a1.y, e1z = b1.z - a1.z;
							precise float n0x = e0y * f0z - e0z * f0y, n0y = e0z * f0x - e0x * f0z, n0z = e0x * f0y - e0y * f0x;
							precise float n1x = e1y * f1z - e1z * f1y, n1y = e1z * f1x - e1x * f1z, n1z = e1x * f1y - e1y * f1x;
							precise float v0n = (a0.x - c0.x) * n0x + (a0.y - c0.y) * n0y + (a0.z - c0.z) * n0z;
							precise float v1n = (a1.x - c1.x) * n1x + (a1.y - c1.y) * n1y + (a1.z - c1.z) * n1z;
							precise float flip = n0x * n1x + n0y * n1y + n0z * n1z;
							if ((v0n > 0.0) == (v1n > 0.0) || v0n == 0.0 || !(flip > 0.0))
								continue; // no change of side (the lengths are positive), or the normal flipped
							precise float l0 = sqrt(n0x * n0x + n0y * n0y + n0z * n0z);
							precise float l1 = sqrt(n1x * n1x + n1y * n1y + n1z * n1z);
							if (!(l0 > 1e-12) || !(l1 > 1e-12))
								continue;
							precise float v0 = v0n / l0, v1 = v1n / l1;
							// The edges at the crossing's time: their lines' closest points inside both?
							precise float s = v0 / (v0 - v1);
							precise float ex = e0x + s * (e1x - e0x), ey = e0y + s * (e1y - e0y), ez = e0z + s * (e1z - e0z);
							precise float fx = f0x + s * (f1x - f0x), fy = f0y + s * (f1y - f0y), fz = f0z + s * (f1z - f0z);
							precise float rx = a0.x + s * (a1.x - a0.x) - (c0.x + s * (c1.x - c0.x));
							precise float ry = a0.y + s * (a1.y - a0.y) - (c0.y + s * (c1.y - c0.y));
							precise float rz = a0.z + s * (a1.z - a0.z) - (c0.z + s * (c1.z - c0.z));
							precise float ee = ex * ex + ey * ey + ez * ez, ff = fx * fx + fy * fy + fz * fz;
							precise float ef = ex * fx + ey * fy + ez * fz, er = ex * rx + ey * ry + ez * rz, fr = fx * rx + fy * ry + fz * rz;
							precise float den = ee * ff - ef * ef;
							precise float least = 1e-6 * ee * ff;
							if (!(den > least))
								continue;
							precise float u = (ef * fr - ff * er) / den, w = (ee * fr - ef * er) / den;
							if (!(u > 0.0 && u < 1.0 && w > 0.0 && w < 1.0))
								continue;
							// Back to the side it came from, d apart along the end normal; the deepest wins.
							if (abs(v1) <= deepest)
								continue;
							precise float weight = a1.w * (1.0 - u) * (1.0 - u) + b1.w * u * u + c1.w * (1.0 - w) * (1.0 - w) + g1.w * w * w;
							if (!(weight > 0.0))
								continue;
							deepest = abs(v1);
							precise float lambda = ((v0 > 0.0 ? d : -d) - v1) / weight;
							precise float share = a1.w * (1.0 - u) * lambda / l1;
							precise vec4 m = vec4(share * n1x, share * n1y, share * n1z, 1.0);
							delta[i] = m;
						}
					}
				}
			}
		}
}
