// Triangle-mesh colliders (WF_COLLIDER_MESH): a cloth draped over a mesh sphere and a mesh box rests
// on them with no intersection (wfWorld_CountIntersections, exact) and where the analytic shapes
// hold it; a sheet at 200 m/s does not pass a two-triangle floor; a fast box, a body that grows
// (wfCollider_SetMeshVertices) and one shaped by keys push the cloth without letting it through;
// the checker counts a constructed case exactly; bad meshes name their field (CPU and Vulkan worlds).
// mkdtemp (POSIX) for the scene files' folder.
#define _POSIX_C_SOURCE 200809L

#include "test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct Body {
	wfVec3* v;
	uint32_t* idx;
	int vertexCount, triangleCount;
	wfMeshDef def;
} Body;

static void BodyFree(Body* b)
{
	free(b->v);
	free(b->idx);
}

static void BodyDef(Body* b)
{
	b->def = (wfMeshDef){.positions = b->v, .vertexCount = b->vertexCount, .indices = b->idx, .faceCount = b->triangleCount};
}

// A latitude-longitude sphere of radius r: two poles, rings - 1 rings of seg vertices.
static Body Sphere(float r, int seg, int rings)
{
	Body b = {0};
	b.vertexCount = 2 + (rings - 1) * seg;
	b.triangleCount = 2 * seg * (rings - 1);
	b.v = (wfVec3*)malloc((size_t)b.vertexCount * sizeof *b.v);
	b.idx = (uint32_t*)malloc(3 * (size_t)b.triangleCount * sizeof *b.idx);
	b.v[0] = (wfVec3){0.0f, r, 0.0f};
	b.v[1] = (wfVec3){0.0f, -r, 0.0f};
	for (int i = 1; i < rings; ++i) {
		const double th = 3.14159265358979 * i / rings;
		for (int j = 0; j < seg; ++j) {
			const double ph = 2.0 * 3.14159265358979 * j / seg;
			b.v[2 + (i - 1) * seg + j] = (wfVec3){(float)(r * sin(th) * cos(ph)), (float)(r * cos(th)), (float)(r * sin(th) * sin(ph))};
		}
	}
	uint32_t* t = b.idx;
	for (int j = 0; j < seg; ++j) {
		const uint32_t a = 2 + (uint32_t)j, c = 2 + (uint32_t)((j + 1) % seg);
		*t++ = 0, *t++ = c, *t++ = a;
		const uint32_t base = 2 + (uint32_t)((rings - 2) * seg);
		*t++ = 1, *t++ = base + (uint32_t)j, *t++ = base + (uint32_t)((j + 1) % seg);
	}
	for (int i = 0; i < rings - 2; ++i) {
		for (int j = 0; j < seg; ++j) {
			const uint32_t a = 2 + (uint32_t)(i * seg + j), c = 2 + (uint32_t)(i * seg + (j + 1) % seg);
			const uint32_t d = a + (uint32_t)seg, e = c + (uint32_t)seg;
			*t++ = a, *t++ = c, *t++ = e;
			*t++ = a, *t++ = e, *t++ = d;
		}
	}
	BodyDef(&b);
	return b;
}

// An axis-aligned box of half extents e, twelve triangles.
static Body Box(wfVec3 e)
{
	Body b = {0};
	b.vertexCount = 8;
	b.triangleCount = 12;
	b.v = (wfVec3*)malloc(8 * sizeof *b.v);
	b.idx = (uint32_t*)malloc(36 * sizeof *b.idx);
	for (int i = 0; i < 8; ++i)
		b.v[i] = (wfVec3){(i & 1) ? e.x : -e.x, (i & 2) ? e.y : -e.y, (i & 4) ? e.z : -e.z};
	static const uint32_t faces[36] = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4, 2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1,
		7, 5};
	memcpy(b.idx, faces, sizeof faces);
	BodyDef(&b);
	return b;
}

static wfWorld* CpuWorld(wfWorldDef wd)
{
	wd.backend = WF_BACKEND_CPU;
	char err[256];
	wfWorld* w = wfTestCreateWorld(&wd, err, sizeof err);
	if (w == NULL)
		fprintf(stderr, "  world: %s\n", err);
	return w;
}

static wfColliderId MeshCollider(wfWorld* w, const Body* b, wfVec3 at)
{
	wfColliderDef k = wfDefaultColliderDef();
	k.type = WF_COLLIDER_MESH;
	k.mesh = &b->def;
	k.position = at;
	wfColliderId id = wfCreateCollider(w, &k);
	if (wfColliderId_IsNull(id))
		fprintf(stderr, "  collider: %s\n", wfWorld_GetLastError(w));
	return id;
}

static wfClothId Sheet(wfWorld* w, int n, float size, wfVec3 origin)
{
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = n;
	cd.width = cd.height = size;
	cd.orientation = WF_ORIENT_HORIZONTAL;
	cd.origin = origin;
	cd.pinMode = WF_PIN_NONE;
	return wfCreateCloth(w, &cd);
}

// Crossings of cloth and mesh colliders (and particles inside them): wfIntersections.colliders.
// Without self-collision a cloth may pass through itself: printed, not counted.
static int64_t Crossings(wfWorld* w)
{
	wfIntersections ix;
	if (wfWorld_CountIntersections(w, &ix) != WF_OK)
		return -1;
	if (ix.self + ix.cloths + ix.colliders != 0)
		fprintf(stderr, "  intersections: %lld self, %lld between cloths, %lld with colliders\n", (long long)ix.self, (long long)ix.cloths,
			(long long)ix.colliders);
	return ix.colliders;
}

// The height of particle i.
static float Height(wfClothId id, int i, int n)
{
	wfVec3* p = (wfVec3*)malloc((size_t)n * sizeof *p);
	float y = wfCloth_ReadPositions(id, p, n) == WF_OK ? p[i].y : NAN;
	free(p);
	return y;
}

