// Scene files (JSON): placeholder until the loader lands.
#include "internal.h"
#include <stdio.h>
#include <stdlib.h>
struct wfScene { wfWorldDef world; wfClothDef cloth; };
wfScene* wfScene_Load(const char* path, char* error, int errorSize) { snprintf(error, (size_t)errorSize, "%s: scene files not supported yet", path); return NULL; }
wfScene* wfScene_Parse(const char* text, const char* name, char* error, int errorSize) { (void)text; snprintf(error, (size_t)errorSize, "%s: not supported yet", name); return NULL; }
void wfScene_Destroy(wfScene* s) { free(s); }
wfWorldDef wfScene_GetWorldDef(const wfScene* s) { return s->world; }
int wfScene_GetClothCount(const wfScene* s) { (void)s; return 1; }
wfClothDef wfScene_GetClothDef(const wfScene* s, int i) { (void)i; return s->cloth; }
int wfScene_GetFrames(const wfScene* s) { (void)s; return 0; }
