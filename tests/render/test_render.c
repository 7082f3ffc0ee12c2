// Renderer tests: golden images of each preset, coverage of the cloth, the sphere's silhouette radius,
// video output and a clean validation log. Run on lavapipe in CI with WEFT_VK_VALIDATION=1.
//
// Regenerate the golden images (after an intended change of the look):
//   WEFT_UPDATE_GOLDEN=1 ctest --test-dir build -R render_golden
// Every test also writes what it rendered to render_out/ in the build folder, for a look.
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700
#include "test.h"
#include "weft/render.h"

#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "weft_env.h"

// wfCreateRenderer with the environment's switches (WEFT_VK_DEVICE, WEFT_VK_VALIDATION), as the
// tools apply them: ctest sets them per test, the library reads none.
static wfRenderer* TestRenderer(const wfRendererDef* def, char* error, int errorSize)
{
	wfRendererDef d = *def;
	wfEnvApplyToRendererDef(&d);
	return wfCreateRenderer(&d, error, errorSize);
}

#define W 160
#define H 120
#define PI 3.14159265358979

// Fails the test when the renderer's validation layer complained.
#define ENSURE_NO_VALIDATION(r) \
	do { \
		int wf_v = wfRenderer_GetValidationCount(r); \
		if (wf_v != 0) { \
			fprintf(stderr, "  FAILED %d validation messages\n", wf_v); \
			return 1; \
		} \
	} while (0)

static wfRenderer* MakeRenderer(int width, int height)
{
	wfRendererDef def = wfDefaultRendererDef();
	def.width = width;
	def.height = height;
	char error[512];
	wfRenderer* r = TestRenderer(&def, error, sizeof error);
	if (r == NULL)
		fprintf(stderr, "  wfCreateRenderer: %s\n", error);
	else
		fprintf(stderr, "  device: %s, %dx MSAA, validation %s\n", wfRenderer_GetDeviceName(r), wfRenderer_GetDef(r).msaaSamples,
			wfRenderer_GetDef(r).validation ? "on" : "off");
	return r;
}

static void SaveOutput(const char* name, const uint8_t* rgba, int width, int height)
{
	mkdir("render_out", 0777);
	char path[256], error[256];
	snprintf(path, sizeof path, "render_out/%s.png", name);
	if (wfWritePng(path, rgba, width, height, error, sizeof error) != WF_OK)
		fprintf(stderr, "  (could not save %s: %s)\n", path, error);
}

static uint8_t* ReadPng(const char* path, int* width, int* height)
{
	png_image image;
	memset(&image, 0, sizeof image);
	image.version = PNG_IMAGE_VERSION;
	if (!png_image_begin_read_from_file(&image, path))
		return NULL;
	image.format = PNG_FORMAT_RGBA;
	uint8_t* pixels = malloc(PNG_IMAGE_SIZE(image));
	if (pixels == NULL || !png_image_finish_read(&image, NULL, pixels, 0, NULL)) {
		free(pixels);
		png_image_free(&image);
		return NULL;
	}
	*width = (int)image.width;
	*height = (int)image.height;
	return pixels;
}

// Peak signal-to-noise ratio over the RGB channels, in dB (99 for identical images).
static double Psnr(const uint8_t* a, const uint8_t* b, int pixels)
{
	double sum = 0.0;
	for (int i = 0; i < pixels; ++i) {
		for (int c = 0; c < 3; ++c) {
			double d = (double)a[i * 4 + c] - (double)b[i * 4 + c];
			sum += d * d;
		}
	}
	double mse = sum / (pixels * 3.0);
	return mse <= 0.0 ? 99.0 : 10.0 * log10(255.0 * 255.0 / mse);
}

// A pixel differs from the background when any channel is more than `threshold` away.
static bool IsForeground(const uint8_t* px, const uint8_t bg[3], int threshold)
{
	for (int c = 0; c < 3; ++c) {
		if (abs((int)px[c] - (int)bg[c]) > threshold)
			return true;
	}
	return false;
}

static void BackgroundBytes(uint8_t out[3])
{
	wfRendererDef d = wfDefaultRendererDef();
	for (int c = 0; c < 3; ++c)
		out[c] = (uint8_t)(d.background[c] * 255.0f + 0.5f);
}

// Runs a preset for `frames` frames on the CPU and renders it with the preset's camera.
static int RenderPreset(wfRenderer* r, const char* preset, int frames, uint8_t* rgba)
{
	wfWorldDef wd;
	wfClothDef cd;
	ENSURE(wfPresetGet(preset, &wd, &cd));
	wd.backend = WF_BACKEND_CPU;
	char error[256];
	wfWorld* world = wfTestCreateWorld(&wd, error, sizeof error);
	ENSURE(world != NULL);
	wfClothId cloth = wfCreateCloth(world, &cd);
	ENSURE(!wfClothId_IsNull(cloth));
	for (int f = 0; f < frames; ++f)
		ENSURE(wfWorld_Step(world) == WF_OK);
	wfCamera camera = wfDefaultCameraForPreset(preset);
	wfResult res = wfRenderer_DrawWorld(r, world, &cloth, 1, &camera);
	if (res != WF_OK)
		fprintf(stderr, "  DrawWorld: %s\n", wfRenderer_GetLastError(r));
	ENSURE(res == WF_OK);
	ENSURE(wfRenderer_ReadPixels(r, rgba, wfRenderer_GetDef(r).width * wfRenderer_GetDef(r).height * 4) == WF_OK);
	wfDestroyWorld(world);
	return 0;
}

// Renders frame 20 of a preset at 160x120 and compares it with tests/render/golden/<preset>.png.
static int Golden(const char* preset)
{
	wfRenderer* r = MakeRenderer(W, H);
	ENSURE(r != NULL);
	static uint8_t rgba[W * H * 4];
	if (RenderPreset(r, preset, 20, rgba) != 0)
		return 1;
	ENSURE_NO_VALIDATION(r);
	wfDestroyRenderer(r);
	SaveOutput(preset, rgba, W, H);

	char path[1024], error[256];
	snprintf(path, sizeof path, "%s/%s.png", WEFT_RENDER_GOLDEN_DIR, preset);
	const char* update = getenv("WEFT_UPDATE_GOLDEN");
	if (update != NULL && strcmp(update, "1") == 0) {
		ENSURE(wfWritePng(path, rgba, W, H, error, sizeof error) == WF_OK);
		fprintf(stderr, "  updated %s\n", path);
	}
	int gw = 0, gh = 0;
	uint8_t* golden = ReadPng(path, &gw, &gh);
	if (golden == NULL)
		fprintf(stderr, "  no golden image %s (WEFT_UPDATE_GOLDEN=1 writes it)\n", path);
	ENSURE(golden != NULL);
	ENSURE(gw == W && gh == H);
	double psnr = Psnr(rgba, golden, W * H);
	free(golden);
	fprintf(stderr, "  PSNR against %s: %.1f dB (>= 35)\n", path, psnr);
	ENSURE(psnr >= 35.0);
	return 0;
}

// The presets' views frame their cloth (the compute-cloth sheet settled over the sphere filled 5 % of
// the document's view) and, without a floor of their own, stand on a ground: frame 300 at 160x90.
WF_TEST(render_preset_views_frame_the_cloth)
{
	enum { VW = 160, VH = 90 };
	static uint8_t rgba[VW * VH * 4];
	uint8_t bg[3];
	BackgroundBytes(bg);
	const char* presets[] = {"compute-cloth", "spring-mesh"};
	for (int p = 0; p < 2; ++p) {
		for (int ground = 0; ground < 2; ++ground) {
			wfRendererDef def = wfDefaultRendererDef();
			def.width = VW;
			def.height = VH;
			def.showSphere = false; // count the cloth's pixels only
			def.showGround = ground == 1 && wfDefaultGroundForPreset(presets[p], &def.groundHeight);
			ENSURE(def.showGround == (ground == 1));
			wfRenderer* r = TestRenderer(&def, NULL, 0);
			ENSURE(r != NULL);
			if (RenderPreset(r, presets[p], 300, rgba) != 0)
				return 1;
			ENSURE_NO_VALIDATION(r);
			wfDestroyRenderer(r);
			int covered = 0, edge = 0, bottomRow = 0;
			for (int y = 0; y < VH; ++y) {
				for (int x = 0; x < VW; ++x) {
					bool fg = IsForeground(rgba + 4 * (y * VW + x), bg, 12);
					covered += fg;
					edge += fg && (x == 0 || x == VW - 1 || y == 0 || y == VH - 1);
					bottomRow += fg && y == VH - 1;
				}
			}
			double share = (double)covered / (VW * VH);
			fprintf(stderr, "  %s, ground %s: %.1f %% of the picture, %d edge pixels, %d of the bottom row\n", presets[p],
				ground ? "on" : "off", 100.0 * share, edge, bottomRow);
			if (ground == 0) {
				ENSURE(share >= 0.10 && share <= 0.7); // the cloth fills the view (the old compute-cloth view: 4.8 %, now 13.9 %) ...
				ENSURE(edge == 0);                     // ... and all of it is inside
			} else {
				ENSURE(bottomRow == VW); // the ground reaches the bottom of the picture
			}
		}
	}
	return 0;
}

WF_TEST(render_golden_xpbd) { return Golden("xpbd"); }
WF_TEST(render_golden_compute_cloth) { return Golden("compute-cloth"); }
WF_TEST(render_golden_spring_mesh) { return Golden("spring-mesh"); }

