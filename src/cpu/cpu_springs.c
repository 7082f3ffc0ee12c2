// Explicit mass-spring (the second document): Hooke spring plus damper along each spring, gravity,
// semi-implicit Euler, reading one pair of buffers and writing the other.
#include "cpu.h"

#include <math.h>

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

static void ForceRange(const wfCpuContext* ctx, const wfCloth* c, wfVec4* force, int begin, int end)
{
	const float k = c->material.stiffness, damping = c->material.springDamping;
	int i = begin;
	if (ctx->avx2)
		i = wfCpuSpringsRangeAvx2(c->model.constraints, c->state.pos, c->state.vel, force, begin, (end - begin) / 8, k, damping);
	wfCpuSpringsRangeScalar(c->model.constraints, c->state.pos, c->state.vel, force, i, end, k, damping);
}

void wfCpuSpringsSubstep(const wfCpuContext* ctx, wfCloth* c)
{
	const wfClothModel* m = &c->model;
	const wfFrameParams* p = ctx->params;
	const float h = p->h, mass = c->material.mass;
	const int n = m->particleCount, cols = m->cols;
	const wfVec4* restrict x0 = c->state.pos;
	const wfVec4* restrict v0 = c->state.vel;
	wfVec4* restrict x1 = c->state.pos2;
	wfVec4* restrict v1 = c->state.vel2;
	wfVec4* restrict force = c->state.prev; // scratch: springs keep no start-of-substep positions
	const bool uniform = p->wind.mode != WF_WIND_WAVE;
	const wfVec3 a0 = wfExternalAccel(p, ctx->substep, 0, 1.0f / mass);
	const int grab = c->grabIndex;
	const wfVec3 target = c->local.grabTarget;
	const wfCpuColliders colliders = wfCpuCollidersAt(ctx, c);
#pragma omp parallel num_threads(ctx->threads) if (ctx->parallel)
	{
		// External forces: gravity, wind and the air's drag and lift.
		if (p->aeroOn)
			wfCpuAero(ctx, c);
#pragma omp for schedule(static)
		for (int i = 0; i < n; ++i) {
			wfVec3 a = uniform ? a0 : wfExternalAccel(p, ctx->substep, i % cols, x0[i].w);
			if (p->aeroOn) {
				a.x += c->state.aero[i].x;
				a.y += c->state.aero[i].y;
				a.z += c->state.aero[i].z;
			}
			force[i] = (wfVec4){mass * a.x, mass * a.y, mass * a.z, 0.0f};
		}
		wfCpuStageMark(ctx, WF_STAGE_PREDICT);
		// Spring and damper forces, colour range by colour range.
		for (int color = 0; color < m->colorCount; ++color) {
			const int begin = m->colorStart[color], end = m->colorStart[color + 1];
			if (!ctx->parallel) {
				ForceRange(ctx, c, force, begin, end);
				continue;
			}
			const int blocks = (end - begin + 63) / 64;
#pragma omp for schedule(static)
			for (int blk = 0; blk < blocks; ++blk) {
				int b0 = begin + 64 * blk, b1 = b0 + 64 < end ? b0 + 64 : end;
				ForceRange(ctx, c, force, b0, b1);
			}
		}
		wfCpuStageMark(ctx, WF_STAGE_SOLVE);
		// Semi-implicit Euler into the other buffer pair, then the collisions, in one pass; pinned
		// and grabbed particles stay put.
#pragma omp for schedule(static)
		for (int i = 0; i < n; ++i) {
			wfVec4 xi = x0[i], vi = v0[i], f = force[i];
			if (xi.w == 0.0f) {
				x1[i] = i == grab ? (wfVec4){target.x, target.y, target.z, 0.0f} : xi;
				v1[i] = (wfVec4){0.0f, 0.0f, 0.0f, 0.0f};
				continue;
			}
			wfVec4 v = {vi.x + h * f.x * xi.w, vi.y + h * f.y * xi.w, vi.z + h * f.z * xi.w, 0.0f};
			v1[i] = v;
			x1[i] = (wfVec4){xi.x + h * v.x, xi.y + h * v.y, xi.z + h * v.z, xi.w};
			if (colliders.any)
				wfCpuCollideParticle(&colliders, &x1[i], &v1[i]);
		}
	}
	// Ping-pong: the written pair becomes the current state.
	wfVec4* t = c->state.pos;
	c->state.pos = c->state.pos2;
	c->state.pos2 = t;
	t = c->state.vel;
	c->state.vel = c->state.vel2;
	c->state.vel2 = t;
	wfCpuCollideMeshes(ctx, c, c->state.pos2, c->state.pos, c->state.vel, c->state.vel2); // pos2: the substep's start now
	wfCpuAttach(ctx, c, true); // before the tethers: attached particles anchor some
	wfCpuTethers(ctx, c, true);
	wfCpuSelfCollide(ctx, c, NULL); // prev holds the forces here: no friction
	wfCpuStageMark(ctx, WF_STAGE_FINISH);
}
