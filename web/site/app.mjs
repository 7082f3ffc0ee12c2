// The page: a preset stepped on WebGPU by the WGSL kernels (weft_gpu.mjs) and drawn from the same
// GPU buffers (gpu_draw.mjs), or, where the browser has no WebGPU, by the wasm core (the CPU
// solver, the native scalar bits) and drawn by three.js on WebGL2 from the positions it hands out.
// `?backend=webgpu` or `?backend=webgl2` forces either (the panel's switch reloads with it).
// Fixed-step accumulator as in weft-view: simulated time advances one def time step per frame of
// the preset, at most 4 steps per display frame. `?test` leaves stepping to window.weft (the
// browser tests drive it).
// One thing at a time touches the solver (`exclusive`): a display frame, a load, a read-back for
// picking, a reset, the tests' calls. A load therefore never destroys a solver or a drawing that a
// frame still awaits. A picture is drawn only when something changed (a step, the camera, the
// view, the size), and on WebGPU the next frame waits until the GPU has finished the last one, so
// no work queues up ahead of the GPU (a paused page submitted a draw per display frame, and the
// next step waited behind all of them).
import { PerspectiveCamera, Vector2, Vector3, Raycaster, Plane, Box3, BufferAttribute } from "three";
import { OrbitControls } from "three/addons/controls/OrbitControls.js";
import { loadWeft, PIN_MODES } from "../weft_core.mjs";
import { createGpuSolver, KERNELS } from "../weft_gpu.mjs";
import { createGpuDraw } from "./gpu_draw.mjs";

const params = new URLSearchParams(location.search);
const testMode = params.has("test");
const $ = (id) => document.getElementById(id);

function fail(text) {
  const m = $("message");
  m.textContent = text;
  m.style.display = "block";
  status("");
  window.weft = { ready: false, error: text };
}
// The loading state: what the page waits for, in the panel's header and over the page, until the
// solver exists (the controls stay disabled until then).
function status(text) {
  $("status").textContent = text;
  if (!window.weft?.ready && text) { $("message").textContent = text; $("message").style.display = "block"; }
}
// The panel folds to its header (on a phone it starts folded: a bottom sheet over the cloth).
function fold(folded) {
  $("panel").classList.toggle("collapsed", folded);
  $("collapse").textContent = folded ? "▴" : "▾";
  $("collapse").setAttribute("aria-expanded", String(!folded));
  $("collapse").title = folded ? "Show the controls" : "Hide the controls";
}
fold(matchMedia("(max-width: 640px)").matches);
$("collapse").addEventListener("click", () => fold(!$("panel").classList.contains("collapsed")));

// The backend: WebGPU when the browser offers an adapter (unless ?backend=webgl2), else WebGL2.
const canvas = $("view");
const asked = params.get("backend");
let device = null, adapterName = "";
status("Initializing…");
if (asked !== "webgl2" && navigator.gpu) {
  const adapter = await navigator.gpu.requestAdapter();
  if (adapter) {
    const limits = {};
    for (const k of ["maxStorageBuffersPerShaderStage"]) limits[k] = adapter.limits[k];
    device = await adapter.requestDevice({ requiredLimits: limits });
    const i = adapter.info ?? {};
    adapterName = [i.vendor, i.architecture, i.description].filter((t) => t).join(" ") || "unknown adapter";
    device.lost.then((e) => { if (e.reason !== "destroyed") fail(`The WebGPU device was lost: ${e.message}`); });
    device.addEventListener("uncapturederror", (e) => console.error(`WebGPU: ${e.error.message}`));
  }
}
if (asked === "webgpu" && device === null) {
  fail("WebGPU was asked for (?backend=webgpu), but this browser does not offer it.");
  throw new Error("no WebGPU");
}
const gpu = device !== null;
const gl = gpu ? null : canvas.getContext("webgl2", { antialias: true, preserveDrawingBuffer: true });
if (!gpu && gl === null) {
  fail("This page needs WebGPU or WebGL2, and this browser offers neither.");
  throw new Error("no WebGL2");
}
$("backend").value = gpu ? "webgpu" : "webgl2";

status("Loading the solver (weft.wasm)…");
const weft = await loadWeft(await (await fetch("./weft.wasm")).arrayBuffer());
// The GPU kernels in WGSL, as the build generates them from the Vulkan backend's (site's wgsl/):
// each fetched once, when a solver first dispatches it (self-collision's only for such a scene).
const wgslTexts = new Map();
function wgsl(k) {
  if (!KERNELS.includes(k)) return Promise.reject(new Error(`no WGSL kernel ${k} on the page`));
  if (!wgslTexts.has(k))
    wgslTexts.set(k, fetch(`./wgsl/${k}.wgsl`).then((r) => {
      if (!r.ok) throw new Error(`wgsl/${k}.wgsl: ${r.status} (the site was built without the WGSL kernels)`);
      return r.text();
    }));
  return wgslTexts.get(k);
}
status(gpu ? "Initializing the WebGPU solver…" : "Initializing the CPU solver (wasm)…");
// WebGL2: three.js draws the cloth (gl_draw.mjs, loaded only then: the WebGPU page does without
// three.js' renderer, its materials and shaders).
const glDraw = gpu ? null : (await import("./gl_draw.mjs")).createGlDraw(canvas, gl);
const camera = new PerspectiveCamera(45, 1, 0.01, 200);
const controls = new OrbitControls(camera, canvas);
controls.enableDamping = false;

