// The explicit springs' force gather and Euler step written once against the wide float of
// cpu_wide.h: cpu_springs.c includes this file once per width (16, 8 or 4, and 1), each time after
// defining WF_WIDTH. Lanes are consecutive particles; each gathers its own constraints (the padded
// adjacency, wfCpuAdjacency) in ascending constraint order and performs the operations the scalar
// scatter (wfCpuSpringsRangeScalar, then the substep's Euler loop) performs for that particle, in
// their order, so every width gives the scalar solver's bits (springs_widths_hash_scalar).
#include "cpu_wide.h"

// Particles [i0, i1) (multiples of WF_WIDTH) of the substep-start state into the after-step arrays:
//   f_i  = f_ext,i + sum over i's constraints (a, b) (ascending) of +-(k (|d| - l) + c (v_b - v_a) . u) u,
//          d = x_b - x_a, u = d / |d|, + on the end a, - on the end b
//   v_i' = v_i + h f_i w_i,  x_i' = x_i + h v_i'
// The lane takes the constraint's ends in the constraint's order (`second`: the lane is its end b),
// so d, v_b - v_a and u are the scatter's own, and the end b adds f * -u as the scatter does.
// Padding slots name the particle itself: their length is 0, below WF_MIN_LENGTH, so they add
// nothing, as the scalar loop skips a constraint of zero length. Pinned lanes are computed too; the
// caller keeps them in place.
WF_TARGET_W static void WF_W(SpringsStep)(const wfCpuSprings* g, int i0, int i1, float k, float damping, float h)
{
	const size_t stride = (size_t)g->adj.count;
	const wfFloatW zero = wfZeroW(), tiny = wfSetW(WF_MIN_LENGTH), kk = wfSetW(k), cc = wfSetW(damping), hh = wfSetW(h);
	for (int i = i0; i < i1; i += WF_WIDTH) {
		wfFloatW xi, yi, zi, wi, vxi, vyi, vzi, vwi;
		wfGatherQuadW(g->pos, g->self + i, &xi, &yi, &zi, &wi);
		wfGatherQuadW(g->vel, g->self + i, &vxi, &vyi, &vzi, &vwi);
		wfFloatW fx = wfLoadW(g->fx + i), fy = wfLoadW(g->fy + i), fz = wfLoadW(g->fz + i);
		// The gather: slot e of every lane, slot after slot (each lane's constraints ascending).
		for (int e = 0; e < g->adj.slots; ++e) {
			const size_t at = (size_t)e * stride + (size_t)i;
			const int32_t* j = g->adj.other + at;
			const wfMaskW second = wfNotEqualW(wfLoadW(g->second + at), zero);
			// The other ends' records (x, y, z, w and the velocity), one 16-byte load each.
			wfFloatW xj, yj, zj, wj, vxj, vyj, vzj, vwj;
			wfGatherQuadW(g->pos, j, &xj, &yj, &zj, &wj);
			wfGatherQuadW(g->vel, j, &vxj, &vyj, &vzj, &vwj);
			const wfFloatW dx = wfSubW(wfSelectW(second, xi, xj), wfSelectW(second, xj, xi));
			const wfFloatW dy = wfSubW(wfSelectW(second, yi, yj), wfSelectW(second, yj, yi));
			const wfFloatW dz = wfSubW(wfSelectW(second, zi, zj), wfSelectW(second, zj, zi));
			const wfFloatW len = wfSqrtW(wfAddW(wfAddW(wfMulW(dx, dx), wfMulW(dy, dy)), wfMulW(dz, dz)));
			const wfMaskW live = wfNotLessW(len, tiny); // the scalar loop's `len < WF_MIN_LENGTH` skip
			const wfFloatW ux = wfDivW(dx, len), uy = wfDivW(dy, len), uz = wfDivW(dz, len);
			const wfFloatW spring = wfMulW(kk, wfSubW(len, wfLoadW(g->adj.rest + at)));
			const wfFloatW rx = wfSubW(wfSelectW(second, vxi, vxj), wfSelectW(second, vxj, vxi));
			const wfFloatW ry = wfSubW(wfSelectW(second, vyi, vyj), wfSelectW(second, vyj, vyi));
			const wfFloatW rz = wfSubW(wfSelectW(second, vzi, vzj), wfSelectW(second, vzj, vzi));
			const wfFloatW damper = wfMulW(cc, wfAddW(wfAddW(wfMulW(rx, ux), wfMulW(ry, uy)), wfMulW(rz, uz)));
			const wfFloatW f = wfAddW(spring, damper);
			fx = wfAddWhereW(live, fx, wfMulW(f, wfSelectW(second, wfNegW(ux), ux)));
			fy = wfAddWhereW(live, fy, wfMulW(f, wfSelectW(second, wfNegW(uy), uy)));
			fz = wfAddWhereW(live, fz, wfMulW(f, wfSelectW(second, wfNegW(uz), uz)));
		}
		// Semi-implicit Euler: the velocity from the force, the position from the new velocity.
		const wfFloatW nvx = wfAddW(vxi, wfMulW(wfMulW(hh, fx), wi));
		const wfFloatW nvy = wfAddW(vyi, wfMulW(wfMulW(hh, fy), wi));
		const wfFloatW nvz = wfAddW(vzi, wfMulW(wfMulW(hh, fz), wi));
		wfStoreW(g->ovx + i, nvx);
		wfStoreW(g->ovy + i, nvy);
		wfStoreW(g->ovz + i, nvz);
		wfStoreW(g->ox + i, wfAddW(xi, wfMulW(hh, nvx)));
		wfStoreW(g->oy + i, wfAddW(yi, wfMulW(hh, nvy)));
		wfStoreW(g->oz + i, wfAddW(zi, wfMulW(hh, nvz)));
	}
}
