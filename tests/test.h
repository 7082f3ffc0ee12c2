// Tiny test harness: WF_TEST(name) registers a test; ENSURE fails it with the values involved.
#ifndef WEFT_TEST_H
#define WEFT_TEST_H

#include "weft/weft.h"

#include <math.h>
#include <stdio.h>

typedef int wfTestFn(void);
void wfRegisterTest(const char* name, wfTestFn* fn);

#define WF_TEST(name) \
	static int name(void); \
	__attribute__((constructor)) static void wfRegister_##name(void) { wfRegisterTest(#name, name); } \
	static int name(void)

#define ENSURE(cond) \
	do { \
		if (!(cond)) { \
			fprintf(stderr, "  FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond); \
			return 1; \
		} \
	} while (0)

// Checks |a - b| <= tol and prints both values either way, so a log shows the measured number.
#define ENSURE_NEAR(a, b, tol) \
	do { \
		double wf_a = (double)(a), wf_b = (double)(b), wf_t = (double)(tol); \
		int wf_ok = fabs(wf_a - wf_b) <= wf_t; \
		fprintf(stderr, "  %s %s = %.9g, expected %.9g +- %.3g\n", wf_ok ? "ok" : "FAILED", #a, wf_a, wf_b, wf_t); \
		if (!wf_ok) { \
			fprintf(stderr, "  at %s:%d\n", __FILE__, __LINE__); \
			return 1; \
		} \
	} while (0)

#define ENSURE_LE(a, b) \
	do { \
		double wf_a = (double)(a), wf_b = (double)(b); \
		int wf_ok = wf_a <= wf_b; \
		fprintf(stderr, "  %s %s = %.9g <= %.9g\n", wf_ok ? "ok" : "FAILED", #a, wf_a, wf_b); \
		if (!wf_ok) { \
			fprintf(stderr, "  at %s:%d\n", __FILE__, __LINE__); \
			return 1; \
		} \
	} while (0)

// The backend the physics tests run on: WEFT_TEST_BACKEND=cpu|vulkan (default cpu).
wfBackendType wfTestBackend(void);

// wfCreateWorld with the environment's switches applied as the tools apply them (WEFT_VK_DEVICE,
// WEFT_VK_VALIDATION, ...; apps/common/weft_env.h): ctest sets them per test, the library reads none.
wfWorld* wfTestCreateWorld(const wfWorldDef* def, char* error, int errorSize);

// Writes text to a new file (the scene and OBJ files of a test, in its temporary folder).
bool wfTestWriteFile(const char* path, const char* text);

// A world of the def on the physics tests' backend (wfTestBackend), the reason printed on failure.
wfWorld* wfTestMakeWorld(wfWorldDef def);

// test_colliders.c: the state hash of a cloth dropped over a sphere onto a floor with a box beside,
// the sphere and floor given as the world def's (mode 0), as colliders (1) or absent (2); 0 on failure.
uint64_t wfTestSugarHash(wfBackendType backend, wfFusedPath path, wfSolverType solver, int mode, int frames);
// The mean period of a sampled signal x[0..count) (spacing dt) from its upward zero crossings,
// linearly interpolated; -1 with fewer than two crossings.
double wfTestPeriod(const double* x, int count, double dt);
// A vertical chain of `links` links of 0.1 m hanging from particle 0 (pinned), stretch constraints only.
wfClothDef wfTestChain(int links);
// Wall-clock seconds (any origin).
double wfTestSeconds(void);

// An open cylinder as an OBJ mesh (test_mesh.c): `around` x `rings` vertices, triangles, top ring at y = 0.
wfMesh* wfTestCylinder(int around, int rings, float radius, float length);

// The self-collision tests' folded sheet (test_self.c): a 40 x 40 grid of spacing dx Z-folded into
// three layers `gap` apart, the lowest `height` above the floor; each particle's layer in `layer`.
void wfTestZFold(wfVec3* p, int* layer, float dx, float gap, float height);
// Structural edges of the cloth crossing one of its triangles that shares no particle with them,
// at positions p (an exact segment-triangle test in double): the cloth passing through itself.
int wfTestCountCrossings(wfClothId id, const wfVec3* p);
// The edge-edge pass's moved end (test_self.c): the world def, and one frame of the scene in a world
// of it: particle i's push beyond its free motion (m), the self crossings after, the state hash.
wfWorldDef wfTestMovedEndDef(void);
int wfTestMovedEnd(wfWorld* w, double* push, int* selfCrossings, uint64_t* hash);

#endif
