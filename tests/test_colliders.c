// Colliders (capsules, boxes, planes, spheres) that move: no particle inside any of them, a fast
// capsule pushes a hanging cloth without passing through, friction holds a cloth on a tilted plane
// below the friction angle and lets it slide above, and bad defs name their field (CPU worlds; the
// Vulkan backend is held to the CPU bit for bit in test_vulkan.c, vk_colliders_*).
#include "test.h"

#include <stdlib.h>
#include <string.h>

static wfWorld* CpuWorld(wfWorldDef wd)
{
	wd.backend = WF_BACKEND_CPU;
	char err[256];
	wfWorld* w = wfTestCreateWorld(&wd, err, sizeof err);
	if (w == NULL)
		fprintf(stderr, "  world: %s\n", err);
	return w;
}

// Rotation about an axis by an angle (radians).
static wfQuat AxisAngle(float x, float y, float z, float angle)
{
	float s = sinf(0.5f * angle);
	return (wfQuat){x * s, y * s, z * s, cosf(0.5f * angle)};
}

// Distance from p to the capsule's axis segment minus its radius (equal radii).
static float CapsuleClearance(wfVec3 p, wfVec3 c, float halfLength, float radius)
{
	float u = p.x - c.x; // axis along world x
	u = u < -halfLength ? -halfLength : u > halfLength ? halfLength : u;
	float dx = p.x - (c.x + u), dy = p.y - c.y, dz = p.z - c.z;
	return sqrtf(dx * dx + dy * dy + dz * dz) - radius;
}

// A capsule at 10 m/s (moved by wfCollider_SetTransform every frame) through a hanging sheet: it
// pushes the sheet, no particle is ever inside it, and none ends up behind it.
WF_TEST(collider_fast_capsule_pushes_cloth)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.step.substeps = 16;
	wfWorld* w = CpuWorld(wd);
	ENSURE(w != NULL);
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = 24;
	cd.width = cd.height = 1.0f;
	cd.orientation = WF_ORIENT_VERTICAL;
	cd.origin = (wfVec3){0.0f, 1.0f, 0.0f};
	cd.pinMode = WF_PIN_TOP_ROW;
	wfClothId id = wfCreateCloth(w, &cd);
	ENSURE(!wfClothId_IsNull(id));
	wfColliderDef k = wfDefaultColliderDef();
	k.type = WF_COLLIDER_CAPSULE;
	k.radius = k.radius1 = 0.06f;
	k.halfLength = 0.25f;
	k.position = (wfVec3){0.0f, 0.9f, -0.4f};
	wfColliderId cap = wfCreateCollider(w, &k);
	ENSURE(!wfColliderId_IsNull(cap));
	const int n = 24 * 24;
	wfVec3* p = (wfVec3*)malloc((size_t)n * sizeof(wfVec3));
	const float speed = 10.0f, dt = wd.step.timeStep;
	float z = k.position.z, worst = 1e9f;
	for (int frame = 0; frame < 5; ++frame) {
		z += speed * dt;
		ENSURE(wfCollider_SetTransform(cap, (wfVec3){0.0f, 0.9f, z}, (wfQuat){0, 0, 0, 1}) == WF_OK);
		ENSURE(wfWorld_Step(w) == WF_OK);
		ENSURE(wfCloth_ReadPositions(id, p, n) == WF_OK);
		for (int i = 0; i < n; ++i) {
			float c = CapsuleClearance(p[i], (wfVec3){0.0f, 0.9f, z}, k.halfLength, k.radius);
			worst = c < worst ? c : worst;
		}
	}
	// Passing through would leave a column of the sheet wholly behind the capsule: every column in
	// its span must reach in front of its axis (the sheet wraps over and under it; that is fine).
	int behind = 0;
	float pushed = 1e9f;
	for (int col = 0; col < 24; ++col) {
		float front = -1e9f;
		for (int row = 0; row < 24; ++row)
			front = fmaxf(front, p[row * 24 + col].z);
		if (fabsf(p[col].x) < k.halfLength - 0.05f) {
			behind += front < z;
			pushed = fminf(pushed, front);
		}
	}
	wfWarnings warn = wfWorld_GetWarnings(w);
	fprintf(stderr,
		"  capsule at z = %.3f m: every column in its span reaches z >= %.3f m (%d do not reach its axis), clearance >= %.5f m\n",
		(double)z, (double)pushed, behind, (double)worst);
	ENSURE(warn.unstable == 0 && warn.nonFinite == 0);
	ENSURE(behind == 0);
	ENSURE(pushed > z + k.radius); // the sheet is carried in front of the capsule
	ENSURE_LE(-worst, 1e-5);
	free(p);
	wfDestroyWorld(w);
	return 0;
}

