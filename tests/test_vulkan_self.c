// Self-collision and cloth against cloth on the Vulkan backend (wfSelfCollisionDef): the folded
// 40 x 40 heap keeps its layers on the GPU as on the CPU, two cloths do not pass through each
// other, and runs repeat bit for bit. On lavapipe (IEEE float, correctly rounded sqrt and
// division) the GPU's hash grid, counting sort and Jacobi gather reproduce the CPU's bits: each
// particle sums its contacts in the CPU's order (the 27 cells in the CPU's order, a cell's
// particles in ascending index), so the comparison's tolerance there is 0. On a hardware GPU sqrt
// and division round differently in the last bits, contacts spread that, and only the physical
// claims (distances, crossings) are asserted; the drift is printed.
#include "test.h"
#include "vk_test_util.h"

#include "core/internal.h"

#include <stdlib.h>
#include <string.h>

enum { N = 40 };

static long long ValidationMessages(const wfWorld* w)
{
	wfWarnings warn = wfWorld_GetWarnings(w);
	return warn.validationMessages;
}

// The CPU test's heap (test_self.c Drop): thickness 0.4 spacing, three layers 1.5 contact
// distances apart, 0.15 m above the floor.
static void HeapDefs(wfWorldDef* wd, wfClothDef* cd, float* thickness)
{
	const float width = 1.2f, dx = width / (N - 1);
	*thickness = 0.4f * dx;
	*wd = wfDefaultWorldDef();
	wd->step.substeps = 10;
	wd->step.iterations = 2;
	wd->floor.enabled = true;
	wd->floor.height = 0.0f;
	wd->contact.thickness = 0.005f;
	wd->contact.friction = 0.5f;
	wd->selfCollision.enabled = true;
	wd->selfCollision.thickness = *thickness;
	wd->selfCollision.friction = 0.3f;
	*cd = wfDefaultClothDef();
	cd->cols = cd->rows = N;
	cd->width = cd->height = width;
	cd->pinMode = WF_PIN_NONE;
	cd->material.mass = 0.002f;
	cd->material.bendCompliance = 0.05f;
}

// The closest pair of particles not excluded by their rest distance.
static float Closest(const wfVec3* p, const wfVec4* rest, int n, float exclude)
{
	float closest = 1e9f;
	for (int i = 0; i < n; ++i) {
		for (int j = i + 1; j < n; ++j) {
			float rx = rest[i].x - rest[j].x, ry = rest[i].y - rest[j].y, rz = rest[i].z - rest[j].z;
			if (rx * rx + ry * ry + rz * rz < exclude * exclude)
				continue;
			float ex = p[i].x - p[j].x, ey = p[i].y - p[j].y, ez = p[i].z - p[j].z;
			closest = fminf(closest, sqrtf(ex * ex + ey * ey + ez * ez));
		}
	}
	return closest;
}

// The dispatches of a recorded frame of one per-range cloth with self-collision (vk_backend.c):
// the shift, per substep the solve's, the contact pass's (keys, the scan's levels, scatter, sort,
// gather; springs also the move), the counts' clear once (the scan leaves them 0 for the next
// substep's grid), and normals and the frame check.
static int SelfDispatches(const wfWorldDef* wd, int colors, int particles)
{
	int cells = 1, scan = 0;
	while (cells < 2 * particles)
		cells *= 2;
	for (int length = cells + 1;; length = (length + 1023) / 1024) {
		scan += length > 1024 ? 2 : 1; // up, and down again over several blocks
		if (length <= 1024 || (length + 1023) / 1024 <= 1024)
			break; // one block, or sums that one block holds (the down stage sums them)
	}
	const int contact = 4 + scan;
	const int S = wd->step.substeps, I = wd->step.iterations;
	switch (wd->step.solver) {
	case WF_SOLVER_XPBD: return 1 + S * (1 + I * colors + contact + 1) + 1 + 2;
	case WF_SOLVER_JACOBI: return 1 + S * (1 + I + contact + 1) + 1 + 2;
	case WF_SOLVER_SPRINGS: return 1 + S * (1 + contact + 1) + 1 + 2;
	}
	return -1;
}