// World -> pixel with the camera's own definition (orbit eye, y-up look-at, vertical fov), written out
// independently of the renderer.
static void Project(const wfCamera* cam, wfVec3 p, int width, int height, double* px, double* py)
{
	wfVec3 eye = wfCamera_GetEye(cam);
	double f[3] = {cam->target.x - eye.x, cam->target.y - eye.y, cam->target.z - eye.z};
	double fl = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
	for (int i = 0; i < 3; ++i)
		f[i] /= fl;
	double s[3] = {-f[2], 0.0, f[0]}; // f x (0, 1, 0)
	double sl = sqrt(s[0] * s[0] + s[2] * s[2]);
	s[0] /= sl;
	s[2] /= sl;
	double u[3] = {s[1] * f[2] - s[2] * f[1], s[2] * f[0] - s[0] * f[2], s[0] * f[1] - s[1] * f[0]};
	double d[3] = {p.x - eye.x, p.y - eye.y, p.z - eye.z};
	double x = d[0] * s[0] + d[1] * s[1] + d[2] * s[2];
	double y = d[0] * u[0] + d[1] * u[1] + d[2] * u[2];
	double z = d[0] * f[0] + d[1] * f[1] + d[2] * f[2];
	double g = 1.0 / tan(cam->fov * PI / 360.0);
	double aspect = (double)width / height;
	*px = (g * x / z / aspect * 0.5 + 0.5) * width;
	*py = (0.5 - g * y / z * 0.5) * height;
}

// Signed distance (pixels) from q to the convex polygon's edges; positive inside (either winding).
static double InsideDistance(const double (*poly)[2], int n, double qx, double qy)
{
	double area = 0.0;
	for (int i = 0; i < n; ++i)
		area += poly[i][0] * poly[(i + 1) % n][1] - poly[(i + 1) % n][0] * poly[i][1];
	double sign = area > 0.0 ? 1.0 : -1.0;
	double best = 1e30;
	for (int i = 0; i < n; ++i) {
		const double* a = poly[i];
		const double* b = poly[(i + 1) % n];
		double ex = b[0] - a[0], ey = b[1] - a[1];
		double len = sqrt(ex * ex + ey * ey);
		double dist = sign * (ex * (qy - a[1]) - ey * (qx - a[0])) / len;
		if (dist < best)
			best = dist;
	}
	return best;
}

// A flat cloth (compute-cloth's 5x5 sheet at y = 2, not yet stepped) fills exactly its projected quad.
WF_TEST(render_cloth_covers_its_region)
{
	wfWorldDef wd;
	wfClothDef cd;
	ENSURE(wfPresetGet("compute-cloth", &wd, &cd));
	wd.backend = WF_BACKEND_CPU;
	wd.sphere.enabled = false;
	wfWorld* world = wfTestCreateWorld(&wd, NULL, 0);
	ENSURE(world != NULL);
	wfClothId cloth = wfCreateCloth(world, &cd);
	ENSURE(!wfClothId_IsNull(cloth));
	wfRenderer* r = MakeRenderer(W, H);
	ENSURE(r != NULL);
	wfCamera cam = wfCameraLookAt((wfVec3){2.0f, 8.5f, 5.0f}, (wfVec3){0.0f, 2.0f, 0.0f}, 60.0f);
	static uint8_t rgba[W * H * 4];
	ENSURE(wfRenderer_DrawWorld(r, world, &cloth, 1, &cam) == WF_OK);
	ENSURE(wfRenderer_ReadPixels(r, rgba, sizeof rgba) == WF_OK);
	ENSURE_NO_VALIDATION(r);
	SaveOutput("cloth_region", rgba, W, H);

	double quad[4][2];
	const wfVec3 corners[4] = {{-2.5f, 2.0f, -2.5f}, {2.5f, 2.0f, -2.5f}, {2.5f, 2.0f, 2.5f}, {-2.5f, 2.0f, 2.5f}};
	for (int i = 0; i < 4; ++i)
		Project(&cam, corners[i], W, H, &quad[i][0], &quad[i][1]);
	uint8_t bg[3];
	BackgroundBytes(bg);
	int inside = 0, insideCovered = 0, outside = 0, outsideCovered = 0, covered = 0;
	for (int y = 0; y < H; ++y) {
		for (int x = 0; x < W; ++x) {
			bool fg = IsForeground(rgba + (y * W + x) * 4, bg, 8);
			covered += fg;
			double d = InsideDistance((const double(*)[2])quad, 4, x + 0.5, y + 0.5);
			if (d > 1.5) {
				inside++;
				insideCovered += fg;
			} else if (d < -1.5) {
				outside++;
				outsideCovered += fg;
			}
		}
	}
	fprintf(stderr, "  covered %d of %d pixels; inside the quad %d of %d, outside %d of %d\n", covered, W * H, insideCovered, inside,
		outsideCovered, outside);
	ENSURE(inside > W * H / 10);     // the cloth is a sizeable part of the frame
	ENSURE(insideCovered == inside); // not blank, no holes
	ENSURE(outsideCovered == 0);     // nothing outside the sheet
	wfDestroyRenderer(r);
	wfDestroyWorld(world);
	return 0;
}

// The sphere is drawn at its collision radius: its silhouette radius in pixels matches the projection
// of that radius (on the view axis: h/2 * tan(asin(r / d)) / tan(fov / 2)) within 2 px, for two radii.
WF_TEST(render_sphere_silhouette_radius)
{
	const float radii[2] = {0.45f, 1.3f};
	wfRenderer* r = MakeRenderer(W, H);
	ENSURE(r != NULL);
	uint8_t bg[3];
	BackgroundBytes(bg);
	static uint8_t rgba[W * H * 4];
	for (int k = 0; k < 2; ++k) {
		wfWorldDef wd = wfDefaultWorldDef();
		wd.backend = WF_BACKEND_CPU;
		wd.sphere.enabled = true;
		wd.sphere.center = (wfVec3){0.3f, -0.2f, 0.1f};
		wd.sphere.radius = radii[k];
		wd.floor.enabled = false;
		wfWorld* world = wfTestCreateWorld(&wd, NULL, 0);
		ENSURE(world != NULL);
		wfCamera cam = wfCameraLookAt((wfVec3){3.3f, 1.3f, 4.1f}, wd.sphere.center, 60.0f);
		ENSURE(wfRenderer_DrawWorld(r, world, NULL, 0, &cam) == WF_OK);
		ENSURE(wfRenderer_ReadPixels(r, rgba, sizeof rgba) == WF_OK);
		SaveOutput(k == 0 ? "sphere_small" : "sphere_large", rgba, W, H);
		// Area of the silhouette (partly covered edge pixels count by threshold) and the widths through the centre.
		int area = 0, left = W, right = -1, top = H, bottom = -1;
		for (int y = 0; y < H; ++y) {
			for (int x = 0; x < W; ++x) {
				bool fg = IsForeground(rgba + (y * W + x) * 4, bg, 24);
				area += fg;
				if (fg && y == H / 2) {
					left = x < left ? x : left;
					right = x > right ? x : right;
				}
				if (fg && x == W / 2) {
					top = y < top ? y : top;
					bottom = y > bottom ? y : bottom;
				}
			}
		}
		int row = right - left + 1, column = bottom - top + 1;
		double expected = (H / 2.0) * tan(asin(radii[k] / cam.distance)) / tan(cam.fov * PI / 360.0);
		fprintf(stderr, "  radius %.2f m at %.2f m:\n", (double)radii[k], (double)cam.distance);
		ENSURE_NEAR(sqrt(area / PI), expected, 2.0);
		ENSURE_NEAR(row / 2.0, expected, 2.0);
		ENSURE_NEAR(column / 2.0, expected, 2.0);
		wfDestroyWorld(world);
	}
	ENSURE_NO_VALIDATION(r);
	wfDestroyRenderer(r);
	return 0;
}

// Every style (speed, strain, wireframe, pins, no MSAA) renders something without a validation message.
WF_TEST(render_styles_are_valid)
{
	static uint8_t rgba[W * H * 4];
	const int samples[2] = {4, 1};
	for (int s = 0; s < 2; ++s) {
		wfRendererDef def = wfDefaultRendererDef();
		def.width = W;
		def.height = H;
		def.msaaSamples = samples[s];
		wfRenderer* r = TestRenderer(&def, NULL, 0);
		ENSURE(r != NULL);
		const wfColorMode modes[3] = {WF_COLOR_SPEED, WF_COLOR_STRAIN, WF_COLOR_TEXTURE};
		for (int m = 0; m < 3; ++m) {
			wfRenderer_SetStyle(r, modes[m], m == 2, true);
			if (RenderPreset(r, "spring-mesh", 10, rgba) != 0)
				return 1;
			char name[64];
			snprintf(name, sizeof name, "style_%d_%dx", m, samples[s]);
			SaveOutput(name, rgba, W, H);
			uint8_t bg[3];
			BackgroundBytes(bg);
			int fg = 0;
			for (int i = 0; i < W * H; ++i)
				fg += IsForeground(rgba + i * 4, bg, 8);
			ENSURE(fg > W * H / 20);
		}
		ENSURE_NO_VALIDATION(r);
		wfDestroyRenderer(r);
	}
	return 0;
}

