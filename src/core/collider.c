// Colliders: spheres, tapered capsules, boxes and planes with poses that move (sine motion on the
// world clock, or the base pose set from the API every frame). The core works out each frame's
// start and end poses in double; a backend asks for a collider at a substep in a cloth's local
// frame (wfShapeAt) and pushes particles out of it.
#include "internal.h"
#include "names.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double kTwoPi = 6.28318530717958647692;

static void KeyPose(const wfColliderDef* d, double t, double position[3], wfQuat* rotation);

static bool Finite3(wfVec3 v, float limit) { return fabsf(v.x) <= limit && fabsf(v.y) <= limit && fabsf(v.z) <= limit; }

static bool UnitQuat(wfQuat q, wfQuat* out)
{
	double n = sqrt((double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z + (double)q.w * q.w);
	if (!(n > 1e-6 && n < 1e6))
		return false;
	*out = (wfQuat){(float)(q.x / n), (float)(q.y / n), (float)(q.z / n), (float)(q.w / n)};
	return true;
}

bool wfValidateColliderDef(const wfColliderDef* d, char* error, int errorSize)
{
	if (d->internalValue != WF_COLLIDER_COOKIE) {
		snprintf(error, (size_t)errorSize, "collider def: not initialised with wfDefaultColliderDef()");
		return false;
	}
	// The table's ranges (the radii and extents of the collider's type), then the rules.
	int count = 0;
	const wfFieldInfo* fields = wfDefFields(WF_DEF_COLLIDER, &count);
	char path[64], lo[24], hi[24];
	for (int i = 0; i < count; ++i) {
		const wfFieldInfo* f = &fields[i];
		snprintf(path, sizeof path, "collider.%s", f->name);
		if ((f->onlyFor == 0 || (f->onlyFor & (1u << (unsigned)d->type)) != 0) &&
			!wfCheckField(f, (const char*)d + f->offset, path, error, errorSize))
			return false;
	}
	const wfFieldInfo* position = wfFindDefField(WF_DEF_COLLIDER, "position");
	const wfFieldInfo* amplitude = wfFindDefField(WF_DEF_COLLIDER, "amplitude");
	if (!Finite3(d->position, position->max)) {
		snprintf(error, (size_t)errorSize, "collider.position: must be finite and within %s m", wfFormatBound(position->max, hi));
		return false;
	}
	wfQuat q;
	if (!UnitQuat(d->rotation, &q)) {
		snprintf(error, (size_t)errorSize, "collider.rotation: (%g, %g, %g, %g) is not a rotation (length in (1e-6, 1e6))",
			(double)d->rotation.x, (double)d->rotation.y, (double)d->rotation.z, (double)d->rotation.w);
		return false;
	}
	if (!Finite3(d->amplitude, amplitude->max)) {
		snprintf(error, (size_t)errorSize, "collider.amplitude: each within [%s, %s]", wfFormatBound(amplitude->min, lo),
			wfFormatBound(amplitude->max, hi));
		return false;
	}
	if (d->keyCount < 0 || d->keyCount > WF_MAX_COLLIDER_KEYS || (d->keyCount > 0 && d->keys == NULL)) {
		snprintf(error, (size_t)errorSize, "collider.keyCount: %d%s, allowed [0, %d] with a key array", d->keyCount,
			d->keyCount > 0 && d->keys == NULL ? " without keys" : "", WF_MAX_COLLIDER_KEYS);
		return false;
	}
	const wfFieldInfo* keyTime = wfFindDefField(WF_DEF_COLLIDER_KEY, "time");
	const wfFieldInfo* keyPosition = wfFindDefField(WF_DEF_COLLIDER_KEY, "position");
	for (int k = 0; k < d->keyCount; ++k) {
		const wfColliderKey* key = &d->keys[k];
		if (!(fabsf(key->time) <= keyTime->max) || (k > 0 && !(key->time > d->keys[k - 1].time))) {
			snprintf(error, (size_t)errorSize, "collider.keys[%d].time: %g, the times must be finite and increase from key to key", k,
				(double)key->time);
			return false;
		}
		if (!Finite3(key->position, keyPosition->max)) {
			snprintf(error, (size_t)errorSize, "collider.keys[%d].position: must be finite and within %s m", k,
				wfFormatBound(keyPosition->max, hi));
			return false;
		}
		if (!UnitQuat(key->rotation, &q)) {
			snprintf(error, (size_t)errorSize, "collider.keys[%d].rotation: not a rotation (length in (1e-6, 1e6))", k);
			return false;
		}
	}
	if (d->loop && d->keyCount > 0 && !(d->keys[d->keyCount - 1].time > 0.0f && d->keys[0].time >= 0.0f)) {
		snprintf(error, (size_t)errorSize, "collider.loop: the keys must start at time >= 0 and end after 0 (the loop's period)");
		return false;
	}
	if (d->type != WF_COLLIDER_MESH && (d->mesh != NULL || d->keyPositions != NULL)) {
		snprintf(error, (size_t)errorSize, "collider.%s: only for type mesh (this one: %s; allowed: NULL)",
			d->mesh != NULL ? "mesh" : "keyPositions", wfColliderTypeName(d->type));
		return false;
	}
	return d->type != WF_COLLIDER_MESH || wfValidateMeshBodyDef(d, error, errorSize);
}

bool wfColliderStepsFit(wfWorld* world, int colliders, int substeps)
{
	if (world->backendType != WF_BACKEND_VULKAN || (int64_t)colliders * substeps <= WF_MAX_COLLIDER_STEPS)
		return true;
	wfSetError(world, WF_ERROR_INVALID_ARGUMENT,
		"colliders x substeps: %d x %d, a Vulkan world holds at most %d collider poses a frame (fewer colliders or substeps)", colliders,
		substeps, WF_MAX_COLLIDER_STEPS);
	return false;
}

static wfColliderSlot* GetCollider(wfColliderId id)
{
	if (id.world == NULL || id.index < 0 || id.index >= id.world->colliderCapacity)
		return NULL;
	wfColliderSlot* s = &id.world->colliders[id.index];
	return s->generation == id.generation && s->generation != 0 ? s : NULL;
}

bool wfColliderId_IsNull(wfColliderId id) { return id.world == NULL || id.index < 0; }

wfMeshBody* wfAttachedBody(const wfWorld* world, const wfCloth* c)
{
	(void)world;
	const wfColliderSlot* s = c->attachCount > 0 ? GetCollider(c->attachBody) : NULL;
	return s != NULL ? s->body : NULL;
}

wfColliderId wfCreateCollider(wfWorld* world, const wfColliderDef* def)
{
	wfColliderId nullId = {world, -1, 0};
	char msg[256];
	if (world == NULL)
		return nullId;
	if (def == NULL) {
		wfSetError(world, WF_ERROR_INVALID_DEF, "collider def: NULL");
		return nullId;
	}
	if (!wfValidateColliderDef(def, msg, (int)sizeof msg)) {
		wfSetError(world, WF_ERROR_INVALID_DEF, "%s", msg);
		return nullId;
	}
	if (world->colliderCount >= WF_MAX_COLLIDERS) {
		wfSetError(world, WF_ERROR_INVALID_ARGUMENT, "collider: a world takes at most %d", WF_MAX_COLLIDERS);
		return nullId;
	}
	if (!wfColliderStepsFit(world, world->colliderCount + 1, world->def.step.substeps))
		return nullId;
	wfMeshBody* body = NULL;
	if (def->type == WF_COLLIDER_MESH && (body = wfMeshBodyCreate(def, msg, (int)sizeof msg)) == NULL) {
		wfSetError(world, WF_ERROR_INVALID_DEF, "%s", msg);
		return nullId;
	}
	int slot = -1;
	for (int i = 0; i < world->colliderCapacity && slot < 0; ++i) {
		if (world->colliders[i].generation == 0)
			slot = i;
	}
	if (slot < 0) {
		int capacity = world->colliderCapacity > 0 ? 2 * world->colliderCapacity : 4;
		wfColliderSlot* grown = (wfColliderSlot*)realloc(world->colliders, (size_t)capacity * sizeof *grown);
		if (grown == NULL) {
			wfMeshBodyFree(body);
			wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "collider: out of memory");
			return nullId;
		}
		memset(grown + world->colliderCapacity, 0, (size_t)(capacity - world->colliderCapacity) * sizeof *grown);
		slot = world->colliderCapacity;
		world->colliders = grown;
		world->colliderCapacity = capacity;
	}
	wfColliderSlot* s = &world->colliders[slot];
	memset(s, 0, sizeof *s);
	s->def = *def;
	UnitQuat(def->rotation, &s->rotation);
	s->def.rotation = s->rotation;
	s->base[0] = s->target[0] = def->position.x;
	s->base[1] = s->target[1] = def->position.y;
	s->base[2] = s->target[2] = def->position.z;
	s->targetRotation = s->rotation;
	s->body = body;
	s->def.mesh = NULL; // the body holds the mesh (wfCollider_GetMeshVertices)
	s->def.keyPositions = NULL;
	s->def.keyPositionCount = 0;
	if (def->keyCount > 0) {
		s->keys = (wfColliderKey*)malloc((size_t)def->keyCount * sizeof(wfColliderKey));
		if (s->keys == NULL) {
			wfMeshBodyFree(body);
			memset(s, 0, sizeof *s);
			wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "collider: out of memory for %d keys", def->keyCount);
			return nullId;
		}
		for (int k = 0; k < def->keyCount; ++k) {
			s->keys[k] = def->keys[k];
			UnitQuat(def->keys[k].rotation, &s->keys[k].rotation);
		}
		s->def.keys = s->keys;
	}
	s->generation = wfNextGeneration();
	world->colliderCount++;
	world->meshColliderCount += body != NULL;
	return (wfColliderId){world, slot, s->generation};
}

