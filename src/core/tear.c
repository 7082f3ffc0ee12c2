// Tearing (wfMaterial.tearStrain): between frames, stretch constraints strained past the threshold
// break and the mesh splits there; the model is rebuilt and the backend gets the cloth again.
//
// The split is the vertex split of Mueller et al.'s position-based dynamics: for a broken constraint
// (v, b) a plane through v perpendicular to the constraint's direction divides the triangles around
// v; those on b's side get a copy v' of v (position, velocity, pin, UV, rest position and tether of
// v), the others keep v. The crack therefore opens perpendicular to the strain, along the edges
// around v that lie in the plane. The constraints follow the triangles:
// - a stretch constraint (v, x) goes with the triangles that hold the edge: to v' when they are all
//   on b's side, stays when none is, and is duplicated (v, x) and (v', x) when the edge has a
//   triangle on each side (the edge the crack runs along becomes two border edges);
// - a shear or bending constraint (v, x) goes to the copy that still shares a stretch neighbour
//   with x (the particle between them along the cloth), by the plane when both do;
// - a shear or bending constraint (a, b) that spanned a split vertex (their shared stretch
//   neighbour) and no longer has a shared neighbour is removed: it would bridge the crack.
// A constraint past the threshold that is already released at an end (that end not held, and all
// its triangles on the other end's side: the copy a split made for it) is not split again. Each
// particle splits at most once a pass, and the passes repeat on the model the last one built until
// no constraint past the threshold is joined at both ends (bounded by WF_TEAR_PASSES): no tear waits
// for the next frame. The particles of the
// cloth keep their indices; the copies are appended, and wfCloth_ReadSourceParticles tells which
// particle of the untorn cloth each one came from.
//
// The new constraint set is coloured again as a whole (the greedy colouring of meshes: a torn grid
// is no longer the grid the 12-colour scheme needs), its adjacency, Jacobi weights and triangle rows
// rebuilt, the state arrays grown, and the backend removes and adds the cloth, which uploads the new
// model and state (Vulkan: new buffers).
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// One frame's edit of a cloth's topology, on working copies of the model's arrays.
typedef struct TearEdit {
	int n, capacity;   // particles now / room for them
	wfVec4* pos;       // (capacity)
	wfVec4* vel;       // (capacity)
	int* from;         // (capacity) the particle each one copies (itself for the old ones)
	uint8_t* touched;  // (capacity) split or made this frame
	uint32_t* tri;     // (3 x triangleCount)
	wfConstraint* con; // (conCapacity)
	uint8_t* dead;     // (conCapacity) removed
	int conCount, conCapacity;
	int splits;
} TearEdit;

typedef struct Candidate {
	float strain;
	int index;
} Candidate;

static int CompareCandidates(const void* x, const void* y)
{
	const Candidate* p = (const Candidate*)x;
	const Candidate* q = (const Candidate*)y;
	if (p->strain != q->strain)
		return p->strain > q->strain ? -1 : 1;
	return p->index < q->index ? -1 : p->index > q->index;
}

static float Dot3(wfVec4 a, wfVec4 b, wfVec4 n) { return (b.x - a.x) * n.x + (b.y - a.y) * n.y + (b.z - a.z) * n.z; }

static bool TriangleHas(const uint32_t* t, uint32_t a, uint32_t b)
{
	bool ha = t[0] == a || t[1] == a || t[2] == a;
	bool hb = t[0] == b || t[1] == b || t[2] == b;
	return ha && hb;
}

static void SetEnds(wfConstraint* c, uint32_t p, uint32_t q)
{
	c->a = p < q ? p : q;
	c->b = p < q ? q : p;
}

