// Self-collision (wfSelfCollisionDef): particles of a cloth kept 2 thickness apart, pairs near in the
// rest shape excluded. A uniform hash grid of cell 2 thickness as sorted cell lists, then a Jacobi
// pass: each particle gathers its share of every overlap it takes part in (and the pair's friction),
// averaged over its contacts, and all particles move together, so the result does not depend on the
// order or on the threads.
#include "cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// A cell's key: its row (y, z) hashed, plus x, so that the three cells of a row that a particle's
// neighbourhood spans have consecutive keys and their starts share a cache line.
static uint32_t CellKey(int x, int y, int z, uint32_t mask)
{
	uint32_t h = ((uint32_t)y * 19349663u ^ (uint32_t)z * 83492791u) + (uint32_t)x;
	return h & mask;
}

// The cell of a coordinate, clamped into int range (a far or non-finite particle shares an edge
// cell; the frame check catches it anyway).
static int CellOf(float v, float inv)
{
	const float c = floorf(v * inv);
	return c > 1e9f ? 1000000000 : c < -1e9f ? -1000000000 : c == c ? (int)c : 0;
}

// The cell key of each of n positions, and the count of each key in start[key + 1] (start has
// mask + 2 entries), on the threads of the team (one outside a parallel region).
static void CellKeys(const wfVec4* x, int n, float inv, uint32_t mask, uint32_t* key, int* start)
{
	const int buckets = (int)mask + 1;
#pragma omp for schedule(static)
	for (int k = 0; k <= buckets; ++k)
		start[k] = 0;
#pragma omp for schedule(static)
	for (int i = 0; i < n; ++i) {
		key[i] = CellKey(CellOf(x[i].x, inv), CellOf(x[i].y, inv), CellOf(x[i].z, inv), mask);
#pragma omp atomic update
		start[key[i] + 1u]++;
	}
}

// The counting sort of the n particles by those keys, on one thread: the counts summed so that
// start[k + 1] is where bucket k begins, then the particles filled in in order (a bucket keeps
// them ascending), which leaves start[k + 1] at bucket k's end: where bucket k + 1 begins.
static void SortByCell(int n, uint32_t mask, int* start, int* sorted, const uint32_t* key)
{
	int sum = 0;
	for (uint32_t k = 1; k <= mask + 1u; ++k) {
		const int count = start[k];
		start[k] = sum;
		sum += count;
	}
	start[0] = 0;
	for (int i = 0; i < n; ++i)
		sorted[start[key[i] + 1u]++] = i;
}

// The keys of the 27 cells around position x, each once (two cells may share a key), in the order
// of their first appearance (dz, dy, dx from -1 to 1); returns how many. A key's bit in a 256-bit
// filter says whether it may have been seen: only then are the keys so far compared (rare: 27 keys
// in 256 bits), where comparing every pair cost most of the pass.
static int NeighbourKeys(wfVec4 x, float inv, uint32_t mask, uint32_t keys[27])
{
	const int cx = CellOf(x.x, inv), cy = CellOf(x.y, inv), cz = CellOf(x.z, inv);
	uint32_t hx[3], hy[3], hz[3]; // CellKey's terms
	for (int d = 0; d < 3; ++d) {
		hx[d] = (uint32_t)(cx + d - 1);
		hy[d] = (uint32_t)(cy + d - 1) * 19349663u;
		hz[d] = (uint32_t)(cz + d - 1) * 83492791u;
	}
	uint64_t filter[4] = {0, 0, 0, 0};
	int count = 0;
	for (int dz = 0; dz < 3; ++dz)
		for (int dy = 0; dy < 3; ++dy)
			for (int dx = 0; dx < 3; ++dx) {
				const uint32_t k = ((hy[dy] ^ hz[dz]) + hx[dx]) & mask;
				const uint64_t bit = (uint64_t)1 << (k & 63u);
				uint64_t* word = &filter[(k >> 6) & 3u];
				bool seen = false;
				if (*word & bit) {
					for (int q = 0; q < count && !seen; ++q)
						seen = keys[q] == k;
				}
				*word |= bit;
				if (!seen)
					keys[count++] = k;
			}
	return count;
}

