// The kernel ABI: what the C core, the CPU solvers, the Vulkan kernels (GLSL) and the web's WebGPU
// frame share, written once. Limits (WF_MAX_SUBSTEPS, WF_MAX_COLLIDERS), numbers both sides must
// round alike, binding numbers, the push constants and the per-cloth frame records. No backend owns
// it: the core includes it (src/core/internal.h), GLSL includes it (src/vulkan/shaders/common.glsl,
// glslc -I src/gpu), the wasm core includes it (web/weft_wasm.c).
// In GLSL (GL_core_profile) the structs are std430 blocks; in C they are plain structs of 4-byte
// scalars and 16-byte vectors, laid out identically (checked by static asserts in vk_backend.c).
#ifndef WEFT_GPU_KERNEL_ABI_H
#define WEFT_GPU_KERNEL_ABI_H

// The struct macros stay one line each.
// clang-format off
#ifdef GL_core_profile
#define WF_VEC4 vec4
#define WF_UINT uint
#define WF_INT int
#define WF_FLOAT float
#define WF_STRUCT_BEGIN(name) struct name {
#define WF_STRUCT_END(name) };
#else
#include <stdint.h>
typedef struct wfGpuVec4 { float x, y, z, w; } wfGpuVec4;
#define WF_VEC4 wfGpuVec4
#define WF_UINT uint32_t
#define WF_INT int32_t
#define WF_FLOAT float
#define WF_STRUCT_BEGIN(name) typedef struct name {
#define WF_STRUCT_END(name) } name;
#endif
// clang-format on

// Float literals in both languages: 1e-12 in GLSL, 1e-12f in C.
#ifdef GL_core_profile
#define WF_F(x) x
#else
#define WF_F(x) x##f
#endif

// Numbers the CPU solvers (src/cpu/, src/core/environment.c, topology.c) and the kernels must share
// bit for bit; written only here.
#define WF_TWO_PI WF_F(6.28318530717958647692) // the sphere's motion and the wave wind's phase
#define WF_MIN_LENGTH WF_F(1e-12)              // a constraint or contact direction shorter than this is skipped
#define WF_MIN_NORMAL_LENGTH WF_F(1e-20)       // a (triangle) normal shorter than this is not normalised
#define WF_MIN_AIR_SPEED2 WF_F(1e-24)          // lift needs a squared relative air speed above this

// Threads per workgroup of every kernel (1D; large counts spill into gl_WorkGroupID.y).
#define WF_GPU_GROUP_SIZE 128
// check.comp's particles per invocation: one for a small cloth (eight made each invocation's loads a
// chain of eight round trips, +7 us a frame of spring-mesh on the H200), eight past
// WF_GPU_CHECK_SPREAD_ABOVE particles (one left the last workgroup 8 192 partials to sum, xpbd 1024^2
// +3.9 % against +1.7 % with eight).
#define WF_GPU_CHECK_PER_THREAD_LARGE 8
#define WF_GPU_CHECK_SPREAD_ABOVE 131072
// Frame buffers hold one substep record per substep, up to the largest substep count allowed:
// this is wfStepDef.substeps' upper bound (its field table in defs.c reads it from here).
#define WF_MAX_SUBSTEPS 4096
// Colliders: at most WF_MAX_COLLIDERS per world (WF_MAX_COLLIDERS on every backend), and substeps x colliders at most
// WF_MAX_COLLIDER_STEPS records a frame, kept after the substep records as two wfGpuSubstep-sized
// records each (wfGpuShapeStep): S[WF_MAX_SUBSTEPS + 2 (substep shapeCount + k)] and the next.
#define WF_MAX_COLLIDERS 32
#define WF_WORLD_SHAPES 2 // at most: the world's sphere and floor, the first shapes of a frame
#define WF_MAX_SHAPES (WF_MAX_COLLIDERS + WF_WORLD_SHAPES)
#define WF_MAX_COLLIDER_STEPS 2048
#define WF_GPU_FRAME_RECORDS (WF_MAX_SUBSTEPS + 2 * WF_MAX_COLLIDER_STEPS)
// wfColliderType's values, for the shaders.
#define WF_COLLIDER_SPHERE_ID 0
#define WF_COLLIDER_CAPSULE_ID 1
#define WF_COLLIDER_BOX_ID 2
#define WF_COLLIDER_PLANE_ID 3
#define WF_COLLIDER_MESH_ID 4 // not a shape of WfCollideShape: collide_mesh.comp, after finish
// Mesh colliders (mesh_collider.c, collide_mesh.comp): a triangle reaches this far past its sides in
// barycentric weights; pushes per particle and substep; a closed body pushes out particles up to the
// thickness plus this fraction of its size inside.
#define WF_MESH_EDGE_SLACK WF_F(1e-3)
#define WF_MESH_ROUNDS 4
#define WF_MESH_BEHIND WF_F(1e-4)
// Self-collision's edge-edge pass (cpu_self.c EdgeEdge, contact_edge.comp): the most edge partners a
// particle keeps (wfClothModel.partnerStart; a grid particle has 6).
#define WF_MAX_EDGE_PARTNERS 32

