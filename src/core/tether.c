// Tethers (long-range attachments): each free particle's anchor, the pinned or attached particle
// nearest to it along the cloth, and its length limit, from the rest shape, the pins and the
// attachments at creation (an attached anchor moves with its body: the limit holds all the same).
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct HeapItem {
	double distance;
	int particle;
} HeapItem;

static bool Before(HeapItem a, HeapItem b) { return a.distance < b.distance || (a.distance == b.distance && a.particle < b.particle); }

static void Push(HeapItem* heap, int* count, HeapItem item)
{
	int i = (*count)++;
	while (i > 0) {
		int parent = (i - 1) / 2;
		if (!Before(item, heap[parent]))
			break;
		heap[i] = heap[parent];
		i = parent;
	}
	heap[i] = item;
}

static HeapItem Pop(HeapItem* heap, int* count)
{
	HeapItem top = heap[0], last = heap[--(*count)];
	int i = 0;
	for (;;) {
		int child = 2 * i + 1;
		if (child >= *count)
			break;
		if (child + 1 < *count && Before(heap[child + 1], heap[child]))
			++child;
		if (!Before(heap[child], last))
			break;
		heap[i] = heap[child];
		i = child;
	}
	if (*count > 0)
		heap[i] = last;
	return top;
}

wfResult wfBuildTethers(wfCloth* c)
{
	wfClothModel* m = &c->model;
	wfFree(m->tethers);
	m->tethers = NULL;
	if (c->def.tethers == WF_TETHER_NONE)
		return WF_OK;
	const int n = m->particleCount;
	double* distance = (double*)wfAlloc((size_t)n * sizeof(double));
	int* anchor = (int*)wfAlloc((size_t)n * sizeof(int));
	// Each particle enters the heap at most once per improvement: at most its degree + 1 times.
	const size_t capacity = (size_t)n + 2 * (size_t)m->constraintCount + 1;
	HeapItem* heap = (HeapItem*)wfAlloc(capacity * sizeof(HeapItem));
	m->tethers = (wfConstraint*)wfAlloc((size_t)n * sizeof(wfConstraint));
	if (distance == NULL || anchor == NULL || heap == NULL || m->tethers == NULL) {
		wfFree(distance);
		wfFree(anchor);
		wfFree(heap);
		wfFree(m->tethers);
		m->tethers = NULL;
		return WF_ERROR_OUT_OF_MEMORY;
	}
	// Dijkstra from every pinned and attached particle at once over the stretch and shear constraints.
	int count = 0;
	for (int i = 0; i < n; ++i) {
		const bool held = c->pinned[i] || wfClothIsAttached(c, i);
		distance[i] = held ? 0.0 : INFINITY;
		anchor[i] = held ? i : -1;
		if (held)
			Push(heap, &count, (HeapItem){0.0, i});
	}
	while (count > 0) {
		HeapItem top = Pop(heap, &count);
		if (top.distance > distance[top.particle])
			continue; // a stale entry
		for (int e = m->adjStart[top.particle]; e < m->adjStart[top.particle + 1]; ++e) {
			const wfConstraint* k = &m->constraints[m->adjConstraint[e]];
			if (k->family == WF_FAMILY_BEND)
				continue;
			int j = (int)m->adjOther[e];
			double d = top.distance + (double)k->rest;
			if (d < distance[j] || (d == distance[j] && anchor[top.particle] < anchor[j])) {
				distance[j] = d;
				anchor[j] = anchor[top.particle];
				Push(heap, &count, (HeapItem){d, j});
			}
		}
	}
	const double scale = c->def.tetherScale;
	for (int i = 0; i < n; ++i) {
		wfConstraint* t = &m->tethers[i];
		t->a = (uint32_t)i;
		t->family = WF_FAMILY_TETHER;
		if (anchor[i] == i || anchor[i] < 0) {
			t->b = 0xffffffffu;
			t->rest = 0.0f;
			continue;
		}
		double rest = distance[i];
		if (c->def.tethers == WF_TETHER_EUCLIDEAN) {
			const wfVec4 p = m->restPositions[i], q = m->restPositions[anchor[i]];
			const double dx = (double)p.x - q.x, dy = (double)p.y - q.y, dz = (double)p.z - q.z;
			rest = sqrt(dx * dx + dy * dy + dz * dz);
		}
		t->b = (uint32_t)anchor[i];
		t->rest = (float)(scale * rest);
	}
	wfFree(distance);
	wfFree(anchor);
	wfFree(heap);
	return WF_OK;
}
