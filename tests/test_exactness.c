// Exactness (issue: physics you can trust anywhere): the third document's solver reproduced, XPBD
// damping that cannot blow up, every default def valid, precision far from the origin, warnings
// that say what happened. Run on the CPU and again on Vulkan (vk_<name>, WEFT_TEST_BACKEND).
#define _POSIX_C_SOURCE 200809L
#include "test.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

// ------------------------------------------------------------------ the third document's solver
//
// A transcription of the solver the third document describes (its CPU fallback), written from the
// formulas it states and kept independent of weft's code: a cols x rows lattice, index y * cols + x,
// centred on the origin in the xy plane (row 0 on top), each node pushed out of the plane by
// (hash(i) - 1/2) 0.6 spacing with hash(i) = fract(43758.5453 sin(127.1 i + 311.7)); every node
// pulls toward the 12 neighbours that exist (4 structural, 4 shear, 4 bend two apart). Per substep:
//   predict:  v.y -= g dt; p = x; x += dt v                 (pinned nodes: v = 0, not moved)
//   solve:    per sweep, for every free node, from the positions of the previous sweep,
//             x_i += s / |N(i)| sum_j (|x_j - x_i| - l_ij) / |x_j - x_i| (x_j - x_i)
//   finalize: v = beta (x - p) / dt
// The arithmetic is in double with the state stored as float, as a JS solver on Float32Arrays does.
typedef struct DocSolver {
	int cols, rows, n;
	double spacing;
	float *pos, *work, *prev, *vel; // (n x 3)
	unsigned char* fixed;           // (n) top corners
} DocSolver;

static const struct {
	int dx, dy;
	double rest;
} kDocNeighbours[12] = {
	{1, 0, 1.0},
	{-1, 0, 1.0},
	{0, 1, 1.0},
	{0, -1, 1.0},
	{1, 1, 1.4142135623730951},
	{-1, 1, 1.4142135623730951},
	{1, -1, 1.4142135623730951},
	{-1, -1, 1.4142135623730951},
	{2, 0, 2.0},
	{-2, 0, 2.0},
	{0, 2, 2.0},
	{0, -2, 2.0},
};

static void DocInit(DocSolver* d, int cols, int rows, double spacing)
{
	d->cols = cols;
	d->rows = rows;
	d->n = cols * rows;
	d->spacing = spacing;
	d->pos = (float*)calloc((size_t)d->n * 3, sizeof(float));
	d->work = (float*)calloc((size_t)d->n * 3, sizeof(float));
	d->prev = (float*)calloc((size_t)d->n * 3, sizeof(float));
	d->vel = (float*)calloc((size_t)d->n * 3, sizeof(float));
	d->fixed = (unsigned char*)calloc((size_t)d->n, 1);
	const double cx = 0.5 * (cols - 1), cy = 0.5 * (rows - 1);
	for (int y = 0; y < rows; ++y) {
		for (int x = 0; x < cols; ++x) {
			int i = y * cols + x;
			double s = sin(i * 127.1 + 311.7) * 43758.5453;
			d->pos[3 * i + 0] = (float)((x - cx) * spacing);
			d->pos[3 * i + 1] = (float)((cy - y) * spacing);
			d->pos[3 * i + 2] = (float)((s - floor(s) - 0.5) * spacing * 0.6);
			d->fixed[i] = y == 0 && (x == 0 || x == cols - 1);
		}
	}
}

static void DocFree(DocSolver* d)
{
	free(d->pos);
	free(d->work);
	free(d->prev);
	free(d->vel);
	free(d->fixed);
}

static void DocSweep(DocSolver* d, double stiffness)
{
	for (int i = 0; i < d->n; ++i) {
		const int x = i % d->cols, y = i / d->cols;
		const double px = d->pos[3 * i], py = d->pos[3 * i + 1], pz = d->pos[3 * i + 2];
		if (d->fixed[i]) {
			memcpy(&d->work[3 * i], &d->pos[3 * i], 3 * sizeof(float));
			continue;
		}
		double cx = 0.0, cy = 0.0, cz = 0.0;
		int count = 0;
		for (int k = 0; k < 12; ++k) {
			const int nx = x + kDocNeighbours[k].dx, ny = y + kDocNeighbours[k].dy;
			if (nx < 0 || nx >= d->cols || ny < 0 || ny >= d->rows)
				continue;
			const int j = ny * d->cols + nx;
			const double dx = d->pos[3 * j] - px, dy = d->pos[3 * j + 1] - py, dz = d->pos[3 * j + 2] - pz;
			double len = sqrt(dx * dx + dy * dy + dz * dz);
			if (len == 0.0)
				len = 1e-4;
			const double f = (len - kDocNeighbours[k].rest * d->spacing) / len;
			cx += dx * f;
			cy += dy * f;
			cz += dz * f;
			++count;
		}
		const double s = count > 0 ? stiffness / count : 0.0;
		d->work[3 * i + 0] = (float)(px + cx * s);
		d->work[3 * i + 1] = (float)(py + cy * s);
		d->work[3 * i + 2] = (float)(pz + cz * s);
	}
	float* t = d->pos;
	d->pos = d->work;
	d->work = t;
}

