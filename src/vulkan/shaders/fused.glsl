// Fused small-cloth frames, batched: ONE dispatch steps every small cloth of a world, workgroup g
// the cloth in batch slot g (its live values and array offsets in slots[g], its arrays in the
// world's arena buffer). Each workgroup runs every substep of a frame of its cloth (predict, every
// colour range of every iteration / every sweep / the spring forces, finish and collide), then the
// normals and the frame check, separated by workgroup barriers instead of dispatches. The kernel
// is in pieces, which fused_xpbd.comp, fused_jacobi.comp and fused_springs.comp include in this
// order after defining WF_FUSED_XPBD, WF_FUSED_JACOBI or WF_FUSED_SPRINGS: this file (where the
// state lives, and at its end fused_self.glsl: self-collision with its grid in shared memory),
// fused_stages.glsl (predict and finish; XPBD and Jacobi), fused_xpbd.glsl (XPBD's projections),
// the .comp's own Substep, then fused_main.glsl (the frame: start, substeps, end, normals and
// check).
//
// Where the state lives (the rule):
//   - invocation t of G owns particles t, t + G, t + 2G, t + 3G (WF_GPU_FUSED_PER_THREAD = 4, so at
//     most 4096 particles with G = 1024): their velocities, inverse masses and (without kMoves)
//     substep-start positions stay in registers for the whole frame; only what other invocations
//     read is shared;
//   - positions: in shared memory as xy pairs and z apart when 3 n floats fit the shared array
//     (slot flag WF_GPU_PUSH_SHARED; 12 floats per invocation, at most the device's
//     maxComputeSharedMemorySize less 656 bytes: 4041 particles on the H200, 60x60 = 3600 uses
//     43.2 KB; 2676 on lavapipe), loaded at the frame start and written back at the end;
//     otherwise in the cloth's POS array (coherent, L1/L2-resident), updated in place;
//   - inverse masses of other particles: one bit per particle in shared memory (free: 1 / mass,
//     else 0), checked against every particle at the frame start; if any has another value, the
//     POS array's w through the read-only view (they do not change during a frame);
//     XPBD reads the bits once a frame for its first two constraints of each colour into two
//     registers (FindEnds), not twice per projection;
//   - constraints: 8-byte records (WF_VK_REGION_PACKED), 168 KB for 60x60, which with the
//     adjacency-free XPBD loop can stay in the L1 beside the 48 KB of shared memory;
//   - springs read the neighbours' velocities too: those go through the VEL array (coherent)
//     every substep (positions and velocities of 60x60 are 86 KB, over the 48 KB);
//   - with kMoves every move of a particle is made by its own invocation (XPBD in the owner order,
//     SubstepOwner; a Jacobi sweep moves only its particle), so the velocities the moves add up
//     to stay in registers too;
//   - XPBD lambda: never stored with one iteration per substep (it starts at 0 every substep and
//     the only pass reads that 0); with more, in the LAMBDA array, read and written only by the
//     invocation that owns the constraint (the mapping k -> invocation is the same every pass).
//
// Synchronisation: after a phase that writes state other invocations read, StateBarrier() =
// memoryBarrierShared() (state in shared memory) or memoryBarrierBuffer() (state in buffers),
// then barrier(); a phase that reads neighbours and then overwrites them in place (Jacobi sweep,
// springs) computes into registers, waits at barrier() and only then stores.
//
// Expected per frame (S substeps, I iterations, C colours), whatever the number of small cloths:
//   dispatches: 1 per arena (an arena holds up to 2 GB of cloth arrays: ~1300 cloths of 60x60)
//   barriers per workgroup: XPBD S (1 + I C) + 4   (60x60, 64 x 1, 12 colours: 836; kMoves S (1 + 2 I C) + 4;
//                           self-collision 9 more a substep)
//                           Jacobi S (1 + 2 I) + 4  (spring-mesh 56x56, 8 x 2: 44)
//                           springs 2 S + 4         (compute-cloth, 64 substeps: 132)
//   transfer commands: none for batched cloths (the kernel writes the backup and the status)
//   shared memory: 12 floats per invocation + 656 bytes (48 KB at G = 1024 on the H200); with
//                  self-collision 8 words per invocation + 1 more (fused_self.glsl)
//   registers: 4 x (velocity, inverse mass, start position without kMoves) per invocation + the
//   kernel's own
// On the H200 (132 SMs) a batch of B cloths of 60x60 runs B workgroups of 1024, two per SM at
// most (2048 threads per SM), so 1024 cloths take 4 waves.
// The arithmetic is the per-range kernels' (predict, xpbd_solve, jacobi_sweep, springs, finish,
// normals, check) expression for expression, all `precise`, in the same order: the result equals
// the CPU backend's bit for bit on lavapipe, as the per-range path's does.
#extension GL_EXT_control_flow_attributes : require
#define WF_FUSED 1
#define WF_BATCH 1
#include "common.glsl"

// Workgroup size and shared array size are specialization constants: a cloth of n particles runs
// in the smallest power-of-two group (32..1024) with 4 particles per invocation, with a shared
// array of min(12 x group size, the device's limit) floats.
layout(local_size_x_id = WF_GPU_FUSED_SPEC_GROUP_SIZE) in;
layout(constant_id = WF_GPU_FUSED_SPEC_SHARED_FLOATS) const uint kSharedFloats = WF_GPU_FUSED_SHARED_FLOATS;

