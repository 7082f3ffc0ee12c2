// The fused kernel's first and last stage of a substep for the owned particles (fused.glsl): XPBD's
// and Jacobi's substeps start with Predict and end with Finish (springs integrate in one pass).

// predict.comp for the owned particles.
void Predict(uint substep, bool damped)
{
	uint t = gl_LocalInvocationID.x;
	float h = P.h;
	[[unroll]] for (uint j = 0u; j < kPer; ++j) {
		uint i = t + j * kGroup;
		if (i >= P.particleCount)
			break;
		vec3 x = LoadX(i);
		if (!kMoves)
			gPrev[j] = x;
		if (SelfOn())
			PREV(i) = vec4(x, gW[j]); // self-collision's friction reads every particle's
		float w = gW[j];
		if (w == 0.0) {
			if (int(i) == P.grabIndex)
				StoreX(i, P.grabTarget.xyz);
			continue;
		}
		vec3 a = WfExternalAccel(substep, i % P.cols, w);
		precise vec3 v = gV[j];
		if (damped) {
			precise float k = 1.0 + h * w * P.damping;
			v.x = v.x / k + h * a.x;
			v.y = v.y / k + h * a.y;
			v.z = v.z / k + h * a.z;
		} else {
			v.x += h * a.x;
			v.y += h * a.y;
			v.z += h * a.z;
		}
		gV[j] = v;
		precise vec3 y = vec3(x.x + h * v.x, x.y + h * v.y, x.z + h * v.z);
		StoreX(i, y);
	}
}

// finish.comp for the owned particles: v = f v (kMoves: the velocity the substep's moves left in
// gV) or v = f (x - p), then collide.
void Finish(uint substep)
{
	uint t = gl_LocalInvocationID.x;
	float f = kMoves ? P.velScale : P.velFactor;
	bool collide = (P.flags & (WF_GPU_FLAG_SPHERE | WF_GPU_FLAG_FLOOR)) != 0u || P.shapeCount > 0u;
	const WfStill s0 = WfStillAt(substep, 0u), s1 = WfStillAt(substep, 1u); // once for the owned particles
	[[unroll]] for (uint j = 0u; j < kPer; ++j) {
		uint i = t + j * kGroup;
		if (i >= P.particleCount)
			break;
		if (gW[j] == 0.0) {
			gV[j] = vec3(0.0);
			continue;
		}
		vec4 x = vec4(LoadX(i), gW[j]);
		precise vec4 v;
		if (kMoves) {
			const vec3 u = gV[j];
			v = vec4(u.x * f, u.y * f, u.z * f, 0.0);
		} else {
			const vec3 p = gPrev[j];
			v = vec4((x.x - p.x) * f, (x.y - p.y) * f, (x.z - p.z) * f, 0.0);
		}
		if (collide) {
			WfCollideWith(x, v, substep, s0, s1);
			StoreX(i, x.xyz);
		}
		gV[j] = v.xyz;
	}
}
