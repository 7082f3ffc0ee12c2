// weft render — a headless Vulkan raster renderer for weft worlds, PNG output and MP4 video.
//
// Usage:
//   wfRendererDef rd = wfDefaultRendererDef();
//   rd.width = 1280; rd.height = 720;
//   char err[256];
//   rd.world = world;   // optional: draw from the solver's buffers when the world runs on Vulkan
//   wfRenderer* r = wfCreateRenderer(&rd, err, sizeof err);
//   wfCamera cam = wfDefaultCameraForPreset("compute-cloth");
//   wfRenderer_DrawWorld(r, world, &cloth, 1, &cam);
//   wfRenderer_ReadPixels(r, rgba, 1280 * 720 * 4);
//   wfWritePng("frame.png", rgba, 1280, 720, err, sizeof err);
//   wfDestroyRenderer(r);
//
// The renderer draws into offscreen images only (no window, no surface), so it runs on servers and in
// CI (lavapipe). The Vulkan loader is opened at run time; a machine without it gets a clear error from
// wfCreateRenderer. The device is chosen like the solver's (wfRendererDef.deviceName: "#N" or a part of its
// name, any case; else discrete > integrated > virtual > CPU); the tools map WEFT_VK_DEVICE and
// WEFT_VK_VALIDATION=1 (the Khronos validation layer, messages counted: wfRenderer_GetValidationCount)
// onto the def.
// Images are 8-bit sRGB RGBA, rows top to bottom, tightly packed (width * 4 bytes a row).
// Arguments follow weft.h's rule (NULL pointers and non-finite floats refused, neutral getters); a
// NULL renderer gets WF_ERROR_INVALID_ARGUMENT, wfRenderer_GetDef(NULL) the default def.
#ifndef WEFT_RENDER_H
#define WEFT_RENDER_H

#include "weft/weft.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum wfColorMode {
	WF_COLOR_TEXTURE = 0, // checker-weave texture repeated over the cloth's UVs
	WF_COLOR_SPEED,       // particle speed, 0 .. speedScale m/s on a blue-cyan-yellow-red ramp
	WF_COLOR_STRAIN,      // signed stretch per particle, -strainScale (blue) .. 0 (white) .. +strainScale (red)
	WF_COLOR_MODE_COUNT
} wfColorMode;

// Names used on the command line ("texture", "speed", "strain").
WF_API const char* wfColorModeName(wfColorMode mode);
WF_API bool wfColorModeFromName(const char* name, wfColorMode* out);

// What is drawn of a cloth: its surface, the third document's own view of its nodes (every particle
// a small sphere coloured by speed on the speed ramp, every stretch and shear constraint a line
// coloured by signed strain, blue through grey to red, saturated at 2 % so that 1 % shows at half;
// strains against the rest shape as in WF_COLOR_STRAIN), or both.
typedef enum wfViewMode { WF_VIEW_CLOTH = 0, WF_VIEW_NODES, WF_VIEW_BOTH, WF_VIEW_MODE_COUNT } wfViewMode;

// Names used on the command line ("cloth", "nodes", "both").
WF_API const char* wfViewModeName(wfViewMode view);
WF_API bool wfViewModeFromName(const char* name, wfViewMode* out);