// Adds the push on particle i of an overlapping pair at separation e (from j to i, |e| = dist < d):
// its share (by inverse mass) of the overlap along e, less Coulomb friction on the pair's relative
// motion m of the substep (NULL: none), its tangential part cancelled up to mu times the push.
static void AddPairPush(float ex, float ey, float ez, float dist, float d, float share, float mu, const float* m, float acc[3])
{
	const float nx = ex / dist, ny = ey / dist, nz = ez / dist;
	const float push = share * (d - dist);
	float ox = nx * push, oy = ny * push, oz = nz * push;
	if (m != NULL) {
		const float mn = m[0] * nx + m[1] * ny + m[2] * nz;
		const float tx = m[0] - mn * nx, ty = m[1] - mn * ny, tz = m[2] - mn * nz;
		const float tl = sqrtf(tx * tx + ty * ty + tz * tz);
		if (tl > 1e-12f) {
			const float k = share * fminf(1.0f, mu * (d - dist) / tl);
			ox -= tx * k;
			oy -= ty * k;
			oz -= tz * k;
		}
	}
	acc[0] += ox;
	acc[1] += oy;
	acc[2] += oz;
}

// The particles of the 5 x 5 x 5 cells around position x as runs of `sorted`, in the continuous
// passes' order (dz, dy, dx from -2 to 2, each cell's particles ascending; a key met twice is walked
// twice): a row whose five keys follow each other (none past the mask) is one run, as its cells'
// lists are adjacent. runs[q] = {first, end}; returns how many (at most 125).
static int WideRuns(wfVec4 x, float inv, uint32_t mask, const int* start, int runs[125][2])
{
	const int cx = CellOf(x.x, inv), cy = CellOf(x.y, inv), cz = CellOf(x.z, inv);
	int count = 0;
	for (int dz = -2; dz <= 2; ++dz)
		for (int dy = -2; dy <= 2; ++dy) {
			const uint32_t k0 = CellKey(cx - 2, cy + dy, cz + dz, mask);
			const bool run = k0 + 4u <= mask;
			for (int dx = -2; dx <= (run ? -2 : 2); ++dx) {
				const uint32_t k = run ? k0 : CellKey(cx + dx, cy + dy, cz + dz, mask);
				runs[count][0] = start[k];
				runs[count][1] = start[run ? k0 + 5u : k + 1u];
				++count;
			}
		}
	return count;
}

// Whether a walk of the 5 x 5 x 5 cells around cell (cx, cy, cz) reads particle q (at x now, at
// key `stored` in the grid): its cell now in the block and still the cell the grid filed it under.
// One that moved to another cell since the grid was built (the particle contacts and the
// point-triangle pass move particles) counts as outside: its list may be one the walk skips.
static inline bool Walked(wfVec4 x, uint32_t stored, int cx, int cy, int cz, float inv, uint32_t mask)
{
	const int qx = CellOf(x.x, inv);
	if (abs(qx - cx) > 2)
		return false;
	const int qy = CellOf(x.y, inv);
	if (abs(qy - cy) > 2)
		return false;
	const int qz = CellOf(x.z, inv);
	return abs(qz - cz) <= 2 && CellKey(qx, qy, qz, mask) == stored;
}

// Continuous point-triangle pass (after the particle contacts): a particle that crossed the plane of a
// triangle of its cloth within the substep, inside the triangle, goes back to the side it came from,
// the contact distance d off the plane. What particle contacts miss when a fold moves more than the
// contact distance in a substep (a torn flap snapping back). The crossing is found on the substep's
// motion taken as linear: the signed distances to the plane at the start (prev) and at the end (pos)
// differ in sign, and at the time the linear interpolation of the distance is zero the particle lies
// inside the triangle interpolated to that time. Candidates: the triangles of the particles in the
// 5 x 5 x 5 cells around the particle (the particle and the triangle are near each other at the end
// of a crossing); the triangles at the particle itself, or at a copy of its particle of the untorn
// cloth, are skipped. The deepest crossing wins; all particles move together (order- and
// thread-free). Nothing changes where nothing crossed, so scenes without crossings keep their bits.
// Each pushed particle moved by its push (state.selfDelta, w = 1 where one was found); with
// invH != 0 (XPBD, Jacobi: inside the substep) the push goes into the substep's velocity too
// (wfCpuMoved). Inside a parallel region.
static void ApplyPushes(wfCloth* c, float invH)
{
	const int n = c->model.particleCount;
	wfVec4* restrict pos = c->state.pos;
	wfVec4* restrict vel = c->state.vel;
	const wfVec4* restrict delta = c->state.selfDelta;
#pragma omp for schedule(static)
	for (int i = 0; i < n; ++i) {
		if (delta[i].w == 0.0f)
			continue;
		pos[i].x += delta[i].x;
		pos[i].y += delta[i].y;
		pos[i].z += delta[i].z;
		if (invH != 0.0f)
			wfCpuMoved(&vel[i], invH, delta[i].x, delta[i].y, delta[i].z);
	}
}

