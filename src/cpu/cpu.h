// CPU solvers: one substep each, plus the stages they share.
#ifndef WEFT_CPU_H
#define WEFT_CPU_H

#include "../core/internal.h"

#include <math.h>

// Cloths with at least this many particles are stepped by a team of OpenMP threads: each substep
// is one parallel region whose stages are worksharing loops (orphaned `omp for`, which run
// serially outside a region); the structure-of-arrays XPBD path (cpu_soa.c) runs a whole frame in
// one region instead. Work inside a colour range or a particle loop is independent, so the result
// is the same for every thread count.
#define WF_CPU_PARALLEL_MIN 8192
// Particle loops work in blocks of this many particles (SIMD, then the scalar tail and collisions
// while the block is in L1); the blocks are split statically, so every thread keeps its particles.
#define WF_CPU_PARTICLE_BLOCK 64

// Per-stage wall-clock time of a frame (wfWorld_SetStageTiming): each mark charges the time since
// the previous one to a stage, so the stages add up to the whole step.
typedef struct wfCpuStageTimer {
	double seconds[WF_STAGE_COUNT]; // per wfStage
	double last;                    // clock at the last mark, s
} wfCpuStageTimer;

typedef struct wfCpuJacobi wfCpuJacobi;
typedef struct wfCpuSprings wfCpuSprings;

// The dynamic schedule's chunk of the contact loops (mesh bodies, self-collision): their work is
// uneven (only the particles near a body or a fold test much), and each element writes only its
// own results, so the schedule leaves the bits alone.
#define WF_CPU_CONTACT_CHUNK 64

typedef struct wfCpuContext {
	const wfFrameParams* params;
	int substep;
	int threads;
	bool avx2;                   // use the AVX2 kernels (chosen once per world at run time)
	bool parallel;               // this cloth is large enough for a thread team
	wfCpuStageTimer* timer;      // NULL: stage timing off
	const wfWorld* world;        // the colliders of the frame
	const wfCpuJacobi* jacobi;   // the cloth's structure-of-arrays Jacobi sweep (cpu_jacobi.c), or NULL: record order
	const wfCpuSprings* springs; // the cloth's per-particle spring gather (cpu_springs.c), or NULL: the scalar scatter
	bool moves;                  // XPBD, Jacobi: the substep's velocity summed move by move (wfWorldDef.velocity, wfCpuMoved)
	wfVec3* corners;             // (3 x triangleCount of the largest cloth) the mesh bodies' corner pass, or NULL: no closed body
	wfVec4* edges;               // (4 x constraintCount of the largest cloth) their edge pass, or NULL
} wfCpuContext;

// The motion tests of one particle (wfMotionSums; as wfMotion8Add in cpu_avx2.h, lane by lane).
static inline void wfMotionAdd(wfMotionSums* s, const wfMotionConsts* k, wfVec4 x0, wfVec4 v0, wfVec4 x1, wfVec4 v1)
{
	const float k0 = v0.x * v0.x + v0.y * v0.y + v0.z * v0.z, k1 = v1.x * v1.x + v1.y * v1.y + v1.z * v1.z;
	s->speed2 = fmaxf(s->speed2, fmaxf(k0, k1));
	s->tunnelled |= k->sphere && wfTunnelled(k, x0, x1);
	if (x0.w == 0.0f)
		return;
	const float ex = x1.x - x0.x + k->shift.x, ey = x1.y - x0.y + k->shift.y, ez = x1.z - x0.z + k->shift.z;
	const float fall = k->gravity.x * ex + k->gravity.y * ey + k->gravity.z * ez;
	const float h0 = 0.5f * k0, h1 = 0.5f * k1;
	s->gain += (double)(h1 - h0 - fall);
	s->kinetic += (double)h0;
	s->magnitude += (double)(h0 + h1 + fabsf(fall));
	s->free += 1.0;
}

// The frame check's pass over a cloth's particles at the frame end (the state against the backup
// pos0, vel0): wfCheckFrame's two tests, whose failure it returns (then wfCheckFrame finds the first
// bad particle in index order), and the motion pre-tests into `out`. AVX2 eight particles at a time.
bool wfCpuCheckPass(const wfCloth* cloth, const wfVec4* pos0, const wfVec4* vel0, const wfMotionConsts* k, float limit, bool avx2,
	wfMotionSums* out);

