// Vulkan backend, the frame command buffer: recorded once per structure (solver, substep and
// iteration counts, cloth set) and replayed every step; vk_backend.c describes its layout.
#include "vk_interop.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ------------------------------------------------------------------ the frame command buffer

typedef struct Recorder {
	wfVkContext* ctx;
	VkCommandBuffer cmd;
	const wfVkCloth* cloth;
	VkPipeline bound;
	int set;
	int dispatches;
	bool timing;     // stage timing: a timestamp at every change of stage
	wfStage stage;   // the stage of the work recorded since the last mark
	uint32_t marks;  // stage marks written (queries 2 .. 2 + marks - 1)
	int set1;        // what set 1 holds: SET1_NONE, SET1_CONTACTS (pipelineLayout) or SET1_MESH (meshPipelineLayout)
	bool countsZero; // the contact grid's counts are 0 here (a grid's scan leaves them so; RecordGrid)
	wfResult result; // WF_OK, or the first failure to make a kernel's pipeline (the frame is not used)
} Recorder;

enum { SET1_NONE, SET1_CONTACTS, SET1_MESH };

// Stage timing: the work recorded from here on belongs to `stage`. Where that changes, a
// timestamp closes the previous stage; it lands after the barrier that ends that stage, so it
// waits for nothing the barrier did not already wait for. Groups of one stage share a mark
// (springs substeps, a cloth's normals and the status copies).
static void BeginStage(Recorder* rec, wfStage stage)
{
	if (!rec->timing || rec->stage == stage)
		return;
	wfVkContext* ctx = rec->ctx;
	const uint32_t q = 2 + rec->marks++;
	WF_ASSERT(ctx->world, q < ctx->timestampCapacity);
	ctx->markStage[q] = (uint8_t)rec->stage;
	ctx->gpu.fd.vkCmdWriteTimestamp(rec->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, ctx->timestamps, q);
	rec->stage = stage;
}

// Room for `count` timestamp queries (the frame's two and the stage marks): the pool and its
// host arrays grow by doubling, while nothing in flight uses the pool. False when it cannot (the
// frame is then recorded without stage marks and the stage times stay unknown).
static bool ReserveTimestamps(wfVkContext* ctx, uint64_t count)
{
	if (count <= ctx->timestampCapacity)
		return true;
	if (count > WF_VK_MAX_TIMESTAMPS) {
		wfLog(ctx->world, WF_LOG_WARNING, "vulkan: stage timing needs %llu timestamps a frame (at most %u); stage times unknown",
			(unsigned long long)count, (unsigned)WF_VK_MAX_TIMESTAMPS);
		return false;
	}
	uint32_t capacity = ctx->timestampCapacity > 64 ? ctx->timestampCapacity : 64;
	while (capacity < count)
		capacity *= 2;
	uint8_t* stages = (uint8_t*)malloc(capacity);
	uint64_t* ticks = (uint64_t*)malloc((size_t)capacity * sizeof(uint64_t));
	VkQueryPool pool = VK_NULL_HANDLE;
	VkQueryPoolCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
		.queryType = VK_QUERY_TYPE_TIMESTAMP,
		.queryCount = capacity,
	};
	VkResult vr = stages != NULL && ticks != NULL ? ctx->gpu.fd.vkCreateQueryPool(ctx->gpu.device, &info, NULL, &pool)
												  : VK_ERROR_OUT_OF_HOST_MEMORY;
	if (vr != VK_SUCCESS) {
		free(stages);
		free(ticks);
		wfLog(ctx->world, WF_LOG_WARNING, "vulkan: no pool of %u timestamps (%s); stage times unknown", capacity, wfVkResultName(vr));
		return false;
	}
	ctx->gpu.fd.vkDestroyQueryPool(ctx->gpu.device, ctx->timestamps, NULL);
	free(ctx->markStage);
	free(ctx->ticks);
	ctx->timestamps = pool;
	ctx->timestampCapacity = capacity;
	ctx->markStage = stages;
	ctx->ticks = ticks;
	return true;
}

static void UseSet(Recorder* rec, int variant)
{
	if (rec->set == variant)
		return;
	rec->ctx->gpu.fd.vkCmdBindDescriptorSets(rec->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, rec->ctx->pipelineLayout, 0, 1,
		&rec->cloth->sets[variant], 0, NULL);
	rec->set = variant;
	// Set 0 bound with pipelineLayout disturbs a mesh set bound with meshPipelineLayout (their set 1 differ).
	if (rec->set1 == SET1_MESH)
		rec->set1 = SET1_NONE;
}

// Set 1 as the next dispatch's layout has it: the contact arrays (pipelineLayout), or the mesh
// placements (meshPipelineLayout). Set 0 and the push constants are compatible across the two.
static void UseSet1(Recorder* rec, int want)
{
	const wfVkContext* ctx = rec->ctx;
	if (rec->set1 == want || (want == SET1_CONTACTS && ctx->contacts.set == VK_NULL_HANDLE))
		return;
	if (want == SET1_CONTACTS)
		ctx->gpu.fd.vkCmdBindDescriptorSets(rec->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, ctx->pipelineLayout, WF_GPU_SET_CONTACTS, 1,
			&ctx->contacts.set, 0, NULL);
	else
		ctx->gpu.fd.vkCmdBindDescriptorSets(rec->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, ctx->meshPipelineLayout, WF_GPU_SET_MESH, 1,
			&ctx->mesh.set, 0, NULL);
	rec->set1 = want;
}

// One dispatch of `groups` workgroups with the given push constants; more than 65535 groups spill
// into y.
static void DispatchGroups(Recorder* rec, int pipe, wfGpuPush push, uint32_t groups)
{
	if (groups == 0)
		return;
	const wfVkDeviceFuncs* f = &rec->ctx->gpu.fd;
	VkPipeline p;
	if (rec->result != WF_OK || (rec->result = wfVkPipeline(rec->ctx, pipe, &p)) != WF_OK)
		return;
	const bool mesh = pipe == WF_VK_PIPE_COLLIDE_MESH;
	UseSet1(rec, mesh ? SET1_MESH : SET1_CONTACTS);
	if (rec->bound != p) {
		f->vkCmdBindPipeline(rec->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p);
		rec->bound = p;
	}
	f->vkCmdPushConstants(rec->cmd, mesh ? rec->ctx->meshPipelineLayout : rec->ctx->pipelineLayout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
		sizeof push, &push);
	uint32_t x = groups < 65535u ? groups : 65535u;
	uint32_t y = (groups + x - 1) / x;
	f->vkCmdDispatch(rec->cmd, x, y, 1);
	rec->dispatches++;
}