let cloth = null, firstFrame = null, constraints = null, pins = [];
let paused = false, accumulator = 0, last = performance.now(), simMs = 0;
// The read-out's rates, over windows of at least 0.5 s: pictures drawn per second and the mean time
// of a solver step (on WebGPU until the GPU has finished it); null until the first window ends.
const meter = { since: performance.now(), pictures: 0, steps: 0, stepMs: 0, fps: null, step: null, drawn: 0 };
function measure(pictures, steps, ms) {
  meter.drawn += pictures;
  meter.pictures += pictures; meter.steps += steps; meter.stepMs += ms;
  const now = performance.now(), span = now - meter.since;
  if (span < 500) return;
  meter.fps = (1000 * meter.pictures) / span;
  if (meter.steps > 0) meter.step = meter.stepMs / meter.steps;
  Object.assign(meter, { since: now, pictures: 0, steps: 0, stepMs: 0 });
}
// The largest stretch rest length (the drawn sphere's allowance for the cloth's chords).
let longestEdge = 0;
// WebGPU: the solver, the drawing, the last positions read back (for picking) and the busy flag.
let solver = null, drawer = null, busy = false;
let defaults = null;
// Something the picture shows changed since it was drawn; the cloth's topology the meshes were built for.
let dirty = true, builtTopology = -1;

// Runs fn after everything queued before it has finished; returns its promise.
let tail = Promise.resolve();
function exclusive(fn) {
  const run = tail.then(fn);
  tail = run.catch(() => {});
  return run;
}

// The repository's scenes, shipped with the page (scenes/index.json lists them): the picker's second
// group. A name without ".json" that is not a preset names one too (?preset=flag).
const presets = new Set([...$("preset").options].map((o) => o.value));
const sceneList = await fetch("./scenes/index.json").then((r) => r.json(), () => []).catch(() => []);
{
  const group = document.createElement("optgroup");
  group.label = "scenes/";
  for (const name of sceneList) group.append(new Option(name, name));
  $("preset").append(group);
}
const sceneOf = (name) => (sceneList.includes(name) ? name : !presets.has(name) && sceneList.includes(`${name}.json`) ? `${name}.json` : "");
// The OBJ files a scene's cloths, mesh colliders and their keys name ("mesh", relative to the
// scene's folder), which a scene needs beside it.
function meshesOf(bytes) {
  try {
    const json = JSON.parse(new TextDecoder().decode(bytes));
    const colliders = Array.isArray(json.colliders) ? json.colliders : [];
    const keys = colliders.flatMap((c) => (Array.isArray(c?.keys) ? c.keys : []));
    const named = [json.cloth, ...(Array.isArray(json.cloths) ? json.cloths : []), ...colliders, ...keys].map((c) => c?.mesh);
    return [...new Set(named.filter((m) => typeof m === "string" && m))];
  } catch { return []; } // the loader says what is wrong with it
}
// A shipped scene and the meshes it names, fetched.
async function fetchScene(name) {
  const get = async (path) => new Uint8Array(await (await fetch(`./scenes/${path}`)).arrayBuffer());
  const bytes = await get(name), files = {};
  for (const mesh of meshesOf(bytes)) files[mesh] = await get(mesh);
  return { bytes, name, files };
}
let sceneName = "", dropped = 0;
// The last dropped scene (its bytes and name): the picker's "dropped" entry loads it again, and the
// backend switch carries it over the reload in sessionStorage.
let droppedFile = null, running = "";
const DROPPED = "dropped";

// A note over the page (a dropped file that is not a scene); cleared by the next load.
// `refused` ({preset, file}: what the WebGPU solver cannot run) adds a button that runs it on the
// CPU fallback.
function note(text, refused = null) {
  const m = $("message");
  m.textContent = text;
  m.style.display = text ? "block" : "none";
  if (refused) {
    const b = document.createElement("button");
    b.id = "fallback";
    b.textContent = "Run it on the CPU fallback (WebGL2)";
    b.addEventListener("click", () => switchBackend("webgl2", refused.preset, refused.file));
    m.append(document.createElement("br"), b);
  }
}

