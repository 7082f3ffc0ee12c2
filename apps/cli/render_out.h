// `weft run --png/--video`: renders frames of the run with the headless renderer.
#ifndef WEFT_CLI_RENDER_OUT_H
#define WEFT_CLI_RENDER_OUT_H

#include "cli.h"

typedef struct CliRenderOut CliRenderOut;

// Checks the options and the output paths and starts the renderer (and ffmpeg) before the first
// step. Returns CLI_EXIT_OK with *out NULL when nothing is to be rendered.
int CliRenderOpen(const CliOptions* options, const CliSim* sim, CliRenderOut** out);
// Renders frame `frame` (1-based) when it is one of every Nth.
int CliRenderFrame(CliRenderOut* out, const CliSim* sim, int frame);
// Finishes the video (when complete) and frees everything; prints what was written.
int CliRenderClose(CliRenderOut* out, bool complete, bool quiet);

#endif
