// The WebGPU solver: the WGSL kernels of weft_gpu.wgsl stepping one cloth whose model, clock and
// live values come from the wasm core (weft_core.mjs). The per-range path of the Vulkan backend:
//   frame start: predict with PUSH_SHIFT (the core's re-centring)
//   (XPBD and Jacobi with drag or lift: per substep first aero, the acceleration into prev)
//   XPBD:    per substep: predict, iterations x colours x solve (one dispatch per colour range),
//            the tethers (predict with PUSH_TETHER) where the cloth has them, finish
//   Jacobi:  per substep: predict, iterations x sweep (A->B, B->A, positions and velocities), the
//            tethers, finish
//   springs: per substep: springs (A->B or B->A, collisions fused), the tethers; odd counts copy B -> A
//   normals, the frame check (check writes each particle's energy terms, checkSum adds them up)
// Tearing: after a good frame of a cloth that tears, the state comes back and the core tears from
// it; step() then says "torn" and the caller builds a new solver from the host state.
// A frame starts with a copy of the state to a backup; the check's status (48 bytes: the first bad
// particles, the first that tunnelled through the sphere, the reference particle, the energy
// pre-test's sums) is read back after each frame. When the pre-test fails, the state and the backup
// come back too for the core's exact energy rule (wfCheckEnergy), as on Vulkan. A bad frame is
// restored from the backup and reported to the core (which counts, logs and recovers as
// wfWorld_Step does), a good one gives the reference for the core's next frame start.
// The dispatch list is built once per (solver, substeps, iterations) from pre-made bind groups
// (one small uniform per dispatch stands in for Vulkan's push constants); each frame encodes it
// again (WebGPU command buffers are single-use) after one writeBuffer of the frame's live values.
// WebGPU orders the dispatches of a pass: a dispatch sees every earlier one's writes.
// After each frame the reference particle (16 bytes) is read back for the core's next frame start.

const GROUP = 128;
const PUSH_FIRST_ITERATION = 1, PUSH_DAMPED = 2, PUSH_SHIFT = 8, PUSH_TETHER = 32, PUSH_TETHER_VEL = 64;
const PUSH_STRIDE = 256; // minUniformBufferOffsetAlignment

// Which bindings each entry point uses (its "auto" layout), for the buffers (a) and swapped (b).
const USES = {
  predict: [0, 1, 2, 5, 7], aero: [0, 1, 2, 5, 13, 14, 15, 20], finish: [0, 1, 2, 5], xpbdSolve: [0, 1, 2, 6, 7],
  jacobiSweep: [0, 1, 2, 3, 4, 7, 8, 9, 11], springs: [0, 1, 2, 3, 4, 7, 8, 9], computeNormals: [1, 12, 13, 14, 15],
  check: [0, 1, 2, 16, 17, 18, 19], checkSum: [16, 19],
};
const NONE = 0xffffffff;

