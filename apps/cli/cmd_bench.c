// `weft bench`: times frames after a warm-up and prints percentiles and throughput.
// wfWorld_Step is taken to be synchronous: when it returns, the frame is complete on any backend.
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BENCH_DEFAULT_FRAMES 200
#define BENCH_DEFAULT_WARMUP 20

// The floor of a GPU frame on the devices it was measured on (shared/device/README.md): memory
// bandwidth and the cost of one dispatch, for a device whose name contains `name`. Elsewhere the
// floor is not known and the report says so instead of using another device's figures.
typedef struct BenchFloor {
	const char* name;
	double bytesPerS;
	double dispatchS;
} BenchFloor;

static const BenchFloor kFloors[] = {
	{"H200", 3.9e12, 2.5e-6},
};

static const BenchFloor* FindFloor(const char* device)
{
	for (size_t i = 0; device != NULL && i < sizeof kFloors / sizeof kFloors[0]; ++i) {
		if (strstr(device, kFloors[i].name) != NULL)
			return &kFloors[i];
	}
	return NULL;
}

// Sizes summed over the cloths.
typedef struct BenchSizes {
	long long particles;
	long long constraints;
	int colors;     // the most of any cloth
	int cols, rows; // of the first cloth
	int tileSize;   // of the first cloth: XPBD's tile order, 0 in the colour order
} BenchSizes;

static int CompareDoubles(const void* a, const void* b)
{
	double x = *(const double*)a, y = *(const double*)b;
	return (x > y) - (x < y);
}

// Linear interpolation between the order statistics of a sorted array.
static double Percentile(const double* sorted, int n, double p)
{
	double at = p * (n - 1);
	int lo = (int)at;
	int hi = lo + 1 < n ? lo + 1 : lo;
	return sorted[lo] + (at - lo) * (sorted[hi] - sorted[lo]);
}

// "\r" progress on a terminal, as weft run's: shown once a phase takes longer than half a second,
// refreshed ten times a second, outside the timed part of each frame.
typedef struct BenchProgress {
	bool show;        // stderr is a terminal
	const char* what; // "warm-up" or "timed"
	double start, lastShown;
} BenchProgress;

static void ShowProgress(BenchProgress* p, int frame, int frames)
{
	double now = CliNow();
	if (!p->show || now - p->start < 0.5 || now - p->lastShown < 0.1)
		return;
	p->lastShown = now;
	double perFrame = (now - p->start) / frame;
	fprintf(stderr, "\rweft bench: %s frame %d/%d (%d%%), %.2f ms/frame, %.1f s left   ", p->what, frame, frames, 100 * frame / frames,
		1e3 * perFrame, perFrame * (frames - frame));
	fflush(stderr);
}

static void ClearProgress(const BenchProgress* p)
{
	if (p->lastShown > 0.0)
		fprintf(stderr, "\r%78s\r", "");
}

// Steps count frames; records wall seconds, device seconds (-1 when the backend has none) and, with
// stageTimes, each stage's seconds (stageTimes[k * count + i]).
static int StepFrames(const CliSim* sim, int count, const char* what, double* times, double* gpuTimes, double* stageTimes)
{
	BenchProgress progress = {isatty(STDERR_FILENO) != 0, what, CliNow(), 0.0};
	for (int i = 0; i < count; ++i) {
		double t0 = CliNow();
		wfResult r = wfWorld_Step(sim->world);
		if (times != NULL) {
			times[i] = CliNow() - t0;
			wfStepProfile p = wfWorld_GetStepProfile(sim->world);
			gpuTimes[i] = 1e-3 * p.gpuMs;
			for (int k = 0; stageTimes != NULL && k < WF_STAGE_COUNT; ++k)
				stageTimes[k * count + i] = 1e-3 * p.stageMs[k];
		}
		if (r != WF_OK) {
			ClearProgress(&progress);
			fprintf(stderr, "weft bench: step failed (%s): %s\n", wfResultName(r), wfWorld_GetLastError(sim->world));
			return CLI_EXIT_RUNTIME;
		}
		ShowProgress(&progress, i + 1, count);
	}
	ClearProgress(&progress);
	return CLI_EXIT_OK;
}

