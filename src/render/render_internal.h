// Internal declarations shared by the renderer's source files.
#ifndef WEFT_RENDER_INTERNAL_H
#define WEFT_RENDER_INTERNAL_H

#include "weft/render.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

// A CPU-side indexed mesh; normals equal positions for the unit sphere.
typedef struct RdMesh {
	int vertexCount;
	int indexCount;
	float* positions;  // (vertexCount x 3)
	float* uvs;        // (vertexCount x 2)
	uint32_t* indices; // (indexCount)
} RdMesh;

void rdMakeWeaveTexture(uint8_t* rgba, int size); // (size x size x 4) sRGB
bool rdMakeSphere(int slices, int stacks, RdMesh* mesh);
void rdMeshFree(RdMesh* mesh);

// World -> Vulkan clip space of an orbit camera for an image of the given width / height.
void rdCameraViewProj(const wfCamera* camera, float aspect, float out[16]);
float rdCameraNear(const wfCamera* camera);

// SPIR-V words compiled from shaders/ at build time (shaders.c).
typedef struct RdShaderCode {
	const uint32_t* words;
	size_t size; // bytes
} RdShaderCode;

// Output files (out_path.c). rdOpenOutputInPlace returns a file descriptor open for writing when
// `path` is an existing character device or FIFO (written in place, never replaced),
// RD_OUTPUT_REPLACE when it is a regular file or does not exist (write a temporary and rename it),
// or RD_OUTPUT_REFUSED with the reason in `why` (a folder, a block device, a FIFO without reader).
enum { RD_OUTPUT_REPLACE = -1, RD_OUTPUT_REFUSED = -2 };
int rdOpenOutputInPlace(const char* path, char* why, size_t whySize);
// ".NAME.weft-PID.tmp" beside path (the same folder, so the rename is atomic); false when it does not fit.
bool rdTempName(const char* path, char* out, size_t size);

extern const RdShaderCode rdLitVert, rdLitPullVert, rdLitFrag, rdLineVert, rdLineFrag, rdNodesLineVert, rdNodesLineFrag, rdShadowVert,
	rdBoundsComp, rdLightComp;

#endif