// The live constraints at particle p (at most `most`): a constraint of the model keeps the
// particles it came from (from[] of its ends), so it is in the model's row of from[p], or it was
// appended this frame.
static int Incident(const TearEdit* e, const wfClothModel* m, uint32_t p, int* out, int most)
{
	const int f = e->from[p];
	int count = 0;
	for (int s = m->adjStart[f]; s < m->adjStart[f + 1] && count < most; ++s) {
		const int i = (int)m->adjConstraint[s];
		if (!e->dead[i] && (e->con[i].a == p || e->con[i].b == p))
			out[count++] = i;
	}
	for (int i = m->constraintCount; i < e->conCount && count < most; ++i) {
		if (!e->dead[i] && (e->con[i].a == p || e->con[i].b == p))
			out[count++] = i;
	}
	return count;
}

// The live stretch neighbours of particle p in the edit (at most 64); returns how many.
static int StretchNeighbours(const TearEdit* e, const wfClothModel* m, uint32_t p, uint32_t* out)
{
	int at[64];
	const int n = Incident(e, m, p, at, 64);
	int count = 0;
	for (int k = 0; k < n; ++k) {
		const wfConstraint* c = &e->con[at[k]];
		if (c->family == WF_FAMILY_STRETCH)
			out[count++] = c->a == p ? c->b : c->a;
	}
	return count;
}

// Whether particles p and q share a live stretch neighbour in the edit.
static bool ShareNeighbour(const TearEdit* e, const wfClothModel* m, uint32_t p, uint32_t q)
{
	uint32_t np[64], nq[64];
	const int cp = StretchNeighbours(e, m, p, np), cq = StretchNeighbours(e, m, q, nq);
	for (int i = 0; i < cp; ++i)
		for (int j = 0; j < cq; ++j)
			if (np[i] == nq[j])
				return true;
	return false;
}

// Splits particle v by the plane through it perpendicular to the direction to particle b. False
// when every triangle around v lies on one side (a border vertex pulled along the border).
static bool SplitVertex(TearEdit* e, const wfClothModel* m, uint32_t v, uint32_t b)
{
	wfVec4 x = e->pos[v], d = e->pos[b];
	wfVec4 nrm = {d.x - x.x, d.y - x.y, d.z - x.z, 0.0f};
	const float len = sqrtf(nrm.x * nrm.x + nrm.y * nrm.y + nrm.z * nrm.z);
	if (!(len > 0.0f) || e->n >= e->capacity)
		return false;
	nrm.x /= len;
	nrm.y /= len;
	nrm.z /= len;
	// The triangles around v (v has not split this frame, so the model's rows still hold them) and
	// the side of each one's centroid.
	const int first = m->triStart[v], count = m->triStart[v + 1] - first;
	uint8_t side[64];
	if (count > 64)
		return false; // a fan pole of a mesh: left whole
	int plus = 0;
	for (int k = 0; k < count; ++k) {
		const uint32_t* t = &e->tri[3 * m->triList[first + k]];
		wfVec4 g = {(e->pos[t[0]].x + e->pos[t[1]].x + e->pos[t[2]].x) / 3.0f, (e->pos[t[0]].y + e->pos[t[1]].y + e->pos[t[2]].y) / 3.0f,
			(e->pos[t[0]].z + e->pos[t[1]].z + e->pos[t[2]].z) / 3.0f, 0.0f};
		side[k] = Dot3(x, g, nrm) > 0.0f;
		plus += side[k];
	}
	if (plus == 0 || plus == count)
		return false;
	const uint32_t copy = (uint32_t)e->n++;
	e->pos[copy] = e->pos[v];
	e->vel[copy] = e->vel[v];
	e->from[copy] = e->from[v];
	e->touched[copy] = e->touched[v] = 1;
	// The triangles on b's side take the copy (sides decided above, before any corner changed).
	for (int k = 0; k < count; ++k) {
		uint32_t* t = &e->tri[3 * m->triList[first + k]];
		for (int j = 0; side[k] && j < 3; ++j)
			t[j] = t[j] == v ? copy : t[j];
	}
	// Stretch constraints follow the triangles that hold their edge.
	int at[64];
	const int incident = Incident(e, m, v, at, 64);
	for (int j = 0; j < incident; ++j) {
		wfConstraint* c = &e->con[at[j]];
		if (c->family != WF_FAMILY_STRETCH)
			continue;
		const uint32_t other = c->a == v ? c->b : c->a;
		bool onPlus = false, onMinus = false;
		for (int k = 0; k < count; ++k) {
			const uint32_t* t = &e->tri[3 * m->triList[first + k]];
			onPlus |= side[k] && TriangleHas(t, copy, other);
			onMinus |= !side[k] && TriangleHas(t, v, other);
		}
		if (!onPlus && !onMinus)
			onPlus = Dot3(x, e->pos[other], nrm) > 0.0f;
		if (onPlus && onMinus && e->conCount < e->conCapacity) {
			wfConstraint* dup = &e->con[e->conCount];
			*dup = *c;
			SetEnds(dup, copy, other);
			e->dead[e->conCount++] = 0;
		} else if (onPlus) {
			SetEnds(c, copy, other);
		}
	}
	// Shear and bending constraints go to the copy that still shares a stretch neighbour with their
	// other end.
	for (int j = 0; j < incident; ++j) {
		wfConstraint* c = &e->con[at[j]];
		if (c->family == WF_FAMILY_STRETCH)
			continue;
		const uint32_t other = c->a == v ? c->b : c->a;
		const bool keep = ShareNeighbour(e, m, v, other), move = ShareNeighbour(e, m, copy, other);
		if ((move && !keep) || (move && keep && Dot3(x, e->pos[other], nrm) > 0.0f))
			SetEnds(c, copy, other);
	}
	e->splits++;
	return true;
}

