// Drawing on WebGL2 with three.js, from the positions the wasm CPU solver hands out: the cloth
// (a checker weave, or per-vertex speed or signed strain), its wireframe, the pins, the sphere and
// the floor, and the third document's own view (particles as small spheres coloured by speed,
// constraints as lines coloured by signed strain). The page loads this module only on WebGL2, so
// the WebGPU page does without three.js' renderer, materials and shaders.
import * as THREE from "three";

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

// The page's lit material: what three.js' MeshPhongMaterial computes for the page's two lights (a
// hemisphere light and a directional key light: Lambert diffuse, Blinn-Phong specular with
// Schlick's Fresnel, sRGB out; the same pixels), without the general material's machinery, which
// SwiftShader pays for on every pixel. `PER_VERTEX` shades at the vertices (the floor: its diffuse
// light is the same everywhere, its specular under a level). A fragment that the floor hides
// (below it, seen from above through its square) is dropped (`FLOOR_CLIP`, only while something
// reaches below the floor: a shader that may discard loses the early depth test) where the floor
// itself is drawn as the clear colour (see render).
const RECIPROCAL_PI = "0.3183098861837907";
const LIT_SHADE = `
uniform vec3 diffuse, specular, sky, ground, hemiDir, keyColor, keyDir;
uniform float shininess;
vec3 shade(vec3 n, vec3 base, vec3 world) {
  vec3 v = normalize(cameraPosition - world), h = normalize(keyDir + v);
  float nl = max(dot(n, keyDir), 0.0), nh = max(dot(n, h), 0.0), vh = max(dot(v, h), 0.0);
  float fresnel = exp2((-5.55473 * vh - 6.98316) * vh);
  vec3 f = specular * (1.0 - fresnel) + fresnel;
  vec3 irradiance = mix(ground, sky, 0.5 * dot(n, hemiDir) + 0.5) + nl * keyColor;
  vec3 c = irradiance * base * ${RECIPROCAL_PI} + nl * keyColor * f * (0.25 * ${RECIPROCAL_PI} * (0.5 * shininess + 1.0) * pow(nh, shininess));
  return mix(pow(c, vec3(0.41666)) * 1.055 - vec3(0.055), c * 12.92, vec3(lessThanEqual(c, vec3(0.0031308))));
}`;
// What the vertex stage hands the fragment stage (both declare it).
const LIT_VARYINGS = `
varying vec3 vNormal, vWorld;
varying vec2 vUv;
#if defined(USE_COLOR) || defined(PER_VERTEX)
varying vec3 vColor;
#endif
`;
const LIT_VERTEX = LIT_SHADE + LIT_VARYINGS + `
void main() {
  vec4 world = modelMatrix * vec4(position, 1.0);
  vWorld = world.xyz;
  vNormal = mat3(modelMatrix) * normal;
  vUv = uv;
#ifdef USE_COLOR
  vColor = color;
#endif
#ifdef PER_VERTEX
  vColor = shade(normalize(vNormal), diffuse, vWorld);
#endif
  gl_Position = projectionMatrix * viewMatrix * world;
}`;
const LIT_FRAGMENT = LIT_SHADE + `
#ifdef CHECKER
// The weave: 8 x 8 squares of two colours (linear) per unit of uv, the red where the squares'
// column and row sum to an even number, box-filtered over the pixel's footprint in uv (a texture
// mipmapped and filtered anisotropically in all but the cost: SwiftShader pays for its texels).
uniform vec3 checkerA, checkerB;
vec3 weave(vec2 uv) {
  vec2 p = 8.0 * uv, w = max(abs(dFdx(p)), abs(dFdy(p))) + 1e-4;
  vec2 i = 2.0 * (abs(fract((p - 0.5 * w) * 0.5) - 0.5) - abs(fract((p + 0.5 * w) * 0.5) - 0.5)) / w;
  return mix(checkerA, checkerB, 0.5 - 0.5 * i.x * i.y);
}
#endif
uniform vec2 floorClip; // the floor's height and half size; size 0: no floor hides anything
` + LIT_VARYINGS + `
void main() {
#ifdef PER_VERTEX
  gl_FragColor = vec4(vColor, 1.0);
#else
#ifdef FLOOR_CLIP
  if (vWorld.y < floorClip.x && cameraPosition.y > floorClip.x) {
    vec3 q = mix(cameraPosition, vWorld, (cameraPosition.y - floorClip.x) / (cameraPosition.y - vWorld.y));
    if (max(abs(q.x), abs(q.z)) < floorClip.y) discard;
  }
#endif
  vec3 n = normalize(vNormal);
#ifdef DOUBLE
  n *= gl_FrontFacing ? 1.0 : -1.0;
#endif
  vec3 base = diffuse;
#ifdef CHECKER
  base *= weave(vUv);
#endif
#ifdef USE_COLOR
  base *= vColor;
#endif
  gl_FragColor = vec4(shade(n, base, vWorld), 1.0);
#endif
}`;
// The lights (as three.js' HemisphereLight(0xdde6f0, 0x30302c, 1.2) and DirectionalLight(white,
// 1.6) from (4.5, 8, 4) had them); three.js' Phong specular colour.
const LIGHTS = {
  sky: new THREE.Color(0xdde6f0).multiplyScalar(1.2), ground: new THREE.Color(0x30302c).multiplyScalar(1.2), hemiDir: new THREE.Vector3(0, 1, 0),
  keyColor: new THREE.Color(0xffffff).multiplyScalar(1.6), keyDir: new THREE.Vector3(4.5, 8, 4).normalize(),
};
const floorClip = { value: new THREE.Vector2(0, 0) };
function litMaterial({ color = 0xffffff, shininess = 30, checker = false, side = THREE.FrontSide, perVertex = false }) {
  const uniforms = {
    diffuse: { value: new THREE.Color(color) }, specular: { value: new THREE.Color(0x111111) }, shininess: { value: shininess }, floorClip,
    checkerA: { value: new THREE.Color(0xc8553d) }, checkerB: { value: new THREE.Color(0xf2e6d0) },
  };
  for (const [k, v] of Object.entries(LIGHTS)) uniforms[k] = { value: v };
  const defines = {};
  if (checker) defines.CHECKER = "";
  if (side === THREE.DoubleSide) defines.DOUBLE = "";
  if (perVertex) defines.PER_VERTEX = "";
  return new THREE.ShaderMaterial({ uniforms, defines, side, vertexShader: LIT_VERTEX, fragmentShader: LIT_FRAGMENT });
}