static void DocFrame(DocSolver* d, double dt, int substeps, int sweeps, double gravity, double stiffness, double retention)
{
	const double h = dt / substeps;
	for (int s = 0; s < substeps; ++s) {
		for (int i = 0; i < d->n; ++i) {
			memcpy(&d->prev[3 * i], &d->pos[3 * i], 3 * sizeof(float));
			if (d->fixed[i]) {
				d->vel[3 * i] = d->vel[3 * i + 1] = d->vel[3 * i + 2] = 0.0f;
				continue;
			}
			const double vx = d->vel[3 * i], vy = d->vel[3 * i + 1] - gravity * h, vz = d->vel[3 * i + 2];
			d->vel[3 * i] = (float)vx;
			d->vel[3 * i + 1] = (float)vy;
			d->vel[3 * i + 2] = (float)vz;
			d->pos[3 * i] = (float)(d->pos[3 * i] + vx * h);
			d->pos[3 * i + 1] = (float)(d->pos[3 * i + 1] + vy * h);
			d->pos[3 * i + 2] = (float)(d->pos[3 * i + 2] + vz * h);
		}
		for (int k = 0; k < sweeps; ++k)
			DocSweep(d, stiffness);
		for (int i = 0; i < d->n; ++i) {
			for (int c = 0; c < 3; ++c) {
				double v = d->fixed[i] ? 0.0 : (d->pos[3 * i + c] - d->prev[3 * i + c]) / h * retention;
				d->vel[3 * i + c] = (float)v;
			}
		}
	}
}

// Largest distance between weft's positions and the reference's.
static double DocDistance(const DocSolver* d, const wfVec3* p)
{
	double worst = 0.0;
	for (int i = 0; i < d->n; ++i) {
		double dx = p[i].x - d->pos[3 * i], dy = p[i].y - d->pos[3 * i + 1], dz = p[i].z - d->pos[3 * i + 2];
		double e = sqrt(dx * dx + dy * dy + dz * dz);
		worst = e > worst || e != e ? e : worst;
	}
	return worst;
}

// Runs the spring-mesh preset (with the given weighting) beside the reference for `frames` frames
// and returns the largest distance seen, or -1 on failure. *mean gets the mean sag difference.
static double SpringMeshAgainstDocument(wfJacobiWeights weights, int frames, double* hangDiff)
{
	wfWorldDef wd;
	wfClothDef cd;
	if (!wfPresetGet("spring-mesh", &wd, &cd))
		return -1.0;
	cd.jacobiWeights = weights;
	wfWorld* w = wfTestMakeWorld(wd);
	if (w == NULL)
		return -1.0;
	wfClothId id = wfCreateCloth(w, &cd);
	if (wfClothId_IsNull(id))
		return -1.0;
	DocSolver doc;
	DocInit(&doc, cd.cols, cd.rows, 0.12);
	const int n = cd.cols * cd.rows;
	wfVec3* p = (wfVec3*)malloc((size_t)n * sizeof(wfVec3));
	wfCloth_ReadPositions(id, p, n);
	double worst = DocDistance(&doc, p);
	fprintf(stderr, "  %s weights: start %.3g m apart", weights == WF_JACOBI_DEGREE ? "degree" : "symmetric", worst);
	for (int f = 0; f < frames; ++f) {
		wfWorld_Step(w);
		DocFrame(&doc, 1.0 / 60.0, wd.step.substeps, wd.step.iterations, 9.8, cd.material.relaxation, cd.material.retention);
		wfCloth_ReadPositions(id, p, n);
		double e = DocDistance(&doc, p);
		worst = e > worst || e != e ? e : worst;
		if (f == 0)
			fprintf(stderr, ", after 1 frame %.3g m", e);
	}
	// How high the cloth hangs: the mean height, weft minus the reference.
	double sum = 0.0;
	for (int i = 0; i < n; ++i)
		sum += p[i].y - doc.pos[3 * i + 1];
	*hangDiff = sum / n;
	fprintf(stderr, ", worst over %d frames %.3g m, mean height difference %.3g m\n", frames, worst, *hangDiff);
	free(p);
	DocFree(&doc);
	wfDestroyWorld(w);
	return worst;
}

// The spring-mesh preset follows the document's solver to float rounding for 60 frames; the
// symmetric weighting (weft's momentum-conserving option) visibly does not, so the comparison can
// tell the two apart.
WF_TEST(spring_mesh_matches_document_solver)
{
	double hang = 0.0;
	double doc = SpringMeshAgainstDocument(WF_JACOBI_DEGREE, 60, &hang);
	ENSURE(doc >= 0.0);
	ENSURE_LE(doc, 2e-4);
	ENSURE_LE(fabs(hang), 2e-5);
	double sym = SpringMeshAgainstDocument(WF_JACOBI_SYMMETRIC, 60, &hang);
	ENSURE(sym >= 0.0);
	ENSURE(sym > 100.0 * doc && sym > 0.01);
	return 0;
}

