// Vulkan entry points loaded at run time: the loader library is opened with dlopen, so a machine
// without it still runs the CPU solver. Functions live in per-instance and per-device tables
// (no globals), filled from ONE X-macro list per level for the backend, the renderer and the
// viewer's device (a device command neither uses costs a pointer in the table).
#ifndef WEFT_VK_LOADER_H
#define WEFT_VK_LOADER_H

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <stdbool.h>

// Commands that need no instance.
#define WF_VK_GLOBAL_FUNCS(X) \
	X(vkCreateInstance) \
	X(vkEnumerateInstanceExtensionProperties) \
	X(vkEnumerateInstanceLayerProperties)

// Instance commands. The debug-utils ones are optional (NULL without the extension).
#define WF_VK_INSTANCE_FUNCS(X) \
	X(vkDestroyInstance) \
	X(vkEnumeratePhysicalDevices) \
	X(vkGetPhysicalDeviceProperties) \
	X(vkGetPhysicalDeviceFeatures) \
	X(vkGetPhysicalDeviceQueueFamilyProperties) \
	X(vkGetPhysicalDeviceMemoryProperties) \
	X(vkGetPhysicalDeviceFormatProperties) \
	X(vkEnumerateDeviceExtensionProperties) \
	X(vkCreateDevice) \
	X(vkGetDeviceProcAddr)

#define WF_VK_INSTANCE_OPTIONAL_FUNCS(X) \
	X(vkCreateDebugUtilsMessengerEXT) \
	X(vkDestroyDebugUtilsMessengerEXT) \
	X(vkSetDebugUtilsObjectNameEXT)

#define WF_VK_DEVICE_FUNCS(X) \
	X(vkDestroyDevice) \
	X(vkGetDeviceQueue) \
	X(vkDeviceWaitIdle) \
	X(vkCreateBuffer) \
	X(vkDestroyBuffer) \
	X(vkGetBufferMemoryRequirements) \
	X(vkAllocateMemory) \
	X(vkFreeMemory) \
	X(vkBindBufferMemory) \
	X(vkMapMemory) \
	X(vkUnmapMemory) \
	X(vkCreateShaderModule) \
	X(vkDestroyShaderModule) \
	X(vkCreateDescriptorSetLayout) \
	X(vkDestroyDescriptorSetLayout) \
	X(vkCreatePipelineLayout) \
	X(vkDestroyPipelineLayout) \
	X(vkCreateComputePipelines) \
	X(vkDestroyPipeline) \
	X(vkCreateDescriptorPool) \
	X(vkDestroyDescriptorPool) \
	X(vkAllocateDescriptorSets) \
	X(vkUpdateDescriptorSets) \
	X(vkCreateCommandPool) \
	X(vkDestroyCommandPool) \
	X(vkAllocateCommandBuffers) \
	X(vkFreeCommandBuffers) \
	X(vkBeginCommandBuffer) \
	X(vkEndCommandBuffer) \
	X(vkResetCommandBuffer) \
	X(vkCmdBindPipeline) \
	X(vkCmdBindDescriptorSets) \
	X(vkCmdPushConstants) \
	X(vkCmdDispatch) \
	X(vkCmdPipelineBarrier) \
	X(vkCmdCopyBuffer) \
	X(vkCmdFillBuffer) \
	X(vkCmdWriteTimestamp) \
	X(vkCmdResetQueryPool) \
	X(vkCreateQueryPool) \
	X(vkDestroyQueryPool) \
	X(vkGetQueryPoolResults) \
	X(vkCreateFence) \
	X(vkDestroyFence) \
	X(vkResetFences) \
	X(vkWaitForFences) \
	X(vkQueueSubmit) \
	X(vkQueueWaitIdle) \
	X(vkResetDescriptorPool) \
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
	X(vkCreateGraphicsPipelines) \
	X(vkCmdCopyBufferToImage) \
	X(vkCmdCopyImageToBuffer) \
	X(vkCmdBlitImage) \
	X(vkCmdBeginRenderPass) \
	X(vkCmdEndRenderPass) \
	X(vkCmdBindVertexBuffers) \
	X(vkCmdBindIndexBuffer) \
	X(vkCmdSetViewport) \
	X(vkCmdSetScissor) \
	X(vkCmdDraw) \
	X(vkCmdDrawIndexed)

#define WF_VK_DECLARE(name) PFN_##name name;

typedef struct wfVkLoader {
	void* library; // dlopen handle of libvulkan.so.1
	PFN_vkGetInstanceProcAddr getInstanceProcAddr;
	WF_VK_GLOBAL_FUNCS(WF_VK_DECLARE)
} wfVkLoader;

typedef struct wfVkInstanceFuncs {
	WF_VK_INSTANCE_FUNCS(WF_VK_DECLARE)
	WF_VK_INSTANCE_OPTIONAL_FUNCS(WF_VK_DECLARE)
} wfVkInstanceFuncs;

typedef struct wfVkDeviceFuncs {
	WF_VK_DEVICE_FUNCS(WF_VK_DECLARE)
} wfVkDeviceFuncs;

// Opens the loader; on failure writes why into error and returns false.
bool wfVkLoaderOpen(wfVkLoader* loader, char* error, int errorSize);
void wfVkLoaderClose(wfVkLoader* loader);
// Keeps the loader and the driver loaded until the process ends (see vk_loader.c).
void wfVkPinLoadedModules(void);
// Fill the tables; return the name of the first missing required command, or NULL.
const char* wfVkLoadInstance(const wfVkLoader* loader, VkInstance instance, wfVkInstanceFuncs* f);
const char* wfVkLoadDevice(const wfVkInstanceFuncs* fi, VkDevice device, wfVkDeviceFuncs* f);

const char* wfVkResultName(VkResult r);

#endif
