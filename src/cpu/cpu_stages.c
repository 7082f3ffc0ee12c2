// Stages shared by the CPU solvers: grab placement, collision response, and the stage clock.
#include "cpu.h"

#include <math.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

double wfCpuClock(void)
{
#ifdef _OPENMP
	return omp_get_wtime();
#else
	struct timespec ts;
	timespec_get(&ts, TIME_UTC);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#endif
}

void wfCpuStageMark(const wfCpuContext* ctx, wfStage stage)
{
	wfCpuStageTimer* t = ctx->timer;
	if (t == NULL)
		return;
#pragma omp master
	{
		double now = wfCpuClock();
		t->seconds[stage] += now - t->last;
		t->last = now;
	}
}

// Forces m g - d v (plus wind), the damping implicit: v = (v + h a) / (1 + h w d); p = x; x += h v.
// The implicit damping factor 1 / (1 + h w d) lies in (0, 1] for every d >= 0, so no damping can
// make a step unstable (the explicit v (1 - h w d) overshoots once h w d > 2).
// Pinned and grabbed particles (w = 0) keep their place.
void wfCpuPredict(const wfCpuContext* ctx, wfCloth* c, float damping)
{
	const wfFrameParams* p = ctx->params;
	const float h = p->h;
	const int n = c->model.particleCount, cols = c->model.cols;
	wfVec4* restrict pos = c->state.pos;
	wfVec4* restrict vel = c->state.vel;
	wfVec4* restrict prev = c->state.prev;
	const bool uniform = p->wind.mode != WF_WIND_WAVE; // acceleration independent of column and mass
	const wfVec3 a0 = wfExternalAccel(p, ctx->substep, 0, 1.0f / c->material.mass);
	const int blocks = (n + WF_CPU_PARTICLE_BLOCK - 1) / WF_CPU_PARTICLE_BLOCK;
#pragma omp for schedule(static)
	for (int b = 0; b < blocks; ++b) {
		const int end = b * WF_CPU_PARTICLE_BLOCK + WF_CPU_PARTICLE_BLOCK < n ? b * WF_CPU_PARTICLE_BLOCK + WF_CPU_PARTICLE_BLOCK : n;
		int i = b * WF_CPU_PARTICLE_BLOCK;
		if (ctx->avx2 && uniform)
			i = wfCpuPredictAvx2(pos, vel, prev, i, end, h, damping, a0);
		for (; i < end; ++i) {
			wfVec4 x = pos[i];
			prev[i] = x;
			if (x.w == 0.0f)
				continue;
			wfVec3 a = uniform ? a0 : wfExternalAccel(p, ctx->substep, i % cols, x.w);
			wfVec4 v = vel[i];
			float k = 1.0f + h * x.w * damping;
			v.x = (v.x + h * a.x) / k;
			v.y = (v.y + h * a.y) / k;
			v.z = (v.z + h * a.z) / k;
			vel[i] = v;
			pos[i] = (wfVec4){x.x + h * v.x, x.y + h * v.y, x.z + h * v.z, x.w};
		}
	}
}

void wfCpuFinish(const wfCpuContext* ctx, wfCloth* c, float factor)
{
	const int n = c->model.particleCount;
	const wfCpuColliders k = wfCpuCollidersAt(ctx, c);
	wfVec4* restrict pos = c->state.pos;
	const wfVec4* restrict prev = c->state.prev;
	wfVec4* restrict vel = c->state.vel;
	const int blocks = (n + WF_CPU_PARTICLE_BLOCK - 1) / WF_CPU_PARTICLE_BLOCK;
#pragma omp for schedule(static)
	for (int b = 0; b < blocks; ++b) {
		const int begin = b * WF_CPU_PARTICLE_BLOCK;
		const int end = begin + WF_CPU_PARTICLE_BLOCK < n ? begin + WF_CPU_PARTICLE_BLOCK : n;
		int i = begin;
		if (ctx->avx2)
			i = wfCpuVelocityAvx2(pos, prev, vel, i, end, factor);
		for (; i < end; ++i) {
			if (pos[i].w == 0.0f) {
				vel[i] = (wfVec4){0.0f, 0.0f, 0.0f, 0.0f};
				continue;
			}
			vel[i] = (wfVec4){factor * (pos[i].x - prev[i].x), factor * (pos[i].y - prev[i].y), factor * (pos[i].z - prev[i].z), 0.0f};
		}
		for (i = begin; k.any && i < end; ++i) {
			if (pos[i].w != 0.0f)
				wfCpuCollideParticle(&k, &pos[i], &vel[i]);
		}
	}
}

// A grabbed particle has inverse mass 0 and sits at the target.
void wfCpuPlaceGrab(wfCloth* c)
{
	if (c->grabIndex < 0)
		return;
	wfVec4* p = &c->state.pos[c->grabIndex];
	p->x = c->local.grabTarget.x;
	p->y = c->local.grabTarget.y;
	p->z = c->local.grabTarget.z;
}

// In the cloth's local frame: the centre at phase 0 plus the motion of the substep.
wfCpuColliders wfCpuCollidersAt(const wfCpuContext* ctx, const wfCloth* c)
{
	const wfFrameParams* p = ctx->params;
	wfCpuColliders k;
	k.contact = &p->contact;
	k.sphere = p->sphere.enabled;
	k.floor = p->floor.enabled;
	k.any = k.sphere || k.floor;
	k.center = k.sphere ? wfLocalSphereCenter(&c->local, p, ctx->substep) : (wfVec3){0.0f, 0.0f, 0.0f};
	k.velocity = k.sphere ? wfSphereVelocityAt(p, ctx->substep) : (wfVec3){0.0f, 0.0f, 0.0f};
	k.radius = p->sphere.radius + p->contact.thickness;
	k.floorY = c->local.floorHeight + p->contact.thickness;
	return k;
}
