// Fused small-cloth frame: ONE workgroup (up to 1024 invocations) runs every substep of a frame of one
// cloth (predict, every colour range of every iteration / every sweep / the spring forces, finish
// and collide), then the normals and the frame check, separated by workgroup barriers instead of
// dispatches. Included by fused_xpbd.comp, fused_jacobi.comp and fused_springs.comp, which define
// WF_FUSED_XPBD, WF_FUSED_JACOBI or WF_FUSED_SPRINGS.
//
// Where the state lives (the rule):
//   - invocation t of G owns particles t, t + G, t + 2G, t + 3G (WF_VK_FUSED_PER_THREAD = 4, so at
//     most 4096 particles with G = 1024): their velocities, substep-start positions and inverse masses stay in
//     registers for the whole frame; only what other invocations read is shared;
//   - positions: in shared memory as packed xyz floats when 3 n floats fit the shared array
//     (WF_VK_PUSH_SHARED; the array is the device's maxComputeSharedMemorySize: 48 KB = 4096
//     particles on the H200, 32 KB = 2730 on lavapipe), loaded at the frame start and written back
//     at the end; otherwise in the cloth's POS buffer (coherent, L1/L2-resident), updated in place;
//   - inverse masses of other particles: the POS buffer through a read-only binding (they do not
//     change during a frame);
//   - springs read the neighbours' velocities too: those go through the VEL buffer (coherent)
//     every substep, 4n floats more than fit in 48 KB next to the positions;
//   - XPBD lambda: never stored with one iteration per substep (it starts at 0 every substep and
//     the only pass reads that 0); with more, in the LAMBDA buffer, read and written only by the
//     invocation that owns the constraint (the mapping k -> invocation is the same every pass).
//
// Synchronisation: after a phase that writes state other invocations read, StateBarrier() =
// memoryBarrierShared() (state in shared memory) or memoryBarrierBuffer() (state in buffers),
// then barrier(); a phase that reads neighbours and then overwrites them in place (Jacobi sweep,
// springs) computes into registers, waits at barrier() and only then stores.
//
// Per frame (S substeps, I iterations, C colours): 1 dispatch per cloth, and barriers
//   XPBD    S (1 + I C) + 2     (60x60, 64 x 1, 12 colours: 834)
//   Jacobi  S (1 + 2 I) + 2
//   springs 2 S + 2             (compute-cloth 64 substeps: 130)
// Shared memory: the whole array (12288 floats = 48 KB on the H200), one workgroup per cloth.
// The arithmetic is the per-range kernels' (predict, xpbd_solve, jacobi_sweep, springs, finish,
// normals, check) expression for expression, all `precise`, in the same order: the result equals
// the CPU backend's as the per-range path's does.
#extension GL_EXT_control_flow_attributes : require
#define WF_FUSED 1
#include "common.glsl"

// Workgroup size and shared array size are specialization constants: a cloth of n particles runs
// in the smallest power-of-two group (32..1024) with 4 particles per invocation, with a shared
// array of min(12 x group size, the device's limit) floats.
layout(local_size_x_id = WF_VK_FUSED_SPEC_GROUP_SIZE) in;
layout(constant_id = WF_VK_FUSED_SPEC_SHARED_FLOATS) const uint kSharedFloats = WF_VK_FUSED_SHARED_FLOATS;

shared float sPos[kSharedFloats]; // (3 n) xyz of every particle when WF_VK_PUSH_SHARED

const uint kGroup = gl_WorkGroupSize.x;
const uint kPer = WF_VK_FUSED_PER_THREAD;

bool gShared; // uniform: positions in shared memory

vec3 LoadX(uint i)
{
	if (gShared)
		return vec3(sPos[3u * i], sPos[3u * i + 1u], sPos[3u * i + 2u]);
	return pos[i].xyz;
}

void StoreX(uint i, vec3 x)
{
	if (gShared) {
		sPos[3u * i] = x.x;
		sPos[3u * i + 1u] = x.y;
		sPos[3u * i + 2u] = x.z;
	} else {
		pos[i].xyz = x;
	}
}

// Everything written before is visible to every invocation of the workgroup after it.
void StateBarrier()
{
	if (gShared)
		memoryBarrierShared();
	else
		memoryBarrierBuffer();
#ifdef WF_FUSED_SPRINGS
	memoryBarrierBuffer(); // velocities
#endif
	barrier();
}

