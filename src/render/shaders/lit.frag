#version 450
// Blinn-Phong with a key light (diffuse floor of 0.15, as in the second document) and a soft
// hemisphere fill. Double-sided: back faces use the flipped normal.
#include "render_shared.h"

layout(location = 0) in vec3 vWorld;
layout(location = 1) in vec3 vNormal;
layout(location = 2) in vec2 vUV;
layout(location = 3) in float vScalar;

layout(set = 0, binding = RD_BINDING_SCENE) uniform RdScene { RD_SCENE_FIELDS } scene;
layout(set = 0, binding = RD_BINDING_TEXTURE) uniform sampler2D weave;
layout(set = 0, binding = RD_BINDING_SHADOW) uniform sampler2DShadow shadowMap;
layout(push_constant) uniform RdDraw { RD_DRAW_FIELDS } draw;

layout(location = 0) out vec4 outColor;

// Speed: dark blue -> cyan -> yellow -> red.
vec3 SpeedRamp(float t)
{
	t = clamp(t, 0.0, 1.0);
	vec3 a = vec3(0.05, 0.08, 0.45), b = vec3(0.0, 0.65, 0.85), c = vec3(0.95, 0.85, 0.1), d = vec3(0.85, 0.08, 0.05);
	if (t < 1.0 / 3.0)
		return mix(a, b, t * 3.0);
	if (t < 2.0 / 3.0)
		return mix(b, c, t * 3.0 - 1.0);
	return mix(c, d, t * 3.0 - 2.0);
}

// Signed strain: blue (compressed) -> white -> red (stretched).
vec3 StrainRamp(float s)
{
	s = clamp(s, -1.0, 1.0);
	vec3 white = vec3(0.9);
	return s < 0.0 ? mix(white, vec3(0.05, 0.2, 0.8), -s) : mix(white, vec3(0.8, 0.05, 0.05), s);
}

// Fraction of the key light that reaches a point: 3x3 taps of the depth-compare sampler (each a
// bilinear 2x2 comparison), so shadow edges are soft. Beyond the far plane counts as the far plane.
float KeyLight(vec3 world)
{
	vec3 q = (scene.lightViewProj * vec4(world, 1.0)).xyz;
	vec2 uv = q.xy * 0.5 + 0.5;
	float ref = min(q.z, 1.0);
	float lit = 0.0;
	for (int y = -1; y <= 1; ++y) {
		for (int x = -1; x <= 1; ++x)
			lit += texture(shadowMap, vec3(uv + vec2(x, y) * 1.5 * scene.shadow.y, ref));
	}
	return lit / 9.0;
}

// Coverage of grid lines of the given spacing: one pixel wide, anti-aliased with the screen-space
// derivative, faded out where they get denser than a few pixels apart (no moire).
float GridLine(vec2 xz, float spacing)
{
	vec2 p = xz / spacing;
	vec2 w = fwidth(p);
	vec2 g = abs(fract(p - 0.5) - 0.5) / max(w, vec2(1e-4));
	float line = 1.0 - clamp(min(g.x, g.y) - 0.5, 0.0, 1.0);
	return line * clamp(1.0 - 2.0 * max(w.x, w.y), 0.0, 1.0);
}

// Floor: light grey with a subtle grid (faint lines every params.w metres, stronger every 4), fading
// into the background with distance.
vec3 FloorAlbedo(out float fade)
{
	float minor = GridLine(vWorld.xz, scene.params.w);
	float major = GridLine(vWorld.xz, 4.0 * scene.params.w);
	vec3 albedo = draw.color.rgb * (1.0 - 0.10 * minor) * (1.0 - 0.16 * major);
	float dist = length(vWorld - scene.eye.xyz);
	fade = clamp((dist - 12.0) / 18.0, 0.0, 1.0);
	return albedo;
}

void main()
{
	vec3 n = normalize(vNormal);
	if (!gl_FrontFacing)
		n = -n;
	int mode = draw.mode.x;
	vec3 albedo;
	float fade = 0.0;
	if (mode == RD_MODE_TEXTURE)
		albedo = texture(weave, vUV).rgb;
	else if (mode == RD_MODE_SPEED)
		albedo = SpeedRamp(vScalar / scene.params.x);
	else if (mode == RD_MODE_STRAIN)
		albedo = StrainRamp(vScalar / scene.params.y);
	else if (mode == RD_MODE_FLOOR)
		albedo = FloorAlbedo(fade);
	else
		albedo = draw.color.rgb;

	vec3 l = scene.lightDir.xyz;
	vec3 v = normalize(scene.eye.xyz - vWorld);
	vec3 h = normalize(l + v);
	float ndl = dot(n, l);
	float diffuse = max(ndl, 0.15);
	// The floor receives the shadows of the sphere and the cloths.
	if (mode == RD_MODE_FLOOR && scene.shadow.x > 0.0)
		diffuse *= mix(0.4, 1.0, KeyLight(vWorld));
	float specular = ndl > 0.0 ? draw.material.x * pow(max(dot(n, h), 0.0), draw.material.y) : 0.0;
	vec3 fill = mix(scene.groundColor.rgb, scene.skyColor.rgb, 0.5 + 0.5 * n.y);
	vec3 color = albedo * (scene.lightColor.rgb * diffuse + fill) + scene.lightColor.rgb * specular;
	outColor = vec4(mix(color, scene.background.rgb, fade), 1.0);
}
