// `weft run --gltf` read by three.js's GLTFLoader (node, no DOM: a plugin stands in for the image
// decoder, which needs one, and the embedded weave is checked as bytes) and played
// by its AnimationMixer: at frame k's time (k x timeStep) exactly one mesh of each cloth is shown,
// and its morphed positions equal the same run's OBJ frame k within 1e-5 m (the OBJ's 6 digits);
// half way between two frames they are the mean of the two. The colliders' poses follow the scene.
//   node gltf_three.mjs WEFT
import { join } from "node:path";
import { repo, importWebModule, scratch, weft, readObj, readBytes, glbJson } from "./gltf_common.mjs";

const binary = process.argv[2];
const THREE = await importWebModule("three", "build/three.module.js");
const { GLTFLoader } = await importWebModule("three", "examples/jsm/loaders/GLTFLoader.js");
const dir = scratch();
let failed = 0;
const fail = (message) => {
  console.log(`FAILED: ${message}`);
  failed++;
};

// Textures: the image is not decoded (node has no createImageBitmap); the material still gets one.
function load(path) {
  const loader = new GLTFLoader();
  loader.register(() => ({ name: "weft_test_textures", loadTexture: () => Promise.resolve(new THREE.Texture()) }));
  return new Promise((resolve, reject) => loader.parse(readBytes(path), "", resolve, reject));
}

// The glTF of a run and its OBJ frames, the animation playing.
async function run(name, args) {
  const glb = join(dir, `${name}.glb`), obj = join(dir, name);
  weft(binary, ["run", ...args, "--backend", "cpu", "--quiet", "--gltf", glb, "--obj", obj]);
  const gltf = await load(glb);
  const mixer = new THREE.AnimationMixer(gltf.scene);
  const action = mixer.clipAction(gltf.animations[0]);
  action.setLoop(THREE.LoopOnce, 1);
  action.clampWhenFinished = true;
  action.play();
  // Frame 1's time is one time step (a float: k x it is each frame's time).
  const json = glbJson(readBytes(glb));
  const first = gltf.animations[0].tracks.find((t) => t.name.endsWith(".morphTargetInfluences") && t.times[0] === 0);
  const timeStep = first.times[1];
  const cloths = new Map(); // cloth index -> its meshes
  gltf.scene.traverse((o) => {
    const m = o.isMesh && /^cloth_(\d+)/.exec(o.name);
    if (m) {
      if (!cloths.has(Number(m[1]))) cloths.set(Number(m[1]), []);
      cloths.get(Number(m[1])).push(o);
    }
  });
  // At a time: a clamped action (at the end) is paused and ignores setTime until reset.
  const at = (time) => {
    action.reset();
    mixer.setTime(time);
  };
  return { gltf, at, obj, timeStep, cloths, json };
}

// The shown mesh's positions (morphed on the CPU as three.js's shader does) and each vertex's particle.
function shown(r, cloth, time) {
  r.at(time);
  const visible = r.cloths.get(cloth).filter((m) => m.scale.x !== 0);
  if (visible.length !== 1) return { count: visible.length };
  const mesh = visible[0], geometry = mesh.geometry;
  const base = geometry.attributes.position.array;
  const out = Float64Array.from(base);
  const targets = geometry.morphAttributes.position ?? [];
  targets.forEach((target, t) => {
    const w = mesh.morphTargetInfluences[t];
    if (w !== 0) for (let i = 0; i < out.length; ++i) out[i] += w * target.array[i];
  });
  const particle = geometry.attributes._particle?.array;
  return { count: 1, mesh, positions: out, particleOf: (v) => (particle ? particle[v] : v) };
}

const frameName = (k) => `frame_${String(k).padStart(4, "0")}.obj`;

