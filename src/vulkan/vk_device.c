// The backend on its device: the device itself comes from src/vulkan/device/ (own or adopted, one choice
// policy); here are the validation sink, the compute pipelines, the command pool and the queries.
#include "vk_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// SPIR-V words compiled by glslc at build time (cmake/VulkanBackend.cmake).
static const uint32_t kPredictSpv[] = {
#include "predict.comp.inc"
};
static const uint32_t kTetherKeysSpv[] = {
#include "tether_keys.comp.inc"
};
static const uint32_t kXpbdSolveSpv[] = {
#include "xpbd_solve.comp.inc"
};
static const uint32_t kFinishSpv[] = {
#include "finish.comp.inc"
};
static const uint32_t kFinishSelfSpv[] = {
#include "finish_self.comp.inc"
};
static const uint32_t kJacobiSweepSpv[] = {
#include "jacobi_sweep.comp.inc"
};
static const uint32_t kSpringsSpv[] = {
#include "springs.comp.inc"
};
static const uint32_t kSpringsTiledSpv[] = {
#include "springs_tiled.comp.inc"
};
static const uint32_t kJacobiTiledSpv[] = {
#include "jacobi_tiled.comp.inc"
};
static const uint32_t kXpbdTiledSpv[] = {
#include "xpbd_tiled.comp.inc"
};
static const uint32_t kNormalsSpv[] = {
#include "normals.comp.inc"
};
static const uint32_t kCheckSpv[] = {
#include "check.comp.inc"
};
static const uint32_t kStatsParticlesSpv[] = {
#include "stats_particles.comp.inc"
};
static const uint32_t kStatsConstraintsSpv[] = {
#include "stats_constraints.comp.inc"
};
static const uint32_t kContactGridSpv[] = {
#include "contact_grid.comp.inc"
};
static const uint32_t kContactScanSpv[] = {
#include "contact_scan.comp.inc"
};
static const uint32_t kContactGatherSpv[] = {
#include "contact_gather.comp.inc"
};
static const uint32_t kContactTriangleSpv[] = {
#include "contact_triangle.comp.inc"
};
static const uint32_t kContactEdgeSpv[] = {
#include "contact_edge.comp.inc"
};
static const uint32_t kCollideMeshSpv[] = {
#include "collide_mesh.comp.inc"
};
static const uint32_t kFusedXpbdSpv[] = {
#include "fused_xpbd.comp.inc"
};
static const uint32_t kFusedJacobiSpv[] = {
#include "fused_jacobi.comp.inc"
};
static const uint32_t kFusedSpringsSpv[] = {
#include "fused_springs.comp.inc"
};

typedef struct ShaderCode {
	const char* name;
	const uint32_t* words;
	size_t size;
} ShaderCode;

#define SHADER(name, words) \
	{ \
		name, words, sizeof(words) \
	}
static const ShaderCode kShaders[WF_VK_PIPE_COUNT] = {
	SHADER("weft predict", kPredictSpv),
	SHADER("weft xpbd solve", kXpbdSolveSpv),
	SHADER("weft finish", kFinishSpv),
	SHADER("weft jacobi sweep", kJacobiSweepSpv),
	SHADER("weft springs", kSpringsSpv),
	SHADER("weft normals", kNormalsSpv),
	SHADER("weft check", kCheckSpv),
	SHADER("weft stats particles", kStatsParticlesSpv),
	SHADER("weft stats constraints", kStatsConstraintsSpv),
	SHADER("weft jacobi sweep, wide gather", kJacobiSweepSpv),
	SHADER("weft springs, wide gather", kSpringsSpv),
	SHADER("weft contact grid", kContactGridSpv),
	SHADER("weft contact scan", kContactScanSpv),
	SHADER("weft contact gather", kContactGatherSpv),
	SHADER("weft finish, self-collision", kFinishSelfSpv),
	SHADER("weft springs, tiles of several substeps", kSpringsTiledSpv),
	SHADER("weft jacobi, tiles of several substeps", kJacobiTiledSpv),
	SHADER("weft xpbd, every colour of a tile", kXpbdTiledSpv),
	SHADER("weft contact point-triangle", kContactTriangleSpv),
	SHADER("weft contact edge-edge", kContactEdgeSpv),
	SHADER("weft mesh colliders", kCollideMeshSpv),
	SHADER("weft tethers and contact keys", kTetherKeysSpv),
};
// Indexed by wfSolverType.
static const ShaderCode kFusedShaders[WF_SOLVER_COUNT] = {
	[WF_SOLVER_XPBD] = SHADER("weft fused xpbd", kFusedXpbdSpv),
	[WF_SOLVER_JACOBI] = SHADER("weft fused jacobi", kFusedJacobiSpv),
	[WF_SOLVER_SPRINGS] = SHADER("weft fused springs", kFusedSpringsSpv),
};
#undef SHADER

