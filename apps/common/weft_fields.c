// Def fields by path for the tools (weft_fields.h): everything here reads the library's table.
#include "weft_fields.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool wfFieldsSettable(const wfFieldInfo* f)
{
	switch (f->type) {
	case WF_FIELD_BOOL:
	case WF_FIELD_INT:
	case WF_FIELD_FLOAT:
	case WF_FIELD_VEC3:
	case WF_FIELD_ENUM:
	case WF_FIELD_STRING: return true;
	default: return false;
	}
}

// An int field's bounds: the 31-bit sets' 2^31 (exact in a float) is INT_MAX.
static double IntBound(float bound) { return bound >= 2147483647.0f ? (double)INT_MAX : (double)bound; }

static void NameList(const wfFieldInfo* f, char* out, size_t size)
{
	size_t used = 0;
	out[0] = 0;
	for (int i = 0; i < f->enumCount && used < size; ++i)
		used += (size_t)snprintf(out + used, size - used, "%s%s", i > 0 ? ", " : "", f->enumNames[i]);
}

// A number as the library's messages write it: %g with the exponent's sign and leading zeros
// dropped ("1e6", "1e-9", "2.14748e9").
static const char* FormatNumber(double v, char out[32])
{
	char g[32];
	snprintf(g, sizeof g, "%g", v);
	size_t n = 0;
	for (const char* c = g; *c != 0 && n + 1 < 32; ++c) {
		out[n++] = *c;
		if (*c != 'e')
			continue;
		if (c[1] == '+')
			++c;
		else if (c[1] == '-')
			out[n++] = *++c;
		while (c[1] == '0' && c[2] != 0)
			++c;
	}
	out[n] = 0;
	return out;
}

void wfFieldsAllowed(const wfFieldInfo* f, char* out, size_t size)
{
	const char* open = (f->flags & WF_FIELD_OPEN_MIN) != 0 ? "(" : "[";
	const char* close = (f->flags & WF_FIELD_OPEN_MAX) != 0 ? ")" : "]";
	bool ranged = (f->flags & WF_FIELD_CUSTOM) == 0;
	char names[256], lo[32], hi[32];
	FormatNumber((double)f->min, lo);
	FormatNumber((double)f->max, hi);
	switch (f->type) {
	case WF_FIELD_BOOL: snprintf(out, size, "on or off"); break;
	case WF_FIELD_INT: snprintf(out, size, "an integer in [%.0f, %.0f]", IntBound(f->min), IntBound(f->max)); break;
	case WF_FIELD_FLOAT:
		if (ranged)
			snprintf(out, size, "%sa number in %s%s, %s%s", (f->flags & WF_FIELD_OR_ZERO) != 0 ? "0 or " : "", open, lo, hi, close);
		else
			snprintf(out, size, "a number (checked by the def's own rules)");
		break;
	case WF_FIELD_VEC3:
		if (ranged)
			snprintf(out, size, "X,Y,Z, each a number in %s%s, %s%s", open, lo, hi, close);
		else
			snprintf(out, size, "X,Y,Z (checked by the def's own rules)");
		break;
	case WF_FIELD_ENUM:
		NameList(f, names, sizeof names);
		snprintf(out, size, "one of %s", names);
		break;
	case WF_FIELD_STRING: snprintf(out, size, "text"); break;
	case WF_FIELD_STRUCT: snprintf(out, size, "one of its fields, PATH.FIELD"); break;
	default: snprintf(out, size, "nothing: a list or an object, set in scene files"); break;
	}
}

void wfFieldsDefault(const wfFieldInfo* f, char* out, size_t size)
{
	const float* q = f->defaultValue;
	int n = (int)IntBound(q[0]);
	switch (f->type) {
	case WF_FIELD_BOOL: snprintf(out, size, "%s", q[0] != 0.0f ? "on" : "off"); break;
	case WF_FIELD_INT: snprintf(out, size, "%d", n); break;
	case WF_FIELD_FLOAT: snprintf(out, size, "%g", (double)q[0]); break;
	case WF_FIELD_VEC3: snprintf(out, size, "%g,%g,%g", (double)q[0], (double)q[1], (double)q[2]); break;
	case WF_FIELD_ENUM: snprintf(out, size, "%s", n >= 0 && n < f->enumCount ? f->enumNames[n] : "?"); break;
	default: snprintf(out, size, "none"); break;
	}
}

static bool Problem(char* out, size_t size, const char* text)
{
	snprintf(out, size, "%s", text);
	return false;
}

