// `weft sweep FILE --out DIR`: a parameter study. The sweep file's variants (sweep_plan.c) are
// grouped by world (equal world subtree, preset and frames: the same wfWorldDef), cut into batches
// of at most --batch cloths, and each batch is one world stepping all its variants' cloths. Every
// variant's result is a set of files under DIR/variants, the row file last (its presence means
// "finished"), so an interrupted sweep started again runs only the rest, and ranks of mpirun share
// nothing but the file system and a batch counter. DIR/summary.csv is rebuilt from the rows.
#include "cli.h"
#include "npy.h"
#include "output.h"
#include "sweep_par.h"
#include "sweep_plan.h"
#include "weft_env.h"

#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SWEEP_MAX_BATCH 1024                       // cloths per world: the scene limit, one dispatch on Vulkan
#define SWEEP_PATH (CLI_PATH_MAX + 64)             // a variant file's path: the folder is cut to fit CliFile's limit
#define SWEEP_RECORD_BUDGET (1024.0 * 1024 * 1024) // bytes of recorded frames a batch may hold

typedef struct SweepOptions {
	const char* file;
	const char* out;
	int batch;           // cloths per world; 0: by backend (BatchLimit)
	int backend;         // CLI_KEEP or a wfBackendType
	int threads;         // CLI_KEEP or wfWorldDef.threads' range
	const char* devices; // comma-separated device names, one per local rank
	bool queue;          // --schedule queue (default static)
	bool list;           // --list: print the variants, run nothing
	bool quiet;
} SweepOptions;

typedef struct Batch {
	int first, count; // a range of Sweep.order
	double cost;
} Batch;

typedef struct Sweep {
	SweepOptions o;
	SweepPlan plan;
	SweepPar par;
	char variantsDir[CLI_PATH_MAX];
	unsigned char* done; // (variantCount) 1 = finished before this run
	int* order;          // (todoCount) unfinished variants, grouped by world
	int todoCount;
	Batch* batches;
	int batchCount;
	char device[256]; // this rank's --devices entry
	int ranHere;
	bool toldAuto;    // the message of "auto" on the CPU was printed
	bool writeFailed; // a result file could not be written (a full disk): no more variants are run
	int hardware;     // a hardware Vulkan device: 1, 0, or -1 not asked yet (HasHardware)
	double start;
} Sweep;

// ------------------------------------------------------------------ options

static bool ReadInt(const char* text, int min, int max, int* out)
{
	char* end;
	long v = strtol(text, &end, 10);
	if (end == text || *end != 0 || v < min || v > max)
		return false;
	*out = (int)v;
	return true;
}

static int ParseArgs(int argc, char** argv, SweepOptions* o)
{
	memset(o, 0, sizeof *o);
	o->batch = 0; // by backend (BatchLimit)
	o->backend = CLI_KEEP;
	o->threads = CLI_KEEP;
	for (int i = 2; i < argc; ++i) {
		const char* a = argv[i];
		const char* value = i + 1 < argc ? argv[i + 1] : NULL;
		bool takes = strcmp(a, "--out") == 0 || strcmp(a, "--batch") == 0 || strcmp(a, "--backend") == 0 || strcmp(a, "--threads") == 0 ||
			strcmp(a, "--devices") == 0 || strcmp(a, "--schedule") == 0;
		if (takes && value == NULL) {
			fprintf(stderr, "weft sweep: %s: needs a value\n", a);
			return CLI_EXIT_USAGE;
		}
		// "--out --quiet" forgot the folder: the next option is not taken as one.
		if (takes && strncmp(value, "--", 2) == 0) {
			fprintf(stderr, "weft sweep: %s: '%s' is an option, not a value\n", a, value);
			return CLI_EXIT_USAGE;
		}
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			CliPrintHelp("sweep");
			return CLI_EXIT_HELP;
		} else if (strcmp(a, "--out") == 0) {
			if (value[0] == 0 || strlen(value) > 3900) {
				fprintf(stderr, "weft sweep: --out: expected a folder path of 1 to 3900 characters\n");
				return CLI_EXIT_USAGE;
			}
			o->out = value;
		} else if (strcmp(a, "--batch") == 0) {
			if (!ReadInt(value, 1, SWEEP_MAX_BATCH, &o->batch)) {
				fprintf(stderr, "weft sweep: --batch: '%s' is not an integer in [1, %d] (cloths per world)\n", value, SWEEP_MAX_BATCH);
				return CLI_EXIT_USAGE;
			}
		} else if (strcmp(a, "--backend") == 0) {
			wfBackendType b;
			if (!wfBackendFromName(value, &b)) {
				fprintf(stderr, "weft sweep: --backend: '%s' is not a backend (allowed: one of auto, cpu, vulkan)\n", value);
				return CLI_EXIT_USAGE;
			}
			o->backend = (int)b;
		} else if (strcmp(a, "--threads") == 0) {
			const wfFieldInfo* threads = wfFindDefField(WF_DEF_WORLD, "threads"); // the def's range
			if (!ReadInt(value, (int)threads->min, (int)threads->max, &o->threads)) {
				fprintf(stderr, "weft sweep: --threads: '%s' is not an integer in [%g, %g]\n", value, threads->min, threads->max);
				return CLI_EXIT_USAGE;
			}
		} else if (strcmp(a, "--devices") == 0) {
			if (value[0] == 0 || strlen(value) >= 4096) {
				fprintf(stderr, "weft sweep: --devices: expected a comma-separated list of device names (parts of names)\n");
				return CLI_EXIT_USAGE;
			}
			o->devices = value;
		} else if (strcmp(a, "--schedule") == 0) {
			if (strcmp(value, "static") != 0 && strcmp(value, "queue") != 0) {
				fprintf(stderr, "weft sweep: --schedule: '%s' is not a schedule (allowed: one of static, queue)\n", value);
				return CLI_EXIT_USAGE;
			}
			o->queue = strcmp(value, "queue") == 0;
		} else if (strcmp(a, "--list") == 0) {
			o->list = true;
		} else if (strcmp(a, "--quiet") == 0) {
			o->quiet = true;
		} else if (a[0] == '-') {
			fprintf(stderr,
				"weft sweep: unknown option '%s' (allowed: --out, --batch, --backend, --threads, --devices, "
				"--schedule, --list, --quiet)\n",
				a);
			return CLI_EXIT_USAGE;
		} else if (o->file == NULL) {
			o->file = a;
		} else {
			fprintf(stderr, "weft sweep: one sweep file only ('%s' and '%s')\n", o->file, a);
			return CLI_EXIT_USAGE;
		}
		i += takes;
	}
	if (o->file == NULL) {
		fprintf(stderr, "weft sweep: no sweep file given (weft sweep FILE.json --out DIR)\n");
		return CLI_EXIT_USAGE;
	}
	if (o->out == NULL && !o->list) {
		fprintf(stderr, "weft sweep: --out DIR is required (the folder of the results)\n");
		return CLI_EXIT_USAGE;
	}
	return CLI_EXIT_OK;
}

