// Cloth: creation from a def, pins, grab, read-back, statistics.
#define _POSIX_C_SOURCE 200809L // sysconf, getrlimit
#include "internal.h"
#include "names.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if !defined(__wasi__)
#include <sys/resource.h>
#include <unistd.h>
#endif

bool wfClothId_IsNull(wfClothId id) { return id.world == NULL || id.index < 0; }

wfCloth* wfGetCloth(wfClothId id)
{
	if (id.world == NULL || id.index < 0 || id.index >= id.world->clothCapacity)
		return NULL;
	wfCloth* c = &id.world->cloths[id.index];
	return c->generation == id.generation && c->generation != 0 ? c : NULL;
}

// pos.w is the inverse mass the solvers see: 0 for pinned and grabbed particles.
void wfClothApplyInverseMass(wfCloth* c)
{
	float w = 1.0f / c->material.mass;
	for (int i = 0; i < c->model.particleCount; ++i)
		c->state.pos[i].w = c->pinned[i] ? 0.0f : w;
	if (c->grabIndex >= 0)
		c->state.pos[c->grabIndex].w = 0.0f;
}

// A mesh's top row: the vertices within 1e-4 of its size of the greatest height; its top corners:
// the two of those with the least and the greatest x.
static void SelectMeshTop(const wfCloth* c, bool corners, uint8_t* out)
{
	const wfVec4* p = c->model.restPositions;
	const int n = c->model.particleCount;
	float top = p[0].y, low = p[0].y, left = p[0].x, right = p[0].x;
	for (int i = 1; i < n; ++i) {
		top = p[i].y > top ? p[i].y : top;
		low = p[i].y < low ? p[i].y : low;
		left = p[i].x < left ? p[i].x : left;
		right = p[i].x > right ? p[i].x : right;
	}
	float size = fmaxf(top - low, right - left), band = 1e-4f * size;
	int first = -1, last = -1;
	for (int i = 0; i < n; ++i) {
		if (p[i].y < top - band)
			continue;
		if (!corners)
			out[i] = 1;
		if (first < 0 || p[i].x < p[first].x)
			first = i;
		if (last < 0 || p[i].x > p[last].x)
			last = i;
	}
	if (corners && first >= 0)
		out[first] = out[last] = 1;
}

// The particles a pin mode picks (pins, attachments): 1 in out (particleCount), others 0.
static void SelectParticles(const wfCloth* c, wfPinMode mode, const int* indices, int count, uint8_t* out)
{
	const int cols = c->model.cols, rows = c->model.rows;
	memset(out, 0, (size_t)c->model.particleCount);
	if (c->model.mesh && (mode == WF_PIN_TOP_ROW || mode == WF_PIN_TOP_CORNERS)) {
		SelectMeshTop(c, mode == WF_PIN_TOP_CORNERS, out);
		return;
	}
	switch (mode) {
	case WF_PIN_NONE:
	case WF_PIN_LIST: break;
	case WF_PIN_TOP_CORNERS: out[0] = out[cols - 1] = 1; break;
	case WF_PIN_TOP_ROW: memset(out, 1, (size_t)cols); break;
	case WF_PIN_CORNERS:
		out[0] = out[cols - 1] = 1;
		out[(rows - 1) * cols] = out[rows * cols - 1] = 1;
		break;
	}
	if (mode == WF_PIN_LIST) {
		for (int i = 0; i < count; ++i)
			out[indices[i]] = 1;
	}
}

static void SetPins(wfCloth* c, wfPinMode mode, const int* indices, int count)
{
	SelectParticles(c, mode, indices, count, c->pinned);
	c->def.pinMode = mode;
}

// The attachments of a new cloth (wfClothDef.attachMode): each picked particle to the closest point
// of the mesh collider's surface where the collider is now.
static wfResult Attach(wfWorld* world, wfCloth* c, const wfClothDef* def)
{
	c->def.attachIndices = NULL;
	c->def.attachCount = 0;
	if (def->attachMode == WF_PIN_NONE)
		return WF_OK;
	wfColliderId ids[WF_MAX_COLLIDERS];
	const int colliders = wfWorld_GetColliders(world, ids, WF_MAX_COLLIDERS);
	if (def->attachCollider >= colliders)
		return wfSetError(world, WF_ERROR_INVALID_DEF, "cloth.attachCollider: %d, the world has %d collider%s (allowed [0, %d])",
			def->attachCollider, colliders, colliders == 1 ? "" : "s", colliders - 1);
	const wfColliderId id = ids[def->attachCollider];
	const wfMeshBody* body = world->colliders[id.index].body;
	if (body == NULL)
		return wfSetError(world, WF_ERROR_INVALID_DEF, "cloth.attachCollider: collider %d is a %s; attachments need a mesh collider",
			def->attachCollider, wfColliderTypeName(world->colliders[id.index].def.type));
	const int n = c->model.particleCount;
	uint8_t* pick = (uint8_t*)malloc((size_t)n);
	double* vertices = (double*)malloc(3 * (size_t)body->vertexCount * sizeof(double));
	int count = 0;
	if (pick != NULL && vertices != NULL) {
		SelectParticles(c, def->attachMode, def->attachIndices, def->attachCount, pick);
		for (int i = 0; i < n; ++i)
			count += pick[i];
		c->attach = (wfAttachment*)malloc((size_t)(count > 0 ? count : 1) * sizeof *c->attach);
	}
	if (c->attach == NULL) {
		free(pick);
		free(vertices);
		return wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "cloth: out of memory for its attachments");
	}
	// The body where it is now: its pose applied to its shape now, in double.
	wfVec3 at;
	wfQuat q;
	wfCollider_GetTransform(id, &at, &q);
	double axes[9];
	wfQuatAxes(q, axes);
	for (int v = 0; v < body->vertexCount; ++v) {
		const double x = body->shape[3 * v], y = body->shape[3 * v + 1], z = body->shape[3 * v + 2];
		for (int k = 0; k < 3; ++k)
			vertices[3 * v + k] = (double)(&at.x)[k] + axes[k] * x + axes[3 + k] * y + axes[6 + k] * z;
	}
	for (int i = 0; i < n; ++i) {
		if (!pick[i])
			continue;
		const wfVec4 l = c->state.pos[i];
		const double p[3] = {c->origin[0] + l.x, c->origin[1] + l.y, c->origin[2] + l.z};
		wfAttachment* a = &c->attach[c->attachCount++];
		a->particle = i;
		wfMeshBodyClosest(body, vertices, p, a);
	}
	c->attachBody = id;
	free(pick);
	free(vertices);
	return WF_OK;
}

