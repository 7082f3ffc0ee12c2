#version 450
// XPBD in the tile order (wfClothModel): one dispatch per tile colour and iteration; workgroup g
// relaxes every colour of its tile in turn, from the region of the positions its constraints touch
// (its WF_GPU_XPBD_TILE square of owner cells and two more columns and rows) held in shared memory.
// Two tiles of one tile colour touch no common particle, so the region is read once, relaxed
// through all colours with a barrier between them, and written back whole. The projection is
// xpbd_solve.comp's, with the same expressions in the same order (`precise`): the same bits as a
// dispatch per colour of each tile colour, and as the CPU's tile order up to the GPU's square root
// and division. Each invocation loads its constraint of every colour (half-size records whose
// ends are region slots, and the multipliers) with the region, before the first colour, so the
// colours' chain waits on shared memory only. H200, 1024 x 1024, 10 iterations: docs/PERFORMANCE.md.
//
// pc.first: the tile colour's first tile rank; pc.count: tiles in all + 1 (tileStart's row length);
// pc.flags: WF_GPU_PUSH_FIRST_ITERATION, the tile colour (bits 8-9) and the colour count (bits 16-23).
#define WF_OWN_GROUP_SIZE 1
#include "common.glsl"
layout(local_size_x = WF_GPU_XPBD_TILE_GROUP) in;
layout(std430, binding = WF_GPU_BIND_TILE_START) readonly buffer TileStartBuf { int tileStart[]; };
layout(std430, binding = WF_GPU_BIND_TILE_CON) readonly buffer TileConBuf { uvec2 tileCon[]; };

const int kTile = WF_GPU_XPBD_TILE;
const int kSide = WF_GPU_XPBD_TILE + 2; // region side: owner cells reach two columns and rows on
const int kGroup = WF_GPU_XPBD_TILE_GROUP;
const int kPer = (kTile * kTile / 2 + kGroup - 1) / kGroup; // constraints per invocation and colour
shared vec4 sX[kSide * kSide];         // position, w inverse mass
// Velocities with kMoves (each move also goes into them, wfCpuMoved) as three float arrays: 13.9 KB
// beside the positions' 18.5 KB, within lavapipe's 32 KB (vec4s would be 37 KB); one float each
// without.
#ifndef WF_WGSL
const int kVelSlots = kMoves ? kSide * kSide : 1;
#else
const int kVelSlots = kSide * kSide; // kMoves is no constant expression there (common.glsl)
#endif
shared float sVX[kVelSlots], sVY[kVelSlots], sVZ[kVelSlots];

// Projects constraint k (record q, multiplier lam so far) in the region; xpbd_solve.comp.
void Project(int k, uvec2 q, float lam, bool first)
{
	const uint sa = q.x & 0xfffu, sb = (q.x >> 12) & 0xfffu;
	vec4 a = sX[sa], b = sX[sb];
	precise float wsum = a.w + b.w;
	precise float dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
	precise float len = sqrt(dx * dx + dy * dy + dz * dz);
	if (wsum == 0.0 || len < WF_MIN_LENGTH) {
		// lambda restarts every substep: clear what the previous substep left.
		if (first)
			lambda[k] = 0.0;
		return;
	}
	float at = P.alphaTilde[q.x >> 24];
	precise float dl = -(len - uintBitsToFloat(q.y) + at * lam) / (wsum + at);
	precise float nl = lam + dl;
	lambda[k] = nl;
	precise float s = dl / len;
	precise float sa2 = s * a.w, sb2 = s * b.w;
	precise vec3 ma = vec3(sa2 * dx, sa2 * dy, sa2 * dz), mb = vec3(sb2 * dx, sb2 * dy, sb2 * dz);
	precise vec4 na = vec4(a.x + ma.x, a.y + ma.y, a.z + ma.z, a.w);
	precise vec4 nb = vec4(b.x - mb.x, b.y - mb.y, b.z - mb.z, b.w);
	sX[sa] = na;
	sX[sb] = nb;
	if (!kMoves)
		return;
	precise float uax = sVX[sa] + ma.x * P.invH, uay = sVY[sa] + ma.y * P.invH, uaz = sVZ[sa] + ma.z * P.invH;
	precise float ubx = sVX[sb] - mb.x * P.invH, uby = sVY[sb] - mb.y * P.invH, ubz = sVZ[sb] - mb.z * P.invH;
	sVX[sa] = uax;
	sVY[sa] = uay;
	sVZ[sa] = uaz;
	sVX[sb] = ubx;
	sVY[sb] = uby;
	sVZ[sb] = ubz;
}

