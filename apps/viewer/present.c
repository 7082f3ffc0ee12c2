// The window's Vulkan side: instance, device (one queue with graphics, compute and present, shared
// with the renderer and a world on Vulkan: PresenterGetVulkanDevice), swapchain. The scene is drawn
// by the renderer on this device and its frame copied into the swapchain image (vkCmdCopyImage), or,
// given as host pixels, uploaded through a host-visible buffer (vkCmdCopyBufferToImage); the UI is
// drawn on top in this file's render pass (load, not clear), and the image is presented.
//
// Per frame, in one command buffer:
//   image UNDEFINED -> TRANSFER_DST, [the renderer's colour writes -> transfer read] copy the scene in,
//   render pass (initial layout TRANSFER_DST, final PRESENT_SRC; the UI),
//   [screenshot] PRESENT_SRC -> TRANSFER_SRC, copy image -> read-back buffer, -> PRESENT_SRC.
// The submit waits for the acquire semaphore at the transfer stage, where the first barrier starts.
#include "present.h"

#include "weft/render.h"

#include <GLFW/glfw3.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRESENT_FRAMES 2 // frames in flight
#define PRESENT_MAX_IMAGES 8

typedef struct Frame {
	VkCommandBuffer cmd;
	VkFence fence;        // signalled when the frame's commands are done
	VkSemaphore acquired; // the swapchain image is ready to be written
	VkBuffer upload;      // the scene's pixels, host-visible
	VkDeviceMemory uploadMemory;
	void* uploadMap;
	VkDeviceSize uploadSize;
} Frame;

struct Presenter {
	GLFWwindow* window;
	wfVulkanContext* vulkan; // instance and device from weft's device module (weft/render.h)
	VkInstance instance;
	VkSurfaceKHR surface;
	VkPhysicalDevice gpu;
	VkDevice device;
	uint32_t family;
	VkQueueFlags familyFlags;
	bool software; // a CPU device (lavapipe)
	VkQueue queue;
	char deviceName[256];
	VkSurfaceFormatKHR format;
	bool swapRedBlue; // the surface is BGRA; the renderer's pixels are RGBA
	VkPresentModeKHR presentMode;
	VkRenderPass renderPass;
	VkDescriptorPool descriptorPool;
	VkCommandPool commandPool;

	VkSwapchainKHR swapchain;
	VkExtent2D extent;
	bool canReadBack; // the swapchain images allow TRANSFER_SRC
	uint32_t minImageCount, imageCount;
	VkImage images[PRESENT_MAX_IMAGES];
	VkImageView views[PRESENT_MAX_IMAGES];
	VkFramebuffer framebuffers[PRESENT_MAX_IMAGES];
	VkSemaphore rendered[PRESENT_MAX_IMAGES]; // one per image: present waits on it
	bool recreate;

	Frame frames[PRESENT_FRAMES];
	uint32_t frameIndex;
	uint32_t imageIndex;

	VkBuffer readback;
	VkDeviceMemory readbackMemory;
	void* readbackMap;
	VkDeviceSize readbackSize;

	PresenterStats stats;
	char error[512];
};

static bool Fail(Presenter* p, const char* fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	vsnprintf(p->error, sizeof p->error, fmt, args);
	va_end(args);
	return false;
}

static const char* ResultName(VkResult r) { return wfVulkanResultName((int)r); }

