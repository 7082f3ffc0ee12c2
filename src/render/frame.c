// One frame: the cloths read through the public API into the staging buffer, uploaded, and drawn with
// the floor, the sphere, the wireframe and the pin markers into the offscreen target, then read back.
#include "renderer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RD_MAX_PIN_MARKERS 4096

// One cloth of the frame: where its streams are and what it needs.
typedef struct RdClothDraw {
	wfClothId id;
	wfClothInfo info;
	RdStreams streams;
} RdClothDraw;

// Rest positions for strain. The public API has no rest shape, so the positions of the first frame
// this renderer draws of a cloth stand in for it (a cloth is created at rest, and renderers normally
// start with frame 0). An entry is taken again when its world's time goes back (a reset, a restored
// snapshot, or a new world at a reused address).
static const wfVec3* RestPositions(wfRenderer* r, wfClothId id, int count, const wfVec3* current)
{
	double now = wfWorld_GetTime(id.world);
	RdRestEntry* e = NULL;
	for (int i = 0; i < r->restCount && e == NULL; ++i) {
		RdRestEntry* c = &r->rest[i];
		if (c->world == id.world && c->index == id.index && c->generation == id.generation)
			e = c;
	}
	if (e != NULL && e->count == count && now >= e->time)
		return e->positions;
	if (e == NULL) {
		RdRestEntry* grown = realloc(r->rest, sizeof *grown * (size_t)(r->restCount + 1));
		if (grown == NULL)
			return NULL;
		r->rest = grown;
		e = &r->rest[r->restCount++];
		memset(e, 0, sizeof *e);
	}
	if (e->count != count) {
		free(e->positions);
		e->positions = malloc(sizeof(wfVec3) * (size_t)count);
		e->count = e->positions != NULL ? count : 0;
		if (e->positions == NULL)
			return NULL;
	}
	memcpy(e->positions, current, sizeof(wfVec3) * (size_t)count);
	e->world = id.world;
	e->index = id.index;
	e->generation = id.generation;
	e->time = now;
	return e->positions;
}

static float Distance(wfVec3 a, wfVec3 b)
{
	float dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
	return sqrtf(dx * dx + dy * dy + dz * dz);
}

// Signed strain per particle: the mean of (length / rest length - 1) over its grid (structural) edges.
static void ComputeStrain(const wfClothInfo* info, const wfVec3* pos, const wfVec3* rest, float* out)
{
	int cols = info->cols, rows = info->rows;
	for (int i = 0; i < info->particleCount; ++i)
		out[i] = 0.0f;
	// Sum each edge into both ends, then divide by the number of edges at each particle.
	for (int y = 0; y < rows; ++y) {
		for (int x = 0; x < cols; ++x) {
			int i = y * cols + x;
			int next[2] = {x + 1 < cols ? i + 1 : -1, y + 1 < rows ? i + cols : -1};
			for (int k = 0; k < 2; ++k) {
				int j = next[k];
				if (j < 0)
					continue;
				float restLength = Distance(rest[i], rest[j]);
				float s = restLength > 0.0f ? Distance(pos[i], pos[j]) / restLength - 1.0f : 0.0f;
				out[i] += s;
				out[j] += s;
			}
		}
	}
	for (int y = 0; y < rows; ++y) {
		for (int x = 0; x < cols; ++x) {
			int n = (x > 0) + (x + 1 < cols) + (y > 0) + (y + 1 < rows);
			if (n > 0)
				out[y * cols + x] /= (float)n;
		}
	}
}

// Grows the staging and geometry buffers to hold `size` bytes.
static bool EnsureFrameBuffers(wfRenderer* r, VkDeviceSize size)
{
	if (r->staging.size >= size)
		return true;
	RdContext* ctx = &r->ctx;
	VkDeviceSize capacity = 1 << 16;
	while (capacity < size)
		capacity *= 2;
	rdBufferDestroy(ctx, &r->staging);
	rdBufferDestroy(ctx, &r->geometry);
	return rdBufferCreate(ctx, &r->staging, capacity, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true) &&
	       rdBufferCreate(ctx, &r->geometry, capacity,
	                      VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_INDEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	                      false);
}

