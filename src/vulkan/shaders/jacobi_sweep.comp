#version 450
// One averaged Jacobi sweep (cpu_jacobi.c): every particle gathers the corrections of its
// constraints from pos into posAlt. Descriptor set variants swap the two buffers.
#include "common.glsl"

void main()
{
	uint i = WfElement();
	if (i == 0xffffffffu)
		return;
	vec4 xi = pos[i];
	if (xi.w == 0.0) {
		posAlt[i] = xi;
		return;
	}
	precise float cx = 0.0, cy = 0.0, cz = 0.0;
	int end = adjStart[i + 1];
	for (int e = adjStart[i]; e < end; ++e) {
		uint k = adjConstraint[e];
		vec4 xj = pos[adjOther[e]];
		precise float dx = xj.x - xi.x, dy = xj.y - xi.y, dz = xj.z - xi.z;
		precise float len = sqrt(dx * dx + dy * dy + dz * dz);
		if (len < 1e-12)
			continue;
		precise float f = 2.0 * xi.w / (xi.w + xj.w);
		precise float g = jacobiWeight[k] * f * (len - WfRest(k)) / len;
		cx += g * dx;
		cy += g * dy;
		cz += g * dz;
	}
	float s = P.relaxation;
	precise vec4 y = vec4(xi.x + s * cx, xi.y + s * cy, xi.z + s * cz, xi.w);
	posAlt[i] = y;
}
