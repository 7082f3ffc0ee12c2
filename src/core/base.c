// Memory, errors, logging and the enum names: what every part of the library uses.
#include "internal.h"
#include "names.h"

#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ------------------------------------------------------------------ memory, errors, logging

void* wfAlloc(size_t size)
{
	size_t rounded = (size + 63) & ~(size_t)63;
	void* p = aligned_alloc(64, rounded > 0 ? rounded : 64);
	if (p != NULL)
		memset(p, 0, rounded > 0 ? rounded : 64);
	return p;
}

void wfFree(void* p) { free(p); }

uint32_t wfNextGeneration(void)
{
	static atomic_uint next = 1;
	uint32_t g;
	do
		g = atomic_fetch_add_explicit(&next, 1u, memory_order_relaxed);
	while (g == 0); // after 2^32 - 1 of them
	return g;
}

void wfAssertFailed(wfWorld* world, const char* cond, const char* file, int line)
{
	if (world != NULL && world->def.assertFn != NULL) {
		if (world->def.assertFn(cond, file, line, world->def.logContext) == 0)
			return;
	} else {
		fprintf(stderr, "weft: assertion failed: %s (%s:%d)\n", cond, file, line);
	}
	abort();
}

static void VLog(const wfWorld* world, wfLogLevel level, const char* fmt, va_list args)
{
	char msg[1024];
	vsnprintf(msg, sizeof msg, fmt, args);
	if (world != NULL && world->def.logFn != NULL) {
		world->def.logFn(level, msg, world->def.logContext);
	} else if (level != WF_LOG_INFO) {
		fprintf(stderr, "weft: %s: %s\n", level == WF_LOG_ERROR ? "error" : "warning", msg);
	}
}

void wfLog(const wfWorld* world, wfLogLevel level, const char* fmt, ...)
{
	va_list args;
	va_start(args, fmt);
	VLog(world, level, fmt, args);
	va_end(args);
}

wfResult wfSetError(wfWorld* world, wfResult result, const char* fmt, ...)
{
	if (world == NULL)
		return result;
	va_list args;
	va_start(args, fmt);
	vsnprintf(world->lastError, sizeof world->lastError, fmt, args);
	va_end(args);
	return result;
}

const char* wfResultName(wfResult r)
{
	switch (r) {
	case WF_OK: return "ok";
	case WF_ERROR_INVALID_DEF: return "invalid def";
	case WF_ERROR_INVALID_ARGUMENT: return "invalid argument";
	case WF_ERROR_OUT_OF_MEMORY: return "out of memory";
	case WF_ERROR_BACKEND_UNAVAILABLE: return "backend unavailable";
	case WF_ERROR_DEVICE_LOST: return "device lost";
	case WF_ERROR_IO: return "i/o error";
	case WF_ERROR_PARSE: return "parse error";
	}
	return "unknown";
}

// ------------------------------------------------------------------ names (names.h)