// The folded heap on the CPU and on Vulkan side by side for 600 frames: the closest non-excluded
// pair of the GPU's cloth (every 20th frame) stays within 10 % of the contact distance, no edge
// crosses a triangle (every 60th), and the two backends hold the same bits.
WF_TEST(vk_self_folded_heap)
{
	if (wfVkTestMissing())
		return 0;
	wfWorldDef wd;
	wfClothDef cd;
	float thickness;
	HeapDefs(&wd, &cd, &thickness);
	wfWorld* cpu = wfVkTestWorld(wd, WF_BACKEND_CPU);
	wfWorld* gpu = wfVkTestWorld(wd, WF_BACKEND_VULKAN);
	ENSURE(cpu != NULL && gpu != NULL);
	ENSURE(wfWorld_GetBackend(gpu) == WF_BACKEND_VULKAN);
	wfClothId a = wfCreateCloth(cpu, &cd), b = wfCreateCloth(gpu, &cd);
	ENSURE(!wfClothId_IsNull(a) && !wfClothId_IsNull(b));
	wfVec3* p = (wfVec3*)malloc(N * N * sizeof(wfVec3));
	int* layer = (int*)malloc(N * N * sizeof(int));
	ENSURE(p != NULL && layer != NULL);
	const float dx = cd.width / (N - 1);
	wfTestZFold(p, layer, dx, 1.5f * 2.0f * thickness, 0.15f);
	ENSURE(wfCloth_WritePositions(a, p, N * N) == WF_OK && wfCloth_WritePositions(b, p, N * N) == WF_OK);
	const wfVec4* rest = wfGetCloth(b)->model.restPositions;
	const float d = 2.0f * thickness, exclude = wd.selfCollision.exclusion * d;
	float closest = 1e9f;
	int crossings = 0;
	double worst = 0.0;
	for (int frame = 0; frame < 600; ++frame) {
		ENSURE(wfWorld_Step(cpu) == WF_OK);
		ENSURE(wfWorld_Step(gpu) == WF_OK);
		if (frame % 20 != 19)
			continue;
		const double diff = wfVkTestMaxDiff(a, b, N * N);
		worst = diff > worst || diff < 0.0 ? diff : worst;
		ENSURE(wfCloth_ReadPositions(b, p, N * N) == WF_OK);
		if (frame % 60 == 59)
			crossings += wfTestCountCrossings(b, p);
		closest = fminf(closest, Closest(p, rest, N * N, exclude));
	}
	const wfStepProfile prof = wfWorld_GetStepProfile(gpu);
	fprintf(stderr,
		"  %s, 600 frames: closest non-excluded pair %.5f m (contact %.5f m), edges through triangles %d "
		"(every 60th frame), largest CPU-GPU difference %.3g m, %d dispatches a frame\n",
		wfWorld_GetDeviceName(gpu), (double)closest, (double)d, crossings, worst, prof.dispatches);
	ENSURE_LE(0.9 * d, closest);
	ENSURE_NEAR(crossings, 0, 0);
	if (wfVkTestDeviceIsExact())
		ENSURE_NEAR(worst, 0.0, 0.0);
	// 1 600 particles: the fused kernel with its own grid (fused_self.glsl), one dispatch a frame;
	// the per-range path's contact pass is counted in vk_self_large_cloth_scan.
	ENSURE_NEAR(prof.dispatches, 1, 0);
	wfWarnings wc = wfWorld_GetWarnings(cpu), wg = wfWorld_GetWarnings(gpu);
	ENSURE(wg.unstable == 0 && wg.nonFinite == 0 && wc.unstable == 0 && wc.nonFinite == 0);
	ENSURE_NEAR(ValidationMessages(gpu), 0, 0);
	free(p);
	free(layer);
	wfDestroyWorld(cpu);
	wfDestroyWorld(gpu);
	return 0;
}

// Two 20 x 20 sheets, self-collision and cloth against cloth, dropped onto each other and the
// floor (test_self.c's determinism world) for `frames` frames of `solver`: both cloths' positions
// into out (2 x 400), optionally with a snapshot at frame 40 restored after 10 frames elsewhere.
static int TwoSheets(wfBackendType backend, wfSolverType solver, int frames, bool snapshot, wfVec3 out[800], long long* validation)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.floor.enabled = true;
	wd.selfCollision.enabled = true;
	wd.selfCollision.betweenCloths = true;
	wd.selfCollision.thickness = 0.02f;
	wd.step.solver = solver;
	if (solver == WF_SOLVER_JACOBI)
		wd.step.iterations = 3;
	if (solver == WF_SOLVER_SPRINGS)
		wd.step.substeps = 32; // under the springs' stability limit at the default material
	wfWorld* w = wfVkTestWorld(wd, backend);
	ENSURE(w != NULL);
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = 20;
	cd.width = cd.height = 0.8f;
	cd.origin = (wfVec3){0.0f, 0.3f, 0.0f};
	cd.pinMode = WF_PIN_NONE;
	wfClothId a = wfCreateCloth(w, &cd);
	cd.origin = (wfVec3){0.1f, 0.45f, 0.05f};
	wfClothId b = wfCreateCloth(w, &cd);
	ENSURE(!wfClothId_IsNull(a) && !wfClothId_IsNull(b));
	void* snap = NULL;
	size_t size = wfWorld_GetSnapshotSize(w);
	for (int f = 0; f < frames; ++f) {
		if (snapshot && f == 40) {
			snap = malloc(size);
			ENSURE(snap != NULL && wfWorld_SaveSnapshot(w, snap, size) == WF_OK);
			for (int g = 0; g < 10; ++g)
				ENSURE(wfWorld_Step(w) == WF_OK); // wander off, then come back
			ENSURE(wfWorld_RestoreSnapshot(w, snap, size) == WF_OK);
		}
		ENSURE(wfWorld_Step(w) == WF_OK);
	}
	free(snap);
	ENSURE(wfCloth_ReadPositions(a, out, 400) == WF_OK && wfCloth_ReadPositions(b, out + 400, 400) == WF_OK);
	wfWarnings warn = wfWorld_GetWarnings(w);
	ENSURE(warn.unstable == 0 && warn.nonFinite == 0);
	*validation += warn.validationMessages;
	wfDestroyWorld(w);
	return 0;
}

