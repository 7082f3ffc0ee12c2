// A GPU kernel's WGSL from its SPIR-V: naga (the wgpu shader translator, web/node_modules/naga-wasm)
// reads the binary SPIR-V glslc made from the kernel's GLSL (src/vulkan/shaders/), validates the
// module and writes WGSL, so that the page's kernels and the Vulkan backend's come from one source
// (docs/design/web.md, "The WGSL kernels"). A kernel naga cannot read, validate or write is an error that
// names the kernel and quotes naga's report.
// naga-wasm validates with every capability of naga (push constants, 64-bit types...): what a
// browser's WebGPU accepts is checked in Chromium (tests/web/wgsl_kernels_chromium.mjs).
//   node spirv_to_wgsl.mjs KERNEL.spv OUT.wgsl   (the kernel's name: KERNEL)
import { readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { NagaError, nagaVersion, parseSpirv, validate, writeWgsl } from "naga-wasm";

export { nagaVersion };

// The kernel's WGSL; throws an Error whose message names the kernel, the step that failed (parse,
// validation, write) and naga's report.
export function spirvToWgsl(bytes, kernel) {
  let module = null, info = null;
  try {
    module = parseSpirv(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
    info = validate(module);
    return writeWgsl(module, info);
  } catch (e) {
    if (!(e instanceof NagaError)) throw e;
    // naga's report of a SPIR-V module points at "spv:1:1" (SPIR-V has no source text): the lines
    // that say something are the message and its notes.
    const lines = e.formatted.split("\n").filter((l) => l.trim() && !/^\s*(┌─|│|\d+ │)/.test(l));
    const report = lines.join("\n").replace(/^error: /, "");
    const error = new Error(`${kernel}: naga ${nagaVersion} ${e.kind} error: ${report}`);
    error.naga = { kind: e.kind, message: e.message, report };
    throw error;
  } finally {
    info?.free();
    module?.free();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [input, output] = process.argv.slice(2);
  if (!input || !output) {
    console.error("usage: node spirv_to_wgsl.mjs KERNEL.spv OUT.wgsl");
    process.exit(2);
  }
  const kernel = basename(input).replace(/\.spv$/, "");
  try {
    writeFileSync(output, `// ${kernel}: generated from its SPIR-V by naga ${nagaVersion} (web/spirv_to_wgsl.mjs); do not edit.\n` +
      spirvToWgsl(readFileSync(input), kernel));
  } catch (e) {
    console.error(`spirv_to_wgsl: ${e.message}`);
    process.exit(1);
  }
}
