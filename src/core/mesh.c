// Mesh cloths: the model of a polygon mesh (constraints from its edges and faces), its colouring,
// and the Wavefront OBJ reader.
#define _POSIX_C_SOURCE 200809L // stat
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { WF_MESH_MAX_ELEMENTS = 1 << 24 };

bool wfValidateMeshDef(const wfMeshDef* mesh, char* error, int errorSize)
{
	if (mesh->vertexCount < 2 || mesh->vertexCount > WF_MESH_MAX_ELEMENTS) {
		snprintf(error, (size_t)errorSize, "mesh.vertexCount: %d is out of range [2, %d]", mesh->vertexCount, WF_MESH_MAX_ELEMENTS);
		return false;
	}
	if (mesh->faceCount < 1 || mesh->faceCount > WF_MESH_MAX_ELEMENTS) {
		snprintf(error, (size_t)errorSize, "mesh.faceCount: %d is out of range [1, %d]", mesh->faceCount, WF_MESH_MAX_ELEMENTS);
		return false;
	}
	if (mesh->positions == NULL || mesh->indices == NULL) {
		snprintf(error, (size_t)errorSize, "mesh.%s: NULL", mesh->positions == NULL ? "positions" : "indices");
		return false;
	}
	for (int i = 0; i < mesh->vertexCount; ++i) {
		wfVec3 p = mesh->positions[i];
		if (!(fabsf(p.x) <= 1e6f && fabsf(p.y) <= 1e6f && fabsf(p.z) <= 1e6f)) {
			snprintf(error, (size_t)errorSize, "mesh.positions[%d]: (%g, %g, %g) must be finite and within 1e6 m", i, (double)p.x,
				(double)p.y, (double)p.z);
			return false;
		}
	}
	int corner = 0;
	for (int f = 0; f < mesh->faceCount; ++f) {
		int size = mesh->faceSizes != NULL ? mesh->faceSizes[f] : 3;
		if (size != 3 && size != 4) {
			snprintf(error, (size_t)errorSize, "mesh.faceSizes[%d]: %d corners, allowed 3 or 4", f, size);
			return false;
		}
		const uint32_t* v = &mesh->indices[corner];
		for (int k = 0; k < size; ++k) {
			if (v[k] >= (uint32_t)mesh->vertexCount) {
				snprintf(error, (size_t)errorSize, "mesh.indices[%d]: %u is out of range [0, %d]", corner + k, v[k], mesh->vertexCount - 1);
				return false;
			}
			for (int j = 0; j < k; ++j) {
				if (v[j] == v[k]) {
					snprintf(error, (size_t)errorSize, "mesh face %d: vertex %u appears twice", f, v[k]);
					return false;
				}
			}
		}
		corner += size;
	}
	// The arrays' own lengths, so that a short one is refused instead of read past its end.
	if (mesh->uvs != NULL && mesh->uvCount != mesh->vertexCount) {
		snprintf(error, (size_t)errorSize, "mesh.uvCount: %d rows of uvs for %d vertices (allowed: vertexCount, %d, or uvs NULL)",
			mesh->uvCount, mesh->vertexCount, mesh->vertexCount);
		return false;
	}
	if (mesh->cornerUVs != NULL && mesh->cornerUVCount != corner) {
		snprintf(error, (size_t)errorSize,
			"mesh.cornerUVCount: %d rows of cornerUVs for %d face corners (allowed: the corners, %d, or cornerUVs NULL)",
			mesh->cornerUVCount, corner, corner);
		return false;
	}
	return true;
}

// ------------------------------------------------------------------ the model

typedef struct EdgeRef {
	uint64_t key; // (min << 32) | max of the edge's vertices
	int face;     // the face it belongs to
	int start;    // the face's first corner in indices
	int size;     // the face's corner count
} EdgeRef;

typedef struct Candidate {
	uint64_t key; // (a << 32) | b, a < b
	uint32_t family;
} Candidate;

