// Triangle-mesh colliders (WF_COLLIDER_MESH): a body's triangles, its shape over time, a bounding-
// volume hierarchy over them, and the contact of a particle's substep motion with them.
//
// The contact is continuous in each triangle's own coordinates: a particle's height above the
// triangle's plane at the substep's start (against the triangle then) and end (against it now),
// and where it stands over the triangle (barycentric coordinates). A particle that goes from at or
// above the thickness layer to inside it over the triangle, or that is in the layer over it at the
// end, goes back onto the layer. Exact for a triangle that moves without turning within a substep,
// and for any particle speed: a particle that crosses the whole body in one substep is caught by
// the first face it crosses.
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

// WF_MESH_BEHIND, WF_MESH_EDGE_SLACK and WF_MESH_ROUNDS are in gpu/kernel_abi.h (collide_mesh.comp
// shares them): a closed body pushes out particles up to the thickness plus a fraction of its size
// inside; a triangle reaches a little past its sides, so that a particle crossing exactly at an edge
// is caught by both of its triangles; a concave corner may need a push per face.
#define WF_BVH_LEAF 4

static void Reaches(wfMeshBody* b, float thickness);
static bool ConvexEdge(const wfMeshBody* body, int t, int k, wfVec3 n1);
static wfVec3 Corner(const float* v, uint32_t i);

// Plain comparisons: fminf and fmaxf are library calls here (NaN rules), and these run per node.
static inline float Min(float a, float b) { return a < b ? a : b; }
static inline float Max(float a, float b) { return a > b ? a : b; }

// ------------------------------------------------------------------ the def

// The triangles of a mesh def (quads split along their 0-2 diagonal), 3 indices each.
static int CountTriangles(const wfMeshDef* m)
{
	int n = 0;
	for (int f = 0; f < m->faceCount; ++f)
		n += m->faceSizes != NULL && m->faceSizes[f] == 4 ? 2 : 1;
	return n;
}

static void Triangulate(const wfMeshDef* m, uint32_t* tri, int* face)
{
	int corner = 0, t = 0;
	for (int f = 0; f < m->faceCount; ++f) {
		const int size = m->faceSizes != NULL ? m->faceSizes[f] : 3;
		const uint32_t* v = &m->indices[corner];
		for (int k = 0; k + 2 < size; ++k) {
			tri[3 * t] = v[0];
			tri[3 * t + 1] = v[k + 1];
			tri[3 * t + 2] = v[k + 2];
			if (face != NULL)
				face[t] = f;
			t++;
		}
		corner += size;
	}
}

// Twice the triangle's area, in double.
static double DoubleArea(const wfVec3* p, const uint32_t* t, double* longest2)
{
	const wfVec3 a = p[t[0]], b = p[t[1]], c = p[t[2]];
	const double u[3] = {(double)b.x - a.x, (double)b.y - a.y, (double)b.z - a.z};
	const double v[3] = {(double)c.x - a.x, (double)c.y - a.y, (double)c.z - a.z};
	const double w[3] = {(double)c.x - b.x, (double)c.y - b.y, (double)c.z - b.z};
	const double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
	const double lu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2], lv = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
	const double lw = w[0] * w[0] + w[1] * w[1] + w[2] * w[2];
	*longest2 = fmax(lu, fmax(lv, lw));
	return sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
}

bool wfValidateMeshBodyDef(const wfColliderDef* d, char* error, int errorSize)
{
	if (d->mesh == NULL) {
		snprintf(error, (size_t)errorSize, "collider.mesh: NULL (a mesh collider needs its triangles, a wfMeshDef)");
		return false;
	}
	const wfMeshDef* m = d->mesh;
	char inner[224];
	if (!wfValidateMeshDef(m, inner, (int)sizeof inner)) {
		snprintf(error, (size_t)errorSize, "collider.%s", inner);
		return false;
	}
	if (m->vertexCount < 3) {
		snprintf(error, (size_t)errorSize, "collider.mesh.vertexCount: %d, a mesh collider needs at least 3", m->vertexCount);
		return false;
	}
	const int n = CountTriangles(m);
	uint32_t* tri = (uint32_t*)malloc(3 * (size_t)n * sizeof *tri);
	int* face = (int*)malloc((size_t)n * sizeof *face);
	bool ok = tri != NULL && face != NULL;
	if (!ok)
		snprintf(error, (size_t)errorSize, "collider.mesh: out of memory for %d triangles", n);
	if (ok)
		Triangulate(m, tri, face);
	for (int t = 0; ok && t < n; ++t) {
		double longest2;
		const double area2 = DoubleArea(m->positions, tri + 3 * t, &longest2);
		if (!(area2 > 1e-9 * longest2)) {
			snprintf(error, (size_t)errorSize, "collider.mesh face %d: triangle (%u, %u, %u) has zero area (its corners are on one line)",
				face[t], tri[3 * t], tri[3 * t + 1], tri[3 * t + 2]);
			ok = false;
		}
	}
	free(tri);
	free(face);
	if (!ok)
		return false;
	if (d->keyPositions != NULL && d->keyCount == 0) {
		snprintf(error, (size_t)errorSize, "collider.keyPositions: set without keys (allowed: NULL, or one shape per key)");
		return false;
	}
	if (d->keyPositions != NULL && (int64_t)d->keyPositionCount != (int64_t)d->keyCount * m->vertexCount) {
		snprintf(error, (size_t)errorSize,
			"collider.keyPositions: %d positions for %d keys of %d vertices (allowed: keyCount x vertexCount, %lld, one shape per key)",
			d->keyPositionCount, d->keyCount, m->vertexCount, (long long)d->keyCount * m->vertexCount);
		return false;
	}
	for (int64_t i = 0; d->keyPositions != NULL && i < (int64_t)d->keyCount * m->vertexCount; ++i) {
		const wfVec3 p = d->keyPositions[i];
		if (!(fabsf(p.x) <= 1e6f && fabsf(p.y) <= 1e6f && fabsf(p.z) <= 1e6f)) {
			snprintf(error, (size_t)errorSize,
				"collider.keyPositions[%lld] (key %lld, vertex %lld): (%g, %g, %g) must be finite and within 1e6 m", (long long)i,
				(long long)(i / m->vertexCount), (long long)(i % m->vertexCount), (double)p.x, (double)p.y, (double)p.z);
			return false;
		}
	}
	return true;
}

// ------------------------------------------------------------------ the body

// A triangle's side as a directed edge (corner k to corner k + 1) and the triangle.
typedef struct Side {
	uint64_t edge; // first: sorted by it
	int tri;
} Side;

