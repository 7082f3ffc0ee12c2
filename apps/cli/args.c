// Command-line options of `weft run` and `weft bench`: one table, one parser.
// Accepts "--name value" and "--name=value"; every message names the option and what it allows.
// The options that set a def field are rows of kDefOptions, a name and a path into the library's
// def table (wfDefFields), which gives the value's type, range and names; --set PATH=VALUE takes
// any field of the world or cloth def the same way.
#define _XOPEN_SOURCE 700 // stat
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef enum OptionKind {
	OPT_FLAG,   // bool, no value
	OPT_TEXT,   // const char*
	OPT_INT,    // int in [min, max]
	OPT_PAIR,   // AxB into two adjacent ints (--size WxH)
	OPT_GRID,   // COLSxROWS: two overrides, every cloth's cols and rows (their range from the def table)
	OPT_SET,    // PATH=VALUE: an override of any settable world or cloth def field
	OPT_NAME,   // const char*, one of the spec's names (checked even when nothing uses it)
	OPT_CAMERA, // EX,EY,EZ,TX,TY,TZ[,FOV] into CliRenderOptions.camera, setting cameraSet
} OptionKind;

typedef struct OptionSpec {
	const char* name; // without the leading "--"
	OptionKind kind;
	unsigned commands;
	size_t offset;    // into CliOptions
	int min, max;     // OPT_INT, OPT_PAIR
	const char* hint; // OPT_TEXT: what the value is; OPT_NAME: the allowed names, ", "-separated
	const char* noun; // OPT_NAME: what a name is ("a colour mode")
	double lo, hi;    // OPT_CAMERA: the field of view's range
} OptionSpec;

#define BOTH (CLI_CMD_RUN | CLI_CMD_BENCH)
#define AT(member) offsetof(CliOptions, member)

