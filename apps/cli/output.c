// Output files of `weft run`: temporary name + rename, folder preparation, OBJ and CSV writers.
#define _XOPEN_SOURCE 700 // realpath
#include "output.h"
#include "render_out.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

// ------------------------------------------------------------------ temporary file + rename

// ".NAME.weft-PID.tmp" in the folder of path: the same file system, so the rename is atomic. The
// "weft-" marks the name as this program's: only names with it are ever removed as stale.
static bool TempName(const char* path, char* out, size_t size)
{
	const char* slash = strrchr(path, '/');
	int folderLength = slash != NULL ? (int)(slash - path + 1) : 0;
	const char* base = slash != NULL ? slash + 1 : path;
	int n = snprintf(out, size, "%.*s.%s." CLI_TEMP_MARK "%ld.tmp", folderLength, path, base, (long)getpid());
	return n > 0 && (size_t)n < size && base[0] != 0;
}

// An existing path that is not a regular file: a character device or a FIFO is opened for writing
// in place (a FIFO without a reader is refused instead of blocking); anything else is refused.
// Returns a descriptor, -1 for "write a temporary and rename" or -2 after writing the error.
static int OpenInPlace(const char* path, char* error, size_t errorSize)
{
	struct stat st;
	if (stat(path, &st) != 0 || S_ISREG(st.st_mode))
		return -1;
	if (S_ISDIR(st.st_mode)) {
		snprintf(error, errorSize, "'%s' is a folder, not a file name", path);
		return -2;
	}
	if (!S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode)) {
		snprintf(error, errorSize, "%s: exists and is a %s (allowed: a regular file, a character device or a FIFO)", path,
			S_ISBLK(st.st_mode)        ? "block device"
				: S_ISSOCK(st.st_mode) ? "socket"
									   : "special file");
		return -2;
	}
	int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		if (errno == ENXIO)
			snprintf(error, errorSize, "%s: is a FIFO with no reader (start the reader first)", path);
		else
			snprintf(error, errorSize, "%s: cannot open for writing in place: %s", path, strerror(errno));
		return -2;
	}
	int flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	return fd;
}

bool CliFileOpen(CliFile* f, const char* path, char* error, size_t errorSize)
{
	f->file = NULL;
	f->inPlace = false;
	f->tempPath[0] = 0;
	if (strlen(path) >= sizeof f->path) {
		snprintf(error, errorSize, "%s: path too long", path);
		return false;
	}
	snprintf(f->path, sizeof f->path, "%s", path);
	int fd = OpenInPlace(path, error, errorSize);
	if (fd == -2)
		return false;
	if (fd >= 0) {
		f->inPlace = true;
		f->file = fdopen(fd, "w");
		if (f->file == NULL) {
			snprintf(error, errorSize, "%s: cannot open: %s", path, strerror(errno));
			close(fd);
			return false;
		}
		return true;
	}
	if (!TempName(path, f->tempPath, sizeof f->tempPath)) {
		snprintf(error, errorSize, "%s: path too long or not a file name", path);
		f->tempPath[0] = 0;
		return false;
	}
	fd = open(f->tempPath, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0666);
	if (fd >= 0)
		f->file = fdopen(fd, "w");
	if (f->file == NULL) {
		snprintf(error, errorSize, "%s: cannot create: %s", f->tempPath, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(f->tempPath);
		}
		return false;
	}
	setvbuf(f->file, NULL, _IOFBF, 1 << 16);
	return true;
}

bool CliFileCommit(CliFile* f, char* error, size_t errorSize)
{
	bool written = !ferror(f->file);
	int writeErrno = errno;
	if (fclose(f->file) != 0 && written) {
		written = false;
		writeErrno = errno;
	}
	f->file = NULL;
	if (f->inPlace) {
		if (written)
			return true;
		snprintf(error, errorSize, "%s: cannot write: %s", f->path, strerror(writeErrno));
		return false;
	}
	if (written && rename(f->tempPath, f->path) == 0)
		return true;
	snprintf(error, errorSize, "%s: cannot %s: %s", f->path, written ? "rename the temporary file" : "write",
		strerror(written ? errno : writeErrno));
	unlink(f->tempPath);
	return false;
}

