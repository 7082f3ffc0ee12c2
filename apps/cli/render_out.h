// `weft run --png/--video`: renders frames of the run with the headless renderer.
#ifndef WEFT_CLI_RENDER_OUT_H
#define WEFT_CLI_RENDER_OUT_H

#include "cli.h"

typedef struct CliRenderOut CliRenderOut;

// Whether this build has the renderer (--png, --video), and whether the `ffmpeg` command that
// --video needs is on PATH (false without the renderer).
bool CliRenderBuiltIn(void);
bool CliVideoAvailable(void);

// The renderer's weave (wfMakeWeaveTexture, 256 x 256, as the renderer draws it) as PNG bytes for the caches' materials
// (malloc'ed, free them); false in a build without the renderer: the caches then carry a colour.
bool CliWeavePng(uint8_t** png, size_t* size);
#define CLI_WEAVE_SIZE 256

// Checks the options and the output paths and starts the renderer (and ffmpeg) before the first
// step. Returns CLI_EXIT_OK with *out NULL when nothing is to be rendered.
int CliRenderOpen(const CliOptions* options, const CliSim* sim, CliRenderOut** out);
// Renders frame `frame` (1-based) when it is one of every Nth.
int CliRenderFrame(CliRenderOut* out, const CliSim* sim, int frame);
// Finishes the video with the frames so far (when keep; else throws it away) and frees everything;
// prints what was written, and appends "video of N frames in PATH, N PNG files in DIR" to kept.
int CliRenderClose(CliRenderOut* out, bool keep, bool quiet, char* kept, size_t keptSize);

#endif
