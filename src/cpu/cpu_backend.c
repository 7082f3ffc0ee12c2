// CPU backend: steps every cloth of a world on the host, substep by substep.
#include "cpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

// Per-cloth data: the state at the start of the frame, restored when the frame goes bad.
typedef struct CpuCloth {
	wfVec4* pos;
	wfVec4* vel;
	wfCpuSoa* soa;         // the structure-of-arrays XPBD path (grids, AVX2), or NULL
	wfCpuJacobi* jacobi;   // the structure-of-arrays Jacobi sweep (AVX2 or SIMD128, Jacobi worlds), or NULL
	wfCpuSprings* springs; // the springs' per-particle gather (AVX2 or SIMD128, springs worlds), or NULL
} CpuCloth;

// The world's data: the cloth-against-cloth contacts' scratch (wfSelfCollisionDef.betweenCloths)
// and the mesh bodies' edge and corner passes (wfCpuContext.edges, .corners; one cloth steps at a
// time).
typedef struct CpuWorld {
	wfCpuContacts contacts;
	int particles;   // of all cloths
	wfVec3* corners; // (cornerCapacity)
	size_t cornerCapacity;
	wfVec4* edges; // (edgeCapacity)
	size_t edgeCapacity;
} CpuWorld;

static wfResult AddCloth(wfWorld* world, wfCloth* cloth)
{
	CpuWorld* cw = (CpuWorld*)world->backendData;
	if (world->def.selfCollision.betweenCloths && !wfCpuContactsReserve(&cw->contacts, cw->particles + cloth->model.particleCount))
		return wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "out of memory for the contacts of %d particles",
			cw->particles + cloth->model.particleCount);
	CpuCloth* cc = (CpuCloth*)calloc(1, sizeof *cc);
	size_t bytes = (size_t)cloth->model.particleCount * sizeof(wfVec4);
	if (cc != NULL) {
		cc->pos = (wfVec4*)wfAlloc(bytes);
		cc->vel = (wfVec4*)wfAlloc(bytes);
	}
	if (cc == NULL || cc->pos == NULL || cc->vel == NULL) {
		if (cc != NULL) {
			wfFree(cc->pos);
			wfFree(cc->vel);
		}
		free(cc);
		return wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "out of memory");
	}
	if (world->def.simd && wfCpuSoaSupported(&cloth->model)) { // x86-64: AVX2; wasm: built with SIMD128
		cc->soa = wfCpuSoaCreate(&cloth->model, world->threads, world->soaLanes);
		if (cc->soa == NULL) {
			wfFree(cc->pos);
			wfFree(cc->vel);
			free(cc);
			return wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "out of memory");
		}
	}
	// The per-particle gathers of the Jacobi sweep and of the springs (x86-64: AVX2; wasm: SIMD128).
	const wfSolverType solver = world->def.step.solver;
	const bool gather = world->def.simd &&
		(solver == WF_SOLVER_JACOBI ? wfCpuJacobiSupported() : solver == WF_SOLVER_SPRINGS && wfCpuSpringsSupported());
	if (gather && solver == WF_SOLVER_JACOBI)
		cc->jacobi = wfCpuJacobiCreate(&cloth->model, world->soaLanes);
	if (gather && solver == WF_SOLVER_SPRINGS)
		cc->springs = wfCpuSpringsCreate(&cloth->model, world->soaLanes);
	if (gather && cc->jacobi == NULL && cc->springs == NULL) {
		wfCpuSoaFree(cc->soa);
		wfFree(cc->pos);
		wfFree(cc->vel);
		free(cc);
		return wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "out of memory");
	}
	cloth->backendData = cc;
	cw->particles += cloth->model.particleCount;
	return WF_OK;
}

static void RemoveCloth(wfWorld* world, wfCloth* cloth)
{
	((CpuWorld*)world->backendData)->particles -= cloth->model.particleCount;
	CpuCloth* cc = (CpuCloth*)cloth->backendData;
	wfFree(cc->pos);
	wfFree(cc->vel);
	wfCpuSoaFree(cc->soa);
	wfCpuJacobiFree(cc->jacobi);
	wfCpuSpringsFree(cc->springs);
	free(cc);
	cloth->backendData = NULL;
}