// A bad def is refused with the field's name; colour-mode names round-trip; a PNG round-trips exactly.
WF_TEST(render_def_and_png)
{
	wfRendererDef def = wfDefaultRendererDef();
	def.msaaSamples = 3;
	char error[256] = "";
	ENSURE(TestRenderer(&def, error, sizeof error) == NULL);
	fprintf(stderr, "  %s\n", error);
	ENSURE(strstr(error, "msaaSamples") != NULL);

	wfColorMode mode = WF_COLOR_TEXTURE;
	ENSURE(wfColorModeFromName("strain", &mode) && mode == WF_COLOR_STRAIN);
	ENSURE(strcmp(wfColorModeName(WF_COLOR_SPEED), "speed") == 0);
	ENSURE(!wfColorModeFromName("plaid", &mode));

	static uint8_t rgba[7 * 5 * 4];
	for (int i = 0; i < (int)sizeof rgba; ++i)
		rgba[i] = (uint8_t)(i * 37 + 11);
	mkdir("render_out", 0777);
	ENSURE(wfWritePng("render_out/roundtrip.png", rgba, 7, 5, error, sizeof error) == WF_OK);
	int w = 0, h = 0;
	uint8_t* back = ReadPng("render_out/roundtrip.png", &w, &h);
	ENSURE(back != NULL && w == 7 && h == 5);
	ENSURE(memcmp(back, rgba, sizeof rgba) == 0);
	free(back);
	ENSURE(wfWritePng("/nonexistent-dir/x.png", rgba, 7, 5, error, sizeof error) == WF_ERROR_IO);
	fprintf(stderr, "  %s\n", error);
	return 0;
}

// 30 frames through wfVideoOpen make an MP4 that ffprobe counts as 30 frames of 160x120.
WF_TEST(render_video_30_frames)
{
	if (!wfVideoAvailable() || system("ffprobe -version > /dev/null 2>&1") != 0) {
		fprintf(stderr, "  SKIPPED: ffmpeg or ffprobe is not installed\n");
		return 0;
	}
	wfWorldDef wd;
	wfClothDef cd;
	ENSURE(wfPresetGet("xpbd", &wd, &cd));
	wd.backend = WF_BACKEND_CPU;
	wfWorld* world = wfTestCreateWorld(&wd, NULL, 0);
	ENSURE(world != NULL);
	wfClothId cloth = wfCreateCloth(world, &cd);
	wfRenderer* r = MakeRenderer(W, H);
	ENSURE(r != NULL);
	wfCamera cam = wfDefaultCameraForPreset("xpbd");
	mkdir("render_out", 0777);
	const char* path = "render_out/video.mp4";
	remove(path);
	char error[256];
	wfVideo* video = wfVideoOpen(path, W, H, 30, error, sizeof error);
	if (video == NULL)
		fprintf(stderr, "  %s\n", error);
	ENSURE(video != NULL);
	static uint8_t rgba[W * H * 4];
	for (int f = 0; f < 30; ++f) {
		ENSURE(wfRenderer_DrawWorld(r, world, &cloth, 1, &cam) == WF_OK);
		ENSURE(wfRenderer_ReadPixels(r, rgba, sizeof rgba) == WF_OK);
		ENSURE(wfVideoWrite(video, rgba) == WF_OK);
		ENSURE(wfWorld_Step(world) == WF_OK);
	}
	ENSURE(wfVideoClose(video, error, sizeof error) == WF_OK);
	ENSURE_NO_VALIDATION(r);
	wfDestroyRenderer(r);
	wfDestroyWorld(world);

	FILE* probe = popen("ffprobe -v error -count_frames -select_streams v:0 "
						"-show_entries stream=width,height,nb_read_frames -of csv=p=0 render_out/video.mp4",
		"r");
	ENSURE(probe != NULL);
	int w = 0, h = 0, frames = 0;
	int fields = fscanf(probe, "%d,%d,%d", &w, &h, &frames);
	pclose(probe);
	fprintf(stderr, "  ffprobe: %dx%d, %d frames\n", w, h, frames);
	ENSURE(fields == 3);
	ENSURE(w == W && h == H);
	ENSURE(frames == 30);
	return 0;
}

// Signed strain: a flat sheet drawn once at rest, then stretched by 4 % is red, compressed by 4 % is blue.
WF_TEST(render_strain_colours_are_signed)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = WF_BACKEND_CPU;
	wd.floor.enabled = false;
	wfWorld* world = wfTestCreateWorld(&wd, NULL, 0);
	ENSURE(world != NULL);
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = 20;
	cd.rows = 20;
	cd.width = 2.0f;
	cd.height = 2.0f;
	cd.orientation = WF_ORIENT_HORIZONTAL;
	cd.origin = (wfVec3){0.0f, 0.0f, 0.0f};
	wfClothId cloth = wfCreateCloth(world, &cd);
	ENSURE(!wfClothId_IsNull(cloth));
	wfRendererDef def = wfDefaultRendererDef();
	def.width = W;
	def.height = H;
	def.colorMode = WF_COLOR_STRAIN;
	def.strainScale = 0.05f;
	wfRenderer* r = TestRenderer(&def, NULL, 0);
	ENSURE(r != NULL);
	wfCamera cam = wfCameraLookAt((wfVec3){0.0f, 4.0f, 0.5f}, (wfVec3){0.0f, 0.0f, 0.0f}, 50.0f);
	static uint8_t rgba[W * H * 4];
	ENSURE(wfRenderer_DrawWorld(r, world, &cloth, 1, &cam) == WF_OK); // the rest shape

	static wfVec3 rest[400], moved[400];
	ENSURE(wfCloth_ReadPositions(cloth, rest, 400) == WF_OK);
	const float scales[2] = {1.04f, 0.96f};
	for (int k = 0; k < 2; ++k) {
		for (int i = 0; i < 400; ++i)
			moved[i] = (wfVec3){rest[i].x * scales[k], rest[i].y, rest[i].z * scales[k]};
		ENSURE(wfCloth_WritePositions(cloth, moved, 400) == WF_OK);
		ENSURE(wfRenderer_DrawWorld(r, world, &cloth, 1, &cam) == WF_OK);
		ENSURE(wfRenderer_ReadPixels(r, rgba, sizeof rgba) == WF_OK);
		SaveOutput(k == 0 ? "strain_stretched" : "strain_compressed", rgba, W, H);
		const uint8_t* centre = rgba + ((H / 2) * W + W / 2) * 4;
		fprintf(stderr, "  scale %.2f: centre pixel %d %d %d\n", (double)scales[k], centre[0], centre[1], centre[2]);
		if (k == 0)
			ENSURE(centre[0] > centre[2] + 60 && centre[0] > centre[1] + 60);
		else
			ENSURE(centre[2] > centre[0] + 60 && centre[2] > centre[1] + 30);
	}
	ENSURE_NO_VALIDATION(r);
	wfDestroyRenderer(r);
	wfDestroyWorld(world);
	return 0;
}

// The picture does not depend on the backend: frame 20 of each preset simulated on the Vulkan backend
// renders within 35 dB of the CPU's. Skipped when there is no Vulkan backend or device.
WF_TEST(render_same_image_cpu_and_vulkan)
{
	static uint8_t cpu[W * H * 4], gpu[W * H * 4];
	wfRenderer* r = MakeRenderer(W, H);
	ENSURE(r != NULL);
	const char* presets[3] = {"xpbd", "compute-cloth", "spring-mesh"};
	for (int p = 0; p < 3; ++p) {
		wfWorldDef wd;
		wfClothDef cd;
		ENSURE(wfPresetGet(presets[p], &wd, &cd));
		wd.backend = WF_BACKEND_VULKAN;
		char error[256];
		wfWorld* world = wfTestCreateWorld(&wd, error, sizeof error);
		if (world == NULL) {
			wd.deviceName = "llvmpipe";
			world = wfTestCreateWorld(&wd, error, sizeof error);
		}
		if (world == NULL) {
			fprintf(stderr, "  SKIPPED: no Vulkan backend: %s\n", error);
			wfDestroyRenderer(r);
			return 0;
		}
		wfClothId cloth = wfCreateCloth(world, &cd);
		ENSURE(!wfClothId_IsNull(cloth));
		for (int f = 0; f < 20; ++f)
			ENSURE(wfWorld_Step(world) == WF_OK);
		wfCamera cam = wfDefaultCameraForPreset(presets[p]);
		ENSURE(wfRenderer_DrawWorld(r, world, &cloth, 1, &cam) == WF_OK);
		ENSURE(wfRenderer_ReadPixels(r, gpu, sizeof gpu) == WF_OK);
		char device[256];
		snprintf(device, sizeof device, "%s", wfWorld_GetDeviceName(world) != NULL ? wfWorld_GetDeviceName(world) : "?");
		wfDestroyWorld(world);
		if (RenderPreset(r, presets[p], 20, cpu) != 0)
			return 1;
		char name[64];
		snprintf(name, sizeof name, "vulkan_%s", presets[p]);
		SaveOutput(name, gpu, W, H);
		double psnr = Psnr(cpu, gpu, W * H);
		fprintf(stderr, "  %s simulated on %s: PSNR %.1f dB against the CPU (>= 35)\n", presets[p], device, psnr);
		ENSURE(psnr >= 35.0);
	}
	ENSURE_NO_VALIDATION(r);
	wfDestroyRenderer(r);
	return 0;
}

// Without ffmpeg on PATH, wfVideoOpen refuses with a message that names it (and leaves no file).
WF_TEST(render_video_without_ffmpeg)
{
	const char* saved = getenv("PATH");
	char* path = saved != NULL ? strdup(saved) : NULL;
	setenv("PATH", "/nonexistent", 1);
	char error[256] = "";
	wfVideo* video = wfVideoOpen("render_out/none.mp4", W, H, 30, error, sizeof error);
	bool available = wfVideoAvailable();
	if (path != NULL) {
		setenv("PATH", path, 1);
		free(path);
	} else {
		unsetenv("PATH");
	}
	fprintf(stderr, "  %s\n", error);
	ENSURE(video == NULL);
	ENSURE(!available);
	ENSURE(strstr(error, "ffmpeg") != NULL);
	struct stat st;
	ENSURE(stat("render_out/none.mp4", &st) != 0);
	return 0;
}

