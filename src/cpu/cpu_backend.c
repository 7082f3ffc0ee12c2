// CPU backend: steps every cloth of a world on the host, substep by substep.
#include "cpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

// Per-cloth data: the state at the start of the frame, restored when the frame goes bad.
typedef struct CpuCloth {
	wfVec4* pos;
	wfVec4* vel;
} CpuCloth;

static wfResult AddCloth(wfWorld* world, wfCloth* cloth)
{
	CpuCloth* cc = (CpuCloth*)calloc(1, sizeof *cc);
	size_t bytes = (size_t)cloth->model.particleCount * sizeof(wfVec4);
	if (cc != NULL) {
		cc->pos = (wfVec4*)wfAlloc(bytes);
		cc->vel = (wfVec4*)wfAlloc(bytes);
	}
	if (cc == NULL || cc->pos == NULL || cc->vel == NULL) {
		if (cc != NULL) {
			wfFree(cc->pos);
			wfFree(cc->vel);
		}
		free(cc);
		return wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "out of memory");
	}
	cloth->backendData = cc;
	return WF_OK;
}

static void RemoveCloth(wfWorld* world, wfCloth* cloth)
{
	(void)world;
	CpuCloth* cc = (CpuCloth*)cloth->backendData;
	wfFree(cc->pos);
	wfFree(cc->vel);
	free(cc);
	cloth->backendData = NULL;
}

// A frame is bad when a value is not finite or a particle moves faster than any cloth should.
static bool FrameIsBad(const wfCloth* c, bool* nonFinite)
{
	const wfVec4* x = c->state.pos;
	const wfVec4* v = c->state.vel;
	*nonFinite = false;
	for (int i = 0; i < c->model.particleCount; ++i) {
		float s = x[i].x + x[i].y + x[i].z + v[i].x + v[i].y + v[i].z;
		if (!isfinite(s)) {
			*nonFinite = true;
			return true;
		}
		if (fabsf(v[i].x) > 1e4f || fabsf(v[i].y) > 1e4f || fabsf(v[i].z) > 1e4f)
			return true;
	}
	return false;
}

// Stage timing (wfWorld_SetStageTiming) marks the stage boundaries of every substep with the wall
// clock: the backup copies are PREPARE, the frame check NORMALS (normals are computed when read).
static wfResult Step(wfWorld* world, const wfFrameParams* params)
{
	wfCpuStageTimer timer;
	wfCpuContext ctx = {params, 0, world->threads, world->simd, false, world->stageTiming ? &timer : NULL};
	if (ctx.timer != NULL) {
		memset(&timer, 0, sizeof timer);
		timer.last = wfCpuClock();
	}
	const wfSolverType solver = world->def.step.solver;
	for (int ci = 0; ci < world->clothCapacity; ++ci) {
		wfCloth* c = &world->cloths[ci];
		if (c->generation == 0)
			continue;
		CpuCloth* cc = (CpuCloth*)c->backendData;
		size_t bytes = (size_t)c->model.particleCount * sizeof(wfVec4);
		memcpy(cc->pos, c->state.pos, bytes);
		memcpy(cc->vel, c->state.vel, bytes);
		if (solver == WF_SOLVER_SPRINGS)
			wfCheckSpringsStep(world, c, params->h);
		wfCpuStageMark(&ctx, WF_STAGE_PREPARE);
		ctx.parallel = world->threads > 1 && c->model.particleCount >= WF_CPU_PARALLEL_MIN;
		for (int s = 0; s < params->substeps; ++s) {
			ctx.substep = s;
			switch (solver) {
			case WF_SOLVER_XPBD: wfCpuXpbdSubstep(&ctx, c); break;
			case WF_SOLVER_JACOBI: wfCpuJacobiSubstep(&ctx, c); break;
			case WF_SOLVER_SPRINGS: wfCpuSpringsSubstep(&ctx, c); break;
			}
		}
		c->normalsValid = false;
		bool nonFinite;
		if (FrameIsBad(c, &nonFinite)) {
			// Never hand out a garbage frame: count it, say so once, and keep the last good state.
			if (nonFinite)
				world->warnings.nonFinite++;
			else
				world->warnings.unstable++;
			if (world->warnings.nonFinite + world->warnings.unstable == 1)
				wfLog(world, WF_LOG_WARNING, "cloth %d: %s; the frame was discarded (lower the time step or the stiffness)",
					ci, nonFinite ? "non-finite values" : "exploded (speed over 1e4 m/s)");
			memcpy(c->state.pos, cc->pos, bytes);
			memcpy(c->state.vel, cc->vel, bytes);
		}
		wfCpuStageMark(&ctx, WF_STAGE_NORMALS);
	}
	for (int k = 0; ctx.timer != NULL && k < WF_STAGE_COUNT; ++k)
		world->stageMs[k] = 1e3 * timer.seconds[k];
	return WF_OK;
}

static wfResult NoSync(wfWorld* world, wfCloth* cloth)
{
	(void)world;
	(void)cloth;
	return WF_OK;
}

static void Destroy(wfWorld* world)
{
	(void)world;
}

const wfBackendOps wfCpuBackendOps = {
	.name = "cpu",
	.destroy = Destroy,
	.addCloth = AddCloth,
	.removeCloth = RemoveCloth,
	.step = Step,
	.download = NoSync,
	.upload = NoSync,
	.stats = NULL,
};

wfResult wfCpuBackendCreate(wfWorld* world)
{
	world->backend = &wfCpuBackendOps;
	int threads = world->def.threads;
#ifdef _OPENMP
	if (threads <= 0)
		threads = omp_get_num_procs();
#else
	threads = 1;
#endif
	world->threads = threads > 0 ? threads : 1;
	world->simd = wfCpuHasAvx2() && getenv("WEFT_NO_SIMD") == NULL;
	snprintf(world->deviceName, sizeof world->deviceName, "cpu (%d thread%s%s)", world->threads,
		world->threads == 1 ? "" : "s", world->simd ? ", avx2" : "");
	return WF_OK;
}