// A 40 x 40 sheet dropped on a 2 208-triangle sphere: zero intersections at every tenth frame, and
// the sheet's middle rests on the top of the polyhedron plus the thickness.
WF_TEST(mesh_collider_drape_sphere)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.step.substeps = 10;
	wfWorld* w = CpuWorld(wd);
	ENSURE(w != NULL);
	Body b = Sphere(0.3f, 48, 24);
	ENSURE(!wfColliderId_IsNull(MeshCollider(w, &b, (wfVec3){0.0f, 0.5f, 0.0f})));
	wfClothId id = Sheet(w, 40, 1.2f, (wfVec3){0.0f, 0.9f, 0.0f});
	ENSURE(!wfClothId_IsNull(id));
	int64_t worst = 0;
	for (int frame = 1; frame <= 150; ++frame) {
		ENSURE(wfWorld_Step(w) == WF_OK);
		if (frame % 10 == 0) {
			const int64_t x = Crossings(w);
			worst = x > worst || x < 0 ? x : worst;
		}
	}
	ENSURE(worst == 0);
	// Particle 20 * 40 + 20 is 15 mm off the centre; the pole of the mesh is at 0.8 m.
	const float top = Height(id, 20 * 40 + 20, 1600);
	ENSURE_NEAR(top, 0.5f + 0.3f + wd.contact.thickness, 3e-3);
	BodyFree(&b);
	wfDestroyWorld(w);
	return 0;
}

// The same tablecloth on a mesh box and on the analytic box of the same size: the same rest on the
// top, and on the mesh no intersection (its edges and corners meet the cloth's edges and triangles).
WF_TEST(mesh_collider_box_matches_analytic)
{
	float y[2][3];
	for (int run = 0; run < 2; ++run) {
		wfWorldDef wd = wfDefaultWorldDef();
		wd.step.substeps = 10;
		wfWorld* w = CpuWorld(wd);
		ENSURE(w != NULL);
		const wfVec3 half = {0.3f, 0.2f, 0.3f};
		Body b = Box(half);
		if (run == 0) {
			ENSURE(!wfColliderId_IsNull(MeshCollider(w, &b, (wfVec3){0.0f, 0.5f, 0.0f})));
		} else {
			wfColliderDef k = wfDefaultColliderDef();
			k.type = WF_COLLIDER_BOX;
			k.halfExtents = half;
			k.position = (wfVec3){0.0f, 0.5f, 0.0f};
			ENSURE(!wfColliderId_IsNull(wfCreateCollider(w, &k)));
		}
		wfClothId id = Sheet(w, 31, 1.0f, (wfVec3){0.0f, 0.8f, 0.0f});
		for (int frame = 0; frame < 120; ++frame)
			ENSURE(wfWorld_Step(w) == WF_OK);
		// The analytic box has no edge contact: cloth edges cut its sharp edges (printed: 72 here).
		const int64_t x = Crossings(w);
		ENSURE(run == 1 || x == 0);
		y[run][0] = Height(id, 15 * 31 + 15, 31 * 31); // the middle, on the top face
		y[run][1] = Height(id, 15 * 31 + 7, 31 * 31);  // over the top face, 3 cm from its side
		y[run][2] = Height(id, 15 * 31, 31 * 31);      // the hanging side
		BodyFree(&b);
		wfDestroyWorld(w);
	}
	ENSURE_NEAR(y[0][0], 0.7f + 0.01f, 1e-4);
	ENSURE_NEAR(y[0][0], y[1][0], 1e-4);
	// 3 cm from the side the mesh's cloth is a few mm higher: it goes over the edge at the thickness
	// instead of cutting it.
	ENSURE_NEAR(y[0][1], y[1][1], 6e-3);
	// Both drape: the side hangs well below the top (on the mesh 3.7 cm higher than on the analytic
	// box, whose edge the cloth cuts).
	ENSURE_LE(y[0][2], 0.6f);
	ENSURE_LE(y[1][2], 0.6f);
	return 0;
}

// The threads share a mesh body's placement and take its contact loops (and self-collision's) on a
// dynamic schedule: a 96 x 96 sheet (a thread team's size) with self-collision draped over a mesh
// box, whose sharp edges and corners run every pass, steps to the same state hash at 1 and 3
// threads in every frame, rests on the top and crosses nothing.
WF_TEST(mesh_threads_same_bits)
{
	enum { FRAMES = 40, N = 96 };
	uint64_t hash[2][FRAMES];
	for (int run = 0; run < 2; ++run) {
		wfWorldDef wd = wfDefaultWorldDef();
		wd.step.substeps = 10;
		wd.threads = run == 0 ? 1 : 3;
		wd.selfCollision.enabled = true;
		wd.selfCollision.thickness = 0.004f;
		wfWorld* w = CpuWorld(wd);
		ENSURE(w != NULL);
		Body b = Box((wfVec3){0.3f, 0.2f, 0.3f});
		ENSURE(!wfColliderId_IsNull(MeshCollider(w, &b, (wfVec3){0.0f, 0.5f, 0.0f})));
		wfClothId id = Sheet(w, N, 1.0f, (wfVec3){0.0f, 0.8f, 0.0f});
		ENSURE(!wfClothId_IsNull(id));
		for (int frame = 0; frame < FRAMES; ++frame)
			ENSURE(wfWorld_Step(w) == WF_OK && wfWorld_GetStateHash(w, &hash[run][frame]) == WF_OK);
		ENSURE(Crossings(w) == 0);
		ENSURE_NEAR(Height(id, N / 2 * N + N / 2, N * N), 0.7f + wd.contact.thickness, 1e-3);
		BodyFree(&b);
		wfDestroyWorld(w);
	}
	for (int frame = 0; frame < FRAMES; ++frame)
		ENSURE(hash[0][frame] == hash[1][frame]);
	return 0;
}

