#version 450
// Shadow casters (sphere, cloths) into the key light's depth map; no fragment stage.
#include "render_shared.h"

layout(location = RD_LOCATION_POSITION) in vec3 inPosition;

layout(set = 0, binding = RD_BINDING_SCENE) uniform RdScene { RD_SCENE_FIELDS } scene;
layout(push_constant) uniform RdDraw { RD_DRAW_FIELDS } draw;

void main()
{
	vec3 world = draw.transform.xyz + draw.transform.w * inPosition;
	gl_Position = scene.lightViewProj * vec4(world, 1.0);
}
