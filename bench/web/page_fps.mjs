// The page as a visitor sees it (no ?test: the display loop steps and draws by itself): after
// SECONDS of running, the read-out's rates per backend and preset: pictures per second and the
// mean solver step over the last 0.5 s window (several windows averaged), and the bytes a first
// visit downloads. In one headless Chromium (SwiftShader for WebGPU and, through ANGLE, WebGL2).
//   node bench/web/page_fps.mjs SITE_DIR [seconds]
import { resolve } from "node:path";
import { serve, launch, visit, sleep } from "../../tests/web/harness.mjs";

const siteDir = resolve(process.argv[2]), seconds = Number(process.argv[3] ?? 10);
const { server, served, root } = await serve(siteDir);
const browser = await launch();
try {
  for (const backend of ["webgpu", "webgl2"]) {
    for (const preset of ["xpbd", "compute-cloth", "spring-mesh"]) {
      const { page, errors } = await visit(browser, root, `backend=${backend}&preset=${preset}`, { before: async () => served.clear() });
      await sleep(1000 * seconds);
      const bytes = [...served.values()].reduce((a, b) => a + b, 0);
      const fps = [], step = [];
      for (let k = 0; k < 6; ++k) {
        fps.push(await page.evaluate(() => window.weft.fps()));
        step.push(await page.evaluate(() => window.weft.stepMs()));
        await sleep(600);
      }
      const mean = (a) => a.reduce((x, y) => x + y, 0) / a.length;
      console.log(`${backend} ${preset}: ${mean(fps).toFixed(1)} fps, step ${mean(step).toFixed(2)} ms, download ${bytes} bytes${errors.length ? `, ${errors.length} errors` : ""}`);
      await page.close();
    }
  }
} finally {
  await browser.close();
  server.close();
}
