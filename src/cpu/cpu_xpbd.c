// XPBD (the first document's algorithm) with graph-coloured Gauss-Seidel:
// predict -> solve range by range (the model's solve ranges: colours, or each colour of each tile
// colour in the tile order), every move also into the substep's velocity (wfCpuMoved) -> collide.
#include "cpu.h"

#include <math.h>

// Scalar projection of constraints [begin, end); with `vel` (WF_VELOCITY_MOVES) each end's move also
// goes into its velocity (wfCpuMoved: the same products, times invH).
static void SolveScalar(const wfConstraint* restrict con, wfVec4* restrict pos, wfVec4* restrict vel, float* restrict lambda, int begin,
	int end, const float* alphaTilde, float invH)
{
	for (int k = begin; k < end; ++k) {
		const wfConstraint q = con[k];
		wfVec4 a = pos[q.a], b = pos[q.b];
		float wsum = a.w + b.w;
		float dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
		float len = sqrtf(dx * dx + dy * dy + dz * dz);
		if (wsum == 0.0f || len < WF_MIN_LENGTH)
			continue;
		// dLambda = -(C + alpha~ lambda) / (w_a + w_b + alpha~), with gradient n = (a - b) / |a - b|.
		float at = alphaTilde[q.family];
		float dl = -(len - q.rest + at * lambda[k]) / (wsum + at);
		lambda[k] += dl;
		float s = dl / len;
		float sa = s * a.w, sb = s * b.w;
		const float ax = sa * dx, ay = sa * dy, az = sa * dz, bx = sb * dx, by = sb * dy, bz = sb * dz;
		pos[q.a] = (wfVec4){a.x + ax, a.y + ay, a.z + az, a.w};
		pos[q.b] = (wfVec4){b.x - bx, b.y - by, b.z - bz, b.w};
		if (vel != NULL) {
			wfCpuMoved(&vel[q.a], invH, ax, ay, az);
			wfCpuMoved(&vel[q.b], invH, -bx, -by, -bz);
		}
	}
}

// A block of a colour range: eight constraints at a time with AVX2, the tail scalar.
static void SolveBlock(const wfCpuContext* ctx, wfCloth* c, int begin, int end, const float* alphaTilde, float invH)
{
	int k = begin;
	wfVec4* vel = ctx->moves ? c->state.vel : NULL;
	if (ctx->avx2)
		k = wfCpuXpbdRangeAvx2(c->model.constraints, c->state.pos, vel, c->state.lambda, begin, (end - begin) / 8, alphaTilde, invH);
	SolveScalar(c->model.constraints, c->state.pos, vel, c->state.lambda, k, end, alphaTilde, invH);
}

// One pass over one colour range. No two constraints of a colour share a particle, so the order
// inside the range does not matter and blocks of 64 may go to different threads.
static void SolveRange(const wfCpuContext* ctx, wfCloth* c, int begin, int end, const float* alphaTilde, float invH)
{
	if (!ctx->parallel) {
		SolveBlock(ctx, c, begin, end, alphaTilde, invH);
		return;
	}
	const int blocks = (end - begin + 63) / 64;
#pragma omp for schedule(static)
	for (int blk = 0; blk < blocks; ++blk) {
		int b0 = begin + 64 * blk, b1 = b0 + 64 < end ? b0 + 64 : end;
		SolveBlock(ctx, c, b0, b1, alphaTilde, invH);
	}
}

void wfCpuXpbdSubstep(const wfCpuContext* ctx, wfCloth* c)
{
	const float h = ctx->params->h;
	const float alphaTilde[WF_FAMILY_COUNT] = {
		wfAlphaTilde(c->material.stretchCompliance, h),
		wfAlphaTilde(c->material.shearCompliance, h),
		wfAlphaTilde(c->material.bendCompliance, h),
	};
#pragma omp parallel num_threads(ctx->threads) if (ctx->parallel)
	{
		wfCpuPredict(ctx, c, c->material.damping);
#pragma omp single
		wfCpuPlaceGrab(c);
		wfCpuStageMark(ctx, WF_STAGE_PREDICT);
		// lambda restarts every substep (small steps: one solve per substep).
		const int m = c->model.constraintCount;
#pragma omp for schedule(static)
		for (int k = 0; k < m; ++k)
			c->state.lambda[k] = 0.0f;
		const int* range = c->model.solveRange;
		for (int it = 0; it < ctx->params->iterations; ++it) {
			for (int r = 0; r < c->model.solveRangeCount; ++r)
				SolveRange(ctx, c, range[2 * r], range[2 * r + 1], alphaTilde, 1.0f / h);
		}
		wfCpuAttach(ctx, c, false); // before the tethers: attached particles anchor some
		wfCpuTethers(ctx, c, false);
		if (wfMeshesBeforeSelf(ctx->world)) // the continuous passes see the bodies' pushes
			wfCpuCollideMeshes(ctx, c, c->state.prev, c->state.pos, c->state.vel, ctx->moves);
		wfCpuSelfCollide(ctx, c, c->state.prev, ctx->moves);
		wfCpuStageMark(ctx, WF_STAGE_SOLVE);
		wfCpuFinish(ctx, c, 1.0f);
		wfCpuCollideMeshes(ctx, c, c->state.prev, c->state.pos, c->state.vel, false);
		wfCpuStageMark(ctx, WF_STAGE_FINISH);
	}
}
