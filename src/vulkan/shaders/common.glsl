// Declarations shared by every kernel: the bindings of kernel_abi.h, the push constants, the element
// index, and the GLSL mirrors of the CPU's environment helpers (external acceleration, collision).
// Every float expression that feeds a result is `precise` (SPIR-V NoContraction): no fused
// multiply-add, so each operation rounds as in the CPU build (-ffp-contract=off).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "kernel_abi.h"

// The fused kernel (fused.glsl) sets its own workgroup size and bindings (WF_BATCH), the scan
// (contact_scan.comp) its workgroup size (WF_OWN_GROUP_SIZE).
#if !defined(WF_FUSED) && !defined(WF_OWN_GROUP_SIZE)
layout(local_size_x = WF_GPU_GROUP_SIZE) in;
#endif

#ifndef WF_BATCH
layout(std430, binding = WF_GPU_BIND_FRAME) readonly buffer FrameBuf { wfGpuClothParams P; wfGpuSubstep S[]; };
layout(std430, binding = WF_GPU_BIND_POS) buffer PosBuf { vec4 pos[]; };
layout(std430, binding = WF_GPU_BIND_VEL) buffer VelBuf { vec4 vel[]; };
layout(std430, binding = WF_GPU_BIND_POS_ALT) buffer PosAltBuf { vec4 posAlt[]; };
layout(std430, binding = WF_GPU_BIND_VEL_ALT) buffer VelAltBuf { vec4 velAlt[]; };
layout(std430, binding = WF_GPU_BIND_PREV) buffer PrevBuf { vec4 prev[]; };
layout(std430, binding = WF_GPU_BIND_LAMBDA) buffer LambdaBuf { float lambda[]; };
layout(std430, binding = WF_GPU_BIND_CONSTRAINTS) readonly buffer ConBuf { uvec4 con[]; };
layout(std430, binding = WF_GPU_BIND_ADJ_START) readonly buffer AdjStartBuf { int adjStart[]; };
layout(std430, binding = WF_GPU_BIND_ADJ_CONSTRAINT) readonly buffer AdjConBuf { uint adjConstraint[]; };
layout(std430, binding = WF_GPU_BIND_ADJ_OTHER) readonly buffer AdjOtherBuf { uint adjOther[]; };
layout(std430, binding = WF_GPU_BIND_JACOBI_WEIGHT) readonly buffer JacobiWeightBuf { float jacobiWeight[]; };
layout(std430, binding = WF_GPU_BIND_NORMALS) buffer NormalBuf { vec4 normals[]; };
layout(std430, binding = WF_GPU_BIND_TRI_START) readonly buffer TriStartBuf { int triStart[]; };
layout(std430, binding = WF_GPU_BIND_TRI_LIST) readonly buffer TriListBuf { uint triList[]; };
layout(std430, binding = WF_GPU_BIND_INDICES) readonly buffer IndexBuf { uint indices[]; };
layout(std430, binding = WF_GPU_BIND_STATUS) buffer StatusBuf { wfGpuStatus status; };
layout(std430, binding = WF_GPU_BIND_STATS_PARAMS) readonly buffer StatsParamsBuf { wfGpuStatsParams SP; };
layout(std430, binding = WF_GPU_BIND_PARTIALS) coherent buffer PartialBuf { wfGpuPartial partials[]; };
layout(std430, binding = WF_GPU_BIND_BACKUP) readonly buffer BackupBuf { vec4 backup[]; };
layout(std430, binding = WF_GPU_BIND_REST) readonly buffer RestBuf { vec4 rest[]; };
// The world's contact arrays (kernel_abi.h, WF_GPU_SET_CONTACTS); the mesh kernel has its own set 1
// (collide_mesh.comp, WF_MESH_SET).
#ifndef WF_MESH_SET
layout(std430, set = WF_GPU_SET_CONTACTS, binding = WF_GPU_CONTACT_BIND_PARAMS) readonly buffer ContactParamsBuf { wfGpuContactParams CP; };
layout(std430, set = WF_GPU_SET_CONTACTS, binding = WF_GPU_CONTACT_BIND_KEY) buffer ContactKeyBuf { uint cellKey[]; };
layout(std430, set = WF_GPU_SET_CONTACTS, binding = WF_GPU_CONTACT_BIND_RANK) buffer ContactRankBuf { uint cellRank[]; };
layout(std430, set = WF_GPU_SET_CONTACTS, binding = WF_GPU_CONTACT_BIND_CELLS) buffer ContactCellBuf { uint cells[]; };
layout(std430, set = WF_GPU_SET_CONTACTS, binding = WF_GPU_CONTACT_BIND_SORTED) buffer ContactSortedBuf { uint sorted[]; };
layout(std430, set = WF_GPU_SET_CONTACTS, binding = WF_GPU_CONTACT_BIND_DELTA) buffer ContactDeltaBuf { vec4 delta[]; };
layout(std430, set = WF_GPU_SET_CONTACTS, binding = WF_GPU_CONTACT_BIND_X) buffer ContactXBuf { vec4 cx[]; };
layout(std430, set = WF_GPU_SET_CONTACTS, binding = WF_GPU_CONTACT_BIND_MOTION) buffer ContactMotionBuf { vec4 motion[]; };
layout(std430, set = WF_GPU_SET_CONTACTS, binding = WF_GPU_CONTACT_BIND_OWNER) buffer ContactOwnerBuf { uvec4 owner[]; };
#endif
#else
// Batch (fused kernels): P is the live values of this workgroup's cloth, the arrays are views of
// the arena at the offsets of its slot (fused.glsl).
layout(std430, binding = WF_GPU_BATCH_BIND_SUBSTEPS) readonly buffer SubstepBuf { wfGpuSubstep S[]; };
layout(std430, binding = WF_GPU_BATCH_BIND_STATUS) writeonly buffer StatusOut { wfGpuStatus statusOut[]; };
layout(std430, binding = WF_GPU_BATCH_BIND_VEC4) coherent buffer ArenaVec4 { vec4 arena4[]; };
layout(std430, binding = WF_GPU_BATCH_BIND_UVEC4) readonly buffer ArenaUvec4 { uvec4 arenaU4[]; };
layout(std430, binding = WF_GPU_BATCH_BIND_WORDS) buffer ArenaWords { uint arenaWords[]; };
// P through a read-only view of the slots: never written during a frame, so its loads may be cached
// and kept across barriers (the kernel writes only each slot's status, through `slots`).
layout(std430, binding = WF_GPU_BATCH_BIND_SLOTS_RO) readonly restrict buffer SlotParams { wfGpuBatchSlot slotsRO[]; };
#define P slotsRO[gl_WorkGroupID.x].params
#endif

