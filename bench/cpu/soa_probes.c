// The structure-of-arrays kernel's probes, for weft-xpbd-floor only: this file compiles
// src/cpu/cpu_soa.c a second time with its internals in reach and adds the measurements, so the
// library itself holds none of them. The benchmark links this object before libweft.a, whose
// cpu_soa.c object is then never taken (every symbol it defines is already defined here).
#include "cpu/cpu_soa.c"
#include "soa_probes.h"

#if defined(__x86_64__) && defined(__GNUC__)
// The hand-over probe's protocol (wfCpuSoaHandoverProbe), PairWave's with one pair a thread: before
// phase `phase` the edges beside thread t have done phase - 1 (Backoff while not); then it
// publishes both its edges.
static void WaitNeighbours(wfCpuSoa* s, int t, int threads, int phase)
{
	for (int spin = 0; t > 0 && atomic_load_explicit(&s->edge[2 * t - 1].phase, memory_order_acquire) < phase - 1; ++spin)
		Backoff(spin);
	for (int spin = 0; t + 1 < threads && atomic_load_explicit(&s->edge[2 * t + 2].phase, memory_order_acquire) < phase - 1; ++spin)
		Backoff(spin);
}

static void Publish(wfCpuSoa* s, int t, int phase)
{
	atomic_store_explicit(&s->edge[2 * t].phase, phase, memory_order_release);
	atomic_store_explicit(&s->edge[2 * t + 1].phase, phase, memory_order_release);
}

// The floor of the design (docs/PERFORMANCE.md): one pass over every colour's blocks
// as the solver does it, and two loops over the same blocks that keep one part of its work each:
// the square root and the two divisions of a block (WF_SOA_PROBE_DIVIDE), or its ten loads and six
// stores (WF_SOA_PROBE_MEMORY). The probes do not touch the solver's arrays.
WF_TARGET_AVX2 static double ProbeDivide(const wfCpuSoa* s)
{
	__m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
	const __m256 one = _mm256_set1_ps(1.0f);
	for (int k = 0; k < s->blockCount; ++k) {
		for (int half = 0; half < s->lanes; half += 8) {
			const __m256 r = _mm256_add_ps(_mm256_load_ps(s->rest + (size_t)s->lanes * (size_t)k + (size_t)half), one);
			const __m256 len = _mm256_sqrt_ps(r);
			const __m256 dl = _mm256_div_ps(r, _mm256_add_ps(len, one));
			acc0 = _mm256_add_ps(acc0, _mm256_div_ps(dl, len));
			acc1 = _mm256_add_ps(acc1, dl);
		}
	}
	float out[8];
	_mm256_storeu_ps(out, _mm256_add_ps(acc0, acc1));
	return (double)out[0];
}

// Loads and stores back what the solver loads and stores (x + 0: the values stay, but for -0).
WF_TARGET_AVX2 static double ProbeMemory(wfCpuSoa* s)
{
	const size_t stride = (size_t)(s->y - s->x);
	const __m256 zero = _mm256_setzero_ps();
	for (int k = 0; k < s->blockCount; ++k) {
		const SoaBlock q = s->block[k];
		for (int half = 0; half < s->lanes; half += 8) {
			float *pa = s->x + q.a + half, *pb = s->x + q.b + half;
			const __m256 r = _mm256_load_ps(s->rest + (size_t)s->lanes * (size_t)k + (size_t)half);
			const __m256 aw = _mm256_loadu_ps(pa + 3 * stride), bw = _mm256_loadu_ps(pb + 3 * stride);
			const __m256 m = _mm256_and_ps(_mm256_add_ps(r, _mm256_add_ps(aw, bw)), zero);
			_mm256_storeu_ps(pa, _mm256_add_ps(_mm256_loadu_ps(pa), m));
			_mm256_storeu_ps(pa + stride, _mm256_add_ps(_mm256_loadu_ps(pa + stride), m));
			_mm256_storeu_ps(pa + 2 * stride, _mm256_add_ps(_mm256_loadu_ps(pa + 2 * stride), m));
			_mm256_storeu_ps(pb, _mm256_add_ps(_mm256_loadu_ps(pb), m));
			_mm256_storeu_ps(pb + stride, _mm256_add_ps(_mm256_loadu_ps(pb + stride), m));
			_mm256_storeu_ps(pb + 2 * stride, _mm256_add_ps(_mm256_loadu_ps(pb + 2 * stride), m));
		}
	}
	return (double)s->x[0];
}

double wfCpuSoaProbe(wfCpuSoa* s, wfCpuSoaProbeKind kind, const float* alphaTilde, int* blocks, int* lanes, int* singles)
{
	*blocks = s->blockCount;
	*lanes = 0;
	for (int k = 0; k < s->blockCount; ++k)
		*lanes += __builtin_popcount(s->block[k].live);
	*singles = s->singleCount;
	switch (kind) {
	case WF_SOA_PROBE_SOLVE:
		for (int c = 0; c < s->colorCount; ++c)
			SolveRows(s, c, 0, s->rows, alphaTilde, true);
		return (double)s->x[0];
	case WF_SOA_PROBE_SUBSTEP:
	case WF_SOA_PROBE_WAVE: {
		// A substep of the Bullet comparison's scene (gravity, no damping, nothing to collide with),
		// stage after stage or as the wave.
		const wfCpuColliders none = {0};
		const wfVec3 g = {0.0f, -9.8f, 0.0f};
		const float h = 1.0f / 600.0f;
		if (kind == WF_SOA_PROBE_WAVE) {
			WaveSubstep(s, NULL, &none, -1, h, 0.0f, g, 1.0f / h, alphaTilde, 1);
		} else {
			PredictRows(s, 0, s->slots, h, 0.0f, g);
			for (int c = 0; c < s->colorCount; ++c)
				SolveRows(s, c, 0, s->rows, alphaTilde, true);
			FinishRows(s, &none, 0, s->slots, 1.0f / h);
		}
		return (double)s->x[0];
	}
	case WF_SOA_PROBE_DIVIDE: return ProbeDivide(s);
	case WF_SOA_PROBE_MEMORY: return ProbeMemory(s);
	}
	return 0.0;
}

double wfCpuSoaHandoverProbe(wfCpuSoa* s, int threads, int phases)
{
	threads = threads < s->flagCount ? threads : s->flagCount;
	for (int t = 0; t < 2 * s->flagCount; ++t)
		atomic_store_explicit(&s->edge[t].phase, 0, memory_order_relaxed);
	double seconds = 0.0;
#pragma omp parallel num_threads(threads) if (threads > 1)
	{
#ifdef _OPENMP
		const int t = omp_get_thread_num(), team = omp_get_num_threads();
		const double t0 = omp_get_wtime();
#else
		const int t = 0, team = 1;
		const double t0 = 0.0;
#endif
		Publish(s, t, 1);
		for (int phase = 2; phase <= phases + 1; ++phase) {
			WaitNeighbours(s, t, team, phase);
			Publish(s, t, phase);
		}
#ifdef _OPENMP
#pragma omp barrier
		if (t == 0)
			seconds = omp_get_wtime() - t0;
#endif
	}
	return seconds;
}

// The arrays from a cloth's state (for the probes; the frame does this itself).
void wfCpuSoaLoad(wfCpuSoa* s, const wfCloth* c)
{
	for (int i = 0; i < s->n; ++i) {
		const int k = s->slot[i];
		s->x[k] = c->state.pos[i].x;
		s->y[k] = c->state.pos[i].y;
		s->z[k] = c->state.pos[i].z;
		s->w[k] = c->state.pos[i].w;
	}
}

#endif