// Several cloths in one frame: each is drawn from its own part of the frame's buffers, so two sheets
// side by side each fill their own projected quad.
WF_TEST(render_two_cloths)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = WF_BACKEND_CPU;
	wd.floor.enabled = false;
	wfWorld* world = wfTestCreateWorld(&wd, NULL, 0);
	ENSURE(world != NULL);
	wfClothId cloths[2];
	const float offsets[2] = {-1.5f, 1.5f};
	const int sizes[2] = {12, 30}; // different particle counts, so the layouts differ
	for (int i = 0; i < 2; ++i) {
		wfClothDef cd = wfDefaultClothDef();
		cd.cols = sizes[i];
		cd.rows = sizes[i];
		cd.width = 2.0f;
		cd.height = 2.0f;
		cd.orientation = WF_ORIENT_HORIZONTAL;
		cd.origin = (wfVec3){offsets[i], 0.0f, 0.0f};
		cloths[i] = wfCreateCloth(world, &cd);
		ENSURE(!wfClothId_IsNull(cloths[i]));
	}
	wfRenderer* r = MakeRenderer(W, H);
	ENSURE(r != NULL);
	wfCamera cam = wfCameraLookAt((wfVec3){0.0f, 6.0f, 2.0f}, (wfVec3){0.0f, 0.0f, 0.0f}, 60.0f);
	static uint8_t rgba[W * H * 4];
	ENSURE(wfRenderer_DrawWorld(r, world, cloths, 2, &cam) == WF_OK);
	ENSURE(wfRenderer_ReadPixels(r, rgba, sizeof rgba) == WF_OK);
	ENSURE_NO_VALIDATION(r);
	SaveOutput("two_cloths", rgba, W, H);
	uint8_t bg[3];
	BackgroundBytes(bg);
	int inside[2] = {0, 0}, insideCovered[2] = {0, 0}, outsideCovered = 0;
	double quads[2][4][2];
	for (int i = 0; i < 2; ++i) {
		const wfVec3 corners[4] = {{offsets[i] - 1.0f, 0.0f, -1.0f}, {offsets[i] + 1.0f, 0.0f, -1.0f}, {offsets[i] + 1.0f, 0.0f, 1.0f},
			{offsets[i] - 1.0f, 0.0f, 1.0f}};
		for (int k = 0; k < 4; ++k)
			Project(&cam, corners[k], W, H, &quads[i][k][0], &quads[i][k][1]);
	}
	for (int y = 0; y < H; ++y) {
		for (int x = 0; x < W; ++x) {
			bool fg = IsForeground(rgba + (y * W + x) * 4, bg, 8);
			bool outsideBoth = true;
			for (int i = 0; i < 2; ++i) {
				double d = InsideDistance((const double(*)[2])quads[i], 4, x + 0.5, y + 0.5);
				if (d > 1.5) {
					inside[i]++;
					insideCovered[i] += fg;
				}
				outsideBoth = outsideBoth && d < -1.5;
			}
			outsideCovered += fg && outsideBoth;
		}
	}
	fprintf(stderr, "  left %d of %d, right %d of %d covered, %d pixels outside both\n", insideCovered[0], inside[0], insideCovered[1],
		inside[1], outsideCovered);
	ENSURE(inside[0] > 500 && inside[1] > 500);
	ENSURE(insideCovered[0] == inside[0] && insideCovered[1] == inside[1]);
	ENSURE(outsideCovered == 0);
	wfDestroyRenderer(r);
	wfDestroyWorld(world);
	return 0;
}

// wfCameraFit frames a scene: the spring-mesh curtain after 20 frames is inside the image with a margin
// and fills a good part of it.
WF_TEST(render_camera_fit)
{
	wfWorldDef wd;
	wfClothDef cd;
	ENSURE(wfPresetGet("spring-mesh", &wd, &cd));
	wd.backend = WF_BACKEND_CPU;
	wfWorld* world = wfTestCreateWorld(&wd, NULL, 0);
	ENSURE(world != NULL);
	wfClothId cloth = wfCreateCloth(world, &cd);
	for (int f = 0; f < 20; ++f)
		ENSURE(wfWorld_Step(world) == WF_OK);
	wfRenderer* r = MakeRenderer(W, H);
	ENSURE(r != NULL);
	wfCamera cam = wfCameraFit(world, &cloth, 1, 50.0f);
	static uint8_t rgba[W * H * 4];
	ENSURE(wfRenderer_DrawWorld(r, world, &cloth, 1, &cam) == WF_OK);
	ENSURE(wfRenderer_ReadPixels(r, rgba, sizeof rgba) == WF_OK);
	ENSURE_NO_VALIDATION(r);
	SaveOutput("camera_fit", rgba, W, H);
	uint8_t bg[3];
	BackgroundBytes(bg);
	int covered = 0, border = 0;
	for (int y = 0; y < H; ++y) {
		for (int x = 0; x < W; ++x) {
			bool fg = IsForeground(rgba + (y * W + x) * 4, bg, 8);
			covered += fg;
			border += fg && (x < 3 || y < 3 || x >= W - 3 || y >= H - 3);
		}
	}
	fprintf(stderr, "  %d of %d pixels covered, %d in the 3-pixel border\n", covered, W * H, border);
	ENSURE(border == 0);
	ENSURE(covered > W * H / 5);
	wfDestroyRenderer(r);
	wfDestroyWorld(world);
	return 0;
}

// wfRenderer_Resize: a frame at another size is drawn at that size, and going back gives the same
// picture as before.
WF_TEST(render_resize)
{
	wfRenderer* r = MakeRenderer(W, H);
	ENSURE(r != NULL);
	static uint8_t before[W * H * 4], after[W * H * 4], small[100 * 60 * 4];
	if (RenderPreset(r, "xpbd", 5, before) != 0)
		return 1;
	ENSURE(wfRenderer_Resize(r, 100, 60) == WF_OK);
	ENSURE(wfRenderer_GetDef(r).width == 100 && wfRenderer_GetDef(r).height == 60);
	ENSURE(wfRenderer_ReadPixels(r, small, sizeof small) != WF_OK); // the old frame is gone
	if (RenderPreset(r, "xpbd", 5, small) != 0)
		return 1;
	SaveOutput("resized", small, 100, 60);
	uint8_t bg[3];
	BackgroundBytes(bg);
	int fg = 0;
	for (int i = 0; i < 100 * 60; ++i)
		fg += IsForeground(small + i * 4, bg, 8);
	ENSURE(fg > 100 * 60 / 4);
	ENSURE(wfRenderer_Resize(r, 0, 60) == WF_ERROR_INVALID_ARGUMENT);
	ENSURE(wfRenderer_Resize(r, W, H) == WF_OK);
	if (RenderPreset(r, "xpbd", 5, after) != 0)
		return 1;
	double psnr = Psnr(before, after, W * H);
	fprintf(stderr, "  PSNR after resizing back: %.1f dB\n", psnr);
	ENSURE(psnr >= 60.0);
	ENSURE_NO_VALIDATION(r);
	wfDestroyRenderer(r);
	return 0;
}

// A world on Vulkan (lavapipe here) or NULL with a note when the backend is not available.
static wfWorld* MakeVulkanWorld(wfWorldDef* wd)
{
	wd->backend = WF_BACKEND_VULKAN;
	char error[256];
	wfWorld* world = wfTestCreateWorld(wd, error, sizeof error);
	if (world == NULL) {
		wd->deviceName = "llvmpipe";
		world = wfTestCreateWorld(wd, error, sizeof error);
	}
	if (world == NULL)
		fprintf(stderr, "  SKIPPED: no Vulkan backend: %s\n", error);
	return world;
}

// Draws with both renderers and compares: returns the PSNR of the shared one against the staged one.
static double DrawBoth(wfRenderer* shared, wfRenderer* own, wfWorld* world, const wfClothId* cloths, int count, const wfCamera* cam,
	uint8_t* a, uint8_t* b, const char* name)
{
	if (wfRenderer_DrawWorld(shared, world, cloths, count, cam) != WF_OK || wfRenderer_ReadPixels(shared, a, W * H * 4) != WF_OK ||
		wfRenderer_DrawWorld(own, world, cloths, count, cam) != WF_OK || wfRenderer_ReadPixels(own, b, W * H * 4) != WF_OK) {
		fprintf(stderr, "  draw failed: %s / %s\n", wfRenderer_GetLastError(shared), wfRenderer_GetLastError(own));
		return -1.0;
	}
	SaveOutput(name, a, W, H);
	return Psnr(a, b, W * H);
}

