// The hash grid of the contact pass (cpu_self.c's CellKey, CellOf and NeighbourKeys, the same
// integer and float operations): cells of CP.distance, keys masked to the hash's size, a row's
// cells (x, x + 1, ...) at consecutive keys.

uint WfCellKey(int x, int y, int z, uint mask)
{
	uint h = (uint(y) * 19349663u ^ uint(z) * 83492791u) + uint(x);
	return h & mask;
}

// The cell of a coordinate, clamped into int range (a far or non-finite particle shares an edge
// cell). NaN is found by its bits: a compiler may assume that c == c.
int WfCellOf(float v)
{
	precise float c = floor(v * CP.invCell);
	if ((floatBitsToUint(c) & 0x7fffffffu) > 0x7f800000u)
		return 0;
	return c > 1e9 ? 1000000000 : c < -1e9 ? -1000000000 : int(c);
}

uint WfKeyOf(vec3 x, uint mask)
{
	return WfCellKey(WfCellOf(x.x), WfCellOf(x.y), WfCellOf(x.z), mask);
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
	const int qx = WfCellOf(x.x), qy = WfCellOf(x.y), qz = WfCellOf(x.z);
	return abs(qx - cx) <= 2 && abs(qy - cy) <= 2 && abs(qz - cz) <= 2 && WfCellKey(qx, qy, qz, mask) == cellKey[q];
}
