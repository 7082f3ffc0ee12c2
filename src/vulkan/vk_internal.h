// Vulkan backend internals: the device context of a world, the per-cloth GPU data, and the
// VkResult check that turns a failed call into a logged weft error.
#ifndef WEFT_VK_INTERNAL_H
#define WEFT_VK_INTERNAL_H

#include "../core/internal.h"
#include "../core/names.h"
#include "gpu/kernel_abi.h"
#include "device/vk_gpu.h"

// Every VkResult is checked: a failure is logged with the call and returned as a wfResult.
#define WF_VK_CHECK(ctx, call) WF_VK_CHECK_WITH(wfVkFail, ctx, call)

enum {
	WF_VK_PIPE_PREDICT = 0,
	WF_VK_PIPE_XPBD_SOLVE,
	WF_VK_PIPE_FINISH,
	WF_VK_PIPE_JACOBI_SWEEP,
	WF_VK_PIPE_SPRINGS,
	WF_VK_PIPE_NORMALS,
	WF_VK_PIPE_CHECK,
	WF_VK_PIPE_STATS_PARTICLES,
	WF_VK_PIPE_STATS_CONSTRAINTS,
	WF_VK_PIPE_JACOBI_SWEEP_WIDE, // the same kernels with WF_GPU_GATHER_WIDE (small cloths)
	WF_VK_PIPE_SPRINGS_WIDE,
	WF_VK_PIPE_CONTACT_GRID, // the contact pass (self-collision, cloth against cloth): contact_*.comp
	WF_VK_PIPE_CONTACT_SCAN,
	WF_VK_PIPE_CONTACT_GATHER,
	WF_VK_PIPE_FINISH_SELF,      // finish with the self-collision pass's move (reads set 1)
	WF_VK_PIPE_SPRINGS_TILED,    // springs, several substeps per dispatch (springs_tiled.comp)
	WF_VK_PIPE_JACOBI_TILED,     // Jacobi, several substeps per dispatch (jacobi_tiled.comp)
	WF_VK_PIPE_XPBD_TILED,       // XPBD, every colour of a tile per dispatch (xpbd_tiled.comp)
	WF_VK_PIPE_CONTACT_TRIANGLE, // self-collision's point-triangle pass (contact_triangle.comp)
	WF_VK_PIPE_CONTACT_EDGE,     // and its edge-edge pass (contact_edge.comp)
	WF_VK_PIPE_COLLIDE_MESH,     // mesh colliders and attachments (collide_mesh.comp; its own layout: meshPipelineLayout)
	WF_VK_PIPE_TETHER_KEYS,      // the tethers, then the self-collision grid's keys (tether_keys.comp; reads set 1)
	WF_VK_PIPE_COUNT
};

// Regions of a cloth's device buffer, in WF_VK_BIND_* terms plus the ping-pong and backup copies.
enum {
	WF_VK_REGION_POS_A = 0,
	WF_VK_REGION_VEL_A,
	WF_VK_REGION_POS_B,
	WF_VK_REGION_VEL_B,
	WF_VK_REGION_PREV,
	WF_VK_REGION_LAMBDA,
	WF_VK_REGION_CONSTRAINTS,
	WF_VK_REGION_ADJ_START,
	WF_VK_REGION_ADJ_CONSTRAINT,
	WF_VK_REGION_ADJ_OTHER,
	WF_VK_REGION_JACOBI_WEIGHT,
	WF_VK_REGION_NORMALS,
	WF_VK_REGION_TRI_START,
	WF_VK_REGION_TRI_LIST,
	WF_VK_REGION_INDICES,
	WF_VK_REGION_BACKUP_POS,
	WF_VK_REGION_BACKUP_VEL,
	WF_VK_REGION_STATUS,     // wfGpuStatus, reset and copied to staging by every frame
	WF_VK_REGION_PARTIALS,   // (particleGroups + constraintGroups) wfGpuPartial
	WF_VK_REGION_PACKED,     // (constraints) uvec2 for the fused kernel: a | b << 12 | family << 24, rest bits;
							 // in the tile order for xpbd_tiled.comp, a and b as slots of the tile's region
	WF_VK_REGION_REST,       // (n) vec4 rest positions, with self-collision (its exclusion rule)
	WF_VK_REGION_TILE_START, // (colours x (tiles + 1)) int, the tile order's ranges; 16 bytes without it
	// (n) int each particle's particle of the untorn cloth (wfCloth.source), where it has torn and
	// the point-triangle pass runs: copied into the contact set's RANK before that pass; never bound
	WF_VK_REGION_SOURCE,
	// (colours x n) uvec2, with WF_VELOCITY_MOVES on a cloth the fused kernel can take: the
	// constraint of each colour at each particle for the owner order (fused_xpbd.glsl, SubstepOwner)
	WF_VK_REGION_OWNER,
	WF_VK_REGION_COUNT
};