void wfDestroyCollider(wfColliderId id)
{
	wfColliderSlot* s = GetCollider(id);
	if (s == NULL)
		return;
	free(s->keys);
	id.world->meshColliderCount -= s->body != NULL;
	wfMeshBodyFree(s->body);
	memset(s, 0, sizeof *s);
	id.world->colliderCount--;
}

void wfFreeColliders(wfWorld* world)
{
	for (int i = 0; i < world->colliderCapacity; ++i) {
		free(world->colliders[i].keys);
		wfMeshBodyFree(world->colliders[i].body);
	}
	free(world->colliders);
	world->colliders = NULL;
	world->colliderCapacity = world->colliderCount = world->meshColliderCount = 0;
}

int wfWorld_GetColliderCount(const wfWorld* world) { return world != NULL ? world->colliderCount : 0; }

int wfWorld_GetColliders(const wfWorld* world, wfColliderId* out, int capacity)
{
	if (world == NULL)
		return 0;
	int n = 0;
	for (int i = 0; i < world->colliderCapacity; ++i) {
		if (world->colliders[i].generation == 0)
			continue;
		if (out != NULL && n < capacity)
			out[n] = (wfColliderId){(wfWorld*)world, i, world->colliders[i].generation};
		n++;
	}
	return n;
}

