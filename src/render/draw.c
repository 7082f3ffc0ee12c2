// One frame. Each cloth's positions, normals and velocities come from the solver's own buffers when
// the renderer shares the world's device (no copy), else from the public read-back API through the
// staging buffer. Then, in one command buffer: the casters' box and the key light's projection on the
// GPU (bounds.comp, light.comp), the shadow pass, the floor, the sphere, the cloths, the wireframe and
// the pin markers into the offscreen target, and the copy of the image for the host.
#include "renderer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RD_MAX_PIN_MARKERS 4096
#define RD_CACHE_IDLE_FRAMES 120 // a cloth not drawn for this many frames loses its cache entry
#define RD_STATE_ALIGN 256       // offsets of storage-buffer views (minStorageBufferOffsetAlignment <= 256)

// One cloth of the frame: where its state is read from and what it needs.
typedef struct RdClothDraw {
	wfClothId id;
	wfClothInfo info;
	RdClothCache* cache; // set once every cloth of the frame has its entry (the array may move before)
	int cacheIndex;
	VkBuffer state; // the solver's buffer, or r->geometry
	VkDeviceSize position, velocity, normal;
	bool zeroCopy;
	float offset[3]; // added to the positions: the cloth's origin for the solver's (local) buffer, else 0
	bool takeRest;   // copy this frame's positions into the cache's rest shape
	VkDescriptorSet set;
} RdClothDraw;

static VkDeviceSize AlignUp(VkDeviceSize v, VkDeviceSize a) { return (v + a - 1) / a * a; }

static void FreeCache(wfRenderer* r, RdClothCache* c) { rdBufferDestroy(&r->ctx, &c->statics); }

static void FreeMeshCache(wfRenderer* r, RdMeshCache* c)
{
	rdBufferDestroy(&r->ctx, &c->buffer);
	free(c->local);
	free(c->normal);
	free(c->triangle);
}

void rdFreeCaches(wfRenderer* r)
{
	for (int i = 0; i < r->cacheCount; ++i)
		FreeCache(r, &r->caches[i]);
	r->cacheCount = 0;
	for (int i = 0; i < r->meshCacheCount; ++i)
		FreeMeshCache(r, &r->meshCaches[i]);
	r->meshCacheCount = 0;
}

// Drops the entries no frame has drawn for a while (cloths and mesh colliders that were removed or
// are no longer drawn).
static void PruneCaches(wfRenderer* r)
{
	int kept = 0;
	for (int i = 0; i < r->cacheCount; ++i) {
		if (r->frameIndex - r->caches[i].lastFrame > RD_CACHE_IDLE_FRAMES)
			FreeCache(r, &r->caches[i]);
		else
			r->caches[kept++] = r->caches[i];
	}
	r->cacheCount = kept;
	kept = 0;
	for (int i = 0; i < r->meshCacheCount; ++i) {
		if (r->frameIndex - r->meshCaches[i].lastFrame > RD_CACHE_IDLE_FRAMES)
			FreeMeshCache(r, &r->meshCaches[i]);
		else
			r->meshCaches[kept++] = r->meshCaches[i];
	}
	r->meshCacheCount = kept;
}

// A cloth's vertices for drawing when its mesh has UV seams: the particles first, then one more for
// every other UV a particle has at some corner, and the triangles over them. Returns the vertex
// count, or -1 (out of memory, or the cloth could not be read). With seams, *particle (vertices),
// *uv (2 x vertices) and *index (3 x triangles) are malloc'ed; without, they are NULL and the count
// is the particle count.
static int SeamVertices(wfClothId id, const wfClothInfo* info, uint32_t** particle, float** uv, uint32_t** index)
{
	*particle = NULL;
	*uv = NULL;
	*index = NULL;
	const int n = info->particleCount, corners = 3 * info->triangleCount;
	const size_t slots = (size_t)(corners > 0 ? corners : 1);
	float* cornerUV = (float*)malloc(sizeof(float) * 2 * slots);
	float* own = (float*)malloc(sizeof(float) * 2 * (size_t)n);
	uint32_t* tri = (uint32_t*)malloc(sizeof(uint32_t) * slots);
	int* head = (int*)malloc(sizeof(int) * (size_t)n);    // a particle's first extra vertex, -1: none
	int* next = (int*)malloc(sizeof(int) * slots);        // per extra vertex: the particle's next one
	int* firstCorner = (int*)malloc(sizeof(int) * slots); // per extra vertex: the corner that made it
	int count = -1, extras = 0;
	if (cornerUV && own && tri && head && next && firstCorner && wfCloth_ReadCornerUVs(id, cornerUV, 2 * corners) == WF_OK &&
		wfCloth_ReadUVs(id, own, n) == WF_OK && wfCloth_ReadIndices(id, tri, corners) == WF_OK) {
		for (int i = 0; i < n; ++i)
			head[i] = -1;
		for (int k = 0; k < corners; ++k) {
			const uint32_t p = tri[k];
			const float* c = &cornerUV[2 * k];
			if (memcmp(c, &own[2 * p], 2 * sizeof(float)) == 0)
				continue; // the particle's own UV: the particle is the vertex
			int e = head[p];
			while (e >= 0 && memcmp(c, &cornerUV[2 * firstCorner[e]], 2 * sizeof(float)) != 0)
				e = next[e];
			if (e < 0) {
				e = extras++;
				firstCorner[e] = k;
				next[e] = head[p];
				head[p] = e;
			}
			tri[k] = (uint32_t)(n + e);
		}
		count = n + extras;
	}
	if (count > n) {
		*particle = (uint32_t*)malloc(sizeof(uint32_t) * (size_t)count);
		*uv = (float*)malloc(sizeof(float) * 2 * (size_t)count);
		if (*particle != NULL && *uv != NULL) {
			for (int i = 0; i < n; ++i) {
				(*particle)[i] = (uint32_t)i;
				memcpy(&(*uv)[2 * i], &own[2 * i], 2 * sizeof(float));
			}
			for (int i = 0; i < n; ++i) {
				for (int e = head[i]; e >= 0; e = next[e]) {
					(*particle)[n + e] = (uint32_t)i;
					memcpy(&(*uv)[2 * (n + e)], &cornerUV[2 * firstCorner[e]], 2 * sizeof(float));
				}
			}
			*index = tri;
			tri = NULL;
		} else {
			free(*particle);
			free(*uv);
			*particle = NULL;
			*uv = NULL;
			count = -1;
		}
	}
	free(cornerUV);
	free(own);
	free(tri);
	free(head);
	free(next);
	free(firstCorner);
	return count;
}

