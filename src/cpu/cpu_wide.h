// A wide float for the structure-of-arrays kernel: its stages (cpu_soa_stages.h) are written once
// against wfFloatW, wfMaskW and the operations below, and compiled for the width WF_WIDTH names
// before each inclusion (the idea of Box2D v3's b2FloatW, contact_solver.c):
//
//   16  AVX-512F: __m512, a mask is a __mmask16
//    8  AVX2: __m256, a mask is a lane of all ones or all zeros
//    4  wasm SIMD128 (clang -msimd128): v128_t, masks as at 8
//    1  float and bool: the scalar fallback, the wider loops' remainders and the tests' third width
//
// Every name is pasted with the width (wfFloatW is wfFloat16 while WF_WIDTH is 16), so the widths
// coexist in one translation unit: define WF_WIDTH, include this file, include the stages, undefine
// WF_WIDTH. Each operation is the one IEEE operation its name says, lane by lane (no FMA, no
// reciprocal estimate), so a stage gives the bits of scalar code that does its operations in its order.
#ifndef WF_WIDTH
#error "define WF_WIDTH (16, 8, 4 or 1) before including cpu_wide.h"
#endif

// The names, once: they expand to the current width's when used.
#ifndef WEFT_CPU_WIDE_NAMES
#define WEFT_CPU_WIDE_NAMES
#define WF_WIDE_PASTE2(a, b) a##b
#define WF_WIDE_PASTE(a, b) WF_WIDE_PASTE2(a, b)
#define WF_W(name) WF_WIDE_PASTE(name, WF_WIDTH) // a name of the current width: WF_W(Solve) is Solve8 at 8 lanes
#define WF_TARGET_W WF_W(WF_WIDE_TARGET_)        // the instruction set a function of the current width needs
#define WF_WIDE_BLENDS WF_W(WF_WIDE_BLENDS_)     // 1: a masked store is a blend and a whole store (see below)
#define wfFloatW WF_W(wfFloat)
#define wfMaskW WF_W(wfMask)
#define wfSetW WF_W(wfSet)
#define wfZeroW WF_W(wfZero)
#define wfLoadW WF_W(wfLoad)
#define wfLoadAlignedW WF_W(wfLoadAligned)
#define wfLoadLiveW WF_W(wfLoadLive)
#define wfGatherW WF_W(wfGather)
#define wfGatherQuadW WF_W(wfGatherQuad)
#define wfStoreW WF_W(wfStore)
#define wfStoreAlignedW WF_W(wfStoreAligned)
#define wfStoreWhereW WF_W(wfStoreWhere)
#define wfAddW WF_W(wfAdd)
#define wfSubW WF_W(wfSub)
#define wfMulW WF_W(wfMul)
#define wfDivW WF_W(wfDiv)
#define wfSqrtW WF_W(wfSqrt)
#define wfNegW WF_W(wfNeg)
#define wfSelectW WF_W(wfSelect)
#define wfAddWhereW WF_W(wfAddWhere)
#define wfMulWhereW WF_W(wfMulWhere)
#define wfDivWhereW WF_W(wfDivWhere)
#define wfNotEqualW WF_W(wfNotEqual)
#define wfNotLessW WF_W(wfNotLess)
#define wfLessW WF_W(wfLess)
#define wfTrueW WF_W(wfTrue)
#define wfFalseW WF_W(wfFalse)
#define wfMaskAndW WF_W(wfMaskAnd)
#define wfMaskOrW WF_W(wfMaskOr)
#define wfMaskFromBitsW WF_W(wfMaskFromBits)
#define wfMaskBitsW WF_W(wfMaskBits)
#define wfAllW WF_W(wfAll)
#define WF_WIDE_INLINE static inline __attribute__((always_inline))
#endif

