// render.h under weft.h's argument rule: every function with NULL in each pointer argument and
// NaN / +inf / -inf in each float argument, one row per call (as tests/test_api_args.c).
#include "test.h"
#include "weft/render.h"

#include <string.h>

typedef struct Fixture {
	wfWorld* world;
	wfClothId cloth;
	wfRenderer* renderer;
	wfCamera camera;
	float bad;
	uint8_t rgba[32 * 32 * 4];
	char error[512];
} Fixture;

static bool Says(const Fixture* f, const char* part)
{
	const char* msg = wfRenderer_GetLastError(f->renderer);
	bool ok = strstr(msg, part) != NULL;
	if (!ok)
		fprintf(stderr, "    last error \"%s\" does not name \"%s\"\n", msg, part);
	return ok;
}

static wfVec3 Bad3(const Fixture* f, int k)
{
	wfVec3 v = {1.0f, 1.0f, 1.0f};
	*(k == 0 ? &v.x : k == 1 ? &v.y : &v.z) = f->bad;
	return v;
}

static bool IsDefaultView(wfCamera c)
{
	wfCamera d = wfDefaultCameraForPreset(NULL);
	return memcmp(&c, &d, sizeof c) == 0;
}

// The camera of the fixture with one field spoilt; DrawWorld must refuse it.
static wfResult DrawBadCamera(Fixture* f, int what)
{
	wfCamera c = f->camera;
	switch (what) {
	case 0: c.distance = f->bad; break;
	case 1: c.fov = f->bad; break;
	case 2: c.azimuth = f->bad; break;
	case 3: c.elevation = f->bad; break;
	case 4: c.target = Bad3(f, 1); break;
	}
	return wfRenderer_DrawWorld(f->renderer, f->world, &f->cloth, 1, &c);
}

static bool CreateBadDef(Fixture* f, int what)
{
	wfRendererDef d = wfDefaultRendererDef();
	d.width = d.height = 16;
	const char* field = NULL;
	switch (what) {
	case 0:
		d.speedScale = f->bad;
		field = "speedScale";
		break;
	case 1:
		d.strainScale = f->bad;
		field = "strainScale";
		break;
	case 2:
		d.background[1] = f->bad;
		field = "background";
		break;
	case 3:
		d.groundHeight = f->bad;
		field = "groundHeight";
		break;
	}
	wfRenderer* r = wfCreateRenderer(&d, f->error, sizeof f->error);
	wfDestroyRenderer(r);
	return r == NULL && strstr(f->error, field) != NULL;
}

#define RENDER_ARG_CASES(X) \
	X(!wfColorModeFromName(NULL, &(wfColorMode){0}) && !wfColorModeFromName("speed", NULL)) \
	X(strcmp(wfColorModeName((wfColorMode)7), "unknown") == 0 && (wfVideoAvailable(), true)) \
	X(IsDefaultView(wfCameraLookAt(Bad3(f, 0), (wfVec3){0, 0, 0}, 45.0f))) \
	X(IsDefaultView(wfCameraLookAt((wfVec3){3, 2, 1}, Bad3(f, 2), 45.0f))) \
	X(IsDefaultView(wfCameraLookAt((wfVec3){3, 2, 1}, (wfVec3){0, 0, 0}, f->bad))) \
	X(wfCamera_GetEye(NULL).x == 0.0f && wfCamera_GetEye(NULL).y == 0.0f) \
	X(IsDefaultView(wfDefaultCameraForPreset(NULL))) \
	X(IsDefaultView(wfCameraFit(NULL, NULL, 0, f->bad))) \
	X(IsDefaultView(wfCameraFit(f->world, &f->cloth, 1, f->bad))) \
	X(wfCameraFit(f->world, NULL, 3, 45.0f).distance > 0.0f) \
	X(wfCreateRenderer(NULL, f->error, sizeof f->error) == NULL && strstr(f->error, "NULL") != NULL) \
	X(wfCreateRenderer(NULL, NULL, 0) == NULL) \
	X(CreateBadDef(f, 0) && CreateBadDef(f, 1) && CreateBadDef(f, 2) && CreateBadDef(f, 3)) \
	X(!wfDefaultGroundForPreset(NULL, NULL) && !wfDefaultGroundForPreset("xpbd", NULL) && wfDefaultGroundForPreset("spring-mesh", NULL)) \
	X((wfDestroyRenderer(NULL), true)) \
	X(wfRenderer_Resize(NULL, 64, 64) == WF_ERROR_INVALID_ARGUMENT) \
	X(wfRenderer_GetDef(NULL).width == wfDefaultRendererDef().width) \
	X(strcmp(wfRenderer_GetDeviceName(NULL), "") == 0) \
	X(strcmp(wfRenderer_GetLastError(NULL), "") == 0) \
	X(wfRenderer_GetValidationCount(NULL) == 0) \
	X(wfRenderer_SharesWorldDevice(NULL) == false) \
	X(wfRenderer_GetUploadBytes(NULL) == 0 && wfRenderer_GetZeroCopyCloths(NULL) == 0) \
	X((wfRenderer_SetStyle(NULL, WF_COLOR_SPEED, true, true), true)) \
	X(wfRenderer_DrawWorld(NULL, f->world, &f->cloth, 1, &f->camera) == WF_ERROR_INVALID_ARGUMENT) \
	X(wfRenderer_DrawWorld(f->renderer, NULL, &f->cloth, 1, &f->camera) == WF_ERROR_INVALID_ARGUMENT && Says(f, "NULL")) \
	X(wfRenderer_DrawWorld(f->renderer, f->world, NULL, 1, &f->camera) == WF_ERROR_INVALID_ARGUMENT && Says(f, "NULL")) \
	X(wfRenderer_DrawWorld(f->renderer, f->world, &f->cloth, 1, NULL) == WF_ERROR_INVALID_ARGUMENT && Says(f, "NULL")) \
	X(DrawBadCamera(f, 0) == WF_ERROR_INVALID_ARGUMENT && Says(f, "distance")) \
	X(DrawBadCamera(f, 1) == WF_ERROR_INVALID_ARGUMENT && Says(f, "fov")) \
	X(DrawBadCamera(f, 2) == WF_ERROR_INVALID_ARGUMENT && Says(f, "azimuth")) \
	X(DrawBadCamera(f, 3) == WF_ERROR_INVALID_ARGUMENT && Says(f, "elevation")) \
	X(DrawBadCamera(f, 4) == WF_ERROR_INVALID_ARGUMENT && Says(f, "target")) \
	X(wfRenderer_GetVulkanImage(NULL, &(wfVulkanImage){0}) == WF_ERROR_INVALID_ARGUMENT) \
	X(wfRenderer_GetVulkanImage(f->renderer, NULL) == WF_ERROR_INVALID_ARGUMENT && Says(f, "out: NULL")) \
	X(wfRenderer_ReadPixels(NULL, f->rgba, (int)sizeof f->rgba) == WF_ERROR_INVALID_ARGUMENT) \
	X(wfRenderer_ReadPixels(f->renderer, NULL, (int)sizeof f->rgba) == WF_ERROR_INVALID_ARGUMENT && Says(f, "ReadPixels")) \
	X(wfWritePng(NULL, f->rgba, 4, 4, f->error, sizeof f->error) == WF_ERROR_INVALID_ARGUMENT) \
	X(wfWritePng("render_out/args.png", NULL, 4, 4, NULL, 0) == WF_ERROR_INVALID_ARGUMENT) \
	X(wfVideoOpen(NULL, 32, 32, 30, f->error, sizeof f->error) == NULL && strstr(f->error, "path") != NULL) \
	X(wfVideoWrite(NULL, f->rgba) == WF_ERROR_INVALID_ARGUMENT) \
	X(wfVideoClose(NULL, NULL, 0) == WF_ERROR_INVALID_ARGUMENT) \
	X((wfDestroyVideo(NULL), true))

