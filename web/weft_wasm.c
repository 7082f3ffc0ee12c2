// The C core as WebAssembly (wasm32-wasi, clang): the same sources as the native library's core and
// CPU solvers, and these few exports for JavaScript. Positions cross as float32 arrays in the
// module's memory; a world is an opaque pointer.
#include "core/internal.h" // wfGetCloth and the model, for the constraint list
#include "weft/weft.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WF_WASM_EXPORT(name) __attribute__((export_name(#name)))

// Scratch for strings passed from JavaScript (preset names) and messages passed back.
static char s_text[512];

WF_WASM_EXPORT(wfw_text) char* wfwText(void) { return s_text; }
WF_WASM_EXPORT(wfw_alloc) void* wfwAlloc(int bytes) { return bytes > 0 ? malloc((size_t)bytes) : NULL; }
WF_WASM_EXPORT(wfw_free) void wfwFree(void* p) { free(p); }

// A world and its one cloth from the preset named in wfw_text(), on the CPU backend (the same bits
// as the native scalar solver). NULL with the reason in wfw_text().
typedef struct WfwWorld {
	wfWorld* world;
	wfClothId cloth;
	int particles;
} WfwWorld;

// A world of one cloth on the CPU backend, one thread; NULL with the reason in s_text. SIMD on: in
// this build that is the structure-of-arrays XPBD kernel at 4 lanes (SIMD128, cpu_soa.c) for grids,
// with the native scalar solver's bits like every kernel here.
static WfwWorld* CreateWorld(wfWorldDef wd, const wfClothDef* cd)
{
	wd.backend = WF_BACKEND_CPU;
	wd.threads = 1;
	wd.simd = true;
	wd.deviceName = NULL;
	WfwWorld* w = (WfwWorld*)calloc(1, sizeof *w);
	if (w == NULL)
		return NULL;
	w->world = wfCreateWorld(&wd, s_text, (int)sizeof s_text);
	if (w->world == NULL) {
		free(w);
		return NULL;
	}
	w->cloth = wfCreateCloth(w->world, cd);
	if (wfClothId_IsNull(w->cloth)) {
		snprintf(s_text, sizeof s_text, "%s", wfWorld_GetLastError(w->world));
		wfDestroyWorld(w->world);
		free(w);
		return NULL;
	}
	wfClothInfo info;
	w->particles = wfCloth_GetInfo(w->cloth, &info) == WF_OK ? info.particleCount : 0; // grids and meshes
	return w;
}

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
	if (cols > 0 && rows > 0) {
		cd.cols = cols;
		cd.rows = rows;
	}
	return CreateWorld(wd, &cd);
}

void wfwDestroy(WfwWorld* w);

// A world from a scene file's bytes (size of them at text, the file's name in s_text), read as
// wfScene_Load reads a file: a NUL byte is an error, then wfScene_Parse (scene.c, against the cJSON
// shim in web/shim). The page runs the scene's first cloth (*cloths: how many the scene has); cols
// and rows > 0 replace a grid cloth's (the page's grid density). NULL with the message the weft
// command prints (less its "weft: ") in s_text.
WF_WASM_EXPORT(wfw_create_scene) WfwWorld* wfwCreateScene(const char* text, int size, int* cloths, int cols, int rows)
{
	char name[256];
	snprintf(name, sizeof name, "%s", s_text);
	if (text == NULL || size < 0 || cloths == NULL || text[size] != 0) {
		snprintf(s_text, sizeof s_text, "%s: (file): no text", name);
		return NULL;
	}
	const char* nul = memchr(text, 0, (size_t)size);
	if (nul != NULL) {
		// scene.c's message for a NUL byte in a file (SyntaxError with nulByte): where it is.
		int line = 1, column = 1;
		for (const char* c = text; c < nul; ++c) {
			line += *c == '\n';
			column = *c == '\n' ? 1 : column + 1;
		}
		snprintf(s_text, sizeof s_text, "%s: line %d, column %d: a NUL byte; a scene file is UTF-8 text", name, line, column);
		return NULL;
	}
	wfScene* scene = wfScene_Parse(text, name, s_text, (int)sizeof s_text);
	if (scene == NULL)
		return NULL;
	*cloths = wfScene_GetClothCount(scene);
	wfClothDef cd = wfScene_GetClothDef(scene, 0);
	if (cd.mesh == NULL && cols > 0 && rows > 0) {
		cd.cols = cols;
		cd.rows = rows;
	}
	WfwWorld* w = CreateWorld(wfScene_GetWorldDef(scene), &cd);
	// The scene's colliders, as the weft command creates them.
	for (int i = 0; w != NULL && i < wfScene_GetColliderCount(scene); ++i) {
		const wfColliderDef def = wfScene_GetColliderDef(scene, i);
		if (wfColliderId_IsNull(wfCreateCollider(w->world, &def))) {
			snprintf(s_text, sizeof s_text, "%s", wfWorld_GetLastError(w->world));
			wfwDestroy(w);
			w = NULL;
		}
	}
	wfDestroyScene(scene);
	return w;
}

WF_WASM_EXPORT(wfw_particles) int wfwParticles(const WfwWorld* w) { return w != NULL ? w->particles : 0; }

// Tearing changes the cloth's counts between frames (wfClothInfo.topology counts those changes, a
// reset undoes them): takes the cloth's particle count now, which the reads below use, and returns
// the count of changes (the page rebuilds its mesh when it or wfw_particles moves), -1 without a cloth.
WF_WASM_EXPORT(wfw_topology) int wfwTopology(WfwWorld* w)
{
	wfClothInfo info;
	if (w == NULL || wfCloth_GetInfo(w->cloth, &info) != WF_OK)
		return -1;
	w->particles = info.particleCount;
	return info.topology;
}
WF_WASM_EXPORT(wfw_step) int wfwStep(WfwWorld* w) { return w != NULL ? (int)wfWorld_Step(w->world) : -1; }
WF_WASM_EXPORT(wfw_time) double wfwTime(const WfwWorld* w) { return w != NULL ? wfWorld_GetTime(w->world) : 0.0; }

// Positions (world coordinates, xyz per particle) into out.
WF_WASM_EXPORT(wfw_positions) int wfwPositions(WfwWorld* w, float* out)
{
	if (w == NULL || out == NULL)
		return -1;
	return (int)wfCloth_ReadPositions(w->cloth, (wfVec3*)(void*)out, w->particles);
}

