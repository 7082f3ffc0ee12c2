// Presets: the seed documents' default scenes (figures in shared/seeds/README.md).
#include "internal.h"

#include <string.h>

typedef struct Preset {
	const char* name;
	const char* description;
	void (*fill)(wfWorldDef* world, wfClothDef* cloth);
} Preset;

// The first document: XPBD with coloured Gauss-Seidel, a cloth falling over a moving sphere.
static void FillXpbd(wfWorldDef* w, wfClothDef* c)
{
	w->step.solver = WF_SOLVER_XPBD;
	w->step.timeStep = 1.0f / 60.0f;
	w->step.substeps = 20;
	w->step.iterations = 1;
	w->velocity = WF_VELOCITY_POSITIONS; // the document's own arithmetic: v = (x - p) / h
	w->sphere.enabled = true;
	w->sphere.center = (wfVec3){0.0f, 0.0f, 0.0f};
	w->sphere.radius = 0.6f;
	w->sphere.moving = true;
	w->sphere.amplitude = (wfVec3){0.0f, 0.0f, 0.6f};
	w->sphere.frequency = 0.25f;
	w->floor.enabled = true;
	w->floor.height = -1.2f;
	w->contact.thickness = 0.02f;
	w->contact.friction = 0.4f;
	c->cols = 48;
	c->rows = 48;
	c->width = 2.4f;
	c->height = 2.4f;
	c->orientation = WF_ORIENT_HORIZONTAL;
	c->origin = (wfVec3){0.0f, 0.9f, 0.0f};
	c->material.mass = 0.01f;
	c->material.stretchCompliance = 1e-7f;
	c->material.shearCompliance = 1e-6f;
	c->material.bendCompliance = 1e-3f;
	c->material.damping = 0.002f;
	c->uvRepeat = 3.0f;
}

// The second document: explicit springs, 60x60 over a 5x5 square at y = 2, unit sphere at the origin.
static void FillComputeCloth(wfWorldDef* w, wfClothDef* c)
{
	w->step.solver = WF_SOLVER_SPRINGS;
	w->step.substeps = 64;
	w->step.timeStep = 0.00077f * 64.0f;
	w->step.iterations = 1;
	w->gravity = (wfVec3){0.0f, -9.8f, 0.0f};
	w->sphere.enabled = true;
	w->sphere.center = (wfVec3){0.0f, 0.0f, 0.0f};
	w->sphere.radius = 1.0f;
	w->contact.response = WF_CONTACT_STOP;
	w->contact.thickness = 0.0f;
	w->wind.mode = WF_WIND_NONE;
	w->wind.strength = 2.4f;
	c->cols = 60;
	c->rows = 60;
	c->width = 5.0f;
	c->height = 5.0f;
	c->orientation = WF_ORIENT_HORIZONTAL;
	c->origin = (wfVec3){0.0f, 2.0f, 0.0f};
	c->bending = false; // the document has structural and shear springs only
	c->material.mass = 0.1f;
	c->material.stiffness = 2000.0f;
	c->material.springDamping = 0.25f;
	c->pinMode = WF_PIN_NONE;
	c->uvRepeat = 3.0f;
}

// The third document: small-step PBD, 56x56 with spacing 0.12 hanging from its top corners, its own
// Jacobi averaging and its start: centred on the origin in the xy plane, each particle pushed out of
// the plane by (hash(i) - 1/2) 0.6 spacing.
static void FillSpringMesh(wfWorldDef* w, wfClothDef* c)
{
	w->step.solver = WF_SOLVER_JACOBI;
	w->step.timeStep = 1.0f / 60.0f;
	w->step.substeps = 8;
	w->step.iterations = 2;
	w->velocity = WF_VELOCITY_POSITIONS; // the document's own arithmetic: v = (x - p) / h
	w->gravity = (wfVec3){0.0f, -9.8f, 0.0f};
	w->floor.enabled = false;
	w->floor.height = -2.6f;
	w->wind.mode = WF_WIND_NONE;
	w->wind.frequency = 2.0f;
	w->wind.strength = 2.0f;
	w->wind.direction = (wfVec3){0.0f, 0.0f, 1.0f};
	c->cols = 56;
	c->rows = 56;
	c->width = 55 * 0.12f;
	c->height = 55 * 0.12f;
	c->orientation = WF_ORIENT_VERTICAL;
	c->origin = (wfVec3){0.0f, 0.0f, 0.0f};
	c->jacobiWeights = WF_JACOBI_DEGREE;
	c->jitter = 0.6f;
	c->material.mass = 1.0f;
	c->material.relaxation = 0.9f;
	c->material.retention = 0.99f;
	c->pinMode = WF_PIN_TOP_CORNERS;
	c->uvRepeat = 4.0f;
}

static const Preset kPresets[] = {
	{"xpbd", "XPBD, coloured Gauss-Seidel, 48x48 cloth over a moving sphere", FillXpbd},
	{"compute-cloth", "explicit springs, 60x60 over a unit sphere, 64 substeps of 0.77 ms", FillComputeCloth},
	{"spring-mesh", "small-step PBD with Jacobi sweeps, 56x56 hanging from two corners", FillSpringMesh},
};

#define PRESET_COUNT ((int)(sizeof kPresets / sizeof kPresets[0]))

int wfPresetCount(void) { return PRESET_COUNT; }
const char* wfPresetName(int i) { return i >= 0 && i < PRESET_COUNT ? kPresets[i].name : NULL; }
const char* wfPresetDescription(int i) { return i >= 0 && i < PRESET_COUNT ? kPresets[i].description : NULL; }

bool wfPresetGet(const char* name, wfWorldDef* world, wfClothDef* cloth)
{
	if (world == NULL || cloth == NULL)
		return false;
	for (int i = 0; name != NULL && i < PRESET_COUNT; ++i) {
		if (strcmp(kPresets[i].name, name) == 0) {
			*world = wfDefaultWorldDef();
			*cloth = wfDefaultClothDef();
			kPresets[i].fill(world, cloth);
			return true;
		}
	}
	return false;
}
