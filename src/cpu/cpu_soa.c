// XPBD on a grid cloth with the particles as separate x, y, z, w arrays (structure of arrays), a
// whole frame at a time, AVX2 or AVX-512, or SIMD128 in wasm (the stages written once over a wide
// float: cpu_soa_stages.h, cpu_wide.h; the threads' band schedule: cpu_bands.c; the kernel's
// measuring probes: bench/cpu/soa_probes.c).
//
// Why: the record-order kernel (cpu_simd.c) gathers eight 16-byte particles per constraint end and
// transposes them in and out, 24 instructions per projection. Here eight constraints of a colour
// whose ends are eight consecutive particles at both ends are one block: their x, y, z and w are
// plain 32-byte loads and stores, about 8 instructions per projection.
//
// The layout. Within a row, particles are stored by column mod 4 (columns 0, 4, 8, ... then 1, 5,
// 9, ... then 2, ... then 3, ...), rows one after another; each class is padded to 16 (or 8)
// slots where that adds at most a quarter, so classes start on cache lines (padding: w = 0).
// Every grid constraint then joins a particle of one such class to a particle of a class at the
// same or the next position: horizontal neighbours (x, x + 1) are class c and c + 1, bending
// springs (x, x + 2) c and c + 2, diagonals the same between two rows, vertical ones the same slot
// one or two rows down. So the constraints of a colour, sorted by their first end, fall into runs
// where both ends advance by one slot.
//
// Blocks. A run of L >= 8 constraints is solved in blocks of eight; when 8 does not divide L the
// last block starts 8 lanes before the run's end and its first lanes (`skip`) are constraints the
// block before has solved: they are masked, so they load and store their particles unchanged.
// Runs shorter than 8 are solved one constraint at a time. Nothing in the model changes: the
// blocks are a second view of the same constraints, and inside a colour no two constraints share
// a particle, so the order in which a colour is solved does not change a bit. Each lane performs
// the scalar solver's operations in its order (cpu_xpbd.c), so the result is bit for bit the
// scalar one (simd_matches_scalar_bitwise, soa_matches_scalar_bitwise).
//
// Threads. One parallel region per frame; thread t owns a band of rows (their particles, and the
// constraints whose first end lies in them). A constraint spans at most two rows, so with bands of
// two rows or more a thread shares particles only with its two neighbours. There is no team
// barrier between phases (predict, one per colour, finish): a band is cut into pairs of rows, a pair
// takes its next phase once the pairs beside it have done the phase before (PairWave), and only a
// band's two edge pairs are published. So work on shared particles is ordered as with barriers, a
// slow thread holds up only its neighbours, and after every frame the bands are cut again by each
// thread's measured speed (Rebalance); which thread solves which rows changes no bit.
#include "cpu.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

// x86-64 (AVX2, AVX-512) or WebAssembly with SIMD128 (the wasm core built with -msimd128); the
// stubs at the end elsewhere.
#if defined(__x86_64__) && defined(__GNUC__)
#define WF_SOA_X86 1
#include "cpu_avx2.h"

#include <sched.h>
#elif defined(__wasm_simd128__)
#define WF_SOA_WASM 1
#endif
#if defined(WF_SOA_X86) || defined(WF_SOA_WASM)
#include <stdatomic.h>

// A block of constraints of one colour and family (8 or 16, or 1 at the scalar width): lane l joins
// slots a + l and b + l.
typedef struct SoaBlock {
	int32_t a, b;
	int32_t family;
	uint32_t live; // bit l: the block solves lane l. A run's last block: 8 lanes, not [0, skip) that the
				   // block before solved (the last block overlaps it); 16 lanes, not those past the run's end
} SoaBlock;

// A constraint of a run shorter than a block.
typedef struct SoaSingle {
	int32_t a, b;
	int32_t family;
	float rest;
} SoaSingle;

// A thread's published phase, one cache line each.
typedef struct SoaFlag {
	_Alignas(64) atomic_int phase;
	char pad[64 - sizeof(atomic_int)];
} SoaFlag;

struct wfCpuSoa {
	int n, cols, rows, colorCount;
	int lanes;            // 16 (AVX-512), 8 (AVX2) or 1 (the scalar width, for tests) constraints per block
	int classSlots;       // slots per column class in a row (the class's particles, padded to align)
	int stride;           // slots per row: 4 classSlots
	int slots;            // rows x stride
	int* slot;            // (n) slot of particle i
	float* buf;           // the ten particle arrays below, one allocation
	float *x, *y, *z, *w; // (slots) positions, inverse mass; padding slots stay 0
	float *vx, *vy, *vz;  // (slots) velocities; within a substep the velocity its moves imply (wfCpuMoved)
	float *px, *py, *pz;  // (slots) positions at the substep start (WF_VELOCITY_POSITIONS: the finish's v = (x - p) / h)
	float invH;           // 1 / h of the frame's substeps
	bool moves;           // WF_VELOCITY_MOVES (wfCpuContext.moves)
	int blockCount, singleCount;
	SoaBlock* block;     // (blockCount) colour by colour, first ends ascending
	float* rest;         // (lanes x blockCount) rest length per lane
	float* lambda;       // (lanes x blockCount) multiplier per lane
	SoaSingle* single;   // (singleCount) colour by colour, first ends ascending
	float* lambdaSingle; // (singleCount)
	int* rowBlock;       // (colorCount x (rows + 1)) first block of colour c whose first end is in row >= r
	int* rowTail;        // (colorCount x (rows + 1)) the same for the runs' last, overlapping blocks
	int* rowSingle;      // (colorCount x (rows + 1)) the same for the singles
	int flagCount;
	SoaFlag* edge;        // (2 flagCount) the phase thread t's first (2 t) and last (2 t + 1) row pairs finished
	int* pairPhase;       // (rows) the phase row pair j of a band [r0, r1) finished, at r0 + j (PairWave)
	int bandTeam;         // the team the bands below were cut for (0: none yet)
	int ranTeam;          // the team the last frame ran on
	int* bandRow;         // (flagCount + 1) thread t's band: rows [bandRow[t], bandRow[t + 1])
	double* busy;         // (flagCount) seconds thread t worked in the last frame, its waits left out
	wfMotionSums* motion; // (flagCount) thread t's motion pre-tests of the last frame (StoreRows)
	double* rate;         // (flagCount) thread t's rows per second of work, smoothed over frames
	int busyRowsMin;      // the last frame's fewest and most rows of a band, least and most busy seconds
	int busyRowsMax;
	double busyMin, busyMax;
};

