// AVX2 kernel for one XPBD colour range: eight independent constraints per step.
//
// Every lane performs the same IEEE operations in the same order as the scalar loop in
// cpu_xpbd.c (no FMA, correctly rounded sqrt and divide), so a constraint gets the same bits
// whichever path solves it. That keeps results identical for any thread count, where the
// split of a range into SIMD blocks and scalar tails changes.
#include "cpu.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include "cpu_avx2.h"

bool wfCpuHasAvx2(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
}

// Loads constraints [k, k + 8) and the particle records at both ends; fills the end addresses.
WF_TARGET_AVX2 static inline void LoadEnds(const wfConstraint* con, int k, wfVec4* base, float* pa[8], float* pb[8], __m256* rest,
	__m256i* family)
{
	const float* pc[8];
	for (int l = 0; l < 8; ++l)
		pc[l] = (const float*)(const void*)&con[k + l];
	__m256 fa, fb, ff;
	Load8(pc, &fa, &fb, rest, &ff);
	uint32_t ia[8] __attribute__((aligned(32))), ib[8] __attribute__((aligned(32)));
	_mm256_store_si256((__m256i*)(void*)ia, _mm256_castps_si256(fa));
	_mm256_store_si256((__m256i*)(void*)ib, _mm256_castps_si256(fb));
	for (int l = 0; l < 8; ++l) {
		pa[l] = (float*)(void*)&base[ia[l]];
		pb[l] = (float*)(void*)&base[ib[l]];
	}
	*family = _mm256_castps_si256(ff);
}

// Solves constraints [begin, begin + 8 * blocks); returns the first index not solved.
// Lanes that the scalar loop would skip write their particles back unchanged; no other
// constraint of the colour touches those particles, so that is harmless.
WF_TARGET_AVX2 int wfCpuXpbdRangeAvx2(const wfConstraint* con, wfVec4* pos, wfVec4* vel, float* lambda, int begin, int blocks,
	const float* alphaTilde, float invH)
{
	const __m256 ih = _mm256_set1_ps(invH);
	const __m256 at3 = _mm256_setr_ps(alphaTilde[0], alphaTilde[1], alphaTilde[2], 0, 0, 0, 0, 0);
	const __m256 zero = _mm256_setzero_ps(), tiny = _mm256_set1_ps(WF_MIN_LENGTH), sign = _mm256_set1_ps(-0.0f);
	int k = begin;
	for (int blk = 0; blk < blocks; ++blk, k += 8) {
		float *pa[8], *pb[8];
		__m256 rest;
		__m256i family;
		LoadEnds(con, k, pos, pa, pb, &rest, &family);
		__m256 ax, ay, az, aw, bx, by, bz, bw;
		Load8((const float* const*)pa, &ax, &ay, &az, &aw);
		Load8((const float* const*)pb, &bx, &by, &bz, &bw);
		__m256 lam = _mm256_loadu_ps(lambda + k);
		__m256 at = _mm256_permutevar8x32_ps(at3, family);

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
		const __m256 max = _mm256_mul_ps(sa, dx), may = _mm256_mul_ps(sa, dy), maz = _mm256_mul_ps(sa, dz);
		const __m256 mbx = _mm256_mul_ps(sb, dx), mby = _mm256_mul_ps(sb, dy), mbz = _mm256_mul_ps(sb, dz);
		__m256 nax = _mm256_blendv_ps(ax, _mm256_add_ps(ax, max), valid);
		__m256 nay = _mm256_blendv_ps(ay, _mm256_add_ps(ay, may), valid);
		__m256 naz = _mm256_blendv_ps(az, _mm256_add_ps(az, maz), valid);
		__m256 nbx = _mm256_blendv_ps(bx, _mm256_sub_ps(bx, mbx), valid);
		__m256 nby = _mm256_blendv_ps(by, _mm256_sub_ps(by, mby), valid);
		__m256 nbz = _mm256_blendv_ps(bz, _mm256_sub_ps(bz, mbz), valid);
		Store8(pa, nax, nay, naz, aw);
		Store8(pb, nbx, nby, nbz, bw);
		// The moves into the ends' velocities (wfCpuMoved): v_a += m_a invH, v_b += (-m_b) invH.
		if (vel == NULL)
			continue; // WF_VELOCITY_POSITIONS
		float *va[8], *vb[8];
		for (int l = 0; l < 8; ++l) {
			va[l] = (float*)(void*)&vel[(wfVec4*)(void*)pa[l] - pos];
			vb[l] = (float*)(void*)&vel[(wfVec4*)(void*)pb[l] - pos];
		}
		__m256 vax, vay, vaz, vaw, vbx, vby, vbz, vbw;
		Load8((const float* const*)va, &vax, &vay, &vaz, &vaw);
		vax = _mm256_blendv_ps(vax, _mm256_add_ps(vax, _mm256_mul_ps(max, ih)), valid);
		vay = _mm256_blendv_ps(vay, _mm256_add_ps(vay, _mm256_mul_ps(may, ih)), valid);
		vaz = _mm256_blendv_ps(vaz, _mm256_add_ps(vaz, _mm256_mul_ps(maz, ih)), valid);
		Store8(va, vax, vay, vaz, vaw);
		Load8((const float* const*)vb, &vbx, &vby, &vbz, &vbw);
		vbx = _mm256_blendv_ps(vbx, _mm256_sub_ps(vbx, _mm256_mul_ps(mbx, ih)), valid);
		vby = _mm256_blendv_ps(vby, _mm256_sub_ps(vby, _mm256_mul_ps(mby, ih)), valid);
		vbz = _mm256_blendv_ps(vbz, _mm256_sub_ps(vbz, _mm256_mul_ps(mbz, ih)), valid);
		Store8(vb, vbx, vby, vbz, vbw);
	}
	return k;
}