// The preset starts as the document does: centred on the origin, in the xy plane, out of the plane
// by at most 0.3 spacing (0.036 m), the flat grid's rest lengths.
WF_TEST(spring_mesh_start_layout)
{
	wfWorldDef wd;
	wfClothDef cd;
	ENSURE(wfPresetGet("spring-mesh", &wd, &cd));
	wfWorld* w = wfTestMakeWorld(wd);
	ENSURE(w != NULL);
	wfClothId id = wfCreateCloth(w, &cd);
	ENSURE(!wfClothId_IsNull(id));
	const int n = cd.cols * cd.rows;
	wfVec3* p = (wfVec3*)malloc((size_t)n * sizeof(wfVec3));
	wfCloth_ReadPositions(id, p, n);
	double cx = 0.0, cy = 0.0, zmax = 0.0, zsum = 0.0;
	for (int i = 0; i < n; ++i) {
		cx += p[i].x;
		cy += p[i].y;
		zmax = fabs(p[i].z) > zmax ? fabs(p[i].z) : zmax;
		zsum += p[i].z;
	}
	ENSURE_NEAR(cx / n, 0.0, 1e-6);
	ENSURE_NEAR(cy / n, 0.0, 1e-6);
	ENSURE_NEAR(p[0].y, 3.3, 1e-5);
	ENSURE_LE(zmax, 0.036 + 1e-6);
	ENSURE(zmax > 0.03);              // the perturbation is there ...
	ENSURE_LE(fabs(zsum / n), 0.005); // ... and centred
	// Rest lengths of the flat grid: the perturbed start is stretched, at most by two neighbours
	// 2 x 0.3 spacing apart across the plane, sqrt(1 + 0.6^2) - 1 = 0.1662.
	wfClothStats st;
	ENSURE(wfCloth_GetStats(id, &st) == WF_OK);
	ENSURE(st.maxStrain > 0.1f);
	ENSURE_LE(st.maxStrain, 0.1662);
	free(p);
	wfDestroyWorld(w);
	return 0;
}

// ------------------------------------------------------------------ XPBD damping

// In zero gravity a free sheet moving at v0 keeps its shape; the implicit damping law gives its
// momentum after N substeps as (1 + h d / m)^-N. N is chosen so that the prediction stays above
// 0.05: below that the displacement h v of a substep nears the float spacing of the positions and
// v = (x - p) / h measures round-off. Up to the largest damping accepted (1e3 kg/s on 0.01 kg
// particles: h d / m = 1.7e5), the speed only ever falls and nothing is flagged.
WF_TEST(xpbd_damping_implicit_law)
{
	const float dampings[] = {0.01f, 0.1f, 1.0f, 10.0f, 121.0f, 1000.0f};
	for (size_t k = 0; k < sizeof dampings / sizeof dampings[0]; ++k) {
		wfWorldDef wd = wfDefaultWorldDef();
		wd.gravity = (wfVec3){0.0f, 0.0f, 0.0f};
		wd.step.timeStep = 1.0f / 600.0f; // one substep a frame, so N can be any count
		wd.step.substeps = 1;
		wfWorld* w = wfTestMakeWorld(wd);
		ENSURE(w != NULL);
		wfClothDef cd = wfDefaultClothDef();
		cd.cols = cd.rows = 8;
		cd.material.mass = k >= 4 ? 0.01f : 0.1f;
		cd.material.damping = dampings[k];
		const double hdm = (double)wd.step.timeStep * cd.material.damping / cd.material.mass;
		int frames = (int)floor(log(20.0) / log(1.0 + hdm));
		frames = frames < 1 ? 1 : frames > 60 ? 60 : frames;
		wfClothId id = wfCreateCloth(w, &cd);
		ENSURE(!wfClothId_IsNull(id));
		wfVec3 v[64];
		for (int i = 0; i < 64; ++i)
			v[i] = (wfVec3){1.0f, 0.5f, 0.0f};
		ENSURE(wfCloth_WriteVelocities(id, v, 64) == WF_OK);
		wfClothStats s0;
		wfCloth_GetStats(id, &s0);
		double speedMax = 0.0;
		for (int f = 0; f < frames; ++f) {
			ENSURE(wfWorld_Step(w) == WF_OK);
			wfCloth_ReadVelocities(id, v, 64);
			for (int i = 0; i < 64; ++i) {
				double sp = sqrt((double)v[i].x * v[i].x + (double)v[i].y * v[i].y + (double)v[i].z * v[i].z);
				speedMax = sp > speedMax ? sp : speedMax;
			}
		}
		wfClothStats s1;
		wfCloth_GetStats(id, &s1);
		const double predicted = pow(1.0 + hdm, -(double)frames);
		const double ratio = s1.momentum.x / s0.momentum.x;
		fprintf(stderr, "  damping %g kg/s, mass %g kg (h d / m = %.3g), %d substeps:\n", (double)cd.material.damping,
			(double)cd.material.mass, hdm, frames);
		ENSURE_NEAR(ratio, predicted, 0.01 * predicted + 1e-12);
		ENSURE_LE(speedMax, sqrt(1.25) * (1.0 + 1e-5));
		wfWarnings wr = wfWorld_GetWarnings(w);
		ENSURE(wr.unstable == 0 && wr.nonFinite == 0);
		wfDestroyWorld(w);
	}
	return 0;
}

