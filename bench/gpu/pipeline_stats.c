// weft-pipeline-stats: what the driver made of a fused kernel (VK_KHR_pipeline_executable_properties):
// its register count, shared memory and the like, for a given workgroup size, shared array and
// self-collision grid. A measuring tool of bench/, not of the library: how many workgroups of a
// batch fit an SM at once follows from these numbers.
//
//   weft-pipeline-stats KERNEL.spv GROUP SHARED_FLOATS HASH_WORDS [MOVES] [DEVICE]
//
// KERNEL.spv: a fused kernel compiled as the library compiles it (glslc --target-env=vulkan1.0 -O
// -I src/gpu src/vulkan/shaders/fused_xpbd.comp); GROUP, SHARED_FLOATS and HASH_WORDS: its
// specialization constants (vk_device.c wfVkFusedPipeline: a 30x30 self-colliding cloth runs
// 256, 3072 and 3073); MOVES 1 for the moves velocity mode; DEVICE a part of the device's name.
// The loader is opened at run time (libvulkan.so.1), as the library does.
#include "../../src/gpu/kernel_abi.h"

#include <vulkan/vulkan.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static PFN_vkGetInstanceProcAddr s_gipa;

#define INSTANCE_FN(inst, name) PFN_##name name = (PFN_##name)s_gipa(inst, #name)
#define CHECK(call) \
	do { \
		VkResult vr_ = (call); \
		if (vr_ != VK_SUCCESS) { \
			fprintf(stderr, "weft-pipeline-stats: %s failed (%d)\n", #call, (int)vr_); \
			return 1; \
		} \
	} while (0)

static uint32_t* ReadWords(const char* path, size_t* bytes)
{
	FILE* f = fopen(path, "rb");
	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint32_t* words = size > 0 && size % 4 == 0 ? malloc((size_t)size) : NULL;
	if (words != NULL && fread(words, 1, (size_t)size, f) != (size_t)size) {
		free(words);
		words = NULL;
	}
	fclose(f);
	*bytes = (size_t)size;
	return words;
}

int main(int argc, char** argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: weft-pipeline-stats KERNEL.spv GROUP SHARED_FLOATS HASH_WORDS [MOVES] [DEVICE]\n");
		return 2;
	}
	size_t bytes = 0;
	uint32_t* words = ReadWords(argv[1], &bytes);
	if (words == NULL) {
		fprintf(stderr, "weft-pipeline-stats: cannot read SPIR-V from %s\n", argv[1]);
		return 1;
	}
	const uint32_t spec[4] = {(uint32_t)strtoul(argv[3], NULL, 10), (uint32_t)strtoul(argv[2], NULL, 10),
		argc > 5 && strcmp(argv[5], "1") == 0 ? VK_TRUE : VK_FALSE, (uint32_t)strtoul(argv[4], NULL, 10)};
	const char* want = argc > 6 ? argv[6] : "";

	void* lib = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) {
		fprintf(stderr, "weft-pipeline-stats: no Vulkan loader (%s)\n", dlerror());
		return 1;
	}
	s_gipa = (PFN_vkGetInstanceProcAddr)dlsym(lib, "vkGetInstanceProcAddr");
	INSTANCE_FN(NULL, vkCreateInstance);
	VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_1};
	VkInstanceCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
	VkInstance inst;
	CHECK(vkCreateInstance(&ii, NULL, &inst));
	INSTANCE_FN(inst, vkEnumeratePhysicalDevices);
	INSTANCE_FN(inst, vkGetPhysicalDeviceProperties);
	INSTANCE_FN(inst, vkCreateDevice);
	INSTANCE_FN(inst, vkGetDeviceProcAddr);
	VkPhysicalDevice devices[16];
	uint32_t count = 16;
	CHECK(vkEnumeratePhysicalDevices(inst, &count, devices));
	VkPhysicalDevice pd = VK_NULL_HANDLE;
	VkPhysicalDeviceProperties props;
	for (uint32_t i = 0; i < count && pd == VK_NULL_HANDLE; ++i) {
		vkGetPhysicalDeviceProperties(devices[i], &props);
		if (strstr(props.deviceName, want) != NULL)
			pd = devices[i];
	}
	if (pd == VK_NULL_HANDLE) {
		fprintf(stderr, "weft-pipeline-stats: no device named like \"%s\"\n", want);
		return 1;
	}
	printf("device: %s\n", props.deviceName);

	const float priority = 1.0f;
	VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueCount = 1, .pQueuePriorities = &priority};
	VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR feature = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR,
		.pipelineExecutableInfo = VK_TRUE,
	};
	const char* ext = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
	VkDeviceCreateInfo di = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.pNext = &feature,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &qi,
		.enabledExtensionCount = 1,
		.ppEnabledExtensionNames = &ext,
	};
	VkDevice dev;
	CHECK(vkCreateDevice(pd, &di, NULL, &dev));