// Uploads a cloth's uvs, triangle indices and edges into a new device buffer, with room for the rest
// shape after them. The edges: a grid's structural ones row by row (the wireframe), then its shear
// diagonals (with them, what the nodes view draws); a mesh's stretch constraints as the library
// lists them (both).
static bool CreateCacheBuffer(wfRenderer* r, RdClothCache* c, wfClothId id, const wfClothInfo* info)
{
	RdContext* ctx = &r->ctx;
	int n = info->particleCount;
	const int structural = info->mesh ? info->edgeCount : (info->cols - 1) * info->rows + info->cols * (info->rows - 1);
	const int shear = info->mesh ? 0 : 2 * (info->cols - 1) * (info->rows - 1);
	int lineIndices = 2 * (structural + shear);
	VkDeviceSize size = 0;
	c->streams = rdLayoutStreams(&size, 0, 3 * info->triangleCount, lineIndices, true);
	c->streams.lineIndexCount = (uint32_t)(2 * structural); // the wireframe's
	c->nodeEdges = (uint32_t)(structural + shear);
	c->streams.uv = size;
	size = AlignUp(size + (VkDeviceSize)n * 8, RD_STATE_ALIGN);
	uint32_t* seamParticle = NULL;
	float* seamUV = NULL;
	uint32_t* seamIndex = NULL;
	const int vertices = SeamVertices(id, info, &seamParticle, &seamUV, &seamIndex);
	if (vertices < 0)
		return rdFail(ctx, "reading cloth %d's UV seams: out of memory or %s", c->index, wfWorld_GetLastError(c->world));
	c->seamVertices = seamIndex != NULL ? (uint32_t)vertices : 0;
	if (c->seamVertices > 0) {
		c->seamParticle = size;
		c->seamUV = AlignUp(size + (VkDeviceSize)vertices * 4, 16);
		c->seamIndex = AlignUp(c->seamUV + (VkDeviceSize)vertices * 8, 16);
		size = AlignUp(c->seamIndex + (VkDeviceSize)c->streams.indexCount * 4, RD_STATE_ALIGN);
	}
	c->rest = size;
	size += (VkDeviceSize)n * 16;
	wfVkBuffer staging;
	if (!rdBufferCreate(ctx, &staging, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true)) {
		free(seamParticle);
		free(seamUV);
		free(seamIndex);
		return false;
	}
	uint8_t* base = staging.map;
	if (c->seamVertices > 0) {
		memcpy(base + c->seamParticle, seamParticle, (size_t)vertices * 4);
		memcpy(base + c->seamUV, seamUV, (size_t)vertices * 8);
		memcpy(base + c->seamIndex, seamIndex, (size_t)c->streams.indexCount * 4);
	}
	free(seamParticle);
	free(seamUV);
	free(seamIndex);
	bool ok = wfCloth_ReadUVs(id, (float*)(base + c->streams.uv), n) == WF_OK &&
		wfCloth_ReadIndices(id, (uint32_t*)(base + c->streams.index), (int)c->streams.indexCount) == WF_OK;
	if (!ok) {
		rdBufferDestroy(ctx, &staging);
		return rdFail(ctx, "reading cloth %d: %s", c->index, wfWorld_GetLastError(c->world));
	}
	uint32_t* lines = (uint32_t*)(base + c->streams.lineIndex);
	if (info->mesh && wfCloth_ReadEdges(id, lines, 2 * structural) != WF_OK) {
		rdBufferDestroy(ctx, &staging);
		return rdFail(ctx, "reading cloth %d: %s", c->index, wfWorld_GetLastError(c->world));
	}
	int k = 0;
	for (int y = 0; y < info->rows; ++y) {
		for (int x = 0; x < info->cols; ++x) {
			uint32_t i = (uint32_t)(y * info->cols + x);
			if (x + 1 < info->cols) {
				lines[k++] = i;
				lines[k++] = i + 1;
			}
			if (y + 1 < info->rows) {
				lines[k++] = i;
				lines[k++] = i + (uint32_t)info->cols;
			}
		}
	}
	for (int y = 0; y + 1 < info->rows; ++y) {
		for (int x = 0; x + 1 < info->cols; ++x) {
			uint32_t i = (uint32_t)(y * info->cols + x);
			lines[k++] = i; // down-right
			lines[k++] = i + (uint32_t)info->cols + 1;
			lines[k++] = i + 1; // down-left
			lines[k++] = i + (uint32_t)info->cols;
		}
	}
	ok = rdBufferCreate(ctx, &c->statics, size,
			 VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_INDEX_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
				 VK_BUFFER_USAGE_TRANSFER_DST_BIT,
			 false) &&
		rdBeginCommands(ctx);
	if (ok) {
		VkBufferCopy copy = {0, 0, c->rest};
		ctx->gpu.fd.vkCmdCopyBuffer(ctx->cmd, staging.buffer, c->statics.buffer, 1, &copy);
		VkMemoryBarrier barrier = {
			.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
			.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
			.dstAccessMask = VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT | VK_ACCESS_INDEX_READ_BIT,
		};
		ctx->gpu.fd.vkCmdPipelineBarrier(ctx->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, 0, 1, &barrier, 0,
			NULL, 0, NULL);
		ok = rdSubmitAndWait(ctx);
	}
	rdBufferDestroy(ctx, &staging);
	return ok;
}

// The cache entry of a cloth, made on its first frame (NULL with the error set on failure).
static RdClothCache* FindCache(wfRenderer* r, wfClothId id, const wfClothInfo* info)
{
	for (int i = 0; i < r->cacheCount; ++i) {
		RdClothCache* c = &r->caches[i];
		if (c->world == id.world && c->index == id.index && c->generation == id.generation && c->particleCount == info->particleCount &&
			c->topology == info->topology)
			return c;
	}
	RdClothCache* grown = realloc(r->caches, sizeof *grown * (size_t)(r->cacheCount + 1));
	if (grown == NULL) {
		rdRendererFail(r, WF_ERROR_OUT_OF_MEMORY, "out of memory for the cloth cache");
		return NULL;
	}
	r->caches = grown;
	RdClothCache* c = &r->caches[r->cacheCount];
	memset(c, 0, sizeof *c);
	c->world = id.world;
	c->index = id.index;
	c->generation = id.generation;
	c->particleCount = info->particleCount;
	c->topology = info->topology;
	c->restTime = -1.0;
	if (!CreateCacheBuffer(r, c, id, info)) {
		FreeCache(r, c);
		rdRendererFailVulkan(r);
		return NULL;
	}
	r->cacheCount++;
	return c;
}

// Grows the staging and geometry buffers to hold `size` bytes.
static bool EnsureFrameBuffers(wfRenderer* r, VkDeviceSize size)
{
	if (r->staging.size >= size)
		return true;
	RdContext* ctx = &r->ctx;
	VkDeviceSize capacity = 1 << 16;
	while (capacity < size)
		capacity *= 2;
	rdBufferDestroy(ctx, &r->staging);
	rdBufferDestroy(ctx, &r->geometry);
	return rdBufferCreate(ctx, &r->staging, capacity, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true) &&
		rdBufferCreate(ctx, &r->geometry, capacity,
			VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, false);
}

// Reads one array of a cloth through the public API and writes it into the staging buffer as vec4.
typedef wfResult (*RdReadFn)(wfClothId id, wfVec3* out, int count);
static wfResult StageArray(wfRenderer* r, const RdClothDraw* c, RdReadFn read, VkDeviceSize offset)
{
	int n = c->info.particleCount;
	if (r->scratchCount < n) {
		float* grown = realloc(r->scratch, sizeof(float) * 3 * (size_t)n);
		if (grown == NULL)
			return rdRendererFail(r, WF_ERROR_OUT_OF_MEMORY, "out of memory for the read-back");
		r->scratch = grown;
		r->scratchCount = n;
	}
	wfResult res = read(c->id, (wfVec3*)r->scratch, n);
	if (res != WF_OK)
		return rdRendererFail(r, res, "reading cloth %d: %s", c->id.index, wfWorld_GetLastError(c->id.world));
	float* out = (float*)((uint8_t*)r->staging.map + offset);
	for (int i = 0; i < n; ++i) {
		out[4 * i + 0] = r->scratch[3 * i + 0];
		out[4 * i + 1] = r->scratch[3 * i + 1];
		out[4 * i + 2] = r->scratch[3 * i + 2];
		out[4 * i + 3] = 0.0f;
	}
	return WF_OK;
}