// Grids in the colour order only: the tile order (wfSolveOrder) takes cpu_xpbd.c.
#ifdef WF_SOA_X86
static bool SoaIsa(void) { return wfCpuHasAvx2(); }
#else
static bool SoaIsa(void) { return true; } // a wasm module with SIMD128 instructions runs only where they are
#endif
bool wfCpuSoaSupported(const wfClothModel* m) { return !m->mesh && m->tileSize == 0 && m->cols >= 8 && m->rows >= 2 && SoaIsa(); }

void wfCpuSoaFree(wfCpuSoa* s)
{
	if (s == NULL)
		return;
	wfFree(s->slot);
	wfFree(s->buf);
	wfFree(s->block);
	wfFree(s->rest);
	wfFree(s->lambda);
	wfFree(s->single);
	wfFree(s->lambdaSingle);
	wfFree(s->rowBlock);
	wfFree(s->rowTail);
	wfFree(s->rowSingle);
	wfFree(s->edge);
	wfFree(s->pairPhase);
	wfFree(s->bandRow);
	wfFree(s->busy);
	wfFree(s->motion);
	wfFree(s->rate);
	free(s);
}

// A constraint in slot terms, for sorting a colour by its first end.
typedef struct SoaEntry {
	int32_t a, b, family;
	float rest;
} SoaEntry;

static int CompareEntry(const void* l, const void* r)
{
	const SoaEntry *p = (const SoaEntry*)l, *q = (const SoaEntry*)r;
	return (p->a > q->a) - (p->a < q->a);
}

// *p replaced by a copy of its first `bytes` (64-byte aligned, as wfAlloc gives); false when out of memory.
static bool Shrink(void** p, size_t bytes)
{
	void* smaller = wfAlloc(bytes);
	if (smaller == NULL)
		return false;
	memcpy(smaller, *p, bytes);
	wfFree(*p);
	*p = smaller;
	return true;
}

int wfCpuSoaWidest(void)
{
#ifdef WF_SOA_X86
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f") ? 16 : 8;
#else
	return 4;
#endif
}

