// Mesh colliders (WF_COLLIDER_MESH) in `weft run --gltf` and `--usd`, through the CLI's own writers
// (weft_mesh_collider_export: scene files cannot name a mesh collider yet). 80 frames of a sheet
// on a 114-vertex mesh sphere that swings along x and grows over frames 1 to 70, beside a still
// 8-vertex mesh box:
//   - the GLB passes the Khronos validator with no error and no warning;
//   - each mesh collider is a posed node (translation sampled per frame when it moves) whose
//     children are its surface's meshes, in the collider's frame, of its vertex and triangle
//     counts: the sphere's 70 changing frames as 64 + 6 morph targets over two meshes, then a mesh
//     without targets for the frames it holds its shape; the box one plain mesh;
//   - the USD layer passes usda.py's checks (the cloth against the OBJ frames) with each mesh
//     collider an Xform holding a Mesh "surface" of those counts, its points sampled every frame
//     when it changes shape.
//   node gltf_mesh_collider.mjs EXPORTER
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { repo, importWebModule, scratch } from "./gltf_common.mjs";

const exporter = process.argv[2];
const validator = await importWebModule("gltf-validator");
const dir = scratch();
const frames = 80;
const out = execFileSync(exporter, [dir, String(frames)], { encoding: "utf8" });
// "mesh_collider INDEX VERTICES TRIANGLES" per mesh collider.
const bodies = out.trim().split("\n").map((line) => line.split(" ").slice(1).map(Number));
let failed = 0;
function ok(condition, message) {
  console.log(`${condition ? "ok" : "FAILED"} ${message}`);
  if (!condition) failed++;
  return condition;
}

const bytes = readFileSync(join(dir, "run.glb"));
const report = await validator.validateBytes(new Uint8Array(bytes), { maxIssues: 0 });
const issues = report.issues;
ok(issues.numErrors === 0 && issues.numWarnings === 0, `validator: ${issues.numErrors} errors, ${issues.numWarnings} warnings, ` +
  `${issues.numInfos} infos, ${issues.numHints} hints`);
for (const m of issues.messages.filter((m) => m.severity < 2))
  console.log(`    ${m.code}: ${m.message} (${m.pointer})`);

// The JSON chunk: after the 12-byte header, its length and type.
const json = JSON.parse(bytes.subarray(20, 20 + bytes.readUInt32LE(12)).toString("utf8"));
const channels = json.animations?.[0]?.channels ?? [];
const animated = (node, path) => channels.some((c) => c.target.node === node && c.target.path === path);
const expected = [
  { targets: [64, 6, 0], moving: true }, // the sphere: frames 0..64, 64..70, 70..80
  { targets: [0], moving: false }, // the box
];
for (const [index, vertices, triangles] of bodies) {
  const name = `collider_${index}_mesh`;
  const parent = json.nodes.findIndex((n) => n.name === name);
  if (!ok(parent >= 0 && json.nodes[parent].mesh === undefined, `${name}: a node without a mesh of its own`)) continue;
  ok(json.scenes[0].nodes.includes(parent), `${name}: in the scene`);
  ok(animated(parent, "translation") === expected[index].moving, `${name}: translation ${expected[index].moving ? "" : "not "}animated`);
  const children = json.nodes[parent].children ?? [];
  const targets = [];
  for (const child of children) {
    const node = json.nodes[child];
    const primitive = json.meshes[node.mesh].primitives[0];
    const position = json.accessors[primitive.attributes.POSITION];
    const indices = json.accessors[primitive.indices];
    ok(position.count === vertices && indices.count === 3 * triangles && primitive.attributes.TEXCOORD_0 === undefined,
      `${node.name}: ${position.count} vertices (${vertices} expected), ${indices.count / 3} triangles (${triangles}), no UVs`);
    ok(json.materials[primitive.material].name === "collider", `${node.name}: the collider material`);
    targets.push(primitive.targets?.length ?? 0);
    // Each target weighted by a key at its frame; a mesh after the first shown from its first frame.
    ok(animated(child, "weights") === (targets.at(-1) > 0), `${node.name}: weights animated when it has targets`);
    ok(animated(child, "scale") === (children.length > 1), `${node.name}: shown over its frames only when there are several`);
  }
  ok(JSON.stringify(targets) === JSON.stringify(expected[index].targets),
    `${name}: morph targets per mesh ${JSON.stringify(targets)}, expected ${JSON.stringify(expected[index].targets)}`);
}

// The USD layer, by usda.py.
const surfaces = bodies.map(([index, vertices, triangles]) => `mesh_${index}:${vertices}:${triangles}${index === 0 ? ":reshaped" : ""}`);
try {
  const report = execFileSync("python3", [join(repo, "tests/cli/usda.py"), "check", join(dir, "run.usda"), join(dir, "obj"),
    "--frames", String(frames), "--fps", "60", "--colliders", "floor,mesh_0,mesh_1", "--moving", "mesh_0",
    "--surfaces", surfaces.join(",")], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  ok(true, report.trim());
} catch (e) {
  ok(false, `usda.py: ${e.stderr}`);
}
process.exit(failed > 0 ? 1 : 0);
