// The page's ms per frame on each backend, in one headless Chromium (SwiftShader: WebGPU on its
// Vulkan, WebGL2 on ANGLE): per preset, frames after a warm-up, each timed inside the page; medians.
//   sim:   one simulation frame (WebGPU: encode, submit, and the wait for the reference read-back,
//          i.e. the GPU's whole frame; WebGL2: the wasm solver's step)
//   frame: a simulation frame plus the picture (WebGPU: drawn from the solver's buffers, submitted
//          and not waited for, so its GPU work lands in the next frame's wait: in steady state
//          each frame pays one picture; WebGL2: positions to three.js and a render)
//   node bench/web/page_bench.mjs SITE_DIR [frames] [warmup]
import { createServer } from "node:http";
import { readFileSync, existsSync } from "node:fs";
import { join, extname, resolve, dirname } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

const web = join(dirname(fileURLToPath(import.meta.url)), "../../web");
const { default: puppeteer } = await import(pathToFileURL(createRequire(join(web, "package.json")).resolve("puppeteer-core")));
const siteDir = resolve(process.argv[2]);
const frames = Number(process.argv[3] ?? 40), warmup = Number(process.argv[4] ?? 5);
const types = { ".html": "text/html", ".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm" };
const server = createServer((req, res) => {
  const path = join(siteDir, decodeURIComponent(new URL(req.url, "http://x").pathname));
  if (!path.startsWith(siteDir) || !existsSync(path)) { res.writeHead(404); res.end(); return; }
  res.writeHead(200, { "Content-Type": types[extname(path)] ?? "application/octet-stream" });
  res.end(readFileSync(path));
});
await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
const browser = await puppeteer.launch({
  executablePath: process.env.WEFT_CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--window-size=960,600",
    "--enable-unsafe-webgpu", "--use-webgpu-adapter=swiftshader", "--enable-features=Vulkan", "--use-vulkan=swiftshader",
    "--disable-vulkan-surface"],
  defaultViewport: { width: 960, height: 600 },
});
try {
  for (const backend of ["webgl2", "webgpu"]) {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${server.address().port}/index.html?test&backend=${backend}`, { waitUntil: "load" });
    await page.waitForFunction(() => window.weft && (window.weft.ready || window.weft.error), { timeout: 60000 });
    for (const preset of ["xpbd", "compute-cloth", "spring-mesh", "flag"]) {
      const r = await page.evaluate(async (p, frames, warmup) => {
        await window.weft.load(p);
        const sim = [], frame = [];
        for (let f = 0; f < warmup + frames; ++f) {
          const t0 = performance.now();
          await window.weft.stepFrames(1); // a step and a picture
          const t1 = performance.now();
          if (f >= warmup) { frame.push(t1 - t0); sim.push(window.weft.simMs()); }
        }
        const median = (a) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)];
        return { sim: median(sim), frame: median(frame) };
      }, preset, frames, warmup);
      console.log(`${backend} ${preset}: sim ${r.sim.toFixed(2)} ms/frame, sim + picture ${r.frame.toFixed(2)} ms/frame (median of ${frames} after ${warmup})`);
    }
    await page.close();
  }
} finally {
  await browser.close();
  server.close();
}
