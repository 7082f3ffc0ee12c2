// Defs: the defaults of every def and their validation, shared by creation, the setters and the
// scene loader.
#include "internal.h"
#include "names.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define WF_SECRET_COOKIE 1152023 // wf*Def.internalValue: the def came from wfDefault*Def

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
	d.aero.density = 1.2f;
	d.selfCollision.thickness = 0.005f;
	d.selfCollision.friction = 0.2f;
	d.selfCollision.exclusion = 1.5f;
	d.selfCollision.pointTriangle = true;
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
	d.tetherScale = 1.0f;
	d.collisionGroup = 1;
	d.collisionMask = 0x7fffffff;
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

#define CHECK_ENUM(field, value, table) \
	do { \
		if ((unsigned)(value) >= (unsigned)(table).count) { \
			snprintf(error, (size_t)errorSize, "%s: %d is not one of %s", field, (int)(value), (table).list); \
			return false; \
		} \
	} while (0)

bool wfValidateStepDef(const wfStepDef* s, char* error, int errorSize)
{
	CHECK_ENUM("step.solver", s->solver, wfSolverTable);
	CHECK_RANGE("step.timeStep", s->timeStep, 1e-7f, 1.0f);
	CHECK_RANGE("step.substeps", s->substeps, 1, 4096);
	CHECK_RANGE("step.iterations", s->iterations, 1, 1024);
	return true;
}

bool wfValidateSphere(const wfSphereDef* s, char* error, int errorSize)
{
	CHECK_FINITE3("sphere.center", s->center);
	CHECK_RANGE("sphere.radius", s->radius, 1e-6f, 1e4f);
	CHECK_FINITE3("sphere.amplitude", s->amplitude);
	CHECK_RANGE("sphere.frequency", s->frequency, 0.0f, 100.0f);
	return true;
}

bool wfValidateFloor(const wfFloorDef* f, char* error, int errorSize)
{
	CHECK_RANGE("floor.height", f->height, -1e6f, 1e6f);
	return true;
}

bool wfValidateWind(const wfWindDef* w, char* error, int errorSize)
{
	CHECK_ENUM("wind.mode", w->mode, wfWindTable);
	CHECK_RANGE("wind.strength", w->strength, 0.0f, 1e4f);
	CHECK_RANGE("wind.frequency", w->frequency, 0.0f, 100.0f);
	CHECK_RANGE("wind.phasePerColumn", w->phasePerColumn, -100.0f, 100.0f);
	CHECK_FINITE3("wind.direction", w->direction);
	return true;
}

bool wfValidateAero(const wfAeroDef* a, char* error, int errorSize)
{
	CHECK_RANGE("aero.density", a->density, 0.0f, 1e4f);
	CHECK_RANGE("aero.drag", a->drag, 0.0f, 100.0f);
	CHECK_RANGE("aero.lift", a->lift, 0.0f, 100.0f);
	CHECK_RANGE("aero.airVelocity.x", a->airVelocity.x, -1e4f, 1e4f);
	CHECK_RANGE("aero.airVelocity.y", a->airVelocity.y, -1e4f, 1e4f);
	CHECK_RANGE("aero.airVelocity.z", a->airVelocity.z, -1e4f, 1e4f);
	return true;
}

