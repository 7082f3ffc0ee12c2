// A frame's bookkeeping around a backend's step: each cloth's local frame (re-centring, colliders
// and grab target relative to the cloth) before, the frame check's verdict (count, log, recover)
// after. Backends only apply what is computed here and report what they found.
#include "internal.h"

#include <math.h>
#include <string.h>

// A whole-metre shift toward a reference coordinate more than WF_RECENTRE_DISTANCE from the origin.
static float ShiftToward(float reference) { return fabsf(reference) > WF_RECENTRE_DISTANCE ? rintf(reference) : 0.0f; }

static wfClothLocal LocalFor(const wfWorld* world, const wfCloth* c, wfVec3 shift)
{
	const double o[3] = {c->origin[0] + shift.x, c->origin[1] + shift.y, c->origin[2] + shift.z};
	const wfVec3 s = world->def.sphere.center;
	wfClothLocal l;
	l.shift = shift;
	l.sphereCenter = (wfVec3){(float)((double)s.x - o[0]), (float)((double)s.y - o[1]), (float)((double)s.z - o[2])};
	l.floorHeight = (float)((double)world->def.floor.height - o[1]);
	const wfVec3 g = c->grabTarget;
	l.grabTarget = (wfVec3){(float)((double)g.x - o[0]), (float)((double)g.y - o[1]), (float)((double)g.z - o[2])};
	return l;
}

void wfClothBeginFrame(const wfWorld* world, wfCloth* c)
{
	const wfVec3 r = c->reference;
	const wfVec3 shift = {ShiftToward(r.x), ShiftToward(r.y), ShiftToward(r.z)};
	c->local = LocalFor(world, c, shift);
	c->verdict = WF_FRAME_GOOD;
	c->verdictParticle = -1;
	c->verdictContact = false;
	c->verdictEnergy = false;
	c->tunnelParticle = -1;
}

wfClothLocal wfClothLocalNow(const wfWorld* world, const wfCloth* c) { return LocalFor(world, c, (wfVec3){0.0f, 0.0f, 0.0f}); }

wfVec3 wfLocalSphereCenter(const wfClothLocal* local, const wfFrameParams* p, int substep)
{
	const wfVec3 o = local->sphereCenter, m = wfSphereMotionAt(p, substep);
	return (wfVec3){o.x + m.x, o.y + m.y, o.z + m.z};
}

void wfClothUpdateReference(wfCloth* c)
{
	const wfVec4 p = c->state.pos[c->model.particleCount / 2];
	c->reference = (wfVec3){p.x, p.y, p.z};
}

wfVec3 wfContactBand(const wfCloth* c, const wfFrameParams* p)
{
	const float band = 2.0f * p->contact.thickness + 1e-3f;
	return (wfVec3){p->sphere.radius + band, c->local.floorHeight + band, 0.0f};
}

// Whether a particle at local position x touches a collider at the frame's end: within
// 2 thickness + 1 mm of the sphere's or the floor's surface (a collided particle sits on it).
// The same float operations as check.comp's WfInContact.
bool wfInContact(const wfCloth* c, const wfFrameParams* p, wfVec4 x)
{
	const wfVec3 band = wfContactBand(c, p);
	if (p->sphere.enabled) {
		const wfVec3 s = wfLocalSphereCenter(&c->local, p, p->substeps - 1);
		const float dx = x.x - s.x, dy = x.y - s.y, dz = x.z - s.z;
		if (dx * dx + dy * dy + dz * dz <= band.x * band.x)
			return true;
	}
	return p->floor.enabled && x.y <= band.y;
}

wfFrameVerdict wfCheckFrame(const wfWorld* world, const wfCloth* c, const wfFrameParams* p, int* particle, bool* contact)
{
	*contact = false;
	const wfVec4* x = c->state.pos;
	const wfVec4* v = c->state.vel;
	const float limit = world->def.maxSpeed;
	for (int i = 0; i < c->model.particleCount; ++i) {
		float s = x[i].x + x[i].y + x[i].z + v[i].x + v[i].y + v[i].z;
		if (!isfinite(s)) {
			*particle = i;
			return WF_FRAME_NON_FINITE;
		}
		if (v[i].x * v[i].x + v[i].y * v[i].y + v[i].z * v[i].z > limit * limit) {
			// Unstable; driven by a collider when any too-fast particle touches one.
			*particle = i;
			for (int j = i; j < c->model.particleCount && !*contact; ++j) {
				const bool fast = v[j].x * v[j].x + v[j].y * v[j].y + v[j].z * v[j].z > limit * limit;
				*contact = fast && isfinite(x[j].x + x[j].y + x[j].z) && wfInContact(c, p, x[j]);
			}
			return WF_FRAME_UNSTABLE;
		}
	}
	*particle = -1;
	return WF_FRAME_GOOD;
}

