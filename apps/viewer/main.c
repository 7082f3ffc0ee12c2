// weft-view: an interactive window on a weft world. The window's Vulkan device is shared: the
// renderer (render.h) draws on it and its frame is copied into the swapchain image on the GPU, and a
// world on Vulkan runs on it too, so its cloths are drawn from the solver's buffers. The Dear ImGui
// control panel is drawn on top (present.c, ui_bridge.cpp). Simulated time advances in fixed frames of
// def.step.timeStep: as many as real time allows, at most VIEW_MAX_CATCHUP per displayed frame.
// While the window is minimised nothing is drawn, presented or simulated (see Frame).
#include "present.h"
#include "ui_bridge.h"
#include "viewer.h"
#include "weft_env.h" // WEFT_VK_DEVICE

#include <GLFW/glfw3.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const char* kUsage =
	"weft-view [--preset NAME | --scene FILE.json] [options]\n"
	"  An interactive window: orbit, pause, reset, drag nodes, tune every parameter live.\n"
	"  --preset NAME          a built-in scene (default compute-cloth; see `weft presets`)\n"
	"  --scene FILE.json      a scene file\n"
	"  --backend B            auto, cpu or vulkan (default: the scene's)\n"
	"  --size WxH             window size in pixels (default 1280x720)\n"
	"  --grid CxR             particles per row and column of every cloth\n"
	"  --script FILE          replay timed input events (see apps/viewer/script.c), then quit\n"
	"  --screenshot-dir DIR   where scripted screenshots and session.log go (default .)\n"
	"Keys: Space pause, S sphere motion, R reset cloth, W wireframe, M colour mode, V view (cloth, nodes, both), C reset view, Esc quit.\n"
	"Mouse: drag a node to pull it; drag elsewhere to orbit, shift-drag to pan, alt-drag or scroll to zoom.\n"
	"Exit codes: 0 done, 1 no display or no Vulkan presentation, 2 bad arguments or scene, 3 script error,\n"
	"4 Vulkan or render failure, 5 validation messages (WEFT_VK_VALIDATION=1).\n";

static double Now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

// ------------------------------------------------------------------ arguments

static bool ParsePair(const char* s, int* a, int* b, int lo, int hi)
{
	char tail;
	return sscanf(s, "%dx%d%c", a, b, &tail) == 2 && *a >= lo && *a <= hi && *b >= lo && *b <= hi;
}

// 0 to run, 2 on a usage error (printed), -1 after --help.
static int ParseArgs(int argc, char** argv, ViewOptions* o)
{
	memset(o, 0, sizeof *o);
	o->backend = -1;
	o->width = 1280;
	o->height = 720;
	o->shotDir = ".";
	for (int i = 1; i < argc; ++i) {
		const char* arg = argv[i];
		if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
			printf("%s", kUsage);
			return -1;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "weft-view: %s: expected a value (see --help)\n", arg);
			return 2;
		}
		const char* value = argv[++i];
		if (strcmp(arg, "--preset") == 0)
			o->preset = value;
		else if (strcmp(arg, "--scene") == 0)
			o->scene = value;
		else if (strcmp(arg, "--script") == 0)
			o->script = value;
		else if (strcmp(arg, "--screenshot-dir") == 0)
			o->shotDir = value;
		else if (strcmp(arg, "--backend") == 0) {
			wfBackendType b;
			if (!wfBackendFromName(value, &b)) {
				fprintf(stderr, "weft-view: --backend: '%s' (allowed: auto, cpu, vulkan)\n", value);
				return 2;
			}
			o->backend = (int)b;
		} else if (strcmp(arg, "--size") == 0) {
			if (!ParsePair(value, &o->width, &o->height, 64, 16384)) {
				fprintf(stderr, "weft-view: --size: '%s' (allowed: WxH, each [64, 16384])\n", value);
				return 2;
			}
		} else if (strcmp(arg, "--grid") == 0) {
			if (!ParsePair(value, &o->cols, &o->rows, 1, 8192)) {
				fprintf(stderr, "weft-view: --grid: '%s' (allowed: CxR, each [1, 8192])\n", value);
				return 2;
			}
		} else {
			fprintf(stderr, "weft-view: unknown option '%s' (see --help)\n", arg);
			return 2;
		}
	}
	if (o->preset != NULL && o->scene != NULL) {
		fprintf(stderr, "weft-view: give --preset or --scene, not both\n");
		return 2;
	}
	if (o->preset == NULL && o->scene == NULL)
		o->preset = "compute-cloth";
	return 0;
}