wfColliderDef wfCollider_GetDef(wfColliderId id)
{
	wfColliderSlot* s = GetCollider(id);
	return s != NULL ? s->def : wfDefaultColliderDef();
}

wfResult wfCollider_SetTransform(wfColliderId id, wfVec3 position, wfQuat rotation)
{
	wfColliderSlot* s = GetCollider(id);
	if (s == NULL)
		return id.world != NULL ? wfSetError(id.world, WF_ERROR_INVALID_ARGUMENT, "stale or null collider id") : WF_ERROR_INVALID_ARGUMENT;
	wfQuat q;
	if (s->def.keyCount > 0)
		return wfSetError(id.world, WF_ERROR_INVALID_ARGUMENT,
			"collider: its keyframes move it (SetTransform moves colliders without keys)");
	if (!Finite3(position, 1e6f))
		return wfSetError(id.world, WF_ERROR_INVALID_ARGUMENT, "collider position: (%g, %g, %g) must be finite and within 1e6 m",
			(double)position.x, (double)position.y, (double)position.z);
	if (!UnitQuat(rotation, &q))
		return wfSetError(id.world, WF_ERROR_INVALID_ARGUMENT, "collider rotation: not a rotation (length in (1e-6, 1e6))");
	s->target[0] = position.x;
	s->target[1] = position.y;
	s->target[2] = position.z;
	s->targetRotation = q;
	return WF_OK;
}

