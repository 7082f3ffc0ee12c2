// Explicit mass-spring (the second document): Hooke spring plus damper along each spring, gravity,
// semi-implicit Euler, reading one pair of buffers and writing the other.
#include "cpu.h"

#include <math.h>

void wfCpuSpringsSubstep(const wfCpuContext* ctx, wfCloth* c)
{
	const wfClothModel* m = &c->model;
	const wfFrameParams* p = ctx->params;
	const float h = p->h, k = c->material.stiffness, damping = c->material.springDamping, mass = c->material.mass;
	const int n = m->particleCount, cols = m->cols;
	const wfVec4* restrict x0 = c->state.pos;
	const wfVec4* restrict v0 = c->state.vel;
	wfVec4* restrict x1 = c->state.pos2;
	wfVec4* restrict v1 = c->state.vel2;
	const bool uniform = p->wind.mode != WF_WIND_WAVE;
	const wfVec3 a0 = wfExternalAccel(p, ctx->substep, 0, 1.0f / mass);
	const int grab = c->grabIndex;
	const wfVec3 target = c->grabTarget;
#pragma omp parallel num_threads(ctx->threads) if (ctx->parallel)
	{
#pragma omp for schedule(static)
		for (int i = 0; i < n; ++i) {
			wfVec4 xi = x0[i], vi = v0[i];
			if (xi.w == 0.0f) {
				x1[i] = i == grab ? (wfVec4){target.x, target.y, target.z, 0.0f} : xi;
				v1[i] = (wfVec4){0.0f, 0.0f, 0.0f, 0.0f};
				continue;
			}
			wfVec3 a = uniform ? a0 : wfExternalAccel(p, ctx->substep, i % cols, xi.w);
			float fx = mass * a.x, fy = mass * a.y, fz = mass * a.z;
			for (int e = m->adjStart[i]; e < m->adjStart[i + 1]; ++e) {
				uint32_t j = m->adjOther[e];
				wfVec4 xj = x0[j], vj = v0[j];
				float dx = xj.x - xi.x, dy = xj.y - xi.y, dz = xj.z - xi.z;
				float len = sqrtf(dx * dx + dy * dy + dz * dz);
				if (len < 1e-12f)
					continue;
				dx /= len;
				dy /= len;
				dz /= len;
				float spring = k * (len - m->constraints[m->adjConstraint[e]].rest);
				float damper = damping * ((vj.x - vi.x) * dx + (vj.y - vi.y) * dy + (vj.z - vi.z) * dz);
				fx += (spring + damper) * dx;
				fy += (spring + damper) * dy;
				fz += (spring + damper) * dz;
			}
			wfVec4 v = {vi.x + h * fx * xi.w, vi.y + h * fy * xi.w, vi.z + h * fz * xi.w, 0.0f};
			v1[i] = v;
			x1[i] = (wfVec4){xi.x + h * v.x, xi.y + h * v.y, xi.z + h * v.z, xi.w};
		}
		wfCpuCollide(ctx, x1, v1, n);
	}
	// Ping-pong: the written pair becomes the current state.
	wfVec4* t = c->state.pos;
	c->state.pos = c->state.pos2;
	c->state.pos2 = t;
	t = c->state.vel;
	c->state.vel = c->state.vel2;
	c->state.vel2 = t;
}