// ------------------------------------------------------------------ the motion tests

wfMotionConsts wfMotionConstsFor(const wfCloth* c, const wfFrameParams* p)
{
	wfMotionConsts k;
	memset(&k, 0, sizeof k);
	k.shift = c->local.shift;
	k.sphere = p->sphere.enabled;
	if (k.sphere) {
		k.c0 = wfLocalSphereCenter(&c->local, p, 0);
		k.c1 = wfLocalSphereCenter(&c->local, p, p->substeps - 1);
		k.r2 = p->sphere.radius * p->sphere.radius;
		k.n4 = 4.0f * (float)p->substeps * (float)p->substeps;
	}
	k.gravity = p->gravity;
	k.energy = c->grabIndex < 0 && !p->aeroOn;
	return k;
}

int wfFindTunnel(const wfCloth* c, const wfFrameParams* p, const wfVec4* pos0)
{
	const wfMotionConsts k = wfMotionConstsFor(c, p);
	for (int i = 0; k.sphere && i < c->model.particleCount; ++i) {
		if (wfTunnelled(&k, pos0[i], c->state.pos[i]))
			return i;
	}
	return -1;
}

// The energy rule's bound, J (docs/design/solvers.md, "The energy rule"): the constraints' and push-outs' release
// R (x (2 relaxation)^2 for Jacobi), the external work W along paths no faster than v = |v|max, and
// the slack 1/4 (K0 + R) + M |g|^2 T^2. kinetic: sum of 1/2 |v0|^2 per unit mass; free: particles.
static double EnergyBound(const wfWorld* world, const wfCloth* c, const wfFrameParams* p, double kinetic, double free, float speed2,
	double release)
{
	const double mass = c->material.mass, total = mass * free;
	const double T = (double)p->h * p->substeps;
	const double v = sqrt((double)speed2); // no particle path faster than the frame's ends (assumed)
	// Wind: an acceleration of at most strength sqrt 2 (gust) or strength / m (wave) along each path.
	double wind = 0.0;
	if (p->wind.mode == WF_WIND_GUST)
		wind = 1.4142135623730951 * p->wind.strength;
	else if (p->wind.mode == WF_WIND_WAVE)
		wind = p->wind.strength / mass;
	// Colliders: a contact can give a particle at most twice the collider's speed vc relative to it,
	// 1/2 m ((v + 2 vc)^2 - v^2) = 2 m vc (v + vc).
	double vc = 0.0;
	if (p->sphere.enabled && p->sphere.moving) {
		const wfVec3 a = p->sphere.amplitude;
		vc = 6.283185307179586 * p->sphere.frequency * sqrt((double)a.x * a.x + (double)a.y * a.y + (double)a.z * a.z);
	}
	for (int k = 0; k < world->colliderFrameCount; ++k) {
		const wfColliderFrame* f = &world->colliderFrame[k];
		const wfVec3 u = f->velocity, w = f->omega, e = f->halfExtents;
		const double reach = (double)f->radius + f->radius1 + f->halfLength +
			sqrt((double)e.x * e.x + (double)e.y * e.y + (double)e.z * e.z);
		const double speed = sqrt((double)u.x * u.x + (double)u.y * u.y + (double)u.z * u.z) +
			sqrt((double)w.x * w.x + (double)w.y * w.y + (double)w.z * w.z) * reach;
		vc = speed > vc ? speed : vc;
		vc = f->vertexSpeed > vc ? f->vertexSpeed : vc; // a mesh's fastest vertex (pose and shape)
	}
	// Self-collision: each substep may push a particle 2 thickness, a kick of 2 thickness / h.
	const double kick = world->selfContact.enabled ? 2.0 * world->selfContact.thickness / p->h : 0.0;
	const double work = total * (wind * v * T + 2.0 * vc * (v + vc) + p->substeps * kick * (v + 0.5 * kick));
	// Slack: a quarter of the frame-start kinetic and releasable energy (the integrators' own
	// error), and gravity's (g T)^2 per kilogram.
	const double g2 = (double)p->gravity.x * p->gravity.x + (double)p->gravity.y * p->gravity.y + (double)p->gravity.z * p->gravity.z;
	const double slack = 0.25 * (mass * kinetic + release) + total * g2 * T * T;
	// Jacobi with relaxation s moves each end by up to s C (at s = 1 a lone pair swaps): a relative
	// correction of 2 s C where a projection makes C, so up to (2 s)^2 the release.
	if (world->def.step.solver == WF_SOLVER_JACOBI) {
		const double r = 2.0 * c->material.relaxation;
		release *= r * r > 1.0 ? r * r : 1.0;
	}
	return release + work + slack;
}