void CliFileAbort(CliFile* f)
{
	if (f->file == NULL)
		return;
	fclose(f->file);
	f->file = NULL;
	if (!f->inPlace)
		unlink(f->tempPath);
}

// ------------------------------------------------------------------ stale temporaries

void CliFolderOf(const char* path, char* out, size_t size)
{
	const char* slash = strrchr(path, '/');
	if (slash == NULL)
		snprintf(out, size, ".");
	else if (slash == path)
		snprintf(out, size, "/");
	else
		snprintf(out, size, "%.*s", (int)(slash - path), path);
}

// The resolved folder of path followed by its last name ("/home/u/run/s.csv" for "run/../run/s.csv");
// false when the folder does not resolve.
static bool ResolvedName(const char* path, char* out, size_t size)
{
	char folder[CLI_PATH_MAX], resolved[PATH_MAX];
	CliFolderOf(path, folder, sizeof folder);
	const char* slash = strrchr(path, '/');
	const char* base = slash != NULL ? slash + 1 : path;
	if (realpath(folder, resolved) == NULL)
		return false;
	int n = snprintf(out, size, "%s/%s", resolved, base);
	return n > 0 && (size_t)n < size;
}

bool CliSameFile(const char* a, const char* b)
{
	struct stat sa, sb;
	const bool ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
	if (ea && eb)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && !S_ISCHR(sa.st_mode);
	if (ea != eb)
		return false; // one exists and the other does not: not one file
	char ra[CLI_PATH_MAX + 8], rb[CLI_PATH_MAX + 8];
	if (ResolvedName(a, ra, sizeof ra) && ResolvedName(b, rb, sizeof rb))
		return strcmp(ra, rb) == 0;
	return strcmp(a, b) == 0;
}

// ".BASE.weft-PID.tmp": the PID, or 0 when the name is not of that form (or not of `base`). A name
// without the marker (a user's ".thesis.2023.tmp") is never weft's, whatever its digits.
static long TemporaryOwner(const char* name, const char* base)
{
	const size_t mark = strlen(CLI_TEMP_MARK);
	size_t n = strlen(name);
	if (n < 1 + 1 + 1 + mark + 1 + 4 || name[0] != '.' || strcmp(name + n - 4, ".tmp") != 0)
		return 0;
	const char* end = name + n - 4;
	const char* digits = end;
	while (digits > name + 1 && digits[-1] >= '0' && digits[-1] <= '9')
		--digits;
	if (digits == end || end - digits > 10 || (size_t)(digits - (name + 1)) < mark + 2)
		return 0;
	const char* marker = digits - mark; // "weft-", after the '.' that ends NAME
	if (strncmp(marker, CLI_TEMP_MARK, mark) != 0 || marker[-1] != '.' || marker - 1 <= name + 1)
		return 0;
	size_t baseLength = (size_t)(marker - 1 - (name + 1));
	if (base != NULL && (baseLength != strlen(base) || strncmp(name + 1, base, baseLength) != 0))
		return 0;
	return strtol(digits, NULL, 10);
}

int CliRemoveStaleTemporaries(const char* folder, const char* base)
{
	DIR* dir = opendir(folder);
	if (dir == NULL)
		return 0;
	int removed = 0;
	for (struct dirent* e = readdir(dir); e != NULL; e = readdir(dir)) {
		long pid = TemporaryOwner(e->d_name, base);
		// A live process (another run writing here right now) keeps its temporaries.
		if (pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		char path[CLI_PATH_MAX + 300];
		snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
		struct stat st;
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && unlink(path) == 0)
			removed++;
	}
	closedir(dir);
	return removed;
}

// ------------------------------------------------------------------ frames of an earlier run

static bool IsFrameName(const char* name, const char* extension)
{
	if (strncmp(name, "frame_", 6) != 0)
		return false;
	const char* c = name + 6;
	if (*c < '0' || *c > '9')
		return false;
	while (*c >= '0' && *c <= '9')
		++c;
	return *c == '.' && strcmp(c + 1, extension) == 0;
}