// A sheet at 200 m/s against a floor of two triangles (an open mesh: two-sided): 1.67 m a substep,
// 167 times the thickness, and no particle gets below it.
WF_TEST(mesh_collider_fast_sheet_open_mesh)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.step.substeps = 2;
	wfWorld* w = CpuWorld(wd);
	ENSURE(w != NULL);
	Body b = {0};
	b.vertexCount = 4;
	b.triangleCount = 2;
	b.v = (wfVec3*)malloc(4 * sizeof *b.v);
	b.idx = (uint32_t*)malloc(6 * sizeof *b.idx);
	const wfVec3 corners[4] = {{-2, 0, -2}, {2, 0, -2}, {2, 0, 2}, {-2, 0, 2}};
	const uint32_t tris[6] = {0, 1, 2, 0, 2, 3};
	memcpy(b.v, corners, sizeof corners);
	memcpy(b.idx, tris, sizeof tris);
	BodyDef(&b);
	ENSURE(!wfColliderId_IsNull(MeshCollider(w, &b, (wfVec3){0.0f, 0.0f, 0.0f})));
	wfClothId id = Sheet(w, 16, 1.0f, (wfVec3){0.3f, 0.5f, 0.1f});
	wfVec3 v[256], p[256];
	for (int i = 0; i < 256; ++i)
		v[i] = (wfVec3){3.0f, -200.0f, 1.0f};
	ENSURE(wfCloth_WriteVelocities(id, v, 256) == WF_OK);
	float lowest = 1e9f;
	for (int frame = 0; frame < 20; ++frame) {
		ENSURE(wfWorld_Step(w) == WF_OK);
		ENSURE(wfCloth_ReadPositions(id, p, 256) == WF_OK);
		for (int i = 0; i < 256; ++i)
			lowest = fminf(lowest, p[i].y);
		ENSURE(Crossings(w) == 0);
	}
	ENSURE_NEAR(lowest, wd.contact.thickness, 1e-5);
	BodyFree(&b);
	wfDestroyWorld(w);
	return 0;
}

// A 0.2 m mesh cube at 12 m/s (12.5 mm a substep) into a hanging sheet (wfCollider_SetTransform every
// frame) for 4 frames: it carries the sheet ahead of its front face, and no particle or edge is
// ever inside it, nor a corner of it through the sheet.
WF_TEST(mesh_collider_fast_box_pushes_cloth)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.step.substeps = 16;
	wfWorld* w = CpuWorld(wd);
	ENSURE(w != NULL);
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = 24;
	cd.width = cd.height = 1.0f;
	cd.orientation = WF_ORIENT_VERTICAL;
	cd.origin = (wfVec3){0.0f, 1.0f, 0.0f};
	cd.pinMode = WF_PIN_TOP_ROW;
	wfClothId id = wfCreateCloth(w, &cd);
	ENSURE(!wfClothId_IsNull(id));
	Body b = Box((wfVec3){0.1f, 0.1f, 0.1f});
	float z = -0.4f;
	wfColliderId box = MeshCollider(w, &b, (wfVec3){0.0f, 0.9f, z});
	ENSURE(!wfColliderId_IsNull(box));
	int64_t worst = 0;
	for (int frame = 0; frame < 4; ++frame) {
		z += 12.0f * wd.step.timeStep;
		ENSURE(wfCollider_SetTransform(box, (wfVec3){0.0f, 0.9f, z}, (wfQuat){0, 0, 0, 1}) == WF_OK);
		ENSURE(wfWorld_Step(w) == WF_OK);
		const int64_t x = Crossings(w);
		worst = x > worst || x < 0 ? x : worst;
	}
	ENSURE(worst == 0);
	wfVec3 p[576];
	ENSURE(wfCloth_ReadPositions(id, p, 576) == WF_OK);
	float front = -1e9f;
	for (int i = 0; i < 576; ++i)
		front = fmaxf(front, p[i].z);
	// The box's front face is at z + 0.1: the sheet goes with it, ahead of it.
	ENSURE_LE(z + 0.1f + wd.contact.thickness, front);
	ENSURE_LE(front, z + 0.2f);
	BodyFree(&b);
	wfDestroyWorld(w);
	return 0;
}

// A skinned body: the sphere under a draped sheet grows from 0.2 m to 0.35 m over a second, its new
// vertices handed over every frame; the sheet rises with it and nothing passes through.
WF_TEST(mesh_collider_set_vertices_grows)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.step.substeps = 10;
	wfWorld* w = CpuWorld(wd);
	ENSURE(w != NULL);
	Body b = Sphere(1.0f, 32, 16);
	wfVec3* shape = (wfVec3*)malloc((size_t)b.vertexCount * sizeof *shape);
	for (int i = 0; i < b.vertexCount; ++i)
		b.v[i] = (wfVec3){0.2f * b.v[i].x, 0.2f * b.v[i].y, 0.2f * b.v[i].z};
	wfColliderId body = MeshCollider(w, &b, (wfVec3){0.0f, 0.5f, 0.0f});
	ENSURE(!wfColliderId_IsNull(body));
	wfClothId id = Sheet(w, 30, 1.0f, (wfVec3){0.0f, 0.75f, 0.0f});
	for (int frame = 0; frame < 60; ++frame)
		ENSURE(wfWorld_Step(w) == WF_OK);
	ENSURE_NEAR(Height(id, 15 * 30 + 15, 900), 0.7f + wd.contact.thickness, 4e-3);
	int64_t worst = 0;
	for (int frame = 1; frame <= 60; ++frame) {
		const float r = 0.2f + 0.15f * (float)frame / 60.0f;
		for (int i = 0; i < b.vertexCount; ++i)
			shape[i] = (wfVec3){b.v[i].x * r / 0.2f, b.v[i].y * r / 0.2f, b.v[i].z * r / 0.2f};
		ENSURE(wfCollider_SetMeshVertices(body, shape, b.vertexCount) == WF_OK);
		ENSURE(wfWorld_Step(w) == WF_OK);
		const int64_t x = Crossings(w);
		worst = x > worst || x < 0 ? x : worst;
	}
	ENSURE(worst == 0);
	wfVec3 now;
	ENSURE(wfCollider_GetMeshVertices(body, &now, 1) == b.vertexCount);
	ENSURE_NEAR(now.y, 0.35f, 1e-6);
	for (int frame = 0; frame < 30; ++frame)
		ENSURE(wfWorld_Step(w) == WF_OK);
	ENSURE_NEAR(Height(id, 15 * 30 + 15, 900), 0.85f + wd.contact.thickness, 4e-3);
	free(shape);
	BodyFree(&b);
	wfDestroyWorld(w);
	return 0;
}

