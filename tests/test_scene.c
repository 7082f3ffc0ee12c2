// Scene files: defaults, presets with overrides, several cloths, messages, and no crash on any prefix
// or byte change of a valid file.
#include "test.h"

#include <stdlib.h>
#include <string.h>

static const char* kFlag =
	"{ \"frames\": 48,\n"
	"  \"world\": { \"backend\": \"cpu\", \"threads\": 1,\n"
	"    \"step\": { \"solver\": \"xpbd\", \"timeStep\": 0.02, \"substeps\": 6, \"iterations\": 2 },\n"
	"    \"gravity\": [0, -9.81, 0.5],\n"
	"    \"sphere\": { \"enabled\": true, \"center\": [0, 1, 0], \"radius\": 0.25, \"moving\": true,\n"
	"                \"amplitude\": [0.1, 0, 0], \"frequency\": 0.5 },\n"
	"    \"floor\": { \"enabled\": true, \"height\": -1 },\n"
	"    \"wind\": { \"mode\": \"wave\", \"strength\": 0.3, \"frequency\": 1, \"phasePerColumn\": 0.2, \"direction\": [1, 0, 0] },\n"
	"    \"contact\": { \"response\": \"stop\", \"thickness\": 0.05, \"friction\": 0.7 } },\n"
	"  \"cloths\": [\n"
	"    { \"cols\": 6, \"rows\": 4, \"width\": 2, \"height\": 1, \"orientation\": \"vertical\", \"origin\": [1, 2, 3],\n"
	"      \"structural\": true, \"shear\": false, \"bending\": true,\n"
	"      \"material\": { \"mass\": 0.5, \"stretchCompliance\": 0.001, \"damping\": 0.1 },\n"
	"      \"pinIndices\": [0, 6, 12, 18], \"uvRepeat\": 2 },\n"
	"    { \"cols\": 3, \"rows\": 3, \"pinMode\": \"corners\" }\n"
	"  ]\n"
	"}\n";

WF_TEST(scene_empty_object_gives_defaults)
{
	char error[256];
	wfScene* scene = wfScene_Parse("{}", "empty", error, (int)sizeof error);
	ENSURE(scene != NULL);
	wfWorldDef w = wfScene_GetWorldDef(scene);
	wfWorldDef dw = wfDefaultWorldDef();
	wfClothDef c = wfScene_GetClothDef(scene, 0);
	wfClothDef dc = wfDefaultClothDef();
	ENSURE(wfScene_GetFrames(scene) == 0);
	ENSURE(wfScene_GetClothCount(scene) == 1);
	ENSURE(w.step.substeps == dw.step.substeps && w.step.timeStep == dw.step.timeStep && w.gravity.y == dw.gravity.y);
	ENSURE(w.deviceName == NULL && w.sphere.enabled == dw.sphere.enabled);
	ENSURE(c.cols == dc.cols && c.rows == dc.rows && c.material.mass == dc.material.mass && c.pinIndices == NULL);
	wfDestroyScene(scene);
	return 0;
}

WF_TEST(scene_preset_then_overrides)
{
	const char* text = "{ \"world\": { \"step\": { \"substeps\": 32 } }, \"preset\": \"compute-cloth\",\n"
					   "  \"cloth\": { \"material\": { \"stiffness\": 1500 } } }";
	char error[256];
	wfScene* scene = wfScene_Parse(text, "preset", error, (int)sizeof error);
	ENSURE(scene != NULL);
	wfWorldDef w = wfScene_GetWorldDef(scene);
	wfClothDef c = wfScene_GetClothDef(scene, 0);
	wfWorldDef pw;
	wfClothDef pc;
	ENSURE(wfPresetGet("compute-cloth", &pw, &pc));
	// The override wins although it comes before "preset" in the file; the rest is the preset's.
	ENSURE(w.step.substeps == 32);
	ENSURE(w.step.solver == WF_SOLVER_SPRINGS && w.step.timeStep == pw.step.timeStep);
	ENSURE(w.contact.response == WF_CONTACT_STOP);
	ENSURE(c.cols == 60 && c.rows == 60 && c.bending == false);
	ENSURE(c.material.stiffness == 1500.0f && c.material.mass == pc.material.mass);
	wfDestroyScene(scene);
	return 0;
}

