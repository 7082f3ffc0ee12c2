// Run-time loading of the Vulkan loader library and the per-instance/per-device function tables.
#define _GNU_SOURCE // dl_iterate_phdr, RTLD_NODELETE, RTLD_NOLOAD
#include "vk_loader.h"

#include <dlfcn.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

bool wfVkLoaderOpen(wfVkLoader* loader, char* error, int errorSize)
{
	memset(loader, 0, sizeof *loader);
	loader->library = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
	if (loader->library == NULL) {
		const char* why = dlerror();
		snprintf(error, (size_t)errorSize, "no Vulkan loader (libvulkan.so.1 could not be opened: %s)",
			why != NULL ? why : "unknown reason");
		return false;
	}
	// dlsym returns void*; the conversion to a function pointer goes through memcpy (ISO C).
	void* sym = dlsym(loader->library, "vkGetInstanceProcAddr");
	if (sym == NULL) {
		snprintf(error, (size_t)errorSize, "the Vulkan loader has no vkGetInstanceProcAddr");
		dlclose(loader->library);
		loader->library = NULL;
		return false;
	}
	memcpy(&loader->getInstanceProcAddr, &sym, sizeof sym);
#define WF_VK_LOAD_GLOBAL(name) \
	loader->name = (PFN_##name)loader->getInstanceProcAddr(VK_NULL_HANDLE, #name); \
	if (loader->name == NULL) { \
		snprintf(error, (size_t)errorSize, "the Vulkan loader has no %s", #name); \
		wfVkLoaderClose(loader); \
		return false; \
	}
	WF_VK_GLOBAL_FUNCS(WF_VK_LOAD_GLOBAL)
#undef WF_VK_LOAD_GLOBAL
	return true;
}

static int PinModule(struct dl_phdr_info* info, size_t size, void* data)
{
	(void)size;
	(void)data;
	if (info->dlpi_name != NULL && info->dlpi_name[0] != 0) {
		void* handle = dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
		if (handle != NULL)
			dlclose(handle); // drops the reference just taken; NODELETE stays
	}
	return 0;
}

// The loader unloads a driver when its last instance goes. Some drivers (NVIDIA's, seen on the
// H200 after about twenty create/destroy cycles in one process) cannot be loaded again: they
// use static TLS, which dlclose never gives back, and vkCreateInstance then reports
// VK_ERROR_INCOMPATIBLE_DRIVER. So every module loaded once an instance exists (the loader, the
// driver and its libraries) is marked not-to-be-unloaded: it stays for the process's life.
void wfVkPinLoadedModules(void) { dl_iterate_phdr(PinModule, NULL); }

void wfVkLoaderClose(wfVkLoader* loader)
{
	if (loader->library != NULL)
		dlclose(loader->library);
	memset(loader, 0, sizeof *loader);
}

// The tables are filled by one loop over lists generated from the X-macro lists: the names as one
// string ("vkA\0vkB\0...") and each entry's offset in its table (no pointers, so no relocations).
// The code is a loop instead of a call and a test written out per entry.
#define WF_VK_NAME(name) #name "\0"
#define WF_VK_INSTANCE_OFFSET(name) (uint16_t) offsetof(wfVkInstanceFuncs, name),
#define WF_VK_DEVICE_OFFSET(name) (uint16_t) offsetof(wfVkDeviceFuncs, name),
static const char kInstanceNames[] = WF_VK_INSTANCE_FUNCS(WF_VK_NAME) WF_VK_INSTANCE_OPTIONAL_FUNCS(WF_VK_NAME);
#define WF_VK_ONE(name) +1
enum { kInstanceRequired = 0 WF_VK_INSTANCE_FUNCS(WF_VK_ONE) }; // the required ones come first
static const uint16_t kInstanceOffsets[] = {
	WF_VK_INSTANCE_FUNCS(WF_VK_INSTANCE_OFFSET) WF_VK_INSTANCE_OPTIONAL_FUNCS(WF_VK_INSTANCE_OFFSET)};
static const char kDeviceNames[] = WF_VK_DEVICE_FUNCS(WF_VK_NAME);
static const uint16_t kDeviceOffsets[] = {WF_VK_DEVICE_FUNCS(WF_VK_DEVICE_OFFSET)};
#undef WF_VK_NAME
#undef WF_VK_INSTANCE_OFFSET
#undef WF_VK_DEVICE_OFFSET
#define WF_VK_COUNT(a) (sizeof(a) / sizeof((a)[0]))

// Looks every name up (through the instance's or, with gdpa, the device's lookup) and stores it at
// its offset; entries from `required` on may be NULL. Returns the first missing required name, or NULL.
static const char* Fill(void* table, const char* names, const uint16_t* offsets, size_t count, size_t required,
	PFN_vkGetInstanceProcAddr gipa, VkInstance instance, PFN_vkGetDeviceProcAddr gdpa, VkDevice device)
{
	const char* name = names;
	for (size_t i = 0; i < count; ++i, name += strlen(name) + 1) {
		PFN_vkVoidFunction fn = gdpa != NULL ? gdpa(device, name) : gipa(instance, name);
		if (fn == NULL && i < required)
			return name;
		memcpy((char*)table + offsets[i], &fn, sizeof fn);
	}
	return NULL;
}

const char* wfVkLoadInstance(const wfVkLoader* loader, VkInstance instance, wfVkInstanceFuncs* f)
{
	memset(f, 0, sizeof *f);
	return Fill(f, kInstanceNames, kInstanceOffsets, WF_VK_COUNT(kInstanceOffsets), kInstanceRequired, loader->getInstanceProcAddr,
		instance, NULL, VK_NULL_HANDLE);
}

const char* wfVkLoadDevice(const wfVkInstanceFuncs* fi, VkDevice device, wfVkDeviceFuncs* f)
{
	memset(f, 0, sizeof *f);
	return Fill(f, kDeviceNames, kDeviceOffsets, WF_VK_COUNT(kDeviceOffsets), WF_VK_COUNT(kDeviceOffsets), NULL, VK_NULL_HANDLE,
		fi->vkGetDeviceProcAddr, device);
}

const char* wfVkResultName(VkResult r)
{
	switch (r) {
#define WF_VK_CASE(x) \
	case x: return #x;
		WF_VK_CASE(VK_SUCCESS)
		WF_VK_CASE(VK_NOT_READY)
		WF_VK_CASE(VK_TIMEOUT)
		WF_VK_CASE(VK_INCOMPLETE)
		WF_VK_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
		WF_VK_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
		WF_VK_CASE(VK_ERROR_INITIALIZATION_FAILED)
		WF_VK_CASE(VK_ERROR_DEVICE_LOST)
		WF_VK_CASE(VK_ERROR_MEMORY_MAP_FAILED)
		WF_VK_CASE(VK_ERROR_LAYER_NOT_PRESENT)
		WF_VK_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
		WF_VK_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
		WF_VK_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
		WF_VK_CASE(VK_ERROR_TOO_MANY_OBJECTS)
		WF_VK_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
		WF_VK_CASE(VK_ERROR_FRAGMENTED_POOL)
		WF_VK_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
		WF_VK_CASE(VK_ERROR_SURFACE_LOST_KHR)
		WF_VK_CASE(VK_ERROR_NATIVE_WINDOW_IN_USE_KHR)
		WF_VK_CASE(VK_ERROR_OUT_OF_DATE_KHR)
		WF_VK_CASE(VK_SUBOPTIMAL_KHR)
#undef WF_VK_CASE
	default: return "VK_ERROR_UNKNOWN";
	}
}