// Frame k of every cloth against the OBJ; at half frames against the mean of two.
function compare(name, r, frames, halves) {
  let worst = 0, checked = 0;
  const objs = [null];
  for (let k = 1; k <= frames; ++k) objs.push(readObj(join(r.obj, frameName(k))));
  for (let k = 1; k <= frames; ++k) {
    for (const [c] of r.cloths) {
      const expect = objs[k][c];
      const s = shown(r, c, Math.fround(k * r.timeStep));
      if (s.count !== 1) return fail(`${name}: frame ${k}, cloth ${c}: ${s.count} meshes shown, expected 1`);
      const n = s.positions.length / 3;
      const seen = new Uint8Array(expect.length / 3);
      for (let v = 0; v < n; ++v) {
        const p = s.particleOf(v);
        seen[p] = 1;
        for (let a = 0; a < 3; ++a) worst = Math.max(worst, Math.abs(s.positions[3 * v + a] - expect[3 * p + a]));
      }
      if (seen.some((x) => x === 0)) return fail(`${name}: frame ${k}, cloth ${c}: a particle of the OBJ has no vertex`);
      if (!s.mesh.geometry.attributes._particle && n !== expect.length / 3)
        return fail(`${name}: frame ${k}, cloth ${c}: ${n} vertices, the OBJ has ${expect.length / 3}`);
      checked++;
      // Half way to the next frame, within one mesh: the mean of the two frames.
      if (halves && k < frames && objs[k + 1][c].length === expect.length) {
        const h = shown(r, c, 0.5 * (Math.fround(k * r.timeStep) + Math.fround((k + 1) * r.timeStep)));
        if (h.mesh === s.mesh) {
          for (let v = 0; v < n; ++v) {
            const p = h.particleOf(v);
            for (let a = 0; a < 3; ++a)
              worst = Math.max(worst, Math.abs(h.positions[3 * v + a] - 0.5 * (expect[3 * p + a] + objs[k + 1][c][3 * p + a])));
          }
        }
      }
    }
  }
  const ok = worst <= 1e-5;
  if (!ok) fail(`${name}: largest difference ${worst} m`);
  const meshes = [...r.cloths.values()].reduce((a, m) => a + m.length, 0);
  console.log(`${ok ? "ok" : "FAILED"} ${name}: ${checked} cloth frames against the OBJ in ${meshes} meshes, largest difference ${worst.toExponential(2)} m`);
}

// xpbd past one mesh's 64 targets; the tear (a mesh per topology); a mesh cloth with a UV seam
// (vertices are (particle, UV) pairs); two cloths.
const xpbd = await run("xpbd", ["--preset", "xpbd", "--frames", "70"]);
compare("xpbd", xpbd, 70, true);
const base = xpbd.cloths.get(0).find((m) => m.name === "cloth_0_frames_0_64");
if (!base || base.geometry.attributes.position.count !== readObj(join(xpbd.obj, frameName(1)))[0].length / 3)
  fail("xpbd: no mesh cloth_0_frames_0_64 of the cloth's particles");
if (base && base.morphTargetInfluences.length !== 64) fail(`xpbd: the first mesh has ${base.morphTargetInfluences.length} targets, expected 64`);
const tear = await run("tear", ["--scene", join(repo, "scenes/tear.json"), "--frames", "60"]);
compare("tear", tear, 60, true);
if (tear.cloths.get(0).length < 3) fail(`tear: ${tear.cloths.get(0).length} meshes: the sheet did not tear`);
compare("skirt", await run("skirt", ["--scene", join(repo, "scenes/skirt.json"), "--frames", "12"]), 12, false);
compare("two-cloths", await run("two-cloths", ["--scene", join(repo, "tests/cli/good/two_cloths.json"), "--frames", "4"]), 4, false);