#define WF_VK_TIMING_CAPACITY 65536
#define WF_VK_MAX_TIMESTAMPS (1u << 22) // stage timing's queries per frame, at most

// Host-visible staging layout of a cloth: the copy of the frame's status, then positions,
// velocities, normals.
#define WF_VK_STAGING_STATUS 0
#define WF_VK_STAGING_DATA 256

typedef struct wfVkCloth {
	wfVkBuffer device;                   // every array of the cloth, at regionOffset[]; in an arena: its buffer (not owned)
	int arena;                           // index of the arena holding the arrays, -1: device is the cloth's own buffer
	VkDeviceSize deviceBase, deviceSize; // the cloth's range of device (base 0 in its own buffer)
	int slot;                            // batch slot in the recorded frame, -1: stepped by the per-range path
	// Substep records the frame buffer holds: WF_MAX_SUBSTEPS, or 1 for a cloth that only the
	// fused kernel steps (its substeps come from the arena's table; 1024 small cloths would
	// otherwise hold 200 MB of host-visible frame buffers).
	int frameSubsteps;
	VkDeviceSize regionOffset[WF_VK_REGION_COUNT];
	VkDeviceSize regionSize[WF_VK_REGION_COUNT];
	wfVkBuffer staging; // host-visible: wfGpuStatus copy, then (n) pos, vel, normals
	wfVkBuffer frame;   // host-visible: wfGpuClothParams + (WF_MAX_SUBSTEPS) wfGpuSubstep
	VkDescriptorPool descriptorPool;
	VkDescriptorSet sets[2];                          // variant 0 reads A writes B, variant 1 the reverse
	VkCommandBuffer upload, download, restore, stats; // recorded once
	VkCommandBuffer backupDown;                       // the backup -> staging (the energy rule's exact test)
	uint32_t particleGroups, constraintGroups;        // workgroups of the statistics kernels
	VkDeviceSize statsParamsOffset;                   // wfGpuStatsParams in the frame buffer
	VkDeviceSize stagingPartials;                     // the partials' copy in the staging buffer
	bool normalsCurrent;                              // the device's normal buffer matches its positions
	bool inContacts;                                  // counted in wfVkContacts.worldParticles (cloth against cloth)
	int reach; // a grid's constraints join particles at most this many rows and columns apart; INT_MAX: not a grid (a mesh, a torn cloth: tearing adds particles)
} wfVkCloth;

// Batches: the arrays of every small cloth (those the fused kernel steps) are packed into an arena
// buffer, so one dispatch, workgroup g = slot g, steps all of them. An arena grows by doubling
// (contents copied, its cloths' descriptors and transfers re-pointed) up to maxStorageBufferRange
// (capped at 2 GB); then a new one starts (one more dispatch). Space is handed out from the top and
// reused once every cloth of the arena is gone.
#define WF_VK_MAX_ARENAS 16
#define WF_VK_ARENA_FIRST_SIZE (4u << 20) // bytes of an arena's first buffer
typedef struct wfVkArena {
	wfVkBuffer buffer; // device-local: the cloths' regions
	VkDeviceSize top;  // bytes handed out
	int live;          // cloths in it
	wfVkBuffer table;  // host-visible: (WF_MAX_SUBSTEPS) wfGpuSubstep, then (slotCapacity) wfGpuBatchSlot
	// Host-cached: (slotCapacity) wfGpuStatus, each slot's frame check, written by the kernel (read
	// from the device-local table, across the bus uncached, they cost the host microseconds a cloth).
	wfVkBuffer statuses;
	uint32_t slotCapacity;
	VkDescriptorPool pool;
	VkDescriptorSet set;
	int slots;     // cloths in the recorded frame's dispatch
	int sizeIndex; // its workgroup size: 32 << sizeIndex
} wfVkArena;