static int CompareEdgeRef(const void* x, const void* y)
{
	const EdgeRef* p = (const EdgeRef*)x;
	const EdgeRef* q = (const EdgeRef*)y;
	if (p->key != q->key)
		return p->key < q->key ? -1 : 1;
	return p->face < q->face ? -1 : p->face > q->face;
}

static int CompareCandidate(const void* x, const void* y)
{
	const Candidate* p = (const Candidate*)x;
	const Candidate* q = (const Candidate*)y;
	if (p->key != q->key)
		return p->key < q->key ? -1 : 1;
	return p->family < q->family ? -1 : p->family > q->family;
}

static uint64_t PairKey(uint32_t a, uint32_t b) { return a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a; }

// The corner of a face next to corner vertex u that is not vertex v (a quad's outer neighbour).
static uint32_t OtherNeighbour(const uint32_t* face, int size, uint32_t u, uint32_t v)
{
	for (int k = 0; k < size; ++k) {
		if (face[k] != u)
			continue;
		uint32_t next = face[(k + 1) % size], prev = face[(k + size - 1) % size];
		return next == v ? prev : next;
	}
	return u;
}

// The corner of a triangle that is on neither end of the edge (u, v).
static uint32_t Opposite(const uint32_t* face, uint32_t u, uint32_t v)
{
	for (int k = 0; k < 3; ++k) {
		if (face[k] != u && face[k] != v)
			return face[k];
	}
	return u;
}

static float Dist4(wfVec4 p, wfVec4 q)
{
	float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
	return sqrtf(dx * dx + dy * dy + dz * dz);
}

typedef struct OrderItem {
	int degree;
	int index;
} OrderItem;

static int CompareOrder(const void* x, const void* y)
{
	const OrderItem* p = (const OrderItem*)x;
	const OrderItem* q = (const OrderItem*)y;
	if (p->degree != q->degree)
		return p->degree > q->degree ? -1 : 1;
	return p->index < q->index ? -1 : p->index > q->index;
}

int wfColorMesh(const wfConstraint* constraints, int count, int particleCount, int* color)
{
	// Index order first.
	int plain = wfColorGreedy(constraints, count, particleCount, color);
	if (plain < 0 || count == 0)
		return plain;
	// Most-connected first (Welsh and Powell): a constraint's degree is the constraints at its two ends.
	int* degree = (int*)calloc((size_t)particleCount, sizeof(int));
	OrderItem* order = (OrderItem*)malloc((size_t)count * sizeof(OrderItem));
	wfConstraint* ordered = (wfConstraint*)malloc((size_t)count * sizeof(wfConstraint));
	int* second = (int*)malloc((size_t)count * sizeof(int));
	int best = plain;
	if (degree != NULL && order != NULL && ordered != NULL && second != NULL) {
		for (int k = 0; k < count; ++k) {
			degree[constraints[k].a]++;
			degree[constraints[k].b]++;
		}
		for (int k = 0; k < count; ++k)
			order[k] = (OrderItem){degree[constraints[k].a] + degree[constraints[k].b], k};
		qsort(order, (size_t)count, sizeof *order, CompareOrder);
		for (int k = 0; k < count; ++k)
			ordered[k] = constraints[order[k].index];
		int sorted = wfColorGreedy(ordered, count, particleCount, second);
		if (sorted >= 0 && sorted < plain) {
			for (int k = 0; k < count; ++k)
				color[order[k].index] = second[k];
			best = sorted;
		}
	}
	free(degree);
	free(order);
	free(ordered);
	free(second);
	return best;
}

