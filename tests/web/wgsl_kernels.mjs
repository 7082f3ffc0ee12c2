// The GPU kernels' WGSL (web/CMakeLists.txt): every kernel's SPIR-V of the build translates and
// validates in naga, and the build's <kernel>.wgsl is that translation; a kernel with a "naga"
// entry in web/wgsl_blockers.json instead still fails with the error recorded there (so the list
// is exact: a kernel that starts to translate must leave it). Each built module declares nothing
// its entry point leaves unused (each top-level name, binding or other, is named again: counted
// here apart from web/spirv_to_wgsl.mjs's pass), where naga's whole output does.
//   node wgsl_kernels.mjs WGSL_DIR BLOCKERS.json KERNEL...
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { spirvToWgsl } from "../../web/spirv_to_wgsl.mjs";

// The top-level names of a module that nothing else in it names (the entry point aside): a
// declaration at the start of a line (naga's layout), a name that occurs once.
const DECLARED = /^(?:@id\(\d+\) )?(?:struct|fn|const|override|alias) (\w+)|^var(?:<[^>]*>)? (\w+)/gm;
function unused(wgsl) {
  const names = [...wgsl.matchAll(DECLARED)].map((m) => m[1] ?? m[2]).filter((name) => name !== "main");
  return { names, unused: names.filter((name) => wgsl.match(new RegExp(`\\b${name}\\b`, "g")).length < 2) };
}

const [dir, blockersFile, ...kernels] = process.argv.slice(2);
const blockers = JSON.parse(readFileSync(blockersFile, "utf8"));
let failed = 0, translated = 0;
const check = (ok, what) => { console.log(`${ok ? "ok" : "FAILED"} ${what}`); if (!ok) failed++; };

for (const name of Object.keys(blockers)) check(kernels.includes(name), `${name}: an entry of ${blockersFile} is a kernel`);
if (kernels.length === 0) check(false, "no kernels named");
for (const kernel of kernels) {
  let wgsl = null, error = null;
  try {
    wgsl = spirvToWgsl(readFileSync(join(dir, `${kernel}.spv`)), kernel);
  } catch (e) {
    if (!e.naga) throw e;
    error = e;
  }
  const blocked = blockers[kernel]?.naga;
  if (blocked) {
    const recorded = error && `${error.naga.kind} error: ${error.naga.report}`.startsWith(blocked);
    check(recorded, `${kernel}: naga fails as recorded (${blocked})` +
      (recorded ? "" : error ? `; it now says: ${error.message}` : "; it now translates: take it out of the blockers"));
    continue;
  }
  if (!wgsl) {
    check(false, error.message);
    continue;
  }
  const built = join(dir, `${kernel}.wgsl`);
  const same = existsSync(built) && readFileSync(built, "utf8").endsWith(wgsl);
  check(same && /@compute\b/.test(wgsl), `${kernel}: translates and validates (${wgsl.split("\n").length} lines of WGSL), ` +
    (same ? "the build's WGSL is naga's" : `the build's ${built} is not naga's output`));
  const kept = unused(wgsl), whole = unused(spirvToWgsl(readFileSync(join(dir, `${kernel}.spv`)), kernel, { keepUnused: true }));
  const bindings = (wgsl.match(/@binding\(/g) ?? []).length;
  check(kept.unused.length === 0 && whole.unused.length > 0,
    `${kernel}: declares only what it uses: ${kept.names.length} names (${bindings} bindings) of naga's ${whole.names.length}` +
    ` (${whole.unused.length} unused there)` + (kept.unused.length ? `; unused: ${kept.unused.join(", ")}` : ""));
  translated++;
}
console.log(`${translated} of ${kernels.length} kernels translate; ${kernels.length - translated} blocked (web/wgsl_blockers.json)`);
process.exit(failed ? 1 : 0);