wfResult wfCollider_SetMeshVertices(wfColliderId id, const wfVec3* positions, int count)
{
	wfColliderSlot* s = GetCollider(id);
	if (s == NULL)
		return id.world != NULL ? wfSetError(id.world, WF_ERROR_INVALID_ARGUMENT, "stale or null collider id") : WF_ERROR_INVALID_ARGUMENT;
	wfMeshBody* b = s->body;
	if (b == NULL)
		return wfSetError(id.world, WF_ERROR_INVALID_ARGUMENT, "wfCollider_SetMeshVertices: the collider is a %s, not a mesh",
			wfColliderTypeName(s->def.type));
	if (b->keyCount > 0)
		return wfSetError(id.world, WF_ERROR_INVALID_ARGUMENT, "wfCollider_SetMeshVertices: the collider's keyPositions shape it");
	if (positions == NULL || count != b->vertexCount)
		return wfSetError(id.world, WF_ERROR_INVALID_ARGUMENT, "wfCollider_SetMeshVertices: count %d%s, the mesh has %d vertices", count,
			positions == NULL ? " with positions NULL" : "", b->vertexCount);
	for (int i = 0; i < count; ++i) {
		if (!Finite3(positions[i], 1e6f))
			return wfSetError(id.world, WF_ERROR_INVALID_ARGUMENT,
				"wfCollider_SetMeshVertices: positions[%d] (%g, %g, %g) must be finite and within 1e6 m", i, (double)positions[i].x,
				(double)positions[i].y, (double)positions[i].z);
	}
	for (int i = 0; i < count; ++i) {
		b->target[3 * i] = positions[i].x;
		b->target[3 * i + 1] = positions[i].y;
		b->target[3 * i + 2] = positions[i].z;
	}
	return WF_OK;
}

int wfCollider_GetMeshVertices(wfColliderId id, wfVec3* out, int capacity)
{
	const wfColliderSlot* s = GetCollider(id);
	if (s == NULL || s->body == NULL)
		return 0;
	for (int i = 0; out != NULL && i < s->body->vertexCount && i < capacity; ++i)
		out[i] = (wfVec3){s->body->shape[3 * i], s->body->shape[3 * i + 1], s->body->shape[3 * i + 2]};
	return s->body->vertexCount;
}

int wfCollider_GetMeshTriangles(wfColliderId id, uint32_t* out, int capacity)
{
	const wfColliderSlot* s = GetCollider(id);
	if (s == NULL || s->body == NULL)
		return 0;
	for (int i = 0; out != NULL && i < 3 * s->body->triangleCount && i < capacity; ++i)
		out[i] = s->body->tri[i];
	return s->body->triangleCount;
}

// The sine motion at world time t.
static void Motion(const wfColliderDef* d, double t, double out[3])
{
	double s = d->frequency > 0.0f ? (double)wfSinf((float)(kTwoPi * d->frequency * t)) : 0.0;
	out[0] = d->amplitude.x * s;
	out[1] = d->amplitude.y * s;
	out[2] = d->amplitude.z * s;
}

