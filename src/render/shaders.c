// The renderer's shaders, compiled by glslc at build time into SPIR-V words (see CMakeLists.txt).
#include "render_internal.h"

static const uint32_t kLitVert[] = {
#include "lit.vert.inc"
};
static const uint32_t kLitPullVert[] = {
#include "lit_pull.vert.inc"
};
static const uint32_t kLitFrag[] = {
#include "lit.frag.inc"
};
static const uint32_t kLineVert[] = {
#include "line.vert.inc"
};
static const uint32_t kLineFrag[] = {
#include "line.frag.inc"
};
static const uint32_t kNodesLineVert[] = {
#include "nodes_line.vert.inc"
};
static const uint32_t kNodesLineFrag[] = {
#include "nodes_line.frag.inc"
};

static const uint32_t kShadowVert[] = {
#include "shadow.vert.inc"
};

static const uint32_t kBoundsComp[] = {
#include "bounds.comp.inc"
};
static const uint32_t kLightComp[] = {
#include "light.comp.inc"
};

const RdShaderCode rdLitVert = {kLitVert, sizeof kLitVert};
const RdShaderCode rdLitPullVert = {kLitPullVert, sizeof kLitPullVert};
const RdShaderCode rdLitFrag = {kLitFrag, sizeof kLitFrag};
const RdShaderCode rdLineVert = {kLineVert, sizeof kLineVert};
const RdShaderCode rdLineFrag = {kLineFrag, sizeof kLineFrag};
const RdShaderCode rdNodesLineVert = {kNodesLineVert, sizeof kNodesLineVert};
const RdShaderCode rdNodesLineFrag = {kNodesLineFrag, sizeof kNodesLineFrag};
const RdShaderCode rdShadowVert = {kShadowVert, sizeof kShadowVert};
const RdShaderCode rdBoundsComp = {kBoundsComp, sizeof kBoundsComp};
const RdShaderCode rdLightComp = {kLightComp, sizeof kLightComp};
