// World: defs and their validation, backend selection, the frame loop, snapshots, errors.
#include "internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WF_SECRET_COOKIE 1152023

// ------------------------------------------------------------------ memory, errors, logging

void* wfAlloc(size_t size)
{
	size_t rounded = (size + 63) & ~(size_t)63;
	void* p = aligned_alloc(64, rounded > 0 ? rounded : 64);
	if (p != NULL)
		memset(p, 0, rounded > 0 ? rounded : 64);
	return p;
}

void wfFree(void* p)
{
	free(p);
}

void wfAssertFailed(wfWorld* world, const char* cond, const char* file, int line)
{
	if (world != NULL && world->def.assertFn != NULL) {
		if (world->def.assertFn(cond, file, line, world->def.logContext) == 0)
			return;
	} else {
		fprintf(stderr, "weft: assertion failed: %s (%s:%d)\n", cond, file, line);
	}
	abort();
}

static void VLog(const wfWorld* world, wfLogLevel level, const char* fmt, va_list args)
{
	char msg[1024];
	vsnprintf(msg, sizeof msg, fmt, args);
	if (world != NULL && world->def.logFn != NULL) {
		world->def.logFn(level, msg, world->def.logContext);
	} else if (level != WF_LOG_INFO) {
		fprintf(stderr, "weft: %s: %s\n", level == WF_LOG_ERROR ? "error" : "warning", msg);
	}
}

void wfLog(const wfWorld* world, wfLogLevel level, const char* fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	VLog(world, level, fmt, args);
	va_end(args);
}

wfResult wfSetError(wfWorld* world, wfResult result, const char* fmt, ...)
{
	if (world == NULL)
		return result;
	va_list args;
	va_start(args, fmt);
	vsnprintf(world->lastError, sizeof world->lastError, fmt, args);
	va_end(args);
	return result;
}

const char* wfResultName(wfResult r)
{
	switch (r) {
	case WF_OK: return "ok";
	case WF_ERROR_INVALID_DEF: return "invalid def";
	case WF_ERROR_INVALID_ARGUMENT: return "invalid argument";
	case WF_ERROR_OUT_OF_MEMORY: return "out of memory";
	case WF_ERROR_BACKEND_UNAVAILABLE: return "backend unavailable";
	case WF_ERROR_DEVICE_LOST: return "device lost";
	case WF_ERROR_IO: return "i/o error";
	case WF_ERROR_PARSE: return "parse error";
	}
	return "unknown";
}

// ------------------------------------------------------------------ names

static const char* const kSolverNames[] = {"xpbd", "jacobi", "springs"};
static const char* const kBackendNames[] = {"auto", "cpu", "vulkan"};
static const char* const kPinNames[] = {"none", "top-corners", "top-row", "corners", "list"};

#define NAME_LOOKUP(table, value) ((unsigned)(value) < sizeof(table) / sizeof(table[0]) ? table[value] : "?")

static bool FromName(const char* const* table, int count, const char* name, int* out)
{
	for (int i = 0; name != NULL && out != NULL && i < count; ++i) {
		if (strcmp(table[i], name) == 0) {
			*out = i;
			return true;
		}
	}
	return false;
}

const char* wfSolverName(wfSolverType s) { return NAME_LOOKUP(kSolverNames, s); }
const char* wfBackendName(wfBackendType b) { return NAME_LOOKUP(kBackendNames, b); }
const char* wfPinModeName(wfPinMode m) { return NAME_LOOKUP(kPinNames, m); }

static const char* const kStageNames[] = {"prepare", "predict", "solve", "finish", "normals", "fused"};
_Static_assert(sizeof kStageNames / sizeof kStageNames[0] == WF_STAGE_COUNT, "a name per stage");
const char* wfStageName(wfStage s) { return NAME_LOOKUP(kStageNames, s); }

bool wfSolverFromName(const char* name, wfSolverType* out)
{
	int v;
	if (out == NULL || !FromName(kSolverNames, 3, name, &v)) return false;
	*out = (wfSolverType)v;
	return true;
}

bool wfBackendFromName(const char* name, wfBackendType* out)
{
	int v;
	if (out == NULL || !FromName(kBackendNames, 3, name, &v)) return false;
	*out = (wfBackendType)v;
	return true;
}

bool wfPinModeFromName(const char* name, wfPinMode* out)
{
	int v;
	if (out == NULL || !FromName(kPinNames, 5, name, &v)) return false;
	*out = (wfPinMode)v;
	return true;
}