// Shapes from keys: a sphere of radius 0.2 at t = 0 and 0.35 at t = 1 s; halfway the pole is at
// 0.275, and the draped sheet is never passed through.
WF_TEST(mesh_collider_key_shapes)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.step.substeps = 10;
	wfWorld* w = CpuWorld(wd);
	ENSURE(w != NULL);
	Body b = Sphere(0.2f, 32, 16);
	wfVec3* keyShapes = (wfVec3*)malloc(2 * (size_t)b.vertexCount * sizeof *keyShapes);
	for (int i = 0; i < b.vertexCount; ++i) {
		keyShapes[i] = b.v[i];
		keyShapes[b.vertexCount + i] = (wfVec3){1.75f * b.v[i].x, 1.75f * b.v[i].y, 1.75f * b.v[i].z};
	}
	const wfColliderKey keys[2] = {{0.0f, {0.0f, 0.5f, 0.0f}, {0, 0, 0, 1}}, {1.0f, {0.0f, 0.5f, 0.0f}, {0, 0, 0, 1}}};
	wfColliderDef k = wfDefaultColliderDef();
	k.type = WF_COLLIDER_MESH;
	k.mesh = &b.def;
	k.keys = keys;
	k.keyCount = 2;
	k.keyPositions = keyShapes;
	k.keyPositionCount = 2 * b.vertexCount;
	wfColliderId body = wfCreateCollider(w, &k);
	ENSURE(!wfColliderId_IsNull(body));
	ENSURE(wfCollider_SetMeshVertices(body, b.v, b.vertexCount) == WF_ERROR_INVALID_ARGUMENT);
	Sheet(w, 30, 1.0f, (wfVec3){0.0f, 0.72f, 0.0f});
	int64_t worst = 0;
	for (int frame = 1; frame <= 60; ++frame) {
		ENSURE(wfWorld_Step(w) == WF_OK);
		if (frame == 30) {
			wfVec3 pole;
			ENSURE(wfCollider_GetMeshVertices(body, &pole, 1) == b.vertexCount);
			ENSURE_NEAR(pole.y, 0.275f, 1e-6);
		}
		const int64_t x = Crossings(w);
		worst = x > worst || x < 0 ? x : worst;
	}
	ENSURE(worst == 0);
	free(keyShapes);
	BodyFree(&b);
	wfDestroyWorld(w);
	return 0;
}

// The checker on a constructed case: a 2 x 2 sheet across the x = 0.5 face of a unit mesh cube has
// 2 particles inside, 3 edges through the face, and the face's diagonal through one of its two
// triangles; wholly inside, 4 particles and no edge through.
WF_TEST(mesh_collider_checker_counts)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.gravity = (wfVec3){0.0f, 0.0f, 0.0f};
	wfWorld* w = CpuWorld(wd);
	ENSURE(w != NULL);
	Body b = Box((wfVec3){0.5f, 0.5f, 0.5f});
	ENSURE(!wfColliderId_IsNull(MeshCollider(w, &b, (wfVec3){0.0f, 0.0f, 0.0f})));
	wfClothId id = Sheet(w, 2, 0.4f, (wfVec3){0.5f, 0.13f, 0.05f});
	ENSURE(!wfClothId_IsNull(id));
	wfIntersections ix;
	ENSURE(wfWorld_CountIntersections(w, &ix) == WF_OK);
	ENSURE_NEAR(ix.colliders, 2 + 3 + 1, 0);
	ENSURE_NEAR(ix.self + ix.cloths, 0, 0);
	const wfVec3 inside[4] = {{-0.1f, 0.1f, -0.1f}, {0.1f, 0.1f, -0.1f}, {-0.1f, 0.1f, 0.1f}, {0.1f, 0.1f, 0.1f}};
	ENSURE(wfCloth_WritePositions(id, inside, 4) == WF_OK);
	ENSURE(wfWorld_CountIntersections(w, &ix) == WF_OK);
	ENSURE_NEAR(ix.colliders, 4, 0);
	BodyFree(&b);
	wfDestroyWorld(w);
	return 0;
}

// Bad meshes and calls name what is wrong, and create nothing.
WF_TEST(mesh_collider_errors)
{
	wfWorld* w = CpuWorld(wfDefaultWorldDef());
	ENSURE(w != NULL);
	Body b = Box((wfVec3){0.5f, 0.5f, 0.5f});
	wfColliderDef k = wfDefaultColliderDef();
	k.type = WF_COLLIDER_MESH;
	struct {
		const char* expect;
	} cases[6] = {{"collider.mesh: NULL"}, {"collider.mesh.positions[3]"}, {"has zero area"},
		{"collider.mesh.indices[7]: 8 is out of range"}, {"collider.keyPositions: set without keys"},
		{"collider.mesh: only for type mesh"}};
	for (int c = 0; c < 6; ++c) {
		Body m = Box((wfVec3){0.5f, 0.5f, 0.5f});
		wfColliderDef d = k;
		d.mesh = c == 0 ? NULL : &m.def;
		if (c == 1)
			m.v[3].y = NAN;
		if (c == 2)
			m.v[3] = m.v[2]; // triangle (0, 2, 3) of face 0 collapses onto a line
		if (c == 3)
			m.idx[7] = 8;
		if (c == 4)
			d.keyPositions = m.v;
		if (c == 5)
			d.type = WF_COLLIDER_SPHERE;
		ENSURE(wfColliderId_IsNull(wfCreateCollider(w, &d)));
		fprintf(stderr, "  %s\n", wfWorld_GetLastError(w));
		ENSURE(strstr(wfWorld_GetLastError(w), cases[c].expect) != NULL);
		ENSURE(wfWorld_GetColliderCount(w) == 0);
		BodyFree(&m);
	}
	k.mesh = &b.def;
	wfColliderId id = wfCreateCollider(w, &k);
	ENSURE(!wfColliderId_IsNull(id));
	wfVec3 shape[8];
	memcpy(shape, b.v, sizeof shape);
	ENSURE(wfCollider_SetMeshVertices(id, shape, 7) == WF_ERROR_INVALID_ARGUMENT);
	ENSURE(strstr(wfWorld_GetLastError(w), "count 7, the mesh has 8 vertices") != NULL);
	shape[5].z = INFINITY;
	ENSURE(wfCollider_SetMeshVertices(id, shape, 8) == WF_ERROR_INVALID_ARGUMENT);
	ENSURE(strstr(wfWorld_GetLastError(w), "positions[5]") != NULL);
	ENSURE(wfCollider_SetMeshVertices(id, NULL, 8) == WF_ERROR_INVALID_ARGUMENT);
	ENSURE(wfWorld_Step(w) == WF_OK);
	wfVec3 now[8];
	ENSURE(wfCollider_GetMeshVertices(id, now, 8) == 8);
	ENSURE(memcmp(now, b.v, sizeof now) == 0); // the refused shapes changed nothing
	wfColliderDef s = wfDefaultColliderDef();
	wfColliderId sphere = wfCreateCollider(w, &s);
	ENSURE(wfCollider_SetMeshVertices(sphere, shape, 8) == WF_ERROR_INVALID_ARGUMENT);
	ENSURE(strstr(wfWorld_GetLastError(w), "is a sphere, not a mesh") != NULL);
	ENSURE(wfCollider_GetMeshVertices(sphere, now, 8) == 0);
	uint32_t tri[36];
	ENSURE(wfCollider_GetMeshTriangles(id, tri, 36) == 12);
	wfDestroyWorld(w);
	// A Vulkan world (where one can be made: lavapipe) takes the mesh and names a bad one as the CPU does.
	wfWorldDef vd = wfDefaultWorldDef();
	vd.backend = WF_BACKEND_VULKAN;
	wfWorld* v = wfTestCreateWorld(&vd, NULL, 0);
	if (v != NULL) {
		ENSURE(!wfColliderId_IsNull(wfCreateCollider(v, &k)));
		Body m = Box((wfVec3){0.5f, 0.5f, 0.5f});
		m.v[3] = m.v[2];
		wfColliderDef flat = k;
		flat.mesh = &m.def;
		ENSURE(wfColliderId_IsNull(wfCreateCollider(v, &flat)));
		ENSURE(strstr(wfWorld_GetLastError(v), "has zero area") != NULL);
		ENSURE(wfWorld_GetColliderCount(v) == 1);
		BodyFree(&m);
		wfDestroyWorld(v);
	}
	BodyFree(&b);
	return 0;
}

