// The page in headless Chromium (Debian's, driven by puppeteer-core): it loads with no console
// error, runs each preset 120 frames on the wasm CPU solver drawn by WebGL2 and on the WGSL solver
// drawn by WebGPU (SwiftShader), its positions equal the native scalar solver's bit for bit on
// both, the picture changes as the cloth moves, a scripted drag moves the dragged node to the
// cursor, Space pauses and R restores the first frame (on both backends); without WebGPU the page
// falls back to WebGL2, without either it says so.
// Why bit for bit on WebGPU too: SwiftShader, like lavapipe natively (tests/test_vulkan.c), does
// IEEE float arithmetic with correctly rounded sqrt and division, the WGSL kernels perform the CPU
// solver's operations in its order (no contraction), and the order inside a colour cannot matter
// (its constraints share no particle). On another adapter (a hardware GPU rounds sqrt and division
// differently in the last bits) the bound would be the native tests' 1e-4 x cloth size.
// Every bad scene of the CLI tests dropped on the page shows the message the weft command prints.
//   node page_test.mjs SITE_DIR NATIVE_POSITIONS_BINARY WEFT_CLI OUT_DIR
import { readFileSync, mkdirSync, writeFileSync, readdirSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join, resolve } from "node:path";
import { repo, serve, launch, check, failed, sleep, errorText, visit as visitPage, clockPast, pickOption, dropFile } from "./harness.mjs";

const [siteDir, nativeBin, cliBin, outDir] = process.argv.slice(2).map((p) => resolve(p));
// A file of float32 values. (A small file's Buffer may sit in Node's shared pool: its .buffer is
// the pool's 8 KiB, not the file.)
const readF32 = (path) => { const b = readFileSync(path); return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length)); };
// What the native side runs for a picker entry: a preset, or the scene file the page ships.
const nativeSource = (preset) => (preset === "flag" ? join(repo, "scenes/flag.json") : preset);
mkdirSync(outDir, { recursive: true });
const FRAMES = 120;
const { server, root } = await serve(siteDir);
const base = `${root}?test`;
const browser = await launch();
// A picture of the page: a screenshot (WebGL2), or read inside the page (WebGPU: page screenshots
// of a WebGPU canvas come out blank), as PNG bytes.
async function picture(page, backend) {
  if (backend === "webgl2") return await page.screenshot({ type: "png" });
  return Buffer.from(await page.evaluate(async () => (await window.weft.capture()).png), "base64");
}

