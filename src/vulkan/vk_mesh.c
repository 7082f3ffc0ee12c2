// Vulkan backend, mesh colliders (WF_COLLIDER_MESH): the host places each body for each cloth and
// substep as the CPU does (wfMeshBodyPlace, in double) and writes the placements into one buffer
// per world before the submit; collide_mesh.comp does the contact and the attachments from them
// (vk_record.c records its dispatches). Layout of the buffer (kernel_abi.h, wfGpuMeshPlace):
//   placements: one per cloth (slot order), substep and mesh body (colliderFrame order)
//   words: per body its triangles, neighbours, leaf order and owners; per cloth its attachments;
//          per placement the vertices at the substep's start and end, normals and the hierarchy
//          four-wide (PutWide).
#include "vk_internal.h"

#include <stdio.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <string.h>

static VkDeviceSize AlignUp(VkDeviceSize v, VkDeviceSize a) { return (v + a - 1) / a * a; }

// The cloth's place among the world's live cloths (slot order): its placements' block.
static uint32_t ClothOrdinal(const wfWorld* world, const wfCloth* c)
{
	uint32_t k = 0;
	for (int i = 0; i < world->clothCapacity && &world->cloths[i] != c; ++i)
		k += world->cloths[i].generation != 0;
	return k;
}

uint32_t wfVkMeshPlace(const wfVkContext* ctx, const wfWorld* world, const wfCloth* c, int s, int b)
{
	const uint32_t substeps = (uint32_t)world->def.step.substeps;
	return (ClothOrdinal(world, c) * substeps + (uint32_t)s) * (uint32_t)ctx->mesh.bodies + (uint32_t)b;
}

// FNV-1a over what the recorded frame's mesh dispatches depend on.
static uint64_t Mix(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; ++i)
		h = (h ^ ((v >> (8 * i)) & 0xffu)) * 1099511628211ull;
	return h;
}

static void DestroyMeshBuffers(wfVkContext* ctx)
{
	wfVkMesh* m = &ctx->mesh;
	wfVkBufferDestroy(&ctx->gpu, &m->buffer);
	wfVkBufferDestroy(&ctx->gpu, &m->scratch);
	m->placeCapacity = m->wordCapacity = 0;
	m->scratchSlots = 0;
}

void wfVkDestroyMesh(wfVkContext* ctx)
{
	DestroyMeshBuffers(ctx);
	wfFree(ctx->mesh.wideTodo);
	wfFree(ctx->mesh.wideSlot);
	wfFree(ctx->mesh.wideEntry);
	ctx->mesh.wideTodo = ctx->mesh.wideSlot = NULL;
	ctx->mesh.wideEntry = NULL;
	ctx->mesh.wideCapacity = 0;
	if (ctx->mesh.pool != VK_NULL_HANDLE)
		ctx->gpu.fd.vkDestroyDescriptorPool(ctx->gpu.device, ctx->mesh.pool, NULL);
	ctx->mesh.pool = VK_NULL_HANDLE;
	ctx->mesh.set = VK_NULL_HANDLE;
}

