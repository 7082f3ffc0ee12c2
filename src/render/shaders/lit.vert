#version 450
// Lit surfaces (cloth, sphere, pin markers, floor): transform and pass the attributes on.
#include "render_shared.h"

layout(location = RD_LOCATION_POSITION) in vec3 inPosition;
layout(location = RD_LOCATION_NORMAL) in vec3 inNormal;
layout(location = RD_LOCATION_UV) in vec2 inUV;
layout(location = RD_LOCATION_SCALAR) in float inScalar;

layout(set = 0, binding = RD_BINDING_SCENE) uniform RdScene { RD_SCENE_FIELDS } scene;
layout(push_constant) uniform RdDraw { RD_DRAW_FIELDS } draw;

layout(location = 0) out vec3 vWorld;
layout(location = 1) out vec3 vNormal;
layout(location = 2) out vec2 vUV;
layout(location = 3) out float vScalar;

void main()
{
	vWorld = draw.transform.xyz + draw.transform.w * inPosition;
	vNormal = inNormal;
	vUV = inUV;
	vScalar = inScalar;
	gl_Position = scene.viewProj * vec4(vWorld, 1.0);
	// The cloth is pulled a hair towards the camera (about 0.1 % of the distance), so where it rests on
	// the sphere at exactly the collision radius its flat triangles do not sink into the sphere's mesh.
	gl_Position.z -= draw.material.z * gl_Position.w;
}