// The frame start of one cloth: its backup, the re-centring shift, the springs' step check.
static void BeginCloth(wfWorld* world, wfCloth* c, const wfFrameParams* params)
{
	CpuCloth* cc = (CpuCloth*)c->backendData;
	size_t bytes = (size_t)c->model.particleCount * sizeof(wfVec4);
	memcpy(cc->pos, c->state.pos, bytes);
	memcpy(cc->vel, c->state.vel, bytes);
	const wfVec3 shift = c->local.shift;
	if (shift.x != 0.0f || shift.y != 0.0f || shift.z != 0.0f) {
		for (int i = 0; i < c->model.particleCount; ++i) {
			c->state.pos[i].x -= shift.x;
			c->state.pos[i].y -= shift.y;
			c->state.pos[i].z -= shift.z;
		}
	}
	if (world->def.step.solver == WF_SOLVER_SPRINGS)
		wfCheckSpringsStep(world, c, params->h);
}

// The frame end of one cloth: the frame check, and the frame-start state back on a bad frame.
static void EndCloth(wfWorld* world, wfCloth* c, const wfFrameParams* params)
{
	CpuCloth* cc = (CpuCloth*)c->backendData;
	size_t bytes = (size_t)c->model.particleCount * sizeof(wfVec4);
	c->normalsValid = false;
	// One pass for the two tests and the motion pre-tests; the ordered scan only when one failed.
	const wfMotionConsts k = wfMotionConstsFor(c, params);
	wfMotionSums motion;
	c->verdict = WF_FRAME_GOOD;
	c->verdictParticle = -1;
	c->verdictContact = false;
	if (wfCpuCheckPass(c, cc->pos, cc->vel, &k, world->def.maxSpeed, world->simd, &motion))
		c->verdict = wfCheckFrame(world, c, params, &c->verdictParticle, &c->verdictContact);
	wfCheckMotion(world, c, params, cc->pos, cc->vel, &motion);
	if (c->verdict != WF_FRAME_GOOD) {
		memcpy(c->state.pos, cc->pos, bytes);
		memcpy(c->state.vel, cc->vel, bytes);
	}
	wfClothUpdateReference(c);
}

// Whether a frame of this cloth can take the structure-of-arrays XPBD path: what that path does
// not do (aerodynamics, wave wind, tethers, self-collision, mesh colliders, attachments) sends the frame the substep way.
static bool UsesSoa(const wfWorld* world, const wfCloth* c, const wfFrameParams* params)
{
	const CpuCloth* cc = (const CpuCloth*)c->backendData;
	return cc->soa != NULL && world->def.step.solver == WF_SOLVER_XPBD && !params->aeroOn && params->wind.mode != WF_WIND_WAVE &&
		c->model.tethers == NULL && !world->def.selfCollision.enabled && world->meshColliderCount == 0 && c->attachCount == 0;
}

// A frame of one cloth on the structure-of-arrays path: the backup, the substeps and the frame
// check's tests in one parallel pass; wfCheckFrame runs only when a particle failed them.
static void SoaFrame(wfWorld* world, wfCloth* c, const wfFrameParams* params, wfCpuContext* ctx)
{
	CpuCloth* cc = (CpuCloth*)c->backendData;
	wfMotionSums motion;
	const bool suspect = wfCpuSoaFrame(cc->soa, ctx, c, cc->pos, cc->vel, &motion);
	const wfCpuSoaTeam team = wfCpuSoaGetTeam(cc->soa);
	if (team.threads > 1) {
		world->teamThreads = team.threads;
		world->teamRowsMin = team.rowsMin;
		world->teamRowsMax = team.rowsMax;
		world->teamBusyMinMs = 1e3 * team.busyMin;
		world->teamBusyMaxMs = 1e3 * team.busyMax;
	}
	c->normalsValid = false;
	c->verdict = WF_FRAME_GOOD;
	c->verdictParticle = -1;
	c->verdictContact = false;
	if (suspect)
		c->verdict = wfCheckFrame(world, c, params, &c->verdictParticle, &c->verdictContact);
	wfCheckMotion(world, c, params, cc->pos, cc->vel, &motion);
	if (c->verdict != WF_FRAME_GOOD) {
		size_t bytes = (size_t)c->model.particleCount * sizeof(wfVec4);
		memcpy(c->state.pos, cc->pos, bytes);
		memcpy(c->state.vel, cc->vel, bytes);
	}
	wfClothUpdateReference(c);
}

