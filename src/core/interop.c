// Vulkan interop: the world's device and a cloth's buffers, for readers that draw straight from them.
#include "internal.h"

#include <string.h>

wfResult wfWorld_GetVulkanDevice(wfWorld* world, wfVulkanDevice* out)
{
	if (world == NULL)
		return WF_ERROR_INVALID_ARGUMENT;
	if (out == NULL)
		return wfSetError(world, WF_ERROR_INVALID_ARGUMENT, "GetVulkanDevice: out: NULL");
	memset(out, 0, sizeof *out);
	if (world->backend == NULL || world->backend->vulkanDevice == NULL)
		return wfSetError(world, WF_ERROR_BACKEND_UNAVAILABLE, "GetVulkanDevice: the world runs on the %s backend, not on Vulkan",
			world->backend != NULL ? world->backend->name : "no");
	world->backend->vulkanDevice(world, out);
	return WF_OK;
}

wfResult wfCloth_GetVulkanBuffers(wfClothId id, wfVulkanClothBuffers* out)
{
	wfCloth* c = wfGetCloth(id);
	if (c == NULL || out == NULL)
		return id.world != NULL ? wfSetError(id.world, WF_ERROR_INVALID_ARGUMENT, "GetVulkanBuffers: stale cloth id or NULL output")
								: WF_ERROR_INVALID_ARGUMENT;
	memset(out, 0, sizeof *out);
	wfWorld* world = id.world;
	if (world->backend->vulkanBuffers == NULL)
		return wfSetError(world, WF_ERROR_BACKEND_UNAVAILABLE, "GetVulkanBuffers: the world runs on the %s backend, not on Vulkan",
			world->backend->name);
	world->backend->vulkanBuffers(world, c, out);
	memcpy(out->origin, c->origin, sizeof c->origin);
	return WF_OK;
}