// ------------------------------------------------------------------ files

static void VariantPath(const Sweep* s, int v, const char* suffix, char* out, size_t size)
{
	snprintf(out, size, "%.4000s/v%06d.%.16s", s->variantsDir, v, suffix);
}

static bool WriteText(const char* path, const char* text, char* error, size_t errorSize)
{
	CliFile f;
	if (!CliFileOpen(&f, path, error, errorSize))
		return false;
	fputs(text, f.file);
	return CliFileCommit(&f, error, errorSize);
}

static char* ReadFileText(const char* path)
{
	FILE* f = fopen(path, "rb");
	if (f == NULL)
		return NULL;
	size_t used = 0, capacity = 0;
	char* text = NULL;
	for (;;) {
		if (used + 1 >= capacity) {
			capacity = capacity == 0 ? 4096 : 2 * capacity;
			char* bigger = (char*)realloc(text, capacity);
			if (bigger == NULL) {
				free(text);
				fclose(f);
				return NULL;
			}
			text = bigger;
		}
		size_t n = fread(text + used, 1, capacity - 1 - used, f);
		used += n;
		if (n == 0)
			break;
	}
	fclose(f);
	text[used] = 0;
	return text;
}

// What makes results comparable: the variants' scenes, the recording and the backend override.
static char* PlanText(const Sweep* s)
{
	size_t size = 256;
	for (int v = 0; v < s->plan.variantCount; ++v)
		size += strlen(s->plan.variants[v].sceneText) + 16;
	char* text = (char*)malloc(size);
	if (text == NULL)
		return NULL;
	size_t used = (size_t)snprintf(text, size, "weft sweep plan 1\nrecord stats=%d final=%d every=%d\nbackend %s\nvariants %d\n",
		s->plan.stats, s->plan.final, s->plan.every,
		s->o.backend == CLI_KEEP ? "(the scene's)" : wfBackendName((wfBackendType)s->o.backend), s->plan.variantCount);
	for (int v = 0; v < s->plan.variantCount; ++v)
		used += (size_t)snprintf(text + used, size - used, "%d %s\n", v, s->plan.variants[v].sceneText);
	return text;
}

// ------------------------------------------------------------------ finished variants

// A row as WriteVariant writes it: "v,<the variant's parameters>,<status>,<frames>," then the 13
// other measures (numbers; a clearance "inf", or empty as sweeps before 2026-12 wrote it) and one '\n'. A row of another variant,
// another sweep or another program, or one cut short, is not this variant's.
static bool RowValid(const Sweep* s, int v, const char* row)
{
	const SweepVariant* variant = &s->plan.variants[v];
	char prefix[64];
	snprintf(prefix, sizeof prefix, "%d%s", v, s->plan.columnCount > 0 ? "," : "");
	size_t n = strlen(prefix), params = strlen(variant->params);
	if (strncmp(row, prefix, n) != 0 || strncmp(row + n, variant->params, params) != 0 || row[n + params] != ',')
		return false;
	const char* at = row + n + params + 1;
	if (strncmp(at, "ok,", 3) == 0)
		at += 3;
	else if (strncmp(at, "blown_up,", 9) == 0)
		at += 9;
	else
		return false;
	// frames, time, kinetic, potential, energy, max strain, mean strain, sag, sphere and floor
	// clearances, non-finite, then the three warning counts.
	for (int field = 0; field < 14; ++field) {
		char* end;
		bool integer = field == 0 || field >= 10;
		bool empty = (field == 8 || field == 9) && (*at == ',');
		if (!empty) {
			if (integer) {
				long long value = strtoll(at, &end, 10);
				if (end == at || value < 0 || (field == 0 && value != variant->frames))
					return false;
			} else {
				(void)strtod(at, &end);
				if (end == at)
					return false;
			}
			at = end;
		}
		if (*at != (field == 13 ? '\n' : ','))
			return false;
		++at;
	}
	return *at == 0;
}

// Whether a .npy file is whole: weft's float32 header with the shape `want` (-1: any extent) and
// exactly the bytes that shape holds after it.
static bool NpyWhole(const char* path, const int* want, int dims)
{
	FILE* f = fopen(path, "rb");
	if (f == NULL)
		return false;
	unsigned char preamble[10];
	char header[1024];
	struct stat st;
	bool ok = fread(preamble, 1, 10, f) == 10 && memcmp(preamble, "\x93NUMPY\x01\x00", 8) == 0;
	size_t length = ok ? (size_t)preamble[8] | (size_t)preamble[9] << 8 : 0;
	ok = ok && length < sizeof header && fread(header, 1, length, f) == length && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
	fclose(f);
	if (!ok)
		return false;
	header[length] = 0;
	const char* at = strstr(header, "'shape': (");
	if (at == NULL || strstr(header, "'descr': '<f4'") == NULL)
		return false;
	at += 10;
	size_t count = 1;
	for (int i = 0; i < dims; ++i) {
		char* end;
		long extent = strtol(at, &end, 10);
		if (end == at || extent < 0 || extent > INT_MAX || (want[i] >= 0 && extent != want[i]))
			return false;
		count *= (size_t)extent;
		at = end;
		if (*at == ',')
			++at;
		while (*at == ' ')
			++at;
	}
	return *at == ')' && (uint64_t)st.st_size == 10 + length + 4 * (uint64_t)count;
}

// Lines of a text file ending in '\n'; -1 when it cannot be read or its last line is cut.
static long long TextLines(const char* path)
{
	FILE* f = fopen(path, "rb");
	if (f == NULL)
		return -1;
	char block[65536];
	long long lines = 0;
	size_t n;
	char last = '\n';
	while ((n = fread(block, 1, sizeof block, f)) > 0) {
		for (size_t i = 0; i < n; ++i)
			lines += block[i] == '\n';
		last = block[n - 1];
	}
	bool failed = ferror(f) != 0;
	fclose(f);
	return failed || last != '\n' ? -1 : lines;
}