wfResult wfBuildMeshModel(const wfClothDef* def, wfClothModel* m)
{
	memset(m, 0, sizeof *m);
	const wfMeshDef* mesh = def->mesh;
	const int n = mesh->vertexCount;
	// Wind's per-column phase sees one column: every particle of a mesh is in column 0.
	m->cols = 1;
	m->rows = n;
	m->mesh = true;
	m->particleCount = n;

	int corners = 0, triangles = 0;
	for (int f = 0; f < mesh->faceCount; ++f) {
		int size = mesh->faceSizes != NULL ? mesh->faceSizes[f] : 3;
		corners += size;
		triangles += size - 2;
	}
	m->restPositions = (wfVec4*)wfAlloc((size_t)n * sizeof(wfVec4));
	m->uvs = (float*)wfAlloc((size_t)n * 2 * sizeof(float));
	m->indices = (uint32_t*)wfAlloc((size_t)triangles * 3 * sizeof(uint32_t));
	m->cornerUVs = mesh->cornerUVs != NULL ? (float*)wfAlloc((size_t)triangles * 6 * sizeof(float)) : NULL;
	EdgeRef* edges = (EdgeRef*)malloc((size_t)corners * sizeof(EdgeRef));
	// At most: every face edge, two diagonals per quad, and two bending pairs per edge.
	size_t maxCandidates = (size_t)corners * 3 + (size_t)mesh->faceCount * 2;
	Candidate* cand = (Candidate*)malloc(maxCandidates * sizeof(Candidate));
	if (!m->restPositions || !m->uvs || !m->indices || (mesh->cornerUVs != NULL && !m->cornerUVs) || !edges || !cand) {
		free(edges);
		free(cand);
		wfFreeModel(m);
		return WF_ERROR_OUT_OF_MEMORY;
	}
	for (int i = 0; i < n; ++i) {
		wfVec3 p = mesh->positions[i];
		m->restPositions[i] = (wfVec4){p.x, p.y, p.z, 0.0f};
		m->uvs[2 * i + 0] = mesh->uvs != NULL ? def->uvRepeat * mesh->uvs[2 * i + 0] : 0.0f;
		m->uvs[2 * i + 1] = mesh->uvs != NULL ? def->uvRepeat * mesh->uvs[2 * i + 1] : 0.0f;
	}

	// Triangles for drawing (a quad splits along its 0-2 diagonal, larger faces do not occur here)
	// and the face edges.
	int t = 0, e = 0, start = 0;
	for (int f = 0; f < mesh->faceCount; ++f) {
		int size = mesh->faceSizes != NULL ? mesh->faceSizes[f] : 3;
		const uint32_t* v = &mesh->indices[start];
		for (int k = 1; k + 1 < size; ++k) {
			int corner[3] = {0, k, k + 1};
			for (int j = 0; j < 3; ++j) {
				m->indices[3 * t + j] = v[corner[j]];
				if (m->cornerUVs != NULL) {
					m->cornerUVs[6 * t + 2 * j + 0] = def->uvRepeat * mesh->cornerUVs[2 * (start + corner[j]) + 0];
					m->cornerUVs[6 * t + 2 * j + 1] = def->uvRepeat * mesh->cornerUVs[2 * (start + corner[j]) + 1];
				}
			}
			t++;
		}
		for (int k = 0; k < size; ++k)
			edges[e++] = (EdgeRef){PairKey(v[k], v[(k + 1) % size]), f, start, size};
		start += size;
	}
	m->triangleCount = t;
	qsort(edges, (size_t)e, sizeof *edges, CompareEdgeRef);

	// Candidate constraints: stretch on the edges, shear on quad diagonals, bending across interior edges.
	size_t c = 0;
	for (int i = 0; i < e;) {
		int j = i;
		while (j < e && edges[j].key == edges[i].key)
			++j;
		uint32_t u = (uint32_t)(edges[i].key >> 32), v = (uint32_t)edges[i].key;
		if (def->structural)
			cand[c++] = (Candidate){edges[i].key, WF_FAMILY_STRETCH};
		if (def->bending && j - i == 2) {
			const EdgeRef* f = &edges[i];
			const EdgeRef* g = &edges[i + 1];
			const uint32_t* fv = &mesh->indices[f->start];
			const uint32_t* gv = &mesh->indices[g->start];
			if (f->size == 3 && g->size == 3) {
				uint32_t a = Opposite(fv, u, v), b = Opposite(gv, u, v);
				if (a != b)
					cand[c++] = (Candidate){PairKey(a, b), WF_FAMILY_BEND};
			} else if (f->size == 4 && g->size == 4) {
				uint32_t ends[2] = {u, v};
				for (int k = 0; k < 2; ++k) {
					uint32_t other = ends[1 - k];
					uint32_t a = OtherNeighbour(fv, 4, ends[k], other), b = OtherNeighbour(gv, 4, ends[k], other);
					if (a != b)
						cand[c++] = (Candidate){PairKey(a, b), WF_FAMILY_BEND};
				}
			}
		}
		i = j;
	}
	if (def->shear) {
		start = 0;
		for (int f = 0; f < mesh->faceCount; ++f) {
			int size = mesh->faceSizes != NULL ? mesh->faceSizes[f] : 3;
			const uint32_t* v = &mesh->indices[start];
			if (size == 4) {
				cand[c++] = (Candidate){PairKey(v[0], v[2]), WF_FAMILY_SHEAR};
				cand[c++] = (Candidate){PairKey(v[1], v[3]), WF_FAMILY_SHEAR};
			}
			start += size;
		}
	}
	free(edges);
	// One constraint per particle pair, of the first family (stretch, then shear, then bending).
	qsort(cand, c, sizeof *cand, CompareCandidate);
	int count = 0;
	for (size_t i = 0; i < c; ++i) {
		if (count == 0 || cand[i].key != cand[count - 1].key)
			cand[count++] = cand[i];
	}
	m->constraints = (wfConstraint*)wfAlloc((size_t)(count + 1) * sizeof(wfConstraint));
	m->jacobiWeight = (float*)wfAlloc((size_t)(count + 1) * sizeof(float));
	m->adjStart = (int*)wfAlloc((size_t)(n + 1) * sizeof(int));
	m->adjConstraint = (uint32_t*)wfAlloc((size_t)(2 * count + 1) * sizeof(uint32_t));
	m->adjOther = (uint32_t*)wfAlloc((size_t)(2 * count + 1) * sizeof(uint32_t));
	int* color = (int*)wfAlloc((size_t)(count + 1) * sizeof(int));
	if (!m->constraints || !m->jacobiWeight || !m->adjStart || !m->adjConstraint || !m->adjOther || !color) {
		free(cand);
		wfFree(color);
		wfFreeModel(m);
		return WF_ERROR_OUT_OF_MEMORY;
	}
	for (int k = 0; k < count; ++k) {
		uint32_t a = (uint32_t)(cand[k].key >> 32), b = (uint32_t)cand[k].key;
		m->constraints[k] = (wfConstraint){a, b, Dist4(m->restPositions[a], m->restPositions[b]), cand[k].family};
		m->familyCount[cand[k].family]++;
	}
	free(cand);
	m->constraintCount = count;

	int colors = wfColorMesh(m->constraints, count, n, color);
	m->colorStart = colors >= 0 ? (int*)wfAlloc((size_t)(colors + 2) * sizeof(int)) : NULL;
	if (m->colorStart == NULL) {
		wfFree(color);
		wfFreeModel(m);
		return WF_ERROR_OUT_OF_MEMORY;
	}
	wfResult r = wfFinishModel(def, m, color, colors);
	return r == WF_OK ? wfBuildTriangleRows(m) : r;
}