// With rd.world set, the renderer uses the world's Vulkan device and draws its cloths from the
// solver's buffers: no bytes uploaded, and the same image as a renderer on its own device that reads
// the cloths back and uploads them. After a reset (normals not current until the next step) the
// cloth goes through the staging path instead. Colour modes, wireframe and pins take the same path.
WF_TEST(render_zero_copy_from_solver_buffers)
{
	static uint8_t a[W * H * 4], b[W * H * 4];
	const char* presets[3] = {"xpbd", "compute-cloth", "spring-mesh"};
	for (int p = 0; p < 3; ++p) {
		wfWorldDef wd;
		wfClothDef cd;
		ENSURE(wfPresetGet(presets[p], &wd, &cd));
		wfWorld* world = MakeVulkanWorld(&wd);
		if (world == NULL)
			return 0;
		wfClothId cloths[2];
		cloths[0] = wfCreateCloth(world, &cd);
		cd.origin.x += 0.8f; // a second, smaller cloth: small cloths share one buffer (offsets matter)
		cd.cols = 9;
		cd.rows = 7;
		cloths[1] = wfCreateCloth(world, &cd);
		ENSURE(!wfClothId_IsNull(cloths[0]) && !wfClothId_IsNull(cloths[1]));
		wfRendererDef def = wfDefaultRendererDef();
		def.width = W;
		def.height = H;
		def.world = world;
		char error[512];
		wfRenderer* shared = TestRenderer(&def, error, sizeof error);
		if (shared == NULL)
			fprintf(stderr, "  wfCreateRenderer: %s\n", error);
		ENSURE(shared != NULL);
		ENSURE(wfRenderer_SharesWorldDevice(shared));
		wfRenderer* own = MakeRenderer(W, H);
		ENSURE(own != NULL && !wfRenderer_SharesWorldDevice(own));
		wfCamera cam = wfDefaultCameraForPreset(presets[p]);
		for (int f = 0; f < 20; ++f)
			ENSURE(wfWorld_Step(world) == WF_OK);

		const wfColorMode modes[3] = {WF_COLOR_TEXTURE, WF_COLOR_SPEED, WF_COLOR_STRAIN};
		for (int m = 0; m < 3; ++m) {
			wfRenderer_SetStyle(shared, modes[m], m == 2, true);
			wfRenderer_SetStyle(own, modes[m], m == 2, true);
			char name[64];
			snprintf(name, sizeof name, "zero_copy_%s_%s", presets[p], wfColorModeName(modes[m]));
			double psnr = DrawBoth(shared, own, world, cloths, 2, &cam, a, b, name);
			fprintf(stderr, "  %s, %s: %d cloths from the solver's buffers, %lld bytes uploaded (staged: %lld); PSNR %.1f dB (>= 50)\n",
				presets[p], wfColorModeName(modes[m]), wfRenderer_GetZeroCopyCloths(shared), (long long)wfRenderer_GetUploadBytes(shared),
				(long long)wfRenderer_GetUploadBytes(own), psnr);
			ENSURE(wfRenderer_GetZeroCopyCloths(shared) == 2 && wfRenderer_GetUploadBytes(shared) == 0);
			ENSURE(wfRenderer_GetZeroCopyCloths(own) == 0 && wfRenderer_GetUploadBytes(own) > 0);
			ENSURE(psnr >= 50.0);
		}

		// A reset leaves the normals stale until the next step: that cloth is staged, the other is not.
		ENSURE(wfCloth_Reset(cloths[0]) == WF_OK);
		double psnr = DrawBoth(shared, own, world, cloths, 2, &cam, a, b, "zero_copy_after_reset");
		fprintf(stderr, "  after a reset: %d cloth from the solver's buffers, %lld bytes uploaded; PSNR %.1f dB\n",
			wfRenderer_GetZeroCopyCloths(shared), (long long)wfRenderer_GetUploadBytes(shared), psnr);
		ENSURE(wfRenderer_GetZeroCopyCloths(shared) == 1 && wfRenderer_GetUploadBytes(shared) > 0);
		ENSURE(psnr >= 50.0);
		ENSURE(wfWorld_Step(world) == WF_OK);
		ENSURE(DrawBoth(shared, own, world, cloths, 2, &cam, a, b, "zero_copy_after_step") >= 50.0);
		ENSURE(wfRenderer_GetZeroCopyCloths(shared) == 2);

		ENSURE_NO_VALIDATION(shared);
		ENSURE_NO_VALIDATION(own);
		wfDestroyRenderer(own);
		wfDestroyRenderer(shared);
		wfWarnings w = wfWorld_GetWarnings(world);
		ENSURE(w.validationMessages == 0);
		wfDestroyWorld(world);
	}
	return 0;
}

// A world on the CPU has no device to share: the renderer opens its own and stages every cloth.
WF_TEST(render_zero_copy_needs_a_vulkan_world)
{
	wfWorldDef wd;
	wfClothDef cd;
	ENSURE(wfPresetGet("xpbd", &wd, &cd));
	wd.backend = WF_BACKEND_CPU;
	wfWorld* world = wfTestCreateWorld(&wd, NULL, 0);
	ENSURE(world != NULL);
	wfClothId cloth = wfCreateCloth(world, &cd);
	wfVulkanDevice device;
	ENSURE(wfWorld_GetVulkanDevice(world, &device) == WF_ERROR_BACKEND_UNAVAILABLE);
	wfVulkanClothBuffers buffers;
	ENSURE(wfCloth_GetVulkanBuffers(cloth, &buffers) == WF_ERROR_BACKEND_UNAVAILABLE);
	wfRendererDef def = wfDefaultRendererDef();
	def.width = W;
	def.height = H;
	def.world = world;
	wfRenderer* r = TestRenderer(&def, NULL, 0);
	ENSURE(r != NULL);
	ENSURE(!wfRenderer_SharesWorldDevice(r));
	wfCamera cam = wfDefaultCameraForPreset("xpbd");
	ENSURE(wfRenderer_DrawWorld(r, world, &cloth, 1, &cam) == WF_OK);
	ENSURE(wfRenderer_GetZeroCopyCloths(r) == 0);
	wfClothInfo info;
	ENSURE(wfCloth_GetInfo(cloth, &info) == WF_OK);
	fprintf(stderr, "  %lld bytes uploaded for %d particles\n", (long long)wfRenderer_GetUploadBytes(r), info.particleCount);
	ENSURE(wfRenderer_GetUploadBytes(r) >= (int64_t)3 * 16 * info.particleCount); // positions, normals, velocities
	ENSURE_NO_VALIDATION(r);
	wfDestroyRenderer(r);
	wfDestroyWorld(world);
	return 0;
}

// Two worlds on one device: the second created on the first one's device (wfWorldDef.vulkanDevice).
// A renderer given the first draws the second's cloths from the solver's buffers too, and the same
// image as a renderer that stages them.
WF_TEST(render_zero_copy_second_world_on_the_device)
{
	static uint8_t a[W * H * 4], b[W * H * 4];
	wfWorldDef wd;
	wfClothDef cd;
	ENSURE(wfPresetGet("xpbd", &wd, &cd));
	wfWorld* first = MakeVulkanWorld(&wd);
	if (first == NULL)
		return 0;
	wfVulkanDevice device;
	ENSURE(wfWorld_GetVulkanDevice(first, &device) == WF_OK);
	wfWorldDef second = wd;
	second.deviceName = NULL;
	second.vulkanDevice = &device;
	char error[512];
	wfWorld* other = wfTestCreateWorld(&second, error, sizeof error);
	if (other == NULL)
		fprintf(stderr, "  second world: %s\n", error);
	ENSURE(other != NULL);
	wfClothId cloth = wfCreateCloth(other, &cd);
	ENSURE(!wfClothId_IsNull(cloth));
	for (int f = 0; f < 20; ++f)
		ENSURE(wfWorld_Step(other) == WF_OK);
	wfRendererDef def = wfDefaultRendererDef();
	def.width = W;
	def.height = H;
	def.world = first;
	wfRenderer* shared = TestRenderer(&def, error, sizeof error);
	ENSURE(shared != NULL && wfRenderer_SharesWorldDevice(shared));
	wfRenderer* own = MakeRenderer(W, H);
	ENSURE(own != NULL);
	wfCamera cam = wfDefaultCameraForPreset("xpbd");
	double psnr = DrawBoth(shared, own, other, &cloth, 1, &cam, a, b, "zero_copy_second_world");
	fprintf(stderr, "  second world: %d cloth from the solver's buffers, %lld bytes uploaded; PSNR %.1f dB against staged\n",
		wfRenderer_GetZeroCopyCloths(shared), (long long)wfRenderer_GetUploadBytes(shared), psnr);
	ENSURE(wfRenderer_GetZeroCopyCloths(shared) == 1 && wfRenderer_GetUploadBytes(shared) == 0);
	ENSURE(psnr >= 50.0);
	ENSURE_NO_VALIDATION(shared);
	ENSURE_NO_VALIDATION(own);
	wfDestroyRenderer(own);
	wfDestroyRenderer(shared);
	wfDestroyWorld(other);
	ENSURE(wfWorld_GetWarnings(first).validationMessages == 0);
	wfDestroyWorld(first);
	return 0;
}