// ------------------------------------------------------------------ defaults and validation

wfWorldDef wfDefaultWorldDef(void)
{
	wfWorldDef d;
	memset(&d, 0, sizeof d);
	d.backend = WF_BACKEND_AUTO;
	d.step.solver = WF_SOLVER_XPBD;
	d.step.timeStep = 1.0f / 60.0f;
	d.step.substeps = 10;
	d.step.iterations = 1;
	d.gravity = (wfVec3){0.0f, -9.8f, 0.0f};
	d.sphere.center = (wfVec3){0.0f, 0.0f, 0.0f};
	d.sphere.radius = 1.0f;
	d.sphere.amplitude = (wfVec3){0.0f, 0.0f, 1.0f};
	d.sphere.frequency = 0.25f;
	d.floor.height = 0.0f;
	d.wind.strength = 2.4f;
	d.wind.frequency = 2.0f;
	d.wind.phasePerColumn = 0.15f;
	d.wind.direction = (wfVec3){0.0f, 0.0f, 1.0f};
	d.contact.response = WF_CONTACT_FRICTION;
	d.contact.thickness = 0.01f;
	d.contact.friction = 0.3f;
	d.maxSpeed = 1e3f;
	d.badFrame = WF_BAD_FRAME_KEEP;
	d.simd = true;
	d.fusedPath = WF_FUSED_AUTO;
	d.internalValue = WF_SECRET_COOKIE;
	return d;
}

wfMaterial wfDefaultMaterial(void)
{
	wfMaterial m;
	m.mass = 0.1f;
	m.stretchCompliance = 1e-6f;
	m.shearCompliance = 1e-5f;
	m.bendCompliance = 1e-3f;
	m.damping = 0.01f;
	m.relaxation = 0.9f;
	m.retention = 0.99f;
	m.stiffness = 2000.0f;
	m.springDamping = 0.25f;
	return m;
}

wfClothDef wfDefaultClothDef(void)
{
	wfClothDef d;
	memset(&d, 0, sizeof d);
	d.cols = 32;
	d.rows = 32;
	d.width = 1.0f;
	d.height = 1.0f;
	d.orientation = WF_ORIENT_HORIZONTAL;
	d.structural = d.shear = d.bending = true;
	d.material = wfDefaultMaterial();
	d.pinMode = WF_PIN_NONE;
	d.uvRepeat = 1.0f;
	d.internalValue = WF_SECRET_COOKIE;
	return d;
}

#define CHECK_RANGE(field, value, lo, hi) \
	do { \
		if (!((value) >= (lo) && (value) <= (hi))) { \
			snprintf(error, (size_t)errorSize, "%s: %g is out of range [%g, %g]", field, (double)(value), (double)(lo), (double)(hi)); \
			return false; \
		} \
	} while (0)

#define CHECK_FINITE3(field, v) \
	do { \
		if (!isfinite((v).x) || !isfinite((v).y) || !isfinite((v).z) || fabsf((v).x) > 1e6f || fabsf((v).y) > 1e6f || fabsf((v).z) > 1e6f) { \
			snprintf(error, (size_t)errorSize, "%s: (%g, %g, %g) must be finite, each component in [-1e6, 1e6]", field, (double)(v).x, (double)(v).y, (double)(v).z); \
			return false; \
		} \
	} while (0)

#define CHECK_ENUM(field, value, count, names) \
	do { \
		if ((unsigned)(value) >= (unsigned)(count)) { \
			snprintf(error, (size_t)errorSize, "%s: %d is not one of %s", field, (int)(value), names); \
			return false; \
		} \
	} while (0)

bool wfValidateStepDef(const wfStepDef* s, char* error, int errorSize)
{
	CHECK_ENUM("step.solver", s->solver, 3, "xpbd, jacobi, springs");
	CHECK_RANGE("step.timeStep", s->timeStep, 1e-7f, 1.0f);
	CHECK_RANGE("step.substeps", s->substeps, 1, 4096);
	CHECK_RANGE("step.iterations", s->iterations, 1, 1024);
	return true;
}

static bool ValidateSphere(const wfSphereDef* s, char* error, int errorSize)
{
	CHECK_FINITE3("sphere.center", s->center);
	CHECK_RANGE("sphere.radius", s->radius, 1e-6f, 1e4f);
	CHECK_FINITE3("sphere.amplitude", s->amplitude);
	CHECK_RANGE("sphere.frequency", s->frequency, 0.0f, 100.0f);
	return true;
}

