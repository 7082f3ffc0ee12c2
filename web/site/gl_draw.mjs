// Drawing on WebGL2 with three.js, from the positions the wasm CPU solver hands out: the cloth
// (checker texture, or per-vertex speed or signed strain), its wireframe, the pins, the sphere and
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

export function createGlDraw(canvas, gl) {
  const renderer = new THREE.WebGLRenderer({ canvas, context: gl, antialias: true });
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0x20242c);
  scene.add(new THREE.HemisphereLight(0xdde6f0, 0x30302c, 1.2));
  const key = new THREE.DirectionalLight(0xffffff, 1.6);
  key.position.set(4.5, 8, 4);
  scene.add(key);
  const texture = checkerTexture();
  const clothMaterial = new THREE.MeshPhongMaterial({ map: texture, side: THREE.DoubleSide, shininess: 20 });
  const wireMaterial = new THREE.MeshBasicMaterial({ color: 0x111318, wireframe: true });
  const sphereMesh = new THREE.Mesh(new THREE.SphereGeometry(1, 48, 32), new THREE.MeshPhongMaterial({ color: 0x222a38, shininess: 60 }));
  const floorMesh = new THREE.Mesh(new THREE.PlaneGeometry(40, 40), new THREE.MeshPhongMaterial({ color: 0x9c9c98 }));
  floorMesh.rotation.x = -Math.PI / 2;
  scene.add(sphereMesh, floorMesh);
  const pinGeometry = new THREE.SphereGeometry(0.035, 12, 8), pinMaterial = new THREE.MeshPhongMaterial({ color: 0xd81f0a });
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
    floorMesh.visible = col.floor;
    floorMesh.position.y = col.floorHeight;
    pins.forEach((i, k) => pinMarkers.children[k].position.set(p[3 * i], p[3 * i + 1], p[3 * i + 2]));
    clothMesh.visible = view !== "nodes";
    wireMesh.visible = clothMesh.visible && wireframe;
    nodes.visible = ribbons.visible = view !== "cloth";
    const v = colour === "speed" || nodes.visible ? cloth.velocities() : null;
    // The cloth: its texture, or per-vertex speed / mean signed strain of its stretch constraints.
    const wantColours = colour !== "texture";
    if (clothMaterial.vertexColors !== wantColours) {
      clothMaterial.vertexColors = wantColours;
      clothMaterial.map = wantColours ? null : texture;
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
    render: (camera) => renderer.render(scene, camera),
    resize(w, h, ratio) { renderer.setPixelRatio(ratio); renderer.setSize(w, h, false); },
  };
}
