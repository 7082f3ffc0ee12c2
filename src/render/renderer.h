// Internal: the renderer object, shared by its creation (renderer.c) and its frames (frame.c).
#ifndef WEFT_RENDER_RENDERER_H
#define WEFT_RENDER_RENDERER_H

#include "render_internal.h"
#include "render_shared.h"
#include "vk.h"

typedef struct RdScene {
	RD_SCENE_FIELDS
} RdScene;

typedef struct RdDraw {
	RD_DRAW_FIELDS
} RdDraw;

_Static_assert(sizeof(RdScene) == 2 * 64 + 8 * 16, "RdScene must match the std140 block");
_Static_assert(sizeof(RdDraw) == 64, "RdDraw must fit the guaranteed push-constant space");

// Byte offsets of one mesh's streams inside a buffer.
typedef struct RdStreams {
	VkDeviceSize position, normal, uv, scalar, index, lineIndex;
	uint32_t indexCount, lineIndexCount;
} RdStreams;

// Positions of a cloth the first time this renderer drew it: the rest state for strain colours.
typedef struct RdRestEntry {
	wfWorld* world;
	int32_t index;
	uint32_t generation;
	int count;
	double time;         // world time when captured; a world whose time went back is a new one
	wfVec3* positions;
} RdRestEntry;

struct wfRenderer {
	wfRendererDef def;
	RdContext ctx;
	VkSampleCountFlagBits samples;
	VkFormat colorFormat, depthFormat;

	// Offscreen target: multisampled colour + depth, resolved into `resolve`, copied to `readback`.
	RdImage color, depth, resolve;
	RdBuffer readback;
	VkRenderPass pass;
	VkFramebuffer framebuffer;

	VkDescriptorSetLayout setLayout;
	VkDescriptorPool descriptorPool;
	VkDescriptorSet set;
	VkPipelineLayout layout;
	VkPipeline litPipeline;  // double-sided surfaces (cloth, floor)
	VkPipeline solidPipeline;// closed meshes with back faces culled (sphere, pin markers)
	VkPipeline linePipeline; // wireframe
	VkPipeline shadowPipeline; // depth only, into the shadow map

	// The key light's shadow map (floor shadows): its own depth-only pass, sampled with compare.
	RdImage shadowMap;
	uint32_t shadowSize;
	VkFormat shadowFormat;
	VkRenderPass shadowPass;
	VkFramebuffer shadowFramebuffer;
	VkSampler shadowSampler;

	RdBuffer uniforms; // RdScene, host visible
	RdImage texture;
	uint32_t textureLevels;
	VkSampler sampler;

	// Sphere, pin marker and floor, uploaded once.
	RdBuffer staticGeometry;
	RdStreams sphere, marker, floor;

	// The cloths of a frame: written into `staging`, copied to `geometry` by the GPU.
	RdBuffer staging, geometry;
	float* scratch; // (scratchCount x 3) velocities for the speed mode
	int scratchCount;

	RdRestEntry* rest;
	int restCount;

	bool hasFrame;
	char error[512];
};

// Records the message on the renderer and returns code.
wfResult rdRendererFail(wfRenderer* r, wfResult code, const char* format, ...) __attribute__((format(printf, 3, 4)));
// The Vulkan context records its own errors; copies the last one to the renderer.
wfResult rdRendererFailVulkan(wfRenderer* r);
float rdSrgbToLinear(float c);
// Lays out the streams of a mesh in a buffer from *offset on (each 16-byte aligned) and advances it.
RdStreams rdLayoutStreams(VkDeviceSize* offset, int vertices, int indices, int lineIndices, bool sharedNormals);

#endif