int CliOldFrames(const char* folder, const char* extension, bool remove, char* example, size_t exampleSize)
{
	if (exampleSize > 0)
		example[0] = 0;
	DIR* dir = opendir(folder);
	if (dir == NULL)
		return errno == ENOENT ? 0 : -1;
	int count = 0;
	for (struct dirent* e = readdir(dir); e != NULL; e = readdir(dir)) {
		if (!IsFrameName(e->d_name, extension))
			continue;
		char path[CLI_PATH_MAX + 300];
		snprintf(path, sizeof path, "%s/%s", folder, e->d_name);
		struct stat st;
		if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (count == 0 && exampleSize > 0)
			snprintf(example, exampleSize, "%s", e->d_name);
		if (!remove || unlink(path) == 0)
			count++;
	}
	closedir(dir);
	return count;
}

// ------------------------------------------------------------------ folders

// mkdir -p: every prefix ending before a '/', then the whole path.
static bool MakeFolders(const char* path, char* error, size_t errorSize)
{
	char partial[CLI_PATH_MAX];
	size_t length = strlen(path);
	if (length == 0 || length >= sizeof partial) {
		snprintf(error, errorSize, "'%s': path empty or too long", path);
		return false;
	}
	for (size_t i = 1; i <= length; ++i) {
		if (i < length && path[i] != '/')
			continue;
		memcpy(partial, path, i);
		partial[i] = 0;
		if (mkdir(partial, 0777) != 0 && errno != EEXIST) {
			snprintf(error, errorSize, "cannot create folder '%s': %s", partial, strerror(errno));
			return false;
		}
	}
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(error, errorSize, "'%s' is not a folder", path);
		return false;
	}
	return true;
}

bool CliPrepareFolder(const char* path, char* error, size_t errorSize)
{
	if (!MakeFolders(path, error, errorSize))
		return false;
	// Probe: the folder's permissions alone do not tell (read-only mounts, ACLs).
	char probe[CLI_PATH_MAX + 64];
	snprintf(probe, sizeof probe, "%s/.probe." CLI_TEMP_MARK "%ld.tmp", path, (long)getpid());
	int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0666);
	if (fd < 0) {
		snprintf(error, errorSize, "folder '%s' is not writable: %s", path, strerror(errno));
		return false;
	}
	close(fd);
	unlink(probe);
	return true;
}

bool CliPrepareFileFolder(const char* path, char* error, size_t errorSize)
{
	struct stat st;
	size_t length = strlen(path);
	if (length == 0 || path[length - 1] == '/' || (stat(path, &st) == 0 && S_ISDIR(st.st_mode))) {
		snprintf(error, errorSize, "'%s' is a folder, not a file name", path);
		return false;
	}
	// A device or FIFO is written in place: its folder (/dev) is never written into.
	if (stat(path, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)))
		return true;
	const char* slash = strrchr(path, '/');
	if (slash == NULL)
		return CliPrepareFolder(".", error, errorSize);
	if (slash == path)
		return CliPrepareFolder("/", error, errorSize);
	char folder[CLI_PATH_MAX];
	snprintf(folder, sizeof folder, "%.*s", (int)(slash - path), path);
	return CliPrepareFolder(folder, error, errorSize);
}

// ------------------------------------------------------------------ materials

void CliClothColor(int index, float rgb[3])
{
	// sRGB yarn colours: the weave's warp and weft (src/render/assets.c), then blue, green, ochre, plum.
	static const float kPalette[][3] = {{0.80f, 0.28f, 0.20f}, {0.93f, 0.86f, 0.70f}, {0.25f, 0.45f, 0.75f}, {0.35f, 0.60f, 0.30f},
		{0.85f, 0.65f, 0.20f}, {0.55f, 0.35f, 0.65f}};
	const int count = (int)(sizeof kPalette / sizeof kPalette[0]);
	for (int c = 0; c < 3; ++c) {
		float s = kPalette[index % count][c];
		rgb[c] = s <= 0.04045f ? s / 12.92f : powf((s + 0.055f) / 1.055f, 2.4f);
	}
}

