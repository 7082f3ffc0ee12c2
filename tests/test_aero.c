// Aerodynamics (wfAeroDef): a plate falling flat reaches the terminal velocity of its drag; lift
// pushes a plate across the flow; bad values are named. On the physics tests' backend.
#include "test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// A plate falling flat in still air, drag coefficient 1: M g = density cd A v^2 / 2 gives the
// terminal velocity v = sqrt(2 M g / (density cd A)). The plate is one equilateral triangle (a mesh
// cloth of three particles): each corner takes a third of the force and a third of the mass, so it
// stays flat. (A grid plate reaches the same speed within 3 % and then, like a real card, starts to
// flutter: its border particles carry less air per mass than the inner ones.)
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
	wfScene_Destroy(scene);
	return 0;
}
