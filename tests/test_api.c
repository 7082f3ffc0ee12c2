// API contract: defs are validated field by field, bad ids and sizes are refused, worlds are
// independent, live setters take effect without a rebuild.
#include "test.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static int Contains(const char* s, const char* part)
{
	int ok = strstr(s, part) != NULL;
	fprintf(stderr, "  %s message \"%s\" names \"%s\"\n", ok ? "ok" : "FAILED", s, part);
	return ok;
}

WF_TEST(world_def_rejected_with_field_name)
{
	char err[256];
	wfWorldDef d = wfDefaultWorldDef();
	d.step.substeps = 0;
	ENSURE(wfTestCreateWorld(&d, err, sizeof err) == NULL);
	ENSURE(Contains(err, "step.substeps") && Contains(err, "[1, 4096]"));
	d = wfDefaultWorldDef();
	d.sphere.radius = -1.0f;
	ENSURE(wfTestCreateWorld(&d, err, sizeof err) == NULL);
	ENSURE(Contains(err, "sphere.radius"));
	d = wfDefaultWorldDef();
	d.gravity.y = NAN;
	ENSURE(wfTestCreateWorld(&d, err, sizeof err) == NULL);
	ENSURE(Contains(err, "gravity"));
	d = wfDefaultWorldDef();
	d.step.timeStep = 0.0f;
	ENSURE(wfTestCreateWorld(&d, err, sizeof err) == NULL);
	ENSURE(Contains(err, "step.timeStep"));
	wfWorldDef raw;
	memset(&raw, 0, sizeof raw);
	ENSURE(wfTestCreateWorld(&raw, err, sizeof err) == NULL);
	ENSURE(Contains(err, "wfDefaultWorldDef"));
	ENSURE(wfTestCreateWorld(NULL, err, sizeof err) == NULL);
	ENSURE(wfTestCreateWorld(NULL, NULL, 0) == NULL);
	return 0;
}

// Each case spoils one field of a default cloth def; creation must fail and name that field.
static const char* SpoilCloth(int k, wfClothDef* d)
{
	static const int badPins[2] = {0, 9999};
	switch (k) {
	case 0: d->cols = 0; return "cols";
	case 1: d->rows = 9000; return "rows";
	case 2: d->width = -1.0f; return "width";
	case 3: d->height = 0.0f; return "height";
	case 4: d->orientation = (wfOrientation)7; return "orientation";
	case 5: d->origin.x = INFINITY; return "origin";
	case 6: d->structural = d->shear = d->bending = false; return "structural";
	case 7: d->material.mass = 0.0f; return "material.mass";
	case 8: d->material.relaxation = 1.5f; return "material.relaxation";
	case 9: d->material.retention = -0.1f; return "material.retention";
	case 10: d->material.stretchCompliance = -1.0f; return "material.stretchCompliance";
	case 11: d->material.stiffness = NAN; return "material.stiffness";
	case 12:
		d->pinMode = WF_PIN_LIST;
		d->pinIndices = badPins;
		d->pinCount = 2;
		return "pinIndices[1]";
	case 13: d->pinMode = (wfPinMode)42; return "pinMode";
	case 14:
		d->cols = 1;
		d->rows = 1;
		return "cols x rows";
	}
	return NULL;
}

WF_TEST(cloth_def_rejected_with_field_name)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = WF_BACKEND_CPU;
	wfWorld* w = wfTestCreateWorld(&wd, NULL, 0);
	ENSURE(w != NULL);
	int k = 0;
	for (;; ++k) {
		wfClothDef d = wfDefaultClothDef();
		const char* field = SpoilCloth(k, &d);
		if (field == NULL)
			break;
		wfClothId id = wfCreateCloth(w, &d);
		ENSURE(wfClothId_IsNull(id));
		ENSURE(Contains(wfWorld_GetLastError(w), field));
	}
	ENSURE(k == 15);
	ENSURE(wfClothId_IsNull(wfCreateCloth(w, NULL)));
	wfDestroyWorld(w);
	return 0;
}

