#version 450
// Explicit mass-springs, up to WF_GPU_TILE_HALO substeps in one dispatch (temporal blocking). Each
// workgroup owns a WF_GPU_TILE x WF_GPU_TILE tile of the grid and loads the region WF_GPU_TILE_HALO
// rings wider into shared memory; every substep each region particle that can still be exact is
// advanced from its neighbours' previous values, exactly as springs.comp does it (the same
// expressions in the same order, all `precise`). A substep carries information one grid step (a
// grid cloth's springs join the 8 neighbours), so after k substeps every particle at least k rings
// inside the region is what the dispatch per substep would give; the tile, WF_GPU_TILE_HALO rings
// in, is written to the pair's other buffers. Neighbours outside the region are skipped: they only
// affect particles whose values are never written. The substeps' records (gravity and wind, the
// sphere's motion) are copied into shared memory first, so that no substep waits on a load from the
// cache for them. H200, compute-cloth 60x60: 13 dispatches, 0.162 ms a frame against 67 and
// 0.333 ms (docs/PERFORMANCE.md).
//
// pc.substep: the first substep; pc.count: substeps (<= WF_GPU_TILE_HALO); pc.first: tiles per row.
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