wfCpuSoa* wfCpuSoaCreate(const wfClothModel* m, int threads, int lanes)
{
	wfCpuSoa* s = (wfCpuSoa*)calloc(1, sizeof *s);
	if (s == NULL)
		return NULL;
	const int L = lanes == 16 || lanes == 4 || lanes == 1 ? lanes : 8;
	s->lanes = L;
	const int n = m->particleCount, cols = m->cols, rows = m->rows, colors = m->colorCount;
	s->n = n;
	s->cols = cols;
	s->rows = rows;
	s->colorCount = colors;
	s->flagCount = threads > 1 ? threads : 1;
	// Each column class padded to a multiple of 16 (or 8) slots when that adds at most a quarter,
	// so that every class starts on a 64-byte (32-byte) line and the blocks' loads and stores do
	// not split cache lines (60x60: 15 -> 16 slots; the 16-lane solve 1.8x faster, PERFORMANCE.md).
	const int classMax = (cols + 3) / 4;
	s->classSlots = classMax;
	for (int align = 16; align >= 8; align /= 2) {
		const int padded = (classMax + align - 1) / align * align;
		if (padded * 4 <= classMax * 5) {
			s->classSlots = padded;
			break;
		}
	}
	s->stride = 4 * s->classSlots;
	s->slots = rows * s->stride;
	const size_t arrayStride = ((size_t)s->slots + 15) & ~(size_t)15;
	s->slot = (int*)wfAlloc((size_t)n * sizeof(int));
	s->buf = (float*)wfAlloc(10 * arrayStride * sizeof(float));
	s->rowBlock = (int*)wfAlloc((size_t)colors * (size_t)(rows + 1) * sizeof(int));
	s->rowTail = (int*)wfAlloc((size_t)colors * (size_t)(rows + 1) * sizeof(int));
	s->rowSingle = (int*)wfAlloc((size_t)colors * (size_t)(rows + 1) * sizeof(int));
	s->bandRow = (int*)wfAlloc((size_t)(s->flagCount + 1) * sizeof(int));
	s->edge = (SoaFlag*)wfAlloc((size_t)(2 * s->flagCount) * sizeof(SoaFlag));
	s->pairPhase = (int*)wfAlloc((size_t)(rows > 0 ? rows : 1) * sizeof(int));
	s->busy = (double*)wfAlloc((size_t)s->flagCount * sizeof(double));
	s->motion = (wfMotionSums*)wfAlloc((size_t)s->flagCount * sizeof(wfMotionSums));
	s->rate = (double*)wfAlloc((size_t)s->flagCount * sizeof(double));
	SoaEntry* e = (SoaEntry*)malloc((size_t)(m->constraintCount > 0 ? m->constraintCount : 1) * sizeof(SoaEntry));
	SoaEntry* unsorted = (SoaEntry*)malloc((size_t)(m->constraintCount > 0 ? m->constraintCount : 1) * sizeof(SoaEntry));
	int* where = (int*)malloc((size_t)(s->slots > 0 ? s->slots : 1) * sizeof(int));
	// Blocks: a run of len >= least constraints (8 with 8 lanes, 4 with 16) takes ceil(len / L)
	// blocks, at most len / 4 either way, so a quarter of the constraints bounds them (a bound of one
	// block per constraint held 16 lanes of rest length and multiplier each: 770 of the 1550 bytes
	// of a particle of a grid, docs/design/solvers.md "Memory of a particle"). With 4 lanes (runs of at least 4) a run takes
	// at most len / 2 (5: 2 blocks); with one, every constraint is a block. Singles: at most one per
	// constraint.
	const int perBlock = L == 1 ? 1 : L == 4 ? 2 : 4;
	const int blockCap = m->constraintCount / perBlock + colors + 1, singleCap = m->constraintCount + 1;
	s->block = (SoaBlock*)wfAlloc((size_t)blockCap * sizeof(SoaBlock));
	s->rest = (float*)wfAlloc((size_t)blockCap * (size_t)L * sizeof(float));
	s->lambda = (float*)wfAlloc((size_t)blockCap * (size_t)L * sizeof(float));
	s->single = (SoaSingle*)wfAlloc((size_t)singleCap * sizeof(SoaSingle));
	s->lambdaSingle = (float*)wfAlloc((size_t)singleCap * sizeof(float));
	if (!s->slot || !s->buf || !s->rowBlock || !s->rowTail || !s->rowSingle || !s->bandRow || !s->edge || !s->pairPhase || !s->busy ||
		!s->motion || !s->rate || !e || !unsorted || !where || !s->block || !s->rest || !s->lambda || !s->single || !s->lambdaSingle) {
		free(e);
		free(unsorted);
		free(where);
		wfCpuSoaFree(s);
		return NULL;
	}
	float** arrays[10] = {&s->x, &s->y, &s->z, &s->w, &s->vx, &s->vy, &s->vz, &s->px, &s->py, &s->pz};
	for (int k = 0; k < 10; ++k)
		*arrays[k] = s->buf + (size_t)k * arrayStride;
	// Slots: row by row, and within a row by column mod 4, class c from c classSlots on.
	for (int i = 0; i < n; ++i) {
		const int x = i % cols, y = i / cols;
		s->slot[i] = y * s->stride + (x % 4) * s->classSlots + x / 4;
	}
	for (int c = 0; c < colors; ++c) {
		const int begin = m->colorStart[c], count = m->colorStart[c + 1] - begin;
		// Sorted by first end: a colour touches a particle once, so its first ends are distinct and
		// one pass over the slots sorts them (qsort if a colouring ever repeats one).
		for (int i = 0; i < s->slots; ++i)
			where[i] = -1;
		bool distinct = true;
		for (int k = 0; k < count; ++k) {
			const wfConstraint q = m->constraints[begin + k];
			unsorted[k] = (SoaEntry){s->slot[q.a], s->slot[q.b], (int32_t)q.family, q.rest};
			distinct = distinct && where[unsorted[k].a] < 0;
			where[unsorted[k].a] = k;
		}
		if (distinct) {
			int out = 0;
			for (int i = 0; i < s->slots; ++i) {
				if (where[i] >= 0)
					e[out++] = unsorted[where[i]];
			}
		} else {
			memcpy(e, unsorted, (size_t)count * sizeof *e);
			qsort(e, (size_t)count, sizeof *e, CompareEntry);
		}
		// Runs: both ends one slot further, the same family, the first ends in one row. Each of
		// three passes emits one kind of work in row order: the whole blocks, the runs' last
		// blocks that overlap the block before (apart from it, so that its loads do not wait for
		// that block's stores), and the singles.
		for (int pass = 0; pass < 3; ++pass) {
			int* rows0 = (pass == 0 ? s->rowBlock : pass == 1 ? s->rowTail : s->rowSingle) + (size_t)c * (size_t)(rows + 1);
			int row = 0;
			for (int j0 = 0; j0 < count;) {
				int j1 = j0 + 1;
				while (j1 < count && e[j1].a == e[j1 - 1].a + 1 && e[j1].b == e[j1 - 1].b + 1 && e[j1].family == e[j0].family &&
					e[j1].a / s->stride == e[j0].a / s->stride)
					++j1;
				for (const int r = e[j0].a / s->stride; row <= r; ++row)
					rows0[row] = pass < 2 ? s->blockCount : s->singleCount;
				const int len = j1 - j0;
				// Eight (four) lanes: runs of at least 8 (4) in whole blocks, the last one overlapping
				// the block before it; sixteen lanes (masked loads and stores): runs of at least 4, the
				// last block masked past the run's end; one lane: every constraint a block.
				const int least = L == 16 ? 4 : L;
				const bool overlap = L != 16;
				if (pass == 2 && len < least) {
					for (int j = j0; j < j1; ++j)
						s->single[s->singleCount++] = (SoaSingle){e[j].a, e[j].b, e[j].family, e[j].rest};
				}
				for (int j = j0; len >= least && pass < 2 && j < j1; j += L) {
					const bool tail = j + L > j1;
					if (tail != (pass == 1))
						continue;
					const int first = tail && overlap ? j1 - L : j;
					const int skip = overlap ? j - first : tail ? j + L - j1 : 0;
					const uint32_t lanesBits = (1u << L) - 1u; // L <= 16
					const uint32_t live = overlap ? (lanesBits << skip) & lanesBits : lanesBits >> skip;
					s->block[s->blockCount] = (SoaBlock){e[first].a, e[first].b, e[first].family, live};
					for (int l = 0; l < L; ++l)
						s->rest[(size_t)L * (size_t)s->blockCount + (size_t)l] = first + l < j1 ? e[first + l].rest : 0.0f;
					s->blockCount++;
				}
				j0 = j1;
			}
			for (; row <= rows; ++row)
				rows0[row] = pass < 2 ? s->blockCount : s->singleCount;
		}
	}
	free(e);
	free(unsorted);
	free(where);
	// The blocks and singles at their counts (a grid has about one block per 16 constraints and no
	// singles): the bounds above are freed once the counts are known.
	if (!Shrink((void**)&s->block, (size_t)s->blockCount * sizeof(SoaBlock)) ||
		!Shrink((void**)&s->rest, (size_t)s->blockCount * (size_t)L * sizeof(float)) ||
		!Shrink((void**)&s->lambda, (size_t)s->blockCount * (size_t)L * sizeof(float)) ||
		!Shrink((void**)&s->single, (size_t)s->singleCount * sizeof(SoaSingle)) ||
		!Shrink((void**)&s->lambdaSingle, (size_t)s->singleCount * sizeof(float))) {
		wfCpuSoaFree(s);
		return NULL;
	}
	return s;
}