layout(push_constant) uniform PushBlock { wfGpuPush pc; };

// A kernel that takes several substeps in one dispatch may hold their records in shared memory, so
// that a substep does not wait on a load from the cache: WF_SUBSTEP_SHARED n, the records of
// substeps pc.substep to pc.substep + n - 1, which the kernel copies before its first barrier.
#ifdef WF_SUBSTEP_SHARED
shared wfGpuSubstep sSubstep[WF_SUBSTEP_SHARED];
#define WF_SUBSTEP(s) sSubstep[(s) - pc.substep]
#else
#define WF_SUBSTEP(s) S[s]
#endif

// Neighbour gathers (springs, Jacobi) load this many neighbours before using any (latency overlap);
// set per pipeline (kernel_abi.h, WF_GPU_SPEC_GATHER). A gather's arrays hold WF_GATHER_SLOTS.
layout(constant_id = WF_GPU_SPEC_GATHER) const int WF_GATHER = WF_GPU_GATHER;
// WF_VELOCITY_MOVES (wfWorldDef.velocity, set per world): inside an XPBD or Jacobi substep every move
// d of a particle also adds d invH to its velocity, which the finish scales; false: the finish
// reads v = velFactor (x - p) and no stage touches the velocity before it.
#ifndef WF_WGSL
layout(constant_id = WF_GPU_SPEC_MOVES) const bool kMoves = true;
// Whether the world may have colliders besides its sphere and floor (kernel_abi.h).
layout(constant_id = WF_GPU_SPEC_COLLIDERS) const bool kColliders = true;
#define WF_GATHER_SLOTS WF_GATHER
#define WF_FLOAT_MAX 3.402823466e+38 // FLT_MAX
#else
// The WGSL build (WF_WGSL, web/CMakeLists.txt): naga reads a specialization constant (as a WGSL
// override) but no constant expression of one (OpSpecConstantOp), and WGSL sizes a function's
// array by a constant expression only. So kMoves is the frame's WF_GPU_FLAG_MOVES, read through a
// call (a read-only buffer: WGSL still knows it to be uniform; the page makes one pipeline per
// kernel whatever the world's velocity rule), and a gather's arrays hold the widest gather (the
// sums run in adjacency order whatever the width).
bool WfMoves() { return (P.flags & WF_GPU_FLAG_MOVES) != 0u; }
#define kMoves WfMoves()
const bool kColliders = true; // one pipeline per kernel: the loop runs over P.shapeCount
#define WF_GATHER_SLOTS WF_GPU_GATHER_WIDE
// FLT_MAX by its bits: naga writes the literal as 340282350000000000000000000000000000000f, which
// Chromium's WGSL compiler rejects as not representable in f32.
#define WF_FLOAT_MAX uintBitsToFloat(0x7f7fffffu)
#endif
// The divisor 3 of drag and lift (WfTriangleAero, WfAeroAccel): for WGSL the host's (aeroCoeff.z),
// because Chromium compiles a constant divisor to a multiplication by its rounded reciprocal, which
// gives other bits than the CPU's division.
#ifndef WF_WGSL
#define WF_AERO_THREE 3.0
#else
#define WF_AERO_THREE P.aeroCoeff.z
#endif