// The world's contact arrays (wfSelfCollisionDef; kernel_abi.h WF_GPU_CONTACT_BIND_*): one device
// buffer bound as set 1 for the whole frame, sized for the largest self-colliding cloth, or with
// betweenCloths for every particle of the world; the cell array for the largest hash in use and
// the scan's block sums after it. Grown (never shrunk) as cloths are added.
typedef struct wfVkContacts {
	wfVkBuffer device;
	wfVkBuffer params; // host-visible wfGpuContactParams
	VkDeviceSize offset[WF_GPU_CONTACT_BIND_COUNT], size[WF_GPU_CONTACT_BIND_COUNT];
	int particles;  // the arrays' capacity
	uint32_t cells; // the largest hash they serve (a power of two)
	VkDescriptorPool pool;
	VkDescriptorSet set;
	// Cloth against cloth, as the CPU's wfCpuContactsReserve (the same hash, so the same bits):
	// the world's live particles, the capacity they reached when it last grew, the hash's size.
	int worldParticles, worldCapacity;
	uint32_t worldHash; // the smallest power of two >= 2 worldCapacity
} wfVkContacts;

// Mesh colliders (kernel_abi.h WF_GPU_MESH_BIND_*): one host-visible buffer per world, the
// placements (wfGpuMeshPlace) and then the words, written before each submit; the corner pass's
// scratch for the largest cloth. Bound as set 1 of meshPipelineLayout. Grown (never shrunk).
typedef struct wfVkMesh {
	wfVkBuffer buffer;                        // host-visible (device-local where it can be): placements, then words
	VkDeviceSize placeCapacity, wordCapacity; // bytes of each region (the words start at placeCapacity)
	wfVkBuffer scratch;                       // device-local (scratchSlots) vec4: 4 a constraint or 3 a triangle of the largest cloth
	int scratchSlots;
	// The bodies' hierarchies four-wide (vk_mesh.c WideTopology), host: body b's wide[b] wide nodes
	// from wideAt[b], each four slots' binary node (wideSlot) and entry (wideEntry, two words).
	int* wideTodo;
	int* wideSlot;
	uint32_t* wideEntry;
	int wideCapacity; // wide nodes the arrays hold
	int wide[WF_MAX_COLLIDERS], wideAt[WF_MAX_COLLIDERS];
	VkDescriptorPool pool;
	VkDescriptorSet set;
	// This frame's layout (wfVkMeshPrepare): mesh bodies (their colliderFrame indices), placements
	// and words.
	int bodies;
	int body[WF_MAX_COLLIDERS];
	uint64_t places, words;
	uint64_t signature; // of what the recorded frame's mesh dispatches assumed (bodies, closed, attachments)
	uint64_t recordedSignature;
} wfVkMesh;

