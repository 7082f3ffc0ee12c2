// The renderer's Vulkan context: run-time loader, instance + optional validation, device choice,
// memory helpers and a single synchronous command buffer.
#define _POSIX_C_SOURCE 200809L
#define _GNU_SOURCE // dl_iterate_phdr, RTLD_NODELETE, RTLD_NOLOAD
#include "vk.h"

#include "weft/weft.h"

#include <dlfcn.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool rdFail(RdContext* ctx, const char* format, ...)
{
	va_list args;
	va_start(args, format);
	vsnprintf(ctx->error, sizeof ctx->error, format, args);
	va_end(args);
	return false;
}

const char* rdResultName(VkResult result)
{
	switch (result) {
#define RD_RESULT_CASE(r) \
	case r: \
		return #r;
		RD_RESULT_CASE(VK_SUCCESS)
		RD_RESULT_CASE(VK_NOT_READY)
		RD_RESULT_CASE(VK_TIMEOUT)
		RD_RESULT_CASE(VK_INCOMPLETE)
		RD_RESULT_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
		RD_RESULT_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
		RD_RESULT_CASE(VK_ERROR_INITIALIZATION_FAILED)
		RD_RESULT_CASE(VK_ERROR_DEVICE_LOST)
		RD_RESULT_CASE(VK_ERROR_MEMORY_MAP_FAILED)
		RD_RESULT_CASE(VK_ERROR_LAYER_NOT_PRESENT)
		RD_RESULT_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
		RD_RESULT_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
		RD_RESULT_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
		RD_RESULT_CASE(VK_ERROR_TOO_MANY_OBJECTS)
		RD_RESULT_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
#undef RD_RESULT_CASE
	default:
		return "VkResult error";
	}
}

// Counts validation messages (warnings and errors) on the context and prints them.
static VKAPI_ATTR VkBool32 VKAPI_CALL DebugCallback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                     VkDebugUtilsMessageTypeFlagsEXT types,
                                                     const VkDebugUtilsMessengerCallbackDataEXT* data, void* user)
{
	(void)types;
	RdContext* ctx = user;
	if (severity & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)) {
		ctx->validationCount++;
		fprintf(stderr, "weft render: validation: %s\n", data->pMessage);
	}
	return VK_FALSE;
}

static bool HasLayer(RdContext* ctx, const char* name)
{
	uint32_t count = 0;
	if (ctx->vk.vkEnumerateInstanceLayerProperties(&count, NULL) != VK_SUCCESS || count == 0)
		return false;
	VkLayerProperties* layers = calloc(count, sizeof *layers);
	bool found = false;
	if (layers != NULL && ctx->vk.vkEnumerateInstanceLayerProperties(&count, layers) == VK_SUCCESS) {
		for (uint32_t i = 0; i < count && !found; ++i)
			found = strcmp(layers[i].layerName, name) == 0;
	}
	free(layers);
	return found;
}

