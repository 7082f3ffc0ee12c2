// What the page tests share: the site served over HTTP, headless Chromium (Debian's, driven by
// puppeteer-core from web/node_modules) with WebGPU and WebGL2 on SwiftShader, the checks' tally,
// and a visitor's input (a picker worked with the mouse and keys, files dropped on the page).
import { createServer } from "node:http";
import { readFileSync, existsSync } from "node:fs";
import { join, extname, dirname } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

export const repo = join(dirname(fileURLToPath(import.meta.url)), "../..");
// puppeteer-core from web/node_modules (npm ci there), wherever the tests run from.
const { default: puppeteer } = await import(pathToFileURL(createRequire(join(repo, "web/package.json")).resolve("puppeteer-core")));

// The site (a folder) on 127.0.0.1; `served` holds the bytes sent for each path since it was
// last cleared.
export async function serve(siteDir) {
  const types = { ".html": "text/html", ".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };
  const served = new Map();
  const server = createServer((req, res) => {
    const name = decodeURIComponent(new URL(req.url, "http://x").pathname), path = join(siteDir, name);
    if (!path.startsWith(siteDir) || !existsSync(path)) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { "Content-Type": types[extname(path)] ?? "application/octet-stream" });
    const bytes = readFileSync(path);
    served.set(name.slice(1), bytes.length);
    res.end(bytes);
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return { server, served, root: `http://127.0.0.1:${server.address().port}/index.html` };
}

// WebGPU on SwiftShader; the Vulkan flags let a WebGPU canvas present (without them the device is
// lost after about 2 s). WebGL2 on ANGLE's SwiftShader.
export function launch() {
  return puppeteer.launch({
    executablePath: process.env.WEFT_CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--window-size=960,600",
      "--enable-unsafe-webgpu", "--use-webgpu-adapter=swiftshader", "--enable-features=Vulkan", "--use-vulkan=swiftshader",
      "--disable-vulkan-surface"],
    defaultViewport: { width: 960, height: 600 },
  });
}

let failures = 0;
// WEFT_PAGE_TIMES=1: each check's line starts with the seconds since the start.
const start = Date.now(), stamp = () => (process.env.WEFT_PAGE_TIMES ? `[${((Date.now() - start) / 1000).toFixed(1)}] ` : "");
export const check = (ok, what) => { console.log(`${stamp()}${ok ? "ok" : "FAILED"} ${what}`); if (!ok) failures++; };
export const failed = () => failures;
export const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
export const errorText = (errors) => (errors.length ? `; ${errors.length} errors, the first: ${errors[0].slice(0, 160)}` : "");

// A new page that counts its console errors and uncaught exceptions, at the site's index.html with
// the query; `before(page)` runs before the navigation (viewport, request interception).
export async function visit(browser, root, query, { before = null, ready = true } = {}) {
  const page = await browser.newPage();
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  if (before) await before(page);
  await page.goto(`${root}?${query}`, { waitUntil: "load" });
  if (ready) await page.waitForFunction(() => window.weft && (window.weft.ready || window.weft.error), { timeout: 60000 });
  return { page, errors };
}

// The clock (s) once it has passed `after` (or null after `ms`).
export const clockPast = (page, after, ms = 20000) =>
  page.waitForFunction((t) => window.weft.time() > t, { timeout: ms }, after).then(() => page.evaluate(() => window.weft.time()), () => null);

// A <select> as a visitor works it: a click opens it, arrow keys move to the entry, Enter picks it.
export async function pickOption(page, id, value) {
  const box = await (await page.$(`#${id}`)).boundingBox();
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  const [from, to] = await page.evaluate((i, v) => {
    const s = document.getElementById(i);
    return [s.selectedIndex, [...s.options].findIndex((o) => o.value === v)];
  }, id, value);
  for (let k = 0; k < Math.abs(to - from); ++k) await page.keyboard.press(to > from ? "ArrowDown" : "ArrowUp");
  await page.keyboard.press("Enter");
}

// Files dropped on the page as a browser delivers them (the drop event with the files).
export async function dropFile(page, name, bytes, more = []) {
  await page.evaluate(async (list) => {
    const dt = new DataTransfer();
    for (const [n, b64] of list) dt.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], n));
    window.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, [[name, bytes], ...more].map(([n, b]) => [n, b.toString("base64")]));
}

// The OBJ files a scene names ("mesh" of its cloths, mesh colliders and their keys), as [name, bytes]
// for a drop beside it.
export function meshesOf(scenePath) {
  const json = JSON.parse(readFileSync(scenePath, "utf8"));
  const colliders = json.colliders ?? [];
  const named = [json.cloth, ...(json.cloths ?? []), ...colliders, ...colliders.flatMap((c) => c?.keys ?? [])].map((c) => c?.mesh);
  return [...new Set(named.filter((m) => typeof m === "string"))].map((m) => [m.split("/").pop(), readFileSync(join(dirname(scenePath), m))]);
}