#define COUNT_ROW(expr) +1
enum { RENDER_ARG_CASE_COUNT = 0 RENDER_ARG_CASES(COUNT_ROW) };

static bool RunRow(Fixture* f, int k)
{
	int row = 0;
#define RUN_ROW(expr) \
	if (row++ == k) \
		return (expr);
	RENDER_ARG_CASES(RUN_ROW)
#undef RUN_ROW
	return false;
}

static const char* const kRowText[] = {
#define TEXT_ROW(expr) #expr,
	RENDER_ARG_CASES(TEXT_ROW)
#undef TEXT_ROW
};

WF_TEST(render_null_and_nonfinite_arguments)
{
	const float bad[] = {NAN, INFINITY, -INFINITY};
	Fixture f;
	memset(&f, 0, sizeof f);
	wfWorldDef wd;
	wfClothDef cd;
	ENSURE(wfPresetGet("xpbd", &wd, &cd));
	wd.backend = WF_BACKEND_CPU;
	cd.cols = cd.rows = 8;
	f.world = wfCreateWorld(&wd, NULL, 0);
	ENSURE(f.world != NULL);
	f.cloth = wfCreateCloth(f.world, &cd);
	wfRendererDef rd = wfDefaultRendererDef();
	rd.width = rd.height = 32;
	f.renderer = wfCreateRenderer(&rd, f.error, sizeof f.error);
	if (f.renderer == NULL)
		fprintf(stderr, "  wfCreateRenderer: %s\n", f.error);
	ENSURE(f.renderer != NULL);
	f.camera = wfDefaultCameraForPreset("xpbd");
	int failed = 0;
	for (int b = 0; b < 3; ++b) {
		f.bad = bad[b];
		for (int k = 0; k < RENDER_ARG_CASE_COUNT; ++k) {
			bool ok = RunRow(&f, k);
			if (!ok || b == 0)
				fprintf(stderr, "  %s [bad = %g] %s\n", ok ? "ok" : "FAILED", (double)bad[b], kRowText[k]);
			failed += !ok;
		}
	}
	// Still usable after all that.
	ENSURE(wfRenderer_DrawWorld(f.renderer, f.world, &f.cloth, 1, &f.camera) == WF_OK);
	ENSURE(wfRenderer_GetValidationCount(f.renderer) == 0);
	wfDestroyRenderer(f.renderer);
	wfDestroyWorld(f.world);
	fprintf(stderr, "  %d rows x 3 non-finite values, %d failed\n", RENDER_ARG_CASE_COUNT, failed);
	ENSURE(failed == 0);
	return 0;
}
