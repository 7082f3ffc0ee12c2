// Procedural assets made on the CPU: the checker-weave texture and the unit UV sphere.
#include "render_internal.h"

#include <math.h>
#include <stdlib.h>

// A basket weave: a checkerboard of cells, each holding a few threads that run along u in one parity
// and along v in the other, so the threads seem to pass over and under each other. Each thread is
// shaded across its width (rounded) with a dark gap between threads. Two yarn colours alternate with
// the checker so the repeat reads clearly from far away.
void wfMakeWeaveTexture(uint8_t* rgba, int size)
{
	if (rgba != NULL && size >= 8 && size <= 4096)
		rdMakeWeaveTexture(rgba, size);
}

void rdMakeWeaveTexture(uint8_t* rgba, int size)
{
	const int cells = 8;                         // cells across the texture
	const int threads = 3;                       // threads per cell
	const float warp[3] = {0.80f, 0.28f, 0.20f}; // sRGB yarn colours
	const float weft[3] = {0.93f, 0.86f, 0.70f};
	int cell = size / cells;
	for (int y = 0; y < size; ++y) {
		for (int x = 0; x < size; ++x) {
			int cx = x / cell, cy = y / cell;
			int parity = (cx + cy) & 1;
			// Position across the thread: along y for threads running in x, and the other way round.
			float across = (float)(parity ? x % cell : y % cell) + 0.5f;
			float along = (float)(parity ? y % cell : x % cell) + 0.5f;
			float t = fmodf(across * threads / (float)cell, 1.0f); // 0..1 across one thread
			float round = sinf(t * 3.14159265f);                   // bulge of the yarn
			float shade = 0.55f + 0.45f * sqrtf(round);
			// Fine fibre ripple along the thread and a darker rim at the cell edges (the crossing).
			shade *= 0.93f + 0.07f * sinf(along * 2.1f + across * 0.7f);
			float edge = fminf(along, (float)cell - along) / (float)cell;
			shade *= 0.78f + 0.22f * fminf(edge * 6.0f, 1.0f);
			const float* yarn = parity ? warp : weft;
			for (int c = 0; c < 3; ++c) {
				float v = yarn[c] * shade;
				rgba[(y * size + x) * 4 + c] = (uint8_t)(fminf(fmaxf(v, 0.0f), 1.0f) * 255.0f + 0.5f);
			}
			rgba[(y * size + x) * 4 + 3] = 255;
		}
	}
}

// A UV sphere of radius 1 with `slices` around y and `stacks` from pole to pole. Vertices: position =
// normal; triangles counter-clockwise seen from outside, like the cloth's.
bool rdMakeSphere(int slices, int stacks, RdMesh* mesh)
{
	mesh->vertexCount = (slices + 1) * (stacks + 1);
	mesh->indexCount = slices * stacks * 6;
	mesh->positions = malloc(sizeof(float) * 3 * (size_t)mesh->vertexCount);
	mesh->uvs = malloc(sizeof(float) * 2 * (size_t)mesh->vertexCount);
	mesh->indices = malloc(sizeof(uint32_t) * (size_t)mesh->indexCount);
	if (mesh->positions == NULL || mesh->uvs == NULL || mesh->indices == NULL)
		return false;
	for (int j = 0; j <= stacks; ++j) {
		float theta = 3.14159265f * (float)j / (float)stacks; // from +y down
		for (int i = 0; i <= slices; ++i) {
			float phi = 2.0f * 3.14159265f * (float)i / (float)slices;
			int v = j * (slices + 1) + i;
			mesh->positions[v * 3 + 0] = sinf(theta) * sinf(phi);
			mesh->positions[v * 3 + 1] = cosf(theta);
			mesh->positions[v * 3 + 2] = sinf(theta) * cosf(phi);
			mesh->uvs[v * 2 + 0] = (float)i / (float)slices;
			mesh->uvs[v * 2 + 1] = (float)j / (float)stacks;
		}
	}
	int k = 0;
	for (int j = 0; j < stacks; ++j) {
		for (int i = 0; i < slices; ++i) {
			uint32_t a = (uint32_t)(j * (slices + 1) + i), b = a + 1;
			uint32_t c = a + (uint32_t)(slices + 1), d = c + 1;
			// a-b along increasing phi, c-d one stack lower: (a, c, b) and (b, c, d) face outwards.
			mesh->indices[k++] = a;
			mesh->indices[k++] = c;
			mesh->indices[k++] = b;
			mesh->indices[k++] = b;
			mesh->indices[k++] = c;
			mesh->indices[k++] = d;
		}
	}
	return true;
}

void rdMeshFree(RdMesh* mesh)
{
	free(mesh->positions);
	free(mesh->uvs);
	free(mesh->indices);
	mesh->positions = NULL;
	mesh->uvs = NULL;
	mesh->indices = NULL;
}