// A cloth from a preset name, a shipped scene file, or a dropped scene file's bytes. A bad scene
// shows the message the weft command prints for that file and keeps the running cloth.
// `grid` ({cols, rows}, the panel's grid density) rebuilds the running cloth at another density:
// the panel's other controls, the pins and the camera carry over.
function load(preset, file = null, grid = null) {
  return exclusive(async () => {
    status(`Loading ${file?.name ?? preset}…`);
    try { return await loadNow(preset, file, grid); } finally { status(""); }
  });
}
let refused = null; // the last cloth the WebGPU solver could not run
async function loadNow(preset, file = null, grid = null) {
  let next, shipped = null;
  const keep = grid && cloth ? { controls: cloth.controls(), pins: $("pins").value } : null;
  try {
    if (sceneOf(preset)) preset = sceneOf(preset);
    if (sceneOf(preset)) shipped = await fetchScene(preset);
    const source = file ?? shipped;
    if (source) next = weft.createScene(source.bytes, source.name, source.files, grid?.cols ?? 0, grid?.rows ?? 0);
    else next = weft.createPreset(preset, grid?.cols ?? 0, grid?.rows ?? 0);
  } catch (e) {
    note(`weft: ${e.message}`);
    $("preset").value = running;
    return false;
  }
  const missing = gpu ? next.gpuUnsupported() : "";
  if (missing) {
    next.destroy();
    refused = { preset: file ? DROPPED : preset, file };
    note(`weft page: ${file ? file.name : preset}: ${missing}`, refused);
    $("preset").value = running;
    return false;
  }
  if (keep) {
    // The running cloth's controls on the rebuilt one (what the library refuses stays as built).
    const now = next.controls();
    for (const name of SETTABLE_CONTROLS)
      if (keep.controls[name] !== now[name]) try { next.setControl(name, keep.controls[name]); } catch { /* keeps the default */ }
    if (keep.pins !== "list") try { next.setPins(keep.pins); } catch { /* keeps the scene's */ }
  }
  note("");
  sceneName = (file ?? shipped)?.name ?? "";
  showPicked(preset, file);
  if (cloth) {
    solver?.destroy();
    drawer?.destroy();
    cloth.destroy();
  }
  cloth = next;
  dragPlane = null;
  grabbedParticle = -1;
  controls.enabled = true;
  if (gpu) await makeGpu();
  buildMeshes();
  firstFrame = cloth.positions();
  if (!keep) {
    // What "Reset params" restores: the controls and the pins the cloth was made with.
    defaults = { controls: cloth.controls(), pins: [...pins] };
    $("pins").querySelector('option[value="list"]').hidden = PIN_MODES[defaults.controls.pinMode] !== undefined;
  }
  setPanel();
  accumulator = 0;
  if (keep) { await sync(); return true; } // the camera stays where the visitor put it
  // Camera: the second document's view for every preset, scaled to the cloth.
  camera.position.set(4.2, 2.8, 5.4);
  controls.target.set(0, preset === "spring-mesh" ? 0 : -0.45, 0);
  if (preset === "spring-mesh") camera.position.set(6.5, 3.5, 8.5);
  if (file || sceneOf(preset)) {
    // A scene: the same direction, framing the cloth's first frame.
    const box = new Box3().setFromBufferAttribute(new BufferAttribute(firstFrame, 3));
    const centre = box.getCenter(new Vector3()), size = box.getSize(new Vector3()).length();
    controls.target.copy(centre);
    camera.position.copy(centre).addScaledVector(new Vector3(4.2, 2.8, 5.4).normalize(), 1.6 * size + 1);
  }
  if (params.has("view")) $("viewMode").value = params.get("view");
  if (params.has("colour")) $("colour").value = params.get("colour");
  controls.update();
  await sync();
  return true;
}

// The picker shows what runs: a preset or shipped scene, or the dropped file under its name.
function showPicked(preset, file) {
  const picker = $("preset");
  let entry = picker.querySelector(`option[value="${DROPPED}"]`);
  if (file) {
    droppedFile = file;
    if (!entry) {
      entry = document.createElement("option");
      entry.value = DROPPED;
      picker.append(entry);
    }
    entry.textContent = `${file.name} (dropped)`;
  }
  picker.value = running = file ? DROPPED : preset;
}

// The cloth's constraints and pins (the pick's reach, the drawn sphere, the nodes' size) and, on
// WebGL2, three.js' meshes of it. Again when tearing changed the topology.
function buildMeshes() {
  builtTopology = cloth.topology;
  pins = []; // asked again when the panel changes them
  for (let i = 0; i < cloth.particles; ++i) if (cloth.pinned(i)) pins.push(i);
  constraints = cloth.constraintList();
  longestEdge = 0;
  for (let k = 0; k < constraints.rest.length; ++k) if (constraints.family[k] === 0) longestEdge = Math.max(longestEdge, constraints.rest[k]);
  glDraw?.build(cloth, constraints, pins);
}

