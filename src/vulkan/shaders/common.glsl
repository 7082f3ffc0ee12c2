// Declarations shared by every kernel: the bindings of shared.h, the push constants, the element
// index, and the GLSL mirrors of the CPU's environment helpers (external acceleration, collision).
// Every float expression that feeds a result is `precise` (SPIR-V NoContraction): no fused
// multiply-add, so each operation rounds as in the CPU build (-ffp-contract=off).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#include "shared.h"

// The fused kernel (fused.glsl) sets its own workgroup size and bindings (WF_BATCH).
#ifndef WF_FUSED
layout(local_size_x = WF_VK_GROUP_SIZE) in;
#endif

#ifndef WF_BATCH
layout(std430, binding = WF_VK_BIND_FRAME) readonly buffer FrameBuf { wfVkClothParams P; wfVkSubstep S[]; };
layout(std430, binding = WF_VK_BIND_POS) buffer PosBuf { vec4 pos[]; };
layout(std430, binding = WF_VK_BIND_VEL) buffer VelBuf { vec4 vel[]; };
layout(std430, binding = WF_VK_BIND_POS_ALT) buffer PosAltBuf { vec4 posAlt[]; };
layout(std430, binding = WF_VK_BIND_VEL_ALT) buffer VelAltBuf { vec4 velAlt[]; };
layout(std430, binding = WF_VK_BIND_PREV) buffer PrevBuf { vec4 prev[]; };
layout(std430, binding = WF_VK_BIND_LAMBDA) buffer LambdaBuf { float lambda[]; };
layout(std430, binding = WF_VK_BIND_CONSTRAINTS) readonly buffer ConBuf { uvec4 con[]; };
layout(std430, binding = WF_VK_BIND_ADJ_START) readonly buffer AdjStartBuf { int adjStart[]; };
layout(std430, binding = WF_VK_BIND_ADJ_CONSTRAINT) readonly buffer AdjConBuf { uint adjConstraint[]; };
layout(std430, binding = WF_VK_BIND_ADJ_OTHER) readonly buffer AdjOtherBuf { uint adjOther[]; };
layout(std430, binding = WF_VK_BIND_JACOBI_WEIGHT) readonly buffer JacobiWeightBuf { float jacobiWeight[]; };
layout(std430, binding = WF_VK_BIND_NORMALS) buffer NormalBuf { vec4 normals[]; };
layout(std430, binding = WF_VK_BIND_TRI_START) readonly buffer TriStartBuf { int triStart[]; };
layout(std430, binding = WF_VK_BIND_TRI_LIST) readonly buffer TriListBuf { uint triList[]; };
layout(std430, binding = WF_VK_BIND_INDICES) readonly buffer IndexBuf { uint indices[]; };
layout(std430, binding = WF_VK_BIND_STATUS) buffer StatusBuf { wfVkStatus status; };
layout(std430, binding = WF_VK_BIND_STATS_PARAMS) readonly buffer StatsParamsBuf { wfVkStatsParams SP; };
layout(std430, binding = WF_VK_BIND_PARTIALS) buffer PartialBuf { wfVkPartial partials[]; };
#else
// Batch (fused kernels): P is the live values of this workgroup's cloth, the arrays are views of
// the arena at the offsets of its slot (fused.glsl).
layout(std430, binding = WF_VK_BATCH_BIND_SUBSTEPS) readonly buffer SubstepBuf { wfVkSubstep S[]; };
layout(std430, binding = WF_VK_BATCH_BIND_SLOTS) buffer SlotBuf { wfVkBatchSlot slots[]; };
layout(std430, binding = WF_VK_BATCH_BIND_VEC4) coherent buffer ArenaVec4 { vec4 arena4[]; };
layout(std430, binding = WF_VK_BATCH_BIND_UVEC4) readonly buffer ArenaUvec4 { uvec4 arenaU4[]; };
layout(std430, binding = WF_VK_BATCH_BIND_WORDS) buffer ArenaWords { uint arenaWords[]; };
// P through a read-only view of the slots: never written during a frame, so its loads may be cached
// and kept across barriers (the kernel writes only each slot's status, through `slots`).
layout(std430, binding = WF_VK_BATCH_BIND_SLOTS_RO) readonly restrict buffer SlotParams { wfVkBatchSlot slotsRO[]; };
#define P slotsRO[gl_WorkGroupID.x].params
#endif