static int CompareSide(const void* a, const void* b)
{
	const uint64_t x = ((const Side*)a)->edge, y = ((const Side*)b)->edge;
	return x < y ? -1 : x > y ? 1 : 0;
}

// The index of the side running `edge` in the sorted sides, or -1.
static int FindSide(const Side* sides, int n, uint64_t edge)
{
	int lo = 0, hi = n;
	while (lo < hi) {
		const int mid = lo + (hi - lo) / 2;
		if (sides[mid].edge < edge)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && sides[lo].edge == edge ? lo : -1;
}

// Whether every edge is on exactly two triangles that run it in opposite directions (a closed,
// consistently wound surface), and then the triangle across each side; out of memory: not closed.
static bool Closed(const uint32_t* tri, int n, int* neighbour)
{
	Side* sides = (Side*)malloc(3 * (size_t)n * sizeof *sides);
	if (sides == NULL)
		return false;
	for (int t = 0; t < n; ++t) {
		for (int k = 0; k < 3; ++k)
			sides[3 * t + k] = (Side){(uint64_t)tri[3 * t + k] << 32 | tri[3 * t + (k + 1) % 3], t};
	}
	qsort(sides, 3 * (size_t)n, sizeof *sides, CompareSide);
	bool closed = true;
	for (int i = 1; closed && i < 3 * n; ++i)
		closed = sides[i].edge != sides[i - 1].edge; // no side run twice the same way
	for (int t = 0; closed && t < n; ++t) {
		for (int k = 0; closed && k < 3; ++k) {
			const int across = FindSide(sides, 3 * n, (uint64_t)tri[3 * t + (k + 1) % 3] << 32 | tri[3 * t + k]);
			closed = across >= 0;
			neighbour[3 * t + k] = closed ? sides[across].tri : -1;
		}
	}
	free(sides);
	return closed;
}

// Top-down: the triangles [first, first + count) of `order` split at the median of their centroids
// along the widest axis, until WF_BVH_LEAF remain. Nodes come depth first.
static void Build(wfMeshBody* b, const float* centroid, int first, int count)
{
	const int node = b->nodeCount++;
	wfBvhNode* out = &b->nodes[node];
	memset(out, 0, sizeof *out);
	if (count <= WF_BVH_LEAF) {
		out->first = first;
		out->count = count;
		return;
	}
	float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (int i = first; i < first + count; ++i) {
		for (int k = 0; k < 3; ++k) {
			lo[k] = Min(lo[k], centroid[3 * b->order[i] + k]);
			hi[k] = Max(hi[k], centroid[3 * b->order[i] + k]);
		}
	}
	const int axis = hi[0] - lo[0] >= hi[1] - lo[1] && hi[0] - lo[0] >= hi[2] - lo[2] ? 0 : hi[1] - lo[1] >= hi[2] - lo[2] ? 1 : 2;
	// Partial sort to the median (quickselect on the axis).
	const int mid = first + count / 2;
	int l = first, r = first + count - 1;
	while (l < r) {
		const float pivot = centroid[3 * b->order[(l + r) / 2] + axis];
		int i = l, j = r;
		while (i <= j) {
			while (centroid[3 * b->order[i] + axis] < pivot)
				i++;
			while (centroid[3 * b->order[j] + axis] > pivot)
				j--;
			if (i <= j) {
				const int t = b->order[i];
				b->order[i++] = b->order[j];
				b->order[j--] = t;
			}
		}
		if (mid <= j)
			r = j;
		else if (mid >= i)
			l = i;
		else
			break;
	}
	Build(b, centroid, first, mid - first);
	b->nodes[node].first = b->nodeCount;
	Build(b, centroid, mid, first + count - mid);
}

wfMeshBody* wfMeshBodyCreate(const wfColliderDef* d, char* error, int errorSize)
{
	if (!wfValidateMeshBodyDef(d, error, errorSize))
		return NULL;
	const wfMeshDef* m = d->mesh;
	wfMeshBody* b = (wfMeshBody*)calloc(1, sizeof *b);
	if (b == NULL) {
		snprintf(error, (size_t)errorSize, "collider.mesh: out of memory");
		return NULL;
	}
	const size_t nv = (size_t)m->vertexCount, nt = (size_t)CountTriangles(m);
	b->vertexCount = m->vertexCount;
	b->triangleCount = (int)nt;
	b->keyCount = d->keyPositions != NULL ? d->keyCount : 0;
	b->tri = (uint32_t*)malloc(3 * nt * sizeof *b->tri);
	b->shape = (float*)malloc(3 * nv * sizeof(float));
	b->target = (float*)malloc(3 * nv * sizeof(float));
	b->next = (float*)malloc(3 * nv * sizeof(float));
	b->start = (double*)malloc(3 * nv * sizeof(double));
	b->end = (double*)malloc(3 * nv * sizeof(double));
	b->v0 = (float*)malloc(3 * nv * sizeof(float));
	b->v1 = (float*)malloc(3 * nv * sizeof(float));
	b->nodes = (wfBvhNode*)malloc(2 * nt * sizeof *b->nodes);
	b->order = (int*)malloc(nt * sizeof *b->order);
	b->neighbour = (int*)malloc(3 * nt * sizeof *b->neighbour);
	b->owner = (int*)malloc(nv * sizeof *b->owner);
	b->normal = (float*)malloc(3 * nv * sizeof *b->normal);
	b->cone = (float*)malloc(nv * sizeof *b->cone);
	b->faceNormal = (float*)malloc(3 * nt * sizeof *b->faceNormal);
	b->edgeBox = (float*)malloc(6 * 2 * nt * sizeof *b->edgeBox);
	b->vertexTriStart = (int*)malloc((nv + 1) * sizeof *b->vertexTriStart);
	b->vertexTri = (int*)malloc(3 * nt * sizeof *b->vertexTri);
	float* centroid = (float*)malloc(3 * nt * sizeof(float));
	if (b->keyCount > 0)
		b->keys = (float*)malloc(3 * nv * (size_t)b->keyCount * sizeof(float));
	if (b->tri == NULL || b->shape == NULL || b->target == NULL || b->next == NULL || b->start == NULL || b->end == NULL || b->v0 == NULL ||
		b->v1 == NULL || b->nodes == NULL || b->order == NULL || b->neighbour == NULL || b->owner == NULL || b->normal == NULL ||
		b->cone == NULL || b->faceNormal == NULL || b->edgeBox == NULL || b->vertexTriStart == NULL || b->vertexTri == NULL ||
		centroid == NULL || (b->keyCount > 0 && b->keys == NULL)) {
		free(centroid);
		wfMeshBodyFree(b);
		snprintf(error, (size_t)errorSize, "collider.mesh: out of memory for %zu vertices and %zu triangles", nv, nt);
		return NULL;
	}
	Triangulate(m, b->tri, NULL);
	for (size_t i = 0; i < nv; ++i) {
		b->shape[3 * i] = m->positions[i].x;
		b->shape[3 * i + 1] = m->positions[i].y;
		b->shape[3 * i + 2] = m->positions[i].z;
	}
	for (size_t i = 0; i < nv * (size_t)b->keyCount; ++i) {
		b->keys[3 * i] = d->keyPositions[i].x;
		b->keys[3 * i + 1] = d->keyPositions[i].y;
		b->keys[3 * i + 2] = d->keyPositions[i].z;
	}
	if (b->keyCount > 0)
		memcpy(b->shape, b->keys, 3 * nv * sizeof(float));
	memcpy(b->target, b->shape, 3 * nv * sizeof(float));
	// A closed mesh is wound outwards: a negative enclosed volume turns every triangle over.
	b->closed = Closed(b->tri, (int)nt, b->neighbour);
	double volume = 0.0;
	for (size_t t = 0; t < nt; ++t) {
		const float* p = b->shape + 3 * b->tri[3 * t];
		const float* q = b->shape + 3 * b->tri[3 * t + 1];
		const float* r = b->shape + 3 * b->tri[3 * t + 2];
		volume += (double)p[0] * ((double)q[1] * r[2] - (double)q[2] * r[1]) + (double)p[1] * ((double)q[2] * r[0] - (double)q[0] * r[2]) +
			(double)p[2] * ((double)q[0] * r[1] - (double)q[1] * r[0]);
	}
	for (size_t t = 0; b->closed && volume < 0.0 && t < nt; ++t) {
		const uint32_t swap = b->tri[3 * t + 1];
		b->tri[3 * t + 1] = b->tri[3 * t + 2];
		b->tri[3 * t + 2] = swap;
	}
	float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
	for (size_t i = 0; i < nv; ++i) {
		for (int k = 0; k < 3; ++k) {
			lo[k] = Min(lo[k], b->shape[3 * i + k]);
			hi[k] = Max(hi[k], b->shape[3 * i + k]);
		}
	}
	b->size = sqrtf((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) + (hi[2] - lo[2]) * (hi[2] - lo[2]));
	for (size_t t = 0; t < nt; ++t) {
		b->order[t] = (int)t;
		for (int k = 0; k < 3; ++k)
			centroid[3 * t + k] = (b->shape[3 * b->tri[3 * t] + k] + b->shape[3 * b->tri[3 * t + 1] + k] +
									  b->shape[3 * b->tri[3 * t + 2] + k]) /
				3.0f;
	}
	Build(b, centroid, 0, (int)nt);
	free(centroid);
	for (size_t i = 0; i < nv; ++i)
		b->owner[i] = -1;
	for (size_t t = nt; t-- > 0;) {
		for (int k = 0; k < 3; ++k)
			b->owner[b->tri[3 * t + k]] = (int)t;
	}
	// Each vertex's triangles in ascending order, a triangle once per corner at the vertex.
	memset(b->vertexTriStart, 0, (nv + 1) * sizeof *b->vertexTriStart);
	for (size_t c = 0; c < 3 * nt; ++c)
		b->vertexTriStart[b->tri[c] + 1]++;
	for (size_t i = 0; i < nv; ++i)
		b->vertexTriStart[i + 1] += b->vertexTriStart[i];
	for (size_t c = 0; c < 3 * nt; ++c)
		b->vertexTri[b->vertexTriStart[b->tri[c]]++] = (int)(c / 3);
	for (size_t i = nv; i > 0; --i)
		b->vertexTriStart[i] = b->vertexTriStart[i - 1];
	b->vertexTriStart[0] = 0;
	return b;
}

void wfMeshBodyFree(wfMeshBody* b)
{
	if (b == NULL)
		return;
	free(b->tri);
	free(b->keys);
	free(b->shape);
	free(b->target);
	free(b->next);
	free(b->start);
	free(b->end);
	free(b->v0);
	free(b->v1);
	free(b->nodes);
	free(b->order);
	free(b->neighbour);
	free(b->owner);
	free(b->normal);
	free(b->cone);
	free(b->faceNormal);
	free(b->edgeBox);
	free(b->vertexTriStart);
	free(b->vertexTri);
	free(b);
}

void wfMeshBodyKeyShape(const wfMeshBody* b, int i, int k, double s, float* out)
{
	const size_t n = 3 * (size_t)b->vertexCount;
	const float* a = b->keys + n * (size_t)i;
	const float* c = b->keys + n * (size_t)k;
	for (size_t j = 0; j < n; ++j)
		out[j] = (float)(a[j] + s * ((double)c[j] - a[j]));
}

static void Pose(const double c[3], wfQuat q, const float* shape, int n, double* out)
{
	double a[9];
	wfQuatAxes(q, a);
	for (int i = 0; i < n; ++i) {
		const double x = shape[3 * i], y = shape[3 * i + 1], z = shape[3 * i + 2];
		for (int k = 0; k < 3; ++k)
			out[3 * i + k] = c[k] + a[k] * x + a[3 + k] * y + a[6 + k] * z;
	}
}

void wfMeshBodyBeginFrame(wfMeshBody* b, const double start[3], wfQuat q0, const double end[3], wfQuat q1, const float* shape0,
	const float* shape1, double frameTime, float* vertexSpeed)
{
	Pose(start, q0, shape0, b->vertexCount, b->start);
	Pose(end, q1, shape1, b->vertexCount, b->end);
	b->placedCloth = 0; // placed for no cloth of this frame yet (a generation is never 0)
	double fastest = 0.0;
	for (int i = 0; i < b->vertexCount; ++i) {
		const double* p = b->start + 3 * i;
		const double* q = b->end + 3 * i;
		fastest = fmax(fastest, (q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]) + (q[2] - p[2]) * (q[2] - p[2]));
	}
	*vertexSpeed = frameTime > 0.0 ? (float)(sqrt(fastest) / frameTime) : 0.0f;
}

