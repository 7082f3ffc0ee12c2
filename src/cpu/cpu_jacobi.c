// Small-step PBD with averaged Jacobi sweeps (the third document):
// predict -> sweeps ping-ponging between two buffers -> velocity with retention -> collide.
#include "cpu.h"

#include <math.h>

// The correction of constraint (i, j) on i is s * c_ij * f_i * (|x_j - x_i| - l) * d_ij with
// c_ij = 1 / max(deg i, deg j) (symmetric averaging) and f_i = 2 w_i / (w_i + w_j). For two free
// particles f = 1: the document's average of full corrections. The symmetric c_ij makes the
// corrections on i and j equal and opposite, so linear momentum is conserved, and
// sum_j c_ij <= 1 keeps the sweep a contraction for s <= 1.
//
// A sweep walks the colour ranges and adds each constraint's two corrections into `acc`; within a
// colour no particle is touched twice, so a range may be split across threads. Per particle the
// corrections arrive in ascending constraint order, the order of the GPU's per-particle gather.
void wfCpuJacobiRangeScalar(const wfConstraint* restrict con, const float* restrict weight, const wfVec4* restrict src,
	wfVec4* restrict acc, int begin, int end)
{
	for (int k = begin; k < end; ++k) {
		const wfConstraint q = con[k];
		wfVec4 a = src[q.a], b = src[q.b];
		float dx = b.x - a.x, dy = b.y - a.y, dz = b.z - a.z;
		float len = sqrtf(dx * dx + dy * dy + dz * dz);
		if (len < 1e-12f)
			continue;
		float ga = weight[k] * (2.0f * a.w / (a.w + b.w)) * (len - q.rest) / len;
		float gb = weight[k] * (2.0f * b.w / (b.w + a.w)) * (len - q.rest) / len;
		if (a.w != 0.0f) {
			acc[q.a].x += ga * dx;
			acc[q.a].y += ga * dy;
			acc[q.a].z += ga * dz;
		}
		if (b.w != 0.0f) {
			acc[q.b].x += gb * -dx;
			acc[q.b].y += gb * -dy;
			acc[q.b].z += gb * -dz;
		}
	}
}

static void SweepRange(const wfCpuContext* ctx, const wfCloth* c, const wfVec4* src, wfVec4* acc, int begin, int end)
{
	int k = begin;
	if (ctx->avx2)
		k = wfCpuJacobiRangeAvx2(c->model.constraints, c->model.jacobiWeight, src, acc, begin, (end - begin) / 8);
	wfCpuJacobiRangeScalar(c->model.constraints, c->model.jacobiWeight, src, acc, k, end);
}

static void Sweep(const wfCpuContext* ctx, wfCloth* c, const wfVec4* restrict src, wfVec4* restrict dst)
{
	const wfClothModel* m = &c->model;
	const float s = c->material.relaxation;
	const int n = m->particleCount;
	wfVec4* restrict acc = c->state.vel2; // scratch: Jacobi does not use the second velocity buffer
#pragma omp for schedule(static)
	for (int i = 0; i < n; ++i)
		acc[i] = (wfVec4){0.0f, 0.0f, 0.0f, 0.0f};
	for (int color = 0; color < m->colorCount; ++color) {
		const int begin = m->colorStart[color], end = m->colorStart[color + 1];
		if (!ctx->parallel) {
			SweepRange(ctx, c, src, acc, begin, end);
			continue;
		}
		const int blocks = (end - begin + 63) / 64;
#pragma omp for schedule(static)
		for (int blk = 0; blk < blocks; ++blk) {
			int b0 = begin + 64 * blk, b1 = b0 + 64 < end ? b0 + 64 : end;
			SweepRange(ctx, c, src, acc, b0, b1);
		}
	}
#pragma omp for schedule(static)
	for (int i = 0; i < n; ++i) {
		wfVec4 xi = src[i];
		dst[i] = xi.w == 0.0f ? xi : (wfVec4){xi.x + s * acc[i].x, xi.y + s * acc[i].y, xi.z + s * acc[i].z, xi.w};
	}
}


void wfCpuJacobiSubstep(const wfCpuContext* ctx, wfCloth* c)
{
#pragma omp parallel num_threads(ctx->threads) if (ctx->parallel)
	{
		wfCpuPredict(ctx, c, 0.0f); // no damping force: retention damps after the solve
#pragma omp single
		wfCpuPlaceGrab(c);
		wfCpuStageMark(ctx, WF_STAGE_PREDICT);
		// An even number of sweeps lands the result back in pos.
		for (int it = 0; it < ctx->params->iterations; ++it) {
			if ((it & 1) == 0)
				Sweep(ctx, c, c->state.pos, c->state.pos2);
			else
				Sweep(ctx, c, c->state.pos2, c->state.pos);
		}
		wfCpuStageMark(ctx, WF_STAGE_SOLVE);
		wfCpuFinish(ctx, c, c->material.retention / ctx->params->h); // v = beta (x - p) / h
		wfCpuStageMark(ctx, WF_STAGE_FINISH);
	}
}
