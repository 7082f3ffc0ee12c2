// The `weft` command: shared declarations of its subcommands, options and simulation setup.
// Uses the public API only.
#ifndef WEFT_CLI_H
#define WEFT_CLI_H

#include "weft/weft.h"
#include "weft_fields.h"

#include <stdbool.h>
#include <stddef.h>

// Exit codes: bad arguments and scene errors are the caller's to fix; runtime failures are not.
enum {
	CLI_EXIT_OK = 0,
	CLI_EXIT_RUNTIME = 1,
	CLI_EXIT_USAGE = 2,
	CLI_EXIT_INTERRUPTED = 130,
	CLI_EXIT_HELP = -1, // ParseOptions printed help; the command returns CLI_EXIT_OK
};

// The largest --size side: the widest frame of H.264's largest level (6.2).
#define CLI_MAX_IMAGE_SIDE 8192

// Which subcommand an option belongs to.
enum { CLI_CMD_RUN = 1u, CLI_CMD_BENCH = 2u };

// Command-line changes to the scene's defs, applied in the order given (a later one wins): each a
// def field (from the library's table) and its parsed value. The named options (--substeps) and
// --set PATH=VALUE both add to this list.
#define CLI_KEEP (-1)
#define CLI_MAX_OVERRIDES 64
typedef struct CliOverride {
	wfDefType def;            // WF_DEF_WORLD, or WF_DEF_CLOTH: every cloth
	const wfFieldInfo* field; // the table's row
	size_t offset;            // bytes into the def
	wfFieldValue value;
	const char* option; // "substeps", "grid", "set": for messages
	const char* text;   // the value as given ("2x2", "step.substeps=20")
} CliOverride;

typedef struct CliOverrides {
	CliOverride items[CLI_MAX_OVERRIDES]; // (count)
	int count;
} CliOverrides;

// Rendering of `weft run` (--png, --video).
typedef struct CliRenderOptions {
	const char* pngDir;    // --png DIR: one PNG per rendered frame
	const char* videoPath; // --video FILE.mp4: H.264 through ffmpeg
	int width, height;     // --size WxH (default 1280x720)
	int every;             // --every N: render every Nth frame (default 1)
	int fps;               // --fps N (default: frames per simulated second / every)
	const char* color;     // --color texture|speed|strain (checked by the parser)
	const char* view;      // --view cloth|nodes|both (checked by the parser)
	bool wireframe;        // --wireframe
	bool cameraSet;        // --camera EX,EY,EZ,TX,TY,TZ[,FOV] given
	float camera[7];       // eye, target, vertical field of view in degrees (default 45)
} CliRenderOptions;

typedef struct CliOptions {
	const char* scene;     // --scene FILE.json
	const char* preset;    // --preset NAME
	const char* objDir;    // --obj DIR
	bool overwrite;        // --overwrite: remove the frames of an earlier run from the --obj / --png folders
	const char* statsPath; // --stats FILE.csv
	const char* gltfPath;  // --gltf FILE.glb: the run as binary glTF (gltf.h)
	const char* usdPath;   // --usd FILE.usda: the run as an ASCII USD layer (usd.h)
	CliRenderOptions render;
	int frames; // CLI_KEEP: the scene's "frames", else the command's default
	int warmup; // CLI_KEEP: the command's default
	bool quiet;
	bool stages;        // bench --stages: per-stage times (wfWorld_SetStageTiming)
	bool intersections; // --intersections: wfWorld_CountIntersections after every frame (run) or the last (bench)
	CliOverrides overrides;
} CliOptions;

// Parses argv[first..argc) for a subcommand. Returns CLI_EXIT_OK, CLI_EXIT_USAGE (message printed)
// or CLI_EXIT_HELP (help printed).
int CliParseOptions(unsigned command, int argc, char** argv, int first, CliOptions* options);

// A world with its cloths, built from a scene or a preset plus the overrides.
typedef struct CliSim {
	wfWorld* world;
	wfClothId* cloths; // (clothCount)
	int clothCount;
	int frames;       // --frames, else the scene's, else the default given to CliSimCreate
	char source[300]; // "preset xpbd" or "scene PATH", for summaries
	wfScene* scene;   // kept while the world lives: its def points at the scene's deviceName
} CliSim;

// Returns CLI_EXIT_OK or an exit code after printing the reason.
int CliSimCreate(CliSim* sim, const CliOptions* options, int defaultFrames);
void CliSimDestroy(CliSim* sim);
// What a scene adds to its world, in the order `weft run --scene` adds it: the scene's colliders
// (with `colliders`), then `count` cloths: `cloths` (the scene's defs after the command line's
// changes), or the scene's own defs when NULL. `weft sweep` builds each batch's world through it.
// Returns CLI_EXIT_OK or CLI_EXIT_RUNTIME after printing "WHO: cannot create ...".
int CliPopulateWorld(wfWorld* world, const wfScene* scene, bool colliders, const wfClothDef* cloths, int count, wfClothId* out,
	const char* who);

// Wall clock for timings (CLOCK_MONOTONIC), in seconds.
double CliNow(void);

// SIGINT and SIGTERM set a flag that the commands read between frames (cmd_run.c); a second
// signal acts as the default and stops at once.
void CliCatchSignals(void);
bool CliInterrupted(void);

// Subcommands; argv[0] is the program, argv[1] the subcommand name.
int CliRun(int argc, char** argv);
int CliBench(int argc, char** argv);
int CliSweep(int argc, char** argv);
int CliPresets(int argc, char** argv);
int CliInfo(int argc, char** argv);
void CliPrintHelp(const char* command);
// The named def-field options of run and bench, their ranges from the library's table.
void CliPrintDefOptions(void);
// Every def field that --set takes, with its type, range and default (weft help fields).
void CliPrintFields(void);

#endif
