// The wasm core against the native scalar solver: every preset, frame by frame, bit for bit.
// Then every scene of SCENES_DIR by the whole state's hash. First, the kernel ABI the core hands the
// WebGPU solver (gpuAbi): every binding and push flag of src/gpu/kernel_abi.h, with its value there.
//   node wasm_matches_native.mjs WEFT.wasm NATIVE_POSITIONS_BINARY FRAMES [SCENES_DIR]
import { readFileSync, readdirSync, mkdtempSync, rmSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadWeft } from "../../web/weft_core.mjs";

const [wasmPath, nativeBin, framesArg, scenesDir] = process.argv.slice(2);
const frames = Number(framesArg);
const weft = await loadWeft(readFileSync(wasmPath));
const dir = mkdtempSync(join(tmpdir(), "weft-wasm-"));
let failed = 0;
{
  const header = readFileSync(new URL("../../src/gpu/kernel_abi.h", import.meta.url), "utf8");
  const defines = [...header.matchAll(/^#define WF_GPU_((?:BIND|PUSH)_\w+) (\d+)u?\b/gm)].filter((m) => m[1] !== "BIND_COUNT");
  const abi = weft.gpuAbi;
  const wrong = defines.filter(([, name, value]) => abi[name] !== Number(value)).map(([, name, value]) => `${name} ${abi[name]} (${value})`);
  const ok = defines.length > 25 && wrong.length === 0 && abi.STATUS_BYTES % 16 === 0 && abi.PARTIAL_BYTES % 16 === 0;
  console.log(`${ok ? "ok" : "FAILED"} gpuAbi: the ${defines.length} WF_GPU_BIND_* and WF_GPU_PUSH_* of kernel_abi.h` +
    (wrong.length ? `; differ: ${wrong.join(", ")}` : "") + `; wfGpuStatus ${abi.STATUS_BYTES} bytes, wfGpuPartial ${abi.PARTIAL_BYTES}`);
  if (!ok) failed++;
}
for (const preset of ["xpbd", "compute-cloth", "spring-mesh"]) {
  const out = join(dir, `${preset}.f32`);
  execFileSync(nativeBin, [preset, String(frames), out]);
  const bytes = readFileSync(out); // (a small file's Buffer may sit in Node's shared 8 KiB pool)
  const native = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  const cloth = weft.createPreset(preset);
  const n = cloth.particles;
  let firstDiff = -1, worst = 0;
  const t0 = performance.now();
  for (let f = 0; f < frames; ++f) {
    cloth.step();
    const p = cloth.positions();
    const ref = native.subarray(3 * n * f, 3 * n * (f + 1));
    for (let i = 0; i < 3 * n; ++i) {
      if (Object.is(p[i], ref[i])) continue;
      if (firstDiff < 0) firstDiff = f;
      worst = Math.max(worst, Math.abs(p[i] - ref[i]));
    }
  }
  const ms = (performance.now() - t0) / frames;
  cloth.destroy();
  const ok = firstDiff < 0;
  console.log(`${ok ? "ok" : "FAILED"} ${preset}: ${n} particles, ${frames} frames, ` +
    (ok ? "bit-identical to the native scalar solver" : `first difference in frame ${firstDiff + 1}, largest ${worst} m`) +
    ` (wasm ${ms.toFixed(2)} ms/frame incl. read-back)`);
  if (!ok) failed++;
}
// Every scene of scenes/ (its first cloth and its colliders, as the page runs it): the whole state's
// hash (wfWorld_GetStateHash) after every frame, wasm against native. A scene whose mesh file the
// wasm core cannot open (it has no files) is named and skipped.
if (scenesDir) {
  let stepped = 0;
  for (const file of readdirSync(scenesDir).filter((f) => f.endsWith(".json")).sort()) {
    const bytes = readFileSync(join(scenesDir, file));
    let cloth;
    try {
      cloth = weft.createScene(new Uint8Array(bytes), file);
    } catch (e) {
      console.log(`skipped ${file}: ${e.message}`);
      continue;
    }
    const out = join(dir, `${file}.hash`);
    const sceneFrames = Math.min(frames, 40);
    execFileSync(nativeBin, [join(scenesDir, file), String(sceneFrames), out]);
    const native = readFileSync(out, "utf8").trim().split("\n");
    let firstDiff = -1;
    for (let f = 0; f < sceneFrames && firstDiff < 0; ++f) {
      cloth.step();
      if (cloth.stateHash().toString(16).padStart(16, "0") !== native[f]) firstDiff = f;
    }
    cloth.destroy();
    stepped++;
    const ok = firstDiff < 0;
    console.log(`${ok ? "ok" : "FAILED"} ${file}: ${sceneFrames} frames, ` +
      (ok ? "the same state hash as native after every frame" : `state hashes differ after frame ${firstDiff + 1}`));
    if (!ok) failed++;
  }
  if (stepped < 8) {
    console.log(`FAILED: only ${stepped} scenes stepped`);
    failed++;
  }
}
rmSync(dir, { recursive: true, force: true });
process.exit(failed > 0 ? 1 : 0);
