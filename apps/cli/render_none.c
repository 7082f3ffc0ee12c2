// `weft run --png/--video` in a build without the renderer (no Vulkan headers, glslc or libpng).
#include "render_out.h"

#include <stdio.h>

bool CliRenderBuiltIn(void) { return false; }
bool CliVideoAvailable(void) { return false; }

bool CliWeavePng(uint8_t** png, size_t* size)
{
	*png = NULL;
	*size = 0;
	return false;
}

int CliRenderOpen(const CliOptions* options, const CliSim* sim, CliRenderOut** out)
{
	(void)sim;
	*out = NULL;
	if (options->render.pngDir == NULL && options->render.videoPath == NULL)
		return CLI_EXIT_OK;
	fprintf(stderr, "weft run: --png/--video: this build of weft has no renderer (it needs the Vulkan headers, glslc and libpng)\n");
	return CLI_EXIT_RUNTIME;
}

int CliRenderFrame(CliRenderOut* out, const CliSim* sim, int frame)
{
	(void)out;
	(void)sim;
	(void)frame;
	return CLI_EXIT_OK;
}

int CliRenderClose(CliRenderOut* out, bool keep, bool quiet, char* kept, size_t keptSize)
{
	(void)out;
	(void)keep;
	(void)quiet;
	(void)kept;
	(void)keptSize;
	return CLI_EXIT_OK;
}
