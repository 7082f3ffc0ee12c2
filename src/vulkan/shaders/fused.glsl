// Fused small-cloth frames, batched: ONE dispatch steps every small cloth of a world, workgroup g
// the cloth in batch slot g (its live values and array offsets in slots[g], its arrays in the
// world's arena buffer). Each workgroup runs every substep of a frame of its cloth (predict, every
// colour range of every iteration / every sweep / the spring forces, finish and collide), then the
// normals and the frame check, separated by workgroup barriers instead of dispatches. Included by
// fused_xpbd.comp, fused_jacobi.comp and fused_springs.comp, which define WF_FUSED_XPBD,
// WF_FUSED_JACOBI or WF_FUSED_SPRINGS.
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
//   barriers per workgroup: XPBD S (1 + I C) + 4   (60x60, 64 x 1, 12 colours: 836; kMoves S (1 + 2 I C) + 4)
//                           Jacobi S (1 + 2 I) + 4  (spring-mesh 56x56, 8 x 2: 44)
//                           springs 2 S + 4         (compute-cloth, 64 substeps: 132)
//   transfer commands: none for batched cloths (the kernel writes the backup and the status)
//   shared memory: 12 floats per invocation + 656 bytes (48 KB at G = 1024 on the H200)
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

// predict.comp for the owned particles.
void Predict(uint substep, bool damped)
{
	uint t = gl_LocalInvocationID.x;
	float h = P.h;
	[[unroll]] for (uint j = 0u; j < kPer; ++j) {
		uint i = t + j * kGroup;
		if (i >= P.particleCount)
			break;
		vec3 x = LoadX(i);
		if (!kMoves)
			gPrev[j] = x;
		float w = gW[j];
		if (w == 0.0) {
			if (int(i) == P.grabIndex)
				StoreX(i, P.grabTarget.xyz);
			continue;
		}
#if WF_FUSED_PROBE == 5
		vec3 a = P.gravity.xyz; // probe 5: no substep record, no wind
#else
		vec3 a = WfExternalAccel(substep, i % P.cols, w);
#endif
		precise vec3 v = gV[j];
		if (damped) {
			precise float k = 1.0 + h * w * P.damping;
			v.x = v.x / k + h * a.x;
			v.y = v.y / k + h * a.y;
			v.z = v.z / k + h * a.z;
		} else {
			v.x += h * a.x;
			v.y += h * a.y;
			v.z += h * a.z;
		}
		gV[j] = v;
		precise vec3 y = vec3(x.x + h * v.x, x.y + h * v.y, x.z + h * v.z);
		StoreX(i, y);
	}
}

// finish.comp for the owned particles: v = f v (kMoves: the velocity the substep's moves left in
// gV) or v = f (x - p), then collide.
void Finish(uint substep)
{
	uint t = gl_LocalInvocationID.x;
	float f = kMoves ? P.velScale : P.velFactor;
	bool collide = (P.flags & (WF_GPU_FLAG_SPHERE | WF_GPU_FLAG_FLOOR)) != 0u || P.shapeCount > 0u;
	[[unroll]] for (uint j = 0u; j < kPer; ++j) {
		uint i = t + j * kGroup;
		if (i >= P.particleCount)
			break;
		if (gW[j] == 0.0) {
			gV[j] = vec3(0.0);
			continue;
		}
		vec4 x = vec4(LoadX(i), gW[j]);
		precise vec4 v;
		if (kMoves) {
			const vec3 u = gV[j];
			v = vec4(u.x * f, u.y * f, u.z * f, 0.0);
		} else {
			const vec3 p = gPrev[j];
			v = vec4((x.x - p.x) * f, (x.y - p.y) * f, (x.z - p.z) * f, 0.0);
		}
#if WF_FUSED_PROBE == 4 || WF_FUSED_PROBE == 5
		collide = collide && x.x == 1e30; // probes 4, 5: no collision response (never true)
#endif
		if (collide) {
			WfCollide(x, v, substep);
			StoreX(i, x.xyz);
		}
		gV[j] = v.xyz;
	}
}