// True when the world runs on the renderer's (borrowed) device and queue: its def.world, or any world
// created on that device (wfWorldDef.vulkanDevice).
static bool SameDevice(wfRenderer* r, wfWorld* world)
{
	if (world == r->sharedWorld)
		return true;
	wfVulkanDevice d;
	return wfWorld_GetBackend(world) == WF_BACKEND_VULKAN && wfWorld_GetVulkanDevice(world, &d) == WF_OK &&
		(VkDevice)d.device == r->ctx.gpu.device && (VkQueue)d.queue == r->ctx.gpu.queue;
}

// Where a cloth's state comes from this frame: the solver's buffers when this renderer shares the
// cloth's world's device and the normals are current, else the staging layout from *size on.
static wfResult PrepareCloth(wfRenderer* r, RdClothDraw* c, VkDeviceSize* size)
{
	wfResult res = wfCloth_GetInfo(c->id, &c->info);
	if (res != WF_OK)
		return rdRendererFail(r, res, "cloth %d: %s", c->id.index, wfWorld_GetLastError(c->id.world));
	RdClothCache* cache = FindCache(r, c->id, &c->info);
	if (cache == NULL)
		return WF_ERROR_OUT_OF_MEMORY;
	c->cacheIndex = (int)(cache - r->caches);
	cache->lastFrame = r->frameIndex;
	double now = wfWorld_GetTime(c->id.world);
	c->takeRest = cache->restTime < 0.0 || now < cache->restTime;
	if (c->takeRest)
		cache->restTime = now;
	wfVulkanClothBuffers vb;
	c->zeroCopy = r->ctx.gpu.borrowed && SameDevice(r, c->id.world) && wfCloth_GetVulkanBuffers(c->id, &vb) == WF_OK && vb.normalsCurrent &&
		vb.stride == RD_VERTEX_STRIDE;
	if (c->zeroCopy) {
		// The solver's positions are relative to the cloth's origin (weft.h): drawn translated by it.
		for (int k = 0; k < 3; ++k)
			c->offset[k] = (float)vb.origin[k];
		c->state = (VkBuffer)vb.buffer;
		c->position = vb.positionOffset;
		c->velocity = vb.velocityOffset;
		c->normal = vb.normalOffset;
		return WF_OK;
	}
	memset(c->offset, 0, sizeof c->offset); // staged positions are read in world coordinates
	VkDeviceSize bytes = AlignUp((VkDeviceSize)c->info.particleCount * RD_VERTEX_STRIDE, RD_STATE_ALIGN);
	// Without zero copy the three arrays sit side by side in staging, at the same offsets in geometry.
	c->position = AlignUp(*size, RD_STATE_ALIGN);
	c->velocity = c->position + bytes;
	c->normal = c->position + 2 * bytes;
	*size = c->position + 3 * bytes;
	return WF_OK;
}

// Fills the staging buffer for a cloth without zero copy (velocities only for the speed colours and
// the nodes view).
static wfResult StageCloth(wfRenderer* r, RdClothDraw* c)
{
	c->state = r->geometry.buffer;
	wfResult res = StageArray(r, c, wfCloth_ReadPositions, c->position);
	if (res == WF_OK)
		res = StageArray(r, c, wfCloth_ReadNormals, c->normal);
	if (res == WF_OK && (r->def.colorMode == WF_COLOR_SPEED || r->def.view != WF_VIEW_CLOTH)) // the nodes are coloured by speed
		res = StageArray(r, c, wfCloth_ReadVelocities, c->velocity);
	else if (res == WF_OK)
		memset((uint8_t*)r->staging.map + c->velocity, 0, (size_t)c->info.particleCount * RD_VERTEX_STRIDE);
	return res;
}

// ------------------------------------------------------------------ mesh colliders

static int CompareEdges(const void* a, const void* b)
{
	const uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
	return x < y ? -1 : x > y;
}

// Whether triangles (3 x count) close a surface: each directed edge once, and its reverse once
// (two faces per edge, one winding). Only a closed mesh may have its back faces culled; an open one
// (a sheet) is seen from both sides. Out of memory counts as open (drawn two-sided, still right).
static bool ClosedMesh(const uint32_t* triangle, int count)
{
	const size_t n = 3 * (size_t)count;
	uint64_t* edges = (uint64_t*)malloc(sizeof(uint64_t) * (n > 0 ? n : 1));
	if (edges == NULL)
		return false;
	for (int t = 0; t < count; ++t) {
		for (int k = 0; k < 3; ++k)
			edges[3 * t + k] = (uint64_t)triangle[3 * t + k] << 32 | triangle[3 * t + (k + 1) % 3];
	}
	qsort(edges, n, sizeof *edges, CompareEdges);
	bool closed = n > 0;
	for (size_t i = 0; i < n && closed; ++i) {
		const uint64_t reverse = edges[i] << 32 | edges[i] >> 32;
		closed = (i + 1 == n || edges[i + 1] != edges[i]) && bsearch(&reverse, edges, n, sizeof *edges, CompareEdges) != NULL;
	}
	free(edges);
	return closed;
}

// The cache entry of a mesh collider with `vertices` vertices, made (with its triangles) on its
// first frame; NULL with the error set on failure.
static RdMeshCache* FindMeshCache(wfRenderer* r, wfColliderId id, int vertices)
{
	for (int i = 0; i < r->meshCacheCount; ++i) {
		RdMeshCache* c = &r->meshCaches[i];
		if (c->world == id.world && c->index == id.index && c->generation == id.generation && c->vertexCount == vertices)
			return c;
	}
	RdMeshCache* grown = realloc(r->meshCaches, sizeof *grown * (size_t)(r->meshCacheCount + 1));
	if (grown == NULL) {
		rdRendererFail(r, WF_ERROR_OUT_OF_MEMORY, "out of memory for the mesh collider cache");
		return NULL;
	}
	r->meshCaches = grown;
	RdMeshCache* c = &r->meshCaches[r->meshCacheCount];
	memset(c, 0, sizeof *c);
	c->world = id.world;
	c->index = id.index;
	c->generation = id.generation;
	c->vertexCount = vertices;
	c->triangleCount = wfCollider_GetMeshTriangles(id, NULL, 0);
	const size_t corners = 3 * (size_t)c->triangleCount;
	c->local = (wfVec3*)malloc(sizeof(wfVec3) * (size_t)vertices);
	c->normal = (float*)malloc(sizeof(float) * 3 * (size_t)vertices);
	c->triangle = (uint32_t*)malloc(sizeof(uint32_t) * (corners > 0 ? corners : 1));
	if (c->local == NULL || c->normal == NULL || c->triangle == NULL) {
		FreeMeshCache(r, c);
		rdRendererFail(r, WF_ERROR_OUT_OF_MEMORY, "out of memory for mesh collider %d", id.index);
		return NULL;
	}
	wfCollider_GetMeshTriangles(id, c->triangle, (int)corners);
	c->closed = ClosedMesh(c->triangle, c->triangleCount);
	VkDeviceSize size = 0;
	c->streams = rdLayoutStreams(&size, vertices, (int)corners, 0, false);
	if (!rdBufferCreate(&r->ctx, &c->buffer, size, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_INDEX_BUFFER_BIT, true)) {
		FreeMeshCache(r, c);
		rdRendererFailVulkan(r);
		return NULL;
	}
	memset(c->buffer.map, 0, (size_t)size); // the uvs: the solid colour reads none
	memcpy((uint8_t*)c->buffer.map + c->streams.index, c->triangle, sizeof(uint32_t) * corners);
	r->meshCacheCount++;
	return c;
}

