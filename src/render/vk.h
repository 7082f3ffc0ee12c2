// Internal: the renderer's Vulkan context — loader, per-renderer function tables, device, helpers.
#ifndef WEFT_RENDER_VK_H
#define WEFT_RENDER_VK_H

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// Loaded from vkGetInstanceProcAddr(NULL, ...).
#define RD_GLOBAL_FUNCTIONS(X) \
	X(vkCreateInstance) \
	X(vkEnumerateInstanceLayerProperties) \
	X(vkEnumerateInstanceExtensionProperties)

// Loaded from the instance.
#define RD_INSTANCE_FUNCTIONS(X) \
	X(vkDestroyInstance) \
	X(vkEnumeratePhysicalDevices) \
	X(vkGetPhysicalDeviceProperties) \
	X(vkGetPhysicalDeviceFeatures) \
	X(vkGetPhysicalDeviceQueueFamilyProperties) \
	X(vkGetPhysicalDeviceMemoryProperties) \
	X(vkGetPhysicalDeviceFormatProperties) \
	X(vkCreateDevice) \
	X(vkGetDeviceProcAddr)

// Loaded from the device.
#define RD_DEVICE_FUNCTIONS(X) \
	X(vkDestroyDevice) \
	X(vkDeviceWaitIdle) \
	X(vkQueueWaitIdle) \
	X(vkGetDeviceQueue) \
	X(vkQueueSubmit) \
	X(vkCreateCommandPool) \
	X(vkDestroyCommandPool) \
	X(vkAllocateCommandBuffers) \
	X(vkResetCommandBuffer) \
	X(vkBeginCommandBuffer) \
	X(vkEndCommandBuffer) \
	X(vkCreateFence) \
	X(vkDestroyFence) \
	X(vkWaitForFences) \
	X(vkResetFences) \
	X(vkCreateBuffer) \
	X(vkDestroyBuffer) \
	X(vkGetBufferMemoryRequirements) \
	X(vkBindBufferMemory) \
	X(vkAllocateMemory) \
	X(vkFreeMemory) \
	X(vkMapMemory) \
	X(vkUnmapMemory) \
	X(vkCreateImage) \
	X(vkDestroyImage) \
	X(vkGetImageMemoryRequirements) \
	X(vkBindImageMemory) \
	X(vkCreateImageView) \
	X(vkDestroyImageView) \
	X(vkCreateSampler) \
	X(vkDestroySampler) \
	X(vkCreateRenderPass) \
	X(vkDestroyRenderPass) \
	X(vkCreateFramebuffer) \
	X(vkDestroyFramebuffer) \
	X(vkCreateShaderModule) \
	X(vkDestroyShaderModule) \
	X(vkCreateDescriptorSetLayout) \
	X(vkDestroyDescriptorSetLayout) \
	X(vkCreateDescriptorPool) \
	X(vkDestroyDescriptorPool) \
	X(vkAllocateDescriptorSets) \
	X(vkUpdateDescriptorSets) \
	X(vkCreatePipelineLayout) \
	X(vkDestroyPipelineLayout) \
	X(vkCreateGraphicsPipelines) \
	X(vkDestroyPipeline) \
	X(vkCmdPipelineBarrier) \
	X(vkCmdCopyBuffer) \
	X(vkCmdCopyBufferToImage) \
	X(vkCmdCopyImageToBuffer) \
	X(vkCmdBlitImage) \
	X(vkCmdBeginRenderPass) \
	X(vkCmdEndRenderPass) \
	X(vkCmdBindPipeline) \
	X(vkCmdBindDescriptorSets) \
	X(vkCmdBindVertexBuffers) \
	X(vkCmdBindIndexBuffer) \
	X(vkCmdPushConstants) \
	X(vkCmdSetViewport) \
	X(vkCmdSetScissor) \
	X(vkCmdDrawIndexed) \
	X(vkCreateComputePipelines) \
	X(vkCmdDispatch) \
	X(vkCmdFillBuffer) \
	X(vkResetDescriptorPool)