WF_TEST(scene_every_field_and_two_cloths)
{
	char error[256];
	wfScene* scene = wfScene_Parse(kFlag, "flag", error, (int)sizeof error);
	if (scene == NULL)
		fprintf(stderr, "  %s\n", error);
	ENSURE(scene != NULL);
	wfWorldDef w = wfScene_GetWorldDef(scene);
	ENSURE(wfScene_GetFrames(scene) == 48 && wfScene_GetClothCount(scene) == 2);
	ENSURE(w.backend == WF_BACKEND_CPU && w.threads == 1);
	ENSURE(w.step.solver == WF_SOLVER_XPBD && w.step.timeStep == 0.02f && w.step.substeps == 6 && w.step.iterations == 2);
	ENSURE(w.gravity.x == 0.0f && w.gravity.y == -9.81f && w.gravity.z == 0.5f);
	ENSURE(w.sphere.enabled && w.sphere.moving && w.sphere.radius == 0.25f && w.sphere.center.y == 1.0f);
	ENSURE(w.sphere.amplitude.x == 0.1f && w.sphere.frequency == 0.5f);
	ENSURE(w.floor.enabled && w.floor.height == -1.0f);
	ENSURE(w.wind.mode == WF_WIND_WAVE && w.wind.strength == 0.3f && w.wind.phasePerColumn == 0.2f && w.wind.direction.x == 1.0f);
	ENSURE(w.contact.response == WF_CONTACT_STOP && w.contact.thickness == 0.05f && w.contact.friction == 0.7f);
	wfClothDef a = wfScene_GetClothDef(scene, 0);
	ENSURE(a.cols == 6 && a.rows == 4 && a.width == 2.0f && a.height == 1.0f && a.orientation == WF_ORIENT_VERTICAL);
	ENSURE(a.origin.x == 1.0f && a.origin.y == 2.0f && a.origin.z == 3.0f);
	ENSURE(a.structural && !a.shear && a.bending && a.uvRepeat == 2.0f);
	ENSURE(a.material.mass == 0.5f && a.material.stretchCompliance == 0.001f && a.material.damping == 0.1f);
	ENSURE(a.material.bendCompliance == wfDefaultMaterial().bendCompliance);
	// A pin list alone means pinMode "list".
	ENSURE(a.pinMode == WF_PIN_LIST && a.pinCount == 4 && a.pinIndices[3] == 18);
	wfClothDef b = wfScene_GetClothDef(scene, 1);
	ENSURE(b.cols == 3 && b.pinMode == WF_PIN_CORNERS && b.pinIndices == NULL && b.width == wfDefaultClothDef().width);
	wfDestroyScene(scene);
	return 0;
}

// The defs of a scene create a world and its cloths as they are.
WF_TEST(scene_defs_create_a_world)
{
	char error[256];
	wfScene* scene = wfScene_Parse(kFlag, "flag", error, (int)sizeof error);
	ENSURE(scene != NULL);
	wfWorldDef w = wfScene_GetWorldDef(scene);
	wfWorld* world = wfTestCreateWorld(&w, error, (int)sizeof error);
	ENSURE(world != NULL);
	for (int i = 0; i < wfScene_GetClothCount(scene); ++i) {
		wfClothDef c = wfScene_GetClothDef(scene, i);
		ENSURE(!wfClothId_IsNull(wfCreateCloth(world, &c)));
	}
	wfDestroyScene(scene); // the cloths copied their pin lists
	ENSURE(wfWorld_Step(world) == WF_OK);
	wfDestroyWorld(world);
	return 0;
}

typedef struct BadScene {
	const char* text;
	const char* message; // the whole message after "bad: "
} BadScene;

