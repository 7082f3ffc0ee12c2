// Checks a scripted weft-view session: reads DIR/session.log (probe lines of key=value pairs) and the
// screenshots, and asserts what the scripts session.txt ("session"), panel.txt ("panel"),
// vulkan.txt ("vulkan") and minimise.txt ("minimise") set up.
// Prints each check with its measured numbers; exits 1 on the first failed check.
#include <png.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PROBES 64
#define MAX_LINE 1024

typedef struct Probe {
	char label[64];
	char line[MAX_LINE];
} Probe;

static Probe g_probes[MAX_PROBES];
static int g_probeCount;
static int g_endCode = -1;
static char g_endLine[MAX_LINE];
static char g_devicesLine[MAX_LINE]; // "devices window=NAME; renderer=NAME; simulation=NAME"
static const char* g_dir;
static int g_failed;

#define CHECK(cond, ...) \
	do { \
		printf("%s: ", (cond) ? "ok  " : "FAIL"); \
		printf(__VA_ARGS__); \
		printf("\n"); \
		if (!(cond)) \
			g_failed = 1; \
	} while (0)

static int LoadLog(void)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/session.log", g_dir);
	FILE* f = fopen(path, "r");
	if (f == NULL) {
		printf("FAIL: cannot read %s\n", path);
		return 0;
	}
	char line[MAX_LINE];
	while (fgets(line, sizeof line, f) != NULL) {
		if (strncmp(line, "probe ", 6) == 0 && g_probeCount < MAX_PROBES) {
			Probe* p = &g_probes[g_probeCount++];
			sscanf(line + 6, "%63s", p->label);
			snprintf(p->line, sizeof p->line, "%s", line);
		} else if (strncmp(line, "devices ", 8) == 0) {
			snprintf(g_devicesLine, sizeof g_devicesLine, "%s", line);
		} else if (strncmp(line, "end ", 4) == 0) {
			const char* c = strstr(line, "code=");
			g_endCode = c != NULL ? atoi(c + 5) : -1;
			snprintf(g_endLine, sizeof g_endLine, "%s", line);
		}
	}
	fclose(f);
	return 1;
}

static const Probe* Find(const char* label)
{
	for (int i = 0; i < g_probeCount; ++i) {
		if (strcmp(g_probes[i].label, label) == 0)
			return &g_probes[i];
	}
	printf("FAIL: no probe '%s' in the log\n", label);
	exit(1);
}

// The value text of " key=" in a probe line.
static const char* Field(const Probe* p, const char* key)
{
	char pattern[64];
	snprintf(pattern, sizeof pattern, " %s=", key);
	const char* at = strstr(p->line, pattern);
	if (at == NULL) {
		printf("FAIL: probe '%s' has no field '%s'\n", p->label, key);
		exit(1);
	}
	return at + strlen(pattern);
}

static double Num(const Probe* p, const char* key) { return atof(Field(p, key)); }

static void Vec(const Probe* p, const char* key, double v[], int n)
{
	const char* s = Field(p, key);
	for (int i = 0; i < n; ++i) {
		char* end;
		v[i] = strtod(s, &end);
		s = *end == ',' ? end + 1 : end;
	}
}

static double Dist(const double a[3], const double b[3])
{
	return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

static int SameField(const Probe* a, const Probe* b, const char* key)
{
	const char* x = Field(a, key);
	const char* y = Field(b, key);
	size_t n = strcspn(x, " \n");
	return n == strcspn(y, " \n") && strncmp(x, y, n) == 0;
}

typedef struct Image {
	int width, height;
	unsigned char* rgba;
} Image;

static Image LoadPng(const char* name)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s.png", g_dir, name);
	png_image png;
	memset(&png, 0, sizeof png);
	png.version = PNG_IMAGE_VERSION;
	Image img = {0, 0, NULL};
	if (!png_image_begin_read_from_file(&png, path)) {
		printf("FAIL: cannot read %s: %s\n", path, png.message);
		exit(1);
	}
	png.format = PNG_FORMAT_RGBA;
	img.width = (int)png.width;
	img.height = (int)png.height;
	img.rgba = malloc(PNG_IMAGE_SIZE(png));
	if (img.rgba == NULL || !png_image_finish_read(&png, NULL, img.rgba, 0, NULL)) {
		printf("FAIL: cannot decode %s\n", path);
		exit(1);
	}
	return img;
}