// ------------------------------------------------------------------ defaults

// weft.h: a def with every field at its default is valid. For every solver, the default world def
// with only the solver set steps the default cloth.
WF_TEST(default_defs_valid_for_every_solver)
{
	for (int s = 0; s < 3; ++s) {
		wfWorldDef wd = wfDefaultWorldDef();
		wd.step.solver = (wfSolverType)s;
		wfWorld* w = wfTestMakeWorld(wd);
		ENSURE(w != NULL);
		wfClothDef cd = wfDefaultClothDef();
		wfClothId id = wfCreateCloth(w, &cd);
		ENSURE(!wfClothId_IsNull(id));
		for (int f = 0; f < 10; ++f)
			ENSURE(wfWorld_Step(w) == WF_OK);
		wfClothStats st;
		ENSURE(wfCloth_GetStats(id, &st) == WF_OK);
		fprintf(stderr, "  %s: iterations %d, max strain %.4g\n", wfSolverName((wfSolverType)s), wd.step.iterations, (double)st.maxStrain);
		ENSURE(st.nonFinite == 0);
		ENSURE_LE(st.maxStrain, 0.05);
		wfDestroyWorld(w);
	}
	return 0;
}

// Two particles and one constraint: with s < 1 each sweep pair shrinks the error (document
// weights: C -> (1 - 2 s)^2 C); odd sweep counts land where an even count's prefix does.
WF_TEST(jacobi_two_particles_converge)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.step.solver = WF_SOLVER_JACOBI;
	wd.gravity = (wfVec3){0.0f, 0.0f, 0.0f};
	wd.step.substeps = 1;
	for (int sweeps = 1; sweeps <= 4; ++sweeps) {
		wd.step.iterations = sweeps;
		wfWorld* w = wfTestMakeWorld(wd);
		ENSURE(w != NULL);
		wfClothDef cd = wfDefaultClothDef();
		cd.cols = 2;
		cd.rows = 1;
		cd.jacobiWeights = WF_JACOBI_DEGREE;
		cd.material.relaxation = 0.9f;
		cd.material.retention = 0.0f;
		wfClothId id = wfCreateCloth(w, &cd);
		ENSURE(!wfClothId_IsNull(id));
		wfVec3 p[2] = {{-0.6f, 0.0f, 0.0f}, {0.6f, 0.0f, 0.0f}}; // stretched by 0.2
		ENSURE(wfCloth_WritePositions(id, p, 2) == WF_OK);
		ENSURE(wfWorld_Step(w) == WF_OK);
		wfCloth_ReadPositions(id, p, 2);
		double c = (p[1].x - p[0].x) - 1.0, expect = 0.2 * pow(1.0 - 2.0 * 0.9, sweeps);
		fprintf(stderr, "  %d sweep(s):\n", sweeps);
		ENSURE_NEAR(c, expect, 1e-6);
		wfDestroyWorld(w);
	}
	return 0;
}

// ------------------------------------------------------------------ precision far from the origin

typedef struct Placed {
	wfWorld* world;
	wfClothId cloth;
} Placed;

// A 12 x 12 cloth of solver s 1 m above a sphere (radius 0.5) and a floor, every position offset by t.
static Placed PlaceScene(wfSolverType s, wfVec3 t, bool colliders)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.step.solver = s;
	wd.step.iterations = s == WF_SOLVER_JACOBI ? 2 : 1;
	wd.sphere.enabled = colliders;
	wd.sphere.center = (wfVec3){t.x + 0.0f, t.y + 0.0f, t.z + 0.0f};
	wd.sphere.radius = 0.5f;
	wd.floor.enabled = colliders;
	wd.floor.height = t.y - 1.5f;
	Placed p = {wfTestMakeWorld(wd), {NULL, -1, 0}};
	if (p.world == NULL)
		return p;
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = 12;
	cd.origin = (wfVec3){t.x + 0.125f, t.y + 1.0f, t.z - 0.0625f};
	if (!colliders) {
		cd.material.damping = 0.0f;
		cd.material.retention = 1.0f;
		cd.material.springDamping = 0.0f;
	}
	p.cloth = wfCreateCloth(p.world, &cd);
	return p;
}