// Every check of the page on one backend.
async function runBackend(backend) {
  const page = await browser.newPage();
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`${base}&backend=${backend}`, { waitUntil: "load" });
  await page.waitForFunction(() => window.weft && (window.weft.ready || window.weft.error), { timeout: 60000 });
  const [error, got, adapter] = await page.evaluate(() => [window.weft.error ?? null, window.weft.backend, window.weft.adapter]);
  check(error === null && got === backend, `${backend}: page ready (${error ?? (backend === "webgpu" ? `WebGPU, WGSL solver, adapter ${adapter}` : "WebGL2, wasm core")})`);
  if (error !== null) return;
  const solverName = backend === "webgpu" ? "WGSL solver on SwiftShader" : "wasm solver";

  for (const preset of ["xpbd", "compute-cloth", "spring-mesh", "flag"]) {
    const n = await page.evaluate((p) => window.weft.load(p), preset);
    const before = await picture(page, backend);
    const t0 = Date.now();
    await page.evaluate((f) => window.weft.stepFrames(f), FRAMES);
    const ms = (Date.now() - t0) / FRAMES;
    const after = await picture(page, backend);
    if (preset === "xpbd") writeFileSync(join(outDir, `page_${backend}.png`), after);
    const got = new Float32Array(await page.evaluate(() => window.weft.positions()));
    const file = join(outDir, `${preset}.f32`);
    execFileSync(nativeBin, [nativeSource(preset), String(FRAMES), file]);
    const all = readF32(file);
    const want = all.subarray(3 * n * (FRAMES - 1));
    let differ = got.length === want.length ? 0 : -1, worst = 0;
    for (let i = 0; differ >= 0 && i < want.length; ++i) {
      if (!Object.is(got[i], want[i])) differ++;
      worst = Math.max(worst, Math.abs(got[i] - want[i]));
    }
    check(differ === 0, `${backend} ${preset}: ${n} particles, ${FRAMES} frames in the page (${ms.toFixed(1)} ms/frame incl. drawing), ` +
      (differ === 0 ? `${solverName}: positions bit-identical to the native scalar solver` : `${differ} coordinates differ from the native scalar solver's, by up to ${worst} m`));
    check(!before.equals(after), `${backend} ${preset}: the picture after ${FRAMES} frames differs from the first`);
  }

  // The third document's own view (nodes by speed, constraint lines by signed strain) and the cloth's
  // colour modes draw without error and each gives another picture.
  await page.evaluate(async () => { await window.weft.load("spring-mesh"); await window.weft.stepFrames(30); });
  const shots = [];
  for (const [view, colour] of [["cloth", "texture"], ["cloth", "speed"], ["cloth", "strain"], ["nodes", "texture"], ["both", "strain"]]) {
    await page.evaluate((v, c) => window.weft.setView(v, c), view, colour);
    shots.push(await picture(page, backend));
    if (view === "both") writeFileSync(join(outDir, `page_nodes_${backend}.png`), shots[shots.length - 1]);
  }
  const distinct = new Set(shots.map((b) => b.toString("base64"))).size;
  check(distinct === shots.length, `${backend} views and colour modes: ${distinct} distinct pictures of ${shots.length}`);
  await page.evaluate(() => window.weft.setView("cloth", "texture"));

  // A scripted drag: grab the xpbd cloth's middle node, pull the pointer 80 px up; the node follows.
  await page.evaluate(() => window.weft.load("xpbd"));
  await page.evaluate(() => window.weft.stepFrames(30));
  const node = 24 * 48 + 24;
  const [x, y] = await page.evaluate((i) => window.weft.project(i), node);
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.waitForFunction(() => window.weft.grabbed(), { timeout: 10000 }).catch(() => {});
  const grabbed = await page.evaluate(() => window.weft.grabbed());
  await page.mouse.move(x, y - 80, { steps: 8 });
  await page.evaluate(() => window.weft.stepFrames(20));
  const [nx, ny] = await page.evaluate((i) => window.weft.project(i), node);
  await page.mouse.up();
  check(grabbed && Math.hypot(nx - x, ny - (y - 80)) < 6, `${backend} drag: node ${node} followed the pointer to (${nx.toFixed(0)}, ${ny.toFixed(0)}), cursor at (${x.toFixed(0)}, ${(y - 80).toFixed(0)})`);

  // Space pauses (stepping changes nothing), again resumes; R restores the first frame.
  await page.waitForFunction(() => !window.weft.grabbed(), { timeout: 10000 }).catch(() => {});
  await page.keyboard.press("Space");
  const p0 = await page.evaluate(() => window.weft.positions());
  await page.evaluate(() => window.weft.stepFrames(10));
  const p1 = await page.evaluate(() => window.weft.positions());
  check(await page.evaluate(() => window.weft.paused()) && JSON.stringify(p0) === JSON.stringify(p1), `${backend} Space: paused, stepping does not move the cloth`);
  await page.keyboard.press("Space");
  await page.evaluate(() => window.weft.stepFrames(10));
  const p2 = await page.evaluate(() => window.weft.positions());
  check(JSON.stringify(p2) !== JSON.stringify(p1), `${backend} Space again: the cloth moves`);
  await page.keyboard.press("KeyR");
  const [now, first] = await page.evaluate(async () => [await window.weft.positions(), window.weft.firstFrame()]);
  check(JSON.stringify(now) === JSON.stringify(first), `${backend} R: the first frame restored`);

  // Scene files dropped on the page: a good one runs (the flag, bit for bit as above), every bad
  // scene of the CLI tests shows what `weft run --scene FILE` prints and keeps the running cloth.
  const drop = (name, bytes) => page.evaluate(async (n, b64) => {
    const bin = atob(b64), bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; ++i) bytes[i] = bin.charCodeAt(i);
    const dt = new DataTransfer(), before = window.weft.dropped();
    dt.items.add(new File([bytes], n, { type: "application/json" }));
    window.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
    for (let k = 0; k < 1000 && window.weft.dropped() === before; ++k) await new Promise((ok) => setTimeout(ok, 10));
    return [window.weft.message(), window.weft.scene()];
  }, name, bytes.toString("base64"));
  const [flagMessage, flagScene] = await drop("flag.json", readFileSync(join(repo, "scenes/flag.json")));
  check(flagMessage === "" && flagScene === "flag.json", `${backend} drop: flag.json runs on the page (${flagMessage || "no message"})`);
  // The tile order (step.order "tiles"): the page relaxes the model's solve ranges as the native
  // CPU does, bit for bit; the colour order gives other bits (so the order was not ignored).
  const tileScene = (order) => JSON.stringify({ preset: "xpbd", world: { step: { order } }, cloth: { cols: 70, rows: 40 } });
  for (const order of ["tiles", "colors"]) writeFileSync(join(outDir, `${order}.json`), tileScene(order));
  const [tileMessage] = await drop("tiles.json", Buffer.from(tileScene("tiles")));
  await page.evaluate(() => window.weft.stepFrames(40));
  const tiled = new Float32Array(await page.evaluate(() => window.weft.positions()));
  const lastFrame = (order) => {
    execFileSync(nativeBin, [join(outDir, `${order}.json`), "40", join(outDir, `${order}.f32`)], { stdio: "ignore" });
    return readF32(join(outDir, `${order}.f32`)).subarray(-tiled.length);
  };
  const tilesWant = lastFrame("tiles"), coloursWant = lastFrame("colors");
  const bitsEqual = (a, b) => a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
  check(tileMessage === "" && bitsEqual(tiled, tilesWant) && !bitsEqual(tiled, coloursWant),
    `${backend} drop tiles.json: 70 x 40 in the tile order, 40 frames: ${bitsEqual(tiled, tilesWant) ? "bit-identical to the native tile order" : "differs from the native tile order"}, ` +
    `${bitsEqual(tiled, coloursWant) ? "the same as" : "other bits than"} the colour order (${tileMessage || "no message"})`);
  // Scenes on the page as natively (the same positions, the same counts of discarded and
  // tunnelled frames): a cloth that blows up every frame is restored every frame; one whose springs
  // gain energy while every particle stays under maxSpeed is caught by the energy rule (its exact
  // test runs on the state read back); a sphere swept through a sheet at up to 630 m/s passes through
  // particles between two frames, which is counted as tunnelled.
  writeFileSync(join(outDir, "energy.json"), JSON.stringify({
    world: { step: { solver: "springs", timeStep: 0.0166, substeps: 10, iterations: 1 } },
    cloth: { cols: 8, rows: 8, orientation: "vertical", pinMode: "top-corners", material: { mass: 0.001, stiffness: 300, springDamping: 0 } } }));
  writeFileSync(join(outDir, "swept.json"), JSON.stringify({
    world: { step: { solver: "xpbd", timeStep: 0.0166, substeps: 4, iterations: 2 }, floor: { enabled: false },
      sphere: { enabled: true, center: [0, 0.5, 0], radius: 0.3, moving: true, amplitude: [0, 0, 10], frequency: 10 } },
    cloth: { cols: 16, rows: 16, width: 2, height: 2, orientation: "vertical", pinMode: "top-corners" } }));
  const flagTethers = JSON.parse(readFileSync(join(repo, "scenes/flag-tethers.json"), "utf8"));
  flagTethers.world.step = { solver: "springs", timeStep: 1 / 60, substeps: 40, iterations: 1 };
  writeFileSync(join(outDir, "springs-tethers.json"), JSON.stringify(flagTethers));
  // Self-collision (heap.json: a sheet dropped in folds on the floor, XPBD; the springs flag with
  // tethers, whose dispatch takes the grid's keys, and the springs' own move, its neighbours 5 cm
  // apart within the 6 cm contact distance and not excluded: pushes from the first substep): the
  // WGSL solver's grid, scan, gather and moves as the core lists them (wfw_gpu_ops), as native.
  flagTethers.world.selfCollision = { enabled: true, thickness: 0.03, friction: 0.3, exclusion: 0.5 };
  writeFileSync(join(outDir, "springs-tethers-self.json"), JSON.stringify(flagTethers));
  // heap.json at the default thickness (0: half the cloth's mean rest edge, resolved by the core).
  const heapDefault = JSON.parse(readFileSync(join(repo, "scenes/heap.json"), "utf8"));
  heapDefault.world.selfCollision.thickness = 0;
  writeFileSync(join(outDir, "heap-default-thickness.json"), JSON.stringify(heapDefault));
  const frameCheck = [["energy.json", join(outDir, "energy.json"), 3, (c) => c[0] === 0 && c[1] === 3 && c[3] === 0],
    ["swept.json", join(outDir, "swept.json"), 6, (c) => c[0] + c[1] === 0 && c[3] >= 1],
    // Colliders (a table's box and a bowl's sphere, the frame's shape records): WGSL as native.
    ["tablecloth.json", join(repo, "scenes/tablecloth.json"), 40, (c) => c.every((v) => v === 0)],
    // Tethers (a flag's long-range limits to its pole), and on the springs (the outward velocity removed too).
    ["flag-tethers.json", join(repo, "scenes/flag-tethers.json"), 40, (c) => c.every((v) => v === 0)],
    ["springs-tethers.json", join(outDir, "springs-tethers.json"), 20, (c) => c[0] + c[1] === 0],
    ["heap.json", join(repo, "scenes/heap.json"), 40, (c) => c.every((v) => v === 0)],
    ["springs-tethers-self.json", join(outDir, "springs-tethers-self.json"), 10, (c) => c[0] + c[1] === 0],
    ["heap-default-thickness.json", join(outDir, "heap-default-thickness.json"), 40, (c) => c[0] + c[1] === 0],
    // Drag and lift (a cape on a walking body: colliders, tethers and aerodynamics together).
    ["cape.json", join(repo, "scenes/cape.json"), 30, (c) => c[0] + c[1] === 0],
    // Tearing (a keyframed sphere driven through a sheet): torn by the core from the state read back.
    ["tear.json", join(repo, "scenes/tear.json"), 45, (c, n) => c.every((v) => v === 0) && n > 1600],
    ["explodes.json", join(repo, "tests/cli/good/explodes.json"), 10, (c) => c[0] + c[1] === 10]]; // last: it runs on below
  for (const [name, file, frames, expected] of frameCheck) {
    const [said] = await drop(name, readFileSync(file));
    await page.evaluate((f) => window.weft.stepFrames(f), frames);
    const got = new Float32Array(await page.evaluate(() => window.weft.positions()));
    const counts = await page.evaluate(() => window.weft.warnings());
    const nativeCounts = execFileSync(nativeBin, [file, String(frames), join(outDir, "check.f32")], { stdio: ["ignore", "pipe", "ignore"] }).toString().trim().split(" ").map(Number);
    const want = readF32(join(outDir, "check.f32")).subarray(-got.length);
    let same = want.length === got.length && got.every((v, i) => Object.is(v, want[i]));
    // Self-collision scenes: their contacts moved the cloth (natively without it, other bits).
    let self = "";
    if (name.includes("heap") || name.includes("self")) {
      const scene = JSON.parse(readFileSync(file, "utf8"));
      scene.world.selfCollision.enabled = false;
      writeFileSync(join(outDir, "self-off.json"), JSON.stringify(scene));
      execFileSync(nativeBin, [join(outDir, "self-off.json"), String(frames), join(outDir, "self-off.f32")], { stdio: "ignore" });
      const off = readF32(join(outDir, "self-off.f32")).subarray(-got.length);
      const moved = off.some((v, i) => !Object.is(v, want[i]));
      self = moved ? ", self-collision moved the cloth (other bits without it)" : ", FAILED: the same bits without self-collision";
      if (!moved) same = false;
    }
    check(said === "" && same && JSON.stringify(counts) === JSON.stringify(nativeCounts) && expected(counts, got.length / 3),
      `${backend} ${name}, ${frames} frames: ${got.length / 3} particles, [non-finite, unstable, in contact, tunnelled] ${JSON.stringify(counts)} (native ${JSON.stringify(nativeCounts)}), positions ${same ? "bit-identical" : "differ"}${self}${said ? `; ${said}` : ""}`);
  }
  // What the WGSL solver does not have (self-collision's continuous passes, drag and lift on the
  // springs) is said on WebGPU, naming the field, and the running cloth stays; the wasm solver
  // (WebGL2) runs those scenes.
  const springsCape = JSON.parse(readFileSync(join(repo, "scenes/cape.json"), "utf8"));
  springsCape.world.step = { solver: "springs", timeStep: 1 / 60, substeps: 40, iterations: 1 };
  writeFileSync(join(outDir, "springs-cape.json"), JSON.stringify(springsCape));
  const heapPasses = JSON.parse(readFileSync(join(repo, "scenes/heap.json"), "utf8"));
  heapPasses.world.selfCollision.pointTriangle = true;
  writeFileSync(join(outDir, "heap-point-triangle.json"), JSON.stringify(heapPasses));
  for (const [name, field] of [["springs-cape.json", "aerodynamics"], ["heap-point-triangle.json", "selfCollision.pointTriangle"]]) {
    const [said, running] = await drop(name, readFileSync(join(outDir, name)));
    const ok = backend === "webgpu" ? said.includes("WGSL") && said.includes("has no") && said.includes(field) && running === "explodes.json"
      : said === "" && running === name;
    check(ok, `${backend} drop ${name}: ${said || "runs"}`);
    if (backend === "webgl2") await drop("explodes.json", readFileSync(join(repo, "tests/cli/good/explodes.json")));
  }
  const badDir = join(repo, "tests/cli/bad");
  let same = 0, cases = 0;
  for (const name of readdirSync(badDir).filter((f) => f.endsWith(".json")).sort()) {
    let cli = "";
    try { execFileSync(cliBin, ["run", "--scene", name, "--frames", "1", "--backend", "cpu"], { cwd: badDir, stdio: "pipe" }); }
    catch (e) { cli = e.stderr.toString().trim().split("\n").filter((l) => !l.includes("warning")).join("\n"); }
    if (cli === "") continue; // the command accepts it (a scene that is only bad for another backend)
    ++cases;
    const [shown] = await drop(name, readFileSync(join(badDir, name)));
    if (shown === cli) ++same;
    else console.log(`  ${name}:\n    weft: ${cli}\n    page: ${shown}`);
  }
  check(cases > 30 && same === cases, `${backend} drop: ${same} of ${cases} bad scenes show the weft command's message`);
  check(await page.evaluate(() => window.weft.scene()) === "explodes.json", `${backend} drop: after the bad scenes the cloth that ran before still runs`);
  check(errors.length === 0, `${backend}: no console error${errors.length ? ": " + errors.join(" | ") : ""}`);
  await page.close();

  // Without ?test the page runs itself: the display loop's fixed-step accumulator advances the
  // clock (at most 4 steps of 1/60 s per display frame), and the read-out says so.
  const live = await browser.newPage();
  const liveErrors = [];
  live.on("console", (m) => { if (m.type() === "error") liveErrors.push(m.text()); });
  live.on("pageerror", (e) => liveErrors.push(String(e)));
  await live.goto(base.replace("?test", `?backend=${backend}`), { waitUntil: "load" });
  await live.waitForFunction(() => window.weft && (window.weft.ready || window.weft.error), { timeout: 60000 });
  const ran = await live.waitForFunction(() => window.weft.time() >= 0.25, { timeout: 30000 }).then(() => true, () => false);
  const [t, readout] = await live.evaluate(() => [window.weft.time(), document.getElementById("readout").textContent]);
  const says = readout.includes(backend === "webgpu" ? "backend WebGPU" : "backend wasm CPU solver") && readout.includes("2304 particles");
  check(ran && says && liveErrors.length === 0, `${backend} live: the clock ran to ${t.toFixed(3)} s by itself; read-out "${readout.split("\n").slice(0, 3).join(" / ")}"${liveErrors.length ? "; errors: " + liveErrors.join(" | ") : ""}`);
  await live.close();
}

