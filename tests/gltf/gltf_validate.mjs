// `weft run --gltf` through the Khronos glTF validator (npm gltf-validator): the xpbd preset, a
// run long enough for several meshes, every kind of collider, a skirt (mesh cloth, UV seam,
// capsules), the tearing scene, two cloths, a cloth without triangles. Zero errors and zero
// warnings; the infos and hints are printed.
//   node gltf_validate.mjs WEFT
import { join } from "node:path";
import { statSync, readFileSync } from "node:fs";
import { repo, importWebModule, scratch, weft } from "./gltf_common.mjs";

const binary = process.argv[2];
const validator = await importWebModule("gltf-validator");
const dir = scratch();
const runs = [
  ["xpbd", ["--preset", "xpbd", "--frames", "20"]],
  ["xpbd-150", ["--preset", "xpbd", "--frames", "150"]],
  ["colliders", ["--scene", join(repo, "tests/gltf/colliders.json")]],
  ["skirt", ["--scene", join(repo, "scenes/skirt.json"), "--frames", "20"]],
  ["tear", ["--scene", join(repo, "scenes/tear.json"), "--frames", "60"]],
  ["two-cloths", ["--scene", join(repo, "tests/cli/good/two_cloths.json"), "--frames", "5"]],
  ["line", ["--preset", "xpbd", "--grid", "8x1", "--frames", "3"]],
];
let failed = 0;
for (const [name, args] of runs) {
  const file = join(dir, `${name}.glb`);
  const ms = weft(binary, ["run", ...args, "--backend", "cpu", "--quiet", "--gltf", file]);
  const report = await validator.validateBytes(new Uint8Array(readFileSync(file)), { maxIssues: 0 });
  const i = report.issues;
  const ok = i.numErrors === 0 && i.numWarnings === 0;
  if (!ok) failed++;
  console.log(`${ok ? "ok" : "FAILED"} ${name}: ${(statSync(file).size / 1e6).toFixed(2)} MB in ${ms.toFixed(0)} ms; ` +
    `${i.numErrors} errors, ${i.numWarnings} warnings, ${i.numInfos} infos, ${i.numHints} hints`);
  // Each kind of message once, with how often it came.
  const kinds = new Map();
  for (const m of i.messages) {
    const key = `${["error", "warning", "info", "hint"][m.severity]} ${m.code}: ${m.message}`;
    if (!kinds.has(key)) kinds.set(key, []);
    kinds.get(key).push(m.pointer);
  }
  for (const [key, pointers] of kinds)
    console.log(`    ${key} (${pointers.length}x, e.g. ${pointers[0]})`);
  // The renderer's weave embedded (the validator has read the PNG) as the cloth's repeating base
  // colour texture, and every UV set used by it (no "unused" info about TEXCOORD_0).
  const texture = report.info && report.info.resources && report.info.resources.some((r) => r.mimeType === "image/png" &&
    r.storage === "buffer-view" && r.image && r.image.width === 256 && r.image.height === 256);
  const unusedUV = i.messages.some((m) => m.code === "UNUSED_OBJECT" && String(m.pointer).includes("TEXCOORD"));
  if (!texture || unusedUV) {
    failed++;
    console.log(`FAILED ${name}: ${texture ? "" : "no embedded 256x256 PNG; "}${unusedUV ? "TEXCOORD_0 unused" : ""}`);
  }
}
process.exit(failed > 0 ? 1 : 0);