// Stale ids, wrong counts and bad indices come back as errors, never crashes.
WF_TEST(bad_ids_and_sizes_refused)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = WF_BACKEND_CPU;
	wfWorld* w = wfTestCreateWorld(&wd, NULL, 0);
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = 4;
	wfClothId id = wfCreateCloth(w, &cd);
	ENSURE(!wfClothId_IsNull(id));
	wfVec3 p[16];
	ENSURE(wfCloth_ReadPositions(id, p, 15) == WF_ERROR_INVALID_ARGUMENT);
	ENSURE(Contains(wfWorld_GetLastError(w), "positions"));
	ENSURE(wfCloth_Grab(id, -1, p[0]) == WF_ERROR_INVALID_ARGUMENT);
	ENSURE(wfCloth_MoveGrab(id, p[0]) == WF_ERROR_INVALID_ARGUMENT);
	ENSURE(wfCloth_SetPinMode(id, WF_PIN_LIST, NULL, 3) == WF_ERROR_INVALID_ARGUMENT);
	wfDestroyCloth(id);
	ENSURE(wfCloth_ReadPositions(id, p, 16) == WF_ERROR_INVALID_ARGUMENT);
	ENSURE(Contains(wfWorld_GetLastError(w), "stale"));
	// A new cloth in the same slot gets a new generation: the old id stays stale.
	wfClothId id2 = wfCreateCloth(w, &cd);
	ENSURE(id2.index == id.index && id2.generation != id.generation);
	ENSURE(wfCloth_ReadPositions(id, p, 16) == WF_ERROR_INVALID_ARGUMENT);
	ENSURE(wfCloth_ReadPositions(id2, p, 16) == WF_OK);
	wfClothId none = {NULL, -1, 0};
	ENSURE(wfCloth_ReadPositions(none, p, 16) == WF_ERROR_INVALID_ARGUMENT);
	wfDestroyWorld(w);
	// A cloth of a later world never repeats an earlier world's generation (a world made after
	// another was destroyed may get its address: ids and the renderer's caches stay apart).
	wfWorld* later = wfTestMakeWorld(wfDefaultWorldDef());
	ENSURE(later != NULL);
	wfClothId id3 = wfCreateCloth(later, &cd);
	ENSURE(!wfClothId_IsNull(id3) && id3.generation != id.generation && id3.generation != id2.generation);
	wfDestroyWorld(later);
	return 0;
}

// Two worlds in one process do not influence each other (no global state).
WF_TEST(worlds_are_independent)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = WF_BACKEND_CPU;
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = 10;
	wfWorld* a = wfTestCreateWorld(&wd, NULL, 0);
	wfClothId ca = wfCreateCloth(a, &cd);
	for (int f = 0; f < 10; ++f)
		wfWorld_Step(a);
	wfVec3 ref[100], p[100];
	wfCloth_ReadPositions(ca, ref, 100);
	wfCloth_Reset(ca);
	wd.gravity.y = -30.0f;
	wfWorld* b = wfTestCreateWorld(&wd, NULL, 0);
	wfClothId cb = wfCreateCloth(b, &cd);
	for (int f = 0; f < 10; ++f) {
		wfWorld_Step(a);
		wfWorld_Step(b);
	}
	wfCloth_ReadPositions(ca, p, 100);
	ENSURE(memcmp(p, ref, sizeof p) == 0);
	wfCloth_ReadPositions(cb, p, 100);
	ENSURE(p[50].y < ref[50].y - 0.1f);
	wfDestroyWorld(a);
	wfDestroyWorld(b);
	return 0;
}

