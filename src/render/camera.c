// Orbit camera, view/projection matrices and each preset's default view.
#include "render_internal.h"

#include <math.h>
#include <string.h>

#define RD_PI 3.14159265358979f

static float Radians(float degrees) { return degrees * (RD_PI / 180.0f); }

wfCamera wfCameraLookAt(wfVec3 eye, wfVec3 target, float fovDegrees)
{
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
	// The second document's fixed camera.
	if (name != NULL && strcmp(name, "compute-cloth") == 0)
		return wfCameraLookAt((wfVec3){4.2f, 2.8f, 5.4f}, (wfVec3){0.0f, -0.45f, 0.0f}, 60.0f);
	// A 2.4 m cloth falling over a 0.6 m sphere that swings along z, floor at -1.2.
	if (name != NULL && strcmp(name, "xpbd") == 0)
		return wfCameraLookAt((wfVec3){3.0f, 1.9f, 3.4f}, (wfVec3){0.0f, -0.35f, 0.0f}, 50.0f);
	// A 6.6 m curtain hanging from its top corners at y = 4.2, seen from the front and a little to the side.
	if (name != NULL && strcmp(name, "spring-mesh") == 0)
		return wfCameraLookAt((wfVec3){3.6f, 2.3f, 8.4f}, (wfVec3){0.0f, 0.8f, 0.0f}, 50.0f);
	return wfCameraLookAt((wfVec3){4.0f, 3.0f, 5.0f}, (wfVec3){0.0f, 0.0f, 0.0f}, 60.0f);
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
		s[0], u[0], -f[0], 0.0f,
		s[1], u[1], -f[1], 0.0f,
		s[2], u[2], -f[2], 0.0f,
		-(s[0] * e[0] + s[1] * e[1] + s[2] * e[2]),
		-(u[0] * e[0] + u[1] * e[1] + u[2] * e[2]),
		(f[0] * e[0] + f[1] * e[1] + f[2] * e[2]),
		1.0f,
	};
	// Perspective for Vulkan clip space: y flipped (image rows run down), depth in [0, 1].
	float zn = rdCameraNear(camera), zf = camera->distance * 4.0f + 200.0f;
	float g = 1.0f / tanf(Radians(camera->fov) * 0.5f);
	float proj[16] = {
		g / aspect, 0.0f, 0.0f, 0.0f,
		0.0f, -g, 0.0f, 0.0f,
		0.0f, 0.0f, zf / (zn - zf), -1.0f,
		0.0f, 0.0f, zn * zf / (zn - zf), 0.0f,
	};
	Multiply(out, proj, view);
}

float rdCameraNear(const wfCamera* camera)
{
	float zn = camera->distance * 0.01f;
	return zn < 0.01f ? 0.01f : zn;
}
