// Vulkan fused small-cloth path (fused.glsl): a cloth of at most 4096 particles is stepped by one
// workgroup per frame, and all such cloths of a world by one dispatch (one workgroup each).
// Checked against the CPU backend and the per-range path, with the dispatch count proving which
// path ran. lavapipe in CI (32 KB of shared memory): cloths over 2676 particles keep their
// positions in buffers, the others in shared memory; both are covered.
#include "test.h"
#include "vk_test_util.h"

#include "core/internal.h"

#include <stdlib.h>
#include <string.h>

#ifdef WEFT_HAVE_VULKAN
#include "vulkan/vk_internal.h"

// A test world; on Vulkan the fused kernel takes lone cloths of every solver too (these tests
// check the fused kernel: WEFT_VK_FUSED=1's switch).
static wfWorld* FusedWorld(wfWorldDef wd, wfBackendType backend)
{
	wfWorld* w = wfVkTestWorld(wd, backend);
	if (w != NULL && backend == WF_BACKEND_VULKAN)
		((wfVkContext*)w->backendData)->fusedForced = true;
	return w;
}

// The preset with the asked solver, its substeps cut for lavapipe (springs keep a stable step).
static void FusedPreset(const char* preset, wfSolverType solver, int substeps, wfWorldDef* wd, wfClothDef* cd)
{
	wfPresetGet(preset, wd, cd);
	if (wd->step.solver != solver) {
		wd->step.solver = solver;
		wd->step.iterations = solver == WF_SOLVER_JACOBI ? 4 : solver == WF_SOLVER_XPBD ? 2 : 1;
	}
	wd->step.substeps = substeps;
	if (solver == WF_SOLVER_SPRINGS) {
		float limit = sqrtf(2.0f * cd->material.mass / (cd->material.stiffness * 12.0f));
		while (wd->step.timeStep / (float)wd->step.substeps > 0.5f * limit && wd->step.substeps < 256)
			wd->step.substeps *= 2;
	}
}

// One cloth of cols x rows: fused on the GPU against the CPU, frame by frame, with the velocity
// mode asked for (the presets' own is "positions"). Also checks that the fused path ran: one
// dispatch per frame; on an exact device (lavapipe) the same bits.
static int FusedAgainstCpu(const char* preset, wfSolverType solver, int cols, int rows, int substeps, int frames, wfVelocityMode mode,
	double* worstOut)
{
	wfWorldDef wd;
	wfClothDef cd;
	FusedPreset(preset, solver, substeps, &wd, &cd);
	wd.velocity = mode;
	cd.cols = cols;
	cd.rows = rows;
	wfWorld* cpu = FusedWorld(wd, WF_BACKEND_CPU);
	wfWorld* gpu = FusedWorld(wd, WF_BACKEND_VULKAN);
	ENSURE(cpu != NULL && gpu != NULL);
	wfClothId a = wfCreateCloth(cpu, &cd), b = wfCreateCloth(gpu, &cd);
	ENSURE(!wfClothId_IsNull(a) && !wfClothId_IsNull(b));
	double worst = 0.0;
	for (int f = 0; f < frames; ++f) {
		ENSURE(wfWorld_Step(cpu) == WF_OK);
		ENSURE(wfWorld_Step(gpu) == WF_OK);
		double d = wfVkTestMaxDiff(a, b, cols * rows);
		worst = d > worst || d < 0.0 ? d : worst;
	}
	wfStepProfile prof = wfWorld_GetStepProfile(gpu);
	const wfVkContext* ctx = (const wfVkContext*)gpu->backendData;
	fprintf(stderr,
		"  %s/%s %d x %d, %d substeps x %d iterations, velocity %s, %d frames: %d dispatch(es)/frame, positions in %s, worst %.3g\n",
		preset, wfSolverName(solver), cols, rows, wd.step.substeps, wd.step.iterations, mode == WF_VELOCITY_MOVES ? "moves" : "positions",
		frames, prof.dispatches,
		3u * (uint32_t)(cols * rows) <= ctx->fusedSharedFloats - WF_GPU_FUSED_SHARED_WORDS ? "shared memory" : "buffers", worst);
	ENSURE(prof.dispatches == 1 && ctx->fusedClothsPerFrame == 1);
	wfWarnings wg = wfWorld_GetWarnings(gpu), wc = wfWorld_GetWarnings(cpu);
	ENSURE(wc.nonFinite == wg.nonFinite && wc.unstable == wg.unstable);
	ENSURE(wg.validationMessages == 0);
	const double size = cd.width > cd.height ? cd.width : cd.height;
	ENSURE_LE(worst, wfVkTestDeviceIsExact() ? 0.0 : 1e-4 * size);
	*worstOut = worst;
	wfDestroyWorld(cpu);
	wfDestroyWorld(gpu);
	return 0;
}