static void PointTriangle(wfCloth* c, const wfVec4* prev, float d, float inv, uint32_t mask, float invH)
{
	const int n = c->model.particleCount;
	wfVec4* restrict pos = c->state.pos;
	const int* restrict start = c->state.hashStart;
	const int* restrict sorted = c->state.hashSorted;
	wfVec4* restrict delta = c->state.selfDelta;
	const uint32_t* tri = c->model.indices;
	const int* triStart = c->model.triStart;
	const uint32_t* triList = c->model.triList;
	const int* source = c->source;
#pragma omp for schedule(dynamic, WF_CPU_CONTACT_CHUNK)
	for (int i = 0; i < n; ++i) {
		const wfVec4 xi = pos[i], pi = prev[i];
		delta[i] = (wfVec4){0.0f, 0.0f, 0.0f, 0.0f};
		if (xi.w == 0.0f)
			continue;
		const int si = source != NULL ? source[i] : i;
		int runs[125][2];
		const int count = WideRuns(xi, inv, mask, start, runs);
		float deepest = 0.0f;
		for (int span = 0; span < count; ++span)
			for (int e = runs[span][0]; e < runs[span][1]; ++e) {
				const int j = sorted[e];
				for (int r = triStart[j]; r < triStart[j + 1]; ++r) {
					const uint32_t* t = &tri[3 * triList[r]];
					bool own = false;
					for (int q = 0; q < 3 && !own; ++q)
						own = (uint32_t)i == t[q] || (source != NULL ? source[t[q]] : (int)t[q]) == si;
					if (own)
						continue;
					const wfVec4 a0 = prev[t[0]], b0 = prev[t[1]], c0 = prev[t[2]];
					const wfVec4 a1 = pos[t[0]], b1 = pos[t[1]], c1 = pos[t[2]];
					// The planes at the start and the end of the substep, and the signed distances.
					float n0[3] = {(b0.y - a0.y) * (c0.z - a0.z) - (b0.z - a0.z) * (c0.y - a0.y),
						(b0.z - a0.z) * (c0.x - a0.x) - (b0.x - a0.x) * (c0.z - a0.z),
						(b0.x - a0.x) * (c0.y - a0.y) - (b0.y - a0.y) * (c0.x - a0.x)};
					float n1[3] = {(b1.y - a1.y) * (c1.z - a1.z) - (b1.z - a1.z) * (c1.y - a1.y),
						(b1.z - a1.z) * (c1.x - a1.x) - (b1.x - a1.x) * (c1.z - a1.z),
						(b1.x - a1.x) * (c1.y - a1.y) - (b1.y - a1.y) * (c1.x - a1.x)};
					const float l0 = sqrtf(n0[0] * n0[0] + n0[1] * n0[1] + n0[2] * n0[2]);
					const float l1 = sqrtf(n1[0] * n1[0] + n1[1] * n1[1] + n1[2] * n1[2]);
					if (!(l0 > 1e-12f) || !(l1 > 1e-12f))
						continue;
					const float d0 = ((pi.x - a0.x) * n0[0] + (pi.y - a0.y) * n0[1] + (pi.z - a0.z) * n0[2]) / l0;
					const float d1 = ((xi.x - a1.x) * n1[0] + (xi.y - a1.y) * n1[1] + (xi.z - a1.z) * n1[2]) / l1;
					if ((d0 > 0.0f) == (d1 > 0.0f) || d0 == 0.0f)
						continue;
					// Where the distance crosses zero: the particle inside the triangle then?
					const float s = d0 / (d0 - d1);
					const float px = pi.x + s * (xi.x - pi.x), py = pi.y + s * (xi.y - pi.y), pz = pi.z + s * (xi.z - pi.z);
					const float ax = a0.x + s * (a1.x - a0.x), ay = a0.y + s * (a1.y - a0.y), az = a0.z + s * (a1.z - a0.z);
					const float ux = b0.x + s * (b1.x - b0.x) - ax, uy = b0.y + s * (b1.y - b0.y) - ay, uz = b0.z + s * (b1.z - b0.z) - az;
					const float vx = c0.x + s * (c1.x - c0.x) - ax, vy = c0.y + s * (c1.y - c0.y) - ay, vz = c0.z + s * (c1.z - c0.z) - az;
					const float wx = px - ax, wy = py - ay, wz = pz - az;
					const float uu = ux * ux + uy * uy + uz * uz, uv = ux * vx + uy * vy + uz * vz, vv = vx * vx + vy * vy + vz * vz;
					const float wu = wx * ux + wy * uy + wz * uz, wv = wx * vx + wy * vy + wz * vz;
					const float den = uu * vv - uv * uv;
					if (!(den > 0.0f))
						continue;
					const float beta = (vv * wu - uv * wv) / den, gamma = (uu * wv - uv * wu) / den;
					if (beta < 0.0f || gamma < 0.0f || beta + gamma > 1.0f)
						continue;
					// Back to the side it came from, d off the end plane; the deepest crossing wins.
					if (fabsf(d1) <= deepest)
						continue;
					deepest = fabsf(d1);
					const float back = (d0 > 0.0f ? d : -d) - d1;
					delta[i] = (wfVec4){back * n1[0] / l1, back * n1[1] / l1, back * n1[2] / l1, 1.0f};
				}
			}
	}
	ApplyPushes(c, invH);
}