// xyz of every particle when WF_GPU_PUSH_SHARED, as xy pairs and z apart: a particle is then two
// shared-memory loads (64 and 32 bits) and two stores instead of three each.
shared vec2 sXY[kSharedFloats / 3u];
shared float sZ[kSharedFloats / 3u];
// Inverse masses: a cloth's particles have 1 / mass or 0 (pinned, grabbed), so a bit per particle
// in shared memory says which, when every particle checks out at the frame start (sBinary);
// otherwise they come from the POS array.
shared uint sFree[WF_GPU_FUSED_MAX_PARTICLES / 32]; // bit i: particle i has inverse mass 1 / mass
shared uint sBinary;
shared uint sColorStart[WF_GPU_FUSED_MAX_COLORS + 1]; // P.colorStart, read after every barrier

const uint kGroup = gl_WorkGroupSize.x;
const uint kPer = WF_GPU_FUSED_PER_THREAD;

bool gShared; // uniform: positions in shared memory
bool gBinary; // uniform: inverse masses from sFree
float gInvMass;

// This workgroup's cloth: the start of each of its arrays in the arena (WF_VK_SLOT_*).
uint gAt[WF_GPU_SLOT_COUNT];
#define POS(i) arena4[gAt[WF_GPU_SLOT_POS] + (i)]
#define VEL(i) arena4[gAt[WF_GPU_SLOT_VEL] + (i)]
#define NORMAL(i) arena4[gAt[WF_GPU_SLOT_NORMALS] + (i)]
#define WEIGHT(i) uintBitsToFloat(arenaU4[gAt[WF_GPU_SLOT_POS] + (i)].w) // inverse mass, read-only view
// Packed constraint records (a | b << 12 | family << 24, rest bits), as uvec4(a, b, rest, family).
uvec4 CON(uint k)
{
	// Through the read-only view (the records are never written during a frame, so the loads may be
	// cached): the records start 16-byte aligned, two to a uvec4.
	uvec4 pair = arenaU4[(gAt[WF_GPU_SLOT_CONSTRAINTS] >> 2) + (k >> 1)];
	uint w0 = (k & 1u) != 0u ? pair.z : pair.x;
	uint w1 = (k & 1u) != 0u ? pair.w : pair.y;
	return uvec4(w0 & 0xfffu, (w0 >> 12) & 0xfffu, w1, w0 >> 24);
}
#define REST(k) uintBitsToFloat(arenaWords[gAt[WF_GPU_SLOT_CONSTRAINTS] + 2u * (k) + 1u])
#define LAMBDA(k) arenaWords[gAt[WF_GPU_SLOT_LAMBDA] + (k)] // float bits
#define ADJ_START(i) int(arenaWords[gAt[WF_GPU_SLOT_ADJ_START] + (i)])
#define ADJ_CONSTRAINT(e) arenaWords[gAt[WF_GPU_SLOT_ADJ_CONSTRAINT] + uint(e)]
#define ADJ_OTHER(e) arenaWords[gAt[WF_GPU_SLOT_ADJ_OTHER] + uint(e)]
#define JACOBI_WEIGHT(k) uintBitsToFloat(arenaWords[gAt[WF_GPU_SLOT_JACOBI_WEIGHT] + (k)])
#define TRI_START(i) int(arenaWords[gAt[WF_GPU_SLOT_TRI_START] + (i)])
#define TRI_LIST(e) arenaWords[gAt[WF_GPU_SLOT_TRI_LIST] + uint(e)]
#define INDEX(t) arenaWords[gAt[WF_GPU_SLOT_INDICES] + (t)]
#define STATUS_NON_FINITE arenaWords[gAt[WF_GPU_SLOT_STATUS]]
#define STATUS_UNSTABLE arenaWords[gAt[WF_GPU_SLOT_STATUS] + 1u]
#define STATUS_UNSTABLE_CONTACT arenaWords[gAt[WF_GPU_SLOT_STATUS] + 2u]
#define STATUS_TUNNELLED arenaWords[gAt[WF_GPU_SLOT_STATUS] + 3u] // wfGpuStatus.firstTunnelled
#define BACKUP_POS(i) arena4[gAt[WF_GPU_SLOT_BACKUP_POS] + (i)]
#define BACKUP_VEL(i) arena4[gAt[WF_GPU_SLOT_BACKUP_VEL] + (i)]

// The inverse mass of any particle (fixed during a frame).
float Weight(uint i)
{
	if (gBinary)
		return (sFree[i >> 5] & (1u << (i & 31u))) != 0u ? gInvMass : 0.0;
	return WEIGHT(i);
}

vec3 LoadX(uint i)
{
	if (gShared)
		return vec3(sXY[i], sZ[i]);
	return POS(i).xyz;
}

void StoreX(uint i, vec3 x)
{
	if (gShared) {
		sXY[i] = x.xy;
		sZ[i] = x.z;
	} else {
		POS(i).xyz = x;
	}
}

// Everything written before is visible to every invocation of the workgroup after it.
void StateBarrier()
{
	// barrier() in a compute shader also makes shared-memory writes visible to the workgroup.
	if (!gShared)
		memoryBarrierBuffer();
#ifdef WF_FUSED_SPRINGS
	memoryBarrierBuffer(); // velocities
#endif
	barrier();
}

// The particles of this invocation: t + j * kGroup for j < kPer (below n).
vec3 gV[kPer];    // velocity
vec3 gPrev[kPer]; // position at the substep start (without kMoves: the finish's v = f (x - p))
float gW[kPer];   // inverse mass

#include "contact.glsl"
#include "fused_self.glsl"