#ifdef WF_FUSED_XPBD
// A constraint record, fixed during a frame: the next colour's is loaded before the barrier that
// ends this colour, so its latency hides behind the barrier wait. Nothing that depends on it is
// computed before the barrier (the ends' inverse masses are looked up in Project): that would make
// the invocation wait for the load first (H200, 60x60 64 x 1: 1.556 -> 1.394 ms).
struct Fetched {
	uvec4 q;
};

Fetched Fetch(uint k, uint end)
{
	Fetched r;
	r.q = uvec4(0u);
	if (k < end)
		r.q = CON(k);
	return r;
}

vec4 gAlphaTilde; // P.alphaTilde, fixed during the frame: read once, not once per projection

// Which ends of this invocation's first two constraints of each colour are free (inverse mass
// gInvMass, else 0), two bits per constraint: colour c's in word c / 8 from bit 4 (c mod 8), the
// first constraint's a and b, then the second's. Read from sFree once per frame instead of twice
// per projection; kept when gBinary and the cloth has at most 16 colours (gEnds).
uvec2 gEndBits;
bool gEnds;

void FindEnds()
{
	uint t = gl_LocalInvocationID.x;
	gEndBits = uvec2(0u);
	gEnds = gBinary && P.colorCount <= 16u;
	if (!gEnds)
		return;
	for (uint c = 0u; c < P.colorCount; ++c) {
		[[unroll]] for (uint j = 0u; j < 2u; ++j) {
			uint k = sColorStart[c] + t + j * kGroup;
			if (k >= sColorStart[c + 1u])
				continue;
			uvec4 q = CON(k);
			uint bits = (Weight(q.x) != 0.0 ? 1u : 0u) | (Weight(q.y) != 0.0 ? 2u : 0u);
			uint at = 4u * (c & 7u) + 2u * j;
			if (c < 8u)
				gEndBits.x |= bits << at;
			else
				gEndBits.y |= bits << at;
		}
	}
}

// The ends' bits of constraint j (0, 1) of colour c, or 4 (look them up).
uint Ends(uint c, uint j)
{
	if (!gEnds)
		return 4u;
	return ((c < 8u ? gEndBits.x : gEndBits.y) >> (4u * (c & 7u) + 2u * j)) & 3u;
}

// xpbd_solve.comp for constraint k. lambda is kept only when a later iteration reads it.
void Project(uint k, Fetched f, uint ends, bool first, bool keepLambda)
{
	uvec4 q = f.q;
	vec3 ax = LoadX(q.x), bx = LoadX(q.y);
	float aw, bw;
	if (ends < 4u) {
		aw = (ends & 1u) != 0u ? gInvMass : 0.0;
		bw = (ends & 2u) != 0u ? gInvMass : 0.0;
	} else {
		aw = Weight(q.x);
		bw = Weight(q.y);
	}
	precise float wsum = aw + bw;
	precise float dx = ax.x - bx.x, dy = ax.y - bx.y, dz = ax.z - bx.z;
	precise float len = sqrt(dx * dx + dy * dy + dz * dz);
	if (wsum == 0.0 || len < WF_MIN_LENGTH) {
		if (first && keepLambda)
			LAMBDA(k) = 0u;
		return;
	}
	float at = gAlphaTilde[q.w];
	float lam = first ? 0.0 : uintBitsToFloat(LAMBDA(k));
	precise float dl = -(len - uintBitsToFloat(q.z) + at * lam) / (wsum + at);
	precise float nl = lam + dl;
	if (keepLambda)
		LAMBDA(k) = floatBitsToUint(nl);
	precise float s = dl / len;
	precise float sa = s * aw, sb = s * bw;
	precise vec3 ma = vec3(sa * dx, sa * dy, sa * dz), mb = vec3(sb * dx, sb * dy, sb * dz);
	precise vec3 na = vec3(ax.x + ma.x, ax.y + ma.y, ax.z + ma.z);
	precise vec3 nb = vec3(bx.x - mb.x, bx.y - mb.y, bx.z - mb.z);
	StoreX(q.x, na);
	StoreX(q.y, nb);
}