typedef struct wfRendererDef {
	int width, height; // image size in pixels, [1, 16384]
	int msaaSamples;   // 1, 2, 4 or 8; lowered to what the device supports
	wfColorMode colorMode;
	wfViewMode view;        // cloth (default), nodes or both
	bool wireframe;         // draw the cloth's edges over the shaded surface
	bool showPins;          // mark pinned particles with small red dots
	bool showFloor;         // draw the floor when the world has one
	bool showGround;        // with no floor in the world: draw one at groundHeight that is not a
							// collider (a stage under a scene, e.g. wfDefaultGroundForPreset's)
	float groundHeight;     // m, [-1e6, 1e6]; used when showGround
	bool showSphere;        // draw the sphere when the world has one
	float background[3];    // sRGB colour of the empty background, each [0, 1]
	float speedScale;       // m/s at the top of the speed ramp, > 0
	float strainScale;      // strain at the ends of the strain ramp, > 0
	const char* deviceName; // a part of the Vulkan device's name, any case; NULL: a hardware device, else any
	bool validation;        // enable the validation layer (the tools map WEFT_VK_VALIDATION=1 onto it)
	// Optional: when this world runs on Vulkan (on a device with a graphics queue), the renderer uses the
	// world's device and queue and draws the world's cloths straight from the solver's buffers: no
	// read-back, no upload (deviceName and validation are then the world's). Destroy the renderer before
	// the world. NULL, or a world on the CPU: the renderer opens its own device.
	wfWorld* world;
	// Optional: draw on the caller's device and queue (an engine's, or a window's; see weft.h, "Vulkan
	// interop"; the queue needs graphics). Cloths of worlds on that device and queue are drawn from the
	// solver's buffers. Takes precedence over world's device; must outlive the renderer.
	const wfVulkanDevice* vulkanDevice;
	bool hostImage;    // copy every frame to host memory for wfRenderer_ReadPixels (default true);
					   // false: the frame stays on the device (wfRenderer_GetVulkanImage)
	bool bgra;         // the image is B8G8R8A8 (sRGB-encoded) instead of R8G8B8A8, a swapchain's usual order
	int internalValue; // set by wfDefaultRendererDef, checked on create
} wfRendererDef;

// 1280x720, 4x MSAA, texture colours, pins shown, floor and sphere shown.
WF_API wfRendererDef wfDefaultRendererDef(void);

// Orbit camera: the eye sits `distance` from `target` at the given azimuth (degrees, measured from +z
// towards +x) and elevation (degrees above the xz plane). fov is the vertical field of view in degrees.
typedef struct wfCamera {
	wfVec3 target;
	float azimuth;
	float elevation;
	float distance;
	float fov;
} wfCamera;

// The orbit camera that sits at `eye` and looks at `target`; a non-finite argument gives
// wfDefaultCameraForPreset(NULL). wfCamera_GetEye(NULL) is (0, 0, 0).
WF_API wfCamera wfCameraLookAt(wfVec3 eye, wfVec3 target, float fovDegrees);
// Eye position of an orbit camera.
WF_API wfVec3 wfCamera_GetEye(const wfCamera* camera);
// A good view of a preset's scene ("compute-cloth" gets the second document's camera); unknown names
// get a general view of the origin.
WF_API wfCamera wfDefaultCameraForPreset(const char* presetName);
// A stage for a preset whose world has no floor: true and the height (m) of a ground drawn below
// everything its cloth reaches (wfRendererDef.showGround), so the picture shows where down is;
// false for presets with a floor of their own and unknown names.
WF_API bool wfDefaultGroundForPreset(const char* presetName, float* height);

// A view of a whole scene (for scene files without a camera): looks at the bounding sphere of the
// cloths (and the world's sphere) from the front-right and above, far enough that it fits the image's
// height at the given field of view (degrees; an image wider than tall fits too). A field of view
// outside (0, 180) gives wfDefaultCameraForPreset(NULL); a NULL list counts as empty.
WF_API wfCamera wfCameraFit(wfWorld* world, const wfClothId* cloths, int count, float fovDegrees);

typedef struct wfRenderer wfRenderer;

// Returns NULL on failure (a NULL def included) and writes the reason into error (if not NULL).
WF_API wfRenderer* wfCreateRenderer(const wfRendererDef* def, char* error, int errorSize);
WF_API void wfDestroyRenderer(wfRenderer* renderer);

// Changes the image size (a window was resized); keeps the device, pipelines and texture, so it is
// much cheaper than a new renderer. The last frame is dropped.
WF_API wfResult wfRenderer_Resize(wfRenderer* renderer, int width, int height);

