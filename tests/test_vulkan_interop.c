// The Vulkan backend on the caller's own device (wfWorldDef.vulkanDevice): an engine that already
// has a VkInstance and VkDevice hands them to weft, steps cloths on them and reads the buffers back
// through wfCloth_GetVulkanBuffers. Run with the validation layer on; here the messages go to the
// test's own messenger, and any is a failure.
#define _POSIX_C_SOURCE 200809L
#include "test.h"
#include "vk_test_util.h"

#include "core/internal.h"
#ifdef WEFT_HAVE_VULKAN
#include "vulkan/vk_internal.h"
#endif

#include <stdlib.h>
#include <string.h>

#ifdef WEFT_HAVE_VULKAN
#define VK_NO_PROTOTYPES
#include <dlfcn.h>
#include <vulkan/vulkan.h>

// What the test creates, as an engine would.
typedef struct Engine {
	void* library;
	PFN_vkGetInstanceProcAddr gipa;
	VkInstance instance;
	VkDebugUtilsMessengerEXT messenger;
	VkPhysicalDevice physical;
	VkDevice device;
	VkQueue queue;
	uint32_t family, familyFlags;
	PFN_vkDestroyInstance destroyInstance;
	PFN_vkDestroyDevice destroyDevice;
	PFN_vkDeviceWaitIdle deviceWaitIdle;
	PFN_vkDestroyDebugUtilsMessengerEXT destroyMessenger;
	int messages;
} Engine;

static VKAPI_ATTR VkBool32 VKAPI_CALL CountMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT types,
	const VkDebugUtilsMessengerCallbackDataEXT* data, void* user)
{
	(void)types;
	if (severity & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)) {
		((Engine*)user)->messages++;
		fprintf(stderr, "  engine validation: %s\n", data->pMessage);
	}
	return VK_FALSE;
}

static bool HasLayer(PFN_vkEnumerateInstanceLayerProperties enumerate, const char* name)
{
	VkLayerProperties layers[64];
	uint32_t count = 64;
	if (enumerate(&count, layers) < 0)
		return false;
	for (uint32_t i = 0; i < count; ++i) {
		if (strcmp(layers[i].layerName, name) == 0)
			return true;
	}
	return false;
}

// An instance (with validation and a messenger when WEFT_VK_VALIDATION=1), the test device, and one
// queue of a family with compute and graphics.
static bool EngineCreate(Engine* e)
{
	memset(e, 0, sizeof *e);
	e->library = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
	if (e->library == NULL)
		return false;
	void* symbol = dlsym(e->library, "vkGetInstanceProcAddr");
	memcpy(&e->gipa, &symbol, sizeof e->gipa);
	PFN_vkCreateInstance createInstance = (PFN_vkCreateInstance)e->gipa(NULL, "vkCreateInstance");
	PFN_vkEnumerateInstanceLayerProperties enumerateLayers = (PFN_vkEnumerateInstanceLayerProperties)e->gipa(NULL,
		"vkEnumerateInstanceLayerProperties");
	const char* validation = getenv("WEFT_VK_VALIDATION");
	bool validate = validation != NULL && strcmp(validation, "1") == 0 && HasLayer(enumerateLayers, "VK_LAYER_KHRONOS_validation");
	const char* layer = "VK_LAYER_KHRONOS_validation";
	const char* extension = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
	VkDebugUtilsMessengerCreateInfoEXT messengerInfo = {
		.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
		.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
		.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
		.pfnUserCallback = CountMessage,
		.pUserData = e,
	};
	VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "engine", .apiVersion = VK_API_VERSION_1_0};
	VkInstanceCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pNext = validate ? &messengerInfo : NULL,
		.pApplicationInfo = &app,
		.enabledLayerCount = validate ? 1u : 0u,
		.ppEnabledLayerNames = &layer,
		.enabledExtensionCount = validate ? 1u : 0u,
		.ppEnabledExtensionNames = &extension,
	};
	if (createInstance(&info, NULL, &e->instance) != VK_SUCCESS)
		return false;
