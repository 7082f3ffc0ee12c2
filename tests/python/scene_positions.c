// The C side of the Python package's bit-exactness test: loads a scene (colliders, then cloths, as
// weft run does), steps it on the CPU for a
// number of frames and writes every cloth's positions, float32 xyz, one cloth after another, to a
// file. tests/python/test_world.py does the same through `weft` and compares the bytes.
//   weft_scene_positions SCENE.json FRAMES OUT.bin
#include "weft/weft.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s SCENE.json FRAMES OUT.bin\n", argv[0]);
		return 2;
	}
	char err[512];
	wfScene* scene = wfScene_Load(argv[1], err, sizeof err);
	if (scene == NULL) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	wfWorldDef wd = wfScene_GetWorldDef(scene);
	wd.backend = WF_BACKEND_CPU;
	wfWorld* world = wfCreateWorld(&wd, err, sizeof err);
	if (world == NULL) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	for (int i = 0; i < wfScene_GetColliderCount(scene); ++i) {
		wfColliderDef cd = wfScene_GetColliderDef(scene, i);
		if (wfColliderId_IsNull(wfCreateCollider(world, &cd))) {
			fprintf(stderr, "%s\n", wfWorld_GetLastError(world));
			return 1;
		}
	}
	int count = wfScene_GetClothCount(scene);
	wfClothId ids[64];
	for (int i = 0; i < count && i < 64; ++i) {
		wfClothDef cd = wfScene_GetClothDef(scene, i);
		ids[i] = wfCreateCloth(world, &cd);
		if (wfClothId_IsNull(ids[i])) {
			fprintf(stderr, "%s\n", wfWorld_GetLastError(world));
			return 1;
		}
	}
	int frames = atoi(argv[2]);
	for (int f = 0; f < frames; ++f)
		if (wfWorld_Step(world) != WF_OK) {
			fprintf(stderr, "%s\n", wfWorld_GetLastError(world));
			return 1;
		}
	FILE* out = fopen(argv[3], "wb");
	if (out == NULL) {
		perror(argv[3]);
		return 1;
	}
	for (int i = 0; i < count && i < 64; ++i) {
		wfClothInfo info;
		wfCloth_GetInfo(ids[i], &info);
		wfVec3* p = malloc(sizeof *p * (size_t)info.particleCount);
		wfCloth_ReadPositions(ids[i], p, info.particleCount);
		fwrite(p, sizeof *p, (size_t)info.particleCount, out);
		free(p);
	}
	int ok = fclose(out) == 0;
	wfDestroyWorld(world);
	wfDestroyScene(scene);
	return ok ? 0 : 1;
}