typedef struct wfVkContext {
	wfWorld* world; // where messages go
	wfVkGpu gpu;    // instance, device and queue (src/vulkan/device/): own, or the caller's (wfWorldDef.vulkanDevice)
	VkDescriptorSetLayout setLayout;
	VkPipelineLayout pipelineLayout;
	VkDescriptorSetLayout contactSetLayout; // WF_GPU_CONTACT_BIND_* (set 1 of pipelineLayout)
	wfVkContacts contacts;
	VkDescriptorSetLayout meshSetLayout; // WF_GPU_MESH_BIND_* (set 1 of meshPipelineLayout)
	VkPipelineLayout meshPipelineLayout; // set 0 and the mesh set (collide_mesh.comp)
	wfVkMesh mesh;
	VkDescriptorSetLayout batchSetLayout; // WF_VK_BATCH_BIND_* (fused kernels)
	VkPipelineLayout batchPipelineLayout;
	wfVkArena arenas[WF_VK_MAX_ARENAS];
	int arenaCount;
	VkPipeline pipelines[2][WF_VK_PIPE_COUNT]; // [kColliders of common.glsl]
	VkCommandPool commandPool;
	VkCommandBuffer frameCmd;
	VkFence fence;
	VkQueryPool timestamps; // two per frame: start and end (VK_NULL_HANDLE when unsupported)
	// Structure the frame command buffer was recorded for; anything else re-records.
	bool recorded;
	wfSolverType recordedSolver;
	int recordedSubsteps, recordedIterations;
	uint64_t recordedClothSet;
	bool recordedColliders;   // the world had colliders besides its sphere and floor (kColliders)
	uint64_t clothSetVersion; // bumped when a cloth is added or removed
	int dispatchesPerFrame;
	int fusedClothsPerFrame; // cloths the recorded frame steps with the fused kernel
	// Fused small-cloth path: available when the device runs 1024-invocation workgroups; the shared
	// array holds fusedSharedFloats floats (maxComputeSharedMemorySize / 4, at most 12288).
	bool fusedAvailable;
	bool fusedDisabled; // fusedPath never: every cloth takes the per-range path
	bool fusedForced;   // fusedPath always: every small cloth takes the fused path, even alone
	uint32_t fusedSharedFloats;
	// Fused pipelines per solver and workgroup size (32 << k), created when first recorded.
	VkPipeline fusedPipelines[2][WF_SOLVER_COUNT][WF_GPU_FUSED_GROUP_SIZES]; // [kColliders]
	double lastFrameGpuMs;                                                   // from the timestamps of the last step, < 0 if unknown
	// WEFT_VK_TIMING=1: GPU times of the frames, summarised in the log when the world is destroyed.
	double* frameTimes; // (WF_VK_TIMING_CAPACITY) ms, the first frameCount of them
	int frameCount;
	bool lost;              // the device was lost: every later call fails
	bool injectOutOfMemory; // tests: the next allocations fail as VK_ERROR_OUT_OF_DEVICE_MEMORY
	// Stage timing (world->stageTiming): the recorded frame writes a timestamp wherever the work
	// changes wfStage. Query 0 starts the frame, 2 .. 2 + stageMarks - 1 are the marks in recording
	// order, 1 ends it; markStage[q] is the stage of the interval that ends at query q.
	uint32_t timestampCapacity; // queries in `timestamps` (grown by the recorder)
	uint64_t timestampMask;     // the bits a timestamp of the queue holds (timestampValidBits)
	bool stageTimingAsked;      // world->stageTiming when the frame was recorded
	bool recordedStageTiming;   // the recorded frame has the stage marks
	uint32_t stageMarks;
	uint8_t* markStage; // (timestampCapacity) wfStage
	uint64_t* ticks;    // (timestampCapacity) the last frame's query results
} wfVkContext;

// Memory and synchronisation the parts share.
static const VkMemoryPropertyFlags kDeviceLocal = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
static const VkMemoryPropertyFlags kHostCoherent = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
static const VkPipelineStageFlags kComputeTransfer = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
static const VkAccessFlags kAllWrites = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
static const VkAccessFlags kAllReadWrites = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
	VK_ACCESS_TRANSFER_WRITE_BIT;
#define WF_VK_FENCE_TIMEOUT_NS (300ull * 1000000000ull)

// vk_cloth.c: command helpers.
// Waits for the work weft submitted: on a borrowed device (an engine's) only weft's queue.
void wfVkWaitIdle(wfVkContext* ctx);
void wfVkBarrier(const wfVkContext* ctx, VkCommandBuffer cmd, VkPipelineStageFlags srcStage, VkAccessFlags srcAccess,
	VkPipelineStageFlags dstStage, VkAccessFlags dstAccess);
// Compute -> compute: the next dispatch reads (and writes) what this one wrote.
void wfVkComputeBarrier(const wfVkContext* ctx, VkCommandBuffer cmd);
void wfVkCopy(const wfVkContext* ctx, VkCommandBuffer cmd, VkBuffer src, VkDeviceSize srcOffset, VkBuffer dst, VkDeviceSize dstOffset,
	VkDeviceSize size);