// Resolved settings (msaaSamples as used) and the device's name.
WF_API wfRendererDef wfRenderer_GetDef(const wfRenderer* renderer);
WF_API const char* wfRenderer_GetDeviceName(const wfRenderer* renderer);
WF_API const char* wfRenderer_GetLastError(const wfRenderer* renderer);
// Validation-layer messages (warnings and errors) seen so far; 0 when validation is off. A renderer on a
// world's device reports the world's count (wfWarnings.validationMessages).
WF_API int wfRenderer_GetValidationCount(const wfRenderer* renderer);
// True when the renderer uses its def's world's device and draws that world's cloths from the
// solver's buffers.
WF_API bool wfRenderer_SharesWorldDevice(const wfRenderer* renderer);
// The last frame: bytes of cloth state (positions, normals, velocities) copied from the host, and the
// cloths drawn straight from the solver's buffers.
WF_API int64_t wfRenderer_GetUploadBytes(const wfRenderer* renderer);
WF_API int wfRenderer_GetZeroCopyCloths(const wfRenderer* renderer);
// Changes the colour mode, wireframe and pin markers between frames (other fields are ignored).
WF_API void wfRenderer_SetStyle(wfRenderer* renderer, wfColorMode mode, bool wireframe, bool showPins);
// Changes the view between frames; an unknown view is refused (WF_ERROR_INVALID_ARGUMENT).
WF_API wfResult wfRenderer_SetView(wfRenderer* renderer, wfViewMode view);

// Renders one frame: the floor and sphere of the world (as enabled) and the given cloths. The cloths of
// the def's world, or of any world on its device and queue (wfWorldDef.vulkanDevice), are drawn from
// the solver's buffers; others are read through the public read-back API and uploaded through a
// staging buffer. The floor receives the shadows of the
// sphere and the cloths from the key light, fitted on the GPU. count may be 0. Waits for the GPU.
// Strain mode measures edges against the lengths they had when this renderer first drew the cloth.
WF_API wfResult wfRenderer_DrawWorld(wfRenderer* renderer, wfWorld* world, const wfClothId* cloths, int count, const wfCamera* camera);

// The last frame on the device, for a copy into a swapchain image on the same device and queue
// (vkCmdCopyImage to a 32-bit UNORM or SRGB image of the same byte order). After wfRenderer_DrawWorld
// returns, the frame is complete (the renderer waited for it) and stays in `layout` until the next
// draw; the next draw's first use of it waits for earlier transfer reads on the queue.
typedef struct wfVulkanImage {
	uint64_t image;  // VkImage
	uint32_t format; // VkFormat: R8G8B8A8_SRGB, or B8G8R8A8_SRGB with wfRendererDef.bgra
	uint32_t layout; // VkImageLayout: TRANSFER_SRC_OPTIMAL
	int width, height;
} wfVulkanImage;
WF_API wfResult wfRenderer_GetVulkanImage(const wfRenderer* renderer, wfVulkanImage* out);

// Copies the last frame into rgba; size must be at least width * height * 4. Needs hostImage.
WF_API wfResult wfRenderer_ReadPixels(wfRenderer* renderer, uint8_t* rgba, int size);

// Writes an 8-bit RGBA PNG (to a temporary file, renamed into place when complete).
WF_API wfResult wfWritePng(const char* path, const uint8_t* rgba, int width, int height, char* error, int errorSize);
// The same PNG in memory: *png gets malloc'ed bytes (free them), *size their count.
WF_API wfResult wfEncodePng(const uint8_t* rgba, int width, int height, uint8_t** png, size_t* size);
// The weave the renderer puts on every cloth in WF_COLOR_TEXTURE (sRGB RGBA, size x size, repeating
// at UV 0..1; a cloth's UVs carry its wfClothDef.uvRepeat), for caches that carry the look along.
// size in [8, 4096]; other sizes or a NULL rgba write nothing.
WF_API void wfMakeWeaveTexture(uint8_t* rgba /* (size x size x 4) */, int size);