// kMoves: the owner order. Each invocation projects, colour by colour, the constraint at each of
// its own particles (at most one a colour), for that end only, and adds the end's move to the
// velocity in its register (wfCpuMoved): no other invocation moves its particles. Both ends'
// invocations compute the constraint from the same positions with the expressions of Project (and
// of the CPU's scalar loop), so each end gets the bits the CPU gives it; the positions are stored
// after a barrier (the other end reads them in the same colour): two barriers a colour. The OWNER table
// (WF_VK_REGION_OWNER, [colour][particle], 8 bytes) holds the constraint at each particle: the other
// end | family << 12 | (this particle is end b) << 14 | present << 15 | k << 16, then the rest
// length's bits. With iterations, lambda alternates between two arrays by the iteration's parity
// (both ends read it in the same phase; end a's invocation writes the next one).
const uint kOwnPresent = 0x8000u, kOwnEndB = 0x4000u;

uvec2 OwnFetch(uint c, uint i)
{
	if (i >= P.particleCount)
		return uvec2(0u);
	uint e = c * P.particleCount + i; // through the read-only view, two entries to a uvec4
	uvec4 pair = arenaU4[(gAt[WF_GPU_SLOT_OWNER] >> 2) + (e >> 1)];
	return (e & 1u) != 0u ? pair.zw : pair.xy;
}

#define LAMBDA2(par, k) arenaWords[gAt[WF_GPU_SLOT_LAMBDA] + (par) * sColorStart[P.colorCount] + (k)] // float bits

// Returns whether particle j moved, to y (its velocity already updated).
bool ProjectOwn(uint j, uvec2 e, bool first, bool keepLambda, uint par, out vec3 y)
{
	uint i = gl_LocalInvocationID.x + j * kGroup;
	uint o = e.x & 0xfffu, k = e.x >> 16;
	bool isB = (e.x & kOwnEndB) != 0u;
	vec3 xi = LoadX(i), xo = LoadX(o);
	float wi = gW[j], wo = Weight(o);
	vec3 ax = isB ? xo : xi, bx = isB ? xi : xo;
	float aw = isB ? wo : wi, bw = isB ? wi : wo;
	precise float wsum = aw + bw;
	precise float dx = ax.x - bx.x, dy = ax.y - bx.y, dz = ax.z - bx.z;
	precise float len = sqrt(dx * dx + dy * dy + dz * dz);
	if (wsum == 0.0 || len < WF_MIN_LENGTH) {
		if (keepLambda && !isB)
			LAMBDA2(par ^ 1u, k) = first ? 0u : LAMBDA2(par, k);
		return false;
	}
	float at = gAlphaTilde[(e.x >> 12) & 3u];
	float lam = first ? 0.0 : uintBitsToFloat(LAMBDA2(par, k));
	precise float dl = -(len - uintBitsToFloat(e.y) + at * lam) / (wsum + at);
	if (keepLambda && !isB) {
		precise float nl = lam + dl;
		LAMBDA2(par ^ 1u, k) = floatBitsToUint(nl);
	}
	precise float s = dl / len;
	const float invH = P.invH;
	const vec3 v = gV[j];
	if (!isB) {
		precise float sa = s * aw;
		precise vec3 m = vec3(sa * dx, sa * dy, sa * dz);
		precise vec3 n = vec3(ax.x + m.x, ax.y + m.y, ax.z + m.z);
		precise vec3 u = vec3(v.x + m.x * invH, v.y + m.y * invH, v.z + m.z * invH);
		y = n;
		gV[j] = u;
	} else {
		precise float sb = s * bw;
		precise vec3 m = vec3(sb * dx, sb * dy, sb * dz);
		precise vec3 n = vec3(bx.x - m.x, bx.y - m.y, bx.z - m.z);
		precise vec3 u = vec3(v.x - m.x * invH, v.y - m.y * invH, v.z - m.z * invH);
		y = n;
		gV[j] = u;
	}
	return true;
}

