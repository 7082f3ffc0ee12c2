// The structure-of-arrays kernel's stages, written once against the wide float of cpu_wide.h:
// cpu_soa.c includes this file once per width (16, 8, 1), each time after defining WF_WIDTH and,
// for the loops' remainders, WF_WIDTH_REST (the narrower width already included; 0: none).
// Each lane does what the scalar loops do, in their order (no FMA: -ffp-contract=off), so every
// width gives the scalar solver's bits (soa_matches_scalar_bitwise, soa_widths_hash_scalar).
#include "cpu_wide.h"

#define WF_REST(name) WF_WIDE_PASTE(name, WF_WIDTH_REST)

// A block of constraints in three steps: measure (the loads, the lengths, which lanes move),
// the multiplier (lambda's update, the two divisions) and the move (the position updates).
// Where WF_SOA_PIPELINE is 1 (16 lanes: 32 registers) the loop measures block k + 1 and finds its
// multiplier before it moves block k, so the long dependent chain of one block overlaps the next
// block's (the blocks of one call touch no common particle, so loading k + 1 before storing k is
// safe), and the move loads the positions again. Elsewhere (8 lanes: 16 registers, where the
// pipelined loop spilled: 35 % more instructions, the frame 8 % slower) block after block, the
// move taking the positions the measure loaded, and a block whose lanes all move (no pinned pair,
// no zero length, no lane another block solves: the common case) stores without blends where a
// masked store is a blend.
#define SoaBlockW WF_W(SoaBlockLanes)
typedef struct SoaBlockW {
	wfFloatW xa, ya, za, xb, yb, zb; // the two ends' positions
	wfFloatW dx, dy, dz, aw, bw, len;
	wfFloatW lam, num, den; // lambda (0 on the first iteration), len - rest + at lambda, wsum + at
	wfFloatW sa, sb;        // the ends' scales of d (the multiplier's output)
	wfMaskW valid;          // the lanes that move their particles
	int32_t a, b;
} SoaBlockW;

// A lane is valid where the scalar loop does not skip its constraint (wsum != 0, len >=
// WF_MIN_LENGTH) and the block solves it (`live`: not a lane the block before solved, not past the
// run's end). On the first iteration of a substep lambda is 0 (the scalar solver clears it), so it
// is neither loaded nor cleared: at * 0 = +0, and (len - rest) + 0 is len - rest, which is never -0.
WF_TARGET_W WF_WIDE_INLINE void WF_W(SoaMeasure)(SoaBlockW* f, const float* restrict x, const float* restrict y, const float* restrict z,
	const float* restrict w, const float* restrict restLane, const float* restrict lambdaLane, SoaBlock q, const float* alphaTilde,
	const bool first, const bool tail)
{
	const wfFloatW zero = wfZeroW();
	const wfMaskW live = tail ? wfMaskFromBitsW(q.live) : wfTrueW();
	f->a = q.a;
	f->b = q.b;
	f->aw = wfLoadLiveW(w + q.a, live);
	f->bw = wfLoadLiveW(w + q.b, live);
	const wfFloatW at = wfSetW(alphaTilde[q.family]);
	const wfFloatW wsum = wfAddW(f->aw, f->bw);
	f->xa = wfLoadLiveW(x + q.a, live);
	f->ya = wfLoadLiveW(y + q.a, live);
	f->za = wfLoadLiveW(z + q.a, live);
	f->xb = wfLoadLiveW(x + q.b, live);
	f->yb = wfLoadLiveW(y + q.b, live);
	f->zb = wfLoadLiveW(z + q.b, live);
	f->dx = wfSubW(f->xa, f->xb);
	f->dy = wfSubW(f->ya, f->yb);
	f->dz = wfSubW(f->za, f->zb);
	const wfFloatW len2 = wfAddW(wfAddW(wfMulW(f->dx, f->dx), wfMulW(f->dy, f->dy)), wfMulW(f->dz, f->dz));
	f->len = wfSqrtW(len2);
	f->valid = wfMaskAndW(wfNotEqualW(wsum, zero), wfNotLessW(f->len, wfSetW(WF_MIN_LENGTH)));
	if (tail)
		f->valid = wfMaskAndW(live, f->valid);
	// dl = -(len - rest + at * lambda) / (wsum + at)
	f->lam = zero;
	f->num = wfSubW(f->len, wfLoadAlignedW(restLane));
	if (!first) {
		f->lam = wfLoadAlignedW(lambdaLane);
		f->num = wfAddW(f->num, wfMulW(at, f->lam));
	}
	f->den = wfAddW(wsum, at);
}

