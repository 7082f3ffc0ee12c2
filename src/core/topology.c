// Grid topology: particles, the three constraint families, colouring, adjacency and the mesh.
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int wfGridConstraintCount(int cols, int rows, bool structural, bool shear, bool bending)
{
	int n = 0;
	if (structural)
		n += rows * (cols - 1) + cols * (rows - 1);
	if (shear && cols > 1 && rows > 1)
		n += 2 * (cols - 1) * (rows - 1);
	if (bending)
		n += (cols > 2 ? rows * (cols - 2) : 0) + (rows > 2 ? cols * (rows - 2) : 0);
	return n;
}

static float Dist(wfVec4 p, wfVec4 q)
{
	float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
	return sqrtf(dx * dx + dy * dy + dz * dz);
}

static void AddConstraint(wfClothModel* m, int* n, int a, int b, uint32_t family)
{
	wfConstraint* c = &m->constraints[(*n)++];
	c->a = (uint32_t)a;
	c->b = (uint32_t)b;
	c->rest = Dist(m->restPositions[a], m->restPositions[b]); // the flat grid's (jitter comes later)
	c->family = family;
	m->familyCount[family]++;
}

void wfFreeModel(wfClothModel* m)
{
	wfFree(m->constraints);
	wfFree(m->colorStart);
	wfFree(m->adjStart);
	wfFree(m->adjConstraint);
	wfFree(m->adjOther);
	wfFree(m->jacobiWeight);
	wfFree(m->indices);
	wfFree(m->uvs);
	wfFree(m->cornerUVs);
	wfFree(m->triStart);
	wfFree(m->triList);
	wfFree(m->partnerStart);
	wfFree(m->partnerList);
	wfFree(m->triArea);
	wfFree(m->tethers);
	wfFree(m->tileStart);
	wfFree(m->solveRange);
	wfFree(m->restPositions);
	memset(m, 0, sizeof *m);
}

// Each triangle's rest area from the rest positions (a mesh's shape), in double.
static void RestAreasFromPositions(wfClothModel* m)
{
	const wfVec4* r = m->restPositions;
	for (int k = 0; k < m->triangleCount; ++k) {
		const uint32_t* t = &m->indices[3 * k];
		const double ax = (double)r[t[1]].x - r[t[0]].x, ay = (double)r[t[1]].y - r[t[0]].y, az = (double)r[t[1]].z - r[t[0]].z;
		const double bx = (double)r[t[2]].x - r[t[0]].x, by = (double)r[t[2]].y - r[t[0]].y, bz = (double)r[t[2]].z - r[t[0]].z;
		const double nx = ay * bz - az * by, ny = az * bx - ax * bz, nz = ax * by - ay * bx;
		m->triArea[k] = (float)(0.5 * sqrt(nx * nx + ny * ny + nz * nz));
	}
}

// A third of the rest areas of particle i's triangles: its lumped area.
static double LumpedArea(const wfClothModel* m, int i)
{
	double area = 0.0;
	for (int e = m->triStart[i]; e < m->triStart[i + 1]; ++e)
		area += (double)m->triArea[m->triList[e]];
	return area / 3.0;
}

// Particle i's air share (restPositions[i].w, wfAeroAccel): the mean lumped rest area over its own,
// Abar / A_i. A_i is a third of its incident triangles' rest areas, Abar the mean A_i of the
// particles that have one. Every particle weighs the same, so the cloth's mass per rest area is
// sigma = m / Abar, and a force F_i shared to a particle of area A_i accelerates it by
// F_i / (sigma A_i) = F_i w Abar / A_i: the air acts on every kilogram of a flat sheet alike, border
// or corner (which carry the same mass for a half, a third or a sixth of an inner one's area), and on
// a sheet moving as one the forces still add to the sum of the triangles'. One triangle: 1 exactly.
// A particle without rest area keeps 1 (the force's third times its inverse mass).
void wfBuildAirShares(wfClothModel* m)
{
	double total = 0.0;
	int carriers = 0;
	for (int i = 0; i < m->particleCount; ++i) {
		const double area = LumpedArea(m, i);
		total += area;
		carriers += area > 0.0 ? 1 : 0;
	}
	const double mean = carriers > 0 ? total / carriers : 0.0;
	for (int i = 0; i < m->particleCount; ++i) {
		const double area = LumpedArea(m, i);
		m->restPositions[i].w = area > 0.0 ? (float)(mean / area) : 1.0f;
	}
}

