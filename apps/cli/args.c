// Command-line options of `weft run` and `weft bench`: one table, one parser.
// Accepts "--name value" and "--name=value"; every message names the option and what it allows.
#define _XOPEN_SOURCE 700 // stat
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef enum OptionKind {
	OPT_FLAG,    // bool, no value
	OPT_TEXT,    // const char*
	OPT_INT,     // int in [min, max]
	OPT_PAIR,    // AxB into two adjacent ints (--grid COLSxROWS, --size WxH)
	OPT_SOLVER,  // a solver name, stored as int
	OPT_BACKEND, // a backend name, stored as int
	OPT_NAME,    // const char*, one of the spec's names (checked even when nothing uses it)
	OPT_FLOAT,   // float in [lo, hi]
	OPT_SWITCH,  // on or off, stored as int 1 or 0
	OPT_CAMERA,  // EX,EY,EZ,TX,TY,TZ[,FOV] into CliRenderOptions.camera, setting cameraSet
} OptionKind;

typedef struct OptionSpec {
	const char* name; // without the leading "--"
	OptionKind kind;
	unsigned commands;
	size_t offset;    // into CliOptions
	int min, max;     // OPT_INT, OPT_GRID
	const char* hint; // OPT_TEXT: what the value is; OPT_NAME: the allowed names, ", "-separated
	const char* noun; // OPT_NAME: what a name is ("a colour mode")
	double lo, hi;    // OPT_FLOAT
} OptionSpec;

#define BOTH (CLI_CMD_RUN | CLI_CMD_BENCH)
#define AT(member) offsetof(CliOptions, member)

// The ranges are those the public header documents for the defs the options set.
static const OptionSpec kOptions[] = {
	{"scene", OPT_TEXT, BOTH, AT(scene), 0, 0, "a JSON scene file", NULL, 0, 0},
	{"preset", OPT_TEXT, BOTH, AT(preset), 0, 0, "a preset name (see weft presets)", NULL, 0, 0},
	{"frames", OPT_INT, BOTH, AT(frames), 1, WF_MAX_SCENE_FRAMES, NULL, NULL, 0, 0},
	{"warmup", OPT_INT, CLI_CMD_BENCH, AT(warmup), 0, 1000000, NULL, NULL, 0, 0},
	{"solver", OPT_SOLVER, BOTH, AT(overrides.solver), 0, 0, NULL, NULL, 0, 0},
	{"grid", OPT_PAIR, BOTH, AT(overrides.cols), 1, 8192, "COLSxROWS", NULL, 0, 0},
	{"substeps", OPT_INT, BOTH, AT(overrides.substeps), 1, 4096, NULL, NULL, 0, 0},
	{"iterations", OPT_INT, BOTH, AT(overrides.iterations), 1, 1024, NULL, NULL, 0, 0},
	{"backend", OPT_BACKEND, BOTH, AT(overrides.backend), 0, 0, NULL, NULL, 0, 0},
	{"threads", OPT_INT, BOTH, AT(overrides.threads), 0, 1024, NULL, NULL, 0, 0},
	{"self-collision", OPT_SWITCH, BOTH, AT(overrides.selfCollision), 0, 0, NULL, NULL, 0, 0},
	{"between-cloths", OPT_SWITCH, BOTH, AT(overrides.betweenCloths), 0, 0, NULL, NULL, 0, 0},
	{"self-thickness", OPT_FLOAT, BOTH, AT(overrides.selfThickness), 0, 0, NULL, NULL, 0, 0}, // ranges: kDefRanges
	{"self-friction", OPT_FLOAT, BOTH, AT(overrides.selfFriction), 0, 0, NULL, NULL, 0, 0},
	{"tear-strain", OPT_FLOAT, BOTH, AT(overrides.tearStrain), 0, 0, NULL, NULL, 0, 0},
	{"obj", OPT_TEXT, CLI_CMD_RUN, AT(objDir), 0, 0, "a folder", NULL, 0, 0},
	{"overwrite", OPT_FLAG, CLI_CMD_RUN, AT(overwrite), 0, 0, NULL, NULL, 0, 0},
	{"stats", OPT_TEXT, CLI_CMD_RUN, AT(statsPath), 0, 0, "a CSV file path", NULL, 0, 0},
	{"gltf", OPT_TEXT, CLI_CMD_RUN, AT(gltfPath), 0, 0, "a .glb file path (binary glTF 2.0)", NULL, 0, 0},
	{"usd", OPT_TEXT, CLI_CMD_RUN, AT(usdPath), 0, 0, "a .usda (or .usd) file path: ASCII USD", NULL, 0, 0},
	{"quiet", OPT_FLAG, CLI_CMD_RUN, AT(quiet), 0, 0, NULL, NULL, 0, 0},
	{"stages", OPT_FLAG, CLI_CMD_BENCH, AT(stages), 0, 0, NULL, NULL, 0, 0},
	{"intersections", OPT_FLAG, BOTH, AT(intersections), 0, 0, NULL, NULL, 0, 0},
	{"png", OPT_TEXT, CLI_CMD_RUN, AT(render.pngDir), 0, 0, "a folder", NULL, 0, 0},
	{"video", OPT_TEXT, CLI_CMD_RUN, AT(render.videoPath), 0, 0, "an .mp4 file path", NULL, 0, 0},
	// 8192: the widest frame of H.264's largest level (6.2); the renderer also checks the device.
	{"size", OPT_PAIR, CLI_CMD_RUN, AT(render.width), 16, CLI_MAX_IMAGE_SIDE, "WIDTHxHEIGHT", NULL, 0, 0},
	{"every", OPT_INT, CLI_CMD_RUN, AT(render.every), 1, 1000000, NULL, NULL, 0, 0},
	{"fps", OPT_INT, CLI_CMD_RUN, AT(render.fps), 1, 1000, NULL, NULL, 0, 0},
	{"color", OPT_NAME, CLI_CMD_RUN, AT(render.color), 0, 0, "texture, speed, strain", "a colour mode", 0, 0},
	{"view", OPT_NAME, CLI_CMD_RUN, AT(render.view), 0, 0, "cloth, nodes, both", "a view", 0, 0},
	{"wireframe", OPT_FLAG, CLI_CMD_RUN, AT(render.wireframe), 0, 0, NULL, NULL, 0, 0},
	{"camera", OPT_CAMERA, CLI_CMD_RUN, AT(render.camera), 0, 0, NULL, NULL, 1.0, 170.0},
};