wfResult wfCollider_GetTransform(wfColliderId id, wfVec3* position, wfQuat* rotation)
{
	wfColliderSlot* s = GetCollider(id);
	if (s == NULL)
		return id.world != NULL ? wfSetError(id.world, WF_ERROR_INVALID_ARGUMENT, "stale or null collider id") : WF_ERROR_INVALID_ARGUMENT;
	double m[3], base[3] = {s->base[0], s->base[1], s->base[2]};
	wfQuat q = s->rotation;
	Motion(&s->def, id.world->time, m);
	if (s->def.keyCount > 0)
		KeyPose(&s->def, id.world->time, base, &q);
	if (position != NULL)
		*position = (wfVec3){(float)(base[0] + m[0]), (float)(base[1] + m[1]), (float)(base[2] + m[2])};
	if (rotation != NULL)
		*rotation = q;
	return WF_OK;
}

// Normalised lerp between unit quaternions, along the shorter arc.
static wfQuat Nlerp(wfQuat a, wfQuat b, double s)
{
	double dot = (double)a.x * b.x + (double)a.y * b.y + (double)a.z * b.z + (double)a.w * b.w;
	double sign = dot < 0.0 ? -1.0 : 1.0;
	double q[4] = {a.x + s * (sign * b.x - a.x), a.y + s * (sign * b.y - a.y), a.z + s * (sign * b.z - a.z), a.w + s * (sign * b.w - a.w)};
	double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
	return (wfQuat){(float)(q[0] / n), (float)(q[1] / n), (float)(q[2] / n), (float)(q[3] / n)};
}

// The keyframed base pose at world time t (wfColliderDef.keys): held before the first key and
// after the last, or repeating every last key's time with loop.
// The keys around world time t: key *i blended into key *next at fraction *s.
static void KeySpan(const wfColliderDef* d, double t, int* i, int* next, double* s)
{
	const wfColliderKey* k = d->keys;
	const int n = d->keyCount;
	if (d->loop)
		t = fmod(t, (double)k[n - 1].time);
	*i = 0;
	while (*i + 1 < n && (double)k[*i + 1].time <= t)
		++*i;
	*s = 0.0;
	if (*i + 1 < n && t > (double)k[*i].time)
		*s = (t - (double)k[*i].time) / ((double)k[*i + 1].time - (double)k[*i].time);
	if (d->interpolation == WF_INTERPOLATE_SMOOTHSTEP)
		*s = *s * *s * (3.0 - 2.0 * *s);
	*next = *i + 1 < n ? *i + 1 : *i;
}

static void KeyPose(const wfColliderDef* d, double t, double position[3], wfQuat* rotation)
{
	const wfColliderKey* k = d->keys;
	int i, next;
	double s;
	KeySpan(d, t, &i, &next, &s);
	const wfColliderKey* b = &k[next];
	position[0] = k[i].position.x + s * ((double)b->position.x - k[i].position.x);
	position[1] = k[i].position.y + s * ((double)b->position.y - k[i].position.y);
	position[2] = k[i].position.z + s * ((double)b->position.z - k[i].position.z);
	*rotation = s > 0.0 ? Nlerp(k[i].rotation, b->rotation, s) : k[i].rotation;
}

// The angular velocity that turns a into b in time dt: 2 log(b conj(a)) / dt.
static wfVec3 AngularVelocity(wfQuat a, wfQuat b, double dt)
{
	// d = b * conj(a)
	double ax = -a.x, ay = -a.y, az = -a.z, aw = a.w;
	double dx = b.w * ax + b.x * aw + b.y * az - b.z * ay;
	double dy = b.w * ay - b.x * az + b.y * aw + b.z * ax;
	double dz = b.w * az + b.x * ay - b.y * ax + b.z * aw;
	double dw = b.w * aw - b.x * ax - b.y * ay - b.z * az;
	if (dw < 0.0) {
		dx = -dx;
		dy = -dy;
		dz = -dz;
		dw = -dw;
	}
	double s = sqrt(dx * dx + dy * dy + dz * dz);
	if (s < 1e-12 || dt <= 0.0)
		return (wfVec3){0.0f, 0.0f, 0.0f};
	double angle = 2.0 * atan2(s, dw);
	double k = angle / (s * dt);
	return (wfVec3){(float)(dx * k), (float)(dy * k), (float)(dz * k)};
}

