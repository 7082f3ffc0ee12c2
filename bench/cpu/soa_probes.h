// The structure-of-arrays kernel's probes (bench/cpu/soa_probes.c), for weft-xpbd-floor.
#ifndef WEFT_BENCH_SOA_PROBES_H
#define WEFT_BENCH_SOA_PROBES_H

#include "cpu/cpu.h"

// The design's floor, for bench/cpu: one pass of every colour as the solver makes it (SOLVE), or
// only its square roots and divisions (DIVIDE), or only its loads and stores (MEMORY); returns a
// value to keep the work alive, and the block, lane and single counts.
// SUBSTEP and WAVE: a whole substep of the Bullet comparison's scene, stage after stage or as the
// one-thread wave over the rows.
typedef enum wfCpuSoaProbeKind {
	WF_SOA_PROBE_SOLVE,
	WF_SOA_PROBE_DIVIDE,
	WF_SOA_PROBE_MEMORY,
	WF_SOA_PROBE_SUBSTEP,
	WF_SOA_PROBE_WAVE
} wfCpuSoaProbeKind;
double wfCpuSoaProbe(wfCpuSoa* soa, wfCpuSoaProbeKind kind, const float* alphaTilde, int* blocks, int* lanes, int* singles);
void wfCpuSoaLoad(wfCpuSoa* soa, const wfCloth* cloth); // positions and inverse masses into the arrays
// The threads' hand-over alone: `phases` phases on `threads` threads (at most the count soa was
// made for), each phase waiting for the two neighbours' phase before it and then publishing, as
// wfCpuSoaFrame does between its stages, with no work in between; returns the seconds taken.
double wfCpuSoaHandoverProbe(wfCpuSoa* soa, int threads, int phases);

#endif
