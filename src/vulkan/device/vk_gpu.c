// The one Vulkan device module: instance, validation, device choice, adoption, waits, memory,
// buffers, compute pipelines and one-shot submits, for the backend, the renderer and the viewer.
#include "vk_gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WF_VK_VALIDATION_LAYER "VK_LAYER_KHRONOS_validation"
#define WF_VK_MAX_EXTENSIONS 16
#define WF_VK_MAX_FAMILIES 64 // queue families a device lists (drivers list a handful)

// Counts every warning and error of the layer and passes it on.
static VKAPI_ATTR VkBool32 VKAPI_CALL OnMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT types,
	const VkDebugUtilsMessengerCallbackDataEXT* data, void* user)
{
	(void)types;
	wfVkGpu* gpu = (wfVkGpu*)user;
	gpu->validationMessages++;
	if (gpu->onMessage != NULL)
		gpu->onMessage(gpu->messageUser, (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) != 0,
			data != NULL && data->pMessage != NULL ? data->pMessage : "?");
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

static bool HasDeviceExtensions(const wfVkGpu* gpu, VkPhysicalDevice pd, const wfVkGpuDef* def)
{
	if (def->deviceExtensionCount == 0)
		return true;
	uint32_t count = 0;
	if (gpu->fi.vkEnumerateDeviceExtensionProperties(pd, NULL, &count, NULL) != VK_SUCCESS)
		return false;
	VkExtensionProperties* ext = (VkExtensionProperties*)calloc(count > 0 ? count : 1, sizeof *ext);
	bool all = ext != NULL && gpu->fi.vkEnumerateDeviceExtensionProperties(pd, NULL, &count, ext) >= VK_SUCCESS;
	for (uint32_t e = 0; all && e < def->deviceExtensionCount; ++e) {
		bool found = false;
		for (uint32_t i = 0; i < count && !found; ++i)
			found = strcmp(ext[i].extensionName, def->deviceExtensions[e]) == 0;
		all = found;
	}
	free(ext);
	return all;
}

wfResult wfVkGpuCreateInstance(wfVkGpu* gpu, const wfVkGpuDef* def, char* error, int errorSize)
{
	memset(gpu, 0, sizeof *gpu);
	gpu->onMessage = def->onMessage;
	gpu->messageUser = def->messageUser;
	if (!wfVkLoaderOpen(&gpu->loader, error, errorSize))
		return WF_ERROR_BACKEND_UNAVAILABLE;
	const char* layer = WF_VK_VALIDATION_LAYER;
	const char* extensions[WF_VK_MAX_EXTENSIONS + 1];
	uint32_t extensionCount = 0;
	if (def->instanceExtensionCount > WF_VK_MAX_EXTENSIONS) {
		snprintf(error, (size_t)errorSize, "vulkan: %u instance extensions asked for, at most %d", def->instanceExtensionCount,
			WF_VK_MAX_EXTENSIONS);
		return WF_ERROR_INVALID_ARGUMENT;
	}
	for (uint32_t i = 0; i < def->instanceExtensionCount; ++i)
		extensions[extensionCount++] = def->instanceExtensions[i];
	// Asked-for checking that silently does not happen would pass every "no message" test: an error.
	if (def->validation && !HasLayer(&gpu->loader, layer)) {
		snprintf(error, (size_t)errorSize,
			"vulkan: validation was asked for (wfWorldDef.validation; the tools: WEFT_VK_VALIDATION=1) but %s is not installed (Debian: vulkan-validationlayers)",
			layer);
		return WF_ERROR_BACKEND_UNAVAILABLE;
	}
	// Debug utils wherever they are offered: objects get names; the messenger only with validation.
	if (HasInstanceExtension(&gpu->loader, NULL, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) ||
		(def->validation && HasInstanceExtension(&gpu->loader, layer, VK_EXT_DEBUG_UTILS_EXTENSION_NAME))) {
		extensions[extensionCount++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
		gpu->debugUtils = true;
	}
	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = def->appName != NULL ? def->appName : "weft",
		.applicationVersion = VK_MAKE_VERSION(WF_VERSION_MAJOR, WF_VERSION_MINOR, WF_VERSION_PATCH),
		.pEngineName = "weft",
		.engineVersion = VK_MAKE_VERSION(WF_VERSION_MAJOR, WF_VERSION_MINOR, WF_VERSION_PATCH),
		.apiVersion = VK_API_VERSION_1_0,
	};
	// Chained into the instance's create info too, so messages of instance creation are caught.
	VkDebugUtilsMessengerCreateInfoEXT messenger = {
		.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
		.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
		.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
			VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
		.pfnUserCallback = OnMessage,
		.pUserData = gpu,
	};
	VkValidationFeatureEnableEXT sync = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
	VkValidationFeaturesEXT features = {
		.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
		.pNext = &messenger,
		.enabledValidationFeatureCount = 1,
		.pEnabledValidationFeatures = &sync,
	};
	const bool useMessenger = def->validation && gpu->debugUtils;
	VkInstanceCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pNext = !useMessenger    ? NULL
			: def->syncValidation ? (const void*)&features
								  : (const void*)&messenger,
		.pApplicationInfo = &app,
		.enabledLayerCount = def->validation ? 1u : 0u,
		.ppEnabledLayerNames = def->validation ? &layer : NULL,
		.enabledExtensionCount = extensionCount,
		.ppEnabledExtensionNames = extensionCount > 0 ? extensions : NULL,
	};
	VkResult vr = gpu->loader.vkCreateInstance(&info, NULL, &gpu->instance);
	if (vr != VK_SUCCESS) {
		gpu->instance = VK_NULL_HANDLE;
		if (vr == VK_ERROR_INCOMPATIBLE_DRIVER)
			snprintf(error, (size_t)errorSize, "no Vulkan driver (vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER)");
		else
			snprintf(error, (size_t)errorSize, "vkCreateInstance failed: %s", wfVkResultName(vr));
		return vr == VK_ERROR_OUT_OF_HOST_MEMORY ? WF_ERROR_OUT_OF_MEMORY : WF_ERROR_BACKEND_UNAVAILABLE;
	}
	wfVkPinLoadedModules();
	const char* missing = wfVkLoadInstance(&gpu->loader, gpu->instance, &gpu->fi);
	if (missing != NULL) {
		snprintf(error, (size_t)errorSize, "the Vulkan instance has no %s", missing);
		return WF_ERROR_BACKEND_UNAVAILABLE;
	}
	if (useMessenger && gpu->fi.vkCreateDebugUtilsMessengerEXT != NULL) {
		vr = gpu->fi.vkCreateDebugUtilsMessengerEXT(gpu->instance, &messenger, NULL, &gpu->messenger);
		if (vr != VK_SUCCESS) {
			gpu->messenger = VK_NULL_HANDLE;
			snprintf(error, (size_t)errorSize, "vkCreateDebugUtilsMessengerEXT failed: %s", wfVkResultName(vr));
			return WF_ERROR_BACKEND_UNAVAILABLE;
		}
	}
	return WF_OK;
}

