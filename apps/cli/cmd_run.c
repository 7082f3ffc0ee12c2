// `weft run`: steps a scene or a preset, writes OBJ frames and a statistics CSV, prints a summary.
#include "cli.h"
#include "output.h"
#include "render_out.h"

#include <float.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define RUN_DEFAULT_FRAMES 120

// Set by SIGINT/SIGTERM: the loop stops between frames and removes its temporary files.
static volatile sig_atomic_t s_interrupted;

static void OnSignal(int signal)
{
	(void)signal;
	s_interrupted = 1;
}

typedef struct Outputs {
	CliRenderOut* render; // NULL unless --png or --video
	bool obj;
	CliObjWriter objWriter;
	bool csv;
	CliFile csvFile;
} Outputs;

// Timings and the final state, for the summary.
typedef struct RunResult {
	int frames;          // frames stepped
	double wallSeconds;  // the whole loop, output included
	double stepSeconds;  // wfWorld_Step alone
	wfClothStats total;  // summed energies and momentum, worst strain and clearances
} RunResult;

// Folders are created and checked before the first step, so a bad path costs no simulation.
static int OpenOutputs(const CliOptions* o, const CliSim* sim, Outputs* out)
{
	char error[CLI_PATH_MAX + 256];
	memset(out, 0, sizeof *out);
	if (o->objDir != NULL && !CliPrepareFolder(o->objDir, error, sizeof error)) {
		fprintf(stderr, "weft run: --obj: %s\n", error);
		return CLI_EXIT_USAGE;
	}
	if (o->statsPath != NULL && !CliPrepareFileFolder(o->statsPath, error, sizeof error)) {
		fprintf(stderr, "weft run: --stats: %s\n", error);
		return CLI_EXIT_USAGE;
	}
	if (o->objDir != NULL) {
		out->obj = true;
		if (!CliObjWriterInit(&out->objWriter, o->objDir, sim->cloths, sim->clothCount, error, sizeof error)) {
			fprintf(stderr, "weft run: --obj: %s\n", error);
			return CLI_EXIT_RUNTIME;
		}
	}
	if (o->statsPath != NULL) {
		out->csv = CliCsvOpen(&out->csvFile, o->statsPath, sim->clothCount > 1, error, sizeof error);
		if (!out->csv) {
			fprintf(stderr, "weft run: --stats: %s\n", error);
			return CLI_EXIT_USAGE;
		}
	}
	return CliRenderOpen(o, sim, &out->render);
}

// The CSV and the video are renamed into place only after a complete run.
static int CloseOutputs(Outputs* out, bool complete, bool quiet)
{
	char error[CLI_PATH_MAX + 256];
	int code = CliRenderClose(out->render, complete, quiet);
	if (out->obj)
		CliObjWriterFree(&out->objWriter);
	if (out->csv && complete && !CliFileCommit(&out->csvFile, error, sizeof error)) {
		fprintf(stderr, "weft run: --stats: %s\n", error);
		code = CLI_EXIT_RUNTIME;
	}
	if (out->csv)
		CliFileAbort(&out->csvFile);
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

// Statistics of every cloth after a frame: a CSV row each and the totals for the summary.
static int RecordFrame(const CliSim* sim, Outputs* out, int frame, RunResult* result)
{
	char error[CLI_PATH_MAX + 256];
	for (int i = 0; i < sim->clothCount; ++i) {
		wfClothStats s;
		if (wfCloth_GetStats(sim->cloths[i], &s) != WF_OK) {
			fprintf(stderr, "weft run: frame %d: cannot read the statistics: %s\n", frame, wfWorld_GetLastError(sim->world));
			return CLI_EXIT_RUNTIME;
		}
		Accumulate(&result->total, &s, i == 0);
		if (out->csv)
			CliCsvRow(&out->csvFile, frame, sim->clothCount > 1 ? i : -1, &s);
	}
	if (out->obj && !CliObjWriteFrame(&out->objWriter, frame, wfWorld_GetTime(sim->world), error, sizeof error)) {
		fprintf(stderr, "weft run: --obj: %s\n", error);
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
	fprintf(stderr, "\rweft run: frame %d/%d (%d%%), %.2f ms/frame, %.1f s left   ", frame, frames, 100 * frame / frames,
		1e3 * perFrame, perFrame * (frames - frame));
	fflush(stderr);
}

static int Simulate(const CliSim* sim, Outputs* out, bool showProgress, RunResult* result)
{
	double start = CliNow(), lastShown = 0.0;
	for (int frame = 1; frame <= sim->frames && !s_interrupted; ++frame) {
		double t0 = CliNow();
		wfResult r = wfWorld_Step(sim->world);
		result->stepSeconds += CliNow() - t0;
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
	result->wallSeconds = CliNow() - start;
	if (lastShown > 0.0)
		fprintf(stderr, "\r%78s\r", "");
	return s_interrupted ? CLI_EXIT_INTERRUPTED : CLI_EXIT_OK;
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
		r->frames, sim->source, sim->clothCount, sim->clothCount == 1 ? "" : "s", wfWorld_GetTime(sim->world),
		r->wallSeconds, perFrame, stepPerFrame, wfBackendName(wfWorld_GetBackend(sim->world)),
		wfWorld_GetDeviceName(sim->world), r->total.kineticEnergy, r->total.potentialEnergy, r->total.maxStrain,
		r->total.meanStrain);
	PrintClearance("sphere", r->total.sphereClearance);
	PrintClearance("floor", r->total.floorClearance);
	printf(", %d non-finite values; warnings: %lld non-finite frames, %lld unstable, %lld time step too large.",
		r->total.nonFinite, (long long)w.nonFinite, (long long)w.unstable, (long long)w.timeStepTooLarge);
	if (o->objDir != NULL)
		printf(" Wrote %d OBJ files to %s.", r->frames, o->objDir);
	if (o->statsPath != NULL)
		printf(" Wrote statistics to %s.", o->statsPath);
	printf("\n");
}

// A signal ignored at start (nohup, some background jobs) stays ignored.
static void CatchSignals(void)
{
	static const int kSignals[] = {SIGINT, SIGTERM};
	for (int i = 0; i < 2; ++i) {
		struct sigaction action, previous;
		memset(&action, 0, sizeof action);
		action.sa_handler = OnSignal;
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
	CliSim sim;
	code = CliSimCreate(&sim, &o, RUN_DEFAULT_FRAMES);
	if (code != CLI_EXIT_OK)
		return code;
	Outputs out;
	RunResult result;
	memset(&result, 0, sizeof result);
	code = OpenOutputs(&o, &sim, &out);
	if (code == CLI_EXIT_OK) {
		CatchSignals();
		code = Simulate(&sim, &out, !o.quiet && isatty(STDERR_FILENO), &result);
	}
	int closeCode = CloseOutputs(&out, code == CLI_EXIT_OK, o.quiet);
	code = code != CLI_EXIT_OK ? code : closeCode;
	if (code == CLI_EXIT_INTERRUPTED)
		fprintf(stderr, "weft run: interrupted after %d frames%s\n", result.frames,
			o.statsPath != NULL ? "; the statistics file was not written" : "");
	if (code == CLI_EXIT_OK && !o.quiet)
		PrintSummary(&sim, &o, &result);
	CliSimDestroy(&sim);
	return code;
}
