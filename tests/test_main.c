// Test runner: `weft_tests` runs all, `weft_tests NAME...` runs the named ones, `--list` lists them.
#include "test.h"

#include <time.h>
#include "weft_env.h"

#include <stdlib.h>
#include <string.h>

#define MAX_TESTS 512

static struct {
	const char* name;
	wfTestFn* fn;
} s_tests[MAX_TESTS];
static int s_count;

void wfRegisterTest(const char* name, wfTestFn* fn)
{
	if (s_count < MAX_TESTS) {
		s_tests[s_count].name = name;
		s_tests[s_count].fn = fn;
		s_count++;
	}
}

wfWorld* wfTestCreateWorld(const wfWorldDef* def, char* error, int errorSize)
{
	if (def == NULL)
		return wfCreateWorld(def, error, errorSize);
	wfWorldDef d = *def;
	wfEnvApplyToWorldDef(&d);
	return wfCreateWorld(&d, error, errorSize);
}

wfWorld* wfTestMakeWorld(wfWorldDef def)
{
	char err[512];
	def.backend = wfTestBackend();
	wfWorld* w = wfTestCreateWorld(&def, err, sizeof err);
	if (w == NULL)
		fprintf(stderr, "  world: %s\n", err);
	return w;
}

wfBackendType wfTestBackend(void)
{
	const char* b = getenv("WEFT_TEST_BACKEND");
	wfBackendType t = WF_BACKEND_CPU;
	if (b != NULL && !wfBackendFromName(b, &t))
		t = WF_BACKEND_CPU;
	return t;
}

int main(int argc, char** argv)
{
	if (argc > 1 && strcmp(argv[1], "--list") == 0) {
		for (int i = 0; i < s_count; ++i)
			printf("%s\n", s_tests[i].name);
		return 0;
	}
	int passed = 0, failed = 0;
	for (int i = 0; i < s_count; ++i) {
		bool selected = argc <= 1;
		for (int a = 1; a < argc; ++a)
			selected = selected || strcmp(argv[a], s_tests[i].name) == 0;
		if (!selected)
			continue;
		fprintf(stderr, "[ RUN  ] %s\n", s_tests[i].name);
		int r = s_tests[i].fn();
		fprintf(stderr, "[ %s ] %s\n", r == 0 ? " OK " : "FAIL", s_tests[i].name);
		if (r == 0)
			passed++;
		else
			failed++;
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed == 0 && passed > 0 ? 0 : 1;
}

double wfTestPeriod(const double* x, int count, double dt)
{
	double first = -1.0, last = -1.0;
	int crossings = 0;
	for (int i = 1; i < count; ++i) {
		if (x[i - 1] < 0.0 && x[i] >= 0.0) {
			double t = dt * ((double)(i - 1) + x[i - 1] / (x[i - 1] - x[i]));
			if (first < 0.0)
				first = t;
			last = t;
			crossings++;
		}
	}
	return crossings > 1 ? (last - first) / (double)(crossings - 1) : -1.0;
}

double wfTestSeconds(void)
{
	struct timespec ts;
	timespec_get(&ts, TIME_UTC);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

wfClothDef wfTestChain(int links)
{
	static const int pin[1] = {0};
	wfClothDef d = wfDefaultClothDef();
	d.cols = 1;
	d.rows = links + 1;
	d.height = 0.1f * (float)links;
	d.orientation = WF_ORIENT_VERTICAL;
	d.shear = d.bending = false;
	d.pinMode = WF_PIN_LIST;
	d.pinIndices = pin;
	d.pinCount = 1;
	return d;
}

bool wfTestWriteFile(const char* path, const char* text)
{
	FILE* f = fopen(path, "wb");
	if (f == NULL)
		return false;
	bool ok = fputs(text, f) >= 0;
	return fclose(f) == 0 && ok;
}