// The partners of particle i along the edges of its triangles (triStart, triList), each once, in the
// order of its triangles and their corners, the first WF_MAX_EDGE_PARTNERS kept (a grid particle
// has 6); returns how many. The order is the edge-edge pass's (cpu_self.c, contact_edge.comp):
// its deepest crossing keeps the first of equal depths.
static int EdgePartners(const wfClothModel* m, int i, uint32_t out[WF_MAX_EDGE_PARTNERS])
{
	int count = 0;
	for (int r = m->triStart[i]; r < m->triStart[i + 1]; ++r) {
		const uint32_t* t = &m->indices[3 * m->triList[r]];
		for (int q = 0; q < 3; ++q) {
			if (t[q] == (uint32_t)i)
				continue;
			bool seen = false;
			for (int k = 0; k < count && !seen; ++k)
				seen = out[k] == t[q];
			if (!seen && count < WF_MAX_EDGE_PARTNERS)
				out[count++] = t[q];
		}
	}
	return count;
}

// Each particle's edge partners as compressed rows (partnerStart, partnerList), from the triangle
// rows: counted, then filled.
static bool BuildPartnerRows(wfClothModel* m)
{
	const int n = m->particleCount;
	uint32_t partner[WF_MAX_EDGE_PARTNERS];
	m->partnerStart = (int*)wfAlloc((size_t)(n + 1) * sizeof(int));
	if (m->partnerStart == NULL)
		return false;
	m->partnerStart[0] = 0;
	for (int i = 0; i < n; ++i)
		m->partnerStart[i + 1] = m->partnerStart[i] + EdgePartners(m, i, partner);
	m->partnerList = (uint32_t*)wfAlloc((size_t)(m->partnerStart[n] + 1) * sizeof(uint32_t));
	if (m->partnerList == NULL)
		return false;
	for (int i = 0; i < n; ++i) {
		const int count = EdgePartners(m, i, partner);
		memcpy(&m->partnerList[m->partnerStart[i]], partner, (size_t)count * sizeof(uint32_t));
	}
	return true;
}

wfResult wfBuildTriangleRows(wfClothModel* m)
{
	const int n = m->particleCount, t3 = 3 * m->triangleCount;
	m->triStart = (int*)wfAlloc((size_t)(n + 1) * sizeof(int));
	m->triList = (uint32_t*)wfAlloc((size_t)(t3 + 1) * sizeof(uint32_t));
	// The triangles' rest areas: a grid's (its flat cells) and a torn cloth's (its model's before)
	// are set, a mesh's come from its shape.
	const bool areas = m->triArea == NULL;
	if (areas)
		m->triArea = (float*)wfAlloc((size_t)(m->triangleCount + 1) * sizeof(float));
	int* fill = (int*)wfAlloc((size_t)(n + 1) * sizeof(int));
	if (m->triStart == NULL || m->triList == NULL || m->triArea == NULL || fill == NULL) {
		wfFree(fill);
		wfFreeModel(m);
		return WF_ERROR_OUT_OF_MEMORY;
	}
	memset(m->triStart, 0, (size_t)(n + 1) * sizeof(int));
	for (int k = 0; k < t3; ++k)
		m->triStart[m->indices[k] + 1]++;
	for (int i = 0; i < n; ++i)
		m->triStart[i + 1] += m->triStart[i];
	memcpy(fill, m->triStart, (size_t)(n + 1) * sizeof(int));
	for (int k = 0; k < t3; ++k)
		m->triList[fill[m->indices[k]]++] = (uint32_t)(k / 3);
	wfFree(fill);
	if (!BuildPartnerRows(m)) {
		wfFreeModel(m);
		return WF_ERROR_OUT_OF_MEMORY;
	}
	if (areas)
		RestAreasFromPositions(m);
	wfBuildAirShares(m);
	return WF_OK;
}