// ------------------------------------------------------------------ OBJ files

struct wfMesh {
	wfVec3* positions;
	int vertexCount;
	uint32_t* indices;
	uint8_t* faceSizes;
	int faceCount;
	float* uvs;
	float* cornerUVs; // NULL when the file has no vt
};

void wfDestroyMesh(wfMesh* mesh)
{
	if (mesh == NULL)
		return;
	free(mesh->positions);
	free(mesh->indices);
	free(mesh->faceSizes);
	free(mesh->uvs);
	free(mesh->cornerUVs);
	free(mesh);
}

wfMeshDef wfMesh_GetDef(const wfMesh* mesh)
{
	wfMeshDef d;
	memset(&d, 0, sizeof d);
	if (mesh == NULL)
		return d;
	d.positions = mesh->positions;
	d.vertexCount = mesh->vertexCount;
	d.indices = mesh->indices;
	d.faceSizes = mesh->faceSizes;
	d.faceCount = mesh->faceCount;
	d.uvs = mesh->uvs;
	d.uvCount = mesh->uvs != NULL ? mesh->vertexCount : 0;
	d.cornerUVs = mesh->cornerUVs;
	if (mesh->cornerUVs != NULL) {
		for (int f = 0; f < mesh->faceCount; ++f)
			d.cornerUVCount += mesh->faceSizes != NULL ? mesh->faceSizes[f] : 3;
	}
	return d;
}

