// Topology and colouring: constraint counts, colour validity and the 12-colour bound.
#include "test.h"
#include "core/internal.h"

#include <stdlib.h>
#include <string.h>

static wfClothDef Grid(int cols, int rows)
{
	wfClothDef d = wfDefaultClothDef();
	d.cols = cols;
	d.rows = rows;
	return d;
}

// The first document: N x M particles with all three families give 6NM - 5(N + M) + 2 constraints.
WF_TEST(constraint_count_formula)
{
	const int sizes[][2] = {{5, 5}, {5, 9}, {12, 7}, {60, 60}, {56, 56}, {3, 17}, {100, 31}};
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
		int n = sizes[s][0], m = sizes[s][1];
		wfClothModel model;
		wfClothDef d = Grid(n, m);
		ENSURE(wfBuildGridModel(&d, &model, false) == WF_OK);
		ENSURE(model.constraintCount == 6 * n * m - 5 * (n + m) + 2);
		ENSURE(model.familyCount[0] == n * (m - 1) + m * (n - 1));
		ENSURE(model.familyCount[1] == 2 * (n - 1) * (m - 1));
		ENSURE(model.familyCount[2] == n * (m - 2) + m * (n - 2));
		wfFreeModel(&model);
	}
	fprintf(stderr, "  ok 7 grid sizes match 6NM - 5(N+M) + 2\n");
	return 0;
}

// No two constraints of one colour share a particle; returns the number of violations.
static int CountColorClashes(const wfClothModel* m)
{
	int clashes = 0;
	int* seen = (int*)malloc((size_t)m->particleCount * sizeof(int));
	for (int i = 0; i < m->particleCount; ++i)
		seen[i] = -1;
	for (int c = 0; c < m->colorCount; ++c) {
		for (int k = m->colorStart[c]; k < m->colorStart[c + 1]; ++k) {
			uint32_t ends[2] = {m->constraints[k].a, m->constraints[k].b};
			for (int e = 0; e < 2; ++e) {
				if (seen[ends[e]] == c)
					clashes++;
				seen[ends[e]] = c;
			}
		}
	}
	free(seen);
	return clashes;
}

WF_TEST(coloring_valid_and_twelve_colors)
{
	for (int n = 5; n <= 13; ++n) {
		for (int m = 5; m <= 13; m += 4) {
			wfClothModel model;
			wfClothDef d = Grid(n, m);
			ENSURE(wfBuildGridModel(&d, &model, false) == WF_OK);
			ENSURE(CountColorClashes(&model) == 0);
			ENSURE(model.colorCount == 12);
			ENSURE(model.colorStart[model.colorCount] == model.constraintCount);
			for (int c = 0; c < model.colorCount; ++c)
				ENSURE(model.colorStart[c + 1] > model.colorStart[c]);
			wfFreeModel(&model);
		}
	}
	wfClothModel big;
	wfClothDef d = Grid(256, 200);
	ENSURE(wfBuildGridModel(&d, &big, false) == WF_OK);
	ENSURE(CountColorClashes(&big) == 0);
	ENSURE_NEAR(big.colorCount, 12, 0);
	wfFreeModel(&big);
	return 0;
}

// Plain greedy in generation order is valid but needs 13 colours on a grid with bending; the lower
// bound (the largest number of constraints at one particle) is 12, which the grid scheme reaches.
WF_TEST(greedy_coloring_general_graphs)
{
	wfClothModel model;
	wfClothDef d = Grid(20, 20);
	ENSURE(wfBuildGridModel(&d, &model, false) == WF_OK);
	// Re-sort the constraints into generation (row-major) order, then colour greedily.
	int k = model.constraintCount;
	wfConstraint* cons = (wfConstraint*)malloc((size_t)k * sizeof(wfConstraint));
	int* color = (int*)malloc((size_t)k * sizeof(int));
	memcpy(cons, model.constraints, (size_t)k * sizeof(wfConstraint));
	for (int i = 0; i < k; ++i)
		color[i] = (int)(cons[i].a * 16 + (cons[i].b - cons[i].a) % 16); // sort key
	for (int i = 1; i < k; ++i) {                                        // insertion sort by key: small enough here
		wfConstraint c = cons[i];
		int key = color[i], j = i - 1;
		while (j >= 0 && color[j] > key) {
			cons[j + 1] = cons[j];
			color[j + 1] = color[j];
			--j;
		}
		cons[j + 1] = c;
		color[j + 1] = key;
	}
	int greedy = wfColorGreedy(cons, k, model.particleCount, color);
	fprintf(stderr, "  greedy colours on 20x20 with bending: %d (grid scheme: %d)\n", greedy, model.colorCount);
	ENSURE(greedy >= 12 && greedy <= 13);
	ENSURE(model.colorCount == 12);
	int colorStart[64];
	int colors = wfSortByColor(cons, k, color, greedy, colorStart);
	wfClothModel check = model;
	check.constraints = cons;
	check.colorStart = colorStart;
	check.colorCount = colors;
	ENSURE(CountColorClashes(&check) == 0);
	// A triangle graph (not a grid) needs 3 colours.
	wfConstraint tri[3] = {{0, 1, 1.0f, 0}, {1, 2, 1.0f, 0}, {0, 2, 1.0f, 0}};
	int tc[3];
	ENSURE(wfColorGreedy(tri, 3, 3, tc) == 3);
	free(cons);
	free(color);
	wfFreeModel(&model);
	return 0;
}

