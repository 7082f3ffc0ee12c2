#version 450
// Wireframe overlay: one colour.
#include "render_shared.h"

layout(push_constant) uniform RdDraw { RD_DRAW_FIELDS } draw;
layout(location = 0) out vec4 outColor;

void main()
{
	outColor = vec4(draw.color.rgb, 1.0);
}
