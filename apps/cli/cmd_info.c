// `weft presets` and `weft info`: what this build offers.
#include "cli.h"
#include "render_out.h"
#include "sweep_par.h"

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

// Vulkan packs versions as variant:3 major:7 minor:10 patch:12 bits. Returns the device count
// (-1: Vulkan is not built in).
static int PrintDevices(void)
{
	wfDeviceInfo devices[INFO_MAX_DEVICES];
	char error[256] = "";
	int count = wfEnumerateDevices(devices, INFO_MAX_DEVICES, error, (int)sizeof error);
	if (count < 0) {
		printf("backends: cpu (vulkan is not built in)\n");
		return count;
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
	return count;
}

// What the optional parts of this build can do here: the renderer (a Vulkan device at run time),
// ffmpeg (a command on PATH, for --video) and MPI (weft sweep under mpirun).
static void PrintOptional(int devices)
{
	if (!CliRenderBuiltIn())
		printf("renderer: no (this build has none: it needs the Vulkan headers, glslc and libpng-dev)\n");
	else if (devices <= 0)
		printf("renderer: built in, but no Vulkan device to render on (--png, --video)\n");
	else
		printf("renderer: yes (--png, --video)\n");
	if (!CliRenderBuiltIn())
		printf("ffmpeg:   not used (no renderer)\n");
	else
		printf("ffmpeg:   %s\n", CliVideoAvailable() ? "yes (--video)" : "no (not on PATH: --video needs the ffmpeg command)");
	printf("mpi:      %s\n",
		SweepParAvailable() ? "yes (weft sweep across the processes of mpirun)"
							: "no (built without MPI, libopenmpi-dev: weft sweep runs in one process)");
}

int CliInfo(int argc, char** argv)
{
	int code = NoArguments("info", argc, argv);
	if (code != CLI_EXIT_OK)
		return code;
	printf("weft %d.%d.%d\n", WF_VERSION_MAJOR, WF_VERSION_MINOR, WF_VERSION_PATCH);
	int devices = PrintDevices();
	PrintOptional(devices);
	printf("solvers:  ");
	for (int i = 0; i < 3; ++i)
		printf("%s%s", i > 0 ? ", " : "", wfSolverName((wfSolverType)i));
	printf("\npresets:  %d (see weft presets)\n", wfPresetCount());
	return CLI_EXIT_OK;
}