static void FreeEdit(TearEdit* e)
{
	free(e->pos);
	free(e->vel);
	free(e->from);
	free(e->touched);
	free(e->tri);
	free(e->con);
	free(e->dead);
}

// The model of the edit: constraints coloured again, adjacency and triangle rows rebuilt, the
// per-particle arrays of the copies taken from their particles.
static wfResult BuildModel(const wfCloth* c, const wfClothModel* m, const TearEdit* e, wfClothModel* nm)
{
	memset(nm, 0, sizeof *nm);
	const int n = e->n;
	int count = 0;
	for (int i = 0; i < e->conCount; ++i)
		count += !e->dead[i];
	// A torn grid is no longer a grid (readers that lay out rows and columns, the CPU's grid-order
	// XPBD path): it is a mesh from now on, keeping cols for wave wind's column of each particle.
	nm->cols = m->cols;
	nm->rows = m->rows;
	nm->mesh = true;
	nm->particleCount = n;
	nm->constraintCount = count;
	nm->triangleCount = m->triangleCount;
	nm->restPositions = (wfVec4*)wfAlloc((size_t)n * sizeof(wfVec4));
	nm->uvs = (float*)wfAlloc((size_t)n * 2 * sizeof(float));
	nm->indices = (uint32_t*)wfAlloc((size_t)(3 * m->triangleCount + 1) * sizeof(uint32_t));
	nm->cornerUVs = m->cornerUVs != NULL ? (float*)wfAlloc((size_t)m->triangleCount * 6 * sizeof(float)) : NULL;
	nm->triArea = (float*)wfAlloc((size_t)(m->triangleCount + 1) * sizeof(float)); // the triangles keep their rest areas
	nm->tethers = m->tethers != NULL ? (wfConstraint*)wfAlloc((size_t)n * sizeof(wfConstraint)) : NULL;
	nm->constraints = (wfConstraint*)wfAlloc((size_t)(count + 1) * sizeof(wfConstraint));
	nm->jacobiWeight = (float*)wfAlloc((size_t)(count + 1) * sizeof(float));
	nm->adjStart = (int*)wfAlloc((size_t)(n + 1) * sizeof(int));
	nm->adjConstraint = (uint32_t*)wfAlloc((size_t)(2 * count + 1) * sizeof(uint32_t));
	nm->adjOther = (uint32_t*)wfAlloc((size_t)(2 * count + 1) * sizeof(uint32_t));
	int* color = (int*)wfAlloc((size_t)(count + 1) * sizeof(int));
	if (!nm->restPositions || !nm->uvs || !nm->indices || !nm->triArea || (m->cornerUVs && !nm->cornerUVs) ||
		(m->tethers && !nm->tethers) || !nm->constraints || !nm->jacobiWeight || !nm->adjStart || !nm->adjConstraint || !nm->adjOther ||
		!color) {
		wfFree(color);
		wfFreeModel(nm);
		return WF_ERROR_OUT_OF_MEMORY;
	}
	// Particle k of the edit copies particle from[k] of the old model (itself for the old ones).
	for (int k = 0; k < n; ++k) {
		const int src = e->from[k];
		nm->restPositions[k] = m->restPositions[src];
		nm->uvs[2 * k + 0] = m->uvs[2 * src + 0];
		nm->uvs[2 * k + 1] = m->uvs[2 * src + 1];
		if (nm->tethers != NULL) {
			// Record k is particle k's (tether.c): a copy is tied to its particle's anchor.
			nm->tethers[k] = m->tethers[src];
			nm->tethers[k].a = (uint32_t)k;
		}
	}
	memcpy(nm->indices, e->tri, (size_t)3 * m->triangleCount * sizeof(uint32_t));
	memcpy(nm->triArea, m->triArea, (size_t)m->triangleCount * sizeof(float));
	if (nm->cornerUVs != NULL)
		memcpy(nm->cornerUVs, m->cornerUVs, (size_t)m->triangleCount * 6 * sizeof(float));
	int k = 0;
	for (int i = 0; i < e->conCount; ++i) {
		if (e->dead[i])
			continue;
		nm->constraints[k++] = e->con[i];
		nm->familyCount[e->con[i].family]++;
	}
	const int colors = wfColorMesh(nm->constraints, count, n, color);
	nm->colorStart = colors >= 0 ? (int*)wfAlloc((size_t)(colors + 2) * sizeof(int)) : NULL;
	if (nm->colorStart == NULL) {
		wfFree(color);
		wfFreeModel(nm);
		return WF_ERROR_OUT_OF_MEMORY;
	}
	wfResult r = wfFinishModel(&c->def, nm, color, colors);
	return r == WF_OK ? wfBuildTriangleRows(nm) : r;
}

