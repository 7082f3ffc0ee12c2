// End of an XPBD or Jacobi substep: v = f v (kMoves: f 1, or Jacobi's retention; v the velocity
// the substep's moves left, wfCpuMoved) or v = f (x - p) (f 1/h or retention/h), then collide
// (finish.comp). Built with WF_FINISH_SELF (finish_self.comp) the self-collision pass's push
// (contact_gather.comp, in set 1) is added to x (and with kMoves its velocity) first, as the CPU's
// wfCpuSelfCollide moves the particles before wfCpuFinish. Two pipelines, because a kernel that names set 1 at all needs it
// bound, and worlds without contacts have none.
#include "common.glsl"

void main()
{
	uint i = WfElement();
	if (i == 0xffffffffu)
		return;
	vec4 x = pos[i];
	if (x.w == 0.0) {
		vel[i] = vec4(0.0);
		return;
	}
	bool moved = false;
	vec4 u = kMoves ? vel[i] : vec4(0.0);
#ifdef WF_FINISH_SELF
	const vec4 m = delta[i];
	if (m.w != 0.0) {
		precise vec4 y = vec4(x.x + m.x, x.y + m.y, x.z + m.z, x.w);
		x = y;
		if (kMoves)
			WfMoved(u, m.xyz, P.invH);
		moved = true;
	}
#endif
	precise vec4 v;
	if (kMoves) {
		float f = P.velScale;
		v = vec4(u.x * f, u.y * f, u.z * f, 0.0);
	} else {
		vec4 p = prev[i];
		float f = P.velFactor;
		v = vec4((x.x - p.x) * f, (x.y - p.y) * f, (x.z - p.z) * f, 0.0);
	}
	if ((P.flags & (WF_GPU_FLAG_SPHERE | WF_GPU_FLAG_FLOOR)) != 0u || P.shapeCount > 0u) {
		WfCollide(x, v, pc.substep);
		moved = true;
	}
	if (moved)
		pos[i] = x;
	vel[i] = v;
}