// Whether x is inside the field's range (its open ends excluded).
static bool InRange(const wfFieldInfo* f, double x)
{
	if ((f->flags & WF_FIELD_CUSTOM) != 0 || (x == 0.0 && (f->flags & WF_FIELD_OR_ZERO) != 0))
		return true;
	double lo = f->type == WF_FIELD_INT ? IntBound(f->min) : (double)f->min;
	double hi = f->type == WF_FIELD_INT ? IntBound(f->max) : (double)f->max;
	bool aboveMin = (f->flags & WF_FIELD_OPEN_MIN) != 0 ? x > lo : x >= lo;
	bool belowMax = (f->flags & WF_FIELD_OPEN_MAX) != 0 ? x < hi : x <= hi;
	return aboveMin && belowMax;
}

// A finite number that ends at `stop` (0 or ','); *next points past it.
static bool Number(const char* text, char stop, double* out, const char** next)
{
	char* end = NULL;
	errno = 0;
	double x = strtod(text, &end);
	if (end == text || *end != stop || errno == ERANGE || !isfinite(x))
		return false;
	*out = x;
	*next = end + (stop != 0 ? 1 : 0);
	return true;
}

bool wfFieldsParse(const wfFieldInfo* f, const char* text, bool numericBools, wfFieldValue* out, char* problem, size_t size)
{
	memset(out, 0, sizeof *out);
	out->text = text;
	const char* next = NULL;
	switch (f->type) {
	case WF_FIELD_BOOL:
		if (strcmp(text, "on") == 0 || (numericBools && strcmp(text, "1") == 0))
			out->v[0] = 1.0;
		else if (strcmp(text, "off") != 0 && !(numericBools && strcmp(text, "0") == 0))
			return Problem(problem, size, "is not on or off");
		return true;
	case WF_FIELD_INT: {
		char* end = NULL;
		errno = 0;
		long v = strtol(text, &end, 10);
		if (text[0] == 0 || *end != 0 || errno == ERANGE)
			return Problem(problem, size, "is not an integer");
		out->v[0] = (double)v;
		return InRange(f, out->v[0]) || Problem(problem, size, "is out of range");
	}
	case WF_FIELD_FLOAT:
		if (!Number(text, 0, &out->v[0], &next))
			return Problem(problem, size, "is not a number");
		return InRange(f, out->v[0]) || Problem(problem, size, "is out of range");
	case WF_FIELD_VEC3:
		next = text;
		for (int k = 0; k < 3; ++k) {
			if (!Number(next, k < 2 ? ',' : 0, &out->v[k], &next))
				return Problem(problem, size, "is not three numbers X,Y,Z");
			if (!InRange(f, out->v[k]))
				return Problem(problem, size, "is out of range");
		}
		return true;
	case WF_FIELD_ENUM:
		for (int i = 0; i < f->enumCount; ++i) {
			if (strcmp(text, f->enumNames[i]) == 0) {
				out->v[0] = i;
				return true;
			}
		}
		snprintf(problem, size, "is not a %s", f->name);
		return false;
	case WF_FIELD_STRING: return text[0] != 0 || Problem(problem, size, "is empty");
	default: return Problem(problem, size, "is not settable here");
	}
}

void wfFieldsStore(const wfFieldInfo* f, const wfFieldValue* value, void* at)
{
	bool b = value->v[0] != 0.0;
	int n = (int)value->v[0];
	float x = (float)value->v[0];
	wfVec3 v = {(float)value->v[0], (float)value->v[1], (float)value->v[2]};
	switch (f->type) {
	case WF_FIELD_BOOL: memcpy(at, &b, sizeof b); break;
	case WF_FIELD_INT:
	case WF_FIELD_ENUM: memcpy(at, &n, sizeof n); break;
	case WF_FIELD_FLOAT: memcpy(at, &x, sizeof x); break;
	case WF_FIELD_VEC3: memcpy(at, &v, sizeof v); break;
	case WF_FIELD_STRING: memcpy(at, &value->text, sizeof value->text); break;
	default: break;
	}
}

void wfFieldsLabel(const wfFieldInfo* f, char* out, size_t size)
{
	size_t used = 0;
	for (const char* c = f->name; *c != 0 && used + 2 < size; ++c) {
		if (*c >= 'A' && *c <= 'Z') {
			out[used++] = ' ';
			out[used++] = (char)(*c - 'A' + 'a');
		} else
			out[used++] = *c;
	}
	out[used] = 0;
}