// ------------------------------------------------------------------ the application

typedef struct App {
	View view;
	GLFWwindow* window;
	Presenter* presenter;
	PresenterInfo presenterInfo;
	wfRenderer* renderer;
	int renderWidth, renderHeight;
	uint8_t* shot; // (same) read-back of the finished frame
	ViewScript* script;
	wfVulkanDevice device; // the window's device, shared with the renderer (and the world on Vulkan)
	bool iconified;        // the window is iconified (GLFW's callback)
	int fbWidth, fbHeight; // the framebuffer's size (GLFW's callback): 0x0 while minimised on some desktops
	bool uiCreated;
	int clothIndex; // the cloth the panel edits
	char glfwError[256];
	bool validation;
} App;

static App* g_errorApp; // GLFW's error callback takes no user pointer; set once in main

static void OnGlfwError(int code, const char* description)
{
	if (g_errorApp != NULL)
		snprintf(g_errorApp->glfwError, sizeof g_errorApp->glfwError, "%s (GLFW error 0x%x)", description, code);
}

static App* AppOf(GLFWwindow* window) { return (App*)glfwGetWindowUserPointer(window); }

static void PrintNoWindowHelp(void)
{
	fprintf(stderr,
		"weft-view: without a window, render to files instead: `weft run --preset NAME --png DIR` "
		"or `weft run --preset NAME --video FILE.mp4`\n");
}

// The window's input goes to the panel first; what it does not want goes to the viewer. A scripted
// run takes no input from the (virtual) display.
static void OnKey(GLFWwindow* w, int key, int scancode, int action, int mods)
{
	App* app = AppOf(w);
	if (app->script != NULL)
		return;
	UiKeyCallback(w, key, scancode, action, mods);
	ViewSetMods(&app->view, (mods & GLFW_MOD_SHIFT) != 0, (mods & GLFW_MOD_ALT) != 0);
	if (action == GLFW_PRESS && !UiWantsKeyboard())
		ViewOnKey(&app->view, key);
}

static void OnChar(GLFWwindow* w, unsigned int c)
{
	if (AppOf(w)->script == NULL)
		UiCharCallback(w, c);
}

static void OnMouseButton(GLFWwindow* w, int button, int action, int mods)
{
	App* app = AppOf(w);
	if (app->script != NULL)
		return;
	UiMouseButtonCallback(w, button, action, mods);
	double x, y;
	glfwGetCursorPos(w, &x, &y);
	ViewOnCursor(&app->view, x, y);
	ViewSetMods(&app->view, (mods & GLFW_MOD_SHIFT) != 0, (mods & GLFW_MOD_ALT) != 0);
	bool overPanel = UiWantsMouse() || UiPanelContains(x, y);
	ViewOnMouseButton(&app->view, button, action == GLFW_PRESS, overPanel);
}

static void OnCursor(GLFWwindow* w, double x, double y)
{
	App* app = AppOf(w);
	if (app->script == NULL)
		ViewOnCursor(&app->view, x, y);
}

static void OnScroll(GLFWwindow* w, double dx, double dy)
{
	App* app = AppOf(w);
	if (app->script != NULL)
		return;
	UiScrollCallback(w, dx, dy);
	if (!UiWantsMouse())
		ViewOnScroll(&app->view, dy);
}

// Minimised: iconified (X11 keeps the framebuffer's size then) or a framebuffer of no size (Windows,
// some Wayland compositors). Both callbacks below come here, from GLFW or from the script's
// minimise/restore (ScriptIconify).
static void UpdateMinimised(App* app) { app->view.minimised = app->iconified || app->fbWidth <= 0 || app->fbHeight <= 0; }

