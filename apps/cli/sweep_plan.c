// The sweep file (docs/SWEEP.md): a base scene, axes over scene-file paths, explicit variants and
// what to record. Expanded here into one scene text per variant, each parsed by the scene loader.
#if !defined(_XOPEN_SOURCE)
#define _XOPEN_SOURCE 700 // realpath
#endif
#include "sweep_plan.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SWEEP_MAX_AXIS_VALUES 1000000
#define SWEEP_MAX_FILE_BYTES (64 << 20)

typedef struct Loader {
	SweepPlan* plan;
	char* error;
	size_t errorSize;
	int maxVariants;   // SWEEP_MAX_VARIANTS, or fewer (the fuzzer)
	char folder[4096]; // the sweep file's folder, absolute: relative paths in it start there
} Loader;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static bool
Fail(const Loader* l, const char* where, const char* fmt, ...)
{
	char msg[1024];
	va_list args;
	va_start(args, fmt);
	vsnprintf(msg, sizeof msg, fmt, args);
	va_end(args);
	snprintf(l->error, l->errorSize, "%s: %s: %s", l->plan->file, where, msg);
	return false;
}

static const char* TypeName(const cJSON* j)
{
	if (cJSON_IsBool(j))
		return "boolean";
	if (cJSON_IsNull(j))
		return "null";
	if (cJSON_IsNumber(j))
		return "number";
	if (cJSON_IsString(j))
		return "string";
	if (cJSON_IsArray(j))
		return "array";
	if (cJSON_IsObject(j))
		return "object";
	return "invalid value";
}

// ------------------------------------------------------------------ files

// A whole file as text, or NULL with the reason (named by `name`) in the loader's error.
static char* ReadText(const Loader* l, const char* path, const char* name)
{
	FILE* f = fopen(path, "rb");
	if (f == NULL) {
		snprintf(l->error, l->errorSize, "%s: cannot open: %s", name, strerror(errno));
		return NULL;
	}
	size_t used = 0, capacity = 0;
	char* text = NULL;
	for (;;) {
		if (used + 1 >= capacity) {
			size_t grown = capacity == 0 ? 4096 : 2 * capacity;
			char* bigger = grown <= SWEEP_MAX_FILE_BYTES ? (char*)realloc(text, grown) : NULL;
			if (bigger == NULL) {
				snprintf(l->error, l->errorSize, "%s: cannot read: %s", name,
					grown > SWEEP_MAX_FILE_BYTES ? "larger than 64 MiB" : "out of memory");
				free(text);
				fclose(f);
				return NULL;
			}
			text = bigger;
			capacity = grown;
		}
		size_t n = fread(text + used, 1, capacity - 1 - used, f);
		used += n;
		if (n == 0)
			break;
	}
	bool failed = ferror(f) != 0;
	int readErrno = errno;
	fclose(f);
	if (failed) {
		snprintf(l->error, l->errorSize, "%s: cannot read: %s", name, strerror(readErrno));
		free(text);
		return NULL;
	}
	text[used] = 0;
	if (strlen(text) != used) {
		snprintf(l->error, l->errorSize, "%s: a NUL byte; a JSON file is UTF-8 text", name);
		free(text);
		return NULL;
	}
	return text;
}

// cJSON's tree of text; a syntax error names the line and the column.
static cJSON* ParseJson(const Loader* l, const char* text, const char* name)
{
	const char* end = text;
	cJSON* root = cJSON_ParseWithOpts(text, &end, 1);
	if (root != NULL)
		return root;
	if (end == NULL)
		end = text;
	int line = 1, column = 1;
	for (const char* c = text; c < end && *c != 0; ++c) {
		line += *c == '\n';
		column = *c == '\n' ? 1 : column + 1;
	}
	snprintf(l->error, l->errorSize, "%s: line %d, column %d: JSON syntax error%s", name, line, column,
		*end == 0 ? " (unexpected end of file)" : "");
	return NULL;
}

// ------------------------------------------------------------------ paths

typedef struct Segment {
	char key[SWEEP_MAX_PATH];
	int index; // "key[i]": i; -1 without an index
} Segment;

// "world.step.substeps", "cloths[1].material.mass": keys of letters, digits and '_', each with an
// optional [index]. Returns the segment count, 0 for a malformed path.
static int SplitPath(const char* path, Segment* out, int capacity)
{
	int count = 0;
	const char* c = path;
	while (*c != 0 && count < capacity) {
		Segment* s = &out[count++];
		int n = 0;
		while ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_') {
			if (n + 1 >= (int)sizeof s->key)
				return 0;
			s->key[n++] = *c++;
		}
		s->key[n] = 0;
		s->index = -1;
		if (n == 0)
			return 0;
		if (*c == '[') {
			char* end;
			long i = strtol(c + 1, &end, 10);
			if (end == c + 1 || *end != ']' || i < 0 || i > 1000000 || c[1] == '-' || c[1] == '+')
				return 0;
			s->index = (int)i;
			c = end + 1;
		}
		if (*c == '.' && c[1] != 0)
			++c;
		else if (*c != 0)
			return 0;
	}
	return *c == 0 ? count : 0;
}

