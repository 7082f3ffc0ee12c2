#version 450
// The nodes view's constraints: no vertex buffers; vertex v is end (v & 1) of constraint v / 2 of the
// grid (cols x rows in RdDraw.mode.yz): first the horizontal and vertical stretch constraints, then
// the two shear diagonals of each cell. Both ends get the colour of the constraint's signed strain
// against the rest shape (set 1).
#include "render_shared.h"

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
	int cols = draw.mode.y, rows = draw.mode.z;
	int e = gl_VertexIndex / 2;
	int horizontal = (cols - 1) * rows, vertical = cols * (rows - 1);
	int a, b;
	if (e < horizontal) {
		int y = e / (cols - 1), x = e % (cols - 1);
		a = y * cols + x;
		b = a + 1;
	} else if (e < horizontal + vertical) {
		a = e - horizontal;
		b = a + cols;
	} else {
		int d = e - horizontal - vertical; // two per cell
		int cell = d / 2, y = cell / (cols - 1), x = cell % (cols - 1);
		a = y * cols + x + ((d & 1) == 1 ? 1 : 0);
		b = (d & 1) == 1 ? a + cols - 1 : a + cols + 1;
	}
	float restLength = distance(clothRest[a].xyz, clothRest[b].xyz);
	float strain = restLength > 0.0 ? distance(clothPos[a].xyz, clothPos[b].xyz) / restLength - 1.0 : 0.0;
	vColor = StrainRamp(strain / RD_NODES_STRAIN_FULL);
	int me = (gl_VertexIndex & 1) == 0 ? a : b;
	vec3 world = draw.transform.xyz + clothPos[me].xyz;
	gl_Position = scene.viewProj * vec4(world, 1.0);
	gl_Position.z -= draw.material.z * gl_Position.w;
}