// Grows a per-particle array to n entries, the copies' entries taken from their particles.
static bool GrowVec4(wfVec4** array, int oldCount, const TearEdit* e, const wfVec4* values)
{
	wfVec4* grown = (wfVec4*)wfAlloc((size_t)e->n * sizeof(wfVec4));
	if (grown == NULL)
		return false;
	if (values != NULL)
		memcpy(grown, values, (size_t)e->n * sizeof(wfVec4));
	else if (*array != NULL)
		memcpy(grown, *array, (size_t)(oldCount < e->n ? oldCount : e->n) * sizeof(wfVec4));
	wfFree(*array);
	*array = grown;
	return true;
}

wfResult wfClothReplaceModel(wfWorld* world, wfCloth* c, wfClothModel* nm, const int* from, const wfVec4* pos, const wfVec4* vel)
{
	const int oldCount = c->model.particleCount, n = nm->particleCount;
	// The state and the pins for the new size; a new particle takes its particle's pin and source.
	TearEdit e = {.n = n};
	wfClothState* s = &c->state;
	uint8_t* pinned = (uint8_t*)wfAlloc((size_t)n);
	int* source = (int*)wfAlloc((size_t)n * sizeof(int));
	float* lambda = (float*)wfAlloc((size_t)(nm->constraintCount + 1) * sizeof(float));
	bool ok = pinned != NULL && source != NULL && lambda != NULL;
	if (ok) {
		for (int k = 0; k < n; ++k) {
			const int f = from[k] < oldCount ? from[k] : 0;
			pinned[k] = k < oldCount ? c->pinned[k] : c->pinned[f];
			source[k] = c->source != NULL ? c->source[f] : f;
		}
	}
	ok = ok && GrowVec4(&s->pos, oldCount, &e, pos) && GrowVec4(&s->vel, oldCount, &e, vel) && GrowVec4(&s->prev, oldCount, &e, NULL) &&
		GrowVec4(&s->pos2, oldCount, &e, NULL) && GrowVec4(&s->vel2, oldCount, &e, NULL) && GrowVec4(&s->normals, oldCount, &e, NULL) &&
		GrowVec4(&s->aero, oldCount, &e, NULL);
	if (ok && s->hashStart != NULL) {
		int size = 1;
		while (size < 2 * n)
			size *= 2;
		wfFree(s->hashStart);
		wfFree(s->hashSorted);
		wfFree(s->hashKey);
		s->hashSize = size;
		s->hashStart = (int*)wfAlloc((size_t)(size + 1) * sizeof(int));
		s->hashSorted = (int*)wfAlloc((size_t)n * sizeof(int));
		s->hashKey = (uint32_t*)wfAlloc((size_t)n * sizeof(uint32_t));
		ok = GrowVec4(&s->selfDelta, oldCount, &e, NULL) && s->hashStart && s->hashSorted && s->hashKey;
	}
	if (!ok) {
		wfFree(pinned);
		wfFree(source);
		wfFree(lambda);
		wfFreeModel(nm);
		return wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "tear: out of memory for cloth %d's %d particles", c->index, n);
	}
	// The backend lets go of the old arrays and takes the new ones (uploaded whole).
	if (c->backendData != NULL)
		world->backend->removeCloth(world, c);
	// The first change keeps the untorn model (wfCloth_Reset goes back to it).
	if (c->original.particleCount == 0)
		c->original = c->model;
	else
		wfFreeModel(&c->model);
	c->model = *nm;
	wfFree(c->pinned);
	c->pinned = pinned;
	wfFree(c->source);
	c->source = source;
	wfFree(s->lambda);
	s->lambda = lambda;
	if (c->grabIndex >= n)
		c->grabIndex = -1;
	wfClothApplyInverseMass(c);
	wfClothUpdateReference(c);
	c->hostValid = true;
	c->normalsValid = false;
	c->topology++;
	return world->backend->addCloth(world, c);
}