wfResult wfVkFail(wfVkContext* ctx, VkResult result, const char* call, const char* file, int line)
{
	wfResult r = WF_ERROR_BACKEND_UNAVAILABLE;
	const char* what = "failed";
	switch (result) {
	case VK_ERROR_OUT_OF_HOST_MEMORY:
	case VK_ERROR_OUT_OF_DEVICE_MEMORY:
	case VK_ERROR_OUT_OF_POOL_MEMORY:
	case VK_ERROR_FRAGMENTED_POOL:
	case VK_ERROR_TOO_MANY_OBJECTS:
		r = WF_ERROR_OUT_OF_MEMORY;
		what = "ran out of memory";
		break;
	case VK_ERROR_DEVICE_LOST:
	case VK_TIMEOUT:
		r = WF_ERROR_DEVICE_LOST;
		what = "lost the device";
		if (ctx != NULL)
			ctx->lost = true;
		break;
	default: break;
	}
	wfWorld* world = ctx != NULL ? ctx->world : NULL;
	wfLog(world, WF_LOG_ERROR, "vulkan: %s %s: %s (%s:%d)", call, what, wfVkResultName(result), file, line);
	if (world != NULL)
		wfSetError(world, r, "vulkan: %s %s (%s)", call, what, wfVkResultName(result));
	return r;
}

// Validation messages: every warning and error is logged and counted on the world, so a test can
// fail on any of them.
static void OnMessage(void* user, bool error, const char* text)
{
	wfVkContext* ctx = (wfVkContext*)user;
	wfWorld* world = ctx != NULL ? ctx->world : NULL;
	wfLog(world, error ? WF_LOG_ERROR : WF_LOG_WARNING, "vulkan validation: %s", text);
	if (world != NULL)
		world->warnings.validationMessages++;
}

// A compute pipeline of embedded SPIR-V words with the given layout and specialization.
static wfResult CreateComputePipeline(wfVkContext* ctx, const ShaderCode* code, VkPipelineLayout layout, const VkSpecializationInfo* spec,
	VkPipeline* out)
{
	WF_VK_CHECK(ctx, wfVkComputePipelineCreate(&ctx->gpu, code->words, code->size, layout, spec, out));
	wfVkGpuSetName(&ctx->gpu, VK_OBJECT_TYPE_PIPELINE, (uint64_t)*out, code->name);
	return WF_OK;
}