static void OnIconify(GLFWwindow* w, int iconified)
{
	App* app = AppOf(w);
	app->iconified = iconified == GLFW_TRUE;
	UpdateMinimised(app);
}

static void OnFramebufferSize(GLFWwindow* w, int width, int height)
{
	App* app = AppOf(w);
	app->fbWidth = width;
	app->fbHeight = height;
	PresenterResized(app->presenter);
	UpdateMinimised(app);
}

// A script's minimise or restore. GLFW's request first; a window manager answers it with the iconify
// callback. Under Xvfb there is none and the request does nothing, so the viewer is then told what a
// desktop would tell it, through the same callbacks: iconified with a 0x0 framebuffer, or restored
// with the window's framebuffer size.
static void ScriptIconify(App* app, bool iconify)
{
	if (iconify)
		glfwIconifyWindow(app->window);
	else
		glfwRestoreWindow(app->window);
	double until = Now() + 0.25;
	while (app->iconified != iconify && Now() < until)
		glfwWaitEventsTimeout(0.02);
	bool real = app->iconified == iconify;
	if (!real) {
		int width = 0, height = 0;
		if (!iconify)
			glfwGetFramebufferSize(app->window, &width, &height);
		OnIconify(app->window, iconify ? GLFW_TRUE : GLFW_FALSE);
		OnFramebufferSize(app->window, width, height);
	}
	ScriptLog(app->script, "%s by %s: minimised=%d\n", iconify ? "minimise" : "restore",
		real ? "the window manager" : "the callbacks (no window manager)", app->view.minimised ? 1 : 0);
}

// The renderer draws at the swapchain's size: created for the first frame, resized after that.
static bool EnsureRenderer(App* app, int width, int height)
{
	if (app->renderer != NULL && app->renderWidth == width && app->renderHeight == height)
		return true;
	size_t bytes = (size_t)width * (size_t)height * 4;
	uint8_t* shot = realloc(app->shot, bytes);
	if (shot != NULL)
		app->shot = shot;
	if (shot == NULL) {
		fprintf(stderr, "weft-view: out of memory for a %dx%d frame\n", width, height);
		return false;
	}
	if (app->renderer != NULL) {
		if (wfRenderer_Resize(app->renderer, width, height) != WF_OK) {
			fprintf(stderr, "weft-view: cannot resize the renderer to %dx%d: %s\n", width, height, wfRenderer_GetLastError(app->renderer));
			return false;
		}
	} else {
		wfRendererDef rd = wfDefaultRendererDef();
		rd.width = width;
		rd.height = height;
		// On the window's device: the frame is copied into the swapchain image on the GPU, and the
		// cloths of a world on that device are drawn from the solver's buffers.
		rd.vulkanDevice = &app->device;
		rd.hostImage = false;
		rd.bgra = app->presenterInfo.bgra;
		rd.validation = app->validation;
		rd.showGround = app->view.showGround;
		rd.groundHeight = app->view.groundHeight;
		char error[512];
		app->renderer = wfCreateRenderer(&rd, error, (int)sizeof error);
		if (app->renderer == NULL) {
			fprintf(stderr, "weft-view: cannot create the renderer: %s\n", error);
			return false;
		}
	}
	app->renderWidth = width;
	app->renderHeight = height;
	return true;
}

