// The renderer's Vulkan context: its device from src/vulkan/device/ (own or a world's), images, and a single
// synchronous command buffer.
#define _POSIX_C_SOURCE 200809L
#include "vk.h"

#include "weft/weft.h"

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

bool rdVkFail(RdContext* ctx, VkResult result, const char* call, const char* file, int line)
{
	return rdFail(ctx, "%s: %s (%s:%d)", call, wfVkResultName(result), file, line);
}

// Validation messages are counted by the module (wfVkGpu.validationMessages) and printed here.
static void OnMessage(void* user, bool error, const char* text)
{
	(void)user;
	fprintf(stderr, "weft render: validation: %s\n", text);
}

// The renderer's command pool, command buffer and fence on its device.
static bool CreateCommands(RdContext* ctx)
{
	RD_CHECK(ctx, wfVkCommandsCreate(&ctx->gpu, &ctx->pool, &ctx->cmd, &ctx->fence));
	return true;
}

bool rdContextCreate(RdContext* ctx, const char* deviceName, bool validation)
{
	// The device policy of src/vulkan/device/ with a graphics queue (compute too where a family has both); a CPU
	// device (lavapipe) when there is no GPU. Synchronization validation too: the renderer's barriers
	// are checked, not only its API usage.
	wfVkGpuDef def = {
		.appName = "weft render",
		.deviceName = deviceName,
		.allowSoftware = true,
		.validation = validation,
		.syncValidation = true,
		.queueNeeds = VK_QUEUE_GRAPHICS_BIT,
		.queuePrefers = VK_QUEUE_COMPUTE_BIT,
		.onMessage = OnMessage,
		.messageUser = ctx,
	};
	if (wfVkGpuCreate(&ctx->gpu, &def, ctx->error, (int)sizeof ctx->error) != WF_OK)
		return false;
	return CreateCommands(ctx);
}

bool rdContextAdopt(RdContext* ctx, const void* shared)
{
	const wfVulkanDevice* d = shared;
	if (d->getInstanceProcAddr == NULL || d->device == NULL)
		return rdFail(ctx, "the world has no Vulkan device to share");
	if (!(d->queueFlags & VK_QUEUE_GRAPHICS_BIT))
		return rdFail(ctx, "the world's Vulkan queue has no graphics support");
	if (wfVkGpuAdopt(&ctx->gpu, d, VK_QUEUE_GRAPHICS_BIT, ctx->error, (int)sizeof ctx->error) != WF_OK)
		return false;
	return CreateCommands(ctx);
}

void rdContextDestroy(RdContext* ctx)
{
	wfVkGpu* gpu = &ctx->gpu;
	if (gpu->device != VK_NULL_HANDLE && gpu->fd.vkDestroyFence != NULL) {
		wfVkGpuWait(gpu);
		if (ctx->fence != VK_NULL_HANDLE)
			gpu->fd.vkDestroyFence(gpu->device, ctx->fence, NULL);
		if (ctx->pool != VK_NULL_HANDLE)
			gpu->fd.vkDestroyCommandPool(gpu->device, ctx->pool, NULL);
	}
	ctx->fence = VK_NULL_HANDLE;
	ctx->pool = VK_NULL_HANDLE;
	wfVkGpuDestroy(gpu);
}

bool rdBufferCreate(RdContext* ctx, wfVkBuffer* buffer, VkDeviceSize size, VkBufferUsageFlags usage, bool hostVisible)
{
	// Host buffers are coherent (no flushes); cached when possible because the frame is read back through one.
	const VkMemoryPropertyFlags coherent = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	RD_CHECK(ctx,
		hostVisible ? wfVkBufferCreate(&ctx->gpu, size, usage, coherent, VK_MEMORY_PROPERTY_HOST_CACHED_BIT, buffer)
					: wfVkBufferCreate(&ctx->gpu, size, usage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, buffer));
	return true;
}

void rdBufferDestroy(RdContext* ctx, wfVkBuffer* buffer) { wfVkBufferDestroy(&ctx->gpu, buffer); }

bool rdImageCreate(RdContext* ctx, RdImage* image, const VkImageCreateInfo* info, VkImageAspectFlags aspect)
{
	memset(image, 0, sizeof *image);
	RD_CHECK(ctx, ctx->gpu.fd.vkCreateImage(ctx->gpu.device, info, NULL, &image->image));
	VkMemoryRequirements req;
	ctx->gpu.fd.vkGetImageMemoryRequirements(ctx->gpu.device, image->image, &req);
	RD_CHECK(ctx, wfVkAllocate(&ctx->gpu, &req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0, &image->memory));
	RD_CHECK(ctx, ctx->gpu.fd.vkBindImageMemory(ctx->gpu.device, image->image, image->memory, 0));
	VkImageViewCreateInfo view = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
		.image = image->image,
		.viewType = VK_IMAGE_VIEW_TYPE_2D,
		.format = info->format,
		.subresourceRange = {aspect, 0, info->mipLevels, 0, 1},
	};
	RD_CHECK(ctx, ctx->gpu.fd.vkCreateImageView(ctx->gpu.device, &view, NULL, &image->view));
	return true;
}

void rdImageDestroy(RdContext* ctx, RdImage* image)
{
	if (image->view != VK_NULL_HANDLE)
		ctx->gpu.fd.vkDestroyImageView(ctx->gpu.device, image->view, NULL);
	if (image->image != VK_NULL_HANDLE)
		ctx->gpu.fd.vkDestroyImage(ctx->gpu.device, image->image, NULL);
	if (image->memory != VK_NULL_HANDLE)
		ctx->gpu.fd.vkFreeMemory(ctx->gpu.device, image->memory, NULL);
	memset(image, 0, sizeof *image);
}

bool rdBeginCommands(RdContext* ctx)
{
	RD_CHECK(ctx, ctx->gpu.fd.vkResetCommandBuffer(ctx->cmd, 0));
	VkCommandBufferBeginInfo begin = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	RD_CHECK(ctx, ctx->gpu.fd.vkBeginCommandBuffer(ctx->cmd, &begin));
	return true;
}

bool rdSubmitAndWait(RdContext* ctx)
{
	RD_CHECK(ctx, ctx->gpu.fd.vkEndCommandBuffer(ctx->cmd));
	RD_CHECK(ctx, wfVkSubmitAndWait(&ctx->gpu, ctx->cmd, ctx->fence, UINT64_MAX));
	return true;
}
