// weft_render_bench: renders frames of a preset headless and reports the time per frame; optionally
// writes the frames as PNGs (for machines without ffmpeg) or straight into an MP4.
//
//   weft_render_bench [--preset NAME] [--frames N] [--size WxH] [--msaa N] [--backend cpu|vulkan]
//                     [--mode texture|speed|strain] [--view cloth|nodes|both] [--wireframe] [--png DIR]
//                     [--video FILE.mp4]
//                     [--grid COLSxROWS] [--share]
//
// --share gives the renderer the world (wfRendererDef.world): on the Vulkan backend it then draws
// from the solver's buffers on the world's device instead of reading the cloth back and uploading it.
//
// The time per frame covers wfRenderer_DrawWorld (read-back of the cloth through the public API and
// upload, or nothing of the kind with --share on Vulkan; draw, resolve, copy to the host) and wfRenderer_ReadPixels, not the simulation step or
// the PNG encoding, which are reported separately.
#define _POSIX_C_SOURCE 200809L
#include "weft/render.h"
#include "weft_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static double Now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int CompareDoubles(const void* a, const void* b)
{
	double x = *(const double*)a, y = *(const double*)b;
	return (x > y) - (x < y);
}

static int Usage(void)
{
	fprintf(stderr,
		"usage: weft_render_bench [--preset NAME] [--frames N] [--size WxH] [--msaa N] [--backend cpu|vulkan]\n"
		"                         [--mode texture|speed|strain] [--view cloth|nodes|both] [--wireframe] [--png DIR]\n"
		"                         [--video FILE.mp4]\n"
		"                         [--grid COLSxROWS] [--share]\n");
	return 2;
}

