// A cJSON-compatible JSON parser for the wasm build only (Debian ships cJSON as a native binary,
// not as a source the wasm target could compile): the subset of cJSON's interface that
// src/core/scene.c uses, with cJSON's tree (child/next lists, key in `string`) and cJSON's
// behaviour where scene.c can see it: the same accepted texts, the same values, and on a syntax
// error the same position through return_parse_end. web/shim/cjson_shim.c; checked against the
// real cJSON by tests/web/scene_shim_check.c. The functions are named wfJson* (mapped below), so
// the check can link this and the real library into one program.
#ifndef WEFT_CJSON_SHIM_H
#define WEFT_CJSON_SHIM_H

#ifdef __cplusplus
extern "C" {
#endif

// cJSON's type bits.
#define cJSON_Invalid (0)
#define cJSON_False (1 << 0)
#define cJSON_True (1 << 1)
#define cJSON_NULL (1 << 2)
#define cJSON_Number (1 << 3)
#define cJSON_String (1 << 4)
#define cJSON_Array (1 << 5)
#define cJSON_Object (1 << 6)

typedef int cJSON_bool;

typedef struct cJSON {
	struct cJSON* next; // the next item of the enclosing array or object
	struct cJSON* prev;
	struct cJSON* child; // the first item of an array or object
	int type;            // cJSON_* bits
	char* valuestring;   // strings: the decoded UTF-8 text
	int valueint;        // numbers: valuedouble saturated to int
	double valuedouble;  // numbers
	char* string;        // items of an object: the key
} cJSON;

#define cJSON_ParseWithOpts wfJsonParseWithOpts
#define cJSON_Delete wfJsonDelete
#define cJSON_GetObjectItemCaseSensitive wfJsonGetObjectItemCaseSensitive
#define cJSON_GetArraySize wfJsonGetArraySize
#define cJSON_GetArrayItem wfJsonGetArrayItem
#define cJSON_IsInvalid wfJsonIsInvalid
#define cJSON_IsFalse wfJsonIsFalse
#define cJSON_IsTrue wfJsonIsTrue
#define cJSON_IsBool wfJsonIsBool
#define cJSON_IsNull wfJsonIsNull
#define cJSON_IsNumber wfJsonIsNumber
#define cJSON_IsString wfJsonIsString
#define cJSON_IsArray wfJsonIsArray
#define cJSON_IsObject wfJsonIsObject

// Parses a NUL-terminated text; NULL on a syntax error, with *return_parse_end (when given) where
// the parse stopped. require_null_terminated: nothing but whitespace may follow the value.
cJSON* wfJsonParseWithOpts(const char* value, const char** return_parse_end, cJSON_bool require_null_terminated);
void wfJsonDelete(cJSON* item);
cJSON* wfJsonGetObjectItemCaseSensitive(const cJSON* object, const char* name); // the first item with that key
int wfJsonGetArraySize(const cJSON* array);
cJSON* wfJsonGetArrayItem(const cJSON* array, int index);
cJSON_bool wfJsonIsInvalid(const cJSON* item);
cJSON_bool wfJsonIsFalse(const cJSON* item);
cJSON_bool wfJsonIsTrue(const cJSON* item);
cJSON_bool wfJsonIsBool(const cJSON* item);
cJSON_bool wfJsonIsNull(const cJSON* item);
cJSON_bool wfJsonIsNumber(const cJSON* item);
cJSON_bool wfJsonIsString(const cJSON* item);
cJSON_bool wfJsonIsArray(const cJSON* item);
cJSON_bool wfJsonIsObject(const cJSON* item);

#ifdef __cplusplus
}
#endif

#endif