bool wfClothIsAttached(const wfCloth* c, int i)
{
	int lo = 0, hi = c->attachCount; // the list is in particle order
	while (lo < hi) {
		const int mid = lo + (hi - lo) / 2;
		if (c->attach[mid].particle < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->attachCount && c->attach[lo].particle == i;
}

wfResult wfCloth_SetAttachments(wfClothId id, wfColliderId body, const wfAttachment* list, int count)
{
	wfCloth* c = wfGetCloth(id);
	if (c == NULL)
		return id.world != NULL ? wfSetError(id.world, WF_ERROR_INVALID_ARGUMENT, "stale or null cloth id") : WF_ERROR_INVALID_ARGUMENT;
	wfWorld* world = id.world;
	const wfMeshBody* mesh = NULL;
	if (body.world == world && body.index >= 0 && body.index < world->colliderCapacity &&
		world->colliders[body.index].generation == body.generation && body.generation != 0)
		mesh = world->colliders[body.index].body;
	if (mesh == NULL)
		return wfSetError(world, WF_ERROR_INVALID_ARGUMENT,
			"wfCloth_SetAttachments: body is not a live mesh collider of the cloth's world");
	if (count < 0 || (count > 0 && list == NULL))
		return wfSetError(world, WF_ERROR_INVALID_ARGUMENT, "wfCloth_SetAttachments: count %d without a list", count);
	for (int k = 0; k < count; ++k) {
		const wfAttachment* a = &list[k];
		const float w = 1.0f - a->u - a->v, slack = 1e-3f;
		if (a->particle < 0 || a->particle >= c->model.particleCount || (k > 0 && a->particle <= list[k - 1].particle))
			return wfSetError(world, WF_ERROR_INVALID_ARGUMENT,
				"attachments[%d].particle: %d, allowed [0, %d] in increasing order, each once (the one before: %d)", k, a->particle,
				c->model.particleCount - 1, k > 0 ? list[k - 1].particle : -1);
		if (a->triangle < 0 || a->triangle >= mesh->triangleCount)
			return wfSetError(world, WF_ERROR_INVALID_ARGUMENT,
				"attachments[%d].triangle: %d is out of range [0, %d] (the collider's mesh)", k, a->triangle, mesh->triangleCount - 1);
		if (!(a->u >= -slack && a->u <= 1.0f + slack && a->v >= -slack && a->v <= 1.0f + slack && w >= -slack && w <= 1.0f + slack))
			return wfSetError(world, WF_ERROR_INVALID_ARGUMENT,
				"attachments[%d]: weights u %g, v %g, 1 - u - v %g, each allowed [-0.001, 1.001] (a point of the triangle)", k,
				(double)a->u, (double)a->v, (double)w);
		const wfVec3 o = a->offset;
		if (!(fabsf(o.x) <= 1e3f && fabsf(o.y) <= 1e3f && fabsf(o.z) <= 1e3f))
			return wfSetError(world, WF_ERROR_INVALID_ARGUMENT, "attachments[%d].offset: (%g, %g, %g) must be finite and within 1e3 m", k,
				(double)o.x, (double)o.y, (double)o.z);
	}
	wfAttachment* copy = count > 0 ? (wfAttachment*)malloc((size_t)count * sizeof *copy) : NULL;
	if (count > 0 && copy == NULL)
		return wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "wfCloth_SetAttachments: out of memory for %d attachments", count);
	if (count > 0)
		memcpy(copy, list, (size_t)count * sizeof *copy);
	free(c->attach);
	c->attach = copy;
	c->attachCount = count;
	c->attachBody = body;
	return WF_OK;
}

int wfCloth_GetAttachments(wfClothId id, wfAttachment* out, int capacity)
{
	const wfCloth* c = wfGetCloth(id);
	if (c == NULL)
		return 0;
	for (int i = 0; out != NULL && i < c->attachCount && i < capacity; ++i)
		out[i] = c->attach[i];
	return c->attachCount;
}

bool wfClothReserveSelf(wfCloth* c)
{
	wfClothState* s = &c->state;
	if (s->hashStart != NULL)
		return true;
	const size_t n = (size_t)c->model.particleCount;
	int size = 1;
	while (size < 2 * (int)n)
		size *= 2;
	s->hashSize = size;
	s->hashStart = (int*)wfAlloc((size_t)(size + 1) * sizeof(int));
	s->hashSorted = (int*)wfAlloc(n * sizeof(int));
	s->hashKey = (uint32_t*)wfAlloc(n * sizeof(uint32_t));
	s->selfDelta = (wfVec4*)wfAlloc(n * sizeof(wfVec4));
	if (s->hashStart && s->hashSorted && s->hashKey && s->selfDelta)
		return true;
	wfFree(s->hashStart);
	wfFree(s->hashSorted);
	wfFree(s->hashKey);
	wfFree(s->selfDelta);
	s->hashStart = s->hashSorted = NULL;
	s->hashKey = NULL;
	s->selfDelta = NULL;
	return false;
}

static void ResetState(wfCloth* c)
{
	// The local frame starts at the def's origin, where the rest positions are relative to.
	c->origin[0] = c->def.origin.x;
	c->origin[1] = c->def.origin.y;
	c->origin[2] = c->def.origin.z;
	for (int i = 0; i < c->model.particleCount; ++i) {
		wfVec4 p = c->model.restPositions[i];
		c->state.pos[i] = (wfVec4){p.x, p.y, p.z, 0.0f};
		c->state.vel[i] = (wfVec4){0.0f, 0.0f, 0.0f, 0.0f};
	}
	wfClothApplyInverseMass(c);
	wfClothUpdateReference(c);
	c->hostValid = true;
	c->normalsValid = false;
}

// Whether a grid cloth takes the tile order (wfSolveOrder).
static bool TileOrder(const wfWorld* world, const wfClothDef* def)
{
	switch (world->def.step.order) {
	case WF_ORDER_TILES: return true;
	case WF_ORDER_COLORS: return false;
	default: return world->backendType == WF_BACKEND_VULKAN && !world->cpuDevice && (int64_t)def->cols * def->rows >= WF_TILE_ORDER_FROM;
	}
}

// ------------------------------------------------------------------ memory, before any allocation

// Bytes a cloth holds at the peak of its creation, by what it allocates (docs/design/solvers.md "Memory of a particle"
// has the table): per particle the state (7 x 16: pos, vel, prev, pos2, vel2, normals, aero), the
// pin flags, rest positions, UVs and two row starts; per constraint the record, multiplier, Jacobi
// weight, colour start, two adjacency entries each way, the colouring's scratch and sorted copy; per
// triangle its corners and its three incident-list entries. The CPU backend adds its own positions
// and velocities, the AVX2 layout (ten float arrays over the padded slots, the blocks of 16 lanes of
// rest length and multiplier) and its build scratch; self-collision its hash grid.
static double ClothBytes(const wfWorldDef* wd, const wfClothDef* def)
{
	double n, constraints, triangles;
	if (def->mesh != NULL) {
		// A mesh: at most stretch on every corner's edge, shear on each quad, bending on every edge.
		n = def->mesh->vertexCount > 0 ? def->mesh->vertexCount : 0;
		const double faces = def->mesh->faceCount > 0 ? def->mesh->faceCount : 0;
		constraints = 4.0 * faces * 3.0;
		triangles = 2.0 * faces;
	} else {
		const double cols = def->cols > 0 ? def->cols : 0, rows = def->rows > 0 ? def->rows : 0;
		n = cols * rows;
		constraints = wfGridConstraintCount(def->cols, def->rows, def->structural, def->shear, def->bending);
		triangles = cols > 1 && rows > 1 ? 2.0 * (cols - 1) * (rows - 1) : 0.0;
	}
	const bool cpu = wd == NULL || wd->backend != WF_BACKEND_VULKAN;
	const bool self = wd != NULL && wd->selfCollision.enabled;
	double perParticle = WF_BYTES_PER_PARTICLE + (cpu ? WF_BYTES_PER_PARTICLE_CPU : 0) + (self ? WF_BYTES_PER_PARTICLE_SELF : 0);
	double perConstraint = WF_BYTES_PER_CONSTRAINT + (cpu ? WF_BYTES_PER_CONSTRAINT_CPU : 0);
	return n * perParticle + constraints * perConstraint + triangles * WF_BYTES_PER_TRIANGLE;
}

double wfEstimateClothBytes(const wfWorldDef* world, const wfClothDef* def) { return def != NULL ? ClothBytes(world, def) : 0.0; }

double wfMemoryLimit(const char** what)
{
	const char* unused;
	what = what != NULL ? what : &unused;
	double limit = 0.0;
	*what = "this machine's memory";
#if !defined(__wasi__) // the page's memory is the browser's: no limit known here
	long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
	if (pages > 0 && pageSize > 0)
		limit = (double)pages * (double)pageSize;
	const int resources[] = {RLIMIT_AS, RLIMIT_DATA};
	const char* names[] = {"the address-space limit (ulimit -v)", "the data-size limit (ulimit -d)"};
	for (int i = 0; i < 2; ++i) {
		struct rlimit rl;
		if (getrlimit(resources[i], &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (limit == 0.0 || (double)rl.rlim_cur < limit)) {
			limit = (double)rl.rlim_cur;
			*what = names[i];
		}
	}
#endif
	return limit;
}

// A cloth that cannot fit is refused here, in milliseconds, with the figure: allocating it would
// fail (or be killed) a minute later, somewhere inside the model's build.
static bool CheckHostMemory(wfWorld* world, const wfClothDef* def)
{
	const char* what;
	const double limit = wfMemoryLimit(&what), need = ClothBytes(&world->def, def);
	if (limit <= 0.0 || need <= limit)
		return true;
	const double n = def->mesh != NULL ? (double)def->mesh->vertexCount : (double)def->cols * (double)def->rows;
	char shape[64];
	if (def->mesh != NULL)
		snprintf(shape, sizeof shape, "a mesh of %d vertices", def->mesh->vertexCount);
	else
		snprintf(shape, sizeof shape, "a %d x %d grid", def->cols, def->rows);
	wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "cloth: %s needs about %.1f GB of memory (%.0f bytes per particle), more than %s, %.1f GB",
		shape, need / 1e9, n > 0 ? need / n : 0.0, what, limit / 1e9);
	return false;
}

// The mean rest length of a cloth's stretch constraints (its edges); 0 without any.
static double MeanEdge(const wfClothModel* m)
{
	double sum = 0.0;
	int count = 0;
	for (int k = 0; k < m->constraintCount; ++k) {
		if (m->constraints[k].family == WF_FAMILY_STRETCH) {
			sum += m->constraints[k].rest;
			count++;
		}
	}
	return count > 0 ? sum / count : 0.0;
}

bool wfSelfThicknessFits(const wfSelfCollisionDef* sc, double meanEdge, int cloth, char* error, int errorSize)
{
	const double limit = WF_SELF_THICKNESS_PER_EDGE * meanEdge;
	if (meanEdge <= 0.0 || sc->thickness <= limit)
		return true;
	snprintf(error, (size_t)errorSize,
		"selfCollision.thickness: %g m is more than %g times cloth %d's mean edge (%g m) (allowed: 0, the cloths' own, or 1e-06 to %g m "
		"for it)",
		(double)sc->thickness, (double)WF_SELF_THICKNESS_PER_EDGE, cloth, meanEdge, limit);
	return false;
}

// Whether a setting leaves particle contacts alone to a cloth whose mean edge is `edge`, thinner
// than holds its layers.
static bool ThinFor(const wfSelfCollisionDef* sc, double edge)
{
	return sc != NULL && sc->enabled && !sc->pointTriangle && !sc->edgeEdge && edge > 0.0 &&
		2.0 * (double)sc->thickness < WF_SELF_HOLD_PER_EDGE * edge;
}

void wfWarnThinSelfContact(wfWorld* world, const wfSelfCollisionDef* before, const wfSelfCollisionDef* sc, double meanEdge, int cloth)
{
	const double edge = meanEdge, holds = 0.5 * WF_SELF_HOLD_PER_EDGE * edge;
	if (!ThinFor(sc, edge) || ThinFor(before, edge))
		return;
	const bool derived = world->def.selfCollision.thickness == 0.0f;
	wfLog(world, WF_LOG_WARNING,
		"selfCollision.thickness: %g m%s lets cloth %d pass through itself between its particles: particle contacts alone "
		"hold its layers from %g m (2 x thickness >= %g x its mean edge, %g m); %s (at most %g m)%s or turn on pointTriangle or edgeEdge",
		(double)sc->thickness, derived ? " (0: half the finest cloth's mean edge)" : "", cloth, holds, (double)WF_SELF_HOLD_PER_EDGE, edge,
		derived ? "give it a thickness" : "raise it", (double)WF_SELF_THICKNESS_PER_EDGE * edge,
		derived ? "" : ", set it 0 (half the finest cloth's mean edge)");
}

wfSelfCollisionDef wfSelfContact(const wfWorld* world, const wfSelfCollisionDef* sc, double extraEdge)
{
	wfSelfCollisionDef out = *sc;
	if (sc->thickness > 0.0f)
		return out;
	double finest = extraEdge; // 0: none
	for (int i = 0; i < world->clothCapacity; ++i) {
		const wfCloth* c = &world->cloths[i];
		if (c->generation != 0 && c->meanEdge > 0.0 && (finest == 0.0 || c->meanEdge < finest))
			finest = c->meanEdge;
	}
	out.thickness = finest > 0.0 ? (float)(WF_SELF_AUTO_PER_EDGE * finest) : WF_SELF_THICKNESS_NONE;
	return out;
}

// world->selfContact becomes `now`: the backend told where the thickness changed, the cloths it
// makes thin warned about (but `except`, which its creation warns about).
static wfResult UseSelfContact(wfWorld* world, const wfSelfCollisionDef* now, int except)
{
	const wfSelfCollisionDef before = world->selfContact;
	if (now->thickness != before.thickness && world->backend->setSelfCollision != NULL) {
		const wfResult r = world->backend->setSelfCollision(world, now);
		if (r != WF_OK)
			return r;
	}
	world->selfContact = *now;
	for (int i = 0; now->thickness != before.thickness && i < world->clothCapacity; ++i) {
		const wfCloth* c = &world->cloths[i];
		if (c->generation != 0 && i != except)
			wfWarnThinSelfContact(world, &before, now, c->meanEdge, i);
	}
	return WF_OK;
}

void wfUpdateSelfContact(wfWorld* world)
{
	const wfSelfCollisionDef now = wfSelfContact(world, &world->def.selfCollision, 0.0);
	(void)UseSelfContact(world, &now, -1); // the Vulkan backend's constants cannot fail to be written
}

wfClothId wfCreateCloth(wfWorld* world, const wfClothDef* def)
{
	wfClothId nullId = {world, -1, 0};
	char msg[256];
	if (world == NULL)
		return nullId;
	if (def == NULL) {
		wfSetError(world, WF_ERROR_INVALID_DEF, "cloth def: NULL");
		return nullId;
	}
	if (!wfValidateClothDef(def, msg, (int)sizeof msg)) {
		wfSetError(world, WF_ERROR_INVALID_DEF, "%s", msg);
		return nullId;
	}
	if (!CheckHostMemory(world, def))
		return nullId;
	// Find a free slot, growing the slot array when full.
	int slot = -1;
	for (int i = 0; i < world->clothCapacity; ++i) {
		if (world->cloths[i].generation == 0) {
			slot = i;
			break;
		}
	}
	if (slot < 0) {
		int capacity = world->clothCapacity > 0 ? 2 * world->clothCapacity : 4;
		wfCloth* grown = (wfCloth*)realloc(world->cloths, (size_t)capacity * sizeof(wfCloth));
		if (grown == NULL) {
			wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "cloth: out of memory");
			return nullId;
		}
		memset(grown + world->clothCapacity, 0, (size_t)(capacity - world->clothCapacity) * sizeof(wfCloth));
		slot = world->clothCapacity;
		world->cloths = grown;
		world->clothCapacity = capacity;
	}
	wfCloth* c = &world->cloths[slot];
	memset(c, 0, sizeof *c);
	c->def = *def;
	c->def.pinIndices = NULL;
	c->def.pinCount = 0;
	c->material = def->material;
	c->index = slot;
	c->grabIndex = -1;
	c->def.mesh = NULL; // the mesh is the caller's; the model keeps what the cloth needs
	if (def->mesh != NULL ? wfBuildMeshModel(def, &c->model) != WF_OK : wfBuildGridModel(def, &c->model, TileOrder(world, def)) != WF_OK) {
		if (def->mesh != NULL)
			wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "cloth: out of memory building a mesh of %d vertices", def->mesh->vertexCount);
		else
			wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "cloth: out of memory building a %d x %d grid", def->cols, def->rows);
		return nullId;
	}
	c->meanEdge = MeanEdge(&c->model);
	const wfSelfCollisionDef self = wfSelfContact(world, &world->def.selfCollision, c->meanEdge);
	char tooThick[256];
	if (self.enabled && !wfSelfThicknessFits(&self, c->meanEdge, slot, tooThick, (int)sizeof tooThick)) {
		c->generation = wfNextGeneration();
		wfDestroyCloth((wfClothId){world, slot, c->generation});
		wfSetError(world, WF_ERROR_INVALID_DEF, "%s", tooThick);
		return nullId;
	}
	wfWarnThinSelfContact(world, NULL, &self, c->meanEdge, slot);
	size_t n = (size_t)c->model.particleCount, v4 = n * sizeof(wfVec4);
	c->state.pos = (wfVec4*)wfAlloc(v4);
	c->state.vel = (wfVec4*)wfAlloc(v4);
	c->state.prev = (wfVec4*)wfAlloc(v4);
	c->state.pos2 = (wfVec4*)wfAlloc(v4);
	c->state.vel2 = (wfVec4*)wfAlloc(v4);
	c->state.normals = (wfVec4*)wfAlloc(v4);
	c->state.aero = (wfVec4*)wfAlloc(v4);
	const bool selfOk = !world->def.selfCollision.enabled || wfClothReserveSelf(c);
	c->state.lambda = (float*)wfAlloc((size_t)c->model.constraintCount * sizeof(float));
	c->pinned = (uint8_t*)wfAlloc(n);
	if (!c->state.pos || !c->state.vel || !c->state.prev || !c->state.pos2 || !c->state.vel2 || !c->state.normals || !c->state.aero ||
		!selfOk || !c->state.lambda || !c->pinned) {
		c->generation = wfNextGeneration();
		wfDestroyCloth((wfClothId){world, slot, c->generation});
		wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "cloth: out of memory for %zu particles", n);
		return nullId;
	}
	SetPins(c, def->pinMode, def->pinIndices, def->pinCount);
	ResetState(c);
	if (Attach(world, c, def) != WF_OK) {
		char why[512];
		snprintf(why, sizeof why, "%s", world->lastError);
		c->generation = wfNextGeneration();
		wfDestroyCloth((wfClothId){world, slot, c->generation});
		wfSetError(world, WF_ERROR_INVALID_DEF, "%s", why);
		return nullId;
	}
	if (wfBuildTethers(c) != WF_OK) { // anchored at the pins and the attached particles
		c->generation = wfNextGeneration();
		wfDestroyCloth((wfClothId){world, slot, c->generation});
		wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "cloth: out of memory for the tethers of %zu particles", n);
		return nullId;
	}
	c->generation = wfNextGeneration();
	world->clothCount++;
	wfClothId id = {world, slot, c->generation};
	wfResult r = UseSelfContact(world, &self, slot); // before the backend sizes the cloth's contacts
	if (r == WF_OK)
		r = world->backend->addCloth(world, c);
	if (r != WF_OK) {
		char why[512];
		snprintf(why, sizeof why, "%s", world->lastError);
		wfDestroyCloth(id);
		wfSetError(world, r, "cloth: %s", why);
		return nullId;
	}
	return id;
}

