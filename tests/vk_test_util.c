// Helpers shared by the Vulkan backend tests.
#include "vk_test_util.h"

#include <stdlib.h>
#include <string.h>

bool wfVkTestMissing(void)
{
	char err[256];
	if (wfEnumerateDevices(NULL, 0, err, sizeof err) < 0) {
		fprintf(stderr, "  skipped: %s\n", err);
		return true;
	}
	return false;
}

const char* wfVkTestDevice(void)
{
	const char* d = getenv("WEFT_VK_DEVICE");
	return d != NULL && d[0] != 0 ? d : "llvmpipe";
}

wfWorld* wfVkTestWorld(wfWorldDef wd, wfBackendType backend)
{
	char err[512];
	wd.backend = backend;
	wd.deviceName = backend == WF_BACKEND_VULKAN ? wfVkTestDevice() : NULL;
	wd.threads = 1;
	wfWorld* w = wfTestCreateWorld(&wd, err, sizeof err);
	if (w == NULL)
		fprintf(stderr, "  world (%s): %s\n", wfBackendName(backend), err);
	return w;
}

double wfVkTestMaxDiff(wfClothId a, wfClothId b, int n)
{
	wfVec3* pa = (wfVec3*)malloc((size_t)n * sizeof(wfVec3));
	wfVec3* pb = (wfVec3*)malloc((size_t)n * sizeof(wfVec3));
	double worst = -1.0;
	if (pa != NULL && pb != NULL && wfCloth_ReadPositions(a, pa, n) == WF_OK && wfCloth_ReadPositions(b, pb, n) == WF_OK) {
		worst = 0.0;
		for (int i = 0; i < n; ++i) {
			double d = fabs((double)pa[i].x - pb[i].x) + fabs((double)pa[i].y - pb[i].y) + fabs((double)pa[i].z - pb[i].z);
			if (!(d <= worst)) // NaN counts as the worst
				worst = isnan(d) ? INFINITY : d;
		}
	}
	free(pa);
	free(pb);
	return worst;
}

bool wfVkTestDeviceIsExact(void)
{
	wfDeviceInfo devices[16];
	char err[256];
	int count = wfEnumerateDevices(devices, 16, err, sizeof err);
	for (int i = 0; i < count && i < 16; ++i) {
		if (strstr(devices[i].name, wfVkTestDevice()) != NULL)
			return !devices[i].hardware;
	}
	return false;
}
