#version 450
// The exclusive prefix sum of the cell counts, work-efficient across workgroups (reduce, then
// scan, then add back): WF_GPU_CONTACT_SCAN_UP scans each block of WF_GPU_SCAN_BLOCK counts in
// place (each invocation sums its 4, a Blelloch up- and down-sweep over the 256 sums in shared
// memory, then its 4 written with the running sum) and writes the block's total to the next level;
// the host scans that level the same way until one block holds it, then WF_GPU_CONTACT_SCAN_DOWN
// adds each block's scanned total to its counts, level by level back down. Where one block holds
// the sums, the down stage sums those before its block itself (WF_GPU_CONTACT_SUMS_RAW) instead.
// Integers: exact in any order. pc.first: the array's offset in cells[], pc.count its length,
// pc.substep the offset of its block sums. WF_GPU_CONTACT_COUNTS (the first level): the values are
// read from the counts (CP.counts) and those are left 0, ready for the next grid's keys.
#define WF_OWN_GROUP_SIZE
#include "common.glsl"

layout(local_size_x = WF_GPU_SCAN_GROUP) in;

shared uint partial[WF_GPU_SCAN_GROUP];

void main()
{
	const uint group = WfGroup();
	const uint t = gl_LocalInvocationID.x;
	const uint at = group * WF_GPU_SCAN_BLOCK + 4u * t; // this invocation's first element
	if ((pc.flags & WF_GPU_CONTACT_STAGE_MASK) == WF_GPU_CONTACT_SCAN_DOWN) {
		uint add;
		if ((pc.flags & WF_GPU_CONTACT_SUMS_RAW) != 0u) {
			// The block sums as written (at most WF_GPU_SCAN_BLOCK of them): those before this
			// block summed by the workgroup, in place of a dispatch that scans them.
			uint before = 0u;
			for (uint q = t; q < group; q += WF_GPU_SCAN_GROUP)
				before += cells[pc.substep + q];
			partial[t] = before;
			barrier();
			for (uint d = WF_GPU_SCAN_GROUP / 2u; d >= 1u; d >>= 1u) {
				if (t < d)
					partial[t] += partial[t + d];
				barrier();
			}
			add = partial[0];
		} else {
			add = cells[pc.substep + group];
		}
		for (uint k = 0u; k < 4u; ++k) {
			if (at + k < pc.count)
				cells[pc.first + at + k] += add;
		}
		return;
	}
	const bool counts = (pc.flags & WF_GPU_CONTACT_COUNTS) != 0u;
	const uint from = counts ? CP.counts : pc.first;
	uint v[4];
	uint sum = 0u;
	for (uint k = 0u; k < 4u; ++k) {
		v[k] = at + k < pc.count ? cells[from + at + k] : 0u;
		sum += v[k];
		if (counts && at + k < pc.count)
			cells[from + at + k] = 0u;
	}
	partial[t] = sum;
	barrier();
	// Up-sweep: partial[(t + 1) 2d - 1] gathers the sum of its subtree.
	for (uint d = 1u; d < WF_GPU_SCAN_GROUP; d <<= 1u) {
		const uint ai = (t + 1u) * 2u * d - 1u;
		if (ai < WF_GPU_SCAN_GROUP)
			partial[ai] += partial[ai - d];
		barrier();
	}
	const uint total = partial[WF_GPU_SCAN_GROUP - 1u];
	barrier();
	if (t == 0u)
		partial[WF_GPU_SCAN_GROUP - 1u] = 0u;
	barrier();
	// Down-sweep: each node hands its prefix to its left child and prefix + left sum to its right.
	for (uint d = WF_GPU_SCAN_GROUP / 2u; d >= 1u; d >>= 1u) {
		const uint ai = (t + 1u) * 2u * d - 1u;
		if (ai < WF_GPU_SCAN_GROUP) {
			const uint left = partial[ai - d];
			partial[ai - d] = partial[ai];
			partial[ai] += left;
		}
		barrier();
	}
	uint run = partial[t];
	for (uint k = 0u; k < 4u; ++k) {
		if (at + k < pc.count)
			cells[pc.first + at + k] = run;
		run += v[k];
	}
	if (t == 0u)
		cells[pc.substep + group] = total;
}
