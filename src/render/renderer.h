// Internal: the renderer object, shared by its creation (renderer.c) and its frames (draw.c).
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
_Static_assert(sizeof(RdDraw) == 112 && sizeof(RdDraw) <= 128, "RdDraw must fit the guaranteed push-constant space (128 bytes)");

// Byte offsets of one mesh's streams inside a buffer (positions and normals: RD_VERTEX_STRIDE bytes each).
typedef struct RdStreams {
	VkDeviceSize position, normal, uv, index, lineIndex;
	uint32_t indexCount, lineIndexCount;
} RdStreams;

// What the renderer keeps of a cloth between frames: its uvs, triangle and edge indices (they change
// only when the cloth tears: wfClothInfo.topology, which makes a new entry) and the rest shape for
// strain colours, all in `statics`. The rest shape is the positions of the first frame this renderer
// drew of the cloth (a cloth is created at rest); it is taken again when the world's time goes back
// (a reset, a restored snapshot, or a new world at a reused address).
typedef struct RdClothCache {
	wfWorld* world;
	int32_t index;
	uint32_t generation;
	int particleCount;
	int topology;       // wfClothInfo.topology the entry was made for
	wfVkBuffer statics; // uv, index and lineIndex of `streams`, then the rest shape at `rest`
	RdStreams streams;  // position and normal unused: they come from the frame's source
	// A mesh with UV seams: seamVertices vertices (the particles, then one more per extra UV of a
	// particle), each a particle index at seamParticle and a UV at seamUV, and the triangles over
	// them at seamIndex; 0 without seams (the particles are the vertices).
	uint32_t seamVertices;
	VkDeviceSize seamParticle, seamUV, seamIndex;
	VkDeviceSize rest;  // (particleCount) vec4
	uint32_t nodeEdges; // particle pairs at streams.lineIndex the nodes view draws (the wireframe: the first lineIndexCount / 2)
	double restTime;    // world time when the rest shape was taken; < 0: not yet taken
	int lastFrame;      // the renderer's frame counter when last drawn (unused entries are freed)
} RdClothCache;

// What the renderer keeps of a mesh collider (WF_COLLIDER_MESH): its shape may change every frame
// (wfCollider_SetMeshVertices, keyed shapes), so each frame its vertices are read, posed into the
// world and given smooth normals on the host, and written straight into `buffer`, which is host
// visible and coherent (a frame waits for the GPU before it returns, so the next one may overwrite
// it). The triangles and zero uvs are written once. A new entry when the vertex count changes.
typedef struct RdMeshCache {
	wfWorld* world;
	int32_t index;
	uint32_t generation;
	int vertexCount, triangleCount;
	bool closed;        // every edge on two triangles, once each way: back faces are culled
	wfVkBuffer buffer;  // streams' position, normal, uv and index
	RdStreams streams;  // lineIndex unused
	wfVec3* local;      // (vertexCount) this frame's vertices in the collider's frame
	float* normal;      // (vertexCount x 3) area-weighted sums of the triangles' normals
	uint32_t* triangle; // (triangleCount x 3)
	int lastFrame;      // the renderer's frame counter when last drawn (unused entries are freed)
} RdMeshCache;
struct wfRenderer {
	wfRendererDef def;
	RdContext ctx;
	VkSampleCountFlagBits samples;
	VkFormat colorFormat, depthFormat;

	// Offscreen target: multisampled colour + depth, resolved into `resolve`, copied to `readback`.
	RdImage color, depth, resolve;
	wfVkBuffer readback;
	VkRenderPass pass;
	VkFramebuffer framebuffer;

	VkDescriptorSetLayout setLayout;
	VkDescriptorPool descriptorPool;
	VkDescriptorSet set;
	// Set 1: a cloth's state (RD_CLOTH_*). One per cloth per frame from clothPool (reset every frame);
	// dummySet points at a small buffer for draws that read no cloth.
	VkDescriptorSetLayout clothSetLayout;
	VkDescriptorPool clothPool;
	uint32_t clothPoolSets;
	VkDescriptorSet dummySet;
	wfVkBuffer dummy;
	wfVkBuffer bounds;       // (6) uint: the casters' box, filled by bounds.comp
	VkPipelineLayout layout; // sets 0 and 1, RdDraw push constants; graphics and compute
	VkPipeline boundsPipeline, lightPipeline;
	VkPipeline litPipeline;      // double-sided surfaces (cloth, floor)
	VkPipeline solidPipeline;    // closed meshes with back faces culled (sphere, pin markers)
	VkPipeline linePipeline;     // wireframe
	VkPipeline nodeLinePipeline; // the nodes view's constraints
	VkPipeline seamPipeline;     // litPipeline for a cloth with UV seams (vertices: particle + UV)
	VkPipeline shadowPipeline;   // depth only, into the shadow map

	// The key light's shadow map (floor shadows): its own depth-only pass, sampled with compare.
	RdImage shadowMap;
	uint32_t shadowSize;
	VkFormat shadowFormat;
	VkRenderPass shadowPass;
	VkFramebuffer shadowFramebuffer;
	VkSampler shadowSampler;

	wfVkBuffer uniforms; // RdScene, host visible
	RdImage texture;
	uint32_t textureLevels;
	VkSampler sampler;

	// Sphere, pin marker and floor, uploaded once.
	wfVkBuffer staticGeometry;
	RdStreams sphere, marker, node, floor, box; // node: the nodes view's spheres; box: colliders' boxes and planes

	// Cloths that cannot be drawn from the solver's buffers: their positions, normals and velocities
	// (vec4) are written into `staging` and copied to `geometry` by the GPU.
	wfVkBuffer staging, geometry;
	float* scratch; // (scratchCount x 3) read-back of one array
	int scratchCount;

	RdClothCache* caches;
	int cacheCount;
	RdMeshCache* meshCaches; // (meshCacheCount) the mesh colliders drawn lately
	int meshCacheCount;
	int frameIndex;

	// Drawing straight from a world's buffers: the world whose device this renderer uses (NULL: its own).
	wfWorld* sharedWorld;
	int64_t uploadBytes; // bytes of cloth state copied from the host for the last frame
	int zeroCopyCloths;  // cloths of the last frame drawn from the solver's buffers

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
// Frees every cloth and mesh collider cache entry.
void rdFreeCaches(wfRenderer* r);
// Points a cloth set (set 1) at its positions, velocities and rest shape.
void rdWriteClothSet(wfRenderer* r, VkDescriptorSet set, VkBuffer state, VkDeviceSize positions, VkDeviceSize velocities,
	VkDeviceSize normals, VkBuffer rest, VkDeviceSize restOffset, VkDeviceSize bytes);
// Makes room for `sets` cloth sets in the per-frame pool and resets it.
bool rdEnsureClothPool(wfRenderer* r, uint32_t sets);

#endif