static BenchSizes Measure(const CliSim* sim)
{
	BenchSizes s = {0, 0, 0, 0, 0, 0};
	for (int i = 0; i < sim->clothCount; ++i) {
		wfClothInfo info;
		if (wfCloth_GetInfo(sim->cloths[i], &info) != WF_OK)
			continue;
		s.particles += info.particleCount;
		s.constraints += info.constraintCount;
		s.colors = info.colorCount > s.colors ? info.colorCount : s.colors;
		if (i == 0) {
			s.cols = info.cols;
			s.rows = info.rows;
			s.tileSize = info.tileSize;
		}
	}
	return s;
}

// The floor and where the frame stands against it: the larger of the memory term and the
// dispatch term binds. Only on a device with measured figures (kFloors).
static void ReportFloor(const CliSim* sim, double median, const double* gpuSorted, int frames)
{
	wfStepProfile p = wfWorld_GetStepProfile(sim->world);
	printf("  model       %.4g bytes/frame, %d dispatches/frame, %.4g projections/frame\n", p.bytesPerFrame, p.dispatches,
		p.projectionsPerFrame);
	if (p.threads > 1)
		printf("  threads     %d, the last frame: %d to %d rows each (cut by measured speed), %.4f to %.4f ms of work each\n", p.threads,
			p.threadRowsMin, p.threadRowsMax, p.threadBusyMinMs, p.threadBusyMaxMs);
	const char* device = wfWorld_GetDeviceName(sim->world);
	const BenchFloor* known = p.dispatches > 0 ? FindFloor(device) : NULL;
	if (known == NULL)
		printf("  floor       not known for %s (measured only on: %s)\n", device != NULL ? device : "this device", kFloors[0].name);
	if (gpuSorted[0] < 0.0 || p.dispatches == 0)
		return;
	double gpu = Percentile(gpuSorted, frames, 0.5);
	printf("  gpu ms      median %.4f  p10 %.4f  p90 %.4f (timestamps), %.4g cloth-steps/s on the gpu clock\n", 1e3 * gpu,
		1e3 * Percentile(gpuSorted, frames, 0.1), 1e3 * Percentile(gpuSorted, frames, 0.9), sim->clothCount / (gpu > 1e-12 ? gpu : 1e-12));
	if (known == NULL)
		return;
	double memory = p.bytesPerFrame / known->bytesPerS, dispatch = p.dispatches * known->dispatchS;
	double floor = memory > dispatch ? memory : dispatch;
	printf("  floor       %.4f ms = max(memory %.4f ms at %.3g TB/s, dispatch %.4f ms at %.3g us): %s binds\n", 1e3 * floor, 1e3 * memory,
		known->bytesPerS * 1e-12, 1e3 * dispatch, known->dispatchS * 1e6, memory > dispatch ? "memory" : "dispatch");
	printf("  vs floor    gpu %.2fx, wall %.2fx; %.4g projections/s on the gpu clock\n", gpu / floor, median / floor,
		p.projectionsPerFrame / (gpu > 1e-12 ? gpu : 1e-12));
}

// Median of each stage over the timed frames (each stage sorted on its own).
static void ReportStages(const CliSim* sim, double* stageTimes, int frames)
{
	bool gpu = wfWorld_GetStepProfile(sim->world).gpuMs >= 0.0;
	printf("  stages ms   ");
	for (int k = 0; k < WF_STAGE_COUNT; ++k) {
		double* t = stageTimes + (size_t)k * (size_t)frames;
		qsort(t, (size_t)frames, sizeof(double), CompareDoubles);
		double median = Percentile(t, frames, 0.5);
		if (median < 0.0)
			printf("%s ?  ", wfStageName((wfStage)k));
		else
			printf("%s %.4f  ", wfStageName((wfStage)k), 1e3 * median);
	}
	printf("(medians, %s)\n", gpu ? "GPU timestamps" : "wall clock");
}