#define RD_DECLARE_PFN(name) PFN_##name name;

typedef struct RdFunctions {
	PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
	RD_GLOBAL_FUNCTIONS(RD_DECLARE_PFN)
	RD_INSTANCE_FUNCTIONS(RD_DECLARE_PFN)
	RD_DEVICE_FUNCTIONS(RD_DECLARE_PFN)
	// VK_EXT_debug_utils, present only with validation.
	PFN_vkCreateDebugUtilsMessengerEXT vkCreateDebugUtilsMessengerEXT;
	PFN_vkDestroyDebugUtilsMessengerEXT vkDestroyDebugUtilsMessengerEXT;
} RdFunctions;

typedef struct RdBuffer {
	VkBuffer buffer;
	VkDeviceMemory memory;
	VkDeviceSize size;
	void* mapped; // non-NULL for host-visible buffers (persistently mapped)
} RdBuffer;

typedef struct RdImage {
	VkImage image;
	VkDeviceMemory memory;
	VkImageView view;
} RdImage;

// One Vulkan device with a graphics queue, its function tables and the last error.
typedef struct RdContext {
	void* library; // dlopen handle of libvulkan.so.1; NULL for a borrowed device
	bool borrowed; // instance, device and queue belong to a world (rdContextAdopt): not destroyed here
	RdFunctions vk;
	VkInstance instance;
	VkDebugUtilsMessengerEXT messenger;
	VkPhysicalDevice physical;
	VkPhysicalDeviceProperties properties;
	VkPhysicalDeviceFeatures features; // features enabled on the device
	VkPhysicalDeviceMemoryProperties memory;
	VkDevice device;
	uint32_t queueFamily;
	VkQueue queue;
	VkCommandPool pool;
	VkCommandBuffer cmd;
	VkFence fence;
	int validationCount; // messages from the validation layer
	char error[512];
} RdContext;

// Records an error on the context; always returns false so it can end a function: `return rdFail(...)`.
bool rdFail(RdContext* ctx, const char* format, ...) __attribute__((format(printf, 2, 3)));
const char* rdResultName(VkResult result);

// Checks a VkResult: on failure records "call: VK_ERROR_... (file:line)" and returns false from the caller.
#define RD_CHECK(ctx, call) \
	do { \
		VkResult rd_result_ = (call); \
		if (rd_result_ != VK_SUCCESS) \
			return rdFail((ctx), "%s: %s (%s:%d)", #call, rdResultName(rd_result_), __FILE__, __LINE__); \
	} while (0)

// Opens the loader, creates the instance (with validation when asked), picks a device and creates it
// with one graphics queue, a command buffer and a fence. deviceName may be NULL.
bool rdContextCreate(RdContext* ctx, const char* deviceName, bool validation);
// Uses a world's instance, device and queue (see wfWorld_GetVulkanDevice; `shared` points to a
// wfVulkanDevice) with this context's own command pool, command buffer and fence.
bool rdContextAdopt(RdContext* ctx, const void* shared);
// Waits until the renderer's work is done: the device when it is the renderer's own, the queue when
// the device is borrowed (the owner may be using its other queues).
VkResult rdWaitIdle(RdContext* ctx);
void rdContextDestroy(RdContext* ctx);

// Buffers: hostVisible buffers are mapped for their whole life.
bool rdBufferCreate(RdContext* ctx, RdBuffer* buffer, VkDeviceSize size, VkBufferUsageFlags usage, bool hostVisible);
void rdBufferDestroy(RdContext* ctx, RdBuffer* buffer);
bool rdImageCreate(RdContext* ctx, RdImage* image, const VkImageCreateInfo* info, VkImageAspectFlags aspect);
void rdImageDestroy(RdContext* ctx, RdImage* image);

// The context's command buffer: begin, then end + submit + wait for the fence.
bool rdBeginCommands(RdContext* ctx);
bool rdSubmitAndWait(RdContext* ctx);

#endif
