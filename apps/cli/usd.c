// `weft run --usd`: the run as one ASCII USD layer (see usd.h for the layer's layout).
#define _XOPEN_SOURCE 700 // pread, ftello
#include "usd.h"
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define USD_SQUARE_HALF 5.0 // the floor and plane colliders: a 10 m square
#define USD_COPY_BUFFER (1 << 16)

// ------------------------------------------------------------------ samples in the scratch file

// One time sample's value text ("[(0, 1, 2), ...]") in the scratch file.
typedef struct Sample {
	int64_t offset;
	int64_t length;
	int frame;
} Sample;

// The samples of one attribute, in frame order.
typedef struct Track {
	Sample* items; // (count)
	int count, capacity;
} Track;

typedef struct UsdCloth {
	wfClothId id;
	int particleCount;
	int triangleCount;
	int topology;                                // wfClothInfo.topology of the faces last written; -1 before the first frame
	bool everMesh;                               // a frame had a mesh (or a torn grid): st per triangle corner throughout
	wfVec3* positions;                           // (particleCount) read-back scratch
	wfVec3* normals;                             // (particleCount)
	Track points, normals3, extent;              // every frame
	Track counts, indices, cornerUVs, vertexUVs; // each change of the faces (vertexUVs: grids only)
} UsdCloth;

typedef enum ShapeKind {
	SHAPE_WORLD_SPHERE, // wfWorldDef.sphere
	SHAPE_FLOOR,        // wfWorldDef.floor
	SHAPE_COLLIDER,     // wfCreateCollider
} ShapeKind;

typedef struct UsdShape {
	ShapeKind kind;
	char name[48];
	wfColliderId collider; // SHAPE_COLLIDER
	wfColliderDef def;     // SHAPE_COLLIDER (its keys are not read)
	float radius;          // SHAPE_WORLD_SPHERE
	float height;          // SHAPE_FLOOR
	bool rotates;          // writes xformOp:orient (not for spheres and the floor)
	bool moved;            // a frame's pose differed from the first frame's
	wfVec3 firstPosition;
	wfQuat firstRotation;
	Track translate, orient; // every frame
	// A mesh collider (WF_COLLIDER_MESH): a Mesh "surface" under the posed Xform, its vertices in
	// the collider's frame every frame (a shape that changes: wfCollider_SetMeshVertices, keys).
	int vertexCount, triangleCount;
	uint32_t* triangles;            // (3 x triangleCount)
	wfVec3* positions;              // (vertexCount) this frame's
	wfVec3* normals;                // (vertexCount) smooth: the area-weighted sum of the triangles'
	bool reshaped;                  // a frame's points differed from the first frame's
	Track points, normals3, extent; // every frame
} UsdShape;

struct CliUsdWriter {
	CliFile out;
	FILE* scratch; // unlinked: gone with the process, however it ends
	char* copyBuffer;
	wfWorld* world;
	UsdCloth* cloths; // (clothCount)
	int clothCount;
	UsdShape* shapes; // (shapeCount)
	int shapeCount;
	int frames; // frames written: time codes 1 .. frames
	double fps;
	char source[300];
	char texture[CLI_PATH_MAX]; // the weave's file name beside the layer ("" without the renderer)
};

static bool Append(Track* t, int64_t offset, int64_t length, int frame)
{
	if (t->count == t->capacity) {
		int capacity = t->capacity > 0 ? 2 * t->capacity : 64;
		Sample* items = (Sample*)realloc(t->items, (size_t)capacity * sizeof(Sample));
		if (items == NULL)
			return false;
		t->items = items;
		t->capacity = capacity;
	}
	t->items[t->count++] = (Sample){offset, length, frame};
	return true;
}

// The scratch position before a sample's text; EndSample records the text as a sample of t.
static int64_t BeginSample(const CliUsdWriter* w) { return (int64_t)ftello(w->scratch); }

static bool EndSample(CliUsdWriter* w, Track* t, int64_t start, int frame)
{
	int64_t end = (int64_t)ftello(w->scratch);
	return start >= 0 && end >= start && Append(t, start, end - start, frame);
}

// ------------------------------------------------------------------ value texts

// "[(x, y, z), ...]": %.9g gives back each float exactly, %.6g is the OBJ frames' precision.
static void WriteVec3s(FILE* f, const wfVec3* v, int count, bool exact)
{
	fputc('[', f);
	for (int i = 0; i < count; ++i) {
		if (exact)
			fprintf(f, i > 0 ? ", (%.9g, %.9g, %.9g)" : "(%.9g, %.9g, %.9g)", v[i].x, v[i].y, v[i].z);
		else
			fprintf(f, i > 0 ? ", (%.6g, %.6g, %.6g)" : "(%.6g, %.6g, %.6g)", v[i].x, v[i].y, v[i].z);
	}
	fputc(']', f);
}