// Whether variant v finished in an earlier run: NULL when its row is this sweep's row of v and
// every file it records is there and whole; else why not ("no row" when it never finished).
static const char* NotFinished(const Sweep* s, int v)
{
	const SweepPlan* p = &s->plan;
	const SweepVariant* variant = &p->variants[v];
	char path[SWEEP_PATH];
	struct stat st;
	VariantPath(s, v, "row", path, sizeof path);
	if (stat(path, &st) != 0)
		return "no row";
	if (!S_ISREG(st.st_mode) || st.st_size > 65536 + (off_t)strlen(variant->params))
		return "its row file is not a row";
	char* row = ReadFileText(path);
	bool valid = row != NULL && RowValid(s, v, row);
	free(row);
	if (!valid)
		return "its row file is not this variant's row of this sweep";
	VariantPath(s, v, "scene.json", path, sizeof path);
	char* scene = ReadFileText(path);
	size_t length = strlen(variant->sceneText);
	valid = scene != NULL && strncmp(scene, variant->sceneText, length) == 0 && strcmp(scene + length, "\n") == 0;
	free(scene);
	if (!valid)
		return "its scene.json is missing or differs";
	VariantPath(s, v, "stats.csv", path, sizeof path);
	if (p->stats && TextLines(path) != 1 + (long long)variant->frames * variant->clothCount)
		return "its stats.csv is missing or cut short";
	const int finalShape[2] = {-1, 3};
	VariantPath(s, v, "final.npy", path, sizeof path);
	if (p->final && !NpyWhole(path, finalShape, 2))
		return "its final.npy is missing or not whole";
	const int framesShape[3] = {p->every > 0 ? variant->frames / p->every : 0, -1, 3};
	VariantPath(s, v, "frames.npy", path, sizeof path);
	if (p->every > 0 && !NpyWhole(path, framesShape, 3))
		return "its frames.npy is missing or not whole";
	return NULL;
}

// Whether a folder has anything in it.
static bool FolderHasEntries(const char* path)
{
	DIR* dir = opendir(path);
	if (dir == NULL)
		return false;
	bool any = false;
	for (struct dirent* e; !any && (e = readdir(dir)) != NULL;)
		any = strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(dir);
	return any;
}

// Rank 0: the folders, the plan (written once; a different one refuses the folder), the stale
// temporaries of killed runs, and which variants are finished. A folder that holds files but no
// plan.txt is not a sweep's: it is refused, so that none of its files is overwritten.
static int Prepare(Sweep* s)
{
	char error[SWEEP_PATH + 256], path[SWEEP_PATH];
	struct stat st;
	snprintf(path, sizeof path, "%s/plan.txt", s->o.out);
	if (stat(s->o.out, &st) == 0 && S_ISDIR(st.st_mode) && stat(path, &st) != 0 && FolderHasEntries(s->o.out)) {
		fprintf(stderr,
			"weft sweep: --out: '%s' is not empty and holds no plan.txt of a weft sweep; its files are left as they are "
			"(allowed: a new or empty folder, or the folder of this sweep)\n",
			s->o.out);
		return CLI_EXIT_USAGE;
	}
	if (!CliPrepareFolder(s->o.out, error, sizeof error)) {
		fprintf(stderr, "weft sweep: --out: %s\n", error);
		return CLI_EXIT_USAGE;
	}
	CliRemoveStaleTemporaries(s->o.out, NULL);
	char* want = PlanText(s);
	char* have = ReadFileText(path);
	int code = CLI_EXIT_OK;
	if (want == NULL) {
		fprintf(stderr, "weft sweep: out of memory\n");
		code = CLI_EXIT_RUNTIME;
	} else if (have != NULL && strcmp(have, want) != 0) {
		int line = 1;
		for (size_t i = 0; have[i] != 0 && have[i] == want[i]; ++i)
			line += have[i] == '\n';
		fprintf(stderr,
			"weft sweep: --out: %s holds the results of another sweep (its plan.txt differs from this one's at line %d: "
			"other variants, recording or backend); choose another --out folder, or remove that one\n",
			s->o.out, line);
		code = CLI_EXIT_USAGE;
	} else if (have == NULL && !WriteText(path, want, error, sizeof error)) {
		fprintf(stderr, "weft sweep: %s\n", error);
		code = CLI_EXIT_RUNTIME;
	}
	free(want);
	free(have);
	// The plan first, then the variants' folder: a folder of this program always has its plan.
	if (code == CLI_EXIT_OK && !CliPrepareFolder(s->variantsDir, error, sizeof error)) {
		fprintf(stderr, "weft sweep: --out: %s\n", error);
		code = CLI_EXIT_USAGE;
	}
	if (code == CLI_EXIT_OK)
		CliRemoveStaleTemporaries(s->variantsDir, NULL);
	// A row that is not this variant's, or whose files are gone or cut short, is removed (the folder
	// is this sweep's: its plan matched) and the variant runs again.
	for (int v = 0; code == CLI_EXIT_OK && v < s->plan.variantCount; ++v) {
		const char* why = NotFinished(s, v);
		s->done[v] = why == NULL;
		if (why == NULL || strcmp(why, "no row") == 0)
			continue;
		VariantPath(s, v, "row", path, sizeof path);
		fprintf(stderr, "weft sweep: variant %d: %s; it runs again\n", v, why);
		if (unlink(path) != 0) {
			fprintf(stderr, "weft sweep: %s: cannot remove the row of an unfinished variant: %s\n", path, strerror(errno));
			code = CLI_EXIT_RUNTIME;
		}
	}
	return code;
}

// ------------------------------------------------------------------ batches

static int CompareCost(const void* a, const void* b)
{
	const Batch* x = (const Batch*)a;
	const Batch* y = (const Batch*)b;
	return x->cost < y->cost ? 1 : x->cost > y->cost ? -1 : x->first - y->first;
}

// Cloths per world without --batch: 1024 on Vulkan (one dispatch steps them all), 1 on the CPU,
// where a world steps its cloths one after another and a batch is no faster than its variants
// alone (slower, measured: docs/PERFORMANCE.md, "Parameter studies"). "auto" is the CPU when there
// is no hardware Vulkan device, as in world creation.
static bool HasHardware(Sweep* s)
{
	if (s->hardware < 0) {
		wfDeviceInfo devices[16];
		int count = wfEnumerateDevices(devices, 16, NULL, 0);
		s->hardware = 0;
		for (int i = 0; i < count && i < 16; ++i)
			s->hardware |= devices[i].hardware;
	}
	return s->hardware > 0;
}