// A small square of cloth (a mesh made on the plane) resting on a plane tilted by theta, friction mu:
// it holds below the friction angle atan(mu) and slides above it, at close to g (sin - mu cos).
static int TiltedPlane(float degrees, float mu, float* slid)
{
	const float theta = degrees * 3.14159265f / 180.0f;
	wfWorldDef wd = wfDefaultWorldDef();
	wd.step.substeps = 10;
	wd.contact.friction = mu;
	wd.contact.thickness = 0.005f;
	wfWorld* w = CpuWorld(wd);
	ENSURE(w != NULL);
	wfColliderDef k = wfDefaultColliderDef();
	k.type = WF_COLLIDER_PLANE;
	k.rotation = AxisAngle(0.0f, 0.0f, 1.0f, theta); // normal (-sin, cos, 0): down-slope is -x
	ENSURE(!wfColliderId_IsNull(wfCreateCollider(w, &k)));
	// 6 x 6 vertices, 0.2 m square, on the plane at the thickness.
	wfVec3 v[36];
	uint32_t idx[25 * 4];
	uint8_t sizes[25];
	const float c = cosf(theta), s = sinf(theta);
	for (int r = 0; r < 6; ++r)
		for (int q = 0; q < 6; ++q) {
			float u = -0.1f + 0.04f * (float)q, h = 0.005f;
			v[r * 6 + q] = (wfVec3){u * c - h * s, u * s + h * c, -0.1f + 0.04f * (float)r};
		}
	int f = 0;
	for (int r = 0; r < 5; ++r)
		for (int q = 0; q < 5; ++q, ++f) {
			uint32_t i0 = (uint32_t)(r * 6 + q);
			idx[4 * f + 0] = i0;
			idx[4 * f + 1] = i0 + 6;
			idx[4 * f + 2] = i0 + 7;
			idx[4 * f + 3] = i0 + 1;
			sizes[f] = 4;
		}
	wfMeshDef md = {v, 36, idx, sizes, 25, NULL, 0, NULL, 0};
	wfClothDef cd = wfDefaultClothDef();
	cd.mesh = &md;
	cd.pinMode = WF_PIN_NONE;
	wfClothId id = wfCreateCloth(w, &cd);
	ENSURE(!wfClothId_IsNull(id));
	wfVec3 a[36], b[36];
	ENSURE(wfCloth_ReadPositions(id, a, 36) == WF_OK);
	const int frames = 60;
	for (int frame = 0; frame < frames; ++frame)
		ENSURE(wfWorld_Step(w) == WF_OK);
	ENSURE(wfCloth_ReadPositions(id, b, 36) == WF_OK);
	double along = 0.0, height = 1e9;
	for (int i = 0; i < 36; ++i) {
		along += -((double)(b[i].x - a[i].x) * c + (double)(b[i].y - a[i].y) * s) / 36.0; // down the slope
		double above = -(double)b[i].x * s + (double)b[i].y * c;
		height = above < height ? above : height;
	}
	*slid = (float)along;
	const double t = frames * wd.step.timeStep, expect = degrees * 3.14159265 / 180.0;
	double closed = 0.5 * 9.81 * (sin(expect) - mu * cos(expect)) * t * t;
	fprintf(stderr, "  %.0f degrees, mu %.2f (friction angle %.1f): slid %.4f m in %.1f s (closed form %.4f m), lowest %.4f m above\n",
		(double)degrees, (double)mu, atan((double)mu) * 180.0 / 3.14159265, along, t, closed > 0.0 ? closed : 0.0, height);
	ENSURE(height > 0.004); // on the plane at the thickness, not through it
	wfDestroyWorld(w);
	return 0;
}

WF_TEST(collider_friction_on_tilted_plane)
{
	float holds = 0.0f, slides = 0.0f;
	ENSURE(TiltedPlane(15.0f, 0.5f, &holds) == 0);
	ENSURE(TiltedPlane(40.0f, 0.5f, &slides) == 0);
	ENSURE_LE(fabsf(holds), 5e-3); // creep of the discrete Coulomb response: 4 mm a second
	// g (sin 40 - 0.5 cos 40) t^2 / 2 = 1.275 m in 1 s
	ENSURE_NEAR(slides, 1.275, 0.15);
	return 0;
}