// Mean absolute difference per channel (0..255) over the columns right of x0.
static double MeanDiff(const Image* a, const Image* b, int x0)
{
	if (a->width != b->width || a->height != b->height)
		return 255.0;
	double sum = 0.0;
	long n = 0;
	for (int y = 0; y < a->height; ++y) {
		for (int x = x0; x < a->width; ++x) {
			for (int c = 0; c < 3; ++c) {
				size_t i = ((size_t)y * a->width + x) * 4 + c;
				sum += abs((int)a->rgba[i] - (int)b->rgba[i]);
				n++;
			}
		}
	}
	return n > 0 ? sum / n : 0.0;
}

// Pixels right of x0 where some channel differs by more than 24 of 255.
static long ChangedPixels(const Image* a, const Image* b, int x0)
{
	if (a->width != b->width || a->height != b->height)
		return (long)a->width * a->height;
	long n = 0;
	for (int y = 0; y < a->height; ++y) {
		for (int x = x0; x < a->width; ++x) {
			size_t i = ((size_t)y * a->width + x) * 4;
			int d = 0;
			for (int c = 0; c < 3; ++c)
				d = abs((int)a->rgba[i + c] - (int)b->rgba[i + c]) > d ? abs((int)a->rgba[i + c] - (int)b->rgba[i + c]) : d;
			n += d > 24;
		}
	}
	return n;
}

static int PanelRight(const Probe* p)
{
	double r[4];
	Vec(p, "panel", r, 4);
	return (int)ceil(r[0] + r[2]) + 1;
}

