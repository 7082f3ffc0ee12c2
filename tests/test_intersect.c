// The intersection checker (wfWorld_CountIntersections): constructed cases with known counts, and
// the grid's counts equal to a brute-force pass over every (edge, triangle) pair on crumpled cloths.
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// A world on the CPU with contact between cloths (self-collision's betweenCloths) on or off.
static wfWorld* CpuWorldWith(bool between)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = WF_BACKEND_CPU;
	wd.sphere.enabled = false;
	wd.floor.enabled = false;
	wd.selfCollision.enabled = between;
	wd.selfCollision.betweenCloths = between;
	return wfTestCreateWorld(&wd, NULL, 0);
}

static wfWorld* CpuWorld(void) { return CpuWorldWith(true); }

// A cols x rows sheet in the xz plane at height y (the default grid, horizontal), in collision
// group `group` with mask `mask`.
static wfClothId SheetIn(wfWorld* w, int cols, int rows, float size, wfVec3 origin, int group, int mask)
{
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cols;
	cd.rows = rows;
	cd.width = cd.height = size;
	cd.orientation = WF_ORIENT_HORIZONTAL;
	cd.origin = origin;
	cd.pinMode = WF_PIN_NONE;
	cd.collisionGroup = group;
	cd.collisionMask = mask;
	return wfCreateCloth(w, &cd);
}

static wfClothId Sheet(wfWorld* w, int cols, int rows, float size, wfVec3 origin)
{
	const wfClothDef d = wfDefaultClothDef();
	return SheetIn(w, cols, rows, size, origin, d.collisionGroup, d.collisionMask);
}

// Sheet b stood upright through sheet a (its positions rotated into the xy plane at z = 0.013,
// off a's grid lines).
static void StandThrough(wfClothId b)
{
	wfVec3 p[36];
	wfCloth_ReadPositions(b, p, 36);
	for (int i = 0; i < 36; ++i)
		p[i] = (wfVec3){p[i].x + 0.031f, 1.0f + p[i].z, 0.013f};
	wfCloth_WritePositions(b, p, 36);
}

// ---------------------------------------------------------------- a brute-force reference

static double Orient(const double* a, const double* b, const double* c, const double* d)
{
	const double bx = b[0] - a[0], by = b[1] - a[1], bz = b[2] - a[2];
	const double cx = c[0] - a[0], cy = c[1] - a[1], cz = c[2] - a[2];
	const double dx = d[0] - a[0], dy = d[1] - a[1], dz = d[2] - a[2];
	return bx * (cy * dz - cz * dy) - by * (cx * dz - cz * dx) + bz * (cx * dy - cy * dx);
}

static bool Crosses(const double* p, const double* q, const double* a, const double* b, const double* c)
{
	const double sp = Orient(a, b, c, p), sq = Orient(a, b, c, q);
	if ((sp > 0.0 && sq > 0.0) || (sp < 0.0 && sq < 0.0) || (sp == 0.0 && sq == 0.0))
		return false;
	const double o1 = Orient(p, q, a, b), o2 = Orient(p, q, b, c), o3 = Orient(p, q, c, a);
	return (o1 >= 0.0 && o2 >= 0.0 && o3 >= 0.0) || (o1 <= 0.0 && o2 <= 0.0 && o3 <= 0.0);
}

typedef struct Ref {
	int n, t;
	double* p;
	uint32_t* tri;
	int* src;
} Ref;

static void RefLoad(wfClothId id, Ref* r)
{
	wfClothInfo info;
	wfCloth_GetInfo(id, &info);
	r->n = info.particleCount;
	r->t = info.triangleCount;
	wfVec3* local = malloc(sizeof *local * (size_t)r->n);
	r->p = malloc(sizeof *r->p * 3 * (size_t)r->n);
	r->tri = malloc(sizeof *r->tri * 3 * (size_t)r->t);
	r->src = malloc(sizeof *r->src * (size_t)r->n);
	double o[3];
	wfCloth_GetOrigin(id, o);
	wfCloth_ReadLocalPositions(id, local, r->n);
	wfCloth_ReadIndices(id, r->tri, 3 * r->t);
	wfCloth_ReadSourceParticles(id, r->src, r->n);
	for (int i = 0; i < r->n; ++i) {
		r->p[3 * i] = o[0] + local[i].x;
		r->p[3 * i + 1] = o[1] + local[i].y;
		r->p[3 * i + 2] = o[2] + local[i].z;
	}
	free(local);
}

