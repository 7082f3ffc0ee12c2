// The averaged Jacobi sweep written once against the wide float of cpu_wide.h: cpu_jacobi.c
// includes this file once per width (16, 8 or 4, and 1), each time after defining WF_WIDTH.
// Lanes are consecutive particles; each gathers its own constraints (the padded adjacency of
// wfCpuJacobi) in ascending constraint order and performs the operations the scalar scatter
// (wfCpuJacobiRangeScalar, then Sweep's update) performs for that particle, in their order, so
// every width gives the scalar solver's bits (jacobi_widths_hash_scalar).
#include "cpu_wide.h"

// Particles [i0, i1) (multiples of WF_WIDTH) from the buffer `from` into the other one:
//   acc_i = sum over i's constraints (ascending) of c_ij f_i (|d| - l) / |d| d,  d = x_j - x_i
//   x_i  += s_i acc_i (w_i != 0), s_i = s / deg(i) (degree) or s (symmetric), and with `moves`
//   (WF_VELOCITY_MOVES) the move s_i acc_i times invH into v_i (wfCpuMoved)
// The correction on i of constraint (a, b) is the scalar one on its end i: d here is exactly the
// negated d of the other end (x_a - x_b = -(x_b - x_a) in IEEE arithmetic), and the squares, the
// length and f_i = 2 w_i / (w_i + w_j) do not depend on which end is first. Padding slots name
// the particle itself: their length is 0, below WF_MIN_LENGTH, so they add nothing, as the
// scalar loop skips a constraint of zero length.
WF_TARGET_W static void WF_W(
	JacobiSweep)(const wfCpuJacobi* g, int from, int i0, int i1, float s, float invH, bool moves, bool pinFactor, bool byDegree)
{
	const float* restrict sx = g->x[from];
	const float* restrict sy = g->y[from];
	const float* restrict sz = g->z[from];
	float* restrict tx = g->x[from ^ 1];
	float* restrict ty = g->y[from ^ 1];
	float* restrict tz = g->z[from ^ 1];
	const size_t stride = (size_t)g->adj.count;
	const wfFloatW zero = wfZeroW(), two = wfSetW(2.0f), tiny = wfSetW(WF_MIN_LENGTH), relax = wfSetW(s), ih = wfSetW(invH);
	for (int i = i0; i < i1; i += WF_WIDTH) {
		const wfFloatW xi = wfLoadW(sx + i), yi = wfLoadW(sy + i), zi = wfLoadW(sz + i), wi = wfLoadW(g->w + i);
		wfFloatW ax = zero, ay = zero, az = zero;
		// The gather: slot e of every lane, slot after slot (each lane's constraints ascending).
		for (int e = 0; e < g->adj.slots; ++e) {
			const size_t at = (size_t)e * stride + (size_t)i;
			const int32_t* j = g->adj.other + at;
			const wfFloatW dx = wfSubW(wfGatherW(sx, j), xi), dy = wfSubW(wfGatherW(sy, j), yi), dz = wfSubW(wfGatherW(sz, j), zi);
			const wfFloatW len = wfSqrtW(wfAddW(wfAddW(wfMulW(dx, dx), wfMulW(dy, dy)), wfMulW(dz, dz)));
			const wfMaskW live = wfNotLessW(len, tiny); // the scalar loop's `len < WF_MIN_LENGTH` skip
			wfFloatW c = wfLoadW(g->weight + at);
			if (pinFactor)
				c = wfMulW(c, wfDivW(wfMulW(two, wi), wfAddW(wi, wfGatherW(g->w, j))));
			const wfFloatW gi = wfDivW(wfMulW(c, wfSubW(len, wfLoadW(g->adj.rest + at))), len);
			ax = wfAddWhereW(live, ax, wfMulW(gi, dx));
			ay = wfAddWhereW(live, ay, wfMulW(gi, dy));
			az = wfAddWhereW(live, az, wfMulW(gi, dz));
		}
		// The relaxed, averaged step; pinned particles keep their place.
		const wfFloatW si = byDegree ? wfDivWhereW(wfLessW(zero, wfLoadW(g->degree + i)), relax, wfLoadW(g->degree + i)) : relax;
		const wfMaskW dynamic = wfNotEqualW(wi, zero);
		const wfFloatW mx = wfMulW(si, ax), my = wfMulW(si, ay), mz = wfMulW(si, az);
		wfStoreW(tx + i, wfAddWhereW(dynamic, xi, mx));
		wfStoreW(ty + i, wfAddWhereW(dynamic, yi, my));
		wfStoreW(tz + i, wfAddWhereW(dynamic, zi, mz));
		if (!moves)
			continue;
		wfStoreW(g->vx + i, wfAddWhereW(dynamic, wfLoadW(g->vx + i), wfMulW(mx, ih)));
		wfStoreW(g->vy + i, wfAddWhereW(dynamic, wfLoadW(g->vy + i), wfMulW(my, ih)));
		wfStoreW(g->vz + i, wfAddWhereW(dynamic, wfLoadW(g->vz + i), wfMulW(mz, ih)));
	}
}