void wfCollidersBeginFrame(wfWorld* world, const wfFrameParams* p)
{
	const double dt = (double)p->h * p->substeps;
	int n = 0;
	// The world's sphere and floor first (the order their collisions always had): still axes, no
	// spin; the sphere's centre moves by wfSphereMotionAt on its own clock (wfShapeStep), the floor
	// is the plane y = height.
	if (p->sphere.enabled) {
		const wfVec3 c = p->sphere.center;
		world->colliderFrame[n++] = (wfColliderFrame){.type = WF_COLLIDER_SPHERE,
			.world = true,
			.start = {c.x, c.y, c.z},
			.end = {c.x, c.y, c.z},
			.q0 = {0.0f, 0.0f, 0.0f, 1.0f},
			.q1 = {0.0f, 0.0f, 0.0f, 1.0f},
			.radius = p->sphere.radius,
			.radius1 = p->sphere.radius};
	}
	if (p->floor.enabled) {
		world->colliderFrame[n++] = (wfColliderFrame){.type = WF_COLLIDER_PLANE,
			.world = true,
			.start = {0.0, p->floor.height, 0.0},
			.end = {0.0, p->floor.height, 0.0},
			.q0 = {0.0f, 0.0f, 0.0f, 1.0f},
			.q1 = {0.0f, 0.0f, 0.0f, 1.0f}};
	}
	world->worldShapes = n;
	for (int i = 0; i < world->colliderCapacity; ++i) {
		const wfColliderSlot* s = &world->colliders[i];
		if (s->generation == 0)
			continue;
		wfColliderFrame* f = &world->colliderFrame[n++];
		f->world = false;
		double m0[3], m1[3];
		Motion(&s->def, p->time, m0);
		Motion(&s->def, p->time + dt, m1);
		double b0[3] = {s->base[0], s->base[1], s->base[2]}, b1[3] = {s->target[0], s->target[1], s->target[2]};
		f->q0 = s->rotation;
		f->q1 = s->targetRotation;
		if (s->def.keyCount > 0) {
			KeyPose(&s->def, p->time, b0, &f->q0);
			KeyPose(&s->def, p->time + dt, b1, &f->q1);
		}
		for (int k = 0; k < 3; ++k) {
			f->start[k] = b0[k] + m0[k];
			f->end[k] = b1[k] + m1[k];
		}
		f->type = s->def.type;
		f->radius = s->def.radius;
		f->radius1 = s->def.type == WF_COLLIDER_SPHERE ? s->def.radius : s->def.radius1;
		f->halfLength = s->def.type == WF_COLLIDER_CAPSULE ? s->def.halfLength : 0.0f;
		f->halfExtents = s->def.halfExtents;
		f->velocity = (wfVec3){(float)((f->end[0] - f->start[0]) / dt), (float)((f->end[1] - f->start[1]) / dt),
			(float)((f->end[2] - f->start[2]) / dt)};
		f->omega = AngularVelocity(f->q0, f->q1, dt);
		f->body = s->body;
		f->vertexSpeed = 0.0f;
		if (s->body != NULL) {
			// The shape now and at the frame's end: from the keys, or the one last set.
			wfMeshBody* b = s->body;
			if (b->keyCount > 0) {
				int key, next;
				double u;
				KeySpan(&s->def, p->time, &key, &next, &u);
				wfMeshBodyKeyShape(b, key, next, u, b->shape);
				KeySpan(&s->def, p->time + dt, &key, &next, &u);
				wfMeshBodyKeyShape(b, key, next, u, b->next);
			} else {
				memcpy(b->next, b->target, 3 * (size_t)b->vertexCount * sizeof(float));
			}
			wfMeshBodyBeginFrame(b, f->start, f->q0, f->end, f->q1, b->shape, b->next, dt, &f->vertexSpeed);
		}
	}
	world->colliderFrameCount = n;
}