static const BadScene kBad[] = {
	{"", "line 1, column 1: JSON syntax error: unexpected end of file"},
	{"{\n\"frames\": 1,\n}", "line 3, column 2: JSON syntax error near '}' at the end of the file"},
	{"{\"world\": {\"step\": {\"substeps\": 0}}}", "world.step.substeps: 0 is out of range [1, 4096]"},
	{"{\"world\": {\"step\": {\"substepz\": 4}}}",
		"world.step.substepz: unknown key (known: solver, timeStep, substeps, iterations, order)"},
	{"{\"cloths\": [{}, {\"cols\": \"8\"}]}", "cloths[1].cols: expected an integer, got string"},
	{"{\"cloth\": {\"rows\": 2.5}}", "cloth.rows: expected an integer, got 2.5"},
	{"{\"cloth\": {\"material\": {\"mass\": 0}}}", "cloth.material.mass: 0 is out of range [1e-09, 1e+06]"},
	{"{\"cloth\": {\"cols\": 1, \"rows\": 1}}", "cloth.cols x rows: 1 x 1 particles, allowed [2, 67108864]"},
	{"{\"cloth\": {\"pinMode\": \"list\", \"pinIndices\": [-1]}}", "cloth.pinIndices[0]: -1 is out of range [0, 1023]"},
	{"{\"world\": {\"contact\": {\"response\": \"slide\"}}}", "world.contact.response: \"slide\" is not one of friction, stop"},
	{"{\"world\": {\"sphere\": {\"center\": [0, 0, 1e7]}}}",
		"world.sphere.center: (0, 0, 1e+07) must be finite, each component in [-1e6, 1e6]"},
	{"{\"world\": []}", "world: expected an object, got array"},
	{"{\"frames\": 1, \"frames\": 2}", "frames: repeated key"},
	{"{\"preset\": 3}", "preset: expected a string (one of xpbd, compute-cloth, spring-mesh), got number"},
};

WF_TEST(scene_messages_name_key_and_range)
{
	for (size_t i = 0; i < sizeof kBad / sizeof kBad[0]; ++i) {
		char error[512], expected[512];
		memset(error, 0, sizeof error);
		wfScene* scene = wfScene_Parse(kBad[i].text, "bad", error, (int)sizeof error);
		snprintf(expected, sizeof expected, "bad: %s", kBad[i].message);
		if (scene != NULL || strcmp(error, expected) != 0)
			fprintf(stderr, "  case %zu: got      '%s'\n           expected '%s'\n", i, error, expected);
		ENSURE(scene == NULL);
		ENSURE(strcmp(error, expected) == 0);
	}
	return 0;
}

// Messages are cut to the buffer, and a NULL buffer is allowed.
WF_TEST(scene_small_error_buffers)
{
	char tiny[6] = "xxxxx";
	ENSURE(wfScene_Parse("{\"frames\": 0}", "name", tiny, (int)sizeof tiny) == NULL);
	ENSURE(strcmp(tiny, "name:") == 0);
	ENSURE(wfScene_Parse("{\"frames\": 0}", "name", NULL, 0) == NULL);
	ENSURE(wfScene_Load("/nonexistent/weft/scene.json", NULL, 0) == NULL);
	char error[256];
	ENSURE(wfScene_Load("/nonexistent/weft/scene.json", error, (int)sizeof error) == NULL);
	ENSURE(strstr(error, "/nonexistent/weft/scene.json: cannot open: ") == error);
	return 0;
}