// The options that are no single def field; those that are follow in kDefOptions.
static const OptionSpec kOptions[] = {
	{"scene", OPT_TEXT, BOTH, AT(scene), 0, 0, "a JSON scene file", NULL, 0, 0},
	{"preset", OPT_TEXT, BOTH, AT(preset), 0, 0, "a preset name (see weft presets)", NULL, 0, 0},
	{"frames", OPT_INT, BOTH, AT(frames), 1, WF_MAX_SCENE_FRAMES, NULL, NULL, 0, 0},
	{"warmup", OPT_INT, CLI_CMD_BENCH, AT(warmup), 0, 1000000, NULL, NULL, 0, 0},
	{"grid", OPT_GRID, BOTH, AT(overrides), 0, 0, "COLSxROWS", NULL, 0, 0}, // range: the def table's cols
	{"set", OPT_SET, BOTH, AT(overrides), 0, 0, NULL, NULL, 0, 0},
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

// The options that set one def field: the field's type, range and names are the table's. Cloth
// fields are set on every cloth. Help text: weft help run (CliPrintDefOptions).
typedef struct DefOption {
	const char* name; // without the leading "--"
	wfDefType def;    // WF_DEF_WORLD or WF_DEF_CLOTH
	const char* path; // wfFindDefField's path from def
	const char* meta; // the value in the help ("N")
	const char* help; // what it does; the range is added from the table
} DefOption;

static const DefOption kDefOptions[] = {
	{"solver", WF_DEF_WORLD, "step.solver", "S", "the solver"},
	{"substeps", WF_DEF_WORLD, "step.substeps", "N", "substeps per frame"},
	{"iterations", WF_DEF_WORLD, "step.iterations", "N", "iterations per substep (jacobi: sweeps, any count; an odd one adds a copy back)"},
	{"backend", WF_DEF_WORLD, "backend", "B", "where the world runs"},
	{"threads", WF_DEF_WORLD, "threads", "N", "CPU worker threads, 0 = all cores"},
	{"self-collision", WF_DEF_WORLD, "selfCollision.enabled", "on|off", "particles of each cloth kept 2 x thickness apart"},
	{"between-cloths", WF_DEF_WORLD, "selfCollision.betweenCloths", "on|off", "the same between the cloths of the world"},
	{"self-thickness", WF_DEF_WORLD, "selfCollision.thickness", "M", "self-collision thickness, m"},
	{"self-friction", WF_DEF_WORLD, "selfCollision.friction", "F", "self-collision friction"},
	{"tear-strain", WF_DEF_CLOTH, "material.tearStrain", "S", "every cloth tears where a stretch constraint's strain passes S (0: never)"},
};

#define DEF_OPTION_COUNT ((int)(sizeof kDefOptions / sizeof kDefOptions[0]))

// --grid's range: the def table's cols (rows has the same).
static void Range(const OptionSpec* o, long* min, long* max)
{
	const wfFieldInfo* f = o->kind == OPT_GRID ? wfFindDefField(WF_DEF_CLOTH, "cols") : NULL;
	*min = f != NULL ? (long)f->min : o->min;
	*max = f != NULL ? (long)f->max : o->max;
}

static const char* CommandName(unsigned command) { return command == CLI_CMD_RUN ? "run" : "bench"; }

// What an option allows, for messages.
static void Allowed(const OptionSpec* o, char* out, size_t size)
{
	long min, max;
	Range(o, &min, &max);
	switch (o->kind) {
	case OPT_INT: snprintf(out, size, "an integer in [%ld, %ld]", min, max); break;
	case OPT_PAIR:
	case OPT_GRID:
		snprintf(out, size, "%s, each in [%ld, %ld]%s", o->hint, min, max, o->kind == OPT_GRID ? ", at least 2 particles" : "");
		break;
	case OPT_SET:
		snprintf(out, size,
			"PATH=VALUE: a field of the world or cloth def, such as step.substeps=20 or cloth.material.damping=0.5 (see weft help fields)");
		break;
	case OPT_TEXT: snprintf(out, size, "%s", o->hint); break;
	case OPT_NAME: snprintf(out, size, "one of %s", o->hint); break;
	case OPT_FLAG: snprintf(out, size, "no value"); break;
	case OPT_CAMERA:
		snprintf(out, size, "EX,EY,EZ,TX,TY,TZ[,FOV]: eye and target each within 1e6 and apart, FOV in [%g, %g] degrees", o->lo, o->hi);
		break;
	}
}

static int Report(unsigned command, const char* option, const char* value, const char* problem, const char* allowed)
{
	fprintf(stderr, "weft %s: --%s: '%s' %s (allowed: %s)\n", CommandName(command), option, value, problem, allowed);
	return CLI_EXIT_USAGE;
}

static int Bad(unsigned command, const OptionSpec* o, const char* value, const char* problem)
{
	char allowed[256];
	Allowed(o, allowed, sizeof allowed);
	return Report(command, o->name, value, problem, allowed);
}

// A value outside what a def field takes; the option is "substeps" or "set step.substeps".
static int BadField(unsigned command, const char* option, const wfFieldInfo* f, const char* value, const char* problem)
{
	char allowed[320];
	wfFieldsAllowed(f, allowed, sizeof allowed);
	return Report(command, option, value, problem, allowed);
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

// Adds a parsed def field to the overrides.
static int AddOverride(unsigned command, const char* option, const char* text, wfDefType def, const char* path, const wfFieldValue* value,
	CliOverrides* list)
{
	if (list->count == CLI_MAX_OVERRIDES) {
		char allowed[64];
		snprintf(allowed, sizeof allowed, "at most %d def fields set", CLI_MAX_OVERRIDES);
		return Report(command, option, text, "is one too many", allowed);
	}
	CliOverride* o = &list->items[list->count++];
	o->def = def;
	o->field = wfFindDefFieldAt(def, path, &o->offset);
	o->value = *value;
	o->option = option;
	o->text = text;
	return CLI_EXIT_OK;
}

// A named def-field option (--substeps 20): parsed and checked by the table's row.
static int StoreDef(unsigned command, const DefOption* d, const char* value, CliOverrides* list)
{
	const wfFieldInfo* f = wfFindDefField(d->def, d->path);
	wfFieldValue v;
	char problem[96];
	if (!wfFieldsParse(f, value, false, &v, problem, sizeof problem))
		return BadField(command, d->name, f, value, problem);
	return AddOverride(command, d->name, value, d->def, d->path, &v, list);
}

// --set PATH=VALUE. PATH is a world def path ("step.substeps", "world.step.substeps") or a cloth def
// path ("cloth.material.damping", or without "cloth." where the world has no such member).
static int StoreSet(unsigned command, const OptionSpec* o, const char* value, CliOverrides* list)
{
	const char* eq = strchr(value, '=');
	char path[128];
	if (eq == NULL || eq == value || (size_t)(eq - value) >= sizeof path)
		return Bad(command, o, value, "is not PATH=VALUE");
	snprintf(path, sizeof path, "%.*s", (int)(eq - value), value);
	const char* text = eq + 1;
	wfDefType def = WF_DEF_WORLD;
	const char* p = path;
	if (strncmp(p, "world.", 6) == 0)
		p += 6;
	else if (strncmp(p, "cloth.", 6) == 0) {
		p += 6;
		def = WF_DEF_CLOTH;
	} else if (wfFindDefField(WF_DEF_WORLD, p) == NULL)
		def = WF_DEF_CLOTH;
	const wfFieldInfo* f = wfFindDefField(def, p);
	char option[160];
	snprintf(option, sizeof option, "set %s", path);
	if (f == NULL)
		return Report(command, o->name, path, "is not a field of the world or cloth def",
			"a path that weft help fields lists, such as step.substeps or cloth.material.damping");
	if (f->type == WF_FIELD_STRUCT) {
		// A group: name its members.
		char allowed[512];
		int count = 0;
		const wfFieldInfo* members = wfDefFields(f->nested, &count);
		size_t used = (size_t)snprintf(allowed, sizeof allowed, "one of its fields:");
		for (int i = 0; i < count && used < sizeof allowed; ++i)
			used += (size_t)snprintf(allowed + used, sizeof allowed - used, "%s %s.%s", i > 0 ? "," : "", path, members[i].name);
		return Report(command, option, text, "is given to a group of fields", allowed);
	}
	if (!wfFieldsSettable(f))
		return Report(command, option, text, "cannot be set from the command line", "a scene file's value");
	wfFieldValue v;
	char problem[96];
	if (!wfFieldsParse(f, text, false, &v, problem, sizeof problem))
		return BadField(command, option, f, text, problem);
	return AddOverride(command, "set", value, def, p, &v, list);
}

// --grid COLSxROWS: every cloth's cols and rows.
static int StoreGrid(unsigned command, const OptionSpec* o, const char* value, CliOverrides* list)
{
	int grid[2];
	int code = StorePair(command, o, value, grid);
	wfFieldValue cols = {{grid[0], 0, 0}, value}, rows = {{grid[1], 0, 0}, value};
	if (code == CLI_EXIT_OK)
		code = AddOverride(command, o->name, value, WF_DEF_CLOTH, "cols", &cols, list);
	if (code == CLI_EXIT_OK)
		code = AddOverride(command, o->name, value, WF_DEF_CLOTH, "rows", &rows, list);
	return code;
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
	case OPT_PAIR: return StorePair(command, o, value, (int*)at);
	case OPT_GRID: return StoreGrid(command, o, value, &options->overrides);
	case OPT_SET: return StoreSet(command, o, value, &options->overrides);
	case OPT_CAMERA: return StoreCamera(command, o, value, &options->render);
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

static const DefOption* FindDefOption(const char* name, size_t length)
{
	for (int i = 0; i < DEF_OPTION_COUNT; ++i) {
		if (strlen(kDefOptions[i].name) == length && strncmp(kDefOptions[i].name, name, length) == 0)
			return &kDefOptions[i];
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
	const DefOption* d = o == NULL ? FindDefOption(name, length) : NULL;
	if (d != NULL) {
		// A named def field: its messages say what the table allows.
		const wfFieldInfo* f = wfFindDefField(d->def, d->path);
		const char* value = eq != NULL ? eq + 1 : (*i + 1 < argc ? argv[++*i] : NULL);
		if (value == NULL)
			return BadField(command, d->name, f, "", "is missing");
		if (eq == NULL && strncmp(value, "--", 2) == 0)
			return BadField(command, d->name, f, value, "is an option, not a value");
		return StoreDef(command, d, value, &options->overrides);
	}
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

void CliPrintDefOptions(void)
{
	long min, max;
	Range(FindOption("grid", 4), &min, &max);
	printf("  Def fields (their ranges and names from the library's def table):\n");
	printf("  --grid CxR        particles per row and column of every cloth, each in [%ld, %ld]\n", min, max);
	for (int i = 0; i < DEF_OPTION_COUNT; ++i) {
		const DefOption* d = &kDefOptions[i];
		char head[64], allowed[320];
		snprintf(head, sizeof head, "--%s %s", d->name, d->meta);
		wfFieldsAllowed(wfFindDefField(d->def, d->path), allowed, sizeof allowed);
		printf("  %-17s%s%s: %s\n", head, strlen(head) < 17 ? " " : "  ", d->help, allowed);
	}
	printf("  --set PATH=VALUE  any field of the world def (step.timeStep=0.01, world.gravity=0,-3,0) or of\n"
		   "                    every cloth (cloth.material.damping=0.5); repeatable, applied in order with\n"
		   "                    the options above (a later one wins); weft help fields lists the paths\n");
}

// The settable fields under a def, with their paths from `prefix`.
static void PrintFields(wfDefType def, const char* prefix)
{
	int count = 0;
	const wfFieldInfo* fields = wfDefFields(def, &count);
	for (int i = 0; i < count; ++i) {
		const wfFieldInfo* f = &fields[i];
		char path[160], allowed[320], value[64];
		snprintf(path, sizeof path, "%s.%s", prefix, f->name);
		if (f->type == WF_FIELD_STRUCT) {
			PrintFields(f->nested, path);
			continue;
		}
		if (!wfFieldsSettable(f))
			continue;
		wfFieldsAllowed(f, allowed, sizeof allowed);
		wfFieldsDefault(f, value, sizeof value);
		printf("  %-34s %s (default %s)%s%s\n", path, allowed, value, f->note != NULL ? "; " : "", f->note != NULL ? f->note : "");
	}
}

void CliPrintFields(void)
{
	printf("weft help fields\n"
		   "  The def fields that weft run and weft bench take as --set PATH=VALUE, from the library's def\n"
		   "  table (the scene files' keys). \"world.\" may be left out, and \"cloth.\" where the world has\n"
		   "  no such member; a cloth field is set on every cloth. Booleans are on or off, vectors X,Y,Z.\n");
	PrintFields(WF_DEF_WORLD, "world");
	PrintFields(WF_DEF_CLOTH, "cloth");
}
