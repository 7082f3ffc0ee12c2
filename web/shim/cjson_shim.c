// The wasm build's JSON parser (cJSON.h beside it says why): a recursive-descent parser that builds
// cJSON's tree and fails where cJSON fails, at the position cJSON reports. cJSON's rules that a
// scene file can see, as documented by its behaviour (tests/web/scene_shim_check.c compares the two
// on every scene and bad scene the tests use and on every truncation and byte change of them):
// - whitespace is any byte up to 32; the parse never moves past the terminating NUL;
// - a UTF-8 byte order mark is skipped when the text has at least 4 bytes;
// - numbers are the longest run (at most 63) of digits, + - e E . read by strtod;
// - in strings only the escapes b f n r t " \ / and \uXXXX (surrogate pairs joined) are accepted; a
//   \u with a non-hex digit decodes as U+0000; other bytes are copied as they are;
// - where it stops: a bad value at its first byte, a bad escape at its backslash, an unterminated
//   string (or an object key that is not a string) one byte past where the string should start.
#include "cjson/cJSON.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum { WF_JSON_NESTING_LIMIT = 1000 };

typedef struct Reader {
	const unsigned char* text;
	size_t length; // bytes including the terminating NUL
	size_t at;
	int depth;
} Reader;

static void SkipSpace(Reader* r)
{
	while (r->at < r->length && r->text[r->at] <= 32)
		r->at++;
	if (r->at == r->length)
		r->at--;
}

static cJSON* NewItem(void) { return (cJSON*)calloc(1, sizeof(cJSON)); }

void wfJsonDelete(cJSON* item)
{
	while (item != NULL) {
		cJSON* next = item->next;
		wfJsonDelete(item->child);
		free(item->valuestring);
		free(item->string);
		free(item);
		item = next;
	}
}

static unsigned Hex4(const unsigned char* s)
{
	unsigned h = 0;
	for (int i = 0; i < 4; ++i) {
		unsigned d;
		if (s[i] >= '0' && s[i] <= '9')
			d = (unsigned)(s[i] - '0');
		else if (s[i] >= 'a' && s[i] <= 'f')
			d = (unsigned)(s[i] - 'a' + 10);
		else if (s[i] >= 'A' && s[i] <= 'F')
			d = (unsigned)(s[i] - 'A' + 10);
		else
			return 0;
		h = (h << 4) | d;
	}
	return h;
}

// A \u escape at s (before `end`, the closing quote) into out; the bytes it took, 0 if bad.
static size_t Unicode(const unsigned char* s, const unsigned char* end, unsigned char** out)
{
	if (end - s < 6)
		return 0;
	unsigned code = Hex4(s + 2);
	size_t taken = 6;
	if (code >= 0xdc00 && code <= 0xdfff)
		return 0;
	if (code >= 0xd800 && code <= 0xdbff) {
		const unsigned char* low = s + 6;
		if (end - low < 6 || low[0] != '\\' || low[1] != 'u')
			return 0;
		unsigned second = Hex4(low + 2);
		if (second < 0xdc00 || second > 0xdfff)
			return 0;
		code = 0x10000 + (((code & 0x3ff) << 10) | (second & 0x3ff));
		taken = 12;
	}
	unsigned char* o = *out;
	if (code < 0x80) {
		*o++ = (unsigned char)code;
	} else if (code < 0x800) {
		*o++ = (unsigned char)(0xc0 | (code >> 6));
		*o++ = (unsigned char)(0x80 | (code & 0x3f));
	} else if (code < 0x10000) {
		*o++ = (unsigned char)(0xe0 | (code >> 12));
		*o++ = (unsigned char)(0x80 | ((code >> 6) & 0x3f));
		*o++ = (unsigned char)(0x80 | (code & 0x3f));
	} else {
		*o++ = (unsigned char)(0xf0 | (code >> 18));
		*o++ = (unsigned char)(0x80 | ((code >> 12) & 0x3f));
		*o++ = (unsigned char)(0x80 | ((code >> 6) & 0x3f));
		*o++ = (unsigned char)(0x80 | (code & 0x3f));
	}
	*out = o;
	return taken;
}