#define LOAD(type, name) type name = (type)e->gipa(e->instance, #name)
	LOAD(PFN_vkEnumeratePhysicalDevices, vkEnumeratePhysicalDevices);
	LOAD(PFN_vkGetPhysicalDeviceProperties, vkGetPhysicalDeviceProperties);
	LOAD(PFN_vkGetPhysicalDeviceQueueFamilyProperties, vkGetPhysicalDeviceQueueFamilyProperties);
	LOAD(PFN_vkCreateDevice, vkCreateDevice);
	LOAD(PFN_vkGetDeviceProcAddr, vkGetDeviceProcAddr);
	e->destroyInstance = (PFN_vkDestroyInstance)e->gipa(e->instance, "vkDestroyInstance");
	if (validate) {
		LOAD(PFN_vkCreateDebugUtilsMessengerEXT, vkCreateDebugUtilsMessengerEXT);
		e->destroyMessenger = (PFN_vkDestroyDebugUtilsMessengerEXT)e->gipa(e->instance, "vkDestroyDebugUtilsMessengerEXT");
		if (vkCreateDebugUtilsMessengerEXT(e->instance, &messengerInfo, NULL, &e->messenger) != VK_SUCCESS)
			return false;
	}
	VkPhysicalDevice devices[16];
	uint32_t count = 16;
	if (vkEnumeratePhysicalDevices(e->instance, &count, devices) < 0)
		return false;
	for (uint32_t i = 0; i < count && e->physical == VK_NULL_HANDLE; ++i) {
		VkPhysicalDeviceProperties p;
		vkGetPhysicalDeviceProperties(devices[i], &p);
		if (strstr(p.deviceName, wfVkTestDevice()) != NULL)
			e->physical = devices[i];
	}
	if (e->physical == VK_NULL_HANDLE)
		return false;
	VkQueueFamilyProperties families[16];
	uint32_t familyCount = 16;
	vkGetPhysicalDeviceQueueFamilyProperties(e->physical, &familyCount, families);
	e->family = UINT32_MAX;
	for (uint32_t i = 0; i < familyCount && e->family == UINT32_MAX; ++i) {
		if ((families[i].queueFlags & (VK_QUEUE_COMPUTE_BIT | VK_QUEUE_GRAPHICS_BIT)) == (VK_QUEUE_COMPUTE_BIT | VK_QUEUE_GRAPHICS_BIT)) {
			e->family = i;
			e->familyFlags = families[i].queueFlags;
		}
	}
	if (e->family == UINT32_MAX)
		return false;
	float priority = 1.0f;
	VkDeviceQueueCreateInfo queue = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = e->family,
		.queueCount = 1,
		.pQueuePriorities = &priority,
	};
	VkDeviceCreateInfo deviceInfo = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1, .pQueueCreateInfos = &queue};
	if (vkCreateDevice(e->physical, &deviceInfo, NULL, &e->device) != VK_SUCCESS)
		return false;
	PFN_vkGetDeviceQueue getQueue = (PFN_vkGetDeviceQueue)vkGetDeviceProcAddr(e->device, "vkGetDeviceQueue");
	e->destroyDevice = (PFN_vkDestroyDevice)vkGetDeviceProcAddr(e->device, "vkDestroyDevice");
	e->deviceWaitIdle = (PFN_vkDeviceWaitIdle)vkGetDeviceProcAddr(e->device, "vkDeviceWaitIdle");
	getQueue(e->device, e->family, 0, &e->queue);
#undef LOAD
	return true;
}

static void EngineDestroy(Engine* e)
{
	if (e->device != VK_NULL_HANDLE)
		e->destroyDevice(e->device, NULL);
	if (e->messenger != VK_NULL_HANDLE)
		e->destroyMessenger(e->instance, e->messenger, NULL);
	if (e->instance != VK_NULL_HANDLE)
		e->destroyInstance(e->instance, NULL);
	// The loader stays loaded (as weft's own): drivers are not always safe to unload and load again.
}

// The engine's instance and device for a test, or false (and a note) where none can be made.
static bool EngineStart(Engine* e)
{
	if (EngineCreate(e))
		return true;
	fprintf(stderr, "  SKIPPED: could not create an instance and device on %s\n", wfVkTestDevice());
	EngineDestroy(e);
	return false;
}

