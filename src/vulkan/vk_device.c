// Vulkan instance, validation messages, device choice, and the compute pipelines of the backend.
#include "vk_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// SPIR-V words compiled by glslc at build time (cmake/VulkanBackend.cmake).
static const uint32_t kPredictSpv[] = {
#include "predict.comp.inc"
};
static const uint32_t kXpbdSolveSpv[] = {
#include "xpbd_solve.comp.inc"
};
static const uint32_t kFinishSpv[] = {
#include "finish.comp.inc"
};
static const uint32_t kJacobiSweepSpv[] = {
#include "jacobi_sweep.comp.inc"
};
static const uint32_t kSpringsSpv[] = {
#include "springs.comp.inc"
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

#define SHADER(name, words) {name, words, sizeof(words)}
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
};
// Indexed by wfSolverType.
static const ShaderCode kFusedShaders[3] = {
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
	default:
		break;
	}
	wfWorld* world = ctx != NULL ? ctx->world : NULL;
	wfLog(world, WF_LOG_ERROR, "vulkan: %s %s: %s (%s:%d)", call, what, wfVkResultName(result), file, line);
	if (world != NULL)
		wfSetError(world, r, "vulkan: %s %s (%s)", call, what, wfVkResultName(result));
	return r;
}

void wfVkSetName(wfVkContext* ctx, VkObjectType type, uint64_t handle, const char* name)
{
	if (!ctx->debugUtils || ctx->fi.vkSetDebugUtilsObjectNameEXT == NULL || handle == 0)
		return;
	VkDebugUtilsObjectNameInfoEXT info = {
		.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
		.objectType = type,
		.objectHandle = handle,
		.pObjectName = name,
	};
	ctx->fi.vkSetDebugUtilsObjectNameEXT(ctx->device, &info); // only fails on host memory exhaustion
}

// Validation messages: every warning and error is logged and counted on the world, so a test can
// fail on any of them.
static VKAPI_ATTR VkBool32 VKAPI_CALL DebugMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
	VkDebugUtilsMessageTypeFlagsEXT types, const VkDebugUtilsMessengerCallbackDataEXT* data, void* user)
{
	(void)types;
	wfVkContext* ctx = (wfVkContext*)user;
	wfWorld* world = ctx != NULL ? ctx->world : NULL;
	bool error = (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) != 0;
	wfLog(world, error ? WF_LOG_ERROR : WF_LOG_WARNING, "vulkan validation: %s", data != NULL && data->pMessage != NULL ? data->pMessage : "?");
	if (world != NULL)
		world->warnings.validationMessages++;
	return VK_FALSE;
}

static bool HasLayer(const wfVkLoader* l, const char* name)
{
	uint32_t count = 0;
	if (l->vkEnumerateInstanceLayerProperties(&count, NULL) != VK_SUCCESS || count == 0)
		return false;
	VkLayerProperties* layers = (VkLayerProperties*)calloc(count, sizeof *layers);
	bool found = false;
	if (layers != NULL && l->vkEnumerateInstanceLayerProperties(&count, layers) >= VK_SUCCESS) {
		for (uint32_t i = 0; i < count && !found; ++i)
			found = strcmp(layers[i].layerName, name) == 0;
	}
	free(layers);
	return found;
}

static bool HasInstanceExtension(const wfVkLoader* l, const char* layer, const char* name)
{
	uint32_t count = 0;
	if (l->vkEnumerateInstanceExtensionProperties(layer, &count, NULL) != VK_SUCCESS || count == 0)
		return false;
	VkExtensionProperties* ext = (VkExtensionProperties*)calloc(count, sizeof *ext);
	bool found = false;
	if (ext != NULL && l->vkEnumerateInstanceExtensionProperties(layer, &count, ext) >= VK_SUCCESS) {
		for (uint32_t i = 0; i < count && !found; ++i)
			found = strcmp(ext[i].extensionName, name) == 0;
	}
	free(ext);
	return found;
}

