// Vulkan backend: per-cloth device buffers, the pre-recorded frame command buffer, and the
// wfBackendOps that step, upload, download and reduce statistics. The step never leaves the GPU;
// the host writes the live parameters of each cloth into a host-visible frame buffer before the
// submit, so moving a slider never re-records. Its parts: vk_cloth.c (buffers, a cloth's device
// side, arenas, contact arrays), vk_record.c (the frame command buffer), vk_device.c (device and
// pipelines) and this file (the step, the host mirror, statistics, creation).
//
// Small cloths (at most WF_GPU_FUSED_MAX_PARTICLES = 4096 particles, 31 colours) live in an arena
// buffer shared by all of them; ONE dispatch of the fused kernel (shaders/fused.glsl) steps the
// whole frame of every one of them, one workgroup per cloth: 1 dispatch per frame however many
// small cloths (one more per further arena of 2 GB). WEFT_VK_FUSED=0 sends them down the
// per-range path below instead (same bits).
//
// Frame structure (one command buffer per world, re-recorded only when the solver, the substep or
// iteration count, or the cloth set changes): backups, then the batch dispatch(es), then per
// large cloth:
//   copy pos/vel -> backup, reset the status       (a frame that goes bad is undone; batched
//                                                   cloths do this inside the fused kernel)
//   XPBD:    per substep: predict, iterations x colours x solve (one dispatch per colour range), finish
//   Jacobi:  per substep: predict, iterations x sweep (A->B, B->A), finish
//   springs: per substep: springs (A->B or B->A, collide fused); odd substep counts copy B -> A
//   self-collision (wfSelfCollisionDef.enabled): after a substep's solve, the contact pass of
//            contact_*.comp (clear, keys, scan, scatter, sort, gather) on the cloth's particles,
//            the move in finish_self.comp (springs: a pass of its own)
//   mesh colliders (collide_mesh.comp, its own pipeline layout): after the solve the attachments
//            (before the tethers), after finish each body's contact (point, edges per colour,
//            corners, apply); springs: both after the springs kernel. The host writes the bodies'
//            placements for every cloth and substep before the submit (vk_mesh.c).
//   normals, check; copy the status to the host
// With cloth against cloth (betweenCloths) the cloths go in lockstep: every cloth's substep s,
// then the contact pass over all of them (each copied into the world's arrays, one hash, the
// gather, each moved), then substep s + 1. Contacts keep a world off the fused path.
// with a compute->compute barrier after every dispatch that a later one depends on.
// Dispatches per cloth and frame (S substeps, I iterations, C colours, 12 for a full grid):
//   XPBD S (2 + I C) + 2, Jacobi S (2 + I) + 2, springs S + 2; plus 3 or 4 buffer copies.
// Stage timing (wfWorld_SetStageTiming) records the same frame with a timestamp wherever the work
// changes wfStage (after a barrier that is there anyway): 3 per substep of a large cloth, 1 for the
// batch. Step adds the intervals up per stage; off, the frame has only its two timestamps.
//
// Environment: WEFT_VK_DEVICE (device name when the world def names none), WEFT_VK_VALIDATION=1
// (validation layer, messages counted in wfWarnings.validationMessages), WEFT_VK_TIMING=1 (GPU
// ms/frame from timestamps, logged when the world is destroyed).
#include "vk_interop.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(wfGpuPush) == 16, "push constants");
_Static_assert(sizeof(wfGpuClothParams) % 16 == 0, "std430 struct size");
_Static_assert(offsetof(wfGpuClothParams, h) == 160, "vec4 members first");
_Static_assert(sizeof(wfGpuSubstep) == 48, "std430 substep record");
_Static_assert(offsetof(wfGpuClothParams, shapes) % 16 == 0 && sizeof(wfGpuShape) == 48, "std430 shapes");
_Static_assert(WF_COLLIDER_SPHERE_ID == WF_COLLIDER_SPHERE && WF_COLLIDER_CAPSULE_ID == WF_COLLIDER_CAPSULE &&
		WF_COLLIDER_BOX_ID == WF_COLLIDER_BOX && WF_COLLIDER_PLANE_ID == WF_COLLIDER_PLANE,
	"collider types");
