// Defs: the defaults of every def and their validation, shared by creation, the setters and the
// scene loader.
#include "internal.h"
#include "names.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define WF_SECRET_COOKIE 1152023 // wf*Def.internalValue: the def came from wfDefault*Def

// ------------------------------------------------------------------ the field tables
// One table per def, in scene-file order: the defaults, the ranges the validators check (and their
// messages), the scene-file keys (scene.c) and what the tools read (wfDefFields: the viewer's panel,
// the CLI's options). Bounds and defaults are floats (the float literals the checks and defaults
// used before; the integer fields' bounds are exact in float). Rules that are no plain range
// (cross-field rules, pin lists, a caller's Vulkan device) are code below.
// clang-format off: tables, one field a line

#define FIELD_KEY(T, member, key, fieldType, ...) \
	{ \
		.name = #member, .sceneKey = (key), .type = fieldType, .offset = offsetof(T, member), __VA_ARGS__ \
	}
#define FIELD(T, member, fieldType, ...) FIELD_KEY(T, member, #member, fieldType, __VA_ARGS__)
#define RANGE(lo, hi) .min = (lo), .max = (hi)
#define DEFAULT(...) .defaultValue = {__VA_ARGS__}
#define UI(lo, hi) .uiMin = (lo), .uiMax = (hi)
#define NAMES(table, LIST) .enumNames = table##Names, .enumCount = WF_ENUM_COUNT(LIST)
#define NESTED(def) .nested = (def)

static const wfFieldInfo kStepFields[] = {
	FIELD(wfStepDef, solver, WF_FIELD_ENUM, NAMES(wfSolverTable, WF_SOLVER_NAMES), DEFAULT(WF_SOLVER_XPBD)),
	FIELD(wfStepDef, timeStep, WF_FIELD_FLOAT, RANGE(1e-7, 1.0), DEFAULT(1.0 / 60.0), UI(0.0005, 0.05), .flags = WF_FIELD_LOG),
	FIELD(wfStepDef, substeps, WF_FIELD_INT, RANGE(1, WF_MAX_SUBSTEPS), DEFAULT(10), UI(1, 128)),
	FIELD(wfStepDef, iterations, WF_FIELD_INT, RANGE(1, 1024), DEFAULT(1), UI(1, 32)),
	FIELD(wfStepDef, order, WF_FIELD_ENUM, NAMES(wfOrderTable, WF_ORDER_NAMES), DEFAULT(WF_ORDER_AUTO),
		.note = "read when a cloth is created"),
};

static const wfFieldInfo kSphereFields[] = {
	FIELD(wfSphereDef, enabled, WF_FIELD_BOOL),
	FIELD(wfSphereDef, center, WF_FIELD_VEC3, RANGE(-1e6, 1e6)),
	FIELD(wfSphereDef, radius, WF_FIELD_FLOAT, RANGE(1e-6, 1e4), DEFAULT(1.0), UI(0.05, 3.0)),
	FIELD(wfSphereDef, moving, WF_FIELD_BOOL),
	FIELD(wfSphereDef, amplitude, WF_FIELD_VEC3, RANGE(-1e6, 1e6), DEFAULT(0.0, 0.0, 1.0)),
	FIELD(wfSphereDef, frequency, WF_FIELD_FLOAT, RANGE(0.0, 100.0), DEFAULT(0.25)),
};

static const wfFieldInfo kFloorFields[] = {
	FIELD(wfFloorDef, enabled, WF_FIELD_BOOL),
	FIELD(wfFloorDef, height, WF_FIELD_FLOAT, RANGE(-1e6, 1e6), UI(-5.0, 2.0)),
};

static const wfFieldInfo kWindFields[] = {
	FIELD(wfWindDef, mode, WF_FIELD_ENUM, NAMES(wfWindTable, WF_WIND_NAMES), DEFAULT(WF_WIND_NONE)),
	FIELD(wfWindDef, strength, WF_FIELD_FLOAT, RANGE(0.0, 1e4), DEFAULT(2.4), UI(0.0, 20.0)),
	FIELD(wfWindDef, frequency, WF_FIELD_FLOAT, RANGE(0.0, 100.0), DEFAULT(2.0), UI(0.0, 5.0)),
	FIELD(wfWindDef, phasePerColumn, WF_FIELD_FLOAT, RANGE(-100.0, 100.0), DEFAULT(0.15)),
	FIELD(wfWindDef, direction, WF_FIELD_VEC3, RANGE(-1e6, 1e6), DEFAULT(0.0, 0.0, 1.0)),
};