// Room for this frame's placements, words and scratch: the buffers made again (larger) when they
// do not hold them, the set pointed at them, and the frame recorded again.
static wfResult Reserve(wfVkContext* ctx, VkDeviceSize placeBytes, VkDeviceSize wordBytes, int slots)
{
	wfVkMesh* m = &ctx->mesh;
	const wfVkDeviceFuncs* f = &ctx->gpu.fd;
	if (placeBytes <= m->placeCapacity && wordBytes <= m->wordCapacity && slots <= m->scratchSlots && m->set != VK_NULL_HANDLE)
		return WF_OK;
	const VkDeviceSize range = ctx->gpu.properties.limits.maxStorageBufferRange;
	if (wordBytes > range || placeBytes > range)
		return wfSetError(ctx->world, WF_ERROR_OUT_OF_MEMORY,
			"vulkan: mesh colliders need %.1f MB of placements a frame (cloths x substeps x mesh bodies), more than this device's "
			"storage buffer range (%.1f MB): fewer substeps or a coarser mesh",
			(double)wordBytes / 1e6, (double)range / 1e6);
	wfVkWaitIdle(ctx);
	DestroyMeshBuffers(ctx);
	VkDeviceSize align = ctx->gpu.properties.limits.minStorageBufferOffsetAlignment;
	align = align < 256 ? 256 : align;
	// A quarter more than asked, so that a growing body or an added cloth does not make them again.
	m->placeCapacity = AlignUp(placeBytes + placeBytes / 4 + 16, align);
	m->wordCapacity = AlignUp(wordBytes + wordBytes / 4 + 16, 16);
	if (m->wordCapacity > range)
		m->wordCapacity = wordBytes;
	VkResult vr = ctx->injectOutOfMemory ? VK_ERROR_OUT_OF_DEVICE_MEMORY
										 : wfVkBufferCreate(&ctx->gpu, m->placeCapacity + m->wordCapacity,
											   VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, kHostCoherent, kDeviceLocal, &m->buffer);
	if (vr == VK_SUCCESS) {
		wfVkGpuSetName(&ctx->gpu, VK_OBJECT_TYPE_BUFFER, (uint64_t)m->buffer.buffer, "weft mesh placements");
		m->scratchSlots = slots > 1 ? slots : 1;
		vr = wfVkBufferCreate(&ctx->gpu, (VkDeviceSize)m->scratchSlots * sizeof(wfVec4), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, kDeviceLocal,
			0, &m->scratch);
	}
	if (vr != VK_SUCCESS) {
		DestroyMeshBuffers(ctx);
		return wfVkFail(ctx, vr, "vkAllocateMemory (mesh colliders' placements)", __FILE__, __LINE__);
	}
	wfVkGpuSetName(&ctx->gpu, VK_OBJECT_TYPE_BUFFER, (uint64_t)m->scratch.buffer, "weft mesh scratch");
	if (m->set == VK_NULL_HANDLE) {
		VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, WF_GPU_MESH_BIND_COUNT};
		VkDescriptorPoolCreateInfo poolInfo = {
			.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
			.maxSets = 1,
			.poolSizeCount = 1,
			.pPoolSizes = &size,
		};
		WF_VK_CHECK(ctx, f->vkCreateDescriptorPool(ctx->gpu.device, &poolInfo, NULL, &m->pool));
		VkDescriptorSetAllocateInfo alloc = {
			.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
			.descriptorPool = m->pool,
			.descriptorSetCount = 1,
			.pSetLayouts = &ctx->meshSetLayout,
		};
		WF_VK_CHECK(ctx, f->vkAllocateDescriptorSets(ctx->gpu.device, &alloc, &m->set));
	}
	const VkDescriptorBufferInfo infos[WF_GPU_MESH_BIND_COUNT] = {
		[WF_GPU_MESH_BIND_PLACE] = {m->buffer.buffer, 0, m->placeCapacity},
		[WF_GPU_MESH_BIND_WORDS] = {m->buffer.buffer, m->placeCapacity, m->wordCapacity},
		[WF_GPU_MESH_BIND_FLOATS] = {m->buffer.buffer, m->placeCapacity, m->wordCapacity},
		[WF_GPU_MESH_BIND_SCRATCH] = {m->scratch.buffer, 0, VK_WHOLE_SIZE},
	};
	VkWriteDescriptorSet writes[WF_GPU_MESH_BIND_COUNT];
	for (uint32_t b = 0; b < WF_GPU_MESH_BIND_COUNT; ++b) {
		writes[b] = (VkWriteDescriptorSet){
			.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
			.dstSet = m->set,
			.dstBinding = b,
			.descriptorCount = 1,
			.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
			.pBufferInfo = &infos[b],
		};
	}
	f->vkUpdateDescriptorSets(ctx->gpu.device, WF_GPU_MESH_BIND_COUNT, writes, 0, NULL);
	ctx->recorded = false;
	return WF_OK;
}

