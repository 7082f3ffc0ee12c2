// weft-xpbd-floor: what one XPBD pass over every colour of a grid costs on the CPU, against what
// its design cannot go below, measured side by side in one run.
//
//   solve    the structure-of-arrays kernel (cpu_soa.c), the first iteration of a substep
//   divide   the same loop over the same blocks with only its square root and two divisions
//   memory   the same loop with only its ten loads and six stores
//   records  the record-order AVX2 kernel (cpu_simd.c) over the same colour ranges
//
// With --handover N, also the threads' hand-over alone (wfCpuSoaHandoverProbe): the phase protocol
// of a threaded frame (each thread waits for its two neighbours' previous phase, then publishes)
// with no work, on 1, 2, 4, ... N threads, in µs per phase; a 10 x 1 frame has 140 phases, so
// 140 times it is what a frame costs on that many threads before any work.
//
// The cloth is the Bullet comparison's (bench/peers): a 60 x 60 grid with every family, the xpbd
// preset's compliances, h = 1/600 s. Each round times `--passes` passes of each variant in turn;
// the table gives the median over rounds of ns per pass, per block and per projection.
#define _POSIX_C_SOURCE 199309L
#include "core/internal.h"
#include "cpu/cpu.h"
#include "soa_probes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double Now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int CompareDouble(const void* l, const void* r)
{
	const double a = *(const double*)l, b = *(const double*)r;
	return (a > b) - (a < b);
}