// Growing arrays of the reader.
typedef struct Array {
	void* data;
	size_t count, capacity, size;
} Array;

static void* Push(Array* a)
{
	if (a->count == a->capacity) {
		size_t grown = a->capacity == 0 ? 256 : 2 * a->capacity;
		void* bigger = realloc(a->data, grown * a->size);
		if (bigger == NULL)
			return NULL;
		a->data = bigger;
		a->capacity = grown;
	}
	return (char*)a->data + a->size * a->count++;
}

typedef struct Corner {
	int v, vt; // 0-based; vt -1 when absent
} Corner;

typedef struct Reader {
	const char* name;
	int line;
	char* error;
	int errorSize;
	Array v, vt, corners, faces; // wfVec3, float[2], Corner, int (corner count)
} Reader;

static bool ReadFail(Reader* r, const char* format, ...) __attribute__((format(printf, 2, 3)));
static bool ReadFail(Reader* r, const char* format, ...)
{
	char reason[192];
	va_list args;
	va_start(args, format);
	vsnprintf(reason, sizeof reason, format, args);
	va_end(args);
	if (r->error != NULL && r->errorSize > 0)
		snprintf(r->error, (size_t)r->errorSize, "%s:%d: %s", r->name, r->line, reason);
	return false;
}

static const char* SkipSpace(const char* s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r')
		++s;
	return s;
}

static bool ReadFloats(Reader* r, const char* s, float* out, int least, int most, const char* what)
{
	int k = 0;
	for (;;) {
		s = SkipSpace(s);
		if (*s == 0)
			break;
		if (k == most)
			return ReadFail(r, "%s: more than %d numbers", what, most);
		char* end = NULL;
		errno = 0;
		double x = strtod(s, &end);
		if (end == s || (*end != 0 && *end != ' ' && *end != '\t' && *end != '\r'))
			return ReadFail(r, "%s: number %d is not a number", what, k + 1);
		if (!(fabs(x) <= 1e6))
			return ReadFail(r, "%s: number %d (%g) must be finite and within 1e6", what, k + 1, x);
		out[k++] = (float)x;
		s = end;
	}
	if (k < least)
		return ReadFail(r, "%s: %d numbers, expected at least %d", what, k, least);
	return true;
}

// One index of a corner: 1-based, or negative counting back from the last element so far.
static bool ReadIndex(Reader* r, const char** s, size_t count, int corner, const char* what, int* out)
{
	char* end = NULL;
	errno = 0;
	long i = strtol(*s, &end, 10);
	if (end == *s)
		return ReadFail(r, "face corner %d: %s index missing", corner, what);
	// The magnitude of a negative index in unsigned arithmetic: -i overflows for LONG_MIN ("f -9223372036854775808").
	if (errno != 0 || i == 0 || (i > 0 && (size_t)i > count) || (i < 0 && (size_t)0 - (size_t)i > count))
		return ReadFail(r, "face corner %d: %s index %ld is out of range [1, %zu] (or [-%zu, -1])", corner, what, i, count, count);
	*out = i > 0 ? (int)(i - 1) : (int)((long)count + i);
	*s = end;
	return true;
}