static void RefFree(Ref* r)
{
	free(r->p);
	free(r->tri);
	free(r->src);
}

// Every triangle side of e (each once: the side whose triangle comes first) against every triangle of t.
static long long RefCount(const Ref* e, const Ref* t, bool self)
{
	long long count = 0;
	for (int k = 0; k < e->t; ++k) {
		for (int s = 0; s < 3; ++s) {
			uint32_t a = e->tri[3 * k + s], b = e->tri[3 * k + (s + 1) % 3];
			// Seen before in an earlier triangle (or earlier in this one)?
			bool seen = false;
			for (int j = 0; j <= k && !seen; ++j) {
				for (int u = 0; u < 3 && !seen; ++u) {
					if (j == k && u >= s)
						break;
					uint32_t c = e->tri[3 * j + u], d = e->tri[3 * j + (u + 1) % 3];
					seen = (c == a && d == b) || (c == b && d == a);
				}
			}
			if (seen)
				continue;
			for (int m = 0; m < t->t; ++m) {
				const uint32_t* v = t->tri + 3 * m;
				if (self) {
					bool shared = false;
					for (int z = 0; z < 3; ++z)
						shared = shared || t->src[v[z]] == e->src[a] || t->src[v[z]] == e->src[b];
					if (shared)
						continue;
				}
				count += Crosses(e->p + 3 * a, e->p + 3 * b, t->p + 3 * v[0], t->p + 3 * v[1], t->p + 3 * v[2]);
			}
		}
	}
	return count;
}

// ---------------------------------------------------------------- tests

// A flat sheet: nothing. The same sheet folded through itself along a line: each row of the folded
// part's columns that crosses... counted both ways equal to the reference.
WF_TEST(intersections_constructed)
{
	wfWorld* w = CpuWorld();
	ENSURE(w != NULL);
	wfClothId a = Sheet(w, 8, 8, 1.0f, (wfVec3){0, 1, 0});
	ENSURE(!wfClothId_IsNull(a));
	wfIntersections ix;
	ENSURE(wfWorld_CountIntersections(w, &ix) == WF_OK);
	ENSURE(ix.self == 0 && ix.cloths == 0 && ix.colliders == 0 && ix.clothsApart == 0);

	// A second sheet standing upright through the first: its sides cross the flat sheet's triangles
	// and the other way round; the counts equal the brute-force pass, and are not zero.
	wfClothId b = Sheet(w, 6, 6, 0.6f, (wfVec3){0, 1, 0});
	ENSURE(!wfClothId_IsNull(b));
	StandThrough(b);
	wfVec3 p[36];
	ENSURE(wfCloth_ReadPositions(b, p, 36) == WF_OK);
	ENSURE(wfWorld_CountIntersections(w, &ix) == WF_OK);
	Ref ra, rb;
	RefLoad(a, &ra);
	RefLoad(b, &rb);
	const long long between = RefCount(&ra, &rb, false) + RefCount(&rb, &ra, false);
	fprintf(stderr, "  upright sheet through a flat one: %lld crossings between (reference %lld), self %lld\n", (long long)ix.cloths,
		between, (long long)ix.self);
	ENSURE(ix.cloths == between && between > 0);
	ENSURE(ix.self == 0 && ix.colliders == 0 && ix.clothsApart == 0);
	RefFree(&ra);
	RefFree(&rb);

	// Moved 2 m away: nothing.
	for (int i = 0; i < 36; ++i)
		p[i].y += 2.0f;
	ENSURE(wfCloth_WritePositions(b, p, 36) == WF_OK);
	ENSURE(wfWorld_CountIntersections(w, &ix) == WF_OK);
	ENSURE(ix.self == 0 && ix.cloths == 0);
	wfDestroyWorld(w);
	ENSURE(wfWorld_CountIntersections(NULL, &ix) == WF_ERROR_INVALID_ARGUMENT);
	return 0;
}