static const char* const kPresets[3] = {"xpbd", "compute-cloth", "spring-mesh"};

// Each solver on each preset, small non-square grids (shared memory on every device).
static int FusedEveryPreset(wfSolverType solver)
{
	if (wfVkTestMissing())
		return 0;
	for (int p = 0; p < 3; ++p) {
		for (int mode = 0; mode < 2; ++mode) {
			double worst;
			if (FusedAgainstCpu(kPresets[p], solver, 9 + 2 * p, 7 + 3 * p, 6, 6, (wfVelocityMode)mode, &worst) != 0)
				return 1;
		}
	}
	return 0;
}

// A cloth over lavapipe's shared memory (56 x 56 = 3136 particles > 2676): positions stay in
// buffers; on a 48 KB device the same cloth runs from shared memory. Every solver.
static int FusedLargeCloth(void)
{
	if (wfVkTestMissing())
		return 0;
	double worst;
	for (int mode = 0; mode < 2; ++mode) {
		if (FusedAgainstCpu("xpbd", WF_SOLVER_XPBD, 56, 56, 3, 2, (wfVelocityMode)mode, &worst) != 0)
			return 1;
		if (FusedAgainstCpu("spring-mesh", WF_SOLVER_JACOBI, 56, 56, 2, 2, (wfVelocityMode)mode, &worst) != 0)
			return 1;
	}
	return FusedAgainstCpu("compute-cloth", WF_SOLVER_SPRINGS, 56, 56, 4, 1, WF_VELOCITY_MOVES, &worst);
}

// The fused path and the per-range path (WEFT_VK_FUSED=0's switch) give the same bits.
static int FusedEqualsPerRange(void)
{
	if (wfVkTestMissing())
		return 0;
	for (int s = 0; s < 3; ++s) {
		wfSolverType solver = (wfSolverType)s;
		wfWorldDef wd;
		wfClothDef cd;
		FusedPreset("xpbd", solver, 5, &wd, &cd);
		cd.cols = 13;
		cd.rows = 10;
		wd.sphere.moving = true;
		wfWorld* w[2] = {FusedWorld(wd, WF_BACKEND_VULKAN), FusedWorld(wd, WF_BACKEND_VULKAN)};
		ENSURE(w[0] != NULL && w[1] != NULL);
		((wfVkContext*)w[1]->backendData)->fusedDisabled = true;
		wfClothId id[2] = {wfCreateCloth(w[0], &cd), wfCreateCloth(w[1], &cd)};
		ENSURE(!wfClothId_IsNull(id[0]) && !wfClothId_IsNull(id[1]));
		for (int f = 0; f < 5; ++f) {
			ENSURE(wfWorld_Step(w[0]) == WF_OK);
			ENSURE(wfWorld_Step(w[1]) == WF_OK);
		}
		const int n = cd.cols * cd.rows;
		wfVec3* p[2] = {(wfVec3*)malloc((size_t)n * sizeof(wfVec3)), (wfVec3*)malloc((size_t)n * sizeof(wfVec3))};
		wfVec3* nrm[2] = {(wfVec3*)malloc((size_t)n * sizeof(wfVec3)), (wfVec3*)malloc((size_t)n * sizeof(wfVec3))};
		ENSURE(p[0] != NULL && p[1] != NULL && nrm[0] != NULL && nrm[1] != NULL);
		for (int k = 0; k < 2; ++k) {
			ENSURE(wfCloth_ReadPositions(id[k], p[k], n) == WF_OK);
			ENSURE(wfCloth_ReadNormals(id[k], nrm[k], n) == WF_OK);
		}
		int d0 = wfWorld_GetStepProfile(w[0]).dispatches, d1 = wfWorld_GetStepProfile(w[1]).dispatches;
		fprintf(stderr, "  %s: fused %d dispatch(es)/frame, per-range %d\n", wfSolverName(solver), d0, d1);
		ENSURE(d0 == 1 && d1 > 2);
		ENSURE(memcmp(p[0], p[1], (size_t)n * sizeof(wfVec3)) == 0);
		ENSURE(memcmp(nrm[0], nrm[1], (size_t)n * sizeof(wfVec3)) == 0);
		ENSURE(wfWorld_GetWarnings(w[0]).validationMessages == 0 && wfWorld_GetWarnings(w[1]).validationMessages == 0);
		for (int k = 0; k < 2; ++k) {
			free(p[k]);
			free(nrm[k]);
			wfDestroyWorld(w[k]);
		}
	}
	return 0;
}

