// weft.h's argument rule, function by function: every public function with NULL in each pointer
// argument and NaN / +inf / -inf in each float argument (and the ones without either, with values
// out of range). None may crash; each gives the result the
// header documents, changes nothing, and leaves a message on the world where there is one.
#include "test.h"

#include <string.h>

typedef struct Fixture {
	wfWorld* world;
	wfClothId cloth; // 4 x 3 particles
	wfClothId stale; // a destroyed cloth of the same world
	wfClothId none;  // the null id
	float bad;       // NaN, +inf or -inf for this pass
	wfWorldDef def;  // a valid default def for the setters' world-NULL rows
	wfVec3 buffer[12];
	wfVec3 before[12]; // positions at the start of the case
	char error[256];
} Fixture;

enum { N = 12 };

static bool Says(const Fixture* f, const char* part)
{
	const char* msg = wfWorld_GetLastError(f->world);
	bool ok = strstr(msg, part) != NULL;
	if (!ok)
		fprintf(stderr, "    last error \"%s\" does not name \"%s\"\n", msg, part);
	return ok;
}

static bool Unchanged(Fixture* f)
{
	wfVec3 now[N];
	return wfCloth_ReadPositions(f->cloth, now, N) == WF_OK && memcmp(now, f->before, sizeof now) == 0 &&
		wfCloth_GetGrabbed(f->cloth) == -1;
}

static wfVec3 Bad3(const Fixture* f, int k)
{
	wfVec3 v = {0.0f, 1.0f, 0.0f};
	*(k == 0 ? &v.x : k == 1 ? &v.y : &v.z) = f->bad;
	return v;
}

static bool SameDef(wfWorldDef a, wfWorldDef b)
{
	return a.internalValue == b.internalValue && a.step.substeps == b.step.substeps && a.backend == b.backend;
}

static wfResult SetBad(Fixture* f, int what)
{
	wfWorldDef d = wfDefaultWorldDef();
	switch (what) {
	case 0: d.step.timeStep = f->bad; return wfWorld_SetStep(f->world, &d.step);
	case 1: d.sphere.radius = f->bad; return wfWorld_SetSphere(f->world, &d.sphere);
	case 2: d.sphere.center = Bad3(f, 2); return wfWorld_SetSphere(f->world, &d.sphere);
	case 3: d.sphere.amplitude = Bad3(f, 0); return wfWorld_SetSphere(f->world, &d.sphere);
	case 4: d.sphere.frequency = f->bad; return wfWorld_SetSphere(f->world, &d.sphere);
	case 5: d.floor.height = f->bad; return wfWorld_SetFloor(f->world, &d.floor);
	case 6: d.wind.strength = f->bad; return wfWorld_SetWind(f->world, &d.wind);
	case 7: d.wind.frequency = f->bad; return wfWorld_SetWind(f->world, &d.wind);
	case 8: d.wind.phasePerColumn = f->bad; return wfWorld_SetWind(f->world, &d.wind);
	case 9: d.wind.direction = Bad3(f, 1); return wfWorld_SetWind(f->world, &d.wind);
	case 10: d.contact.thickness = f->bad; return wfWorld_SetContact(f->world, &d.contact);
	case 11: d.contact.friction = f->bad; return wfWorld_SetContact(f->world, &d.contact);
	}
	return WF_OK;
}

static bool CreateBadDef(Fixture* f, int what)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = WF_BACKEND_CPU;
	wfClothDef cd = wfDefaultClothDef();
	switch (what) {
	case 0: wd.gravity = Bad3(f, 1); break;
	case 1: wd.step.timeStep = f->bad; break;
	case 2: cd.width = f->bad; break;
	case 3: cd.origin = Bad3(f, 0); break;
	case 4: cd.material.mass = f->bad; break;
	case 5: cd.uvRepeat = f->bad; break;
	}
	wfWorld* w = wfCreateWorld(&wd, f->error, sizeof f->error);
	if (w == NULL)
		return what < 2;
	wfClothId id = wfCreateCloth(w, &cd);
	bool refused = wfClothId_IsNull(id) && strlen(wfWorld_GetLastError(w)) > 0;
	wfDestroyWorld(w);
	return what >= 2 && refused;
}

static bool WriteBad(Fixture* f, bool positions)
{
	wfVec3 in[N];
	memcpy(in, f->before, sizeof in);
	in[7] = Bad3(f, 2);
	wfResult r = positions ? wfCloth_WritePositions(f->cloth, in, N) : wfCloth_WriteVelocities(f->cloth, in, N);
	wfVec3 vel[N];
	bool velocitiesZero = wfCloth_ReadVelocities(f->cloth, vel, N) == WF_OK;
	for (int i = 0; i < N; ++i)
		velocitiesZero = velocitiesZero && vel[i].x == 0.0f && vel[i].y == 0.0f && vel[i].z == 0.0f;
	return r == WF_ERROR_INVALID_ARGUMENT && Says(f, "[7]") && Says(f, "finite") && Unchanged(f) && velocitiesZero;
}

