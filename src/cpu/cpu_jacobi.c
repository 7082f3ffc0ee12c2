// Small-step PBD with averaged Jacobi sweeps (the third document):
// predict -> sweeps ping-ponging between two buffers -> velocity with retention -> collide.
#include "cpu.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

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

static void SweepRange(const wfCloth* c, const wfVec4* src, wfVec4* acc, int begin, int end)
{
	wfCpuJacobiRangeScalar(c->model.constraints, c->model.jacobiWeight, src, acc, begin, end, !c->model.jacobiDegree);
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
			SweepRange(c, src, acc, begin, end);
			continue;
		}
		const int blocks = (end - begin + 63) / 64;
#pragma omp for schedule(static)
		for (int blk = 0; blk < blocks; ++blk) {
			int b0 = begin + 64 * blk, b1 = b0 + 64 < end ? b0 + 64 : end;
			SweepRange(c, src, acc, b0, b1);
		}
	}
	const bool byDegree = m->jacobiDegree;
	const float invH = 1.0f / ctx->params->h;
	wfVec4* restrict vel = ctx->moves ? c->state.vel : NULL;
#pragma omp for schedule(static)
	for (int i = 0; i < n; ++i) {
		wfVec4 xi = src[i];
		const int deg = m->adjStart[i + 1] - m->adjStart[i];
		const float si = !byDegree ? s : deg > 0 ? s / (float)deg : 0.0f;
		if (xi.w == 0.0f) {
			dst[i] = xi;
			continue;
		}
		const float mx = si * acc[i].x, my = si * acc[i].y, mz = si * acc[i].z;
		dst[i] = (wfVec4){xi.x + mx, xi.y + my, xi.z + mz, xi.w};
		if (vel != NULL)
			wfCpuMoved(&vel[i], invH, mx, my, mz);
	}
}

// The sweeps of a substep in record order: an even number lands the result back in pos; after an
// odd number it is copied.
static void ScalarSweeps(const wfCpuContext* ctx, wfCloth* c)
{
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
}

// ---------------------------------------------------------------------------------------------
// The sweep as a per-particle gather in structure-of-arrays order (wfCpuJacobi), written once over
// the wide float (cpu_jacobi_stages.h) and compiled at 16 lanes (AVX-512), 8 (AVX2), 4 (wasm
// SIMD128) and 1. A colour-ordered scatter (above) adds each constraint into both its ends; the
// gather has every particle read its own constraints, ascending, so a particle's corrections add
// up in the scatter's order and the bits are the scalar solver's. The degree varies (a grid's
// border, a mesh), so every particle's list is padded to the most any particle has, the padding
// naming the particle itself: a zero length, which the sweep skips as the scalar loop does. Why
// not the scatter in SIMD: it gathers and scatters 16-byte records for both ends of every
// constraint; the gather keeps a particle's sums in registers and writes each particle once.
struct wfCpuJacobi {
	int lanes;                 // particles per block: 16, 8, 4 or 1
	wfCpuAdjacency adj;        // the padded adjacency: each slot's other end and rest length
	float* weight;             // (slots x count) each slot's Jacobi weight c_ij (padding: 0)
	float* degree;             // (count) deg(i)
	float *x[2], *y[2], *z[2]; // (count) the two position buffers the sweeps ping-pong between
	float *vx, *vy, *vz;       // (count) the substep's velocities (each particle adds its own moves)
	float* w;                  // (count) inverse masses
};

#define WF_WIDE_STAGES "cpu_jacobi_stages.h"
#include "cpu_wide_each.h"

bool wfCpuJacobiSupported(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
	return wfCpuHasAvx2();
#elif defined(__wasm_simd128__)
	return true; // a wasm module with SIMD128 instructions runs only where they are
#else
	return false;
#endif
}

void wfCpuAdjacencyFree(wfCpuAdjacency* adj)
{
	wfFree(adj->other);
	wfFree(adj->rest);
	adj->other = NULL;
	adj->rest = NULL;
}

