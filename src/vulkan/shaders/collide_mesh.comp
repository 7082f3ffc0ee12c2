#version 450
// Mesh colliders (WF_COLLIDER_MESH) on the device: mesh_collider.c's contact and cpu_stages.c's
// wfCpuCollideMeshes and wfCpuAttach, operation for operation and in the CPU's order, so that
// lavapipe steps through the CPU's bits. The host places the body for each cloth and substep
// (wfMeshBodyPlace, in double) and writes the placements before the submit; this kernel reads
// them through set 1 of its own pipeline layout (kernel_abi.h WF_GPU_MESH_BIND_*).
// Stages (pc.flags): POINT a particle's motion against the body, EDGE each cloth edge against the
// body's convex edges into scratch, EDGE_APPLY each particle's edges' pushes in constraint order,
// CORNERS each cloth triangle's pushes of its three corners by the body's corners under it into
// scratch, APPLY each particle's pushes summed over its triangles and added (every triangle reads
// the positions as they were), ATTACH the attached
// particles onto their points. pc.substep is the placement's index.
#define WF_MESH_SET
#include "common.glsl"

layout(std430, set = WF_GPU_SET_MESH, binding = WF_GPU_MESH_BIND_PLACE) readonly buffer MeshPlaceBuf { wfGpuMeshPlace places[]; };
layout(std430, set = WF_GPU_SET_MESH, binding = WF_GPU_MESH_BIND_WORDS) readonly buffer MeshWordBuf { uint mw[]; };
layout(std430, set = WF_GPU_SET_MESH, binding = WF_GPU_MESH_BIND_FLOATS) readonly buffer MeshFloatBuf { float mf[]; };
layout(std430, set = WF_GPU_SET_MESH, binding = WF_GPU_MESH_BIND_SCRATCH) buffer MeshScratchBuf { vec4 scratch[]; };

// The placement, read once into the invocation's own copy.
wfGpuMeshPlace gPlace;
#define PL gPlace

struct Tri {
	vec3 a, b, c; // corners
	vec3 n;       // unit normal (b - a) x (c - a)
};

// The contact that comes first for a particle (mesh_collider.c Contact).
struct Contact {
	uint tri;
	float s;     // fraction of the substep at which it entered the layer (0: in it at the start)
	float depth; // thickness - height at the end
	float side;  // +1, or -1 for an open mesh's back
};

float Min(float a, float b) { return a < b ? a : b; }
float Max(float a, float b) { return a > b ? a : b; }

vec3 Sub(vec3 a, vec3 b)
{
	precise vec3 r = vec3(a.x - b.x, a.y - b.y, a.z - b.z);
	return r;
}

float Dot(vec3 a, vec3 b)
{
	precise float d = a.x * b.x + a.y * b.y + a.z * b.z;
	return d;
}

// Vertex i of the vertex array at float index `at`.
vec3 Corner(uint at, uint i) { return vec3(mf[at + 3u * i], mf[at + 3u * i + 1u], mf[at + 3u * i + 2u]); }

// Triangle t of the body with its vertices at float index `at`; false for a triangle squashed flat.
bool MakeTri(uint at, uint t, out Tri o)
{
	const uint q = PL.tri + 3u * t;
	o.a = Corner(at, mw[q]);
	o.b = Corner(at, mw[q + 1u]);
	o.c = Corner(at, mw[q + 2u]);
	o.n = vec3(0.0);
	const vec3 u = Sub(o.b, o.a), w = Sub(o.c, o.a);
	precise vec3 n = vec3(u.y * w.z - u.z * w.y, u.z * w.x - u.x * w.z, u.x * w.y - u.y * w.x);
	precise float l = sqrt(Dot(n, n));
	if (!(l > 0.0))
		return false;
	precise vec3 m = vec3(n.x / l, n.y / l, n.z / l);
	o.n = m;
	return true;
}

