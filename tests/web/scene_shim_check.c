// The wasm build's cJSON shim (web/shim) against the real cJSON: src/core/scene.c compiled a second
// time against the shim (its public functions renamed wfShimScene_*) and the library's scene loader
// (real cJSON) read the same texts and must give the same defs or the same error message. The
// texts: every file named on the command line (the scenes, the CLI tests' good and bad scenes), each
// of them cut after every byte, and each scene of scenes/ with every byte replaced by each of a set
// of JSON-significant characters (syntax errors everywhere: the shim must stop where cJSON stops).
//   weft_scene_shim_check [--mutate] FILE.json ... [--mutate] ...
#include "weft/weft.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

wfScene* wfShimScene_Parse(const char* text, const char* name, char* error, int errorSize);
wfScene* wfShimScene_Load(const char* path, char* error, int errorSize);
void wfShimDestroyScene(wfScene* scene);
wfWorldDef wfShimScene_GetWorldDef(const wfScene* scene);
int wfShimScene_GetClothCount(const wfScene* scene);
wfClothDef wfShimScene_GetClothDef(const wfScene* scene, int index);
int wfShimScene_GetFrames(const wfScene* scene);
int wfShimScene_GetColliderCount(const wfScene* scene);
wfColliderDef wfShimScene_GetColliderDef(const wfScene* scene, int index);

static long s_texts, s_parsed, s_rejected, s_mismatches;

static bool SameString(const char* a, const char* b) { return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0); }

static bool SameBytes(const void* a, const void* b, size_t bytes)
{
	return (a == NULL) == (b == NULL) && (a == NULL || memcmp(a, b, bytes) == 0);
}

// Two mesh defs by what their arrays hold.
static bool SameMesh(const wfMeshDef* a, const wfMeshDef* b)
{
	if ((a == NULL) != (b == NULL))
		return false;
	if (a == NULL)
		return true;
	if (a->vertexCount != b->vertexCount || a->faceCount != b->faceCount)
		return false;
	size_t corners = 0;
	for (int f = 0; f < a->faceCount; ++f)
		corners += a->faceSizes != NULL ? a->faceSizes[f] : 3u;
	const size_t n = (size_t)a->vertexCount;
	return SameBytes(a->positions, b->positions, n * sizeof(wfVec3)) && SameBytes(a->indices, b->indices, corners * sizeof(uint32_t)) &&
		SameBytes(a->faceSizes, b->faceSizes, (size_t)a->faceCount) && SameBytes(a->uvs, b->uvs, 2 * n * sizeof(float)) &&
		SameBytes(a->cornerUVs, b->cornerUVs, 2 * corners * sizeof(float));
}

// The defs of two scenes, field by field where they hold pointers (compared by what they point to:
// pin and attachment lists, meshes, collider keyframes and their shapes), and their colliders.
static bool SameScene(const wfScene* a, const wfScene* b)
{
	wfWorldDef wa = wfScene_GetWorldDef(a), wb = wfShimScene_GetWorldDef(b);
	if (!SameString(wa.deviceName, wb.deviceName) || wa.vulkanDevice != wb.vulkanDevice)
		return false;
	wa.deviceName = wb.deviceName = NULL;
	if (memcmp(&wa, &wb, sizeof wa) != 0 || wfScene_GetFrames(a) != wfShimScene_GetFrames(b) ||
		wfScene_GetClothCount(a) != wfShimScene_GetClothCount(b))
		return false;
	for (int i = 0; i < wfScene_GetClothCount(a); ++i) {
		wfClothDef ca = wfScene_GetClothDef(a, i), cb = wfShimScene_GetClothDef(b, i);
		if (ca.pinCount != cb.pinCount || (ca.pinIndices == NULL) != (cb.pinIndices == NULL) ||
			(ca.pinIndices != NULL && memcmp(ca.pinIndices, cb.pinIndices, (size_t)ca.pinCount * sizeof(int)) != 0))
			return false;
		if (!SameMesh(ca.mesh, cb.mesh) || ca.attachCount != cb.attachCount ||
			!SameBytes(ca.attachIndices, cb.attachIndices, (size_t)ca.attachCount * sizeof(int)))
			return false;
		ca.pinIndices = cb.pinIndices = NULL;
		ca.attachIndices = cb.attachIndices = NULL;
		ca.mesh = cb.mesh = NULL;
		if (memcmp(&ca, &cb, sizeof ca) != 0)
			return false;
	}
	if (wfScene_GetColliderCount(a) != wfShimScene_GetColliderCount(b))
		return false;
	for (int i = 0; i < wfScene_GetColliderCount(a); ++i) {
		wfColliderDef ca = wfScene_GetColliderDef(a, i), cb = wfShimScene_GetColliderDef(b, i);
		// Keyframes by what they hold (each loader has its own copy).
		if (ca.keyCount != cb.keyCount || !SameBytes(ca.keys, cb.keys, (size_t)ca.keyCount * sizeof(wfColliderKey)) ||
			!SameMesh(ca.mesh, cb.mesh))
			return false;
		const size_t shapes = ca.mesh != NULL ? (size_t)ca.keyCount * (size_t)ca.mesh->vertexCount : 0;
		if (!SameBytes(ca.keyPositions, cb.keyPositions, shapes * sizeof(wfVec3)))
			return false;
		ca.keys = cb.keys = NULL;
		ca.mesh = cb.mesh = NULL;
		ca.keyPositions = cb.keyPositions = NULL;
		if (memcmp(&ca, &cb, sizeof ca) != 0)
			return false;
	}
	return true;
}

