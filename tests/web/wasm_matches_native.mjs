// The wasm core against the native scalar solver: every preset, frame by frame, bit for bit.
//   node wasm_matches_native.mjs WEFT.wasm NATIVE_POSITIONS_BINARY FRAMES
import { readFileSync, mkdtempSync, rmSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadWeft } from "../../web/weft_core.mjs";

const [wasmPath, nativeBin, framesArg] = process.argv.slice(2);
const frames = Number(framesArg);
const weft = await loadWeft(readFileSync(wasmPath));
const dir = mkdtempSync(join(tmpdir(), "weft-wasm-"));
let failed = 0;
for (const preset of ["xpbd", "compute-cloth", "spring-mesh"]) {
  const out = join(dir, `${preset}.f32`);
  execFileSync(nativeBin, [preset, String(frames), out]);
  const native = new Float32Array(readFileSync(out).buffer.slice(0));
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
rmSync(dir, { recursive: true, force: true });
process.exit(failed > 0 ? 1 : 0);
