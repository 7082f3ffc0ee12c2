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
	precise vec3 a = WfExternalAccel(pc.substep, i % P.cols, xi.w);
	if ((P.flags & WF_GPU_FLAG_AERO) != 0u) {
		a.x += prev[i].x;
		a.y += prev[i].y;
		a.z += prev[i].z;
	}
	float mass = P.mass, k2 = P.stiffness, damping = P.springDamping, h = P.h;
	precise float fx = mass * a.x, fy = mass * a.y, fz = mass * a.z;
	// The neighbours in batches of WF_GATHER: every load of a batch is issued before any of its
	// values is used (indices clamped to the last neighbour, so no load is conditional), then the
	// forces are summed in adjacency order as before: the same operations in the same order.
	int first = adjStart[i], end = adjStart[i + 1];
	for (int e = first; e < end; e += WF_GATHER) {
		uint j[WF_GATHER_SLOTS], k[WF_GATHER_SLOTS];
		[[unroll]] for (int b = 0; b < WF_GATHER; ++b) {
			int at = min(e + b, end - 1);
			j[b] = adjOther[at];
			k[b] = adjConstraint[at];
		}
		vec4 xj[WF_GATHER_SLOTS], vj[WF_GATHER_SLOTS];
		float rest[WF_GATHER_SLOTS];
		[[unroll]] for (int b = 0; b < WF_GATHER; ++b) {
			xj[b] = pos[j[b]];
			vj[b] = vel[j[b]];
			rest[b] = WfRest(k[b]);
		}
		[[unroll]] for (int b = 0; b < WF_GATHER; ++b) {
			if (e + b >= end)
				break;
			precise float dx = xj[b].x - xi.x, dy = xj[b].y - xi.y, dz = xj[b].z - xi.z;
			precise float len = sqrt(dx * dx + dy * dy + dz * dz);
			if (len < WF_MIN_LENGTH)
				continue;
			dx /= len;
			dy /= len;
			dz /= len;
			precise float spring = k2 * (len - rest[b]);
			precise float damper = damping * ((vj[b].x - vi.x) * dx + (vj[b].y - vi.y) * dy + (vj[b].z - vi.z) * dz);
			fx += (spring + damper) * dx;
			fy += (spring + damper) * dy;
			fz += (spring + damper) * dz;
		}
	}
	precise vec4 v = vec4(vi.x + h * fx * xi.w, vi.y + h * fy * xi.w, vi.z + h * fz * xi.w, 0.0);
	precise vec4 x = vec4(xi.x + h * v.x, xi.y + h * v.y, xi.z + h * v.z, xi.w);
	WfCollide(x, v, pc.substep);
	posAlt[i] = x;
	velAlt[i] = v;
}