// Constraint k's strain (length / rest - 1) when it is a stretch constraint with a rest length.
static bool StretchStrain(const wfClothModel* m, const wfVec4* pos, int k, float* strain)
{
	const wfConstraint* q = &m->constraints[k];
	if (q->family != WF_FAMILY_STRETCH || !(q->rest > 0.0f))
		return false;
	const wfVec4 a = pos[q->a], b = pos[q->b];
	const float dx = b.x - a.x, dy = b.y - a.y, dz = b.z - a.z;
	*strain = (sqrtf(dx * dx + dy * dy + dz * dz) - q->rest) / q->rest;
	return true;
}

// Whether end e of stretch constraint (e, o) is free of the cloth behind it: e is not held
// (inverse mass > 0) and every triangle around e has its centroid on o's side of the plane through
// e perpendicular to o - e (SplitVertex's side test, the same float operations). The copy a split
// makes for the constraint is such an end: the constraint no longer holds the cloth together.
static bool ReleasedEnd(const wfClothModel* m, const wfVec4* pos, uint32_t e, uint32_t o)
{
	const wfVec4 x = pos[e], d = pos[o];
	if (!(x.w > 0.0f))
		return false;
	wfVec4 nrm = {d.x - x.x, d.y - x.y, d.z - x.z, 0.0f};
	const float len = sqrtf(nrm.x * nrm.x + nrm.y * nrm.y + nrm.z * nrm.z);
	if (!(len > 0.0f))
		return false;
	nrm.x /= len;
	nrm.y /= len;
	nrm.z /= len;
	for (int s = m->triStart[e]; s < m->triStart[e + 1]; ++s) {
		const uint32_t* t = &m->indices[3 * m->triList[s]];
		wfVec4 g = {(pos[t[0]].x + pos[t[1]].x + pos[t[2]].x) / 3.0f, (pos[t[0]].y + pos[t[1]].y + pos[t[2]].y) / 3.0f,
			(pos[t[0]].z + pos[t[1]].z + pos[t[2]].z) / 3.0f, 0.0f};
		if (!(Dot3(x, g, nrm) > 0.0f))
			return false;
	}
	return true;
}

