// The C core as WebAssembly (wasm32-wasi, clang): the same sources as the native library's core and
// CPU solvers, and these few exports for JavaScript. Positions cross as float32 arrays in the
// module's memory; a world is an opaque pointer.
#include "core/internal.h" // wfGetCloth and the model, for the constraint list
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

// ------------------------------------------------------------------ for the page
// The mesh (once), the colliders and pins (per frame), and the interactions of the page.

WF_WASM_EXPORT(wfw_triangles) int wfwTriangles(WfwWorld* w)
{
	wfClothInfo info;
	return w != NULL && wfCloth_GetInfo(w->cloth, &info) == WF_OK ? info.triangleCount : 0;
}

WF_WASM_EXPORT(wfw_indices) int wfwIndices(WfwWorld* w, uint32_t* out) // (3 x triangles)
{
	return w != NULL ? (int)wfCloth_ReadIndices(w->cloth, out, 3 * wfwTriangles(w)) : -1;
}

WF_WASM_EXPORT(wfw_uvs) int wfwUvs(WfwWorld* w, float* out) // (particles x 2)
{
	return w != NULL ? (int)wfCloth_ReadUVs(w->cloth, out, w->particles) : -1;
}

WF_WASM_EXPORT(wfw_velocities) int wfwVelocities(WfwWorld* w, float* out) // (particles x 3)
{
	return w != NULL ? (int)wfCloth_ReadVelocities(w->cloth, (wfVec3*)(void*)out, w->particles) : -1;
}

// out: [particles, constraints, colours, triangles, solver (0 xpbd, 1 jacobi, 2 springs), substeps,
//       iterations, time step]
WF_WASM_EXPORT(wfw_info) int wfwInfo(WfwWorld* w, float* out)
{
	wfClothInfo info;
	if (w == NULL || wfCloth_GetInfo(w->cloth, &info) != WF_OK)
		return -1;
	wfWorldDef d = wfWorld_GetDef(w->world);
	const float v[8] = {(float)info.particleCount, (float)info.constraintCount, (float)info.colorCount, (float)info.triangleCount,
		(float)d.step.solver, (float)d.step.substeps, (float)d.step.iterations, d.step.timeStep};
	memcpy(out, v, sizeof v);
	return 0;
}

// out: [sphere enabled, centre now x, y, z, radius, moving, floor enabled, floor height]
WF_WASM_EXPORT(wfw_colliders) int wfwColliders(WfwWorld* w, float* out)
{
	if (w == NULL)
		return -1;
	wfWorldDef d = wfWorld_GetDef(w->world);
	wfVec3 c = wfWorld_GetSphereCenter(w->world);
	const float v[8] = {d.sphere.enabled ? 1.0f : 0.0f, c.x, c.y, c.z, d.sphere.radius, d.sphere.moving ? 1.0f : 0.0f,
		d.floor.enabled ? 1.0f : 0.0f, d.floor.height};
	memcpy(out, v, sizeof v);
	return 0;
}

WF_WASM_EXPORT(wfw_pinned) int wfwPinned(WfwWorld* w, int particle) { return w != NULL && wfCloth_IsPinned(w->cloth, particle); }
WF_WASM_EXPORT(wfw_set_sphere_moving) int wfwSetSphereMoving(WfwWorld* w, int on)
{
	return w != NULL ? (int)wfWorld_SetSphereMoving(w->world, on != 0) : -1;
}
WF_WASM_EXPORT(wfw_grab) int wfwGrab(WfwWorld* w, int particle, float x, float y, float z)
{
	return w != NULL ? (int)wfCloth_Grab(w->cloth, particle, (wfVec3){x, y, z}) : -1;
}
WF_WASM_EXPORT(wfw_move_grab) int wfwMoveGrab(WfwWorld* w, float x, float y, float z)
{
	return w != NULL ? (int)wfCloth_MoveGrab(w->cloth, (wfVec3){x, y, z}) : -1;
}
WF_WASM_EXPORT(wfw_release) int wfwRelease(WfwWorld* w) { return w != NULL ? (int)wfCloth_Release(w->cloth) : -1; }
WF_WASM_EXPORT(wfw_reset) int wfwReset(WfwWorld* w) { return w != NULL ? (int)wfCloth_Reset(w->cloth) : -1; }

// Live parameters of the panel: gravity (y), substeps, damping of the preset's solver, wind strength.
WF_WASM_EXPORT(wfw_set_params) int wfwSetParams(WfwWorld* w, float gravityY, int substeps, float damping, float wind)
{
	if (w == NULL)
		return -1;
	wfWorldDef d = wfWorld_GetDef(w->world);
	d.step.substeps = substeps;
	d.wind.strength = wind;
	wfMaterial m = wfCloth_GetMaterial(w->cloth);
	if (d.step.solver == WF_SOLVER_XPBD)
		m.damping = damping;
	else if (d.step.solver == WF_SOLVER_JACOBI)
		m.retention = damping;
	else
		m.springDamping = damping;
	wfResult r = wfWorld_SetGravity(w->world, (wfVec3){d.gravity.x, gravityY, d.gravity.z});
	if (r == WF_OK)
		r = wfWorld_SetStep(w->world, &d.step);
	if (r == WF_OK)
		r = wfWorld_SetWind(w->world, &d.wind);
	if (r == WF_OK)
		r = wfCloth_SetMaterial(w->cloth, &m);
	if (r != WF_OK)
		snprintf(s_text, sizeof s_text, "%s", wfWorld_GetLastError(w->world));
	return (int)r;
}

// The constraints for the third document's own view (nodes and ribbons): pairs (a, b), rest
// lengths and families, in the model's order (sorted by colour).
WF_WASM_EXPORT(wfw_constraint_count) int wfwConstraintCount(WfwWorld* w)
{
	const wfCloth* c = w != NULL ? wfGetCloth(w->cloth) : NULL;
	return c != NULL ? c->model.constraintCount : 0;
}

WF_WASM_EXPORT(wfw_constraints) int wfwConstraints(WfwWorld* w, uint32_t* pairs, float* rest, uint32_t* family)
{
	const wfCloth* c = w != NULL ? wfGetCloth(w->cloth) : NULL;
	if (c == NULL || pairs == NULL || rest == NULL || family == NULL)
		return -1;
	for (int k = 0; k < c->model.constraintCount; ++k) {
		pairs[2 * k] = c->model.constraints[k].a;
		pairs[2 * k + 1] = c->model.constraints[k].b;
		rest[k] = c->model.constraints[k].rest;
		family[k] = c->model.constraints[k].family;
	}
	return 0;
}
