// The renderer's creation: offscreen MSAA target and render pass, the weave texture with its mip
// chain, descriptors, pipelines and the static meshes (sphere, pin marker, floor). draw.c draws.
#include "renderer.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RD_TEXTURE_SIZE 256
#define RD_SPHERE_SLICES 64 // the silhouette is within 0.12 % of the radius of a circle (0.25 px at 1080p)
#define RD_SPHERE_STACKS 32
#define RD_MARKER_SLICES 16 // pin markers are a few pixels wide
#define RD_MARKER_STACKS 8
#define RD_NODE_SLICES 6 // the nodes view's spheres, one per particle: a few pixels wide, 36 triangles
#define RD_NODE_STACKS 3
#define RD_DEF_MAGIC 0x52454e44

wfResult rdRendererFail(wfRenderer* r, wfResult code, const char* format, ...)
{
	va_list args;
	va_start(args, format);
	vsnprintf(r->error, sizeof r->error, format, args);
	va_end(args);
	return code;
}

wfResult rdRendererFailVulkan(wfRenderer* r) { return rdRendererFail(r, WF_ERROR_BACKEND_UNAVAILABLE, "%s", r->ctx.error); }

float rdSrgbToLinear(float c) { return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f); }

static VkDeviceSize Align(VkDeviceSize v, VkDeviceSize a) { return (v + a - 1) / a * a; }

// The renderer's enum names: one list per enum, one lookup for both.
static const char* const kColorModeNames[WF_COLOR_MODE_COUNT] = {"texture", "speed", "strain"};
static const char* const kViewNames[WF_VIEW_MODE_COUNT] = {"cloth", "nodes", "both"};

static const char* NameAt(const char* const* names, int count, int value) { return value >= 0 && value < count ? names[value] : "unknown"; }

// The index of name in names, or -1.
static int IndexOf(const char* const* names, int count, const char* name)
{
	for (int i = 0; name != NULL && i < count; ++i) {
		if (strcmp(name, names[i]) == 0)
			return i;
	}
	return -1;
}

const char* wfColorModeName(wfColorMode mode) { return NameAt(kColorModeNames, WF_COLOR_MODE_COUNT, (int)mode); }
const char* wfViewModeName(wfViewMode view) { return NameAt(kViewNames, WF_VIEW_MODE_COUNT, (int)view); }

bool wfColorModeFromName(const char* name, wfColorMode* out)
{
	int i = IndexOf(kColorModeNames, WF_COLOR_MODE_COUNT, name);
	if (i < 0 || out == NULL)
		return false;
	*out = (wfColorMode)i;
	return true;
}

bool wfViewModeFromName(const char* name, wfViewMode* out)
{
	int i = IndexOf(kViewNames, WF_VIEW_MODE_COUNT, name);
	if (i < 0 || out == NULL)
		return false;
	*out = (wfViewMode)i;
	return true;
}

wfRendererDef wfDefaultRendererDef(void)
{
	wfRendererDef d;
	memset(&d, 0, sizeof d);
	d.width = 1280;
	d.height = 720;
	d.msaaSamples = 4;
	d.colorMode = WF_COLOR_TEXTURE;
	d.wireframe = false;
	d.showPins = true;
	d.showFloor = true;
	d.showSphere = true;
	d.background[0] = 0.72f;
	d.background[1] = 0.77f;
	d.background[2] = 0.83f;
	d.speedScale = 2.0f;
	d.strainScale = 0.05f;
	d.deviceName = NULL;
	d.validation = false;
	d.hostImage = true;
	d.internalValue = RD_DEF_MAGIC;
	return d;
}

static bool ValidateDef(const wfRendererDef* d, char* error, int errorSize)
{
	const char* field = NULL;
	char range[64] = "";
	if (d->internalValue != RD_DEF_MAGIC) {
		field = "internalValue";
		snprintf(range, sizeof range, "start from wfDefaultRendererDef()");
	} else if (d->width < 1 || d->width > 16384) {
		field = "width";
		snprintf(range, sizeof range, "[1, 16384], got %d", d->width);
	} else if (d->height < 1 || d->height > 16384) {
		field = "height";
		snprintf(range, sizeof range, "[1, 16384], got %d", d->height);
	} else if (d->msaaSamples != 1 && d->msaaSamples != 2 && d->msaaSamples != 4 && d->msaaSamples != 8) {
		field = "msaaSamples";
		snprintf(range, sizeof range, "1, 2, 4 or 8, got %d", d->msaaSamples);
	} else if ((unsigned)d->colorMode > WF_COLOR_STRAIN) {
		field = "colorMode";
		snprintf(range, sizeof range, "texture, speed or strain, got %d", (int)d->colorMode);
	} else if ((unsigned)d->view > WF_VIEW_BOTH) {
		field = "view";
		snprintf(range, sizeof range, "cloth, nodes or both, got %d", (int)d->view);
	} else if (!(fabsf(d->groundHeight) <= 1e6f)) {
		field = "groundHeight";
		snprintf(range, sizeof range, "[-1e6, 1e6] m, got %g", (double)d->groundHeight);
	} else if (!(d->speedScale > 0.0f && isfinite(d->speedScale))) {
		field = "speedScale";
		snprintf(range, sizeof range, "> 0 and finite, got %g", (double)d->speedScale);
	} else if (!(d->strainScale > 0.0f && isfinite(d->strainScale))) {
		field = "strainScale";
		snprintf(range, sizeof range, "> 0 and finite, got %g", (double)d->strainScale);
	} else {
		for (int i = 0; i < 3; ++i) {
			if (!(d->background[i] >= 0.0f && d->background[i] <= 1.0f)) {
				field = "background";
				snprintf(range, sizeof range, "[0, 1] each, got %g", (double)d->background[i]);
			}
		}
	}
	if (field == NULL)
		return true;
	if (error != NULL && errorSize > 0)
		snprintf(error, (size_t)errorSize, "wfRendererDef.%s: %s", field, range);
	return false;
}

// ---------------------------------------------------------------- creation