// The panel's sliders: the control each sets (weft_core's controls()), its range and how its value
// reads, for the running cloth's solver. A log slider holds log10 of the value. The read-outs show
// the values the library has (read back after each change), not the sliders' positions.
const SETTABLE_CONTROLS = ["gravityY", "substeps", "damping", "wind", "stiffness", "mass", "windFrequency", "floor", "sphereRadius", "timeStep", "sphereMoving"];
const SLIDERS = ["gravity", "stiffness", "damping", "mass", "wind", "windFrequency", "density", "substeps", "timeStep", "sphereRadius"];
const sig = (v, digits = 3) => (Math.abs(v) >= 1e4 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toExponential(1).replace("e+", "e") : String(+v.toPrecision(digits)));
function sliderSpec(id, c) {
  const solver = cloth.solver;
  switch (id) {
    case "gravity": return { control: "gravityY", min: -30, max: 0, step: 0.1, text: (v) => `${v.toFixed(1)} m/s²` };
    case "stiffness":
      if (solver === "xpbd") return { control: "stiffness", name: "stiffness", log: true, min: 2, max: 9, step: 0.05, text: (v) => `${sig(v)} N/m`, title: "1 / stretch compliance (XPBD)" };
      if (solver === "jacobi") return { control: "stiffness", name: "stiffness", min: 0, max: 0.99, step: 0.01, text: (v) => `s ${v.toFixed(2)}`, title: "relaxation s of each Jacobi sweep, 0 to 1" };
      return { control: "stiffness", name: "stiffness", log: true, min: 1, max: 5, step: 0.05, text: (v) => `${sig(v)} N/m`, title: "spring stiffness" };
    case "damping":
      if (solver === "xpbd") return { control: "damping", name: "damping", min: 0, max: 1, step: 0.001, text: (v) => `${v.toFixed(3)} kg/s`, title: "velocity damping" };
      if (solver === "jacobi") return { control: "damping", name: "retention", min: 0.9, max: 1, step: 0.001, text: (v) => `${v.toFixed(3)}/sub`, title: "velocity kept per substep" };
      return { control: "damping", name: "damping", min: 0, max: 5, step: 0.01, text: (v) => `${v.toFixed(2)} N·s/m`, title: "damper along each spring" };
    case "mass": return { control: "mass", log: true, min: -3, max: 1, step: 0.05, text: (v) => `${sig(v)} kg`, title: "mass of each particle" };
    case "wind": return { control: "wind", min: 0, max: 10, step: 0.1, text: (v) => (v === 0 ? "off" : `${v.toFixed(1)} ${c.windMode === 1 || (c.windMode === 0 && solver === "springs") ? "m/s²" : "N"}`),
      title: solver === "springs" ? "gusts of varying strength" : "an oscillating wave along the columns" };
    case "windFrequency": return { control: "windFrequency", min: 0, max: 5, step: 0.05, text: (v) => `${v.toFixed(2)} Hz`, disabled: solver === "springs" || c.windMode === 1,
      title: "the wave wind's frequency (the gusts have their own)" };
    case "density": return { control: "cols", min: 4, max: 128, step: 1, text: (v) => (c.cols ? `${v} × ${rowsFor(v)}` : "mesh"), disabled: !c.cols,
      title: "particles per row: rebuilds the cloth (a grid's)" };
    case "substeps": return { control: "substeps", min: 1, max: 128, step: 1, text: (v) => `${v}/frame` };
    case "timeStep": return { control: "timeStep", log: true, min: -4.3, max: -2.3, step: 0.01, text: (v) => `${(1000 * v).toFixed(2)} ms`,
      title: "simulated time of one substep (a frame is substeps of them)" };
    case "sphereRadius": return { control: "sphereRadius", min: 0.1, max: 2.5, step: 0.01, text: (v) => `${v.toFixed(2)} m`, disabled: !c.sphere };
  }
}
// The grid density's rows for cols columns (the cloth's own aspect).
const rowsFor = (cols) => Math.max(2, Math.round((cols * defaults.controls.rows) / defaults.controls.cols));
const output = (id) => document.querySelector(`output[for="${id}"]`);

// Every control shows the state of the solver (read back from the library). `except`: the slider
// being dragged keeps its position.
function setPanel(except = null) {
  const c = cloth.controls();
  for (const id of SLIDERS) {
    const spec = sliderSpec(id, c), input = $(id), value = c[spec.control];
    Object.assign(input, { min: spec.min, max: spec.max, step: spec.step, disabled: !!spec.disabled });
    input.title = spec.title ?? "";
    if (spec.name) $(`${id}Name`).textContent = spec.name;
    if (input !== except) input.value = spec.log ? Math.log10(value) : value;
    output(id).textContent = spec.text(value);
  }
  $("floor").checked = c.floor !== 0;
  $("sphereMoving").checked = c.sphereMoving !== 0;
  $("sphereMoving").disabled = !c.sphere;
  const mode = PIN_MODES[c.pinMode] ?? "list";
  $("pins").value = mode;
  $("pins").querySelector('option[value="corners"]').disabled = !c.cols;
  $("pause").textContent = paused ? "Resume" : "Pause";
}

// A slider moved: its control through the library's setter (a grid density rebuilds the cloth
// when let go), then the panel from what the library has.
async function applySlider(id, final) {
  const input = $(id), spec = sliderSpec(id, cloth.controls()), value = spec.log ? 10 ** +input.value : +input.value;
  if (id === "density") {
    output(id).textContent = spec.text(value);
    if (!final || value === cloth.controls().cols) return;
    await loadNow(running === DROPPED ? "" : running, running === DROPPED ? droppedFile : null, { cols: value, rows: rowsFor(value) });
    return;
  }
  try { cloth.setControl(spec.control, value); } catch (e) { note(`weft: ${e.message}`); }
  if (gpu && spec.control === "mass") await solver.uploadInverseMasses();
  setPanel(input);
  dirty = true;
}
// The pins: a mode of the library, or the scene's own list back.
async function applyPins() {
  const mode = $("pins").value;
  try { cloth.setPins(mode === "list" ? defaults.pins : mode); } catch (e) { note(`weft: ${e.message}`); }
  pins = [];
  for (let i = 0; i < cloth.particles; ++i) if (cloth.pinned(i)) pins.push(i);
  if (gpu) { await solver.uploadInverseMasses(); drawer.setPins(pins); }
  glDraw?.setPins(pins);
  setPanel();
  await sync();
}
// Every control back to what the cloth was made with (and its grid density).
async function resetParams() {
  const c = defaults.controls;
  if (c.cols && cloth.controls().cols !== c.cols) {
    await loadNow(running === DROPPED ? "" : running, running === DROPPED ? droppedFile : null, { cols: c.cols, rows: c.rows });
  }
  for (const name of SETTABLE_CONTROLS) if (cloth.controls()[name] !== c[name]) try { cloth.setControl(name, c[name]); } catch { /* as it is */ }
  $("pins").value = PIN_MODES[c.pinMode] ?? "list";
  await applyPins();
}