static bool ReadFace(Reader* r, const char* s)
{
	int size = 0;
	for (;;) {
		s = SkipSpace(s);
		if (*s == 0)
			break;
		Corner c = {0, -1};
		if (!ReadIndex(r, &s, r->v.count, size + 1, "vertex", &c.v))
			return false;
		if (*s == '/') {
			++s;
			if (*s != '/') {
				if (!ReadIndex(r, &s, r->vt.count, size + 1, "texture", &c.vt))
					return false;
			}
			if (*s == '/') {
				++s;
				// The normal index is read for its form only: normals come from the simulation.
				while (*s == '-' || (*s >= '0' && *s <= '9'))
					++s;
			}
		}
		if (*s != 0 && *s != ' ' && *s != '\t' && *s != '\r')
			return ReadFail(r, "face corner %d: unexpected '%c'", size + 1, *s);
		Corner* slot = (Corner*)Push(&r->corners);
		if (slot == NULL)
			return ReadFail(r, "out of memory");
		*slot = c;
		size++;
	}
	if (size < 3)
		return ReadFail(r, "face with %d corners, at least 3 needed", size);
	int* f = (int*)Push(&r->faces);
	if (f == NULL)
		return ReadFail(r, "out of memory");
	*f = size;
	return true;
}

typedef struct PositionKey {
	float x, y, z;
	int index;
} PositionKey;

static int ComparePosition(const void* x, const void* y)
{
	const PositionKey* p = (const PositionKey*)x;
	const PositionKey* q = (const PositionKey*)y;
	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	if (p->y != q->y)
		return p->y < q->y ? -1 : 1;
	if (p->z != q->z)
		return p->z < q->z ? -1 : 1;
	return p->index < q->index ? -1 : p->index > q->index;
}

// Welds, drops unused vertices, splits faces of five or more corners into a fan and fills the mesh.
static wfMesh* Assemble(Reader* r, const int* faceLine)
{
	const int nv = (int)r->v.count;
	const wfVec3* v = (const wfVec3*)r->v.data;
	const Corner* corner = (const Corner*)r->corners.data;
	const int* faceSize = (const int*)r->faces.data;
	wfMesh* mesh = (wfMesh*)calloc(1, sizeof *mesh);
	PositionKey* keys = (PositionKey*)malloc((size_t)(nv > 0 ? nv : 1) * sizeof *keys);
	int* canonical = (int*)malloc((size_t)(nv > 0 ? nv : 1) * sizeof(int));
	int* particle = (int*)malloc((size_t)(nv > 0 ? nv : 1) * sizeof(int));
	if (mesh == NULL || keys == NULL || canonical == NULL || particle == NULL) {
		free(keys);
		free(canonical);
		free(particle);
		wfDestroyMesh(mesh);
		ReadFail(r, "out of memory");
		return NULL;
	}
	// Exactly equal positions weld onto the first of them.
	for (int i = 0; i < nv; ++i)
		keys[i] = (PositionKey){v[i].x, v[i].y, v[i].z, i};
	qsort(keys, (size_t)nv, sizeof *keys, ComparePosition);
	for (int i = 0; i < nv;) {
		int j = i;
		while (j < nv && keys[j].x == keys[i].x && keys[j].y == keys[i].y && keys[j].z == keys[i].z)
			canonical[keys[j++].index] = keys[i].index;
		i = j;
	}
	free(keys);
	// Particles: the used canonical vertices, in file order.
	for (int i = 0; i < nv; ++i)
		particle[i] = -1;
	for (size_t k = 0; k < r->corners.count; ++k)
		particle[canonical[corner[k].v]] = 0;
	int n = 0;
	for (int i = 0; i < nv; ++i) {
		if (particle[i] == 0)
			particle[i] = n++;
	}
	// Faces out: triangles and quads as they are, larger polygons as fans of triangles.
	size_t outCorners = 0, outFaces = 0;
	for (size_t f = 0; f < r->faces.count; ++f) {
		outFaces += faceSize[f] <= 4 ? 1 : (size_t)faceSize[f] - 2;
		outCorners += faceSize[f] <= 4 ? (size_t)faceSize[f] : 3 * ((size_t)faceSize[f] - 2);
	}
	bool textured = r->vt.count > 0;
	mesh->vertexCount = n;
	mesh->faceCount = (int)outFaces;
	mesh->positions = (wfVec3*)malloc((size_t)(n > 0 ? n : 1) * sizeof(wfVec3));
	mesh->uvs = (float*)calloc((size_t)(n > 0 ? n : 1) * 2, sizeof(float));
	mesh->indices = (uint32_t*)malloc((outCorners > 0 ? outCorners : 1) * sizeof(uint32_t));
	mesh->faceSizes = (uint8_t*)malloc(outFaces > 0 ? outFaces : 1);
	mesh->cornerUVs = textured ? (float*)calloc((outCorners > 0 ? outCorners : 1) * 2, sizeof(float)) : NULL;
	uint8_t* uvSet = (uint8_t*)calloc((size_t)(n > 0 ? n : 1), 1);
	if (!mesh->positions || !mesh->uvs || !mesh->indices || !mesh->faceSizes || (textured && !mesh->cornerUVs) || !uvSet) {
		free(canonical);
		free(particle);
		free(uvSet);
		wfDestroyMesh(mesh);
		ReadFail(r, "out of memory");
		return NULL;
	}
	for (int i = 0; i < nv; ++i) {
		if (particle[i] >= 0)
			mesh->positions[particle[i]] = v[i];
	}
	const float* vt = (const float*)r->vt.data;
	size_t in = 0, out = 0, face = 0;
	bool ok = true;
	for (size_t f = 0; f < r->faces.count && ok; ++f) {
		int size = faceSize[f];
		const Corner* fc = &corner[in];
		// A face that names one particle twice (after welding) has no area: refuse it.
		for (int a = 0; a < size && ok; ++a) {
			for (int b = 0; b < a && ok; ++b) {
				if (particle[canonical[fc[a].v]] == particle[canonical[fc[b].v]]) {
					r->line = faceLine[f];
					ok = ReadFail(r, "face corners %d and %d are the same vertex%s", b + 1, a + 1,
						fc[a].v == fc[b].v ? "" : " (equal positions are welded)");
				}
			}
		}
		int pieces = size <= 4 ? 1 : size - 2;
		for (int p = 0; p < pieces && ok; ++p) {
			int count = size <= 4 ? size : 3;
			for (int k = 0; k < count; ++k) {
				int src = size <= 4 ? k : (k == 0 ? 0 : p + k);
				int pi = particle[canonical[fc[src].v]];
				mesh->indices[out] = (uint32_t)pi;
				if (textured && fc[src].vt >= 0) {
					float u = vt[2 * fc[src].vt], w = vt[2 * fc[src].vt + 1];
					mesh->cornerUVs[2 * out + 0] = u;
					mesh->cornerUVs[2 * out + 1] = w;
					if (!uvSet[pi]) {
						mesh->uvs[2 * pi + 0] = u;
						mesh->uvs[2 * pi + 1] = w;
						uvSet[pi] = 1;
					}
				}
				out++;
			}
			mesh->faceSizes[face++] = (uint8_t)count;
		}
		in += (size_t)size;
	}
	free(canonical);
	free(particle);
	free(uvSet);
	if (!ok) {
		wfDestroyMesh(mesh);
		return NULL;
	}
	return mesh;
}