// The floor (FLOOR_HALF on each side of the origin) seen from above is one colour to the level:
// the diffuse light on a level plane (its specular, under a level where the view sees it, left
// out). SwiftShader pays for every pixel of a mesh under 4x MSAA, and the floor fills most of the
// picture: from above, the picture is cleared to the floor's colour and the background drawn
// instead, as a box around the scene open at the floor's square, at the far end of the depth
// range (behind everything, wherever the box is) and after the rest. From below or outside the
// box, the floor mesh.
const FLOOR_HALF = 20, BOX_HALF = 150;
const BACKGROUND = 0x20242c;
const floorColour = new THREE.Color(0x9c9c98).multiply(LIGHTS.sky.clone().add(LIGHTS.keyColor.clone().multiplyScalar(LIGHTS.keyDir.y))).multiplyScalar(1 / Math.PI);
function backgroundBox() {
  const F = FLOOR_HALF, B = BOX_HALF, quads = [
    [[-B, 0, -B], [B, 0, -B], [B, 0, -F], [-B, 0, -F]], [[-B, 0, F], [B, 0, F], [B, 0, B], [-B, 0, B]], // the floor's level, around its square
    [[-B, 0, -F], [-F, 0, -F], [-F, 0, F], [-B, 0, F]], [[F, 0, -F], [B, 0, -F], [B, 0, F], [F, 0, F]],
    [[-B, 0, -B], [-B, B, -B], [B, B, -B], [B, 0, -B]], [[-B, 0, B], [-B, B, B], [B, B, B], [B, 0, B]], // the walls and the top
    [[-B, 0, -B], [-B, B, -B], [-B, B, B], [-B, 0, B]], [[B, 0, -B], [B, B, -B], [B, B, B], [B, 0, B]],
    [[-B, B, -B], [B, B, -B], [B, B, B], [-B, B, B]],
  ];
  const position = [];
  for (const [a, b, c, d] of quads) position.push(...a, ...b, ...c, ...a, ...c, ...d);
  const geometry = new THREE.BufferGeometry();
  geometry.setAttribute("position", new THREE.Float32BufferAttribute(position, 3));
  const c = new THREE.Color(BACKGROUND); // sRGB as it is, written as it is
  const material = new THREE.ShaderMaterial({
    side: THREE.DoubleSide, uniforms: { colour: { value: new THREE.Vector3(c.getHex() >> 16, (c.getHex() >> 8) & 255, c.getHex() & 255).divideScalar(255) } },
    vertexShader: "void main() { gl_Position = projectionMatrix * modelViewMatrix * vec4(position, 1.0); gl_Position.z = 0.99999 * gl_Position.w; }",
    fragmentShader: "uniform vec3 colour; void main() { gl_FragColor = vec4(colour, 1.0); }",
  });
  const mesh = new THREE.Mesh(geometry, material);
  mesh.renderOrder = 1; // after the rest: what they cover it does not draw
  mesh.frustumCulled = false;
  return mesh;
}

