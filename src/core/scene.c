// Scene files (JSON): a world def, one or more cloth defs and a frame count, read with cJSON.
//
// The JSON mirrors the C defs key for key. Parsing starts from the defaults (or a preset's defs)
// and applies only the keys present. Every key is looked up in the def's field table (defs.c,
// wfDefFields: the same rows give the defaults and the ranges), so a misspelt key is an error
// instead of a silently kept default. Ranges are checked afterwards by the validators creation
// uses, with the JSON path put in front of their messages:
//   "FILE: world.step.substeps: 0 is out of range [1, 4096]".
#include "internal.h"
#include "names.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// A cloth's mesh ("mesh": "file.obj"): the file's mesh and its transformed copy the def points to.
typedef struct SceneMesh {
	wfMesh* mesh;
	wfVec3* positions; // the file's positions through "transform"
	wfMeshDef def;
} SceneMesh;

struct wfScene {
	wfWorldDef world;         // deviceName (if set) is owned by the scene
	wfClothDef* cloths;       // (clothCount) pinIndices, attachIndices and mesh (if set) are owned by the scene
	SceneMesh* meshes;        // (clothCount)
	wfColliderDef* colliders; // (colliderCount) "colliders"
	int colliderCount;
	wfColliderKey* colliderKeys[WF_MAX_COLLIDERS]; // each collider's "keys" (its def points here)
	SceneMesh colliderMeshes[WF_MAX_COLLIDERS];    // a mesh collider's "mesh" (its def points here)
	wfVec3* colliderKeyShapes[WF_MAX_COLLIDERS];   // its keys' "mesh" shapes, key after key (keyPositions)
	int clothCount;
	int frames;              // 0 when the file has no "frames"
	const char* description; // "description", for people (read, checked as a string, not used)
};

enum {
	WF_SCENE_MAX_CLOTHS = 65535, // a Vulkan arena batches up to 65 535 small cloths in one dispatch
	WF_SCENE_PATH = 192,         // longest JSON path kept for messages
	WF_SCENE_MAX_DEPTH = 64,     // nesting of arrays and objects (a scene needs 4); checked before cJSON's own limit
};

// The enum fields are read and written as int.
_Static_assert(sizeof(wfSolverType) == sizeof(int), "enum size");
_Static_assert(sizeof(wfBackendType) == sizeof(int), "enum size");
_Static_assert(sizeof(wfOrientation) == sizeof(int), "enum size");
_Static_assert(sizeof(wfPinMode) == sizeof(int), "enum size");
_Static_assert(sizeof(wfWindMode) == sizeof(int), "enum size");
_Static_assert(sizeof(wfContactResponse) == sizeof(int), "enum size");
_Static_assert(sizeof(wfJacobiWeights) == sizeof(int), "enum size");
_Static_assert(sizeof(wfBadFrame) == sizeof(int), "enum size");
_Static_assert(sizeof(wfTetherMode) == sizeof(int) && sizeof(wfColliderType) == sizeof(int), "enum size");
_Static_assert(sizeof(wfInterpolation) == sizeof(int), "enum size");

// ------------------------------------------------------------------ keys

// A def's keys are its table's (wfDefFields: the fields with a sceneKey, in the table's order);
// some are read outside the walk (rotate, keys, mesh, the root's own), and a cloth or a collider
// takes one key that is no field ("transform", of its mesh), a collider's key "mesh" (its shape).
typedef struct Table {
	const wfFieldInfo* fields;
	int count;
	const char* extra; // a key after the fields, read outside the walk, or NULL
} Table;

static Table DefTable(wfDefType def)
{
	Table t = {NULL, 0, def == WF_DEF_CLOTH || def == WF_DEF_COLLIDER ? "transform" : def == WF_DEF_COLLIDER_KEY ? "mesh" : NULL};
	t.fields = wfDefFields(def, &t.count);
	return t;
}

// The top level: the walk checks the keys and reads "description" and "frames"; ParseRoot reads the others.
#define ROOT_KEY(key, fieldType, at) \
	{ \
		.name = key, .sceneKey = key, .type = fieldType, .offset = (at) \
	}
static const wfFieldInfo kRootFields[] = {
	ROOT_KEY("description", WF_FIELD_STRING, offsetof(wfScene, description)),
	ROOT_KEY("preset", WF_FIELD_POINTER, 0),
	ROOT_KEY("frames", WF_FIELD_INT, offsetof(wfScene, frames)),
	ROOT_KEY("world", WF_FIELD_POINTER, 0),
	ROOT_KEY("cloth", WF_FIELD_POINTER, 0),
	ROOT_KEY("cloths", WF_FIELD_POINTER, 0),
	ROOT_KEY("colliders", WF_FIELD_POINTER, 0),
};

static const Table kRootTable = {kRootFields, (int)(sizeof kRootFields / sizeof kRootFields[0]), NULL};

// ------------------------------------------------------------------ messages

// Where the parse is: the file name for messages and the caller's error buffer.
typedef struct Parser {
	const char* name;
	char* error;
	int errorSize;
} Parser;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static bool
Fail(const Parser* p, const char* path, const char* fmt, ...)
{
	char msg[384];
	va_list args;
	va_start(args, fmt);
	vsnprintf(msg, sizeof msg, fmt, args);
	va_end(args);
	snprintf(p->error, (size_t)p->errorSize, "%s: %s: %s", p->name, path, msg);
	return false;
}

