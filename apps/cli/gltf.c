// Binary glTF 2.0 of a `weft run` (see gltf.h; the format: the Khronos glTF 2.0 specification,
// "GLB File Format Specification"): a 12-byte header, a JSON chunk, a BIN chunk, every chunk
// 4-byte aligned, numbers little-endian.
#include "gltf.h"
#include "output.h"
#include "render_out.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
	GLTF_FLOAT = 5126,
	GLTF_UNSIGNED_SHORT = 5123,
	GLTF_UNSIGNED_INT = 5125,
	GLTF_ARRAY_BUFFER = 34962,
	GLTF_ELEMENT_ARRAY_BUFFER = 34963,
};

// A GLB's length is a 32-bit field.
#define GLTF_MAX_BYTES 0xffffffffull
// JSON per morph target (two accessors, two buffer views, a name), for the size estimate.
#define GLTF_JSON_PER_TARGET 512u

// ------------------------------------------------------------------ the BIN chunk's scratch file

typedef struct Scratch {
	FILE* file;
	uint64_t size;
	int error; // errno of the first failed write, 0 while none
} Scratch;

static bool LittleEndian(void)
{
	const uint16_t one = 1;
	unsigned char first;
	memcpy(&first, &one, 1);
	return first == 1;
}

// Writes count elements of elementSize bytes (1, 2 or 4) little-endian.
static void PutLE(FILE* f, const void* data, size_t elementSize, size_t count, int* error)
{
	if (count == 0)
		return;
	if (elementSize == 1 || LittleEndian()) {
		if (fwrite(data, elementSize, count, f) != count && *error == 0)
			*error = errno != 0 ? errno : EIO;
		return;
	}
	unsigned char block[4096];
	const unsigned char* in = (const unsigned char*)data;
	size_t used = 0;
	for (size_t i = 0; i < count; ++i) {
		for (size_t b = 0; b < elementSize; ++b)
			block[used + b] = in[i * elementSize + elementSize - 1 - b];
		used += elementSize;
		if (used + elementSize > sizeof block || i + 1 == count) {
			if (fwrite(block, 1, used, f) != used && *error == 0)
				*error = errno != 0 ? errno : EIO;
			used = 0;
		}
	}
}

// Appends at the next multiple of 4 bytes; returns the offset in the BIN chunk.
static uint64_t Append(Scratch* s, const void* data, size_t elementSize, size_t count)
{
	static const unsigned char kZeros[4] = {0, 0, 0, 0};
	size_t pad = (size_t)((4 - s->size % 4) % 4);
	PutLE(s->file, kZeros, 1, pad, &s->error);
	s->size += pad;
	uint64_t offset = s->size;
	PutLE(s->file, data, elementSize, count, &s->error);
	s->size += (uint64_t)elementSize * count;
	return offset;
}