wfResult wfFinishModel(const wfClothDef* def, wfClothModel* m, int* color, int colorBound)
{
	const int n = m->particleCount, count = m->constraintCount;
	m->colorCount = wfSortByColor(m->constraints, count, color, colorBound, m->colorStart);
	wfFree(color);
	wfFree(m->solveRange); // a model coloured again (NULL in a new one)
	m->solveRange = m->colorCount >= 0 ? (int*)wfAlloc((size_t)(2 * m->colorCount + 1) * sizeof(int)) : NULL;
	if (m->solveRange == NULL) {
		wfFreeModel(m);
		return WF_ERROR_OUT_OF_MEMORY;
	}
	// The colour order's solve ranges: the colours (TileStarts replaces them in the tile order).
	m->solveRangeCount = m->colorCount;
	for (int c = 0; c < m->colorCount; ++c) {
		m->solveRange[2 * c] = m->colorStart[c];
		m->solveRange[2 * c + 1] = m->colorStart[c + 1];
	}

	// Adjacency (compressed rows), in ascending constraint order per particle.
	for (int k = 0; k < count; ++k) {
		m->adjStart[m->constraints[k].a + 1]++;
		m->adjStart[m->constraints[k].b + 1]++;
	}
	for (int i = 0; i < n; ++i)
		m->adjStart[i + 1] += m->adjStart[i];
	int* fill = (int*)wfAlloc((size_t)n * sizeof(int));
	if (fill == NULL) {
		wfFreeModel(m);
		return WF_ERROR_OUT_OF_MEMORY;
	}
	memcpy(fill, m->adjStart, (size_t)n * sizeof(int));
	for (int k = 0; k < count; ++k) {
		uint32_t a = m->constraints[k].a, b = m->constraints[k].b;
		m->adjConstraint[fill[a]] = (uint32_t)k;
		m->adjOther[fill[a]++] = b;
		m->adjConstraint[fill[b]] = (uint32_t)k;
		m->adjOther[fill[b]++] = a;
	}
	wfFree(fill);
	m->jacobiDegree = def->jacobiWeights == WF_JACOBI_DEGREE;
	for (int k = 0; k < count; ++k) {
		uint32_t a = m->constraints[k].a, b = m->constraints[k].b;
		int da = m->adjStart[a + 1] - m->adjStart[a], db = m->adjStart[b + 1] - m->adjStart[b];
		m->jacobiWeight[k] = m->jacobiDegree ? 1.0f : 1.0f / (float)(da > db ? da : db);
	}
	for (int i = 0; i < n; ++i) {
		int d = m->adjStart[i + 1] - m->adjStart[i];
		m->maxDegree = d > m->maxDegree ? d : m->maxDegree;
	}
	return WF_OK;
}

// The tile rank of constraint q in the tile order (wfClothModel): its owner cell's tile, ranked by
// tile colour, then row by row within the tile colour.
static int TileRank(const wfClothModel* m, wfConstraint q)
{
	const int cols = m->cols, t = m->tileSize;
	const int xa = (int)(q.a % (uint32_t)cols), ya = (int)(q.a / (uint32_t)cols);
	const int xb = (int)(q.b % (uint32_t)cols), yb = (int)(q.b / (uint32_t)cols);
	const int tx = (xa < xb ? xa : xb) / t, ty = (ya < yb ? ya : yb) / t;
	const int tc = (tx & 1) | (ty & 1) << 1;
	const int across = (m->tilesX - (tx & 1) + 1) / 2; // tiles of this column parity in a row
	return m->tileColorFirst[tc] + (ty >> 1) * across + (tx >> 1);
}

void wfTileOrigin(const wfClothModel* m, int g, int* x0, int* y0)
{
	int tc = 0;
	while (g >= m->tileColorFirst[tc + 1])
		++tc;
	const int px = tc & 1, py = tc >> 1, across = (m->tilesX - px + 1) / 2, r = g - m->tileColorFirst[tc];
	*x0 = (px + 2 * (r % across)) * m->tileSize;
	*y0 = (py + 2 * (r / across)) * m->tileSize;
}