// One dispatch over elements [first, first + count), WF_GPU_GROUP_SIZE to a workgroup.
static void Dispatch(Recorder* rec, int pipe, uint32_t first, uint32_t count, uint32_t substep, uint32_t flags)
{
	DispatchGroups(rec, pipe, (wfGpuPush){first, count, substep, flags}, (count + WF_GPU_GROUP_SIZE - 1) / WF_GPU_GROUP_SIZE);
}

// Whether a cloth is stepped by the fused kernel: its arrays are in an arena (it fits a workgroup).
// WEFT_VK_FUSED=0 (or a test's switch) sends it down the per-range path, unless its frame buffer
// has no room for the per-range path's substep records (the switch came after it was created).
// A springs or Jacobi cloth alone in its world also takes the per-range path: one workgroup's
// gathers are slower than the whole GPU's dispatches there (H200: compute-cloth 1.55 ms fused
// against 0.43 ms per range, spring-mesh 0.39 against 0.20), while XPBD gains (60x60, 64
// substeps: 1.63 against 2.62 ms) and every solver gains from four cloths on.
bool wfVkUsesFused(const wfVkContext* ctx, const wfCloth* c)
{
	const wfVkCloth* vc = (const wfVkCloth*)c->backendData;
	if (!ctx->fusedAvailable || vc->arena < 0 || ctx->arenas[vc->arena].set == VK_NULL_HANDLE)
		return false;
	if (vc->frameSubsteps < WF_MAX_SUBSTEPS)
		return true; // a batched cloth: the arena's table holds its substeps
	// The continuous self-contact passes run on the per-range path only (SetSelfCollision refuses
	// them where a batched cloth collides with itself).
	const wfSelfCollisionDef* sc = &ctx->world->selfContact;
	if (ctx->fusedDisabled || (sc->enabled && (sc->pointTriangle || sc->edgeEdge)))
		return false;
	const wfWorld* world = ctx->world;
	return ctx->fusedForced || world->def.step.solver == WF_SOLVER_XPBD || wfVkCountArenaCloths(world, c) > 0;
}

int wfVkFusedSizeIndex(int particles)
{
	int k = 0;
	while (k + 1 < WF_GPU_FUSED_GROUP_SIZES && (32 << k) * WF_GPU_FUSED_PER_THREAD < particles)
		++k;
	return k;
}

// Words of the self-collision grid of a fused pipeline (fused_self.glsl): 1 in a world without it.
uint32_t wfVkFusedHashWords(const wfVkContext* ctx, int sizeIndex)
{
	return ctx->world->def.selfCollision.enabled ? WF_GPU_FUSED_HASH_WORDS(32u << sizeIndex) : 1u;
}

// Floats of the shared array of a fused pipeline: 12 per invocation within the device's limit,
// less the kernel's other shared words and the self-collision grid's (0 when they do not fit:
// FitsFused keeps such cloths out).
uint32_t wfVkFusedSharedFloats(const wfVkContext* ctx, int sizeIndex)
{
	const uint32_t floats = WF_GPU_FUSED_PER_THREAD * 3u * (32u << sizeIndex);
	const uint32_t other = WF_GPU_FUSED_SHARED_WORDS + wfVkFusedHashWords(ctx, sizeIndex);
	const uint32_t room = ctx->fusedSharedFloats > other ? ctx->fusedSharedFloats - other : 0u;
	return floats < room ? floats : room;
}

// Batch slots in cloth order for the small cloths of every arena (slot -1: per-range path); the
// workgroup size of an arena's dispatch is the one its largest cloth needs.
static wfResult AssignSlots(wfVkContext* ctx, const wfWorld* world)
{
	for (int i = 0; i < world->clothCapacity; ++i) {
		if (world->cloths[i].generation != 0)
			((wfVkCloth*)world->cloths[i].backendData)->slot = -1;
	}
	for (int ai = 0; ai < ctx->arenaCount; ++ai) {
		wfVkArena* a = &ctx->arenas[ai];
		a->slots = 0;
		a->sizeIndex = 0;
		for (int i = 0; i < world->clothCapacity; ++i) {
			const wfCloth* c = &world->cloths[i];
			wfVkCloth* vc = (wfVkCloth*)c->backendData;
			if (c->generation == 0 || vc->arena != ai || !wfVkUsesFused(ctx, c) || a->slots == 65535)
				continue;
			vc->slot = a->slots++;
			int k = wfVkFusedSizeIndex(c->model.particleCount);
			a->sizeIndex = k > a->sizeIndex ? k : a->sizeIndex;
		}
		wfResult r = a->slots > 0 ? wfVkArenaReserveSlots(ctx, a, (uint32_t)a->slots) : WF_OK;
		if (r != WF_OK)
			return r;
	}
	return WF_OK;
}