// Sets value at segments [at, count) below node. Objects missing on the way are created (the base
// scene need not spell out what it leaves at the default); an index needs the array in the base.
// "cloth" on a scene with "cloths" sets the field in every cloth.
static bool SetAt(cJSON* node, const Segment* s, int at, int count, const cJSON* value, const char* path, char* why, size_t whySize)
{
	if (!cJSON_IsObject(node)) {
		snprintf(why, whySize, "%s: the base scene has %s there, not an object", path, TypeName(node));
		return false;
	}
	const Segment* seg = &s[at];
	bool last = at + 1 == count;
	cJSON* item = cJSON_GetObjectItemCaseSensitive(node, seg->key);
	if (at == 0 && strcmp(seg->key, "cloth") == 0 && seg->index < 0 && item == NULL) {
		cJSON* many = cJSON_GetObjectItemCaseSensitive(node, "cloths");
		if (cJSON_IsArray(many) && !last) {
			for (cJSON* e = many->child; e != NULL; e = e->next) {
				if (!SetAt(e, s, 1, count, value, path, why, whySize))
					return false;
			}
			return true;
		}
	}
	if (seg->index >= 0) {
		if (!cJSON_IsArray(item)) {
			snprintf(why, whySize,
				"%s: '%s' is %s in the base scene, so [%d] has no element to set (give the whole array, or "
				"an index into an array the base scene has)",
				path, seg->key, item == NULL ? "absent" : TypeName(item), seg->index);
			return false;
		}
		int size = cJSON_GetArraySize(item);
		if (seg->index >= size) {
			snprintf(why, whySize, "%s: index %d is out of range: '%s' has %d element%s in the base scene (allowed [0, %d])", path,
				seg->index, seg->key, size, size == 1 ? "" : "s", size - 1);
			return false;
		}
		if (last)
			return cJSON_ReplaceItemInArray(item, seg->index, cJSON_Duplicate(value, 1)) != 0 ||
				(snprintf(why, whySize, "%s: out of memory", path), false);
		return SetAt(cJSON_GetArrayItem(item, seg->index), s, at + 1, count, value, path, why, whySize);
	}
	if (last) {
		cJSON* copy = cJSON_Duplicate(value, 1);
		bool ok = copy != NULL &&
			(item != NULL ? cJSON_ReplaceItemInObjectCaseSensitive(node, seg->key, copy) : cJSON_AddItemToObject(node, seg->key, copy));
		if (!ok)
			snprintf(why, whySize, "%s: out of memory", path);
		return ok;
	}
	if (item == NULL) {
		item = cJSON_AddObjectToObject(node, seg->key);
		if (item == NULL) {
			snprintf(why, whySize, "%s: out of memory", path);
			return false;
		}
	}
	return SetAt(item, s, at + 1, count, value, path, why, whySize);
}

// ------------------------------------------------------------------ axes

