#version 450
// One explicit mass-spring substep (cpu_springs.c): reads (pos, vel), writes (posAlt, velAlt),
// semi-implicit Euler, then the collision of the written particle (fused: it is per particle).
#include "common.glsl"

void main()
{
	uint i = WfElement();
	if (i == 0xffffffffu)
		return;
	vec4 xi = pos[i], vi = vel[i];
	if (xi.w == 0.0) {
		posAlt[i] = int(i) == P.grabIndex ? vec4(P.grabTarget.xyz, 0.0) : xi;
		velAlt[i] = vec4(0.0);
		return;
	}
	vec3 a = WfExternalAccel(pc.substep, i % P.cols, xi.w);
	float mass = P.mass, k = P.stiffness, damping = P.springDamping, h = P.h;
	precise float fx = mass * a.x, fy = mass * a.y, fz = mass * a.z;
	int end = adjStart[i + 1];
	for (int e = adjStart[i]; e < end; ++e) {
		uint j = adjOther[e];
		vec4 xj = pos[j], vj = vel[j];
		precise float dx = xj.x - xi.x, dy = xj.y - xi.y, dz = xj.z - xi.z;
		precise float len = sqrt(dx * dx + dy * dy + dz * dz);
		if (len < 1e-12)
			continue;
		dx /= len;
		dy /= len;
		dz /= len;
		precise float spring = k * (len - WfRest(adjConstraint[e]));
		precise float damper = damping * ((vj.x - vi.x) * dx + (vj.y - vi.y) * dy + (vj.z - vi.z) * dz);
		fx += (spring + damper) * dx;
		fy += (spring + damper) * dy;
		fz += (spring + damper) * dz;
	}
	precise vec4 v = vec4(vi.x + h * fx * xi.w, vi.y + h * fy * xi.w, vi.z + h * fz * xi.w, 0.0);
	precise vec4 x = vec4(xi.x + h * v.x, xi.y + h * v.y, xi.z + h * v.z, xi.w);
	WfCollide(x, v, pc.substep);
	posAlt[i] = x;
	velAlt[i] = v;
}
