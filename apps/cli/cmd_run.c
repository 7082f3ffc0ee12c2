// `weft run`: steps a scene or a preset, writes OBJ frames, a USD cache and a statistics CSV, prints a summary.
#include "cli.h"
#include "gltf.h"
#include "output.h"
#include "render_out.h"
#include "usd.h"

#include <float.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define RUN_DEFAULT_FRAMES 120

// Set by SIGINT/SIGTERM: the loop stops after the frame in progress; the outputs keep the frames
// finished so far (the CSV and the video are completed and renamed into place).
static volatile sig_atomic_t s_interrupted;

static void OnSignal(int signal)
{
	(void)signal;
	s_interrupted = 1;
}

bool CliInterrupted(void) { return s_interrupted != 0; }

typedef struct Outputs {
	CliRenderOut* render; // NULL unless --png or --video
	bool obj;
	CliObjWriter objWriter;
	bool csv;
	CliFile csvFile;
	bool intersections; // --intersections: counted after every frame
	CliGltf* gltf;      // NULL unless --gltf
	CliUsdWriter* usd;  // NULL unless --usd
} Outputs;

// Timings and the final state, for the summary.
typedef struct RunResult {
	int frames;         // frames stepped
	int discarded;      // frames in which every cloth's step was discarded (non-finite or exploded)
	double wallSeconds; // the whole loop, output included
	double stepSeconds; // wfWorld_Step alone
	wfClothStats total; // summed energies and momentum, worst strain and clearances
	// --intersections: the last frame's counts, the frames with any, the most in one frame
	wfIntersections intersections;
	int intersectionFrames;
	int64_t intersectionsMost;
} RunResult;

// Frames of an earlier run in an --obj or --png folder would mix with this run's: refused unless
// --overwrite, which removes them (and only them) before the first step.
static int CheckOldFrames(const char* option, const char* folder, const char* extension, bool overwrite, bool quiet)
{
	if (folder == NULL)
		return CLI_EXIT_OK;
	char example[300];
	int count = CliOldFrames(folder, extension, false, example, sizeof example);
	if (count <= 0)
		return CLI_EXIT_OK;
	if (!overwrite) {
		fprintf(stderr,
			"weft run: --%s: '%s' already holds %d frame%s of an earlier run (%s%s); give --overwrite to "
			"remove them first, or choose another folder\n",
			option, folder, count, count == 1 ? "" : "s", example, count > 1 ? ", ..." : "");
		return CLI_EXIT_USAGE;
	}
	int removed = CliOldFrames(folder, extension, true, example, sizeof example);
	if (removed != count) {
		fprintf(stderr, "weft run: --%s: cannot remove the old frames in '%s' (%d of %d removed)\n", option, folder,
			removed < 0 ? 0 : removed, count);
		return CLI_EXIT_RUNTIME;
	}
	if (!quiet)
		fprintf(stderr, "weft run: --overwrite: removed %d old frame%s from %s\n", count, count == 1 ? "" : "s", folder);
	return CLI_EXIT_OK;
}

// Temporaries that a killed run (SIGKILL, power loss) left where this run writes.
static void RemoveStale(const char* folder, const char* filePath)
{
	if (folder != NULL) {
		CliRemoveStaleTemporaries(folder, NULL);
		return;
	}
	if (filePath == NULL)
		return;
	char dir[CLI_PATH_MAX];
	CliFolderOf(filePath, dir, sizeof dir);
	const char* slash = strrchr(filePath, '/');
	CliRemoveStaleTemporaries(dir, slash != NULL ? slash + 1 : filePath);
}