bool wfCpuAdjacencyInit(wfCpuAdjacency* adj, const wfClothModel* m)
{
	const int n = m->particleCount;
	int slots = 0;
	for (int i = 0; i < n; ++i)
		slots = m->adjStart[i + 1] - m->adjStart[i] > slots ? m->adjStart[i + 1] - m->adjStart[i] : slots;
	adj->particles = n;
	adj->count = (n + 15) & ~15;
	adj->slots = slots;
	const size_t cells = (size_t)slots * (size_t)adj->count;
	adj->other = (int32_t*)wfAlloc(cells * sizeof(int32_t));
	adj->rest = (float*)wfAlloc(cells * sizeof(float));
	if (adj->other == NULL || adj->rest == NULL)
		return false;
	// The padding, and the padding particles, are zero but for `other`.
	for (int i = 0; i < adj->count; ++i) {
		const int first = i < n ? m->adjStart[i] : 0, deg = i < n ? m->adjStart[i + 1] - first : 0;
		for (int e = 0; e < slots; ++e) {
			const size_t at = (size_t)e * (size_t)adj->count + (size_t)i;
			adj->other[at] = e < deg ? (int32_t)m->adjOther[first + e] : i;
			adj->rest[at] = e < deg ? m->constraints[m->adjConstraint[first + e]].rest : 0.0f;
		}
	}
	return true;
}

void wfCpuJacobiFree(wfCpuJacobi* g)
{
	if (g == NULL)
		return;
	wfCpuAdjacencyFree(&g->adj);
	wfFree(g->weight);
	wfFree(g->degree);
	for (int b = 0; b < 2; ++b) {
		wfFree(g->x[b]);
		wfFree(g->y[b]);
		wfFree(g->z[b]);
	}
	wfFree(g->vx);
	wfFree(g->vy);
	wfFree(g->vz);
	wfFree(g->w);
	free(g);
}

wfCpuJacobi* wfCpuJacobiCreate(const wfClothModel* m, int lanes)
{
	wfCpuJacobi* g = (wfCpuJacobi*)calloc(1, sizeof *g);
	if (g == NULL)
		return NULL;
	g->lanes = lanes;
	bool ok = wfCpuAdjacencyInit(&g->adj, m);
	const int n = m->particleCount, count = g->adj.count, slots = g->adj.slots;
	const size_t bytes = (size_t)count * sizeof(float);
	g->weight = (float*)wfAlloc((size_t)slots * bytes);
	g->degree = (float*)wfAlloc(bytes);
	g->w = (float*)wfAlloc(bytes);
	g->vx = (float*)wfAlloc(bytes);
	g->vy = (float*)wfAlloc(bytes);
	g->vz = (float*)wfAlloc(bytes);
	ok = ok && g->weight != NULL && g->degree != NULL && g->w != NULL && g->vx != NULL && g->vy != NULL && g->vz != NULL;
	for (int b = 0; b < 2; ++b) {
		g->x[b] = (float*)wfAlloc(bytes);
		g->y[b] = (float*)wfAlloc(bytes);
		g->z[b] = (float*)wfAlloc(bytes);
		ok = ok && g->x[b] != NULL && g->y[b] != NULL && g->z[b] != NULL;
	}
	if (!ok) {
		wfCpuJacobiFree(g);
		return NULL;
	}
	// Each slot's weight and each particle's degree (the padding stays zero).
	for (int i = 0; i < n; ++i) {
		const int first = m->adjStart[i], deg = m->adjStart[i + 1] - first;
		g->degree[i] = (float)deg;
		for (int e = 0; e < deg; ++e)
			g->weight[(size_t)e * (size_t)count + (size_t)i] = m->jacobiWeight[m->adjConstraint[first + e]];
	}
	return g;
}