// Scene files: a mesh collider from an OBJ through "transform", shapes at its keys from OBJ files of
// the same topology; a pose of other faces, a key without a shape, a mesh on a sphere, a flat
// triangle and a missing file are named.
WF_TEST(scene_mesh_collider)
{
	char dir[] = "/tmp/weft-body-XXXXXX";
	ENSURE(mkdtemp(dir) != NULL);
	char path[6][256];
	const char* files[6] = {"tet.obj", "tet2.obj", "other.obj", "flat.obj", "scene.json", "five.obj"};
	for (int i = 0; i < 6; ++i)
		snprintf(path[i], sizeof path[i], "%s/%s", dir, files[i]);
	ENSURE(wfTestWriteFile(path[0], "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"));
	ENSURE(wfTestWriteFile(path[1], "v 0 0 0\nv 2 0 0\nv 0 2 0\nv 0 0 2\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"));
	ENSURE(wfTestWriteFile(path[2], "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"));
	ENSURE(wfTestWriteFile(path[3], "v 0 0 0\nv 1 0 0\nv 2 0 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\n"));
	ENSURE(wfTestWriteFile(path[5], "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 1 1 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 5\nf 2 5 4\nf 3 4 5\n"));
	char err[512];
	wfScene* scene = wfScene_Parse("{\"colliders\": [{\"type\": \"mesh\", \"mesh\": \"tet.obj\", \"transform\": {\"scale\": 0.5}, "
								   "\"keys\": [{\"time\": 0, \"mesh\": \"tet.obj\"}, {\"time\": 1, \"mesh\": \"tet2.obj\"}]}]}",
		path[4], err, sizeof err);
	if (scene == NULL)
		fprintf(stderr, "  %s\n", err);
	ENSURE(scene != NULL);
	wfColliderDef k = wfScene_GetColliderDef(scene, 0);
	ENSURE(k.type == WF_COLLIDER_MESH && k.mesh != NULL && k.mesh->vertexCount == 4 && k.keyCount == 2 && k.keyPositions != NULL);
	ENSURE_NEAR(k.mesh->positions[1].x, 0.5, 0);
	ENSURE_NEAR(k.keyPositions[4 + 1].x, 1.0, 0); // key 1, vertex 1: (2, 0, 0) scaled by the collider's transform
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = WF_BACKEND_CPU;
	wfWorld* w = wfTestCreateWorld(&wd, NULL, 0);
	wfColliderId id = wfCreateCollider(w, &k);
	ENSURE(!wfColliderId_IsNull(id));
	wfDestroyScene(scene); // the collider keeps its copies
	for (int f = 0; f < 30; ++f)
		ENSURE(wfWorld_Step(w) == WF_OK);
	wfVec3 v[4];
	ENSURE(wfCollider_GetMeshVertices(id, v, 4) == 4);
	ENSURE_NEAR(v[1].x, 0.75, 1e-6); // halfway between the keys' shapes
	wfDestroyWorld(w);
	// A cloth attached to it by the scene's keys: its top row (4 particles), softly.
	scene = wfScene_Parse("{\"colliders\": [{\"type\": \"mesh\", \"mesh\": \"tet.obj\"}], \"cloth\": {\"cols\": 4, \"rows\": 3, "
						  "\"origin\": [0.2, 1.5, 0.2], \"attachMode\": \"top-row\", \"attachCollider\": 0, \"attachCompliance\": 1e-4}}",
		path[4], err, sizeof err);
	if (scene == NULL)
		fprintf(stderr, "  %s\n", err);
	ENSURE(scene != NULL);
	w = wfTestCreateWorld(&wd, NULL, 0);
	k = wfScene_GetColliderDef(scene, 0);
	ENSURE(!wfColliderId_IsNull(wfCreateCollider(w, &k)));
	wfClothDef cd = wfScene_GetClothDef(scene, 0);
	ENSURE(cd.attachMode == WF_PIN_TOP_ROW && cd.attachCompliance == 1e-4f);
	wfClothId cloth = wfCreateCloth(w, &cd);
	ENSURE(!wfClothId_IsNull(cloth) && wfCloth_GetAttachments(cloth, NULL, 0) == 4);
	wfDestroyWorld(w);
	wfDestroyScene(scene);

	static const struct {
		const char* json;
		const char* message; // after "NAME: "
	} cases[] = {
		{"{\"colliders\": [{\"type\": \"mesh\", \"mesh\": \"tet.obj\", \"keys\": [{\"time\": 0, \"mesh\": \"tet.obj\"}, {\"time\": 1, "
		 "\"mesh\": \"other.obj\"}]}]}",
			"colliders[0].keys[1].mesh: its faces join other vertices than the collider's mesh"},
		{"{\"colliders\": [{\"type\": \"mesh\", \"mesh\": \"tet.obj\", \"keys\": [{\"time\": 0, \"mesh\": \"tet.obj\"}, {\"time\": 1, "
		 "\"mesh\": \"five.obj\"}]}]}",
			"colliders[0].keys[1].mesh: 5 vertices and 6 faces, the collider's mesh has 4 and 4"},
		{"{\"colliders\": [{\"type\": \"mesh\", \"mesh\": \"tet.obj\", \"keys\": [{\"time\": 0}, {\"time\": 1, \"mesh\": \"tet2.obj\"}]}]}",
			"colliders[0].keys[0]: no \"mesh\": when one key gives a shape, every key does"},
		{"{\"colliders\": [{\"type\": \"sphere\", \"mesh\": \"tet.obj\"}]}",
			"colliders[0].mesh: only for type mesh (this one: sphere; allowed: NULL)"},
		{"{\"colliders\": [{\"type\": \"mesh\", \"mesh\": \"flat.obj\"}]}", "colliders[0].mesh face 0: triangle (0, 1, 2) has zero area"},
		{"{\"colliders\": [{\"type\": \"mesh\", \"mesh\": \"missing.obj\"}]}", "colliders[0].mesh: "},
		{"{\"colliders\": [{\"type\": \"mesh\"}]}", "colliders[0].mesh: NULL"},
		{"{\"colliders\": [{\"type\": \"box\", \"transform\": {\"scale\": 2}}]}", "colliders[0].transform: only used with \"mesh\""},
		{"{\"cloth\": {\"attachMode\": \"top-row\", \"attachIndices\": [1]}}", "cloth.attachIndices: only used with attachMode \"list\""},
		{"{\"cloth\": {\"attachCollider\": 40}}", "cloth.attachCollider: 40 is out of range [0, 31]"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
		err[0] = 0;
		ENSURE(wfScene_Parse(cases[i].json, path[4], err, sizeof err) == NULL);
		fprintf(stderr, "  %s\n", err);
		char expect[512];
		snprintf(expect, sizeof expect, "%s: %s", path[4], cases[i].message);
		ENSURE(strncmp(err, expect, strlen(expect)) == 0);
	}
	for (int i = 0; i < 6; ++i)
		unlink(path[i]);
	ENSURE(rmdir(dir) == 0);
	return 0;
}

// Where attachment a of a cloth is on its body now (pose and shape, through the public API).
static wfVec3 AttachedPoint(wfColliderId body, const wfAttachment* a)
{
	wfVec3 v[64], at;
	uint32_t tri[192];
	wfQuat q;
	wfCollider_GetMeshVertices(body, v, 64);
	wfCollider_GetMeshTriangles(body, tri, 192);
	wfCollider_GetTransform(body, &at, &q);
	const wfVec3 c[3] = {v[tri[3 * a->triangle]], v[tri[3 * a->triangle + 1]], v[tri[3 * a->triangle + 2]]};
	const double e0[3] = {c[1].x - c[0].x, c[1].y - c[0].y, c[1].z - c[0].z}, e1[3] = {c[2].x - c[0].x, c[2].y - c[0].y, c[2].z - c[0].z};
	double n[3] = {e0[1] * e1[2] - e0[2] * e1[1], e0[2] * e1[0] - e0[0] * e1[2], e0[0] * e1[1] - e0[1] * e1[0]};
	const double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
	const double w0 = 1.0 - a->u - a->v, le = sqrt(e0[0] * e0[0] + e0[1] * e0[1] + e0[2] * e0[2]);
	const double e[3] = {e0[0] / le, e0[1] / le, e0[2] / le}, m[3] = {n[0] / l, n[1] / l, n[2] / l};
	const double s[3] = {m[1] * e[2] - m[2] * e[1], m[2] * e[0] - m[0] * e[2], m[0] * e[1] - m[1] * e[0]};
	double p[3];
	for (int k = 0; k < 3; ++k)
		p[k] = w0 * (&c[0].x)[k] + a->u * (&c[1].x)[k] + a->v * (&c[2].x)[k] + a->offset.x * e[k] + a->offset.y * m[k] + a->offset.z * s[k];
	// The pose: R(q) p + at.
	const double x = q.x, y = q.y, z = q.z, w = q.w;
	const double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w), 2 * (x * y + z * w), 1 - 2 * (x * x + z * z),
		2 * (y * z - x * w), 2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)};
	return (wfVec3){(float)(at.x + r[0] * p[0] + r[1] * p[1] + r[2] * p[2]), (float)(at.y + r[3] * p[0] + r[4] * p[1] + r[5] * p[2]),
		(float)(at.z + r[6] * p[0] + r[7] * p[1] + r[8] * p[2])};
}