// wfCpuMoved: a particle moved by d inside the substep adds d invH to its velocity (kMoves).
void WfMoved(inout vec4 v, vec3 d, float invH)
{
	precise vec4 u = vec4(v.x + d.x * invH, v.y + d.y * invH, v.z + d.z * invH, v.w);
	v = u;
}


#ifndef WF_BATCH
// The element of this thread, or 0xffffffff past the end of the dispatch's range. Grids wider than
// 65535 groups continue in gl_WorkGroupID.y.
uint WfElement()
{
	uint local = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * WF_GPU_GROUP_SIZE + gl_LocalInvocationID.x;
	return local < pc.count ? pc.first + local : 0xffffffffu;
}

// This workgroup's index in a dispatch (groups spill into y like elements).
uint WfGroup() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }

#endif

// The frame check's speed test, as wfCheckFrame: |v|^2 > maxSpeed^2.
bool WfTooFast(vec3 v)
{
	precise float s2 = v.x * v.x + v.y * v.y + v.z * v.z;
	precise float l2 = P.maxSpeed * P.maxSpeed;
	return s2 > l2;
}

// wfInContact: within the contact band (2 thickness + 1 mm) of the sphere's or the floor's surface
// at the end of the substep; P.contactBand holds the host's radius + band and floor height + band.
bool WfInContact(vec3 x, uint substep)
{
	if ((P.flags & WF_GPU_FLAG_SPHERE) != 0u) {
		precise vec3 c = P.sphereCenter.xyz + S[substep].sphereMotion.xyz;
		precise float dx = x.x - c.x, dy = x.y - c.y, dz = x.z - c.z;
		precise float r = P.contactBand.x;
		precise float d2 = dx * dx + dy * dy + dz * dz;
		precise float r2 = r * r;
		if (d2 <= r2)
			return true;
	}
	return (P.flags & WF_GPU_FLAG_FLOOR) != 0u && x.y <= P.contactBand.y;
}