// ---------------------------------------------------------------------------------------------
// Kernels: the stages (cpu_soa_stages.h) once per width over cpu_wide.h's wide float, and what
// stays scalar at every width.

// Singles [s0, s1): the scalar solver's loop on the arrays.
static void SolveSingles(wfCpuSoa* s, int s0, int s1, const float* alphaTilde, bool first)
{
	float* restrict x = s->x, * restrict y = s->y, * restrict z = s->z;
	const float* restrict w = s->w;
	for (int k = s0; k < s1; ++k) {
		const SoaSingle q = s->single[k];
		if (first)
			s->lambdaSingle[k] = 0.0f;
		const float wa = w[q.a], wb = w[q.b];
		const float wsum = wa + wb;
		const float dx = x[q.a] - x[q.b], dy = y[q.a] - y[q.b], dz = z[q.a] - z[q.b];
		const float len = sqrtf(dx * dx + dy * dy + dz * dz);
		if (wsum == 0.0f || len < WF_MIN_LENGTH)
			continue;
		const float at = alphaTilde[q.family];
		const float dl = -(len - q.rest + at * s->lambdaSingle[k]) / (wsum + at);
		s->lambdaSingle[k] += dl;
		const float sc = dl / len;
		const float sa = sc * wa, sb = sc * wb;
		const float ax = sa * dx, ay = sa * dy, az = sa * dz, bx = sb * dx, by = sb * dy, bz = sb * dz;
		x[q.a] += ax;
		y[q.a] += ay;
		z[q.a] += az;
		x[q.b] -= bx;
		y[q.b] -= by;
		z[q.b] -= bz;
		if (!s->moves)
			continue;
		s->vx[q.a] += ax * s->invH;
		s->vy[q.a] += ay * s->invH;
		s->vz[q.a] += az * s->invH;
		s->vx[q.b] -= bx * s->invH;
		s->vy[q.b] -= by * s->invH;
		s->vz[q.b] -= bz * s->invH;
	}
}

// One particle's collisions through the scalar routine.
static void CollideSlot(wfCpuSoa* s, const wfCpuColliders* k, int i)
{
	wfVec4 x = {s->x[i], s->y[i], s->z[i], s->w[i]}, v = {s->vx[i], s->vy[i], s->vz[i], 0.0f};
	wfCpuCollideParticle(k, &x, &v);
	s->x[i] = x.x;
	s->y[i] = x.y;
	s->z[i] = x.z;
	s->vx[i] = v.x;
	s->vy[i] = v.y;
	s->vz[i] = v.z;
}

// The stages at 1 lane (the scalar fallback and the wider loops' remainders), and at 8 (AVX2) and
// 16 (AVX-512) on x86-64 or 4 (SIMD128) in wasm; each wider width hands its loops' remainders to
// the next narrower one. WF_SOA_WIDTH(name) is the stage `name` at the kernel's width.
#define WF_WIDTH 1
#define WF_WIDTH_REST 0
#define WF_SOA_PIPELINE 0
#include "cpu_soa_stages.h"
#undef WF_WIDTH
#undef WF_WIDTH_REST
#undef WF_SOA_PIPELINE
#ifdef WF_SOA_X86
#define WF_WIDTH 8
#define WF_WIDTH_REST 1
#define WF_SOA_PIPELINE 0
#include "cpu_soa_stages.h"
#undef WF_WIDTH
#undef WF_WIDTH_REST
#undef WF_SOA_PIPELINE
#define WF_WIDTH 16
#define WF_WIDTH_REST 8
#define WF_SOA_PIPELINE 1
#include "cpu_soa_stages.h"
#undef WF_WIDTH
#undef WF_WIDTH_REST
#undef WF_SOA_PIPELINE
#define WF_SOA_WIDTH(name) (s->lanes == 16 ? name##16 : s->lanes == 8 ? name##8 : name##1)
#else
#define WF_WIDTH 4
#define WF_WIDTH_REST 1
#define WF_SOA_PIPELINE 0
#include "cpu_soa_stages.h"
#undef WF_WIDTH
#undef WF_WIDTH_REST
#undef WF_SOA_PIPELINE
#define WF_SOA_WIDTH(name) (s->lanes == 4 ? name##4 : name##1)
#endif

static void PredictRows(wfCpuSoa* s, int i0, int i1, float h, float damping, wfVec3 a) { WF_SOA_WIDTH(Predict)(s, i0, i1, h, damping, a); }

static void FinishRows(wfCpuSoa* s, const wfCpuColliders* k, int i0, int i1, float factor) { WF_SOA_WIDTH(Finish)(s, k, i0, i1, factor); }

// ---------------------------------------------------------------------------------------------
// The frame.

// One step of a wait: a pause for the first 256, then the core given up (a machine with more threads
// than cores would otherwise spin away the time slice of the thread waited for).
static void Backoff(int spin)
{
#ifdef WF_SOA_X86
	if (spin < 256)
		_mm_pause();
	else
		sched_yield();
#else
	(void)spin; // wasm: one thread, which never waits
#endif
}

// Predict of slots [i0, i1), and the grabbed particle's target if it lies there.
static void PredictBand(wfCpuSoa* s, const wfCloth* c, int grab, int i0, int i1, float h, float damping, wfVec3 accel)
{
	PredictRows(s, i0, i1, h, damping, accel);
	if (grab >= i0 && grab < i1) {
		s->x[grab] = c->local.grabTarget.x;
		s->y[grab] = c->local.grabTarget.y;
		s->z[grab] = c->local.grabTarget.z;
	}
}

// After a frame: each thread's speed (rows per second of work), smoothed, and the bands cut again in
// proportion to it, so that a slower core (one shared with another thread, a lower clock) gets
// fewer rows and the team does not wait for it. Which thread solves which rows changes no bit.
static void Rebalance(wfCpuSoa* s, int team)
{
	s->busyRowsMin = s->busyRowsMax = s->bandRow[1] - s->bandRow[0];
	s->busyMin = s->busyMax = s->busy[0];
	for (int t = 0; t < team; ++t) {
		const int rows = s->bandRow[t + 1] - s->bandRow[t];
		s->busyRowsMin = rows < s->busyRowsMin ? rows : s->busyRowsMin;
		s->busyRowsMax = rows > s->busyRowsMax ? rows : s->busyRowsMax;
		s->busyMin = s->busy[t] < s->busyMin ? s->busy[t] : s->busyMin;
		s->busyMax = s->busy[t] > s->busyMax ? s->busy[t] : s->busyMax;
	}
	if (team < 2)
		return;
	wfCpuSoaUpdateRates(team, s->bandRow, s->busy, s->rate);
	wfCpuSoaCutBands(s->rows, team, s->rate, s->bandRow);
}

