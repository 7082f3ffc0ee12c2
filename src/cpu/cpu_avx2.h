// AVX2 helpers shared by the record-order kernels (cpu_simd.c) and the structure-of-arrays frame
// (cpu_soa.c). x86-64 with GCC or Clang only; include inside that test.
#ifndef WEFT_CPU_AVX2_H
#define WEFT_CPU_AVX2_H

#include <immintrin.h>

#define WF_TARGET_AVX2 __attribute__((target("avx2")))

// Loads eight 16-byte records (p[l] for lane l) and transposes them into four lane vectors.
// Gathers are avoided: on recent Intel parts with the gather microcode fix they cost more
// than 128-bit loads and shuffles.
WF_TARGET_AVX2 static inline void Load8(const float* const p[8], __m256* X, __m256* Y, __m256* Z, __m256* W)
{
	__m256 r0 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(p[0])), _mm_load_ps(p[4]), 1);
	__m256 r1 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(p[1])), _mm_load_ps(p[5]), 1);
	__m256 r2 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(p[2])), _mm_load_ps(p[6]), 1);
	__m256 r3 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(p[3])), _mm_load_ps(p[7]), 1);
	__m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
	__m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
	*X = _mm256_shuffle_ps(t0, t2, 0x44);
	*Y = _mm256_shuffle_ps(t0, t2, 0xEE);
	*Z = _mm256_shuffle_ps(t1, t3, 0x44);
	*W = _mm256_shuffle_ps(t1, t3, 0xEE);
}

// The inverse: four lane vectors back to eight 16-byte records.
WF_TARGET_AVX2 static inline void Store8(float* const p[8], __m256 X, __m256 Y, __m256 Z, __m256 W)
{
	__m256 t0 = _mm256_unpacklo_ps(X, Y), t1 = _mm256_unpackhi_ps(X, Y);
	__m256 t2 = _mm256_unpacklo_ps(Z, W), t3 = _mm256_unpackhi_ps(Z, W);
	__m256 r0 = _mm256_shuffle_ps(t0, t2, 0x44), r1 = _mm256_shuffle_ps(t0, t2, 0xEE);
	__m256 r2 = _mm256_shuffle_ps(t1, t3, 0x44), r3 = _mm256_shuffle_ps(t1, t3, 0xEE);
	_mm_store_ps(p[0], _mm256_castps256_ps128(r0));
	_mm_store_ps(p[4], _mm256_extractf128_ps(r0, 1));
	_mm_store_ps(p[1], _mm256_castps256_ps128(r1));
	_mm_store_ps(p[5], _mm256_extractf128_ps(r1, 1));
	_mm_store_ps(p[2], _mm256_castps256_ps128(r2));
	_mm_store_ps(p[6], _mm256_extractf128_ps(r2, 1));
	_mm_store_ps(p[3], _mm256_castps256_ps128(r3));
	_mm_store_ps(p[7], _mm256_extractf128_ps(r3, 1));
}

// The frame check's motion tests (wfMotionSums) eight particles at a time: the per-particle terms
// in the operations and order of wfCheckEnergy and wfMotionAdd (cpu.h), lane sums of the free
// particles' terms, the largest |v|^2, and wfTunnelled lane by lane (the same bits as the scalar test).
typedef struct wfMotion8 {
	__m256 sx, sy, sz, c0x, c0y, c0z, c1x, c1y, c1z, r2, n4, gx, gy, gz; // wfMotionConsts
	bool sphere;
	__m256 gain, kinetic, magnitude, free, speed2, tunnelled;
} wfMotion8;

WF_TARGET_AVX2 static inline void wfMotion8Init(wfMotion8* m, const wfMotionConsts* k)
{
	m->sx = _mm256_set1_ps(k->shift.x);
	m->sy = _mm256_set1_ps(k->shift.y);
	m->sz = _mm256_set1_ps(k->shift.z);
	m->c0x = _mm256_set1_ps(k->c0.x);
	m->c0y = _mm256_set1_ps(k->c0.y);
	m->c0z = _mm256_set1_ps(k->c0.z);
	m->c1x = _mm256_set1_ps(k->c1.x);
	m->c1y = _mm256_set1_ps(k->c1.y);
	m->c1z = _mm256_set1_ps(k->c1.z);
	m->r2 = _mm256_set1_ps(k->r2);
	m->n4 = _mm256_set1_ps(k->n4);
	m->gx = _mm256_set1_ps(k->gravity.x);
	m->gy = _mm256_set1_ps(k->gravity.y);
	m->gz = _mm256_set1_ps(k->gravity.z);
	m->sphere = k->sphere;
	m->gain = m->kinetic = m->magnitude = m->free = m->speed2 = m->tunnelled = _mm256_setzero_ps();
}

WF_TARGET_AVX2 static inline __m256 wfDot8(__m256 ax, __m256 ay, __m256 az, __m256 bx, __m256 by, __m256 bz)
{
	return _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(ax, bx), _mm256_mul_ps(ay, by)), _mm256_mul_ps(az, bz));
}

