// Tethers (wfClothDef.tethers): the anchors and limits from the rest shape and the pins, the limit
// held every frame, and what they buy a stretchy hanging sheet at one iteration. On the physics
// tests' backend.
#include "test.h"
#include "core/internal.h"

#include <stdlib.h>
#include <string.h>

// A top row pinned: every particle's anchor is the top of its column, at its height below (the
// shortest path runs straight up), for both modes.
WF_TEST(tether_anchors_top_row)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wfWorld* w = wfTestMakeWorld(wd);
	ENSURE(w != NULL);
	for (int mode = WF_TETHER_EUCLIDEAN; mode <= WF_TETHER_GEODESIC; ++mode) {
		wfClothDef cd = wfDefaultClothDef();
		cd.cols = 7;
		cd.rows = 9;
		cd.width = 0.6f;
		cd.height = 0.8f;
		cd.orientation = WF_ORIENT_VERTICAL;
		cd.pinMode = WF_PIN_TOP_ROW;
		cd.tethers = (wfTetherMode)mode;
		cd.tetherScale = 1.1f;
		wfClothId id = wfCreateCloth(w, &cd);
		ENSURE(!wfClothId_IsNull(id));
		const wfConstraint* t = wfGetCloth(id)->model.tethers;
		ENSURE(t != NULL);
		double worst = 0.0;
		for (int i = 0; i < 63; ++i) {
			int r = i / 7, c = i % 7;
			if (r == 0) {
				ENSURE(t[i].b == 0xffffffffu);
				continue;
			}
			ENSURE(t[i].b == (uint32_t)c);
			worst = fmax(worst, fabs((double)t[i].rest - 1.1 * 0.1 * r));
		}
		fprintf(stderr, "  %s: anchors the column tops, limits 1.1 x the height below within %.2g m\n",
			wfTetherModeName((wfTetherMode)mode), worst);
		ENSURE_LE(worst, 1e-6);
	}
	wfDestroyWorld(w);
	return 0;
}

// Corners pinned: a particle's anchor is the nearer top corner; the geodesic limit is the shortest
// path over structural and shear edges (8 directions), the Euclidean one the straight line, never longer.
WF_TEST(tether_anchors_corners)
{
	wfWorld* w = wfTestMakeWorld(wfDefaultWorldDef());
	ENSURE(w != NULL);
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = 11;
	cd.width = cd.height = 1.0f;
	cd.orientation = WF_ORIENT_VERTICAL;
	cd.pinMode = WF_PIN_TOP_CORNERS;
	cd.tethers = WF_TETHER_GEODESIC;
	wfClothId g = wfCreateCloth(w, &cd);
	cd.tethers = WF_TETHER_EUCLIDEAN;
	wfClothId e = wfCreateCloth(w, &cd);
	ENSURE(!wfClothId_IsNull(g) && !wfClothId_IsNull(e));
	const wfConstraint* tg = wfGetCloth(g)->model.tethers;
	const wfConstraint* te = wfGetCloth(e)->model.tethers;
	// Particle (row 6, column 3): nearer the left corner; 3 diagonal steps and 3 down.
	const int i = 6 * 11 + 3;
	const double geodesic = 3.0 * sqrt(0.02) + 3.0 * 0.1, straight = sqrt(0.3 * 0.3 + 0.6 * 0.6);
	fprintf(stderr, "  particle %d: anchor %u / %u, geodesic %.6f (expected %.6f), euclidean %.6f (expected %.6f)\n", i, tg[i].b, te[i].b,
		(double)tg[i].rest, geodesic, (double)te[i].rest, straight);
	ENSURE(tg[i].b == 0 && te[i].b == 0);
	ENSURE_NEAR(tg[i].rest, geodesic, 1e-5);
	ENSURE_NEAR(te[i].rest, straight, 1e-6);
	for (int k = 0; k < 121; ++k)
		ENSURE(te[k].b == 0xffffffffu || te[k].rest <= tg[k].rest + 1e-6f);
	wfDestroyWorld(w);
	return 0;
}

