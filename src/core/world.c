// World: backend selection, the frame loop, live setters, the step profile, snapshots.
#include "internal.h"
#include "names.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	world->selfContact = wfSelfContact(world, &def->selfCollision, 0.0);
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
	wfFreeColliders(world);
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
	p->aero = w->def.aero;
	p->aeroOn = w->def.aero.drag != 0.0f || w->def.aero.lift != 0.0f;
}

// The frame around a backend's step, in three parts that every GPU path shares (the WebGPU frame of
// web/weft_wasm.c calls them around its own submit): before, the clock's parameters, each cloth's
// local frame and the colliders' poses; after, the colliders' advance, the frame policy (good
// frames move each cloth's origin, bad ones are counted and recovered) and the clocks; then tearing
// between frames.
void wfWorldBeginFrame(wfWorld* world, wfFrameParams* params)
{
	wfFrameParamsInit(world, params);
	// Unknown until the backend measured this frame (it overwrites them when stage timing is on).
	for (int k = 0; k < WF_STAGE_COUNT; ++k)
		world->stageMs[k] = -1.0;
	for (int i = 0; i < world->clothCapacity; ++i) {
		if (world->cloths[i].generation != 0)
			wfClothBeginFrame(world, &world->cloths[i]);
	}
	wfCollidersBeginFrame(world, params);
}

void wfWorldEndFrame(wfWorld* world, const wfFrameParams* params)
{
	wfCollidersEndFrame(world);
	for (int i = 0; i < world->clothCapacity; ++i) {
		if (world->cloths[i].generation != 0)
			wfClothEndFrame(world, &world->cloths[i]);
	}
	world->time += (double)params->h * params->substeps;
	if (world->def.sphere.moving)
		world->sphereTime += (double)params->h * params->substeps;
}

wfResult wfWorldTear(wfWorld* world)
{
	// From the host positions (a GPU cloth is read back first); the new model goes to the backend whole.
	for (int i = 0; i < world->clothCapacity; ++i) {
		wfCloth* c = &world->cloths[i];
		if (c->generation == 0 || !(c->material.tearStrain > 0.0f) || c->verdict != WF_FRAME_GOOD)
			continue;
		const wfResult r = wfClothTear(world, c);
		if (r != WF_OK)
			return r;
	}
	return WF_OK;
}

wfResult wfWorld_Step(wfWorld* world)
{
	if (world == NULL)
		return WF_ERROR_INVALID_ARGUMENT;
	wfFrameParams params;
	wfWorldBeginFrame(world, &params);
	const wfResult r = world->backend->step(world, &params);
	if (r != WF_OK)
		return r;
	wfWorldEndFrame(world, &params);
	return wfWorldTear(world);
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
	if (world != NULL && step != NULL && !wfColliderStepsFit(world, world->colliderCount, step->substeps))
		return WF_ERROR_INVALID_ARGUMENT;
	// The order is the cloths' constraint layout (wfClothModel), built when each was created.
	if (world != NULL && step != NULL && step->order != world->def.step.order && world->clothCount > 0)
		return wfSetError(world, WF_ERROR_INVALID_DEF, "step.order: fixed while the world has cloths (allowed: %s, as set)",
			wfEnumName(&wfOrderTable, (int)world->def.step.order));
	APPLY_SETTER(wfValidateStepDef, world->def.step, step);
}

wfResult wfWorld_SetGravity(wfWorld* world, wfVec3 gravity) { APPLY_SETTER(wfValidateGravity, world->def.gravity, &gravity); }

wfResult wfWorld_SetSphere(wfWorld* world, const wfSphereDef* sphere) { APPLY_SETTER(wfValidateSphere, world->def.sphere, sphere); }

wfResult wfWorld_SetSphereMoving(wfWorld* world, bool moving)
{
	if (world == NULL)
		return WF_ERROR_INVALID_ARGUMENT;
	world->def.sphere.moving = moving;
	return WF_OK;
}

wfResult wfWorld_SetFloor(wfWorld* world, const wfFloorDef* floor) { APPLY_SETTER(wfValidateFloor, world->def.floor, floor); }

wfResult wfWorld_SetWind(wfWorld* world, const wfWindDef* wind) { APPLY_SETTER(wfValidateWind, world->def.wind, wind); }

wfResult wfWorld_SetContact(wfWorld* world, const wfContactDef* contact) { APPLY_SETTER(wfValidateContact, world->def.contact, contact); }

