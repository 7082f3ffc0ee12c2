// The page's JavaScript for the site: web/site/app.mjs bundled and minified by esbuild into
// OUT_DIR/app.js (ES modules, top-level await) with what it uses of three.js, and the WebGL2
// drawing (site/gl_draw.mjs with three.js' renderer) in a chunk of its own under chunks/, which
// only the WebGL2 page loads. "three" resolves to three.js' source modules: the whole library
// (src/Three.js) for gl_draw.mjs, site/three_page.mjs (the few classes they use) for the rest, so
// that the renderer is reached from gl_draw.mjs alone and lands in its chunk. Source maps beside
// (fetched only by a browser's developer tools).
//   node build_site.mjs OUT_DIR
import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "package.json"));
const esbuild = require("esbuild");
const outdir = resolve(process.argv[2]);
const whole = require.resolve("three/src/Three.js"), page = join(here, "site/three_page.mjs");
rmSync(join(outdir, "chunks"), { recursive: true, force: true });
await esbuild.build({
  entryPoints: [join(here, "site/app.mjs")], outdir, entryNames: "[name]", chunkNames: "chunks/[name]-[hash]",
  bundle: true, splitting: true, format: "esm", target: "es2022", minify: true, legalComments: "none",
  sourcemap: true, sourcesContent: false, logLevel: "warning",
  plugins: [{
    name: "three",
    setup(build) {
      build.onResolve({ filter: /^three$/ }, (args) => ({ path: args.importer.endsWith("gl_draw.mjs") ? whole : page }));
    },
  }],
});