_Static_assert(offsetof(wfGpuBatchSlot, at) == sizeof(wfGpuClothParams) && sizeof(wfGpuBatchSlot) % 16 == 0, "std430 batch slot");
_Static_assert(sizeof(wfGpuStatus) == 64 && offsetof(wfGpuStatus, reference) == 16 && offsetof(wfGpuStatus, energy) == 32, "status");
_Static_assert(sizeof(wfGpuStatsParams) % 16 == 0 && sizeof(wfGpuPartial) == 48, "statistics layouts");
_Static_assert(sizeof(wfConstraint) == 16, "constraints are read as uvec4");
_Static_assert(sizeof(wfGpuMeshPlace) == 96 && WF_GPU_FAMILY_BEND == WF_FAMILY_BEND && WF_COLLIDER_MESH_ID == WF_COLLIDER_MESH,
	"mesh placements");

// ------------------------------------------------------------------ stepping

// The energy rule of a frame that passed the speed tests: the pre-test on the device's sums (the
// speed bound from them is the mean start speed, which the largest is not below); only when it fails,
// the state and the backup come to the host for the exact rule (wfCheckEnergy, as the CPU's).
static wfResult CheckEnergy(wfWorld* world, wfCloth* c, const wfFrameParams* params, const wfGpuStatus* st)
{
	const wfMotionSums s = wfMotionSumsOfGpu(st->energy.x, st->energy.y, st->energy.z, st->energy.w);
	if (!wfEnergyPreTestFails(world, c, params, &s))
		return WF_OK;
	wfVkContext* ctx = (wfVkContext*)world->backendData;
	wfVkCloth* vc = (wfVkCloth*)c->backendData;
	wfResult r = wfVkDownload(world, c);
	if (r != WF_OK || (r = wfVkSubmitCommands(ctx, vc->backupDown)) != WF_OK)
		return r;
	const size_t bytes = (size_t)c->model.particleCount * sizeof(wfVec4);
	const wfVec4* backup = (const wfVec4*)((const char*)vc->staging.map + WF_VK_STAGING_DATA);
	c->hostValid = true;
	wfCheckEnergy(world, c, params, backup, (const wfVec4*)((const char*)backup + bytes));
	return WF_OK;
}

static wfGpuVec4 V4(wfVec3 v, float w) { return (wfGpuVec4){v.x, v.y, v.z, w}; }

// A cloth's frame check results: in its arena's statuses (fused), else in its staging buffer.
static wfGpuStatus ClothStatus(const wfVkContext* ctx, const wfVkCloth* vc)
{
	wfGpuStatus st;
	if (vc->slot >= 0)
		memcpy(&st, (const char*)ctx->arenas[vc->arena].statuses.map + (size_t)vc->slot * sizeof st, sizeof st);
	else
		memcpy(&st, (const char*)vc->staging.map + WF_VK_STAGING_STATUS, sizeof st);
	return st;
}