// A mesh collider's vertices now: posed into the world (position + R(rotation) * vertex) with the
// smooth normals of its current shape (each vertex the area-weighted sum of its triangles'), as vec4.
static wfResult StageColliderMesh(wfRenderer* r, wfColliderId id)
{
	const int n = wfCollider_GetMeshVertices(id, NULL, 0);
	wfVec3 p;
	wfQuat q;
	if (n <= 0 || wfCollider_GetTransform(id, &p, &q) != WF_OK)
		return rdRendererFail(r, WF_ERROR_INVALID_ARGUMENT, "mesh collider %d: %s", id.index, wfWorld_GetLastError(id.world));
	RdMeshCache* c = FindMeshCache(r, id, n);
	if (c == NULL)
		return WF_ERROR_OUT_OF_MEMORY;
	c->lastFrame = r->frameIndex;
	wfCollider_GetMeshVertices(id, c->local, n);
	memset(c->normal, 0, sizeof(float) * 3 * (size_t)n);
	for (int t = 0; t < c->triangleCount; ++t) {
		const uint32_t* v = &c->triangle[3 * t];
		const wfVec3 a = c->local[v[0]], b = c->local[v[1]], d = c->local[v[2]];
		const float e[3] = {b.x - a.x, b.y - a.y, b.z - a.z}, f[3] = {d.x - a.x, d.y - a.y, d.z - a.z};
		const float cross[3] = {e[1] * f[2] - e[2] * f[1], e[2] * f[0] - e[0] * f[2], e[0] * f[1] - e[1] * f[0]};
		for (int k = 0; k < 3; ++k) {
			float* sum = &c->normal[3 * v[k]];
			sum[0] += cross[0], sum[1] += cross[1], sum[2] += cross[2];
		}
	}
	const float len = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
	const float x = q.x / len, y = q.y / len, z = q.z / len, w = q.w / len;
	const float ax[3] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w)};
	const float ay[3] = {2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w)};
	const float az[3] = {2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)};
	float* position = (float*)((uint8_t*)c->buffer.map + c->streams.position);
	float* normal = (float*)((uint8_t*)c->buffer.map + c->streams.normal);
	for (int i = 0; i < n; ++i) {
		const wfVec3 l = c->local[i];
		const float* s = &c->normal[3 * i];
		float m[3], out[4] = {p.x, p.y, p.z, 0.0f};
		for (int k = 0; k < 3; ++k) {
			out[k] += ax[k] * l.x + ay[k] * l.y + az[k] * l.z;
			m[k] = ax[k] * s[0] + ay[k] * s[1] + az[k] * s[2];
		}
		memcpy(&position[4 * i], out, sizeof out);
		// A vertex of no triangle's area has no normal of its own: it faces up.
		const float length = sqrtf(m[0] * m[0] + m[1] * m[1] + m[2] * m[2]);
		const float unit[4] = {length > 0.0f ? m[0] / length : 0.0f, length > 0.0f ? m[1] / length : 1.0f,
			length > 0.0f ? m[2] / length : 0.0f, 0.0f};
		memcpy(&normal[4 * i], unit, sizeof unit);
	}
	return WF_OK;
}

// Every mesh collider of the world, staged for this frame's RecordColliders.
static wfResult PrepareColliderMeshes(wfRenderer* r, const wfWorld* world)
{
	wfColliderId ids[64];
	const int count = wfWorld_GetColliders(world, ids, 64);
	for (int i = 0; i < count && i < 64; ++i) {
		if (wfCollider_GetDef(ids[i]).type != WF_COLLIDER_MESH)
			continue;
		wfResult res = StageColliderMesh(r, ids[i]);
		if (res != WF_OK)
			return res;
	}
	return WF_OK;
}

// The entry StageColliderMesh filled this frame for a collider (NULL: none).
static const RdMeshCache* StagedMesh(const wfRenderer* r, wfColliderId id)
{
	for (int i = 0; i < r->meshCacheCount; ++i) {
		const RdMeshCache* c = &r->meshCaches[i];
		if (c->world == id.world && c->index == id.index && c->generation == id.generation && c->lastFrame == r->frameIndex)
			return c;
	}
	return NULL;
}

// Unit direction towards the key light: above, front-right.
static void KeyLightDirection(float l[3])
{
	const float d[3] = {0.45f, 0.8f, 0.4f};
	float n = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
	for (int i = 0; i < 3; ++i)
		l[i] = d[i] / n;
}

static void SetVec4(float out[4], float x, float y, float z, float w)
{
	out[0] = x;
	out[1] = y;
	out[2] = z;
	out[3] = w;
}

// The scene uniforms; the light pass fills lightViewProj and shadow.x on the GPU.
static void FillScene(wfRenderer* r, const wfWorldDef* wd, const wfCamera* camera)
{
	RdScene scene;
	memset(&scene, 0, sizeof scene);
	rdCameraViewProj(camera, (float)r->def.width / (float)r->def.height, scene.viewProj);
	wfVec3 eye = wfCamera_GetEye(camera);
	SetVec4(scene.eye, eye.x, eye.y, eye.z, 1.0f);
	// Key light from above, front-right; hemisphere fill from a pale sky and a warm ground.
	float l[3];
	KeyLightDirection(l);
	SetVec4(scene.lightDir, l[0], l[1], l[2], 0.0f);
	SetVec4(scene.lightColor, 0.95f, 0.93f, 0.88f, 0.0f);
	SetVec4(scene.skyColor, 0.20f, 0.22f, 0.26f, 0.0f);
	SetVec4(scene.groundColor, 0.08f, 0.07f, 0.06f, 0.0f);
	SetVec4(scene.background, rdSrgbToLinear(r->def.background[0]), rdSrgbToLinear(r->def.background[1]),
		rdSrgbToLinear(r->def.background[2]), 1.0f);
	SetVec4(scene.shadow, 0.0f, 1.0f / (float)r->shadowSize, 0.0f, 0.0f);
	SetVec4(scene.params, r->def.speedScale, r->def.strainScale, wd->floor.height, 0.25f);
	memcpy(r->uniforms.map, &scene, sizeof scene);
}

static void Push(wfRenderer* r, const RdDraw* draw)
{
	r->ctx.gpu.fd.vkCmdPushConstants(r->ctx.cmd, r->layout,
		VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT | VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof *draw, draw);
}

static void SetViewport(wfRenderer* r, uint32_t width, uint32_t height)
{
	VkViewport viewport = {0.0f, 0.0f, (float)width, (float)height, 0.0f, 1.0f};
	VkRect2D scissor = {{0, 0}, {width, height}};
	r->ctx.gpu.fd.vkCmdSetViewport(r->ctx.cmd, 0, 1, &viewport);
	r->ctx.gpu.fd.vkCmdSetScissor(r->ctx.cmd, 0, 1, &scissor);
}

