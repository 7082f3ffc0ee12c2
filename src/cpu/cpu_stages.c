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

// Forces m g - d v (plus wind): the damper implicit on the velocity the substep starts with, the
// applied forces added after it: v = v / (1 + h w d) + h a; p = x; x += h v. The factor
// 1 / (1 + h w d) lies in (0, 1] for every d >= 0, so no damping can make a step unstable (the
// explicit v (1 - h w d) overshoots once h w d > 2), and a particle at rest gets the whole h a:
// a damper never holds up weight (dividing h a too left a hanging chain m g / (1 + h w d)).
// Pinned and grabbed particles (w = 0) keep their place.
void wfCpuAero(const wfCpuContext* ctx, wfCloth* c)
{
	const int n = c->model.particleCount;
#pragma omp for schedule(static)
	for (int i = 0; i < n; ++i) {
		wfVec3 a = wfAeroAccel(&c->model, c->state.pos, c->state.vel, ctx->params, i);
		c->state.aero[i] = (wfVec4){a.x, a.y, a.z, 0.0f};
	}
}

void wfCpuTethers(const wfCpuContext* ctx, wfCloth* c, bool velocities)
{
	const float invH = 1.0f / ctx->params->h;
	const wfConstraint* t = c->model.tethers;
	if (t == NULL)
		return;
	const int n = c->model.particleCount;
	wfVec4* restrict pos = c->state.pos;
	wfVec4* restrict vel = c->state.vel;
#pragma omp for schedule(static)
	for (int i = 0; i < n; ++i) {
		const uint32_t b = t[i].b;
		if (b == 0xffffffffu || pos[i].w == 0.0f)
			continue;
		const wfVec4 x = pos[i], q = pos[b];
		const float dx = x.x - q.x, dy = x.y - q.y, dz = x.z - q.z, limit = t[i].rest;
		const float d2 = dx * dx + dy * dy + dz * dz;
		if (d2 <= limit * limit)
			continue;
		const float d = sqrtf(d2), s = limit / d;
		pos[i] = (wfVec4){q.x + dx * s, q.y + dy * s, q.z + dz * s, x.w};
		if (!velocities) {
			if (ctx->moves)
				wfCpuMoved(&vel[i], invH, pos[i].x - x.x, pos[i].y - x.y, pos[i].z - x.z);
		} else {
			const float nx = dx / d, ny = dy / d, nz = dz / d;
			const wfVec4 v = vel[i];
			const float vn = v.x * nx + v.y * ny + v.z * nz;
			if (vn > 0.0f)
				vel[i] = (wfVec4){v.x - vn * nx, v.y - vn * ny, v.z - vn * nz, 0.0f};
		}
	}
}

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
	const wfVec4* aero = p->aeroOn ? c->state.aero : NULL;
	if (aero != NULL)
		wfCpuAero(ctx, c);
	const int blocks = (n + WF_CPU_PARTICLE_BLOCK - 1) / WF_CPU_PARTICLE_BLOCK;
#pragma omp for schedule(static)
	for (int b = 0; b < blocks; ++b) {
		const int end = b * WF_CPU_PARTICLE_BLOCK + WF_CPU_PARTICLE_BLOCK < n ? b * WF_CPU_PARTICLE_BLOCK + WF_CPU_PARTICLE_BLOCK : n;
		int i = b * WF_CPU_PARTICLE_BLOCK;
		if (ctx->avx2 && uniform && aero == NULL)
			i = wfCpuPredictAvx2(pos, vel, prev, i, end, h, damping, a0);
		for (; i < end; ++i) {
			wfVec4 x = pos[i];
			prev[i] = x;
			if (x.w == 0.0f)
				continue;
			wfVec3 a = uniform ? a0 : wfExternalAccel(p, ctx->substep, i % cols, x.w);
			if (aero != NULL) {
				a.x += aero[i].x;
				a.y += aero[i].y;
				a.z += aero[i].z;
			}
			wfVec4 v = vel[i];
			const float k = 1.0f + h * x.w * damping;
			v.x = v.x / k + h * a.x;
			v.y = v.y / k + h * a.y;
			v.z = v.z / k + h * a.z;
			vel[i] = v;
			pos[i] = (wfVec4){x.x + h * v.x, x.y + h * v.y, x.z + h * v.z, x.w};
		}
	}
}