// The same scene at the origin and translated by (1000, 1000, -1000) m: free fall (1 s) and a cloth
// draped over the sphere onto the floor (2 s) move the same relative to their origin, for every
// solver. The local positions are the same bits (the local frame removes the world position from
// the float arithmetic); world positions read back agree to the float spacing at 1000 m (6.1e-5).
// The free fall also matches the integrator's closed form to 1e-4 relative at both places.
WF_TEST(far_from_origin_same_motion)
{
	const wfVec3 far = {1000.0f, 1000.0f, -1000.0f}, zero = {0.0f, 0.0f, 0.0f};
	for (int s = 0; s < 3; ++s) {
		for (int colliders = 0; colliders < 2; ++colliders) {
			Placed a = PlaceScene((wfSolverType)s, zero, colliders), b = PlaceScene((wfSolverType)s, far, colliders);
			ENSURE(a.world != NULL && b.world != NULL && !wfClothId_IsNull(a.cloth) && !wfClothId_IsNull(b.cloth));
			const int frames = colliders ? 120 : 60;
			double localDiff = 0.0, worldDiff = 0.0;
			wfVec3 pa[144], pb[144], la[144], lb[144];
			for (int f = 0; f < frames; ++f) {
				ENSURE(wfWorld_Step(a.world) == WF_OK && wfWorld_Step(b.world) == WF_OK);
				wfCloth_ReadLocalPositions(a.cloth, la, 144);
				wfCloth_ReadLocalPositions(b.cloth, lb, 144);
				wfCloth_ReadPositions(a.cloth, pa, 144);
				wfCloth_ReadPositions(b.cloth, pb, 144);
				for (int i = 0; i < 144; ++i) {
					double dl = fabs((double)la[i].x - lb[i].x) + fabs((double)la[i].y - lb[i].y) + fabs((double)la[i].z - lb[i].z);
					double dw = fmax(fmax(fabs((double)pb[i].x - far.x - pa[i].x), fabs((double)pb[i].y - far.y - pa[i].y)),
						fabs((double)pb[i].z - far.z - pa[i].z));
					localDiff = dl > localDiff ? dl : localDiff;
					worldDiff = dw > worldDiff ? dw : worldDiff;
				}
			}
			double oa[3], ob[3];
			ENSURE(wfCloth_GetOrigin(a.cloth, oa) == WF_OK && wfCloth_GetOrigin(b.cloth, ob) == WF_OK);
			fprintf(stderr, "  %s, %s: origin moved to y = %.1f / %.1f m\n", wfSolverName((wfSolverType)s),
				colliders ? "draped" : "free fall", oa[1], ob[1] - far.y);
			ENSURE_NEAR(localDiff, 0.0, 0.0);
			ENSURE_LE(worldDiff, 1e-4);
			if (!colliders) {
				wfWorldDef wd = wfWorld_GetDef(a.world);
				const double n = (double)frames * wd.step.substeps, h = (double)wd.step.timeStep / wd.step.substeps;
				const double fall = 0.5 * 9.8 * h * h * n * (n + 1.0);
				ENSURE_NEAR((1.0 - pa[66].y) / fall, 1.0, 1e-4);
				ENSURE_NEAR((1000.0 + 1.0 - pb[66].y) / fall, 1.0, 1e-4);
			} else {
				wfClothStats st;
				ENSURE(wfCloth_GetStats(b.cloth, &st) == WF_OK);
				ENSURE(st.floorClearance > -1e-4 && st.sphereClearance > -1e-4);
			}
			wfDestroyWorld(a.world);
			wfDestroyWorld(b.world);
		}
	}
	return 0;
}

// A cloth drifting at 1 m/s 100 m from the origin under damping slows down as the implicit law
// says (before the local frame it kept 0.998 m/s: h v was a few float steps at 100 m), exactly as
// the same cloth at the origin does. What remains is the round-off of v = (x - p) / h near a local
// origin: 0.14% after 1200 substeps, inside the 1% bound.
static double DriftSpeed(float x0, double* predicted)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.gravity = (wfVec3){0.0f, 0.0f, 0.0f};
	wfWorld* w = wfTestMakeWorld(wd);
	if (w == NULL)
		return -1.0;
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = 8;
	cd.origin = (wfVec3){x0, 0.0f, 0.0f};
	cd.material.damping = 0.1f; // h d / m = 1/600: the speed halves in about 0.7 s
	wfClothId id = wfCreateCloth(w, &cd);
	wfVec3 v[64];
	for (int i = 0; i < 64; ++i)
		v[i] = (wfVec3){1.0f, 0.0f, 0.0f};
	if (wfClothId_IsNull(id) || wfCloth_WriteVelocities(id, v, 64) != WF_OK)
		return -1.0;
	const int frames = 120;
	for (int f = 0; f < frames; ++f)
		wfWorld_Step(w);
	wfCloth_ReadVelocities(id, v, 64);
	const double h = (double)wd.step.timeStep / wd.step.substeps;
	*predicted = pow(1.0 + h * cd.material.damping / cd.material.mass, -(double)frames * wd.step.substeps);
	wfDestroyWorld(w);
	return v[27].x;
}

WF_TEST(far_drift_decays_by_the_law)
{
	double predicted = 0.0;
	const double near = DriftSpeed(0.0f, &predicted), far = DriftSpeed(100.0f, &predicted);
	ENSURE(near > 0.0 && far > 0.0);
	ENSURE_NEAR(far, near, 0.0);
	ENSURE_NEAR(far, predicted, 1e-2 * predicted);
	return 0;
}