// Largest |dx| + |dy| + |dz| over n particles.
static double MaxDiff(const wfVec3* p, const wfVec3* q, int n)
{
	double worst = 0.0;
	for (int i = 0; i < n; ++i) {
		double d = fabs((double)p[i].x - q[i].x) + fabs((double)p[i].y - q[i].y) + fabs((double)p[i].z - q[i].z);
		worst = d > worst || d != d ? d : worst;
	}
	return worst;
}

// Determinism on the device: two runs of the two sheets give the same bits, and so does a run
// restored from a snapshot mid-way (the hash is rebuilt every substep from the state alone; the
// atomics' order never reaches the result).
WF_TEST(vk_self_deterministic_and_snapshot)
{
	if (wfVkTestMissing())
		return 0;
	static wfVec3 p[4][800];
	long long messages = 0;
	ENSURE(TwoSheets(WF_BACKEND_VULKAN, WF_SOLVER_XPBD, 80, false, p[0], &messages) == 0);
	ENSURE(TwoSheets(WF_BACKEND_VULKAN, WF_SOLVER_XPBD, 80, false, p[1], &messages) == 0);
	ENSURE(TwoSheets(WF_BACKEND_VULKAN, WF_SOLVER_XPBD, 80, true, p[2], &messages) == 0);
	ENSURE(TwoSheets(WF_BACKEND_CPU, WF_SOLVER_XPBD, 80, false, p[3], &messages) == 0);
	const int differentRun = memcmp(p[0], p[1], sizeof p[0]) != 0, differentRestored = memcmp(p[0], p[2], sizeof p[0]) != 0;
	const double cpu = MaxDiff(p[0], p[3], 800);
	fprintf(stderr, "  two runs: %s; restored from a snapshot: %s; against the CPU %.3g m (corner at y %.6f)\n",
		differentRun ? "differ" : "the same bits", differentRestored ? "differ" : "the same bits", cpu, (double)p[0][0].y);
	ENSURE_NEAR(differentRun, 0, 0);
	ENSURE_NEAR(differentRestored, 0, 0);
	if (wfVkTestDeviceIsExact())
		ENSURE_NEAR(cpu, 0.0, 0.0);
	ENSURE_NEAR(messages, 0, 0);
	return 0;
}

// The other solvers: Jacobi (friction, retention in the velocities) and explicit springs (no
// friction, ping-pong buffers) with self-collision and cloth against cloth, against the CPU.
WF_TEST(vk_self_solvers_match_cpu)
{
	if (wfVkTestMissing())
		return 0;
	static wfVec3 p[2][800];
	const wfSolverType solvers[2] = {WF_SOLVER_JACOBI, WF_SOLVER_SPRINGS};
	long long messages = 0;
	for (int k = 0; k < 2; ++k) {
		ENSURE(TwoSheets(WF_BACKEND_CPU, solvers[k], 50, false, p[0], &messages) == 0);
		ENSURE(TwoSheets(WF_BACKEND_VULKAN, solvers[k], 50, false, p[1], &messages) == 0);
		const double diff = MaxDiff(p[0], p[1], 800);
		fprintf(stderr, "  %s, 50 frames: largest CPU-GPU difference %.3g m\n", wfSolverName(solvers[k]), diff);
		if (wfVkTestDeviceIsExact())
			ENSURE_NEAR(diff, 0.0, 0.0);
	}
	ENSURE_NEAR(messages, 0, 0);
	return 0;
}