// A sheet's top row attached (compliance 0) 1 cm in front of a box that rises, turns 60 degrees and
// grows by half in 60 frames: every attached particle is at its point of the body after every frame.
WF_TEST(mesh_attach_hard_follows_body)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.step.substeps = 8;
	wfWorld* w = CpuWorld(wd);
	ENSURE(w != NULL);
	Body b = Box((wfVec3){0.25f, 0.1f, 0.1f});
	wfColliderId body = MeshCollider(w, &b, (wfVec3){0.0f, 1.0f, 0.0f});
	ENSURE(!wfColliderId_IsNull(body));
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = 11;
	cd.rows = 12;
	cd.width = 0.4f;
	cd.height = 0.5f;
	cd.orientation = WF_ORIENT_VERTICAL;
	cd.origin = (wfVec3){0.0f, 0.75f, 0.11f};
	cd.pinMode = WF_PIN_NONE;
	cd.attachMode = WF_PIN_TOP_ROW;
	cd.attachCollider = 0;
	wfClothId id = wfCreateCloth(w, &cd);
	if (wfClothId_IsNull(id))
		fprintf(stderr, "  %s\n", wfWorld_GetLastError(w));
	ENSURE(!wfClothId_IsNull(id));
	wfAttachment at[11];
	ENSURE(wfCloth_GetAttachments(id, at, 11) == 11);
	ENSURE_NEAR(at[5].offset.y, 0.01, 1e-6); // the middle of the top row is 1 cm before the front face
	wfVec3 shape[8], p[132];
	float worst = 0.0f;
	for (int frame = 1; frame <= 60; ++frame) {
		const float s = (float)frame / 60.0f, angle = 1.0471976f * s, grow = 1.0f + 0.5f * s;
		for (int i = 0; i < 8; ++i)
			shape[i] = (wfVec3){b.v[i].x * grow, b.v[i].y * grow, b.v[i].z * grow};
		ENSURE(wfCollider_SetMeshVertices(body, shape, 8) == WF_OK);
		ENSURE(wfCollider_SetTransform(body, (wfVec3){0.0f, 1.0f + 0.3f * s, 0.0f},
				   (wfQuat){0.0f, sinf(0.5f * angle), 0.0f, cosf(0.5f * angle)}) == WF_OK);
		ENSURE(wfWorld_Step(w) == WF_OK);
		ENSURE(wfCloth_ReadPositions(id, p, 132) == WF_OK);
		for (int k = 0; k < 11; ++k) {
			const wfVec3 q = AttachedPoint(body, &at[k]), x = p[at[k].particle];
			worst = fmaxf(worst, sqrtf((x.x - q.x) * (x.x - q.x) + (x.y - q.y) * (x.y - q.y) + (x.z - q.z) * (x.z - q.z)));
		}
	}
	ENSURE_LE(worst, 2e-6);
	BodyFree(&b);
	wfDestroyWorld(w);
	return 0;
}