void wfCpuFinish(const wfCpuContext* ctx, wfCloth* c, float scale)
{
	const int n = c->model.particleCount;
	const wfCpuColliders k = wfCpuCollidersAt(ctx, c);
	wfVec4* restrict pos = c->state.pos;
	wfVec4* restrict vel = c->state.vel;
	const wfVec4* restrict prev = ctx->moves ? NULL : c->state.prev;
	const float factor = ctx->moves ? scale : scale / ctx->params->h; // v = factor v, or factor (x - p)
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
			if (prev != NULL)
				vel[i] = (wfVec4){factor * (pos[i].x - prev[i].x), factor * (pos[i].y - prev[i].y), factor * (pos[i].z - prev[i].z), 0.0f};
			else
				vel[i] = (wfVec4){factor * vel[i].x, factor * vel[i].y, factor * vel[i].z, 0.0f};
		}
		for (i = begin; k.any && i < end; ++i) {
			if (pos[i].w != 0.0f && wfCpuMayTouch(&k, pos[i].x, pos[i].y, pos[i].z))
				wfCpuCollideParticle(&k, &pos[i], &vel[i]);
		}
	}
}

// The cloth's local frame of this frame: its origin plus the re-centring shift.
static void LocalOrigin(const wfCloth* c, double origin[3])
{
	origin[0] = c->origin[0] + c->local.shift.x;
	origin[1] = c->origin[1] + c->local.shift.y;
	origin[2] = c->origin[2] + c->local.shift.z;
}

// The body at this cloth's substep (wfMeshBodyPlaceShared), once per cloth and substep: the
// attachments and the contact share it. Call from every thread of the team.
static void PlaceBody(const wfCpuContext* ctx, const wfCloth* c, wfMeshBody* body)
{
	const wfFrameParams* p = ctx->params;
	const bool placed = body->placedCloth == c->generation && body->placedTime == p->time && body->placedSubstep == ctx->substep;
#pragma omp barrier // every thread has read `placed` before the single below changes it
	if (placed)
		return;
	double origin[3];
	LocalOrigin(c, origin);
	const float t = p->contact.thickness;
	wfMeshBodyPlaceShared(body, origin, (double)ctx->substep / p->substeps, (double)(ctx->substep + 1) / p->substeps,
		t + (body->closed ? 1e-4f * body->size + t : 0.0f), t);
#pragma omp single
	{
		body->placedCloth = c->generation;
		body->placedTime = p->time;
		body->placedSubstep = ctx->substep;
	}
}

void wfCpuAttach(const wfCpuContext* ctx, wfCloth* c, bool velocities)
{
	wfMeshBody* body = wfAttachedBody(ctx->world, c);
	if (body == NULL)
		return;
	const wfFrameParams* p = ctx->params;
	const float h = p->h, alpha = wfAlphaTilde(c->def.attachCompliance, h);
	PlaceBody(ctx, c, body);
	wfVec4* restrict pos = c->state.pos;
	wfVec4* restrict vel = c->state.vel;
#pragma omp for schedule(static)
	for (int k = 0; k < c->attachCount; ++k) {
		const wfAttachment a = c->attach[k];
		const wfVec4 x = pos[a.particle];
		if (x.w == 0.0f)
			continue; // pinned or grabbed: held already
		const wfVec3 q = wfMeshBodyPoint(body, body->v1, &a);
		const float f = x.w / (x.w + alpha); // C = |x - q| with gradient along x - q: x moves f C toward q
		const float mx = f * (q.x - x.x), my = f * (q.y - x.y), mz = f * (q.z - x.z);
		pos[a.particle] = (wfVec4){x.x + mx, x.y + my, x.z + mz, x.w};
		if (!velocities) {
			if (ctx->moves)
				wfCpuMoved(&vel[a.particle], 1.0f / h, mx, my, mz);
		} else if (alpha == 0.0f) {
			const wfVec3 q0 = wfMeshBodyPoint(body, body->v0, &a);
			vel[a.particle] = (wfVec4){(q.x - q0.x) / h, (q.y - q0.y) / h, (q.z - q0.z) / h, 0.0f};
		}
	}
}