// The backend a variant's worlds get: "auto" resolved once for the sweep (as world creation would,
// which would also say so once per world).
static wfBackendType BackendOf(Sweep* s, const SweepVariant* v)
{
	wfBackendType backend = s->o.backend != CLI_KEEP ? (wfBackendType)s->o.backend : wfScene_GetWorldDef(v->scene).backend;
	if (backend == WF_BACKEND_AUTO && !HasHardware(s))
		return WF_BACKEND_CPU;
	return backend;
}

// Cloths between cloths (world.selfCollision.betweenCloths) would make batch mates collide: such a
// variant has a world of its own, as under `weft run --scene`.
static int BatchLimit(Sweep* s, const SweepVariant* v)
{
	if (wfScene_GetWorldDef(v->scene).selfCollision.betweenCloths)
		return v->clothCount;
	if (s->o.batch > 0)
		return s->o.batch;
	return BackendOf(s, v) == WF_BACKEND_CPU ? 1 : SWEEP_MAX_BATCH;
}

// The unfinished variants grouped by world (the plan's groups, in order of first appearance,
// variants in index order: a counting sort, linear in the variant count), each group cut into
// batches of at most BatchLimit cloths and of recorded frames within SWEEP_RECORD_BUDGET. The same
// on every rank: it depends on the plan and `done` only.
static bool MakeBatches(Sweep* s)
{
	const SweepPlan* p = &s->plan;
	int n = p->variantCount;
	int* start = (int*)calloc((size_t)p->groupCount + 1, sizeof(int)); // each group's first place in the order
	s->order = (int*)malloc((size_t)n * sizeof(int) + 1);
	s->batches = (Batch*)malloc((size_t)n * sizeof(Batch) + 1);
	if (start == NULL || s->order == NULL || s->batches == NULL) {
		free(start);
		return false;
	}
	for (int v = 0; v < n; ++v)
		start[p->variants[v].group + 1] += !s->done[v];
	for (int g = 0; g < p->groupCount; ++g)
		start[g + 1] += start[g];
	s->todoCount = start[p->groupCount];
	for (int v = 0; v < n; ++v) {
		if (!s->done[v])
			s->order[start[p->variants[v].group]++] = v;
	}
	free(start);
	s->batchCount = 0;
	int cloths = 0;
	double recorded = 0.0;
	for (int i = 0; i < s->todoCount; ++i) {
		const SweepVariant* v = &p->variants[s->order[i]];
		double bytes = p->every > 0 ? (double)(v->frames / p->every) * v->particles * 12.0 : 0.0;
		Batch* b = s->batchCount > 0 ? &s->batches[s->batchCount - 1] : NULL;
		bool fits = b != NULL && p->variants[s->order[b->first]].group == v->group && cloths + v->clothCount <= BatchLimit(s, v) &&
			recorded + bytes <= SWEEP_RECORD_BUDGET;
		if (!fits) {
			b = &s->batches[s->batchCount++];
			b->first = i;
			b->count = 0;
			b->cost = 0.0;
			cloths = 0;
			recorded = 0.0;
		}
		b->count++;
		b->cost += v->cost;
		cloths += v->clothCount;
		recorded += bytes;
	}
	// The queue hands out the dearest batches first (longest processing time first), so that the
	// last batches to finish are short ones.
	if (s->o.queue)
		qsort(s->batches, (size_t)s->batchCount, sizeof(Batch), CompareCost);
	return true;
}

// ------------------------------------------------------------------ running

// A variant's particle counts are its cloths' live ones (wfClothInfo), read with the positions:
// tearing adds particles between frames, and a mesh cloth has its vertices, not cols x rows.
typedef struct VariantRun {
	int variant;
	int firstCloth; // into the batch's cloth ids
	int clothCount;
	int particles;       // of all its cloths, at the last read of `final`
	int finalCapacity;   // particles `final` has room for
	float* final;        // (particles x 3)
	float* startY;       // (startAt[clothCount]) the particles' start heights, for the sag
	int* startAt;        // (clothCount + 1) each cloth's first particle in startY
	wfClothStats* stats; // (frames x clothCount) when recorded
	int recorded;        // frames recorded so far (record.every)
	int recordSlots;     // frames / every
	float** frames;      // (frames / every) each recorded frame's positions (frameParticles[i] x 3)
	int* frameParticles; // (frames / every)
	wfWarnings warnings; // the variant's own (a batch that warns is run again variant by variant)
} VariantRun;

typedef struct BatchRun {
	wfWorld* world;
	wfClothId* cloths;
	VariantRun* runs;
	int count;
	int frames;
	int clothCount;
} BatchRun;

static void FreeBatch(BatchRun* b)
{
	for (int i = 0; b->runs != NULL && i < b->count; ++i) {
		VariantRun* r = &b->runs[i];
		for (int f = 0; r->frames != NULL && f < r->recordSlots; ++f)
			free(r->frames[f]);
		free(r->frames);
		free(r->frameParticles);
		free(r->stats);
		free(r->final);
		free(r->startY);
		free(r->startAt);
	}
	free(b->runs);
	free(b->cloths);
	wfDestroyWorld(b->world);
	memset(b, 0, sizeof *b);
}

// The variant's positions now, all its cloths in order, into *out (grown to hold them; *capacity
// particles): *count is the cloths' live particle count, which tearing raises between frames.
static bool ReadAll(const BatchRun* b, const VariantRun* r, float** out, int* capacity, int* count)
{
	long long total = 0;
	for (int c = 0; c < r->clothCount; ++c) {
		wfClothInfo info;
		if (wfCloth_GetInfo(b->cloths[r->firstCloth + c], &info) != WF_OK)
			return false;
		total += info.particleCount;
	}
	if (total > INT_MAX / 3)
		return false;
	if (total > *capacity) {
		float* bigger = (float*)realloc(*out, (size_t)total * 3 * sizeof(float));
		if (bigger == NULL)
			return false;
		*out = bigger;
		*capacity = (int)total;
	}
	for (int c = 0, at = 0; c < r->clothCount; ++c) {
		wfClothInfo info;
		wfClothId id = b->cloths[r->firstCloth + c];
		if (wfCloth_GetInfo(id, &info) != WF_OK || at + info.particleCount > total ||
			wfCloth_ReadPositions(id, (wfVec3*)(*out + 3 * (size_t)at), info.particleCount) != WF_OK)
			return false;
		at += info.particleCount;
	}
	*count = (int)total;
	return true;
}