static const wfFieldInfo kContactFields[] = {
	FIELD(wfContactDef, response, WF_FIELD_ENUM, NAMES(wfResponseTable, WF_RESPONSE_NAMES), DEFAULT(WF_CONTACT_FRICTION)),
	FIELD(wfContactDef, thickness, WF_FIELD_FLOAT, RANGE(0.0, 1.0), DEFAULT(0.01)),
	FIELD(wfContactDef, friction, WF_FIELD_FLOAT, RANGE(0.0, 10.0), DEFAULT(0.3)),
};

static const wfFieldInfo kAeroFields[] = {
	FIELD(wfAeroDef, density, WF_FIELD_FLOAT, RANGE(0.0, 1e4), DEFAULT(1.2)),
	FIELD(wfAeroDef, drag, WF_FIELD_FLOAT, RANGE(0.0, 100.0)),
	FIELD(wfAeroDef, lift, WF_FIELD_FLOAT, RANGE(0.0, 100.0)),
	FIELD(wfAeroDef, airVelocity, WF_FIELD_VEC3, RANGE(-1e4, 1e4), .flags = WF_FIELD_EACH),
};

static const wfFieldInfo kSelfCollisionFields[] = {
	FIELD(wfSelfCollisionDef, enabled, WF_FIELD_BOOL),
	FIELD(wfSelfCollisionDef, thickness, WF_FIELD_FLOAT, RANGE(1e-6, 1.0), DEFAULT(0.0), UI(0.001, 0.1),
		.flags = WF_FIELD_LOG | WF_FIELD_OR_ZERO, .note = "0: half the finest cloth's mean edge"),
	FIELD(wfSelfCollisionDef, friction, WF_FIELD_FLOAT, RANGE(0.0, 10.0), DEFAULT(0.2), UI(0.0, 2.0)),
	FIELD(wfSelfCollisionDef, exclusion, WF_FIELD_FLOAT, RANGE(0.0, 100.0), DEFAULT(1.5)),
	FIELD(wfSelfCollisionDef, betweenCloths, WF_FIELD_BOOL),
	FIELD(wfSelfCollisionDef, pointTriangle, WF_FIELD_BOOL, DEFAULT(0)),
	FIELD(wfSelfCollisionDef, edgeEdge, WF_FIELD_BOOL, DEFAULT(0)),
};

static const wfFieldInfo kWorldFields[] = {
	FIELD(wfWorldDef, backend, WF_FIELD_ENUM, NAMES(wfBackendTable, WF_BACKEND_NAMES), DEFAULT(WF_BACKEND_AUTO)),
	FIELD(wfWorldDef, deviceName, WF_FIELD_STRING),
	FIELD(wfWorldDef, threads, WF_FIELD_INT, RANGE(0, 1024)),
	FIELD(wfWorldDef, step, WF_FIELD_STRUCT, NESTED(WF_DEF_STEP)),
	FIELD(wfWorldDef, gravity, WF_FIELD_VEC3, RANGE(-1e6, 1e6), DEFAULT(0.0, -9.8, 0.0), UI(-50.0, 10.0)),
	FIELD(wfWorldDef, sphere, WF_FIELD_STRUCT, NESTED(WF_DEF_SPHERE)),
	FIELD(wfWorldDef, floor, WF_FIELD_STRUCT, NESTED(WF_DEF_FLOOR)),
	FIELD(wfWorldDef, wind, WF_FIELD_STRUCT, NESTED(WF_DEF_WIND)),
	FIELD(wfWorldDef, contact, WF_FIELD_STRUCT, NESTED(WF_DEF_CONTACT)),
	FIELD(wfWorldDef, aero, WF_FIELD_STRUCT, NESTED(WF_DEF_AERO)),
	FIELD(wfWorldDef, selfCollision, WF_FIELD_STRUCT, NESTED(WF_DEF_SELF_COLLISION)),
	FIELD(wfWorldDef, maxSpeed, WF_FIELD_FLOAT, RANGE(1.0, 1e6), DEFAULT(1e3)),
	FIELD(wfWorldDef, badFrame, WF_FIELD_ENUM, NAMES(wfBadFrameTable, WF_BAD_FRAME_NAMES), DEFAULT(WF_BAD_FRAME_KEEP)),
	FIELD(wfWorldDef, velocity, WF_FIELD_ENUM, NAMES(wfVelocityTable, WF_VELOCITY_NAMES), DEFAULT(WF_VELOCITY_MOVES),
		.note = "fixed at creation"),
	// The per-world switches the tools map from the environment; not in scene files.
	FIELD_KEY(wfWorldDef, validation, NULL, WF_FIELD_BOOL),
	FIELD_KEY(wfWorldDef, simd, NULL, WF_FIELD_BOOL, DEFAULT(1)),
	FIELD_KEY(wfWorldDef, logGpuTiming, NULL, WF_FIELD_BOOL),
	FIELD_KEY(wfWorldDef, fusedPath, NULL, WF_FIELD_ENUM, NAMES(wfFusedPathTable, WF_FUSED_PATH_NAMES), DEFAULT(WF_FUSED_AUTO)),
};