static void Barrier(wfRenderer* r, VkPipelineStageFlags srcStages, VkAccessFlags srcAccess, VkPipelineStageFlags dstStages,
	VkAccessFlags dstAccess)
{
	VkMemoryBarrier barrier = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = srcAccess,
		.dstAccessMask = dstAccess,
	};
	r->ctx.gpu.fd.vkCmdPipelineBarrier(r->ctx.cmd, srcStages, dstStages, 0, 1, &barrier, 0, NULL, 0, NULL);
}

// Binds a static mesh's vertex streams (only positions for the line and shadow pipelines) and indices.
static void BindStreams(wfRenderer* r, VkBuffer buffer, const RdStreams* s, bool positionsOnly)
{
	VkBuffer buffers[3] = {buffer, buffer, buffer};
	VkDeviceSize offsets[3] = {s->position, s->normal, s->uv};
	r->ctx.gpu.fd.vkCmdBindVertexBuffers(r->ctx.cmd, 0, positionsOnly ? 1 : 3, buffers, offsets);
	r->ctx.gpu.fd.vkCmdBindIndexBuffer(r->ctx.cmd, buffer, s->index, VK_INDEX_TYPE_UINT32);
}

// Binds a cloth: positions and normals from its state buffer, uvs and indices from its cache.
static void BindCloth(wfRenderer* r, const RdClothDraw* c, bool positionsOnly, bool lines)
{
	VkBuffer buffers[3] = {c->state, c->state, c->cache->statics.buffer};
	VkDeviceSize offsets[3] = {c->position, c->normal, c->cache->streams.uv};
	r->ctx.gpu.fd.vkCmdBindVertexBuffers(r->ctx.cmd, 0, positionsOnly ? 1 : 3, buffers, offsets);
	r->ctx.gpu.fd.vkCmdBindIndexBuffer(r->ctx.cmd, c->cache->statics.buffer, lines ? c->cache->streams.lineIndex : c->cache->streams.index,
		VK_INDEX_TYPE_UINT32);
}

static void BindSets(wfRenderer* r, VkPipelineBindPoint point, VkDescriptorSet clothSet)
{
	VkDescriptorSet sets[2] = {r->set, clothSet};
	r->ctx.gpu.fd.vkCmdBindDescriptorSets(r->ctx.cmd, point, r->layout, 0, 2, sets, 0, NULL);
}

// Gathers the cloths' state (solver buffers or staging), their rest shapes and descriptor sets.
static wfResult PrepareFrame(wfRenderer* r, RdClothDraw* draws, int count, VkDeviceSize* staged)
{
	RdContext* ctx = &r->ctx;
	*staged = 0;
	for (int i = 0; i < count; ++i) {
		wfResult res = PrepareCloth(r, &draws[i], staged);
		if (res != WF_OK)
			return res;
	}
	for (int i = 0; i < count; ++i)
		draws[i].cache = &r->caches[draws[i].cacheIndex];
	if (*staged > 0 && !EnsureFrameBuffers(r, *staged))
		return rdRendererFailVulkan(r);
	for (int i = 0; i < count; ++i) {
		if (!draws[i].zeroCopy) {
			wfResult res = StageCloth(r, &draws[i]);
			if (res != WF_OK)
				return res;
		}
	}
	if (count == 0)
		return WF_OK;
	if (!rdEnsureClothPool(r, (uint32_t)count))
		return rdRendererFailVulkan(r);
	for (int i = 0; i < count; ++i) {
		VkDescriptorSetAllocateInfo info = {
			.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
			.descriptorPool = r->clothPool,
			.descriptorSetCount = 1,
			.pSetLayouts = &r->clothSetLayout,
		};
		VkResult vr = ctx->gpu.fd.vkAllocateDescriptorSets(ctx->gpu.device, &info, &draws[i].set);
		if (vr != VK_SUCCESS)
			return rdRendererFail(r, WF_ERROR_OUT_OF_MEMORY, "vkAllocateDescriptorSets: %s", wfVkResultName(vr));
		VkDeviceSize bytes = (VkDeviceSize)draws[i].info.particleCount * RD_VERTEX_STRIDE;
		rdWriteClothSet(r, draws[i].set, draws[i].state, draws[i].position, draws[i].velocity, draws[i].normal,
			draws[i].cache->statics.buffer, draws[i].cache->rest, bytes);
	}
	return WF_OK;
}

// Transfers at the start of the frame: staged state, rest shapes, the casters' box reset.
static void RecordTransfers(wfRenderer* r, const RdClothDraw* draws, int count, VkDeviceSize staged, bool shadows)
{
	RdContext* ctx = &r->ctx;
	VkCommandBuffer cmd = ctx->cmd;
	if (staged > 0) {
		VkBufferCopy copy = {0, 0, staged};
		ctx->gpu.fd.vkCmdCopyBuffer(cmd, r->staging.buffer, r->geometry.buffer, 1, &copy);
	}
	for (int i = 0; i < count; ++i) {
		const RdClothDraw* c = &draws[i];
		if (!c->takeRest)
			continue;
		VkBufferCopy copy = {c->position, c->cache->rest, (VkDeviceSize)c->info.particleCount * RD_VERTEX_STRIDE};
		ctx->gpu.fd.vkCmdCopyBuffer(cmd, c->zeroCopy ? c->state : r->staging.buffer, c->cache->statics.buffer, 1, &copy);
	}
	if (shadows) {
		ctx->gpu.fd.vkCmdFillBuffer(cmd, r->bounds.buffer, 0, 12, 0xffffffffu); // min: the largest ordered value
		ctx->gpu.fd.vkCmdFillBuffer(cmd, r->bounds.buffer, 12, 12, 0u);         // max: the smallest
	}
}

// The key light's projection, fitted to the casters on the GPU: each cloth's box, then the light pass.
static void RecordLightFit(wfRenderer* r, const RdClothDraw* draws, int count, const wfWorldDef* wd, wfVec3 sphereCenter)
{
	RdContext* ctx = &r->ctx;
	VkCommandBuffer cmd = ctx->cmd;
	RdDraw push;
	ctx->gpu.fd.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r->boundsPipeline);
	for (int i = 0; i < count; ++i) {
		memset(&push, 0, sizeof push);
		int n = draws[i].info.particleCount;
		push.mode[0] = n;
		SetVec4(push.transform, draws[i].offset[0], draws[i].offset[1], draws[i].offset[2], 1.0f);
		BindSets(r, VK_PIPELINE_BIND_POINT_COMPUTE, draws[i].set);
		Push(r, &push);
		uint32_t groups = (uint32_t)((n + RD_BOUNDS_GROUP - 1) / RD_BOUNDS_GROUP);
		ctx->gpu.fd.vkCmdDispatch(cmd, groups < 64 ? groups : 64, 1, 1);
	}
	Barrier(r, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
		VK_ACCESS_SHADER_READ_BIT);
	memset(&push, 0, sizeof push);
	if (wd->sphere.enabled && r->def.showSphere)
		SetVec4(push.transform, sphereCenter.x, sphereCenter.y, sphereCenter.z, wd->sphere.radius);
	push.mode[0] = count;
	ctx->gpu.fd.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r->lightPipeline);
	BindSets(r, VK_PIPELINE_BIND_POINT_COMPUTE, r->dummySet);
	Push(r, &push);
	ctx->gpu.fd.vkCmdDispatch(cmd, 1, 1, 1);
	Barrier(r, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
		VK_PIPELINE_STAGE_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, VK_ACCESS_UNIFORM_READ_BIT);
}