// Descriptor bindings (set 0). Two descriptor sets per cloth differ only in POS/VEL vs POS_ALT/VEL_ALT:
// variant 0 binds (A, B), variant 1 binds (B, A), which is how sweeps and springs ping-pong.
#define WF_GPU_BIND_FRAME 0          // wfVkFrame (host-visible, written before each submit)
#define WF_GPU_BIND_POS 1            // (n) vec4 xyz position, w inverse mass: the buffer read
#define WF_GPU_BIND_VEL 2            // (n) vec4 velocity
#define WF_GPU_BIND_POS_ALT 3        // (n) the buffer written by sweeps and springs
#define WF_GPU_BIND_VEL_ALT 4        // (n)
#define WF_GPU_BIND_PREV 5           // (n) positions at the substep start
#define WF_GPU_BIND_LAMBDA 6         // (constraints) XPBD multipliers
#define WF_GPU_BIND_CONSTRAINTS 7    // (constraints) uvec4 a, b, rest bits, family; sorted by colour
#define WF_GPU_BIND_ADJ_START 8      // (n + 1)
#define WF_GPU_BIND_ADJ_CONSTRAINT 9 // (2 constraints)
#define WF_GPU_BIND_ADJ_OTHER 10     // (2 constraints)
#define WF_GPU_BIND_JACOBI_WEIGHT 11 // (constraints)
#define WF_GPU_BIND_NORMALS 12       // (n) vec4
#define WF_GPU_BIND_TRI_START 13     // (2 (n + 1) + partners) triangle rows, edge partners' rows
#define WF_GPU_BIND_TRI_LIST 14      // (3 triangles) ascending triangle indices
#define WF_GPU_BIND_INDICES 15       // (3 triangles)
#define WF_GPU_BIND_STATUS 16        // wfGpuStatus
#define WF_GPU_BIND_STATS_PARAMS 17  // wfGpuStatsParams (host-visible, after the frame records)
#define WF_GPU_BIND_PARTIALS 18      // (particle groups + constraint groups) wfGpuPartial
#define WF_GPU_BIND_REST 19          // (n) vec4 rest positions, w the air share (self-collision, aerodynamics; 16 bytes without)
#define WF_GPU_BIND_TILE_START 20    // (colours x (tiles + 1)) the tile order's ranges (wfTileRange)
#define WF_GPU_BIND_TILE_CON 21      // (constraints) uvec2 for xpbd_tiled.comp: region slots a | b << 12 | family << 24, rest bits
// TRI_START: (n + 1) incident triangles per particle, compressed rows; then the edge partners' rows
// (n + 1: wfClothModel.partnerStart offset by 2 n + 2, indices into this array) and the partners
// (partnerList). In this binding, not one of its own: set 0 and the contact set hold 32 already.
// check.comp: the frame-start positions (before the re-centring shift) from element 0, velocities
// from element contactBand.w's bits (one binding: 23 with the contact set's 9 is 32, the fewest
// storage buffers a device allows).
#define WF_GPU_BIND_BACKUP 22
#define WF_GPU_BIND_COUNT 23

