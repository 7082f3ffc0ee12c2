// A run with mesh colliders (WF_COLLIDER_MESH) written as `weft run --gltf --usd --obj` writes it,
// through the CLI's own writers (scene files cannot name a mesh collider yet): a 12 x 12 sheet
// falls onto a 16 x 8 mesh sphere (114 vertices) that swings along x and grows by 0.5 % a frame
// over frames 1 to 70 (wfCollider_SetMeshVertices), beside a still mesh box (8 vertices).
//   weft_mesh_collider_export FOLDER FRAMES
// writes FOLDER/run.glb, FOLDER/run.usda and the OBJ frames in FOLDER/obj, and prints one line
// per mesh collider: "mesh_collider INDEX VERTICES TRIANGLES".
#include "gltf.h"
#include "output.h"
#include "usd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define SEG 16
#define RINGS 8
#define SPHERE_VERTICES (2 + (RINGS - 1) * SEG)
#define SPHERE_TRIANGLES (2 * SEG * (RINGS - 1))

// A latitude-longitude sphere of radius r, wound outwards.
static void MakeSphere(float r, wfVec3* v, uint32_t* idx)
{
	const double pi = 3.14159265358979;
	v[0] = (wfVec3){0.0f, r, 0.0f};
	v[1] = (wfVec3){0.0f, -r, 0.0f};
	for (int i = 1; i < RINGS; ++i) {
		for (int j = 0; j < SEG; ++j) {
			const double th = pi * i / RINGS, ph = 2.0 * pi * j / SEG;
			v[2 + (i - 1) * SEG + j] = (wfVec3){(float)(r * sin(th) * cos(ph)), (float)(r * cos(th)), (float)(r * sin(th) * sin(ph))};
		}
	}
	uint32_t* t = idx;
	const uint32_t last = 2 + (uint32_t)((RINGS - 2) * SEG);
	for (int j = 0; j < SEG; ++j) {
		*t++ = 0, *t++ = 2 + (uint32_t)((j + 1) % SEG), *t++ = 2 + (uint32_t)j;
		*t++ = 1, *t++ = last + (uint32_t)j, *t++ = last + (uint32_t)((j + 1) % SEG);
	}
	for (int i = 0; i < RINGS - 2; ++i) {
		for (int j = 0; j < SEG; ++j) {
			const uint32_t a = 2 + (uint32_t)(i * SEG + j), c = 2 + (uint32_t)(i * SEG + (j + 1) % SEG);
			*t++ = a, *t++ = c, *t++ = c + SEG;
			*t++ = a, *t++ = c + SEG, *t++ = a + SEG;
		}
	}
}