// Every prefix of a valid file, and the file with each byte replaced, parses or fails cleanly
// (run under the sanitizers this is the memory-safety check of the parser).
WF_TEST(scene_never_crashes_on_damaged_files)
{
	size_t length = strlen(kFlag);
	char* text = (char*)malloc(length + 1);
	ENSURE(text != NULL);
	int parsed = 0, rejected = 0;
	static const char kReplacements[] = {'"', '{', ']', '9', '-', 'e', ',', '\\', (char)0xff};
	for (size_t cut = 0; cut <= length; ++cut) {
		memcpy(text, kFlag, cut);
		text[cut] = 0;
		char error[256] = "";
		wfScene* scene = wfScene_Parse(text, "cut", error, (int)sizeof error);
		parsed += scene != NULL;
		rejected += scene == NULL && strncmp(error, "cut: ", 5) == 0;
		wfDestroyScene(scene);
	}
	for (size_t at = 0; at < length; ++at) {
		for (size_t r = 0; r < sizeof kReplacements; ++r) {
			memcpy(text, kFlag, length + 1);
			text[at] = kReplacements[r];
			char error[256] = "";
			wfScene* scene = wfScene_Parse(text, "byte", error, (int)sizeof error);
			parsed += scene != NULL;
			rejected += scene == NULL && strncmp(error, "byte: ", 6) == 0;
			wfDestroyScene(scene);
		}
	}
	free(text);
	fprintf(stderr, "  %d damaged files parsed, %d rejected with a message\n", parsed, rejected);
	ENSURE(parsed + rejected == (int)(length + 1 + length * sizeof kReplacements));
	return 0;
}

// The frame-check and Jacobi keys: maxSpeed, badFrame, jacobiWeights, jitter (and their checks).
WF_TEST(scene_frame_check_and_jacobi_keys)
{
	char error[256];
	const char* text = "{ \"world\": { \"maxSpeed\": 50, \"badFrame\": \"reset\" },"
					   "  \"cloth\": { \"jacobiWeights\": \"degree\", \"jitter\": 0.6 } }";
	wfScene* scene = wfScene_Parse(text, "keys", error, (int)sizeof error);
	if (scene == NULL)
		fprintf(stderr, "  %s\n", error);
	ENSURE(scene != NULL);
	wfWorldDef w = wfScene_GetWorldDef(scene);
	wfClothDef c = wfScene_GetClothDef(scene, 0);
	ENSURE(w.maxSpeed == 50.0f && w.badFrame == WF_BAD_FRAME_RESET);
	ENSURE(c.jacobiWeights == WF_JACOBI_DEGREE && c.jitter == 0.6f);
	wfDestroyScene(scene);
	ENSURE(wfScene_Parse("{ \"world\": { \"badFrame\": \"retry\" } }", "bad", error, (int)sizeof error) == NULL);
	fprintf(stderr, "  %s\n", error);
	ENSURE(strstr(error, "badFrame") != NULL && strstr(error, "keep") != NULL);
	ENSURE(wfScene_Parse("{ \"cloth\": { \"jitter\": 2 } }", "bad", error, (int)sizeof error) == NULL);
	fprintf(stderr, "  %s\n", error);
	ENSURE(strstr(error, "jitter") != NULL && strstr(error, "[0, 1]") != NULL);
	ENSURE(wfScene_Parse("{ \"world\": { \"maxSpeed\": 0 } }", "bad", error, (int)sizeof error) == NULL);
	ENSURE(strstr(error, "maxSpeed") != NULL);
	return 0;
}

// A message never carries raw bytes of the file: control characters and non-ASCII bytes are escaped.
static bool MessageIsClean(const char* error)
{
	for (const unsigned char* c = (const unsigned char*)error; *c != 0; ++c) {
		if (*c < 0x20 || *c >= 0x7f) {
			fprintf(stderr, "  FAILED raw byte 0x%02x in \"%s\"\n", *c, error);
			return false;
		}
	}
	return true;
}

static bool Refused(const char* text, const char* part)
{
	char error[512];
	wfScene* scene = wfScene_Parse(text, "s.json", error, (int)sizeof error);
	if (scene != NULL) {
		wfDestroyScene(scene);
		fprintf(stderr, "  FAILED accepted: %s\n", text);
		return false;
	}
	bool ok = strstr(error, part) != NULL && MessageIsClean(error);
	fprintf(stderr, "  %s \"%s\" names \"%s\"\n", ok ? "ok" : "FAILED", error, part);
	return ok;
}

