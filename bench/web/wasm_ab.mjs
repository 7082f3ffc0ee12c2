// Two wasm cores in one Node process (before and after a change): per preset, and a 256 x 256
// xpbd grid, warm-up, then rounds alternating A and B, each timing a few steps (no read-back);
// medians of ms a step, and whether the two end with the same positions.
//   node bench/web/wasm_ab.mjs A.wasm B.wasm [rounds]
import { readFileSync } from "node:fs";
import { loadWeft } from "../../web/weft_core.mjs";
const [a, b, roundsArg] = process.argv.slice(2);
const rounds = Number(roundsArg || 15);
const cores = [await loadWeft(readFileSync(a)), await loadWeft(readFileSync(b))];
const median = (v) => v.slice().sort((x, y) => x - y)[v.length >> 1];
for (const [preset, cols, frames] of [["xpbd", 0, 20], ["compute-cloth", 0, 10], ["spring-mesh", 0, 20], ["xpbd", 256, 2]]) {
  const cloths = cores.map((w) => w.createPreset(preset, cols, cols));
  for (const c of cloths) for (let f = 0; f < 10; ++f) c.step();
  const t = [[], []];
  for (let r = 0; r < rounds; ++r) {
    for (let j = 0; j < 2; ++j) {
      const k = (r + j) & 1;
      const t0 = performance.now();
      for (let f = 0; f < frames; ++f) cloths[k].step();
      t[k].push((performance.now() - t0) / frames);
    }
  }
  const pa = cloths[0].positions(), pb = cloths[1].positions();
  let same = pa.length === pb.length;
  for (let i = 0; same && i < pa.length; ++i) same = Object.is(pa[i], pb[i]);
  const ma = median(t[0]), mb = median(t[1]);
  console.log(`${preset}${cols ? ` ${cols}x${cols}` : ""}: ${cloths[0].particles} particles, A ${ma.toFixed(3)} ms/step, B ${mb.toFixed(3)} ms/step, A/B ${(ma / mb).toFixed(2)}x, positions ${same ? "equal" : "DIFFER"}`);
  for (const c of cloths) c.destroy();
}
