// weft-view: the interactive viewer. Shared declarations of its parts (all C11 except ui_bridge.cpp).
// Uses the public API only: weft.h for the simulation, render.h for the headless renderer whose
// pixels are shown in the window.
#ifndef WEFT_VIEWER_H
#define WEFT_VIEWER_H

#include "weft/render.h"
#include "weft/weft.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VIEW_MAX_CLOTHS 64
#define VIEW_MAX_CATCHUP 4     // simulation frames stepped at most per displayed frame
#define VIEW_HIDDEN_WAIT 0.05  // seconds the main loop sleeps in events per turn while minimised
#define VIEW_PICK_RADIUS 14.0f // window units (pixels at scale 1) between the cursor and a particle that picks it

// What the control panel edits; applied to the world when it differs from what was applied last.
typedef struct ViewClothParams {
	wfMaterial material;
	wfPinMode pinMode;
	int cols, rows; // grid density: a change rebuilds the cloth
} ViewClothParams;

typedef struct ViewParams {
	wfStepDef step;
	wfVec3 gravity;
	wfSphereDef sphere;
	wfFloorDef floor;
	wfWindDef wind;
	wfSelfCollisionDef selfCollision; // on/off, thickness, friction (wfWorld_SetSelfCollision)
	int clothCount;
	ViewClothParams cloth[VIEW_MAX_CLOTHS]; // (clothCount)
	wfColorMode colorMode;
	wfViewMode view; // cloth, nodes (the third document's view) or both; key V
	bool wireframe;
} ViewParams;

// Mouse gesture in progress.
typedef enum ViewGesture {
	VIEW_GESTURE_NONE = 0,
	VIEW_GESTURE_ORBIT,
	VIEW_GESTURE_PAN,
	VIEW_GESTURE_ZOOM,
	VIEW_GESTURE_DRAG,  // a particle is grabbed
	VIEW_GESTURE_PANEL, // the press went to the control panel
} ViewGesture;

typedef struct ViewOptions {
	const char* preset;  // --preset (default compute-cloth when neither is given)
	const char* scene;   // --scene FILE.json
	int backend;         // wfBackendType, -1 = the scene's
	int width, height;   // --size
	int cols, rows;      // --grid, 0 = the scene's
	const char* script;  // --script FILE
	const char* shotDir; // --screenshot-dir DIR (default ".")
} ViewOptions;

typedef struct View {
	ViewOptions options;
	char source[300];                      // "preset NAME" or "scene PATH"
	wfScene* scene;                        // kept while the world lives (pin lists, device name)
	wfWorldDef worldDef;                   // the world's def as loaded (ViewLoad), options applied
	wfClothDef clothDefs[VIEW_MAX_CLOTHS]; // the defs the cloths were created from (grid as now)
	wfWorld* world;
	wfClothId cloths[VIEW_MAX_CLOTHS];
	int clothCount;

	ViewParams start;   // what the viewer started from ("Reset params")
	ViewParams edit;    // what the panel shows and edits
	ViewParams applied; // what the world has
	char status[256];   // last parameter error, shown in the panel ("" when none)

	// Camera and mouse (window coordinates; framebuffer pixels are scale times these).
	wfCamera camera, home;
	bool showGround;    // a preset without a floor gets a ground to stand on (wfDefaultGroundForPreset)
	float groundHeight; // m
	int width, height;  // framebuffer pixels
	float scale;        // framebuffer pixels per window coordinate
	double mouseX, mouseY;
	ViewGesture gesture;
	int gestureButton; // the mouse button that started it
	bool shift, alt;

	// The grabbed particle and its camera-facing plane.
	int grabCloth, grabParticle;
	wfVec3 grabNormal; // plane normal (camera forward at grab time)
	wfVec3 grabPoint;  // a point of the plane (the particle at grab time)
	wfVec3 grabOffset; // particle minus the cursor's plane point at grab time
	wfVec3 grabTarget; // the target last sent

	// Time.
	bool paused;
	bool quit;
	bool realtime;                   // the accumulator drives stepping (always, except in scripts by default)
	double accumulator;              // unsimulated real seconds
	double clockedUntil;             // Now() up to which real time has been fed to the accumulator
	int64_t simFrames;               // simulation frames stepped
	int64_t displayFrames;           // frames shown
	double frameMs, simMs, renderMs; // smoothed read-outs
	int stepsLastFrame;

	// The window (kept by main.c; the script's probes log it).
	bool minimised;                  // iconified or a framebuffer of no size: nothing drawn, presented or stepped
	int64_t hiddenFrames;            // main-loop turns spent minimised
	int64_t renderedFrames;          // scenes drawn by the renderer
	int zeroCopyCloths;              // cloths the last frame drew from the solver's buffers (world on the window's device)
	int64_t uploadBytes;             // cloth state the last frame copied from the host
	int64_t presentedFrames;         // images presented (the presenter's count)
	int swapchains;                  // swapchains created (the presenter's count)
	int swapMinWidth, swapMinHeight; // the smallest swapchain created
} View;

