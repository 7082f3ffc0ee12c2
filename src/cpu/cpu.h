// CPU solvers: one substep each, plus the stages they share.
#ifndef WEFT_CPU_H
#define WEFT_CPU_H

#include "../core/internal.h"

// Cloths with at least this many particles are stepped by a team of OpenMP threads: each substep
// is one parallel region whose stages are worksharing loops (orphaned `omp for`, which run
// serially outside a region). Work inside a colour range or a particle loop is independent, so
// the result is the same for every thread count.
#define WF_CPU_PARALLEL_MIN 8192

// Per-stage wall-clock time of a frame (wfWorld_SetStageTiming): each mark charges the time since
// the previous one to a stage, so the stages add up to the whole step.
typedef struct wfCpuStageTimer {
	double seconds[WF_STAGE_COUNT]; // per wfStage
	double last;                    // clock at the last mark, s
} wfCpuStageTimer;

typedef struct wfCpuContext {
	const wfFrameParams* params;
	int substep;
	int threads;
	bool avx2;     // use the AVX2 kernels (chosen once per world at run time)
	bool parallel; // this cloth is large enough for a thread team
	wfCpuStageTimer* timer; // NULL: stage timing off
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
double wfCpuClock(void); // seconds, monotonic where OpenMP is there
// Ends a stage: the time since the last mark goes to `stage`. Call where every thread of the team
// has passed a barrier (the end of an `omp for` or `omp single`); only the master thread reads
// the clock. Touches no simulation data, so timing never changes a bit of the result.
void wfCpuStageMark(const wfCpuContext* ctx, wfStage stage);
void wfCpuPredict(const wfCpuContext* ctx, wfCloth* cloth, float damping);
void wfCpuPlaceGrab(wfCloth* cloth); // call from one thread (omp single)
void wfCpuCollide(const wfCpuContext* ctx, wfVec4* pos, wfVec4* vel, int count);

void wfCpuXpbdSubstep(const wfCpuContext* ctx, wfCloth* cloth);
void wfCpuJacobiSubstep(const wfCpuContext* ctx, wfCloth* cloth);
void wfCpuSpringsSubstep(const wfCpuContext* ctx, wfCloth* cloth);

#endif