// The live values of one cloth for this frame (gpu/frame_records.c): into its frame buffer, and
// into its batch slot when the fused kernel steps it.
static void WriteFrame(const wfVkContext* ctx, const wfWorld* world, const wfCloth* c, const wfVkCloth* vc, const wfFrameParams* p,
	const double ref[3])
{
	wfGpuClothParams* out = (wfGpuClothParams*)vc->frame.map;
	wfGpuSubstep* sub = (wfGpuSubstep*)(out + 1);
	const wfMaterial* m = &c->material;
	wfGpuClothParams cp;
	wfGpuWriteClothParams(world, c, p, ref, &cp);
	// check.comp finds the backup's velocities at this element of the backup's binding.
	const uint32_t backupVel = (uint32_t)((vc->regionOffset[WF_VK_REGION_BACKUP_VEL] - vc->regionOffset[WF_VK_REGION_BACKUP_POS]) /
		sizeof(wfVec4));
	memcpy(&cp.contactBand.w, &backupVel, sizeof backupVel);
	// Only the shapes in use: a batch of a thousand cloths writes its parameters every frame.
	const size_t used = wfGpuClothParamsBytes(world);
	memcpy(out, &cp, used);
	if (vc->slot < 0) {
		wfGpuWriteSubsteps(world, p, 1.0f / m->mass, sub);
		return;
	}
	// A batched cloth: its slot in the arena's table, the arrays in elements of their views.
	const wfVkArena* a = &ctx->arenas[vc->arena];
	wfGpuBatchSlot slot; // its parameters come from cp
	memset(slot.at, 0, sizeof slot.at);
	const VkDeviceSize* o = vc->regionOffset;
	slot.at[WF_GPU_SLOT_POS] = (uint32_t)(o[WF_VK_REGION_POS_A] / 16);
	slot.at[WF_GPU_SLOT_VEL] = (uint32_t)(o[WF_VK_REGION_VEL_A] / 16);
	slot.at[WF_GPU_SLOT_NORMALS] = (uint32_t)(o[WF_VK_REGION_NORMALS] / 16);
	slot.at[WF_GPU_SLOT_CONSTRAINTS] = (uint32_t)(o[WF_VK_REGION_PACKED] / 4);
	const float invMass = 1.0f / m->mass; // wfClothApplyInverseMass's expression: the same bits
	memcpy(&slot.at[WF_GPU_SLOT_INV_MASS], &invMass, sizeof invMass);
	slot.at[WF_GPU_SLOT_LAMBDA] = (uint32_t)(o[WF_VK_REGION_LAMBDA] / 4);
	slot.at[WF_GPU_SLOT_OWNER] = (uint32_t)(o[WF_VK_REGION_OWNER] / 4);
	slot.at[WF_GPU_SLOT_ADJ_START] = (uint32_t)(o[WF_VK_REGION_ADJ_START] / 4);
	slot.at[WF_GPU_SLOT_ADJ_CONSTRAINT] = (uint32_t)(o[WF_VK_REGION_ADJ_CONSTRAINT] / 4);
	slot.at[WF_GPU_SLOT_ADJ_OTHER] = (uint32_t)(o[WF_VK_REGION_ADJ_OTHER] / 4);
	slot.at[WF_GPU_SLOT_JACOBI_WEIGHT] = (uint32_t)(o[WF_VK_REGION_JACOBI_WEIGHT] / 4);
	slot.at[WF_GPU_SLOT_TRI_START] = (uint32_t)(o[WF_VK_REGION_TRI_START] / 4);
	slot.at[WF_GPU_SLOT_TRI_LIST] = (uint32_t)(o[WF_VK_REGION_TRI_LIST] / 4);
	slot.at[WF_GPU_SLOT_INDICES] = (uint32_t)(o[WF_VK_REGION_INDICES] / 4);
	slot.at[WF_GPU_SLOT_STATUS] = (uint32_t)(o[WF_VK_REGION_STATUS] / 4);
	slot.at[WF_GPU_SLOT_BACKUP_POS] = (uint32_t)(o[WF_VK_REGION_BACKUP_POS] / 16);
	slot.at[WF_GPU_SLOT_BACKUP_VEL] = (uint32_t)(o[WF_VK_REGION_BACKUP_VEL] / 16);
	slot.at[WF_GPU_SLOT_REST] = (uint32_t)(o[WF_VK_REGION_REST] / 16);
	slot.at[WF_GPU_SLOT_PREV] = (uint32_t)(o[WF_VK_REGION_PREV] / 16);
	// Self-collision's constants with wfVkWriteContactParams' (the CPU's) expressions, the resolved
	// thickness of this frame, and the cloth's hash (fused_self.glsl).
	memset(&slot.self, 0, sizeof slot.self);
	const wfSelfCollisionDef* sc = &world->selfContact;
	if (sc->enabled && c->state.hashSize > 0) {
		slot.self.distance = 2.0f * sc->thickness;
		slot.self.invCell = 1.0f / slot.self.distance;
		slot.self.exclude = sc->exclusion * slot.self.distance;
		slot.self.friction = sc->friction;
		slot.self.mask = (uint32_t)c->state.hashSize - 1u;
	}
	// Positions in shared memory when the dispatch's shared array holds them (fused.glsl).
	slot.at[WF_GPU_SLOT_FLAGS] = 3u * (uint32_t)c->model.particleCount <= wfVkFusedSharedFloats(ctx, a->sizeIndex) ? WF_GPU_PUSH_SHARED
																												   : 0u;
	char* table = (char*)a->table.map;
	char* to = table + WF_GPU_FRAME_RECORDS * sizeof(wfGpuSubstep) + (size_t)vc->slot * sizeof slot;
	memcpy(to, &cp, used);
	memcpy(to + offsetof(wfGpuBatchSlot, at), (const char*)&slot + offsetof(wfGpuBatchSlot, at),
		sizeof slot - offsetof(wfGpuBatchSlot, at));
}