// splitmix64 (Steele, Lea and Flood 2014): a seeded sequence that is the same on every machine.
static uint64_t SplitMix(uint64_t* state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static bool ReadRange(const Loader* l, const cJSON* spec, const char* kind, const char* where, bool positive, double* lo, double* hi)
{
	const cJSON* r = cJSON_GetObjectItemCaseSensitive(spec, kind);
	if (!cJSON_IsArray(r) || cJSON_GetArraySize(r) != 2 || !cJSON_IsNumber(r->child) || !cJSON_IsNumber(r->child->next))
		return Fail(l, where, "\"%s\": expected an array of 2 numbers [low, high], got %s", kind, r == NULL ? "nothing" : TypeName(r));
	*lo = r->child->valuedouble;
	*hi = r->child->next->valuedouble;
	if (!isfinite(*lo) || !isfinite(*hi) || *lo > *hi)
		return Fail(l, where, "\"%s\": [%g, %g] is not a range (allowed: finite numbers, low <= high)", kind, *lo, *hi);
	if (positive && *lo <= 0.0)
		return Fail(l, where, "\"%s\": [%g, %g] has a bound <= 0 (allowed: 0 < low <= high for a logarithmic scale)", kind, *lo, *hi);
	return true;
}

static bool ReadCount(const Loader* l, const cJSON* spec, const char* where, int* n)
{
	const int most = l->maxVariants < SWEEP_MAX_AXIS_VALUES ? l->maxVariants : SWEEP_MAX_AXIS_VALUES;
	const cJSON* j = cJSON_GetObjectItemCaseSensitive(spec, "n");
	if (j == NULL)
		return Fail(l, where, "\"n\": missing (allowed: an integer in [1, %d], the number of values)", most);
	if (!cJSON_IsNumber(j))
		return Fail(l, where, "\"n\": expected an integer in [1, %d], got %s", most, TypeName(j));
	if (j->valuedouble != floor(j->valuedouble) || j->valuedouble < 1 || j->valuedouble > most)
		return Fail(l, where, "\"n\": %g is out of range (allowed: an integer in [1, %d])", j->valuedouble, most);
	*n = (int)j->valuedouble;
	return true;
}

// Only the keys of `known` (a ", "-separated list).
static bool CheckKeys(const Loader* l, const cJSON* object, const char* known, const char* where)
{
	for (const cJSON* item = object->child; item != NULL; item = item->next) {
		char key[96];
		snprintf(key, sizeof key, "%s", item->string);
		bool found = false;
		for (const char* k = known; *k != 0 && !found;) {
			size_t n = strcspn(k, ",");
			found = strlen(item->string) == n && strncmp(k, item->string, n) == 0;
			k += n;
			while (*k == ',' || *k == ' ')
				++k;
		}
		if (!found)
			return Fail(l, where, "unknown key \"%s\" (known: %s)", key, known);
	}
	return true;
}

// An axis: a list of values, or {"linear"|"log"|"random"|"logRandom": [low, high], "n": N,
// "seed": S (random), "integer": true (rounded)}. Returns an array of values (owned by the caller).
static cJSON* ExpandAxis(const Loader* l, const cJSON* spec, const char* where)
{
	if (cJSON_IsArray(spec)) {
		if (cJSON_GetArraySize(spec) == 0) {
			Fail(l, where, "an empty list (allowed: a list of at least one value, or a range object)");
			return NULL;
		}
		return cJSON_Duplicate(spec, 1);
	}
	if (!cJSON_IsObject(spec)) {
		Fail(l, where,
			"expected a list of values or a range object ({\"linear\"|\"log\"|\"random\"|\"logRandom\": [low, high], \"n\": N}), got %s",
			TypeName(spec));
		return NULL;
	}
	if (!CheckKeys(l, spec, "linear, log, random, logRandom, n, seed, integer", where))
		return NULL;
	static const char* kKinds[] = {"linear", "log", "random", "logRandom"};
	int kind = -1;
	for (int k = 0; k < 4; ++k) {
		if (cJSON_GetObjectItemCaseSensitive(spec, kKinds[k]) == NULL)
			continue;
		if (kind >= 0) {
			Fail(l, where, "both \"%s\" and \"%s\" (allowed: one of linear, log, random, logRandom)", kKinds[kind], kKinds[k]);
			return NULL;
		}
		kind = k;
	}
	if (kind < 0) {
		Fail(l, where, "no range (allowed: one of linear, log, random, logRandom, with \"n\")");
		return NULL;
	}
	double lo = 0.0, hi = 0.0;
	int n = 0;
	bool logScale = kind == 1 || kind == 3, random = kind >= 2;
	if (!ReadRange(l, spec, kKinds[kind], where, logScale, &lo, &hi) || !ReadCount(l, spec, where, &n))
		return NULL;
	const cJSON* seedItem = cJSON_GetObjectItemCaseSensitive(spec, "seed");
	uint64_t seed = 1;
	if (seedItem != NULL) {
		double s = cJSON_IsNumber(seedItem) ? seedItem->valuedouble : -1.0;
		if (!random || s < 0 || s > 9007199254740992.0 || s != floor(s)) {
			Fail(l, where, "\"seed\": %s", random ? "allowed: an integer in [0, 2^53]" : "only with \"random\" or \"logRandom\"");
			return NULL;
		}
		seed = (uint64_t)s;
	}
	const cJSON* integer = cJSON_GetObjectItemCaseSensitive(spec, "integer");
	if (integer != NULL && !cJSON_IsBool(integer)) {
		Fail(l, where, "\"integer\": expected true or false, got %s", TypeName(integer));
		return NULL;
	}
	cJSON* values = cJSON_CreateArray();
	// The log scale in decades, so that a range of whole decades gives 1e-6, 1e-5, ... exactly.
	double a = logScale ? log10(lo) : lo, b = logScale ? log10(hi) : hi;
	uint64_t state = seed;
	for (int i = 0; values != NULL && i < n; ++i) {
		// Evenly spaced with both ends exact, or uniform samples (on the log scale for logRandom).
		double t = random ? (double)(SplitMix(&state) >> 11) * 0x1.0p-53 : n > 1 ? (double)i / (n - 1) : 0.0;
		double v = a + (b - a) * t;
		v = logScale ? pow(10.0, v) : v;
		if (!random && i == 0)
			v = lo;
		if (!random && i == n - 1 && n > 1)
			v = hi;
		if (cJSON_IsTrue(integer))
			v = nearbyint(v);
		cJSON_AddItemToArray(values, cJSON_CreateNumber(v));
	}
	if (values == NULL)
		Fail(l, where, "out of memory");
	return values;
}

// ------------------------------------------------------------------ variants

// A value as a CSV field: a string as it is, anything else as compact JSON; quoted when it holds
// a comma or a quote.
static void AppendField(char** text, size_t* used, size_t* capacity, const cJSON* value)
{
	char* printed = value != NULL && !cJSON_IsString(value) ? cJSON_PrintUnformatted(value) : NULL;
	const char* s = cJSON_IsString(value) ? value->valuestring : printed != NULL ? printed : "";
	bool quote = strpbrk(s, ",\"\n") != NULL;
	size_t need = *used + 2 * strlen(s) + 4;
	if (need > *capacity) {
		*capacity = need * 2;
		*text = (char*)realloc(*text, *capacity);
	}
	if (*text == NULL) {
		cJSON_free(printed);
		return;
	}
	if (*used > 0)
		(*text)[(*used)++] = ',';
	if (quote)
		(*text)[(*used)++] = '"';
	for (const char* c = s; *c != 0; ++c) {
		if (*c == '"')
			(*text)[(*used)++] = '"';
		(*text)[(*used)++] = *c;
	}
	if (quote)
		(*text)[(*used)++] = '"';
	(*text)[*used] = 0;
	cJSON_free(printed);
}

static int FindColumn(const SweepPlan* plan, const char* path)
{
	for (int i = 0; i < plan->columnCount; ++i) {
		if (strcmp(plan->columns[i], path) == 0)
			return i;
	}
	return -1;
}

static bool AddColumn(const Loader* l, const char* path, const char* where)
{
	SweepPlan* plan = l->plan;
	Segment segments[16];
	if (strlen(path) >= SWEEP_MAX_PATH || SplitPath(path, segments, 16) == 0)
		return Fail(l, where,
			"\"%.300s\" is not a scene-file path (allowed: keys joined by '.', each with an optional [index], "
			"e.g. world.step.substeps or cloths[1].material.mass)",
			path);
	if (strcmp(segments[0].key, "description") == 0)
		return Fail(l, where, "\"%s\": the description is not a parameter", path);
	if (plan->columnCount >= SWEEP_MAX_COLUMNS)
		return Fail(l, where, "more than %d distinct paths", SWEEP_MAX_COLUMNS);
	snprintf(plan->columns[plan->columnCount++], SWEEP_MAX_PATH, "%s", path);
	return true;
}

// ------------------------------------------------------------------ mesh paths

// The absolute folder of a file ("." for a bare name): the relative paths written in that file start there.
static void FolderOf(const char* file, char* out, size_t size)
{
	char dir[4096];
	const char* slash = strrchr(file, '/');
	if (slash == NULL)
		snprintf(dir, sizeof dir, ".");
	else
		snprintf(dir, sizeof dir, "%.*s", slash == file ? 1 : (int)(slash - file), file);
	char* real = realpath(dir, NULL);
	snprintf(out, size, "%s", real != NULL ? real : dir);
	free(real);
}

// A cloth's relative "mesh" made absolute from `folder`, the folder of the file that names it: what
// `weft run --scene` reads from that file's folder. The variants' scene files then name their meshes
// wherever they are written or run from (docs/SWEEP.md).
static bool AbsoluteMesh(const Loader* l, cJSON* cloth, const char* folder)
{
	const cJSON* mesh = cJSON_IsObject(cloth) ? cJSON_GetObjectItemCaseSensitive(cloth, "mesh") : NULL;
	if (!cJSON_IsString(mesh) || mesh->valuestring[0] == 0 || mesh->valuestring[0] == '/')
		return true; // absolute, or not a path: the scene loader names the problem
	size_t size = strlen(folder) + strlen(mesh->valuestring) + 2;
	char* full = (char*)malloc(size);
	cJSON* item = NULL;
	if (full != NULL) {
		snprintf(full, size, "%s/%s", folder, mesh->valuestring);
		item = cJSON_CreateString(full);
		free(full);
	}
	if (item == NULL || !cJSON_ReplaceItemInObjectCaseSensitive(cloth, "mesh", item)) {
		cJSON_Delete(item);
		return Fail(l, "scene", "out of memory");
	}
	return true;
}

// Every cloth's mesh ("cloth", "cloths[i]") of a scene tree made absolute.
static bool AbsoluteMeshes(const Loader* l, cJSON* root, const char* folder)
{
	bool ok = AbsoluteMesh(l, cJSON_GetObjectItemCaseSensitive(root, "cloth"), folder);
	cJSON* many = cJSON_GetObjectItemCaseSensitive(root, "cloths");
	for (cJSON* c = cJSON_IsArray(many) ? many->child : NULL; ok && c != NULL; c = c->next)
		ok = AbsoluteMesh(l, c, folder);
	return ok;
}

// The base scene: inline, or a path relative to the sweep file's folder. Its meshes are made
// absolute from the folder of the file that names them.
static cJSON* LoadBase(const Loader* l, const cJSON* scene, const char* sweepPath)
{
	if (cJSON_IsObject(scene)) {
		cJSON* copy = cJSON_Duplicate(scene, 1);
		if (copy != NULL && !AbsoluteMeshes(l, copy, l->folder)) {
			cJSON_Delete(copy);
			return NULL;
		}
		return copy;
	}
	if (!cJSON_IsString(scene)) {
		Fail(l, "scene", "expected a scene object or the path of a scene file (relative to the sweep file), got %s",
			scene == NULL ? "nothing" : TypeName(scene));
		return NULL;
	}
	char path[8192];
	const char* slash = strrchr(sweepPath, '/');
	if (scene->valuestring[0] == '/' || slash == NULL)
		snprintf(path, sizeof path, "%s", scene->valuestring);
	else
		snprintf(path, sizeof path, "%.*s/%s", (int)(slash - sweepPath), sweepPath, scene->valuestring);
	// The base scene named in the file: a FIFO or a device there would block or never end.
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		Fail(l, "scene", "%.4000s is not a regular file (allowed: the path of a scene file)", path);
		return NULL;
	}
	char* text = ReadText(l, path, path);
	if (text == NULL)
		return NULL;
	cJSON* root = ParseJson(l, text, path);
	free(text);
	if (root != NULL && !cJSON_IsObject(root)) {
		snprintf(l->error, l->errorSize, "%s: (top level): expected an object, got %s", path, TypeName(root));
		cJSON_Delete(root);
		return NULL;
	}
	char folder[4096];
	FolderOf(path, folder, sizeof folder);
	if (root != NULL && !AbsoluteMeshes(l, root, folder)) {
		cJSON_Delete(root);
		return NULL;
	}
	return root;
}

