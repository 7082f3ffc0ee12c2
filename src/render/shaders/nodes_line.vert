#version 450
// The nodes view's constraints: instance e is edge e of the cloth's list (its two particle indices,
// a vertex stream at the instance rate), vertex 0 and 1 its ends. Both ends get the colour of the
// constraint's signed strain against the rest shape (set 1).
#include "render_shared.h"

layout(location = 0) in uvec2 inEdge;

layout(set = 0, binding = RD_BINDING_SCENE) uniform RdScene { RD_SCENE_FIELDS } scene;
layout(set = 1, binding = RD_CLOTH_POSITIONS) readonly buffer ClothPositions { vec4 clothPos[]; };
layout(set = 1, binding = RD_CLOTH_REST) readonly buffer ClothRest { vec4 clothRest[]; };
layout(push_constant) uniform RdDraw { RD_DRAW_FIELDS } draw;

layout(location = 0) out vec3 vColor;

// Diverging ramp: -1 blue, 0 grey, +1 red (linear colours).
vec3 StrainRamp(float s)
{
	s = clamp(s, -1.0, 1.0);
	vec3 grey = vec3(0.45), blue = vec3(0.02, 0.12, 0.95), red = vec3(0.95, 0.04, 0.02);
	return s < 0.0 ? mix(grey, blue, -s) : mix(grey, red, s);
}

void main()
{
	uint a = inEdge.x, b = inEdge.y;
	float restLength = distance(clothRest[a].xyz, clothRest[b].xyz);
	float strain = restLength > 0.0 ? distance(clothPos[a].xyz, clothPos[b].xyz) / restLength - 1.0 : 0.0;
	vColor = StrainRamp(strain / RD_NODES_STRAIN_FULL);
	uint me = gl_VertexIndex == 0 ? a : b;
	vec3 world = draw.transform.xyz + clothPos[me].xyz;
	gl_Position = scene.viewProj * vec4(world, 1.0);
	gl_Position.z -= draw.material.z * gl_Position.w;
}