int main(int argc, char** argv)
{
	int cols = 60, rows = 60, rounds = 15, passes = 400, lanes = wfCpuSoaWidest(), handover = 0;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--grid") == 0 && sscanf(argv[i + 1], "%dx%d", &cols, &rows) == 2)
			continue;
		if (strcmp(argv[i], "--rounds") == 0 && (rounds = atoi(argv[i + 1])) > 0)
			continue;
		if (strcmp(argv[i], "--passes") == 0 && (passes = atoi(argv[i + 1])) > 0)
			continue;
		if (strcmp(argv[i], "--lanes") == 0 && ((lanes = atoi(argv[i + 1])) == 8 || (lanes == 16 && wfCpuSoaWidest() == 16)))
			continue;
		if (strcmp(argv[i], "--handover") == 0 && (handover = atoi(argv[i + 1])) >= 1 && handover <= 1024)
			continue;
		fprintf(stderr, "usage: weft-xpbd-floor [--grid CxR] [--rounds N] [--passes N] [--lanes 8|16] [--handover THREADS (1..1024)]\n");
		return 2;
	}
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = WF_BACKEND_CPU;
	wd.threads = 1;
	char error[256];
	wfWorld* world = wfCreateWorld(&wd, error, (int)sizeof error);
	if (world == NULL) {
		fprintf(stderr, "weft-xpbd-floor: %s\n", error);
		return 1;
	}
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cols;
	cd.rows = rows;
	cd.width = cd.height = 2.4f;
	cd.orientation = WF_ORIENT_HORIZONTAL;
	cd.structural = cd.shear = cd.bending = true;
	cd.material.mass = 0.01f;
	cd.material.stretchCompliance = 1e-7f;
	cd.material.shearCompliance = 1e-6f;
	cd.material.bendCompliance = 1e-3f;
	cd.pinMode = WF_PIN_TOP_CORNERS;
	wfClothId id = wfCreateCloth(world, &cd);
	wfCloth* c = wfGetCloth(id);
	if (c == NULL || !wfCpuSoaSupported(&c->model)) {
		fprintf(stderr, "weft-xpbd-floor: no cloth, or no AVX2 on this machine\n");
		return 1;
	}
	for (int f = 0; f < 30; ++f) // a hanging, moving cloth rather than the flat start
		wfWorld_Step(world);
	const float h = 1.0f / 600.0f;
	const float alphaTilde[WF_FAMILY_COUNT] = {cd.material.stretchCompliance / (h * h), cd.material.shearCompliance / (h * h),
		cd.material.bendCompliance / (h * h)};
	wfCpuSoa* soa = wfCpuSoaCreate(&c->model, 1, lanes);
	wfCpuSoaLoad(soa, c);
	const int n = c->model.particleCount, m = c->model.constraintCount;
	wfVec4* pos = (wfVec4*)wfAlloc((size_t)n * sizeof(wfVec4));
	wfVec4* vel = (wfVec4*)wfAlloc((size_t)n * sizeof(wfVec4));
	float* lambda = (float*)wfAlloc((size_t)m * sizeof(float));
	memcpy(pos, c->state.pos, (size_t)n * sizeof(wfVec4));
	int blocks = 0, used = 0, singles = 0, recordProjections = 0;
	for (int k = 0; k < c->model.colorCount; ++k)
		recordProjections += (c->model.colorStart[k + 1] - c->model.colorStart[k]) / 8 * 8;
	enum { VARIANTS = 6 };
	const char* names[VARIANTS] = {"solve", "divide", "memory", "records", "substep", "substep, wave"};
	double* t[VARIANTS];
	for (int v = 0; v < VARIANTS; ++v)
		t[v] = (double*)calloc((size_t)rounds, sizeof(double));
	double sink = 0.0;
	for (int r = 0; r < rounds + 1; ++r) { // round 0 warms up
		for (int v = 0; v < VARIANTS; ++v) {
			const double t0 = Now();
			for (int p = 0; p < passes; ++p) {
				if (v != 3) {
					const wfCpuSoaProbeKind kind = v < 3 ? (wfCpuSoaProbeKind)v : v == 4 ? WF_SOA_PROBE_SUBSTEP : WF_SOA_PROBE_WAVE;
					sink += wfCpuSoaProbe(soa, kind, alphaTilde, &blocks, &used, &singles);
				} else {
					for (int k = 0; k < c->model.colorCount; ++k) {
						const int b = c->model.colorStart[k], e = c->model.colorStart[k + 1];
						wfCpuXpbdRangeAvx2(c->model.constraints, pos, vel, lambda, b, (e - b) / 8, alphaTilde, 1.0f / h);
					}
				}
			}
			if (r > 0)
				t[v][r - 1] = (Now() - t0) / passes;
		}
	}
	printf("weft-xpbd-floor: %dx%d grid, %d constraints in %d colours; %d blocks of %d (%d lanes solve constraints, %.1f %%), %d singles\n",
		cols, rows, m, c->model.colorCount, blocks, lanes, used, 100.0 * used / ((double)lanes * blocks), singles);
	printf("%d rounds x %d passes, medians (ns)\n\n", rounds, passes);
	printf("| variant | per pass | per 8 lanes | per projection |\n| --- | --- | --- | --- |\n");
	double med[VARIANTS];
	for (int v = 0; v < VARIANTS; ++v) {
		qsort(t[v], (size_t)rounds, sizeof(double), CompareDouble);
		med[v] = t[v][rounds / 2];
		const double proj = v == 3 ? recordProjections : (double)(used + singles);
		const double per = v == 3 ? recordProjections / 8.0 : blocks * (lanes / 8.0);
		printf("| %s | %.0f | %.2f | %.3f |\n", names[v], 1e9 * med[v], 1e9 * med[v] / per, 1e9 * med[v] / proj);
	}
	printf("\nsolve / divide %.2f, solve / memory %.2f, records / solve (per projection) %.2f, substep / wave %.2f  (%d)\n",
		med[0] / med[1], med[0] / med[2], (med[3] / recordProjections) / (med[0] / (used + singles)), med[4] / med[5], sink != 0.0);
	if (handover > 0) {
		wfCpuSoa* team = wfCpuSoaCreate(&c->model, handover, lanes);
		enum { PHASES = 140 * 50 };
		printf("\nhand-over alone, %d phases a round (50 frames of 140), medians of %d rounds\n\n", PHASES, rounds);
		printf("| threads | us per phase | a 140-phase frame, ms |\n| --- | --- | --- |\n");
		double* ht = (double*)calloc((size_t)rounds, sizeof(double));
		for (int threads = 1;; threads = threads * 2 < handover ? threads * 2 : handover) {
			for (int r = 0; r < rounds + 1; ++r) { // round 0 warms up (and starts the threads)
				const double s = wfCpuSoaHandoverProbe(team, threads, PHASES);
				if (r > 0)
					ht[r - 1] = s;
			}
			qsort(ht, (size_t)rounds, sizeof(double), CompareDouble);
			const double phase = ht[rounds / 2] / PHASES;
			printf("| %d | %.3f | %.4f |\n", threads, 1e6 * phase, 1e3 * 140.0 * phase);
			if (threads == handover)
				break;
		}
		free(ht);
		wfCpuSoaFree(team);
	}
	wfCpuSoaFree(soa);
	wfFree(pos);
	wfFree(lambda);
	wfFree(vel);
	for (int v = 0; v < VARIANTS; ++v)
		free(t[v]);
	wfDestroyWorld(world);
	return 0;
}
