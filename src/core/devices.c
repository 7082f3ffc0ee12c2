// Device enumeration for `weft info`: forwards to the Vulkan backend when it is built in.
#include "internal.h"

#include <stdio.h>

int wfEnumerateDevices(wfDeviceInfo* out, int capacity, char* error, int errorSize)
{
	// Without a buffer (or with a negative capacity) the devices are only counted.
	if (out == NULL || capacity < 0)
		capacity = 0;
#ifdef WEFT_HAVE_VULKAN
	return wfVulkanEnumerate(out, capacity, error, errorSize);
#else
	(void)out;
	(void)capacity;
	if (error != NULL && errorSize > 0)
		snprintf(error, (size_t)errorSize, "this build of weft has no Vulkan support");
	return -1;
#endif
}