// lambda += dl (the new lambda is 0 + dl on the first iteration, as the scalar `lambda += dl`
// makes it) and the ends' scales; with `whole` every lane is valid, else the others get dl = 0 and
// keep their lambda.
WF_TARGET_W WF_WIDE_INLINE void WF_W(SoaMultiplier)(SoaBlockW* f, float* restrict lambdaLane, const bool first, const bool whole)
{
	const wfFloatW neg = wfNegW(f->num);
	wfFloatW sc;
	if (whole) {
		const wfFloatW dl = wfDivW(neg, f->den);
		wfStoreAlignedW(lambdaLane, wfAddW(f->lam, dl));
		sc = wfDivW(dl, f->len);
	} else {
		const wfFloatW dl = wfDivWhereW(f->valid, neg, f->den);
		wfStoreAlignedW(lambdaLane, first ? wfAddW(f->lam, dl) : wfAddWhereW(f->valid, f->lam, dl));
		sc = wfDivWhereW(f->valid, dl, f->len);
	}
	f->sa = wfMulW(sc, f->aw);
	f->sb = wfMulW(sc, f->bw);
}

// One end's new values (nx, ny, nz) at lanes `at`: all of them (`whole`) or the valid ones, the
// others keeping (ox, oy, oz).
WF_TARGET_W WF_WIDE_INLINE void WF_W(SoaStoreEnd)(float* restrict x, float* restrict y, float* restrict z, const int at,
	const wfMaskW valid, const bool whole, const wfFloatW nx, const wfFloatW ny, const wfFloatW nz, const wfFloatW ox, const wfFloatW oy,
	const wfFloatW oz)
{
	if (whole) {
		wfStoreW(x + at, nx);
		wfStoreW(y + at, ny);
		wfStoreW(z + at, nz);
		return;
	}
	wfStoreWhereW(x + at, valid, nx, ox);
	wfStoreWhereW(y + at, valid, ny, oy);
	wfStoreWhereW(z + at, valid, nz, oz);
}

// x_a += sa d, x_b -= sb d in the valid lanes (pipelined, the positions loaded again: nothing wrote
// them since); with `moves` (WF_VELOCITY_MOVES) each move into the end's velocity too (wfCpuMoved).
WF_TARGET_W WF_WIDE_INLINE void WF_W(SoaMove)(float* restrict x, float* restrict y, float* restrict z, float* restrict vx,
	float* restrict vy, float* restrict vz, float invH, const SoaBlockW* f, const bool whole, const bool moves)
{
	const bool again = WF_SOA_PIPELINE;
	const wfFloatW xa = again ? wfLoadLiveW(x + f->a, f->valid) : f->xa, ya = again ? wfLoadLiveW(y + f->a, f->valid) : f->ya;
	const wfFloatW za = again ? wfLoadLiveW(z + f->a, f->valid) : f->za, xb = again ? wfLoadLiveW(x + f->b, f->valid) : f->xb;
	const wfFloatW yb = again ? wfLoadLiveW(y + f->b, f->valid) : f->yb, zb = again ? wfLoadLiveW(z + f->b, f->valid) : f->zb;
	const wfFloatW max = wfMulW(f->sa, f->dx), may = wfMulW(f->sa, f->dy), maz = wfMulW(f->sa, f->dz);
	const wfFloatW mbx = wfMulW(f->sb, f->dx), mby = wfMulW(f->sb, f->dy), mbz = wfMulW(f->sb, f->dz);
	WF_W(SoaStoreEnd)(x, y, z, f->a, f->valid, whole, wfAddW(xa, max), wfAddW(ya, may), wfAddW(za, maz), xa, ya, za);
	WF_W(SoaStoreEnd)(x, y, z, f->b, f->valid, whole, wfSubW(xb, mbx), wfSubW(yb, mby), wfSubW(zb, mbz), xb, yb, zb);
	if (!moves)
		return;
	// The moves into the velocities (wfCpuMoved): v_a += m_a invH, v_b -= m_b invH.
	const wfFloatW ih = wfSetW(invH);
	const wfFloatW vxa = wfLoadLiveW(vx + f->a, f->valid), vya = wfLoadLiveW(vy + f->a, f->valid), vza = wfLoadLiveW(vz + f->a, f->valid);
	const wfFloatW vxb = wfLoadLiveW(vx + f->b, f->valid), vyb = wfLoadLiveW(vy + f->b, f->valid), vzb = wfLoadLiveW(vz + f->b, f->valid);
	WF_W(SoaStoreEnd)
	(vx, vy, vz, f->a, f->valid, whole, wfAddW(vxa, wfMulW(max, ih)), wfAddW(vya, wfMulW(may, ih)), wfAddW(vza, wfMulW(maz, ih)), vxa, vya,
		vza);
	WF_W(SoaStoreEnd)
	(vx, vy, vz, f->b, f->valid, whole, wfSubW(vxb, wfMulW(mbx, ih)), wfSubW(vyb, wfMulW(mby, ih)), wfSubW(vzb, wfMulW(mbz, ih)), vxb, vyb,
		vzb);
}