// Every Vulkan call is checked: the failing call and its result become the presenter's error.
#define VK_TRY(p, call) \
	do { \
		VkResult vk_result_ = (call); \
		if (vk_result_ != VK_SUCCESS) \
			return Fail((p), "%s failed: %s (%d)", #call, ResultName(vk_result_), (int)vk_result_); \
	} while (0)

static void OnValidation(void* user, bool error, const char* text)
{
	(void)user;
	(void)error;
	fprintf(stderr, "weft-view: vulkan validation: %s\n", text);
}

// The window's surface, made on the module's instance before the device is chosen.
static bool CanPresent(void* user, void* instance, void* physicalDevice, uint32_t family)
{
	(void)instance;
	Presenter* p = (Presenter*)user;
	VkBool32 present = VK_FALSE;
	return vkGetPhysicalDeviceSurfaceSupportKHR((VkPhysicalDevice)physicalDevice, family, p->surface, &present) == VK_SUCCESS && present;
}

// The instance (the window system's surface extensions), the surface, then a device that presents
// to it, chosen by weft's one policy (deviceName: WEFT_VK_DEVICE, a part of the name in any case;
// else discrete > integrated > virtual > CPU) with a graphics queue, compute too where it can.
static bool CreateDevice(Presenter* p, const char* deviceName, bool validation)
{
	uint32_t glfwCount = 0;
	const char** glfwExtensions = glfwGetRequiredInstanceExtensions(&glfwCount);
	if (glfwExtensions == NULL)
		return Fail(p, "the window system offers no Vulkan surface extensions");
	const char* swapchain = VK_KHR_SWAPCHAIN_EXTENSION_NAME;
	wfVulkanContextDef def = {
		.appName = "weft-view",
		.deviceName = deviceName,
		.validation = validation,
		.instanceExtensions = glfwExtensions,
		.instanceExtensionCount = (int)glfwCount,
		.deviceExtensions = &swapchain,
		.deviceExtensionCount = 1,
		.familyUsable = CanPresent,
		.familyUser = p,
		.onMessage = OnValidation,
		.messageUser = p,
	};
	p->vulkan = wfCreateVulkanInstance(&def, p->error, (int)sizeof p->error);
	if (p->vulkan == NULL)
		return false;
	wfVulkanDevice d;
	wfVulkanContext_Get(p->vulkan, &d);
	p->instance = (VkInstance)d.instance;
	VkResult r = glfwCreateWindowSurface(p->instance, p->window, NULL, &p->surface);
	if (r != VK_SUCCESS)
		return Fail(p, "glfwCreateWindowSurface failed: %s (%d)", ResultName(r), (int)r);
	char why[512] = "";
	if (wfVulkanContext_CreateDevice(p->vulkan, why, (int)sizeof why) != WF_OK)
		return Fail(p, "no Vulkan device can present to this window: %s", why);
	wfVulkanContext_Get(p->vulkan, &d);
	p->gpu = (VkPhysicalDevice)d.physicalDevice;
	p->device = (VkDevice)d.device;
	p->queue = (VkQueue)d.queue;
	p->family = d.queueFamily;
	p->familyFlags = d.queueFlags;
	snprintf(p->deviceName, sizeof p->deviceName, "%s", wfVulkanContext_GetDeviceName(p->vulkan));
	VkPhysicalDeviceProperties props;
	vkGetPhysicalDeviceProperties(p->gpu, &props);
	p->software = props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
	return true;
}

// An 8-bit UNORM format: the renderer's bytes are already sRGB-encoded and go in unchanged (a copy
// never converts), and the UI's colours are sRGB values as it expects.
static bool PickFormat(Presenter* p, bool immediate)
{
	uint32_t count = 0;
	VK_TRY(p, vkGetPhysicalDeviceSurfaceFormatsKHR(p->gpu, p->surface, &count, NULL));
	VkSurfaceFormatKHR formats[64];
	if (count > 64)
		count = 64;
	VkResult r = vkGetPhysicalDeviceSurfaceFormatsKHR(p->gpu, p->surface, &count, formats);
	if (r != VK_SUCCESS && r != VK_INCOMPLETE)
		return Fail(p, "vkGetPhysicalDeviceSurfaceFormatsKHR failed: %s", ResultName(r));
	static const VkFormat wanted[] = {VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_B8G8R8A8_SRGB, VK_FORMAT_R8G8B8A8_SRGB};
	bool found = false;
	for (size_t w = 0; w < sizeof wanted / sizeof wanted[0] && !found; ++w) {
		for (uint32_t i = 0; i < count && !found; ++i) {
			if (formats[i].format == wanted[w] && formats[i].colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR) {
				p->format = formats[i];
				found = true;
			}
		}
	}
	if (!found)
		return Fail(p, "the surface offers no 8-bit RGBA or BGRA format");
	p->swapRedBlue = p->format.format == VK_FORMAT_B8G8R8A8_UNORM || p->format.format == VK_FORMAT_B8G8R8A8_SRGB;

	// FIFO (always there) for interactive use; scripted runs prefer not to wait for vertical blank.
	p->presentMode = VK_PRESENT_MODE_FIFO_KHR;
	if (immediate) {
		VkPresentModeKHR modes[16];
		uint32_t modeCount = 16;
		r = vkGetPhysicalDeviceSurfacePresentModesKHR(p->gpu, p->surface, &modeCount, modes);
		if (r != VK_SUCCESS && r != VK_INCOMPLETE)
			return Fail(p, "vkGetPhysicalDeviceSurfacePresentModesKHR failed: %s", ResultName(r));
		for (uint32_t i = 0; i < modeCount; ++i) {
			if (modes[i] == VK_PRESENT_MODE_IMMEDIATE_KHR)
				p->presentMode = modes[i];
			else if (modes[i] == VK_PRESENT_MODE_MAILBOX_KHR && p->presentMode == VK_PRESENT_MODE_FIFO_KHR)
				p->presentMode = modes[i];
		}
	}
	return true;
}

static bool CreateRenderPass(Presenter* p)
{
	VkAttachmentDescription color = {
		.format = p->format.format,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.loadOp = VK_ATTACHMENT_LOAD_OP_LOAD, // the scene copied in just before
		.storeOp = VK_ATTACHMENT_STORE_OP_STORE,
		.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
		.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
		.initialLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
		.finalLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
	};
	VkAttachmentReference ref = {0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
	VkSubpassDescription subpass = {
		.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
		.colorAttachmentCount = 1,
		.pColorAttachments = &ref,
	};
	// In: the copy's writes before the UI reads and blends. Out: the UI's writes before a read-back copy.
	VkSubpassDependency deps[2] = {
		{
			.srcSubpass = VK_SUBPASS_EXTERNAL,
			.dstSubpass = 0,
			.srcStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT,
			.dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
			.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
			.dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
		},
		{
			.srcSubpass = 0,
			.dstSubpass = VK_SUBPASS_EXTERNAL,
			.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
			.dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT,
			.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
			.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT,
		},
	};
	VkRenderPassCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
		.attachmentCount = 1,
		.pAttachments = &color,
		.subpassCount = 1,
		.pSubpasses = &subpass,
		.dependencyCount = 2,
		.pDependencies = deps,
	};
	VK_TRY(p, vkCreateRenderPass(p->device, &info, NULL, &p->renderPass));
	return true;
}

static bool CreatePools(Presenter* p)
{
	VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 16};
	VkDescriptorPoolCreateInfo pool = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
		.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT,
		.maxSets = 16,
		.poolSizeCount = 1,
		.pPoolSizes = &size,
	};
	VK_TRY(p, vkCreateDescriptorPool(p->device, &pool, NULL, &p->descriptorPool));
	VkCommandPoolCreateInfo cmdPool = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
		.queueFamilyIndex = p->family,
	};
	VK_TRY(p, vkCreateCommandPool(p->device, &cmdPool, NULL, &p->commandPool));
	for (int i = 0; i < PRESENT_FRAMES; ++i) {
		Frame* f = &p->frames[i];
		VkCommandBufferAllocateInfo alloc = {
			.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
			.commandPool = p->commandPool,
			.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
			.commandBufferCount = 1,
		};
		VK_TRY(p, vkAllocateCommandBuffers(p->device, &alloc, &f->cmd));
		VkFenceCreateInfo fence = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO, .flags = VK_FENCE_CREATE_SIGNALED_BIT};
		VK_TRY(p, vkCreateFence(p->device, &fence, NULL, &f->fence));
		VkSemaphoreCreateInfo sem = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
		VK_TRY(p, vkCreateSemaphore(p->device, &sem, NULL, &f->acquired));
	}
	return true;
}