uint32_t wfVkGpuListDevices(const wfVkGpu* gpu, VkPhysicalDevice* out, uint32_t capacity)
{
	uint32_t count = 0;
	if (gpu->fi.vkEnumeratePhysicalDevices(gpu->instance, &count, NULL) != VK_SUCCESS)
		return 0;
	uint32_t got = count < capacity ? count : capacity;
	VkResult vr = gpu->fi.vkEnumeratePhysicalDevices(gpu->instance, &got, out);
	return vr == VK_SUCCESS || vr == VK_INCOMPLETE ? got : 0;
}

// The family a device would give: with needs and prefers, else with needs; -1 when none (or the
// device lacks the def's extensions).
static int ChooseFamily(const wfVkGpu* gpu, const wfVkGpuDef* def, VkPhysicalDevice pd)
{
	if (!HasDeviceExtensions(gpu, pd, def))
		return -1;
	VkQueueFamilyProperties props[WF_VK_MAX_FAMILIES];
	uint32_t count = WF_VK_MAX_FAMILIES;
	gpu->fi.vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, props);
	int chosen = -1;
	for (int pass = 0; pass < 2 && chosen < 0; ++pass) {
		const VkQueueFlags flags = pass == 0 ? def->queueNeeds | def->queuePrefers : def->queueNeeds;
		for (uint32_t i = 0; i < count && chosen < 0; ++i) {
			if (props[i].queueCount > 0 && (props[i].queueFlags & flags) == flags &&
				(def->familyUsable == NULL || def->familyUsable(def->familyUser, gpu->instance, pd, i)))
				chosen = (int)i;
		}
	}
	return chosen;
}

