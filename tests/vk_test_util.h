// Helpers shared by the Vulkan backend tests (test_vulkan.c, test_vulkan_fused.c).
#ifndef WEFT_VK_TEST_UTIL_H
#define WEFT_VK_TEST_UTIL_H

#include "test.h"

// True (and says so) when this build has no Vulkan backend: such tests pass as skipped.
bool wfVkTestMissing(void);
// The device the tests run on: WEFT_VK_DEVICE, else lavapipe ("llvmpipe").
const char* wfVkTestDevice(void);
// A world on the given backend with one CPU thread; Vulkan worlds use wfVkTestDevice().
wfWorld* wfVkTestWorld(wfWorldDef def, wfBackendType backend);
// Whether wfVkTestDevice() rounds as the CPU does (lavapipe: IEEE float, correctly rounded sqrt and
// division); hardware GPUs differ in the last bits, so same-bits checks take a tolerance there.
bool wfVkTestDeviceIsExact(void);
// Largest |dx| + |dy| + |dz| between the positions of two cloths of n particles (NaN: infinity).
double wfVkTestMaxDiff(wfClothId a, wfClothId b, int n);

#endif
