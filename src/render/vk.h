// Internal: the renderer's Vulkan context — its device from src/vulkan/device/, one command buffer, helpers.
#ifndef WEFT_RENDER_VK_H
#define WEFT_RENDER_VK_H

#include "vulkan/device/vk_gpu.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct RdImage {
	VkImage image;
	VkDeviceMemory memory;
	VkImageView view;
} RdImage;

// One Vulkan device with a graphics queue (src/vulkan/device/: own or adopted), the renderer's command buffer
// and fence, and the last error.
typedef struct RdContext {
	wfVkGpu gpu;
	VkCommandPool pool;
	VkCommandBuffer cmd;
	VkFence fence;
	char error[512];
} RdContext;

// Records an error on the context; always returns false so it can end a function: `return rdFail(...)`.
bool rdFail(RdContext* ctx, const char* format, ...) __attribute__((format(printf, 2, 3)));
// The check's sink: records "call: VK_ERROR_... (file:line)" and returns false.
bool rdVkFail(RdContext* ctx, VkResult result, const char* call, const char* file, int line);

// Checks a VkResult: on failure records the call and its result and returns false from the caller.
#define RD_CHECK(ctx, call) WF_VK_CHECK_WITH(rdVkFail, ctx, call)

// Opens the loader, creates the instance (with validation when asked), picks a device and creates it
// with one graphics queue, a command buffer and a fence. deviceName may be NULL.
bool rdContextCreate(RdContext* ctx, const char* deviceName, bool validation);
// Uses a world's instance, device and queue (see wfWorld_GetVulkanDevice; `shared` points to a
// wfVulkanDevice) with this context's own command pool, command buffer and fence.
bool rdContextAdopt(RdContext* ctx, const void* shared);
// Waits until the renderer's work is done: the device when it is the renderer's own, the queue when
// the device is borrowed (the owner may be using its other queues).
static inline VkResult rdWaitIdle(RdContext* ctx) { return wfVkGpuWait(&ctx->gpu); }
void rdContextDestroy(RdContext* ctx);

// Buffers: hostVisible buffers are mapped for their whole life.
bool rdBufferCreate(RdContext* ctx, wfVkBuffer* buffer, VkDeviceSize size, VkBufferUsageFlags usage, bool hostVisible);
void rdBufferDestroy(RdContext* ctx, wfVkBuffer* buffer);
bool rdImageCreate(RdContext* ctx, RdImage* image, const VkImageCreateInfo* info, VkImageAspectFlags aspect);
void rdImageDestroy(RdContext* ctx, RdImage* image);

// The context's command buffer: begin, then end + submit + wait for the fence.
bool rdBeginCommands(RdContext* ctx);
bool rdSubmitAndWait(RdContext* ctx);

#endif