static wfResult CreateLayouts(wfVkContext* ctx)
{
	const wfVkDeviceFuncs* f = &ctx->gpu.fd;
	VkDescriptorSetLayoutBinding bindings[WF_GPU_BIND_COUNT];
	for (uint32_t b = 0; b < WF_GPU_BIND_COUNT; ++b) {
		bindings[b] = (VkDescriptorSetLayoutBinding){
			.binding = b,
			.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
			.descriptorCount = 1,
			.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
		};
	}
	VkDescriptorSetLayoutCreateInfo setInfo = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
		.bindingCount = WF_GPU_BIND_COUNT,
		.pBindings = bindings,
	};
	WF_VK_CHECK(ctx, f->vkCreateDescriptorSetLayout(ctx->gpu.device, &setInfo, NULL, &ctx->setLayout));
	// Set 1: the world's contact arrays (bound once per frame; kernels that do not read it ignore it).
	VkDescriptorSetLayoutCreateInfo contactInfo = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
		.bindingCount = WF_GPU_CONTACT_BIND_COUNT,
		.pBindings = bindings,
	};
	WF_VK_CHECK(ctx, f->vkCreateDescriptorSetLayout(ctx->gpu.device, &contactInfo, NULL, &ctx->contactSetLayout));
	const VkDescriptorSetLayout sets[2] = {ctx->setLayout, ctx->contactSetLayout};
	VkPushConstantRange push = {VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(wfGpuPush)};
	VkPipelineLayoutCreateInfo layoutInfo = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
		.setLayoutCount = 2,
		.pSetLayouts = sets,
		.pushConstantRangeCount = 1,
		.pPushConstantRanges = &push,
	};
	WF_VK_CHECK(ctx, f->vkCreatePipelineLayout(ctx->gpu.device, &layoutInfo, NULL, &ctx->pipelineLayout));
	// The mesh kernel's: set 0 and the mesh set, not the contact set (the two would pass the 32
	// storage buffers a stage may have). Set 0 and the push constants are the same, so set 0 stays
	// bound across the two layouts; the set 1 of each is bound again when the other was.
	VkDescriptorSetLayoutCreateInfo meshInfo = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
		.bindingCount = WF_GPU_MESH_BIND_COUNT,
		.pBindings = bindings,
	};
	WF_VK_CHECK(ctx, f->vkCreateDescriptorSetLayout(ctx->gpu.device, &meshInfo, NULL, &ctx->meshSetLayout));
	const VkDescriptorSetLayout meshSets[2] = {ctx->setLayout, ctx->meshSetLayout};
	layoutInfo.pSetLayouts = meshSets;
	WF_VK_CHECK(ctx, f->vkCreatePipelineLayout(ctx->gpu.device, &layoutInfo, NULL, &ctx->meshPipelineLayout));
	layoutInfo.setLayoutCount = 1;
	// The batch layout of the fused kernels: substeps, slots and three views of an arena.
	VkDescriptorSetLayoutCreateInfo batchInfo = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
		.bindingCount = WF_GPU_BATCH_BIND_COUNT,
		.pBindings = bindings,
	};
	WF_VK_CHECK(ctx, f->vkCreateDescriptorSetLayout(ctx->gpu.device, &batchInfo, NULL, &ctx->batchSetLayout));
	layoutInfo.pSetLayouts = &ctx->batchSetLayout;
	WF_VK_CHECK(ctx, f->vkCreatePipelineLayout(ctx->gpu.device, &layoutInfo, NULL, &ctx->batchPipelineLayout));
	// The fused kernels need one workgroup of WF_GPU_FUSED_GROUP_SIZE invocations; their shared
	// array is as large as the device allows (up to 48 KB), set by a specialization constant.
	const VkPhysicalDeviceLimits* lim = &ctx->gpu.properties.limits;
	ctx->fusedAvailable = lim->maxComputeWorkGroupInvocations >= WF_GPU_FUSED_GROUP_SIZE &&
		lim->maxComputeWorkGroupSize[0] >= WF_GPU_FUSED_GROUP_SIZE && lim->maxComputeSharedMemorySize >= 1024;
	uint32_t sharedFloats = lim->maxComputeSharedMemorySize / 4;
	ctx->fusedSharedFloats = sharedFloats < WF_GPU_FUSED_SHARED_FLOATS ? sharedFloats : WF_GPU_FUSED_SHARED_FLOATS;
	ctx->fusedDisabled = ctx->world->def.fusedPath == WF_FUSED_NEVER;
	ctx->fusedForced = ctx->world->def.fusedPath == WF_FUSED_ALWAYS;
	return WF_OK;
}

