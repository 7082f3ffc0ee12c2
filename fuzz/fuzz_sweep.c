// libFuzzer target: the sweep file parser (apps/cli/sweep_plan.c, SweepPlanParse) on arbitrary
// bytes. The file is named as if it lay in scenes/sweeps/, so a base scene "../xpbd.json" and the
// shipped meshes are found. A plan that parses is read back in full: every variant's scene text,
// parameters, world key and group, and its parsed scene's counts; nothing may crash, leak or trip
// a sanitizer, and a refusal's message must end within its buffer. At most 64 variants per input,
// so that one input stays fast (the command allows 1 000 000).
#include "../apps/cli/sweep_plan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef WEFT_FUZZ_SWEEP_PATH
#define WEFT_FUZZ_SWEEP_PATH "scenes/sweeps/fuzz.json"
#endif

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	char* text = malloc(size + 1);
	SweepPlan* plan = malloc(sizeof *plan);
	if (text == NULL || plan == NULL) {
		free(text);
		free(plan);
		return 0;
	}
	memcpy(text, data, size);
	text[size] = 0;
	char error[2048];
	if (SweepPlanParse(plan, text, WEFT_FUZZ_SWEEP_PATH, 64, error, sizeof error)) {
		if (plan->variantCount < 1 || plan->variantCount > 64 || plan->groupCount < 1 || plan->groupCount > plan->variantCount)
			abort();
		volatile size_t sum = 0;
		for (int v = 0; v < plan->variantCount; ++v) {
			const SweepVariant* variant = &plan->variants[v];
			sum += strlen(variant->sceneText) + strlen(variant->params) + strlen(variant->groupKey);
			if (variant->group < 0 || variant->group >= plan->groupCount || variant->scene == NULL || variant->frames < 1 ||
				variant->clothCount != wfScene_GetClothCount(variant->scene) || variant->particles < 1)
				abort();
		}
		(void)sum;
		SweepPlanFree(plan);
	} else if (memchr(error, 0, sizeof error) == NULL) {
		abort();
	}
	free(plan);
	free(text);
	return 0;
}