static bool LoadLoader(RdContext* ctx)
{
	ctx->library = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
	if (ctx->library == NULL)
		return rdFail(ctx, "the Vulkan loader (libvulkan.so.1) could not be opened: %s", dlerror());
	// POSIX allows converting the object pointer from dlsym to a function pointer.
	void* symbol = dlsym(ctx->library, "vkGetInstanceProcAddr");
	if (symbol == NULL)
		return rdFail(ctx, "libvulkan.so.1 has no vkGetInstanceProcAddr");
	memcpy(&ctx->vk.vkGetInstanceProcAddr, &symbol, sizeof symbol);
#define RD_LOAD_GLOBAL(name) \
	ctx->vk.name = (PFN_##name)ctx->vk.vkGetInstanceProcAddr(NULL, #name); \
	if (ctx->vk.name == NULL) \
		return rdFail(ctx, "the Vulkan loader lacks %s", #name);
	RD_GLOBAL_FUNCTIONS(RD_LOAD_GLOBAL)
#undef RD_LOAD_GLOBAL
	return true;
}

static int PinModule(struct dl_phdr_info* info, size_t size, void* data)
{
	(void)size;
	(void)data;
	if (info->dlpi_name != NULL && info->dlpi_name[0] != 0) {
		void* handle = dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
		if (handle != NULL)
			dlclose(handle);
	}
	return 0;
}

// Drivers stay loaded for the process's life once an instance exists: NVIDIA's cannot be loaded
// again after the loader unloads it (static TLS is never given back; the same fix as the
// simulation backend's wfVkPinLoadedModules).
static void PinLoadedModules(void)
{
	dl_iterate_phdr(PinModule, NULL);
}

// The instance-level functions, from the context's vkGetInstanceProcAddr.
static bool LoadInstance(RdContext* ctx)
{
#define RD_LOAD_INSTANCE(name) \
	ctx->vk.name = (PFN_##name)ctx->vk.vkGetInstanceProcAddr(ctx->instance, #name); \
	if (ctx->vk.name == NULL) \
		return rdFail(ctx, "the Vulkan instance lacks %s", #name);
	RD_INSTANCE_FUNCTIONS(RD_LOAD_INSTANCE)
#undef RD_LOAD_INSTANCE
	return true;
}

static bool CreateInstance(RdContext* ctx, bool validation)
{
	const char* layers[1];
	const char* extensions[1];
	uint32_t layerCount = 0, extensionCount = 0;
	if (validation) {
		if (!HasLayer(ctx, "VK_LAYER_KHRONOS_validation"))
			return rdFail(ctx, "validation was asked for but VK_LAYER_KHRONOS_validation is not installed");
		layers[layerCount++] = "VK_LAYER_KHRONOS_validation";
		extensions[extensionCount++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
	}
	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = "weft render",
		.pEngineName = "weft",
		.apiVersion = VK_API_VERSION_1_0,
	};
	VkDebugUtilsMessengerCreateInfoEXT messengerInfo = {
		.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
		.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
		.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
		               VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
		.pfnUserCallback = DebugCallback,
		.pUserData = ctx,
	};
	// Synchronization validation too: the renderer's barriers are checked, not only its API usage.
	VkValidationFeatureEnableEXT enables[1] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
	VkValidationFeaturesEXT features = {
		.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
		.pNext = &messengerInfo,
		.enabledValidationFeatureCount = 1,
		.pEnabledValidationFeatures = enables,
	};
	VkInstanceCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pNext = validation ? &features : NULL, // the messenger also catches messages of create/destroy instance
		.pApplicationInfo = &app,
		.enabledLayerCount = layerCount,
		.ppEnabledLayerNames = layers,
		.enabledExtensionCount = extensionCount,
		.ppEnabledExtensionNames = extensions,
	};
	RD_CHECK(ctx, ctx->vk.vkCreateInstance(&info, NULL, &ctx->instance));
	PinLoadedModules();
	if (!LoadInstance(ctx))
		return false;
	if (validation) {
		ctx->vk.vkCreateDebugUtilsMessengerEXT =
			(PFN_vkCreateDebugUtilsMessengerEXT)ctx->vk.vkGetInstanceProcAddr(ctx->instance, "vkCreateDebugUtilsMessengerEXT");
		ctx->vk.vkDestroyDebugUtilsMessengerEXT =
			(PFN_vkDestroyDebugUtilsMessengerEXT)ctx->vk.vkGetInstanceProcAddr(ctx->instance, "vkDestroyDebugUtilsMessengerEXT");
		if (ctx->vk.vkCreateDebugUtilsMessengerEXT == NULL || ctx->vk.vkDestroyDebugUtilsMessengerEXT == NULL)
			return rdFail(ctx, "VK_EXT_debug_utils functions are missing");
		RD_CHECK(ctx, ctx->vk.vkCreateDebugUtilsMessengerEXT(ctx->instance, &messengerInfo, NULL, &ctx->messenger));
	}
	return true;
}

static int GraphicsFamily(RdContext* ctx, VkPhysicalDevice device)
{
	uint32_t count = 0;
	ctx->vk.vkGetPhysicalDeviceQueueFamilyProperties(device, &count, NULL);
	VkQueueFamilyProperties families[32];
	if (count > 32)
		count = 32;
	ctx->vk.vkGetPhysicalDeviceQueueFamilyProperties(device, &count, families);
	for (uint32_t i = 0; i < count; ++i) {
		if (families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)
			return (int)i;
	}
	return -1;
}

// Picks the device: the named one (substring), else the first hardware device, else any with graphics.
static bool PickDevice(RdContext* ctx, const char* deviceName)
{
	VkPhysicalDevice devices[16];
	uint32_t count = 16;
	VkResult r = ctx->vk.vkEnumeratePhysicalDevices(ctx->instance, &count, devices);
	if (r != VK_SUCCESS && r != VK_INCOMPLETE)
		return rdFail(ctx, "vkEnumeratePhysicalDevices: %s", rdResultName(r));
	if (count == 0)
		return rdFail(ctx, "no Vulkan device found");
	int best = -1, bestScore = -1;
	for (uint32_t i = 0; i < count; ++i) {
		VkPhysicalDeviceProperties p;
		ctx->vk.vkGetPhysicalDeviceProperties(devices[i], &p);
		if (GraphicsFamily(ctx, devices[i]) < 0)
			continue;
		int score;
		if (deviceName != NULL && deviceName[0] != '\0')
			score = wfDevicePatternSelects(deviceName, (int)i, p.deviceName) ? 1 : -1; // the backend's rule
		else if (p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU)
			score = 3;
		else if (p.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU)
			score = 2;
		else
			score = 1;
		if (score > bestScore) {
			best = (int)i;
			bestScore = score;
		}
	}
	if (best < 0 || bestScore < 0) {
		if (deviceName != NULL && deviceName[0] != '\0')
			return rdFail(ctx, "no Vulkan device with graphics matches \"%s\"", deviceName);
		return rdFail(ctx, "no Vulkan device with a graphics queue");
	}
	ctx->physical = devices[best];
	ctx->queueFamily = (uint32_t)GraphicsFamily(ctx, ctx->physical);
	ctx->vk.vkGetPhysicalDeviceProperties(ctx->physical, &ctx->properties);
	ctx->vk.vkGetPhysicalDeviceMemoryProperties(ctx->physical, &ctx->memory);
	return true;
}

static bool CreateDevice(RdContext* ctx)
{
	// Only anisotropic filtering is optional; everything else is core Vulkan 1.0. A software
	// rasteriser (lavapipe) filters anisotropically in shader code, several times slower than the
	// rest of the frame, so it gets trilinear filtering only.
	VkPhysicalDeviceFeatures available;
	ctx->vk.vkGetPhysicalDeviceFeatures(ctx->physical, &available);
	memset(&ctx->features, 0, sizeof ctx->features);
	ctx->features.samplerAnisotropy = available.samplerAnisotropy && ctx->properties.deviceType != VK_PHYSICAL_DEVICE_TYPE_CPU;
	float priority = 1.0f;
	VkDeviceQueueCreateInfo queue = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = ctx->queueFamily,
		.queueCount = 1,
		.pQueuePriorities = &priority,
	};
	VkDeviceCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &queue,
		.pEnabledFeatures = &ctx->features,
	};
	RD_CHECK(ctx, ctx->vk.vkCreateDevice(ctx->physical, &info, NULL, &ctx->device));
	return true;
}

// The renderer's device functions and its command pool, command buffer and fence.
static bool LoadDevice(RdContext* ctx)
{
#define RD_LOAD_DEVICE(name) \
	ctx->vk.name = (PFN_##name)ctx->vk.vkGetDeviceProcAddr(ctx->device, #name); \
	if (ctx->vk.name == NULL) \
		return rdFail(ctx, "the Vulkan device lacks %s", #name);
	RD_DEVICE_FUNCTIONS(RD_LOAD_DEVICE)
#undef RD_LOAD_DEVICE
	if (!ctx->borrowed)
		ctx->vk.vkGetDeviceQueue(ctx->device, ctx->queueFamily, 0, &ctx->queue);
	VkCommandPoolCreateInfo poolInfo = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
		.queueFamilyIndex = ctx->queueFamily,
	};
	RD_CHECK(ctx, ctx->vk.vkCreateCommandPool(ctx->device, &poolInfo, NULL, &ctx->pool));
	VkCommandBufferAllocateInfo cmdInfo = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = ctx->pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	RD_CHECK(ctx, ctx->vk.vkAllocateCommandBuffers(ctx->device, &cmdInfo, &ctx->cmd));
	VkFenceCreateInfo fenceInfo = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
	RD_CHECK(ctx, ctx->vk.vkCreateFence(ctx->device, &fenceInfo, NULL, &ctx->fence));
	return true;
}

bool rdContextCreate(RdContext* ctx, const char* deviceName, bool validation)
{
	return LoadLoader(ctx) && CreateInstance(ctx, validation) && PickDevice(ctx, deviceName) && CreateDevice(ctx) &&
	       LoadDevice(ctx);
}

bool rdContextAdopt(RdContext* ctx, const void* shared)
{
	const wfVulkanDevice* d = shared;
	ctx->borrowed = true;
	if (d->getInstanceProcAddr == NULL || d->device == NULL)
		return rdFail(ctx, "the world has no Vulkan device to share");
	if (!(d->queueFlags & VK_QUEUE_GRAPHICS_BIT))
		return rdFail(ctx, "the world's Vulkan queue has no graphics support");
	memcpy(&ctx->vk.vkGetInstanceProcAddr, &d->getInstanceProcAddr, sizeof ctx->vk.vkGetInstanceProcAddr);
	ctx->instance = (VkInstance)d->instance;
	ctx->physical = (VkPhysicalDevice)d->physicalDevice;
	ctx->device = (VkDevice)d->device;
	ctx->queue = (VkQueue)d->queue;
	ctx->queueFamily = d->queueFamily;
	if (!LoadInstance(ctx))
		return false;
	ctx->vk.vkGetPhysicalDeviceProperties(ctx->physical, &ctx->properties);
	ctx->vk.vkGetPhysicalDeviceMemoryProperties(ctx->physical, &ctx->memory);
	memset(&ctx->features, 0, sizeof ctx->features);
	if (d->enabledFeatures != NULL)
		memcpy(&ctx->features, d->enabledFeatures, sizeof ctx->features);
	return LoadDevice(ctx);
}

VkResult rdWaitIdle(RdContext* ctx)
{
	return ctx->borrowed ? ctx->vk.vkQueueWaitIdle(ctx->queue) : ctx->vk.vkDeviceWaitIdle(ctx->device);
}

void rdContextDestroy(RdContext* ctx)
{
	if (ctx->device != VK_NULL_HANDLE) {
		rdWaitIdle(ctx);
		if (ctx->fence != VK_NULL_HANDLE)
			ctx->vk.vkDestroyFence(ctx->device, ctx->fence, NULL);
		if (ctx->pool != VK_NULL_HANDLE)
			ctx->vk.vkDestroyCommandPool(ctx->device, ctx->pool, NULL);
		if (!ctx->borrowed)
			ctx->vk.vkDestroyDevice(ctx->device, NULL);
	}
	if (ctx->messenger != VK_NULL_HANDLE)
		ctx->vk.vkDestroyDebugUtilsMessengerEXT(ctx->instance, ctx->messenger, NULL);
	if (ctx->instance != VK_NULL_HANDLE && !ctx->borrowed)
		ctx->vk.vkDestroyInstance(ctx->instance, NULL);
	if (ctx->library != NULL)
		dlclose(ctx->library);
	ctx->device = VK_NULL_HANDLE;
	ctx->instance = VK_NULL_HANDLE;
	ctx->library = NULL;
}

// First memory type allowed by `bits` with all of `want`; then one with `fallback`.
static int FindMemory(RdContext* ctx, uint32_t bits, VkMemoryPropertyFlags want, VkMemoryPropertyFlags fallback)
{
	for (int pass = 0; pass < 2; ++pass) {
		VkMemoryPropertyFlags flags = pass == 0 ? want : fallback;
		for (uint32_t i = 0; i < ctx->memory.memoryTypeCount; ++i) {
			if ((bits & (1u << i)) && (ctx->memory.memoryTypes[i].propertyFlags & flags) == flags)
				return (int)i;
		}
	}
	return -1;
}

static bool Allocate(RdContext* ctx, VkMemoryRequirements req, VkMemoryPropertyFlags want, VkMemoryPropertyFlags fallback,
                     VkDeviceMemory* memory)
{
	int type = FindMemory(ctx, req.memoryTypeBits, want, fallback);
	if (type < 0)
		return rdFail(ctx, "no Vulkan memory type with flags 0x%x", (unsigned)fallback);
	VkMemoryAllocateInfo info = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.allocationSize = req.size,
		.memoryTypeIndex = (uint32_t)type,
	};
	RD_CHECK(ctx, ctx->vk.vkAllocateMemory(ctx->device, &info, NULL, memory));
	return true;
}

bool rdBufferCreate(RdContext* ctx, RdBuffer* buffer, VkDeviceSize size, VkBufferUsageFlags usage, bool hostVisible)
{
	memset(buffer, 0, sizeof *buffer);
	VkBufferCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.size = size,
		.usage = usage,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	RD_CHECK(ctx, ctx->vk.vkCreateBuffer(ctx->device, &info, NULL, &buffer->buffer));
	VkMemoryRequirements req;
	ctx->vk.vkGetBufferMemoryRequirements(ctx->device, buffer->buffer, &req);
	// Host buffers are coherent (no flushes); cached when possible because the frame is read back through one.
	VkMemoryPropertyFlags coherent = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	bool ok = hostVisible ? Allocate(ctx, req, coherent | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, coherent, &buffer->memory)
	                      : Allocate(ctx, req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, &buffer->memory);
	if (!ok)
		return false;
	RD_CHECK(ctx, ctx->vk.vkBindBufferMemory(ctx->device, buffer->buffer, buffer->memory, 0));
	if (hostVisible)
		RD_CHECK(ctx, ctx->vk.vkMapMemory(ctx->device, buffer->memory, 0, VK_WHOLE_SIZE, 0, &buffer->mapped));
	buffer->size = size;
	return true;
}

void rdBufferDestroy(RdContext* ctx, RdBuffer* buffer)
{
	if (buffer->buffer != VK_NULL_HANDLE)
		ctx->vk.vkDestroyBuffer(ctx->device, buffer->buffer, NULL);
	if (buffer->memory != VK_NULL_HANDLE)
		ctx->vk.vkFreeMemory(ctx->device, buffer->memory, NULL); // unmaps implicitly
	memset(buffer, 0, sizeof *buffer);
}

bool rdImageCreate(RdContext* ctx, RdImage* image, const VkImageCreateInfo* info, VkImageAspectFlags aspect)
{
	memset(image, 0, sizeof *image);
	RD_CHECK(ctx, ctx->vk.vkCreateImage(ctx->device, info, NULL, &image->image));
	VkMemoryRequirements req;
	ctx->vk.vkGetImageMemoryRequirements(ctx->device, image->image, &req);
	if (!Allocate(ctx, req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, &image->memory))
		return false;
	RD_CHECK(ctx, ctx->vk.vkBindImageMemory(ctx->device, image->image, image->memory, 0));
	VkImageViewCreateInfo view = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
		.image = image->image,
		.viewType = VK_IMAGE_VIEW_TYPE_2D,
		.format = info->format,
		.subresourceRange = {aspect, 0, info->mipLevels, 0, 1},
	};
	RD_CHECK(ctx, ctx->vk.vkCreateImageView(ctx->device, &view, NULL, &image->view));
	return true;
}

