// libFuzzer target: the OBJ reader (wfMesh_ParseObj) on arbitrary bytes, and a mesh that reads
// becomes a cloth (the mesh model: edges, bending pairs, colouring; geodesic tethers to its top row)
// stepped once on the CPU. Nothing may crash, leak or trip a sanitizer; refusals are messages.
#include "weft/weft.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static wfWorld* World(void)
{
	static wfWorld* world = NULL;
	if (world == NULL) {
		wfWorldDef wd = wfDefaultWorldDef();
		wd.backend = WF_BACKEND_CPU;
		wd.threads = 1;
		wd.step.substeps = 2;
		wd.aero.drag = 1.0f;
		world = wfCreateWorld(&wd, NULL, 0);
	}
	return world;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	char* text = malloc(size + 1);
	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	char error[256];
	wfMesh* mesh = wfMesh_ParseObj(text, "fuzz.obj", error, (int)sizeof error);
	free(text);
	if (mesh == NULL) {
		if (memchr(error, 0, sizeof error) == NULL || error[0] == 0)
			abort(); // a refusal says why, within its buffer
		return 0;
	}
	wfMeshDef md = wfMesh_GetDef(mesh);
	wfWorld* w = World();
	if (w != NULL && md.vertexCount <= 4096) {
		wfClothDef cd = wfDefaultClothDef();
		cd.mesh = &md;
		cd.pinMode = WF_PIN_TOP_ROW;
		cd.tethers = WF_TETHER_GEODESIC;
		wfClothId id = wfCreateCloth(w, &cd);
		if (!wfClothId_IsNull(id)) {
			(void)wfWorld_Step(w);
			wfDestroyCloth(id);
		}
	}
	wfDestroyMesh(mesh);
	return 0;
}