// ---- view.c: world setup, parameters, stepping, camera and input handlers (shared by the
// window's callbacks and the script).
// 0 or an exit code after printing the reason. ViewLoad reads the scene or preset and the options;
// ViewCreateWorld creates the world (on the window's Vulkan device when `device` is not NULL) and
// its cloths.
int ViewLoad(View* v, const ViewOptions* options);
int ViewCreateWorld(View* v, const wfVulkanDevice* device);
void ViewDestroy(View* v);
void ViewApplyParams(View* v);            // pushes edit -> world (diff against applied)
void ViewResetParams(View* v);            // edit = start, then apply (particles untouched)
void ViewResetCloth(View* v);             // wfCloth_Reset on every cloth
void ViewStepFrames(View* v, int frames); // steps unless paused; times it
void ViewOnKey(View* v, int key);         // GLFW key code, pressed
void ViewOnMouseButton(View* v, int button, bool down, bool overPanel);
void ViewOnCursor(View* v, double x, double y);
void ViewOnScroll(View* v, double dy);
void ViewSetMods(View* v, bool shift, bool alt);
// Window coordinates of a world point; false behind the eye or before the first frame.
bool ViewProject(const View* v, wfVec3 p, double* x, double* y);
// The panel covers `left` window units on the left: shift the home view (and the camera) to centre
// the scene in the rest.
void ViewMakeRoom(View* v, double left);
void ViewMeanY(const View* v, double* meanY, uint64_t* hash); // over every particle
// Sets a parameter by name ("gravity -30", "substeps 20", ...) or def path ("step.substeps 20",
// "cloth.material.damping 0.5"), parsed and range-checked by the library's def table; false with a
// message for unknown ones and bad values.
bool ViewSetParam(View* v, const char* name, const char* value, char* error, int errorSize);
// Where the panel keeps a def field (p's world groups, or cloth `cloth`'s), and its table row in
// *field; NULL when the panel does not edit it.
void* ViewParamAt(ViewParams* p, int cloth, wfDefType def, const char* path, const wfFieldInfo** field);

// ---- script.c: timed input replay and the state log. Event times are frame numbers (turns of the
// main loop; a turn while minimised displays nothing); in a scripted run every displayed frame steps
// the simulation exactly once (unless paused), so a script replays identically on any machine.
typedef struct ViewScript ViewScript;
typedef struct ScriptOut {
	char screenshot[128];          // name of a screenshot to take of this frame ("" for none)
	int resizeWidth, resizeHeight; // a window resize to request (0 for none)
	int iconify;                   // 1 minimise the window, -1 restore it, 0 neither
	bool quit;
} ScriptOut;
ViewScript* ScriptLoad(const char* path, const char* logPath, char* error, int errorSize);
void ScriptDestroy(ViewScript* s);
// Runs the events of frame `frame` through the viewer's input handlers. False on a failed event
// (message printed).
bool ScriptRun(ViewScript* s, View* v, int64_t frame, ScriptOut* out);
bool ScriptDone(const ViewScript* s);
// The scripted mouse, for the panel (it sees the same clicks as the scene).
void ScriptMouse(const ViewScript* s, double* x, double* y, bool* down);
void ScriptLog(ViewScript* s, const char* fmt, ...);

#ifdef __cplusplus
}
#endif

#endif
