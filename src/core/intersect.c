// The intersection checker (wfWorld_CountIntersections): every triangle edge of every cloth against
// every triangle of every cloth, found through a uniform grid over the triangles' bounds and decided
// by the signs of orientation determinants in double; particles inside the sphere, the floor and the
// colliders, and edges through them with both ends outside. Reads the state through the public
// read-back, so it checks any backend's cloths the same way.
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// A cloth as the checker sees it: world positions in double and its triangles and edges.
typedef struct IxMesh {
	int particleCount, triangleCount, edgeCount;
	double* p;             // (particleCount x 3) world = origin + local
	uint32_t* tri;         // (triangleCount x 3)
	uint32_t* edge;        // (edgeCount x 2) every triangle side once
	int* src;              // (particleCount) the untorn cloth's particle: two copies of one share it
	double* box;           // (triangleCount x 6) each triangle's bounds: lo xyz, hi xyz
	bool body;             // a mesh collider (no edges of its own: cloth edges through it are collider crossings)
	bool between;          // a cloth of a world with contact between cloths (selfCollision.betweenCloths)
	const wfClothDef* def; // a cloth's def: its collisionGroup and collisionMask (wfClothsMeet)
	bool closed;           // a body that is a solid (its inside counts)
	double size;           // a body's bounding-box diagonal
} IxMesh;

// A triangle in one grid cell.
typedef struct IxEntry {
	uint64_t key;    // hash of the cell
	int32_t cell[3]; // the cell
	int32_t mesh;
	int32_t tri;
} IxEntry;

// Cells a triangle may cover before it goes to the list every edge checks instead.
#define IX_MAX_CELLS 512

static void Free(IxMesh* m)
{
	free(m->p);
	free(m->tri);
	free(m->edge);
	free(m->src);
	free(m->box);
	memset(m, 0, sizeof *m);
}

// Plain comparisons (fmin and fmax are calls, and NaN never reaches them: non-finite cloths are skipped).
static double Min(double a, double b) { return a < b ? a : b; }
static double Max(double a, double b) { return a > b ? a : b; }

static int CompareEdge(const void* a, const void* b)
{
	const uint32_t* x = (const uint32_t*)a;
	const uint32_t* y = (const uint32_t*)b;
	return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : x[1] != y[1] ? (x[1] < y[1] ? -1 : 1) : 0;
}

static void Boxes(IxMesh* m)
{
	for (int k = 0; k < m->triangleCount; ++k) {
		const double* a = m->p + 3 * m->tri[3 * k];
		const double* b = m->p + 3 * m->tri[3 * k + 1];
		const double* c = m->p + 3 * m->tri[3 * k + 2];
		bool finite = true;
		for (int i = 0; i < 3; ++i) {
			m->box[6 * k + i] = Min(a[i], Min(b[i], c[i]));
			m->box[6 * k + 3 + i] = Max(a[i], Max(b[i], c[i]));
			finite = finite && isfinite(a[i]) && isfinite(b[i]) && isfinite(c[i]);
		}
		if (!finite) // skipped by the grid (Min and Max would hide a NaN)
			m->box[6 * k] = NAN;
	}
}

// Every side of every triangle, once: sorted pairs (low, high), duplicates dropped.
static void Edges(IxMesh* m)
{
	const size_t t = (size_t)m->triangleCount;
	for (size_t k = 0; k < t; ++k) {
		for (int s = 0; s < 3; ++s) {
			uint32_t a = m->tri[3 * k + s], b = m->tri[3 * k + (s + 1) % 3];
			m->edge[6 * k + 2 * s] = a < b ? a : b;
			m->edge[6 * k + 2 * s + 1] = a < b ? b : a;
		}
	}
	qsort(m->edge, 3 * t, 2 * sizeof *m->edge, CompareEdge);
	size_t kept = 0;
	for (size_t e = 0; e < 3 * t; ++e) {
		if (kept > 0 && m->edge[2 * kept - 2] == m->edge[2 * e] && m->edge[2 * kept - 1] == m->edge[2 * e + 1])
			continue;
		m->edge[2 * kept] = m->edge[2 * e];
		m->edge[2 * kept + 1] = m->edge[2 * e + 1];
		kept++;
	}
	m->edgeCount = (int)kept;
}