// A host-visible, coherent buffer (cached preferred, for read-back), mapped.
static bool CreateHostBuffer(Presenter* p, VkDeviceSize size, VkBufferUsageFlags usage, VkBuffer* buffer, VkDeviceMemory* memory,
	void** map)
{
	VkBufferCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.size = size,
		.usage = usage,
		.sharingMode = VK_SHARING_MODE_EXCLUSIVE,
	};
	VK_TRY(p, vkCreateBuffer(p->device, &info, NULL, buffer));
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(p->device, *buffer, &req);
	VkPhysicalDeviceMemoryProperties props;
	vkGetPhysicalDeviceMemoryProperties(p->gpu, &props);
	const VkMemoryPropertyFlags need = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
	uint32_t type = UINT32_MAX;
	for (int pass = 0; pass < 2 && type == UINT32_MAX; ++pass) {
		VkMemoryPropertyFlags want = pass == 0 ? need | VK_MEMORY_PROPERTY_HOST_CACHED_BIT : need;
		for (uint32_t i = 0; i < props.memoryTypeCount && type == UINT32_MAX; ++i) {
			if ((req.memoryTypeBits & (1u << i)) && (props.memoryTypes[i].propertyFlags & want) == want)
				type = i;
		}
	}
	if (type == UINT32_MAX)
		return Fail(p, "no host-visible coherent memory type");
	VkMemoryAllocateInfo alloc = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.allocationSize = req.size,
		.memoryTypeIndex = type,
	};
	VK_TRY(p, vkAllocateMemory(p->device, &alloc, NULL, memory));
	VK_TRY(p, vkBindBufferMemory(p->device, *buffer, *memory, 0));
	VK_TRY(p, vkMapMemory(p->device, *memory, 0, VK_WHOLE_SIZE, 0, map));
	return true;
}