// wfRendererDef.bgra renders in the swapchain's usual byte order (the same picture, red and blue
// swapped in memory); hostImage = false keeps the frame on the device: ReadPixels refuses with a
// message, wfRenderer_GetVulkanImage describes the image; vulkanDevice puts the renderer on a given
// device (here a Vulkan world's), whose cloths it then draws from the solver's buffers.
WF_TEST(render_bgra_device_image_and_given_device)
{
	static uint8_t rgba[W * H * 4], bgra[W * H * 4];
	wfRenderer* r = MakeRenderer(W, H);
	ENSURE(r != NULL);
	if (RenderPreset(r, "xpbd", 10, rgba) != 0)
		return 1;
	wfDestroyRenderer(r);
	wfRendererDef def = wfDefaultRendererDef();
	def.width = W;
	def.height = H;
	def.bgra = true;
	r = TestRenderer(&def, NULL, 0);
	ENSURE(r != NULL);
	if (RenderPreset(r, "xpbd", 10, bgra) != 0)
		return 1;
	wfVulkanImage image;
	ENSURE(wfRenderer_GetVulkanImage(r, &image) == WF_OK);
	ENSURE(image.format == 50 /* VK_FORMAT_B8G8R8A8_SRGB */ && image.width == W && image.height == H && image.image != 0);
	int differ = 0;
	for (int i = 0; i < W * H; ++i)
		differ += rgba[4 * i] != bgra[4 * i + 2] || rgba[4 * i + 1] != bgra[4 * i + 1] || rgba[4 * i + 2] != bgra[4 * i];
	fprintf(stderr, "  BGRA against RGBA, channels swapped back: %d of %d pixels differ\n", differ, W * H);
	ENSURE(differ == 0);
	ENSURE_NO_VALIDATION(r);
	wfDestroyRenderer(r);

	wfWorldDef wd;
	wfClothDef cd;
	ENSURE(wfPresetGet("xpbd", &wd, &cd));
	wfWorld* world = MakeVulkanWorld(&wd);
	if (world == NULL)
		return 0;
	wfClothId cloth = wfCreateCloth(world, &cd);
	ENSURE(wfWorld_Step(world) == WF_OK);
	wfVulkanDevice device;
	ENSURE(wfWorld_GetVulkanDevice(world, &device) == WF_OK);
	def = wfDefaultRendererDef();
	def.width = W;
	def.height = H;
	def.vulkanDevice = &device;
	def.hostImage = false;
	r = TestRenderer(&def, NULL, 0);
	ENSURE(r != NULL && wfRenderer_SharesWorldDevice(r));
	wfCamera cam = wfDefaultCameraForPreset("xpbd");
	ENSURE(wfRenderer_DrawWorld(r, world, &cloth, 1, &cam) == WF_OK);
	ENSURE(wfRenderer_GetZeroCopyCloths(r) == 1 && wfRenderer_GetUploadBytes(r) == 0);
	ENSURE(wfRenderer_ReadPixels(r, rgba, sizeof rgba) == WF_ERROR_INVALID_ARGUMENT);
	fprintf(stderr, "  ReadPixels: %s\n", wfRenderer_GetLastError(r));
	ENSURE(strstr(wfRenderer_GetLastError(r), "hostImage") != NULL);
	ENSURE(wfRenderer_GetVulkanImage(r, &image) == WF_OK && image.format == 43 /* VK_FORMAT_R8G8B8A8_SRGB */);
	wfDestroyRenderer(r);
	ENSURE(wfWorld_GetWarnings(world).validationMessages == 0);
	wfDestroyWorld(world);
	return 0;
}