static wfResult Load(wfClothId id, IxMesh* m)
{
	wfClothInfo info;
	wfResult r = wfCloth_GetInfo(id, &info);
	if (r != WF_OK)
		return r;
	m->particleCount = info.particleCount;
	m->triangleCount = info.triangleCount;
	const size_t n = (size_t)info.particleCount, t = (size_t)info.triangleCount;
	wfVec3* local = (wfVec3*)malloc(n * sizeof *local + 1);
	m->p = (double*)malloc(3 * n * sizeof *m->p + 1);
	m->tri = (uint32_t*)malloc(3 * t * sizeof *m->tri + 1);
	m->edge = (uint32_t*)malloc(6 * t * sizeof *m->edge + 1);
	m->src = (int*)malloc(n * sizeof *m->src + 1);
	m->box = (double*)malloc(6 * t * sizeof *m->box + 1);
	double origin[3];
	if (local == NULL || m->p == NULL || m->tri == NULL || m->edge == NULL || m->src == NULL || m->box == NULL)
		r = WF_ERROR_OUT_OF_MEMORY;
	if (r == WF_OK)
		r = wfCloth_GetOrigin(id, origin);
	if (r == WF_OK)
		r = wfCloth_ReadLocalPositions(id, local, info.particleCount);
	if (r == WF_OK)
		r = wfCloth_ReadIndices(id, m->tri, 3 * info.triangleCount);
	if (r == WF_OK)
		r = wfCloth_ReadSourceParticles(id, m->src, info.particleCount);
	if (r == WF_OK) {
		for (size_t i = 0; i < n; ++i) {
			m->p[3 * i] = origin[0] + (double)local[i].x;
			m->p[3 * i + 1] = origin[1] + (double)local[i].y;
			m->p[3 * i + 2] = origin[2] + (double)local[i].z;
		}
		Boxes(m);
		Edges(m);
	}
	free(local);
	return r;
}

