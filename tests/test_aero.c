// Aerodynamics (wfAeroDef): a plate falling flat reaches the terminal velocity of its drag; lift
// pushes a plate across the flow; bad values are named. On the physics tests' backend.
#include "test.h"
#include "vk_test_util.h"
#include "core/internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// A plate falling flat in still air, drag coefficient 1: M g = density cd A v^2 / 2 gives the
// terminal velocity v = sqrt(2 M g / (density cd A)). The plate is one equilateral triangle (a mesh
// cloth of three particles): each corner takes a third of the force and a third of the mass, so it
// stays flat. (A grid sheet does too: aero_sheet_falls_flat_at_terminal_velocity.)
WF_TEST(aero_plate_terminal_velocity)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.step.substeps = 10;
	wd.aero.drag = 1.0f;
	wd.aero.density = 1.2f;
	wfWorld* w = wfTestMakeWorld(wd);
	ENSURE(w != NULL);
	const float side = 0.6f, hgt = 0.5f * sqrtf(3.0f) * side;
	const wfVec3 corners[3] = {{-0.5f * side, 0.0f, -hgt / 3.0f}, {0.5f * side, 0.0f, -hgt / 3.0f}, {0.0f, 0.0f, 2.0f * hgt / 3.0f}};
	const uint32_t tri[3] = {0, 2, 1}; // counter-clockwise from above
	wfMeshDef md = {corners, 3, tri, NULL, 1, NULL, 0, NULL, 0};
	wfClothDef cd = wfDefaultClothDef();
	cd.mesh = &md;
	cd.origin = (wfVec3){0.0f, 100.0f, 0.0f};
	cd.pinMode = WF_PIN_NONE;
	cd.material.mass = 0.01f;
	cd.material.damping = 0.0f;
	wfClothId id = wfCreateCloth(w, &cd);
	ENSURE(!wfClothId_IsNull(id));
	wfVec3 v[3], p[3];
	double speed = 0.0, previous = 0.0;
	for (int frame = 0; frame < 300; ++frame) {
		ENSURE(wfWorld_Step(w) == WF_OK);
		ENSURE(wfCloth_ReadVelocities(id, v, 3) == WF_OK);
		previous = speed;
		speed = -((double)v[0].y + v[1].y + v[2].y) / 3.0;
	}
	ENSURE(wfCloth_ReadPositions(id, p, 3) == WF_OK);
	const double M = 3 * 0.01, g = 9.8, area = 0.5 * (double)side * hgt;
	const double terminal = sqrt(2.0 * M * g / (1.2 * 1.0 * area));
	fprintf(stderr, "  after 5 s: falling at %.5f m/s (last frame's change %.2g), closed form %.5f m/s; corners at %.4f %.4f %.4f m\n",
		speed, speed - previous, terminal, (double)p[0].y, (double)p[1].y, (double)p[2].y);
	ENSURE(p[0].y == p[1].y && p[1].y == p[2].y); // flat
	ENSURE_NEAR(speed, terminal, 1e-3 * terminal);
	// Without the air it would fall at g t = 49 m/s.
	wfDestroyWorld(w);
	return 0;
}