// Opens the loader and creates an instance (with validation when WEFT_VK_VALIDATION=1).
static wfResult CreateInstance(wfVkContext* ctx, bool validation, char* error, int errorSize)
{
	if (!wfVkLoaderOpen(&ctx->loader, error, errorSize))
		return WF_ERROR_BACKEND_UNAVAILABLE;
	const char* layers[1];
	const char* extensions[1];
	uint32_t layerCount = 0, extensionCount = 0;
	if (validation) {
		if (HasLayer(&ctx->loader, "VK_LAYER_KHRONOS_validation"))
			layers[layerCount++] = "VK_LAYER_KHRONOS_validation";
		else
			wfLog(ctx->world, WF_LOG_WARNING, "vulkan: WEFT_VK_VALIDATION=1 but VK_LAYER_KHRONOS_validation is not installed");
	}
	if (HasInstanceExtension(&ctx->loader, NULL, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) ||
		(layerCount > 0 && HasInstanceExtension(&ctx->loader, layers[0], VK_EXT_DEBUG_UTILS_EXTENSION_NAME))) {
		extensions[extensionCount++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
		ctx->debugUtils = true;
	}
	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = "weft",
		.applicationVersion = VK_MAKE_VERSION(WF_VERSION_MAJOR, WF_VERSION_MINOR, WF_VERSION_PATCH),
		.pEngineName = "weft",
		.engineVersion = VK_MAKE_VERSION(WF_VERSION_MAJOR, WF_VERSION_MINOR, WF_VERSION_PATCH),
		.apiVersion = VK_API_VERSION_1_0,
	};
	// Chained into the instance create info too, so messages of instance creation are caught.
	VkDebugUtilsMessengerCreateInfoEXT messenger = {
		.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
		.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
		.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
			VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
		.pfnUserCallback = DebugMessage,
		.pUserData = ctx,
	};
	bool useMessenger = layerCount > 0 && ctx->debugUtils;
	VkInstanceCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pNext = useMessenger ? &messenger : NULL,
		.pApplicationInfo = &app,
		.enabledLayerCount = layerCount,
		.ppEnabledLayerNames = layerCount > 0 ? layers : NULL,
		.enabledExtensionCount = extensionCount,
		.ppEnabledExtensionNames = extensionCount > 0 ? extensions : NULL,
	};
	VkResult vr = ctx->loader.vkCreateInstance(&info, NULL, &ctx->instance);
	if (vr == VK_ERROR_INCOMPATIBLE_DRIVER) {
		snprintf(error, (size_t)errorSize, "no Vulkan driver (vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER)");
		return WF_ERROR_BACKEND_UNAVAILABLE;
	}
	if (vr != VK_SUCCESS) {
		snprintf(error, (size_t)errorSize, "vkCreateInstance failed: %s", wfVkResultName(vr));
		return vr == VK_ERROR_OUT_OF_HOST_MEMORY ? WF_ERROR_OUT_OF_MEMORY : WF_ERROR_BACKEND_UNAVAILABLE;
	}
	wfVkPinLoadedModules();
	const char* missing = wfVkLoadInstance(&ctx->loader, ctx->instance, &ctx->fi);
	if (missing != NULL) {
		snprintf(error, (size_t)errorSize, "the Vulkan instance has no %s", missing);
		return WF_ERROR_BACKEND_UNAVAILABLE;
	}
	if (useMessenger && ctx->fi.vkCreateDebugUtilsMessengerEXT != NULL) {
		vr = ctx->fi.vkCreateDebugUtilsMessengerEXT(ctx->instance, &messenger, NULL, &ctx->messenger);
		if (vr != VK_SUCCESS) {
			snprintf(error, (size_t)errorSize, "vkCreateDebugUtilsMessengerEXT failed: %s", wfVkResultName(vr));
			return WF_ERROR_BACKEND_UNAVAILABLE;
		}
	}
	return WF_OK;
}