// A soft attachment is a spring of stiffness 1 / compliance: a two-particle strand hanging from a
// box sags by its weight times the compliance, 2 m g alpha = 9.81 mm.
WF_TEST(mesh_attach_soft_is_hooke)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.step.substeps = 10;
	wfWorld* w = CpuWorld(wd);
	ENSURE(w != NULL);
	Body b = Box((wfVec3){0.1f, 0.1f, 0.1f});
	ENSURE(!wfColliderId_IsNull(MeshCollider(w, &b, (wfVec3){0.0f, 1.0f, 0.0f})));
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = 1;
	cd.rows = 2;
	cd.width = 0.1f;
	cd.height = 0.1f;
	cd.orientation = WF_ORIENT_VERTICAL;
	cd.origin = (wfVec3){0.0f, 0.85f, 0.0f};
	cd.pinMode = WF_PIN_NONE;
	cd.material.mass = 0.01f;
	cd.material.damping = 1.0f;
	cd.attachMode = WF_PIN_TOP_ROW;
	cd.attachCollider = 0;
	cd.attachCompliance = 0.05f;
	wfClothId id = wfCreateCloth(w, &cd);
	ENSURE(!wfClothId_IsNull(id));
	wfAttachment a;
	ENSURE(wfCloth_GetAttachments(id, &a, 1) == 1 && a.particle == 0);
	ENSURE_NEAR(a.offset.y, 0.0, 1e-6); // particle 0 starts on the bottom face
	for (int frame = 0; frame < 600; ++frame)
		ENSURE(wfWorld_Step(w) == WF_OK);
	wfVec3 p[2];
	ENSURE(wfCloth_ReadPositions(id, p, 2) == WF_OK);
	const float g = -wd.gravity.y;
	ENSURE_NEAR(0.9f - p[0].y, 2.0f * 0.01f * g * 0.05f, 1e-5);
	BodyFree(&b);
	wfDestroyWorld(w);
	return 0;
}

