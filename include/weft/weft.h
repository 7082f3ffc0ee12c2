// weft — real-time cloth simulation. Public C API.
//
// Usage:
//   wfWorldDef wd = wfDefaultWorldDef();
//   char err[256];
//   wfWorld* world = wfCreateWorld(&wd, err, sizeof err);
//   wfClothDef cd = wfDefaultClothDef();
//   wfClothId cloth = wfCreateCloth(world, &cd);
//   for (int frame = 0; frame < 100; ++frame) wfWorld_Step(world);
//   wfCloth_ReadPositions(cloth, positions, count);
//   wfDestroyWorld(world);
//
// Conventions: a def with every field left at its default (from wfDefault*Def) is valid; creation
// validates a def and reports the first bad field by name and its allowed range. The library keeps
// no global mutable state: several worlds may live in one process (one thread per world).
//
// Arguments: one rule for every function of this header and of weft/render.h.
// - Refused, never dereferenced: a NULL pointer where a world, def, buffer, name or output is needed;
//   a non-finite float (NaN, +-inf) in an argument or in an array given to the library; a count,
//   index or size that does not match. Nothing is changed then, and
//     * functions returning wfResult return WF_ERROR_INVALID_ARGUMENT, with a message on the world
//       (wfWorld_GetLastError) when there is one; the live setters that take a def, or a vector
//       stored in the def (wfWorld_SetGravity), validate like creation: WF_ERROR_INVALID_DEF;
//     * creation functions return NULL (or the null cloth id) with the reason in error (or on the world);
//     * name lookups (wf*FromName) return false and leave *out unchanged; wfPresetGet returns false;
//     * getters return a neutral value: 0, 0.0, false, -1 for "nothing grabbed", "" for strings
//       (wfPresetName and wfPresetDescription: NULL out of range), a zeroed wfWarnings, (0, 0, 0)
//       for positions, the defaults (wfDefault*Def, wfDefaultMaterial) for defs, and a
//       wfStepProfile with gpuMs and stageMs -1 and the rest 0;
//     * destroy functions and setters without a result do nothing.
// - error / errorSize pairs: error may be NULL or errorSize <= 0; nothing is written then.
// - Cloth ids: the null id and the id of a destroyed cloth are detected (slot generation) and refused
//   as above. The id of a cloth whose *world* was destroyed is undefined behaviour, like any pointer
//   to freed memory: an id carries its world's address, and recognising a dead world would need
//   process-wide state (a registry of live worlds), which weft does not keep. Drop a world's cloth ids
//   when destroying it.
#ifndef WEFT_WEFT_H
#define WEFT_WEFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(WEFT_SHARED)
#ifdef WEFT_BUILD
#define WF_API __declspec(dllexport)
#else
#define WF_API __declspec(dllimport)
#endif
#elif defined(__GNUC__) && defined(WEFT_SHARED)
#define WF_API __attribute__((visibility("default")))
#else
#define WF_API
#endif

#define WF_VERSION_MAJOR 0
#define WF_VERSION_MINOR 1
#define WF_VERSION_PATCH 0

typedef struct wfVec3 {
	float x, y, z;
} wfVec3;

// Recoverable failures. The message that goes with the last one is kept on the world.
typedef enum wfResult {
	WF_OK = 0,
	WF_ERROR_INVALID_DEF,      // a def field is out of range (message names the field)
	WF_ERROR_INVALID_ARGUMENT, // bad id, index or buffer size
	WF_ERROR_OUT_OF_MEMORY,
	WF_ERROR_BACKEND_UNAVAILABLE, // the requested backend or device cannot be used
	WF_ERROR_DEVICE_LOST,         // the GPU failed during a step; the last snapshot stays readable
	WF_ERROR_IO,                  // a file could not be read or written
	WF_ERROR_PARSE,               // a scene file is malformed
} wfResult;

WF_API const char* wfResultName(wfResult result);

typedef enum wfBackendType {
	WF_BACKEND_AUTO = 0, // a hardware Vulkan device if there is one, else the CPU
	WF_BACKEND_CPU,
	WF_BACKEND_VULKAN,
} wfBackendType;

typedef enum wfSolverType {
	WF_SOLVER_XPBD = 0, // compliance, accumulated lambda, graph-coloured Gauss-Seidel
	WF_SOLVER_JACOBI,   // small-step PBD, averaged Jacobi sweeps with relaxation
	WF_SOLVER_SPRINGS,  // explicit mass-spring with dampers, semi-implicit Euler
} wfSolverType;

typedef enum wfOrientation {
	WF_ORIENT_HORIZONTAL = 0, // the grid lies in the xz plane (draped over a collider)
	WF_ORIENT_VERTICAL,       // the grid hangs in the xy plane, row 0 on top
} wfOrientation;

typedef enum wfPinMode {
	WF_PIN_NONE = 0,
	WF_PIN_TOP_CORNERS, // the two corners of row 0
	WF_PIN_TOP_ROW,     // every particle of row 0
	WF_PIN_CORNERS,     // all four corners
	WF_PIN_LIST,        // the explicit index list of the def
} wfPinMode;

// Tethers (long-range attachments, wfClothDef.tethers): each particle that is free when the cloth
// is created is tied to the pinned or attached particle nearest to it along the cloth (shortest path over its
// stretch and shear constraints, in the rest shape) and kept within tetherScale times its rest
// distance to it: unilateral, only the tethered particle moves, applied after each substep's solve
// (springs: its outward velocity is removed too). The standard cure for stretchy hanging cloth at
// few iterations. Pins changed later keep the anchors of the creation.
typedef enum wfTetherMode {
	WF_TETHER_NONE = 0,
	WF_TETHER_EUCLIDEAN, // the rest distance: the straight line to the anchor
	WF_TETHER_GEODESIC,  // the rest distance: the shortest path to the anchor along the cloth
} wfTetherMode;

// How a Jacobi sweep averages the corrections at a particle (wfClothDef.jacobiWeights).
typedef enum wfJacobiWeights {
	WF_JACOBI_SYMMETRIC = 0, // constraint (i, j) moves i and j by equal and opposite amounts, each
							 // weighted 1 / max(deg i, deg j) and by 2 w_i / (w_i + w_j): conserves
							 // linear momentum; next to a pin the free end takes the whole correction
	WF_JACOBI_DEGREE,        // the third document's formula: particle i moves by s / deg(i) times the
							 // sum of its constraints' full corrections (pinned neighbours count in
							 // deg(i)); momentum is not conserved where degrees differ (the border)
} wfJacobiWeights;

typedef enum wfWindMode {
	WF_WIND_NONE = 0,
	WF_WIND_GUST, // acceleration strength * (sin(1.8 t), 0, cos(1.26 t)) added to gravity (compute-cloth)
	WF_WIND_WAVE, // force strength * direction * (0.5 + 0.5 sin(2 pi frequency t + phasePerColumn * column))
} wfWindMode;

typedef enum wfContactResponse {
	WF_CONTACT_FRICTION = 0, // project to the surface + thickness, Coulomb friction on the tangential velocity
	WF_CONTACT_STOP,         // project to the surface and zero the whole velocity (compute-cloth's response)
} wfContactResponse;

typedef enum wfLogLevel { WF_LOG_ERROR = 0, WF_LOG_WARNING, WF_LOG_INFO } wfLogLevel;
typedef void wfLogFn(wfLogLevel level, const char* message, void* context);
// Called when a programmer error is caught (a broken internal invariant). Return non-zero to abort.
typedef int wfAssertFn(const char* condition, const char* file, int line, void* context);

