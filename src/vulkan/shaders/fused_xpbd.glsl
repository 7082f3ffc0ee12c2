// The fused kernel's XPBD projections (fused.glsl): the constraint records, the ends' inverse
// masses, Project for the colour order and the whole owner order (SubstepOwner, kMoves).

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
	if (SelfOn())
		SelfCollide(true, true);
	Finish(substep);
}
