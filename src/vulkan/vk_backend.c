// Vulkan backend: per-cloth device buffers, the pre-recorded frame command buffer, and the
// wfBackendOps that step, upload, download and reduce statistics. The step never leaves the GPU;
// the host writes the live parameters of each cloth into a host-visible frame buffer before the
// submit, so moving a slider never re-records.
//
// Small cloths (at most WF_VK_FUSED_MAX_PARTICLES = 4096 particles, 31 colours) live in an arena
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

_Static_assert(sizeof(wfVkPush) == 16, "push constants");
_Static_assert(sizeof(wfVkClothParams) % 16 == 0, "std430 struct size");
_Static_assert(offsetof(wfVkClothParams, h) == 160, "vec4 members first");
_Static_assert(sizeof(wfVkSubstep) == 48, "std430 substep record");
_Static_assert(WF_VK_MAX_SHAPES >= WF_MAX_COLLIDERS && WF_VK_MAX_SHAPE_STEPS == WF_GPU_MAX_COLLIDER_STEPS, "collider limits");
_Static_assert(offsetof(wfVkClothParams, shapes) % 16 == 0 && sizeof(wfVkShape) == 48, "std430 shapes");
_Static_assert(WF_COLLIDER_SPHERE_ID == WF_COLLIDER_SPHERE && WF_COLLIDER_CAPSULE_ID == WF_COLLIDER_CAPSULE &&
		WF_COLLIDER_BOX_ID == WF_COLLIDER_BOX && WF_COLLIDER_PLANE_ID == WF_COLLIDER_PLANE,
	"collider types");
_Static_assert(offsetof(wfVkBatchSlot, at) == sizeof(wfVkClothParams) && sizeof(wfVkBatchSlot) % 16 == 0, "std430 batch slot");
_Static_assert(sizeof(wfVkStatus) == 64 && offsetof(wfVkStatus, reference) == 16 && offsetof(wfVkStatus, energy) == 32, "status");
_Static_assert(sizeof(wfVkStatsParams) % 16 == 0 && sizeof(wfVkPartial) == 48, "statistics layouts");
_Static_assert(sizeof(wfConstraint) == 16, "constraints are read as uvec4");

// Records of a cloth's frame buffer after its parameters: one substep (a batched cloth, whose arena
// table holds the frame's records), or every substep and the colliders' shape steps after them.
static VkDeviceSize FrameRecords(const wfVkCloth* vc)
{
	return vc->frameSubsteps < WF_VK_MAX_SUBSTEPS ? (VkDeviceSize)vc->frameSubsteps : WF_VK_FRAME_RECORDS;
}

static const VkMemoryPropertyFlags kDeviceLocal = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
static const VkMemoryPropertyFlags kHostCoherent = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;

#define WF_VK_FENCE_TIMEOUT_NS (300ull * 1000000000ull)

static const VkPipelineStageFlags kComputeTransfer = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
static const VkAccessFlags kAllWrites = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
static const VkAccessFlags kAllReadWrites = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
	VK_ACCESS_TRANSFER_WRITE_BIT;

// ------------------------------------------------------------------ buffers

// Waits for the work weft submitted: on a borrowed device (an engine's) only weft's queue, never
// the whole device (src/vk/: wfVkGpuWait).
static void WaitIdle(wfVkContext* ctx) { wfVkGpuWait(&ctx->gpu); }

// A buffer with its own memory of a type with the `want` properties (and `prefer` ones where there
// is such a type); host-visible memory stays mapped.
static wfResult CreateBuffer(wfVkContext* ctx, VkDeviceSize size, VkBufferUsageFlags usage, VkMemoryPropertyFlags want,
	VkMemoryPropertyFlags prefer, const char* name, wfVkBuffer* out)
{
	memset(out, 0, sizeof *out);
	if (ctx->injectOutOfMemory)
		return wfVkFail(ctx, VK_ERROR_OUT_OF_DEVICE_MEMORY, "vkAllocateMemory (injected by a test)", __FILE__, __LINE__);
	WF_VK_CHECK(ctx, wfVkBufferCreate(&ctx->gpu, size, usage, want, prefer, out));
	wfVkGpuSetName(&ctx->gpu, VK_OBJECT_TYPE_BUFFER, (uint64_t)out->buffer, name);
	return WF_OK;
}

static void DestroyBuffer(wfVkContext* ctx, wfVkBuffer* b) { wfVkBufferDestroy(&ctx->gpu, b); }

// ------------------------------------------------------------------ command helpers

static void Barrier(const wfVkContext* ctx, VkCommandBuffer cmd, VkPipelineStageFlags srcStage, VkAccessFlags srcAccess,
	VkPipelineStageFlags dstStage, VkAccessFlags dstAccess)
{
	VkMemoryBarrier b = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = srcAccess,
		.dstAccessMask = dstAccess,
	};
	ctx->gpu.fd.vkCmdPipelineBarrier(cmd, srcStage, dstStage, 0, 1, &b, 0, NULL, 0, NULL);
}

// Compute -> compute: the next dispatch reads (and writes) what this one wrote.
static void ComputeBarrier(const wfVkContext* ctx, VkCommandBuffer cmd)
{
	Barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
		VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

static void Copy(const wfVkContext* ctx, VkCommandBuffer cmd, VkBuffer src, VkDeviceSize srcOffset, VkBuffer dst, VkDeviceSize dstOffset,
	VkDeviceSize size)
{
	VkBufferCopy region = {srcOffset, dstOffset, size};
	ctx->gpu.fd.vkCmdCopyBuffer(cmd, src, dst, 1, &region);
}

static wfResult AllocateCommandBuffer(wfVkContext* ctx, const char* name, VkCommandBuffer* out)
{
	VkCommandBufferAllocateInfo info = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = ctx->commandPool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	WF_VK_CHECK(ctx, ctx->gpu.fd.vkAllocateCommandBuffers(ctx->gpu.device, &info, out));
	wfVkGpuSetName(&ctx->gpu, VK_OBJECT_TYPE_COMMAND_BUFFER, (uint64_t)(uintptr_t)*out, name);
	return WF_OK;
}

static wfResult Begin(wfVkContext* ctx, VkCommandBuffer cmd)
{
	VkCommandBufferBeginInfo info = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	WF_VK_CHECK(ctx, ctx->gpu.fd.vkBeginCommandBuffer(cmd, &info));
	return WF_OK;
}

// Submits one command buffer and waits for it. Steps are synchronous: the host reads the frame
// check right after, and a later step rewrites the frame buffers.
static wfResult SubmitAndWait(wfVkContext* ctx, VkCommandBuffer cmd)
{
	if (ctx->lost)
		return wfSetError(ctx->world, WF_ERROR_DEVICE_LOST, "vulkan: the device %s was lost earlier", ctx->gpu.properties.deviceName);
	WF_VK_CHECK(ctx, wfVkSubmitAndWait(&ctx->gpu, cmd, ctx->fence, WF_VK_FENCE_TIMEOUT_NS));
	return WF_OK;
}

// ------------------------------------------------------------------ cloths

static VkDeviceSize AlignUp(VkDeviceSize v, VkDeviceSize a) { return (v + a - 1) / a * a; }

static VkDescriptorBufferInfo RegionInfo(const wfVkCloth* vc, int region)
{
	return (VkDescriptorBufferInfo){vc->device.buffer, vc->regionOffset[region], vc->regionSize[region]};
}

static void WriteDescriptorSets(wfVkContext* ctx, wfVkCloth* vc);

static wfResult CreateDescriptorSets(wfVkContext* ctx, wfVkCloth* vc)
{
	const wfVkDeviceFuncs* f = &ctx->gpu.fd;
	VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 * WF_VK_BIND_COUNT};
	VkDescriptorPoolCreateInfo poolInfo = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
		.maxSets = 2,
		.poolSizeCount = 1,
		.pPoolSizes = &size,
	};
	WF_VK_CHECK(ctx, f->vkCreateDescriptorPool(ctx->gpu.device, &poolInfo, NULL, &vc->descriptorPool));
	VkDescriptorSetLayout layouts[2] = {ctx->setLayout, ctx->setLayout};
	VkDescriptorSetAllocateInfo alloc = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
		.descriptorPool = vc->descriptorPool,
		.descriptorSetCount = 2,
		.pSetLayouts = layouts,
	};
	WF_VK_CHECK(ctx, f->vkAllocateDescriptorSets(ctx->gpu.device, &alloc, vc->sets));
	WriteDescriptorSets(ctx, vc);
	return WF_OK;
}

// Points both descriptor sets of a cloth at its regions (again after its arena moved).
static void WriteDescriptorSets(wfVkContext* ctx, wfVkCloth* vc)
{
	const wfVkDeviceFuncs* f = &ctx->gpu.fd;
	for (int v = 0; v < 2; ++v) {
		VkDescriptorBufferInfo infos[WF_VK_BIND_COUNT];
		infos[WF_VK_BIND_FRAME] = (VkDescriptorBufferInfo){vc->frame.buffer, 0,
			sizeof(wfVkClothParams) + FrameRecords(vc) * sizeof(wfVkSubstep)};
		infos[WF_VK_BIND_POS] = RegionInfo(vc, v == 0 ? WF_VK_REGION_POS_A : WF_VK_REGION_POS_B);
		infos[WF_VK_BIND_VEL] = RegionInfo(vc, v == 0 ? WF_VK_REGION_VEL_A : WF_VK_REGION_VEL_B);
		infos[WF_VK_BIND_POS_ALT] = RegionInfo(vc, v == 0 ? WF_VK_REGION_POS_B : WF_VK_REGION_POS_A);
		infos[WF_VK_BIND_VEL_ALT] = RegionInfo(vc, v == 0 ? WF_VK_REGION_VEL_B : WF_VK_REGION_VEL_A);
		infos[WF_VK_BIND_PREV] = RegionInfo(vc, WF_VK_REGION_PREV);
		infos[WF_VK_BIND_LAMBDA] = RegionInfo(vc, WF_VK_REGION_LAMBDA);
		infos[WF_VK_BIND_CONSTRAINTS] = RegionInfo(vc, WF_VK_REGION_CONSTRAINTS);
		infos[WF_VK_BIND_ADJ_START] = RegionInfo(vc, WF_VK_REGION_ADJ_START);
		infos[WF_VK_BIND_ADJ_CONSTRAINT] = RegionInfo(vc, WF_VK_REGION_ADJ_CONSTRAINT);
		infos[WF_VK_BIND_ADJ_OTHER] = RegionInfo(vc, WF_VK_REGION_ADJ_OTHER);
		infos[WF_VK_BIND_JACOBI_WEIGHT] = RegionInfo(vc, WF_VK_REGION_JACOBI_WEIGHT);
		infos[WF_VK_BIND_NORMALS] = RegionInfo(vc, WF_VK_REGION_NORMALS);
		infos[WF_VK_BIND_TRI_START] = RegionInfo(vc, WF_VK_REGION_TRI_START);
		infos[WF_VK_BIND_TRI_LIST] = RegionInfo(vc, WF_VK_REGION_TRI_LIST);
		infos[WF_VK_BIND_INDICES] = RegionInfo(vc, WF_VK_REGION_INDICES);
		infos[WF_VK_BIND_STATUS] = RegionInfo(vc, WF_VK_REGION_STATUS);
		infos[WF_VK_BIND_STATS_PARAMS] = (VkDescriptorBufferInfo){vc->frame.buffer, vc->statsParamsOffset, sizeof(wfVkStatsParams)};
		infos[WF_VK_BIND_PARTIALS] = RegionInfo(vc, WF_VK_REGION_PARTIALS);
		infos[WF_VK_BIND_REST] = RegionInfo(vc, WF_VK_REGION_REST);
		infos[WF_VK_BIND_TILE_START] = RegionInfo(vc, WF_VK_REGION_TILE_START);
		infos[WF_VK_BIND_TILE_CON] = RegionInfo(vc, WF_VK_REGION_PACKED);
		// The backup's positions and velocities through one binding (shared.h, WF_VK_BIND_BACKUP).
		const VkDeviceSize backup = vc->regionOffset[WF_VK_REGION_BACKUP_POS];
		infos[WF_VK_BIND_BACKUP] = (VkDescriptorBufferInfo){vc->device.buffer, backup,
			vc->regionOffset[WF_VK_REGION_BACKUP_VEL] + vc->regionSize[WF_VK_REGION_BACKUP_VEL] - backup};
		VkWriteDescriptorSet writes[WF_VK_BIND_COUNT];
		for (uint32_t b = 0; b < WF_VK_BIND_COUNT; ++b) {
			writes[b] = (VkWriteDescriptorSet){
				.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
				.dstSet = vc->sets[v],
				.dstBinding = b,
				.descriptorCount = 1,
				.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
				.pBufferInfo = &infos[b],
			};
		}
		f->vkUpdateDescriptorSets(ctx->gpu.device, WF_VK_BIND_COUNT, writes, 0, NULL);
	}
}