// Particle stages, two particles a step (one 16-byte record per 128-bit half). Lane by lane the
// same operations as the scalar loops (cpu_stages.c, cpu_xpbd.c, cpu_jacobi.c); the w lane carries
// the inverse mass through unchanged, and particles with w = 0 keep their values (blend).

// Lanes where w != 0 (w broadcast within each half); NaN counts as dynamic, as `w == 0.0f` is false.
WF_TARGET_AVX2 static inline __m256 Dynamic(__m256 x)
{
	__m256 w = _mm256_permute_ps(x, 0xFF);
	return _mm256_cmp_ps(w, _mm256_setzero_ps(), _CMP_NEQ_UQ);
}

WF_TARGET_AVX2 int wfCpuPredictAvx2(wfVec4* pos, wfVec4* vel, wfVec4* prev, int begin, int end, float h, float damping, wfVec3 a)
{
	const __m256 hv = _mm256_set1_ps(h), dv = _mm256_set1_ps(damping), one = _mm256_set1_ps(1.0f);
	// h a per component (w: 0), as the scalar loop's h * a.x, h * a.y, h * a.z.
	const __m256 ha = _mm256_setr_ps(h * a.x, h * a.y, h * a.z, 0.0f, h * a.x, h * a.y, h * a.z, 0.0f);
	int i = begin;
	for (; i + 2 <= end; i += 2) {
		__m256 x = _mm256_loadu_ps(&pos[i].x);
		_mm256_storeu_ps(&prev[i].x, x);
		__m256 dynamic = Dynamic(x);
		__m256 k = _mm256_add_ps(one, _mm256_mul_ps(_mm256_mul_ps(hv, _mm256_permute_ps(x, 0xFF)), dv)); // 1 + h w d
		__m256 v = _mm256_loadu_ps(&vel[i].x);
		__m256 nv = _mm256_add_ps(_mm256_div_ps(v, k), ha);  // v = v / k + h a
		__m256 nx = _mm256_add_ps(x, _mm256_mul_ps(hv, nv)); // x += h v
		nx = _mm256_blend_ps(nx, x, 0x88);                   // w stays
		nv = _mm256_blend_ps(nv, v, 0x88);
		_mm256_storeu_ps(&vel[i].x, _mm256_blendv_ps(v, nv, dynamic));
		_mm256_storeu_ps(&pos[i].x, _mm256_blendv_ps(x, nx, dynamic));
	}
	return i;
}

WF_TARGET_AVX2 int wfCpuVelocityAvx2(const wfVec4* pos, const wfVec4* prev, wfVec4* vel, int begin, int end, float factor)
{
	const __m256 f = _mm256_set1_ps(factor);
	int i = begin;
	for (; i + 2 <= end; i += 2) {
		const __m256 x = _mm256_loadu_ps(&pos[i].x);
		__m256 v = prev != NULL ? _mm256_mul_ps(_mm256_sub_ps(x, _mm256_loadu_ps(&prev[i].x)), f)
								: _mm256_mul_ps(_mm256_loadu_ps(&vel[i].x), f);
		v = _mm256_blend_ps(v, _mm256_setzero_ps(), 0x88); // w = 0
		_mm256_storeu_ps(&vel[i].x, _mm256_and_ps(v, Dynamic(x)));
	}
	return i;
}

