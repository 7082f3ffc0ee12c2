// The window's Vulkan side: instance, device, swapchain, and per frame the upload of the renderer's
// pixels into the swapchain image, the UI render pass on top, optional read-back, and present.
#ifndef WEFT_VIEWER_PRESENT_H
#define WEFT_VIEWER_PRESENT_H

#include <vulkan/vulkan.h>

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct GLFWwindow GLFWwindow;
typedef struct Presenter Presenter;
struct wfVulkanDevice;
struct wfVulkanImage;

// Plain handles the UI backend needs.
typedef struct PresenterInfo {
	VkInstance instance;
	VkPhysicalDevice physicalDevice;
	VkDevice device;
	uint32_t queueFamily;
	VkQueue queue;
	VkRenderPass renderPass;
	VkDescriptorPool descriptorPool;
	uint32_t minImageCount, imageCount;
	char deviceName[256];
	bool bgra;     // the swapchain's byte order is B, G, R, A
	bool software; // the device is a software rasteriser (lavapipe)
	bool compute;  // the queue has compute too: the world can run on it
} PresenterInfo;

// What the presenter has done, for the scripted tests' probes.
typedef struct PresenterStats {
	int64_t presents;             // images handed to vkQueuePresentKHR
	int swapchains;               // swapchains created
	uint32_t minWidth, minHeight; // the smallest extent a swapchain was created with (0 before the first)
	int noSize;                   // times the surface had no size, so no swapchain was created
} PresenterStats;

typedef enum PresentStatus {
	PRESENT_OK = 0,
	PRESENT_SKIP,  // nothing to draw into this frame (the surface has no size, or the swapchain was out of date)
	PRESENT_ERROR, // message in PresenterError
} PresentStatus;

// The instance and device come from weft's device module (wfCreateVulkanInstance, weft/render.h):
// deviceName (a part of the name, any case; NULL: by type) and the one choice policy of the solver
// and the renderer, among the devices that present to the window.
// validation: Khronos validation layer with a messenger that prints "vulkan validation:" lines.
// immediate: prefer a present mode that does not wait for vertical blank (scripted runs).
// Returns NULL and writes the reason (no Vulkan, no surface support, ...) into error.
Presenter* PresenterCreate(GLFWwindow* window, const char* deviceName, bool validation, bool immediate, char* error, int errorSize);
void PresenterDestroy(Presenter* p);
PresenterInfo PresenterGetInfo(const Presenter* p);
PresenterStats PresenterGetStats(const Presenter* p);
const char* PresenterError(const Presenter* p);
int PresenterValidationCount(const Presenter* p);
// The window's instance, device and queue, for the world and the renderer to share
// (wfWorldDef.vulkanDevice, wfRendererDef.vulkanDevice). They live until PresenterDestroy.
void PresenterGetVulkanDevice(const Presenter* p, struct wfVulkanDevice* out);
// Runs a one-off command buffer (UI font upload) and waits for it.
bool PresenterRunOnce(Presenter* p, void (*record)(VkCommandBuffer cmd, void* context), void* context);

// Acquires the next image; *width and *height give its size (the size the scene must be rendered at).
// A surface of no size (a minimised window) gives PRESENT_SKIP and no swapchain, never a 0x0 one.
PresentStatus PresenterBegin(Presenter* p, int* width, int* height);
// The scene: scene (the renderer's frame on this device, copied on the GPU; same size and byte order
// as the swapchain), else rgba (width * height * 4 bytes of sRGB pixels, rows top to bottom, uploaded).
// drawUi records the UI into the render pass. readback: when not NULL, the finished frame (scene + UI)
// is copied there as RGBA.
PresentStatus PresenterEnd(Presenter* p, const uint8_t* rgba, const struct wfVulkanImage* scene,
	void (*drawUi)(VkCommandBuffer cmd, void* context), void* context, uint8_t* readback);
// The window changed size: recreate the swapchain before the next frame.
void PresenterResized(Presenter* p);
// Waits until the device is idle (before the UI backend frees its objects).
void PresenterWaitIdle(Presenter* p);

#ifdef __cplusplus
}
#endif

#endif
