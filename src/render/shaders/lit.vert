#version 450
// Lit surfaces (cloth, sphere, pin markers, floor): transform and pass the attributes on. A cloth's
// colour-mode scalar (speed, strain) and a pin marker's place come from the cloth's state in set 1.
#include "render_shared.h"

#ifdef RD_PULL
// The seam pipeline (a mesh cloth with UV seams): each vertex names its particle.
layout(location = RD_LOCATION_PARTICLE) in uint inParticle;
#else
layout(location = RD_LOCATION_POSITION) in vec3 inPosition;
layout(location = RD_LOCATION_NORMAL) in vec3 inNormal;
#endif
layout(location = RD_LOCATION_UV) in vec2 inUV;

layout(set = 0, binding = RD_BINDING_SCENE) uniform RdScene { RD_SCENE_FIELDS } scene;
layout(set = 1, binding = RD_CLOTH_POSITIONS) readonly buffer ClothPositions { vec4 clothPos[]; };
layout(set = 1, binding = RD_CLOTH_VELOCITIES) readonly buffer ClothVelocities { vec4 clothVel[]; };
layout(set = 1, binding = RD_CLOTH_REST) readonly buffer ClothRest { vec4 clothRest[]; };
#ifdef RD_PULL
layout(set = 1, binding = RD_CLOTH_NORMALS) readonly buffer ClothNormals { vec4 clothNormal[]; };
#endif
layout(push_constant) uniform RdDraw { RD_DRAW_FIELDS } draw;

layout(location = 0) out vec3 vWorld;
layout(location = 1) out vec3 vNormal;
layout(location = 2) out vec2 vUV;
layout(location = 3) out float vScalar;

// Signed strain of particle i: the mean of (length / rest length - 1) over its grid (structural) edges.
float Strain(int i, int cols, int rows)
{
	if (cols <= 0)
		return 0.0; // a mesh cloth: no grid neighbours to read (its strain colour is not drawn yet)
	int x = i % cols, y = i / cols;
	int neighbours[4] = int[4](x > 0 ? i - 1 : -1, x + 1 < cols ? i + 1 : -1, y > 0 ? i - cols : -1, y + 1 < rows ? i + cols : -1);
	float sum = 0.0;
	int n = 0;
	for (int k = 0; k < 4; ++k) {
		int j = neighbours[k];
		if (j < 0)
			continue;
		float restLength = distance(clothRest[i].xyz, clothRest[j].xyz);
		sum += restLength > 0.0 ? distance(clothPos[i].xyz, clothPos[j].xyz) / restLength - 1.0 : 0.0;
		n++;
	}
	return n > 0 ? sum / float(n) : 0.0;
}

void main()
{
	vec4 transform = draw.transform;
	int cols = draw.mode.y, rows = draw.mode.z;
#ifdef RD_PULL
	int particle = int(inParticle);
	vec3 inPosition = clothPos[particle].xyz, inNormal = clothNormal[particle].xyz;
#else
	int particle = gl_VertexIndex; // the cloth's vertex; a marker's or node's particle below
#endif
	if (draw.mode.w == RD_NODES_PARTICLES) {
		// The nodes view: one small sphere per particle (instance), a third of the first edge across.
		particle = gl_InstanceIndex;
		transform.xyz = draw.transform.xyz + clothPos[particle].xyz;
		float spacing = cols > 1 ? distance(clothPos[0].xyz, clothPos[1].xyz)
		              : rows > 1 ? distance(clothPos[0].xyz, clothPos[cols].xyz) : 0.05;
		transform.w = clamp(0.17 * spacing, 0.002, 0.05);
	} else if (draw.mode.w > 0) {
		// Pin marker: centred on the particle, sized from the cloth's first edge.
		transform.xyz = draw.transform.xyz + clothPos[draw.mode.w - 1].xyz; // xyz: the cloth's offset
		float spacing = cols > 1 ? distance(clothPos[0].xyz, clothPos[1].xyz)
		              : rows > 1 ? distance(clothPos[0].xyz, clothPos[cols].xyz) : 0.05;
		transform.w = clamp(0.45 * spacing, 0.01, 0.1);
	}
	vWorld = transform.xyz + transform.w * inPosition;
	vNormal = inNormal;
	if (draw.mode.w == RD_SHAPE_AXES) {
		// A box or a plane: rotation times scale; normals by its inverse transpose (axis / |axis|^2).
		vec3 ax = draw.axisX.xyz, ay = draw.axisY.xyz, az = draw.axisZ.xyz;
		vWorld = transform.xyz + ax * inPosition.x + ay * inPosition.y + az * inPosition.z;
		vNormal = normalize(ax * (inNormal.x / dot(ax, ax)) + ay * (inNormal.y / dot(ay, ay)) + az * (inNormal.z / dot(az, az)));
	}
	vUV = inUV;
	vScalar = 0.0;
	if (draw.mode.x == RD_MODE_SPEED)
		vScalar = length(clothVel[particle].xyz);
	else if (draw.mode.x == RD_MODE_STRAIN)
		vScalar = Strain(particle, cols, rows);
	gl_Position = scene.viewProj * vec4(vWorld, 1.0);
	// The cloth is pulled a hair towards the camera (about 0.1 % of the distance), so where it rests on
	// the sphere at exactly the collision radius its flat triangles do not sink into the sphere's mesh.
	gl_Position.z -= draw.material.z * gl_Position.w;
}
