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

// Whether the n-th discarded frame is logged: the first few, then at every power of two, so a run
// that keeps failing says so without flooding the log.
static bool LogThis(int64_t n) { return n <= 4 || (n & (n - 1)) == 0; }

void wfClothEndFrame(wfWorld* world, wfCloth* c)
{
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
	if (LogThis(*counter)) {
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