// The drawn state from the solver: positions, normals, colliders, pin markers, the views. On
// WebGPU the drawing reads the solver's buffers itself: only the colliders are the host's.
async function sync() {
  dirty = true;
  if (gpu) return;
  if (cloth.topology !== builtTopology) buildMeshes();
  const col = cloth.colliders();
  glDraw.sync(cloth, cloth.positions(), { colliders: col, sphereRadius: drawnSphereRadius(col), view: $("viewMode").value, colour: $("colour").value, wireframe: $("wireframe").checked });
}

// The sphere as drawn: inside the surface the cloth rests on (radius + contact thickness) by the
// sag of the cloth's triangles there. A triangle whose corners lie on that surface is a chord
// plane sqrt(R^2 - rho^2) from the centre (rho its circumradius, at most 0.8 of the longest
// stretch edge with some stretch); a sphere drawn any larger shows through the cloth between its
// corners as dark speckles (compute-cloth rests at the collision radius itself: thickness 0). Less
// another 0.1 % of R for the depth buffer; never larger than the collider's own radius.
// `?sphere=collider` draws it at the collider's radius as before (the page test's check that it
// counts the speckles).
const sphereAsCollider = params.get("sphere") === "collider";
function drawnSphereRadius(col) {
  if (sphereAsCollider) return col.radius;
  const surface = col.radius + col.thickness, rho = 0.8 * longestEdge;
  return Math.min(col.radius, Math.sqrt(Math.max(surface * surface - rho * rho, 0)) - 1e-3 * surface);
}

// One frame of the simulation on the page's backend. On WebGPU a tear (decided by the core from the
// state read back) changes the buffers' sizes: a new solver and drawing from the host state.
async function stepOne() {
  if (!gpu) cloth.step();
  else if ((await solver.step()) === "torn") await rebuildGpu();
}

async function rebuildGpu() {
  solver.destroy();
  drawer.destroy();
  await makeGpu();
}

// The WebGPU solver of the cloth (from its host state) and the drawing of its buffers.
async function makeGpu() {
  solver = await createGpuSolver(device, cloth, wgsl);
  const pinList = [];
  for (let i = 0; i < cloth.particles; ++i) if (cloth.pinned(i)) pinList.push(i);
  drawer = await createGpuDraw(device, canvas, solver, { uvs: cloth.uvs(), pins: pinList });
}

async function stepFrames(count) {
  const t0 = performance.now();
  for (let i = 0; i < count; ++i) await stepOne();
  simMs = (performance.now() - t0) / Math.max(count, 1);
  measure(0, count, simMs * count);
  await sync();
}

// Positions (world, xyz per particle) from the page's backend.
async function positions() {
  return gpu ? (await solver.read()).pos : cloth.positions();
}

// After the host changed the state (reset, grab, release): onto the GPU.
function hostChanged(particle = -1) {
  if (!gpu) return;
  if (particle >= 0) solver.uploadParticle(particle);
  else solver.upload();
}

// The canvas in device pixels (devicePixelRatio, at most 2) on either backend.
const pixelRatio = () => Math.min(window.devicePixelRatio || 1, 2);
function resize() {
  const w = canvas.clientWidth, h = canvas.clientHeight;
  const ratio = pixelRatio();
  if (canvas.width !== Math.floor(w * ratio) || canvas.height !== Math.floor(h * ratio)) {
    if (gpu) { canvas.width = Math.floor(w * ratio); canvas.height = Math.floor(h * ratio); }
    else glDraw.resize(w, h, ratio);
    camera.aspect = w / Math.max(h, 1);
    camera.updateProjectionMatrix();
    return true;
  }
  return false;
}

// One picture; `capture` (WebGPU) also returns its pixels (page screenshots of a WebGPU canvas
// come out blank in headless Chromium).
async function draw(capture = false) {
  resize();
  let image = null;
  if (gpu) {
    camera.updateMatrixWorld();
    const col = cloth.colliders();
    image = await drawer.draw(camera, {
      origin: cloth.origin(), colour: $("colour").value, view: $("viewMode").value, wireframe: $("wireframe").checked,
      sphere: { enabled: col.sphere, center: col.center, radius: drawnSphereRadius(col) }, floor: { enabled: col.floor, height: col.floorHeight },
      nodeRadius: 0.25 * constraints.rest[0],
    }, capture);
    // The frame in flight: the next one starts when the GPU has drawn this one.
    await device.queue.onSubmittedWorkDone();
  } else {
    glDraw.render(camera);
  }
  dirty = false;
  readout();
  return image;
}