static const wfFieldInfo kMaterialFields[] = {
	FIELD(wfMaterial, mass, WF_FIELD_FLOAT, RANGE(1e-9, 1e6), DEFAULT(0.1), UI(0.001, 10.0), .flags = WF_FIELD_LOG),
	FIELD(wfMaterial, stretchCompliance, WF_FIELD_FLOAT, RANGE(0.0, 1e3), DEFAULT(1e-6), UI(0.0, 1.0), .flags = WF_FIELD_LOG),
	FIELD(wfMaterial, shearCompliance, WF_FIELD_FLOAT, RANGE(0.0, 1e3), DEFAULT(1e-5), UI(0.0, 1.0), .flags = WF_FIELD_LOG),
	FIELD(wfMaterial, bendCompliance, WF_FIELD_FLOAT, RANGE(0.0, 1e3), DEFAULT(1e-3), UI(0.0, 10.0), .flags = WF_FIELD_LOG),
	FIELD(wfMaterial, damping, WF_FIELD_FLOAT, RANGE(0.0, 1e3), DEFAULT(0.01), UI(0.0, 10.0)),
	FIELD(wfMaterial, relaxation, WF_FIELD_FLOAT, RANGE(0.0, 1.0), DEFAULT(0.9), UI(0.0, 0.99), .flags = WF_FIELD_OPEN_MAX,
		.note = "at 1 a sweep flips a lone constraint's error, C -> -C"),
	FIELD(wfMaterial, retention, WF_FIELD_FLOAT, RANGE(0.0, 1.0), DEFAULT(0.99), UI(0.9, 1.0)),
	FIELD(wfMaterial, stiffness, WF_FIELD_FLOAT, RANGE(0.0, 1e7), DEFAULT(2000.0), UI(1.0, 1e5), .flags = WF_FIELD_LOG),
	FIELD(wfMaterial, springDamping, WF_FIELD_FLOAT, RANGE(0.0, 1e5), DEFAULT(0.25), UI(0.0, 10.0)),
	FIELD(wfMaterial, tearStrain, WF_FIELD_FLOAT, RANGE(0.0, 100.0), UI(0.0, 2.0)),
};

// A cloth's variants for onlyFor: the grid's own fields are not checked on a mesh cloth.
enum { FOR_GRID = 1, FOR_MESH = 2 };

