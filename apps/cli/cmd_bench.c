// `weft bench`: times frames after a warm-up and prints percentiles and throughput.
// wfWorld_Step is taken to be synchronous: when it returns, the frame is complete on any backend.
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>

#define BENCH_DEFAULT_FRAMES 200
#define BENCH_DEFAULT_WARMUP 20

// Sizes summed over the cloths.
typedef struct BenchSizes {
	long long particles;
	long long constraints;
	int colors;          // the most of any cloth
	int cols, rows;      // of the first cloth
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

static int StepFrames(const CliSim* sim, int count, double* times)
{
	for (int i = 0; i < count; ++i) {
		double t0 = CliNow();
		wfResult r = wfWorld_Step(sim->world);
		if (times != NULL)
			times[i] = CliNow() - t0;
		if (r != WF_OK) {
			fprintf(stderr, "weft bench: step failed (%s): %s\n", wfResultName(r), wfWorld_GetLastError(sim->world));
			return CLI_EXIT_RUNTIME;
		}
	}
	return CLI_EXIT_OK;
}

static BenchSizes Measure(const CliSim* sim)
{
	BenchSizes s = {0, 0, 0, 0, 0};
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
		}
	}
	return s;
}

static void Report(const CliSim* sim, const double* sorted, int frames, int warmup)
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
	printf("  backend     %s on %s, threads %d%s\n", wfBackendName(wfWorld_GetBackend(sim->world)),
		wfWorld_GetDeviceName(sim->world), def.threads, def.threads == 0 ? " (all cores)" : "");
	printf("  cloth       %d cloth%s, first %dx%d; %lld particles, %lld constraints, %d colours\n", sim->clothCount,
		sim->clothCount == 1 ? "" : "s", s.cols, s.rows, s.particles, s.constraints, s.colors);
	printf("  step        %s, %d substeps x %d iteration%s per frame of %.6g s\n", wfSolverName(def.step.solver),
		def.step.substeps, def.step.iterations, def.step.iterations == 1 ? "" : "s", def.step.timeStep);
	printf("  frames      %d timed after %d warm-up\n", frames, warmup);
	printf("  ms/frame    median %.4f  p10 %.4f  p90 %.4f\n", 1e3 * median, 1e3 * Percentile(sorted, frames, 0.1),
		1e3 * Percentile(sorted, frames, 0.9));
	printf("  throughput  %.4g particle-substeps/s, %.4g constraint projections/s\n", particleSubsteps, projections);
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
	double* times = (double*)malloc((size_t)frames * sizeof(double));
	if (times == NULL) {
		fprintf(stderr, "weft bench: out of memory for %d timings\n", frames);
		code = CLI_EXIT_RUNTIME;
	}
	if (code == CLI_EXIT_OK)
		code = StepFrames(&sim, warmup, NULL);
	if (code == CLI_EXIT_OK)
		code = StepFrames(&sim, frames, times);
	if (code == CLI_EXIT_OK) {
		qsort(times, (size_t)frames, sizeof(double), CompareDoubles);
		Report(&sim, times, frames, warmup);
	}
	free(times);
	CliSimDestroy(&sim);
	return code;
}