void rdImageDestroy(RdContext* ctx, RdImage* image)
{
	if (image->view != VK_NULL_HANDLE)
		ctx->vk.vkDestroyImageView(ctx->device, image->view, NULL);
	if (image->image != VK_NULL_HANDLE)
		ctx->vk.vkDestroyImage(ctx->device, image->image, NULL);
	if (image->memory != VK_NULL_HANDLE)
		ctx->vk.vkFreeMemory(ctx->device, image->memory, NULL);
	memset(image, 0, sizeof *image);
}

bool rdBeginCommands(RdContext* ctx)
{
	RD_CHECK(ctx, ctx->vk.vkResetCommandBuffer(ctx->cmd, 0));
	VkCommandBufferBeginInfo begin = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	RD_CHECK(ctx, ctx->vk.vkBeginCommandBuffer(ctx->cmd, &begin));
	return true;
}

bool rdSubmitAndWait(RdContext* ctx)
{
	RD_CHECK(ctx, ctx->vk.vkEndCommandBuffer(ctx->cmd));
	VkSubmitInfo submit = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = 1,
		.pCommandBuffers = &ctx->cmd,
	};
	RD_CHECK(ctx, ctx->vk.vkResetFences(ctx->device, 1, &ctx->fence));
	RD_CHECK(ctx, ctx->vk.vkQueueSubmit(ctx->queue, 1, &submit, ctx->fence));
	RD_CHECK(ctx, ctx->vk.vkWaitForFences(ctx->device, 1, &ctx->fence, VK_TRUE, UINT64_MAX));
	return true;
}