// A horizontal sheet of `count` particles and rest area `area` (a grid or a flat mesh, its normal
// +y) falling broadside in still air, drag coefficient 1 and no lift, its mass per area sigma spread
// over equal particles. Falling flat it reaches the terminal velocity of a plate,
// sqrt(2 M g / (density cd A)), and stays flat when the drag per kilogram is the same at the border
// as inside. Returns the centroid's mean descent speed over seconds 2 to 4 as a fraction of that
// speed; *spread: the highest minus the lowest particle at 4 s over the sheet's side (0: flat).
static double SheetFallRatio(wfClothDef cd, int count, double area, double* spread)
{
	*spread = NAN;
	wfWorldDef wd = wfDefaultWorldDef();
	wd.aero.drag = 1.0f;
	wd.aero.density = 1.2f;
	wfWorld* w = wfTestMakeWorld(wd);
	if (w == NULL)
		return NAN;
	const double sigma = 0.2, g = 9.8; // kg / m^2, m / s^2
	cd.origin = (wfVec3){0.0f, 100.0f, 0.0f};
	cd.pinMode = WF_PIN_NONE;
	cd.material.mass = (float)(sigma * area / count);
	cd.material.damping = 0.0f;
	wfClothId id = wfCreateCloth(w, &cd);
	wfVec3* p = (wfVec3*)malloc((size_t)count * sizeof(wfVec3));
	double ratio = NAN, y2 = 0.0;
	bool ok = !wfClothId_IsNull(id) && p != NULL;
	for (int frame = 1; ok && frame <= 240; ++frame) {
		ok = wfWorld_Step(w) == WF_OK;
		if (!ok || (frame != 120 && frame != 240))
			continue;
		ok = wfCloth_ReadPositions(id, p, count) == WF_OK;
		double y = 0.0, lo = p[0].y, hi = p[0].y;
		for (int i = 0; i < count; ++i) {
			y += (double)p[i].y / count;
			lo = p[i].y < lo ? p[i].y : lo;
			hi = p[i].y > hi ? p[i].y : hi;
		}
		if (frame == 120) {
			y2 = y;
			continue;
		}
		const double M = count * (double)cd.material.mass;
		ratio = (y2 - y) / 2.0 / sqrt(2.0 * M * g / (1.2 * 1.0 * area));
		*spread = (hi - lo) / sqrt(area);
	}
	free(p);
	wfDestroyWorld(w);
	return ratio;
}

// A flat square mesh of UN x UN vertices, side 1, its spacing growing by `ratio` from cell to cell
// along x and z (uneven lumped areas inside as well as at the border), triangles wound as a grid's.
enum { UN = 16 };
static wfMeshDef UnevenSheet(double ratio, wfVec3 pos[UN * UN], uint32_t idx[6 * (UN - 1) * (UN - 1)])
{
	double at[UN] = {0.0};
	for (int k = 1; k < UN; ++k)
		at[k] = at[k - 1] + pow(ratio, k - 1);
	for (int r = 0; r < UN; ++r) {
		for (int c = 0; c < UN; ++c)
			pos[r * UN + c] = (wfVec3){(float)(at[c] / at[UN - 1] - 0.5), 0.0f, (float)(at[r] / at[UN - 1] - 0.5)};
	}
	int t = 0;
	for (int r = 0; r + 1 < UN; ++r) {
		for (int c = 0; c + 1 < UN; ++c) {
			const uint32_t i0 = (uint32_t)(r * UN + c), i1 = i0 + 1, i2 = i0 + UN, i3 = i2 + 1;
			const uint32_t six[6] = {i0, i2, i1, i1, i2, i3};
			memcpy(&idx[t], six, sizeof six);
			t += 6;
		}
	}
	return (wfMeshDef){pos, UN * UN, idx, NULL, t / 3, NULL, 0, NULL, 0};
}

// Each triangle's force goes a third to each corner, and the corner's share is scaled by its air
// share (the cloth's mean lumped rest area over its own, topology.c wfBuildAirShares), so the air
// acts per kilogram alike everywhere on a flat sheet. Before that (a third over equal masses: a
// border particle half, a corner a third or a sixth of an inner one's air per kilogram) the
// border fell ahead, the sheet curled into a tube falling edge-on, and over seconds 2 to 4 it fell
// at 3.00 v_t (20 x 20, 1.38 sides between its highest and lowest particles at 4 s) and 2.50 v_t
// (40 x 40, 1.02 sides); the uneven mesh at 4.37 v_t (1.33 sides); the 2 x 2 sheet tilted (0.027
// sides) and fell at 1.00075 v_t.
WF_TEST(aero_sheet_falls_flat_at_terminal_velocity)
{
	const int sizes[] = {2, 20, 40};
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
		wfClothDef cd = wfDefaultClothDef();
		cd.cols = cd.rows = sizes[k];
		cd.width = cd.height = 1.0f;
		double spread;
		const double ratio = SheetFallRatio(cd, sizes[k] * sizes[k], 1.0, &spread);
		fprintf(stderr, "  %d x %d grid: seconds 2-4 at %.5f v_t; highest minus lowest particle at 4 s: %.3g side\n", sizes[k], sizes[k],
			ratio, spread);
		ENSURE_NEAR(ratio, 1.0, sizes[k] == 2 ? 1e-4 : 0.05);
		ENSURE_LE(spread, 0.01);
	}
	// A mesh whose cells grow 15 % from one to the next: inner particles' areas differ too.
	static wfVec3 pos[UN * UN];
	static uint32_t idx[6 * (UN - 1) * (UN - 1)];
	const wfMeshDef md = UnevenSheet(1.15, pos, idx);
	wfClothDef cd = wfDefaultClothDef();
	cd.mesh = &md;
	double spread;
	const double ratio = SheetFallRatio(cd, md.vertexCount, 1.0, &spread);
	fprintf(stderr, "  %d x %d uneven mesh: seconds 2-4 at %.5f v_t; highest minus lowest particle at 4 s: %.3g side\n", UN, UN, ratio,
		spread);
	ENSURE_NEAR(ratio, 1.0, 0.05);
	ENSURE_LE(spread, 0.01);
	return 0;
}