static bool PickFormats(wfRenderer* r)
{
	RdContext* ctx = &r->ctx;
	// The texture is always R8G8B8A8_SRGB (mipmaps by blits); the frame in the byte order asked for.
	VkFormatProperties p;
	ctx->gpu.fi.vkGetPhysicalDeviceFormatProperties(ctx->gpu.physicalDevice, VK_FORMAT_R8G8B8A8_SRGB, &p);
	VkFormatFeatureFlags need = VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT |
		VK_FORMAT_FEATURE_BLIT_SRC_BIT | VK_FORMAT_FEATURE_BLIT_DST_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT;
	if ((p.optimalTilingFeatures & need) != need)
		return rdFail(ctx, "the device cannot render, blit and filter VK_FORMAT_R8G8B8A8_SRGB");
	r->colorFormat = r->def.bgra ? VK_FORMAT_B8G8R8A8_SRGB : VK_FORMAT_R8G8B8A8_SRGB;
	ctx->gpu.fi.vkGetPhysicalDeviceFormatProperties(ctx->gpu.physicalDevice, r->colorFormat, &p);
	if (!(p.optimalTilingFeatures & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT))
		return rdFail(ctx, "the device cannot render to VK_FORMAT_B8G8R8A8_SRGB (wfRendererDef.bgra)");
	const VkFormat depths[] = {VK_FORMAT_D32_SFLOAT, VK_FORMAT_X8_D24_UNORM_PACK32, VK_FORMAT_D24_UNORM_S8_UINT};
	for (int i = 0; i < 3; ++i) {
		ctx->gpu.fi.vkGetPhysicalDeviceFormatProperties(ctx->gpu.physicalDevice, depths[i], &p);
		if (p.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT) {
			r->depthFormat = depths[i];
			break;
		}
	}
	if (r->depthFormat == VK_FORMAT_UNDEFINED)
		return rdFail(ctx, "the device has no depth format");
	// The most samples up to the asked number that colour and depth both support.
	VkSampleCountFlags counts = ctx->gpu.properties.limits.framebufferColorSampleCounts &
		ctx->gpu.properties.limits.framebufferDepthSampleCounts;
	int samples = r->def.msaaSamples;
	while (samples > 1 && !(counts & (VkSampleCountFlags)samples))
		samples /= 2;
	r->samples = (VkSampleCountFlagBits)samples;
	r->def.msaaSamples = samples;
	return true;
}

// The render pass of the offscreen target; it does not depend on the image size.
static bool CreateTargetPass(wfRenderer* r)
{
	RdContext* ctx = &r->ctx;
	bool msaa = r->samples != VK_SAMPLE_COUNT_1_BIT;
	// Attachments: [colour (MSAA or final), depth, resolve (MSAA only)]. The final image ends up ready to copy.
	VkAttachmentDescription attachments[3] = {
		{
			.format = r->colorFormat,
			.samples = r->samples,
			.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
			.storeOp = msaa ? VK_ATTACHMENT_STORE_OP_DONT_CARE : VK_ATTACHMENT_STORE_OP_STORE,
			.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
			.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
			.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
			.finalLayout = msaa ? VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL : VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
		},
		{
			.format = r->depthFormat,
			.samples = r->samples,
			.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
			.storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
			.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
			.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
			.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
			.finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
		},
		{
			.format = r->colorFormat,
			.samples = VK_SAMPLE_COUNT_1_BIT,
			.loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
			.storeOp = VK_ATTACHMENT_STORE_OP_STORE,
			.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
			.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
			.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
			.finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
		},
	};
	VkAttachmentReference colorRef = {0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
	VkAttachmentReference depthRef = {1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
	VkAttachmentReference resolveRef = {2, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
	VkSubpassDescription subpass = {
		.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
		.colorAttachmentCount = 1,
		.pColorAttachments = &colorRef,
		.pResolveAttachments = msaa ? &resolveRef : NULL,
		.pDepthStencilAttachment = &depthRef,
	};
	// Before: the previous frame's copy out of the image (and its depth use) must be done before this
	// frame clears it. After: the resolved colour is written before the copy to the read-back buffer.
	VkSubpassDependency dependencies[2] = {
		{
			.srcSubpass = VK_SUBPASS_EXTERNAL,
			.dstSubpass = 0,
			.srcStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT |
				VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
			.dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT,
			.srcAccessMask = VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
			.dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT |
				VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT,
		},
		{
			.srcSubpass = 0,
			.dstSubpass = VK_SUBPASS_EXTERNAL,
			.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
			.dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT,
			.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
			.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT,
		},
	};
	VkRenderPassCreateInfo passInfo = {
		.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
		.attachmentCount = msaa ? 3 : 2,
		.pAttachments = attachments,
		.subpassCount = 1,
		.pSubpasses = &subpass,
		.dependencyCount = 2,
		.pDependencies = dependencies,
	};
	RD_CHECK(ctx, ctx->gpu.fd.vkCreateRenderPass(ctx->gpu.device, &passInfo, NULL, &r->pass));
	return true;
}

// The size-dependent part of the target: images, framebuffer and read-back buffer.
// The image size against the device, before anything is allocated: its largest 2D image and
// framebuffer, and the memory of the frame's images (colour and depth per sample, the resolved
// image, the read-back buffer) against half its largest device-local heap. Past these the driver
// would fail with a bare VK_ERROR_OUT_OF_DEVICE_MEMORY in the middle of setup.
static bool CheckSizeLimits(wfRenderer* r)
{
	RdContext* ctx = &r->ctx;
	const VkPhysicalDeviceLimits* l = &ctx->gpu.properties.limits;
	uint32_t maxWidth = l->maxImageDimension2D < l->maxFramebufferWidth ? l->maxImageDimension2D : l->maxFramebufferWidth;
	uint32_t maxHeight = l->maxImageDimension2D < l->maxFramebufferHeight ? l->maxImageDimension2D : l->maxFramebufferHeight;
	if ((uint32_t)r->def.width > maxWidth || (uint32_t)r->def.height > maxHeight)
		return rdFail(ctx, "image size %dx%d: %s allows at most %ux%u (maxImageDimension2D, maxFramebufferWidth/Height)", r->def.width,
			r->def.height, ctx->gpu.properties.deviceName, maxWidth, maxHeight);
	VkDeviceSize heap = 0;
	for (uint32_t i = 0; i < ctx->gpu.memory.memoryHeapCount; ++i) {
		const VkMemoryHeap* h = &ctx->gpu.memory.memoryHeaps[i];
		if ((h->flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) && h->size > heap)
			heap = h->size;
	}
	double pixels = (double)r->def.width * (double)r->def.height;
	double need = pixels * ((double)r->samples * 8.0 + 8.0);
	if (heap > 0 && need > 0.5 * (double)heap)
		return rdFail(ctx,
			"image size %dx%d: its images need about %.0f MiB with %dx MSAA, more than half of the %.0f MiB "
			"device-local memory of %s (allowed: at most %.0f megapixels at this MSAA)",
			r->def.width, r->def.height, need / 1048576.0, (int)r->samples, (double)heap / 1048576.0, ctx->gpu.properties.deviceName,
			0.5 * (double)heap / ((double)r->samples * 8.0 + 8.0) / 1e6);
	return true;
}

static bool CreateTargetImages(wfRenderer* r)
{
	RdContext* ctx = &r->ctx;
	if (!CheckSizeLimits(r))
		return false;
	VkExtent3D extent = {(uint32_t)r->def.width, (uint32_t)r->def.height, 1};
	bool msaa = r->samples != VK_SAMPLE_COUNT_1_BIT;
	VkImageCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
		.imageType = VK_IMAGE_TYPE_2D,
		.format = r->colorFormat,
		.extent = extent,
		.mipLevels = 1,
		.arrayLayers = 1,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.tiling = VK_IMAGE_TILING_OPTIMAL,
		.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
		.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	};
	// The single-sample image that is read back (the resolve target with MSAA).
	if (!rdImageCreate(ctx, &r->resolve, &info, VK_IMAGE_ASPECT_COLOR_BIT))
		return false;
	if (msaa) {
		info.samples = r->samples;
		info.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT;
		if (!rdImageCreate(ctx, &r->color, &info, VK_IMAGE_ASPECT_COLOR_BIT))
			return false;
	}
	info.format = r->depthFormat;
	info.samples = r->samples;
	info.usage = VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSIENT_ATTACHMENT_BIT;
	if (!rdImageCreate(ctx, &r->depth, &info, VK_IMAGE_ASPECT_DEPTH_BIT))
		return false;
	VkDeviceSize bytes = (VkDeviceSize)r->def.width * (VkDeviceSize)r->def.height * 4;
	if (r->def.hostImage && !rdBufferCreate(ctx, &r->readback, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true))
		return false;

	VkImageView views[3] = {msaa ? r->color.view : r->resolve.view, r->depth.view, r->resolve.view};
	VkFramebufferCreateInfo fbInfo = {
		.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
		.renderPass = r->pass,
		.attachmentCount = msaa ? 3 : 2,
		.pAttachments = views,
		.width = extent.width,
		.height = extent.height,
		.layers = 1,
	};
	RD_CHECK(ctx, ctx->gpu.fd.vkCreateFramebuffer(ctx->gpu.device, &fbInfo, NULL, &r->framebuffer));
	return true;
}

static void DestroyTargetImages(wfRenderer* r)
{
	RdContext* ctx = &r->ctx;
	if (r->framebuffer != VK_NULL_HANDLE)
		ctx->gpu.fd.vkDestroyFramebuffer(ctx->gpu.device, r->framebuffer, NULL);
	r->framebuffer = VK_NULL_HANDLE;
	rdImageDestroy(ctx, &r->color);
	rdImageDestroy(ctx, &r->depth);
	rdImageDestroy(ctx, &r->resolve);
	rdBufferDestroy(ctx, &r->readback);
}

static void ImageBarrier(RdContext* ctx, VkImage image, uint32_t level, uint32_t levels, VkImageLayout from, VkImageLayout to,
	VkAccessFlags srcAccess, VkAccessFlags dstAccess, VkPipelineStageFlags srcStage, VkPipelineStageFlags dstStage)
{
	VkImageMemoryBarrier b = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
		.srcAccessMask = srcAccess,
		.dstAccessMask = dstAccess,
		.oldLayout = from,
		.newLayout = to,
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.image = image,
		.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, level, levels, 0, 1},
	};
	ctx->gpu.fd.vkCmdPipelineBarrier(ctx->cmd, srcStage, dstStage, 0, 0, NULL, 0, NULL, 1, &b);
}