static void DestroyInstance(wfVkContext* ctx)
{
	if (ctx->messenger != VK_NULL_HANDLE && ctx->fi.vkDestroyDebugUtilsMessengerEXT != NULL)
		ctx->fi.vkDestroyDebugUtilsMessengerEXT(ctx->instance, ctx->messenger, NULL);
	ctx->messenger = VK_NULL_HANDLE;
	if (ctx->instance != VK_NULL_HANDLE && ctx->fi.vkDestroyInstance != NULL && !ctx->borrowed)
		ctx->fi.vkDestroyInstance(ctx->instance, NULL);
	ctx->instance = VK_NULL_HANDLE;
	wfVkLoaderClose(&ctx->loader);
}

// Lists the physical devices into a malloc'ed array.
static VkResult ListDevices(wfVkContext* ctx, VkPhysicalDevice** out, uint32_t* count)
{
	*out = NULL;
	*count = 0;
	VkResult vr = ctx->fi.vkEnumeratePhysicalDevices(ctx->instance, count, NULL);
	if (vr != VK_SUCCESS || *count == 0)
		return vr;
	*out = (VkPhysicalDevice*)calloc(*count, sizeof(VkPhysicalDevice));
	if (*out == NULL)
		return VK_ERROR_OUT_OF_HOST_MEMORY;
	vr = ctx->fi.vkEnumeratePhysicalDevices(ctx->instance, count, *out);
	return vr == VK_INCOMPLETE ? VK_SUCCESS : vr;
}

static bool ComputeQueueFamily(wfVkContext* ctx, VkPhysicalDevice pd, uint32_t* family)
{
	uint32_t count = 0;
	ctx->fi.vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, NULL);
	VkQueueFamilyProperties* props = (VkQueueFamilyProperties*)calloc(count > 0 ? count : 1, sizeof *props);
	if (props == NULL)
		return false;
	ctx->fi.vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, props);
	bool found = false;
	// Prefer a family with graphics and compute: a renderer on the same device then submits to the
	// world's queue (wfWorld_GetVulkanDevice) and draws from the solver's buffers after a pipeline
	// barrier, with no semaphores or ownership transfers. weft submits a frame and waits for it, so an
	// async (compute-only) family would overlap nothing. Else any family with compute.
	for (int pass = 0; pass < 2 && !found; ++pass) {
		for (uint32_t i = 0; i < count && !found; ++i) {
			bool compute = (props[i].queueFlags & VK_QUEUE_COMPUTE_BIT) != 0;
			bool graphics = (props[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) != 0;
			if (compute && (pass == 1 || graphics) && props[i].queueCount > 0) {
				*family = i;
				found = true;
			}
		}
	}
	free(props);
	return found;
}

