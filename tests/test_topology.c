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
		ENSURE(wfBuildGridModel(&d, &model) == WF_OK);
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
			ENSURE(wfBuildGridModel(&d, &model) == WF_OK);
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
	ENSURE(wfBuildGridModel(&d, &big) == WF_OK);
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
	ENSURE(wfBuildGridModel(&d, &model) == WF_OK);
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
	ENSURE(wfBuildGridModel(&d, &model) == WF_OK);
	ENSURE(model.constraintCount == 10);
	ENSURE(model.colorCount == 2);
	ENSURE(model.triangleCount == 0);
	ENSURE(CountColorClashes(&model) == 0);
	wfFreeModel(&model);
	d = Grid(60, 60);
	d.bending = false;
	ENSURE(wfBuildGridModel(&d, &model) == WF_OK);
	ENSURE(model.constraintCount == 60 * 59 * 2 + 2 * 59 * 59);
	ENSURE(model.colorCount == 8);
	ENSURE(model.triangleCount == 2 * 59 * 59);
	wfFreeModel(&model);
	return 0;
}