// Constraint blocks [b0, b1), one loop per kind (first iteration or not, whole or last blocks of
// their runs) so that no block tests what is the same for all of them.
#define WF_SOA_MEASURE(F, K, FIRST, TAIL) \
	WF_W(SoaMeasure)(F, x, y, z, w, rest + WF_WIDTH * (size_t)(K), lambda + WF_WIDTH * (size_t)(K), block[K], alphaTilde, FIRST, TAIL)
#define WF_SOA_LOOP(FIRST, TAIL) \
	do { \
		SoaBlockW f, g; \
		if (!WF_SOA_PIPELINE) { \
			for (int k = b0; k < b1; ++k) { \
				WF_SOA_MEASURE(&f, k, FIRST, TAIL); \
				if (WF_WIDE_BLENDS && wfAllW(f.valid)) { \
					WF_W(SoaMultiplier)(&f, lambda + WF_WIDTH * (size_t)k, FIRST, true); \
					WF_W(SoaMove)(x, y, z, vx, vy, vz, invH, &f, true, moves); \
				} else { \
					WF_W(SoaMultiplier)(&f, lambda + WF_WIDTH * (size_t)k, FIRST, false); \
					WF_W(SoaMove)(x, y, z, vx, vy, vz, invH, &f, false, moves); \
				} \
			} \
			break; \
		} \
		WF_SOA_MEASURE(&f, b0, FIRST, TAIL); \
		WF_W(SoaMultiplier)(&f, lambda + WF_WIDTH * (size_t)b0, FIRST, false); \
		for (int k = b0; k + 1 < b1; ++k) { \
			WF_SOA_MEASURE(&g, k + 1, FIRST, TAIL); \
			WF_W(SoaMultiplier)(&g, lambda + WF_WIDTH * (size_t)(k + 1), FIRST, false); \
			WF_W(SoaMove)(x, y, z, vx, vy, vz, invH, &f, false, moves); \
			f = g; \
		} \
		WF_W(SoaMove)(x, y, z, vx, vy, vz, invH, &f, false, moves); \
	} while (0)
WF_TARGET_W static void WF_W(SolveBlocks)(wfCpuSoa* s, int b0, int b1, const float* alphaTilde, bool first, bool tail)
{
	float* restrict x = s->x, * restrict y = s->y, * restrict z = s->z;
	float* restrict vx = s->vx, * restrict vy = s->vy, * restrict vz = s->vz;
	const float invH = s->invH;
	const bool moves = s->moves;
	const float* restrict w = s->w;
	const SoaBlock* restrict block = s->block;
	const float* restrict rest = s->rest;
	float* restrict lambda = s->lambda;
	if (b0 >= b1)
		return;
	if (first && !tail)
		WF_SOA_LOOP(true, false);
	else if (first)
		WF_SOA_LOOP(true, true);
	else if (!tail)
		WF_SOA_LOOP(false, false);
	else
		WF_SOA_LOOP(false, true);
}
#undef WF_SOA_LOOP
#undef WF_SOA_MEASURE