static bool ValidateFloor(const wfFloorDef* f, char* error, int errorSize)
{
	CHECK_RANGE("floor.height", f->height, -1e6f, 1e6f);
	return true;
}

static bool ValidateWind(const wfWindDef* w, char* error, int errorSize)
{
	CHECK_ENUM("wind.mode", w->mode, 3, "none, gust, wave");
	CHECK_RANGE("wind.strength", w->strength, 0.0f, 1e4f);
	CHECK_RANGE("wind.frequency", w->frequency, 0.0f, 100.0f);
	CHECK_RANGE("wind.phasePerColumn", w->phasePerColumn, -100.0f, 100.0f);
	CHECK_FINITE3("wind.direction", w->direction);
	return true;
}

static bool ValidateContact(const wfContactDef* c, char* error, int errorSize)
{
	CHECK_ENUM("contact.response", c->response, 2, "friction, stop");
	CHECK_RANGE("contact.thickness", c->thickness, 0.0f, 1.0f);
	CHECK_RANGE("contact.friction", c->friction, 0.0f, 10.0f);
	return true;
}

// The caller's Vulkan device (wfWorldDef.vulkanDevice): complete, with a compute queue, and not
// combined with settings that would pick another device.
static bool ValidateVulkanDevice(const wfWorldDef* d, char* error, int errorSize)
{
	const wfVulkanDevice* v = d->vulkanDevice;
	if (d->backend == WF_BACKEND_CPU) {
		snprintf(error, (size_t)errorSize, "vulkanDevice: given with backend cpu (allowed: backend auto or vulkan)");
		return false;
	}
	if (d->deviceName != NULL && d->deviceName[0] != 0) {
		snprintf(error, (size_t)errorSize, "vulkanDevice: given with deviceName \"%s\" (allowed: one of them)", d->deviceName);
		return false;
	}
	const struct {
		const char* name;
		const void* value;
	} handles[] = {{"instance", v->instance}, {"physicalDevice", v->physicalDevice}, {"device", v->device}, {"queue", v->queue},
	               {"getInstanceProcAddr", v->getInstanceProcAddr}};
	for (size_t i = 0; i < sizeof handles / sizeof handles[0]; ++i) {
		if (handles[i].value == NULL) {
			snprintf(error, (size_t)errorSize, "vulkanDevice.%s: NULL (allowed: a live handle)", handles[i].name);
			return false;
		}
	}
	if ((v->queueFlags & 0x2u) == 0) { // VK_QUEUE_COMPUTE_BIT
		snprintf(error, (size_t)errorSize, "vulkanDevice.queueFlags: 0x%x has no VK_QUEUE_COMPUTE_BIT (allowed: a queue with compute)",
			v->queueFlags);
		return false;
	}
	return true;
}

bool wfValidateWorldDef(const wfWorldDef* d, char* error, int errorSize)
{
	if (d->internalValue != WF_SECRET_COOKIE) {
		snprintf(error, (size_t)errorSize, "world def: not initialised with wfDefaultWorldDef()");
		return false;
	}
	CHECK_ENUM("backend", d->backend, 3, "auto, cpu, vulkan");
	CHECK_RANGE("threads", d->threads, 0, 1024);
	if (d->vulkanDevice != NULL && !ValidateVulkanDevice(d, error, errorSize))
		return false;
	// The CPU backend has no devices: a device name there is a mistake, not something to ignore.
	if (d->backend == WF_BACKEND_CPU && d->deviceName != NULL && d->deviceName[0] != 0) {
		snprintf(error, (size_t)errorSize, "deviceName: given with backend cpu, which uses no device (allowed: backend auto or "
			"vulkan, or no deviceName)");
		return false;
	}
	CHECK_FINITE3("gravity", d->gravity);
	CHECK_RANGE("maxSpeed", d->maxSpeed, 1.0f, 1e6f);
	CHECK_ENUM("badFrame", d->badFrame, 2, "keep, reset");
	CHECK_ENUM("fusedPath", d->fusedPath, 3, "auto, never, always");
	return wfValidateStepDef(&d->step, error, errorSize) && ValidateSphere(&d->sphere, error, errorSize) &&
		ValidateFloor(&d->floor, error, errorSize) && ValidateWind(&d->wind, error, errorSize) &&
		ValidateContact(&d->contact, error, errorSize);
}