wfResult wfWorld_SetSelfCollision(wfWorld* world, const wfSelfCollisionDef* sc)
{
	char msg[256];
	if (world == NULL)
		return WF_ERROR_INVALID_ARGUMENT;
	if (sc == NULL)
		return wfSetError(world, WF_ERROR_INVALID_ARGUMENT, "%s: sc: NULL", __func__);
	if (!wfValidateSelfCollision(sc, msg, (int)sizeof msg))
		return wfSetError(world, WF_ERROR_INVALID_DEF, "%s", msg);
	const wfSelfCollisionDef* now = &world->def.selfCollision;
	if (world->backendType == WF_BACKEND_VULKAN && (sc->enabled != now->enabled || sc->betweenCloths != now->betweenCloths))
		return wfSetError(world, WF_ERROR_INVALID_DEF,
			"selfCollision.%s: fixed at creation on a Vulkan world (it chooses the contact buffers and the "
			"per-range path; allowed: %s, as created)",
			sc->enabled != now->enabled ? "enabled" : "betweenCloths",
			(sc->enabled != now->enabled ? now->enabled : now->betweenCloths) ? "true" : "false");
	const wfSelfCollisionDef self = wfSelfContact(world, sc, 0.0); // the thickness resolved
	for (int i = 0; sc->enabled && i < world->clothCapacity; ++i) {
		const wfCloth* c = &world->cloths[i];
		if (c->generation != 0 && !wfSelfThicknessFits(&self, c->meanEdge, i, msg, (int)sizeof msg))
			return wfSetError(world, WF_ERROR_INVALID_DEF, "%s", msg);
	}
	// Room first (the hash grid of each cloth, the backend's contacts), so that a failure changes nothing.
	for (int i = 0; sc->enabled && i < world->clothCapacity; ++i) {
		wfCloth* c = &world->cloths[i];
		if (c->generation != 0 && !wfClothReserveSelf(c))
			return wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "selfCollision: out of memory for cloth %d's hash grid", i);
	}
	if (world->backend->setSelfCollision != NULL) {
		wfResult r = world->backend->setSelfCollision(world, &self);
		if (r != WF_OK)
			return r;
	}
	// A setting made thin that was not: the warning once (not at every move of a slider).
	const wfSelfCollisionDef before = world->selfContact;
	const bool changed = before.enabled != self.enabled || before.thickness != self.thickness ||
		before.pointTriangle != self.pointTriangle || before.edgeEdge != self.edgeEdge;
	world->def.selfCollision = *sc;
	world->selfContact = self;
	for (int i = 0; changed && i < world->clothCapacity; ++i) {
		const wfCloth* c = &world->cloths[i];
		if (c->generation != 0)
			wfWarnThinSelfContact(world, &before, &self, c->meanEdge, i);
	}
	return WF_OK;
}

float wfWorld_GetSelfThickness(const wfWorld* world) { return world != NULL ? world->selfContact.thickness : 0.0f; }

// ------------------------------------------------------------------ profile

// Bytes a frame must move if every kernel reads and writes its data exactly once (no cache reuse
// across kernels): the algorithm's traffic, the same for every backend. 16-byte particle records,
// 16-byte constraint records, 4-byte multipliers, 8-byte adjacency entries.
// The contact pass of n particles over a hash of `cells` cells (wfSelfCollisionDef), each array
// read and written once: the counts cleared (4 a cell), the scan (the counts read and written on
// the way up and again on the way down: 16), the cells' sort and the gather's cell starts (4 + 4);
// per particle `perParticle` bytes. Self-collision: keys and ranks (read pos, write key and rank,
// the count's atomic: 32), scatter (16), the sort's lists (8), the gather (read pos, rest, prev and
// the sorted list, write delta: 68), the move in finish (16): 140. Cloth against cloth adds the
// copy into the world's arrays (read pos and prev, write X, motion, owner: 68) and reads X,
// motion and owner in the gather, then moves positions and velocities (80): 260.
static double ContactBytes(double n, double cells, double perParticle) { return cells * 28.0 + n * perParticle; }

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
	if (world->def.selfCollision.enabled)
		substep += ContactBytes(n, c->state.hashSize, 140.0);
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
	p.threads = world->teamThreads;
	p.threadRowsMin = world->teamRowsMin;
	p.threadRowsMax = world->teamRowsMax;
	p.threadBusyMinMs = world->teamBusyMinMs;
	p.threadBusyMaxMs = world->teamBusyMaxMs;
	const wfStepDef* s = &world->def.step;
	for (int i = 0; i < world->clothCapacity; ++i) {
		const wfCloth* c = &world->cloths[i];
		if (c->generation == 0)
			continue;
		p.bytesPerFrame += ModelBytesPerFrame(world, c);
		p.projectionsPerFrame += (double)c->model.constraintCount * s->substeps * (s->solver == WF_SOLVER_SPRINGS ? 1 : s->iterations);
	}
	if (world->def.selfCollision.betweenCloths) {
		// One hash over every particle of the world a substep (its size as the capacity's rule gives
		// when no cloth was removed: the smallest power of two >= 2 particles).
		double particles = 0.0, cells = 1.0;
		for (int i = 0; i < world->clothCapacity; ++i)
			particles += world->cloths[i].generation != 0 ? world->cloths[i].model.particleCount : 0;
		while (cells < 2.0 * particles)
			cells *= 2.0;
		p.bytesPerFrame += s->substeps * ContactBytes(particles, cells, 260.0);
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
// Layout: header, then per live cloth (in slot order) its local frame's origin (3 doubles), its
// particle count and topology (wfClothInfo.topology; two int32), local positions (xyzw) and
// velocities (xyzw). A snapshot holds no model: restoring it into a cloth that has torn since (or
// was reset after a tear) is refused by name, the world left as it was.

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
			size += 3 * sizeof(double) + 2 * sizeof(int32_t) + (size_t)world->cloths[i].model.particleCount * 2 * sizeof(wfVec4);
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
		const int32_t shape[2] = {c->model.particleCount, c->topology};
		memcpy(out, shape, sizeof shape);
		out += sizeof shape;
		memcpy(out, c->state.pos, bytes);
		memcpy(out + bytes, c->state.vel, bytes);
		out += 2 * bytes;
	}
	return WF_OK;
}

