// libFuzzer target: the command-line parser of `weft run` and `weft bench` (apps/cli/args.c).
// The input is split at NUL and newline bytes into arguments; its first byte picks the command.
#include "../apps/cli/cli.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerInitialize(int* argc, char*** argv);

// The parser prints help through main.c; the fuzzer has no use for it.
void CliPrintHelp(const char* command) { (void)command; }

int LLVMFuzzerInitialize(int* argc, char*** argv)
{
	(void)argc;
	(void)argv;
	// The parser's messages go to the stdio stream only; the sanitizers write to fd 2 directly.
	FILE* null = fopen("/dev/null", "w");
	if (null != NULL)
		stderr = null;
	return 0;
}

enum { MAX_ARGS = 64 };

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	if (size == 0)
		return 0;
	unsigned command = (data[0] & 1) ? CLI_CMD_BENCH : CLI_CMD_RUN;
	char* text = malloc(size);
	if (text == NULL)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = 0;
	char* argv[MAX_ARGS + 3] = {"weft", command == CLI_CMD_RUN ? "run" : "bench"};
	int argc = 2;
	char* start = text;
	for (size_t i = 0; i < size - 1 && argc < MAX_ARGS + 2; ++i) {
		if (text[i] == 0 || text[i] == '\n') {
			text[i] = 0;
			argv[argc++] = start;
			start = text + i + 1;
		}
	}
	if (argc < MAX_ARGS + 2 && start < text + size - 1)
		argv[argc++] = start;
	argv[argc] = NULL;
	CliOptions options;
	int code = CliParseOptions(command, argc, argv, 2, &options);
	if (code != CLI_EXIT_OK && code != CLI_EXIT_USAGE && code != CLI_EXIT_HELP)
		abort();
	// Whatever was accepted is in range.
	if (code == CLI_EXIT_OK) {
		const CliRenderOptions* r = &options.render;
		if (r->width < 16 || r->width > CLI_MAX_IMAGE_SIDE || r->height < 16 || r->height > CLI_MAX_IMAGE_SIDE || r->every < 1)
			abort();
		if ((options.scene == NULL) == (options.preset == NULL))
			abort();
	}
	free(text);
	return 0;
}