// Device choice: the named one (substring, any type), else the first discrete GPU, then
// integrated, then virtual; a software device (lavapipe) only when allowed.
static wfResult PickDevice(wfVkContext* ctx, const char* name, bool allowSoftware, char* error, int errorSize)
{
	VkPhysicalDevice* devices;
	uint32_t count;
	VkResult vr = ListDevices(ctx, &devices, &count);
	if (vr != VK_SUCCESS) {
		free(devices);
		snprintf(error, (size_t)errorSize, "vkEnumeratePhysicalDevices failed: %s", wfVkResultName(vr));
		return WF_ERROR_BACKEND_UNAVAILABLE;
	}
	if (count == 0) {
		snprintf(error, (size_t)errorSize, "no Vulkan device (the loader found no driver)");
		return WF_ERROR_BACKEND_UNAVAILABLE;
	}
	static const VkPhysicalDeviceType kOrder[] = {VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU,
		VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU, VK_PHYSICAL_DEVICE_TYPE_CPU};
	int chosen = -1;
	char seen[512] = "";
	for (uint32_t i = 0; i < count; ++i) {
		VkPhysicalDeviceProperties p;
		ctx->fi.vkGetPhysicalDeviceProperties(devices[i], &p);
		size_t len = strlen(seen);
		snprintf(seen + len, sizeof seen - len, "%s%s", len > 0 ? ", " : "", p.deviceName);
	}
	if (name != NULL && name[0] != 0) {
		for (uint32_t i = 0; i < count && chosen < 0; ++i) {
			VkPhysicalDeviceProperties p;
			ctx->fi.vkGetPhysicalDeviceProperties(devices[i], &p);
			if (wfDevicePatternSelects(name, (int)i, p.deviceName))
				chosen = (int)i;
		}
		if (chosen < 0) {
			free(devices);
			if (name[0] == '#')
				snprintf(error, (size_t)errorSize, "no Vulkan device \"%s\" (allowed: #0 to #%u, the devices in order: %s)", name, count - 1, seen);
			else
				snprintf(error, (size_t)errorSize, "no Vulkan device named \"%s\" (devices: %s)", name, seen);
			return WF_ERROR_BACKEND_UNAVAILABLE;
		}
	} else {
		int types = allowSoftware ? 4 : 3;
		for (int t = 0; t < types && chosen < 0; ++t) {
			for (uint32_t i = 0; i < count && chosen < 0; ++i) {
				VkPhysicalDeviceProperties p;
				ctx->fi.vkGetPhysicalDeviceProperties(devices[i], &p);
				uint32_t family;
				if (p.deviceType == kOrder[t] && ComputeQueueFamily(ctx, devices[i], &family))
					chosen = (int)i;
			}
		}
		if (chosen < 0) {
			free(devices);
			snprintf(error, (size_t)errorSize, "no hardware Vulkan device with a compute queue (devices: %s)", seen);
			return WF_ERROR_BACKEND_UNAVAILABLE;
		}
	}
	ctx->physicalDevice = devices[chosen];
	free(devices);
	ctx->fi.vkGetPhysicalDeviceProperties(ctx->physicalDevice, &ctx->properties);
	ctx->fi.vkGetPhysicalDeviceMemoryProperties(ctx->physicalDevice, &ctx->memory);
	if (!ComputeQueueFamily(ctx, ctx->physicalDevice, &ctx->queueFamily)) {
		snprintf(error, (size_t)errorSize, "Vulkan device %s has no compute queue", ctx->properties.deviceName);
		return WF_ERROR_BACKEND_UNAVAILABLE;
	}
	return WF_OK;
}

// A compute pipeline of embedded SPIR-V words with the given layout and specialization.
static wfResult CreateComputePipeline(wfVkContext* ctx, const ShaderCode* code, VkPipelineLayout layout,
	const VkSpecializationInfo* spec, VkPipeline* out)
{
	const wfVkDeviceFuncs* f = &ctx->fd;
	VkShaderModuleCreateInfo moduleInfo = {
		.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
		.codeSize = code->size,
		.pCode = code->words,
	};
	VkShaderModule module;
	WF_VK_CHECK(ctx, f->vkCreateShaderModule(ctx->device, &moduleInfo, NULL, &module));
	VkComputePipelineCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
		.stage = {
			.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
			.stage = VK_SHADER_STAGE_COMPUTE_BIT,
			.module = module,
			.pName = "main",
			.pSpecializationInfo = spec,
		},
		.layout = layout,
	};
	VkResult vr = f->vkCreateComputePipelines(ctx->device, VK_NULL_HANDLE, 1, &info, NULL, out);
	f->vkDestroyShaderModule(ctx->device, module, NULL);
	WF_VK_CHECK(ctx, vr);
	wfVkSetName(ctx, VK_OBJECT_TYPE_PIPELINE, (uint64_t)*out, code->name);
	return WF_OK;
}

