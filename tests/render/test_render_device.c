// One Vulkan device module (src/vulkan/device/) for the solver, the renderer and a window (wfVulkanContext, the
// viewer's path): one name rule (a part of the name, any case) and one policy without a name.
// Run with WEFT_VK_DEVICE in mixed case (tests/render/CMakeLists.txt); the devices are named in the
// defs directly here, so each part is checked on its own.
#include "test.h"
#include "weft/render.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The name in mixed case the tests ask for: WEFT_VK_DEVICE as ctest sets it.
static const char* MixedCaseName(void)
{
	const char* v = getenv("WEFT_VK_DEVICE");
	return v != NULL && v[0] != 0 ? v : "LlVmPiPe";
}

static bool HasUpper(const char* s)
{
	for (; *s != 0; ++s) {
		if (isupper((unsigned char)*s))
			return true;
	}
	return false;
}

// The device a part chooses for `name` (NULL: by the policy), written into out; false when it fails
// (its message in error).
static bool WorldDevice(const char* name, char* out, size_t size, char* error, int errorSize)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = WF_BACKEND_VULKAN; // a software device allowed, as the renderer and the window allow it
	wd.deviceName = name;
	wd.validation = true;
	wfWorld* w = wfCreateWorld(&wd, error, errorSize);
	if (w == NULL)
		return false;
	snprintf(out, size, "%s", wfWorld_GetDeviceName(w));
	bool clean = wfWorld_GetWarnings(w).validationMessages == 0;
	wfDestroyWorld(w);
	return clean;
}

static bool RendererDevice(const char* name, char* out, size_t size, char* error, int errorSize)
{
	wfRendererDef rd = wfDefaultRendererDef();
	rd.width = rd.height = 16;
	rd.deviceName = name;
	rd.validation = true;
	wfRenderer* r = wfCreateRenderer(&rd, error, errorSize);
	if (r == NULL)
		return false;
	snprintf(out, size, "%s", wfRenderer_GetDeviceName(r));
	bool clean = wfRenderer_GetValidationCount(r) == 0;
	wfDestroyRenderer(r);
	return clean;
}

static bool ContextDevice(const char* name, char* out, size_t size, char* error, int errorSize)
{
	wfVulkanContextDef def = {.deviceName = name, .validation = true};
	wfVulkanContext* c = wfCreateVulkanInstance(&def, error, errorSize);
	if (c == NULL)
		return false;
	bool ok = wfVulkanContext_CreateDevice(c, error, errorSize) == WF_OK;
	wfVulkanDevice d;
	ok = ok && wfVulkanContext_Get(c, &d) == WF_OK && d.device != NULL && d.queue != NULL && (d.queueFlags & 1u) != 0; // graphics
	snprintf(out, size, "%s", wfVulkanContext_GetDeviceName(c));
	ok = ok && wfVulkanContext_GetValidationCount(c) == 0;
	wfDestroyVulkanContext(c);
	return ok;
}

typedef bool (*DeviceFn)(const char* name, char* out, size_t size, char* error, int errorSize);

// WEFT_VK_DEVICE in mixed case: the solver, the renderer and the window's context pick the same device,
// and with no name at all the same one again (discrete > integrated > virtual > CPU).
WF_TEST(render_device_name_any_case_same_device)
{
	const char* name = MixedCaseName();
	ENSURE(HasUpper(name)); // the test means something only in mixed case
	static const DeviceFn parts[3] = {WorldDevice, RendererDevice, ContextDevice};
	static const char* const labels[3] = {"solver", "renderer", "window context"};
	char chosen[3][256], unnamed[3][256], first[3][256], error[512];
	for (int i = 0; i < 3; ++i) {
		error[0] = 0;
		ENSURE(parts[i](name, chosen[i], sizeof chosen[i], error, (int)sizeof error));
		ENSURE(wfDeviceNameMatches(chosen[i], name));
		ENSURE(parts[i](NULL, unnamed[i], sizeof unnamed[i], error, (int)sizeof error));
		ENSURE(parts[i]("#0", first[i], sizeof first[i], error, (int)sizeof error)); // by number
		fprintf(stderr, "  %-14s \"%s\" -> %s; no name -> %s; #0 -> %s\n", labels[i], name, chosen[i], unnamed[i], first[i]);
		ENSURE(strcmp(chosen[i], chosen[0]) == 0);
		ENSURE(strcmp(unnamed[i], unnamed[0]) == 0);
		ENSURE(strcmp(first[i], first[0]) == 0);
	}
	return 0;
}

