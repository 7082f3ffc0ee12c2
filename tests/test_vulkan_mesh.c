// Mesh colliders (WF_COLLIDER_MESH) and attachments on the Vulkan backend: the same world on the CPU
// and on the device, with a static box (closed: its sharp edges and corners run the edge and
// corner passes), a sphere whose shape grows between two keys and a box moved by
// wfCollider_SetMeshVertices and wfCollider_SetTransform that holds a third cloth by its top row.
// On lavapipe (IEEE float, correctly rounded sqrt and division) collide_mesh.comp performs the
// CPU's operations in its order, so the state hash is the CPU's after every frame; on a hardware
// GPU only the physical claims are asserted. Either way no cloth edge passes through a body where
// the CPU's does not (wfWorld_CountIntersections .colliders).
#include "test.h"
#include "vk_test_util.h"

#include "core/internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct Body {
	wfVec3* v;
	uint32_t* idx;
	int vertexCount, triangleCount;
	wfMeshDef def;
} Body;

static void BodyDef(Body* b)
{
	b->def = (wfMeshDef){.positions = b->v, .vertexCount = b->vertexCount, .indices = b->idx, .faceCount = b->triangleCount};
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

static void BodyFree(Body* b)
{
	free(b->v);
	free(b->idx);
}

typedef struct MeshScene {
	wfWorld* world;
	wfColliderId mover;
	wfClothId cloths[3];
} MeshScene;

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

// The scene on one backend. `clothFirst`: the sheet over the box is made before the bodies (on
// Vulkan a small cloth then starts in the fused path's arena and moves out at the first step).
static bool MakeScene(MeshScene* s, wfWorldDef wd, wfBackendType backend, const Body* box, const Body* ball, const wfVec3* keyShapes,
	const Body* mover, bool clothFirst)
{
	memset(s, 0, sizeof *s);
	s->world = wfVkTestWorld(wd, backend);
	if (s->world == NULL)
		return false;
	if (clothFirst)
		s->cloths[0] = Sheet(s->world, 16, 0.9f, (wfVec3){0.0f, 0.8f, 0.0f});
	wfColliderDef k = wfDefaultColliderDef();
	k.type = WF_COLLIDER_MESH;
	k.mesh = &box->def;
	k.position = (wfVec3){0.0f, 0.5f, 0.0f};
	if (wfColliderId_IsNull(wfCreateCollider(s->world, &k)))
		return false;
	const wfColliderKey keys[2] = {{0.0f, {1.5f, 0.5f, 0.0f}, {0, 0, 0, 1}}, {1.0f, {1.5f, 0.5f, 0.0f}, {0, 0, 0, 1}}};
	k = wfDefaultColliderDef();
	k.type = WF_COLLIDER_MESH;
	k.mesh = &ball->def;
	k.keys = keys;
	k.keyCount = 2;
	k.keyPositions = keyShapes;
	k.keyPositionCount = 2 * ball->vertexCount;
	if (wfColliderId_IsNull(wfCreateCollider(s->world, &k)))
		return false;
	k = wfDefaultColliderDef();
	k.type = WF_COLLIDER_MESH;
	k.mesh = &mover->def;
	k.position = (wfVec3){-1.5f, 1.0f, 0.0f};
	s->mover = wfCreateCollider(s->world, &k);
	if (wfColliderId_IsNull(s->mover))
		return false;
	if (!clothFirst)
		s->cloths[0] = Sheet(s->world, 16, 0.9f, (wfVec3){0.0f, 0.8f, 0.0f});
	s->cloths[1] = Sheet(s->world, 14, 0.8f, (wfVec3){1.5f, 0.78f, 0.0f});
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = 11;
	cd.rows = 12;
	cd.width = 0.4f;
	cd.height = 0.5f;
	cd.orientation = WF_ORIENT_VERTICAL;
	cd.origin = (wfVec3){-1.5f, 0.75f, 0.11f};
	cd.pinMode = WF_PIN_NONE;
	cd.attachMode = WF_PIN_TOP_ROW;
	cd.attachCollider = 2;
	s->cloths[2] = wfCreateCloth(s->world, &cd);
	for (int i = 0; i < 3; ++i) {
		if (wfClothId_IsNull(s->cloths[i])) {
			fprintf(stderr, "  cloth %d: %s\n", i, wfWorld_GetLastError(s->world));
			return false;
		}
	}
	return true;
}

// Frame f's shape and pose of the moving box: it grows and turns (as mesh_attach_hard_follows_body).
static bool Move(const MeshScene* s, const Body* mover, int f)
{
	const float t = (float)f / 40.0f, angle = 1.0471976f * t, grow = 1.0f + 0.5f * t;
	wfVec3 shape[8];
	for (int i = 0; i < 8; ++i)
		shape[i] = (wfVec3){mover->v[i].x * grow, mover->v[i].y * grow, mover->v[i].z * grow};
	return wfCollider_SetMeshVertices(s->mover, shape, 8) == WF_OK &&
		wfCollider_SetTransform(s->mover, (wfVec3){-1.5f, 1.0f + 0.3f * t, 0.0f},
			(wfQuat){0.0f, sinf(0.5f * angle), 0.0f, cosf(0.5f * angle)}) == WF_OK;
}

// Every solver: the scene on the CPU and on Vulkan stepped side by side.
WF_TEST(vk_mesh_colliders_same_bits)
{
	if (wfVkTestMissing())
		return 0;
	const Body box = Box((wfVec3){0.3f, 0.2f, 0.3f}), mover = Box((wfVec3){0.25f, 0.1f, 0.1f});
	Body ball = Sphere(0.2f, 24, 12);
	wfVec3* keyShapes = (wfVec3*)malloc(2 * (size_t)ball.vertexCount * sizeof *keyShapes);
	ENSURE(keyShapes != NULL);
	for (int i = 0; i < ball.vertexCount; ++i) {
		keyShapes[i] = ball.v[i];
		keyShapes[ball.vertexCount + i] = (wfVec3){1.75f * ball.v[i].x, 1.75f * ball.v[i].y, 1.75f * ball.v[i].z};
	}
	// The fourth run: XPBD with self-collision and its continuous passes, where the bodies are met
	// before self-collision too (wfMeshesBeforeSelf).
	const wfSolverType solvers[4] = {WF_SOLVER_XPBD, WF_SOLVER_JACOBI, WF_SOLVER_SPRINGS, WF_SOLVER_XPBD};
	for (int k = 0; k < 4; ++k) {
		const int frames = k == 3 ? 15 : 30;
		wfWorldDef wd = wfDefaultWorldDef();
		wd.step.solver = solvers[k];
		wd.step.substeps = solvers[k] == WF_SOLVER_SPRINGS ? 20 : 8;
		wd.step.iterations = solvers[k] == WF_SOLVER_JACOBI ? 4 : 1;
		wd.contact.friction = 0.3f;
		if (k == 3) {
			wd.selfCollision.enabled = true;
			wd.selfCollision.thickness = 0.4f * 0.9f / 15.0f; // 0.4 of the first sheet's spacing
			wd.selfCollision.pointTriangle = true;
			wd.selfCollision.edgeEdge = true;
		}
		MeshScene cpu, gpu;
		ENSURE(MakeScene(&cpu, wd, WF_BACKEND_CPU, &box, &ball, keyShapes, &mover, k == 0));
		ENSURE(MakeScene(&gpu, wd, WF_BACKEND_VULKAN, &box, &ball, keyShapes, &mover, k == 0));
		struct timespec t0, t1;
		timespec_get(&t0, TIME_UTC);
		int same = 0, firstBad = -1;
		int64_t cpuCrossings = 0, gpuCrossings = 0;
		for (int f = 1; f <= frames; ++f) {
			ENSURE(Move(&cpu, &mover, f) && Move(&gpu, &mover, f));
			ENSURE(wfWorld_Step(cpu.world) == WF_OK && wfWorld_Step(gpu.world) == WF_OK);
			uint64_t hc = 0, hg = 0;
			ENSURE(wfWorld_GetStateHash(cpu.world, &hc) == WF_OK && wfWorld_GetStateHash(gpu.world, &hg) == WF_OK);
			same += hc == hg;
			if (hc != hg && firstBad < 0)
				firstBad = f;
			if (f % 10 == 0) {
				wfIntersections a, b;
				ENSURE(wfWorld_CountIntersections(cpu.world, &a) == WF_OK && wfWorld_CountIntersections(gpu.world, &b) == WF_OK);
				cpuCrossings += a.colliders;
				gpuCrossings += b.colliders;
			}
		}
		timespec_get(&t1, TIME_UTC);
		const double seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
		double drift = 0.0;
		const int counts[3] = {16 * 16, 14 * 14, 11 * 12};
		for (int c = 0; c < 3; ++c) {
			const double d = wfVkTestMaxDiff(cpu.cloths[c], gpu.cloths[c], counts[c]);
			drift = d > drift ? d : drift;
		}
		// The contact is real: the sheet's middle rests on the box's top (0.7 m) at the thickness,
		// the other's on the grown sphere (0.5 + 1.75 x 0.2 m at the last key).
		wfVec3 mid[16 * 16];
		ENSURE(wfCloth_ReadPositions(gpu.cloths[0], mid, 16 * 16) == WF_OK);
		const float onBox = mid[8 * 16 + 8].y;
		ENSURE(wfCloth_ReadPositions(gpu.cloths[1], mid, 14 * 14) == WF_OK);
		const float onBall = mid[7 * 14 + 7].y;
		wfWarnings wc = wfWorld_GetWarnings(cpu.world), wg = wfWorld_GetWarnings(gpu.world);
		fprintf(stderr,
			"  %s on %s: %d of %d frames with the CPU's state hash (first differing %d), largest drift %.3g m; "
			"collider crossings at every 10th frame: CPU %lld, Vulkan %lld; unstable frames %lld / %lld; "
			"heights on the box %.4f, on the sphere %.4f; %.1f s for both\n",
			k == 3 ? "xpbd, self-collision, continuous passes" : wfSolverName(solvers[k]), wfVkTestDevice(), same, frames, firstBad, drift,
			(long long)cpuCrossings, (long long)gpuCrossings, (long long)wc.unstable, (long long)wg.unstable, (double)onBox, (double)onBall,
			seconds);
		if (wfVkTestDeviceIsExact())
			ENSURE(same == frames);
		ENSURE(cpuCrossings != 0 || gpuCrossings == 0);
		ENSURE(wg.validationMessages == 0);
		wfDestroyWorld(cpu.world);
		wfDestroyWorld(gpu.world);
	}
	free(keyShapes);
	BodyFree(&ball);
	BodyFree((Body*)&box);
	BodyFree((Body*)&mover);
	return 0;
}

// scenes/character/character.json (a mannequin of 7 584 triangles shaped by keys, a dress of 20 000
// particles attached to it by its waistband, tethers and self-collision: the mesh kernel's set and
// the contact set take turns in set 1): the CPU's state hash after each of the first frames.
WF_TEST(vk_character_same_bits)
{
	if (wfVkTestMissing())
		return 0;
	char err[600];
	wfScene* scene = wfScene_Load(WEFT_TEST_SCENES "/character/character.json", err, sizeof err);
	if (scene == NULL)
		fprintf(stderr, "  %s\n", err);
	ENSURE(scene != NULL);
	wfWorld* worlds[2] = {NULL, NULL};
	wfClothId dress[2];
	const wfBackendType backends[2] = {WF_BACKEND_CPU, WF_BACKEND_VULKAN};
	for (int b = 0; b < 2; ++b) {
		worlds[b] = wfVkTestWorld(wfScene_GetWorldDef(scene), backends[b]);
		ENSURE(worlds[b] != NULL);
		wfColliderDef k = wfScene_GetColliderDef(scene, 0);
		ENSURE(!wfColliderId_IsNull(wfCreateCollider(worlds[b], &k)));
		wfClothDef cd = wfScene_GetClothDef(scene, 0);
		dress[b] = wfCreateCloth(worlds[b], &cd);
		ENSURE(!wfClothId_IsNull(dress[b]));
	}
	wfDestroyScene(scene);
	struct timespec t0, t1;
	timespec_get(&t0, TIME_UTC);
	const int frames = 6;
	int same = 0;
	for (int f = 1; f <= frames; ++f) {
		ENSURE(wfWorld_Step(worlds[0]) == WF_OK && wfWorld_Step(worlds[1]) == WF_OK);
		uint64_t hc = 0, hg = 0;
		ENSURE(wfWorld_GetStateHash(worlds[0], &hc) == WF_OK && wfWorld_GetStateHash(worlds[1], &hg) == WF_OK);
		same += hc == hg;
	}
	timespec_get(&t1, TIME_UTC);
	wfIntersections a, b;
	ENSURE(wfWorld_CountIntersections(worlds[0], &a) == WF_OK && wfWorld_CountIntersections(worlds[1], &b) == WF_OK);
	const double drift = wfVkTestMaxDiff(dress[0], dress[1], 20000);
	fprintf(stderr,
		"  character.json on %s: %d of %d frames with the CPU's state hash, largest drift %.3g m; collider crossings CPU %lld, "
		"Vulkan %lld; %.1f s for both\n",
		wfVkTestDevice(), same, frames, drift, (long long)a.colliders, (long long)b.colliders,
		(double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
	if (wfVkTestDeviceIsExact())
		ENSURE(same == frames);
	ENSURE(a.colliders != 0 || b.colliders == 0);
	const wfWarnings w = wfWorld_GetWarnings(worlds[1]);
	ENSURE(w.validationMessages == 0 && w.unstable == 0);
	wfDestroyWorld(worlds[0]);
	wfDestroyWorld(worlds[1]);
	return 0;
}

// Open meshes (two-sided sheets: no edge or corner pass, the side a particle starts on kept): a
// sheet at 200 m/s into a tilted two-triangle floor from above, then into a ceiling from below
// (its back side), with friction and with the stop response: the CPU's state hash after every
// frame on lavapipe, no particle through either.
WF_TEST(vk_mesh_open_same_bits)
{
	if (wfVkTestMissing())
		return 0;
	const wfVec3 corners[4] = {{-2, 0, -2}, {2, 0, -2}, {2, 0, 2}, {-2, 0, 2}};
	uint32_t tris[6] = {0, 1, 2, 0, 2, 3};
	const wfMeshDef quad = {.positions = corners, .vertexCount = 4, .indices = tris, .faceCount = 2};
	for (int run = 0; run < 2; ++run) {
		wfWorldDef wd = wfDefaultWorldDef();
		wd.step.substeps = 2;
		wd.step.solver = run == 0 ? WF_SOLVER_XPBD : WF_SOLVER_JACOBI;
		wd.contact.response = run == 0 ? WF_CONTACT_FRICTION : WF_CONTACT_STOP;
		wd.contact.friction = 0.4f;
		wfWorld* worlds[2];
		wfClothId sheets[2];
		for (int b = 0; b < 2; ++b) {
			worlds[b] = wfVkTestWorld(wd, b == 0 ? WF_BACKEND_CPU : WF_BACKEND_VULKAN);
			ENSURE(worlds[b] != NULL);
			// Tiles of several substeps allowed, as on a hardware GPU: a mesh body must still be met
			// every substep (the H200 ran Jacobi here in tiles and passed through the ceiling).
			worlds[b]->tileSubsteps = 3;
			wfColliderDef k = wfDefaultColliderDef();
			k.type = WF_COLLIDER_MESH;
			k.mesh = &quad;
			k.rotation = (wfQuat){0.0f, 0.0f, sinf(0.5f * 0.35f), cosf(0.5f * 0.35f)}; // 20 degrees about z
			ENSURE(!wfColliderId_IsNull(wfCreateCollider(worlds[b], &k)));
			k.position = (wfVec3){0.0f, 1.2f, 0.0f};
			ENSURE(!wfColliderId_IsNull(wfCreateCollider(worlds[b], &k)));
			sheets[b] = Sheet(worlds[b], 16, 1.0f, (wfVec3){0.3f, 0.6f, 0.1f});
			ENSURE(!wfClothId_IsNull(sheets[b]));
			wfVec3 v[256];
			for (int i = 0; i < 256; ++i)
				v[i] = (wfVec3){3.0f, run == 0 ? -200.0f : 200.0f, 1.0f};
			ENSURE(wfCloth_WriteVelocities(sheets[b], v, 256) == WF_OK);
		}
		int same = 0;
		int64_t crossings[2] = {0, 0};
		const int frames = 20;
		for (int f = 1; f <= frames; ++f) {
			ENSURE(wfWorld_Step(worlds[0]) == WF_OK && wfWorld_Step(worlds[1]) == WF_OK);
			uint64_t hc = 0, hg = 0;
			ENSURE(wfWorld_GetStateHash(worlds[0], &hc) == WF_OK && wfWorld_GetStateHash(worlds[1], &hg) == WF_OK);
			same += hc == hg;
			// On the side of the plane it came from in the first frames (through it, 3.3 m a frame
			// takes it far out; later it slides off the edges): heights over the tilted planes.
			wfVec3 p[256];
			ENSURE(wfCloth_ReadPositions(sheets[1], p, 256) == WF_OK);
			for (int i = 0; f <= 3 && i < 256; ++i) {
				const float h = -p[i].x * sinf(0.35f) + (p[i].y - (run == 0 ? 0.0f : 1.2f)) * cosf(0.35f);
				ENSURE(run == 0 ? h > 0.0f : h < 0.0f);
			}
			for (int b = 0; b < 2; ++b) {
				wfIntersections x;
				ENSURE(wfWorld_CountIntersections(worlds[b], &x) == WF_OK);
				crossings[b] += x.colliders;
			}
		}
		fprintf(stderr, "  %s, %s, %s: %d of %d frames with the CPU's state hash; collider crossings CPU %lld, Vulkan %lld\n",
			run == 0 ? "down onto the floor" : "up into the ceiling's back", wfSolverName(wd.step.solver), run == 0 ? "friction" : "stop",
			same, frames, (long long)crossings[0], (long long)crossings[1]);
		if (wfVkTestDeviceIsExact())
			ENSURE(same == frames);
		ENSURE(crossings[0] == 0 && crossings[1] == 0);
		ENSURE(wfWorld_GetWarnings(worlds[1]).validationMessages == 0);
		wfDestroyWorld(worlds[0]);
		wfDestroyWorld(worlds[1]);
	}
	return 0;
}