// Every small cloth of an arena in ONE dispatch: workgroup g steps the whole frame of the cloth in
// slot g (fused.glsl), including its backup copy and frame-check reset.
static wfResult RecordBatch(Recorder* rec, const wfWorld* world, int ai, int* fused)
{
	wfVkContext* ctx = rec->ctx;
	wfVkArena* a = &ctx->arenas[ai];
	const wfVkDeviceFuncs* f = &ctx->gpu.fd;
	const wfStepDef* step = &world->def.step;
	if (a->slots == 0)
		return WF_OK;
	VkPipeline p;
	wfResult r = wfVkFusedPipeline(ctx, step->solver, a->sizeIndex, &p);
	if (r != WF_OK)
		return r;
	BeginStage(rec, WF_STAGE_FUSED);
	f->vkCmdBindPipeline(rec->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p);
	f->vkCmdBindDescriptorSets(rec->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, ctx->batchPipelineLayout, 0, 1, &a->set, 0, NULL);
	rec->bound = VK_NULL_HANDLE;
	rec->set = -1;
	wfGpuPush push = {(uint32_t)step->iterations, (uint32_t)step->substeps, 0u, 0u};
	f->vkCmdPushConstants(rec->cmd, ctx->batchPipelineLayout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
	f->vkCmdDispatch(rec->cmd, (uint32_t)a->slots, 1, 1);
	rec->dispatches++;
	*fused += a->slots;
	return WF_OK;
}

// Positions (and velocities) from buffer B back to A, between barriers.
static void CopyBackToA(Recorder* rec, uint32_t n, bool velocities)
{
	const wfVkContext* ctx = rec->ctx;
	const wfVkCloth* vc = rec->cloth;
	const VkDeviceSize bytes = (VkDeviceSize)n * sizeof(wfVec4);
	wfVkBarrier(ctx, rec->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
		VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
	wfVkCopy(ctx, rec->cmd, vc->device.buffer, vc->regionOffset[WF_VK_REGION_POS_B], vc->device.buffer,
		vc->regionOffset[WF_VK_REGION_POS_A], bytes);
	if (velocities)
		wfVkCopy(ctx, rec->cmd, vc->device.buffer, vc->regionOffset[WF_VK_REGION_VEL_B], vc->device.buffer,
			vc->regionOffset[WF_VK_REGION_VEL_A], bytes);
	wfVkBarrier(ctx, rec->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
		VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

// The tether pass after a substep's solve (predict.comp, WF_GPU_PUSH_TETHER), where the cloth has them.
static void RecordTethers(Recorder* rec, const wfCloth* c, uint32_t n, uint32_t sub, uint32_t flags)
{
	if (c->model.tethers == NULL)
		return;
	Dispatch(rec, WF_VK_PIPE_PREDICT, 0, n, sub, WF_GPU_PUSH_TETHER | flags);
	wfVkComputeBarrier(rec->ctx, rec->cmd);
}

// The contact grid's counts cleared where no grid of this frame has left them 0 (the first grid of
// a frame: a grid's scan leaves them so; all of them, as later grids may be larger).
static void ClearCounts(Recorder* rec)
{
	if (rec->countsZero)
		return;
	Dispatch(rec, WF_VK_PIPE_CONTACT_GRID, 0, rec->ctx->contacts.cells + 1u, 0u, WF_GPU_CONTACT_CLEAR);
	wfVkComputeBarrier(rec->ctx, rec->cmd);
	rec->countsZero = true;
}

// Whether the tethers' dispatch also takes the self-collision grid's keys (one dispatch fewer a
// substep): the cloth has tethers and self-collision, and nothing moves its particles between the
// two (XPBD and Jacobi meet the mesh bodies in between with the continuous passes on).
static bool KeysWithTethers(const wfWorld* world, const wfCloth* c)
{
	return c->model.tethers != NULL && world->def.selfCollision.enabled &&
		(world->def.step.solver == WF_SOLVER_SPRINGS || !wfMeshesBeforeSelf(world));
}

// The tethers, with the grid's keys where KeysWithTethers (the counts cleared first if need be).
static void RecordTethersKeys(Recorder* rec, const wfWorld* world, const wfCloth* c, uint32_t n, uint32_t sub, uint32_t flags)
{
	if (!KeysWithTethers(world, c)) {
		RecordTethers(rec, c, n, sub, flags);
		return;
	}
	ClearCounts(rec);
	const uint32_t mask = (uint32_t)c->state.hashSize - 1u;
	Dispatch(rec, WF_VK_PIPE_TETHER_KEYS, 0, n, mask, WF_GPU_PUSH_TETHER | flags);
	wfVkComputeBarrier(rec->ctx, rec->cmd);
}

// The recorder steps cloth c from here on: its descriptor sets are bound at their first use.
static void UseCloth(Recorder* rec, const wfCloth* c)
{
	if (rec->cloth == (const wfVkCloth*)c->backendData)
		return;
	rec->cloth = (const wfVkCloth*)c->backendData;
	rec->set = -1;
}

// The exclusive prefix sum of cells[at, at + length) (contact_scan.comp): each block scanned and
// its sum written after the array, those sums scanned the same way (recursively) unless one block
// holds them, then added back (where one block holds them, each block of the down stage sums those
// before it). 129 blocks for a 256 x 256 cloth's 131 073 counts: two dispatches.
static void RecordScan(Recorder* rec, uint32_t at, uint32_t length, uint32_t counts)
{
	const uint32_t groups = (length + WF_GPU_SCAN_BLOCK - 1) / WF_GPU_SCAN_BLOCK;
	DispatchGroups(rec, WF_VK_PIPE_CONTACT_SCAN, (wfGpuPush){at, length, at + length, WF_GPU_CONTACT_SCAN_UP | counts}, groups);
	wfVkComputeBarrier(rec->ctx, rec->cmd);
	if (groups <= 1)
		return;
	// Block sums that one block holds are summed by each block of the down stage itself.
	const uint32_t raw = groups <= WF_GPU_SCAN_BLOCK ? WF_GPU_CONTACT_SUMS_RAW : 0u;
	if (raw == 0u)
		RecordScan(rec, at + length, groups, 0u);
	DispatchGroups(rec, WF_VK_PIPE_CONTACT_SCAN, (wfGpuPush){at, length, at + length, WF_GPU_CONTACT_SCAN_DOWN | raw}, groups);
	wfVkComputeBarrier(rec->ctx, rec->cmd);
}

// The hash grid of `count` particles over `cells` cells (cpu_self.c SortByCell): keys and ranks
// (atomicAdd into the counts; `keyed`: the tethers' dispatch took them), the prefix sum of the
// counts into cell starts (which leaves the counts 0), the scatter, each cell's list sorted.
// `world`: the particles are the world's arrays (WF_GPU_CONTACT_WORLD), else the bound cloth's
// positions.
static void RecordGrid(Recorder* rec, uint32_t count, uint32_t cells, uint32_t world, bool keyed)
{
	const wfVkContext* ctx = rec->ctx;
	const uint32_t mask = cells - 1u;
	if (!keyed) {
		ClearCounts(rec);
		Dispatch(rec, WF_VK_PIPE_CONTACT_GRID, 0, count, mask, WF_GPU_CONTACT_KEYS | world);
		wfVkComputeBarrier(ctx, rec->cmd);
	}
	RecordScan(rec, 0, cells + 1u, WF_GPU_CONTACT_COUNTS);
	Dispatch(rec, WF_VK_PIPE_CONTACT_GRID, 0, count, mask, WF_GPU_CONTACT_SCATTER);
	wfVkComputeBarrier(ctx, rec->cmd);
	Dispatch(rec, WF_VK_PIPE_CONTACT_GRID, 0, cells, mask, WF_GPU_CONTACT_SORT);
	wfVkComputeBarrier(ctx, rec->cmd);
}

// Self-collision of the bound cloth after its solve (wfCpuSelfCollide): its hash (the CPU's size,
// wfClothState.hashSize), the gather into delta, and for springs the move (XPBD and Jacobi move
// the particles in finish_self.comp). Friction from the substep's motion, except for
// springs, whose prev holds forces. With pointTriangle or edgeEdge (XPBD and Jacobi, as on the
// CPU: they read the substep's start in prev) the particles move, then the point-triangle pass
// writes delta, and with both it moves them too, then the edge-edge pass writes delta;
// finish_self.comp adds the last one. A torn cloth's sources go into RANK first (spent once the
// hash is sorted).
static void RecordSelfCollision(Recorder* rec, const wfWorld* world, const wfCloth* c, bool apply)
{
	const wfSelfCollisionDef* sc = &world->def.selfCollision;
	if (!sc->enabled)
		return;
	const wfVkContext* ctx = rec->ctx;
	const uint32_t n = (uint32_t)c->model.particleCount, cells = (uint32_t)c->state.hashSize;
	const bool springs = world->def.step.solver == WF_SOLVER_SPRINGS;
	const bool friction = sc->friction > 0.0f && !springs;
	const bool pointTriangle = sc->pointTriangle && !springs && c->model.triangleCount > 0;
	const bool edgeEdge = sc->edgeEdge && !springs && c->model.triangleCount > 0;
	// XPBD, Jacobi with WF_VELOCITY_MOVES: the pushes into the velocity too.
	const uint32_t moves = !springs && world->def.velocity == WF_VELOCITY_MOVES ? WF_GPU_CONTACT_MOVES : 0u;
	BeginStage(rec, WF_STAGE_SOLVE);
	RecordGrid(rec, n, cells, 0u, KeysWithTethers(world, c));
	Dispatch(rec, WF_VK_PIPE_CONTACT_GATHER, 0, n, cells - 1u, friction ? WF_GPU_CONTACT_FRICTION : 0u);
	wfVkComputeBarrier(ctx, rec->cmd);
	if (apply || pointTriangle || edgeEdge) {
		Dispatch(rec, WF_VK_PIPE_CONTACT_GRID, 0, n, cells - 1u, WF_GPU_CONTACT_APPLY | moves);
		wfVkComputeBarrier(ctx, rec->cmd);
	}
	const uint32_t sources = c->source != NULL ? WF_GPU_CONTACT_SOURCE : 0u;
	if ((pointTriangle || edgeEdge) && sources != 0u) {
		const wfVkCloth* vc = (const wfVkCloth*)c->backendData;
		wfVkBarrier(ctx, rec->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
			VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
		wfVkCopy(ctx, rec->cmd, vc->device.buffer, vc->regionOffset[WF_VK_REGION_SOURCE], ctx->contacts.device.buffer,
			ctx->contacts.offset[WF_GPU_CONTACT_BIND_RANK], (VkDeviceSize)n * sizeof(int));
		wfVkBarrier(ctx, rec->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
			VK_ACCESS_SHADER_READ_BIT);
	}
	if (pointTriangle) {
		Dispatch(rec, WF_VK_PIPE_CONTACT_TRIANGLE, 0, n, cells - 1u, sources);
		wfVkComputeBarrier(ctx, rec->cmd);
	}
	if (pointTriangle && edgeEdge) {
		Dispatch(rec, WF_VK_PIPE_CONTACT_GRID, 0, n, cells - 1u, WF_GPU_CONTACT_APPLY | moves);
		wfVkComputeBarrier(ctx, rec->cmd);
	}
	if (edgeEdge) {
		Dispatch(rec, WF_VK_PIPE_CONTACT_EDGE, 0, n, cells - 1u, sources);
		wfVkComputeBarrier(ctx, rec->cmd);
	}
}

// The bound cloth's contact with each mesh body after its substep s (wfCpuCollideMeshes): the
// particles' motion, then for a closed body its cloth edges and the corners (each edge's or
// triangle's pushes into scratch, then each particle's applied). `flags`: WF_GPU_MESH_START_ALT where the substep's
// start is in POS_ALT (springs).
static void RecordMeshes(Recorder* rec, const wfWorld* world, const wfCloth* c, int s, uint32_t flags)
{
	const wfVkContext* ctx = rec->ctx;
	const uint32_t n = (uint32_t)c->model.particleCount;
	for (int b = 0; b < ctx->mesh.bodies; ++b) {
		const wfMeshBody* body = world->colliderFrame[ctx->mesh.body[b]].body;
		const uint32_t place = wfVkMeshPlace(ctx, world, c, s, b);
		Dispatch(rec, WF_VK_PIPE_COLLIDE_MESH, 0, n, place, WF_GPU_MESH_POINT | flags);
		wfVkComputeBarrier(ctx, rec->cmd);
		if (!body->closed)
			continue;
		const wfClothModel* m = &c->model;
		Dispatch(rec, WF_VK_PIPE_COLLIDE_MESH, 0, (uint32_t)m->constraintCount, place, WF_GPU_MESH_EDGE | flags);
		wfVkComputeBarrier(ctx, rec->cmd);
		Dispatch(rec, WF_VK_PIPE_COLLIDE_MESH, 0, n, place, WF_GPU_MESH_EDGE_APPLY | flags);
		wfVkComputeBarrier(ctx, rec->cmd);
		Dispatch(rec, WF_VK_PIPE_COLLIDE_MESH, 0, (uint32_t)m->triangleCount, place, WF_GPU_MESH_CORNERS | flags);
		wfVkComputeBarrier(ctx, rec->cmd);
		Dispatch(rec, WF_VK_PIPE_COLLIDE_MESH, 0, n, place, WF_GPU_MESH_APPLY | flags);
		wfVkComputeBarrier(ctx, rec->cmd);
	}
}

// The bound cloth's attached particles onto their body's points after its solve (wfCpuAttach),
// with WF_GPU_MESH_VELOCITIES for springs.
static void RecordAttach(Recorder* rec, const wfWorld* world, const wfCloth* c, int s, uint32_t flags)
{
	const wfVkContext* ctx = rec->ctx;
	const wfMeshBody* held = wfAttachedBody(world, c);
	for (int b = 0; held != NULL && b < ctx->mesh.bodies; ++b) {
		if (world->colliderFrame[ctx->mesh.body[b]].body != held)
			continue;
		Dispatch(rec, WF_VK_PIPE_COLLIDE_MESH, 0, (uint32_t)c->attachCount, wfVkMeshPlace(ctx, world, c, s, b), WF_GPU_MESH_ATTACH | flags);
		wfVkComputeBarrier(ctx, rec->cmd);
	}
}

// The descriptor set variant holding a cloth's state after substep s: springs ping-pong (substep
// s writes the pair s + 1 reads), the others end every substep in A.
static int StateSet(const wfWorld* world, int s) { return world->def.step.solver == WF_SOLVER_SPRINGS ? (s + 1) & 1 : 0; }

// The frame start of a cloth: the re-centring (wfClothLocal.shift, 0 on most frames), after the
// backup copy: part of the frame's preparation.
static void RecordClothStart(Recorder* rec, const wfCloth* c)
{
	UseCloth(rec, c);
	UseSet(rec, 0);
	BeginStage(rec, WF_STAGE_PREPARE);
	Dispatch(rec, WF_VK_PIPE_PREDICT, 0, (uint32_t)c->model.particleCount, 0, WF_GPU_PUSH_SHIFT);
	wfVkComputeBarrier(rec->ctx, rec->cmd);
}

// One XPBD iteration: a dispatch per solve range (wfClothModel), or in the tile order a dispatch of
// xpbd_tiled.comp per tile colour (world->tileSubsteps = 1: a dispatch per range instead, the same
// bits; for tests).
static void RecordXpbdIteration(Recorder* rec, const wfWorld* world, const wfClothModel* m, uint32_t sub, uint32_t flags)
{
	const wfVkContext* ctx = rec->ctx;
	if (m->tileSize == 0 || world->tileSubsteps == 1 || m->colorCount > WF_GPU_XPBD_TILE_COLORS) {
		for (int r = 0; r < m->solveRangeCount; ++r) {
			const uint32_t first = (uint32_t)m->solveRange[2 * r], end = (uint32_t)m->solveRange[2 * r + 1];
			Dispatch(rec, WF_VK_PIPE_XPBD_SOLVE, first, end - first, sub, flags);
			wfVkComputeBarrier(ctx, rec->cmd);
		}
		return;
	}
	_Static_assert(WF_TILE_COLORS == 4, "xpbd_tiled.comp takes the tile colour in two bits");
	for (int tc = 0; tc < WF_TILE_COLORS; ++tc) {
		const int from = m->tileColorFirst[tc], to = m->tileColorFirst[tc + 1];
		if (to > from) {
			const uint32_t packed = flags | (uint32_t)tc << 8 | (uint32_t)m->colorCount << 16;
			DispatchGroups(rec, WF_VK_PIPE_XPBD_TILED, (wfGpuPush){(uint32_t)from, (uint32_t)m->tileCount + 1u, sub, packed},
				(uint32_t)(to - from));
			wfVkComputeBarrier(ctx, rec->cmd);
		}
	}
}

// Substep s of a cloth.
static void RecordClothSubstep(Recorder* rec, const wfWorld* world, const wfCloth* c, int s)
{
	const wfVkContext* ctx = rec->ctx;
	const wfStepDef* step = &world->def.step;
	const uint32_t n = (uint32_t)c->model.particleCount;
	// A small cloth whose particles have at most WF_GPU_GATHER_WIDE neighbours gathers them in one batch.
	const bool wide = n <= WF_GPU_GATHER_WIDE_MAX_PARTICLES && c->model.maxDegree <= WF_GPU_GATHER_WIDE;
	const bool aero = world->def.aero.drag != 0.0f || world->def.aero.lift != 0.0f;
	const int finish = world->def.selfCollision.enabled ? WF_VK_PIPE_FINISH_SELF : WF_VK_PIPE_FINISH;
	const uint32_t sub = (uint32_t)s;
	UseCloth(rec, c);
	UseSet(rec, step->solver == WF_SOLVER_SPRINGS ? (s & 1) : 0);
	if (aero) {
		// Drag and lift from the substep-start state into prev, read by predict or springs.
		BeginStage(rec, WF_STAGE_PREDICT);
		Dispatch(rec, WF_VK_PIPE_PREDICT, 0, n, sub, WF_GPU_PUSH_AERO);
		wfVkComputeBarrier(ctx, rec->cmd);
	}
	switch (step->solver) {
	case WF_SOLVER_XPBD:
		// Gauss-Seidel across colours: each colour range sees the corrections of the previous one.
		BeginStage(rec, WF_STAGE_PREDICT);
		Dispatch(rec, WF_VK_PIPE_PREDICT, 0, n, sub, WF_GPU_PUSH_DAMPED);
		wfVkComputeBarrier(ctx, rec->cmd);
		BeginStage(rec, WF_STAGE_SOLVE);
		for (int it = 0; it < step->iterations; ++it)
			RecordXpbdIteration(rec, world, &c->model, sub, it == 0 ? WF_GPU_PUSH_FIRST_ITERATION : 0u);
		RecordAttach(rec, world, c, s, 0); // before the tethers: attached particles anchor some
		RecordTethersKeys(rec, world, c, n, sub, 0);
		if (wfMeshesBeforeSelf(world)) // the continuous passes see the bodies' pushes
			RecordMeshes(rec, world, c, s, world->def.velocity == WF_VELOCITY_MOVES ? WF_GPU_MESH_MOVES : 0u);
		RecordSelfCollision(rec, world, c, false);
		BeginStage(rec, WF_STAGE_FINISH);
		Dispatch(rec, finish, 0, n, sub, 0);
		wfVkComputeBarrier(ctx, rec->cmd);
		RecordMeshes(rec, world, c, s, 0);
		break;
	case WF_SOLVER_JACOBI:
		BeginStage(rec, WF_STAGE_PREDICT);
		Dispatch(rec, WF_VK_PIPE_PREDICT, 0, n, sub, 0);
		wfVkComputeBarrier(ctx, rec->cmd);
		BeginStage(rec, WF_STAGE_SOLVE);
		// Sweeps alternate A -> B and B -> A; an even count lands the result in A, an odd one is
		// copied back (as the CPU's copy of pos2 into pos).
		for (int it = 0; it < step->iterations; ++it) {
			UseSet(rec, it & 1);
			Dispatch(rec, wide ? WF_VK_PIPE_JACOBI_SWEEP_WIDE : WF_VK_PIPE_JACOBI_SWEEP, 0, n, sub, 0);
			wfVkComputeBarrier(ctx, rec->cmd);
		}
		if (step->iterations & 1)
			CopyBackToA(rec, n, world->def.velocity == WF_VELOCITY_MOVES); // the sweeps ping-pong the velocities too
		UseSet(rec, 0);
		RecordAttach(rec, world, c, s, 0); // before the tethers: attached particles anchor some
		RecordTethersKeys(rec, world, c, n, sub, 0);
		if (wfMeshesBeforeSelf(world)) // the continuous passes see the bodies' pushes
			RecordMeshes(rec, world, c, s, world->def.velocity == WF_VELOCITY_MOVES ? WF_GPU_MESH_MOVES : 0u);
		RecordSelfCollision(rec, world, c, false);
		BeginStage(rec, WF_STAGE_FINISH);
		Dispatch(rec, finish, 0, n, sub, 0);
		wfVkComputeBarrier(ctx, rec->cmd);
		RecordMeshes(rec, world, c, s, 0);
		break;
	case WF_SOLVER_SPRINGS:
		// Substep s reads the pair written by substep s - 1. One kernel does the forces, the
		// integration and the collisions: all of it counts as SOLVE.
		BeginStage(rec, WF_STAGE_SOLVE);
		Dispatch(rec, wide ? WF_VK_PIPE_SPRINGS_WIDE : WF_VK_PIPE_SPRINGS, 0, n, sub, 0);
		wfVkComputeBarrier(ctx, rec->cmd);
		UseSet(rec, (s + 1) & 1);                              // the pair just written
		RecordMeshes(rec, world, c, s, WF_GPU_MESH_START_ALT); // the substep's start: the other pair
		RecordAttach(rec, world, c, s, WF_GPU_MESH_VELOCITIES);
		RecordTethersKeys(rec, world, c, n, sub, WF_GPU_PUSH_TETHER_VEL);
		RecordSelfCollision(rec, world, c, true);
		break;
	}
}

// Whether nothing of cloth c's substeps needs the whole cloth between its stages (drag and lift,
// tethers, self-collision, mesh colliders), so that tiles can step it, and
// whether it is small enough for them to win. Not on a CPU device (lavapipe) unless asked for
// (tileSubsteps > 1): there a dispatch costs little and the tiles' repeated halo work is paid
// in full (lavapipe, spring-mesh's document test: 3.5 s per stage, 23 s in tiles).
static bool TilesAllowed(const wfWorld* world, const wfCloth* c)
{
	const bool aero = world->def.aero.drag != 0.0f || world->def.aero.lift != 0.0f;
	const bool device = world->tileSubsteps > 1 || (world->tileSubsteps == 0 && !world->cpuDevice);
	return device && !aero && !world->def.selfCollision.enabled && c->model.tethers == NULL && world->meshColliderCount == 0 &&
		c->model.particleCount <= WF_GPU_TILE_MAX_PARTICLES;
}

// How many springs substeps one tiled dispatch may take for cloth c (springs_tiled.comp), or 1 (a
// dispatch per substep): a grid of at most WF_GPU_TILE_MAX_PARTICLES whose springs join neighbours
// one step apart (a torn cloth is no longer a grid: wfVkCloth.reach), and TilesAllowed. The
// counts are odd, so each dispatch swaps the pair as that many substeps do.
static int SpringsTileSubsteps(const wfWorld* world, const wfCloth* c)
{
	if (world->def.step.solver != WF_SOLVER_SPRINGS || !TilesAllowed(world, c) || c->model.maxDegree > WF_GPU_GATHER_WIDE ||
		((const wfVkCloth*)c->backendData)->reach > 1)
		return 1;
	int most = world->tileSubsteps > 0 ? world->tileSubsteps : WF_GPU_TILE_HALO;
	most = most < WF_GPU_TILE_HALO ? most : WF_GPU_TILE_HALO;
	return (most & 1) ? most : most - 1; // the largest odd count allowed
}

// Every substep of a springs cloth in tiles, up to `most` (odd) substeps per dispatch: odd counts,
// so that after each dispatch the state is in the buffers substep by substep would leave it in.
static void RecordSpringsTiled(Recorder* rec, const wfWorld* world, const wfCloth* c, int most)
{
	const int substeps = world->def.step.substeps;
	const uint32_t tilesX = (uint32_t)(c->model.cols + WF_GPU_TILE - 1) / WF_GPU_TILE;
	const uint32_t tilesY = (uint32_t)(c->model.rows + WF_GPU_TILE - 1) / WF_GPU_TILE;
	UseCloth(rec, c);
	BeginStage(rec, WF_STAGE_SOLVE);
	for (int s = 0; s < substeps;) {
		const int left = substeps - s;
		const int count = left >= most ? most : (left & 1) ? left : left - 1;
		UseSet(rec, s & 1);
		DispatchGroups(rec, WF_VK_PIPE_SPRINGS_TILED, (wfGpuPush){tilesX, (uint32_t)count, (uint32_t)s, 0}, tilesX * tilesY);
		wfVkComputeBarrier(rec->ctx, rec->cmd);
		s += count;
	}
}

// The most Jacobi substeps one tiled dispatch may take for cloth c (jacobi_tiled.comp), or 0:
// a grid of at most WF_GPU_TILE_JACOBI_MAX_PARTICLES whose particles have at most
// WF_GPU_TILE_JACOBI_DEGREE constraints, all within the halo's
// reach for a whole substep's sweeps, with substeps enough for an even number of dispatches of
// one or more (that leaves the state in A, as the frame end expects), and TilesAllowed.
static int JacobiTileSubsteps(const wfWorld* world, const wfCloth* c)
{
	const wfStepDef* step = &world->def.step;
	const int reach = ((const wfVkCloth*)c->backendData)->reach;
	if (step->solver != WF_SOLVER_JACOBI || !TilesAllowed(world, c) || c->model.particleCount > WF_GPU_TILE_JACOBI_MAX_PARTICLES ||
		c->model.maxDegree > WF_GPU_TILE_JACOBI_DEGREE || reach < 1 || reach > WF_GPU_TILE_JACOBI_HALO || step->substeps < 2)
		return 0;
	int most = WF_GPU_TILE_JACOBI_HALO / (step->iterations * reach);
	if (world->tileSubsteps > 0 && world->tileSubsteps < most)
		most = world->tileSubsteps;
	if (most < 1)
		return 0;
	const int dispatches = (step->substeps + most - 1) / most;
	return dispatches + (dispatches & 1) <= step->substeps ? most : 0; // each dispatch a substep at least
}

// Every substep of a Jacobi cloth in tiles: an even number of dispatches of at most `most`
// substeps, as even as the count allows.
static void RecordJacobiTiled(Recorder* rec, const wfWorld* world, const wfCloth* c, int most)
{
	const int substeps = world->def.step.substeps;
	int dispatches = (substeps + most - 1) / most;
	dispatches += dispatches & 1;
	const uint32_t tilesX = (uint32_t)(c->model.cols + WF_GPU_TILE - 1) / WF_GPU_TILE;
	const uint32_t tilesY = (uint32_t)(c->model.rows + WF_GPU_TILE - 1) / WF_GPU_TILE;
	const uint32_t reach = (uint32_t)((const wfVkCloth*)c->backendData)->reach;
	UseCloth(rec, c);
	BeginStage(rec, WF_STAGE_SOLVE);
	for (int d = 0, s = 0; d < dispatches; ++d) {
		const int count = substeps / dispatches + (d < substeps % dispatches ? 1 : 0);
		UseSet(rec, d & 1);
		DispatchGroups(rec, WF_VK_PIPE_JACOBI_TILED,
			(wfGpuPush){(uint32_t)world->def.step.iterations, (uint32_t)count, (uint32_t)s, tilesX | reach << 16}, tilesX * tilesY);
		wfVkComputeBarrier(rec->ctx, rec->cmd);
		s += count;
	}
}

// The frame end of a cloth: its state back in A, normals and the frame check.
static void RecordClothEnd(Recorder* rec, const wfWorld* world, const wfCloth* c)
{
	const wfStepDef* step = &world->def.step;
	const uint32_t n = (uint32_t)c->model.particleCount;
	UseCloth(rec, c);
	if (step->solver == WF_SOLVER_SPRINGS && (step->substeps & 1)) {
		// An odd count leaves the state in B: bring it back to A, where frames start and end.
		BeginStage(rec, WF_STAGE_FINISH);
		CopyBackToA(rec, n, true);
	}
	// Normals and the frame check only read the final state: no barrier between them.
	BeginStage(rec, WF_STAGE_NORMALS);
	UseSet(rec, 0);
	Dispatch(rec, WF_VK_PIPE_NORMALS, 0, n, 0, 0);
	// Contacts at the last substep's end; one particle an invocation, several for a large cloth.
	const uint32_t per = (uint32_t)n > WF_GPU_CHECK_SPREAD_ABOVE ? WF_GPU_CHECK_PER_THREAD_LARGE : 1u;
	Dispatch(rec, WF_VK_PIPE_CHECK, 0, ((uint32_t)n + per - 1) / per, (uint32_t)(step->substeps - 1), 0);
}

// Every cloth's contact_grid pass with `flags` (the world arrays' export or the move back), each at
// its base in the world's arrays (the cloths before it in slot order); returns the particle total.
static uint32_t EachClothContacts(Recorder* rec, const wfWorld* world, int s, uint32_t mask, uint32_t flags)
{
	uint32_t base = 0;
	for (int i = 0; i < world->clothCapacity; ++i) {
		const wfCloth* c = &world->cloths[i];
		if (c->generation == 0)
			continue;
		UseCloth(rec, c);
		UseSet(rec, StateSet(world, s));
		Dispatch(rec, WF_VK_PIPE_CONTACT_GRID, base, (uint32_t)c->model.particleCount, mask, flags);
		base += (uint32_t)c->model.particleCount;
	}
	return base;
}

// Cloth against cloth after every cloth's substep s (wfCpuClothContacts): each cloth's particles
// copied into the world's arrays at its base (in the first cloth's frame, with their motion), one
// hash grid over all of them, the gather (pairs of different cloths), then each cloth moved, its
// velocities with its positions.
static void RecordClothContacts(Recorder* rec, const wfWorld* world, int s)
{
	const wfVkContext* ctx = rec->ctx;
	const wfSelfCollisionDef* sc = &world->def.selfCollision;
	const uint32_t cells = ctx->contacts.worldHash, mask = cells - 1u;
	const bool friction = sc->friction > 0.0f && world->def.step.solver != WF_SOLVER_SPRINGS; // springs keep forces in prev
	BeginStage(rec, WF_STAGE_SOLVE);
	const uint32_t base = EachClothContacts(rec, world, s, mask, WF_GPU_CONTACT_EXPORT);
	wfVkComputeBarrier(ctx, rec->cmd);
	RecordGrid(rec, base, cells, WF_GPU_CONTACT_WORLD, false);
	Dispatch(rec, WF_VK_PIPE_CONTACT_GATHER, 0, base, mask, WF_GPU_CONTACT_WORLD | (friction ? WF_GPU_CONTACT_FRICTION : 0u));
	wfVkComputeBarrier(ctx, rec->cmd);
	EachClothContacts(rec, world, s, mask, WF_GPU_CONTACT_APPLY_VEL);
	wfVkComputeBarrier(ctx, rec->cmd);
}

// The per-range cloths of the frame. Each steps its whole frame in turn; with cloth against cloth
// they go in lockstep instead (every cloth's substep s, then the contacts between them, then
// s + 1), as the CPU's StepTogether.
static void RecordPerRange(Recorder* rec, const wfWorld* world)
{
	const wfVkContext* ctx = rec->ctx;
	const int substeps = world->def.step.substeps;
	if (world->def.selfCollision.betweenCloths) {
		for (int i = 0; i < world->clothCapacity; ++i) {
			if (world->cloths[i].generation != 0)
				RecordClothStart(rec, &world->cloths[i]);
		}
		for (int s = 0; s < substeps; ++s) {
			for (int i = 0; i < world->clothCapacity; ++i) {
				if (world->cloths[i].generation != 0)
					RecordClothSubstep(rec, world, &world->cloths[i], s);
			}
			RecordClothContacts(rec, world, s);
		}
		for (int i = 0; i < world->clothCapacity; ++i) {
			if (world->cloths[i].generation != 0)
				RecordClothEnd(rec, world, &world->cloths[i]);
		}
		wfVkComputeBarrier(ctx, rec->cmd);
		return;
	}
	for (int i = 0; i < world->clothCapacity; ++i) {
		const wfCloth* c = &world->cloths[i];
		if (c->generation == 0 || ((const wfVkCloth*)c->backendData)->slot >= 0)
			continue;
		RecordClothStart(rec, c);
		const int tile = SpringsTileSubsteps(world, c), jacobiTile = JacobiTileSubsteps(world, c);
		if (tile > 1)
			RecordSpringsTiled(rec, world, c, tile);
		else if (jacobiTile > 0)
			RecordJacobiTiled(rec, world, c, jacobiTile);
		for (int s = 0; tile == 1 && jacobiTile == 0 && s < substeps; ++s)
			RecordClothSubstep(rec, world, c, s);
		RecordClothEnd(rec, world, c);
		wfVkComputeBarrier(ctx, rec->cmd);
	}
}

wfResult wfVkRecordFrame(wfVkContext* ctx, const wfWorld* world)
{
	const wfVkDeviceFuncs* f = &ctx->gpu.fd;
	VkCommandBuffer cmd = ctx->frameCmd;
	WF_VK_CHECK(ctx, f->vkResetCommandBuffer(cmd, 0));
	ctx->recorded = false;                             // until the end: a failure below leaves nothing to submit
	ctx->recordedColliders = world->colliderCount > 0; // the pipelines' kColliders
	// Stage timing: a mark per stage change, at most 3 per substep of a large cloth plus its
	// normals (and the springs' copy back), one after the backups and one after the batches. The
	// reset buffer no longer refers to the pool, so it may be replaced by a larger one.
	uint32_t queries = 2;
	bool timing = false;
	if (world->stageTiming && ctx->timestamps != VK_NULL_HANDLE) {
		// Cloth against cloth: one more per substep (the contacts between the cloths' substeps).
		const uint64_t bound = 4 + (uint64_t)world->clothCount * (3 * (uint64_t)world->def.step.substeps + 2) +
			(world->def.selfCollision.betweenCloths ? (uint64_t)world->def.step.substeps : 0);
		timing = ReserveTimestamps(ctx, bound);
		queries = timing ? (uint32_t)bound : 2;
	}
	wfResult r = wfVkBegin(ctx, cmd);
	if (r != WF_OK)
		return r;
	if (ctx->timestamps != VK_NULL_HANDLE) {
		f->vkCmdResetQueryPool(cmd, ctx->timestamps, 0, queries);
		f->vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, ctx->timestamps, 0);
	}
	if ((r = AssignSlots(ctx, world)) != WF_OK) {
		ctx->recorded = false;
		f->vkEndCommandBuffer(cmd); // the buffer is reset before it is recorded again
		return r;
	}
	// Earlier submits (uploads, the previous frame) wrote the state; the backup copy reads it.
	// Batched cloths back themselves up inside the fused kernel.
	wfVkBarrier(ctx, cmd, kComputeTransfer, kAllWrites, kComputeTransfer, kAllReadWrites);
	for (int i = 0; i < world->clothCapacity; ++i) {
		const wfCloth* c = &world->cloths[i];
		if (c->generation == 0 || ((const wfVkCloth*)c->backendData)->slot >= 0)
			continue;
		const wfVkCloth* vc = (const wfVkCloth*)c->backendData;
		const VkDeviceSize bytes = (VkDeviceSize)c->model.particleCount * sizeof(wfVec4);
		wfVkCopy(ctx, cmd, vc->device.buffer, vc->regionOffset[WF_VK_REGION_POS_A], vc->device.buffer,
			vc->regionOffset[WF_VK_REGION_BACKUP_POS], bytes);
		wfVkCopy(ctx, cmd, vc->device.buffer, vc->regionOffset[WF_VK_REGION_VEL_A], vc->device.buffer,
			vc->regionOffset[WF_VK_REGION_BACKUP_VEL], bytes);
		f->vkCmdFillBuffer(cmd, vc->device.buffer, vc->regionOffset[WF_VK_REGION_STATUS], sizeof(wfGpuStatus), 0xffffffffu);
	}
	wfVkBarrier(ctx, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
		VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
	Recorder rec = {ctx, cmd, NULL, VK_NULL_HANDLE, -1, 0, timing, WF_STAGE_PREPARE, 0, SET1_NONE, false, WF_OK};
	// Small cloths first: one dispatch per arena steps all of them.
	int fused = 0;
	for (int ai = 0; ai < ctx->arenaCount; ++ai) {
		if ((r = RecordBatch(&rec, world, ai, &fused)) != WF_OK) {
			ctx->recorded = false;
			f->vkEndCommandBuffer(cmd); // the buffer is reset before it is recorded again
			return r;
		}
	}
	if (fused > 0)
		wfVkComputeBarrier(ctx, cmd);
	// The world's contact arrays stay bound as set 1 (binding set 0 with the same layout keeps it)
	// except around the mesh kernel's dispatches (UseSet1).
	rec.set1 = SET1_NONE;
	UseSet1(&rec, SET1_CONTACTS);
	// Large cloths: one dispatch per stage and colour range.
	RecordPerRange(&rec, world);
	if (rec.result != WF_OK) {
		ctx->recorded = false;
		f->vkEndCommandBuffer(cmd);
		return rec.result;
	}
	ctx->fusedClothsPerFrame = fused;
	// The frame check goes to the staging buffers, read by the host after the fence. (Device
	// atomics stay in device memory: atomics on host memory across the bus are not portable.)
	// Batched cloths: the kernel wrote it into their arena's host-cached statuses.
	wfVkBarrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
		VK_ACCESS_TRANSFER_READ_BIT);
	for (int i = 0; i < world->clothCapacity; ++i) {
		const wfCloth* c = &world->cloths[i];
		if (c->generation == 0 || ((const wfVkCloth*)c->backendData)->slot >= 0)
			continue;
		const wfVkCloth* vc = (const wfVkCloth*)c->backendData;
		BeginStage(&rec, WF_STAGE_NORMALS);
		wfVkCopy(ctx, cmd, vc->device.buffer, vc->regionOffset[WF_VK_REGION_STATUS], vc->staging.buffer, WF_VK_STAGING_STATUS,
			sizeof(wfGpuStatus));
	}
	wfVkBarrier(ctx, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
		VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
	// The frame's end closes the stage still open.
	if (ctx->timestamps != VK_NULL_HANDLE)
		f->vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, ctx->timestamps, 1);
	if (timing)
		ctx->markStage[1] = (uint8_t)rec.stage;
	WF_ASSERT(ctx->world, !timing || 2 + rec.marks <= queries);
	WF_VK_CHECK(ctx, f->vkEndCommandBuffer(cmd));
	ctx->recorded = true;
	ctx->recordedSolver = world->def.step.solver;
	ctx->recordedSubsteps = world->def.step.substeps;
	ctx->recordedIterations = world->def.step.iterations;
	ctx->recordedClothSet = ctx->clothSetVersion;
	ctx->mesh.recordedSignature = ctx->mesh.signature;
	ctx->dispatchesPerFrame = rec.dispatches;
	ctx->recordedStageTiming = timing;
	ctx->stageTimingAsked = world->stageTiming;
	ctx->stageMarks = rec.marks;
	return WF_OK;
}