static wfResult CreatePipelines(wfVkContext* ctx)
{
	const wfVkDeviceFuncs* f = &ctx->fd;
	VkDescriptorSetLayoutBinding bindings[WF_VK_BIND_COUNT];
	for (uint32_t b = 0; b < WF_VK_BIND_COUNT; ++b) {
		bindings[b] = (VkDescriptorSetLayoutBinding){
			.binding = b,
			.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
			.descriptorCount = 1,
			.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
		};
	}
	VkDescriptorSetLayoutCreateInfo setInfo = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
		.bindingCount = WF_VK_BIND_COUNT,
		.pBindings = bindings,
	};
	WF_VK_CHECK(ctx, f->vkCreateDescriptorSetLayout(ctx->device, &setInfo, NULL, &ctx->setLayout));
	VkPushConstantRange push = {VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(wfVkPush)};
	VkPipelineLayoutCreateInfo layoutInfo = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
		.setLayoutCount = 1,
		.pSetLayouts = &ctx->setLayout,
		.pushConstantRangeCount = 1,
		.pPushConstantRanges = &push,
	};
	WF_VK_CHECK(ctx, f->vkCreatePipelineLayout(ctx->device, &layoutInfo, NULL, &ctx->pipelineLayout));
	// The batch layout of the fused kernels: substeps, slots and three views of an arena.
	VkDescriptorSetLayoutCreateInfo batchInfo = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
		.bindingCount = WF_VK_BATCH_BIND_COUNT,
		.pBindings = bindings,
	};
	WF_VK_CHECK(ctx, f->vkCreateDescriptorSetLayout(ctx->device, &batchInfo, NULL, &ctx->batchSetLayout));
	layoutInfo.pSetLayouts = &ctx->batchSetLayout;
	WF_VK_CHECK(ctx, f->vkCreatePipelineLayout(ctx->device, &layoutInfo, NULL, &ctx->batchPipelineLayout));
	// The fused kernels need one workgroup of WF_VK_FUSED_GROUP_SIZE invocations; their shared
	// array is as large as the device allows (up to 48 KB), set by a specialization constant.
	const VkPhysicalDeviceLimits* lim = &ctx->properties.limits;
	ctx->fusedAvailable = lim->maxComputeWorkGroupInvocations >= WF_VK_FUSED_GROUP_SIZE &&
		lim->maxComputeWorkGroupSize[0] >= WF_VK_FUSED_GROUP_SIZE && lim->maxComputeSharedMemorySize >= 1024;
	uint32_t sharedFloats = lim->maxComputeSharedMemorySize / 4;
	ctx->fusedSharedFloats = sharedFloats < WF_VK_FUSED_SHARED_FLOATS ? sharedFloats : WF_VK_FUSED_SHARED_FLOATS;
	ctx->fusedDisabled = ctx->world->def.fusedPath == WF_FUSED_NEVER;
	ctx->fusedForced = ctx->world->def.fusedPath == WF_FUSED_ALWAYS;
	for (int p = 0; p < WF_VK_PIPE_COUNT; ++p) {
		const int32_t gather = p == WF_VK_PIPE_JACOBI_SWEEP_WIDE || p == WF_VK_PIPE_SPRINGS_WIDE ? WF_VK_GATHER_WIDE : WF_VK_GATHER;
		VkSpecializationMapEntry entry = {WF_VK_SPEC_GATHER, 0, sizeof gather};
		VkSpecializationInfo spec = {1, &entry, sizeof gather, &gather};
		wfResult r = CreateComputePipeline(ctx, &kShaders[p], ctx->pipelineLayout, &spec, &ctx->pipelines[p]);
		if (r != WF_OK)
			return r;
	}
	return WF_OK;
}

wfResult wfVkFusedPipeline(wfVkContext* ctx, wfSolverType solver, int sizeIndex, VkPipeline* out)
{
	VkPipeline* slot = &ctx->fusedPipelines[solver][sizeIndex];
	if (*slot == VK_NULL_HANDLE) {
		const ShaderCode* code = &kFusedShaders[solver];
		// Specialization: the workgroup size and a shared array of 12 floats per invocation (4
		// particles' xyz) within the device's limit.
		uint32_t values[2] = {0, (uint32_t)WF_VK_FUSED_PER_THREAD * 3u * (32u << sizeIndex)};
		const uint32_t room = ctx->fusedSharedFloats - WF_VK_FUSED_SHARED_WORDS; // the kernel's other shared words
		values[0] = values[1] < room ? values[1] : room;
		values[1] = 32u << sizeIndex;
		VkSpecializationMapEntry entries[2] = {
			{WF_VK_FUSED_SPEC_SHARED_FLOATS, 0, sizeof(uint32_t)},
			{WF_VK_FUSED_SPEC_GROUP_SIZE, sizeof(uint32_t), sizeof(uint32_t)},
		};
		VkSpecializationInfo spec = {2, entries, sizeof values, values};
		wfResult r = CreateComputePipeline(ctx, code, ctx->batchPipelineLayout, &spec, slot);
		if (r != WF_OK)
			return r;
	}
	*out = *slot;
	return WF_OK;
}