// cpu_simd.c
bool wfCpuHasAvx2(void);
void wfCpuJacobiRangeScalar(const wfConstraint* con, const float* weight, const wfVec4* src, wfVec4* acc, int begin, int end,
	bool pinFactor);
void wfCpuSpringsRangeScalar(const wfConstraint* con, const wfVec4* x, const wfVec4* v, wfVec4* force, int begin, int end, float k,
	float damping);
// XPBD: eight constraints at a time (cpu_xpbd.c's scalar loop); with `vel` each move also into the
// end's velocity (wfCpuMoved).
int wfCpuXpbdRangeAvx2(const wfConstraint* con, wfVec4* pos, wfVec4* vel, float* lambda, int begin, int blocks, const float* alphaTilde,
	float invH);
// Particle stages over [begin, end), two particles a step; return where the scalar loop goes on.
// Predict with a uniform acceleration a: v = v / (1 + h w damping) + h a, p = x, x += h v (w != 0).
int wfCpuPredictAvx2(wfVec4* pos, wfVec4* vel, wfVec4* prev, int begin, int end, float h, float damping, wfVec3 a);
// The finish's velocity with w = 0 for dynamic particles, 0 for the others (wfCpuFinish): v = f v, or
// with `prev` (WF_VELOCITY_POSITIONS) v = f (x - p).
int wfCpuVelocityAvx2(const wfVec4* pos, const wfVec4* prev, wfVec4* vel, int begin, int end, float f);

// Stages shared by the solvers (cpu_stages.c).
double wfCpuClock(void); // seconds, monotonic where OpenMP is there
// Ends a stage: the time since the last mark goes to `stage`. Call where every thread of the team
// has passed a barrier (the end of an `omp for` or `omp single`); only the master thread reads
// the clock. Touches no simulation data, so timing never changes a bit of the result.
void wfCpuStageMark(const wfCpuContext* ctx, wfStage stage);
// The aerodynamic acceleration of every particle into state.aero (from the substep-start state).
void wfCpuAero(const wfCpuContext* ctx, wfCloth* cloth);
void wfCpuPredict(const wfCpuContext* ctx, wfCloth* cloth, float damping);
// Each tethered particle back within its limit of its anchor (wfClothModel.tethers); with
// `velocities` (explicit springs) its outward velocity is removed too, else (XPBD, Jacobi) the
// move goes into the substep's velocity (wfCpuMoved).
void wfCpuTethers(const wfCpuContext* ctx, wfCloth* cloth, bool velocities);
// Cloth-against-cloth contacts (wfSelfCollisionDef.betweenCloths): the world's particles in one
// frame of reference and a hash grid over all of them, sized as cloths are added.
typedef struct wfCpuContacts {
	int capacity;    // particles the arrays hold
	int hashSize;    // a power of two >= 2 capacity
	int* start;      // (hashSize + 1)
	int* sorted;     // (capacity)
	uint32_t* key;   // (capacity)
	wfVec4* x;       // (capacity) positions in the frame of the first cloth's origin
	wfVec4* delta;   // (capacity)
	wfCloth** cloth; // (capacity) the particle's cloth
	int* particle;   // (capacity) its index in that cloth
} wfCpuContacts;
bool wfCpuContactsReserve(wfCpuContacts* contacts, int particles);
void wfCpuContactsFree(wfCpuContacts* contacts);
// After every cloth's substep: particles of different cloths pushed 2 thickness apart (their
// positions, and their velocities as the solver derives them from positions).
void wfCpuClothContacts(wfWorld* world, wfCpuContacts* contacts, const wfFrameParams* params);