// Predict over slots [i0, i1) with a uniform acceleration a (wfCpuPredict's loop: p = x, v = v / k +
// h a, x += h v; particles with w = 0 keep both; p only for WF_VELOCITY_POSITIONS: with moves the
// finish reads the velocity the moves left). Without damping the divisor k = 1 + h w 0 is exactly 1
// (h w is finite: masses are at least 1e-9 kg), and a division by 1 returns its dividend, so the
// loop leaves the divisions out (one loop each way: `damped` is a constant).
WF_TARGET_W WF_WIDE_INLINE int WF_W(PredictLoop)(wfCpuSoa* s, int i0, int i1, float h, float damping, wfVec3 a, const bool damped)
{
	const wfFloatW hv = wfSetW(h), dv = wfSetW(damping), one = wfSetW(1.0f), zero = wfZeroW();
	const wfFloatW hx = wfSetW(h * a.x), hy = wfSetW(h * a.y), hz = wfSetW(h * a.z);
	float* restrict xs = s->x, * restrict ys = s->y, * restrict zs = s->z;
	float* restrict pxs = s->px, * restrict pys = s->py, * restrict pzs = s->pz;
	float* restrict vxs = s->vx, * restrict vys = s->vy, * restrict vzs = s->vz;
	const float* restrict ws = s->w;
	const bool start = !s->moves;
	int i = i0;
	for (; i + WF_WIDTH <= i1; i += WF_WIDTH) {
		const wfFloatW x = wfLoadW(xs + i), y = wfLoadW(ys + i), z = wfLoadW(zs + i);
		const wfFloatW w = wfLoadW(ws + i);
		if (start) {
			wfStoreW(pxs + i, x);
			wfStoreW(pys + i, y);
			wfStoreW(pzs + i, z);
		}
		const wfMaskW dynamic = wfNotEqualW(w, zero);
		const wfFloatW vx = wfLoadW(vxs + i), vy = wfLoadW(vys + i), vz = wfLoadW(vzs + i);
		wfFloatW nvx = vx, nvy = vy, nvz = vz;
		if (damped) {
			const wfFloatW k = wfAddW(one, wfMulW(wfMulW(hv, w), dv)); // 1 + h w d
			nvx = wfDivW(nvx, k);
			nvy = wfDivW(nvy, k);
			nvz = wfDivW(nvz, k);
		}
		nvx = wfAddW(nvx, hx);
		nvy = wfAddW(nvy, hy);
		nvz = wfAddW(nvz, hz);
		wfStoreWhereW(vxs + i, dynamic, nvx, vx);
		wfStoreWhereW(vys + i, dynamic, nvy, vy);
		wfStoreWhereW(vzs + i, dynamic, nvz, vz);
		wfStoreWhereW(xs + i, dynamic, wfAddW(x, wfMulW(hv, nvx)), x);
		wfStoreWhereW(ys + i, dynamic, wfAddW(y, wfMulW(hv, nvy)), y);
		wfStoreWhereW(zs + i, dynamic, wfAddW(z, wfMulW(hv, nvz)), z);
	}
	return i;
}

WF_TARGET_W static void WF_W(Predict)(wfCpuSoa* s, int i0, int i1, float h, float damping, wfVec3 a)
{
	const int i = damping != 0.0f ? WF_W(PredictLoop)(s, i0, i1, h, damping, a, true) : WF_W(PredictLoop)(s, i0, i1, h, damping, a, false);
#if WF_WIDTH_REST
	WF_REST(Predict)(s, i, i1, h, damping, a);
#else
	(void)i;
#endif
}