bool wfValidateMaterial(const wfMaterial* m, char* error, int errorSize)
{
	CHECK_RANGE("material.mass", m->mass, 1e-9f, 1e6f);
	CHECK_RANGE("material.stretchCompliance", m->stretchCompliance, 0.0f, 1e3f);
	CHECK_RANGE("material.shearCompliance", m->shearCompliance, 0.0f, 1e3f);
	CHECK_RANGE("material.bendCompliance", m->bendCompliance, 0.0f, 1e3f);
	CHECK_RANGE("material.damping", m->damping, 0.0f, 1e3f);
	if (!(m->relaxation >= 0.0f && m->relaxation < 1.0f)) {
		snprintf(error, (size_t)errorSize,
			"material.relaxation: %g is out of range [0, 1) (at 1 a sweep flips a lone constraint's error, C -> -C)",
			(double)m->relaxation);
		return false;
	}
	CHECK_RANGE("material.retention", m->retention, 0.0f, 1.0f);
	CHECK_RANGE("material.stiffness", m->stiffness, 0.0f, 1e7f);
	CHECK_RANGE("material.springDamping", m->springDamping, 0.0f, 1e5f);
	return true;
}

bool wfValidateClothDef(const wfClothDef* d, char* error, int errorSize)
{
	if (d->internalValue != WF_SECRET_COOKIE) {
		snprintf(error, (size_t)errorSize, "cloth def: not initialised with wfDefaultClothDef()");
		return false;
	}
	CHECK_RANGE("cols", d->cols, 1, 8192);
	CHECK_RANGE("rows", d->rows, 1, 8192);
	if ((int64_t)d->cols * d->rows < 2 || (int64_t)d->cols * d->rows > (1 << 26)) {
		snprintf(error, (size_t)errorSize, "cols x rows: %d x %d particles, allowed [2, 67108864]", d->cols, d->rows);
		return false;
	}
	CHECK_RANGE("width", d->width, 1e-6f, 1e5f);
	CHECK_RANGE("height", d->height, 1e-6f, 1e5f);
	CHECK_ENUM("orientation", d->orientation, 2, "horizontal, vertical");
	CHECK_FINITE3("origin", d->origin);
	if (!d->structural && !d->shear && !d->bending) {
		snprintf(error, (size_t)errorSize, "structural, shear, bending: at least one constraint family must be on");
		return false;
	}
	if (wfGridConstraintCount(d->cols, d->rows, d->structural, d->shear, d->bending) == 0) {
		snprintf(error, (size_t)errorSize, "cols x rows: a %d x %d grid has no constraints with these families", d->cols, d->rows);
		return false;
	}
	CHECK_ENUM("pinMode", d->pinMode, 5, "none, top-corners, top-row, corners, list");
	if (d->pinMode == WF_PIN_LIST) {
		if (d->pinCount < 0 || (d->pinCount > 0 && d->pinIndices == NULL)) {
			snprintf(error, (size_t)errorSize, "pinIndices: %d indices given without a list", d->pinCount);
			return false;
		}
		for (int i = 0; i < d->pinCount; ++i) {
			if (d->pinIndices[i] < 0 || d->pinIndices[i] >= d->cols * d->rows) {
				snprintf(error, (size_t)errorSize, "pinIndices[%d]: %d is out of range [0, %d]", i, d->pinIndices[i], d->cols * d->rows - 1);
				return false;
			}
		}
	}
	CHECK_RANGE("uvRepeat", d->uvRepeat, 0.0f, 1e4f);
	CHECK_ENUM("jacobiWeights", d->jacobiWeights, 2, "symmetric, document");
	CHECK_RANGE("jitter", d->jitter, 0.0f, 1.0f);
	return wfValidateMaterial(&d->material, error, errorSize);
}

// ------------------------------------------------------------------ world lifetime

