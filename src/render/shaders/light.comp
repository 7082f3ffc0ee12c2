#version 450
// The key light's shadow projection, fitted on the GPU so the cloths' positions never go to the host:
// a bounding sphere of the caster box (the cloths' boxes from bounds.comp and the sphere) and an
// orthographic projection along the light around it, deep enough to reach the floor. Writes the
// scene's lightViewProj and shadow.x (0: no finite casters, no shadows).
// draw.transform: the sphere's centre and radius (w = 0: no sphere); draw.mode.x: cloths drawn.
#include "render_shared.h"

layout(local_size_x = 1) in;

layout(set = 0, binding = RD_BINDING_SCENE_RW) buffer RdSceneRW { RD_SCENE_FIELDS } scene;
layout(set = 0, binding = RD_BINDING_BOUNDS) readonly buffer Bounds { uint bounds[6]; };
layout(push_constant) uniform RdDraw { RD_DRAW_FIELDS } draw;

float FromOrdered(uint u)
{
	return uintBitsToFloat((u & 0x80000000u) != 0u ? u & 0x7fffffffu : ~u);
}

void main()
{
	vec3 lo = vec3(3.0e38), hi = vec3(-3.0e38);
	if (draw.mode.x > 0) {
		lo = vec3(FromOrdered(bounds[0]), FromOrdered(bounds[1]), FromOrdered(bounds[2]));
		hi = vec3(FromOrdered(bounds[3]), FromOrdered(bounds[4]), FromOrdered(bounds[5]));
	}
	if (draw.transform.w > 0.0) {
		lo = min(lo, draw.transform.xyz - draw.transform.w);
		hi = max(hi, draw.transform.xyz + draw.transform.w);
	}
	bool finite = !(any(isnan(lo)) || any(isnan(hi)) || any(isinf(lo)) || any(isinf(hi)));
	if (!(lo.x <= hi.x) || !finite || any(greaterThan(abs(lo), vec3(1.0e30))) || any(greaterThan(abs(hi), vec3(1.0e30)))) {
		scene.shadow.x = 0.0;
		return;
	}
	vec3 c = 0.5 * (lo + hi);
	float radius = max(0.5 * length(hi - lo) * 1.02, 0.01);
	vec3 l = scene.lightDir.xyz;
	float floorDepth = (c.y - scene.params.z) / max(l.y, 0.05);

	// Basis: l towards the light, s and u across it.
	vec3 up = abs(l.y) > 0.99 ? vec3(0.0, 0.0, 1.0) : vec3(0.0, 1.0, 0.0);
	vec3 s = normalize(cross(up, l));
	vec3 u = cross(l, s);
	// Depth runs from R in front of the centre (towards the light) to the floor behind it.
	float near = -radius, far = max(radius, floorDepth) + radius;
	float depth = far - near;
	float sc = 1.0 / radius;
	// Rows: x = s.(p - c) / R, y = u.(p - c) / R, z = (-(l.(p - c)) - near) / depth.
	scene.lightViewProj = mat4(
		vec4(sc * s.x, sc * u.x, -l.x / depth, 0.0),
		vec4(sc * s.y, sc * u.y, -l.y / depth, 0.0),
		vec4(sc * s.z, sc * u.z, -l.z / depth, 0.0),
		vec4(-sc * dot(s, c), -sc * dot(u, c), (dot(l, c) - near) / depth, 1.0));
	scene.shadow.x = 1.0;
}