void wfDestroyCloth(wfClothId id)
{
	wfCloth* c = wfGetCloth(id);
	if (c == NULL)
		return;
	wfWorld* world = id.world;
	if (c->backendData != NULL)
		world->backend->removeCloth(world, c);
	wfFreeModel(&c->model);
	wfFree(c->state.pos);
	wfFree(c->state.vel);
	wfFree(c->state.prev);
	wfFree(c->state.pos2);
	wfFree(c->state.vel2);
	wfFree(c->state.normals);
	wfFree(c->state.aero);
	wfFree(c->state.hashStart);
	wfFree(c->state.hashSorted);
	wfFree(c->state.hashKey);
	wfFree(c->state.selfDelta);
	wfFree(c->state.lambda);
	free(c->attach);
	wfFree(c->pinned);
	wfFree(c->source);
	wfFreeModel(&c->original);
	if (c->generation != 0)
		world->clothCount--;
	memset(c, 0, sizeof *c);
	wfUpdateSelfContact(world); // the finest cloth may have gone
}

// ------------------------------------------------------------------ host mirror

wfResult wfSyncHost(wfWorld* world, wfCloth* c)
{
	if (!c->hostValid) {
		wfResult r = world->backend->download(world, c);
		if (r != WF_OK)
			return r;
		c->hostValid = true;
	}
	return WF_OK;
}