// The page as a visitor uses it: no ?test, so the display loop steps the cloth while real pointer
// and keyboard events pause it, pick presets, switch the backend and drop scenes; each page counts
// its console errors and uncaught exceptions, which must be none.
const visit = (query) => visitPage(browser, root, query);
// Each preset's solver, as the read-out names it.
const solverOf = { xpbd: "xpbd:", "compute-cloth": "springs:", "spring-mesh": "jacobi:" };
const readout = (page) => page.evaluate(() => document.getElementById("readout").textContent);

async function visitorTests() {
  // Issue 32.1: WebGPU, spring-mesh running, Space, 3 s, Space: the next step comes as quickly as
  // any (paused frames queued ~84 draws ahead of it: about 12 s of no step and no picture).
  {
    const began = Date.now();
    const { page, errors } = await visit("backend=webgpu&preset=spring-mesh");
    await clockPast(page, 0.1);
    await page.keyboard.press("Space");
    await sleep(3000);
    const t = await page.evaluate(() => window.weft.time());
    const t0 = Date.now();
    await page.keyboard.press("Space");
    const resumed = await clockPast(page, t, 30000);
    const ms = Date.now() - t0;
    check(resumed !== null && ms < 3000 && errors.length === 0,
      `visitor webgpu spring-mesh: Space, 3 s, Space: the clock moves again after ${ms} ms (at most 3000)${errorText(errors)}`);
    await page.close();
    console.log(`  (${((Date.now() - began) / 1000).toFixed(1)} s)`);
  }

  // Issue 32.2: WebGPU, preset switches with the picker and a dropped scene while the cloth steps:
  // each runs, and not one error (a load destroyed the solver under the frame that awaited it).
  {
    const began = Date.now();
    const { page, errors } = await visit("backend=webgpu");
    await clockPast(page, 0.1);
    const ran = [];
    for (const preset of ["compute-cloth", "spring-mesh", "xpbd"]) {
      await pickOption(page, "preset", preset);
      await page.waitForFunction((p) => document.getElementById("readout").textContent.includes(p), { timeout: 20000 }, solverOf[preset]).catch(() => {});
      await sleep(300);
      const t = await page.evaluate(() => window.weft.time());
      ran.push(`${preset} ${(await clockPast(page, t + 0.05)) !== null ? "runs" : "stopped"}`);
    }
    await dropFile(page, "flag.json", readFileSync(join(repo, "scenes/flag.json")));
    await page.waitForFunction(() => window.weft.scene() === "flag.json", { timeout: 20000 }).catch(() => {});
    const t = await page.evaluate(() => window.weft.time());
    ran.push(`flag.json ${(await clockPast(page, t + 0.05)) !== null ? "runs" : "stopped"}`);
    check(ran.every((r) => r.endsWith("runs")) && errors.length === 0, `visitor webgpu: picked while stepping: ${ran.join(", ")}${errorText(errors)}`);
    await page.close();
    console.log(`  (${((Date.now() - began) / 1000).toFixed(1)} s)`);
  }

  // Issue 32.3: WebGL2, scenes/tear.json: the sheet tears (more particles) and the picture goes on.
  {
    const began = Date.now();
    const { page, errors } = await visit("backend=webgl2");
    await dropFile(page, "tear.json", readFileSync(join(repo, "scenes/tear.json")));
    await page.waitForFunction(() => window.weft.scene() === "tear.json", { timeout: 20000 }).catch(() => {});
    const torn = await page.waitForFunction(() => /: (\d+) particles/.exec(document.getElementById("readout").textContent)?.[1] > 1600, { timeout: 60000 }).then(() => true, () => false);
    const a = await page.screenshot({ type: "png" });
    const t = await page.evaluate(() => window.weft.time());
    await clockPast(page, t + 0.2);
    const b = await page.screenshot({ type: "png" });
    const n = /: (\d+) particles/.exec(await readout(page))?.[1];
    check(torn && !a.equals(b) && errors.length === 0, `visitor webgl2 tear.json: torn (${n} particles, 1600 before), the picture still changes: ${!a.equals(b)}${errorText(errors)}`);
    await page.close();
    console.log(`  (${((Date.now() - began) / 1000).toFixed(1)} s)`);
  }

  // Issue 32.4: a preset picked with the mouse, then S: the shortcut (sphere motion), not the
  // picker's type-ahead (which loaded spring-mesh); a control reached with Tab keeps its keys.
  {
    const began = Date.now();
    const { page, errors } = await visit("backend=webgl2");
    await pickOption(page, "preset", "compute-cloth");
    await page.waitForFunction(() => window.weft.sphereMoving !== undefined, { timeout: 5000 }).catch(() => {});
    const before = await page.evaluate(() => window.weft.sphereMoving?.());
    await page.keyboard.press("KeyS");
    await sleep(500);
    const [picked, after, text] = await page.evaluate(() => [document.getElementById("preset").value, window.weft.sphereMoving?.(), document.getElementById("readout").textContent]);
    const still = picked === "compute-cloth" && text.includes(solverOf["compute-cloth"]);
    check(still && typeof before === "boolean" && after === !before && errors.length === 0,
      `visitor webgl2: compute-cloth picked with the mouse, S: the picker shows ${picked}, ${text.split("\n").find((l) => l.includes("particles"))}, sphere moving ${before} -> ${after}${errorText(errors)}`);
    // Tab to the wireframe box: Space ticks it and does not pause.
    await page.focus("#wireframe");
    await page.keyboard.press("Space");
    const [ticked, paused] = await page.evaluate(() => [document.getElementById("wireframe").checked, window.weft.paused()]);
    check(ticked && !paused, `visitor webgl2: Space on the focused wireframe box ticks it (${ticked}) and does not pause (${paused})`);
    await page.close();
    console.log(`  (${((Date.now() - began) / 1000).toFixed(1)} s)`);
  }

  // Issue 32.5: the picker shows ?preset= and a dropped scene; the backend switch keeps either.
  {
    const began = Date.now();
    const { page, errors } = await visit("backend=webgl2&preset=spring-mesh");
    const all = [], said = [];
    const picked = () => page.evaluate(() => { const s = document.getElementById("preset"); return [s.value, s.options[s.selectedIndex].textContent]; });
    const switchTo = async (backend) => {
      all.push(...errors);
      await Promise.all([page.waitForNavigation({ waitUntil: "load", timeout: 60000 }), pickOption(page, "backend", backend)]);
      errors.length = 0;
      await page.waitForFunction(() => window.weft && (window.weft.ready || window.weft.error), { timeout: 60000 });
    };
    said.push(`?preset=spring-mesh shows ${(await picked())[0]}`);
    let ok = (await picked())[0] === "spring-mesh";
    await pickOption(page, "preset", "compute-cloth");
    await page.waitForFunction((s) => document.getElementById("readout").textContent.includes(s), { timeout: 20000 }, solverOf["compute-cloth"]).catch(() => {});
    await switchTo("webgpu");
    let [backend, value] = [await page.evaluate(() => window.weft.backend), (await picked())[0]];
    ok &&= backend === "webgpu" && value === "compute-cloth" && (await readout(page)).includes(solverOf["compute-cloth"]);
    said.push(`compute-cloth picked, switched to ${backend}: the picker shows ${value}`);
    await dropFile(page, "flag.json", readFileSync(join(repo, "scenes/flag.json")));
    await page.waitForFunction(() => window.weft.scene() === "flag.json", { timeout: 20000 }).catch(() => {});
    const shown = (await picked())[1];
    ok &&= shown.includes("flag.json");
    said.push(`flag.json dropped: "${shown}"`);
    await switchTo("webgl2");
    const [back, scene] = await page.evaluate(() => [window.weft.backend, window.weft.scene()]);
    ok &&= back === "webgl2" && scene === "flag.json" && (await picked())[1].includes("flag.json");
    said.push(`switched to ${back}: running ${scene || "a preset"}, shown "${(await picked())[1]}"`);
    all.push(...errors);
    check(ok && all.length === 0, `visitor: ${said.join("; ")}${errorText(all)}`);
    await page.close();
    console.log(`  (${((Date.now() - began) / 1000).toFixed(1)} s)`);
  }

  // Issue 32.7: every scene of scenes/ ships with the site and runs on WebGL2 picked from the
  // picker (the skirt with the OBJ it names; ?test, so that each steps two frames and no more);
  // skirt.json opened with the file input together with its OBJ runs; dropped alone it says what
  // the weft command says of a missing file.
  {
    const began = Date.now();
    const { page, errors } = await visit("test&backend=webgl2");
    const scenes = readdirSync(join(repo, "scenes")).filter((f) => f.endsWith(".json")).sort();
    const stopped = [];
    for (const name of scenes) {
      await pickOption(page, "preset", name);
      await page.waitForFunction((n) => window.weft.scene() === n || window.weft.message(), { timeout: 20000 }, name).catch(() => {});
      const said = await page.evaluate(() => window.weft.message());
      const t = await page.evaluate(() => window.weft.stepFrames(2));
      if (said || !(t > 0)) stopped.push(`${name}: ${said || "the clock stopped"}`);
    }
    check(scenes.length > 10 && stopped.length === 0 && errors.length === 0,
      `visitor webgl2: ${scenes.length - stopped.length} of ${scenes.length} scenes of scenes/ picked from the picker run${stopped.length ? ": " + stopped.join("; ") : ""}${errorText(errors)}`);
    await pickOption(page, "preset", "xpbd");
    const input = await page.$("#open");
    await input.uploadFile(join(repo, "scenes/skirt.json"), join(repo, "scenes/meshes/skirt.obj"));
    await page.waitForFunction(() => window.weft.scene() === "skirt.json" || window.weft.message(), { timeout: 20000 }).catch(() => {});
    const [opened, openedSaid] = await page.evaluate(() => [window.weft.scene(), window.weft.message()]);
    await pickOption(page, "preset", "xpbd");
    await dropFile(page, "skirt.json", readFileSync(join(repo, "scenes/skirt.json")));
    await page.waitForFunction(() => window.weft.message(), { timeout: 20000 }).catch(() => {});
    const alone = await page.evaluate(() => window.weft.message());
    const want = "weft: skirt.json: cloth.mesh: meshes/skirt.obj: cannot open: No such file or directory";
    check(opened === "skirt.json" && openedSaid === "" && alone === want && errors.length === 0,
      `visitor webgl2: skirt.json and skirt.obj from the file input: ${opened || openedSaid}; skirt.json dropped alone: "${alone}"${errorText(errors)}`);
    await page.close();
    console.log(`  (${((Date.now() - began) / 1000).toFixed(1)} s)`);
  }
}

