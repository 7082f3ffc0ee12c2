// Small-step PBD with averaged Jacobi sweeps (the third document):
// predict -> sweeps ping-ponging between two buffers -> velocity with retention -> collide.
#include "cpu.h"

#include <math.h>

static void Predict(const wfCpuContext* ctx, wfCloth* c)
{
	const wfFrameParams* p = ctx->params;
	const float h = p->h;
	const int n = c->model.particleCount, cols = c->model.cols;
	wfVec4* restrict pos = c->state.pos;
	wfVec4* restrict vel = c->state.vel;
	wfVec4* restrict prev = c->state.prev;
	const bool uniform = p->wind.mode != WF_WIND_WAVE;
	const wfVec3 a0 = wfExternalAccel(p, ctx->substep, 0, 1.0f / c->material.mass);
#pragma omp for schedule(static)
	for (int i = 0; i < n; ++i) {
		wfVec4 x = pos[i];
		prev[i] = x;
		if (x.w == 0.0f)
			continue;
		wfVec3 a = uniform ? a0 : wfExternalAccel(p, ctx->substep, i % cols, x.w);
		wfVec4 v = vel[i];
		v.x += h * a.x;
		v.y += h * a.y;
		v.z += h * a.z;
		vel[i] = v;
		pos[i] = (wfVec4){x.x + h * v.x, x.y + h * v.y, x.z + h * v.z, x.w};
	}
}

// One sweep: every particle gathers the corrections of its constraints from `src` into `dst`.
// The correction of constraint (i, j) on i is s * c_ij * f_i * (|x_j - x_i| - l) * d_ij with
// c_ij = 1 / max(deg i, deg j) (symmetric averaging) and f_i = 2 w_i / (w_i + w_j). For two free
// particles f = 1: the document's average of full corrections. The symmetric c_ij makes the
// corrections on i and j equal and opposite, so linear momentum is conserved, and
// sum_j c_ij <= 1 keeps the sweep a contraction for s <= 1.
static void Sweep(const wfCpuContext* ctx, const wfCloth* c, const wfVec4* restrict src, wfVec4* restrict dst)
{
	const wfClothModel* m = &c->model;
	const float s = c->material.relaxation;
	const int n = m->particleCount;
#pragma omp for schedule(static)
	for (int i = 0; i < n; ++i) {
		wfVec4 xi = src[i];
		if (xi.w == 0.0f) {
			dst[i] = xi;
			continue;
		}
		float cx = 0.0f, cy = 0.0f, cz = 0.0f;
		for (int e = m->adjStart[i]; e < m->adjStart[i + 1]; ++e) {
			uint32_t k = m->adjConstraint[e];
			wfVec4 xj = src[m->adjOther[e]];
			float dx = xj.x - xi.x, dy = xj.y - xi.y, dz = xj.z - xi.z;
			float len = sqrtf(dx * dx + dy * dy + dz * dz);
			if (len < 1e-12f)
				continue;
			float f = 2.0f * xi.w / (xi.w + xj.w);
			float g = m->jacobiWeight[k] * f * (len - m->constraints[k].rest) / len;
			cx += g * dx;
			cy += g * dy;
			cz += g * dz;
		}
		dst[i] = (wfVec4){xi.x + s * cx, xi.y + s * cy, xi.z + s * cz, xi.w};
	}
}

static void Finalize(const wfCpuContext* ctx, wfCloth* c);

void wfCpuJacobiSubstep(const wfCpuContext* ctx, wfCloth* c)
{
#pragma omp parallel num_threads(ctx->threads) if (ctx->parallel)
	{
		Predict(ctx, c);
#pragma omp single
		wfCpuPlaceGrab(c);
		// An even number of sweeps lands the result back in pos.
		for (int it = 0; it < ctx->params->iterations; ++it) {
			if ((it & 1) == 0)
				Sweep(ctx, c, c->state.pos, c->state.pos2);
			else
				Sweep(ctx, c, c->state.pos2, c->state.pos);
		}
		Finalize(ctx, c);
		wfCpuCollide(ctx, c->state.pos, c->state.vel, c->model.particleCount);
	}
}

// v = beta (x - p) / h.
static void Finalize(const wfCpuContext* ctx, wfCloth* c)
{
	const float k = c->material.retention / ctx->params->h;
	const int n = c->model.particleCount;
	wfVec4* restrict pos = c->state.pos;
	wfVec4* restrict vel = c->state.vel;
	const wfVec4* restrict prev = c->state.prev;
#pragma omp for schedule(static)
	for (int i = 0; i < n; ++i) {
		if (pos[i].w == 0.0f) {
			vel[i] = (wfVec4){0.0f, 0.0f, 0.0f, 0.0f};
			continue;
		}
		vel[i] = (wfVec4){k * (pos[i].x - prev[i].x), k * (pos[i].y - prev[i].y), k * (pos[i].z - prev[i].z), 0.0f};
	}
}