static void Readouts(App* app, UiReadouts* r)
{
	View* v = &app->view;
	memset(r, 0, sizeof *r);
	r->source = v->source;
	r->simDevice = wfWorld_GetDeviceName(v->world);
	r->backend = wfBackendName(wfWorld_GetBackend(v->world));
	r->renderDevice = wfRenderer_GetDeviceName(app->renderer);
	r->windowDevice = app->presenterInfo.deviceName;
	r->frameMs = v->frameMs;
	r->simMs = v->simMs;
	r->renderMs = v->renderMs;
	r->stepsPerFrame = v->stepsLastFrame;
	wfStepProfile profile = wfWorld_GetStepProfile(v->world);
	r->gpuMs = profile.gpuMs;
	r->dispatches = profile.dispatches;
	for (int k = 0; k < WF_STAGE_COUNT; ++k)
		r->stageMs[k] = profile.stageMs[k];
	r->simTime = wfWorld_GetTime(v->world);
	r->paused = v->paused;
	r->status = v->status;
	for (int i = 0; i < v->clothCount; ++i) {
		wfClothInfo info;
		if (wfCloth_GetInfo(v->cloths[i], &info) == WF_OK) {
			r->particles += info.particleCount;
			r->constraints += info.constraintCount;
			r->colors = info.colorCount > r->colors ? info.colorCount : r->colors;
			r->triangles += info.triangleCount;
		}
	}
}

static void Smooth(double* value, double sample) { *value = *value == 0.0 ? sample : 0.9 * *value + 0.1 * sample; }

// Fixed-step simulation: real time accumulates; each whole timeStep of it is one simulation frame,
// at most VIEW_MAX_CATCHUP per displayed frame (beyond that the cloth slows down instead of the
// viewer falling further and further behind). A scripted run steps exactly one frame per display frame
// unless its script says "clock real".
//
// Minimised, the simulation does not step either (Frame returns before this): nobody sees it, and a
// cloth simulation left running in an unseen window spends the CPU or GPU for nothing. Time is not
// frozen, though: the minimised span reaches here, on the first frame after restore, as one long
// real-time interval, like any other stall, so on restore the cloth moves on by at most
// VIEW_MAX_CATCHUP frames and never replays the whole span in a catch-up burst. A pause the user set
// stays as it was. In a scripted run with clock frames, minimised turns simply step nothing.
static void Simulate(App* app, double realSeconds)
{
	View* v = &app->view;
	if (!v->realtime) {
		ViewStepFrames(v, 1);
		return;
	}
	if (v->paused) {
		v->accumulator = 0.0;
		ViewStepFrames(v, 0);
		return;
	}
	double step = v->applied.step.timeStep;
	v->accumulator += fmin(realSeconds, 0.25); // a longer stall (or a minimised span) is cut here
	int frames = (int)floor(v->accumulator / step);
	if (frames > VIEW_MAX_CATCHUP) {
		frames = VIEW_MAX_CATCHUP;
		v->accumulator = 0.0;
	} else
		v->accumulator -= frames * step;
	ViewStepFrames(v, frames);
}

static bool WriteScreenshot(App* app, const char* name)
{
	char path[1200], error[512];
	snprintf(path, sizeof path, "%s/%s.png", app->view.options.shotDir, name);
	if (wfWritePng(path, app->shot, app->renderWidth, app->renderHeight, error, (int)sizeof error) != WF_OK) {
		fprintf(stderr, "weft-view: screenshot: %s\n", error);
		return false;
	}
	if (app->script != NULL)
		ScriptLog(app->script, "screenshot %s %s\n", name, path);
	return true;
}

static void HandleActions(App* app, int actions)
{
	View* v = &app->view;
	if (actions & UI_ACTION_PAUSE)
		ViewOnKey(v, GLFW_KEY_SPACE);
	if (actions & UI_ACTION_RESET_CLOTH)
		ViewResetCloth(v);
	if (actions & UI_ACTION_RESET_VIEW)
		ViewOnKey(v, GLFW_KEY_C);
	if (actions & UI_ACTION_RESET_PARAMS)
		ViewResetParams(v);
}

// The presenter's counts, where the script's probes read them.
static void CopyPresenterStats(App* app)
{
	PresenterStats stats = PresenterGetStats(app->presenter);
	app->view.presentedFrames = stats.presents;
	app->view.swapchains = stats.swapchains;
	app->view.swapMinWidth = (int)stats.minWidth;
	app->view.swapMinHeight = (int)stats.minHeight;
}