// A string at r->at (which should be its opening quote) into a new NUL-terminated buffer.
static char* ParseString(Reader* r)
{
	const size_t start = r->at, inner = start + 1;
	if (r->text[start] != '"') {
		r->at = inner;
		return NULL;
	}
	size_t end = inner;
	while (end < r->length && r->text[end] != '"') {
		if (r->text[end] == '\\') {
			if (end + 1 >= r->length) {
				r->at = inner;
				return NULL;
			}
			end++;
		}
		end++;
	}
	if (end >= r->length || r->text[end] != '"') {
		r->at = inner;
		return NULL;
	}
	unsigned char* out = (unsigned char*)malloc(end - inner + 1);
	if (out == NULL) {
		r->at = inner;
		return NULL;
	}
	unsigned char* o = out;
	const unsigned char* p = r->text + inner;
	const unsigned char* stop = r->text + end;
	while (p < stop) {
		if (*p != '\\') {
			*o++ = *p++;
			continue;
		}
		size_t taken = 2;
		switch (p[1]) {
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case '"':
		case '\\':
		case '/': *o++ = p[1]; break;
		case 'u': taken = Unicode(p, stop, &o); break;
		default: taken = 0; break;
		}
		if (taken == 0) {
			r->at = (size_t)(p - r->text);
			free(out);
			return NULL;
		}
		p += taken;
	}
	*o = 0;
	r->at = end + 1;
	return (char*)out;
}

static cJSON_bool ParseNumber(Reader* r, cJSON* item)
{
	char digits[64];
	size_t n = 0;
	while (
		n < sizeof digits - 1 && r->at + n < r->length && strchr("0123456789+-eE.", r->text[r->at + n]) != NULL && r->text[r->at + n] != 0)
		digits[n] = (char)r->text[r->at + n], n++;
	digits[n] = 0;
	char* after = NULL;
	const double v = strtod(digits, &after);
	if (after == digits)
		return 0;
	item->type = cJSON_Number;
	item->valuedouble = v;
	item->valueint = v >= (double)INT_MAX ? INT_MAX : v <= (double)INT_MIN ? INT_MIN : (int)v;
	r->at += (size_t)(after - digits);
	return 1;
}

static cJSON_bool ParseValue(Reader* r, cJSON* item);

// Appends a new item to parent's children; NULL when out of memory.
static cJSON* Append(cJSON* parent, cJSON** last)
{
	cJSON* it = NewItem();
	if (it == NULL)
		return NULL;
	if (*last == NULL)
		parent->child = it;
	else {
		(*last)->next = it;
		it->prev = *last;
	}
	*last = it;
	return it;
}

static cJSON_bool ParseArray(Reader* r, cJSON* item)
{
	if (r->depth >= WF_JSON_NESTING_LIMIT)
		return 0;
	r->depth++;
	item->type = cJSON_Array;
	r->at++;
	SkipSpace(r);
	cJSON* last = NULL;
	if (r->text[r->at] != ']') {
		for (;;) {
			cJSON* it = Append(item, &last);
			if (it == NULL || !ParseValue(r, it))
				return 0;
			SkipSpace(r);
			if (r->text[r->at] != ',')
				break;
			r->at++;
			SkipSpace(r);
		}
		if (r->text[r->at] != ']')
			return 0;
	}
	r->at++;
	r->depth--;
	return 1;
}

static cJSON_bool ParseObject(Reader* r, cJSON* item)
{
	if (r->depth >= WF_JSON_NESTING_LIMIT)
		return 0;
	r->depth++;
	item->type = cJSON_Object;
	r->at++;
	SkipSpace(r);
	cJSON* last = NULL;
	if (r->text[r->at] != '}') {
		for (;;) {
			cJSON* it = Append(item, &last);
			if (it == NULL)
				return 0;
			it->string = ParseString(r);
			if (it->string == NULL)
				return 0;
			SkipSpace(r);
			if (r->text[r->at] != ':')
				return 0;
			r->at++;
			SkipSpace(r);
			if (!ParseValue(r, it))
				return 0;
			SkipSpace(r);
			if (r->text[r->at] != ',')
				break;
			r->at++;
			SkipSpace(r);
		}
		if (r->text[r->at] != '}')
			return 0;
	}
	r->at++;
	r->depth--;
	return 1;
}