// ------------------------------------------------------------------ warnings that say what happened

typedef struct LogCapture {
	int count;
	char last[512];
} LogCapture;

static void CaptureLog(wfLogLevel level, const char* message, void* context)
{
	LogCapture* c = (LogCapture*)context;
	if (level != WF_LOG_WARNING)
		return; // a backend's notes (the device in use) are not what is counted here
	c->count++;
	snprintf(c->last, sizeof c->last, "%s", message);
}

// A sheet thrown at 50 m/s in zero gravity, checked against a speed limit of 20 m/s (discarded:
// counted, logged with the cloth, the particle and the reason, kept or reset as asked) and of
// 100 m/s (nothing to report).
static int ThrownSheet(float maxSpeed, wfBadFrame policy, int64_t* unstable, double* moved, bool* atRest, LogCapture* log)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.gravity = (wfVec3){0.0f, 0.0f, 0.0f};
	wd.maxSpeed = maxSpeed;
	wd.badFrame = policy;
	wd.logFn = CaptureLog;
	wd.logContext = log;
	wfWorld* w = wfTestMakeWorld(wd);
	ENSURE(w != NULL);
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = 6;
	cd.material.damping = 0.0f;
	wfClothId id = wfCreateCloth(w, &cd);
	ENSURE(!wfClothId_IsNull(id));
	wfVec3 v[36], p0[36], p1[36];
	for (int i = 0; i < 36; ++i)
		v[i] = (wfVec3){50.0f, 0.0f, 0.0f};
	ENSURE(wfCloth_ReadPositions(id, p0, 36) == WF_OK);
	ENSURE(wfCloth_WriteVelocities(id, v, 36) == WF_OK);
	ENSURE(wfWorld_Step(w) == WF_OK);
	ENSURE(wfCloth_ReadPositions(id, p1, 36) == WF_OK);
	ENSURE(wfCloth_ReadVelocities(id, v, 36) == WF_OK);
	*moved = p1[0].x - p0[0].x;
	*atRest = v[0].x == 0.0f && memcmp(p0, p1, sizeof p0) == 0;
	*unstable = wfWorld_GetWarnings(w).unstable;
	wfDestroyWorld(w);
	return 0;
}

WF_TEST(warning_unstable_speed_limit)
{
	int64_t unstable;
	double moved;
	bool atRest;
	LogCapture log = {0, ""};
	// Too fast: discarded, the state of the frame start kept (still moving at 50 m/s, not moved).
	ENSURE(ThrownSheet(20.0f, WF_BAD_FRAME_KEEP, &unstable, &moved, &atRest, &log) == 0);
	fprintf(stderr, "  logged: %s\n", log.last);
	ENSURE(unstable == 1 && moved == 0.0 && !atRest);
	ENSURE(log.count == 1 && strstr(log.last, "cloth 0") != NULL && strstr(log.last, "particle 0") != NULL &&
		strstr(log.last, "maxSpeed") != NULL && strstr(log.last, "kept") != NULL);
	// The same, reset: back at rest where it started.
	log.count = 0;
	ENSURE(ThrownSheet(20.0f, WF_BAD_FRAME_RESET, &unstable, &moved, &atRest, &log) == 0);
	ENSURE(unstable == 1 && atRest && strstr(log.last, "reset") != NULL);
	// Under the limit: no warning, and the sheet moved 50 m/s x 1/60 s.
	log.count = 0;
	ENSURE(ThrownSheet(100.0f, WF_BAD_FRAME_KEEP, &unstable, &moved, &atRest, &log) == 0);
	ENSURE(unstable == 0 && log.count == 0);
	ENSURE_NEAR(moved, 50.0 / 60.0, 1e-4);
	return 0;
}

// The springs estimate counts the dampers: a light cloth with strong dampers at a substep the
// stiffness alone would allow (k 100 N/m, c 20 N s/m, m 0.01 kg: 4.1e-3 s without dampers, 4.2e-5 s
// with) is flagged and does blow up; at 0.9 of the estimate it is neither.
static int DampedSprings(float h, int64_t* flagged, int64_t* discarded)
{
	LogCapture quiet = {0, ""};
	wfWorldDef wd = wfDefaultWorldDef();
	wd.logFn = CaptureLog;
	wd.logContext = &quiet;
	wd.step.solver = WF_SOLVER_SPRINGS;
	wd.step.substeps = 8;
	wd.step.timeStep = 8.0f * h;
	wfWorld* w = wfTestMakeWorld(wd);
	ENSURE(w != NULL);
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = 10;
	cd.pinMode = WF_PIN_TOP_CORNERS;
	cd.material.mass = 0.01f;
	cd.material.stiffness = 100.0f;
	cd.material.springDamping = 20.0f;
	wfClothId id = wfCreateCloth(w, &cd);
	ENSURE(!wfClothId_IsNull(id));
	for (int f = 0; f < 100; ++f)
		ENSURE(wfWorld_Step(w) == WF_OK);
	wfWarnings warn = wfWorld_GetWarnings(w);
	*flagged = warn.timeStepTooLarge;
	*discarded = warn.unstable + warn.nonFinite;
	wfDestroyWorld(w);
	return 0;
}

