// Self-collision (wfSelfCollisionDef; on the CPU here, on Vulkan in test_vulkan_self.c): a 40 x 40
// sheet folded twice by its start pose and dropped onto the floor stays three layers: no two
// non-excluded particles closer than the contact distance (less the tolerance), the layers keep
// their order, and without self-collision they do not.
#include "test.h"
#include "core/internal.h"

#include <stdlib.h>
#include <string.h>

enum { N = 40 };

// Column c of the strip lies at u = c dx; the strip folds back at u1 and at u2 (a Z), layers `gap`
// apart, starting `height` above the floor. Layer of each column in `layer`.
void wfTestZFold(wfVec3* p, int* layer, float dx, float gap, float height)
{
	const int c1 = 13, c2 = 26;
	for (int r = 0; r < N; ++r) {
		for (int c = 0; c < N; ++c) {
			float x, y;
			int l;
			if (c <= c1) {
				x = dx * (float)c;
				y = 0.0f;
				l = 0;
			} else if (c <= c2) {
				x = dx * (float)(2 * c1 - c);
				y = gap;
				l = 1;
			} else {
				x = dx * (float)(c - 2 * c2 + 2 * c1);
				y = 2.0f * gap;
				l = 2;
			}
			// The fold columns halfway between their layers.
			if (c == c1)
				y = 0.5f * gap;
			if (c == c2)
				y = 1.5f * gap;
			p[r * N + c] = (wfVec3){x - 0.2f, height + y, dx * (float)r - 0.6f};
			layer[r * N + c] = l;
		}
	}
}

// Whether segment pq crosses triangle abc (Moller-Trumbore, in double; touching counts as crossing).
static bool SegmentCrossesTriangle(wfVec3 p, wfVec3 q, wfVec3 a, wfVec3 b, wfVec3 c)
{
	const double dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
	const double e1x = b.x - a.x, e1y = b.y - a.y, e1z = b.z - a.z, e2x = c.x - a.x, e2y = c.y - a.y, e2z = c.z - a.z;
	const double hx = dy * e2z - dz * e2y, hy = dz * e2x - dx * e2z, hz = dx * e2y - dy * e2x;
	const double det = e1x * hx + e1y * hy + e1z * hz;
	if (fabs(det) < 1e-18)
		return false;
	const double sx = p.x - a.x, sy = p.y - a.y, sz = p.z - a.z;
	const double u = (sx * hx + sy * hy + sz * hz) / det;
	if (u < 0.0 || u > 1.0)
		return false;
	const double qx = sy * e1z - sz * e1y, qy = sz * e1x - sx * e1z, qz = sx * e1y - sy * e1x;
	const double v = (dx * qx + dy * qy + dz * qz) / det;
	if (v < 0.0 || u + v > 1.0)
		return false;
	const double t = (e2x * qx + e2y * qy + e2z * qz) / det;
	return t >= 0.0 && t <= 1.0;
}

// Edges (structural) of the cloth that cross one of its triangles not sharing a particle with them:
// the cloth passing through itself. Bounding boxes first.
int wfTestCountCrossings(wfClothId id, const wfVec3* p)
{
	wfClothInfo info;
	if (wfCloth_GetInfo(id, &info) != WF_OK)
		return -1;
	uint32_t* tri = (uint32_t*)malloc((size_t)info.triangleCount * 3 * sizeof(uint32_t));
	uint32_t* edge = (uint32_t*)malloc((size_t)info.edgeCount * 2 * sizeof(uint32_t));
	int crossings = 0;
	if (wfCloth_ReadIndices(id, tri, 3 * info.triangleCount) == WF_OK && wfCloth_ReadEdges(id, edge, 2 * info.edgeCount) == WF_OK) {
		for (int t = 0; t < info.triangleCount; ++t) {
			const uint32_t* v = &tri[3 * t];
			float lo[3], hi[3];
			for (int k = 0; k < 3; ++k) {
				const float* pa = &p[v[0]].x;
				lo[k] = hi[k] = pa[k];
				for (int j = 1; j < 3; ++j) {
					const float* pj = &p[v[j]].x;
					lo[k] = fminf(lo[k], pj[k]);
					hi[k] = fmaxf(hi[k], pj[k]);
				}
			}
			for (int e = 0; e < info.edgeCount; ++e) {
				const uint32_t a = edge[2 * e], b = edge[2 * e + 1];
				if (a == v[0] || a == v[1] || a == v[2] || b == v[0] || b == v[1] || b == v[2])
					continue;
				const float* pa = &p[a].x;
				const float* pb = &p[b].x;
				bool apart = false;
				for (int k = 0; k < 3 && !apart; ++k)
					apart = fmaxf(pa[k], pb[k]) < lo[k] || fminf(pa[k], pb[k]) > hi[k];
				if (!apart && SegmentCrossesTriangle(p[a], p[b], p[v[0]], p[v[1]], p[v[2]]))
					crossings++;
			}
		}
	}
	free(tri);
	free(edge);
	return crossings;
}