// A name that matches no device: each part fails the same way, naming what was asked for and the
// devices there are.
WF_TEST(render_device_unknown_name_refused_alike)
{
	static const DeviceFn parts[3] = {WorldDevice, RendererDevice, ContextDevice};
	char found[256], any[256], error[512];
	ENSURE(ContextDevice(NULL, any, sizeof any, error, (int)sizeof error));
	for (int i = 0; i < 3; ++i) {
		error[0] = 0;
		ENSURE(!parts[i]("No-Such-GPU", found, sizeof found, error, (int)sizeof error));
		fprintf(stderr, "  %s\n", error);
		ENSURE(strstr(error, "no Vulkan device named \"No-Such-GPU\"") != NULL);
		ENSURE(strstr(error, any) != NULL); // the list of devices names the one there is
		ENSURE(!parts[i]("#99", found, sizeof found, error, (int)sizeof error));
		fprintf(stderr, "  %s\n", error);
		ENSURE(strstr(error, "\"#99\"") != NULL && strstr(error, "allowed: #0 to #") != NULL);
	}
	return 0;
}

// Bad arguments of the context API: refused with the field named, never a crash.
WF_TEST(render_vulkan_context_bad_arguments)
{
	char error[256] = "";
	ENSURE(wfCreateVulkanInstance(NULL, error, (int)sizeof error) == NULL && strstr(error, "def is NULL") != NULL);
	wfVulkanContextDef def = {.instanceExtensionCount = 17};
	const char* one = "VK_KHR_surface";
	def.instanceExtensions = &one;
	ENSURE(wfCreateVulkanInstance(&def, error, (int)sizeof error) == NULL && strstr(error, "instanceExtensionCount") != NULL);
	def.instanceExtensionCount = 0;
	def.deviceExtensionCount = 1; // with no list
	ENSURE(wfCreateVulkanInstance(&def, error, (int)sizeof error) == NULL && strstr(error, "deviceExtensionCount") != NULL);
	ENSURE(wfVulkanContext_CreateDevice(NULL, error, (int)sizeof error) == WF_ERROR_INVALID_ARGUMENT);
	wfVulkanDevice d;
	ENSURE(wfVulkanContext_Get(NULL, &d) == WF_ERROR_INVALID_ARGUMENT);
	ENSURE(strcmp(wfVulkanContext_GetDeviceName(NULL), "") == 0 && wfVulkanContext_GetValidationCount(NULL) == 0);
	ENSURE(strcmp(wfVulkanResultName(-4), "VK_ERROR_DEVICE_LOST") == 0);
	wfDestroyVulkanContext(NULL);
	// A second device on one context is refused.
	def = (wfVulkanContextDef){.validation = true};
	wfVulkanContext* c = wfCreateVulkanInstance(&def, error, (int)sizeof error);
	ENSURE(c != NULL);
	ENSURE(wfVulkanContext_CreateDevice(c, error, (int)sizeof error) == WF_OK);
	ENSURE(wfVulkanContext_CreateDevice(c, error, (int)sizeof error) == WF_ERROR_INVALID_ARGUMENT);
	ENSURE(strstr(error, "has a device already") != NULL);
	ENSURE(wfVulkanContext_GetValidationCount(c) == 0);
	wfDestroyVulkanContext(c);
	return 0;
}
