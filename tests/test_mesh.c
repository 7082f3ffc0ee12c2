// Mesh cloths: the OBJ reader (index forms, seams, polygons, bad files), the mesh model (the grid
// as a mesh gives the grid's constraints), the colouring of general meshes, and mesh cloths stepped
// by the three solvers (on the physics tests' backend: WEFT_TEST_BACKEND), mesh scene files.
// mkdtemp (POSIX) for the scene files' folder.
#define _POSIX_C_SOURCE 200809L

#include "test.h"
#include "core/internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static wfMesh* Parse(const char* text)
{
	char err[256];
	wfMesh* mesh = wfMesh_ParseObj(text, "test.obj", err, sizeof err);
	if (mesh == NULL)
		fprintf(stderr, "  parse failed: %s\n", err);
	return mesh;
}

// Every corner form, negative indices, comments, and statements the reader skips.
WF_TEST(obj_index_forms)
{
	const char* text = "# a unit square and a triangle, written every way\n"
					   "mtllib x.mtl\no square\nv 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1\nv 2 0 0\n"
					   "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvn 0 1 0\ns off\nusemtl cloth\n"
					   "f 1/1/1 4/4/1 3/3/1 2/2/1   # a quad, v/vt/vn\n"
					   "f 2//1 3//1 5//1\n"
					   "f -4 -3 -1\n" // 2 3 5 again, negative
					   "f 2/2 3/3 5\n";
	wfMesh* mesh = Parse(text);
	ENSURE(mesh != NULL);
	wfMeshDef d = wfMesh_GetDef(mesh);
	ENSURE(d.vertexCount == 5 && d.faceCount == 4);
	ENSURE(d.faceSizes[0] == 4 && d.faceSizes[1] == 3 && d.faceSizes[2] == 3);
	const uint32_t expect[] = {0, 3, 2, 1, 1, 2, 4, 1, 2, 4, 1, 2, 4};
	for (int k = 0; k < 13; ++k)
		ENSURE(d.indices[k] == expect[k]);
	ENSURE(d.cornerUVs != NULL && d.cornerUVs[2] == 0.0f && d.cornerUVs[3] == 1.0f); // corner 2: vt 4 = (0, 1)
	ENSURE(d.uvs[2 * 2 + 0] == 1.0f && d.uvs[2 * 2 + 1] == 1.0f);                    // vertex 3: vt 3
	wfDestroyMesh(mesh);
	fprintf(stderr, "  ok v/vt/vn, v//vn, negative and v/vt corners read as 5 vertices, 4 faces\n");
	return 0;
}

// A seam: two quads whose shared edge the exporter split into two vertex pairs at the same
// positions, with different texture coordinates. The physics welds them (6 particles, one shared
// edge, so a bending constraint across it); the corners keep their own UVs.
WF_TEST(obj_seam_welded_uv_kept)
{
	const char* text = "v 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1\n"
					   "v 1 0 0\nv 2 0 0\nv 2 0 1\nv 1 0 1\n" // 5 and 8 repeat 2 and 3
					   "vt 0 0\nvt 0.5 0\nvt 0.5 1\nvt 0 1\nvt 0.6 0\nvt 1 0\nvt 1 1\nvt 0.6 1\n"
					   "f 1/1 4/4 3/3 2/2\nf 5/5 8/8 7/7 6/6\n";
	wfMesh* mesh = Parse(text);
	ENSURE(mesh != NULL);
	wfMeshDef d = wfMesh_GetDef(mesh);
	ENSURE(d.vertexCount == 6);
	ENSURE(d.indices[4] == d.indices[3] && d.indices[5] == d.indices[2]); // welded onto vertices 2 and 3
	ENSURE(d.cornerUVs[2 * 4] == 0.6f && d.cornerUVs[2 * 3] == 0.5f);     // the seam's two u values stay
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = WF_BACKEND_CPU;
	wfWorld* w = wfTestCreateWorld(&wd, NULL, 0);
	ENSURE(w != NULL);
	wfClothDef cd = wfDefaultClothDef();
	cd.mesh = &d;
	wfClothId id = wfCreateCloth(w, &cd);
	ENSURE(!wfClothId_IsNull(id));
	wfClothInfo info;
	ENSURE(wfCloth_GetInfo(id, &info) == WF_OK);
	// 7 edges, 4 quad diagonals, 2 bending pairs across the welded edge.
	fprintf(stderr, "  stretch %d shear %d bend %d\n", info.familyCount[0], info.familyCount[1], info.familyCount[2]);
	ENSURE(info.mesh && info.particleCount == 6 && info.familyCount[0] == 7 && info.familyCount[1] == 4 && info.familyCount[2] == 2);
	float uv[4 * 6];
	ENSURE(wfCloth_ReadCornerUVs(id, uv, 4 * 6) == WF_OK);
	ENSURE(uv[2 * 6 + 0] == 0.6f); // the second quad's first corner
	wfDestroyWorld(w);
	wfDestroyMesh(mesh);
	return 0;
}