function readout() {
  const rate = meter.fps === null ? "measuring…" : `${meter.fps.toFixed(1)} fps · step ${meter.step === null ? "–" : `${meter.step.toFixed(2)} ms`}`;
  const text =
    `${paused ? "paused" : rate}${meter.fps === null || paused ? "" : " (0.5 s mean)"}\n` +
    (gpu ? `backend WebGPU (WGSL solver, ${solver.dispatchesPerFrame()} dispatches/frame)\nadapter ${adapterName}\n`
      : `backend wasm CPU solver · WebGL2\n`) +
    (sceneName ? `scene ${sceneName}${cloth.sceneCloths > 1 ? ` (its first of ${cloth.sceneCloths} cloths)` : ""}\n` : "") +
    `${cloth.solver}: ${cloth.particles} particles, ${cloth.constraints} constraints, ${cloth.colors} colours\n` +
    `t = ${cloth.time().toFixed(2)} s${paused ? " (paused)" : ""}`;
  if ($("readout").textContent !== text) $("readout").textContent = text;
  // Folded, the header keeps the rate in view.
  const short = paused ? "paused" : meter.fps === null ? "" : `${meter.fps.toFixed(1)} fps`;
  if ($("rate").textContent !== short) $("rate").textContent = short;
}

async function frame() {
  const now = performance.now();
  const dt = Math.min((now - last) / 1000, 0.25);
  last = now;
  let steps = 0, ms = 0;
  if (!paused) {
    accumulator += dt;
    const t0 = performance.now(), timeStep = cloth.timeStep;
    while (accumulator >= timeStep && steps < 4) {
      await stepOne();
      accumulator -= timeStep;
      ++steps;
    }
    if (steps === 4) accumulator = 0; // behind: drop the backlog rather than spiral
    ms = performance.now() - t0;
    if (steps > 0) { simMs = ms / steps; await sync(); }
  }
  const drawn = resize() || dirty;
  if (drawn) await draw();
  measure(drawn ? 1 : 0, steps, ms);
  if (!drawn) readout();
}

// The display loop; a frame (steps and picture, on WebGPU until the GPU is done) finishes before
// the next one starts, after whatever was queued before it. The tests (?test) step and draw
// through window.weft instead.
function loop() {
  if (!testMode && !busy) {
    busy = true;
    exclusive(frame).catch((e) => console.error(`weft page: ${e.message ?? e}`)).finally(() => { busy = false; });
  }
  requestAnimationFrame(loop);
}

// Dragging a node: the nearest particle to the ray's hit on the cloth is grabbed and follows the
// pointer on the camera-facing plane through it.
const raycaster = new Raycaster();
let dragPlane = null;
function pointerRay(event) {
  const r = canvas.getBoundingClientRect();
  const ndc = new Vector2(((event.clientX - r.left) / r.width) * 2 - 1, -((event.clientY - r.top) / r.height) * 2 + 1);
  raycaster.setFromCamera(ndc, camera);
  return raycaster;
}
let grabbedParticle = -1, grabbing = null;
// WebGL2: the ray's hit on the cloth's mesh. WebGPU (no mesh on the host): the particle nearest
// the ray, among those within two spacings of it, from positions read back.
async function pick(ray) {
  if (!gpu) {
    return glDraw.pick(ray, cloth.positions());
  }
  const p = await positions();
  const limit = 2 * constraints.rest[0];
  let best = -1, bestD = limit * limit, v = new Vector3();
  for (let i = 0; i < cloth.particles; ++i) {
    const d = ray.ray.distanceSqToPoint(v.set(p[3 * i], p[3 * i + 1], p[3 * i + 2]));
    if (d < bestD) { bestD = d; best = i; }
  }
  return best;
}
async function grabAt(event) {
  const ray = pointerRay(event);
  const best = await pick(ray);
  if (best < 0) return false;
  const p = await positions();
  const at = new Vector3(p[3 * best], p[3 * best + 1], p[3 * best + 2]);
  dragPlane = new Plane().setFromNormalAndCoplanarPoint(camera.getWorldDirection(new Vector3()), at);
  cloth.grab(best, at.toArray());
  grabbedParticle = best;
  hostChanged(best);
  controls.enabled = false;
  return true;
}
canvas.addEventListener("pointerdown", (e) => { if (e.button === 0) grabbing = exclusive(() => grabAt(e)).finally(() => { grabbing = null; }); });
canvas.addEventListener("pointermove", (e) => {
  if (!dragPlane) return;
  const target = pointerRay(e).ray.intersectPlane(dragPlane, new Vector3());
  if (target) cloth.moveGrab(target.toArray());
});
window.addEventListener("pointerup", async () => {
  if (grabbing) await grabbing.catch(() => {});
  if (!dragPlane) return;
  dragPlane = null;
  await exclusive(() => {
    if (grabbedParticle < 0) return; // a load in between let go
    cloth.release();
    hostChanged(grabbedParticle);
    grabbedParticle = -1;
    controls.enabled = true;
  });
});