// Live parameters change the motion without rebuilding: more gravity, more sag.
WF_TEST(live_setters_take_effect)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = wfTestBackend();
	wfWorld* w = wfTestCreateWorld(&wd, NULL, 0);
	ENSURE(w != NULL);
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = 10;
	cd.pinMode = WF_PIN_TOP_ROW;
	cd.orientation = WF_ORIENT_VERTICAL;
	cd.material.stretchCompliance = 1e-3f;
	wfClothId id = wfCreateCloth(w, &cd);
	for (int f = 0; f < 120; ++f)
		wfWorld_Step(w);
	wfClothStats s1, s2;
	wfCloth_GetStats(id, &s1);
	ENSURE(wfWorld_SetGravity(w, (wfVec3){0.0f, -30.0f, 0.0f}) == WF_OK);
	for (int f = 0; f < 120; ++f)
		wfWorld_Step(w);
	wfCloth_GetStats(id, &s2);
	fprintf(stderr, "  max strain at g = 9.8: %.5f, at g = 30: %.5f\n", s1.maxStrain, s2.maxStrain);
	ENSURE(s2.maxStrain > 2.0f * s1.maxStrain);
	wfMaterial m = wfCloth_GetMaterial(id);
	m.stretchCompliance = 1e-5f;
	ENSURE(wfCloth_SetMaterial(id, &m) == WF_OK);
	for (int f = 0; f < 120; ++f)
		wfWorld_Step(w);
	wfClothStats s3;
	wfCloth_GetStats(id, &s3);
	ENSURE(s3.maxStrain < 0.5f * s2.maxStrain);
	m.mass = -1.0f;
	ENSURE(wfCloth_SetMaterial(id, &m) == WF_ERROR_INVALID_DEF);
	ENSURE(Contains(wfWorld_GetLastError(w), "material.mass"));
	wfStepDef step = wfWorld_GetDef(w).step;
	step.solver = WF_SOLVER_JACOBI;
	step.iterations = 5; // odd sweep counts are valid (the last sweep is copied back)
	ENSURE(wfWorld_SetStep(w, &step) == WF_OK);
	ENSURE(wfWorld_Step(w) == WF_OK);
	m = wfCloth_GetMaterial(id);
	m.relaxation = 1.0f; // C -> -C every sweep: outside [0, 1)
	ENSURE(wfCloth_SetMaterial(id, &m) == WF_ERROR_INVALID_DEF);
	ENSURE(Contains(wfWorld_GetLastError(w), "material.relaxation") && Contains(wfWorld_GetLastError(w), "[0, 1)"));
	wfDestroyWorld(w);
	return 0;
}

WF_TEST(presets_and_names)
{
	ENSURE(wfPresetCount() == 3);
	const char* names[3] = {"xpbd", "compute-cloth", "spring-mesh"};
	for (int i = 0; i < 3; ++i) {
		wfWorldDef wd;
		wfClothDef cd;
		ENSURE(strcmp(wfPresetName(i), names[i]) == 0);
		ENSURE(wfPresetGet(names[i], &wd, &cd));
	}
	wfWorldDef wd;
	wfClothDef cd;
	ENSURE(!wfPresetGet("nope", &wd, &cd));
	// compute-cloth carries the second document's numbers.
	ENSURE(wfPresetGet("compute-cloth", &wd, &cd));
	ENSURE(cd.cols == 60 && cd.rows == 60 && wd.step.substeps == 64);
	ENSURE(fabsf(wd.step.timeStep / 64.0f - 0.00077f) < 1e-9f);
	ENSURE(cd.material.mass == 0.1f && cd.material.stiffness == 2000.0f && cd.material.springDamping == 0.25f);
	ENSURE(wfPresetGet("spring-mesh", &wd, &cd));
	ENSURE(cd.cols == 56 && wd.step.substeps == 8 && wd.step.iterations == 2 && cd.pinMode == WF_PIN_TOP_CORNERS);
	wfSolverType s;
	ENSURE(wfSolverFromName("jacobi", &s) && s == WF_SOLVER_JACOBI && !wfSolverFromName("Jacobi", &s));
	wfPinMode pm;
	ENSURE(wfPinModeFromName("top-row", &pm) && pm == WF_PIN_TOP_ROW);
	return 0;
}

// ---------------------------------------------------------------- stage timing (CPU)

static bool StagesUnknown(const wfWorld* w)
{
	wfStepProfile p = wfWorld_GetStepProfile(w);
	for (int k = 0; k < WF_STAGE_COUNT; ++k) {
		if (p.stageMs[k] != -1.0)
			return false;
	}
	return true;
}