static void CheckSession(void)
{
	const Probe* initial = Find("initial");
	const Probe* pa = Find("paused_a");
	const Probe* pb = Find("paused_b");

	// Pause: no step was taken and the particles did not move.
	CHECK(Num(pa, "paused") == 1 && Num(pb, "paused") == 1, "pause key pauses");
	CHECK(Num(pa, "steps") == Num(pb, "steps"), "no simulation frame while paused (steps %g and %g)", Num(pa, "steps"), Num(pb, "steps"));
	CHECK(SameField(pa, pb, "hash"), "positions identical across paused frames (hash %.16s)", Field(pa, "hash"));
	// A world on the CPU: its cloths are uploaded to the window's device every frame.
	if (strncmp(Field(pb, "backend"), "cpu", 3) == 0)
		CHECK(Num(pb, "zerocopy") == 0 && Num(pb, "uploaded") > 0, "CPU world: %g cloths from solver buffers, %g bytes uploaded",
			Num(pb, "zerocopy"), Num(pb, "uploaded"));
	int x0 = PanelRight(pb);
	Image ia = LoadPng("paused_a"), ib = LoadPng("paused_b");
	double dPause = MeanDiff(&ia, &ib, x0);
	CHECK(dPause == 0.0, "paused frames give the same picture right of the panel (mean difference %.4f)", dPause);

	// W and M change the picture of the same (paused) state.
	const char* styles[] = {"wireframe", "speed", "strain"};
	for (int i = 0; i < 3; ++i) {
		Image is = LoadPng(styles[i]);
		long changed = ChangedPixels(&ib, &is, x0);
		CHECK(changed > 1000, "%s changes the picture (%ld pixels)", styles[i], changed);
		free(is.rgba);
	}

	// V: the nodes view of the same (paused) state, drawn from the same cloth state.
	const Probe* nodes = Find("nodes_view");
	Image in = LoadPng("nodes");
	long nodesChanged = ChangedPixels(&ib, &in, x0);
	CHECK(strncmp(Field(nodes, "view"), "nodes", 5) == 0 && nodesChanged > 1000 && SameField(pb, nodes, "hash"),
		"V shows the nodes view (view %.5s, %ld pixels changed, positions unchanged)", Field(nodes, "view"), nodesChanged);
	free(in.rgba);

	// Orbit: the drag on the sky turned the camera, not the cloth.
	const Probe* orbiting = Find("orbiting");
	CHECK(strncmp(Field(orbiting, "view"), "cloth", 5) == 0, "V twice more: back to the cloth view (%.5s)", Field(orbiting, "view"));
	CHECK(Num(orbiting, "gesture") == 1, "a press on the empty background orbits (gesture %g)", Num(orbiting, "gesture"));
	double e0[3], e1[3];
	Vec(pb, "eye", e0, 3);
	Vec(orbiting, "eye", e1, 3);
	CHECK(Dist(e0, e1) > 0.5, "the eye moved %.3f m", Dist(e0, e1));
	CHECK(SameField(pb, orbiting, "hash"), "orbiting while paused leaves the cloth alone");
	Image io = LoadPng("orbited");
	double dOrbit = MeanDiff(&ib, &io, x0);
	long orbitChanged = ChangedPixels(&ib, &io, x0);
	CHECK(dOrbit > 2.0 && orbitChanged > 5000, "orbit changes the picture (%ld pixels, mean difference %.2f of 255 right of the panel)",
		orbitChanged, dOrbit);

	// Drag: the press picked a particle; the pulled particle reaches the cursor's target.
	const Probe* grab = Find("grab");
	const Probe* moved = Find("drag_moved");
	const Probe* held = Find("drag_held");
	CHECK(Num(grab, "grabbed") >= 0, "the press on particle 300 grabbed particle %g", Num(grab, "grabbed"));
	CHECK(Num(grab, "gesture") == 4, "the gesture is a drag (%g)", Num(grab, "gesture"));
	double start[3], p0[3], t0[3], p1[3], t1[3];
	Vec(grab, "particle", start, 3);
	Vec(moved, "particle", p0, 3);
	Vec(moved, "target", t0, 3);
	Vec(held, "particle", p1, 3);
	Vec(held, "target", t1, 3);
	double d0 = Dist(p0, t0), d1 = Dist(p1, t1), travel = Dist(start, t1);
	CHECK(travel > 0.1, "the cursor's target is %.3f m from where the particle was grabbed", travel);
	CHECK(Dist(t0, t1) < 1e-6, "the target stays while the mouse rests");
	CHECK(d0 > 0.01 && d1<0.01 * d0, "distance to the target shrinks from %.4f m to %.6f m (factor %s%.0f) within 3 frames", d0, d1, d1> 0.0
			? ""
			: ">",
		d1 > 0.0 ? d0 / d1 : d0 / 1e-9);
	CHECK(Dist(start, p1) > 0.9 * travel, "the particle moved %.3f m toward the target", Dist(start, p1));
	const Probe* released = Find("released");
	CHECK(Num(released, "grabbed") == -1 && Num(released, "gesture") == 0, "mouse up releases the particle");

	// Reset: bit-identical initial positions.
	const Probe* reset = Find("reset");
	CHECK(SameField(initial, reset, "hash") && Num(reset, "meany") == Num(initial, "meany"),
		"R restores the initial positions (hash %.16s, mean y %.6f)", Field(reset, "hash"), Num(reset, "meany"));

	// Sphere motion toggle.
	const Probe* sa = Find("sphere_stopped_a");
	const Probe* sb = Find("sphere_stopped_b");
	const Probe* sm = Find("sphere_moving");
	double c0[3], c1[3], c2[3];
	Vec(sa, "sphere", c0, 3);
	Vec(sb, "sphere", c1, 3);
	Vec(sm, "sphere", c2, 3);
	CHECK(Num(sa, "moving") == 0 && Dist(c0, c1) == 0.0, "S stops the sphere (moved %.6f m in 7 frames)", Dist(c0, c1));
	CHECK(Num(sm, "moving") == 1 && Dist(c1, c2) > 1e-3, "S again starts it (moved %.4f m in 10 frames)", Dist(c1, c2));

	// Resize.
	Image ir = LoadPng("resized");
	CHECK(ir.width == 400 && ir.height == 300, "after the resize the frame is %dx%d (asked 400x300)", ir.width, ir.height);
	free(ia.rgba);
	free(ib.rgba);
	free(io.rgba);
	free(ir.rgba);
}

