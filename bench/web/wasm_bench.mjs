// ms per frame of the wasm core (scalar CPU solver) in Node, medians over frames after a warm-up;
// run beside `weft bench --backend cpu --threads 1` with WEFT_NO_SIMD=1 for the native scalar figure.
//   node bench/web/wasm_bench.mjs build/web/weft.wasm [frames]
import { readFileSync } from "node:fs";
import { loadWeft } from "../../web/weft_core.mjs";

const [wasmPath, framesArg] = process.argv.slice(2);
const frames = Number(framesArg ?? 200), warmup = 20;
const weft = await loadWeft(readFileSync(wasmPath));
for (const preset of ["xpbd", "compute-cloth", "spring-mesh"]) {
  const cloth = weft.createPreset(preset);
  const times = [];
  for (let f = 0; f < warmup + frames; ++f) {
    const t0 = performance.now();
    cloth.step();
    if (f >= warmup) times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const q = (p) => times[Math.floor(p * (times.length - 1))];
  console.log(`${preset}: median ${q(0.5).toFixed(3)} ms/frame, p10 ${q(0.1).toFixed(3)}, p90 ${q(0.9).toFixed(3)} (${frames} frames after ${warmup})`);
  cloth.destroy();
}