// The particle of the untorn cloth that particle i was split from (itself where it never tore).
static inline int SourceOf(const int* source, uint32_t i) { return source != NULL ? source[i] : (int)i; }

// The box that the edge from a0, b0 (substep start) to a1, b1 (its end) sweeps.
static inline void SweptBox(wfVec4 a0, wfVec4 b0, wfVec4 a1, wfVec4 b1, float lo[3], float hi[3])
{
	lo[0] = fminf(fminf(a0.x, b0.x), fminf(a1.x, b1.x));
	lo[1] = fminf(fminf(a0.y, b0.y), fminf(a1.y, b1.y));
	lo[2] = fminf(fminf(a0.z, b0.z), fminf(a1.z, b1.z));
	hi[0] = fmaxf(fmaxf(a0.x, b0.x), fmaxf(a1.x, b1.x));
	hi[1] = fmaxf(fmaxf(a0.y, b0.y), fmaxf(a1.y, b1.y));
	hi[2] = fmaxf(fmaxf(a0.z, b0.z), fmaxf(a1.z, b1.z));
}

// Continuous edge-edge pass (after the point-triangle pass): two edges of the cloth's triangles that
// passed through each other within the substep, with neither end through a triangle (what the
// point-triangle pass cannot see: two folds crossing edge on), go back to the sides they came
// from, the contact distance d apart. For edges e = (a, b) and f = (c, g) the signed distance of
// their lines along e x f, V = (a - c) . (e x f) / |e x f|, at the start (prev) and the end (pos) of
// the substep; a change of sign, the normals not flipped, is a crossing of the lines at the time s
// where the linear interpolation of V is zero, and of the edges where the lines' closest points
// at that time lie inside both. The response is the projection of C = n . (p - q) = sign d along
// the end normal n (p, q the closest points at the crossing's parameters u, w; gradients (1 - u) n,
// u n, -(1 - w) n, -w n; inverse-mass weighted). Each particle takes its own share of the deepest
// crossing among its edges (particle-centred, so order- and thread-free; the pair's other
// particles find the same crossing from their side); nothing changes where nothing crossed. The
// edges at a particle are its partner rows in the model (wfClothModel.partnerStart, built with the
// triangle rows, again when the cloth tears), in the order of its triangles and their corners:
// recomputing them for every candidate cost most of the pass.
static void EdgeEdge(wfCloth* c, const wfVec4* prev, float d, float inv, uint32_t mask, float invH)
{
	const wfClothModel* m = &c->model;
	const uint32_t* restrict key = c->state.hashKey;
	const int n = m->particleCount;
	wfVec4* restrict pos = c->state.pos;
	const int* restrict start = c->state.hashStart;
	const int* restrict sorted = c->state.hashSorted;
	wfVec4* restrict delta = c->state.selfDelta;
	const int* source = c->source;
#pragma omp for schedule(dynamic, WF_CPU_CONTACT_CHUNK)
	for (int i = 0; i < n; ++i) {
		const wfVec4 a0 = prev[i], a1 = pos[i];
		delta[i] = (wfVec4){0.0f, 0.0f, 0.0f, 0.0f};
		if (a1.w == 0.0f)
			continue;
		// Particle i's edges (the model's partner rows) and the boxes they sweep, and the box of them all.
		const uint32_t* partner = &m->partnerList[m->partnerStart[i]];
		const int partners = m->partnerStart[i + 1] - m->partnerStart[i];
		float elo[WF_MAX_EDGE_PARTNERS][3], ehi[WF_MAX_EDGE_PARTNERS][3];
		float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
		for (int q = 0; q < partners; ++q) {
			SweptBox(a0, prev[partner[q]], a1, pos[partner[q]], elo[q], ehi[q]);
			for (int k = 0; k < 3; ++k) {
				lo[k] = fminf(lo[k], elo[q][k]);
				hi[k] = fmaxf(hi[k], ehi[q][k]);
			}
		}
		const int si = SourceOf(source, (uint32_t)i);
		const int cx = CellOf(a1.x, inv), cy = CellOf(a1.y, inv), cz = CellOf(a1.z, inv);
		int runs[125][2];
		const int count = WideRuns(a1, inv, mask, start, runs);
		float deepest = 0.0f;
		for (int span = 0; span < count; ++span)
			for (int e = runs[span][0]; e < runs[span][1]; ++e) {
				const int j = sorted[e];
				const int sj = SourceOf(source, (uint32_t)j);
				if (sj == si)
					continue;
				for (int r = m->partnerStart[j]; r < m->partnerStart[j + 1]; ++r) {
					const uint32_t g = m->partnerList[r];
					const int sg = SourceOf(source, g);
					if (sg == si)
						continue;
					const wfVec4 c0 = prev[j], g0 = prev[g], c1 = pos[j], g1 = pos[g];
					float flo[3], fhi[3];
					SweptBox(c0, g0, c1, g1, flo, fhi);
					if (fhi[0] < lo[0] || flo[0] > hi[0] || fhi[1] < lo[1] || flo[1] > hi[1] || fhi[2] < lo[2] || flo[2] > hi[2])
						continue; // apart from all of i's edges all the substep
					// An edge with both ends read by the walk is visited from its lower end only.
					if (g < (uint32_t)j && Walked(g1, key[g], cx, cy, cz, inv, mask))
						continue;
					const float f0x = g0.x - c0.x, f0y = g0.y - c0.y, f0z = g0.z - c0.z;
					const float f1x = g1.x - c1.x, f1y = g1.y - c1.y, f1z = g1.z - c1.z;
					for (int q = 0; q < partners; ++q) {
						const uint32_t o = partner[q];
						const int so = SourceOf(source, o);
						if (sj == so || sg == so)
							continue;
						if (fhi[0] < elo[q][0] || flo[0] > ehi[q][0] || fhi[1] < elo[q][1] || flo[1] > ehi[q][1] || fhi[2] < elo[q][2] ||
							flo[2] > ehi[q][2])
							continue;
						const wfVec4 b0 = prev[o], b1 = pos[o];
						// The lines' normals and signed distances at the start and the end.
						const float e0x = b0.x - a0.x, e0y = b0.y - a0.y, e0z = b0.z - a0.z;
						const float e1x = b1.x - a1.x, e1y = b1.y - a1.y, e1z = b1.z - a1.z;
						const float n0[3] = {e0y * f0z - e0z * f0y, e0z * f0x - e0x * f0z, e0x * f0y - e0y * f0x};
						const float n1[3] = {e1y * f1z - e1z * f1y, e1z * f1x - e1x * f1z, e1x * f1y - e1y * f1x};
						const float v0n = (a0.x - c0.x) * n0[0] + (a0.y - c0.y) * n0[1] + (a0.z - c0.z) * n0[2];
						const float v1n = (a1.x - c1.x) * n1[0] + (a1.y - c1.y) * n1[1] + (a1.z - c1.z) * n1[2];
						if ((v0n > 0.0f) == (v1n > 0.0f) || v0n == 0.0f || !(n0[0] * n1[0] + n0[1] * n1[1] + n0[2] * n1[2] > 0.0f))
							continue; // no change of side (the lengths are positive), or the normal flipped
						const float l0 = sqrtf(n0[0] * n0[0] + n0[1] * n0[1] + n0[2] * n0[2]);
						const float l1 = sqrtf(n1[0] * n1[0] + n1[1] * n1[1] + n1[2] * n1[2]);
						if (!(l0 > 1e-12f) || !(l1 > 1e-12f))
							continue;
						const float v0 = v0n / l0, v1 = v1n / l1;
						// The edges at the crossing's time: their lines' closest points inside both?
						const float s = v0 / (v0 - v1);
						const float ex = e0x + s * (e1x - e0x), ey = e0y + s * (e1y - e0y), ez = e0z + s * (e1z - e0z);
						const float fx = f0x + s * (f1x - f0x), fy = f0y + s * (f1y - f0y), fz = f0z + s * (f1z - f0z);
						const float rx = a0.x + s * (a1.x - a0.x) - (c0.x + s * (c1.x - c0.x));
						const float ry = a0.y + s * (a1.y - a0.y) - (c0.y + s * (c1.y - c0.y));
						const float rz = a0.z + s * (a1.z - a0.z) - (c0.z + s * (c1.z - c0.z));
						const float ee = ex * ex + ey * ey + ez * ez, ff = fx * fx + fy * fy + fz * fz;
						const float ef = ex * fx + ey * fy + ez * fz, er = ex * rx + ey * ry + ez * rz, fr = fx * rx + fy * ry + fz * rz;
						const float den = ee * ff - ef * ef;
						if (!(den > 1e-6f * ee * ff))
							continue;
						const float u = (ef * fr - ff * er) / den, w = (ee * fr - ef * er) / den;
						if (!(u > 0.0f && u < 1.0f && w > 0.0f && w < 1.0f))
							continue;
						// Back to the side it came from, d apart along the end normal; the deepest wins.
						if (fabsf(v1) <= deepest)
							continue;
						const float weight = a1.w * (1.0f - u) * (1.0f - u) + b1.w * u * u + c1.w * (1.0f - w) * (1.0f - w) + g1.w * w * w;
						if (!(weight > 0.0f))
							continue;
						deepest = fabsf(v1);
						const float lambda = ((v0 > 0.0f ? d : -d) - v1) / weight, share = a1.w * (1.0f - u) * lambda / l1;
						delta[i] = (wfVec4){share * n1[0], share * n1[1], share * n1[2], 1.0f};
					}
				}
			}
	}
	ApplyPushes(c, invH);
}