// The weave texture with a full mip chain: level 0 from the CPU, each further level blitted (linear
// filter) from the one above, so distant cloth averages the weave instead of shimmering.
static bool CreateTexture(wfRenderer* r)
{
	RdContext* ctx = &r->ctx;
	const int size = RD_TEXTURE_SIZE;
	uint32_t levels = 1;
	while ((size >> levels) > 0)
		levels++;
	r->textureLevels = levels;
	VkImageCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
		.imageType = VK_IMAGE_TYPE_2D,
		.format = VK_FORMAT_R8G8B8A8_SRGB,
		.extent = {(uint32_t)size, (uint32_t)size, 1},
		.mipLevels = levels,
		.arrayLayers = 1,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.tiling = VK_IMAGE_TILING_OPTIMAL,
		.usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_SAMPLED_BIT,
		.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	};
	if (!rdImageCreate(ctx, &r->texture, &info, VK_IMAGE_ASPECT_COLOR_BIT))
		return false;
	wfVkBuffer staging;
	if (!rdBufferCreate(ctx, &staging, (VkDeviceSize)size * size * 4, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true))
		return false;
	rdMakeWeaveTexture(staging.map, size);

	bool ok = rdBeginCommands(ctx);
	if (ok) {
		VkImage img = r->texture.image;
		ImageBarrier(ctx, img, 0, levels, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, VK_ACCESS_TRANSFER_WRITE_BIT,
			VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
		VkBufferImageCopy copy = {
			.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
			.imageExtent = {(uint32_t)size, (uint32_t)size, 1},
		};
		ctx->gpu.fd.vkCmdCopyBufferToImage(ctx->cmd, staging.buffer, img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &copy);
		for (uint32_t level = 1; level < levels; ++level) {
			// Level - 1 becomes a blit source once written.
			ImageBarrier(ctx, img, level - 1, 1, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
				VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
			int32_t src = size >> (level - 1), dst = size >> level;
			VkImageBlit blit = {
				.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level - 1, 0, 1},
				.srcOffsets = {{0, 0, 0}, {src, src, 1}},
				.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level, 0, 1},
				.dstOffsets = {{0, 0, 0}, {dst, dst, 1}},
			};
			ctx->gpu.fd.vkCmdBlitImage(ctx->cmd, img, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, img, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
				&blit, VK_FILTER_LINEAR);
		}
		// All levels but the last are blit sources now; the last is still a transfer destination.
		if (levels > 1)
			ImageBarrier(ctx, img, 0, levels - 1, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
				VK_ACCESS_TRANSFER_READ_BIT, VK_ACCESS_SHADER_READ_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
				VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT);
		ImageBarrier(ctx, img, levels - 1, 1, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
			VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT);
		ok = rdSubmitAndWait(ctx);
	}
	rdBufferDestroy(ctx, &staging);
	if (!ok)
		return false;

	VkSamplerCreateInfo sampler = {
		.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
		.magFilter = VK_FILTER_LINEAR,
		.minFilter = VK_FILTER_LINEAR,
		.mipmapMode = VK_SAMPLER_MIPMAP_MODE_LINEAR,
		.addressModeU = VK_SAMPLER_ADDRESS_MODE_REPEAT,
		.addressModeV = VK_SAMPLER_ADDRESS_MODE_REPEAT,
		.addressModeW = VK_SAMPLER_ADDRESS_MODE_REPEAT,
		.anisotropyEnable = ctx->gpu.features.samplerAnisotropy,
		.maxAnisotropy = ctx->gpu.features.samplerAnisotropy ? fminf(8.0f, ctx->gpu.properties.limits.maxSamplerAnisotropy) : 1.0f,
		.minLod = 0.0f,
		.maxLod = (float)levels,
	};
	RD_CHECK(ctx, ctx->gpu.fd.vkCreateSampler(ctx->gpu.device, &sampler, NULL, &r->sampler));
	return true;
}