// A kernel's pipeline, made the first time a frame records it: a world compiles only the kernels
// its solver and features use (on lavapipe with validation each costs tens of milliseconds).
wfResult wfVkPipeline(wfVkContext* ctx, int pipe, VkPipeline* out)
{
	VkPipeline* slot = &ctx->pipelines[ctx->recordedColliders][pipe];
	if (*slot == VK_NULL_HANDLE) {
		// WF_GPU_SPEC_GATHER (an int), WF_GPU_SPEC_MOVES (a VkBool32: kMoves of common.glsl, the
		// world's velocity mode, fixed at creation) and WF_GPU_SPEC_COLLIDERS (kColliders, the
		// frame being recorded), four bytes each.
		const bool wide = pipe == WF_VK_PIPE_JACOBI_SWEEP_WIDE || pipe == WF_VK_PIPE_SPRINGS_WIDE;
		const uint32_t values[3] = {
			(uint32_t)(wide ? WF_GPU_GATHER_WIDE : WF_GPU_GATHER),
			ctx->world->def.velocity == WF_VELOCITY_MOVES ? VK_TRUE : VK_FALSE,
			ctx->recordedColliders ? VK_TRUE : VK_FALSE,
		};
		const VkSpecializationMapEntry entries[3] = {
			{WF_GPU_SPEC_GATHER, 0, sizeof(int32_t)},
			{WF_GPU_SPEC_MOVES, sizeof(uint32_t), sizeof(VkBool32)},
			{WF_GPU_SPEC_COLLIDERS, 2 * sizeof(uint32_t), sizeof(VkBool32)},
		};
		VkSpecializationInfo spec = {3, entries, sizeof values, values};
		VkPipelineLayout layout = pipe == WF_VK_PIPE_COLLIDE_MESH ? ctx->meshPipelineLayout : ctx->pipelineLayout;
		wfResult r = CreateComputePipeline(ctx, &kShaders[pipe], layout, &spec, slot);
		if (r != WF_OK)
			return r;
	}
	*out = *slot;
	return WF_OK;
}

wfResult wfVkFusedPipeline(wfVkContext* ctx, wfSolverType solver, int sizeIndex, VkPipeline* out)
{
	VkPipeline* slot = &ctx->fusedPipelines[ctx->recordedColliders][solver][sizeIndex];
	if (*slot == VK_NULL_HANDLE) {
		const ShaderCode* code = &kFusedShaders[solver];
		// Specialization: the workgroup size, a shared array of 12 floats per invocation (4
		// particles' xyz) within the device's limit less the self-collision grid's, the world's
		// velocity mode (kMoves), that grid's words (fused_self.glsl) and kColliders.
		const uint32_t values[5] = {
			wfVkFusedSharedFloats(ctx, sizeIndex),
			32u << sizeIndex,
			ctx->world->def.velocity == WF_VELOCITY_MOVES ? VK_TRUE : VK_FALSE,
			wfVkFusedHashWords(ctx, sizeIndex),
			ctx->recordedColliders ? VK_TRUE : VK_FALSE,
		};
		VkSpecializationMapEntry entries[5] = {
			{WF_GPU_FUSED_SPEC_SHARED_FLOATS, 0, sizeof(uint32_t)},
			{WF_GPU_FUSED_SPEC_GROUP_SIZE, sizeof(uint32_t), sizeof(uint32_t)},
			{WF_GPU_SPEC_MOVES, 2 * sizeof(uint32_t), sizeof(VkBool32)},
			{WF_GPU_FUSED_SPEC_HASH_WORDS, 3 * sizeof(uint32_t), sizeof(uint32_t)},
			{WF_GPU_SPEC_COLLIDERS, 4 * sizeof(uint32_t), sizeof(VkBool32)},
		};
		VkSpecializationInfo spec = {5, entries, sizeof values, values};
		wfResult r = CreateComputePipeline(ctx, code, ctx->batchPipelineLayout, &spec, slot);
		if (r != WF_OK)
			return r;
	}
	*out = *slot;
	return WF_OK;
}