// A validator's message starts with the field name relative to the def; the path goes in front.
static bool FailValidation(const Parser* p, const char* path, const char* message)
{
	snprintf(p->error, (size_t)p->errorSize, "%s: %s.%s", p->name, path, message);
	return false;
}

// Text from the file in a message: at most 64 bytes of it, on one line and never raw: printable
// ASCII as it is, control characters as \u00XX, other bytes (UTF-8 sequences included) as \xNN,
// so that a key or value cannot put terminal escapes or invisible characters into a message.
static const char* Printable(const char* in, char* out, size_t size)
{
	size_t n = 0, i = 0;
	for (; in[i] != 0 && i < 64; ++i) {
		unsigned char c = (unsigned char)in[i];
		char piece[8];
		if (c >= 0x20 && c < 0x7f)
			snprintf(piece, sizeof piece, "%c", c);
		else if (c < 0x80)
			snprintf(piece, sizeof piece, "\\u%04x", c);
		else
			snprintf(piece, sizeof piece, "\\x%02x", c);
		size_t length = strlen(piece);
		if (n + length + 4 >= size)
			break;
		memcpy(out + n, piece, length);
		n += length;
	}
	if (in[i] != 0 && n + 3 < size) {
		memcpy(out + n, "...", 3);
		n += 3;
	}
	out[n] = 0;
	return out;
}

static void JoinKey(char* out, const char* path, const char* key)
{
	char printable[400];
	Printable(key, printable, sizeof printable);
	// A path longer than the buffer is cut; it only ever appears in messages.
	if (snprintf(out, WF_SCENE_PATH, "%s%s%s", path, path[0] != 0 ? "." : "", printable) >= WF_SCENE_PATH)
		out[WF_SCENE_PATH - 1] = 0;
}

static void JoinIndex(char* out, const char* path, int index)
{
	if (snprintf(out, WF_SCENE_PATH, "%s[%d]", path, index) >= WF_SCENE_PATH)
		out[WF_SCENE_PATH - 1] = 0;
}

static const char* TypeName(const cJSON* j)
{
	if (cJSON_IsBool(j))
		return "boolean";
	if (cJSON_IsNull(j))
		return "null";
	if (cJSON_IsNumber(j))
		return "number";
	if (cJSON_IsString(j))
		return "string";
	if (cJSON_IsArray(j))
		return "array";
	if (cJSON_IsObject(j))
		return "object";
	return "invalid value";
}

// "a, b, c" from a table's keys.
static void ListKeys(const Table* t, char* out, size_t size)
{
	size_t used = 0;
	out[0] = 0;
	for (int i = 0; i < t->count && used < size; ++i) {
		if (t->fields[i].sceneKey != NULL)
			used += (size_t)snprintf(out + used, size - used, "%s%s", used > 0 ? ", " : "", t->fields[i].sceneKey);
	}
	if (t->extra != NULL && used < size)
		snprintf(out + used, size - used, ", %s", t->extra);
}

// ------------------------------------------------------------------ values

static bool ReadInt(const Parser* p, const cJSON* j, const char* path, int* out)
{
	if (!cJSON_IsNumber(j))
		return Fail(p, path, "expected an integer, got %s", TypeName(j));
	double v = j->valuedouble;
	if (!isfinite(v) || v != floor(v))
		return Fail(p, path, "expected an integer, got %g", v);
	if (v < (double)INT_MIN || v > (double)INT_MAX)
		return Fail(p, path, "%g does not fit in an integer [%d, %d]", v, INT_MIN, INT_MAX);
	*out = (int)v;
	return true;
}

// Values beyond the float range become infinite, which the validators then reject by name.
static bool ReadFloat(const Parser* p, const cJSON* j, const char* path, float* out)
{
	if (!cJSON_IsNumber(j))
		return Fail(p, path, "expected a number, got %s", TypeName(j));
	double v = j->valuedouble;
	*out = fabs(v) > (double)FLT_MAX ? (v > 0.0 ? INFINITY : -INFINITY) : (float)v;
	return true;
}

static bool ReadBool(const Parser* p, const cJSON* j, const char* path, bool* out)
{
	if (!cJSON_IsBool(j))
		return Fail(p, path, "expected true or false, got %s", TypeName(j));
	*out = cJSON_IsTrue(j) != 0;
	return true;
}

static bool ReadVec3(const Parser* p, const cJSON* j, const char* path, wfVec3* out)
{
	if (!cJSON_IsArray(j))
		return Fail(p, path, "expected an array of 3 numbers, got %s", TypeName(j));
	int n = cJSON_GetArraySize(j);
	if (n != 3)
		return Fail(p, path, "expected an array of 3 numbers, got %d element%s", n, n == 1 ? "" : "s");
	float v[3];
	char item[WF_SCENE_PATH];
	for (int i = 0; i < 3; ++i) {
		JoinIndex(item, path, i);
		if (!ReadFloat(p, cJSON_GetArrayItem(j, i), item, &v[i]))
			return false;
	}
	*out = (wfVec3){v[0], v[1], v[2]};
	return true;
}