typedef struct wfSphereDef {
	bool enabled;
	wfVec3 center; // centre at motion phase 0
	float radius;  // (0, 1e4]
	bool moving;   // oscillates center + amplitude * sin(2 pi frequency t_motion)
	wfVec3 amplitude;
	float frequency; // Hz, [0, 100]
} wfSphereDef;

typedef struct wfFloorDef {
	bool enabled;
	float height; // the plane y = height
} wfFloorDef;

typedef struct wfWindDef {
	wfWindMode mode;
	float strength;       // [0, 1e4]: m/s^2 for GUST, N per particle for WAVE
	float frequency;      // Hz for WAVE, [0, 100]
	float phasePerColumn; // radians per column for WAVE
	wfVec3 direction;     // WAVE direction (normalised on use)
} wfWindDef;

typedef struct wfContactDef {
	wfContactResponse response;
	float thickness; // cloth half-thickness kept from collider surfaces, [0, 1]
	float friction;  // Coulomb coefficient, [0, 10]
} wfContactDef;

// Aerodynamics: each triangle feels drag and lift from the air moving past it (NvCloth's model).
// With r the air's velocity relative to the triangle (airVelocity less the mean of its corners'
// velocities), n its unit normal, A its area and q = density A / 2:
//   drag = q drag |r.n| (r.n) n,   lift = q lift (r.n) |r| (n - (r.n / |r|^2) r),
// a third of the sum on each corner, scaled by the cloth's mean lumped rest area over the corner's
// own, so the air acts per kilogram alike at the border and inside (equal particle masses; see
// docs/design/solvers.md). Off while drag and lift are 0 (the default). Adds to wind.
typedef struct wfAeroDef {
	float density;      // air, kg/m^3, [0, 1e4] (default 1.2)
	float drag;         // drag coefficient, [0, 100]
	float lift;         // lift coefficient, [0, 100]
	wfVec3 airVelocity; // m/s, each within 1e4
} wfAeroDef;

// Self-collision: the particles of each cloth are kept at least 2 thickness apart, except pairs
// closer than exclusion x 2 thickness in the rest shape (neighbours along the cloth), after each
// substep's solve: a uniform hash grid of cell 2 thickness (sorted cell lists), then each particle
// pushed away from those it touches by its share of the overlap (averaged over its contacts, the
// share by inverse mass), with Coulomb friction on the pair's relative motion of the substep.
// Both backends (on Vulkan to the CPU's bits where the device rounds as the CPU does, lavapipe);
// a Vulkan world with it steps every cloth on the per-range path, never the fused one. Live through
// wfWorld_SetSelfCollision: on the CPU every field; on Vulkan thickness, friction, exclusion,
// pointTriangle and edgeEdge (enabled and betweenCloths are fixed at creation there: they choose
// the buffers and the path). The per-pair switches (wfClothDef.collisionGroup / collisionMask),
// pointTriangle and edgeEdge (XPBD and Jacobi: they read the substep's start) hold on both
// backends, to the same bits on lavapipe.
typedef struct wfSelfCollisionDef {
	bool enabled;
	// m: 0 (the default) or [1e-6, 1], at most 2 x each cloth's mean edge. 0: the cloths' own, half
	// the finest cloth's mean rest edge (resolved again as cloths come and go; what is in use:
	// wfWorld_GetSelfThickness). Particle contacts alone hold a cloth's layers from 2 x thickness
	// >= 0.71 x its mean edge (half a grid square's diagonal); thinner, without pointTriangle or
	// edgeEdge, a warning is logged naming the thickness that holds.
	float thickness;
	float friction;  // [0, 10] (default 0.2)
	float exclusion; // [0, 100] (default 1.5; 0 excludes no pair)
	// Cloth against cloth: particles of different cloths kept 2 thickness apart too (a hash grid
	// over the world's cloths after each substep, the pushes also added to the velocities).
	bool betweenCloths;
	// Self-collision's continuous point-triangle pass (default false; XPBD and Jacobi): a particle that
	// crossed a triangle of its cloth within the substep goes back to its side (what particle contacts
	// miss when a fold moves more than the contact distance in a substep). Changes nothing where
	// nothing crossed; costs far more than the particle contacts (18x at 60 x 60, CPU), so it is asked for.
	bool pointTriangle;
	// The continuous edge-edge pass after it (default false; XPBD and Jacobi; both backends): two edges of the
	// cloth's triangles that passed through each other within the substep go back to their sides
	// (folds crossing edge on, which no particle goes through a triangle in). Changes nothing where
	// nothing crossed; costs more than the point-triangle pass.
	bool edgeEdge;
} wfSelfCollisionDef;

// The order in which XPBD relaxes a grid cloth's constraints (Gauss-Seidel: each projection sees
// the ones before it). Colours: the 12 colours of the grid one after another over the whole cloth.
// Tiles: the grid cut into 32 x 32 tiles in four tile colours (a checkerboard of 2 x 2); tile colour
// after tile colour, every colour of a tile in turn, so a GPU workgroup relaxes a whole tile in its
// shared memory (docs/design/solvers.md). Both are Gauss-Seidel over colourings of the same constraints:
// the same cloth, not the same bits (tile_order_cpu). Every backend follows the order a cloth was
// created with; meshes and torn cloths are always relaxed by colours. Springs and Jacobi do not
// depend on it.
typedef enum wfSolveOrder {
	WF_ORDER_AUTO = 0, // tiles for grids of 512 x 512 and more on a Vulkan GPU, else colours (the
					   // CPU's structure-of-arrays kernel runs colours 3.4x faster than tiles)
	WF_ORDER_COLORS,
	WF_ORDER_TILES,
} wfSolveOrder;

// Frame stepping. A frame is `substeps` substeps of timeStep / substeps seconds each.
typedef struct wfStepDef {
	wfSolverType solver;
	float timeStep;     // simulated seconds per frame, (0, 1]
	int substeps;       // [1, 4096]
	int iterations;     // XPBD iterations / Jacobi sweeps per substep, [1, 1024]
	wfSolveOrder order; // XPBD on grids; read when a cloth is created (fixed while the world has cloths)
} wfStepDef;

typedef struct wfVulkanDevice wfVulkanDevice; // a Vulkan device to share (see "Vulkan interop")

// Which Vulkan path steps a small cloth (at most 4096 particles): the fused one-workgroup kernel or
// one dispatch per stage and colour range.
typedef enum wfFusedPath {
	WF_FUSED_AUTO = 0, // fused for XPBD and for any batch of small cloths, per-range for a lone other one
	WF_FUSED_NEVER,    // every cloth per-range
	WF_FUSED_ALWAYS,   // every small cloth fused, even alone
} wfFusedPath;

// How XPBD and Jacobi take a particle's velocity at the end of a substep (wfWorldDef.velocity).
typedef enum wfVelocityMode {
	WF_VELOCITY_MOVES = 0, // the predicted velocity plus every move of the substep divided by h, summed as
						   // the moves are made: exact at any substep count
	WF_VELOCITY_POSITIONS, // (x - p) / h from the float positions, as the documents do (their presets):
						   // a little cheaper, but a position's rounding (a float step of a coordinate
						   // of ~1 m) divided by h goes into the velocity, so small substeps drift
} wfVelocityMode;