bool wfValidateContact(const wfContactDef* c, char* error, int errorSize)
{
	CHECK_ENUM("contact.response", c->response, wfResponseTable);
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

bool wfValidateGravity(const wfVec3* g, char* error, int errorSize)
{
	CHECK_FINITE3("gravity", *g);
	return true;
}

bool wfValidateWorldDef(const wfWorldDef* d, char* error, int errorSize)
{
	if (d->internalValue != WF_SECRET_COOKIE) {
		snprintf(error, (size_t)errorSize, "world def: not initialised with wfDefaultWorldDef()");
		return false;
	}
	CHECK_ENUM("backend", d->backend, wfBackendTable);
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
	CHECK_ENUM("badFrame", d->badFrame, wfBadFrameTable);
	CHECK_ENUM("fusedPath", d->fusedPath, wfFusedPathTable);
	if (!wfValidateAero(&d->aero, error, errorSize))
		return false;
	if (!wfValidateSelfCollision(&d->selfCollision, error, errorSize))
		return false;
	return wfValidateStepDef(&d->step, error, errorSize) && wfValidateSphere(&d->sphere, error, errorSize) &&
		wfValidateFloor(&d->floor, error, errorSize) && wfValidateWind(&d->wind, error, errorSize) &&
		wfValidateContact(&d->contact, error, errorSize);
}

bool wfValidateSelfCollision(const wfSelfCollisionDef* sc, char* error, int errorSize)
{
	CHECK_RANGE("selfCollision.thickness", sc->thickness, 1e-6f, 1.0f);
	CHECK_RANGE("selfCollision.friction", sc->friction, 0.0f, 10.0f);
	CHECK_RANGE("selfCollision.exclusion", sc->exclusion, 0.0f, 100.0f);
	return true;
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
	CHECK_RANGE("material.tearStrain", m->tearStrain, 0.0f, 100.0f);
	return true;
}

static bool CheckPinList(const wfClothDef* d, int particles, char* error, int errorSize)
{
	if (d->pinCount < 0 || (d->pinCount > 0 && d->pinIndices == NULL)) {
		snprintf(error, (size_t)errorSize, "pinIndices: %d indices given without a list", d->pinCount);
		return false;
	}
	for (int i = 0; i < d->pinCount; ++i) {
		if (d->pinIndices[i] < 0 || d->pinIndices[i] >= particles) {
			snprintf(error, (size_t)errorSize, "pinIndices[%d]: %d is out of range [0, %d]", i, d->pinIndices[i], particles - 1);
			return false;
		}
	}
	return true;
}

// The fields a mesh cloth uses (cols, rows, width, height, orientation and jitter are the grid's).
static bool ValidateMeshCloth(const wfClothDef* d, char* error, int errorSize)
{
	if (!wfValidateMeshDef(d->mesh, error, errorSize))
		return false;
	CHECK_FINITE3("origin", d->origin);
	if (!d->structural && !d->shear && !d->bending) {
		snprintf(error, (size_t)errorSize, "structural, shear, bending: at least one constraint family must be on");
		return false;
	}
	CHECK_ENUM("pinMode", d->pinMode, wfPinTable);
	if (d->pinMode == WF_PIN_CORNERS) {
		snprintf(error, (size_t)errorSize, "pinMode: \"corners\" needs a grid; a mesh takes none, top-corners, top-row or list");
		return false;
	}
	if (d->jitter != 0.0f) {
		snprintf(error, (size_t)errorSize, "jitter: %g, a mesh starts at its own positions (allowed 0)", (double)d->jitter);
		return false;
	}
	if (d->pinMode == WF_PIN_LIST && !CheckPinList(d, d->mesh->vertexCount, error, errorSize))
		return false;
	CHECK_RANGE("uvRepeat", d->uvRepeat, 0.0f, 1e4f);
	CHECK_ENUM("jacobiWeights", d->jacobiWeights, wfJacobiWeightTable);
	CHECK_ENUM("tethers", d->tethers, wfTetherTable);
	CHECK_RANGE("tetherScale", d->tetherScale, 1.0f, 10.0f);
	CHECK_RANGE("collisionGroup", d->collisionGroup, 0, 0x7fffffff);
	CHECK_RANGE("collisionMask", d->collisionMask, 0, 0x7fffffff);
	return wfValidateMaterial(&d->material, error, errorSize);
}

bool wfValidateClothDef(const wfClothDef* d, char* error, int errorSize)
{
	if (d->internalValue != WF_SECRET_COOKIE) {
		snprintf(error, (size_t)errorSize, "cloth def: not initialised with wfDefaultClothDef()");
		return false;
	}
	if (d->mesh != NULL)
		return ValidateMeshCloth(d, error, errorSize);
	CHECK_RANGE("cols", d->cols, 1, 8192);
	CHECK_RANGE("rows", d->rows, 1, 8192);
	if ((int64_t)d->cols * d->rows < 2 || (int64_t)d->cols * d->rows > (1 << 26)) {
		snprintf(error, (size_t)errorSize, "cols x rows: %d x %d particles, allowed [2, 67108864]", d->cols, d->rows);
		return false;
	}
	CHECK_RANGE("width", d->width, 1e-6f, 1e5f);
	CHECK_RANGE("height", d->height, 1e-6f, 1e5f);
	CHECK_ENUM("orientation", d->orientation, wfOrientationTable);
	CHECK_FINITE3("origin", d->origin);
	if (!d->structural && !d->shear && !d->bending) {
		snprintf(error, (size_t)errorSize, "structural, shear, bending: at least one constraint family must be on");
		return false;
	}
	if (wfGridConstraintCount(d->cols, d->rows, d->structural, d->shear, d->bending) == 0) {
		snprintf(error, (size_t)errorSize, "cols x rows: a %d x %d grid has no constraints with these families", d->cols, d->rows);
		return false;
	}
	CHECK_ENUM("pinMode", d->pinMode, wfPinTable);
	if (d->pinMode == WF_PIN_LIST && !CheckPinList(d, d->cols * d->rows, error, errorSize))
		return false;
	CHECK_RANGE("uvRepeat", d->uvRepeat, 0.0f, 1e4f);
	CHECK_ENUM("jacobiWeights", d->jacobiWeights, wfJacobiWeightTable);
	CHECK_RANGE("jitter", d->jitter, 0.0f, 1.0f);
	CHECK_ENUM("tethers", d->tethers, wfTetherTable);
	CHECK_RANGE("tetherScale", d->tetherScale, 1.0f, 10.0f);
	CHECK_RANGE("collisionGroup", d->collisionGroup, 0, 0x7fffffff);
	CHECK_RANGE("collisionMask", d->collisionMask, 0, 0x7fffffff);
	return wfValidateMaterial(&d->material, error, errorSize);
}
