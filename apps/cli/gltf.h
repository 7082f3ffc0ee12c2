// `weft run --gltf FILE.glb`: binary glTF 2.0 of a run, the cloths animated with their colliders,
// for three.js's GLTFLoader, Blender and other glTF readers (docs/design/tools.md, "glTF caches").
//   - Each cloth is a mesh whose base is one frame's positions and whose morph targets hold the
//     next frames as deltas; an animation on the node's weights gives frame k weight 1 at
//     k x timeStep (LINEAR: frames in between blend). A cloth is cut into such meshes every
//     CLI_GLTF_TARGETS_PER_MESH frames and where it tears (wfClothInfo.topology changes); each
//     mesh's node is shown over its frames only (scale 1, else 0, STEP keys).
//   - The world's sphere and floor and the colliders are nodes with simple meshes (UV sphere,
//     tapered capsule, box, quad) whose translation and rotation are sampled every frame. A mesh
//     collider's node has no mesh of its own: its surface, in the collider's frame, is recorded
//     as a cloth's is (morph targets, chunks) in meshes of child nodes; while it holds its shape
//     it is one mesh without targets (a rigid body: one plain mesh for the whole run).
// The frames stream into a scratch file (unlinked at once, so nothing is left behind) beside the
// output; the GLB is written under a temporary name at the end and renamed (CliFile).
#ifndef WEFT_CLI_GLTF_H
#define WEFT_CLI_GLTF_H

#include "weft/weft.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// Morph targets per mesh: three.js keeps one uniform and one texture layer per target (WebGL2
// guarantees 256 of each), and a glTF weights animation holds keys x targets numbers.
#define CLI_GLTF_TARGETS_PER_MESH 64

typedef struct CliGltf CliGltf;

// Opens `path` and records frame 0, the state before the first step. `frames` is the run's planned
// frame count, for the size check (a GLB holds less than 4 GiB). NULL on failure, "PATH: problem"
// in error.
CliGltf* CliGltfOpen(const char* path, wfWorld* world, const wfClothId* cloths, int count, int frames, char* error, size_t errorSize);
// Records frame `frame` (1, 2, ... in order) from the cloths' and colliders' current state.
bool CliGltfFrame(CliGltf* g, int frame, char* error, size_t errorSize);
// keep: writes the GLB and renames it into place (*bytes: its size); otherwise throws everything
// away. Frees g; NULL does nothing.
bool CliGltfClose(CliGltf* g, bool keep, uint64_t* bytes, char* error, size_t errorSize);

#endif