// What happens to a cloth whose frame fails the frame check (see wfWarnings).
typedef enum wfBadFrame {
	WF_BAD_FRAME_KEEP = 0, // the frame is discarded: the cloth keeps its state of the frame start
	WF_BAD_FRAME_RESET,    // the frame is discarded and the cloth reset to its rest shape (wfCloth_Reset)
} wfBadFrame;

typedef struct wfWorldDef {
	wfBackendType backend;
	const char* deviceName; // Vulkan device: a part of its name, any case, or "#N" for the N-th of
							// wfEnumerateDevices (wfDevicePatternSelects); NULL = the first hardware device
	int threads;            // CPU worker threads, 0 = all cores
	wfStepDef step;
	wfVec3 gravity;
	wfSphereDef sphere;
	wfFloorDef floor;
	wfWindDef wind;
	wfContactDef contact;
	wfAeroDef aero;                   // per-triangle drag and lift (off by default); fixed at creation
	wfSelfCollisionDef selfCollision; // off by default; live (wfWorld_SetSelfCollision)
	wfLogFn* logFn;                   // NULL: warnings and errors go to stderr
	void* logContext;
	wfAssertFn* assertFn; // NULL: print and abort
	// Optional: run the Vulkan backend on the caller's instance, device and queue (an engine's own
	// device) instead of creating them; see "Vulkan interop" below. Copied at creation; the handles
	// must outlive the world, and the queue must have compute. backend must be auto or vulkan and
	// deviceName NULL. The world never destroys them, and its validation messages go to the caller's
	// messenger (wfWarnings.validationMessages stays 0).
	const struct wfVulkanDevice* vulkanDevice;
	// The frame check: a frame after which a particle is faster than maxSpeed (m/s, [1, 1e6],
	// default 1e3) or has a non-finite value is discarded and counted (wfWarnings); badFrame says
	// what the cloth does then. Each discarded frame is logged with the cloth, the particle and the
	// reason (the first four, then at every power of two).
	float maxSpeed;
	wfBadFrame badFrame;
	wfVelocityMode velocity; // XPBD and Jacobi (default moves); fixed at creation
	// Per-world switches. The library reads no environment variable: the weft and weft-view tools
	// map WEFT_VK_DEVICE, WEFT_VK_VALIDATION, WEFT_NO_SIMD, WEFT_VK_TIMING and WEFT_VK_FUSED onto
	// deviceName and these, so two worlds in one process can differ.
	bool validation;       // Vulkan: the Khronos validation layer (messages in wfWarnings.validationMessages)
	bool simd;             // CPU: the AVX2 kernels where the processor has them (default true;
						   // bit-identical to the scalar ones)
	bool logGpuTiming;     // Vulkan: log the median GPU time per frame when the world is destroyed
	wfFusedPath fusedPath; // Vulkan: which path small cloths take (default auto)
	int internalValue;     // set by wfDefaultWorldDef, checked on create
} wfWorldDef;

WF_API wfWorldDef wfDefaultWorldDef(void);

// Material: every field is live (wfCloth_SetMaterial changes it without a rebuild).
typedef struct wfMaterial {
	float mass; // per particle, kg, (0, 1e6]
	// XPBD
	float stretchCompliance; // inverse stiffness, m/N, [0, 1e3]; 0 = rigid
	float shearCompliance;
	float bendCompliance;
	float damping; // XPBD velocity damping d of f = m g - d v, kg/s, [0, 1e3]; integrated
				   // implicitly on the velocity, v <- v / (1 + h d / m) + h a: stable for every
				   // d >= 0, and a cloth at rest carries its whole weight
	// Jacobi (small-step PBD)
	float relaxation; // s in [0, 1): at s = 1 two particles joined by one constraint swap
					  // the error every sweep (C -> -C), so the projection never converges
	float retention;  // velocity retention per substep, [0, 1]
	// Springs (explicit)
	float stiffness;     // N/m, [0, 1e7]
	float springDamping; // damper along each spring, N s/m, [0, 1e5]
	// Tearing: a stretch constraint whose strain (length - rest) / rest passes tearStrain at the end
	// of a frame breaks, and the mesh splits there within that frame (wfClothInfo.topology counts
	// the changes, wfCloth_ReadSourceParticles tells each copy's particle). [0, 100]; 0 = never
	// (the default). Live like the rest: the check runs between frames.
	float tearStrain;
} wfMaterial;

// A cloth from a polygon mesh instead of a grid (wfClothDef.mesh). The arrays are the caller's;
// wfCreateCloth copies what it needs. Faces are triangles and quads, counter-clockwise seen from
// the side the normals point to. Constraints: stretch on every edge; shear on both diagonals of
// each quad; bending across every interior edge (an edge of exactly two faces) as a distance
// constraint — between the two opposite vertices of two triangles, and between the outer
// neighbours of the edge's ends for two quads (on a grid these are the grid's two-apart springs).
// Edges of three or more faces (non-manifold) take stretch only. See wfMesh_LoadObj for files.
typedef struct wfMeshDef {
	const wfVec3* positions;  // (vertexCount) rest positions, relative to wfClothDef.origin
	int vertexCount;          // [2, 1 << 24]
	const uint32_t* indices;  // the faces' corners, face after face
	const uint8_t* faceSizes; // (faceCount) 3 or 4 corners each; NULL: every face is a triangle
	int faceCount;            // [1, 1 << 24]
	const float* uvs;         // optional (uvCount x 2) texture coordinates; NULL: all 0
	int uvCount;              // rows of uvs: vertexCount when uvs is set (anything else is refused)
	const float* cornerUVs;   // optional (cornerUVCount x 2) per-corner coordinates (seams), kept for export
	int cornerUVCount;        // rows of cornerUVs: the faces' corners (sum of faceSizes) when it is set
} wfMeshDef;

// A cloth particle held at a point of a mesh collider (wfClothDef.attachMode, wfCloth_SetAttachments): on triangle
// `triangle` (wfCollider_GetMeshTriangles order, corners a, b, c) at barycentric weights
// (1 - u - v, u, v), plus `offset` in the triangle's own frame: x along b - a, y along its normal,
// z along normal x side. The offset turns with the triangle, so neighbours attached to two faces
// at an angle keep their distance.
typedef struct wfAttachment {
	int particle;
	int triangle;
	float u, v;
	wfVec3 offset; // m; y is the height above the surface
} wfAttachment;

