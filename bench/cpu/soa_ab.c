// weft-soa-ab: two builds of src/cpu/cpu_soa.c in one process (bench/cpu/soa_ab.sh builds it: the
// base commit's object and the working tree's, their wfCpuSoa* symbols renamed old_* and new_*);
// this file dispatches by which one created the kernel. Two worlds, old and new, the xpbd preset on
// one thread at LANES with an N x N grid, stepped alternately after 30 warm-up frames: medians of
// ROUNDS rounds of FRAMES frames each, and whether the two whole-state hashes agree at the end.
//   weft-soa-ab [LANES: 16, 8 or 1] [N] [ROUNDS] [FRAMES]
#define _POSIX_C_SOURCE 199309L
#include "core/internal.h"
#include "cpu/cpu.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DECL(P) \
	bool P##wfCpuSoaSupported(const wfClothModel* m); \
	int P##wfCpuSoaWidest(void); \
	wfCpuSoa* P##wfCpuSoaCreate(const wfClothModel* m, int threads, int lanes); \
	void P##wfCpuSoaFree(wfCpuSoa* s); \
	int P##wfCpuSoaThreads(const wfCpuSoa* s, const wfCpuContext* ctx); \
	bool P##wfCpuSoaFrame(wfCpuSoa* s, const wfCpuContext* ctx, wfCloth* c, wfVec4* bp, wfVec4* bv, wfMotionSums* m); \
	wfCpuSoaTeam P##wfCpuSoaGetTeam(const wfCpuSoa* s);
DECL(old_)
DECL(new_)
static int gImpl; // 0 old, 1 new: for wfCpuSoaCreate
static wfCpuSoa* gOld[64];
static bool IsOld(const wfCpuSoa* s)
{
	for (int i = 0; i < 64; ++i)
		if (s && gOld[i] == s)
			return true;
	return false;
}
bool wfCpuSoaSupported(const wfClothModel* m) { return new_wfCpuSoaSupported(m); }
int wfCpuSoaWidest(void) { return new_wfCpuSoaWidest(); }
wfCpuSoa* wfCpuSoaCreate(const wfClothModel* m, int threads, int lanes)
{
	if (gImpl == 0) {
		wfCpuSoa* s = old_wfCpuSoaCreate(m, threads, lanes);
		for (int i = 0; i < 64; ++i)
			if (!gOld[i]) {
				gOld[i] = s;
				break;
			}
		return s;
	}
	return new_wfCpuSoaCreate(m, threads, lanes);
}
void wfCpuSoaFree(wfCpuSoa* s)
{
	if (IsOld(s)) {
		for (int i = 0; i < 64; ++i)
			if (gOld[i] == s)
				gOld[i] = NULL;
		old_wfCpuSoaFree(s);
	} else
		new_wfCpuSoaFree(s);
}
int wfCpuSoaThreads(const wfCpuSoa* s, const wfCpuContext* c) { return IsOld(s) ? old_wfCpuSoaThreads(s, c) : new_wfCpuSoaThreads(s, c); }
bool wfCpuSoaFrame(wfCpuSoa* s, const wfCpuContext* ctx, wfCloth* c, wfVec4* bp, wfVec4* bv, wfMotionSums* m)
{
	return IsOld(s) ? old_wfCpuSoaFrame(s, ctx, c, bp, bv, m) : new_wfCpuSoaFrame(s, ctx, c, bp, bv, m);
}
wfCpuSoaTeam wfCpuSoaGetTeam(const wfCpuSoa* s) { return IsOld(s) ? old_wfCpuSoaGetTeam(s) : new_wfCpuSoaGetTeam(s); }

static double Now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
static int Cmp(const void* a, const void* b)
{
	double x = *(const double*)a, y = *(const double*)b;
	return (x > y) - (x < y);
}

int main(int argc, char** argv)
{
	const int lanes = argc > 1 ? atoi(argv[1]) : 8, n = argc > 2 ? atoi(argv[2]) : 48, rounds = argc > 3 ? atoi(argv[3]) : 21;
	const int frames = argc > 4 ? atoi(argv[4]) : 20;
	wfWorld* w[2];
	for (int k = 0; k < 2; ++k) {
		wfWorldDef wd;
		wfClothDef cd;
		wfPresetGet("xpbd", &wd, &cd);
		wd.backend = WF_BACKEND_CPU;
		wd.threads = 1;
		cd.cols = cd.rows = n;
		char err[256];
		w[k] = wfCreateWorld(&wd, err, sizeof err);
		if (!w[k]) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		w[k]->soaLanes = lanes;
		gImpl = k;
		if (wfClothId_IsNull(wfCreateCloth(w[k], &cd))) {
			fprintf(stderr, "cloth\n");
			return 1;
		}
	}
	for (int f = 0; f < 30; ++f) {
		wfWorld_Step(w[0]);
		wfWorld_Step(w[1]);
	} // warm-up
	double* t[2] = {malloc(sizeof(double) * rounds), malloc(sizeof(double) * rounds)};
	for (int r = 0; r < rounds; ++r) {
		for (int j = 0; j < 2; ++j) {
			const int k = (r + j) & 1; // alternate who goes first
			const double t0 = Now();
			for (int f = 0; f < frames; ++f)
				wfWorld_Step(w[k]);
			t[k][r] = (Now() - t0) / frames;
		}
	}
	uint64_t h[2];
	wfWorld_GetStateHash(w[0], &h[0]);
	wfWorld_GetStateHash(w[1], &h[1]);
	qsort(t[0], rounds, sizeof(double), Cmp);
	qsort(t[1], rounds, sizeof(double), Cmp);
	const double m0 = t[0][rounds / 2], m1 = t[1][rounds / 2];
	printf("lanes %2d  %dx%d: old %.4f ms  new %.4f ms  old/new %.3f  (hashes %s)\n", lanes, n, n, 1e3 * m0, 1e3 * m1, m0 / m1,
		h[0] == h[1] ? "equal" : "DIFFER");
	return 0;
}