WF_TEST(warning_springs_estimate_with_dampers)
{
	const double m = 0.01, k = 100.0, c = 20.0, D = 12.0;
	const double a = 2.0 * k * D / m, b = 4.0 * c * D / m;
	const double limit = (-b + sqrt(b * b + 16.0 * a)) / (2.0 * a), stiffOnly = sqrt(2.0 * m / (k * D));
	fprintf(stderr, "  estimate %.3g s with dampers, %.3g s without\n", limit, stiffOnly);
	int64_t flagged, discarded;
	ENSURE(DampedSprings((float)(0.25 * stiffOnly), &flagged, &discarded) == 0);
	fprintf(stderr, "  h = %.3g s: flagged %lld, discarded %lld\n", 0.25 * stiffOnly, (long long)flagged, (long long)discarded);
	ENSURE(flagged > 0 && discarded > 0);
	ENSURE(DampedSprings((float)(0.9 * limit), &flagged, &discarded) == 0);
	fprintf(stderr, "  h = %.3g s: flagged %lld, discarded %lld\n", 0.9 * limit, (long long)flagged, (long long)discarded);
	ENSURE(flagged == 0 && discarded == 0);
	return 0;
}

// Random light, strongly damped sets (the ones the stiffness-only estimate missed): every set that
// blew up was flagged beforehand.
WF_TEST(warning_springs_every_blow_up_flagged)
{
	uint32_t rng = 99u;
	int exploded = 0, flaggedCount = 0;
	for (int t = 0; t < 120; ++t) {
		float r[4];
		for (int k = 0; k < 4; ++k) {
			rng = rng * 1664525u + 1013904223u;
			r[k] = (float)(rng >> 8) / 16777216.0f;
		}
		LogCapture quiet = {0, ""};
		wfWorldDef wd = wfDefaultWorldDef();
		wd.logFn = CaptureLog;
		wd.logContext = &quiet;
		wd.step.solver = WF_SOLVER_SPRINGS;
		wd.step.timeStep = 1.0f / 60.0f;
		wd.step.substeps = 8 + (int)(r[0] * 120.0f);
		wfWorld* w = wfTestMakeWorld(wd);
		ENSURE(w != NULL);
		wfClothDef cd = wfDefaultClothDef();
		cd.cols = cd.rows = 8;
		cd.pinMode = WF_PIN_TOP_CORNERS;
		cd.material.mass = 0.01f + 0.09f * r[1];
		cd.material.stiffness = 10.0f + 990.0f * r[2];
		cd.material.springDamping = 50.0f * r[3];
		wfClothId id = wfCreateCloth(w, &cd);
		ENSURE(!wfClothId_IsNull(id));
		for (int f = 0; f < 30; ++f)
			wfWorld_Step(w);
		wfWarnings warn = wfWorld_GetWarnings(w);
		if (warn.unstable + warn.nonFinite > 0) {
			exploded++;
			ENSURE(warn.timeStepTooLarge > 0);
		}
		flaggedCount += warn.timeStepTooLarge > 0;
		wfDestroyWorld(w);
	}
	fprintf(stderr, "  %d of 120 sets flagged, %d blew up (each flagged)\n", flaggedCount, exploded);
	ENSURE(exploded > 0);
	return 0;
}

// Unstable frames a collider caused are counted apart: a sphere rising at up to 7.5 m/s into a
// sheet (no gravity) drives the particles it touches past a 3 m/s limit; the sheet thrown at
// 50 m/s in free space is unstable without any contact.
WF_TEST(warning_unstable_in_contact)
{
	LogCapture log = {0, ""};
	wfWorldDef wd = wfDefaultWorldDef();
	wd.gravity = (wfVec3){0.0f, 0.0f, 0.0f};
	wd.maxSpeed = 3.0f;
	wd.logFn = CaptureLog;
	wd.logContext = &log;
	wd.sphere.enabled = true;
	wd.sphere.radius = 0.4f;
	wd.sphere.center = (wfVec3){0.0f, -0.2f, 0.0f};
	wd.sphere.moving = true;
	wd.sphere.amplitude = (wfVec3){0.0f, 0.6f, 0.0f};
	wd.sphere.frequency = 2.0f;
	wfWorld* w = wfTestMakeWorld(wd);
	ENSURE(w != NULL);
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = 10;
	cd.origin = (wfVec3){0.0f, 0.3f, 0.0f};
	ENSURE(!wfClothId_IsNull(wfCreateCloth(w, &cd)));
	for (int f = 0; f < 20; ++f)
		ENSURE(wfWorld_Step(w) == WF_OK);
	wfWarnings warn = wfWorld_GetWarnings(w);
	fprintf(stderr, "  sphere: %lld unstable frames, %lld in contact; logged: %s\n", (long long)warn.unstable,
		(long long)warn.unstableInContact, log.last);
	ENSURE(warn.unstable > 0 && warn.unstableInContact > 0);
	ENSURE(strstr(log.last, "a collider drove it") != NULL);
	wfDestroyWorld(w);

	int64_t unstable;
	double moved;
	bool atRest;
	LogCapture quiet = {0, ""};
	ENSURE(ThrownSheet(20.0f, WF_BAD_FRAME_KEEP, &unstable, &moved, &atRest, &quiet) == 0);
	ENSURE(unstable == 1 && strstr(quiet.last, "collider") == NULL);
	return 0;
}