static uint64_t Fnv1a(uint64_t h, const void* data, size_t bytes)
{
	const unsigned char* b = (const unsigned char*)data;
	for (size_t i = 0; i < bytes; ++i)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

wfResult wfWorld_GetStateHash(wfWorld* world, uint64_t* hash)
{
	if (world == NULL || hash == NULL)
		return world == NULL ? WF_ERROR_INVALID_ARGUMENT : wfSetError(world, WF_ERROR_INVALID_ARGUMENT, "state hash: hash is NULL");
	uint64_t h = 0xcbf29ce484222325ull;
	h = Fnv1a(h, &world->time, sizeof world->time);
	h = Fnv1a(h, &world->sphereTime, sizeof world->sphereTime);
	for (int i = 0; i < world->clothCapacity; ++i) {
		wfCloth* c = &world->cloths[i];
		if (c->generation == 0)
			continue;
		wfResult r = wfSyncHost(world, c);
		if (r != WF_OK)
			return r;
		const int32_t shape[2] = {c->model.particleCount, c->topology};
		h = Fnv1a(h, c->origin, sizeof c->origin);
		h = Fnv1a(h, shape, sizeof shape);
		h = Fnv1a(h, c->state.pos, (size_t)c->model.particleCount * sizeof(wfVec4));
		for (int k = 0; k < c->model.particleCount; ++k)
			h = Fnv1a(h, &c->state.vel[k], 3 * sizeof(float)); // w is not state
	}
	*hash = h;
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
	// A cloth's topology must be the one the snapshot was taken with (before anything changes).
	if (h.magic == WF_SNAPSHOT_MAGIC && h.clothCount == (uint32_t)world->clothCount) {
		const char* at = (const char*)buffer + sizeof h;
		const char* end = (const char*)buffer + (size < h.payload ? size : h.payload);
		for (int i = 0; i < world->clothCapacity; ++i) {
			const wfCloth* c = &world->cloths[i];
			if (c->generation == 0)
				continue;
			int32_t shape[2];
			if (at + sizeof c->origin + sizeof shape > end)
				break;
			memcpy(shape, at + sizeof c->origin, sizeof shape);
			if (shape[0] != c->model.particleCount || shape[1] != c->topology)
				return wfSetError(world, WF_ERROR_INVALID_ARGUMENT,
					"snapshot: cloth %d was saved with topology %d (%d particles) and has topology %d (%d particles) now: it "
					"tore (or was reset after a tear) since; a snapshot restores only the mesh it was taken with",
					c->index, (int)shape[1], (int)shape[0], c->topology, c->model.particleCount);
			at += sizeof c->origin + sizeof shape + (size_t)shape[0] * 2 * sizeof(wfVec4);
		}
	}
	if (h.magic != WF_SNAPSHOT_MAGIC || h.payload != need || size < need || h.clothCount != (uint32_t)world->clothCount)
		return wfSetError(world, WF_ERROR_INVALID_ARGUMENT, "snapshot: does not match this world's cloths");
	const char* in = (const char*)buffer + sizeof h;
	for (int i = 0; i < world->clothCapacity; ++i) {
		wfCloth* c = &world->cloths[i];
		if (c->generation == 0)
			continue;
		size_t bytes = (size_t)c->model.particleCount * sizeof(wfVec4);
		memcpy(c->origin, in, sizeof c->origin);
		in += sizeof c->origin + 2 * sizeof(int32_t);
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