// Cloth against cloth on Vulkan: test_self.c's hammock. A 14 x 14 sheet dropped onto a 24 x 24 one
// hung by its corners stays on it, the closest pair of the two within 10 % of the contact distance;
// without the contacts it falls through (the test can fail). The CPU's bits with the contacts.
static int Hammock(wfBackendType backend, bool between, wfVec3 pa[576], wfVec3 pb[196], long long* messages)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.step.substeps = 10;
	wd.step.iterations = 2;
	wd.selfCollision.betweenCloths = between;
	wd.selfCollision.thickness = 0.02f;
	wd.selfCollision.friction = 0.3f;
	wfWorld* w = wfVkTestWorld(wd, backend);
	ENSURE(w != NULL);
	wfClothDef low = wfDefaultClothDef();
	low.cols = low.rows = 24;
	low.width = low.height = 1.0f;
	low.origin = (wfVec3){0.0f, 0.5f, 0.0f};
	low.pinMode = WF_PIN_CORNERS;
	low.material.mass = 0.01f;
	wfClothDef high = low;
	high.cols = high.rows = 14;
	high.width = high.height = 0.55f;
	high.origin = (wfVec3){0.05f, 0.7f, 0.02f};
	high.pinMode = WF_PIN_NONE;
	wfClothId a = wfCreateCloth(w, &low), b = wfCreateCloth(w, &high);
	ENSURE(!wfClothId_IsNull(a) && !wfClothId_IsNull(b));
	for (int frame = 0; frame < 150; ++frame)
		ENSURE(wfWorld_Step(w) == WF_OK);
	ENSURE(wfCloth_ReadPositions(a, pa, 576) == WF_OK && wfCloth_ReadPositions(b, pb, 196) == WF_OK);
	wfWarnings warn = wfWorld_GetWarnings(w);
	ENSURE(warn.unstable == 0 && warn.nonFinite == 0);
	*messages += warn.validationMessages;
	wfDestroyWorld(w);
	return 0;
}

// The closest pair of the two cloths, and the top sheet's particles under the hammock particle
// nearest to them horizontally.
static void HammockMeasure(const wfVec3 pa[576], const wfVec3 pb[196], float* closest, int* below)
{
	*closest = 1e9f;
	*below = 0;
	for (int j = 0; j < 196; ++j) {
		float nearest = 1e9f, yAt = 0.0f;
		for (int i = 0; i < 576; ++i) {
			float ex = pa[i].x - pb[j].x, ey = pa[i].y - pb[j].y, ez = pa[i].z - pb[j].z;
			*closest = fminf(*closest, sqrtf(ex * ex + ey * ey + ez * ez));
			float h = ex * ex + ez * ez;
			if (h < nearest) {
				nearest = h;
				yAt = pa[i].y;
			}
		}
		*below += pb[j].y < yAt;
	}
}

WF_TEST(vk_cloth_against_cloth_hammock)
{
	if (wfVkTestMissing())
		return 0;
	static wfVec3 pa[3][576], pb[3][196];
	long long messages = 0;
	ENSURE(Hammock(WF_BACKEND_VULKAN, true, pa[0], pb[0], &messages) == 0);
	ENSURE(Hammock(WF_BACKEND_VULKAN, false, pa[1], pb[1], &messages) == 0);
	ENSURE(Hammock(WF_BACKEND_CPU, true, pa[2], pb[2], &messages) == 0);
	float with = 0.0f, without = 0.0f;
	int belowWith = 0, belowWithout = 0;
	HammockMeasure(pa[0], pb[0], &with, &belowWith);
	HammockMeasure(pa[1], pb[1], &without, &belowWithout);
	const double diff = fmax(MaxDiff(pa[0], pa[2], 576), MaxDiff(pb[0], pb[2], 196));
	fprintf(stderr,
		"  Vulkan, 150 frames: closest pair of the two cloths %.4f m with contacts (contact 0.04 m), %.4f m without; "
		"top sheet particles under the hammock %d of 196 with, %d without; largest CPU-GPU difference %.3g m\n",
		(double)with, (double)without, belowWith, belowWithout, diff);
	ENSURE_NEAR(belowWith, 0, 0);
	ENSURE_LE(0.9 * 0.04, with);
	ENSURE(belowWithout > 100);
	if (wfVkTestDeviceIsExact())
		ENSURE_NEAR(diff, 0.0, 0.0);
	ENSURE_NEAR(messages, 0, 0);
	return 0;
}