static void Report(const CliSim* sim, const double* sorted, const double* gpuSorted, int frames, int warmup)
{
	wfWorldDef def = wfWorld_GetDef(sim->world);
	BenchSizes s = Measure(sim);
	double median = Percentile(sorted, frames, 0.5);
	double seconds = median > 1e-9 ? median : 1e-9; // a clock tick, not a division by zero
	// Springs apply each spring once per substep; the constraint solvers once per iteration.
	int passes = def.step.solver == WF_SOLVER_SPRINGS ? 1 : def.step.iterations;
	double particleSubsteps = (double)s.particles * def.step.substeps / seconds;
	double projections = (double)s.constraints * def.step.substeps * passes / seconds;
	printf("weft bench: %s\n", sim->source);
	printf("  backend     %s on %s, threads %d%s\n", wfBackendName(wfWorld_GetBackend(sim->world)), wfWorld_GetDeviceName(sim->world),
		def.threads, def.threads == 0 ? " (all cores)" : "");
	printf("  cloth       %d cloth%s, first %dx%d; %lld particles, %lld constraints, %d colours\n", sim->clothCount,
		sim->clothCount == 1 ? "" : "s", s.cols, s.rows, s.particles, s.constraints, s.colors);
	printf("  step        %s, %d substeps x %d iteration%s per frame of %.6g s", wfSolverName(def.step.solver), def.step.substeps,
		def.step.iterations, def.step.iterations == 1 ? "" : "s", def.step.timeStep);
	if (def.step.solver == WF_SOLVER_XPBD && s.tileSize > 0)
		printf(", in tiles of %d x %d (step.order)", s.tileSize, s.tileSize);
	printf("\n");
	printf("  frames      %d timed after %d warm-up\n", frames, warmup);
	printf("  ms/frame    median %.4f  p10 %.4f  p90 %.4f\n", 1e3 * median, 1e3 * Percentile(sorted, frames, 0.1),
		1e3 * Percentile(sorted, frames, 0.9));
	// A cloth-step: one cloth advanced by one time step (a frame), as batched simulators count.
	printf("  throughput  %.4g particle-substeps/s, %.4g constraint projections/s, %.4g cloth-steps/s\n", particleSubsteps, projections,
		(double)sim->clothCount / seconds);
	ReportFloor(sim, median, gpuSorted, frames);
}

int CliBench(int argc, char** argv)
{
	CliOptions o;
	int code = CliParseOptions(CLI_CMD_BENCH, argc, argv, 2, &o);
	if (code != CLI_EXIT_OK)
		return code == CLI_EXIT_HELP ? CLI_EXIT_OK : code;
	CliSim sim;
	code = CliSimCreate(&sim, &o, BENCH_DEFAULT_FRAMES);
	if (code != CLI_EXIT_OK)
		return code;
	int frames = o.frames != CLI_KEEP ? o.frames : BENCH_DEFAULT_FRAMES;
	int warmup = o.warmup != CLI_KEEP ? o.warmup : BENCH_DEFAULT_WARMUP;
	double* times = (double*)malloc((size_t)frames * (2 + (o.stages ? WF_STAGE_COUNT : 0)) * sizeof(double));
	double* gpuTimes = times != NULL ? times + frames : NULL;
	double* stageTimes = times != NULL && o.stages ? times + 2 * (size_t)frames : NULL;
	if (o.stages)
		wfWorld_SetStageTiming(sim.world, true);
	if (times == NULL) {
		fprintf(stderr, "weft bench: out of memory for %d timings\n", frames);
		code = CLI_EXIT_RUNTIME;
	}
	if (code == CLI_EXIT_OK)
		code = StepFrames(&sim, warmup, "warm-up", NULL, NULL, NULL);
	if (code == CLI_EXIT_OK)
		code = StepFrames(&sim, frames, "timed", times, gpuTimes, stageTimes);
	if (code == CLI_EXIT_OK) {
		qsort(times, (size_t)frames, sizeof(double), CompareDoubles);
		qsort(gpuTimes, (size_t)frames, sizeof(double), CompareDoubles);
		Report(&sim, times, gpuTimes, frames, warmup);
		if (stageTimes != NULL)
			ReportStages(&sim, stageTimes, frames);
		wfIntersections ix;
		if (o.intersections && wfWorld_CountIntersections(sim.world, &ix) == WF_OK)
			printf(
				"  intersect   %lld self, %lld between cloths, %lld with colliders, %lld between cloths kept apart (after the last frame; "
				"not timed)\n",
				(long long)ix.self, (long long)ix.cloths, (long long)ix.colliders, (long long)ix.clothsApart);
		else if (o.intersections) {
			fprintf(stderr, "weft bench: cannot count the intersections: %s\n", wfWorld_GetLastError(sim.world));
			code = CLI_EXIT_RUNTIME;
		}
	}
	free(times);
	CliSimDestroy(&sim);
	return code;
}