static const wfFieldInfo kClothFields[] = {
	FIELD(wfClothDef, cols, WF_FIELD_INT, RANGE(1, 8192), DEFAULT(32), UI(2, 128), .onlyFor = FOR_GRID),
	FIELD(wfClothDef, rows, WF_FIELD_INT, RANGE(1, 8192), DEFAULT(32), UI(2, 128), .onlyFor = FOR_GRID),
	FIELD(wfClothDef, width, WF_FIELD_FLOAT, RANGE(1e-6, 1e5), DEFAULT(1.0), .onlyFor = FOR_GRID),
	FIELD(wfClothDef, height, WF_FIELD_FLOAT, RANGE(1e-6, 1e5), DEFAULT(1.0), .onlyFor = FOR_GRID),
	FIELD(wfClothDef, orientation, WF_FIELD_ENUM, NAMES(wfOrientationTable, WF_ORIENTATION_NAMES), DEFAULT(WF_ORIENT_HORIZONTAL),
		.onlyFor = FOR_GRID),
	FIELD(wfClothDef, origin, WF_FIELD_VEC3, RANGE(-1e6, 1e6)),
	FIELD(wfClothDef, structural, WF_FIELD_BOOL, DEFAULT(1)),
	FIELD(wfClothDef, shear, WF_FIELD_BOOL, DEFAULT(1)),
	FIELD(wfClothDef, bending, WF_FIELD_BOOL, DEFAULT(1)),
	FIELD(wfClothDef, material, WF_FIELD_STRUCT, NESTED(WF_DEF_MATERIAL)),
	FIELD(wfClothDef, pinMode, WF_FIELD_ENUM, NAMES(wfPinTable, WF_PIN_NAMES), DEFAULT(WF_PIN_NONE)),
	FIELD(wfClothDef, pinIndices, WF_FIELD_INDEX_LIST, .countOffset = offsetof(wfClothDef, pinCount)),
	FIELD(wfClothDef, uvRepeat, WF_FIELD_FLOAT, RANGE(0.0, 1e4), DEFAULT(1.0)),
	FIELD(wfClothDef, jacobiWeights, WF_FIELD_ENUM, NAMES(wfJacobiWeightTable, WF_JACOBI_WEIGHT_NAMES), DEFAULT(WF_JACOBI_SYMMETRIC)),
	FIELD(wfClothDef, jitter, WF_FIELD_FLOAT, RANGE(0.0, 1.0), .onlyFor = FOR_GRID),
	FIELD(wfClothDef, tethers, WF_FIELD_ENUM, NAMES(wfTetherTable, WF_TETHER_NAMES), DEFAULT(WF_TETHER_NONE)),
	FIELD(wfClothDef, tetherScale, WF_FIELD_FLOAT, RANGE(1.0, 10.0), DEFAULT(1.0)),
	// Bit sets of 31 bits, [0, 0x7fffffff]: as a float the bound is 2^31, which no int exceeds; the
	// default 2^31 is written as 0x7fffffff (every bit).
	FIELD(wfClothDef, collisionGroup, WF_FIELD_INT, RANGE(0, 2147483648.0), DEFAULT(1)),
	FIELD(wfClothDef, collisionMask, WF_FIELD_INT, RANGE(0, 2147483648.0), DEFAULT(2147483648.0)),
	FIELD(wfClothDef, mesh, WF_FIELD_POINTER), // scene files: "mesh": an OBJ file (scene.c)
	FIELD(wfClothDef, attachMode, WF_FIELD_ENUM, NAMES(wfPinTable, WF_PIN_NAMES), DEFAULT(WF_PIN_NONE)),
	FIELD(wfClothDef, attachIndices, WF_FIELD_INDEX_LIST, .countOffset = offsetof(wfClothDef, attachCount)),
	FIELD(wfClothDef, attachCollider, WF_FIELD_INT, RANGE(0, 31)),
	FIELD(wfClothDef, attachCompliance, WF_FIELD_FLOAT, RANGE(0.0, 1e3)),
};

#define FOR_TYPE(t) (1u << (t))

static const wfFieldInfo kColliderFields[] = {
	FIELD(wfColliderDef, type, WF_FIELD_ENUM, NAMES(wfColliderTable, WF_COLLIDER_NAMES), DEFAULT(WF_COLLIDER_SPHERE)),
	FIELD(wfColliderDef, position, WF_FIELD_VEC3, RANGE(-1e6, 1e6), .flags = WF_FIELD_CUSTOM),
	FIELD_KEY(wfColliderDef, rotation, "rotate", WF_FIELD_QUAT, DEFAULT(0.0, 0.0, 0.0, 1.0)),
	FIELD(wfColliderDef, radius, WF_FIELD_FLOAT, RANGE(0.0, 1e4), DEFAULT(0.1), .flags = WF_FIELD_OPEN_MIN,
		.onlyFor = FOR_TYPE(WF_COLLIDER_SPHERE) | FOR_TYPE(WF_COLLIDER_CAPSULE)),
	FIELD(wfColliderDef, radius1, WF_FIELD_FLOAT, RANGE(0.0, 1e4), DEFAULT(0.1), .flags = WF_FIELD_OPEN_MIN,
		.onlyFor = FOR_TYPE(WF_COLLIDER_CAPSULE)),
	FIELD(wfColliderDef, halfLength, WF_FIELD_FLOAT, RANGE(0.0, 1e4), DEFAULT(0.2), .onlyFor = FOR_TYPE(WF_COLLIDER_CAPSULE)),
	FIELD(wfColliderDef, halfExtents, WF_FIELD_VEC3, RANGE(0.0, 1e4), DEFAULT(0.5, 0.5, 0.5), .flags = WF_FIELD_OPEN_MIN | WF_FIELD_EACH,
		.onlyFor = FOR_TYPE(WF_COLLIDER_BOX)),
	FIELD(wfColliderDef, amplitude, WF_FIELD_VEC3, RANGE(-1e4, 1e4), .flags = WF_FIELD_CUSTOM),
	FIELD(wfColliderDef, frequency, WF_FIELD_FLOAT, RANGE(0.0, 100.0)),
	FIELD(wfColliderDef, keys, WF_FIELD_POINTER, .countOffset = offsetof(wfColliderDef, keyCount)), // at most WF_MAX_COLLIDER_KEYS
	FIELD(wfColliderDef, interpolation, WF_FIELD_ENUM, NAMES(wfInterpolationTable, WF_INTERPOLATION_NAMES), DEFAULT(WF_INTERPOLATE_LINEAR)),
	FIELD(wfColliderDef, loop, WF_FIELD_BOOL),
	// scene files: "mesh": an OBJ file, "transform" and each key's "mesh" (scene.c)
	FIELD(wfColliderDef, mesh, WF_FIELD_POINTER, .onlyFor = FOR_TYPE(WF_COLLIDER_MESH)),
};