static int Drop(bool self, float* closest, int* disorder, float* contact, int* crossings)
{
	const float width = 1.2f, dx = width / (N - 1), thickness = 0.4f * dx;
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = WF_BACKEND_CPU;
	wd.step.substeps = 10;
	wd.step.iterations = 2;
	wd.floor.enabled = true;
	wd.floor.height = 0.0f;
	wd.contact.thickness = 0.005f;
	wd.contact.friction = 0.5f;
	wd.selfCollision.enabled = self;
	wd.selfCollision.thickness = thickness;
	wd.selfCollision.friction = 0.3f;
	char err[256];
	wfWorld* w = wfTestCreateWorld(&wd, err, sizeof err);
	if (w == NULL)
		fprintf(stderr, "  %s\n", err);
	ENSURE(w != NULL);
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = N;
	cd.width = cd.height = width;
	cd.pinMode = WF_PIN_NONE;
	cd.material.mass = 0.002f;
	cd.material.bendCompliance = 0.05f;
	wfClothId id = wfCreateCloth(w, &cd);
	ENSURE(!wfClothId_IsNull(id));
	wfVec3* p = (wfVec3*)malloc(N * N * sizeof(wfVec3));
	int* layer = (int*)malloc(N * N * sizeof(int));
	wfTestZFold(p, layer, dx, 1.5f * 2.0f * thickness, 0.15f);
	ENSURE(wfCloth_WritePositions(id, p, N * N) == WF_OK);
	const wfVec4* rest = wfGetCloth(id)->model.restPositions;
	const float d = 2.0f * thickness, exclude = wd.selfCollision.exclusion * d;
	*closest = 1e9f;
	*contact = d;
	*crossings = 0;
	for (int frame = 0; frame < 600; ++frame) {
		ENSURE(wfWorld_Step(w) == WF_OK);
		if (frame % 20 != 19)
			continue;
		ENSURE(wfCloth_ReadPositions(id, p, N * N) == WF_OK);
		if (frame % 60 == 59)
			*crossings += wfTestCountCrossings(id, p);
		for (int i = 0; i < N * N; ++i) {
			for (int j = i + 1; j < N * N; ++j) {
				float rx = rest[i].x - rest[j].x, ry = rest[i].y - rest[j].y, rz = rest[i].z - rest[j].z;
				if (rx * rx + ry * ry + rz * rz < exclude * exclude)
					continue;
				float ex = p[i].x - p[j].x, ey = p[i].y - p[j].y, ez = p[i].z - p[j].z;
				*closest = fminf(*closest, sqrtf(ex * ex + ey * ey + ez * ez));
			}
		}
	}
	// The layers' order where they overlap: a particle of layer k above every particle of layer
	// k - 1 within half a spacing of it horizontally.
	*disorder = 0;
	for (int i = 0; i < N * N; ++i) {
		for (int j = 0; j < N * N; ++j) {
			if (layer[i] != layer[j] + 1)
				continue;
			float hx = p[i].x - p[j].x, hz = p[i].z - p[j].z;
			if (hx * hx + hz * hz < 0.25f * dx * dx && p[i].y <= p[j].y)
				(*disorder)++;
		}
	}
	wfWarnings warn = wfWorld_GetWarnings(w);
	ENSURE(warn.unstable == 0 && warn.nonFinite == 0);
	free(p);
	free(layer);
	wfDestroyWorld(w);
	return 0;
}

WF_TEST(self_collision_folded_sheet_keeps_layers)
{
	float with = 0.0f, without = 0.0f, d = 0.0f;
	int order = 0, orderWithout = 0, cross = 0, crossWithout = 0;
	ENSURE(Drop(true, &with, &order, &d, &cross) == 0);
	ENSURE(Drop(false, &without, &orderWithout, &d, &crossWithout) == 0);
	fprintf(stderr, "  600 frames on the floor: closest non-excluded pair %.5f m with self-collision, %.5f m without (contact %.5f m); "
	        "layer order broken at %d places with, %d without; edges through triangles (every 60th frame) %d with, %d without\n",
	        (double)with, (double)without, (double)d, order, orderWithout, cross, crossWithout);
	ENSURE(with >= 0.9f * d);
	ENSURE(order == 0);
	ENSURE(cross == 0);
	ENSURE(without < 0.5f * d); // the test can fail: without self-collision the layers merge
	return 0;
}

