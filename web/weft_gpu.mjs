// The WebGPU solver: the GPU kernels of the Vulkan backend (src/vulkan/shaders/*.comp), as the
// build writes them in WGSL (web/CMakeLists.txt: glslc with WF_WGSL, then naga; the site's wgsl/),
// stepping one cloth whose model, clock and live values come from the wasm core (weft_core.mjs).
// The dispatches of a frame are those the core lists (wfw_gpu_ops in web/weft_wasm.c: the Vulkan
// backend's per-range path of one cloth, vk_record.c, in its order with its push constants): the
// frame start's predict with PUSH_SHIFT, per substep the solver's dispatches (one per XPBD solve
// range, Jacobi's sweeps, the springs), the tethers, self-collision (the grid's counts cleared,
// keys, the scan, the scatter, each cell sorted, the gather, the move) and the finish, then
// normals and the frame check (check writes each workgroup's partial sums, check with
// PUSH_CHECK_SUM adds them up in one workgroup: WGSL has no fence for Vulkan's last workgroup).
// This file encodes each record (its kernel's pipeline, bind groups and push constants, or a copy
// of POS_ALT into POS) and nothing else.
// Tearing: after a good frame of a cloth that tears, the state comes back and the core tears from
// it; step() then says "torn" and the caller builds a new solver from the host state.
// A frame starts with a copy of the state to the backup (positions, then velocities: the frame's
// contactBand.w says where, as on Vulkan); the check's status (wfGpuStatus: the first bad
// particles, the first that tunnelled through the sphere, the reference particle, the energy
// pre-test's sums) is read back after each frame. When the pre-test fails, the state and the backup
// come back too for the core's exact energy rule (wfCheckEnergy), as on Vulkan. A bad frame is
// restored from the backup and reported to the core (which counts, logs and recovers as
// wfWorld_Step does), a good one gives the reference for the core's next frame start.
// The buffers sit at the kernels' bindings (kernel_abi.h's WF_GPU_BIND_*); each kernel's bind
// group holds the bindings its WGSL declares (the build drops those it does not use). The binding
// numbers, push flags and wfGpuStatus's layout come from the wasm core (cloth.gpuAbi: the
// header's own); self-collision's arrays (the contact set, group 1) are made where the world has
// it. The dispatch list is taken from the core each frame and built again when it changed, from
// pre-made bind groups, with each dispatch's push constants (wfGpuPush), which naga writes as
// immediates (setImmediates); each frame encodes it again (WebGPU command buffers are single-use)
// after one writeBuffer of the frame's live values. A kernel's pipeline is made at its first use.
// WebGPU orders the dispatches of a pass: a dispatch sees every earlier one's writes.
// After each frame the reference particle (16 bytes) is read back for the core's next frame start.

// The kernels the page runs (the site's wgsl/<kernel>.wgsl); createGpuSolver takes a function that
// gives a kernel's text (a promise), asked when the kernel is first dispatched.
export const KERNELS = ["predict", "xpbd_solve", "jacobi_sweep", "springs", "finish", "normals", "check", "finish_self", "contact_grid",
  "contact_grid_move", "contact_scan", "contact_gather", "tether_keys"];
const NONE = 0xffffffff;

