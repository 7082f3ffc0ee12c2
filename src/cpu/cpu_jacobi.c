// Small-step PBD with averaged Jacobi sweeps (the third document):
// predict -> sweeps ping-ponging between two buffers -> velocity with retention -> collide.
#include "cpu.h"

#include <math.h>

// Two weightings (wfClothDef.jacobiWeights):
//   degree:    x_i += s / deg(i) * sum_j (|x_j - x_i| - l) / |x_j - x_i| * (x_j - x_i), the third
//              document's formula (and its CPU solver): each particle averages the full corrections
//              of its own constraints; pinned neighbours count in deg(i) but get no factor.
//   symmetric: the correction of (i, j) on i is s * c_ij * f_i * (...) with c_ij = 1 / max(deg i,
//              deg j) and f_i = 2 w_i / (w_i + w_j): equal and opposite on i and j, so linear
//              momentum is conserved, and sum_j c_ij <= 1 keeps a sweep a contraction for s < 1.
// The per-constraint weight array holds c_ij (symmetric) or 1 (degree); `pinFactor` says
// whether f_i is applied; the per-particle factor s / deg(i) or s is applied by Sweep.
//
// A sweep walks the colour ranges and adds each constraint's two corrections into `acc`; within a
// colour no particle is touched twice, so a range may be split across threads. Per particle the
// corrections arrive in ascending constraint order, the order of the GPU's per-particle gather.
void wfCpuJacobiRangeScalar(const wfConstraint* restrict con, const float* restrict weight, const wfVec4* restrict src,
	wfVec4* restrict acc, int begin, int end, bool pinFactor)
{
	for (int k = begin; k < end; ++k) {
		const wfConstraint q = con[k];
		wfVec4 a = src[q.a], b = src[q.b];
		float dx = b.x - a.x, dy = b.y - a.y, dz = b.z - a.z;
		float len = sqrtf(dx * dx + dy * dy + dz * dz);
		if (len < WF_MIN_LENGTH)
			continue;
		float fa = pinFactor ? 2.0f * a.w / (a.w + b.w) : 1.0f;
		float fb = pinFactor ? 2.0f * b.w / (b.w + a.w) : 1.0f;
		float ga = weight[k] * fa * (len - q.rest) / len;
		float gb = weight[k] * fb * (len - q.rest) / len;
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
	const bool pinFactor = !c->model.jacobiDegree;
	int k = begin;
	if (ctx->avx2)
		k = wfCpuJacobiRangeAvx2(c->model.constraints, c->model.jacobiWeight, src, acc, begin, (end - begin) / 8, pinFactor);
	wfCpuJacobiRangeScalar(c->model.constraints, c->model.jacobiWeight, src, acc, k, end, pinFactor);
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
	const bool byDegree = m->jacobiDegree;
#pragma omp for schedule(static)
	for (int i = 0; i < n; ++i) {
		wfVec4 xi = src[i];
		const int deg = m->adjStart[i + 1] - m->adjStart[i];
		const float si = !byDegree ? s : deg > 0 ? s / (float)deg : 0.0f;
		dst[i] = xi.w == 0.0f ? xi : (wfVec4){xi.x + si * acc[i].x, xi.y + si * acc[i].y, xi.z + si * acc[i].z, xi.w};
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
		// An even number of sweeps lands the result back in pos; after an odd number it is copied.
		const int sweeps = ctx->params->iterations;
		for (int it = 0; it < sweeps; ++it) {
			if ((it & 1) == 0)
				Sweep(ctx, c, c->state.pos, c->state.pos2);
			else
				Sweep(ctx, c, c->state.pos2, c->state.pos);
		}
		if (sweeps & 1) {
			const int n = c->model.particleCount;
#pragma omp for schedule(static)
			for (int i = 0; i < n; ++i)
				c->state.pos[i] = c->state.pos2[i];
		}
		wfCpuAttach(ctx, c, false); // before the tethers: attached particles anchor some
		wfCpuTethers(ctx, c, false);
		if (wfMeshesBeforeSelf(ctx->world)) // the continuous passes see the bodies' pushes
			wfCpuCollideMeshes(ctx, c, c->state.prev, c->state.pos, c->state.vel, c->state.vel2);
		wfCpuSelfCollide(ctx, c, c->state.prev);
		wfCpuStageMark(ctx, WF_STAGE_SOLVE);
		wfCpuFinish(ctx, c, c->material.retention / ctx->params->h); // v = beta (x - p) / h
		wfCpuCollideMeshes(ctx, c, c->state.prev, c->state.pos, c->state.vel, c->state.vel2);
		wfCpuStageMark(ctx, WF_STAGE_FINISH);
	}
}