// The start heights of the particles at creation, each cloth's from its first particle on.
static bool ReadStart(const BatchRun* b, VariantRun* r)
{
	if (!ReadAll(b, r, &r->final, &r->finalCapacity, &r->particles))
		return false;
	r->startY = (float*)malloc((size_t)r->particles * sizeof(float) + 1);
	r->startAt = (int*)malloc(((size_t)r->clothCount + 1) * sizeof(int));
	if (r->startY == NULL || r->startAt == NULL)
		return false;
	r->startAt[0] = 0;
	for (int c = 0; c < r->clothCount; ++c) {
		wfClothInfo info;
		if (wfCloth_GetInfo(b->cloths[r->firstCloth + c], &info) != WF_OK)
			return false;
		r->startAt[c + 1] = r->startAt[c] + info.particleCount;
	}
	for (int k = 0; k < r->particles; ++k)
		r->startY[k] = r->final[3 * k + 1];
	return true;
}

// The batch's world: the first variant's world def (equal for all of them) with the command's
// overrides, this rank's device and the tools' environment switches.
static int CreateBatch(Sweep* s, const int* variants, int count, BatchRun* b)
{
	const SweepPlan* p = &s->plan;
	memset(b, 0, sizeof *b);
	wfWorldDef wd = wfScene_GetWorldDef(p->variants[variants[0]].scene);
	wd.backend = BackendOf(s, &p->variants[variants[0]]);
	if (wd.backend == WF_BACKEND_CPU && wfScene_GetWorldDef(p->variants[variants[0]].scene).backend == WF_BACKEND_AUTO &&
		s->o.backend == CLI_KEEP && !s->toldAuto) {
		s->toldAuto = true;
		if (s->par.rank == 0 && !s->o.quiet)
			fprintf(stderr, "weft sweep: backend auto: no hardware Vulkan device; the CPU solver steps the variants\n");
	}
	if (wd.backend == WF_BACKEND_CPU)
		wd.deviceName = NULL;
	else if (s->device[0] != 0)
		wd.deviceName = s->device;
	if (s->o.threads != CLI_KEEP)
		wd.threads = s->o.threads;
	wfEnvApplyToWorldDef(&wd);
	char error[512];
	b->world = wfCreateWorld(&wd, error, (int)sizeof error);
	if (b->world == NULL) {
		fprintf(stderr, "weft sweep: variant %d: cannot create the world: %s\n", variants[0], error);
		return CLI_EXIT_RUNTIME;
	}
	b->count = count;
	b->frames = p->variants[variants[0]].frames;
	for (int i = 0; i < count; ++i)
		b->clothCount += p->variants[variants[i]].clothCount;
	b->runs = (VariantRun*)calloc((size_t)(unsigned)count, sizeof(VariantRun));
	b->cloths = (wfClothId*)calloc((size_t)(unsigned)b->clothCount, sizeof(wfClothId));
	if (b->runs == NULL || b->cloths == NULL)
		return CLI_EXIT_RUNTIME;
	// What `weft run --scene` of each variant's scene file creates (CliPopulateWorld): the colliders
	// (equal for the batch: they are part of the world key), then each variant's cloths.
	int cloth = 0;
	for (int i = 0; i < count; ++i) {
		const SweepVariant* v = &p->variants[variants[i]];
		VariantRun* r = &b->runs[i];
		r->variant = variants[i];
		r->firstCloth = cloth;
		r->clothCount = v->clothCount;
		char who[64];
		snprintf(who, sizeof who, "weft sweep: variant %d", r->variant);
		if (CliPopulateWorld(b->world, v->scene, i == 0, NULL, v->clothCount, &b->cloths[cloth], who) != CLI_EXIT_OK)
			return CLI_EXIT_RUNTIME;
		cloth += v->clothCount;
		size_t recorded = p->every > 0 ? (size_t)(b->frames / p->every) : 0;
		r->stats = p->stats ? (wfClothStats*)calloc((size_t)(unsigned)b->frames * (size_t)(unsigned)r->clothCount, sizeof(wfClothStats))
							: NULL;
		r->recordSlots = (int)recorded;
		r->frames = recorded > 0 ? (float**)calloc(recorded, sizeof(float*)) : NULL;
		r->frameParticles = recorded > 0 ? (int*)calloc(recorded, sizeof(int)) : NULL;
		if ((p->stats && r->stats == NULL) || (recorded > 0 && (r->frames == NULL || r->frameParticles == NULL)) || !ReadStart(b, r)) {
			fprintf(stderr, "weft sweep: variant %d: out of memory for its recording\n", r->variant);
			return CLI_EXIT_RUNTIME;
		}
	}
	return CLI_EXIT_OK;
}

static int64_t WarningSum(wfWarnings w) { return w.nonFinite + w.unstable + w.timeStepTooLarge; }

// Steps the batch. A warning in a batch of several variants stops it (*mixed = true): warnings are
// counted per world, so such a batch is run again one variant at a time.
static int StepBatch(const Sweep* s, BatchRun* b, bool* mixed)
{
	const SweepPlan* p = &s->plan;
	*mixed = false;
	for (int frame = 1; frame <= b->frames; ++frame) {
		if (CliInterrupted())
			return CLI_EXIT_INTERRUPTED;
		wfResult result = wfWorld_Step(b->world);
		if (result != WF_OK) {
			fprintf(stderr, "weft sweep: variant %d: frame %d: step failed (%s): %s\n", b->runs[0].variant, frame, wfResultName(result),
				wfWorld_GetLastError(b->world));
			return CLI_EXIT_RUNTIME;
		}
		if (b->count > 1 && WarningSum(wfWorld_GetWarnings(b->world)) > 0) {
			*mixed = true;
			return CLI_EXIT_OK;
		}
		for (int i = 0; i < b->count; ++i) {
			VariantRun* r = &b->runs[i];
			for (int c = 0; r->stats != NULL && c < r->clothCount; ++c) {
				if (wfCloth_GetStats(b->cloths[r->firstCloth + c], &r->stats[(size_t)(frame - 1) * r->clothCount + c]) != WF_OK)
					return CLI_EXIT_RUNTIME;
			}
			if (p->every > 0 && frame % p->every == 0 && r->recorded < r->recordSlots) {
				int capacity = 0;
				if (!ReadAll(b, r, &r->frames[r->recorded], &capacity, &r->frameParticles[r->recorded])) {
					fprintf(stderr, "weft sweep: variant %d: frame %d: cannot read the positions back\n", r->variant, frame);
					return CLI_EXIT_RUNTIME;
				}
				r->recorded++;
			}
		}
	}
	for (int i = 0; i < b->count; ++i)
		b->runs[i].warnings = b->count == 1 ? wfWorld_GetWarnings(b->world) : (wfWarnings){0};
	return CLI_EXIT_OK;
}

