// `weft`: the command-line front end of the library. One function per subcommand.
#include "cli.h"

#include <stdio.h>
#include <string.h>

typedef struct Command {
	const char* name;
	int (*run)(int argc, char** argv);
	const char* usage;
	bool defOptions;   // the named def-field options and --set follow the usage (CliPrintDefOptions)
	const char* notes; // after those, or NULL
} Command;

static int Help(int argc, char** argv);

static const Command kCommands[] = {
	{"run", CliRun,
		"weft run (--scene FILE.json | --preset NAME) [options]\n"
		"  Steps the scene, writes one OBJ per frame, a USD cache and a statistics CSV, prints a summary.\n"
		"  --frames N        frames to step, [1, 10000000] (default: the scene's \"frames\", else 120)\n"
		"  --obj DIR         write DIR/frame_0001.obj ... (created if missing; a folder holding frames\n"
		"                    of an earlier run is refused unless --overwrite)\n"
		"  --overwrite       first remove the frame_*.obj / frame_*.png files of an earlier run from the\n"
		"                    --obj and --png folders (nothing else in them)\n"
		"  --stats FILE.csv  write one row of statistics per frame (per cloth with several cloths)\n"
		"  --gltf FILE.glb   write the run as binary glTF 2.0: the cloths animated by morph targets, the\n"
		"                    colliders by their poses (three.js, Blender); kept like the CSV on Ctrl-C\n"
		"  --usd FILE.usda   write the run as one ASCII USD layer: the cloths' meshes with time-sampled\n"
		"                    points and normals, materials, the sphere, floor and colliders moving\n"
		"                    (binary .usdc is refused); --obj also writes DIR/weft.mtl\n"
		"  --quiet           no progress line, no summary\n"
		"  --intersections   after every frame count edges through triangles (self, between cloths) and\n"
		"                    particles or edges inside colliders (wfWorld_CountIntersections): three more\n"
		"                    --stats columns, totals in the summary\n"
		"  --png DIR         render DIR/frame_0001.png ... (headless Vulkan renderer; old frames as --obj)\n"
		"  --video FILE.mp4  render an H.264 video through the ffmpeg command\n"
		"  --size WxH        image size, each [16, 8192] (default 1280x720; the device may allow less)\n"
		"  --every N         render every Nth frame, [1, 1000000] (default 1)\n"
		"  --fps N           video frame rate, [1, 1000] (default: real time)\n"
		"  --color MODE      texture, speed or strain (default texture)\n"
		"  --view VIEW       cloth, nodes (particles coloured by speed, constraints by strain) or both\n"
		"  --wireframe       draw the cloth's edges too\n"
		"  --camera EX,EY,EZ,TX,TY,TZ[,FOV]  the eye, the point it looks at, the vertical field of view in\n"
		"                    degrees (default 45); default: the preset's view, or one that frames the\n"
		"                    scene's cloths as they start\n",
		true,
		"  Every option is checked, used or not. A device or FIFO given as --stats, --usd or --video is\n"
		"  written in place; other outputs are written under a temporary name and renamed when complete.\n"
		"  Ctrl-C (SIGINT) or SIGTERM stops after the frame in progress and keeps what was finished: the\n"
		"  OBJ and PNG frames, the CSV, the USD layer and the video of those frames (exit code 130); a\n"
		"  second one stops at once. Temporaries left by a killed run are removed by the next run into the\n"
		"  same place. A run in which every frame was discarded (the step blew up each time) fails with\n"
		"  exit code 1, and writes no statistics, USD or video; one in which more than half were discarded\n"
		"  writes its outputs and fails with exit code 1 too (what it shows is mostly frame starts kept).\n"},
	{"bench", CliBench,
		"weft bench (--scene FILE.json | --preset NAME) [options]\n"
		"  Times frames after a warm-up: median, p10 and p90 ms per frame, particle-substeps and\n"
		"  constraint projections per second; on a GPU with measured figures (the H200), the floor of a\n"
		"  frame. Progress goes to stderr when it is a terminal.\n"
		"  --frames N        timed frames, [1, 10000000] (default 200)\n"
		"  --warmup N        untimed frames first, [0, 1000000] (default 20)\n"
		"  --stages          also the median ms of each stage of a frame (timestamps on the GPU)\n"
		"  --intersections   count the intersections after the last frame (not timed)\n",
		true, NULL},
	{"sweep", CliSweep,
		"weft sweep FILE.json --out DIR [options]\n"
		"  A parameter study (docs/SWEEP.md): the sweep file's base scene with axes over scene-file paths\n"
		"  (\"world.step.substeps\": [8, 16], \"cloth.material.bendCompliance\": {\"log\": [1e-6, 1e-1], \"n\": 20}),\n"
		"  every combination one variant. Variants with the same world share one batched world. Writes\n"
		"  DIR/summary.csv (one row per variant: its values, final energies, strain, sag, warnings) and\n"
		"  DIR/variants/vNNNNNN.{scene.json,stats.csv,final.npy,frames.npy}. Run again, it runs only the\n"
		"  variants without a result (after Ctrl-C, exit code 130). Under mpirun -np N (a build with MPI)\n"
		"  the ranks share the variants and write the same files.\n"
		"  --out DIR         the results' folder (created if missing; one sweep per folder)\n"
		"  --batch N         cloths per batched world, [1, 1024] (default: 1024 on Vulkan, 1 on the CPU)\n"
		"  --backend B       auto, cpu or vulkan (default: the scene's)\n"
		"  --threads N       CPU worker threads per process, [0, 1024], 0 = all cores\n"
		"  --devices LIST    comma-separated Vulkan devices (parts of names, or #N as in weft info), one per\n"
		"                    process of a host (by local rank; default: the local rank's hardware device)\n"
		"  --schedule S      static (contiguous blocks of batches per rank, default) or queue (the next\n"
		"                    batch from a counter on rank 0, dearest first)\n"
		"  --list            print the variants and their batches as CSV, run nothing\n"
		"  --quiet           no progress line, no summary line\n",
		false, NULL},
	{"presets", CliPresets, "weft presets\n  Lists the built-in scenes.\n", false, NULL},
	{"info", CliInfo,
		"weft info\n  Prints the version, the backends built in, the Vulkan devices found and whether the\n"
		"  renderer, ffmpeg and MPI are available.\n",
		false, NULL},
	{"help", Help,
		"weft help [COMMAND | fields]\n  Prints this help, or one command's; fields: every def field that --set takes, with its\n"
		"  range and default.\n",
		false, NULL},
};