// Every particle's air share times its lumped rest area (a third of its triangles' rest areas) is
// the cloth's mean lumped area: checked on the model as the backends read it. Returns the largest
// relative miss (0 when exact), -1 for a particle with rest area whose share is not finite.
static double AirShareMiss(const wfClothModel* m)
{
	double total = 0.0, worst = 0.0;
	int carriers = 0;
	for (int i = 0; i < m->particleCount; ++i) {
		double a = 0.0;
		for (int e = m->triStart[i]; e < m->triStart[i + 1]; ++e)
			a += m->triArea[m->triList[e]] / 3.0;
		total += a;
		carriers += a > 0.0;
	}
	for (int i = 0; i < m->particleCount; ++i) {
		double a = 0.0;
		for (int e = m->triStart[i]; e < m->triStart[i + 1]; ++e)
			a += m->triArea[m->triList[e]] / 3.0;
		if (a > 0.0 && !isfinite(m->restPositions[i].w))
			return -1.0;
		if (a > 0.0)
			worst = fmax(worst, fabs(m->restPositions[i].w * a / (total / carriers) - 1.0));
	}
	return worst;
}

// A 12 x 12 sheet hanging from its top row in a side wind with drag and lift, heavy and soft enough
// to tear within a second; steps until 20 frames after the first tear. Positions into p (capacity
// 4 x 144), the particle count into *count; the cloth's model checked with AirShareMiss into *miss.
static int TornSheet(wfBackendType backend, wfVec3* p, int* count, double* miss, double* missBefore)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.step.iterations = 4;
	wd.aero.drag = 1.0f;
	wd.aero.lift = 0.5f;
	wd.aero.airVelocity = (wfVec3){0.0f, 0.0f, 6.0f};
	wfWorld* w = wfVkTestWorld(wd, backend);
	ENSURE(w != NULL);
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = 12;
	cd.width = cd.height = 0.5f;
	cd.orientation = WF_ORIENT_VERTICAL;
	cd.pinMode = WF_PIN_TOP_ROW;
	cd.material.mass = 0.05f;
	cd.material.stretchCompliance = cd.material.shearCompliance = 1e-2f;
	cd.material.bendCompliance = 0.1f;
	cd.material.tearStrain = 0.1f;
	wfClothId id = wfCreateCloth(w, &cd);
	ENSURE(!wfClothId_IsNull(id));
	wfCloth* c = wfGetCloth(id);
	*missBefore = AirShareMiss(&c->model);
	int torn = -1;
	for (int frame = 0; frame < 120 && (torn < 0 || frame < torn + 20); ++frame) {
		ENSURE(wfWorld_Step(w) == WF_OK);
		if (torn < 0 && c->topology > 0)
			torn = frame;
	}
	ENSURE(torn >= 0);
	wfClothInfo info;
	ENSURE(wfCloth_GetInfo(id, &info) == WF_OK);
	*count = info.particleCount;
	ENSURE(*count > 144 && *count <= 4 * 144);
	ENSURE(wfCloth_ReadPositions(id, p, *count) == WF_OK);
	*miss = AirShareMiss(&c->model);
	wfDestroyWorld(w);
	return 0;
}

