#version 450
// Small-step PBD with averaged Jacobi sweeps, several whole substeps in one dispatch (temporal
// blocking, as springs_tiled.comp). Each workgroup owns a WF_GPU_TILE x WF_GPU_TILE tile of the grid
// and holds the positions of the region WF_GPU_TILE_JACOBI_HALO rings wider in shared memory; its
// invocations keep their particle's velocity and substep-start position in registers. Per
// substep: predict.comp, pc.first sweeps of jacobi_sweep.comp (each from the positions before it,
// each move also into the velocity) and finish.comp, for each region particle that can still be exact, with the same expressions in
// the same order (`precise`). A sweep carries information `reach` grid steps (2 with bending
// springs), predict and finish none, so after q sweeps every particle at least q reach rings inside
// the region is what the dispatches per stage would give; the tile is written to the pair's other
// buffers (positions, velocities, and the last substep's start positions into prev). H200,
// spring-mesh 56x56: 7 dispatches, 0.070 ms a frame against 35 and 0.147 ms (docs/PERFORMANCE.md).
// The positions are held twice: a sweep reads one copy and writes the other, and predict and
// finish touch only the invocation's own slot, so a substep of q sweeps needs q barriers (the one
// after predict and one between sweeps), not 2 q + 2. Each invocation keeps its constraints' rest
// lengths and weights in registers and loads its neighbours six at a time.
//
// pc.substep: the first substep; pc.count: substeps; pc.first: sweeps per substep; pc.flags: tiles
// per row (low 16 bits) and the reach (high 16 bits).
#define WF_OWN_GROUP_SIZE 1
#include "common.glsl"
#define WF_TILE_HALO WF_GPU_TILE_JACOBI_HALO
#include "tiled.glsl"

const int kSlots = kSide * kSide;
shared vec4 sX[2 * kSlots]; // position, w inverse mass: two copies of the region

// Neighbours loaded at once, before any is used, so that their loads overlap (H200, spring-mesh
// 56x56: batches of 3, 4, 6 and 12 took 0.0705, 0.0701, 0.0698 and 0.0734 ms, one at a time 0.0718).
const int kBatch = 6;