// One turn of the main loop: one displayed frame, or none while minimised. Returns 0 to go on, 1 to
// stop normally, an exit code > 1 on failure.
static int Frame(App* app, int64_t frame, char* pendingShot, size_t pendingSize)
{
	View* v = &app->view;
	double t0 = Now();
	if (app->script != NULL) {
		ScriptOut out;
		if (!ScriptRun(app->script, v, frame, &out))
			return 3;
		if (out.screenshot[0] != 0)
			snprintf(pendingShot, pendingSize, "%s", out.screenshot);
		if (out.resizeWidth > 0)
			glfwSetWindowSize(app->window, out.resizeWidth, out.resizeHeight);
		if (out.iconify != 0)
			ScriptIconify(app, out.iconify > 0);
		if (out.quit || (ScriptDone(app->script) && pendingShot[0] == 0))
			v->quit = true;
	}
	if (v->minimised) {
		// Nothing to see: no step, no render, no swapchain work (a 0x0 one would be invalid). Sleep in
		// the event queue instead of spinning; the restore event wakes it. clockedUntil stays where it was,
		// so the first frame after restore sees the whole span (Simulate cuts it to the cap).
		v->hiddenFrames++;
		glfwWaitEventsTimeout(VIEW_HIDDEN_WAIT);
		return v->quit ? 1 : 0;
	}
	Simulate(app, t0 - v->clockedUntil);
	v->clockedUntil = t0;

	int width = 0, height = 0;
	PresentStatus status = PresenterBegin(app->presenter, &width, &height);
	CopyPresenterStats(app);
	if (status == PRESENT_ERROR) {
		fprintf(stderr, "weft-view: %s\n", PresenterError(app->presenter));
		return 4;
	}
	if (status == PRESENT_SKIP) {
		glfwWaitEventsTimeout(VIEW_HIDDEN_WAIT); // the surface has no size yet, or was out of date
		return v->quit ? 1 : 0;
	}
	int winW = 0, winH = 0;
	glfwGetWindowSize(app->window, &winW, &winH);
	v->width = width;
	v->height = height;
	v->scale = winW > 0 ? (float)width / (float)winW : 1.0f;
	UiSetMinImageCount(PresenterGetInfo(app->presenter).minImageCount);
	if (!EnsureRenderer(app, width, height))
		return 4;

	// The scene, through the same renderer as the headless path.
	double r0 = Now();
	wfRenderer_SetStyle(app->renderer, v->applied.colorMode, v->applied.wireframe, true);
	wfRenderer_SetView(app->renderer, v->applied.view); // always one of the three: the key and the panel cycle them
	wfVulkanImage scene;
	if (wfRenderer_DrawWorld(app->renderer, v->world, v->cloths, v->clothCount, &v->camera) != WF_OK ||
		wfRenderer_GetVulkanImage(app->renderer, &scene) != WF_OK) {
		fprintf(stderr, "weft-view: render: %s\n", wfRenderer_GetLastError(app->renderer));
		return 4;
	}
	v->renderedFrames++;
	v->zeroCopyCloths = wfRenderer_GetZeroCopyCloths(app->renderer);
	v->uploadBytes = wfRenderer_GetUploadBytes(app->renderer);
	Smooth(&v->renderMs, 1e3 * (Now() - r0));

	// The panel: edits go to the world before the next frame's step.
	UiReadouts readouts;
	Readouts(app, &readouts);
	double mx = 0.0, my = 0.0;
	bool down = false;
	if (app->script != NULL)
		ScriptMouse(app->script, &mx, &my, &down);
	int actions = UiFrame(&v->edit, &app->clothIndex, &readouts, app->script != NULL, mx, my, down);
	ViewApplyParams(v);
	HandleActions(app, actions);
	if (v->displayFrames == 0) {
		double panel[4];
		UiPanelRect(panel);
		if (panel[0] + panel[2] < 0.6 * width / v->scale)
			ViewMakeRoom(v, panel[0] + panel[2]);
	}

	bool shoot = pendingShot[0] != 0;
	status = PresenterEnd(app->presenter, NULL, &scene, UiDraw, NULL, shoot ? app->shot : NULL);
	CopyPresenterStats(app);
	if (status == PRESENT_ERROR) {
		fprintf(stderr, "weft-view: %s\n", PresenterError(app->presenter));
		return 4;
	}
	if (UiVulkanError() != VK_SUCCESS) {
		fprintf(stderr, "weft-view: the panel's Vulkan backend failed (VkResult %d)\n", (int)UiVulkanError());
		return 4;
	}
	if (shoot) {
		if (!WriteScreenshot(app, pendingShot))
			return 4;
		pendingShot[0] = 0;
		if (app->script != NULL && ScriptDone(app->script))
			v->quit = true;
	}
	v->displayFrames++;
	Smooth(&v->frameMs, 1e3 * (Now() - t0));
	return v->quit ? 1 : 0;
}