// Two CPU worlds from one def, stage timing on in the first only: every frame the stages are
// measured (each >= 0, SOLVE > 0, no FUSED on the CPU, together no longer than the wall-clock
// time of wfWorld_Step), the other world reports them unknown, and both end bit-identical.
static int CpuStageTiming(wfWorldDef wd, wfClothDef cd, int threads, int frames)
{
	wd.backend = WF_BACKEND_CPU;
	wd.threads = threads;
	wfWorld* on = wfTestCreateWorld(&wd, NULL, 0);
	wfWorld* off = wfTestCreateWorld(&wd, NULL, 0);
	ENSURE(on != NULL && off != NULL);
	wfClothId a = wfCreateCloth(on, &cd), b = wfCreateCloth(off, &cd);
	ENSURE(!wfClothId_IsNull(a) && !wfClothId_IsNull(b));
	ENSURE(!wfWorld_GetStageTiming(on) && StagesUnknown(on));
	ENSURE(wfWorld_SetStageTiming(on, true) == WF_OK && wfWorld_GetStageTiming(on));
	ENSURE(StagesUnknown(on)); // nothing measured yet
	double solveMs = 0.0, sumMs = 0.0, wallMs = 0.0;
	for (int f = 0; f < frames; ++f) {
		double t0 = 1e3 * wfTestSeconds();
		ENSURE(wfWorld_Step(on) == WF_OK);
		double wall = 1e3 * wfTestSeconds() - t0;
		ENSURE(wfWorld_Step(off) == WF_OK);
		wfStepProfile p = wfWorld_GetStepProfile(on);
		double sum = 0.0;
		for (int k = 0; k < WF_STAGE_COUNT; ++k) {
			ENSURE(p.stageMs[k] >= 0.0);
			sum += p.stageMs[k];
		}
		ENSURE(p.stageMs[WF_STAGE_SOLVE] > 0.0 && p.stageMs[WF_STAGE_FUSED] == 0.0);
		// Two clocks (OpenMP's monotonic one and the test's): 1% and 10 us of slack.
		ENSURE_LE(sum, 1.01 * wall + 0.01);
		ENSURE(StagesUnknown(off));
		solveMs += p.stageMs[WF_STAGE_SOLVE];
		sumMs += sum;
		wallMs += wall;
	}
	wfStepProfile p = wfWorld_GetStepProfile(on);
	fprintf(stderr, "  %s %d x %d, %d substeps x %d iterations, %d thread(s): last frame", wfSolverName(wd.step.solver), cd.cols, cd.rows,
		wd.step.substeps, wd.step.iterations, wfWorld_GetThreadCount(on));
	for (int k = 0; k < WF_STAGE_COUNT; ++k)
		fprintf(stderr, " %s %.3f", wfStageName((wfStage)k), p.stageMs[k]);
	fprintf(stderr, " ms; %d frames: stages %.3f of %.3f ms wall, solve %.3f ms\n", frames, sumMs, wallMs, solveMs);
	// Timing never changes the physics.
	const int n = cd.cols * cd.rows;
	wfVec3* pa = (wfVec3*)malloc((size_t)n * 2 * sizeof(wfVec3));
	wfVec3* pb = (wfVec3*)malloc((size_t)n * 2 * sizeof(wfVec3));
	ENSURE(pa != NULL && pb != NULL);
	ENSURE(wfCloth_ReadPositions(a, pa, n) == WF_OK && wfCloth_ReadVelocities(a, pa + n, n) == WF_OK);
	ENSURE(wfCloth_ReadPositions(b, pb, n) == WF_OK && wfCloth_ReadVelocities(b, pb + n, n) == WF_OK);
	ENSURE(memcmp(pa, pb, (size_t)n * 2 * sizeof(wfVec3)) == 0);
	free(pa);
	free(pb);
	// Off again: unknown at once and after a step.
	ENSURE(wfWorld_SetStageTiming(on, false) == WF_OK && StagesUnknown(on));
	ENSURE(wfWorld_Step(on) == WF_OK && StagesUnknown(on));
	wfDestroyWorld(on);
	wfDestroyWorld(off);
	return 0;
}

// XPBD, 60 x 60, 10 substeps (the default world def), draped over a sphere and the floor.
static void StageTimingXpbd(int grid, wfWorldDef* wd, wfClothDef* cd)
{
	*wd = wfDefaultWorldDef();
	wd->sphere.enabled = true;
	wd->sphere.center = (wfVec3){0.0f, 0.0f, 0.0f};
	wd->floor.enabled = true;
	wd->floor.height = -1.5f;
	*cd = wfDefaultClothDef();
	cd->cols = cd->rows = grid;
	cd->width = cd->height = 3.0f;
	cd->origin = (wfVec3){0.0f, 1.05f, 0.0f};
}

