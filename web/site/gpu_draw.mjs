// Drawing on WebGPU straight from the solver's buffers (no copy): the cloth's vertex shader pulls
// positions, normals and velocities from the storage buffers the WGSL kernels write, through the
// model's index buffer. Also the sphere and floor, the pins, and the third document's own view:
// particles as instanced small spheres coloured by speed, constraints as lines coloured by signed
// strain. three.js supplies only the camera (matrices, OrbitControls). The look follows the WebGL2
// path (three.js Phong with a hemisphere and a key light, the checker texture).

const SHADER = /* wgsl */ `
struct View { viewProj: mat4x4f, origin: vec4f, eye: vec4f, mode: vec4u } // mode: x colour (0 texture, 1 speed, 2 strain)
struct Object { at: vec4f, colour: vec4f } // at: xyz centre (world), w scale
@group(0) @binding(0) var<uniform> view: View;
@group(0) @binding(1) var<storage, read> pos: array<vec4f>;
@group(0) @binding(2) var<storage, read> nrm: array<vec4f>;
@group(0) @binding(3) var<storage, read> vel: array<vec4f>;
@group(0) @binding(4) var<storage, read> uvs: array<vec2f>;
@group(0) @binding(5) var<storage, read> adjStart: array<u32>;
@group(0) @binding(6) var<storage, read> adjConstraint: array<u32>; // each adjacency entry's constraint
@group(0) @binding(7) var<storage, read> con: array<vec4u>;
@group(1) @binding(0) var<uniform> obj: Object;
@group(1) @binding(1) var<storage, read> list: array<u32>;

struct Out { @builtin(position) clip: vec4f, @location(0) world: vec3f, @location(1) normal: vec3f,
             @location(2) uv: vec2f, @location(3) colour: vec3f }

fn project(p: vec3f) -> vec4f {
  var c = view.viewProj * vec4f(p, 1.0);
  c.z = 0.5 * (c.z + c.w); // three.js' projection is for GL's clip depth [-1, 1]
  return c;
}
fn srgbToLinear(c: vec3f) -> vec3f { return pow(c, vec3f(2.2)); }
// The WebGL2 page's colour scales: speed teal to pink over 0..4 m/s; signed strain blue
// (compressed) through grey to red (stretched), saturated at 2 % so that 1 % shows at half.
fn speedColour(v: vec3f) -> vec3f {
  let s = min(1.0, length(v) / 4.0);
  return vec3f(0.13 + 0.83 * s, 0.83 - 0.38 * s, 0.93 - 0.22 * s);
}
fn strainColour(e: f32) -> vec3f {
  let t = clamp(e / 0.02, -1.0, 1.0);
  let g = 0.78;
  if (t >= 0.0) { return vec3f(g + (0.9 - g) * t, g * (1.0 - t) + 0.12 * t, g * (1.0 - t) + 0.08 * t); }
  return vec3f(g * (1.0 + t) + 0.1 * -t, g * (1.0 + t) + 0.35 * -t, g + (0.95 - g) * -t);
}
fn strainOf(k: u32) -> f32 {
  let q = con[k];
  let rest = bitcast<f32>(q.z);
  return (distance(pos[q.x].xyz, pos[q.y].xyz) - rest) / rest;
}
fn shade(albedo: vec3f, n0: vec3f, world: vec3f, front: bool) -> vec4f {
  var n = normalize(n0);
  if (!front) { n = -n; }
  let l = normalize(vec3f(4.5, 8.0, 4.0));
  let sky = srgbToLinear(vec3f(0.867, 0.902, 0.941));
  let ground = srgbToLinear(vec3f(0.188, 0.188, 0.173));
  let hemi = mix(ground, sky, 0.5 * n.y + 0.5) * 1.2;
  let diffuse = 1.6 * max(dot(n, l), 0.0);
  let e = normalize(view.eye.xyz - world);
  let spec = 0.15 * pow(max(dot(n, normalize(l + e)), 0.0), 20.0);
  let c = albedo * (hemi + vec3f(diffuse)) / 3.14159 * 1.45 + vec3f(spec);
  return vec4f(pow(clamp(c, vec3f(0.0), vec3f(1.0)), vec3f(1.0 / 2.2)), 1.0);
}

// The cloth: vertex pulling through the index buffer (vertex_index is the particle).
@vertex fn clothVs(@builtin(vertex_index) i: u32) -> Out {
  var o: Out;
  o.world = pos[i].xyz + view.origin.xyz;
  o.clip = project(o.world);
  o.normal = nrm[i].xyz;
  o.uv = uvs[i];
  if (view.mode.x == 1u) {
    o.colour = speedColour(vel[i].xyz);
  } else if (view.mode.x == 2u) {
    // Mean signed strain of the particle's stretch constraints (family 0).
    var sum = 0.0;
    var count = 0.0;
    for (var e = adjStart[i]; e < adjStart[i + 1u]; e++) {
      let k = adjConstraint[e];
      if (con[k].w == 0u) { sum += strainOf(k); count += 1.0; }
    }
    o.colour = strainColour(select(0.0, sum / count, count > 0.0));
  }
  return o;
}
@fragment fn clothFs(v: Out, @builtin(front_facing) front: bool) -> @location(0) vec4f {
  var albedo = v.colour;
  if (view.mode.x == 0u) {
    let c = floor(v.uv * 8.0);
    let odd = (i32(c.x) + i32(c.y)) % 2 != 0;
    albedo = select(vec3f(0.949, 0.902, 0.816), vec3f(0.784, 0.333, 0.239), odd);
  }
  return shade(srgbToLinear(albedo), v.normal, v.world, front);
}
@fragment fn wireFs(v: Out) -> @location(0) vec4f { return vec4f(0.067, 0.075, 0.094, 1.0); }

// Sphere and floor: a mesh placed by the object's uniform.
@vertex fn solidVs(@location(0) p: vec3f, @location(1) n: vec3f) -> Out {
  var o: Out;
  o.world = obj.at.xyz + obj.at.w * p;
  o.clip = project(o.world);
  o.normal = n;
  return o;
}
@fragment fn solidFs(v: Out, @builtin(front_facing) front: bool) -> @location(0) vec4f {
  return shade(srgbToLinear(obj.colour.rgb), v.normal, v.world, front);
}

// Instanced small spheres at the particles of the list: the pins (the object's colour) or every
// particle coloured by speed (colour alpha 0).
@vertex fn nodeVs(@location(0) p: vec3f, @location(1) n: vec3f, @builtin(instance_index) k: u32) -> Out {
  var o: Out;
  let i = list[k];
  o.world = pos[i].xyz + view.origin.xyz + obj.at.w * p;
  o.clip = project(o.world);
  o.normal = n;
  o.colour = select(speedColour(vel[i].xyz), obj.colour.rgb, obj.colour.a > 0.0);
  return o;
}
@fragment fn nodeFs(v: Out) -> @location(0) vec4f { return vec4f(pow(v.colour, vec3f(1.0)), 1.0); }

// The constraints as lines (two vertices each) coloured by signed strain.
@vertex fn ribbonVs(@builtin(vertex_index) j: u32) -> Out {
  var o: Out;
  let k = j / 2u;
  let q = con[k];
  o.world = pos[select(q.x, q.y, (j & 1u) == 1u)].xyz + view.origin.xyz;
  o.clip = project(o.world);
  o.colour = strainColour(strainOf(k));
  return o;
}
@fragment fn ribbonFs(v: Out) -> @location(0) vec4f { return vec4f(v.colour, 1.0); }
`;