// Depth only, from the key light: the sphere and the cloths.
static void RecordShadowPass(wfRenderer* r, const RdClothDraw* draws, int count, const wfWorldDef* wd, wfVec3 sphereCenter)
{
	RdContext* ctx = &r->ctx;
	VkCommandBuffer cmd = ctx->cmd;
	VkClearValue clear;
	memset(&clear, 0, sizeof clear);
	clear.depthStencil.depth = 1.0f;
	VkRenderPassBeginInfo begin = {
		.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
		.renderPass = r->shadowPass,
		.framebuffer = r->shadowFramebuffer,
		.renderArea = {{0, 0}, {r->shadowSize, r->shadowSize}},
		.clearValueCount = 1,
		.pClearValues = &clear,
	};
	ctx->gpu.fd.vkCmdBeginRenderPass(cmd, &begin, VK_SUBPASS_CONTENTS_INLINE);
	SetViewport(r, r->shadowSize, r->shadowSize);
	ctx->gpu.fd.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->shadowPipeline);
	BindSets(r, VK_PIPELINE_BIND_POINT_GRAPHICS, r->dummySet);
	RdDraw caster;
	memset(&caster, 0, sizeof caster);
	if (wd->sphere.enabled && r->def.showSphere) {
		SetVec4(caster.transform, sphereCenter.x, sphereCenter.y, sphereCenter.z, wd->sphere.radius);
		BindStreams(r, r->staticGeometry.buffer, &r->sphere, true);
		Push(r, &caster);
		ctx->gpu.fd.vkCmdDrawIndexed(cmd, r->sphere.indexCount, 1, 0, 0, 0);
	}
	for (int i = 0; i < count; ++i) {
		SetVec4(caster.transform, draws[i].offset[0], draws[i].offset[1], draws[i].offset[2], 1.0f);
		BindCloth(r, &draws[i], true, false);
		Push(r, &caster);
		ctx->gpu.fd.vkCmdDrawIndexed(cmd, draws[i].cache->streams.indexCount, 1, 0, 0, 0);
	}
	ctx->gpu.fd.vkCmdEndRenderPass(cmd);
}

static void RecordColliders(wfRenderer* r, const wfWorld* world)
{
	RdContext* ctx = &r->ctx;
	VkCommandBuffer cmd = ctx->cmd;
	wfColliderId ids[64];
	const int count = wfWorld_GetColliders(world, ids, 64);
	if (count <= 0)
		return;
	ctx->gpu.fd.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->solidPipeline);
	VkPipeline bound = r->solidPipeline;
	RdDraw draw;
	for (int i = 0; i < count && i < 64; ++i) {
		const wfColliderDef d = wfCollider_GetDef(ids[i]);
		wfVec3 c;
		wfQuat q;
		if (wfCollider_GetTransform(ids[i], &c, &q) != WF_OK)
			continue;
		if (d.type == WF_COLLIDER_MESH) {
			// Its posed vertices and smooth normals (StageColliderMesh); an open mesh two-sided.
			const RdMeshCache* mesh = StagedMesh(r, ids[i]);
			if (mesh == NULL)
				continue;
			const VkPipeline want = mesh->closed ? r->solidPipeline : r->litPipeline;
			if (want != bound)
				ctx->gpu.fd.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, bound = want);
			memset(&draw, 0, sizeof draw);
			SetVec4(draw.transform, 0.0f, 0.0f, 0.0f, 1.0f);
			SetVec4(draw.color, 0.13f, 0.16f, 0.22f, 1.0f);
			SetVec4(draw.material, 0.45f, 48.0f, 0.0f, 0.0f);
			draw.mode[0] = RD_MODE_SOLID;
			BindStreams(r, mesh->buffer.buffer, &mesh->streams, false);
			Push(r, &draw);
			ctx->gpu.fd.vkCmdDrawIndexed(cmd, mesh->streams.indexCount, 1, 0, 0, 0);
			continue;
		}
		if (bound != r->solidPipeline)
			ctx->gpu.fd.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, bound = r->solidPipeline);
		const float x = q.x, y = q.y, z = q.z, w = q.w;
		const float ax[3] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w)};
		const float ay[3] = {2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w)};
		const float az[3] = {2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)};
		memset(&draw, 0, sizeof draw);
		SetVec4(draw.color, 0.13f, 0.16f, 0.22f, 1.0f);
		SetVec4(draw.material, 0.45f, 48.0f, 0.0f, 0.0f);
		draw.mode[0] = RD_MODE_SOLID;
		if (d.type == WF_COLLIDER_SPHERE || d.type == WF_COLLIDER_CAPSULE) {
			BindStreams(r, r->staticGeometry.buffer, &r->sphere, false);
			const float L = d.type == WF_COLLIDER_CAPSULE ? d.halfLength : 0.0f;
			const float r1 = d.type == WF_COLLIDER_CAPSULE ? d.radius1 : d.radius;
			const float small = fminf(d.radius, r1);
			const int steps = L > 0.0f ? (int)fminf(64.0f, ceilf(2.0f * L / (0.15f * small))) : 0;
			for (int k = 0; k <= steps; ++k) {
				const float t = steps > 0 ? (float)k / (float)steps : 0.0f, u = -L + 2.0f * L * t;
				SetVec4(draw.transform, c.x + ax[0] * u, c.y + ax[1] * u, c.z + ax[2] * u, d.radius + (r1 - d.radius) * t);
				Push(r, &draw);
				ctx->gpu.fd.vkCmdDrawIndexed(cmd, r->sphere.indexCount, 1, 0, 0, 0);
			}
			continue;
		}
		const wfVec3 e = d.type == WF_COLLIDER_BOX ? d.halfExtents : (wfVec3){2.0f, 0.002f, 2.0f};
		// A plane's slab lies just below the plane, on the solid side.
		const float drop = d.type == WF_COLLIDER_PLANE ? e.y : 0.0f;
		SetVec4(draw.transform, c.x - ay[0] * drop, c.y - ay[1] * drop, c.z - ay[2] * drop, 1.0f);
		SetVec4(draw.axisX, ax[0] * e.x, ax[1] * e.x, ax[2] * e.x, 0.0f);
		SetVec4(draw.axisY, ay[0] * e.y, ay[1] * e.y, ay[2] * e.y, 0.0f);
		SetVec4(draw.axisZ, az[0] * e.z, az[1] * e.z, az[2] * e.z, 0.0f);
		draw.mode[3] = RD_SHAPE_AXES;
		BindStreams(r, r->staticGeometry.buffer, &r->box, false);
		Push(r, &draw);
		ctx->gpu.fd.vkCmdDrawIndexed(cmd, r->box.indexCount, 1, 0, 0, 0);
	}
}

