// libFuzzer target: the scene loader (wfScene_Parse) on arbitrary bytes. A scene that parses is read
// back through every getter; nothing may crash, leak or trip a sanitizer.
#include "weft/weft.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	// wfScene_Parse takes NUL-terminated text (wfScene_Load refuses files with NUL bytes first).
	char* text = malloc(size + 1);
	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	char error[256];
	wfScene* scene = wfScene_Parse(text, "fuzz.json", error, (int)sizeof error);
	if (scene != NULL) {
		wfWorldDef world = wfScene_GetWorldDef(scene);
		(void)world;
		for (int i = 0; i < wfScene_GetClothCount(scene); ++i) {
			wfClothDef cloth = wfScene_GetClothDef(scene, i);
			// The pin list the scene owns must be readable in full.
			volatile int sum = 0;
			for (int k = 0; k < cloth.pinCount; ++k)
				sum += cloth.pinIndices[k];
			(void)sum;
		}
		(void)wfScene_GetFrames(scene);
		wfDestroyScene(scene);
	} else if (memchr(error, 0, sizeof error) == NULL) {
		abort(); // the message must be terminated within its buffer
	}
	free(text);
	return 0;
}