export async function createGpuSolver(device, cloth, wgsl) {
  const model = cloth.model();
  const n = model.particles;
  const S = GPUBufferUsage.STORAGE, D = GPUBufferUsage.COPY_DST, C = GPUBufferUsage.COPY_SRC;
  const make = (bytes, usage, data) => {
    const b = device.createBuffer({ size: Math.max(16, Math.ceil(bytes / 4) * 4), usage });
    if (data) device.queue.writeBuffer(b, 0, data);
    return b;
  };
  // The vertex stage of the page's drawing reads positions, normals and velocities as storage.
  const state = S | D | C | GPUBufferUsage.VERTEX;
  const buf = {
    0: make(cloth.gpuFrameBytes(), S | D),
    1: make(16 * n, state), 2: make(16 * n, state), 3: make(16 * n, state), 4: make(16 * n, state),
    5: make(16 * n, S), 6: make(4 * model.constraints, S),
    7: make(model.con.byteLength, S | D, model.con), // the constraints, then the tethers if any
    8: make(4 * (n + 1), S | D, model.adjStart),
    9: make(4 * model.adj.length, S | D, model.adj),
    11: make(4 * model.constraints, S | D, model.jacobiWeight),
    12: make(16 * n, state),
    13: make(4 * (n + 1), S | D, model.triStart),
    14: make(4 * model.triList.length, S | D, model.triList),
    15: make(4 * model.indices.length, S | D | GPUBufferUsage.INDEX, model.indices),
    16: make(48, S | D | C),
    17: make(16 * n, S | D | C), 18: make(16 * n, S | D | C), // the frame-start positions and velocities
    19: make(16 * n, S), // the check's per-particle energy terms
    20: make(4 * n, S | D, cloth.airShares()),
  };
  buf.backupPos = buf[17];
  buf.backupVel = buf[18];
  const swap = { 1: 3, 3: 1, 2: 4, 4: 2 };
  const module = device.createShaderModule({ code: wgsl, label: "weft_gpu.wgsl" });
  const info = await module.getCompilationInfo();
  const errors = info.messages.filter((m) => m.type === "error");
  if (errors.length) throw new Error(`weft_gpu.wgsl: ${errors.map((m) => `line ${m.lineNum}: ${m.message}`).join("; ")}`);
  const pipes = {}, groups = {};
  await Promise.all(Object.keys(USES).map(async (entry) => {
    pipes[entry] = await device.createComputePipelineAsync({ layout: "auto", compute: { module, entryPoint: entry }, label: entry });
  }));
  // Group 0 of every pipeline, both variants; again when the frame buffer grows (wave wind with
  // more substeps).
  function makeGroups() {
    for (const entry of Object.keys(USES))
      groups[entry] = [0, 1].map((variant) => device.createBindGroup({
        layout: pipes[entry].getBindGroupLayout(0),
        entries: USES[entry].map((b) => ({ binding: b, resource: { buffer: buf[variant ? swap[b] ?? b : b] } })),
      }));
  }
  makeGroups();
  const readStatus = device.createBuffer({ size: 48, usage: GPUBufferUsage.MAP_READ | D });
  const statusReset = new Uint32Array([NONE, NONE, NONE, NONE, 0, 0, 0, 0, 0, 0, 0, 0]);

  // The dispatch list of a frame for the current step def; rebuilt when it changes.
  let ops = null, opsKey = "", pushBuffer = null;
  function buildOps(solver, substeps, iterations, aero) {
    const list = [], pushes = [];
    const dispatch = (entry, lo, count, substep, flags, variant = 0) => {
      pushes.push([lo, count, substep, flags]);
      list.push({ entry, variant, push: pushes.length - 1, groups: Math.ceil(count / GROUP) });
    };
    dispatch("predict", 0, n, 0, PUSH_SHIFT);
    for (let s = 0; s < substeps; ++s) {
      if (aero && solver !== "springs") dispatch("aero", 0, n, s, 0); // drag and lift into prev, for predict
      if (solver === "xpbd") {
        dispatch("predict", 0, n, s, PUSH_DAMPED);
        for (let it = 0; it < iterations; ++it)
          for (let r = 0; r < model.solveRange.length; r += 2) // the model's order (its colours, or tiles)
            dispatch("xpbdSolve", model.solveRange[r], model.solveRange[r + 1] - model.solveRange[r], s, it === 0 ? PUSH_FIRST_ITERATION : 0);
        if (model.tethers) dispatch("predict", 0, n, s, PUSH_TETHER);
        dispatch("finish", 0, n, s, 0);
      } else if (solver === "jacobi") {
        dispatch("predict", 0, n, s, 0);
        for (let it = 0; it < iterations; ++it) dispatch("jacobiSweep", 0, n, s, 0, it & 1);
        if (iterations & 1) list.push({ copy: [[3, 1], [4, 2]] }); // positions and velocities
        if (model.tethers) dispatch("predict", 0, n, s, PUSH_TETHER);
        dispatch("finish", 0, n, s, 0);
      } else {
        dispatch("springs", 0, n, s, 0, s & 1);
        if (model.tethers) dispatch("predict", 0, n, s, PUSH_TETHER | PUSH_TETHER_VEL, (s + 1) & 1); // the pair just written
      }
    }
    if (solver === "springs" && (substeps & 1)) list.push({ copy: [[3, 1], [4, 2]] });
    dispatch("computeNormals", 0, n, 0, 0);
    dispatch("check", 0, n, substeps - 1, 0); // contacts at the last substep's end
    dispatch("checkSum", 0, n, substeps - 1, 0);
    list[list.length - 1].groups = 1; // one workgroup adds up the check's terms
    pushBuffer?.destroy();
    pushBuffer = device.createBuffer({ size: PUSH_STRIDE * pushes.length, usage: GPUBufferUsage.UNIFORM | D });
    const words = new Uint32Array(PUSH_STRIDE / 4 * pushes.length);
    pushes.forEach((p, k) => words.set(p, k * PUSH_STRIDE / 4));
    device.queue.writeBuffer(pushBuffer, 0, words);
    for (const op of list) {
      if (op.copy) continue;
      op.bind = [groups[op.entry][op.variant], device.createBindGroup({
        layout: pipes[op.entry].getBindGroupLayout(1),
        entries: [{ binding: 0, resource: { buffer: pushBuffer, offset: PUSH_STRIDE * op.push, size: 16 } }],
      })];
    }
    return list;
  }

  let ref = [0, 0, 0];
  // The host state (after creation, a reset, a grab or a release) onto the GPU.
  function upload() {
    const s = cloth.localState();
    device.queue.writeBuffer(buf[1], 0, s.pos);
    device.queue.writeBuffer(buf[2], 0, s.vel);
    const k = 4 * Math.floor(n / 2);
    ref = [s.pos[k], s.pos[k + 1], s.pos[k + 2]];
  }
  upload();

  // Particle buffers (16 n bytes each) as they are, read back.
  async function readBack(list) {
    const out = device.createBuffer({ size: 16 * n * list.length, usage: GPUBufferUsage.MAP_READ | D });
    const encoder = device.createCommandEncoder();
    list.forEach((b, k) => encoder.copyBufferToBuffer(b, 0, out, 16 * n * k, 16 * n));
    device.queue.submit([encoder.finish()]);
    await out.mapAsync(GPUMapMode.READ);
    const raw = out.getMappedRange().slice(0);
    out.destroy();
    return list.map((b, k) => new Float32Array(raw, 16 * n * k, 4 * n));
  }
  // The positions buffer as it is (local frame, inverse mass in w).
  const readLocal = async () => (await readBack([buf[1]]))[0];

  let dispatches = 0;
  return {
    buffers: { pos: buf[1], vel: buf[2], normals: buf[12], indices: buf[15], con: buf[7], adjStart: buf[8], adj: buf[9] },
    model,
    dispatchesPerFrame: () => dispatches,
    upload,
    // One particle's inverse mass and velocity from the host (grab and release change only those).
    uploadParticle(i) {
      const s = cloth.localState();
      device.queue.writeBuffer(buf[1], 16 * i + 12, s.pos, 4 * i + 3, 1);
      device.queue.writeBuffer(buf[2], 16 * i, s.vel, 4 * i, 4);
    },
    // The inverse masses (w of each position) from the host, the positions kept: after the mass
    // or the pins changed in the core (its host positions are those of the last upload).
    async uploadInverseMasses() {
      const pos = await readLocal(), host = cloth.localState().pos;
      for (let i = 0; i < n; ++i) pos[4 * i + 3] = host[4 * i + 3];
      device.queue.writeBuffer(buf[1], 0, pos);
    },
    // The inverse masses on the GPU (w of each position), read back.
    async inverseMasses() {
      const pos = await readLocal();
      return Float32Array.from({ length: n }, (_, i) => pos[4 * i + 3]);
    },
    // One frame: the core's live values, the dispatches, the reference read back, the core's frame end.
    async step() {
      const aero = cloth.gpuAero();
      const key = `${cloth.solver} ${cloth.substeps} ${cloth.iterations} ${aero}`;
      const frameBytes = cloth.gpuBegin(ref);
      if (frameBytes.byteLength > buf[0].size) {
        buf[0].destroy();
        buf[0] = make(2 * frameBytes.byteLength, S | D);
        makeGroups();
        opsKey = "";
      }
      if (key !== opsKey) { ops = buildOps(cloth.solver, cloth.substeps, cloth.iterations, aero); opsKey = key; }
      device.queue.writeBuffer(buf[0], 0, frameBytes);
      device.queue.writeBuffer(buf[16], 0, statusReset);
      const encoder = device.createCommandEncoder();
      encoder.copyBufferToBuffer(buf[1], 0, buf.backupPos, 0, 16 * n);
      encoder.copyBufferToBuffer(buf[2], 0, buf.backupVel, 0, 16 * n);
      let pass = encoder.beginComputePass();
      dispatches = 0;
      for (const op of ops) {
        if (op.copy) {
          pass.end();
          for (const [from, to] of op.copy) encoder.copyBufferToBuffer(buf[from], 0, buf[to], 0, 16 * n);
          pass = encoder.beginComputePass();
          continue;
        }
        pass.setPipeline(pipes[op.entry]);
        pass.setBindGroup(0, op.bind[0]);
        pass.setBindGroup(1, op.bind[1]);
        pass.dispatchWorkgroups(op.groups);
        ++dispatches;
      }
      pass.end();
      encoder.copyBufferToBuffer(buf[16], 0, readStatus, 0, 48);
      device.queue.submit([encoder.finish()]);
      await readStatus.mapAsync(GPUMapMode.READ);
      const raw = readStatus.getMappedRange().slice(0);
      readStatus.unmap();
      const st = new Uint32Array(raw), r = new Float32Array(raw);
      // The CPU scans in index order and stops at the first bad particle of either kind.
      let verdict = 0, particle = -1, contact = false;
      if (st[0] !== NONE || st[1] !== NONE) {
        const nonFinite = st[0] < st[1];
        verdict = nonFinite ? 2 : 1;
        particle = nonFinite ? st[0] : st[1];
        contact = !nonFinite && st[2] !== NONE;
      } else if (cloth.gpuEnergyPreTest(r[8], r[9], r[10], r[11])) {
        // The pre-test on the sums failed: the exact rule on the state and the backup (rare).
        const [pos, vel, pos0, vel0] = await readBack([buf[1], buf[2], buf.backupPos, buf.backupVel]);
        if (cloth.gpuEnergyExact(pos, vel, pos0, vel0)) verdict = 1;
      }
      if (verdict !== 0) {
        const undo = device.createCommandEncoder();
        undo.copyBufferToBuffer(buf.backupPos, 0, buf[1], 0, 16 * n);
        undo.copyBufferToBuffer(buf.backupVel, 0, buf[2], 0, 16 * n);
        const again = undo.beginComputePass(), normals = ops.find((op) => op.entry === "computeNormals");
        again.setPipeline(pipes.computeNormals);
        again.setBindGroup(0, normals.bind[0]);
        again.setBindGroup(1, normals.bind[1]);
        again.dispatchWorkgroups(normals.groups);
        again.end();
        device.queue.submit([undo.finish()]);
      } else {
        ref = [r[4], r[5], r[6]];
      }
      // The core's frame end; a reset (badFrame "reset") changed the host state (and undid any tears:
      // then the solver is built again).
      if (cloth.gpuEnd(verdict, particle, contact, st[3] === NONE ? -1 : st[3])) {
        if (cloth.particles !== n) return "torn";
        upload();
      }
      // Tearing: after a good frame the core tears from the state read back; a new topology needs
      // a new solver (the caller builds it from the host state).
      if (verdict === 0 && cloth.gpuTears()) {
        const [pos, vel] = await readBack([buf[1], buf[2]]);
        if (cloth.gpuTear(pos, vel)) return "torn";
      }
      return "";
    },
    // Positions (world, xyz per particle, as wfCloth_ReadPositions rounds them) and velocities.
    async read() {
      const out = device.createBuffer({ size: 32 * n, usage: GPUBufferUsage.MAP_READ | D });
      const encoder = device.createCommandEncoder();
      encoder.copyBufferToBuffer(buf[1], 0, out, 0, 16 * n);
      encoder.copyBufferToBuffer(buf[2], 0, out, 16 * n, 16 * n);
      device.queue.submit([encoder.finish()]);
      await out.mapAsync(GPUMapMode.READ);
      const raw = new Float32Array(out.getMappedRange().slice(0));
      out.destroy();
      const o = cloth.origin();
      const pos = new Float32Array(3 * n), vel = new Float32Array(3 * n);
      for (let i = 0; i < n; ++i)
        for (let j = 0; j < 3; ++j) {
          pos[3 * i + j] = Math.fround(o[j] + raw[4 * i + j]);
          vel[3 * i + j] = raw[4 * n + 4 * i + j];
        }
      return { pos, vel, origin: o };
    },
    destroy() { for (const b of Object.values(buf)) b.destroy(); pushBuffer?.destroy(); readStatus.destroy(); },
  };
}