static bool ReadEnum(const Parser* p, const cJSON* j, const char* path, const wfFieldInfo* f, int* out)
{
	char names[160];
	wfJoinNames(f->enumNames, f->enumCount, names, sizeof names);
	if (!cJSON_IsString(j))
		return Fail(p, path, "expected a string (one of %s), got %s", names, TypeName(j));
	for (int i = 0; i < f->enumCount; ++i) {
		if (strcmp(f->enumNames[i], j->valuestring) == 0) {
			*out = i;
			return true;
		}
	}
	char value[400];
	return Fail(p, path, "\"%s\" is not one of %s", Printable(j->valuestring, value, sizeof value), names);
}

static bool ReadString(const Parser* p, const cJSON* j, const char* path, const char** out)
{
	if (!cJSON_IsString(j))
		return Fail(p, path, "expected a string, got %s", TypeName(j));
	size_t len = strlen(j->valuestring);
	char* copy = (char*)malloc(len + 1);
	if (copy == NULL)
		return Fail(p, path, "out of memory");
	memcpy(copy, j->valuestring, len + 1);
	*out = copy;
	return true;
}

static bool ReadIndexList(const Parser* p, const cJSON* j, const char* path, const int** list, int* count)
{
	if (!cJSON_IsArray(j))
		return Fail(p, path, "expected an array of integers, got %s", TypeName(j));
	int n = cJSON_GetArraySize(j);
	int* indices = n > 0 ? (int*)malloc((size_t)n * sizeof(int)) : NULL;
	if (n > 0 && indices == NULL)
		return Fail(p, path, "out of memory");
	// Owned by the scene from here on, so that a failure below frees it with the scene.
	*list = indices;
	*count = n;
	char item[WF_SCENE_PATH];
	int i = 0;
	for (const cJSON* e = j->child; e != NULL; e = e->next, ++i) {
		JoinIndex(item, path, i);
		if (!ReadInt(p, e, item, &indices[i]))
			return false;
	}
	return true;
}

// ------------------------------------------------------------------ objects

static const wfFieldInfo* FindField(const Table* t, const char* key)
{
	for (int i = 0; i < t->count; ++i) {
		if (t->fields[i].sceneKey != NULL && strcmp(t->fields[i].sceneKey, key) == 0)
			return &t->fields[i];
	}
	return NULL;
}

// Unknown and repeated keys. Earlier siblings are all known and distinct, so the repeat scan is short.
static bool CheckKey(const Parser* p, const cJSON* object, const cJSON* item, const Table* t, const char* path)
{
	if (FindField(t, item->string) == NULL && (t->extra == NULL || strcmp(t->extra, item->string) != 0)) {
		char known[384];
		ListKeys(t, known, sizeof known);
		return Fail(p, path, "unknown key (known: %s)", known);
	}
	for (const cJSON* prev = object->child; prev != item; prev = prev->next) {
		if (strcmp(prev->string, item->string) == 0)
			return Fail(p, path, "repeated key");
	}
	return true;
}

static bool ApplyObject(const Parser* p, const cJSON* json, const Table* t, void* base, const char* path);

static bool ApplyField(const Parser* p, const cJSON* j, const wfFieldInfo* f, void* base, const char* path)
{
	char* at = (char*)base + f->offset;
	int value = 0;
	Table nested;
	switch (f->type) {
	case WF_FIELD_BOOL: return ReadBool(p, j, path, (bool*)at);
	case WF_FIELD_INT: return ReadInt(p, j, path, (int*)at);
	case WF_FIELD_FLOAT: return ReadFloat(p, j, path, (float*)at);
	case WF_FIELD_VEC3: return ReadVec3(p, j, path, (wfVec3*)at);
	case WF_FIELD_STRING: return ReadString(p, j, path, (const char**)at);
	case WF_FIELD_INDEX_LIST: return ReadIndexList(p, j, path, (const int**)at, (int*)((char*)base + f->countOffset));
	case WF_FIELD_STRUCT: nested = DefTable(f->nested); return ApplyObject(p, j, &nested, at, path);
	case WF_FIELD_ENUM:
		if (!ReadEnum(p, j, path, f, &value))
			return false;
		memcpy(at, &value, sizeof value);
		return true;
	default: return true; // read outside the walk (rotate, keys, mesh, the root's sections)
	}
}

// Applies the keys of a JSON object to a def; absent keys keep their values.
static bool ApplyObject(const Parser* p, const cJSON* json, const Table* t, void* base, const char* path)
{
	if (!cJSON_IsObject(json))
		return Fail(p, path[0] != 0 ? path : "(top level)", "expected an object, got %s", TypeName(json));
	char child[WF_SCENE_PATH];
	for (const cJSON* item = json->child; item != NULL; item = item->next) {
		JoinKey(child, path, item->string);
		if (!CheckKey(p, json, item, t, child))
			return false;
		const wfFieldInfo* f = FindField(t, item->string);
		if (f != NULL && !ApplyField(p, item, f, base, child))
			return false;
	}
	return true;
}

// ------------------------------------------------------------------ the scene

static bool ApplyPreset(const Parser* p, const cJSON* root, wfScene* scene, wfClothDef* cloth)
{
	const cJSON* preset = cJSON_GetObjectItemCaseSensitive(root, "preset");
	if (preset == NULL)
		return true;
	char known[160], value[400];
	size_t used = 0;
	known[0] = 0;
	for (int i = 0; i < wfPresetCount() && used < sizeof known; ++i)
		used += (size_t)snprintf(known + used, sizeof known - used, "%s%s", i > 0 ? ", " : "", wfPresetName(i));
	if (!cJSON_IsString(preset))
		return Fail(p, "preset", "expected a string (one of %s), got %s", known, TypeName(preset));
	if (!wfPresetGet(preset->valuestring, &scene->world, cloth))
		return Fail(p, "preset", "\"%s\" is not one of %s", Printable(preset->valuestring, value, sizeof value), known);
	return true;
}