WF_TEST(stage_timing_cpu_xpbd)
{
	wfWorldDef wd;
	wfClothDef cd;
	StageTimingXpbd(60, &wd, &cd);
	ENSURE(wd.step.solver == WF_SOLVER_XPBD && wd.step.substeps == 10);
	return CpuStageTiming(wd, cd, 1, 20);
}

// Over WF_CPU_PARALLEL_MIN particles with two threads: the master thread reads the clock inside
// the substep's parallel region.
WF_TEST(stage_timing_cpu_xpbd_threads)
{
	wfWorldDef wd;
	wfClothDef cd;
	StageTimingXpbd(100, &wd, &cd);
	return CpuStageTiming(wd, cd, 2, 10);
}

WF_TEST(stage_timing_cpu_jacobi_springs)
{
	wfWorldDef wd;
	wfClothDef cd;
	ENSURE(wfPresetGet("spring-mesh", &wd, &cd) && wd.step.solver == WF_SOLVER_JACOBI);
	if (CpuStageTiming(wd, cd, 1, 10) != 0)
		return 1;
	ENSURE(wfPresetGet("compute-cloth", &wd, &cd) && wd.step.solver == WF_SOLVER_SPRINGS);
	return CpuStageTiming(wd, cd, 1, 10);
}

WF_TEST(stage_names)
{
	const char* names[WF_STAGE_COUNT] = {"prepare", "predict", "solve", "finish", "normals", "fused"};
	for (int k = 0; k < WF_STAGE_COUNT; ++k)
		ENSURE(strcmp(wfStageName((wfStage)k), names[k]) == 0);
	ENSURE(strcmp(wfStageName(WF_STAGE_COUNT), "?") == 0 && strcmp(wfStageName((wfStage)-1), "?") == 0);
	return 0;
}

// One rule for device names everywhere (backend, renderer, viewer): a case-insensitive substring.
WF_TEST(device_name_match_ignores_case)
{
	ENSURE(wfDeviceNameMatches("llvmpipe (LLVM 15.0.6, 256 bits)", "LLVMpipe"));
	ENSURE(wfDeviceNameMatches("NVIDIA H200", "h200"));
	ENSURE(wfDeviceNameMatches("NVIDIA H200", ""));
	ENSURE(!wfDeviceNameMatches("NVIDIA H200", "h100"));
	ENSURE(!wfDeviceNameMatches("H2", "H200"));
	ENSURE(!wfDeviceNameMatches(NULL, "x") && !wfDeviceNameMatches("x", NULL));
	return 0;
}

// ------------------------------------------------------------------ the def field tables

static bool IsNumber(const wfFieldInfo* f) { return f->type == WF_FIELD_INT || f->type == WF_FIELD_FLOAT || f->type == WF_FIELD_VEC3; }

static bool InFieldRange(const wfFieldInfo* f, double v)
{
	if (v == 0.0 && (f->flags & WF_FIELD_OR_ZERO) != 0)
		return true;
	bool above = (f->flags & WF_FIELD_OPEN_MIN) != 0 ? v > f->min : v >= f->min;
	bool below = (f->flags & WF_FIELD_OPEN_MAX) != 0 ? v < f->max : v <= f->max;
	return above && below;
}

// Each def's default value read back through the table equals its entry.
static int DefaultsMatch(wfDefType def, const void* base)
{
	int count = 0;
	const wfFieldInfo* fields = wfDefFields(def, &count);
	ENSURE(fields != NULL && count > 0);
	for (int i = 0; i < count; ++i) {
		const wfFieldInfo* f = &fields[i];
		const char* at = (const char*)base + f->offset;
		float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
		int n = 0;
		bool b = false;
		switch (f->type) {
		case WF_FIELD_BOOL:
			memcpy(&b, at, sizeof b);
			ENSURE(b == (f->defaultValue[0] != 0.0));
			break;
		case WF_FIELD_INT:
		case WF_FIELD_ENUM:
			memcpy(&n, at, sizeof n);
			ENSURE(n == (f->defaultValue[0] >= 2147483647.0f ? 2147483647 : (int)f->defaultValue[0]));
			break;
		case WF_FIELD_FLOAT:
		case WF_FIELD_VEC3:
		case WF_FIELD_QUAT:
			memcpy(v, at, (f->type == WF_FIELD_FLOAT ? 1 : f->type == WF_FIELD_VEC3 ? 3 : 4) * sizeof(float));
			for (int k = 0; k < (f->type == WF_FIELD_FLOAT ? 1 : f->type == WF_FIELD_VEC3 ? 3 : 4); ++k)
				ENSURE(v[k] == (float)f->defaultValue[k]);
			break;
		case WF_FIELD_STRUCT:
			if (DefaultsMatch(f->nested, at) != 0)
				return 1;
			break;
		default: break;
		}
	}
	return 0;
}

