// `weft run --png/--video`: every Nth frame is rendered offscreen, written as a PNG and/or piped
// to ffmpeg. Without ffmpeg the PNGs are still written and the run ends with an error.
#include "render_out.h"
#include "output.h"

#include "weft/render.h"
#include "weft_env.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CliRenderOut {
	wfRenderer* renderer;
	wfCamera camera;
	uint8_t* rgba;
	int width, height, every;
	const char* pngDir;
	wfVideo* video;
	const char* videoPath;
	bool videoFailed; // --video was asked for and could not be made
	int pngCount, videoFrames;
};

static void Free(CliRenderOut* r)
{
	if (r->video != NULL)
		wfDestroyVideo(r->video);
	if (r->renderer != NULL)
		wfDestroyRenderer(r->renderer);
	free(r->rgba);
	free(r);
}

// Frames per second of the video: simulated seconds of the rendered frames, unless --fps.
static int VideoFps(const CliOptions* o, const CliSim* sim)
{
	if (o->render.fps != CLI_KEEP)
		return o->render.fps;
	double fps = 1.0 / ((double)wfWorld_GetDef(sim->world).step.timeStep * o->render.every);
	return fps < 1.0 ? 1 : fps > 240.0 ? 240 : (int)lround(fps);
}

static int OpenVideo(const CliOptions* o, const CliSim* sim, CliRenderOut* r)
{
	char error[CLI_PATH_MAX + 256];
	if (!CliPrepareFileFolder(o->render.videoPath, error, sizeof error)) {
		fprintf(stderr, "weft run: --video: %s\n", error);
		return CLI_EXIT_USAGE;
	}
	r->video = wfVideoOpen(o->render.videoPath, r->width, r->height, VideoFps(o, sim), error, sizeof error);
	if (r->video != NULL)
		return CLI_EXIT_OK;
	if (o->render.pngDir == NULL) {
		fprintf(stderr, "weft run: --video: %s\n", error);
		return CLI_EXIT_RUNTIME;
	}
	fprintf(stderr, "weft run: --video: %s; the PNG frames are still written to %s\n", error, o->render.pngDir);
	r->videoFailed = true;
	return CLI_EXIT_OK;
}

bool CliRenderBuiltIn(void) { return true; }

bool CliWeavePng(uint8_t** png, size_t* size)
{
	uint8_t* rgba = (uint8_t*)malloc((size_t)CLI_WEAVE_SIZE * CLI_WEAVE_SIZE * 4);
	*png = NULL;
	*size = 0;
	if (rgba == NULL)
		return false;
	wfMakeWeaveTexture(rgba, CLI_WEAVE_SIZE);
	const bool ok = wfEncodePng(rgba, CLI_WEAVE_SIZE, CLI_WEAVE_SIZE, png, size) == WF_OK;
	free(rgba);
	return ok;
}
bool CliVideoAvailable(void) { return wfVideoAvailable(); }

int CliRenderOpen(const CliOptions* o, const CliSim* sim, CliRenderOut** out)
{
	*out = NULL;
	if (o->render.pngDir == NULL && o->render.videoPath == NULL)
		return CLI_EXIT_OK;
	char error[CLI_PATH_MAX + 256];
	wfRendererDef def = wfDefaultRendererDef();
	def.width = o->render.width;
	def.height = o->render.height;
	def.wireframe = o->render.wireframe;
	def.world = sim->world; // on Vulkan: draw from the solver's buffers on its device
	// A preset without a floor stands on a ground below its cloth (not a collider); a scene draws its own.
	def.showGround = o->preset != NULL && wfDefaultGroundForPreset(o->preset, &def.groundHeight);
	if (o->render.color != NULL && !wfColorModeFromName(o->render.color, &def.colorMode)) {
		fprintf(stderr, "weft run: --color: '%s' is not a colour mode (allowed: texture, speed, strain)\n", o->render.color);
		return CLI_EXIT_USAGE;
	}
	if (o->render.view != NULL && !wfViewModeFromName(o->render.view, &def.view)) {
		fprintf(stderr, "weft run: --view: '%s' is not a view (allowed: cloth, nodes, both)\n", o->render.view);
		return CLI_EXIT_USAGE;
	}
	if (o->render.pngDir != NULL && !CliPrepareFolder(o->render.pngDir, error, sizeof error)) {
		fprintf(stderr, "weft run: --png: %s\n", error);
		return CLI_EXIT_USAGE;
	}
	CliRenderOut* r = (CliRenderOut*)calloc(1, sizeof *r);
	if (r == NULL)
		return CLI_EXIT_RUNTIME;
	r->width = def.width;
	r->height = def.height;
	r->every = o->render.every;
	r->pngDir = o->render.pngDir;
	r->videoPath = o->render.videoPath;
	r->rgba = (uint8_t*)malloc((size_t)r->width * r->height * 4);
	wfEnvApplyToRendererDef(&def); // WEFT_VK_DEVICE, WEFT_VK_VALIDATION
	r->renderer = r->rgba != NULL ? wfCreateRenderer(&def, error, sizeof error) : NULL;
	if (r->renderer == NULL) {
		fprintf(stderr, "weft run: cannot render: %s\n", r->rgba != NULL ? error : "out of memory");
		Free(r);
		return CLI_EXIT_RUNTIME;
	}
	// A preset has a chosen view; a scene gets a camera that frames its cloths as they start.
	r->camera = o->preset != NULL ? wfDefaultCameraForPreset(o->preset) : wfCameraFit(sim->world, sim->cloths, sim->clothCount, 45.0f);
	if (o->render.cameraSet) { // --camera
		const float* c = o->render.camera;
		r->camera = wfCameraLookAt((wfVec3){c[0], c[1], c[2]}, (wfVec3){c[3], c[4], c[5]}, c[6]);
	}
	if (o->render.videoPath != NULL) {
		int code = OpenVideo(o, sim, r);
		if (code != CLI_EXIT_OK) {
			Free(r);
			return code;
		}
	}
	*out = r;
	return CLI_EXIT_OK;
}