// The colliders of tests/gltf/colliders.json at a frame's time against the scene's motion.
const col = await run("colliders", ["--scene", join(repo, "tests/gltf/colliders.json"), "--frames", "30"]);
const node = (name) => col.gltf.scene.getObjectByName(name);
const rad = Math.PI / 180;
const quatY = (deg) => [0, Math.sin(0.5 * deg * rad), 0, Math.cos(0.5 * deg * rad)];
function pose(name, k, position, quaternion) {
  const o = node(name);
  if (!o) return fail(`colliders: no node ${name}`);
  col.at(Math.fround(k * col.timeStep));
  const d = Math.max(...position.map((x, a) => Math.abs(o.position.getComponent(a) - x)));
  const q = o.quaternion;
  const dot = quaternion ? Math.abs(q.x * quaternion[0] + q.y * quaternion[1] + q.z * quaternion[2] + q.w * quaternion[3]) : 1;
  if (d > 1e-4 || 1 - dot > 1e-6) fail(`colliders: ${name} at frame ${k}: position off by ${d}, rotation dot ${dot}`);
  else console.log(`ok colliders: ${name} at frame ${k}: position within ${d.toExponential(1)} m`);
}
const t = (k) => k * 0.0166667;
pose("sphere", 10, [0.2 * Math.sin(2 * Math.PI * 1.5 * t(10)), 0.3, 0.8]);
pose("collider_0_sphere", 7, [-0.4, 0.2 + 0.1 * Math.sin(2 * Math.PI * 2 * t(7)), 0]);
pose("collider_1_capsule", 15, [0.3, 0.25, 0], quatY(170));
// "rotate": [x, y, z] degrees turns about x, then y, then z: three.js's order ZYX.
const box = new THREE.Quaternion().setFromEuler(new THREE.Euler(10 * rad, 120 * rad, 0, "ZYX"));
pose("collider_2_box", 30, [0.1, -0.1, -0.6], [box.x, box.y, box.z, box.w]);
pose("floor", 0, [node("floor")?.position.x ?? 0, -0.4, node("floor")?.position.z ?? 0], [0, 0, 0, 1]);
// Each shape's mesh in its own frame: its extent along x, y, z.
const extents = {
  sphere: [0.15, 0.15, 0.15, 0.15, 0.15, 0.15],
  collider_0_sphere: [0.12, 0.12, 0.12, 0.12, 0.12, 0.12],
  collider_1_capsule: [0.31, 0.1, 0.1, 0.35, 0.1, 0.1], // radius 0.06 at -x, 0.1 at +x, half length 0.25
  collider_2_box: [0.3, 0.1, 0.15, 0.3, 0.1, 0.15],
};
for (const name of ["sphere", "floor", "collider_0_sphere", "collider_1_capsule", "collider_2_box", "collider_3_plane"]) {
  const o = node(name);
  if (!o?.isMesh) {
    fail(`colliders: ${name} is not a mesh`);
    continue;
  }
  o.geometry.computeBoundingBox();
  const b = o.geometry.boundingBox;
  const got = [-b.min.x, -b.min.y, -b.min.z, b.max.x, b.max.y, b.max.z];
  const want = extents[name];
  // (the capsule's rings miss its widest circle by a little)
  if (want && got.some((x, i) => Math.abs(x - want[i]) > 1e-3)) fail(`colliders: ${name}'s mesh spans ${got}, expected ${want}`);
  if (!want && (b.min.y !== 0 || b.max.y !== 0 || b.max.x < 1)) fail(`colliders: ${name} is not a wide square in its xz plane`);
  // Triangles counter-clockwise seen from outside: each one's normal along its corners' normals.
  const p = o.geometry.attributes.position, n = o.geometry.attributes.normal, index = o.geometry.index.array;
  let inward = 0;
  for (let i = 0; i < index.length; i += 3) {
    const [a, b2, c] = [index[i], index[i + 1], index[i + 2]].map((v) => new THREE.Vector3().fromBufferAttribute(p, v));
    const face = new THREE.Vector3().crossVectors(b2.clone().sub(a), c.clone().sub(a));
    const normal = new THREE.Vector3();
    for (let k = 0; k < 3; ++k) normal.add(new THREE.Vector3().fromBufferAttribute(n, index[i + k]));
    if (!(face.dot(normal) > 0)) inward++;
  }
  if (inward > 0) fail(`colliders: ${name}: ${inward} of ${index.length / 3} triangles face inwards or are flat`);
}
process.exit(failed > 0 ? 1 : 0);