static wfVulkanDevice Describe(const Engine* e)
{
	wfVulkanDevice d;
	memset(&d, 0, sizeof d);
	d.instance = e->instance;
	d.physicalDevice = e->physical;
	d.device = e->device;
	d.queue = e->queue;
	d.queueFamily = e->family;
	d.queueFlags = e->familyFlags;
	d.apiVersion = VK_API_VERSION_1_0;
	memcpy(&d.getInstanceProcAddr, &e->gipa, sizeof d.getInstanceProcAddr);
	return d;
}

// Steps 20 frames of a preset on the engine's device and on a device weft opens itself: the same
// positions (bit for bit on lavapipe), the handles given back unchanged, the engine's device still
// usable after the world is gone, and no validation message.
static int OnEngineDevice(const char* preset)
{
	Engine e;
	if (wfVkTestMissing() || !EngineStart(&e))
		return 0;
	wfVulkanDevice given = Describe(&e);
	wfWorldDef wd;
	wfClothDef cd;
	ENSURE(wfPresetGet(preset, &wd, &cd));
	wd.backend = WF_BACKEND_AUTO; // the caller's device is used as given, software or not
	wd.vulkanDevice = &given;
	char error[512];
	wfWorld* mine = wfTestCreateWorld(&wd, error, sizeof error);
	if (mine == NULL)
		fprintf(stderr, "  wfCreateWorld: %s\n", error);
	ENSURE(mine != NULL);
	memset(&given, 0, sizeof given); // copied at creation
	ENSURE(wfWorld_GetBackend(mine) == WF_BACKEND_VULKAN);
	wfVulkanDevice back;
	ENSURE(wfWorld_GetVulkanDevice(mine, &back) == WF_OK);
	ENSURE(back.device == (void*)e.device && back.queue == (void*)e.queue && back.queueFamily == e.family);
	wfWorldDef own = wd;
	own.vulkanDevice = NULL;
	wfWorld* theirs = wfVkTestWorld(own, WF_BACKEND_VULKAN);
	ENSURE(theirs != NULL);
	wfClothId a = wfCreateCloth(mine, &cd), b = wfCreateCloth(theirs, &cd);
	ENSURE(!wfClothId_IsNull(a) && !wfClothId_IsNull(b));
	for (int f = 0; f < 20; ++f)
		ENSURE(wfWorld_Step(mine) == WF_OK && wfWorld_Step(theirs) == WF_OK);
	wfClothInfo info;
	ENSURE(wfCloth_GetInfo(a, &info) == WF_OK);
	double diff = wfVkTestMaxDiff(a, b, info.particleCount);
	fprintf(stderr, "  %s on %s: %d particles, largest difference to weft's own device %.3g m\n", preset, wfWorld_GetDeviceName(mine),
		info.particleCount, diff);
	ENSURE(diff == 0.0);
	wfVulkanClothBuffers buffers;
	ENSURE(wfCloth_GetVulkanBuffers(a, &buffers) == WF_OK && buffers.buffer != 0 && buffers.stride == 16 && buffers.normalsCurrent);
	wfDestroyWorld(theirs);
	wfDestroyWorld(mine);
	// The device is the engine's: alive, idle, and good for another world.
	ENSURE(e.deviceWaitIdle(e.device) == VK_SUCCESS);
	given = Describe(&e);
	wd.vulkanDevice = &given;
	wfWorld* again = wfTestCreateWorld(&wd, error, sizeof error);
	ENSURE(again != NULL);
	ENSURE(!wfClothId_IsNull(wfCreateCloth(again, &cd)));
	ENSURE(wfWorld_Step(again) == WF_OK);
	wfDestroyWorld(again);
	fprintf(stderr, "  engine validation messages: %d\n", e.messages);
	ENSURE(e.messages == 0);
	EngineDestroy(&e);
	return 0;
}

