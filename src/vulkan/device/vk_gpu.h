// Internal: the one Vulkan device module of weft. The simulation backend (src/vulkan/), the renderer
// (src/render/) and, through wfCreateVulkanDevice (weft/render.h), the viewer's window get their
// instance and device here: the loader opened at run time, validation, device choice by one policy,
// a caller's device adopted instead, the queue-only wait on a borrowed device, buffers, memory and
// compute pipelines. It knows no world and no renderer: errors come back as text and a wfResult,
// validation messages through a callback.
#ifndef WEFT_VK_GPU_H
#define WEFT_VK_GPU_H

#include "vk_loader.h"

#include "weft/weft.h"

#include <stddef.h>
#include <stdint.h>

// The one checked-result macro: a VkResult other than VK_SUCCESS returns fail(ctx, result, "call",
// __FILE__, __LINE__) from the calling function. Each user names its own sink (the backend logs to
// the world and returns a wfResult, the renderer records the message and returns false).
#define WF_VK_CHECK_WITH(fail, ctx, call) \
	do { \
		VkResult wf_vr_ = (call); \
		if (wf_vr_ != VK_SUCCESS) \
			return fail((ctx), wf_vr_, #call, __FILE__, __LINE__); \
	} while (0)

// A buffer with its own memory; `map` is set for host-visible ones (mapped for their whole life).
typedef struct wfVkBuffer {
	VkBuffer buffer;
	VkDeviceMemory memory;
	VkDeviceSize size;
	void* map;
} wfVkBuffer;

// A validation message: error (else a warning) and its text.
typedef void wfVkMessageFn(void* user, bool error, const char* text);
// Whether a queue family of a physical device may be used (a window: it presents to the surface).
typedef bool wfVkFamilyFn(void* user, VkInstance instance, VkPhysicalDevice device, uint32_t family);

typedef struct wfVkGpuDef {
	const char* appName;
	// "#N" (the N-th device) or a part of its name, any case (wfDevicePatternSelects); NULL or "": by type, discrete >
	// integrated > virtual > CPU, the CPU only when allowSoftware.
	const char* deviceName;
	bool allowSoftware;
	bool validation;            // the Khronos validation layer; asked for but not installed is an error
	bool syncValidation;        // with validation: its synchronization checks too
	VkQueueFlags queueNeeds;    // the queue family must have all of these
	VkQueueFlags queuePrefers;  // and, where a family of the device has them, these too
	wfVkFamilyFn* familyUsable; // NULL: every family with queueNeeds
	void* familyUser;
	const char* const* instanceExtensions;
	uint32_t instanceExtensionCount;
	const char* const* deviceExtensions; // required: a device without them is passed over
	uint32_t deviceExtensionCount;
	wfVkMessageFn* onMessage; // validation messages (counted in wfVkGpu.validationMessages too)
	void* messageUser;
} wfVkGpuDef;

// An instance, a physical device, a device and one queue, own or borrowed. Must not move once
// created (the validation messenger points to it).
typedef struct wfVkGpu {
	wfVkLoader loader; // library NULL for a borrowed device
	wfVkInstanceFuncs fi;
	wfVkDeviceFuncs fd;
	bool borrowed; // instance and device are the caller's: never destroyed, never waited for as a whole
	VkInstance instance;
	VkDebugUtilsMessengerEXT messenger;
	bool debugUtils; // VK_EXT_debug_utils enabled on an own instance: objects can get names
	VkPhysicalDevice physicalDevice;
	VkPhysicalDeviceProperties properties;
	VkPhysicalDeviceMemoryProperties memory;
	VkPhysicalDeviceFeatures features; // enabled on the device
	uint32_t queueFamily;
	VkQueueFamilyProperties family; // of queueFamily
	VkDevice device;
	VkQueue queue;
	wfVkMessageFn* onMessage;
	void* messageUser;
	int validationMessages; // warnings and errors of the layer on an own instance
} wfVkGpu;

// Opens the loader and creates an instance (validation, messenger, def's instance extensions).
wfResult wfVkGpuCreateInstance(wfVkGpu* gpu, const wfVkGpuDef* def, char* error, int errorSize);
// The instance, then the device chosen by the def's policy with one queue of a family that has
// queueNeeds (queuePrefers where it can), samplerAnisotropy where it is cheap (not on a CPU device)
// and the def's device extensions. On failure the error says why (the devices seen included);
// call wfVkGpuDestroy either way.
wfResult wfVkGpuCreate(wfVkGpu* gpu, const wfVkGpuDef* def, char* error, int errorSize);
// The device on an instance made by wfVkGpuCreateInstance (a window makes its surface in between).
wfResult wfVkGpuCreateDevice(wfVkGpu* gpu, const wfVkGpuDef* def, char* error, int errorSize);
// Uses a caller's instance, device and queue (wfVulkanDevice) whose family has queueNeeds.
wfResult wfVkGpuAdopt(wfVkGpu* gpu, const wfVulkanDevice* shared, VkQueueFlags queueNeeds, char* error, int errorSize);
// The handles for another user of the same device (wfWorld_GetVulkanDevice, the viewer).
void wfVkGpuShare(const wfVkGpu* gpu, wfVulkanDevice* out);
// Waits until this user's work is done: the device when it is its own, only the queue when it is
// borrowed (the owner may be busy on other queues; no device-wide wait on an engine's device).
VkResult wfVkGpuWait(const wfVkGpu* gpu);
// Destroys the device and instance when they are its own (after the caller destroyed its objects).
void wfVkGpuDestroy(wfVkGpu* gpu);
// The physical devices of the instance (at most capacity); returns how many there are.
uint32_t wfVkGpuListDevices(const wfVkGpu* gpu, VkPhysicalDevice* out, uint32_t capacity);
// Gives an object a debug name where VK_EXT_debug_utils is on.
void wfVkGpuSetName(const wfVkGpu* gpu, VkObjectType type, uint64_t handle, const char* name);

// Memory: the first type allowed by typeBits with all of want, preferring one with prefer too; -1
// when none. wfVkAllocate uses it, falling back to any allowed type for memory not host-visible.
int wfVkFindMemoryType(const wfVkGpu* gpu, uint32_t typeBits, VkMemoryPropertyFlags want, VkMemoryPropertyFlags prefer);
VkResult wfVkAllocate(const wfVkGpu* gpu, const VkMemoryRequirements* req, VkMemoryPropertyFlags want, VkMemoryPropertyFlags prefer,
	VkDeviceMemory* out);
// A buffer with its own memory (as wfVkAllocate); host-visible memory stays mapped.
VkResult wfVkBufferCreate(const wfVkGpu* gpu, VkDeviceSize size, VkBufferUsageFlags usage, VkMemoryPropertyFlags want,
	VkMemoryPropertyFlags prefer, wfVkBuffer* out);
void wfVkBufferDestroy(const wfVkGpu* gpu, wfVkBuffer* buffer);
// A compute pipeline of embedded SPIR-V words (size in bytes).
VkResult wfVkComputePipelineCreate(const wfVkGpu* gpu, const uint32_t* words, size_t size, VkPipelineLayout layout,
	const VkSpecializationInfo* spec, VkPipeline* out);
// A command pool on the queue's family (buffers resettable), one primary command buffer and a fence.
VkResult wfVkCommandsCreate(const wfVkGpu* gpu, VkCommandPool* pool, VkCommandBuffer* cmd, VkFence* fence);
// Ends nothing: submits cmd (ended) to the queue with fence and waits for it (timeout in ns).
VkResult wfVkSubmitAndWait(const wfVkGpu* gpu, VkCommandBuffer cmd, VkFence fence, uint64_t timeout);

#endif