void main()
{
	const WfRegion r = WfRegionOf(int(pc.flags & 0xffffu));
	const int reach = int(pc.flags >> 16);
	const int l = r.l, gx = r.gx, ring = r.ring;
	const bool inside = r.inside;
	const uint i = r.i;
	// The neighbours as region slots (-1: outside the region), their constraints' weights and rest
	// lengths, in adjacency order.
	int nb[WF_GPU_TILE_JACOBI_DEGREE];
	float weight[WF_GPU_TILE_JACOBI_DEGREE], rest[WF_GPU_TILE_JACOBI_DEGREE];
	int degree = 0;
	vec4 v = vec4(0.0), p = vec4(0.0);
	if (inside) {
		sX[l] = pos[i];
		v = vel[i];
		const int first = adjStart[i];
		degree = adjStart[i + 1u] - first;
		[[unroll]] for (int b = 0; b < WF_GPU_TILE_JACOBI_DEGREE; ++b) {
			nb[b] = -1;
			weight[b] = 0.0;
			rest[b] = 0.0;
			if (b < degree) {
				const uint kc = adjConstraint[first + b];
				nb[b] = WfRegionSlot(r, adjOther[first + b]);
				weight[b] = jacobiWeight[kc];
				rest[b] = WfRest(kc);
			}
		}
	}
	const bool byDegree = (P.flags & WF_GPU_FLAG_JACOBI_DEGREE) != 0u;
	const bool collide = (P.flags & (WF_GPU_FLAG_SPHERE | WF_GPU_FLAG_FLOOR)) != 0u || P.shapeCount > 0u;
	const float h = P.h, f = kMoves ? P.velScale : P.velFactor;
	const uint sweeps = pc.first;
	int done = 0; // sweeps so far: rings done * reach and further in are exact
	// The copy holding the positions. A particle live at sweep d reads neighbours live at sweep
	// d - 1 (or predicted), whose values are in that copy; a sweep writes the other copy, which no
	// invocation reads again before the next barrier.
	int cur = 0;
	for (uint k = 0u; k < pc.count; ++k) {
		uint substep = pc.substep + k;
		// predict.comp (undamped)
		if (inside && ring >= done * reach) {
			vec4 x = sX[cur + l];
			p = x;
			if (x.w == 0.0) {
				if (int(i) == P.grabIndex)
					sX[cur + l] = vec4(P.grabTarget.xyz, x.w);
			} else {
				precise vec3 a = WfExternalAccel(substep, uint(gx), x.w);
				precise vec4 u = v;
				u.x += h * a.x;
				u.y += h * a.y;
				u.z += h * a.z;
				v = u;
				precise vec4 y = vec4(x.x + h * v.x, x.y + h * v.y, x.z + h * v.z, x.w);
				sX[cur + l] = y;
			}
		}
		barrier();
		for (uint it = 0u; it < sweeps; ++it) {
			++done;
			const bool live = inside && ring >= done * reach;
			if (live) {
				// jacobi_sweep.comp
				vec4 xi = sX[cur + l];
				vec4 y = xi;
				if (xi.w != 0.0) {
					precise float cx = 0.0, cy = 0.0, cz = 0.0;
					[[unroll]] for (int b0 = 0; b0 < WF_GPU_TILE_JACOBI_DEGREE; b0 += kBatch) {
						if (b0 >= degree)
							break;
						// A neighbour outside the region reads its copy's slot 0 and is skipped.
						vec4 xs[kBatch];
						[[unroll]] for (int e = 0; e < kBatch; ++e)
							xs[e] = sX[cur + max(nb[b0 + e], 0)];
						[[unroll]] for (int e = 0; e < kBatch; ++e) {
							const int b = b0 + e;
							if (b >= degree || nb[b] < 0)
								continue;
							vec4 xj = xs[e];
							precise float dx = xj.x - xi.x, dy = xj.y - xi.y, dz = xj.z - xi.z;
							precise float len = sqrt(dx * dx + dy * dy + dz * dz);
							if (len < WF_MIN_LENGTH)
								continue;
							precise float fw = byDegree ? 1.0 : 2.0 * xi.w / (xi.w + xj.w);
							precise float g = weight[b] * fw * (len - rest[b]) / len;
							cx += g * dx;
							cy += g * dy;
							cz += g * dz;
						}
					}
					precise float s = P.relaxation;
					if (byDegree)
						s = degree > 0 ? P.relaxation / float(degree) : 0.0;
					precise float mx = s * cx, my = s * cy, mz = s * cz;
					precise vec4 z = vec4(xi.x + mx, xi.y + my, xi.z + mz, xi.w);
					y = z;
					// The move into the substep's velocity (wfCpuMoved).
					if (kMoves)
						WfMoved(v, vec3(mx, my, mz), P.invH);
				}
				sX[kSlots - cur + l] = y;
			}
			cur = kSlots - cur;
			if (it + 1u < sweeps)
				barrier();
		}
		// finish.comp (the invocation's own slot: no barrier before or after it)
		if (inside && ring >= done * reach) {
			vec4 x = sX[cur + l];
			if (x.w == 0.0) {
				v = vec4(0.0);
			} else {
				precise vec4 u;
				if (kMoves)
					u = vec4(v.x * f, v.y * f, v.z * f, 0.0);
				else
					u = vec4((x.x - p.x) * f, (x.y - p.y) * f, (x.z - p.z) * f, 0.0);
				if (collide) {
					WfCollide(x, u, substep);
					sX[cur + l] = x;
				}
				v = u;
			}
		}
	}
	if (WfInTile(r)) {
		posAlt[i] = sX[cur + l];
		velAlt[i] = v;
		prev[i] = p;
	}
}