static void CheckPanel(void)
{
	const Probe* initial = Find("initial");
	const Probe* light = Find("light");
	const Probe* heavy = Find("heavy");
	double y0 = Num(initial, "meany"), yl = Num(light, "meany"), yh = Num(heavy, "meany");
	double sagLight = y0 - yl, sagHeavy = y0 - yh;
	CHECK(Num(heavy, "gravity") == -30.0, "the world's gravity is %g after 'set gravity -30'", Num(heavy, "gravity"));
	CHECK(sagLight > 0.002 && sagHeavy > 2.0 * sagLight, "raising gravity 9.8 -> 30 deepens the sag from %.4f m to %.4f m (x%.2f)",
		sagLight, sagHeavy, sagHeavy / sagLight);
	const Probe* rc = Find("after_reset_cloth");
	CHECK(SameField(initial, rc, "hash"), "the panel's Reset cloth button restores the initial positions");
	CHECK(Num(rc, "gravity") == -30.0, "Reset cloth keeps the parameters (gravity %g)", Num(rc, "gravity"));
	const Probe* rp = Find("after_reset_params");
	CHECK(fabs(Num(rp, "gravity") - Num(initial, "gravity")) < 1e-6, "the panel's Reset params button restores gravity %g",
		Num(rp, "gravity"));
	CHECK(!SameField(initial, rp, "hash"), "Reset params leaves the particles where they are");
	const Probe* rb0 = Find("rebuilt");
	const Probe* rb1 = Find("rebuilt_later");
	CHECK(Num(initial, "particles") == 256 && Num(rb0, "particles") == 120, "grid 16x16 -> 12x10 rebuilds the cloth (%g -> %g particles)",
		Num(initial, "particles"), Num(rb0, "particles"));
	CHECK(Num(rb1, "steps") == Num(rb0, "steps") + 5 && !SameField(rb0, rb1, "hash"),
		"the rebuilt cloth steps (%g frames later it has moved)", Num(rb1, "steps") - Num(rb0, "steps"));

	// Real time: the accumulator turns the real time fed to it ("clocked": each frame feeds the span
	// since the previous frame began) into whole simulation frames. Between two probes the simulated
	// time is that span less what the accumulator still holds (under one frame) and never more than it
	// plus what it held before; it falls short only where a displayed frame took longer than 4
	// simulation frames (the catch-up cap) or 0.25 s (the stall cut). The wall clock at the probes
	// is not the bound: the first frame after the first probe feeds the span of the frame before it,
	// which under a sanitizer can be tens of milliseconds.
	const Probe* ra = Find("realtime_a");
	const Probe* rb = Find("realtime_b");
	double step = 1.0 / 60.0; // the spring-mesh preset's frame
	double sim = Num(rb, "time") - Num(ra, "time"), clocked = Num(rb, "clocked") - Num(ra, "clocked");
	double frames = Num(rb, "frame") - Num(ra, "frame");
	double reachable = fmin(clocked, 4.0 * step * frames);
	CHECK(Num(ra, "realtime") == 1, "clock real switches to the accumulator");
	CHECK(sim <= clocked + step + 1e-6 && sim >= 0.75 * reachable - 2.0 * step,
		"%.0f frames fed %.3f s of real time to the accumulator and simulated %.3f s (reachable with the cap: %.3f s; "
		"wall time between the probes %.3f s)",
		frames, clocked, sim, reachable, Num(rb, "wall") - Num(ra, "wall"));
	Image img = LoadPng("panel");
	CHECK(img.width == 640 && img.height == 360, "the panel screenshot is %dx%d", img.width, img.height);
	free(img.rgba);
}