// The environment's sin and cos (wfSinf, wfCosf: double arithmetic, the same bits on every machine
// and in the wasm build) are the correctly rounded float of sin and cos over the clocks' range.
float wfSinf(float x);
float wfCosf(float x);
WF_TEST(portable_sin_cos_correctly_rounded)
{
	int differ = 0, count = 0;
	double worst = 0.0;
	for (float x = -3000.0f; x < 3000.0f; x += 0.0173f) {
		const float s = wfSinf(x), c = wfCosf(x);
		differ += (s != (float)sin((double)x)) + (c != (float)cos((double)x));
		count += 2;
		worst = fmax(worst, fabs((double)s - sin((double)x)));
	}
	fprintf(stderr, "  %d of %d values differ from the correctly rounded float, largest error %.3g\n", differ, count, worst);
	ENSURE(differ == 0);
	ENSURE(wfSinf(0.0f) == 0.0f && wfCosf(0.0f) == 1.0f);
	return 0;
}

// ------------------------------------------------------------------ statics under damping

// The settled extension (mean of the last second) of a chain of `links` links of 0.1 m (0.1 kg
// particles, stretch compliance alpha) hanging from its top particle, started at rest length.
static double SettledChain(int links, int iterations, float damping, float alpha, int frames)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.step.substeps = 20;
	wd.step.iterations = iterations;
	wfWorld* w = wfTestMakeWorld(wd);
	if (w == NULL)
		return -1.0;
	wfClothDef cd = wfTestChain(links);
	cd.material.mass = 0.1f;
	cd.material.stretchCompliance = alpha;
	cd.material.damping = damping;
	wfClothId id = wfCreateCloth(w, &cd);
	wfVec3 p[11];
	const int window = 60;
	double ext = 0.0;
	for (int f = 0; f < frames && !wfClothId_IsNull(id); ++f) {
		if (wfWorld_Step(w) != WF_OK)
			ext = -1e9;
		if (f >= frames - window) {
			wfCloth_ReadPositions(id, p, links + 1);
			ext += ((double)p[0].y - p[links].y - 0.1 * links) / window;
		}
	}
	wfDestroyWorld(w);
	return wfClothId_IsNull(id) ? -1.0 : ext;
}

// Link k (from the bottom) carries k particles: a chain of n links stretches alpha m g n (n + 1) / 2.
// A damper resists motion only, so the settled extension is the same at every damping (an implicit
// law that also divided gravity's increment held up 1 / (1 + h w d) of the weight: 0.545 of it at
// d = 50, 0.992 at d = 0.5). One link (its one constraint solved exactly by one iteration) at every
// damping, undamped included, to 1e-3; ten links (4 iterations) at every damping that settles
// them within the run (undamped, their slowest mode creeps for tens of seconds) to 5e-3: a chain
// comes to rest wherever the force left over moves a particle by less than half a float step per
// substep, |F / m| < 2^-24 / (2 h^2) = 0.043 m/s^2 at h = 1/1200 s, 0.44 % of g (float positions at
// small steps, the precision fault of issue 26 item 2: measured 0.99856 to 1.00025 at 4 to 100
// iterations, the same figure at every count).
WF_TEST(xpbd_damping_keeps_statics)
{
	const float dampings[] = {0.0f, 0.5f, 5.0f, 50.0f, 1000.0f};
	const float alpha = 1e-3f, mass = 0.1f;
	for (int chain = 0; chain < 2; ++chain) {
		const int links = chain ? 10 : 1;
		const double expected = alpha * mass * 9.8 * links * (links + 1) / 2.0;
		for (size_t k = chain ? 1 : 0; k < sizeof dampings / sizeof dampings[0]; ++k) {
			// d = 1000 kg/s on ten 0.1 kg particles: overdamped, settled in about 40 s.
			const int frames = dampings[k] >= 1000.0f ? 2400 : 600;
			const double ext = SettledChain(links, chain ? 4 : 1, dampings[k], alpha, frames);
			fprintf(stderr, "  %d link(s), damping %g kg/s: extension %.7f m, expected %.7f (ratio %.5f)\n", links, (double)dampings[k],
				ext, expected, ext / expected);
			ENSURE_NEAR(ext / expected, 1.0, chain ? 5e-3 : 1e-3);
		}
	}
	return 0;
}
