#version 450
// The fused XPBD kernel (src/vulkan/shaders/fused_xpbd.comp) with parts stripped, for measurement
// only: a build with cmake -DWEFT_FUSED_PROBE=N (bench/gpu/probes.cmake) embeds it in place of the
// kernel, which then no longer simulates. The kernel's pieces, with this file's copies of Predict,
// Finish (fused_stages.glsl) and Substep (fused_xpbd.comp), which WF_FUSED_PROBE cuts down:
//   1: no projections; 2: no record fetches either; 3: only the colour loop's barriers;
//   4: no collision response; 5: nor the substep's acceleration record (gravity only).
// With WF_FUSED_PROBE 0 this file gives the kernel's SPIR-V word for word, which every probe build
// checks; when the kernel's Predict, Finish or Substep change, copy them here again.
#extension GL_GOOGLE_include_directive : require
#ifndef WF_FUSED_PROBE
#error WF_FUSED_PROBE: the parts to strip, 0 (none) to 5 (bench/gpu/probes.cmake)
#endif
#define WF_FUSED_XPBD 1
#include "fused.glsl"

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
#if WF_FUSED_PROBE == 5
		vec3 a = P.gravity.xyz; // probe 5: no substep record, no wind
#else
		vec3 a = WfExternalAccel(substep, i % P.cols, w);
#endif
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
#if WF_FUSED_PROBE == 4 || WF_FUSED_PROBE == 5
		collide = collide && x.x == 1e30; // probes 4, 5: no collision response (never true)
#endif
		if (collide) {
			WfCollideWith(x, v, substep, s0, s1);
			StoreX(i, x.xyz);
		}
		gV[j] = v.xyz;
	}
}

#include "fused_xpbd.glsl"

void Substep(uint substep, uint iterations)
{
	if (kMoves) {
		SubstepOwner(substep, iterations);
		return;
	}
	uint t = gl_LocalInvocationID.x;
	uint colors = P.colorCount;
	gAlphaTilde = P.alphaTilde;
#if WF_FUSED_PROBE == 3
	for (uint c = 0u; c < colors * iterations; ++c)
		StateBarrier();
	return;
#endif
	Predict(substep, true);
	// The first two constraints of this invocation in colour 0. A colour's constraints share no
	// particle, so a colour has at most n / 2 <= 2 G of them: both fetches cover every colour (the
	// loop after them is a safeguard that never runs).
	Fetched f0 = Fetch(sColorStart[0] + t, sColorStart[1]);
	Fetched f1 = Fetch(sColorStart[0] + t + kGroup, sColorStart[1]);
	StateBarrier();
	// Gauss-Seidel across colours: a barrier after every colour range.
	bool keepLambda = iterations > 1u;
	for (uint it = 0u; it < iterations; ++it) {
		bool first = it == 0u;
		for (uint c = 0u; c < colors; ++c) {
			uint start = sColorStart[c], end = sColorStart[c + 1u];
#if WF_FUSED_PROBE == 0
			if (start + t < end)
				Project(start + t, f0, Ends(c, 0u), first, keepLambda);
			if (start + t + kGroup < end)
				Project(start + t + kGroup, f1, Ends(c, 1u), first, keepLambda);
			for (uint k = start + t + 2u * kGroup; k < end; k += kGroup)
				Project(k, Fetch(k, end), 4u, first, keepLambda);
#endif
			// The next colour's (colour 0 again after the last).
			uint next = c + 1u < colors ? c + 1u : 0u;
			uint ns = sColorStart[next], ne = sColorStart[next + 1u];
#if WF_FUSED_PROBE <= 1
			f0 = Fetch(ns + t, ne);
			f1 = Fetch(ns + t + kGroup, ne);
#if WF_FUSED_PROBE == 1
			if (f0.q.x == 0xffffffffu || f1.q.x == 0xffffffffu) // keeps the fetches alive; never true
				StoreX(0u, vec3(0.0));
#endif
#else
			if (ns + ne == 0xffffffffu) // keeps the bounds' loads alive; never true
				StoreX(0u, vec3(0.0));
#endif
			StateBarrier();
		}
	}
	if (SelfOn())
		SelfCollide(true, kMoves);
	Finish(substep);
}

#include "fused_main.glsl"
