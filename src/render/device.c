// wfVulkanContext (weft/render.h): the device module of src/vulkan/device/ for a program that presents, so the
// viewer's window gets its instance and device by the same rules as the solver and the renderer.
#include "vulkan/device/vk_gpu.h"

#include "weft/render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WF_VK_CONTEXT_MAX_EXTENSIONS 16

struct wfVulkanContext {
	wfVkGpu gpu;
	wfVkGpuDef def; // the choice policy for wfVulkanContext_CreateDevice
	const char* instanceExtensions[WF_VK_CONTEXT_MAX_EXTENSIONS];
	const char* deviceExtensions[WF_VK_CONTEXT_MAX_EXTENSIONS];
	char appName[64];
	char deviceName[256];
	bool (*familyUsable)(void* user, void* instance, void* physicalDevice, uint32_t family);
	void* familyUser;
};

static bool FamilyUsable(void* user, VkInstance instance, VkPhysicalDevice device, uint32_t family)
{
	wfVulkanContext* c = (wfVulkanContext*)user;
	return c->familyUsable(c->familyUser, (void*)instance, (void*)device, family);
}

static wfVulkanContext* Refuse(char* error, int errorSize, const char* message)
{
	if (error != NULL && errorSize > 0)
		snprintf(error, (size_t)errorSize, "%s", message);
	return NULL;
}

wfVulkanContext* wfCreateVulkanInstance(const wfVulkanContextDef* def, char* error, int errorSize)
{
	if (def == NULL)
		return Refuse(error, errorSize, "wfCreateVulkanInstance: def is NULL");
	if (def->instanceExtensionCount < 0 || def->instanceExtensionCount > WF_VK_CONTEXT_MAX_EXTENSIONS ||
		(def->instanceExtensionCount > 0 && def->instanceExtensions == NULL))
		return Refuse(error, errorSize, "wfVulkanContextDef.instanceExtensionCount: must be in [0, 16] with a list");
	if (def->deviceExtensionCount < 0 || def->deviceExtensionCount > WF_VK_CONTEXT_MAX_EXTENSIONS ||
		(def->deviceExtensionCount > 0 && def->deviceExtensions == NULL))
		return Refuse(error, errorSize, "wfVulkanContextDef.deviceExtensionCount: must be in [0, 16] with a list");
	wfVulkanContext* c = (wfVulkanContext*)calloc(1, sizeof *c);
	if (c == NULL)
		return Refuse(error, errorSize, "wfCreateVulkanInstance: out of memory");
	for (int i = 0; i < def->instanceExtensionCount; ++i)
		c->instanceExtensions[i] = def->instanceExtensions[i];
	for (int i = 0; i < def->deviceExtensionCount; ++i)
		c->deviceExtensions[i] = def->deviceExtensions[i];
	snprintf(c->appName, sizeof c->appName, "%s", def->appName != NULL ? def->appName : "weft");
	snprintf(c->deviceName, sizeof c->deviceName, "%s", def->deviceName != NULL ? def->deviceName : "");
	c->familyUsable = def->familyUsable;
	c->familyUser = def->familyUser;
	c->def = (wfVkGpuDef){
		.appName = c->appName,
		.deviceName = c->deviceName,
		.allowSoftware = true,
		.validation = def->validation,
		.syncValidation = false, // the tools ask for it through VK_LAYER_ENABLES
		.queueNeeds = VK_QUEUE_GRAPHICS_BIT,
		.queuePrefers = VK_QUEUE_COMPUTE_BIT, // one queue for the window, the renderer and the world
		.familyUsable = def->familyUsable != NULL ? FamilyUsable : NULL,
		.familyUser = c,
		.instanceExtensions = c->instanceExtensions,
		.instanceExtensionCount = (uint32_t)def->instanceExtensionCount,
		.deviceExtensions = c->deviceExtensions,
		.deviceExtensionCount = (uint32_t)def->deviceExtensionCount,
		.onMessage = def->onMessage,
		.messageUser = def->messageUser,
	};
	char why[512] = "";
	if (wfVkGpuCreateInstance(&c->gpu, &c->def, why, (int)sizeof why) != WF_OK) {
		wfDestroyVulkanContext(c);
		return Refuse(error, errorSize, why);
	}
	return c;
}

wfResult wfVulkanContext_CreateDevice(wfVulkanContext* c, char* error, int errorSize)
{
	char why[512] = "";
	wfResult r = WF_ERROR_INVALID_ARGUMENT;
	if (c == NULL)
		snprintf(why, sizeof why, "wfVulkanContext_CreateDevice: context is NULL");
	else if (c->gpu.device != VK_NULL_HANDLE)
		snprintf(why, sizeof why, "wfVulkanContext_CreateDevice: the context has a device already");
	else
		r = wfVkGpuCreateDevice(&c->gpu, &c->def, why, (int)sizeof why);
	if (r != WF_OK && error != NULL && errorSize > 0)
		snprintf(error, (size_t)errorSize, "%s", why);
	return r;
}

wfResult wfVulkanContext_Get(const wfVulkanContext* c, wfVulkanDevice* out)
{
	if (c == NULL || out == NULL)
		return WF_ERROR_INVALID_ARGUMENT;
	wfVkGpuShare(&c->gpu, out);
	return WF_OK;
}

const char* wfVulkanContext_GetDeviceName(const wfVulkanContext* c)
{
	return c != NULL && c->gpu.device != VK_NULL_HANDLE ? c->gpu.properties.deviceName : "";
}

int wfVulkanContext_GetValidationCount(const wfVulkanContext* c) { return c != NULL ? c->gpu.validationMessages : 0; }

void wfDestroyVulkanContext(wfVulkanContext* c)
{
	if (c == NULL)
		return;
	wfVkGpuWait(&c->gpu);
	wfVkGpuDestroy(&c->gpu);
	free(c);
}

const char* wfVulkanResultName(int result) { return wfVkResultName((VkResult)result); }
