// Shared by springs_tiled.comp and jacobi_tiled.comp (temporal blocking): the workgroup size, the
// region's side and which region particle an invocation holds. The includer defines WF_TILE_HALO
// (the region's rings beyond the WF_GPU_TILE square); workgroup g steps tile g of tilesX per row.
layout(local_size_x = WF_GPU_TILE_GROUP(WF_TILE_HALO)) in;

const int kHalo = WF_TILE_HALO;
const int kSide = WF_GPU_TILE + 2 * WF_TILE_HALO; // region side

// This invocation's region particle: slot l = ry kSide + rx, grid column gx and row gy, particle
// i when inside the grid, and ring, its distance in rings from the region's edge.
struct WfRegion {
	int l, rx, ry, gx, gy, ring;
	bool inside;
	uint i;
};

WfRegion WfRegionOf(int tilesX)
{
	WfRegion r;
	const int cols = int(P.cols), rows = int(P.particleCount / P.cols);
	const int tile = int(WfGroup());
	r.l = int(gl_LocalInvocationID.x);
	r.rx = r.l % kSide;
	r.ry = r.l / kSide;
	r.gx = (tile % tilesX) * WF_GPU_TILE - kHalo + r.rx;
	r.gy = (tile / tilesX) * WF_GPU_TILE - kHalo + r.ry;
	r.inside = r.l < kSide * kSide && r.gx >= 0 && r.gx < cols && r.gy >= 0 && r.gy < rows;
	r.i = r.inside ? uint(r.gy * cols + r.gx) : 0u;
	r.ring = min(min(r.rx, r.ry), min(kSide - 1 - r.rx, kSide - 1 - r.ry));
	return r;
}

// The region slot of grid particle o, or -1 outside the region.
int WfRegionSlot(WfRegion r, uint o)
{
	int ox = int(o % P.cols) - r.gx + r.rx, oy = int(o / P.cols) - r.gy + r.ry;
	return ox >= 0 && ox < kSide && oy >= 0 && oy < kSide ? oy * kSide + ox : -1;
}

// Whether this invocation's particle is in the tile, which the dispatch writes back.
bool WfInTile(WfRegion r)
{
	return r.inside && r.rx >= kHalo && r.rx < kHalo + WF_GPU_TILE && r.ry >= kHalo && r.ry < kHalo + WF_GPU_TILE;
}