void wfCpuCollideMeshes(const wfCpuContext* ctx, wfCloth* c, const wfVec4* start, wfVec4* pos, wfVec4* vel, bool moves)
{
	const wfWorld* w = ctx->world;
	const wfFrameParams* p = ctx->params;
	if (w->meshColliderCount == 0)
		return;
	const int n = c->model.particleCount;
	const float t = p->contact.thickness, invH = 1.0f / p->h;
	for (int k = 0; k < w->colliderFrameCount; ++k) {
		wfMeshBody* body = w->colliderFrame[k].body;
		if (body == NULL)
			continue;
		const bool holds = body == wfAttachedBody(w, c); // its attached particles keep their offsets
		PlaceBody(ctx, c, body);
#pragma omp for schedule(dynamic, WF_CPU_CONTACT_CHUNK)
		for (int i = 0; i < n; ++i) {
			if (pos[i].w == 0.0f || (holds && wfClothIsAttached(c, i)))
				continue;
			wfVec3 x = {pos[i].x, pos[i].y, pos[i].z}, normal, surface;
			if (!wfMeshBodyCollide(body, t, invH, (wfVec3){start[i].x, start[i].y, start[i].z}, &x, &normal, &surface))
				continue;
			if (moves)
				wfCpuMoved(&vel[i], invH, x.x - pos[i].x, x.y - pos[i].y, x.z - pos[i].z);
			else
				wfCpuRespond(&p->contact, &vel[i], normal.x, normal.y, normal.z, surface);
			pos[i].x = x.x;
			pos[i].y = x.y;
			pos[i].z = x.z;
		}
		// The cloth's edges (stretch and shear: the triangles' sides) against the body's sharp
		// edges: each edge's pushes of its ends from the positions as they are (into ctx->edges:
		// da with w 1 where it touches, db, the normal, the surface velocity), then each particle's
		// applied in the order of its constraints (adjConstraint: the colour order).
		const wfClothModel* m = &c->model;
		const float reach2 = body->edgeReach * body->edgeReach, corner2 = body->cornerReach * body->cornerReach;
		if (body->closed) {
			wfVec4* restrict edges = ctx->edges;
#pragma omp for schedule(dynamic, WF_CPU_CONTACT_CHUNK)
			for (int e = 0; e < m->constraintCount; ++e) {
				const wfConstraint q = m->constraints[e];
				const wfVec4 a = pos[q.a], b = pos[q.b];
				wfVec3 da, db, normal, surface;
				const float ex = a.x - b.x, ey = a.y - b.y, ez = a.z - b.z;
				const bool hit = q.family != WF_FAMILY_BEND && (a.w != 0.0f || b.w != 0.0f) && ex * ex + ey * ey + ez * ez >= reach2 &&
					wfMeshBodyCollideEdge(body, t, invH, (wfVec3){a.x, a.y, a.z}, (wfVec3){b.x, b.y, b.z}, a.w, b.w, &da, &db, &normal,
						&surface);
				edges[4 * e] = hit ? (wfVec4){da.x, da.y, da.z, 1.0f} : (wfVec4){0.0f, 0.0f, 0.0f, 0.0f};
				if (hit) {
					edges[4 * e + 1] = (wfVec4){db.x, db.y, db.z, 0.0f};
					edges[4 * e + 2] = (wfVec4){normal.x, normal.y, normal.z, 0.0f};
					edges[4 * e + 3] = (wfVec4){surface.x, surface.y, surface.z, 0.0f};
				}
			}
#pragma omp for schedule(static)
			for (int i = 0; i < n; ++i) {
				for (int r = m->adjStart[i]; r < m->adjStart[i + 1]; ++r) {
					const uint32_t e = m->adjConstraint[r];
					if (edges[4 * e].w == 0.0f)
						continue;
					const wfVec4 d = m->constraints[e].a == (uint32_t)i ? edges[4 * e] : edges[4 * e + 1];
					pos[i] = (wfVec4){pos[i].x + d.x, pos[i].y + d.y, pos[i].z + d.z, pos[i].w};
					if (pos[i].w == 0.0f)
						continue;
					if (moves) {
						wfCpuMoved(&vel[i], invH, d.x, d.y, d.z);
					} else {
						const wfVec4 normal = edges[4 * e + 2], surface = edges[4 * e + 3];
						wfCpuRespond(&p->contact, &vel[i], normal.x, normal.y, normal.z, (wfVec3){surface.x, surface.y, surface.z});
					}
				}
			}
		}
		// The body's corners against the cloth's triangles: each triangle's corrections of its three
		// corners from the positions as they are (into ctx->corners), then each particle's shares
		// summed in the order of its triangles (triList) and applied.
		if (body->closed) {
			wfVec3* restrict corners = ctx->corners;
#pragma omp for schedule(dynamic, WF_CPU_CONTACT_CHUNK)
			for (int tri = 0; tri < m->triangleCount; ++tri) {
				const uint32_t* v = m->indices + 3 * tri;
				const wfVec3 x[3] = {{pos[v[0]].x, pos[v[0]].y, pos[v[0]].z}, {pos[v[1]].x, pos[v[1]].y, pos[v[1]].z},
					{pos[v[2]].x, pos[v[2]].y, pos[v[2]].z}};
				const float inv[3] = {pos[v[0]].w, pos[v[1]].w, pos[v[2]].w};
				float longest = 0.0f;
				for (int e = 0; e < 3; ++e) {
					const wfVec3 u = x[e], o = x[(e + 1) % 3];
					longest = fmaxf(longest, (u.x - o.x) * (u.x - o.x) + (u.y - o.y) * (u.y - o.y) + (u.z - o.z) * (u.z - o.z));
				}
				if (!(longest >= corner2 && wfMeshBodyCollideCorners(body, t, x, inv, corners + 3 * tri))) {
					for (int j = 0; j < 3; ++j)
						corners[3 * tri + j] = (wfVec3){0.0f, 0.0f, 0.0f}; // adds nothing: the sums start at +0
				}
			}
#pragma omp for schedule(static)
			for (int i = 0; i < n; ++i) {
				wfVec3 sum = {0.0f, 0.0f, 0.0f};
				for (int r = m->triStart[i]; pos[i].w != 0.0f && r < m->triStart[i + 1]; ++r) {
					const uint32_t tri = m->triList[r];
					const uint32_t* v = m->indices + 3 * tri;
					const wfVec3 d = corners[3 * tri + (v[0] == (uint32_t)i ? 0 : v[1] == (uint32_t)i ? 1 : 2)];
					sum = (wfVec3){sum.x + d.x, sum.y + d.y, sum.z + d.z};
				}
				const wfVec3 d = sum;
				const float l = sqrtf(d.x * d.x + d.y * d.y + d.z * d.z);
				if (!(l > 0.0f))
					continue;
				pos[i] = (wfVec4){pos[i].x + d.x, pos[i].y + d.y, pos[i].z + d.z, pos[i].w};
				if (moves)
					wfCpuMoved(&vel[i], invH, d.x, d.y, d.z);
				else
					wfCpuRespond(&p->contact, &vel[i], d.x / l, d.y / l, d.z / l, (wfVec3){0.0f, 0.0f, 0.0f});
			}
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

// In the cloth's local frame: each shape at the end of the substep.
wfCpuColliders wfCpuCollidersAt(const wfCpuContext* ctx, const wfCloth* c)
{
	const wfFrameParams* p = ctx->params;
	wfCpuColliders k;
	k.contact = &p->contact;
	k.shapeCount = ctx->world->colliderFrameCount;
	k.any = k.shapeCount > 0;
	k.pretested = true;
	for (int s = 0; s < k.shapeCount; ++s) {
		const wfShape* q = &k.shapes[s];
		wfShapeAt(ctx->world, c, s, p, ctx->substep, &k.shapes[s]);
		const float r = q->radius + p->contact.thickness;
		k.reach[s] = q->type == WF_COLLIDER_SPHERE
			? r * r
			: wfPlaneHeight(q->axes[3], q->axes[4], q->axes[5], q->center.x, q->center.y, q->center.z) + p->contact.thickness;
		k.pretested = k.pretested && (q->type == WF_COLLIDER_SPHERE || q->type == WF_COLLIDER_PLANE);
	}
	return k;
}

// The velocity of the collider's surface at local point (px, py, pz): v + omega x (p - centre).
static wfVec3 SurfaceVelocity(const wfShape* s, float px, float py, float pz)
{
	if (!s->spins)
		return s->velocity; // the world's sphere and floor: their velocity as it is (no -0 + 0)
	float rx = px - s->center.x, ry = py - s->center.y, rz = pz - s->center.z;
	const wfVec3 w = s->omega;
	return (wfVec3){s->velocity.x + w.y * rz - w.z * ry, s->velocity.y + w.z * rx - w.x * rz, s->velocity.z + w.x * ry - w.y * rx};
}

// Pushes x out to q + n r (n unit) and responds.
static void PushOut(const wfContactDef* contact, const wfShape* s, wfVec4* x, wfVec4* v, float qx, float qy, float qz, float nx, float ny,
	float nz, float r)
{
	x->x = qx + nx * r;
	x->y = qy + ny * r;
	x->z = qz + nz * r;
	wfCpuRespond(contact, v, nx, ny, nz, SurfaceVelocity(s, x->x, x->y, x->z));
}

void wfCpuCollideShape(const wfContactDef* contact, const wfShape* s, wfVec4* x, wfVec4* v)
{
	const float t = contact->thickness;
	const float* a = s->axes; // a[0..2] local x, a[3..5] local y, a[6..8] local z
	const float dx = x->x - s->center.x, dy = x->y - s->center.y, dz = x->z - s->center.z;
	switch ((wfColliderType)s->type) {
	case WF_COLLIDER_SPHERE: {
		// Out along the line from the centre (the local y axis from the centre itself).
		const float r = s->radius + t;
		const float d2 = dx * dx + dy * dy + dz * dz;
		if (!(d2 < r * r))
			return;
		const float d = sqrtf(d2);
		const wfVec3 c = s->center;
		if (d > WF_MIN_LENGTH)
			PushOut(contact, s, x, v, c.x, c.y, c.z, dx / d, dy / d, dz / d, r);
		else
			PushOut(contact, s, x, v, c.x, c.y, c.z, a[3], a[4], a[5], r);
		return;
	}
	case WF_COLLIDER_CAPSULE: {
		// The closest point of the axis segment [-L, L] along local x; the radius tapers linearly along
		// it (exact for equal radii, the usual approximation of a tapered capsule otherwise).
		const float L = s->halfLength;
		float u = dx * a[0] + dy * a[1] + dz * a[2];
		u = u < -L ? -L : u > L ? L : u;
		const float f = L > 0.0f ? 0.5f * (u / L + 1.0f) : 0.0f;
		const float r = s->radius + (s->radius1 - s->radius) * f + t;
		const float qx = s->center.x + a[0] * u, qy = s->center.y + a[1] * u, qz = s->center.z + a[2] * u;
		const float ex = x->x - qx, ey = x->y - qy, ez = x->z - qz;
		const float d2 = ex * ex + ey * ey + ez * ez;
		if (d2 >= r * r)
			return;
		const float d = sqrtf(d2);
		if (d > WF_MIN_LENGTH)
			PushOut(contact, s, x, v, qx, qy, qz, ex / d, ey / d, ez / d, r);
		else
			PushOut(contact, s, x, v, qx, qy, qz, a[3], a[4], a[5], r);
		return;
	}
	case WF_COLLIDER_BOX: {
		// Inside the box grown by the thickness: out through the nearest face.
		const float l[3] = {dx * a[0] + dy * a[1] + dz * a[2], dx * a[3] + dy * a[4] + dz * a[5], dx * a[6] + dy * a[7] + dz * a[8]};
		const float e[3] = {s->halfExtents.x + t, s->halfExtents.y + t, s->halfExtents.z + t};
		int axis = -1;
		float least = 0.0f;
		for (int i = 0; i < 3; ++i) {
			float depth = e[i] - fabsf(l[i]);
			if (depth <= 0.0f)
				return;
			if (axis < 0 || depth < least) {
				axis = i;
				least = depth;
			}
		}
		const float sign = l[axis] < 0.0f ? -1.0f : 1.0f;
		const float nx = a[3 * axis] * sign, ny = a[3 * axis + 1] * sign, nz = a[3 * axis + 2] * sign;
		// Move along the normal by the depth: onto the face plane.
		PushOut(contact, s, x, v, x->x, x->y, x->z, nx, ny, nz, least);
		return;
	}
	case WF_COLLIDER_PLANE: {
		// Heights along the normal n (local +y): the particle's x.n below the surface's c.n + t goes
		// onto it, its part across n kept: x - n (x.n) + n level, which on an axis-aligned plane
		// (the floor) sets that coordinate to the level exactly and leaves the others.
		const float nx = a[3], ny = a[4], nz = a[5];
		const float h = wfPlaneHeight(nx, ny, nz, x->x, x->y, x->z);
		const float level = wfPlaneHeight(nx, ny, nz, s->center.x, s->center.y, s->center.z) + t;
		if (!(h < level))
			return;
		PushOut(contact, s, x, v, x->x - nx * h, x->y - ny * h, x->z - nz * h, nx, ny, nz, level);
		return;
	}
	case WF_COLLIDER_MESH: return; // after the others, with the substep's motion (wfCpuCollideMeshes)
	}
}