#define DEVICE_FN(name) PFN_##name name = (PFN_##name)vkGetDeviceProcAddr(dev, #name)
	DEVICE_FN(vkCreateDescriptorSetLayout);
	DEVICE_FN(vkCreatePipelineLayout);
	DEVICE_FN(vkCreateShaderModule);
	DEVICE_FN(vkCreateComputePipelines);
	DEVICE_FN(vkGetPipelineExecutablePropertiesKHR);
	DEVICE_FN(vkGetPipelineExecutableStatisticsKHR);

	// The batch layout (vk_device.c CreateLayouts): WF_GPU_BATCH_BIND_COUNT storage buffers and the push constants.
	VkDescriptorSetLayoutBinding bindings[WF_GPU_BATCH_BIND_COUNT];
	for (uint32_t b = 0; b < WF_GPU_BATCH_BIND_COUNT; ++b)
		bindings[b] = (VkDescriptorSetLayoutBinding){b, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL};
	VkDescriptorSetLayoutCreateInfo si = {
		.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
		.bindingCount = WF_GPU_BATCH_BIND_COUNT,
		.pBindings = bindings,
	};
	VkDescriptorSetLayout setLayout;
	CHECK(vkCreateDescriptorSetLayout(dev, &si, NULL, &setLayout));
	VkPushConstantRange push = {VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(wfGpuPush)};
	VkPipelineLayoutCreateInfo li = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
		.setLayoutCount = 1,
		.pSetLayouts = &setLayout,
		.pushConstantRangeCount = 1,
		.pPushConstantRanges = &push,
	};
	VkPipelineLayout layout;
	CHECK(vkCreatePipelineLayout(dev, &li, NULL, &layout));
	VkShaderModuleCreateInfo mi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = bytes, .pCode = words};
	VkShaderModule module;
	CHECK(vkCreateShaderModule(dev, &mi, NULL, &module));
	const VkSpecializationMapEntry entries[4] = {
		{WF_GPU_FUSED_SPEC_SHARED_FLOATS, 0, 4},
		{WF_GPU_FUSED_SPEC_GROUP_SIZE, 4, 4},
		{WF_GPU_SPEC_MOVES, 8, 4},
		{WF_GPU_FUSED_SPEC_HASH_WORDS, 12, 4},
	};
	VkSpecializationInfo specInfo = {4, entries, sizeof spec, spec};
	VkComputePipelineCreateInfo pi = {
		.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
		.flags = VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR,
		.stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
			.stage = VK_SHADER_STAGE_COMPUTE_BIT,
			.module = module,
			.pName = "main",
			.pSpecializationInfo = &specInfo},
		.layout = layout,
	};
	VkPipeline pipe;
	CHECK(vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &pi, NULL, &pipe));

	VkPipelineInfoKHR info = {.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR, .pipeline = pipe};
	VkPipelineExecutablePropertiesKHR exes[8];
	uint32_t exeCount = 8;
	for (uint32_t i = 0; i < exeCount; ++i)
		exes[i] = (VkPipelineExecutablePropertiesKHR){.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR};
	CHECK(vkGetPipelineExecutablePropertiesKHR(dev, &info, &exeCount, exes));
	printf("spec: group %u, shared floats %u, moves %u, hash words %u\n", spec[1], spec[0], spec[2], spec[3]);
	for (uint32_t e = 0; e < exeCount; ++e) {
		printf("executable %u: %s (subgroup %u)\n", e, exes[e].name, exes[e].subgroupSize);
		VkPipelineExecutableInfoKHR ei = {.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR, .pipeline = pipe, .executableIndex = e};
		VkPipelineExecutableStatisticKHR stats[64];
		uint32_t statCount = 64;
		for (uint32_t i = 0; i < statCount; ++i)
			stats[i] = (VkPipelineExecutableStatisticKHR){.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR};
		CHECK(vkGetPipelineExecutableStatisticsKHR(dev, &ei, &statCount, stats));
		for (uint32_t s = 0; s < statCount; ++s) {
			const VkPipelineExecutableStatisticKHR* st = &stats[s];
			switch (st->format) {
			case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: printf("  %s: %s\n", st->name, st->value.b32 ? "yes" : "no"); break;
			case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: printf("  %s: %lld\n", st->name, (long long)st->value.i64); break;
			case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
				printf("  %s: %llu\n", st->name, (unsigned long long)st->value.u64);
				break;
			default: printf("  %s: %g\n", st->name, st->value.f64); break;
			}
		}
	}
	// The process ends here: the driver's objects go with it.
	return 0;
}
