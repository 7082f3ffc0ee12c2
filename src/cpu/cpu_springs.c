// Explicit mass-spring (the second document): Hooke spring plus damper along each spring, gravity,
// semi-implicit Euler, reading one pair of buffers and writing the other.
#include "cpu.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// Spring forces of constraints [begin, end) added into `force` (equal and opposite on the ends):
// F = k (|d| - l) + c (v_b - v_a) . u along u = d / |d|, d = x_b - x_a. Per particle the forces
// arrive in ascending constraint order, the order of the GPU's per-particle gather.
void wfCpuSpringsRangeScalar(const wfConstraint* restrict con, const wfVec4* restrict x, const wfVec4* restrict v, wfVec4* restrict force,
	int begin, int end, float k, float damping)
{
	for (int i = begin; i < end; ++i) {
		const wfConstraint q = con[i];
		wfVec4 xa = x[q.a], xb = x[q.b], va = v[q.a], vb = v[q.b];
		float dx = xb.x - xa.x, dy = xb.y - xa.y, dz = xb.z - xa.z;
		float len = sqrtf(dx * dx + dy * dy + dz * dz);
		if (len < WF_MIN_LENGTH)
			continue;
		dx /= len;
		dy /= len;
		dz /= len;
		float spring = k * (len - q.rest);
		float damper = damping * ((vb.x - va.x) * dx + (vb.y - va.y) * dy + (vb.z - va.z) * dz);
		float f = spring + damper;
		force[q.a].x += f * dx;
		force[q.a].y += f * dy;
		force[q.a].z += f * dz;
		force[q.b].x += f * -dx;
		force[q.b].y += f * -dy;
		force[q.b].z += f * -dz;
	}
}

// ---------------------------------------------------------------------------------------------
// The forces as a per-particle gather fused with the Euler step, in structure-of-arrays order
// (wfCpuSprings), written once over the wide float (cpu_springs_stages.h) and compiled at 16 lanes
// (AVX-512), 8 (AVX2), 4 (wasm SIMD128) and 1, over the Jacobi's padded adjacency. The scatter
// (above) adds each constraint into both its ends; the gather has every particle read its own
// constraints, ascending, so a particle's forces add up in the scatter's order, and a lane takes a
// constraint's ends in the constraint's order, so the bits are the scalar solver's. The substep
// copies the state into the arrays once (with the external forces), and each 64-particle work
// item steps its particles and then, while they are in L1, writes them back with the pins, the
// grab and the colliders.
struct wfCpuSprings {
	int lanes;              // particles per block: 16, 8, 4 or 1
	wfCpuAdjacency adj;     // the padded adjacency: each slot's other end and rest length
	float* second;          // (slots x count) 1 where the particle is the b end of the slot's constraint
	int32_t* self;          // (count) i: the particles' own records
	float* pos;             // (count x 4) the substep-start x, y, z, w, a 16-byte record per particle
	float* vel;             // (count x 4) the substep-start velocities (w: 0)
	float *fx, *fy, *fz;    // (count) the external forces (gravity, wind, the air's drag and lift)
	float *ox, *oy, *oz;    // (count) the positions after the Euler step
	float *ovx, *ovy, *ovz; // (count) the velocities after it
	float* arrays;          // (17 x count) the storage of the per-particle arrays above
};

#define WF_WIDE_STAGES "cpu_springs_stages.h"
#include "cpu_wide_each.h"

// x86-64 with AVX2. The wasm module compiles the 4-lane gather but keeps the scalar scatter for
// now: its compute-cloth frame under Node measured slower with the gather (git show
// 862658c:docs/PERFORMANCE.md).
bool wfCpuSpringsSupported(void)
{
#if defined(__wasm_simd128__)
	return false;
#else
	return wfCpuJacobiSupported();
#endif
}

void wfCpuSpringsFree(wfCpuSprings* g)
{
	if (g == NULL)
		return;
	wfCpuAdjacencyFree(&g->adj);
	wfFree(g->second);
	wfFree(g->self);
	wfFree(g->arrays);
	free(g);
}

wfCpuSprings* wfCpuSpringsCreate(const wfClothModel* m, int lanes)
{
	wfCpuSprings* g = (wfCpuSprings*)calloc(1, sizeof *g);
	if (g == NULL)
		return NULL;
	g->lanes = lanes;
	bool ok = wfCpuAdjacencyInit(&g->adj, m);
	const size_t count = (size_t)g->adj.count;
	g->second = (float*)wfAlloc((size_t)g->adj.slots * count * sizeof(float));
	g->self = (int32_t*)wfAlloc(count * sizeof(int32_t));
	g->arrays = (float*)wfAlloc(17 * count * sizeof(float));
	if (!ok || g->second == NULL || g->self == NULL || g->arrays == NULL) {
		wfCpuSpringsFree(g);
		return NULL;
	}
	g->pos = g->arrays;
	g->vel = g->arrays + 4 * count;
	float** array[9] = {&g->fx, &g->fy, &g->fz, &g->ox, &g->oy, &g->oz, &g->ovx, &g->ovy, &g->ovz};
	for (size_t a = 0; a < 9; ++a)
		*array[a] = g->arrays + (8 + a) * count;
	for (size_t i = 0; i < count; ++i)
		g->self[i] = (int32_t)i;
	// Which end of each slot's constraint the particle is (the padding stays 0).
	for (int i = 0; i < m->particleCount; ++i) {
		const int first = m->adjStart[i], deg = m->adjStart[i + 1] - first;
		for (int e = 0; e < deg; ++e)
			g->second[(size_t)e * count + (size_t)i] = m->constraints[m->adjConstraint[first + e]].a != (uint32_t)i ? 1.0f : 0.0f;
	}
	return g;
}

