// AVX2 kernel for one XPBD colour range: eight independent constraints per step.
//
// Every lane performs the same IEEE operations in the same order as the scalar loop in
// cpu_xpbd.c (no FMA, correctly rounded sqrt and divide), so a constraint gets the same bits
// whichever path solves it. That keeps results identical for any thread count, where the
// split of a range into SIMD blocks and scalar tails changes.
#include "cpu.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define WF_TARGET_AVX2 __attribute__((target("avx2")))

bool wfCpuHasAvx2(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
}

// Loads eight 16-byte records (r[l] for lane l) and transposes them into four lane vectors.
// Gathers are avoided: on recent Intel parts with the gather microcode fix they cost more
// than 128-bit loads and shuffles.
#define WF_LOAD8(ptr, idx, X, Y, Z, W) \
	do { \
		__m256 r0 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(ptr(idx, 0))), _mm_load_ps(ptr(idx, 4)), 1); \
		__m256 r1 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(ptr(idx, 1))), _mm_load_ps(ptr(idx, 5)), 1); \
		__m256 r2 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(ptr(idx, 2))), _mm_load_ps(ptr(idx, 6)), 1); \
		__m256 r3 = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(ptr(idx, 3))), _mm_load_ps(ptr(idx, 7)), 1); \
		__m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1); \
		__m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3); \
		X = _mm256_shuffle_ps(t0, t2, 0x44); \
		Y = _mm256_shuffle_ps(t0, t2, 0xEE); \
		Z = _mm256_shuffle_ps(t1, t3, 0x44); \
		W = _mm256_shuffle_ps(t1, t3, 0xEE); \
	} while (0)

// The inverse: lane vectors back to eight 16-byte records.
#define WF_STORE8(ptr, idx, X, Y, Z, W) \
	do { \
		__m256 t0 = _mm256_unpacklo_ps(X, Y), t1 = _mm256_unpackhi_ps(X, Y); \
		__m256 t2 = _mm256_unpacklo_ps(Z, W), t3 = _mm256_unpackhi_ps(Z, W); \
		__m256 r0 = _mm256_shuffle_ps(t0, t2, 0x44), r1 = _mm256_shuffle_ps(t0, t2, 0xEE); \
		__m256 r2 = _mm256_shuffle_ps(t1, t3, 0x44), r3 = _mm256_shuffle_ps(t1, t3, 0xEE); \
		_mm_store_ps(ptr(idx, 0), _mm256_castps256_ps128(r0)); \
		_mm_store_ps(ptr(idx, 4), _mm256_extractf128_ps(r0, 1)); \
		_mm_store_ps(ptr(idx, 1), _mm256_castps256_ps128(r1)); \
		_mm_store_ps(ptr(idx, 5), _mm256_extractf128_ps(r1, 1)); \
		_mm_store_ps(ptr(idx, 2), _mm256_castps256_ps128(r2)); \
		_mm_store_ps(ptr(idx, 6), _mm256_extractf128_ps(r2, 1)); \
		_mm_store_ps(ptr(idx, 3), _mm256_castps256_ps128(r3)); \
		_mm_store_ps(ptr(idx, 7), _mm256_extractf128_ps(r3, 1)); \
	} while (0)

#define CON_PTR(k, l) ((const float*)(const void*)&con[(k) + (l)])
#define POS_PTR(ids, l) ((float*)(void*)&pos[(ids)[l]])