// The float sums' rounding: each backend adds at most ~16 000 float terms in a row before it goes
// on in double (or a tree of partial sums), so a sum is within 16 000 x 2^-24 < 1e-3 of its
// magnitude.
#define WF_MOTION_ROUNDING 1e-3

bool wfEnergyPreTestFails(const wfWorld* world, const wfCloth* c, const wfFrameParams* p, const wfMotionSums* s)
{
	if (c->grabIndex >= 0 || p->aeroOn || !(s->free > 0.0))
		return false;
	const double gain = c->material.mass * (s->gain + WF_MOTION_ROUNDING * s->magnitude);
	const double bound = EnergyBound(world, c, p, s->kinetic * (1.0 - WF_MOTION_ROUNDING), s->free, s->speed2, 0.0);
	return !(gain <= bound); // NaN: fails (the frame is non-finite anyway)
}

wfMotionSums wfMotionSumsOfGpu(float gain, float kinetic, float magnitude, float free)
{
	wfMotionSums s = {gain, kinetic, magnitude, free * (1.0 - WF_MOTION_ROUNDING), 0.0f, false};
	s.speed2 = free > 0.0f ? (float)(2.0 * kinetic / free * (1.0 - WF_MOTION_ROUNDING)) : 0.0f;
	return s;
}

// 1/2 m (depth / h)^2: a free particle that starts inside the sphere or below the floor (each grown by
// the thickness) may be pushed out by its depth in the first substep.
static double PushRelease(const wfFrameParams* p, wfVec3 c0, float floorY, wfVec3 x, float w)
{
	float depth = 0.0f;
	if (p->sphere.enabled) {
		const float r = p->sphere.radius + p->contact.thickness;
		const float dx = x.x - c0.x, dy = x.y - c0.y, dz = x.z - c0.z;
		const float d2 = dx * dx + dy * dy + dz * dz;
		if (d2 < r * r)
			depth = r - sqrtf(d2);
	}
	if (p->floor.enabled && floorY - x.y > depth)
		depth = floorY - x.y;
	if (!(depth > 0.0f))
		return 0.0;
	const double v = (double)depth / p->h;
	return 0.5 * v * v / w;
}

// What the frame-start constraints could release, J: for each constraint of frame-start violation C,
// 1/2 k C^2 (springs) or 1/2 C^2 / (compliance + h^2 (wa + wb)) (XPBD; Jacobi with compliance 0): one
// projection's Delta lambda gives its ends no more kinetic energy than that.
static double ConstraintsRelease(const wfWorld* world, const wfCloth* c, const wfFrameParams* p, const wfVec4* pos0)
{
	const wfClothModel* m = &c->model;
	const bool springs = world->def.step.solver == WF_SOLVER_SPRINGS, xpbd = world->def.step.solver == WF_SOLVER_XPBD;
	const double h2 = (double)p->h * p->h;
	const double compliance[WF_FAMILY_COUNT] = {c->material.stretchCompliance, c->material.shearCompliance, c->material.bendCompliance};
	double release = 0.0;
	for (int k = 0; k < m->constraintCount; ++k) {
		const wfConstraint* con = &m->constraints[k];
		const wfVec4 a = pos0[con->a], b = pos0[con->b];
		const double wsum = (double)a.w + b.w;
		if (wsum == 0.0)
			continue;
		const double dx = (double)b.x - a.x, dy = (double)b.y - a.y, dz = (double)b.z - a.z;
		const double C = sqrt(dx * dx + dy * dy + dz * dz) - con->rest;
		if (springs)
			release += 0.5 * c->material.stiffness * C * C;
		else
			release += 0.5 * C * C / ((xpbd ? compliance[con->family] : 0.0) + h2 * wsum);
	}
	return release;
}