typedef struct wfClothDef {
	// A grid (mesh NULL) or a mesh. For a mesh, cols, rows, width, height, orientation and jitter
	// are not used; pinMode top-row pins the vertices at the mesh's greatest height (within 1e-4
	// of its size), top-corners the two of those furthest apart along x, corners is refused.
	const wfMeshDef* mesh;
	int cols, rows;      // particles per row / per column, [1, 8192] each, at least 2 particles
	float width, height; // extent along the columns / rows, > 0 (ignored along a side with 1 particle)
	wfOrientation orientation;
	wfVec3 origin;                   // centre of the grid
	bool structural, shear, bending; // constraint families
	wfMaterial material;
	wfPinMode pinMode;
	const int* pinIndices; // WF_PIN_LIST: particle indices (row * cols + col); copied on create
	int pinCount;
	float uvRepeat;                // UVs span [0, uvRepeat] on both axes
	wfJacobiWeights jacobiWeights; // Jacobi solver only: how a sweep averages (default symmetric)
	// Out-of-plane start perturbation, [0, 1]: particle i starts (hash(i) - 1/2) * jitter * dx off
	// the plane along the grid's normal (dx: the spacing of the columns), hash(i) = fract(43758.5453
	// sin(127.1 i + 311.7)) in double, so that a hanging sheet folds out of plane (the third
	// document's start, jitter 0.6). Rest lengths are those of the flat grid. 0 = flat (default).
	float jitter;
	wfTetherMode tethers; // default none
	float tetherScale;    // the tethers' slack: the length limit is tetherScale x the rest distance, [1, 10]
	// Cloth against cloth (wfSelfCollisionDef.betweenCloths), per pair: cloths a and b touch when
	// (a.collisionGroup & b.collisionMask) and (b.collisionGroup & a.collisionMask) are not 0. Bit
	// sets, each [0, 0x7fffffff]; default group 1, mask 0x7fffffff (every cloth touches every other).
	int collisionGroup;
	int collisionMask;
	// Attachments (a waistband, a collar): these particles follow points of a mesh collider (the
	// closest point of its surface to each when the cloth is created, and their distance along its
	// normal) through the collider's motion and changes of shape. attachMode picks them as pinMode
	// picks pins (list: attachIndices, copied on create). attachCollider is the world's collider of
	// that rank in wfWorld_GetColliders order (a scene file's collider index); it must be a mesh.
	// attachCompliance 0 holds them exactly at the end of every substep; more lets them pull away
	// like a spring of stiffness 1 / compliance (XPBD compliance, m/N). The body's contact leaves
	// attached particles alone (a waistband may sit inside the thickness). CPU and Vulkan.
	wfPinMode attachMode; // default none
	const int* attachIndices;
	int attachCount;
	int attachCollider;     // [0, 31]
	float attachCompliance; // [0, 1e3]
	int internalValue;
} wfClothDef;

WF_API wfClothDef wfDefaultClothDef(void);
WF_API wfMaterial wfDefaultMaterial(void);

typedef struct wfWorld wfWorld;

typedef struct wfClothId {
	wfWorld* world;
	int32_t index; // -1 for the null id
	uint32_t generation;
} wfClothId;

WF_API bool wfClothId_IsNull(wfClothId id);

// Numerical trouble is counted, never fatal. Counts are per cloth and frame.
typedef struct wfWarnings {
	int64_t nonFinite;          // frames discarded because a position or velocity was not finite
	int64_t unstable;           // frames discarded because a particle moved faster than wfWorldDef.maxSpeed,
								// or the cloth's energy grew by more than the world could have added in the
								// frame (an explosion below maxSpeed; the energy rule is in docs/design/solvers.md)
	int64_t unstableInContact;  // of those, the frames in which a too-fast particle touched a collider
								// (within 2 thickness + 1 mm of the sphere or the floor): a collider drove
								// the cloth, not the solver alone (slow the collider or lower the time step)
	int64_t timeStepTooLarge;   // explicit springs frames whose substep exceeds the stability estimate
								// h^2 omega^2 + 2 h gamma < 4 (stiffness, dampers and mass; see docs/design/solvers.md)
	int64_t validationMessages; // Vulkan validation-layer warnings and errors (WEFT_VK_VALIDATION=1)
	int64_t tunnelled;          // frames in which a particle's straight frame path crossed the sphere's inner
								// half with both ends outside it: it passed through between two substeps
								// (raise the substeps; the rule is in docs/design/solvers.md). Counted, the frame is kept
} wfWarnings;

typedef struct wfClothStats {
	double time;            // simulated seconds
	double kineticEnergy;   // J
	double potentialEnergy; // gravity (relative to y = 0) + elastic, J
	float maxStrain;        // max |len - rest| / rest over stretch constraints
	float meanStrain;       // mean of the same
	float sphereClearance;  // smallest (distance to centre - radius); FLT_MAX without sphere
	float floorClearance;   // smallest (y - floor height); FLT_MAX without floor
	wfVec3 momentum;        // kg m/s
	int nonFinite;          // non-finite position or velocity components
} wfClothStats;

typedef struct wfClothInfo {
	int cols, rows; // 0 x 0 for a mesh cloth
	bool mesh;      // made from wfClothDef.mesh
	int particleCount;
	int constraintCount;
	int familyCount[3]; // stretch, shear, bend
	int colorCount;
	int triangleCount;
	int edgeCount; // stretch constraints (the wireframe's lines)
	// Tearing (wfMaterial.tearStrain) changes the counts above between frames (a torn grid reports
	// itself as a mesh: cols x rows 0 x 0, mesh true, until wfCloth_Reset): particles are added
	// (the copies of split vertices, at the end: the ids of the others stay), constraints change and
	// are coloured again. topology counts those changes (0 until the first tear): a reader that
	// keeps arrays of a cloth's size compares it, or the counts, before each read.
	int topology;
	int tileSize; // XPBD's order (wfSolveOrder): the tile side in the tile order, 0 in the colour order
} wfClothInfo;

// ---------------------------------------------------------------- colliders
// Shapes besides the world's sphere and floor. Those two (wfWorldDef.sphere, .floor) are sugar for
// the first two shapes of the same list, a sphere and a plane that collide as those colliders do
// (the same bits), and take no collider slot: ids here count only wfCreateCollider's. Each has a
// pose that moves: its position follows position + amplitude sin(2 pi frequency t) on the world
// clock, and wfCollider_SetTransform moves the base pose, reached at the end of the next frame.
// Within a frame the pose goes linearly from the frame's start pose to its end pose (rotation by
// normalised lerp), and the cloth sees the shape's velocity there (friction, moving contact).
// Particles are pushed out to the surface + wfContactDef.thickness after each substep's velocity
// update, the sphere and floor first, then the colliders in creation order; on the CPU and on
// Vulkan (both paths). At most 32 per world; on Vulkan colliders x substeps at most 2048.
typedef enum wfColliderType {
	WF_COLLIDER_SPHERE = 0,
	WF_COLLIDER_CAPSULE, // two end spheres of radius and radius1 at -/+ halfLength along local x,
						 // joined by a tapered side (NvCloth's tapered capsule)
	WF_COLLIDER_BOX,     // halfExtents along the local axes
	WF_COLLIDER_PLANE,   // the plane through position with normal local +y; the half-space below is solid
	WF_COLLIDER_MESH,    // a triangle mesh (wfColliderDef.mesh) in the collider's frame: a body
} wfColliderType;

typedef struct wfQuat {
	float x, y, z, w;
} wfQuat; // unit quaternion (normalised on use)

// A pose of a collider's keyframed motion (wfColliderDef.keys).
typedef struct wfColliderKey {
	float time;      // s on the world clock, increasing from key to key
	wfVec3 position; // the base pose at that time (world)
	wfQuat rotation;
} wfColliderKey;

typedef enum wfInterpolation {
	WF_INTERPOLATE_LINEAR = 0, // position linear, rotation by normalised lerp
	WF_INTERPOLATE_SMOOTHSTEP, // the same with the fraction s eased to 3 s^2 - 2 s^3 (still at each key)
} wfInterpolation;