static bool MoveGrabBad(Fixture* f)
{
	wfVec3 target = {0.5f, 2.0f, 0.0f}, p[N];
	bool ok = wfCloth_Grab(f->cloth, 3, target) == WF_OK && wfCloth_MoveGrab(f->cloth, Bad3(f, 0)) == WF_ERROR_INVALID_ARGUMENT &&
		Says(f, "finite") && wfWorld_Step(f->world) == WF_OK && wfCloth_ReadPositions(f->cloth, p, N) == WF_OK && p[3].x == target.x &&
		p[3].y == target.y && p[3].z == target.z;
	wfCloth_Release(f->cloth);
	wfCloth_Reset(f->cloth);
	return ok;
}

// One row per call: its text (for the log) and the check of its documented result.
#define ARG_CASES(X) \
	/* ---- world */ \
	X(wfCreateWorld(NULL, f->error, sizeof f->error) == NULL && strstr(f->error, "world def: NULL") != NULL) \
	X(wfCreateWorld(NULL, NULL, 0) == NULL) \
	X((wfDestroyWorld(NULL), true)) \
	X(wfWorld_Step(NULL) == WF_ERROR_INVALID_ARGUMENT) \
	X(strcmp(wfWorld_GetLastError(NULL), "") == 0) \
	X(wfWorld_GetBackend(NULL) == WF_BACKEND_AUTO) \
	X(strcmp(wfWorld_GetDeviceName(NULL), "") == 0) \
	X(SameDef(wfWorld_GetDef(NULL), wfDefaultWorldDef())) \
	X(wfWorld_GetThreadCount(NULL) == 0) \
	X(wfWorld_GetTime(NULL) == 0.0) \
	X(wfWorld_GetWarnings(NULL).nonFinite == 0 && wfWorld_GetWarnings(NULL).unstable == 0) \
	X(wfWorld_GetSphereCenter(NULL).x == 0.0f && wfWorld_GetSphereCenter(NULL).y == 0.0f) \
	X(wfWorld_GetStepProfile(NULL).gpuMs == -1.0 && wfWorld_GetStepProfile(NULL).stageMs[0] == -1.0 && \
		wfWorld_GetStepProfile(NULL).dispatches == 0) \
	X(wfWorld_SetStageTiming(NULL, true) == WF_ERROR_INVALID_ARGUMENT) \
	X(wfWorld_GetStageTiming(NULL) == false) \
	X(wfWorld_SetStep(NULL, &f->def.step) == WF_ERROR_INVALID_ARGUMENT) \
	X(wfWorld_SetStep(f->world, NULL) == WF_ERROR_INVALID_ARGUMENT && Says(f, "NULL")) \
	X(wfWorld_SetGravity(NULL, (wfVec3){0, -9.8f, 0}) == WF_ERROR_INVALID_ARGUMENT) \
	X(wfWorld_SetGravity(f->world, Bad3(f, 0)) == WF_ERROR_INVALID_DEF && Says(f, "gravity")) \
	X(wfWorld_SetGravity(f->world, Bad3(f, 1)) == WF_ERROR_INVALID_DEF && wfWorld_GetDef(f->world).gravity.y == -9.8f) \
	X(wfWorld_SetGravity(f->world, Bad3(f, 2)) == WF_ERROR_INVALID_DEF) \
	X(wfWorld_SetSphere(NULL, &f->def.sphere) == WF_ERROR_INVALID_ARGUMENT) \
	X(wfWorld_SetSphere(f->world, NULL) == WF_ERROR_INVALID_ARGUMENT && Says(f, "NULL")) \
	X(wfWorld_SetSphereMoving(NULL, true) == WF_ERROR_INVALID_ARGUMENT) \
	X(wfWorld_SetFloor(NULL, &f->def.floor) == WF_ERROR_INVALID_ARGUMENT) \
	X(wfWorld_SetFloor(f->world, NULL) == WF_ERROR_INVALID_ARGUMENT && Says(f, "NULL")) \
	X(wfWorld_SetWind(NULL, &f->def.wind) == WF_ERROR_INVALID_ARGUMENT) \
	X(wfWorld_SetWind(f->world, NULL) == WF_ERROR_INVALID_ARGUMENT && Says(f, "NULL")) \
	X(wfWorld_SetContact(NULL, &f->def.contact) == WF_ERROR_INVALID_ARGUMENT) \
	X(wfWorld_SetContact(f->world, NULL) == WF_ERROR_INVALID_ARGUMENT && Says(f, "NULL")) \
	X(SetBad(f, 0) == WF_ERROR_INVALID_DEF && Says(f, "step.timeStep")) \
	X(SetBad(f, 1) == WF_ERROR_INVALID_DEF && Says(f, "sphere.radius")) \
	X(SetBad(f, 2) == WF_ERROR_INVALID_DEF && Says(f, "sphere.center")) \
	X(SetBad(f, 3) == WF_ERROR_INVALID_DEF && Says(f, "sphere.amplitude")) \
	X(SetBad(f, 4) == WF_ERROR_INVALID_DEF && Says(f, "sphere.frequency")) \
	X(SetBad(f, 5) == WF_ERROR_INVALID_DEF && Says(f, "floor.height")) \
	X(SetBad(f, 6) == WF_ERROR_INVALID_DEF && Says(f, "wind.strength")) \
	X(SetBad(f, 7) == WF_ERROR_INVALID_DEF && Says(f, "wind.frequency")) \
	X(SetBad(f, 8) == WF_ERROR_INVALID_DEF && Says(f, "wind.phasePerColumn")) \
	X(SetBad(f, 9) == WF_ERROR_INVALID_DEF && Says(f, "wind.direction")) \
	X(SetBad(f, 10) == WF_ERROR_INVALID_DEF && Says(f, "contact.thickness")) \
	X(SetBad(f, 11) == WF_ERROR_INVALID_DEF && Says(f, "contact.friction")) \
	X(wfWorld_GetSnapshotSize(NULL) == 0) \
	X(wfWorld_SaveSnapshot(NULL, f->buffer, sizeof f->buffer) == WF_ERROR_INVALID_ARGUMENT) \
	X(wfWorld_SaveSnapshot(f->world, NULL, 1 << 20) == WF_ERROR_INVALID_ARGUMENT && Says(f, "snapshot")) \
	X(wfWorld_RestoreSnapshot(NULL, f->buffer, sizeof f->buffer) == WF_ERROR_INVALID_ARGUMENT) \
	X(wfWorld_RestoreSnapshot(f->world, NULL, 1 << 20) == WF_ERROR_INVALID_ARGUMENT && Says(f, "snapshot")) \
	X(CreateBadDef(f, 0) && strstr(f->error, "gravity") != NULL) \
	X(CreateBadDef(f, 1) && strstr(f->error, "step.timeStep") != NULL) \
	/* ---- cloth */ \
	X(wfClothId_IsNull(wfCreateCloth(NULL, &(wfClothDef){0}))) \
	X(wfClothId_IsNull(wfCreateCloth(f->world, NULL)) && Says(f, "cloth def: NULL")) \
	X(CreateBadDef(f, 2) && CreateBadDef(f, 3) && CreateBadDef(f, 4) && CreateBadDef(f, 5)) \
	X((wfDestroyCloth(f->none), wfDestroyCloth(f->stale), true)) \
	X(wfCloth_GetInfo(f->cloth, NULL) == WF_ERROR_INVALID_ARGUMENT && Says(f, "info")) \
	X(wfCloth_GetInfo(f->stale, &(wfClothInfo){0}) == WF_ERROR_INVALID_ARGUMENT && Says(f, "stale")) \
	X(wfCloth_GetInfo(f->none, NULL) == WF_ERROR_INVALID_ARGUMENT) \
	X(wfCloth_GetStats(f->cloth, NULL) == WF_ERROR_INVALID_ARGUMENT && Says(f, "stats")) \
	X(wfCloth_GetMaterial(f->none).mass == wfDefaultMaterial().mass) \
	X(wfCloth_SetMaterial(f->cloth, NULL) == WF_ERROR_INVALID_DEF && Says(f, "material: NULL")) \
	X(wfCloth_SetMaterial(f->cloth, &(wfMaterial){.mass = f->bad}) == WF_ERROR_INVALID_DEF && Says(f, "material.mass")) \
	X(wfCloth_Reset(f->none) == WF_ERROR_INVALID_ARGUMENT) \
	X(wfCloth_SetPinMode(f->cloth, WF_PIN_LIST, NULL, 3) == WF_ERROR_INVALID_ARGUMENT && Says(f, "pinIndices")) \
	X(wfCloth_SetPinMode(f->none, WF_PIN_LIST, NULL, 3) == WF_ERROR_INVALID_ARGUMENT) \
	X(wfCloth_SetPinned(f->none, 0, true) == WF_ERROR_INVALID_ARGUMENT) \
	X(wfCloth_IsPinned(f->none, 0) == false) \
	X(wfCloth_Grab(f->cloth, 0, Bad3(f, 0)) == WF_ERROR_INVALID_ARGUMENT && Says(f, "finite") && Unchanged(f)) \
	X(wfCloth_Grab(f->cloth, 0, Bad3(f, 1)) == WF_ERROR_INVALID_ARGUMENT && Unchanged(f)) \
	X(wfCloth_Grab(f->cloth, 0, Bad3(f, 2)) == WF_ERROR_INVALID_ARGUMENT && Unchanged(f)) \
	X(wfCloth_Grab(f->none, 0, Bad3(f, 0)) == WF_ERROR_INVALID_ARGUMENT) \
	X(MoveGrabBad(f)) \
	X(wfCloth_MoveGrab(f->none, Bad3(f, 1)) == WF_ERROR_INVALID_ARGUMENT) \
	X(wfCloth_Release(f->none) == WF_ERROR_INVALID_ARGUMENT) \
	X(wfCloth_GetGrabbed(f->none) == -1) \
	X(wfCloth_ReadPositions(f->cloth, NULL, N) == WF_ERROR_INVALID_ARGUMENT && Says(f, "positions")) \
	X(wfCloth_ReadVelocities(f->cloth, NULL, N) == WF_ERROR_INVALID_ARGUMENT && Says(f, "velocities")) \
	X(wfCloth_ReadNormals(f->cloth, NULL, N) == WF_ERROR_INVALID_ARGUMENT && Says(f, "normals")) \
	X(wfCloth_ReadUVs(f->cloth, NULL, N) == WF_ERROR_INVALID_ARGUMENT && Says(f, "uvs")) \
	X(wfCloth_ReadIndices(f->cloth, NULL, 36) == WF_ERROR_INVALID_ARGUMENT && Says(f, "indices")) \
	X(wfCloth_ReadPositions(f->stale, NULL, N) == WF_ERROR_INVALID_ARGUMENT) \
	X(wfCloth_ReadLocalPositions(f->cloth, NULL, N) == WF_ERROR_INVALID_ARGUMENT && Says(f, "local positions")) \
	X(wfCloth_ReadLocalPositions(f->none, NULL, N) == WF_ERROR_INVALID_ARGUMENT) \
	X(wfCloth_GetOrigin(f->cloth, NULL) == WF_ERROR_INVALID_ARGUMENT && Says(f, "origin")) \
	X(wfCloth_GetOrigin(f->stale, (double[3]){0}) == WF_ERROR_INVALID_ARGUMENT) \
	X(wfCloth_WritePositions(f->cloth, NULL, N) == WF_ERROR_INVALID_ARGUMENT && Says(f, "positions") && Unchanged(f)) \
	X(wfCloth_WriteVelocities(f->cloth, NULL, N) == WF_ERROR_INVALID_ARGUMENT && Says(f, "velocities")) \
	X(WriteBad(f, true)) \
	X(WriteBad(f, false)) \
	/* ---- presets, scenes, names, devices, interop */ \
	X(wfPresetName(-1) == NULL && wfPresetDescription(99) == NULL) \
	X(!wfPresetGet(NULL, &(wfWorldDef){0}, &(wfClothDef){0})) \
	X(!wfPresetGet("xpbd", NULL, NULL)) \
	X(!wfPresetGet("xpbd", &(wfWorldDef){0}, NULL) && !wfPresetGet("xpbd", NULL, &(wfClothDef){0})) \
	X(wfScene_Load(NULL, f->error, sizeof f->error) == NULL && strstr(f->error, "no path") != NULL) \
	X(wfScene_Load(NULL, NULL, 0) == NULL) \
	X(wfScene_Parse(NULL, "x.json", f->error, sizeof f->error) == NULL && strstr(f->error, "no text") != NULL) \
	X(wfScene_Parse("{\"frames\": [", NULL, NULL, 0) == NULL) \
	X((wfDestroyScene(NULL), true)) \
	X(SameDef(wfScene_GetWorldDef(NULL), wfDefaultWorldDef())) \
	X(wfScene_GetClothCount(NULL) == 0) \
	X(wfScene_GetClothDef(NULL, 0).cols == wfDefaultClothDef().cols) \
	X(wfScene_GetFrames(NULL) == 0) \
	X(!wfSolverFromName(NULL, &(wfSolverType){0}) && !wfSolverFromName("xpbd", NULL)) \
	X(!wfBackendFromName(NULL, &(wfBackendType){0}) && !wfBackendFromName("cpu", NULL)) \
	X(!wfPinModeFromName(NULL, &(wfPinMode){0}) && !wfPinModeFromName("none", NULL)) \
	X(strcmp(wfResultName((wfResult)99), "unknown") == 0 && strcmp(wfStageName((wfStage)-1), "?") == 0) \
	X(strcmp(wfSolverName((wfSolverType)99), "?") == 0 && strcmp(wfBackendName((wfBackendType)-5), "?") == 0 && \
		strcmp(wfPinModeName((wfPinMode)42), "?") == 0) \
	X(wfPresetCount() == 3 && !wfClothId_IsNull(f->cloth) && wfClothId_IsNull(f->none)) \
	X(wfEnumerateDevices(NULL, 4, NULL, 0) >= -1) \
	X(!wfDeviceNameMatches(NULL, "x") && !wfDeviceNameMatches("x", NULL)) \
	X(wfEnumerateDevices(NULL, -3, f->error, sizeof f->error) >= -1) \
	X(wfWorld_GetVulkanDevice(NULL, &(wfVulkanDevice){0}) == WF_ERROR_INVALID_ARGUMENT) \
	X(wfWorld_GetVulkanDevice(f->world, NULL) == WF_ERROR_INVALID_ARGUMENT && Says(f, "out: NULL")) \
	X(wfCloth_GetVulkanBuffers(f->cloth, NULL) == WF_ERROR_INVALID_ARGUMENT && Says(f, "NULL")) \
	X(wfCloth_GetVulkanBuffers(f->none, NULL) == WF_ERROR_INVALID_ARGUMENT)