// Triangle t's normal (b - a) x (c - a) at v, not normalised.
static void Cross(const wfMeshBody* b, const float* v, int t, float m[3])
{
	const uint32_t* q = b->tri + 3 * t;
	const float* p0 = v + 3 * q[0];
	const float* p1 = v + 3 * q[1];
	const float* p2 = v + 3 * q[2];
	const float u[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]}, w[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
	m[0] = u[1] * w[2] - u[2] * w[1];
	m[1] = u[2] * w[0] - u[0] * w[2];
	m[2] = u[0] * w[1] - u[1] * w[0];
}

void wfMeshBodyPlaceShared(wfMeshBody* b, const double origin[3], double f0, double f1, float margin, float thickness)
{
	const int n = b->vertexCount;
#pragma omp for schedule(static)
	for (int i = 0; i < n; ++i) {
		for (int k = 0; k < 3; ++k) {
			const double p = b->start[3 * i + k], d = b->end[3 * i + k] - p;
			b->v0[3 * i + k] = (float)(p + d * f0 - origin[k]);
			b->v1[3 * i + k] = (float)(p + d * f1 - origin[k]);
		}
	}
	// The vertex normals at the end (closed bodies: where a corner points): each vertex's
	// triangles' cross products summed in triangle order, then normalised.
#pragma omp for schedule(static)
	for (int i = 0; i < n; ++i) {
		float sum[3] = {0.0f, 0.0f, 0.0f};
		for (int r = b->vertexTriStart[i]; b->closed && r < b->vertexTriStart[i + 1]; ++r) {
			float m[3];
			Cross(b, b->v1, b->vertexTri[r], m);
			for (int k = 0; k < 3; ++k)
				sum[k] += m[k];
		}
		const float l = sqrtf(sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]);
		for (int k = 0; k < 3; ++k)
			b->normal[3 * i + k] = b->closed && l > 0.0f ? sum[k] / l : 0.0f;
	}
	Reaches(b, thickness);
	// Refit: the leaves, then each inner node over its children (they follow it). A closed body's
	// leaves also take the box of their convex edges.
