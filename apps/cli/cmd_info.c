// `weft presets` and `weft info`: what this build offers.
#include "cli.h"

#include <stdio.h>

#define INFO_MAX_DEVICES 16

static int NoArguments(const char* command, int argc, char** argv)
{
	if (argc <= 2)
		return CLI_EXIT_OK;
	fprintf(stderr, "weft %s: unexpected argument '%s' (it takes none)\n", command, argv[2]);
	return CLI_EXIT_USAGE;
}

int CliPresets(int argc, char** argv)
{
	int code = NoArguments("presets", argc, argv);
	if (code != CLI_EXIT_OK)
		return code;
	for (int i = 0; i < wfPresetCount(); ++i)
		printf("%-14s %s\n", wfPresetName(i), wfPresetDescription(i));
	return CLI_EXIT_OK;
}

// Vulkan packs versions as variant:3 major:7 minor:10 patch:12 bits.
static void PrintDevices(void)
{
	wfDeviceInfo devices[INFO_MAX_DEVICES];
	char error[256] = "";
	int count = wfEnumerateDevices(devices, INFO_MAX_DEVICES, error, (int)sizeof error);
	if (count < 0) {
		printf("backends: cpu (vulkan is not built in)\n");
		return;
	}
	printf("backends: cpu, vulkan\n");
	if (count == 0)
		printf("devices:  no Vulkan device found%s%s\n", error[0] != 0 ? ": " : "", error);
	for (int i = 0; i < count && i < INFO_MAX_DEVICES; ++i) {
		uint32_t v = devices[i].apiVersion;
		printf("device %d: %s (%s, Vulkan %u.%u.%u)\n", i, devices[i].name, devices[i].hardware ? "hardware" : "software",
			(v >> 22) & 0x7fu, (v >> 12) & 0x3ffu, v & 0xfffu);
	}
	if (count > INFO_MAX_DEVICES)
		printf("... and %d more\n", count - INFO_MAX_DEVICES);
}

int CliInfo(int argc, char** argv)
{
	int code = NoArguments("info", argc, argv);
	if (code != CLI_EXIT_OK)
		return code;
	printf("weft %d.%d.%d\n", WF_VERSION_MAJOR, WF_VERSION_MINOR, WF_VERSION_PATCH);
	PrintDevices();
	printf("solvers:  ");
	for (int i = 0; i < 3; ++i)
		printf("%s%s", i > 0 ? ", " : "", wfSolverName((wfSolverType)i));
	printf("\npresets:  %d (see weft presets)\n", wfPresetCount());
	return CLI_EXIT_OK;
}