static int Setup(App* app)
{
	View* v = &app->view;
	if (!glfwInit()) {
		fprintf(stderr, "weft-view: no display: %s\n", app->glfwError[0] ? app->glfwError : "glfwInit failed");
		PrintNoWindowHelp();
		return 1;
	}
	if (!glfwVulkanSupported()) {
		fprintf(stderr, "weft-view: no Vulkan loader with window-surface support was found\n");
		PrintNoWindowHelp();
		return 1;
	}
	glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
	char title[400];
	snprintf(title, sizeof title, "weft-view: %s", v->source);
	app->window = glfwCreateWindow(v->options.width, v->options.height, title, NULL, NULL);
	if (app->window == NULL) {
		fprintf(stderr, "weft-view: cannot open a window: %s\n", app->glfwError);
		PrintNoWindowHelp();
		return 1;
	}
	glfwSetWindowUserPointer(app->window, app);
	char error[512];
	app->presenter = PresenterCreate(app->window, wfEnvDeviceName(), app->validation, app->script != NULL, error, (int)sizeof error);
	if (app->presenter == NULL) {
		fprintf(stderr, "weft-view: cannot present to the window with Vulkan: %s\n", error);
		PrintNoWindowHelp();
		return 1;
	}
	app->presenterInfo = PresenterGetInfo(app->presenter);
	if (!UiCreate(app->window, &app->presenterInfo, error, (int)sizeof error)) {
		fprintf(stderr, "weft-view: %s\n", error);
		return 4;
	}
	app->uiCreated = true;
	if (!PresenterRunOnce(app->presenter, UiRecordFontUpload, NULL)) {
		fprintf(stderr, "weft-view: font upload: %s\n", PresenterError(app->presenter));
		return 4;
	}
	UiFontUploadDone();
	glfwSetKeyCallback(app->window, OnKey);
	glfwSetCharCallback(app->window, OnChar);
	glfwSetMouseButtonCallback(app->window, OnMouseButton);
	glfwSetCursorPosCallback(app->window, OnCursor);
	glfwSetScrollCallback(app->window, OnScroll);
	glfwSetFramebufferSizeCallback(app->window, OnFramebufferSize);
	glfwSetWindowIconifyCallback(app->window, OnIconify);
	glfwSetWindowFocusCallback(app->window, UiFocusCallback);
	glfwSetCursorEnterCallback(app->window, UiCursorEnterCallback);
	// A window can start minimised (some window managers open it iconic).
	app->iconified = glfwGetWindowAttrib(app->window, GLFW_ICONIFIED) == GLFW_TRUE;
	glfwGetFramebufferSize(app->window, &app->fbWidth, &app->fbHeight);
	UpdateMinimised(app);
	CopyPresenterStats(app);
	return 0;
}

// The renderer and the world live on the window's device: they go before it.
static void Teardown(App* app)
{
	PresenterWaitIdle(app->presenter);
	wfDestroyRenderer(app->renderer);
	ViewDestroy(&app->view);
	if (app->uiCreated)
		UiDestroy();
	PresenterDestroy(app->presenter);
	free(app->shot);
	if (app->window != NULL)
		glfwDestroyWindow(app->window);
	glfwTerminate();
	ScriptDestroy(app->script);
}