static void Substep(wfCpuContext* ctx, wfCloth* c, wfSolverType solver)
{
	ctx->jacobi = ((const CpuCloth*)c->backendData)->jacobi;
	ctx->springs = ((const CpuCloth*)c->backendData)->springs;
	switch (solver) {
	case WF_SOLVER_XPBD: wfCpuXpbdSubstep(ctx, c); break;
	case WF_SOLVER_JACOBI: wfCpuJacobiSubstep(ctx, c); break;
	case WF_SOLVER_SPRINGS: wfCpuSpringsSubstep(ctx, c); break;
	}
}

// With cloth-against-cloth contacts every cloth takes substep s before any takes s + 1, and the
// contacts between cloths follow each substep.
static wfResult StepTogether(wfWorld* world, const wfFrameParams* params, wfCpuContext* ctx)
{
	const wfSolverType solver = world->def.step.solver;
	for (int ci = 0; ci < world->clothCapacity; ++ci) {
		if (world->cloths[ci].generation != 0)
			BeginCloth(world, &world->cloths[ci], params);
	}
	wfCpuStageMark(ctx, WF_STAGE_PREPARE);
	for (int s = 0; s < params->substeps; ++s) {
		ctx->substep = s;
		for (int ci = 0; ci < world->clothCapacity; ++ci) {
			wfCloth* c = &world->cloths[ci];
			if (c->generation == 0)
				continue;
			ctx->parallel = world->threads > 1 && c->model.particleCount >= WF_CPU_PARALLEL_MIN;
			Substep(ctx, c, solver);
		}
		wfCpuClothContacts(world, &((CpuWorld*)world->backendData)->contacts, params);
	}
	for (int ci = 0; ci < world->clothCapacity; ++ci) {
		if (world->cloths[ci].generation != 0)
			EndCloth(world, &world->cloths[ci], params);
	}
	wfCpuStageMark(ctx, WF_STAGE_NORMALS);
	for (int k = 0; ctx->timer != NULL && k < WF_STAGE_COUNT; ++k)
		world->stageMs[k] = 1e3 * ctx->timer->seconds[k];
	return WF_OK;
}

// Grows *array to hold `need` elements of `size` bytes; false when out of memory, with nothing changed.
static bool Grow(void** array, size_t* capacity, size_t need, size_t size)
{
	if (need <= *capacity)
		return true;
	void* grown = malloc(need * size);
	if (grown == NULL)
		return false;
	free(*array);
	*array = grown;
	*capacity = need;
	return true;
}

// Room for the closed mesh bodies' passes of the largest cloth (wfCpuContext.corners, .edges),
// when one is in the world (else NULL); false when out of memory, with nothing changed.
static bool ReserveMeshPasses(const wfWorld* world, CpuWorld* cw, wfCpuContext* ctx)
{
	bool closed = false;
	for (int k = 0; k < world->colliderFrameCount; ++k)
		closed |= world->colliderFrame[k].body != NULL && world->colliderFrame[k].body->closed;
	size_t corners = 0, edges = 0;
	for (int ci = 0; closed && ci < world->clothCapacity; ++ci) {
		const wfCloth* c = &world->cloths[ci];
		if (c->generation == 0)
			continue;
		corners = 3 * (size_t)c->model.triangleCount > corners ? 3 * (size_t)c->model.triangleCount : corners;
		edges = 4 * (size_t)c->model.constraintCount > edges ? 4 * (size_t)c->model.constraintCount : edges;
	}
	if (!Grow((void**)&cw->corners, &cw->cornerCapacity, corners, sizeof(wfVec3)) ||
		!Grow((void**)&cw->edges, &cw->edgeCapacity, edges, sizeof(wfVec4)))
		return false;
	ctx->corners = closed ? cw->corners : NULL;
	ctx->edges = closed ? cw->edges : NULL;
	return true;
}