WF_TEST(scene_invalid_utf8_refused)
{
	// A Latin-1 byte, a truncated sequence, an overlong '/', a UTF-16 surrogate, past U+10FFFF.
	ENSURE(Refused("{\"description\": \"caf\xe9\"}", "s.json: line 1, column 21: invalid UTF-8 (byte 0xe9)"));
	ENSURE(Refused("{\"description\": \"\xe2\x82\"}", "invalid UTF-8 (byte 0xe2)"));
	ENSURE(Refused("{\"description\": \"\xc0\xaf\"}", "invalid UTF-8 (byte 0xc0)"));
	ENSURE(Refused("{\"description\": \"\xed\xa0\x80\"}", "invalid UTF-8 (byte 0xed)"));
	ENSURE(Refused("{\"description\": \"\xf4\x90\x80\x80\"}", "invalid UTF-8 (byte 0xf4)"));
	ENSURE(Refused("{\n  \"world\": {\"deviceName\": \"gpu\xff\"}}", "line 2, column 31: invalid UTF-8 (byte 0xff)"));
	// Well-formed UTF-8 is fine.
	char error[256];
	wfScene* scene = wfScene_Parse("{\"description\": \"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\xa7\xb5\"}", "s.json", error, (int)sizeof error);
	ENSURE(scene != NULL);
	wfDestroyScene(scene);
	return 0;
}

WF_TEST(scene_bad_key_bytes_escaped)
{
	ENSURE(Refused("{\"wor\\u001b[31mld\": {}}", "s.json: wor\\u001b[31mld: unknown key"));
	ENSURE(Refused("{\"gr\xc3\xb6\xc3\x9f"
				   "e\": 1}",
		"s.json: gr\\xc3\\xb6\\xc3\\x9fe: unknown key"));
	ENSURE(Refused("{\"world\": {\"step\": {\"solver\": \"x\\u0007\"}}}", "\"x\\u0007\" is not one of xpbd"));
	// A long bad key is cut with "...".
	char text[512];
	snprintf(text, sizeof text, "{\"%0200d\": 1}", 7);
	ENSURE(Refused(text, "...: unknown key"));
	return 0;
}

WF_TEST(scene_nested_too_deep)
{
	enum { DEPTH = 1000 };
	char* text = malloc(2 * DEPTH + 64);
	ENSURE(text != NULL);
	int n = sprintf(text, "{\"description\": ");
	for (int i = 0; i < DEPTH; ++i)
		text[n++] = '[';
	for (int i = 0; i < DEPTH; ++i)
		text[n++] = ']';
	strcpy(text + n, "}");
	bool ok = Refused(text, "line 1, column 80: nested too deep (more than 64 levels");
	// Brackets inside strings do not count.
	memset(text, 0, 2 * DEPTH + 64);
	n = sprintf(text, "{\"description\": \"");
	for (int i = 0; i < DEPTH; ++i)
		text[n++] = '[';
	strcpy(text + n, "\\\"\"}");
	char error[256];
	wfScene* scene = wfScene_Parse(text, "s.json", error, (int)sizeof error);
	free(text);
	ENSURE(ok);
	ENSURE(scene != NULL);
	wfDestroyScene(scene);
	return 0;
}

WF_TEST(scene_device_name_with_cpu_refused)
{
	ENSURE(
		Refused("{\"world\": {\"backend\": \"cpu\", \"deviceName\": \"llvmpipe\"}}", "s.json: world.deviceName: given with backend cpu"));
	char err[256];
	wfWorldDef d = wfDefaultWorldDef();
	d.backend = WF_BACKEND_CPU;
	d.deviceName = "llvmpipe";
	ENSURE(wfCreateWorld(&d, err, sizeof err) == NULL);
	ENSURE(strstr(err, "deviceName") != NULL);
	d.deviceName = "";
	wfWorld* w = wfCreateWorld(&d, err, sizeof err);
	ENSURE(w != NULL);
	wfDestroyWorld(w);
	return 0;
}