// The air shares come with the model wherever it is built: a grid's from its flat cells (the
// jitter is a start shape, not the rest shape), a mesh's from its triangles, a torn cloth's from the
// rebuilt rows (the split particles have less area than before). On Vulkan the torn sheet also
// steps through the same bits as on the CPU.
WF_TEST(aero_air_shares_follow_the_model)
{
	wfClothModel flat, jittered;
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = 9;
	cd.rows = 6;
	cd.width = 0.8f;
	ENSURE(wfBuildGridModel(&cd, &flat, false) == WF_OK);
	cd.jitter = 0.6f;
	ENSURE(wfBuildGridModel(&cd, &jittered, false) == WF_OK);
	// Lumped areas in triangles: inner 2, border 1, corners 1/3 or 2/3; the mean 2 (c - 1) (r - 1) / (c r).
	const double mean = 2.0 * 8 * 5 / (9.0 * 6.0);
	const float inner = flat.restPositions[9 + 1].w, border = flat.restPositions[1].w, corner = flat.restPositions[0].w,
				corner2 = flat.restPositions[8].w;
	fprintf(stderr, "  9 x 6 grid air shares: inner %.6f, border %.6f, corners %.6f and %.6f (mean area %.6f triangles)\n", (double)inner,
		(double)border, (double)corner, (double)corner2, mean);
	ENSURE_NEAR(inner, mean / 2.0, 1e-6);
	ENSURE_NEAR(border, mean, 1e-6);
	ENSURE_NEAR(corner, mean * 3.0, 1e-6);        // in one triangle
	ENSURE_NEAR(corner2, mean * 3.0 / 2.0, 1e-6); // in two
	bool same = true;
	for (int i = 0; i < flat.particleCount; ++i)
		same = same && flat.restPositions[i].w == jittered.restPositions[i].w;
	ENSURE(same);
	ENSURE_LE(AirShareMiss(&flat), 1e-6);
	wfFreeModel(&flat);
	wfFreeModel(&jittered);
	// A mesh: an open cylinder's rings.
	wfMesh* mesh = wfTestCylinder(24, 8, 0.2f, 0.3f);
	ENSURE(mesh != NULL);
	wfMeshDef md = wfMesh_GetDef(mesh);
	wfClothDef mcd = wfDefaultClothDef();
	mcd.mesh = &md;
	wfClothModel cyl;
	ENSURE(wfBuildMeshModel(&mcd, &cyl) == WF_OK);
	fprintf(stderr, "  cylinder: rim share %.6f, inner ring %.6f\n", (double)cyl.restPositions[0].w, (double)cyl.restPositions[24].w);
	ENSURE_NEAR(cyl.restPositions[0].w, 2.0 * cyl.restPositions[24].w, 1e-5);
	ENSURE_LE(AirShareMiss(&cyl), 1e-6);
	wfFreeModel(&cyl);
	wfDestroyMesh(mesh);
	// Torn.
	static wfVec3 p[4 * 144], q[4 * 144];
	int count = 0;
	double miss = 0.0, before = 0.0;
	ENSURE(TornSheet(wfTestBackend(), p, &count, &miss, &before) == 0);
	fprintf(stderr, "  torn sheet: %d particles (144 before), air shares missed by %.3g before the tear and %.3g after\n", count, before,
		miss);
	ENSURE_LE(before, 1e-6);
	ENSURE_LE(miss, 1e-6);
	if (wfTestBackend() == WF_BACKEND_VULKAN) {
		int cpuCount = 0;
		ENSURE(TornSheet(WF_BACKEND_CPU, q, &cpuCount, &miss, &before) == 0);
		ENSURE(cpuCount == count);
		const bool bits = memcmp(p, q, (size_t)count * sizeof(wfVec3)) == 0;
		double diff = 0.0;
		for (int i = 0; i < count; ++i)
			diff = fmax(diff, fabs((double)p[i].x - q[i].x) + fabs((double)p[i].y - q[i].y) + fabs((double)p[i].z - q[i].z));
		fprintf(stderr, "  the same torn sheet on the CPU: %d particles, positions %s (largest difference %.3g m)\n", cpuCount,
			bits ? "bit-identical" : "differ", diff);
		// lavapipe rounds as the CPU does; a hardware GPU's sqrt and division differ in the last bits.
		if (wfVkTestDeviceIsExact())
			ENSURE(bits);
		else
			ENSURE_LE(diff, 1e-3);
	}
	return 0;
}