try {
  // WEFT_PAGE_BACKENDS=webgl2 (or webgpu) runs one of them, when working on the page;
  // WEFT_PAGE_VISITOR=only runs the visitor's checks alone.
  if (process.env.WEFT_PAGE_VISITOR !== "only")
    for (const backend of (process.env.WEFT_PAGE_BACKENDS ?? "webgl2,webgpu").split(",")) await runBackend(backend);
  await visitorTests();

  // A browser without WebGPU falls back to WebGL2 by itself.
  const plain = await browser.newPage();
  await plain.evaluateOnNewDocument(() => { delete Navigator.prototype.gpu; });
  await plain.goto(base, { waitUntil: "load" });
  await plain.waitForFunction(() => window.weft && (window.weft.ready || window.weft.error), { timeout: 60000 });
  const fallback = await plain.evaluate(() => window.weft.backend ?? window.weft.error);
  check(fallback === "webgl2", `without WebGPU the page runs on ${fallback}`);

  // A browser without WebGL2 gets a message, not a blank page.
  const bare = await browser.newPage();
  await bare.evaluateOnNewDocument(() => {
    delete Navigator.prototype.gpu;
    const get = HTMLCanvasElement.prototype.getContext;
    HTMLCanvasElement.prototype.getContext = function (kind, ...rest) { return kind === "webgl2" ? null : get.call(this, kind, ...rest); };
  });
  await bare.goto(base, { waitUntil: "load" });
  await bare.waitForFunction(() => window.weft && window.weft.error, { timeout: 30000 });
  const shown = await bare.evaluate(() => [getComputedStyle(document.getElementById("message")).display, document.getElementById("message").textContent]);
  check(shown[0] !== "none" && shown[1].includes("WebGL2"), `without WebGPU and WebGL2: "${shown[1]}"`);
} finally {
  await browser.close();
  server.close();
}
process.exit(failed() > 0 ? 1 : 0);