typedef struct wfColliderDef {
	wfColliderType type;
	wfVec3 position;    // world; within 1e6 m
	wfQuat rotation;    // default identity
	float radius;       // sphere, capsule at -x: (0, 1e4]
	float radius1;      // capsule at +x: (0, 1e4]
	float halfLength;   // capsule: [0, 1e4]
	wfVec3 halfExtents; // box: each (0, 1e4]
	wfVec3 amplitude;   // motion, m (0: still)
	float frequency;    // Hz, [0, 100]
	// Keyframes (copied on create; at most 1024): the base pose follows them on the world clock,
	// held at the first before it and at the last after it (or, with loop, repeating every last
	// key's time), instead of position and rotation; the sine motion adds to them.
	const wfColliderKey* keys;
	int keyCount;
	wfInterpolation interpolation;
	bool loop;
	// Mesh: the body's vertices and faces in the collider's frame (copied on create; quads split
	// in two; cornerUVs and uvs unused). Every vertex finite, every triangle of nonzero area. A closed
	// mesh (each edge on two faces, one winding) is a solid: one-sided, its outside found from the
	// winding, and a particle up to the thickness (plus 1e-4 of the mesh's size) inside is pushed out.
	// An open mesh is a sheet with two sides: a particle stays on the side it starts a substep on.
	// The mesh moves with the pose (a rigid body) and changes shape by keyPositions or
	// wfCollider_SetMeshVertices (a skinned body); within a frame each vertex moves linearly.
	// Contact: after the other colliders each substep, a particle's motion relative to each nearby
	// triangle (found through a bounding-volume hierarchy refitted every substep) is tested for
	// entering its thickness layer, so a fast particle or a fast body does not pass through; the
	// particle goes back onto the layer along the triangle's normal. On the CPU and on Vulkan (where
	// a world with a mesh collider steps every cloth on the per-range path; lavapipe gives the CPU's
	// bits); not on the browser's WebGPU solver.
	const wfMeshDef* mesh;
	// Mesh with keys (optional): keyCount x mesh->vertexCount positions, one shape per key, blended
	// in time as the keys' poses are (an animation's poses from OBJ files of one topology);
	// keyPositionCount is that product.
	const wfVec3* keyPositions;
	int keyPositionCount;
	int internalValue;
} wfColliderDef;

WF_API wfColliderDef wfDefaultColliderDef(void);

typedef struct wfColliderId {
	wfWorld* world;
	int32_t index; // -1 for the null id
	uint32_t generation;
} wfColliderId;

WF_API wfColliderId wfCreateCollider(wfWorld* world, const wfColliderDef* def);
WF_API void wfDestroyCollider(wfColliderId id);
WF_API bool wfColliderId_IsNull(wfColliderId id);
WF_API int wfWorld_GetColliderCount(const wfWorld* world);
// The ids of the world's colliders in creation-slot order; returns their number (writes at most capacity).
WF_API int wfWorld_GetColliders(const wfWorld* world, wfColliderId* out, int capacity);
// The base pose at the end of the next frame (a character's bone each frame); rotation normalised.
WF_API wfResult wfCollider_SetTransform(wfColliderId id, wfVec3 position, wfQuat rotation);
// The pose now (base + motion).
WF_API wfResult wfCollider_GetTransform(wfColliderId id, wfVec3* position, wfQuat* rotation);
// The def it was made with; for a mesh, mesh and keyPositions are NULL (the collider keeps its own
// copies: wfCollider_GetMeshVertices, wfCollider_GetMeshTriangles).
WF_API wfColliderDef wfCollider_GetDef(wfColliderId id);
// A mesh collider's shape at the end of the next frame (its frame, before the pose), as a game hands
// over a skinned mesh every frame: count is its vertex count, every position finite. Refused for a
// mesh with keyPositions (they shape it).
WF_API wfResult wfCollider_SetMeshVertices(wfColliderId id, const wfVec3* positions, int count);
// A mesh collider's vertices now (its frame) and its triangles (3 indices each, closed meshes wound
// outwards); return the number of vertices / triangles (write at most capacity; 0 for other types).
WF_API int wfCollider_GetMeshVertices(wfColliderId id, wfVec3* out, int capacity);
WF_API int wfCollider_GetMeshTriangles(wfColliderId id, uint32_t* out, int capacity);
WF_API const char* wfColliderTypeName(wfColliderType type);
WF_API bool wfColliderTypeFromName(const char* name, wfColliderType* out);

// A cloth's attachments; returns their number (writes at most capacity).
WF_API int wfCloth_GetAttachments(wfClothId id, wfAttachment* out, int capacity);
// Replaces a cloth's attachments with these to the mesh collider `body` (copied; count 0: none):
// particles in increasing order, each once; triangles of the body's mesh; u, v and 1 - u - v each
// within [-1e-3, 1 + 1e-3]; offsets finite, within 1e3 m. A bad list changes nothing. The tethers
// keep the anchors of the cloth's creation, as with pins.
WF_API wfResult wfCloth_SetAttachments(wfClothId id, wfColliderId body, const wfAttachment* list, int count);

// ---------------------------------------------------------------- intersections
// The intersection checker: the state now, on any backend (read back as wfCloth_ReadPositions
// does). Every side of every cloth triangle is tested against every triangle of every cloth (a
// uniform grid finds the candidates; the signs of orientation determinants in double decide, and
// a segment touching a triangle counts), so "no intersections" means no cloth passes through itself
// or another; and every particle and edge against the sphere, the floor and the colliders at their
// poses now. Costs about a frame's stats pass times 10: for tests, `weft run --intersections` and
// `weft bench --intersections`, not for every frame of a game.
typedef struct wfIntersections {
	int64_t self;   // edges of a cloth through its own triangles (sharing no particle, nor a torn copy of one)
	int64_t cloths; // edges of a cloth through the triangles of another cloth it is in contact with
	// edges of a cloth through another cloth's triangles where the world keeps no contact between
	// the two (selfCollision.betweenCloths off, or their collisionGroup and collisionMask keep them
	// apart): passing through is what the scene asks for, so these are not failures of the contact
	int64_t clothsApart;
	// particles deeper than 1e-5 of the shape's size inside the sphere, the floor or a collider
	// (as the contact stage sees it, without the thickness), and edges through one with both ends
	// out; for a mesh collider: cloth edges through its triangles, its edges through the cloths'
	// triangles, and (a closed mesh) particles inside it by the parity of three axis rays
	int64_t colliders;
} wfIntersections;

WF_API wfResult wfWorld_CountIntersections(wfWorld* world, wfIntersections* out);

// ---------------------------------------------------------------- meshes from OBJ files
// Reads the v, vt and f statements of a Wavefront OBJ file (every index form: v, v/vt, v//vn,
// v/vt/vn; negative indices count back from the last vertex; other statements are skipped).
// Faces of five or more corners are split into triangles as a fan; quads stay quads. Vertices are
// welded for the physics: corners that name the same v, or v entries at exactly the same position
// (a seam split by the exporter), become one particle; texture coordinates stay per corner
// (wfMeshDef.cornerUVs). Unused v entries are dropped. Errors name the file, line and reason.
typedef struct wfMesh wfMesh;
WF_API wfMesh* wfMesh_LoadObj(const char* path, char* error, int errorSize);
WF_API wfMesh* wfMesh_ParseObj(const char* text, const char* name, char* error, int errorSize);
WF_API wfMeshDef wfMesh_GetDef(const wfMesh* mesh); // valid while the mesh lives
WF_API void wfDestroyMesh(wfMesh* mesh);

