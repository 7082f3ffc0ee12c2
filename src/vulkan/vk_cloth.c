// Vulkan backend, a cloth's device side: buffers and the command helpers every part uses, the
// cloth's buffer regions and descriptor sets, its recorded transfers and model upload, the arenas
// that batch small cloths for the fused kernel, the world's contact arrays, and adding and removing
// a cloth (vk_backend.c says how the frame is laid out).
#include "vk_interop.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Records of a cloth's frame buffer after its parameters: one substep (a batched cloth, whose arena
// table holds the frame's records), or every substep and the colliders' shape steps after them.
static VkDeviceSize FrameRecords(const wfVkCloth* vc)
{
	return vc->frameSubsteps < WF_MAX_SUBSTEPS ? (VkDeviceSize)vc->frameSubsteps : WF_GPU_FRAME_RECORDS;
}

// ------------------------------------------------------------------ buffers

// Waits for the work weft submitted: on a borrowed device (an engine's) only weft's queue, never
// the whole device (src/vk/: wfVkGpuWait).
void wfVkWaitIdle(wfVkContext* ctx) { wfVkGpuWait(&ctx->gpu); }

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

void wfVkBarrier(const wfVkContext* ctx, VkCommandBuffer cmd, VkPipelineStageFlags srcStage, VkAccessFlags srcAccess,
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
void wfVkComputeBarrier(const wfVkContext* ctx, VkCommandBuffer cmd)
{
	wfVkBarrier(ctx, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
		VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

void wfVkCopy(const wfVkContext* ctx, VkCommandBuffer cmd, VkBuffer src, VkDeviceSize srcOffset, VkBuffer dst, VkDeviceSize dstOffset,
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

wfResult wfVkBegin(wfVkContext* ctx, VkCommandBuffer cmd)
{
	VkCommandBufferBeginInfo info = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	WF_VK_CHECK(ctx, ctx->gpu.fd.vkBeginCommandBuffer(cmd, &info));
	return WF_OK;
}

// Submits one command buffer and waits for it. Steps are synchronous: the host reads the frame
// check right after, and a later step rewrites the frame buffers.
wfResult wfVkSubmitCommands(wfVkContext* ctx, VkCommandBuffer cmd)
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
	VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 * WF_GPU_BIND_COUNT};
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
		VkDescriptorBufferInfo infos[WF_GPU_BIND_COUNT];
		infos[WF_GPU_BIND_FRAME] = (VkDescriptorBufferInfo){vc->frame.buffer, 0,
			sizeof(wfGpuClothParams) + FrameRecords(vc) * sizeof(wfGpuSubstep)};
		infos[WF_GPU_BIND_POS] = RegionInfo(vc, v == 0 ? WF_VK_REGION_POS_A : WF_VK_REGION_POS_B);
		infos[WF_GPU_BIND_VEL] = RegionInfo(vc, v == 0 ? WF_VK_REGION_VEL_A : WF_VK_REGION_VEL_B);
		infos[WF_GPU_BIND_POS_ALT] = RegionInfo(vc, v == 0 ? WF_VK_REGION_POS_B : WF_VK_REGION_POS_A);
		infos[WF_GPU_BIND_VEL_ALT] = RegionInfo(vc, v == 0 ? WF_VK_REGION_VEL_B : WF_VK_REGION_VEL_A);
		infos[WF_GPU_BIND_PREV] = RegionInfo(vc, WF_VK_REGION_PREV);
		infos[WF_GPU_BIND_LAMBDA] = RegionInfo(vc, WF_VK_REGION_LAMBDA);
		infos[WF_GPU_BIND_CONSTRAINTS] = RegionInfo(vc, WF_VK_REGION_CONSTRAINTS);
		infos[WF_GPU_BIND_ADJ_START] = RegionInfo(vc, WF_VK_REGION_ADJ_START);
		infos[WF_GPU_BIND_ADJ_CONSTRAINT] = RegionInfo(vc, WF_VK_REGION_ADJ_CONSTRAINT);
		infos[WF_GPU_BIND_ADJ_OTHER] = RegionInfo(vc, WF_VK_REGION_ADJ_OTHER);
		infos[WF_GPU_BIND_JACOBI_WEIGHT] = RegionInfo(vc, WF_VK_REGION_JACOBI_WEIGHT);
		infos[WF_GPU_BIND_NORMALS] = RegionInfo(vc, WF_VK_REGION_NORMALS);
		infos[WF_GPU_BIND_TRI_START] = RegionInfo(vc, WF_VK_REGION_TRI_START);
		infos[WF_GPU_BIND_TRI_LIST] = RegionInfo(vc, WF_VK_REGION_TRI_LIST);
		infos[WF_GPU_BIND_INDICES] = RegionInfo(vc, WF_VK_REGION_INDICES);
		infos[WF_GPU_BIND_STATUS] = RegionInfo(vc, WF_VK_REGION_STATUS);
		infos[WF_GPU_BIND_STATS_PARAMS] = (VkDescriptorBufferInfo){vc->frame.buffer, vc->statsParamsOffset, sizeof(wfGpuStatsParams)};
		infos[WF_GPU_BIND_PARTIALS] = RegionInfo(vc, WF_VK_REGION_PARTIALS);
		infos[WF_GPU_BIND_REST] = RegionInfo(vc, WF_VK_REGION_REST);
		infos[WF_GPU_BIND_TILE_START] = RegionInfo(vc, WF_VK_REGION_TILE_START);
		infos[WF_GPU_BIND_TILE_CON] = RegionInfo(vc, WF_VK_REGION_PACKED);
		// The backup's positions and velocities through one binding (kernel_abi.h, WF_GPU_BIND_BACKUP).
		const VkDeviceSize backup = vc->regionOffset[WF_VK_REGION_BACKUP_POS];
		infos[WF_GPU_BIND_BACKUP] = (VkDescriptorBufferInfo){vc->device.buffer, backup,
			vc->regionOffset[WF_VK_REGION_BACKUP_VEL] + vc->regionSize[WF_VK_REGION_BACKUP_VEL] - backup};
		VkWriteDescriptorSet writes[WF_GPU_BIND_COUNT];
		for (uint32_t b = 0; b < WF_GPU_BIND_COUNT; ++b) {
			writes[b] = (VkWriteDescriptorSet){
				.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
				.dstSet = vc->sets[v],
				.dstBinding = b,
				.descriptorCount = 1,
				.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
				.pBufferInfo = &infos[b],
			};
		}
		f->vkUpdateDescriptorSets(ctx->gpu.device, WF_GPU_BIND_COUNT, writes, 0, NULL);
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
	if ((r = AllocateCommandBuffer(ctx, "weft upload", &vc->upload)) != WF_OK || (r = wfVkBegin(ctx, vc->upload)) != WF_OK)
		return r;
	wfVkBarrier(ctx, vc->upload, kComputeTransfer, kAllWrites, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
	wfVkCopy(ctx, vc->upload, stage, data, dev, vc->regionOffset[WF_VK_REGION_POS_A], bytes);
	wfVkCopy(ctx, vc->upload, stage, data + bytes, dev, vc->regionOffset[WF_VK_REGION_VEL_A], bytes);
	wfVkBarrier(ctx, vc->upload, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, kComputeTransfer, kAllReadWrites);
	WF_VK_CHECK(ctx, f->vkEndCommandBuffer(vc->upload));

	// A and the normals -> staging, visible to the host after the fence.
	if ((r = AllocateCommandBuffer(ctx, "weft download", &vc->download)) != WF_OK || (r = wfVkBegin(ctx, vc->download)) != WF_OK)
		return r;
	wfVkBarrier(ctx, vc->download, kComputeTransfer, kAllWrites, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
	wfVkCopy(ctx, vc->download, dev, vc->regionOffset[WF_VK_REGION_POS_A], stage, data, bytes);
	wfVkCopy(ctx, vc->download, dev, vc->regionOffset[WF_VK_REGION_VEL_A], stage, data + bytes, bytes);
	wfVkCopy(ctx, vc->download, dev, vc->regionOffset[WF_VK_REGION_NORMALS], stage, data + 2 * bytes, bytes);
	wfVkBarrier(ctx, vc->download, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
		VK_ACCESS_HOST_READ_BIT);
	WF_VK_CHECK(ctx, f->vkEndCommandBuffer(vc->download));

	// Backup -> A: the frame went bad, keep the last good state.
	if ((r = AllocateCommandBuffer(ctx, "weft restore", &vc->restore)) != WF_OK || (r = wfVkBegin(ctx, vc->restore)) != WF_OK)
		return r;
	wfVkBarrier(ctx, vc->restore, kComputeTransfer, kAllWrites, VK_PIPELINE_STAGE_TRANSFER_BIT,
		VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
	wfVkCopy(ctx, vc->restore, dev, vc->regionOffset[WF_VK_REGION_BACKUP_POS], dev, vc->regionOffset[WF_VK_REGION_POS_A], bytes);
	wfVkCopy(ctx, vc->restore, dev, vc->regionOffset[WF_VK_REGION_BACKUP_VEL], dev, vc->regionOffset[WF_VK_REGION_VEL_A], bytes);
	wfVkBarrier(ctx, vc->restore, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, kComputeTransfer, kAllReadWrites);
	WF_VK_CHECK(ctx, f->vkEndCommandBuffer(vc->restore));

	// The backup -> staging where the positions and velocities go (the energy rule's exact test
	// reads them after a download has taken those).
	if ((r = AllocateCommandBuffer(ctx, "weft backup download", &vc->backupDown)) != WF_OK || (r = wfVkBegin(ctx, vc->backupDown)) != WF_OK)
		return r;
	wfVkBarrier(ctx, vc->backupDown, kComputeTransfer, kAllWrites, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
	wfVkCopy(ctx, vc->backupDown, dev, vc->regionOffset[WF_VK_REGION_BACKUP_POS], stage, data, bytes);
	wfVkCopy(ctx, vc->backupDown, dev, vc->regionOffset[WF_VK_REGION_BACKUP_VEL], stage, data + bytes, bytes);
	wfVkBarrier(ctx, vc->backupDown, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
		VK_ACCESS_HOST_READ_BIT);
	WF_VK_CHECK(ctx, f->vkEndCommandBuffer(vc->backupDown));

	// Statistics: per-workgroup partials of the state in A, copied to staging for the host's sum.
	if ((r = AllocateCommandBuffer(ctx, "weft stats", &vc->stats)) != WF_OK || (r = wfVkBegin(ctx, vc->stats)) != WF_OK)
		return r;
	wfVkBarrier(ctx, vc->stats, kComputeTransfer, kAllWrites, kComputeTransfer, kAllReadWrites);
	f->vkCmdBindDescriptorSets(vc->stats, VK_PIPELINE_BIND_POINT_COMPUTE, ctx->pipelineLayout, 0, 1, &vc->sets[0], 0, NULL);
	const uint32_t counts[2] = {(uint32_t)c->model.particleCount, (uint32_t)c->model.constraintCount};
	const int pipes[2] = {WF_VK_PIPE_STATS_PARTICLES, WF_VK_PIPE_STATS_CONSTRAINTS};
	for (int k = 0; k < 2; ++k) {
		// Both write disjoint partials and only read the state: no barrier between them.
		VkPipeline pipeline;
		if ((r = wfVkPipeline(ctx, pipes[k], &pipeline)) != WF_OK)
			return r;
		f->vkCmdBindPipeline(vc->stats, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
		wfGpuPush push = {0u, counts[k], 0u, 0u};
		f->vkCmdPushConstants(vc->stats, ctx->pipelineLayout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
		uint32_t groups = (counts[k] + WF_GPU_GROUP_SIZE - 1) / WF_GPU_GROUP_SIZE;
		uint32_t x = groups < 65535u ? groups : 65535u;
		f->vkCmdDispatch(vc->stats, x, (groups + x - 1) / x, 1);
	}
	wfVkBarrier(ctx, vc->stats, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
		VK_ACCESS_TRANSFER_READ_BIT);
	wfVkCopy(ctx, vc->stats, dev, vc->regionOffset[WF_VK_REGION_PARTIALS], stage, vc->stagingPartials,
		(VkDeviceSize)(vc->particleGroups + vc->constraintGroups) * sizeof(wfGpuPartial));
	wfVkBarrier(ctx, vc->stats, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
		VK_ACCESS_HOST_READ_BIT);
	WF_VK_CHECK(ctx, f->vkEndCommandBuffer(vc->stats));
	return WF_OK;
}

// The rest positions (and air shares) on the device: for self-collision and aerodynamics.
static bool RestNeeded(const wfWorld* world)
{
	return world->def.selfCollision.enabled || world->def.aero.drag != 0.0f || world->def.aero.lift != 0.0f;
}

// Each particle's source on the device: a torn cloth with self-collision (the point-triangle pass).
static bool SourceNeeded(const wfWorld* world, const wfCloth* c) { return world->def.selfCollision.enabled && c->source != NULL; }

// The owner order's table (WF_VK_REGION_OWNER) for a cloth the fused kernel may step with
// WF_VELOCITY_MOVES: at most 4096 particles, WF_GPU_FUSED_MAX_COLORS colours in the colour order,
// no tethers, and constraint indices in 16 bits. FitsFused asks for it.
static bool OwnerOrder(const wfWorld* world, const wfCloth* c)
{
	const wfClothModel* m = &c->model;
	return world->def.velocity == WF_VELOCITY_MOVES && m->particleCount <= WF_GPU_FUSED_MAX_PARTICLES &&
		m->colorCount <= WF_GPU_FUSED_MAX_COLORS && m->constraintCount <= 65536 && m->tileSize == 0 && m->tethers == NULL;
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
	if (m->tethers != NULL) // after the constraints: con[P.tetherBase + i] (predict.comp, WF_GPU_PUSH_TETHER)
		memcpy(REGION(WF_VK_REGION_CONSTRAINTS) + (size_t)m->constraintCount * sizeof(wfConstraint), m->tethers,
			(size_t)m->particleCount * sizeof(wfConstraint));
	// Half-size records for the fused kernel (particle indices below 4096 take 12 bits): a 60x60
	// cloth's 168 KB stay in L1 next to the 48 KB of shared memory, its 336 KB of full ones do not.
	if (m->particleCount <= WF_GPU_FUSED_MAX_PARTICLES) {
		uint32_t* packed = (uint32_t*)REGION(WF_VK_REGION_PACKED);
		for (int k = 0; k < m->constraintCount; ++k) {
			const wfConstraint* q = &m->constraints[k];
			uint32_t restBits;
			memcpy(&restBits, &q->rest, sizeof restBits);
			packed[2 * k] = q->a | q->b << 12 | q->family << 24;
			packed[2 * k + 1] = restBits;
		}
	}
	// The owner order's table: colour by colour, the constraint at each particle, from each end.
	if (OwnerOrder(ctx->world, c)) {
		uint32_t* own = (uint32_t*)REGION(WF_VK_REGION_OWNER);
		const uint32_t n = (uint32_t)m->particleCount;
		for (int color = 0; color < m->colorCount; ++color) {
			for (int k = m->colorStart[color]; k < m->colorStart[color + 1]; ++k) {
				const wfConstraint* q = &m->constraints[k];
				const uint32_t key = q->family << 12 | 0x8000u | (uint32_t)k << 16;
				uint32_t restBits;
				memcpy(&restBits, &q->rest, sizeof restBits);
				uint32_t* ea = own + 2 * ((size_t)color * n + q->a);
				uint32_t* eb = own + 2 * ((size_t)color * n + q->b);
				ea[0] = q->b | key;
				ea[1] = restBits;
				eb[0] = q->a | key | 0x4000u;
				eb[1] = restBits;
			}
		}
	}
	memcpy(REGION(WF_VK_REGION_ADJ_START), m->adjStart, (size_t)(m->particleCount + 1) * sizeof(int));
	// Self-collision's exclusion rule reads the rest shape, the aerodynamics the air shares in w.
	if (RestNeeded(ctx->world))
		memcpy(REGION(WF_VK_REGION_REST), m->restPositions, (size_t)m->particleCount * sizeof(wfVec4));
	memcpy(REGION(WF_VK_REGION_ADJ_CONSTRAINT), m->adjConstraint, (size_t)m->adjStart[m->particleCount] * sizeof(uint32_t));
	memcpy(REGION(WF_VK_REGION_ADJ_OTHER), m->adjOther, (size_t)m->adjStart[m->particleCount] * sizeof(uint32_t));
	memcpy(REGION(WF_VK_REGION_JACOBI_WEIGHT), m->jacobiWeight, (size_t)m->constraintCount * sizeof(float));
	if (SourceNeeded(ctx->world, c))
		memcpy(REGION(WF_VK_REGION_SOURCE), c->source, (size_t)m->particleCount * sizeof(int));
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
	// Then the edge partners' rows (kernel_abi.h WF_GPU_BIND_TRI_START): indices into the same array.
	const int rows = 2 * (m->particleCount + 1);
	for (int i = 0; i <= m->particleCount; ++i)
		triStart[m->particleCount + 1 + i] = rows + m->partnerStart[i];
	memcpy(&triStart[rows], m->partnerList, (size_t)m->partnerStart[m->particleCount] * sizeof(int32_t));
#undef REGION
	VkCommandBuffer cmd = VK_NULL_HANDLE;
	r = AllocateCommandBuffer(ctx, "weft model upload", &cmd);
	if (r == WF_OK)
		r = wfVkBegin(ctx, cmd);
	if (r == WF_OK) {
		wfVkCopy(ctx, cmd, temp.buffer, 0, vc->device.buffer, vc->deviceBase, vc->deviceSize);
		wfVkBarrier(ctx, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, kComputeTransfer, kAllReadWrites);
		VkResult vr = ctx->gpu.fd.vkEndCommandBuffer(cmd);
		r = vr == VK_SUCCESS ? wfVkSubmitCommands(ctx, cmd) : wfVkFail(ctx, vr, "vkEndCommandBuffer(model upload)", __FILE__, __LINE__);
	}
	if (cmd != VK_NULL_HANDLE)
		ctx->gpu.fd.vkFreeCommandBuffers(ctx->gpu.device, ctx->commandPool, 1, &cmd);
	DestroyBuffer(ctx, &temp);
	return r;
}

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
int wfVkCountArenaCloths(const wfWorld* world, const wfCloth* except)
{
	int n = 0;
	for (int i = 0; i < world->clothCapacity; ++i) {
		const wfCloth* o = &world->cloths[i];
		if (o != except && o->generation != 0 && o->backendData != NULL && ((const wfVkCloth*)o->backendData)->arena >= 0)
			n++;
	}
	return n;
}

// Whether the fused kernel's shared memory holds cloth c's self-collision grid (fused_self.glsl):
// the grid of the largest cloth of its workgroup size, the kernel's other words and at least one
// particle's position (the positions may stay in their buffer).
static bool SelfFitsFused(const wfVkContext* ctx, const wfCloth* c)
{
	const int k = wfVkFusedSizeIndex(c->model.particleCount);
	return WF_GPU_FUSED_HASH_WORDS(32u << k) + WF_GPU_FUSED_SHARED_WORDS + 3u <= ctx->fusedSharedFloats;
}

// A cloth the fused kernel can step (one workgroup holds it): its arrays go into an arena.
static bool FitsFused(const wfVkContext* ctx, const wfCloth* c)
{
	// Drag and lift read the neighbours' velocities, which the fused kernel keeps in registers.
	const wfAeroDef* aero = &ctx->world->def.aero;
	// Tethers read other particles' positions after the solve, outside the fused kernel's phases.
	// Self-collision: its hash grid in the workgroup's shared memory (fused_self.glsl) up to 2 048
	// particles (the grid of a larger one would fill the 48 KB alone), the positions beside it
	// where they fit; not the continuous passes (they walk 125 cells a particle: the per-range
	// path). Cloth against cloth: the per-range path; it needs every cloth at the same substep,
	// while a fused workgroup runs its cloth's whole frame with no sync across workgroups.
	const wfSelfCollisionDef* sc = &ctx->world->def.selfCollision;
	if (sc->enabled && (sc->pointTriangle || sc->edgeEdge || !SelfFitsFused(ctx, c)))
		return false;
	// The tile order (step.order "tiles" on a small grid): relaxed by xpbd_tiled.comp.
	// Mesh colliders: the host places the body per cloth and substep, collide_mesh.comp reads it
	// between the per-range stages.
	return ctx->world->meshColliderCount == 0 && ctx->fusedAvailable && c->model.particleCount <= WF_GPU_FUSED_MAX_PARTICLES &&
		c->model.colorCount <= WF_GPU_FUSED_MAX_COLORS && c->model.tileSize == 0 && aero->drag == 0.0f && aero->lift == 0.0f &&
		c->model.tethers == NULL && !sc->betweenCloths && (ctx->world->def.velocity != WF_VELOCITY_MOVES || OwnerOrder(ctx->world, c));
}

// The batch descriptor set of an arena: substep table, slots, and the arena three times.
static void WriteArenaSet(wfVkContext* ctx, const wfVkArena* a)
{
	const VkDeviceSize substeps = WF_GPU_FRAME_RECORDS * sizeof(wfGpuSubstep);
	VkDescriptorBufferInfo infos[WF_GPU_BATCH_BIND_COUNT] = {
		[WF_GPU_BATCH_BIND_SUBSTEPS] = {a->table.buffer, 0, substeps},
		[WF_GPU_BATCH_BIND_STATUS] = {a->statuses.buffer, 0, (VkDeviceSize)a->slotCapacity * sizeof(wfGpuStatus)},
		[WF_GPU_BATCH_BIND_VEC4] = {a->buffer.buffer, 0, a->buffer.size},
		[WF_GPU_BATCH_BIND_UVEC4] = {a->buffer.buffer, 0, a->buffer.size},
		[WF_GPU_BATCH_BIND_WORDS] = {a->buffer.buffer, 0, a->buffer.size},
		[WF_GPU_BATCH_BIND_SLOTS_RO] = {a->table.buffer, substeps, (VkDeviceSize)a->slotCapacity * sizeof(wfGpuBatchSlot)},
	};
	VkWriteDescriptorSet writes[WF_GPU_BATCH_BIND_COUNT];
	for (uint32_t b = 0; b < WF_GPU_BATCH_BIND_COUNT; ++b) {
		writes[b] = (VkWriteDescriptorSet){
			.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
			.dstSet = a->set,
			.dstBinding = b,
			.descriptorCount = 1,
			.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
			.pBufferInfo = &infos[b],
		};
	}
	ctx->gpu.fd.vkUpdateDescriptorSets(ctx->gpu.device, WF_GPU_BATCH_BIND_COUNT, writes, 0, NULL);
}

// Room for `slots` cloths in the arena's host-visible table (called while recording a frame, when
// nothing is in flight).
wfResult wfVkArenaReserveSlots(wfVkContext* ctx, wfVkArena* a, uint32_t slots)
{
	if (slots <= a->slotCapacity && a->table.buffer != VK_NULL_HANDLE)
		return WF_OK;
	uint32_t capacity = a->slotCapacity > 0 ? a->slotCapacity : 8;
	while (capacity < slots)
		capacity *= 2;
	DestroyBuffer(ctx, &a->table);
	DestroyBuffer(ctx, &a->statuses);
	wfResult r = CreateBuffer(ctx, WF_GPU_FRAME_RECORDS * sizeof(wfGpuSubstep) + (VkDeviceSize)capacity * sizeof(wfGpuBatchSlot),
		VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, kHostCoherent, kDeviceLocal, "weft batch table", &a->table);
	if (r == WF_OK)
		r = CreateBuffer(ctx, (VkDeviceSize)capacity * sizeof(wfGpuStatus), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, kHostCoherent,
			VK_MEMORY_PROPERTY_HOST_CACHED_BIT, "weft batch statuses", &a->statuses);
	if (r != WF_OK) {
		DestroyBuffer(ctx, &a->table); // a half-made buffer (no memory) must not reach a descriptor
		DestroyBuffer(ctx, &a->statuses);
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
		wfVkWaitIdle(ctx); // steps wait for their fence; this is only belt and braces
		VkCommandBuffer cmd = VK_NULL_HANDLE;
		if (a->top > 0) {
			r = AllocateCommandBuffer(ctx, "weft arena move", &cmd);
			if (r == WF_OK)
				r = wfVkBegin(ctx, cmd);
			if (r == WF_OK) {
				wfVkBarrier(ctx, cmd, kComputeTransfer, kAllWrites, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
				wfVkCopy(ctx, cmd, a->buffer.buffer, 0, grown.buffer, 0, a->top);
				wfVkBarrier(ctx, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, kComputeTransfer, kAllReadWrites);
				VkResult vr = f->vkEndCommandBuffer(cmd);
				r = vr == VK_SUCCESS ? wfVkSubmitCommands(ctx, cmd)
									 : wfVkFail(ctx, vr, "vkEndCommandBuffer(arena move)", __FILE__, __LINE__);
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
	wfResult made = OneSet(ctx, WF_GPU_BATCH_BIND_COUNT, ctx->batchSetLayout, &a->pool, &a->set);
	if (made != WF_OK)
		return made;
	wfResult r = wfVkArenaReserveSlots(ctx, a, 8);
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

void wfVkDestroyArenas(wfVkContext* ctx)
{
	for (int ai = 0; ai < ctx->arenaCount; ++ai) {
		wfVkArena* a = &ctx->arenas[ai];
		DestroyBuffer(ctx, &a->buffer);
		DestroyBuffer(ctx, &a->table);
		DestroyBuffer(ctx, &a->statuses);
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
		if (length <= WF_GPU_SCAN_BLOCK)
			return words + 1;
		length = (length + WF_GPU_SCAN_BLOCK - 1) / WF_GPU_SCAN_BLOCK;
	}
}

void wfVkDestroyContacts(wfVkContext* ctx)
{
	wfVkContacts* k = &ctx->contacts;
	DestroyBuffer(ctx, &k->device);
	DestroyBuffer(ctx, &k->params);
	if (k->pool != VK_NULL_HANDLE)
		ctx->gpu.fd.vkDestroyDescriptorPool(ctx->gpu.device, k->pool, NULL);
	k->pool = VK_NULL_HANDLE;
	k->set = VK_NULL_HANDLE;
}

void wfVkWriteContactParams(wfVkContext* ctx, const wfSelfCollisionDef* sc)
{
	wfVkContacts* k = &ctx->contacts;
	wfGpuContactParams cp = {0};
	cp.distance = 2.0f * sc->thickness;
	cp.invCell = 1.0f / cp.distance;
	cp.exclude = sc->exclusion * cp.distance;
	cp.friction = sc->friction;
	cp.counts = (uint32_t)ScanWords((VkDeviceSize)k->cells + 1);
	memcpy(k->params.map, &cp, sizeof cp);
}

// Room in the world's contact arrays for cloth c (before it is added): its own hash for
// self-collision, and with betweenCloths the world's particles, the capacity following the CPU's
// rule (it grows to the live particles when they pass it, and never shrinks) so that the hash has
// the CPU's size. The arrays are made again when they grow; the frame is then re-recorded.
wfResult wfVkContactsReserve(wfVkContext* ctx, const wfWorld* world, const wfCloth* c)
{
	const wfSelfCollisionDef* sc = &world->selfContact;
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
	wfVkWaitIdle(ctx); // steps wait for their fence; belt and braces before the old arrays go
	DestroyBuffer(ctx, &k->device);
	const VkDeviceSize np = (VkDeviceSize)particles, world4 = sc->betweenCloths ? np * 16 : 0;
	const VkDeviceSize sizes[WF_GPU_CONTACT_BIND_COUNT] = {
		[WF_GPU_CONTACT_BIND_KEY] = np * 4,
		[WF_GPU_CONTACT_BIND_RANK] = np * 4,
		[WF_GPU_CONTACT_BIND_CELLS] = (ScanWords((VkDeviceSize)cells + 1) + cells + 1) * 4, // starts, sums, counts
		[WF_GPU_CONTACT_BIND_SORTED] = np * 4,
		[WF_GPU_CONTACT_BIND_DELTA] = np * 16,
		[WF_GPU_CONTACT_BIND_X] = world4,
		[WF_GPU_CONTACT_BIND_MOTION] = world4,
		[WF_GPU_CONTACT_BIND_OWNER] = world4,
	};
	VkDeviceSize align = ctx->gpu.properties.limits.minStorageBufferOffsetAlignment;
	if (align < 256)
		align = 256;
	VkDeviceSize total = 0;
	for (int b = 1; b < WF_GPU_CONTACT_BIND_COUNT; ++b) {
		k->offset[b] = total;
		k->size[b] = sizes[b] > 16 ? sizes[b] : 16;
		total = AlignUp(total + k->size[b], align);
	}
	wfResult r = CreateBuffer(ctx, total, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, kDeviceLocal, 0,
		"weft contacts", &k->device);
	if (r != WF_OK) {
		DestroyBuffer(ctx, &k->device);
		k->particles = 0;
		k->cells = 0;
		return r;
	}
	k->particles = particles;
	k->cells = cells;
	if (k->params.buffer == VK_NULL_HANDLE) {
		// The constants (wfVkWriteContactParams); SetSelfCollision writes them again.
		r = CreateBuffer(ctx, sizeof(wfGpuContactParams), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, kHostCoherent, kDeviceLocal,
			"weft contact params", &k->params);
		if (r != WF_OK)
			return r;
		r = OneSet(ctx, WF_GPU_CONTACT_BIND_COUNT, ctx->contactSetLayout, &k->pool, &k->set);
		if (r != WF_OK)
			return r;
	}
	wfVkWriteContactParams(ctx, sc); // the counts' place moves with the cells
	VkDescriptorBufferInfo infos[WF_GPU_CONTACT_BIND_COUNT];
	VkWriteDescriptorSet writes[WF_GPU_CONTACT_BIND_COUNT];
	infos[WF_GPU_CONTACT_BIND_PARAMS] = (VkDescriptorBufferInfo){k->params.buffer, 0, sizeof(wfGpuContactParams)};
	for (uint32_t b = 0; b < WF_GPU_CONTACT_BIND_COUNT; ++b) {
		if (b != WF_GPU_CONTACT_BIND_PARAMS)
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
	f->vkUpdateDescriptorSets(ctx->gpu.device, WF_GPU_CONTACT_BIND_COUNT, writes, 0, NULL);
	ctx->recorded = false;
	return WF_OK;
}

wfResult wfVkAddCloth(wfWorld* world, wfCloth* c)
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
	const bool owner = OwnerOrder(world, c);
	vc->particleGroups = (uint32_t)((n + WF_GPU_GROUP_SIZE - 1) / WF_GPU_GROUP_SIZE);
	vc->constraintGroups = (uint32_t)((k + WF_GPU_GROUP_SIZE - 1) / WF_GPU_GROUP_SIZE);
	const VkDeviceSize partials = (VkDeviceSize)(vc->particleGroups + vc->constraintGroups) * sizeof(wfGpuPartial);
	VkDeviceSize sizes[WF_VK_REGION_COUNT] = {
		[WF_VK_REGION_POS_A] = v4,
		[WF_VK_REGION_VEL_A] = v4,
		[WF_VK_REGION_POS_B] = v4,
		[WF_VK_REGION_VEL_B] = v4,
		[WF_VK_REGION_PREV] = v4,
		[WF_VK_REGION_LAMBDA] = (owner ? 2 : 1) * k * 4, // the owner order alternates two (fused_xpbd.glsl)
		[WF_VK_REGION_CONSTRAINTS] = (k + (m->tethers != NULL ? n : 0)) * 16,
		[WF_VK_REGION_ADJ_START] = (n + 1) * 4,
		[WF_VK_REGION_ADJ_CONSTRAINT] = 2 * k * 4,
		[WF_VK_REGION_ADJ_OTHER] = 2 * k * 4,
		[WF_VK_REGION_JACOBI_WEIGHT] = k * 4,
		[WF_VK_REGION_NORMALS] = v4,
		[WF_VK_REGION_TRI_START] = (2 * (n + 1) + (VkDeviceSize)m->partnerStart[n]) * 4, // and the edge partners' rows
		[WF_VK_REGION_TRI_LIST] = 3 * t * 4,
		[WF_VK_REGION_INDICES] = 3 * t * 4,
		[WF_VK_REGION_BACKUP_POS] = v4,
		[WF_VK_REGION_BACKUP_VEL] = v4,
		[WF_VK_REGION_STATUS] = sizeof(wfGpuStatus),
		[WF_VK_REGION_PARTIALS] = partials,
		[WF_VK_REGION_PACKED] = k * 8,
		[WF_VK_REGION_REST] = RestNeeded(world) ? v4 : 0,
		[WF_VK_REGION_TILE_START] = m->tileSize > 0 ? (VkDeviceSize)m->colorCount * (VkDeviceSize)(m->tileCount + 1) * 4 : 0,
		[WF_VK_REGION_SOURCE] = SourceNeeded(world, c) ? n * 4 : 0,
		[WF_VK_REGION_OWNER] = owner ? (VkDeviceSize)m->colorCount * n * 8 : 0,
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
	if ((sc->enabled || sc->betweenCloths) && (r = wfVkContactsReserve(ctx, world, c)) != WF_OK)
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
			(ctx->fusedForced || wfVkCountArenaCloths(world, c) > 0)
		? 1
		: WF_MAX_SUBSTEPS;
	vc->statsParamsOffset = AlignUp(sizeof(wfGpuClothParams) + FrameRecords(vc) * sizeof(wfGpuSubstep), align);
	r = CreateBuffer(ctx, vc->statsParamsOffset + sizeof(wfGpuStatsParams), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, kHostCoherent, kDeviceLocal,
		name, &vc->frame);
	if (r != WF_OK)
		return r;
	if ((r = CreateDescriptorSets(ctx, vc)) != WF_OK || (r = RecordTransfers(ctx, c, vc)) != WF_OK ||
		(r = UploadModel(ctx, c, vc)) != WF_OK)
		return r;
	ctx->clothSetVersion++;
	return wfVkUpload(world, c);
}

void wfVkRemoveCloth(wfWorld* world, wfCloth* c)
{
	wfVkContext* ctx = (wfVkContext*)world->backendData;
	wfVkCloth* vc = (wfVkCloth*)c->backendData;
	if (vc == NULL)
		return;
	// Steps wait for their fence, so nothing should be running; a failure here (a lost device)
	// changes nothing about what must be freed.
	wfVkWaitIdle(ctx);
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