// The scan across workgroups at scale: a 256 x 256 sheet (65 536 particles, a hash of 131 072 cells:
// 129 blocks of counts, each down block summing the sums before it) with a contact distance of 1.2 spacings and no
// exclusion, so that every particle touches its neighbours and every cell list matters. Two frames
// on both backends: the same bits, and not those of the run without self-collision.
WF_TEST(vk_self_large_cloth_scan)
{
	if (wfVkTestMissing())
		return 0;
	enum { M = 256, C = M * M };
	wfWorldDef wd = wfDefaultWorldDef();
	wd.step.substeps = 2;
	wd.step.iterations = 1;
	wd.selfCollision.enabled = true;
	wd.selfCollision.exclusion = 0.0f;
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = M;
	cd.width = cd.height = 2.0f;
	cd.jitter = 0.5f;
	wd.selfCollision.thickness = 0.6f * cd.width / (M - 1);
	wfVec3* p[3];
	for (int k = 0; k < 3; ++k)
		p[k] = (wfVec3*)malloc(C * sizeof(wfVec3));
	ENSURE(p[0] != NULL && p[1] != NULL && p[2] != NULL);
	long long messages = 0;
	int dispatches = 0, colors = 0;
	for (int k = 0; k < 3; ++k) {
		wfWorldDef run = wd;
		run.selfCollision.enabled = k < 2;
		wfWorld* w = wfVkTestWorld(run, k == 1 ? WF_BACKEND_VULKAN : WF_BACKEND_CPU);
		ENSURE(w != NULL);
		wfClothId id = wfCreateCloth(w, &cd);
		ENSURE(!wfClothId_IsNull(id));
		for (int f = 0; f < 2; ++f)
			ENSURE(wfWorld_Step(w) == WF_OK);
		ENSURE(wfCloth_ReadPositions(id, p[k], C) == WF_OK);
		if (k == 1) {
			wfClothInfo info;
			ENSURE(wfCloth_GetInfo(id, &info) == WF_OK);
			colors = info.colorCount;
			dispatches = wfWorld_GetStepProfile(w).dispatches;
			messages = ValidationMessages(w);
		}
		wfDestroyWorld(w);
	}
	const double diff = MaxDiff(p[0], p[1], C), effect = MaxDiff(p[0], p[2], C);
	fprintf(stderr,
		"  256 x 256, 2 frames: largest CPU-GPU difference %.3g m; self-collision moved a particle by %.3g m; "
		"%d dispatches a frame\n",
		diff, effect, dispatches);
	if (wfVkTestDeviceIsExact())
		ENSURE_NEAR(diff, 0.0, 0.0);
	else
		ENSURE_LE(diff, 1e-4 * cd.width);
	ENSURE(effect > 1e-4);
	ENSURE_NEAR(dispatches, SelfDispatches(&wd, colors, C), 0);
	ENSURE_NEAR(messages, 0, 0);
	for (int k = 0; k < 3; ++k)
		free(p[k]);
	return 0;
}

// wfWorld_SetSelfCollision on a Vulkan world: thickness, friction and exclusion change live (the
// frame is recorded again with the new constants) and step as the CPU world given the same change;
// enabled and betweenCloths stay as created, refused by name.
WF_TEST(vk_self_set_live)
{
	if (wfVkTestMissing())
		return 0;
	wfWorldDef wd;
	wfClothDef cd;
	float thickness;
	HeapDefs(&wd, &cd, &thickness);
	wfWorld* w[3] = {wfVkTestWorld(wd, WF_BACKEND_CPU), wfVkTestWorld(wd, WF_BACKEND_VULKAN), wfVkTestWorld(wd, WF_BACKEND_VULKAN)};
	ENSURE(w[0] != NULL && w[1] != NULL && w[2] != NULL);
	wfClothId id[3];
	wfVec3* p = (wfVec3*)malloc(N * N * sizeof(wfVec3));
	int* layer = (int*)malloc(N * N * sizeof(int));
	ENSURE(p != NULL && layer != NULL);
	wfTestZFold(p, layer, cd.width / (N - 1), 1.5f * 2.0f * thickness, 0.15f);
	for (int k = 0; k < 3; ++k) {
		id[k] = wfCreateCloth(w[k], &cd);
		ENSURE(!wfClothId_IsNull(id[k]));
		ENSURE(wfCloth_WritePositions(id[k], p, N * N) == WF_OK);
	}
	wfSelfCollisionDef changed = wd.selfCollision;
	changed.thickness = 1.25f * thickness;
	changed.friction = 0.05f;
	changed.exclusion = 1.2f;
	for (int frame = 0; frame < 60; ++frame) {
		if (frame == 20) { // worlds 0 (CPU) and 1 change; world 2 keeps the creation's settings
			ENSURE(wfWorld_SetSelfCollision(w[0], &changed) == WF_OK);
			ENSURE(wfWorld_SetSelfCollision(w[1], &changed) == WF_OK);
		}
		for (int k = 0; k < 3; ++k)
			ENSURE(wfWorld_Step(w[k]) == WF_OK);
	}
	const double cpuGpu = wfVkTestMaxDiff(id[0], id[1], N * N), effect = wfVkTestMaxDiff(id[1], id[2], N * N);
	ENSURE(wfCloth_ReadPositions(id[1], p, N * N) == WF_OK);
	const float closest = Closest(p, wfGetCloth(id[1])->model.restPositions, N * N, changed.exclusion * 2.0f * changed.thickness);
	fprintf(stderr,
		"  changed at frame 20: CPU-GPU difference %.3g m, against the unchanged GPU world %.3g m; closest pair %.5f m "
		"(new contact distance %.5f m)\n",
		cpuGpu, effect, (double)closest, 2.0 * changed.thickness);
	if (wfVkTestDeviceIsExact())
		ENSURE_NEAR(cpuGpu, 0.0, 0.0);
	ENSURE_LE(1e-4, effect);
	ENSURE_LE(0.9 * 2.0 * changed.thickness, closest);
	// What a Vulkan world keeps from its creation, refused by name and changing nothing.
	wfSelfCollisionDef off = changed;
	off.enabled = false;
	ENSURE(wfWorld_SetSelfCollision(w[1], &off) == WF_ERROR_INVALID_DEF);
	ENSURE(strstr(wfWorld_GetLastError(w[1]), "selfCollision.enabled: fixed at creation on a Vulkan world") != NULL);
	off = changed;
	off.betweenCloths = true;
	ENSURE(wfWorld_SetSelfCollision(w[1], &off) == WF_ERROR_INVALID_DEF);
	ENSURE(strstr(wfWorld_GetLastError(w[1]), "selfCollision.betweenCloths") != NULL);
	ENSURE(wfWorld_GetDef(w[1]).selfCollision.enabled && wfWorld_GetDef(w[1]).selfCollision.thickness == changed.thickness);
	wfClothDef grouped = cd;
	grouped.collisionGroup = 2;
	ENSURE(!wfClothId_IsNull(wfCreateCloth(w[1], &grouped))); // per-pair switches: vk_stacked_switch_same_bits
	ENSURE_NEAR(ValidationMessages(w[1]) + ValidationMessages(w[2]), 0, 0);
	free(p);
	free(layer);
	for (int k = 0; k < 3; ++k)
		wfDestroyWorld(w[k]);
	return 0;
}