int wfCpuSoaThreads(const wfCpuSoa* s, const wfCpuContext* ctx)
{
	if (!ctx->parallel)
		return 1;
	int t = ctx->threads < s->flagCount ? ctx->threads : s->flagCount;
	return t < s->rows / 2 ? t : s->rows / 2 > 0 ? s->rows / 2 : 1;
}

// The constraints of one colour whose first end lies in rows [r0, r1).
static void SolveRows(wfCpuSoa* s, int color, int r0, int r1, const float* alphaTilde, bool first)
{
	const size_t row = (size_t)color * (size_t)(s->rows + 1);
	void (*solve)(wfCpuSoa*, int, int, const float*, bool, bool) = WF_SOA_WIDTH(SolveBlocks);
	solve(s, s->rowBlock[row + r0], s->rowBlock[row + r1], alphaTilde, first, false);
	solve(s, s->rowTail[row + r0], s->rowTail[row + r1], alphaTilde, first, true);
	SolveSingles(s, s->rowSingle[row + r0], s->rowSingle[row + r1], alphaTilde, first);
}

// One substep on one thread as a wave over the rows, so that the rows being worked on stay in the
// first-level cache from colour to colour instead of every colour streaming the whole cloth again.
// The stages in order are predict, every iteration's colours, finish; each is done up to a row
// (done[]) and advances a few rows at a time behind the one before it. A constraint spans at most
// two rows, so a colour may solve the constraints whose first end is in row y once the stage
// before it is done up to row y + 2: every constraint of an earlier stage that touches the same
// particles (first ends in rows y - 2 .. y + 2) is then done, and those it has not reached touch
// only rows beyond y + 2. Finish of row y needs the last colour done up to row y. Every particle
// thus sees the stages in the order of the plain loop, and each constraint the same inputs:
// the same bits.
enum { WF_SOA_WAVE_ROWS = 4, WF_SOA_MAX_STAGES = 2 + 16 * 64 };
static void WaveSubstep(wfCpuSoa* s, const wfCloth* c, const wfCpuColliders* k, int grab, float h, float damping, wfVec3 accel,
	float factor, const float* alphaTilde, int iterations)
{
	const int rows = s->rows, stride = s->stride, colours = iterations * s->colorCount;
	int done[WF_SOA_MAX_STAGES]; // predict, colours..., finish
	const int stages = colours + 2;
	for (int q = 0; q < stages; ++q)
		done[q] = 0;
	while (done[stages - 1] < rows) {
		// Predict a few rows further.
		int to = done[0] + WF_SOA_WAVE_ROWS < rows ? done[0] + WF_SOA_WAVE_ROWS : rows;
		if (to > done[0]) {
			PredictRows(s, done[0] * stride, to * stride, h, damping, accel);
			if (grab >= 0 && grab >= done[0] * stride && grab < to * stride) {
				s->x[grab] = c->local.grabTarget.x;
				s->y[grab] = c->local.grabTarget.y;
				s->z[grab] = c->local.grabTarget.z;
			}
			done[0] = to;
		}
		// Each colour up to two rows behind the stage before it (all rows once that one is done).
		for (int q = 1; q <= colours; ++q) {
			to = done[q - 1] == rows ? rows : done[q - 1] - 2;
			if (to > done[q]) {
				SolveRows(s, (q - 1) % s->colorCount, done[q], to, alphaTilde, q <= s->colorCount);
				done[q] = to;
			}
		}
		// Finish up to where the last colour is.
		to = done[colours];
		if (to > done[stages - 1]) {
			FinishRows(s, k, done[stages - 1] * stride, to * stride, factor);
			done[stages - 1] = to;
		}
	}
}

#ifdef WF_SOA_X86
// The state of rows [r0, r1) into the arrays, less the frame's re-centring shift. Within a row,
// column class c holds particles c, c + 4, c + 8, ...: eight of them (64 bytes apart) are one
// transpose of eight 16-byte records into x, y, z, w.
WF_TARGET_AVX2 static void LoadRows(wfCpuSoa* s, const wfCloth* c, int r0, int r1)
{
	const wfVec3 shift = c->local.shift;
	const bool shifted = shift.x != 0.0f || shift.y != 0.0f || shift.z != 0.0f;
	const __m256 sx = _mm256_set1_ps(shift.x), sy = _mm256_set1_ps(shift.y), sz = _mm256_set1_ps(shift.z);
	const int cols = s->cols;
	for (int r = r0; r < r1; ++r) {
		for (int cl = 0; cl < 4 && cl < cols; ++cl) {
			const int count = (cols - cl + 3) / 4, first = r * cols + cl, slot0 = s->slot[first];
			int k = 0;
			for (; k + 8 <= count; k += 8) {
				const float* p[8];
				const float* q[8];
				for (int l = 0; l < 8; ++l) {
					p[l] = &c->state.pos[first + 4 * (k + l)].x;
					q[l] = &c->state.vel[first + 4 * (k + l)].x;
				}
				__m256 x, y, z, w, vx, vy, vz, vw;
				Load8(p, &x, &y, &z, &w);
				Load8(q, &vx, &vy, &vz, &vw);
				if (shifted) {
					x = _mm256_sub_ps(x, sx);
					y = _mm256_sub_ps(y, sy);
					z = _mm256_sub_ps(z, sz);
				}
				const int o = slot0 + k;
				_mm256_storeu_ps(s->x + o, x);
				_mm256_storeu_ps(s->y + o, y);
				_mm256_storeu_ps(s->z + o, z);
				_mm256_storeu_ps(s->w + o, w);
				_mm256_storeu_ps(s->vx + o, vx);
				_mm256_storeu_ps(s->vy + o, vy);
				_mm256_storeu_ps(s->vz + o, vz);
			}
			for (; k < count; ++k) {
				const int i = first + 4 * k, o = slot0 + k;
				wfVec4 q = c->state.pos[i];
				if (shifted) {
					q.x -= shift.x;
					q.y -= shift.y;
					q.z -= shift.z;
				}
				s->x[o] = q.x;
				s->y[o] = q.y;
				s->z[o] = q.z;
				s->w[o] = q.w;
				s->vx[o] = c->state.vel[i].x;
				s->vy[o] = c->state.vel[i].y;
				s->vz[o] = c->state.vel[i].z;
			}
		}
	}
}