static wfResult Step(wfWorld* world, const wfFrameParams* params)
{
	wfVkContext* ctx = (wfVkContext*)world->backendData;
	if (ctx->lost)
		return wfSetError(world, WF_ERROR_DEVICE_LOST, "vulkan: the device %s was lost earlier", ctx->gpu.properties.deviceName);
	if (world->clothCount == 0)
		return WF_OK;
	const wfStepDef* step = &world->def.step;
	// Mesh colliders: this frame's layout and room (may move cloths and re-record).
	wfResult mr = wfVkMeshPrepare(ctx, world);
	if (mr != WF_OK)
		return mr;
	if (!ctx->recorded || ctx->recordedSolver != step->solver || ctx->recordedSubsteps != step->substeps ||
		ctx->recordedIterations != step->iterations || ctx->recordedClothSet != ctx->clothSetVersion ||
		ctx->stageTimingAsked != world->stageTiming || ctx->mesh.recordedSignature != ctx->mesh.signature ||
		ctx->recordedColliders != (world->colliderCount > 0)) {
		wfResult r = wfVkRecordFrame(ctx, world);
		if (r != WF_OK)
			return r;
	}
	// The frame of the first cloth, where cloth against cloth meets the others (as on the CPU).
	double ref[3] = {0.0, 0.0, 0.0};
	for (int i = 0; i < world->clothCapacity; ++i) {
		const wfCloth* c = &world->cloths[i];
		if (c->generation != 0) {
			ref[0] = c->origin[0] + c->local.shift.x;
			ref[1] = c->origin[1] + c->local.shift.y;
			ref[2] = c->origin[2] + c->local.shift.z;
			break;
		}
	}
	for (int i = 0; i < world->clothCapacity; ++i) {
		wfCloth* c = &world->cloths[i];
		if (c->generation == 0)
			continue;
		wfVkCloth* vc = (wfVkCloth*)c->backendData;
		WriteFrame(ctx, world, c, vc, params, ref);
		if (step->solver == WF_SOLVER_SPRINGS)
			wfCheckSpringsStep(world, c, params->h);
	}
	if ((mr = wfVkMeshWrite(ctx, world, params)) != WF_OK)
		return mr;
	// Each arena's substep table (uniform wind: the acceleration does not depend on the mass).
	for (int ai = 0; ai < ctx->arenaCount; ++ai) {
		if (ctx->arenas[ai].slots > 0)
			wfGpuWriteSubsteps(world, params, 1.0f, (wfGpuSubstep*)ctx->arenas[ai].table.map);
	}
	wfResult r = wfVkSubmitCommands(ctx, ctx->frameCmd);
	if (r != WF_OK)
		return r;
	if (ctx->timestamps != VK_NULL_HANDLE) {
		// The frame's two queries, and with stage timing its marks (queries 2 .. 2 + marks - 1).
		uint64_t frameTicks[2];
		uint64_t* ticks = ctx->recordedStageTiming ? ctx->ticks : frameTicks;
		const uint32_t count = ctx->recordedStageTiming ? 2 + ctx->stageMarks : 2;
		VkResult vr = ctx->gpu.fd.vkGetQueryPoolResults(ctx->gpu.device, ctx->timestamps, 0, count, count * sizeof(uint64_t), ticks,
			sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
		const double msPerTick = ctx->gpu.properties.limits.timestampPeriod * 1e-6;
		const uint64_t mask = ctx->timestampMask;
		ctx->lastFrameGpuMs = vr == VK_SUCCESS ? (double)((ticks[1] - ticks[0]) & mask) * msPerTick : -1.0;
		if (ctx->frameTimes != NULL && ctx->frameCount < WF_VK_TIMING_CAPACITY && ctx->lastFrameGpuMs >= 0.0)
			ctx->frameTimes[ctx->frameCount++] = ctx->lastFrameGpuMs;
		// Each interval between consecutive queries goes to the stage it closes: the stages add
		// up to the frame. Differences are taken in the queue's valid bits (a counter may wrap).
		if (vr == VK_SUCCESS && ctx->recordedStageTiming) {
			for (int k = 0; k < WF_STAGE_COUNT; ++k)
				world->stageMs[k] = 0.0;
			uint64_t last = ticks[0];
			for (uint32_t j = 0; j <= ctx->stageMarks; ++j) {
				const uint32_t q = j < ctx->stageMarks ? 2 + j : 1;
				world->stageMs[ctx->markStage[q]] += (double)((ticks[q] - last) & mask) * msPerTick;
				last = ticks[q];
			}
		}
	}
	// A fused kernel that did not run every substep (lavapipe ends any loop of a shader after 65 535
	// trips, which a long frame's substep loop reaches: 6 x 6 XPBD cloth, 1 771 of 2 000 substeps):
	// the frame is refused whole, every cloth back at its frame start, the clock where it was.
	for (int i = 0; i < world->clothCapacity; ++i) {
		const wfCloth* c = &world->cloths[i];
		const wfVkCloth* vc = (const wfVkCloth*)c->backendData;
		if (c->generation == 0 || vc->slot < 0)
			continue;
		const wfGpuStatus st = ClothStatus(ctx, vc);
		if (st.reference.w == (float)params->substeps)
			continue;
		for (int k = 0; k < world->clothCapacity; ++k) {
			wfCloth* back = &world->cloths[k];
			if (back->generation == 0)
				continue;
			back->hostValid = false;
			((wfVkCloth*)back->backendData)->normalsCurrent = false;
			if ((r = wfVkSubmitCommands(ctx, ((wfVkCloth*)back->backendData)->restore)) != WF_OK)
				return r;
		}
		return wfSetError(world, WF_ERROR_DEVICE_LOST,
			"vulkan: %s stopped the fused kernel of cloth %d after %.0f of the frame's %d substeps (lavapipe, for one, ends a "
			"shader's loop after 65535 trips); the frame is not taken: use fewer substeps, or world.fusedPath \"never\"",
			ctx->gpu.properties.deviceName, c->index, (double)st.reference.w, params->substeps);
	}
	// The frame check: never hand out a garbage frame (as the CPU backend).
	for (int i = 0; i < world->clothCapacity; ++i) {
		wfCloth* c = &world->cloths[i];
		if (c->generation == 0)
			continue;
		wfVkCloth* vc = (wfVkCloth*)c->backendData;
		const wfGpuStatus st = ClothStatus(ctx, vc);
		c->hostValid = false;
		c->normalsValid = false;
		vc->normalsCurrent = true;
		c->tunnelParticle = st.firstTunnelled == 0xffffffffu ? -1 : (int)st.firstTunnelled;
		if (st.firstNonFinite == 0xffffffffu && st.firstUnstable == 0xffffffffu) {
			if ((r = CheckEnergy(world, c, params, &st)) != WF_OK)
				return r;
			if (c->verdict == WF_FRAME_GOOD) {
				c->reference = (wfVec3){st.reference.x, st.reference.y, st.reference.z};
				continue;
			}
		} else {
			// The CPU scans in index order and stops at the first bad particle of either kind; the
			// core counts and logs (wfClothEndFrame). The reference stays: the frame-start state comes back.
			bool nonFinite = st.firstNonFinite < st.firstUnstable;
			c->verdict = nonFinite ? WF_FRAME_NON_FINITE : WF_FRAME_UNSTABLE;
			c->verdictParticle = (int)(nonFinite ? st.firstNonFinite : st.firstUnstable);
			c->verdictContact = !nonFinite && st.firstUnstableInContact != 0xffffffffu;
		}
		c->hostValid = false;
		vc->normalsCurrent = false;
		r = wfVkSubmitCommands(ctx, vc->restore);
		if (r != WF_OK)
			return r;
	}
	return WF_OK;
}

// ------------------------------------------------------------------ host mirror

wfResult wfVkDownload(wfWorld* world, wfCloth* c)
{
	wfVkContext* ctx = (wfVkContext*)world->backendData;
	wfVkCloth* vc = (wfVkCloth*)c->backendData;
	wfResult r = wfVkSubmitCommands(ctx, vc->download);
	if (r != WF_OK)
		return r;
	const size_t bytes = (size_t)c->model.particleCount * sizeof(wfVec4);
	const char* data = (const char*)vc->staging.map + WF_VK_STAGING_DATA;
	memcpy(c->state.pos, data, bytes);
	memcpy(c->state.vel, data + bytes, bytes);
	if (vc->normalsCurrent) {
		memcpy(c->state.normals, data + 2 * bytes, bytes);
		c->normalsValid = true;
	}
	return WF_OK;
}

wfResult wfVkUpload(wfWorld* world, wfCloth* c)
{
	wfVkContext* ctx = (wfVkContext*)world->backendData;
	wfVkCloth* vc = (wfVkCloth*)c->backendData;
	const size_t bytes = (size_t)c->model.particleCount * sizeof(wfVec4);
	char* data = (char*)vc->staging.map + WF_VK_STAGING_DATA;
	memcpy(data, c->state.pos, bytes);
	memcpy(data + bytes, c->state.vel, bytes);
	vc->normalsCurrent = false;
	return wfVkSubmitCommands(ctx, vc->upload);
}

static int CompareDoubles(const void* a, const void* b)
{
	double x = *(const double*)a, y = *(const double*)b;
	return (x > y) - (x < y);
}

// WEFT_VK_TIMING=1: the GPU time per frame (timestamps at the start and end of the frame command
// buffer), so a benchmark can set it against the wall clock, which includes submit and wait.
static void LogTiming(wfVkContext* ctx)
{
	if (ctx->frameTimes == NULL || ctx->frameCount == 0)
		return;
	int n = ctx->frameCount, skip = n > 40 ? 20 : 0; // leave out the warm-up
	double* t = ctx->frameTimes + skip;
	n -= skip;
	qsort(t, (size_t)n, sizeof(double), CompareDoubles);
	wfLog(ctx->world, WF_LOG_WARNING,
		"vulkan timing: %s, %d frames after %d warm-up, GPU ms/frame median %.4f p10 %.4f p90 %.4f, %d dispatches/frame",
		ctx->gpu.properties.deviceName, n, skip, t[n / 2], t[n / 10], t[(n * 9) / 10], ctx->dispatchesPerFrame);
}

// Statistics reduced on the device: each workgroup sums its particles or constraints in float,
// the host adds the partials in double. Min/max and counts are exact; sums agree with the CPU's
// double sums to float rounding per group (relative 1e-6).
static wfResult Stats(wfWorld* world, wfCloth* c, const wfFrameParams* p, wfClothStats* out)
{
	wfVkContext* ctx = (wfVkContext*)world->backendData;
	wfVkCloth* vc = (wfVkCloth*)c->backendData;
	const wfMaterial* m = &c->material;
	wfGpuStatsParams sp;
	memset(&sp, 0, sizeof sp);
	sp.gravity = V4(p->gravity, 0.0f);
	// Local positions: local colliders, and the origin's gravity energy added on the host.
	const wfClothLocal local = wfClothLocalNow(world, c);
	sp.sphereCenter = V4(wfLocalSphereCenter(&local, p, -1), 0.0f);
	sp.compliance = (wfGpuVec4){m->stretchCompliance, m->shearCompliance, m->bendCompliance, 0.0f};
	sp.mass = m->mass;
	sp.sphereRadius = p->sphere.radius;
	sp.floorHeight = local.floorHeight;
	sp.stiffness = m->stiffness;
	wfSolverType solver = world->def.step.solver;
	sp.flags = (p->sphere.enabled ? WF_GPU_STATS_SPHERE : 0u) | (p->floor.enabled ? WF_GPU_STATS_FLOOR : 0u) |
		(solver == WF_SOLVER_XPBD ? WF_GPU_STATS_XPBD : 0u) | (solver == WF_SOLVER_SPRINGS ? WF_GPU_STATS_SPRINGS : 0u);
	sp.particleGroups = vc->particleGroups;
	memcpy((char*)vc->frame.map + vc->statsParamsOffset, &sp, sizeof sp);
	wfResult r = wfVkSubmitCommands(ctx, vc->stats);
	if (r != WF_OK)
		return r;
	const wfGpuPartial* part = (const wfGpuPartial*)((const char*)vc->staging.map + vc->stagingPartials);
	double ke = 0.0, pe = 0.0, mx = 0.0, my = 0.0, mz = 0.0, strainSum = 0.0;
	float sphere = FLT_MAX, floorY = FLT_MAX, largest = 0.0f;
	long long nonFinite = 0, stretch = 0, bad = 0;
	for (uint32_t g = 0; g < vc->particleGroups; ++g) {
		ke += part[g].sum0;
		pe += part[g].sum1;
		mx += part[g].sum2;
		my += part[g].sum3;
		mz += part[g].sum4;
		sphere = part[g].min0 < sphere ? part[g].min0 : sphere;
		floorY = part[g].min1 < floorY ? part[g].min1 : floorY;
		nonFinite += part[g].count;
	}
	for (uint32_t g = vc->particleGroups; g < vc->particleGroups + vc->constraintGroups; ++g) {
		pe += part[g].sum0;
		strainSum += part[g].sum1;
		largest = -part[g].min0 > largest ? -part[g].min0 : largest;
		stretch += part[g].count;
		bad += part[g].bad;
	}
	memset(out, 0, sizeof *out);
	out->time = world->time;
	out->kineticEnergy = ke;
	out->potentialEnergy = pe + wfOriginGravityEnergy(c, p, wfDynamicCount(c));
	out->maxStrain = bad > 0 ? NAN : largest; // a non-finite strain is the largest (as on the CPU)
	out->meanStrain = stretch > 0 ? (float)(strainSum / (double)stretch) : 0.0f;
	out->sphereClearance = sphere;
	out->floorClearance = floorY;
	out->momentum = (wfVec3){(float)mx, (float)my, (float)mz};
	out->nonFinite = (int)nonFinite;
	return WF_OK;
}

static void Destroy(wfWorld* world)
{
	wfVkContext* ctx = (wfVkContext*)world->backendData;
	if (ctx == NULL)
		return;
	LogTiming(ctx);
	wfVkWaitIdle(ctx);
	wfVkDestroyArenas(ctx);
	wfVkDestroyContacts(ctx);
	wfVkDestroyMesh(ctx);
	free(ctx->frameTimes);
	free(ctx->markStage);
	free(ctx->ticks);
	wfVkDestroyDevice(ctx);
	free(ctx);
	world->backendData = NULL;
}

// For benchmarks: the device time of the last frame and the dispatches recorded per frame.
static void Profile(const wfWorld* world, wfStepProfile* out)
{
	const wfVkContext* ctx = (const wfVkContext*)world->backendData;
	out->gpuMs = ctx->lastFrameGpuMs;
	out->dispatches = ctx->dispatchesPerFrame;
}

// wfWorld_SetSelfCollision (the core refuses a change of enabled or betweenCloths here): the
// constants and the friction pass are recorded into the frame, so it is recorded again. The
// continuous passes need the per-range path: a cloth batched with others in the fused kernel
// cannot take it (its frame buffer holds one substep record).
static wfResult SetSelfCollision(wfWorld* world, const wfSelfCollisionDef* sc)
{
	wfVkContext* ctx = (wfVkContext*)world->backendData;
	for (int i = 0; sc->enabled && (sc->pointTriangle || sc->edgeEdge) && i < world->clothCapacity; ++i) {
		const wfCloth* c = &world->cloths[i];
		const wfVkCloth* vc = c->generation != 0 ? (const wfVkCloth*)c->backendData : NULL;
		if (vc != NULL && vc->arena >= 0 && vc->frameSubsteps < WF_MAX_SUBSTEPS)
			return wfSetError(world, WF_ERROR_INVALID_DEF,
				"selfCollision.%s: cloth %d is stepped with other small cloths by the fused kernel, which has no "
				"continuous passes; turn them on when the world is created (its cloths then take the per-range "
				"path) or create it with fusedPath \"never\"",
				sc->pointTriangle ? "pointTriangle" : "edgeEdge", c->index);
	}
	wfVkContacts* k = &ctx->contacts;
	if (k->params.map != NULL) {
		wfVkWaitIdle(ctx); // steps wait for their fence; belt and braces before the constants change
		wfVkWriteContactParams(ctx, sc);
	}
	ctx->recorded = false;
	return WF_OK;
}

static const wfBackendOps kVulkanOps = {
	.name = "vulkan",
	.setSelfCollision = SetSelfCollision,
	.destroy = Destroy,
	.addCloth = wfVkAddCloth,
	.removeCloth = wfVkRemoveCloth,
	.step = Step,
	.download = wfVkDownload,
	.upload = wfVkUpload,
	.stats = Stats,
	.profile = Profile,
	.vulkanDevice = wfVkInteropDevice,
	.vulkanBuffers = wfVkInteropBuffers,
};

wfResult wfVulkanBackendCreate(wfWorld* world, bool allowSoftware)
{
	wfVkContext* ctx = (wfVkContext*)calloc(1, sizeof *ctx);
	if (ctx == NULL)
		return wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "vulkan: out of memory");
	ctx->world = world;
	const char* name = world->def.deviceName;
	wfResult r = world->def.vulkanDevice != NULL ? wfVkAdoptDevice(ctx, world->def.vulkanDevice)
												 : wfVkCreateDevice(ctx, name, allowSoftware);
	if (r != WF_OK) {
		wfVkDestroyDevice(ctx);
		free(ctx);
		return r;
	}
	if (world->def.logGpuTiming && ctx->timestamps != VK_NULL_HANDLE)
		ctx->frameTimes = (double*)malloc(WF_VK_TIMING_CAPACITY * sizeof(double)); // NULL: no summary
	world->backend = &kVulkanOps;
	world->backendData = ctx;
	world->threads = 1;
	snprintf(world->deviceName, sizeof world->deviceName, "%s", ctx->gpu.properties.deviceName);
	world->cpuDevice = ctx->gpu.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
	wfLog(world, WF_LOG_INFO, "vulkan: using %s", ctx->gpu.properties.deviceName);
	return WF_OK;
}