static const wfFieldInfo kColliderKeyFields[] = {
	FIELD(wfColliderKey, time, WF_FIELD_FLOAT, RANGE(-1e7, 1e7), .flags = WF_FIELD_CUSTOM),
	FIELD(wfColliderKey, position, WF_FIELD_VEC3, RANGE(-1e6, 1e6), .flags = WF_FIELD_CUSTOM),
	FIELD_KEY(wfColliderKey, rotation, "rotate", WF_FIELD_QUAT, DEFAULT(0.0, 0.0, 0.0, 1.0)),
};

// clang-format on

#define DEF_TABLE(type, fields) [type] = {fields, (int)(sizeof fields / sizeof fields[0])}

static const struct {
	const wfFieldInfo* fields;
	int count;
} kDefs[WF_DEF_COUNT] = {
	DEF_TABLE(WF_DEF_WORLD, kWorldFields),
	DEF_TABLE(WF_DEF_STEP, kStepFields),
	DEF_TABLE(WF_DEF_SPHERE, kSphereFields),
	DEF_TABLE(WF_DEF_FLOOR, kFloorFields),
	DEF_TABLE(WF_DEF_WIND, kWindFields),
	DEF_TABLE(WF_DEF_CONTACT, kContactFields),
	DEF_TABLE(WF_DEF_AERO, kAeroFields),
	DEF_TABLE(WF_DEF_SELF_COLLISION, kSelfCollisionFields),
	DEF_TABLE(WF_DEF_MATERIAL, kMaterialFields),
	DEF_TABLE(WF_DEF_CLOTH, kClothFields),
	DEF_TABLE(WF_DEF_COLLIDER, kColliderFields),
	DEF_TABLE(WF_DEF_COLLIDER_KEY, kColliderKeyFields),
};

const wfFieldInfo* wfDefFields(wfDefType def, int* count)
{
	bool known = (unsigned)def < (unsigned)WF_DEF_COUNT;
	if (count != NULL)
		*count = known ? kDefs[def].count : 0;
	return known ? kDefs[def].fields : NULL;
}

const wfFieldInfo* wfFindDefFieldAt(wfDefType def, const char* path, size_t* offset)
{
	size_t at = 0;
	while ((unsigned)def < (unsigned)WF_DEF_COUNT && path != NULL) {
		const char* dot = strchr(path, '.');
		size_t length = dot != NULL ? (size_t)(dot - path) : strlen(path);
		const wfFieldInfo* f = NULL;
		for (int i = 0; i < kDefs[def].count && f == NULL; ++i) {
			if (strlen(kDefs[def].fields[i].name) == length && strncmp(kDefs[def].fields[i].name, path, length) == 0)
				f = &kDefs[def].fields[i];
		}
		if (f == NULL)
			return NULL;
		at += f->offset;
		if (dot == NULL) {
			if (offset != NULL)
				*offset = at;
			return f;
		}
		if (f->type != WF_FIELD_STRUCT)
			return NULL;
		def = f->nested;
		path = dot + 1;
	}
	return NULL;
}

const wfFieldInfo* wfFindDefField(wfDefType def, const char* path) { return wfFindDefFieldAt(def, path, NULL); }

// ------------------------------------------------------------------ defaults

// Writes every field's default; what a table leaves out (pointers, counts) stays as the caller has it.
static void ApplyDefaults(wfDefType def, void* base)
{
	for (int i = 0; i < kDefs[def].count; ++i) {
		const wfFieldInfo* f = &kDefs[def].fields[i];
		char* at = (char*)base + f->offset;
		const float* q = f->defaultValue;
		int n = q[0] >= 2147483647.0f ? 2147483647 : (int)q[0]; // 0x7fffffff is 2^31 as a float
		bool b = q[0] != 0.0f;
		switch (f->type) {
		case WF_FIELD_BOOL: memcpy(at, &b, sizeof b); break;
		case WF_FIELD_INT:
		case WF_FIELD_ENUM: memcpy(at, &n, sizeof n); break;
		case WF_FIELD_FLOAT: memcpy(at, q, sizeof(float)); break;
		case WF_FIELD_VEC3: memcpy(at, q, sizeof(wfVec3)); break;
		case WF_FIELD_QUAT: memcpy(at, q, sizeof(wfQuat)); break;
		case WF_FIELD_STRUCT: ApplyDefaults(f->nested, at); break;
		default: break;
		}
	}
}