// The scratch file beside the output (the same file system, the space the user chose), unlinked
// at once: it goes away with the process however that ends. A device or FIFO output has no
// folder to write into: the scratch is then tmpfile()'s.
static FILE* OpenScratch(const char* path, bool inPlace, char* error, size_t errorSize)
{
	if (inPlace) {
		FILE* f = tmpfile();
		if (f == NULL)
			snprintf(error, errorSize, "%s: cannot create a scratch file for the frames: %s", path, strerror(errno));
		return f;
	}
	char folder[CLI_PATH_MAX], name[CLI_PATH_MAX + 64];
	CliFolderOf(path, folder, sizeof folder);
	snprintf(name, sizeof name, "%s/.weft-gltf-scratch-%ld-XXXXXX", folder, (long)getpid());
	int fd = mkstemp(name);
	if (fd < 0) {
		snprintf(error, errorSize, "%s: cannot create a scratch file for the frames in '%s': %s", path, folder, strerror(errno));
		return NULL;
	}
	unlink(name);
	FILE* f = fdopen(fd, "w+b");
	if (f == NULL) {
		snprintf(error, errorSize, "%s: cannot open the scratch file: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	return f;
}

// ------------------------------------------------------------------ what is recorded

// One topology of a cloth: its glTF vertices (one per particle on a grid; one per particle and
// texture coordinate on a mesh, so that UV seams survive), texture coordinates and triangles.
typedef struct Segment {
	int vertexCount;
	int indexCount;
	bool index32;
	bool particles; // a _PARTICLE attribute: each vertex's particle (a mesh, where they differ)
	bool uvs;       // TEXCOORD_0 at uvOffset (a cloth; a mesh collider has none)
	uint64_t uvOffset, indexOffset, particleOffset;
} Segment;

// A morph target: vertexCount position deltas, then as many normal deltas.
typedef struct Target {
	uint64_t offset;
	float min[3], max[3]; // of the position deltas
} Target;

// One glTF mesh and node: a base frame and up to CLI_GLTF_TARGETS_PER_MESH later frames.
typedef struct Chunk {
	int cloth, segment;
	int firstFrame; // the base's frame; target j holds frame firstFrame + 1 + j
	int targetCount;
	int endFrame;        // the frame at which the cloth's next chunk takes over; -1: shown to the end
	uint64_t baseOffset; // vertexCount positions, then as many unit normals
	float min[3], max[3];
	Target targets[CLI_GLTF_TARGETS_PER_MESH];
} Chunk;

// A cloth, or a mesh collider's surface (WF_COLLIDER_MESH), which changes shape from frame to
// frame as a cloth does and is recorded the same way, in the collider's frame (its Shape's node
// poses it).
typedef struct Cloth {
	wfClothId id;
	int collider;        // a mesh collider: its index among the colliders (the names), -1 for a cloth
	wfColliderId body;   // that collider
	uint32_t* triangles; // (3 x triangleCount) its triangles, for the normals
	int triangleCount;
	int topology; // wfClothInfo.topology of the current segment; -1 before the first
	int particleCount;
	int vertexCount;
	int segment;       // the current one, in CliGltf.segments
	int chunk;         // the current one, in CliGltf.chunks; -1 before the first
	int* particleOf;   // (vertexCount) each vertex's particle; NULL on a grid (vertex = particle)
	wfVec3* positions; // (particleCount) read back
	wfVec3* normals;   // (particleCount)
	// (vertexCount x 6) per vertex positions then normals: this frame, the last one, the chunk's
	// base; and the deltas of a target.
	float *now, *last, *base, *delta;
} Cloth;

typedef enum ShapeKind { SHAPE_SPHERE = 0, SHAPE_FLOOR, SHAPE_COLLIDER } ShapeKind;

// A collider drawn: the world's sphere or floor, or one of wfWorld_GetColliders.
typedef struct Shape {
	ShapeKind kind;
	wfColliderId id;
	wfColliderDef def; // SHAPE_COLLIDER; the sphere's radius is in radius
	float radius;      // SHAPE_SPHERE
	int body;          // a mesh collider: its surface in CliGltf.cloths, else -1
	float* poses;      // (frames + 1) x 7: translation, then rotation x, y, z, w
} Shape;

struct CliGltf {
	CliFile file;
	Scratch bin;
	wfWorld* world;
	float timeStep;
	int frames; // the last recorded frame
	float lastTime;
	Cloth* cloths; // (clothCount) the cloths, then the mesh colliders' surfaces
	int clothCount;
	Segment* segments;
	int segmentCount, segmentCapacity;
	Chunk* chunks;
	int chunkCount, chunkCapacity;
	Shape* shapes; // (shapeCount)
	int shapeCount;
	int poseCapacity;                 // frames + 1 each Shape.poses holds
	float boundsMin[3], boundsMax[3]; // every cloth position of every frame
	uint64_t jsonEstimate;            // bytes the JSON will take, roughly
};

// Frame k's time: k frames of timeStep seconds, as glTF's float times hold it.
static float FrameTime(const CliGltf* g, int frame) { return (float)((double)frame * (double)g->timeStep); }

static bool Grow(void** array, int* capacity, int needed, size_t elementSize)
{
	if (needed <= *capacity)
		return true;
	int next = *capacity > 0 ? *capacity : 8;
	while (next < needed)
		next *= 2;
	void* grown = realloc(*array, (size_t)next * elementSize);
	if (grown == NULL)
		return false;
	*array = grown;
	*capacity = next;
	return true;
}

// ------------------------------------------------------------------ cloth topology

// A corner of a mesh's triangle with its particle and texture coordinate, sorted to find the
// distinct (particle, UV) pairs: the glTF vertices.
typedef struct Corner {
	uint32_t particle, u, v; // u, v: the floats' bits (equal bits, one vertex)
	uint32_t index;          // the corner, 3 x triangle + k
} Corner;

static int CompareCorners(const void* a, const void* b)
{
	const Corner* x = (const Corner*)a;
	const Corner* y = (const Corner*)b;
	if (x->particle != y->particle)
		return x->particle < y->particle ? -1 : 1;
	if (x->u != y->u)
		return x->u < y->u ? -1 : 1;
	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

// A mesh's corners to glTF vertices: particleOf and uvs (vertexCount x 2) for each, and the
// triangles' indices rewritten in place. Returns the vertex count, -1 when out of memory.
static int WeldCorners(uint32_t* indices, const float* cornerUVs, int corners, int** particleOf, float** uvs)
{
	const size_t room = (size_t)(corners > 0 ? corners : 1);
	Corner* sorted = (Corner*)malloc(room * sizeof(Corner));
	*particleOf = (int*)malloc(room * sizeof(int));
	*uvs = (float*)malloc(room * 2 * sizeof(float));
	if (sorted == NULL || *particleOf == NULL || *uvs == NULL) {
		free(sorted);
		return -1;
	}
	for (int i = 0; i < corners; ++i) {
		sorted[i].particle = indices[i];
		memcpy(&sorted[i].u, &cornerUVs[2 * i], 4);
		memcpy(&sorted[i].v, &cornerUVs[2 * i + 1], 4);
		sorted[i].index = (uint32_t)i;
	}
	qsort(sorted, (size_t)corners, sizeof(Corner), CompareCorners);
	int count = 0;
	for (int i = 0; i < corners; ++i) {
		const Corner* c = &sorted[i];
		if (i == 0 || c->particle != c[-1].particle || c->u != c[-1].u || c->v != c[-1].v) {
			(*particleOf)[count] = (int)c->particle;
			memcpy(&(*uvs)[2 * count], &cornerUVs[2 * c->index], 2 * sizeof(float));
			count++;
		}
		indices[c->index] = (uint32_t)(count - 1);
	}
	free(sorted);
	return count;
}

// The cloth's current topology as a new segment: its texture coordinates and triangles go into the
// BIN chunk now, and its per-vertex buffers are sized for it.
static bool NewSegment(CliGltf* g, Cloth* c, const wfClothInfo* info, char* error, size_t errorSize)
{
	const int corners = 3 * info->triangleCount;
	uint32_t* indices = (uint32_t*)malloc((size_t)(corners > 0 ? corners : 1) * sizeof(uint32_t));
	float* cornerUVs = info->mesh ? (float*)malloc((size_t)(corners > 0 ? corners : 1) * 2 * sizeof(float)) : NULL;
	float* uvs = NULL;
	int* particleOf = NULL;
	bool ok = indices != NULL && (!info->mesh || cornerUVs != NULL);
	if (ok &&
		(wfCloth_ReadIndices(c->id, indices, corners) != WF_OK ||
			(cornerUVs != NULL && wfCloth_ReadCornerUVs(c->id, cornerUVs, 2 * corners) != WF_OK))) {
		snprintf(error, errorSize, "%s: cannot read the cloth's mesh: %s", g->file.path, wfWorld_GetLastError(g->world));
		free(indices);
		free(cornerUVs);
		return false;
	}
	int vertexCount = info->particleCount;
	if (ok && info->mesh) {
		vertexCount = WeldCorners(indices, cornerUVs, corners, &particleOf, &uvs);
		ok = vertexCount >= 0;
	} else if (ok) {
		uvs = (float*)malloc((size_t)info->particleCount * 2 * sizeof(float));
		ok = uvs != NULL && wfCloth_ReadUVs(c->id, uvs, info->particleCount) == WF_OK;
	}
	free(cornerUVs);
	ok = ok && Grow((void**)&g->segments, &g->segmentCapacity, g->segmentCount + 1, sizeof(Segment));
	if (ok) {
		free(c->particleOf);
		c->particleOf = particleOf;
		particleOf = NULL;
		c->particleCount = info->particleCount;
		c->vertexCount = vertexCount;
		size_t n = (size_t)info->particleCount, v6 = (size_t)vertexCount * 6;
		wfVec3* p = (wfVec3*)realloc(c->positions, n * sizeof(wfVec3));
		c->positions = p != NULL ? p : c->positions;
		wfVec3* q = (wfVec3*)realloc(c->normals, n * sizeof(wfVec3));
		c->normals = q != NULL ? q : c->normals;
		float* buffers[4] = {c->now, c->last, c->base, c->delta};
		for (int i = 0; i < 4; ++i) {
			float* grown = (float*)realloc(buffers[i], v6 * sizeof(float));
			ok = ok && grown != NULL;
			buffers[i] = grown != NULL ? grown : buffers[i];
		}
		c->now = buffers[0], c->last = buffers[1], c->base = buffers[2], c->delta = buffers[3];
		ok = ok && p != NULL && q != NULL;
	}
	if (!ok) {
		snprintf(error, errorSize, "%s: out of memory for the cloth's mesh", g->file.path);
		free(indices);
		free(uvs);
		free(particleOf);
		return false;
	}
	// Texture coordinates as the renderer samples them: (0, 0) is the image's first row, as in glTF.
	Segment* s = &g->segments[g->segmentCount];
	memset(s, 0, sizeof *s);
	s->vertexCount = vertexCount;
	s->indexCount = corners;
	// A 16-bit index may not be 65535 (primitive restart).
	s->index32 = vertexCount > 65535;
	s->uvs = true;
	s->uvOffset = Append(&g->bin, uvs, 4, (size_t)vertexCount * 2);
	if (s->index32) {
		s->indexOffset = Append(&g->bin, indices, 4, (size_t)corners);
	} else {
		uint16_t* small = (uint16_t*)malloc((size_t)(corners > 0 ? corners : 1) * sizeof(uint16_t));
		if (small == NULL) {
			snprintf(error, errorSize, "%s: out of memory for the cloth's mesh", g->file.path);
			free(indices);
			free(uvs);
			return false;
		}
		for (int i = 0; i < corners; ++i)
			small[i] = (uint16_t)indices[i];
		s->indexOffset = Append(&g->bin, small, 2, (size_t)corners);
		free(small);
	}
	// Which particle each vertex shows (floats: glTF's own attributes may not be unsigned int).
	if (c->particleOf != NULL) {
		s->particles = true;
		float* ids = (float*)uvs; // reused: vertexCount x 2 floats
		for (int i = 0; i < vertexCount; ++i)
			ids[i] = (float)c->particleOf[i];
		s->particleOffset = Append(&g->bin, ids, 4, (size_t)vertexCount);
	}
	free(indices);
	free(uvs);
	c->segment = g->segmentCount++;
	c->topology = info->topology;
	return true;
}

// ------------------------------------------------------------------ frames

static void MinMax3(const float* v, int count, float* min, float* max)
{
	for (int k = 0; k < 3; ++k) {
		min[k] = count > 0 ? v[k] : 0.0f;
		max[k] = count > 0 ? v[k] : 0.0f;
	}
	for (int i = 1; i < count; ++i) {
		for (int k = 0; k < 3; ++k) {
			float x = v[3 * i + k];
			min[k] = x < min[k] ? x : min[k];
			max[k] = x > max[k] ? x : max[k];
		}
	}
}

// A base frame (now or last) starts the cloth's next chunk; the chunk before it ends there.
static bool StartChunk(CliGltf* g, Cloth* c, int clothIndex, int frame, const float* values)
{
	if (!Grow((void**)&g->chunks, &g->chunkCapacity, g->chunkCount + 1, sizeof(Chunk)))
		return false;
	if (c->chunk >= 0)
		g->chunks[c->chunk].endFrame = frame;
	const int n = c->vertexCount;
	memcpy(c->base, values, (size_t)n * 6 * sizeof(float));
	// The base's normals must be unit vectors: one the cloth cannot give (a particle of no
	// triangle's area) points up.
	float* normals = c->base + 3 * (size_t)n;
	for (int i = 0; i < n; ++i) {
		float* v = &normals[3 * i];
		float length = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
		if (fabsf(length - 1.0f) <= 1e-4f)
			continue;
		if (length > 1e-6f && isfinite(length)) {
			v[0] /= length, v[1] /= length, v[2] /= length;
		} else {
			v[0] = 0.0f, v[1] = 1.0f, v[2] = 0.0f;
		}
	}
	Chunk* k = &g->chunks[g->chunkCount];
	memset(k, 0, sizeof *k);
	k->cloth = clothIndex;
	k->segment = c->segment;
	k->firstFrame = frame;
	k->endFrame = -1;
	MinMax3(c->base, n, k->min, k->max);
	k->baseOffset = Append(&g->bin, c->base, 4, (size_t)n * 6);
	c->chunk = g->chunkCount++;
	g->jsonEstimate += 4 * GLTF_JSON_PER_TARGET;
	return true;
}

// This frame as the next morph target of the cloth's chunk: deltas from its base.
static void AddTarget(CliGltf* g, Cloth* c)
{
	Chunk* k = &g->chunks[c->chunk];
	const size_t values = (size_t)c->vertexCount * 6;
	for (size_t i = 0; i < values; ++i)
		c->delta[i] = c->now[i] - c->base[i];
	Target* t = &k->targets[k->targetCount++];
	MinMax3(c->delta, c->vertexCount, t->min, t->max);
	t->offset = Append(&g->bin, c->delta, 4, values);
	g->jsonEstimate += GLTF_JSON_PER_TARGET;
}

// One cloth's frame: a tear starts a segment and a chunk; a full chunk hands over to one based on
// the last frame, so that the blend from it to this frame stays within one mesh.
static bool RecordCloth(CliGltf* g, int index, int frame, char* error, size_t errorSize)
{
	Cloth* c = &g->cloths[index];
	wfClothInfo info;
	if (wfCloth_GetInfo(c->id, &info) != WF_OK) {
		snprintf(error, errorSize, "%s: frame %d: cannot read cloth %d: %s", g->file.path, frame, index, wfWorld_GetLastError(g->world));
		return false;
	}
	const bool torn = info.topology != c->topology;
	if (torn && !NewSegment(g, c, &info, error, errorSize))
		return false;
	if (wfCloth_ReadPositions(c->id, c->positions, c->particleCount) != WF_OK ||
		wfCloth_ReadNormals(c->id, c->normals, c->particleCount) != WF_OK) {
		snprintf(error, errorSize, "%s: frame %d: cannot read cloth %d: %s", g->file.path, frame, index, wfWorld_GetLastError(g->world));
		return false;
	}
	const int n = c->vertexCount;
	for (int i = 0; i < n; ++i) {
		const int p = c->particleOf != NULL ? c->particleOf[i] : i;
		const wfVec3 x = c->positions[p], m = c->normals[p];
		if (!isfinite(x.x) || !isfinite(x.y) || !isfinite(x.z) || !isfinite(m.x) || !isfinite(m.y) || !isfinite(m.z)) {
			snprintf(error, errorSize, "%s: frame %d: cloth %d, particle %d is not finite", g->file.path, frame, index, p);
			return false;
		}
		float* at = &c->now[3 * (size_t)i];
		at[0] = x.x, at[1] = x.y, at[2] = x.z;
		float* normal = &c->now[3 * ((size_t)n + (size_t)i)];
		normal[0] = m.x, normal[1] = m.y, normal[2] = m.z;
		const float v[3] = {x.x, x.y, x.z};
		for (int k = 0; k < 3; ++k) {
			g->boundsMin[k] = v[k] < g->boundsMin[k] ? v[k] : g->boundsMin[k];
			g->boundsMax[k] = v[k] > g->boundsMax[k] ? v[k] : g->boundsMax[k];
		}
	}
	bool ok = true;
	if (torn || c->chunk < 0) {
		ok = StartChunk(g, c, index, frame, c->now);
	} else {
		if (g->chunks[c->chunk].targetCount == CLI_GLTF_TARGETS_PER_MESH)
			ok = StartChunk(g, c, index, frame - 1, c->last);
		if (ok)
			AddTarget(g, c);
	}
	if (!ok) {
		snprintf(error, errorSize, "%s: out of memory for the frames", g->file.path);
		return false;
	}
	float* swap = c->last;
	c->last = c->now;
	c->now = swap;
	return true;
}

// A mesh collider's surface: its one segment (the collider's triangles never change, nor does
// its vertex count), and the per-vertex buffers sized for it.
static bool NewBodySegment(CliGltf* g, Cloth* c, char* error, size_t errorSize)
{
	const int n = wfCollider_GetMeshVertices(c->body, NULL, 0), t = wfCollider_GetMeshTriangles(c->body, NULL, 0);
	const size_t corners = 3 * (size_t)t, v6 = (size_t)n * 6;
	c->triangles = (uint32_t*)malloc((corners > 0 ? corners : 1) * sizeof(uint32_t));
	c->positions = (wfVec3*)malloc((size_t)(n > 0 ? n : 1) * sizeof(wfVec3));
	c->normals = (wfVec3*)malloc((size_t)(n > 0 ? n : 1) * sizeof(wfVec3));
	c->now = (float*)malloc((v6 > 0 ? v6 : 1) * sizeof(float));
	c->last = (float*)malloc((v6 > 0 ? v6 : 1) * sizeof(float));
	c->base = (float*)malloc((v6 > 0 ? v6 : 1) * sizeof(float));
	c->delta = (float*)malloc((v6 > 0 ? v6 : 1) * sizeof(float));
	uint16_t* small = (uint16_t*)malloc((corners > 0 ? corners : 1) * sizeof(uint16_t));
	if (c->triangles == NULL || c->positions == NULL || c->normals == NULL || c->now == NULL || c->last == NULL || c->base == NULL ||
		c->delta == NULL || small == NULL || !Grow((void**)&g->segments, &g->segmentCapacity, g->segmentCount + 1, sizeof(Segment))) {
		snprintf(error, errorSize, "%s: out of memory for mesh collider %d", g->file.path, c->collider);
		free(small);
		return false;
	}
	wfCollider_GetMeshTriangles(c->body, c->triangles, (int)corners);
	c->triangleCount = t;
	c->particleCount = n;
	c->vertexCount = n;
	Segment* s = &g->segments[g->segmentCount];
	memset(s, 0, sizeof *s);
	s->vertexCount = n;
	s->indexCount = (int)corners;
	s->index32 = n > 65535; // 65535 is primitive restart
	if (s->index32) {
		s->indexOffset = Append(&g->bin, c->triangles, 4, corners);
	} else {
		for (size_t i = 0; i < corners; ++i)
			small[i] = (uint16_t)c->triangles[i];
		s->indexOffset = Append(&g->bin, small, 2, corners);
	}
	free(small);
	c->segment = g->segmentCount++;
	return true;
}

// One frame of a mesh collider's surface: its vertices in its frame with smooth normals (each the
// area-weighted sum of its triangles'). A shape held from one frame to the next is a chunk without
// targets (a rigid body is one plain mesh): a change hands over to a chunk based on the frame
// before it, as a full chunk does, and so does the first frame that holds the shape again.
static bool RecordBody(CliGltf* g, int index, int frame, char* error, size_t errorSize)
{
	Cloth* c = &g->cloths[index];
	if (c->chunk < 0 && !NewBodySegment(g, c, error, errorSize))
		return false;
	const int n = c->vertexCount;
	if (wfCollider_GetMeshVertices(c->body, c->positions, n) != n) {
		snprintf(error, errorSize, "%s: frame %d: cannot read mesh collider %d's %d vertices", g->file.path, frame, c->collider, n);
		return false;
	}
	memset(c->normals, 0, (size_t)n * sizeof(wfVec3));
	for (int t = 0; t < c->triangleCount; ++t) {
		const uint32_t* v = &c->triangles[3 * t];
		const wfVec3 a = c->positions[v[0]], b = c->positions[v[1]], d = c->positions[v[2]];
		const wfVec3 e = {b.x - a.x, b.y - a.y, b.z - a.z}, f = {d.x - a.x, d.y - a.y, d.z - a.z};
		const wfVec3 m = {e.y * f.z - e.z * f.y, e.z * f.x - e.x * f.z, e.x * f.y - e.y * f.x};
		for (int k = 0; k < 3; ++k) {
			wfVec3* sum = &c->normals[v[k]];
			sum->x += m.x, sum->y += m.y, sum->z += m.z;
		}
	}
	for (int i = 0; i < n; ++i) {
		const wfVec3 x = c->positions[i], m = c->normals[i];
		if (!isfinite(x.x) || !isfinite(x.y) || !isfinite(x.z)) {
			snprintf(error, errorSize, "%s: frame %d: mesh collider %d, vertex %d is not finite", g->file.path, frame, c->collider, i);
			return false;
		}
		// A vertex of no triangle's area faces up (a unit normal is required).
		const float length = sqrtf(m.x * m.x + m.y * m.y + m.z * m.z);
		const bool unit = length > 0.0f && isfinite(length);
		float* at = &c->now[3 * (size_t)i];
		at[0] = x.x, at[1] = x.y, at[2] = x.z;
		float* normal = &c->now[3 * ((size_t)n + (size_t)i)];
		normal[0] = unit ? m.x / length : 0.0f, normal[1] = unit ? m.y / length : 1.0f, normal[2] = unit ? m.z / length : 0.0f;
	}
	bool ok = true;
	if (c->chunk < 0) {
		ok = StartChunk(g, c, index, frame, c->now);
	} else {
		// A chunk without targets shows its base, which is then the last frame too.
		const Chunk* k = &g->chunks[c->chunk];
		const bool still = memcmp(c->now, c->last, (size_t)n * 6 * sizeof(float)) == 0;
		if (still && k->targetCount > 0) {
			ok = StartChunk(g, c, index, frame - 1, c->last);
		} else if (!still) {
			if (k->targetCount == CLI_GLTF_TARGETS_PER_MESH || (k->targetCount == 0 && k->firstFrame < frame - 1))
				ok = StartChunk(g, c, index, frame - 1, c->last);
			if (ok)
				AddTarget(g, c);
		}
	}
	if (!ok) {
		snprintf(error, errorSize, "%s: out of memory for the frames", g->file.path);
		return false;
	}
	float* swap = c->last;
	c->last = c->now;
	c->now = swap;
	return true;
}

static void RecordShapes(CliGltf* g, int frame)
{
	for (int i = 0; i < g->shapeCount; ++i) {
		Shape* s = &g->shapes[i];
		float* pose = &s->poses[7 * (size_t)frame];
		wfVec3 p = {0.0f, 0.0f, 0.0f};
		wfQuat q = {0.0f, 0.0f, 0.0f, 1.0f};
		if (s->kind == SHAPE_SPHERE)
			p = wfWorld_GetSphereCenter(g->world);
		else if (s->kind == SHAPE_FLOOR)
			p.y = wfWorld_GetDef(g->world).floor.height;
		else
			wfCollider_GetTransform(s->id, &p, &q);
		// Unit, and on the side of the last frame's: a reader that blends the components
		// (Blender's curves) takes the short way.
		float length = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
		if (!(length > 0.0f) || !isfinite(length))
			q = (wfQuat){0.0f, 0.0f, 0.0f, 1.0f}, length = 1.0f;
		float r[4] = {q.x / length, q.y / length, q.z / length, q.w / length};
		if (frame > 0) {
			const float* before = pose - 7 + 3;
			if (r[0] * before[0] + r[1] * before[1] + r[2] * before[2] + r[3] * before[3] < 0.0f)
				r[0] = -r[0], r[1] = -r[1], r[2] = -r[2], r[3] = -r[3];
		}
		pose[0] = p.x, pose[1] = p.y, pose[2] = p.z;
		memcpy(pose + 3, r, sizeof r);
	}
}

// The GLB's size if the run goes on to `frames` frames at this frame's cost, roughly.
static uint64_t EstimateBytes(const CliGltf* g, int frames)
{
	uint64_t perFrame = 4 + 28 * (uint64_t)g->shapeCount;
	for (int i = 0; i < g->clothCount; ++i) {
		// A mesh collider holding its shape adds nothing per frame (a rigid body never does).
		const Cloth* c = &g->cloths[i];
		if (c->collider >= 0 && (c->chunk < 0 || g->chunks[c->chunk].targetCount == 0))
			continue;
		perFrame += 24 * (uint64_t)c->vertexCount + 4 * (CLI_GLTF_TARGETS_PER_MESH + 1) + GLTF_JSON_PER_TARGET;
	}
	const uint64_t more = frames > g->frames ? (uint64_t)(frames - g->frames) : 0;
	return g->bin.size + g->jsonEstimate + more * perFrame + 4096;
}

static bool Record(CliGltf* g, int frame, char* error, size_t errorSize)
{
	if (frame > 0 && !(FrameTime(g, frame) > g->lastTime)) {
		snprintf(error, errorSize, "%s: frame %d: its time (%d x %g s) is no later than frame %d's in glTF's 32-bit float times",
			g->file.path, frame, frame, (double)g->timeStep, frame - 1);
		return false;
	}
	// Every shape's poses grow alike.
	if (frame + 1 > g->poseCapacity) {
		const int capacity = g->poseCapacity > 0 ? 2 * g->poseCapacity : 64;
		for (int i = 0; i < g->shapeCount; ++i) {
			float* grown = (float*)realloc(g->shapes[i].poses, (size_t)capacity * 7 * sizeof(float));
			if (grown == NULL) {
				snprintf(error, errorSize, "%s: out of memory for the colliders' poses", g->file.path);
				return false;
			}
			g->shapes[i].poses = grown;
		}
		g->poseCapacity = capacity;
	}
	for (int i = 0; i < g->clothCount; ++i) {
		if (!(g->cloths[i].collider >= 0 ? RecordBody : RecordCloth)(g, i, frame, error, errorSize))
			return false;
	}
	RecordShapes(g, frame);
	g->frames = frame;
	g->lastTime = FrameTime(g, frame);
	if (g->bin.error != 0) {
		snprintf(error, errorSize, "%s: frame %d: cannot write the frames' scratch file: %s", g->file.path, frame, strerror(g->bin.error));
		return false;
	}
	if (EstimateBytes(g, frame) > GLTF_MAX_BYTES) {
		snprintf(error, errorSize, "%s: frame %d: the GLB would pass 4 GiB, the most its 32-bit length can hold (give fewer --frames)",
			g->file.path, frame);
		return false;
	}
	return true;
}

bool CliGltfFrame(CliGltf* g, int frame, char* error, size_t errorSize) { return Record(g, frame, error, errorSize); }

// ------------------------------------------------------------------ open, throw away

static void FreeGltf(CliGltf* g)
{
	for (int i = 0; i < g->clothCount; ++i) {
		Cloth* c = &g->cloths[i];
		free(c->triangles);
		free(c->particleOf);
		free(c->positions);
		free(c->normals);
		free(c->now);
		free(c->last);
		free(c->base);
		free(c->delta);
	}
	for (int i = 0; i < g->shapeCount; ++i)
		free(g->shapes[i].poses);
	free(g->cloths);
	free(g->shapes);
	free(g->segments);
	free(g->chunks);
	if (g->bin.file != NULL)
		fclose(g->bin.file);
	CliFileAbort(&g->file);
	free(g);
}

CliGltf* CliGltfOpen(const char* path, wfWorld* world, const wfClothId* cloths, int count, int frames, char* error, size_t errorSize)
{
	CliGltf* g = (CliGltf*)calloc(1, sizeof(CliGltf));
	if (g == NULL) {
		snprintf(error, errorSize, "%s: out of memory", path);
		return NULL;
	}
	if (!CliFileOpen(&g->file, path, error, errorSize)) {
		free(g);
		return NULL;
	}
	g->world = world;
	g->timeStep = wfWorld_GetDef(world).step.timeStep;
	for (int k = 0; k < 3; ++k) {
		g->boundsMin[k] = INFINITY;
		g->boundsMax[k] = -INFINITY;
	}
	g->bin.file = OpenScratch(path, g->file.inPlace, error, errorSize);
	const int colliders = wfWorld_GetColliderCount(world);
	g->cloths = (Cloth*)calloc((size_t)count + (size_t)colliders + 1, sizeof(Cloth));
	g->shapes = (Shape*)calloc((size_t)colliders + 2, sizeof(Shape));
	if (g->bin.file == NULL || g->cloths == NULL || g->shapes == NULL) {
		if (g->bin.file != NULL)
			snprintf(error, errorSize, "%s: out of memory", path);
		FreeGltf(g);
		return NULL;
	}
	g->clothCount = count;
	for (int i = 0; i < count; ++i) {
		g->cloths[i].id = cloths[i];
		g->cloths[i].collider = -1;
		g->cloths[i].topology = -1;
		g->cloths[i].chunk = -1;
	}
	// The world's sphere and floor first, then the colliders in creation order: the order in which
	// they push the cloth out.
	const wfWorldDef def = wfWorld_GetDef(world);
	if (def.sphere.enabled)
		g->shapes[g->shapeCount++] = (Shape){.kind = SHAPE_SPHERE, .radius = def.sphere.radius, .body = -1};
	if (def.floor.enabled)
		g->shapes[g->shapeCount++] = (Shape){.kind = SHAPE_FLOOR, .body = -1};
	wfColliderId* ids = (wfColliderId*)calloc((size_t)colliders + 1, sizeof(wfColliderId));
	if (ids == NULL) {
		snprintf(error, errorSize, "%s: out of memory", path);
		FreeGltf(g);
		return NULL;
	}
	const int got = wfWorld_GetColliders(world, ids, colliders);
	for (int i = 0; i < got; ++i) {
		Shape* s = &g->shapes[g->shapeCount++];
		*s = (Shape){.kind = SHAPE_COLLIDER, .id = ids[i], .def = wfCollider_GetDef(ids[i]), .body = -1};
		if (s->def.type == WF_COLLIDER_MESH) {
			Cloth* c = &g->cloths[g->clothCount];
			c->collider = i;
			c->body = ids[i];
			c->topology = -1;
			c->chunk = -1;
			s->body = g->clothCount++;
		}
	}
	free(ids);
	if (!Record(g, 0, error, errorSize)) {
		FreeGltf(g);
		return NULL;
	}
	// Refused before the first step when the planned run would not fit (tearing adds vertices
	// later; the check after each frame catches those).
	const uint64_t estimate = EstimateBytes(g, frames);
	if (estimate > GLTF_MAX_BYTES) {
		snprintf(error, errorSize,
			"%s: %d frames of these cloths make a GLB of about %.1f GB, more than the 4 GiB its 32-bit length can hold (give fewer "
			"--frames or a smaller --grid)",
			path, frames, (double)estimate / 1e9);
		FreeGltf(g);
		return NULL;
	}
	return g;
}

// ------------------------------------------------------------------ collider meshes

// A mesh in the scratch file: positions and normals (count x 3 each), triangles.
typedef struct ShapeMesh {
	float* positions;
	float* normals;
	uint32_t* indices;
	int vertexCount, indexCount;
} ShapeMesh;

static bool AllocMesh(ShapeMesh* m, int vertices, int indices)
{
	m->positions = (float*)malloc((size_t)vertices * 3 * sizeof(float));
	m->normals = (float*)malloc((size_t)vertices * 3 * sizeof(float));
	m->indices = (uint32_t*)malloc((size_t)indices * sizeof(uint32_t));
	m->vertexCount = 0;
	m->indexCount = 0;
	return m->positions != NULL && m->normals != NULL && m->indices != NULL;
}

static void FreeMesh(ShapeMesh* m)
{
	free(m->positions);
	free(m->normals);
	free(m->indices);
}

static void Vertex(ShapeMesh* m, float x, float y, float z, float nx, float ny, float nz)
{
	float* p = &m->positions[3 * m->vertexCount];
	float* n = &m->normals[3 * m->vertexCount];
	p[0] = x, p[1] = y, p[2] = z;
	n[0] = nx, n[1] = ny, n[2] = nz;
	m->vertexCount++;
}

static void Triangle(ShapeMesh* m, int a, int b, int c)
{
	m->indices[m->indexCount++] = (uint32_t)a;
	m->indices[m->indexCount++] = (uint32_t)b;
	m->indices[m->indexCount++] = (uint32_t)c;
}

#define SHAPE_SLICES 32 // around the axis
#define SHAPE_STACKS 16 // from pole to pole

// A solid of revolution about local x from two spheres: radius r1 about (+halfLength, 0, 0) and
// r0 about (-halfLength, 0, 0), joined by the cone that touches both (the tapered capsule's
// side; a sphere when halfLength is 0). A point at polar angle t from +x on either sphere has
// the normal (cos t, sin t cos p, sin t sin p); the cone touches both spheres at the angle t0
// with 2 halfLength cos t0 = r0 - r1. Triangles counter-clockwise seen from outside.
static bool MakeCapsule(ShapeMesh* m, float r0, float r1, float halfLength)
{
	const float pi = 3.14159265358979f;
	float c0 = -halfLength, c1 = halfLength;
	// A sphere, or one sphere inside the other: the larger alone.
	const bool sphere = fabsf(r0 - r1) >= 2.0f * halfLength;
	if (sphere && r0 >= r1)
		c1 = c0, r1 = r0;
	else if (sphere)
		c0 = c1, r0 = r1;
	const float t0 = sphere ? 0.5f * pi : acosf((r0 - r1) / (2.0f * halfLength));
	int stacks1 = (int)lroundf(SHAPE_STACKS * t0 / pi);
	stacks1 = stacks1 < 1 ? 1 : stacks1 > SHAPE_STACKS - 1 ? SHAPE_STACKS - 1 : stacks1;
	const int stacks0 = SHAPE_STACKS - stacks1;
	// The profile: angle and sphere of each ring, pole to pole; the two rings at t0 (one on each
	// sphere) bound the cone, and are one ring on a sphere.
	float angle[SHAPE_STACKS + 2], centre[SHAPE_STACKS + 2], radius[SHAPE_STACKS + 2];
	int rings = 0;
	for (int i = 0; i <= stacks1; ++i, ++rings)
		angle[rings] = t0 * (float)i / (float)stacks1, centre[rings] = c1, radius[rings] = r1;
	for (int i = sphere ? 1 : 0; i <= stacks0; ++i, ++rings)
		angle[rings] = t0 + (pi - t0) * (float)i / (float)stacks0, centre[rings] = c0, radius[rings] = r0;
	if (!AllocMesh(m, 2 + (rings - 2) * SHAPE_SLICES, 6 * (rings - 1) * SHAPE_SLICES))
		return false;
	// Poles: one vertex each; rings between them.
	Vertex(m, c1 + r1, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f);
	for (int r = 1; r + 1 < rings; ++r) {
		const float ct = cosf(angle[r]), st = sinf(angle[r]);
		for (int j = 0; j < SHAPE_SLICES; ++j) {
			const float p = 2.0f * pi * (float)j / (float)SHAPE_SLICES;
			const float cp = cosf(p), sp = sinf(p);
			Vertex(m, centre[r] + radius[r] * ct, radius[r] * st * cp, radius[r] * st * sp, ct, st * cp, st * sp);
		}
	}
	Vertex(m, c0 - r0, 0.0f, 0.0f, -1.0f, 0.0f, 0.0f);
	const int last = m->vertexCount - 1;
	for (int r = 0; r + 1 < rings; ++r) {
		for (int j = 0; j < SHAPE_SLICES; ++j) {
			const int k = (j + 1) % SHAPE_SLICES;
			// a, b on ring r (b one slice on), c, d on ring r + 1: (a, c, b) and (b, c, d) face out;
			// at a pole only the one that is not flat.
			const int a = r == 0 ? 0 : 1 + (r - 1) * SHAPE_SLICES + j, b = r == 0 ? 0 : 1 + (r - 1) * SHAPE_SLICES + k;
			const int c = r + 2 == rings ? last : 1 + r * SHAPE_SLICES + j, d = r + 2 == rings ? last : 1 + r * SHAPE_SLICES + k;
			if (r > 0)
				Triangle(m, a, c, b);
			if (r + 2 < rings)
				Triangle(m, b, c, d);
		}
	}
	return true;
}

// A box of the half extents: four vertices per face (flat normals).
static bool MakeBox(ShapeMesh* m, wfVec3 h)
{
	if (!AllocMesh(m, 24, 36))
		return false;
	const float e[3] = {h.x, h.y, h.z};
	for (int axis = 0; axis < 3; ++axis) {
		for (int side = -1; side <= 1; side += 2) {
			// u, v span the face so that u x v points out along the axis.
			const int u = (axis + (side > 0 ? 1 : 2)) % 3, v = (axis + (side > 0 ? 2 : 1)) % 3;
			const int first = m->vertexCount;
			static const float kCorners[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
			for (int c = 0; c < 4; ++c) {
				float p[3], n[3] = {0, 0, 0};
				p[axis] = (float)side * e[axis];
				p[u] = kCorners[c][0] * e[u];
				p[v] = kCorners[c][1] * e[v];
				n[axis] = (float)side;
				Vertex(m, p[0], p[1], p[2], n[0], n[1], n[2]);
			}
			Triangle(m, first, first + 1, first + 2);
			Triangle(m, first, first + 2, first + 3);
		}
	}
	return true;
}

// A square of half side `half` in the local xz plane, facing +y.
static bool MakeQuad(ShapeMesh* m, float half)
{
	if (!AllocMesh(m, 4, 6))
		return false;
	Vertex(m, -half, 0.0f, -half, 0.0f, 1.0f, 0.0f);
	Vertex(m, -half, 0.0f, half, 0.0f, 1.0f, 0.0f);
	Vertex(m, half, 0.0f, half, 0.0f, 1.0f, 0.0f);
	Vertex(m, half, 0.0f, -half, 0.0f, 1.0f, 0.0f);
	Triangle(m, 0, 1, 2);
	Triangle(m, 0, 2, 3);
	return true;
}

// ------------------------------------------------------------------ JSON

typedef struct Json {
	cJSON* root;
	cJSON *views, *accessors, *meshes, *nodes, *sceneNodes, *channels, *samplers;
} Json;

static int Count(const cJSON* array) { return cJSON_GetArraySize(array); }

static int View(Json* j, uint64_t offset, uint64_t length, int target)
{
	cJSON* v = cJSON_CreateObject();
	cJSON_AddNumberToObject(v, "buffer", 0);
	if (offset > 0)
		cJSON_AddNumberToObject(v, "byteOffset", (double)offset);
	cJSON_AddNumberToObject(v, "byteLength", (double)length);
	if (target != 0)
		cJSON_AddNumberToObject(v, "target", target);
	cJSON_AddItemToArray(j->views, v);
	return Count(j->views) - 1;
}

// An accessor of `count` elements of `type` at byteOffset in a view; min and max (components each)
// when given.
static int Accessor(Json* j, int view, uint64_t byteOffset, int componentType, int count, const char* type, const float* min,
	const float* max, int components)
{
	cJSON* a = cJSON_CreateObject();
	cJSON_AddNumberToObject(a, "bufferView", view);
	if (byteOffset > 0)
		cJSON_AddNumberToObject(a, "byteOffset", (double)byteOffset);
	cJSON_AddNumberToObject(a, "componentType", componentType);
	cJSON_AddNumberToObject(a, "count", count);
	cJSON_AddStringToObject(a, "type", type);
	if (min != NULL) {
		cJSON_AddItemToObject(a, "min", cJSON_CreateFloatArray(min, components));
		cJSON_AddItemToObject(a, "max", cJSON_CreateFloatArray(max, components));
	}
	cJSON_AddItemToArray(j->accessors, a);
	return Count(j->accessors) - 1;
}

// Floats in the scratch file with their own view: an accessor of count elements of `type`.
static int FloatData(Json* j, Scratch* bin, const float* data, int count, const char* type, int components, int target, bool bounds)
{
	float min[4], max[4];
	for (int k = 0; k < components; ++k) {
		min[k] = data[k];
		max[k] = data[k];
		for (int i = 1; i < count; ++i) {
			float x = data[(size_t)i * (size_t)components + (size_t)k];
			min[k] = x < min[k] ? x : min[k];
			max[k] = x > max[k] ? x : max[k];
		}
	}
	const size_t n = (size_t)count * (size_t)components;
	const uint64_t offset = Append(bin, data, 4, n);
	return Accessor(j, View(j, offset, 4 * n, target), 0, GLTF_FLOAT, count, type, bounds ? min : NULL, bounds ? max : NULL, components);
}

static cJSON* Material(const char* name, float r, float g, float b, float roughness, bool doubleSided)
{
	cJSON* m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "name", name);
	cJSON* pbr = cJSON_AddObjectToObject(m, "pbrMetallicRoughness");
	const float color[4] = {r, g, b, 1.0f};
	cJSON_AddItemToObject(pbr, "baseColorFactor", cJSON_CreateFloatArray(color, 4));
	cJSON_AddNumberToObject(pbr, "metallicFactor", 0);
	cJSON_AddNumberToObject(pbr, "roughnessFactor", roughness);
	if (doubleSided)
		cJSON_AddTrueToObject(m, "doubleSided");
	return m;
}

// The renderer's weave (when this build has it) embedded as a PNG image: the cloth material's base
// colour texture (repeating; the UVs carry the cloth's uvRepeat) instead of its mean colour.
static void AddWeave(Json* j, CliGltf* g, cJSON* clothMaterial)
{
	uint8_t* png = NULL;
	size_t size = 0;
	if (!CliWeavePng(&png, &size))
		return;
	const uint64_t offset = Append(&g->bin, png, 1, size);
	free(png);
	cJSON* image = cJSON_CreateObject();
	cJSON_AddStringToObject(image, "name", "weave");
	cJSON_AddNumberToObject(image, "bufferView", View(j, offset, size, 0));
	cJSON_AddStringToObject(image, "mimeType", "image/png");
	cJSON_AddItemToArray(cJSON_AddArrayToObject(j->root, "images"), image);
	cJSON* sampler = cJSON_CreateObject();
	cJSON_AddNumberToObject(sampler, "magFilter", 9729); // LINEAR
	cJSON_AddNumberToObject(sampler, "minFilter", 9987); // LINEAR_MIPMAP_LINEAR
	cJSON_AddNumberToObject(sampler, "wrapS", 10497);    // REPEAT
	cJSON_AddNumberToObject(sampler, "wrapT", 10497);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(j->root, "samplers"), sampler);
	cJSON* texture = cJSON_CreateObject();
	cJSON_AddNumberToObject(texture, "sampler", 0);
	cJSON_AddNumberToObject(texture, "source", 0);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(j->root, "textures"), texture);
	cJSON* pbr = cJSON_GetObjectItem(clothMaterial, "pbrMetallicRoughness");
	const float white[4] = {1.0f, 1.0f, 1.0f, 1.0f};
	cJSON_ReplaceItemInObject(pbr, "baseColorFactor", cJSON_CreateFloatArray(white, 4));
	cJSON* info = cJSON_CreateObject();
	cJSON_AddNumberToObject(info, "index", 0);
	cJSON_AddItemToObject(pbr, "baseColorTexture", info);
}

enum { MATERIAL_CLOTH = 0, MATERIAL_COLLIDER, MATERIAL_FLOOR };

// A mesh of one primitive: indexed triangles, or points when indices is -1 (a cloth of one row
// or column has no triangles); returns its index.
static int AddMesh(Json* j, const char* name, cJSON* attributes, int indices, int material, cJSON* targets)
{
	cJSON* mesh = cJSON_CreateObject();
	cJSON_AddStringToObject(mesh, "name", name);
	cJSON* primitive = cJSON_CreateObject();
	cJSON_AddItemToObject(primitive, "attributes", attributes);
	if (indices >= 0)
		cJSON_AddNumberToObject(primitive, "indices", indices);
	cJSON_AddNumberToObject(primitive, "material", material);
	cJSON_AddNumberToObject(primitive, "mode", indices >= 0 ? 4 : 0); // triangles, points
	if (targets != NULL)
		cJSON_AddItemToObject(primitive, "targets", targets);
	cJSON* primitives = cJSON_AddArrayToObject(mesh, "primitives");
	cJSON_AddItemToArray(primitives, primitive);
	cJSON_AddItemToArray(j->meshes, mesh);
	return Count(j->meshes) - 1;
}

// A node showing a mesh (-1: none), in the scene or, with parent >= 0, that node's child.
static cJSON* AddNode(Json* j, const char* name, int mesh, int parent)
{
	cJSON* node = cJSON_CreateObject();
	cJSON_AddStringToObject(node, "name", name);
	if (mesh >= 0)
		cJSON_AddNumberToObject(node, "mesh", mesh);
	cJSON_AddItemToArray(j->nodes, node);
	cJSON* list = j->sceneNodes;
	if (parent >= 0) {
		cJSON* up = cJSON_GetArrayItem(j->nodes, parent);
		list = cJSON_GetObjectItem(up, "children");
		if (list == NULL)
			list = cJSON_AddArrayToObject(up, "children");
	}
	cJSON_AddItemToArray(list, cJSON_CreateNumber(Count(j->nodes) - 1));
	return node;
}

// An animation channel: node's `path` follows the sampler (input and output accessors).
static void AddChannel(Json* j, int node, const char* path, int input, int output, const char* interpolation)
{
	cJSON* sampler = cJSON_CreateObject();
	cJSON_AddNumberToObject(sampler, "input", input);
	cJSON_AddNumberToObject(sampler, "output", output);
	cJSON_AddStringToObject(sampler, "interpolation", interpolation);
	cJSON_AddItemToArray(j->samplers, sampler);
	cJSON* channel = cJSON_CreateObject();
	cJSON_AddNumberToObject(channel, "sampler", Count(j->samplers) - 1);
	cJSON* target = cJSON_AddObjectToObject(channel, "target");
	cJSON_AddNumberToObject(target, "node", node);
	cJSON_AddStringToObject(target, "path", path);
	cJSON_AddItemToArray(j->channels, channel);
}

// The morph targets of a chunk, its mesh and node (a child of parent, a mesh collider's posed
// node, when >= 0), and its animation: weights (frame k of the chunk: weight 1 on its target) and
// visibility (scale 1 over its frames, else 0).
static bool WriteChunk(CliGltf* g, Json* j, const Chunk* k, int timesView, int parent)
{
	const Segment* s = &g->segments[k->segment];
	const int n = s->vertexCount;
	const uint64_t half = 12 * (uint64_t)n; // positions, then normals
	const Cloth* c = &g->cloths[k->cloth];
	char stem[48], name[96];
	if (c->collider >= 0)
		snprintf(stem, sizeof stem, "collider_%d_mesh_surface", c->collider);
	else
		snprintf(stem, sizeof stem, "cloth_%d", k->cloth);
	const bool whole = k->firstFrame == 0 && k->endFrame < 0;
	if (whole)
		snprintf(name, sizeof name, "%s", stem);
	else
		snprintf(name, sizeof name, "%s_frames_%d_%d", stem, k->firstFrame, k->endFrame < 0 ? g->frames : k->endFrame);
	cJSON* attributes = cJSON_CreateObject();
	cJSON_AddNumberToObject(attributes, "POSITION",
		Accessor(j, View(j, k->baseOffset, half, GLTF_ARRAY_BUFFER), 0, GLTF_FLOAT, n, "VEC3", k->min, k->max, 3));
	cJSON_AddNumberToObject(attributes, "NORMAL",
		Accessor(j, View(j, k->baseOffset + half, half, GLTF_ARRAY_BUFFER), 0, GLTF_FLOAT, n, "VEC3", NULL, NULL, 3));
	if (s->uvs)
		cJSON_AddNumberToObject(attributes, "TEXCOORD_0",
			Accessor(j, View(j, s->uvOffset, 8 * (uint64_t)n, GLTF_ARRAY_BUFFER), 0, GLTF_FLOAT, n, "VEC2", NULL, NULL, 2));
	if (s->particles)
		cJSON_AddNumberToObject(attributes, "_PARTICLE",
			Accessor(j, View(j, s->particleOffset, 4 * (uint64_t)n, GLTF_ARRAY_BUFFER), 0, GLTF_FLOAT, n, "SCALAR", NULL, NULL, 1));
	const int indexSize = s->index32 ? 4 : 2;
	const int indices = s->indexCount == 0
		? -1
		: Accessor(j, View(j, s->indexOffset, (uint64_t)indexSize * (uint64_t)s->indexCount, GLTF_ELEMENT_ARRAY_BUFFER), 0,
			  s->index32 ? GLTF_UNSIGNED_INT : GLTF_UNSIGNED_SHORT, s->indexCount, "SCALAR", NULL, NULL, 1);
	cJSON* targets = NULL;
	cJSON* names = NULL;
	if (k->targetCount > 0) {
		targets = cJSON_CreateArray();
		names = cJSON_CreateArray();
		for (int t = 0; t < k->targetCount; ++t) {
			const Target* target = &k->targets[t];
			cJSON* attrs = cJSON_CreateObject();
			cJSON_AddNumberToObject(attrs, "POSITION",
				Accessor(j, View(j, target->offset, half, GLTF_ARRAY_BUFFER), 0, GLTF_FLOAT, n, "VEC3", target->min, target->max, 3));
			cJSON_AddNumberToObject(attrs, "NORMAL",
				Accessor(j, View(j, target->offset + half, half, GLTF_ARRAY_BUFFER), 0, GLTF_FLOAT, n, "VEC3", NULL, NULL, 3));
			cJSON_AddItemToArray(targets, attrs);
			char frame[32];
			snprintf(frame, sizeof frame, "frame_%04d", k->firstFrame + 1 + t);
			cJSON_AddItemToArray(names, cJSON_CreateString(frame));
		}
	}
	const int mesh = AddMesh(j, name, attributes, indices, c->collider >= 0 ? MATERIAL_COLLIDER : MATERIAL_CLOTH, targets);
	if (names != NULL) {
		// The targets' names (three.js's morphTargetDictionary, Blender's shape keys).
		cJSON* extras = cJSON_AddObjectToObject(cJSON_GetArrayItem(j->meshes, mesh), "extras");
		cJSON_AddItemToObject(extras, "targetNames", names);
	}
	cJSON* node = AddNode(j, name, mesh, parent);
	const int nodeIndex = Count(j->nodes) - 1;
	// Hidden at the start unless it shows frame 0.
	if (k->firstFrame > 0) {
		const float zero[3] = {0.0f, 0.0f, 0.0f};
		cJSON_AddItemToObject(node, "scale", cJSON_CreateFloatArray(zero, 3));
	}
	if (k->targetCount > 0) {
		// Keys at the chunk's frames firstFrame .. firstFrame + targetCount (the shared times); key i
		// weighs target i - 1 with 1, the others 0.
		const int keys = k->targetCount + 1;
		float* weights = (float*)calloc((size_t)keys * (size_t)k->targetCount, sizeof(float));
		if (weights == NULL)
			return false;
		for (int i = 1; i < keys; ++i)
			weights[(size_t)i * (size_t)k->targetCount + (size_t)(i - 1)] = 1.0f;
		const float tMin = FrameTime(g, k->firstFrame), tMax = FrameTime(g, k->firstFrame + k->targetCount);
		const int input = Accessor(j, timesView, 4 * (uint64_t)k->firstFrame, GLTF_FLOAT, keys, "SCALAR", &tMin, &tMax, 1);
		const int output = FloatData(j, &g->bin, weights, keys * k->targetCount, "SCALAR", 1, 0, false);
		free(weights);
		AddChannel(j, nodeIndex, "weights", input, output, "LINEAR");
	}
	if (!whole) {
		float times[3], scales[9];
		int keys = 0;
		if (k->firstFrame > 0) {
			times[keys] = 0.0f;
			scales[3 * keys] = scales[3 * keys + 1] = scales[3 * keys + 2] = 0.0f;
			keys++;
		}
		times[keys] = FrameTime(g, k->firstFrame);
		scales[3 * keys] = scales[3 * keys + 1] = scales[3 * keys + 2] = 1.0f;
		keys++;
		if (k->endFrame >= 0) {
			times[keys] = FrameTime(g, k->endFrame);
			scales[3 * keys] = scales[3 * keys + 1] = scales[3 * keys + 2] = 0.0f;
			keys++;
		}
		const int input = FloatData(j, &g->bin, times, keys, "SCALAR", 1, 0, true);
		const int output = FloatData(j, &g->bin, scales, keys, "VEC3", 3, 0, false);
		AddChannel(j, nodeIndex, "scale", input, output, "STEP");
	}
	return true;
}

// Whether a shape's pose component (offset 0: translation, 3: rotation) changes over the frames.
static bool Varies(const CliGltf* g, const Shape* s, int offset, int components)
{
	for (int f = 1; f <= g->frames; ++f) {
		if (memcmp(&s->poses[7 * (size_t)f + (size_t)offset], &s->poses[(size_t)offset], (size_t)components * sizeof(float)) != 0)
			return true;
	}
	return false;
}

// A collider's mesh (in its local frame), node and, when it moves, its sampled pose.
static bool WriteShape(CliGltf* g, Json* j, const Shape* s, int index, int timesView, int* timesInput)
{
	ShapeMesh m;
	memset(&m, 0, sizeof m);
	bool made = false;
	char name[64];
	// Planes and the floor are drawn as squares that reach past the cloths' whole path.
	float centre[3], reach = 0.0f;
	for (int k = 0; k < 3; ++k) {
		centre[k] = 0.5f * (g->boundsMin[k] + g->boundsMax[k]);
		const float half = 0.5f * (g->boundsMax[k] - g->boundsMin[k]);
		reach += half * half;
	}
	reach = sqrtf(reach);
	int material = MATERIAL_COLLIDER;
	switch (s->kind) {
	case SHAPE_SPHERE:
		snprintf(name, sizeof name, "sphere");
		made = MakeCapsule(&m, s->radius, s->radius, 0.0f);
		break;
	case SHAPE_FLOOR:
		snprintf(name, sizeof name, "floor");
		made = MakeQuad(&m, 2.0f * reach + 0.5f);
		material = MATERIAL_FLOOR;
		break;
	case SHAPE_COLLIDER: {
		snprintf(name, sizeof name, "collider_%d_%s", index, wfColliderTypeName(s->def.type));
		const wfColliderDef* d = &s->def;
		if (d->type == WF_COLLIDER_SPHERE) {
			made = MakeCapsule(&m, d->radius, d->radius, 0.0f);
		} else if (d->type == WF_COLLIDER_CAPSULE) {
			made = MakeCapsule(&m, d->radius, d->radius1, d->halfLength);
		} else if (d->type == WF_COLLIDER_BOX) {
			made = MakeBox(&m, d->halfExtents);
		} else if (d->type == WF_COLLIDER_MESH) {
			made = true; // its surface's chunks are the posed node's children
		} else {
			const float dx = s->poses[0] - centre[0], dy = s->poses[1] - centre[1], dz = s->poses[2] - centre[2];
			made = MakeQuad(&m, sqrtf(dx * dx + dy * dy + dz * dz) + 2.0f * reach + 0.5f);
		}
		break;
	}
	}
	if (!made) {
		FreeMesh(&m);
		return false;
	}
	int mesh = -1;
	if (s->body < 0) {
		cJSON* attributes = cJSON_CreateObject();
		cJSON_AddNumberToObject(attributes, "POSITION",
			FloatData(j, &g->bin, m.positions, m.vertexCount, "VEC3", 3, GLTF_ARRAY_BUFFER, true));
		cJSON_AddNumberToObject(attributes, "NORMAL", FloatData(j, &g->bin, m.normals, m.vertexCount, "VEC3", 3, GLTF_ARRAY_BUFFER, false));
		// At most a few hundred vertices: 16-bit indices.
		uint16_t* small = (uint16_t*)malloc((size_t)m.indexCount * sizeof(uint16_t));
		if (small == NULL) {
			FreeMesh(&m);
			return false;
		}
		for (int i = 0; i < m.indexCount; ++i)
			small[i] = (uint16_t)m.indices[i];
		const uint64_t offset = Append(&g->bin, small, 2, (size_t)m.indexCount);
		free(small);
		const int indices = Accessor(j, View(j, offset, 2 * (uint64_t)m.indexCount, GLTF_ELEMENT_ARRAY_BUFFER), 0, GLTF_UNSIGNED_SHORT,
			m.indexCount, "SCALAR", NULL, NULL, 1);
		mesh = AddMesh(j, name, attributes, indices, material, NULL);
	}
	FreeMesh(&m);
	cJSON* node = AddNode(j, name, mesh, -1);
	const int nodeIndex = Count(j->nodes) - 1;
	// A mesh collider's surface in its frame, below the posed node: each chunk a child.
	for (int i = 0; s->body >= 0 && i < g->chunkCount; ++i) {
		if (g->chunks[i].cloth == s->body && !WriteChunk(g, j, &g->chunks[i], timesView, nodeIndex))
			return false;
	}
	// The floor sits under the middle of the cloths' path.
	float translation[3] = {s->poses[0], s->poses[1], s->poses[2]};
	if (s->kind == SHAPE_FLOOR) {
		translation[0] = centre[0];
		translation[2] = centre[2];
	}
	cJSON_AddItemToObject(node, "translation", cJSON_CreateFloatArray(translation, 3));
	if (s->kind == SHAPE_COLLIDER)
		cJSON_AddItemToObject(node, "rotation", cJSON_CreateFloatArray(s->poses + 3, 4));
	// Poses sampled at every frame, LINEAR: within a frame the library moves a collider linearly
	// too (wfCollider_SetTransform); rotations are unit and on one side, so slerp and
	// component-wise blends agree.
	for (int part = 0; part < 2 && s->kind != SHAPE_FLOOR; ++part) {
		const int components = part == 0 ? 3 : 4;
		if (!Varies(g, s, 3 * part, components))
			continue;
		const int keys = g->frames + 1;
		float* values = (float*)malloc((size_t)keys * (size_t)components * sizeof(float));
		if (values == NULL)
			return false;
		for (int f = 0; f < keys; ++f)
			memcpy(&values[(size_t)f * (size_t)components], &s->poses[7 * (size_t)f + 3 * (size_t)part],
				(size_t)components * sizeof(float));
		const int output = FloatData(j, &g->bin, values, keys, part == 0 ? "VEC3" : "VEC4", components, 0, false);
		free(values);
		// Every frame's time: made once, for the first shape that moves.
		if (*timesInput < 0) {
			const float tMax = FrameTime(g, g->frames), tMin = 0.0f;
			*timesInput = Accessor(j, timesView, 0, GLTF_FLOAT, keys, "SCALAR", &tMin, &tMax, 1);
		}
		AddChannel(j, nodeIndex, part == 0 ? "translation" : "rotation", *timesInput, output, "LINEAR");
	}
	return true;
}

// The whole glTF document; the collider meshes and animation data go into the scratch file first.
static cJSON* BuildJson(CliGltf* g)
{
	Json j;
	j.root = cJSON_CreateObject();
	cJSON* asset = cJSON_AddObjectToObject(j.root, "asset");
	cJSON_AddStringToObject(asset, "version", "2.0");
	char generator[64];
	snprintf(generator, sizeof generator, "weft %d.%d.%d", WF_VERSION_MAJOR, WF_VERSION_MINOR, WF_VERSION_PATCH);
	cJSON_AddStringToObject(asset, "generator", generator);
	cJSON_AddNumberToObject(j.root, "scene", 0);
	cJSON* scenes = cJSON_AddArrayToObject(j.root, "scenes");
	cJSON* scene = cJSON_CreateObject();
	cJSON_AddItemToArray(scenes, scene);
	j.sceneNodes = cJSON_AddArrayToObject(scene, "nodes");
	j.nodes = cJSON_AddArrayToObject(j.root, "nodes");
	j.meshes = cJSON_AddArrayToObject(j.root, "meshes");
	// The cloth's colour: the mean of the renderer's weave (sRGB 0.69, 0.47, 0.36), linear.
	cJSON* materials = cJSON_AddArrayToObject(j.root, "materials");
	cJSON* clothMaterial = Material("cloth", 0.43f, 0.19f, 0.11f, 0.9f, true);
	cJSON_AddItemToArray(materials, clothMaterial);
	cJSON_AddItemToArray(materials, Material("collider", 0.35f, 0.37f, 0.42f, 0.6f, false));
	cJSON_AddItemToArray(materials, Material("floor", 0.25f, 0.25f, 0.25f, 1.0f, false));
	j.accessors = cJSON_AddArrayToObject(j.root, "accessors");
	j.views = cJSON_AddArrayToObject(j.root, "bufferViews");
	AddWeave(&j, g, clothMaterial);
	j.channels = cJSON_CreateArray();
	j.samplers = cJSON_CreateArray();
	// Frame k at k x timeStep: one list of times, shared by every sampler.
	const int keys = g->frames + 1;
	float* times = (float*)malloc((size_t)keys * sizeof(float));
	bool ok = times != NULL;
	int timesView = -1, timesInput = -1;
	if (ok) {
		for (int f = 0; f < keys; ++f)
			times[f] = FrameTime(g, f);
		const uint64_t offset = Append(&g->bin, times, 4, (size_t)keys);
		timesView = View(&j, offset, 4 * (uint64_t)keys, 0);
		free(times);
	}
	for (int i = 0; ok && i < g->chunkCount; ++i) {
		if (g->cloths[g->chunks[i].cloth].collider < 0)
			ok = WriteChunk(g, &j, &g->chunks[i], timesView, -1);
	}
	int colliderIndex = 0;
	for (int i = 0; ok && i < g->shapeCount; ++i)
		ok = WriteShape(g, &j, &g->shapes[i], g->shapes[i].kind == SHAPE_COLLIDER ? colliderIndex++ : -1, timesView, &timesInput);
	if (Count(j.channels) > 0) {
		cJSON* animations = cJSON_AddArrayToObject(j.root, "animations");
		cJSON* animation = cJSON_CreateObject();
		cJSON_AddStringToObject(animation, "name", "weft");
		cJSON_AddItemToObject(animation, "channels", j.channels);
		cJSON_AddItemToObject(animation, "samplers", j.samplers);
		cJSON_AddItemToArray(animations, animation);
	} else {
		cJSON_Delete(j.channels);
		cJSON_Delete(j.samplers);
	}
	cJSON* buffers = cJSON_AddArrayToObject(j.root, "buffers");
	cJSON* buffer = cJSON_CreateObject();
	cJSON_AddNumberToObject(buffer, "byteLength", (double)g->bin.size);
	cJSON_AddItemToArray(buffers, buffer);
	if (!ok) {
		cJSON_Delete(j.root);
		return NULL;
	}
	return j.root;
}

// ------------------------------------------------------------------ the GLB

static void PutU32(FILE* f, uint32_t value, int* error) { PutLE(f, &value, 4, 1, error); }

bool CliGltfClose(CliGltf* g, bool keep, uint64_t* bytes, char* error, size_t errorSize)
{
	if (g == NULL)
		return true;
	if (!keep) {
		FreeGltf(g);
		return true;
	}
	cJSON* root = BuildJson(g);
	char* text = root != NULL ? cJSON_PrintUnformatted(root) : NULL;
	cJSON_Delete(root);
	if (text == NULL) {
		snprintf(error, errorSize, "%s: out of memory for the glTF document", g->file.path);
		FreeGltf(g);
		return false;
	}
	const uint64_t jsonLength = strlen(text), jsonChunk = (jsonLength + 3) / 4 * 4, binChunk = (g->bin.size + 3) / 4 * 4;
	const uint64_t total = 12 + 8 + jsonChunk + 8 + binChunk;
	int failure = g->bin.error;
	if (failure == 0 && fflush(g->bin.file) != 0)
		failure = errno;
	if (failure != 0 || total > GLTF_MAX_BYTES) {
		if (failure != 0)
			snprintf(error, errorSize, "%s: cannot write the frames' scratch file: %s", g->file.path, strerror(failure));
		else
			snprintf(error, errorSize, "%s: the GLB would be %.2f GB, past the 4 GiB its 32-bit length can hold (give fewer --frames)",
				g->file.path, (double)total / 1e9);
		free(text);
		FreeGltf(g);
		return false;
	}
	// Header, the JSON chunk (padded with spaces), the BIN chunk (padded with zeros).
	FILE* out = g->file.file;
	int writeError = 0;
	PutU32(out, 0x46546C67u, &writeError); // "glTF"
	PutU32(out, 2, &writeError);
	PutU32(out, (uint32_t)total, &writeError);
	PutU32(out, (uint32_t)jsonChunk, &writeError);
	PutU32(out, 0x4E4F534Au, &writeError); // "JSON"
	PutLE(out, text, 1, jsonLength, &writeError);
	PutLE(out, "   ", 1, (size_t)(jsonChunk - jsonLength), &writeError);
	free(text);
	PutU32(out, (uint32_t)binChunk, &writeError);
	PutU32(out, 0x004E4942u, &writeError); // "BIN\0"
	// The frames and the rest, from the scratch file.
	if (fseek(g->bin.file, 0, SEEK_SET) != 0 && writeError == 0)
		writeError = errno;
	const size_t blockSize = 1 << 20;
	char* block = (char*)malloc(blockSize);
	if (block == NULL && writeError == 0)
		writeError = ENOMEM;
	for (uint64_t left = g->bin.size; left > 0 && writeError == 0;) {
		size_t n = left < blockSize ? (size_t)left : blockSize;
		if (fread(block, 1, n, g->bin.file) != n) {
			int readError = ferror(g->bin.file) ? errno : EIO;
			snprintf(error, errorSize, "%s: cannot read the frames' scratch file back: %s", g->file.path, strerror(readError));
			free(block);
			FreeGltf(g);
			return false;
		}
		PutLE(out, block, 1, n, &writeError);
		left -= n;
	}
	free(block);
	PutLE(out, "\0\0\0", 1, (size_t)(binChunk - g->bin.size), &writeError);
	if (writeError != 0) {
		snprintf(error, errorSize, "%s: cannot write: %s", g->file.path, strerror(writeError));
		FreeGltf(g);
		return false;
	}
	bool ok = CliFileCommit(&g->file, error, errorSize);
	if (ok && bytes != NULL)
		*bytes = total;
	FreeGltf(g);
	return ok;
}
