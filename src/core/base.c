// Memory, errors, logging and the enum names: what every part of the library uses.
#include "internal.h"

#include <stdarg.h>
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

void wfFree(void* p)
{
	free(p);
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

// ------------------------------------------------------------------ names

static const char* const kSolverNames[] = {"xpbd", "jacobi", "springs"};
static const char* const kBackendNames[] = {"auto", "cpu", "vulkan"};
static const char* const kPinNames[] = {"none", "top-corners", "top-row", "corners", "list"};

#define NAME_LOOKUP(table, value) ((unsigned)(value) < sizeof(table) / sizeof(table[0]) ? table[value] : "?")

static bool FromName(const char* const* table, int count, const char* name, int* out)
{
	for (int i = 0; name != NULL && out != NULL && i < count; ++i) {
		if (strcmp(table[i], name) == 0) {
			*out = i;
			return true;
		}
	}
	return false;
}

const char* wfSolverName(wfSolverType s) { return NAME_LOOKUP(kSolverNames, s); }
const char* wfBackendName(wfBackendType b) { return NAME_LOOKUP(kBackendNames, b); }
const char* wfPinModeName(wfPinMode m) { return NAME_LOOKUP(kPinNames, m); }

static const char* const kStageNames[] = {"prepare", "predict", "solve", "finish", "normals", "fused"};
_Static_assert(sizeof kStageNames / sizeof kStageNames[0] == WF_STAGE_COUNT, "a name per stage");
const char* wfStageName(wfStage s) { return NAME_LOOKUP(kStageNames, s); }

bool wfSolverFromName(const char* name, wfSolverType* out)
{
	int v;
	if (out == NULL || !FromName(kSolverNames, 3, name, &v)) return false;
	*out = (wfSolverType)v;
	return true;
}

bool wfBackendFromName(const char* name, wfBackendType* out)
{
	int v;
	if (out == NULL || !FromName(kBackendNames, 3, name, &v)) return false;
	*out = (wfBackendType)v;
	return true;
}

bool wfPinModeFromName(const char* name, wfPinMode* out)
{
	int v;
	if (out == NULL || !FromName(kPinNames, 5, name, &v)) return false;
	*out = (wfPinMode)v;
	return true;
}