bool CliWriteWeave(const char* path, bool* written, char* error, size_t errorSize)
{
	uint8_t* png = NULL;
	size_t size = 0;
	*written = false;
	if (!CliWeavePng(&png, &size))
		return true; // no renderer in this build: the materials keep their colour
	CliFile f;
	bool ok = CliFileOpen(&f, path, error, errorSize);
	if (ok && fwrite(png, 1, size, f.file) != size) {
		snprintf(error, errorSize, "%s: cannot write: %s", path, strerror(errno));
		CliFileAbort(&f);
		ok = false;
	} else if (ok) {
		ok = CliFileCommit(&f, error, errorSize);
	}
	free(png);
	*written = ok;
	return ok;
}

// FOLDER/weft.mtl: a material per cloth, named as the frames' usemtl lines name it, with the
// renderer's weave (FOLDER/weft_weave.png) as its diffuse map when this build has the renderer.
static bool WriteMtl(const char* folder, int count, char* error, size_t errorSize)
{
	char path[CLI_PATH_MAX];
	snprintf(path, sizeof path, "%s/" CLI_WEAVE_NAME, folder);
	bool texture = false;
	if (!CliWriteWeave(path, &texture, error, errorSize))
		return false;
	snprintf(path, sizeof path, "%s/weft.mtl", folder);
	CliFile f;
	if (!CliFileOpen(&f, path, error, errorSize))
		return false;
	fprintf(f.file, "# weft %d.%d.%d: one material per cloth of the frame_*.obj files\n", WF_VERSION_MAJOR, WF_VERSION_MINOR,
		WF_VERSION_PATCH);
	for (int i = 0; i < count; ++i) {
		float rgb[3];
		CliClothColor(i, rgb);
		fprintf(f.file, "\nnewmtl cloth_%d\nKa 0 0 0\nKd %.6g %.6g %.6g\nKs 0 0 0\nNs 10\nd 1\nillum 1\n", i, rgb[0], rgb[1], rgb[2]);
		if (texture)
			fprintf(f.file, "map_Kd " CLI_WEAVE_NAME "\n");
	}
	return CliFileCommit(&f, error, errorSize);
}

// ------------------------------------------------------------------ OBJ

// The vt lines and the f lines of a cloth whose first vertex has OBJ index `base` and first texture
// coordinate `uvBase` (1-based, counted across the file). A grid has one vt per particle; a mesh one
// per triangle corner (`cornerUVs`), so that its UV seams survive the export.
static bool FormatFixed(CliObjCloth* c, const float* uvs, const float* cornerUVs, const uint32_t* indices, int triangles, long base,
	long uvBase)
{
	FILE* uv = open_memstream(&c->uvText, &c->uvTextLength);
	if (uv == NULL)
		return false;
	for (int i = 0; i < c->uvCount; ++i) {
		const float* t = cornerUVs != NULL ? &cornerUVs[2 * i] : &uvs[2 * i];
		fprintf(uv, "vt %.6g %.6g\n", t[0], t[1]);
	}
	bool ok = fclose(uv) == 0;
	FILE* faces = open_memstream(&c->faceText, &c->faceTextLength);
	if (faces == NULL)
		return false;
	for (int t = 0; t < triangles; ++t) {
		long v[3], u[3];
		for (int k = 0; k < 3; ++k) {
			v[k] = base + (long)indices[3 * t + k];
			u[k] = cornerUVs != NULL ? uvBase + 3L * t + k : uvBase + (long)indices[3 * t + k];
		}
		fprintf(faces, "f %ld/%ld/%ld %ld/%ld/%ld %ld/%ld/%ld\n", v[0], u[0], v[0], v[1], u[1], v[1], v[2], u[2], v[2]);
	}
	return fclose(faces) == 0 && ok;
}