#define OPTION_COUNT ((int)(sizeof kOptions / sizeof kOptions[0]))

// The integer options that set a def field take that field's range from the library's table
// (wfFindDefField) instead of the numbers above.
static const struct {
	const char* option;
	wfDefType def;
	const char* field;
} kDefRanges[] = {
	{"grid", WF_DEF_CLOTH, "cols"}, // and rows, which has the same range
	{"substeps", WF_DEF_STEP, "substeps"},
	{"iterations", WF_DEF_STEP, "iterations"},
	{"threads", WF_DEF_WORLD, "threads"},
	{"self-thickness", WF_DEF_WORLD, "selfCollision.thickness"},
	{"self-friction", WF_DEF_WORLD, "selfCollision.friction"},
	{"tear-strain", WF_DEF_CLOTH, "material.tearStrain"},
};

static const wfFieldInfo* DefField(const OptionSpec* o)
{
	for (size_t i = 0; i < sizeof kDefRanges / sizeof kDefRanges[0]; ++i) {
		if (strcmp(kDefRanges[i].option, o->name) == 0)
			return wfFindDefField(kDefRanges[i].def, kDefRanges[i].field);
	}
	return NULL;
}

// An integer option's range: its def field's, or its own.
static void Range(const OptionSpec* o, long* min, long* max)
{
	const wfFieldInfo* f = DefField(o);
	*min = f != NULL ? (long)f->min : o->min;
	*max = f != NULL ? (long)f->max : o->max;
}

// A number option's range: its def field's, or its own.
static void FloatRange(const OptionSpec* o, double* lo, double* hi)
{
	const wfFieldInfo* f = DefField(o);
	*lo = f != NULL ? (double)f->min : o->lo;
	*hi = f != NULL ? (double)f->max : o->hi;
}

static const char* CommandName(unsigned command) { return command == CLI_CMD_RUN ? "run" : "bench"; }

static const char* SolverAt(int v) { return wfSolverName((wfSolverType)v); }
static const char* BackendAt(int v) { return wfBackendName((wfBackendType)v); }