void wfCpuSelfCollide(const wfCpuContext* ctx, wfCloth* c, const wfVec4* prev, bool moves)
{
	const float invH = moves ? 1.0f / ctx->params->h : 0.0f;
	const wfSelfCollisionDef* sc = &ctx->world->selfContact;
	if (!sc->enabled || c->state.hashStart == NULL)
		return;
	const int n = c->model.particleCount;
	const float d = 2.0f * sc->thickness, inv = 1.0f / d;
	const float exclude = sc->exclusion * d;
	const uint32_t mask = (uint32_t)c->state.hashSize - 1u;
	wfVec4* restrict pos = c->state.pos;
	const wfVec4* restrict rest = c->model.restPositions;
	int* restrict start = c->state.hashStart;
	int* restrict sorted = c->state.hashSorted;
	uint32_t* restrict key = c->state.hashKey;
	wfVec4* restrict delta = c->state.selfDelta;
	// The hash grid: the keys on every thread, the counting sort on one.
	CellKeys(pos, n, inv, mask, key, start);
#pragma omp single
	SortByCell(n, mask, start, sorted, key);
	const float mu = sc->friction;
	const bool friction = mu > 0.0f && prev != NULL;
#pragma omp for schedule(dynamic, WF_CPU_CONTACT_CHUNK)
	for (int i = 0; i < n; ++i) {
		const wfVec4 xi = pos[i];
		delta[i] = (wfVec4){0.0f, 0.0f, 0.0f, 0.0f};
		if (xi.w == 0.0f)
			continue;
		uint32_t keys[27];
		const int count = NeighbourKeys(xi, inv, mask, keys);
		float sum[3] = {0.0f, 0.0f, 0.0f};
		int contacts = 0;
		for (int q = 0; q < count; ++q) {
			for (int e = start[keys[q]]; e < start[keys[q] + 1]; ++e) {
				const int j = sorted[e];
				if (j == i)
					continue;
				const wfVec4 xj = pos[j];
				const float ex = xi.x - xj.x, ey = xi.y - xj.y, ez = xi.z - xj.z;
				const float dist2 = ex * ex + ey * ey + ez * ez;
				if (dist2 >= d * d)
					continue;
				const float rx = rest[i].x - rest[j].x, ry = rest[i].y - rest[j].y, rz = rest[i].z - rest[j].z;
				if (rx * rx + ry * ry + rz * rz < exclude * exclude)
					continue;
				const float dist = sqrtf(dist2);
				if (!(dist > 1e-9f))
					continue;
				float m[3];
				if (friction) {
					m[0] = (xi.x - prev[i].x) - (xj.x - prev[j].x);
					m[1] = (xi.y - prev[i].y) - (xj.y - prev[j].y);
					m[2] = (xi.z - prev[i].z) - (xj.z - prev[j].z);
				}
				AddPairPush(ex, ey, ez, dist, d, xi.w / (xi.w + xj.w), mu, friction ? m : NULL, sum);
				contacts++;
			}
		}
		if (contacts > 0)
			delta[i] = (wfVec4){sum[0] / (float)contacts, sum[1] / (float)contacts, sum[2] / (float)contacts, 1.0f};
	}
	ApplyPushes(c, invH);
	if (sc->pointTriangle && prev != NULL && c->model.triangleCount > 0)
		PointTriangle(c, prev, d, inv, mask, invH);
	if (sc->edgeEdge && prev != NULL && c->model.triangleCount > 0)
		EdgeEdge(c, prev, d, inv, mask, invH);
}