// The summary's columns after the parameters.
static const char kMeasures[] = "status,frames,time,kinetic_energy,potential_energy,energy,max_strain,mean_strain,sag,"
								"sphere_clearance,floor_clearance,non_finite,discarded_non_finite,discarded_unstable,time_step_too_large";

// No such collider (FLT_MAX in wfClothStats) is "inf", as in weft run's statistics and in Python.
static void AppendClearance(char* out, size_t size, float clearance)
{
	size_t n = strlen(out);
	if (clearance < FLT_MAX)
		snprintf(out + n, size - n, ",%.9g", clearance);
	else
		snprintf(out + n, size - n, ",inf");
}

// The row: the parameters, then the final measures over the variant's cloths (energies and
// momentum summed, strains and clearances the worst), as `weft run` sums them.
static char* FormatRow(const Sweep* s, const BatchRun* b, const VariantRun* r)
{
	wfClothStats total;
	memset(&total, 0, sizeof total);
	for (int c = 0; c < r->clothCount; ++c) {
		wfClothStats st;
		wfCloth_GetStats(b->cloths[r->firstCloth + c], &st);
		if (c == 0) {
			total = st;
			continue;
		}
		total.kineticEnergy += st.kineticEnergy;
		total.potentialEnergy += st.potentialEnergy;
		total.maxStrain = st.maxStrain > total.maxStrain ? st.maxStrain : total.maxStrain;
		total.meanStrain = st.meanStrain > total.meanStrain ? st.meanStrain : total.meanStrain;
		total.sphereClearance = st.sphereClearance < total.sphereClearance ? st.sphereClearance : total.sphereClearance;
		total.floorClearance = st.floorClearance < total.floorClearance ? st.floorClearance : total.floorClearance;
		total.nonFinite += st.nonFinite;
	}
	// The sag over the particles there are at the end, each from the start of the particle it
	// descends from (a tear's copies from their original's; the others from their own).
	double startY = 0.0, endY = 0.0;
	for (int c = 0, at = 0; c < r->clothCount; ++c) {
		wfClothId id = b->cloths[r->firstCloth + c];
		wfClothInfo info;
		int* source = NULL;
		if (wfCloth_GetInfo(id, &info) != WF_OK || at + info.particleCount > r->particles ||
			(source = (int*)malloc((size_t)info.particleCount * sizeof(int) + 1)) == NULL ||
			wfCloth_ReadSourceParticles(id, source, info.particleCount) != WF_OK) {
			free(source);
			return NULL;
		}
		int first = r->startAt[c], count = r->startAt[c + 1] - first;
		for (int k = 0; k < info.particleCount; ++k)
			startY += r->startY[first + (source[k] >= 0 && source[k] < count ? source[k] : k % count)];
		free(source);
		at += info.particleCount;
	}
	for (int k = 0; k < r->particles; ++k)
		endY += r->final[3 * k + 1];
	double sag = (startY - endY) / r->particles;
	const wfWarnings* w = &r->warnings;
	bool blown = w->nonFinite + w->unstable > 0 || total.nonFinite > 0;
	const SweepVariant* v = &s->plan.variants[r->variant];
	size_t size = strlen(v->params) + 512;
	char* row = (char*)malloc(size);
	if (row == NULL)
		return NULL;
	snprintf(row, size, "%d%s%s,%s,%d,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g", r->variant, s->plan.columnCount > 0 ? "," : "", v->params,
		blown ? "blown_up" : "ok", b->frames, total.time, total.kineticEnergy, total.potentialEnergy,
		total.kineticEnergy + total.potentialEnergy, total.maxStrain, total.meanStrain, sag);
	AppendClearance(row, size, total.sphereClearance);
	AppendClearance(row, size, total.floorClearance);
	size_t n = strlen(row);
	snprintf(row + n, size - n, ",%d,%lld,%lld,%lld\n", total.nonFinite, (long long)w->nonFinite, (long long)w->unstable,
		(long long)w->timeStepTooLarge);
	return row;
}

// The recorded frames as one (recorded x particles x 3) array, particles the most any frame had:
// a frame before a tear has fewer, and the rows of the particles it did not have yet are NaN.
static float* FramesArray(const VariantRun* r, int* width)
{
	*width = 0;
	for (int f = 0; f < r->recorded; ++f)
		*width = r->frameParticles[f] > *width ? r->frameParticles[f] : *width;
	size_t row = (size_t)*width * 3;
	float* all = (float*)malloc((size_t)r->recorded * row * sizeof(float) + 1);
	for (int f = 0; all != NULL && f < r->recorded; ++f) {
		size_t have = (size_t)r->frameParticles[f] * 3;
		memcpy(all + f * row, r->frames[f], have * sizeof(float));
		for (size_t k = have; k < row; ++k)
			all[f * row + k] = NAN;
	}
	return all;
}

// A finished variant's files, each atomic; the row last: it marks the variant finished. A file
// that cannot be written (a full disk) sets s->writeFailed: the sweep stops there.
static bool WriteVariant(Sweep* s, const BatchRun* b, VariantRun* r)
{
	const SweepPlan* p = &s->plan;
	char path[SWEEP_PATH], error[CLI_PATH_MAX + 256];
	error[0] = 0;
	if (!ReadAll(b, r, &r->final, &r->finalCapacity, &r->particles)) {
		fprintf(stderr, "weft sweep: variant %d: cannot read the cloths' positions back\n", r->variant);
		return false;
	}
	char* row = FormatRow(s, b, r);
	size_t length = strlen(p->variants[r->variant].sceneText);
	char* scene = (char*)malloc(length + 2);
	int width = 0;
	float* frames = p->every > 0 ? FramesArray(r, &width) : NULL;
	if (row == NULL || scene == NULL || (p->every > 0 && frames == NULL)) {
		fprintf(stderr, "weft sweep: variant %d: out of memory for its files\n", r->variant);
		free(row);
		free(scene);
		free(frames);
		return false;
	}
	memcpy(scene, p->variants[r->variant].sceneText, length);
	memcpy(scene + length, "\n", 2);
	VariantPath(s, r->variant, "scene.json", path, sizeof path);
	bool ok = WriteText(path, scene, error, sizeof error);
	if (ok && p->stats) {
		CliFile f;
		VariantPath(s, r->variant, "stats.csv", path, sizeof path);
		ok = CliCsvOpen(&f, path, r->clothCount > 1, false, error, sizeof error);
		for (int frame = 1; ok && frame <= b->frames; ++frame) {
			for (int c = 0; c < r->clothCount; ++c)
				CliCsvRow(&f, frame, r->clothCount > 1 ? c : -1, &r->stats[(size_t)(frame - 1) * r->clothCount + c], NULL);
		}
		ok = ok && CliFileCommit(&f, error, sizeof error);
	}
	if (ok && p->final) {
		VariantPath(s, r->variant, "final.npy", path, sizeof path);
		const int shape[2] = {r->particles, 3};
		ok = CliNpyWriteFloat32(path, shape, 2, r->final, error, sizeof error);
	}
	if (ok && p->every > 0) {
		VariantPath(s, r->variant, "frames.npy", path, sizeof path);
		const int shape[3] = {r->recorded, width, 3};
		ok = CliNpyWriteFloat32(path, shape, 3, frames, error, sizeof error);
	}
	if (ok) {
		VariantPath(s, r->variant, "row", path, sizeof path);
		ok = WriteText(path, row, error, sizeof error);
	}
	free(row);
	free(scene);
	free(frames);
	if (!ok) {
		fprintf(stderr, "weft sweep: variant %d: %s\n", r->variant, error);
		s->writeFailed = true;
	}
	return ok;
}