static void DestroyHostBuffer(Presenter* p, VkBuffer* buffer, VkDeviceMemory* memory, void** map)
{
	if (*memory != VK_NULL_HANDLE && *map != NULL)
		vkUnmapMemory(p->device, *memory);
	if (*buffer != VK_NULL_HANDLE)
		vkDestroyBuffer(p->device, *buffer, NULL);
	if (*memory != VK_NULL_HANDLE)
		vkFreeMemory(p->device, *memory, NULL);
	*buffer = VK_NULL_HANDLE;
	*memory = VK_NULL_HANDLE;
	*map = NULL;
}

static void DestroySwapchainImages(Presenter* p)
{
	for (uint32_t i = 0; i < p->imageCount; ++i) {
		if (p->framebuffers[i] != VK_NULL_HANDLE)
			vkDestroyFramebuffer(p->device, p->framebuffers[i], NULL);
		if (p->views[i] != VK_NULL_HANDLE)
			vkDestroyImageView(p->device, p->views[i], NULL);
		if (p->rendered[i] != VK_NULL_HANDLE)
			vkDestroySemaphore(p->device, p->rendered[i], NULL);
		p->framebuffers[i] = VK_NULL_HANDLE;
		p->views[i] = VK_NULL_HANDLE;
		p->rendered[i] = VK_NULL_HANDLE;
	}
	p->imageCount = 0;
}

