// The environment of a substep: the sphere's motion and the external acceleration (gravity and
// wind), pure functions of the frame-start clocks, mirrored by the GPU shaders.
#include "internal.h"

#include <math.h>

static const float kTwoPi = 6.28318530717958647692f;

// The sphere's motion clock runs only while it moves; substep k ends at sphereTime + (k+1) h.
// The motion is kept apart from the centre: solvers add it to the centre in their cloth's local
// frame (wfClothLocal.sphereCenter), so it is the same whatever the world position.
wfVec3 wfSphereMotionAt(const wfFrameParams* p, int substep)
{
	float t = (float)(p->sphereTime + (p->sphere.moving ? (double)(substep + 1) * p->h : 0.0));
	float s = sinf(kTwoPi * p->sphere.frequency * t);
	return (wfVec3){p->sphere.amplitude.x * s, p->sphere.amplitude.y * s, p->sphere.amplitude.z * s};
}

wfVec3 wfSphereCenterAt(const wfFrameParams* p, int substep)
{
	wfVec3 c = p->sphere.center, m = wfSphereMotionAt(p, substep);
	return (wfVec3){c.x + m.x, c.y + m.y, c.z + m.z};
}

wfVec3 wfSphereVelocityAt(const wfFrameParams* p, int substep)
{
	if (!p->sphere.moving)
		return (wfVec3){0.0f, 0.0f, 0.0f};
	float t = (float)(p->sphereTime + (double)(substep + 1) * p->h);
	float w = kTwoPi * p->sphere.frequency;
	float c = w * cosf(w * t);
	return (wfVec3){p->sphere.amplitude.x * c, p->sphere.amplitude.y * c, p->sphere.amplitude.z * c};
}

// Gravity plus wind at the start of substep k. GUST is an acceleration added to gravity (the second
// document); WAVE is a force per particle (the third), so its acceleration scales with 1/m.
wfVec3 wfExternalAccel(const wfFrameParams* p, int substep, int column, float invMass)
{
	wfVec3 a = p->gravity;
	float t = (float)(p->time + (double)substep * p->h);
	if (p->wind.mode == WF_WIND_GUST) {
		a.x += p->wind.strength * sinf(1.8f * t);
		a.z += p->wind.strength * cosf(1.26f * t);
	} else if (p->wind.mode == WF_WIND_WAVE) {
		wfVec3 d = p->wind.direction;
		float len = sqrtf(d.x * d.x + d.y * d.y + d.z * d.z);
		if (len > 0.0f) {
			float f = p->wind.strength * invMass / len *
				(0.5f + 0.5f * sinf(kTwoPi * p->wind.frequency * t + p->wind.phasePerColumn * (float)column));
			a.x += d.x * f;
			a.y += d.y * f;
			a.z += d.z * f;
		}
	}
	return a;
}
