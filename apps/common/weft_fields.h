// Def fields by path, for the tools: the library finds a field and its offset (wfFindDefFieldAt);
// here a value of its type is parsed from text, checked against the table's range and written into a
// def. The command line (`weft run --set`, its named options) and the viewer's parameters (`set` in
// scripts, the panel) use these, so a new field in the table is reachable from both without code here.
#ifndef WEFT_APPS_FIELDS_H
#define WEFT_APPS_FIELDS_H

#include "weft/weft.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// A parsed value: bools, ints and enums in v[0] (exact in a double), floats in v[0], vectors in
// v[0..2], text for strings.
typedef struct wfFieldValue {
	double v[3];
	const char* text;
} wfFieldValue;

// Whether a field has one value that text can give (not a nested def, list, pointer or rotation).
bool wfFieldsSettable(const wfFieldInfo* f);

// What the field takes, for messages and help: "an integer in [1, 4096]", "one of xpbd, jacobi, springs".
void wfFieldsAllowed(const wfFieldInfo* f, char* out, size_t size);

// The field's default as text ("10", "xpbd", "0,-9.8,0").
void wfFieldsDefault(const wfFieldInfo* f, char* out, size_t size);

// Parses text as the field's type and checks the table's range (WF_FIELD_CUSTOM ranges are left to
// the def's own rules at creation). Bools are on/off (also 1/0, true/false when numbers are allowed).
// On failure writes the problem ("is out of range", "is not an integer") and returns false.
bool wfFieldsParse(const wfFieldInfo* f, const char* text, bool numericBools, wfFieldValue* out, char* problem, size_t size);

// Writes a parsed value at `at`, the field's place in a def (the def plus wfFindDefFieldAt's offset).
void wfFieldsStore(const wfFieldInfo* f, const wfFieldValue* value, void* at);

// The member name in words, for labels: "stretchCompliance" -> "stretch compliance".
void wfFieldsLabel(const wfFieldInfo* f, char* out, size_t size);

#ifdef __cplusplus
}
#endif

#endif