// The external force on particle i: mass times gravity, wind and the air's drag and lift.
static inline wfVec3 ExternalForce(const wfCpuContext* ctx, const wfCloth* c, int i, float mass, wfVec3 a0, bool uniform)
{
	const wfFrameParams* p = ctx->params;
	wfVec3 a = uniform ? a0 : wfExternalAccel(p, ctx->substep, i % c->model.cols, c->state.pos[i].w);
	if (p->aeroOn) {
		a.x += c->state.aero[i].x;
		a.y += c->state.aero[i].y;
		a.z += c->state.aero[i].z;
	}
	return (wfVec3){mass * a.x, mass * a.y, mass * a.z};
}

// The end of a particle's step, from its new velocity v and position x (w: its inverse mass):
// pinned and grabbed particles stay put, the others take the step and then the collisions.
// Always inlined: with two callers (the gather's and the scatter's step) clang 14 for wasm32 kept
// it a function, called per particle with x and v passed through the shadow stack in linear
// memory, and that cost the wasm compute-cloth frame about half again (24.4 against 16.2 ms under
// Node: git show 862658c:docs/PERFORMANCE.md). GCC inlines it natively either way.
#if defined(__GNUC__)
#define WF_FINISH_INLINE static inline __attribute__((always_inline))
#else
#define WF_FINISH_INLINE static inline
#endif
WF_FINISH_INLINE void FinishParticle(const wfCloth* c, const wfCpuColliders* colliders, int i, wfVec4 x, wfVec4 v, bool touch)
{
	wfVec4* restrict x1 = c->state.pos2;
	wfVec4* restrict v1 = c->state.vel2;
	if (x.w == 0.0f) {
		const wfVec3 target = c->local.grabTarget;
		x1[i] = i == c->grabIndex ? (wfVec4){target.x, target.y, target.z, 0.0f} : c->state.pos[i];
		v1[i] = (wfVec4){0.0f, 0.0f, 0.0f, 0.0f};
		return;
	}
	v1[i] = v;
	x1[i] = x;
	if (touch) // wfCpuMayTouch
		wfCpuCollideParticle(colliders, &x1[i], &v1[i]);
}

#ifdef WF_WIDE
// Particles [i0, i1) of the gather and step, at the width the cloth was built for.
static void WideStepRange(const wfCpuSprings* g, int i0, int i1, float k, float damping, float h)
{
#if defined(__x86_64__)
	if (g->lanes == 16)
		SpringsStep16(g, i0, i1, k, damping, h);
	else if (g->lanes == 8)
		SpringsStep8(g, i0, i1, k, damping, h);
	else
		SpringsStep1(g, i0, i1, k, damping, h);
#else
	if (g->lanes == 4)
		SpringsStep4(g, i0, i1, k, damping, h);
	else
		SpringsStep1(g, i0, i1, k, damping, h);
#endif
}

// The substep's forces and Euler step on the structure-of-arrays copy: the state and the external
// forces in, then per work item the gather and step and the particles back with the collisions.
// Inside the substep's parallel region.
static void WideStep(const wfCpuContext* ctx, wfCloth* c, const wfCpuSprings* g, const wfCpuColliders* colliders)
{
	const wfFrameParams* p = ctx->params;
	const float mass = c->material.mass;
	const bool uniform = p->wind.mode != WF_WIND_WAVE;
	const wfVec3 a0 = wfExternalAccel(p, ctx->substep, 0, 1.0f / mass);
	const int n = g->adj.particles, count = g->adj.count;
	const wfVec4* restrict x0 = c->state.pos;
	const wfVec4* restrict v0 = c->state.vel;
	// Without the wave wind and the air every particle feels the same force: computed once.
	const bool same = uniform && !p->aeroOn;
	const wfVec3 f0 = {mass * a0.x, mass * a0.y, mass * a0.z};
#pragma omp for schedule(static)
	for (int i = 0; i < n; ++i) {
		const wfVec3 f = same ? f0 : ExternalForce(ctx, c, i, mass, a0, uniform);
		memcpy(g->pos + 4 * i, &x0[i], sizeof(wfVec4));
		g->vel[4 * i + 0] = v0[i].x;
		g->vel[4 * i + 1] = v0[i].y;
		g->vel[4 * i + 2] = v0[i].z;
		g->fx[i] = f.x;
		g->fy[i] = f.y;
		g->fz[i] = f.z;
	}
	wfCpuStageMark(ctx, WF_STAGE_PREDICT);
	const float k = c->material.stiffness, damping = c->material.springDamping;
	const int blocks = count / 64 + (count % 64 != 0); // 64 particles a work item
#pragma omp for schedule(static)
	for (int b = 0; b < blocks; ++b) {
		const int i0 = 64 * b, i1 = i0 + 64 < count ? i0 + 64 : count, end = i1 < n ? i1 : n;
		WideStepRange(g, i0, i1, k, damping, p->h);
		int32_t touch[64];
		wfCpuMayTouchRange(colliders, g->ox + i0, g->oy + i0, g->oz + i0, end - i0, touch);
		for (int i = i0; i < end; ++i) {
			const wfVec4 x = {g->ox[i], g->oy[i], g->oz[i], x0[i].w}, v = {g->ovx[i], g->ovy[i], g->ovz[i], 0.0f};
			FinishParticle(c, colliders, i, x, v, touch[i - i0] != 0);
		}
	}
	wfCpuStageMark(ctx, WF_STAGE_SOLVE);
}
#endif