WF_TEST(self_collision_def_errors)
{
	// Both backends step it: auto picks the backend it picks without self-collision (a hardware
	// Vulkan device where there is one, else the CPU).
	wfWorldDef wd = wfDefaultWorldDef();
	char err[256] = "";
	wfWorld* plain = wfTestCreateWorld(&wd, err, sizeof err);
	ENSURE(plain != NULL);
	wd.selfCollision.enabled = true;
	wd.selfCollision.betweenCloths = true;
	wfWorld* w = wfTestCreateWorld(&wd, err, sizeof err);
	ENSURE(w != NULL);
	fprintf(stderr, "  auto with self-collision: %s (%s without)\n", wfBackendName(wfWorld_GetBackend(w)),
	        wfBackendName(wfWorld_GetBackend(plain)));
	ENSURE(wfWorld_GetBackend(w) == wfWorld_GetBackend(plain));
	wfDestroyWorld(w);
	wfDestroyWorld(plain);
	wd.selfCollision.thickness = 0.0f;
	ENSURE(wfTestCreateWorld(&wd, err, sizeof err) == NULL);
	fprintf(stderr, "  %s\n", err);
	ENSURE(strncmp(err, "selfCollision.thickness: 0 is out of range", 42) == 0);
	return 0;
}

// Cloth against cloth (betweenCloths): a sheet dropped onto a hammock (a sheet hung by its corners)
// stays on top of it, the closest pair of particles of the two at the contact distance (less the
// tolerance); without the contacts it falls through.
static int Hammock(bool between, float* closest, int* below)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = WF_BACKEND_CPU;
	wd.step.substeps = 10;
	wd.step.iterations = 2;
	wd.selfCollision.betweenCloths = between;
	wd.selfCollision.thickness = 0.02f;
	wd.selfCollision.friction = 0.3f;
	char err[256];
	wfWorld* w = wfTestCreateWorld(&wd, err, sizeof err);
	if (w == NULL)
		fprintf(stderr, "  %s\n", err);
	ENSURE(w != NULL);
	wfClothDef low = wfDefaultClothDef();
	low.cols = low.rows = 24;
	low.width = low.height = 1.0f;
	low.origin = (wfVec3){0.0f, 0.5f, 0.0f};
	low.pinMode = WF_PIN_CORNERS;
	low.material.mass = 0.01f;
	wfClothDef high = low;
	high.cols = high.rows = 14;
	high.width = high.height = 0.55f;
	high.origin = (wfVec3){0.05f, 0.7f, 0.02f};
	high.pinMode = WF_PIN_NONE;
	wfClothId a = wfCreateCloth(w, &low), b = wfCreateCloth(w, &high);
	ENSURE(!wfClothId_IsNull(a) && !wfClothId_IsNull(b));
	wfVec3 pa[576], pb[196];
	for (int frame = 0; frame < 150; ++frame)
		ENSURE(wfWorld_Step(w) == WF_OK);
	ENSURE(wfCloth_ReadPositions(a, pa, 576) == WF_OK && wfCloth_ReadPositions(b, pb, 196) == WF_OK);
	*closest = 1e9f;
	*below = 0;
	for (int j = 0; j < 196; ++j) {
		float nearest = 1e9f, yAt = 0.0f;
		for (int i = 0; i < 576; ++i) {
			float ex = pa[i].x - pb[j].x, ey = pa[i].y - pb[j].y, ez = pa[i].z - pb[j].z;
			*closest = fminf(*closest, sqrtf(ex * ex + ey * ey + ez * ez));
			float h = ex * ex + ez * ez;
			if (h < nearest) {
				nearest = h;
				yAt = pa[i].y;
			}
		}
		*below += pb[j].y < yAt; // under the hammock particle nearest to it horizontally
	}
	wfWarnings warn = wfWorld_GetWarnings(w);
	ENSURE(warn.unstable == 0 && warn.nonFinite == 0);
	wfDestroyWorld(w);
	return 0;
}

