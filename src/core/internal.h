// Internal types shared by the core, the CPU solvers and the Vulkan backend. Not installed.
#ifndef WEFT_INTERNAL_H
#define WEFT_INTERNAL_H

#include "weft/weft.h"
#include "gpu/kernel_abi.h" // the numbers and records the CPU and the kernels share (plain C, no Vulkan header)

#include <stdarg.h>
#include <stdio.h>

// Programmer errors: a broken invariant. Calls the world's handler (default: print and abort).
// Kept in release builds: it guards memory safety, not speed.
#define WF_ASSERT(world, cond) \
	do { \
		if (!(cond)) \
			wfAssertFailed((world), #cond, __FILE__, __LINE__); \
	} while (0)

typedef struct wfVec4 {
	float x, y, z, w;
} wfVec4;

// Constraint families, in the order of wfClothInfo.familyCount.
enum { WF_FAMILY_STRETCH = 0, WF_FAMILY_SHEAR = 1, WF_FAMILY_BEND = 2, WF_FAMILY_COUNT = 3 };
// A tether's record (wfClothModel.tethers), kept apart from the constraints.
enum { WF_FAMILY_TETHER = 3 };

// One distance constraint. 16 bytes; the same layout is read by the GPU shaders.
typedef struct wfConstraint {
	uint32_t a, b;   // particle indices, a < b
	float rest;      // rest length
	uint32_t family; // WF_FAMILY_*
} wfConstraint;

// Model: built once from a cloth def, never changed by a step (MuJoCo's mjModel).
typedef struct wfClothModel {
	int cols, rows;
	int particleCount;
	int constraintCount;
	int familyCount[WF_FAMILY_COUNT];
	wfConstraint* constraints; // (constraintCount) sorted by colour
	int colorCount;
	int* colorStart; // (colorCount + 1) colour c is [colorStart[c], colorStart[c+1])
	// Per-particle adjacency for the gather solvers (Jacobi, springs): compressed rows.
	int* adjStart;           // (particleCount + 1)
	uint32_t* adjConstraint; // (2 * constraintCount) incident constraint indices, ascending
	uint32_t* adjOther;      // (2 * constraintCount) the other particle of that constraint
	float* jacobiWeight;     // (constraintCount) 1 / max(degree(a), degree(b)) (symmetric) or 1 (degree)
	bool jacobiDegree;       // WF_JACOBI_DEGREE: no pin factor, particle i scaled by s / degree(i)
	int maxDegree;           // the most constraints at one particle
	int triangleCount;
	uint32_t* indices; // (3 * triangleCount) two triangles per cell, counter-clockwise from +normal
	float* uvs;        // (particleCount x 2)
	float* cornerUVs;  // (6 x triangleCount) per triangle corner (a mesh's seams), or NULL
	int* triStart;     // (particleCount + 1) incident triangles per particle, compressed rows
	uint32_t* triList; // (3 x triangleCount) ascending triangle indices
	float* triArea;    // (triangleCount) rest areas: a flat grid cell's half, a mesh's; kept by tearing
	bool mesh;         // built from a wfMeshDef (cols = 1, rows = particleCount)
	// Each particle's partners along the edges of its triangles, each once, in the order of triList
	// and the corners (at most WF_MAX_EDGE_PARTNERS): the self-collision edge-edge pass's edges.
	int* partnerStart;     // (particleCount + 1) compressed rows
	uint32_t* partnerList; // (partnerStart[particleCount])
	// (particleCount) initial positions relative to the def's origin; w the particle's air share,
	// the cloth's mean lumped rest area over the particle's own (wfBuildAirShares, wfAeroAccel)
	wfVec4* restPositions;
	// Tethers (wfClothDef.tethers), or NULL: record i is particle i's, b its anchor (0xffffffff: none),
	// rest its length limit, family WF_FAMILY_TETHER. Built from the pins at creation (tether.c).
	wfConstraint* tethers;
	// The tile order (wfSolveOrder; tileSize 0: none). A
	// constraint's owner cell is its smallest column and row; owner cells are cut into tileSize
	// squares, ranked by tile colour (column and row parity, WF_TILE_COLORS of them: (0, 0), (1, 0),
	// (0, 1), (1, 1)), then row by row. Within every colour the constraints are sorted by tile rank.
	// XPBD then relaxes tile colour by tile colour, and within one, colour by colour: a tile's
	// constraints touch its square and two more columns and rows, so two tiles of one tile colour
	// (a square apart) never share a particle and each may run every colour alone (xpbd_tiled.comp,
	// a workgroup per tile, its region in shared memory). It is Gauss-Seidel with
	// WF_TILE_COLORS x colorCount colours, which the CPU follows (wfTileRange).
	int tileSize;
	int tilesX, tilesY, tileCount;
	int tileColorFirst[5]; // (WF_TILE_COLORS + 1) tiles of tile colour t are ranks [first[t], first[t + 1])
	int* tileStart;        // (colorCount x (tileCount + 1)) see wfTileRange
	// What XPBD relaxes one after another, in the cloth's order: [solveRange[2 r], solveRange[2 r + 1])
	// for r < solveRangeCount; the colours, or in the tile order each colour of each tile colour
	// (empty ones left out). Every per-range solver walks these (CPU, Vulkan, WebGPU).
	int solveRangeCount;
	int* solveRange;
} wfClothModel;

#define WF_TILE_COLORS 4
// WF_ORDER_AUTO on a Vulkan GPU: grids of at least this many particles (512 x 512) take the tile order,
// which replaces the 12 passes over the positions per iteration by about one; on the H200 it wins
// from 512 x 512 on (0.62 against 0.68 ms, 1024 x 1024 1.12 against 1.92) and loses at 384 x 384
// (0.58 against 0.53), where a dispatch of a tile colour has too few tiles (docs/PERFORMANCE.md). Not
// on a CPU device: lavapipe takes 3.8 s a frame at 1024 x 1024 in tiles, 2.0 s by colours.
#define WF_TILE_ORDER_FROM 262144

// The first constraint of colour c in the tile of rank g (g = tileCount: the colour's end). Colour c
// of tile colour t is [wfTileRange(m, c, first[t]), wfTileRange(m, c, first[t + 1])).
static inline int wfTileRange(const wfClothModel* m, int c, int g) { return m->tileStart[c * (m->tileCount + 1) + g]; }
// The first column and row of the owner cells of the tile of rank g.
void wfTileOrigin(const wfClothModel* m, int g, int* x0, int* y0);

// State: what a step changes; snapshot/restore copies it.
// Positions carry the inverse mass in w (one 16-byte load per particle end of a constraint).
typedef struct wfClothState {
	wfVec4* pos;     // (particleCount) xyz position, w inverse mass (0 = pinned or grabbed)
	wfVec4* vel;     // (particleCount) xyz velocity
	wfVec4* prev;    // (particleCount) positions at the start of the substep (scratch)
	wfVec4* pos2;    // (particleCount) ping-pong buffer for Jacobi sweeps and springs (scratch)
	wfVec4* vel2;    // (particleCount) ping-pong buffer for springs (scratch)
	float* lambda;   // (constraintCount) accumulated multipliers of the current substep (scratch)
	wfVec4* normals; // (particleCount) derived from pos on demand
	wfVec4* aero;    // (particleCount) the substep's aerodynamic acceleration (scratch)
	// Self-collision scratch (wfSelfCollisionDef.enabled, allocated at creation): the hash grid's
	// cell starts, the particles sorted by cell, each particle's cell key, and the corrections.
	int* hashStart;    // (hashSize + 1)
	int* hashSorted;   // (particleCount)
	uint32_t* hashKey; // (particleCount)
	wfVec4* selfDelta; // (particleCount)
	int hashSize;      // a power of two >= 2 particleCount
} wfClothState;

// A cloth's local frame (precision anywhere in a large world). state.pos holds positions relative
// to wfCloth.origin, a world point kept in double; the world is never seen in float by a solver.
// At the start of each frame the core moves the origin onto the cloth when its reference particle
// is more than WF_RECENTRE_DISTANCE away (by whole metres, so the shift is exact where a position
// and the shift are of similar size) and computes the frame's colliders and grab target relative
// to the moved origin. Everything here is derived from the cloth's own local state and the world
// defs by double arithmetic, so a scene and the same scene translated anywhere within 1e6 m
// step through the same float values.
#define WF_RECENTRE_DISTANCE 1.0f

typedef struct wfClothLocal {
	wfVec3 shift;        // subtracted from every position at the frame start (0 when not re-centred)
	wfVec3 sphereCenter; // the sphere's centre at motion phase 0, relative to origin + shift
	float floorHeight;   // the floor's height, relative to origin + shift
	wfVec3 grabTarget;   // relative to origin + shift
} wfClothLocal;

// The frame check's verdict on one cloth (backends fill it; the core counts, logs and recovers).
typedef enum wfFrameVerdict { WF_FRAME_GOOD = 0, WF_FRAME_UNSTABLE, WF_FRAME_NON_FINITE } wfFrameVerdict;

typedef struct wfCloth {
	uint32_t generation; // 0 = free slot
	int index;
	wfClothDef def; // pin list pointer cleared; pins live in `pinned`
	wfMaterial material;
	wfClothModel model;
	wfClothState state;
	uint8_t* pinned; // (particleCount) 1 = pinned
	int grabIndex;   // -1 = none
	wfVec3 grabTarget;
	bool normalsValid;      // normals match pos
	bool hostValid;         // state arrays hold the newest positions/velocities (false after a GPU step)
	double origin[3];       // world position of the local frame's origin (see wfClothLocal)
	wfVec3 reference;       // local position of particle particleCount / 2 after the last frame
	wfClothLocal local;     // this frame's shift and local environment (wfClothBeginFrame)
	wfFrameVerdict verdict; // the last frame's check, set by the backend's step
	int verdictParticle;    // the first bad particle (index order), -1 when good
	bool verdictContact;    // unstable, and a too-fast particle touched a collider (wfInContact)
	bool verdictEnergy;     // unstable by the energy rule (wfCheckMotion), no particle too fast
	int tunnelParticle;     // the first particle that passed through the sphere this frame, -1 none
	double energyGain;      // the energy rule's last gain and bound, J (for the log)
	double energyBound;
	// Tearing (tear.c): how many times the model changed, each particle's particle of the untorn
	// cloth (NULL until the first tear: itself), and the untorn model kept for wfCloth_Reset.
	int topology;
	int* source;           // (particleCount) or NULL
	wfClothModel original; // particleCount 0 until the first tear
	// Attachments (wfClothDef.attachMode) to the mesh collider attachBody, or none.
	wfAttachment* attach; // (attachCount)
	int attachCount;
	wfColliderId attachBody;
	double meanEdge; // the mean rest length of its stretch constraints at creation (self-collision's scale)
	void* backendData;
} wfCloth;

// Environment of one substep; a pure function of the frame start values and the substep index,
// so that the CPU and the GPU compute the same thing.
typedef struct wfFrameParams {
	float h; // substep length
	int substeps;
	int iterations;
	wfVec3 gravity;
	double time;       // world time at the frame start
	double sphereTime; // motion phase time of the sphere at the frame start
	wfSphereDef sphere;
	wfFloorDef floor;
	wfWindDef wind;
	wfContactDef contact;
	wfAeroDef aero;
	bool aeroOn; // drag or lift is not 0
} wfFrameParams;

typedef struct wfBackend wfBackend;

// A backend steps the cloths of a world. The core keeps host mirrors of the state; a GPU backend
// downloads into them only when asked (wfSyncHost) and uploads after the host changed them.
typedef struct wfBackendOps {
	const char* name;
	void (*destroy)(wfWorld* world);
	wfResult (*addCloth)(wfWorld* world, wfCloth* cloth);
	void (*removeCloth)(wfWorld* world, wfCloth* cloth);
	wfResult (*step)(wfWorld* world, const wfFrameParams* params);
	// Device -> host mirror (positions, velocities and normals).
	wfResult (*download)(wfWorld* world, wfCloth* cloth);
	// Host mirror -> device (positions incl. inverse masses, velocities).
	wfResult (*upload)(wfWorld* world, wfCloth* cloth);
	// Optional: statistics reduced on the device. NULL: the core computes them from the mirror.
	wfResult (*stats)(wfWorld* world, wfCloth* cloth, const wfFrameParams* params, wfClothStats* out);
	// Optional: device time of the last frame and dispatches per frame (fills gpuMs, dispatches).
	void (*profile)(const wfWorld* world, wfStepProfile* out);
	// Optional (Vulkan): the device and a cloth's buffers for interop (weft.h, "Vulkan interop").
	void (*vulkanDevice)(wfWorld* world, wfVulkanDevice* out);
	void (*vulkanBuffers)(wfWorld* world, wfCloth* cloth, wfVulkanClothBuffers* out);
	// Optional: the world's self-collision settings are about to change (wfWorld_SetSelfCollision);
	// the backend makes room for what they need.
	wfResult (*setSelfCollision)(wfWorld* world, const wfSelfCollisionDef* sc);
} wfBackendOps;

// A collider of the world (wfCreateCollider). The base pose moves by wfCollider_SetTransform (reached
// at the end of the next frame); the pose is the base plus the sine motion on the world clock.
typedef struct wfColliderSlot {
	uint32_t generation; // 0 = free slot
	wfColliderDef def;
	double base[3];   // base position now
	wfQuat rotation;  // base rotation now (unit)
	double target[3]; // base position at the end of the next frame
	wfQuat targetRotation;
	wfColliderKey* keys;     // (def.keyCount) the def's keyframes, copied (rotations normalised)
	struct wfMeshBody* body; // WF_COLLIDER_MESH: the mesh (mesh_collider.c), else NULL
} wfColliderSlot;

// A shape's pose across one frame, in world coordinates (double): from start to end. The frame's
// shapes are the world's sphere and floor (wfWorldDef.sphere, .floor: sugar for a sphere and a plane
// that the world owns) and then the colliders (wfCreateCollider), in one list, each pushed out of
// by one routine per type.
typedef struct wfColliderFrame {
	wfColliderType type;
	bool world; // the world's sphere or floor: still axes, no spin; the sphere moves by wfSphereMotionAt
	double start[3], end[3];
	wfQuat q0, q1;
	float radius, radius1, halfLength;
	wfVec3 halfExtents;
	wfVec3 velocity;         // (end - start) / frame time
	wfVec3 omega;            // rotation from q0 to q1 / frame time, rad/s
	struct wfMeshBody* body; // a mesh: its vertices this frame and the contact's scratch
	float vertexSpeed;       // a mesh: its fastest vertex this frame, m/s
} wfColliderFrame;

// A collider at one substep, in a cloth's local frame (float): what a particle is pushed out of.
typedef struct wfShape {
	int type; // wfColliderType
	wfVec3 center;
	float axes[9]; // the local x, y, z axes in world directions: axes[3 * k + i]
	float radius, radius1, halfLength;
	wfVec3 halfExtents;
	wfVec3 velocity, omega;
	bool spins; // the surface moves by velocity + omega x (x - center); false: by velocity alone (the world's sphere and floor)
} wfShape;

struct wfWorld {
	wfWorldDef def;
	// def.selfCollision as the backends use it: the thickness resolved (wfSelfContact), kept so when
	// the setting changes and when a cloth comes or goes.
	wfSelfCollisionDef selfContact;
	char lastError[512];
	wfWarnings warnings;
	int64_t motionExactFrames; // frames whose energy pre-test failed, so the exact rule ran (tests, docs/design/solvers.md)
	double time;               // simulated seconds
	double sphereTime;         // advances only while the sphere moves
	wfCloth* cloths;           // (clothCapacity) slots
	int clothCapacity;
	int clothCount;
	const wfBackendOps* backend;
	void* backendData;
	wfBackendType backendType;
	char deviceName[256];          // the device in use
	bool cpuDevice;                // Vulkan on a CPU device (lavapipe): no tiles unless asked for
	char requestedDevice[256];     // copy of def.deviceName (def.deviceName points here)
	wfVulkanDevice externalDevice; // copy of *def.vulkanDevice (def.vulkanDevice points here)
	int threads;
	bool simd;        // CPU: AVX2 kernels in use (the def asks and the processor has them)
	int soaLanes;     // CPU: constraints per block of the structure-of-arrays XPBD kernel (16 with
					  // AVX-512, else 8), read when a cloth is added; tests set 8 or 1 (the scalar width)
	int tileSubsteps; // Vulkan: the most springs or Jacobi substeps per tiled dispatch (0: the
					  // backend's choice, no tiles on a CPU device; 1: no tiles; more: tiles
					  // wherever they apply; 1 also records XPBD's tile order a dispatch per
					  // colour instead of xpbd_tiled.comp), read when a frame is recorded; for tests
	// Per-stage timing (wfWorld_SetStageTiming): the backend's step writes the last frame's ms per
	// wfStage into stageMs; wfWorld_Step sets them to -1 first (unknown unless measured).
	bool stageTiming;
	double stageMs[WF_STAGE_COUNT];
	// The last threaded structure-of-arrays frame's team (wfStepProfile.threads and what follows).
	int teamThreads, teamRowsMin, teamRowsMax;
	double teamBusyMinMs, teamBusyMaxMs;
	wfColliderSlot* colliders; // (colliderCapacity) slots
	int colliderCapacity;
	int colliderCount;
	// This frame's shapes (wfCollidersBeginFrame): the world's sphere and floor where enabled
	// (worldShapes of them, first), then the live colliders in slot order.
	wfColliderFrame colliderFrame[WF_MAX_SHAPES];
	int colliderFrameCount;
	int worldShapes;
	int meshColliderCount; // of colliderCount, the triangle meshes
};

// ------------------------------------------------------------------ core helpers (base.c)
void wfAssertFailed(wfWorld* world, const char* cond, const char* file, int line);
wfResult wfSetError(wfWorld* world, wfResult result, const char* fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
void wfLog(const wfWorld* world, wfLogLevel level, const char* fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;
void* wfAlloc(size_t size); // zeroed, 64-byte aligned; NULL on failure
// The generation of a new cloth or collider: unique in the process (never 0), not per world, so
// that an id or a cache key of a destroyed world's cloth never matches a cloth of a later world
// that happens to get the same address (the renderer's cloth caches are keyed by id).
uint32_t wfNextGeneration(void);
void wfFree(void* p);

// defs.c: validation shared by creation, setters and the scene loader. Return false and write a message.
bool wfValidateWorldDef(const wfWorldDef* def, char* error, int errorSize);
bool wfValidateStepDef(const wfStepDef* step, char* error, int errorSize);
bool wfValidateClothDef(const wfClothDef* def, char* error, int errorSize);
bool wfValidateMaterial(const wfMaterial* m, char* error, int errorSize);
// The parts of a world def that have live setters.
bool wfValidateGravity(const wfVec3* gravity, char* error, int errorSize);
bool wfValidateSphere(const wfSphereDef* sphere, char* error, int errorSize);
bool wfValidateFloor(const wfFloorDef* floor, char* error, int errorSize);
bool wfValidateWind(const wfWindDef* wind, char* error, int errorSize);
bool wfValidateContact(const wfContactDef* contact, char* error, int errorSize);
bool wfValidateAero(const wfAeroDef* aero, char* error, int errorSize);
// One field of a def's table (wfDefFields) against its range or names, the message naming `path`;
// WF_FIELD_CUSTOM fields are left to their def's rules.
bool wfCheckField(const wfFieldInfo* field, const void* value, const char* path, char* error, int errorSize);
// A range bound as the messages write it in words: "1e6" for powers of ten from 1e4 up, else %g.
const char* wfFormatBound(double value, char out[24]);
// "a, b, c" from an enum field's names.
void wfJoinNames(const char* const* names, int count, char* out, size_t size);
// vulkan: the world runs (or will run) on the Vulkan backend, which has no self-collision yet.
bool wfValidateSelfCollision(const wfSelfCollisionDef* sc, char* error, int errorSize);

// topology.c: builds the model of a grid (constraints, colouring, adjacency, mesh).
// tiles: in the tile order (wfSolveOrder), else the colour order.
wfResult wfBuildGridModel(const wfClothDef* def, wfClothModel* model, bool tiles);
// After the constraints (in m->constraints, m->constraintCount) and color[] are set: sorts them into
// colour ranges and builds the adjacency and Jacobi weights. Frees color. colorBound > every colour.
wfResult wfFinishModel(const wfClothDef* def, wfClothModel* m, int* color, int colorBound);
// The incident triangles of each particle (triStart, triList) and its edge partners (partnerStart,
// partnerList) once the triangles are set, the rest areas (triArea, from the rest positions where
// not set) and the air shares (wfBuildAirShares): every model builder (grid, mesh, tear) ends with it.
wfResult wfBuildTriangleRows(wfClothModel* m);
// Each particle's air share into restPositions[i].w: the mean lumped rest area over its own.
void wfBuildAirShares(wfClothModel* m);
// The aerodynamic acceleration of particle i (wfAeroDef): the corner's third of each incident
// triangle's drag and lift, times its inverse mass and its air share (restPositions[i].w), so a
// flat sheet's border takes the air per kilogram its inner particles do. The GPU computes the same
// expressions.
wfVec3 wfAeroAccel(const wfClothModel* m, const wfVec4* pos, const wfVec4* vel, const wfFrameParams* p, int i);
// tear.c: between frames, the stretch constraints past wfMaterial.tearStrain break and the mesh
// splits there (a no-op without tearStrain or without a constraint past it).
// A frame's tear repeats its split pass at most this many times (tear.c).
#define WF_TEAR_PASSES 16
wfResult wfClothTear(wfWorld* world, wfCloth* cloth);
// Gives a cloth a new model of nm->particleCount particles (taken over): particle k takes pin and
// source of particle from[k] of the old model, the state pos/vel (NULL: the old arrays, grown);
// the backend removes and adds the cloth. Counts a topology change.
wfResult wfClothReplaceModel(wfWorld* world, wfCloth* cloth, wfClothModel* nm, const int* from, const wfVec4* pos, const wfVec4* vel);
// A deep copy of a model (NULL arrays stay NULL).
wfResult wfCopyModel(const wfClothModel* from, wfClothModel* to);
// tether.c: the tethers of a cloth from its model and pins (wfClothModel.tethers).
wfResult wfBuildTethers(wfCloth* cloth);
// mesh.c: the model of a mesh cloth (wfClothDef.mesh), and the mesh def's checks.
wfResult wfBuildMeshModel(const wfClothDef* def, wfClothModel* model);
bool wfValidateMeshDef(const wfMeshDef* mesh, char* error, int errorSize);
// The greedy colouring in two orders (index order, and most-connected first): the one with fewer colours.
int wfColorMesh(const wfConstraint* constraints, int count, int particleCount, int* color);
void wfFreeModel(wfClothModel* model);
// Number of constraints a grid has with the given families (the seed formula with all three).
int wfGridConstraintCount(int cols, int rows, bool structural, bool shear, bool bending);
// Host bytes a cloth holds at the peak of its creation (wfEstimateClothBytes), by element; the
// table in docs/design/solvers.md "Memory of a particle" lists the buffers behind each figure.
#define WF_BYTES_PER_PARTICLE 145.0      // state 112, pins 1, rest positions 16, UVs 8, two row starts 8
#define WF_BYTES_PER_PARTICLE_CPU 91.0   // backend positions and velocities 32, AVX2 slots 4, arrays 50, scratch 5
#define WF_BYTES_PER_PARTICLE_SELF 92.0  // hash grid and corrections: the cloth's 32, the backend's 60
#define WF_BYTES_PER_CONSTRAINT 64.0     // record 16, multiplier 4, weight 4, colour start 4, adjacency 16, scratch 20
#define WF_BYTES_PER_CONSTRAINT_CPU 88.0 // AVX2 blocks 36, singles 20, sort scratch 32
#define WF_BYTES_PER_TRIANGLE 24.0       // corners 12, incident lists 12

// coloring.c
// Colours constraints so that no two of a colour share a particle. Writes color[i] per constraint
// and returns the colour count (-1 on allocation failure).
int wfColorGreedy(const wfConstraint* constraints, int count, int particleCount, int* color);
// The 12-colour scheme of a full grid (structural + shear + bending): returns the colour of a
// grid constraint from its endpoints, or -1 if the constraint is not a grid neighbour relation.
int wfGridColor(int cols, uint32_t a, uint32_t b);
// Sorts constraints by colour (stable) and fills colorStart (colorCount + 1 entries).
// Empty colours are removed; returns the new colour count.
int wfSortByColor(wfConstraint* constraints, int count, const int* color, int colorCount, int* colorStart);

// base.c: reads the rest of a file into a growing buffer (at most WF_MAX_TEXT_BYTES); NULL or what
// went wrong.
#define WF_MAX_TEXT_BYTES (64 << 20)
const char* wfReadAll(FILE* f, char** text, size_t* used);

// cloth.c
wfCloth* wfGetCloth(wfClothId id); // NULL for a stale or null id
// Self-collision looks for contacts within 2 thickness of a particle in a hash grid of cells that
// size: the work per particle grows with (thickness / edge)^2 and, once the cells span the cloth,
// every pair is a candidate (a 128 x 128 cloth at 1 m: 66 s a frame). A thickness is meaningful up
// to about an edge (a grid's cell hole closes at 0.71 edges): at most twice the cloth's mean rest
// edge is accepted, checked when a cloth is created in a self-colliding world and when the setting
// changes. False (and the message, naming the field and the allowed range) past it.
#define WF_SELF_THICKNESS_PER_EDGE 2.0f
#define WF_SELF_HOLD_PER_EDGE 0.7071f // 2 x thickness over the mean edge from which particle contacts hold layers
bool wfSelfThicknessFits(const wfSelfCollisionDef* sc, double meanEdge, int cloth, char* error, int errorSize);
// Particle contacts alone keep a cloth's layers apart only where 2 thickness reaches half a grid
// square's diagonal (a particle through a square's middle is 0.71 dx from its corners): a warning,
// when self-collision runs thinner than that without a continuous pass: at a cloth's creation
// (before NULL), and where a change of the setting (or of the resolved thickness) makes thin a
// setting `before` that was not.
void wfWarnThinSelfContact(wfWorld* world, const wfSelfCollisionDef* before, const wfSelfCollisionDef* sc, double meanEdge, int cloth);
// Thickness 0 (the default) is the cloths': half the finest cloth's mean edge, 2 thickness one
// edge, which holds the layers with a margin over WF_SELF_HOLD_PER_EDGE (the xpbd preset with
// self-collision: 0 crossings in 900 frames at 0.5, 0 in 300 at 0.4, crossings in 9 of 300 at
// 0.35). A world without cloths says WF_SELF_THICKNESS_NONE.
#define WF_SELF_AUTO_PER_EDGE 0.5f
#define WF_SELF_THICKNESS_NONE 0.005f
// *sc with its thickness resolved over the world's live cloths and, when extraEdge > 0, a cloth
// being created whose mean edge that is.
wfSelfCollisionDef wfSelfContact(const wfWorld* world, const wfSelfCollisionDef* sc, double extraEdge);
// world->selfContact resolved again for the cloths there are now (after a cloth went); where the
// thickness changes, the backend is told and cloths made thin are warned about.
void wfUpdateSelfContact(wfWorld* world);

// The self-collision hash grid's arrays of a cloth (wfClothState.hash*), when not there yet.
bool wfClothReserveSelf(wfCloth* cloth);
void wfClothApplyInverseMass(wfCloth* cloth);        // writes pos.w from pins, grab and mass
wfResult wfSyncHost(wfWorld* world, wfCloth* cloth); // make the host mirror current
void wfComputeNormals(const wfClothModel* model, const wfVec4* pos, wfVec4* normals);
void wfComputeStats(const wfWorld* world, const wfCloth* cloth, const wfFrameParams* params, wfClothStats* out);
void wfFrameParamsInit(const wfWorld* world, wfFrameParams* params);
// Explicit springs: counts (and logs once) a substep longer than the cloth's stability estimate,
// which wfSpringsStepLimit gives (seconds; stiffness, dampers, mass and the most springs at a particle).
void wfCheckSpringsStep(wfWorld* world, const wfCloth* cloth, float h);
double wfSpringsStepLimit(const wfCloth* cloth);
// Statistics of local positions: the gravity energy of the origin for `dynamic` free particles, and
// the number of free particles (not pinned, not grabbed).
double wfOriginGravityEnergy(const wfCloth* cloth, const wfFrameParams* params, int dynamic);
int wfDynamicCount(const wfCloth* cloth);

// collider.c: the colliders' poses of the coming frame (before the step) and their advance (after).
void wfCollidersBeginFrame(wfWorld* world, const wfFrameParams* params);
void wfCollidersEndFrame(wfWorld* world);
// Collider k of this frame at the end of substep `substep` in the local frame of `local`/cloth origin.
// A unit quaternion's rotation as the images of the local x, y and z axes: axes[3 * k + i].
void wfQuatAxes(wfQuat q, double axes[9]);
void wfShapeAt(const wfWorld* world, const wfCloth* cloth, int k, const wfFrameParams* params, int substep, wfShape* out);
// Its two parts (a GPU adds them): the frame-start centre in the cloth's frame, and the substep's
// displacement from it with the substep's axes.
void wfShapeBase(const wfWorld* world, const wfCloth* cloth, int k, float base[3]);
// A plane's height of point p along its normal n: p.n, in this order on every backend (the CPU's
// contact, the GPU's, and the world floor's level that the frame records carry).
static inline float wfPlaneHeight(float nx, float ny, float nz, float px, float py, float pz) { return px * nx + py * ny + pz * nz; }
void wfShapeStep(const wfWorld* world, int k, const wfFrameParams* params, int substep, float move[3], float axes[9]);
// XPBD's time-scaled compliance alpha~ = alpha / h^2: one expression for every solver and kernel.
static inline float wfAlphaTilde(float compliance, float h) { return compliance / (h * h); }

// gpu/frame_records.c: the GPU frame's records (kernel_abi.h), one writer for Vulkan and WebGPU.
// A cloth's parameters for this frame into `out` (wfGpuClothParamsBytes of them: the shapes in use);
// `reference` is the frame cloth-against-cloth contact works in (NULL: this cloth's own).
void wfGpuWriteClothParams(const wfWorld* world, const wfCloth* cloth, const wfFrameParams* params, const double reference[3],
	wfGpuClothParams* out);
size_t wfGpuClothParamsBytes(const wfWorld* world);
// Every substep's clock-dependent values (the same for every cloth: the wave wind's mass dependence
// is evaluated on the device), then the colliders' steps (wfGpuShapeSteps).
void wfGpuWriteSubsteps(const wfWorld* world, const wfFrameParams* params, float invMass, wfGpuSubstep* sub);
// The colliders as a GPU frame holds them: shapes[k] as the cloth sees them at the frame start, and
// per substep and collider two records after the substeps': sub[WF_MAX_SUBSTEPS + 2 (substep count
// + k)] and the next.
void wfGpuShapes(const wfWorld* world, const wfCloth* cloth, const wfFrameParams* params, wfGpuShape* shapes);
void wfGpuShapeSteps(const wfWorld* world, const wfFrameParams* params, wfGpuSubstep* sub);
// Whether a world's backend holds this many colliders x substeps (the Vulkan frame's records); sets
// the error when not.
bool wfColliderStepsFit(wfWorld* world, int colliders, int substeps);
void wfFreeColliders(wfWorld* world);
bool wfValidateColliderDef(const wfColliderDef* def, char* error, int errorSize);
// mesh_collider.c: a triangle-mesh collider (WF_COLLIDER_MESH). The body's shape now and at the
// end of the next frame in its own frame; this frame's vertices in world coordinates (double), and
// per cloth and substep its vertices in the cloth's local frame with a bounding-volume hierarchy
// refitted over them.
typedef struct wfBvhNode {
	float lo[3], hi[3];
	int first; // a leaf: its first entry of `order`; an inner node: its second child (the first is the next node)
	int count; // a leaf: its triangles (> 0); an inner node: 0
} wfBvhNode;

typedef struct wfMeshBody {
	int vertexCount, triangleCount, keyCount;
	uint32_t* tri;    // (3 x triangleCount) a closed mesh wound outwards
	float* keys;      // (3 x vertexCount x keyCount) shapes at the keys (def.keyPositions), or NULL
	float* shape;     // (3 x vertexCount) the shape now, in the collider's frame
	float* target;    // (3 x vertexCount) the shape at the end of the next frame (SetMeshVertices)
	float* next;      // (3 x vertexCount) this frame's end shape (becomes `shape` at its end)
	bool closed;      // every edge on two triangles with one winding: a solid
	float size;       // the rest shape's bounding-box diagonal, m
	double* start;    // (3 x vertexCount) world positions at the frame start
	double* end;      // (3 x vertexCount) and at its end
	float* v0;        // (3 x vertexCount) one cloth's local frame: the substep's start
	float* v1;        // (3 x vertexCount) and its end
	wfBvhNode* nodes; // (nodeCount) depth first: a node's children follow it
	int nodeCount;
	int* order;        // (triangleCount) the triangles in leaf order
	int* neighbour;    // (3 x triangleCount) a closed mesh: the triangle across side k (corners k, k + 1)
	int* owner;        // (vertexCount) the first triangle with the vertex: it speaks for the vertex
	float* normal;     // (3 x vertexCount) the vertices' normals at the substep's end (area weighted)
	float* cone;       // (vertexCount) scratch: the least cosine between a vertex's normal and its faces'
	float* faceNormal; // (3 x triangleCount) scratch: each triangle's unit normal at the substep's end, NaN if degenerate
	// (6 x nodeCount) a closed body: per node, the box (lo xyz, hi xyz; empty: lo > hi) of the
	// convex edges of its triangles at the substep's end, each edge with its lower triangle: the
	// edge pass walks these (only an edge in them can push a cloth edge).
	float* edgeBox;
	int* vertexTriStart; // (vertexCount + 1) each vertex's triangles in vertexTri, compressed rows
	int* vertexTri;      // (3 x triangleCount) ascending, a triangle once per corner at the vertex
	// How long a cloth edge (a cloth triangle's longest side) must be, at the placed shape and the
	// thickness, before the body's sharpest convex edge (vertex) can cut it with both ends (all
	// corners) outside the layer: shorter ones skip the edge (corner) pass.
	float edgeReach, cornerReach;
	// Which cloth, frame and substep the body was placed for (a second call for the same returns).
	uint32_t placedCloth;
	double placedTime;
	int placedSubstep;
} wfMeshBody;

// Checks a mesh def as a collider's (every triangle of nonzero area, keyPositions finite) and makes
// the body; NULL with the error.
wfMeshBody* wfMeshBodyCreate(const wfColliderDef* def, char* error, int errorSize);
bool wfValidateMeshBodyDef(const wfColliderDef* def, char* error, int errorSize);
void wfMeshBodyFree(wfMeshBody* body);
// The shape (collider frame) at world time t from the keys, as wfColliderDef's key blend (key i to
// key b at fraction s).
void wfMeshBodyKeyShape(const wfMeshBody* body, int i, int b, double s, float* out);
// The frame's world vertices from the poses at its start and end and the shapes then.
void wfMeshBodyBeginFrame(wfMeshBody* body, const double start[3], wfQuat q0, const double end[3], wfQuat q1, const float* shape0,
	const float* shape1, double frameTime, float* vertexSpeed);
// One cloth's substep: v0, v1 in the frame of `origin` (the cloth's origin plus shift) at
// fractions f0, f1 of the frame, the hierarchy refitted over both grown by `margin`, and (closed
// bodies) the vertex normals and the reaches of the sharp features at the contact `thickness`.
// `threads` other than 1 places a large body on that many threads (0: every core; call outside a
// parallel region).
void wfMeshBodyPlace(wfMeshBody* body, const double origin[3], double f0, double f1, float margin, float thickness, int threads);
// The same, shared by the threads of the current team: call from every one of them (or from one
// thread outside a parallel region). Ends with every thread past the placement.
void wfMeshBodyPlaceShared(wfMeshBody* body, const double origin[3], double f0, double f1, float margin, float thickness);
#define WF_MESH_PLACE_PARALLEL_MIN 2048 // triangles
// The contact of a particle that moved from p0 to *x in the substep against the placed body: pushes
// *x back onto the thickness layer; returns whether it did, with the contact's normal and the
// surface's velocity there (for the response; invH = 1 / the substep's length).
bool wfMeshBodyCollide(const wfMeshBody* body, float thickness, float invH, wfVec3 p0, wfVec3* x, wfVec3* normal, wfVec3* surface);
// The attachment's point (wfAttachment) with the body's vertices at v (3 x vertexCount): its
// weights' point plus its offset in the triangle's frame.
wfVec3 wfMeshBodyPoint(const wfMeshBody* body, const float* v, const wfAttachment* a);
// The closest point of the body's surface to p, with its vertices at `world` (3 x vertexCount), as an
// attachment (the particle field left as it is).
void wfMeshBodyClosest(const wfMeshBody* body, const double* world, const double p[3], wfAttachment* out);
// Whether particle i of the cloth is attached (wfClothDef.attachMode).
bool wfClothIsAttached(const wfCloth* cloth, int i);
// Whether cloths a and b touch when contact between cloths is on (wfClothDef.collisionGroup,
// collisionMask; symmetric): the CPU's contact pass and the intersection checker.
static inline bool wfClothsMeet(const wfClothDef* a, const wfClothDef* b)
{
	return (a->collisionGroup & b->collisionMask) != 0 && (b->collisionGroup & a->collisionMask) != 0;
}
// The mesh collider a cloth is attached to, or NULL when there is none (or it was destroyed).
wfMeshBody* wfAttachedBody(const wfWorld* world, const wfCloth* cloth);
// Whether a substep meets the mesh bodies before self-collision too (XPBD and Jacobi): with the
// continuous passes on, so that they see the bodies' pushes. Met only after the finish, a body's
// push moved one layer of a dress through another where no pass looked (character.json on the
// H200, 600 frames with both passes: 34 self crossings in 7 frames; met before as well: 0). The
// contact after the finish stays (the velocities' response); without the passes the order is the
// old one (met before, particles alone let more through: 1 800 against 138).
static inline bool wfMeshesBeforeSelf(const wfWorld* world)
{
	const wfSelfCollisionDef* sc = &world->def.selfCollision;
	return world->meshColliderCount > 0 && sc->enabled && (sc->pointTriangle || sc->edgeEdge);
}
// A cloth edge a-b (inverse masses wa, wb) against the placed closed body's convex edges, where a
// body's sharp edge would cut through the cloth between two particles: the corrections of a and b
// that take the edge's closest point back onto the thickness layer; returns whether there are any.
bool wfMeshBodyCollideEdge(const wfMeshBody* body, float thickness, float invH, wfVec3 a, wfVec3 b, float wa, float wb, wfVec3* da,
	wfVec3* db, wfVec3* normal, wfVec3* surface);
// A cloth triangle (corners x[3], inverse masses w[3]) against the placed closed body's vertices,
// where a body's corner would poke through it: each corner's correction, delta[k], that takes the
// triangle back onto the thickness layer above every such vertex (summed over the vertices);
// returns whether there is one.
bool wfMeshBodyCollideCorners(const wfMeshBody* body, float thickness, const wfVec3 x[3], const float w[3], wfVec3 delta[3]);

#define WF_COLLIDER_COOKIE 2046119 // wfColliderDef.internalValue: the def came from wfDefaultColliderDef
#define WF_MAX_COLLIDER_KEYS 1024  // keyframes of a collider

// world.c: a frame around a backend's step (wfWorld_Step; the WebGPU frame of web/weft_wasm.c):
// begin (params, the cloths' local frames, the colliders' poses), end (the colliders' advance, the
// frame policy, the clocks), then tearing between frames (cloths whose frame was good).
void wfWorldBeginFrame(wfWorld* world, wfFrameParams* params);
void wfWorldEndFrame(wfWorld* world, const wfFrameParams* params);
wfResult wfWorldTear(wfWorld* world);

// frame_policy.c: the local frame and the frame policy.
// Before a step: the shift and local environment of the frame from the reference particle.
void wfClothBeginFrame(const wfWorld* world, wfCloth* cloth);
// The local environment for the current origin without a shift (statistics between frames).
wfClothLocal wfClothLocalNow(const wfWorld* world, const wfCloth* cloth);
// The sphere's centre at the end of substep k (-1: now) in that local frame: phase-0 centre plus motion.
wfVec3 wfLocalSphereCenter(const wfClothLocal* local, const wfFrameParams* params, int substep);
// After a step: a good frame moves the origin by the shift; a bad one (the backend restored the
// frame-start state) is counted, logged with the cloth and the reason, and recovered as the def says.
void wfClothEndFrame(wfWorld* world, wfCloth* cloth);
// After the host wrote the state: the reference particle from the host positions.
void wfClothUpdateReference(wfCloth* cloth);
// The frame check of one cloth's host state: the verdict and the first bad particle, in index order,
// and for an unstable frame whether a too-fast particle touches a collider.
wfFrameVerdict wfCheckFrame(const wfWorld* world, const wfCloth* cloth, const wfFrameParams* params, int* particle, bool* contact);
bool wfInContact(const wfCloth* cloth, const wfFrameParams* params, wfVec4 x);
// The frame check's motion tests (docs/design/solvers.md, "Errors and numerical trouble"): tunnelling through the
// sphere and the energy rule. The backends fold cheap pre-tests into the pass over the particles
// they already make at the frame end (the CPU's scan or copy-back, check.comp, the fused kernel,
// the WGSL check) with the constants below; only a frame that fails a pre-test pays for the exact
// test (wfCheckMotion), which reads the frame-start state (the backup, before the frame's shift).
typedef struct wfMotionConsts {
	wfVec3 shift;  // the frame's re-centring shift: the start in local coordinates is backup - shift
	wfVec3 c0, c1; // the sphere's centre at the end of the first and of the last substep, local
	float r2;      // the sphere's radius squared
	float n4;      // 4 S^2 (S substeps)
	bool sphere;   // the tunnelling test applies (the sphere is on)
	wfVec3 gravity;
	bool energy; // the energy rule applies (no grab, no aerodynamics)
} wfMotionConsts;
wfMotionConsts wfMotionConstsFor(const wfCloth* cloth, const wfFrameParams* params);
// The pre-tests' results of one frame: sums over the free particles (inverse mass != 0 at the
// frame start) of float per-particle terms, per unit mass: e = x1 - x0 + shift, k = 1/2 |v|^2.
typedef struct wfMotionSums {
	double gain;      // k1 - k0 - g . e
	double kinetic;   // k0
	double magnitude; // k0 + k1 + |g . e|: the scale of the sums' rounding
	double free;      // how many particles are free
	float speed2;     // the largest |v|^2 at the start or the end, every particle
	bool tunnelled;   // some particle passed the tunnelling test (wfTunnelled)
} wfMotionSums;
// The tunnelling test of one particle (docs/design/solvers.md): its straight frame path, from the backup start
// x0 (before the shift) to the local end x1, relative to the sphere's centre after the first and the
// last substep, has both ends outside the sphere, its closest point to the centre strictly between
// them and inside (q < r), and a substep's share of it longer than its chord inside the sphere:
// L / S > 2 sqrt(r^2 - q^2). Products and sums only, in this order: the AVX2 lanes (cpu_avx2.h),
// check.comp's WfTunnelled and the WGSL's are the same operations, so every backend counts alike.
static inline bool wfTunnelled(const wfMotionConsts* k, wfVec4 x0, wfVec4 x1)
{
	const float sx = (x0.x - k->shift.x) - k->c0.x, sy = (x0.y - k->shift.y) - k->c0.y, sz = (x0.z - k->shift.z) - k->c0.z;
	const float ex = x1.x - k->c1.x, ey = x1.y - k->c1.y, ez = x1.z - k->c1.z;
	const float s2 = sx * sx + sy * sy + sz * sz, e2 = ex * ex + ey * ey + ez * ez;
	const float dx = ex - sx, dy = ey - sy, dz = ez - sz;
	const float l2 = dx * dx + dy * dy + dz * dz;
	const float along = -(sx * dx + sy * dy + sz * dz);
	// (r^2 - q^2) l2, with q^2 l2 = s2 l2 - along^2 (no division)
	const float inside = k->r2 * l2 - (s2 * l2 - along * along);
	return s2 >= k->r2 && e2 >= k->r2 && along > 0.0f && along < l2 && inside > 0.0f && l2 * l2 > k->n4 * inside;
}
// The first particle (index order) that passed the tunnelling test, -1 none: run over the particles
// only when a backend's pass found one. pos0: the frame-start positions (the backup).
int wfFindTunnel(const wfCloth* cloth, const wfFrameParams* params, const wfVec4* pos0);
// Whether the energy pre-test fails on a pass's sums: the gain, with room for the float sums'
// rounding, exceeds the energy rule's bound without the constraints' release (which only raises it).
bool wfEnergyPreTestFails(const wfWorld* world, const wfCloth* cloth, const wfFrameParams* params, const wfMotionSums* s);
// A GPU check's sums (gain, start kinetic energy per unit mass, magnitude, free particles) as the
// pre-test takes them: the free count and the mean start speed (a bound the largest is not below)
// lowered by the float sums' rounding.
wfMotionSums wfMotionSumsOfGpu(float gain, float kinetic, float magnitude, float free);
// The exact energy rule of a frame whose pre-test failed, in double in index order: a good frame whose
// energy grew past the bound becomes unstable (verdictEnergy). pos0 and vel0: the frame-start state
// (the backup); the cloth's state: the frame end.
void wfCheckEnergy(wfWorld* world, wfCloth* cloth, const wfFrameParams* params, const wfVec4* pos0, const wfVec4* vel0);
// The CPU backend's way of both, after its pass: the tunnel scan when its pass found one, the energy
// rule on a good frame whose pre-test failed.
void wfCheckMotion(wfWorld* world, wfCloth* cloth, const wfFrameParams* params, const wfVec4* pos0, const wfVec4* vel0,
	const wfMotionSums* s);
// The contact test's thresholds: x the sphere radius + band, y the local floor height + band.
wfVec3 wfContactBand(const wfCloth* cloth, const wfFrameParams* params);

// environment.c: the environment of a substep (also mirrored in the GPU shaders).
// sin and cos with the same bits on every machine and in the wasm build (not the C library's).
float wfSinf(float x);
float wfCosf(float x);
float wfWaveSinf(float x); // float operations only, evaluated the same by the GPU (WfWaveSin): the wave wind
wfVec3 wfSphereCenterAt(const wfFrameParams* p, int substep); // at the end of the substep, world
wfVec3 wfSphereMotionAt(const wfFrameParams* p, int substep); // the same less the centre at phase 0
wfVec3 wfSphereVelocityAt(const wfFrameParams* p, int substep);
// External acceleration of a particle in a given column during a substep (gravity + wind).
wfVec3 wfExternalAccel(const wfFrameParams* p, int substep, int column, float invMass);

// Backends
extern const wfBackendOps wfCpuBackendOps;
wfResult wfCpuBackendCreate(wfWorld* world);
#ifdef WEFT_HAVE_VULKAN
wfResult wfVulkanBackendCreate(wfWorld* world, bool allowSoftware);
int wfVulkanEnumerate(wfDeviceInfo* out, int capacity, char* error, int errorSize);
#endif

#endif // WEFT_INTERNAL_H