// Lift: a plate held at its corners in a horizontal stream tilted 20 degrees into it is pushed
// up (toward the side the flow turns from) by more with lift than with drag alone.
static double HeldPlateUpForce(float lift)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.gravity = (wfVec3){0.0f, 0.0f, 0.0f};
	wd.aero.drag = 0.5f;
	wd.aero.lift = lift;
	wd.aero.airVelocity = (wfVec3){10.0f, -3.64f, 0.0f}; // 20 degrees below the plate's plane
	wfWorld* w = wfTestMakeWorld(wd);
	if (w == NULL)
		return NAN;
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = 9;
	cd.width = cd.height = 0.4f;
	cd.pinMode = WF_PIN_NONE;
	cd.material.mass = 0.01f;
	wfClothId id = wfCreateCloth(w, &cd);
	wfVec3 v[81];
	double up = 0.0;
	if (!wfClothId_IsNull(id) && wfWorld_Step(w) == WF_OK && wfCloth_ReadVelocities(id, v, 81) == WF_OK) {
		for (int i = 0; i < 81; ++i)
			up += (double)v[i].y / 81.0;
	}
	wfDestroyWorld(w);
	return up;
}

WF_TEST(aero_lift_adds_to_drag)
{
	double drag = HeldPlateUpForce(0.0f), both = HeldPlateUpForce(1.0f);
	fprintf(stderr, "  mean vertical velocity after one frame: drag only %.5f m/s, drag and lift %.5f m/s\n", drag, both);
	// The flow meets the plate's upper side 20 degrees down: drag pushes the plate down along its
	// normal; lift, perpendicular to the flow, adds (-0.34, -0.94) per unit: down and upstream.
	ENSURE(drag < 0.0);
	ENSURE(both < drag);
	return 0;
}

WF_TEST(aero_def_errors)
{
	static const struct {
		int field;
		float value;
		const char* message;
	} cases[] = {
		{0, -1.0f, "aero.density: -1 is out of range [0, 10000]"},
		{1, 101.0f, "aero.drag: 101 is out of range [0, 100]"},
		{2, NAN, "aero.lift: nan is out of range [0, 100]"},
		{3, 2e4f, "aero.airVelocity.y: 20000 is out of range [-10000, 10000]"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
		wfWorldDef wd = wfDefaultWorldDef();
		wd.backend = WF_BACKEND_CPU;
		switch (cases[i].field) {
		case 0: wd.aero.density = cases[i].value; break;
		case 1: wd.aero.drag = cases[i].value; break;
		case 2: wd.aero.lift = cases[i].value; break;
		case 3: wd.aero.airVelocity.y = cases[i].value; break;
		}
		char err[256] = "";
		ENSURE(wfTestCreateWorld(&wd, err, sizeof err) == NULL);
		fprintf(stderr, "  %s\n", err);
		ENSURE(strncmp(err, cases[i].message, strlen(cases[i].message)) == 0);
	}
	char err[256];
	wfScene* scene = wfScene_Parse("{\"world\": {\"aero\": {\"drag\": 1.5, \"airVelocity\": [1, 2, 3]}}}", "a.json", err, sizeof err);
	if (scene == NULL)
		fprintf(stderr, "  %s\n", err);
	ENSURE(scene != NULL);
	wfWorldDef fromScene = wfScene_GetWorldDef(scene);
	ENSURE(fromScene.aero.drag == 1.5f && fromScene.aero.airVelocity.z == 3.0f && fromScene.aero.density == 1.2f);
	wfDestroyScene(scene);
	return 0;
}