// The tile order's layout: tiles and their ranks, and the constraints (with their colours) sorted by
// tile rank, stably, so the colour sort that follows leaves them by (colour, rank).
static bool TileOrder(wfClothModel* m, int* color)
{
	const int t = m->tileSize, count = m->constraintCount;
	m->tilesX = (m->cols + t - 1) / t;
	m->tilesY = (m->rows + t - 1) / t;
	m->tileCount = m->tilesX * m->tilesY;
	m->tileColorFirst[0] = 0;
	for (int tc = 0; tc < WF_TILE_COLORS; ++tc) {
		const int px = tc & 1, py = tc >> 1;
		m->tileColorFirst[tc + 1] = m->tileColorFirst[tc] + (m->tilesX - px + 1) / 2 * ((m->tilesY - py + 1) / 2);
	}
	WF_ASSERT(NULL, m->tileColorFirst[WF_TILE_COLORS] == m->tileCount);
	int* start = (int*)calloc((size_t)m->tileCount + 1, sizeof(int));
	int* rank = (int*)malloc((size_t)(count > 0 ? count : 1) * sizeof(int));
	int* sortedColor = (int*)malloc((size_t)(count > 0 ? count : 1) * sizeof(int));
	wfConstraint* sorted = (wfConstraint*)malloc((size_t)(count > 0 ? count : 1) * sizeof(wfConstraint));
	const bool ok = start != NULL && rank != NULL && sortedColor != NULL && sorted != NULL;
	if (ok) {
		for (int k = 0; k < count; ++k) {
			rank[k] = TileRank(m, m->constraints[k]);
			start[rank[k] + 1]++;
		}
		for (int g = 0; g < m->tileCount; ++g)
			start[g + 1] += start[g];
		for (int k = 0; k < count; ++k) {
			const int to = start[rank[k]]++;
			sorted[to] = m->constraints[k];
			sortedColor[to] = color[k];
		}
		memcpy(m->constraints, sorted, (size_t)count * sizeof(wfConstraint));
		memcpy(color, sortedColor, (size_t)count * sizeof(int));
	}
	free(start);
	free(rank);
	free(sortedColor);
	free(sorted);
	return ok;
}

// After the colour sort: where each colour's run of each tile starts (wfTileRange), and the solve
// ranges in the tile order.
static bool TileStarts(wfClothModel* m)
{
	const int stride = m->tileCount + 1;
	m->tileStart = (int*)wfAlloc((size_t)m->colorCount * (size_t)stride * sizeof(int));
	wfFree(m->solveRange);
	m->solveRangeCount = 0;
	m->solveRange = (int*)wfAlloc((size_t)(2 * WF_TILE_COLORS * m->colorCount + 1) * sizeof(int));
	if (m->tileStart == NULL || m->solveRange == NULL)
		return false;
	for (int c = 0; c < m->colorCount; ++c) {
		int* row = &m->tileStart[c * stride];
		int k = m->colorStart[c];
		for (int g = 0; g < m->tileCount; ++g) {
			row[g] = k;
			while (k < m->colorStart[c + 1] && TileRank(m, m->constraints[k]) == g)
				++k;
		}
		row[m->tileCount] = k;
		WF_ASSERT(NULL, k == m->colorStart[c + 1]); // ranks ascend within a colour
	}
	for (int tc = 0; tc < WF_TILE_COLORS; ++tc) {
		for (int c = 0; c < m->colorCount; ++c) {
			const int first = wfTileRange(m, c, m->tileColorFirst[tc]), end = wfTileRange(m, c, m->tileColorFirst[tc + 1]);
			if (end > first) {
				m->solveRange[2 * m->solveRangeCount] = first;
				m->solveRange[2 * m->solveRangeCount + 1] = end;
				m->solveRangeCount++;
			}
		}
	}
	return true;
}