static wfResult CreateBackend(wfWorld* world, char* error, int errorSize)
{
	wfBackendType want = world->def.backend;
#ifdef WEFT_HAVE_VULKAN
	if (want == WF_BACKEND_VULKAN || want == WF_BACKEND_AUTO) {
		// A named device may be a software one (lavapipe); auto takes hardware devices only. The
		// caller's own device is used as given, or not at all (no fallback to the CPU).
		bool allowSoftware = want == WF_BACKEND_VULKAN;
		if (world->def.vulkanDevice != NULL)
			want = WF_BACKEND_VULKAN;
		wfResult r = wfVulkanBackendCreate(world, allowSoftware);
		if (r == WF_OK) {
			world->backendType = WF_BACKEND_VULKAN;
			return WF_OK;
		}
		if (want == WF_BACKEND_VULKAN) {
			snprintf(error, (size_t)errorSize, "backend vulkan: %s", world->lastError);
			return r;
		}
		wfLog(world, WF_LOG_WARNING, "backend auto: %s; using the CPU solver", world->lastError);
		world->lastError[0] = 0;
	}
#else
	if (want == WF_BACKEND_VULKAN || world->def.vulkanDevice != NULL) {
		snprintf(error, (size_t)errorSize, "backend vulkan: this build of weft has no Vulkan support");
		return WF_ERROR_BACKEND_UNAVAILABLE;
	}
#endif
	world->backendType = WF_BACKEND_CPU;
	return wfCpuBackendCreate(world);
}

wfWorld* wfCreateWorld(const wfWorldDef* def, char* error, int errorSize)
{
	char scratch[512];
	if (error == NULL || errorSize <= 0) {
		error = scratch;
		errorSize = (int)sizeof scratch;
	}
	error[0] = 0;
	if (def == NULL) {
		snprintf(error, (size_t)errorSize, "world def: NULL");
		return NULL;
	}
	if (!wfValidateWorldDef(def, error, errorSize))
		return NULL;
	wfWorld* world = (wfWorld*)calloc(1, sizeof(wfWorld));
	if (world == NULL) {
		snprintf(error, (size_t)errorSize, "out of memory");
		return NULL;
	}
	world->def = *def;
	// The world keeps its own copy of the requested device name.
	if (def->deviceName != NULL) {
		snprintf(world->requestedDevice, sizeof world->requestedDevice, "%s", def->deviceName);
		world->def.deviceName = world->requestedDevice;
	}
	// And of the caller's Vulkan device.
	if (def->vulkanDevice != NULL) {
		world->externalDevice = *def->vulkanDevice;
		world->def.vulkanDevice = &world->externalDevice;
	}
	world->nextGeneration = 1;
	if (CreateBackend(world, error, errorSize) != WF_OK) {
		if (error[0] == 0)
			snprintf(error, (size_t)errorSize, "%s", world->lastError);
		free(world);
		return NULL;
	}
	return world;
}

void wfDestroyWorld(wfWorld* world)
{
	if (world == NULL)
		return;
	for (int i = 0; i < world->clothCapacity; ++i) {
		if (world->cloths[i].generation != 0)
			wfDestroyCloth((wfClothId){world, i, world->cloths[i].generation});
	}
	if (world->backend != NULL && world->backend->destroy != NULL)
		world->backend->destroy(world);
	free(world->cloths);
	free(world);
}

// ------------------------------------------------------------------ stepping

void wfFrameParamsInit(const wfWorld* w, wfFrameParams* p)
{
	p->h = w->def.step.timeStep / (float)w->def.step.substeps;
	p->substeps = w->def.step.substeps;
	p->iterations = w->def.step.iterations;
	p->gravity = w->def.gravity;
	p->time = w->time;
	p->sphereTime = w->sphereTime;
	p->sphere = w->def.sphere;
	p->floor = w->def.floor;
	p->wind = w->def.wind;
	p->contact = w->def.contact;
}

static const float kTwoPi = 6.28318530717958647692f;

// The sphere's motion clock runs only while it moves; substep k ends at sphereTime + (k+1) h.
// The motion is kept apart from the centre: solvers add it to the centre in their cloth's local
// frame (wfClothLocal.sphereCenter), so it is the same whatever the world position.
wfVec3 wfSphereMotionAt(const wfFrameParams* p, int substep)
{
	float t = (float)(p->sphereTime + (p->sphere.moving ? (double)(substep + 1) * p->h : 0.0));
	float s = sinf(kTwoPi * p->sphere.frequency * t);
	return (wfVec3){p->sphere.amplitude.x * s, p->sphere.amplitude.y * s, p->sphere.amplitude.z * s};
}

wfVec3 wfSphereCenterAt(const wfFrameParams* p, int substep)
{
	wfVec3 c = p->sphere.center, m = wfSphereMotionAt(p, substep);
	return (wfVec3){c.x + m.x, c.y + m.y, c.z + m.z};
}

