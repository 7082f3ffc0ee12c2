// Scripted sessions for tests: one event per line, "FRAME COMMAND ARGS", replayed through the same
// handlers as the window's input, and a log of the state for assertions.
//
//   # comment
//   10 key space                 space, s, r, w, m, c, escape
//   20 mouse_move 320 240        window coordinates
//   21 mouse_down 320 240 [shift|alt]   left button (a press on the panel goes to the panel)
//   21 mouse_down_on_particle 300 [cloth]   presses where particle 300 appears now (then picks as a click)
//   22 mouse_move_by 40 -30      relative to the last mouse position
//   22 mouse_up
//   23 scroll 1.5
//   30 set gravity -30           a panel parameter by name or def path (ViewSetParam)
//   31 set_refused substeps 0    the same, which must be refused (the message is logged)
//   40 screenshot name           writes DIR/name.png of this frame (scene + panel)
//   41 probe label               logs the state (see Probe)
//   50 resize 400 300            asks the window for a new size
//   51 minimise                  iconifies the window (glfwIconifyWindow); where no window manager
//                                does it (Xvfb), the viewer is told as a desktop would tell it: the
//                                iconify and framebuffer-size callbacks with a 0x0 framebuffer
//   52 restore                   restores it (glfwRestoreWindow, or the callbacks as above)
//   55 clock real                from here on, real time drives the simulation (the fixed-step
//                                accumulator of interactive use); "clock frames" goes back
//   60 quit
// FRAME counts turns of the main loop: a turn while minimised runs its events but displays nothing.
#include "ui_bridge.h"
#include "viewer.h"

#include <GLFW/glfw3.h>

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double Seconds(clockid_t clock)
{
	struct timespec t;
	clock_gettime(clock, &t);
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double Now(void) { return Seconds(CLOCK_MONOTONIC); }

typedef struct ScriptEvent {
	int64_t frame;
	int line;
	char command[32];
	char a[128], b[64], c[32];
} ScriptEvent;

struct ViewScript {
	ScriptEvent* events; // (count), in file order (frames non-decreasing)
	int count;
	int next;
	FILE* log;
	double mouseX, mouseY;
	bool mouseDown;
	double start;    // wall clock at load, for the probes' wall=
	double cpuStart; // the process's CPU time at load, for the probes' cpu=
};

static bool KnownCommand(const char* c)
{
	static const char* const names[] = {"key", "mouse_move", "mouse_down", "mouse_down_on_particle", "mouse_move_by", "mouse_up", "scroll",
		"set", "set_refused", "screenshot", "probe", "resize", "minimise", "restore", "clock", "quit"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
		if (strcmp(c, names[i]) == 0)
			return true;
	}
	return false;
}

ViewScript* ScriptLoad(const char* path, const char* logPath, char* error, int errorSize)
{
	FILE* f = fopen(path, "r");
	if (f == NULL) {
		snprintf(error, (size_t)errorSize, "%s: cannot open", path);
		return NULL;
	}
	ViewScript* s = calloc(1, sizeof *s);
	int capacity = 0;
	char line[512];
	int lineNo = 0;
	bool ok = s != NULL;
	if (!ok)
		snprintf(error, (size_t)errorSize, "out of memory");
	while (ok && fgets(line, sizeof line, f) != NULL) {
		lineNo++;
		char* hash = strchr(line, '#');
		if (hash != NULL)
			*hash = 0;
		ScriptEvent e;
		memset(&e, 0, sizeof e);
		long long frame;
		int n = sscanf(line, "%lld %31s %127s %63s %31s", &frame, e.command, e.a, e.b, e.c);
		if (n <= 0)
			continue; // blank or comment
		if (n < 2 || frame < 0 || !KnownCommand(e.command)) {
			snprintf(error, (size_t)errorSize, "%s:%d: expected 'FRAME COMMAND ARGS' with a known command", path, lineNo);
			ok = false;
			break;
		}
		e.frame = frame;
		e.line = lineNo;
		if (s->count > 0 && e.frame < s->events[s->count - 1].frame) {
			snprintf(error, (size_t)errorSize, "%s:%d: frame %lld is before the previous event's", path, lineNo, frame);
			ok = false;
			break;
		}
		if (s->count == capacity) {
			capacity = capacity ? 2 * capacity : 64;
			ScriptEvent* grown = realloc(s->events, sizeof *grown * (size_t)capacity);
			if (grown == NULL) {
				snprintf(error, (size_t)errorSize, "out of memory");
				ok = false;
				break;
			}
			s->events = grown;
		}
		s->events[s->count++] = e;
	}
	fclose(f);
	if (ok) {
		s->start = Now();
		s->cpuStart = Seconds(CLOCK_PROCESS_CPUTIME_ID);
	}
	if (ok && logPath != NULL) {
		s->log = fopen(logPath, "w");
		if (s->log == NULL) {
			snprintf(error, (size_t)errorSize, "%s: cannot write the log", logPath);
			ok = false;
		}
	}
	if (!ok) {
		ScriptDestroy(s);
		return NULL;
	}
	return s;
}

void ScriptDestroy(ViewScript* s)
{
	if (s == NULL)
		return;
	if (s->log != NULL)
		fclose(s->log);
	free(s->events);
	free(s);
}

bool ScriptDone(const ViewScript* s) { return s->next >= s->count; }

void ScriptMouse(const ViewScript* s, double* x, double* y, bool* down)
{
	*x = s->mouseX;
	*y = s->mouseY;
	*down = s->mouseDown;
}

void ScriptLog(ViewScript* s, const char* fmt, ...)
{
	if (s->log == NULL)
		return;
	va_list args;
	va_start(args, fmt);
	vfprintf(s->log, fmt, args);
	va_end(args);
	fflush(s->log);
}

static int KeyCode(const char* name)
{
	static const struct {
		const char* name;
		int key;
	} keys[] = {
		{"space", GLFW_KEY_SPACE},
		{"s", GLFW_KEY_S},
		{"r", GLFW_KEY_R},
		{"w", GLFW_KEY_W},
		{"m", GLFW_KEY_M},
		{"v", GLFW_KEY_V},
		{"c", GLFW_KEY_C},
		{"escape", GLFW_KEY_ESCAPE},
	};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; ++i) {
		if (strcmp(name, keys[i].name) == 0)
			return keys[i].key;
	}
	return -1;
}