static cJSON_bool Literal(Reader* r, const char* word, int type, cJSON* item)
{
	const size_t n = strlen(word);
	if (r->at + n > r->length || memcmp(r->text + r->at, word, n) != 0)
		return 0;
	item->type = type;
	item->valueint = type == cJSON_True;
	r->at += n;
	return 1;
}

static cJSON_bool ParseValue(Reader* r, cJSON* item)
{
	const unsigned char c = r->text[r->at];
	if (Literal(r, "null", cJSON_NULL, item) || Literal(r, "false", cJSON_False, item) || Literal(r, "true", cJSON_True, item))
		return 1;
	if (c == '"') {
		item->valuestring = ParseString(r);
		item->type = cJSON_String;
		return item->valuestring != NULL;
	}
	if (c == '-' || (c >= '0' && c <= '9'))
		return ParseNumber(r, item);
	if (c == '[')
		return ParseArray(r, item);
	if (c == '{')
		return ParseObject(r, item);
	return 0;
}

cJSON* wfJsonParseWithOpts(const char* value, const char** return_parse_end, cJSON_bool require_null_terminated)
{
	if (value == NULL)
		return NULL;
	Reader r = {(const unsigned char*)value, strlen(value) + 1, 0, 0};
	if (r.length > 4 && memcmp(value, "\xef\xbb\xbf", 3) == 0)
		r.at = 3;
	SkipSpace(&r);
	cJSON* root = NewItem();
	bool ok = root != NULL && ParseValue(&r, root);
	if (ok && require_null_terminated) {
		SkipSpace(&r);
		ok = r.text[r.at] == 0;
	}
	if (!ok) {
		wfJsonDelete(root);
		if (return_parse_end != NULL)
			*return_parse_end = value + (r.at < r.length ? r.at : r.length - 1);
		return NULL;
	}
	if (return_parse_end != NULL)
		*return_parse_end = value + r.at;
	return root;
}

cJSON* wfJsonGetObjectItemCaseSensitive(const cJSON* object, const char* name)
{
	if (object == NULL || name == NULL)
		return NULL;
	for (cJSON* c = object->child; c != NULL; c = c->next) {
		if (c->string != NULL && strcmp(c->string, name) == 0)
			return c;
	}
	return NULL;
}

int wfJsonGetArraySize(const cJSON* array)
{
	int n = 0;
	for (const cJSON* c = array != NULL ? array->child : NULL; c != NULL; c = c->next)
		++n;
	return n;
}

cJSON* wfJsonGetArrayItem(const cJSON* array, int index)
{
	if (array == NULL || index < 0)
		return NULL;
	cJSON* c = array->child;
	while (c != NULL && index-- > 0)
		c = c->next;
	return c;
}

#define WF_JSON_IS(name, test) \
	cJSON_bool name(const cJSON* item) { return item != NULL && (test); }
WF_JSON_IS(wfJsonIsInvalid, (item->type & 0xff) == cJSON_Invalid)
WF_JSON_IS(wfJsonIsFalse, (item->type & 0xff) == cJSON_False)
WF_JSON_IS(wfJsonIsTrue, (item->type & 0xff) == cJSON_True)
WF_JSON_IS(wfJsonIsBool, (item->type & (cJSON_True | cJSON_False)) != 0)
WF_JSON_IS(wfJsonIsNull, (item->type & 0xff) == cJSON_NULL)
WF_JSON_IS(wfJsonIsNumber, (item->type & 0xff) == cJSON_Number)
WF_JSON_IS(wfJsonIsString, (item->type & 0xff) == cJSON_String)
WF_JSON_IS(wfJsonIsArray, (item->type & 0xff) == cJSON_Array)
WF_JSON_IS(wfJsonIsObject, (item->type & 0xff) == cJSON_Object)