#define COMMAND_COUNT ((int)(sizeof kCommands / sizeof kCommands[0]))

static const Command* FindCommand(const char* name)
{
	for (int i = 0; i < COMMAND_COUNT; ++i) {
		if (strcmp(kCommands[i].name, name) == 0)
			return &kCommands[i];
	}
	return NULL;
}

void CliPrintHelp(const char* command)
{
	const Command* c = command != NULL ? FindCommand(command) : NULL;
	if (c != NULL) {
		printf("%s", c->usage);
		if (c->defOptions)
			CliPrintDefOptions();
		if (c->notes != NULL)
			printf("%s", c->notes);
		return;
	}
	printf("weft %d.%d.%d: real-time cloth simulation\n\n", WF_VERSION_MAJOR, WF_VERSION_MINOR, WF_VERSION_PATCH);
	for (int i = 0; i < COMMAND_COUNT; ++i) {
		printf("%s", kCommands[i].usage);
		if (kCommands[i].defOptions)
			CliPrintDefOptions();
		printf("%s\n", kCommands[i].notes != NULL ? kCommands[i].notes : "");
	}
	printf("Exit codes: 0 success, 1 runtime failure, 2 bad arguments or scene file, 130 interrupted.\n");
}

static int Help(int argc, char** argv)
{
	if (argc > 2 && strcmp(argv[2], "fields") == 0) {
		CliPrintFields();
		return CLI_EXIT_OK;
	}
	if (argc > 2 && FindCommand(argv[2]) == NULL) {
		fprintf(stderr, "weft help: unknown command '%s' (allowed: run, bench, sweep, presets, info, help, fields)\n", argv[2]);
		return CLI_EXIT_USAGE;
	}
	CliPrintHelp(argc > 2 ? argv[2] : NULL);
	return CLI_EXIT_OK;
}

int main(int argc, char** argv)
{
	if (argc < 2) {
		fprintf(stderr, "weft: no command given (allowed: run, bench, sweep, presets, info, help, --version)\n");
		return CLI_EXIT_USAGE;
	}
	const char* name = argv[1];
	if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
		name = "help";
	if (strcmp(name, "--version") == 0) {
		printf("weft %d.%d.%d\n", WF_VERSION_MAJOR, WF_VERSION_MINOR, WF_VERSION_PATCH);
		return CLI_EXIT_OK;
	}
	const Command* c = FindCommand(name);
	if (c == NULL) {
		fprintf(stderr, "weft: unknown command '%s' (allowed: run, bench, sweep, presets, info, help, --version)\n", argv[1]);
		return CLI_EXIT_USAGE;
	}
	return c->run(argc, argv);
}
