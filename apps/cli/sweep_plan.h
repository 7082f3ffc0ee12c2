// `weft sweep`: the sweep file and its expansion into variants. A variant is the base scene's JSON
// tree with the axis values set at their scene-file paths, handed as text to wfScene_Parse: every
// scene key is reachable without a second list of fields, and every message of the scene loader
// applies, with the variant and its values in front.
#ifndef WEFT_CLI_SWEEP_PLAN_H
#define WEFT_CLI_SWEEP_PLAN_H

#include "weft/weft.h"

#include <stdbool.h>
#include <stddef.h>

#define SWEEP_MAX_VARIANTS 1000000 // variant files are numbered with six digits
#define SWEEP_MAX_COLUMNS 64       // distinct paths set by the axes and the explicit variants
#define SWEEP_MAX_PATH 256
#define SWEEP_DEFAULT_FRAMES 120

typedef struct SweepVariant {
	char* sceneText; // the variant's scene, compact JSON (what DIR/variants/vNNNNNN.scene.json holds)
	char* params;    // its value of each column, CSV-quoted, comma-separated
	char* groupKey;  // variants with equal keys have equal world defs and frames: they share a world
	wfScene* scene;  // parsed (validated) scene
	int group;       // its world among the plan's (equal groupKey, equal group), numbered by first appearance
	int clothCount;
	int particles; // of all its cloths at creation (a mesh cloth's vertices; tearing adds more while it runs)
	int frames;
	double cost; // particle-substep-iterations of the whole run, for the schedule
} SweepVariant;

typedef struct SweepPlan {
	char file[4096]; // the sweep file, for messages
	int columnCount;
	char columns[SWEEP_MAX_COLUMNS][SWEEP_MAX_PATH]; // the axes' paths, then the explicit variants' keys
	SweepVariant* variants;                          // (variantCount), the first axis varying slowest
	int variantCount;
	int groupCount; // distinct worlds among the variants
	// What each variant records (the sweep file's "record").
	bool stats; // per-frame statistics CSV (default true)
	bool final; // final positions .npy (default true)
	int every;  // every Nth frame's positions .npy, 0 = none (default 0)
} SweepPlan;

// Reads and expands the sweep file, then parses every variant's scene. On failure returns false
// with "FILE: where: problem (allowed ...)" in error; nothing is run.
bool SweepPlanLoad(SweepPlan* plan, const char* path, char* error, size_t errorSize);
// The same from the file's text; `path` names it in messages and its folder is where relative
// scene and mesh paths start. At most maxVariants variants (SWEEP_MAX_VARIANTS for the command; the
// fuzzer asks for fewer, so that one input stays fast).
bool SweepPlanParse(SweepPlan* plan, const char* text, const char* path, int maxVariants, char* error, size_t errorSize);
void SweepPlanFree(SweepPlan* plan);

#endif
