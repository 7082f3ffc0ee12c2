// What the glTF tests share: the modules from web/node_modules, running weft, reading its OBJ and
// GLB files. A test whose modules are missing exits 77 (ctest: skipped) and says how to get them.
import { readFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const repo = join(dirname(fileURLToPath(import.meta.url)), "../..");
const web = join(repo, "web");

// A package of web/node_modules (import() of its entry), or exit 77 when it is not installed.
export async function importWebModule(name, entry) {
  const path = entry ? join(web, "node_modules", name, entry) : null;
  let resolved = path;
  if (!resolved) {
    try {
      resolved = createRequire(join(web, "package.json")).resolve(name);
    } catch {
      resolved = null;
    }
  }
  if (!resolved || !existsSync(resolved)) {
    console.log(`skipped: ${name} is not in web/node_modules (run npm ci in web/)`);
    process.exit(77);
  }
  return import(pathToFileURL(resolved));
}

// A scratch folder removed at exit.
export function scratch() {
  const dir = mkdtempSync(join(tmpdir(), "weft-gltf-"));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// Runs weft; returns the time it took in ms. Throws with its stderr when it fails.
export function weft(binary, args) {
  const t0 = performance.now();
  try {
    execFileSync(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    throw new Error(`weft ${args.join(" ")}: exit ${e.status}\n${e.stderr}`);
  }
  return performance.now() - t0;
}

// An OBJ frame of weft: each object's v lines, as one Float64Array (n x 3) per object.
export function readObj(path) {
  const objects = [];
  let v = null;
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (line.startsWith("o ")) {
      v = [];
      objects.push(v);
    } else if (line.startsWith("v ")) {
      const [, x, y, z] = line.split(" ");
      v.push(Number(x), Number(y), Number(z));
    }
  }
  return objects.map((list) => Float64Array.from(list));
}

export function readBytes(path) {
  const b = readFileSync(path);
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
}

// The JSON chunk of a GLB.
export function glbJson(bytes) {
  const view = new DataView(bytes);
  const length = view.getUint32(12, true);
  return JSON.parse(new TextDecoder().decode(new Uint8Array(bytes, 20, length)));
}
