// The environment of a substep: the sphere's motion and the external acceleration (gravity and
// wind), pure functions of the frame-start clocks, mirrored by the GPU shaders.
#include "internal.h"

#include <math.h>

// sin and cos of a float, the same bits on every machine: the C library's sinf differs in the last
// bit between glibc and others (the wasm build's musl-based libc), which a moving sphere turns into
// millimetres after a few hundred substeps. Double arithmetic is IEEE everywhere: reduce by pi/2
// in two parts (Cody-Waite; exact enough for |x| < 1e5, far past any clock here), then the Taylor
// series of sin and cos to x^15 / x^14 on [-pi/4, pi/4] (error below 1e-16), rounded to float.
static double KernelSin(double r)
{
	const double r2 = r * r;
	return r *
		(1.0 +
			r2 *
				(-1.0 / 6.0 +
					r2 *
						(1.0 / 120.0 +
							r2 *
								(-1.0 / 5040.0 +
									r2 *
										(1.0 / 362880.0 +
											r2 * (-1.0 / 39916800.0 + r2 * (1.0 / 6227020800.0 + r2 * (-1.0 / 1307674368000.0))))))));
}

static double KernelCos(double r)
{
	const double r2 = r * r;
	return 1.0 +
		r2 *
		(-0.5 +
			r2 *
				(1.0 / 24.0 +
					r2 *
						(-1.0 / 720.0 +
							r2 * (1.0 / 40320.0 + r2 * (-1.0 / 3628800.0 + r2 * (1.0 / 479001600.0 + r2 * (-1.0 / 87178291200.0)))))));
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

// sin in float arithmetic only, for what a GPU evaluates per particle (the wave wind): GLSL has no
// double without an optional feature, and its sin is the driver's. Reduce by pi/2 in three parts
// (Cody-Waite; the first has 8 bits, so k times it is exact for |k| < 2^16), then a degree-7 sin and a
// degree-8 cos on [-pi/4, pi/4]. Error below 5e-7 for |x| < 4e4 (against double sin). Every
// operation is one IEEE float operation (no contraction: -ffp-contract=off, `precise` in GLSL), so
// WfWaveSin (common.glsl) returns the same bits on lavapipe and the web build's table the same too.
float wfWaveSinf(float x)
{
	const float k = floorf(x * 0.636619747f + 0.5f);
	const float r = ((x - k * 1.5703125f) - k * 0.000483751297f) - k * 7.54979013e-08f;
	const int q = (int)(k - 4.0f * floorf(k * 0.25f));
	const float r2 = r * r;
	const float s = r + r * r2 * (-0.166666546f + r2 * (0.00833216087f + r2 * -0.000195152956f));
	const float c = 1.0f - 0.5f * r2 + r2 * r2 * (0.0416666456f + r2 * (-0.00138873165f + r2 * 2.44331568e-05f));
	return q == 0 ? s : q == 1 ? c : q == 2 ? -s : -c;
}

// The sphere's motion clock runs only while it moves; substep k ends at sphereTime + (k+1) h.
// The motion is kept apart from the centre: solvers add it to the centre in their cloth's local
// frame (wfClothLocal.sphereCenter), so it is the same whatever the world position.
wfVec3 wfSphereMotionAt(const wfFrameParams* p, int substep)
{
	float t = (float)(p->sphereTime + (p->sphere.moving ? (double)(substep + 1) * p->h : 0.0));
	float s = wfSinf(WF_TWO_PI * p->sphere.frequency * t);
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
	float w = WF_TWO_PI * p->sphere.frequency;
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
				(0.5f + 0.5f * wfWaveSinf(WF_TWO_PI * p->wind.frequency * t + p->wind.phasePerColumn * (float)column));
			a.x += d.x * f;
			a.y += d.y * f;
			a.z += d.z * f;
		}
	}
	return a;
}

// One triangle's drag and lift (wfAeroDef), mirrored operation by operation in the shaders.
static wfVec3 TriangleAero(const wfClothModel* m, const wfVec4* pos, const wfVec4* vel, const wfFrameParams* p, uint32_t t)
{
	const uint32_t* tri = &m->indices[3 * t];
	const wfVec4 p0 = pos[tri[0]], p1 = pos[tri[1]], p2 = pos[tri[2]];
	const wfVec4 v0 = vel[tri[0]], v1 = vel[tri[1]], v2 = vel[tri[2]];
	const float ax = p1.x - p0.x, ay = p1.y - p0.y, az = p1.z - p0.z;
	const float bx = p2.x - p0.x, by = p2.y - p0.y, bz = p2.z - p0.z;
	const float nx = ay * bz - az * by, ny = az * bx - ax * bz, nz = ax * by - ay * bx;
	const float len = sqrtf(nx * nx + ny * ny + nz * nz);
	wfVec3 f = {0.0f, 0.0f, 0.0f};
	if (!(len > WF_MIN_NORMAL_LENGTH))
		return f;
	const float ux = nx / len, uy = ny / len, uz = nz / len;
	const float q = 0.5f * p->aero.density * (0.5f * len);
	const wfVec3 air = p->aero.airVelocity;
	const float rx = air.x - (v0.x + v1.x + v2.x) / 3.0f;
	const float ry = air.y - (v0.y + v1.y + v2.y) / 3.0f;
	const float rz = air.z - (v0.z + v1.z + v2.z) / 3.0f;
	const float rn = rx * ux + ry * uy + rz * uz;
	const float drag = q * p->aero.drag * fabsf(rn) * rn;
	f = (wfVec3){drag * ux, drag * uy, drag * uz};
	const float s2 = rx * rx + ry * ry + rz * rz;
	if (p->aero.lift != 0.0f && s2 > WF_MIN_AIR_SPEED2) {
		const float lift = q * p->aero.lift * rn * sqrtf(s2), k = rn / s2;
		f.x += lift * (ux - k * rx);
		f.y += lift * (uy - k * ry);
		f.z += lift * (uz - k * rz);
	}
	return f;
}

wfVec3 wfAeroAccel(const wfClothModel* m, const wfVec4* pos, const wfVec4* vel, const wfFrameParams* p, int i)
{
	float sx = 0.0f, sy = 0.0f, sz = 0.0f;
	for (int e = m->triStart[i]; e < m->triStart[i + 1]; ++e) {
		const wfVec3 f = TriangleAero(m, pos, vel, p, m->triList[e]);
		sx += f.x;
		sy += f.y;
		sz += f.z;
	}
	// A third of the force over the particle's mass, scaled to its share of the air per kilogram.
	const float w = pos[i].w, share = m->restPositions[i].w;
	return (wfVec3){sx * w / 3.0f * share, sy * w / 3.0f * share, sz * w / 3.0f * share};
}