// Reads one cloth through the public API straight into the staging buffer.
static wfResult FillCloth(wfRenderer* r, RdClothDraw* c, uint8_t* base)
{
	const RdStreams* s = &c->streams;
	int n = c->info.particleCount;
	wfVec3* pos = (wfVec3*)(base + s->position);
	float* scalar = (float*)(base + s->scalar);
	wfResult res;
	if ((res = wfCloth_ReadPositions(c->id, pos, n)) != WF_OK ||
	    (res = wfCloth_ReadNormals(c->id, (wfVec3*)(base + s->normal), n)) != WF_OK ||
	    (res = wfCloth_ReadUVs(c->id, (float*)(base + s->uv), n)) != WF_OK ||
	    (res = wfCloth_ReadIndices(c->id, (uint32_t*)(base + s->index), (int)s->indexCount)) != WF_OK)
		return rdRendererFail(r, res, "reading cloth %d: %s", c->id.index, wfWorld_GetLastError(c->id.world));

	// The per-vertex scalar of the colour mode.
	const wfVec3* rest = RestPositions(r, c->id, n, pos);
	if (rest == NULL)
		return rdRendererFail(r, WF_ERROR_OUT_OF_MEMORY, "out of memory for rest positions");
	if (r->def.colorMode == WF_COLOR_SPEED) {
		if (r->scratchCount < n) {
			float* grown = realloc(r->scratch, sizeof(float) * 3 * (size_t)n);
			if (grown == NULL)
				return rdRendererFail(r, WF_ERROR_OUT_OF_MEMORY, "out of memory for velocities");
			r->scratch = grown;
			r->scratchCount = n;
		}
		if ((res = wfCloth_ReadVelocities(c->id, (wfVec3*)r->scratch, n)) != WF_OK)
			return rdRendererFail(r, res, "reading cloth %d: %s", c->id.index, wfWorld_GetLastError(c->id.world));
		for (int i = 0; i < n; ++i) {
			const float* v = r->scratch + 3 * i;
			scalar[i] = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
		}
	} else if (r->def.colorMode == WF_COLOR_STRAIN) {
		ComputeStrain(&c->info, pos, rest, scalar);
	} else {
		memset(scalar, 0, sizeof(float) * (size_t)n);
	}

	// Wireframe: the grid's structural edges.
	if (s->lineIndexCount > 0) {
		uint32_t* lines = (uint32_t*)(base + s->lineIndex);
		int cols = c->info.cols, rows = c->info.rows, k = 0;
		for (int y = 0; y < rows; ++y) {
			for (int x = 0; x < cols; ++x) {
				uint32_t i = (uint32_t)(y * cols + x);
				if (x + 1 < cols) {
					lines[k++] = i;
					lines[k++] = i + 1;
				}
				if (y + 1 < rows) {
					lines[k++] = i;
					lines[k++] = i + (uint32_t)cols;
				}
			}
		}
	}
	return WF_OK;
}

// Unit direction towards the key light: above, front-right.
static void KeyLightDirection(float l[3])
{
	const float d[3] = {0.45f, 0.8f, 0.4f};
	float n = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
	for (int i = 0; i < 3; ++i)
		l[i] = d[i] / n;
}

static void SetVec4(float out[4], float x, float y, float z, float w)
{
	out[0] = x;
	out[1] = y;
	out[2] = z;
	out[3] = w;
}