// Contacts (wfSelfCollisionDef: a cloth's own particles, and cloth against cloth): set 1, one per
// world, bound for the whole frame. The arrays hold N particles: the largest self-colliding cloth,
// or with betweenCloths the world's particles, cloth after cloth in slot order (a cloth's base is
// the particles of the cloths before it). H is the hash's size (a power of two, mask = H - 1).
#define WF_GPU_SET_CONTACTS 1
#define WF_GPU_CONTACT_BIND_PARAMS 0 // wfGpuContactParams (host-visible, written at creation)
#define WF_GPU_CONTACT_BIND_KEY 1    // (N) each particle's cell key
#define WF_GPU_CONTACT_BIND_RANK 2   // (N) its place among its cell's particles in atomicAdd order (not deterministic)
// (H + 1) each cell's start after the scan (cell k is sorted[cells[k], cells[k + 1])), the scan's
// block sums, then at wfGpuContactParams.counts the (H + 1) counts the keys take by atomicAdd: the
// scan reads them and leaves them 0 for the next grid, so only a frame's first grid clears them.
#define WF_GPU_CONTACT_BIND_CELLS 3
#define WF_GPU_CONTACT_BIND_SORTED 4 // (N) particle indices by cell, ascending within a cell (the CPU's order)
#define WF_GPU_CONTACT_BIND_DELTA 5  // (N) vec4 each particle's averaged push, w 1 where it touches another
#define WF_GPU_CONTACT_BIND_X 6      // (N) vec4 cloth against cloth: positions in the first cloth's frame, w inverse mass
#define WF_GPU_CONTACT_BIND_MOTION 7 // (N) vec4 cloth against cloth: the substep's motion x - prev in the cloth's frame
// (N) uvec4 cloth against cloth: the particle's cloth (its base), that cloth's collisionGroup and
// collisionMask (a pair touches when each one's group meets the other's mask, as on the CPU), 0.
// One binding, not two: set 0 and this set together hold 32 storage buffers, Vulkan's least
// per-stage limit (maxPerStageDescriptorStorageBuffers; lavapipe's).
#define WF_GPU_CONTACT_BIND_OWNER 8
#define WF_GPU_CONTACT_BIND_COUNT 9
// Mesh colliders (WF_COLLIDER_MESH; collide_mesh.comp): set 1 of a pipeline layout of their own
// (set 0 and this set, not the contact set: set 0 and the contact set already hold the 32 storage
// buffers a stage may have). One buffer per world, written by the host before each submit: the
// placements (wfGpuMeshPlace, one per cloth, substep and mesh body: the host places the body in
// double, wfMeshBodyPlace), then words: each body's triangles, neighbours, leaf order and owners,
// each cloth's attachments (WF_GPU_MESH_ATTACH_WORDS each), and per placement its vertices at the
// substep's start and end, vertex normals and refitted hierarchy four-wide (WF_GPU_MESH_WIDE_WORDS).
#define WF_GPU_SET_MESH 1
#define WF_GPU_MESH_BIND_PLACE 0   // (cloths x substeps x bodies) wfGpuMeshPlace
#define WF_GPU_MESH_BIND_WORDS 1   // the words as uint
#define WF_GPU_MESH_BIND_FLOATS 2  // the same words as float
#define WF_GPU_MESH_BIND_SCRATCH 3 // vec4: the edge pass's pushes (4 a constraint), then the corner pass's (3 a triangle)
#define WF_GPU_MESH_BIND_COUNT 4
// The hierarchy four-wide (vk_mesh.c PutWide): a wide node for the root and for each inner node the
// walk reaches two levels below another, its slots the nodes the binary walk tests after both
// children's: the grandchildren, or a child that is a leaf, in the walk's order. A slot: box lo
// and hi, the convex edges' box lo and hi (closed bodies), then its wide node and 0, or a leaf's
// first triangle and count, or WF_GPU_MESH_NO_SLOT and 0.
#define WF_GPU_MESH_SLOT_WORDS 14
#define WF_GPU_MESH_WIDE_WORDS (4 * WF_GPU_MESH_SLOT_WORDS)
#define WF_GPU_MESH_NO_SLOT 0xffffffffu
#define WF_GPU_MESH_ATTACH_WORDS 8 // particle, triangle, u, v, offset xyz, 0
#define WF_GPU_FAMILY_BEND 2       // a constraint record's family (uvec4 w) for bending, WF_FAMILY_BEND
// collide_mesh.comp reads wfGpuPush as: first, count = elements (particles, constraints, triangles,
// attachments), substep = the placement's index, flags = one stage and its options.
#define WF_GPU_MESH_POINT 1u      // each particle's motion against the body (wfMeshBodyCollide)
#define WF_GPU_MESH_EDGE 2u       // each cloth edge against the body's convex edges (wfMeshBodyCollideEdge), its pushes into scratch
#define WF_GPU_MESH_CORNERS 3u    // each cloth triangle's pushes of its corners by the body's corners under it, into scratch
#define WF_GPU_MESH_APPLY 4u      // x += its triangles' pushes in scratch, and the response
#define WF_GPU_MESH_ATTACH 5u     // attached particles onto their points (wfCpuAttach)
#define WF_GPU_MESH_EDGE_APPLY 6u // x += its edges' pushes in scratch in constraint order, each with its response
#define WF_GPU_MESH_STAGE_MASK 15u
#define WF_GPU_MESH_START_ALT 16u  // the substep's start positions are POS_ALT (springs), not PREV
#define WF_GPU_MESH_VELOCITIES 32u // attach: held particles take the point's velocity (springs)
#define WF_GPU_MESH_MOVES 64u      // inside an XPBD or Jacobi substep: every push into the velocity (wfCpuMoved), no response
// The scan (contact_scan.comp): each workgroup of WF_GPU_SCAN_GROUP invocations scans
// WF_GPU_SCAN_BLOCK counts (4 each) and writes the block's sum; the sums are scanned the same way,
// level by level, then added back.
#define WF_GPU_SCAN_GROUP 256
#define WF_GPU_SCAN_BLOCK 1024

