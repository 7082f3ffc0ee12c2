// The GPU kernels' WGSL (web/CMakeLists.txt) in headless Chromium's WebGPU (SwiftShader, as the
// page tests): each generated module compiles (createShaderModule, getCompilationInfo: no error)
// and gives a compute pipeline (layout "auto", the device at the adapter's largest compute
// limits); a kernel whose "chromium" or "pipeline" entry in web/wgsl_blockers.json records an
// error still fails with it (so the list is exact). Kernels naga cannot translate have no module.
//   node wgsl_kernels_chromium.mjs WGSL_DIR BLOCKERS.json KERNEL...
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { launch, check, failed } from "./harness.mjs";

const [dir, blockersFile, ...kernels] = process.argv.slice(2);
const blockers = JSON.parse(readFileSync(blockersFile, "utf8"));
const modules = kernels.filter((k) => !blockers[k]?.naga).map((k) => [k, readFileSync(join(dir, `${k}.wgsl`), "utf8")]);
for (const k of kernels.filter((k) => !existsSync(join(dir, `${k}.wgsl`)))) console.log(`skipped ${k}: naga does not translate it`);

const browser = await launch();
try {
  const page = await browser.newPage();
  // Any page of a secure origin has navigator.gpu: a blank one at 127.0.0.1, answered here.
  await page.setRequestInterception(true);
  page.on("request", (r) => r.respond({ status: 200, contentType: "text/html", body: "<!doctype html><title>WGSL kernels</title>" }));
  await page.goto("http://127.0.0.1/");
  const { adapter, results } = await page.evaluate(async (list) => {
    const adapter = await navigator.gpu?.requestAdapter();
    if (!adapter) return { adapter: null, results: [] };
    const names = ["maxComputeWorkgroupStorageSize", "maxComputeInvocationsPerWorkgroup", "maxComputeWorkgroupSizeX",
      "maxStorageBuffersPerShaderStage", "maxStorageBufferBindingSize", "maxImmediateSize"];
    const requiredLimits = Object.fromEntries(names.filter((n) => n in adapter.limits).map((n) => [n, adapter.limits[n]]));
    const device = await adapter.requestDevice({ requiredLimits });
    const results = [];
    for (const [kernel, code] of list) {
      const module = device.createShaderModule({ label: kernel, code });
      const errors = (await module.getCompilationInfo()).messages.filter((m) => m.type === "error")
        .map((m) => `${m.message} (line ${m.lineNum})`);
      let pipeline = null;
      if (errors.length === 0) {
        device.pushErrorScope("validation");
        device.createComputePipeline({ layout: "auto", compute: { module, entryPoint: "main" } });
        pipeline = (await device.popErrorScope())?.message.split("\n")[0] ?? null;
      }
      results.push({ kernel, errors, pipeline });
    }
    return { adapter: JSON.stringify(requiredLimits), results };
  }, modules);
  check(adapter !== null, `Chromium has a WebGPU adapter${adapter ? ` (${adapter})` : ""}`);
  for (const { kernel, errors, pipeline } of results) {
    const want = blockers[kernel] ?? {};
    const first = errors[0] ?? null;
    if (want.chromium) {
      check(first !== null && first.startsWith(want.chromium), `${kernel}: Chromium rejects the module as recorded (${want.chromium})` +
        (first === null ? "; it now compiles: take the entry out" : first.startsWith(want.chromium) ? "" : `; it now says: ${first}`));
      continue;
    }
    check(first === null, `${kernel}: Chromium compiles the module` + (first === null ? "" : `; ${errors.length} errors, the first: ${first}`));
    if (first !== null) continue;
    if (want.pipeline)
      check(pipeline !== null && pipeline.startsWith(want.pipeline), `${kernel}: its pipeline fails as recorded (${want.pipeline})` +
        (pipeline === null ? "; it now is created: take the entry out" : pipeline.startsWith(want.pipeline) ? "" : `; it now says: ${pipeline}`));
    else
      check(pipeline === null, `${kernel}: Chromium creates its compute pipeline` + (pipeline === null ? "" : `; ${pipeline}`));
  }
  const compiled = results.filter((r) => r.errors.length === 0).length, piped = results.filter((r) => r.errors.length === 0 && !r.pipeline).length;
  console.log(`${compiled} of ${kernels.length} kernels compile in Chromium, ${piped} give a pipeline`);
} finally {
  await browser.close();
}
process.exit(failed() ? 1 : 0);
