// The hash grid of the contact pass (cpu_self.c's CellKey, CellOf and NeighbourKeys, the same
// integer and float operations): cells of CP.distance, keys masked to the hash's size, a row's
// cells (x, x + 1, ...) at consecutive keys. The fused kernels (WF_BATCH, fused_self.glsl) use the
// first two with their own constants.

uint WfCellKey(int x, int y, int z, uint mask)
{
	uint h = (uint(y) * 19349663u ^ uint(z) * 83492791u) + uint(x);
	return h & mask;
}

// The cell of a coordinate, clamped into int range (a far or non-finite particle shares an edge
// cell). NaN is found by its bits: a compiler may assume that c == c.
int WfCellOf(float v, float invCell)
{
	precise float c = floor(v * invCell);
	if ((floatBitsToUint(c) & 0x7fffffffu) > 0x7f800000u)
		return 0;
	return c > 1e9 ? 1000000000 : c < -1e9 ? -1000000000 : int(c);
}

// AddPairPush: the push on particle i of an overlapping pair at separation e (from j to i,
// |e| = dist < d, the contact distance): its share of the overlap along e, less friction on the relative motion m.
void WfPairPush(float ex, float ey, float ez, float dist, float d, float share, bool friction, float mu, vec3 m, inout vec3 acc)
{
	precise float nx = ex / dist, ny = ey / dist, nz = ez / dist;
	precise float push = share * (d - dist);
	precise float ox = nx * push, oy = ny * push, oz = nz * push;
	if (friction) {
		precise float mn = m.x * nx + m.y * ny + m.z * nz;
		precise float tx = m.x - mn * nx, ty = m.y - mn * ny, tz = m.z - mn * nz;
		precise float tl = sqrt(tx * tx + ty * ty + tz * tz);
		if (tl > 1e-12) {
			precise float k = share * min(1.0, mu * (d - dist) / tl);
			ox -= tx * k;
			oy -= ty * k;
			oz -= tz * k;
		}
	}
	precise vec3 s = vec3(acc.x + ox, acc.y + oy, acc.z + oz);
	acc = s;
}

#ifndef WF_BATCH
uint WfKeyOf(vec3 x, uint mask)
{
	return WfCellKey(WfCellOf(x.x, CP.invCell), WfCellOf(x.y, CP.invCell), WfCellOf(x.z, CP.invCell), mask);
}

// Element e of the contact arrays at x into the grid: its key, and its rank among its cell's
// elements by an atomicAdd on the cell's count (the scan reads the counts).
void WfFileKey(uint e, vec3 x, uint mask)
{
	const uint k = WfKeyOf(x, mask);
	cellKey[e] = k;
	cellRank[e] = atomicAdd(cells[CP.counts + k], 1u);
}

// Whether a walk of the 5 x 5 x 5 cells around cell (cx, cy, cz) reads particle q (cpu_self.c
// Walked): at x now, its cell in the block and still the cell the grid filed it under (cellKey).
bool WfWalked(uint q, vec4 x, int cx, int cy, int cz, uint mask)
{
	const int qx = WfCellOf(x.x, CP.invCell), qy = WfCellOf(x.y, CP.invCell), qz = WfCellOf(x.z, CP.invCell);
	return abs(qx - cx) <= 2 && abs(qy - cy) <= 2 && abs(qz - cz) <= 2 && WfCellKey(qx, qy, qz, mask) == cellKey[q];
}
#endif