// ---------------------------------------------------------------- world
// Returns NULL on failure and writes the reason into error (if not NULL).
WF_API wfWorld* wfCreateWorld(const wfWorldDef* def, char* error, int errorSize);
WF_API void wfDestroyWorld(wfWorld* world);

// Advances every cloth by one frame (def.step.substeps substeps).
WF_API wfResult wfWorld_Step(wfWorld* world);

WF_API const char* wfWorld_GetLastError(const wfWorld* world);
WF_API wfBackendType wfWorld_GetBackend(const wfWorld* world);
WF_API const char* wfWorld_GetDeviceName(const wfWorld* world);
WF_API wfWorldDef wfWorld_GetDef(const wfWorld* world);  // resolved values; deviceName is the world's copy
WF_API int wfWorld_GetThreadCount(const wfWorld* world); // CPU worker threads in use
WF_API double wfWorld_GetTime(const wfWorld* world);
WF_API wfWarnings wfWorld_GetWarnings(const wfWorld* world);
WF_API wfVec3 wfWorld_GetSphereCenter(const wfWorld* world); // where the moving sphere is now

// Stages of a frame, for the per-stage times of wfStepProfile.stageMs (wfWorld_SetStageTiming).
typedef enum wfStage {
	WF_STAGE_PREPARE = 0, // frame start: backup copies of the state, frame-check reset (on the GPU
						  // also any wait for earlier work on the queue, as gpuMs)
	WF_STAGE_PREDICT,     // external forces, damping and the predicted positions of each substep
	WF_STAGE_SOLVE,       // constraint projection: XPBD colour ranges, Jacobi sweeps, spring forces
	WF_STAGE_FINISH,      // velocity update, collisions, ping-pong copies
	WF_STAGE_NORMALS,     // normals, the frame check and its copy to the host (CPU: the frame check;
						  // its normals are computed when read)
	WF_STAGE_FUSED,       // the one-dispatch path of small cloths on the GPU (no boundaries inside)
	WF_STAGE_COUNT
} wfStage;

// "prepare", "predict", "solve", "finish", "normals", "fused"; "?" out of range.
WF_API const char* wfStageName(wfStage stage);

// What the last frame cost, for benchmarks: the floor of a frame is the larger of
// bytesPerFrame / (memory bandwidth) and dispatches x (dispatch + barrier latency).
typedef struct wfStepProfile {
	double gpuMs;               // device time of the last frame from GPU timestamps; -1 when unknown (CPU)
	int dispatches;             // compute dispatches recorded per frame; 0 on the CPU
	double bytesPerFrame;       // modelled memory traffic of one frame: every kernel reads and writes its data once
	double projectionsPerFrame; // constraint evaluations per frame (x iterations for XPBD and Jacobi)
	// (WF_STAGE_COUNT) ms of the last frame per wfStage, summed over its substeps and cloths:
	// GPU timestamps on Vulkan (they add up to gpuMs), the wall clock on the CPU. 0 for a stage
	// that did not run; -1 for all when unknown: stage timing off, no frame stepped since it was
	// turned on, or a device without timestamps. Added last so the fields above keep their offsets.
	double stageMs[WF_STAGE_COUNT];
	// The CPU's threaded grid frames (XPBD's structure-of-arrays path on 2 or more threads; all 0
	// otherwise), the last such cloth's: its threads, the fewest and most rows one was given (the
	// rows are cut again after every frame in proportion to each thread's measured speed), and the
	// least and most ms one worked, its waits left out.
	int threads;
	int threadRowsMin, threadRowsMax;
	double threadBusyMinMs, threadBusyMaxMs;
} wfStepProfile;

WF_API wfStepProfile wfWorld_GetStepProfile(const wfWorld* world);

// Per-stage timing (default off, so benchmarks time the bare frame). On Vulkan, switching re-records
// the frame command buffer at the next step with a timestamp at every change of stage; on the CPU
// the master thread reads the clock at the stage barriers. Results are bit-identical either way.
WF_API wfResult wfWorld_SetStageTiming(wfWorld* world, bool enabled);
WF_API bool wfWorld_GetStageTiming(const wfWorld* world);

// Live parameters. Each validates like creation and returns WF_ERROR_INVALID_DEF with a message.
WF_API wfResult wfWorld_SetStep(wfWorld* world, const wfStepDef* step);
WF_API wfResult wfWorld_SetGravity(wfWorld* world, wfVec3 gravity);
WF_API wfResult wfWorld_SetSphere(wfWorld* world, const wfSphereDef* sphere);
WF_API wfResult wfWorld_SetSphereMoving(wfWorld* world, bool moving);
WF_API wfResult wfWorld_SetFloor(wfWorld* world, const wfFloorDef* floor);
WF_API wfResult wfWorld_SetWind(wfWorld* world, const wfWindDef* wind);
WF_API wfResult wfWorld_SetContact(wfWorld* world, const wfContactDef* contact);
// Self-collision and cloth against cloth on or off, thickness, friction, exclusion: from the next
// frame (exclusion is applied to the rest shape, so it too may change). Validated like creation; a
// Vulkan world refuses enabling either (WF_ERROR_INVALID_DEF, by field).
WF_API wfResult wfWorld_SetSelfCollision(wfWorld* world, const wfSelfCollisionDef* sc);
// The self-collision thickness in use, m: selfCollision.thickness, or with 0 what the cloths give
// (half the finest cloth's mean edge; 0.005 in a world without cloths). 0 for a NULL world.
WF_API float wfWorld_GetSelfThickness(const wfWorld* world);

// Snapshot of the dynamic state of every cloth (positions, velocities, time, sphere phase).
// Restoring it continues bit-identically. The world's cloth set must be unchanged.
WF_API size_t wfWorld_GetSnapshotSize(const wfWorld* world);
WF_API wfResult wfWorld_SaveSnapshot(wfWorld* world, void* buffer, size_t size);
WF_API wfResult wfWorld_RestoreSnapshot(wfWorld* world, const void* buffer, size_t size);
// A 64-bit FNV-1a hash of the bits of the world's dynamic state: the clock, the sphere's phase and,
// cloth by cloth, its origin, particle count, topology, positions (with inverse masses) and
// velocities. Two worlds with equal hashes hold the same bits (zeros' signs included). XPBD's
// multipliers restart at zero every substep: they carry nothing into the next one and are not part
// of it.
WF_API wfResult wfWorld_GetStateHash(wfWorld* world, uint64_t* hash);

// ---------------------------------------------------------------- cloth
// Returns the null id on failure; the reason is in wfWorld_GetLastError. A cloth whose estimate
// (wfEstimateClothBytes) exceeds the machine's memory, or RLIMIT_AS / RLIMIT_DATA, is refused before
// anything is allocated (WF_ERROR_OUT_OF_MEMORY, "a 4096 x 4096 grid needs about 20.1 GB ...").
WF_API wfClothId wfCreateCloth(wfWorld* world, const wfClothDef* def);
// Host bytes wfCreateCloth needs at its peak for this def in a world of this def (NULL: a CPU world
// without self-collision); an upper bound, about 1.2 KB per particle of a grid on the CPU.
WF_API double wfEstimateClothBytes(const wfWorldDef* world, const wfClothDef* def);
// The bytes this process may use, as wfCreateCloth counts them: physical memory, or less under
// RLIMIT_AS / RLIMIT_DATA; *what (if not NULL) names which. 0 when unknown (the wasm build).
WF_API double wfMemoryLimit(const char** what);
WF_API void wfDestroyCloth(wfClothId id);