// One frame of a CPU world w[0] and a Vulkan world w[1]: *equal counts the frames after which the
// whole states' hashes agree.
static int StepPair(wfWorld* w[2], int* equal)
{
	uint64_t h[2];
	for (int k = 0; k < 2; ++k)
		ENSURE(wfWorld_Step(w[k]) == WF_OK && wfWorld_GetStateHash(w[k], &h[k]) == WF_OK);
	*equal += h[0] == h[1];
	return 0;
}

// Thickness 0 (the cloths' own, wfSelfContact) on Vulkan: a 20 x 20 sheet of 1 m falls over a
// sphere and folds; at frame 10 a finer 30 x 30 sheet of 0.6 m is dropped onto it (cloth against cloth on), and
// the thickness in use becomes half the new sheet's mean edge (2.63 -> 1.03 cm); at frame 25 the
// fine sheet goes and it is the first sheet's again. The GPU's contact constants follow (written as
// the arrays grow for the new cloth, and through the backend's setter as the cloth goes): the whole
// state's hash equals the CPU's after each of 40 frames on an exact device (lavapipe).
WF_TEST(vk_self_thickness_from_cloths)
{
	if (wfVkTestMissing())
		return 0;
	wfWorldDef wd = wfDefaultWorldDef();
	wd.step.substeps = 8;
	wd.floor.enabled = true;
	wd.sphere = (wfSphereDef){.enabled = true, .center = {0.0f, 0.25f, 0.0f}, .radius = 0.25f};
	wd.selfCollision.enabled = true;
	wd.selfCollision.betweenCloths = true;
	wfWorld* w[2] = {wfVkTestWorld(wd, WF_BACKEND_CPU), wfVkTestWorld(wd, WF_BACKEND_VULKAN)};
	ENSURE(w[0] != NULL && w[1] != NULL);
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = 20;
	cd.width = cd.height = 1.0f;
	cd.pinMode = WF_PIN_NONE;
	cd.origin = (wfVec3){-0.5f, 0.6f, -0.5f};
	for (int k = 0; k < 2; ++k)
		ENSURE(!wfClothId_IsNull(wfCreateCloth(w[k], &cd)));
	float thickness[3] = {wfWorld_GetSelfThickness(w[1]), 0.0f, 0.0f};
	wfClothId fine[2];
	int equal = 0, frames = 0;
	for (int f = 0; f < 40; ++f, ++frames) {
		if (f == 10) {
			cd.cols = cd.rows = 30;
			cd.width = cd.height = 0.6f;
			cd.origin = (wfVec3){-0.3f, 0.8f, -0.3f};
			for (int k = 0; k < 2; ++k)
				ENSURE(!wfClothId_IsNull(fine[k] = wfCreateCloth(w[k], &cd)));
			thickness[1] = wfWorld_GetSelfThickness(w[1]);
			ENSURE(wfWorld_GetSelfThickness(w[0]) == thickness[1]);
		} else if (f == 25) {
			for (int k = 0; k < 2; ++k)
				wfDestroyCloth(fine[k]);
			thickness[2] = wfWorld_GetSelfThickness(w[1]);
		}
		ENSURE(StepPair(w, &equal) == 0);
	}
	fprintf(stderr, "  thickness %.5f m, with the finer sheet %.5f m, without it again %.5f m; state hashes equal after %d of %d frames\n",
		(double)thickness[0], (double)thickness[1], (double)thickness[2], equal, frames);
	ENSURE(fabsf(thickness[0] - 0.5f / 19.0f) < 1e-6f && fabsf(thickness[1] - 0.5f * 0.6f / 29.0f) < 1e-6f);
	ENSURE(thickness[2] == thickness[0]);
	if (wfVkTestDeviceIsExact())
		ENSURE(equal == frames);
	ENSURE_NEAR(ValidationMessages(w[1]), 0, 0);
	for (int k = 0; k < 2; ++k)
		wfDestroyWorld(w[k]);
	return 0;
}

