// The native side of the wasm comparison: steps a preset on the CPU backend with the scalar kernels
// (as the wasm build runs) and writes the positions of every frame as raw little-endian float32.
// PRESET may be a scene file (NAME.json): its first cloth, as the page runs it. Prints the frames
// the frame check discarded (non-finite, unstable, unstable in contact) and the frames that tunnelled.
//   weft_native_positions PRESET|SCENE.json FRAMES OUT.f32
//   weft_native_positions PRESET|SCENE.json FRAMES OUT.hash   (the state hash of every frame)
#include "weft/weft.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The scene's colliders, as the page's wasm core builds the world: 0, or 1 when one was refused.
static int CreateColliders(wfWorld* w, const wfScene* scene)
{
	int code = 0;
	for (int i = 0; scene != NULL && i < wfScene_GetColliderCount(scene); ++i) {
		const wfColliderDef def = wfScene_GetColliderDef(scene, i);
		code |= wfColliderId_IsNull(wfCreateCollider(w, &def));
	}
	return code;
}

// OUT named NAME.hash: the scene's colliders and first cloth, and the world's state hash
// (wfWorld_GetStateHash) after every frame, one hex line each.
static int WriteHashes(wfWorld* w, wfScene* scene, const wfClothDef* cd, int frames, const char* path)
{
	int code = CreateColliders(w, scene);
	code |= wfClothId_IsNull(wfCreateCloth(w, cd));
	FILE* f = code == 0 ? fopen(path, "w") : NULL;
	for (int frame = 0; f != NULL && frame < frames; ++frame) {
		uint64_t h = 0;
		if (wfWorld_Step(w) != WF_OK || wfWorld_GetStateHash(w, &h) != WF_OK || fprintf(f, "%016llx\n", (unsigned long long)h) < 0)
			code = 1;
	}
	if (f == NULL || fclose(f) != 0)
		code = 1;
	if (code != 0)
		fprintf(stderr, "weft_native_positions: %s\n", wfWorld_GetLastError(w));
	wfDestroyWorld(w);
	wfDestroyScene(scene);
	return code;
}

int main(int argc, char** argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: weft_native_positions PRESET FRAMES OUT.f32\n");
		return 2;
	}
	wfWorldDef wd;
	wfClothDef cd;
	const size_t len = strlen(argv[1]);
	wfScene* scene = NULL;
	if (len > 5 && strcmp(argv[1] + len - 5, ".json") == 0) {
		char error[512];
		scene = wfScene_Load(argv[1], error, (int)sizeof error);
		if (scene == NULL) {
			fprintf(stderr, "weft_native_positions: %s\n", error);
			return 2;
		}
		wd = wfScene_GetWorldDef(scene);
		cd = wfScene_GetClothDef(scene, 0);
		wd.deviceName = NULL;
	} else if (!wfPresetGet(argv[1], &wd, &cd)) {
		fprintf(stderr, "weft_native_positions: '%s' is not a preset\n", argv[1]);
		return 2;
	}
	const int frames = atoi(argv[2]);
	wd.backend = WF_BACKEND_CPU;
	wd.threads = 1;
	wd.simd = false;
	char error[256];
	wfWorld* w = wfCreateWorld(&wd, error, sizeof error);
	if (w == NULL) {
		fprintf(stderr, "weft_native_positions: %s\n", error);
		return 1;
	}
	const size_t outLen = strlen(argv[3]);
	if (outLen > 5 && strcmp(argv[3] + outLen - 5, ".hash") == 0)
		return WriteHashes(w, scene, &cd, frames, argv[3]);
	const int colliders = CreateColliders(w, scene);
	wfClothId id = wfCreateCloth(w, &cd);
	FILE* f = fopen(argv[3], "wb");
	if (colliders != 0 || wfClothId_IsNull(id) || f == NULL) {
		fprintf(stderr, "weft_native_positions: cannot set up the run or open %s\n", argv[3]);
		return 1;
	}
	// Each frame's particles (tearing adds some between frames).
	int code = 0, n = 0;
	wfVec3* p = NULL;
	for (int frame = 0; frame < frames && code == 0; ++frame) {
		wfClothInfo info;
		if (wfWorld_Step(w) != WF_OK || wfCloth_GetInfo(id, &info) != WF_OK) {
			code = 1;
			break;
		}
		if (info.particleCount > n) {
			free(p);
			n = info.particleCount;
			p = (wfVec3*)malloc((size_t)n * sizeof *p);
		}
		const size_t count = (size_t)info.particleCount;
		if (p == NULL || wfCloth_ReadPositions(id, p, info.particleCount) != WF_OK || fwrite(p, sizeof *p, count, f) != count)
			code = 1;
	}
	if (fclose(f) != 0)
		code = 1;
	// The frames the frame check discarded, for the page's comparison.
	const wfWarnings warn = wfWorld_GetWarnings(w);
	printf("%lld %lld %lld %lld\n", (long long)warn.nonFinite, (long long)warn.unstable, (long long)warn.unstableInContact,
		(long long)warn.tunnelled);
	free(p);
	wfDestroyWorld(w);
	wfDestroyScene(scene);
	return code;
}