// Fused small-cloth kernels (fused.glsl): one workgroup steps a whole frame of one cloth. Each
// invocation owns up to WF_GPU_FUSED_PER_THREAD particles (their velocities and substep-start
// positions stay in registers), so a cloth fits when it has at most WF_GPU_FUSED_MAX_PARTICLES
// particles and at most WF_GPU_FUSED_MAX_COLORS colours. Why 4096: 1024 invocations (the largest
// workgroup) x 4 particles, whose xyz positions are exactly the 48 KB of shared memory a
// workgroup may have on the H200. A larger cloth would be stepped by one SM with its state in
// L1/L2, while a colour range of it (~n/2 constraints, over 2048) already fills several
// workgroups: there the per-range path's 2.5 us per dispatch stops being the larger cost.
#define WF_GPU_FUSED_GROUP_SIZE 1024
#define WF_GPU_FUSED_PER_THREAD 4
#define WF_GPU_FUSED_MAX_PARTICLES (WF_GPU_FUSED_GROUP_SIZE * WF_GPU_FUSED_PER_THREAD)
#define WF_GPU_FUSED_MAX_COLORS 31
// Positions in shared memory as packed xyz floats: up to 12288 floats = 48 KB, the H200's limit,
// less WF_GPU_FUSED_SHARED_WORDS for the kernel's other shared data: 4041 particles (a 60x60
// cloth's 3600 fit); the array is sized from the device's limit by a specialization constant
// (lavapipe's 32 KB: 2676 particles).
#define WF_GPU_FUSED_SHARED_FLOATS 12288
#define WF_GPU_FUSED_SPEC_SHARED_FLOATS 0 // constant_id of the shared array's size
// Neighbour gathers (springs.comp, jacobi_sweep.comp) load this many neighbours before using any
// (constant_id WF_GPU_SPEC_GATHER). Wide for small cloths whose particles have at most that many
// neighbours: their dispatches fill a sliver of the GPU and wait on latency; narrow otherwise.
#define WF_GPU_SPEC_GATHER 2
// constant_id of kMoves (common.glsl): the world's wfWorldDef.velocity is WF_VELOCITY_MOVES, so every
// move inside an XPBD or Jacobi substep also goes into the particle's velocity (wfCpuMoved).
#define WF_GPU_SPEC_MOVES 3
// constant_id of kColliders (common.glsl): false where the world has no colliders besides its
// sphere and floor, so the kernels that collide leave the colliders' loop out (its code alone cost
// the fused XPBD frame 5 %); the backend records the frame again when that changes.
#define WF_GPU_SPEC_COLLIDERS 5
#define WF_GPU_GATHER 4
#define WF_GPU_GATHER_WIDE 8
#define WF_GPU_GATHER_WIDE_MAX_PARTICLES 16384
// Explicit springs in tiles (springs_tiled.comp): a workgroup advances a WF_GPU_TILE square of the
// grid up to WF_GPU_TILE_HALO substeps per dispatch from a region WF_GPU_TILE_HALO rings wider,
// held in shared memory (22 x 22 particles, 15.5 KB); one invocation per region particle. Only
// cloths of at most WF_GPU_TILE_MAX_PARTICLES take it: on the H200 the tiles' repeated work loses
// to a dispatch per substep from 256 x 256 on (docs/PERFORMANCE.md).
#define WF_GPU_TILE 8
#define WF_GPU_TILE_HALO 7
// A region's invocations: one per particle of its side^2, rounded up to 32 (springs 484 -> 512).
#define WF_GPU_TILE_GROUP(halo) (((WF_GPU_TILE + 2 * (halo)) * (WF_GPU_TILE + 2 * (halo)) + 31) / 32 * 32)
#define WF_GPU_TILE_MAX_PARTICLES 16384
// Jacobi in tiles (jacobi_tiled.comp): whole substeps (predict, sweeps, finish) of a WF_GPU_TILE
// square, from a region WF_GPU_TILE_JACOBI_HALO rings wider (24 x 24 particles, twice: 18.4 KB); a sweep
// reaches as far as the cloth's constraints (2 rows and columns with bending), so a dispatch takes
// up to halo / (sweeps x reach) substeps: 2 of the spring-mesh document's. Particles of at most
// WF_GPU_TILE_JACOBI_DEGREE constraints; cloths of at most WF_GPU_TILE_JACOBI_MAX_PARTICLES (on the
// H200 the tiles win up to 96 x 96 and tie at 128 x 128; a halo of 12 lost from 96 x 96 on).
#define WF_GPU_TILE_JACOBI_HALO 8
#define WF_GPU_TILE_JACOBI_DEGREE 12
#define WF_GPU_TILE_JACOBI_MAX_PARTICLES 9216
// XPBD in tiles (xpbd_tiled.comp; the tile order of wfClothModel): a workgroup relaxes every colour
// of one WF_GPU_XPBD_TILE square of owner cells from a region two rings wider on its high sides
// ((T + 2)^2 positions in shared memory, 18.5 KB) with WF_GPU_XPBD_TILE_GROUP invocations: one per
// constraint of a colour (a colour holds at most T^2 / 2 of a tile's constraints). H200, 1024 x 1024:
// tiles of 32 1.12 ms, of 24 1.45, of 16 1.55; 32 with 256 invocations (two constraints each) 2.57.
#define WF_GPU_XPBD_TILE 32
#define WF_GPU_XPBD_TILE_GROUP ((WF_GPU_XPBD_TILE * WF_GPU_XPBD_TILE / 2 + 31) / 32 * 32)
#define WF_GPU_XPBD_TILE_COLORS 12 // a grid's colours (the records of all are loaded before the first)
// The fused kernel's other shared memory, in 4-byte words: a bit per particle (free or not), a
// flag, the colour starts.
#define WF_GPU_FUSED_SHARED_WORDS 164
// constant_id of the workgroup size: the smallest power of two from 32 to 1024 with 4 per
// invocation covering n.
#define WF_GPU_FUSED_SPEC_GROUP_SIZE 1
#define WF_GPU_FUSED_GROUP_SIZES 6 // 32, 64, ..., 1024
// Self-collision inside the fused frame (fused_self.glsl): the cloth's hash grid in shared memory,
// its sorted particle list (4 per invocation) and its cell starts as 16-bit halves (the CPU's hash
// of 2 n cells rounded up to a power of two: at most 8 per invocation, and two more halves): 8 G +
// 1 words for a workgroup of G. The array is sized by a specialization constant: 1 word in a world
// without self-collision. The largest workgroup that holds it beside the kernel's other words: 512
// (1 024 would need 32 KB for the grid beside 48 KB of positions).
#define WF_GPU_FUSED_SPEC_HASH_WORDS 4 // constant_id of the grid's shared array
#define WF_GPU_FUSED_HASH_WORDS(group) (8u * (group) + 1u)