WF_API wfResult wfCloth_GetInfo(wfClothId id, wfClothInfo* info);
WF_API wfResult wfCloth_GetStats(wfClothId id, wfClothStats* stats);
WF_API wfMaterial wfCloth_GetMaterial(wfClothId id);
WF_API wfResult wfCloth_SetMaterial(wfClothId id, const wfMaterial* material);

// Puts the particles back at their initial positions at rest (pins and material unchanged). A torn
// cloth gets its untorn mesh back (its particle count too; wfClothInfo.topology counts on).
WF_API wfResult wfCloth_Reset(wfClothId id);

// Pins: a pinned particle has inverse mass 0 and stays where it is. Unpinning lets it fall.
WF_API wfResult wfCloth_SetPinMode(wfClothId id, wfPinMode mode, const int* indices, int count);
WF_API wfResult wfCloth_SetPinned(wfClothId id, int particle, bool pinned);
WF_API bool wfCloth_IsPinned(wfClothId id, int particle);

// Grab: the particle is held at the target (fixed) until released. One grab per cloth. The target
// must be finite (WF_ERROR_INVALID_ARGUMENT otherwise).
WF_API wfResult wfCloth_Grab(wfClothId id, int particle, wfVec3 target);
WF_API wfResult wfCloth_MoveGrab(wfClothId id, wfVec3 target);
WF_API wfResult wfCloth_Release(wfClothId id);
WF_API int wfCloth_GetGrabbed(wfClothId id); // -1 when nothing is grabbed

// Precision anywhere: a cloth's positions are kept relative to its own origin (a world point in
// double), which follows the cloth between frames, so a scene behaves the same at the world's
// origin and a kilometre away. ReadPositions / WritePositions take world coordinates;
// ReadLocalPositions gives the stored ones (world = origin + local, in double); the Vulkan interop
// buffers hold local positions too (wfVulkanClothBuffers.origin). Snapshots keep the origin.
WF_API wfResult wfCloth_GetOrigin(wfClothId id, double origin[3]);
WF_API wfResult wfCloth_ReadLocalPositions(wfClothId id, wfVec3* out, int count);

// Read-back. count must equal the number of elements (particles, or 3 * triangles for indices).
WF_API wfResult wfCloth_ReadPositions(wfClothId id, wfVec3* out, int count);
WF_API wfResult wfCloth_ReadVelocities(wfClothId id, wfVec3* out, int count);
WF_API wfResult wfCloth_ReadNormals(wfClothId id, wfVec3* out, int count); // area-weighted, unit
WF_API wfResult wfCloth_ReadUVs(wfClothId id, float* out /* (count x 2) */, int count);
WF_API wfResult wfCloth_ReadIndices(wfClothId id, uint32_t* out /* (3 x triangles) */, int count);
// The stretch constraints' particle pairs (2 x edgeCount): the edges a wireframe draws.
WF_API wfResult wfCloth_ReadEdges(wfClothId id, uint32_t* out /* (2 x edges) */, int count);
// Per-corner texture coordinates of the triangles of ReadIndices (3 x triangles x 2), with the seams
// of a mesh given cornerUVs; otherwise each corner's particle's UV.
WF_API wfResult wfCloth_ReadCornerUVs(wfClothId id, float* out /* (6 x triangles) */, int count);
// Per particle, the particle of the untorn cloth it descends from (itself until a tear copies it;
// see wfMaterial.tearStrain): a tear appends copies of split particles and keeps the other indices.
WF_API wfResult wfCloth_ReadSourceParticles(wfClothId id, int* out /* (particles) */, int count);
// Overwrites positions (and zeroes velocities); for tests and tools. Every value must be finite:
// a NaN or infinity anywhere refuses the whole write (WF_ERROR_INVALID_ARGUMENT, message names the index).
WF_API wfResult wfCloth_WritePositions(wfClothId id, const wfVec3* positions, int count);
WF_API wfResult wfCloth_WriteVelocities(wfClothId id, const wfVec3* velocities, int count);

// ---------------------------------------------------------------- presets
// Presets reproduce the seed documents' default scenes.
WF_API int wfPresetCount(void);
WF_API const char* wfPresetName(int index);
WF_API const char* wfPresetDescription(int index);
// Fills a world and a cloth def; returns false for an unknown name.
WF_API bool wfPresetGet(const char* name, wfWorldDef* world, wfClothDef* cloth);

// ---------------------------------------------------------------- scene files (JSON)
typedef struct wfScene wfScene;

// Loads a scene; on failure returns NULL and writes "file: key: problem (allowed range)" into error.
WF_API wfScene* wfScene_Load(const char* path, char* error, int errorSize);
// Parses scene text; `name` is used in messages.
WF_API wfScene* wfScene_Parse(const char* text, const char* name, char* error, int errorSize);
WF_API void wfDestroyScene(wfScene* scene);
WF_API wfWorldDef wfScene_GetWorldDef(const wfScene* scene);
WF_API int wfScene_GetClothCount(const wfScene* scene);
WF_API wfClothDef wfScene_GetClothDef(const wfScene* scene, int index); // pin list owned by the scene
WF_API int wfScene_GetFrames(const wfScene* scene);                     // "frames" of the scene, 0 if absent
WF_API int wfScene_GetColliderCount(const wfScene* scene);              // "colliders": [{"type", "position", "rotate" (degrees), ...}]
WF_API wfColliderDef wfScene_GetColliderDef(const wfScene* scene, int index);

// ---------------------------------------------------------------- def fields
// Every field of the defs that has a value of its own, from the one table per def that gives the
// library its defaults (wfDefault*Def), its range checks and messages (creation, setters, scene
// files) and the scene-file keys. Tools read ranges and defaults here instead of keeping copies.
typedef enum wfDefType {
	WF_DEF_WORLD = 0,
	WF_DEF_STEP,
	WF_DEF_SPHERE,
	WF_DEF_FLOOR,
	WF_DEF_WIND,
	WF_DEF_CONTACT,
	WF_DEF_AERO,
	WF_DEF_SELF_COLLISION,
	WF_DEF_MATERIAL,
	WF_DEF_CLOTH,
	WF_DEF_COLLIDER,
	WF_DEF_COLLIDER_KEY,
	WF_DEF_COUNT
} wfDefType;

typedef enum wfFieldType {
	WF_FIELD_BOOL = 0,
	WF_FIELD_INT,
	WF_FIELD_FLOAT,
	WF_FIELD_VEC3,       // wfVec3: min and max bound each component
	WF_FIELD_QUAT,       // wfQuat (scene files: "rotate", degrees about x, y, z)
	WF_FIELD_ENUM,       // stored as int; enumNames[value]
	WF_FIELD_STRING,     // const char*
	WF_FIELD_STRUCT,     // a nested def: its fields are wfDefFields(nested)
	WF_FIELD_INDEX_LIST, // const int* with an int count at countOffset
	WF_FIELD_POINTER,    // an array or object the caller owns (mesh, collider keys): no value here
	WF_FIELD_TYPE_COUNT
} wfFieldType;