// The arrays of rows [r0, r1) back into the state, with the frame check's two tests in
// wfCheckFrame's expressions: x + y + z + vx + vy + vz finite, |v|^2 no more than the limit's
// square. Returns whether a particle failed one. The records it overwrites still hold the frame
// start (the backup's values), and their cache lines are fetched for the stores anyway: the motion
// pre-tests (wfMotion8Add) read them there, into `motion`, a row at a time.
WF_TARGET_AVX2 static bool StoreRows(wfCpuSoa* s, wfCloth* c, int r0, int r1, float limit, const wfMotionConsts* mk, wfMotionSums* motion)
{
	wfMotion8 m;
	wfMotion8Init(&m, mk);
	const __m256 all = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
	const int cols = s->cols;
	const __m256 zero = _mm256_setzero_ps(), inf = _mm256_set1_ps(INFINITY), l2 = _mm256_set1_ps(limit * limit);
	const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
	__m256 bad = zero;
	bool badScalar = false;
	for (int r = r0; r < r1; ++r) {
		for (int cl = 0; cl < 4 && cl < cols; ++cl) {
			const int count = (cols - cl + 3) / 4, first = r * cols + cl, slot0 = s->slot[first];
			int k = 0;
			for (; k + 8 <= count; k += 8) {
				const int o = slot0 + k;
				const __m256 x = _mm256_loadu_ps(s->x + o), y = _mm256_loadu_ps(s->y + o), z = _mm256_loadu_ps(s->z + o);
				const __m256 vx = _mm256_loadu_ps(s->vx + o), vy = _mm256_loadu_ps(s->vy + o), vz = _mm256_loadu_ps(s->vz + o);
				float* p[8];
				float* q[8];
				for (int l = 0; l < 8; ++l) {
					p[l] = &c->state.pos[first + 4 * (k + l)].x;
					q[l] = &c->state.vel[first + 4 * (k + l)].x;
				}
				__m256 x0, y0, z0, w0, vx0, vy0, vz0, vw0;
				Load8((const float* const*)p, &x0, &y0, &z0, &w0);
				Load8((const float* const*)q, &vx0, &vy0, &vz0, &vw0);
				wfMotion8Add(&m, x0, y0, z0, w0, vx0, vy0, vz0, x, y, z, vx, vy, vz, all);
				Store8(p, x, y, z, _mm256_loadu_ps(s->w + o));
				Store8(q, vx, vy, vz, zero);
				const __m256 sum = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_add_ps(x, y), z), vx), vy), vz);
				const __m256 speed2 = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(vx, vx), _mm256_mul_ps(vy, vy)), _mm256_mul_ps(vz, vz));
				bad = _mm256_or_ps(bad, _mm256_cmp_ps(_mm256_and_ps(sum, magnitude), inf, _CMP_NLT_UQ)); // not finite
				bad = _mm256_or_ps(bad, _mm256_cmp_ps(speed2, l2, _CMP_GT_OQ));
			}
			// The tail: one masked block (the records of lanes past it repeat its first; the arrays'
			// loads are masked, the slots past a class may be the next class's or past the end).
			const int tailCount = count - k;
			if (tailCount > 0) {
				const __m256i liveBits = _mm256_cmpgt_epi32(_mm256_set1_epi32(tailCount), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
				const float* p[8];
				const float* q[8];
				for (int l = 0; l < 8; ++l) {
					const int i = first + 4 * (k + (l < tailCount ? l : 0));
					p[l] = &c->state.pos[i].x;
					q[l] = &c->state.vel[i].x;
				}
				__m256 x0, y0, z0, w0, vx0, vy0, vz0, vw0;
				Load8(p, &x0, &y0, &z0, &w0);
				Load8(q, &vx0, &vy0, &vz0, &vw0);
				const int o = slot0 + k;
				wfMotion8Add(&m, x0, y0, z0, w0, vx0, vy0, vz0, _mm256_maskload_ps(s->x + o, liveBits),
					_mm256_maskload_ps(s->y + o, liveBits), _mm256_maskload_ps(s->z + o, liveBits), _mm256_maskload_ps(s->vx + o, liveBits),
					_mm256_maskload_ps(s->vy + o, liveBits), _mm256_maskload_ps(s->vz + o, liveBits), _mm256_castsi256_ps(liveBits));
			}
			for (; k < count; ++k) {
				const int i = first + 4 * k, o = slot0 + k;
				const wfVec4 x = {s->x[o], s->y[o], s->z[o], s->w[o]}, v = {s->vx[o], s->vy[o], s->vz[o], 0.0f};
				c->state.pos[i] = x;
				c->state.vel[i] = v;
				const float sum = x.x + x.y + x.z + v.x + v.y + v.z;
				badScalar |= !isfinite(sum) || v.x * v.x + v.y * v.y + v.z * v.z > limit * limit;
			}
		}
		wfMotion8Fold(&m, motion);
	}
	return badScalar || _mm256_movemask_ps(bad) != 0;
}
#else
// The state of rows [r0, r1) into the arrays, less the frame's re-centring shift (wasm: particle by
// particle).
static void LoadRows(wfCpuSoa* s, const wfCloth* c, int r0, int r1)
{
	const wfVec3 shift = c->local.shift;
	const bool shifted = shift.x != 0.0f || shift.y != 0.0f || shift.z != 0.0f;
	for (int i = r0 * s->cols; i < r1 * s->cols; ++i) {
		const int o = s->slot[i];
		wfVec4 q = c->state.pos[i];
		if (shifted) {
			q.x -= shift.x;
			q.y -= shift.y;
			q.z -= shift.z;
		}
		s->x[o] = q.x;
		s->y[o] = q.y;
		s->z[o] = q.z;
		s->w[o] = q.w;
		s->vx[o] = c->state.vel[i].x;
		s->vy[o] = c->state.vel[i].y;
		s->vz[o] = c->state.vel[i].z;
	}
}