wfWorldDef wfDefaultWorldDef(void)
{
	wfWorldDef d;
	memset(&d, 0, sizeof d);
	ApplyDefaults(WF_DEF_WORLD, &d);
	d.internalValue = WF_SECRET_COOKIE;
	return d;
}

wfMaterial wfDefaultMaterial(void)
{
	wfMaterial m;
	memset(&m, 0, sizeof m);
	ApplyDefaults(WF_DEF_MATERIAL, &m);
	return m;
}

wfClothDef wfDefaultClothDef(void)
{
	wfClothDef d;
	memset(&d, 0, sizeof d);
	ApplyDefaults(WF_DEF_CLOTH, &d);
	d.internalValue = WF_SECRET_COOKIE;
	return d;
}

wfColliderDef wfDefaultColliderDef(void)
{
	wfColliderDef d;
	memset(&d, 0, sizeof d);
	ApplyDefaults(WF_DEF_COLLIDER, &d);
	d.internalValue = WF_COLLIDER_COOKIE;
	return d;
}

// ------------------------------------------------------------------ validation from the tables

// A range's bound as the source writes it, for the vector messages: powers of ten from 1e4 up as
// "1eN", anything else as %g.
const char* wfFormatBound(double v, char out[24])
{
	double a = fabs(v);
	int e = a >= 1e4 ? (int)lround(log10(a)) : 0;
	if (e > 0 && pow(10.0, e) == a)
		snprintf(out, 24, "%s1e%d", v < 0.0 ? "-" : "", e);
	else
		snprintf(out, 24, "%g", v);
	return out;
}

// "one of a, b, c": an enum field's names for messages.
void wfJoinNames(const char* const* names, int count, char* out, size_t size)
{
	size_t used = 0;
	out[0] = 0;
	for (int i = 0; i < count && used < size; ++i)
		used += (size_t)snprintf(out + used, size - used, "%s%s", i > 0 ? ", " : "", names[i]);
}

static bool InRange(const wfFieldInfo* f, double x, double lo, double hi)
{
	if (x == 0.0 && (f->flags & WF_FIELD_OR_ZERO) != 0)
		return true;
	bool above = (f->flags & WF_FIELD_OPEN_MIN) != 0 ? x > lo : x >= lo;
	bool below = (f->flags & WF_FIELD_OPEN_MAX) != 0 ? x < hi : x <= hi;
	return above && below;
}

// A number against its field's range: "step.substeps: 0 is out of range [1, 4096]".
static bool CheckNumber(const wfFieldInfo* f, double x, const char* path, const char* suffix, char* error, int errorSize)
{
	double lo = f->min, hi = f->max;
	if (InRange(f, x, lo, hi))
		return true;
	snprintf(error, (size_t)errorSize, "%s%s: %g is out of range %s%s%g, %g%s%s%s%s", path, suffix, x,
		(f->flags & WF_FIELD_OR_ZERO) != 0 ? "0 or " : "", (f->flags & WF_FIELD_OPEN_MIN) != 0 ? "(" : "[", lo, hi,
		(f->flags & WF_FIELD_OPEN_MAX) != 0 ? ")" : "]", f->note != NULL ? " (" : "", f->note != NULL ? f->note : "",
		f->note != NULL ? ")" : "");
	return false;
}

bool wfCheckField(const wfFieldInfo* f, const void* value, const char* path, char* error, int errorSize)
{
	if ((f->flags & WF_FIELD_CUSTOM) != 0)
		return true;
	float x[3];
	int n;
	char lo[24], hi[24];
	switch (f->type) {
	case WF_FIELD_INT: memcpy(&n, value, sizeof n); return CheckNumber(f, (double)n, path, "", error, errorSize);
	case WF_FIELD_FLOAT: memcpy(x, value, sizeof(float)); return CheckNumber(f, (double)x[0], path, "", error, errorSize);
	case WF_FIELD_ENUM:
		memcpy(&n, value, sizeof n);
		if ((unsigned)n < (unsigned)f->enumCount)
			return true;
		char names[160];
		wfJoinNames(f->enumNames, f->enumCount, names, sizeof names);
		snprintf(error, (size_t)errorSize, "%s: %d is not one of %s", path, n, names);
		return false;
	case WF_FIELD_VEC3:
		memcpy(x, value, sizeof x);
		if ((f->flags & WF_FIELD_EACH) != 0) {
			return CheckNumber(f, (double)x[0], path, ".x", error, errorSize) &&
				CheckNumber(f, (double)x[1], path, ".y", error, errorSize) && CheckNumber(f, (double)x[2], path, ".z", error, errorSize);
		}
		if (InRange(f, x[0], f->min, f->max) && InRange(f, x[1], f->min, f->max) && InRange(f, x[2], f->min, f->max))
			return true;
		snprintf(error, (size_t)errorSize, "%s: (%g, %g, %g) must be finite, each component in [%s, %s]", path, (double)x[0], (double)x[1],
			(double)x[2], wfFormatBound(f->min, lo), wfFormatBound(f->max, hi));
		return false;
	default: return true;
	}
}

