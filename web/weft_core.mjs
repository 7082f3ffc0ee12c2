// Loads weft.wasm (the C core compiled for wasm32-wasi) in a browser or in Node and wraps its
// exports. Its WASI imports are provided here: writes to stdout/stderr (the library's log) go to
// console.warn, the clock is performance.now(), and the file calls read a folder of files held in
// memory (read only: a scene's "mesh" OBJ, handed over with the scene; none otherwise).

const WASI_EBADF = 8, WASI_ENOENT = 44, WASI_EROFS = 69;
const PREOPEN = 3; // the one folder: "/", where relative paths land (wasi-libc's working directory)
const FILETYPE_DIRECTORY = 3, FILETYPE_REGULAR = 4;

// `folder.files`: name -> bytes, for the duration of one call that loads a scene. A path is looked
// up as it is, then by its last component (a file dropped on a page has no folder).
function wasiImports(getMemory, folder) {
  const decoder = new TextDecoder();
  const open = new Map(); // fd -> { bytes, at }
  const find = (ptr, len) => {
    const path = decoder.decode(new Uint8Array(getMemory().buffer, ptr, len)).replace(/^(\.?\/)+/, "");
    return folder.files.get(path) ?? folder.files.get(path.slice(path.lastIndexOf("/") + 1));
  };
  const view = () => new DataView(getMemory().buffer);
  return {
    fd_prestat_get(fd, out) {
      if (fd !== PREOPEN) return WASI_EBADF;
      view().setUint32(out, 0, true); // a directory
      view().setUint32(out + 4, 1, true); // its name's length
      return 0;
    },
    fd_prestat_dir_name(fd, ptr, len) {
      if (fd !== PREOPEN || len < 1) return WASI_EBADF;
      new Uint8Array(getMemory().buffer, ptr, 1)[0] = 0x2f; // "/"
      return 0;
    },
    fd_fdstat_get(fd, out) {
      const file = open.get(fd);
      if (fd !== PREOPEN && !file) return WASI_EBADF;
      const v = view();
      v.setUint8(out, file ? FILETYPE_REGULAR : FILETYPE_DIRECTORY);
      v.setUint16(out + 2, 0, true);
      v.setBigUint64(out + 8, 0xffffffffffffffffn, true); // every right: the files are read only anyway
      v.setBigUint64(out + 16, 0xffffffffffffffffn, true);
      return 0;
    },
    path_filestat_get(fd, flags, ptr, len, out) {
      const bytes = fd === PREOPEN ? find(ptr, len) : undefined;
      if (!bytes) return WASI_ENOENT;
      new Uint8Array(getMemory().buffer, out, 64).fill(0);
      view().setUint8(out + 16, FILETYPE_REGULAR);
      view().setBigUint64(out + 24, 1n, true);
      view().setBigUint64(out + 32, BigInt(bytes.length), true);
      return 0;
    },
    path_open(fd, dirflags, ptr, len, oflags, rightsBase, rightsInheriting, fdflags, out) {
      const bytes = fd === PREOPEN ? find(ptr, len) : undefined;
      if (!bytes) return oflags & 1 ? WASI_EROFS : WASI_ENOENT; // O_CREAT: nothing is written
      const next = Math.max(PREOPEN, ...open.keys()) + 1;
      open.set(next, { bytes, at: 0 });
      view().setUint32(out, next, true);
      return 0;
    },
    fd_read(fd, iovs, iovsLen, read) {
      const file = open.get(fd);
      if (!file) return WASI_EBADF;
      const v = view();
      let total = 0;
      for (let i = 0; i < iovsLen; ++i) {
        const ptr = v.getUint32(iovs + 8 * i, true), len = v.getUint32(iovs + 8 * i + 4, true);
        const part = file.bytes.subarray(file.at, file.at + len);
        new Uint8Array(getMemory().buffer, ptr, part.length).set(part);
        file.at += part.length;
        total += part.length;
      }
      v.setUint32(read, total, true);
      return 0;
    },
    fd_seek(fd, offset, whence, out) {
      const file = open.get(fd);
      if (!file) return WASI_EBADF;
      const at = Number(offset) + [0, file.at, file.bytes.length][whence];
      if (!(at >= 0)) return 28; // EINVAL
      file.at = at;
      view().setBigUint64(out, BigInt(at), true);
      return 0;
    },
    fd_close(fd) { return open.delete(fd) ? 0 : WASI_EBADF; },
    fd_write(fd, iovs, iovsLen, written) {
      const view = new DataView(getMemory().buffer);
      let text = "", total = 0;
      for (let i = 0; i < iovsLen; ++i) {
        const ptr = view.getUint32(iovs + 8 * i, true), len = view.getUint32(iovs + 8 * i + 4, true);
        text += decoder.decode(new Uint8Array(getMemory().buffer, ptr, len));
        total += len;
      }
      if (fd === 1 || fd === 2) console.warn(text.replace(/\n$/, ""));
      view.setUint32(written, total, true);
      return fd === 1 || fd === 2 ? 0 : WASI_EBADF;
    },
    clock_time_get(id, precision, out) {
      const ns = BigInt(Math.round(performance.now() * 1e6));
      new DataView(getMemory().buffer).setBigUint64(out, ns, true);
      return 0;
    },
  };
}