int CliRenderFrame(CliRenderOut* r, const CliSim* sim, int frame)
{
	if (r == NULL || frame % r->every != 0)
		return CLI_EXIT_OK;
	char error[CLI_PATH_MAX + 256];
	int size = r->width * r->height * 4;
	if (wfRenderer_DrawWorld(r->renderer, sim->world, sim->cloths, sim->clothCount, &r->camera) != WF_OK ||
		wfRenderer_ReadPixels(r->renderer, r->rgba, size) != WF_OK) {
		fprintf(stderr, "weft run: frame %d: rendering failed: %s\n", frame, wfRenderer_GetLastError(r->renderer));
		return CLI_EXIT_RUNTIME;
	}
	if (r->pngDir != NULL) {
		char path[CLI_PATH_MAX];
		snprintf(path, sizeof path, "%s/frame_%04d.png", r->pngDir, frame);
		if (wfWritePng(path, r->rgba, r->width, r->height, error, sizeof error) != WF_OK) {
			fprintf(stderr, "weft run: --png: %s\n", error);
			return CLI_EXIT_RUNTIME;
		}
		r->pngCount++;
	}
	if (r->video != NULL) {
		if (wfVideoWrite(r->video, r->rgba) != WF_OK) {
			fprintf(stderr, "weft run: --video: ffmpeg stopped taking frames at frame %d\n", frame);
			return CLI_EXIT_RUNTIME;
		}
		r->videoFrames++;
	}
	return CLI_EXIT_OK;
}

// ", " before an item of the kept list unless it is the first.
static void AppendKept(char* kept, size_t size, const char* fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 3, 4)))
#endif
	;

static void AppendKept(char* kept, size_t size, const char* fmt, ...)
{
	size_t used = strlen(kept);
	if (size == 0 || used + 3 >= size)
		return;
	if (used > 0) {
		strcpy(kept + used, ", ");
		used += 2;
	}
	va_list args;
	va_start(args, fmt);
	vsnprintf(kept + used, size - used, fmt, args);
	va_end(args);
}

int CliRenderClose(CliRenderOut* r, bool keep, bool quiet, char* kept, size_t keptSize)
{
	if (r == NULL)
		return CLI_EXIT_OK;
	int code = r->videoFailed ? CLI_EXIT_RUNTIME : CLI_EXIT_OK;
	// With WEFT_VK_VALIDATION=1 a validation message is a failure of the run.
	int validation = wfRenderer_GetValidationCount(r->renderer);
	if (validation > 0) {
		fprintf(stderr, "weft run: the renderer saw %d Vulkan validation message%s\n", validation, validation == 1 ? "" : "s");
		code = CLI_EXIT_RUNTIME;
	}
	if (r->video != NULL) {
		char error[CLI_PATH_MAX + 256];
		wfVideo* video = r->video;
		r->video = NULL;
		if (!keep || r->videoFrames == 0) {
			wfDestroyVideo(video);
		} else if (wfVideoClose(video, error, sizeof error) != WF_OK) {
			fprintf(stderr, "weft run: --video: %s\n", error);
			code = CLI_EXIT_RUNTIME;
		} else {
			AppendKept(kept, keptSize, "video of %d frame%s in %s", r->videoFrames, r->videoFrames == 1 ? "" : "s", r->videoPath);
			if (!quiet)
				printf("weft run: wrote %s (%d frames, %dx%d, H.264)\n", r->videoPath, r->videoFrames, r->width, r->height);
		}
	}
	if (r->pngDir != NULL && r->pngCount > 0)
		AppendKept(kept, keptSize, "%d PNG file%s in %s", r->pngCount, r->pngCount == 1 ? "" : "s", r->pngDir);
	if (r->pngDir != NULL && !quiet)
		printf("weft run: wrote %d PNG files (%dx%d) to %s\n", r->pngCount, r->width, r->height, r->pngDir);
	Free(r);
	return code;
}