#define COUNT_CASE(expr) +1
enum { ARG_CASE_COUNT = 0 ARG_CASES(COUNT_CASE) };

// The rows as one function with a switch: row k evaluates its expression.
static bool RunCase(Fixture* f, int k)
{
	int row = 0;
#define RUN_ROW(expr) \
	if (row++ == k) \
		return (expr);
	ARG_CASES(RUN_ROW)
#undef RUN_ROW
	return false;
}

static const char* const kCallText[] = {
#define TEXT_ROW(expr) #expr,
	ARG_CASES(TEXT_ROW)
#undef TEXT_ROW
};

static bool MakeFixture(Fixture* f, float bad)
{
	memset(f, 0, sizeof *f);
	f->bad = bad;
	f->def = wfDefaultWorldDef();
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = wfTestBackend();
	f->world = wfCreateWorld(&wd, f->error, sizeof f->error);
	if (f->world == NULL)
		return false;
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = 4;
	cd.rows = 3;
	f->stale = wfCreateCloth(f->world, &cd);
	wfDestroyCloth(f->stale);
	f->cloth = wfCreateCloth(f->world, &cd);
	f->none = (wfClothId){NULL, -1, 0};
	return !wfClothId_IsNull(f->cloth) && wfCloth_ReadPositions(f->cloth, f->before, N) == WF_OK;
}