// (Re)creates the swapchain at the window's current size; a 0x0 window leaves extent 0 (no swapchain).
static bool CreateSwapchain(Presenter* p)
{
	VK_TRY(p, vkDeviceWaitIdle(p->device));
	DestroySwapchainImages(p);
	VkSurfaceCapabilitiesKHR caps;
	VK_TRY(p, vkGetPhysicalDeviceSurfaceCapabilitiesKHR(p->gpu, p->surface, &caps));
	VkExtent2D extent = caps.currentExtent;
	if (extent.width == UINT32_MAX) {
		// The window decides (Wayland). A framebuffer of no size stays 0x0: clamped up to
		// minImageExtent it would become a 1x1 swapchain for a minimised window.
		int w = 0, h = 0;
		glfwGetFramebufferSize(p->window, &w, &h);
		extent.width = w > 0 && h > 0 ? (uint32_t)w : 0;
		extent.height = w > 0 && h > 0 ? (uint32_t)h : 0;
		if (extent.width > 0) {
			if (extent.width < caps.minImageExtent.width)
				extent.width = caps.minImageExtent.width;
			if (extent.height < caps.minImageExtent.height)
				extent.height = caps.minImageExtent.height;
			if (extent.width > caps.maxImageExtent.width)
				extent.width = caps.maxImageExtent.width;
			if (extent.height > caps.maxImageExtent.height)
				extent.height = caps.maxImageExtent.height;
		}
	}
	p->extent = extent;
	p->recreate = false;
	if (extent.width == 0 || extent.height == 0) {
		// Minimised: keep no swapchain until the window has a size again (a 0x0 swapchain is invalid).
		if (p->swapchain != VK_NULL_HANDLE)
			vkDestroySwapchainKHR(p->device, p->swapchain, NULL);
		p->swapchain = VK_NULL_HANDLE;
		p->recreate = true;
		p->stats.noSize++;
		return true;
	}
	if ((caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT) == 0)
		return Fail(p, "the surface's images cannot be written by a copy (no TRANSFER_DST usage)");
	p->canReadBack = (caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_SRC_BIT) != 0;
	uint32_t count = caps.minImageCount + 1;
	if (count < 2)
		count = 2;
	if (caps.maxImageCount > 0 && count > caps.maxImageCount)
		count = caps.maxImageCount;
	p->minImageCount = count;
	VkCompositeAlphaFlagBitsKHR alpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
	if ((caps.supportedCompositeAlpha & alpha) == 0) {
		for (uint32_t bit = 1; bit <= VK_COMPOSITE_ALPHA_INHERIT_BIT_KHR; bit <<= 1) {
			if (caps.supportedCompositeAlpha & bit) {
				alpha = (VkCompositeAlphaFlagBitsKHR)bit;
				break;
			}
		}
	}
	VkSwapchainKHR old = p->swapchain;
	VkSwapchainCreateInfoKHR info = {
		.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
		.surface = p->surface,
		.minImageCount = count,
		.imageFormat = p->format.format,
		.imageColorSpace = p->format.colorSpace,
		.imageExtent = extent,
		.imageArrayLayers = 1,
		.imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
			(p->canReadBack ? VK_IMAGE_USAGE_TRANSFER_SRC_BIT : 0),
		.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE,
		.preTransform = caps.currentTransform,
		.compositeAlpha = alpha,
		.presentMode = p->presentMode,
		.clipped = VK_TRUE,
		.oldSwapchain = old,
	};
	VkResult r = vkCreateSwapchainKHR(p->device, &info, NULL, &p->swapchain);
	if (old != VK_NULL_HANDLE)
		vkDestroySwapchainKHR(p->device, old, NULL);
	if (r != VK_SUCCESS) {
		p->swapchain = VK_NULL_HANDLE;
		return Fail(p, "vkCreateSwapchainKHR failed: %s (%d)", ResultName(r), (int)r);
	}
	p->stats.swapchains++;
	if (p->stats.swapchains == 1 || extent.width * extent.height < p->stats.minWidth * p->stats.minHeight) {
		p->stats.minWidth = extent.width;
		p->stats.minHeight = extent.height;
	}
	uint32_t imageCount = 0;
	VK_TRY(p, vkGetSwapchainImagesKHR(p->device, p->swapchain, &imageCount, NULL));
	if (imageCount > PRESENT_MAX_IMAGES)
		return Fail(p, "the swapchain has %u images, more than %d", imageCount, PRESENT_MAX_IMAGES);
	VK_TRY(p, vkGetSwapchainImagesKHR(p->device, p->swapchain, &imageCount, p->images));
	p->imageCount = imageCount;
	for (uint32_t i = 0; i < imageCount; ++i) {
		VkImageViewCreateInfo view = {
			.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
			.image = p->images[i],
			.viewType = VK_IMAGE_VIEW_TYPE_2D,
			.format = p->format.format,
			.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1},
		};
		VK_TRY(p, vkCreateImageView(p->device, &view, NULL, &p->views[i]));
		VkFramebufferCreateInfo fb = {
			.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
			.renderPass = p->renderPass,
			.attachmentCount = 1,
			.pAttachments = &p->views[i],
			.width = extent.width,
			.height = extent.height,
			.layers = 1,
		};
		VK_TRY(p, vkCreateFramebuffer(p->device, &fb, NULL, &p->framebuffers[i]));
		VkSemaphoreCreateInfo sem = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
		VK_TRY(p, vkCreateSemaphore(p->device, &sem, NULL, &p->rendered[i]));
	}
	return true;
}

Presenter* PresenterCreate(GLFWwindow* window, const char* deviceName, bool validation, bool immediate, char* error, int errorSize)
{
	Presenter* p = calloc(1, sizeof *p);
	if (p == NULL) {
		snprintf(error, (size_t)errorSize, "out of memory");
		return NULL;
	}
	p->window = window;
	bool ok = glfwVulkanSupported() ? true : Fail(p, "GLFW found no Vulkan loader with surface support");
	ok = ok && CreateDevice(p, deviceName, validation) && PickFormat(p, immediate) && CreateRenderPass(p) && CreatePools(p) &&
		CreateSwapchain(p);
	if (!ok) {
		snprintf(error, (size_t)errorSize, "%s", p->error);
		PresenterDestroy(p);
		return NULL;
	}
	return p;
}

void PresenterWaitIdle(Presenter* p)
{
	if (p == NULL || p->device == VK_NULL_HANDLE)
		return;
	VkResult r = vkDeviceWaitIdle(p->device);
	if (r != VK_SUCCESS) // teardown goes on: the objects are destroyed either way
		fprintf(stderr, "weft-view: vkDeviceWaitIdle failed: %s (%d)\n", ResultName(r), (int)r);
}