// After the host changed the state (pins, grab, reset, writes): push it to the device.
static wfResult HostChanged(wfWorld* world, wfCloth* c)
{
	c->normalsValid = false;
	return world->backend->upload(world, c);
}

#define GET_CLOTH(c, id) \
	wfCloth* c = wfGetCloth(id); \
	if (c == NULL) \
	return id.world != NULL ? wfSetError(id.world, WF_ERROR_INVALID_ARGUMENT, "stale or null cloth id") : WF_ERROR_INVALID_ARGUMENT

// NULL output (or input) buffers are refused like bad ids.
#define CHECK_POINTER(id, pointer, what) \
	if ((pointer) == NULL) \
	return wfSetError(id.world, WF_ERROR_INVALID_ARGUMENT, "%s: NULL", what)

// Non-finite coordinates are refused: the solvers would spread them over the whole cloth.
static bool IsFinite3(wfVec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }
// A grab target within the world every position lives in (origins, colliders and mesh vertices:
// 1e6 m of the world's origin); 1e30 is finite but no place a particle can be held at.
static bool InWorld3(wfVec3 v) { return fabsf(v.x) <= 1e6f && fabsf(v.y) <= 1e6f && fabsf(v.z) <= 1e6f; }

wfResult wfCloth_GetInfo(wfClothId id, wfClothInfo* info)
{
	GET_CLOTH(c, id);
	CHECK_POINTER(id, info, "GetInfo: info");
	info->cols = c->model.mesh ? 0 : c->model.cols;
	info->rows = c->model.mesh ? 0 : c->model.rows;
	info->mesh = c->model.mesh;
	info->edgeCount = c->model.familyCount[WF_FAMILY_STRETCH];
	info->particleCount = c->model.particleCount;
	info->constraintCount = c->model.constraintCount;
	for (int f = 0; f < WF_FAMILY_COUNT; ++f)
		info->familyCount[f] = c->model.familyCount[f];
	info->colorCount = c->model.colorCount;
	info->triangleCount = c->model.triangleCount;
	info->topology = c->topology;
	info->tileSize = c->model.tileSize;
	return WF_OK;
}