// "\r" progress on a terminal, at most ten times a second.
static void Progress(Sweep* s, int done, int total, double* lastShown)
{
	double now = CliNow();
	if (s->o.quiet || !isatty(STDERR_FILENO) || s->par.rank != 0 || now - *lastShown < 0.1 || done == 0)
		return;
	*lastShown = now;
	double rate = done / (now - s->start);
	if (s->par.size == 1)
		fprintf(stderr, "\rweft sweep: %d/%d variants (%d%%), %.1f variants/s, %.0f s left   ", done, total, 100 * done / total, rate,
			(total - done) / rate);
	else
		fprintf(stderr, "\rweft sweep: rank 0 of %d: %d variants done, %.1f variants/s   ", s->par.size, done, rate);
	fflush(stderr);
}

static int RunVariants(Sweep* s, const int* variants, int count, double* lastShown);

static int RunBatchOf(Sweep* s, const int* variants, int count, double* lastShown)
{
	BatchRun b;
	int code = CreateBatch(s, variants, count, &b);
	bool mixed = false;
	if (code == CLI_EXIT_OK)
		code = StepBatch(s, &b, &mixed);
	if (code == CLI_EXIT_OK && !mixed) {
		for (int i = 0; i < count; ++i) {
			if (!WriteVariant(s, &b, &b.runs[i])) {
				code = CLI_EXIT_RUNTIME;
				break;
			}
			s->ranHere++;
			Progress(s, s->ranHere, s->todoCount, lastShown);
		}
	}
	FreeBatch(&b);
	// Warnings are the world's: the variants of a batch that warned run again alone (the same
	// results, bit for bit, as the test sweep_batched_equals_alone checks), each with its own counts.
	if (code == CLI_EXIT_OK && mixed) {
		for (int i = 0; i < count && code != CLI_EXIT_INTERRUPTED && !s->writeFailed; ++i) {
			int one = RunVariants(s, &variants[i], 1, lastShown);
			code = one > code ? one : code;
		}
	}
	return code;
}

// A batch that fails (a world or a cloth that cannot be created, a failed step) is tried again
// variant by variant, so that a failure costs only the variants that fail, never the sweep.
static int RunVariants(Sweep* s, const int* variants, int count, double* lastShown)
{
	int code = RunBatchOf(s, variants, count, lastShown);
	if (code != CLI_EXIT_RUNTIME || count == 1 || s->writeFailed)
		return code;
	code = CLI_EXIT_OK;
	for (int i = 0; i < count && code != CLI_EXIT_INTERRUPTED && !s->writeFailed; ++i) {
		char path[SWEEP_PATH];
		struct stat st;
		VariantPath(s, variants[i], "row", path, sizeof path);
		if (stat(path, &st) == 0)
			continue; // written before the failure
		int one = RunBatchOf(s, &variants[i], 1, lastShown);
		code = one > code ? one : code;
	}
	return code;
}

static int RunBatches(Sweep* s)
{
	char error[256];
	int worst = CLI_EXIT_OK;
	double lastShown = 0.0;
	if (s->o.queue && !SweepParQueueOpen(&s->par, error, sizeof error)) {
		fprintf(stderr, "weft sweep: the work queue: %s\n", error);
		return CLI_EXIT_RUNTIME;
	}
	// Static: contiguous blocks of batches, one per rank. Queue: the next batch of the shared counter.
	int first = (int)((long long)s->batchCount * s->par.rank / s->par.size);
	int last = (int)((long long)s->batchCount * (s->par.rank + 1) / s->par.size);
	for (int i = first;; ++i) {
		int index = s->o.queue ? SweepParQueueNext(&s->par) : i;
		if (index >= (s->o.queue ? s->batchCount : last) || CliInterrupted())
			break;
		const Batch* b = &s->batches[index];
		int code = RunVariants(s, &s->order[b->first], b->count, &lastShown);
		if (code == CLI_EXIT_INTERRUPTED) {
			worst = code;
			break;
		}
		worst = code > worst ? code : worst;
		// A file that could not be written (a full disk, a file size limit): every later variant
		// would fail the same way, so the sweep stops with the finished ones kept.
		if (s->writeFailed) {
			fprintf(stderr,
				"weft sweep: stopped at the first result file that could not be written (see above); the finished "
				"variants are kept, and the same command runs the others once there is room\n");
			worst = CLI_EXIT_RUNTIME;
			break;
		}
	}
	if (lastShown > 0.0)
		fprintf(stderr, "\r%78s\r", "");
	if (s->o.queue)
		SweepParQueueClose(&s->par);
	return CliInterrupted() ? CLI_EXIT_INTERRUPTED : worst;
}

// ------------------------------------------------------------------ summary

// Rank 0, after every rank has finished: summary.csv from the rows there are, in variant order.
static int WriteSummary(Sweep* s, int* finished, int* blown)
{
	char path[SWEEP_PATH], error[CLI_PATH_MAX + 256];
	snprintf(path, sizeof path, "%s/summary.csv", s->o.out);
	CliFile f;
	if (!CliFileOpen(&f, path, error, sizeof error)) {
		fprintf(stderr, "weft sweep: %s\n", error);
		return CLI_EXIT_RUNTIME;
	}
	fprintf(f.file, "variant");
	for (int c = 0; c < s->plan.columnCount; ++c)
		fprintf(f.file, ",%s", s->plan.columns[c]);
	fprintf(f.file, ",%s\n", kMeasures);
	*finished = *blown = 0;
	for (int v = 0; v < s->plan.variantCount; ++v) {
		VariantPath(s, v, "row", path, sizeof path);
		char* row = ReadFileText(path);
		if (row == NULL || !RowValid(s, v, row)) {
			free(row);
			continue;
		}
		fputs(row, f.file);
		(*finished)++;
		*blown += strstr(row, ",blown_up,") != NULL;
		free(row);
	}
	if (!CliFileCommit(&f, error, sizeof error)) {
		fprintf(stderr, "weft sweep: %s\n", error);
		return CLI_EXIT_RUNTIME;
	}
	return CLI_EXIT_OK;
}

