// Graph colouring of constraints: no two constraints of one colour share a particle, so each colour
// is a set of independent projections that may run in parallel (Gauss-Seidel across colours).
#include "internal.h"

#include <stdlib.h>
#include <string.h>

// Greedy colouring in the given order: each constraint takes the lowest colour used by neither
// endpoint. A particle's used colours are kept as a 64-bit mask; beyond 64 colours the general
// fallback scans the colour lists (never needed for cloth, whose particles see at most 12).
int wfColorGreedy(const wfConstraint* constraints, int count, int particleCount, int* color)
{
	uint64_t* used = (uint64_t*)calloc((size_t)particleCount, sizeof(uint64_t));
	if (used == NULL)
		return -1;
	int colorCount = 0;
	for (int i = 0; i < count; ++i) {
		uint32_t a = constraints[i].a, b = constraints[i].b;
		uint64_t taken = used[a] | used[b];
		int c = 0;
		while (c < 64 && (taken >> c & 1u))
			++c;
		if (c == 64) {
			// More than 64 colours at one particle: find a free colour by scanning earlier constraints.
			c = 64;
			for (bool clash = true; clash;) {
				clash = false;
				for (int j = 0; j < i; ++j) {
					if (color[j] != c)
						continue;
					if (constraints[j].a == a || constraints[j].b == a || constraints[j].a == b || constraints[j].b == b) {
						clash = true;
						++c;
						break;
					}
				}
			}
		} else {
			used[a] |= (uint64_t)1 << c;
			used[b] |= (uint64_t)1 << c;
		}
		color[i] = c;
		if (c + 1 > colorCount)
			colorCount = c + 1;
	}
	free(used);
	return colorCount;
}

// A grid particle has at most 12 incident constraints (4 structural, 4 shear, 4 bending), so 12
// colours is the lower bound. Plain greedy in row-major order needs 13. This scheme reaches 12 on
// every grid: each of the six directions gets two colours, alternating along that direction, so
// the two constraints of a direction that meet at a particle always differ. For the two-apart
// bending springs the alternation is by (x / 2) mod 2, since x and x - 2 share a parity.
int wfGridColor(int cols, uint32_t a, uint32_t b)
{
	if (a > b) {
		uint32_t t = a;
		a = b;
		b = t;
	}
	int xa = (int)(a % (uint32_t)cols), ya = (int)(a / (uint32_t)cols);
	int xb = (int)(b % (uint32_t)cols), yb = (int)(b / (uint32_t)cols);
	int dx = xb - xa, dy = yb - ya;
	if (dy == 0 && dx == 1)
		return 0 + (xa & 1);
	if (dy == 1 && dx == 0)
		return 2 + (ya & 1);
	if (dy == 1 && dx == 1)
		return 4 + (xa & 1);
	if (dy == 1 && dx == -1)
		return 6 + (xb & 1);
	if (dy == 0 && dx == 2)
		return 8 + ((xa >> 1) & 1);
	if (dy == 2 && dx == 0)
		return 10 + ((ya >> 1) & 1);
	return -1;
}

int wfSortByColor(wfConstraint* constraints, int count, const int* color, int colorCount, int* colorStart)
{
	// Counting sort, stable: inside a colour the constraints keep their generation order.
	int* start = (int*)calloc((size_t)colorCount + 1, sizeof(int));
	wfConstraint* sorted = (wfConstraint*)malloc((size_t)(count > 0 ? count : 1) * sizeof(wfConstraint));
	if (start == NULL || sorted == NULL) {
		free(start);
		free(sorted);
		return -1;
	}
	for (int i = 0; i < count; ++i)
		start[color[i] + 1]++;
	for (int c = 0; c < colorCount; ++c)
		start[c + 1] += start[c];
	int* fill = (int*)malloc((size_t)(colorCount > 0 ? colorCount : 1) * sizeof(int));
	if (fill == NULL) {
		free(start);
		free(sorted);
		return -1;
	}
	memcpy(fill, start, (size_t)colorCount * sizeof(int));
	for (int i = 0; i < count; ++i)
		sorted[fill[color[i]]++] = constraints[i];
	memcpy(constraints, sorted, (size_t)count * sizeof(wfConstraint));
	// Drop empty colours (a grid without some family leaves some unused).
	int n = 0;
	colorStart[0] = 0;
	for (int c = 0; c < colorCount; ++c) {
		if (start[c + 1] > start[c])
			colorStart[++n] = start[c + 1];
	}
	free(fill);
	free(start);
	free(sorted);
	return n;
}