// The substep's forces and Euler step in record order: the external forces, the springs colour
// range by colour range (scattered into both ends), then the step particle by particle.
static void ScalarStep(const wfCpuContext* ctx, wfCloth* c, const wfCpuColliders* colliders)
{
	const wfClothModel* m = &c->model;
	const wfFrameParams* p = ctx->params;
	const float h = p->h, mass = c->material.mass, k = c->material.stiffness, damping = c->material.springDamping;
	const bool uniform = p->wind.mode != WF_WIND_WAVE;
	const wfVec3 a0 = wfExternalAccel(p, ctx->substep, 0, 1.0f / mass);
	const int n = m->particleCount;
	const wfVec4* restrict x0 = c->state.pos;
	const wfVec4* restrict v0 = c->state.vel;
	wfVec4* restrict force = c->state.prev; // scratch: springs keep no start-of-substep positions
#pragma omp for schedule(static)
	for (int i = 0; i < n; ++i) {
		const wfVec3 f = ExternalForce(ctx, c, i, mass, a0, uniform);
		force[i] = (wfVec4){f.x, f.y, f.z, 0.0f};
	}
	wfCpuStageMark(ctx, WF_STAGE_PREDICT);
	// Spring and damper forces, colour range by colour range.
	for (int color = 0; color < m->colorCount; ++color) {
		const int begin = m->colorStart[color], end = m->colorStart[color + 1];
		if (!ctx->parallel) {
			wfCpuSpringsRangeScalar(m->constraints, x0, v0, force, begin, end, k, damping);
			continue;
		}
		const int blocks = (end - begin + 63) / 64;
#pragma omp for schedule(static)
		for (int blk = 0; blk < blocks; ++blk) {
			int b0 = begin + 64 * blk, b1 = b0 + 64 < end ? b0 + 64 : end;
			wfCpuSpringsRangeScalar(m->constraints, x0, v0, force, b0, b1, k, damping);
		}
	}
	wfCpuStageMark(ctx, WF_STAGE_SOLVE);
	// Semi-implicit Euler into the other buffer pair, then the collisions, in one pass.
#pragma omp for schedule(static)
	for (int i = 0; i < n; ++i) {
		const wfVec4 xi = x0[i], vi = v0[i], f = force[i];
		const wfVec4 v = {vi.x + h * f.x * xi.w, vi.y + h * f.y * xi.w, vi.z + h * f.z * xi.w, 0.0f};
		const wfVec4 x = {xi.x + h * v.x, xi.y + h * v.y, xi.z + h * v.z, xi.w};
		FinishParticle(c, colliders, i, x, v, wfCpuMayTouch(colliders, x.x, x.y, x.z));
	}
}

void wfCpuSpringsSubstep(const wfCpuContext* ctx, wfCloth* c)
{
	const wfCpuColliders colliders = wfCpuCollidersAt(ctx, c);
#pragma omp parallel num_threads(ctx->threads) if (ctx->parallel)
	{
		// External forces: gravity, wind and the air's drag and lift.
		if (ctx->params->aeroOn)
			wfCpuAero(ctx, c);
		const wfCpuSprings* g = ctx->springs;
#ifdef WF_WIDE
		if (g != NULL)
			WideStep(ctx, c, g, &colliders);
#endif
		if (g == NULL)
			ScalarStep(ctx, c, &colliders);
	}
	// Ping-pong: the written pair becomes the current state.
	wfVec4* t = c->state.pos;
	c->state.pos = c->state.pos2;
	c->state.pos2 = t;
	t = c->state.vel;
	c->state.vel = c->state.vel2;
	c->state.vel2 = t;
	wfCpuCollideMeshes(ctx, c, c->state.pos2, c->state.pos, c->state.vel, false); // pos2: the substep's start now
	wfCpuAttach(ctx, c, true);                                                    // before the tethers: attached particles anchor some
	wfCpuTethers(ctx, c, true);
	wfCpuSelfCollide(ctx, c, NULL, false); // prev holds the forces here: no friction
	wfCpuStageMark(ctx, WF_STAGE_FINISH);
}