void wfCheckEnergy(wfWorld* world, wfCloth* c, const wfFrameParams* p, const wfVec4* pos0, const wfVec4* vel0)
{
	world->motionExactFrames++;
	// The pre-test's per-particle terms, summed in double in index order.
	const wfVec3 shift = c->local.shift, g = p->gravity;
	const wfVec3 c0 = wfLocalSphereCenter(&c->local, p, 0);
	const float floorY = c->local.floorHeight + p->contact.thickness;
	const wfVec4* x = c->state.pos;
	const wfVec4* v = c->state.vel;
	double gain = 0.0, kinetic = 0.0, free = 0.0, release = 0.0;
	float speed2 = 0.0f;
	for (int i = 0; i < c->model.particleCount; ++i) {
		const wfVec4 a = pos0[i], b = x[i], va = vel0[i], vb = v[i];
		const float k0 = va.x * va.x + va.y * va.y + va.z * va.z, k1 = vb.x * vb.x + vb.y * vb.y + vb.z * vb.z;
		speed2 = fmaxf(speed2, fmaxf(k0, k1));
		if (a.w == 0.0f)
			continue;
		const float ex = b.x - a.x + shift.x, ey = b.y - a.y + shift.y, ez = b.z - a.z + shift.z;
		const float fall = g.x * ex + g.y * ey + g.z * ez;
		gain += (double)(0.5f * k1 - 0.5f * k0 - fall);
		kinetic += (double)(0.5f * k0);
		free += 1.0;
		const wfVec3 start = {a.x - shift.x, a.y - shift.y, a.z - shift.z};
		release += PushRelease(p, c0, floorY, start, a.w);
	}
	gain *= c->material.mass;
	// The constraints' release only when the frame fails without it (the bound grows with it).
	double bound = EnergyBound(world, c, p, kinetic, free, speed2, release);
	if (gain > bound)
		bound = EnergyBound(world, c, p, kinetic, free, speed2, release + ConstraintsRelease(world, c, p, pos0));
	c->energyGain = gain;
	c->energyBound = bound;
	if (gain > bound) {
		c->verdict = WF_FRAME_UNSTABLE;
		c->verdictParticle = -1;
		c->verdictEnergy = true;
	}
}

void wfCheckMotion(wfWorld* world, wfCloth* c, const wfFrameParams* p, const wfVec4* pos0, const wfVec4* vel0, const wfMotionSums* s)
{
	c->tunnelParticle = s->tunnelled ? wfFindTunnel(c, p, pos0) : -1;
	if (c->verdict == WF_FRAME_GOOD && wfEnergyPreTestFails(world, c, p, s))
		wfCheckEnergy(world, c, p, pos0, vel0);
}

// Whether the n-th discarded frame is logged: the first few, then at every power of two, so a run
// that keeps failing says so without flooding the log.
static bool LogThis(int64_t n) { return n <= 4 || (n & (n - 1)) == 0; }

void wfClothEndFrame(wfWorld* world, wfCloth* c)
{
	// Tunnelling is counted whatever the verdict: the step let a particle through.
	if (c->tunnelParticle >= 0) {
		const int64_t n = ++world->warnings.tunnelled;
		if (LogThis(n))
			wfLog(world, WF_LOG_WARNING,
				"cloth %d: frame at t = %.4f s (tunnelled frame %lld): particle %d passed through the sphere between two "
				"substeps (raise the substeps or lower the speed)",
				c->index, world->time, (long long)n, c->tunnelParticle);
	}
	if (c->verdict == WF_FRAME_GOOD) {
		c->origin[0] += c->local.shift.x;
		c->origin[1] += c->local.shift.y;
		c->origin[2] += c->local.shift.z;
		return;
	}
	// The backend restored the state of the frame start: the origin stays where it was.
	const bool nonFinite = c->verdict == WF_FRAME_NON_FINITE;
	int64_t* counter = nonFinite ? &world->warnings.nonFinite : &world->warnings.unstable;
	++*counter;
	if (!nonFinite && c->verdictContact)
		world->warnings.unstableInContact++;
	const bool reset = world->def.badFrame == WF_BAD_FRAME_RESET;
	if (LogThis(*counter) && c->verdictEnergy) {
		wfLog(world, WF_LOG_WARNING,
			"cloth %d: frame at t = %.4f s discarded (unstable frame %lld): its energy grew by %.4g J, more than the %.4g J "
			"that gravity, wind, colliders and the frame-start constraints could add; %s (lower the time step or the stiffness, "
			"or raise the damping)",
			c->index, world->time, (long long)*counter, c->energyGain, c->energyBound,
			reset ? "the cloth was reset" : "kept the state of the frame start");
	} else if (LogThis(*counter)) {
		wfLog(world, WF_LOG_WARNING,
			"cloth %d: frame at t = %.4f s discarded (%s frame %lld): particle %d %s; %s (lower the time step or the stiffness, "
			"or raise the damping)",
			c->index, world->time, nonFinite ? "non-finite" : "unstable", (long long)*counter, c->verdictParticle,
			nonFinite               ? "has a non-finite position or velocity"
				: c->verdictContact ? "moved faster than maxSpeed, and a collider drove it (a too-fast particle touched one)"
									: "moved faster than maxSpeed",
			reset ? "the cloth was reset" : "kept the state of the frame start");
	}
	if (reset) {
		wfClothId id = {world, c->index, c->generation};
		wfCloth_Reset(id);
	}
}