wfMesh* wfMesh_ParseObj(const char* text, const char* name, char* error, int errorSize)
{
	Reader r;
	memset(&r, 0, sizeof r);
	r.name = name != NULL ? name : "(obj)";
	r.error = error;
	r.errorSize = errorSize;
	if (error != NULL && errorSize > 0)
		error[0] = 0;
	if (text == NULL) {
		ReadFail(&r, "no text");
		return NULL;
	}
	r.v.size = sizeof(wfVec3);
	r.vt.size = 2 * sizeof(float);
	r.corners.size = sizeof(Corner);
	r.faces.size = sizeof(int);
	Array lines = {NULL, 0, 0, sizeof(int)}; // the line of each face, for messages after welding
	char buffer[4096];
	bool ok = true;
	const char* s = text;
	while (*s != 0 && ok) {
		r.line++;
		const char* end = strchr(s, '\n');
		size_t length = end != NULL ? (size_t)(end - s) : strlen(s);
		if (length >= sizeof buffer) {
			ok = ReadFail(&r, "line longer than %zu characters", sizeof buffer - 1);
			break;
		}
		memcpy(buffer, s, length);
		buffer[length] = 0;
		char* hash = strchr(buffer, '#');
		if (hash != NULL)
			*hash = 0;
		const char* p = SkipSpace(buffer);
		if (p[0] == 'v' && (p[1] == ' ' || p[1] == '\t')) {
			wfVec3* slot = (wfVec3*)Push(&r.v);
			float xyzw[4];
			ok = slot != NULL ? ReadFloats(&r, p + 2, xyzw, 3, 4, "v") : ReadFail(&r, "out of memory");
			if (ok)
				*slot = (wfVec3){xyzw[0], xyzw[1], xyzw[2]};
			if (ok && r.v.count > (size_t)WF_MESH_MAX_ELEMENTS)
				ok = ReadFail(&r, "more than %d vertices", WF_MESH_MAX_ELEMENTS);
		} else if (p[0] == 'v' && p[1] == 't' && (p[2] == ' ' || p[2] == '\t')) {
			float* slot = (float*)Push(&r.vt);
			float uvw[3] = {0.0f, 0.0f, 0.0f};
			ok = slot != NULL ? ReadFloats(&r, p + 3, uvw, 1, 3, "vt") : ReadFail(&r, "out of memory");
			if (ok) {
				slot[0] = uvw[0];
				slot[1] = uvw[1];
			}
		} else if (p[0] == 'f' && (p[1] == ' ' || p[1] == '\t')) {
			ok = ReadFace(&r, p + 2);
			int* line = ok ? (int*)Push(&lines) : NULL;
			if (ok && line == NULL)
				ok = ReadFail(&r, "out of memory");
			if (line != NULL)
				*line = r.line;
			if (ok && r.corners.count > (size_t)WF_MESH_MAX_ELEMENTS)
				ok = ReadFail(&r, "more than %d face corners", WF_MESH_MAX_ELEMENTS);
		}
		// Everything else (vn, o, g, s, usemtl, mtllib, l, p, ...) says nothing about the cloth.
		s = end != NULL ? end + 1 : s + length;
	}
	wfMesh* mesh = NULL;
	if (ok && r.faces.count == 0)
		ok = ReadFail(&r, "no faces (f statements)");
	if (ok)
		mesh = Assemble(&r, (const int*)lines.data);
	free(r.v.data);
	free(r.vt.data);
	free(r.corners.data);
	free(r.faces.data);
	free(lines.data);
	return mesh;
}

