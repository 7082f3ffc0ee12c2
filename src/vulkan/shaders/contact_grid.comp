#version 450
// The contact pass's grid stages, one per dispatch (wfGpuPush.flags, kernel_abi.h WF_GPU_CONTACT_*): the
// counts cleared (a frame's first grid: the scan leaves them 0), each particle's key and its rank
// in its cell (atomicAdd), the scatter into sorted order, each cell's list sorted by particle index
// (so every cell lists its particles in ascending order, as the CPU's counting sort does, whatever
// order the atomics ran in); and for cloth against cloth a cloth's particles copied into the
// world's arrays, and the pushes applied.
// The WGSL build (WF_WGSL) makes two modules of it, so that each binds at most WebGPU's default 8
// storage buffers (13 for all the stages): contact_grid with the grid's stages (clear, keys,
// scatter, sort: 7) and, with WF_CONTACT_MOVE, contact_grid_move with the others (export, apply: 8)
// (web/CMakeLists.txt); Vulkan's SPIR-V has every stage.
#if !defined(WF_WGSL) || !defined(WF_CONTACT_MOVE)
#define WF_GRID_STAGES
#endif
#if !defined(WF_WGSL) || defined(WF_CONTACT_MOVE)
#define WF_MOVE_STAGES
#endif
#include "common.glsl"
#include "contact.glsl"

void main()
{
	const uint e = WfElement();
	if (e == 0xffffffffu)
		return;
	const uint stage = pc.flags & WF_GPU_CONTACT_STAGE_MASK;
	const uint mask = pc.substep;
#ifdef WF_GRID_STAGES
	if (stage == WF_GPU_CONTACT_CLEAR) {
		cells[CP.counts + e] = 0u;
	} else if (stage == WF_GPU_CONTACT_KEYS) {
		// e is the particle's index in the contact arrays (its cloth's base + its index there).
		WfFileKey(e, (pc.flags & WF_GPU_CONTACT_WORLD) != 0u ? cx[e].xyz : pos[e].xyz, mask);
	} else if (stage == WF_GPU_CONTACT_SCATTER) {
		sorted[cells[cellKey[e]] + cellRank[e]] = e;
	} else if (stage == WF_GPU_CONTACT_SORT) {
		// Insertion sort of cell e's list: a cell holds a few particles.
		const uint first = cells[e], end = cells[e + 1u];
		for (uint a = first + 1u; a < end; ++a) {
			const uint v = sorted[a];
			uint b = a;
			while (b > first && sorted[b - 1u] > v) {
				sorted[b] = sorted[b - 1u];
				--b;
			}
			sorted[b] = v;
		}
	}
#endif
#if defined(WF_GRID_STAGES) && defined(WF_MOVE_STAGES)
	else
#endif
#ifdef WF_MOVE_STAGES
	if (stage == WF_GPU_CONTACT_EXPORT) {
		// Cloth against cloth: particle e of this cloth at its base in the world's arrays, in the
		// first cloth's frame (cpu_self.c wfCpuClothContacts), with its motion of the substep and its
		// cloth's per-pair switch.
		const uint i = e - pc.first; // WfElement counts from pc.first, the cloth's base
		const vec4 x = pos[i], p = prev[i];
		const uint g = e;
		precise vec4 y = vec4(x.x + P.contactX, x.y + P.contactY, x.z + P.contactZ, x.w);
		precise vec4 m = vec4(x.x - p.x, x.y - p.y, x.z - p.z, 0.0);
		cx[g] = y;
		motion[g] = m;
		owner[g] = uvec4(pc.first, P.collisionGroup, P.collisionMask, 0u);
	} else if (stage == WF_GPU_CONTACT_APPLY || stage == WF_GPU_CONTACT_APPLY_VEL) {
		const uint i = e - pc.first;
		const vec4 m = delta[e];
		if (m.w == 0.0)
			return;
		const vec4 x = pos[i];
		precise vec4 y = vec4(x.x + m.x, x.y + m.y, x.z + m.z, x.w);
		pos[i] = y;
		if ((pc.flags & WF_GPU_CONTACT_MOVES) != 0u) {
			vec4 v = vel[i];
			WfMoved(v, m.xyz, P.invH);
			vel[i] = v;
		}
		if (stage == WF_GPU_CONTACT_APPLY_VEL) {
			// The velocity as the solver derives it from positions (P.velFactor: 1 / h, Jacobi's retention / h).
			const vec4 v = vel[i];
			const float f = P.velFactor;
			precise vec4 u = vec4(v.x + f * m.x, v.y + f * m.y, v.z + f * m.z, v.w);
			vel[i] = u;
		}
	}
#endif
}