WF_TEST(def_fields_tables_consistent)
{
	int total = 0;
	for (int d = 0; d < WF_DEF_COUNT; ++d) {
		int count = 0;
		const wfFieldInfo* fields = wfDefFields((wfDefType)d, &count);
		ENSURE(fields != NULL && count > 0);
		total += count;
		for (int i = 0; i < count; ++i) {
			const wfFieldInfo* f = &fields[i];
			ENSURE(f->name != NULL && f->name[0] != 0);
			ENSURE(wfFindDefField((wfDefType)d, f->name) == f);
			ENSURE((unsigned)f->type < (unsigned)WF_FIELD_TYPE_COUNT);
			if (IsNumber(f)) {
				ENSURE(f->min <= f->max);
				// A slider's range lies inside what creation accepts.
				if (f->uiMin != 0.0 || f->uiMax != 0.0)
					ENSURE(f->uiMin < f->uiMax && InFieldRange(f, f->uiMin) && InFieldRange(f, f->uiMax));
				for (int k = 0; k < (f->type == WF_FIELD_VEC3 ? 3 : 1); ++k)
					ENSURE(InFieldRange(f, f->defaultValue[k]) || (f->flags & WF_FIELD_CUSTOM) != 0);
			}
			if (f->type == WF_FIELD_ENUM) {
				ENSURE(f->enumCount > 1 && f->defaultValue[0] >= 0.0 && f->defaultValue[0] < f->enumCount);
				for (int k = 0; k < f->enumCount; ++k)
					ENSURE(f->enumNames[k] != NULL);
			}
			if (f->type == WF_FIELD_STRUCT)
				ENSURE((unsigned)f->nested < (unsigned)WF_DEF_COUNT);
		}
	}
	fprintf(stderr, "  %d defs, %d fields\n", (int)WF_DEF_COUNT, total);
	int none = 5;
	ENSURE(wfDefFields(WF_DEF_COUNT, &none) == NULL && none == 0);
	ENSURE(wfFindDefField(WF_DEF_WORLD, "step.substeps") == wfFindDefField(WF_DEF_STEP, "substeps"));
	ENSURE(wfFindDefField(WF_DEF_CLOTH, "material.mass") == wfFindDefField(WF_DEF_MATERIAL, "mass"));
	ENSURE(wfFindDefField(WF_DEF_WORLD, "step.nothing") == NULL && wfFindDefField(WF_DEF_WORLD, "gravity.x") == NULL);
	ENSURE(wfFindDefField(WF_DEF_WORLD, "step") != NULL && wfFindDefField(WF_DEF_WORLD, NULL) == NULL);
	ENSURE(wfFindDefField(WF_DEF_STEP, "substeps")->min == 1 && wfFindDefField(WF_DEF_STEP, "substeps")->max == 4096);
	// The defaults are the tables'.
	wfWorldDef wd = wfDefaultWorldDef();
	wfClothDef cd = wfDefaultClothDef();
	wfMaterial m = wfDefaultMaterial();
	wfColliderDef k = wfDefaultColliderDef();
	ENSURE(DefaultsMatch(WF_DEF_WORLD, &wd) == 0 && DefaultsMatch(WF_DEF_CLOTH, &cd) == 0);
	ENSURE(DefaultsMatch(WF_DEF_MATERIAL, &m) == 0 && DefaultsMatch(WF_DEF_COLLIDER, &k) == 0);
	return 0;
}

// A value just past a field's bound (the bound itself where it is open), on either side.
static double Outside(const wfFieldInfo* f, bool above)
{
	if (f->type == WF_FIELD_INT)
		return above ? f->max + 1.0 : f->min - 1.0;
	float bound = above ? f->max : f->min;
	bool open = (f->flags & (above ? WF_FIELD_OPEN_MAX : WF_FIELD_OPEN_MIN)) != 0;
	return open ? bound : nextafterf(bound, above ? INFINITY : -INFINITY);
}