layout(push_constant) uniform PushBlock { wfVkPush pc; };

// Neighbour gathers (springs, Jacobi) load this many neighbours before using any (latency overlap);
// set per pipeline (shared.h, WF_VK_SPEC_GATHER).
layout(constant_id = WF_VK_SPEC_GATHER) const int WF_GATHER = WF_VK_GATHER;

const float kTwoPi = 6.28318530717958647692;

#ifndef WF_BATCH
// The element of this thread, or 0xffffffff past the end of the dispatch's range. Grids wider than
// 65535 groups continue in gl_WorkGroupID.y.
uint WfElement()
{
	uint local = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * WF_VK_GROUP_SIZE + gl_LocalInvocationID.x;
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
	if ((P.flags & WF_VK_FLAG_SPHERE) != 0u) {
		precise vec3 c = P.sphereCenter.xyz + S[substep].sphereMotion.xyz;
		precise float dx = x.x - c.x, dy = x.y - c.y, dz = x.z - c.z;
		precise float r = P.contactBand.x;
		precise float d2 = dx * dx + dy * dy + dz * dz;
		precise float r2 = r * r;
		if (d2 <= r2)
			return true;
	}
	return (P.flags & WF_VK_FLAG_FLOOR) != 0u && x.y <= P.contactBand.y;
}

bool WfFinite(float v) { return (floatBitsToUint(v) & 0x7f800000u) != 0x7f800000u; }

#ifndef WF_BATCH
float WfRest(uint k) { return uintBitsToFloat(con[k].z); }
#endif

// wfExternalAccel: gravity plus wind at the start of the substep.
vec3 WfExternalAccel(uint substep, uint column, float invMass)
{
	if ((P.flags & WF_VK_FLAG_WAVE) == 0u)
		return S[substep].accel.xyz;
	precise vec3 a = P.gravity.xyz;
	float t = S[substep].accel.w;
	float len = P.windDir.w;
	if (len > 0.0) {
		precise float f = P.windStrength * invMass / len *
			(0.5 + 0.5 * sin(kTwoPi * P.windFrequency * t + P.windPhasePerColumn * float(column)));
		a.x += P.windDir.x * f;
		a.y += P.windDir.y * f;
		a.z += P.windDir.z * f;
	}
	return a;
}

// Respond (cpu_stages.c): STOP zeroes the velocity; FRICTION removes the approaching normal part
// of the relative velocity and applies Coulomb friction to the tangential part.
void WfRespond(inout vec4 v, float nx, float ny, float nz, vec3 vs)
{
	if ((P.flags & WF_VK_FLAG_STOP) != 0u) {
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

// wfCpuCollide for one particle: out of the sphere and above the floor, then fix the velocity.
void WfCollide(inout vec4 x, inout vec4 v, uint substep)
{
	if (x.w == 0.0)
		return;
	if ((P.flags & WF_VK_FLAG_SPHERE) != 0u) {
		// The centre in the cloth's local frame: phase-0 centre plus the substep's motion (as the CPU).
		precise vec3 c = P.sphereCenter.xyz + S[substep].sphereMotion.xyz;
		float R = P.sphereR;
		precise float dx = x.x - c.x, dy = x.y - c.y, dz = x.z - c.z;
		precise float d2 = dx * dx + dy * dy + dz * dz;
		precise float RR = R * R;
		if (d2 < RR) {
			precise float d = sqrt(d2);
			precise float nx = 0.0, ny = 1.0, nz = 0.0;
			if (d > 1e-12) {
				nx = dx / d;
				ny = dy / d;
				nz = dz / d;
			}
			precise float px = c.x + nx * R, py = c.y + ny * R, pz = c.z + nz * R;
			x.x = px;
			x.y = py;
			x.z = pz;
			WfRespond(v, nx, ny, nz, S[substep].sphereVel.xyz);
		}
	}
	if ((P.flags & WF_VK_FLAG_FLOOR) != 0u && x.y < P.floorY) {
		x.y = P.floorY;
		WfRespond(v, 0.0, 1.0, 0.0, vec3(0.0));
	}
}
