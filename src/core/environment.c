// The environment of a substep: the sphere's motion and the external acceleration (gravity and
// wind), pure functions of the frame-start clocks, mirrored by the GPU shaders.
#include "internal.h"

#include <math.h>

static const float kTwoPi = 6.28318530717958647692f;

// sin and cos of a float, the same bits on every machine: the C library's sinf differs in the last
// bit between glibc and others (the wasm build's musl-based libc), which a moving sphere turns into
// millimetres after a few hundred substeps. Double arithmetic is IEEE everywhere: reduce by pi/2
// in two parts (Cody-Waite; exact enough for |x| < 1e5, far past any clock here), then the Taylor
// series of sin and cos to x^15 / x^14 on [-pi/4, pi/4] (error below 1e-16), rounded to float.
static double KernelSin(double r)
{
	const double r2 = r * r;
	return r * (1.0 + r2 * (-1.0 / 6.0 + r2 * (1.0 / 120.0 + r2 * (-1.0 / 5040.0 + r2 * (1.0 / 362880.0 +
		r2 * (-1.0 / 39916800.0 + r2 * (1.0 / 6227020800.0 + r2 * (-1.0 / 1307674368000.0))))))));
}

static double KernelCos(double r)
{
	const double r2 = r * r;
	return 1.0 + r2 * (-0.5 + r2 * (1.0 / 24.0 + r2 * (-1.0 / 720.0 + r2 * (1.0 / 40320.0 + r2 * (-1.0 / 3628800.0 +
		r2 * (1.0 / 479001600.0 + r2 * (-1.0 / 87178291200.0)))))));
}

// quadrant 0: sin, 1: cos (sin shifted by a quarter turn).
static float PortableSinCos(float x, int quadrant)
{
	const double pio2Hi = 1.5707963267341256e+00, pio2Lo = 6.07710050650619224932e-11; // pi/2 = hi + lo
	const double d = (double)x;
	const double k = floor(d * 0.63661977236758134308 + 0.5); // nearest multiple of pi/2
	const double r = (d - k * pio2Hi) - k * pio2Lo;
	const int q = ((int)fmod(k, 4.0) + 4 + quadrant) & 3;
	const double v = q == 0 ? KernelSin(r) : q == 1 ? KernelCos(r) : q == 2 ? -KernelSin(r) : -KernelCos(r);
	return (float)v;
}

float wfSinf(float x) { return PortableSinCos(x, 0); }
float wfCosf(float x) { return PortableSinCos(x, 1); }

// The sphere's motion clock runs only while it moves; substep k ends at sphereTime + (k+1) h.
// The motion is kept apart from the centre: solvers add it to the centre in their cloth's local
// frame (wfClothLocal.sphereCenter), so it is the same whatever the world position.
wfVec3 wfSphereMotionAt(const wfFrameParams* p, int substep)
{
	float t = (float)(p->sphereTime + (p->sphere.moving ? (double)(substep + 1) * p->h : 0.0));
	float s = wfSinf(kTwoPi * p->sphere.frequency * t);
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
	float c = w * wfCosf(w * t);
	return (wfVec3){p->sphere.amplitude.x * c, p->sphere.amplitude.y * c, p->sphere.amplitude.z * c};
}

// Gravity plus wind at the start of substep k. GUST is an acceleration added to gravity (the second
// document); WAVE is a force per particle (the third), so its acceleration scales with 1/m.
wfVec3 wfExternalAccel(const wfFrameParams* p, int substep, int column, float invMass)
{
	wfVec3 a = p->gravity;
	float t = (float)(p->time + (double)substep * p->h);
	if (p->wind.mode == WF_WIND_GUST) {
		a.x += p->wind.strength * wfSinf(1.8f * t);
		a.z += p->wind.strength * wfCosf(1.26f * t);
	} else if (p->wind.mode == WF_WIND_WAVE) {
		wfVec3 d = p->wind.direction;
		float len = sqrtf(d.x * d.x + d.y * d.y + d.z * d.z);
		if (len > 0.0f) {
			float f = p->wind.strength * invMass / len *
				(0.5f + 0.5f * wfSinf(kTwoPi * p->wind.frequency * t + p->wind.phasePerColumn * (float)column));
			a.x += d.x * f;
			a.y += d.y * f;
			a.z += d.z * f;
		}
	}
	return a;
}