// p's barycentric coordinates over the triangle (its projection onto the plane).
vec3 Bary(Tri t, vec3 p)
{
	const vec3 e0 = Sub(t.b, t.a), e1 = Sub(t.c, t.a), e2 = Sub(p, t.a);
	const float d00 = Dot(e0, e0), d01 = Dot(e0, e1), d11 = Dot(e1, e1), d20 = Dot(e2, e0), d21 = Dot(e2, e1);
	precise float den = d00 * d11 - d01 * d01;
	precise float v = (d11 * d20 - d01 * d21) / den, w = (d00 * d21 - d01 * d20) / den;
	precise float u = 1.0 - v - w;
	return vec3(u, v, w);
}

bool Over(vec3 b) { return b.x >= -WF_MESH_EDGE_SLACK && b.y >= -WF_MESH_EDGE_SLACK && b.z >= -WF_MESH_EDGE_SLACK; }

vec3 At(Tri t, vec3 b)
{
	precise vec3 q = vec3(b.x * t.a.x + b.y * t.b.x + b.z * t.c.x, b.x * t.a.y + b.y * t.b.y + b.z * t.c.y,
		b.x * t.a.z + b.y * t.b.z + b.z * t.c.z);
	return q;
}

// b0 + s (b1 - b0), per weight.
vec3 Blend(vec3 b0, vec3 b1, float s)
{
	precise vec3 r = vec3(b0.x + s * (b1.x - b0.x), b0.y + s * (b1.y - b0.y), b0.z + s * (b1.z - b0.z));
	return r;
}

// Triangle j against the motion p0 -> x (mesh_collider.c Test).
bool Test(uint j, vec3 p0, vec3 x, out Contact c)
{
	c = Contact(0u, 0.0, 0.0, 1.0);
	// A closed body's end height first: most triangles a motion's box meets are far from its end.
	Tri t0, t1;
	if (!MakeTri(PL.v1, j, t1))
		return false;
	const float thickness = PL.thickness;
	precise float h1 = Dot(Sub(x, t1.a), t1.n);
	if (PL.closed != 0u && h1 >= thickness)
		return false;
	if (!MakeTri(PL.v0, j, t0))
		return false;
	precise float h0 = Dot(Sub(p0, t0.a), t0.n);
	float side = 1.0;
	if (PL.closed != 0u) {
		if (h0 < -PL.behind)
			return false; // behind this face by more than the layer: the far side of the body
	} else if (h0 < 0.0) {
		side = -1.0;
		h0 = -h0;
		h1 = -h1;
	}
	if (h1 >= thickness)
		return false;
	const vec3 b1 = Bary(t1, x);
	precise float s = P.floor.w; // 0, read at run time (kernel_abi.h: a constant zero may be folded)
	if (h0 >= thickness) {
		const vec3 b0 = Bary(t0, p0);
		precise float sh = (h0 - thickness) / (h0 - h1);
		s = sh;
		if (!Over(Blend(b0, b1, s)))
			return false;
	} else if (!Over(b1)) {
		return false;
	}
	precise float depth = thickness - h1;
	c = Contact(j, s, depth, side);
	return true;
}

// The hierarchy's walk (mesh_collider.c NextLeaf): depth first, the first child before the second,
// through the nodes whose boxes meet [lo, hi] and, with `edges` (the edge pass), whose convex
// edges' boxes meet [elo, ehi]. It steps through the hierarchy four-wide (kernel_abi.h
// WF_GPU_MESH_WIDE_WORDS): a wide node's four slots (a node's grandchildren) are loaded at once
// and those that meet go on the stack, so a walk waits on half as many loads as node by node. A
// slot that meets has parents that meet (their boxes hold it): the CPU's leaves in its order.
uvec2 gStack[64]; // a wide node and 0, or a leaf's first triangle and count
int gTop;

// A walk from the root's wide node.
void StartWalk()
{
	gTop = 1;
	gStack[0] = uvec2(0u, 0u);
}

