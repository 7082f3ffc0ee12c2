// The tools' environment switches, mapped onto defs (the library itself reads no environment
// variable, so each world and renderer carries its own settings). Header-only; used by weft,
// weft-view, the benchmarks and the test harness.
//
//   WEFT_VK_DEVICE=NAME    a Vulkan device by a part of its name, any case, or #N by its number (deviceName)
//   WEFT_VK_VALIDATION=1   the Khronos validation layer, every message counted (validation)
//   WEFT_NO_SIMD=1         the scalar CPU kernels (simd = false)
//   WEFT_VK_TIMING=1       the median GPU time per frame logged at the end (logGpuTiming)
//   WEFT_VK_FUSED=0|1      small cloths never / always on the fused Vulkan path (fusedPath)
#ifndef WEFT_APPS_ENV_H
#define WEFT_APPS_ENV_H

#include "weft/weft.h"

#include <stdlib.h>
#include <string.h>

static inline int wfEnvIs(const char* name, const char* value)
{
	const char* v = getenv(name);
	return v != NULL && strcmp(v, value) == 0;
}

// A part of a Vulkan device's name from WEFT_VK_DEVICE, or NULL.
static inline const char* wfEnvDeviceName(void)
{
	const char* v = getenv("WEFT_VK_DEVICE");
	return v != NULL && v[0] != 0 ? v : NULL;
}

// Fills what the environment sets and the def leaves open (an explicit deviceName or a caller's
// Vulkan device wins over WEFT_VK_DEVICE).
static inline void wfEnvApplyToWorldDef(wfWorldDef* def)
{
	if (def->deviceName == NULL && def->vulkanDevice == NULL && def->backend != WF_BACKEND_CPU)
		def->deviceName = wfEnvDeviceName();
	if (wfEnvIs("WEFT_VK_VALIDATION", "1"))
		def->validation = true;
	if (wfEnvIs("WEFT_NO_SIMD", "1"))
		def->simd = false;
	if (wfEnvIs("WEFT_VK_TIMING", "1"))
		def->logGpuTiming = true;
	if (wfEnvIs("WEFT_VK_FUSED", "0"))
		def->fusedPath = WF_FUSED_NEVER;
	else if (wfEnvIs("WEFT_VK_FUSED", "1"))
		def->fusedPath = WF_FUSED_ALWAYS;
}

#ifdef WEFT_RENDER_H
// The renderer's part: WEFT_VK_DEVICE (when the def names no device and borrows none) and
// WEFT_VK_VALIDATION.
static inline void wfEnvApplyToRendererDef(wfRendererDef* def)
{
	if (def->deviceName == NULL && def->vulkanDevice == NULL)
		def->deviceName = wfEnvDeviceName();
	if (wfEnvIs("WEFT_VK_VALIDATION", "1"))
		def->validation = true;
}
#endif

#endif
