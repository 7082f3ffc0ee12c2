// Pictures per second of the page as a visitor sees it (no ?test), for several sites (or one site
// with different query strings) side by side in one headless Chromium, alternating within each
// round and preset (the order turning each round), ROUNDS times: A/B figures on a loaded machine,
// where a single absolute figure means little. After SECONDS of running, over a window of WINDOW
// seconds: pictures per second, and the CPU time that Chromium's GPU process (SwiftShader: the
// pictures' rasterization) and its renderer processes (three.js, the wasm solver) spent per
// picture, from /proc (Linux), which other processes' load inflates far less than the rate.
// Medians over the rounds, and each variant's ratio to the first.
//   node bench/web/page_fps_ab.mjs SECONDS WINDOW ROUNDS BACKEND PRESETS SITE_DIR[?QUERY]...
//   e.g. node bench/web/page_fps_ab.mjs 4 4 3 webgl2 xpbd,compute-cloth,spring-mesh main-site build/site
import { readFileSync, readdirSync } from "node:fs";
import { resolve } from "node:path";
import { serve, launch, visit, sleep } from "../../tests/web/harness.mjs";

const [seconds, window, rounds, backend, presetList, ...specs] = process.argv.slice(2);
const presets = presetList.split(",");
const variants = [];
for (const spec of specs) {
  const [dir, extra = ""] = spec.split("?");
  variants.push({ spec, extra, ...(await serve(resolve(dir))) });
}
const browser = await launch();
// CPU seconds (user + system) of the browser's processes by type (gpu-process, renderer, ...).
const tick = 100; // USER_HZ
function cpuByType() {
  const root = browser.process().pid, parent = new Map(), out = {};
  for (const d of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8"), f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      parent.set(+d, { ppid: +f[1], cpu: (+f[11] + +f[12]) / tick });
    } catch { /* gone */ }
  }
  const inTree = (pid) => { for (let p = pid, n = 0; p > 1 && n < 8; p = parent.get(p)?.ppid, ++n) if (p === root) return true; return false; };
  for (const [pid, { cpu }] of parent) {
    if (!inTree(pid)) continue;
    let type = "browser";
    try { type = /--type=([\w-]+)/.exec(readFileSync(`/proc/${pid}/cmdline`, "utf8"))?.[1] ?? "browser"; } catch { continue; }
    out[type] = (out[type] ?? 0) + cpu;
  }
  return out;
}
const results = presets.map(() => variants.map(() => ({ fps: [], gpu: [], renderer: [] })));
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
try {
  for (let r = 0; r < Number(rounds); ++r)
    for (let p = 0; p < presets.length; ++p)
      for (let k = 0; k < variants.length; ++k) {
        const j = (k + r) % variants.length, v = variants[j];
        const query = `backend=${backend}&preset=${presets[p]}${v.extra ? `&${v.extra}` : ""}`;
        const { page, errors } = await visit(browser, v.root, query);
        await sleep(1000 * Number(seconds));
        // Pictures drawn in the window: the page's count, or (a site without window.weft.pictures)
        // the read-out's 0.5 s rates sampled through it.
        const count = () => page.evaluate(() => window.weft.pictures?.() ?? null);
        const c0 = cpuByType(), n0 = await count(), t0 = performance.now(), rates = [];
        while (performance.now() - t0 < 1000 * Number(window)) { await sleep(500); rates.push(await page.evaluate(() => window.weft.fps())); }
        const c1 = cpuByType(), n1 = await count(), t1 = performance.now();
        const fps = n0 === null ? rates.reduce((a, b) => a + b, 0) / rates.length : (1000 * (n1 - n0)) / (t1 - t0);
        const n = Math.max((fps * (t1 - t0)) / 1000, 1);
        const gpu = (1000 * (c1["gpu-process"] - c0["gpu-process"])) / n, renderer = (1000 * (c1.renderer - c0.renderer)) / n;
        const res = results[p][j];
        res.fps.push(fps); res.gpu.push(gpu); res.renderer.push(renderer);
        console.log(`round ${r} ${presets[p]} ${v.spec}: ${fps.toFixed(1)} fps, CPU ms a picture: GPU process ${gpu.toFixed(1)}, renderer ${renderer.toFixed(1)}${errors.length ? `, ${errors.length} errors: ${errors[0].slice(0, 120)}` : ""}`);
        await page.close();
      }
  for (let p = 0; p < presets.length; ++p) {
    const base = results[p][0];
    for (let k = 0; k < variants.length; ++k) {
      const { fps, gpu, renderer } = results[p][k];
      console.log(`${presets[p]} ${variants[k].spec}: median ${median(fps).toFixed(1)} fps (${fps.map((x) => x.toFixed(1)).join(", ")}; ${(median(fps) / median(base.fps)).toFixed(2)}× the first), ` +
        `GPU process ${median(gpu).toFixed(1)} ms a picture (${(median(base.gpu) / median(gpu)).toFixed(2)}× less), renderer ${median(renderer).toFixed(1)} ms`);
    }
  }
} finally {
  await browser.close();
  for (const v of variants) v.server.close();
}