// The world on the window's device and queue when the simulation is to run on Vulkan (asked for, or
// auto with a hardware device) and the queue has compute: the world, the renderer and the window then
// share one device, and a frame never leaves the GPU. Otherwise the world runs on the CPU (or on a
// device of its own) and the renderer still draws on the window's device.
static int CreateWorld(App* app)
{
	wfBackendType backend = app->view.worldDef.backend;
	bool share = app->presenterInfo.compute &&
		(backend == WF_BACKEND_VULKAN || (backend == WF_BACKEND_AUTO && !app->presenterInfo.software));
	PresenterGetVulkanDevice(app->presenter, &app->device);
	return ViewCreateWorld(&app->view, share ? &app->device : NULL);
}

int main(int argc, char** argv)
{
	ViewOptions options;
	int code = ParseArgs(argc, argv, &options);
	if (code != 0)
		return code < 0 ? 0 : code;
	static App app; // large; lives for the whole run
	g_errorApp = &app;
	glfwSetErrorCallback(OnGlfwError);
	const char* validation = getenv("WEFT_VK_VALIDATION");
	app.validation = validation != NULL && strcmp(validation, "1") == 0;

	code = ViewLoad(&app.view, &options);
	app.view.realtime = options.script == NULL;
	if (code == 0 && options.script != NULL) {
		if (mkdir(options.shotDir, 0777) != 0 && errno != EEXIST) {
			fprintf(stderr, "weft-view: --screenshot-dir: cannot create '%s': %s\n", options.shotDir, strerror(errno));
			code = 2;
		}
		char logPath[1200], error[600];
		snprintf(logPath, sizeof logPath, "%s/session.log", options.shotDir);
		if (code == 0 && (app.script = ScriptLoad(options.script, logPath, error, (int)sizeof error)) == NULL) {
			fprintf(stderr, "weft-view: --script: %s\n", error);
			code = 2;
		}
	}
	if (code == 0)
		code = Setup(&app);
	if (code == 0)
		code = CreateWorld(&app);
	if (code == 0) {
		char pendingShot[128] = "";
		app.view.clockedUntil = Now();
		for (int64_t frame = 0; code == 0; ++frame) {
			glfwPollEvents();
			if (glfwWindowShouldClose(app.window))
				break;
			code = Frame(&app, frame, pendingShot, sizeof pendingShot);
		}
		code = code == 1 ? 0 : code;
		int renderMessages = app.renderer != NULL ? wfRenderer_GetValidationCount(app.renderer) : 0;
		int windowMessages = PresenterValidationCount(app.presenter);
		wfWarnings warnings = wfWorld_GetWarnings(app.view.world);
		if (renderMessages + windowMessages + warnings.validationMessages > 0) {
			fprintf(stderr, "weft-view: validation: %d renderer, %d window, %lld simulation messages\n", renderMessages, windowMessages,
				(long long)warnings.validationMessages);
			if (code == 0)
				code = 5;
		}
		if (app.script != NULL) {
			// The device each part chose (the tests set WEFT_VK_DEVICE in mixed case).
			ScriptLog(app.script, "devices window=%s; renderer=%s; simulation=%s\n", app.presenterInfo.deviceName,
				app.renderer != NULL ? wfRenderer_GetDeviceName(app.renderer) : "", wfWorld_GetDeviceName(app.view.world));
			PresenterStats stats = PresenterGetStats(app.presenter);
			ScriptLog(app.script,
				"end frames=%lld steps=%lld code=%d hidden=%lld rendered=%lld presented=%lld "
				"swapchains=%d swapmin=%u,%u nosize=%d\n",
				(long long)app.view.displayFrames, (long long)app.view.simFrames, code, (long long)app.view.hiddenFrames,
				(long long)app.view.renderedFrames, (long long)stats.presents, stats.swapchains, stats.minWidth, stats.minHeight,
				stats.noSize);
		}
	}
	Teardown(&app);
	return code;
}