// wfGpuClothParams.flags
#define WF_GPU_FLAG_SPHERE 1u
#define WF_GPU_FLAG_FLOOR 2u
#define WF_GPU_FLAG_STOP 4u           // contact response: zero the velocity
#define WF_GPU_FLAG_WAVE 8u           // wave wind: acceleration per column and inverse mass
#define WF_GPU_FLAG_JACOBI_DEGREE 16u // Jacobi: the document's own-degree averaging, no pin factor
#define WF_GPU_FLAG_AERO 32u          // drag and lift: the substep's aerodynamic acceleration is in prev (predict.comp)
#define WF_GPU_FLAG_MOVES 64u         // WF_VELOCITY_MOVES (kMoves for WGSL, WF_WGSL; Vulkan specializes)

// Batches (fused kernels): the small cloths of a world live in one arena buffer; one dispatch
// steps all of them, workgroup g = batch slot g. Bindings of the batch descriptor set:
#define WF_GPU_BATCH_BIND_SUBSTEPS 0 // (substeps) wfGpuSubstep, shared by every cloth of the world
#define WF_GPU_BATCH_BIND_STATUS 1   // (slots) wfGpuStatus in host-cached memory: each cloth's frame check, written by the kernel
#define WF_GPU_BATCH_BIND_VEC4 2     // the arena as vec4: positions, velocities, normals (coherent)
#define WF_GPU_BATCH_BIND_UVEC4 3    // the arena as uvec4, read-only: constraints, inverse masses
#define WF_GPU_BATCH_BIND_WORDS 4    // the arena as uint: adjacency, triangles, lambda, status
#define WF_GPU_BATCH_BIND_SLOTS_RO 5 // the slots again, read-only: the cloth's live values (P)
#define WF_GPU_BATCH_BIND_COUNT 6

// wfGpuBatchSlot.at[]: where a cloth's arrays start in the arena, in elements of their view.
#define WF_GPU_SLOT_POS 0         // vec4 index
#define WF_GPU_SLOT_VEL 1         // vec4 index
#define WF_GPU_SLOT_NORMALS 2     // vec4 index
#define WF_GPU_SLOT_CONSTRAINTS 3 // word index of the packed records (WF_VK_REGION_PACKED)
#define WF_GPU_SLOT_LAMBDA 4      // word index
#define WF_GPU_SLOT_ADJ_START 5
#define WF_GPU_SLOT_ADJ_CONSTRAINT 6
#define WF_GPU_SLOT_ADJ_OTHER 7
#define WF_GPU_SLOT_JACOBI_WEIGHT 8
#define WF_GPU_SLOT_TRI_START 9
#define WF_GPU_SLOT_TRI_LIST 10
#define WF_GPU_SLOT_INDICES 11
#define WF_GPU_SLOT_STATUS 12     // word index of wfGpuStatus
#define WF_GPU_SLOT_FLAGS 13      // WF_GPU_PUSH_SHARED or 0
#define WF_GPU_SLOT_BACKUP_POS 14 // vec4 index: the kernel copies the frame-start state there
#define WF_GPU_SLOT_BACKUP_VEL 15 // vec4 index
#define WF_GPU_SLOT_INV_MASS 16   // float bits of 1 / mass: the inverse mass of a free particle
#define WF_GPU_SLOT_OWNER 17      // word index of the owner order's table (WF_VK_REGION_OWNER; XPBD with kMoves)
#define WF_GPU_SLOT_REST 18       // vec4 index of the rest positions (self-collision's exclusion)
#define WF_GPU_SLOT_PREV 19       // vec4 index of the substep-start positions (self-collision's friction)
#define WF_GPU_SLOT_COUNT 20

// wfGpuStatsParams.flags
#define WF_GPU_STATS_SPHERE 1u
#define WF_GPU_STATS_FLOOR 2u
#define WF_GPU_STATS_XPBD 4u    // elastic energy 1/2 C^2 / compliance
#define WF_GPU_STATS_SPRINGS 8u // elastic energy 1/2 k C^2