// The arrays of rows [r0, r1) back into the state with the frame check's two tests, and the motion
// pre-tests of each particle against the record it overwrites (the frame start) as
// wfCpuCheckPass's scalar loop adds them (wasm: particle by particle).
static bool StoreRows(wfCpuSoa* s, wfCloth* c, int r0, int r1, float limit, const wfMotionConsts* mk, wfMotionSums* motion)
{
	bool bad = false;
	for (int i = r0 * s->cols; i < r1 * s->cols; ++i) {
		const int o = s->slot[i];
		const wfVec4 x = {s->x[o], s->y[o], s->z[o], s->w[o]}, v = {s->vx[o], s->vy[o], s->vz[o], 0.0f};
		wfMotionAdd(motion, mk, c->state.pos[i], c->state.vel[i], x, v);
		c->state.pos[i] = x;
		c->state.vel[i] = v;
		const float sum = x.x + x.y + x.z + v.x + v.y + v.z;
		bad |= !isfinite(sum) || v.x * v.x + v.y * v.y + v.z * v.z > limit * limit;
	}
	return bad;
}
#endif

// A threaded frame on one band as a wave over its row pairs. The frame is a sequence of phases:
// for each substep one per particle (the finish of the substep before, this one's predict), then
// one per colour and iteration; last the final finish. A pair is the constraints whose first end
// lies in its two rows (three for a band's last pair when the band's rows are odd), or those rows'
// particles. A constraint reaches two rows past its first end, so the work of a pair in phase g
// shares particles only with the phase-g - 1 and g + 1 work of the pair itself and of the pairs
// next to it. A pair may thus do phase g + 1 once both its neighbours have done phase g: every two
// pieces of work that share a particle still run in the plain order, so the bits are the colour
// order's. The neighbours of a band's first and last pairs belong to the threads beside it, whose
// edge pairs they publish (s->edge). Each sweep tries the edge pairs first, then the pairs inward
// from both ends, so a thread keeps its neighbours supplied and works on its interior, which may
// trail its edges by a phase per pair of depth, while they wait. Returns the seconds it waited.
static double PairWave(wfCpuSoa* s, wfCpuContext* ctx, const wfCloth* c, int t, int team, int r0, int r1, int grab, const float* alphaTilde,
	float h, float damping, float factor)
{
	const wfFrameParams* p = ctx->params;
	const int colours = s->colorCount * p->iterations, per = 1 + colours, last = p->substeps * per + 1;
	const int pairs = (r1 - r0) / 2, stride = s->stride;
	int* phase = s->pairPhase + r0;
	for (int j = 0; j < pairs; ++j)
		phase[j] = 0;
	wfCpuColliders k = {0};
	int colliderSub = -1, accelSub = -1;
	wfVec3 accel = {0.0f, 0.0f, 0.0f};
	double waited = 0.0;
	for (int unfinished = pairs; unfinished > 0;) {
		const int above = t > 0 ? atomic_load_explicit(&s->edge[2 * t - 1].phase, memory_order_acquire) : INT_MAX;
		const int below = t + 1 < team ? atomic_load_explicit(&s->edge[2 * t + 2].phase, memory_order_acquire) : INT_MAX;
		bool progressed = false;
		for (int n = 0; n < pairs; ++n) {
			const int j = (n & 1) != 0 ? pairs - 1 - n / 2 : n / 2; // 0, pairs - 1, 1, pairs - 2, ...
			const int g = phase[j];
			if (g >= last || (j == 0 ? above : phase[j - 1]) < g || (j == pairs - 1 ? below : phase[j + 1]) < g)
				continue;
			// Phase g + 1 for rows [a, b).
			const int a = r0 + 2 * j, b = j == pairs - 1 ? r1 : a + 2, sub = g / per, q = g % per;
			if (q == 0) {
				if (sub > 0) {
					if (colliderSub != sub - 1) {
						ctx->substep = sub - 1;
						k = wfCpuCollidersAt(ctx, c);
						colliderSub = sub - 1;
					}
					FinishRows(s, &k, a * stride, b * stride, factor);
				}
				if (sub < p->substeps) {
					if (accelSub != sub) {
						accel = wfExternalAccel(p, sub, 0, 1.0f / c->material.mass);
						accelSub = sub;
					}
					PredictBand(s, c, grab, a * stride, b * stride, h, damping, accel);
				}
				wfCpuStageMark(ctx, sub > 0 ? WF_STAGE_FINISH : WF_STAGE_PREDICT);
			} else {
				SolveRows(s, (q - 1) % s->colorCount, a, b, alphaTilde, q - 1 < s->colorCount);
				wfCpuStageMark(ctx, WF_STAGE_SOLVE);
			}
			phase[j] = g + 1;
			unfinished -= g + 1 == last;
			if (j == 0)
				atomic_store_explicit(&s->edge[2 * t].phase, g + 1, memory_order_release);
			if (j == pairs - 1)
				atomic_store_explicit(&s->edge[2 * t + 1].phase, g + 1, memory_order_release);
			progressed = true;
		}
		if (progressed || unfinished == 0)
			continue;
		// Every pair waits for a neighbour's edge: spin a little, then yield, until one moves.
		const double t0 = wfCpuClock();
		for (int spin = 0; (t == 0 || atomic_load_explicit(&s->edge[2 * t - 1].phase, memory_order_acquire) == above) &&
			 (t + 1 >= team || atomic_load_explicit(&s->edge[2 * t + 2].phase, memory_order_acquire) == below);
			 ++spin)
			Backoff(spin);
		waited += wfCpuClock() - t0;
	}
	return waited;
}