// ------------------------------------------------------------------ cloth against cloth

void wfCpuContactsFree(wfCpuContacts* k)
{
	wfFree(k->start);
	wfFree(k->sorted);
	wfFree(k->key);
	wfFree(k->x);
	wfFree(k->delta);
	wfFree(k->cloth);
	wfFree(k->particle);
	memset(k, 0, sizeof *k);
}

bool wfCpuContactsReserve(wfCpuContacts* k, int particles)
{
	if (particles <= k->capacity)
		return true;
	wfCpuContacts grown;
	memset(&grown, 0, sizeof grown);
	grown.capacity = particles;
	grown.hashSize = 1;
	while (grown.hashSize < 2 * particles)
		grown.hashSize *= 2;
	const size_t n = (size_t)particles;
	grown.start = (int*)wfAlloc((size_t)(grown.hashSize + 1) * sizeof(int));
	grown.sorted = (int*)wfAlloc(n * sizeof(int));
	grown.key = (uint32_t*)wfAlloc(n * sizeof(uint32_t));
	grown.x = (wfVec4*)wfAlloc(n * sizeof(wfVec4));
	grown.delta = (wfVec4*)wfAlloc(n * sizeof(wfVec4));
	grown.cloth = (wfCloth**)wfAlloc(n * sizeof(wfCloth*));
	grown.particle = (int*)wfAlloc(n * sizeof(int));
	if (!grown.start || !grown.sorted || !grown.key || !grown.x || !grown.delta || !grown.cloth || !grown.particle) {
		wfCpuContactsFree(&grown);
		return false;
	}
	wfCpuContactsFree(k);
	*k = grown;
	return true;
}