// One line of state: what the tests assert on.
static void Probe(ViewScript* s, View* v, int64_t frame, const char* label)
{
	double meanY;
	uint64_t hash;
	ViewMeanY(v, &meanY, &hash);
	wfVec3 particle = {0.0f, 0.0f, 0.0f};
	if (v->grabCloth >= 0) {
		wfClothInfo info;
		if (wfCloth_GetInfo(v->cloths[v->grabCloth], &info) == WF_OK) {
			wfVec3* pos = malloc(sizeof *pos * (size_t)info.particleCount);
			if (pos != NULL && wfCloth_ReadPositions(v->cloths[v->grabCloth], pos, info.particleCount) == WF_OK)
				particle = pos[v->grabParticle];
			free(pos);
		}
	}
	int particles = 0;
	for (int c = 0; c < v->clothCount; ++c) {
		wfClothInfo info;
		if (wfCloth_GetInfo(v->cloths[c], &info) == WF_OK)
			particles += info.particleCount;
	}
	wfVec3 sphere = wfWorld_GetSphereCenter(v->world);
	wfVec3 eye = wfCamera_GetEye(&v->camera);
	double panel[4];
	UiPanelRect(panel);
	ScriptLog(s,
		"probe %s frame=%lld steps=%lld paused=%d time=%.9g meany=%.9g hash=%016llx grabbed=%d "
		"particle=%.9g,%.9g,%.9g target=%.9g,%.9g,%.9g sphere=%.9g,%.9g,%.9g moving=%d gravity=%.9g "
		"eye=%.6g,%.6g,%.6g panel=%.0f,%.0f,%.0f,%.0f size=%d,%d mouse=%.2f,%.2f gesture=%d wall=%.6f clocked=%.6f realtime=%d particles=%d backend=%s "
		"cpu=%.6f minimised=%d hidden=%lld displayed=%lld rendered=%lld presented=%lld swapchains=%d swapmin=%d,%d "
		"zerocopy=%d uploaded=%lld view=%s selfcollision=%d selfthickness=%.6g selffriction=%.6g tearstrain=%.6g\n",
		label, (long long)frame, (long long)v->simFrames, v->paused ? 1 : 0, wfWorld_GetTime(v->world), meanY, (unsigned long long)hash,
		v->grabCloth >= 0 ? v->grabParticle : -1, particle.x, particle.y, particle.z, v->grabTarget.x, v->grabTarget.y, v->grabTarget.z,
		sphere.x, sphere.y, sphere.z, v->applied.sphere.moving ? 1 : 0, v->applied.gravity.y, eye.x, eye.y, eye.z, panel[0], panel[1],
		panel[2], panel[3], v->width, v->height, s->mouseX, s->mouseY, (int)v->gesture, Now() - s->start, v->clockedUntil - s->start,
		v->realtime ? 1 : 0, particles, wfBackendName(wfWorld_GetBackend(v->world)), Seconds(CLOCK_PROCESS_CPUTIME_ID) - s->cpuStart,
		v->minimised ? 1 : 0, (long long)v->hiddenFrames, (long long)v->displayFrames, (long long)v->renderedFrames,
		(long long)v->presentedFrames, v->swapchains, v->swapMinWidth, v->swapMinHeight, v->zeroCopyCloths, (long long)v->uploadBytes,
		wfViewModeName(v->applied.view), v->applied.selfCollision.enabled ? 1 : 0, (double)v->applied.selfCollision.thickness,
		(double)v->applied.selfCollision.friction, v->clothCount > 0 ? (double)v->applied.cloth[0].material.tearStrain : 0.0);
}