// A stretchy sheet hanging from its top row at 1 iteration: with tethers no particle is ever
// farther from its anchor than its limit (beyond float rounding), and the sheet sags and stretches
// less than without.
static int HangingSheet(wfSolverType solver, wfTetherMode mode, double* sag, double* strain, double* over)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.step.solver = solver;
	wd.step.substeps = solver == WF_SOLVER_SPRINGS ? 60 : 10;
	wd.step.iterations = 1;
	wfWorld* w = wfTestMakeWorld(wd);
	ENSURE(w != NULL);
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = 30;
	cd.width = cd.height = 1.0f;
	cd.orientation = WF_ORIENT_VERTICAL;
	cd.pinMode = WF_PIN_TOP_ROW;
	cd.tethers = mode;
	cd.material.mass = 0.01f;
	cd.material.stiffness = 300.0f;
	cd.material.relaxation = 0.5f;
	wfClothId id = wfCreateCloth(w, &cd);
	ENSURE(!wfClothId_IsNull(id));
	const int n = 900;
	wfVec3* p = (wfVec3*)malloc((size_t)n * sizeof(wfVec3));
	const wfConstraint* t = wfGetCloth(id)->model.tethers;
	*over = 0.0;
	for (int frame = 0; frame < 180; ++frame) {
		ENSURE(wfWorld_Step(w) == WF_OK);
		if (t == NULL)
			continue;
		ENSURE(wfCloth_ReadLocalPositions(id, p, n) == WF_OK);
		for (int i = 0; i < n; ++i) {
			if (t[i].b == 0xffffffffu)
				continue;
			wfVec3 a = p[t[i].b];
			double d = sqrt((double)(p[i].x - a.x) * (p[i].x - a.x) + (double)(p[i].y - a.y) * (p[i].y - a.y) +
				(double)(p[i].z - a.z) * (p[i].z - a.z));
			*over = fmax(*over, d / t[i].rest - 1.0);
		}
	}
	ENSURE(wfCloth_ReadPositions(id, p, n) == WF_OK);
	wfClothStats st;
	ENSURE(wfCloth_GetStats(id, &st) == WF_OK);
	*sag = -0.5 - (double)p[n - 15].y; // the bottom row's middle below its rest height (-0.5 m)
	*strain = st.maxStrain;
	wfWarnings warn = wfWorld_GetWarnings(w);
	ENSURE(warn.unstable == 0 && warn.nonFinite == 0);
	free(p);
	wfDestroyWorld(w);
	return 0;
}

static int TethersHold(wfSolverType solver)
{
	double sag0, strain0, over0, sag1, strain1, over1;
	ENSURE(HangingSheet(solver, WF_TETHER_NONE, &sag0, &strain0, &over0) == 0);
	ENSURE(HangingSheet(solver, WF_TETHER_GEODESIC, &sag1, &strain1, &over1) == 0);
	fprintf(stderr,
		"  %s, 1 iteration, 30 x 30: without tethers the bottom sags %.4f m below rest, max strain %.4f; with them %.4f m, "
		"%.4f, never more than %.2g over a limit\n",
		wfSolverName(solver), sag0, strain0, sag1, strain1, over1);
	ENSURE_LE(over1, 1e-6);
	ENSURE(sag1 < sag0);
	ENSURE_LE(sag1, 1e-3); // the limit is the rest distance: the bottom cannot sink below its rest height
	return 0;
}

WF_TEST(tether_limit_holds_xpbd) { return TethersHold(WF_SOLVER_XPBD); }

WF_TEST(tether_limit_holds_jacobi) { return TethersHold(WF_SOLVER_JACOBI); }

WF_TEST(tether_limit_holds_springs) { return TethersHold(WF_SOLVER_SPRINGS); }

WF_TEST(tether_def_errors)
{
	wfWorld* w = wfTestMakeWorld(wfDefaultWorldDef());
	ENSURE(w != NULL);
	wfClothDef cd = wfDefaultClothDef();
	cd.tethers = (wfTetherMode)7;
	ENSURE(wfClothId_IsNull(wfCreateCloth(w, &cd)));
	fprintf(stderr, "  %s\n", wfWorld_GetLastError(w));
	ENSURE(strstr(wfWorld_GetLastError(w), "tethers") != NULL && strstr(wfWorld_GetLastError(w), "none, euclidean, geodesic") != NULL);
	cd.tethers = WF_TETHER_GEODESIC;
	cd.tetherScale = 0.5f;
	ENSURE(wfClothId_IsNull(wfCreateCloth(w, &cd)));
	fprintf(stderr, "  %s\n", wfWorld_GetLastError(w));
	ENSURE(strncmp(wfWorld_GetLastError(w), "tetherScale: 0.5 is out of range [1, 10]", 39) == 0);
	// No pins: nothing to tie to, no tethers (and no error).
	cd.tetherScale = 1.0f;
	cd.pinMode = WF_PIN_NONE;
	wfClothId id = wfCreateCloth(w, &cd);
	ENSURE(!wfClothId_IsNull(id));
	const wfConstraint* t = wfGetCloth(id)->model.tethers;
	for (int i = 0; i < cd.cols * cd.rows; ++i)
		ENSURE(t[i].b == 0xffffffffu);
	wfDestroyWorld(w);
	return 0;
}
