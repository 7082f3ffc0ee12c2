// The C core as WebAssembly (wasm32-wasi, clang): the same sources as the native library's core and
// CPU solvers, and these few exports for JavaScript. Positions cross as float32 arrays in the
// module's memory; a world is an opaque pointer.
#include "weft/weft.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WF_WASM_EXPORT(name) __attribute__((export_name(#name)))

// Scratch for strings passed from JavaScript (preset names) and messages passed back.
static char s_text[512];

WF_WASM_EXPORT(wfw_text) char* wfwText(void) { return s_text; }
WF_WASM_EXPORT(wfw_alloc) void* wfwAlloc(int bytes) { return bytes > 0 ? malloc((size_t)bytes) : NULL; }
WF_WASM_EXPORT(wfw_free) void wfwFree(void* p) { free(p); }

// A world and its one cloth from the preset named in wfw_text(), on the CPU backend with the scalar
// kernels (the same bits as the native scalar solver). NULL with the reason in wfw_text().
typedef struct WfwWorld {
	wfWorld* world;
	wfClothId cloth;
	int particles;
} WfwWorld;

WF_WASM_EXPORT(wfw_create) WfwWorld* wfwCreate(int cols, int rows)
{
	wfWorldDef wd;
	wfClothDef cd;
	if (!wfPresetGet(s_text, &wd, &cd)) {
		char name[65];
		snprintf(name, sizeof name, "%s", s_text);
		snprintf(s_text, sizeof s_text, "preset: '%s' is not a preset", name);
		return NULL;
	}
	wd.backend = WF_BACKEND_CPU;
	wd.threads = 1;
	wd.simd = false;
	if (cols > 0 && rows > 0) {
		cd.cols = cols;
		cd.rows = rows;
	}
	WfwWorld* w = (WfwWorld*)calloc(1, sizeof *w);
	if (w == NULL)
		return NULL;
	w->world = wfCreateWorld(&wd, s_text, (int)sizeof s_text);
	if (w->world == NULL) {
		free(w);
		return NULL;
	}
	w->cloth = wfCreateCloth(w->world, &cd);
	if (wfClothId_IsNull(w->cloth)) {
		snprintf(s_text, sizeof s_text, "%s", wfWorld_GetLastError(w->world));
		wfDestroyWorld(w->world);
		free(w);
		return NULL;
	}
	w->particles = cd.cols * cd.rows;
	return w;
}

WF_WASM_EXPORT(wfw_particles) int wfwParticles(const WfwWorld* w) { return w != NULL ? w->particles : 0; }
WF_WASM_EXPORT(wfw_step) int wfwStep(WfwWorld* w) { return w != NULL ? (int)wfWorld_Step(w->world) : -1; }
WF_WASM_EXPORT(wfw_time) double wfwTime(const WfwWorld* w) { return w != NULL ? wfWorld_GetTime(w->world) : 0.0; }

// Positions (world coordinates, xyz per particle) into out.
WF_WASM_EXPORT(wfw_positions) int wfwPositions(WfwWorld* w, float* out)
{
	if (w == NULL || out == NULL)
		return -1;
	return (int)wfCloth_ReadPositions(w->cloth, (wfVec3*)(void*)out, w->particles);
}

WF_WASM_EXPORT(wfw_destroy) void wfwDestroy(WfwWorld* w)
{
	if (w == NULL)
		return;
	wfDestroyWorld(w->world);
	free(w);
}
