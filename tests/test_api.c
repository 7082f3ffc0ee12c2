// API contract: defs are validated field by field, bad ids and sizes are refused, worlds are
// independent, live setters take effect without a rebuild.
#include "test.h"

#include <string.h>

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
	ENSURE(wfCreateWorld(&d, err, sizeof err) == NULL);
	ENSURE(Contains(err, "step.substeps") && Contains(err, "[1, 4096]"));
	d = wfDefaultWorldDef();
	d.step.solver = WF_SOLVER_JACOBI;
	d.step.iterations = 3;
	ENSURE(wfCreateWorld(&d, err, sizeof err) == NULL);
	ENSURE(Contains(err, "step.iterations") && Contains(err, "even"));
	d = wfDefaultWorldDef();
	d.sphere.radius = -1.0f;
	ENSURE(wfCreateWorld(&d, err, sizeof err) == NULL);
	ENSURE(Contains(err, "sphere.radius"));
	d = wfDefaultWorldDef();
	d.gravity.y = NAN;
	ENSURE(wfCreateWorld(&d, err, sizeof err) == NULL);
	ENSURE(Contains(err, "gravity"));
	d = wfDefaultWorldDef();
	d.step.timeStep = 0.0f;
	ENSURE(wfCreateWorld(&d, err, sizeof err) == NULL);
	ENSURE(Contains(err, "step.timeStep"));
	wfWorldDef raw;
	memset(&raw, 0, sizeof raw);
	ENSURE(wfCreateWorld(&raw, err, sizeof err) == NULL);
	ENSURE(Contains(err, "wfDefaultWorldDef"));
	ENSURE(wfCreateWorld(NULL, err, sizeof err) == NULL);
	ENSURE(wfCreateWorld(NULL, NULL, 0) == NULL);
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
	case 12: d->pinMode = WF_PIN_LIST; d->pinIndices = badPins; d->pinCount = 2; return "pinIndices[1]";
	case 13: d->pinMode = (wfPinMode)42; return "pinMode";
	case 14: d->cols = 1; d->rows = 1; return "cols x rows";
	}
	return NULL;
}

WF_TEST(cloth_def_rejected_with_field_name)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = WF_BACKEND_CPU;
	wfWorld* w = wfCreateWorld(&wd, NULL, 0);
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
	wfWorld* w = wfCreateWorld(&wd, NULL, 0);
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
	return 0;
}

// Two worlds in one process do not influence each other (no global state).
WF_TEST(worlds_are_independent)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = WF_BACKEND_CPU;
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = 10;
	wfWorld* a = wfCreateWorld(&wd, NULL, 0);
	wfClothId ca = wfCreateCloth(a, &cd);
	for (int f = 0; f < 10; ++f)
		wfWorld_Step(a);
	wfVec3 ref[100], p[100];
	wfCloth_ReadPositions(ca, ref, 100);
	wfCloth_Reset(ca);
	wd.gravity.y = -30.0f;
	wfWorld* b = wfCreateWorld(&wd, NULL, 0);
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
	wfWorld* w = wfCreateWorld(&wd, NULL, 0);
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
	step.iterations = 5;
	ENSURE(wfWorld_SetStep(w, &step) == WF_ERROR_INVALID_DEF);
	step.iterations = 4;
	ENSURE(wfWorld_SetStep(w, &step) == WF_OK);
	ENSURE(wfWorld_Step(w) == WF_OK);
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