static bool CheckFrames(const Parser* p, const cJSON* root, const wfScene* scene)
{
	if (cJSON_GetObjectItemCaseSensitive(root, "frames") == NULL)
		return true;
	if (scene->frames < 1 || scene->frames > WF_MAX_SCENE_FRAMES)
		return Fail(p, "frames", "%d is out of range [1, %d]", scene->frames, WF_MAX_SCENE_FRAMES);
	return true;
}

// "pinIndices" alone means pinMode "list"; with another pin mode it would be ignored, so it is an
// error. The same for "attachIndices" and "attachMode".
static bool ResolveList(const Parser* p, const cJSON* json, const char* listKey, const char* modeKey, wfPinMode* mode, const char* path)
{
	if (cJSON_GetObjectItemCaseSensitive(json, listKey) == NULL)
		return true;
	if (cJSON_GetObjectItemCaseSensitive(json, modeKey) == NULL)
		*mode = WF_PIN_LIST;
	if (*mode == WF_PIN_LIST)
		return true;
	char key[WF_SCENE_PATH];
	JoinKey(key, path, listKey);
	return Fail(p, key, "only used with %s \"list\" (%s is \"%s\")", modeKey, modeKey, wfPinModeName(*mode));
}

static bool ResolvePins(const Parser* p, const cJSON* json, wfClothDef* cloth, const char* path)
{
	return ResolveList(p, json, "pinIndices", "pinMode", &cloth->pinMode, path) &&
		ResolveList(p, json, "attachIndices", "attachMode", &cloth->attachMode, path);
}

// "transform": {"scale": s or [sx, sy, sz], "rotate": [x, y, z] degrees (about x, then y, then z),
// "translate": [x, y, z]}, applied in that order to the mesh's positions.
static bool ReadTransform(const Parser* p, const cJSON* json, const char* path, double m[3][4])
{
	double scale[3] = {1.0, 1.0, 1.0}, angle[3] = {0.0, 0.0, 0.0};
	wfVec3 translate = {0.0f, 0.0f, 0.0f};
	char key[WF_SCENE_PATH];
	if (!cJSON_IsObject(json))
		return Fail(p, path, "expected an object with scale, rotate and translate, got %s", TypeName(json));
	for (const cJSON* item = json->child; item != NULL; item = item->next) {
		JoinKey(key, path, item->string);
		wfVec3 v;
		if (strcmp(item->string, "scale") == 0 && cJSON_IsNumber(item)) {
			float f = 1.0f;
			if (!ReadFloat(p, item, key, &f))
				return false;
			v = (wfVec3){f, f, f};
		} else if (strcmp(item->string, "scale") == 0 || strcmp(item->string, "rotate") == 0 || strcmp(item->string, "translate") == 0) {
			if (!ReadVec3(p, item, key, &v))
				return false;
		} else {
			return Fail(p, key, "unknown key (transform takes scale, rotate, translate)");
		}
		double d[3] = {v.x, v.y, v.z};
		for (int k = 0; k < 3; ++k) {
			bool isScale = item->string[0] == 's';
			if (!isfinite(d[k]) || fabs(d[k]) > 1e6 || (isScale && !(d[k] > 0.0)))
				return Fail(p, key, "%g is out of range %s", d[k], isScale ? "(0, 1e6]" : "[-1e6, 1e6]");
			if (isScale)
				scale[k] = d[k];
			else if (item->string[0] == 'r')
				angle[k] = d[k] * 3.14159265358979323846 / 180.0;
		}
		if (item->string[0] == 't')
			translate = v;
	}
	// R = Rz Ry Rx, then M = [R diag(scale) | translate].
	double cx = cos(angle[0]), sx = sin(angle[0]), cy = cos(angle[1]), sy = sin(angle[1]), cz = cos(angle[2]), sz = sin(angle[2]);
	double r[3][3] = {
		{cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx},
		{sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx},
		{-sy, cy * sx, cy * cx},
	};
	double t[3] = {translate.x, translate.y, translate.z};
	for (int i = 0; i < 3; ++i) {
		for (int k = 0; k < 3; ++k)
			m[i][k] = r[i][k] * scale[k];
		m[i][3] = t[i];
	}
	return true;
}

