// The viewer's model of the session: the world built from a preset or scene file, the panel's
// parameters and how they reach the world, fixed-step simulation, the orbit camera and the input
// handlers. The window's callbacks and the script (script.c) both call these handlers.
#include "viewer.h"
#include "weft_env.h"
#include "weft_fields.h"

#include <GLFW/glfw3.h>

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define VIEW_PI 3.14159265358979f

static double Now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static wfVec3 Add(wfVec3 a, wfVec3 b) { return (wfVec3){a.x + b.x, a.y + b.y, a.z + b.z}; }
static wfVec3 Sub(wfVec3 a, wfVec3 b) { return (wfVec3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static wfVec3 Scale(wfVec3 a, float s) { return (wfVec3){a.x * s, a.y * s, a.z * s}; }
static float Dot(wfVec3 a, wfVec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static wfVec3 Cross(wfVec3 a, wfVec3 b) { return (wfVec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
static wfVec3 Normalize(wfVec3 a)
{
	float l = sqrtf(Dot(a, a));
	return l > 0.0f ? Scale(a, 1.0f / l) : a;
}

// ------------------------------------------------------------------ setup

static int LoadDefs(View* v, wfWorldDef* world)
{
	const ViewOptions* o = &v->options;
	if (o->scene != NULL) {
		char error[512];
		v->scene = wfScene_Load(o->scene, error, (int)sizeof error);
		if (v->scene == NULL) {
			fprintf(stderr, "weft-view: %s\n", error);
			return 2;
		}
		*world = wfScene_GetWorldDef(v->scene);
		v->clothCount = wfScene_GetClothCount(v->scene);
		if (v->clothCount > VIEW_MAX_CLOTHS) {
			fprintf(stderr, "weft-view: %s has %d cloths; the viewer shows at most %d\n", o->scene, v->clothCount, VIEW_MAX_CLOTHS);
			return 2;
		}
		for (int i = 0; i < v->clothCount; ++i)
			v->clothDefs[i] = wfScene_GetClothDef(v->scene, i);
		snprintf(v->source, sizeof v->source, "scene %s", o->scene);
		return 0;
	}
	if (!wfPresetGet(o->preset, world, &v->clothDefs[0])) {
		fprintf(stderr, "weft-view: --preset: '%s' is not a preset (allowed:", o->preset);
		for (int i = 0; i < wfPresetCount(); ++i)
			fprintf(stderr, " %s", wfPresetName(i));
		fprintf(stderr, ")\n");
		return 2;
	}
	v->clothCount = 1;
	snprintf(v->source, sizeof v->source, "preset %s", o->preset);
	return 0;
}

static void ParamsFromWorld(View* v, ViewParams* p)
{
	wfWorldDef wd = wfWorld_GetDef(v->world);
	memset(p, 0, sizeof *p);
	p->step = wd.step;
	p->gravity = wd.gravity;
	p->sphere = wd.sphere;
	p->floor = wd.floor;
	p->wind = wd.wind;
	p->selfCollision = wd.selfCollision;
	p->clothCount = v->clothCount;
	for (int i = 0; i < v->clothCount; ++i) {
		p->cloth[i].material = wfCloth_GetMaterial(v->cloths[i]);
		p->cloth[i].pinMode = v->clothDefs[i].pinMode;
		p->cloth[i].cols = v->clothDefs[i].cols;
		p->cloth[i].rows = v->clothDefs[i].rows;
	}
	p->colorMode = WF_COLOR_TEXTURE;
	p->view = WF_VIEW_CLOTH;
	p->wireframe = false;
}

int ViewLoad(View* v, const ViewOptions* options)
{
	memset(v, 0, sizeof *v);
	v->options = *options;
	v->grabCloth = -1;
	v->grabParticle = -1;
	v->scale = 1.0f;
	int code = LoadDefs(v, &v->worldDef);
	if (code != 0)
		return code;
	if (options->backend >= 0)
		v->worldDef.backend = (wfBackendType)options->backend;
	for (int i = 0; i < v->clothCount && options->cols > 0; ++i) {
		v->clothDefs[i].cols = options->cols;
		v->clothDefs[i].rows = options->rows;
	}
	return 0;
}

int ViewCreateWorld(View* v, const wfVulkanDevice* device)
{
	const ViewOptions* options = &v->options;
	wfWorldDef wd = v->worldDef;
	wfEnvApplyToWorldDef(&wd); // WEFT_VK_DEVICE, WEFT_VK_VALIDATION, WEFT_NO_SIMD, ...
	if (device != NULL) {
		wd.vulkanDevice = device;
		wd.deviceName = NULL;
	}
	char error[512];
	v->world = wfCreateWorld(&wd, error, (int)sizeof error);
	if (v->world == NULL) {
		fprintf(stderr, "weft-view: cannot create the world: %s\n", error);
		return 4;
	}
	// The panel shows the time of each stage (a few timestamps a frame on the GPU).
	wfWorld_SetStageTiming(v->world, true);
	for (int i = 0; v->scene != NULL && i < wfScene_GetColliderCount(v->scene); ++i) {
		wfColliderDef k = wfScene_GetColliderDef(v->scene, i);
		if (wfColliderId_IsNull(wfCreateCollider(v->world, &k))) {
			fprintf(stderr, "weft-view: cannot create collider %d: %s\n", i, wfWorld_GetLastError(v->world));
			return 4;
		}
	}
	for (int i = 0; i < v->clothCount; ++i) {
		v->cloths[i] = wfCreateCloth(v->world, &v->clothDefs[i]);
		if (wfClothId_IsNull(v->cloths[i])) {
			fprintf(stderr, "weft-view: cannot create cloth %d: %s\n", i, wfWorld_GetLastError(v->world));
			return 4;
		}
	}
	ParamsFromWorld(v, &v->start);
	v->edit = v->start;
	v->applied = v->start;
	v->home = options->scene != NULL ? wfCameraFit(v->world, v->cloths, v->clothCount, 50.0f) : wfDefaultCameraForPreset(options->preset);
	v->showGround = options->scene == NULL && wfDefaultGroundForPreset(options->preset, &v->groundHeight);
	v->camera = v->home;
	return 0;
}

void ViewDestroy(View* v)
{
	wfDestroyWorld(v->world);
	wfDestroyScene(v->scene);
	v->world = NULL;
	v->scene = NULL;
}

// ------------------------------------------------------------------ parameters

static void SetStatus(View* v, const char* what)
{
	snprintf(v->status, sizeof v->status, "%s: %s", what, wfWorld_GetLastError(v->world));
	fprintf(stderr, "weft-view: %s\n", v->status);
}

static void ReleaseGrab(View* v)
{
	if (v->grabCloth >= 0)
		wfCloth_Release(v->cloths[v->grabCloth]);
	v->grabCloth = -1;
	v->grabParticle = -1;
	if (v->gesture == VIEW_GESTURE_DRAG)
		v->gesture = VIEW_GESTURE_NONE;
}

// A new grid: destroy the cloth and create it again from its def with the new density.
static bool RebuildCloth(View* v, int i, const ViewClothParams* c)
{
	ReleaseGrab(v);
	wfClothDef def = v->clothDefs[i];
	def.cols = c->cols;
	def.rows = c->rows;
	def.material = c->material;
	def.pinMode = c->pinMode;
	wfDestroyCloth(v->cloths[i]);
	wfClothId id = wfCreateCloth(v->world, &def);
	if (wfClothId_IsNull(id)) {
		SetStatus(v, "grid");
		// Back to the grid it had (that def was valid).
		def.cols = v->applied.cloth[i].cols;
		def.rows = v->applied.cloth[i].rows;
		id = wfCreateCloth(v->world, &def);
		if (wfClothId_IsNull(id))
			return false;
		v->cloths[i] = id;
		return false;
	}
	v->cloths[i] = id;
	v->clothDefs[i] = def;
	return true;
}

void ViewApplyParams(View* v)
{
	ViewParams* e = &v->edit;
	ViewParams* a = &v->applied;
	// A changed group goes to the world; a refused one is shown and rolled back in the panel.
#define APPLY_GROUP(field, call) \
	do { \
		if (memcmp(&e->field, &a->field, sizeof e->field) != 0) { \
			if ((call) == WF_OK) { \
				a->field = e->field; \
			} else { \
				SetStatus(v, #field); \
				e->field = a->field; \
			} \
		} \
	} while (0)
	const wfStepDef before = a->step;
	APPLY_GROUP(step, wfWorld_SetStep(v->world, &e->step));
	if (memcmp(&before, &a->step, sizeof before) != 0)
		v->accumulator = 0.0;
	APPLY_GROUP(gravity, wfWorld_SetGravity(v->world, e->gravity));
	APPLY_GROUP(sphere, wfWorld_SetSphere(v->world, &e->sphere));
	APPLY_GROUP(floor, wfWorld_SetFloor(v->world, &e->floor));
	APPLY_GROUP(wind, wfWorld_SetWind(v->world, &e->wind));
	APPLY_GROUP(selfCollision, wfWorld_SetSelfCollision(v->world, &e->selfCollision));
#undef APPLY_GROUP
	for (int i = 0; i < v->clothCount; ++i) {
		ViewClothParams* ec = &e->cloth[i];
		ViewClothParams* ac = &a->cloth[i];
		if (ec->cols != ac->cols || ec->rows != ac->rows) {
			if (RebuildCloth(v, i, ec))
				*ac = *ec;
			else
				*ec = *ac;
			continue;
		}
		if (memcmp(&ec->material, &ac->material, sizeof ec->material) != 0) {
			if (wfCloth_SetMaterial(v->cloths[i], &ec->material) == WF_OK)
				ac->material = ec->material;
			else {
				SetStatus(v, "material");
				ec->material = ac->material;
			}
		}
		if (ec->pinMode != ac->pinMode) {
			const wfClothDef* d = &v->clothDefs[i];
			bool list = ec->pinMode == WF_PIN_LIST;
			if (wfCloth_SetPinMode(v->cloths[i], ec->pinMode, list ? d->pinIndices : NULL, list ? d->pinCount : 0) == WF_OK)
				ac->pinMode = ec->pinMode;
			else {
				SetStatus(v, "pin mode");
				ec->pinMode = ac->pinMode;
			}
		}
	}
	a->colorMode = e->colorMode;
	a->view = e->view;
	a->wireframe = e->wireframe;
}

void ViewResetParams(View* v)
{
	v->edit = v->start;
	v->status[0] = 0;
	ViewApplyParams(v);
}

void ViewResetCloth(View* v)
{
	ReleaseGrab(v);
	for (int i = 0; i < v->clothCount; ++i)
		wfCloth_Reset(v->cloths[i]);
}

void ViewStepFrames(View* v, int frames)
{
	// A paused frame records no simulation work at all.
	if (v->paused || frames <= 0) {
		v->stepsLastFrame = 0;
		return;
	}
	double t0 = Now();
	for (int i = 0; i < frames; ++i) {
		wfResult r = wfWorld_Step(v->world);
		if (r != WF_OK) {
			SetStatus(v, "step");
			v->paused = true;
			break;
		}
		v->simFrames++;
	}
	double ms = 1e3 * (Now() - t0) / frames;
	v->simMs = v->simMs == 0.0 ? ms : 0.9 * v->simMs + 0.1 * ms;
	v->stepsLastFrame = frames;
}

// A cloth's positions (malloc'ed, *count of them), or NULL.
static wfVec3* ReadCloth(const View* v, int cloth, int* count)
{
	wfClothInfo info;
	if (wfCloth_GetInfo(v->cloths[cloth], &info) != WF_OK)
		return NULL;
	wfVec3* pos = malloc(sizeof *pos * (size_t)info.particleCount);
	if (pos == NULL || wfCloth_ReadPositions(v->cloths[cloth], pos, info.particleCount) != WF_OK) {
		free(pos);
		return NULL;
	}
	*count = info.particleCount;
	return pos;
}

void ViewMeanY(const View* v, double* meanY, uint64_t* hash)
{
	double sum = 0.0;
	int64_t n = 0;
	uint64_t h = 1469598103934665603ull; // FNV-1a over the position bytes
	for (int c = 0; c < v->clothCount; ++c) {
		int count = 0;
		wfVec3* pos = ReadCloth(v, c, &count);
		if (pos == NULL)
			continue;
		const unsigned char* bytes = (const unsigned char*)pos;
		for (size_t b = 0; b < sizeof *pos * (size_t)count; ++b)
			h = (h ^ bytes[b]) * 1099511628211ull;
		for (int i = 0; i < count; ++i)
			sum += pos[i].y;
		n += count;
		free(pos);
	}
	*meanY = n > 0 ? sum / (double)n : 0.0;
	*hash = h;
}

// ------------------------------------------------------------------ camera and picking

// The camera's basis: f forward, s right, u up (as the renderer builds its view matrix).
static void CameraBasis(const wfCamera* c, wfVec3* f, wfVec3* s, wfVec3* u)
{
	wfVec3 eye = wfCamera_GetEye(c);
	*f = Normalize(Sub(c->target, eye));
	wfVec3 up = fabsf(f->y) > 0.999f ? (wfVec3){0.0f, 0.0f, -1.0f} : (wfVec3){0.0f, 1.0f, 0.0f};
	*s = Normalize(Cross(*f, up));
	*u = Cross(*s, *f);
}

// The ray from the eye through window point (x, y).
static wfVec3 CursorRay(const View* v, double x, double y)
{
	wfVec3 f, s, u;
	CameraBasis(&v->camera, &f, &s, &u);
	float w = (float)(v->width > 0 ? v->width : 1), h = (float)(v->height > 0 ? v->height : 1);
	float px = (float)x * v->scale, py = (float)y * v->scale;
	float t = tanf(v->camera.fov * (VIEW_PI / 360.0f));
	float nx = (2.0f * px / w - 1.0f) * t * (w / h);
	float ny = (1.0f - 2.0f * py / h) * t;
	return Normalize(Add(f, Add(Scale(s, nx), Scale(u, ny))));
}

// The nearest particle to the cursor's ray within VIEW_PICK_RADIUS pixels; nearer the eye wins
// among those within half a pixel of the best. Reads each cloth's positions once.
static bool Pick(View* v, double x, double y, int* cloth, int* particle, wfVec3* position)
{
	wfVec3 eye = wfCamera_GetEye(&v->camera);
	wfVec3 dir = CursorRay(v, x, y);
	float pixelAngle = 2.0f * tanf(v->camera.fov * (VIEW_PI / 360.0f)) / (float)(v->height > 0 ? v->height : 1);
	float best = VIEW_PICK_RADIUS, bestDepth = 0.0f;
	bool found = false;
	for (int c = 0; c < v->clothCount; ++c) {
		int count = 0;
		wfVec3* pos = ReadCloth(v, c, &count);
		if (pos == NULL)
			continue;
		for (int i = 0; i < count; ++i) {
			wfVec3 d = Sub(pos[i], eye);
			float depth = Dot(d, dir);
			if (depth <= 0.0f)
				continue;
			wfVec3 perp = Sub(d, Scale(dir, depth));
			float pixels = sqrtf(Dot(perp, perp)) / (depth * pixelAngle) / v->scale; // window units
			if (pixels > VIEW_PICK_RADIUS)
				continue;
			bool better = !found || pixels < best - 0.5f || (pixels < best + 0.5f && depth < bestDepth);
			if (better) {
				found = true;
				best = pixels;
				bestDepth = depth;
				*cloth = c;
				*particle = i;
				*position = pos[i];
			}
		}
		free(pos);
	}
	return found;
}

bool ViewProject(const View* v, wfVec3 p, double* x, double* y)
{
	wfVec3 f, s, u;
	CameraBasis(&v->camera, &f, &s, &u);
	wfVec3 d = Sub(p, wfCamera_GetEye(&v->camera));
	float depth = Dot(d, f);
	if (depth <= 0.0f || v->width <= 0 || v->height <= 0)
		return false;
	float t = tanf(v->camera.fov * (VIEW_PI / 360.0f));
	float aspect = (float)v->width / (float)v->height;
	float nx = Dot(d, s) / (depth * t * aspect), ny = Dot(d, u) / (depth * t);
	*x = 0.5 * (nx + 1.0) * v->width / v->scale;
	*y = 0.5 * (1.0 - ny) * v->height / v->scale;
	return true;
}

void ViewMakeRoom(View* v, double left)
{
	// Step back so that what the full width showed fits the free width, then move the target by half
	// the covered width, so the scene centres in the free area.
	float width = (float)v->width / v->scale;
	if (left <= 0.0 || left >= 0.9 * width)
		return;
	v->home.distance *= width / (width - (float)left);
	wfVec3 f, s, u;
	CameraBasis(&v->home, &f, &s, &u);
	float perPixel = 2.0f * v->home.distance * tanf(v->home.fov * (VIEW_PI / 360.0f)) / ((float)v->height / v->scale);
	v->home.target = Add(v->home.target, Scale(s, -0.5f * (float)left * perPixel));
	v->camera = v->home;
}

// Where the cursor's ray meets the grab plane.
static wfVec3 PlanePoint(const View* v, double x, double y)
{
	wfVec3 eye = wfCamera_GetEye(&v->camera);
	wfVec3 dir = CursorRay(v, x, y);
	float denom = Dot(dir, v->grabNormal);
	float t = fabsf(denom) > 1e-6f ? Dot(Sub(v->grabPoint, eye), v->grabNormal) / denom : 0.0f;
	return Add(eye, Scale(dir, t));
}

// ------------------------------------------------------------------ input

void ViewSetMods(View* v, bool shift, bool alt)
{
	v->shift = shift;
	v->alt = alt;
}

void ViewOnKey(View* v, int key)
{
	switch (key) {
	case GLFW_KEY_SPACE:
		v->paused = !v->paused;
		v->accumulator = 0.0;
		break;
	case GLFW_KEY_S:
		v->edit.sphere.moving = !v->edit.sphere.moving;
		if (wfWorld_SetSphereMoving(v->world, v->edit.sphere.moving) == WF_OK)
			v->applied.sphere.moving = v->edit.sphere.moving;
		else {
			SetStatus(v, "sphere");
			v->edit.sphere.moving = v->applied.sphere.moving;
		}
		break;
	case GLFW_KEY_R: ViewResetCloth(v); break;
	case GLFW_KEY_W:
		v->edit.wireframe = !v->edit.wireframe;
		v->applied.wireframe = v->edit.wireframe;
		break;
	case GLFW_KEY_M:
		v->edit.colorMode = (wfColorMode)((v->edit.colorMode + 1) % 3);
		v->applied.colorMode = v->edit.colorMode;
		break;
	case GLFW_KEY_V:
		v->edit.view = (wfViewMode)((v->edit.view + 1) % 3);
		v->applied.view = v->edit.view;
		break;
	case GLFW_KEY_C: v->camera = v->home; break;
	case GLFW_KEY_ESCAPE: v->quit = true; break;
	default: break;
	}
}

void ViewOnMouseButton(View* v, int button, bool down, bool overPanel)
{
	if (!down) {
		// Only the button that started the gesture ends it.
		if (v->gesture == VIEW_GESTURE_NONE || button != v->gestureButton)
			return;
		if (v->gesture == VIEW_GESTURE_DRAG)
			ReleaseGrab(v);
		v->gesture = VIEW_GESTURE_NONE;
		return;
	}
	if (v->gesture != VIEW_GESTURE_NONE)
		return;
	v->gestureButton = button;
	if (overPanel) {
		v->gesture = VIEW_GESTURE_PANEL;
		return;
	}
	if (button == GLFW_MOUSE_BUTTON_RIGHT || button == GLFW_MOUSE_BUTTON_MIDDLE || v->shift) {
		v->gesture = VIEW_GESTURE_PAN;
		return;
	}
	if (v->alt) {
		v->gesture = VIEW_GESTURE_ZOOM;
		return;
	}
	// A press on a particle grabs it; anywhere else it orbits.
	int cloth, particle;
	wfVec3 p;
	if (Pick(v, v->mouseX, v->mouseY, &cloth, &particle, &p)) {
		wfVec3 f, s, u;
		CameraBasis(&v->camera, &f, &s, &u);
		v->grabNormal = f;
		v->grabPoint = p;
		v->grabOffset = Sub(p, PlanePoint(v, v->mouseX, v->mouseY));
		v->grabTarget = p;
		if (wfCloth_Grab(v->cloths[cloth], particle, p) == WF_OK) {
			v->grabCloth = cloth;
			v->grabParticle = particle;
			v->gesture = VIEW_GESTURE_DRAG;
			return;
		}
		SetStatus(v, "grab");
	}
	v->gesture = VIEW_GESTURE_ORBIT;
}

void ViewOnCursor(View* v, double x, double y)
{
	float dx = (float)(x - v->mouseX), dy = (float)(y - v->mouseY);
	v->mouseX = x;
	v->mouseY = y;
	wfCamera* c = &v->camera;
	switch (v->gesture) {
	case VIEW_GESTURE_ORBIT:
		c->azimuth -= 0.35f * dx;
		c->elevation = fmaxf(-89.0f, fminf(89.0f, c->elevation + 0.35f * dy));
		break;
	case VIEW_GESTURE_PAN: {
		// The target follows the cursor: one window height spans the view's height at the target.
		wfVec3 f, s, u;
		CameraBasis(c, &f, &s, &u);
		float perPixel = 2.0f * c->distance * tanf(c->fov * (VIEW_PI / 360.0f)) / ((float)v->height / v->scale);
		c->target = Add(c->target, Add(Scale(s, -dx * perPixel), Scale(u, dy * perPixel)));
		break;
	}
	case VIEW_GESTURE_ZOOM: c->distance = fmaxf(0.05f, fminf(1e4f, c->distance * expf(0.01f * dy))); break;
	case VIEW_GESTURE_DRAG:
		v->grabTarget = Add(PlanePoint(v, x, y), v->grabOffset);
		if (wfCloth_MoveGrab(v->cloths[v->grabCloth], v->grabTarget) != WF_OK)
			SetStatus(v, "drag");
		break;
	default: break;
	}
}

void ViewOnScroll(View* v, double dy) { v->camera.distance = fmaxf(0.05f, fminf(1e4f, v->camera.distance * expf(-0.12f * (float)dy))); }

// ------------------------------------------------------------------ parameters by def path

// The groups of the defs that the panel edits live (ViewParams mirrors them): a def path under one
// of these is a parameter; its type, range and names are the library's table's.
static const struct {
	wfDefType def;      // WF_DEF_WORLD, or WF_DEF_CLOTH: in ViewClothParams, per cloth
	const char* member; // the def's top-level member
	size_t offset;      // in ViewParams or ViewClothParams
} kGroups[] = {
	{WF_DEF_WORLD, "step", offsetof(ViewParams, step)},
	{WF_DEF_WORLD, "gravity", offsetof(ViewParams, gravity)},
	{WF_DEF_WORLD, "sphere", offsetof(ViewParams, sphere)},
	{WF_DEF_WORLD, "floor", offsetof(ViewParams, floor)},
	{WF_DEF_WORLD, "wind", offsetof(ViewParams, wind)},
	{WF_DEF_WORLD, "selfCollision", offsetof(ViewParams, selfCollision)},
	{WF_DEF_CLOTH, "material", offsetof(ViewClothParams, material)},
	{WF_DEF_CLOTH, "pinMode", offsetof(ViewClothParams, pinMode)},
	{WF_DEF_CLOTH, "cols", offsetof(ViewClothParams, cols)},
	{WF_DEF_CLOTH, "rows", offsetof(ViewClothParams, rows)},
};

void* ViewParamAt(ViewParams* p, int cloth, wfDefType def, const char* path, const wfFieldInfo** field)
{
	size_t offset = 0, groupOffset = 0;
	const wfFieldInfo* f = wfFindDefFieldAt(def, path, &offset);
	const char* dot = strchr(path, '.');
	size_t length = dot != NULL ? (size_t)(dot - path) : strlen(path);
	for (size_t i = 0; f != NULL && i < sizeof kGroups / sizeof kGroups[0]; ++i) {
		if (kGroups[i].def != def || strlen(kGroups[i].member) != length || strncmp(kGroups[i].member, path, length) != 0)
			continue;
		wfFindDefFieldAt(def, kGroups[i].member, &groupOffset);
		char* base = def == WF_DEF_WORLD ? (char*)p : (char*)&p->cloth[cloth];
		*field = f;
		return base + kGroups[i].offset + (offset - groupOffset);
	}
	return NULL;
}

// The script's names of the panel's parameters ("set substeps 20"); a name not here is a def path
// ("step.substeps", "world.wind.frequency", "cloth.material.damping") or a material field in words
// ("stretch-compliance").
static const struct {
	const char* name;
	wfDefType def;
	const char* path;
	int component; // a vector's component (gravity's y), else -1
} kNames[] = {
	{"gravity", WF_DEF_WORLD, "gravity", 1},
	{"substeps", WF_DEF_WORLD, "step.substeps", -1},
	{"iterations", WF_DEF_WORLD, "step.iterations", -1},
	{"timestep", WF_DEF_WORLD, "step.timeStep", -1},
	{"solver", WF_DEF_WORLD, "step.solver", -1},
	{"wind", WF_DEF_WORLD, "wind.strength", -1},
	{"sphere-radius", WF_DEF_WORLD, "sphere.radius", -1},
	{"floor", WF_DEF_WORLD, "floor.enabled", -1},
	{"floor-height", WF_DEF_WORLD, "floor.height", -1},
	{"self-collision", WF_DEF_WORLD, "selfCollision.enabled", -1},
	{"between-cloths", WF_DEF_WORLD, "selfCollision.betweenCloths", -1},
	{"self-thickness", WF_DEF_WORLD, "selfCollision.thickness", -1},
	{"self-friction", WF_DEF_WORLD, "selfCollision.friction", -1},
	{"pin-mode", WF_DEF_CLOTH, "pinMode", -1},
};

// A name to a def and path: the table above, a path ("world." and "cloth." optional), or
// "material." and the name with its dashes as capitals.
static bool ResolveName(const char* name, wfDefType* def, char* path, size_t size, int* component)
{
	*component = -1;
	for (size_t i = 0; i < sizeof kNames / sizeof kNames[0]; ++i) {
		if (strcmp(kNames[i].name, name) == 0) {
			*def = kNames[i].def;
			*component = kNames[i].component;
			snprintf(path, size, "%s", kNames[i].path);
			return true;
		}
	}
	*def = strncmp(name, "cloth.", 6) == 0 ? WF_DEF_CLOTH : WF_DEF_WORLD;
	const char* p = strncmp(name, "world.", 6) == 0 || strncmp(name, "cloth.", 6) == 0 ? name + 6 : name;
	snprintf(path, size, "%s", p);
	if (wfFindDefField(*def, path) != NULL)
		return true;
	if (p == name && wfFindDefField(WF_DEF_CLOTH, path) != NULL) {
		*def = WF_DEF_CLOTH;
		return true;
	}
	size_t used = (size_t)snprintf(path, size, "material.");
	for (const char* c = name; *c != 0 && used + 1 < size; ++c) {
		if (*c == '-' && c[1] >= 'a' && c[1] <= 'z')
			path[used++] = (char)(*++c - 'a' + 'A');
		else
			path[used++] = *c;
	}
	path[used] = 0;
	*def = WF_DEF_CLOTH;
	return wfFindDefField(*def, path) != NULL;
}

// The viewer's own settings, no def fields.
static bool SetViewSetting(ViewParams* e, const char* name, const char* value, bool* ok)
{
	int cols, rows;
	if (strcmp(name, "color") == 0)
		*ok = wfColorModeFromName(value, &e->colorMode);
	else if (strcmp(name, "view") == 0)
		*ok = wfViewModeFromName(value, &e->view);
	else if (strcmp(name, "wireframe") == 0) {
		*ok = strcmp(value, "1") == 0 || strcmp(value, "0") == 0;
		e->wireframe = *ok ? value[0] == '1' : e->wireframe;
	} else if (strcmp(name, "grid") == 0) {
		// cols and rows of every cloth, each checked against the table as "cols" and "rows" are.
		*ok = sscanf(value, "%dx%d", &cols, &rows) == 2;
		const wfFieldInfo* f = wfFindDefField(WF_DEF_CLOTH, "cols");
		*ok = *ok && cols >= f->min && cols <= f->max && rows >= f->min && rows <= f->max;
		for (int i = 0; i < e->clothCount && *ok; ++i) {
			e->cloth[i].cols = cols;
			e->cloth[i].rows = rows;
		}
	} else
		return false;
	return true;
}

bool ViewSetParam(View* v, const char* name, const char* value, char* error, int errorSize)
{
	ViewParams* e = &v->edit;
	bool ok = true;
	if (!SetViewSetting(e, name, value, &ok)) {
		wfDefType def;
		char path[128], problem[96], allowed[320];
		int component;
		const wfFieldInfo* f = NULL;
		if (!ResolveName(name, &def, path, sizeof path, &component) || ViewParamAt(e, 0, def, path, &f) == NULL) {
			snprintf(error, (size_t)errorSize,
				"set %s %s: not a panel parameter (allowed: a name as in the script's list, or a def path under "
				"step, gravity, sphere, floor, wind, selfCollision, cloth.material, cloth.pinMode)",
				name, value);
			return false;
		}
		// A vector's component is one number in the vector's range.
		wfFieldInfo one = *f;
		if (component >= 0)
			one.type = WF_FIELD_FLOAT;
		wfFieldValue parsed;
		if (!wfFieldsParse(&one, value, true, &parsed, problem, sizeof problem)) {
			wfFieldsAllowed(&one, allowed, sizeof allowed);
			snprintf(error, (size_t)errorSize, "set %s %s: '%s' %s (allowed: %s)", name, value, value, problem, allowed);
			return false;
		}
		for (int i = 0; i < (def == WF_DEF_CLOTH ? e->clothCount : 1); ++i) {
			char* at = (char*)ViewParamAt(e, i, def, path, &f);
			wfFieldsStore(&one, &parsed, component >= 0 ? at + (size_t)component * sizeof(float) : at);
		}
	}
	if (!ok) {
		snprintf(error, (size_t)errorSize, "set %s %s: unknown parameter or bad value", name, value);
		return false;
	}
	v->status[0] = 0;
	ViewApplyParams(v);
	if (v->status[0] != 0) {
		snprintf(error, (size_t)errorSize, "set %s %s: %s", name, value, v->status);
		return false;
	}
	return true;
}