WF_TEST(api_null_and_nonfinite_arguments)
{
	const float bad[] = {NAN, INFINITY, -INFINITY};
	int failed = 0;
	for (int b = 0; b < 3; ++b) {
		Fixture f;
		ENSURE(MakeFixture(&f, bad[b]));
		for (int k = 0; k < ARG_CASE_COUNT; ++k) {
			bool ok = RunCase(&f, k);
			if (!ok || b == 0)
				fprintf(stderr, "  %s [bad = %g] %s\n", ok ? "ok" : "FAILED", (double)bad[b], kCallText[k]);
			failed += !ok;
		}
		wfDestroyWorld(f.world);
	}
	fprintf(stderr, "  %d rows x 3 non-finite values, %d failed\n", ARG_CASE_COUNT, failed);
	ENSURE(failed == 0);
	return 0;
}

// A destroyed cloth's id is refused even after its slot is reused by a new cloth (generations).
WF_TEST(api_stale_cloth_id_after_slot_reuse)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = WF_BACKEND_CPU;
	wfWorld* w = wfCreateWorld(&wd, NULL, 0);
	ENSURE(w != NULL);
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = 4;
	wfClothId old = wfCreateCloth(w, &cd);
	wfDestroyCloth(old);
	wfClothId reused = wfCreateCloth(w, &cd);
	ENSURE(reused.index == old.index && reused.generation != old.generation);
	wfClothInfo info;
	ENSURE(wfCloth_GetInfo(old, &info) == WF_ERROR_INVALID_ARGUMENT);
	ENSURE(wfCloth_GetInfo(reused, &info) == WF_OK);
	wfDestroyWorld(w);
	return 0;
}