// What a generated module binds: the bindings of groups 0 (the cloth's) and 1 (the contact set) it
// declares (web/spirv_to_wgsl.mjs keeps only those its entry point uses), and its workgroup size.
function moduleInfo(kernel, code, contactGroup) {
  const used = [], contacts = [];
  for (const m of code.matchAll(/@group\((\d+)\) @binding\((\d+)\)/g)) {
    if (m[1] !== "0" && Number(m[1]) !== contactGroup) throw new Error(`${kernel}.wgsl: uses group ${m[1]} binding ${m[2]}`);
    (m[1] === "0" ? used : contacts).push(Number(m[2]));
  }
  const group = Number(/@workgroup_size\((\d+)/.exec(code)?.[1]);
  if (!group) throw new Error(`${kernel}.wgsl: no workgroup size`);
  return { used, contacts, group };
}

export async function createGpuSolver(device, cloth, kernels) {
  // kernel_abi.h's numbers (WF_GPU_<name>), from the wasm core.
  const abi = (name) => {
    if (!(name in cloth.gpuAbi)) throw new Error(`the wasm core has no ${name} of kernel_abi.h`);
    return cloth.gpuAbi[name];
  };
  const FRAME = abi("BIND_FRAME"), POS = abi("BIND_POS"), VEL = abi("BIND_VEL"), POS_ALT = abi("BIND_POS_ALT"),
    VEL_ALT = abi("BIND_VEL_ALT"), NORMALS = abi("BIND_NORMALS"), CONSTRAINTS = abi("BIND_CONSTRAINTS"),
    ADJ_START = abi("BIND_ADJ_START"), ADJ_CONSTRAINT = abi("BIND_ADJ_CONSTRAINT"), INDICES = abi("BIND_INDICES"),
    STATUS = abi("BIND_STATUS"), PARTIALS = abi("BIND_PARTIALS"), BACKUP = abi("BIND_BACKUP");
  const STATUS_BYTES = abi("STATUS_BYTES"), PARTIAL_BYTES = abi("PARTIAL_BYTES"); // wfGpuStatus, wfGpuPartial
  // wfGpuStatus's fields, word indices.
  const NON_FINITE = abi("STATUS_FIRST_NON_FINITE"), UNSTABLE = abi("STATUS_FIRST_UNSTABLE"),
    IN_CONTACT = abi("STATUS_FIRST_UNSTABLE_IN_CONTACT"), TUNNELLED = abi("STATUS_FIRST_TUNNELLED"),
    REFERENCE = abi("STATUS_REFERENCE"), ENERGY = abi("STATUS_ENERGY");
  const GROUP_SIZE = abi("GROUP_SIZE"), SCAN_GROUP = abi("SCAN_GROUP"), CONTACTS = abi("SET_CONTACTS");
  const model = cloth.model();
  const n = model.particles;
  const S = GPUBufferUsage.STORAGE, D = GPUBufferUsage.COPY_DST, C = GPUBufferUsage.COPY_SRC;
  const make = (bytes, usage, data) => {
    const b = device.createBuffer({ size: Math.max(16, Math.ceil(bytes / 4) * 4), usage });
    if (data) device.queue.writeBuffer(b, 0, data);
    return b;
  };
  // The adjacency's (constraint, other particle) pairs as the kernels' two arrays.
  const adjConstraint = model.adj.filter((_, k) => (k & 1) === 0), adjOther = model.adj.filter((_, k) => (k & 1) === 1);
  // The vertex stage of the page's drawing reads positions, normals and velocities as storage.
  const state = S | D | C | GPUBufferUsage.VERTEX;
  const buf = {
    [FRAME]: make(cloth.gpuFrameBytes(), S | D),
    [POS]: make(16 * n, state), [VEL]: make(16 * n, state), [POS_ALT]: make(16 * n, state), [VEL_ALT]: make(16 * n, state),
    [abi("BIND_PREV")]: make(16 * n, S), [abi("BIND_LAMBDA")]: make(4 * model.constraints, S),
    [CONSTRAINTS]: make(model.con.byteLength, S | D, model.con), // the constraints, then the tethers if any
    [ADJ_START]: make(4 * (n + 1), S | D, model.adjStart),
    [ADJ_CONSTRAINT]: make(4 * adjConstraint.length, S | D, adjConstraint),
    [abi("BIND_ADJ_OTHER")]: make(4 * adjOther.length, S | D, adjOther),
    [abi("BIND_JACOBI_WEIGHT")]: make(4 * model.constraints, S | D, model.jacobiWeight),
    [NORMALS]: make(16 * n, state),
    [abi("BIND_TRI_START")]: make(4 * (n + 1), S | D, model.triStart),
    [abi("BIND_TRI_LIST")]: make(4 * model.triList.length, S | D, model.triList),
    [INDICES]: make(4 * model.indices.length, S | D | GPUBufferUsage.INDEX, model.indices),
    [STATUS]: make(STATUS_BYTES, S | D | C),
    // The rest positions (self-collision's exclusion), w each particle's air share (drag and lift).
    [abi("BIND_REST")]: make(16 * n, S | D, cloth.gpuRest()),
    [BACKUP]: make(32 * n, S | D | C), // the frame start's positions, then its velocities
  };
  // Self-collision's arrays (the Vulkan backend's contact set for this cloth, vk_cloth.c
  // wfVkContactsReserve): the constants, one key, rank, sorted index and push a particle, the
  // cells; cloth against cloth's arrays are not used (one cloth), 16 bytes each.
  const contacts = cloth.gpuContacts(), cbuf = {};
  if (contacts.words > 0) {
    cbuf[abi("CONTACT_BIND_PARAMS")] = make(32, S | D, contacts.params);
    for (const [name, bytes] of [["KEY", 4 * n], ["RANK", 4 * n], ["CELLS", 4 * contacts.words], ["SORTED", 4 * n], ["DELTA", 16 * n],
      ["X", 16], ["MOTION", 16], ["OWNER", 16]])
      cbuf[abi(`CONTACT_BIND_${name}`)] = make(bytes, S);
  }
  const swap = { [POS]: POS_ALT, [POS_ALT]: POS, [VEL]: VEL_ALT, [VEL_ALT]: VEL };
  const info = {}, pipes = {}, groups = {}, contactGroups = {};
  // A kernel's pipeline and bind groups (group 0 in both variants, the second with the pairs
  // swapped; group 1 where it binds the contact set), made at its first use.
  async function pipeline(kernel) {
    if (pipes[kernel]) return;
    const code = await kernels(kernel);
    if (typeof code !== "string") throw new Error(`the WGSL of ${kernel} is missing`);
    const i = moduleInfo(kernel, code, CONTACTS);
    if (i.group !== (kernel === "contact_scan" ? SCAN_GROUP : GROUP_SIZE))
      throw new Error(`${kernel}.wgsl: workgroup size ${i.group}, the core counts its workgroups of another`);
    const module = device.createShaderModule({ code, label: `${kernel}.wgsl` });
    const errors = (await module.getCompilationInfo()).messages.filter((m) => m.type === "error");
    if (errors.length) throw new Error(`${kernel}.wgsl: ${errors.map((m) => `line ${m.lineNum}: ${m.message}`).join("; ")}`);
    const p = await device.createComputePipelineAsync({ layout: "auto", compute: { module, entryPoint: "main" }, label: kernel });
    if (pipes[kernel]) return; // made meanwhile
    if (kernel === "check") buf[PARTIALS] = make(PARTIAL_BYTES * Math.ceil(n / i.group), S); // the check's partials, one a workgroup
    for (const b of i.used) if (!buf[b]) throw new Error(`${kernel}.wgsl: binding ${b} has no buffer here`);
    for (const b of i.contacts) if (!cbuf[b]) throw new Error(`${kernel}.wgsl: contact binding ${b} has no buffer here`);
    groups[kernel] = [0, 1].map((variant) => device.createBindGroup({
      layout: p.getBindGroupLayout(0),
      entries: i.used.map((b) => ({ binding: b, resource: { buffer: buf[variant ? swap[b] ?? b : b] } })),
    }));
    if (i.contacts.length)
      contactGroups[kernel] = device.createBindGroup({ layout: p.getBindGroupLayout(CONTACTS),
        entries: i.contacts.map((b) => ({ binding: b, resource: { buffer: cbuf[b] } })) });
    info[kernel] = i;
    pipes[kernel] = p;
  }
  await Promise.all(["normals", "check"].map(pipeline)); // the frame end, and a bad frame's normals
  const readStatus = device.createBuffer({ size: STATUS_BYTES, usage: GPUBufferUsage.MAP_READ | D });
  const statusReset = new Uint32Array(STATUS_BYTES / 4);
  for (const k of [NON_FINITE, UNSTABLE, IN_CONTACT, TUNNELLED]) statusReset[k] = NONE;

  // The frame's dispatch list from the core's records (wfw_gpu_ops: kernel, first, count, substep,
  // flags, variant, workgroups, 0); taken again when the records change.
  let ops = null, opsRecords = null;
  async function buildOps(records) {
    const list = [];
    for (let r = 0; r < records.length; r += 8) {
      const kernel = cloth.gpuKernels[records[r]];
      if (kernel === undefined) throw new Error(`the core lists kernel ${records[r]}, which the page does not know`);
      if (kernel === "copy") { list.push({ copy: true, velocities: (records[r + 4] & 1) !== 0 }); continue; }
      if (!KERNELS.includes(kernel)) throw new Error(`the core lists ${kernel}, which the page has no WGSL of`);
      await pipeline(kernel);
      const total = records[r + 6], x = Math.min(total, 65535);
      list.push({ kernel, push: records.slice(r + 1, r + 5), bind: groups[kernel][records[r + 5]], contacts: contactGroups[kernel],
        groups: [x, Math.ceil(total / x)] });
    }
    return list;
  }
  function encode(pass, op) {
    pass.setPipeline(pipes[op.kernel]);
    pass.setBindGroup(0, op.bind);
    if (op.contacts) pass.setBindGroup(CONTACTS, op.contacts);
    pass.setImmediates(0, op.push);
    pass.dispatchWorkgroups(...op.groups);
  }
  const sameRecords = (a, b) => a !== null && a.length === b.length && a.every((v, i) => v === b[i]);

  let ref = [0, 0, 0];
  // The host state (after creation, a reset, a grab or a release) onto the GPU.
  function upload() {
    const s = cloth.localState();
    device.queue.writeBuffer(buf[POS], 0, s.pos);
    device.queue.writeBuffer(buf[VEL], 0, s.vel);
    const k = 4 * Math.floor(n / 2);
    ref = [s.pos[k], s.pos[k + 1], s.pos[k + 2]];
  }
  upload();

  // Particle arrays (16 n bytes each: a buffer, or [buffer, its byte offset]) as they are, read back.
  async function readBack(list) {
    const out = device.createBuffer({ size: 16 * n * list.length, usage: GPUBufferUsage.MAP_READ | D });
    const encoder = device.createCommandEncoder();
    list.forEach((b, k) => encoder.copyBufferToBuffer(...(Array.isArray(b) ? b : [b, 0]), out, 16 * n * k, 16 * n));
    device.queue.submit([encoder.finish()]);
    await out.mapAsync(GPUMapMode.READ);
    const raw = out.getMappedRange().slice(0);
    out.destroy();
    return list.map((b, k) => new Float32Array(raw, 16 * n * k, 4 * n));
  }
  // The positions buffer as it is (local frame, inverse mass in w).
  const readLocal = async () => (await readBack([buf[POS]]))[0];

  let dispatches = 0;
  return {
    buffers: { pos: buf[POS], vel: buf[VEL], normals: buf[NORMALS], indices: buf[INDICES], con: buf[CONSTRAINTS], adjStart: buf[ADJ_START],
      adjConstraint: buf[ADJ_CONSTRAINT] },
    model,
    dispatchesPerFrame: () => dispatches,
    upload,
    // One particle's inverse mass and velocity from the host (grab and release change only those).
    uploadParticle(i) {
      const s = cloth.localState();
      device.queue.writeBuffer(buf[POS], 16 * i + 12, s.pos, 4 * i + 3, 1);
      device.queue.writeBuffer(buf[VEL], 16 * i, s.vel, 4 * i, 4);
    },
    // The inverse masses (w of each position) from the host, the positions kept: after the mass
    // or the pins changed in the core (its host positions are those of the last upload).
    async uploadInverseMasses() {
      const pos = await readLocal(), host = cloth.localState().pos;
      for (let i = 0; i < n; ++i) pos[4 * i + 3] = host[4 * i + 3];
      device.queue.writeBuffer(buf[POS], 0, pos);
    },
    // The inverse masses on the GPU (w of each position), read back.
    async inverseMasses() {
      const pos = await readLocal();
      return Float32Array.from({ length: n }, (_, i) => pos[4 * i + 3]);
    },
    // One frame: the core's live values, the dispatches, the reference read back, the core's frame end.
    async step() {
      const frameBytes = cloth.gpuBegin(ref);
      const records = cloth.gpuOps();
      if (!sameRecords(opsRecords, records)) { ops = await buildOps(records); opsRecords = records; }
      device.queue.writeBuffer(buf[FRAME], 0, frameBytes);
      device.queue.writeBuffer(buf[STATUS], 0, statusReset);
      const encoder = device.createCommandEncoder();
      encoder.copyBufferToBuffer(buf[POS], 0, buf[BACKUP], 0, 16 * n);
      encoder.copyBufferToBuffer(buf[VEL], 0, buf[BACKUP], 16 * n, 16 * n);
      let pass = encoder.beginComputePass();
      dispatches = 0;
      for (const op of ops) {
        if (op.copy) {
          pass.end();
          encoder.copyBufferToBuffer(buf[POS_ALT], 0, buf[POS], 0, 16 * n);
          if (op.velocities) encoder.copyBufferToBuffer(buf[VEL_ALT], 0, buf[VEL], 0, 16 * n);
          pass = encoder.beginComputePass();
          continue;
        }
        encode(pass, op);
        ++dispatches;
      }
      pass.end();
      encoder.copyBufferToBuffer(buf[STATUS], 0, readStatus, 0, STATUS_BYTES);
      device.queue.submit([encoder.finish()]);
      await readStatus.mapAsync(GPUMapMode.READ);
      const raw = readStatus.getMappedRange().slice(0);
      readStatus.unmap();
      const st = new Uint32Array(raw), r = new Float32Array(raw);
      // The CPU scans in index order and stops at the first bad particle of either kind.
      let verdict = 0, particle = -1, contact = false;
      if (st[NON_FINITE] !== NONE || st[UNSTABLE] !== NONE) {
        const nonFinite = st[NON_FINITE] < st[UNSTABLE];
        verdict = nonFinite ? 2 : 1;
        particle = nonFinite ? st[NON_FINITE] : st[UNSTABLE];
        contact = !nonFinite && st[IN_CONTACT] !== NONE;
      } else if (cloth.gpuEnergyPreTest(...r.subarray(ENERGY, ENERGY + 4))) {
        // The pre-test on the sums failed: the exact rule on the state and the backup (rare).
        const [pos, vel, pos0, vel0] = await readBack([buf[POS], buf[VEL], buf[BACKUP], [buf[BACKUP], 16 * n]]);
        if (cloth.gpuEnergyExact(pos, vel, pos0, vel0)) verdict = 1;
      }
      if (verdict !== 0) {
        const undo = device.createCommandEncoder();
        undo.copyBufferToBuffer(buf[BACKUP], 0, buf[POS], 0, 16 * n);
        undo.copyBufferToBuffer(buf[BACKUP], 16 * n, buf[VEL], 0, 16 * n);
        const again = undo.beginComputePass();
        encode(again, ops.find((op) => op.kernel === "normals"));
        again.end();
        device.queue.submit([undo.finish()]);
      } else {
        ref = Array.from(r.subarray(REFERENCE, REFERENCE + 3));
      }
      // The core's frame end; a reset (badFrame "reset") changed the host state (and undid any tears:
      // then the solver is built again).
      if (cloth.gpuEnd(verdict, particle, contact, st[TUNNELLED] === NONE ? -1 : st[TUNNELLED])) {
        if (cloth.particles !== n) return "torn";
        upload();
      }
      // Tearing: after a good frame the core tears from the state read back; a new topology needs
      // a new solver (the caller builds it from the host state).
      if (verdict === 0 && cloth.gpuTears()) {
        const [pos, vel] = await readBack([buf[POS], buf[VEL]]);
        if (cloth.gpuTear(pos, vel)) return "torn";
      }
      return "";
    },
    // Positions (world, xyz per particle, as wfCloth_ReadPositions rounds them) and velocities.
    async read() {
      const out = device.createBuffer({ size: 32 * n, usage: GPUBufferUsage.MAP_READ | D });
      const encoder = device.createCommandEncoder();
      encoder.copyBufferToBuffer(buf[POS], 0, out, 0, 16 * n);
      encoder.copyBufferToBuffer(buf[VEL], 0, out, 16 * n, 16 * n);
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
    destroy() { for (const b of Object.values(buf)) b.destroy(); readStatus.destroy(); },
  };
}