// One variant: the base tree with its values, the frames written in, parsed by the scene loader.
static bool BuildVariant(const Loader* l, const cJSON* base, const cJSON* const* values, int frames, int index, SweepVariant* v)
{
	SweepPlan* plan = l->plan;
	char why[1024], name[2048], list[1536];
	// "FILE: variant N (path = value, ...)" in front of every message about the variant.
	size_t listUsed = 0;
	list[0] = 0;
	for (int c = 0; c < plan->columnCount; ++c) {
		if (values[c] == NULL || listUsed + 1 >= sizeof list)
			continue;
		char* printed = cJSON_PrintUnformatted(values[c]);
		listUsed += (size_t)snprintf(list + listUsed, sizeof list - listUsed, "%s%s = %.200s", listUsed > 0 ? ", " : "", plan->columns[c],
			printed != NULL ? printed : "?");
		cJSON_free(printed);
	}
	snprintf(name, sizeof name, "%.400s: variant %d%s%s%s", plan->file, index, list[0] != 0 ? " (" : "", list, list[0] != 0 ? ")" : "");
	cJSON* root = cJSON_Duplicate(base, 1);
	size_t used = 0, capacity = 0;
	for (int c = 0; c < plan->columnCount && root != NULL; ++c) {
		if (values[c] == NULL)
			continue;
		Segment segments[16];
		int count = SplitPath(plan->columns[c], segments, 16);
		if (!SetAt(root, segments, 0, count, values[c], plan->columns[c], why, sizeof why)) {
			snprintf(l->error, l->errorSize, "%s: %s", name, why);
			cJSON_Delete(root);
			return false;
		}
	}
	if (root == NULL)
		return Fail(l, "variants", "out of memory");
	// A mesh set by the sweep file (an axis, a variant) is relative to the sweep file's folder.
	if (!AbsoluteMeshes(l, root, l->folder)) {
		cJSON_Delete(root);
		return false;
	}
	// The frames: the sweep's, else the scene's, else the default; always written into the
	// variant's scene so that `weft run --scene vNNNNNN.scene.json` repeats the variant.
	const cJSON* sceneFrames = cJSON_GetObjectItemCaseSensitive(root, "frames");
	if (frames > 0 || sceneFrames == NULL) {
		cJSON* f = cJSON_CreateNumber(frames > 0 ? frames : SWEEP_DEFAULT_FRAMES);
		if (sceneFrames != NULL)
			cJSON_ReplaceItemInObjectCaseSensitive(root, "frames", f);
		else
			cJSON_AddItemToObject(root, "frames", f);
	}
	v->sceneText = cJSON_PrintUnformatted(root);
	// The key: the world subtree, the preset, the frames and the colliders (all that is shared by a world).
	cJSON* key = cJSON_CreateArray();
	const char* keyParts[] = {"world", "preset", "frames", "colliders"};
	for (int i = 0; i < 4 && key != NULL; ++i) {
		const cJSON* part = cJSON_GetObjectItemCaseSensitive(root, keyParts[i]);
		cJSON_AddItemToArray(key, part != NULL ? cJSON_Duplicate(part, 1) : cJSON_CreateNull());
	}
	v->groupKey = key != NULL ? cJSON_PrintUnformatted(key) : NULL;
	cJSON_Delete(key);
	cJSON_Delete(root);
	for (int c = 0; c < plan->columnCount; ++c)
		AppendField(&v->params, &used, &capacity, values[c]);
	if (plan->columnCount == 0)
		v->params = (char*)calloc(1, 1);
	if (v->sceneText == NULL || v->groupKey == NULL || v->params == NULL)
		return Fail(l, "variants", "out of memory");
	char message[1024];
	v->scene = wfScene_Parse(v->sceneText, name, message, (int)sizeof message);
	if (v->scene == NULL) {
		snprintf(l->error, l->errorSize, "%s", message);
		return false;
	}
	wfWorldDef world = wfScene_GetWorldDef(v->scene);
	v->frames = wfScene_GetFrames(v->scene);
	v->clothCount = wfScene_GetClothCount(v->scene);
	double perFrame = 0.0;
	for (int i = 0; i < v->clothCount; ++i) {
		wfClothDef cd = wfScene_GetClothDef(v->scene, i);
		int particles = cd.mesh != NULL ? cd.mesh->vertexCount : cd.cols * cd.rows; // a mesh ignores cols and rows
		v->particles += particles;
		perFrame += particles;
	}
	v->cost = perFrame * world.step.substeps * world.step.iterations * v->frames;
	return true;
}