void SubstepOwner(uint substep, uint iterations)
{
	uint t = gl_LocalInvocationID.x;
	uint colors = P.colorCount;
	gAlphaTilde = P.alphaTilde;
	Predict(substep, true);
	// Each colour's entries are loaded before the barrier that ends the colour before it (Fetch).
	uvec2 e[kPer];
	[[unroll]] for (uint j = 0u; j < kPer; ++j)
		e[j] = OwnFetch(0u, t + j * kGroup);
	StateBarrier();
	bool keepLambda = iterations > 1u;
	for (uint it = 0u; it < iterations; ++it) {
		bool first = it == 0u;
		for (uint c = 0u; c < colors; ++c) {
			// The other end's invocation reads this particle's position in the same colour: every
			// invocation computes, waits, then stores.
			vec3 y[kPer];
			bool moved[kPer];
			[[unroll]] for (uint j = 0u; j < kPer; ++j) {
				moved[j] = false;
				if ((e[j].x & kOwnPresent) != 0u)
					moved[j] = ProjectOwn(j, e[j], first, keepLambda, it & 1u, y[j]);
			}
			barrier();
			[[unroll]] for (uint j = 0u; j < kPer; ++j) {
				if (moved[j])
					StoreX(t + j * kGroup, y[j]);
			}
			uint next = c + 1u < colors ? c + 1u : 0u;
			[[unroll]] for (uint j = 0u; j < kPer; ++j)
				e[j] = OwnFetch(next, t + j * kGroup);
			StateBarrier();
		}
	}
	Finish(substep);
}

#ifndef WF_FUSED_PROBE
#define WF_FUSED_PROBE 0 // the real kernel; 1..3 strip it for measurement (cmake/VulkanBackend.cmake)
#endif

void Substep(uint substep, uint iterations)
{
	if (kMoves) {
		SubstepOwner(substep, iterations);
		return;
	}
	uint t = gl_LocalInvocationID.x;
	uint colors = P.colorCount;
	gAlphaTilde = P.alphaTilde;
#if WF_FUSED_PROBE == 3
	for (uint c = 0u; c < colors * iterations; ++c)
		StateBarrier();
	return;
#endif
	Predict(substep, true);
	// The first two constraints of this invocation in colour 0. A colour's constraints share no
	// particle, so a colour has at most n / 2 <= 2 G of them: both fetches cover every colour (the
	// loop after them is a safeguard that never runs).
	Fetched f0 = Fetch(sColorStart[0] + t, sColorStart[1]);
	Fetched f1 = Fetch(sColorStart[0] + t + kGroup, sColorStart[1]);
	StateBarrier();
	// Gauss-Seidel across colours: a barrier after every colour range.
	bool keepLambda = iterations > 1u;
	for (uint it = 0u; it < iterations; ++it) {
		bool first = it == 0u;
		for (uint c = 0u; c < colors; ++c) {
			uint start = sColorStart[c], end = sColorStart[c + 1u];
#if WF_FUSED_PROBE == 0
			if (start + t < end)
				Project(start + t, f0, Ends(c, 0u), first, keepLambda);
			if (start + t + kGroup < end)
				Project(start + t + kGroup, f1, Ends(c, 1u), first, keepLambda);
			for (uint k = start + t + 2u * kGroup; k < end; k += kGroup)
				Project(k, Fetch(k, end), 4u, first, keepLambda);
#endif
			// The next colour's (colour 0 again after the last).
			uint next = c + 1u < colors ? c + 1u : 0u;
			uint ns = sColorStart[next], ne = sColorStart[next + 1u];
#if WF_FUSED_PROBE <= 1
			f0 = Fetch(ns + t, ne);
			f1 = Fetch(ns + t + kGroup, ne);
#if WF_FUSED_PROBE == 1
			if (f0.q.x == 0xffffffffu || f1.q.x == 0xffffffffu) // keeps the fetches alive; never true
				StoreX(0u, vec3(0.0));
#endif
#else
			if (ns + ne == 0xffffffffu) // keeps the bounds' loads alive; never true
				StoreX(0u, vec3(0.0));
#endif
			StateBarrier();
		}
	}
	Finish(substep);
}
#endif

