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

// Forces m g - d v (plus wind), semi-implicit: v += h (a - w d v); p = x; x += h v.
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
#pragma omp for schedule(static)
	for (int i = 0; i < n; ++i) {
		wfVec4 x = pos[i];
		prev[i] = x;
		if (x.w == 0.0f)
			continue;
		wfVec3 a = uniform ? a0 : wfExternalAccel(p, ctx->substep, i % cols, x.w);
		wfVec4 v = vel[i];
		float k = h * x.w * damping;
		v.x += h * a.x - k * v.x;
		v.y += h * a.y - k * v.y;
		v.z += h * a.z - k * v.z;
		vel[i] = v;
		pos[i] = (wfVec4){x.x + h * v.x, x.y + h * v.y, x.z + h * v.z, x.w};
	}
}

// A grabbed particle has inverse mass 0 and sits at the target.
void wfCpuPlaceGrab(wfCloth* c)
{
	if (c->grabIndex < 0)
		return;
	wfVec4* p = &c->state.pos[c->grabIndex];
	p->x = c->grabTarget.x;
	p->y = c->grabTarget.y;
	p->z = c->grabTarget.z;
}

// Response to a contact with outward normal n at a collider moving with velocity vs:
// STOP zeroes the velocity (the second document); FRICTION removes the approaching normal part of
// the relative velocity and applies Coulomb friction, |dv_t| <= mu |v_n|, to the tangential part.
static void Respond(const wfContactDef* contact, wfVec4* v, float nx, float ny, float nz, wfVec3 vs)
{
	if (contact->response == WF_CONTACT_STOP) {
		v->x = v->y = v->z = 0.0f;
		return;
	}
	float rx = v->x - vs.x, ry = v->y - vs.y, rz = v->z - vs.z;
	float vn = rx * nx + ry * ny + rz * nz;
	if (vn >= 0.0f)
		return;
	float tx = rx - vn * nx, ty = ry - vn * ny, tz = rz - vn * nz;
	float vt = sqrtf(tx * tx + ty * ty + tz * tz);
	float scale = vt > contact->friction * -vn ? 1.0f - contact->friction * -vn / vt : 0.0f;
	v->x = vs.x + tx * scale;
	v->y = vs.y + ty * scale;
	v->z = vs.z + tz * scale;
}

// Projects particles out of the sphere and above the floor (surface + thickness) and fixes their
// velocities. Runs once per substep after the velocity update; pinned particles are skipped.
void wfCpuCollide(const wfCpuContext* ctx, wfVec4* pos, wfVec4* vel, int count)
{
	const wfFrameParams* p = ctx->params;
	const bool sphere = p->sphere.enabled, floor = p->floor.enabled;
	if (!sphere && !floor)
		return;
	const wfVec3 c = wfSphereCenterAt(p, ctx->substep);
	const wfVec3 vs = wfSphereVelocityAt(p, ctx->substep);
	const float R = p->sphere.radius + p->contact.thickness;
	const float floorY = p->floor.height + p->contact.thickness;
	const wfVec3 still = {0.0f, 0.0f, 0.0f};
#pragma omp for schedule(static)
	for (int i = 0; i < count; ++i) {
		wfVec4* x = &pos[i];
		if (x->w == 0.0f)
			continue;
		if (sphere) {
			float dx = x->x - c.x, dy = x->y - c.y, dz = x->z - c.z;
			float d2 = dx * dx + dy * dy + dz * dz;
			if (d2 < R * R) {
				float d = sqrtf(d2);
				float nx = 0.0f, ny = 1.0f, nz = 0.0f;
				if (d > 1e-12f) {
					nx = dx / d;
					ny = dy / d;
					nz = dz / d;
				}
				x->x = c.x + nx * R;
				x->y = c.y + ny * R;
				x->z = c.z + nz * R;
				Respond(&p->contact, &vel[i], nx, ny, nz, vs);
			}
		}
		if (floor && x->y < floorY) {
			x->y = floorY;
			Respond(&p->contact, &vel[i], 0.0f, 1.0f, 0.0f, still);
		}
	}
}