static bool PrepareCloth(CliObjCloth* c, long base, long uvBase, char* error, size_t errorSize)
{
	wfClothInfo info;
	if (wfCloth_GetInfo(c->id, &info) != WF_OK) {
		snprintf(error, errorSize, "cannot read the cloth's size: %s", wfWorld_GetLastError(c->id.world));
		return false;
	}
	c->particleCount = info.particleCount;
	c->topology = info.topology;
	size_t n = (size_t)info.particleCount;
	c->positions = (wfVec3*)malloc(n * sizeof(wfVec3));
	c->normals = (wfVec3*)malloc(n * sizeof(wfVec3));
	float* uvs = (float*)malloc(n * 2 * sizeof(float));
	uint32_t* indices = (uint32_t*)malloc((size_t)info.triangleCount * 3 * sizeof(uint32_t));
	float* cornerUVs = info.mesh ? (float*)malloc((size_t)info.triangleCount * 6 * sizeof(float)) : NULL;
	c->uvCount = info.mesh ? 3 * info.triangleCount : info.particleCount;
	bool ok = c->positions != NULL && c->normals != NULL && uvs != NULL && indices != NULL && (!info.mesh || cornerUVs != NULL);
	if (!ok)
		snprintf(error, errorSize, "out of memory for the OBJ export");
	if (ok &&
		(wfCloth_ReadUVs(c->id, uvs, info.particleCount) != WF_OK || wfCloth_ReadIndices(c->id, indices, 3 * info.triangleCount) != WF_OK ||
			(cornerUVs != NULL && wfCloth_ReadCornerUVs(c->id, cornerUVs, 6 * info.triangleCount) != WF_OK))) {
		snprintf(error, errorSize, "cannot read the mesh: %s", wfWorld_GetLastError(c->id.world));
		ok = false;
	}
	if (ok && !FormatFixed(c, uvs, cornerUVs, indices, info.triangleCount, base, uvBase)) {
		snprintf(error, errorSize, "out of memory for the OBJ export");
		ok = false;
	}
	free(uvs);
	free(cornerUVs);
	free(indices);
	return ok;
}

bool CliObjWriterInit(CliObjWriter* w, const char* folder, const wfClothId* cloths, int count, char* error, size_t errorSize)
{
	w->folder = folder;
	w->clothCount = count;
	w->cloths = (CliObjCloth*)calloc((size_t)count, sizeof(CliObjCloth));
	if (w->cloths == NULL) {
		snprintf(error, errorSize, "out of memory for the OBJ export");
		return false;
	}
	long base = 1, uvBase = 1;
	for (int i = 0; i < count; ++i) {
		w->cloths[i].id = cloths[i];
		if (!PrepareCloth(&w->cloths[i], base, uvBase, error, errorSize))
			return false;
		base += w->cloths[i].particleCount;
		uvBase += w->cloths[i].uvCount;
	}
	return WriteMtl(folder, count, error, errorSize);
}

void CliObjWriterFree(CliObjWriter* w)
{
	for (int i = 0; w->cloths != NULL && i < w->clothCount; ++i) {
		free(w->cloths[i].positions);
		free(w->cloths[i].normals);
		free(w->cloths[i].uvText);
		free(w->cloths[i].faceText);
	}
	free(w->cloths);
	w->cloths = NULL;
}

// One object: v, vt, vn, then f v/vt/vn (v and vn share an index; vt has its own for a mesh).
static void WriteObject(FILE* out, const CliObjCloth* c, int index)
{
	fprintf(out, "o cloth_%d\n", index);
	for (int i = 0; i < c->particleCount; ++i)
		fprintf(out, "v %.6g %.6g %.6g\n", c->positions[i].x, c->positions[i].y, c->positions[i].z);
	fwrite(c->uvText, 1, c->uvTextLength, out);
	for (int i = 0; i < c->particleCount; ++i)
		fprintf(out, "vn %.6g %.6g %.6g\n", c->normals[i].x, c->normals[i].y, c->normals[i].z);
	fprintf(out, "usemtl cloth_%d\n", index);
	fwrite(c->faceText, 1, c->faceTextLength, out);
}