wfMaterial wfCloth_GetMaterial(wfClothId id)
{
	wfCloth* c = wfGetCloth(id);
	return c != NULL ? c->material : wfDefaultMaterial();
}

wfResult wfCloth_SetMaterial(wfClothId id, const wfMaterial* material)
{
	GET_CLOTH(c, id);
	char msg[256];
	if (material == NULL || !wfValidateMaterial(material, msg, (int)sizeof msg))
		return wfSetError(id.world, WF_ERROR_INVALID_DEF, "%s", material == NULL ? "material: NULL" : msg);
	bool massChanged = material->mass != c->material.mass;
	c->material = *material;
	if (!massChanged)
		return WF_OK;
	wfResult r = wfSyncHost(id.world, c);
	if (r != WF_OK)
		return r;
	wfClothApplyInverseMass(c);
	return HostChanged(id.world, c);
}

wfResult wfCloth_Reset(wfClothId id)
{
	GET_CLOTH(c, id);
	c->grabIndex = -1;
	// A torn cloth gets its untorn model back (the original particles keep their pins).
	if (c->topology > 0 && c->original.particleCount > 0) {
		wfClothModel nm;
		int* from = (int*)malloc((size_t)c->original.particleCount * sizeof(int));
		if (from == NULL || wfCopyModel(&c->original, &nm) != WF_OK) {
			free(from);
			return wfSetError(id.world, WF_ERROR_OUT_OF_MEMORY, "reset: out of memory for the untorn cloth");
		}
		for (int i = 0; i < c->original.particleCount; ++i)
			from[i] = i;
		wfResult r = wfClothReplaceModel(id.world, c, &nm, from, NULL, NULL);
		free(from);
		if (r != WF_OK)
			return r;
		wfFree(c->source);
		c->source = NULL;
	}
	ResetState(c);
	return HostChanged(id.world, c);
}