// wfw_get_controls' order (web/weft_wasm.c); the first SETTABLE are wfw_set_control's.
const CONTROLS = ["gravityY", "substeps", "damping", "wind", "stiffness", "mass", "windFrequency", "floor", "sphereRadius",
  "timeStep", "sphereMoving", "pinMode", "pinned", "sphere", "windMode", "cols", "rows", "floorHeight"];
const SETTABLE = 11;
// wfPinMode's values (WF_PIN_LIST after them).
export const PIN_MODES = ["none", "top-corners", "top-row", "corners"];

export async function loadWeft(bytes) {
  let memory = null;
  // Every other WASI call the module imports answers EBADF.
  const module = await WebAssembly.compile(bytes);
  const folder = { files: new Map() };
  const wasi = wasiImports(() => memory, folder);
  for (const i of WebAssembly.Module.imports(module))
    if (i.module === "wasi_snapshot_preview1" && !(i.name in wasi))
      wasi[i.name] = i.name === "proc_exit" ? (code) => { throw new Error(`weft.wasm exited (${code})`); } : () => WASI_EBADF;
  const instance = await WebAssembly.instantiate(module, { wasi_snapshot_preview1: wasi });
  memory = instance.exports.memory;
  const x = instance.exports;
  const encoder = new TextEncoder(), decoder = new TextDecoder();
  const setText = (s) => {
    const b = encoder.encode(s + "\0");
    new Uint8Array(memory.buffer, x.wfw_text(), b.length).set(b);
  };
  const getText = () => {
    const bytes = new Uint8Array(memory.buffer, x.wfw_text(), 512);
    return decoder.decode(bytes.subarray(0, bytes.indexOf(0)));
  };
  // Calls fill(ptr) to write count 4-byte values at ptr; returns a copy (memory may grow).
  const floats = (count, fill) => {
    const ptr = x.wfw_alloc(4 * Math.max(count, 1));
    const r = fill(ptr);
    const out = new Float32Array(memory.buffer.slice(ptr, ptr + 4 * count));
    x.wfw_free(ptr);
    if (r !== 0) throw new Error(getText() || `weft: result ${r}`);
    return out;
  };
  // fn(pointers) with copies of Float32Arrays in the module's memory, freed after.
  const withArrays = (arrays, fn) => {
    const ptrs = arrays.map((a) => {
      const p = x.wfw_alloc(a.byteLength);
      new Float32Array(memory.buffer, p, a.length).set(a);
      return p;
    });
    try { return fn(ptrs); } finally { ptrs.forEach((p) => x.wfw_free(p)); }
  };
  const check = (r, what) => { if (r !== 0) throw new Error(`${what}: ${getText() || "result " + r}`); };
  // kernel_abi.h's numbers for the WebGPU solver (wfw_gpu_abi: BIND_POS, PUSH_SHIFT, STATUS_BYTES...).
  const gpuAbi = {};
  for (let k = 0, v; (v = x.wfw_gpu_abi(k)) >= 0; ++k) gpuAbi[getText()] = v;
  Object.freeze(gpuAbi);
  // The kernels the core's dispatch records name (wfw_gpu_kernel), by their number.
  const gpuKernels = [];
  for (let k = 0; x.wfw_gpu_kernel(k) === 0; ++k) gpuKernels.push(getText());
  Object.freeze(gpuKernels);
  return {
    gpuAbi,
    // A world of one preset's cloth on the wasm CPU solver (scalar kernels); cols/rows 0 keep the preset's.
    createPreset(name, cols = 0, rows = 0) {
      setText(name);
      const w = x.wfw_create(cols, rows);
      if (w === 0) throw new Error(getText());
      return wrap(w, 1);
    },
    // A world from a scene file's bytes (Uint8Array) named `name`, read as the weft command reads a
    // file; an Error with the message the command prints (after "weft: ") when it is not a scene.
    // The page runs its first cloth: `sceneCloths` says how many it has. `files` (name -> bytes)
    // are what the scene's "mesh" keys may name (relative to the scene's folder, or by file name).
    // cols/rows > 0 replace a grid cloth's (the page's grid density).
    createScene(bytes, name, files = {}, cols = 0, rows = 0) {
      setText(name.slice(0, 255));
      const text = x.wfw_alloc(bytes.length + 1), count = x.wfw_alloc(4);
      new Uint8Array(memory.buffer, text, bytes.length).set(bytes);
      new Uint8Array(memory.buffer)[text + bytes.length] = 0;
      folder.files = new Map(Object.entries(files));
      let w;
      try { w = x.wfw_create_scene(text, bytes.length, count, cols, rows); } finally { folder.files = new Map(); }
      const cloths = new Int32Array(memory.buffer, count, 1)[0];
      x.wfw_free(text); x.wfw_free(count);
      if (w === 0) throw new Error(getText());
      return wrap(w, cloths);
    },
  };

  function wrap(w, sceneCloths) {
      let n = x.wfw_particles(w), topology = x.wfw_topology(w);
      let buffer = x.wfw_alloc(12 * n);
      let info = floats(8, (p) => x.wfw_info(w, p));
      let frameBytes = 0, frameCapacity = 0, changes = 0;
      // Tearing changes the counts between frames (a reset undoes it): read again after a step
      // or a reset; `topology` moves when they change (a reader of the arrays compares it).
      const recount = () => {
        const t = x.wfw_topology(w), m = x.wfw_particles(w);
        if (t === topology && m === n) return;
        if (m !== n) { x.wfw_free(buffer); buffer = x.wfw_alloc(12 * m); }
        n = m;
        info = floats(8, (p) => x.wfw_info(w, p));
        ++changes;
        topology = t;
      };
      return {
        get particles() { return n; },
        get constraints() { return info[1]; },
        get colors() { return info[2]; },
        get triangles() { return info[3]; },
        get topology() { return changes; },
        solver: ["xpbd", "jacobi", "springs"][info[4]],
        // The live step def (the panel changes the substeps and the time step).
        get timeStep() { return floats(8, (p) => x.wfw_info(w, p))[7]; },
        get substeps() { return floats(8, (p) => x.wfw_info(w, p))[5]; },
        get iterations() { return floats(8, (p) => x.wfw_info(w, p))[6]; },
        step() { check(x.wfw_step(w), "step"); recount(); },
        // wfWorld_GetStateHash: the bits of the whole dynamic state, as a BigInt.
        stateHash() {
          const p = x.wfw_alloc(8);
          const r = x.wfw_state_hash(w, p);
          const h = new BigUint64Array(memory.buffer.slice(p, p + 8))[0];
          x.wfw_free(p);
          check(r, "state hash");
          return h;
        },
        time() { return x.wfw_time(w); },
        positions() {
          if (x.wfw_positions(w, buffer) !== 0) throw new Error("positions");
          return new Float32Array(memory.buffer.slice(buffer, buffer + 12 * n));
        },
        velocities() { return floats(3 * n, (p) => x.wfw_velocities(w, p)); },
        indices() { return new Uint32Array(floats(3 * info[3], (p) => x.wfw_indices(w, p)).buffer); },
        uvs() { return floats(2 * n, (p) => x.wfw_uvs(w, p)); },
        colliders() {
          const c = floats(9, (p) => x.wfw_colliders(w, p));
          return { sphere: c[0] !== 0, center: [c[1], c[2], c[3]], radius: c[4], moving: c[5] !== 0, floor: c[6] !== 0, floorHeight: c[7], thickness: c[8] };
        },
        pinned(i) { return x.wfw_pinned(w, i) !== 0; },
        // Constraints: pairs (2 per), rest lengths, families (0 stretch, 1 shear, 2 bend).
        constraintList() {
          const m = x.wfw_constraint_count(w);
          const pp = x.wfw_alloc(8 * m), rp = x.wfw_alloc(4 * m), fp = x.wfw_alloc(4 * m);
          check(x.wfw_constraints(w, pp, rp, fp), "constraints");
          const out = {
            pairs: new Uint32Array(memory.buffer.slice(pp, pp + 8 * m)),
            rest: new Float32Array(memory.buffer.slice(rp, rp + 4 * m)),
            family: new Uint32Array(memory.buffer.slice(fp, fp + 4 * m)),
          };
          x.wfw_free(pp); x.wfw_free(rp); x.wfw_free(fp);
          return out;
        },
        grab(i, p) { check(x.wfw_grab(w, i, p[0], p[1], p[2]), "grab"); },
        moveGrab(p) { check(x.wfw_move_grab(w, p[0], p[1], p[2]), "grab"); },
        release() { check(x.wfw_release(w), "release"); },
        reset() { check(x.wfw_reset(w), "reset"); recount(); },
        // The panel's controls as the world and cloth have them now (wfw_get_controls), and one
        // control set through the library's live setter (an Error with its message if refused).
        controls() {
          const c = floats(CONTROLS.length, (p) => x.wfw_get_controls(w, p));
          return Object.fromEntries(CONTROLS.map((name, k) => [name, c[k]]));
        },
        setControl(name, value) {
          const k = CONTROLS.indexOf(name);
          if (k < 0 || k >= SETTABLE) throw new Error(`no control ${name}`);
          check(x.wfw_set_control(w, k, value), name);
        },
        // Pins: "none", "top-corners", "top-row", "corners", or an index list (wfCloth_SetPinMode).
        setPins(mode) {
          const list = Array.isArray(mode) ? mode : [];
          const p = x.wfw_alloc(4 * Math.max(list.length, 1));
          new Int32Array(memory.buffer, p, list.length).set(list);
          const r = x.wfw_set_pins(w, Array.isArray(mode) ? PIN_MODES.length : PIN_MODES.indexOf(mode), p, list.length);
          x.wfw_free(p);
          check(r, "pins");
        },
        sceneCloths,
        destroy() { x.wfw_free(buffer); x.wfw_destroy(w); if (frameBytes) x.wfw_free(frameBytes); },
        // For the WebGPU solver (weft_gpu.mjs): the model's arrays, the host state in the local
        // frame, and each frame's live values from the core (the Vulkan backend's layouts).
        model() {
          const s = new Int32Array(floats(9, (p) => x.wfw_model_sizes(w, p)).buffer);
          const [np, m, colors, tri, entries] = s;
          const sizes = [4 * (m + (s[8] ? np : 0)), np + 1, 2 * entries, m, np + 1, 3 * tri, 3 * tri, 2 * s[7]];
          const ptrs = sizes.map((k) => x.wfw_alloc(4 * Math.max(k, 1)));
          check(x.wfw_model(w, ...ptrs), "model");
          const arr = sizes.map((k, j) => new Uint32Array(memory.buffer.slice(ptrs[j], ptrs[j] + 4 * k)));
          ptrs.forEach((p) => x.wfw_free(p));
          return {
            particles: np, constraints: m, colors, triangles: tri, jacobiDegree: s[5] !== 0, maxDegree: s[6], tethers: s[8] !== 0,
            con: arr[0], adjStart: arr[1], adj: arr[2], jacobiWeight: new Float32Array(arr[3].buffer),
            triStart: arr[4], triList: arr[5], indices: arr[6], solveRange: arr[7],
          };
        },
        localState() {
          const pp = x.wfw_alloc(16 * n), vp = x.wfw_alloc(16 * n), op = x.wfw_alloc(24);
          check(x.wfw_local_state(w, pp, vp, op), "state");
          const out = {
            pos: new Float32Array(memory.buffer.slice(pp, pp + 16 * n)),
            vel: new Float32Array(memory.buffer.slice(vp, vp + 16 * n)),
            origin: Array.from(new Float64Array(memory.buffer.slice(op, op + 24))),
          };
          x.wfw_free(pp); x.wfw_free(vp); x.wfw_free(op);
          return out;
        },
        origin() {
          const op = x.wfw_alloc(24);
          check(x.wfw_origin(w, op), "origin");
          const o = Array.from(new Float64Array(memory.buffer.slice(op, op + 24)));
          x.wfw_free(op);
          return o;
        },
        // Why the WGSL solver cannot step this cloth, or "" when it can.
        gpuUnsupported() { return x.wfw_gpu_unsupported(w) === 0 ? "" : getText(); },
        gpuFrameBytes() { return x.wfw_gpu_frame_bytes(w); },
        // kernel_abi.h's bindings, push flags and record sizes, by name (the same object for every world).
        gpuAbi,
        // The frame buffer's bytes for the next frame, given the reference particle (local xyz).
        gpuBegin(ref) {
          const size = x.wfw_gpu_frame_bytes(w);
          if (size > frameCapacity) {
            if (frameBytes) x.wfw_free(frameBytes);
            frameBytes = x.wfw_alloc(size);
            frameCapacity = size;
          }
          const bytes = x.wfw_gpu_begin(w, ref[0], ref[1], ref[2], frameBytes);
          if (bytes < 0) throw new Error(getText() || "gpu frame");
          return new Uint8Array(memory.buffer.slice(frameBytes, frameBytes + bytes));
        },
        // The energy rule's pre-test on the GPU check's sums: true when the exact rule must decide.
        gpuEnergyPreTest(gain, kinetic, magnitude, free) { return x.wfw_gpu_energy_pretest(w, gain, kinetic, magnitude, free) === 1; },
        // The exact energy rule on the GPU's frame-end state and its frame-start backup (local vec4
        // per particle, Float32Array each): true when the frame is unstable.
        gpuEnergyExact(pos, vel, pos0, vel0) {
          const r = withArrays([pos, vel, pos0, vel0], (ptrs) => x.wfw_gpu_energy_exact(w, ...ptrs));
          if (r < 0) throw new Error("gpu energy rule");
          return r === 1;
        },
        // The rest buffer's contents (n x vec4: the rest positions, w each particle's air share).
        gpuRest() { return floats(4 * n, (p) => x.wfw_gpu_rest(w, p)); },
        // Self-collision's arrays: the cells array's words (0 without self-collision) and the
        // constants' bytes (wfGpuContactParams).
        gpuContacts() {
          const p = x.wfw_alloc(64);
          const words = x.wfw_gpu_contacts(w, p);
          const params = new Uint8Array(memory.buffer.slice(p, p + 32));
          x.wfw_free(p);
          if (words < 0) throw new Error("gpu contacts");
          return { words, params };
        },
        // The frame's dispatch records as the core lists them (wfw_gpu_ops: 8 words each).
        gpuOps() {
          const count = x.wfw_gpu_ops(w, 0, 0);
          if (count < 0) throw new Error("gpu ops");
          const p = x.wfw_alloc(32 * Math.max(count, 1));
          x.wfw_gpu_ops(w, p, count);
          const out = new Uint32Array(memory.buffer.slice(p, p + 32 * count));
          x.wfw_free(p);
          return out;
        },
        gpuKernels,
        // Whether the cloth tears (the page then reads each good frame back for gpuTear).
        gpuTears() { return x.wfw_gpu_tears(w) === 1; },
        // The GPU's frame-end state (local vec4 per particle) into the host, and the core's tear from
        // it: true when the topology changed (the GPU solver is built again from the host state).
        gpuTear(pos, vel) {
          const r = withArrays([pos, vel], (ptrs) => x.wfw_gpu_tear(w, ...ptrs));
          if (r < 0) throw new Error(`tear: ${getText() || "failed"}`);
          recount();
          return r === 1;
        },
        // The frame check's verdict (0 good, 1 unstable, 2 non-finite; the first bad particle;
        // whether a too-fast one touched a collider; the first that tunnelled, or -1); true when
        // the core reset the cloth.
        gpuEnd(verdict = 0, particle = -1, contact = false, tunnelled = -1) {
          const r = x.wfw_gpu_end(w, verdict, particle, contact ? 1 : 0, tunnelled);
          if (r < 0) throw new Error("gpu frame end");
          recount(); // a reset undoes tears
          return r === 1;
        },
        // [non-finite, unstable, unstable in contact] frames discarded so far, frames that tunnelled.
        warnings() { return Array.from(new Float64Array(floats(8, (p) => x.wfw_warnings(w, p)).buffer)); },
      };
  }
}