// The operations, for the record (each width below defines every one):
//   wfSetW(f), wfZeroW()                    every lane f, every lane +0
//   wfLoadW(p), wfStoreW(p, v)              unaligned; wfLoadAlignedW, wfStoreAlignedW at a multiple of the width
//   wfLoadLiveW(p, live)                    the lanes of `live`; the others read as 0 or as what p holds there
//   wfGatherW(p, idx)                       lane l reads p[idx[l]] (idx: WF_WIDTH int32_t)
//   wfGatherQuadW(p, idx, &a, &b, &c, &d)   lane l of a, b, c, d reads p[4 idx[l] + 0, 1, 2, 3]: a record of four
//                                           floats per lane, one 16-byte load each, transposed (p: 16-byte aligned)
//   wfStoreWhereW(p, m, v, old)             v into the lanes of m, the others unchanged; `old` must be what p
//                                           holds (8 and 4 lanes store every lane, blending v with old)
//   wfAddW, wfSubW, wfMulW, wfDivW, wfSqrtW, wfNegW (the sign flipped, as -x)
//   wfSelectW(m, a, b)                      a in the lanes of m, b elsewhere
//   wfAddWhereW(m, a, b)                    a + b in the lanes of m, a elsewhere
//   wfMulWhereW(m, a, b), wfDivWhereW       a * b, a / b in the lanes of m, +0 elsewhere
//   wfNotEqualW(a, b), wfNotLessW(a, b)     !(a == b), !(a < b): true where either is NaN
//   wfLessW(a, b)                           a < b: false where either is NaN
//   wfTrueW(), wfFalseW(), wfMaskAndW, wfMaskOrW
//   wfMaskFromBitsW(bits)                   lane l in the mask when bit l is set
//   wfMaskBitsW(m)                          bit l set when lane l is in the mask; wfAllW(m): every lane
// WF_WIDE_BLENDS is 1 where a masked store costs a blend more than a store (8, 4 lanes): there a stage
// may test wfAllW and store whole vectors.