wfResult wfBuildGridModel(const wfClothDef* def, wfClothModel* m, bool tiles)
{
	memset(m, 0, sizeof *m);
	const int cols = def->cols, rows = def->rows, n = cols * rows;
	m->cols = cols;
	m->rows = rows;
	m->particleCount = n;
	int maxConstraints = wfGridConstraintCount(cols, rows, def->structural, def->shear, def->bending);
	int cells = (cols - 1) * (rows - 1);
	m->restPositions = (wfVec4*)wfAlloc((size_t)n * sizeof(wfVec4));
	m->uvs = (float*)wfAlloc((size_t)n * 2 * sizeof(float));
	m->constraints = (wfConstraint*)wfAlloc((size_t)(maxConstraints + 1) * sizeof(wfConstraint));
	m->jacobiWeight = (float*)wfAlloc((size_t)(maxConstraints + 1) * sizeof(float));
	m->colorStart = (int*)wfAlloc(64 * sizeof(int) + (size_t)(maxConstraints + 1) * sizeof(int));
	m->adjStart = (int*)wfAlloc((size_t)(n + 1) * sizeof(int));
	m->adjConstraint = (uint32_t*)wfAlloc((size_t)(2 * maxConstraints + 1) * sizeof(uint32_t));
	m->adjOther = (uint32_t*)wfAlloc((size_t)(2 * maxConstraints + 1) * sizeof(uint32_t));
	m->indices = (uint32_t*)wfAlloc((size_t)(6 * cells + 1) * sizeof(uint32_t));
	int* color = (int*)wfAlloc((size_t)(maxConstraints + 1) * sizeof(int));
	if (!m->restPositions || !m->uvs || !m->constraints || !m->jacobiWeight || !m->colorStart || !m->adjStart || !m->adjConstraint ||
		!m->adjOther || !m->indices || !color) {
		wfFree(color);
		wfFreeModel(m);
		return WF_ERROR_OUT_OF_MEMORY;
	}

	// Particles: column index along x, row index along z (horizontal) or down y (vertical), centred
	// on the def's origin. A side with one particle has no extent.
	float dx = cols > 1 ? def->width / (float)(cols - 1) : 0.0f;
	float dy = rows > 1 ? def->height / (float)(rows - 1) : 0.0f;
	float x0 = cols > 1 ? -0.5f * def->width : 0.0f;
	float y0 = rows > 1 ? -0.5f * def->height : 0.0f;
	for (int r = 0; r < rows; ++r) {
		for (int c = 0; c < cols; ++c) {
			wfVec4* p = &m->restPositions[r * cols + c];
			float u = x0 + dx * (float)c, v = y0 + dy * (float)r;
			// Relative to the def's origin, which the cloth's local frame starts at (internal.h).
			if (def->orientation == WF_ORIENT_HORIZONTAL) {
				p->x = u;
				p->y = 0.0f;
				p->z = v;
			} else {
				p->x = u;
				p->y = -v;
				p->z = 0.0f;
			}
			p->w = 0.0f;
			m->uvs[2 * (r * cols + c) + 0] = cols > 1 ? def->uvRepeat * (float)c / (float)(cols - 1) : 0.0f;
			m->uvs[2 * (r * cols + c) + 1] = rows > 1 ? def->uvRepeat * (float)r / (float)(rows - 1) : 0.0f;
		}
	}

	// Constraints in generation order: per particle, row-major.
	int count = 0;
	for (int r = 0; r < rows; ++r) {
		for (int c = 0; c < cols; ++c) {
			int i = r * cols + c;
			if (def->structural && c + 1 < cols)
				AddConstraint(m, &count, i, i + 1, WF_FAMILY_STRETCH);
			if (def->structural && r + 1 < rows)
				AddConstraint(m, &count, i, i + cols, WF_FAMILY_STRETCH);
			if (def->shear && c + 1 < cols && r + 1 < rows) {
				AddConstraint(m, &count, i, i + cols + 1, WF_FAMILY_SHEAR);
				AddConstraint(m, &count, i + 1, i + cols, WF_FAMILY_SHEAR);
			}
			if (def->bending && c + 2 < cols)
				AddConstraint(m, &count, i, i + 2, WF_FAMILY_BEND);
			if (def->bending && r + 2 < rows)
				AddConstraint(m, &count, i, i + 2 * cols, WF_FAMILY_BEND);
		}
	}
	WF_ASSERT(NULL, count == maxConstraints);
	m->constraintCount = count;

	// The out-of-plane start perturbation (wfClothDef.jitter), after the rest lengths of the flat grid.
	if (def->jitter > 0.0f) {
		for (int i = 0; i < n; ++i) {
			double hs = sin((double)i * 127.1 + 311.7) * 43758.5453;
			float off = (float)((hs - floor(hs) - 0.5) * (double)def->jitter * (double)dx);
			if (def->orientation == WF_ORIENT_HORIZONTAL)
				m->restPositions[i].y += off;
			else
				m->restPositions[i].z += off;
		}
	}

	// Colouring: the 12-colour grid scheme (see coloring.c), then contiguous colour ranges.
	for (int k = 0; k < count; ++k)
		color[k] = wfGridColor(cols, m->constraints[k].a, m->constraints[k].b);
	m->tileSize = tiles ? WF_GPU_XPBD_TILE : 0;
	if (m->tileSize > 0 && !TileOrder(m, color)) {
		wfFree(color);
		wfFreeModel(m);
		return WF_ERROR_OUT_OF_MEMORY;
	}
	if (wfFinishModel(def, m, color, 12) != WF_OK)
		return WF_ERROR_OUT_OF_MEMORY;
	if (m->tileSize > 0 && !TileStarts(m)) {
		wfFreeModel(m);
		return WF_ERROR_OUT_OF_MEMORY;
	}

	// Two triangles per cell, wound so the normal is +y (horizontal) or +z (vertical).
	int t = 0;
	for (int r = 0; r + 1 < rows; ++r) {
		for (int c = 0; c + 1 < cols; ++c) {
			uint32_t i0 = (uint32_t)(r * cols + c), i1 = i0 + 1, i2 = i0 + (uint32_t)cols, i3 = i2 + 1;
			m->indices[t++] = i0;
			m->indices[t++] = i2;
			m->indices[t++] = i1;
			m->indices[t++] = i1;
			m->indices[t++] = i2;
			m->indices[t++] = i3;
		}
	}
	m->triangleCount = t / 3;
	// Every triangle's rest area is half a flat cell's (the jitter is a start shape, not the rest).
	m->triArea = (float*)wfAlloc((size_t)(m->triangleCount + 1) * sizeof(float));
	if (m->triArea == NULL) {
		wfFreeModel(m);
		return WF_ERROR_OUT_OF_MEMORY;
	}
	for (int k = 0; k < m->triangleCount; ++k)
		m->triArea[k] = (float)(0.5 * (double)dx * (double)dy);
	return wfBuildTriangleRows(m);
}

