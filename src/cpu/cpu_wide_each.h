// Includes the stages file WF_WIDE_STAGES (a quoted file name) once per width this target has:
// 1, 8 and 16 lanes on x86-64 (AVX2, AVX-512), 1 and 4 with wasm SIMD128; each time with WF_WIDTH
// defined, which the stages' names carry (WF_W). Defines WF_WIDE where any width is built; without
// it (another target) nothing is included and the caller keeps its scalar path.
//   #define WF_WIDE_STAGES "cpu_jacobi_stages.h"
//   #include "cpu_wide_each.h"
#if (defined(__x86_64__) && defined(__GNUC__)) || defined(__wasm_simd128__)
#ifndef WF_WIDE
#define WF_WIDE 1
#endif
#define WF_WIDTH 1
#include WF_WIDE_STAGES
#undef WF_WIDTH
#if defined(__x86_64__)
#define WF_WIDTH 8
#include WF_WIDE_STAGES
#undef WF_WIDTH
#define WF_WIDTH 16
#include WF_WIDE_STAGES
#undef WF_WIDTH
#else
#define WF_WIDTH 4
#include WF_WIDE_STAGES
#undef WF_WIDTH
#endif
#endif
#undef WF_WIDE_STAGES