// "mesh": the OBJ file (relative to the scene file's folder) through "transform" (of `owner`: the
// object itself, or for a collider's key the collider); *target points at the def.
static bool LoadMesh(const Parser* p, const cJSON* json, const cJSON* owner, SceneMesh* out, const wfMeshDef** target, const char* path,
	const char* ownerPath)
{
	const cJSON* file = cJSON_GetObjectItemCaseSensitive(json, "mesh");
	const cJSON* transform = cJSON_GetObjectItemCaseSensitive(owner, "transform");
	char key[WF_SCENE_PATH];
	if (file == NULL) {
		JoinKey(key, path, "transform");
		return json != owner || transform == NULL || Fail(p, key, "only used with \"mesh\"");
	}
	JoinKey(key, path, "mesh");
	if (!cJSON_IsString(file) || file->valuestring[0] == 0)
		return Fail(p, key, "expected the path of an OBJ file, got %s", cJSON_IsString(file) ? "\"\"" : TypeName(file));
	double m[3][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}};
	char tkey[WF_SCENE_PATH];
	JoinKey(tkey, ownerPath, "transform");
	if (transform != NULL && !ReadTransform(p, transform, tkey, m))
		return false;
	// Relative to the folder of the scene file.
	char full[1024];
	const char* slash = strrchr(p->name, '/');
	int folder = file->valuestring[0] != '/' && slash != NULL ? (int)(slash - p->name) + 1 : 0;
	if (snprintf(full, sizeof full, "%.*s%s", folder, p->name, file->valuestring) >= (int)sizeof full)
		return Fail(p, key, "path longer than %zu characters", sizeof full - 1);
	char msg[320];
	out->mesh = wfMesh_LoadObj(full, msg, (int)sizeof msg);
	if (out->mesh == NULL)
		return Fail(p, key, "%s", msg);
	out->def = wfMesh_GetDef(out->mesh);
	out->positions = (wfVec3*)malloc((size_t)out->def.vertexCount * sizeof(wfVec3));
	if (out->positions == NULL)
		return Fail(p, key, "out of memory");
	for (int i = 0; i < out->def.vertexCount; ++i) {
		wfVec3 q = out->def.positions[i];
		double v[3] = {q.x, q.y, q.z}, w[3];
		for (int r = 0; r < 3; ++r)
			w[r] = m[r][0] * v[0] + m[r][1] * v[1] + m[r][2] * v[2] + m[r][3];
		out->positions[i] = (wfVec3){(float)w[0], (float)w[1], (float)w[2]};
	}
	out->def.positions = out->positions;
	*target = &out->def;
	return true;
}

static bool ParseCloth(const Parser* p, const cJSON* json, wfClothDef* cloth, SceneMesh* mesh, const char* path)
{
	char msg[256];
	Table table = DefTable(WF_DEF_CLOTH);
	if (!ApplyObject(p, json, &table, cloth, path) || !ResolvePins(p, json, cloth, path) ||
		!LoadMesh(p, json, json, mesh, &cloth->mesh, path, path))
		return false;
	if (!wfValidateClothDef(cloth, msg, (int)sizeof msg))
		return FailValidation(p, path, msg);
	return true;
}

// "cloth": {...} or "cloths": [{...}, ...]; neither gives one cloth with the base def.
static bool ParseCloths(const Parser* p, const cJSON* root, wfScene* scene, const wfClothDef* base)
{
	const cJSON* one = cJSON_GetObjectItemCaseSensitive(root, "cloth");
	const cJSON* many = cJSON_GetObjectItemCaseSensitive(root, "cloths");
	if (one != NULL && many != NULL)
		return Fail(p, "cloths", "give either \"cloth\" or \"cloths\", not both");
	if (many != NULL && !cJSON_IsArray(many))
		return Fail(p, "cloths", "expected an array of objects, got %s", TypeName(many));
	int count = many != NULL ? cJSON_GetArraySize(many) : 1;
	if (count < 1 || count > WF_SCENE_MAX_CLOTHS)
		return Fail(p, "cloths", "%d cloths, allowed [1, %d]", count, WF_SCENE_MAX_CLOTHS);
	scene->cloths = (wfClothDef*)calloc((size_t)count, sizeof(wfClothDef));
	scene->meshes = (SceneMesh*)calloc((size_t)count, sizeof(SceneMesh));
	if (scene->cloths == NULL || scene->meshes == NULL)
		return Fail(p, "cloths", "out of memory");
	scene->clothCount = count;
	for (int i = 0; i < count; ++i)
		scene->cloths[i] = *base;
	if (many == NULL)
		return one == NULL || ParseCloth(p, one, &scene->cloths[0], &scene->meshes[0], "cloth");
	char path[WF_SCENE_PATH];
	int i = 0;
	for (const cJSON* item = many->child; item != NULL; item = item->next, ++i) {
		JoinIndex(path, "cloths", i);
		if (!ParseCloth(p, item, &scene->cloths[i], &scene->meshes[i], path))
			return false;
	}
	return true;
}

// "rotate": [x, y, z] degrees (about x, then y, then z) as a quaternion, when the object has it.
static bool ReadRotate(const Parser* p, const cJSON* item, const char* path, wfQuat* out)
{
	const cJSON* rotate = cJSON_GetObjectItemCaseSensitive(item, "rotate");
	if (rotate == NULL)
		return true;
	char key[WF_SCENE_PATH];
	wfVec3 deg;
	JoinKey(key, path, "rotate");
	if (!ReadVec3(p, rotate, key, &deg))
		return false;
	if (!(fabsf(deg.x) <= 1e6f && fabsf(deg.y) <= 1e6f && fabsf(deg.z) <= 1e6f))
		return Fail(p, key, "each angle within [-1e6, 1e6] degrees");
	// q = qz qy qx (about x first).
	const double k = 3.14159265358979323846 / 360.0;
	double cx = cos(deg.x * k), sx = sin(deg.x * k), cy = cos(deg.y * k), sy = sin(deg.y * k), cz = cos(deg.z * k), sz = sin(deg.z * k);
	*out = (wfQuat){(float)(sx * cy * cz - cx * sy * sz), (float)(cx * sy * cz + sx * cy * sz), (float)(cx * cy * sz - sx * sy * cz),
		(float)(cx * cy * cz + sx * sy * sz)};
	return true;
}