// The body's hierarchy four-wide (kernel_abi.h WF_GPU_MESH_WIDE_WORDS), as topology: for each wide
// node's four slots the binary node there (-1: none) and the slot's entry (its wide node and 0, a
// leaf's first triangle and count, or WF_GPU_MESH_NO_SLOT and 0); returns the wide nodes (at most
// nodeCount). Wide node 0 holds the root's grandchildren (the root itself when it is a leaf); an
// inner node in a slot becomes a wide node of its own, numbered as it is met (todo: the binary
// node of each). A node's box holds its children's (the refit takes their union), so a slot that
// meets the walk's box has parents that meet it: the kernel meets the binary walk's leaves in its
// order.
static int WideTopology(const wfMeshBody* body, int* todo, int* slot, uint32_t* entry)
{
	const wfBvhNode* nodes = body->nodes;
	int made = 1;
	todo[0] = 0;
	for (int done = 0; done < made; ++done) {
		const int n = todo[done];
		int* q = slot + 4 * done;
		int count = 0;
		if (nodes[n].count > 0) {
			q[count++] = n;
		} else {
			const int child[2] = {n + 1, nodes[n].first};
			for (int c = 0; c < 2; ++c) {
				if (nodes[child[c]].count > 0) {
					q[count++] = child[c];
				} else {
					q[count++] = child[c] + 1;
					q[count++] = nodes[child[c]].first;
				}
			}
		}
		for (int k = 0; k < 4; ++k) {
			uint32_t* e = entry + 2 * (4 * done + k);
			if (k >= count) {
				q[k] = -1;
				e[0] = WF_GPU_MESH_NO_SLOT;
				e[1] = 0u;
				continue;
			}
			const wfBvhNode* m = &nodes[q[k]];
			e[0] = m->count > 0 ? (uint32_t)m->first : (uint32_t)made;
			e[1] = m->count > 0 ? (uint32_t)m->count : 0u;
			if (m->count == 0)
				todo[made++] = q[k];
		}
	}
	return made;
}

// The wide nodes' slots of the body as placed into `words`: each slot's box, its convex edges' box
// (closed bodies) and its entry; on the placement's threads, as wfMeshBodyPlace.
static void PutWide(const wfMeshBody* body, const int* slot, const uint32_t* entry, int wide, uint32_t* words, int threads)
{
	const bool team = threads != 1 && body->triangleCount >= WF_MESH_PLACE_PARALLEL_MIN;
#ifdef _OPENMP
	threads = threads > 0 ? threads : omp_get_num_procs();
#endif
	(void)team;
#pragma omp parallel for schedule(static) num_threads(threads) if (team)
	for (int q = 0; q < 4 * wide; ++q) {
		float box[12] = {0.0f};
		if (slot[q] >= 0) {
			memcpy(box, body->nodes[slot[q]].lo, 3 * sizeof(float));
			memcpy(box + 3, body->nodes[slot[q]].hi, 3 * sizeof(float));
			if (body->closed)
				memcpy(box + 6, body->edgeBox + 6 * slot[q], 6 * sizeof(float));
		}
		uint32_t* w = words + (size_t)q * WF_GPU_MESH_SLOT_WORDS;
		memcpy(w, box, sizeof box);
		w[12] = entry[2 * q];
		w[13] = entry[2 * q + 1];
	}
}