// A mesh collider where it is now (its pose and shape), through the public API.
static wfResult LoadBody(wfColliderId id, IxMesh* m)
{
	const int n = wfCollider_GetMeshVertices(id, NULL, 0), t = wfCollider_GetMeshTriangles(id, NULL, 0);
	m->body = true;
	m->particleCount = n;
	m->triangleCount = t;
	wfVec3* local = (wfVec3*)malloc((size_t)n * sizeof *local + 1);
	m->p = (double*)malloc(3 * (size_t)n * sizeof *m->p + 1);
	m->tri = (uint32_t*)malloc(3 * (size_t)t * sizeof *m->tri + 1);
	m->box = (double*)malloc(6 * (size_t)t * sizeof *m->box + 1);
	m->edge = (uint32_t*)malloc(6 * (size_t)t * sizeof *m->edge + 1);
	wfVec3 c;
	wfQuat q;
	if (local == NULL || m->p == NULL || m->tri == NULL || m->box == NULL || m->edge == NULL ||
		wfCollider_GetTransform(id, &c, &q) != WF_OK) {
		free(local);
		return WF_ERROR_OUT_OF_MEMORY;
	}
	wfCollider_GetMeshVertices(id, local, n);
	wfCollider_GetMeshTriangles(id, m->tri, 3 * t);
	double a[9], lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	wfQuatAxes(q, a);
	for (int i = 0; i < n; ++i) {
		const double x = local[i].x, y = local[i].y, z = local[i].z;
		for (int k = 0; k < 3; ++k) {
			m->p[3 * i + k] = (double)(&c.x)[k] + a[k] * x + a[3 + k] * y + a[6 + k] * z;
			lo[k] = Min(lo[k], m->p[3 * i + k]);
			hi[k] = Max(hi[k], m->p[3 * i + k]);
		}
	}
	m->size = sqrt((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
	const wfWorld* w = id.world;
	m->closed = w->colliders[id.index].body->closed;
	free(local);
	Boxes(m);
	Edges(m);
	return WF_OK;
}

// ---------------------------------------------------------------- predicates

// The orientation of d against the plane through a, b, c: det[b - a, c - a, d - a].
static double Orient(const double* a, const double* b, const double* c, const double* d)
{
	const double bx = b[0] - a[0], by = b[1] - a[1], bz = b[2] - a[2];
	const double cx = c[0] - a[0], cy = c[1] - a[1], cz = c[2] - a[2];
	const double dx = d[0] - a[0], dy = d[1] - a[1], dz = d[2] - a[2];
	return bx * (cy * dz - cz * dy) - by * (cx * dz - cz * dx) + bz * (cx * dy - cy * dx);
}

// Whether segment pq passes through triangle abc: p and q on opposite sides of its plane (or one on
// it), and the line pq inside all three of its sides (touching a side counts). A segment in the
// plane is not a crossing.
static bool SegmentThroughTriangle(const double* p, const double* q, const double* a, const double* b, const double* c)
{
	const double sp = Orient(a, b, c, p), sq = Orient(a, b, c, q);
	if ((sp > 0.0 && sq > 0.0) || (sp < 0.0 && sq < 0.0) || (sp == 0.0 && sq == 0.0))
		return false;
	const double o1 = Orient(p, q, a, b), o2 = Orient(p, q, b, c), o3 = Orient(p, q, c, a);
	return (o1 >= 0.0 && o2 >= 0.0 && o3 >= 0.0) || (o1 <= 0.0 && o2 <= 0.0 && o3 <= 0.0);
}

// ---------------------------------------------------------------- the grid

static uint64_t CellKey(int32_t x, int32_t y, int32_t z)
{
	uint64_t h = (uint64_t)(uint32_t)x * 0x9E3779B97F4A7C15ull;
	h ^= (uint64_t)(uint32_t)y * 0xC2B2AE3D27D4EB4Full + (h << 6) + (h >> 2);
	h ^= (uint64_t)(uint32_t)z * 0x165667B19E3779F9ull + (h << 6) + (h >> 2);
	return h;
}

static int CompareEntry(const void* a, const void* b)
{
	const IxEntry* x = (const IxEntry*)a;
	const IxEntry* y = (const IxEntry*)b;
	return x->key != y->key ? (x->key < y->key ? -1 : 1) : 0;
}

typedef struct IxGrid {
	double cell, inv; // cell size (m) and its inverse
	IxEntry* entries; // sorted by key
	size_t entryCount;
	int32_t* big; // (bigCount x 2) mesh, triangle of those too large for the grid
	size_t bigCount;
} IxGrid;

static int32_t CellOf(const IxGrid* g, double v)
{
	double c = floor(v * g->inv);
	return c < -2e9 ? -2000000000 : c > 2e9 ? 2000000000 : (int32_t)c;
}

static const double* TriangleBox(const IxMesh* m, int t) { return m->box + 6 * t; }

static bool BuildGrid(IxGrid* g, const IxMesh* meshes, int count)
{
	double length = 0.0;
	int64_t edges = 0;
	for (int m = 0; m < count; ++m) {
		for (int e = 0; e < meshes[m].edgeCount && !meshes[m].body; ++e) { // the cloths' edges
			const double* a = meshes[m].p + 3 * meshes[m].edge[2 * e];
			const double* b = meshes[m].p + 3 * meshes[m].edge[2 * e + 1];
			const double d = sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
			length += isfinite(d) ? d : 0.0;
			edges++;
		}
	}
	// Cells of 1.5 mean edges: a triangle covers a few, an edge visits a few (xpbd preset: 11 ms a
	// count at 1.5, 21 at 2, 29 at 1).
	g->cell = edges > 0 && length > 0.0 ? fmax(1.5 * length / (double)edges, 1e-6) : 1.0;
	g->inv = 1.0 / g->cell;
	size_t capacity = 0;
	for (int m = 0; m < count; ++m)
		capacity += 8 * (size_t)meshes[m].triangleCount;
	g->entries = (IxEntry*)malloc(capacity * sizeof *g->entries + 1);
	g->big = NULL;
	g->entryCount = g->bigCount = 0;
	size_t bigCapacity = 0;
	if (g->entries == NULL)
		return false;
	for (int m = 0; m < count; ++m) {
		for (int t = 0; t < meshes[m].triangleCount; ++t) {
			const double* lo = TriangleBox(&meshes[m], t);
			const double* hi = lo + 3;
			int32_t c0[3], c1[3];
			int64_t cells = 1;
			bool finite = true;
			for (int k = 0; k < 3; ++k) {
				finite = finite && isfinite(lo[k]) && isfinite(hi[k]);
				c0[k] = CellOf(g, lo[k]);
				c1[k] = CellOf(g, hi[k]);
				cells *= (int64_t)c1[k] - c0[k] + 1;
			}
			if (!finite)
				continue; // a non-finite cloth is the frame check's business, not a crossing
			if (cells > IX_MAX_CELLS) {
				if (g->bigCount == bigCapacity) {
					bigCapacity = bigCapacity * 2 + 16;
					int32_t* grown = (int32_t*)realloc(g->big, 2 * bigCapacity * sizeof *grown);
					if (grown == NULL)
						return false;
					g->big = grown;
				}
				g->big[2 * g->bigCount] = m;
				g->big[2 * g->bigCount + 1] = t;
				g->bigCount++;
				continue;
			}
			if (g->entryCount + (size_t)cells > capacity) {
				capacity = 2 * capacity + (size_t)cells;
				IxEntry* grown = (IxEntry*)realloc(g->entries, capacity * sizeof *grown);
				if (grown == NULL)
					return false;
				g->entries = grown;
			}
			for (int32_t x = c0[0]; x <= c1[0]; ++x)
				for (int32_t y = c0[1]; y <= c1[1]; ++y)
					for (int32_t z = c0[2]; z <= c1[2]; ++z)
						g->entries[g->entryCount++] = (IxEntry){CellKey(x, y, z), {x, y, z}, m, t};
		}
	}
	qsort(g->entries, g->entryCount, sizeof *g->entries, CompareEntry);
	return true;
}

// Adds the crossing of edge e of mesh em with triangle t of mesh tm to the counts (once per pair).
static void TestPair(const IxMesh* meshes, int em, int e, int tm, int t, wfIntersections* out)
{
	const IxMesh* E = &meshes[em];
	const IxMesh* T = &meshes[tm];
	const uint32_t a = E->edge[2 * e], b = E->edge[2 * e + 1];
	const uint32_t* v = T->tri + 3 * t;
	if (E->body && T->body)
		return; // a body's own edges and faces, or two bodies: not the cloth's business
	if (em == tm) {
		// Not a crossing: an edge and a triangle that share a particle (or a torn copy of one).
		const int sa = E->src[a], sb = E->src[b];
		for (int k = 0; k < 3; ++k) {
			const int s = T->src[v[k]];
			if (s == sa || s == sb)
				return;
		}
	}
	if (SegmentThroughTriangle(E->p + 3 * a, E->p + 3 * b, T->p + 3 * v[0], T->p + 3 * v[1], T->p + 3 * v[2])) {
		if (T->body || E->body)
			out->colliders++;
		else if (em == tm)
			out->self++;
		else if (E->between && wfClothsMeet(E->def, T->def))
			out->cloths++;
		else
			out->clothsApart++;
	}
}

// The entries [*at, *end) that share the key of cell (x, y, z) (a hash: other cells may share it).
static void CellRun(const IxGrid* g, int32_t x, int32_t y, int32_t z, size_t* at, size_t* end)
{
	const uint64_t key = CellKey(x, y, z);
	size_t l = 0, h = g->entryCount;
	while (l < h) {
		const size_t mid = l + (h - l) / 2;
		if (g->entries[mid].key < key)
			l = mid + 1;
		else
			h = mid;
	}
	*at = l;
	for (*end = l; *end < g->entryCount && g->entries[*end].key == key;)
		++*end;
}

// Tests edge e of mesh em (bounds lo, hi) against entry n's triangle in the one cell of the pair
// that counts it: the first cell both boxes cover.
static void TestEntry(const IxGrid* g, const IxMesh* meshes, int em, int e, const double lo[3], const double hi[3], const IxEntry* n,
	wfIntersections* out)
{
	const double* tlo = TriangleBox(&meshes[n->mesh], n->tri);
	const double* thi = tlo + 3;
	for (int k = 0; k < 3; ++k) {
		if (thi[k] < lo[k] || tlo[k] > hi[k] || CellOf(g, Max(lo[k], tlo[k])) != n->cell[k])
			return; // apart, or counted in another cell
	}
	TestPair(meshes, em, e, n->mesh, n->tri, out);
}

static bool InCells(const IxEntry* n, const int32_t c0[3], const int32_t c1[3])
{
	return n->cell[0] >= c0[0] && n->cell[0] <= c1[0] && n->cell[1] >= c0[1] && n->cell[1] <= c1[1] && n->cell[2] >= c0[2] &&
		n->cell[2] <= c1[2];
}

static void CountEdges(const IxGrid* g, const IxMesh* meshes, int count, wfIntersections* out)
{
	for (int em = 0; em < count; ++em) {
		const IxMesh* E = &meshes[em];
		for (int e = 0; e < E->edgeCount; ++e) {
			const double* p = E->p + 3 * E->edge[2 * e];
			const double* q = E->p + 3 * E->edge[2 * e + 1];
			double lo[3], hi[3];
			int32_t c0[3], c1[3];
			int64_t cells = 1;
			bool finite = true;
			for (int k = 0; k < 3; ++k) {
				lo[k] = Min(p[k], q[k]);
				hi[k] = Max(p[k], q[k]);
				finite = finite && isfinite(lo[k]) && isfinite(hi[k]);
				c0[k] = CellOf(g, lo[k]);
				c1[k] = CellOf(g, hi[k]);
				cells *= (int64_t)c1[k] - c0[k] + 1;
			}
			if (!finite)
				continue;
			for (size_t k = 0; k < g->bigCount; ++k)
				TestPair(meshes, em, e, g->big[2 * k], g->big[2 * k + 1], out);
			if (cells > IX_MAX_CELLS) {
				// An edge longer than the grid allows (a stretched or exploded cloth): one scan of
				// every entry, those in its cells tested.
				for (size_t i = 0; i < g->entryCount; ++i) {
					if (InCells(&g->entries[i], c0, c1))
						TestEntry(g, meshes, em, e, lo, hi, &g->entries[i], out);
				}
				continue;
			}
			for (int32_t x = c0[0]; x <= c1[0]; ++x) {
				for (int32_t y = c0[1]; y <= c1[1]; ++y) {
					for (int32_t z = c0[2]; z <= c1[2]; ++z) {
						size_t at, end;
						CellRun(g, x, y, z, &at, &end);
						for (size_t i = at; i < end; ++i) {
							const IxEntry* n = &g->entries[i];
							if (n->cell[0] == x && n->cell[1] == y && n->cell[2] == z)
								TestEntry(g, meshes, em, e, lo, hi, n, out);
						}
					}
				}
			}
		}
	}
}

// ---------------------------------------------------------------- colliders

// A solid: the world's sphere or floor, or a collider at its pose now.
typedef struct IxSolid {
	int type; // wfColliderType
	double c[3], axes[9];
	double radius, radius1, halfLength, half[3];
} IxSolid;

// Signed depth of x inside the solid (> 0 inside), as the contact stage sees the shape
// (cpu_stages.c: a tapered capsule's radius follows the clamped projection on its axis).
static double Depth(const IxSolid* s, const double* x)
{
	const double d[3] = {x[0] - s->c[0], x[1] - s->c[1], x[2] - s->c[2]};
	const double* a = s->axes;
	switch (s->type) {
	case WF_COLLIDER_SPHERE:
	case WF_COLLIDER_CAPSULE: {
		const double L = s->halfLength;
		double u = d[0] * a[0] + d[1] * a[1] + d[2] * a[2];
		u = u < -L ? -L : u > L ? L : u;
		const double f = L > 0.0 ? 0.5 * (u / L + 1.0) : 0.0;
		const double r = s->radius + (s->radius1 - s->radius) * f;
		const double e[3] = {d[0] - a[0] * u, d[1] - a[1] * u, d[2] - a[2] * u};
		return r - sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
	}
	case WF_COLLIDER_BOX: {
		double least = INFINITY;
		for (int i = 0; i < 3; ++i)
			least = fmin(least, s->half[i] - fabs(d[0] * a[3 * i] + d[1] * a[3 * i + 1] + d[2] * a[3 * i + 2]));
		return least;
	}
	default: // plane: the half-space below local +y
		return -(d[0] * a[3] + d[1] * a[4] + d[2] * a[5]);
	}
}

// The deepest point of segment pq in the solid, by golden-section search on the depth along it
// (a concave function for the convex shapes here, so the search finds its maximum).
static double SegmentDepth(const IxSolid* s, const double* p, const double* q)
{
	// The segment's closest point to the centre: exact for a sphere, and for the other shapes a
	// test against their bounding sphere first (most edges are far from every collider).
	const double d[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
	const double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
	double t = dd > 0.0 ? ((s->c[0] - p[0]) * d[0] + (s->c[1] - p[1]) * d[1] + (s->c[2] - p[2]) * d[2]) / dd : 0.0;
	t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
	const double x[3] = {p[0] + d[0] * t - s->c[0], p[1] + d[1] * t - s->c[1], p[2] + d[2] * t - s->c[2]};
	const double distance = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
	if (s->type == WF_COLLIDER_SPHERE)
		return s->radius - distance;
	const double bound = s->type == WF_COLLIDER_BOX ? sqrt(s->half[0] * s->half[0] + s->half[1] * s->half[1] + s->half[2] * s->half[2])
													: s->halfLength + fmax(s->radius, s->radius1);
	if (distance > bound)
		return bound - distance;
	double lo = 0.0, hi = 1.0;
	const double g = 0.6180339887498949;
	double best = -INFINITY;
	for (int it = 0; it < 48; ++it) {
		const double t1 = hi - g * (hi - lo), t2 = lo + g * (hi - lo);
		const double x1[3] = {p[0] + (q[0] - p[0]) * t1, p[1] + (q[1] - p[1]) * t1, p[2] + (q[2] - p[2]) * t1};
		const double x2[3] = {p[0] + (q[0] - p[0]) * t2, p[1] + (q[1] - p[1]) * t2, p[2] + (q[2] - p[2]) * t2};
		const double d1 = Depth(s, x1), d2 = Depth(s, x2);
		best = fmax(best, fmax(d1, d2));
		if (d1 < d2)
			lo = t1;
		else
			hi = t2;
	}
	return best;
}

static void Rotate(wfQuat q, double axes[9])
{
	const double n = sqrt((double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z + (double)q.w * q.w);
	const wfQuat u = n > 0.0 ? (wfQuat){(float)(q.x / n), (float)(q.y / n), (float)(q.z / n), (float)(q.w / n)} : (wfQuat){0, 0, 0, 1};
	wfQuatAxes(u, axes);
}

static int GatherSolids(wfWorld* world, IxSolid* out, int capacity)
{
	int n = 0;
	const wfWorldDef* d = &world->def;
	static const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
	if (d->sphere.enabled && n < capacity) {
		const wfVec3 c = wfWorld_GetSphereCenter(world);
		out[n] = (IxSolid){.type = WF_COLLIDER_SPHERE, .c = {c.x, c.y, c.z}, .radius = d->sphere.radius, .radius1 = d->sphere.radius};
		memcpy(out[n++].axes, identity, sizeof identity);
	}
	if (d->floor.enabled && n < capacity) {
		out[n] = (IxSolid){.type = WF_COLLIDER_PLANE, .c = {0.0, d->floor.height, 0.0}};
		memcpy(out[n++].axes, identity, sizeof identity);
	}
	wfColliderId ids[WF_MAX_COLLIDERS];
	const int count = wfWorld_GetColliders(world, ids, WF_MAX_COLLIDERS);
	for (int i = 0; i < count && i < WF_MAX_COLLIDERS && n < capacity; ++i) {
		const wfColliderDef def = wfCollider_GetDef(ids[i]);
		if (def.type == WF_COLLIDER_MESH)
			continue; // with the cloths' triangles (its crossings) and CountInside
		wfVec3 position;
		wfQuat rotation;
		if (wfCollider_GetTransform(ids[i], &position, &rotation) != WF_OK)
			continue;
		IxSolid* s = &out[n++];
		*s = (IxSolid){.type = (int)def.type,
			.c = {position.x, position.y, position.z},
			.radius = def.radius,
			.radius1 = def.type == WF_COLLIDER_CAPSULE ? def.radius1 : def.radius,
			.halfLength = def.type == WF_COLLIDER_CAPSULE ? def.halfLength : 0.0,
			.half = {def.halfExtents.x, def.halfExtents.y, def.halfExtents.z}};
		Rotate(rotation, s->axes);
	}
	return n;
}

// The depth that counts as inside: past float rounding of a particle placed on the surface.
static double Tolerance(const IxSolid* s)
{
	const double size = s->type == WF_COLLIDER_BOX ? fmax(s->half[0], fmax(s->half[1], s->half[2]))
												   : fmax(1.0, fmax(s->radius, s->radius1) + s->halfLength);
	return 1e-5 * fmax(1.0, size);
}

static void CountSolids(wfWorld* world, const IxMesh* meshes, int count, wfIntersections* out)
{
	IxSolid solids[WF_MAX_COLLIDERS + 2];
	const int n = GatherSolids(world, solids, WF_MAX_COLLIDERS + 2);
	for (int k = 0; k < n; ++k) {
		const IxSolid* s = &solids[k];
		const double tol = Tolerance(s);
		for (int m = 0; m < count; ++m) {
			const IxMesh* M = &meshes[m];
			for (int i = 0; i < M->particleCount; ++i)
				out->colliders += Depth(s, M->p + 3 * i) > tol;
			if (s->type == WF_COLLIDER_PLANE)
				continue; // a segment with both ends above a plane stays above it
			for (int e = 0; e < M->edgeCount; ++e) {
				const double* p = M->p + 3 * M->edge[2 * e];
				const double* q = M->p + 3 * M->edge[2 * e + 1];
				if (Depth(s, p) <= tol && Depth(s, q) <= tol && SegmentDepth(s, p, q) > tol)
					out->colliders++;
			}
		}
	}
}

// Whether the ray from x along +axis passes through triangle t of body b (its projection on the
// other two axes holds x's, touching counted, and it meets the plane ahead of x).
static bool RayHits(const IxMesh* b, int t, const double* x, int axis)
{
	const int u = (axis + 1) % 3, v = (axis + 2) % 3;
	const double* box = TriangleBox(b, t);
	if (box[3 + axis] < x[axis] || box[u] > x[u] || box[3 + u] < x[u] || box[v] > x[v] || box[3 + v] < x[v])
		return false;
	const double* p[3] = {b->p + 3 * b->tri[3 * t], b->p + 3 * b->tri[3 * t + 1], b->p + 3 * b->tri[3 * t + 2]};
	double w[3];
	for (int k = 0; k < 3; ++k) {
		const double* a = p[k];
		const double* c = p[(k + 1) % 3];
		w[k] = (a[u] - x[u]) * (c[v] - x[v]) - (a[v] - x[v]) * (c[u] - x[u]);
	}
	const double sum = w[0] + w[1] + w[2];
	if (sum == 0.0 || !((w[0] >= 0.0 && w[1] >= 0.0 && w[2] >= 0.0) || (w[0] <= 0.0 && w[1] <= 0.0 && w[2] <= 0.0)))
		return false;
	double hit = 0.0;
	for (int k = 0; k < 3; ++k)
		hit += w[(k + 1) % 3] * p[k][axis];
	return hit / sum > x[axis];
}

// The distance from x to triangle t (its closest point, in double).
static double TriangleDistance(const IxMesh* b, int t, const double* x)
{
	const double* a = b->p + 3 * b->tri[3 * t];
	const double* q = b->p + 3 * b->tri[3 * t + 1];
	const double* c = b->p + 3 * b->tri[3 * t + 2];
	double best = INFINITY;
	// The plane's foot when it falls inside, else the closest point of the three sides.
	const double e0[3] = {q[0] - a[0], q[1] - a[1], q[2] - a[2]}, e1[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
	const double d[3] = {x[0] - a[0], x[1] - a[1], x[2] - a[2]};
	const double d00 = e0[0] * e0[0] + e0[1] * e0[1] + e0[2] * e0[2], d01 = e0[0] * e1[0] + e0[1] * e1[1] + e0[2] * e1[2];
	const double d11 = e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2];
	const double d20 = d[0] * e0[0] + d[1] * e0[1] + d[2] * e0[2], d21 = d[0] * e1[0] + d[1] * e1[1] + d[2] * e1[2];
	const double den = d00 * d11 - d01 * d01;
	if (den > 0.0) {
		const double v = (d11 * d20 - d01 * d21) / den, w = (d00 * d21 - d01 * d20) / den;
		if (v >= 0.0 && w >= 0.0 && v + w <= 1.0) {
			const double f[3] = {a[0] + v * e0[0] + w * e1[0] - x[0], a[1] + v * e0[1] + w * e1[1] - x[1],
				a[2] + v * e0[2] + w * e1[2] - x[2]};
			return sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
		}
	}
	const double* s[3][2] = {{a, q}, {q, c}, {c, a}};
	for (int k = 0; k < 3; ++k) {
		const double* p0 = s[k][0];
		const double* p1 = s[k][1];
		const double g[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
		const double gg = g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
		double u = gg > 0.0 ? ((x[0] - p0[0]) * g[0] + (x[1] - p0[1]) * g[1] + (x[2] - p0[2]) * g[2]) / gg : 0.0;
		u = u < 0.0 ? 0.0 : u > 1.0 ? 1.0 : u;
		const double f[3] = {p0[0] + u * g[0] - x[0], p0[1] + u * g[1] - x[1], p0[2] + u * g[2] - x[2]};
		best = fmin(best, sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]));
	}
	return best;
}

// A body's triangles in columns along one axis: a grid of IX_COLUMNS x IX_COLUMNS cells over the
// other two, each cell listing the triangles whose projected bounds cover it (a ray along the axis
// meets only those).
#define IX_COLUMNS 64
typedef struct IxColumns {
	int axis;
	double lo[2], inv[2]; // the grid's corner and cells per metre, on axes axis + 1 and axis + 2
	int* start;           // (IX_COLUMNS^2 + 1)
	int* list;            // the triangles, cell after cell
} IxColumns;

static int ColumnOf(const IxColumns* c, int k, double v)
{
	const double f = (v - c->lo[k]) * c->inv[k];
	return f < 0.0 ? 0 : f >= IX_COLUMNS - 1 ? IX_COLUMNS - 1 : (int)f;
}

static bool BuildColumns(const IxMesh* b, int axis, const double lo[3], const double hi[3], IxColumns* c)
{
	const int u = (axis + 1) % 3, v = (axis + 2) % 3;
	c->axis = axis;
	c->lo[0] = lo[u];
	c->lo[1] = lo[v];
	c->inv[0] = IX_COLUMNS / fmax(hi[u] - lo[u], 1e-9);
	c->inv[1] = IX_COLUMNS / fmax(hi[v] - lo[v], 1e-9);
	c->start = (int*)calloc(IX_COLUMNS * IX_COLUMNS + 1, sizeof(int));
	c->list = NULL;
	if (c->start == NULL)
		return false;
	for (int pass = 0; pass < 2; ++pass) {
		for (int t = 0; t < b->triangleCount; ++t) {
			const double* box = TriangleBox(b, t);
			if (isnan(box[0]))
				continue;
			const int u0 = ColumnOf(c, 0, box[u]), u1 = ColumnOf(c, 0, box[3 + u]);
			const int v0 = ColumnOf(c, 1, box[v]), v1 = ColumnOf(c, 1, box[3 + v]);
			for (int i = u0; i <= u1; ++i) {
				for (int j = v0; j <= v1; ++j) {
					if (pass == 0)
						c->start[i * IX_COLUMNS + j + 1]++;
					else
						c->list[c->start[i * IX_COLUMNS + j]++] = t;
				}
			}
		}
		if (pass == 0) {
			for (int k = 0; k < IX_COLUMNS * IX_COLUMNS; ++k)
				c->start[k + 1] += c->start[k];
			c->list = (int*)malloc((size_t)c->start[IX_COLUMNS * IX_COLUMNS] * sizeof(int) + 1);
			if (c->list == NULL)
				return false;
		}
	}
	// The fill advanced each start to the next cell's: shift them back.
	for (int k = IX_COLUMNS * IX_COLUMNS; k > 0; --k)
		c->start[k] = c->start[k - 1];
	c->start[0] = 0;
	return true;
}

// Cloth particles inside closed bodies: inside by the parity of three axis rays (two of three
// agree, so a ray grazing an edge does not decide alone), and deeper than 1e-5 of the body's size.
static bool CountInside(const IxMesh* meshes, int cloths, int count, wfIntersections* out)
{
	bool ok = true;
	for (int bm = cloths; bm < count && ok; ++bm) {
		const IxMesh* b = &meshes[bm];
		if (!b->closed)
			continue;
		double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
		for (int t = 0; t < b->triangleCount; ++t) {
			for (int k = 0; k < 3; ++k) {
				lo[k] = Min(lo[k], TriangleBox(b, t)[k]);
				hi[k] = Max(hi[k], TriangleBox(b, t)[3 + k]);
			}
		}
		IxColumns columns[3];
		memset(columns, 0, sizeof columns);
		for (int axis = 0; axis < 3 && ok; ++axis)
			ok = BuildColumns(b, axis, lo, hi, &columns[axis]);
		const double tol = 1e-5 * fmax(1.0, b->size);
		for (int m = 0; m < cloths && ok; ++m) {
			for (int i = 0; i < meshes[m].particleCount; ++i) {
				const double* x = meshes[m].p + 3 * i;
				if (!(x[0] > lo[0] && x[0] < hi[0] && x[1] > lo[1] && x[1] < hi[1] && x[2] > lo[2] && x[2] < hi[2]))
					continue;
				int votes = 0;
				for (int axis = 0; axis < 3; ++axis) {
					const IxColumns* c = &columns[axis];
					const int cell = ColumnOf(c, 0, x[(axis + 1) % 3]) * IX_COLUMNS + ColumnOf(c, 1, x[(axis + 2) % 3]);
					int hits = 0;
					for (int k = c->start[cell]; k < c->start[cell + 1]; ++k)
						hits += RayHits(b, c->list[k], x, axis);
					votes += hits & 1;
				}
				if (votes < 2)
					continue;
				double nearest = INFINITY;
				for (int t = 0; t < b->triangleCount && nearest > tol; ++t)
					nearest = fmin(nearest, TriangleDistance(b, t, x));
				out->colliders += nearest > tol;
			}
		}
		for (int axis = 0; axis < 3; ++axis) {
			free(columns[axis].start);
			free(columns[axis].list);
		}
	}
	return ok;
}

wfResult wfWorld_CountIntersections(wfWorld* world, wfIntersections* out)
{
	if (world == NULL || out == NULL)
		return world != NULL ? wfSetError(world, WF_ERROR_INVALID_ARGUMENT, "wfWorld_CountIntersections: out: NULL")
							 : WF_ERROR_INVALID_ARGUMENT;
	memset(out, 0, sizeof *out);
	IxMesh* meshes = (IxMesh*)calloc((size_t)(world->clothCount + world->meshColliderCount + 1), sizeof *meshes);
	if (meshes == NULL)
		return wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "wfWorld_CountIntersections: out of memory");
	int count = 0;
	wfResult r = WF_OK;
	for (int i = 0; i < world->clothCapacity && r == WF_OK; ++i) {
		const wfCloth* c = &world->cloths[i];
		if (c->generation == 0)
			continue;
		IxMesh* m = &meshes[count++];
		r = Load((wfClothId){world, c->index, c->generation}, m);
		m->between = world->def.selfCollision.enabled && world->def.selfCollision.betweenCloths;
		m->def = &c->def;
	}
	const int cloths = count;
	for (int i = 0; i < world->colliderCapacity && r == WF_OK; ++i) {
		const wfColliderSlot* k = &world->colliders[i];
		if (k->generation != 0 && k->body != NULL)
			r = LoadBody((wfColliderId){world, i, k->generation}, &meshes[count++]);
	}
	IxGrid grid;
	memset(&grid, 0, sizeof grid);
	if (r == WF_OK && !BuildGrid(&grid, meshes, count))
		r = wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "wfWorld_CountIntersections: out of memory for the grid");
	if (r == WF_OK) {
		CountEdges(&grid, meshes, count, out);
		CountSolids(world, meshes, cloths, out);
		if (!CountInside(meshes, cloths, count, out))
			r = wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "wfWorld_CountIntersections: out of memory for a body's columns");
	}
	free(grid.entries);
	free(grid.big);
	for (int m = 0; m < count; ++m)
		Free(&meshes[m]);
	free(meshes);
	if (r != WF_OK)
		memset(out, 0, sizeof *out);
	return r;
}