// Stage timing (wfWorld_SetStageTiming) marks the stage boundaries of every substep with the wall
// clock: the backup copies are PREPARE, the frame check NORMALS (normals are computed when read).
static wfResult Step(wfWorld* world, const wfFrameParams* params)
{
	wfCpuStageTimer timer;
	wfCpuContext ctx = {params, 0, world->threads, world->simd, false, world->stageTiming ? &timer : NULL, world, NULL, NULL,
		world->def.velocity == WF_VELOCITY_MOVES, NULL, NULL};
	if (ctx.timer != NULL) {
		memset(&timer, 0, sizeof timer);
		timer.last = wfCpuClock();
	}
	if (!ReserveMeshPasses(world, (CpuWorld*)world->backendData, &ctx))
		return wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "out of memory for the mesh bodies' edge and corner passes");
	const wfSolverType solver = world->def.step.solver;
	world->teamThreads = world->teamRowsMin = world->teamRowsMax = 0;
	world->teamBusyMinMs = world->teamBusyMaxMs = 0.0;
	if (world->def.selfCollision.betweenCloths)
		return StepTogether(world, params, &ctx);
	for (int ci = 0; ci < world->clothCapacity; ++ci) {
		wfCloth* c = &world->cloths[ci];
		if (c->generation == 0)
			continue;
		ctx.parallel = world->threads > 1 && c->model.particleCount >= WF_CPU_PARALLEL_MIN;
		if (UsesSoa(world, c, params)) {
			SoaFrame(world, c, params, &ctx);
			wfCpuStageMark(&ctx, WF_STAGE_NORMALS);
			continue;
		}
		BeginCloth(world, c, params);
		wfCpuStageMark(&ctx, WF_STAGE_PREPARE);
		for (int s = 0; s < params->substeps; ++s) {
			ctx.substep = s;
			Substep(&ctx, c, solver);
		}
		EndCloth(world, c, params);
		wfCpuStageMark(&ctx, WF_STAGE_NORMALS);
	}
	for (int k = 0; ctx.timer != NULL && k < WF_STAGE_COUNT; ++k)
		world->stageMs[k] = 1e3 * timer.seconds[k];
	return WF_OK;
}

// Cloth against cloth switched on: the contacts' scratch for every particle of the world.
static wfResult SetSelfCollision(wfWorld* world, const wfSelfCollisionDef* sc)
{
	CpuWorld* cw = (CpuWorld*)world->backendData;
	if (sc->betweenCloths && !wfCpuContactsReserve(&cw->contacts, cw->particles))
		return wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "out of memory for the contacts of %d particles", cw->particles);
	return WF_OK;
}

static wfResult NoSync(wfWorld* world, wfCloth* cloth)
{
	(void)world;
	(void)cloth;
	return WF_OK;
}

static void Destroy(wfWorld* world)
{
	CpuWorld* cw = (CpuWorld*)world->backendData;
	if (cw != NULL) {
		wfCpuContactsFree(&cw->contacts);
		free(cw->corners);
		free(cw->edges);
	}
	free(cw);
	world->backendData = NULL;
}

const wfBackendOps wfCpuBackendOps = {
	.name = "cpu",
	.destroy = Destroy,
	.addCloth = AddCloth,
	.removeCloth = RemoveCloth,
	.step = Step,
	.download = NoSync,
	.upload = NoSync,
	.stats = NULL,
	.setSelfCollision = SetSelfCollision,
};

wfResult wfCpuBackendCreate(wfWorld* world)
{
	world->backendData = calloc(1, sizeof(CpuWorld));
	if (world->backendData == NULL)
		return wfSetError(world, WF_ERROR_OUT_OF_MEMORY, "out of memory");
	world->backend = &wfCpuBackendOps;
	int threads = world->def.threads;
#ifdef _OPENMP
	if (threads <= 0)
		threads = omp_get_num_procs();
#else
	threads = 1;
#endif
	world->threads = threads > 0 ? threads : 1;
	world->simd = wfCpuHasAvx2() && world->def.simd;
	world->soaLanes = wfCpuSoaWidest();
#ifdef __wasm_simd128__
	const char* isa = world->def.simd ? ", simd128" : ""; // the SoA kernel at 4 lanes (cpu_soa.c)
#else
	const char* isa = world->simd ? ", avx2" : "";
#endif
	snprintf(world->deviceName, sizeof world->deviceName, "cpu (%d thread%s%s)", world->threads, world->threads == 1 ? "" : "s", isa);
	return WF_OK;
}