wfResult wfCloth_SetPinMode(wfClothId id, wfPinMode mode, const int* indices, int count)
{
	GET_CLOTH(c, id);
	if ((unsigned)mode > WF_PIN_LIST)
		return wfSetError(id.world, WF_ERROR_INVALID_ARGUMENT, "pinMode: %d is not one of %s", (int)mode, wfPinTable.list);
	if (mode == WF_PIN_LIST) {
		if (count < 0 || (count > 0 && indices == NULL))
			return wfSetError(id.world, WF_ERROR_INVALID_ARGUMENT, "pinIndices: %d indices given without a list", count);
		for (int i = 0; i < count; ++i) {
			if (indices[i] < 0 || indices[i] >= c->model.particleCount)
				return wfSetError(id.world, WF_ERROR_INVALID_ARGUMENT, "pinIndices[%d]: %d is out of range [0, %d]", i, indices[i],
					c->model.particleCount - 1);
		}
	}
	wfResult r = wfSyncHost(id.world, c);
	if (r != WF_OK)
		return r;
	SetPins(c, mode, indices, count);
	wfClothApplyInverseMass(c);
	return HostChanged(id.world, c);
}

wfResult wfCloth_SetPinned(wfClothId id, int particle, bool pinned)
{
	GET_CLOTH(c, id);
	if (particle < 0 || particle >= c->model.particleCount)
		return wfSetError(id.world, WF_ERROR_INVALID_ARGUMENT, "particle: %d is out of range [0, %d]", particle,
			c->model.particleCount - 1);
	wfResult r = wfSyncHost(id.world, c);
	if (r != WF_OK)
		return r;
	c->pinned[particle] = pinned ? 1 : 0;
	c->def.pinMode = WF_PIN_LIST;
	wfClothApplyInverseMass(c);
	if (pinned)
		c->state.vel[particle] = (wfVec4){0.0f, 0.0f, 0.0f, 0.0f};
	return HostChanged(id.world, c);
}

bool wfCloth_IsPinned(wfClothId id, int particle)
{
	wfCloth* c = wfGetCloth(id);
	return c != NULL && particle >= 0 && particle < c->model.particleCount && c->pinned[particle];
}

wfResult wfCloth_Grab(wfClothId id, int particle, wfVec3 target)
{
	GET_CLOTH(c, id);
	if (!IsFinite3(target) || !InWorld3(target))
		return wfSetError(id.world, WF_ERROR_INVALID_ARGUMENT,
			"grab: target (%g, %g, %g) must be finite and within 1e6 m (each coordinate in [-1e6, 1e6])", (double)target.x,
			(double)target.y, (double)target.z);
	if (particle < 0 || particle >= c->model.particleCount)
		return wfSetError(id.world, WF_ERROR_INVALID_ARGUMENT, "particle: %d is out of range [0, %d]", particle,
			c->model.particleCount - 1);
	wfResult r = wfSyncHost(id.world, c);
	if (r != WF_OK)
		return r;
	c->grabIndex = particle;
	c->grabTarget = target;
	wfClothApplyInverseMass(c);
	c->state.vel[particle] = (wfVec4){0.0f, 0.0f, 0.0f, 0.0f};
	return HostChanged(id.world, c);
}

wfResult wfCloth_MoveGrab(wfClothId id, wfVec3 target)
{
	GET_CLOTH(c, id);
	if (!IsFinite3(target) || !InWorld3(target))
		return wfSetError(id.world, WF_ERROR_INVALID_ARGUMENT,
			"move grab: target (%g, %g, %g) must be finite and within 1e6 m (each coordinate in [-1e6, 1e6])", (double)target.x,
			(double)target.y, (double)target.z);
	if (c->grabIndex < 0)
		return wfSetError(id.world, WF_ERROR_INVALID_ARGUMENT, "move grab: nothing is grabbed");
	c->grabTarget = target;
	return WF_OK;
}

wfResult wfCloth_Release(wfClothId id)
{
	GET_CLOTH(c, id);
	if (c->grabIndex < 0)
		return WF_OK;
	wfResult r = wfSyncHost(id.world, c);
	if (r != WF_OK)
		return r;
	c->grabIndex = -1;
	wfClothApplyInverseMass(c);
	return HostChanged(id.world, c);
}

int wfCloth_GetGrabbed(wfClothId id)
{
	wfCloth* c = wfGetCloth(id);
	return c != NULL ? c->grabIndex : -1;
}

// ------------------------------------------------------------------ read-back

#define CHECK_COUNT(c, id, count, expected, what) \
	if ((count) != (expected)) \
	return wfSetError(id.world, WF_ERROR_INVALID_ARGUMENT, "%s: count %d, the cloth has %d", what, (count), (expected))

// Positions go out in world coordinates (the local frame's origin added in double), velocities
// and normals as they are.
static wfResult ReadVec4(wfClothId id, const wfVec4* (*pick)(wfCloth*), wfVec3* out, int count, const char* what, bool world)
{
	GET_CLOTH(c, id);
	CHECK_POINTER(id, out, what);
	CHECK_COUNT(c, id, count, c->model.particleCount, what);
	wfResult r = wfSyncHost(id.world, c);
	if (r != WF_OK)
		return r;
	const wfVec4* src = pick(c);
	if (world) {
		const double* o = c->origin;
		for (int i = 0; i < count; ++i)
			out[i] = (wfVec3){(float)(o[0] + src[i].x), (float)(o[1] + src[i].y), (float)(o[2] + src[i].z)};
		return WF_OK;
	}
	for (int i = 0; i < count; ++i)
		out[i] = (wfVec3){src[i].x, src[i].y, src[i].z};
	return WF_OK;
}