// wfTunnelled (internal.h), operation for operation: the frame path from the backup start x0 to
// the end x1, relative to the sphere's centre after the first (c0) and the last (c1) substep; r2
// the radius squared, n4 = 4 S^2.
bool WfTunnelled(vec3 x0, vec3 x1, vec3 c0, vec3 c1, float r2, float n4)
{
	precise float sx = (x0.x - P.shift.x) - c0.x, sy = (x0.y - P.shift.y) - c0.y, sz = (x0.z - P.shift.z) - c0.z;
	precise float ex = x1.x - c1.x, ey = x1.y - c1.y, ez = x1.z - c1.z;
	precise float s2 = sx * sx + sy * sy + sz * sz;
	precise float e2 = ex * ex + ey * ey + ez * ez;
	precise float dx = ex - sx, dy = ey - sy, dz = ez - sz;
	precise float l2 = dx * dx + dy * dy + dz * dz;
	precise float along = -(sx * dx + sy * dy + sz * dz);
	precise float inside = r2 * l2 - (s2 * l2 - along * along);
	precise float l4 = l2 * l2;
	precise float limit = n4 * inside;
	return s2 >= r2 && e2 >= r2 && along > 0.0 && along < l2 && inside > 0.0 && l4 > limit;
}

// The energy pre-test's terms of one particle (wfMotionAdd, cpu.h): x the gain 1/2 |v1|^2 -
// 1/2 |v0|^2 - g . (x1 - x0 + shift), y 1/2 |v0|^2, z their magnitude, w 1; all 0 for a fixed particle.
vec4 WfMotionTerms(vec4 x0, vec3 v0, vec3 x1, vec3 v1)
{
	if (x0.w == 0.0)
		return vec4(0.0);
	precise float k0 = v0.x * v0.x + v0.y * v0.y + v0.z * v0.z;
	precise float k1 = v1.x * v1.x + v1.y * v1.y + v1.z * v1.z;
	precise float ex = x1.x - x0.x + P.shift.x, ey = x1.y - x0.y + P.shift.y, ez = x1.z - x0.z + P.shift.z;
	precise float fall = P.gravity.x * ex + P.gravity.y * ey + P.gravity.z * ez;
	precise float h0 = 0.5 * k0, h1 = 0.5 * k1;
	precise float gain = h1 - h0 - fall;
	precise float magnitude = h0 + h1 + abs(fall);
	return vec4(gain, h0, magnitude, 1.0);
}

bool WfFinite(float v) { return (floatBitsToUint(v) & 0x7f800000u) != 0x7f800000u; }

#ifndef WF_BATCH
float WfRest(uint k) { return uintBitsToFloat(con[k].z); }
#endif

// wfWaveSinf, operation by operation: sin in float arithmetic, the CPU's bits.
float WfWaveSin(float x)
{
	precise float k = floor(x * 0.636619747 + 0.5);
	precise float r = ((x - k * 1.5703125) - k * 0.000483751297) - k * 7.54979013e-08;
	precise float kq = k - 4.0 * floor(k * 0.25);
	const int q = int(kq);
	precise float r2 = r * r;
	precise float s = r + r * r2 * (-0.166666546 + r2 * (0.00833216087 + r2 * -0.000195152956));
	precise float c = 1.0 - 0.5 * r2 + r2 * r2 * (0.0416666456 + r2 * (-0.00138873165 + r2 * 2.44331568e-05));
	return q == 0 ? s : q == 1 ? c : q == 2 ? -s : -c;
}

// wfExternalAccel: gravity plus wind at the start of the substep.
vec3 WfExternalAccel(uint substep, uint column, float invMass)
{
	if ((P.flags & WF_GPU_FLAG_WAVE) == 0u)
		return WF_SUBSTEP(substep).accel.xyz;
	precise vec3 a = P.gravity.xyz;
	float t = WF_SUBSTEP(substep).accel.w;
	float len = P.windDir.w;
	if (len > 0.0) {
		precise float f = P.windStrength * invMass / len *
			(0.5 + 0.5 * WfWaveSin(WF_TWO_PI * P.windFrequency * t + P.windPhasePerColumn * float(column)));
		a.x += P.windDir.x * f;
		a.y += P.windDir.y * f;
		a.z += P.windDir.z * f;
	}
	return a;
}

