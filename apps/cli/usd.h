// `weft run --usd FILE.usda`: the run as one ASCII USD layer (a cache for Blender, Houdini, usdview).
//
// The layer: Y up, metres, time code k = frame k (startTimeCode 1), timeCodesPerSecond and
// framesPerSecond the frame rate (1 / timeStep). Under /weft: each cloth a Mesh "cloth_N" with
// time-sampled points, normals (vertex) and extent, its faces and primvars:st (vertex for a grid,
// faceVarying per triangle corner for a mesh or a torn cloth, as the OBJ frames), bound to a
// UsdPreviewSurface material in /weft/Looks; under /weft/colliders the world's sphere (Sphere),
// its floor (a 10 m square Mesh) and the colliders (Sphere, Capsule along x, Cube scaled by the
// half extents, plane: the square Mesh, mesh: an Xform holding a Mesh "surface" in the collider's
// frame, its points, normals and extent time-sampled when its shape changes) with time-sampled
// xformOp:translate and xformOp:orient.
// A tear (wfClothInfo.topology) becomes time samples of faceVertexCounts, faceVertexIndices and
// primvars:st at the frame it happens, which Blender's importer plays (its mesh cache re-reads the
// faces whenever their count changes).
//
// Streaming: a prim's attributes must be written together, so each frame's sample texts go to an
// unlinked scratch file beside the output as they are simulated; the layer is assembled from them
// when the run ends, into a temporary name that is renamed into place (CliFile). Memory holds only
// the offsets of the samples.
#ifndef WEFT_CLI_USD_H
#define WEFT_CLI_USD_H

#include "weft/weft.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct CliUsdWriter CliUsdWriter;

// Opens PATH (its folder already prepared) and the scratch file, and records the shapes to write.
// `source` describes the run for the layer's doc string. NULL on failure, with "PATH: problem" in error.
CliUsdWriter* CliUsdOpen(const char* path, wfWorld* world, const wfClothId* cloths, int count, const char* source, char* error,
	size_t errorSize);
// The samples of the frame just stepped (time code `frame`).
bool CliUsdWriteFrame(CliUsdWriter* w, int frame, char* error, size_t errorSize);
// keep: writes the layer with the frames written so far and renames it into place (false with the
// reason in error when that fails); otherwise removes everything. Frees the writer either way.
bool CliUsdClose(CliUsdWriter* w, bool keep, char* error, size_t errorSize);

// The layer's frame rate for a frame of timeStep seconds: 1 / timeStep, or the nearest whole number
// when it is within 1e-4 of it relatively (timeStep 0.0166667 gives 60).
double CliUsdFrameRate(float timeStep);

#endif