// Start x0, y0, z0 (the backup, before the shift), inverse mass w0 and velocity; end position and velocity.
// `live`: the lanes that hold a particle (all ones but for a row's tail).
WF_TARGET_AVX2 static inline void wfMotion8Add(wfMotion8* m, __m256 x0, __m256 y0, __m256 z0, __m256 w0, __m256 vx0, __m256 vy0, __m256 vz0,
	__m256 x1, __m256 y1, __m256 z1, __m256 vx1, __m256 vy1, __m256 vz1, __m256 live)
{
	const __m256 half = _mm256_set1_ps(0.5f), zero = _mm256_setzero_ps();
	const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
	const __m256 k0 = wfDot8(vx0, vy0, vz0, vx0, vy0, vz0), k1 = wfDot8(vx1, vy1, vz1, vx1, vy1, vz1);
	m->speed2 = _mm256_max_ps(m->speed2, _mm256_and_ps(live, _mm256_max_ps(k0, k1)));
	const __m256 ex = _mm256_add_ps(_mm256_sub_ps(x1, x0), m->sx), ey = _mm256_add_ps(_mm256_sub_ps(y1, y0), m->sy),
				 ez = _mm256_add_ps(_mm256_sub_ps(z1, z0), m->sz);
	const __m256 fall = wfDot8(m->gx, m->gy, m->gz, ex, ey, ez);
	const __m256 h0 = _mm256_mul_ps(half, k0), h1 = _mm256_mul_ps(half, k1);
	const __m256 free = _mm256_and_ps(live, _mm256_cmp_ps(w0, zero, _CMP_NEQ_UQ));
	m->gain = _mm256_add_ps(m->gain, _mm256_and_ps(free, _mm256_sub_ps(_mm256_sub_ps(h1, h0), fall)));
	m->kinetic = _mm256_add_ps(m->kinetic, _mm256_and_ps(free, h0));
	m->magnitude = _mm256_add_ps(m->magnitude, _mm256_and_ps(free, _mm256_add_ps(_mm256_add_ps(h0, h1), _mm256_and_ps(fall, magnitude))));
	m->free = _mm256_add_ps(m->free, _mm256_and_ps(free, _mm256_set1_ps(1.0f)));
	if (!m->sphere)
		return;
	// wfTunnelled
	const __m256 sx = _mm256_sub_ps(_mm256_sub_ps(x0, m->sx), m->c0x), sy = _mm256_sub_ps(_mm256_sub_ps(y0, m->sy), m->c0y),
				 sz = _mm256_sub_ps(_mm256_sub_ps(z0, m->sz), m->c0z);
	const __m256 tx = _mm256_sub_ps(x1, m->c1x), ty = _mm256_sub_ps(y1, m->c1y), tz = _mm256_sub_ps(z1, m->c1z);
	const __m256 s2 = wfDot8(sx, sy, sz, sx, sy, sz), e2 = wfDot8(tx, ty, tz, tx, ty, tz);
	const __m256 dx = _mm256_sub_ps(tx, sx), dy = _mm256_sub_ps(ty, sy), dz = _mm256_sub_ps(tz, sz);
	const __m256 l2 = wfDot8(dx, dy, dz, dx, dy, dz);
	const __m256 along = _mm256_xor_ps(wfDot8(sx, sy, sz, dx, dy, dz), _mm256_set1_ps(-0.0f));
	const __m256 inside = _mm256_sub_ps(_mm256_mul_ps(m->r2, l2), _mm256_sub_ps(_mm256_mul_ps(s2, l2), _mm256_mul_ps(along, along)));
	__m256 t = _mm256_and_ps(_mm256_cmp_ps(s2, m->r2, _CMP_GE_OQ), _mm256_cmp_ps(e2, m->r2, _CMP_GE_OQ));
	t = _mm256_and_ps(t, _mm256_and_ps(_mm256_cmp_ps(along, zero, _CMP_GT_OQ), _mm256_cmp_ps(along, l2, _CMP_LT_OQ)));
	t = _mm256_and_ps(t, _mm256_cmp_ps(inside, zero, _CMP_GT_OQ));
	t = _mm256_and_ps(t, _mm256_cmp_ps(_mm256_mul_ps(l2, l2), _mm256_mul_ps(m->n4, inside), _CMP_GT_OQ));
	m->tunnelled = _mm256_or_ps(m->tunnelled, _mm256_and_ps(live, t));
}

WF_TARGET_AVX2 static inline double wfSum8(__m256 v)
{
	float l[8];
	_mm256_storeu_ps(l, v);
	return (((double)l[0] + l[1]) + ((double)l[2] + l[3])) + (((double)l[4] + l[5]) + ((double)l[6] + l[7]));
}

// The lane sums into `out` (double), and the lanes back to 0: a row or a block at a time, so that no
// float sum runs over more than a few thousand terms (WF_MOTION_ROUNDING).
WF_TARGET_AVX2 static inline void wfMotion8Fold(wfMotion8* m, wfMotionSums* out)
{
	out->gain += wfSum8(m->gain);
	out->kinetic += wfSum8(m->kinetic);
	out->magnitude += wfSum8(m->magnitude);
	out->free += wfSum8(m->free);
	float l[8];
	_mm256_storeu_ps(l, m->speed2);
	for (int k = 0; k < 8; ++k)
		out->speed2 = fmaxf(out->speed2, l[k]);
	out->tunnelled |= _mm256_movemask_ps(m->tunnelled) != 0;
	m->gain = m->kinetic = m->magnitude = m->free = m->speed2 = m->tunnelled = _mm256_setzero_ps();
}

#endif