// The one policy: the first device deviceName selects ("#N": the N-th; else a part of its name in
// any case, wfDevicePatternSelects), else the first
// discrete GPU, then integrated, then virtual, then (allowSoftware) CPU; each with a usable family.
static wfResult PickDevice(wfVkGpu* gpu, const wfVkGpuDef* def, char* error, int errorSize)
{
	VkPhysicalDevice devices[16];
	const uint32_t count = wfVkGpuListDevices(gpu, devices, 16);
	if (count == 0) {
		snprintf(error, (size_t)errorSize, "no Vulkan device (the loader found no driver)");
		return WF_ERROR_BACKEND_UNAVAILABLE;
	}
	static const VkPhysicalDeviceType kOrder[] = {VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU,
		VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU, VK_PHYSICAL_DEVICE_TYPE_CPU};
	const bool named = def->deviceName != NULL && def->deviceName[0] != 0;
	int chosen = -1, family = -1;
	char seen[512] = "";
	for (int t = 0; t < 4 && chosen < 0; ++t) {
		if (!named && t == 3 && !def->allowSoftware)
			break;
		for (uint32_t i = 0; i < count && chosen < 0; ++i) {
			VkPhysicalDeviceProperties p;
			gpu->fi.vkGetPhysicalDeviceProperties(devices[i], &p);
			if (t == 0) {
				size_t len = strlen(seen);
				snprintf(seen + len, sizeof seen - len, "%s%s", len > 0 ? ", " : "", p.deviceName);
			}
			bool candidate = named ? t == 0 && wfDevicePatternSelects(def->deviceName, (int)i, p.deviceName) : p.deviceType == kOrder[t];
			if (candidate && (family = ChooseFamily(gpu, def, devices[i])) >= 0)
				chosen = (int)i;
		}
		if (named)
			break;
	}
	if (chosen < 0) {
		if (named && def->deviceName[0] == '#')
			snprintf(error, (size_t)errorSize, "no Vulkan device \"%s\" (allowed: #0 to #%u, the devices in order: %s)", def->deviceName,
				count - 1, seen);
		else if (named)
			snprintf(error, (size_t)errorSize, "no Vulkan device named \"%s\" with a usable queue (devices: %s)", def->deviceName, seen);
		else
			snprintf(error, (size_t)errorSize, "no %sVulkan device with a usable queue (devices: %s)",
				def->allowSoftware ? "" : "hardware ", seen);
		return WF_ERROR_BACKEND_UNAVAILABLE;
	}
	gpu->physicalDevice = devices[chosen];
	gpu->queueFamily = (uint32_t)family;
	gpu->fi.vkGetPhysicalDeviceProperties(gpu->physicalDevice, &gpu->properties);
	gpu->fi.vkGetPhysicalDeviceMemoryProperties(gpu->physicalDevice, &gpu->memory);
	return WF_OK;
}

// The properties of a family of the chosen physical device; false when there is no such family.
static bool QueueFamily(const wfVkGpu* gpu, uint32_t index, VkQueueFamilyProperties* out)
{
	VkQueueFamilyProperties families[WF_VK_MAX_FAMILIES];
	uint32_t count = WF_VK_MAX_FAMILIES;
	gpu->fi.vkGetPhysicalDeviceQueueFamilyProperties(gpu->physicalDevice, &count, families);
	if (index >= count)
		return false;
	*out = families[index];
	return true;
}

wfResult wfVkGpuCreate(wfVkGpu* gpu, const wfVkGpuDef* def, char* error, int errorSize)
{
	wfResult r = wfVkGpuCreateInstance(gpu, def, error, errorSize);
	return r == WF_OK ? wfVkGpuCreateDevice(gpu, def, error, errorSize) : r;
}