#ifndef WF_BATCH
// environment.c TriangleAero: one triangle's drag and lift from the state at the substep start.
vec3 WfTriangleAero(uint t)
{
	const uint i0 = indices[3u * t], i1 = indices[3u * t + 1u], i2 = indices[3u * t + 2u];
	const vec4 p0 = pos[i0], p1 = pos[i1], p2 = pos[i2], v0 = vel[i0], v1 = vel[i1], v2 = vel[i2];
	precise float ax = p1.x - p0.x, ay = p1.y - p0.y, az = p1.z - p0.z;
	precise float bx = p2.x - p0.x, by = p2.y - p0.y, bz = p2.z - p0.z;
	precise float nx = ay * bz - az * by, ny = az * bx - ax * bz, nz = ax * by - ay * bx;
	precise float len = sqrt(nx * nx + ny * ny + nz * nz);
	if (!(len > WF_MIN_NORMAL_LENGTH))
		return vec3(0.0);
	precise float ux = nx / len, uy = ny / len, uz = nz / len;
	precise float q = P.aero.w * (0.5 * len);
	precise float rx = P.aero.x - (v0.x + v1.x + v2.x) / WF_AERO_THREE;
	precise float ry = P.aero.y - (v0.y + v1.y + v2.y) / WF_AERO_THREE;
	precise float rz = P.aero.z - (v0.z + v1.z + v2.z) / WF_AERO_THREE;
	precise float rn = rx * ux + ry * uy + rz * uz;
	precise float drag = q * P.aeroCoeff.x * abs(rn) * rn;
	precise vec3 f = vec3(drag * ux, drag * uy, drag * uz);
	precise float s2 = rx * rx + ry * ry + rz * rz;
	if (P.aeroCoeff.y != 0.0 && s2 > WF_MIN_AIR_SPEED2) {
		precise float lift = q * P.aeroCoeff.y * rn * sqrt(s2);
		precise float k = rn / s2;
		f.x += lift * (ux - k * rx);
		f.y += lift * (uy - k * ry);
		f.z += lift * (uz - k * rz);
	}
	return f;
}

// wfAeroAccel: the corner's third of each incident triangle's force, times the inverse mass and the
// particle's air share.
vec3 WfAeroAccel(uint i)
{
	precise float sx = 0.0, sy = 0.0, sz = 0.0;
	for (int e = triStart[i]; e < triStart[i + 1u]; ++e) {
		precise vec3 f = WfTriangleAero(triList[e]);
		sx += f.x;
		sy += f.y;
		sz += f.z;
	}
	const float w = pos[i].w, share = rest[i].w; // the air share (topology.c wfBuildAirShares)
	precise vec3 a = vec3(sx * w / WF_AERO_THREE * share, sy * w / WF_AERO_THREE * share, sz * w / WF_AERO_THREE * share);
	return a;
}
#endif

// Respond (cpu_stages.c): STOP zeroes the velocity; FRICTION removes the approaching normal part
// of the relative velocity and applies Coulomb friction to the tangential part.
void WfRespond(inout vec4 v, float nx, float ny, float nz, vec3 vs)
{
	if ((P.flags & WF_GPU_FLAG_STOP) != 0u) {
		v.xyz = vec3(0.0);
		return;
	}
	precise float rx = v.x - vs.x, ry = v.y - vs.y, rz = v.z - vs.z;
	precise float vn = rx * nx + ry * ny + rz * nz;
	if (vn >= 0.0)
		return;
	precise float tx = rx - vn * nx, ty = ry - vn * ny, tz = rz - vn * nz;
	precise float vt = sqrt(tx * tx + ty * ty + tz * tz);
	precise float scale = vt > P.friction * -vn ? 1.0 - P.friction * -vn / vt : 0.0;
	precise float ox = vs.x + tx * scale, oy = vs.y + ty * scale, oz = vs.z + tz * scale;
	v.x = ox;
	v.y = oy;
	v.z = oz;
}

// Pushes x to q + n r and responds against the collider's surface velocity there: v + w x (x - c),
// or v as it is for a shape that does not spin (cpu_stages.c PushOut, SurfaceVelocity).
void WfPushOut(inout vec4 x, inout vec4 v, vec3 c, vec3 vel, vec3 w, bool spins, float qx, float qy, float qz, float nx, float ny, float nz,
	float r)
{
	precise float px = qx + nx * r, py = qy + ny * r, pz = qz + nz * r;
	x.x = px;
	x.y = py;
	x.z = pz;
	if (!spins) {
		WfRespond(v, nx, ny, nz, vel);
		return;
	}
	precise float rx = x.x - c.x, ry = x.y - c.y, rz = x.z - c.z;
	precise vec3 vs = vec3(vel.x + w.y * rz - w.z * ry, vel.y + w.z * rx - w.x * rz, vel.z + w.x * ry - w.y * rx);
	WfRespond(v, nx, ny, nz, vs);
}