// Orthographic projection along the key light around a bounding sphere (centre c, radius R) of the
// shadow casters, deep enough to reach the floor below them.
static void LightViewProj(const float l[3], const float c[3], float radius, float floorDepth, float out[16])
{
	// Basis: w towards the light, s and u across it.
	float up[3] = {0.0f, 1.0f, 0.0f};
	if (fabsf(l[1]) > 0.99f) {
		up[1] = 0.0f;
		up[2] = 1.0f;
	}
	float s[3] = {up[1] * l[2] - up[2] * l[1], up[2] * l[0] - up[0] * l[2], up[0] * l[1] - up[1] * l[0]};
	float sl = sqrtf(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
	for (int i = 0; i < 3; ++i)
		s[i] /= sl;
	float u[3] = {l[1] * s[2] - l[2] * s[1], l[2] * s[0] - l[0] * s[2], l[0] * s[1] - l[1] * s[0]};
	// Depth runs from R in front of the centre (towards the light) to the floor behind it.
	float near = -radius, far = fmaxf(radius, floorDepth) + radius;
	float depth = far - near;
	float sc = 1.0f / radius;
	// Rows: x = s.(p - c) / R, y = u.(p - c) / R, z = (-(l.(p - c)) - near) / depth.
	float cs = s[0] * c[0] + s[1] * c[1] + s[2] * c[2];
	float cu = u[0] * c[0] + u[1] * c[1] + u[2] * c[2];
	float cl = l[0] * c[0] + l[1] * c[1] + l[2] * c[2];
	float m[16] = {
		sc * s[0], sc * u[0], -l[0] / depth, 0.0f,
		sc * s[1], sc * u[1], -l[1] / depth, 0.0f,
		sc * s[2], sc * u[2], -l[2] / depth, 0.0f,
		-sc * cs, -sc * cu, (cl - near) / depth, 1.0f,
	};
	memcpy(out, m, sizeof m);
}

// Bounding sphere of what casts shadows: the cloths' particles (in the staging buffer) and the sphere.
static bool CasterBounds(wfRenderer* r, const RdClothDraw* draws, int count, const wfWorldDef* wd, wfVec3 sphereCenter,
                         float centre[3], float* radius)
{
	float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};
	for (int i = 0; i < count; ++i) {
		const wfVec3* pos = (const wfVec3*)((const uint8_t*)r->staging.mapped + draws[i].streams.position);
		for (int p = 0; p < draws[i].info.particleCount; ++p) {
			const float v[3] = {pos[p].x, pos[p].y, pos[p].z};
			for (int k = 0; k < 3; ++k) {
				lo[k] = fminf(lo[k], v[k]);
				hi[k] = fmaxf(hi[k], v[k]);
			}
		}
	}
	if (wd->sphere.enabled && r->def.showSphere) {
		const float v[3] = {sphereCenter.x, sphereCenter.y, sphereCenter.z};
		for (int k = 0; k < 3; ++k) {
			lo[k] = fminf(lo[k], v[k] - wd->sphere.radius);
			hi[k] = fmaxf(hi[k], v[k] + wd->sphere.radius);
		}
	}
	if (!(lo[0] <= hi[0]) || !isfinite(lo[0] + lo[1] + lo[2] + hi[0] + hi[1] + hi[2]))
		return false;
	float d2 = 0.0f;
	for (int k = 0; k < 3; ++k) {
		centre[k] = 0.5f * (lo[k] + hi[k]);
		d2 += (hi[k] - lo[k]) * (hi[k] - lo[k]);
	}
	*radius = fmaxf(0.5f * sqrtf(d2) * 1.02f, 0.01f);
	return true;
}