wfResult wfVkGpuCreateDevice(wfVkGpu* gpu, const wfVkGpuDef* def, char* error, int errorSize)
{
	wfResult r = PickDevice(gpu, def, error, errorSize);
	if (r != WF_OK)
		return r;
	QueueFamily(gpu, gpu->queueFamily, &gpu->family);
	float priority = 1.0f;
	VkDeviceQueueCreateInfo queueInfo = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = gpu->queueFamily,
		.queueCount = 1,
		.pQueuePriorities = &priority,
	};
	// Only anisotropic filtering is optional (for a renderer on this device); a software rasteriser
	// filters anisotropically in shader code, several times slower than the rest of a frame.
	VkPhysicalDeviceFeatures available;
	gpu->fi.vkGetPhysicalDeviceFeatures(gpu->physicalDevice, &available);
	gpu->features.samplerAnisotropy = available.samplerAnisotropy && gpu->properties.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU;
	VkDeviceCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &queueInfo,
		.enabledExtensionCount = def->deviceExtensionCount,
		.ppEnabledExtensionNames = def->deviceExtensionCount > 0 ? def->deviceExtensions : NULL,
		.pEnabledFeatures = &gpu->features,
	};
	VkResult vr = gpu->fi.vkCreateDevice(gpu->physicalDevice, &info, NULL, &gpu->device);
	if (vr != VK_SUCCESS) {
		gpu->device = VK_NULL_HANDLE;
		snprintf(error, (size_t)errorSize, "vkCreateDevice on %s failed: %s", gpu->properties.deviceName, wfVkResultName(vr));
		return vr == VK_ERROR_OUT_OF_HOST_MEMORY || vr == VK_ERROR_OUT_OF_DEVICE_MEMORY ? WF_ERROR_OUT_OF_MEMORY
																						: WF_ERROR_BACKEND_UNAVAILABLE;
	}
	const char* missing = wfVkLoadDevice(&gpu->fi, gpu->device, &gpu->fd);
	if (missing != NULL) {
		snprintf(error, (size_t)errorSize, "the Vulkan device %s has no %s", gpu->properties.deviceName, missing);
		return WF_ERROR_BACKEND_UNAVAILABLE;
	}
	gpu->fd.vkGetDeviceQueue(gpu->device, gpu->queueFamily, 0, &gpu->queue);
	return WF_OK;
}

wfResult wfVkGpuAdopt(wfVkGpu* gpu, const wfVulkanDevice* d, VkQueueFlags queueNeeds, char* error, int errorSize)
{
	memset(gpu, 0, sizeof *gpu);
	gpu->borrowed = true;
	if (d->getInstanceProcAddr == NULL || d->instance == NULL || d->physicalDevice == NULL || d->device == NULL || d->queue == NULL) {
		snprintf(error, (size_t)errorSize, "vulkanDevice: instance, physicalDevice, device, queue and getInstanceProcAddr are needed");
		return WF_ERROR_INVALID_ARGUMENT;
	}
	memcpy(&gpu->loader.getInstanceProcAddr, &d->getInstanceProcAddr, sizeof gpu->loader.getInstanceProcAddr);
	gpu->instance = (VkInstance)d->instance;
	const char* missing = wfVkLoadInstance(&gpu->loader, gpu->instance, &gpu->fi);
	if (missing != NULL) {
		snprintf(error, (size_t)errorSize, "vulkanDevice: the instance has no %s", missing);
		return WF_ERROR_BACKEND_UNAVAILABLE;
	}
	gpu->physicalDevice = (VkPhysicalDevice)d->physicalDevice;
	gpu->fi.vkGetPhysicalDeviceProperties(gpu->physicalDevice, &gpu->properties);
	gpu->fi.vkGetPhysicalDeviceMemoryProperties(gpu->physicalDevice, &gpu->memory);
	if (!QueueFamily(gpu, d->queueFamily, &gpu->family) || (gpu->family.queueFlags & queueNeeds) != queueNeeds) {
		snprintf(error, (size_t)errorSize, "vulkanDevice.queueFamily: %u is not a family with %s on %s", d->queueFamily,
			queueNeeds & VK_QUEUE_GRAPHICS_BIT ? "graphics" : "compute", gpu->properties.deviceName);
		return WF_ERROR_INVALID_DEF;
	}
	gpu->queueFamily = d->queueFamily;
	gpu->device = (VkDevice)d->device;
	gpu->queue = (VkQueue)d->queue;
	if (d->enabledFeatures != NULL)
		memcpy(&gpu->features, d->enabledFeatures, sizeof gpu->features);
	missing = wfVkLoadDevice(&gpu->fi, gpu->device, &gpu->fd);
	if (missing != NULL) {
		snprintf(error, (size_t)errorSize, "vulkanDevice: the device %s has no %s", gpu->properties.deviceName, missing);
		return WF_ERROR_BACKEND_UNAVAILABLE;
	}
	return WF_OK;
}

