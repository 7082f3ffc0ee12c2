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
import * as THREE from "three";
import { OrbitControls } from "three/addons/controls/OrbitControls.js";
import { loadWeft } from "./weft_core.mjs";
import { createGpuSolver } from "./weft_gpu.mjs";
import { createGpuDraw } from "./gpu_draw.mjs";

const params = new URLSearchParams(location.search);
const testMode = params.has("test");
const $ = (id) => document.getElementById(id);

function fail(text) {
  const m = $("message");
  m.textContent = text;
  m.style.display = "block";
  window.weft = { ready: false, error: text };
}

// The backend: WebGPU when the browser offers an adapter (unless ?backend=webgl2), else WebGL2.
const canvas = $("view");
const asked = params.get("backend");
let device = null, adapterName = "";
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

const weft = await loadWeft(await (await fetch("./weft.wasm")).arrayBuffer());
const wgsl = gpu ? await (await fetch("./weft_gpu.wgsl")).text() : "";
const renderer = gpu ? null : new THREE.WebGLRenderer({ canvas, context: gl, antialias: true });
renderer?.setPixelRatio(Math.min(window.devicePixelRatio, 2));
const scene = new THREE.Scene();
scene.background = new THREE.Color(0x20242c);
const camera = new THREE.PerspectiveCamera(45, 1, 0.01, 200);
const controls = new OrbitControls(camera, canvas);
controls.enableDamping = false;
scene.add(new THREE.HemisphereLight(0xdde6f0, 0x30302c, 1.2));
const key = new THREE.DirectionalLight(0xffffff, 1.6);
key.position.set(4.5, 8, 4);
scene.add(key);

// A checker weave, mipmapped (the native renderer's texture in spirit).
function checkerTexture() {
  const c = document.createElement("canvas");
  c.width = c.height = 256;
  const g = c.getContext("2d");
  for (let y = 0; y < 8; ++y)
    for (let x = 0; x < 8; ++x) {
      g.fillStyle = (x + y) % 2 ? "#c8553d" : "#f2e6d0";
      g.fillRect(32 * x, 32 * y, 32, 32);
    }
  const t = new THREE.CanvasTexture(c);
  t.wrapS = t.wrapT = THREE.RepeatWrapping;
  t.colorSpace = THREE.SRGBColorSpace;
  t.anisotropy = 4;
  return t;
}
const texture = checkerTexture();
const clothMaterial = new THREE.MeshPhongMaterial({ map: texture, side: THREE.DoubleSide, shininess: 20 });
const wireMaterial = new THREE.MeshBasicMaterial({ color: 0x111318, wireframe: true });
const sphereMesh = new THREE.Mesh(new THREE.SphereGeometry(1, 48, 32), new THREE.MeshPhongMaterial({ color: 0x222a38, shininess: 60 }));
const floorMesh = new THREE.Mesh(new THREE.PlaneGeometry(40, 40), new THREE.MeshPhongMaterial({ color: 0x9c9c98 }));
floorMesh.rotation.x = -Math.PI / 2;
scene.add(sphereMesh, floorMesh);