// Self-collision inside the fused kernel (fused_self.glsl): three small cloths (12 x 12, 20 x 20
// and 30 x 30: one batch dispatch of 256 invocations a cloth), each folded in half, its upper half
// falling onto its lower on the floor, for each solver and velocity mode, on the CPU and on Vulkan. The
// CPU's state hash after every one of 60 frames on lavapipe; every cloth in the batch (one
// dispatch a frame); and the run without self-collision ends elsewhere (the contacts act).
static int FoldingCloths(wfBackendType backend, wfSolverType solver, wfVelocityMode velocity, float thickness, bool self, uint64_t* hashes,
	int frames, int* dispatches, long long* messages)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.step.solver = solver;
	wd.step.timeStep = 0.005f;
	wd.step.substeps = 8;
	wd.step.iterations = solver == WF_SOLVER_JACOBI ? 2 : 1;
	wd.velocity = velocity;
	wd.sphere.enabled = false;
	wd.floor.enabled = true;
	wd.contact.thickness = 0.002f;
	wd.contact.friction = 0.5f;
	wd.selfCollision.enabled = self;
	wd.selfCollision.friction = 0.3f;
	wd.selfCollision.thickness = thickness;
	// A thick contact reaches the diagonal neighbours (the exclusion takes only the direct ones):
	// each particle sums 4 or more contacts, so their order shows in the bits.
	wd.selfCollision.exclusion = thickness > 0.0f ? 0.6f : wd.selfCollision.exclusion;
	wfWorld* w = wfVkTestWorld(wd, backend);
	ENSURE(w != NULL);
	const int sides[3] = {12, 20, 30};
	static wfVec3 p[900];
	for (int k = 0; k < 3; ++k) {
		const int n = sides[k], half = n / 2;
		const float dx = 0.01f;
		wfClothDef cd = wfDefaultClothDef();
		cd.cols = cd.rows = n;
		cd.width = cd.height = dx * (float)(n - 1);
		cd.pinMode = WF_PIN_NONE;
		cd.material.mass = 0.05f;
		cd.material.bendCompliance = 1e-2f;
		if (solver == WF_SOLVER_SPRINGS)
			cd.material.stiffness = 400.0f;
		wfClothId id = wfCreateCloth(w, &cd);
		ENSURE(!wfClothId_IsNull(id));
		// Folded in half across its columns, the upper half 1.5 cm above the lower (1.5 contact
		// distances at the default thickness, half an edge), 5 cm over the floor.
		for (int r = 0; r < n; ++r) {
			for (int c = 0; c < n; ++c) {
				const bool upper = c >= half;
				const float x = dx * (float)(upper ? 2 * half - 1 - c : c);
				p[r * n + c] = (wfVec3){0.5f * (float)k + x, 0.05f + (upper ? 1.5f * dx : 0.0f), dx * (float)r};
			}
		}
		ENSURE(wfCloth_WritePositions(id, p, n * n) == WF_OK);
	}
	for (int f = 0; f < frames; ++f)
		ENSURE(wfWorld_Step(w) == WF_OK && wfWorld_GetStateHash(w, &hashes[f]) == WF_OK);
	*dispatches = wfWorld_GetStepProfile(w).dispatches;
	wfWarnings warn = wfWorld_GetWarnings(w);
	ENSURE(warn.nonFinite == 0);
	*messages += warn.validationMessages;
	wfDestroyWorld(w);
	return 0;
}