void wfVkGpuShare(const wfVkGpu* gpu, wfVulkanDevice* out)
{
	memset(out, 0, sizeof *out);
	out->instance = gpu->instance;
	out->physicalDevice = gpu->physicalDevice;
	out->device = gpu->device;
	out->queue = gpu->queue;
	out->queueFamily = gpu->queueFamily;
	out->queueFlags = (uint32_t)gpu->family.queueFlags;
	out->apiVersion = VK_API_VERSION_1_0;
	out->enabledFeatures = &gpu->features;
	memcpy(&out->getInstanceProcAddr, &gpu->loader.getInstanceProcAddr, sizeof out->getInstanceProcAddr);
}

VkResult wfVkGpuWait(const wfVkGpu* gpu)
{
	if (gpu->device == VK_NULL_HANDLE || gpu->fd.vkQueueWaitIdle == NULL)
		return VK_SUCCESS;
	return gpu->borrowed ? gpu->fd.vkQueueWaitIdle(gpu->queue) : gpu->fd.vkDeviceWaitIdle(gpu->device);
}

void wfVkGpuDestroy(wfVkGpu* gpu)
{
	if (!gpu->borrowed) {
		if (gpu->device != VK_NULL_HANDLE) {
			// A device whose table failed to load still gets destroyed.
			PFN_vkDestroyDevice destroy = gpu->fd.vkDestroyDevice;
			if (destroy == NULL && gpu->fi.vkGetDeviceProcAddr != NULL)
				destroy = (PFN_vkDestroyDevice)gpu->fi.vkGetDeviceProcAddr(gpu->device, "vkDestroyDevice");
			if (destroy != NULL)
				destroy(gpu->device, NULL);
		}
		if (gpu->messenger != VK_NULL_HANDLE && gpu->fi.vkDestroyDebugUtilsMessengerEXT != NULL)
			gpu->fi.vkDestroyDebugUtilsMessengerEXT(gpu->instance, gpu->messenger, NULL);
		if (gpu->instance != VK_NULL_HANDLE && gpu->fi.vkDestroyInstance != NULL)
			gpu->fi.vkDestroyInstance(gpu->instance, NULL);
		wfVkLoaderClose(&gpu->loader);
	}
	gpu->device = VK_NULL_HANDLE;
	gpu->messenger = VK_NULL_HANDLE;
	gpu->instance = VK_NULL_HANDLE;
}

void wfVkGpuSetName(const wfVkGpu* gpu, VkObjectType type, uint64_t handle, const char* name)
{
	if (!gpu->debugUtils || gpu->fi.vkSetDebugUtilsObjectNameEXT == NULL || handle == 0)
		return;
	VkDebugUtilsObjectNameInfoEXT info = {
		.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
		.objectType = type,
		.objectHandle = handle,
		.pObjectName = name,
	};
	gpu->fi.vkSetDebugUtilsObjectNameEXT(gpu->device, &info); // only fails on host memory exhaustion
}

int wfVkFindMemoryType(const wfVkGpu* gpu, uint32_t typeBits, VkMemoryPropertyFlags want, VkMemoryPropertyFlags prefer)
{
	int fallback = -1;
	for (uint32_t i = 0; i < gpu->memory.memoryTypeCount; ++i) {
		VkMemoryPropertyFlags flags = gpu->memory.memoryTypes[i].propertyFlags;
		if ((typeBits & (1u << i)) == 0 || (flags & want) != want)
			continue;
		if ((flags & prefer) == prefer)
			return (int)i;
		if (fallback < 0)
			fallback = (int)i;
	}
	return fallback;
}

VkResult wfVkAllocate(const wfVkGpu* gpu, const VkMemoryRequirements* req, VkMemoryPropertyFlags want, VkMemoryPropertyFlags prefer,
	VkDeviceMemory* out)
{
	int type = wfVkFindMemoryType(gpu, req->memoryTypeBits, want, want | prefer);
	if (type < 0 && (want & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) == 0)
		type = wfVkFindMemoryType(gpu, req->memoryTypeBits, 0, 0);
	if (type < 0)
		return VK_ERROR_FEATURE_NOT_PRESENT; // no memory type of that kind
	VkMemoryAllocateInfo info = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.allocationSize = req->size,
		.memoryTypeIndex = (uint32_t)type,
	};
	return gpu->fd.vkAllocateMemory(gpu->device, &info, NULL, out);
}