#ifdef WF_FUSED_JACOBI
// jacobi_sweep.comp for particle i (dynamic), into a register; its move into `move`.
vec3 SweepParticle(uint i, vec3 xi, float wi, out vec3 move)
{
	precise float cx = 0.0, cy = 0.0, cz = 0.0;
	const bool byDegree = (P.flags & WF_GPU_FLAG_JACOBI_DEGREE) != 0u;
	int first = ADJ_START(i), end = ADJ_START(i + 1u);
	for (int e = first; e < end; ++e) {
		uint k = ADJ_CONSTRAINT(e);
		uint o = ADJ_OTHER(e);
		vec3 xj = LoadX(o);
		float wj = Weight(o);
		precise float dx = xj.x - xi.x, dy = xj.y - xi.y, dz = xj.z - xi.z;
		precise float len = sqrt(dx * dx + dy * dy + dz * dz);
		if (len < WF_MIN_LENGTH)
			continue;
		precise float f = byDegree ? 1.0 : 2.0 * wi / (wi + wj);
		precise float g = JACOBI_WEIGHT(k) * f * (len - REST(k)) / len;
		cx += g * dx;
		cy += g * dy;
		cz += g * dz;
	}
	precise float s = P.relaxation;
	if (byDegree)
		s = end > first ? P.relaxation / float(end - first) : 0.0;
	precise vec3 m = vec3(s * cx, s * cy, s * cz);
	move = m;
	precise vec3 y = vec3(xi.x + m.x, xi.y + m.y, xi.z + m.z);
	return y;
}

void Substep(uint substep, uint iterations)
{
	uint t = gl_LocalInvocationID.x;
	Predict(substep, false);
	StateBarrier();
	for (uint it = 0u; it < iterations; ++it) {
		// Every particle reads its neighbours' old positions before any is overwritten.
		vec3 y[kPer];
		[[unroll]] for (uint j = 0u; j < kPer; ++j) {
			uint i = t + j * kGroup;
			if (i < P.particleCount && gW[j] != 0.0) {
				vec3 m;
				y[j] = SweepParticle(i, LoadX(i), gW[j], m);
				// The move into the particle's velocity (wfCpuMoved), in its register.
				if (kMoves) {
					const vec3 v = gV[j];
					precise vec3 u = vec3(v.x + m.x * P.invH, v.y + m.y * P.invH, v.z + m.z * P.invH);
					gV[j] = u;
				}
			}
		}
		barrier();
		[[unroll]] for (uint j = 0u; j < kPer; ++j) {
			uint i = t + j * kGroup;
			if (i < P.particleCount && gW[j] != 0.0)
				StoreX(i, y[j]);
		}
		StateBarrier();
	}
	Finish(substep);
}
#endif

#ifdef WF_FUSED_SPRINGS
// springs.comp for the owned particles: every force is gathered from the old state into registers,
// then the new positions and velocities are stored (velocities also to VEL for the neighbours).
void Substep(uint substep, uint iterations)
{
	uint t = gl_LocalInvocationID.x;
	float mass = P.mass, k = P.stiffness, damping = P.springDamping, h = P.h;
	vec3 nx[kPer];
	[[unroll]] for (uint j = 0u; j < kPer; ++j) {
		uint i = t + j * kGroup;
		if (i >= P.particleCount)
			break;
		vec3 xi = LoadX(i), vi = gV[j];
		float w = gW[j];
		if (w == 0.0) {
			nx[j] = int(i) == P.grabIndex ? P.grabTarget.xyz : xi;
			gV[j] = vec3(0.0);
			continue;
		}
		vec3 a = WfExternalAccel(substep, i % P.cols, w);
		precise float fx = mass * a.x, fy = mass * a.y, fz = mass * a.z;
		int end = ADJ_START(i + 1u);
		for (int e = ADJ_START(i); e < end; ++e) {
			uint o = ADJ_OTHER(e);
			vec3 xj = LoadX(o), vj = VEL(o).xyz;
			precise float dx = xj.x - xi.x, dy = xj.y - xi.y, dz = xj.z - xi.z;
			precise float len = sqrt(dx * dx + dy * dy + dz * dz);
			if (len < WF_MIN_LENGTH)
				continue;
			dx /= len;
			dy /= len;
			dz /= len;
			precise float spring = k * (len - REST(ADJ_CONSTRAINT(e)));
			precise float damper = damping * ((vj.x - vi.x) * dx + (vj.y - vi.y) * dy + (vj.z - vi.z) * dz);
			fx += (spring + damper) * dx;
			fy += (spring + damper) * dy;
			fz += (spring + damper) * dz;
		}
		precise vec4 v = vec4(vi.x + h * fx * w, vi.y + h * fy * w, vi.z + h * fz * w, 0.0);
		precise vec4 x = vec4(xi.x + h * v.x, xi.y + h * v.y, xi.z + h * v.z, w);
		WfCollide(x, v, substep);
		nx[j] = x.xyz;
		gV[j] = v.xyz;
	}
	barrier();
	[[unroll]] for (uint j = 0u; j < kPer; ++j) {
		uint i = t + j * kGroup;
		if (i >= P.particleCount)
			break;
		StoreX(i, nx[j]);
		VEL(i) = vec4(gV[j], 0.0);
	}
	StateBarrier();
}
#endif