static void List(const Sweep* s)
{
	printf("variant");
	for (int c = 0; c < s->plan.columnCount; ++c)
		printf(",%s", s->plan.columns[c]);
	printf(",batch,frames,cloths,particles\n");
	for (int b = 0; b < s->batchCount; ++b) {
		for (int i = 0; i < s->batches[b].count; ++i) {
			const SweepVariant* v = &s->plan.variants[s->order[s->batches[b].first + i]];
			printf("%d%s%s,%d,%d,%d,%d\n", s->order[s->batches[b].first + i], s->plan.columnCount > 0 ? "," : "", v->params, b, v->frames,
				v->clothCount, v->particles);
		}
	}
}

// This rank's device: its entry of --devices (by local rank); else, with several ranks and neither
// WEFT_VK_DEVICE nor a scene's deviceName, the hardware device "#N" of its local rank among the
// hardware devices, so that the ranks of a host with two GPUs of one model take one each.
static void PickDevice(Sweep* s)
{
	s->device[0] = 0;
	if (s->o.devices != NULL) {
		int count = 1;
		for (const char* c = s->o.devices; *c != 0; ++c)
			count += *c == ',';
		int want = s->par.localRank % count;
		const char* at = s->o.devices;
		for (int i = 0; i < want; ++i)
			at = strchr(at, ',') + 1;
		size_t n = strcspn(at, ",");
		snprintf(s->device, sizeof s->device, "%.*s", (int)(n < sizeof s->device ? n : sizeof s->device - 1), at);
		return;
	}
	const char* named = s->plan.variantCount > 0 ? wfScene_GetWorldDef(s->plan.variants[0].scene).deviceName : NULL;
	if (s->par.size == 1 || wfEnvDeviceName() != NULL || (named != NULL && named[0] != 0))
		return;
	wfDeviceInfo devices[64];
	int count = wfEnumerateDevices(devices, 64, NULL, 0), hardware[64], n = 0;
	for (int i = 0; i < count && i < 64; ++i) {
		if (devices[i].hardware)
			hardware[n++] = i;
	}
	if (n < 2)
		return;
	int index = hardware[s->par.localRank % n];
	snprintf(s->device, sizeof s->device, "#%d", index);
	if (!s->o.quiet)
		fprintf(stderr, "weft sweep: rank %d (local rank %d): device #%d, %s\n", s->par.rank, s->par.localRank, index, devices[index].name);
}

static int Sweep_Run(Sweep* s)
{
	char error[8192];
	// Every rank expands the plan (the same for all); only rank 0 speaks of a bad file.
	if (!SweepPlanLoad(&s->plan, s->o.file, error, sizeof error)) {
		if (s->par.rank == 0)
			fprintf(stderr, "weft sweep: %s\n", error);
		return CLI_EXIT_USAGE;
	}
	s->done = (unsigned char*)calloc((size_t)s->plan.variantCount, 1);
	if (s->done == NULL)
		return CLI_EXIT_RUNTIME;
	int code = CLI_EXIT_OK;
	if (!s->o.list) {
		snprintf(s->variantsDir, sizeof s->variantsDir, "%.3990s/variants", s->o.out);
		if (s->par.rank == 0)
			code = Prepare(s);
		SweepParBroadcast(&s->par, &code, sizeof code);
		if (code != CLI_EXIT_OK)
			return code;
		SweepParBroadcast(&s->par, s->done, (size_t)s->plan.variantCount);
	}
	if (!MakeBatches(s)) {
		fprintf(stderr, "weft sweep: out of memory\n");
		return CLI_EXIT_RUNTIME;
	}
	if (s->o.list) {
		if (s->par.rank == 0)
			List(s);
		return CLI_EXIT_OK;
	}
	PickDevice(s);
	CliCatchSignals();
	s->start = CliNow();
	code = RunBatches(s);
	code = SweepParMax(&s->par, code);
	if (s->par.rank != 0)
		return code;
	int finished = 0, blown = 0;
	int summary = WriteSummary(s, &finished, &blown);
	int before = s->plan.variantCount - s->todoCount;
	double seconds = CliNow() - s->start;
	if (code == CLI_EXIT_INTERRUPTED)
		fprintf(stderr,
			"weft sweep: interrupted: %d of %d variants finished (%d before this run); run the same command again "
			"to run the other %d\n",
			finished, s->plan.variantCount, before, s->plan.variantCount - finished);
	else if (finished < s->plan.variantCount)
		fprintf(stderr, "weft sweep: %d of %d variants failed (see above); the others are in %s/summary.csv\n",
			s->plan.variantCount - finished, s->plan.variantCount, s->o.out);
	if (!s->o.quiet && code != CLI_EXIT_INTERRUPTED)
		printf("weft sweep: %d variants (%d run now in %d batch%s by %d process%s, %d finished before), %d blown up; %.3f s, "
			   "%.2f variants/s; summary in %s/summary.csv\n",
			s->plan.variantCount, finished - before, s->batchCount, s->batchCount == 1 ? "" : "es", s->par.size,
			s->par.size == 1 ? "" : "es", before, blown, seconds, seconds > 0.0 ? (finished - before) / seconds : 0.0, s->o.out);
	if (code == CLI_EXIT_OK && finished < s->plan.variantCount)
		code = CLI_EXIT_RUNTIME;
	return code != CLI_EXIT_OK ? code : summary;
}

int CliSweep(int argc, char** argv)
{
	Sweep s;
	memset(&s, 0, sizeof s);
	s.hardware = -1;
	int code = ParseArgs(argc, argv, &s.o);
	if (code != CLI_EXIT_OK)
		return code == CLI_EXIT_HELP ? CLI_EXIT_OK : code;
	char error[512];
	if (!SweepParInit(&s.par, &argc, &argv, error, sizeof error)) {
		fprintf(stderr, "weft sweep: %s\n", error);
		return CLI_EXIT_RUNTIME;
	}
	code = Sweep_Run(&s);
	SweepPlanFree(&s.plan);
	free(s.done);
	free(s.order);
	free(s.batches);
	SweepParFinalize(&s.par);
	return code;
}