static void CheckVulkan(void)
{
	const Probe* initial = Find("initial");
	CHECK(strncmp(Field(initial, "backend"), "vulkan", 6) == 0, "the simulation runs on the Vulkan backend");
	const Probe* grab = Find("grab");
	const Probe* moved = Find("drag_moved");
	const Probe* held = Find("drag_held");
	CHECK(Num(grab, "grabbed") >= 0, "the press on particle 66 grabbed particle %g", Num(grab, "grabbed"));
	double p0[3], t0[3], p1[3], t1[3];
	Vec(moved, "particle", p0, 3);
	Vec(moved, "target", t0, 3);
	Vec(held, "particle", p1, 3);
	Vec(held, "target", t1, 3);
	double d0 = Dist(p0, t0), d1 = Dist(p1, t1);
	CHECK(d0 > 0.01 && d1 < 0.01 * d0, "distance to the target shrinks from %.4f m to %.6f m", d0, d1);
	CHECK(SameField(initial, Find("reset"), "hash"), "R restores the initial positions");
	// The world runs on the window's device: the cloth is drawn from the solver's buffers.
	CHECK(Num(held, "zerocopy") == 1 && Num(held, "uploaded") == 0, "%g cloth from the solver's buffers, %g bytes uploaded",
		Num(held, "zerocopy"), Num(held, "uploaded"));
	// WEFT_VK_DEVICE=LlVmPiPe (mixed case): the window, the renderer and the world name one device.
	char window[256] = "", renderer[256] = "", simulation[256] = "";
	int fields = sscanf(g_devicesLine, "devices window=%255[^;]; renderer=%255[^;]; simulation=%255[^\n]", window, renderer, simulation);
	CHECK(fields == 3 && strstr(window, "llvmpipe") != NULL && strcmp(window, renderer) == 0 && strcmp(window, simulation) == 0,
		"window '%s', renderer '%s', simulation '%s' on one device", window, renderer, simulation);
	Image img = LoadPng("vulkan");
	CHECK(img.width == 480 && img.height == 320, "the screenshot is %dx%d", img.width, img.height);
	free(img.rgba);
}