// "one of a, b, c" from a library name function (the library's own list: "?" past the last value).
static void ListNames(const char* lead, const char* (*name)(int), char* out, size_t size)
{
	size_t used = (size_t)snprintf(out, size, "%s ", lead);
	for (int v = 0; used < size && strcmp(name(v), "?") != 0; ++v)
		used += (size_t)snprintf(out + used, size - used, "%s%s", v > 0 ? ", " : "", name(v));
}

// What an option allows, for messages.
static void Allowed(const OptionSpec* o, char* out, size_t size)
{
	long min, max;
	Range(o, &min, &max);
	switch (o->kind) {
	case OPT_INT: snprintf(out, size, "an integer in [%ld, %ld]", min, max); break;
	case OPT_PAIR:
		snprintf(out, size, "%s, each in [%ld, %ld]%s", o->hint, min, max, o->offset == AT(overrides.cols) ? ", at least 2 particles" : "");
		break;
	case OPT_SOLVER: ListNames("one of", SolverAt, out, size); break;
	case OPT_BACKEND: ListNames("one of", BackendAt, out, size); break;
	case OPT_TEXT: snprintf(out, size, "%s", o->hint); break;
	case OPT_NAME: snprintf(out, size, "one of %s", o->hint); break;
	case OPT_FLAG: snprintf(out, size, "no value"); break;
	case OPT_FLOAT: {
		double lo, hi;
		FloatRange(o, &lo, &hi);
		snprintf(out, size, "a number in [%g, %g]", lo, hi);
		break;
	}
	case OPT_SWITCH: snprintf(out, size, "on or off"); break;
	case OPT_CAMERA:
		snprintf(out, size, "EX,EY,EZ,TX,TY,TZ[,FOV]: eye and target each within 1e6 and apart, FOV in [%g, %g] degrees", o->lo, o->hi);
		break;
	}
}

static int Bad(unsigned command, const OptionSpec* o, const char* value, const char* problem)
{
	char allowed[160];
	Allowed(o, allowed, sizeof allowed);
	fprintf(stderr, "weft %s: --%s: '%s' %s (allowed: %s)\n", CommandName(command), o->name, value, problem, allowed);
	return CLI_EXIT_USAGE;
}

// A whole string as a decimal integer.
static bool ParseInt(const char* text, long* out)
{
	char* end = NULL;
	errno = 0;
	long v = strtol(text, &end, 10);
	if (text[0] == 0 || *end != 0 || errno == ERANGE)
		return false;
	*out = v;
	return true;
}

static int StoreInt(unsigned command, const OptionSpec* o, const char* value, int* out)
{
	long v, min, max;
	Range(o, &min, &max);
	if (!ParseInt(value, &v))
		return Bad(command, o, value, "is not an integer");
	if (v < min || v > max)
		return Bad(command, o, value, "is out of range");
	*out = (int)v;
	return CLI_EXIT_OK;
}

static int StoreFloat(unsigned command, const OptionSpec* o, const char* value, float* out)
{
	char* end = NULL;
	errno = 0;
	double v = strtod(value, &end);
	if (value[0] == 0 || *end != 0 || errno == ERANGE || v != v)
		return Bad(command, o, value, "is not a number");
	double lo, hi;
	FloatRange(o, &lo, &hi);
	if (v < lo || v > hi)
		return Bad(command, o, value, "is out of range");
	*out = (float)v;
	return CLI_EXIT_OK;
}

// EX,EY,EZ,TX,TY,TZ[,FOV]: a camera at the eye looking at the target (FOV 45 when left out).
static int StoreCamera(unsigned command, const OptionSpec* o, const char* value, CliRenderOptions* render)
{
	float v[7] = {0, 0, 0, 0, 0, 0, 45.0f};
	int count = 0;
	bool complete = false; // the last number ended the value
	const char* at = value;
	while (count < 7) {
		char* end = NULL;
		errno = 0;
		double x = strtod(at, &end);
		if (end == at || errno == ERANGE || x != x || x < -1e6 || x > 1e6)
			return Bad(command, o, value, "is not a list of numbers within 1e6");
		v[count++] = (float)x;
		if (*end == 0) {
			complete = true;
			break;
		}
		if (*end != ',')
			return Bad(command, o, value, "is not a list of numbers within 1e6");
		at = end + 1;
	}
	if (!complete || count < 6)
		return Bad(command, o, value, "does not have 6 or 7 numbers");
	const float dx = v[3] - v[0], dy = v[4] - v[1], dz = v[5] - v[2];
	if (dx * dx + dy * dy + dz * dz < 1e-12f)
		return Bad(command, o, value, "has the eye at the target");
	if (v[6] < o->lo || v[6] > o->hi)
		return Bad(command, o, value, "has its field of view out of range");
	memcpy(render->camera, v, sizeof v);
	render->cameraSet = true;
	return CLI_EXIT_OK;
}