// The world's state hash (wfWorld_GetStateHash) into out[0].
WF_WASM_EXPORT(wfw_state_hash) int wfwStateHash(WfwWorld* w, uint64_t* out)
{
	if (w == NULL || out == NULL)
		return -1;
	return (int)wfWorld_GetStateHash(w->world, out);
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

// out: [sphere enabled, centre now x, y, z, radius, moving, floor enabled, floor height, contact
//       thickness]
WF_WASM_EXPORT(wfw_colliders) int wfwColliders(WfwWorld* w, float* out)
{
	if (w == NULL)
		return -1;
	wfWorldDef d = wfWorld_GetDef(w->world);
	wfVec3 c = wfWorld_GetSphereCenter(w->world);
	const float v[9] = {d.sphere.enabled ? 1.0f : 0.0f, c.x, c.y, c.z, d.sphere.radius, d.sphere.moving ? 1.0f : 0.0f,
		d.floor.enabled ? 1.0f : 0.0f, d.floor.height, d.contact.thickness};
	memcpy(out, v, sizeof v);
	return 0;
}

WF_WASM_EXPORT(wfw_pinned) int wfwPinned(WfwWorld* w, int particle) { return w != NULL && wfCloth_IsPinned(w->cloth, particle); }
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

// ------------------------------------------------------------------ the panel's controls
// Every control of the page's panel is a live setter of the library (no rebuild), read back from
// the world and cloth by wfw_get_controls. The page's WebGPU solver takes the same values from the
// core each frame (wfw_gpu_begin), so one setter drives both backends; what lives in the GPU's
// state (inverse masses: mass, pins) the page copies over after the change (wfw_local_state).
enum {
	WFW_GRAVITY_Y = 0,  // m/s^2
	WFW_SUBSTEPS,       // per frame (the frame's time step kept)
	WFW_DAMPING,        // the solver's: XPBD damping (kg/s), Jacobi retention, springs damping (N s/m)
	WFW_WIND,           // strength; > 0 with no wind turns on the solver's kind (springs: gust, else wave)
	WFW_STIFFNESS,      // XPBD 1 / stretch compliance (N/m), Jacobi relaxation s, springs stiffness (N/m)
	WFW_MASS,           // per particle, kg
	WFW_WIND_FREQUENCY, // Hz (wave wind)
	WFW_FLOOR,          // 0 off, 1 on
	WFW_SPHERE_RADIUS,  // m
	WFW_TIME_STEP,      // s per substep (the substeps kept: the frame's time step changes)
	WFW_SPHERE_MOVING,  // 0 still, 1 moving
	WFW_SETTABLE,
	// read only
	WFW_PIN_MODE = WFW_SETTABLE, // wfPinMode
	WFW_PINNED,                  // pinned particles
	WFW_SPHERE,                  // 0 no sphere, 1 a sphere
	WFW_WIND_MODE,               // wfWindMode
	WFW_COLS,                    // grid columns and rows, 0 for a mesh
	WFW_ROWS,
	WFW_FLOOR_HEIGHT, // m
	WFW_CONTROLS
};

// out: WFW_CONTROLS floats in the order above.
WF_WASM_EXPORT(wfw_get_controls) int wfwGetControls(WfwWorld* w, float* out)
{
	const wfCloth* c = w != NULL ? wfGetCloth(w->cloth) : NULL;
	if (c == NULL || out == NULL)
		return -1;
	const wfWorldDef d = wfWorld_GetDef(w->world);
	const wfMaterial m = wfCloth_GetMaterial(w->cloth);
	const wfSolverType solver = d.step.solver;
	int pinned = 0;
	for (int i = 0; i < c->model.particleCount; ++i)
		pinned += c->pinned[i] != 0;
	out[WFW_GRAVITY_Y] = d.gravity.y;
	out[WFW_SUBSTEPS] = (float)d.step.substeps;
	out[WFW_DAMPING] = solver == WF_SOLVER_XPBD ? m.damping : solver == WF_SOLVER_JACOBI ? m.retention : m.springDamping;
	out[WFW_WIND] = d.wind.mode == WF_WIND_NONE ? 0.0f : d.wind.strength;
	out[WFW_STIFFNESS] = solver == WF_SOLVER_XPBD ? (m.stretchCompliance > 0.0f ? 1.0f / m.stretchCompliance : INFINITY)
		: solver == WF_SOLVER_JACOBI              ? m.relaxation
												  : m.stiffness;
	out[WFW_MASS] = m.mass;
	out[WFW_WIND_FREQUENCY] = d.wind.frequency;
	out[WFW_FLOOR] = d.floor.enabled ? 1.0f : 0.0f;
	out[WFW_SPHERE_RADIUS] = d.sphere.radius;
	out[WFW_TIME_STEP] = d.step.timeStep / (float)d.step.substeps;
	out[WFW_SPHERE_MOVING] = d.sphere.moving ? 1.0f : 0.0f;
	out[WFW_PIN_MODE] = (float)c->def.pinMode;
	out[WFW_PINNED] = (float)pinned;
	out[WFW_SPHERE] = d.sphere.enabled ? 1.0f : 0.0f;
	out[WFW_WIND_MODE] = (float)d.wind.mode;
	out[WFW_COLS] = c->model.mesh ? 0.0f : (float)c->model.cols;
	out[WFW_ROWS] = c->model.mesh ? 0.0f : (float)c->model.rows;
	out[WFW_FLOOR_HEIGHT] = d.floor.height;
	return 0;
}

// Sets one control (the enum above) through the library's setter; its message in wfw_text() when
// the library refuses the value.
WF_WASM_EXPORT(wfw_set_control) int wfwSetControl(WfwWorld* w, int which, float value)
{
	if (w == NULL || which < 0 || which >= WFW_SETTABLE)
		return -1;
	wfWorld* world = w->world;
	wfWorldDef d = wfWorld_GetDef(world);
	wfMaterial m = wfCloth_GetMaterial(w->cloth);
	const wfSolverType solver = d.step.solver;
	wfResult r = WF_OK;
	switch (which) {
	case WFW_GRAVITY_Y: r = wfWorld_SetGravity(world, (wfVec3){d.gravity.x, value, d.gravity.z}); break;
	case WFW_SUBSTEPS:
		d.step.substeps = (int)lroundf(value);
		r = wfWorld_SetStep(world, &d.step);
		break;
	case WFW_TIME_STEP:
		d.step.timeStep = value * (float)d.step.substeps;
		r = wfWorld_SetStep(world, &d.step);
		break;
	case WFW_DAMPING:
	case WFW_STIFFNESS:
	case WFW_MASS:
		if (which == WFW_MASS)
			m.mass = value;
		else if (which == WFW_DAMPING)
			*(solver == WF_SOLVER_XPBD ? &m.damping : solver == WF_SOLVER_JACOBI ? &m.retention : &m.springDamping) = value;
		else if (solver == WF_SOLVER_XPBD)
			m.stretchCompliance = value > 0.0f ? 1.0f / value : 0.0f;
		else
			*(solver == WF_SOLVER_JACOBI ? &m.relaxation : &m.stiffness) = value;
		r = wfCloth_SetMaterial(w->cloth, &m);
		break;
	case WFW_WIND:
	case WFW_WIND_FREQUENCY:
		if (which == WFW_WIND_FREQUENCY)
			d.wind.frequency = value;
		else {
			d.wind.strength = value;
			if (value > 0.0f && d.wind.mode == WF_WIND_NONE)
				d.wind.mode = solver == WF_SOLVER_SPRINGS ? WF_WIND_GUST : WF_WIND_WAVE;
			else if (value == 0.0f)
				d.wind.mode = WF_WIND_NONE;
			const wfVec3 dir = d.wind.direction;
			if (dir.x == 0.0f && dir.y == 0.0f && dir.z == 0.0f)
				d.wind.direction = (wfVec3){0.0f, 0.0f, 1.0f};
		}
		r = wfWorld_SetWind(world, &d.wind);
		break;
	case WFW_FLOOR:
		d.floor.enabled = value != 0.0f;
		r = wfWorld_SetFloor(world, &d.floor);
		break;
	case WFW_SPHERE_RADIUS:
		d.sphere.radius = value;
		r = wfWorld_SetSphere(world, &d.sphere);
		break;
	case WFW_SPHERE_MOVING: r = wfWorld_SetSphereMoving(world, value != 0.0f); break;
	default: return -1;
	}
	if (r != WF_OK)
		snprintf(s_text, sizeof s_text, "%s", wfWorld_GetLastError(world));
	return (int)r;
}

// The pins (wfCloth_SetPinMode): a mode, with the indices of a list (WF_PIN_LIST). A mesh has no
// four corners (refused here: the grid's corner indices mean nothing there).
WF_WASM_EXPORT(wfw_set_pins) int wfwSetPins(WfwWorld* w, int mode, const int* indices, int count)
{
	const wfCloth* c = w != NULL ? wfGetCloth(w->cloth) : NULL;
	if (c == NULL)
		return -1;
	if (c->model.mesh && mode == WF_PIN_CORNERS) {
		snprintf(s_text, sizeof s_text, "pinMode: corners is for grids; a mesh cloth takes top-corners, top-row, none or a list");
		return (int)WF_ERROR_INVALID_ARGUMENT;
	}
	const wfResult r = wfCloth_SetPinMode(w->cloth, (wfPinMode)mode, indices, count);
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

// ------------------------------------------------------------------ for the WebGPU solver
// The page's WGSL kernels (web/weft_gpu.mjs) step the cloth on the GPU; the core keeps doing what
// it does for the Vulkan backend: it builds the model (constraints sorted by colour, colour ranges,
// adjacency, triangle incidence), keeps the clock and the cloth's local frame, and computes the
// live values of every frame and substep with the CPU solvers' expressions. The layouts are the
// kernel ABI's (src/gpu/kernel_abi.h), which the WGSL structs mirror field by field.
// Nothing here is grid-specific: any model the core builds (a triangle mesh too) runs.
#include "gpu/kernel_abi.h"

// out: [particles, constraints, colours, triangles, adjacency entries, Jacobi degree weights, max degree,
// solve ranges, tethers (1: the constraint array has a tether record per particle after them)]
WF_WASM_EXPORT(wfw_model_sizes) int wfwModelSizes(WfwWorld* w, int32_t* out)
{
	const wfCloth* c = w != NULL ? wfGetCloth(w->cloth) : NULL;
	if (c == NULL || out == NULL)
		return -1;
	const wfClothModel* m = &c->model;
	const int32_t v[9] = {m->particleCount, m->constraintCount, m->colorCount, m->triangleCount, m->adjStart[m->particleCount],
		m->jacobiDegree ? 1 : 0, m->maxDegree, m->solveRangeCount, m->tethers != NULL ? 1 : 0};
	memcpy(out, v, sizeof v);
	return 0;
}

// The model arrays as the kernels read them: constraints (m x uvec4: a, b, rest bits, family; then
// with tethers one record per particle, b its anchor or ~0, rest its limit: con[tetherBase + i]),
// adjacency starts (n + 1), adjacency pairs (entries x (constraint,
// other)), Jacobi weights (m), triangle incidence starts (n + 1) and lists (3 t, ascending triangle
// index per particle: the order the CPU's normals scatter in), indices (3 t), and the ranges XPBD
// relaxes one after another (solve ranges x (first, end): the colours, or in the tile order each
// colour of each tile colour; wfClothModel.solveRange).
WF_WASM_EXPORT(wfw_model)
int wfwModel(WfwWorld* w, uint32_t* con, uint32_t* adjStart, uint32_t* adj, float* jacobiWeight, uint32_t* triStart, uint32_t* triList,
	uint32_t* indices, uint32_t* solveRange)
{
	const wfCloth* c = w != NULL ? wfGetCloth(w->cloth) : NULL;
	if (c == NULL || !con || !adjStart || !adj || !jacobiWeight || !triStart || !triList || !indices || !solveRange)
		return -1;
	const wfClothModel* m = &c->model;
	memcpy(con, m->constraints, (size_t)m->constraintCount * sizeof(wfConstraint));
	if (m->tethers != NULL)
		memcpy(con + 4 * (size_t)m->constraintCount, m->tethers, (size_t)m->particleCount * sizeof(wfConstraint));
	for (int r = 0; r < 2 * m->solveRangeCount; ++r)
		solveRange[r] = (uint32_t)m->solveRange[r];
	for (int i = 0; i <= m->particleCount; ++i)
		adjStart[i] = (uint32_t)m->adjStart[i];
	for (int e = 0; e < m->adjStart[m->particleCount]; ++e) {
		adj[2 * e] = m->adjConstraint[e];
		adj[2 * e + 1] = m->adjOther[e];
	}
	memcpy(jacobiWeight, m->jacobiWeight, (size_t)m->constraintCount * sizeof(float));
	memcpy(indices, m->indices, (size_t)m->triangleCount * 3 * sizeof(uint32_t));
	// Incident triangles per particle, as the model holds them (ascending triangle indices per row).
	for (int i = 0; i <= m->particleCount; ++i)
		triStart[i] = (uint32_t)m->triStart[i];
	memcpy(triList, m->triList, (size_t)m->triStart[m->particleCount] * sizeof(uint32_t));
	return 0;
}

// The host state in the local frame: positions with the inverse mass in w, velocities (n x vec4
// each), and the local frame's origin (double x 3). After a reset, a grab or a release the page
// uploads what changed.
WF_WASM_EXPORT(wfw_local_state) int wfwLocalState(WfwWorld* w, float* pos, float* vel, double* origin)
{
	wfCloth* c = w != NULL ? wfGetCloth(w->cloth) : NULL;
	if (c == NULL || pos == NULL || vel == NULL || origin == NULL)
		return -1;
	memcpy(pos, c->state.pos, (size_t)c->model.particleCount * sizeof(wfVec4));
	memcpy(vel, c->state.vel, (size_t)c->model.particleCount * sizeof(wfVec4));
	memcpy(origin, c->origin, sizeof c->origin);
	return 0;
}

// The numbers of kernel_abi.h the WebGPU solver (weft_gpu.mjs) names, so that the page writes none
// of them: the bindings (WF_GPU_BIND_*) and push flags (WF_GPU_PUSH_*), each by its name without
// WF_GPU_, and the sizes of the records it reads back with the word index of wfGpuStatus's fields.
// clang-format off
#define WFW_GPU_ABI(X) \
	X(BIND_FRAME) X(BIND_POS) X(BIND_VEL) X(BIND_POS_ALT) X(BIND_VEL_ALT) X(BIND_PREV) X(BIND_LAMBDA) \
	X(BIND_CONSTRAINTS) X(BIND_ADJ_START) X(BIND_ADJ_CONSTRAINT) X(BIND_ADJ_OTHER) X(BIND_JACOBI_WEIGHT) \
	X(BIND_NORMALS) X(BIND_TRI_START) X(BIND_TRI_LIST) X(BIND_INDICES) X(BIND_STATUS) X(BIND_STATS_PARAMS) \
	X(BIND_PARTIALS) X(BIND_REST) X(BIND_TILE_START) X(BIND_TILE_CON) X(BIND_BACKUP) \
	X(PUSH_FIRST_ITERATION) X(PUSH_DAMPED) X(PUSH_SHARED) X(PUSH_SHIFT) X(PUSH_AERO) X(PUSH_TETHER) \
	X(PUSH_TETHER_VEL) X(PUSH_CHECK_SUM) X(GROUP_SIZE) X(SCAN_GROUP) X(SET_CONTACTS) X(CONTACT_BIND_PARAMS) \
	X(CONTACT_BIND_KEY) X(CONTACT_BIND_RANK) X(CONTACT_BIND_CELLS) X(CONTACT_BIND_SORTED) X(CONTACT_BIND_DELTA) \
	X(CONTACT_BIND_X) X(CONTACT_BIND_MOTION) X(CONTACT_BIND_OWNER)
// clang-format on
#define WFW_GPU_ABI_ENTRY(name) {#name, (uint32_t)(WF_GPU_##name)},
static const struct {
	const char* name;
	uint32_t value;
} s_gpuAbi[] = {
	WFW_GPU_ABI(WFW_GPU_ABI_ENTRY){"STATUS_BYTES", (uint32_t)sizeof(wfGpuStatus)},
	{"PARTIAL_BYTES", (uint32_t)sizeof(wfGpuPartial)},
	{"STATUS_FIRST_NON_FINITE", (uint32_t)(offsetof(wfGpuStatus, firstNonFinite) / 4)},
	{"STATUS_FIRST_UNSTABLE", (uint32_t)(offsetof(wfGpuStatus, firstUnstable) / 4)},
	{"STATUS_FIRST_UNSTABLE_IN_CONTACT", (uint32_t)(offsetof(wfGpuStatus, firstUnstableInContact) / 4)},
	{"STATUS_FIRST_TUNNELLED", (uint32_t)(offsetof(wfGpuStatus, firstTunnelled) / 4)},
	{"STATUS_REFERENCE", (uint32_t)(offsetof(wfGpuStatus, reference) / 4)},
	{"STATUS_ENERGY", (uint32_t)(offsetof(wfGpuStatus, energy) / 4)},
};

// Entry k of that list: its name into wfw_text() and its value; -1 past the last.
WF_WASM_EXPORT(wfw_gpu_abi) int wfwGpuAbi(int k)
{
	if (k < 0 || k >= (int)(sizeof s_gpuAbi / sizeof s_gpuAbi[0]))
		return -1;
	snprintf(s_text, sizeof s_text, "%s", s_gpuAbi[k].name);
	return (int)s_gpuAbi[k].value;
}

// The bytes of the frame buffer for the next frame, after the core's frame start with the
// reference particle the GPU left (local xyz): wfGpuClothParams, WF_GPU_FRAME_RECORDS wfGpuSubstep
// records (the first `substeps` written, then the colliders' two per substep after
// WF_MAX_SUBSTEPS), written by gpu/frame_records.c as for the Vulkan backend.
// The frame buffer's size: every record (the kernels' binding covers it).
WF_WASM_EXPORT(wfw_gpu_frame_bytes) int wfwGpuFrameBytes(WfwWorld* w)
{
	if (w == NULL || wfGetCloth(w->cloth) == NULL)
		return -1;
	return (int)(sizeof(wfGpuClothParams) + WF_GPU_FRAME_RECORDS * sizeof(wfGpuSubstep));
}

WF_WASM_EXPORT(wfw_gpu_begin) int wfwGpuBegin(WfwWorld* w, float rx, float ry, float rz, void* out)
{
	wfCloth* c = w != NULL ? wfGetCloth(w->cloth) : NULL;
	if (c == NULL || out == NULL)
		return -1;
	wfWorld* world = w->world;
	c->reference = (wfVec3){rx, ry, rz};
	wfFrameParams p;
	wfWorldBeginFrame(world, &p); // wfWorld_Step's beginning (the world holds this one cloth)
	const int shapes = world->colliderFrameCount - world->worldShapes;
	if (p.substeps * shapes > WF_MAX_COLLIDER_STEPS) {
		snprintf(s_text, sizeof s_text, "%d colliders x %d substeps is more than the %d collider steps a WebGPU frame holds", shapes,
			p.substeps, WF_MAX_COLLIDER_STEPS);
		return -1;
	}
	// The records as the Vulkan backend writes them (gpu/frame_records.c), the whole struct: the
	// WGSL binding covers it.
	wfGpuClothParams cp;
	memset(&cp, 0, sizeof cp);
	wfGpuWriteClothParams(world, c, &p, NULL, &cp);
	// check.comp finds the backup's velocities at this element of its binding: the page's backup
	// holds the positions, then the velocities.
	const uint32_t backupVel = (uint32_t)c->model.particleCount;
	memcpy(&cp.contactBand.w, &backupVel, sizeof backupVel);
	memcpy(out, &cp, sizeof cp);
	wfGpuWriteSubsteps(world, &p, 1.0f / c->material.mass, (wfGpuSubstep*)((char*)out + sizeof cp));
	if (world->def.step.solver == WF_SOLVER_SPRINGS)
		wfCheckSpringsStep(world, c, p.h);
	const size_t records = shapes > 0 ? (size_t)WF_MAX_SUBSTEPS + 2 * (size_t)(p.substeps * shapes) : (size_t)p.substeps;
	return (int)(sizeof cp + records * sizeof(wfGpuSubstep));
}

// ------------------------------------------------------------------ the WebGPU frame's dispatches
// The dispatch list of a frame, as the Vulkan backend records the per-range path of one cloth
// (src/vulkan/vk_record.c: RecordClothStart, RecordClothSubstep, RecordSelfCollision, RecordGrid,
// RecordScan, ClearCounts, RecordClothEnd) in the same order with the same push constants: the
// page (web/weft_gpu.mjs) encodes what is listed here and nothing else. What the page differs in:
// XPBD relaxes each solve range in a dispatch of its own (vk_record.c with tileSubsteps 1: the
// same bits), Jacobi and springs sweep substep by substep with the plain gathers (the same bits as
// the tiles and the wide gathers), and WebGPU orders a pass's dispatches (no barriers).
// One record: kernel (WFW_KERNEL_*, by name wfw_gpu_kernel), first, count, substep, flags
// (wfGpuPush), the bind group variant (1: the pairs POS / POS_ALT and VEL / VEL_ALT swapped, as
// the Vulkan descriptor set 1 of a cloth), workgroups (more than 65 535 go on in y), 0. A copy
// (WFW_KERNEL_COPY) takes POS_ALT into POS, with flags 1 VEL_ALT into VEL too (vk_record.c
// CopyBackToA).
// clang-format off
#define WFW_KERNELS(X) \
	X(COPY, "copy") X(PREDICT, "predict") X(XPBD_SOLVE, "xpbd_solve") X(JACOBI_SWEEP, "jacobi_sweep") \
	X(SPRINGS, "springs") X(FINISH, "finish") X(FINISH_SELF, "finish_self") X(NORMALS, "normals") X(CHECK, "check") \
	X(CONTACT_GRID, "contact_grid") X(CONTACT_GRID_MOVE, "contact_grid_move") X(CONTACT_SCAN, "contact_scan") \
	X(CONTACT_GATHER, "contact_gather") X(TETHER_KEYS, "tether_keys")
// clang-format on
#define WFW_KERNEL_ENUM(id, name) WFW_KERNEL_##id,
enum { WFW_KERNELS(WFW_KERNEL_ENUM) WFW_KERNEL_COUNT };
#define WFW_KERNEL_NAME(id, name) name,
static const char* const s_kernelNames[] = {WFW_KERNELS(WFW_KERNEL_NAME)};
#define WFW_OP_WORDS 8

// Kernel k's name (the page's wgsl/<name>.wgsl; "copy" is a buffer copy) into wfw_text(): 0, or -1
// past the last.
WF_WASM_EXPORT(wfw_gpu_kernel) int wfwGpuKernel(int k)
{
	if (k < 0 || k >= WFW_KERNEL_COUNT)
		return -1;
	snprintf(s_text, sizeof s_text, "%s", s_kernelNames[k]);
	return 0;
}

typedef struct WfwOps {
	const wfWorld* world;
	const wfCloth* cloth;
	int32_t* out; // room for `capacity` records, or NULL (counting)
	int capacity;
	int count;       // records listed (also those past the capacity)
	int set;         // the bind group variant of the next dispatches (vk_record.c UseSet)
	bool countsZero; // the grid's counts are 0 here (vk_record.c Recorder.countsZero)
} WfwOps;

static void OpGroups(WfwOps* o, int kernel, uint32_t first, uint32_t count, uint32_t substep, uint32_t flags, uint32_t groups)
{
	if (groups == 0 && kernel != WFW_KERNEL_COPY)
		return; // as DispatchGroups
	if (o->out != NULL && o->count < o->capacity) {
		int32_t* r = o->out + (size_t)WFW_OP_WORDS * (size_t)o->count;
		const uint32_t v[WFW_OP_WORDS] = {(uint32_t)kernel, first, count, substep, flags, (uint32_t)o->set, groups, 0u};
		memcpy(r, v, sizeof v);
	}
	o->count++;
}

// vk_record.c Dispatch: elements [first, first + count), WF_GPU_GROUP_SIZE to a workgroup.
static void Op(WfwOps* o, int kernel, uint32_t first, uint32_t count, uint32_t substep, uint32_t flags)
{
	OpGroups(o, kernel, first, count, substep, flags, (count + WF_GPU_GROUP_SIZE - 1) / WF_GPU_GROUP_SIZE);
}

// vk_record.c KeysWithTethers.
static bool OpsKeysWithTethers(const wfWorld* world, const wfCloth* c)
{
	return c->model.tethers != NULL && world->def.selfCollision.enabled &&
		(world->def.step.solver == WF_SOLVER_SPRINGS || !wfMeshesBeforeSelf(world));
}

// vk_record.c ClearCounts: the grid's counts (the cloth's hash, wfClothState.hashSize).
static void OpsClearCounts(WfwOps* o)
{
	if (o->countsZero)
		return;
	Op(o, WFW_KERNEL_CONTACT_GRID, 0, (uint32_t)o->cloth->state.hashSize + 1u, 0u, WF_GPU_CONTACT_CLEAR);
	o->countsZero = true;
}

// vk_record.c RecordTethers and RecordTethersKeys.
static void OpsTethersKeys(WfwOps* o, uint32_t n, uint32_t sub, uint32_t flags)
{
	const wfCloth* c = o->cloth;
	if (!OpsKeysWithTethers(o->world, c)) {
		if (c->model.tethers != NULL)
			Op(o, WFW_KERNEL_PREDICT, 0, n, sub, WF_GPU_PUSH_TETHER | flags);
		return;
	}
	OpsClearCounts(o);
	Op(o, WFW_KERNEL_TETHER_KEYS, 0, n, (uint32_t)c->state.hashSize - 1u, WF_GPU_PUSH_TETHER | flags);
}

// vk_record.c RecordScan.
static void OpsScan(WfwOps* o, uint32_t at, uint32_t length, uint32_t counts)
{
	const uint32_t groups = (length + WF_GPU_SCAN_BLOCK - 1) / WF_GPU_SCAN_BLOCK;
	OpGroups(o, WFW_KERNEL_CONTACT_SCAN, at, length, at + length, WF_GPU_CONTACT_SCAN_UP | counts, groups);
	if (groups <= 1)
		return;
	const uint32_t raw = groups <= WF_GPU_SCAN_BLOCK ? WF_GPU_CONTACT_SUMS_RAW : 0u;
	if (raw == 0u)
		OpsScan(o, at + length, groups, 0u);
	OpGroups(o, WFW_KERNEL_CONTACT_SCAN, at, length, at + length, WF_GPU_CONTACT_SCAN_DOWN | raw, groups);
}

// vk_record.c RecordSelfCollision without the continuous passes (wfw_gpu_unsupported refuses
// them) and RecordGrid of the cloth's own particles.
static void OpsSelfCollision(WfwOps* o, bool apply)
{
	const wfWorld* world = o->world;
	const wfSelfCollisionDef* sc = &world->def.selfCollision;
	if (!sc->enabled)
		return;
	const uint32_t n = (uint32_t)o->cloth->model.particleCount, cells = (uint32_t)o->cloth->state.hashSize, mask = cells - 1u;
	const bool springs = world->def.step.solver == WF_SOLVER_SPRINGS;
	const bool friction = sc->friction > 0.0f && !springs;
	const uint32_t moves = !springs && world->def.velocity == WF_VELOCITY_MOVES ? WF_GPU_CONTACT_MOVES : 0u;
	if (!OpsKeysWithTethers(world, o->cloth)) {
		OpsClearCounts(o);
		Op(o, WFW_KERNEL_CONTACT_GRID, 0, n, mask, WF_GPU_CONTACT_KEYS);
	}
	OpsScan(o, 0, cells + 1u, WF_GPU_CONTACT_COUNTS);
	Op(o, WFW_KERNEL_CONTACT_GRID, 0, n, mask, WF_GPU_CONTACT_SCATTER);
	Op(o, WFW_KERNEL_CONTACT_GRID, 0, cells, mask, WF_GPU_CONTACT_SORT);
	Op(o, WFW_KERNEL_CONTACT_GATHER, 0, n, mask, friction ? WF_GPU_CONTACT_FRICTION : 0u);
	if (apply)
		Op(o, WFW_KERNEL_CONTACT_GRID_MOVE, 0, n, mask, WF_GPU_CONTACT_APPLY | moves);
}

// vk_record.c RecordClothSubstep of one cloth without mesh colliders (refused on WebGPU).
static void OpsSubstep(WfwOps* o, int s)
{
	const wfWorld* world = o->world;
	const wfCloth* c = o->cloth;
	const wfStepDef* step = &world->def.step;
	const wfClothModel* m = &c->model;
	const uint32_t n = (uint32_t)m->particleCount, sub = (uint32_t)s;
	const bool aero = world->def.aero.drag != 0.0f || world->def.aero.lift != 0.0f;
	const int finish = world->def.selfCollision.enabled ? WFW_KERNEL_FINISH_SELF : WFW_KERNEL_FINISH;
	o->set = step->solver == WF_SOLVER_SPRINGS ? (s & 1) : 0;
	if (aero)
		Op(o, WFW_KERNEL_PREDICT, 0, n, sub, WF_GPU_PUSH_AERO);
	switch (step->solver) {
	case WF_SOLVER_XPBD:
		Op(o, WFW_KERNEL_PREDICT, 0, n, sub, WF_GPU_PUSH_DAMPED);
		for (int it = 0; it < step->iterations; ++it) {
			for (int r = 0; r < m->solveRangeCount; ++r) {
				const uint32_t first = (uint32_t)m->solveRange[2 * r], end = (uint32_t)m->solveRange[2 * r + 1];
				Op(o, WFW_KERNEL_XPBD_SOLVE, first, end - first, sub, it == 0 ? WF_GPU_PUSH_FIRST_ITERATION : 0u);
			}
		}
		OpsTethersKeys(o, n, sub, 0u);
		OpsSelfCollision(o, false);
		Op(o, finish, 0, n, sub, 0u);
		break;
	case WF_SOLVER_JACOBI:
		Op(o, WFW_KERNEL_PREDICT, 0, n, sub, 0u);
		for (int it = 0; it < step->iterations; ++it) {
			o->set = it & 1;
			Op(o, WFW_KERNEL_JACOBI_SWEEP, 0, n, sub, 0u);
		}
		if (step->iterations & 1)
			OpGroups(o, WFW_KERNEL_COPY, 0, n, 0u, world->def.velocity == WF_VELOCITY_MOVES ? 1u : 0u, 0u);
		o->set = 0;
		OpsTethersKeys(o, n, sub, 0u);
		OpsSelfCollision(o, false);
		Op(o, finish, 0, n, sub, 0u);
		break;
	case WF_SOLVER_SPRINGS:
		Op(o, WFW_KERNEL_SPRINGS, 0, n, sub, 0u);
		o->set = (s + 1) & 1; // the pair just written
		OpsTethersKeys(o, n, sub, WF_GPU_PUSH_TETHER_VEL);
		OpsSelfCollision(o, true);
		break;
	}
}

// The frame's dispatch records (WFW_OP_WORDS words each) into out (room for `capacity`, or NULL):
// returns how many the frame has (all of them, also past the capacity), -1 without a cloth.
WF_WASM_EXPORT(wfw_gpu_ops) int wfwGpuOps(WfwWorld* w, int32_t* out, int capacity)
{
	const wfCloth* c = w != NULL ? wfGetCloth(w->cloth) : NULL;
	if (c == NULL)
		return -1;
	const wfStepDef* step = &w->world->def.step;
	const uint32_t n = (uint32_t)c->model.particleCount;
	WfwOps o = {w->world, c, out, capacity, 0, 0, false};
	Op(&o, WFW_KERNEL_PREDICT, 0, n, 0u, WF_GPU_PUSH_SHIFT); // RecordClothStart
	for (int s = 0; s < step->substeps; ++s)
		OpsSubstep(&o, s);
	// RecordClothEnd: the state back in A, normals and the frame check (one particle an invocation,
	// several for a large cloth), then (WGSL) one workgroup sums the check's partials.
	if (step->solver == WF_SOLVER_SPRINGS && (step->substeps & 1))
		OpGroups(&o, WFW_KERNEL_COPY, 0, n, 0u, 1u, 0u);
	o.set = 0;
	Op(&o, WFW_KERNEL_NORMALS, 0, n, 0u, 0u);
	const uint32_t per = n > WF_GPU_CHECK_SPREAD_ABOVE ? WF_GPU_CHECK_PER_THREAD_LARGE : 1u;
	const uint32_t threads = (n + per - 1) / per, partials = (threads + WF_GPU_GROUP_SIZE - 1) / WF_GPU_GROUP_SIZE;
	Op(&o, WFW_KERNEL_CHECK, 0, threads, (uint32_t)(step->substeps - 1), 0u);
	OpGroups(&o, WFW_KERNEL_CHECK, 0, partials, (uint32_t)(step->substeps - 1), WF_GPU_PUSH_CHECK_SUM, 1u);
	return o.count;
}

// Self-collision's arrays on WebGPU (the Vulkan backend's contact set, kernel_abi.h
// WF_GPU_CONTACT_BIND_*, for this one cloth: vk_cloth.c wfVkContactsReserve): params (may be
// NULL) the constants (wfGpuContactParams, as wfVkWriteContactParams). Returns the words of the
// cells array (the hash's starts, the scan's block sums, then the counts), 0 without
// self-collision, -1 without a cloth. The other arrays hold one element a particle.
WF_WASM_EXPORT(wfw_gpu_contacts) int wfwGpuContacts(WfwWorld* w, wfGpuContactParams* params)
{
	const wfCloth* c = w != NULL ? wfGetCloth(w->cloth) : NULL;
	if (c == NULL)
		return -1;
	const wfSelfCollisionDef* sc = &w->world->selfContact; // resolved: thickness 0 is the cloths' (as vk_backend.c)
	if (!sc->enabled)
		return 0;
	// vk_cloth.c ScanWords of the counts (cells + 1): every level of the scan and a word.
	const uint32_t cells = (uint32_t)c->state.hashSize;
	uint32_t scan = 0;
	for (uint32_t length = cells + 1u;; length = (length + WF_GPU_SCAN_BLOCK - 1) / WF_GPU_SCAN_BLOCK) {
		scan += length;
		if (length <= WF_GPU_SCAN_BLOCK) {
			scan += 1u;
			break;
		}
	}
	if (params != NULL) {
		wfGpuContactParams cp;
		memset(&cp, 0, sizeof cp);
		cp.distance = 2.0f * sc->thickness;
		cp.invCell = 1.0f / cp.distance;
		cp.exclude = sc->exclusion * cp.distance;
		cp.friction = sc->friction;
		cp.counts = scan;
		memcpy(params, &cp, sizeof cp);
	}
	return (int)(scan + cells + 1u);
}

// The model's rest positions (n x vec4, w the air share: wfClothModel.restPositions), the rest
// buffer's contents as the Vulkan backend uploads them (self-collision's exclusion, drag and lift).
WF_WASM_EXPORT(wfw_gpu_rest) int wfwGpuRest(WfwWorld* w, float* out)
{
	const wfCloth* c = w != NULL ? wfGetCloth(w->cloth) : NULL;
	if (c == NULL || out == NULL)
		return -1;
	memcpy(out, c->model.restPositions, (size_t)c->model.particleCount * sizeof(wfVec4));
	return 0;
}

// What the WGSL solver does not have yet (the Vulkan backend's aerodynamics on the springs solver,
// self-collision's continuous passes, mesh colliders; more collider records than a frame holds):
// 0 when it can step this cloth, else -1 with the reason in s_text.
WF_WASM_EXPORT(wfw_gpu_unsupported) int wfwGpuUnsupported(WfwWorld* w)
{
	const wfCloth* c = w != NULL ? wfGetCloth(w->cloth) : NULL;
	if (c == NULL)
		return -1;
	const wfWorldDef d = wfWorld_GetDef(w->world);
	// The continuous self-contact passes run where vk_record.c RecordSelfCollision runs them.
	const wfSelfCollisionDef* sc = &d.selfCollision;
	const bool continuous = d.step.solver != WF_SOLVER_SPRINGS && c->model.triangleCount > 0;
	const bool missing[] = {(int64_t)w->world->colliderCount * d.step.substeps > WF_MAX_COLLIDER_STEPS,
		(d.aero.drag != 0.0f || d.aero.lift != 0.0f) && d.step.solver == WF_SOLVER_SPRINGS, sc->enabled && continuous && sc->pointTriangle,
		sc->enabled && continuous && sc->edgeEdge, w->world->meshColliderCount > 0};
	static const char* const names[] = {"room for more than 2048 collider steps a frame (colliders x substeps)",
		"aerodynamics (drag and lift) on the springs solver", "self-collision's point-triangle pass (selfCollision.pointTriangle)",
		"self-collision's edge-edge pass (selfCollision.edgeEdge)", "triangle-mesh colliders"};
	_Static_assert(WF_MAX_COLLIDER_STEPS == 2048, "the message names the limit");
	char what[256] = "";
	int count = 0;
	for (int i = 0; i < (int)(sizeof missing / sizeof missing[0]); ++i) {
		if (missing[i])
			snprintf(what + strlen(what), sizeof what - strlen(what), "%s%s", count++ > 0 ? ", " : "", names[i]);
	}
	if (count == 0)
		return 0;
	snprintf(s_text, sizeof s_text,
		"the WebGPU (WGSL) solver has no %s yet: this scene needs the CPU fallback (the backend WebGL2, wasm CPU solver; ?backend=webgl2)",
		what);
	return -1;
}

// The energy rule's pre-test on the GPU check's sums (gain, start kinetic energy per unit mass, their
// magnitude, free particles), as the Vulkan backend reads them: 1 when it fails and the exact rule
// must decide (wfw_gpu_energy_exact), else 0.
WF_WASM_EXPORT(wfw_gpu_energy_pretest) int wfwGpuEnergyPretest(WfwWorld* w, float gain, float kinetic, float magnitude, float free)
{
	const wfCloth* c = w != NULL ? wfGetCloth(w->cloth) : NULL;
	if (c == NULL)
		return -1;
	wfFrameParams p;
	wfFrameParamsInit(w->world, &p);
	const wfMotionSums s = wfMotionSumsOfGpu(gain, kinetic, magnitude, free);
	return wfEnergyPreTestFails(w->world, c, &p, &s) ? 1 : 0;
}

// The exact energy rule (wfCheckEnergy) on the GPU's frame-end state and frame-start backup (local
// vec4 per particle): 1 when the frame is unstable (the core records its gain and bound for the
// log), else 0. The host state is not changed.
WF_WASM_EXPORT(wfw_gpu_energy_exact) int wfwGpuEnergyExact(WfwWorld* w, wfVec4* pos, wfVec4* vel, const wfVec4* pos0, const wfVec4* vel0)
{
	wfCloth* c = w != NULL ? wfGetCloth(w->cloth) : NULL;
	if (c == NULL || pos == NULL || vel == NULL || pos0 == NULL || vel0 == NULL)
		return -1;
	wfFrameParams p;
	wfFrameParamsInit(w->world, &p);
	wfVec4 *hostPos = c->state.pos, *hostVel = c->state.vel;
	c->state.pos = pos;
	c->state.vel = vel;
	wfCheckEnergy(w->world, c, &p, pos0, vel0);
	c->state.pos = hostPos;
	c->state.vel = hostVel;
	return c->verdictEnergy ? 1 : 0;
}

// After the GPU frame, with its frame check's verdict (wfFrameVerdict, the first bad particle,
// whether a too-fast particle touched a collider, the first that tunnelled through the sphere or
// -1; the page restored a bad frame's start): the
// core's frame end (a good frame moves the origin by the shift, a bad one is counted, logged and
// recovered as the def says) and the clock, as wfWorld_Step does after a backend's step. Returns 1
// when the core reset the cloth (the page uploads the host state), else 0.
WF_WASM_EXPORT(wfw_gpu_end) int wfwGpuEnd(WfwWorld* w, int verdict, int particle, int contact, int tunnelled)
{
	wfCloth* c = w != NULL ? wfGetCloth(w->cloth) : NULL;
	if (c == NULL || verdict < WF_FRAME_GOOD || verdict > WF_FRAME_NON_FINITE)
		return -1;
	wfWorld* world = w->world;
	wfFrameParams p;
	wfFrameParamsInit(world, &p);
	c->verdict = (wfFrameVerdict)verdict;
	c->verdictParticle = particle;
	c->verdictContact = contact != 0;
	c->tunnelParticle = tunnelled >= 0 && tunnelled < c->model.particleCount ? tunnelled : -1;
	const bool reset = verdict != WF_FRAME_GOOD && world->def.badFrame == WF_BAD_FRAME_RESET;
	wfWorldEndFrame(world, &p);
	return reset ? 1 : 0;
}

// Tearing on WebGPU, between frames as wfWorld_Step tears: the GPU's frame-end state (local vec4 per
// particle) becomes the host's, and after a good frame the core tears from it (wfClothTear). Returns
// 1 when the cloth's topology changed (the page builds the GPU solver again from the host state),
// 0 when not or when the cloth does not tear (then nothing is read), -1 on an error.
WF_WASM_EXPORT(wfw_gpu_tears) int wfwGpuTears(WfwWorld* w)
{
	const wfCloth* c = w != NULL ? wfGetCloth(w->cloth) : NULL;
	return c != NULL && c->material.tearStrain > 0.0f ? 1 : 0;
}

WF_WASM_EXPORT(wfw_gpu_tear) int wfwGpuTear(WfwWorld* w, const wfVec4* pos, const wfVec4* vel)
{
	wfCloth* c = w != NULL ? wfGetCloth(w->cloth) : NULL;
	if (c == NULL || pos == NULL || vel == NULL)
		return -1;
	if (!(c->material.tearStrain > 0.0f) || c->verdict != WF_FRAME_GOOD)
		return 0;
	const size_t bytes = (size_t)c->model.particleCount * sizeof(wfVec4);
	memcpy(c->state.pos, pos, bytes);
	memcpy(c->state.vel, vel, bytes);
	const int before = c->topology;
	if (wfWorldTear(w->world) != WF_OK)
		return -1;
	return c->topology != before ? 1 : 0;
}

// out: [non-finite, unstable, unstable in contact] frames discarded, frames that tunnelled (double x 4).
WF_WASM_EXPORT(wfw_warnings) int wfwWarnings(WfwWorld* w, double* out)
{
	if (w == NULL || out == NULL)
		return -1;
	wfWarnings warn = wfWorld_GetWarnings(w->world);
	out[0] = (double)warn.nonFinite;
	out[1] = (double)warn.unstable;
	out[2] = (double)warn.unstableInContact;
	out[3] = (double)warn.tunnelled;
	return 0;
}

// The local frame's origin (world, double x 3): the page adds it to the local positions it draws.
WF_WASM_EXPORT(wfw_origin) int wfwOrigin(WfwWorld* w, double* out)
{
	const wfCloth* c = w != NULL ? wfGetCloth(w->cloth) : NULL;
	if (c == NULL || out == NULL)
		return -1;
	memcpy(out, c->origin, sizeof c->origin);
	return 0;
}