wfResult wfVkMeshPrepare(wfVkContext* ctx, wfWorld* world)
{
	wfVkMesh* m = &ctx->mesh;
	m->bodies = 0;
	for (int k = 0; k < world->colliderFrameCount; ++k) {
		if (world->colliderFrame[k].body != NULL)
			m->body[m->bodies++] = k;
	}
	uint64_t sig = Mix(14695981039346656037ull, (uint64_t)m->bodies);
	if (m->bodies == 0) {
		m->signature = sig;
		m->places = m->words = 0;
		return WF_OK;
	}
	// Mesh worlds step every cloth per range: a cloth in an arena (added before the first mesh
	// collider) moves to a buffer of its own, its state through the host.
	for (int i = 0; i < world->clothCapacity; ++i) {
		wfCloth* c = &world->cloths[i];
		if (c->generation == 0 || ((const wfVkCloth*)c->backendData)->arena < 0)
			continue;
		wfResult r = wfSyncHost(world, c);
		if (r != WF_OK)
			return r;
		wfVkRemoveCloth(world, c);
		if ((r = wfVkAddCloth(world, c)) != WF_OK)
			return r;
	}
	uint64_t words = 0, places = 0;
	int slots = 0; // the scratch: four vectors a constraint (EDGE), three a triangle (CORNERS)
	// The hierarchies four-wide: room for as many wide nodes as nodes, then each body's topology.
	int nodes = 0;
	for (int b = 0; b < m->bodies; ++b)
		nodes += world->colliderFrame[m->body[b]].body->nodeCount;
	if (nodes > m->wideCapacity) {
		wfFree(m->wideTodo);
		wfFree(m->wideSlot);
		wfFree(m->wideEntry);
		m->wideTodo = (int*)wfAlloc((size_t)nodes * sizeof(int));
		m->wideSlot = (int*)wfAlloc(4 * (size_t)nodes * sizeof(int));
		m->wideEntry = (uint32_t*)wfAlloc(8 * (size_t)nodes * sizeof(uint32_t));
		m->wideCapacity = m->wideTodo && m->wideSlot && m->wideEntry ? nodes : 0;
		if (m->wideCapacity == 0)
			return wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "vulkan: out of memory for the mesh colliders' hierarchies (%d nodes)", nodes);
	}
	for (int b = 0, at = 0; b < m->bodies; ++b) {
		const wfMeshBody* body = world->colliderFrame[m->body[b]].body;
		m->wideAt[b] = at;
		m->wide[b] = WideTopology(body, m->wideTodo, m->wideSlot + 4 * at, m->wideEntry + 8 * at);
		at += m->wide[b];
		words += 7 * (uint64_t)body->triangleCount + (uint64_t)body->vertexCount;
		sig = Mix(Mix(Mix(sig, (uint64_t)m->body[b]), (uint64_t)body->closed), (uint64_t)body->triangleCount);
	}
	const uint64_t substeps = (uint64_t)world->def.step.substeps;
	for (int i = 0; i < world->clothCapacity; ++i) {
		const wfCloth* c = &world->cloths[i];
		if (c->generation == 0)
			continue;
		const wfMeshBody* held = wfAttachedBody(world, c);
		int heldBy = -1;
		for (int b = 0; b < m->bodies && held != NULL; ++b)
			heldBy = world->colliderFrame[m->body[b]].body == held ? b : heldBy;
		sig = Mix(Mix(sig, (uint64_t)heldBy), heldBy >= 0 ? (uint64_t)c->attachCount : 0u);
		words += WF_GPU_MESH_ATTACH_WORDS * (uint64_t)c->attachCount;
		slots = 3 * c->model.triangleCount > slots ? 3 * c->model.triangleCount : slots;
		slots = 4 * c->model.constraintCount > slots ? 4 * c->model.constraintCount : slots;
		for (int b = 0; b < m->bodies; ++b) {
			const wfMeshBody* body = world->colliderFrame[m->body[b]].body;
			words += substeps * (9 * (uint64_t)body->vertexCount + WF_GPU_MESH_WIDE_WORDS * (uint64_t)m->wide[b]);
			places += substeps;
		}
	}
	m->signature = sig;
	m->places = places;
	m->words = words;
	return Reserve(ctx, (VkDeviceSize)places * sizeof(wfGpuMeshPlace), (VkDeviceSize)words * 4, slots);
}

// n words of `from` at word `*at` of the words; returns where they went.
static uint32_t Put(uint32_t* words, uint64_t* at, const void* from, size_t n)
{
	const uint32_t where = (uint32_t)*at;
	memcpy(words + *at, from, n * 4);
	*at += n;
	return where;
}

