// weft-membw: how far memory bandwidth scales from one thread to several on this machine, for the
// working-set sizes of weft's CPU frames. The 2-thread target of the CPU solver (1.8x at 256x256)
// can only be met where the memory level holding the frame's arrays scales that well.
//
//   weft-membw [--threads N] [--reps N]
//
// Kernel: x[i] = x[i] * s + y[i] over float arrays (two streams read, one written, as a constraint
// sweep reads records and positions and writes positions), each thread on its own contiguous part,
// the arrays first touched by the thread that uses them. Reported: the median over the repetitions
// of bytes moved (12 per element) / time, for 1 thread and for N threads, and their ratio.
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int CompareDoubles(const void* a, const void* b)
{
	double x = *(const double*)a, y = *(const double*)b;
	return (x > y) - (x < y);
}

// Median GB/s of `reps` sweeps over n elements with `threads` threads (each sweep repeated until it
// lasts about 2 ms, so small sets are not timer-bound).
static double Bandwidth(float* x, const float* y, size_t n, int threads, int reps)
{
	double* rates = malloc(sizeof(double) * (size_t)reps);
	if (rates == NULL)
		return 0.0;
	int inner = (int)(2e6 / (double)n) + 1; // ~2e6 elements per timing
	for (int r = 0; r < reps; ++r) {
		double t0 = omp_get_wtime();
#pragma omp parallel num_threads(threads)
		{
			int t = omp_get_thread_num(), k = omp_get_num_threads();
			size_t lo = n * (size_t)t / (size_t)k, hi = n * (size_t)(t + 1) / (size_t)k;
			for (int rep = 0; rep < inner; ++rep) {
				for (size_t i = lo; i < hi; ++i)
					x[i] = x[i] * 0.999f + y[i];
#pragma omp barrier
			}
		}
		double dt = omp_get_wtime() - t0;
		rates[r] = 12.0 * (double)n * inner / dt * 1e-9;
	}
	qsort(rates, (size_t)reps, sizeof(double), CompareDoubles);
	double median = rates[reps / 2];
	free(rates);
	return median;
}

int main(int argc, char** argv)
{
	int threads = 2, reps = 31;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--threads") == 0)
			threads = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--reps") == 0)
			reps = atoi(argv[i + 1]);
		else {
			fprintf(stderr, "usage: weft-membw [--threads N] [--reps N]\n");
			return 2;
		}
	}
	if (threads < 1 || reps < 1) {
		fprintf(stderr, "weft-membw: --threads and --reps must be >= 1\n");
		return 2;
	}
	// Working sets (both arrays): inside L2, around weft's 256x256 frame (about 9 MB), beyond L3.
	const size_t sizesKb[] = {256, 1024, 8192, 16384, 65536, 524288};
	printf("working set   1 thread GB/s   %d threads GB/s   ratio\n", threads);
	for (size_t s = 0; s < sizeof sizesKb / sizeof sizesKb[0]; ++s) {
		size_t n = sizesKb[s] * 1024 / 8; // two float arrays
		float* x = malloc(n * sizeof(float));
		float* y = malloc(n * sizeof(float));
		if (x == NULL || y == NULL) {
			free(x);
			free(y);
			fprintf(stderr, "weft-membw: out of memory\n");
			return 1;
		}
#pragma omp parallel for num_threads(threads) schedule(static)
		for (size_t i = 0; i < n; ++i) {
			x[i] = 1.0f;
			y[i] = 0.5f;
		}
		double one = Bandwidth(x, y, n, 1, reps);
		double many = Bandwidth(x, y, n, threads, reps);
		printf("%8zu KB   %13.1f   %15.1f   %5.2fx\n", sizesKb[s], one, many, many / one);
		free(x);
		free(y);
	}
	return 0;
}