// v = factor v over slots [i0, i1) (WF_VELOCITY_MOVES; factor (x - p) for positions; 0 where w =
// 0), then the collisions (wfCpuFinish's loop). The spheres' and planes' first tests (wfCpuMayTouch)
// are done a vector at a time with the scalar expressions; a particle that may touch anything goes
// through the scalar routine, which repeats them.
WF_TARGET_W static void WF_W(Finish)(wfCpuSoa* s, const wfCpuColliders* k, int i0, int i1, float factor)
{
	const wfFloatW f = wfSetW(factor), zero = wfZeroW();
	// The pretest's shapes as vectors, once a call: the first sphere and the first plane whose
	// normal is (0, 1, 0) (the world's sphere and floor) in registers, that plane by its height y
	// alone, which compares as x 0 + y 1 + z 0 does (an x or z that is not finite only sends the
	// particle to the exact routine); the other spheres and planes in a list.
	bool sphere = false, floor = false;
	wfFloatW sx = zero, sy = zero, sz = zero, sphereReach = zero, floorReach = zero;
	int others = 0, other[WF_MAX_SHAPES];
	for (int q = 0; k->any && k->pretested && q < k->shapeCount; ++q) {
		const wfShape* shape = &k->shapes[q];
		if (shape->type == WF_COLLIDER_SPHERE && !sphere) {
			sphere = true;
			sx = wfSetW(shape->center.x), sy = wfSetW(shape->center.y), sz = wfSetW(shape->center.z);
			sphereReach = wfSetW(k->reach[q]);
		} else if (shape->type != WF_COLLIDER_SPHERE && !floor && shape->axes[3] == 0.0f && shape->axes[4] == 1.0f &&
			shape->axes[5] == 0.0f) {
			floor = true;
			floorReach = wfSetW(k->reach[q]);
		} else {
			other[others++] = q;
		}
	}
	int i = i0;
	for (; i + WF_WIDTH <= i1; i += WF_WIDTH) {
		const wfFloatW x = wfLoadW(s->x + i), y = wfLoadW(s->y + i), z = wfLoadW(s->z + i);
		const wfMaskW dynamic = wfNotEqualW(wfLoadW(s->w + i), zero);
		if (s->moves) {
			wfStoreW(s->vx + i, wfMulWhereW(dynamic, wfLoadW(s->vx + i), f));
			wfStoreW(s->vy + i, wfMulWhereW(dynamic, wfLoadW(s->vy + i), f));
			wfStoreW(s->vz + i, wfMulWhereW(dynamic, wfLoadW(s->vz + i), f));
		} else {
			wfStoreW(s->vx + i, wfMulWhereW(dynamic, wfSubW(x, wfLoadW(s->px + i)), f));
			wfStoreW(s->vy + i, wfMulWhereW(dynamic, wfSubW(y, wfLoadW(s->py + i)), f));
			wfStoreW(s->vz + i, wfMulWhereW(dynamic, wfSubW(z, wfLoadW(s->pz + i)), f));
		}
		if (!k->any)
			continue;
		wfMaskW hit = k->pretested ? wfFalseW() : wfTrueW();
		if (sphere) {
			const wfFloatW dx = wfSubW(x, sx), dy = wfSubW(y, sy), dz = wfSubW(z, sz);
			const wfFloatW d2 = wfAddW(wfAddW(wfMulW(dx, dx), wfMulW(dy, dy)), wfMulW(dz, dz));
			hit = wfMaskOrW(hit, wfLessW(d2, sphereReach));
		}
		if (floor)
			hit = wfMaskOrW(hit, wfLessW(y, floorReach));
		for (int o = 0; o < others; ++o) {
			const wfShape* shape = &k->shapes[other[o]];
			const wfFloatW reach = wfSetW(k->reach[other[o]]);
			if (shape->type == WF_COLLIDER_SPHERE) {
				const wfFloatW dx = wfSubW(x, wfSetW(shape->center.x)), dy = wfSubW(y, wfSetW(shape->center.y)),
							   dz = wfSubW(z, wfSetW(shape->center.z));
				const wfFloatW d2 = wfAddW(wfAddW(wfMulW(dx, dx), wfMulW(dy, dy)), wfMulW(dz, dz));
				hit = wfMaskOrW(hit, wfLessW(d2, reach));
			} else {
				const wfFloatW height = wfAddW(wfAddW(wfMulW(x, wfSetW(shape->axes[3])), wfMulW(y, wfSetW(shape->axes[4]))),
					wfMulW(z, wfSetW(shape->axes[5])));
				hit = wfMaskOrW(hit, wfLessW(height, reach));
			}
		}
		for (unsigned bits = wfMaskBitsW(wfMaskAndW(hit, dynamic)); bits != 0; bits &= bits - 1)
			CollideSlot(s, k, i + __builtin_ctz(bits));
	}
#if WF_WIDTH_REST
	WF_REST(Finish)(s, k, i, i1, factor);
#endif
}

#undef WF_REST