void wfCpuClothContacts(wfWorld* world, wfCpuContacts* k, const wfFrameParams* p)
{
	const wfSolverType solver = world->def.step.solver;
	const bool friction = solver != WF_SOLVER_SPRINGS; // springs keep forces in prev
	const wfSelfCollisionDef* sc = &world->selfContact;
	// The particles of every cloth in the frame of the first one's origin (offsets in double).
	double ref[3] = {0.0, 0.0, 0.0};
	int n = 0;
	bool first = true;
	for (int ci = 0; ci < world->clothCapacity; ++ci) {
		wfCloth* c = &world->cloths[ci];
		if (c->generation == 0)
			continue;
		const double o[3] = {c->origin[0] + c->local.shift.x, c->origin[1] + c->local.shift.y, c->origin[2] + c->local.shift.z};
		if (first) {
			memcpy(ref, o, sizeof ref);
			first = false;
		}
		const float ox = (float)(o[0] - ref[0]), oy = (float)(o[1] - ref[1]), oz = (float)(o[2] - ref[2]);
		for (int i = 0; i < c->model.particleCount && n < k->capacity; ++i, ++n) {
			const wfVec4 x = c->state.pos[i];
			k->x[n] = (wfVec4){x.x + ox, x.y + oy, x.z + oz, x.w};
			k->cloth[n] = c;
			k->particle[n] = i;
		}
	}
	const float d = 2.0f * sc->thickness, inv = 1.0f / d, mu = sc->friction;
	const uint32_t mask = (uint32_t)k->hashSize - 1u;
	CellKeys(k->x, n, inv, mask, k->key, k->start);
	SortByCell(n, mask, k->start, k->sorted, k->key);
#pragma omp parallel for schedule(static) num_threads(world->threads) if (n >= WF_CPU_PARALLEL_MIN && world->threads > 1)
	for (int g = 0; g < n; ++g) {
		const wfVec4 xi = k->x[g];
		const wfCloth* ci = k->cloth[g];
		k->delta[g] = (wfVec4){0.0f, 0.0f, 0.0f, 0.0f};
		if (xi.w == 0.0f)
			continue;
		const wfVec4 pi = ci->state.prev[k->particle[g]];
		uint32_t keys[27];
		const int count = NeighbourKeys(xi, inv, mask, keys);
		float sum[3] = {0.0f, 0.0f, 0.0f};
		int contacts = 0;
		for (int q = 0; q < count; ++q) {
			for (int e = k->start[keys[q]]; e < k->start[keys[q] + 1]; ++e) {
				const int h = k->sorted[e];
				const wfCloth* cj = k->cloth[h];
				if (cj == ci)
					continue;                          // the same cloth: self-collision's business
				if (!wfClothsMeet(&ci->def, &cj->def)) // the pair's switch
					continue;
				const wfVec4 xj = k->x[h];
				const float ex = xi.x - xj.x, ey = xi.y - xj.y, ez = xi.z - xj.z;
				const float dist2 = ex * ex + ey * ey + ez * ez;
				if (dist2 >= d * d)
					continue;
				const float dist = sqrtf(dist2);
				if (!(dist > 1e-9f))
					continue;
				float m[3];
				if (friction && mu > 0.0f) {
					// Substep motions in each cloth's own frame: the frames do not move within a frame.
					const wfVec4 pj = k->cloth[h]->state.prev[k->particle[h]];
					const wfVec4 xiLocal = ci->state.pos[k->particle[g]], xjLocal = k->cloth[h]->state.pos[k->particle[h]];
					m[0] = (xiLocal.x - pi.x) - (xjLocal.x - pj.x);
					m[1] = (xiLocal.y - pi.y) - (xjLocal.y - pj.y);
					m[2] = (xiLocal.z - pi.z) - (xjLocal.z - pj.z);
				}
				AddPairPush(ex, ey, ez, dist, d, xi.w / (xi.w + xj.w), mu, friction && mu > 0.0f ? m : NULL, sum);
				contacts++;
			}
		}
		if (contacts > 0)
			k->delta[g] = (wfVec4){sum[0] / (float)contacts, sum[1] / (float)contacts, sum[2] / (float)contacts, 1.0f};
	}
	for (int g = 0; g < n; ++g) {
		const wfVec4 m = k->delta[g];
		if (m.w == 0.0f)
			continue;
		wfCloth* c = k->cloth[g];
		const int i = k->particle[g];
		// The velocity as the solver derives it from positions (Jacobi keeps the retention's share).
		const float velocityFactor = (solver == WF_SOLVER_JACOBI ? c->material.retention : 1.0f) / p->h;
		c->state.pos[i].x += m.x;
		c->state.pos[i].y += m.y;
		c->state.pos[i].z += m.z;
		c->state.vel[i].x += velocityFactor * m.x;
		c->state.vel[i].y += velocityFactor * m.y;
		c->state.vel[i].z += velocityFactor * m.z;
	}
}