// The image: floor, sphere, cloths, wireframe, pin markers.
static void RecordMainPass(wfRenderer* r, const wfWorld* world, const RdClothDraw* draws, int count, const wfWorldDef* wd,
	wfVec3 sphereCenter, const wfCamera* camera)
{
	RdContext* ctx = &r->ctx;
	VkCommandBuffer cmd = ctx->cmd;
	VkClearValue clears[3];
	memset(clears, 0, sizeof clears);
	for (int i = 0; i < 3; ++i)
		clears[0].color.float32[i] = rdSrgbToLinear(r->def.background[i]);
	clears[0].color.float32[3] = 1.0f;
	clears[1].depthStencil.depth = 1.0f;
	VkRenderPassBeginInfo begin = {
		.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
		.renderPass = r->pass,
		.framebuffer = r->framebuffer,
		.renderArea = {{0, 0}, {(uint32_t)r->def.width, (uint32_t)r->def.height}},
		.clearValueCount = r->samples != VK_SAMPLE_COUNT_1_BIT ? 3 : 2,
		.pClearValues = clears,
	};
	ctx->gpu.fd.vkCmdBeginRenderPass(cmd, &begin, VK_SUBPASS_CONTENTS_INLINE);
	SetViewport(r, (uint32_t)r->def.width, (uint32_t)r->def.height);
	BindSets(r, VK_PIPELINE_BIND_POINT_GRAPHICS, r->dummySet);
	RdDraw draw;

	// Floor: a large quad under the camera's target; the grid and the fade come from the shader.
	if (wd->floor.enabled && r->def.showFloor) {
		memset(&draw, 0, sizeof draw);
		float extent = fmaxf(40.0f, camera->distance * 10.0f);
		SetVec4(draw.transform, camera->target.x, wd->floor.height, camera->target.z, extent);
		SetVec4(draw.color, 0.62f, 0.62f, 0.60f, 1.0f);
		SetVec4(draw.material, 0.08f, 24.0f, 0.0f, 0.0f);
		draw.mode[0] = RD_MODE_FLOOR;
		ctx->gpu.fd.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->litPipeline);
		BindStreams(r, r->staticGeometry.buffer, &r->floor, false);
		Push(r, &draw);
		ctx->gpu.fd.vkCmdDrawIndexed(cmd, r->floor.indexCount, 1, 0, 0, 0);
	}

	// Sphere at its collision radius and current centre.
	if (wd->sphere.enabled && r->def.showSphere) {
		memset(&draw, 0, sizeof draw);
		SetVec4(draw.transform, sphereCenter.x, sphereCenter.y, sphereCenter.z, wd->sphere.radius);
		SetVec4(draw.color, 0.13f, 0.16f, 0.22f, 1.0f);
		SetVec4(draw.material, 0.45f, 48.0f, 0.0f, 0.0f);
		draw.mode[0] = RD_MODE_SOLID;
		ctx->gpu.fd.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->solidPipeline);
		BindStreams(r, r->staticGeometry.buffer, &r->sphere, false);
		Push(r, &draw);
		ctx->gpu.fd.vkCmdDrawIndexed(cmd, r->sphere.indexCount, 1, 0, 0, 0);
	}

	// Colliders (wfCreateCollider) where they are now, in the sphere's colour: spheres and capsules
	// as spheres (a capsule as a row of them along its axis, radius tapering), boxes and planes as
	// the cube placed by their axes (a plane as a 4 m square slab along it), meshes as their
	// triangles in this frame's shape and pose.
	if (r->def.showSphere)
		RecordColliders(r, world);

	// Cloths, double-sided; the colour-mode scalar comes from the cloth's set. A cloth with UV seams
	// draws through its own vertices (the seam pipeline).
	const bool surfaces = r->def.view != WF_VIEW_NODES, nodes = r->def.view != WF_VIEW_CLOTH;
	VkPipeline bound = VK_NULL_HANDLE;
	for (int i = 0; i < count && surfaces; ++i) {
		const RdClothCache* cache = draws[i].cache;
		const VkPipeline want = cache->seamVertices > 0 ? r->seamPipeline : r->litPipeline;
		if (want != bound)
			ctx->gpu.fd.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, bound = want);
		memset(&draw, 0, sizeof draw);
		SetVec4(draw.transform, draws[i].offset[0], draws[i].offset[1], draws[i].offset[2], 1.0f);
		SetVec4(draw.color, 1.0f, 1.0f, 1.0f, 1.0f);
		SetVec4(draw.material, 0.12f, 32.0f, 1e-5f, 0.0f);
		draw.mode[0] = r->def.colorMode == WF_COLOR_SPEED ? RD_MODE_SPEED
			: r->def.colorMode == WF_COLOR_STRAIN         ? RD_MODE_STRAIN
														  : RD_MODE_TEXTURE;
		draw.mode[1] = draws[i].info.cols;
		draw.mode[2] = draws[i].info.rows;
		BindSets(r, VK_PIPELINE_BIND_POINT_GRAPHICS, draws[i].set);
		if (cache->seamVertices > 0) {
			VkBuffer buffers[2] = {cache->statics.buffer, cache->statics.buffer};
			VkDeviceSize offsets[2] = {cache->seamParticle, cache->seamUV};
			ctx->gpu.fd.vkCmdBindVertexBuffers(cmd, 0, 2, buffers, offsets);
			ctx->gpu.fd.vkCmdBindIndexBuffer(cmd, cache->statics.buffer, cache->seamIndex, VK_INDEX_TYPE_UINT32);
		} else {
			BindCloth(r, &draws[i], false, false);
		}
		Push(r, &draw);
		ctx->gpu.fd.vkCmdDrawIndexed(cmd, cache->streams.indexCount, 1, 0, 0, 0);
	}

	// Wireframe overlay: the structural edges.
	if (r->def.wireframe && count > 0) {
		ctx->gpu.fd.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->linePipeline);
		for (int i = 0; i < count; ++i) {
			memset(&draw, 0, sizeof draw);
			SetVec4(draw.transform, draws[i].offset[0], draws[i].offset[1], draws[i].offset[2], 1.0f);
			SetVec4(draw.color, 0.05f, 0.05f, 0.06f, 1.0f);
			SetVec4(draw.material, 0.0f, 0.0f, 3e-5f, 0.0f);
			BindCloth(r, &draws[i], true, true);
			Push(r, &draw);
			ctx->gpu.fd.vkCmdDrawIndexed(cmd, draws[i].cache->streams.lineIndexCount, 1, 0, 0, 0);
		}
	}

	// The nodes view: per cloth, every constraint a line coloured by its strain (nodes_line.vert, one
	// instance per edge of the cache's list), then one small sphere per particle coloured by speed (instances of a coarse
	// sphere placed by lit.vert), all straight from the cloth's set (the solver's buffers when shared).
	if (nodes && count > 0) {
		for (int i = 0; i < count; ++i) {
			const int cols = draws[i].info.cols, rows = draws[i].info.rows;
			BindSets(r, VK_PIPELINE_BIND_POINT_GRAPHICS, draws[i].set);
			memset(&draw, 0, sizeof draw);
			SetVec4(draw.transform, draws[i].offset[0], draws[i].offset[1], draws[i].offset[2], 1.0f);
			SetVec4(draw.material, 0.0f, 0.0f, 2e-5f, 0.0f);
			draw.mode[1] = cols;
			draw.mode[2] = rows;
			ctx->gpu.fd.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->nodeLinePipeline);
			Push(r, &draw);
			VkDeviceSize edges = draws[i].cache->streams.lineIndex;
			ctx->gpu.fd.vkCmdBindVertexBuffers(cmd, 0, 1, &draws[i].cache->statics.buffer, &edges);
			if (draws[i].cache->nodeEdges > 0)
				ctx->gpu.fd.vkCmdDraw(cmd, 2, draws[i].cache->nodeEdges, 0, 0);
			SetVec4(draw.color, 1.0f, 1.0f, 1.0f, 1.0f);
			SetVec4(draw.material, 0.3f, 32.0f, 3e-5f, 0.0f);
			draw.mode[0] = RD_MODE_SPEED;
			draw.mode[3] = RD_NODES_PARTICLES;
			ctx->gpu.fd.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->litPipeline);
			BindStreams(r, r->staticGeometry.buffer, &r->node, false);
			Push(r, &draw);
			ctx->gpu.fd.vkCmdDrawIndexed(cmd, r->node.indexCount, (uint32_t)draws[i].info.particleCount, 0, 0, 0);
		}
	}

	// Pinned particles: small red spheres placed and sized by the vertex shader from the cloth's state.
	if (r->def.showPins && count > 0) {
		ctx->gpu.fd.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->solidPipeline);
		BindStreams(r, r->staticGeometry.buffer, &r->marker, false);
		int markers = 0;
		for (int i = 0; i < count && markers < RD_MAX_PIN_MARKERS; ++i) {
			BindSets(r, VK_PIPELINE_BIND_POINT_GRAPHICS, draws[i].set);
			for (int p = 0; p < draws[i].info.particleCount && markers < RD_MAX_PIN_MARKERS; ++p) {
				if (!wfCloth_IsPinned(draws[i].id, p))
					continue;
				memset(&draw, 0, sizeof draw);
				SetVec4(draw.transform, draws[i].offset[0], draws[i].offset[1], draws[i].offset[2], 0.0f);
				SetVec4(draw.color, 0.85f, 0.06f, 0.04f, 1.0f);
				SetVec4(draw.material, 0.5f, 32.0f, 0.0f, 0.0f);
				draw.mode[0] = RD_MODE_SOLID;
				draw.mode[1] = draws[i].info.cols;
				draw.mode[2] = draws[i].info.rows;
				draw.mode[3] = p + 1;
				Push(r, &draw);
				ctx->gpu.fd.vkCmdDrawIndexed(cmd, r->marker.indexCount, 1, 0, 0, 0);
				markers++;
			}
		}
	}
	ctx->gpu.fd.vkCmdEndRenderPass(cmd);
}