#define WF_NAME_ENTRY(value, name) [value] = name,
#define WF_LIST_ENTRY(value, name) ", " name
// The table of an enum from its X-macro list; the list string drops its leading ", ".
#define WF_ENUM_TABLE(table, LIST) \
	const char* const table##Names[] = {LIST(WF_NAME_ENTRY)}; \
	const wfEnumTable table = {table##Names, WF_ENUM_COUNT(LIST), (LIST(WF_LIST_ENTRY)) + 2};

WF_ENUM_TABLE(wfSolverTable, WF_SOLVER_NAMES)
WF_ENUM_TABLE(wfBackendTable, WF_BACKEND_NAMES)
WF_ENUM_TABLE(wfPinTable, WF_PIN_NAMES)
WF_ENUM_TABLE(wfOrientationTable, WF_ORIENTATION_NAMES)
WF_ENUM_TABLE(wfWindTable, WF_WIND_NAMES)
WF_ENUM_TABLE(wfResponseTable, WF_RESPONSE_NAMES)
WF_ENUM_TABLE(wfJacobiWeightTable, WF_JACOBI_WEIGHT_NAMES)
WF_ENUM_TABLE(wfBadFrameTable, WF_BAD_FRAME_NAMES)
WF_ENUM_TABLE(wfFusedPathTable, WF_FUSED_PATH_NAMES)
WF_ENUM_TABLE(wfVelocityTable, WF_VELOCITY_NAMES)
WF_ENUM_TABLE(wfOrderTable, WF_ORDER_NAMES)
WF_ENUM_TABLE(wfStageTable, WF_STAGE_NAMES)
WF_ENUM_TABLE(wfColliderTable, WF_COLLIDER_NAMES)
WF_ENUM_TABLE(wfTetherTable, WF_TETHER_NAMES)
WF_ENUM_TABLE(wfInterpolationTable, WF_INTERPOLATION_NAMES)
_Static_assert(sizeof wfStageTableNames / sizeof wfStageTableNames[0] == WF_STAGE_COUNT, "a name per stage");

const char* wfEnumName(const wfEnumTable* t, int value)
{
	return value >= 0 && value < t->count && t->names[value] != NULL ? t->names[value] : "?";
}

bool wfEnumFromName(const wfEnumTable* t, const char* name, int* out)
{
	for (int i = 0; name != NULL && out != NULL && i < t->count; ++i) {
		if (strcmp(t->names[i], name) == 0) {
			*out = i;
			return true;
		}
	}
	return false;
}

const char* wfSolverName(wfSolverType s) { return wfEnumName(&wfSolverTable, (int)s); }
const char* wfBackendName(wfBackendType b) { return wfEnumName(&wfBackendTable, (int)b); }
const char* wfPinModeName(wfPinMode m) { return wfEnumName(&wfPinTable, (int)m); }
const char* wfStageName(wfStage s) { return wfEnumName(&wfStageTable, (int)s); }
const char* wfColliderTypeName(wfColliderType t) { return wfEnumName(&wfColliderTable, (int)t); }
const char* wfTetherModeName(wfTetherMode m) { return wfEnumName(&wfTetherTable, (int)m); }

bool wfColliderTypeFromName(const char* name, wfColliderType* out)
{
	int v;
	if (out == NULL || !wfEnumFromName(&wfColliderTable, name, &v))
		return false;
	*out = (wfColliderType)v;
	return true;
}

bool wfSolverFromName(const char* name, wfSolverType* out)
{
	int v;
	if (out == NULL || !wfEnumFromName(&wfSolverTable, name, &v))
		return false;
	*out = (wfSolverType)v;
	return true;
}

bool wfBackendFromName(const char* name, wfBackendType* out)
{
	int v;
	if (out == NULL || !wfEnumFromName(&wfBackendTable, name, &v))
		return false;
	*out = (wfBackendType)v;
	return true;
}

bool wfPinModeFromName(const char* name, wfPinMode* out)
{
	int v;
	if (out == NULL || !wfEnumFromName(&wfPinTable, name, &v))
		return false;
	*out = (wfPinMode)v;
	return true;
}

// Reads the rest of a file into a growing buffer (pipes included); returns NULL or what went wrong.
const char* wfReadAll(FILE* f, char** text, size_t* used)
{
	size_t capacity = 0;
	for (;;) {
		if (*used + 1 >= capacity) {
			if (capacity >= (size_t)WF_MAX_TEXT_BYTES)
				return "larger than 64 MiB";
			size_t grown = capacity == 0 ? 4096 : 2 * capacity;
			char* bigger = (char*)realloc(*text, grown);
			if (bigger == NULL)
				return "out of memory";
			*text = bigger;
			capacity = grown;
		}
		size_t n = fread(*text + *used, 1, capacity - 1 - *used, f);
		*used += n;
		if (n == 0)
			return ferror(f) ? strerror(errno) : NULL;
	}
}