static bool ReadRecord(const Loader* l, const cJSON* record)
{
	SweepPlan* plan = l->plan;
	plan->stats = true;
	plan->final = true;
	plan->every = 0;
	if (record == NULL)
		return true;
	if (!cJSON_IsObject(record))
		return Fail(l, "record", "expected an object, got %s", TypeName(record));
	if (!CheckKeys(l, record, "stats, final, every", "record"))
		return false;
	const cJSON* stats = cJSON_GetObjectItemCaseSensitive(record, "stats");
	const cJSON* final = cJSON_GetObjectItemCaseSensitive(record, "final");
	const cJSON* every = cJSON_GetObjectItemCaseSensitive(record, "every");
	if ((stats != NULL && !cJSON_IsBool(stats)) || (final != NULL && !cJSON_IsBool(final)))
		return Fail(l, stats != NULL && !cJSON_IsBool(stats) ? "record.stats" : "record.final", "expected true or false");
	if (every != NULL &&
		(!cJSON_IsNumber(every) || every->valuedouble != floor(every->valuedouble) || every->valuedouble < 0 ||
			every->valuedouble > 1000000))
		return Fail(l, "record.every", "expected an integer in [0, 1000000] (0: no frames recorded)");
	plan->stats = stats == NULL || cJSON_IsTrue(stats);
	plan->final = final == NULL || cJSON_IsTrue(final);
	plan->every = every != NULL ? (int)every->valuedouble : 0;
	return true;
}

