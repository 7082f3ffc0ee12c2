#version 450
// springs_tiled.comp (src/vulkan/shaders) without its neighbour gathers, for measurement only: a
// build with cmake -DWEFT_TILE_PROBE=1 (bench/gpu/probes.cmake) embeds it in place of the kernel,
// which then no longer simulates; what is left is the tiled design's floor (dispatches, the
// region's load and write-back, the substeps' barriers, each particle's own update). A copy of the
// kernel with WF_TILE_PROBE's one line: with WF_TILE_PROBE 0 it gives the kernel's SPIR-V word for
// word, which every probe build checks; when the kernel changes, copy it here again.
#ifndef WF_TILE_PROBE
#error WF_TILE_PROBE: 1 (no gathers) or 0 (the kernel) (bench/gpu/probes.cmake)
#endif
#define WF_OWN_GROUP_SIZE 1
#define WF_SUBSTEP_SHARED WF_GPU_TILE_HALO
#include "common.glsl"
#define WF_TILE_HALO WF_GPU_TILE_HALO
#include "tiled.glsl"

shared vec4 sX[kSide * kSide]; // position, w inverse mass
shared vec4 sV[kSide * kSide]; // velocity

void main()
{
	const WfRegion r = WfRegionOf(int(pc.first));
	const int l = r.l, gx = r.gx;
	const bool inside = r.inside;
	const uint i = r.i;
	// The neighbours as region slots (-1: outside the region) and their rest lengths, in adjacency order.
	int nb[WF_GPU_GATHER_WIDE];
	float rest[WF_GPU_GATHER_WIDE];
	int degree = 0;
	if (l < int(pc.count))
		sSubstep[l] = S[pc.substep + uint(l)];
	if (inside) {
		sX[l] = pos[i];
		sV[l] = vel[i];
		int first = adjStart[i];
		degree = adjStart[i + 1u] - first;
		[[unroll]] for (int b = 0; b < WF_GPU_GATHER_WIDE; ++b) {
			nb[b] = -1;
			rest[b] = 0.0;
			if (b < degree) {
				nb[b] = WfRegionSlot(r, adjOther[first + b]);
				rest[b] = WfRest(adjConstraint[first + b]);
			}
		}
	}
	barrier();
#if WF_TILE_PROBE
	degree = 0; // no gathers: the tiles' floor
#endif
	float mass = P.mass, k2 = P.stiffness, damping = P.springDamping, h = P.h;
	// After substep k only rings k + 1 and further in are exact, so the outer ones are left alone
	// (the tile needs none of them later).
	for (uint k = 0u; k < pc.count; ++k) {
		uint substep = pc.substep + k;
		const bool live = inside && r.ring > int(k);
		vec4 nx = vec4(0.0), nv = vec4(0.0);
		if (live) {
			vec4 xi = sX[l], vi = sV[l];
			if (xi.w == 0.0) {
				nx = int(i) == P.grabIndex ? vec4(P.grabTarget.xyz, 0.0) : xi;
			} else {
				precise vec3 a = WfExternalAccel(substep, uint(gx), xi.w);
				precise float fx = mass * a.x, fy = mass * a.y, fz = mass * a.z;
				[[unroll]] for (int b = 0; b < WF_GPU_GATHER_WIDE; ++b) {
					if (b >= degree)
						break;
					if (nb[b] < 0)
						continue;
					vec4 xj = sX[nb[b]], vj = sV[nb[b]];
					precise float dx = xj.x - xi.x, dy = xj.y - xi.y, dz = xj.z - xi.z;
					precise float len = sqrt(dx * dx + dy * dy + dz * dz);
					if (len < WF_MIN_LENGTH)
						continue;
					dx /= len;
					dy /= len;
					dz /= len;
					precise float spring = k2 * (len - rest[b]);
					precise float damper = damping * ((vj.x - vi.x) * dx + (vj.y - vi.y) * dy + (vj.z - vi.z) * dz);
					fx += (spring + damper) * dx;
					fy += (spring + damper) * dy;
					fz += (spring + damper) * dz;
				}
				precise vec4 v = vec4(vi.x + h * fx * xi.w, vi.y + h * fy * xi.w, vi.z + h * fz * xi.w, 0.0);
				precise vec4 x = vec4(xi.x + h * v.x, xi.y + h * v.y, xi.z + h * v.z, xi.w);
				WfCollide(x, v, substep);
				nx = x;
				nv = v;
			}
		}
		barrier();
		if (live) {
			sX[l] = nx;
			sV[l] = nv;
		}
		barrier();
	}
	// The tile to the other buffers of the pair.
	if (WfInTile(r)) {
		posAlt[i] = sX[l];
		velAlt[i] = sV[l];
	}
}