// Crossings between cloths the world keeps apart are what the scene asks for (scenes/stacked.json's
// third sheet falls through the other two): they go to clothsApart, not to cloths. The upright sheet
// through the flat one as above, in four worlds: contact between cloths off; on, with the pair kept
// apart by the upright sheet's mask; on, with group and mask letting them meet; on, with the upright
// sheet in stacked.json's group of its own (group 2, mask 2).
WF_TEST(intersections_pairs_kept_apart)
{
	const struct {
		bool between;
		int group, mask; // the upright sheet's (the flat one keeps the defaults: group 1, every bit of the mask)
		bool meet;
	} cases[4] = {{false, 1, 0x7fffffff, false}, {true, 1, 2, false}, {true, 2, 0x7fffffff, true}, {true, 2, 2, false}};
	long long counted = -1;
	for (int k = 0; k < 4; ++k) {
		wfWorld* w = CpuWorldWith(cases[k].between);
		ENSURE(w != NULL);
		wfClothId a = Sheet(w, 8, 8, 1.0f, (wfVec3){0, 1, 0});
		wfClothId b = SheetIn(w, 6, 6, 0.6f, (wfVec3){0, 1, 0}, cases[k].group, cases[k].mask);
		ENSURE(!wfClothId_IsNull(a) && !wfClothId_IsNull(b));
		StandThrough(b);
		wfIntersections ix;
		ENSURE(wfWorld_CountIntersections(w, &ix) == WF_OK);
		fprintf(stderr, "  between %d, group %d, mask %#x: %lld between cloths, %lld kept apart\n", cases[k].between, cases[k].group,
			(unsigned)cases[k].mask, (long long)ix.cloths, (long long)ix.clothsApart);
		const long long all = ix.cloths + ix.clothsApart;
		ENSURE(all > 0 && (counted < 0 || all == counted)); // the same crossings, filed by the pair rule
		counted = all;
		ENSURE(cases[k].meet ? ix.clothsApart == 0 : ix.cloths == 0);
		ENSURE(ix.self == 0 && ix.colliders == 0);
		wfDestroyWorld(w);
	}
	return 0;
}

// Crumpled cloths (random positions in a small box: thousands of crossings, long edges that cover
// many cells, self and between): the grid's counts equal the brute-force reference exactly.
WF_TEST(intersections_equal_brute_force)
{
	wfWorld* w = CpuWorld();
	ENSURE(w != NULL);
	wfClothId ids[2] = {Sheet(w, 12, 10, 1.0f, (wfVec3){0, 0, 0}), Sheet(w, 9, 9, 1.0f, (wfVec3){0, 0, 0})};
	ENSURE(!wfClothId_IsNull(ids[0]) && !wfClothId_IsNull(ids[1]));
	unsigned seed = 12345u;
	for (int round = 0; round < 4; ++round) {
		for (int c = 0; c < 2; ++c) {
			wfClothInfo info;
			ENSURE(wfCloth_GetInfo(ids[c], &info) == WF_OK);
			wfVec3* p = malloc(sizeof *p * (size_t)info.particleCount);
			ENSURE(wfCloth_ReadPositions(ids[c], p, info.particleCount) == WF_OK);
			// Round 0: jitter a little (few crossings); 1: crumple into a 0.3 m box; 2: spread 5 m;
			// 3: crumpled, with one particle 69 m away along the diagonal (its edges cover more cells than the grid
			// visits: the scan of every entry).
			const float scale[4] = {0.05f, 0.3f, 5.0f, 0.3f};
			for (int i = 0; i < info.particleCount; ++i) {
				float r[3];
				for (int k = 0; k < 3; ++k) {
					seed = seed * 1664525u + 1013904223u;
					r[k] = ((float)(seed >> 8) / 16777216.0f - 0.5f) * scale[round];
				}
				if (round == 0)
					p[i] = (wfVec3){p[i].x + r[0], p[i].y + r[1], p[i].z + r[2]};
				else
					p[i] = (wfVec3){r[0], r[1] + (float)c * 0.05f, r[2]};
			}
			if (round == 3 && c == 0)
				p[0] = (wfVec3){40.0f, 40.0f, 40.0f};
			ENSURE(wfCloth_WritePositions(ids[c], p, info.particleCount) == WF_OK);
			free(p);
		}
		wfIntersections ix;
		ENSURE(wfWorld_CountIntersections(w, &ix) == WF_OK);
		Ref r0, r1;
		RefLoad(ids[0], &r0);
		RefLoad(ids[1], &r1);
		const long long self = RefCount(&r0, &r0, true) + RefCount(&r1, &r1, true);
		const long long between = RefCount(&r0, &r1, false) + RefCount(&r1, &r0, false);
		fprintf(stderr, "  round %d: self %lld (reference %lld), between %lld (reference %lld)\n", round, (long long)ix.self, self,
			(long long)ix.cloths, between);
		ENSURE(ix.self == self && ix.cloths == between);
		ENSURE(round == 0 || (self > 100 && between > 100));
		RefFree(&r0);
		RefFree(&r1);
	}
	wfDestroyWorld(w);
	return 0;
}