// The shadow map: D16 (sampled depth is guaranteed for it), 2048 texels square on GPUs and 1024 on a
// software rasteriser. Its pass leaves it ready to sample; until the first shadow pass it is moved to
// that layout here, so a frame without a floor samples a defined (empty) map.
static bool CreateShadowMap(wfRenderer* r)
{
	RdContext* ctx = &r->ctx;
	r->shadowFormat = VK_FORMAT_D16_UNORM;
	r->shadowSize = ctx->gpu.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? 1024 : 2048;
	VkImageCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
		.imageType = VK_IMAGE_TYPE_2D,
		.format = r->shadowFormat,
		.extent = {r->shadowSize, r->shadowSize, 1},
		.mipLevels = 1,
		.arrayLayers = 1,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.tiling = VK_IMAGE_TILING_OPTIMAL,
		.usage = VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT,
		.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	};
	if (!rdImageCreate(ctx, &r->shadowMap, &info, VK_IMAGE_ASPECT_DEPTH_BIT))
		return false;
	VkAttachmentDescription attachment = {
		.format = r->shadowFormat,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
		.storeOp = VK_ATTACHMENT_STORE_OP_STORE,
		.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
		.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
		.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
		.finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL,
	};
	VkAttachmentReference depthRef = {0, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
	VkSubpassDescription subpass = {
		.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
		.pDepthStencilAttachment = &depthRef,
	};
	// Before: the previous frame's floor has sampled the map. After: this frame's floor samples it.
	VkSubpassDependency dependencies[2] = {
		{
			.srcSubpass = VK_SUBPASS_EXTERNAL,
			.dstSubpass = 0,
			.srcStageMask = VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
			.dstStageMask = VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
			.srcAccessMask = VK_ACCESS_SHADER_READ_BIT,
			.dstAccessMask = VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
		},
		{
			.srcSubpass = 0,
			.dstSubpass = VK_SUBPASS_EXTERNAL,
			.srcStageMask = VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
			.dstStageMask = VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
			.srcAccessMask = VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
			.dstAccessMask = VK_ACCESS_SHADER_READ_BIT,
		},
	};
	VkRenderPassCreateInfo passInfo = {
		.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
		.attachmentCount = 1,
		.pAttachments = &attachment,
		.subpassCount = 1,
		.pSubpasses = &subpass,
		.dependencyCount = 2,
		.pDependencies = dependencies,
	};
	RD_CHECK(ctx, ctx->gpu.fd.vkCreateRenderPass(ctx->gpu.device, &passInfo, NULL, &r->shadowPass));
	VkFramebufferCreateInfo fbInfo = {
		.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
		.renderPass = r->shadowPass,
		.attachmentCount = 1,
		.pAttachments = &r->shadowMap.view,
		.width = r->shadowSize,
		.height = r->shadowSize,
		.layers = 1,
	};
	RD_CHECK(ctx, ctx->gpu.fd.vkCreateFramebuffer(ctx->gpu.device, &fbInfo, NULL, &r->shadowFramebuffer));
	// Outside the map is lit (white border = depth 1). Filtered comparisons where the format allows.
	VkFormatProperties props;
	ctx->gpu.fi.vkGetPhysicalDeviceFormatProperties(ctx->gpu.physicalDevice, r->shadowFormat, &props);
	VkFilter filter = (props.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT) ? VK_FILTER_LINEAR
																										: VK_FILTER_NEAREST;
	VkSamplerCreateInfo sampler = {
		.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
		.magFilter = filter,
		.minFilter = filter,
		.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST,
		.addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER,
		.addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER,
		.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER,
		.compareEnable = VK_TRUE,
		.compareOp = VK_COMPARE_OP_LESS_OR_EQUAL,
		.borderColor = VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE,
	};
	RD_CHECK(ctx, ctx->gpu.fd.vkCreateSampler(ctx->gpu.device, &sampler, NULL, &r->shadowSampler));
	if (!rdBeginCommands(ctx))
		return false;
	VkImageMemoryBarrier b = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
		.srcAccessMask = 0,
		.dstAccessMask = VK_ACCESS_SHADER_READ_BIT,
		.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED,
		.newLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL,
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.image = r->shadowMap.image,
		.subresourceRange = {VK_IMAGE_ASPECT_DEPTH_BIT, 0, 1, 0, 1},
	};
	ctx->gpu.fd.vkCmdPipelineBarrier(ctx->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0, 0, NULL, 0,
		NULL, 1, &b);
	return rdSubmitAndWait(ctx);
}

static VkWriteDescriptorSet BufferWrite(VkDescriptorSet set, uint32_t binding, VkDescriptorType type, const VkDescriptorBufferInfo* info)
{
	VkWriteDescriptorSet w = {
		.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
		.dstSet = set,
		.dstBinding = binding,
		.descriptorCount = 1,
		.descriptorType = type,
		.pBufferInfo = info,
	};
	return w;
}

// Points a cloth set at its positions, velocities and rest shape (see RD_CLOTH_*).
void rdWriteClothSet(wfRenderer* r, VkDescriptorSet set, VkBuffer state, VkDeviceSize positions, VkDeviceSize velocities,
	VkDeviceSize normals, VkBuffer rest, VkDeviceSize restOffset, VkDeviceSize bytes)
{
	VkDescriptorBufferInfo infos[4] = {{state, positions, bytes}, {state, velocities, bytes}, {rest, restOffset, bytes},
		{state, normals, bytes}};
	VkWriteDescriptorSet writes[4] = {
		BufferWrite(set, RD_CLOTH_POSITIONS, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &infos[0]),
		BufferWrite(set, RD_CLOTH_VELOCITIES, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &infos[1]),
		BufferWrite(set, RD_CLOTH_REST, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &infos[2]),
		BufferWrite(set, RD_CLOTH_NORMALS, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &infos[3]),
	};
	r->ctx.gpu.fd.vkUpdateDescriptorSets(r->ctx.gpu.device, 4, writes, 0, NULL);
}

// A pool of `sets` cloth sets, reset at the start of every frame.
bool rdEnsureClothPool(wfRenderer* r, uint32_t sets)
{
	RdContext* ctx = &r->ctx;
	if (r->clothPool != VK_NULL_HANDLE && r->clothPoolSets >= sets) {
		RD_CHECK(ctx, ctx->gpu.fd.vkResetDescriptorPool(ctx->gpu.device, r->clothPool, 0));
		return true;
	}
	uint32_t capacity = 8;
	while (capacity < sets)
		capacity *= 2;
	if (r->clothPool != VK_NULL_HANDLE)
		ctx->gpu.fd.vkDestroyDescriptorPool(ctx->gpu.device, r->clothPool, NULL);
	r->clothPool = VK_NULL_HANDLE;
	r->clothPoolSets = 0;
	VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4 * capacity};
	VkDescriptorPoolCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
		.maxSets = capacity,
		.poolSizeCount = 1,
		.pPoolSizes = &size,
	};
	RD_CHECK(ctx, ctx->gpu.fd.vkCreateDescriptorPool(ctx->gpu.device, &info, NULL, &r->clothPool));
	r->clothPoolSets = capacity;
	return true;
}