int main(int argc, char** argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s FOLDER FRAMES\n", argv[0]);
		return 2;
	}
	const int frames = atoi(argv[2]);
	char glb[CLI_PATH_MAX], usda[CLI_PATH_MAX], obj[CLI_PATH_MAX], error[1024];
	snprintf(glb, sizeof glb, "%s/run.glb", argv[1]);
	snprintf(usda, sizeof usda, "%s/run.usda", argv[1]);
	snprintf(obj, sizeof obj, "%s/obj", argv[1]);
	if (frames < 1 || !CliPrepareFolder(obj, error, sizeof error)) {
		fprintf(stderr, "%s\n", frames < 1 ? "FRAMES must be at least 1" : error);
		return 2;
	}
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = WF_BACKEND_CPU;
	wd.sphere.enabled = false;
	wd.floor.enabled = true;
	wfWorld* world = wfCreateWorld(&wd, error, sizeof error);
	if (world == NULL) {
		fprintf(stderr, "%s\n", error);
		return 1;
	}
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = 12;
	cd.width = cd.height = 1.0f;
	cd.orientation = WF_ORIENT_HORIZONTAL;
	cd.pinMode = WF_PIN_NONE;
	cd.origin = (wfVec3){0.0f, 1.0f, 0.0f};
	const wfClothId cloth = wfCreateCloth(world, &cd);

	static wfVec3 sphere[SPHERE_VERTICES], grown[SPHERE_VERTICES];
	static uint32_t sphereIdx[3 * SPHERE_TRIANGLES];
	MakeSphere(0.3f, sphere, sphereIdx);
	const wfMeshDef sphereMesh = {.positions = sphere, .vertexCount = SPHERE_VERTICES, .indices = sphereIdx, .faceCount = SPHERE_TRIANGLES};
	wfColliderDef c = wfDefaultColliderDef();
	c.type = WF_COLLIDER_MESH;
	c.position = (wfVec3){0.0f, 0.5f, 0.0f};
	c.amplitude = (wfVec3){0.1f, 0.0f, 0.0f};
	c.frequency = 1.0f;
	c.mesh = &sphereMesh;
	const wfColliderId body = wfCreateCollider(world, &c);
	wfVec3 box[8];
	for (int i = 0; i < 8; ++i)
		box[i] = (wfVec3){(i & 1) ? 0.2f : -0.2f, (i & 2) ? 0.2f : -0.2f, (i & 4) ? 0.2f : -0.2f};
	// Two triangles per face, counter-clockwise seen from outside.
	static const uint32_t boxIdx[36] = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4, 2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7,
		1, 7, 5};
	const wfMeshDef boxMesh = {.positions = box, .vertexCount = 8, .indices = boxIdx, .faceCount = 12};
	c = wfDefaultColliderDef();
	c.type = WF_COLLIDER_MESH;
	c.position = (wfVec3){1.5f, 0.2f, 0.0f};
	c.mesh = &boxMesh;
	const wfColliderId still = wfCreateCollider(world, &c);
	if (wfClothId_IsNull(cloth) || wfColliderId_IsNull(body) || wfColliderId_IsNull(still)) {
		fprintf(stderr, "creating the scene: %s\n", wfWorld_GetLastError(world));
		return 1;
	}
	const wfColliderId ids[2] = {body, still};
	for (int i = 0; i < 2; ++i)
		printf("mesh_collider %d %d %d\n", i, wfCollider_GetMeshVertices(ids[i], NULL, 0), wfCollider_GetMeshTriangles(ids[i], NULL, 0));

	CliObjWriter objWriter = {0};
	CliGltf* gltf = CliGltfOpen(glb, world, &cloth, 1, frames, error, sizeof error);
	CliUsdWriter* usd = gltf != NULL ? CliUsdOpen(usda, world, &cloth, 1, "mesh_collider_export", error, sizeof error) : NULL;
	bool ok = usd != NULL && CliObjWriterInit(&objWriter, obj, &cloth, 1, error, sizeof error);
	for (int frame = 1; ok && frame <= frames; ++frame) {
		if (frame <= 70) {
			const float s = 1.0f + 0.005f * (float)frame;
			for (int i = 0; i < SPHERE_VERTICES; ++i)
				grown[i] = (wfVec3){s * sphere[i].x, s * sphere[i].y, s * sphere[i].z};
			ok = wfCollider_SetMeshVertices(body, grown, SPHERE_VERTICES) == WF_OK;
		}
		ok = ok && wfWorld_Step(world) == WF_OK && CliObjWriteFrame(&objWriter, frame, wfWorld_GetTime(world), error, sizeof error) &&
			CliGltfFrame(gltf, frame, error, sizeof error) && CliUsdWriteFrame(usd, frame, error, sizeof error);
	}
	CliObjWriterFree(&objWriter);
	// Kept only when every frame was written; either way the writers are freed.
	const bool ran = ok;
	ok = CliGltfClose(gltf, ran, NULL, error, sizeof error) && ok;
	ok = CliUsdClose(usd, ran && ok, error, sizeof error) && ok;
	if (!ok)
		fprintf(stderr, "%s (%s)\n", error, wfWorld_GetLastError(world));
	wfDestroyWorld(world);
	return ok ? 0 : 1;
}