// Colliders: particles put inside the sphere, a box and under the floor are counted one each; an
// edge through a box with both ends outside counts; a particle on a surface (float rounding) does not.
WF_TEST(intersections_colliders)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = WF_BACKEND_CPU;
	wd.sphere.enabled = true;
	wd.sphere.center = (wfVec3){0, 0, 0};
	wd.sphere.radius = 0.5f;
	wd.sphere.moving = false;
	wd.floor.enabled = true;
	wd.floor.height = -2.0f;
	wfWorld* w = wfTestCreateWorld(&wd, NULL, 0);
	ENSURE(w != NULL);
	wfColliderDef box = wfDefaultColliderDef();
	box.type = WF_COLLIDER_BOX;
	box.position = (wfVec3){3, 0, 0};
	box.halfExtents = (wfVec3){0.1f, 0.1f, 0.1f};
	ENSURE(!wfColliderId_IsNull(wfCreateCollider(w, &box)));
	// A 2 x 2 sheet: 4 particles, 2 triangles, 5 sides.
	wfClothId c = Sheet(w, 2, 2, 1.0f, (wfVec3){0, 5, 0});
	ENSURE(!wfClothId_IsNull(c));
	wfIntersections ix;
	ENSURE(wfWorld_CountIntersections(w, &ix) == WF_OK);
	ENSURE(ix.colliders == 0);
	// Particle 0 on the sphere's surface (rounded), 1 at the centre, 2 under the floor, 3 far away.
	wfVec3 p[4] = {{0.5f, 0, 0}, {0, 0, 0}, {0, -2.5f, 0}, {9, 9, 9}};
	ENSURE(wfCloth_WritePositions(c, p, 4) == WF_OK);
	ENSURE(wfWorld_CountIntersections(w, &ix) == WF_OK);
	fprintf(stderr, "  inside: %lld\n", (long long)ix.colliders);
	ENSURE(ix.colliders >= 2); // the centre and under the floor, plus the sides through the sphere
	// Every particle outside, one side straight through the box along x: the side counts, once.
	wfVec3 q[4] = {{2.5f, 0, 0}, {3.5f, 0, 0}, {2.5f, 5, 0}, {3.5f, 5, 3}};
	ENSURE(wfCloth_WritePositions(c, q, 4) == WF_OK);
	ENSURE(wfWorld_CountIntersections(w, &ix) == WF_OK);
	uint32_t tri[6];
	ENSURE(wfCloth_ReadIndices(c, tri, 6) == WF_OK);
	// Which sides join 0 and 1 (the one through the box): a side of the triangulation, or none.
	int through = 0;
	for (int t = 0; t < 2; ++t)
		for (int s = 0; s < 3; ++s) {
			uint32_t a = tri[3 * t + s], b = tri[3 * t + (s + 1) % 3];
			through += (a == 0 && b == 1) || (a == 1 && b == 0);
		}
	fprintf(stderr, "  edge through the box: %lld (sides 0-1: %d)\n", (long long)ix.colliders, through);
	ENSURE(through >= 1 && ix.colliders == 1);
	wfDestroyWorld(w);
	return 0;
}