// The axes ("axes": {PATH: SPEC, ...}) into columns and value arrays; explicit variants
// ("variants": [{PATH: VALUE, ...}, ...]) add their keys as columns.
static bool ReadAxes(const Loader* l, const cJSON* axes, const cJSON* variants, cJSON** axisValues, int* axisCount, long long* total)
{
	SweepPlan* plan = l->plan;
	*total = 1;
	*axisCount = 0;
	if (axes != NULL && !cJSON_IsObject(axes))
		return Fail(l, "axes", "expected an object {\"PATH\": values, ...}, got %s", TypeName(axes));
	for (const cJSON* a = axes != NULL ? axes->child : NULL; a != NULL; a = a->next) {
		char where[SWEEP_MAX_PATH + 16];
		snprintf(where, sizeof where, "axes.%.250s", a->string);
		if (FindColumn(plan, a->string) >= 0)
			return Fail(l, where, "repeated axis");
		if (!AddColumn(l, a->string, where))
			return false;
		cJSON* values = ExpandAxis(l, a, where);
		if (values == NULL)
			return false;
		axisValues[(*axisCount)++] = values;
		*total *= cJSON_GetArraySize(values);
		if (*total > l->maxVariants)
			return Fail(l, "axes", "more than %d variants (the product of the axes' sizes)", l->maxVariants);
	}
	if (variants == NULL)
		return true;
	if (!cJSON_IsArray(variants) || cJSON_GetArraySize(variants) == 0)
		return Fail(l, "variants", "expected a non-empty list of objects {\"PATH\": value, ...}, got %s",
			cJSON_IsArray(variants) ? "an empty list" : TypeName(variants));
	int i = 0;
	for (const cJSON* v = variants->child; v != NULL; v = v->next, ++i) {
		char where[64];
		snprintf(where, sizeof where, "variants[%d]", i);
		if (!cJSON_IsObject(v))
			return Fail(l, where, "expected an object {\"PATH\": value, ...}, got %s", TypeName(v));
		for (const cJSON* p = v->child; p != NULL; p = p->next) {
			int c = FindColumn(plan, p->string);
			if (c >= 0 && c < *axisCount)
				return Fail(l, where, "\"%.250s\" is also an axis (a path is either an axis or set by the variants)", p->string);
			if (c < 0 && !AddColumn(l, p->string, where))
				return false;
		}
	}
	*total *= i;
	if (*total > l->maxVariants)
		return Fail(l, "variants", "more than %d variants (the explicit variants times the product of the axes' sizes)", l->maxVariants);
	return true;
}

