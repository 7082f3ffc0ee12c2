// The device-choice rule shared by the backend, the renderer and the viewer (wfDevicePatternSelects).
#include "test.h"

// "#N" picks by place in the list, whatever the name; anything else is a case-insensitive part of the name.
WF_TEST(device_pattern_by_index_or_name)
{
	ENSURE(wfDevicePatternSelects("#0", 0, "NVIDIA H200"));
	ENSURE(!wfDevicePatternSelects("#0", 1, "NVIDIA H200"));
	ENSURE(wfDevicePatternSelects("#1", 1, "NVIDIA H200"));
	ENSURE(wfDevicePatternSelects("#12", 12, "x"));
	ENSURE(!wfDevicePatternSelects("#1x", 1, "x"));
	ENSURE(!wfDevicePatternSelects("#", 0, "x"));
	ENSURE(!wfDevicePatternSelects("#-1", -1, "x"));
	ENSURE(!wfDevicePatternSelects("#+1", 1, "x"));
	ENSURE(wfDevicePatternSelects("h200", 3, "NVIDIA H200"));
	ENSURE(!wfDevicePatternSelects("llvmpipe", 0, "NVIDIA H200"));
	ENSURE(!wfDevicePatternSelects(NULL, 0, "NVIDIA H200"));
	return 0;
}