static void Report(const char* what, const char* ea, const char* eb)
{
	if (++s_mismatches <= 10)
		fprintf(stderr, "MISMATCH %s\n  cJSON: %s\n  shim:  %s\n", what, ea, eb);
}

static void Compare(wfScene* a, wfScene* b, const char* ea, const char* eb, const char* what)
{
	++s_texts;
	if (a == NULL && b == NULL) {
		++s_rejected;
		if (strcmp(ea, eb) != 0)
			Report(what, ea, eb);
	} else if (a != NULL && b != NULL) {
		++s_parsed;
		if (!SameScene(a, b))
			Report(what, "(defs)", "(other defs)");
	} else {
		Report(what, a != NULL ? "(parsed)" : ea, b != NULL ? "(parsed)" : eb);
	}
	wfDestroyScene(a);
	wfShimDestroyScene(b);
}

static void CompareText(const char* text, const char* what)
{
	char ea[512], eb[512];
	wfScene* a = wfScene_Parse(text, "s.json", ea, (int)sizeof ea);
	wfScene* b = wfShimScene_Parse(text, "s.json", eb, (int)sizeof eb);
	Compare(a, b, ea, eb, what);
}

int main(int argc, char** argv)
{
	static const char kBytes[] = "\"\\,:{}[] x0-.eu\x01\x7f\xff";
	bool mutate = false;
	for (int i = 1; i < argc; ++i) {
		if (strcmp(argv[i], "--mutate") == 0) {
			mutate = !mutate;
			continue;
		}
		char ea[512], eb[512];
		Compare(wfScene_Load(argv[i], ea, (int)sizeof ea), wfShimScene_Load(argv[i], eb, (int)sizeof eb), ea, eb, argv[i]);
		FILE* f = fopen(argv[i], "rb");
		if (f == NULL)
			continue; // a missing file: compared as such above
		char* text = (char*)calloc(1 << 20, 1);
		size_t size = text != NULL ? fread(text, 1, (1 << 20) - 1, f) : 0;
		fclose(f);
		char* copy = (char*)malloc(size + 1);
		if (text == NULL || copy == NULL)
			return 1;
		char what[1024];
		for (size_t cut = 0; cut <= size; ++cut) {
			memcpy(copy, text, cut);
			copy[cut] = 0;
			snprintf(what, sizeof what, "%s cut after %zu bytes", argv[i], cut);
			CompareText(copy, what);
		}
		for (size_t at = 0; mutate && at < size; ++at) {
			for (const char* c = kBytes; *c != 0; ++c) {
				memcpy(copy, text, size + 1);
				copy[at] = *c;
				snprintf(what, sizeof what, "%s byte %zu as 0x%02x", argv[i], at, (unsigned char)*c);
				CompareText(copy, what);
			}
		}
		free(copy);
		free(text);
	}
	printf("%s %ld texts through both loaders: %ld scenes with the same defs, %ld rejected with the same message, %ld mismatches\n",
		s_mismatches == 0 ? "ok" : "FAILED", s_texts, s_parsed, s_rejected, s_mismatches);
	return s_mismatches == 0 && s_texts > 0 ? 0 : 1;
}