// An output that is an input (--stats naming the scene would overwrite it) or another output (--stats
// X --video X would write two files into one) is refused before anything is made.
static int CheckDistinctFiles(const CliOptions* o)
{
	char mtl[CLI_PATH_MAX + 16]; // --obj DIR writes DIR/weft.mtl
	snprintf(mtl, sizeof mtl, "%s/weft.mtl", o->objDir != NULL ? o->objDir : "");
	const struct {
		const char* option;
		const char* path;
		bool input;
	} files[] = {{"scene", o->scene, true}, {"obj", o->objDir != NULL ? mtl : NULL, false}, {"stats", o->statsPath, false},
		{"usd", o->usdPath, false}, {"video", o->render.videoPath, false}, {"gltf", o->gltfPath, false}};
	const int count = (int)(sizeof files / sizeof files[0]);
	for (int i = 0; i < count; ++i) {
		for (int j = i + 1; j < count; ++j) {
			if (files[i].path == NULL || files[j].path == NULL || files[j].input || !CliSameFile(files[i].path, files[j].path))
				continue;
			fprintf(stderr, "weft run: --%s: '%s' is %s --%s file ('%s')%s\n", files[j].option, files[j].path,
				files[i].input ? "the" : "also the", files[i].option, files[i].path,
				files[i].input ? ", an input: it would be overwritten; choose another output file"
							   : ": each output needs a file of its own");
			return CLI_EXIT_USAGE;
		}
	}
	return CLI_EXIT_OK;
}

// Folders are created and checked before the first step, so a bad path costs no simulation.
static int OpenOutputs(const CliOptions* o, const CliSim* sim, Outputs* out)
{
	char error[CLI_PATH_MAX + 256];
	memset(out, 0, sizeof *out);
	out->intersections = o->intersections;
	// Old frames without --overwrite: refused before any folder is created or file touched.
	int code = CLI_EXIT_OK;
	if (!o->overwrite) {
		code = CheckOldFrames("obj", o->objDir, "obj", false, o->quiet);
		if (code == CLI_EXIT_OK)
			code = CheckOldFrames("png", o->render.pngDir, "png", false, o->quiet);
		if (code != CLI_EXIT_OK)
			return code;
	}
	if (o->objDir != NULL && !CliPrepareFolder(o->objDir, error, sizeof error)) {
		fprintf(stderr, "weft run: --obj: %s\n", error);
		return CLI_EXIT_USAGE;
	}
	if (o->statsPath != NULL && !CliPrepareFileFolder(o->statsPath, error, sizeof error)) {
		fprintf(stderr, "weft run: --stats: %s\n", error);
		return CLI_EXIT_USAGE;
	}
	if (o->gltfPath != NULL && !CliPrepareFileFolder(o->gltfPath, error, sizeof error)) {
		fprintf(stderr, "weft run: --gltf: %s\n", error);
		return CLI_EXIT_USAGE;
	}
	if (o->usdPath != NULL && !CliPrepareFileFolder(o->usdPath, error, sizeof error)) {
		fprintf(stderr, "weft run: --usd: %s\n", error);
		return CLI_EXIT_USAGE;
	}
	if (o->overwrite) {
		code = CheckOldFrames("obj", o->objDir, "obj", true, o->quiet);
		if (code == CLI_EXIT_OK)
			code = CheckOldFrames("png", o->render.pngDir, "png", true, o->quiet);
		if (code != CLI_EXIT_OK)
			return code;
	}
	RemoveStale(o->objDir, NULL);
	RemoveStale(o->render.pngDir, NULL);
	RemoveStale(NULL, o->statsPath);
	RemoveStale(NULL, o->usdPath);
	RemoveStale(NULL, o->render.videoPath);
	RemoveStale(NULL, o->gltfPath);
	if (o->objDir != NULL) {
		out->obj = true;
		if (!CliObjWriterInit(&out->objWriter, o->objDir, sim->cloths, sim->clothCount, error, sizeof error)) {
			fprintf(stderr, "weft run: --obj: %s\n", error);
			return CLI_EXIT_RUNTIME;
		}
	}
	if (o->statsPath != NULL) {
		out->csv = CliCsvOpen(&out->csvFile, o->statsPath, sim->clothCount > 1, o->intersections, error, sizeof error);
		if (!out->csv) {
			fprintf(stderr, "weft run: --stats: %s\n", error);
			return CLI_EXIT_USAGE;
		}
	}
	if (o->gltfPath != NULL) {
		out->gltf = CliGltfOpen(o->gltfPath, sim->world, sim->cloths, sim->clothCount, sim->frames, error, sizeof error);
		if (out->gltf == NULL) {
			fprintf(stderr, "weft run: --gltf: %s\n", error);
			return CLI_EXIT_USAGE;
		}
	}
	if (o->usdPath != NULL) {
		out->usd = CliUsdOpen(o->usdPath, sim->world, sim->cloths, sim->clothCount, sim->source, error, sizeof error);
		if (out->usd == NULL) {
			fprintf(stderr, "weft run: --usd: %s\n", error);
			return CLI_EXIT_USAGE;
		}
	}
	return CliRenderOpen(o, sim, &out->render);
}

