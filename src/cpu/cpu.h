// CPU solvers: one substep each, plus the stages they share.
#ifndef WEFT_CPU_H
#define WEFT_CPU_H

#include "../core/internal.h"

// Cloths with at least this many particles are stepped by a team of OpenMP threads: each substep
// is one parallel region whose stages are worksharing loops (orphaned `omp for`, which run
// serially outside a region). Work inside a colour range or a particle loop is independent, so
// the result is the same for every thread count.
#define WF_CPU_PARALLEL_MIN 8192

typedef struct wfCpuContext {
	const wfFrameParams* params;
	int substep;
	int threads;
	bool avx2;     // use the AVX2 kernels (chosen once per world at run time)
	bool parallel; // this cloth is large enough for a thread team
} wfCpuContext;

// cpu_simd.c
bool wfCpuHasAvx2(void);
int wfCpuJacobiRangeAvx2(const wfConstraint* con, const float* weight, const wfVec4* src, wfVec4* acc, int begin, int blocks);
void wfCpuJacobiRangeScalar(const wfConstraint* con, const float* weight, const wfVec4* src, wfVec4* acc, int begin, int end);
int wfCpuSpringsRangeAvx2(const wfConstraint* con, const wfVec4* x, const wfVec4* v, wfVec4* force, int begin, int blocks,
	float k, float damping);
void wfCpuSpringsRangeScalar(const wfConstraint* con, const wfVec4* x, const wfVec4* v, wfVec4* force, int begin, int end,
	float k, float damping);
int wfCpuXpbdRangeAvx2(const wfConstraint* con, wfVec4* pos, float* lambda, int begin, int blocks, const float* alphaTilde);

// Stages shared by the solvers (cpu_stages.c).
void wfCpuPredict(const wfCpuContext* ctx, wfCloth* cloth, float damping);
void wfCpuPlaceGrab(wfCloth* cloth); // call from one thread (omp single)
void wfCpuCollide(const wfCpuContext* ctx, wfVec4* pos, wfVec4* vel, int count);

void wfCpuXpbdSubstep(const wfCpuContext* ctx, wfCloth* cloth);
void wfCpuJacobiSubstep(const wfCpuContext* ctx, wfCloth* cloth);
void wfCpuSpringsSubstep(const wfCpuContext* ctx, wfCloth* cloth);

#endif