// Solves constraints [begin, begin + 8 * blocks); returns the first index not solved.
// Lanes that the scalar loop would skip write their particles back unchanged; no other
// constraint of the colour touches those particles, so that is harmless.
WF_TARGET_AVX2 int wfCpuXpbdRangeAvx2(const wfConstraint* con, wfVec4* pos, float* lambda, int begin, int blocks,
	const float* alphaTilde)
{
	const __m256 at3 = _mm256_setr_ps(alphaTilde[0], alphaTilde[1], alphaTilde[2], 0, 0, 0, 0, 0);
	const __m256 zero = _mm256_setzero_ps(), tiny = _mm256_set1_ps(1e-12f), sign = _mm256_set1_ps(-0.0f);
	int k = begin;
	for (int blk = 0; blk < blocks; ++blk, k += 8) {
		__m256 fa, fb, rest, ffam;
		WF_LOAD8(CON_PTR, k, fa, fb, rest, ffam);
		uint32_t ia[8] __attribute__((aligned(32))), ib[8] __attribute__((aligned(32)));
		_mm256_store_si256((__m256i*)(void*)ia, _mm256_castps_si256(fa));
		_mm256_store_si256((__m256i*)(void*)ib, _mm256_castps_si256(fb));
		__m256 ax, ay, az, aw, bx, by, bz, bw;
		WF_LOAD8(POS_PTR, ia, ax, ay, az, aw);
		WF_LOAD8(POS_PTR, ib, bx, by, bz, bw);
		__m256 lam = _mm256_loadu_ps(lambda + k);
		__m256 at = _mm256_permutevar8x32_ps(at3, _mm256_castps_si256(ffam));

		__m256 wsum = _mm256_add_ps(aw, bw);
		__m256 dx = _mm256_sub_ps(ax, bx), dy = _mm256_sub_ps(ay, by), dz = _mm256_sub_ps(az, bz);
		__m256 len2 = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy)), _mm256_mul_ps(dz, dz));
		__m256 len = _mm256_sqrt_ps(len2);
		__m256 valid = _mm256_and_ps(_mm256_cmp_ps(wsum, zero, _CMP_NEQ_UQ), _mm256_cmp_ps(len, tiny, _CMP_NLT_UQ));
		// dl = -(len - rest + at * lambda) / (wsum + at); invalid lanes get dl = 0.
		__m256 num = _mm256_add_ps(_mm256_sub_ps(len, rest), _mm256_mul_ps(at, lam));
		__m256 dl = _mm256_and_ps(_mm256_div_ps(_mm256_xor_ps(num, sign), _mm256_add_ps(wsum, at)), valid);
		_mm256_storeu_ps(lambda + k, _mm256_blendv_ps(lam, _mm256_add_ps(lam, dl), valid));
		__m256 s = _mm256_and_ps(_mm256_div_ps(dl, len), valid);
		__m256 sa = _mm256_mul_ps(s, aw), sb = _mm256_mul_ps(s, bw);
		__m256 nax = _mm256_blendv_ps(ax, _mm256_add_ps(ax, _mm256_mul_ps(sa, dx)), valid);
		__m256 nay = _mm256_blendv_ps(ay, _mm256_add_ps(ay, _mm256_mul_ps(sa, dy)), valid);
		__m256 naz = _mm256_blendv_ps(az, _mm256_add_ps(az, _mm256_mul_ps(sa, dz)), valid);
		__m256 nbx = _mm256_blendv_ps(bx, _mm256_sub_ps(bx, _mm256_mul_ps(sb, dx)), valid);
		__m256 nby = _mm256_blendv_ps(by, _mm256_sub_ps(by, _mm256_mul_ps(sb, dy)), valid);
		__m256 nbz = _mm256_blendv_ps(bz, _mm256_sub_ps(bz, _mm256_mul_ps(sb, dz)), valid);
		WF_STORE8(POS_PTR, ia, nax, nay, naz, aw);
		WF_STORE8(POS_PTR, ib, nbx, nby, nbz, bw);
	}
	return k;
}

#else

bool wfCpuHasAvx2(void) { return false; }

int wfCpuXpbdRangeAvx2(const wfConstraint* con, wfVec4* pos, float* lambda, int begin, int blocks, const float* alphaTilde)
{
	(void)con; (void)pos; (void)lambda; (void)blocks; (void)alphaTilde;
	return begin;
}

#endif