// Area-weighted vertex normals: the unnormalised face normal (twice the area) summed per vertex.
void wfComputeNormals(const wfClothModel* m, const wfVec4* pos, wfVec4* normals)
{
	memset(normals, 0, (size_t)m->particleCount * sizeof(wfVec4));
	for (int t = 0; t < m->triangleCount; ++t) {
		const uint32_t* tri = &m->indices[3 * t];
		wfVec4 p0 = pos[tri[0]], p1 = pos[tri[1]], p2 = pos[tri[2]];
		float ax = p1.x - p0.x, ay = p1.y - p0.y, az = p1.z - p0.z;
		float bx = p2.x - p0.x, by = p2.y - p0.y, bz = p2.z - p0.z;
		float nx = ay * bz - az * by, ny = az * bx - ax * bz, nz = ax * by - ay * bx;
		for (int k = 0; k < 3; ++k) {
			normals[tri[k]].x += nx;
			normals[tri[k]].y += ny;
			normals[tri[k]].z += nz;
		}
	}
	for (int i = 0; i < m->particleCount; ++i) {
		wfVec4* q = &normals[i];
		float len = sqrtf(q->x * q->x + q->y * q->y + q->z * q->z);
		if (len > WF_MIN_NORMAL_LENGTH) {
			q->x /= len;
			q->y /= len;
			q->z /= len;
		} else {
			q->x = 0.0f;
			q->y = 1.0f;
			q->z = 0.0f;
		}
		q->w = 0.0f;
	}
}