// Minimise and restore (minimise.txt): while minimised nothing is rendered, presented or stepped and
// the process sleeps rather than spins; no swapchain of no size is made; after restore the picture
// comes back as it was, and on the wall clock the first frame catches up at most VIEW_MAX_CATCHUP frames.
static void CheckMinimise(void)
{
	const int cap = 4; // VIEW_MAX_CATCHUP (apps/viewer/viewer.h)
	const Probe* before = Find("before_minimise");
	const Probe* ma = Find("minimised_a");
	const Probe* mb = Find("minimised_b");
	const Probe* restored = Find("restored");
	CHECK(Num(before, "minimised") == 0 && Num(ma, "minimised") == 1 && Num(mb, "minimised") == 1 && Num(restored, "minimised") == 0,
		"minimise and restore reach the viewer (minimised %g %g %g %g)", Num(before, "minimised"), Num(ma, "minimised"),
		Num(mb, "minimised"), Num(restored, "minimised"));

	// 20 minimised turns (frames 22..41): nothing drawn or presented, no swapchain made.
	double turns = Num(mb, "frame") - Num(before, "frame");
	double hidden = Num(mb, "hidden") - Num(before, "hidden");
	CHECK(hidden == turns && turns == 20, "%g of %g turns were minimised", hidden, turns);
	const char* counts[] = {"displayed", "rendered", "presented", "swapchains", "steps"};
	for (int i = 0; i < 5; ++i) {
		double d = Num(mb, counts[i]) - Num(before, counts[i]);
		CHECK(d == 0, "%s while minimised: +%g (%g before)", counts[i], d, Num(before, counts[i]));
	}
	// Asleep, not spinning: each turn waits in the event queue (0.05 s), and uses little CPU.
	double wall = Num(mb, "wall") - Num(before, "wall"), cpu = Num(mb, "cpu") - Num(before, "cpu");
	CHECK(wall >= 20 * 0.05 * 0.9, "20 minimised turns took %.3f s of wall time (at least 0.05 s each)", wall);
	CHECK(cpu < 0.25 * wall, "while minimised the process used %.3f s of CPU in %.3f s (%.0f%%)", cpu, wall, 100.0 * cpu / wall);

	// Restored: the next turn draws and presents again, and the picture (paused) is the one from before.
	CHECK(Num(restored, "displayed") - Num(mb, "displayed") == 1 && Num(restored, "presented") - Num(mb, "presented") == 1 &&
			Num(restored, "rendered") - Num(mb, "rendered") == 1,
		"the frame of the restore is rendered and presented (displayed %g -> %g)", Num(mb, "displayed"), Num(restored, "displayed"));
	CHECK(SameField(before, restored, "hash"), "paused, the cloth is where it was (hash %.16s)", Field(restored, "hash"));
	int x0 = PanelRight(restored);
	Image ib = LoadPng("before"), ia = LoadPng("after");
	double d = MeanDiff(&ib, &ia, x0);
	CHECK(ia.width == 800 && ia.height == 450 && d == 0.0,
		"after restore the frame is %dx%d and the same picture right of the panel (mean difference %.4f)", ia.width, ia.height, d);

	// On the wall clock: 20 minimised turns, then the first frame after restore steps at most the cap.
	const Probe* running = Find("running");
	const Probe* mc = Find("minimised_c");
	const Probe* rr = Find("restored_real");
	const Probe* resumed = Find("resumed");
	double span = Num(mc, "wall") - Num(running, "wall");
	double step = 1.0 / 60.0; // the xpbd preset's frame
	CHECK(Num(running, "realtime") == 1 && Num(mc, "steps") == Num(running, "steps"),
		"no step while minimised on the wall clock (%.3f s minimised, worth %.0f frames)", span, span / step);
	double burst = Num(rr, "steps") - Num(mc, "steps");
	CHECK(span / step > 2 * cap && burst >= 1 && burst <= cap,
		"the first frame after restore stepped %g frames (cap %d; the span was worth %.0f)", burst, cap, span / step);
	CHECK(Num(resumed, "steps") > Num(rr, "steps") && !SameField(rr, resumed, "hash"),
		"the simulation goes on after restore (%g frames in %g turns)", Num(resumed, "steps") - Num(rr, "steps"),
		Num(resumed, "frame") - Num(rr, "frame"));
	Image ir = LoadPng("resumed");
	long changed = ChangedPixels(&ia, &ir, x0);
	CHECK(ir.width == 800 && ir.height == 450 && changed > 200,
		"the resumed frame is %dx%d and shows the cloth moving (%ld pixels changed since the restore)", ir.width, ir.height, changed);

	// No swapchain of no size was ever made: the smallest one is the window's 800x450.
	double sw[2];
	Vec(resumed, "swapmin", sw, 2);
	CHECK(sw[0] == 800 && sw[1] == 450 && Num(resumed, "swapchains") >= 1, "%g swapchains made, the smallest %gx%g",
		Num(resumed, "swapchains"), sw[0], sw[1]);
	printf("end: %s", g_endLine);
	free(ib.rgba);
	free(ia.rgba);
	free(ir.rgba);
}