// Self-collision (cpu_self.c, wfSelfCollisionDef) on the substep's positions; friction from the
// motion since `prev` (the substep-start positions; NULL: no friction). With `moves` (XPBD, Jacobi)
// every push goes into the substep's velocity too (wfCpuMoved); springs move positions only.
void wfCpuSelfCollide(const wfCpuContext* ctx, wfCloth* cloth, const wfVec4* prev, bool moves);
void wfCpuPlaceGrab(wfCloth* cloth); // call from one thread (omp single)
// XPBD and Jacobi keep the substep's velocity exact at any step (small steps without float drift;
// WF_VELOCITY_MOVES, ctx->moves): between predict and finish `vel` holds the velocity that the
// substep's moves imply, (x - p) / h with x - p summed move by move instead of read back from float
// positions (whose rounding, one float step of a position of ~1 m divided by h, grows as h
// shrinks). Predict sets it to the predicted velocity (x += h v); every stage that then moves a
// dynamic particle by d adds d / h (d * invH, invH = 1 / h rounded once) to it, in the same
// expression on every backend. With WF_VELOCITY_POSITIONS no stage touches it and the finish reads
// (x - p) / h.
static inline void wfCpuMoved(wfVec4* v, float invH, float dx, float dy, float dz)
{
	v->x += dx * invH;
	v->y += dy * invH;
	v->z += dz * invH;
}

// The end of an xpbd or jacobi substep: v = scale v for dynamic particles (1, or Jacobi's
// retention; with WF_VELOCITY_POSITIONS v = scale / h (x - p)), 0 for the others, then the
// collisions, block by block.
void wfCpuFinish(const wfCpuContext* ctx, wfCloth* cloth, float scale);

// The shapes of a substep in the cloth's local frame (wfShapeAt): the world's sphere and floor
// first, then the colliders, each surface pushed out by the contact thickness. Each solver's
// finishing loop updates a particle's velocity and collides it in the same pass
// (wfCpuCollideParticle), so the particles are read once.
typedef struct wfCpuColliders {
	const wfContactDef* contact;
	bool any;       // shapeCount > 0
	bool pretested; // every shape a sphere or a plane, which wfCpuMayTouch tests
	int shapeCount;
	wfShape shapes[WF_MAX_SHAPES];
	float reach[WF_MAX_SHAPES]; // the pretest's bound: a sphere's (radius + t)^2, a plane's level c.n + t
} wfCpuColliders;

wfCpuColliders wfCpuCollidersAt(const wfCpuContext* ctx, const wfCloth* cloth);

// Response to a contact with outward normal n at a collider moving with velocity vs:
// STOP zeroes the velocity (the second document); FRICTION removes the approaching normal part of
// the relative velocity and applies Coulomb friction, |dv_t| <= mu |v_n|, to the tangential part.
static inline void wfCpuRespond(const wfContactDef* contact, wfVec4* v, float nx, float ny, float nz, wfVec3 vs)
{
	if (contact->response == WF_CONTACT_STOP) {
		v->x = v->y = v->z = 0.0f;
		return;
	}
	float rx = v->x - vs.x, ry = v->y - vs.y, rz = v->z - vs.z;
	float vn = rx * nx + ry * ny + rz * nz;
	if (vn >= 0.0f)
		return;
	float tx = rx - vn * nx, ty = ry - vn * ny, tz = rz - vn * nz;
	float vt = sqrtf(tx * tx + ty * ty + tz * tz);
	float scale = vt > contact->friction * -vn ? 1.0f - contact->friction * -vn / vt : 0.0f;
	v->x = vs.x + tx * scale;
	v->y = vs.y + ty * scale;
	v->z = vs.z + tz * scale;
}

// Pushes a particle out of one collider (surface + thickness) and fixes its velocity against the
// collider's surface velocity there (cpu_stages.c).
void wfCpuCollideShape(const wfContactDef* contact, const wfShape* shape, wfVec4* x, wfVec4* v);

// Attached particles (wfClothDef.attachMode) onto their points of the mesh collider at the
// substep's end, or toward them by the compliance (XPBD, one projection a substep); with
// `velocities` (explicit springs) a held particle takes the point's velocity, else (XPBD, Jacobi)
// the move goes into the substep's velocity (wfCpuMoved).
void wfCpuAttach(const wfCpuContext* ctx, wfCloth* cloth, bool velocities);
// The triangle-mesh colliders (mesh_collider.c) after the other collisions, body by body: every
// dynamic particle's motion from `start` (the substep-start positions) to `pos` against the body's
// triangles, then the cloth's edges against its sharp edges and its corners against the cloth's
// triangles (closed bodies); velocities fixed against the body's surface velocity where it
// touches; with `moves` (inside an XPBD or Jacobi substep, before the finish) the pushes go into
// the substep's velocity instead (wfCpuMoved). The edge pass keeps each cloth edge's pushes in
// ctx->edges, the corner pass each cloth triangle's in ctx->corners. Call from every thread of the
// team (or outside a parallel region).
void wfCpuCollideMeshes(const wfCpuContext* ctx, wfCloth* cloth, const wfVec4* start, wfVec4* pos, wfVec4* vel, bool moves);