static wfResult CreateDeviceObjects(wfVkContext* ctx);

wfResult wfVkCreateDevice(wfVkContext* ctx, const char* deviceName, bool allowSoftware)
{
	// A family with graphics and compute where there is one: a renderer on the same device then
	// submits to the world's queue (wfWorld_GetVulkanDevice) and draws from the solver's buffers after
	// a pipeline barrier, with no semaphores or ownership transfers. weft submits a frame and waits
	// for it, so an async (compute-only) family would overlap nothing.
	wfVkGpuDef def = {
		.appName = "weft",
		.deviceName = deviceName,
		.allowSoftware = allowSoftware,
		.validation = ctx->world->def.validation,
		.queueNeeds = VK_QUEUE_COMPUTE_BIT,
		.queuePrefers = VK_QUEUE_GRAPHICS_BIT,
		.onMessage = OnMessage,
		.messageUser = ctx,
	};
	char error[512] = "";
	wfResult r = wfVkGpuCreate(&ctx->gpu, &def, error, (int)sizeof error);
	if (r != WF_OK)
		return wfSetError(ctx->world, r, "%s", error);
	return CreateDeviceObjects(ctx);
}

wfResult wfVkAdoptDevice(wfVkContext* ctx, const wfVulkanDevice* d)
{
	char error[512] = "";
	wfResult r = wfVkGpuAdopt(&ctx->gpu, d, VK_QUEUE_COMPUTE_BIT, error, (int)sizeof error);
	if (r != WF_OK)
		return wfSetError(ctx->world, r, "%s", error);
	return CreateDeviceObjects(ctx);
}

// What the backend creates on its device, its own or a borrowed one: pipelines, the command pool,
// the frame's command buffer and fence, the timestamp queries.
static wfResult CreateDeviceObjects(wfVkContext* ctx)
{
	wfResult r = CreateLayouts(ctx);
	if (r != WF_OK)
		return r;
	const wfVkGpu* gpu = &ctx->gpu;
	WF_VK_CHECK(ctx, wfVkCommandsCreate(gpu, &ctx->commandPool, &ctx->frameCmd, &ctx->fence));
	wfVkGpuSetName(gpu, VK_OBJECT_TYPE_COMMAND_BUFFER, (uint64_t)(uintptr_t)ctx->frameCmd, "weft frame");

	// Timestamps around each frame, where the queue supports them (the frame recorder grows the
	// pool when stage timing needs a query per stage change: 3 per substep and large cloth).
	ctx->lastFrameGpuMs = -1.0;
	const uint32_t bits = gpu->family.timestampValidBits;
	if (bits > 0 && gpu->properties.limits.timestampPeriod > 0.0f) {
		VkQueryPoolCreateInfo queryInfo = {
			.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
			.queryType = VK_QUERY_TYPE_TIMESTAMP,
			.queryCount = 2,
		};
		WF_VK_CHECK(ctx, gpu->fd.vkCreateQueryPool(gpu->device, &queryInfo, NULL, &ctx->timestamps));
		ctx->timestampCapacity = queryInfo.queryCount;
		ctx->timestampMask = bits >= 64 ? ~0ull : (1ull << bits) - 1ull;
	}
	return WF_OK;
}