static bool CreateDescriptors(wfRenderer* r)
{
	RdContext* ctx = &r->ctx;
	// The scene is a uniform buffer for drawing and a storage buffer for the light pass.
	if (!rdBufferCreate(ctx, &r->uniforms, sizeof(RdScene), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
			true) ||
		!rdBufferCreate(ctx, &r->bounds, 64, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, false) ||
		!rdBufferCreate(ctx, &r->dummy, 64, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, false))
		return false;
	const VkShaderStageFlags drawStages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT;
	VkDescriptorSetLayoutBinding bindings[5] = {
		{RD_BINDING_SCENE, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1, drawStages, NULL},
		{RD_BINDING_TEXTURE, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, NULL},
		{RD_BINDING_SHADOW, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, NULL},
		{RD_BINDING_SCENE_RW, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
		{RD_BINDING_BOUNDS, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
	};
	VkDescriptorSetLayoutCreateInfo layoutInfo = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
		.bindingCount = 5,
		.pBindings = bindings,
	};
	RD_CHECK(ctx, ctx->gpu.fd.vkCreateDescriptorSetLayout(ctx->gpu.device, &layoutInfo, NULL, &r->setLayout));
	const VkShaderStageFlags clothStages = VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_COMPUTE_BIT;
	VkDescriptorSetLayoutBinding clothBindings[4] = {
		{RD_CLOTH_POSITIONS, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, clothStages, NULL},
		{RD_CLOTH_VELOCITIES, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, clothStages, NULL},
		{RD_CLOTH_REST, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, clothStages, NULL},
		{RD_CLOTH_NORMALS, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_VERTEX_BIT, NULL},
	};
	VkDescriptorSetLayoutCreateInfo clothLayoutInfo = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
		.bindingCount = 4,
		.pBindings = clothBindings,
	};
	RD_CHECK(ctx, ctx->gpu.fd.vkCreateDescriptorSetLayout(ctx->gpu.device, &clothLayoutInfo, NULL, &r->clothSetLayout));
	VkDescriptorPoolSize sizes[3] = {
		{VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1},
		{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 2},
		{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 6},
	};
	VkDescriptorPoolCreateInfo poolInfo = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
		.maxSets = 2,
		.poolSizeCount = 3,
		.pPoolSizes = sizes,
	};
	RD_CHECK(ctx, ctx->gpu.fd.vkCreateDescriptorPool(ctx->gpu.device, &poolInfo, NULL, &r->descriptorPool));
	VkDescriptorSetLayout layouts[2] = {r->setLayout, r->clothSetLayout};
	VkDescriptorSet sets[2];
	VkDescriptorSetAllocateInfo allocInfo = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
		.descriptorPool = r->descriptorPool,
		.descriptorSetCount = 2,
		.pSetLayouts = layouts,
	};
	RD_CHECK(ctx, ctx->gpu.fd.vkAllocateDescriptorSets(ctx->gpu.device, &allocInfo, sets));
	r->set = sets[0];
	r->dummySet = sets[1];
	VkDescriptorBufferInfo sceneInfo = {r->uniforms.buffer, 0, sizeof(RdScene)};
	VkDescriptorBufferInfo boundsInfo = {r->bounds.buffer, 0, VK_WHOLE_SIZE};
	VkDescriptorImageInfo imageInfo = {r->sampler, r->texture.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
	VkDescriptorImageInfo shadowInfo = {r->shadowSampler, r->shadowMap.view, VK_IMAGE_LAYOUT_DEPTH_STENCIL_READ_ONLY_OPTIMAL};
	VkWriteDescriptorSet writes[5] = {
		BufferWrite(r->set, RD_BINDING_SCENE, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, &sceneInfo),
		{
			.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
			.dstSet = r->set,
			.dstBinding = RD_BINDING_TEXTURE,
			.descriptorCount = 1,
			.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
			.pImageInfo = &imageInfo,
		},
		{
			.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
			.dstSet = r->set,
			.dstBinding = RD_BINDING_SHADOW,
			.descriptorCount = 1,
			.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
			.pImageInfo = &shadowInfo,
		},
		BufferWrite(r->set, RD_BINDING_SCENE_RW, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &sceneInfo),
		BufferWrite(r->set, RD_BINDING_BOUNDS, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, &boundsInfo),
	};
	ctx->gpu.fd.vkUpdateDescriptorSets(ctx->gpu.device, 5, writes, 0, NULL);
	rdWriteClothSet(r, r->dummySet, r->dummy.buffer, 0, 0, 0, r->dummy.buffer, 0, VK_WHOLE_SIZE);
	VkPushConstantRange push = {drawStages | VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(RdDraw)};
	VkPipelineLayoutCreateInfo pipelineLayout = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
		.setLayoutCount = 2,
		.pSetLayouts = layouts,
		.pushConstantRangeCount = 1,
		.pPushConstantRanges = &push,
	};
	RD_CHECK(ctx, ctx->gpu.fd.vkCreatePipelineLayout(ctx->gpu.device, &pipelineLayout, NULL, &r->layout));
	return true;
}

static bool CreateComputePipeline(wfRenderer* r, const RdShaderCode* code, VkPipeline* out)
{
	RdContext* ctx = &r->ctx;
	RD_CHECK(ctx, wfVkComputePipelineCreate(&ctx->gpu, code->words, code->size, r->layout, NULL, out));
	return true;
}

// RD_PIPE_NODE_LINE: the nodes view's constraints, an edge (uvec2) per instance (nodes_line.vert).
// RD_PIPE_SEAM: RD_PIPE_LIT for a cloth with UV seams, its vertices a particle index and a UV each.
typedef enum RdPipelineKind { RD_PIPE_LIT, RD_PIPE_SOLID, RD_PIPE_LINE, RD_PIPE_SHADOW, RD_PIPE_NODE_LINE, RD_PIPE_SEAM } RdPipelineKind;

