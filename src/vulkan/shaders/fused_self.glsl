// Self-collision inside the fused frame (fused.glsl; cpu_self.c wfCpuSelfCollide, as the per-range
// contact_grid.comp, contact_scan.comp and contact_gather.comp do it across dispatches): the
// workgroup files its cloth's particles into a hash grid in shared memory, then each invocation
// gathers the pushes on its particles with the CPU's Jacobi pass and moves them. Each particle sums
// its contacts in the CPU's order (the 27 cells in the CPU's order, a cell's particles ascending):
// the CPU's bits. Phases, a barrier after each: the cell starts cleared; each particle's key and
// its rank in its cell (a shared atomicAdd on the cell's count); the counts summed in place (a
// chunk per invocation, then 32 block sums); the scatter; each cell's list sorted; the gather into
// registers; the pushes applied. 9 barriers a substep, no dispatch.

layout(constant_id = WF_GPU_FUSED_SPEC_HASH_WORDS) const uint kHashWords = 1u;
// The sorted list at [0, 4 G) (the scan's chunk and block sums borrow it before the scatter), then
// the cell starts as 16-bit halves (a start is at most n <= 4 G): start[k] is half k + 1 of the
// words from kStarts on (StartAt), the count of cell k at start[k + 1] until the scan. Half 0 is
// unused, so that each invocation's chunk of the scan is whole words.
shared uint sHash[kHashWords];
const uint kStarts = kPer * kGroup;

uint StartAt(uint k)
{
	const uint h = k + 1u;
	return (sHash[kStarts + (h >> 1u)] >> ((h & 1u) << 4u)) & 0xffffu;
}

#define SELF slotsRO[gl_WorkGroupID.x].self
#define REST_POS(i) arena4[gAt[WF_GPU_SLOT_REST] + (i)]
#define PREV(i) arena4[gAt[WF_GPU_SLOT_PREV] + (i)]

// Whether this cloth collides with itself this frame (uniform).
bool SelfOn()
{
	return kHashWords > 1u && SELF.distance > 0.0;
}

// The push on particle i (inverse mass wi > 0) from every particle closer than the contact distance
// and not excluded by the rest shape, averaged over its contacts (w = 1), or 0 (w = 0).
vec4 SelfGather(uint i, vec3 xi, float wi, bool friction)
{
	const float d = SELF.distance, invCell = SELF.invCell, mu = SELF.friction;
	const uint mask = SELF.mask;
	precise float d2 = d * d;
	precise float exclude2 = SELF.exclude * SELF.exclude;
	const vec3 ri = REST_POS(i).xyz;
	const vec3 pi = friction ? PREV(i).xyz : vec3(0.0);
	const int cx = WfCellOf(xi.x, invCell), cy = WfCellOf(xi.y, invCell), cz = WfCellOf(xi.z, invCell);
	// Row q = 3 (dz + 1) + dy + 1 of the 27 cells, in the CPU's order, has the keys (base[q] + e) & mask
	// for e = dx + 1 from 0 to 2 (WfCellKey unmasked, then masked). A key met before is not walked
	// again (cpu_self.c NeighbourKeys); two rows can share a key only when their bases are within 2
	// of each other (mod the hash's size), and only then are the keys compared (visit: bit 3 q + e).
	uint base[9];
	[[unroll]] for (int q = 0; q < 9; ++q)
		base[q] = WfCellKey(cx - 1, cy + q % 3 - 1, cz + q / 3 - 1, 0xffffffffu);
	bool close = false;
	[[unroll]] for (int q = 1; q < 9; ++q) {
		[[unroll]] for (int r = 0; r < q; ++r)
			close = close || ((base[q] - base[r] + 2u) & mask) <= 4u;
	}
	uint visit = 0x7ffffffu;
	if (close) {
		visit = 0u;
		[[unroll]] for (int q = 0; q < 9; ++q) {
			[[unroll]] for (uint e = 0u; e < 3u; ++e) {
				const uint key = (base[q] + e) & mask;
				bool seen = false;
				[[unroll]] for (int r = 0; r <= q; ++r)
					seen = seen || ((key - base[r]) & mask) < (r < q ? 3u : e);
				visit |= seen ? 0u : 1u << (3u * uint(q) + e);
			}
		}
	}
	vec3 sum = vec3(0.0);
	int contacts = 0;
	for (int q = 0; q < 9; ++q) {
		const uint row = (visit >> (3u * uint(q))) & 7u;
		const uint k0 = WfCellKey(cx - 1, cy + q % 3 - 1, cz + q / 3 - 1, mask);
		// Three keys in a row, none past the mask: their lists are one run of the sorted list.
		const bool run = row == 7u && k0 + 2u <= mask;
		for (uint e = 0u; e < 3u; ++e) {
			if ((row & (1u << e)) == 0u || (run && e > 0u))
				continue;
			const uint key = (k0 + e) & mask;
			const uint end = StartAt(key + (run ? 3u : 1u));
			for (uint at = StartAt(key); at < end; ++at) {
				const uint j = sHash[at];
				if (j == i)
					continue;
				const vec3 xj = LoadX(j);
				precise float ex = xi.x - xj.x, ey = xi.y - xj.y, ez = xi.z - xj.z;
				precise float dist2 = ex * ex + ey * ey + ez * ez;
				if (dist2 >= d2)
					continue;
				const vec3 rj = REST_POS(j).xyz;
				precise float rx = ri.x - rj.x, ry = ri.y - rj.y, rz = ri.z - rj.z;
				precise float r2 = rx * rx + ry * ry + rz * rz;
				if (r2 < exclude2)
					continue;
				precise float dist = sqrt(dist2);
				if (!(dist > 1e-9))
					continue;
				precise vec3 m = vec3(0.0);
				if (friction) {
					const vec3 pj = PREV(j).xyz;
					m = vec3((xi.x - pi.x) - (xj.x - pj.x), (xi.y - pi.y) - (xj.y - pj.y), (xi.z - pi.z) - (xj.z - pj.z));
				}
				const float wj = Weight(j);
				precise float share = wi / (wi + wj);
				WfPairPush(ex, ey, ez, dist, d, share, friction, mu, m, sum);
				contacts++;
			}
		}
	}
	if (contacts == 0)
		return vec4(0.0);
	const float c = float(contacts);
	precise vec4 push = vec4(sum.x / c, sum.y / c, sum.z / c, 1.0);
	return push;
}