#pragma omp for schedule(static)
	for (int i = 0; i < b->nodeCount; ++i) {
		wfBvhNode* node = &b->nodes[i];
		if (node->count == 0)
			continue;
		float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
		float elo[3] = {INFINITY, INFINITY, INFINITY}, ehi[3] = {-INFINITY, -INFINITY, -INFINITY};
		for (int j = node->first; j < node->first + node->count; ++j) {
			const uint32_t* t = b->tri + 3 * b->order[j];
			for (int c = 0; c < 3; ++c) {
				for (int k = 0; k < 3; ++k) {
					const float p = b->v0[3 * t[c] + k], q = b->v1[3 * t[c] + k];
					lo[k] = Min(lo[k], Min(p, q));
					hi[k] = Max(hi[k], Max(p, q));
				}
			}
			const wfVec3 n1 = b->closed ? Corner(b->faceNormal, (uint32_t)b->order[j]) : (wfVec3){NAN, NAN, NAN};
			for (int e = 0; !isnan(n1.x) && e < 3; ++e) {
				if (!ConvexEdge(b, b->order[j], e, n1))
					continue;
				for (int c = 0; c < 2; ++c) {
					for (int k = 0; k < 3; ++k) {
						const float p = b->v1[3 * t[(e + c) % 3] + k];
						elo[k] = Min(elo[k], p);
						ehi[k] = Max(ehi[k], p);
					}
				}
			}
		}
		for (int k = 0; k < 3; ++k) {
			node->lo[k] = lo[k] - margin;
			node->hi[k] = hi[k] + margin;
			b->edgeBox[6 * i + k] = elo[k];
			b->edgeBox[6 * i + 3 + k] = ehi[k];
		}
	}
#pragma omp single
	for (int i = b->nodeCount - 1; i >= 0; --i) {
		wfBvhNode* node = &b->nodes[i];
		if (node->count > 0)
			continue;
		const wfBvhNode* l = &b->nodes[i + 1];
		const wfBvhNode* r = &b->nodes[node->first];
		const float* el = b->edgeBox + 6 * (i + 1);
		const float* er = b->edgeBox + 6 * node->first;
		for (int k = 0; k < 3; ++k) {
			node->lo[k] = Min(l->lo[k], r->lo[k]);
			node->hi[k] = Max(l->hi[k], r->hi[k]);
			b->edgeBox[6 * i + k] = Min(el[k], er[k]);
			b->edgeBox[6 * i + 3 + k] = Max(el[3 + k], er[3 + k]);
		}
	}
}

void wfMeshBodyPlace(wfMeshBody* b, const double origin[3], double f0, double f1, float margin, float thickness, int threads)
{
	const bool team = threads != 1 && b->triangleCount >= WF_MESH_PLACE_PARALLEL_MIN;
#ifdef _OPENMP
	threads = threads > 0 ? threads : omp_get_num_procs();
#endif
	(void)team;
#pragma omp parallel num_threads(threads) if (team)
	wfMeshBodyPlaceShared(b, origin, f0, f1, margin, thickness);
}

// ------------------------------------------------------------------ contact

typedef struct Tri {
	wfVec3 a, b, c; // corners
	wfVec3 n;       // unit normal (b - a) x (c - a)
} Tri;