static bool RunEvent(ViewScript* s, View* v, const ScriptEvent* e, ScriptOut* out)
{
	const char* c = e->command;
	if (strcmp(c, "key") == 0) {
		int key = KeyCode(e->a);
		if (key < 0) {
			fprintf(stderr, "weft-view: script line %d: unknown key '%s'\n", e->line, e->a);
			return false;
		}
		ViewOnKey(v, key);
	} else if (strcmp(c, "mouse_move") == 0) {
		s->mouseX = atof(e->a);
		s->mouseY = atof(e->b);
		ViewOnCursor(v, s->mouseX, s->mouseY);
	} else if (strcmp(c, "mouse_down") == 0) {
		if (e->a[0] != 0) {
			s->mouseX = atof(e->a);
			s->mouseY = atof(e->b);
			ViewOnCursor(v, s->mouseX, s->mouseY);
		}
		ViewSetMods(v, strcmp(e->c, "shift") == 0, strcmp(e->c, "alt") == 0);
		s->mouseDown = true;
		ViewOnMouseButton(v, GLFW_MOUSE_BUTTON_LEFT, true, UiPanelContains(s->mouseX, s->mouseY));
	} else if (strcmp(c, "mouse_move_by") == 0) {
		s->mouseX += atof(e->a);
		s->mouseY += atof(e->b);
		ViewOnCursor(v, s->mouseX, s->mouseY);
	} else if (strcmp(c, "mouse_down_on_particle") == 0) {
		int cloth = e->b[0] != 0 ? atoi(e->b) : 0, index = atoi(e->a);
		wfClothInfo info;
		if (cloth < 0 || cloth >= v->clothCount || wfCloth_GetInfo(v->cloths[cloth], &info) != WF_OK || index < 0 ||
			index >= info.particleCount) {
			fprintf(stderr, "weft-view: script line %d: no particle %d in cloth %d\n", e->line, index, cloth);
			return false;
		}
		wfVec3* pos = malloc(sizeof *pos * (size_t)info.particleCount);
		bool seen = pos != NULL && wfCloth_ReadPositions(v->cloths[cloth], pos, info.particleCount) == WF_OK &&
			ViewProject(v, pos[index], &s->mouseX, &s->mouseY);
		free(pos);
		if (!seen) {
			fprintf(stderr, "weft-view: script line %d: particle %d is not in view\n", e->line, index);
			return false;
		}
		ViewOnCursor(v, s->mouseX, s->mouseY);
		ViewSetMods(v, false, false);
		s->mouseDown = true;
		ViewOnMouseButton(v, GLFW_MOUSE_BUTTON_LEFT, true, UiPanelContains(s->mouseX, s->mouseY));
		ScriptLog(s, "pressed %.2f %.2f on particle %d\n", s->mouseX, s->mouseY, index);
	} else if (strcmp(c, "mouse_up") == 0) {
		s->mouseDown = false;
		ViewOnMouseButton(v, GLFW_MOUSE_BUTTON_LEFT, false, false);
		ViewSetMods(v, false, false);
	} else if (strcmp(c, "scroll") == 0) {
		ViewOnScroll(v, atof(e->a));
	} else if (strcmp(c, "set") == 0) {
		char error[300];
		if (!ViewSetParam(v, e->a, e->b, error, (int)sizeof error)) {
			fprintf(stderr, "weft-view: script line %d: %s\n", e->line, error);
			return false;
		}
	} else if (strcmp(c, "set_refused") == 0) {
		// A value the library must refuse (the panel shows the message and keeps the world's value).
		char error[300];
		if (ViewSetParam(v, e->a, e->b, error, (int)sizeof error)) {
			fprintf(stderr, "weft-view: script line %d: set %s %s was accepted, expected a refusal\n", e->line, e->a, e->b);
			return false;
		}
		ScriptLog(s, "refused %s\n", error);
	} else if (strcmp(c, "screenshot") == 0) {
		snprintf(out->screenshot, sizeof out->screenshot, "%s", e->a);
	} else if (strcmp(c, "probe") == 0) {
		Probe(s, v, e->frame, e->a[0] != 0 ? e->a : "state");
	} else if (strcmp(c, "resize") == 0) {
		out->resizeWidth = atoi(e->a);
		out->resizeHeight = atoi(e->b);
	} else if (strcmp(c, "minimise") == 0 || strcmp(c, "restore") == 0) {
		out->iconify = strcmp(c, "minimise") == 0 ? 1 : -1;
	} else if (strcmp(c, "clock") == 0) {
		if (strcmp(e->a, "real") != 0 && strcmp(e->a, "frames") != 0) {
			fprintf(stderr, "weft-view: script line %d: clock real or clock frames\n", e->line);
			return false;
		}
		v->realtime = strcmp(e->a, "real") == 0;
		v->accumulator = 0.0;
	} else if (strcmp(c, "quit") == 0) {
		out->quit = true;
	}
	ScriptLog(s, "event %lld %s %s %s %s\n", (long long)e->frame, c, e->a, e->b, e->c);
	return true;
}

bool ScriptRun(ViewScript* s, View* v, int64_t frame, ScriptOut* out)
{
	memset(out, 0, sizeof *out);
	while (s->next < s->count && s->events[s->next].frame <= frame) {
		if (!RunEvent(s, v, &s->events[s->next], out))
			return false;
		s->next++;
	}
	return true;
}