// wfGpuPush.flags
#define WF_GPU_PUSH_FIRST_ITERATION 1u // XPBD: lambda starts at 0 in this pass
#define WF_GPU_PUSH_DAMPED 2u          // predict: XPBD velocity damping
#define WF_GPU_PUSH_SHARED 4u          // fused (wfGpuBatchSlot.at[WF_GPU_SLOT_FLAGS]): positions in shared memory
#define WF_GPU_PUSH_SHIFT 8u           // predict.comp: only the frame start's re-centring, x -= P.shift
#define WF_GPU_PUSH_AERO 16u           // predict.comp: only the aerodynamic acceleration, into prev
#define WF_GPU_PUSH_TETHER 32u         // predict.comp: only the tethers (wfCpuTethers)
#define WF_GPU_PUSH_TETHER_VEL 64u     // with WF_GPU_PUSH_TETHER: the outward velocity removed too (springs)
#define WF_GPU_PUSH_CHECK_SUM 128u     // check.comp for WGSL (WF_WGSL): only the sum of the workgroups' partials
// Fused kernels read wfGpuPush as: first = iterations, count = substeps, substep and flags unused.
// Contact kernels (contact_*.comp) read it as: first = the cloth's base in the contact arrays (the
// scan: the offset of the array in cells[]), count = elements, substep = the hash mask (the scan:
// the offset of its block sums), flags = one WF_GPU_CONTACT_* stage and its options.
#define WF_GPU_CONTACT_CLEAR 1u     // contact_grid: the counts, cells[CP.counts, CP.counts + count), = 0
#define WF_GPU_CONTACT_KEYS 2u      // contact_grid: key and rank of each particle, counts by atomicAdd
#define WF_GPU_CONTACT_SCATTER 3u   // contact_grid: sorted[cells[key] + rank] = particle
#define WF_GPU_CONTACT_SORT 4u      // contact_grid: each cell's list into ascending order
#define WF_GPU_CONTACT_EXPORT 5u    // contact_grid: a cloth's particles into X, MOTION and OWNER at its base
#define WF_GPU_CONTACT_APPLY 6u     // contact_grid: x += delta (self-collision of springs)
#define WF_GPU_CONTACT_APPLY_VEL 7u // contact_grid: x += delta, v += velFactor delta (cloth against cloth)
#define WF_GPU_CONTACT_SCAN_UP 8u   // contact_scan: each block scanned in place, its sum written
#define WF_GPU_CONTACT_SCAN_DOWN 9u // contact_scan: the scanned block sums added back
#define WF_GPU_CONTACT_STAGE_MASK 15u
#define WF_GPU_CONTACT_WORLD 16u     // keys and gather over X (cloth against cloth), not the cloth's pos
#define WF_GPU_CONTACT_FRICTION 32u  // gather: Coulomb friction on the substep's motion
#define WF_GPU_CONTACT_SOURCE 64u    // contact_triangle, contact_edge: the cloth has torn, RANK holds each particle's source
#define WF_GPU_CONTACT_MOVES 128u    // apply: the push into the substep's velocity too (XPBD, Jacobi; wfCpuMoved)
#define WF_GPU_CONTACT_COUNTS 256u   // scan up: the array's values are the counts at CP.counts, read and left 0
#define WF_GPU_CONTACT_SUMS_RAW 512u // scan down: the block sums are not scanned; each block sums those before it

// Recorded once per dispatch: which elements and which substep.
WF_STRUCT_BEGIN(wfGpuPush)
WF_UINT first; // first element (constraint or particle)
WF_UINT count; // elements covered by the dispatch
WF_UINT substep;
WF_UINT flags; // WF_VK_PUSH_*
WF_STRUCT_END(wfGpuPush)

// Live values of one cloth, written by the host before each submit. Derived values (alpha~,
// 1/h, ...) are computed on the host with the exact expressions the CPU solver uses.
// A shape as one cloth sees it all frame (wfShapeBase): its frame-start centre in the cloth's
// local frame and its sizes. What changes per substep is in the shape steps (wfGpuShapeStep) of a
// collider, and in the substep record (sphereMotion, sphereVel) of the world's sphere.
WF_STRUCT_BEGIN(wfGpuShape)
WF_VEC4 base; // xyz centre at the frame start, local; w the type (wfColliderType)
WF_VEC4 size; // radius, radius1 (the world's sphere's and floor's reach: radius + thickness, level), halfLength, the contact thickness
WF_VEC4 halfExtents; // xyz
WF_STRUCT_END(wfGpuShape)