// keep: the run completed or was interrupted; the CSV and the video are then completed and
// renamed into place with the frames finished so far. Otherwise they are thrown away. `kept`
// gets a list of what was kept, for the interruption message.
static int CloseOutputs(Outputs* out, const CliOptions* o, bool keep, int frames, char* kept, size_t keptSize)
{
	char error[CLI_PATH_MAX + 256];
	size_t used = 0;
	kept[0] = 0;
	if (out->obj && frames > 0)
		used += (size_t)snprintf(kept + used, keptSize - used, "%d OBJ file%s in %s", frames, frames == 1 ? "" : "s", o->objDir);
	int code = CliRenderClose(out->render, keep, o->quiet, kept, keptSize);
	used = strlen(kept);
	if (out->obj)
		CliObjWriterFree(&out->objWriter);
	if (out->csv && keep) {
		if (CliFileCommit(&out->csvFile, error, sizeof error)) {
			if (used < keptSize)
				snprintf(kept + used, keptSize - used, "%sstatistics of %d frame%s in %s", used > 0 ? ", " : "", frames,
					frames == 1 ? "" : "s", o->statsPath);
		} else {
			fprintf(stderr, "weft run: --stats: %s\n", error);
			code = CLI_EXIT_RUNTIME;
		}
	}
	if (out->csv)
		CliFileAbort(&out->csvFile);
	uint64_t bytes = 0;
	if (!CliGltfClose(out->gltf, keep, &bytes, error, sizeof error)) {
		fprintf(stderr, "weft run: --gltf: %s\n", error);
		code = CLI_EXIT_RUNTIME;
	} else if (out->gltf != NULL && keep) {
		used = strlen(kept);
		if (used < keptSize)
			snprintf(kept + used, keptSize - used, "%sglTF of %d frame%s in %s (%.1f MB)", used > 0 ? ", " : "", frames,
				frames == 1 ? "" : "s", o->gltfPath, (double)bytes / 1e6);
	}
	out->gltf = NULL;
	if (out->usd != NULL) {
		used = strlen(kept);
		if (CliUsdClose(out->usd, keep, error, sizeof error)) {
			if (keep && frames > 0 && used < keptSize)
				snprintf(kept + used, keptSize - used, "%sUSD layer of %d frame%s in %s", used > 0 ? ", " : "", frames,
					frames == 1 ? "" : "s", o->usdPath);
		} else {
			fprintf(stderr, "weft run: --usd: %s\n", error);
			code = CLI_EXIT_RUNTIME;
		}
		out->usd = NULL;
	}
	return code;
}

static void Accumulate(wfClothStats* total, const wfClothStats* s, bool first)
{
	if (first) {
		*total = *s;
		return;
	}
	total->kineticEnergy += s->kineticEnergy;
	total->potentialEnergy += s->potentialEnergy;
	total->maxStrain = s->maxStrain > total->maxStrain ? s->maxStrain : total->maxStrain;
	total->meanStrain = s->meanStrain > total->meanStrain ? s->meanStrain : total->meanStrain;
	total->sphereClearance = s->sphereClearance < total->sphereClearance ? s->sphereClearance : total->sphereClearance;
	total->floorClearance = s->floorClearance < total->floorClearance ? s->floorClearance : total->floorClearance;
	total->momentum.x += s->momentum.x;
	total->momentum.y += s->momentum.y;
	total->momentum.z += s->momentum.z;
	total->nonFinite += s->nonFinite;
}