static wfResult CreateDeviceObjects(wfVkContext* ctx);

bool wfVkQueueFamily(const wfVkContext* ctx, uint32_t index, VkQueueFamilyProperties* out)
{
	uint32_t count = 0;
	ctx->fi.vkGetPhysicalDeviceQueueFamilyProperties(ctx->physicalDevice, &count, NULL);
	VkQueueFamilyProperties* families = (VkQueueFamilyProperties*)calloc(count > 0 ? count : 1, sizeof *families);
	bool found = false;
	if (families != NULL) {
		ctx->fi.vkGetPhysicalDeviceQueueFamilyProperties(ctx->physicalDevice, &count, families);
		found = index < count;
		if (found)
			*out = families[index];
		free(families);
	}
	return found;
}

wfResult wfVkCreateDevice(wfVkContext* ctx, const char* deviceName, bool allowSoftware)
{
	char error[512] = "";
	wfResult r = CreateInstance(ctx, ctx->world->def.validation, error, (int)sizeof error);
	if (r == WF_OK)
		r = PickDevice(ctx, deviceName, allowSoftware, error, (int)sizeof error);
	if (r != WF_OK)
		return wfSetError(ctx->world, r, "%s", error);

	float priority = 1.0f;
	VkDeviceQueueCreateInfo queueInfo = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = ctx->queueFamily,
		.queueCount = 1,
		.pQueuePriorities = &priority,
	};
	// The solver needs no optional feature. Anisotropic filtering is enabled where it is cheap (not on
	// software rasterisers) for a renderer that shares this device, as its own device would.
	VkPhysicalDeviceFeatures available;
	ctx->fi.vkGetPhysicalDeviceFeatures(ctx->physicalDevice, &available);
	memset(&ctx->features, 0, sizeof ctx->features);
	ctx->features.samplerAnisotropy = available.samplerAnisotropy && ctx->properties.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU;
	VkDeviceCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &queueInfo,
		.pEnabledFeatures = &ctx->features,
	};
	WF_VK_CHECK(ctx, ctx->fi.vkCreateDevice(ctx->physicalDevice, &info, NULL, &ctx->device));
	const char* missing = wfVkLoadDevice(&ctx->fi, ctx->device, &ctx->fd);
	if (missing != NULL)
		return wfSetError(ctx->world, WF_ERROR_BACKEND_UNAVAILABLE, "the Vulkan device %s has no %s", ctx->properties.deviceName, missing);
	ctx->fd.vkGetDeviceQueue(ctx->device, ctx->queueFamily, 0, &ctx->queue);
	return CreateDeviceObjects(ctx);
}