// A cloth that tore since the last frame has other vertices and faces: every cloth is prepared
// again (the OBJ indices of the later cloths move with it).
static bool FollowTears(CliObjWriter* w, char* error, size_t errorSize)
{
	bool changed = false;
	for (int i = 0; i < w->clothCount; ++i) {
		wfClothInfo info;
		changed |= wfCloth_GetInfo(w->cloths[i].id, &info) == WF_OK && info.topology != w->cloths[i].topology;
	}
	if (!changed)
		return true;
	long base = 1, uvBase = 1;
	for (int i = 0; i < w->clothCount; ++i) {
		CliObjCloth* c = &w->cloths[i];
		free(c->positions);
		free(c->normals);
		free(c->uvText);
		free(c->faceText);
		const wfClothId id = c->id;
		memset(c, 0, sizeof *c);
		c->id = id;
		if (!PrepareCloth(c, base, uvBase, error, errorSize))
			return false;
		base += c->particleCount;
		uvBase += c->uvCount;
	}
	return true;
}

bool CliObjWriteFrame(CliObjWriter* w, int frame, double time, char* error, size_t errorSize)
{
	if (!FollowTears(w, error, errorSize))
		return false;
	for (int i = 0; i < w->clothCount; ++i) {
		CliObjCloth* c = &w->cloths[i];
		if (wfCloth_ReadPositions(c->id, c->positions, c->particleCount) != WF_OK ||
			wfCloth_ReadNormals(c->id, c->normals, c->particleCount) != WF_OK) {
			snprintf(error, errorSize, "frame %d: cannot read cloth %d: %s", frame, i, wfWorld_GetLastError(c->id.world));
			return false;
		}
	}
	char path[CLI_PATH_MAX];
	snprintf(path, sizeof path, "%s/frame_%04d.obj", w->folder, frame);
	CliFile f;
	if (!CliFileOpen(&f, path, error, errorSize))
		return false;
	fprintf(f.file, "# weft %d.%d.%d, frame %d, t = %.6f s\nmtllib weft.mtl\n", WF_VERSION_MAJOR, WF_VERSION_MINOR, WF_VERSION_PATCH, frame,
		time);
	for (int i = 0; i < w->clothCount; ++i)
		WriteObject(f.file, &w->cloths[i], i);
	return CliFileCommit(&f, error, errorSize);
}

// ------------------------------------------------------------------ CSV

bool CliCsvOpen(CliFile* f, const char* path, bool perCloth, bool intersections, char* error, size_t errorSize)
{
	if (!CliFileOpen(f, path, error, errorSize))
		return false;
	fprintf(f->file,
		"frame,%stime,kinetic_energy,potential_energy,max_strain,mean_strain,sphere_clearance,"
		"floor_clearance,momentum_x,momentum_y,momentum_z,non_finite%s\n",
		perCloth ? "cloth," : "",
		intersections ? ",intersections_self,intersections_cloths,intersections_colliders,intersections_cloths_apart" : "");
	return true;
}

// A clearance of FLT_MAX means "no such collider"; written as inf.
static void WriteClearance(FILE* out, float clearance)
{
	if (clearance >= FLT_MAX)
		fputs(",inf", out);
	else
		fprintf(out, ",%.9g", clearance);
}

void CliCsvRow(CliFile* f, int frame, int cloth, const wfClothStats* s, const wfIntersections* ix)
{
	fprintf(f->file, "%d", frame);
	if (cloth >= 0)
		fprintf(f->file, ",%d", cloth);
	fprintf(f->file, ",%.9g,%.9g,%.9g,%.9g,%.9g", s->time, s->kineticEnergy, s->potentialEnergy, s->maxStrain, s->meanStrain);
	WriteClearance(f->file, s->sphereClearance);
	WriteClearance(f->file, s->floorClearance);
	fprintf(f->file, ",%.9g,%.9g,%.9g,%d", s->momentum.x, s->momentum.y, s->momentum.z, s->nonFinite);
	if (ix != NULL)
		fprintf(f->file, ",%lld,%lld,%lld,%lld", (long long)ix->self, (long long)ix->cloths, (long long)ix->colliders,
			(long long)ix->clothsApart);
	fputc('\n', f->file);
}