let cloth = null, clothMesh = null, wireMesh = null, pinMarkers = null, firstFrame = null;
let nodes = null, ribbons = null, constraints = null, pins = [];
let paused = false, accumulator = 0, last = performance.now(), simMs = 0, frameMs = 0;
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
const dampingField = { xpbd: "damping (kg/s)", jacobi: "retention", springs: "spring damping" };

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
// The OBJ files a scene's cloths name ("mesh", relative to the scene's folder), which a scene
// needs beside it.
function meshesOf(bytes) {
  try {
    const json = JSON.parse(new TextDecoder().decode(bytes));
    return [json.cloth, ...(Array.isArray(json.cloths) ? json.cloths : [])].map((c) => c?.mesh).filter((m) => typeof m === "string" && m);
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
function note(text) {
  const m = $("message");
  m.textContent = text;
  m.style.display = text ? "block" : "none";
}

// A cloth from a preset name, a shipped scene file, or a dropped scene file's bytes. A bad scene
// shows the message the weft command prints for that file and keeps the running cloth.
function load(preset, file = null) { return exclusive(() => loadNow(preset, file)); }
async function loadNow(preset, file = null) {
  let next, shipped = null;
  try {
    if (sceneOf(preset)) preset = sceneOf(preset);
    if (sceneOf(preset)) shipped = await fetchScene(preset);
    if (file ?? shipped) next = weft.createScene((file ?? shipped).bytes, (file ?? shipped).name, (file ?? shipped).files);
    else next = weft.createPreset(preset);
  } catch (e) {
    note(`weft: ${e.message}`);
    $("preset").value = running;
    return false;
  }
  const missing = gpu ? next.gpuUnsupported() : "";
  if (missing) {
    next.destroy();
    note(`weft page: ${file ? file.name : preset}: ${missing}`);
    $("preset").value = running;
    return false;
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
  if (gpu) {
    solver = await createGpuSolver(device, cloth, wgsl);
    const pinList = [];
    for (let i = 0; i < cloth.particles; ++i) if (cloth.pinned(i)) pinList.push(i);
    drawer = await createGpuDraw(device, canvas, solver, { uvs: cloth.uvs(), pins: pinList });
  }
  buildMeshes();
  firstFrame = cloth.positions();
  defaults = cloth.params();
  setPanel(defaults);
  $("dampingName").textContent = dampingField[cloth.solver];
  // Camera: the second document's view for every preset, scaled to the cloth.
  const col = cloth.colliders();
  camera.position.set(4.2, 2.8, 5.4);
  controls.target.set(0, preset === "spring-mesh" ? 0 : -0.45, 0);
  if (preset === "spring-mesh") camera.position.set(6.5, 3.5, 8.5);
  if (file || sceneOf(preset)) {
    // A scene: the same direction, framing the cloth's first frame.
    const box = new THREE.Box3().setFromBufferAttribute(new THREE.BufferAttribute(firstFrame, 3));
    const centre = box.getCenter(new THREE.Vector3()), size = box.getSize(new THREE.Vector3()).length();
    controls.target.copy(centre);
    camera.position.copy(centre).addScaledVector(new THREE.Vector3(4.2, 2.8, 5.4).normalize(), 1.6 * size + 1);
  }
  if (params.has("view")) $("viewMode").value = params.get("view");
  if (params.has("colour")) $("colour").value = params.get("colour");
  controls.update();
  sphereMesh.visible = col.sphere;
  floorMesh.visible = col.floor;
  accumulator = 0;
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

// The three.js side of the cloth (WebGL2 draws it; on WebGPU it gives the picking ray its camera
// only): the mesh, the pins, the third document's view. Again when tearing changed the topology.
function buildMeshes() {
  if (clothMesh) {
    scene.remove(clothMesh, wireMesh, pinMarkers, nodes, ribbons);
    for (const o of [clothMesh, nodes, ribbons]) o.geometry.dispose();
    for (const o of pinMarkers.children) o.geometry.dispose();
    nodes.dispose();
  }
  builtTopology = cloth.topology;
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute("position", new THREE.BufferAttribute(cloth.positions(), 3));
  geometry.setAttribute("uv", new THREE.BufferAttribute(cloth.uvs(), 2));
  geometry.setIndex(new THREE.BufferAttribute(cloth.indices(), 1));
  geometry.computeVertexNormals();
  clothMesh = new THREE.Mesh(geometry, clothMaterial);
  wireMesh = new THREE.Mesh(geometry, wireMaterial);
  wireMesh.visible = $("wireframe").checked;
  pinMarkers = new THREE.Group();
  pins = []; // the page never changes the pins: asked once per topology
  for (let i = 0; i < cloth.particles; ++i) if (cloth.pinned(i)) pins.push(i);
  for (const i of pins) pinMarkers.add(new THREE.Mesh(new THREE.SphereGeometry(0.035, 12, 8), new THREE.MeshPhongMaterial({ color: 0xd81f0a })));
  geometry.setAttribute("color", new THREE.BufferAttribute(new Float32Array(3 * cloth.particles), 3));
  // The third document's own view: particles as small spheres coloured by speed, constraints as
  // lines coloured by signed strain.
  constraints = cloth.constraintList();
  const m = constraints.rest.length;
  nodes = new THREE.InstancedMesh(new THREE.IcosahedronGeometry(0.25 * constraints.rest[0], 1), new THREE.MeshBasicMaterial(), cloth.particles);
  nodes.instanceColor = new THREE.InstancedBufferAttribute(new Float32Array(3 * cloth.particles), 3);
  const lines = new THREE.BufferGeometry();
  lines.setAttribute("position", new THREE.BufferAttribute(new Float32Array(6 * m), 3));
  lines.setAttribute("color", new THREE.BufferAttribute(new Float32Array(6 * m), 3));
  ribbons = new THREE.LineSegments(lines, new THREE.LineBasicMaterial({ vertexColors: true, transparent: true, opacity: 0.8 }));
  nodes.frustumCulled = ribbons.frustumCulled = false;
  scene.add(clothMesh, wireMesh, pinMarkers, nodes, ribbons);
}

function setPanel(p) {
  $("gravity").value = p.gravityY;
  $("substeps").value = p.substeps;
  $("damping").max = cloth.solver === "xpbd" ? 1 : cloth.solver === "springs" ? 5 : 1;
  $("damping").value = p.damping;
  $("wind").value = p.wind;
}

function applyPanel() {
  cloth.setParams({ gravityY: +$("gravity").value, substeps: +$("substeps").value, damping: +$("damping").value, wind: +$("wind").value });
}

// Colour scales: speed as the third document's (teal to pink over 0..4 m/s); signed strain blue
// (compressed) through grey to red (stretched), saturated at 2 % so that 1 % shows at half.
function speedColour(out, k, v) {
  const s = Math.min(1, Math.hypot(v[3 * k], v[3 * k + 1], v[3 * k + 2]) / 4);
  out[3 * k] = 0.13 + 0.83 * s; out[3 * k + 1] = 0.83 - 0.38 * s; out[3 * k + 2] = 0.93 - 0.22 * s;
}
function strainColour(out, k, e) {
  const t = Math.max(-1, Math.min(1, e / 0.02)), g = 0.78;
  if (t >= 0) { out[3 * k] = g + (0.9 - g) * t; out[3 * k + 1] = g * (1 - t) + 0.12 * t; out[3 * k + 2] = g * (1 - t) + 0.08 * t; }
  else { out[3 * k] = g * (1 + t) + 0.1 * -t; out[3 * k + 1] = g * (1 + t) + 0.35 * -t; out[3 * k + 2] = g + (0.95 - g) * -t; }
}
function strainOf(p, a, b, rest) {
  return (Math.hypot(p[3 * b] - p[3 * a], p[3 * b + 1] - p[3 * a + 1], p[3 * b + 2] - p[3 * a + 2]) - rest) / rest;
}

function syncViews(p) {
  const view = $("viewMode").value, colour = $("colour").value;
  clothMesh.visible = view !== "nodes";
  wireMesh.visible = clothMesh.visible && $("wireframe").checked;
  nodes.visible = ribbons.visible = view !== "cloth";
  const v = colour === "speed" || nodes.visible ? cloth.velocities() : null;
  // The cloth: its texture, or per-vertex speed / mean signed strain of its stretch constraints.
  const wantColours = colour !== "texture";
  if (clothMaterial.vertexColors !== wantColours) {
    clothMaterial.vertexColors = wantColours;
    clothMaterial.map = wantColours ? null : texture;
    clothMaterial.needsUpdate = true;
  }
  if (wantColours && clothMesh.visible) {
    const c = clothMesh.geometry.getAttribute("color");
    if (colour === "speed") for (let i = 0; i < cloth.particles; ++i) speedColour(c.array, i, v);
    else {
      const sum = new Float32Array(cloth.particles), count = new Uint16Array(cloth.particles);
      for (let k = 0; k < constraints.rest.length; ++k) {
        if (constraints.family[k] !== 0) continue;
        const a = constraints.pairs[2 * k], b = constraints.pairs[2 * k + 1], e = strainOf(p, a, b, constraints.rest[k]);
        sum[a] += e; sum[b] += e; count[a]++; count[b]++;
      }
      for (let i = 0; i < cloth.particles; ++i) strainColour(c.array, i, count[i] ? sum[i] / count[i] : 0);
    }
    c.needsUpdate = true;
  }
  if (nodes.visible) {
    const matrix = new THREE.Matrix4();
    for (let i = 0; i < cloth.particles; ++i) {
      nodes.setMatrixAt(i, matrix.makeTranslation(p[3 * i], p[3 * i + 1], p[3 * i + 2]));
      speedColour(nodes.instanceColor.array, i, v);
    }
    nodes.instanceMatrix.needsUpdate = nodes.instanceColor.needsUpdate = true;
    const lp = ribbons.geometry.getAttribute("position"), lc = ribbons.geometry.getAttribute("color");
    for (let k = 0; k < constraints.rest.length; ++k) {
      const a = constraints.pairs[2 * k], b = constraints.pairs[2 * k + 1];
      for (let j = 0; j < 3; ++j) { lp.array[6 * k + j] = p[3 * a + j]; lp.array[6 * k + 3 + j] = p[3 * b + j]; }
      strainColour(lc.array, 2 * k, strainOf(p, a, b, constraints.rest[k]));
      for (let j = 0; j < 3; ++j) lc.array[6 * k + 3 + j] = lc.array[6 * k + j];
    }
    lp.needsUpdate = lc.needsUpdate = true;
  }
}

// The drawn state from the solver: positions, normals, colliders, pin markers, the views. On
// WebGPU the drawing reads the solver's buffers itself: only the colliders are the host's.
async function sync() {
  dirty = true;
  if (gpu) return;
  if (cloth.topology !== builtTopology) buildMeshes();
  const p = cloth.positions();
  const attr = clothMesh.geometry.getAttribute("position");
  attr.array.set(p);
  attr.needsUpdate = true;
  clothMesh.geometry.computeVertexNormals();
  clothMesh.geometry.computeBoundingSphere();
  const col = cloth.colliders();
  sphereMesh.position.set(...col.center);
  sphereMesh.scale.setScalar(col.radius);
  floorMesh.position.y = col.floorHeight;
  pins.forEach((i, k) => pinMarkers.children[k].position.set(p[3 * i], p[3 * i + 1], p[3 * i + 2]));
  syncViews(p);
}

// One frame of the simulation on the page's backend.
async function stepOne() {
  if (gpu) await solver.step();
  else cloth.step();
}

async function stepFrames(count) {
  const t0 = performance.now();
  for (let i = 0; i < count; ++i) await stepOne();
  simMs = (performance.now() - t0) / Math.max(count, 1);
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

function resize() {
  const w = canvas.clientWidth, h = canvas.clientHeight;
  const ratio = gpu ? 1 : renderer.getPixelRatio();
  if (canvas.width !== Math.floor(w * ratio) || canvas.height !== Math.floor(h * ratio)) {
    if (gpu) { canvas.width = w; canvas.height = h; }
    else renderer.setSize(w, h, false);
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
      sphere: { enabled: col.sphere, center: col.center, radius: col.radius }, floor: { enabled: col.floor, height: col.floorHeight },
      nodeRadius: 0.25 * constraints.rest[0],
    }, capture);
    // The frame in flight: the next one starts when the GPU has drawn this one.
    await device.queue.onSubmittedWorkDone();
  } else {
    renderer.render(scene, camera);
  }
  dirty = false;
  readout();
  return image;
}

function readout() {
  const text =
    `frame ${frameMs.toFixed(2)} ms · sim ${simMs.toFixed(2)} ms\n` +
    (gpu ? `backend WebGPU (WGSL solver, ${solver.dispatchesPerFrame()} dispatches/frame)\nadapter ${adapterName}\n`
      : `backend wasm CPU solver · WebGL2\n`) +
    (sceneName ? `scene ${sceneName}${cloth.sceneCloths > 1 ? ` (its first of ${cloth.sceneCloths} cloths)` : ""}\n` : "") +
    `${cloth.solver}: ${cloth.particles} particles, ${cloth.constraints} constraints, ${cloth.colors} colours\n` +
    `t = ${cloth.time().toFixed(2)} s${paused ? " (paused)" : ""}`;
  if ($("readout").textContent !== text) $("readout").textContent = text;
}

async function frame() {
  const now = performance.now();
  const dt = Math.min((now - last) / 1000, 0.25);
  last = now;
  frameMs = 0.9 * frameMs + 0.1 * dt * 1000;
  if (!paused) {
    accumulator += dt;
    let steps = 0;
    const t0 = performance.now();
    while (accumulator >= cloth.timeStep && steps < 4) {
      await stepOne();
      accumulator -= cloth.timeStep;
      ++steps;
    }
    if (steps === 4) accumulator = 0; // behind: drop the backlog rather than spiral
    if (steps > 0) { simMs = (performance.now() - t0) / steps; await sync(); }
  }
  if (resize() || dirty) await draw();
  else readout();
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
const raycaster = new THREE.Raycaster();
let dragPlane = null;
function pointerRay(event) {
  const r = canvas.getBoundingClientRect();
  const ndc = new THREE.Vector2(((event.clientX - r.left) / r.width) * 2 - 1, -((event.clientY - r.top) / r.height) * 2 + 1);
  raycaster.setFromCamera(ndc, camera);
  return raycaster;
}
let grabbedParticle = -1, grabbing = null;
// WebGL2: the ray's hit on the cloth's mesh. WebGPU (no mesh on the host): the particle nearest
// the ray, among those within two spacings of it, from positions read back.
async function pick(ray) {
  if (!gpu) {
    const hit = ray.intersectObject(clothMesh)[0];
    if (!hit) return -1;
    const p = cloth.positions();
    let best = -1, bestD = Infinity;
    for (const i of [hit.face.a, hit.face.b, hit.face.c]) {
      const d = hit.point.distanceToSquared(new THREE.Vector3(p[3 * i], p[3 * i + 1], p[3 * i + 2]));
      if (d < bestD) { bestD = d; best = i; }
    }
    return best;
  }
  const p = await positions();
  const limit = 2 * constraints.rest[0];
  let best = -1, bestD = limit * limit, v = new THREE.Vector3();
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
  const at = new THREE.Vector3(p[3 * best], p[3 * best + 1], p[3 * best + 2]);
  dragPlane = new THREE.Plane().setFromNormalAndCoplanarPoint(camera.getWorldDirection(new THREE.Vector3()), at);
  cloth.grab(best, at.toArray());
  grabbedParticle = best;
  hostChanged(best);
  controls.enabled = false;
  return true;
}
canvas.addEventListener("pointerdown", (e) => { if (e.button === 0) grabbing = exclusive(() => grabAt(e)).finally(() => { grabbing = null; }); });
canvas.addEventListener("pointermove", (e) => {
  if (!dragPlane) return;
  const target = pointerRay(e).ray.intersectPlane(dragPlane, new THREE.Vector3());
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

const resetCloth = () => exclusive(() => { cloth.reset(); hostChanged(); return sync(); });
// The shortcuts. A key aimed at a form control is the control's (a select takes letters as
// type-ahead, a checkbox Space, a slider the arrows): no shortcut then. A control used with the
// pointer gives the focus back to the page afterwards, so that the shortcuts work again.
const isControl = (t) => t instanceof Element && t.matches("input, select, textarea, button");
window.addEventListener("keydown", (e) => {
  if (isControl(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.code === "Space") { paused = !paused; dirty = true; e.preventDefault(); }
  else if (e.code === "KeyS") exclusive(() => cloth.setSphereMoving(!cloth.colliders().moving));
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
for (const id of ["gravity", "substeps", "damping", "wind"]) $(id).addEventListener("input", () => exclusive(applyPanel));
for (const id of ["wireframe", "viewMode", "colour"]) $(id).addEventListener("change", () => exclusive(sync));
$("resetParams").addEventListener("click", () => exclusive(() => { setPanel(defaults); applyPanel(); }));
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
$("backend").addEventListener("change", (e) => {
  params.set("backend", e.target.value);
  params.set("preset", $("preset").value);
  if ($("preset").value === DROPPED) {
    const base64 = (bytes) => { let bin = ""; for (const b of bytes) bin += String.fromCharCode(b); return btoa(bin); };
    const files = Object.fromEntries(Object.entries(droppedFile.files ?? {}).map(([k, v]) => [k, base64(v)]));
    try {
      sessionStorage.setItem("weft.dropped", JSON.stringify({ name: droppedFile.name, bytes: base64(droppedFile.bytes), files }));
    } catch { params.delete("preset"); } // too large to keep: the default preset
  }
  location.search = params.toString();
});
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
    const said = $("message").textContent;
    await load("xpbd");
    note(said);
  }
}
await draw();
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
  message: () => ($("message").style.display === "none" ? "" : $("message").textContent),
  scene: () => sceneName,
  dropped: () => dropped, // drops handled so far
  paused() { return paused; },
  sphereMoving: () => cloth.colliders().moving,
  draw: (capture) => exclusive(() => draw(capture)),
  // The picture as RGBA bytes (WebGPU: read inside the page), as a base64 string.
  // The picture read back inside the page, as PNG (base64).
  async capture() {
    const image = await exclusive(() => draw(true));
    const c = document.createElement("canvas");
    c.width = image.width;
    c.height = image.height;
    c.getContext("2d").putImageData(new ImageData(new Uint8ClampedArray(image.rgba.buffer), image.width, image.height), 0, 0);
    return { width: image.width, height: image.height, png: c.toDataURL("image/png").split(",")[1] };
  },
  simMs: () => simMs,
  time: () => cloth.time(),
  warnings: () => cloth.warnings(), // [non-finite, unstable, unstable in contact] frames discarded
  async project(i) { // screen position (CSS pixels) of particle i, for a scripted drag
    const p = await exclusive(positions);
    const v = new THREE.Vector3(p[3 * i], p[3 * i + 1], p[3 * i + 2]).project(camera);
    const r = canvas.getBoundingClientRect();
    return [r.left + (v.x + 1) / 2 * r.width, r.top + (1 - v.y) / 2 * r.height];
  },
  grabbed: () => dragPlane !== null,
};