// wfCpuCheckPass's particles [0, 8 floor(n / 8)), eight at a time; returns where the scalar loop goes on.
WF_TARGET_AVX2 static int CheckPassAvx2(const wfCloth* c, const wfVec4* pos0, const wfVec4* vel0, const wfMotionConsts* k, float limit,
	wfMotionSums* out, bool* badOut)
{
	const int n = c->model.particleCount;
	const __m256 inf = _mm256_set1_ps(INFINITY), l2 = _mm256_set1_ps(limit * limit);
	const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
	__m256 bad = _mm256_setzero_ps();
	wfMotion8 m;
	wfMotion8Init(&m, k);
	int i = 0;
	for (; i + 8 <= n; i += 8) {
		const float *p[8], *q[8], *p0[8], *q0[8];
		for (int l = 0; l < 8; ++l) {
			p[l] = &c->state.pos[i + l].x;
			q[l] = &c->state.vel[i + l].x;
			p0[l] = &pos0[i + l].x;
			q0[l] = &vel0[i + l].x;
		}
		__m256 x, y, z, w, vx, vy, vz, vw, x0, y0, z0, w0, vx0, vy0, vz0, vw0;
		Load8(p, &x, &y, &z, &w);
		Load8(q, &vx, &vy, &vz, &vw);
		Load8(p0, &x0, &y0, &z0, &w0);
		Load8(q0, &vx0, &vy0, &vz0, &vw0);
		// wfCheckFrame's tests: x + y + z + vx + vy + vz finite, |v|^2 within the limit's square.
		const __m256 sum = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_add_ps(x, y), z), vx), vy), vz);
		const __m256 speed2 = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(vx, vx), _mm256_mul_ps(vy, vy)), _mm256_mul_ps(vz, vz));
		bad = _mm256_or_ps(bad, _mm256_cmp_ps(_mm256_and_ps(sum, magnitude), inf, _CMP_NLT_UQ));
		bad = _mm256_or_ps(bad, _mm256_cmp_ps(speed2, l2, _CMP_GT_OQ));
		wfMotion8Add(&m, x0, y0, z0, w0, vx0, vy0, vz0, x, y, z, vx, vy, vz, _mm256_castsi256_ps(_mm256_set1_epi32(-1)));
		if ((i & 2047) == 2040) // 256 terms a lane, then on in double
			wfMotion8Fold(&m, out);
	}
	wfMotion8Fold(&m, out);
	*badOut = _mm256_movemask_ps(bad) != 0;
	return i;
}

#else

bool wfCpuHasAvx2(void) { return false; }

int wfCpuPredictAvx2(wfVec4* pos, wfVec4* vel, wfVec4* prev, int begin, int end, float h, float damping, wfVec3 a)
{
	(void)pos;
	(void)vel;
	(void)prev;
	(void)end;
	(void)h;
	(void)damping;
	(void)a;
	return begin;
}

int wfCpuVelocityAvx2(const wfVec4* pos, const wfVec4* prev, wfVec4* vel, int begin, int end, float factor)
{
	(void)pos;
	(void)prev;
	(void)vel;
	(void)end;
	(void)factor;
	return begin;
}

int wfCpuXpbdRangeAvx2(const wfConstraint* con, wfVec4* pos, wfVec4* vel, float* lambda, int begin, int blocks, const float* alphaTilde,
	float invH)
{
	(void)con;
	(void)pos;
	(void)vel;
	(void)lambda;
	(void)blocks;
	(void)alphaTilde;
	(void)invH;
	return begin;
}

#endif

bool wfCpuCheckPass(const wfCloth* c, const wfVec4* pos0, const wfVec4* vel0, const wfMotionConsts* k, float limit, bool avx2,
	wfMotionSums* out)
{
	memset(out, 0, sizeof *out);
	bool bad = false;
	int i = 0;
#if defined(__x86_64__) && defined(__GNUC__)
	if (avx2)
		i = CheckPassAvx2(c, pos0, vel0, k, limit, out, &bad);
#else
	(void)avx2;
#endif
	for (; i < c->model.particleCount; ++i) {
		const wfVec4 x = c->state.pos[i], v = c->state.vel[i];
		const float sum = x.x + x.y + x.z + v.x + v.y + v.z;
		bad |= !isfinite(sum) || v.x * v.x + v.y * v.y + v.z * v.z > limit * limit;
		wfMotionAdd(out, k, pos0[i], vel0[i], x, v);
	}
	return bad;
}