wfResult wfCloth_GetOrigin(wfClothId id, double origin[3])
{
	GET_CLOTH(c, id);
	CHECK_POINTER(id, origin, "origin");
	memcpy(origin, c->origin, sizeof c->origin);
	return WF_OK;
}

static const wfVec4* PickPos(wfCloth* c) { return c->state.pos; }
static const wfVec4* PickVel(wfCloth* c) { return c->state.vel; }

static const wfVec4* PickNormals(wfCloth* c)
{
	if (!c->normalsValid) {
		wfComputeNormals(&c->model, c->state.pos, c->state.normals);
		c->normalsValid = true;
	}
	return c->state.normals;
}

wfResult wfCloth_ReadPositions(wfClothId id, wfVec3* out, int count) { return ReadVec4(id, PickPos, out, count, "positions", true); }
wfResult wfCloth_ReadLocalPositions(wfClothId id, wfVec3* out, int count)
{
	return ReadVec4(id, PickPos, out, count, "local positions", false);
}
wfResult wfCloth_ReadVelocities(wfClothId id, wfVec3* out, int count) { return ReadVec4(id, PickVel, out, count, "velocities", false); }
wfResult wfCloth_ReadNormals(wfClothId id, wfVec3* out, int count) { return ReadVec4(id, PickNormals, out, count, "normals", false); }

wfResult wfCloth_ReadUVs(wfClothId id, float* out, int count)
{
	GET_CLOTH(c, id);
	CHECK_POINTER(id, out, "uvs");
	CHECK_COUNT(c, id, count, c->model.particleCount, "uvs");
	memcpy(out, c->model.uvs, (size_t)count * 2 * sizeof(float));
	return WF_OK;
}

wfResult wfCloth_ReadIndices(wfClothId id, uint32_t* out, int count)
{
	GET_CLOTH(c, id);
	CHECK_POINTER(id, out, "indices");
	CHECK_COUNT(c, id, count, 3 * c->model.triangleCount, "indices");
	memcpy(out, c->model.indices, (size_t)count * sizeof(uint32_t));
	return WF_OK;
}

wfResult wfCloth_ReadEdges(wfClothId id, uint32_t* out, int count)
{
	GET_CLOTH(c, id);
	CHECK_POINTER(id, out, "edges");
	CHECK_COUNT(c, id, count, 2 * c->model.familyCount[WF_FAMILY_STRETCH], "edges");
	int k = 0;
	for (int i = 0; i < c->model.constraintCount && k < count; ++i) {
		if (c->model.constraints[i].family != WF_FAMILY_STRETCH)
			continue;
		out[k++] = c->model.constraints[i].a;
		out[k++] = c->model.constraints[i].b;
	}
	return WF_OK;
}

wfResult wfCloth_ReadCornerUVs(wfClothId id, float* out, int count)
{
	GET_CLOTH(c, id);
	CHECK_POINTER(id, out, "corner uvs");
	CHECK_COUNT(c, id, count, 6 * c->model.triangleCount, "corner uvs");
	if (c->model.cornerUVs != NULL) {
		memcpy(out, c->model.cornerUVs, (size_t)count * sizeof(float));
		return WF_OK;
	}
	for (int k = 0; k < count / 2; ++k) {
		uint32_t i = c->model.indices[k];
		out[2 * k + 0] = c->model.uvs[2 * i + 0];
		out[2 * k + 1] = c->model.uvs[2 * i + 1];
	}
	return WF_OK;
}

wfResult wfCloth_ReadSourceParticles(wfClothId id, int* out, int count)
{
	GET_CLOTH(c, id);
	CHECK_POINTER(id, out, "source particles");
	CHECK_COUNT(c, id, count, c->model.particleCount, "source particles");
	for (int i = 0; i < count; ++i)
		out[i] = c->source != NULL ? c->source[i] : i;
	return WF_OK;
}

static wfResult WriteVec4(wfClothId id, const wfVec3* in, int count, bool positions)
{
	GET_CLOTH(c, id);
	const char* what = positions ? "positions" : "velocities";
	CHECK_POINTER(id, in, what);
	CHECK_COUNT(c, id, count, c->model.particleCount, what);
	// All or nothing: a non-finite value anywhere leaves the cloth as it was.
	for (int i = 0; i < count; ++i) {
		if (!IsFinite3(in[i]))
			return wfSetError(id.world, WF_ERROR_INVALID_ARGUMENT, "%s[%d]: (%g, %g, %g) must be finite", what, i, (double)in[i].x,
				(double)in[i].y, (double)in[i].z);
	}
	wfResult r = wfSyncHost(id.world, c);
	if (r != WF_OK)
		return r;
	const double* o = c->origin;
	for (int i = 0; i < count; ++i) {
		if (positions) {
			c->state.pos[i].x = (float)((double)in[i].x - o[0]);
			c->state.pos[i].y = (float)((double)in[i].y - o[1]);
			c->state.pos[i].z = (float)((double)in[i].z - o[2]);
			c->state.vel[i] = (wfVec4){0.0f, 0.0f, 0.0f, 0.0f};
		} else {
			c->state.vel[i] = (wfVec4){in[i].x, in[i].y, in[i].z, 0.0f};
		}
	}
	wfClothUpdateReference(c);
	return HostChanged(id.world, c);
}

wfResult wfCloth_WritePositions(wfClothId id, const wfVec3* positions, int count) { return WriteVec4(id, positions, count, true); }
wfResult wfCloth_WriteVelocities(wfClothId id, const wfVec3* velocities, int count) { return WriteVec4(id, velocities, count, false); }

// ------------------------------------------------------------------ statistics