static void Store(const wfFieldInfo* f, void* base, double v, int component)
{
	char* at = (char*)base + f->offset;
	int n = (int)v;
	float x = (float)v;
	if (f->type == WF_FIELD_INT)
		memcpy(at, &n, sizeof n);
	else
		memcpy(at + component * sizeof(float), &x, sizeof x);
}

typedef bool Rejects(const void* def, char* error, int errorSize);

static bool WorldRejects(const void* def, char* error, int errorSize)
{
	wfWorld* w = wfCreateWorld((const wfWorldDef*)def, error, errorSize);
	wfDestroyWorld(w);
	return w == NULL;
}

static wfWorld* g_fieldWorld;

static bool ClothRejects(const void* def, char* error, int errorSize)
{
	wfClothId id = wfCreateCloth(g_fieldWorld, (const wfClothDef*)def);
	snprintf(error, (size_t)errorSize, "%s", wfWorld_GetLastError(g_fieldWorld));
	wfDestroyCloth(id);
	return wfClothId_IsNull(id);
}

static bool ColliderRejects(const void* def, char* error, int errorSize)
{
	wfColliderId id = wfCreateCollider(g_fieldWorld, (const wfColliderDef*)def);
	snprintf(error, (size_t)errorSize, "%s", wfWorld_GetLastError(g_fieldWorld));
	wfDestroyCollider(id);
	return wfColliderId_IsNull(id);
}

// Every numeric field the table checks, set past each bound in an otherwise default def: creation
// refuses it and the message starts with the field's path. Returns the number checked, -1 on failure.
static int RangesRefused(wfDefType def, const void* defaults, size_t size, size_t at, const char* prefix, Rejects* rejects)
{
	int count = 0, checked = 0;
	const wfFieldInfo* fields = wfDefFields(def, &count);
	for (int i = 0; i < count; ++i) {
		const wfFieldInfo* f = &fields[i];
		char path[128];
		snprintf(path, sizeof path, "%s%s", prefix, f->name);
		if (f->type == WF_FIELD_STRUCT) {
			char nested[140];
			snprintf(nested, sizeof nested, "%s.", path);
			int n = RangesRefused(f->nested, defaults, size, at + f->offset, nested, rejects);
			if (n < 0)
				return -1;
			checked += n;
			continue;
		}
		if (!IsNumber(f) || (f->flags & WF_FIELD_CUSTOM) != 0)
			continue;
		for (int side = 0; side < 2; ++side) {
			if (side == 1 && f->type == WF_FIELD_INT && f->max >= 2147483647.0f)
				continue; // no int lies past a 31-bit set's bound
			unsigned char buf[1024];
			char error[512], expected[160];
			if (size > sizeof buf)
				return -1;
			memcpy(buf, defaults, size);
			// A collider's field is checked for the types of onlyFor (a cloth's: the grid, the default).
			if (f->onlyFor != 0 && def == WF_DEF_COLLIDER) {
				int type = 0;
				while ((f->onlyFor & (1u << type)) == 0)
					++type;
				memcpy(buf + offsetof(wfColliderDef, type), &type, sizeof type);
			}
			int component = f->type == WF_FIELD_VEC3 ? 1 : 0;
			Store(f, buf + at, Outside(f, side == 1), component);
			if ((f->flags & WF_FIELD_EACH) != 0)
				snprintf(expected, sizeof expected, "%s.y: ", path);
			else
				snprintf(expected, sizeof expected, "%s: ", path);
			error[0] = 0;
			bool refused = rejects(buf, error, (int)sizeof error);
			if (!refused || strncmp(error, expected, strlen(expected)) != 0) {
				fprintf(stderr, "  FAILED %s past its %s bound: %s \"%s\"\n", path, side ? "upper" : "lower",
					refused ? "refused with" : "accepted", error);
				return -1;
			}
			++checked;
		}
	}
	return checked;
}

