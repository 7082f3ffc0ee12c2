// Vulkan interop hooks of the backend ops (weft.h, "Vulkan interop").
#ifndef WEFT_VK_INTEROP_H
#define WEFT_VK_INTEROP_H

#include "vk_internal.h"

void wfVkInteropDevice(wfWorld* world, wfVulkanDevice* out);
void wfVkInteropBuffers(wfWorld* world, wfCloth* cloth, wfVulkanClothBuffers* out);

#endif