// Whether constraint k is past the limit and joined: neither end released (ReleasedEnd).
static bool JoinedPastLimit(const wfClothModel* m, const wfVec4* pos, int k, float limit, float* strain)
{
	if (!StretchStrain(m, pos, k, strain) || !(*strain > limit))
		return false;
	const wfConstraint* q = &m->constraints[k];
	return !ReleasedEnd(m, pos, q->a, q->b) && !ReleasedEnd(m, pos, q->b, q->a);
}

// One split pass over model m with positions pos and velocities vel (m's particles): each joined
// constraint past the limit, the most strained first, splits one of its ends unless an end was
// split or made in this pass. Returns the edit in e (e->splits 0: nothing changed) or an error.
static wfResult SplitPass(wfWorld* world, const wfCloth* c, const wfClothModel* m, const wfVec4* pos, const wfVec4* vel, float limit,
	TearEdit* e)
{
	memset(e, 0, sizeof *e);
	int candidates = 0;
	float strain;
	for (int k = 0; k < m->constraintCount; ++k)
		candidates += JoinedPastLimit(m, pos, k, limit, &strain);
	if (candidates == 0)
		return WF_OK;
	Candidate* list = (Candidate*)malloc((size_t)candidates * sizeof *list);
	const int n = m->particleCount, splitsMax = candidates < n ? candidates : n;
	e->n = n;
	e->capacity = n + splitsMax;
	e->conCapacity = m->constraintCount + splitsMax * (m->maxDegree + 1);
	e->pos = (wfVec4*)malloc((size_t)e->capacity * sizeof(wfVec4));
	e->vel = (wfVec4*)malloc((size_t)e->capacity * sizeof(wfVec4));
	e->from = (int*)malloc((size_t)e->capacity * sizeof(int));
	e->touched = (uint8_t*)calloc((size_t)e->capacity, 1);
	e->tri = (uint32_t*)malloc((size_t)(3 * m->triangleCount + 1) * sizeof(uint32_t));
	e->con = (wfConstraint*)malloc((size_t)e->conCapacity * sizeof(wfConstraint));
	e->dead = (uint8_t*)calloc((size_t)e->conCapacity, 1);
	if (!list || !e->pos || !e->vel || !e->from || !e->touched || !e->tri || !e->con || !e->dead) {
		free(list);
		FreeEdit(e);
		memset(e, 0, sizeof *e);
		return wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "tear: out of memory for cloth %d", c->index);
	}
	int at = 0;
	for (int k = 0; k < m->constraintCount; ++k) {
		if (JoinedPastLimit(m, pos, k, limit, &strain))
			list[at++] = (Candidate){strain, k};
	}
	qsort(list, (size_t)candidates, sizeof *list, CompareCandidates);
	memcpy(e->pos, pos, (size_t)n * sizeof(wfVec4));
	memcpy(e->vel, vel, (size_t)n * sizeof(wfVec4));
	for (int i = 0; i < n; ++i)
		e->from[i] = i;
	memcpy(e->tri, m->indices, (size_t)3 * m->triangleCount * sizeof(uint32_t));
	memcpy(e->con, m->constraints, (size_t)m->constraintCount * sizeof(wfConstraint));
	e->conCount = m->constraintCount;

	// Split at the end with more triangles around it (an interior particle), else at the other.
	for (int i = 0; i < candidates; ++i) {
		const wfConstraint q = e->con[list[i].index];
		if (e->dead[list[i].index] || e->touched[q.a] || e->touched[q.b])
			continue;
		const int ta = m->triStart[q.a + 1] - m->triStart[q.a], tb = m->triStart[q.b + 1] - m->triStart[q.b];
		const uint32_t v = tb > ta ? q.b : q.a, w = v == q.a ? q.b : q.a;
		if (!SplitVertex(e, m, v, w) && !SplitVertex(e, m, w, v))
			e->touched[q.a] = e->touched[q.b] = 1;
	}
	free(list);
	if (e->splits == 0)
		return WF_OK;
	// Shear and bending constraints at a split particle, or that spanned one (their shared stretch
	// neighbour), and no longer share a stretch neighbour bridge the crack: removed. The stretch
	// neighbours after the splits in compressed rows.
	int* start = (int*)calloc((size_t)e->n + 1, sizeof(int));
	uint32_t* other = (uint32_t*)malloc((size_t)(2 * e->conCount + 1) * sizeof(uint32_t));
	if (start == NULL || other == NULL) {
		free(start);
		free(other);
		FreeEdit(e);
		memset(e, 0, sizeof *e);
		return wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "tear: out of memory for cloth %d", c->index);
	}
	for (int i = 0; i < e->conCount; ++i) {
		if (!e->dead[i] && e->con[i].family == WF_FAMILY_STRETCH) {
			start[e->con[i].a + 1]++;
			start[e->con[i].b + 1]++;
		}
	}
	for (int i = 0; i < e->n; ++i)
		start[i + 1] += start[i];
	const int total = start[e->n];
	// Each row fills from its end down: afterwards start[i + 1] is row i's beginning.
	for (int i = 0; i < e->conCount; ++i) {
		if (e->dead[i] || e->con[i].family != WF_FAMILY_STRETCH)
			continue;
		other[--start[e->con[i].a + 1]] = e->con[i].b;
		other[--start[e->con[i].b + 1]] = e->con[i].a;
	}
	for (int i = 0; i < e->n; ++i)
		start[i] = start[i + 1];
	start[e->n] = total;
	for (int i = 0; i < e->conCount; ++i) {
		const wfConstraint* q = &e->con[i];
		if (e->dead[i] || q->family == WF_FAMILY_STRETCH)
			continue;
		bool near = e->touched[q->a] || e->touched[q->b];
		if (!near && i < m->constraintCount) {
			for (int s = m->adjStart[q->a]; s < m->adjStart[q->a + 1] && !near; ++s) {
				const uint32_t y = m->adjOther[s];
				if (!e->touched[y] || m->constraints[m->adjConstraint[s]].family != WF_FAMILY_STRETCH)
					continue;
				for (int t = m->adjStart[q->b]; t < m->adjStart[q->b + 1] && !near; ++t)
					near = m->adjOther[t] == y && m->constraints[m->adjConstraint[t]].family == WF_FAMILY_STRETCH;
			}
		}
		if (!near)
			continue;
		bool shared = false;
		for (int s = start[q->a]; s < start[q->a + 1] && !shared; ++s)
			for (int t = start[q->b]; t < start[q->b + 1] && !shared; ++t)
				shared = other[s] == other[t];
		e->dead[i] = !shared;
	}
	free(start);
	free(other);
	return WF_OK;
}