// A batch: 8 small cloths of different sizes, pin modes and orientations, plus one cloth too large
// for a workgroup (per-range path) in the same world, against the same cloths on the CPU. The
// frame is ONE dispatch of 8 workgroups for the small cloths + the large cloth's per-range ones.
static int FusedBatch(wfSolverType solver)
{
	if (wfVkTestMissing())
		return 0;
	wfWorldDef wd;
	wfClothDef base;
	FusedPreset("xpbd", solver, 3, &wd, &base);
	wfWorld* cpu = FusedWorld(wd, WF_BACKEND_CPU);
	wfWorld* gpu = FusedWorld(wd, WF_BACKEND_VULKAN);
	ENSURE(cpu != NULL && gpu != NULL);
	enum { kCloths = 9 };
	static const int kSize[kCloths][2] = {{4, 4}, {9, 6}, {12, 12}, {17, 5}, {8, 23}, {31, 30}, {6, 40}, {20, 20}, {66, 64}};
	wfClothId a[kCloths], b[kCloths];
	wfClothDef cds[kCloths];
	for (int i = 0; i < kCloths; ++i) {
		wfClothDef cd = base;
		cd.cols = kSize[i][0];
		cd.rows = kSize[i][1];
		cd.origin.x = -3.0f + 0.8f * (float)i;
		cd.orientation = (i & 1) ? WF_ORIENT_VERTICAL : WF_ORIENT_HORIZONTAL;
		cd.pinMode = (wfPinMode)(i % 4);
		cd.material.mass *= 1.0f + 0.25f * (float)i;
		cds[i] = cd;
		a[i] = wfCreateCloth(cpu, &cd);
		b[i] = wfCreateCloth(gpu, &cd);
		ENSURE(!wfClothId_IsNull(a[i]) && !wfClothId_IsNull(b[i]));
	}
	const wfVkContext* ctx = (const wfVkContext*)gpu->backendData;
	for (int f = 0; f < 3; ++f) {
		if (f == 1) {
			// Grab a particle of one small cloth: the batch follows live changes like a single cloth.
			ENSURE(wfCloth_Grab(a[2], 30, (wfVec3){0.2f, 1.5f, 0.1f}) == WF_OK);
			ENSURE(wfCloth_Grab(b[2], 30, (wfVec3){0.2f, 1.5f, 0.1f}) == WF_OK);
		}
		ENSURE(wfWorld_Step(cpu) == WF_OK);
		ENSURE(wfWorld_Step(gpu) == WF_OK);
	}
	// One dispatch for the 8 small cloths, the documented per-range count for the large one (the
	// re-centring, the substeps, normals and the frame check).
	const int S = wd.step.substeps, I = wd.step.iterations, C = wfGetCloth(b[kCloths - 1])->model.colorCount;
	const int perRange = 1 + (solver == WF_SOLVER_XPBD ? S * (2 + I * C) + 2 : solver == WF_SOLVER_JACOBI ? S * (2 + I) + 2 : S + 2);
	const int dispatches = wfWorld_GetStepProfile(gpu).dispatches;
	fprintf(stderr, "  %s: %d fused cloths, %d dispatches/frame (1 batch + %d of the per-range cloth)\n", wfSolverName(solver),
		ctx->fusedClothsPerFrame, dispatches, perRange);
	ENSURE(ctx->fusedClothsPerFrame == kCloths - 1 && dispatches == 1 + perRange);
	for (int i = 0; i < kCloths; ++i) {
		double d = wfVkTestMaxDiff(a[i], b[i], cds[i].cols * cds[i].rows);
		fprintf(stderr, "  cloth %d (%d x %d): worst %.3g\n", i, cds[i].cols, cds[i].rows, d);
		ENSURE_LE(d, 1e-4 * (cds[i].width > cds[i].height ? cds[i].width : cds[i].height));
	}
	wfWarnings wg = wfWorld_GetWarnings(gpu), wc = wfWorld_GetWarnings(cpu);
	ENSURE(wc.nonFinite == wg.nonFinite && wc.unstable == wg.unstable && wg.validationMessages == 0);
	wfDestroyWorld(cpu);
	wfDestroyWorld(gpu);
	return 0;
}