// A unit sphere (rings x segments) as interleaved position/normal and an index list.
function sphereMesh(rings, segments) {
  const v = [], idx = [];
  for (let r = 0; r <= rings; ++r)
    for (let s = 0; s <= segments; ++s) {
      const th = Math.PI * r / rings, ph = 2 * Math.PI * s / segments;
      const p = [Math.sin(th) * Math.cos(ph), Math.cos(th), Math.sin(th) * Math.sin(ph)];
      v.push(...p, ...p);
    }
  for (let r = 0; r < rings; ++r)
    for (let s = 0; s < segments; ++s) {
      const a = r * (segments + 1) + s, b = a + segments + 1;
      idx.push(a, b, a + 1, a + 1, b, b + 1);
    }
  return { vertices: new Float32Array(v), indices: new Uint32Array(idx) };
}

export async function createGpuDraw(device, canvas, solver, { uvs, pins }) {
  const context = canvas.getContext("webgpu");
  const format = navigator.gpu.getPreferredCanvasFormat();
  context.configure({ device, format, alphaMode: "opaque", usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC });
  const module = device.createShaderModule({ code: SHADER, label: "gpu_draw" });
  const info = await module.getCompilationInfo();
  const errors = info.messages.filter((m) => m.type === "error");
  if (errors.length) throw new Error(`gpu_draw: ${errors.map((m) => `line ${m.lineNum}: ${m.message}`).join("; ")}`);
  const n = solver.model.particles, m = solver.model.constraints;
  const buffer = (data, usage) => {
    const b = device.createBuffer({ size: Math.max(16, data.byteLength), usage: usage | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(b, 0, data);
    return b;
  };
  const viewBuffer = device.createBuffer({ size: 112, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  const uvBuffer = buffer(uvs, GPUBufferUsage.STORAGE);
  // Wireframe: the triangles' edges as lines.
  const tri = solver.model.indices, edges = new Uint32Array(2 * tri.length);
  for (let t = 0; t < tri.length; t += 3)
    edges.set([tri[t], tri[t + 1], tri[t + 1], tri[t + 2], tri[t + 2], tri[t]], 2 * t);
  const edgeBuffer = buffer(edges, GPUBufferUsage.INDEX);
  const ball = sphereMesh(24, 48), small = sphereMesh(4, 8);
  const ballVerts = buffer(ball.vertices, GPUBufferUsage.VERTEX), ballIdx = buffer(ball.indices, GPUBufferUsage.INDEX);
  const smallVerts = buffer(small.vertices, GPUBufferUsage.VERTEX), smallIdx = buffer(small.indices, GPUBufferUsage.INDEX);
  const floorVerts = buffer(new Float32Array([-20, 0, -20, 0, 1, 0, 20, 0, -20, 0, 1, 0, -20, 0, 20, 0, 1, 0, 20, 0, 20, 0, 1, 0]), GPUBufferUsage.VERTEX);
  const floorIdx = buffer(new Uint32Array([0, 2, 1, 1, 2, 3]), GPUBufferUsage.INDEX);
  const vertexLayout = [{ arrayStride: 24, attributes: [{ shaderLocation: 0, offset: 0, format: "float32x3" }, { shaderLocation: 1, offset: 12, format: "float32x3" }] }];
  const depthStencil = { format: "depth24plus", depthWriteEnabled: true, depthCompare: "less" };
  // 4x MSAA, as the WebGL2 page (three.js with antialias): drawn into a multisampled target,
  // resolved into the canvas.
  const SAMPLES = 4;
  const pipeline = (vs, fs, topology, buffers = []) => device.createRenderPipelineAsync({
    layout: "auto", vertex: { module, entryPoint: vs, buffers },
    fragment: { module, entryPoint: fs, targets: [{ format }] },
    primitive: { topology, cullMode: "none" }, depthStencil, multisample: { count: SAMPLES },
  });
  const [cloth, wire, solid, node, ribbon] = await Promise.all([
    pipeline("clothVs", "clothFs", "triangle-list"), pipeline("clothVs", "wireFs", "line-list"),
    pipeline("solidVs", "solidFs", "triangle-list", vertexLayout), pipeline("nodeVs", "nodeFs", "triangle-list", vertexLayout),
    pipeline("ribbonVs", "ribbonFs", "line-list"),
  ]);
  // Group 0 of each pipeline: the view and the buffers its shaders read ("auto" layouts keep only those).
  const b = solver.buffers;
  const all = { 0: viewBuffer, 1: b.pos, 2: b.normals, 3: b.vel, 4: uvBuffer, 5: b.adjStart, 6: b.adjConstraint, 7: b.con };
  const group0 = (p, bindings) => device.createBindGroup({ layout: p.getBindGroupLayout(0), entries: bindings.map((k) => ({ binding: k, resource: { buffer: all[k] } })) });
  const objects = {};
  const object = (name, p, list) => {
    const u = device.createBuffer({ size: 32, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    const entries = [{ binding: 0, resource: { buffer: u } }];
    if (list) entries.push({ binding: 1, resource: { buffer: list } });
    objects[name] = { u, group: device.createBindGroup({ layout: p.getBindGroupLayout(1), entries }) };
  };
  const groups = {
    cloth: group0(cloth, [0, 1, 2, 3, 4, 5, 6, 7]), wire: group0(wire, [0, 1, 2, 3, 4, 5, 6, 7]),
    solid: group0(solid, [0]), node: group0(node, [0, 1, 3]), ribbon: group0(ribbon, [0, 1, 7]),
  };
  object("sphere", solid); object("floor", solid);
  let pinList = null;
  function setPins(list) {
    pins = list;
    pinList?.destroy();
    pinList = buffer(new Uint32Array(pins.length ? pins : [0]), GPUBufferUsage.STORAGE);
    object("pins", node, pinList);
  }
  setPins(pins);
  object("nodes", node, buffer(Uint32Array.from({ length: n }, (_, i) => i), GPUBufferUsage.STORAGE));
  let depth = null, msaa = null;

  // One picture of the current state. `capture`: also copy it out (RGBA bytes, rows of width).
  async function draw(camera, { origin, colour, view, wireframe, sphere, floor, nodeRadius }, capture = false) {
    const w = canvas.width, h = canvas.height;
    if (!depth || depth.width !== w || depth.height !== h) {
      depth?.destroy();
      msaa?.destroy();
      depth = device.createTexture({ size: [w, h], format: "depth24plus", sampleCount: SAMPLES, usage: GPUTextureUsage.RENDER_ATTACHMENT });
      msaa = device.createTexture({ size: [w, h], format, sampleCount: SAMPLES, usage: GPUTextureUsage.RENDER_ATTACHMENT });
    }
    const vp = camera.projectionMatrix.clone().multiply(camera.matrixWorldInverse);
    const data = new ArrayBuffer(112), f = new Float32Array(data), u = new Uint32Array(data);
    f.set(vp.elements, 0);
    f.set(origin, 16);
    f.set(camera.position.toArray(), 20);
    u[24] = { texture: 0, speed: 1, strain: 2 }[colour];
    device.queue.writeBuffer(viewBuffer, 0, data);
    const put = (name, at, colourRgba) => device.queue.writeBuffer(objects[name].u, 0, new Float32Array([...at, ...colourRgba]));
    put("sphere", [...sphere.center, sphere.radius], [0.133, 0.165, 0.22, 1]);
    put("floor", [0, floor.height, 0, 1], [0.612, 0.612, 0.596, 1]);
    put("pins", [0, 0, 0, 0.035], [0.847, 0.122, 0.039, 1]);
    put("nodes", [0, 0, 0, nodeRadius], [0, 0, 0, 0]);
    const target = context.getCurrentTexture();
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginRenderPass({
      colorAttachments: [{ view: msaa.createView(), resolveTarget: target.createView(),
        clearValue: { r: 0x20 / 255, g: 0x24 / 255, b: 0x2c / 255, a: 1 }, loadOp: "clear", storeOp: "discard" }],
      depthStencilAttachment: { view: depth.createView(), depthClearValue: 1, depthLoadOp: "clear", depthStoreOp: "store" },
    });
    const mesh = (p, g, name, verts, idx, count, instances = 1) => {
      pass.setPipeline(p); pass.setBindGroup(0, g); pass.setBindGroup(1, objects[name].group);
      pass.setVertexBuffer(0, verts); pass.setIndexBuffer(idx, "uint32"); pass.drawIndexed(count, instances);
    };
    if (floor.enabled) mesh(solid, groups.solid, "floor", floorVerts, floorIdx, 6);
    if (sphere.enabled) mesh(solid, groups.solid, "sphere", ballVerts, ballIdx, ball.indices.length);
    if (view !== "nodes") {
      pass.setPipeline(cloth); pass.setBindGroup(0, groups.cloth);
      pass.setIndexBuffer(b.indices, "uint32"); pass.drawIndexed(tri.length);
      if (wireframe) { pass.setPipeline(wire); pass.setBindGroup(0, groups.wire); pass.setIndexBuffer(edgeBuffer, "uint32"); pass.drawIndexed(edges.length); }
      if (pins.length) mesh(node, groups.node, "pins", smallVerts, smallIdx, small.indices.length, pins.length);
    }
    if (view !== "cloth") {
      mesh(node, groups.node, "nodes", smallVerts, smallIdx, small.indices.length, n);
      pass.setPipeline(ribbon); pass.setBindGroup(0, groups.ribbon); pass.draw(2 * m);
    }
    pass.end();
    let out = null;
    const row = Math.ceil(4 * w / 256) * 256;
    if (capture) {
      out = device.createBuffer({ size: row * h, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      encoder.copyTextureToBuffer({ texture: target }, { buffer: out, bytesPerRow: row }, [w, h]);
    }
    device.queue.submit([encoder.finish()]);
    if (!capture) return null;
    await out.mapAsync(GPUMapMode.READ);
    const bytes = new Uint8Array(out.getMappedRange());
    const rgba = new Uint8Array(4 * w * h);
    const bgra = format === "bgra8unorm";
    for (let y = 0; y < h; ++y)
      for (let x = 0; x < w; ++x) {
        const s = y * row + 4 * x, d = 4 * (y * w + x);
        rgba[d] = bytes[s + (bgra ? 2 : 0)]; rgba[d + 1] = bytes[s + 1]; rgba[d + 2] = bytes[s + (bgra ? 0 : 2)]; rgba[d + 3] = 255;
      }
    out.unmap();
    out.destroy();
    return { width: w, height: h, rgba };
  }
  return { draw, setPins, samples: SAMPLES, destroy() { depth?.destroy(); msaa?.destroy(); pinList?.destroy(); } };
}