static void FillScene(wfRenderer* r, const wfWorldDef* wd, const wfCamera* camera, const float lightViewProj[16],
                      bool shadows)
{
	RdScene scene;
	memset(&scene, 0, sizeof scene);
	rdCameraViewProj(camera, (float)r->def.width / (float)r->def.height, scene.viewProj);
	wfVec3 eye = wfCamera_GetEye(camera);
	SetVec4(scene.eye, eye.x, eye.y, eye.z, 1.0f);
	// Key light from above, front-right; hemisphere fill from a pale sky and a warm ground.
	float l[3];
	KeyLightDirection(l);
	SetVec4(scene.lightDir, l[0], l[1], l[2], 0.0f);
	SetVec4(scene.lightColor, 0.95f, 0.93f, 0.88f, 0.0f);
	SetVec4(scene.skyColor, 0.20f, 0.22f, 0.26f, 0.0f);
	SetVec4(scene.groundColor, 0.08f, 0.07f, 0.06f, 0.0f);
	SetVec4(scene.background, rdSrgbToLinear(r->def.background[0]), rdSrgbToLinear(r->def.background[1]),
	        rdSrgbToLinear(r->def.background[2]), 1.0f);
	memcpy(scene.lightViewProj, lightViewProj, sizeof scene.lightViewProj);
	SetVec4(scene.shadow, shadows ? 1.0f : 0.0f, 1.0f / (float)r->shadowSize, 0.0f, 0.0f);
	SetVec4(scene.params, r->def.speedScale, r->def.strainScale, wd->floor.height, 0.25f);
	memcpy(r->uniforms.mapped, &scene, sizeof scene);
}

static void Push(wfRenderer* r, const RdDraw* draw)
{
	r->ctx.vk.vkCmdPushConstants(r->ctx.cmd, r->layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0,
	                             sizeof *draw, draw);
}

static void SetViewport(wfRenderer* r, uint32_t width, uint32_t height)
{
	VkViewport viewport = {0.0f, 0.0f, (float)width, (float)height, 0.0f, 1.0f};
	VkRect2D scissor = {{0, 0}, {width, height}};
	r->ctx.vk.vkCmdSetViewport(r->ctx.cmd, 0, 1, &viewport);
	r->ctx.vk.vkCmdSetScissor(r->ctx.cmd, 0, 1, &scissor);
}

// Binds a mesh's vertex streams (only positions for the line and shadow pipelines) and its triangle
// or line indices.
static void BindStreams(wfRenderer* r, VkBuffer buffer, const RdStreams* s, bool positionsOnly, bool lines)
{
	VkBuffer buffers[4] = {buffer, buffer, buffer, buffer};
	VkDeviceSize offsets[4] = {s->position, s->normal, s->uv, s->scalar};
	r->ctx.vk.vkCmdBindVertexBuffers(r->ctx.cmd, 0, positionsOnly ? 1 : 4, buffers, offsets);
	r->ctx.vk.vkCmdBindIndexBuffer(r->ctx.cmd, buffer, lines ? s->lineIndex : s->index, VK_INDEX_TYPE_UINT32);
}