// wfFieldInfo.flags
#define WF_FIELD_OPEN_MIN 1u // min itself is not allowed: (min, max]
#define WF_FIELD_OPEN_MAX 2u // max itself is not allowed: [min, max)
#define WF_FIELD_LOG 4u      // a slider over the ui range is best logarithmic
#define WF_FIELD_EACH 8u     // a vector's components are checked and reported one by one (".x")
#define WF_FIELD_CUSTOM 16u  // the range is checked by the def's own rules (their message), not the table
#define WF_FIELD_GRID 32u    // cloths: checked for a grid only (a mesh cloth does not use it)
#define WF_FIELD_OR_ZERO 64u // 0 is allowed besides the range: a value the library derives (the note says how)

typedef struct wfFieldInfo {
	const char* name;             // the C member ("substeps")
	const char* sceneKey;         // its key in scene files ("substeps"), NULL when scene files do not set it
	const char* note;             // said after the range in the message, or NULL
	const char* const* enumNames; // WF_FIELD_ENUM: enumCount names, by value
	uint32_t offset;              // bytes into the def
	uint32_t countOffset;         // WF_FIELD_INDEX_LIST: the count's offset
	wfFieldType type;
	wfDefType nested; // WF_FIELD_STRUCT: the nested def's type
	// Floats hold every bound and default exactly (the integer fields' are below 2^24).
	float min, max;        // the range creation accepts (numbers and each vector component; see flags)
	float defaultValue[4]; // wfDefault*Def's value: [0] for numbers, bools and enums, xyz(w) for vectors
	float uiMin, uiMax;    // a range for a slider inside [min, max]; both 0 when there is none
	uint32_t flags;        // WF_FIELD_*
	uint32_t onlyFor;      // checked only for these variants: a collider's types (1 << type), a cloth as a
						   // grid (1) or a mesh (2); 0: always
	int enumCount;
} wfFieldInfo;

// The fields of a def in scene-file order (NULL and 0 for an unknown def type).
WF_API const wfFieldInfo* wfDefFields(wfDefType def, int* count);
// A field by its path from that def, members joined by '.' ("step.substeps" from WF_DEF_WORLD,
// "mass" from WF_DEF_MATERIAL); NULL when there is none.
WF_API const wfFieldInfo* wfFindDefField(wfDefType def, const char* path);
// The same, and the field's bytes from the start of a `def` into *offset (the nested defs' offsets
// added; offset may be NULL): where a tool writes the value it parsed.
WF_API const wfFieldInfo* wfFindDefFieldAt(wfDefType def, const char* path, size_t* offset);
// The longest "frames" a scene file (and `weft run --frames`) may ask for.
#define WF_MAX_SCENE_FRAMES 10000000

// Names used in scene files and on the command line ("xpbd", "top-corners", ...).
WF_API const char* wfSolverName(wfSolverType solver);
WF_API bool wfSolverFromName(const char* name, wfSolverType* out);
WF_API const char* wfBackendName(wfBackendType backend);
WF_API bool wfBackendFromName(const char* name, wfBackendType* out);
WF_API const char* wfPinModeName(wfPinMode mode);
WF_API bool wfPinModeFromName(const char* name, wfPinMode* out);
WF_API const char* wfTetherModeName(wfTetherMode mode);

// ---------------------------------------------------------------- devices
typedef struct wfDeviceInfo {
	char name[256];
	bool hardware; // false for software rasterisers (lavapipe)
	uint32_t apiVersion;
} wfDeviceInfo;

// Lists the Vulkan devices; returns the number found (0 when there is no loader or device), writes
// at most capacity (none when out is NULL: a count). When there is no Vulkan support compiled in, returns -1.
WF_API int wfEnumerateDevices(wfDeviceInfo* out, int capacity, char* error, int errorSize);

// Whether deviceName contains pattern, ignoring case: the rule by which wfWorldDef.deviceName (and
// WEFT_VK_DEVICE in the tools) picks a device, shared by the backend, the renderer and the viewer.
WF_API bool wfDeviceNameMatches(const char* deviceName, const char* pattern);
// Whether a deviceName pattern picks the device at `index` (the order of wfEnumerateDevices) named
// deviceName: "#N" (decimal) picks the N-th device, which tells apart several GPUs of one model;
// any other pattern is matched against the name (wfDeviceNameMatches).
WF_API bool wfDevicePatternSelects(const char* pattern, int index, const char* deviceName);

// ---------------------------------------------------------------- Vulkan interop
// Two ways in: an engine gives weft its own device (wfWorldDef.vulkanDevice, filled as below), or
// weft creates one and hands it out (wfWorld_GetVulkanDevice). Either way the cloths' state can be
// drawn straight from the solver's buffers (wfCloth_GetVulkanBuffers; weft's renderer does this when
// wfRendererDef.world is set). Handles are given without <vulkan/vulkan.h>: dispatchable ones as
// pointers, the others as uint64_t; cast them to the Vulkan types.
//
// Synchronisation: wfWorld_Step, the setters and the read-backs submit to `queue` and wait for their
// work before they return, so the world never has work in flight between calls. A reader that submits
// to the same queue records one barrier before its reads: source stages COMPUTE_SHADER | TRANSFER,
// accesses SHADER_WRITE | TRANSFER_WRITE. Its reads must be complete (its fence waited for) before the
// next call into the world that writes the cloths. The queue is externally synchronised: use the world
// and the reader from one thread.
struct wfVulkanDevice {
	void* instance;       // VkInstance
	void* physicalDevice; // VkPhysicalDevice
	void* device;         // VkDevice
	void* queue;          // VkQueue the world submits to
	uint32_t queueFamily;
	uint32_t queueFlags;         // VkQueueFlags of that family (graphics too when the device has such a family)
	uint32_t apiVersion;         // VkApplicationInfo::apiVersion of the instance
	const void* enabledFeatures; // const VkPhysicalDeviceFeatures* the device was created with (may be NULL)
	void* getInstanceProcAddr;   // PFN_vkGetInstanceProcAddr of the loader that made the instance
};

// Fills *out; WF_ERROR_BACKEND_UNAVAILABLE when the world does not run on Vulkan. The handles live as
// long as the world (or, given through wfWorldDef.vulkanDevice, are the caller's own).
WF_API wfResult wfWorld_GetVulkanDevice(wfWorld* world, wfVulkanDevice* out);

// Where a cloth's current state lives on the device: arrays of particleCount vec4 (16 bytes each).
typedef struct wfVulkanClothBuffers {
	uint64_t buffer;         // VkBuffer (usage: storage, vertex, transfer src/dst); small cloths share one
	uint64_t positionOffset; // bytes into buffer: xyz position relative to `origin`, w inverse mass
	uint64_t velocityOffset; // xyz velocity, w unused
	uint64_t normalOffset;   // xyz unit normal, w unused
	uint32_t stride;         // 16
	int particleCount;
	bool normalsCurrent; // false after the host changed positions and before the next step
	double origin[3];    // positions are relative to this world point (wfCloth_GetOrigin)
} wfVulkanClothBuffers;

// Fills *out for a cloth of a world on Vulkan (WF_ERROR_BACKEND_UNAVAILABLE otherwise). Valid until a
// cloth is added to or removed from the world (small cloths are packed in shared buffers that may
// move then), or the first step after the world's first mesh collider (its small cloths move to
// buffers of their own); ask again after that.
WF_API wfResult wfCloth_GetVulkanBuffers(wfClothId id, wfVulkanClothBuffers* out);

#ifdef __cplusplus
}
#endif

#endif // WEFT_WEFT_H