void main()
{
	uint t = gl_LocalInvocationID.x;
	uint n = P.particleCount;
	[[unroll]] for (uint a = 0u; a < WF_GPU_SLOT_COUNT; ++a)
		gAt[a] = slots[gl_WorkGroupID.x].at[a];
	gShared = (gAt[WF_GPU_SLOT_FLAGS] & WF_GPU_PUSH_SHARED) != 0u;
	gInvMass = uintBitsToFloat(gAt[WF_GPU_SLOT_INV_MASS]);
	for (uint w = t; w < WF_GPU_FUSED_MAX_PARTICLES / 32u; w += kGroup)
		sFree[w] = 0u;
	if (t == 0u)
		sBinary = 1u;
	for (uint c = t; c <= WF_GPU_FUSED_MAX_COLORS; c += kGroup)
		sColorStart[c] = P.colorStart[c];
	memoryBarrierShared();
	barrier();
	uint substeps = pc.count, iterations = pc.first;

	// Frame start: owned particles into registers, positions into shared memory, the state into
	// the backup (the host restores it if the frame goes bad) and the frame check reset: done here
	// rather than by transfer commands, which would cost several per cloth and frame.
	if (t == 0u) {
		STATUS_NON_FINITE = 0xffffffffu;
		STATUS_UNSTABLE = 0xffffffffu;
		STATUS_UNSTABLE_CONTACT = 0xffffffffu;
		STATUS_TUNNELLED = 0xffffffffu;
	}
	[[unroll]] for (uint j = 0u; j < kPer; ++j) {
		uint i = t + j * kGroup;
		gV[j] = vec3(0.0);
		gPrev[j] = vec3(0.0);
		gW[j] = 0.0;
		if (i >= n)
			continue;
		vec4 x = POS(i), v = VEL(i);
		BACKUP_POS(i) = x;
		BACKUP_VEL(i) = v;
		gW[j] = x.w;
		gV[j] = v.xyz;
		if (x.w != 0.0)
			atomicOr(sFree[i >> 5], 1u << (i & 31u));
		if (x.w != 0.0 && x.w != gInvMass)
			atomicAnd(sBinary, 0u);
		// The frame start's re-centring (predict.comp with WF_GPU_PUSH_SHIFT), after the backup.
		precise vec3 y = x.xyz - P.shift.xyz;
		StoreX(i, y);
	}
	memoryBarrierShared();
	memoryBarrierBuffer(); // the status reset before any invocation's atomics at the end
	barrier();
	gBinary = sBinary != 0u;
#ifdef WF_FUSED_XPBD
	if (!kMoves)
		FindEnds();
#endif

	// How many substeps ran, for the host (status.reference.w): a driver may end a long loop early.
	uint ran = 0u;
	for (; ran < substeps; ++ran)
		Substep(ran, iterations);

	// Frame end: the state back to the buffers (springs wrote the velocities already).
	[[unroll]] for (uint j = 0u; j < kPer; ++j) {
		uint i = t + j * kGroup;
		if (i >= n)
			break;
		if (gShared)
			POS(i) = vec4(LoadX(i), gW[j]);
		VEL(i) = vec4(gV[j], 0.0);
	}
	StateBarrier();

	// normals.comp and check.comp for the owned particles, with check.comp's motion tests against
	// the backup (the sphere's centre after the first and the last substep for the tunnelling test).
	const bool sphere = (P.flags & WF_GPU_FLAG_SPHERE) != 0u;
	precise vec3 c0 = P.sphereCenter.xyz + S[0].sphereMotion.xyz;
	precise vec3 c1 = P.sphereCenter.xyz + S[substeps - 1u].sphereMotion.xyz;
	precise float r2 = P.contactBand.z * P.contactBand.z;
	precise float k = float(substeps);
	precise float n4 = 4.0 * k * k;
	vec4 motion = vec4(0.0);
	[[unroll]] for (uint j = 0u; j < kPer; ++j) {
		uint i = t + j * kGroup;
		if (i >= n)
			break;
		precise float sx = 0.0, sy = 0.0, sz = 0.0;
		int end = TRI_START(i + 1u);
		for (int e = TRI_START(i); e < end; ++e) {
			uint tri = TRI_LIST(e);
			vec3 p0 = LoadX(INDEX(3u * tri)), p1 = LoadX(INDEX(3u * tri + 1u)), p2 = LoadX(INDEX(3u * tri + 2u));
			precise float ax = p1.x - p0.x, ay = p1.y - p0.y, az = p1.z - p0.z;
			precise float bx = p2.x - p0.x, by = p2.y - p0.y, bz = p2.z - p0.z;
			sx += ay * bz - az * by;
			sy += az * bx - ax * bz;
			sz += ax * by - ay * bx;
		}
		precise float len = sqrt(sx * sx + sy * sy + sz * sz);
		precise vec4 nrm = vec4(0.0, 1.0, 0.0, 0.0);
		if (len > WF_MIN_NORMAL_LENGTH)
			nrm = vec4(sx / len, sy / len, sz / len, 0.0);
		NORMAL(i) = nrm;

		vec3 x = LoadX(i), v = gV[j];
		precise float sum = x.x + x.y + x.z + v.x + v.y + v.z;
		if ((floatBitsToUint(sum) & 0x7f800000u) == 0x7f800000u)
			atomicMin(STATUS_NON_FINITE, i);
		else if (WfTooFast(v)) {
			atomicMin(STATUS_UNSTABLE, i);
			if (WfInContact(x, substeps - 1u))
				atomicMin(STATUS_UNSTABLE_CONTACT, i);
		}
		const vec4 x0 = BACKUP_POS(i);
		if (sphere && WfTunnelled(x0.xyz, x, c0, c1, r2, n4))
			atomicMin(STATUS_TUNNELLED, i);
		motion += WfMotionTerms(x0, BACKUP_VEL(i).xyz, x, v);
	}
	// The energy pre-test's sums over the workgroup in the positions' shared memory, free once every
	// invocation is past the normals (each invocation owns an entry: the arrays hold 4 per
	// invocation): 32 partial sums, then invocation 0's; the free particles counted in sBinary (read
	// into gBinary at the frame start).
	const vec3 reference = LoadX(n / 2u);
	memoryBarrierShared();
	barrier();
	sXY[t] = motion.xy;
	sZ[t] = motion.z;
	if (t == 0u)
		sBinary = 0u;
	memoryBarrierShared();
	barrier();
	atomicAdd(sBinary, uint(motion.w));
	const uint per = kGroup / 32u;
	vec3 part = vec3(0.0);
	if (t < 32u) {
		for (uint e = t * per; e < t * per + per; ++e)
			part += vec3(sXY[e], sZ[e]);
	}
	barrier();
	if (t < 32u) {
		sXY[t] = part.xy;
		sZ[t] = part.z;
	}
	// The frame check to the host-visible slot (atomics return the final values).
	memoryBarrierShared();
	memoryBarrierBuffer();
	barrier();
	if (t == 0u) {
		vec3 sum = vec3(0.0);
		for (uint e = 0u; e < min(32u, kGroup); ++e)
			sum += vec3(sXY[e], sZ[e]);
		slots[gl_WorkGroupID.x].status.firstNonFinite = atomicOr(STATUS_NON_FINITE, 0u);
		slots[gl_WorkGroupID.x].status.firstUnstable = atomicOr(STATUS_UNSTABLE, 0u);
		slots[gl_WorkGroupID.x].status.firstUnstableInContact = atomicOr(STATUS_UNSTABLE_CONTACT, 0u);
		slots[gl_WorkGroupID.x].status.firstTunnelled = atomicOr(STATUS_TUNNELLED, 0u);
		slots[gl_WorkGroupID.x].status.reference = vec4(reference, float(ran));
		slots[gl_WorkGroupID.x].status.energy = vec4(sum, float(sBinary));
	}
}