// wfCpuCollideShape's sphere: centre c, radius r with the contact thickness; `up` the normal of a
// particle at the centre.
void WfCollideSphere(inout vec4 x, inout vec4 v, vec3 c, float r, vec3 up, vec3 vel, vec3 w, bool spins)
{
	precise float dx = x.x - c.x, dy = x.y - c.y, dz = x.z - c.z;
	precise float d2 = dx * dx + dy * dy + dz * dz;
	precise float rr = r * r;
	if (!(d2 < rr))
		return;
	precise float d = sqrt(d2);
	if (d > WF_MIN_LENGTH)
		WfPushOut(x, v, c, vel, w, spins, c.x, c.y, c.z, dx / d, dy / d, dz / d, r);
	else
		WfPushOut(x, v, c, vel, w, spins, c.x, c.y, c.z, up.x, up.y, up.z, r);
}

// wfCpuCollideShape's plane through c with normal n at height `level` along it (c.n + t):
// heights along the normal, x - n (x.n) + n level.
void WfCollideLevel(inout vec4 x, inout vec4 v, vec3 c, vec3 n, float level, vec3 vel, vec3 w, bool spins)
{
	precise float h = x.x * n.x + x.y * n.y + x.z * n.z;
	if (!(h < level))
		return;
	precise float qx = x.x - n.x * h, qy = x.y - n.y * h, qz = x.z - n.z * h;
	WfPushOut(x, v, c, vel, w, spins, qx, qy, qz, n.x, n.y, n.z, level);
}

// The plane through c with normal n, its surface t above.
void WfCollidePlane(inout vec4 x, inout vec4 v, vec3 c, vec3 n, float t, vec3 vel, vec3 w, bool spins)
{
	precise float level = (c.x * n.x + c.y * n.y + c.z * n.z) + t;
	WfCollideLevel(x, v, c, n, level, vel, w, spins);
}

// The world's sphere or floor, shape k < P.worldShapes, at a substep: still axes (P.floor's (0, 1,
// 0, 0): read at run time, see kernel_abi.h), no spin; the sphere's displacement and velocity in
// the substep's record, the floor still; the reach (the sphere's radius with the thickness, the
// floor's level) written by the host in size.y. Taken once a substep where an invocation collides
// several particles (WfCollideWith).
struct WfStill {
	vec3 c;
	float reach;
	vec3 vel;
	bool sphere;
};

WfStill WfStillAt(uint substep, uint k)
{
	const vec4 base = P.shapes[k].base, u = P.floor;
	WfStill s;
	s.sphere = k == 0u && (P.flags & WF_GPU_FLAG_SPHERE) != 0u; // the sphere, where there is one, is first
	const vec3 move = s.sphere ? WF_SUBSTEP(substep).sphereMotion.xyz : u.www;
	s.vel = s.sphere ? WF_SUBSTEP(substep).sphereVel.xyz : u.www;
	precise vec3 c = vec3(base.x + move.x, base.y + move.y, base.z + move.z);
	s.c = c;
	s.reach = P.shapes[k].size.y;
	return s;
}

void WfCollideStill(inout vec4 x, inout vec4 v, WfStill s)
{
	const vec4 u = P.floor;
	if (s.sphere)
		WfCollideSphere(x, v, s.c, s.reach, u.xyx, s.vel, u.www, false);
	else
		WfCollideLevel(x, v, s.c, u.xyx, s.reach, s.vel, u.www, false);
}

