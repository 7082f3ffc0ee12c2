// Run-time loading of the Vulkan loader library and the per-instance/per-device function tables.
#define _GNU_SOURCE // dl_iterate_phdr, RTLD_NODELETE, RTLD_NOLOAD
#include "vk_loader.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

bool wfVkLoaderOpen(wfVkLoader* loader, char* error, int errorSize)
{
	memset(loader, 0, sizeof *loader);
	loader->library = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
	if (loader->library == NULL) {
		const char* why = dlerror();
		snprintf(error, (size_t)errorSize, "no Vulkan loader (libvulkan.so.1 could not be opened: %s)", why != NULL ? why : "unknown reason");
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
void wfVkPinLoadedModules(void)
{
	dl_iterate_phdr(PinModule, NULL);
}

void wfVkLoaderClose(wfVkLoader* loader)
{
	if (loader->library != NULL)
		dlclose(loader->library);
	memset(loader, 0, sizeof *loader);
}

const char* wfVkLoadInstance(const wfVkLoader* loader, VkInstance instance, wfVkInstanceFuncs* f)
{
	memset(f, 0, sizeof *f);
#define WF_VK_LOAD(name) \
	f->name = (PFN_##name)loader->getInstanceProcAddr(instance, #name); \
	if (f->name == NULL) \
		return #name;
#define WF_VK_LOAD_OPTIONAL(name) f->name = (PFN_##name)loader->getInstanceProcAddr(instance, #name);
	WF_VK_INSTANCE_FUNCS(WF_VK_LOAD)
	WF_VK_INSTANCE_OPTIONAL_FUNCS(WF_VK_LOAD_OPTIONAL)
#undef WF_VK_LOAD
#undef WF_VK_LOAD_OPTIONAL
	return NULL;
}

const char* wfVkLoadDevice(const wfVkInstanceFuncs* fi, VkDevice device, wfVkDeviceFuncs* f)
{
	memset(f, 0, sizeof *f);
#define WF_VK_LOAD(name) \
	f->name = (PFN_##name)fi->vkGetDeviceProcAddr(device, #name); \
	if (f->name == NULL) \
		return #name;
	WF_VK_DEVICE_FUNCS(WF_VK_LOAD)
#undef WF_VK_LOAD
	return NULL;
}

const char* wfVkResultName(VkResult r)
{
	switch (r) {
#define WF_VK_CASE(x) case x: return #x;
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
#undef WF_VK_CASE
	default: return "VK_ERROR_UNKNOWN";
	}
}