WF_TEST(cloth_against_cloth_hammock)
{
	float with = 0.0f, without = 0.0f;
	int belowWith = 0, belowWithout = 0;
	ENSURE(Hammock(true, &with, &belowWith) == 0);
	ENSURE(Hammock(false, &without, &belowWithout) == 0);
	fprintf(stderr, "  after 150 frames: closest pair of the two cloths %.4f m with contacts (contact 0.04 m), %.4f m without; "
	        "particles of the top sheet under the hammock: %d of 196 with, %d without\n", (double)with, (double)without, belowWith, belowWithout);
	ENSURE(belowWith == 0);
	ENSURE(with >= 0.9f * 0.04f);
	ENSURE(belowWithout > 100); // the test can fail: without contacts the sheet falls through
	return 0;
}

// Cloths that never meet step to the same bits with the contacts on (the substeps interleaved
// across cloths) as with them off (each cloth's frame in one go).
WF_TEST(cloth_against_cloth_apart_same_bits)
{
	wfVec3 p[2][2][100];
	for (int between = 0; between < 2; ++between) {
		wfWorldDef wd = wfDefaultWorldDef();
		wd.backend = WF_BACKEND_CPU;
		wd.step.solver = WF_SOLVER_JACOBI;
		wd.step.iterations = 3;
		wd.selfCollision.betweenCloths = between != 0;
		wfWorld* w = wfTestCreateWorld(&wd, NULL, 0);
		ENSURE(w != NULL);
		wfClothDef cd = wfDefaultClothDef();
		cd.cols = cd.rows = 10;
		wfClothId a = wfCreateCloth(w, &cd);
		cd.origin.x = 5.0f;
		wfClothId b = wfCreateCloth(w, &cd);
		for (int f = 0; f < 30; ++f)
			ENSURE(wfWorld_Step(w) == WF_OK);
		ENSURE(wfCloth_ReadPositions(a, p[between][0], 100) == WF_OK && wfCloth_ReadPositions(b, p[between][1], 100) == WF_OK);
		wfDestroyWorld(w);
	}
	ENSURE(memcmp(p[0], p[1], sizeof p[0]) == 0);
	return 0;
}

// Determinism: a self-colliding, cloth-against-cloth world stepped twice on two threads gives the
// same bits, and a snapshot restored mid-run continues to them.
WF_TEST(self_collision_deterministic_and_snapshot)
{
	wfVec3 p[3][400];
	for (int run = 0; run < 3; ++run) {
		wfWorldDef wd = wfDefaultWorldDef();
		wd.backend = WF_BACKEND_CPU;
		wd.threads = 2;
		wd.floor.enabled = true;
		wd.selfCollision.enabled = true;
		wd.selfCollision.betweenCloths = true;
		wd.selfCollision.thickness = 0.02f;
		wfWorld* w = wfTestCreateWorld(&wd, NULL, 0);
		ENSURE(w != NULL);
		wfClothDef cd = wfDefaultClothDef();
		cd.cols = cd.rows = 20;
		cd.width = cd.height = 0.8f;
		cd.origin = (wfVec3){0.0f, 0.3f, 0.0f};
		cd.pinMode = WF_PIN_NONE;
		wfClothId a = wfCreateCloth(w, &cd);
		cd.origin = (wfVec3){0.1f, 0.45f, 0.05f};
		ENSURE(!wfClothId_IsNull(a) && !wfClothId_IsNull(wfCreateCloth(w, &cd)));
		void* snap = NULL;
		size_t size = wfWorld_GetSnapshotSize(w);
		for (int f = 0; f < 80; ++f) {
			if (run == 2 && f == 40) {
				snap = malloc(size);
				ENSURE(snap != NULL && wfWorld_SaveSnapshot(w, snap, size) == WF_OK);
				for (int g = 0; g < 10; ++g)
					ENSURE(wfWorld_Step(w) == WF_OK); // wander off, then come back
				ENSURE(wfWorld_RestoreSnapshot(w, snap, size) == WF_OK);
			}
			ENSURE(wfWorld_Step(w) == WF_OK);
		}
		free(snap);
		ENSURE(wfCloth_ReadPositions(a, p[run], 400) == WF_OK);
		wfDestroyWorld(w);
	}
	ENSURE(memcmp(p[0], p[1], sizeof p[0]) == 0);
	ENSURE(memcmp(p[0], p[2], sizeof p[0]) == 0);
	fprintf(stderr, "  two runs and a restored run: the same bits (corner at y %.6f)\n", (double)p[0][0].y);
	return 0;
}