void main()
{
	const int cols = int(P.cols), rows = int(P.particleCount / P.cols);
	const uint tc = (pc.flags >> 8) & 3u, colours = (pc.flags >> 16) & 0xffu;
	const bool first = (pc.flags & WF_GPU_PUSH_FIRST_ITERATION) != 0u;
	// This tile: the rank-th of its tile colour, row by row (wfTileOrigin).
	const int tilesX = (cols + kTile - 1) / kTile;
	const int px = int(tc & 1u), py = int(tc >> 1);
	const int across = (tilesX - px + 1) / 2;
	const int rank = int(WfGroup());
	const int x0 = (px + 2 * (rank % across)) * kTile, y0 = (py + 2 * (rank / across)) * kTile;
	const uint g = pc.first + uint(rank);
	const int l = int(gl_LocalInvocationID.x);
	// Constraints l, l + group, ... of each colour of the tile (a colour holds at most T^2 / 2 of a
	// tile's, tile_order_tiles_independent: kPer each; more, were there any, are projected after
	// them). The same kernel without that loop and the per-invocation arrays (one constraint each)
	// took 1.315 ms at 1024 x 1024 on the H200 against 1.111, and its bits there were no longer
	// those of a dispatch per range (vk_xpbd_tiled_*: 1.2e-5 to 2.5e-3 m): kept as it is.
	int k[WF_GPU_XPBD_TILE_COLORS][kPer], end[WF_GPU_XPBD_TILE_COLORS];
	uvec2 q[WF_GPU_XPBD_TILE_COLORS][kPer];
	float lam[WF_GPU_XPBD_TILE_COLORS][kPer];
	[[unroll]] for (int c = 0; c < WF_GPU_XPBD_TILE_COLORS; ++c) {
		int begin = 0;
		end[c] = 0;
		if (uint(c) < colours) {
			begin = tileStart[uint(c) * pc.count + g] + l;
			end[c] = tileStart[uint(c) * pc.count + g + 1u];
		}
		[[unroll]] for (int j = 0; j < kPer; ++j) {
			k[c][j] = begin + j * kGroup;
			q[c][j] = uvec2(0u);
			lam[c][j] = 0.0;
			if (k[c][j] < end[c]) {
				q[c][j] = tileCon[k[c][j]];
				lam[c][j] = first ? 0.0 : lambda[k[c][j]];
			}
		}
	}
	for (int s = l; s < kSide * kSide; s += kGroup) {
		const int gx = x0 + s % kSide, gy = y0 + s / kSide;
		if (gx < cols && gy < rows) {
			sX[s] = pos[gy * cols + gx];
			if (kMoves) {
				const vec4 v = vel[gy * cols + gx];
				sVX[s] = v.x;
				sVY[s] = v.y;
				sVZ[s] = v.z;
			}
		}
	}
	barrier();
	[[unroll]] for (int c = 0; c < WF_GPU_XPBD_TILE_COLORS; ++c) {
		if (uint(c) < colours) {
			[[unroll]] for (int j = 0; j < kPer; ++j) {
				if (k[c][j] < end[c])
					Project(k[c][j], q[c][j], lam[c][j], first);
			}
			for (int j = k[c][0] + kPer * kGroup; j < end[c]; j += kGroup)
				Project(j, tileCon[j], first ? 0.0 : lambda[j], first);
			barrier();
		}
	}
	for (int s = l; s < kSide * kSide; s += kGroup) {
		const int gx = x0 + s % kSide, gy = y0 + s / kSide;
		if (gx < cols && gy < rows) {
			pos[gy * cols + gx] = sX[s];
			if (kMoves)
				vel[gy * cols + gx] = vec4(sVX[s], sVY[s], sVZ[s], 0.0);
		}
	}
}