// A tablecloth dropped on a box table, a sphere resting in the middle, over 150 frames: no particle
// inside the box or the collider sphere beyond 0.1 mm, and the cloth drapes below the table top.
WF_TEST(collider_tablecloth_on_box)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.step.substeps = 12;
	wd.contact.thickness = 0.005f;
	wd.contact.friction = 0.4f;
	wfWorld* w = CpuWorld(wd);
	ENSURE(w != NULL);
	wfColliderDef table = wfDefaultColliderDef();
	table.type = WF_COLLIDER_BOX;
	table.position = (wfVec3){0.0f, 0.7f, 0.0f};
	table.halfExtents = (wfVec3){0.4f, 0.04f, 0.3f};
	table.rotation = AxisAngle(0.0f, 1.0f, 0.0f, 0.3f);
	wfColliderDef ball = wfDefaultColliderDef();
	ball.type = WF_COLLIDER_SPHERE;
	ball.radius = 0.08f;
	ball.position = (wfVec3){0.1f, 0.82f, 0.0f};
	ENSURE(!wfColliderId_IsNull(wfCreateCollider(w, &table)) && !wfColliderId_IsNull(wfCreateCollider(w, &ball)));
	ENSURE(wfWorld_GetColliderCount(w) == 2);
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = 30;
	cd.width = cd.height = 1.2f;
	cd.origin = (wfVec3){0.0f, 1.0f, 0.0f};
	cd.pinMode = WF_PIN_NONE;
	wfClothId id = wfCreateCloth(w, &cd);
	ENSURE(!wfClothId_IsNull(id));
	const int n = 900;
	wfVec3* p = (wfVec3*)malloc((size_t)n * sizeof(wfVec3));
	const float cy = cosf(0.15f), sy = sinf(0.15f); // the box's quaternion is about y by 0.3 rad
	const float ca = 1.0f - 2.0f * sy * sy, sa = 2.0f * sy * cy;
	float worst = 0.0f, lowest = 1e9f;
	for (int frame = 0; frame < 150; ++frame) {
		ENSURE(wfWorld_Step(w) == WF_OK);
		ENSURE(wfCloth_ReadPositions(id, p, n) == WF_OK);
		for (int i = 0; i < n; ++i) {
			// Into the box's frame: the inverse rotation about y.
			float dx = p[i].x - table.position.x, dy = p[i].y - table.position.y, dz = p[i].z - table.position.z;
			float lx = ca * dx - sa * dz, lz = sa * dx + ca * dz;
			float depth = fminf(fminf(table.halfExtents.x - fabsf(lx), table.halfExtents.y - fabsf(dy)), table.halfExtents.z - fabsf(lz));
			worst = depth > worst ? depth : worst;
			float bx = p[i].x - ball.position.x, by = p[i].y - ball.position.y, bz = p[i].z - ball.position.z;
			float inside = ball.radius - sqrtf(bx * bx + by * by + bz * bz);
			worst = inside > worst ? inside : worst;
			lowest = p[i].y < lowest ? p[i].y : lowest;
		}
	}
	wfWarnings warn = wfWorld_GetWarnings(w);
	fprintf(stderr, "  deepest inside a collider %.6f m; lowest particle %.3f m (table top 0.74 m)\n", (double)worst, (double)lowest);
	ENSURE(warn.unstable == 0 && warn.nonFinite == 0);
	ENSURE_LE(worst, 1e-4);
	ENSURE(lowest < 0.6f);
	free(p);
	wfDestroyWorld(w);
	return 0;
}