int main(int argc, char** argv)
{
	const char* preset = "compute-cloth";
	const char* pngDir = NULL;
	const char* videoPath = NULL;
	int frames = 60, width = 1920, height = 1080, msaa = 4;
	wfBackendType backend = WF_BACKEND_CPU;
	wfColorMode mode = WF_COLOR_TEXTURE;
	wfViewMode view = WF_VIEW_CLOTH;
	bool wireframe = false, share = false;
	int cols = 0, rows = 0;
	for (int i = 1; i < argc; ++i) {
		const char* a = argv[i];
		const char* v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--wireframe") == 0 || strcmp(a, "--share") == 0) {
			wireframe = wireframe || strcmp(a, "--wireframe") == 0;
			share = share || strcmp(a, "--share") == 0;
			continue;
		}
		if (v == NULL)
			return Usage();
		i++;
		if (strcmp(a, "--preset") == 0)
			preset = v;
		else if (strcmp(a, "--frames") == 0)
			frames = atoi(v);
		else if (strcmp(a, "--size") == 0) {
			if (sscanf(v, "%dx%d", &width, &height) != 2)
				return Usage();
		} else if (strcmp(a, "--grid") == 0) {
			if (sscanf(v, "%dx%d", &cols, &rows) != 2)
				return Usage();
		} else if (strcmp(a, "--msaa") == 0)
			msaa = atoi(v);
		else if (strcmp(a, "--backend") == 0) {
			if (!wfBackendFromName(v, &backend))
				return Usage();
		} else if (strcmp(a, "--mode") == 0) {
			if (!wfColorModeFromName(v, &mode))
				return Usage();
		} else if (strcmp(a, "--view") == 0) {
			if (!wfViewModeFromName(v, &view))
				return Usage();
		} else if (strcmp(a, "--png") == 0)
			pngDir = v;
		else if (strcmp(a, "--video") == 0)
			videoPath = v;
		else
			return Usage();
	}
	if (frames < 1)
		return Usage();

	wfWorldDef wd;
	wfClothDef cd;
	if (!wfPresetGet(preset, &wd, &cd)) {
		fprintf(stderr, "unknown preset %s\n", preset);
		return 1;
	}
	wd.backend = backend;
	if (cols > 0) {
		cd.cols = cols;
		cd.rows = rows;
	}
	char error[512];
	wfEnvApplyToWorldDef(&wd);
	wfWorld* world = wfCreateWorld(&wd, error, sizeof error);
	if (world == NULL) {
		fprintf(stderr, "world: %s\n", error);
		return 1;
	}
	wfClothId cloth = wfCreateCloth(world, &cd);
	wfRendererDef rd = wfDefaultRendererDef();
	rd.width = width;
	rd.height = height;
	rd.msaaSamples = msaa;
	rd.colorMode = mode;
	rd.view = view;
	rd.wireframe = wireframe;
	rd.world = share ? world : NULL;
	double t0 = Now();
	wfEnvApplyToRendererDef(&rd);
	wfRenderer* renderer = wfCreateRenderer(&rd, error, sizeof error);
	if (renderer == NULL) {
		fprintf(stderr, "%s\n", error);
		wfDestroyWorld(world);
		return 1;
	}
	double createTime = Now() - t0;
	wfVideo* video = NULL;
	if (videoPath != NULL && (video = wfVideoOpen(videoPath, width, height, 30, error, sizeof error)) == NULL)
		fprintf(stderr, "%s (continuing without video)\n", error);
	if (pngDir != NULL)
		mkdir(pngDir, 0777);
	size_t bytes = (size_t)width * (size_t)height * 4;
	uint8_t* rgba = malloc(bytes);
	wfCamera camera = wfDefaultCameraForPreset(preset);
	double renderTime = 0.0, stepTime = 0.0, pngTime = 0.0, first = 0.0;
	double* times = malloc(sizeof(double) * (size_t)frames); // render + read-back of each frame
	int status = 0;
	for (int f = 0; f < frames && status == 0; ++f) {
		double a = Now();
		if (wfRenderer_DrawWorld(renderer, world, &cloth, 1, &camera) != WF_OK ||
			wfRenderer_ReadPixels(renderer, rgba, (int)bytes) != WF_OK) {
			fprintf(stderr, "frame %d: %s\n", f, wfRenderer_GetLastError(renderer));
			status = 1;
			break;
		}
		double b = Now();
		if (times != NULL)
			times[f] = b - a;
		if (f == 0)
			first = b - a;
		else
			renderTime += b - a;
		if (pngDir != NULL) {
			char path[1024];
			snprintf(path, sizeof path, "%s/frame_%05d.png", pngDir, f);
			if (wfWritePng(path, rgba, width, height, error, sizeof error) != WF_OK) {
				fprintf(stderr, "%s\n", error);
				status = 1;
			}
		}
		if (video != NULL && wfVideoWrite(video, rgba) != WF_OK)
			status = 1;
		double c = Now();
		pngTime += c - b;
		if (wfWorld_Step(world) != WF_OK)
			status = 1;
		stepTime += Now() - c;
	}
	if (video != NULL && wfVideoClose(video, error, sizeof error) != WF_OK) {
		fprintf(stderr, "%s\n", error);
		status = 1;
	}
	printf("%s %dx%d, %dx MSAA on %s (simulation: %s on %s)\n", preset, width, height, wfRenderer_GetDef(renderer).msaaSamples,
		wfRenderer_GetDeviceName(renderer), wfBackendName(wfWorld_GetBackend(world)),
		wfWorld_GetDeviceName(world) != NULL ? wfWorld_GetDeviceName(world) : "cpu");
	// The median of the frames after the first (which creates the cloth's cache) and the mean.
	double median = first;
	if (times != NULL && frames > 1) {
		qsort(times + 1, (size_t)(frames - 1), sizeof(double), CompareDoubles);
		median = times[1 + (frames - 1) / 2];
	}
	printf("renderer creation %.1f ms; first frame %.1f ms; render + read-back median %.2f ms/frame (mean %.2f) over %d frames\n",
		createTime * 1e3, first * 1e3, median * 1e3, frames > 1 ? renderTime * 1e3 / (frames - 1) : first * 1e3, frames - 1);
	printf("cloth drawn from the solver's buffers: %s (%d cloths); %lld bytes of cloth state uploaded in the last frame\n",
		wfRenderer_SharesWorldDevice(renderer) ? "yes" : "no", wfRenderer_GetZeroCopyCloths(renderer),
		(long long)wfRenderer_GetUploadBytes(renderer));
	printf("simulation step %.2f ms/frame; png/video output %.2f ms/frame\n", stepTime * 1e3 / frames, pngTime * 1e3 / frames);
	if (wfRenderer_GetValidationCount(renderer) > 0) {
		printf("%d validation messages\n", wfRenderer_GetValidationCount(renderer));
		status = 1;
	}
	free(times);
	free(rgba);
	wfDestroyRenderer(renderer);
	wfDestroyWorld(world);
	return status;
}