const resetCloth = () => exclusive(async () => {
  cloth.reset();
  // A reset undoes tears: on WebGPU the buffers then have another size (a new solver).
  if (gpu && solver.model.particles !== cloth.particles) await rebuildGpu();
  else hostChanged();
  return sync();
});
const togglePause = () => { paused = !paused; dirty = true; $("pause").textContent = paused ? "Resume" : "Pause"; };
const setSphereMoving = (on) => exclusive(() => { cloth.setControl("sphereMoving", on ? 1 : 0); setPanel(); });
// The shortcuts. A key aimed at a form control is the control's (a select takes letters as
// type-ahead, a checkbox Space, a slider the arrows): no shortcut then. A control used with the
// pointer gives the focus back to the page afterwards, so that the shortcuts work again.
const isControl = (t) => t instanceof Element && t.matches("input, select, textarea, button");
window.addEventListener("keydown", (e) => {
  if (isControl(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.code === "Space") { togglePause(); e.preventDefault(); }
  else if (e.code === "KeyS") setSphereMoving(!cloth.colliders().moving);
  else if (e.code === "KeyR") resetCloth();
});
let byPointer = false;
$("panel").addEventListener("pointerdown", () => { byPointer = true; }, true);
$("panel").addEventListener("keydown", () => { byPointer = false; }, true);
// A value picked (change) or a button pressed (click; a select's click only opens it).
for (const type of ["change", "click"])
  $("panel").addEventListener(type, (e) => {
    if (byPointer && isControl(e.target) && (type === "change" || e.target.matches("button"))) e.target.blur();
  });
$("preset").addEventListener("change", (e) => {
  const v = e.target.value;
  if (v === DROPPED) load("", droppedFile);
  else load(v);
});
for (const id of SLIDERS) {
  $(id).addEventListener("input", () => exclusive(() => applySlider(id, false)));
  $(id).addEventListener("change", () => exclusive(() => applySlider(id, true)));
}
$("pins").addEventListener("change", () => exclusive(applyPins));
$("floor").addEventListener("change", (e) => exclusive(() => {
  try { cloth.setControl("floor", e.target.checked ? 1 : 0); } catch (err) { note(`weft: ${err.message}`); }
  setPanel();
  return sync();
}));
$("sphereMoving").addEventListener("change", (e) => setSphereMoving(e.target.checked));
for (const id of ["wireframe", "viewMode", "colour"]) $(id).addEventListener("change", () => exclusive(sync));
$("pause").addEventListener("click", togglePause);
$("resetParams").addEventListener("click", () => exclusive(resetParams));
$("resetCloth").addEventListener("click", resetCloth);
controls.addEventListener("change", () => { dirty = true; });
window.addEventListener("resize", () => { dirty = true; });
// A scene file dropped on the page, or opened with the file input, runs in place of the preset;
// the OBJ files it names come with it (in the same drop or the same pick; looked up by name).
async function openFiles(list) {
  const all = [...(list ?? [])];
  const main = all.find((f) => /\.json$/i.test(f.name)) ?? all[0];
  if (!main) return;
  const files = {};
  for (const f of all) if (f !== main) files[f.name] = new Uint8Array(await f.arrayBuffer());
  await load("", { bytes: new Uint8Array(await main.arrayBuffer()), name: main.name, files });
}
window.addEventListener("dragover", (e) => e.preventDefault());
window.addEventListener("drop", async (e) => {
  e.preventDefault();
  await openFiles(e.dataTransfer?.files);
  ++dropped;
});
$("open").addEventListener("change", async (e) => {
  await openFiles(e.target.files);
  e.target.value = "";
  ++dropped;
});
// The backend switch reloads the page with what the picker shows (a dropped scene through
// sessionStorage, its bytes as base64).
$("backend").addEventListener("change", (e) => switchBackend(e.target.value, $("preset").value, droppedFile));
function switchBackend(backend, preset, file) {
  params.set("backend", backend);
  params.set("preset", preset);
  if (preset === DROPPED) {
    const base64 = (bytes) => { let bin = ""; for (const b of bytes) bin += String.fromCharCode(b); return btoa(bin); };
    const files = Object.fromEntries(Object.entries(file.files ?? {}).map(([k, v]) => [k, base64(v)]));
    try {
      sessionStorage.setItem("weft.dropped", JSON.stringify({ name: file.name, bytes: base64(file.bytes), files }));
    } catch { params.delete("preset"); } // too large to keep: the default preset
  }
  location.search = params.toString();
}
// A dropped scene carried over a backend switch.
function keptDrop() {
  try {
    const kept = JSON.parse(sessionStorage.getItem("weft.dropped"));
    const bytes = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const files = Object.fromEntries(Object.entries(kept.files ?? {}).map(([k, v]) => [k, bytes(v)]));
    return { name: kept.name, bytes: bytes(kept.bytes), files };
  } catch { return null; }
}

// The cloth of ?preset= (a preset, a shipped scene, or "dropped"), else xpbd; when that one does
// not load, xpbd with the message.
{
  const first = params.get("preset") ?? "xpbd", kept = first === DROPPED ? keptDrop() : null;
  if (!(await load(first === DROPPED ? (kept ? "" : "xpbd") : first, kept))) {
    const said = $("message").firstChild?.textContent ?? "", what = refused;
    await load("xpbd");
    note(said, what);
  }
}
await draw();
// Ready: the controls show the solver's state and take input.
status("");
$("controls").disabled = false;
requestAnimationFrame(loop);

// The browser tests' handle: load a preset, step frames, read positions, draw (and on WebGPU
// capture the picture), press keys. On WebGPU these return promises (page.evaluate awaits them).
window.weft = {
  ready: true,
  backend: gpu ? "webgpu" : "webgl2",
  adapter: adapterName,
  load: (preset) => exclusive(async () => { await loadNow(preset); await draw(); return cloth.particles; }),
  setView: (view, colour) => exclusive(async () => { $("viewMode").value = view; $("colour").value = colour; await sync(); await draw(); }),
  stepFrames: (n) => exclusive(async () => { if (!paused) await stepFrames(n); await draw(); return cloth.time(); }),
  positions: () => exclusive(async () => Array.from(await positions())),
  firstFrame() { return Array.from(firstFrame); },
  message: () => ($("message").style.display === "none" ? "" : $("message").firstChild?.textContent ?? ""),
  scene: () => sceneName,
  dropped: () => dropped, // drops handled so far
  paused() { return paused; },
  sphereMoving: () => cloth.colliders().moving,
  draw: (capture) => exclusive(() => draw(capture)),
  // The picture read back inside the page (WebGPU: page screenshots of a WebGPU canvas come out
  // blank in headless Chromium), as RGBA bytes in base64 (`png`: as PNG).
  async capture(png = true) {
    let width, height, rgba;
    if (gpu) ({ width, height, rgba } = await exclusive(() => draw(true)));
    else {
      await exclusive(() => draw());
      const c = Object.assign(document.createElement("canvas"), { width: canvas.width, height: canvas.height });
      const g = c.getContext("2d");
      g.drawImage(canvas, 0, 0);
      ({ width, height } = c);
      rgba = new Uint8Array(g.getImageData(0, 0, width, height).data.buffer);
    }
    if (!png) {
      let bin = "";
      for (let k = 0; k < rgba.length; k += 0x8000) bin += String.fromCharCode(...rgba.subarray(k, k + 0x8000));
      return { width, height, rgba: btoa(bin) };
    }
    const c = Object.assign(document.createElement("canvas"), { width, height });
    c.getContext("2d").putImageData(new ImageData(new Uint8ClampedArray(rgba.buffer), width, height), 0, 0);
    return { width, height, png: c.toDataURL("image/png").split(",")[1] };
  },
  // Screen position (CSS pixels) of a world point.
  projectPoint(p) {
    const v = new Vector3(...p).project(camera), r = canvas.getBoundingClientRect();
    return [r.left + (v.x + 1) / 2 * r.width, r.top + (1 - v.y) / 2 * r.height];
  },
  simMs: () => simMs,
  // The read-out's rates (null until the first 0.5 s window has ended).
  fps: () => meter.fps,
  pictures: () => meter.drawn, // pictures the display loop has drawn (bench/web/page_fps_ab.mjs)
  stepMs: () => meter.step,
  // The solver's state: the library's controls and, on WebGPU, the pinned particles as the GPU
  // has them (inverse mass 0), read back.
  async state() {
    return exclusive(async () => {
      const c = cloth.controls();
      let onSolver = c.pinned, mass = c.mass;
      if (gpu) {
        const w = await solver.inverseMasses();
        onSolver = w.filter((v) => v === 0).length;
        mass = 1 / w.find((v) => v > 0);
      }
      return { ...c, particles: cloth.particles, timeStepFrame: cloth.timeStep, pinnedOnSolver: onSolver, massOnSolver: mass };
    });
  },
  // The panel as it reads: each slider's read-out, the checkboxes, the pins.
  panel: () => ({
    ...Object.fromEntries(SLIDERS.map((id) => [id, output(id).textContent])),
    floor: $("floor").checked, sphereMoving: $("sphereMoving").checked, pins: $("pins").value, pause: $("pause").textContent,
    disabled: $("controls").disabled,
  }),
  // The camera (position and target, world); the sphere's radius as drawn.
  setCamera: (position, target) => exclusive(async () => { camera.position.set(...position); controls.target.set(...target); controls.update(); dirty = true; await draw(); }),
  drawnSphereRadius: () => drawnSphereRadius(cloth.colliders()),
  time: () => cloth.time(),
  warnings: () => cloth.warnings(), // [non-finite, unstable, unstable in contact] frames discarded, frames that tunnelled
  async project(i) { // screen position (CSS pixels) of particle i, for a scripted drag
    const p = await exclusive(positions);
    const v = new Vector3(p[3 * i], p[3 * i + 1], p[3 * i + 2]).project(camera);
    const r = canvas.getBoundingClientRect();
    return [r.left + (v.x + 1) / 2 * r.width, r.top + (1 - v.y) / 2 * r.height];
  },
  grabbed: () => dragPlane !== null,
  grabbedParticle: () => grabbedParticle,
};