wfVec3 wfSphereVelocityAt(const wfFrameParams* p, int substep)
{
	if (!p->sphere.moving)
		return (wfVec3){0.0f, 0.0f, 0.0f};
	float t = (float)(p->sphereTime + (double)(substep + 1) * p->h);
	float w = kTwoPi * p->sphere.frequency;
	float c = w * cosf(w * t);
	return (wfVec3){p->sphere.amplitude.x * c, p->sphere.amplitude.y * c, p->sphere.amplitude.z * c};
}

// Gravity plus wind at the start of substep k. GUST is an acceleration added to gravity (the second
// document); WAVE is a force per particle (the third), so its acceleration scales with 1/m.
wfVec3 wfExternalAccel(const wfFrameParams* p, int substep, int column, float invMass)
{
	wfVec3 a = p->gravity;
	float t = (float)(p->time + (double)substep * p->h);
	if (p->wind.mode == WF_WIND_GUST) {
		a.x += p->wind.strength * sinf(1.8f * t);
		a.z += p->wind.strength * cosf(1.26f * t);
	} else if (p->wind.mode == WF_WIND_WAVE) {
		wfVec3 d = p->wind.direction;
		float len = sqrtf(d.x * d.x + d.y * d.y + d.z * d.z);
		if (len > 0.0f) {
			float f = p->wind.strength * invMass / len *
				(0.5f + 0.5f * sinf(kTwoPi * p->wind.frequency * t + p->wind.phasePerColumn * (float)column));
			a.x += d.x * f;
			a.y += d.y * f;
			a.z += d.z * f;
		}
	}
	return a;
}

wfResult wfWorld_Step(wfWorld* world)
{
	if (world == NULL)
		return WF_ERROR_INVALID_ARGUMENT;
	wfFrameParams params;
	wfFrameParamsInit(world, &params);
	// Unknown until the backend measured this frame (it overwrites them when stage timing is on).
	for (int k = 0; k < WF_STAGE_COUNT; ++k)
		world->stageMs[k] = -1.0;
	for (int i = 0; i < world->clothCapacity; ++i) {
		if (world->cloths[i].generation != 0)
			wfClothBeginFrame(world, &world->cloths[i], &params);
	}
	wfResult r = world->backend->step(world, &params);
	if (r != WF_OK)
		return r;
	// The frame policy: good frames move each cloth's origin, bad ones are counted and recovered.
	for (int i = 0; i < world->clothCapacity; ++i) {
		if (world->cloths[i].generation != 0)
			wfClothEndFrame(world, &world->cloths[i]);
	}
	world->time += (double)params.h * params.substeps;
	if (world->def.sphere.moving)
		world->sphereTime += (double)params.h * params.substeps;
	return WF_OK;
}

// ------------------------------------------------------------------ getters and live setters

// Getters of a NULL world return the neutral values weft.h documents.
const char* wfWorld_GetLastError(const wfWorld* world) { return world != NULL ? world->lastError : ""; }
wfBackendType wfWorld_GetBackend(const wfWorld* world) { return world != NULL ? world->backendType : WF_BACKEND_AUTO; }
const char* wfWorld_GetDeviceName(const wfWorld* world) { return world != NULL ? world->deviceName : ""; }
wfWorldDef wfWorld_GetDef(const wfWorld* world) { return world != NULL ? world->def : wfDefaultWorldDef(); }
int wfWorld_GetThreadCount(const wfWorld* world) { return world != NULL ? world->threads : 0; }
double wfWorld_GetTime(const wfWorld* world) { return world != NULL ? world->time : 0.0; }

wfWarnings wfWorld_GetWarnings(const wfWorld* world)
{
	wfWarnings none;
	memset(&none, 0, sizeof none);
	return world != NULL ? world->warnings : none;
}

wfVec3 wfWorld_GetSphereCenter(const wfWorld* world)
{
	if (world == NULL)
		return (wfVec3){0.0f, 0.0f, 0.0f};
	wfFrameParams p;
	wfFrameParamsInit(world, &p);
	p.sphere.moving = false; // evaluate at the current clock
	return wfSphereCenterAt(&p, 0);
}