// Statistics of every cloth now: a CSV row each (with csv) and the totals for the summary. A pass
// over every particle and constraint (as long as a small cloth's step on one thread), so a run
// reads them only for --stats and once at its end.
static int ReadStats(const CliSim* sim, Outputs* out, int frame, wfClothStats* total, const wfIntersections* ix)
{
	for (int i = 0; i < sim->clothCount; ++i) {
		wfClothStats s;
		if (wfCloth_GetStats(sim->cloths[i], &s) != WF_OK) {
			fprintf(stderr, "weft run: frame %d: cannot read the statistics: %s\n", frame, wfWorld_GetLastError(sim->world));
			return CLI_EXIT_RUNTIME;
		}
		Accumulate(total, &s, i == 0);
		if (out != NULL)
			CliCsvRow(&out->csvFile, frame, sim->clothCount > 1 ? i : -1, &s, ix);
	}
	return CLI_EXIT_OK;
}

// A finished frame's outputs: the statistics' row, the OBJ file, the picture.
static int RecordFrame(const CliSim* sim, Outputs* out, int frame, RunResult* result)
{
	char error[CLI_PATH_MAX + 256];
	wfIntersections ix;
	if (out->intersections) {
		if (wfWorld_CountIntersections(sim->world, &ix) != WF_OK) {
			fprintf(stderr, "weft run: frame %d: cannot count the intersections: %s\n", frame, wfWorld_GetLastError(sim->world));
			return CLI_EXIT_RUNTIME;
		}
		const int64_t all = ix.self + ix.cloths + ix.colliders;
		result->intersectionFrames += all > 0;
		result->intersectionsMost = all > result->intersectionsMost ? all : result->intersectionsMost;
		result->intersections = ix;
	}
	if (out->csv && ReadStats(sim, out, frame, &result->total, out->intersections ? &ix : NULL) != CLI_EXIT_OK)
		return CLI_EXIT_RUNTIME;
	if (out->obj && !CliObjWriteFrame(&out->objWriter, frame, wfWorld_GetTime(sim->world), error, sizeof error)) {
		fprintf(stderr, "weft run: --obj: %s\n", error);
		return CLI_EXIT_RUNTIME;
	}
	if (out->gltf != NULL && !CliGltfFrame(out->gltf, frame, error, sizeof error)) {
		fprintf(stderr, "weft run: --gltf: %s\n", error);
		return CLI_EXIT_RUNTIME;
	}
	if (out->usd != NULL && !CliUsdWriteFrame(out->usd, frame, error, sizeof error)) {
		fprintf(stderr, "weft run: --usd: %s\n", error);
		return CLI_EXIT_RUNTIME;
	}
	return CliRenderFrame(out->render, sim, frame);
}

// "\r" progress on a terminal, refreshed ten times a second once a run takes longer than half a second.
static void Progress(int frame, int frames, double start, double* lastShown)
{
	double now = CliNow();
	if (now - start < 0.5 || now - *lastShown < 0.1)
		return;
	*lastShown = now;
	double perFrame = (now - start) / frame;
	fprintf(stderr, "\rweft run: frame %d/%d (%d%%), %.2f ms/frame, %.1f s left   ", frame, frames, 100 * frame / frames, 1e3 * perFrame,
		perFrame * (frames - frame));
	fflush(stderr);
}

