// Internal declarations shared by the renderer's source files.
#ifndef WEFT_RENDER_INTERNAL_H
#define WEFT_RENDER_INTERNAL_H

#include "weft/render.h"

#include <stdbool.h>
#include <stdint.h>

// A CPU-side indexed mesh; normals equal positions for the unit sphere.
typedef struct RdMesh {
	int vertexCount;
	int indexCount;
	float* positions; // (vertexCount x 3)
	float* uvs;       // (vertexCount x 2)
	uint32_t* indices;// (indexCount)
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

extern const RdShaderCode rdLitVert, rdLitFrag, rdLineVert, rdLineFrag, rdShadowVert, rdBoundsComp, rdLightComp;

#endif