// The next leaf that meets, its triangles order[first, first + count); false at the walk's end.
bool NextLeaf(vec3 lo, vec3 hi, bool edges, vec3 elo, vec3 ehi, out uint first, out uint count)
{
	first = 0u;
	count = 0u;
	while (gTop > 0) {
		const uvec2 top = gStack[--gTop];
		if (top.y > 0u) {
			first = top.x;
			count = top.y;
			return true;
		}
		const uint base = PL.wide + WF_GPU_MESH_WIDE_WORDS * top.x;
		uvec2 entry[4];
		bool meets[4];
		for (uint k = 0u; k < 4u; ++k) {
			const uint w = base + WF_GPU_MESH_SLOT_WORDS * k;
			const vec3 blo = vec3(mf[w], mf[w + 1u], mf[w + 2u]), bhi = vec3(mf[w + 3u], mf[w + 4u], mf[w + 5u]);
			entry[k] = uvec2(mw[w + 12u], mw[w + 13u]);
			bool m = !(bhi.x < lo.x || blo.x > hi.x || bhi.y < lo.y || blo.y > hi.y || bhi.z < lo.z || blo.z > hi.z);
			if (edges) {
				const vec3 elo2 = vec3(mf[w + 6u], mf[w + 7u], mf[w + 8u]), ehi2 = vec3(mf[w + 9u], mf[w + 10u], mf[w + 11u]);
				m = m && !(ehi2.x < elo.x || elo2.x > ehi.x || ehi2.y < elo.y || elo2.y > ehi.y || ehi2.z < elo.z || elo2.z > ehi.z);
			}
			meets[k] = m && entry[k].x != WF_GPU_MESH_NO_SLOT;
		}
		for (int k = 3; k >= 0; --k) {
			if (meets[k])
				gStack[gTop++] = entry[k];
		}
	}
	return false;
}

// The first contact of the motion p0 -> x among the triangles whose boxes meet the motion's.
bool First(vec3 p0, vec3 x, out Contact best)
{
	best = Contact(0u, 0.0, 0.0, 1.0);
	const vec3 lo = vec3(Min(p0.x, x.x), Min(p0.y, x.y), Min(p0.z, x.z));
	const vec3 hi = vec3(Max(p0.x, x.x), Max(p0.y, x.y), Max(p0.z, x.z));
	bool found = false;
	StartWalk();
	for (uint first, count; NextLeaf(lo, hi, false, lo, hi, first, count);) {
		for (uint k = first; k < first + count; ++k) {
			Contact c;
			if (Test(mw[PL.order + k], p0, x, c) && (!found || c.s < best.s || (c.s == best.s && c.depth > best.depth))) {
				best = c;
				found = true;
			}
		}
	}
	return found;
}

// wfMeshBodyCollide: x back onto the thickness layer, with the contact's normal and the surface's
// velocity there.
bool Collide(vec3 p0, inout vec3 x, out vec3 normal, out vec3 surface)
{
	normal = vec3(0.0);
	surface = vec3(0.0);
	bool pushed = false;
	for (int round = 0; round < WF_MESH_ROUNDS; ++round) {
		Contact c;
		if (!First(p0, x, c))
			break;
		Tri t0, t1;
		MakeTri(PL.v0, c.tri, t0);
		MakeTri(PL.v1, c.tri, t1);
		precise vec3 n = vec3(c.side * t1.n.x, c.side * t1.n.y, c.side * t1.n.z);
		vec3 b = Bary(t1, x);
		if (Over(b)) {
			// Over the triangle at the end: straight back onto the layer, keeping the sliding.
			precise vec3 y = vec3(x.x + n.x * c.depth, x.y + n.y * c.depth, x.z + n.z * c.depth);
			x = y;
		} else {
			// Past its sides (a fast particle): onto the layer where it entered.
			const vec3 b0 = Bary(t0, p0);
			b = Blend(b0, b, c.s);
			const vec3 q = At(t1, b);
			const float t = PL.thickness;
			precise vec3 y = vec3(q.x + n.x * t, q.y + n.y * t, q.z + n.z * t);
			x = y;
		}
		const vec3 q0 = At(t0, b), q1 = At(t1, b);
		const float invH = PL.invH;
		precise vec3 vs = vec3((q1.x - q0.x) * invH, (q1.y - q0.y) * invH, (q1.z - q0.z) * invH);
		surface = vs;
		normal = n;
		pushed = true;
	}
	return pushed;
}