void PresenterDestroy(Presenter* p)
{
	if (p == NULL)
		return;
	if (p->device != VK_NULL_HANDLE) {
		PresenterWaitIdle(p);
		DestroySwapchainImages(p);
		if (p->swapchain != VK_NULL_HANDLE)
			vkDestroySwapchainKHR(p->device, p->swapchain, NULL);
		for (int i = 0; i < PRESENT_FRAMES; ++i) {
			Frame* f = &p->frames[i];
			DestroyHostBuffer(p, &f->upload, &f->uploadMemory, &f->uploadMap);
			if (f->fence != VK_NULL_HANDLE)
				vkDestroyFence(p->device, f->fence, NULL);
			if (f->acquired != VK_NULL_HANDLE)
				vkDestroySemaphore(p->device, f->acquired, NULL);
		}
		DestroyHostBuffer(p, &p->readback, &p->readbackMemory, &p->readbackMap);
		if (p->commandPool != VK_NULL_HANDLE)
			vkDestroyCommandPool(p->device, p->commandPool, NULL);
		if (p->descriptorPool != VK_NULL_HANDLE)
			vkDestroyDescriptorPool(p->device, p->descriptorPool, NULL);
		if (p->renderPass != VK_NULL_HANDLE)
			vkDestroyRenderPass(p->device, p->renderPass, NULL);
	}
	if (p->surface != VK_NULL_HANDLE)
		vkDestroySurfaceKHR(p->instance, p->surface, NULL);
	wfDestroyVulkanContext(p->vulkan); // the device and the instance
	free(p);
}

PresenterInfo PresenterGetInfo(const Presenter* p)
{
	PresenterInfo info = {
		.instance = p->instance,
		.physicalDevice = p->gpu,
		.device = p->device,
		.queueFamily = p->family,
		.queue = p->queue,
		.renderPass = p->renderPass,
		.descriptorPool = p->descriptorPool,
		.minImageCount = p->minImageCount,
		.imageCount = p->imageCount > p->minImageCount ? p->imageCount : p->minImageCount,
		.bgra = p->swapRedBlue,
		.software = p->software,
		.compute = (p->familyFlags & VK_QUEUE_COMPUTE_BIT) != 0,
	};
	snprintf(info.deviceName, sizeof info.deviceName, "%s", p->deviceName);
	return info;
}

void PresenterGetVulkanDevice(const Presenter* p, struct wfVulkanDevice* out) { wfVulkanContext_Get(p->vulkan, out); }

PresenterStats PresenterGetStats(const Presenter* p) { return p->stats; }
const char* PresenterError(const Presenter* p) { return p->error; }
int PresenterValidationCount(const Presenter* p) { return wfVulkanContext_GetValidationCount(p->vulkan); }
void PresenterResized(Presenter* p) { p->recreate = true; }

bool PresenterRunOnce(Presenter* p, void (*record)(VkCommandBuffer cmd, void* context), void* context)
{
	Frame* f = &p->frames[p->frameIndex];
	VK_TRY(p, vkWaitForFences(p->device, 1, &f->fence, VK_TRUE, UINT64_MAX));
	VK_TRY(p, vkResetCommandBuffer(f->cmd, 0));
	VkCommandBufferBeginInfo begin = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	VK_TRY(p, vkBeginCommandBuffer(f->cmd, &begin));
	record(f->cmd, context);
	VK_TRY(p, vkEndCommandBuffer(f->cmd));
	VkSubmitInfo submit = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = 1,
		.pCommandBuffers = &f->cmd,
	};
	VK_TRY(p, vkResetFences(p->device, 1, &f->fence));
	VK_TRY(p, vkQueueSubmit(p->queue, 1, &submit, f->fence));
	VK_TRY(p, vkWaitForFences(p->device, 1, &f->fence, VK_TRUE, UINT64_MAX));
	return true;
}