wfMesh* wfMesh_LoadObj(const char* path, char* error, int errorSize)
{
	if (error != NULL && errorSize > 0)
		error[0] = 0;
	if (path == NULL) {
		if (error != NULL && errorSize > 0)
			snprintf(error, (size_t)errorSize, "mesh: no path");
		return NULL;
	}
	// A FIFO would block the open (and the read) until something writes to it, a device read
	// forever: only a regular file is read (issue 31: a scene's "mesh" naming a FIFO hung).
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		if (error != NULL && errorSize > 0)
			snprintf(error, (size_t)errorSize, "%s: cannot read: not a regular file (a %s; allowed: a regular OBJ file)", path,
				S_ISFIFO(st.st_mode)      ? "FIFO"
					: S_ISDIR(st.st_mode) ? "folder"
					: S_ISCHR(st.st_mode) ? "character device"
										  : "special file");
		return NULL;
	}
	FILE* f = fopen(path, "rb");
	if (f == NULL) {
		if (error != NULL && errorSize > 0)
			snprintf(error, (size_t)errorSize, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	char* text = NULL;
	size_t size = 0;
	const char* problem = wfReadAll(f, &text, &size);
	fclose(f);
	if (problem != NULL) {
		if (error != NULL && errorSize > 0)
			snprintf(error, (size_t)errorSize, "%s: cannot read: %s", path, problem);
		free(text);
		return NULL;
	}
	text[size] = 0;
	wfMesh* mesh = NULL;
	if (strlen(text) != size) {
		if (error != NULL && errorSize > 0)
			snprintf(error, (size_t)errorSize, "%s: a NUL byte in the file (not a text OBJ file)", path);
	} else {
		mesh = wfMesh_ParseObj(text, path, error, errorSize);
	}
	free(text);
	return mesh;
}