WF_TEST(chain_and_partial_families)
{
	wfClothModel model;
	wfClothDef d = Grid(1, 11);
	d.shear = d.bending = false;
	ENSURE(wfBuildGridModel(&d, &model, false) == WF_OK);
	ENSURE(model.constraintCount == 10);
	ENSURE(model.colorCount == 2);
	ENSURE(model.triangleCount == 0);
	ENSURE(CountColorClashes(&model) == 0);
	wfFreeModel(&model);
	d = Grid(60, 60);
	d.bending = false;
	ENSURE(wfBuildGridModel(&d, &model, false) == WF_OK);
	ENSURE(model.constraintCount == 60 * 59 * 2 + 2 * 59 * 59);
	ENSURE(model.colorCount == 8);
	ENSURE(model.triangleCount == 2 * 59 * 59);
	wfFreeModel(&model);
	return 0;
}

// The tile order (wfClothModel): inside each colour the constraints are regrouped by tile, and the
// tiles of one tile colour touch disjoint particles, each inside its region (its square of owner
// cells and two more columns and rows: what xpbd_tiled.comp holds in shared memory). The tile of a
// rank is found as the shader finds it.
WF_TEST(tile_order_tiles_independent)
{
	const int sizes[][2] = {{37, 29}, {16, 16}, {64, 64}, {17, 3}, {3, 40}, {33, 17}, {1, 20}, {130, 97}};
	const int t = WF_GPU_XPBD_TILE;
	int tilesSeen = 0;
	for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
		const int cols = sizes[s][0], rows = sizes[s][1], n = cols * rows;
		wfClothDef d = Grid(cols, rows);
		wfClothModel tiled, plain;
		ENSURE(wfBuildGridModel(&d, &tiled, true) == WF_OK);
		ENSURE(wfBuildGridModel(&d, &plain, false) == WF_OK);
		ENSURE(tiled.tileSize == t && plain.tileSize == 0 && plain.tileStart == NULL);
		ENSURE(tiled.tileCount == ((cols + t - 1) / t) * ((rows + t - 1) / t));
		// The same colours, each the same set of constraints (a constraint is its ends: sum and xor).
		ENSURE(tiled.colorCount == plain.colorCount && tiled.constraintCount == plain.constraintCount);
		ENSURE(CountColorClashes(&tiled) == 0);
		for (int c = 0; c < tiled.colorCount; ++c) {
			ENSURE(tiled.colorStart[c] == plain.colorStart[c]);
			uint64_t sum[2] = {0, 0}, mix[2] = {0, 0};
			for (int k = tiled.colorStart[c]; k < tiled.colorStart[c + 1]; ++k) {
				const wfConstraint* q[2] = {&tiled.constraints[k], &plain.constraints[k]};
				for (int v = 0; v < 2; ++v) {
					const uint64_t key = (uint64_t)q[v]->a << 32 | q[v]->b;
					sum[v] += key * 2654435761u;
					mix[v] ^= key * 40503u + q[v]->family;
				}
			}
			ENSURE(sum[0] == sum[1] && mix[0] == mix[1]);
		}
		int* touched = (int*)malloc((size_t)n * sizeof(int));
		int clashes = 0, outside = 0, wrongTile = 0, visited = 0, most = 0;
		const int tilesX = (cols + t - 1) / t;
		for (int tc = 0; tc < WF_TILE_COLORS; ++tc) {
			for (int i = 0; i < n; ++i)
				touched[i] = -1;
			const int px = tc & 1, py = tc >> 1, across = (tilesX - px + 1) / 2;
			for (int g = tiled.tileColorFirst[tc]; g < tiled.tileColorFirst[tc + 1]; ++g) {
				const int r = g - tiled.tileColorFirst[tc];
				const int x0 = (px + 2 * (r % across)) * t, y0 = (py + 2 * (r / across)) * t;
				tilesSeen++;
				for (int c = 0; c < tiled.colorCount; ++c) {
					const int run = wfTileRange(&tiled, c, g + 1) - wfTileRange(&tiled, c, g);
					most = run > most ? run : most;
					for (int k = wfTileRange(&tiled, c, g); k < wfTileRange(&tiled, c, g + 1); ++k) {
						const wfConstraint q = tiled.constraints[k];
						const int ends[2] = {(int)q.a, (int)q.b};
						const int ox = (int)(q.a % (uint32_t)cols) < (int)(q.b % (uint32_t)cols) ? (int)(q.a % (uint32_t)cols)
																								 : (int)(q.b % (uint32_t)cols);
						const int oy = (int)(q.a / (uint32_t)cols) < (int)(q.b / (uint32_t)cols) ? (int)(q.a / (uint32_t)cols)
																								 : (int)(q.b / (uint32_t)cols);
						wrongTile += ox < x0 || ox >= x0 + t || oy < y0 || oy >= y0 + t;
						visited++;
						for (int e = 0; e < 2; ++e) {
							const int x = ends[e] % cols, y = ends[e] / cols;
							outside += x < x0 || x >= x0 + t + 2 || y < y0 || y >= y0 + t + 2;
							clashes += touched[ends[e]] >= 0 && touched[ends[e]] != g;
							touched[ends[e]] = g;
						}
					}
				}
			}
		}
		free(touched);
		ENSURE_NEAR(visited, tiled.constraintCount, 0);
		ENSURE_NEAR(wrongTile, 0, 0);
		ENSURE_NEAR(outside, 0, 0);
		ENSURE_NEAR(clashes, 0, 0);
		ENSURE_LE(most, t * t / 2); // xpbd_tiled.comp: one constraint of a colour per invocation
		ENSURE_LE(t * t / 2, WF_GPU_XPBD_TILE_GROUP);
		wfFreeModel(&tiled);
		wfFreeModel(&plain);
	}
	fprintf(stderr,
		"  ok 7 grids, %d tiles: every constraint in its tile's run, inside its region, no particle shared by two tiles of a tile colour\n",
		tilesSeen);
	return 0;
}