// FNV-1a of a group key.
static uint64_t HashText(const char* text)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (const unsigned char* c = (const unsigned char*)text; *c != 0; ++c)
		h = (h ^ *c) * 0x100000001b3ull;
	return h;
}

// Each variant's world: variants with equal group keys share one, numbered in order of first
// appearance. A hash table of the groups' first variants keeps it linear in the variant count
// (comparing each variant with every group before it took 8.5 s at 20 000 variants of distinct worlds).
static bool GroupVariants(const Loader* l)
{
	SweepPlan* plan = l->plan;
	size_t slots = 16;
	while (slots < 2 * (size_t)plan->variantCount)
		slots *= 2;
	int* table = (int*)malloc(slots * sizeof(int)); // a group's first variant, -1 empty
	if (table == NULL)
		return Fail(l, "variants", "out of memory");
	for (size_t i = 0; i < slots; ++i)
		table[i] = -1;
	plan->groupCount = 0;
	for (int v = 0; v < plan->variantCount; ++v) {
		SweepVariant* variant = &plan->variants[v];
		size_t at = (size_t)HashText(variant->groupKey) & (slots - 1);
		while (table[at] >= 0 && strcmp(plan->variants[table[at]].groupKey, variant->groupKey) != 0)
			at = (at + 1) & (slots - 1);
		if (table[at] < 0) {
			table[at] = v;
			variant->group = plan->groupCount++;
		} else {
			variant->group = plan->variants[table[at]].group;
		}
	}
	free(table);
	return true;
}