WF_STRUCT_BEGIN(wfGpuClothParams)
WF_VEC4 gravity;      // xyz
WF_VEC4 windDir;      // xyz wave direction, w its length
WF_VEC4 grabTarget;   // xyz, in the cloth's local frame (wfClothLocal)
WF_VEC4 alphaTilde;   // compliance / h^2 per family (stretch, shear, bend)
WF_VEC4 aero;         // xyz the air's velocity, w density / 2 (wfAeroDef; WF_GPU_FLAG_AERO)
WF_VEC4 aeroCoeff;    // x drag, y lift coefficient, z 3 (the divisor for WGSL: common.glsl WF_AERO_THREE)
WF_VEC4 shift;        // xyz subtracted from every position at the frame start (re-centring)
WF_VEC4 sphereCenter; // xyz the sphere's centre at motion phase 0, local; + wfGpuSubstep.sphereMotion
WF_VEC4 contactBand;  // the frame check's contact test (wfContactBand): x sphere radius + band,
					  // y local floor height + band; z the sphere's radius (the tunnelling test),
					  // w the uint bits of where the velocities start in WF_GPU_BIND_BACKUP
WF_VEC4 floor;        // (0, 1, 0, 0): the world's sphere's and floor's still axes and (w) their zero spin
					  // and the floor's speed, read at run time: a constant zero there was folded away
					  // and left -0 where the CPU has +0
WF_FLOAT h;           // substep length
WF_FLOAT velFactor;   // XPBD 1/h, Jacobi retention/h (a push after the finish: v += velFactor d)
WF_FLOAT damping;     // XPBD damping
WF_FLOAT mass;
WF_FLOAT stiffness; // springs
WF_FLOAT springDamping;
WF_FLOAT relaxation; // Jacobi
WF_FLOAT windStrength;
WF_FLOAT windFrequency;
WF_FLOAT windPhasePerColumn;
WF_UINT worldShapes; // shapes[0, worldShapes): the world's sphere and floor (still, no spin, no shape steps)
WF_UINT pad0;
WF_FLOAT friction;
WF_UINT flags;    // WF_VK_FLAG_*
WF_INT grabIndex; // -1: none
WF_UINT cols;
WF_UINT particleCount;
WF_UINT colorCount; // fused kernels: colours of the constraints
WF_FLOAT maxSpeed;  // the frame check's speed limit (wfWorldDef.maxSpeed)
WF_UINT shapeCount; // the world's sphere and floor, then the colliders (wfCreateCollider): shapes[0, shapeCount)
WF_UINT tetherBase; // the tethers' records in the constraint array: con[tetherBase + i] is particle i's
WF_FLOAT contactX;  // cloth against cloth: this cloth's origin less the first cloth's
WF_FLOAT contactY;  // (in double on the host, then float), added to its positions
WF_FLOAT contactZ;
WF_UINT collisionGroup; // cloth against cloth: wfClothDef.collisionGroup and collisionMask
WF_UINT collisionMask;
WF_FLOAT invH;     // 1 / h: a move d inside an XPBD or Jacobi substep adds d invH to the velocity (wfCpuMoved)
WF_FLOAT velScale; // the finish's v = velScale v: XPBD 1, Jacobi the retention
WF_UINT colorStart[WF_GPU_FUSED_MAX_COLORS + 1]; // fused kernels: colour c is [colorStart[c], colorStart[c + 1])
wfGpuShape shapes[WF_MAX_SHAPES];
WF_STRUCT_END(wfGpuClothParams)

// Clock-dependent values of one substep, evaluated on the host by wfSphereMotionAt,
// wfSphereVelocityAt and wfExternalAccel (the world clock is a double, which GLSL lacks).
WF_STRUCT_BEGIN(wfGpuSubstep)
WF_VEC4 sphereMotion; // xyz the sphere's displacement from its phase-0 centre at the end of the substep
WF_VEC4 sphereVel;    // xyz
WF_VEC4 accel;        // xyz gravity + gust (uniform wind), w the substep start time t (wave wind)
WF_STRUCT_END(wfGpuSubstep)

// Frame check results: the first particle index of each kind of trouble (0xffffffff: none), and
// the local position of the reference particle (particleCount / 2) for the next frame's re-centring.
// With them the motion tests (wfTunnelled; the energy pre-test's sums, wfMotionSums).
WF_STRUCT_BEGIN(wfGpuStatus)
WF_UINT firstNonFinite;
WF_UINT firstUnstable;
WF_UINT firstUnstableInContact; // the first too-fast particle touching a collider (wfInContact), if any
WF_UINT firstTunnelled;         // the first particle that passed the tunnelling test (wfTunnelled)
WF_VEC4 reference;              // xyz the reference particle; w (fused kernels) the substeps the kernel ran
WF_VEC4 energy;                 // x gain, y kinetic, z magnitude, w free particles (wfMotionSums, per unit mass)
WF_UINT groupsDone;             // check.comp: workgroups whose partial is written, from 0xffffffff
WF_UINT pad0;
WF_UINT pad1;
WF_UINT pad2;
WF_STRUCT_END(wfGpuStatus)

