// The page's panel as a visitor uses it (issue 32): the loading state, the read-out's rates, every
// control moved with real pointer input while the cloth steps on both backends (the solver's state
// read back: the library's values, on WebGPU the inverse masses on the GPU too), the phone layout,
// the sphere drawn under the cloth (defect 6), tearing on WebGPU, every scene of scenes/ dropped on
// WebGPU, and the download. Every page counts its console errors and uncaught exceptions: none.
// Screenshots of the desktop and phone layouts go to OUT_DIR (docs/web-page*.png are these).
//   node controls_test.mjs SITE_DIR OUT_DIR
import { readFileSync, readdirSync, writeFileSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { repo, serve, launch, check, failed, sleep, errorText, visit, clockPast, pickOption, dropFile, meshesOf } from "./harness.mjs";

const [siteDir, outDir] = process.argv.slice(2).map((p) => resolve(p));
mkdirSync(outDir, { recursive: true });
const { server, served, root } = await serve(siteDir);
const browser = await launch();
const timed = async (fn) => {
  const began = Date.now();
  await fn();
  console.log(`  (${((Date.now() - began) / 1000).toFixed(1)} s)`);
};

// A slider moved as a visitor moves it: a click at a fraction of its track (input and change); a
// click on the thumb itself moves nothing, so a fraction near the thumb is taken 0.3 further.
async function slide(page, id, fraction) {
  const el = await page.$(`#${id}`);
  await el.scrollIntoView();
  const box = await el.boundingBox();
  const at = await el.evaluate((e) => (e.value - e.min) / (e.max - e.min));
  if (Math.abs(at - fraction) < 0.2) fraction = at > 0.5 ? at - 0.3 : at + 0.3;
  await page.mouse.click(box.x + 8 + fraction * (box.width - 16), box.y + box.height / 2);
}
async function click(page, id) {
  const el = await page.$(`#${id}`);
  await el.scrollIntoView();
  await el.click();
}
// The solver's state (window.weft.state()) once `ok(state)` holds, or the last one after `ms`.
async function stateWhen(page, ok, ms = 15000) {
  const until = Date.now() + ms;
  let s;
  do {
    s = await page.evaluate(() => window.weft.state());
    if (ok(s)) return s;
    await sleep(100);
  } while (Date.now() < until);
  return s;
}
// The value a slider's position stands for (log sliders hold log10 of it).
const sliderValue = (page, id) => page.evaluate((i) => {
  const e = document.getElementById(i);
  return ["stiffness", "mass", "timeStep"].includes(i) && !(i === "stiffness" && +e.max <= 1) ? 10 ** +e.value : +e.value;
}, id);
const near = (a, b) => Math.abs(a - b) <= 1e-5 * Math.max(1, Math.abs(a), Math.abs(b));

// Loading: until the solver exists the page says so and the controls are disabled (weft.wasm is
// held back 1.5 s here); once ready every read-out shows the solver's value, the rates read
// "measuring…" (not 0) and then an fps and a step time over 0.5 s.
async function loading(backend) {
  let release;
  const held = new Promise((ok) => { release = ok; });
  const { page, errors } = await visit(browser, root, `backend=${backend}&preset=spring-mesh`, {
    ready: false,
    before: async (p) => {
      // Every read-out's first line, as it changes.
      await p.evaluateOnNewDocument(() => {
        window.readouts = [];
        addEventListener("DOMContentLoaded", () => new MutationObserver(() => {
          const line = document.getElementById("readout").textContent.split("\n")[0];
          if (line !== window.readouts.at(-1)) window.readouts.push(line);
        }).observe(document.getElementById("readout"), { childList: true, characterData: true, subtree: true }));
      });
      await p.setRequestInterception(true);
      p.on("request", async (r) => { if (r.url().endsWith("/weft.wasm")) await held; r.continue(); });
    },
  });
  await sleep(300);
  const early = await page.evaluate(() => ({
    disabled: document.getElementById("controls").disabled, status: document.getElementById("status").textContent,
    message: document.getElementById("message").textContent, shown: getComputedStyle(document.getElementById("message")).display,
  }));
  release();
  await page.waitForFunction(() => window.weft?.ready, { timeout: 60000 });
  const first = await page.evaluate(() => [window.readouts[0], window.weft.panel()]);
  const state = await page.evaluate(() => window.weft.state());
  const rates = await page.waitForFunction(() => /fps · step/.test(document.getElementById("readout").textContent), { timeout: 20000 })
    .then(() => page.evaluate(() => [window.weft.fps(), window.weft.stepMs(), document.getElementById("readout").textContent.split("\n")[0]]), () => [null, null, ""]);
  const panel = first[1];
  const shows = panel.gravity === `${state.gravityY.toFixed(1)} m/s²` && panel.substeps === `${state.substeps}/frame` &&
    panel.density === `${state.cols} × ${state.rows}` && panel.stiffness === `s ${state.stiffness.toFixed(2)}` && panel.pins === "top-corners" &&
    !panel.floor && !panel.disabled && Object.values(panel).every((v) => v !== "–");
  check(early.disabled && /Loading|Initializing/.test(early.status) && early.shown !== "none" && /Loading|Initializing/.test(early.message),
    `${backend} loading: before the solver exists the controls are disabled and the page says "${early.status}"`);
  check(shows && !panel.disabled, `${backend} ready: the controls show the solver's state (gravity ${panel.gravity}, ${panel.density}, stiffness ${panel.stiffness}, pins ${panel.pins}, ${panel.substeps})`);
  const lines = await page.evaluate(() => window.readouts);
  const zero = lines.filter((l) => /(^| )0\.0+ (fps|ms)/.test(l));
  check(/measuring/.test(first[0]) && zero.length === 0 && rates[0] > 0 && rates[1] > 0 && /fps · step [\d.]+ ms/.test(rates[2]),
    `${backend} read-out: "${first[0]}" at first, then "${rates[2]}" (${lines.length} read-outs, ${zero.length} of them zeros)`);
  check(errors.length === 0, `${backend} loading: no errors${errorText(errors)}`);
  await page.close();
}

// Every control with real input while the cloth steps: the third document's (spring-mesh) and the
// second's (compute-cloth), then pause, reset params and reset.
async function controls(backend) {
  const { page, errors } = await visit(browser, root, `backend=${backend}&preset=spring-mesh`);
  await clockPast(page, 0.05);
  const said = [];
  // Grid density first (rebuilds the cloth; smaller is quicker for what follows).
  await slide(page, "density", 0.1);
  let s = await stateWhen(page, (q) => q.cols !== 56);
  const density = await page.evaluate(() => window.weft.panel().density);
  check(s.cols < 56 && s.particles === s.cols * s.rows && s.pinned === 2 && s.pinnedOnSolver === 2 && density === `${s.cols} × ${s.rows}`,
    `${backend} grid density: 56 × 56 -> ${density}, ${s.particles} particles, pins kept (${s.pinnedOnSolver} on the solver)`);
  await clockPast(page, await page.evaluate(() => window.weft.time()) + 0.05);
  // The sliders: the library has what each slider's position stands for, the read-out changed.
  // (The retention with the keyboard: End, its most, no damping.)
  for (const [id, control, fraction] of [["gravity", "gravityY", 0.3], ["stiffness", "stiffness", 0.4], ["damping", "damping", "End"],
    ["mass", "mass", 1], ["wind", "wind", 0.5], ["windFrequency", "windFrequency", 0.7], ["substeps", "substeps", 0.3], ["timeStep", "timeStep", 0.7]]) {
    const before = await page.evaluate(() => window.weft.state());
    const shown = await page.evaluate((i) => window.weft.panel()[i], id);
    if (typeof fraction === "string") {
      await (await page.$(`#${id}`)).focus();
      await page.keyboard.press(fraction);
    } else await slide(page, id, fraction);
    s = await stateWhen(page, (q) => q[control] !== before[control]);
    const want = await sliderValue(page, id), now = await page.evaluate((i) => window.weft.panel()[i], id);
    const ok = s[control] !== before[control] && near(s[control], want) && now !== shown && (control !== "mass" || near(s.massOnSolver, s.mass));
    check(ok, `${backend} ${id}: ${shown} -> ${now} (the library has ${+s[control].toPrecision(4)}${control === "mass" ? `, the solver's inverse masses 1/${+s.massOnSolver.toPrecision(4)}` : ""})`);
    said.push(id);
  }
  s = await page.evaluate(() => window.weft.state());
  check(s.windMode === 2, `${backend} wind: a strength turns the wave wind on (mode ${s.windMode})`);
  // Pins and floor: the top edge pinned, then free with the floor on: the cloth falls onto it.
  await pickOption(page, "pins", "top-row");
  s = await stateWhen(page, (q) => q.pinned === q.cols);
  check(s.pinned === s.cols && s.pinnedOnSolver === s.cols, `${backend} pins top edge: ${s.pinned} pinned (${s.pinnedOnSolver} on the solver)`);
  await click(page, "floor");
  s = await stateWhen(page, (q) => q.floor === 1);
  const top = Math.max(...(await page.evaluate(() => window.weft.positions())).filter((_, k) => k % 3 === 1));
  await pickOption(page, "pins", "none");
  s = await stateWhen(page, (q) => q.pinned === 0 && q.pinnedOnSolver === 0);
  // (Its bottom rows lie on the floor at once: hanging, the cloth reached below it.)
  const heights = async () => (await page.evaluate(() => window.weft.positions())).filter((_, k) => k % 3 === 1);
  for (let k = 0; k < 100 && Math.max(...(await heights())) > top - 1; ++k) await sleep(200);
  const ys = await heights();
  const [low, high] = [Math.min(...ys), Math.max(...ys)];
  check(s.floor === 1 && s.pinnedOnSolver === 0 && high < top - 1 && low > s.floorHeight - 0.05 && low < s.floorHeight + 0.2,
    `${backend} pins free, floor on: the cloth fell (top ${top.toFixed(2)} -> ${high.toFixed(2)} m) and rests on the floor (lowest ${low.toFixed(3)}, floor ${s.floorHeight.toFixed(2)})`);
  // Pause and Resume; Reset params (the density too); Reset while paused gives the first frame.
  await click(page, "pause");
  await sleep(600); // a frame under way when the button was pressed ends its steps
  const p0 = await page.evaluate(() => [window.weft.time(), window.weft.paused(), document.getElementById("pause").textContent]);
  await sleep(800);
  const p1 = await page.evaluate(() => window.weft.time());
  await click(page, "pause");
  const resumed = await clockPast(page, p1, 20000);
  check(p0[1] && p0[2] === "Resume" && p1 === p0[0] && resumed !== null, `${backend} Pause: the clock stops at ${p0[0].toFixed(3)} s (button "${p0[2]}"), Resume: it goes on`);
  await click(page, "resetParams");
  s = await stateWhen(page, (q) => q.cols === 56 && q.pinned === 2 && near(q.gravityY, -9.8));
  check(s.cols === 56 && s.pinnedOnSolver === 2 && near(s.gravityY, -9.8) && near(s.stiffness, 0.9) && s.floor === 0 && s.windMode === 0 && s.substeps === 8,
    `${backend} Reset params: 56 × 56, gravity ${s.gravityY.toFixed(1)}, stiffness ${s.stiffness.toFixed(2)}, ${s.substeps} substeps, floor ${s.floor}, ${s.pinnedOnSolver} pins on the solver`);
  await click(page, "pause");
  await click(page, "resetCloth");
  await sleep(300);
  const [now, first] = await page.evaluate(async () => [await window.weft.positions(), window.weft.firstFrame()]);
  check(JSON.stringify(now) === JSON.stringify(first), `${backend} Reset (paused): the first frame restored`);
  await click(page, "pause");

  // The second document's: sphere radius, time step, the sphere's motion (a checkbox for touch).
  await pickOption(page, "preset", "compute-cloth");
  await page.waitForFunction(() => window.weft.scene() === "" && document.getElementById("readout").textContent.includes("springs:"), { timeout: 30000 });
  for (const [id, control, fraction] of [["sphereRadius", "sphereRadius", 0.2], ["timeStep", "timeStep", 0.3], ["stiffness", "stiffness", 0.6]]) {
    const before = await page.evaluate(() => window.weft.state());
    await slide(page, id, fraction);
    s = await stateWhen(page, (q) => q[control] !== before[control]);
    const want = await sliderValue(page, id), shown = await page.evaluate((i) => window.weft.panel()[i], id);
    check(near(s[control], want) && s[control] !== before[control], `${backend} compute-cloth ${id}: ${+before[control].toPrecision(4)} -> ${+s[control].toPrecision(4)} (shown ${shown})`);
  }
  const r = await page.evaluate(async () => [window.weft.drawnSphereRadius(), await window.weft.state()]);
  check(r[0] < r[1].sphereRadius && r[0] > 0.99 * r[1].sphereRadius, `${backend} the sphere drawn at ${r[0].toFixed(4)} m for a ${r[1].sphereRadius.toFixed(4)} m collider`);
  const moving = (await page.evaluate(() => window.weft.state())).sphereMoving;
  await click(page, "sphereMoving");
  s = await stateWhen(page, (q) => q.sphereMoving !== moving);
  await page.keyboard.press("KeyS");
  const back = await stateWhen(page, (q) => q.sphereMoving === moving);
  const box = await page.evaluate(() => document.getElementById("sphereMoving").checked);
  check(s.sphereMoving !== moving && back.sphereMoving === moving && box === !!moving,
    `${backend} sphere moves: the box ${moving} -> ${s.sphereMoving}, S -> ${back.sphereMoving} (the box shows ${box})`);
  check(errors.length === 0, `${backend} controls: no errors while the cloth stepped${errorText(errors)}`);
  await page.close();
}

// A phone (390 x 844 CSS pixels at 3 device pixels each, touch): the panel is a bottom sheet,
// folded at first; a tap unfolds it; the canvas has devicePixelRatio (at most 2) pixels per CSS
// pixel on either backend; the file input is there; Pause answers a tap.
async function phone(backend) {
  const viewport = { width: 390, height: 844, deviceScaleFactor: 3, isMobile: true, hasTouch: true };
  const { page, errors } = await visit(browser, root, `backend=${backend}&preset=spring-mesh`, { before: (p) => p.setViewport(viewport) });
  await clockPast(page, 0.05, 40000);
  const layout = () => page.evaluate(() => {
    const r = document.getElementById("panel").getBoundingClientRect(), c = document.getElementById("view");
    return { top: r.top, bottom: r.bottom, left: r.left, width: r.width, height: r.height, folded: document.getElementById("panel").classList.contains("collapsed"),
      canvas: [c.width, c.height, c.clientWidth], file: document.getElementById("open").getBoundingClientRect().width };
  });
  const rate = await page.waitForFunction(() => /fps/.test(document.getElementById("rate").textContent), { timeout: 30000 })
    .then(() => page.evaluate(() => document.getElementById("rate").textContent), () => "");
  const folded = await layout();
  // A finger drags the hanging cloth's middle node 60 px up (touch: the pointer events of a touch).
  const node = 28 * 56 + 28;
  const [x, y] = await page.evaluate((i) => window.weft.project(i), node);
  await page.touchscreen.touchStart(x, y);
  await page.waitForFunction(() => window.weft.grabbed(), { timeout: 10000 }).catch(() => {});
  const [grabbed, held] = await page.evaluate(() => [window.weft.grabbed(), window.weft.grabbedParticle()]);
  for (let k = 1; k <= 6; ++k) await page.touchscreen.touchMove(x, y - 10 * k);
  let nx, ny;
  for (let k = 0; k < 40; ++k) { // the steps after the last move take the node there
    [nx, ny] = await page.evaluate((i) => window.weft.project(i), held);
    if (Math.hypot(nx - x, ny - (y - 60)) < 10) break;
    await sleep(250);
  }
  await page.touchscreen.touchEnd();
  const dragged = grabbed && Math.hypot(nx - x, ny - (y - 60)) < 10;
  await page.tap("#collapse");
  await sleep(200);
  const open = await layout();
  const el = await page.$("#pause");
  await el.scrollIntoView();
  await page.tap("#pause");
  const paused = await page.evaluate(() => window.weft.paused());
  await page.tap("#pause");
  const sheet = folded.folded && !open.folded && Math.abs(open.bottom - 844) < 1 && open.left === 0 && open.width === 390 && folded.height < 70 && open.height <= 0.56 * 844;
  check(dragged, `${backend} phone: a finger on node ${node} ${grabbed ? `grabbed node ${held}` : "grabbed nothing"} and dragged it to (${nx.toFixed(0)}, ${ny.toFixed(0)}), the finger at (${x.toFixed(0)}, ${(y - 60).toFixed(0)})`);
  check(sheet && rate && open.canvas[0] === 780 && open.canvas[2] === 390 && open.file > 0 && paused && errors.length === 0,
    `${backend} phone: a bottom sheet ${folded.height.toFixed(0)} px folded (showing "${rate}"), ${open.height.toFixed(0)} px open (${open.width} wide), canvas ${open.canvas[0]} x ${open.canvas[1]} for ${open.canvas[2]} CSS px, ` +
    `file input ${open.file > 0 ? "shown" : "missing"}, Pause by tap: ${paused}${errorText(errors)}`);
  if (backend === "webgl2") {
    await page.setViewport({ ...viewport, deviceScaleFactor: 1 });
    await sleep(500);
    await page.evaluate(() => { document.getElementById("body").scrollTop = 0; });
    writeFileSync(join(outDir, "web-page-phone.png"), await page.screenshot({ type: "png" }));
  }
  await page.close();
}

// Defect 6: compute-cloth draped over the sphere (the cloth rests at the collision radius), seen
// from above: pixels of the sphere's colour (blue above red) inside the cloth over the sphere's top
// (a disc of 0.8 of its radius). Drawn at the collider's radius (?sphere=collider, as before the
// fix) the sphere shows through between the cloth's vertices; drawn by the page's rule, none.
async function speckles(backend) {
  const counts = {};
  for (const how of ["collider", "page"]) {
    const { page, errors } = await visit(browser, root, `test&backend=${backend}${how === "collider" ? "&sphere=collider" : ""}`);
    counts[how] = await page.evaluate(async () => {
      await window.weft.load("compute-cloth");
      await window.weft.stepFrames(40);
      await window.weft.setCamera([0, 5, 0.001], [0, 0, 0]);
      const image = await window.weft.capture(false);
      const bytes = Uint8Array.from(atob(image.rgba), (c) => c.charCodeAt(0));
      const [cx, cy] = window.weft.projectPoint([0, 1, 0]), [ex] = window.weft.projectPoint([0.8, 1, 0]);
      const radius = Math.abs(ex - cx), k = image.width / innerWidth;
      let inside = 0, sphere = 0;
      for (let y = 0; y < image.height; ++y)
        for (let x = 0; x < image.width; ++x) {
          if (Math.hypot(x / k - cx, y / k - cy) > radius) continue;
          const o = 4 * (y * image.width + x);
          ++inside;
          if (bytes[o + 2] > bytes[o]) ++sphere;
        }
      return [sphere, inside];
    });
    counts[how].push(errors.length);
    await page.close();
  }
  const [before, after] = [counts.collider, counts.page];
  check(before[0] > 1000 && after[0] === 0 && before[2] + after[2] === 0,
    `${backend} compute-cloth from above: ${after[0]} sphere-coloured pixels of ${after[1]} inside the cloth over the sphere (drawn at the collider's radius: ${before[0]})`);
}

// Tearing on WebGPU: scenes/tear.json runs there and tears while it steps (the core tears from the
// state read back, the page builds the solver again); R brings the untorn sheet back. A scene the
// WGSL solver cannot run (heap.json with self-collision's point-triangle pass) says that it needs
// the CPU fallback, naming the field, and its button runs it there (the page reloads on WebGL2
// with the scene).
async function tearing() {
  const { page, errors } = await visit(browser, root, "backend=webgpu");
  await clockPast(page, 0.05, 30000);
  await dropFile(page, "tear.json", readFileSync(join(repo, "scenes/tear.json")));
  const particles = () => page.evaluate(() => Number(/: (\d+) particles/.exec(document.getElementById("readout").textContent)?.[1] ?? 0));
  const torn = await page.waitForFunction(() => /: (\d+) particles/.exec(document.getElementById("readout").textContent)?.[1] > 1600, { timeout: 90000 }).then(() => true, () => false);
  const tornCount = await particles();
  await page.keyboard.press("KeyR");
  const untorn = await page.waitForFunction(() => /: 1600 particles/.test(document.getElementById("readout").textContent), { timeout: 20000 }).then(() => true, () => false);
  const t = await page.evaluate(() => window.weft.time());
  const goesOn = (await clockPast(page, t + 0.05, 30000)) !== null;
  const [gpuScene, gpuSaid] = await page.evaluate(() => [window.weft.scene(), window.weft.message()]);
  check(torn && untorn && goesOn && gpuScene === "tear.json" && gpuSaid === "" && errors.length === 0,
    `webgpu tear.json: tore while stepping (${tornCount} particles), R: ${untorn ? "1600 again" : "not restored"}, the clock ${goesOn ? "goes on" : "stopped"}${errorText(errors)}`);
  const heap = JSON.parse(readFileSync(join(repo, "scenes/heap.json"), "utf8"));
  heap.world.selfCollision.pointTriangle = true;
  await dropFile(page, "heap-point-triangle.json", Buffer.from(JSON.stringify(heap)));
  await page.waitForFunction(() => window.weft.message(), { timeout: 20000 }).catch(() => {});
  const said = await page.evaluate(() => window.weft.message());
  const all = [...errors];
  await Promise.all([page.waitForNavigation({ waitUntil: "load", timeout: 60000 }), page.click("#fallback")]);
  errors.length = 0;
  await page.waitForFunction(() => window.weft?.ready, { timeout: 60000 });
  const [backend, scene] = await page.evaluate(() => [window.weft.backend, window.weft.scene()]);
  const runs = await clockPast(page, 0.05, 60000) !== null;
  all.push(...errors);
  check(said.includes("selfCollision.pointTriangle") && said.includes("CPU fallback") && backend === "webgl2" && scene === "heap-point-triangle.json" &&
    runs && all.length === 0, `webgpu heap-point-triangle.json: "${said}"; its button: ${scene} on ${backend}, ${runs ? "runs" : "does not run"}${errorText(all)}`);
  await page.close();
}

// Every scene of scenes/ dropped on the WebGPU page while it steps (with the OBJ files it names):
// each runs or says what needs the CPU fallback; no errors.
async function dropAll() {
  const { page, errors } = await visit(browser, root, "backend=webgpu");
  await clockPast(page, 0.05, 30000);
  const ran = [], refused = [], stopped = [];
  for (const name of readdirSync(join(repo, "scenes")).filter((f) => f.endsWith(".json")).sort()) {
    const before = await page.evaluate(() => window.weft.dropped());
    await dropFile(page, name, readFileSync(join(repo, "scenes", name)), meshesOf(join(repo, "scenes", name)));
    await page.waitForFunction((b) => window.weft.dropped() > b, { timeout: 30000 }, before).catch(() => {});
    const [said, scene] = await page.evaluate(() => [window.weft.message(), window.weft.scene()]);
    if (said.includes("CPU fallback")) { refused.push(name); continue; }
    const t = await page.evaluate(() => window.weft.time());
    if (scene === name && !said && (await clockPast(page, t + 0.02, 30000)) !== null) ran.push(name);
    else stopped.push(`${name}: ${said || "the clock stopped"}`);
  }
  check(stopped.length === 0 && ran.length >= 5 && errors.length === 0,
    `webgpu drops while stepping: ${ran.length} scenes run, ${refused.length} need the CPU fallback (${refused.join(", ")})${stopped.length ? "; " + stopped.join("; ") : ""}${errorText(errors)}`);
  await page.close();
}

// The download: what a first visit fetches on each backend (bytes of the responses).
async function download(backend) {
  const { page, errors } = await visit(browser, root, `backend=${backend}`, { before: async () => served.clear() });
  await clockPast(page, 0.05, 30000);
  const total = [...served.values()].reduce((a, b) => a + b, 0);
  const list = [...served].sort((a, b) => b[1] - a[1]).map(([p, n]) => `${p} ${n}`).join(", ");
  check(total < 1000000 && ![...served.keys()].some((p) => p.includes("three")) && errors.length === 0,
    `${backend} download: ${total} bytes (${list})${errorText(errors)}`);
  if (backend === "webgl2") {
    await clockPast(page, 1.5, 30000);
    writeFileSync(join(outDir, "web-page.png"), await page.screenshot({ type: "png" }));
  }
  await page.close();
}

// WEFT_PAGE_ONLY=phone,speckles (say) runs those parts alone, WEFT_PAGE_BACKENDS=webgpu one backend.
const parts = { loading, controls, phone, speckles, tearing, dropAll, download };
const only = (process.env.WEFT_PAGE_ONLY ?? Object.keys(parts).join(",")).split(",");
const backends = (process.env.WEFT_PAGE_BACKENDS ?? "webgl2,webgpu").split(",");
try {
  for (const name of Object.keys(parts).filter((n) => only.includes(n))) {
    if (parts[name].length === 0) await timed(parts[name]);
    else for (const backend of backends) await timed(() => parts[name](backend));
  }
} finally {
  await browser.close();
  server.close();
}
console.log(`${failed() === 0 ? "all passed" : `${failed()} failed`}`);
process.exit(failed() > 0 ? 1 : 0);