static bool CreatePipeline(wfRenderer* r, RdPipelineKind kind, VkPipeline* out)
{
	RdContext* ctx = &r->ctx;
	bool nodeLine = kind == RD_PIPE_NODE_LINE, seam = kind == RD_PIPE_SEAM;
	bool line = kind == RD_PIPE_LINE || nodeLine;
	bool shadow = kind == RD_PIPE_SHADOW; // depth only: no fragment stage, the shadow pass
	bool positionsOnly = line || shadow;
	const RdShaderCode* codes[2] = {nodeLine ? &rdNodesLineVert
			: line                           ? &rdLineVert
			: shadow                         ? &rdShadowVert
			: seam                           ? &rdLitPullVert
											 : &rdLitVert,
		nodeLine   ? &rdNodesLineFrag
			: line ? &rdLineFrag
				   : &rdLitFrag};
	int stageCount = shadow ? 1 : 2;
	VkShaderModule modules[2] = {VK_NULL_HANDLE, VK_NULL_HANDLE};
	for (int i = 0; i < stageCount; ++i) {
		VkShaderModuleCreateInfo info = {
			.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
			.codeSize = codes[i]->size,
			.pCode = codes[i]->words,
		};
		VkResult vr = ctx->gpu.fd.vkCreateShaderModule(ctx->gpu.device, &info, NULL, &modules[i]);
		if (vr != VK_SUCCESS) {
			if (i == 1)
				ctx->gpu.fd.vkDestroyShaderModule(ctx->gpu.device, modules[0], NULL);
			return rdFail(ctx, "vkCreateShaderModule: %s", wfVkResultName(vr));
		}
	}
	VkPipelineShaderStageCreateInfo stages[2] = {
		{.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
			.stage = VK_SHADER_STAGE_VERTEX_BIT,
			.module = modules[0],
			.pName = "main"},
		{.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
			.stage = VK_SHADER_STAGE_FRAGMENT_BIT,
			.module = modules[1],
			.pName = "main"},
	};
	// One binding per stream; positions and normals have the solver's vec4 stride, so its buffers bind
	// as they are.
	VkVertexInputBindingDescription bindings[3] = {
		{0, RD_VERTEX_STRIDE, VK_VERTEX_INPUT_RATE_VERTEX},
		{1, RD_VERTEX_STRIDE, VK_VERTEX_INPUT_RATE_VERTEX},
		{2, 8, VK_VERTEX_INPUT_RATE_VERTEX},
	};
	VkVertexInputAttributeDescription attributes[3] = {
		{RD_LOCATION_POSITION, 0, VK_FORMAT_R32G32B32_SFLOAT, 0},
		{RD_LOCATION_NORMAL, 1, VK_FORMAT_R32G32B32_SFLOAT, 0},
		{RD_LOCATION_UV, 2, VK_FORMAT_R32G32_SFLOAT, 0},
	};
	// The nodes view's lines: one instance per edge, its two particle indices as a uvec2.
	VkVertexInputBindingDescription edgeBinding = {0, 8, VK_VERTEX_INPUT_RATE_INSTANCE};
	VkVertexInputAttributeDescription edgeAttribute = {0, 0, VK_FORMAT_R32G32_UINT, 0};
	// A seam cloth's vertices: their particle (positions and normals come from set 1) and their UV.
	VkVertexInputBindingDescription seamBindings[2] = {{0, 4, VK_VERTEX_INPUT_RATE_VERTEX}, {1, 8, VK_VERTEX_INPUT_RATE_VERTEX}};
	VkVertexInputAttributeDescription seamAttributes[2] = {
		{RD_LOCATION_PARTICLE, 0, VK_FORMAT_R32_UINT, 0},
		{RD_LOCATION_UV, 1, VK_FORMAT_R32G32_SFLOAT, 0},
	};
	VkPipelineVertexInputStateCreateInfo vertexInput = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
		.vertexBindingDescriptionCount = positionsOnly ? 1
			: seam                                     ? 2
													   : 3,
		.pVertexBindingDescriptions = nodeLine ? &edgeBinding
			: seam                             ? seamBindings
											   : bindings,
		.vertexAttributeDescriptionCount = positionsOnly ? 1
			: seam                                       ? 2
														 : 3,
		.pVertexAttributeDescriptions = nodeLine ? &edgeAttribute
			: seam                               ? seamAttributes
												 : attributes,
	};
	VkPipelineInputAssemblyStateCreateInfo assembly = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
		.topology = line ? VK_PRIMITIVE_TOPOLOGY_LINE_LIST : VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
	};
	// Viewport and scissor are set per pass, so a resize keeps the pipelines.
	VkPipelineViewportStateCreateInfo viewportState = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
		.viewportCount = 1,
		.scissorCount = 1,
	};
	VkDynamicState dynamicStates[2] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
	VkPipelineDynamicStateCreateInfo dynamic = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
		.dynamicStateCount = 2,
		.pDynamicStates = dynamicStates,
	};
	// The projection flips y, so counter-clockwise in the world stays counter-clockwise on screen.
	VkPipelineRasterizationStateCreateInfo raster = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
		.polygonMode = VK_POLYGON_MODE_FILL,
		.cullMode = kind == RD_PIPE_SOLID ? VK_CULL_MODE_BACK_BIT : VK_CULL_MODE_NONE,
		.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE,
		// Casters are pushed away from the light a little (the floor, the only receiver, is not drawn).
		.depthBiasEnable = shadow ? VK_TRUE : VK_FALSE,
		.depthBiasConstantFactor = shadow ? 2.0f : 0.0f,
		.depthBiasSlopeFactor = shadow ? 2.0f : 0.0f,
		.lineWidth = 1.0f,
	};
	VkPipelineMultisampleStateCreateInfo multisample = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
		.rasterizationSamples = shadow ? VK_SAMPLE_COUNT_1_BIT : r->samples,
	};
	VkPipelineDepthStencilStateCreateInfo depth = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
		.depthTestEnable = VK_TRUE,
		.depthWriteEnable = line ? VK_FALSE : VK_TRUE,
		.depthCompareOp = VK_COMPARE_OP_LESS_OR_EQUAL,
	};
	VkPipelineColorBlendAttachmentState blendAttachment = {
		.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT,
	};
	VkPipelineColorBlendStateCreateInfo blend = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
		.attachmentCount = shadow ? 0 : 1,
		.pAttachments = &blendAttachment,
	};
	VkGraphicsPipelineCreateInfo info = {
		.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
		.stageCount = (uint32_t)stageCount,
		.pStages = stages,
		.pVertexInputState = &vertexInput,
		.pInputAssemblyState = &assembly,
		.pViewportState = &viewportState,
		.pRasterizationState = &raster,
		.pMultisampleState = &multisample,
		.pDepthStencilState = &depth,
		.pColorBlendState = &blend,
		.pDynamicState = &dynamic,
		.layout = r->layout,
		.renderPass = shadow ? r->shadowPass : r->pass,
		.subpass = 0,
	};
	VkResult vr = ctx->gpu.fd.vkCreateGraphicsPipelines(ctx->gpu.device, VK_NULL_HANDLE, 1, &info, NULL, out);
	for (int i = 0; i < stageCount; ++i)
		ctx->gpu.fd.vkDestroyShaderModule(ctx->gpu.device, modules[i], NULL);
	if (vr != VK_SUCCESS)
		return rdFail(ctx, "vkCreateGraphicsPipelines: %s", wfVkResultName(vr));
	return true;
}

// Lays out one mesh's streams (see renderer.h).
RdStreams rdLayoutStreams(VkDeviceSize* offset, int vertices, int indices, int lineIndices, bool sharedNormals)
{
	RdStreams s;
	VkDeviceSize o = *offset;
	s.position = o;
	o = Align(o + (VkDeviceSize)vertices * RD_VERTEX_STRIDE, 16);
	s.normal = sharedNormals ? s.position : o;
	if (!sharedNormals)
		o = Align(o + (VkDeviceSize)vertices * RD_VERTEX_STRIDE, 16);
	s.uv = o;
	o = Align(o + (VkDeviceSize)vertices * 8, 16);
	s.index = o;
	o = Align(o + (VkDeviceSize)indices * 4, 16);
	s.lineIndex = o;
	o = Align(o + (VkDeviceSize)lineIndices * 4, 16);
	s.indexCount = (uint32_t)indices;
	s.lineIndexCount = (uint32_t)lineIndices;
	*offset = o;
	return s;
}

// Positions (and normals, for meshes that share them) as vec4.
static void CopyVec4(uint8_t* dst, const float* xyz, int count)
{
	float* out = (float*)dst;
	for (int i = 0; i < count; ++i) {
		out[4 * i + 0] = xyz[3 * i + 0];
		out[4 * i + 1] = xyz[3 * i + 1];
		out[4 * i + 2] = xyz[3 * i + 2];
		out[4 * i + 3] = 0.0f;
	}
}

static void CopyMesh(uint8_t* base, const RdStreams* s, const RdMesh* mesh)
{
	CopyVec4(base + s->position, mesh->positions, mesh->vertexCount);
	memcpy(base + s->uv, mesh->uvs, sizeof(float) * 2 * (size_t)mesh->vertexCount);
	memcpy(base + s->index, mesh->indices, sizeof(uint32_t) * (size_t)mesh->indexCount);
}