// The arena grows while cloths live in it (contents moved, descriptors and transfers re-pointed):
// a cloth stepped before keeps its state, cloths added later join the batch, removing one and
// adding another keeps the rest intact. Everything against the CPU.
static int FusedArenaGrows(void)
{
	if (wfVkTestMissing())
		return 0;
	wfWorldDef wd;
	wfClothDef cd;
	FusedPreset("xpbd", WF_SOLVER_XPBD, 2, &wd, &cd);
	wfWorld* cpu = FusedWorld(wd, WF_BACKEND_CPU);
	wfWorld* gpu = FusedWorld(wd, WF_BACKEND_VULKAN);
	ENSURE(cpu != NULL && gpu != NULL);
	enum { kCloths = 14 };
	wfClothId a[kCloths], b[kCloths];
	int n[kCloths];
	const wfVkContext* ctx = (const wfVkContext*)gpu->backendData;
	for (int i = 0; i < kCloths; ++i) {
		cd.cols = 12 + 4 * i;
		cd.rows = 40;
		cd.origin.x = 0.1f * (float)i;
		n[i] = cd.cols * cd.rows;
		a[i] = wfCreateCloth(cpu, &cd);
		b[i] = wfCreateCloth(gpu, &cd);
		ENSURE(!wfClothId_IsNull(a[i]) && !wfClothId_IsNull(b[i]));
		if (i == 0 || i == 6) {
			// Step with what is there, so the moved arena holds a state that is not the initial one.
			ENSURE(wfWorld_Step(cpu) == WF_OK && wfWorld_Step(gpu) == WF_OK);
		}
		if (i == 9) {
			wfDestroyCloth(a[3]);
			wfDestroyCloth(b[3]);
		}
	}
	ENSURE(wfWorld_Step(cpu) == WF_OK && wfWorld_Step(gpu) == WF_OK);
	fprintf(stderr, "  %d arena(s), arena 0: %.1f MB, %d cloths in one dispatch, %d dispatch(es)/frame\n", ctx->arenaCount,
		(double)ctx->arenas[0].buffer.size / (1 << 20), ctx->fusedClothsPerFrame, wfWorld_GetStepProfile(gpu).dispatches);
	ENSURE(ctx->arenaCount == 1 && ctx->arenas[0].buffer.size > WF_VK_ARENA_FIRST_SIZE);
	ENSURE(ctx->fusedClothsPerFrame == kCloths - 1 && wfWorld_GetStepProfile(gpu).dispatches == 1);
	for (int i = 0; i < kCloths; ++i) {
		if (i == 3)
			continue;
		double d = wfVkTestMaxDiff(a[i], b[i], n[i]);
		ENSURE_LE(d, 1e-4 * cd.height);
	}
	ENSURE(wfWorld_GetWarnings(gpu).validationMessages == 0);
	wfDestroyWorld(cpu);
	wfDestroyWorld(gpu);
	return 0;
}

// Inverse masses other than 1 / mass and 0 (set through the internal state, as no public call
// does): the fused kernel notices at the frame start and reads them from the POS array.
static int FusedUnevenMasses(void)
{
	if (wfVkTestMissing())
		return 0;
	for (int s = 0; s < 3; ++s) {
		wfWorldDef wd;
		wfClothDef cd;
		FusedPreset("xpbd", (wfSolverType)s, 4, &wd, &cd);
		cd.cols = 11;
		cd.rows = 9;
		wfWorld* w[2] = {FusedWorld(wd, WF_BACKEND_CPU), FusedWorld(wd, WF_BACKEND_VULKAN)};
		ENSURE(w[0] != NULL && w[1] != NULL);
		wfClothId id[2] = {wfCreateCloth(w[0], &cd), wfCreateCloth(w[1], &cd)};
		ENSURE(!wfClothId_IsNull(id[0]) && !wfClothId_IsNull(id[1]));
		for (int k = 0; k < 2; ++k) {
			wfCloth* c = wfGetCloth(id[k]);
			ENSURE(wfSyncHost(w[k], c) == WF_OK);
			for (int i = 20; i < 60; i += 3)
				c->state.pos[i].w *= 0.5f; // a heavier particle
			ENSURE(w[k]->backend->upload(w[k], c) == WF_OK);
		}
		for (int f = 0; f < 4; ++f) {
			ENSURE(wfWorld_Step(w[0]) == WF_OK);
			ENSURE(wfWorld_Step(w[1]) == WF_OK);
		}
		double d = wfVkTestMaxDiff(id[0], id[1], cd.cols * cd.rows);
		fprintf(stderr, "  %s: %d dispatch(es)/frame, worst %.3g\n", wfSolverName((wfSolverType)s), wfWorld_GetStepProfile(w[1]).dispatches,
			d);
		ENSURE(wfWorld_GetStepProfile(w[1]).dispatches == 1);
		ENSURE_LE(d, 1e-4 * cd.width);
		ENSURE(wfWorld_GetWarnings(w[1]).validationMessages == 0);
		wfDestroyWorld(w[0]);
		wfDestroyWorld(w[1]);
	}
	return 0;
}

