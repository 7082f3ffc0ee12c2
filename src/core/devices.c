// Device enumeration for `weft info`: forwards to the Vulkan backend when it is built in.
#include "internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

// One matching rule for the backend, the renderer and the viewer: a case-insensitive substring.
bool wfDeviceNameMatches(const char* deviceName, const char* pattern)
{
	if (deviceName == NULL || pattern == NULL)
		return false;
	size_t n = strlen(deviceName), m = strlen(pattern);
	for (size_t i = 0; i + m <= n; ++i) {
		size_t k = 0;
		while (k < m && tolower((unsigned char)deviceName[i + k]) == tolower((unsigned char)pattern[k]))
			++k;
		if (k == m)
			return true;
	}
	return false;
}

bool wfDevicePatternSelects(const char* pattern, int index, const char* deviceName)
{
	if (pattern == NULL || pattern[0] != '#')
		return wfDeviceNameMatches(deviceName, pattern);
	char* end;
	long n = strtol(pattern + 1, &end, 10);
	return end != pattern + 1 && *end == 0 && pattern[1] != '-' && pattern[1] != '+' && n == (long)index;
}

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