static int StorePair(unsigned command, const OptionSpec* o, const char* value, int* out)
{
	char text[64];
	snprintf(text, sizeof text, "%s", value);
	char* x = strchr(text, 'x');
	long cols, rows, min, max;
	Range(o, &min, &max);
	char problem[64];
	snprintf(problem, sizeof problem, "is not %s", o->hint);
	if (x == NULL || strlen(value) >= sizeof text)
		return Bad(command, o, value, problem);
	*x = 0;
	if (!ParseInt(text, &cols) || !ParseInt(x + 1, &rows))
		return Bad(command, o, value, problem);
	if (cols < min || cols > max || rows < min || rows > max || cols * rows < 2)
		return Bad(command, o, value, "is out of range");
	out[0] = (int)cols;
	out[1] = (int)rows;
	return CLI_EXIT_OK;
}

// Whether value is one of the ", "-separated names.
static bool IsOneOf(const char* value, const char* names)
{
	size_t length = strlen(value);
	for (const char* at = names; *at != 0;) {
		const char* end = strchr(at, ',');
		size_t n = end != NULL ? (size_t)(end - at) : strlen(at);
		if (n == length && strncmp(at, value, n) == 0)
			return true;
		at += n;
		while (*at == ',' || *at == ' ')
			++at;
	}
	return false;
}

// Whether path ends in ext (".mp4"), letters in either case.
static bool EndsWith(const char* path, const char* ext)
{
	size_t n = strlen(path), e = strlen(ext);
	if (n <= e)
		return false;
	for (size_t i = 0; i < e; ++i) {
		char c = path[n - e + i];
		if ((c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c) != ext[i])
			return false;
	}
	return true;
}

// Whether path is a device or FIFO (/dev/null, a pipe to a player): it takes the stream whatever its name.
static bool IsStream(const char* path)
{
	struct stat st;
	return stat(path, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode));
}

static int StoreValue(unsigned command, const OptionSpec* o, const char* value, CliOptions* options)
{
	char* at = (char*)options + o->offset;
	wfSolverType solver;
	wfBackendType backend;
	switch (o->kind) {
	case OPT_FLAG: *(bool*)at = true; return CLI_EXIT_OK;
	case OPT_TEXT:
		if (value[0] == 0)
			return Bad(command, o, value, "is empty");
		// The video is always H.264 in MP4: a file name that promises another container is refused.
		if (o->offset == AT(render.videoPath) && !EndsWith(value, ".mp4") && !IsStream(value))
			return Bad(command, o, value, "does not end in .mp4");
		// Binary glTF only: a .gltf (JSON with a side .bin) is not written.
		if (o->offset == AT(gltfPath) && !EndsWith(value, ".glb") && !IsStream(value))
			return Bad(command, o, value, "does not end in .glb");
		// The cache is ASCII USD; binary crate files (.usdc, and .usdz packages of them) are not written.
		if (o->offset == AT(usdPath) && (EndsWith(value, ".usdc") || EndsWith(value, ".usdz")) && !IsStream(value))
			return Bad(command, o, value, "is a binary USD name: weft writes ASCII USD only; give a .usda file name");
		if (o->offset == AT(usdPath) && !EndsWith(value, ".usda") && !EndsWith(value, ".usd") && !IsStream(value))
			return Bad(command, o, value, "does not end in .usda");
		*(const char**)at = value;
		return CLI_EXIT_OK;
	case OPT_INT: return StoreInt(command, o, value, (int*)at);
	case OPT_FLOAT: return StoreFloat(command, o, value, (float*)at);
	case OPT_SWITCH:
		if (strcmp(value, "on") != 0 && strcmp(value, "off") != 0)
			return Bad(command, o, value, "is not on or off");
		*(int*)at = strcmp(value, "on") == 0;
		return CLI_EXIT_OK;
	case OPT_PAIR: return StorePair(command, o, value, (int*)at);
	case OPT_CAMERA: return StoreCamera(command, o, value, &options->render);
	case OPT_SOLVER:
		if (!wfSolverFromName(value, &solver))
			return Bad(command, o, value, "is not a solver");
		*(int*)at = (int)solver;
		return CLI_EXIT_OK;
	case OPT_BACKEND:
		if (!wfBackendFromName(value, &backend))
			return Bad(command, o, value, "is not a backend");
		*(int*)at = (int)backend;
		return CLI_EXIT_OK;
	case OPT_NAME:
		if (!IsOneOf(value, o->hint)) {
			char problem[64];
			snprintf(problem, sizeof problem, "is not %s", o->noun);
			return Bad(command, o, value, problem);
		}
		*(const char**)at = value;
		return CLI_EXIT_OK;
	}
	return CLI_EXIT_USAGE;
}