// The tear of one frame: split passes repeat on the model each one builds until no joined
// constraint past the limit is left (or a pass splits nothing, or WF_TEAR_PASSES passes ran: a
// particle splits at most once a pass, so a particle with several constraints past the limit
// needs a pass for each); the backend then takes the last model once.
wfResult wfClothTear(wfWorld* world, wfCloth* c)
{
	const float limit = c->material.tearStrain;
	if (!(limit > 0.0f) || c->model.familyCount[WF_FAMILY_STRETCH] == 0)
		return WF_OK;
	wfResult r = wfSyncHost(world, c);
	if (r != WF_OK)
		return r;
	// The working model, state and, per particle, the particle of c->model it copies.
	wfClothModel work = c->model;
	wfVec4* pos = c->state.pos;
	wfVec4* vel = c->state.vel;
	int* from = NULL;
	bool changed = false;
	for (int pass = 0; pass < WF_TEAR_PASSES && r == WF_OK; ++pass) {
		TearEdit e;
		r = SplitPass(world, c, &work, pos, vel, limit, &e);
		if (r != WF_OK || e.splits == 0) {
			if (e.splits == 0)
				FreeEdit(&e);
			break;
		}
		wfClothModel nm;
		r = BuildModel(c, &work, &e, &nm);
		int* composed = (int*)malloc((size_t)e.n * sizeof(int));
		if (r != WF_OK || composed == NULL) {
			if (r == WF_OK)
				wfFreeModel(&nm);
			free(composed);
			FreeEdit(&e);
			r = wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "tear: out of memory rebuilding cloth %d", c->index);
			break;
		}
		for (int k = 0; k < e.n; ++k)
			composed[k] = from != NULL ? from[e.from[k]] : e.from[k];
		// The pass's edit becomes the working state (its arrays handed over, the rest freed).
		if (changed) {
			wfFreeModel(&work);
			free(pos);
			free(vel);
		}
		free(from);
		from = composed;
		work = nm;
		pos = e.pos;
		vel = e.vel;
		e.pos = e.vel = NULL;
		FreeEdit(&e);
		changed = true;
	}
	if (changed && r == WF_OK)
		r = wfClothReplaceModel(world, c, &work, from, pos, vel);
	else if (changed)
		wfFreeModel(&work);
	if (changed) {
		free(pos);
		free(vel);
	}
	free(from);
	return r;
}