#if WF_WIDTH == 16 && !defined(WEFT_CPU_WIDE_16)
#define WEFT_CPU_WIDE_16
#include <immintrin.h>
#define WF_WIDE_TARGET_16 __attribute__((target("avx512f")))
#define WF_WIDE_BLENDS_16 0
typedef __m512 wfFloat16;
typedef __mmask16 wfMask16;
WF_WIDE_TARGET_16 WF_WIDE_INLINE wfFloat16 wfSet16(float f) { return _mm512_set1_ps(f); }
WF_WIDE_TARGET_16 WF_WIDE_INLINE wfFloat16 wfZero16(void) { return _mm512_setzero_ps(); }
WF_WIDE_TARGET_16 WF_WIDE_INLINE wfFloat16 wfLoad16(const float* p) { return _mm512_loadu_ps(p); }
WF_WIDE_TARGET_16 WF_WIDE_INLINE wfFloat16 wfLoadAligned16(const float* p) { return _mm512_load_ps(p); }
WF_WIDE_TARGET_16 WF_WIDE_INLINE wfFloat16 wfLoadLive16(const float* p, wfMask16 live) { return _mm512_maskz_loadu_ps(live, p); }
WF_WIDE_TARGET_16 WF_WIDE_INLINE wfFloat16 wfGather16(const float* p, const int32_t* idx)
{
	return _mm512_i32gather_ps(_mm512_loadu_si512((const void*)idx), p, 4);
}
WF_WIDE_TARGET_16 WF_WIDE_INLINE void wfGatherQuad16(const float* p, const int32_t* idx, wfFloat16* a, wfFloat16* b, wfFloat16* c,
	wfFloat16* d)
{
	// r[k] holds the records of lanes k, k + 4, k + 8, k + 12; a 4 x 4 transpose in each 128-bit lane.
	__m512 r[4];
	for (int k = 0; k < 4; ++k) {
		const __m512 lo = _mm512_castps128_ps512(_mm_load_ps(p + 4 * idx[k]));
		r[k] = _mm512_insertf32x4(
			_mm512_insertf32x4(_mm512_insertf32x4(lo, _mm_load_ps(p + 4 * idx[k + 4]), 1), _mm_load_ps(p + 4 * idx[k + 8]), 2),
			_mm_load_ps(p + 4 * idx[k + 12]), 3);
	}
	const __m512d t0 = _mm512_castps_pd(_mm512_unpacklo_ps(r[0], r[1])), t1 = _mm512_castps_pd(_mm512_unpackhi_ps(r[0], r[1]));
	const __m512d t2 = _mm512_castps_pd(_mm512_unpacklo_ps(r[2], r[3])), t3 = _mm512_castps_pd(_mm512_unpackhi_ps(r[2], r[3]));
	*a = _mm512_castpd_ps(_mm512_unpacklo_pd(t0, t2));
	*b = _mm512_castpd_ps(_mm512_unpackhi_pd(t0, t2));
	*c = _mm512_castpd_ps(_mm512_unpacklo_pd(t1, t3));
	*d = _mm512_castpd_ps(_mm512_unpackhi_pd(t1, t3));
}
WF_WIDE_TARGET_16 WF_WIDE_INLINE void wfStore16(float* p, wfFloat16 v) { _mm512_storeu_ps(p, v); }
WF_WIDE_TARGET_16 WF_WIDE_INLINE void wfStoreAligned16(float* p, wfFloat16 v) { _mm512_store_ps(p, v); }
WF_WIDE_TARGET_16 WF_WIDE_INLINE void wfStoreWhere16(float* p, wfMask16 m, wfFloat16 v, wfFloat16 old)
{
	(void)old;
	_mm512_mask_storeu_ps(p, m, v);
}
WF_WIDE_TARGET_16 WF_WIDE_INLINE wfFloat16 wfAdd16(wfFloat16 a, wfFloat16 b) { return _mm512_add_ps(a, b); }
WF_WIDE_TARGET_16 WF_WIDE_INLINE wfFloat16 wfSub16(wfFloat16 a, wfFloat16 b) { return _mm512_sub_ps(a, b); }
WF_WIDE_TARGET_16 WF_WIDE_INLINE wfFloat16 wfMul16(wfFloat16 a, wfFloat16 b) { return _mm512_mul_ps(a, b); }
WF_WIDE_TARGET_16 WF_WIDE_INLINE wfFloat16 wfDiv16(wfFloat16 a, wfFloat16 b) { return _mm512_div_ps(a, b); }
WF_WIDE_TARGET_16 WF_WIDE_INLINE wfFloat16 wfSqrt16(wfFloat16 a) { return _mm512_sqrt_ps(a); }
// AVX-512F has no float xor (that is DQ): the sign bit flipped as integers.
WF_WIDE_TARGET_16 WF_WIDE_INLINE wfFloat16 wfNeg16(wfFloat16 a)
{
	return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(a), _mm512_set1_epi32((int)0x80000000u)));
}
WF_WIDE_TARGET_16 WF_WIDE_INLINE wfFloat16 wfSelect16(wfMask16 m, wfFloat16 a, wfFloat16 b) { return _mm512_mask_blend_ps(m, b, a); }
WF_WIDE_TARGET_16 WF_WIDE_INLINE wfFloat16 wfAddWhere16(wfMask16 m, wfFloat16 a, wfFloat16 b) { return _mm512_mask_add_ps(a, m, a, b); }
WF_WIDE_TARGET_16 WF_WIDE_INLINE wfFloat16 wfMulWhere16(wfMask16 m, wfFloat16 a, wfFloat16 b) { return _mm512_maskz_mul_ps(m, a, b); }
WF_WIDE_TARGET_16 WF_WIDE_INLINE wfFloat16 wfDivWhere16(wfMask16 m, wfFloat16 a, wfFloat16 b) { return _mm512_maskz_div_ps(m, a, b); }
WF_WIDE_TARGET_16 WF_WIDE_INLINE wfMask16 wfNotEqual16(wfFloat16 a, wfFloat16 b) { return _mm512_cmp_ps_mask(a, b, _CMP_NEQ_UQ); }
WF_WIDE_TARGET_16 WF_WIDE_INLINE wfMask16 wfNotLess16(wfFloat16 a, wfFloat16 b) { return _mm512_cmp_ps_mask(a, b, _CMP_NLT_UQ); }
WF_WIDE_TARGET_16 WF_WIDE_INLINE wfMask16 wfLess16(wfFloat16 a, wfFloat16 b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
WF_WIDE_TARGET_16 WF_WIDE_INLINE wfMask16 wfTrue16(void) { return (wfMask16)0xFFFF; }
WF_WIDE_TARGET_16 WF_WIDE_INLINE wfMask16 wfFalse16(void) { return (wfMask16)0; }
WF_WIDE_TARGET_16 WF_WIDE_INLINE wfMask16 wfMaskAnd16(wfMask16 a, wfMask16 b) { return (wfMask16)(a & b); }
WF_WIDE_TARGET_16 WF_WIDE_INLINE wfMask16 wfMaskOr16(wfMask16 a, wfMask16 b) { return (wfMask16)(a | b); }
WF_WIDE_TARGET_16 WF_WIDE_INLINE wfMask16 wfMaskFromBits16(unsigned bits) { return (wfMask16)bits; }
WF_WIDE_TARGET_16 WF_WIDE_INLINE unsigned wfMaskBits16(wfMask16 m) { return (unsigned)m; }
WF_WIDE_TARGET_16 WF_WIDE_INLINE bool wfAll16(wfMask16 m) { return m == (wfMask16)0xFFFF; }
#endif

#if WF_WIDTH == 8 && !defined(WEFT_CPU_WIDE_8)
#define WEFT_CPU_WIDE_8
#include <immintrin.h>
#define WF_WIDE_TARGET_8 __attribute__((target("avx2")))
#define WF_WIDE_BLENDS_8 1
typedef __m256 wfFloat8;
typedef __m256 wfMask8;
WF_WIDE_TARGET_8 WF_WIDE_INLINE wfFloat8 wfSet8(float f) { return _mm256_set1_ps(f); }
WF_WIDE_TARGET_8 WF_WIDE_INLINE wfFloat8 wfZero8(void) { return _mm256_setzero_ps(); }
WF_WIDE_TARGET_8 WF_WIDE_INLINE wfFloat8 wfLoad8(const float* p) { return _mm256_loadu_ps(p); }
WF_WIDE_TARGET_8 WF_WIDE_INLINE wfFloat8 wfLoadAligned8(const float* p) { return _mm256_load_ps(p); }
// Every lane: the kernel's 8-lane blocks lie inside a run (a run's last block overlaps the one before).
WF_WIDE_TARGET_8 WF_WIDE_INLINE wfFloat8 wfLoadLive8(const float* p, wfMask8 live)
{
	(void)live;
	return _mm256_loadu_ps(p);
}
WF_WIDE_TARGET_8 WF_WIDE_INLINE wfFloat8 wfGather8(const float* p, const int32_t* idx)
{
	return _mm256_i32gather_ps(p, _mm256_loadu_si256((const __m256i*)idx), 4);
}
WF_WIDE_TARGET_8 WF_WIDE_INLINE void wfGatherQuad8(const float* p, const int32_t* idx, wfFloat8* a, wfFloat8* b, wfFloat8* c, wfFloat8* d)
{
	// r[k] holds the records of lanes k and k + 4; a 4 x 4 transpose in each 128-bit lane.
	__m256 r[4];
	for (int k = 0; k < 4; ++k)
		r[k] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_load_ps(p + 4 * idx[k])), _mm_load_ps(p + 4 * idx[k + 4]), 1);
	const __m256d t0 = _mm256_castps_pd(_mm256_unpacklo_ps(r[0], r[1])), t1 = _mm256_castps_pd(_mm256_unpackhi_ps(r[0], r[1]));
	const __m256d t2 = _mm256_castps_pd(_mm256_unpacklo_ps(r[2], r[3])), t3 = _mm256_castps_pd(_mm256_unpackhi_ps(r[2], r[3]));
	*a = _mm256_castpd_ps(_mm256_unpacklo_pd(t0, t2));
	*b = _mm256_castpd_ps(_mm256_unpackhi_pd(t0, t2));
	*c = _mm256_castpd_ps(_mm256_unpacklo_pd(t1, t3));
	*d = _mm256_castpd_ps(_mm256_unpackhi_pd(t1, t3));
}
WF_WIDE_TARGET_8 WF_WIDE_INLINE void wfStore8(float* p, wfFloat8 v) { _mm256_storeu_ps(p, v); }
WF_WIDE_TARGET_8 WF_WIDE_INLINE void wfStoreAligned8(float* p, wfFloat8 v) { _mm256_store_ps(p, v); }
WF_WIDE_TARGET_8 WF_WIDE_INLINE void wfStoreWhere8(float* p, wfMask8 m, wfFloat8 v, wfFloat8 old)
{
	_mm256_storeu_ps(p, _mm256_blendv_ps(old, v, m));
}
WF_WIDE_TARGET_8 WF_WIDE_INLINE wfFloat8 wfAdd8(wfFloat8 a, wfFloat8 b) { return _mm256_add_ps(a, b); }
WF_WIDE_TARGET_8 WF_WIDE_INLINE wfFloat8 wfSub8(wfFloat8 a, wfFloat8 b) { return _mm256_sub_ps(a, b); }
WF_WIDE_TARGET_8 WF_WIDE_INLINE wfFloat8 wfMul8(wfFloat8 a, wfFloat8 b) { return _mm256_mul_ps(a, b); }
WF_WIDE_TARGET_8 WF_WIDE_INLINE wfFloat8 wfDiv8(wfFloat8 a, wfFloat8 b) { return _mm256_div_ps(a, b); }
WF_WIDE_TARGET_8 WF_WIDE_INLINE wfFloat8 wfSqrt8(wfFloat8 a) { return _mm256_sqrt_ps(a); }
WF_WIDE_TARGET_8 WF_WIDE_INLINE wfFloat8 wfNeg8(wfFloat8 a) { return _mm256_xor_ps(a, _mm256_set1_ps(-0.0f)); }
WF_WIDE_TARGET_8 WF_WIDE_INLINE wfFloat8 wfSelect8(wfMask8 m, wfFloat8 a, wfFloat8 b) { return _mm256_blendv_ps(b, a, m); }
WF_WIDE_TARGET_8 WF_WIDE_INLINE wfFloat8 wfAddWhere8(wfMask8 m, wfFloat8 a, wfFloat8 b)
{
	return _mm256_blendv_ps(a, _mm256_add_ps(a, b), m);
}
WF_WIDE_TARGET_8 WF_WIDE_INLINE wfFloat8 wfMulWhere8(wfMask8 m, wfFloat8 a, wfFloat8 b) { return _mm256_and_ps(_mm256_mul_ps(a, b), m); }
WF_WIDE_TARGET_8 WF_WIDE_INLINE wfFloat8 wfDivWhere8(wfMask8 m, wfFloat8 a, wfFloat8 b) { return _mm256_and_ps(_mm256_div_ps(a, b), m); }
WF_WIDE_TARGET_8 WF_WIDE_INLINE wfMask8 wfNotEqual8(wfFloat8 a, wfFloat8 b) { return _mm256_cmp_ps(a, b, _CMP_NEQ_UQ); }
WF_WIDE_TARGET_8 WF_WIDE_INLINE wfMask8 wfNotLess8(wfFloat8 a, wfFloat8 b) { return _mm256_cmp_ps(a, b, _CMP_NLT_UQ); }
WF_WIDE_TARGET_8 WF_WIDE_INLINE wfMask8 wfLess8(wfFloat8 a, wfFloat8 b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
WF_WIDE_TARGET_8 WF_WIDE_INLINE wfMask8 wfTrue8(void) { return _mm256_castsi256_ps(_mm256_set1_epi32(-1)); }
WF_WIDE_TARGET_8 WF_WIDE_INLINE wfMask8 wfFalse8(void) { return _mm256_setzero_ps(); }
WF_WIDE_TARGET_8 WF_WIDE_INLINE wfMask8 wfMaskAnd8(wfMask8 a, wfMask8 b) { return _mm256_and_ps(a, b); }
WF_WIDE_TARGET_8 WF_WIDE_INLINE wfMask8 wfMaskOr8(wfMask8 a, wfMask8 b) { return _mm256_or_ps(a, b); }
WF_WIDE_TARGET_8 WF_WIDE_INLINE wfMask8 wfMaskFromBits8(unsigned bits)
{
	const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
	return _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32((int)bits), bit), bit));
}
WF_WIDE_TARGET_8 WF_WIDE_INLINE unsigned wfMaskBits8(wfMask8 m) { return (unsigned)_mm256_movemask_ps(m); }
WF_WIDE_TARGET_8 WF_WIDE_INLINE bool wfAll8(wfMask8 m) { return _mm256_movemask_ps(m) == 0xFF; }
#endif

