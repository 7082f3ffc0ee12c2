// Setup shared by `weft run` and `weft bench`: the defs from a scene file or a preset, the
// command-line overrides on top, then the world and its cloths.
#include "cli.h"
#include "weft_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>

// The defs before creation. Pin lists and the device name point into `scene`.
typedef struct Defs {
	wfWorldDef world;
	wfClothDef* cloths; // (count)
	int count;
	int frames; // the scene's "frames", 0 if none
	wfScene* scene;
} Defs;

double CliNow(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void PresetList(char* out, size_t size)
{
	size_t used = 0;
	out[0] = 0;
	for (int i = 0; i < wfPresetCount() && used < size; ++i)
		used += (size_t)snprintf(out + used, size - used, "%s%s", i > 0 ? ", " : "", wfPresetName(i));
}

static int LoadScene(const char* path, Defs* d)
{
	char error[512];
	d->scene = wfScene_Load(path, error, (int)sizeof error);
	if (d->scene == NULL) {
		fprintf(stderr, "weft: %s\n", error);
		return CLI_EXIT_USAGE;
	}
	d->world = wfScene_GetWorldDef(d->scene);
	d->frames = wfScene_GetFrames(d->scene);
	d->count = wfScene_GetClothCount(d->scene);
	d->cloths = (wfClothDef*)calloc((size_t)d->count, sizeof(wfClothDef));
	if (d->cloths == NULL) {
		fprintf(stderr, "weft: out of memory\n");
		return CLI_EXIT_RUNTIME;
	}
	for (int i = 0; i < d->count; ++i)
		d->cloths[i] = wfScene_GetClothDef(d->scene, i);
	return CLI_EXIT_OK;
}

static int LoadPreset(const char* name, Defs* d)
{
	wfClothDef cloth;
	if (!wfPresetGet(name, &d->world, &cloth)) {
		char names[160];
		PresetList(names, sizeof names);
		fprintf(stderr, "weft: --preset: '%s' is not a preset (allowed: one of %s)\n", name, names);
		return CLI_EXIT_USAGE;
	}
	d->count = 1;
	d->cloths = (wfClothDef*)malloc(sizeof(wfClothDef));
	if (d->cloths == NULL) {
		fprintf(stderr, "weft: out of memory\n");
		return CLI_EXIT_RUNTIME;
	}
	d->cloths[0] = cloth;
	return CLI_EXIT_OK;
}

// A smaller grid must still hold every pinned index of a pin list; `ov` set cols or rows last.
static int CheckPins(const CliOverride* ov, const Defs* d)
{
	for (int c = 0; c < d->count; ++c) {
		const wfClothDef* cloth = &d->cloths[c];
		int particles = cloth->cols * cloth->rows;
		for (int i = 0; cloth->pinMode == WF_PIN_LIST && i < cloth->pinCount; ++i) {
			if (cloth->pinIndices[i] >= particles) {
				fprintf(stderr,
					"weft: --%s: '%s' has %d particles, but cloth %d pins particle %d (allowed: a grid with more than %d particles)\n",
					ov->option, ov->text, particles, c, cloth->pinIndices[i], cloth->pinIndices[i]);
				return CLI_EXIT_USAGE;
			}
		}
	}
	return CLI_EXIT_OK;
}

// Each override written through its field's offset, in the order given; cloth fields on every cloth.
static int ApplyOverrides(const CliOverrides* list, Defs* d)
{
	const wfFieldInfo* backend = wfFindDefField(WF_DEF_WORLD, "backend");
	const wfFieldInfo* cols = wfFindDefField(WF_DEF_CLOTH, "cols");
	const wfFieldInfo* rows = wfFindDefField(WF_DEF_CLOTH, "rows");
	const CliOverride* grid = NULL; // the last that changed a grid's size
	bool cpu = false;
	for (int k = 0; k < list->count; ++k) {
		const CliOverride* ov = &list->items[k];
		if (ov->def == WF_DEF_WORLD)
			wfFieldsStore(ov->field, &ov->value, (char*)&d->world + ov->offset);
		for (int i = 0; ov->def == WF_DEF_CLOTH && i < d->count; ++i)
			wfFieldsStore(ov->field, &ov->value, (char*)&d->cloths[i] + ov->offset);
		if (ov->field == backend)
			cpu = (int)ov->value.v[0] == WF_BACKEND_CPU;
		if (ov->field == cols || ov->field == rows)
			grid = ov;
	}
	// --backend cpu over a scene that names a Vulkan device: the command line wins, visibly.
	if (cpu && d->world.backend == WF_BACKEND_CPU && d->world.deviceName != NULL && d->world.deviceName[0] != 0) {
		fprintf(stderr, "weft: warning: --backend cpu: the scene's world.deviceName is not used\n");
		d->world.deviceName = NULL;
	}
	return grid != NULL ? CheckPins(grid, d) : CLI_EXIT_OK;
}

// The grids against the memory there is, before anything is allocated: a grid that cannot fit
// would otherwise fail (or be killed) somewhere inside the library's allocations.
static int CheckMemory(const Defs* d)
{
	const char* what;
	double limit = wfMemoryLimit(&what), total = 0.0; // the library's own figures
	if (limit <= 0.0)
		return CLI_EXIT_OK;
	for (int i = 0; i < d->count; ++i)
		total += wfEstimateClothBytes(&d->world, &d->cloths[i]);
	const wfClothDef* c = &d->cloths[0];
	if (total <= limit || c->mesh != NULL) // a mesh: the library's message names its vertices
		return CLI_EXIT_OK;
	double perParticle = wfEstimateClothBytes(&d->world, c) / ((double)c->cols * c->rows);
	int side = (int)sqrt(limit / perParticle / d->count);
	fprintf(stderr,
		"weft: --grid / cols x rows: %d cloth%s of %dx%d need%s about %.1f GB (%.0f bytes per particle), more than "
		"%s, %.1f GB (allowed here: up to about %dx%d per cloth)\n",
		d->count, d->count == 1 ? "" : "s", c->cols, c->rows, d->count == 1 ? "s" : "", total / 1e9, perParticle, what, limit / 1e9, side,
		side);
	return CLI_EXIT_USAGE;
}

static int CreateAll(CliSim* sim, const Defs* d)
{
	char error[512];
	wfWorldDef wd = d->world;
	wfEnvApplyToWorldDef(&wd); // WEFT_VK_DEVICE, WEFT_VK_VALIDATION, WEFT_NO_SIMD, ...
	sim->world = wfCreateWorld(&wd, error, (int)sizeof error);
	if (sim->world == NULL) {
		fprintf(stderr, "weft: cannot create the world: %s\n", error);
		return CLI_EXIT_RUNTIME;
	}
	sim->cloths = (wfClothId*)calloc((size_t)d->count, sizeof(wfClothId));
	if (sim->cloths == NULL) {
		fprintf(stderr, "weft: out of memory\n");
		return CLI_EXIT_RUNTIME;
	}
	int code = CliPopulateWorld(sim->world, d->scene, true, d->cloths, d->count, sim->cloths, "weft");
	sim->clothCount = code == CLI_EXIT_OK ? d->count : 0;
	return code;
}

int CliPopulateWorld(wfWorld* world, const wfScene* scene, bool colliders, const wfClothDef* cloths, int count, wfClothId* out,
	const char* who)
{
	for (int i = 0; colliders && scene != NULL && i < wfScene_GetColliderCount(scene); ++i) {
		wfColliderDef k = wfScene_GetColliderDef(scene, i);
		if (wfColliderId_IsNull(wfCreateCollider(world, &k))) {
			fprintf(stderr, "%s: cannot create collider %d: %s\n", who, i, wfWorld_GetLastError(world));
			return CLI_EXIT_RUNTIME;
		}
	}
	for (int i = 0; i < count; ++i) {
		wfClothDef def = cloths != NULL ? cloths[i] : wfScene_GetClothDef(scene, i);
		out[i] = wfCreateCloth(world, &def);
		if (wfClothId_IsNull(out[i])) {
			fprintf(stderr, "%s: cannot create cloth %d: %s\n", who, i, wfWorld_GetLastError(world));
			return CLI_EXIT_RUNTIME;
		}
	}
	return CLI_EXIT_OK;
}

int CliSimCreate(CliSim* sim, const CliOptions* o, int defaultFrames)
{
	Defs d;
	memset(&d, 0, sizeof d);
	memset(sim, 0, sizeof *sim);
	int code = o->scene != NULL ? LoadScene(o->scene, &d) : LoadPreset(o->preset, &d);
	if (code == CLI_EXIT_OK)
		code = ApplyOverrides(&o->overrides, &d);
	if (code == CLI_EXIT_OK)
		code = CheckMemory(&d);
	if (code == CLI_EXIT_OK)
		code = CreateAll(sim, &d);
	sim->frames = o->frames != CLI_KEEP ? o->frames : d.frames > 0 ? d.frames : defaultFrames;
	snprintf(sim->source, sizeof sim->source, "%s %s", o->scene != NULL ? "scene" : "preset", o->scene != NULL ? o->scene : o->preset);
	free(d.cloths);
	sim->scene = d.scene;
	if (code != CLI_EXIT_OK)
		CliSimDestroy(sim);
	return code;
}

void CliSimDestroy(CliSim* sim)
{
	wfDestroyWorld(sim->world);
	wfDestroyScene(sim->scene);
	free(sim->cloths);
	memset(sim, 0, sizeof *sim);
}