static void WriteVec2s(FILE* f, const float* uv /* (count x 2) */, int count)
{
	fputc('[', f);
	for (int i = 0; i < count; ++i)
		fprintf(f, i > 0 ? ", (%.9g, %.9g)" : "(%.9g, %.9g)", uv[2 * i], uv[2 * i + 1]);
	fputc(']', f);
}

// "[(min), (max)]" of the points: the mesh's extent.
static void WriteExtent(FILE* f, const wfVec3* v, int count)
{
	wfVec3 lo = v[0], hi = v[0];
	for (int i = 1; i < count; ++i) {
		lo.x = fminf(lo.x, v[i].x), lo.y = fminf(lo.y, v[i].y), lo.z = fminf(lo.z, v[i].z);
		hi.x = fmaxf(hi.x, v[i].x), hi.y = fmaxf(hi.y, v[i].y), hi.z = fmaxf(hi.z, v[i].z);
	}
	fprintf(f, "[(%.9g, %.9g, %.9g), (%.9g, %.9g, %.9g)]", lo.x, lo.y, lo.z, hi.x, hi.y, hi.z);
}

// A string literal: quotes, backslashes and control characters escaped.
static void WriteString(FILE* f, const char* s)
{
	fputc('"', f);
	for (; *s != 0; ++s) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

// ------------------------------------------------------------------ open

double CliUsdFrameRate(float timeStep)
{
	double rate = 1.0 / (double)timeStep;
	double whole = floor(rate + 0.5);
	return fabs(rate - whole) <= 1e-4 * rate ? whole : rate;
}

// The scratch file beside the output (the same file system, which the user chose for a large file),
// unlinked at once; a device or FIFO output (no folder of its own to write) gets tmpfile()'s.
static FILE* OpenScratch(const CliFile* out, char* error, size_t errorSize)
{
	if (out->inPlace) {
		FILE* f = tmpfile();
		if (f == NULL)
			snprintf(error, errorSize, "%s: cannot create a scratch file: %s", out->path, strerror(errno));
		return f;
	}
	char folder[CLI_PATH_MAX], path[2 * CLI_PATH_MAX + 64];
	CliFolderOf(out->path, folder, sizeof folder);
	const char* slash = strrchr(out->path, '/');
	snprintf(path, sizeof path, "%s/.%s.samples." CLI_TEMP_MARK "%ld.tmp", folder, slash != NULL ? slash + 1 : out->path, (long)getpid());
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
	if (fd < 0) {
		snprintf(error, errorSize, "%s: cannot create a scratch file: %s", path, strerror(errno));
		return NULL;
	}
	unlink(path);
	FILE* f = fdopen(fd, "w+");
	if (f == NULL) {
		snprintf(error, errorSize, "%s: cannot open a scratch file: %s", out->path, strerror(errno));
		close(fd);
		return NULL;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	return f;
}

// The world's sphere and floor, then its colliders.
static bool ListShapes(CliUsdWriter* w)
{
	wfWorldDef def = wfWorld_GetDef(w->world);
	int colliders = wfWorld_GetColliderCount(w->world);
	w->shapes = (UsdShape*)calloc((size_t)colliders + 2, sizeof(UsdShape));
	wfColliderId* ids = (wfColliderId*)calloc((size_t)colliders + 1, sizeof(wfColliderId));
	if (w->shapes == NULL || ids == NULL) {
		free(ids);
		return false;
	}
	if (def.sphere.enabled) {
		UsdShape* s = &w->shapes[w->shapeCount++];
		s->kind = SHAPE_WORLD_SPHERE;
		s->radius = def.sphere.radius;
		snprintf(s->name, sizeof s->name, "sphere");
	}
	if (def.floor.enabled) {
		UsdShape* s = &w->shapes[w->shapeCount++];
		s->kind = SHAPE_FLOOR;
		s->height = def.floor.height;
		snprintf(s->name, sizeof s->name, "floor");
	}
	colliders = wfWorld_GetColliders(w->world, ids, colliders);
	for (int i = 0; i < colliders; ++i) {
		UsdShape* s = &w->shapes[w->shapeCount++];
		s->kind = SHAPE_COLLIDER;
		s->collider = ids[i];
		s->def = wfCollider_GetDef(ids[i]);
		s->def.keys = NULL;
		s->rotates = s->def.type != WF_COLLIDER_SPHERE;
		snprintf(s->name, sizeof s->name, "%s_%d", wfColliderTypeName(s->def.type), i);
		if (s->def.type != WF_COLLIDER_MESH)
			continue;
		s->vertexCount = wfCollider_GetMeshVertices(ids[i], NULL, 0);
		s->triangleCount = wfCollider_GetMeshTriangles(ids[i], NULL, 0);
		// (+ 1: a size of 0 may give NULL)
		s->triangles = (uint32_t*)malloc(3 * (size_t)s->triangleCount * sizeof(uint32_t) + 1);
		s->positions = (wfVec3*)malloc((size_t)s->vertexCount * sizeof(wfVec3) + 1);
		s->normals = (wfVec3*)malloc((size_t)s->vertexCount * sizeof(wfVec3) + 1);
		if (s->triangles == NULL || s->positions == NULL || s->normals == NULL) {
			free(ids);
			return false;
		}
		wfCollider_GetMeshTriangles(ids[i], s->triangles, 3 * s->triangleCount);
	}
	free(ids);
	return true;
}

CliUsdWriter* CliUsdOpen(const char* path, wfWorld* world, const wfClothId* cloths, int count, const char* source, char* error,
	size_t errorSize)
{
	CliUsdWriter* w = (CliUsdWriter*)calloc(1, sizeof(CliUsdWriter));
	if (w == NULL) {
		snprintf(error, errorSize, "%s: out of memory", path);
		return NULL;
	}
	w->world = world;
	w->fps = CliUsdFrameRate(wfWorld_GetDef(world).step.timeStep);
	snprintf(w->source, sizeof w->source, "%s", source);
	w->cloths = (UsdCloth*)calloc((size_t)count, sizeof(UsdCloth));
	w->copyBuffer = (char*)malloc(USD_COPY_BUFFER);
	w->clothCount = count;
	if (w->cloths == NULL || w->copyBuffer == NULL || !ListShapes(w)) {
		snprintf(error, errorSize, "%s: out of memory", path);
		CliUsdClose(w, false, NULL, 0);
		return NULL;
	}
	for (int i = 0; i < count; ++i) {
		w->cloths[i].id = cloths[i];
		w->cloths[i].topology = -1;
	}
	if (!CliFileOpen(&w->out, path, error, errorSize)) {
		CliUsdClose(w, false, NULL, 0);
		return NULL;
	}
	w->scratch = OpenScratch(&w->out, error, errorSize);
	if (w->scratch == NULL) {
		CliUsdClose(w, false, NULL, 0);
		return NULL;
	}
	return w;
}

// ------------------------------------------------------------------ frames

// The faces of a cloth whose topology changed (or of the first frame): counts, indices and the
// texture coordinates per corner, and per particle while it is a grid.
static bool WriteFaces(CliUsdWriter* w, UsdCloth* c, const wfClothInfo* info, int frame)
{
	if (info->particleCount != c->particleCount) {
		free(c->positions);
		free(c->normals);
		c->positions = (wfVec3*)malloc((size_t)info->particleCount * sizeof(wfVec3));
		c->normals = (wfVec3*)malloc((size_t)info->particleCount * sizeof(wfVec3));
		c->particleCount = info->particleCount;
		if (c->positions == NULL || c->normals == NULL)
			return false;
	}
	c->triangleCount = info->triangleCount;
	c->topology = info->topology;
	c->everMesh |= info->mesh;
	const int corners = 3 * info->triangleCount;
	uint32_t* indices = (uint32_t*)malloc((size_t)corners * sizeof(uint32_t));
	float* uvs = (float*)malloc((size_t)2 * (size_t)(corners > info->particleCount ? corners : info->particleCount) * sizeof(float));
	bool ok = indices != NULL && uvs != NULL && wfCloth_ReadIndices(c->id, indices, corners) == WF_OK;
	FILE* f = w->scratch;
	int64_t start = BeginSample(w);
	for (int t = 0; ok && t < info->triangleCount; ++t)
		fputs(t == 0 ? "[3" : ", 3", f);
	fputs("]", f);
	ok = ok && EndSample(w, &c->counts, start, frame);
	start = BeginSample(w);
	fputc('[', f);
	for (int i = 0; ok && i < corners; ++i)
		fprintf(f, i > 0 ? ", %u" : "%u", (unsigned)indices[i]);
	fputc(']', f);
	ok = ok && EndSample(w, &c->indices, start, frame);
	ok = ok && wfCloth_ReadCornerUVs(c->id, uvs, 2 * corners) == WF_OK;
	start = BeginSample(w);
	if (ok)
		WriteVec2s(f, uvs, corners);
	ok = ok && EndSample(w, &c->cornerUVs, start, frame);
	if (ok && !info->mesh) {
		ok = wfCloth_ReadUVs(c->id, uvs, info->particleCount) == WF_OK;
		start = BeginSample(w);
		if (ok)
			WriteVec2s(f, uvs, info->particleCount);
		ok = ok && EndSample(w, &c->vertexUVs, start, frame);
	}
	free(indices);
	free(uvs);
	return ok;
}

static bool SamePose(wfVec3 p, wfQuat q, wfVec3 p0, wfQuat q0)
{
	return p.x == p0.x && p.y == p0.y && p.z == p0.z && q.x == q0.x && q.y == q0.y && q.z == q0.z && q.w == q0.w;
}

static bool WriteShapePose(CliUsdWriter* w, UsdShape* s, int frame)
{
	wfVec3 p = {0.0f, 0.0f, 0.0f};
	wfQuat q = {0.0f, 0.0f, 0.0f, 1.0f};
	if (s->kind == SHAPE_WORLD_SPHERE)
		p = wfWorld_GetSphereCenter(w->world);
	else if (s->kind == SHAPE_FLOOR)
		p.y = s->height;
	else if (wfCollider_GetTransform(s->collider, &p, &q) != WF_OK)
		return false;
	if (s->translate.count == 0) {
		s->firstPosition = p;
		s->firstRotation = q;
	} else if (!SamePose(p, q, s->firstPosition, s->firstRotation)) {
		s->moved = true;
	}
	int64_t start = BeginSample(w);
	fprintf(w->scratch, "(%.9g, %.9g, %.9g)", p.x, p.y, p.z);
	if (!EndSample(w, &s->translate, start, frame))
		return false;
	if (!s->rotates)
		return true;
	start = BeginSample(w);
	fprintf(w->scratch, "(%.9g, %.9g, %.9g, %.9g)", q.w, q.x, q.y, q.z); // USD writes quaternions real part first
	return EndSample(w, &s->orient, start, frame);
}

// Whether the scratch file's texts at a and b (length bytes each) are the same.
static bool SameText(CliUsdWriter* w, int64_t a, int64_t b, int64_t length)
{
	char x[4096], y[4096];
	fflush(w->scratch);
	for (int64_t done = 0; done < length;) {
		const size_t want = (size_t)(length - done < (int64_t)sizeof x ? length - done : (int64_t)sizeof x);
		if (pread(fileno(w->scratch), x, want, (off_t)(a + done)) != (ssize_t)want ||
			pread(fileno(w->scratch), y, want, (off_t)(b + done)) != (ssize_t)want || memcmp(x, y, want) != 0)
			return false;
		done += (int64_t)want;
	}
	return true;
}

// A mesh collider's surface this frame: its points in its frame, smooth normals and extent.
static bool RecordSurface(CliUsdWriter* w, UsdShape* s, int frame)
{
	if (wfCollider_GetMeshVertices(s->collider, s->positions, s->vertexCount) != s->vertexCount)
		return false;
	memset(s->normals, 0, (size_t)s->vertexCount * sizeof(wfVec3));
	for (int t = 0; t < s->triangleCount; ++t) {
		const uint32_t* v = &s->triangles[3 * t];
		const wfVec3 a = s->positions[v[0]], b = s->positions[v[1]], c = s->positions[v[2]];
		const wfVec3 e = {b.x - a.x, b.y - a.y, b.z - a.z}, f = {c.x - a.x, c.y - a.y, c.z - a.z};
		const wfVec3 m = {e.y * f.z - e.z * f.y, e.z * f.x - e.x * f.z, e.x * f.y - e.y * f.x};
		for (int k = 0; k < 3; ++k) {
			wfVec3* sum = &s->normals[v[k]];
			sum->x += m.x, sum->y += m.y, sum->z += m.z;
		}
	}
	for (int i = 0; i < s->vertexCount; ++i) {
		wfVec3* n = &s->normals[i];
		const float length = sqrtf(n->x * n->x + n->y * n->y + n->z * n->z);
		*n = length > 0.0f ? (wfVec3){n->x / length, n->y / length, n->z / length} : (wfVec3){0.0f, 1.0f, 0.0f};
	}
	int64_t start = BeginSample(w);
	WriteVec3s(w->scratch, s->positions, s->vertexCount, true);
	bool ok = EndSample(w, &s->points, start, frame);
	if (ok && !s->reshaped) {
		const Sample* now = &s->points.items[s->points.count - 1];
		const Sample* first = &s->points.items[0];
		s->reshaped = now->length != first->length || !SameText(w, now->offset, first->offset, now->length);
	}
	start = BeginSample(w);
	WriteVec3s(w->scratch, s->normals, s->vertexCount, false);
	ok = ok && EndSample(w, &s->normals3, start, frame);
	start = BeginSample(w);
	WriteExtent(w->scratch, s->positions, s->vertexCount);
	return ok && EndSample(w, &s->extent, start, frame);
}

// A failed write into the scratch file (a full disk) also fails the position read-outs that follow
// it: the message names the write, with the errno it left.
static bool FrameError(CliUsdWriter* w, char* error, size_t errorSize, const char* what, int frame, int index)
{
	int writeErrno = errno;
	if (ferror(w->scratch))
		snprintf(error, errorSize, "%s: cannot write: %s", w->out.path, strerror(writeErrno));
	else if (index >= 0)
		snprintf(error, errorSize, "frame %d: %s %d: %s", frame, what, index, wfWorld_GetLastError(w->world));
	else
		snprintf(error, errorSize, "%s: %s", w->out.path, what);
	return false;
}

bool CliUsdWriteFrame(CliUsdWriter* w, int frame, char* error, size_t errorSize)
{
	for (int i = 0; i < w->clothCount; ++i) {
		UsdCloth* c = &w->cloths[i];
		wfClothInfo info;
		if (wfCloth_GetInfo(c->id, &info) != WF_OK)
			return FrameError(w, error, errorSize, "cannot read cloth", frame, i);
		if (info.topology != c->topology && !WriteFaces(w, c, &info, frame))
			return FrameError(w, error, errorSize, "cannot read the faces of cloth", frame, i);
		if (wfCloth_ReadPositions(c->id, c->positions, c->particleCount) != WF_OK ||
			wfCloth_ReadNormals(c->id, c->normals, c->particleCount) != WF_OK)
			return FrameError(w, error, errorSize, "cannot read cloth", frame, i);
		int64_t start = BeginSample(w);
		WriteVec3s(w->scratch, c->positions, c->particleCount, true);
		bool ok = EndSample(w, &c->points, start, frame);
		start = BeginSample(w);
		WriteVec3s(w->scratch, c->normals, c->particleCount, false);
		ok = ok && EndSample(w, &c->normals3, start, frame);
		start = BeginSample(w);
		WriteExtent(w->scratch, c->positions, c->particleCount);
		if (!ok || !EndSample(w, &c->extent, start, frame))
			return FrameError(w, error, errorSize, "out of memory for the list of samples", frame, -1);
	}
	for (int i = 0; i < w->shapeCount; ++i) {
		UsdShape* s = &w->shapes[i];
		if (!WriteShapePose(w, s, frame) || (s->triangles != NULL && !RecordSurface(w, s, frame))) {
			FrameError(w, error, errorSize, "cannot record a collider's pose", frame, -1);
			if (!ferror(w->scratch))
				snprintf(error, errorSize, "frame %d: cannot record the pose of %s: %s", frame, w->shapes[i].name,
					wfWorld_GetLastError(w->world));
			return false;
		}
	}
	// A full disk shows here (or at the latest when the layer is assembled).
	if (ferror(w->scratch))
		return FrameError(w, error, errorSize, "", frame, -1);
	w->frames = frame;
	return true;
}

// ------------------------------------------------------------------ the layer

static bool CopySample(CliUsdWriter* w, const Sample* s)
{
	for (int64_t done = 0; done < s->length;) {
		size_t want = (size_t)(s->length - done < USD_COPY_BUFFER ? s->length - done : USD_COPY_BUFFER);
		ssize_t got = pread(fileno(w->scratch), w->copyBuffer, want, (off_t)(s->offset + done));
		if (got <= 0)
			return false;
		fwrite(w->copyBuffer, 1, (size_t)got, w->out.file);
		done += got;
	}
	return true;
}

// "DECLARATION = VALUE" from the first sample, or "DECLARATION.timeSamples = { FRAME: VALUE, ... }".
// A sparse track (faces change at some frames only) repeats the previous value the frame before each
// change, so that readers which interpolate between samples hold it until the change.
static bool WriteTrack(CliUsdWriter* w, const char* indent, const char* declaration, const Track* t, bool timeSampled)
{
	FILE* out = w->out.file;
	bool ok = true;
	if (!timeSampled) {
		fprintf(out, "%s%s = ", indent, declaration);
		ok = CopySample(w, &t->items[0]);
		fputc('\n', out);
		return ok;
	}
	fprintf(out, "%s%s.timeSamples = {\n", indent, declaration);
	for (int i = 0; ok && i < t->count; ++i) {
		if (i > 0 && t->items[i].frame > t->items[i - 1].frame + 1) {
			fprintf(out, "%s    %d: ", indent, t->items[i].frame - 1);
			ok = CopySample(w, &t->items[i - 1]);
			fputs(",\n", out);
		}
		fprintf(out, "%s    %d: ", indent, t->items[i].frame);
		ok = ok && CopySample(w, &t->items[i]);
		fputs(",\n", out);
	}
	fprintf(out, "%s}\n", indent);
	return ok;
}

// The colours the OBJ frames' materials use (CliClothColor), linear as UsdPreviewSurface expects;
// with a texture (a file beside the layer), the diffuse colour comes from it through the st primvar.
static void WriteMaterial(FILE* out, const char* name, const float rgb[3], const char* texture)
{
	fprintf(out,
		"        def Material \"%s\"\n"
		"        {\n"
		"            token outputs:surface.connect = </weft/Looks/%s/Surface.outputs:surface>\n"
		"\n"
		"            def Shader \"Surface\"\n"
		"            {\n"
		"                uniform token info:id = \"UsdPreviewSurface\"\n"
		"                color3f inputs:diffuseColor = (%.6g, %.6g, %.6g)\n",
		name, name, rgb[0], rgb[1], rgb[2]);
	if (texture != NULL)
		fprintf(out, "                color3f inputs:diffuseColor.connect = </weft/Looks/%s/Weave.outputs:rgb>\n", name);
	fprintf(out,
		"                float inputs:metallic = 0\n"
		"                float inputs:roughness = 0.8\n"
		"                token outputs:surface\n"
		"            }\n");
	if (texture != NULL) {
		fprintf(out,
			"\n"
			"            def Shader \"Weave\"\n"
			"            {\n"
			"                uniform token info:id = \"UsdUVTexture\"\n"
			"                asset inputs:file = @./");
		fputs(texture, out);
		fprintf(out,
			"@\n"
			"                token inputs:sourceColorSpace = \"sRGB\"\n"
			"                float2 inputs:st.connect = </weft/Looks/%s/St.outputs:result>\n"
			"                token inputs:wrapS = \"repeat\"\n"
			"                token inputs:wrapT = \"repeat\"\n"
			"                float3 outputs:rgb\n"
			"            }\n"
			"\n"
			"            def Shader \"St\"\n"
			"            {\n"
			"                uniform token info:id = \"UsdPrimvarReader_float2\"\n"
			"                string inputs:varname = \"st\"\n"
			"                float2 outputs:result\n"
			"            }\n",
			name);
	}
	fprintf(out, "        }\n");
}

static bool WriteCloth(CliUsdWriter* w, int index)
{
	const UsdCloth* c = &w->cloths[index];
	FILE* out = w->out.file;
	const char* in = "        ";
	const bool faceVarying = c->everMesh;
	const bool facesChange = c->counts.count > 1;
	fprintf(out,
		"\n    def Mesh \"cloth_%d\" (\n"
		"        prepend apiSchemas = [\"MaterialBindingAPI\"]\n"
		"    )\n"
		"    {\n"
		"        uniform bool doubleSided = 1\n",
		index);
	bool ok = WriteTrack(w, in, "float3[] extent", &c->extent, true);
	ok = ok && WriteTrack(w, in, "int[] faceVertexCounts", &c->counts, facesChange);
	ok = ok && WriteTrack(w, in, "int[] faceVertexIndices", &c->indices, facesChange);
	fprintf(out, "        rel material:binding = </weft/Looks/cloth_%d>\n", index);
	fprintf(out, "        normal3f[] normals (\n            interpolation = \"vertex\"\n        )\n");
	ok = ok && WriteTrack(w, in, "normal3f[] normals", &c->normals3, true);
	fprintf(out, "        uniform token orientation = \"rightHanded\"\n");
	ok = ok && WriteTrack(w, in, "point3f[] points", &c->points, true);
	fprintf(out, "        texCoord2f[] primvars:st (\n            interpolation = \"%s\"\n        )\n",
		faceVarying ? "faceVarying" : "vertex");
	ok = ok && WriteTrack(w, in, "texCoord2f[] primvars:st", faceVarying ? &c->cornerUVs : &c->vertexUVs, facesChange);
	fprintf(out, "        uniform token subdivisionScheme = \"none\"\n    }\n");
	return ok;
}

// A square in the local x-z plane facing +y (the floor, a plane collider).
static void WriteSquare(FILE* out)
{
	const double h = USD_SQUARE_HALF;
	fprintf(out,
		"            uniform bool doubleSided = 1\n"
		"            float3[] extent = [(%g, 0, %g), (%g, 0, %g)]\n"
		"            int[] faceVertexCounts = [4]\n"
		"            int[] faceVertexIndices = [0, 1, 2, 3]\n"
		"            point3f[] points = [(%g, 0, %g), (%g, 0, %g), (%g, 0, %g), (%g, 0, %g)]\n"
		"            uniform token subdivisionScheme = \"none\"\n",
		-h, -h, h, h, -h, -h, -h, h, h, h, h, -h);
}

// A mesh collider's Mesh "surface", in its Xform: constant faces, its points, normals and extent
// time-sampled when its shape changes.
static bool WriteShapeSurface(CliUsdWriter* w, const UsdShape* s)
{
	FILE* out = w->out.file;
	const char* in = "                ";
	fprintf(out,
		"\n            def Mesh \"surface\" (\n"
		"                prepend apiSchemas = [\"MaterialBindingAPI\"]\n"
		"            )\n"
		"            {\n");
	bool ok = WriteTrack(w, in, "float3[] extent", &s->extent, s->reshaped);
	fprintf(out, "%sint[] faceVertexCounts = [", in);
	for (int t = 0; t < s->triangleCount; ++t)
		fputs(t == 0 ? "3" : ", 3", out);
	fprintf(out, "]\n%sint[] faceVertexIndices = [", in);
	for (int i = 0; i < 3 * s->triangleCount; ++i)
		fprintf(out, i > 0 ? ", %u" : "%u", (unsigned)s->triangles[i]);
	fprintf(out, "]\n%srel material:binding = </weft/Looks/collider>\n", in);
	fprintf(out, "%snormal3f[] normals (\n%s    interpolation = \"vertex\"\n%s)\n", in, in, in);
	ok = ok && WriteTrack(w, in, "normal3f[] normals", &s->normals3, s->reshaped);
	fprintf(out, "%suniform token orientation = \"rightHanded\"\n", in);
	ok = ok && WriteTrack(w, in, "point3f[] points", &s->points, s->reshaped);
	fprintf(out, "%suniform token subdivisionScheme = \"none\"\n            }\n", in);
	return ok;
}

static bool WriteShape(CliUsdWriter* w, const UsdShape* s)
{
	FILE* out = w->out.file;
	const wfColliderDef* d = &s->def;
	const bool mesh = s->kind == SHAPE_COLLIDER && d->type == WF_COLLIDER_MESH;
	const bool square = s->kind == SHAPE_FLOOR || (s->kind == SHAPE_COLLIDER && d->type == WF_COLLIDER_PLANE);
	const char* type = square ? "Mesh" : "Sphere";
	if (s->kind == SHAPE_COLLIDER && d->type == WF_COLLIDER_CAPSULE)
		type = "Capsule";
	else if (s->kind == SHAPE_COLLIDER && d->type == WF_COLLIDER_BOX)
		type = "Cube";
	if (mesh) {
		// The pose on an Xform, the shape (in the collider's frame) on the Mesh inside it.
		fprintf(out, "\n        def Xform \"%s\"\n        {\n", s->name);
	} else {
		fprintf(out,
			"\n        def %s \"%s\" (\n"
			"            prepend apiSchemas = [\"MaterialBindingAPI\"]\n"
			"        )\n"
			"        {\n"
			"            rel material:binding = </weft/Looks/collider>\n",
			type, s->name);
	}
	if (square) {
		WriteSquare(out);
	} else if (s->kind == SHAPE_WORLD_SPHERE || d->type == WF_COLLIDER_SPHERE) {
		const double r = s->kind == SHAPE_WORLD_SPHERE ? s->radius : d->radius;
		fprintf(out, "            float3[] extent = [(%.9g, %.9g, %.9g), (%.9g, %.9g, %.9g)]\n", -r, -r, -r, r, r, r);
		fprintf(out, "            double radius = %.9g\n", r);
	} else if (d->type == WF_COLLIDER_CAPSULE) {
		// USD's Capsule has one radius: the larger end's, so the prim holds the tapered shape;
		// the two end radii (radius at -x, radius1 at +x) travel as custom attributes.
		const double r = d->radius > d->radius1 ? d->radius : d->radius1, half = d->halfLength;
		fprintf(out,
			"            uniform token axis = \"X\"\n"
			"            float3[] extent = [(%.9g, %.9g, %.9g), (%.9g, %.9g, %.9g)]\n"
			"            double height = %.9g\n"
			"            double radius = %.9g\n"
			"            custom double weft:radiusBottom = %.9g\n"
			"            custom double weft:radiusTop = %.9g\n",
			-(half + r), -r, -r, half + r, r, r, 2.0 * half, r, (double)d->radius, (double)d->radius1);
	} else if (!mesh) {
		// A cube of size 2 spans [-1, 1]: scaled by the half extents.
		fputs("            float3[] extent = [(-1, -1, -1), (1, 1, 1)]\n"
			  "            double size = 2\n",
			out);
	}
	bool ok = WriteTrack(w, "            ", "double3 xformOp:translate", &s->translate, s->moved);
	if (s->rotates)
		ok = ok && WriteTrack(w, "            ", "quatf xformOp:orient", &s->orient, s->moved);
	const bool box = s->kind == SHAPE_COLLIDER && d->type == WF_COLLIDER_BOX;
	if (box)
		fprintf(out, "            float3 xformOp:scale = (%.9g, %.9g, %.9g)\n", d->halfExtents.x, d->halfExtents.y, d->halfExtents.z);
	fprintf(out, "            uniform token[] xformOpOrder = [\"xformOp:translate\"%s%s]\n", s->rotates ? ", \"xformOp:orient\"" : "",
		box ? ", \"xformOp:scale\"" : "");
	if (mesh)
		ok = ok && WriteShapeSurface(w, s);
	fprintf(out, "        }\n");
	return ok;
}

static bool WriteLayer(CliUsdWriter* w)
{
	FILE* out = w->out.file;
	fprintf(out, "#usda 1.0\n(\n    defaultPrim = \"weft\"\n    doc = ");
	char doc[400];
	snprintf(doc, sizeof doc, "weft %d.%d.%d: %s, %d frames", WF_VERSION_MAJOR, WF_VERSION_MINOR, WF_VERSION_PATCH, w->source, w->frames);
	WriteString(out, doc);
	fprintf(out,
		"\n    endTimeCode = %d\n"
		"    framesPerSecond = %.9g\n"
		"    metersPerUnit = 1\n"
		"    startTimeCode = 1\n"
		"    timeCodesPerSecond = %.9g\n"
		"    upAxis = \"Y\"\n"
		")\n\n"
		"def Xform \"weft\"\n{\n"
		"    def Scope \"Looks\"\n    {\n",
		w->frames, w->fps, w->fps);
	for (int i = 0; i < w->clothCount; ++i) {
		char name[32];
		float rgb[3];
		snprintf(name, sizeof name, "cloth_%d", i);
		CliClothColor(i, rgb);
		WriteMaterial(out, name, rgb, w->texture[0] != 0 ? w->texture : NULL);
	}
	if (w->shapeCount > 0)
		WriteMaterial(out, "collider", (const float[3]){0.35f, 0.35f, 0.35f}, NULL);
	fprintf(out, "    }\n");
	bool ok = true;
	for (int i = 0; ok && i < w->clothCount; ++i)
		ok = WriteCloth(w, i);
	if (w->shapeCount > 0) {
		fprintf(out, "\n    def Xform \"colliders\"\n    {");
		for (int i = 0; ok && i < w->shapeCount; ++i)
			ok = WriteShape(w, &w->shapes[i]);
		fprintf(out, "    }\n");
	}
	fprintf(out, "}\n");
	return ok;
}

// The renderer's weave beside the layer as NAME.weave.png (the layer's name less its extension),
// named by the materials; nothing in a build without the renderer.
static bool WriteTexture(CliUsdWriter* w, char* error, size_t errorSize)
{
	char path[CLI_PATH_MAX];
	snprintf(path, sizeof path, "%s", w->out.path);
	char* dot = strrchr(path, '.');
	char* slash = strrchr(path, '/');
	if (dot != NULL && (slash == NULL || dot > slash))
		*dot = 0;
	if (strlen(path) + 12 >= sizeof path) {
		snprintf(error, errorSize, "%s: the texture's name would be too long", w->out.path);
		return false;
	}
	strcat(path, ".weave.png");
	// An asset path between @ signs cannot hold an @ or a control character: no texture then.
	const char* base = strrchr(path, '/') != NULL ? strrchr(path, '/') + 1 : path;
	for (const char* c = base; *c != 0; ++c) {
		if (*c == '@' || (unsigned char)*c < 0x20)
			return true;
	}
	bool written = false;
	if (!CliWriteWeave(path, &written, error, errorSize))
		return false;
	slash = strrchr(path, '/');
	snprintf(w->texture, sizeof w->texture, "%s", written ? (slash != NULL ? slash + 1 : path) : "");
	return true;
}

static void FreeTrack(Track* t) { free(t->items); }

bool CliUsdClose(CliUsdWriter* w, bool keep, char* error, size_t errorSize)
{
	if (w == NULL)
		return true;
	bool ok = true;
	if (w->out.file != NULL) {
		if (keep && w->frames > 0) {
			if (!w->out.inPlace && !WriteTexture(w, error, errorSize)) {
				ok = false;
			} else if (fflush(w->scratch) != 0 || ferror(w->scratch)) {
				snprintf(error, errorSize, "%s: cannot write: %s", w->out.path, strerror(errno));
				ok = false;
			} else if (!WriteLayer(w)) {
				snprintf(error, errorSize, "%s: cannot read back the samples: %s", w->out.path, strerror(errno));
				ok = false;
			} else {
				ok = CliFileCommit(&w->out, error, errorSize);
			}
		}
		CliFileAbort(&w->out); // nothing left open after a commit
	}
	if (w->scratch != NULL)
		fclose(w->scratch);
	for (int i = 0; w->cloths != NULL && i < w->clothCount; ++i) {
		UsdCloth* c = &w->cloths[i];
		free(c->positions);
		free(c->normals);
		Track* tracks[] = {&c->points, &c->normals3, &c->extent, &c->counts, &c->indices, &c->cornerUVs, &c->vertexUVs};
		for (size_t k = 0; k < sizeof tracks / sizeof tracks[0]; ++k)
			FreeTrack(tracks[k]);
	}
	for (int i = 0; w->shapes != NULL && i < w->shapeCount; ++i) {
		UsdShape* s = &w->shapes[i];
		Track* tracks[] = {&s->translate, &s->orient, &s->points, &s->normals3, &s->extent};
		for (size_t k = 0; k < sizeof tracks / sizeof tracks[0]; ++k)
			FreeTrack(tracks[k]);
		free(s->triangles);
		free(s->positions);
		free(s->normals);
	}
	free(w->cloths);
	free(w->shapes);
	free(w->copyBuffer);
	free(w);
	return ok;
}