// The three small command buffers of a cloth, recorded once: upload, download, undo a bad frame.
static wfResult RecordTransfers(wfVkContext* ctx, const wfCloth* c, wfVkCloth* vc)
{
	const wfVkDeviceFuncs* f = &ctx->gpu.fd;
	const VkDeviceSize bytes = (VkDeviceSize)c->model.particleCount * sizeof(wfVec4);
	const VkBuffer dev = vc->device.buffer, stage = vc->staging.buffer;
	const VkDeviceSize data = WF_VK_STAGING_DATA;
	wfResult r;

	// Host mirror -> A (the staging buffer was written by the host before the submit).
	if ((r = AllocateCommandBuffer(ctx, "weft upload", &vc->upload)) != WF_OK || (r = Begin(ctx, vc->upload)) != WF_OK)
		return r;
	Barrier(ctx, vc->upload, kComputeTransfer, kAllWrites, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
	Copy(ctx, vc->upload, stage, data, dev, vc->regionOffset[WF_VK_REGION_POS_A], bytes);
	Copy(ctx, vc->upload, stage, data + bytes, dev, vc->regionOffset[WF_VK_REGION_VEL_A], bytes);
	Barrier(ctx, vc->upload, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, kComputeTransfer, kAllReadWrites);
	WF_VK_CHECK(ctx, f->vkEndCommandBuffer(vc->upload));

	// A and the normals -> staging, visible to the host after the fence.
	if ((r = AllocateCommandBuffer(ctx, "weft download", &vc->download)) != WF_OK || (r = Begin(ctx, vc->download)) != WF_OK)
		return r;
	Barrier(ctx, vc->download, kComputeTransfer, kAllWrites, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
	Copy(ctx, vc->download, dev, vc->regionOffset[WF_VK_REGION_POS_A], stage, data, bytes);
	Copy(ctx, vc->download, dev, vc->regionOffset[WF_VK_REGION_VEL_A], stage, data + bytes, bytes);
	Copy(ctx, vc->download, dev, vc->regionOffset[WF_VK_REGION_NORMALS], stage, data + 2 * bytes, bytes);
	Barrier(ctx, vc->download, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
		VK_ACCESS_HOST_READ_BIT);
	WF_VK_CHECK(ctx, f->vkEndCommandBuffer(vc->download));

	// Backup -> A: the frame went bad, keep the last good state.
	if ((r = AllocateCommandBuffer(ctx, "weft restore", &vc->restore)) != WF_OK || (r = Begin(ctx, vc->restore)) != WF_OK)
		return r;
	Barrier(ctx, vc->restore, kComputeTransfer, kAllWrites, VK_PIPELINE_STAGE_TRANSFER_BIT,
		VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
	Copy(ctx, vc->restore, dev, vc->regionOffset[WF_VK_REGION_BACKUP_POS], dev, vc->regionOffset[WF_VK_REGION_POS_A], bytes);
	Copy(ctx, vc->restore, dev, vc->regionOffset[WF_VK_REGION_BACKUP_VEL], dev, vc->regionOffset[WF_VK_REGION_VEL_A], bytes);
	Barrier(ctx, vc->restore, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, kComputeTransfer, kAllReadWrites);
	WF_VK_CHECK(ctx, f->vkEndCommandBuffer(vc->restore));

	// The backup -> staging where the positions and velocities go (the energy rule's exact test
	// reads them after a download has taken those).
	if ((r = AllocateCommandBuffer(ctx, "weft backup download", &vc->backupDown)) != WF_OK || (r = Begin(ctx, vc->backupDown)) != WF_OK)
		return r;
	Barrier(ctx, vc->backupDown, kComputeTransfer, kAllWrites, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
	Copy(ctx, vc->backupDown, dev, vc->regionOffset[WF_VK_REGION_BACKUP_POS], stage, data, bytes);
	Copy(ctx, vc->backupDown, dev, vc->regionOffset[WF_VK_REGION_BACKUP_VEL], stage, data + bytes, bytes);
	Barrier(ctx, vc->backupDown, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
		VK_ACCESS_HOST_READ_BIT);
	WF_VK_CHECK(ctx, f->vkEndCommandBuffer(vc->backupDown));

	// Statistics: per-workgroup partials of the state in A, copied to staging for the host's sum.
	if ((r = AllocateCommandBuffer(ctx, "weft stats", &vc->stats)) != WF_OK || (r = Begin(ctx, vc->stats)) != WF_OK)
		return r;
	Barrier(ctx, vc->stats, kComputeTransfer, kAllWrites, kComputeTransfer, kAllReadWrites);
	f->vkCmdBindDescriptorSets(vc->stats, VK_PIPELINE_BIND_POINT_COMPUTE, ctx->pipelineLayout, 0, 1, &vc->sets[0], 0, NULL);
	const uint32_t counts[2] = {(uint32_t)c->model.particleCount, (uint32_t)c->model.constraintCount};
	const int pipes[2] = {WF_VK_PIPE_STATS_PARTICLES, WF_VK_PIPE_STATS_CONSTRAINTS};
	for (int k = 0; k < 2; ++k) {
		// Both write disjoint partials and only read the state: no barrier between them.
		f->vkCmdBindPipeline(vc->stats, VK_PIPELINE_BIND_POINT_COMPUTE, ctx->pipelines[pipes[k]]);
		wfVkPush push = {0u, counts[k], 0u, 0u};
		f->vkCmdPushConstants(vc->stats, ctx->pipelineLayout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
		uint32_t groups = (counts[k] + WF_VK_GROUP_SIZE - 1) / WF_VK_GROUP_SIZE;
		uint32_t x = groups < 65535u ? groups : 65535u;
		f->vkCmdDispatch(vc->stats, x, (groups + x - 1) / x, 1);
	}
	Barrier(ctx, vc->stats, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
		VK_ACCESS_TRANSFER_READ_BIT);
	Copy(ctx, vc->stats, dev, vc->regionOffset[WF_VK_REGION_PARTIALS], stage, vc->stagingPartials,
		(VkDeviceSize)(vc->particleGroups + vc->constraintGroups) * sizeof(wfVkPartial));
	Barrier(ctx, vc->stats, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
		VK_ACCESS_HOST_READ_BIT);
	WF_VK_CHECK(ctx, f->vkEndCommandBuffer(vc->stats));
	return WF_OK;
}

// The rest positions (and air shares) on the device: for self-collision and aerodynamics.
static bool RestNeeded(const wfWorld* world)
{
	return world->def.selfCollision.enabled || world->def.aero.drag != 0.0f || world->def.aero.lift != 0.0f;
}

// Model arrays in the layout of the device buffer, copied once through a temporary buffer.
static wfResult UploadModel(wfVkContext* ctx, const wfCloth* c, wfVkCloth* vc)
{
	const wfClothModel* m = &c->model;
	wfVkBuffer temp;
	wfResult r = CreateBuffer(ctx, vc->deviceSize, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, kHostCoherent, 0, "weft model upload", &temp);
	if (r != WF_OK) {
		DestroyBuffer(ctx, &temp);
		return r;
	}
	char* base = (char*)temp.map;
	memset(base, 0, (size_t)temp.size);
#define REGION(id) (base + (vc->regionOffset[id] - vc->deviceBase))
	memcpy(REGION(WF_VK_REGION_CONSTRAINTS), m->constraints, (size_t)m->constraintCount * sizeof(wfConstraint));
	if (m->tethers != NULL) // after the constraints: con[P.tetherBase + i] (predict.comp, WF_VK_PUSH_TETHER)
		memcpy(REGION(WF_VK_REGION_CONSTRAINTS) + (size_t)m->constraintCount * sizeof(wfConstraint), m->tethers,
			(size_t)m->particleCount * sizeof(wfConstraint));
	// Half-size records for the fused kernel (particle indices below 4096 take 12 bits): a 60x60
	// cloth's 168 KB stay in L1 next to the 48 KB of shared memory, its 336 KB of full ones do not.
	if (m->particleCount <= WF_VK_FUSED_MAX_PARTICLES) {
		uint32_t* packed = (uint32_t*)REGION(WF_VK_REGION_PACKED);
		for (int k = 0; k < m->constraintCount; ++k) {
			const wfConstraint* q = &m->constraints[k];
			uint32_t restBits;
			memcpy(&restBits, &q->rest, sizeof restBits);
			packed[2 * k] = q->a | q->b << 12 | q->family << 24;
			packed[2 * k + 1] = restBits;
		}
	}
	memcpy(REGION(WF_VK_REGION_ADJ_START), m->adjStart, (size_t)(m->particleCount + 1) * sizeof(int));
	// Self-collision's exclusion rule reads the rest shape, the aerodynamics the air shares in w.
	if (RestNeeded(ctx->world))
		memcpy(REGION(WF_VK_REGION_REST), m->restPositions, (size_t)m->particleCount * sizeof(wfVec4));
	memcpy(REGION(WF_VK_REGION_ADJ_CONSTRAINT), m->adjConstraint, (size_t)m->adjStart[m->particleCount] * sizeof(uint32_t));
	memcpy(REGION(WF_VK_REGION_ADJ_OTHER), m->adjOther, (size_t)m->adjStart[m->particleCount] * sizeof(uint32_t));
	memcpy(REGION(WF_VK_REGION_JACOBI_WEIGHT), m->jacobiWeight, (size_t)m->constraintCount * sizeof(float));
	if (m->tileSize > 0) {
		memcpy(REGION(WF_VK_REGION_TILE_START), m->tileStart, (size_t)m->colorCount * (size_t)(m->tileCount + 1) * sizeof(int));
		// Half-size records whose ends are slots of their tile's region (xpbd_tiled.comp).
		uint32_t* packed = (uint32_t*)REGION(WF_VK_REGION_PACKED);
		const uint32_t side = (uint32_t)m->tileSize + 2u, cols = (uint32_t)m->cols;
		for (int g = 0; g < m->tileCount; ++g) {
			int x0, y0;
			wfTileOrigin(m, g, &x0, &y0);
			for (int color = 0; color < m->colorCount; ++color) {
				for (int k = wfTileRange(m, color, g); k < wfTileRange(m, color, g + 1); ++k) {
					const wfConstraint* q = &m->constraints[k];
					const uint32_t sa = (q->a / cols - (uint32_t)y0) * side + q->a % cols - (uint32_t)x0;
					const uint32_t sb = (q->b / cols - (uint32_t)y0) * side + q->b % cols - (uint32_t)x0;
					uint32_t restBits;
					memcpy(&restBits, &q->rest, sizeof restBits);
					packed[2 * k] = sa | sb << 12 | q->family << 24;
					packed[2 * k + 1] = restBits;
				}
			}
		}
	}
	memcpy(REGION(WF_VK_REGION_INDICES), m->indices, (size_t)m->triangleCount * 3 * sizeof(uint32_t));
	// Incident triangles per particle, ascending: the CPU's scatter order.
	int32_t* triStart = (int32_t*)REGION(WF_VK_REGION_TRI_START);
	uint32_t* triList = (uint32_t*)REGION(WF_VK_REGION_TRI_LIST);
	for (int t = 0; t < 3 * m->triangleCount; ++t)
		triStart[m->indices[t] + 1]++;
	for (int i = 0; i < m->particleCount; ++i)
		triStart[i + 1] += triStart[i];
	int32_t* fill = (int32_t*)malloc((size_t)(m->particleCount + 1) * sizeof(int32_t));
	if (fill == NULL) {
		DestroyBuffer(ctx, &temp);
		return wfSetError(ctx->world, WF_ERROR_OUT_OF_MEMORY, "vulkan: out of memory");
	}
	memcpy(fill, triStart, (size_t)m->particleCount * sizeof(int32_t));
	for (int t = 0; t < m->triangleCount; ++t) {
		for (int k = 0; k < 3; ++k)
			triList[fill[m->indices[3 * t + k]]++] = (uint32_t)t;
	}
	free(fill);
#undef REGION
	VkCommandBuffer cmd = VK_NULL_HANDLE;
	r = AllocateCommandBuffer(ctx, "weft model upload", &cmd);
	if (r == WF_OK)
		r = Begin(ctx, cmd);
	if (r == WF_OK) {
		Copy(ctx, cmd, temp.buffer, 0, vc->device.buffer, vc->deviceBase, vc->deviceSize);
		Barrier(ctx, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, kComputeTransfer, kAllReadWrites);
		VkResult vr = ctx->gpu.fd.vkEndCommandBuffer(cmd);
		r = vr == VK_SUCCESS ? SubmitAndWait(ctx, cmd) : wfVkFail(ctx, vr, "vkEndCommandBuffer(model upload)", __FILE__, __LINE__);
	}
	if (cmd != VK_NULL_HANDLE)
		ctx->gpu.fd.vkFreeCommandBuffers(ctx->gpu.device, ctx->commandPool, 1, &cmd);
	DestroyBuffer(ctx, &temp);
	return r;
}

static wfResult Upload(wfWorld* world, wfCloth* c);
static wfResult Download(wfWorld* world, wfCloth* c);

// ------------------------------------------------------------------ arenas (batches of small cloths)

// Vertex usage: a renderer on the same device binds positions and normals as vertex buffers.
static const VkBufferUsageFlags kStateUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
	VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_VERTEX_BUFFER_BIT;

// The largest arena: one storage-buffer binding covers it, and word indices stay in 32 bits.
static VkDeviceSize ArenaLimit(const wfVkContext* ctx)
{
	VkDeviceSize limit = ctx->gpu.properties.limits.maxStorageBufferRange;
	if (limit > ((VkDeviceSize)1 << 31))
		limit = (VkDeviceSize)1 << 31;
	return limit / 256 * 256;
}

// Live cloths other than `except` whose arrays are in an arena.
static int CountArenaCloths(const wfWorld* world, const wfCloth* except)
{
	int n = 0;
	for (int i = 0; i < world->clothCapacity; ++i) {
		const wfCloth* o = &world->cloths[i];
		if (o != except && o->generation != 0 && o->backendData != NULL && ((const wfVkCloth*)o->backendData)->arena >= 0)
			n++;
	}
	return n;
}

// A cloth the fused kernel can step (one workgroup holds it): its arrays go into an arena.
static bool FitsFused(const wfVkContext* ctx, const wfCloth* c)
{
	// Drag and lift read the neighbours' velocities, which the fused kernel keeps in registers.
	const wfAeroDef* aero = &ctx->world->def.aero;
	// Tethers read other particles' positions after the solve, outside the fused kernel's phases.
	// Contacts (wfSelfCollisionDef): the per-range path. Self-collision's hash grid and sorted cell
	// lists (12 bytes a particle, 8 more a cell) do not fit the workgroup's shared memory beside the
	// positions, which already fill it at 4096 particles, and one workgroup would run the sort
	// and scan on 1/132 of the GPU; cloth against cloth needs every cloth at the same substep,
	// while a fused workgroup runs its cloth's whole frame with no sync across workgroups.
	const wfSelfCollisionDef* sc = &ctx->world->def.selfCollision;
	// The tile order (step.order "tiles" on a small grid): relaxed by xpbd_tiled.comp.
	return ctx->fusedAvailable && c->model.particleCount <= WF_VK_FUSED_MAX_PARTICLES && c->model.colorCount <= WF_VK_FUSED_MAX_COLORS &&
		c->model.tileSize == 0 && aero->drag == 0.0f && aero->lift == 0.0f && c->model.tethers == NULL && !sc->enabled &&
		!sc->betweenCloths;
}

// The batch descriptor set of an arena: substep table, slots, and the arena three times.
static void WriteArenaSet(wfVkContext* ctx, const wfVkArena* a)
{
	const VkDeviceSize substeps = WF_VK_FRAME_RECORDS * sizeof(wfVkSubstep);
	VkDescriptorBufferInfo infos[WF_VK_BATCH_BIND_COUNT] = {
		[WF_VK_BATCH_BIND_SUBSTEPS] = {a->table.buffer, 0, substeps},
		[WF_VK_BATCH_BIND_SLOTS] = {a->table.buffer, substeps, (VkDeviceSize)a->slotCapacity * sizeof(wfVkBatchSlot)},
		[WF_VK_BATCH_BIND_VEC4] = {a->buffer.buffer, 0, a->buffer.size},
		[WF_VK_BATCH_BIND_UVEC4] = {a->buffer.buffer, 0, a->buffer.size},
		[WF_VK_BATCH_BIND_WORDS] = {a->buffer.buffer, 0, a->buffer.size},
		[WF_VK_BATCH_BIND_SLOTS_RO] = {a->table.buffer, substeps, (VkDeviceSize)a->slotCapacity * sizeof(wfVkBatchSlot)},
	};
	VkWriteDescriptorSet writes[WF_VK_BATCH_BIND_COUNT];
	for (uint32_t b = 0; b < WF_VK_BATCH_BIND_COUNT; ++b) {
		writes[b] = (VkWriteDescriptorSet){
			.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
			.dstSet = a->set,
			.dstBinding = b,
			.descriptorCount = 1,
			.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
			.pBufferInfo = &infos[b],
		};
	}
	ctx->gpu.fd.vkUpdateDescriptorSets(ctx->gpu.device, WF_VK_BATCH_BIND_COUNT, writes, 0, NULL);
}

// Room for `slots` cloths in the arena's host-visible table (called while recording a frame, when
// nothing is in flight).
static wfResult ArenaReserveSlots(wfVkContext* ctx, wfVkArena* a, uint32_t slots)
{
	if (slots <= a->slotCapacity && a->table.buffer != VK_NULL_HANDLE)
		return WF_OK;
	uint32_t capacity = a->slotCapacity > 0 ? a->slotCapacity : 8;
	while (capacity < slots)
		capacity *= 2;
	DestroyBuffer(ctx, &a->table);
	wfResult r = CreateBuffer(ctx, WF_VK_FRAME_RECORDS * sizeof(wfVkSubstep) + (VkDeviceSize)capacity * sizeof(wfVkBatchSlot),
		VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, kHostCoherent, kDeviceLocal, "weft batch table", &a->table);
	if (r != WF_OK) {
		DestroyBuffer(ctx, &a->table); // a half-made buffer (no memory) must not reach a descriptor
		a->slotCapacity = 0;
		return r;
	}
	a->slotCapacity = capacity;
	if (a->buffer.buffer != VK_NULL_HANDLE)
		WriteArenaSet(ctx, a);
	return WF_OK;
}

static wfResult RecordTransfers(wfVkContext* ctx, const wfCloth* c, wfVkCloth* vc);

// Gives arena `ai` a buffer of `size` bytes; the contents move at the same offsets, and every
// cloth in it gets its descriptor sets and transfer command buffers pointed at the new buffer.
static wfResult ArenaResize(wfVkContext* ctx, wfWorld* world, int ai, VkDeviceSize size)
{
	wfVkArena* a = &ctx->arenas[ai];
	const wfVkDeviceFuncs* f = &ctx->gpu.fd;
	wfVkBuffer grown;
	char name[64];
	snprintf(name, sizeof name, "weft arena %d", ai);
	wfResult r = CreateBuffer(ctx, size, kStateUsage, kDeviceLocal, 0, name, &grown);
	if (r != WF_OK) {
		DestroyBuffer(ctx, &grown);
		return r;
	}
	if (a->buffer.buffer != VK_NULL_HANDLE) {
		WaitIdle(ctx); // steps wait for their fence; this is only belt and braces
		VkCommandBuffer cmd = VK_NULL_HANDLE;
		if (a->top > 0) {
			r = AllocateCommandBuffer(ctx, "weft arena move", &cmd);
			if (r == WF_OK)
				r = Begin(ctx, cmd);
			if (r == WF_OK) {
				Barrier(ctx, cmd, kComputeTransfer, kAllWrites, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
				Copy(ctx, cmd, a->buffer.buffer, 0, grown.buffer, 0, a->top);
				Barrier(ctx, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, kComputeTransfer, kAllReadWrites);
				VkResult vr = f->vkEndCommandBuffer(cmd);
				r = vr == VK_SUCCESS ? SubmitAndWait(ctx, cmd) : wfVkFail(ctx, vr, "vkEndCommandBuffer(arena move)", __FILE__, __LINE__);
			}
			if (cmd != VK_NULL_HANDLE)
				f->vkFreeCommandBuffers(ctx->gpu.device, ctx->commandPool, 1, &cmd);
		}
		if (r != WF_OK) {
			DestroyBuffer(ctx, &grown);
			return r;
		}
		DestroyBuffer(ctx, &a->buffer);
	}
	a->buffer = grown;
	for (int i = 0; i < world->clothCapacity; ++i) {
		wfCloth* c = &world->cloths[i];
		wfVkCloth* vc = (wfVkCloth*)c->backendData;
		if (c->generation == 0 || vc == NULL || vc->arena != ai)
			continue;
		vc->device.buffer = grown.buffer;
		if (vc->descriptorPool != VK_NULL_HANDLE)
			WriteDescriptorSets(ctx, vc);
		VkCommandBuffer cmds[5] = {vc->upload, vc->download, vc->restore, vc->stats, vc->backupDown};
		for (int k = 0; k < 5; ++k) {
			if (cmds[k] != VK_NULL_HANDLE)
				f->vkFreeCommandBuffers(ctx->gpu.device, ctx->commandPool, 1, &cmds[k]);
		}
		vc->upload = vc->download = vc->restore = vc->stats = vc->backupDown = VK_NULL_HANDLE;
		if ((r = RecordTransfers(ctx, c, vc)) != WF_OK)
			return r;
	}
	if (a->set != VK_NULL_HANDLE && a->slotCapacity > 0)
		WriteArenaSet(ctx, a);
	ctx->recorded = false;
	return WF_OK;
}

// A descriptor pool for one set of `buffers` storage buffers, and that set of `layout`.
static wfResult OneSet(wfVkContext* ctx, uint32_t buffers, VkDescriptorSetLayout layout, VkDescriptorPool* pool, VkDescriptorSet* set)
{
	const wfVkDeviceFuncs* f = &ctx->gpu.fd;
	VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, buffers};
	VkDescriptorPoolCreateInfo poolInfo = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
		.maxSets = 1,
		.poolSizeCount = 1,
		.pPoolSizes = &size,
	};
	WF_VK_CHECK(ctx, f->vkCreateDescriptorPool(ctx->gpu.device, &poolInfo, NULL, pool));
	VkDescriptorSetAllocateInfo alloc = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
		.descriptorPool = *pool,
		.descriptorSetCount = 1,
		.pSetLayouts = &layout,
	};
	WF_VK_CHECK(ctx, f->vkAllocateDescriptorSets(ctx->gpu.device, &alloc, set));
	return WF_OK;
}

// Space for `size` bytes of a small cloth's arrays: the last arena (grown when it must), else a new
// one. *arena = -1 when no arena can take it (the cloth then gets its own buffer).
static wfResult ArenaAllocate(wfVkContext* ctx, wfWorld* world, VkDeviceSize size, VkDeviceSize align, int* arena, VkDeviceSize* base)
{
	const VkDeviceSize limit = ArenaLimit(ctx);
	*arena = -1;
	if (size > limit)
		return WF_OK;
	int ai = ctx->arenaCount - 1;
	// A dispatch has at most 65535 workgroups: a full arena sends the next cloth to a new one.
	if (ai >= 0 && ctx->arenas[ai].live < 65535) {
		wfVkArena* a = &ctx->arenas[ai];
		if (a->live == 0)
			a->top = 0;

		VkDeviceSize at = AlignUp(a->top, align);
		if (at + size > a->buffer.size && at + size <= limit) {
			VkDeviceSize grown = a->buffer.size > 0 ? a->buffer.size : WF_VK_ARENA_FIRST_SIZE;
			while (grown < at + size)
				grown *= 2;
			wfResult r = ArenaResize(ctx, world, ai, grown < limit ? grown : limit);
			if (r != WF_OK)
				return r;
		}
		if (at + size <= a->buffer.size) {
			a->top = at + size;
			a->live++;
			*arena = ai;
			*base = at;
			return WF_OK;
		}
	}
	if (ctx->arenaCount == WF_VK_MAX_ARENAS)
		return WF_OK;
	ai = ctx->arenaCount;
	wfVkArena* a = &ctx->arenas[ai];
	memset(a, 0, sizeof *a);
	ctx->arenaCount++; // from here on destroyed with the world, whatever fails below
	wfResult made = OneSet(ctx, WF_VK_BATCH_BIND_COUNT, ctx->batchSetLayout, &a->pool, &a->set);
	if (made != WF_OK)
		return made;
	wfResult r = ArenaReserveSlots(ctx, a, 8);
	VkDeviceSize first = WF_VK_ARENA_FIRST_SIZE;
	while (first < size)
		first *= 2;
	if (r == WF_OK)
		r = ArenaResize(ctx, world, ai, first < limit ? first : limit);
	if (r != WF_OK)
		return r;
	a->top = size;
	a->live = 1;
	*arena = ai;
	*base = 0;
	return WF_OK;
}

static void DestroyArenas(wfVkContext* ctx)
{
	for (int ai = 0; ai < ctx->arenaCount; ++ai) {
		wfVkArena* a = &ctx->arenas[ai];
		DestroyBuffer(ctx, &a->buffer);
		DestroyBuffer(ctx, &a->table);
		if (a->pool != VK_NULL_HANDLE)
			ctx->gpu.fd.vkDestroyDescriptorPool(ctx->gpu.device, a->pool, NULL);
	}
	ctx->arenaCount = 0;
}

// ------------------------------------------------------------------ contacts (self-collision, cloth against cloth)

// Words of the cell array for `length` counts: the counts, then each scan level's block sums (a
// level of more than one block is scanned again), the last level's single total.
static VkDeviceSize ScanWords(VkDeviceSize length)
{
	VkDeviceSize words = 0;
	for (;;) {
		words += length;
		if (length <= WF_VK_SCAN_BLOCK)
			return words + 1;
		length = (length + WF_VK_SCAN_BLOCK - 1) / WF_VK_SCAN_BLOCK;
	}
}

static void DestroyContacts(wfVkContext* ctx)
{
	wfVkContacts* k = &ctx->contacts;
	DestroyBuffer(ctx, &k->device);
	DestroyBuffer(ctx, &k->params);
	if (k->pool != VK_NULL_HANDLE)
		ctx->gpu.fd.vkDestroyDescriptorPool(ctx->gpu.device, k->pool, NULL);
	k->pool = VK_NULL_HANDLE;
	k->set = VK_NULL_HANDLE;
}

// Room in the world's contact arrays for cloth c (before it is added): its own hash for
// self-collision, and with betweenCloths the world's particles, the capacity following the CPU's
// rule (it grows to the live particles when they pass it, and never shrinks) so that the hash has
// the CPU's size. The arrays are made again when they grow; the frame is then re-recorded.
static wfResult ContactsReserve(wfVkContext* ctx, const wfWorld* world, const wfCloth* c)
{
	const wfSelfCollisionDef* sc = &world->def.selfCollision;
	wfVkContacts* k = &ctx->contacts;
	const wfVkDeviceFuncs* f = &ctx->gpu.fd;
	const int n = c->model.particleCount;
	int particles = k->particles;
	uint32_t cells = k->cells;
	if (sc->enabled) {
		particles = n > particles ? n : particles;
		cells = (uint32_t)c->state.hashSize > cells ? (uint32_t)c->state.hashSize : cells;
	}
	if (sc->betweenCloths) {
		if (k->worldParticles + n > k->worldCapacity) {
			k->worldCapacity = k->worldParticles + n;
			uint32_t h = 1;
			while (h < 2u * (uint32_t)k->worldCapacity)
				h *= 2;
			k->worldHash = h;
		}
		particles = k->worldCapacity > particles ? k->worldCapacity : particles;
		cells = k->worldHash > cells ? k->worldHash : cells;
	}
	if (particles <= k->particles && cells <= k->cells && k->device.buffer != VK_NULL_HANDLE)
		return WF_OK;
	WaitIdle(ctx); // steps wait for their fence; belt and braces before the old arrays go
	DestroyBuffer(ctx, &k->device);
	const VkDeviceSize np = (VkDeviceSize)particles, world4 = sc->betweenCloths ? np * 16 : 0;
	const VkDeviceSize sizes[WF_VK_CONTACT_BIND_COUNT] = {
		[WF_VK_CONTACT_BIND_KEY] = np * 4,
		[WF_VK_CONTACT_BIND_RANK] = np * 4,
		[WF_VK_CONTACT_BIND_CELLS] = ScanWords((VkDeviceSize)cells + 1) * 4,
		[WF_VK_CONTACT_BIND_SORTED] = np * 4,
		[WF_VK_CONTACT_BIND_DELTA] = np * 16,
		[WF_VK_CONTACT_BIND_X] = world4,
		[WF_VK_CONTACT_BIND_MOTION] = world4,
		[WF_VK_CONTACT_BIND_OWNER] = sc->betweenCloths ? np * 4 : 0,
	};
	VkDeviceSize align = ctx->gpu.properties.limits.minStorageBufferOffsetAlignment;
	if (align < 256)
		align = 256;
	VkDeviceSize total = 0;
	for (int b = 1; b < WF_VK_CONTACT_BIND_COUNT; ++b) {
		k->offset[b] = total;
		k->size[b] = sizes[b] > 16 ? sizes[b] : 16;
		total = AlignUp(total + k->size[b], align);
	}
	wfResult r = CreateBuffer(ctx, total, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, kDeviceLocal, 0, "weft contacts", &k->device);
	if (r != WF_OK) {
		DestroyBuffer(ctx, &k->device);
		k->particles = 0;
		k->cells = 0;
		return r;
	}
	k->particles = particles;
	k->cells = cells;
	if (k->params.buffer == VK_NULL_HANDLE) {
		// The constants, with the CPU's expressions (cpu_self.c); SetSelfCollision writes them again.
		r = CreateBuffer(ctx, sizeof(wfVkContactParams), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, kHostCoherent, kDeviceLocal,
			"weft contact params", &k->params);
		if (r != WF_OK)
			return r;
		wfVkContactParams cp;
		cp.distance = 2.0f * sc->thickness;
		cp.invCell = 1.0f / cp.distance;
		cp.exclude = sc->exclusion * cp.distance;
		cp.friction = sc->friction;
		memcpy(k->params.map, &cp, sizeof cp);
		r = OneSet(ctx, WF_VK_CONTACT_BIND_COUNT, ctx->contactSetLayout, &k->pool, &k->set);
		if (r != WF_OK)
			return r;
	}
	VkDescriptorBufferInfo infos[WF_VK_CONTACT_BIND_COUNT];
	VkWriteDescriptorSet writes[WF_VK_CONTACT_BIND_COUNT];
	infos[WF_VK_CONTACT_BIND_PARAMS] = (VkDescriptorBufferInfo){k->params.buffer, 0, sizeof(wfVkContactParams)};
	for (uint32_t b = 0; b < WF_VK_CONTACT_BIND_COUNT; ++b) {
		if (b != WF_VK_CONTACT_BIND_PARAMS)
			infos[b] = (VkDescriptorBufferInfo){k->device.buffer, k->offset[b], k->size[b]};
		writes[b] = (VkWriteDescriptorSet){
			.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
			.dstSet = k->set,
			.dstBinding = b,
			.descriptorCount = 1,
			.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
			.pBufferInfo = &infos[b],
		};
	}
	f->vkUpdateDescriptorSets(ctx->gpu.device, WF_VK_CONTACT_BIND_COUNT, writes, 0, NULL);
	ctx->recorded = false;
	return WF_OK;
}

static wfResult AddCloth(wfWorld* world, wfCloth* c)
{
	wfVkContext* ctx = (wfVkContext*)world->backendData;
	wfVkCloth* vc = (wfVkCloth*)calloc(1, sizeof *vc);
	if (vc == NULL)
		return wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "vulkan: out of memory");
	c->backendData = vc; // removeCloth cleans up whatever was created if a step below fails
	vc->arena = -1;
	vc->slot = -1;
	const wfClothModel* m = &c->model;
	vc->reach = !m->mesh && m->particleCount == m->cols * m->rows ? 0 : INT_MAX;
	for (int i = 0; vc->reach < INT_MAX && i < m->particleCount; ++i) {
		for (int e = m->adjStart[i]; e < m->adjStart[i + 1]; ++e) {
			const int o = (int)m->adjOther[e], dx = abs(o % m->cols - i % m->cols), dy = abs(o / m->cols - i / m->cols);
			vc->reach = dx > vc->reach ? dx : vc->reach;
			vc->reach = dy > vc->reach ? dy : vc->reach;
		}
	}
	const VkDeviceSize n = (VkDeviceSize)m->particleCount, k = (VkDeviceSize)m->constraintCount, t = (VkDeviceSize)m->triangleCount;
	const VkDeviceSize v4 = n * sizeof(wfVec4);
	vc->particleGroups = (uint32_t)((n + WF_VK_GROUP_SIZE - 1) / WF_VK_GROUP_SIZE);
	vc->constraintGroups = (uint32_t)((k + WF_VK_GROUP_SIZE - 1) / WF_VK_GROUP_SIZE);
	const VkDeviceSize partials = (VkDeviceSize)(vc->particleGroups + vc->constraintGroups) * sizeof(wfVkPartial);
	VkDeviceSize sizes[WF_VK_REGION_COUNT] = {
		[WF_VK_REGION_POS_A] = v4,
		[WF_VK_REGION_VEL_A] = v4,
		[WF_VK_REGION_POS_B] = v4,
		[WF_VK_REGION_VEL_B] = v4,
		[WF_VK_REGION_PREV] = v4,
		[WF_VK_REGION_LAMBDA] = k * 4,
		[WF_VK_REGION_CONSTRAINTS] = (k + (m->tethers != NULL ? n : 0)) * 16,
		[WF_VK_REGION_ADJ_START] = (n + 1) * 4,
		[WF_VK_REGION_ADJ_CONSTRAINT] = 2 * k * 4,
		[WF_VK_REGION_ADJ_OTHER] = 2 * k * 4,
		[WF_VK_REGION_JACOBI_WEIGHT] = k * 4,
		[WF_VK_REGION_NORMALS] = v4,
		[WF_VK_REGION_TRI_START] = (n + 1) * 4,
		[WF_VK_REGION_TRI_LIST] = 3 * t * 4,
		[WF_VK_REGION_INDICES] = 3 * t * 4,
		[WF_VK_REGION_BACKUP_POS] = v4,
		[WF_VK_REGION_BACKUP_VEL] = v4,
		[WF_VK_REGION_STATUS] = sizeof(wfVkStatus),
		[WF_VK_REGION_PARTIALS] = partials,
		[WF_VK_REGION_PACKED] = k * 8,
		[WF_VK_REGION_REST] = RestNeeded(world) ? v4 : 0,
		[WF_VK_REGION_TILE_START] = m->tileSize > 0 ? (VkDeviceSize)m->colorCount * (VkDeviceSize)(m->tileCount + 1) * 4 : 0,
	};
	VkDeviceSize align = ctx->gpu.properties.limits.minStorageBufferOffsetAlignment;
	if (align < 256)
		align = 256;
	VkDeviceSize total = 0;
	for (int r = 0; r < WF_VK_REGION_COUNT; ++r) {
		vc->regionOffset[r] = total;
		vc->regionSize[r] = sizes[r] > 16 ? sizes[r] : 16; // an empty array still binds 16 bytes
		total = AlignUp(total + vc->regionSize[r], align);
	}
	// Limits before work: the cloth's arrays must fit the largest device-local heap (the raw
	// allocation failure would name only a Vulkan call).
	VkDeviceSize heap = 0;
	for (uint32_t h = 0; h < ctx->gpu.memory.memoryHeapCount; ++h) {
		if ((ctx->gpu.memory.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) && ctx->gpu.memory.memoryHeaps[h].size > heap)
			heap = ctx->gpu.memory.memoryHeaps[h].size;
	}
	if (heap > 0 && total > heap)
		return wfSetError(world, WF_ERROR_OUT_OF_MEMORY,
			"%d x %d particles need %.1f MB of device memory; %s has %.1f MB (its largest device-local heap)", c->model.cols, c->model.rows,
			(double)total / 1e6, ctx->gpu.properties.deviceName, (double)heap / 1e6);
	char name[64];
	wfResult r;
	const wfSelfCollisionDef* sc = &world->def.selfCollision;
	if ((sc->enabled || sc->betweenCloths) && (r = ContactsReserve(ctx, world, c)) != WF_OK)
		return r;
	if (sc->betweenCloths) {
		ctx->contacts.worldParticles += m->particleCount;
		vc->inContacts = true;
	}
	// A small cloth's arrays go into an arena (batched with the others), a large one's into its own buffer.
	int arena = -1;
	VkDeviceSize base = 0;
	if (FitsFused(ctx, c) && (r = ArenaAllocate(ctx, world, total, align, &arena, &base)) != WF_OK)
		return r;
	vc->deviceSize = total;
	if (arena >= 0) {
		vc->arena = arena;
		vc->deviceBase = base;
		vc->device = (wfVkBuffer){ctx->arenas[arena].buffer.buffer, VK_NULL_HANDLE, total, NULL};
		for (int reg = 0; reg < WF_VK_REGION_COUNT; ++reg)
			vc->regionOffset[reg] += base;
	} else {
		snprintf(name, sizeof name, "weft cloth %d state", c->index);
		r = CreateBuffer(ctx, total, kStateUsage, kDeviceLocal, 0, name, &vc->device);
		if (r != WF_OK)
			return r;
	}
	snprintf(name, sizeof name, "weft cloth %d staging", c->index);
	// Read back by the host: cached where there is such memory.
	vc->stagingPartials = AlignUp(WF_VK_STAGING_DATA + 3 * v4, 16);
	r = CreateBuffer(ctx, vc->stagingPartials + partials, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
		kHostCoherent, VK_MEMORY_PROPERTY_HOST_CACHED_BIT, name, &vc->staging);
	if (r != WF_OK)
		return r;
	snprintf(name, sizeof name, "weft cloth %d frame", c->index);
	// Read by every kernel: device-local where the host can also write it (resizable BAR), so the
	// kernels do not fetch their parameters across the bus.
	// Batched cloths keep their substep table in the arena; the first small cloth of a world gets a
	// full frame buffer as well, so that it can take the per-range path while it is alone (see
	// UsesFused).
	vc->frameSubsteps = vc->arena >= 0 && ctx->arenas[vc->arena].set != VK_NULL_HANDLE && !ctx->fusedDisabled &&
			(ctx->fusedForced || CountArenaCloths(world, c) > 0)
		? 1
		: WF_VK_MAX_SUBSTEPS;
	vc->statsParamsOffset = AlignUp(sizeof(wfVkClothParams) + FrameRecords(vc) * sizeof(wfVkSubstep), align);
	r = CreateBuffer(ctx, vc->statsParamsOffset + sizeof(wfVkStatsParams), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, kHostCoherent, kDeviceLocal,
		name, &vc->frame);
	if (r != WF_OK)
		return r;
	if ((r = CreateDescriptorSets(ctx, vc)) != WF_OK || (r = RecordTransfers(ctx, c, vc)) != WF_OK ||
		(r = UploadModel(ctx, c, vc)) != WF_OK)
		return r;
	ctx->clothSetVersion++;
	return Upload(world, c);
}

static void RemoveCloth(wfWorld* world, wfCloth* c)
{
	wfVkContext* ctx = (wfVkContext*)world->backendData;
	wfVkCloth* vc = (wfVkCloth*)c->backendData;
	if (vc == NULL)
		return;
	// Steps wait for their fence, so nothing should be running; a failure here (a lost device)
	// changes nothing about what must be freed.
	WaitIdle(ctx);
	VkCommandBuffer cmds[5] = {vc->upload, vc->download, vc->restore, vc->stats, vc->backupDown};
	for (int i = 0; i < 5; ++i) {
		if (cmds[i] != VK_NULL_HANDLE)
			ctx->gpu.fd.vkFreeCommandBuffers(ctx->gpu.device, ctx->commandPool, 1, &cmds[i]);
	}
	if (vc->descriptorPool != VK_NULL_HANDLE)
		ctx->gpu.fd.vkDestroyDescriptorPool(ctx->gpu.device, vc->descriptorPool, NULL);
	if (vc->arena >= 0)
		ctx->arenas[vc->arena].live--; // the space comes back when the arena is empty
	else
		DestroyBuffer(ctx, &vc->device);
	DestroyBuffer(ctx, &vc->staging);
	DestroyBuffer(ctx, &vc->frame);
	if (vc->inContacts)
		ctx->contacts.worldParticles -= c->model.particleCount;
	free(vc);
	c->backendData = NULL;
	ctx->clothSetVersion++;
	ctx->recorded = false;
}

// ------------------------------------------------------------------ the frame command buffer

typedef struct Recorder {
	wfVkContext* ctx;
	VkCommandBuffer cmd;
	const wfVkCloth* cloth;
	VkPipeline bound;
	int set;
	int dispatches;
	bool timing;    // stage timing: a timestamp at every change of stage
	wfStage stage;  // the stage of the work recorded since the last mark
	uint32_t marks; // stage marks written (queries 2 .. 2 + marks - 1)
} Recorder;

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
}

// One dispatch of `groups` workgroups with the given push constants; more than 65535 groups spill
// into y.
static void DispatchGroups(Recorder* rec, int pipe, wfVkPush push, uint32_t groups)
{
	if (groups == 0)
		return;
	const wfVkDeviceFuncs* f = &rec->ctx->gpu.fd;
	VkPipeline p = rec->ctx->pipelines[pipe];
	if (rec->bound != p) {
		f->vkCmdBindPipeline(rec->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p);
		rec->bound = p;
	}
	f->vkCmdPushConstants(rec->cmd, rec->ctx->pipelineLayout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
	uint32_t x = groups < 65535u ? groups : 65535u;
	uint32_t y = (groups + x - 1) / x;
	f->vkCmdDispatch(rec->cmd, x, y, 1);
	rec->dispatches++;
}

// One dispatch over elements [first, first + count), WF_VK_GROUP_SIZE to a workgroup.
static void Dispatch(Recorder* rec, int pipe, uint32_t first, uint32_t count, uint32_t substep, uint32_t flags)
{
	DispatchGroups(rec, pipe, (wfVkPush){first, count, substep, flags}, (count + WF_VK_GROUP_SIZE - 1) / WF_VK_GROUP_SIZE);
}

// Whether a cloth is stepped by the fused kernel: its arrays are in an arena (it fits a workgroup).
// WEFT_VK_FUSED=0 (or a test's switch) sends it down the per-range path, unless its frame buffer
// has no room for the per-range path's substep records (the switch came after it was created).
// A springs or Jacobi cloth alone in its world also takes the per-range path: one workgroup's
// gathers are slower than the whole GPU's dispatches there (H200: compute-cloth 1.55 ms fused
// against 0.43 ms per range, spring-mesh 0.39 against 0.20), while XPBD gains (60x60, 64
// substeps: 1.63 against 2.62 ms) and every solver gains from four cloths on.
static bool UsesFused(const wfVkContext* ctx, const wfCloth* c)
{
	const wfVkCloth* vc = (const wfVkCloth*)c->backendData;
	if (!ctx->fusedAvailable || vc->arena < 0 || ctx->arenas[vc->arena].set == VK_NULL_HANDLE)
		return false;
	if (vc->frameSubsteps < WF_VK_MAX_SUBSTEPS)
		return true; // a batched cloth: the arena's table holds its substeps
	if (ctx->fusedDisabled)
		return false;
	const wfWorld* world = ctx->world;
	return ctx->fusedForced || world->def.step.solver == WF_SOLVER_XPBD || CountArenaCloths(world, c) > 0;
}

static int FusedSizeIndex(int particles)
{
	int k = 0;
	while (k + 1 < WF_VK_FUSED_GROUP_SIZES && (32 << k) * WF_VK_FUSED_PER_THREAD < particles)
		++k;
	return k;
}

// Floats of the shared array of a fused pipeline: 12 per invocation within the device's limit.
static uint32_t FusedSharedFloats(const wfVkContext* ctx, int sizeIndex)
{
	uint32_t floats = WF_VK_FUSED_PER_THREAD * 3u * (32u << sizeIndex);
	uint32_t room = ctx->fusedSharedFloats - WF_VK_FUSED_SHARED_WORDS; // the kernel's other shared words
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
			if (c->generation == 0 || vc->arena != ai || !UsesFused(ctx, c) || a->slots == 65535)
				continue;
			vc->slot = a->slots++;
			int k = FusedSizeIndex(c->model.particleCount);
			a->sizeIndex = k > a->sizeIndex ? k : a->sizeIndex;
		}
		wfResult r = a->slots > 0 ? ArenaReserveSlots(ctx, a, (uint32_t)a->slots) : WF_OK;
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
	wfVkPush push = {(uint32_t)step->iterations, (uint32_t)step->substeps, 0u, 0u};
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
	Barrier(ctx, rec->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
		VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
	Copy(ctx, rec->cmd, vc->device.buffer, vc->regionOffset[WF_VK_REGION_POS_B], vc->device.buffer, vc->regionOffset[WF_VK_REGION_POS_A],
		bytes);
	if (velocities)
		Copy(ctx, rec->cmd, vc->device.buffer, vc->regionOffset[WF_VK_REGION_VEL_B], vc->device.buffer,
			vc->regionOffset[WF_VK_REGION_VEL_A], bytes);
	Barrier(ctx, rec->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
		VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

// The tether pass after a substep's solve (predict.comp, WF_VK_PUSH_TETHER), where the cloth has them.
static void RecordTethers(Recorder* rec, const wfCloth* c, uint32_t n, uint32_t sub, uint32_t flags)
{
	if (c->model.tethers == NULL)
		return;
	Dispatch(rec, WF_VK_PIPE_PREDICT, 0, n, sub, WF_VK_PUSH_TETHER | flags);
	ComputeBarrier(rec->ctx, rec->cmd);
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
// its sum written after the array, those sums scanned the same way (recursively, until one block
// holds them), then added back. 129 blocks and one of sums for a 256 x 256 cloth's 131 073 counts.
static void RecordScan(Recorder* rec, uint32_t at, uint32_t length)
{
	const uint32_t groups = (length + WF_VK_SCAN_BLOCK - 1) / WF_VK_SCAN_BLOCK;
	DispatchGroups(rec, WF_VK_PIPE_CONTACT_SCAN, (wfVkPush){at, length, at + length, WF_VK_CONTACT_SCAN_UP}, groups);
	ComputeBarrier(rec->ctx, rec->cmd);
	if (groups <= 1)
		return;
	RecordScan(rec, at + length, groups);
	DispatchGroups(rec, WF_VK_PIPE_CONTACT_SCAN, (wfVkPush){at, length, at + length, WF_VK_CONTACT_SCAN_DOWN}, groups);
	ComputeBarrier(rec->ctx, rec->cmd);
}

// The hash grid of `count` particles over `cells` cells (cpu_self.c SortByCell): counts cleared,
// keys and ranks (atomicAdd), the prefix sum into cell starts, the scatter, each cell's list
// sorted. `world`: the particles are the world's arrays (WF_VK_CONTACT_WORLD), else the bound
// cloth's positions.
static void RecordGrid(Recorder* rec, uint32_t count, uint32_t cells, uint32_t world)
{
	const wfVkContext* ctx = rec->ctx;
	const uint32_t mask = cells - 1u;
	Dispatch(rec, WF_VK_PIPE_CONTACT_GRID, 0, cells + 1u, mask, WF_VK_CONTACT_CLEAR);
	ComputeBarrier(ctx, rec->cmd);
	Dispatch(rec, WF_VK_PIPE_CONTACT_GRID, 0, count, mask, WF_VK_CONTACT_KEYS | world);
	ComputeBarrier(ctx, rec->cmd);
	RecordScan(rec, 0, cells + 1u);
	Dispatch(rec, WF_VK_PIPE_CONTACT_GRID, 0, count, mask, WF_VK_CONTACT_SCATTER);
	ComputeBarrier(ctx, rec->cmd);
	Dispatch(rec, WF_VK_PIPE_CONTACT_GRID, 0, cells, mask, WF_VK_CONTACT_SORT);
	ComputeBarrier(ctx, rec->cmd);
}

// Self-collision of the bound cloth after its solve (wfCpuSelfCollide): its hash (the CPU's size,
// wfClothState.hashSize), the gather into delta, and for springs the move (XPBD and Jacobi move
// the particles in finish_self.comp). Friction from the substep's motion, except for
// springs, whose prev holds forces.
static void RecordSelfCollision(Recorder* rec, const wfWorld* world, const wfCloth* c, bool apply)
{
	const wfSelfCollisionDef* sc = &world->def.selfCollision;
	if (!sc->enabled)
		return;
	const uint32_t n = (uint32_t)c->model.particleCount, cells = (uint32_t)c->state.hashSize;
	const bool friction = sc->friction > 0.0f && world->def.step.solver != WF_SOLVER_SPRINGS;
	BeginStage(rec, WF_STAGE_SOLVE);
	RecordGrid(rec, n, cells, 0u);
	Dispatch(rec, WF_VK_PIPE_CONTACT_GATHER, 0, n, cells - 1u, friction ? WF_VK_CONTACT_FRICTION : 0u);
	ComputeBarrier(rec->ctx, rec->cmd);
	if (apply) {
		Dispatch(rec, WF_VK_PIPE_CONTACT_GRID, 0, n, cells - 1u, WF_VK_CONTACT_APPLY);
		ComputeBarrier(rec->ctx, rec->cmd);
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
	Dispatch(rec, WF_VK_PIPE_PREDICT, 0, (uint32_t)c->model.particleCount, 0, WF_VK_PUSH_SHIFT);
	ComputeBarrier(rec->ctx, rec->cmd);
}

// One XPBD iteration: a dispatch per solve range (wfClothModel), or in the tile order a dispatch of
// xpbd_tiled.comp per tile colour (world->tileSubsteps = 1: a dispatch per range instead, the same
// bits; for tests).
static void RecordXpbdIteration(Recorder* rec, const wfWorld* world, const wfClothModel* m, uint32_t sub, uint32_t flags)
{
	const wfVkContext* ctx = rec->ctx;
	if (m->tileSize == 0 || world->tileSubsteps == 1 || m->colorCount > WF_VK_XPBD_TILE_COLORS) {
		for (int r = 0; r < m->solveRangeCount; ++r) {
			const uint32_t first = (uint32_t)m->solveRange[2 * r], end = (uint32_t)m->solveRange[2 * r + 1];
			Dispatch(rec, WF_VK_PIPE_XPBD_SOLVE, first, end - first, sub, flags);
			ComputeBarrier(ctx, rec->cmd);
		}
		return;
	}
	_Static_assert(WF_TILE_COLORS == 4, "xpbd_tiled.comp takes the tile colour in two bits");
	for (int tc = 0; tc < WF_TILE_COLORS; ++tc) {
		const int from = m->tileColorFirst[tc], to = m->tileColorFirst[tc + 1];
		if (to > from) {
			const uint32_t packed = flags | (uint32_t)tc << 8 | (uint32_t)m->colorCount << 16;
			DispatchGroups(rec, WF_VK_PIPE_XPBD_TILED, (wfVkPush){(uint32_t)from, (uint32_t)m->tileCount + 1u, sub, packed},
				(uint32_t)(to - from));
			ComputeBarrier(ctx, rec->cmd);
		}
	}
}

// Substep s of a cloth.
static void RecordClothSubstep(Recorder* rec, const wfWorld* world, const wfCloth* c, int s)
{
	const wfVkContext* ctx = rec->ctx;
	const wfStepDef* step = &world->def.step;
	const uint32_t n = (uint32_t)c->model.particleCount;
	// A small cloth whose particles have at most WF_VK_GATHER_WIDE neighbours gathers them in one batch.
	const bool wide = n <= WF_VK_GATHER_WIDE_MAX_PARTICLES && c->model.maxDegree <= WF_VK_GATHER_WIDE;
	const bool aero = world->def.aero.drag != 0.0f || world->def.aero.lift != 0.0f;
	const int finish = world->def.selfCollision.enabled ? WF_VK_PIPE_FINISH_SELF : WF_VK_PIPE_FINISH;
	const uint32_t sub = (uint32_t)s;
	UseCloth(rec, c);
	UseSet(rec, step->solver == WF_SOLVER_SPRINGS ? (s & 1) : 0);
	if (aero) {
		// Drag and lift from the substep-start state into prev, read by predict or springs.
		BeginStage(rec, WF_STAGE_PREDICT);
		Dispatch(rec, WF_VK_PIPE_PREDICT, 0, n, sub, WF_VK_PUSH_AERO);
		ComputeBarrier(ctx, rec->cmd);
	}
	switch (step->solver) {
	case WF_SOLVER_XPBD:
		// Gauss-Seidel across colours: each colour range sees the corrections of the previous one.
		BeginStage(rec, WF_STAGE_PREDICT);
		Dispatch(rec, WF_VK_PIPE_PREDICT, 0, n, sub, WF_VK_PUSH_DAMPED);
		ComputeBarrier(ctx, rec->cmd);
		BeginStage(rec, WF_STAGE_SOLVE);
		for (int it = 0; it < step->iterations; ++it)
			RecordXpbdIteration(rec, world, &c->model, sub, it == 0 ? WF_VK_PUSH_FIRST_ITERATION : 0u);
		RecordTethers(rec, c, n, sub, 0);
		RecordSelfCollision(rec, world, c, false);
		BeginStage(rec, WF_STAGE_FINISH);
		Dispatch(rec, finish, 0, n, sub, 0);
		ComputeBarrier(ctx, rec->cmd);
		break;
	case WF_SOLVER_JACOBI:
		BeginStage(rec, WF_STAGE_PREDICT);
		Dispatch(rec, WF_VK_PIPE_PREDICT, 0, n, sub, 0);
		ComputeBarrier(ctx, rec->cmd);
		BeginStage(rec, WF_STAGE_SOLVE);
		// Sweeps alternate A -> B and B -> A; an even count lands the result in A, an odd one is
		// copied back (as the CPU's copy of pos2 into pos).
		for (int it = 0; it < step->iterations; ++it) {
			UseSet(rec, it & 1);
			Dispatch(rec, wide ? WF_VK_PIPE_JACOBI_SWEEP_WIDE : WF_VK_PIPE_JACOBI_SWEEP, 0, n, sub, 0);
			ComputeBarrier(ctx, rec->cmd);
		}
		if (step->iterations & 1)
			CopyBackToA(rec, n, false);
		UseSet(rec, 0);
		RecordTethers(rec, c, n, sub, 0);
		RecordSelfCollision(rec, world, c, false);
		BeginStage(rec, WF_STAGE_FINISH);
		Dispatch(rec, finish, 0, n, sub, 0);
		ComputeBarrier(ctx, rec->cmd);
		break;
	case WF_SOLVER_SPRINGS:
		// Substep s reads the pair written by substep s - 1. One kernel does the forces, the
		// integration and the collisions: all of it counts as SOLVE.
		BeginStage(rec, WF_STAGE_SOLVE);
		Dispatch(rec, wide ? WF_VK_PIPE_SPRINGS_WIDE : WF_VK_PIPE_SPRINGS, 0, n, sub, 0);
		ComputeBarrier(ctx, rec->cmd);
		UseSet(rec, (s + 1) & 1); // the pair just written
		RecordTethers(rec, c, n, sub, WF_VK_PUSH_TETHER_VEL);
		RecordSelfCollision(rec, world, c, true);
		break;
	}
}

// Whether nothing of cloth c's substeps needs the whole cloth between its stages (drag and lift,
// tethers, self-collision), so that tiles can step it, and
// whether it is small enough for them to win. Not on a CPU device (lavapipe) unless asked for
// (tileSubsteps > 1): there a dispatch costs little and the tiles' repeated halo work is paid
// in full (lavapipe, spring-mesh's document test: 3.5 s per stage, 23 s in tiles).
static bool TilesAllowed(const wfWorld* world, const wfCloth* c)
{
	const bool aero = world->def.aero.drag != 0.0f || world->def.aero.lift != 0.0f;
	const bool device = world->tileSubsteps > 1 || (world->tileSubsteps == 0 && !world->cpuDevice);
	return device && !aero && !world->def.selfCollision.enabled && c->model.tethers == NULL &&
		c->model.particleCount <= WF_VK_TILE_MAX_PARTICLES;
}

// How many springs substeps one tiled dispatch may take for cloth c (springs_tiled.comp), or 1 (a
// dispatch per substep): a grid of at most WF_VK_TILE_MAX_PARTICLES whose springs join neighbours
// one step apart (a torn cloth is no longer a grid: wfVkCloth.reach), and TilesAllowed. The
// counts are odd, so each dispatch swaps the pair as that many substeps do.
static int SpringsTileSubsteps(const wfWorld* world, const wfCloth* c)
{
	if (world->def.step.solver != WF_SOLVER_SPRINGS || !TilesAllowed(world, c) || c->model.maxDegree > WF_VK_GATHER_WIDE ||
		((const wfVkCloth*)c->backendData)->reach > 1)
		return 1;
	int most = world->tileSubsteps > 0 ? world->tileSubsteps : WF_VK_TILE_HALO;
	most = most < WF_VK_TILE_HALO ? most : WF_VK_TILE_HALO;
	return (most & 1) ? most : most - 1; // the largest odd count allowed
}

// Every substep of a springs cloth in tiles, up to `most` (odd) substeps per dispatch: odd counts,
// so that after each dispatch the state is in the buffers substep by substep would leave it in.
static void RecordSpringsTiled(Recorder* rec, const wfWorld* world, const wfCloth* c, int most)
{
	const int substeps = world->def.step.substeps;
	const uint32_t tilesX = (uint32_t)(c->model.cols + WF_VK_TILE - 1) / WF_VK_TILE;
	const uint32_t tilesY = (uint32_t)(c->model.rows + WF_VK_TILE - 1) / WF_VK_TILE;
	UseCloth(rec, c);
	BeginStage(rec, WF_STAGE_SOLVE);
	for (int s = 0; s < substeps;) {
		const int left = substeps - s;
		const int count = left >= most ? most : (left & 1) ? left : left - 1;
		UseSet(rec, s & 1);
		DispatchGroups(rec, WF_VK_PIPE_SPRINGS_TILED, (wfVkPush){tilesX, (uint32_t)count, (uint32_t)s, 0}, tilesX * tilesY);
		ComputeBarrier(rec->ctx, rec->cmd);
		s += count;
	}
}

// The most Jacobi substeps one tiled dispatch may take for cloth c (jacobi_tiled.comp), or 0:
// a grid of at most WF_VK_TILE_JACOBI_MAX_PARTICLES whose particles have at most
// WF_VK_TILE_JACOBI_DEGREE constraints, all within the halo's
// reach for a whole substep's sweeps, with substeps enough for an even number of dispatches of
// one or more (that leaves the state in A, as the frame end expects), and TilesAllowed.
static int JacobiTileSubsteps(const wfWorld* world, const wfCloth* c)
{
	const wfStepDef* step = &world->def.step;
	const int reach = ((const wfVkCloth*)c->backendData)->reach;
	if (step->solver != WF_SOLVER_JACOBI || !TilesAllowed(world, c) || c->model.particleCount > WF_VK_TILE_JACOBI_MAX_PARTICLES ||
		c->model.maxDegree > WF_VK_TILE_JACOBI_DEGREE || reach < 1 || reach > WF_VK_TILE_JACOBI_HALO || step->substeps < 2)
		return 0;
	int most = WF_VK_TILE_JACOBI_HALO / (step->iterations * reach);
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
	const uint32_t tilesX = (uint32_t)(c->model.cols + WF_VK_TILE - 1) / WF_VK_TILE;
	const uint32_t tilesY = (uint32_t)(c->model.rows + WF_VK_TILE - 1) / WF_VK_TILE;
	const uint32_t reach = (uint32_t)((const wfVkCloth*)c->backendData)->reach;
	UseCloth(rec, c);
	BeginStage(rec, WF_STAGE_SOLVE);
	for (int d = 0, s = 0; d < dispatches; ++d) {
		const int count = substeps / dispatches + (d < substeps % dispatches ? 1 : 0);
		UseSet(rec, d & 1);
		DispatchGroups(rec, WF_VK_PIPE_JACOBI_TILED,
			(wfVkPush){(uint32_t)world->def.step.iterations, (uint32_t)count, (uint32_t)s, tilesX | reach << 16}, tilesX * tilesY);
		ComputeBarrier(rec->ctx, rec->cmd);
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
	const uint32_t per = (uint32_t)n > WF_VK_CHECK_SPREAD_ABOVE ? WF_VK_CHECK_PER_THREAD_LARGE : 1u;
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
	const uint32_t base = EachClothContacts(rec, world, s, mask, WF_VK_CONTACT_EXPORT);
	ComputeBarrier(ctx, rec->cmd);
	RecordGrid(rec, base, cells, WF_VK_CONTACT_WORLD);
	Dispatch(rec, WF_VK_PIPE_CONTACT_GATHER, 0, base, mask, WF_VK_CONTACT_WORLD | (friction ? WF_VK_CONTACT_FRICTION : 0u));
	ComputeBarrier(ctx, rec->cmd);
	EachClothContacts(rec, world, s, mask, WF_VK_CONTACT_APPLY_VEL);
	ComputeBarrier(ctx, rec->cmd);
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
		ComputeBarrier(ctx, rec->cmd);
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
		ComputeBarrier(ctx, rec->cmd);
	}
}

static wfResult RecordFrame(wfVkContext* ctx, const wfWorld* world)
{
	const wfVkDeviceFuncs* f = &ctx->gpu.fd;
	VkCommandBuffer cmd = ctx->frameCmd;
	WF_VK_CHECK(ctx, f->vkResetCommandBuffer(cmd, 0));
	ctx->recorded = false; // until the end: a failure below leaves nothing to submit
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
	wfResult r = Begin(ctx, cmd);
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
	Barrier(ctx, cmd, kComputeTransfer, kAllWrites, kComputeTransfer, kAllReadWrites);
	for (int i = 0; i < world->clothCapacity; ++i) {
		const wfCloth* c = &world->cloths[i];
		if (c->generation == 0 || ((const wfVkCloth*)c->backendData)->slot >= 0)
			continue;
		const wfVkCloth* vc = (const wfVkCloth*)c->backendData;
		const VkDeviceSize bytes = (VkDeviceSize)c->model.particleCount * sizeof(wfVec4);
		Copy(ctx, cmd, vc->device.buffer, vc->regionOffset[WF_VK_REGION_POS_A], vc->device.buffer,
			vc->regionOffset[WF_VK_REGION_BACKUP_POS], bytes);
		Copy(ctx, cmd, vc->device.buffer, vc->regionOffset[WF_VK_REGION_VEL_A], vc->device.buffer,
			vc->regionOffset[WF_VK_REGION_BACKUP_VEL], bytes);
		f->vkCmdFillBuffer(cmd, vc->device.buffer, vc->regionOffset[WF_VK_REGION_STATUS], sizeof(wfVkStatus), 0xffffffffu);
	}
	Barrier(ctx, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
		VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
	Recorder rec = {ctx, cmd, NULL, VK_NULL_HANDLE, -1, 0, timing, WF_STAGE_PREPARE, 0};
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
		ComputeBarrier(ctx, cmd);
	// The world's contact arrays stay bound as set 1 (binding set 0 with the same layout keeps it).
	if (ctx->contacts.set != VK_NULL_HANDLE)
		f->vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, ctx->pipelineLayout, WF_VK_SET_CONTACTS, 1, &ctx->contacts.set, 0,
			NULL);
	// Large cloths: one dispatch per stage and colour range.
	RecordPerRange(&rec, world);
	ctx->fusedClothsPerFrame = fused;
	// The frame check goes to the staging buffers, read by the host after the fence. (Device
	// atomics stay in device memory: atomics on host memory across the bus are not portable.)
	// Batched cloths: the kernel wrote it into their slot of the host-visible table.
	Barrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
		VK_ACCESS_TRANSFER_READ_BIT);
	for (int i = 0; i < world->clothCapacity; ++i) {
		const wfCloth* c = &world->cloths[i];
		if (c->generation == 0 || ((const wfVkCloth*)c->backendData)->slot >= 0)
			continue;
		const wfVkCloth* vc = (const wfVkCloth*)c->backendData;
		BeginStage(&rec, WF_STAGE_NORMALS);
		Copy(ctx, cmd, vc->device.buffer, vc->regionOffset[WF_VK_REGION_STATUS], vc->staging.buffer, WF_VK_STAGING_STATUS,
			sizeof(wfVkStatus));
	}
	Barrier(ctx, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
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
	ctx->dispatchesPerFrame = rec.dispatches;
	ctx->recordedStageTiming = timing;
	ctx->stageTimingAsked = world->stageTiming;
	ctx->stageMarks = rec.marks;
	return WF_OK;
}

// ------------------------------------------------------------------ stepping

// The energy rule of a frame that passed the speed tests: the pre-test on the device's sums (the
// speed bound from them is the mean start speed, which the largest is not below); only when it fails,
// the state and the backup come to the host for the exact rule (wfCheckEnergy, as the CPU's).
static wfResult CheckEnergy(wfWorld* world, wfCloth* c, const wfFrameParams* params, const wfVkStatus* st)
{
	const wfMotionSums s = wfMotionSumsOfGpu(st->energy.x, st->energy.y, st->energy.z, st->energy.w);
	if (!wfEnergyPreTestFails(world, c, params, &s))
		return WF_OK;
	wfVkContext* ctx = (wfVkContext*)world->backendData;
	wfVkCloth* vc = (wfVkCloth*)c->backendData;
	wfResult r = Download(world, c);
	if (r != WF_OK || (r = SubmitAndWait(ctx, vc->backupDown)) != WF_OK)
		return r;
	const size_t bytes = (size_t)c->model.particleCount * sizeof(wfVec4);
	const wfVec4* backup = (const wfVec4*)((const char*)vc->staging.map + WF_VK_STAGING_DATA);
	c->hostValid = true;
	wfCheckEnergy(world, c, params, backup, (const wfVec4*)((const char*)backup + bytes));
	return WF_OK;
}

static wfVkVec4 V4(wfVec3 v, float w) { return (wfVkVec4){v.x, v.y, v.z, w}; }

// The clock-dependent values of every substep of the frame (the same for every cloth: the wave
// wind's mass dependence is evaluated on the device), then the colliders' shape steps: per substep
// and collider its displacement from the frame-start centre, its axes, velocity and spin, as two
// records (shared.h).
static void WriteSubsteps(const wfWorld* world, const wfFrameParams* p, float invMass, wfVkSubstep* sub)
{
	for (int s = 0; s < p->substeps; ++s) {
		wfVkSubstep rec;
		rec.sphereMotion = V4(wfSphereMotionAt(p, s), 0.0f);
		rec.sphereVel = V4(wfSphereVelocityAt(p, s), 0.0f);
		rec.accel = V4(wfExternalAccel(p, s, 0, invMass), (float)(p->time + (double)s * p->h));
		memcpy(&sub[s], &rec, sizeof rec);
	}
	wfGpuShapeSteps(world, p, sub);
}

// The live values of one cloth for this frame, computed with the CPU solvers' expressions: into
// its frame buffer, and into its batch slot when the fused kernel steps it.
static void WriteFrame(const wfVkContext* ctx, const wfWorld* world, const wfCloth* c, const wfVkCloth* vc, const wfFrameParams* p,
	const double ref[3])
{
	wfVkClothParams* out = (wfVkClothParams*)vc->frame.map;
	wfVkSubstep* sub = (wfVkSubstep*)(out + 1);
	const float h = p->h;
	const wfMaterial* m = &c->material;
	const wfVec3 d = p->wind.direction;
	wfVkClothParams cp;
	memset(&cp, 0, offsetof(wfVkClothParams, shapes)); // the shapes past shapeCount are never read
	cp.gravity = V4(p->gravity, 0.0f);
	cp.windDir = V4(d, sqrtf(d.x * d.x + d.y * d.y + d.z * d.z));
	// The cloth's local frame (wfClothBeginFrame): its shift, colliders and grab target.
	cp.grabTarget = V4(c->local.grabTarget, 0.0f);
	cp.shift = V4(c->local.shift, 0.0f);
	cp.sphereCenter = V4(c->local.sphereCenter, 0.0f);
	cp.maxSpeed = world->def.maxSpeed;
	const wfVec3 band = wfContactBand(c, p);
	const uint32_t backupVel = (uint32_t)((vc->regionOffset[WF_VK_REGION_BACKUP_VEL] - vc->regionOffset[WF_VK_REGION_BACKUP_POS]) /
		sizeof(wfVec4));
	float backupVelBits;
	memcpy(&backupVelBits, &backupVel, sizeof backupVelBits);
	cp.contactBand = (wfVkVec4){band.x, band.y, p->sphere.radius, backupVelBits};
	cp.floor = (wfVkVec4){0.0f, 1.0f, 0.0f, 0.0f};
	cp.aero = V4(p->aero.airVelocity, 0.5f * p->aero.density);
	cp.aeroCoeff = (wfVkVec4){p->aero.drag, p->aero.lift, 0.0f, 0.0f};
	cp.alphaTilde = (wfVkVec4){m->stretchCompliance / (h * h), m->shearCompliance / (h * h), m->bendCompliance / (h * h), 0.0f};
	cp.h = h;
	cp.velFactor = world->def.step.solver == WF_SOLVER_JACOBI ? m->retention / h : 1.0f / h;
	cp.damping = m->damping;
	cp.mass = m->mass;
	cp.stiffness = m->stiffness;
	cp.springDamping = m->springDamping;
	cp.relaxation = m->relaxation;
	cp.windStrength = p->wind.strength;
	cp.windFrequency = p->wind.frequency;
	cp.windPhasePerColumn = p->wind.phasePerColumn;
	cp.sphereR = p->sphere.radius + p->contact.thickness;
	cp.floorY = c->local.floorHeight + p->contact.thickness;
	cp.friction = p->contact.friction;
	cp.flags = (p->sphere.enabled ? WF_VK_FLAG_SPHERE : 0u) | (p->floor.enabled ? WF_VK_FLAG_FLOOR : 0u) |
		(p->contact.response == WF_CONTACT_STOP ? WF_VK_FLAG_STOP : 0u) | (p->wind.mode == WF_WIND_WAVE ? WF_VK_FLAG_WAVE : 0u) |
		(c->model.jacobiDocument ? WF_VK_FLAG_JACOBI_DOCUMENT : 0u) | (p->aeroOn ? WF_VK_FLAG_AERO : 0u);
	cp.grabIndex = c->grabIndex;
	cp.cols = (uint32_t)c->model.cols;
	cp.particleCount = (uint32_t)c->model.particleCount;
	if (c->model.colorCount <= WF_VK_FUSED_MAX_COLORS) {
		cp.colorCount = (uint32_t)c->model.colorCount;
		for (int k = 0; k <= c->model.colorCount; ++k)
			cp.colorStart[k] = (uint32_t)c->model.colorStart[k];
	}
	// The colliders as this cloth sees them: frame-start centres in its local frame, sizes.
	cp.tetherBase = (uint32_t)c->model.constraintCount;
	// Cloth against cloth: the offset from the first cloth's frame to this one's (wfCpuClothContacts).
	const double frame[3] = {c->origin[0] + c->local.shift.x, c->origin[1] + c->local.shift.y, c->origin[2] + c->local.shift.z};
	cp.contactX = (float)(frame[0] - ref[0]);
	cp.contactY = (float)(frame[1] - ref[1]);
	cp.contactZ = (float)(frame[2] - ref[2]);
	cp.shapeCount = (uint32_t)world->colliderFrameCount;
	wfGpuShapes(world, c, p, cp.shapes);
	// Only the shapes in use: a batch of a thousand cloths writes its parameters every frame.
	const size_t used = offsetof(wfVkClothParams, shapes) + (size_t)world->colliderFrameCount * sizeof(wfVkShape);
	memcpy(out, &cp, used);
	if (vc->slot < 0) {
		WriteSubsteps(world, p, 1.0f / m->mass, sub);
		return;
	}
	// A batched cloth: its slot in the arena's table, the arrays in elements of their views.
	const wfVkArena* a = &ctx->arenas[vc->arena];
	wfVkBatchSlot slot; // its parameters come from cp
	memset(slot.at, 0, sizeof slot.at);
	memset(&slot.status, 0, sizeof slot.status);
	const VkDeviceSize* o = vc->regionOffset;
	slot.at[WF_VK_SLOT_POS] = (uint32_t)(o[WF_VK_REGION_POS_A] / 16);
	slot.at[WF_VK_SLOT_VEL] = (uint32_t)(o[WF_VK_REGION_VEL_A] / 16);
	slot.at[WF_VK_SLOT_NORMALS] = (uint32_t)(o[WF_VK_REGION_NORMALS] / 16);
	slot.at[WF_VK_SLOT_CONSTRAINTS] = (uint32_t)(o[WF_VK_REGION_PACKED] / 4);
	const float invMass = 1.0f / m->mass; // wfClothApplyInverseMass's expression: the same bits
	memcpy(&slot.at[WF_VK_SLOT_INV_MASS], &invMass, sizeof invMass);
	slot.at[WF_VK_SLOT_LAMBDA] = (uint32_t)(o[WF_VK_REGION_LAMBDA] / 4);
	slot.at[WF_VK_SLOT_ADJ_START] = (uint32_t)(o[WF_VK_REGION_ADJ_START] / 4);
	slot.at[WF_VK_SLOT_ADJ_CONSTRAINT] = (uint32_t)(o[WF_VK_REGION_ADJ_CONSTRAINT] / 4);
	slot.at[WF_VK_SLOT_ADJ_OTHER] = (uint32_t)(o[WF_VK_REGION_ADJ_OTHER] / 4);
	slot.at[WF_VK_SLOT_JACOBI_WEIGHT] = (uint32_t)(o[WF_VK_REGION_JACOBI_WEIGHT] / 4);
	slot.at[WF_VK_SLOT_TRI_START] = (uint32_t)(o[WF_VK_REGION_TRI_START] / 4);
	slot.at[WF_VK_SLOT_TRI_LIST] = (uint32_t)(o[WF_VK_REGION_TRI_LIST] / 4);
	slot.at[WF_VK_SLOT_INDICES] = (uint32_t)(o[WF_VK_REGION_INDICES] / 4);
	slot.at[WF_VK_SLOT_STATUS] = (uint32_t)(o[WF_VK_REGION_STATUS] / 4);
	slot.at[WF_VK_SLOT_BACKUP_POS] = (uint32_t)(o[WF_VK_REGION_BACKUP_POS] / 16);
	slot.at[WF_VK_SLOT_BACKUP_VEL] = (uint32_t)(o[WF_VK_REGION_BACKUP_VEL] / 16);
	// Positions in shared memory when the dispatch's shared array holds them (fused.glsl).
	slot.at[WF_VK_SLOT_FLAGS] = 3u * (uint32_t)c->model.particleCount <= FusedSharedFloats(ctx, a->sizeIndex) ? WF_VK_PUSH_SHARED : 0u;
	char* table = (char*)a->table.map;
	char* to = table + WF_VK_FRAME_RECORDS * sizeof(wfVkSubstep) + (size_t)vc->slot * sizeof slot;
	memcpy(to, &cp, used);
	memcpy(to + offsetof(wfVkBatchSlot, at), (const char*)&slot + offsetof(wfVkBatchSlot, at), sizeof slot - offsetof(wfVkBatchSlot, at));
}

static wfResult Step(wfWorld* world, const wfFrameParams* params)
{
	wfVkContext* ctx = (wfVkContext*)world->backendData;
	if (ctx->lost)
		return wfSetError(world, WF_ERROR_DEVICE_LOST, "vulkan: the device %s was lost earlier", ctx->gpu.properties.deviceName);
	if (world->clothCount == 0)
		return WF_OK;
	const wfStepDef* step = &world->def.step;
	if (!ctx->recorded || ctx->recordedSolver != step->solver || ctx->recordedSubsteps != step->substeps ||
		ctx->recordedIterations != step->iterations || ctx->recordedClothSet != ctx->clothSetVersion ||
		ctx->stageTimingAsked != world->stageTiming) {
		wfResult r = RecordFrame(ctx, world);
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
	// Each arena's substep table (uniform wind: the acceleration does not depend on the mass).
	for (int ai = 0; ai < ctx->arenaCount; ++ai) {
		if (ctx->arenas[ai].slots > 0)
			WriteSubsteps(world, params, 1.0f, (wfVkSubstep*)ctx->arenas[ai].table.map);
	}
	wfResult r = SubmitAndWait(ctx, ctx->frameCmd);
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
	// The frame check: never hand out a garbage frame (as the CPU backend).
	for (int i = 0; i < world->clothCapacity; ++i) {
		wfCloth* c = &world->cloths[i];
		if (c->generation == 0)
			continue;
		wfVkCloth* vc = (wfVkCloth*)c->backendData;
		wfVkStatus st;
		if (vc->slot >= 0)
			memcpy(&st,
				(const char*)ctx->arenas[vc->arena].table.map + WF_VK_FRAME_RECORDS * sizeof(wfVkSubstep) +
					(size_t)vc->slot * sizeof(wfVkBatchSlot) + offsetof(wfVkBatchSlot, status),
				sizeof st);
		else
			memcpy(&st, (const char*)vc->staging.map + WF_VK_STAGING_STATUS, sizeof st);
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
		r = SubmitAndWait(ctx, vc->restore);
		if (r != WF_OK)
			return r;
	}
	return WF_OK;
}

// ------------------------------------------------------------------ host mirror

static wfResult Download(wfWorld* world, wfCloth* c)
{
	wfVkContext* ctx = (wfVkContext*)world->backendData;
	wfVkCloth* vc = (wfVkCloth*)c->backendData;
	wfResult r = SubmitAndWait(ctx, vc->download);
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

static wfResult Upload(wfWorld* world, wfCloth* c)
{
	wfVkContext* ctx = (wfVkContext*)world->backendData;
	wfVkCloth* vc = (wfVkCloth*)c->backendData;
	const size_t bytes = (size_t)c->model.particleCount * sizeof(wfVec4);
	char* data = (char*)vc->staging.map + WF_VK_STAGING_DATA;
	memcpy(data, c->state.pos, bytes);
	memcpy(data + bytes, c->state.vel, bytes);
	vc->normalsCurrent = false;
	return SubmitAndWait(ctx, vc->upload);
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
	wfVkStatsParams sp;
	memset(&sp, 0, sizeof sp);
	sp.gravity = V4(p->gravity, 0.0f);
	// Local positions: local colliders, and the origin's gravity energy added on the host.
	const wfClothLocal local = wfClothLocalNow(world, c);
	sp.sphereCenter = V4(wfLocalSphereCenter(&local, p, -1), 0.0f);
	sp.compliance = (wfVkVec4){m->stretchCompliance, m->shearCompliance, m->bendCompliance, 0.0f};
	sp.mass = m->mass;
	sp.sphereRadius = p->sphere.radius;
	sp.floorHeight = local.floorHeight;
	sp.stiffness = m->stiffness;
	wfSolverType solver = world->def.step.solver;
	sp.flags = (p->sphere.enabled ? WF_VK_STATS_SPHERE : 0u) | (p->floor.enabled ? WF_VK_STATS_FLOOR : 0u) |
		(solver == WF_SOLVER_XPBD ? WF_VK_STATS_XPBD : 0u) | (solver == WF_SOLVER_SPRINGS ? WF_VK_STATS_SPRINGS : 0u);
	sp.particleGroups = vc->particleGroups;
	memcpy((char*)vc->frame.map + vc->statsParamsOffset, &sp, sizeof sp);
	wfResult r = SubmitAndWait(ctx, vc->stats);
	if (r != WF_OK)
		return r;
	const wfVkPartial* part = (const wfVkPartial*)((const char*)vc->staging.map + vc->stagingPartials);
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
	WaitIdle(ctx);
	DestroyArenas(ctx);
	DestroyContacts(ctx);
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
// constants and the friction pass are recorded into the frame, so it is recorded again.
static wfResult SetSelfCollision(wfWorld* world, const wfSelfCollisionDef* sc)
{
	wfVkContext* ctx = (wfVkContext*)world->backendData;
	wfVkContacts* k = &ctx->contacts;
	if (k->params.map != NULL) {
		WaitIdle(ctx);        // steps wait for their fence; belt and braces before the constants change
		wfVkContactParams cp; // as ContactsReserve
		cp.distance = 2.0f * sc->thickness;
		cp.invCell = 1.0f / cp.distance;
		cp.exclude = sc->exclusion * cp.distance;
		cp.friction = sc->friction;
		memcpy(k->params.map, &cp, sizeof cp);
	}
	ctx->recorded = false;
	return WF_OK;
}

static const wfBackendOps kVulkanOps = {
	.name = "vulkan",
	.setSelfCollision = SetSelfCollision,
	.destroy = Destroy,
	.addCloth = AddCloth,
	.removeCloth = RemoveCloth,
	.step = Step,
	.download = Download,
	.upload = Upload,
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