wfResult wfRenderer_DrawWorld(wfRenderer* r, wfWorld* world, const wfClothId* cloths, int count, const wfCamera* camera)
{
	if (r == NULL || world == NULL || camera == NULL || count < 0 || (count > 0 && cloths == NULL))
		return r != NULL ? rdRendererFail(r, WF_ERROR_INVALID_ARGUMENT, "DrawWorld: NULL world, camera or cloth list")
						 : WF_ERROR_INVALID_ARGUMENT;
	if (!(camera->distance > 0.0f && isfinite(camera->distance)) || !(camera->fov > 0.0f && camera->fov < 180.0f))
		return rdRendererFail(r, WF_ERROR_INVALID_ARGUMENT, "camera: distance must be finite and > 0 and fov in (0, 180), got %g and %g",
			(double)camera->distance, (double)camera->fov);
	if (!isfinite(camera->target.x) || !isfinite(camera->target.y) || !isfinite(camera->target.z) || !isfinite(camera->azimuth) ||
		!isfinite(camera->elevation))
		return rdRendererFail(r, WF_ERROR_INVALID_ARGUMENT, "camera: target, azimuth and elevation must be finite");
	RdContext* ctx = &r->ctx;
	wfWorldDef wd = wfWorld_GetDef(world);
	// The ground is drawn as the floor would be (shadows too), and only when the world has none.
	if (!wd.floor.enabled && r->def.showGround) {
		wd.floor.enabled = true;
		wd.floor.height = r->def.groundHeight;
	}
	wfVec3 sphereCenter = wfWorld_GetSphereCenter(world);
	r->frameIndex++;

	RdClothDraw stackDraws[8];
	RdClothDraw* draws = count <= 8 ? stackDraws : malloc(sizeof *draws * (size_t)count);
	if (draws == NULL)
		return rdRendererFail(r, WF_ERROR_OUT_OF_MEMORY, "out of memory");
	memset(draws, 0, sizeof *draws * (size_t)(count > 0 ? count : 1));
	for (int i = 0; i < count; ++i)
		draws[i].id = cloths[i];
	VkDeviceSize staged = 0;
	wfResult res = PrepareFrame(r, draws, count, &staged);
	if (res == WF_OK && r->def.showSphere)
		res = PrepareColliderMeshes(r, world);
	// Shadows fall on the floor only: with no floor there is no shadow pass.
	bool shadows = wd.floor.enabled && r->def.showFloor && (count > 0 || (wd.sphere.enabled && r->def.showSphere));
	if (res == WF_OK)
		FillScene(r, &wd, camera);
	if (res == WF_OK && !rdBeginCommands(ctx))
		res = rdRendererFailVulkan(r);
	if (res != WF_OK) {
		if (draws != stackDraws)
			free(draws);
		return res;
	}

	// The solver's writes (earlier submissions to the same queue) before anything here reads them.
	int zeroCopy = 0;
	for (int i = 0; i < count; ++i)
		zeroCopy += draws[i].zeroCopy;
	if (zeroCopy > 0)
		Barrier(r, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
			VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
			VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_VERTEX_INPUT_BIT |
				VK_PIPELINE_STAGE_VERTEX_SHADER_BIT,
			VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT);
	RecordTransfers(r, draws, count, staged, shadows);
	Barrier(r, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
		VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_VERTEX_INPUT_BIT | VK_PIPELINE_STAGE_VERTEX_SHADER_BIT,
		VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT | VK_ACCESS_INDEX_READ_BIT);
	if (shadows) {
		RecordLightFit(r, draws, count, &wd, sphereCenter);
		RecordShadowPass(r, draws, count, &wd, sphereCenter);
	}
	RecordMainPass(r, world, draws, count, &wd, sphereCenter, camera);

	// Resolved image -> read-back buffer, then visible to the host (unless the frame stays on the
	// device: the render pass leaves it in TRANSFER_SRC_OPTIMAL for the caller's copy).
	if (r->def.hostImage) {
		VkBufferImageCopy copy = {
			.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
			.imageExtent = {(uint32_t)r->def.width, (uint32_t)r->def.height, 1},
		};
		ctx->gpu.fd.vkCmdCopyImageToBuffer(ctx->cmd, r->resolve.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, r->readback.buffer, 1, &copy);
		Barrier(r, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
	}
	if (draws != stackDraws)
		free(draws);
	if (!rdSubmitAndWait(ctx))
		return rdRendererFailVulkan(r);
	r->uploadBytes = (int64_t)staged;
	r->zeroCopyCloths = zeroCopy;
	PruneCaches(r);
	r->hasFrame = true;
	return WF_OK;
}

wfResult wfRenderer_ReadPixels(wfRenderer* r, uint8_t* rgba, int size)
{
	if (r == NULL)
		return WF_ERROR_INVALID_ARGUMENT;
	int64_t need = (int64_t)r->def.width * r->def.height * 4;
	if (rgba == NULL || size < need)
		return rdRendererFail(r, WF_ERROR_INVALID_ARGUMENT, "ReadPixels: the buffer holds %d bytes, the image needs %lld", size,
			(long long)need);
	if (!r->hasFrame)
		return rdRendererFail(r, WF_ERROR_INVALID_ARGUMENT, "ReadPixels: nothing has been drawn yet");
	if (!r->def.hostImage)
		return rdRendererFail(r, WF_ERROR_INVALID_ARGUMENT,
			"ReadPixels: the renderer keeps its frames on the device "
			"(wfRendererDef.hostImage is false; use wfRenderer_GetVulkanImage)");
	memcpy(rgba, r->readback.map, (size_t)need);
	return WF_OK;
}