static const OptionSpec* FindOption(const char* name, size_t length)
{
	for (int i = 0; i < OPTION_COUNT; ++i) {
		if (strlen(kOptions[i].name) == length && strncmp(kOptions[i].name, name, length) == 0)
			return &kOptions[i];
	}
	return NULL;
}

static void SetDefaults(CliOptions* o)
{
	memset(o, 0, sizeof *o);
	o->frames = CLI_KEEP;
	o->warmup = CLI_KEEP;
	o->render.width = 1280;
	o->render.height = 720;
	o->render.every = 1;
	o->render.fps = CLI_KEEP;
	o->overrides = (CliOverrides){.solver = CLI_KEEP,
		.backend = CLI_KEEP,
		.cols = CLI_KEEP,
		.rows = CLI_KEEP,
		.substeps = CLI_KEEP,
		.iterations = CLI_KEEP,
		.threads = CLI_KEEP};
	o->overrides.selfCollision = CLI_KEEP;
	o->overrides.betweenCloths = CLI_KEEP;
	o->overrides.selfThickness = -1.0f;
	o->overrides.selfFriction = -1.0f;
	o->overrides.tearStrain = -1.0f;
}

// One "--name[=value]" at argv[*i]; advances *i past a separate value.
static int ParseOne(unsigned command, int argc, char** argv, int* i, CliOptions* options)
{
	const char* arg = argv[*i];
	if (strncmp(arg, "--", 2) != 0) {
		fprintf(stderr, "weft %s: unexpected argument '%s' (options start with --; see weft help %s)\n", CommandName(command), arg,
			CommandName(command));
		return CLI_EXIT_USAGE;
	}
	const char* name = arg + 2;
	const char* eq = strchr(name, '=');
	size_t length = eq != NULL ? (size_t)(eq - name) : strlen(name);
	const OptionSpec* o = FindOption(name, length);
	if (o == NULL || (o->commands & command) == 0) {
		fprintf(stderr, "weft %s: unknown option '--%.*s' (see weft help %s)\n", CommandName(command), (int)length, name,
			CommandName(command));
		return CLI_EXIT_USAGE;
	}
	if (o->kind == OPT_FLAG)
		return eq != NULL ? Bad(command, o, eq + 1, "is not expected") : StoreValue(command, o, "", options);
	const char* value = eq != NULL ? eq + 1 : (*i + 1 < argc ? argv[++*i] : NULL);
	if (value == NULL)
		return Bad(command, o, "", "is missing");
	// "--obj --quiet" forgot the folder: the next option is not taken as one ("--obj=--x" still is).
	if (eq == NULL && strncmp(value, "--", 2) == 0)
		return Bad(command, o, value, "is an option, not a value");
	return StoreValue(command, o, value, options);
}

int CliParseOptions(unsigned command, int argc, char** argv, int first, CliOptions* options)
{
	SetDefaults(options);
	for (int i = first; i < argc; ++i) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			CliPrintHelp(CommandName(command));
			return CLI_EXIT_HELP;
		}
		int code = ParseOne(command, argc, argv, &i, options);
		if (code != CLI_EXIT_OK)
			return code;
	}
	if ((options->scene == NULL) == (options->preset == NULL)) {
		fprintf(stderr, "weft %s: give exactly one of --scene FILE.json or --preset NAME (see weft presets)\n", CommandName(command));
		return CLI_EXIT_USAGE;
	}
	return CLI_EXIT_OK;
}
