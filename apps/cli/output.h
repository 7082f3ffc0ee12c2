// Output files of `weft run`: written under a temporary name in the same folder and renamed
// when complete, so a reader never sees half a file and a failed run leaves none behind.
// An existing character device or FIFO (/dev/null, a pipe) is written in place and never
// replaced; other special files (block devices, sockets) are refused.
#ifndef WEFT_CLI_OUTPUT_H
#define WEFT_CLI_OUTPUT_H

#include "weft/weft.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define CLI_PATH_MAX 4096
// Temporaries are ".NAME.weft-PID.tmp": the marker tells them from a user's files (".thesis.2023.tmp"),
// so that the stale-temporary cleanup removes only what weft wrote. The renderer (src/render/out_path.c)
// names its temporaries the same way.
#define CLI_TEMP_MARK "weft-"

typedef struct CliFile {
	FILE* file;                  // open on tempPath; NULL when closed
	char path[CLI_PATH_MAX];     // the final name
	char tempPath[CLI_PATH_MAX]; // ".NAME.weft-PID.tmp" beside it; empty when written in place
	bool inPlace;                // path is a device or FIFO: no temporary, no rename
} CliFile;

// On failure these return false and write "PATH: problem" into error.
bool CliFileOpen(CliFile* f, const char* path, char* error, size_t errorSize);
bool CliFileCommit(CliFile* f, char* error, size_t errorSize); // flush, close, rename
void CliFileAbort(CliFile* f);                                 // close and remove the temporary

// Removes temporaries (".NAME.weft-PID.tmp") that runs killed earlier left in `folder`: those whose
// process is gone. Names without the marker are never touched. With `base`, only those of that file name. Returns how many were removed.
int CliRemoveStaleTemporaries(const char* folder, const char* base);
// Files "frame_<digits>.<extension>" in folder (frames of an earlier run); with remove, deletes them.
// Returns how many there were (removed), -1 when the folder cannot be read; *example gets one name.
int CliOldFrames(const char* folder, const char* extension, bool remove, char* example, size_t exampleSize);
// The folder part of a file path ("." when it has none).
void CliFolderOf(const char* path, char* out, size_t size);
// Whether two paths name one file: the same device and inode where both exist, else the same
// resolved folder and name. A character device (/dev/null for two outputs) is never "the same".
bool CliSameFile(const char* a, const char* b);

// Creates a folder and its parents if missing, then checks that a file can be created in it.
bool CliPrepareFolder(const char* path, char* error, size_t errorSize);
// The same for the folder a file goes into; a path naming a folder is an error. An existing
// device or FIFO needs no folder check (it is written in place).
bool CliPrepareFileFolder(const char* path, char* error, size_t errorSize);

// The colour of cloth `index` in the caches (the OBJ frames' weft.mtl, the USD layer's materials):
// linear RGB. The scene format names no texture or colour for a cloth, so the caches give each cloth
// one of a few yarn colours (the first two are those of the renderer's weave texture).
void CliClothColor(int index, float rgb[3]);

// The renderer's weave as a PNG file at path (a temporary, then renamed): the caches' texture.
// In a build without the renderer it writes nothing, sets *written false and returns true.
#define CLI_WEAVE_NAME "weft_weave.png" // beside weft.mtl in an --obj folder
bool CliWriteWeave(const char* path, bool* written, char* error, size_t errorSize);

// Wavefront OBJ, one file per frame, one object per cloth with v, vt, vn and f v/vt/vn; the frames
// name FOLDER/weft.mtl (mtllib), written once, with a material per cloth (usemtl cloth_N).
typedef struct CliObjCloth {
	wfClothId id;
	int particleCount;
	int uvCount;       // vt lines: one per particle (grid) or per triangle corner (mesh)
	wfVec3* positions; // (particleCount)
	wfVec3* normals;   // (particleCount)
	// The vt and f lines change only when the cloth tears (wfClothInfo.topology): formatted then,
	// copied per frame.
	int topology;
	char* uvText;
	size_t uvTextLength;
	char* faceText;
	size_t faceTextLength;
} CliObjCloth;

typedef struct CliObjWriter {
	const char* folder;
	CliObjCloth* cloths; // (clothCount)
	int clothCount;
} CliObjWriter;

// Also writes FOLDER/weft.mtl.
bool CliObjWriterInit(CliObjWriter* w, const char* folder, const wfClothId* cloths, int count, char* error, size_t errorSize);
// Writes FOLDER/frame_NNNN.obj from the cloths' current state.
bool CliObjWriteFrame(CliObjWriter* w, int frame, double time, char* error, size_t errorSize);
void CliObjWriterFree(CliObjWriter* w);

// Statistics CSV: a header row, then one row per frame (per cloth and frame when perCloth).
// With intersections, three more columns (wfIntersections of the world, on each of its rows).
bool CliCsvOpen(CliFile* f, const char* path, bool perCloth, bool intersections, char* error, size_t errorSize);
void CliCsvRow(CliFile* f, int frame, int cloth /* -1: no cloth column */, const wfClothStats* stats,
	const wfIntersections* intersections /* NULL: none */);

#endif