bool wfCpuSoaFrame(wfCpuSoa* s, const wfCpuContext* ctx0, wfCloth* c, wfVec4* backupPos, wfVec4* backupVel, wfMotionSums* motion)
{
	const wfFrameParams* p = ctx0->params;
	const float h = p->h, damping = c->material.damping;
	s->invH = 1.0f / h;
	s->moves = ctx0->moves;
	const float factor = s->moves ? 1.0f : 1.0f / h; // the finish's v = factor v, or factor (x - p)
	const float alphaTilde[WF_FAMILY_COUNT] = {
		wfAlphaTilde(c->material.stretchCompliance, h),
		wfAlphaTilde(c->material.shearCompliance, h),
		wfAlphaTilde(c->material.bendCompliance, h),
	};
	const int threads = wfCpuSoaThreads(s, ctx0);
	const float limit = ctx0->world->def.maxSpeed;
	const wfMotionConsts mk = wfMotionConstsFor(c, p);
	for (int t = 0; t < 2 * s->flagCount; ++t)
		atomic_store_explicit(&s->edge[t].phase, 0, memory_order_relaxed);
	if (s->bandTeam != threads) { // a new team: even bands, speeds unknown
		for (int t = 0; t < threads; ++t)
			s->rate[t] = 1.0;
		wfCpuSoaCutBands(s->rows, threads, s->rate, s->bandRow);
		s->bandTeam = threads;
	}
	int bad = 0;
#pragma omp parallel num_threads(threads) if (threads > 1) reduction(| : bad)
	{
#ifdef _OPENMP
		const int t = omp_get_thread_num(), team = omp_get_num_threads();
#else
		const int t = 0, team = 1;
#endif
		const double started = wfCpuClock();
		double waited = 0.0;
		wfCpuContext ctx = *ctx0;
		// The bands cut for this team; even ones if OpenMP gave fewer threads (a nested region).
		const bool cut = team == threads;
		const int r0 = cut ? s->bandRow[t] : (int)((long long)s->rows * t / team);
		const int r1 = cut ? s->bandRow[t + 1] : (int)((long long)s->rows * (t + 1) / team);
		if (t == 0)
			s->ranTeam = team;
		const int p0 = r0 * s->cols, p1 = r1 * s->cols; // the band's particles
		// The frame start: the backup (the state before the re-centring shift), the shift, and
		// the state into the arrays.
		memcpy(backupPos + p0, c->state.pos + p0, (size_t)(p1 - p0) * sizeof(wfVec4));
		memcpy(backupVel + p0, c->state.vel + p0, (size_t)(p1 - p0) * sizeof(wfVec4));
		LoadRows(s, c, r0, r1);
		const int grab = c->grabIndex >= p0 && c->grabIndex < p1 ? s->slot[c->grabIndex] : -1;
		// One thread: a substep at a time as the wave over the rows. Threads (and one thread with
		// stage timing): the frame as a wave over each band's row pairs (PairWave).
		if (team == 1 && ctx.timer == NULL && p->iterations * s->colorCount + 2 <= WF_SOA_MAX_STAGES) {
			for (int sub = 0; sub < p->substeps; ++sub) {
				ctx.substep = sub;
				const wfVec3 accel = wfExternalAccel(p, sub, 0, 1.0f / c->material.mass);
				const wfCpuColliders k = wfCpuCollidersAt(&ctx, c);
				WaveSubstep(s, c, &k, grab, h, damping, accel, factor, alphaTilde, p->iterations);
			}
		} else {
			waited = PairWave(s, &ctx, c, t, team, r0, r1, grab, alphaTilde, h, damping, factor);
		}
		// The frame end: the arrays back into the state, and the frame check's two tests
		// (wfCheckFrame's expressions), so that a good frame needs no second pass.
		memset(&s->motion[t], 0, sizeof s->motion[t]);
		bad |= StoreRows(s, c, r0, r1, limit, &mk, &s->motion[t]);
		s->busy[t] = wfCpuClock() - started - waited;
	}
	if (s->ranTeam == threads)
		Rebalance(s, threads);
	// The threads' motion pre-tests, in thread order.
	memset(motion, 0, sizeof *motion);
	for (int t = 0; t < s->ranTeam; ++t) {
		const wfMotionSums* m = &s->motion[t];
		motion->gain += m->gain;
		motion->kinetic += m->kinetic;
		motion->magnitude += m->magnitude;
		motion->free += m->free;
		motion->speed2 = fmaxf(motion->speed2, m->speed2);
		motion->tunnelled |= m->tunnelled;
	}
	return bad != 0;
}

wfCpuSoaTeam wfCpuSoaGetTeam(const wfCpuSoa* s)
{
	wfCpuSoaTeam team = {0};
	if (s != NULL && s->bandTeam > 1 && s->ranTeam == s->bandTeam)
		team = (wfCpuSoaTeam){s->bandTeam, s->busyRowsMin, s->busyRowsMax, s->busyMin, s->busyMax};
	return team;
}

#else

wfCpuSoaTeam wfCpuSoaGetTeam(const wfCpuSoa* s)
{
	(void)s;
	return (wfCpuSoaTeam){0};
}

bool wfCpuSoaSupported(const wfClothModel* m)
{
	(void)m;
	return false;
}
int wfCpuSoaWidest(void) { return 8; }
wfCpuSoa* wfCpuSoaCreate(const wfClothModel* m, int threads, int lanes)
{
	(void)m;
	(void)threads;
	(void)lanes;
	return NULL;
}
void wfCpuSoaFree(wfCpuSoa* s) { (void)s; }
int wfCpuSoaThreads(const wfCpuSoa* s, const wfCpuContext* ctx)
{
	(void)s;
	(void)ctx;
	return 1;
}
bool wfCpuSoaFrame(wfCpuSoa* s, const wfCpuContext* ctx, wfCloth* c, wfVec4* backupPos, wfVec4* backupVel, wfMotionSums* motion)
{
	(void)motion;
	(void)s;
	(void)ctx;
	(void)c;
	(void)backupPos;
	(void)backupVel;
	return false;
}

#endif
