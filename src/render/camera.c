// Orbit camera, view/projection matrices and each preset's default view.
#include "render_internal.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RD_PI 3.14159265358979f

static float Radians(float degrees) { return degrees * (RD_PI / 180.0f); }

static bool Finite3(wfVec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

wfCamera wfCameraLookAt(wfVec3 eye, wfVec3 target, float fovDegrees)
{
	// Non-finite input: the general view of the origin (render.h).
	if (!Finite3(eye) || !Finite3(target) || !isfinite(fovDegrees))
		return wfDefaultCameraForPreset(NULL);
	float dx = eye.x - target.x, dy = eye.y - target.y, dz = eye.z - target.z;
	float distance = sqrtf(dx * dx + dy * dy + dz * dz);
	wfCamera c = {
		.target = target,
		.azimuth = atan2f(dx, dz) * (180.0f / RD_PI),
		.elevation = distance > 0.0f ? asinf(dy / distance) * (180.0f / RD_PI) : 0.0f,
		.distance = distance,
		.fov = fovDegrees,
	};
	return c;
}

wfVec3 wfCamera_GetEye(const wfCamera* c)
{
	if (c == NULL)
		return (wfVec3){0.0f, 0.0f, 0.0f};
	float az = Radians(c->azimuth), el = Radians(c->elevation);
	wfVec3 eye = {
		c->target.x + c->distance * cosf(el) * sinf(az),
		c->target.y + c->distance * sinf(el),
		c->target.z + c->distance * cosf(el) * cosf(az),
	};
	return eye;
}

wfCamera wfDefaultCameraForPreset(const char* name)
{
	// The second document's direction, nearer: the sheet settles over the unit sphere down to
	// y = -2.25 (measured, 600 frames), and fills about half the picture's height.
	if (name != NULL && strcmp(name, "compute-cloth") == 0)
		return wfCameraLookAt((wfVec3){2.6f, 1.2f, 3.3f}, (wfVec3){0.0f, -0.75f, 0.0f}, 60.0f);
	// A 2.4 m cloth falling over a 0.6 m sphere that swings along z, floor at -1.2.
	if (name != NULL && strcmp(name, "xpbd") == 0)
		return wfCameraLookAt((wfVec3){3.0f, 1.9f, 3.4f}, (wfVec3){0.0f, -0.35f, 0.0f}, 50.0f);
	// A 6.6 m curtain hanging from its top corners at y = 4.2 down to y = -3.8 (measured, 600 frames),
	// seen from the front and a little to the side.
	if (name != NULL && strcmp(name, "spring-mesh") == 0)
		return wfCameraLookAt((wfVec3){4.2f, 2.0f, 10.8f}, (wfVec3){0.0f, 0.2f, 0.0f}, 50.0f);
	return wfCameraLookAt((wfVec3){4.0f, 3.0f, 5.0f}, (wfVec3){0.0f, 0.0f, 0.0f}, 60.0f);
}

bool wfDefaultGroundForPreset(const char* name, float* height)
{
	// Half a metre below the lowest point each preset's cloth reaches in 600 frames (the camera
	// comments above); xpbd has a floor of its own.
	float y = 0.0f;
	if (name != NULL && strcmp(name, "compute-cloth") == 0)
		y = -2.75f;
	else if (name != NULL && strcmp(name, "spring-mesh") == 0)
		y = -4.3f;
	else
		return false;
	if (height != NULL)
		*height = y;
	return true;
}

wfCamera wfCameraFit(wfWorld* world, const wfClothId* cloths, int count, float fovDegrees)
{
	if (cloths == NULL || count < 0)
		count = 0;
	if (!(fovDegrees > 0.0f && fovDegrees < 180.0f))
		return wfDefaultCameraForPreset(NULL);
	// Axis-aligned bounds of every particle and of the sphere.
	float lo[3] = {FLT_MAX, FLT_MAX, FLT_MAX}, hi[3] = {-FLT_MAX, -FLT_MAX, -FLT_MAX};
	for (int i = 0; i < count; ++i) {
		wfClothInfo info;
		if (wfCloth_GetInfo(cloths[i], &info) != WF_OK)
			continue;
		wfVec3* pos = malloc(sizeof *pos * (size_t)info.particleCount);
		if (pos != NULL && wfCloth_ReadPositions(cloths[i], pos, info.particleCount) == WF_OK) {
			for (int p = 0; p < info.particleCount; ++p) {
				const float v[3] = {pos[p].x, pos[p].y, pos[p].z};
				for (int k = 0; k < 3; ++k) {
					lo[k] = fminf(lo[k], v[k]);
					hi[k] = fmaxf(hi[k], v[k]);
				}
			}
		}
		free(pos);
	}
	wfWorldDef wd = wfWorld_GetDef(world);
	if (wd.sphere.enabled) {
		wfVec3 c = wfWorld_GetSphereCenter(world);
		const float v[3] = {c.x, c.y, c.z};
		for (int k = 0; k < 3; ++k) {
			lo[k] = fminf(lo[k], v[k] - wd.sphere.radius);
			hi[k] = fmaxf(hi[k], v[k] + wd.sphere.radius);
		}
	}
	if (lo[0] > hi[0]) // nothing to look at
		return wfCameraLookAt((wfVec3){4.0f, 3.0f, 5.0f}, (wfVec3){0.0f, 0.0f, 0.0f}, fovDegrees);
	wfVec3 centre = {0.5f * (lo[0] + hi[0]), 0.5f * (lo[1] + hi[1]), 0.5f * (lo[2] + hi[2])};
	float dx = hi[0] - lo[0], dy = hi[1] - lo[1], dz = hi[2] - lo[2];
	float radius = fmaxf(0.5f * sqrtf(dx * dx + dy * dy + dz * dz), 0.05f);
	wfCamera c = {.target = centre, .azimuth = 38.0f, .elevation = 22.0f, .distance = 1.0f, .fov = fovDegrees};
	// View basis of that direction: w from the target to the eye, s right, u up.
	wfVec3 e = wfCamera_GetEye(&c);
	float w[3] = {e.x - centre.x, e.y - centre.y, e.z - centre.z};
	float s[3] = {w[2], 0.0f, -w[0]};
	float sl = sqrtf(s[0] * s[0] + s[2] * s[2]);
	s[0] /= sl;
	s[2] /= sl;
	float u[3] = {w[1] * s[2] - w[2] * s[1], w[2] * s[0] - w[0] * s[2], w[0] * s[1] - w[1] * s[0]};
	// The nearest distance at which every corner of the box is within 90 % of the half height (and of
	// the half width, which is at least as wide): |y| <= 0.9 tan(fov/2) (d - p.w) for each corner p.
	float t = 0.9f * tanf(Radians(fovDegrees) * 0.5f);
	float distance = 1.2f * radius;
	for (int k = 0; k < 8; ++k) {
		float p[3] = {(k & 1 ? hi[0] : lo[0]) - centre.x, (k & 2 ? hi[1] : lo[1]) - centre.y, (k & 4 ? hi[2] : lo[2]) - centre.z};
		float px = p[0] * s[0] + p[1] * s[1] + p[2] * s[2];
		float py = p[0] * u[0] + p[1] * u[1] + p[2] * u[2];
		float pw = p[0] * w[0] + p[1] * w[1] + p[2] * w[2];
		distance = fmaxf(distance, fmaxf(fabsf(px), fabsf(py)) / t + pw);
	}
	c.distance = distance;
	return c;
}

// Column-major 4x4 matrices, m[column * 4 + row].
static void Multiply(float out[16], const float a[16], const float b[16])
{
	float r[16];
	for (int c = 0; c < 4; ++c) {
		for (int row = 0; row < 4; ++row) {
			float s = 0.0f;
			for (int k = 0; k < 4; ++k)
				s += a[k * 4 + row] * b[c * 4 + k];
			r[c * 4 + row] = s;
		}
	}
	memcpy(out, r, sizeof r);
}

void rdCameraViewProj(const wfCamera* camera, float aspect, float out[16])
{
	wfVec3 eye = wfCamera_GetEye(camera);
	wfVec3 t = camera->target;
	// View basis: f forward, s right, u up (world +y is up unless looking straight along it).
	float f[3] = {t.x - eye.x, t.y - eye.y, t.z - eye.z};
	float fl = sqrtf(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
	if (fl <= 0.0f) {
		f[0] = 0.0f;
		f[1] = 0.0f;
		f[2] = -1.0f;
		fl = 1.0f;
	}
	for (int i = 0; i < 3; ++i)
		f[i] /= fl;
	float up[3] = {0.0f, 1.0f, 0.0f};
	if (fabsf(f[1]) > 0.999f) {
		up[1] = 0.0f;
		up[2] = -1.0f;
	}
	float s[3] = {f[1] * up[2] - f[2] * up[1], f[2] * up[0] - f[0] * up[2], f[0] * up[1] - f[1] * up[0]};
	float sl = sqrtf(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
	for (int i = 0; i < 3; ++i)
		s[i] /= sl;
	float u[3] = {s[1] * f[2] - s[2] * f[1], s[2] * f[0] - s[0] * f[2], s[0] * f[1] - s[1] * f[0]};
	float e[3] = {eye.x, eye.y, eye.z};
	float view[16] = {
		s[0],
		u[0],
		-f[0],
		0.0f,
		s[1],
		u[1],
		-f[1],
		0.0f,
		s[2],
		u[2],
		-f[2],
		0.0f,
		-(s[0] * e[0] + s[1] * e[1] + s[2] * e[2]),
		-(u[0] * e[0] + u[1] * e[1] + u[2] * e[2]),
		(f[0] * e[0] + f[1] * e[1] + f[2] * e[2]),
		1.0f,
	};
	// Perspective for Vulkan clip space: y flipped (image rows run down), depth in [0, 1].
	float zn = rdCameraNear(camera), zf = camera->distance * 4.0f + 200.0f;
	float g = 1.0f / tanf(Radians(camera->fov) * 0.5f);
	float proj[16] = {
		g / aspect,
		0.0f,
		0.0f,
		0.0f,
		0.0f,
		-g,
		0.0f,
		0.0f,
		0.0f,
		0.0f,
		zf / (zn - zf),
		-1.0f,
		0.0f,
		0.0f,
		zn * zf / (zn - zf),
		0.0f,
	};
	Multiply(out, proj, view);
}

float rdCameraNear(const wfCamera* camera)
{
	float zn = camera->distance * 0.01f;
	return zn < 0.01f ? 0.01f : zn;
}
