#version 450
// Wireframe overlay: positions only, pulled slightly towards the camera so the lines win the depth test.
#include "render_shared.h"

layout(location = RD_LOCATION_POSITION) in vec3 inPosition;

layout(set = 0, binding = RD_BINDING_SCENE) uniform RdScene { RD_SCENE_FIELDS } scene;
layout(push_constant) uniform RdDraw { RD_DRAW_FIELDS } draw;

void main()
{
	vec3 world = draw.transform.xyz + draw.transform.w * inPosition;
	gl_Position = scene.viewProj * vec4(world, 1.0);
	gl_Position.z -= draw.material.z * gl_Position.w;
}