wfResult wfVkMeshWrite(wfVkContext* ctx, wfWorld* world, const wfFrameParams* p)
{
	const wfVkMesh* m = &ctx->mesh;
	if (m->bodies == 0)
		return WF_OK;
	wfGpuMeshPlace* places = (wfGpuMeshPlace*)m->buffer.map;
	uint32_t* words = (uint32_t*)((char*)m->buffer.map + m->placeCapacity);
	uint64_t at = 0;
	// The bodies' fixed arrays.
	uint32_t tri[WF_MAX_COLLIDERS], neighbour[WF_MAX_COLLIDERS], order[WF_MAX_COLLIDERS], owner[WF_MAX_COLLIDERS];
	for (int b = 0; b < m->bodies; ++b) {
		const wfMeshBody* body = world->colliderFrame[m->body[b]].body;
		tri[b] = Put(words, &at, body->tri, 3 * (size_t)body->triangleCount);
		neighbour[b] = Put(words, &at, body->neighbour, 3 * (size_t)body->triangleCount);
		order[b] = Put(words, &at, body->order, (size_t)body->triangleCount);
		owner[b] = Put(words, &at, body->owner, (size_t)body->vertexCount);
	}
	const float t = p->contact.thickness, invH = 1.0f / p->h;
	uint32_t place = 0;
	for (int i = 0; i < world->clothCapacity; ++i) {
		const wfCloth* c = &world->cloths[i];
		if (c->generation == 0)
			continue;
		// Its attachments, in particle order (wfClothIsAttached's binary search).
		const uint32_t attach = (uint32_t)at;
		for (int k = 0; k < c->attachCount; ++k) {
			const wfAttachment* a = &c->attach[k];
			const float f[5] = {a->u, a->v, a->offset.x, a->offset.y, a->offset.z};
			uint32_t rec[WF_GPU_MESH_ATTACH_WORDS] = {(uint32_t)a->particle, (uint32_t)a->triangle};
			memcpy(rec + 2, f, sizeof f);
			Put(words, &at, rec, WF_GPU_MESH_ATTACH_WORDS);
		}
		const wfMeshBody* held = wfAttachedBody(world, c);
		const double origin[3] = {c->origin[0] + c->local.shift.x, c->origin[1] + c->local.shift.y, c->origin[2] + c->local.shift.z};
		for (int s = 0; s < p->substeps; ++s) {
			for (int b = 0; b < m->bodies; ++b) {
				// cpu_stages.c PlaceBody, with its margin and the CPU's constants.
				wfMeshBody* body = world->colliderFrame[m->body[b]].body;
				wfMeshBodyPlace(body, origin, (double)s / p->substeps, (double)(s + 1) / p->substeps,
					t + (body->closed ? 1e-4f * body->size + t : 0.0f), t, world->def.threads);
				const size_t nv = 3 * (size_t)body->vertexCount;
				wfGpuMeshPlace* out = &places[place++];
				out->v0 = Put(words, &at, body->v0, nv);
				out->v1 = Put(words, &at, body->v1, nv);
				out->normal = Put(words, &at, body->normal, nv);
				out->wide = (uint32_t)at;
				PutWide(body, m->wideSlot + 4 * m->wideAt[b], m->wideEntry + 8 * m->wideAt[b], m->wide[b], words + at, world->def.threads);
				at += (uint64_t)m->wide[b] * WF_GPU_MESH_WIDE_WORDS;
				out->tri = tri[b];
				out->neighbour = neighbour[b];
				out->order = order[b];
				out->owner = owner[b];
				out->attach = attach;
				out->attachCount = held == body ? (uint32_t)c->attachCount : 0u;
				out->closed = body->closed ? 1u : 0u;
				out->holds = held == body ? 1u : 0u;
				out->thickness = t;
				out->invH = invH;
				out->behind = body->closed ? t + WF_MESH_BEHIND * body->size : 0.0f;
				out->edgeReach2 = body->edgeReach * body->edgeReach;
				out->cornerReach2 = body->cornerReach * body->cornerReach;
				out->alpha = wfAlphaTilde(c->def.attachCompliance, p->h);
				out->h = p->h;
				out->size = body->size;
				out->pad0 = out->pad1 = out->pad2 = out->pad3 = 0u;
			}
		}
	}
	WF_ASSERT(world, place == m->places && at == m->words);
	return WF_OK;
}