wfResult wfVkAdoptDevice(wfVkContext* ctx, const wfVulkanDevice* d)
{
	ctx->borrowed = true;
	memcpy(&ctx->loader.getInstanceProcAddr, &d->getInstanceProcAddr, sizeof ctx->loader.getInstanceProcAddr);
	ctx->instance = (VkInstance)d->instance;
	const char* missing = wfVkLoadInstance(&ctx->loader, ctx->instance, &ctx->fi);
	if (missing != NULL)
		return wfSetError(ctx->world, WF_ERROR_BACKEND_UNAVAILABLE, "vulkanDevice: the instance has no %s", missing);
	ctx->physicalDevice = (VkPhysicalDevice)d->physicalDevice;
	ctx->fi.vkGetPhysicalDeviceProperties(ctx->physicalDevice, &ctx->properties);
	ctx->fi.vkGetPhysicalDeviceMemoryProperties(ctx->physicalDevice, &ctx->memory);
	VkQueueFamilyProperties family;
	if (!wfVkQueueFamily(ctx, d->queueFamily, &family) || !(family.queueFlags & VK_QUEUE_COMPUTE_BIT))
		return wfSetError(ctx->world, WF_ERROR_INVALID_DEF, "vulkanDevice.queueFamily: %u is not a family with compute on %s",
			d->queueFamily, ctx->properties.deviceName);
	ctx->queueFamily = d->queueFamily;
	ctx->device = (VkDevice)d->device;
	ctx->queue = (VkQueue)d->queue;
	memset(&ctx->features, 0, sizeof ctx->features);
	if (d->enabledFeatures != NULL)
		memcpy(&ctx->features, d->enabledFeatures, sizeof ctx->features);
	missing = wfVkLoadDevice(&ctx->fi, ctx->device, &ctx->fd);
	if (missing != NULL)
		return wfSetError(ctx->world, WF_ERROR_BACKEND_UNAVAILABLE, "vulkanDevice: the device %s has no %s", ctx->properties.deviceName,
			missing);
	return CreateDeviceObjects(ctx);
}

// What the backend creates on its device, its own or a borrowed one: pipelines, the command pool,
// the frame's command buffer and fence, the timestamp queries.
static wfResult CreateDeviceObjects(wfVkContext* ctx)
{
	wfResult r = CreatePipelines(ctx);
	if (r != WF_OK)
		return r;
	VkCommandPoolCreateInfo poolInfo = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
		.queueFamilyIndex = ctx->queueFamily,
	};
	WF_VK_CHECK(ctx, ctx->fd.vkCreateCommandPool(ctx->device, &poolInfo, NULL, &ctx->commandPool));
	VkCommandBufferAllocateInfo cmdInfo = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = ctx->commandPool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	WF_VK_CHECK(ctx, ctx->fd.vkAllocateCommandBuffers(ctx->device, &cmdInfo, &ctx->frameCmd));
	wfVkSetName(ctx, VK_OBJECT_TYPE_COMMAND_BUFFER, (uint64_t)(uintptr_t)ctx->frameCmd, "weft frame");
	VkFenceCreateInfo fenceInfo = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	WF_VK_CHECK(ctx, ctx->fd.vkCreateFence(ctx->device, &fenceInfo, NULL, &ctx->fence));

	// Timestamps around each frame, where the queue supports them (the frame recorder grows the
	// pool when stage timing needs a query per stage change: 3 per substep and large cloth).
	VkQueueFamilyProperties family;
	ctx->lastFrameGpuMs = -1.0;
	bool known = wfVkQueueFamily(ctx, ctx->queueFamily, &family);
	ctx->queueFlags = known ? family.queueFlags : 0;
	if (known && family.timestampValidBits > 0 && ctx->properties.limits.timestampPeriod > 0.0f) {
		VkQueryPoolCreateInfo queryInfo = {
			.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
			.queryType = VK_QUERY_TYPE_TIMESTAMP,
			.queryCount = 2,
		};
		WF_VK_CHECK(ctx, ctx->fd.vkCreateQueryPool(ctx->device, &queryInfo, NULL, &ctx->timestamps));
		const uint32_t bits = family.timestampValidBits;
		ctx->timestampCapacity = queryInfo.queryCount;
		ctx->timestampMask = bits >= 64 ? ~0ull : (1ull << bits) - 1ull;
	}
	return WF_OK;
}

