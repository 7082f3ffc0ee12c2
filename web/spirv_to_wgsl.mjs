// A GPU kernel's WGSL from its SPIR-V: naga (the wgpu shader translator, web/node_modules/naga-wasm)
// reads the binary SPIR-V glslc made from the kernel's GLSL (src/vulkan/shaders/), validates the
// module and writes WGSL, so that the page's kernels and the Vulkan backend's come from one source
// (docs/design/web.md, "The WGSL kernels"). A kernel naga cannot read, validate or write is an error that
// names the kernel and quotes naga's report.
// naga-wasm validates with every capability of naga (push constants, 64-bit types...): what a
// browser's WebGPU accepts is checked in Chromium (tests/web/wgsl_kernels_chromium.mjs).
// naga declares every buffer, struct and constant of common.glsl in every module; what the entry
// point does not reach is dropped (unusedDropped), and naga validates what is left. Its four-space
// indentation becomes tabs (as weft's C), trailing blanks go: a sixth of the bytes left.
//   node spirv_to_wgsl.mjs KERNEL.spv OUT.wgsl   (the kernel's name: KERNEL)
import { readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { NagaError, nagaVersion, parseSpirv, parseWgsl, validate, writeWgsl } from "naga-wasm";

export { nagaVersion };

// A WGSL module's top-level declarations, in order: each one's text (with the blank space before
// it), the name it declares (null for a directive), whether it is an entry point, and the names its
// text mentions (identifiers, less the declared name and member names after a dot; a local or a
// field that shares a top-level name only keeps that declaration). A declaration ends at a ";" or a
// "}" outside any bracket.
const TOKEN = /\/\/[^\n]*|\/\*[\s\S]*?\*\/|\s+|[A-Za-z_]\w*|\d\w*|./gy;
const DECLARES = new Set(["struct", "fn", "var", "const", "override", "alias"]);
const ENTRY = new Set(["compute", "vertex", "fragment"]);
export function declarations(wgsl) {
  const decls = [];
  let start = 0, depth = 0, tokens = [];
  for (const { 0: t, index } of wgsl.matchAll(TOKEN)) {
    if (!/^(\s|\/[/*])/.test(t)) tokens.push(t);
    if ("{([".includes(t)) ++depth;
    else if ("})]".includes(t)) --depth;
    if (depth === 0 && (t === ";" || t === "}")) {
      const end = index + 1;
      decls.push(declaration(wgsl.slice(start, end), tokens));
      start = end;
      tokens = [];
    }
  }
  if (depth !== 0 || tokens.length) throw new Error("the WGSL ends inside a declaration");
  return { decls, tail: wgsl.slice(start) };
}
function declaration(text, tokens) {
  const k = tokens.findIndex((t) => DECLARES.has(t));
  let at = k < 0 ? -1 : k + 1;
  if (at > 0 && tokens[k] === "var" && tokens[at] === "<") at = tokens.indexOf(">", at) + 1; // var<storage, read_write>
  const name = at > 0 ? tokens[at] : null;
  const entry = tokens.some((t, j) => j > 0 && tokens[j - 1] === "@" && ENTRY.has(t));
  const uses = new Set(tokens.filter((t, j) => j !== at && /^[A-Za-z_]/.test(t) && tokens[j - 1] !== "."));
  return { text, name, entry, uses };
}

// The module less the declarations its entry points do not reach: from the entry points and the
// directives, every declaration named by one reached, to a fixed point (WGSL has no recursion, so
// what is dropped is named by nothing kept). Blank lines left by the dropped ones are merged.
export function unusedDropped(wgsl) {
  const { decls, tail } = declarations(wgsl);
  const byName = new Map(decls.filter((d) => d.name).map((d) => [d.name, d]));
  const reached = new Set(decls.filter((d) => d.entry || !d.name));
  for (const work = [...reached]; work.length;)
    for (const name of work.pop().uses) {
      const d = byName.get(name);
      if (d && !reached.has(d)) { reached.add(d); work.push(d); }
    }
  return (decls.filter((d) => reached.has(d)).map((d) => d.text).join("") + tail).replace(/\n{3,}/g, "\n\n").replace(/^\n+/, "");
}

// Each four spaces of a line's indentation as a tab; no blanks at the ends of lines.
const tabbed = (wgsl) => wgsl.replace(/^(?: {4})+/gm, (m) => "\t".repeat(m.length / 4)).replace(/[ \t]+$/gm, "");

// The kernel's WGSL (with `keepUnused`, naga's whole output); throws an Error whose message names
// the kernel, the step that failed (parse, validation, write; "strip": naga rejects the module
// without its unused declarations) and naga's report.
export function spirvToWgsl(bytes, kernel, { keepUnused = false } = {}) {
  let module = null, info = null, kind = null;
  try {
    module = parseSpirv(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
    info = validate(module);
    const whole = writeWgsl(module, info);
    if (keepUnused) return whole;
    const wgsl = tabbed(unusedDropped(whole));
    info.free();
    module.free();
    info = module = null;
    kind = "strip";
    module = parseWgsl(wgsl);
    info = validate(module);
    return wgsl;
  } catch (e) {
    if (!(e instanceof NagaError)) throw e;
    // naga's report of a SPIR-V module points at "spv:1:1" (SPIR-V has no source text): the lines
    // that say something are the message and its notes.
    const lines = e.formatted.split("\n").filter((l) => l.trim() && !/^\s*(┌─|│|\d+ │)/.test(l));
    const report = lines.join("\n").replace(/^error: /, "");
    const error = new Error(`${kernel}: naga ${nagaVersion} ${kind ?? e.kind} error: ${report}`);
    error.naga = { kind: kind ?? e.kind, message: e.message, report };
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