// A collider's "keys": [{"time": s, "position": [...], "rotate": [...]}, ...], owned by the scene.
static bool ReadKeys(const Parser* p, const cJSON* item, const char* path, wfColliderDef* d, wfColliderKey** owned)
{
	const cJSON* keys = cJSON_GetObjectItemCaseSensitive(item, "keys");
	if (keys == NULL)
		return true;
	char key[WF_SCENE_PATH], at[WF_SCENE_PATH];
	JoinKey(key, path, "keys");
	if (!cJSON_IsArray(keys))
		return Fail(p, key, "expected an array of objects, got %s", TypeName(keys));
	int count = cJSON_GetArraySize(keys);
	if (count < 1 || count > WF_MAX_COLLIDER_KEYS)
		return Fail(p, key, "%d keys, allowed [1, %d]", count, WF_MAX_COLLIDER_KEYS);
	*owned = (wfColliderKey*)calloc((size_t)count, sizeof(wfColliderKey));
	if (*owned == NULL)
		return Fail(p, key, "out of memory");
	Table table = DefTable(WF_DEF_COLLIDER_KEY);
	int i = 0;
	for (const cJSON* k = keys->child; k != NULL; k = k->next, ++i) {
		JoinIndex(at, key, i);
		wfColliderKey* out = &(*owned)[i];
		out->position = d->position;
		out->rotation = (wfQuat){0.0f, 0.0f, 0.0f, 1.0f};
		if (!ApplyObject(p, k, &table, out, at) || !ReadRotate(p, k, at, &out->rotation))
			return false;
	}
	d->keys = *owned;
	d->keyCount = count;
	return true;
}

// A mesh collider's keys may each give a shape ("mesh": an OBJ file of the collider mesh's topology,
// through the collider's "transform"): all of them or none. Into keyPositions, owned by the scene.
static bool ReadKeyShapes(const Parser* p, const cJSON* item, const char* path, wfColliderDef* d, wfVec3** owned)
{
	const cJSON* keys = cJSON_GetObjectItemCaseSensitive(item, "keys");
	int shapes = 0;
	for (const cJSON* k = keys != NULL ? keys->child : NULL; k != NULL; k = k->next)
		shapes += cJSON_GetObjectItemCaseSensitive(k, "mesh") != NULL;
	if (shapes == 0)
		return true;
	char key[WF_SCENE_PATH], at[WF_SCENE_PATH];
	JoinKey(key, path, "keys");
	if (d->mesh == NULL)
		return Fail(p, key, "a key's \"mesh\" needs the collider's (type mesh with a \"mesh\")");
	const wfMeshDef* m = d->mesh;
	*owned = (wfVec3*)malloc((size_t)d->keyCount * (size_t)m->vertexCount * sizeof(wfVec3));
	if (*owned == NULL)
		return Fail(p, key, "out of memory");
	int corners = 0;
	for (int f = 0; f < m->faceCount; ++f)
		corners += m->faceSizes != NULL ? m->faceSizes[f] : 3;
	int i = 0;
	for (const cJSON* k = keys->child; k != NULL; k = k->next, ++i) {
		JoinIndex(at, key, i);
		if (cJSON_GetObjectItemCaseSensitive(k, "mesh") == NULL)
			return Fail(p, at, "no \"mesh\": when one key gives a shape, every key does");
		SceneMesh pose = {0};
		const wfMeshDef* def = NULL;
		bool ok = LoadMesh(p, k, item, &pose, &def, at, path);
		char mkey[WF_SCENE_PATH];
		JoinKey(mkey, at, "mesh");
		if (ok && (def->vertexCount != m->vertexCount || def->faceCount != m->faceCount))
			ok = Fail(p, mkey, "%d vertices and %d faces, the collider's mesh has %d and %d (every shape has its topology)",
				def->vertexCount, def->faceCount, m->vertexCount, m->faceCount);
		if (ok &&
			(memcmp(def->indices, m->indices, (size_t)corners * sizeof(uint32_t)) != 0 ||
				(m->faceSizes != NULL) != (def->faceSizes != NULL) ||
				(m->faceSizes != NULL && memcmp(def->faceSizes, m->faceSizes, (size_t)m->faceCount) != 0)))
			ok = Fail(p, mkey, "its faces join other vertices than the collider's mesh (every shape has its topology)");
		if (ok)
			memcpy(*owned + (size_t)i * (size_t)m->vertexCount, def->positions, (size_t)m->vertexCount * sizeof(wfVec3));
		wfDestroyMesh(pose.mesh);
		free(pose.positions);
		if (!ok)
			return false;
	}
	d->keyPositions = *owned;
	d->keyPositionCount = d->keyCount * m->vertexCount;
	return true;
}