#if WF_WIDTH == 4 && !defined(WEFT_CPU_WIDE_4)
#define WEFT_CPU_WIDE_4
#include <stdbool.h>
#include <wasm_simd128.h>
#define WF_WIDE_TARGET_4
#define WF_WIDE_BLENDS_4 1
typedef v128_t wfFloat4;
typedef v128_t wfMask4;
WF_WIDE_INLINE wfFloat4 wfSet4(float f) { return wasm_f32x4_splat(f); }
WF_WIDE_INLINE wfFloat4 wfZero4(void) { return wasm_f32x4_splat(0.0f); }
WF_WIDE_INLINE wfFloat4 wfLoad4(const float* p) { return wasm_v128_load(p); }
WF_WIDE_INLINE wfFloat4 wfLoadAligned4(const float* p) { return wasm_v128_load(p); }
// Every lane: the 4-lane blocks lie inside a run, as the 8-lane ones.
WF_WIDE_INLINE wfFloat4 wfLoadLive4(const float* p, wfMask4 live)
{
	(void)live;
	return wasm_v128_load(p);
}
// SIMD128 has no gather: four scalar loads.
WF_WIDE_INLINE wfFloat4 wfGather4(const float* p, const int32_t* idx)
{
	return wasm_f32x4_make(p[idx[0]], p[idx[1]], p[idx[2]], p[idx[3]]);
}
WF_WIDE_INLINE void wfGatherQuad4(const float* p, const int32_t* idx, wfFloat4* a, wfFloat4* b, wfFloat4* c, wfFloat4* d)
{
	const v128_t r0 = wasm_v128_load(p + 4 * idx[0]), r1 = wasm_v128_load(p + 4 * idx[1]);
	const v128_t r2 = wasm_v128_load(p + 4 * idx[2]), r3 = wasm_v128_load(p + 4 * idx[3]);
	const v128_t t0 = wasm_i32x4_shuffle(r0, r1, 0, 4, 1, 5), t1 = wasm_i32x4_shuffle(r0, r1, 2, 6, 3, 7);
	const v128_t t2 = wasm_i32x4_shuffle(r2, r3, 0, 4, 1, 5), t3 = wasm_i32x4_shuffle(r2, r3, 2, 6, 3, 7);
	*a = wasm_i64x2_shuffle(t0, t2, 0, 2);
	*b = wasm_i64x2_shuffle(t0, t2, 1, 3);
	*c = wasm_i64x2_shuffle(t1, t3, 0, 2);
	*d = wasm_i64x2_shuffle(t1, t3, 1, 3);
}
WF_WIDE_INLINE void wfStore4(float* p, wfFloat4 v) { wasm_v128_store(p, v); }
WF_WIDE_INLINE void wfStoreAligned4(float* p, wfFloat4 v) { wasm_v128_store(p, v); }
WF_WIDE_INLINE void wfStoreWhere4(float* p, wfMask4 m, wfFloat4 v, wfFloat4 old) { wasm_v128_store(p, wasm_v128_bitselect(v, old, m)); }
WF_WIDE_INLINE wfFloat4 wfAdd4(wfFloat4 a, wfFloat4 b) { return wasm_f32x4_add(a, b); }
WF_WIDE_INLINE wfFloat4 wfSub4(wfFloat4 a, wfFloat4 b) { return wasm_f32x4_sub(a, b); }
WF_WIDE_INLINE wfFloat4 wfMul4(wfFloat4 a, wfFloat4 b) { return wasm_f32x4_mul(a, b); }
WF_WIDE_INLINE wfFloat4 wfDiv4(wfFloat4 a, wfFloat4 b) { return wasm_f32x4_div(a, b); }
WF_WIDE_INLINE wfFloat4 wfSqrt4(wfFloat4 a) { return wasm_f32x4_sqrt(a); }
WF_WIDE_INLINE wfFloat4 wfNeg4(wfFloat4 a) { return wasm_f32x4_neg(a); }
WF_WIDE_INLINE wfFloat4 wfSelect4(wfMask4 m, wfFloat4 a, wfFloat4 b) { return wasm_v128_bitselect(a, b, m); }
WF_WIDE_INLINE wfFloat4 wfAddWhere4(wfMask4 m, wfFloat4 a, wfFloat4 b) { return wasm_v128_bitselect(wasm_f32x4_add(a, b), a, m); }
WF_WIDE_INLINE wfFloat4 wfMulWhere4(wfMask4 m, wfFloat4 a, wfFloat4 b) { return wasm_v128_and(wasm_f32x4_mul(a, b), m); }
WF_WIDE_INLINE wfFloat4 wfDivWhere4(wfMask4 m, wfFloat4 a, wfFloat4 b) { return wasm_v128_and(wasm_f32x4_div(a, b), m); }
WF_WIDE_INLINE wfMask4 wfNotEqual4(wfFloat4 a, wfFloat4 b) { return wasm_f32x4_ne(a, b); }
WF_WIDE_INLINE wfMask4 wfNotLess4(wfFloat4 a, wfFloat4 b) { return wasm_v128_not(wasm_f32x4_lt(a, b)); }
WF_WIDE_INLINE wfMask4 wfLess4(wfFloat4 a, wfFloat4 b) { return wasm_f32x4_lt(a, b); }
WF_WIDE_INLINE wfMask4 wfTrue4(void) { return wasm_i32x4_splat(-1); }
WF_WIDE_INLINE wfMask4 wfFalse4(void) { return wasm_i32x4_splat(0); }
WF_WIDE_INLINE wfMask4 wfMaskAnd4(wfMask4 a, wfMask4 b) { return wasm_v128_and(a, b); }
WF_WIDE_INLINE wfMask4 wfMaskOr4(wfMask4 a, wfMask4 b) { return wasm_v128_or(a, b); }
WF_WIDE_INLINE wfMask4 wfMaskFromBits4(unsigned bits)
{
	const v128_t bit = wasm_i32x4_make(1, 2, 4, 8);
	return wasm_i32x4_eq(wasm_v128_and(wasm_i32x4_splat((int)bits), bit), bit);
}
WF_WIDE_INLINE unsigned wfMaskBits4(wfMask4 m) { return (unsigned)wasm_i32x4_bitmask(m); }
WF_WIDE_INLINE bool wfAll4(wfMask4 m) { return wasm_i32x4_all_true(m); }
#endif