// Self-collision of a fused cloth (fused_self.glsl): wfGpuContactParams' constants, computed on the
// host with the CPU's expressions, and the mask of the cloth's hash (wfClothState.hashSize - 1).
WF_STRUCT_BEGIN(wfGpuFusedSelf)
WF_FLOAT distance; // 2 thickness; 0: no self-collision
WF_FLOAT invCell;  // 1 / distance
WF_FLOAT exclude;  // exclusion x distance
WF_FLOAT friction; // mu (springs have none there: their prev holds the forces)
WF_UINT mask;
WF_UINT pad0;
WF_UINT pad1;
WF_UINT pad2;
WF_STRUCT_END(wfGpuFusedSelf)

// One cloth of a batch: its live values and where its arrays are (written before each submit).
WF_STRUCT_BEGIN(wfGpuBatchSlot)
wfGpuClothParams params;
WF_UINT at[WF_GPU_SLOT_COUNT]; // WF_VK_SLOT_*
wfGpuFusedSelf self;           // self-collision's constants (distance 0: none)
WF_STRUCT_END(wfGpuBatchSlot)

// The contact pass's constants (wfSelfCollisionDef), computed on the host with the CPU's expressions.
WF_STRUCT_BEGIN(wfGpuContactParams)
WF_FLOAT distance; // 2 thickness: the contact distance and the cell's size
WF_FLOAT invCell;  // 1 / distance
WF_FLOAT exclude;  // exclusion x distance: pairs closer in the rest shape are skipped
WF_FLOAT friction; // mu
WF_UINT counts;    // word index in cells[] of the counts (after the starts and the scan's block sums)
WF_UINT pad0;
WF_UINT pad1;
WF_UINT pad2;
WF_STRUCT_END(wfGpuContactParams)

// One placement of a mesh body for one cloth and substep (wfMeshBodyPlace), with the constants the
// CPU's wfCpuCollideMeshes and wfCpuAttach compute, computed on the host with their expressions.
WF_STRUCT_BEGIN(wfGpuMeshPlace)
WF_UINT v0;        // float index of (3 x vertices) the vertices at the substep's start, local
WF_UINT v1;        // and at its end
WF_UINT normal;    // (3 x vertices) vertex normals at the end (closed bodies)
WF_UINT wide;      // word index of (WF_GPU_MESH_WIDE_WORDS x wide nodes) the refitted hierarchy four-wide
WF_UINT tri;       // word index of (3 x triangles) the body's corners
WF_UINT neighbour; // (3 x triangles) the triangle across each side (closed bodies)
WF_UINT order;     // (triangles) the leaves' triangles
WF_UINT owner;     // (vertices) the triangle that speaks for each vertex
WF_UINT attach;    // word index of the cloth's attachments (WF_GPU_MESH_ATTACH_WORDS each, by particle)
WF_UINT attachCount;
WF_UINT closed; // 1: a solid (edge and corner passes), 0: a two-sided sheet
WF_UINT holds;  // 1: this body holds the cloth's attached particles (the point pass leaves them)
WF_FLOAT thickness;
WF_FLOAT invH;         // 1 / h
WF_FLOAT behind;       // closed: thickness + WF_MESH_BEHIND size, else 0
WF_FLOAT edgeReach2;   // edgeReach^2: shorter cloth edges skip the edge pass
WF_FLOAT cornerReach2; // cornerReach^2: triangles whose sides are all shorter skip the corner pass
WF_FLOAT alpha;        // the attachment's compliance / h^2
WF_FLOAT h;
WF_FLOAT size; // the body's rest size (its bounding box's diagonal)
WF_UINT pad0;
WF_UINT pad1;
WF_UINT pad2;
WF_UINT pad3;
WF_STRUCT_END(wfGpuMeshPlace)

// Inputs of the statistics kernels (wfComputeStats), written by the host before the submit.
WF_STRUCT_BEGIN(wfGpuStatsParams)
WF_VEC4 gravity;      // xyz
WF_VEC4 sphereCenter; // xyz, where the sphere is now
WF_VEC4 compliance;   // per family (stretch, shear, bend)
WF_FLOAT mass;
WF_FLOAT sphereRadius;
WF_FLOAT floorHeight;
WF_FLOAT stiffness;
WF_UINT flags;          // WF_VK_STATS_*
WF_UINT particleGroups; // constraint partials start after this many particle partials
WF_UINT pad0;
WF_UINT pad1;
WF_STRUCT_END(wfGpuStatsParams)

// One workgroup's share of the statistics, summed in float per group and in double on the host.
// Particles: sum0 kinetic energy, sum1 gravity energy, sum2..4 momentum, min0 sphere clearance,
// min1 floor clearance, count non-finite particles. Constraints: sum0 elastic energy, sum1 strain
// sum, min0 minus the largest strain, count stretch constraints, bad non-finite strains.
WF_STRUCT_BEGIN(wfGpuPartial)
WF_FLOAT sum0;
WF_FLOAT sum1;
WF_FLOAT sum2;
WF_FLOAT sum3;
WF_FLOAT sum4;
WF_FLOAT min0;
WF_FLOAT min1;
WF_UINT count;
WF_UINT bad;
WF_UINT pad0;
WF_UINT pad1;
WF_UINT pad2;
WF_STRUCT_END(wfGpuPartial)

#endif