// "colliders": [{"type": "capsule", "position": [...], "rotate": [x, y, z] degrees, ...}, ...]
static bool ParseColliders(const Parser* p, const cJSON* root, wfScene* scene)
{
	const cJSON* list = cJSON_GetObjectItemCaseSensitive(root, "colliders");
	if (list == NULL)
		return true;
	if (!cJSON_IsArray(list))
		return Fail(p, "colliders", "expected an array of objects, got %s", TypeName(list));
	int count = cJSON_GetArraySize(list);
	if (count > WF_MAX_COLLIDERS)
		return Fail(p, "colliders", "%d colliders, allowed [0, %d]", count, WF_MAX_COLLIDERS);
	scene->colliders = (wfColliderDef*)calloc((size_t)(count > 0 ? count : 1), sizeof(wfColliderDef));
	if (scene->colliders == NULL)
		return Fail(p, "colliders", "out of memory");
	char path[WF_SCENE_PATH], msg[256];
	Table table = DefTable(WF_DEF_COLLIDER);
	int i = 0;
	for (const cJSON* item = list->child; item != NULL; item = item->next, ++i) {
		JoinIndex(path, "colliders", i);
		wfColliderDef* d = &scene->colliders[i];
		*d = wfDefaultColliderDef();
		if (!ApplyObject(p, item, &table, d, path))
			return false;
		if (!ReadRotate(p, item, path, &d->rotation) || !ReadKeys(p, item, path, d, &scene->colliderKeys[i]) ||
			!LoadMesh(p, item, item, &scene->colliderMeshes[i], &d->mesh, path, path) ||
			!ReadKeyShapes(p, item, path, d, &scene->colliderKeyShapes[i]))
			return false;
		if (!wfValidateColliderDef(d, msg, (int)sizeof msg))
			return FailValidation(p, path, strncmp(msg, "collider.", 9) == 0 ? msg + 9 : msg);
	}
	scene->colliderCount = count;
	return true;
}

static bool ParseRoot(const Parser* p, const cJSON* root, wfScene* scene)
{
	char msg[256];
	wfClothDef base = wfDefaultClothDef();
	scene->world = wfDefaultWorldDef();
	// Keys and "frames" first, then the preset: the world and cloth keys override it in any order.
	if (!ApplyObject(p, root, &kRootTable, scene, "") || !ApplyPreset(p, root, scene, &base))
		return false;
	const cJSON* world = cJSON_GetObjectItemCaseSensitive(root, "world");
	Table table = DefTable(WF_DEF_WORLD);
	if (world != NULL && !ApplyObject(p, world, &table, &scene->world, "world"))
		return false;
	if (!CheckFrames(p, root, scene))
		return false;
	if (!wfValidateWorldDef(&scene->world, msg, (int)sizeof msg))
		return FailValidation(p, "world", msg);
	return ParseColliders(p, root, scene) && ParseCloths(p, root, scene, &base);
}

// The text around a syntax error on its line, at most 16 characters either side, trimmed.
static void Excerpt(const char* text, const char* at, char* out, int size)
{
	const char* begin = at;
	const char* end = at;
	while (begin > text && begin[-1] != '\n' && at - begin < 16)
		--begin;
	while (*end != 0 && *end != '\n' && end - at < 16)
		++end;
	while (begin < end && (*begin == ' ' || *begin == '\t'))
		++begin;
	while (end > begin && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		--end;
	int n = 0;
	for (const char* c = begin; c < end && n < size - 1; ++c)
		out[n++] = (*c >= 0x20 && *c < 0x7f) ? *c : '?';
	out[n] = 0;
}

// Line and column (1-based) of `at` in text.
static void Where(const char* text, const char* at, char* out, size_t size)
{
	int line = 1, column = 1;
	for (const char* c = text; c < at && *c != 0; ++c) {
		line += *c == '\n';
		column = *c == '\n' ? 1 : column + 1;
	}
	snprintf(out, size, "line %d, column %d", line, column);
}

// cJSON reports where the syntax broke through return_parse_end (the same pointer as
// cJSON_GetErrorPtr, without its process-wide state); the message gives line and column.
static void SyntaxError(const Parser* p, const char* text, const char* at, bool nulByte)
{
	char where[64], near[40];
	Where(text, at, where, sizeof where);
	Excerpt(text, at, near, (int)sizeof near);
	if (nulByte)
		Fail(p, where, "a NUL byte; a scene file is UTF-8 text");
	else if (near[0] != 0)
		Fail(p, where, "JSON syntax error near '%s'%s", near, *at == 0 ? " at the end of the file" : "");
	else
		Fail(p, where, "JSON syntax error%s", *at == 0 ? ": unexpected end of file" : "");
}

// The length of the well-formed UTF-8 sequence at s (1 to 4), or 0: no overlong forms, no
// surrogates, nothing above U+10FFFF.
static int Utf8Length(const unsigned char* s)
{
	if (s[0] < 0x80)
		return 1;
	int n = s[0] >= 0xc2 && s[0] <= 0xdf ? 2 : s[0] >= 0xe0 && s[0] <= 0xef ? 3 : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
	if (n == 0)
		return 0;
	for (int i = 1; i < n; ++i) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	}
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) || (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return n;
}