void wfComputeStats(const wfWorld* world, const wfCloth* c, const wfFrameParams* p, wfClothStats* s)
{
	const wfClothModel* m = &c->model;
	const wfVec4* pos = c->state.pos;
	const wfVec4* vel = c->state.vel;
	const float mass = c->material.mass;
	memset(s, 0, sizeof *s);
	s->time = world->time;
	s->sphereClearance = FLT_MAX;
	s->floorClearance = FLT_MAX;
	// Positions are local: the colliders too; the gravity energy of the origin is added in double.
	const wfClothLocal local = wfClothLocalNow(world, c);
	const wfVec3 center = wfLocalSphereCenter(&local, p, -1);
	int dynamic = 0;
	double ke = 0.0, pe = 0.0, mx = 0.0, my = 0.0, mz = 0.0;
	for (int i = 0; i < m->particleCount; ++i) {
		wfVec4 x = pos[i], v = vel[i];
		if (!isfinite(x.x) || !isfinite(x.y) || !isfinite(x.z) || !isfinite(v.x) || !isfinite(v.y) || !isfinite(v.z)) {
			s->nonFinite++;
			continue;
		}
		// Pinned particles are not dynamic: they carry no momentum or energy.
		if (c->pinned[i] || i == c->grabIndex)
			continue;
		dynamic++;
		ke += 0.5 * mass * ((double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z);
		pe -= mass * ((double)p->gravity.x * x.x + (double)p->gravity.y * x.y + (double)p->gravity.z * x.z);
		mx += mass * v.x;
		my += mass * v.y;
		mz += mass * v.z;
	}
	for (int i = 0; i < m->particleCount; ++i) {
		wfVec4 x = pos[i];
		if (p->sphere.enabled) {
			float dx = x.x - center.x, dy = x.y - center.y, dz = x.z - center.z;
			float d = sqrtf(dx * dx + dy * dy + dz * dz) - p->sphere.radius;
			if (d < s->sphereClearance)
				s->sphereClearance = d;
		}
		if (p->floor.enabled && x.y - local.floorHeight < s->floorClearance)
			s->floorClearance = x.y - local.floorHeight;
	}
	pe += wfOriginGravityEnergy(c, p, dynamic);
	// Elastic energy: 1/2 C^2 / compliance (XPBD) or 1/2 k C^2 (springs); Jacobi has no energy model.
	double strainSum = 0.0;
	int stretchCount = 0;
	float alpha[WF_FAMILY_COUNT] = {c->material.stretchCompliance, c->material.shearCompliance, c->material.bendCompliance};
	wfSolverType solver = world->def.step.solver;
	for (int k = 0; k < m->constraintCount; ++k) {
		const wfConstraint* con = &m->constraints[k];
		wfVec4 a = pos[con->a], b = pos[con->b];
		float dx = b.x - a.x, dy = b.y - a.y, dz = b.z - a.z;
		float len = sqrtf(dx * dx + dy * dy + dz * dz);
		float C = len - con->rest;
		if (solver == WF_SOLVER_XPBD && alpha[con->family] > 0.0f)
			pe += 0.5 * (double)C * C / alpha[con->family];
		else if (solver == WF_SOLVER_SPRINGS)
			pe += 0.5 * (double)c->material.stiffness * C * C;
		if (con->family == WF_FAMILY_STRETCH && con->rest > 0.0f) {
			float strain = fabsf(C) / con->rest;
			if (strain > s->maxStrain || !isfinite(strain))
				s->maxStrain = strain;
			strainSum += strain;
			stretchCount++;
		}
	}
	s->meanStrain = stretchCount > 0 ? (float)(strainSum / stretchCount) : 0.0f;
	s->kineticEnergy = ke;
	s->potentialEnergy = pe;
	s->momentum = (wfVec3){(float)mx, (float)my, (float)mz};
}

double wfOriginGravityEnergy(const wfCloth* c, const wfFrameParams* p, int dynamic)
{
	const double* o = c->origin;
	return -(double)c->material.mass * dynamic * ((double)p->gravity.x * o[0] + (double)p->gravity.y * o[1] + (double)p->gravity.z * o[2]);
}

int wfDynamicCount(const wfCloth* c)
{
	int n = 0;
	for (int i = 0; i < c->model.particleCount; ++i)
		n += !c->pinned[i] && i != c->grabIndex;
	return n;
}

wfResult wfCloth_GetStats(wfClothId id, wfClothStats* stats)
{
	GET_CLOTH(c, id);
	CHECK_POINTER(id, stats, "GetStats: stats");
	wfFrameParams p;
	wfFrameParamsInit(id.world, &p);
	if (id.world->backend->stats != NULL)
		return id.world->backend->stats(id.world, c, &p, stats);
	wfResult r = wfSyncHost(id.world, c);
	if (r != WF_OK)
		return r;
	wfComputeStats(id.world, c, &p, stats);
	return WF_OK;
}

// Explicit springs with dampers, semi-implicit Euler. The stiffness and damping matrices of the
// cloth are k L and c L with the same graph matrix L, so their modes are shared: a mode of L's
// eigenvalue l has omega^2 = k l / m and gamma = c l / m, and the step v' = v + h (-omega^2 x -
// gamma v), x' = x + h v' is stable while h^2 omega^2 + 2 h gamma < 4 (the Jury conditions of its
// 2x2 matrix: det 1 - h gamma, trace 2 - h^2 omega^2 - h gamma). By Gershgorin l <= 2 D for D
// springs at a particle. So h must stay below the positive root of
// (2 k D / m) h^2 + (4 c D / m) h - 4 = 0; without dampers that is sqrt(2 m / (k D)).
double wfSpringsStepLimit(const wfCloth* c)
{
	const double k = c->material.stiffness, d = c->material.springDamping, m = c->material.mass;
	const double degree = c->model.maxDegree > 0 ? c->model.maxDegree : 1;
	const double a = 2.0 * k * degree / m, b = 4.0 * d * degree / m;
	if (a <= 0.0)
		return b > 0.0 ? 4.0 / b : INFINITY;
	return (-b + sqrt(b * b + 16.0 * a)) / (2.0 * a);
}

void wfCheckSpringsStep(wfWorld* world, const wfCloth* c, float h)
{
	const double limit = wfSpringsStepLimit(c);
	if ((double)h <= limit)
		return;
	world->warnings.timeStepTooLarge++;
	if (world->warnings.timeStepTooLarge == 1)
		wfLog(world, WF_LOG_WARNING,
			"springs: cloth %d: substep %g s exceeds the stability estimate %g s (stiffness %g, "
			"springDamping %g, mass %g)",
			c->index, (double)h, limit, (double)c->material.stiffness, (double)c->material.springDamping, (double)c->material.mass);
}