#ifdef WF_WIDE
// Particles [i0, i1) of the sweep from buffer `from`, at the width the cloth was built for.
static void WideSweepRange(const wfCpuJacobi* g, int from, int i0, int i1, float s, float invH, bool moves, bool pinFactor, bool byDegree)
{
#if defined(__x86_64__)
	if (g->lanes == 16)
		JacobiSweep16(g, from, i0, i1, s, invH, moves, pinFactor, byDegree);
	else if (g->lanes == 8)
		JacobiSweep8(g, from, i0, i1, s, invH, moves, pinFactor, byDegree);
	else
		JacobiSweep1(g, from, i0, i1, s, invH, moves, pinFactor, byDegree);
#else
	if (g->lanes == 4)
		JacobiSweep4(g, from, i0, i1, s, invH, moves, pinFactor, byDegree);
	else
		JacobiSweep1(g, from, i0, i1, s, invH, moves, pinFactor, byDegree);
#endif
}

// The sweeps of a substep on the structure-of-arrays copy: positions and velocities in, the sweeps,
// both out (inverse masses do not change in a sweep). Inside the substep's parallel region.
static void WideSweeps(const wfCpuContext* ctx, wfCloth* c, const wfCpuJacobi* g)
{
	const int n = g->adj.particles, count = g->adj.count, sweeps = ctx->params->iterations;
	wfVec4* restrict pos = c->state.pos;
	wfVec4* restrict vel = c->state.vel;
#pragma omp for schedule(static)
	for (int i = 0; i < n; ++i) {
		g->x[0][i] = pos[i].x;
		g->y[0][i] = pos[i].y;
		g->z[0][i] = pos[i].z;
		g->w[i] = pos[i].w;
		if (!ctx->moves)
			continue;
		g->vx[i] = vel[i].x;
		g->vy[i] = vel[i].y;
		g->vz[i] = vel[i].z;
	}
	const float s = c->material.relaxation;
	const bool pinFactor = !c->model.jacobiDegree, byDegree = c->model.jacobiDegree;
	const int blocks = count / 64 + (count % 64 != 0); // 64 particles a work item
	for (int it = 0; it < sweeps; ++it) {
#pragma omp for schedule(static)
		for (int b = 0; b < blocks; ++b) {
			const int i0 = 64 * b, i1 = i0 + 64 < count ? i0 + 64 : count;
			WideSweepRange(g, it & 1, i0, i1, s, 1.0f / ctx->params->h, ctx->moves, pinFactor, byDegree);
		}
	}
	const int last = sweeps & 1;
#pragma omp for schedule(static)
	for (int i = 0; i < n; ++i) {
		pos[i].x = g->x[last][i];
		pos[i].y = g->y[last][i];
		pos[i].z = g->z[last][i];
		if (!ctx->moves)
			continue;
		vel[i].x = g->vx[i];
		vel[i].y = g->vy[i];
		vel[i].z = g->vz[i];
	}
}
#endif

void wfCpuJacobiSubstep(const wfCpuContext* ctx, wfCloth* c)
{
#pragma omp parallel num_threads(ctx->threads) if (ctx->parallel)
	{
		wfCpuPredict(ctx, c, 0.0f); // no damping force: retention damps after the solve
#pragma omp single
		wfCpuPlaceGrab(c);
		wfCpuStageMark(ctx, WF_STAGE_PREDICT);
		const wfCpuJacobi* g = ctx->jacobi;
#ifdef WF_WIDE
		if (g != NULL)
			WideSweeps(ctx, c, g);
#endif
		if (g == NULL)
			ScalarSweeps(ctx, c);
		wfCpuAttach(ctx, c, false); // before the tethers: attached particles anchor some
		wfCpuTethers(ctx, c, false);
		if (wfMeshesBeforeSelf(ctx->world)) // the continuous passes see the bodies' pushes
			wfCpuCollideMeshes(ctx, c, c->state.prev, c->state.pos, c->state.vel, ctx->moves);
		wfCpuSelfCollide(ctx, c, c->state.prev, ctx->moves);
		wfCpuStageMark(ctx, WF_STAGE_SOLVE);
		wfCpuFinish(ctx, c, c->material.retention); // v = beta (x - p) / h, x - p summed move by move
		wfCpuCollideMeshes(ctx, c, c->state.prev, c->state.pos, c->state.vel, false);
		wfCpuStageMark(ctx, WF_STAGE_FINISH);
	}
}