// Before cJSON sees the text: it must be UTF-8 (cJSON copies any bytes into strings), and arrays
// and objects may nest WF_SCENE_MAX_DEPTH deep (cJSON's own limit of 1000 is reported as a plain
// syntax error, and its parser recurses that deep).
static bool CheckText(const Parser* p, const char* text)
{
	char where[64];
	int depth = 0;
	bool inString = false;
	for (const unsigned char* c = (const unsigned char*)text; *c != 0;) {
		int n = Utf8Length(c);
		if (n == 0) {
			Where(text, (const char*)c, where, sizeof where);
			return Fail(p, where, "invalid UTF-8 (byte 0x%02x); a scene file is UTF-8 text", *c);
		}
		if (inString) {
			if (*c == '\\' && c[1] != 0 && c[1] < 0x80)
				n = 2; // an escape: the next character cannot end the string
			else if (*c == '"')
				inString = false;
		} else if (*c == '"') {
			inString = true;
		} else if (*c == '[' || *c == '{') {
			if (++depth > WF_SCENE_MAX_DEPTH) {
				Where(text, (const char*)c, where, sizeof where);
				return Fail(p, where, "nested too deep (more than %d levels of arrays and objects)", WF_SCENE_MAX_DEPTH);
			}
		} else if (*c == ']' || *c == '}') {
			depth -= depth > 0;
		}
		c += n;
	}
	return true;
}

wfScene* wfScene_Parse(const char* text, const char* name, char* error, int errorSize)
{
	char scratch[8];
	Parser p = {name != NULL ? name : "scene", error, errorSize};
	if (error == NULL || errorSize <= 0) {
		p.error = scratch;
		p.errorSize = (int)sizeof scratch;
	}
	p.error[0] = 0;
	if (text == NULL) {
		Fail(&p, "(file)", "no text");
		return NULL;
	}
	if (!CheckText(&p, text))
		return NULL;
	const char* end = text;
	cJSON* root = cJSON_ParseWithOpts(text, &end, 1);
	if (root == NULL) {
		SyntaxError(&p, text, end != NULL ? end : text, false);
		return NULL;
	}
	wfScene* scene = (wfScene*)calloc(1, sizeof(wfScene));
	bool ok = scene != NULL && ParseRoot(&p, root, scene);
	if (scene == NULL)
		Fail(&p, "(file)", "out of memory");
	cJSON_Delete(root);
	if (!ok) {
		wfDestroyScene(scene);
		return NULL;
	}
	return scene;
}

// A whole file as a NUL-terminated string; *size excludes the terminator.
static char* ReadWholeFile(const Parser* p, const char* path, size_t* size)
{
	FILE* f = fopen(path, "rb");
	if (f == NULL) {
		Fail(p, "cannot open", "%s", strerror(errno));
		return NULL;
	}
	char* text = NULL;
	*size = 0;
	const char* problem = wfReadAll(f, &text, size);
	if (problem != NULL) {
		Fail(p, "cannot read", "%s", problem);
		free(text);
		text = NULL;
	} else {
		text[*size] = 0;
	}
	fclose(f);
	return text;
}

wfScene* wfScene_Load(const char* path, char* error, int errorSize)
{
	char scratch[8];
	Parser p = {path != NULL ? path : "(null)", error, errorSize};
	if (error == NULL || errorSize <= 0) {
		p.error = scratch;
		p.errorSize = (int)sizeof scratch;
	}
	p.error[0] = 0;
	if (path == NULL) {
		Fail(&p, "cannot open", "no path");
		return NULL;
	}
	size_t size = 0;
	char* text = ReadWholeFile(&p, path, &size);
	if (text == NULL)
		return NULL;
	wfScene* scene = NULL;
	size_t length = strlen(text);
	if (length != size)
		SyntaxError(&p, text, text + length, true);
	else
		scene = wfScene_Parse(text, path, p.error, p.errorSize);
	free(text);
	return scene;
}

void wfDestroyScene(wfScene* scene)
{
	if (scene == NULL)
		return;
	free((void*)scene->world.deviceName);
	free((void*)scene->description);
	for (int i = 0; i < scene->clothCount; ++i) {
		free((void*)scene->cloths[i].pinIndices);
		free((void*)scene->cloths[i].attachIndices);
		if (scene->meshes != NULL) {
			wfDestroyMesh(scene->meshes[i].mesh);
			free(scene->meshes[i].positions);
		}
	}
	free(scene->cloths);
	free(scene->meshes);
	free(scene->colliders);
	for (int i = 0; i < WF_MAX_COLLIDERS; ++i) {
		free(scene->colliderKeys[i]);
		wfDestroyMesh(scene->colliderMeshes[i].mesh);
		free(scene->colliderMeshes[i].positions);
		free(scene->colliderKeyShapes[i]);
	}
	free(scene);
}

wfWorldDef wfScene_GetWorldDef(const wfScene* scene) { return scene != NULL ? scene->world : wfDefaultWorldDef(); }

int wfScene_GetClothCount(const wfScene* scene) { return scene != NULL ? scene->clothCount : 0; }

wfClothDef wfScene_GetClothDef(const wfScene* scene, int index)
{
	if (scene == NULL || index < 0 || index >= scene->clothCount)
		return wfDefaultClothDef();
	return scene->cloths[index];
}

int wfScene_GetColliderCount(const wfScene* scene) { return scene != NULL ? scene->colliderCount : 0; }

wfColliderDef wfScene_GetColliderDef(const wfScene* scene, int index)
{
	if (scene == NULL || index < 0 || index >= scene->colliderCount)
		return wfDefaultColliderDef();
	return scene->colliders[index];
}

int wfScene_GetFrames(const wfScene* scene) { return scene != NULL ? scene->frames : 0; }