// An existing FIFO or device is never replaced by wfWritePng or wfVideoOpen: a FIFO without a reader
// is refused at once, a character device (when mknod is allowed) is written in place.
WF_TEST(render_special_output_paths)
{
	mkdir("render_out", 0777);
	const char* fifo = "render_out/special.fifo";
	remove(fifo);
	ENSURE(mkfifo(fifo, 0666) == 0);
	static uint8_t rgba[4 * 4 * 4];
	char error[512];
	ENSURE(wfWritePng(fifo, rgba, 4, 4, error, sizeof error) == WF_ERROR_IO);
	fprintf(stderr, "  %s\n", error);
	ENSURE(strstr(error, "no reader") != NULL);
	ENSURE(wfVideoOpen(fifo, 4, 4, 30, error, sizeof error) == NULL);
	ENSURE(strstr(error, "no reader") != NULL);
	struct stat st;
	ENSURE(stat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
	remove(fifo);
	const char* device = "render_out/special.null";
	remove(device);
	if (mknod(device, S_IFCHR | 0666, makedev(1, 3)) == 0) {
		ENSURE(wfWritePng(device, rgba, 4, 4, error, sizeof error) == WF_OK);
		ENSURE(stat(device, &st) == 0 && S_ISCHR(st.st_mode));
		remove(device);
	} else {
		fprintf(stderr, "  device part skipped: mknod needs root\n");
	}
	ENSURE(wfWritePng("render_out", rgba, 4, 4, error, sizeof error) == WF_ERROR_IO);
	ENSURE(strstr(error, "folder") != NULL);
	return 0;
}

// Colliders are drawn where they are: a collider sphere gives the world sphere's pixels exactly,
// a capsule along x spans its length plus its radii, a box seen face-on its width.
static int RowExtent(const uint8_t* rgba, const uint8_t* bg, int y)
{
	int left = W, right = -1;
	for (int x = 0; x < W; ++x) {
		if (IsForeground(rgba + (y * W + x) * 4, bg, 24)) {
			left = x < left ? x : left;
			right = x > right ? x : right;
		}
	}
	return right >= left ? right - left + 1 : 0;
}

WF_TEST(render_colliders_where_they_are)
{
	wfRenderer* r = MakeRenderer(W, H);
	ENSURE(r != NULL);
	uint8_t bg[3];
	BackgroundBytes(bg);
	static uint8_t a[W * H * 4], b[W * H * 4];
	const wfVec3 centre = {0.1f, 0.2f, -0.1f};
	wfCamera cam = wfCameraLookAt((wfVec3){centre.x, centre.y, centre.z + 5.0f}, centre, 40.0f);
	const double pxPerM = (H / 2.0) / tan(cam.fov * PI / 360.0); // at unit distance
	// 1. The world's sphere against a collider sphere of the same size and place.
	for (int k = 0; k < 2; ++k) {
		wfWorldDef wd = wfDefaultWorldDef();
		wd.backend = WF_BACKEND_CPU;
		wd.floor.enabled = false;
		wd.sphere.enabled = k == 0;
		wd.sphere.center = centre;
		wd.sphere.radius = 0.5f;
		wfWorld* world = wfTestCreateWorld(&wd, NULL, 0);
		ENSURE(world != NULL);
		if (k == 1) {
			wfColliderDef c = wfDefaultColliderDef();
			c.position = centre;
			c.radius = 0.5f;
			ENSURE(!wfColliderId_IsNull(wfCreateCollider(world, &c)));
		}
		ENSURE(wfRenderer_DrawWorld(r, world, NULL, 0, &cam) == WF_OK);
		ENSURE(wfRenderer_ReadPixels(r, k == 0 ? a : b, sizeof a) == WF_OK);
		wfDestroyWorld(world);
	}
	ENSURE(memcmp(a, b, sizeof a) == 0);
	// 2. A capsule along x (half length 0.6, radius 0.2) and 3. a box (half extents 0.7 x 0.3 x 0.2).
	for (int k = 0; k < 2; ++k) {
		wfWorldDef wd = wfDefaultWorldDef();
		wd.backend = WF_BACKEND_CPU;
		wd.floor.enabled = false;
		wd.sphere.enabled = false;
		wfWorld* world = wfTestCreateWorld(&wd, NULL, 0);
		ENSURE(world != NULL);
		wfColliderDef c = wfDefaultColliderDef();
		c.position = centre;
		c.type = k == 0 ? WF_COLLIDER_CAPSULE : WF_COLLIDER_BOX;
		c.radius = c.radius1 = 0.2f;
		c.halfLength = 0.6f;
		c.halfExtents = (wfVec3){0.7f, 0.3f, 0.2f};
		ENSURE(!wfColliderId_IsNull(wfCreateCollider(world, &c)));
		ENSURE(wfRenderer_DrawWorld(r, world, NULL, 0, &cam) == WF_OK);
		ENSURE(wfRenderer_ReadPixels(r, a, sizeof a) == WF_OK);
		SaveOutput(k == 0 ? "collider_capsule" : "collider_box", a, W, H);
		const int width = RowExtent(a, bg, H / 2);
		// The capsule's ends are spheres: its outline is nearest at the ends' tips, about 5 m away; the
		// box's front face is 5 - 0.2 m away.
		const double expected = k == 0 ? 2.0 * (0.6 + 0.2) * pxPerM / 5.0 : 2.0 * 0.7 * pxPerM / (5.0 - 0.2);
		fprintf(stderr, "  %s: %d pixels across the middle row, %.1f expected\n", k == 0 ? "capsule" : "box", width, expected);
		ENSURE_NEAR(width, expected, 0.04 * expected + 2.0);
		wfDestroyWorld(world);
	}
	ENSURE_NO_VALIDATION(r);
	wfDestroyRenderer(r);
	return 0;
}

// A latitude-longitude mesh sphere of radius r (two poles, rings - 1 rings of seg vertices) as
// the wfMeshDef of a mesh collider; v and idx are malloc'ed.
static wfMeshDef MeshSphere(float r, int seg, int rings, wfVec3** v, uint32_t** idx)
{
	const int vertices = 2 + (rings - 1) * seg, triangles = 2 * seg * (rings - 1);
	*v = (wfVec3*)malloc((size_t)vertices * sizeof **v);
	*idx = (uint32_t*)malloc(3 * (size_t)triangles * sizeof **idx);
	if (*v == NULL || *idx == NULL)
		return (wfMeshDef){0};
	(*v)[0] = (wfVec3){0.0f, r, 0.0f};
	(*v)[1] = (wfVec3){0.0f, -r, 0.0f};
	for (int i = 1; i < rings; ++i) {
		const double th = PI * i / rings;
		for (int j = 0; j < seg; ++j) {
			const double ph = 2.0 * PI * j / seg;
			(*v)[2 + (i - 1) * seg + j] = (wfVec3){(float)(r * sin(th) * cos(ph)), (float)(r * cos(th)), (float)(r * sin(th) * sin(ph))};
		}
	}
	uint32_t* t = *idx;
	const uint32_t last = 2 + (uint32_t)((rings - 2) * seg);
	for (int j = 0; j < seg; ++j) {
		*t++ = 0, *t++ = 2 + (uint32_t)((j + 1) % seg), *t++ = 2 + (uint32_t)j;
		*t++ = 1, *t++ = last + (uint32_t)j, *t++ = last + (uint32_t)((j + 1) % seg);
	}
	for (int i = 0; i < rings - 2; ++i) {
		for (int j = 0; j < seg; ++j) {
			const uint32_t a = 2 + (uint32_t)(i * seg + j), c = 2 + (uint32_t)(i * seg + (j + 1) % seg);
			*t++ = a, *t++ = c, *t++ = c + (uint32_t)seg;
			*t++ = a, *t++ = c + (uint32_t)seg, *t++ = a + (uint32_t)seg;
		}
	}
	return (wfMeshDef){.positions = *v, .vertexCount = vertices, .indices = *idx, .faceCount = triangles};
}

// The left and right ends of the middle row's foreground (right < left: none).
static void RowSpan(const uint8_t* rgba, const uint8_t* bg, int y, int* left, int* right)
{
	*left = W;
	*right = -1;
	for (int x = 0; x < W; ++x) {
		if (IsForeground(rgba + (y * W + x) * 4, bg, 24)) {
			*left = x < *left ? x : *left;
			*right = x > *right ? x : *right;
		}
	}
}

// Mesh colliders (WF_COLLIDER_MESH) are drawn from this frame's vertices, posed, in the colliders'
// colour with smooth normals: a 48 x 24 mesh sphere of radius 0.5 covers the collider sphere's
// pixels (the two silhouettes differ in under 3 % of them: the mesh's facets lie inside) and shades
// like it (the middle pixel within 8 levels), where an empty world shows the background; grown 1.5
// times (wfCollider_SetMeshVertices) and moved 0.4 m along x (wfCollider_SetTransform), one step
// later it is drawn 1.5 times as wide, 0.4 m further right; an open sheet seen from its back is drawn.
WF_TEST(render_mesh_collider)
{
	wfRenderer* r = MakeRenderer(W, H);
	ENSURE(r != NULL);
	uint8_t bg[3];
	BackgroundBytes(bg);
	static uint8_t sphere[W * H * 4], mesh[W * H * 4], empty[W * H * 4];
	const wfVec3 centre = {0.1f, 0.2f, -0.1f};
	const float distance = 5.0f;
	wfCamera cam = wfCameraLookAt((wfVec3){centre.x, centre.y, centre.z + distance}, centre, 40.0f);
	const double pxPerM = (H / 2.0) / tan(cam.fov * PI / 360.0); // at unit distance
	wfVec3* v = NULL;
	uint32_t* idx = NULL;
	const wfMeshDef body = MeshSphere(0.5f, 48, 24, &v, &idx);
	ENSURE(body.positions != NULL);
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = WF_BACKEND_CPU;
	wd.floor.enabled = false;
	wd.sphere.enabled = false;
	wfColliderId meshId = {0};
	wfWorld* meshWorld = NULL;
	for (int k = 0; k < 3; ++k) {
		wfWorld* world = wfTestCreateWorld(&wd, NULL, 0);
		ENSURE(world != NULL);
		wfColliderDef c = wfDefaultColliderDef();
		c.position = centre;
		c.radius = 0.5f;
		c.type = k == 0 ? WF_COLLIDER_SPHERE : WF_COLLIDER_MESH;
		c.mesh = k == 1 ? &body : NULL;
		wfColliderId id = k < 2 ? wfCreateCollider(world, &c) : (wfColliderId){0};
		ENSURE(k == 2 || !wfColliderId_IsNull(id));
		uint8_t* out = k == 0 ? sphere : k == 1 ? mesh : empty;
		ENSURE(wfRenderer_DrawWorld(r, world, NULL, 0, &cam) == WF_OK);
		ENSURE(wfRenderer_ReadPixels(r, out, sizeof sphere) == WF_OK);
		if (k == 1) {
			meshWorld = world;
			meshId = id;
		} else {
			wfDestroyWorld(world);
		}
	}
	SaveOutput("collider_mesh_sphere", mesh, W, H);
	int covered = 0, differ = 0;
	for (int i = 0; i < W * H; ++i) {
		const bool a = IsForeground(sphere + 4 * i, bg, 24), b = IsForeground(mesh + 4 * i, bg, 24);
		covered += a;
		differ += a != b;
	}
	const uint8_t* middle = mesh + ((H / 2) * W + W / 2) * 4;
	const uint8_t* analytic = sphere + ((H / 2) * W + W / 2) * 4;
	fprintf(stderr, "  mesh sphere: %d of the sphere's %d pixels differ; middle pixel %d %d %d (sphere %d %d %d, empty %d %d %d)\n", differ,
		covered, middle[0], middle[1], middle[2], analytic[0], analytic[1], analytic[2], empty[(H / 2 * W + W / 2) * 4],
		empty[(H / 2 * W + W / 2) * 4 + 1], empty[(H / 2 * W + W / 2) * 4 + 2]);
	ENSURE(covered > 500);
	ENSURE(differ < 0.03 * covered);
	for (int ch = 0; ch < 3; ++ch)
		ENSURE(abs((int)middle[ch] - (int)analytic[ch]) <= 8);
	ENSURE(!IsForeground(empty + ((H / 2) * W + W / 2) * 4, bg, 2));
	ENSURE(IsForeground(middle, bg, 24));

	// The next frame's shape and pose.
	for (int i = 0; i < body.vertexCount; ++i)
		v[i] = (wfVec3){1.5f * v[i].x, 1.5f * v[i].y, 1.5f * v[i].z};
	ENSURE(wfCollider_SetMeshVertices(meshId, v, body.vertexCount) == WF_OK);
	ENSURE(wfCollider_SetTransform(meshId, (wfVec3){centre.x + 0.4f, centre.y, centre.z}, (wfQuat){0.0f, 0.0f, 0.0f, 1.0f}) == WF_OK);
	ENSURE(wfWorld_Step(meshWorld) == WF_OK);
	int left0, right0, left1, right1;
	RowSpan(mesh, bg, H / 2, &left0, &right0);
	ENSURE(wfRenderer_DrawWorld(r, meshWorld, NULL, 0, &cam) == WF_OK);
	ENSURE(wfRenderer_ReadPixels(r, mesh, sizeof mesh) == WF_OK);
	SaveOutput("collider_mesh_grown", mesh, W, H);
	RowSpan(mesh, bg, H / 2, &left1, &right1);
	// A sphere of radius R at distance D: its outline spans 2 R / sqrt(D^2 - R^2) across.
	const double width0 = 2.0 * 0.5 * pxPerM / sqrt(distance * distance - 0.25),
				 width1 = 2.0 * 0.75 * pxPerM / sqrt(distance * distance - 0.5625);
	const double shift = 0.4 * pxPerM / distance;
	fprintf(stderr, "  grown: %d pixels across (%.1f expected), was %d (%.1f); middle moved %.1f pixels (%.1f expected)\n",
		right1 - left1 + 1, width1, right0 - left0 + 1, width0, 0.5 * (left1 + right1 - left0 - right0), shift);
	ENSURE_NEAR(right0 - left0 + 1, width0, 0.04 * width0 + 2.0);
	ENSURE_NEAR(right1 - left1 + 1, width1, 0.04 * width1 + 2.0);
	ENSURE_NEAR(0.5 * (left1 + right1 - left0 - right0), shift, 1.5);
	wfDestroyWorld(meshWorld);
	free(v);
	free(idx);

	// An open sheet 1 m square facing away from the camera (-z): two-sided, so drawn.
	wfWorld* world = wfTestCreateWorld(&wd, NULL, 0);
	ENSURE(world != NULL);
	const wfVec3 quad[4] = {{-0.5f, -0.5f, 0.0f}, {-0.5f, 0.5f, 0.0f}, {0.5f, 0.5f, 0.0f}, {0.5f, -0.5f, 0.0f}};
	const uint32_t quadIdx[6] = {0, 1, 2, 0, 2, 3};
	const wfMeshDef sheet = {.positions = quad, .vertexCount = 4, .indices = quadIdx, .faceCount = 2};
	wfColliderDef c = wfDefaultColliderDef();
	c.type = WF_COLLIDER_MESH;
	c.position = centre;
	c.mesh = &sheet;
	ENSURE(!wfColliderId_IsNull(wfCreateCollider(world, &c)));
	ENSURE(wfRenderer_DrawWorld(r, world, NULL, 0, &cam) == WF_OK);
	ENSURE(wfRenderer_ReadPixels(r, mesh, sizeof mesh) == WF_OK);
	int left, right;
	RowSpan(mesh, bg, H / 2, &left, &right);
	fprintf(stderr, "  open sheet from behind: %d pixels across (%.1f expected)\n", right - left + 1, pxPerM / distance);
	ENSURE_NEAR(right - left + 1, pxPerM / distance, 0.04 * pxPerM / distance + 2.0);
	wfDestroyWorld(world);
	ENSURE_NO_VALIDATION(r);
	wfDestroyRenderer(r);
	return 0;
}

// A 9 x 9 sheet whose left and right halves each carry the whole texture (u 0..1 twice), so column 4
// has u = 1 on its left faces and u = 0 on its right ones. uvMode 0: welded, the seam as corner UVs
// (what the OBJ reader makes of a seam); 1: column 4 split into two vertices (90), each with its UV;
// 2: welded without corner UVs (one UV per particle: column 4 keeps u = 1 on both sides).
static wfClothId SeamSheet(wfWorld* world, int uvMode)
{
	wfVec3 positions[90];
	float uvs[180], cornerUVs[8 * 8 * 6 * 2];
	uint32_t indices[8 * 8 * 6];
	for (int y = 0; y < 9; ++y) {
		for (int x = 0; x < 9; ++x) {
			const int i = y * 9 + x;
			positions[i] = (wfVec3){-0.5f + 0.125f * (float)x, 0.5f - 0.125f * (float)y, 0.0f};
			uvs[2 * i + 0] = x <= 4 ? 0.25f * (float)x : 0.25f * (float)(x - 4);
			uvs[2 * i + 1] = 0.125f * (float)y;
		}
	}
	for (int y = 0; y < 9; ++y) { // the split column's second vertices: 81 + y, u = 0
		positions[81 + y] = positions[y * 9 + 4];
		uvs[2 * (81 + y) + 0] = 0.0f;
		uvs[2 * (81 + y) + 1] = 0.125f * (float)y;
	}
	int k = 0;
	for (int y = 0; y < 8; ++y) {
		for (int x = 0; x < 8; ++x) {
			const uint32_t i = (uint32_t)(y * 9 + x);
			const uint32_t tri[6] = {i, i + 9, i + 1, i + 1, i + 9, i + 10}; // counter-clockwise seen from +z
			for (int c = 0; c < 6; ++c) {
				uint32_t v = tri[c];
				const bool right = x >= 4, onSeam = (int)(v % 9) == 4;
				cornerUVs[2 * k + 0] = right && onSeam ? 0.0f : uvs[2 * v];
				cornerUVs[2 * k + 1] = uvs[2 * v + 1];
				if (uvMode == 1 && right && onSeam)
					v = 81 + v / 9;
				indices[k++] = v;
			}
		}
	}
	wfMeshDef mesh = {.positions = positions, .vertexCount = uvMode == 1 ? 90 : 81, .indices = indices, .faceCount = 8 * 8 * 2, .uvs = uvs};
	mesh.uvCount = mesh.vertexCount;
	if (uvMode == 0) {
		mesh.cornerUVs = cornerUVs;
		mesh.cornerUVCount = 3 * mesh.faceCount;
	}
	wfClothDef cd = wfDefaultClothDef();
	cd.mesh = &mesh;
	cd.origin = (wfVec3){0.0f, 1.0f, 0.0f};
	return wfCreateCloth(world, &cd);
}

// A mesh with UV seams is drawn with the UVs of each corner: the welded sheet with corner UVs gives
// the picture of the same sheet split along the seam, and one UV per particle does not.
WF_TEST(render_mesh_uv_seams)
{
	wfRenderer* r = MakeRenderer(W, H);
	ENSURE(r != NULL);
	wfCamera cam = wfCameraLookAt((wfVec3){0.0f, 1.0f, 1.6f}, (wfVec3){0.0f, 1.0f, 0.0f}, 45.0f);
	uint8_t* img[3];
	wfWorld* worlds[3];
	for (int mode = 0; mode < 3; ++mode) {
		wfWorldDef wd = wfDefaultWorldDef();
		wd.backend = WF_BACKEND_CPU;
		wd.sphere.enabled = false;
		wd.floor.enabled = false;
		wfWorld* world = worlds[mode] = wfTestCreateWorld(&wd, NULL, 0);
		ENSURE(world != NULL);
		wfClothId cloth = SeamSheet(world, mode);
		ENSURE(!wfClothId_IsNull(cloth));
		img[mode] = malloc(W * H * 4);
		ENSURE(img[mode] != NULL);
		ENSURE(wfRenderer_DrawWorld(r, world, &cloth, 1, &cam) == WF_OK);
		ENSURE(wfRenderer_ReadPixels(r, img[mode], W * H * 4) == WF_OK);
	}
	SaveOutput("mesh_uv_seams", img[0], W, H);
	long differ[2] = {0, 0};
	for (int i = 0; i < W * H * 4; ++i) {
		differ[0] += img[0][i] != img[1][i];
		differ[1] += img[2][i] != img[1][i];
	}
	fprintf(stderr, "  channels that differ from the split sheet: corner UVs %ld, one UV per particle %ld (of %d)\n", differ[0], differ[1],
		W * H * 4);
	ENSURE(differ[0] == 0);
	ENSURE(differ[1] >= 1000);
	ENSURE_NO_VALIDATION(r);
	for (int mode = 0; mode < 3; ++mode) {
		free(img[mode]);
		wfDestroyWorld(worlds[mode]);
	}
	wfDestroyRenderer(r);
	return 0;
}

// A world destroyed and a new one made, often at the same address, with a cloth in the same slot
// and of the same particle count but other UVs: the renderer draws the new cloth's UVs (its cloth
// caches are keyed by cloth ids, and generations are unique in the process, not per world). The
// image equals a fresh renderer's, and differs from the first world's.
WF_TEST(render_new_world_new_cache)
{
	wfRenderer* r = MakeRenderer(W, H);
	ENSURE(r != NULL);
	wfCamera cam = wfCameraLookAt((wfVec3){0.0f, 1.0f, 1.6f}, (wfVec3){0.0f, 1.0f, 0.0f}, 45.0f);
	static uint8_t img[3][W * H * 4];
	const int modes[3] = {0, 2, 2}; // corner UVs, one UV per particle (same particles), the same again
	wfWorld* first = NULL;
	bool reused = false;
	for (int k = 0; k < 3; ++k) {
		wfWorldDef wd = wfDefaultWorldDef();
		wd.backend = WF_BACKEND_CPU;
		wd.sphere.enabled = false;
		wd.floor.enabled = false;
		wfWorld* world = wfTestCreateWorld(&wd, NULL, 0);
		ENSURE(world != NULL);
		if (k == 0)
			first = world;
		else if (k == 1)
			reused = world == first;
		wfClothId cloth = SeamSheet(world, modes[k]);
		ENSURE(!wfClothId_IsNull(cloth));
		wfRenderer* use = r;
		if (k == 2) // a fresh renderer: no cache at all
			use = MakeRenderer(W, H);
		ENSURE(use != NULL);
		ENSURE(wfRenderer_DrawWorld(use, world, &cloth, 1, &cam) == WF_OK);
		ENSURE(wfRenderer_ReadPixels(use, img[k], sizeof img[k]) == WF_OK);
		ENSURE_NO_VALIDATION(use);
		if (use != r)
			wfDestroyRenderer(use);
		wfDestroyWorld(world);
	}
	long stale = 0, changed = 0;
	for (int i = 0; i < W * H * 4; ++i) {
		stale += img[1][i] != img[2][i];
		changed += img[1][i] != img[0][i];
	}
	fprintf(stderr,
		"  second world at the first's address: %s; channels that differ from a fresh renderer's %ld, from the first world's %ld\n",
		reused ? "yes" : "no", stale, changed);
	ENSURE(stale == 0);
	ENSURE(changed >= 1000);
	wfDestroyRenderer(r);
	return 0;
}

// A torn cloth is drawn with its new mesh: a sheet hung by its top row tears along its top band
// (wfMaterial.tearStrain) and its lower part falls away; the renderer takes the new particle and
// triangle counts (its cloth cache follows wfClothInfo.topology), and the rows of pixels the sheet
// covered below the band are background afterwards: no triangle is drawn across the tear.
WF_TEST(render_torn_cloth)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = WF_BACKEND_CPU;
	wd.floor.enabled = false;
	wd.step.substeps = 10;
	wd.step.iterations = 4;
	wfWorld* world = wfTestCreateWorld(&wd, NULL, 0);
	ENSURE(world != NULL);
	wfClothDef cd = wfDefaultClothDef();
	cd.cols = cd.rows = 16;
	cd.width = cd.height = 0.6f;
	cd.orientation = WF_ORIENT_VERTICAL;
	cd.pinMode = WF_PIN_TOP_ROW;
	cd.material.mass = 0.05f;
	cd.material.stretchCompliance = 1e-2f;
	cd.material.shearCompliance = 1e-2f;
	cd.material.bendCompliance = 0.1f;
	cd.material.tearStrain = 0.1f;
	wfClothId id = wfCreateCloth(world, &cd);
	ENSURE(!wfClothId_IsNull(id));
	wfRenderer* r = MakeRenderer(W, H);
	ENSURE(r != NULL);
	wfCamera cam = wfCameraLookAt((wfVec3){0.0f, 0.0f, 1.6f}, (wfVec3){0.0f, 0.0f, 0.0f}, 60.0f);
	static uint8_t before[W * H * 4], after[W * H * 4];
	ENSURE(wfRenderer_DrawWorld(r, world, &id, 1, &cam) == WF_OK);
	ENSURE(wfRenderer_ReadPixels(r, before, sizeof before) == WF_OK);
	for (int f = 0; f < 40; ++f)
		ENSURE(wfWorld_Step(world) == WF_OK);
	wfClothInfo info;
	ENSURE(wfCloth_GetInfo(id, &info) == WF_OK);
	ENSURE(info.topology > 0 && info.particleCount == 256 + 16);
	ENSURE(wfRenderer_DrawWorld(r, world, &id, 1, &cam) == WF_OK);
	ENSURE(wfRenderer_ReadPixels(r, after, sizeof after) == WF_OK);
	ENSURE_NO_VALIDATION(r);
	SaveOutput("torn_cloth", after, W, H);
	// The pixels of the middle half of the sheet, 0.05 m to 0.25 m below its top: covered before,
	// background after (the band that hangs ends 0.04 m below the top).
	uint8_t bg[3];
	BackgroundBytes(bg);
	int inside = 0, coveredBefore = 0, coveredAfter = 0;
	double x0, y0, x1, y1;
	Project(&cam, (wfVec3){-0.15f, 0.25f, 0.0f}, W, H, &x0, &y0);
	Project(&cam, (wfVec3){0.15f, 0.05f, 0.0f}, W, H, &x1, &y1);
	for (int y = (int)ceil(y0); y < (int)y1; ++y) {
		for (int x = (int)ceil(x0); x < (int)x1; ++x) {
			inside++;
			coveredBefore += IsForeground(before + (y * W + x) * 4, bg, 8);
			coveredAfter += IsForeground(after + (y * W + x) * 4, bg, 8);
		}
	}
	fprintf(stderr, "  %d particles, %d triangles after the tear; below the band: %d of %d pixels covered before, %d after\n",
		info.particleCount, info.triangleCount, coveredBefore, inside, coveredAfter);
	ENSURE(inside > 200);
	ENSURE(coveredBefore == inside);
	ENSURE(coveredAfter == 0);
	wfDestroyRenderer(r);
	wfDestroyWorld(world);
	return 0;
}
