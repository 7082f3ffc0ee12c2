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

#endif