wfResult wfRenderer_DrawWorld(wfRenderer* r, wfWorld* world, const wfClothId* cloths, int count, const wfCamera* camera)
{
	if (r == NULL || world == NULL || camera == NULL || count < 0 || (count > 0 && cloths == NULL))
		return r != NULL ? rdRendererFail(r, WF_ERROR_INVALID_ARGUMENT, "DrawWorld: NULL world, camera or cloth list")
		                 : WF_ERROR_INVALID_ARGUMENT;
	if (!(camera->distance > 0.0f) || !(camera->fov > 0.0f && camera->fov < 180.0f))
		return rdRendererFail(r, WF_ERROR_INVALID_ARGUMENT, "camera: distance must be > 0 and fov in (0, 180), got %g and %g",
		            (double)camera->distance, (double)camera->fov);
	RdContext* ctx = &r->ctx;
	wfWorldDef wd = wfWorld_GetDef(world);
	wfVec3 sphereCenter = wfWorld_GetSphereCenter(world);

	// Lay out every cloth's streams in the frame buffer.
	RdClothDraw stackDraws[8];
	RdClothDraw* draws = count <= 8 ? stackDraws : malloc(sizeof *draws * (size_t)count);
	if (draws == NULL)
		return rdRendererFail(r, WF_ERROR_OUT_OF_MEMORY, "out of memory");
	wfResult res = WF_OK;
	VkDeviceSize size = 0;
	for (int i = 0; i < count && res == WF_OK; ++i) {
		draws[i].id = cloths[i];
		res = wfCloth_GetInfo(cloths[i], &draws[i].info);
		if (res != WF_OK) {
			res = rdRendererFail(r, res, "cloth %d: %s", i, wfWorld_GetLastError(world));
			break;
		}
		const wfClothInfo* info = &draws[i].info;
		int lineIndices = r->def.wireframe ? 2 * ((info->cols - 1) * info->rows + info->cols * (info->rows - 1)) : 0;
		draws[i].streams = rdLayoutStreams(&size, info->particleCount, 3 * info->triangleCount, lineIndices, false);
	}
	if (res == WF_OK && size > 0 && !EnsureFrameBuffers(r, size))
		res = rdRendererFailVulkan(r);
	for (int i = 0; i < count && res == WF_OK; ++i)
		res = FillCloth(r, &draws[i], r->staging.mapped);
	// Shadows fall on the floor only: with no floor there is no shadow pass.
	float lightViewProj[16] = {0};
	float casterCentre[3], casterRadius = 0.0f;
	bool drawFloor = wd.floor.enabled && r->def.showFloor;
	bool shadows = drawFloor && res == WF_OK && CasterBounds(r, draws, count, &wd, sphereCenter, casterCentre, &casterRadius);
	if (shadows) {
		float l[3];
		KeyLightDirection(l);
		float floorDepth = (casterCentre[1] - wd.floor.height) / fmaxf(l[1], 0.05f);
		LightViewProj(l, casterCentre, casterRadius, floorDepth, lightViewProj);
	}
	if (res == WF_OK)
		FillScene(r, &wd, camera, lightViewProj, shadows);
	if (res == WF_OK && !rdBeginCommands(ctx))
		res = rdRendererFailVulkan(r);
	if (res != WF_OK) {
		if (draws != stackDraws)
			free(draws);
		return res;
	}

	// Upload: staging -> device-local geometry, visible to vertex input.
	VkCommandBuffer cmd = ctx->cmd;
	if (size > 0) {
		VkBufferCopy copy = {0, 0, size};
		ctx->vk.vkCmdCopyBuffer(cmd, r->staging.buffer, r->geometry.buffer, 1, &copy);
		VkMemoryBarrier barrier = {
			.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
			.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
			.dstAccessMask = VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT | VK_ACCESS_INDEX_READ_BIT,
		};
		ctx->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, 0, 1, &barrier,
		                             0, NULL, 0, NULL);
	}

	// Shadow pass: the sphere and the cloths, depth only, from the key light.
	if (shadows) {
		VkClearValue clear;
		memset(&clear, 0, sizeof clear);
		clear.depthStencil.depth = 1.0f;
		VkRenderPassBeginInfo shadowBegin = {
			.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
			.renderPass = r->shadowPass,
			.framebuffer = r->shadowFramebuffer,
			.renderArea = {{0, 0}, {r->shadowSize, r->shadowSize}},
			.clearValueCount = 1,
			.pClearValues = &clear,
		};
		ctx->vk.vkCmdBeginRenderPass(cmd, &shadowBegin, VK_SUBPASS_CONTENTS_INLINE);
		SetViewport(r, r->shadowSize, r->shadowSize);
		ctx->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->shadowPipeline);
		ctx->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->layout, 0, 1, &r->set, 0, NULL);
		RdDraw caster;
		memset(&caster, 0, sizeof caster);
		if (wd.sphere.enabled && r->def.showSphere) {
			SetVec4(caster.transform, sphereCenter.x, sphereCenter.y, sphereCenter.z, wd.sphere.radius);
			BindStreams(r, r->staticGeometry.buffer, &r->sphere, true, false);
			Push(r, &caster);
			ctx->vk.vkCmdDrawIndexed(cmd, r->sphere.indexCount, 1, 0, 0, 0);
		}
		SetVec4(caster.transform, 0.0f, 0.0f, 0.0f, 1.0f);
		for (int i = 0; i < count; ++i) {
			BindStreams(r, r->geometry.buffer, &draws[i].streams, true, false);
			Push(r, &caster);
			ctx->vk.vkCmdDrawIndexed(cmd, draws[i].streams.indexCount, 1, 0, 0, 0);
		}
		ctx->vk.vkCmdEndRenderPass(cmd);
	}

	VkClearValue clears[3];
	memset(clears, 0, sizeof clears);
	for (int i = 0; i < 3; ++i)
		clears[0].color.float32[i] = rdSrgbToLinear(r->def.background[i]);
	clears[0].color.float32[3] = 1.0f;
	clears[1].depthStencil.depth = 1.0f;
	VkRenderPassBeginInfo begin = {
		.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
		.renderPass = r->pass,
		.framebuffer = r->framebuffer,
		.renderArea = {{0, 0}, {(uint32_t)r->def.width, (uint32_t)r->def.height}},
		.clearValueCount = r->samples != VK_SAMPLE_COUNT_1_BIT ? 3 : 2,
		.pClearValues = clears,
	};
	ctx->vk.vkCmdBeginRenderPass(cmd, &begin, VK_SUBPASS_CONTENTS_INLINE);
	SetViewport(r, (uint32_t)r->def.width, (uint32_t)r->def.height);
	ctx->vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->layout, 0, 1, &r->set, 0, NULL);
	RdDraw draw;

	// Floor: a large quad under the camera's target; the grid and the fade come from the shader.
	if (drawFloor) {
		memset(&draw, 0, sizeof draw);
		float extent = fmaxf(40.0f, camera->distance * 10.0f);
		SetVec4(draw.transform, camera->target.x, wd.floor.height, camera->target.z, extent);
		SetVec4(draw.color, 0.62f, 0.62f, 0.60f, 1.0f);
		SetVec4(draw.material, 0.08f, 24.0f, 0.0f, 0.0f);
		draw.mode[0] = RD_MODE_FLOOR;
		ctx->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->litPipeline);
		BindStreams(r, r->staticGeometry.buffer, &r->floor, false, false);
		Push(r, &draw);
		ctx->vk.vkCmdDrawIndexed(cmd, r->floor.indexCount, 1, 0, 0, 0);
	}

	// Sphere at its collision radius and current centre.
	if (wd.sphere.enabled && r->def.showSphere) {
		memset(&draw, 0, sizeof draw);
		SetVec4(draw.transform, sphereCenter.x, sphereCenter.y, sphereCenter.z, wd.sphere.radius);
		SetVec4(draw.color, 0.13f, 0.16f, 0.22f, 1.0f);
		SetVec4(draw.material, 0.45f, 48.0f, 0.0f, 0.0f);
		draw.mode[0] = RD_MODE_SOLID;
		ctx->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->solidPipeline);
		BindStreams(r, r->staticGeometry.buffer, &r->sphere, false, false);
		Push(r, &draw);
		ctx->vk.vkCmdDrawIndexed(cmd, r->sphere.indexCount, 1, 0, 0, 0);
	}

	// Cloths, double-sided.
	if (count > 0)
		ctx->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->litPipeline);
	for (int i = 0; i < count; ++i) {
		memset(&draw, 0, sizeof draw);
		SetVec4(draw.transform, 0.0f, 0.0f, 0.0f, 1.0f);
		SetVec4(draw.color, 1.0f, 1.0f, 1.0f, 1.0f);
		SetVec4(draw.material, 0.12f, 32.0f, 1e-5f, 0.0f);
		draw.mode[0] = r->def.colorMode == WF_COLOR_SPEED    ? RD_MODE_SPEED
		               : r->def.colorMode == WF_COLOR_STRAIN ? RD_MODE_STRAIN
		                                                     : RD_MODE_TEXTURE;
		BindStreams(r, r->geometry.buffer, &draws[i].streams, false, false);
		Push(r, &draw);
		ctx->vk.vkCmdDrawIndexed(cmd, draws[i].streams.indexCount, 1, 0, 0, 0);
	}

	// Wireframe overlay.
	if (r->def.wireframe && count > 0) {
		ctx->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->linePipeline);
		for (int i = 0; i < count; ++i) {
			memset(&draw, 0, sizeof draw);
			SetVec4(draw.transform, 0.0f, 0.0f, 0.0f, 1.0f);
			SetVec4(draw.color, 0.05f, 0.05f, 0.06f, 1.0f);
			SetVec4(draw.material, 0.0f, 0.0f, 3e-5f, 0.0f);
			BindStreams(r, r->geometry.buffer, &draws[i].streams, true, true);
			Push(r, &draw);
			ctx->vk.vkCmdDrawIndexed(cmd, draws[i].streams.lineIndexCount, 1, 0, 0, 0);
		}
	}

	// Pinned particles: small red spheres, sized from the cloth's edge length.
	if (r->def.showPins && count > 0) {
		ctx->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, r->solidPipeline);
		BindStreams(r, r->staticGeometry.buffer, &r->marker, false, false);
		int markers = 0;
		for (int i = 0; i < count && markers < RD_MAX_PIN_MARKERS; ++i) {
			const wfVec3* pos = (const wfVec3*)((const uint8_t*)r->staging.mapped + draws[i].streams.position);
			const wfClothInfo* info = &draws[i].info;
			float spacing = info->cols > 1 ? Distance(pos[0], pos[1]) : info->rows > 1 ? Distance(pos[0], pos[info->cols]) : 0.05f;
			float radius = fminf(fmaxf(0.45f * spacing, 0.01f), 0.1f);
			for (int p = 0; p < info->particleCount && markers < RD_MAX_PIN_MARKERS; ++p) {
				if (!wfCloth_IsPinned(draws[i].id, p))
					continue;
				memset(&draw, 0, sizeof draw);
				SetVec4(draw.transform, pos[p].x, pos[p].y, pos[p].z, radius);
				SetVec4(draw.color, 0.85f, 0.06f, 0.04f, 1.0f);
				SetVec4(draw.material, 0.5f, 32.0f, 0.0f, 0.0f);
				draw.mode[0] = RD_MODE_SOLID;
				Push(r, &draw);
				ctx->vk.vkCmdDrawIndexed(cmd, r->marker.indexCount, 1, 0, 0, 0);
				markers++;
			}
		}
	}
	ctx->vk.vkCmdEndRenderPass(cmd);

	// Resolved image -> read-back buffer, then visible to the host.
	VkBufferImageCopy copy = {
		.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
		.imageExtent = {(uint32_t)r->def.width, (uint32_t)r->def.height, 1},
	};
	ctx->vk.vkCmdCopyImageToBuffer(cmd, r->resolve.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, r->readback.buffer, 1, &copy);
	VkMemoryBarrier toHost = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_HOST_READ_BIT,
	};
	ctx->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &toHost, 0, NULL, 0, NULL);
	if (draws != stackDraws)
		free(draws);
	if (!rdSubmitAndWait(ctx))
		return rdRendererFailVulkan(r);
	r->hasFrame = true;
	return WF_OK;
}

wfResult wfRenderer_ReadPixels(wfRenderer* r, uint8_t* rgba, int size)
{
	int64_t need = (int64_t)r->def.width * r->def.height * 4;
	if (rgba == NULL || size < need)
		return rdRendererFail(r, WF_ERROR_INVALID_ARGUMENT, "ReadPixels: the buffer holds %d bytes, the image needs %lld", size,
		            (long long)need);
	if (!r->hasFrame)
		return rdRendererFail(r, WF_ERROR_INVALID_ARGUMENT, "ReadPixels: nothing has been drawn yet");
	memcpy(rgba, r->readback.mapped, (size_t)need);
	return WF_OK;
}