// wfCpuCollideShape for collider k >= P.worldShapes (kernel_abi.h: its frame-start centre in
// P.shapes; its displacement, axes, velocity and spin of the substep in two records after the
// substeps).
void WfCollideShape(inout vec4 x, inout vec4 v, uint substep, uint k)
{
	const vec4 base = P.shapes[k].base, size = P.shapes[k].size;
	const uint at = WF_MAX_SUBSTEPS + 2u * (substep * (P.shapeCount - P.worldShapes) + (k - P.worldShapes));
	const vec3 move = S[at].sphereMotion.xyz, ax = S[at].sphereVel.xyz, ay = S[at].accel.xyz, az = S[at + 1u].sphereMotion.xyz;
	const vec3 vel = S[at + 1u].sphereVel.xyz, w = S[at + 1u].accel.xyz;
	precise vec3 c = vec3(base.x + move.x, base.y + move.y, base.z + move.z);
	const float t = size.w; // the contact thickness
	precise float dx = x.x - c.x, dy = x.y - c.y, dz = x.z - c.z;
	const uint type = uint(base.w);
	if (type == WF_COLLIDER_MESH_ID)
		return; // after the others, with the substep's motion (collide_mesh.comp)
	if (type == WF_COLLIDER_SPHERE_ID) {
		precise float r = size.x + t;
		WfCollideSphere(x, v, c, r, ay, vel, w, true);
	} else if (type == WF_COLLIDER_CAPSULE_ID) {
		const float L = size.z;
		precise float u = dx * ax.x + dy * ax.y + dz * ax.z;
		u = u < -L ? -L : u > L ? L : u;
		precise float f = L > 0.0 ? 0.5 * (u / L + 1.0) : 0.0;
		precise float r = size.x + (size.y - size.x) * f + t;
		precise float qx = c.x + ax.x * u, qy = c.y + ax.y * u, qz = c.z + ax.z * u;
		precise float ex = x.x - qx, ey = x.y - qy, ez = x.z - qz;
		precise float d2 = ex * ex + ey * ey + ez * ez;
		if (d2 >= r * r)
			return;
		precise float d = sqrt(d2);
		if (d > WF_MIN_LENGTH)
			WfPushOut(x, v, c, vel, w, true, qx, qy, qz, ex / d, ey / d, ez / d, r);
		else
			WfPushOut(x, v, c, vel, w, true, qx, qy, qz, ay.x, ay.y, ay.z, r);
	} else if (type == WF_COLLIDER_BOX_ID) {
		precise vec3 l = vec3(dx * ax.x + dy * ax.y + dz * ax.z, dx * ay.x + dy * ay.y + dz * ay.z, dx * az.x + dy * az.y + dz * az.z);
		precise vec3 e = vec3(P.shapes[k].halfExtents.x + t, P.shapes[k].halfExtents.y + t, P.shapes[k].halfExtents.z + t);
		int axis = -1;
		float least = 0.0;
		for (int i = 0; i < 3; ++i) {
			precise float depth = e[i] - abs(l[i]);
			if (depth <= 0.0)
				return;
			if (axis < 0 || depth < least) {
				axis = i;
				least = depth;
			}
		}
		const float sign = l[axis] < 0.0 ? -1.0 : 1.0;
		const vec3 n = (axis == 0 ? ax : axis == 1 ? ay : az) * sign;
		WfPushOut(x, v, c, vel, w, true, x.x, x.y, x.z, n.x, n.y, n.z, least);
	} else {
		WfCollidePlane(x, v, c, ay, t, vel, w, true);
	}
}

// wfCpuCollideParticle: out of each shape in turn, fixing the velocity: the world's sphere and
// floor first (s0 and s1 of WfStillAt, where P.worldShapes has them), then the colliders.
void WfCollideWith(inout vec4 x, inout vec4 v, uint substep, WfStill s0, WfStill s1)
{
	if (x.w == 0.0)
		return;
	if (P.worldShapes > 0u)
		WfCollideStill(x, v, s0);
	if (P.worldShapes > 1u)
		WfCollideStill(x, v, s1);
	for (uint k = P.worldShapes; kColliders && k < P.shapeCount; ++k)
		WfCollideShape(x, v, substep, k);
}

void WfCollide(inout vec4 x, inout vec4 v, uint substep)
{
	WfCollideWith(x, v, substep, WfStillAt(substep, 0u), WfStillAt(substep, 1u));
}