PresentStatus PresenterBegin(Presenter* p, int* width, int* height)
{
	if (p->recreate || p->swapchain == VK_NULL_HANDLE) {
		if (!CreateSwapchain(p))
			return PRESENT_ERROR;
		if (p->swapchain == VK_NULL_HANDLE)
			return PRESENT_SKIP; // minimised
	}
	Frame* f = &p->frames[p->frameIndex];
	VkResult r = vkWaitForFences(p->device, 1, &f->fence, VK_TRUE, UINT64_MAX);
	if (r != VK_SUCCESS) {
		Fail(p, "vkWaitForFences failed: %s (%d)", ResultName(r), (int)r);
		return PRESENT_ERROR;
	}
	r = vkAcquireNextImageKHR(p->device, p->swapchain, UINT64_MAX, f->acquired, VK_NULL_HANDLE, &p->imageIndex);
	if (r == VK_ERROR_OUT_OF_DATE_KHR) {
		p->recreate = true;
		return PRESENT_SKIP;
	}
	if (r == VK_SUBOPTIMAL_KHR)
		p->recreate = true; // this image is still usable; recreate after presenting it
	else if (r != VK_SUCCESS) {
		Fail(p, "vkAcquireNextImageKHR failed: %s (%d)", ResultName(r), (int)r);
		return PRESENT_ERROR;
	}
	*width = (int)p->extent.width;
	*height = (int)p->extent.height;
	return PRESENT_OK;
}

// Copies RGBA <-> the surface's byte order.
static void CopyPixels(uint8_t* dst, const uint8_t* src, size_t pixels, bool swap)
{
	if (!swap) {
		memcpy(dst, src, pixels * 4);
		return;
	}
	for (size_t i = 0; i < pixels; ++i) {
		dst[4 * i + 0] = src[4 * i + 2];
		dst[4 * i + 1] = src[4 * i + 1];
		dst[4 * i + 2] = src[4 * i + 0];
		dst[4 * i + 3] = src[4 * i + 3];
	}
}

static void ImageBarrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to, VkPipelineStageFlags srcStage,
	VkAccessFlags srcAccess, VkPipelineStageFlags dstStage, VkAccessFlags dstAccess)
{
	VkImageMemoryBarrier b = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
		.srcAccessMask = srcAccess,
		.dstAccessMask = dstAccess,
		.oldLayout = from,
		.newLayout = to,
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.image = image,
		.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1},
	};
	vkCmdPipelineBarrier(cmd, srcStage, dstStage, 0, 0, NULL, 0, NULL, 1, &b);
}