void wfVkDestroyDevice(wfVkContext* ctx)
{
	if (ctx->device != VK_NULL_HANDLE) {
		const wfVkDeviceFuncs* f = &ctx->fd;
		if (f->vkDeviceWaitIdle != NULL) {
			// A lost device cannot be waited for; destroy anyway. A borrowed device may be busy with
			// the caller's work on other queues: every submit of ours was waited for already.
			if (!ctx->borrowed)
				f->vkDeviceWaitIdle(ctx->device);
			if (ctx->timestamps != VK_NULL_HANDLE)
				f->vkDestroyQueryPool(ctx->device, ctx->timestamps, NULL);
			if (ctx->fence != VK_NULL_HANDLE)
				f->vkDestroyFence(ctx->device, ctx->fence, NULL);
			if (ctx->commandPool != VK_NULL_HANDLE)
				f->vkDestroyCommandPool(ctx->device, ctx->commandPool, NULL);
			for (int p = 0; p < WF_VK_PIPE_COUNT; ++p) {
				if (ctx->pipelines[p] != VK_NULL_HANDLE)
					f->vkDestroyPipeline(ctx->device, ctx->pipelines[p], NULL);
			}
			for (int solver = 0; solver < 3; ++solver) {
				for (int k = 0; k < WF_VK_FUSED_GROUP_SIZES; ++k) {
					if (ctx->fusedPipelines[solver][k] != VK_NULL_HANDLE)
						f->vkDestroyPipeline(ctx->device, ctx->fusedPipelines[solver][k], NULL);
				}
			}
			if (ctx->pipelineLayout != VK_NULL_HANDLE)
				f->vkDestroyPipelineLayout(ctx->device, ctx->pipelineLayout, NULL);
			if (ctx->setLayout != VK_NULL_HANDLE)
				f->vkDestroyDescriptorSetLayout(ctx->device, ctx->setLayout, NULL);
			if (ctx->batchPipelineLayout != VK_NULL_HANDLE)
				f->vkDestroyPipelineLayout(ctx->device, ctx->batchPipelineLayout, NULL);
			if (ctx->batchSetLayout != VK_NULL_HANDLE)
				f->vkDestroyDescriptorSetLayout(ctx->device, ctx->batchSetLayout, NULL);
		}
		if (ctx->borrowed)
			; // the caller's device (wfWorldDef.vulkanDevice) outlives the world
		else if (f->vkDestroyDevice != NULL)
			f->vkDestroyDevice(ctx->device, NULL);
		else if (ctx->fi.vkGetDeviceProcAddr != NULL) {
			PFN_vkDestroyDevice destroy = (PFN_vkDestroyDevice)ctx->fi.vkGetDeviceProcAddr(ctx->device, "vkDestroyDevice");
			if (destroy != NULL)
				destroy(ctx->device, NULL);
		}
		ctx->device = VK_NULL_HANDLE;
	}
	DestroyInstance(ctx);
}

int wfVulkanEnumerate(wfDeviceInfo* out, int capacity, char* error, int errorSize)
{
	char scratch[512];
	if (error == NULL || errorSize <= 0) {
		error = scratch;
		errorSize = (int)sizeof scratch;
	}
	error[0] = 0;
	wfVkContext* ctx = (wfVkContext*)calloc(1, sizeof *ctx);
	if (ctx == NULL) {
		snprintf(error, (size_t)errorSize, "out of memory");
		return 0;
	}
	int found = 0;
	if (CreateInstance(ctx, false, error, errorSize) == WF_OK) {
		VkPhysicalDevice* devices;
		uint32_t count;
		VkResult vr = ListDevices(ctx, &devices, &count);
		if (vr != VK_SUCCESS)
			snprintf(error, (size_t)errorSize, "vkEnumeratePhysicalDevices failed: %s", wfVkResultName(vr));
		else if (count == 0)
			snprintf(error, (size_t)errorSize, "no Vulkan device (the loader found no driver)");
		for (uint32_t i = 0; vr == VK_SUCCESS && i < count; ++i) {
			VkPhysicalDeviceProperties p;
			ctx->fi.vkGetPhysicalDeviceProperties(devices[i], &p);
			if (out != NULL && found < capacity) {
				wfDeviceInfo* d = &out[found];
				memset(d, 0, sizeof *d);
				snprintf(d->name, sizeof d->name, "%s", p.deviceName);
				d->hardware = p.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU;
				d->apiVersion = p.apiVersion;
			}
			found++;
		}
		free(devices);
	}
	DestroyInstance(ctx);
	free(ctx);
	return found;
}
