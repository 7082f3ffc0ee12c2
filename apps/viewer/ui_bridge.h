// The control panel: a C interface over Dear ImGui (ui_bridge.cpp, the viewer's only C++ file) and
// its GLFW and Vulkan backends. The panel edits a ViewParams in place and reports button presses.
#ifndef WEFT_VIEWER_UI_BRIDGE_H
#define WEFT_VIEWER_UI_BRIDGE_H

#include "present.h"
#include "viewer.h"

#ifdef __cplusplus
extern "C" {
#endif

// What the panel shows but does not edit.
typedef struct UiReadouts {
	const char* source;                            // "preset xpbd"
	const char* simDevice;                         // wfWorld_GetDeviceName
	const char* backend;                           // "cpu" or "vulkan"
	const char* renderDevice;                      // wfRenderer_GetDeviceName
	const char* windowDevice;                      // the device presenting the window
	double frameMs;                                // wall time per displayed frame
	double simMs;                                  // wall time per simulation frame
	double renderMs;                               // wfRenderer_DrawWorld + ReadPixels per frame
	int stepsPerFrame;                             // simulation frames in the last displayed frame
	double gpuMs;                                  // device time of the last simulation frame (wfWorld_GetStepProfile), < 0 unknown
	int dispatches;                                // compute dispatches per simulation frame, 0 on the CPU
	double simTime;                                // simulated seconds
	int particles, constraints, colors, triangles; // over every cloth
	bool paused;
	const char* status;             // last parameter error, "" when none
	double stageMs[WF_STAGE_COUNT]; // per wfStage, last simulation frame (wfStepProfile.stageMs), < 0 unknown
} UiReadouts;

enum {
	UI_ACTION_RESET_PARAMS = 1,
	UI_ACTION_RESET_CLOTH = 2,
	UI_ACTION_RESET_VIEW = 4,
	UI_ACTION_PAUSE = 8, // toggle
};

// The window's callbacks stay the viewer's: it forwards events with the Ui*Callback functions.
bool UiCreate(GLFWwindow* window, const PresenterInfo* info, char* error, int errorSize);
void UiDestroy(void);
// Font atlas upload: record into a one-off command buffer, then free the staging objects.
void UiRecordFontUpload(VkCommandBuffer cmd, void* context);
void UiFontUploadDone(void);
void UiSetMinImageCount(uint32_t count);

void UiMouseButtonCallback(GLFWwindow* window, int button, int action, int mods);
void UiScrollCallback(GLFWwindow* window, double dx, double dy);
void UiKeyCallback(GLFWwindow* window, int key, int scancode, int action, int mods);
void UiCharCallback(GLFWwindow* window, unsigned int c);
void UiFocusCallback(GLFWwindow* window, int focused);
void UiCursorEnterCallback(GLFWwindow* window, int entered);
bool UiWantsMouse(void);
bool UiWantsKeyboard(void);
// True when (x, y) (window coordinates) lies on the panel as it was last drawn.
bool UiPanelContains(double x, double y);
// The panel's last rectangle: x, y, width, height in window coordinates.
void UiPanelRect(double rect[4]);

// Builds this frame's panel. scripted: the mouse state comes from the script instead of the window.
// clothIndex: which cloth the material and grid controls edit (kept between frames by the caller).
int UiFrame(ViewParams* params, int* clothIndex, const UiReadouts* readouts, bool scripted, double mouseX, double mouseY, bool mouseDown);
// Records the panel drawn by the last UiFrame into the current render pass.
void UiDraw(VkCommandBuffer cmd, void* context);
// The first VkResult other than VK_SUCCESS that ImGui's Vulkan backend reported (VK_SUCCESS if none).
VkResult UiVulkanError(void);

#ifdef __cplusplus
}
#endif

#endif