// The unit sphere and a coarse one for pin markers (positions double as normals), and a unit floor
// quad in the xz plane.
static bool CreateStaticGeometry(wfRenderer* r)
{
	RdContext* ctx = &r->ctx;
	RdMesh sphere = {0}, marker = {0}, node = {0};
	if (!rdMakeSphere(RD_SPHERE_SLICES, RD_SPHERE_STACKS, &sphere) || !rdMakeSphere(RD_MARKER_SLICES, RD_MARKER_STACKS, &marker) ||
		!rdMakeSphere(RD_NODE_SLICES, RD_NODE_STACKS, &node)) {
		rdMeshFree(&sphere);
		rdMeshFree(&marker);
		rdMeshFree(&node);
		return rdFail(ctx, "out of memory for the sphere mesh");
	}
	VkDeviceSize size = 0;
	r->sphere = rdLayoutStreams(&size, sphere.vertexCount, sphere.indexCount, 0, true);
	r->marker = rdLayoutStreams(&size, marker.vertexCount, marker.indexCount, 0, true);
	r->node = rdLayoutStreams(&size, node.vertexCount, node.indexCount, 0, true);
	r->floor = rdLayoutStreams(&size, 4, 6, 0, false);
	r->box = rdLayoutStreams(&size, 24, 36, 0, false);
	wfVkBuffer staging;
	bool ok = rdBufferCreate(ctx, &staging, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true);
	if (ok) {
		uint8_t* base = staging.map;
		memset(base, 0, (size_t)size);
		CopyMesh(base, &r->sphere, &sphere);
		CopyMesh(base, &r->marker, &marker);
		CopyMesh(base, &r->node, &node);
		const float quad[12] = {-1, 0, -1, -1, 0, 1, 1, 0, 1, 1, 0, -1};
		const float up[12] = {0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0};
		const uint32_t quadIndices[6] = {0, 1, 2, 0, 2, 3}; // counter-clockwise seen from above
		CopyVec4(base + r->floor.position, quad, 4);
		CopyVec4(base + r->floor.normal, up, 4);
		memcpy(base + r->floor.index, quadIndices, sizeof quadIndices);
		// The cube [-1, 1]^3: four vertices per face with the face's normal, wound outward.
		float boxPos[72], boxNormal[72];
		uint32_t boxIndices[36];
		for (int f = 0; f < 6; ++f) {
			const int axis = f / 2;
			const float sign = (f & 1) ? -1.0f : 1.0f;
			const int u = (axis + 1) % 3, v = (axis + 2) % 3;
			const float corner[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
			for (int k = 0; k < 4; ++k) {
				float* p = &boxPos[3 * (4 * f + k)];
				float* n = &boxNormal[3 * (4 * f + k)];
				p[axis] = sign;
				p[u] = corner[k][0] * sign; // mirrored on the negative face so that it still winds outward
				p[v] = corner[k][1];
				n[0] = n[1] = n[2] = 0.0f;
				n[axis] = sign;
			}
			const uint32_t b = (uint32_t)(4 * f), order[6] = {0, 1, 2, 0, 2, 3};
			for (int k = 0; k < 6; ++k)
				boxIndices[6 * f + k] = b + order[k];
		}
		CopyVec4(base + r->box.position, boxPos, 24);
		CopyVec4(base + r->box.normal, boxNormal, 24);
		memcpy(base + r->box.index, boxIndices, sizeof boxIndices);
		ok = rdBufferCreate(ctx, &r->staticGeometry, size,
			VK_BUFFER_USAGE_VERTEX_BUFFER_BIT | VK_BUFFER_USAGE_INDEX_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, false);
	}
	if (ok && (ok = rdBeginCommands(ctx))) {
		VkBufferCopy copy = {0, 0, size};
		ctx->gpu.fd.vkCmdCopyBuffer(ctx->cmd, staging.buffer, r->staticGeometry.buffer, 1, &copy);
		VkMemoryBarrier barrier = {
			.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
			.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
			.dstAccessMask = VK_ACCESS_VERTEX_ATTRIBUTE_READ_BIT | VK_ACCESS_INDEX_READ_BIT,
		};
		ctx->gpu.fd.vkCmdPipelineBarrier(ctx->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_VERTEX_INPUT_BIT, 0, 1, &barrier, 0,
			NULL, 0, NULL);
		ok = rdSubmitAndWait(ctx);
	}
	rdBufferDestroy(ctx, &staging);
	rdMeshFree(&sphere);
	rdMeshFree(&marker);
	rdMeshFree(&node);
	return ok;
}

wfRenderer* wfCreateRenderer(const wfRendererDef* def, char* error, int errorSize)
{
	if (def == NULL) {
		if (error != NULL && errorSize > 0)
			snprintf(error, (size_t)errorSize, "renderer def: NULL (start from wfDefaultRendererDef())");
		return NULL;
	}
	wfRendererDef d = *def;
	if (!ValidateDef(&d, error, errorSize))
		return NULL;
	wfRenderer* r = calloc(1, sizeof *r);
	if (r == NULL) {
		if (error != NULL && errorSize > 0)
			snprintf(error, (size_t)errorSize, "out of memory");
		return NULL;
	}
	r->def = d;
	const char* deviceName = d.deviceName;
	bool validation = d.validation;
	// The world's device when it runs on Vulkan with a graphics queue, else a device of our own.
	// The caller's device comes first; it is used as given or the renderer fails.
	wfVulkanDevice shared;
	bool adopted = false;
	if (d.vulkanDevice != NULL) {
		if (!rdContextAdopt(&r->ctx, d.vulkanDevice)) {
			if (error != NULL && errorSize > 0)
				snprintf(error, (size_t)errorSize, "renderer: vulkanDevice: %s", r->ctx.error);
			wfDestroyRenderer(r);
			return NULL;
		}
		adopted = true;
	} else if (d.world != NULL && wfWorld_GetVulkanDevice(d.world, &shared) == WF_OK && (shared.queueFlags & VK_QUEUE_GRAPHICS_BIT)) {
		adopted = rdContextAdopt(&r->ctx, &shared);
		if (!adopted) {
			rdContextDestroy(&r->ctx);
			memset(&r->ctx, 0, sizeof r->ctx);
		}
	}
	r->sharedWorld = adopted && d.vulkanDevice == NULL ? d.world : NULL;
	bool ok = (adopted || rdContextCreate(&r->ctx, deviceName, validation)) && PickFormats(r) && CreateTargetPass(r) &&
		CreateTargetImages(r) && CreateTexture(r) && CreateShadowMap(r) && CreateDescriptors(r) &&
		CreatePipeline(r, RD_PIPE_LIT, &r->litPipeline) && CreatePipeline(r, RD_PIPE_SOLID, &r->solidPipeline) &&
		CreatePipeline(r, RD_PIPE_LINE, &r->linePipeline) && CreatePipeline(r, RD_PIPE_SHADOW, &r->shadowPipeline) &&
		CreatePipeline(r, RD_PIPE_NODE_LINE, &r->nodeLinePipeline) && CreatePipeline(r, RD_PIPE_SEAM, &r->seamPipeline) &&
		CreateComputePipeline(r, &rdBoundsComp, &r->boundsPipeline) && CreateComputePipeline(r, &rdLightComp, &r->lightPipeline) &&
		CreateStaticGeometry(r);
	if (!ok) {
		if (error != NULL && errorSize > 0)
			snprintf(error, (size_t)errorSize, "renderer: %s", r->ctx.error);
		wfDestroyRenderer(r);
		return NULL;
	}
	return r;
}

void wfDestroyRenderer(wfRenderer* r)
{
	if (r == NULL)
		return;
	RdContext* ctx = &r->ctx;
	if (ctx->gpu.device != VK_NULL_HANDLE) {
		rdWaitIdle(ctx);
		rdFreeCaches(r);
		VkPipeline pipelines[8] = {r->litPipeline, r->solidPipeline, r->linePipeline, r->shadowPipeline, r->boundsPipeline,
			r->lightPipeline, r->nodeLinePipeline, r->seamPipeline};
		for (int i = 0; i < 8; ++i) {
			if (pipelines[i] != VK_NULL_HANDLE)
				ctx->gpu.fd.vkDestroyPipeline(ctx->gpu.device, pipelines[i], NULL);
		}
		if (r->layout != VK_NULL_HANDLE)
			ctx->gpu.fd.vkDestroyPipelineLayout(ctx->gpu.device, r->layout, NULL);
		if (r->descriptorPool != VK_NULL_HANDLE)
			ctx->gpu.fd.vkDestroyDescriptorPool(ctx->gpu.device, r->descriptorPool, NULL);
		if (r->setLayout != VK_NULL_HANDLE)
			ctx->gpu.fd.vkDestroyDescriptorSetLayout(ctx->gpu.device, r->setLayout, NULL);
		if (r->clothPool != VK_NULL_HANDLE)
			ctx->gpu.fd.vkDestroyDescriptorPool(ctx->gpu.device, r->clothPool, NULL);
		if (r->clothSetLayout != VK_NULL_HANDLE)
			ctx->gpu.fd.vkDestroyDescriptorSetLayout(ctx->gpu.device, r->clothSetLayout, NULL);
		rdBufferDestroy(ctx, &r->bounds);
		rdBufferDestroy(ctx, &r->dummy);
		if (r->sampler != VK_NULL_HANDLE)
			ctx->gpu.fd.vkDestroySampler(ctx->gpu.device, r->sampler, NULL);
		if (r->pass != VK_NULL_HANDLE)
			ctx->gpu.fd.vkDestroyRenderPass(ctx->gpu.device, r->pass, NULL);
		if (r->shadowSampler != VK_NULL_HANDLE)
			ctx->gpu.fd.vkDestroySampler(ctx->gpu.device, r->shadowSampler, NULL);
		if (r->shadowFramebuffer != VK_NULL_HANDLE)
			ctx->gpu.fd.vkDestroyFramebuffer(ctx->gpu.device, r->shadowFramebuffer, NULL);
		if (r->shadowPass != VK_NULL_HANDLE)
			ctx->gpu.fd.vkDestroyRenderPass(ctx->gpu.device, r->shadowPass, NULL);
		rdImageDestroy(ctx, &r->shadowMap);
		rdImageDestroy(ctx, &r->texture);
		DestroyTargetImages(r);
		rdBufferDestroy(ctx, &r->uniforms);
		rdBufferDestroy(ctx, &r->staticGeometry);
		rdBufferDestroy(ctx, &r->staging);
		rdBufferDestroy(ctx, &r->geometry);
	}
	rdContextDestroy(ctx);
	free(r->caches);
	free(r->meshCaches);
	free(r->scratch);
	free(r);
}

wfResult wfRenderer_Resize(wfRenderer* r, int width, int height)
{
	if (r == NULL)
		return WF_ERROR_INVALID_ARGUMENT;
	if (width < 1 || width > 16384 || height < 1 || height > 16384)
		return rdRendererFail(r, WF_ERROR_INVALID_ARGUMENT, "Resize: %dx%d is outside [1, 16384] on each side", width, height);
	if (width == r->def.width && height == r->def.height)
		return WF_OK;
	RdContext* ctx = &r->ctx;
	if (rdWaitIdle(ctx) != VK_SUCCESS)
		return rdRendererFail(r, WF_ERROR_DEVICE_LOST, "Resize: waiting for the GPU failed");
	DestroyTargetImages(r);
	r->def.width = width;
	r->def.height = height;
	r->hasFrame = false;
	if (!CreateTargetImages(r)) {
		DestroyTargetImages(r);
		return rdRendererFailVulkan(r);
	}
	return WF_OK;
}

// Getters of a NULL renderer return the neutral values render.h documents.
wfRendererDef wfRenderer_GetDef(const wfRenderer* r) { return r != NULL ? r->def : wfDefaultRendererDef(); }
const char* wfRenderer_GetDeviceName(const wfRenderer* r) { return r != NULL ? r->ctx.gpu.properties.deviceName : ""; }
const char* wfRenderer_GetLastError(const wfRenderer* r) { return r != NULL ? r->error : ""; }
int wfRenderer_GetValidationCount(const wfRenderer* r)
{
	if (r == NULL)
		return 0;
	return r->sharedWorld != NULL ? (int)wfWorld_GetWarnings(r->sharedWorld).validationMessages : r->ctx.gpu.validationMessages;
}
bool wfRenderer_SharesWorldDevice(const wfRenderer* r) { return r != NULL && r->ctx.gpu.borrowed; }

wfResult wfRenderer_GetVulkanImage(const wfRenderer* r, wfVulkanImage* out)
{
	if (r == NULL)
		return WF_ERROR_INVALID_ARGUMENT;
	// The renderer is the library's own (never a const object): its last error may be set here.
	if (out == NULL)
		return rdRendererFail((wfRenderer*)r, WF_ERROR_INVALID_ARGUMENT, "GetVulkanImage: out: NULL");
	memset(out, 0, sizeof *out);
	out->image = (uint64_t)r->resolve.image;
	out->format = (uint32_t)r->colorFormat;
	out->layout = (uint32_t)VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
	out->width = r->def.width;
	out->height = r->def.height;
	return WF_OK;
}
int64_t wfRenderer_GetUploadBytes(const wfRenderer* r) { return r != NULL ? r->uploadBytes : 0; }
int wfRenderer_GetZeroCopyCloths(const wfRenderer* r) { return r != NULL ? r->zeroCopyCloths : 0; }

void wfRenderer_SetStyle(wfRenderer* r, wfColorMode mode, bool wireframe, bool showPins)
{
	if (r == NULL)
		return;
	if ((unsigned)mode <= WF_COLOR_STRAIN)
		r->def.colorMode = mode;
	r->def.wireframe = wireframe;
	r->def.showPins = showPins;
}

wfResult wfRenderer_SetView(wfRenderer* r, wfViewMode view)
{
	if (r == NULL)
		return WF_ERROR_INVALID_ARGUMENT;
	if ((unsigned)view > WF_VIEW_BOTH)
		return rdRendererFail(r, WF_ERROR_INVALID_ARGUMENT, "view: cloth, nodes or both, got %d", (int)view);
	r->def.view = view;
	return WF_OK;
}