// The particles of this invocation: t + j * kGroup for j < kPer (below n).
vec3 gV[kPer];    // velocity
vec3 gPrev[kPer]; // position at the substep start
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
		gPrev[j] = x;
		float w = gW[j];
		if (w == 0.0) {
			if (int(i) == P.grabIndex)
				StoreX(i, P.grabTarget.xyz);
			continue;
		}
		vec3 a = WfExternalAccel(substep, i % P.cols, w);
		precise vec3 v = gV[j];
		if (damped) {
			precise float k = h * w * P.damping;
			v.x += h * a.x - k * v.x;
			v.y += h * a.y - k * v.y;
			v.z += h * a.z - k * v.z;
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

// finish.comp for the owned particles: v = factor (x - p), then collide.
void Finish(uint substep)
{
	uint t = gl_LocalInvocationID.x;
	float f = P.velFactor;
	bool collide = (P.flags & (WF_VK_FLAG_SPHERE | WF_VK_FLAG_FLOOR)) != 0u;
	[[unroll]] for (uint j = 0u; j < kPer; ++j) {
		uint i = t + j * kGroup;
		if (i >= P.particleCount)
			break;
		if (gW[j] == 0.0) {
			gV[j] = vec3(0.0);
			continue;
		}
		vec4 x = vec4(LoadX(i), gW[j]);
		vec3 p = gPrev[j];
		precise vec4 v = vec4((x.x - p.x) * f, (x.y - p.y) * f, (x.z - p.z) * f, 0.0);
		if (collide) {
			WfCollide(x, v, substep);
			StoreX(i, x.xyz);
		}
		gV[j] = v.xyz;
	}
}

#ifdef WF_FUSED_XPBD
// xpbd_solve.comp for constraint k. lambda is kept only when a later iteration reads it.
void Project(uint k, bool first, bool keepLambda)
{
	uvec4 q = con[k];
	vec3 ax = LoadX(q.x), bx = LoadX(q.y);
	float aw = posRead[q.x].w, bw = posRead[q.y].w;
	precise float wsum = aw + bw;
	precise float dx = ax.x - bx.x, dy = ax.y - bx.y, dz = ax.z - bx.z;
	precise float len = sqrt(dx * dx + dy * dy + dz * dz);
	if (wsum == 0.0 || len < 1e-12) {
		if (first && keepLambda)
			lambda[k] = 0.0;
		return;
	}
	float at = P.alphaTilde[q.w];
	float lam = first ? 0.0 : lambda[k];
	precise float dl = -(len - uintBitsToFloat(q.z) + at * lam) / (wsum + at);
	precise float nl = lam + dl;
	if (keepLambda)
		lambda[k] = nl;
	precise float s = dl / len;
	precise float sa = s * aw, sb = s * bw;
	precise vec3 na = vec3(ax.x + sa * dx, ax.y + sa * dy, ax.z + sa * dz);
	precise vec3 nb = vec3(bx.x - sb * dx, bx.y - sb * dy, bx.z - sb * dz);
	StoreX(q.x, na);
	StoreX(q.y, nb);
}

void Substep(uint substep, uint iterations)
{
	Predict(substep, true);
	StateBarrier();
	// Gauss-Seidel across colours: a barrier after every colour range.
	bool keepLambda = iterations > 1u;
	for (uint it = 0u; it < iterations; ++it) {
		for (uint c = 0u; c < P.colorCount; ++c) {
			uint end = P.colorStart[c + 1u];
			for (uint k = P.colorStart[c] + gl_LocalInvocationID.x; k < end; k += kGroup)
				Project(k, it == 0u, keepLambda);
			StateBarrier();
		}
	}
	Finish(substep);
}
#endif

#ifdef WF_FUSED_JACOBI
// jacobi_sweep.comp for particle i (dynamic), into a register.
vec3 SweepParticle(uint i, vec3 xi, float wi)
{
	precise float cx = 0.0, cy = 0.0, cz = 0.0;
	int end = adjStart[i + 1u];
	for (int e = adjStart[i]; e < end; ++e) {
		uint k = adjConstraint[e];
		uint o = adjOther[e];
		vec3 xj = LoadX(o);
		float wj = posRead[o].w;
		precise float dx = xj.x - xi.x, dy = xj.y - xi.y, dz = xj.z - xi.z;
		precise float len = sqrt(dx * dx + dy * dy + dz * dz);
		if (len < 1e-12)
			continue;
		precise float f = 2.0 * wi / (wi + wj);
		precise float g = jacobiWeight[k] * f * (len - WfRest(k)) / len;
		cx += g * dx;
		cy += g * dy;
		cz += g * dz;
	}
	float s = P.relaxation;
	precise vec3 y = vec3(xi.x + s * cx, xi.y + s * cy, xi.z + s * cz);
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
			if (i < P.particleCount && gW[j] != 0.0)
				y[j] = SweepParticle(i, LoadX(i), gW[j]);
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
		int end = adjStart[i + 1u];
		for (int e = adjStart[i]; e < end; ++e) {
			uint o = adjOther[e];
			vec3 xj = LoadX(o), vj = vel[o].xyz;
			precise float dx = xj.x - xi.x, dy = xj.y - xi.y, dz = xj.z - xi.z;
			precise float len = sqrt(dx * dx + dy * dy + dz * dz);
			if (len < 1e-12)
				continue;
			dx /= len;
			dy /= len;
			dz /= len;
			precise float spring = k * (len - WfRest(adjConstraint[e]));
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
		vel[i] = vec4(gV[j], 0.0);
	}
	StateBarrier();
}
#endif

void main()
{
	uint t = gl_LocalInvocationID.x;
	uint n = P.particleCount;
	gShared = (pc.flags & WF_VK_PUSH_SHARED) != 0u;
	uint substeps = pc.count, iterations = pc.first;

	// Frame start: owned particles into registers, positions into shared memory.
	[[unroll]] for (uint j = 0u; j < kPer; ++j) {
		uint i = t + j * kGroup;
		gV[j] = vec3(0.0);
		gPrev[j] = vec3(0.0);
		gW[j] = 0.0;
		if (i >= n)
			continue;
		vec4 x = pos[i];
		gW[j] = x.w;
		gV[j] = vel[i].xyz;
		if (gShared)
			StoreX(i, x.xyz);
	}
	StateBarrier();

	for (uint s = 0u; s < substeps; ++s)
		Substep(s, iterations);

	// Frame end: the state back to the buffers (springs wrote the velocities already).
	[[unroll]] for (uint j = 0u; j < kPer; ++j) {
		uint i = t + j * kGroup;
		if (i >= n)
			break;
		if (gShared)
			pos[i] = vec4(LoadX(i), gW[j]);
		vel[i] = vec4(gV[j], 0.0);
	}
	StateBarrier();

	// normals.comp and check.comp for the owned particles.
	[[unroll]] for (uint j = 0u; j < kPer; ++j) {
		uint i = t + j * kGroup;
		if (i >= n)
			break;
		precise float sx = 0.0, sy = 0.0, sz = 0.0;
		int end = triStart[i + 1u];
		for (int e = triStart[i]; e < end; ++e) {
			uint tri = triList[e];
			vec3 p0 = LoadX(indices[3u * tri]), p1 = LoadX(indices[3u * tri + 1u]), p2 = LoadX(indices[3u * tri + 2u]);
			precise float ax = p1.x - p0.x, ay = p1.y - p0.y, az = p1.z - p0.z;
			precise float bx = p2.x - p0.x, by = p2.y - p0.y, bz = p2.z - p0.z;
			sx += ay * bz - az * by;
			sy += az * bx - ax * bz;
			sz += ax * by - ay * bx;
		}
		precise float len = sqrt(sx * sx + sy * sy + sz * sz);
		precise vec4 nrm = vec4(0.0, 1.0, 0.0, 0.0);
		if (len > 1e-20)
			nrm = vec4(sx / len, sy / len, sz / len, 0.0);
		normals[i] = nrm;

		vec3 x = LoadX(i), v = gV[j];
		precise float sum = x.x + x.y + x.z + v.x + v.y + v.z;
		if ((floatBitsToUint(sum) & 0x7f800000u) == 0x7f800000u)
			atomicMin(status.firstNonFinite, i);
		else if (abs(v.x) > 1e4 || abs(v.y) > 1e4 || abs(v.z) > 1e4)
			atomicMin(status.firstUnstable, i);
	}
}