VkResult wfVkBufferCreate(const wfVkGpu* gpu, VkDeviceSize size, VkBufferUsageFlags usage, VkMemoryPropertyFlags want,
	VkMemoryPropertyFlags prefer, wfVkBuffer* out)
{
	memset(out, 0, sizeof *out);
	VkBufferCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.size = size,
		.usage = usage,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	VkResult vr = gpu->fd.vkCreateBuffer(gpu->device, &info, NULL, &out->buffer);
	if (vr != VK_SUCCESS) {
		out->buffer = VK_NULL_HANDLE;
		return vr;
	}
	VkMemoryRequirements req;
	gpu->fd.vkGetBufferMemoryRequirements(gpu->device, out->buffer, &req);
	vr = wfVkAllocate(gpu, &req, want, prefer, &out->memory);
	if (vr == VK_SUCCESS)
		vr = gpu->fd.vkBindBufferMemory(gpu->device, out->buffer, out->memory, 0);
	if (vr == VK_SUCCESS && (want & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
		vr = gpu->fd.vkMapMemory(gpu->device, out->memory, 0, VK_WHOLE_SIZE, 0, &out->map);
	if (vr != VK_SUCCESS) {
		wfVkBufferDestroy(gpu, out);
		return vr;
	}
	out->size = size;
	return VK_SUCCESS;
}

void wfVkBufferDestroy(const wfVkGpu* gpu, wfVkBuffer* b)
{
	if (b->buffer != VK_NULL_HANDLE)
		gpu->fd.vkDestroyBuffer(gpu->device, b->buffer, NULL);
	if (b->memory != VK_NULL_HANDLE)
		gpu->fd.vkFreeMemory(gpu->device, b->memory, NULL); // unmaps implicitly
	memset(b, 0, sizeof *b);
}

VkResult wfVkComputePipelineCreate(const wfVkGpu* gpu, const uint32_t* words, size_t size, VkPipelineLayout layout,
	const VkSpecializationInfo* spec, VkPipeline* out)
{
	VkShaderModuleCreateInfo moduleInfo = {
		.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
		.codeSize = size,
		.pCode = words,
	};
	VkShaderModule module;
	VkResult vr = gpu->fd.vkCreateShaderModule(gpu->device, &moduleInfo, NULL, &module);
	if (vr != VK_SUCCESS)
		return vr;
	VkComputePipelineCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
		.stage =
			{
				.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
				.stage = VK_SHADER_STAGE_COMPUTE_BIT,
				.module = module,
				.pName = "main",
				.pSpecializationInfo = spec,
			},
		.layout = layout,
	};
	vr = gpu->fd.vkCreateComputePipelines(gpu->device, VK_NULL_HANDLE, 1, &info, NULL, out);
	gpu->fd.vkDestroyShaderModule(gpu->device, module, NULL);
	return vr;
}

VkResult wfVkCommandsCreate(const wfVkGpu* gpu, VkCommandPool* pool, VkCommandBuffer* cmd, VkFence* fence)
{
	VkCommandPoolCreateInfo poolInfo = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
		.queueFamilyIndex = gpu->queueFamily,
	};
	VkResult vr = gpu->fd.vkCreateCommandPool(gpu->device, &poolInfo, NULL, pool);
	if (vr != VK_SUCCESS)
		return vr;
	VkCommandBufferAllocateInfo cmdInfo = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = *pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	vr = gpu->fd.vkAllocateCommandBuffers(gpu->device, &cmdInfo, cmd);
	if (vr != VK_SUCCESS)
		return vr;
	VkFenceCreateInfo fenceInfo = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	return gpu->fd.vkCreateFence(gpu->device, &fenceInfo, NULL, fence);
}

VkResult wfVkSubmitAndWait(const wfVkGpu* gpu, VkCommandBuffer cmd, VkFence fence, uint64_t timeout)
{
	VkSubmitInfo submit = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = 1,
		.pCommandBuffers = &cmd,
	};
	VkResult vr = gpu->fd.vkResetFences(gpu->device, 1, &fence);
	if (vr == VK_SUCCESS)
		vr = gpu->fd.vkQueueSubmit(gpu->queue, 1, &submit, fence);
	if (vr == VK_SUCCESS)
		vr = gpu->fd.vkWaitForFences(gpu->device, 1, &fence, VK_TRUE, timeout);
	return vr;
}