// Pushes a dynamic particle out of each shape in turn and fixes its velocity; runs after the
// particle's velocity update of the substep.
// Whether a particle at (x, y, z) may touch shape s of colliders that are all spheres and planes
// (k->pretested): the shape's own first test (wfCpuCollideShape's expressions, so a particle that
// touches is never passed over).
static inline bool wfCpuMayTouchShape(const wfCpuColliders* k, int s, float x, float y, float z)
{
	const wfShape* q = &k->shapes[s];
	if (q->type == WF_COLLIDER_SPHERE) {
		const float dx = x - q->center.x, dy = y - q->center.y, dz = z - q->center.z;
		return dx * dx + dy * dy + dz * dz < k->reach[s];
	}
	return wfPlaneHeight(q->axes[3], q->axes[4], q->axes[5], x, y, z) < k->reach[s];
}

static inline void wfCpuCollideParticle(const wfCpuColliders* k, wfVec4* x, wfVec4* v)
{
	for (int s = 0; s < k->shapeCount; ++s) {
		if (!k->pretested || wfCpuMayTouchShape(k, s, x->x, x->y, x->z))
			wfCpuCollideShape(k->contact, &k->shapes[s], x, v);
	}
}

// Whether a particle at (x, y, z) may touch any shape (wfCpuMayTouchShape; true for any other
// shape than spheres and planes). Lets a finishing loop skip the call for the particles far from
// everything.
static inline bool wfCpuMayTouch(const wfCpuColliders* k, float x, float y, float z)
{
	if (!k->pretested)
		return k->any;
	for (int s = 0; s < k->shapeCount; ++s) {
		if (wfCpuMayTouchShape(k, s, x, y, z))
			return true;
	}
	return false;
}

// wfCpuMayTouch for particles [0, n) of structure-of-arrays positions into touch[] (0 or -1), the
// same expressions shape by shape: loops the compiler does a vector at a time (a lane's compare
// result is its word).
static inline void wfCpuMayTouchRange(const wfCpuColliders* k, const float* restrict x, const float* restrict y, const float* restrict z,
	int n, int32_t* restrict touch)
{
	const int32_t all = k->pretested || !k->any ? 0 : -1;
	for (int i = 0; i < n; ++i)
		touch[i] = all;
	for (int s = 0; k->pretested && s < k->shapeCount; ++s) {
		const wfShape* q = &k->shapes[s];
		const float reach = k->reach[s];
		if (q->type == WF_COLLIDER_SPHERE) {
			const float cx = q->center.x, cy = q->center.y, cz = q->center.z;
			for (int i = 0; i < n; ++i) {
				const float dx = x[i] - cx, dy = y[i] - cy, dz = z[i] - cz;
				touch[i] |= -(int32_t)(dx * dx + dy * dy + dz * dz < reach);
			}
		} else {
			const float nx = q->axes[3], ny = q->axes[4], nz = q->axes[5];
			for (int i = 0; i < n; ++i)
				touch[i] |= -(int32_t)(wfPlaneHeight(nx, ny, nz, x[i], y[i], z[i]) < reach);
		}
	}
}