static wfVec3 Sub(wfVec3 a, wfVec3 b) { return (wfVec3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static float Dot(wfVec3 a, wfVec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

static wfVec3 Corner(const float* v, uint32_t i) { return (wfVec3){v[3 * i], v[3 * i + 1], v[3 * i + 2]}; }

static bool MakeTri(const float* v, const uint32_t* t, Tri* out)
{
	out->a = Corner(v, t[0]);
	out->b = Corner(v, t[1]);
	out->c = Corner(v, t[2]);
	const wfVec3 u = Sub(out->b, out->a), w = Sub(out->c, out->a);
	const wfVec3 n = {u.y * w.z - u.z * w.y, u.z * w.x - u.x * w.z, u.x * w.y - u.y * w.x};
	const float l = sqrtf(Dot(n, n));
	if (!(l > 0.0f))
		return false; // a body squashed flat this substep: the triangle catches nothing
	out->n = (wfVec3){n.x / l, n.y / l, n.z / l};
	return true;
}

// p's barycentric coordinates over the triangle (its projection onto the plane).
static void Bary(const Tri* t, wfVec3 p, float out[3])
{
	const wfVec3 e0 = Sub(t->b, t->a), e1 = Sub(t->c, t->a), e2 = Sub(p, t->a);
	const float d00 = Dot(e0, e0), d01 = Dot(e0, e1), d11 = Dot(e1, e1), d20 = Dot(e2, e0), d21 = Dot(e2, e1);
	const float den = d00 * d11 - d01 * d01;
	const float v = (d11 * d20 - d01 * d21) / den, w = (d00 * d21 - d01 * d20) / den;
	out[0] = 1.0f - v - w;
	out[1] = v;
	out[2] = w;
}

static bool Over(const float b[3]) { return b[0] >= -WF_MESH_EDGE_SLACK && b[1] >= -WF_MESH_EDGE_SLACK && b[2] >= -WF_MESH_EDGE_SLACK; }

static wfVec3 At(const Tri* t, const float b[3])
{
	return (wfVec3){b[0] * t->a.x + b[1] * t->b.x + b[2] * t->c.x, b[0] * t->a.y + b[1] * t->b.y + b[2] * t->c.y,
		b[0] * t->a.z + b[1] * t->b.z + b[2] * t->c.z};
}

// The contact that comes first for a particle: the earliest entry into a layer, the deepest first
// among equals.
typedef struct Contact {
	int tri;
	float s;     // fraction of the substep at which it entered the layer (0: in it at the start)
	float depth; // thickness - height at the end
	float side;  // +1, or -1 for an open mesh's back
} Contact;

// Triangle j against the motion p0 -> x: whether it is a contact, into *c.
static bool Test(const wfMeshBody* body, int j, float thickness, float behind, wfVec3 p0, wfVec3 x, Contact* c)
{
	// A closed body's end height first, from the placed normal (Reaches): most triangles a motion's
	// box meets are far from its end.
	Tri t0, t1;
	if (body->closed) {
		const wfVec3 n1 = Corner(body->faceNormal, (uint32_t)j);
		if (isnan(n1.x) || Dot(Sub(x, Corner(body->v1, body->tri[3 * j])), n1) >= thickness)
			return false;
	}
	if (!MakeTri(body->v1, body->tri + 3 * j, &t1))
		return false;
	float h1 = Dot(Sub(x, t1.a), t1.n);
	if (!MakeTri(body->v0, body->tri + 3 * j, &t0))
		return false;
	float h0 = Dot(Sub(p0, t0.a), t0.n);
	float side = 1.0f;
	if (body->closed) {
		if (h0 < -behind)
			return false; // behind this face by more than the layer: the far side of the body
	} else if (h0 < 0.0f) {
		side = -1.0f;
		h0 = -h0;
		h1 = -h1;
	}
	if (h1 >= thickness)
		return false;
	float b1[3];
	Bary(&t1, x, b1);
	float s = 0.0f;
	if (h0 >= thickness) {
		float b0[3], bs[3];
		Bary(&t0, p0, b0);
		s = (h0 - thickness) / (h0 - h1);
		for (int k = 0; k < 3; ++k)
			bs[k] = b0[k] + s * (b1[k] - b0[k]);
		if (!Over(bs))
			return false;
	} else if (!Over(b1)) {
		return false;
	}
	*c = (Contact){j, s, thickness - h1, side};
	return true;
}

// A depth-first walk of the hierarchy's leaves whose boxes meet [lo, hi] (the tree is balanced:
// depth about log2(triangles / 4), far below the stack's 64).
typedef struct Walk {
	int stack[64];
	int top;
} Walk;

// Whether the boxes [lo, hi] and [blo, bhi] meet.
static inline bool Meets(const float lo[3], const float hi[3], const float blo[3], const float bhi[3])
{
	return !(bhi[0] < lo[0] || blo[0] > hi[0] || bhi[1] < lo[1] || blo[1] > hi[1] || bhi[2] < lo[2] || blo[2] > hi[2]);
}

// The next leaf whose box meets [lo, hi] and, where elo is given (the edge pass), whose convex
// edges' box meets [elo, ehi].
static const wfBvhNode* NextLeaf(const wfMeshBody* b, const float lo[3], const float hi[3], const float* elo, const float* ehi, Walk* w)
{
	while (w->top > 0) {
		const int i = w->stack[--w->top];
		const wfBvhNode* n = &b->nodes[i];
		if (!Meets(lo, hi, n->lo, n->hi) || (elo != NULL && !Meets(elo, ehi, b->edgeBox + 6 * i, b->edgeBox + 6 * i + 3)))
			continue;
		if (n->count > 0)
			return n;
		w->stack[w->top++] = n->first;
		w->stack[w->top++] = i + 1;
	}
	return NULL;
}

// The first contact of the motion p0 -> x among the triangles whose boxes meet the motion's.
static bool First(const wfMeshBody* body, float thickness, float behind, wfVec3 p0, wfVec3 x, Contact* best)
{
	const float lo[3] = {Min(p0.x, x.x), Min(p0.y, x.y), Min(p0.z, x.z)};
	const float hi[3] = {Max(p0.x, x.x), Max(p0.y, x.y), Max(p0.z, x.z)};
	bool found = false;
	Walk walk;
	walk.stack[0] = 0; // the root (the rest of the stack is written before it is read)
	walk.top = 1;
	for (const wfBvhNode* n; (n = NextLeaf(body, lo, hi, NULL, NULL, &walk)) != NULL;) {
		for (int k = n->first; k < n->first + n->count; ++k) {
			Contact c = {0, 0.0f, 0.0f, 1.0f};
			if (Test(body, body->order[k], thickness, behind, p0, x, &c) &&
				(!found || c.s < best->s || (c.s == best->s && c.depth > best->depth))) {
				*best = c;
				found = true;
			}
		}
	}
	return found;
}

bool wfMeshBodyCollide(const wfMeshBody* body, float thickness, float invH, wfVec3 p0, wfVec3* x, wfVec3* normal, wfVec3* surface)
{
	const float behind = body->closed ? thickness + WF_MESH_BEHIND * body->size : 0.0f;
	bool pushed = false;
	for (int round = 0; round < WF_MESH_ROUNDS; ++round) {
		Contact c = {0, 0.0f, 0.0f, 1.0f};
		if (!First(body, thickness, behind, p0, *x, &c))
			break;
		Tri t0, t1;
		MakeTri(body->v0, body->tri + 3 * c.tri, &t0);
		MakeTri(body->v1, body->tri + 3 * c.tri, &t1);
		const wfVec3 n = {c.side * t1.n.x, c.side * t1.n.y, c.side * t1.n.z};
		float b[3];
		Bary(&t1, *x, b);
		if (Over(b)) {
			// Over the triangle at the end: straight back onto the layer, keeping the sliding.
			*x = (wfVec3){x->x + n.x * c.depth, x->y + n.y * c.depth, x->z + n.z * c.depth};
		} else {
			// Past its sides (a fast particle): onto the layer where it entered.
			float b0[3];
			Bary(&t0, p0, b0);
			for (int k = 0; k < 3; ++k)
				b[k] = b0[k] + c.s * (b[k] - b0[k]);
			const wfVec3 q = At(&t1, b);
			*x = (wfVec3){q.x + n.x * thickness, q.y + n.y * thickness, q.z + n.z * thickness};
		}
		const wfVec3 q0 = At(&t0, b), q1 = At(&t1, b);
		*surface = (wfVec3){(q1.x - q0.x) * invH, (q1.y - q0.y) * invH, (q1.z - q0.z) * invH};
		*normal = n;
		pushed = true;
	}
	return pushed;
}

// The closest points of segments a + s (b - a) and c + u (d - c), both parameters strictly inside
// (0, 1) (at an end, the particle's own contact decides); false for parallel segments.
static bool ClosestInside(wfVec3 a, wfVec3 b, wfVec3 c, wfVec3 d, float* s, float* u)
{
	const wfVec3 e = Sub(b, a), f = Sub(d, c), r = Sub(a, c);
	const float ee = Dot(e, e), ff = Dot(f, f), ef = Dot(e, f), er = Dot(e, r), fr = Dot(f, r);
	const float den = ee * ff - ef * ef;
	if (!(den > 1e-6f * ee * ff))
		return false;
	*s = (ef * fr - ff * er) / den;
	*u = (ee * fr - ef * er) / den;
	return *s > 0.0f && *s < 1.0f && *u > 0.0f && *u < 1.0f;
}

static wfVec3 Lerp(wfVec3 a, wfVec3 b, float s) { return (wfVec3){a.x + s * (b.x - a.x), a.y + s * (b.y - a.y), a.z + s * (b.z - a.z)}; }

// Whether side k of triangle t (unit normal n1) is a convex edge of the placed body, taken from
// its lower triangle: the far corner of the triangle across is below t's plane.
static bool ConvexEdge(const wfMeshBody* body, int t, int k, wfVec3 n1)
{
	const int across = body->neighbour[3 * t + k];
	if (across < t)
		return false; // each edge once: from its lower triangle
	const uint32_t* q = body->tri + 3 * t;
	const uint32_t* o = body->tri + 3 * across;
	const uint32_t far = o[0] != q[k] && o[0] != q[(k + 1) % 3] ? o[0] : o[1] != q[k] && o[1] != q[(k + 1) % 3] ? o[1] : o[2];
	return Dot(Sub(Corner(body->v1, far), Corner(body->v1, q[k])), n1) < -1e-6f * body->size;
}

// How far the edge walk grows a cloth edge's box beyond the reach: the closest points' rounding (a
// few units in the last place of the coordinates) and a thousandth of the reach.
static float EdgeSlack(float reach, wfVec3 a, wfVec3 b)
{
	const float big = Max(Max(Max(fabsf(a.x), fabsf(a.y)), Max(fabsf(a.z), fabsf(b.x))), Max(fabsf(b.y), fabsf(b.z)));
	return 1.001f * reach + 1e-6f * (1.0f + big);
}

bool wfMeshBodyCollideEdge(const wfMeshBody* body, float thickness, float invH, wfVec3 a, wfVec3 b, float wa, float wb, wfVec3* da,
	wfVec3* db, wfVec3* normal, wfVec3* surface)
{
	if (!body->closed)
		return false;
	// Near the edge only: within the thickness plus half the cloth edge (how deep a body's edge can
	// reach between two particles that are themselves outside). The walk takes the leaves whose
	// boxes meet the cloth edge's and whose convex edges' boxes meet it grown by that reach, and a
	// little more: every edge it leaves out of the first fails the reach test below.
	const wfVec3 ab = Sub(b, a);
	const float reach = thickness + 0.5f * sqrtf(Dot(ab, ab));
	const float grow = EdgeSlack(reach, a, b);
	const float lo[3] = {Min(a.x, b.x), Min(a.y, b.y), Min(a.z, b.z)};
	const float hi[3] = {Max(a.x, b.x), Max(a.y, b.y), Max(a.z, b.z)};
	const float elo[3] = {lo[0] - grow, lo[1] - grow, lo[2] - grow}, ehi[3] = {hi[0] + grow, hi[1] + grow, hi[2] + grow};
	float deepest = 0.0f, bestS = 0.0f;
	wfVec3 dir = {0.0f, 0.0f, 0.0f};
	Walk walk;
	walk.stack[0] = 0; // the root (the rest of the stack is written before it is read)
	walk.top = 1;
	for (const wfBvhNode* n; (n = NextLeaf(body, lo, hi, elo, ehi, &walk)) != NULL;) {
		for (int j = n->first; j < n->first + n->count; ++j) {
			const int t = body->order[j];
			const wfVec3 n1 = Corner(body->faceNormal, (uint32_t)t); // the placed normals (Reaches)
			if (isnan(n1.x))
				continue;
			for (int k = 0; k < 3; ++k) {
				if (!ConvexEdge(body, t, k, n1))
					continue; // flat or concave (a chord above both faces stays outside), or the other triangle's
				const int across = body->neighbour[3 * t + k];
				const uint32_t* q = body->tri + 3 * t;
				const wfVec3 c = Corner(body->v1, q[k]), d = Corner(body->v1, q[(k + 1) % 3]);
				float s, u;
				if (!ClosestInside(a, b, c, d, &s, &u))
					continue;
				const wfVec3 r = Sub(Lerp(a, b, s), Lerp(c, d, u));
				const wfVec3 n2 = Corner(body->faceNormal, (uint32_t)across);
				if (Dot(r, r) > reach * reach || isnan(n2.x))
					continue;
				const float d1 = Dot(r, n1), d2 = Dot(r, n2);
				// In the plane across the edge: beyond both faces the distance is to the edge, else
				// to the face whose plane it is above (inside the body: the nearer face, negative).
				float distance;
				wfVec3 away;
				if (d1 >= 0.0f && d2 >= 0.0f) {
					distance = sqrtf(Dot(r, r));
					const wfVec3 m = {n1.x + n2.x, n1.y + n2.y, n1.z + n2.z};
					const float l = distance > 1e-7f ? distance : sqrtf(Dot(m, m));
					away = distance > 1e-7f ? (wfVec3){r.x / l, r.y / l, r.z / l} : (wfVec3){m.x / l, m.y / l, m.z / l};
				} else {
					distance = d1 > d2 ? d1 : d2;
					away = d1 > d2 ? n1 : n2;
				}
				const float depth = thickness - distance;
				if (depth > deepest) {
					deepest = depth;
					bestS = s;
					dir = away;
					const wfVec3 q0 = Lerp(Corner(body->v0, q[k]), Corner(body->v0, q[(k + 1) % 3]), u);
					const wfVec3 q1 = Lerp(c, d, u);
					*surface = (wfVec3){(q1.x - q0.x) * invH, (q1.y - q0.y) * invH, (q1.z - q0.z) * invH};
				}
			}
		}
	}
	// The closest point p = (1 - s) a + s b moves by depth along dir: a and b by their shares.
	const float den = wa * (1.0f - bestS) * (1.0f - bestS) + wb * bestS * bestS;
	if (!(deepest > 0.0f) || !(den > 0.0f))
		return false;
	const float ka = wa * (1.0f - bestS) * deepest / den, kb = wb * bestS * deepest / den;
	*da = (wfVec3){dir.x * ka, dir.y * ka, dir.z * ka};
	*db = (wfVec3){dir.x * kb, dir.y * kb, dir.z * kb};
	*normal = dir;
	return true;
}

bool wfMeshBodyCollideCorners(const wfMeshBody* body, float thickness, const wfVec3 x[3], const float w[3], wfVec3 delta[3])
{
	if (!body->closed)
		return false;
	Tri t;
	t.a = x[0];
	t.b = x[1];
	t.c = x[2];
	const wfVec3 e0 = Sub(x[1], x[0]), e1 = Sub(x[2], x[0]), e2 = Sub(x[2], x[1]);
	const wfVec3 m = {e0.y * e1.z - e0.z * e1.y, e0.z * e1.x - e0.x * e1.z, e0.x * e1.y - e0.y * e1.x};
	const float l = sqrtf(Dot(m, m));
	if (!(l > 0.0f))
		return false;
	t.n = (wfVec3){m.x / l, m.y / l, m.z / l};
	// How deep a corner can be through the triangle while its corners are outside: half its longest side.
	const float reach = thickness + 0.5f * sqrtf(Max(Dot(e0, e0), Max(Dot(e1, e1), Dot(e2, e2))));
	float lo[3], hi[3];
	for (int i = 0; i < 3; ++i) {
		lo[i] = Min((&x[0].x)[i], Min((&x[1].x)[i], (&x[2].x)[i]));
		hi[i] = Max((&x[0].x)[i], Max((&x[1].x)[i], (&x[2].x)[i]));
	}
	bool any = false;
	for (int k = 0; k < 3; ++k)
		delta[k] = (wfVec3){0.0f, 0.0f, 0.0f};
	Walk walk;
	walk.stack[0] = 0; // the root (the rest of the stack is written before it is read)
	walk.top = 1;
	for (const wfBvhNode* node; (node = NextLeaf(body, lo, hi, NULL, NULL, &walk)) != NULL;) {
		for (int j = node->first; j < node->first + node->count; ++j) {
			const int bt = body->order[j];
			for (int c = 0; c < 3; ++c) {
				const uint32_t v = body->tri[3 * bt + c];
				if (body->owner[v] != bt)
					continue; // each vertex once
				const wfVec3 p = Corner(body->v1, v), nv = Corner(body->normal, v);
				const float cosine = Dot(t.n, nv);
				if (fabsf(cosine) < 0.1f)
					continue; // the triangle edge-on to where the corner points: its sides decide
				const wfVec3 n = cosine > 0.0f ? t.n : (wfVec3){-t.n.x, -t.n.y, -t.n.z};
				const float h = Dot(Sub(x[0], p), n); // the triangle's height over the corner, outwards
				if (h >= thickness || h < -reach)
					continue;
				float b[3];
				Bary(&t, p, b);
				if (b[0] < 0.0f || b[1] < 0.0f || b[2] < 0.0f)
					continue; // the corner is beside the triangle: its particles' and edges' contacts
				const float den = w[0] * b[0] * b[0] + w[1] * b[1] * b[1] + w[2] * b[2] * b[2];
				if (!(den > 0.0f))
					continue;
				for (int k = 0; k < 3; ++k) {
					const float move = w[k] * b[k] * (thickness - h) / den;
					delta[k] = (wfVec3){delta[k].x + n.x * move, delta[k].y + n.y * move, delta[k].z + n.z * move};
				}
				any = true;
			}
		}
	}
	return any;
}

// ------------------------------------------------------------------ attachments

wfVec3 wfMeshBodyPoint(const wfMeshBody* body, const float* v, const wfAttachment* a)
{
	Tri t;
	const bool flat = !MakeTri(v, body->tri + 3 * a->triangle, &t);
	const float b[3] = {1.0f - a->u - a->v, a->u, a->v};
	const wfVec3 q = At(&t, b);
	if (flat)
		return q;
	// The triangle's frame: its first side, its normal, and their cross product.
	wfVec3 e = Sub(t.b, t.a);
	const float l = sqrtf(Dot(e, e));
	e = (wfVec3){e.x / l, e.y / l, e.z / l};
	const wfVec3 n = t.n, s = {n.y * e.z - n.z * e.y, n.z * e.x - n.x * e.z, n.x * e.y - n.y * e.x};
	const wfVec3 o = a->offset;
	return (
		wfVec3){q.x + o.x * e.x + o.y * n.x + o.z * s.x, q.y + o.x * e.y + o.y * n.y + o.z * s.y, q.z + o.x * e.z + o.y * n.z + o.z * s.z};
}

void wfMeshBodyClosest(const wfMeshBody* body, const double* world, const double p[3], wfAttachment* out)
{
	double best = INFINITY;
	for (int t = 0; t < body->triangleCount; ++t) {
		const double* a = world + 3 * body->tri[3 * t];
		const double* b = world + 3 * body->tri[3 * t + 1];
		const double* c = world + 3 * body->tri[3 * t + 2];
		const double e0[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e1[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
		const double n[3] = {e0[1] * e1[2] - e0[2] * e1[1], e0[2] * e1[0] - e0[0] * e1[2], e0[0] * e1[1] - e0[1] * e1[0]};
		const double nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
		if (!(nn > 0.0))
			continue;
		// The plane's foot in barycentric weights, clamped into the triangle by the closest point of
		// the nearest side when it falls outside.
		const double d[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
		const double d00 = e0[0] * e0[0] + e0[1] * e0[1] + e0[2] * e0[2], d01 = e0[0] * e1[0] + e0[1] * e1[1] + e0[2] * e1[2];
		const double d11 = e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2];
		const double d20 = d[0] * e0[0] + d[1] * e0[1] + d[2] * e0[2], d21 = d[0] * e1[0] + d[1] * e1[1] + d[2] * e1[2];
		const double den = d00 * d11 - d01 * d01;
		double u = (d11 * d20 - d01 * d21) / den, w = (d00 * d21 - d01 * d20) / den;
		if (u < 0.0 || w < 0.0 || u + w > 1.0) {
			// The closest point of each side (a-b: w = 0, a-c: u = 0, b-c: u + w = 1).
			double bestSide = INFINITY, su = 0.0, sw = 0.0;
			const double sides[3][2][2] = {{{0, 0}, {1, 0}}, {{0, 0}, {0, 1}}, {{1, 0}, {0, 1}}};
			for (int k = 0; k < 3; ++k) {
				const double u0 = sides[k][0][0], w0 = sides[k][0][1], u1 = sides[k][1][0], w1 = sides[k][1][1];
				const double q0[3] = {a[0] + u0 * e0[0] + w0 * e1[0], a[1] + u0 * e0[1] + w0 * e1[1], a[2] + u0 * e0[2] + w0 * e1[2]};
				const double g[3] = {(u1 - u0) * e0[0] + (w1 - w0) * e1[0], (u1 - u0) * e0[1] + (w1 - w0) * e1[1],
					(u1 - u0) * e0[2] + (w1 - w0) * e1[2]};
				const double gg = g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
				double s = ((p[0] - q0[0]) * g[0] + (p[1] - q0[1]) * g[1] + (p[2] - q0[2]) * g[2]) / gg;
				s = s < 0.0 ? 0.0 : s > 1.0 ? 1.0 : s;
				const double f[3] = {q0[0] + s * g[0] - p[0], q0[1] + s * g[1] - p[1], q0[2] + s * g[2] - p[2]};
				const double dist = f[0] * f[0] + f[1] * f[1] + f[2] * f[2];
				if (dist < bestSide) {
					bestSide = dist;
					su = u0 + s * (u1 - u0);
					sw = w0 + s * (w1 - w0);
				}
			}
			u = su;
			w = sw;
		}
		const double q[3] = {a[0] + u * e0[0] + w * e1[0], a[1] + u * e0[1] + w * e1[1], a[2] + u * e0[2] + w * e1[2]};
		const double f[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
		const double dist = f[0] * f[0] + f[1] * f[1] + f[2] * f[2];
		if (dist < best) {
			best = dist;
			out->triangle = t;
			out->u = (float)u;
			out->v = (float)w;
			// p - q in the triangle's frame (wfMeshBodyPoint).
			const double le = sqrt(d00), ln = sqrt(nn);
			const double e[3] = {e0[0] / le, e0[1] / le, e0[2] / le}, m[3] = {n[0] / ln, n[1] / ln, n[2] / ln};
			const double s[3] = {m[1] * e[2] - m[2] * e[1], m[2] * e[0] - m[0] * e[2], m[0] * e[1] - m[1] * e[0]};
			out->offset = (wfVec3){(float)(f[0] * e[0] + f[1] * e[1] + f[2] * e[2]), (float)(f[0] * m[0] + f[1] * m[1] + f[2] * m[2]),
				(float)(f[0] * s[0] + f[1] * s[1] + f[2] * s[2])};
		}
	}
}

// The sharp features' reaches (wfMeshBody.edgeReach, cornerReach) at the placed shape. A convex edge
// whose faces' normals are theta apart: a chord of a cloth edge over it, both ends at the thickness
// t from their faces, reaches the body only when longer than 2 t cos^2(theta/2) / sin(theta/2)
// (ends d from the edge along the faces: the chord's middle is t cos(theta/2) - d sin(theta/2)
// above it, and d is up to half its length over cos(theta/2)). A vertex whose faces lean phi from
// its normal: a plane over corners t above the faces reaches it past t / tan(phi) from it.
static void Reaches(wfMeshBody* b, float thickness)
{
	if (!b->closed) {
#pragma omp single
		b->edgeReach = b->cornerReach = INFINITY;
		return;
	}
	// Each triangle's unit normal, once (NaN where it is degenerate: it catches nothing), then the
	// least cosine between each vertex's normal and its whole faces'.
	float* normal = b->faceNormal;
#pragma omp for schedule(static)
	for (int t = 0; t < b->triangleCount; ++t) {
		Tri t1;
		float* n = normal + 3 * t;
		const bool whole = MakeTri(b->v1, b->tri + 3 * t, &t1);
		n[0] = whole ? t1.n.x : NAN;
		n[1] = whole ? t1.n.y : NAN;
		n[2] = whole ? t1.n.z : NAN;
	}
#pragma omp for schedule(static)
	for (int i = 0; i < b->vertexCount; ++i) {
		float cone = 1.0f;
		for (int r = b->vertexTriStart[i]; r < b->vertexTriStart[i + 1]; ++r) {
			const wfVec3 n = Corner(normal, (uint32_t)b->vertexTri[r]);
			if (!isnan(n.x))
				cone = Min(cone, Dot(n, Corner(b->normal, (uint32_t)i)));
		}
		b->cone[i] = cone;
	}
	// Both reaches fall as the faces' angle grows, that is as the cosine falls: each is the reach
	// at the least cosine, over the edges between two whole triangles and over the vertices.
#pragma omp single
	{
		float edge = 1.0f, corner = 1.0f;
		for (int t = 0; t < b->triangleCount; ++t) {
			const wfVec3 n1 = Corner(normal, (uint32_t)t);
			if (isnan(n1.x))
				continue;
			for (int c = 0; c < 3; ++c) {
				const int across = b->neighbour[3 * t + c];
				if (across < t || isnan(normal[3 * across]))
					continue;
				edge = Min(edge, Max(-1.0f, Min(1.0f, Dot(n1, Corner(normal, (uint32_t)across)))));
			}
		}
		for (int i = 0; i < b->vertexCount; ++i)
			corner = Min(corner, Max(-1.0f, Min(1.0f, b->cone[i])));
		b->edgeReach = b->cornerReach = INFINITY;
		const float half = 0.5f * acosf(edge), s = sinf(half), k = cosf(half);
		if (s > 1e-6f)
			b->edgeReach = 2.0f * thickness * k * k / s;
		const float phi = acosf(corner);
		if (phi > 1e-6f)
			b->cornerReach = thickness / tanf(phi);
	}
}