// A pentagon becomes a fan of three triangles; a hole and a boundary are fine.
WF_TEST(obj_polygon_and_holes)
{
	wfMesh* mesh = Parse("v 0 0 0\nv 1 0 0\nv 1.5 0 1\nv 0.5 0 1.7\nv -0.5 0 1\nf 1 2 3 4 5\n");
	ENSURE(mesh != NULL);
	wfMeshDef d = wfMesh_GetDef(mesh);
	ENSURE(d.faceCount == 3 && d.faceSizes[0] == 3 && d.indices[3] == 0 && d.indices[4] == 2 && d.indices[5] == 3);
	wfDestroyMesh(mesh);
	// A 4 x 4 quad grid with its middle quad missing: 16 vertices, 8 faces, all used.
	char text[2048];
	int k = 0;
	for (int y = 0; y < 4; ++y)
		for (int x = 0; x < 4; ++x)
			k += snprintf(text + k, sizeof text - (size_t)k, "v %d 0 %d\n", x, y);
	for (int y = 0; y < 3; ++y)
		for (int x = 0; x < 3; ++x)
			if (!(x == 1 && y == 1))
				k += snprintf(text + k, sizeof text - (size_t)k, "f %d %d %d %d\n", y * 4 + x + 1, (y + 1) * 4 + x + 1, (y + 1) * 4 + x + 2,
					y * 4 + x + 2);
	mesh = Parse(text);
	ENSURE(mesh != NULL);
	d = wfMesh_GetDef(mesh);
	ENSURE(d.vertexCount == 16 && d.faceCount == 8);
	wfDestroyMesh(mesh);
	fprintf(stderr, "  ok pentagon -> 3 triangles; a quad grid with a hole -> 16 vertices, 8 faces\n");
	return 0;
}

