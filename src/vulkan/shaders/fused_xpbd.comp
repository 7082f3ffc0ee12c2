#version 450
// Fused small-cloth frame, xpbd: one workgroup steps a whole frame of one cloth (fused.glsl);
// here the substep: the owner order (kMoves) or Gauss-Seidel by colour ranges.
#extension GL_GOOGLE_include_directive : require
#define WF_FUSED_XPBD 1
#include "fused.glsl"
#include "fused_stages.glsl"
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
			if (start + t < end)
				Project(start + t, f0, Ends(c, 0u), first, keepLambda);
			if (start + t + kGroup < end)
				Project(start + t + kGroup, f1, Ends(c, 1u), first, keepLambda);
			for (uint k = start + t + 2u * kGroup; k < end; k += kGroup)
				Project(k, Fetch(k, end), 4u, first, keepLambda);
			// The next colour's (colour 0 again after the last).
			uint next = c + 1u < colors ? c + 1u : 0u;
			uint ns = sColorStart[next], ne = sColorStart[next + 1u];
			f0 = Fetch(ns + t, ne);
			f1 = Fetch(ns + t + kGroup, ne);
			StateBarrier();
		}
	}
	if (SelfOn())
		SelfCollide(true, kMoves);
	Finish(substep);
}

#include "fused_main.glsl"