static bool Record(Presenter* p, Frame* f, const wfVulkanImage* scene, void (*drawUi)(VkCommandBuffer, void*), void* context, bool readback)
{
	VkCommandBuffer cmd = f->cmd;
	VkImage image = p->images[p->imageIndex];
	VK_TRY(p, vkResetCommandBuffer(cmd, 0));
	VkCommandBufferBeginInfo begin = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	VK_TRY(p, vkBeginCommandBuffer(cmd, &begin));
	// The scene: the whole image is overwritten, so its old contents are discarded (UNDEFINED).
	ImageBarrier(cmd, image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
		VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
	VkBufferImageCopy region = {
		.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
		.imageExtent = {p->extent.width, p->extent.height, 1},
	};
	if (scene != NULL) {
		// The renderer's frame on this device: its render pass wrote it (earlier on this queue) and
		// left it in TRANSFER_SRC_OPTIMAL. Same byte order, a 32-bit format of the same class: a raw
		// copy keeps the sRGB-encoded bytes, as the upload does.
		VkMemoryBarrier written = {
			.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
			.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
			.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT,
		};
		vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &written, 0, NULL, 0,
			NULL);
		VkImageCopy copy = {
			.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
			.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
			.extent = {p->extent.width, p->extent.height, 1},
		};
		vkCmdCopyImage(cmd, (VkImage)(uintptr_t)scene->image, (VkImageLayout)scene->layout, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
			&copy);
	} else {
		vkCmdCopyBufferToImage(cmd, f->upload, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
	}
	// The UI on top.
	VkRenderPassBeginInfo pass = {
		.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
		.renderPass = p->renderPass,
		.framebuffer = p->framebuffers[p->imageIndex],
		.renderArea = {{0, 0}, p->extent},
	};
	vkCmdBeginRenderPass(cmd, &pass, VK_SUBPASS_CONTENTS_INLINE);
	if (drawUi != NULL)
		drawUi(cmd, context);
	vkCmdEndRenderPass(cmd);
	// Screenshot: the finished image into the read-back buffer, then back to the present layout.
	if (readback) {
		ImageBarrier(cmd, image, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
			VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
		vkCmdCopyImageToBuffer(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, p->readback, 1, &region);
		ImageBarrier(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
			VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0);
		VkBufferMemoryBarrier host = {
			.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
			.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
			.dstAccessMask = VK_ACCESS_HOST_READ_BIT,
			.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
			.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
			.buffer = p->readback,
			.size = VK_WHOLE_SIZE,
		};
		vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, NULL, 1, &host, 0, NULL);
	}
	VK_TRY(p, vkEndCommandBuffer(cmd));
	return true;
}

static bool EnsureBuffer(Presenter* p, VkDeviceSize size, VkBufferUsageFlags usage, VkBuffer* buffer, VkDeviceMemory* memory, void** map,
	VkDeviceSize* have)
{
	if (*buffer != VK_NULL_HANDLE && *have >= size)
		return true;
	DestroyHostBuffer(p, buffer, memory, map);
	*have = 0;
	if (!CreateHostBuffer(p, size, usage, buffer, memory, map))
		return false;
	*have = size;
	return true;
}

PresentStatus PresenterEnd(Presenter* p, const uint8_t* rgba, const wfVulkanImage* scene, void (*drawUi)(VkCommandBuffer, void*),
	void* context, uint8_t* readback)
{
	Frame* f = &p->frames[p->frameIndex];
	size_t pixels = (size_t)p->extent.width * p->extent.height;
	VkDeviceSize bytes = (VkDeviceSize)pixels * 4;
	if (readback != NULL && !p->canReadBack) {
		Fail(p, "the swapchain images cannot be read back (no TRANSFER_SRC usage): no screenshots");
		return PRESENT_ERROR;
	}
	if (scene != NULL && ((uint32_t)scene->width != p->extent.width || (uint32_t)scene->height != p->extent.height)) {
		Fail(p, "the scene is %dx%d, the swapchain image %ux%u", scene->width, scene->height, p->extent.width, p->extent.height);
		return PRESENT_ERROR;
	}
	// The frame's fence was waited for in PresenterBegin: its upload buffer is free.
	if (scene == NULL &&
		!EnsureBuffer(p, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &f->upload, &f->uploadMemory, &f->uploadMap, &f->uploadSize))
		return PRESENT_ERROR;
	if (readback != NULL) {
		// Only screenshot frames use it, and each waits for its frame: it is idle here.
		if (!EnsureBuffer(p, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &p->readback, &p->readbackMemory, &p->readbackMap, &p->readbackSize))
			return PRESENT_ERROR;
	}
	if (scene == NULL)
		CopyPixels((uint8_t*)f->uploadMap, rgba, pixels, p->swapRedBlue);
	if (!Record(p, f, scene, drawUi, context, readback != NULL))
		return PRESENT_ERROR;

	VkPipelineStageFlags waitStage = VK_PIPELINE_STAGE_TRANSFER_BIT;
	VkSubmitInfo submit = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.waitSemaphoreCount = 1,
		.pWaitSemaphores = &f->acquired,
		.pWaitDstStageMask = &waitStage,
		.commandBufferCount = 1,
		.pCommandBuffers = &f->cmd,
		.signalSemaphoreCount = 1,
		.pSignalSemaphores = &p->rendered[p->imageIndex],
	};
	VkResult r = vkResetFences(p->device, 1, &f->fence);
	if (r == VK_SUCCESS)
		r = vkQueueSubmit(p->queue, 1, &submit, f->fence);
	if (r != VK_SUCCESS) {
		Fail(p, "vkQueueSubmit failed: %s (%d)", ResultName(r), (int)r);
		return PRESENT_ERROR;
	}
	VkPresentInfoKHR present = {
		.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
		.waitSemaphoreCount = 1,
		.pWaitSemaphores = &p->rendered[p->imageIndex],
		.swapchainCount = 1,
		.pSwapchains = &p->swapchain,
		.pImageIndices = &p->imageIndex,
	};
	r = vkQueuePresentKHR(p->queue, &present);
	p->stats.presents++;
	if (r == VK_ERROR_OUT_OF_DATE_KHR || r == VK_SUBOPTIMAL_KHR)
		p->recreate = true;
	else if (r != VK_SUCCESS) {
		Fail(p, "vkQueuePresentKHR failed: %s (%d)", ResultName(r), (int)r);
		return PRESENT_ERROR;
	}
	if (readback != NULL) {
		r = vkWaitForFences(p->device, 1, &f->fence, VK_TRUE, UINT64_MAX);
		if (r != VK_SUCCESS) {
			Fail(p, "vkWaitForFences failed: %s (%d)", ResultName(r), (int)r);
			return PRESENT_ERROR;
		}
		CopyPixels(readback, (const uint8_t*)p->readbackMap, pixels, p->swapRedBlue);
	}
	p->frameIndex = (p->frameIndex + 1) % PRESENT_FRAMES;
	return PRESENT_OK;
}