static int Simulate(const CliSim* sim, Outputs* out, bool showProgress, RunResult* result)
{
	double start = CliNow(), lastShown = 0.0;
	for (int frame = 1; frame <= sim->frames && !s_interrupted; ++frame) {
		wfWarnings before = wfWorld_GetWarnings(sim->world);
		double t0 = CliNow();
		wfResult r = wfWorld_Step(sim->world);
		result->stepSeconds += CliNow() - t0;
		// Every cloth's frame discarded (the backend restored the frame start): nothing moved.
		wfWarnings after = wfWorld_GetWarnings(sim->world);
		if ((after.nonFinite + after.unstable) - (before.nonFinite + before.unstable) >= sim->clothCount)
			result->discarded++;
		if (r != WF_OK) {
			fprintf(stderr, "weft run: frame %d: step failed (%s): %s\n", frame, wfResultName(r), wfWorld_GetLastError(sim->world));
			return CLI_EXIT_RUNTIME;
		}
		int code = RecordFrame(sim, out, frame, result);
		if (code != CLI_EXIT_OK)
			return code;
		result->frames = frame;
		if (showProgress)
			Progress(frame, sim->frames, start, &lastShown);
	}
	// The summary's final state (the CSV's last row read it already).
	if (!out->csv && result->frames > 0 && ReadStats(sim, NULL, result->frames, &result->total, NULL) != CLI_EXIT_OK)
		return CLI_EXIT_RUNTIME;
	result->wallSeconds = CliNow() - start;
	if (lastShown > 0.0)
		fprintf(stderr, "\r%78s\r", "");
	// A signal during the last frame leaves nothing undone: the run is complete.
	return s_interrupted && result->frames < sim->frames ? CLI_EXIT_INTERRUPTED : CLI_EXIT_OK;
}

static void PrintClearance(const char* name, float clearance)
{
	if (clearance < FLT_MAX)
		printf(", %s clearance %.4g m", name, clearance);
}

static void PrintSummary(const CliSim* sim, const CliOptions* o, const RunResult* r)
{
	wfWarnings w = wfWorld_GetWarnings(sim->world);
	double perFrame = r->frames > 0 ? 1e3 * r->wallSeconds / r->frames : 0.0;
	double stepPerFrame = r->frames > 0 ? 1e3 * r->stepSeconds / r->frames : 0.0;
	printf("weft run: %d frames of %s (%d cloth%s), %.3f s simulated in %.3f s wall time, %.3f ms per frame "
		   "(%.3f ms stepping), backend %s on %s. Final state: kinetic energy %.6g J, potential energy %.6g J, "
		   "max strain %.4g, mean strain %.4g",
		r->frames, sim->source, sim->clothCount, sim->clothCount == 1 ? "" : "s", wfWorld_GetTime(sim->world), r->wallSeconds, perFrame,
		stepPerFrame, wfBackendName(wfWorld_GetBackend(sim->world)), wfWorld_GetDeviceName(sim->world), r->total.kineticEnergy,
		r->total.potentialEnergy, r->total.maxStrain, r->total.meanStrain);
	PrintClearance("sphere", r->total.sphereClearance);
	PrintClearance("floor", r->total.floorClearance);
	printf(", %d non-finite values; warnings: %lld non-finite frames, %lld unstable, %lld time step too large, %lld tunnelled.",
		r->total.nonFinite, (long long)w.nonFinite, (long long)w.unstable, (long long)w.timeStepTooLarge, (long long)w.tunnelled);
	if (o->intersections)
		printf(" Intersections after the last frame: %lld self, %lld between cloths, %lld with colliders; frames with any: %d of %d "
			   "(most in one frame: %lld); %lld crossings between cloths kept apart (no contact asked for).",
			(long long)r->intersections.self, (long long)r->intersections.cloths, (long long)r->intersections.colliders,
			r->intersectionFrames, r->frames, (long long)r->intersectionsMost, (long long)r->intersections.clothsApart);
	if (o->objDir != NULL)
		printf(" Wrote %d OBJ files to %s.", r->frames, o->objDir);
	if (o->statsPath != NULL)
		printf(" Wrote statistics to %s.", o->statsPath);
	if (o->gltfPath != NULL)
		printf(" Wrote glTF to %s.", o->gltfPath);
	if (o->usdPath != NULL)
		printf(" Wrote a USD layer of %d frames to %s.", r->frames, o->usdPath);
	printf("\n");
}

