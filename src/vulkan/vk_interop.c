// Vulkan interop (weft.h): hands out the world's device and where each cloth's state lives, so a
// renderer on the same device draws from the solver's buffers without a copy.
#include "vk_interop.h"

void wfVkInteropDevice(wfWorld* world, wfVulkanDevice* out) { wfVkGpuShare(&((const wfVkContext*)world->backendData)->gpu, out); }

// A cloth's arrays sit at regionOffset[] of its device buffer (in an arena they are already offset by
// the cloth's base). Frames start and end with the state in the A regions.
void wfVkInteropBuffers(wfWorld* world, wfCloth* c, wfVulkanClothBuffers* out)
{
	(void)world;
	const wfVkCloth* vc = (const wfVkCloth*)c->backendData;
	out->buffer = (uint64_t)vc->device.buffer;
	out->positionOffset = vc->regionOffset[WF_VK_REGION_POS_A];
	out->velocityOffset = vc->regionOffset[WF_VK_REGION_VEL_A];
	out->normalOffset = vc->regionOffset[WF_VK_REGION_NORMALS];
	out->stride = (uint32_t)sizeof(wfVec4);
	out->particleCount = c->model.particleCount;
	out->normalsCurrent = vc->normalsCurrent;
}