void wfCollidersEndFrame(wfWorld* world)
{
	for (int i = 0; i < world->colliderCapacity; ++i) {
		wfColliderSlot* s = &world->colliders[i];
		if (s->generation == 0)
			continue;
		memcpy(s->base, s->target, sizeof s->base);
		s->rotation = s->targetRotation;
		if (s->body != NULL)
			memcpy(s->body->shape, s->body->next, 3 * (size_t)s->body->vertexCount * sizeof(float));
	}
}

void wfShapeBase(const wfWorld* world, const wfCloth* c, int k, float base[3])
{
	const wfColliderFrame* f = &world->colliderFrame[k];
	const double o[3] = {c->origin[0] + c->local.shift.x, c->origin[1] + c->local.shift.y, c->origin[2] + c->local.shift.z};
	for (int i = 0; i < 3; ++i)
		base[i] = (float)(f->start[i] - o[i]);
}

void wfShapeStep(const wfWorld* world, int k, const wfFrameParams* p, int substep, float move[3], float axes[9])
{
	const wfColliderFrame* f = &world->colliderFrame[k];
	if (f->world) {
		// The sphere's displacement of the substep (as wfLocalSphereCenter), the floor's none.
		const wfVec3 m = f->type == WF_COLLIDER_SPHERE ? wfSphereMotionAt(p, substep) : (wfVec3){0.0f, 0.0f, 0.0f};
		const float still[9] = {1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f};
		move[0] = m.x;
		move[1] = m.y;
		move[2] = m.z;
		memcpy(axes, still, sizeof still);
		return;
	}
	const double s = (double)(substep + 1) / (double)p->substeps;
	for (int i = 0; i < 3; ++i)
		move[i] = (float)((f->end[i] - f->start[i]) * s);
	double m[9];
	wfQuatAxes(Nlerp(f->q0, f->q1, s), m);
	for (int i = 0; i < 9; ++i)
		axes[i] = (float)m[i];
}

void wfQuatAxes(wfQuat q, double axes[9])
{
	const double x = q.x, y = q.y, z = q.z, w = q.w;
	// The rotation's columns: where the local x, y and z axes point.
	const double m[9] = {
		1.0 - 2.0 * (y * y + z * z),
		2.0 * (x * y + z * w),
		2.0 * (x * z - y * w),
		2.0 * (x * y - z * w),
		1.0 - 2.0 * (x * x + z * z),
		2.0 * (y * z + x * w),
		2.0 * (x * z + y * w),
		2.0 * (y * z - x * w),
		1.0 - 2.0 * (x * x + y * y),
	};
	memcpy(axes, m, sizeof m);
}

void wfShapeAt(const wfWorld* world, const wfCloth* c, int k, const wfFrameParams* p, int substep, wfShape* out)
{
	const wfColliderFrame* f = &world->colliderFrame[k];
	// The frame-start centre in the cloth's frame plus the substep's displacement, each rounded to
	// float: the two values the GPU is given.
	float base[3], move[3];
	wfShapeBase(world, c, k, base);
	wfShapeStep(world, k, p, substep, move, out->axes);
	out->type = (int)f->type;
	out->center = (wfVec3){base[0] + move[0], base[1] + move[1], base[2] + move[2]};
	out->radius = f->radius;
	out->radius1 = f->radius1;
	out->halfLength = f->halfLength;
	out->halfExtents = f->halfExtents;
	out->velocity = f->world && f->type == WF_COLLIDER_SPHERE ? wfSphereVelocityAt(p, substep) : f->velocity;
	out->omega = f->omega;
	out->spins = !f->world;
}
