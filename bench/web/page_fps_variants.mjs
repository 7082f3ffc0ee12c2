// Pictures per second of the WebGL2 page (no ?test: the display loop runs by itself) for several
// builds of the site side by side in one headless Chromium, alternating, ROUNDS times: for measuring
// what a change to the drawing costs. After SECONDS of running, the read-out's rate averaged over
// six readings 0.6 s apart.
//   node bench/web/page_fps_variants.mjs QUERY SECONDS ROUNDS SITE_DIR...
import { resolve } from "node:path";
import { serve, launch, visit, sleep } from "../../tests/web/harness.mjs";

const [query, seconds, rounds, ...dirs] = process.argv.slice(2);
const servers = [];
for (const d of dirs) servers.push({ dir: d, ...(await serve(resolve(d))) });
const browser = await launch();
const results = dirs.map(() => []);
try {
  for (let r = 0; r < Number(rounds); ++r) {
    for (let k = 0; k < servers.length; ++k) {
      const { page, errors } = await visit(browser, servers[k].root, query);
      await sleep(1000 * Number(seconds));
      let sum = 0, step = 0;
      for (let j = 0; j < 6; ++j) {
        sum += await page.evaluate(() => window.weft.fps());
        step += await page.evaluate(() => window.weft.stepMs());
        await sleep(600);
      }
      results[k].push(sum / 6);
      console.log(`round ${r} ${servers[k].dir}: ${(sum / 6).toFixed(1)} fps, step ${(step / 6).toFixed(2)} ms${errors.length ? `, ${errors.length} errors` : ""}`);
      await page.close();
    }
  }
  const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  for (let k = 0; k < servers.length; ++k) console.log(`${servers[k].dir}: median ${median(results[k]).toFixed(1)} fps over ${rounds} rounds`);
} finally {
  await browser.close();
  for (const s of servers) s.server.close();
}