static int CopyArray(void** to, const void* from, size_t bytes)
{
	if (from == NULL) {
		*to = NULL;
		return 1;
	}
	*to = wfAlloc(bytes > 0 ? bytes : 1);
	if (*to != NULL)
		memcpy(*to, from, bytes);
	return *to != NULL ? 1 : 0;
}

wfResult wfCopyModel(const wfClothModel* f, wfClothModel* t)
{
	*t = *f;
	const size_t n = (size_t)f->particleCount, k = (size_t)f->constraintCount, tri = (size_t)f->triangleCount;
	int ok = CopyArray((void**)&t->constraints, f->constraints, k * sizeof(wfConstraint));
	ok &= CopyArray((void**)&t->colorStart, f->colorStart, (size_t)(f->colorCount + 1) * sizeof(int));
	ok &= CopyArray((void**)&t->adjStart, f->adjStart, (n + 1) * sizeof(int));
	ok &= CopyArray((void**)&t->adjConstraint, f->adjConstraint, 2 * k * sizeof(uint32_t));
	ok &= CopyArray((void**)&t->adjOther, f->adjOther, 2 * k * sizeof(uint32_t));
	ok &= CopyArray((void**)&t->jacobiWeight, f->jacobiWeight, k * sizeof(float));
	ok &= CopyArray((void**)&t->indices, f->indices, 3 * tri * sizeof(uint32_t));
	ok &= CopyArray((void**)&t->uvs, f->uvs, 2 * n * sizeof(float));
	ok &= CopyArray((void**)&t->cornerUVs, f->cornerUVs, 6 * tri * sizeof(float));
	ok &= CopyArray((void**)&t->triStart, f->triStart, (n + 1) * sizeof(int));
	ok &= CopyArray((void**)&t->triList, f->triList, 3 * tri * sizeof(uint32_t));
	ok &= CopyArray((void**)&t->partnerStart, f->partnerStart, (n + 1) * sizeof(int));
	ok &= CopyArray((void**)&t->partnerList, f->partnerList, (size_t)(f->partnerStart != NULL ? f->partnerStart[n] : 0) * sizeof(uint32_t));
	ok &= CopyArray((void**)&t->triArea, f->triArea, tri * sizeof(float));
	ok &= CopyArray((void**)&t->restPositions, f->restPositions, n * sizeof(wfVec4));
	ok &= CopyArray((void**)&t->tethers, f->tethers, n * sizeof(wfConstraint));
	ok &= CopyArray((void**)&t->tileStart, f->tileStart, (size_t)f->colorCount * (size_t)(f->tileCount + 1) * sizeof(int));
	ok &= CopyArray((void**)&t->solveRange, f->solveRange, (size_t)(2 * f->solveRangeCount) * sizeof(int));
	if (!ok) {
		wfFreeModel(t);
		return WF_ERROR_OUT_OF_MEMORY;
	}
	return WF_OK;
}