// A sine-moving collider reports its pose; SetTransform is reached at the end of the next frame.
WF_TEST(collider_pose_and_motion)
{
	wfWorld* w = CpuWorld(wfDefaultWorldDef());
	ENSURE(w != NULL);
	wfColliderDef k = wfDefaultColliderDef();
	k.amplitude = (wfVec3){0.0f, 0.0f, 0.5f};
	k.frequency = 1.0f;
	wfColliderId id = wfCreateCollider(w, &k);
	ENSURE(!wfColliderId_IsNull(id));
	for (int f = 0; f < 15; ++f) // a quarter period at 60 frames per second
		ENSURE(wfWorld_Step(w) == WF_OK);
	wfVec3 p;
	wfQuat q;
	ENSURE(wfCollider_GetTransform(id, &p, &q) == WF_OK);
	ENSURE_NEAR(p.z, 0.5, 1e-3);
	ENSURE(wfCollider_SetTransform(id, (wfVec3){1.0f, 2.0f, 3.0f}, (wfQuat){0.0f, 0.0f, 0.0f, 2.0f}) == WF_OK);
	ENSURE(wfCollider_GetTransform(id, &p, &q) == WF_OK && p.x == 0.0f); // not before the next frame
	ENSURE(wfWorld_Step(w) == WF_OK);
	ENSURE(wfCollider_GetTransform(id, &p, &q) == WF_OK);
	ENSURE(p.x == 1.0f && p.y == 2.0f && q.w == 1.0f);
	wfDestroyCollider(id);
	ENSURE(wfWorld_GetColliderCount(w) == 0);
	ENSURE(wfCollider_SetTransform(id, p, q) == WF_ERROR_INVALID_ARGUMENT);
	ENSURE(wfCollider_GetTransform(id, &p, &q) == WF_ERROR_INVALID_ARGUMENT);
	wfDestroyCollider(id); // twice: nothing
	wfDestroyWorld(w);
	return 0;
}