// Attachments that cannot be made are named, and create no cloth.
WF_TEST(mesh_attach_errors)
{
	wfWorld* w = CpuWorld(wfDefaultWorldDef());
	ENSURE(w != NULL);
	Body b = Box((wfVec3){0.1f, 0.1f, 0.1f});
	wfColliderDef s = wfDefaultColliderDef();
	ENSURE(!wfColliderId_IsNull(wfCreateCollider(w, &s)));
	ENSURE(!wfColliderId_IsNull(MeshCollider(w, &b, (wfVec3){0.0f, 1.0f, 0.0f})));
	const int list[2] = {0, 99};
	int made = 0;
	static const struct {
		int collider, mode, count;
		const char* expect;
	} cases[] = {
		{2, WF_PIN_TOP_ROW, 0, "cloth.attachCollider: 2, the world has 2 colliders (allowed [0, 1])"},
		{0, WF_PIN_TOP_ROW, 0, "cloth.attachCollider: collider 0 is a sphere; attachments need a mesh collider"},
		{1, WF_PIN_LIST, 2, "attachIndices[1]: 99 is out of range [0, 15]"},
		{1, WF_PIN_LIST, 0, NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
		wfClothDef cd = wfDefaultClothDef();
		cd.cols = cd.rows = 4;
		cd.attachMode = (wfPinMode)cases[i].mode;
		cd.attachCollider = cases[i].collider;
		cd.attachIndices = list;
		cd.attachCount = cases[i].count;
		wfClothId id = wfCreateCloth(w, &cd);
		if (cases[i].expect == NULL) { // an empty list: no attachment, nothing wrong
			ENSURE(!wfClothId_IsNull(id) && wfCloth_GetAttachments(id, NULL, 0) == 0);
			made++;
			continue;
		}
		ENSURE(wfClothId_IsNull(id));
		fprintf(stderr, "  %s\n", wfWorld_GetLastError(w));
		ENSURE(strstr(wfWorld_GetLastError(w), cases[i].expect) != NULL);
	}
	ENSURE(made == 1);
	BodyFree(&b);
	wfDestroyWorld(w);
	return 0;
}

// scenes/character: the walking mannequin's 7 584 deforming triangles and its 20 000-particle dress
// for 12 frames (a sixth of its walk cycle): the body's shape changes (not only its pose), and no particle
// or edge of the dress is inside it after any of them.
WF_TEST(mesh_character_scene)
{
	char err[512];
	wfScene* scene = wfScene_Load(WEFT_TEST_SCENES "/character/character.json", err, sizeof err);
	if (scene == NULL)
		fprintf(stderr, "  %s\n", err);
	ENSURE(scene != NULL);
	wfWorldDef wd = wfScene_GetWorldDef(scene);
	wd.backend = WF_BACKEND_CPU;
	wfWorld* w = wfTestCreateWorld(&wd, err, sizeof err);
	ENSURE(w != NULL);
	wfColliderDef k = wfScene_GetColliderDef(scene, 0);
	wfColliderId body = wfCreateCollider(w, &k);
	ENSURE(!wfColliderId_IsNull(body));
	wfClothDef cd = wfScene_GetClothDef(scene, 0);
	wfClothId dress = wfCreateCloth(w, &cd);
	ENSURE(!wfClothId_IsNull(dress));
	wfDestroyScene(scene);
	wfClothInfo info;
	ENSURE(wfCloth_GetInfo(dress, &info) == WF_OK && info.particleCount == 20000);
	ENSURE(wfCollider_GetMeshTriangles(body, NULL, 0) == 7584 && wfCloth_GetAttachments(dress, NULL, 0) == 200);
	const int n = wfCollider_GetMeshVertices(body, NULL, 0);
	wfVec3* before = (wfVec3*)malloc((size_t)n * sizeof *before);
	wfVec3* after = (wfVec3*)malloc((size_t)n * sizeof *after);
	wfCollider_GetMeshVertices(body, before, n);
	int64_t worst = 0;
	for (int frame = 1; frame <= 12; ++frame) {
		ENSURE(wfWorld_Step(w) == WF_OK);
		if (frame % 4 == 0) {
			const int64_t x = Crossings(w);
			worst = x > worst || x < 0 ? x : worst;
		}
	}
	ENSURE(worst == 0);
	// A deforming body: the distance between two neighbouring vertices changes somewhere (a limb
	// bent by the skinning at its joint), which no rigid motion does.
	wfCollider_GetMeshVertices(body, after, n);
	float most = 0.0f;
	for (int i = 1; i < n; ++i) {
		const float d0 = sqrtf((before[i].x - before[i - 1].x) * (before[i].x - before[i - 1].x) +
			(before[i].y - before[i - 1].y) * (before[i].y - before[i - 1].y) +
			(before[i].z - before[i - 1].z) * (before[i].z - before[i - 1].z));
		const float d1 = sqrtf((after[i].x - after[i - 1].x) * (after[i].x - after[i - 1].x) +
			(after[i].y - after[i - 1].y) * (after[i].y - after[i - 1].y) + (after[i].z - after[i - 1].z) * (after[i].z - after[i - 1].z));
		most = fmaxf(most, fabsf(d1 - d0));
	}
	ENSURE_LE(1e-3, most); // neighbouring vertices moved apart or together by a millimetre or more
	const wfWarnings warn = wfWorld_GetWarnings(w);
	ENSURE(warn.unstable == 0 && warn.nonFinite == 0);
	free(before);
	free(after);
	wfDestroyWorld(w);
	return 0;
}

// Attachments given by the caller (wfCloth_SetAttachments): the ones attachMode found, handed to a
// second cloth, step to the same bits; a triangle the mesh does not have, particles out of order,
// weights off the triangle, an offset that is not finite and a body that is no mesh are named, and
// change nothing.
WF_TEST(mesh_attach_given)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.step.substeps = 6;
	wfWorld* w = CpuWorld(wd);
	ENSURE(w != NULL);
	Body b = Sphere(0.3f, 16, 8);
	wfColliderId body = MeshCollider(w, &b, (wfVec3){0.0f, 1.0f, 0.0f});
	ENSURE(!wfColliderId_IsNull(body));
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = 8;
	cd.width = cd.height = 0.5f;
	cd.orientation = WF_ORIENT_VERTICAL;
	cd.origin = (wfVec3){0.0f, 1.0f, 0.35f};
	cd.pinMode = WF_PIN_NONE;
	cd.attachMode = WF_PIN_TOP_ROW;
	cd.attachCollider = 0;
	wfClothId found = wfCreateCloth(w, &cd);
	ENSURE(!wfClothId_IsNull(found));
	wfAttachment at[8];
	ENSURE(wfCloth_GetAttachments(found, at, 8) == 8);
	cd.attachMode = WF_PIN_NONE;
	wfClothId given = wfCreateCloth(w, &cd);
	ENSURE(!wfClothId_IsNull(given) && wfCloth_GetAttachments(given, NULL, 0) == 0);
	static const struct {
		int field; // 0 triangle, 1 order, 2 weights, 3 offset, 4 a sphere
		const char* expect;
	} cases[] = {
		{0, "attachments[2].triangle: 999 is out of range [0, 223]"},
		{1, "attachments[3].particle: 1, allowed [0, 63] in increasing order, each once (the one before: 2)"},
		{2, "attachments[2]: weights u 1.5"},
		{3, "attachments[2].offset: (nan"},
		{4, "wfCloth_SetAttachments: body is not a live mesh collider of the cloth's world"},
	};
	wfColliderDef s = wfDefaultColliderDef();
	wfColliderId sphere = wfCreateCollider(w, &s);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
		wfAttachment bad[8];
		memcpy(bad, at, sizeof bad);
		if (cases[i].field == 0)
			bad[2].triangle = 999;
		if (cases[i].field == 1)
			bad[3].particle = 1;
		if (cases[i].field == 2)
			bad[2].u = 1.5f;
		if (cases[i].field == 3)
			bad[2].offset.x = NAN;
		ENSURE(wfCloth_SetAttachments(given, cases[i].field == 4 ? sphere : body, bad, 8) == WF_ERROR_INVALID_ARGUMENT);
		fprintf(stderr, "  %s\n", wfWorld_GetLastError(w));
		ENSURE(strstr(wfWorld_GetLastError(w), cases[i].expect) != NULL);
		ENSURE(wfCloth_GetAttachments(given, NULL, 0) == 0);
	}
	wfDestroyCollider(sphere);
	ENSURE(wfCloth_SetAttachments(given, body, at, 8) == WF_OK);
	for (int frame = 0; frame < 30; ++frame)
		ENSURE(wfWorld_Step(w) == WF_OK);
	wfVec3 p[64], q[64];
	ENSURE(wfCloth_ReadPositions(found, p, 64) == WF_OK && wfCloth_ReadPositions(given, q, 64) == WF_OK);
	ENSURE(memcmp(p, q, sizeof p) == 0);
	BodyFree(&b);
	wfDestroyWorld(w);
	return 0;
}