// A signal ignored at start (nohup, some background jobs) stays ignored. Interrupted system calls
// restart (the loop looks at the flag between frames); a second signal acts as the default (stops
// at once), for a frame that takes too long.
void CliCatchSignals(void)
{
	static const int kSignals[] = {SIGINT, SIGTERM};
	for (int i = 0; i < 2; ++i) {
		struct sigaction action, previous;
		memset(&action, 0, sizeof action);
		action.sa_handler = OnSignal;
		action.sa_flags = SA_RESTART | SA_RESETHAND;
		sigemptyset(&action.sa_mask);
		if (sigaction(kSignals[i], NULL, &previous) == 0 && previous.sa_handler != SIG_IGN)
			sigaction(kSignals[i], &action, NULL);
	}
}

int CliRun(int argc, char** argv)
{
	CliOptions o;
	int code = CliParseOptions(CLI_CMD_RUN, argc, argv, 2, &o);
	if (code != CLI_EXIT_OK)
		return code == CLI_EXIT_HELP ? CLI_EXIT_OK : code;
	// Before any output is opened (the CSV's temporary, the renderer's set-up and ffmpeg's file): a
	// Ctrl-C in the first second then stops the run like one later, with nothing left behind.
	CliCatchSignals();
	code = CheckDistinctFiles(&o);
	if (code != CLI_EXIT_OK)
		return code;
	CliSim sim;
	code = CliSimCreate(&sim, &o, RUN_DEFAULT_FRAMES);
	if (code != CLI_EXIT_OK)
		return code;
	Outputs out;
	RunResult result;
	memset(&result, 0, sizeof result);
	code = OpenOutputs(&o, &sim, &out);
	if (code == CLI_EXIT_OK)
		code = Simulate(&sim, &out, !o.quiet && isatty(STDERR_FILENO), &result);
	// A run in which no frame survived produced nothing: a failure, whatever was written.
	if (code == CLI_EXIT_OK && result.frames > 0 && result.discarded == result.frames) {
		wfWarnings w = wfWorld_GetWarnings(sim.world);
		char speeds[128]; // the world's own limit (wfWorldDef.maxSpeed), not a copy of its default
		snprintf(speeds, sizeof speeds, "speeds over maxSpeed (%g m/s) or more energy than the world could add",
			(double)wfWorld_GetDef(sim.world).maxSpeed);
		fprintf(stderr,
			"weft run: every frame (%d of %d) was discarded: the step gave %s%s%s each time, so the cloth never "
			"left its start (lower the time step or the stiffness, or raise --substeps); the statistics and the video were "
			"not written\n",
			result.discarded, result.frames, w.nonFinite > 0 ? "non-finite values" : "", w.nonFinite > 0 && w.unstable > 0 ? " or " : "",
			w.unstable > 0 ? speeds : "");
		code = CLI_EXIT_RUNTIME;
	}
	char kept[3 * CLI_PATH_MAX];
	bool interrupted = code == CLI_EXIT_INTERRUPTED;
	// Interrupted before the first frame: nothing to keep (a CSV of a header alone is not written).
	int closeCode = CloseOutputs(&out, &o, code == CLI_EXIT_OK || (interrupted && result.frames > 0), result.frames, kept, sizeof kept);
	code = code != CLI_EXIT_OK ? code : closeCode;
	if (interrupted)
		fprintf(stderr, "weft run: interrupted after %d frame%s; kept: %s\n", result.frames, result.frames == 1 ? "" : "s",
			kept[0] != 0 ? kept : "nothing (no frame was finished)");
	if (code == CLI_EXIT_OK && !o.quiet)
		PrintSummary(&sim, &o, &result);
	// Most frames discarded: the outputs are written, but what they show is mostly frame starts kept.
	if (code == CLI_EXIT_OK && 2 * result.discarded > result.frames) {
		fprintf(stderr,
			"weft run: %d of %d frames were discarded (more than half): the run failed (lower the time step or the stiffness, or raise --substeps)\n",
			result.discarded, result.frames);
		code = CLI_EXIT_RUNTIME;
	}
	CliSimDestroy(&sim);
	return code;
}