wfResult wfVkBegin(wfVkContext* ctx, VkCommandBuffer cmd);
// Submits one command buffer and waits for it (steps are synchronous).
wfResult wfVkSubmitCommands(wfVkContext* ctx, VkCommandBuffer cmd);
// vk_cloth.c: cloths, arenas and contact arrays.
wfResult wfVkAddCloth(wfWorld* world, wfCloth* c);
void wfVkRemoveCloth(wfWorld* world, wfCloth* c);
// Cloths of the world in arenas (the fused path), leaving out `except` (NULL: none).
int wfVkCountArenaCloths(const wfWorld* world, const wfCloth* except);
wfResult wfVkArenaReserveSlots(wfVkContext* ctx, wfVkArena* a, uint32_t slots);
void wfVkDestroyArenas(wfVkContext* ctx);
// Grows the world's contact arrays for cloth `c` (NULL: for the world's current cloths).
wfResult wfVkContactsReserve(wfVkContext* ctx, const wfWorld* world, const wfCloth* c);
// The contact pass's constants into the params buffer, with the CPU's expressions (cpu_self.c), and
// where the counts lie in the cells (after the starts and the scan's block sums).
void wfVkWriteContactParams(wfVkContext* ctx, const wfSelfCollisionDef* sc);
void wfVkDestroyContacts(wfVkContext* ctx);
// vk_mesh.c: mesh colliders. Before the frame is recorded and written: cloths out of the arenas
// (mesh worlds step per range), this frame's layout, the buffers grown (re-records when they are);
// then the placements written (the host places each body for each cloth and substep).
wfResult wfVkMeshPrepare(wfVkContext* ctx, wfWorld* world);
wfResult wfVkMeshWrite(wfVkContext* ctx, wfWorld* world, const wfFrameParams* params);
void wfVkDestroyMesh(wfVkContext* ctx);
// The placement of mesh body b (of ctx->mesh.body) for cloth c at substep s.
uint32_t wfVkMeshPlace(const wfVkContext* ctx, const wfWorld* world, const wfCloth* c, int s, int b);
// vk_record.c: the frame command buffer.
wfResult wfVkRecordFrame(wfVkContext* ctx, const wfWorld* world);
// Whether the recorded frame steps cloth `c` with the fused kernel.
bool wfVkUsesFused(const wfVkContext* ctx, const wfCloth* c);
// The floats of shared memory the fused kernel of workgroup size 32 << sizeIndex holds for positions,
// and the words of its self-collision grid.
uint32_t wfVkFusedSharedFloats(const wfVkContext* ctx, int sizeIndex);
uint32_t wfVkFusedHashWords(const wfVkContext* ctx, int sizeIndex);
// The workgroup size of the fused kernel for a cloth of n particles: 32 << wfVkFusedSizeIndex(n), 4
// particles an invocation.
int wfVkFusedSizeIndex(int particles);
// vk_backend.c: the host mirror of a cloth's state.
wfResult wfVkUpload(wfWorld* world, wfCloth* c);
wfResult wfVkDownload(wfWorld* world, wfCloth* c);

wfResult wfVkFail(wfVkContext* ctx, VkResult result, const char* call, const char* file, int line);
void wfVkSetName(wfVkContext* ctx, VkObjectType type, uint64_t handle, const char* name);

// vk_device.c: the device (src/vulkan/device/) and the backend's pipelines, pool and queries on it.
wfResult wfVkCreateDevice(wfVkContext* ctx, const char* deviceName, bool allowSoftware);
// Uses the caller's instance, device and queue (wfWorldDef.vulkanDevice) instead of creating them;
// wfVkDestroyDevice then leaves them alive.
wfResult wfVkAdoptDevice(wfVkContext* ctx, const wfVulkanDevice* device);
void wfVkDestroyDevice(wfVkContext* ctx);
// The fused kernel of a solver for workgroups of (32 << sizeIndex) invocations, created on first use.
wfResult wfVkPipeline(wfVkContext* ctx, int pipe, VkPipeline* out);
wfResult wfVkFusedPipeline(wfVkContext* ctx, wfSolverType solver, int sizeIndex, VkPipeline* out);

#endif