WF_TEST(def_fields_ranges_drive_validation)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = WF_BACKEND_CPU;
	int world = RangesRefused(WF_DEF_WORLD, &wd, sizeof wd, 0, "", WorldRejects);
	ENSURE(world > 0);
	char err[256];
	g_fieldWorld = wfCreateWorld(&wd, err, sizeof err);
	ENSURE(g_fieldWorld != NULL);
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = 4;
	int cloth = RangesRefused(WF_DEF_CLOTH, &cd, sizeof cd, 0, "", ClothRejects);
	wfColliderDef kd = wfDefaultColliderDef();
	int collider = RangesRefused(WF_DEF_COLLIDER, &kd, sizeof kd, 0, "collider.", ColliderRejects);
	wfDestroyWorld(g_fieldWorld);
	fprintf(stderr, "  bounds refused by name: world %d, cloth %d, collider %d\n", world, cloth, collider);
	ENSURE(cloth > 0 && collider > 0);
	return 0;
}

// A cloth larger than the machine's memory is refused before anything is allocated, at once, with
// the figure (issue 31, item 10: 4096 x 4096 used to fail "out of memory" after 60-80 s). 8192 x 8192
// with self-collision on the CPU: about 80 GB by the estimate; skipped where that fits.
WF_TEST(cloth_memory_refused_up_front)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = WF_BACKEND_CPU;
	wd.selfCollision.enabled = true;
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = 8192;
	const double need = wfEstimateClothBytes(&wd, &cd);
	ENSURE_LE(1000.0 * 8192.0 * 8192.0, need); // at least the 1 KB per particle a grid holds at its peak
	char err[256];
	wfWorld* w = wfCreateWorld(&wd, err, (int)sizeof err);
	ENSURE(w != NULL);
	const double t0 = wfTestSeconds();
	wfClothId c = wfCreateCloth(w, &cd);
	const double seconds = wfTestSeconds() - t0;
	const bool fits = !wfClothId_IsNull(c);
	if (fits) {
		fprintf(stderr, "  skipped: this machine holds %.1f GB\n", need / 1e9);
	} else {
		char figure[64];
		snprintf(figure, sizeof figure, "needs about %.1f GB", need / 1e9);
		ENSURE(Contains(wfWorld_GetLastError(w), "cloth: a 8192 x 8192 grid"));
		ENSURE(Contains(wfWorld_GetLastError(w), figure));
		ENSURE(Contains(wfWorld_GetLastError(w), "more than"));
		ENSURE_LE(seconds, 0.5);
	}
	wfDestroyWorld(w);
	return 0;
}

// Issue 31, item 14: a finite but absurd grab target (1e30) was accepted; it is bounded like every
// position (1e6 m), by Grab and by MoveGrab, and the grab state is left as it was.
WF_TEST(grab_target_bounded_like_positions)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = WF_BACKEND_CPU;
	wfWorld* w = wfCreateWorld(&wd, NULL, 0);
	ENSURE(w != NULL);
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = 4;
	wfClothId id = wfCreateCloth(w, &cd);
	ENSURE(!wfClothId_IsNull(id));
	const wfVec3 far = {1e30f, 0.0f, 0.0f}, edge = {-1e6f, 1e6f, 0.0f}, past = {0.0f, 0.0f, 1.5e6f};
	ENSURE(wfCloth_Grab(id, 3, far) == WF_ERROR_INVALID_ARGUMENT);
	ENSURE(Contains(wfWorld_GetLastError(w), "grab: target (1e+30, 0, 0) must be finite and within 1e6 m"));
	ENSURE(wfCloth_GetGrabbed(id) == -1);
	ENSURE(wfCloth_Grab(id, 3, edge) == WF_OK);
	ENSURE(wfCloth_MoveGrab(id, past) == WF_ERROR_INVALID_ARGUMENT);
	ENSURE(Contains(wfWorld_GetLastError(w), "move grab: target (0, 0, 1.5e+06) must be finite and within 1e6 m"));
	ENSURE(wfCloth_MoveGrab(id, far) == WF_ERROR_INVALID_ARGUMENT);
	ENSURE(wfCloth_GetGrabbed(id) == 3);
	ENSURE(wfWorld_Step(w) == WF_OK);
	wfVec3 p[16];
	ENSURE(wfCloth_ReadPositions(id, p, 16) == WF_OK);
	for (int i = 0; i < 16; ++i)
		ENSURE(isfinite(p[i].x) && isfinite(p[i].y) && isfinite(p[i].z));
	wfDestroyWorld(w);
	return 0;
}