#define APPLY_SETTER(validate, target, value) \
	do { \
		char msg[256]; \
		if (world == NULL) \
			return WF_ERROR_INVALID_ARGUMENT; \
		if ((value) == NULL) \
			return wfSetError(world, WF_ERROR_INVALID_ARGUMENT, "%s: %s: NULL", __func__, #value); \
		if (!validate(value, msg, (int)sizeof msg)) \
			return wfSetError(world, WF_ERROR_INVALID_DEF, "%s", msg); \
		target = *(value); \
		return WF_OK; \
	} while (0)

wfResult wfWorld_SetStep(wfWorld* world, const wfStepDef* step)
{
	APPLY_SETTER(wfValidateStepDef, world->def.step, step);
}

static bool ValidateGravity(const wfVec3* g, char* error, int errorSize)
{
	CHECK_FINITE3("gravity", *g);
	return true;
}

wfResult wfWorld_SetGravity(wfWorld* world, wfVec3 gravity)
{
	APPLY_SETTER(ValidateGravity, world->def.gravity, &gravity);
}

wfResult wfWorld_SetSphere(wfWorld* world, const wfSphereDef* sphere)
{
	APPLY_SETTER(ValidateSphere, world->def.sphere, sphere);
}

wfResult wfWorld_SetSphereMoving(wfWorld* world, bool moving)
{
	if (world == NULL)
		return WF_ERROR_INVALID_ARGUMENT;
	world->def.sphere.moving = moving;
	return WF_OK;
}

wfResult wfWorld_SetFloor(wfWorld* world, const wfFloorDef* floor)
{
	APPLY_SETTER(ValidateFloor, world->def.floor, floor);
}

wfResult wfWorld_SetWind(wfWorld* world, const wfWindDef* wind)
{
	APPLY_SETTER(ValidateWind, world->def.wind, wind);
}

wfResult wfWorld_SetContact(wfWorld* world, const wfContactDef* contact)
{
	APPLY_SETTER(ValidateContact, world->def.contact, contact);
}

// ------------------------------------------------------------------ profile

// Bytes a frame must move if every kernel reads and writes its data exactly once (no cache reuse
// across kernels): the algorithm's traffic, the same for every backend. 16-byte particle records,
// 16-byte constraint records, 4-byte multipliers, 8-byte adjacency entries.
static double ModelBytesPerFrame(const wfWorld* world, const wfCloth* c)
{
	const double n = c->model.particleCount, m = c->model.constraintCount;
	const wfStepDef* s = &world->def.step;
	const double finish = n * 4.0 * 16.0; // velocity update + collide: read pos, prev; write pos, vel
	double substep = 0.0;
	switch (s->solver) {
	case WF_SOLVER_XPBD:
		// predict (read pos, vel; write pos, vel, prev), clear lambda, per iteration per constraint:
		// record, lambda read+write, both ends read+write.
		substep = n * 5.0 * 16.0 + m * 4.0 + s->iterations * m * (16.0 + 8.0 + 64.0) + finish;
		break;
	case WF_SOLVER_JACOBI:
		// predict; per sweep: read src, write dst, per constraint the record, its weight and two
		// adjacency entries.
		substep = n * 5.0 * 16.0 + s->iterations * (n * 32.0 + m * (16.0 + 4.0 + 16.0)) + finish;
		break;
	case WF_SOLVER_SPRINGS:
		// read pos, vel; write pos2, vel2; per constraint the record and two adjacency entries.
		substep = n * 64.0 + m * 32.0;
		break;
	}
	// Normals after the last substep: read positions and triangles, write normals.
	return s->substeps * substep + n * 32.0 + c->model.triangleCount * 12.0;
}

wfStepProfile wfWorld_GetStepProfile(const wfWorld* world)
{
	wfStepProfile p = {.gpuMs = -1.0};
	for (int k = 0; k < WF_STAGE_COUNT; ++k)
		p.stageMs[k] = world != NULL && world->stageTiming ? world->stageMs[k] : -1.0;
	if (world == NULL)
		return p;
	const wfStepDef* s = &world->def.step;
	for (int i = 0; i < world->clothCapacity; ++i) {
		const wfCloth* c = &world->cloths[i];
		if (c->generation == 0)
			continue;
		p.bytesPerFrame += ModelBytesPerFrame(world, c);
		p.projectionsPerFrame += (double)c->model.constraintCount * s->substeps * (s->solver == WF_SOLVER_SPRINGS ? 1 : s->iterations);
	}
	if (world->backend->profile != NULL)
		world->backend->profile(world, &p);
	return p;
}

// Stage timing is measured by the backend's step into world->stageMs; on Vulkan the frame command
// buffer is re-recorded (with timestamps, or without them again) at the next step.
wfResult wfWorld_SetStageTiming(wfWorld* world, bool enabled)
{
	if (world == NULL)
		return WF_ERROR_INVALID_ARGUMENT;
	world->stageTiming = enabled;
	for (int k = 0; k < WF_STAGE_COUNT; ++k)
		world->stageMs[k] = -1.0;
	return WF_OK;
}

bool wfWorld_GetStageTiming(const wfWorld* world) { return world != NULL && world->stageTiming; }

// ------------------------------------------------------------------ snapshots
// Layout: header, then per live cloth (in slot order) its local frame's origin (3 doubles), local
// positions (xyzw) and velocities (xyzw).

typedef struct SnapshotHeader {
	uint32_t magic;
	uint32_t clothCount;
	double time;
	double sphereTime;
	uint64_t payload;
} SnapshotHeader;

#define WF_SNAPSHOT_MAGIC 0x54464557u

size_t wfWorld_GetSnapshotSize(const wfWorld* world)
{
	if (world == NULL)
		return 0;
	size_t size = sizeof(SnapshotHeader);
	for (int i = 0; i < world->clothCapacity; ++i) {
		if (world->cloths[i].generation != 0)
			size += 3 * sizeof(double) + (size_t)world->cloths[i].model.particleCount * 2 * sizeof(wfVec4);
	}
	return size;
}

wfResult wfWorld_SaveSnapshot(wfWorld* world, void* buffer, size_t size)
{
	if (world == NULL)
		return WF_ERROR_INVALID_ARGUMENT;
	size_t need = wfWorld_GetSnapshotSize(world);
	if (buffer == NULL || size < need)
		return wfSetError(world, WF_ERROR_INVALID_ARGUMENT, "snapshot: buffer of %zu bytes, need %zu", size, need);
	SnapshotHeader h = {WF_SNAPSHOT_MAGIC, (uint32_t)world->clothCount, world->time, world->sphereTime, need};
	memcpy(buffer, &h, sizeof h);
	char* out = (char*)buffer + sizeof h;
	for (int i = 0; i < world->clothCapacity; ++i) {
		wfCloth* c = &world->cloths[i];
		if (c->generation == 0)
			continue;
		wfResult r = wfSyncHost(world, c);
		if (r != WF_OK)
			return r;
		size_t bytes = (size_t)c->model.particleCount * sizeof(wfVec4);
		memcpy(out, c->origin, sizeof c->origin);
		out += sizeof c->origin;
		memcpy(out, c->state.pos, bytes);
		memcpy(out + bytes, c->state.vel, bytes);
		out += 2 * bytes;
	}
	return WF_OK;
}

wfResult wfWorld_RestoreSnapshot(wfWorld* world, const void* buffer, size_t size)
{
	if (world == NULL)
		return WF_ERROR_INVALID_ARGUMENT;
	SnapshotHeader h;
	size_t need = wfWorld_GetSnapshotSize(world);
	if (buffer == NULL || size < sizeof h)
		return wfSetError(world, WF_ERROR_INVALID_ARGUMENT, "snapshot: buffer too small");
	memcpy(&h, buffer, sizeof h);
	if (h.magic != WF_SNAPSHOT_MAGIC || h.payload != need || size < need || h.clothCount != (uint32_t)world->clothCount)
		return wfSetError(world, WF_ERROR_INVALID_ARGUMENT, "snapshot: does not match this world's cloths");
	const char* in = (const char*)buffer + sizeof h;
	for (int i = 0; i < world->clothCapacity; ++i) {
		wfCloth* c = &world->cloths[i];
		if (c->generation == 0)
			continue;
		size_t bytes = (size_t)c->model.particleCount * sizeof(wfVec4);
		memcpy(c->origin, in, sizeof c->origin);
		in += sizeof c->origin;
		memcpy(c->state.pos, in, bytes);
		memcpy(c->state.vel, in + bytes, bytes);
		in += 2 * bytes;
		// Inverse masses follow the current pins, not the saved ones.
		wfClothApplyInverseMass(c);
		wfClothUpdateReference(c);
		c->hostValid = true;
		c->normalsValid = false;
		wfResult r = world->backend->upload(world, c);
		if (r != WF_OK)
			return r;
	}
	world->time = h.time;
	world->sphereTime = h.sphereTime;
	return WF_OK;
}