static bool LoadRoot(const Loader* l, const cJSON* root, const char* path)
{
	SweepPlan* plan = l->plan;
	if (!cJSON_IsObject(root))
		return Fail(l, "(top level)", "expected an object, got %s", TypeName(root));
	if (!CheckKeys(l, root, "description, scene, frames, axes, variants, record", "(top level)"))
		return false;
	const cJSON* framesItem = cJSON_GetObjectItemCaseSensitive(root, "frames");
	int frames = 0;
	if (framesItem != NULL) {
		if (!cJSON_IsNumber(framesItem) || framesItem->valuedouble != floor(framesItem->valuedouble) || framesItem->valuedouble < 1 ||
			framesItem->valuedouble > 10000000)
			return Fail(l, "frames", "expected an integer in [1, 10000000]");
		frames = (int)framesItem->valuedouble;
	}
	if (!ReadRecord(l, cJSON_GetObjectItemCaseSensitive(root, "record")))
		return false;
	cJSON* base = LoadBase(l, cJSON_GetObjectItemCaseSensitive(root, "scene"), path);
	if (base == NULL)
		return false;
	// The base scene alone first, so that its own mistakes are named as such, not as a variant's.
	const cJSON* sceneItem = cJSON_GetObjectItemCaseSensitive(root, "scene");
	char name[4200], message[1024];
	if (cJSON_IsString(sceneItem))
		snprintf(name, sizeof name, "%.2000s (the base scene of %.2000s)", sceneItem->valuestring, path);
	else
		snprintf(name, sizeof name, "%.4000s: scene", path);
	char* baseText = cJSON_PrintUnformatted(base);
	bool printed = baseText != NULL;
	wfScene* baseScene = printed ? wfScene_Parse(baseText, name, message, (int)sizeof message) : NULL;
	cJSON_free(baseText);
	if (baseScene == NULL) {
		snprintf(l->error, l->errorSize, "%s", printed ? message : "out of memory");
		cJSON_Delete(base);
		return false;
	}
	wfDestroyScene(baseScene);
	cJSON* axisValues[SWEEP_MAX_COLUMNS] = {0};
	int axisCount = 0;
	long long total = 0;
	const cJSON* variants = cJSON_GetObjectItemCaseSensitive(root, "variants");
	bool ok = ReadAxes(l, cJSON_GetObjectItemCaseSensitive(root, "axes"), variants, axisValues, &axisCount, &total);
	if (ok) {
		plan->variants = (SweepVariant*)calloc((size_t)total, sizeof(SweepVariant));
		ok = plan->variants != NULL || Fail(l, "variants", "out of memory");
	}
	// The values of each axis and the explicit variants as arrays: cJSON_GetArrayItem walks its list,
	// which made the expansion quadratic in an axis's length.
	const cJSON** items[SWEEP_MAX_COLUMNS + 1] = {0};
	int sizes[SWEEP_MAX_COLUMNS + 1] = {0};
	for (int a = 0; ok && a <= axisCount; ++a) {
		const cJSON* list = a < axisCount ? axisValues[a] : variants;
		if (list == NULL)
			continue;
		sizes[a] = cJSON_GetArraySize(list);
		items[a] = (const cJSON**)malloc((size_t)sizes[a] * sizeof(const cJSON*));
		ok = (items[a] != NULL && sizes[a] > 0) || Fail(l, "variants", "out of memory");
		int i = 0;
		for (const cJSON* e = ok ? list->child : NULL; e != NULL; e = e->next)
			items[a][i++] = e;
	}
	// Variant v: the explicit variant slowest, then the axes in order, the last fastest.
	long long perExplicit = variants != NULL && sizes[axisCount] > 0 ? total / sizes[axisCount] : total;
	for (long long v = 0; ok && v < total; ++v) {
		const cJSON* values[SWEEP_MAX_COLUMNS] = {0};
		long long rest = v % perExplicit;
		for (int a = axisCount - 1; a >= 0; --a) {
			values[a] = items[a][rest % sizes[a]];
			rest /= sizes[a];
		}
		if (variants != NULL) {
			const cJSON* e = items[axisCount][v / perExplicit];
			for (const cJSON* p = e->child; p != NULL; p = p->next)
				values[FindColumn(plan, p->string)] = p;
		}
		ok = BuildVariant(l, base, values, frames, (int)v, &plan->variants[v]);
		plan->variantCount = (int)v + 1;
	}
	for (int a = 0; a <= axisCount; ++a)
		free(items[a]);
	for (int a = 0; a < axisCount; ++a)
		cJSON_Delete(axisValues[a]);
	cJSON_Delete(base);
	return ok && GroupVariants(l);
}

bool SweepPlanParse(SweepPlan* plan, const char* text, const char* path, int maxVariants, char* error, size_t errorSize)
{
	memset(plan, 0, sizeof *plan);
	snprintf(plan->file, sizeof plan->file, "%s", path);
	Loader l = {plan, error, errorSize, maxVariants < SWEEP_MAX_VARIANTS ? maxVariants : SWEEP_MAX_VARIANTS, {0}};
	error[0] = 0;
	FolderOf(path, l.folder, sizeof l.folder);
	cJSON* root = ParseJson(&l, text, path);
	bool ok = root != NULL && LoadRoot(&l, root, path);
	cJSON_Delete(root);
	if (!ok)
		SweepPlanFree(plan);
	return ok;
}

bool SweepPlanLoad(SweepPlan* plan, const char* path, char* error, size_t errorSize)
{
	memset(plan, 0, sizeof *plan);
	snprintf(plan->file, sizeof plan->file, "%s", path);
	Loader l = {plan, error, errorSize, SWEEP_MAX_VARIANTS, {0}};
	error[0] = 0;
	char* text = ReadText(&l, path, path);
	if (text == NULL)
		return false;
	bool ok = SweepPlanParse(plan, text, path, SWEEP_MAX_VARIANTS, error, errorSize);
	free(text);
	return ok;
}

void SweepPlanFree(SweepPlan* plan)
{
	for (int i = 0; i < plan->variantCount; ++i) {
		SweepVariant* v = &plan->variants[i];
		cJSON_free(v->sceneText);
		cJSON_free(v->groupKey);
		free(v->params);
		wfDestroyScene(v->scene);
	}
	free(plan->variants);
	plan->variants = NULL;
	plan->variantCount = 0;
}