void wfVkDestroyDevice(wfVkContext* ctx)
{
	const wfVkGpu* gpu = &ctx->gpu;
	const wfVkDeviceFuncs* f = &gpu->fd;
	if (gpu->device != VK_NULL_HANDLE && f->vkDestroyPipeline != NULL) {
		// A lost device cannot be waited for; destroy anyway. A borrowed device is not waited for
		// as a whole (the caller may be busy on other queues): only our queue.
		wfVkGpuWait(gpu);
		VkDevice device = gpu->device;
		if (ctx->timestamps != VK_NULL_HANDLE)
			f->vkDestroyQueryPool(device, ctx->timestamps, NULL);
		if (ctx->fence != VK_NULL_HANDLE)
			f->vkDestroyFence(device, ctx->fence, NULL);
		if (ctx->commandPool != VK_NULL_HANDLE)
			f->vkDestroyCommandPool(device, ctx->commandPool, NULL);
		for (int colliders = 0; colliders < 2; ++colliders) {
			for (int p = 0; p < WF_VK_PIPE_COUNT; ++p) {
				if (ctx->pipelines[colliders][p] != VK_NULL_HANDLE)
					f->vkDestroyPipeline(device, ctx->pipelines[colliders][p], NULL);
			}
			for (int solver = 0; solver < WF_SOLVER_COUNT; ++solver) {
				for (int k = 0; k < WF_GPU_FUSED_GROUP_SIZES; ++k) {
					if (ctx->fusedPipelines[colliders][solver][k] != VK_NULL_HANDLE)
						f->vkDestroyPipeline(device, ctx->fusedPipelines[colliders][solver][k], NULL);
				}
			}
		}
		if (ctx->pipelineLayout != VK_NULL_HANDLE)
			f->vkDestroyPipelineLayout(device, ctx->pipelineLayout, NULL);
		if (ctx->setLayout != VK_NULL_HANDLE)
			f->vkDestroyDescriptorSetLayout(device, ctx->setLayout, NULL);
		if (ctx->batchPipelineLayout != VK_NULL_HANDLE)
			f->vkDestroyPipelineLayout(device, ctx->batchPipelineLayout, NULL);
		if (ctx->batchSetLayout != VK_NULL_HANDLE)
			f->vkDestroyDescriptorSetLayout(device, ctx->batchSetLayout, NULL);
		if (ctx->meshPipelineLayout != VK_NULL_HANDLE)
			f->vkDestroyPipelineLayout(device, ctx->meshPipelineLayout, NULL);
		if (ctx->meshSetLayout != VK_NULL_HANDLE)
			f->vkDestroyDescriptorSetLayout(device, ctx->meshSetLayout, NULL);
		if (ctx->contactSetLayout != VK_NULL_HANDLE)
			f->vkDestroyDescriptorSetLayout(device, ctx->contactSetLayout, NULL);
	}
	wfVkGpuDestroy(&ctx->gpu); // leaves a borrowed device (wfWorldDef.vulkanDevice) alive
}

int wfVulkanEnumerate(wfDeviceInfo* out, int capacity, char* error, int errorSize)
{
	char scratch[512];
	if (error == NULL || errorSize <= 0) {
		error = scratch;
		errorSize = (int)sizeof scratch;
	}
	error[0] = 0;
	wfVkGpu* gpu = (wfVkGpu*)calloc(1, sizeof *gpu);
	if (gpu == NULL) {
		snprintf(error, (size_t)errorSize, "out of memory");
		return 0;
	}
	int found = 0;
	wfVkGpuDef def = {.appName = "weft"};
	if (wfVkGpuCreateInstance(gpu, &def, error, errorSize) == WF_OK) {
		VkPhysicalDevice devices[16];
		uint32_t count = wfVkGpuListDevices(gpu, devices, 16);
		if (count == 0)
			snprintf(error, (size_t)errorSize, "no Vulkan device (the loader found no driver)");
		for (uint32_t i = 0; i < count; ++i) {
			VkPhysicalDeviceProperties p;
			gpu->fi.vkGetPhysicalDeviceProperties(devices[i], &p);
			if (out != NULL && found < capacity) {
				wfDeviceInfo* d = &out[found];
				memset(d, 0, sizeof *d);
				snprintf(d->name, sizeof d->name, "%s", p.deviceName);
				d->hardware = p.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU;
				d->apiVersion = p.apiVersion;
			}
			found++;
		}
	}
	wfVkGpuDestroy(gpu);
	free(gpu);
	return found;
}