export function createGlDraw(canvas, gl) {
  const renderer = new THREE.WebGLRenderer({ canvas, context: gl, antialias: true });
  const scene = new THREE.Scene();
  const background = new THREE.Color(BACKGROUND);
  scene.background = background.clone();
  const clothMaterial = litMaterial({ checker: true, side: THREE.DoubleSide, shininess: 20 });
  const wireMaterial = new THREE.MeshBasicMaterial({ color: 0x111318, wireframe: true });
  const sphereMesh = new THREE.Mesh(new THREE.SphereGeometry(1, 48, 32), litMaterial({ color: 0x222a38, shininess: 60 }));
  const floorMesh = new THREE.Mesh(new THREE.PlaneGeometry(2 * FLOOR_HALF, 2 * FLOOR_HALF, 32, 32), litMaterial({ color: 0x9c9c98, perVertex: true }));
  floorMesh.rotation.x = -Math.PI / 2;
  floorMesh.renderOrder = 1; // last of the opaque meshes: what they cover it does not draw
  const boxMesh = backgroundBox();
  scene.add(sphereMesh, floorMesh, boxMesh);
  let floorOn = false;
  const pinGeometry = new THREE.SphereGeometry(0.035, 12, 8), pinMaterial = litMaterial({ color: 0xd81f0a });
  let clothMesh = null, wireMesh = null, nodes = null, ribbons = null, pinMarkers = null, constraints = null, pins = [];

  // One small red sphere per pinned particle.
  function setPins(list) {
    pins = list;
    if (pinMarkers) scene.remove(pinMarkers);
    pinMarkers = new THREE.Group();
    for (let k = 0; k < pins.length; ++k) pinMarkers.add(new THREE.Mesh(pinGeometry, pinMaterial));
    scene.add(pinMarkers);
  }

  // The meshes of a cloth's topology (again when tearing changed it).
  function build(cloth, constraintList, pinList) {
    if (clothMesh) {
      scene.remove(clothMesh, wireMesh, nodes, ribbons);
      for (const o of [clothMesh, nodes, ribbons]) o.geometry.dispose();
      nodes.dispose();
    }
    constraints = constraintList;
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute("position", new THREE.BufferAttribute(cloth.positions(), 3));
    geometry.setAttribute("uv", new THREE.BufferAttribute(cloth.uvs(), 2));
    geometry.setIndex(new THREE.BufferAttribute(cloth.indices(), 1));
    geometry.computeVertexNormals();
    geometry.setAttribute("color", new THREE.BufferAttribute(new Float32Array(3 * cloth.particles), 3));
    clothMesh = new THREE.Mesh(geometry, clothMaterial);
    clothMesh.renderOrder = -1; // first: what it covers of the sphere the depth test skips
    wireMesh = new THREE.Mesh(geometry, wireMaterial);
    setPins(pinList);
    const m = constraints.rest.length;
    nodes = new THREE.InstancedMesh(new THREE.IcosahedronGeometry(0.25 * constraints.rest[0], 1), new THREE.MeshBasicMaterial(), cloth.particles);
    nodes.instanceColor = new THREE.InstancedBufferAttribute(new Float32Array(3 * cloth.particles), 3);
    const lines = new THREE.BufferGeometry();
    lines.setAttribute("position", new THREE.BufferAttribute(new Float32Array(6 * m), 3));
    lines.setAttribute("color", new THREE.BufferAttribute(new Float32Array(6 * m), 3));
    ribbons = new THREE.LineSegments(lines, new THREE.LineBasicMaterial({ vertexColors: true, transparent: true, opacity: 0.8 }));
    nodes.frustumCulled = ribbons.frustumCulled = false;
    scene.add(clothMesh, wireMesh, nodes, ribbons);
  }

  // The meshes from positions p (world, xyz per particle): normals, colliders, pins, the views.
  function sync(cloth, p, { colliders: col, sphereRadius, view, colour, wireframe }) {
    const attr = clothMesh.geometry.getAttribute("position");
    attr.array.set(p);
    attr.needsUpdate = true;
    clothMesh.geometry.computeVertexNormals();
    clothMesh.geometry.computeBoundingSphere();
    sphereMesh.position.set(...col.center);
    sphereMesh.scale.setScalar(sphereRadius);
    sphereMesh.visible = col.sphere;
    floorOn = col.floor;
    floorMesh.position.y = boxMesh.position.y = col.floorHeight;
    pins.forEach((i, k) => pinMarkers.children[k].position.set(p[3 * i], p[3 * i + 1], p[3 * i + 2]));
    clothMesh.visible = view !== "nodes";
    wireMesh.visible = clothMesh.visible && wireframe;
    nodes.visible = ribbons.visible = view !== "cloth";
    const v = colour === "speed" || nodes.visible ? cloth.velocities() : null;
    // The cloth: its texture, or per-vertex speed / mean signed strain of its stretch constraints.
    const wantColours = colour !== "texture";
    if (clothMaterial.vertexColors !== wantColours) {
      clothMaterial.vertexColors = wantColours;
      if (wantColours) delete clothMaterial.defines.CHECKER;
      else clothMaterial.defines.CHECKER = "";
      clothMaterial.needsUpdate = true;
    }
    const n = cloth.particles;
    if (wantColours && clothMesh.visible) {
      const c = clothMesh.geometry.getAttribute("color");
      if (colour === "speed") for (let i = 0; i < n; ++i) speedColour(c.array, i, v);
      else {
        const sum = new Float32Array(n), count = new Uint16Array(n);
        for (let k = 0; k < constraints.rest.length; ++k) {
          if (constraints.family[k] !== 0) continue;
          const a = constraints.pairs[2 * k], b = constraints.pairs[2 * k + 1], e = strainOf(p, a, b, constraints.rest[k]);
          sum[a] += e; sum[b] += e; count[a]++; count[b]++;
        }
        for (let i = 0; i < n; ++i) strainColour(c.array, i, count[i] ? sum[i] / count[i] : 0);
      }
      c.needsUpdate = true;
    }
    if (nodes.visible) {
      const matrix = new THREE.Matrix4();
      for (let i = 0; i < n; ++i) {
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

  // The particle nearest to the ray's hit on the cloth (a corner of the hit triangle), or -1.
  function pick(raycaster, p) {
    const hit = raycaster.intersectObject(clothMesh)[0];
    if (!hit) return -1;
    let best = -1, bestD = Infinity;
    for (const i of [hit.face.a, hit.face.b, hit.face.c]) {
      const d = hit.point.distanceToSquared(new THREE.Vector3(p[3 * i], p[3 * i + 1], p[3 * i + 2]));
      if (d < bestD) { bestD = d; best = i; }
    }
    return best;
  }

  return {
    build, setPins, sync, pick,
    render(camera) {
      // The floor as the clear colour where the camera is above it and inside the box.
      const c = camera.position, y = floorMesh.position.y;
      const cleared = floorOn && c.y > y && c.y < y + BOX_HALF && Math.max(Math.abs(c.x), Math.abs(c.z)) < BOX_HALF;
      scene.background.copy(cleared ? floorColour : background);
      boxMesh.visible = cleared;
      floorMesh.visible = floorOn && !cleared;
      floorClip.value.set(y, FLOOR_HALF);
      const cloth = clothMesh.geometry.boundingSphere;
      const clip = cleared && ((clothMesh.visible && cloth.center.y - cloth.radius < y) || (sphereMesh.visible && sphereMesh.position.y - sphereMesh.scale.y < y) ||
        pinMarkers.children.some((m) => m.position.y - 0.035 < y));
      for (const m of [clothMaterial, sphereMesh.material, pinMaterial])
        if (("FLOOR_CLIP" in m.defines) !== clip) {
          if (clip) m.defines.FLOOR_CLIP = "";
          else delete m.defines.FLOOR_CLIP;
          m.needsUpdate = true;
        }
      renderer.render(scene, camera);
    },
    resize(w, h, ratio) { renderer.setPixelRatio(ratio); renderer.setSize(w, h, false); },
  };
}