// Tearing in the viewer: the torn sheet has more particles (drawn: the screenshot), the self-collision
// controls reach the world, an out-of-range thickness is refused, and Reset cloth gives the untorn
// sheet back, which with the threshold at 0 stays whole.
static void CheckTear(void)
{
	const Probe* initial = Find("initial");
	const Probe* torn = Find("torn");
	CHECK(Num(initial, "particles") == 1600 && Num(torn, "particles") > 1600, "the sphere tears the sheet (%g -> %g particles)",
		Num(initial, "particles"), Num(torn, "particles"));
	CHECK(Num(initial, "tearstrain") == 0.3, "the scene's tear strain %g reaches the panel", Num(initial, "tearstrain"));
	const Probe* on = Find("self_on");
	CHECK(Num(initial, "selfcollision") == 0 && Num(on, "selfcollision") == 1, "self-collision switched on live");
	CHECK(fabs(Num(on, "selfthickness") - 0.012) < 1e-9 && fabs(Num(on, "selffriction") - 0.5) < 1e-9,
		"thickness %g and friction %g reach the world", Num(on, "selfthickness"), Num(on, "selffriction"));
	const Probe* refused = Find("self_refused");
	CHECK(fabs(Num(refused, "selfthickness") - 0.012) < 1e-9, "a thickness of 5 m is refused (the world keeps %g)",
		Num(refused, "selfthickness"));
	const Probe* reset = Find("reset");
	const Probe* later = Find("untorn_later");
	CHECK(Num(reset, "particles") == 1600 && Num(reset, "tearstrain") == 0.0, "Reset cloth: %g particles, tear strain %g",
		Num(reset, "particles"), Num(reset, "tearstrain"));
	CHECK(Num(later, "particles") == 1600, "with the threshold off the sheet stays whole (%g particles)", Num(later, "particles"));
	// Parameters by def path (the library's table gives their types and ranges).
	const Probe* path = Find("by_path");
	const Probe* kept = Find("by_path_refused");
	CHECK(fabs(Num(path, "selffriction") - 0.75) < 1e-6 && fabs(Num(path, "tearstrain") - 0.4) < 1e-6 && Num(path, "gravity") == -20.0,
		"set by path: self friction %g, tear strain %g, gravity %g (expected 0.75, 0.4, -20)", Num(path, "selffriction"),
		Num(path, "tearstrain"), Num(path, "gravity"));
	CHECK(Num(kept, "selffriction") == Num(path, "selffriction") && Num(kept, "tearstrain") == Num(path, "tearstrain"),
		"a friction of 11 (allowed [0, 10]) is refused: the world keeps %g", Num(kept, "selffriction"));
	Image img = LoadPng("torn");
	CHECK(img.width == 640 && img.height == 360, "the torn screenshot is %dx%d", img.width, img.height);
	free(img.rgba);
}

int main(int argc, char** argv)
{
	const char* modes[] = {"session", "panel", "vulkan", "minimise", "tear"};
	bool known = false;
	for (int i = 0; i < 5 && argc == 3; ++i)
		known = known || strcmp(argv[1], modes[i]) == 0;
	if (!known) {
		fprintf(stderr, "usage: check_view session|panel|vulkan|minimise|tear DIR\n");
		return 2;
	}
	g_dir = argv[2];
	if (!LoadLog())
		return 1;
	CHECK(g_endCode == 0, "weft-view ended with code %d", g_endCode);
	if (strcmp(argv[1], "session") == 0)
		CheckSession();
	else if (strcmp(argv[1], "panel") == 0)
		CheckPanel();
	else if (strcmp(argv[1], "vulkan") == 0)
		CheckVulkan();
	else if (strcmp(argv[1], "tear") == 0)
		CheckTear();
	else
		CheckMinimise();
	printf("%s\n", g_failed ? "FAILED" : "PASSED");
	return g_failed;
}