// Without WEFT_VK_FUSED: a lone springs or Jacobi cloth takes the per-range path (faster on a
// hardware GPU, see UsesFused), a lone XPBD cloth and four springs cloths take the fused one.
static int FusedAutoPolicy(void)
{
	if (wfVkTestMissing())
		return 0;
	const char* forced = getenv("WEFT_VK_FUSED");
	if (forced != NULL && forced[0] != 0) {
		fprintf(stderr, "  skipped: WEFT_VK_FUSED=%s overrides the policy\n", forced);
		return 0;
	}
	const wfSolverType solvers[3] = {WF_SOLVER_XPBD, WF_SOLVER_SPRINGS, WF_SOLVER_JACOBI};
	for (int s = 0; s < 3; ++s) {
		wfWorldDef wd;
		wfClothDef cd;
		FusedPreset("xpbd", solvers[s], 3, &wd, &cd);
		cd.cols = cd.rows = 8;
		wfWorld* w = FusedWorld(wd, WF_BACKEND_VULKAN);
		ENSURE(w != NULL);
		((wfVkContext*)w->backendData)->fusedForced = false; // the policy itself
		wfClothId first = wfCreateCloth(w, &cd);
		ENSURE(!wfClothId_IsNull(first));
		ENSURE(wfWorld_Step(w) == WF_OK);
		int alone = wfWorld_GetStepProfile(w).dispatches;
		for (int k = 0; k < 3; ++k)
			ENSURE(!wfClothId_IsNull(wfCreateCloth(w, &cd)));
		ENSURE(wfWorld_Step(w) == WF_OK);
		int four = wfWorld_GetStepProfile(w).dispatches;
		fprintf(stderr, "  %s: alone %d dispatches/frame, four cloths %d\n", wfSolverName(solvers[s]), alone, four);
		const int S = wd.step.substeps, I = wd.step.iterations;
		ENSURE(alone == (solvers[s] == WF_SOLVER_XPBD ? 1 : solvers[s] == WF_SOLVER_SPRINGS ? 1 + S + 2 : 1 + S * (2 + I) + 2));
		ENSURE(four == 1);
		ENSURE(wfWorld_GetWarnings(w).validationMessages == 0);
		wfDestroyWorld(w);
	}
	return 0;
}

#else
// Built without the Vulkan backend: every test says so and passes.
static int FusedSkipped(void)
{
	fprintf(stderr, "  skipped: built without the Vulkan backend\n");
	return 0;
}
static int FusedEveryPreset(wfSolverType solver)
{
	(void)solver;
	return FusedSkipped();
}
static int FusedLargeCloth(void) { return FusedSkipped(); }
static int FusedEqualsPerRange(void) { return FusedSkipped(); }
static int FusedBatch(wfSolverType solver)
{
	(void)solver;
	return FusedSkipped();
}
static int FusedArenaGrows(void) { return FusedSkipped(); }
static int FusedUnevenMasses(void) { return FusedSkipped(); }
static int FusedAutoPolicy(void) { return FusedSkipped(); }
#endif

WF_TEST(vk_fused_auto_policy) { return FusedAutoPolicy(); }
WF_TEST(vk_fused_xpbd_presets) { return FusedEveryPreset(WF_SOLVER_XPBD); }
WF_TEST(vk_fused_springs_presets) { return FusedEveryPreset(WF_SOLVER_SPRINGS); }
WF_TEST(vk_fused_jacobi_presets) { return FusedEveryPreset(WF_SOLVER_JACOBI); }
WF_TEST(vk_fused_large_cloth) { return FusedLargeCloth(); }
WF_TEST(vk_fused_equals_per_range) { return FusedEqualsPerRange(); }
WF_TEST(vk_fused_batch_xpbd) { return FusedBatch(WF_SOLVER_XPBD); }
WF_TEST(vk_fused_batch_springs) { return FusedBatch(WF_SOLVER_SPRINGS); }
WF_TEST(vk_fused_batch_jacobi) { return FusedBatch(WF_SOLVER_JACOBI); }
WF_TEST(vk_fused_arena_grows) { return FusedArenaGrows(); }
WF_TEST(vk_fused_uneven_masses) { return FusedUnevenMasses(); }