// Bad files: the name, the line and the reason; nothing comes back.
WF_TEST(obj_bad_files)
{
	static const struct {
		const char* text;
		const char* message;
	} cases[] = {
		{"v 0 0 0\nv 1 0 0\nf 1 2\n", "test.obj:3: face with 2 corners, at least 3 needed"},
		{"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", "test.obj:4: face corner 3: vertex index 4 is out of range [1, 3]"},
		{"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -4\n", "test.obj:4: face corner 3: vertex index -4 is out of range"},
		// LONG_MIN: its negation overflowed (undefined behaviour; issue 31, item 13).
		{"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -9223372036854775808\n",
			"test.obj:4: face corner 3: vertex index -9223372036854775808 is out of range [1, 3] (or [-3, -1])"},
		{"v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/-9223372036854775808 2/1 3/1\n",
			"test.obj:5: face corner 1: texture index -9223372036854775808 is out of range [1, 1] (or [-1, -1])"},
		{"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/2 2 3\n", "test.obj:4: face corner 1: texture index 2 is out of range [1, 0]"},
		{"v 0 0\n", "test.obj:1: v: 2 numbers, expected at least 3"},
		{"v 0 zero 0\n", "test.obj:1: v: number 2 is not a number"},
		{"v 0 nan 0\n", "test.obj:1: v: number 2 (nan) must be finite"},
		{"v 0 0 1e9\n", "test.obj:1: v: number 3 (1e+09) must be finite and within 1e6"},
		{"v 0 0 0\nv 1 0 0\nv 0 1 0\n", "test.obj:3: no faces"},
		{"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 1\n", "test.obj:4: face corners 1 and 3 are the same vertex"},
		{"v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 0 0\nf 1 2 3\nf 2 3 4\n",
			"test.obj:6: face corners 1 and 3 are the same vertex (equal positions are welded)"},
		{"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3x\n", "test.obj:4: face corner 3: unexpected 'x'"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
		char err[256] = "";
		wfMesh* mesh = wfMesh_ParseObj(cases[i].text, "test.obj", err, sizeof err);
		fprintf(stderr, "  %s\n", err);
		ENSURE(mesh == NULL);
		ENSURE(strncmp(err, cases[i].message, strlen(cases[i].message)) == 0);
	}
	char err[256] = "";
	ENSURE(wfMesh_LoadObj("/nonexistent/cloth.obj", err, sizeof err) == NULL);
	ENSURE(strstr(err, "/nonexistent/cloth.obj: cannot open") != NULL);
	ENSURE(wfMesh_ParseObj(NULL, "x", NULL, 0) == NULL);
	ENSURE(wfMesh_LoadObj(NULL, NULL, 0) == NULL);
	wfDestroyMesh(NULL);
	return 0;
}

// A grid as a mesh: quads written the way a modeller would, (i1, i0, i2, i3) so that the split
// along corners 0-2 is the grid's own diagonal.
static char* GridObj(const wfVec3* p, int cols, int rows)
{
	size_t capacity = (size_t)cols * rows * 48 + (size_t)(cols - 1) * (rows - 1) * 48 + 64;
	char* text = (char*)malloc(capacity);
	size_t k = 0;
	for (int i = 0; i < cols * rows; ++i)
		k += (size_t)snprintf(text + k, capacity - k, "v %.9g %.9g %.9g\n", (double)p[i].x, (double)p[i].y, (double)p[i].z);
	for (int r = 0; r + 1 < rows; ++r) {
		for (int c = 0; c + 1 < cols; ++c) {
			int i0 = r * cols + c + 1, i1 = i0 + 1, i2 = i0 + cols, i3 = i2 + 1; // 1-based
			k += (size_t)snprintf(text + k, capacity - k, "f %d %d %d %d\n", i1, i0, i2, i3);
		}
	}
	return text;
}

static int CompareConstraint(const void* x, const void* y)
{
	const wfConstraint* p = (const wfConstraint*)x;
	const wfConstraint* q = (const wfConstraint*)y;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return p->family < q->family ? -1 : p->family > q->family;
}

static int CompareTriangle(const void* x, const void* y)
{
	const uint32_t* p = (const uint32_t*)x;
	const uint32_t* q = (const uint32_t*)y;
	for (int k = 0; k < 3; ++k)
		if (p[k] != q[k])
			return p[k] < q[k] ? -1 : 1;
	return 0;
}

// Rotates a triangle so that its smallest index comes first (the same triangle, the same winding).
static void CanonicalTriangles(uint32_t* t, int count)
{
	for (int i = 0; i < count; ++i, t += 3) {
		while (t[0] > t[1] || t[0] > t[2]) {
			uint32_t s = t[0];
			t[0] = t[1];
			t[1] = t[2];
			t[2] = s;
		}
	}
}

// The grid written as an OBJ and read back has the grid's constraints (as a set, rest lengths bit
// for bit), its triangles, and moves as the grid does within the difference that the colouring
// makes (the grid's 12-colour scheme against the greedy one: another Gauss-Seidel order).
// The grid the mesh comparisons hang: vertical, 0.8 x 0.6 m, its top corners pinned.
static wfClothDef HangingGrid(int cols, int rows)
{
	wfClothDef d = wfDefaultClothDef();
	d.cols = cols;
	d.rows = rows;
	d.width = 0.8f;
	d.height = 0.6f;
	d.orientation = WF_ORIENT_VERTICAL;
	d.pinMode = WF_PIN_TOP_CORNERS;
	return d;
}

static int MeshEqualsGrid(wfSolverType solver, double tolerance)
{
	const int cols = 9, rows = 7;
	wfWorldDef wd = wfDefaultWorldDef();
	wd.step.solver = solver;
	wd.step.substeps = solver == WF_SOLVER_SPRINGS ? 40 : 10;
	wd.step.iterations = solver == WF_SOLVER_JACOBI ? 4 : 1;
	wfWorld* w = wfTestMakeWorld(wd);
	ENSURE(w != NULL);
	const wfClothDef gd = HangingGrid(cols, rows);
	wfClothId grid = wfCreateCloth(w, &gd);
	ENSURE(!wfClothId_IsNull(grid));
	const int n = cols * rows;
	wfVec3* p = (wfVec3*)malloc((size_t)n * sizeof(wfVec3));
	wfVec3* q = (wfVec3*)malloc((size_t)n * sizeof(wfVec3));
	ENSURE(wfCloth_ReadLocalPositions(grid, p, n) == WF_OK);
	char* text = GridObj(p, cols, rows);
	wfMesh* mesh = Parse(text);
	free(text);
	ENSURE(mesh != NULL);
	wfMeshDef md = wfMesh_GetDef(mesh);
	ENSURE(md.vertexCount == n);
	wfClothDef cd = gd;
	cd.mesh = &md;
	wfClothId meshCloth = wfCreateCloth(w, &cd);
	ENSURE(!wfClothId_IsNull(meshCloth));

	const wfClothModel* gm = &wfGetCloth(grid)->model;
	const wfClothModel* mm = &wfGetCloth(meshCloth)->model;
	ENSURE(gm->constraintCount == mm->constraintCount);
	for (int f = 0; f < WF_FAMILY_COUNT; ++f)
		ENSURE(gm->familyCount[f] == mm->familyCount[f]);
	size_t bytes = (size_t)gm->constraintCount * sizeof(wfConstraint);
	wfConstraint* a = (wfConstraint*)malloc(bytes);
	wfConstraint* b = (wfConstraint*)malloc(bytes);
	memcpy(a, gm->constraints, bytes);
	memcpy(b, mm->constraints, bytes);
	qsort(a, (size_t)gm->constraintCount, sizeof *a, CompareConstraint);
	qsort(b, (size_t)mm->constraintCount, sizeof *b, CompareConstraint);
	ENSURE(memcmp(a, b, bytes) == 0);
	free(a);
	free(b);
	ENSURE(gm->triangleCount == mm->triangleCount);
	size_t tb = (size_t)gm->triangleCount * 3 * sizeof(uint32_t);
	uint32_t* ta = (uint32_t*)malloc(tb);
	uint32_t* tm = (uint32_t*)malloc(tb);
	memcpy(ta, gm->indices, tb);
	memcpy(tm, mm->indices, tb);
	CanonicalTriangles(ta, gm->triangleCount);
	CanonicalTriangles(tm, mm->triangleCount);
	qsort(ta, (size_t)gm->triangleCount, 3 * sizeof(uint32_t), CompareTriangle);
	qsort(tm, (size_t)mm->triangleCount, 3 * sizeof(uint32_t), CompareTriangle);
	ENSURE(memcmp(ta, tm, tb) == 0);
	free(ta);
	free(tm);
	fprintf(stderr, "  %d constraints (%d/%d/%d) and %d triangles equal as sets; colours: grid %d, mesh %d\n", gm->constraintCount,
		gm->familyCount[0], gm->familyCount[1], gm->familyCount[2], gm->triangleCount, gm->colorCount, mm->colorCount);
	// The pins of top-corners on the mesh are the grid's two top corners.
	ENSURE(wfCloth_IsPinned(meshCloth, 0) && wfCloth_IsPinned(meshCloth, cols - 1));
	for (int i = 1; i < n; ++i)
		ENSURE(wfCloth_IsPinned(meshCloth, i) == (i == cols - 1));

	double worst = 0.0, sag = 0.0;
	for (int frame = 0; frame < 60; ++frame)
		ENSURE(wfWorld_Step(w) == WF_OK);
	ENSURE(wfCloth_ReadPositions(grid, p, n) == WF_OK && wfCloth_ReadPositions(meshCloth, q, n) == WF_OK);
	for (int i = 0; i < n; ++i) {
		double d = sqrt((double)(p[i].x - q[i].x) * (p[i].x - q[i].x) + (double)(p[i].y - q[i].y) * (p[i].y - q[i].y) +
			(double)(p[i].z - q[i].z) * (p[i].z - q[i].z));
		worst = d > worst ? d : worst;
		sag = fmax(sag, -(double)p[i].y);
	}
	wfWarnings warn = wfWorld_GetWarnings(w);
	fprintf(stderr, "  %s: after 60 frames the grid sags %.4f m; the mesh is %.3g m from it\n", wfSolverName(solver), sag, worst);
	ENSURE(warn.unstable == 0 && warn.nonFinite == 0);
	ENSURE(sag > 0.05);
	ENSURE_LE(worst, tolerance);
	free(p);
	free(q);
	wfDestroyWorld(w);
	wfDestroyMesh(mesh);
	return 0;
}

// Tolerances: XPBD's Gauss-Seidel order changes with the colouring (1 iteration, so the order
// matters most); Jacobi and springs sum each particle's constraints in another order (a few ulp).
WF_TEST(mesh_grid_obj_equals_grid_xpbd) { return MeshEqualsGrid(WF_SOLVER_XPBD, 1e-3); }
WF_TEST(mesh_grid_obj_equals_grid_jacobi) { return MeshEqualsGrid(WF_SOLVER_JACOBI, 1e-6); }
WF_TEST(mesh_grid_obj_equals_grid_springs) { return MeshEqualsGrid(WF_SOLVER_SPRINGS, 1e-6); }

// An open cylinder (a skirt): rings of `around` vertices, triangles, the top ring at y = 0 (test.h).
wfMesh* wfTestCylinder(int around, int rings, float radius, float length)
{
	size_t capacity = (size_t)around * rings * 192 + 64; // a vertex line pair and two faces each, under 192 characters
	char* text = (char*)malloc(capacity);
	size_t k = 0;
	for (int r = 0; r < rings; ++r) {
		for (int a = 0; a < around; ++a) {
			double t = 2.0 * 3.14159265358979 * a / around;
			k += (size_t)snprintf(text + k, capacity - k, "v %.7f %.7f %.7f\nvt %.5f %.5f\n", radius * cos(t), -length * r / (rings - 1),
				radius * sin(t), (double)a / around, (double)r / (rings - 1));
		}
	}
	for (int r = 0; r + 1 < rings; ++r) {
		for (int a = 0; a < around; ++a) {
			int i0 = r * around + a + 1, i1 = r * around + (a + 1) % around + 1;
			int j0 = i0 + around, j1 = i1 + around;
			k += (size_t)snprintf(text + k, capacity - k, "f %d/%d %d/%d %d/%d\nf %d/%d %d/%d %d/%d\n", i0, i0, j0, j0, j1, j1, i0, i0, j1,
				j1, i1, i1);
		}
	}
	wfMesh* mesh = Parse(text);
	free(text);
	return mesh;
}

static bool ColouringValid(const wfClothModel* m)
{
	int* seen = (int*)malloc((size_t)m->particleCount * sizeof(int));
	for (int i = 0; i < m->particleCount; ++i)
		seen[i] = -1;
	bool ok = true;
	for (int c = 0; c < m->colorCount && ok; ++c) {
		for (int k = m->colorStart[c]; k < m->colorStart[c + 1]; ++k) {
			uint32_t a = m->constraints[k].a, b = m->constraints[k].b;
			ok = ok && seen[a] != c && seen[b] != c;
			seen[a] = seen[b] = c;
		}
	}
	free(seen);
	return ok;
}

// The greedy colouring on triangle meshes: valid, within the bound maxDegree + 1... and its two
// orders (index order, most-connected first) compared; the counts are printed.
WF_TEST(mesh_coloring_counts)
{
	const int sizes[][2] = {{24, 12}, {48, 30}, {96, 64}};
	for (int s = 0; s < 3; ++s) {
		wfMesh* mesh = wfTestCylinder(sizes[s][0], sizes[s][1], 0.3f, 0.6f);
		ENSURE(mesh != NULL);
		wfMeshDef md = wfMesh_GetDef(mesh);
		wfClothDef cd = wfDefaultClothDef();
		cd.mesh = &md;
		wfClothModel m;
		ENSURE(wfBuildMeshModel(&cd, &m) == WF_OK);
		ENSURE(ColouringValid(&m));
		// The plain order alone, for the comparison.
		int* color = (int*)malloc((size_t)m.constraintCount * sizeof(int));
		int plain = wfColorGreedy(m.constraints, m.constraintCount, m.particleCount, color);
		free(color);
		fprintf(stderr, "  cylinder %d x %d: %d particles, %d constraints, max degree %d: %d colours (plain greedy %d)\n", sizes[s][0],
			sizes[s][1], m.particleCount, m.constraintCount, m.maxDegree, m.colorCount, plain);
		ENSURE(m.colorCount <= plain);
		ENSURE(m.colorCount >= m.maxDegree && m.colorCount <= 2 * m.maxDegree - 1);
		wfFreeModel(&m);
		wfDestroyMesh(mesh);
	}
	return 0;
}

// A skirt: a triangle-mesh cylinder pinned at its top ring, over a sphere, 120 frames on each solver:
// no warnings, no particle inside the sphere, and the stretch stays small.
static int Skirt(wfSolverType solver)
{
	wfMesh* mesh = wfTestCylinder(32, 12, 0.3f, 0.5f);
	ENSURE(mesh != NULL);
	wfMeshDef md = wfMesh_GetDef(mesh);
	wfWorldDef wd = wfDefaultWorldDef();
	wd.step.solver = solver;
	wd.step.substeps = solver == WF_SOLVER_SPRINGS ? 64 : 16;
	wd.step.iterations = solver == WF_SOLVER_JACOBI ? 4 : 1;
	wd.sphere.enabled = true;
	wd.sphere.center = (wfVec3){0.04f, 0.6f, 0.0f}; // a hip inside the skirt's lower half
	wd.sphere.radius = 0.27f;
	wd.wind.mode = WF_WIND_GUST;
	wd.wind.strength = 2.0f;
	wfWorld* w = wfTestMakeWorld(wd);
	ENSURE(w != NULL);
	wfClothDef cd = wfDefaultClothDef();
	cd.mesh = &md;
	cd.origin = (wfVec3){0.0f, 1.0f, 0.0f};
	cd.pinMode = WF_PIN_TOP_ROW;
	cd.material.stiffness = 2000.0f;
	wfClothId id = wfCreateCloth(w, &cd);
	ENSURE(!wfClothId_IsNull(id));
	int pinned = 0;
	for (int i = 0; i < md.vertexCount; ++i)
		pinned += wfCloth_IsPinned(id, i);
	ENSURE(pinned == 32);
	for (int frame = 0; frame < 120; ++frame)
		ENSURE(wfWorld_Step(w) == WF_OK);
	wfClothStats st;
	ENSURE(wfCloth_GetStats(id, &st) == WF_OK);
	wfWarnings warn = wfWorld_GetWarnings(w);
	fprintf(stderr, "  %s skirt: max strain %.4f, sphere clearance %.4f m, kinetic %.3g J\n", wfSolverName(solver), (double)st.maxStrain,
		(double)st.sphereClearance, st.kineticEnergy);
	ENSURE(warn.unstable == 0 && warn.nonFinite == 0 && st.nonFinite == 0);
	ENSURE(st.sphereClearance > -0.01f);
	ENSURE_LE(st.maxStrain, 0.25);
	wfDestroyWorld(w);
	wfDestroyMesh(mesh);
	return 0;
}

WF_TEST(mesh_skirt_xpbd) { return Skirt(WF_SOLVER_XPBD); }
WF_TEST(mesh_skirt_jacobi) { return Skirt(WF_SOLVER_JACOBI); }
WF_TEST(mesh_skirt_springs) { return Skirt(WF_SOLVER_SPRINGS); }

// Bad mesh defs name the field and the allowed values; nothing is created.
WF_TEST(mesh_def_errors)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = WF_BACKEND_CPU;
	wfWorld* w = wfTestCreateWorld(&wd, NULL, 0);
	ENSURE(w != NULL);
	const wfVec3 p[4] = {{0, 0, 0}, {1, 0, 0}, {1, 0, 1}, {0, 0, 1}};
	const uint32_t quad[4] = {0, 3, 2, 1}, bad[4] = {0, 3, 7, 1}, twice[4] = {0, 3, 3, 1};
	const uint8_t sizes[1] = {4}, five[1] = {5};
	const float uv[8] = {0};
	struct {
		wfMeshDef mesh;
		wfPinMode pins;
		float jitter;
		const char* message;
	} cases[] = {
		{{p, 4, bad, sizes, 1, NULL, 0, NULL, 0}, WF_PIN_NONE, 0.0f, "mesh.indices[2]: 7 is out of range [0, 3]"},
		{{p, 4, twice, sizes, 1, NULL, 0, NULL, 0}, WF_PIN_NONE, 0.0f, "mesh face 0: vertex 3 appears twice"},
		{{p, 4, quad, five, 1, NULL, 0, NULL, 0}, WF_PIN_NONE, 0.0f, "mesh.faceSizes[0]: 5 corners, allowed 3 or 4"},
		{{p, 1, quad, sizes, 1, NULL, 0, NULL, 0}, WF_PIN_NONE, 0.0f, "mesh.vertexCount: 1 is out of range [2, 16777216]"},
		{{p, 4, quad, sizes, 0, NULL, 0, NULL, 0}, WF_PIN_NONE, 0.0f, "mesh.faceCount: 0 is out of range [1, 16777216]"},
		{{NULL, 4, quad, sizes, 1, NULL, 0, NULL, 0}, WF_PIN_NONE, 0.0f, "mesh.positions: NULL"},
		// The arrays' lengths (issue 31, item 3: a short one was read past its end).
		{{p, 4, quad, sizes, 1, uv, 1, NULL, 0}, WF_PIN_NONE, 0.0f, "mesh.uvCount: 1 rows of uvs for 4 vertices (allowed: vertexCount, 4"},
		{{p, 4, quad, sizes, 1, uv, 0, NULL, 0}, WF_PIN_NONE, 0.0f, "mesh.uvCount: 0 rows of uvs for 4 vertices"},
		{{p, 4, quad, sizes, 1, NULL, 0, uv, 3}, WF_PIN_NONE, 0.0f, "mesh.cornerUVCount: 3 rows of cornerUVs for 4 face corners"},
		{{p, 4, quad, sizes, 1, NULL, 0, NULL, 0}, WF_PIN_CORNERS, 0.0f, "pinMode: \"corners\" needs a grid"},
		{{p, 4, quad, sizes, 1, NULL, 0, NULL, 0}, WF_PIN_NONE, 0.5f, "jitter: 0.5, a mesh starts at its own positions"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
		wfClothDef cd = wfDefaultClothDef();
		cd.mesh = &cases[i].mesh;
		cd.pinMode = cases[i].pins;
		cd.jitter = cases[i].jitter;
		wfClothId id = wfCreateCloth(w, &cd);
		fprintf(stderr, "  %s\n", wfWorld_GetLastError(w));
		ENSURE(wfClothId_IsNull(id));
		ENSURE(strncmp(wfWorld_GetLastError(w), cases[i].message, strlen(cases[i].message)) == 0);
	}
	wfDestroyWorld(w);
	return 0;
}

// Scene files: "mesh" (relative to the scene file) through "transform"; every bad value named by
// its JSON path, the OBJ file's own line in the message.

WF_TEST(scene_mesh_file_and_transform)
{
	char dir[] = "/tmp/weft-mesh-XXXXXX";
	ENSURE(mkdtemp(dir) != NULL);
	char obj[256], bad[256], name[256];
	snprintf(obj, sizeof obj, "%s/square.obj", dir);
	snprintf(bad, sizeof bad, "%s/bad.obj", dir);
	snprintf(name, sizeof name, "%s/scene.json", dir);
	ENSURE(wfTestWriteFile(obj, "v 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1\nf 1 4 3 2\n"));
	ENSURE(wfTestWriteFile(bad, "v 0 0 0\nv 1 0 0\n\nf 1 2 9\n"));
	char err[512];
	// Scale 2, a quarter turn about y (x -> -z), then up by 1: vertex 1 (1, 0, 0) lands on (0, 1, -2).
	wfScene* scene = wfScene_Parse("{\"cloth\": {\"mesh\": \"square.obj\", \"pinMode\": \"none\", "
								   "\"transform\": {\"scale\": 2, \"rotate\": [0, 90, 0], \"translate\": [0, 1, 0]}}}",
		name, err, sizeof err);
	if (scene == NULL)
		fprintf(stderr, "  %s\n", err);
	ENSURE(scene != NULL);
	wfClothDef cd = wfScene_GetClothDef(scene, 0);
	ENSURE(cd.mesh != NULL && cd.mesh->vertexCount == 4 && cd.mesh->faceCount == 1);
	wfVec3 p = cd.mesh->positions[1];
	fprintf(stderr, "  vertex 1 -> (%g, %g, %g)\n", (double)p.x, (double)p.y, (double)p.z);
	ENSURE(fabsf(p.x) < 1e-6f && p.y == 1.0f && fabsf(p.z + 2.0f) < 1e-6f);
	wfWorldDef wd = wfScene_GetWorldDef(scene);
	wd.backend = WF_BACKEND_CPU;
	wfWorld* w = wfTestCreateWorld(&wd, NULL, 0);
	ENSURE(w != NULL);
	ENSURE(!wfClothId_IsNull(wfCreateCloth(w, &cd)));
	wfDestroyWorld(w);
	wfDestroyScene(scene);

	static const struct {
		const char* json;
		const char* message; // after "NAME: "
	} cases[] = {
		{"{\"cloth\": {\"mesh\": \"missing.obj\"}}", "cloth.mesh: "},
		{"{\"cloth\": {\"mesh\": \"bad.obj\"}}", "cloth.mesh: "},
		{"{\"cloth\": {\"mesh\": 3}}", "cloth.mesh: expected the path of an OBJ file, got number"},
		{"{\"cloth\": {\"transform\": {\"scale\": 2}}}", "cloth.transform: only used with \"mesh\""},
		{"{\"cloth\": {\"mesh\": \"square.obj\", \"transform\": {\"scale\": 0}}}", "cloth.transform.scale: 0 is out of range (0, 1e6]"},
		{"{\"cloth\": {\"mesh\": \"square.obj\", \"transform\": {\"spin\": 1}}}", "cloth.transform.spin: unknown key"},
		{"{\"cloth\": {\"mesh\": \"square.obj\", \"transform\": {\"rotate\": [1, 2]}}}", "cloth.transform.rotate: expected an array of 3"},
		{"{\"cloth\": {\"mesh\": \"square.obj\", \"pinMode\": \"corners\"}}", "cloth.pinMode: \"corners\" needs a grid"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
		err[0] = 0;
		ENSURE(wfScene_Parse(cases[i].json, name, err, sizeof err) == NULL);
		fprintf(stderr, "  %s\n", err);
		char expect[512];
		snprintf(expect, sizeof expect, "%s: %s", name, cases[i].message);
		ENSURE(strncmp(err, expect, strlen(expect)) == 0);
	}
	// The OBJ file's own line and reason come through.
	ENSURE(wfScene_Parse("{\"cloth\": {\"mesh\": \"bad.obj\"}}", name, err, sizeof err) == NULL);
	ENSURE(strstr(err, "bad.obj:4: face corner 3: vertex index 9 is out of range [1, 2]") != NULL);
	ENSURE(wfScene_Parse("{\"cloth\": {\"mesh\": \"missing.obj\"}}", name, err, sizeof err) == NULL);
	ENSURE(strstr(err, "missing.obj: cannot open: No such file or directory") != NULL);
	unlink(obj);
	unlink(bad);
	rmdir(dir);
	return 0;
}

// With the same colouring, the same motion: the grid read back from OBJ, its model recoloured with
// the grid's 12-colour scheme (its particles are numbered as the grid's), steps XPBD to the grid's
// bits. Inside a colour the constraints share no particle, so their order there does not matter;
// only the colour order does. (Jacobi and springs sum each particle's constraints in constraint
// index order, which the two models number differently: a few ulp, as the tolerance above says.)
WF_TEST(mesh_grid_obj_same_colouring_same_bits)
{
	const int cols = 9, rows = 7, n = cols * rows;
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = WF_BACKEND_CPU;
	wd.step.substeps = 10;
	wfWorld* w = wfTestCreateWorld(&wd, NULL, 0);
	ENSURE(w != NULL);
	const wfClothDef gd = HangingGrid(cols, rows);
	wfClothId grid = wfCreateCloth(w, &gd);
	ENSURE(!wfClothId_IsNull(grid));
	wfVec3 p[63], q[63];
	ENSURE(wfCloth_ReadLocalPositions(grid, p, n) == WF_OK);
	char* text = GridObj(p, cols, rows);
	wfMesh* mesh = Parse(text);
	free(text);
	ENSURE(mesh != NULL);
	wfMeshDef md = wfMesh_GetDef(mesh);
	wfClothDef cd = gd;
	cd.mesh = &md;
	wfClothId meshCloth = wfCreateCloth(w, &cd);
	ENSURE(!wfClothId_IsNull(meshCloth));
	wfClothModel* m = &wfGetCloth(meshCloth)->model;
	int* color = (int*)wfAlloc((size_t)m->constraintCount * sizeof(int));
	for (int k = 0; k < m->constraintCount; ++k)
		color[k] = wfGridColor(cols, m->constraints[k].a, m->constraints[k].b);
	memset(m->adjStart, 0, (size_t)(n + 1) * sizeof(int));
	m->maxDegree = 0;
	ENSURE(wfFinishModel(&cd, m, color, 12) == WF_OK);
	ENSURE(m->colorCount == 12);
	for (int frame = 0; frame < 60; ++frame)
		ENSURE(wfWorld_Step(w) == WF_OK);
	ENSURE(wfCloth_ReadPositions(grid, p, n) == WF_OK && wfCloth_ReadPositions(meshCloth, q, n) == WF_OK);
	ENSURE(memcmp(p, q, sizeof p) == 0);
	fprintf(stderr, "  recoloured with the grid's scheme: 60 XPBD frames, the same bits as the grid (bottom corner y %.6f)\n",
		(double)p[n - 1].y);
	wfDestroyWorld(w);
	wfDestroyMesh(mesh);
	return 0;
}