// Every field of a def in table order, nested defs at their place; variant picks the fields of
// onlyFor (a collider's type, a cloth's grid or mesh).
static bool CheckDef(wfDefType def, const void* base, const char* prefix, unsigned variant, char* error, int errorSize)
{
	char path[160];
	for (int i = 0; i < kDefs[def].count; ++i) {
		const wfFieldInfo* f = &kDefs[def].fields[i];
		if (f->onlyFor != 0 && (f->onlyFor & variant) == 0)
			continue;
		snprintf(path, sizeof path, "%s%s", prefix, f->name);
		const char* at = (const char*)base + f->offset;
		if (f->type == WF_FIELD_STRUCT) {
			char nested[168];
			snprintf(nested, sizeof nested, "%s.", path);
			if (!CheckDef(f->nested, at, nested, ~0u, error, errorSize))
				return false;
		} else if (!wfCheckField(f, at, path, error, errorSize)) {
			return false;
		}
	}
	return true;
}

bool wfValidateStepDef(const wfStepDef* s, char* error, int errorSize) { return CheckDef(WF_DEF_STEP, s, "step.", ~0u, error, errorSize); }
bool wfValidateSphere(const wfSphereDef* s, char* error, int errorSize)
{
	return CheckDef(WF_DEF_SPHERE, s, "sphere.", ~0u, error, errorSize);
}
bool wfValidateFloor(const wfFloorDef* f, char* error, int errorSize) { return CheckDef(WF_DEF_FLOOR, f, "floor.", ~0u, error, errorSize); }
bool wfValidateWind(const wfWindDef* w, char* error, int errorSize) { return CheckDef(WF_DEF_WIND, w, "wind.", ~0u, error, errorSize); }
bool wfValidateAero(const wfAeroDef* a, char* error, int errorSize) { return CheckDef(WF_DEF_AERO, a, "aero.", ~0u, error, errorSize); }
bool wfValidateContact(const wfContactDef* c, char* error, int errorSize)
{
	return CheckDef(WF_DEF_CONTACT, c, "contact.", ~0u, error, errorSize);
}
bool wfValidateSelfCollision(const wfSelfCollisionDef* sc, char* error, int errorSize)
{
	return CheckDef(WF_DEF_SELF_COLLISION, sc, "selfCollision.", ~0u, error, errorSize);
}
bool wfValidateMaterial(const wfMaterial* m, char* error, int errorSize)
{
	return CheckDef(WF_DEF_MATERIAL, m, "material.", ~0u, error, errorSize);
}
bool wfValidateGravity(const wfVec3* g, char* error, int errorSize)
{
	return wfCheckField(wfFindDefField(WF_DEF_WORLD, "gravity"), g, "gravity", error, errorSize);
}

// ------------------------------------------------------------------ the rules that are no plain range

// The caller's Vulkan device (wfWorldDef.vulkanDevice): complete, with a compute queue, and not
// combined with settings that would pick another device.
static bool ValidateVulkanDevice(const wfWorldDef* d, char* error, int errorSize)
{
	const wfVulkanDevice* v = d->vulkanDevice;
	if (d->backend == WF_BACKEND_CPU) {
		snprintf(error, (size_t)errorSize, "vulkanDevice: given with backend cpu (allowed: backend auto or vulkan)");
		return false;
	}
	if (d->deviceName != NULL && d->deviceName[0] != 0) {
		snprintf(error, (size_t)errorSize, "vulkanDevice: given with deviceName \"%s\" (allowed: one of them)", d->deviceName);
		return false;
	}
	const struct {
		const char* name;
		const void* value;
	} handles[] = {{"instance", v->instance}, {"physicalDevice", v->physicalDevice}, {"device", v->device}, {"queue", v->queue},
		{"getInstanceProcAddr", v->getInstanceProcAddr}};
	for (size_t i = 0; i < sizeof handles / sizeof handles[0]; ++i) {
		if (handles[i].value == NULL) {
			snprintf(error, (size_t)errorSize, "vulkanDevice.%s: NULL (allowed: a live handle)", handles[i].name);
			return false;
		}
	}
	if ((v->queueFlags & 0x2u) == 0) { // VK_QUEUE_COMPUTE_BIT
		snprintf(error, (size_t)errorSize, "vulkanDevice.queueFlags: 0x%x has no VK_QUEUE_COMPUTE_BIT (allowed: a queue with compute)",
			v->queueFlags);
		return false;
	}
	return true;
}