// A Vulkan device made by weft's device module for a program that also presents (a window): the same
// loader, validation and device choice as the solver and the renderer (deviceName: "#N" or a part of the
// name, any case; without one discrete > integrated > virtual > CPU), with the caller's instance and
// device extensions and a test of which queue families it can use (the window's surface is made on
// the instance in between). The queue has graphics, and compute too where a family has both; share
// it with wfWorldDef.vulkanDevice and wfRendererDef.vulkanDevice. Usage:
//   wfVulkanContext* vc = wfCreateVulkanInstance(&def, err, sizeof err);   // then the surface
//   wfVulkanContext_CreateDevice(vc, err, sizeof err);                     // then wfVulkanContext_Get
//   ... wfDestroyVulkanContext(vc);                                        // after the surface
typedef struct wfVulkanContextDef {
	const char* appName;                   // NULL: "weft"
	const char* deviceName;                // NULL or "": by type
	bool validation;                       // the Khronos validation layer (an error when it is not installed)
	const char* const* instanceExtensions; // e.g. the window system's surface extensions
	int instanceExtensionCount;            // [0, 16]
	const char* const* deviceExtensions;   // required; e.g. "VK_KHR_swapchain"
	int deviceExtensionCount;              // [0, 16]
	// Optional: whether a queue family can be used (e.g. presents to the surface). instance is a
	// VkInstance, physicalDevice a VkPhysicalDevice.
	bool (*familyUsable)(void* user, void* instance, void* physicalDevice, uint32_t family);
	void* familyUser;
	// Optional: each validation message (warnings and errors).
	void (*onMessage)(void* user, bool error, const char* text);
	void* messageUser;
} wfVulkanContextDef;
typedef struct wfVulkanContext wfVulkanContext;
// NULL on failure (the reason in error). The instance is wfVulkanContext_Get's .instance.
WF_API wfVulkanContext* wfCreateVulkanInstance(const wfVulkanContextDef* def, char* error, int errorSize);
WF_API wfResult wfVulkanContext_CreateDevice(wfVulkanContext* context, char* error, int errorSize);
// The handles (device, queue NULL before wfVulkanContext_CreateDevice); they live until the context is destroyed.
WF_API wfResult wfVulkanContext_Get(const wfVulkanContext* context, wfVulkanDevice* out);
WF_API const char* wfVulkanContext_GetDeviceName(const wfVulkanContext* context); // "" before the device
WF_API int wfVulkanContext_GetValidationCount(const wfVulkanContext* context);
// The name of a VkResult ("VK_ERROR_DEVICE_LOST"), from the table the solver and the renderer use.
WF_API const char* wfVulkanResultName(int result);
// Waits for the device, destroys it and the instance. Objects made on them must be gone.
WF_API void wfDestroyVulkanContext(wfVulkanContext* context);

// Video: frames piped to the `ffmpeg` command (H.264, yuv420p) into a temporary file that becomes
// `path` when wfVideoClose succeeds. Returns NULL with a message when ffmpeg cannot be started.
typedef struct wfVideo wfVideo;
WF_API wfVideo* wfVideoOpen(const char* path, int width, int height, int fps, char* error, int errorSize);
// Appends one frame of width * height * 4 bytes.
WF_API wfResult wfVideoWrite(wfVideo* video, const uint8_t* rgba);
// Finishes the file; returns the first error of the whole video (the temporary file is removed then).
// Always frees the video. error may be NULL.
WF_API wfResult wfVideoClose(wfVideo* video, char* error, int errorSize);
// Throws the video away (no file is left behind).
WF_API void wfDestroyVideo(wfVideo* video);
// True when an `ffmpeg` executable is on PATH.
WF_API bool wfVideoAvailable(void);

#ifdef __cplusplus
}
#endif

#endif // WEFT_RENDER_H