// Bad defs and arguments: the field, the value and the range.
WF_TEST(collider_def_errors)
{
	wfWorld* w = CpuWorld(wfDefaultWorldDef());
	ENSURE(w != NULL);
	struct {
		int field;
		float value;
		const char* message;
	} cases[] = {
		{0, 0.0f, "collider.radius: 0 is out of range (0, 10000]"},
		{1, -1.0f, "collider.halfLength: -1 is out of range [0, 10000]"},
		{2, 0.0f, "collider.halfExtents.y: 0 is out of range (0, 10000]"},
		{3, 200.0f, "collider.frequency: 200 is out of range [0, 100]"},
		{4, 0.0f, "collider.rotation: (0, 0, 0, 0) is not a rotation"},
		{5, INFINITY, "collider.position: must be finite"},
		{6, 9.0f, "collider.type: 9 is not one of sphere, capsule, box, plane"},
		{7, 0.0f, "collider def: not initialised with wfDefaultColliderDef()"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
		wfColliderDef k = wfDefaultColliderDef();
		switch (cases[i].field) {
		case 0: k.radius = cases[i].value; break;
		case 1:
			k.type = WF_COLLIDER_CAPSULE;
			k.halfLength = cases[i].value;
			break;
		case 2:
			k.type = WF_COLLIDER_BOX;
			k.halfExtents.y = cases[i].value;
			break;
		case 3: k.frequency = cases[i].value; break;
		case 4: k.rotation = (wfQuat){0, 0, 0, 0}; break;
		case 5: k.position.y = cases[i].value; break;
		case 6: k.type = (wfColliderType)9; break;
		case 7: k.internalValue = 0; break;
		}
		ENSURE(wfColliderId_IsNull(wfCreateCollider(w, &k)));
		fprintf(stderr, "  %s\n", wfWorld_GetLastError(w));
		ENSURE(strncmp(wfWorld_GetLastError(w), cases[i].message, strlen(cases[i].message)) == 0);
	}
	ENSURE(wfColliderId_IsNull(wfCreateCollider(w, NULL)));
	ENSURE(wfColliderId_IsNull(wfCreateCollider(NULL, NULL)));
	wfColliderId none = {NULL, -1, 0};
	ENSURE(wfCollider_SetTransform(none, (wfVec3){0, 0, 0}, (wfQuat){0, 0, 0, 1}) == WF_ERROR_INVALID_ARGUMENT);
	wfDestroyCollider(none);
	wfColliderDef k = wfDefaultColliderDef();
	wfColliderId id = wfCreateCollider(w, &k);
	ENSURE(wfCollider_SetTransform(id, (wfVec3){NAN, 0, 0}, (wfQuat){0, 0, 0, 1}) == WF_ERROR_INVALID_ARGUMENT);
	ENSURE(strstr(wfWorld_GetLastError(w), "must be finite") != NULL);
	ENSURE(wfWorld_GetColliderCount(NULL) == 0);
	wfDestroyWorld(w);
	return 0;
}

// "colliders" in a scene file: every field read, "rotate" in degrees, errors named by path.
WF_TEST(scene_colliders)
{
	char err[512];
	wfScene* scene = wfScene_Parse("{\"colliders\": [{\"type\": \"capsule\", \"position\": [1, 2, 3], \"rotate\": [0, 0, 90], "
								   "\"radius\": 0.1, \"radius1\": 0.05, \"halfLength\": 0.3, \"amplitude\": [0, 0.1, 0], \"frequency\": 2},"
								   " {\"type\": \"plane\"}]}",
		"s.json", err, sizeof err);
	if (scene == NULL)
		fprintf(stderr, "  %s\n", err);
	ENSURE(scene != NULL && wfScene_GetColliderCount(scene) == 2);
	wfColliderDef k = wfScene_GetColliderDef(scene, 0);
	ENSURE(k.type == WF_COLLIDER_CAPSULE && k.position.z == 3.0f && k.radius1 == 0.05f && k.halfLength == 0.3f && k.frequency == 2.0f);
	fprintf(stderr, "  rotate [0, 0, 90] -> (%g, %g, %g, %g)\n", (double)k.rotation.x, (double)k.rotation.y, (double)k.rotation.z,
		(double)k.rotation.w);
	ENSURE(fabsf(k.rotation.z - 0.70710678f) < 1e-6f && fabsf(k.rotation.w - 0.70710678f) < 1e-6f);
	ENSURE(wfScene_GetColliderDef(scene, 1).type == WF_COLLIDER_PLANE);
	wfDestroyScene(scene);
	static const struct {
		const char* json;
		const char* message;
	} cases[] = {
		{"{\"colliders\": [{\"type\": \"cone\"}]}", "s.json: colliders[0].type: \"cone\" is not one of sphere, capsule, box, plane"},
		{"{\"colliders\": [{\"radius\": -1}]}", "s.json: colliders[0].radius: -1 is out of range (0, 10000]"},
		{"{\"colliders\": [{}, {\"type\": \"box\", \"halfExtents\": [1, 0, 1]}]}", "s.json: colliders[1].halfExtents.y: 0 is out of range"},
		{"{\"colliders\": [{\"spin\": 1}]}", "s.json: colliders[0].spin: unknown key"},
		{"{\"colliders\": {}}", "s.json: colliders: expected an array of objects, got object"},
		{"{\"colliders\": [{\"rotate\": [0, 1]}]}", "s.json: colliders[0].rotate: expected an array of 3 numbers"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
		ENSURE(wfScene_Parse(cases[i].json, "s.json", err, sizeof err) == NULL);
		fprintf(stderr, "  %s\n", err);
		ENSURE(strncmp(err, cases[i].message, strlen(cases[i].message)) == 0);
	}
	return 0;
}

// Keyframes: the base pose follows the keys on the world clock (linear, smoothstep, held after the
// last, looped); SetTransform refuses a keyed collider; bad keys are named; scenes read them.
WF_TEST(collider_keyframes)
{
	wfWorld* w = CpuWorld(wfDefaultWorldDef()); // 60 frames per second
	ENSURE(w != NULL);
	const wfColliderKey keys[3] = {
		{0.0f, {0.0f, 0.0f, 0.0f}, {0, 0, 0, 1}},
		{1.0f, {1.0f, 0.0f, 0.0f}, {0, 0.70710678f, 0, 0.70710678f}}, // a quarter turn about y
		{2.0f, {1.0f, 2.0f, 0.0f}, {0, 0.70710678f, 0, 0.70710678f}},
	};
	wfColliderDef k = wfDefaultColliderDef();
	k.keys = keys;
	k.keyCount = 3;
	wfColliderId lin = wfCreateCollider(w, &k);
	k.interpolation = WF_INTERPOLATE_SMOOTHSTEP;
	wfColliderId smooth = wfCreateCollider(w, &k);
	k.interpolation = WF_INTERPOLATE_LINEAR;
	k.loop = true;
	wfColliderId loop = wfCreateCollider(w, &k);
	ENSURE(!wfColliderId_IsNull(lin) && !wfColliderId_IsNull(smooth) && !wfColliderId_IsNull(loop));
	wfVec3 p;
	wfQuat q;
	for (int f = 0; f < 15; ++f) // t = 0.25 s
		ENSURE(wfWorld_Step(w) == WF_OK);
	ENSURE(wfCollider_GetTransform(lin, &p, &q) == WF_OK);
	ENSURE_NEAR(p.x, 0.25, 1e-5);
	ENSURE(wfCollider_GetTransform(smooth, &p, &q) == WF_OK);
	ENSURE_NEAR(p.x, 0.25 * 0.25 * (3.0 - 0.5), 1e-5); // 3 s^2 - 2 s^3 at s = 1/4
	for (int f = 0; f < 75; ++f)                       // t = 1.5 s
		ENSURE(wfWorld_Step(w) == WF_OK);
	ENSURE(wfCollider_GetTransform(lin, &p, &q) == WF_OK);
	ENSURE_NEAR(p.y, 1.0, 1e-5);
	ENSURE_NEAR(q.y, 0.70710678, 1e-6);
	for (int f = 0; f < 60; ++f) // t = 2.5 s: held at the last key; the loop is at 0.5 s
		ENSURE(wfWorld_Step(w) == WF_OK);
	ENSURE(wfCollider_GetTransform(lin, &p, &q) == WF_OK);
	ENSURE(p.x == 1.0f && p.y == 2.0f);
	ENSURE(wfCollider_GetTransform(loop, &p, &q) == WF_OK);
	ENSURE_NEAR(p.x, 0.5, 1e-4);
	ENSURE(wfCollider_SetTransform(lin, p, q) == WF_ERROR_INVALID_ARGUMENT);
	fprintf(stderr, "  %s\n", wfWorld_GetLastError(w));
	// Bad keys.
	wfColliderKey bad[2] = {keys[0], keys[1]};
	bad[1].time = 0.0f;
	k = wfDefaultColliderDef();
	k.keys = bad;
	k.keyCount = 2;
	ENSURE(wfColliderId_IsNull(wfCreateCollider(w, &k)));
	fprintf(stderr, "  %s\n", wfWorld_GetLastError(w));
	ENSURE(strncmp(wfWorld_GetLastError(w), "collider.keys[1].time: 0, the times must be finite and increase", 60) == 0);
	k.keys = NULL;
	ENSURE(wfColliderId_IsNull(wfCreateCollider(w, &k)));
	ENSURE(strstr(wfWorld_GetLastError(w), "collider.keyCount: 2 without keys") != NULL);
	wfDestroyWorld(w);
	// A scene's keys (owned by the scene), with the names of bad ones.
	char err[512];
	wfScene* scene = wfScene_Parse(
		"{\"colliders\": [{\"type\": \"box\", \"interpolation\": \"smoothstep\", \"loop\": true, \"keys\": ["
		"{\"time\": 0, \"position\": [0, 1, 0]}, {\"time\": 2, \"position\": [1, 1, 0], \"rotate\": [0, 90, 0]}]}]}",
		"k.json", err, sizeof err);
	if (scene == NULL)
		fprintf(stderr, "  %s\n", err);
	ENSURE(scene != NULL);
	wfColliderDef sk = wfScene_GetColliderDef(scene, 0);
	ENSURE(sk.keyCount == 2 && sk.keys[1].time == 2.0f && sk.keys[1].position.x == 1.0f && sk.loop &&
		sk.interpolation == WF_INTERPOLATE_SMOOTHSTEP && fabsf(sk.keys[1].rotation.y - 0.70710678f) < 1e-6f);
	wfDestroyScene(scene);
	ENSURE(wfScene_Parse("{\"colliders\": [{\"keys\": [{\"time\": 1}, {\"tme\": 2}]}]}", "k.json", err, sizeof err) == NULL);
	fprintf(stderr, "  %s\n", err);
	ENSURE(strncmp(err, "k.json: colliders[0].keys[1].tme: unknown key", 45) == 0);
	ENSURE(wfScene_Parse("{\"colliders\": [{\"keys\": [{\"time\": 1}, {\"time\": 1}]}]}", "k.json", err, sizeof err) == NULL);
	fprintf(stderr, "  %s\n", err);
	ENSURE(strncmp(err, "k.json: colliders[0].keys[1].time: 1, the times must", 50) == 0);
	return 0;
}

// The world's sphere and floor are the first shapes of the colliders' list (issue 27, item 6): a
// world with wfWorldDef.sphere and .floor steps to the same bits as the world without them and a
// sphere and a plane collider in their place (created first, then a box in both). A cloth falls
// over the still sphere onto the floor, with friction. `mode` 0: the def's sphere and floor; 1: the
// colliders; 2: neither (a different state: the shapes were touched). The state hash after
// `frames` frames; 0 on failure.
uint64_t wfTestSugarHash(wfBackendType backend, wfFusedPath path, wfSolverType solver, int mode, int frames)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = backend;
	wd.fusedPath = path;
	wd.step.solver = solver;
	wd.step.substeps = solver == WF_SOLVER_SPRINGS ? 40 : 8;
	wd.contact.friction = 0.3f;
	wd.contact.thickness = 0.01f;
	const wfVec3 center = {0.15f, 0.35f, 0.05f};
	const float radius = 0.3f, height = 0.02f;
	wd.sphere.enabled = wd.floor.enabled = mode == 0;
	wd.sphere.center = center;
	wd.sphere.radius = radius;
	wd.floor.height = height;
	char err[256];
	wfWorld* w = wfTestCreateWorld(&wd, err, sizeof err);
	if (w == NULL) {
		fprintf(stderr, "  world: %s\n", err);
		return 0;
	}
	wfColliderDef k[3];
	for (int i = 0; i < 3; ++i)
		k[i] = wfDefaultColliderDef();
	k[0].type = WF_COLLIDER_SPHERE;
	k[0].position = center;
	k[0].radius = radius;
	k[1].type = WF_COLLIDER_PLANE;
	k[1].position = (wfVec3){0.0f, height, 0.0f};
	k[2].type = WF_COLLIDER_BOX;
	k[2].position = (wfVec3){-0.35f, 0.1f, 0.0f};
	k[2].halfExtents = (wfVec3){0.1f, 0.1f, 0.2f};
	wfColliderId ids[3];
	for (int i = mode == 1 ? 0 : 2; i < 3; ++i)
		ids[i] = wfCreateCollider(w, &k[i]);
	// The world's sphere and floor take no collider slot: the box is collider 0 beside them.
	const int expected = mode == 1 ? 3 : 1;
	if (wfWorld_GetColliderCount(w) != expected || (mode != 1 && ids[2].index != 0)) {
		fprintf(stderr, "  %d colliders, the box at %d\n", wfWorld_GetColliderCount(w), ids[2].index);
		wfDestroyWorld(w);
		return 0;
	}
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = 16;
	cd.width = cd.height = 1.0f;
	cd.orientation = WF_ORIENT_HORIZONTAL;
	cd.origin = (wfVec3){0.0f, 0.8f, 0.0f};
	cd.material.stiffness = 3000.0f;
	uint64_t hash = 0;
	if (wfClothId_IsNull(wfCreateCloth(w, &cd))) {
		fprintf(stderr, "  cloth: %s\n", wfWorld_GetLastError(w));
	} else {
		for (int f = 0; f < frames && wfWorld_Step(w) == WF_OK; ++f)
			;
		if (wfWorld_GetStateHash(w, &hash) != WF_OK)
			hash = 0;
	}
	wfDestroyWorld(w);
	return hash;
}

// The same bits from the sugar and the colliders, every solver, 90 frames on the CPU (the cloth
// lands on the sphere and the floor by frame 30); and not those of a world without them.
WF_TEST(collider_sphere_floor_sugar_cpu)
{
	const wfSolverType solvers[3] = {WF_SOLVER_XPBD, WF_SOLVER_JACOBI, WF_SOLVER_SPRINGS};
	for (int s = 0; s < 3; ++s) {
		const uint64_t sugar = wfTestSugarHash(WF_BACKEND_CPU, WF_FUSED_AUTO, solvers[s], 0, 90);
		const uint64_t list = wfTestSugarHash(WF_BACKEND_CPU, WF_FUSED_AUTO, solvers[s], 1, 90);
		const uint64_t none = wfTestSugarHash(WF_BACKEND_CPU, WF_FUSED_AUTO, solvers[s], 2, 90);
		fprintf(stderr, "  %s: sugar %016llx, colliders %016llx, neither %016llx\n", wfSolverName(solvers[s]), (unsigned long long)sugar,
			(unsigned long long)list, (unsigned long long)none);
		ENSURE(sugar != 0 && sugar == list && sugar != none);
	}
	return 0;
}