// XPBD on a grid in structure-of-arrays order, a whole frame at a time (cpu_soa.c, AVX2): the
// same bits as wfCpuXpbdSubstep frame after frame. Built per cloth at creation.
typedef struct wfCpuSoa wfCpuSoa;
bool wfCpuSoaSupported(const wfClothModel* model); // a grid of at least 8 columns; AVX2 present (wasm: SIMD128)
// Constraints per block: 16 where the processor has AVX-512 (wfCpuSoaWidest), else 8 (AVX2), 4 in
// wasm (SIMD128); 1, the scalar width of the same stages (cpu_soa_stages.h), is for tests.
int wfCpuSoaWidest(void);
wfCpuSoa* wfCpuSoaCreate(const wfClothModel* model, int threads, int lanes); // NULL: out of memory
void wfCpuSoaFree(wfCpuSoa* soa);
int wfCpuSoaThreads(const wfCpuSoa* soa, const wfCpuContext* ctx); // the team a frame runs on
// Every substep of a frame: first the frame-start state into backupPos/backupVel (before the
// re-centring shift, which it applies), last the new state into the cloth's state. Returns whether
// a particle fails the frame check's tests (non-finite, too fast): then run wfCheckFrame. The
// motion pre-tests (wfMotionSums) of the frame go to `motion`.
bool wfCpuSoaFrame(wfCpuSoa* soa, const wfCpuContext* ctx, wfCloth* cloth, wfVec4* backupPos, wfVec4* backupVel, wfMotionSums* motion);
// The bands of a threaded frame: rows [bandRow[t], bandRow[t + 1]) for thread t of `team`, in
// proportion to rate[t], each at least two rows (rows >= 2 team).
void wfCpuSoaCutBands(int rows, int team, const double* rate, int* bandRow);
// After a frame: each thread's rate (rows per second of work, relative to the team's mean) moved
// towards what the frame measured (busy[t] seconds for rows [bandRow[t], bandRow[t + 1])), smoothed
// and by at most a bounded factor; a thread without a positive, finite measure keeps its rate.
void wfCpuSoaUpdateRates(int team, const int* bandRow, const double* busy, double* rate);
// The last threaded frame's team (all 0 before one, or after a frame on one thread): its size, the
// fewest and most rows a thread was given, and the least and most seconds a thread worked.
typedef struct wfCpuSoaTeam {
	int threads, rowsMin, rowsMax;
	double busyMin, busyMax;
} wfCpuSoaTeam;
wfCpuSoaTeam wfCpuSoaGetTeam(const wfCpuSoa* soa);

void wfCpuXpbdSubstep(const wfCpuContext* ctx, wfCloth* cloth);
void wfCpuJacobiSubstep(const wfCpuContext* ctx, wfCloth* cloth);

// The padded adjacency of the per-particle gathers (Jacobi, springs; cpu_jacobi.c builds it): every
// particle's constraints in ascending constraint order, slot-major, each list padded to the most
// any particle has with slots naming the particle itself (a zero length, which the gathers skip as
// the scalar loops skip a constraint of zero length).
typedef struct wfCpuAdjacency {
	// Slot e of particle i is at e count + i: the other end of i's e-th constraint (ascending) in
	// `other`, or i itself past its degree; that constraint's rest length in `rest` (padding: 0).
	int particles;  // the model's
	int count;      // particles padded to a multiple of 16 (the padding particles: pinned, at the origin)
	int slots;      // the padded degree: the most constraints of a particle
	int32_t* other; // (slots x count)
	float* rest;    // (slots x count)
} wfCpuAdjacency;
bool wfCpuAdjacencyInit(wfCpuAdjacency* adj, const wfClothModel* model); // false: out of memory (free it still)
void wfCpuAdjacencyFree(wfCpuAdjacency* adj);

// The Jacobi sweep as a per-particle gather over a padded adjacency, particles as x, y, z, w arrays
// (cpu_jacobi.c): the same bits as the record-order sweep at every width. Built per cloth at
// creation; `lanes` 16 (AVX-512), 8 (AVX2), 4 (wasm SIMD128) or 1 (the scalar width, for tests).
bool wfCpuJacobiSupported(void);                                      // AVX2 present (wasm: SIMD128)
wfCpuJacobi* wfCpuJacobiCreate(const wfClothModel* model, int lanes); // NULL: out of memory
void wfCpuJacobiFree(wfCpuJacobi* jacobi);
void wfCpuSpringsSubstep(const wfCpuContext* ctx, wfCloth* cloth);
// The springs' forces as a per-particle gather fused with the Euler step (cpu_springs.c), over the
// same padded adjacency and at the same widths as the Jacobi's: the scalar scatter's bits.
bool wfCpuSpringsSupported(void);                                       // AVX2 present (wasm: no, see cpu_springs.c)
wfCpuSprings* wfCpuSpringsCreate(const wfClothModel* model, int lanes); // NULL: out of memory
void wfCpuSpringsFree(wfCpuSprings* springs);

#endif