#if WF_WIDTH == 1 && !defined(WEFT_CPU_WIDE_1)
#define WEFT_CPU_WIDE_1
#include <math.h>
#include <stdbool.h>
#define WF_WIDE_TARGET_1
#define WF_WIDE_BLENDS_1 0
typedef float wfFloat1;
typedef bool wfMask1;
WF_WIDE_INLINE wfFloat1 wfSet1(float f) { return f; }
WF_WIDE_INLINE wfFloat1 wfZero1(void) { return 0.0f; }
WF_WIDE_INLINE wfFloat1 wfLoad1(const float* p) { return *p; }
WF_WIDE_INLINE wfFloat1 wfLoadAligned1(const float* p) { return *p; }
WF_WIDE_INLINE wfFloat1 wfLoadLive1(const float* p, wfMask1 live) { return live ? *p : 0.0f; }
WF_WIDE_INLINE wfFloat1 wfGather1(const float* p, const int32_t* idx) { return p[*idx]; }
WF_WIDE_INLINE void wfGatherQuad1(const float* p, const int32_t* idx, wfFloat1* a, wfFloat1* b, wfFloat1* c, wfFloat1* d)
{
	const float* q = p + 4 * idx[0];
	*a = q[0];
	*b = q[1];
	*c = q[2];
	*d = q[3];
}
WF_WIDE_INLINE void wfStore1(float* p, wfFloat1 v) { *p = v; }
WF_WIDE_INLINE void wfStoreAligned1(float* p, wfFloat1 v) { *p = v; }
WF_WIDE_INLINE void wfStoreWhere1(float* p, wfMask1 m, wfFloat1 v, wfFloat1 old)
{
	(void)old;
	if (m)
		*p = v;
}
WF_WIDE_INLINE wfFloat1 wfAdd1(wfFloat1 a, wfFloat1 b) { return a + b; }
WF_WIDE_INLINE wfFloat1 wfSub1(wfFloat1 a, wfFloat1 b) { return a - b; }
WF_WIDE_INLINE wfFloat1 wfMul1(wfFloat1 a, wfFloat1 b) { return a * b; }
WF_WIDE_INLINE wfFloat1 wfDiv1(wfFloat1 a, wfFloat1 b) { return a / b; }
WF_WIDE_INLINE wfFloat1 wfSqrt1(wfFloat1 a) { return sqrtf(a); }
WF_WIDE_INLINE wfFloat1 wfNeg1(wfFloat1 a) { return -a; }
WF_WIDE_INLINE wfFloat1 wfSelect1(wfMask1 m, wfFloat1 a, wfFloat1 b) { return m ? a : b; }
WF_WIDE_INLINE wfFloat1 wfAddWhere1(wfMask1 m, wfFloat1 a, wfFloat1 b) { return m ? a + b : a; }
WF_WIDE_INLINE wfFloat1 wfMulWhere1(wfMask1 m, wfFloat1 a, wfFloat1 b) { return m ? a * b : 0.0f; }
WF_WIDE_INLINE wfFloat1 wfDivWhere1(wfMask1 m, wfFloat1 a, wfFloat1 b) { return m ? a / b : 0.0f; }
WF_WIDE_INLINE wfMask1 wfNotEqual1(wfFloat1 a, wfFloat1 b) { return !(a == b); }
WF_WIDE_INLINE wfMask1 wfNotLess1(wfFloat1 a, wfFloat1 b) { return !(a < b); }
WF_WIDE_INLINE wfMask1 wfLess1(wfFloat1 a, wfFloat1 b) { return a < b; }
WF_WIDE_INLINE wfMask1 wfTrue1(void) { return true; }
WF_WIDE_INLINE wfMask1 wfFalse1(void) { return false; }
WF_WIDE_INLINE wfMask1 wfMaskAnd1(wfMask1 a, wfMask1 b) { return a && b; }
WF_WIDE_INLINE wfMask1 wfMaskOr1(wfMask1 a, wfMask1 b) { return a || b; }
WF_WIDE_INLINE wfMask1 wfMaskFromBits1(unsigned bits) { return (bits & 1u) != 0; }
WF_WIDE_INLINE unsigned wfMaskBits1(wfMask1 m) { return m ? 1u : 0u; }
WF_WIDE_INLINE bool wfAll1(wfMask1 m) { return m; }
#endif