// Bad descriptions of the caller's device are refused with the field's name, and nothing is created.
static int BadDefs(void)
{
	Engine e;
	if (wfVkTestMissing() || !EngineStart(&e))
		return 0;
	struct {
		const char* expect;
		int edit;
	} cases[] = {
		{"backend cpu", 0},
		{"deviceName", 1},
		{"vulkanDevice.queue", 2},
		{"vulkanDevice.getInstanceProcAddr", 3},
		{"vulkanDevice.queueFlags", 4},
		{"vulkanDevice.queueFamily", 5},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
		wfVulkanDevice d = Describe(&e);
		wfWorldDef wd = wfDefaultWorldDef();
		wd.backend = WF_BACKEND_VULKAN;
		switch (cases[i].edit) {
		case 0: wd.backend = WF_BACKEND_CPU; break;
		case 1: wd.deviceName = "llvmpipe"; break;
		case 2: d.queue = NULL; break;
		case 3: d.getInstanceProcAddr = NULL; break;
		case 4: d.queueFlags = VK_QUEUE_TRANSFER_BIT; break;
		case 5: d.queueFamily = 99; break;
		}
		wd.vulkanDevice = &d;
		char error[512] = "";
		wfWorld* w = wfTestCreateWorld(&wd, error, sizeof error);
		fprintf(stderr, "  %-34s -> %s\n", cases[i].expect, error);
		ENSURE(w == NULL);
		ENSURE(strstr(error, cases[i].expect) != NULL);
	}
	ENSURE(e.deviceWaitIdle(e.device) == VK_SUCCESS);
	ENSURE(e.messages == 0);
	EngineDestroy(&e);
	return 0;
}

// A borrowed device sees no device-wide wait from weft: the world's vkDeviceWaitIdle entry is
// replaced by a counter, then cloths are added (the arena grows and moves), removed and the world
// is destroyed. The engine's queue may be waited for, its device never.
static int gDeviceWaits;
static VKAPI_ATTR VkResult VKAPI_CALL CountDeviceWait(VkDevice device)
{
	(void)device;
	gDeviceWaits++;
	return VK_SUCCESS;
}

static int NoDeviceWaitOnEngineDevice(void)
{
	Engine e;
	if (wfVkTestMissing() || !EngineStart(&e))
		return 0;
	wfVulkanDevice given = Describe(&e);
	wfWorldDef wd;
	wfClothDef cd;
	ENSURE(wfPresetGet("xpbd", &wd, &cd));
	cd.cols = cd.rows = 16;
	wd.vulkanDevice = &given;
	char error[512];
	wfWorld* w = wfTestCreateWorld(&wd, error, sizeof error);
	ENSURE(w != NULL && wfWorld_GetBackend(w) == WF_BACKEND_VULKAN);
	((wfVkContext*)w->backendData)->gpu.fd.vkDeviceWaitIdle = CountDeviceWait;
	gDeviceWaits = 0;
	wfClothId ids[12];
	for (int i = 0; i < 12; ++i) {
		ids[i] = wfCreateCloth(w, &cd); // the small cloths' arena grows and is moved on the way
		ENSURE(!wfClothId_IsNull(ids[i]));
		ENSURE(wfWorld_Step(w) == WF_OK);
	}
	cd.cols = cd.rows = 70; // and a per-range cloth
	wfClothId big = wfCreateCloth(w, &cd);
	ENSURE(!wfClothId_IsNull(big) && wfWorld_Step(w) == WF_OK);
	wfDestroyCloth(ids[3]);
	wfDestroyCloth(big);
	ENSURE(wfWorld_Step(w) == WF_OK);
	wfDestroyWorld(w);
	fprintf(stderr, "  vkDeviceWaitIdle calls on the engine's device: %d\n", gDeviceWaits);
	ENSURE(gDeviceWaits == 0);
	ENSURE(e.deviceWaitIdle(e.device) == VK_SUCCESS);
	ENSURE(e.messages == 0);
	EngineDestroy(&e);
	return 0;
}
#else
static int OnEngineDevice(const char* preset)
{
	(void)preset;
	return wfVkTestMissing() ? 0 : 1;
}
static int BadDefs(void) { return wfVkTestMissing() ? 0 : 1; }
static int NoDeviceWaitOnEngineDevice(void) { return wfVkTestMissing() ? 0 : 1; }
#endif

WF_TEST(vk_engine_device_no_device_wait) { return NoDeviceWaitOnEngineDevice(); }
WF_TEST(vk_engine_device_xpbd) { return OnEngineDevice("xpbd"); }
WF_TEST(vk_engine_device_springs) { return OnEngineDevice("compute-cloth"); }
WF_TEST(vk_engine_device_bad_defs) { return BadDefs(); }