WF_TEST(vk_self_fused_matches_cpu)
{
	if (wfVkTestMissing())
		return 0;
	enum { F = 100 };
	const struct {
		wfSolverType solver;
		wfVelocityMode velocity;
		float thickness; // 0: the default (half the edge)
	} cases[] = {
		{WF_SOLVER_XPBD, WF_VELOCITY_POSITIONS, 0.0f},
		{WF_SOLVER_XPBD, WF_VELOCITY_POSITIONS, 0.01f},
		{WF_SOLVER_XPBD, WF_VELOCITY_MOVES, 0.01f},
		{WF_SOLVER_JACOBI, WF_VELOCITY_MOVES, 0.01f},
		{WF_SOLVER_SPRINGS, WF_VELOCITY_POSITIONS, 0.01f},
	};
	long long messages = 0;
	for (int k = 0; k < (int)(sizeof cases / sizeof cases[0]); ++k) {
		static uint64_t h[3][F];
		int dispatches = 0, unused = 0;
		const float d = cases[k].thickness;
		ENSURE(FoldingCloths(WF_BACKEND_CPU, cases[k].solver, cases[k].velocity, d, true, h[0], F, &unused, &messages) == 0);
		ENSURE(FoldingCloths(WF_BACKEND_VULKAN, cases[k].solver, cases[k].velocity, d, true, h[1], F, &dispatches, &messages) == 0);
		ENSURE(FoldingCloths(WF_BACKEND_CPU, cases[k].solver, cases[k].velocity, d, false, h[2], F, &unused, &messages) == 0);
		int equal = 0, apart = 0;
		for (int f = 0; f < F; ++f) {
			equal += h[0][f] == h[1][f];
			apart += h[0][f] != h[2][f];
		}
		fprintf(stderr,
			"  %s, velocity %s, thickness %s: %d dispatches a frame; CPU and Vulkan state hashes equal after %d of %d frames; "
			"without self-collision different after %d\n",
			wfSolverName(cases[k].solver), cases[k].velocity == WF_VELOCITY_MOVES ? "moves" : "positions", d > 0.0f ? "1 cm" : "default",
			dispatches, equal, F, apart);
		ENSURE(dispatches == 1);
		ENSURE(apart > 0 && h[0][F - 1] != h[2][F - 1]);
		if (wfVkTestDeviceIsExact())
			ENSURE(equal == F);
	}
	ENSURE_NEAR(messages, 0, 0);
	return 0;
}

// The continuous passes switched on live (wfWorld_SetSelfCollision) in a world whose small cloths
// collide with themselves in the fused kernel: a cloth alone takes the per-range path for them (the
// CPU's state hash after each frame, before and after), but with a second cloth batched beside it
// they are refused with the field's name, and nothing changes (the world steps on with the CPU's bits).
WF_TEST(vk_self_fused_passes_live)
{
	if (wfVkTestMissing())
		return 0;
	wfWorldDef wd = wfDefaultWorldDef();
	wd.step.substeps = 8;
	wd.floor.enabled = true;
	wd.selfCollision.enabled = true;
	wfWorld* w[2] = {wfVkTestWorld(wd, WF_BACKEND_CPU), wfVkTestWorld(wd, WF_BACKEND_VULKAN)};
	ENSURE(w[0] != NULL && w[1] != NULL);
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = 16;
	cd.width = cd.height = 0.3f;
	cd.pinMode = WF_PIN_NONE;
	cd.origin = (wfVec3){0.0f, 0.2f, 0.0f};
	for (int k = 0; k < 2; ++k)
		ENSURE(!wfClothId_IsNull(wfCreateCloth(w[k], &cd)));
	wfSelfCollisionDef passes = wd.selfCollision;
	passes.pointTriangle = true;
	int equal = 0, frames = 0, dispatches[2] = {0, 0};
	for (int f = 0; f < 20; ++f, ++frames) {
		if (f == 5)
			ENSURE(wfWorld_SetSelfCollision(w[0], &passes) == WF_OK && wfWorld_SetSelfCollision(w[1], &passes) == WF_OK);
		ENSURE(StepPair(w, &equal) == 0);
		dispatches[f < 5 ? 0 : 1] = wfWorld_GetStepProfile(w[1]).dispatches;
	}
	// A second cloth joins the first one's batch once the passes are off again; then they are refused.
	wfSelfCollisionDef plain = wd.selfCollision;
	for (int k = 0; k < 2; ++k)
		ENSURE(wfWorld_SetSelfCollision(w[k], &plain) == WF_OK);
	cd.origin = (wfVec3){1.0f, 0.2f, 0.0f};
	for (int k = 0; k < 2; ++k)
		ENSURE(!wfClothId_IsNull(wfCreateCloth(w[k], &cd)));
	const wfResult refused = wfWorld_SetSelfCollision(w[1], &passes);
	const char* why = wfWorld_GetLastError(w[1]);
	for (int f = 0; f < 10; ++f, ++frames) {
		ENSURE(StepPair(w, &equal) == 0);
	}
	const int batched = wfWorld_GetStepProfile(w[1]).dispatches;
	fprintf(stderr,
		"  dispatches a frame: fused %d, with the point-triangle pass %d, two cloths batched %d; refused: %s; "
		"state hashes equal after %d of %d frames\n",
		dispatches[0], dispatches[1], batched, why, equal, frames);
	ENSURE(dispatches[0] == 1 && dispatches[1] > 100 && batched == 1);
	ENSURE(refused == WF_ERROR_INVALID_DEF && strstr(why, "selfCollision.pointTriangle") != NULL);
	ENSURE(!wfWorld_GetDef(w[1]).selfCollision.pointTriangle); // the refused setting did not stick
	if (wfVkTestDeviceIsExact())
		ENSURE(equal == frames);
	ENSURE_NEAR(ValidationMessages(w[1]), 0, 0);
	for (int k = 0; k < 2; ++k)
		wfDestroyWorld(w[k]);
	return 0;
}