// Whether particle i is attached (wfClothIsAttached: the list is in particle order).
bool Attached(uint i)
{
	int lo = 0, hi = int(PL.attachCount);
	while (lo < hi) {
		const int mid = lo + (hi - lo) / 2;
		if (mw[PL.attach + WF_GPU_MESH_ATTACH_WORDS * uint(mid)] < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < int(PL.attachCount) && mw[PL.attach + WF_GPU_MESH_ATTACH_WORDS * uint(lo)] == i;
}

vec4 StartOf(uint i) { return (pc.flags & WF_GPU_MESH_START_ALT) != 0u ? posAlt[i] : prev[i]; }

// ------------------------------------------------------------------ edges

// The closest points of segments a + s (b - a) and c + u (d - c), both strictly inside (0, 1).
bool ClosestInside(vec3 a, vec3 b, vec3 c, vec3 d, out float s, out float u)
{
	const vec3 e = Sub(b, a), f = Sub(d, c), r = Sub(a, c);
	const float ee = Dot(e, e), ff = Dot(f, f), ef = Dot(e, f), er = Dot(e, r), fr = Dot(f, r);
	precise float den = ee * ff - ef * ef;
	precise float least = 1e-6 * ee * ff;
	s = 0.0;
	u = 0.0;
	if (!(den > least))
		return false;
	precise float ps = (ef * fr - ff * er) / den;
	precise float pu = (ee * fr - ef * er) / den;
	s = ps;
	u = pu;
	return s > 0.0 && s < 1.0 && u > 0.0 && u < 1.0;
}

vec3 Lerp(vec3 a, vec3 b, float s)
{
	precise vec3 r = vec3(a.x + s * (b.x - a.x), a.y + s * (b.y - a.y), a.z + s * (b.z - a.z));
	return r;
}

// wfMeshBodyCollideEdge: the cloth edge a-b (inverse masses wa, wb) against the body's convex edges.
bool CollideEdge(vec3 a, vec3 b, float wa, float wb, out vec3 da, out vec3 db, out vec3 normal, out vec3 surface)
{
	da = vec3(0.0);
	db = vec3(0.0);
	normal = vec3(0.0);
	surface = vec3(0.0);
	if (PL.closed == 0u)
		return false;
	const float thickness = PL.thickness, invH = PL.invH;
	const vec3 lo = vec3(Min(a.x, b.x), Min(a.y, b.y), Min(a.z, b.z));
	const vec3 hi = vec3(Max(a.x, b.x), Max(a.y, b.y), Max(a.z, b.z));
	// The leaves whose convex edges' boxes meet the cloth edge's grown by the reach (mesh_collider.c
	// EdgeSlack): every edge left out fails the reach test below.
	const vec3 ab0 = Sub(b, a);
	precise float reach0 = thickness + 0.5 * sqrt(Dot(ab0, ab0));
	const vec3 m = max(abs(a), abs(b));
	precise float grow = 1.001 * reach0 + 1e-6 * (1.0 + Max(Max(m.x, m.y), m.z));
	const vec3 elo = lo - vec3(grow), ehi = hi + vec3(grow);
	float deepest = 0.0, bestS = 0.0;
	vec3 dir = vec3(0.0);
	StartWalk();
	for (uint first, count; NextLeaf(lo, hi, true, elo, ehi, first, count);) {
		for (uint j = first; j < first + count; ++j) {
			const int t = int(mw[PL.order + j]);
			Tri t1;
			if (!MakeTri(PL.v1, uint(t), t1))
				continue;
			for (uint k = 0u; k < 3u; ++k) {
				const int across = int(mw[PL.neighbour + 3u * uint(t) + k]);
				if (across < t)
					continue; // each edge once: from its lower triangle
				const uint q = PL.tri + 3u * uint(t), o = PL.tri + 3u * uint(across);
				const uint qk = mw[q + k], qn = mw[q + (k + 1u) % 3u];
				const uint o0 = mw[o], o1 = mw[o + 1u], o2 = mw[o + 2u];
				const uint far = o0 != qk && o0 != qn ? o0 : o1 != qk && o1 != qn ? o1 : o2;
				const vec3 c = Corner(PL.v1, qk), d = Corner(PL.v1, qn);
				precise float concave = -1e-6 * PL.size;
				if (!(Dot(Sub(Corner(PL.v1, far), c), t1.n) < concave))
					continue; // flat or concave: a chord above both faces stays outside
				float s, u;
				if (!ClosestInside(a, b, c, d, s, u))
					continue;
				// Near the edge only: within the thickness plus half the cloth edge.
				const vec3 r = Sub(Lerp(a, b, s), Lerp(c, d, u)), ab = Sub(b, a);
				precise float reach = thickness + 0.5 * sqrt(Dot(ab, ab));
				precise float reach2 = reach * reach;
				Tri t2;
				if (Dot(r, r) > reach2 || !MakeTri(PL.v1, uint(across), t2))
					continue;
				const float d1 = Dot(r, t1.n), d2 = Dot(r, t2.n);
				// In the plane across the edge: beyond both faces the distance is to the edge, else
				// to the face whose plane it is above (inside the body: the nearer face, negative).
				float distance;
				vec3 away;
				if (d1 >= 0.0 && d2 >= 0.0) {
					precise float dist = sqrt(Dot(r, r));
					distance = dist;
					precise vec3 m = vec3(t1.n.x + t2.n.x, t1.n.y + t2.n.y, t1.n.z + t2.n.z);
					precise float l = distance > 1e-7 ? distance : sqrt(Dot(m, m));
					precise vec3 byR = vec3(r.x / l, r.y / l, r.z / l);
					precise vec3 byM = vec3(m.x / l, m.y / l, m.z / l);
					away = distance > 1e-7 ? byR : byM;
				} else {
					distance = d1 > d2 ? d1 : d2;
					away = d1 > d2 ? t1.n : t2.n;
				}
				precise float depth = thickness - distance;
				if (depth > deepest) {
					deepest = depth;
					bestS = s;
					dir = away;
					const vec3 q0 = Lerp(Corner(PL.v0, qk), Corner(PL.v0, qn), u);
					const vec3 q1 = Lerp(c, d, u);
					precise vec3 vs = vec3((q1.x - q0.x) * invH, (q1.y - q0.y) * invH, (q1.z - q0.z) * invH);
					surface = vs;
				}
			}
		}
	}
	// The closest point p = (1 - s) a + s b moves by depth along dir: a and b by their shares.
	precise float rest = 1.0 - bestS;
	precise float den = wa * rest * rest + wb * bestS * bestS;
	if (!(deepest > 0.0) || !(den > 0.0))
		return false;
	precise float ka = wa * rest * deepest / den, kb = wb * bestS * deepest / den;
	precise vec3 ma = vec3(dir.x * ka, dir.y * ka, dir.z * ka), mb = vec3(dir.x * kb, dir.y * kb, dir.z * kb);
	da = ma;
	db = mb;
	normal = dir;
	return true;
}

// ------------------------------------------------------------------ corners

// wfMeshBodyCollideCorners: the cloth triangle x0 x1 x2 (inverse masses w) against the body's
// vertices; the push of each corner k, summed, in delta[k].
bool CollideCorners(vec3 x0, vec3 x1, vec3 x2, vec3 w, out vec3 delta[3])
{
	precise vec3 sum[3] = vec3[3](vec3(P.floor.w), vec3(P.floor.w), vec3(P.floor.w)); // 0, read at run time: 0 + (-0) is +0 as on the CPU
	delta = sum;
	if (PL.closed == 0u)
		return false;
	Tri t;
	t.a = x0;
	t.b = x1;
	t.c = x2;
	const vec3 e0 = Sub(x1, x0), e1 = Sub(x2, x0), e2 = Sub(x2, x1);
	precise vec3 m = vec3(e0.y * e1.z - e0.z * e1.y, e0.z * e1.x - e0.x * e1.z, e0.x * e1.y - e0.y * e1.x);
	precise float l = sqrt(Dot(m, m));
	if (!(l > 0.0))
		return false;
	precise vec3 tn = vec3(m.x / l, m.y / l, m.z / l);
	t.n = tn;
	const float thickness = PL.thickness;
	// How deep a corner can be through the triangle while its corners are outside: half its longest side.
	precise float reach = thickness + 0.5 * sqrt(Max(Dot(e0, e0), Max(Dot(e1, e1), Dot(e2, e2))));
	const vec3 lo = vec3(Min(x0.x, Min(x1.x, x2.x)), Min(x0.y, Min(x1.y, x2.y)), Min(x0.z, Min(x1.z, x2.z)));
	const vec3 hi = vec3(Max(x0.x, Max(x1.x, x2.x)), Max(x0.y, Max(x1.y, x2.y)), Max(x0.z, Max(x1.z, x2.z)));
	bool any = false;
	StartWalk();
	for (uint first, count; NextLeaf(lo, hi, false, lo, hi, first, count);) {
		for (uint j = first; j < first + count; ++j) {
			const uint bt = mw[PL.order + j];
			for (uint c = 0u; c < 3u; ++c) {
				const uint v = mw[PL.tri + 3u * bt + c];
				if (mw[PL.owner + v] != bt)
					continue; // each vertex once
				const vec3 p = Corner(PL.v1, v), nv = Corner(PL.normal, v);
				const float cosine = Dot(t.n, nv);
				if (abs(cosine) < 0.1)
					continue; // the triangle edge-on to where the corner points: its sides decide
				const vec3 n = cosine > 0.0 ? t.n : vec3(-t.n.x, -t.n.y, -t.n.z);
				const float h = Dot(Sub(x0, p), n); // the triangle's height over the corner, outwards
				if (h >= thickness || h < -reach)
					continue;
				const vec3 b = Bary(t, p);
				if (b.x < 0.0 || b.y < 0.0 || b.z < 0.0)
					continue; // the corner is beside the triangle: its particles' and edges' contacts
				precise float den = w.x * b.x * b.x + w.y * b.y * b.y + w.z * b.z * b.z;
				if (!(den > 0.0))
					continue;
				for (int k = 0; k < 3; ++k) {
					precise float move = w[k] * b[k] * (thickness - h) / den;
					sum[k] = vec3(sum[k].x + n.x * move, sum[k].y + n.y * move, sum[k].z + n.z * move);
				}
				any = true;
			}
		}
	}
	delta = sum;
	return any;
}

// ------------------------------------------------------------------ attachments

// wfMeshBodyPoint: attachment a's point with the body's vertices at float index `at`.
vec3 Point(uint at, uint a)
{
	const uint base = PL.attach + WF_GPU_MESH_ATTACH_WORDS * a;
	Tri t;
	const bool squashed = !MakeTri(at, mw[base + 1u], t);
	const float u = uintBitsToFloat(mw[base + 2u]), v = uintBitsToFloat(mw[base + 3u]);
	precise float b0 = 1.0 - u - v;
	const vec3 q = At(t, vec3(b0, u, v));
	if (squashed)
		return q;
	// The triangle's frame: its first side, its normal, and their cross product.
	const vec3 e1 = Sub(t.b, t.a);
	precise float l = sqrt(Dot(e1, e1));
	precise vec3 e = vec3(e1.x / l, e1.y / l, e1.z / l);
	const vec3 n = t.n;
	precise vec3 s = vec3(n.y * e.z - n.z * e.y, n.z * e.x - n.x * e.z, n.x * e.y - n.y * e.x);
	const vec3 o = vec3(uintBitsToFloat(mw[base + 4u]), uintBitsToFloat(mw[base + 5u]), uintBitsToFloat(mw[base + 6u]));
	precise vec3 r = vec3(q.x + o.x * e.x + o.y * n.x + o.z * s.x, q.y + o.x * e.y + o.y * n.y + o.z * s.y,
		q.z + o.x * e.z + o.y * n.z + o.z * s.z);
	return r;
}

void main()
{
	const uint e = WfElement();
	if (e == 0xffffffffu)
		return;
	gPlace = places[pc.substep];
	const uint stage = pc.flags & WF_GPU_MESH_STAGE_MASK;
	const bool moves = (pc.flags & WF_GPU_MESH_MOVES) != 0u;
	if (stage == WF_GPU_MESH_POINT) {
		const vec4 x4 = pos[e];
		if (x4.w == 0.0 || (PL.holds != 0u && Attached(e)))
			return;
		vec3 x = x4.xyz, normal, surface;
		if (!Collide(StartOf(e).xyz, x, normal, surface))
			return;
		pos[e] = vec4(x, x4.w);
		vec4 v = vel[e];
		if (moves)
			WfMoved(v, x - x4.xyz, PL.invH);
		else
			WfRespond(v, normal.x, normal.y, normal.z, surface);
		vel[e] = v;
	} else if (stage == WF_GPU_MESH_EDGE) {
		// e: a constraint; its ends' pushes into scratch (da with w 1 where it touches, db, the
		// normal, the surface velocity), from the positions as they are.
		const uvec4 q = con[e];
		const vec4 a = pos[q.x], b = pos[q.y];
		precise float ex = a.x - b.x, ey = a.y - b.y, ez = a.z - b.z;
		precise float l2 = ex * ex + ey * ey + ez * ez;
		vec3 da, db, normal, surface;
		if (q.w == WF_GPU_FAMILY_BEND || (a.w == 0.0 && b.w == 0.0) || l2 < PL.edgeReach2 ||
			!CollideEdge(a.xyz, b.xyz, a.w, b.w, da, db, normal, surface)) {
			scratch[4u * e] = vec4(0.0);
			return;
		}
		scratch[4u * e] = vec4(da, 1.0);
		scratch[4u * e + 1u] = vec4(db, 0.0);
		scratch[4u * e + 2u] = vec4(normal, 0.0);
		scratch[4u * e + 3u] = vec4(surface, 0.0);
	} else if (stage == WF_GPU_MESH_EDGE_APPLY) {
		// e: a particle; its constraints' pushes in their order (adjConstraint: the colour order).
		vec4 x = pos[e], v = vel[e];
		bool touched = false;
		for (int r = adjStart[e]; r < adjStart[e + 1u]; ++r) {
			const uint c = adjConstraint[r];
			const vec4 da = scratch[4u * c];
			if (da.w == 0.0)
				continue;
			const vec4 d = con[c].x == e ? da : scratch[4u * c + 1u];
			precise vec4 y = vec4(x.x + d.x, x.y + d.y, x.z + d.z, x.w);
			x = y;
			touched = true;
			if (x.w == 0.0)
				continue;
			if (moves) {
				WfMoved(v, d.xyz, PL.invH);
			} else {
				const vec4 n = scratch[4u * c + 2u], surface = scratch[4u * c + 3u];
				WfRespond(v, n.x, n.y, n.z, surface.xyz);
			}
		}
		if (touched) {
			pos[e] = x;
			vel[e] = v;
		}
	} else if (stage == WF_GPU_MESH_CORNERS) {
		// e: a cloth triangle; its corners' pushes into scratch.
		const uint v0 = indices[3u * e], v1 = indices[3u * e + 1u], v2 = indices[3u * e + 2u];
		const vec4 p0 = pos[v0], p1 = pos[v1], p2 = pos[v2];
		const vec3 x[3] = vec3[3](p0.xyz, p1.xyz, p2.xyz);
		float longest = 0.0;
		for (int k = 0; k < 3; ++k) {
			const vec3 u = x[k], o = x[(k + 1) % 3];
			precise float d2 = (u.x - o.x) * (u.x - o.x) + (u.y - o.y) * (u.y - o.y) + (u.z - o.z) * (u.z - o.z);
			longest = d2 > longest ? d2 : longest; // fmaxf: a NaN side leaves the longest
		}
		vec3 d[3];
		if (!(longest >= PL.cornerReach2 && CollideCorners(x[0], x[1], x[2], vec3(p0.w, p1.w, p2.w), d)))
			d = vec3[3](vec3(P.floor.w), vec3(P.floor.w), vec3(P.floor.w)); // adds nothing: the sums start at +0
		for (uint k = 0u; k < 3u; ++k)
			scratch[3u * e + k] = vec4(d[k], 0.0);
	} else if (stage == WF_GPU_MESH_APPLY) {
		// e: a particle; its triangles' pushes of it summed in their order (triList), then applied.
		precise vec3 sum = vec3(P.floor.w); // 0, read at run time
		for (int r = triStart[e]; pos[e].w != 0.0 && r < triStart[e + 1u]; ++r) {
			const uint t = triList[r];
			const uint corner = indices[3u * t] == e ? 0u : indices[3u * t + 1u] == e ? 1u : 2u;
			const vec4 d = scratch[3u * t + corner];
			sum = vec3(sum.x + d.x, sum.y + d.y, sum.z + d.z);
		}
		const vec3 d = sum;
		precise float l = sqrt(d.x * d.x + d.y * d.y + d.z * d.z);
		if (!(l > 0.0))
			return;
		const vec4 x = pos[e];
		precise vec4 y = vec4(x.x + d.x, x.y + d.y, x.z + d.z, x.w);
		pos[e] = y;
		vec4 v = vel[e];
		if (moves) {
			WfMoved(v, d.xyz, PL.invH);
		} else {
			precise float nx = d.x / l, ny = d.y / l, nz = d.z / l;
			WfRespond(v, nx, ny, nz, P.floor.www); // a still surface: zeros read at run time
		}
		vel[e] = v;
	} else if (stage == WF_GPU_MESH_ATTACH) {
		const uint i = mw[PL.attach + WF_GPU_MESH_ATTACH_WORDS * e];
		const vec4 x = pos[i];
		if (x.w == 0.0)
			return; // pinned or grabbed: held already
		const vec3 q = Point(PL.v1, e);
		precise float f = x.w / (x.w + PL.alpha); // C = |x - q| with gradient along x - q: x moves f C toward q
		precise vec3 m = vec3(f * (q.x - x.x), f * (q.y - x.y), f * (q.z - x.z));
		precise vec4 y = vec4(x.x + m.x, x.y + m.y, x.z + m.z, x.w);
		pos[i] = y;
		if ((pc.flags & WF_GPU_MESH_VELOCITIES) == 0u) {
			// XPBD, Jacobi: the move into the substep's velocity (wfCpuMoved).
			if (kMoves) {
				vec4 v = vel[i];
				WfMoved(v, m, PL.invH);
				vel[i] = v;
			}
		} else if (PL.alpha == 0.0) {
			const vec3 q0 = Point(PL.v0, e);
			const float h = PL.h;
			precise vec4 v = vec4((q.x - q0.x) / h, (q.y - q0.y) / h, (q.z - q0.z) / h, 0.0);
			vel[i] = v;
		}
	}
}