bool wfValidateWorldDef(const wfWorldDef* d, char* error, int errorSize)
{
	if (d->internalValue != WF_SECRET_COOKIE) {
		snprintf(error, (size_t)errorSize, "world def: not initialised with wfDefaultWorldDef()");
		return false;
	}
	if (!CheckDef(WF_DEF_WORLD, d, "", ~0u, error, errorSize))
		return false;
	if (d->vulkanDevice != NULL && !ValidateVulkanDevice(d, error, errorSize))
		return false;
	// The CPU backend has no devices: a device name there is a mistake, not something to ignore.
	if (d->backend == WF_BACKEND_CPU && d->deviceName != NULL && d->deviceName[0] != 0) {
		snprintf(error, (size_t)errorSize,
			"deviceName: given with backend cpu, which uses no device (allowed: backend auto or "
			"vulkan, or no deviceName)");
		return false;
	}
	return true;
}

// A list of particle indices (pinIndices, attachIndices) against the cloth's particles.
static bool CheckIndexList(const char* name, const int* indices, int count, int particles, char* error, int errorSize)
{
	if (count < 0 || (count > 0 && indices == NULL)) {
		snprintf(error, (size_t)errorSize, "%s: %d indices given without a list", name, count);
		return false;
	}
	for (int i = 0; i < count; ++i) {
		if (indices[i] < 0 || indices[i] >= particles) {
			snprintf(error, (size_t)errorSize, "%s[%d]: %d is out of range [0, %d]", name, i, indices[i], particles - 1);
			return false;
		}
	}
	return true;
}

// The pins' and the attachments' particles.
static bool CheckPinLists(const wfClothDef* d, int particles, char* error, int errorSize)
{
	return (d->pinMode != WF_PIN_LIST || CheckIndexList("pinIndices", d->pinIndices, d->pinCount, particles, error, errorSize)) &&
		(d->attachMode != WF_PIN_LIST || CheckIndexList("attachIndices", d->attachIndices, d->attachCount, particles, error, errorSize));
}

// The rules of a mesh cloth (the table skips cols, rows, width, height, orientation and jitter,
// which are the grid's).
static bool ValidateMeshCloth(const wfClothDef* d, char* error, int errorSize)
{
	if (d->pinMode == WF_PIN_CORNERS || d->attachMode == WF_PIN_CORNERS) {
		snprintf(error, (size_t)errorSize, "%s: \"corners\" needs a grid; a mesh takes none, top-corners, top-row or list",
			d->pinMode == WF_PIN_CORNERS ? "pinMode" : "attachMode");
		return false;
	}
	if (d->jitter != 0.0f) {
		snprintf(error, (size_t)errorSize, "jitter: %g, a mesh starts at its own positions (allowed 0)", (double)d->jitter);
		return false;
	}
	return CheckPinLists(d, d->mesh->vertexCount, error, errorSize);
}

static bool ValidateGridCloth(const wfClothDef* d, char* error, int errorSize)
{
	if ((int64_t)d->cols * d->rows < 2 || (int64_t)d->cols * d->rows > (1 << 26)) {
		snprintf(error, (size_t)errorSize, "cols x rows: %d x %d particles, allowed [2, 67108864]", d->cols, d->rows);
		return false;
	}
	if (wfGridConstraintCount(d->cols, d->rows, d->structural, d->shear, d->bending) == 0) {
		snprintf(error, (size_t)errorSize, "cols x rows: a %d x %d grid has no constraints with these families", d->cols, d->rows);
		return false;
	}
	return CheckPinLists(d, d->cols * d->rows, error, errorSize);
}

bool wfValidateClothDef(const wfClothDef* d, char* error, int errorSize)
{
	if (d->internalValue != WF_SECRET_COOKIE) {
		snprintf(error, (size_t)errorSize, "cloth def: not initialised with wfDefaultClothDef()");
		return false;
	}
	if (d->mesh != NULL && !wfValidateMeshDef(d->mesh, error, errorSize))
		return false;
	if (!CheckDef(WF_DEF_CLOTH, d, "", d->mesh != NULL ? FOR_MESH : FOR_GRID, error, errorSize))
		return false;
	if (!d->structural && !d->shear && !d->bending) {
		snprintf(error, (size_t)errorSize, "structural, shear, bending: at least one constraint family must be on");
		return false;
	}
	return d->mesh != NULL ? ValidateMeshCloth(d, error, errorSize) : ValidateGridCloth(d, error, errorSize);
}