// The self-collision pass of a substep, after the solve (XPBD, Jacobi; springs after their
// integration, without friction: the CPU passes no previous positions there). `moves`: a push
// also goes into the substep's velocity (kMoves, wfCpuMoved).
void SelfCollide(bool friction, bool moves)
{
	const uint t = gl_LocalInvocationID.x, n = P.particleCount, mask = SELF.mask;
	const uint cells = mask + 1u;
	// The starts cleared (halves 0 to cells + 1); the previous positions (Predict's PREV) visible.
	for (uint w = t; w <= cells / 2u; w += kGroup)
		sHash[kStarts + w] = 0u;
	memoryBarrierBuffer();
	memoryBarrierShared();
	barrier();
	// Keys and ranks (cpu_self.c CellKeys), kept in registers for the scatter.
	const float invCell = SELF.invCell;
	uint key[kPer], rank[kPer];
	[[unroll]] for (uint j = 0u; j < kPer; ++j) {
		const uint i = t + j * kGroup;
		key[j] = 0u;
		rank[j] = 0u;
		if (i >= n)
			continue;
		const vec3 x = LoadX(i);
		key[j] = WfCellKey(WfCellOf(x.x, invCell), WfCellOf(x.y, invCell), WfCellOf(x.z, invCell), mask);
		const uint h = key[j] + 2u, shift = (h & 1u) << 4u; // start[key + 1]'s half
		rank[j] = (atomicAdd(sHash[kStarts + (h >> 1u)], 1u << shift) >> shift) & 0xffffu;
	}
	memoryBarrierShared();
	barrier();
	// The counts at [1, cells] summed in place (an inclusive scan: start[k] is where cell k's list
	// begins): each invocation's chunk (an even count of starts from an odd one: whole words),
	// then 32 blocks of kGroup / 32 chunk sums. Integers: exact.
	const uint chunk = cells > 2u * kGroup ? cells / kGroup : 2u, first = 1u + t * chunk;
	uint own = 0u;
	for (uint e = first; e < first + chunk && e <= cells; ++e)
		own += StartAt(e);
	sHash[t] = own;
	memoryBarrierShared();
	barrier();
	const uint block = kGroup / 32u;
	if (t < 32u) {
		uint s = 0u;
		for (uint q = t * block; q < t * block + block; ++q)
			s += sHash[q];
		sHash[kGroup + t] = s;
	}
	memoryBarrierShared();
	barrier();
	uint run = 0u;
	for (uint b = 0u; b < t / block; ++b)
		run += sHash[kGroup + b];
	for (uint q = t / block * block; q < t; ++q)
		run += sHash[q];
	for (uint e = first; e < first + chunk && e <= cells; e += 2u) { // starts e and e + 1 (cells is even)
		const uint at = kStarts + ((e + 1u) >> 1u), word = sHash[at];
		const uint low = run + (word & 0xffffu);
		run = low + (word >> 16u);
		sHash[at] = low | (run << 16u);
	}
	memoryBarrierShared();
	barrier();
	// The scatter, then each cell's list in ascending order (cpu_self.c SortByCell fills them so).
	[[unroll]] for (uint j = 0u; j < kPer; ++j) {
		const uint i = t + j * kGroup;
		if (i < n)
			sHash[StartAt(key[j]) + rank[j]] = i;
	}
	memoryBarrierShared();
	barrier();
	for (uint k = t; k < cells; k += kGroup) {
		const uint start = StartAt(k), end = StartAt(k + 1u);
		for (uint a = start + 1u; a < end; ++a) {
			const uint v = sHash[a];
			uint b = a;
			while (b > start && sHash[b - 1u] > v) {
				sHash[b] = sHash[b - 1u];
				--b;
			}
			sHash[b] = v;
		}
	}
	memoryBarrierShared();
	barrier();
	// The gather for every owned particle before any moves.
	vec4 push[kPer];
	for (uint j = 0u; j < kPer; ++j) {
		const uint i = t + j * kGroup;
		push[j] = vec4(0.0);
		if (i < n && gW[j] != 0.0)
			push[j] = SelfGather(i, LoadX(i), gW[j], friction && SELF.friction > 0.0);
	}
	barrier();
	[[unroll]] for (uint j = 0u; j < kPer; ++j) {
		const uint i = t + j * kGroup;
		if (i >= n || push[j].w == 0.0)
			continue;
		const vec3 x = LoadX(i), m = push[j].xyz;
		precise vec3 y = vec3(x.x + m.x, x.y + m.y, x.z + m.z);
		StoreX(i, y);
		if (moves) {
			vec4 v = vec4(gV[j], 0.0);
			WfMoved(v, m, P.invH);
			gV[j] = v.xyz;
		}
	}
	StateBarrier();
}
