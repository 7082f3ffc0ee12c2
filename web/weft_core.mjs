// Loads weft.wasm (the C core compiled for wasm32-wasi) in a browser or in Node and wraps its
// exports. The module's only imports are four WASI calls; stdout/stderr writes (the library's log)
// go to console.warn, the clock is performance.now().

const WASI_EBADF = 8;

function wasiImports(getMemory) {
  const decoder = new TextDecoder();
  return {
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
    fd_close() { return WASI_EBADF; },
    fd_seek() { return WASI_EBADF; },
    clock_time_get(id, precision, out) {
      const ns = BigInt(Math.round(performance.now() * 1e6));
      new DataView(getMemory().buffer).setBigUint64(out, ns, true);
      return 0;
    },
  };
}

export async function loadWeft(bytes) {
  let memory = null;
  const { instance } = await WebAssembly.instantiate(bytes, {
    wasi_snapshot_preview1: wasiImports(() => memory),
  });
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
  return {
    // A world of one preset's cloth on the wasm CPU solver (scalar kernels); cols/rows 0 keep the preset's.
    createPreset(name, cols = 0, rows = 0) {
      setText(name);
      const w = x.wfw_create(cols, rows);
      if (w === 0) throw new Error(getText());
      const n = x.wfw_particles(w);
      const buffer = x.wfw_alloc(12 * n);
      return {
        particles: n,
        step() { const r = x.wfw_step(w); if (r !== 0) throw new Error(`step: result ${r}`); },
        time() { return x.wfw_time(w); },
        positions() { // a copy: memory may grow
          if (x.wfw_positions(w, buffer) !== 0) throw new Error("positions");
          return new Float32Array(memory.buffer.slice(buffer, buffer + 12 * n));
        },
        destroy() { x.wfw_free(buffer); x.wfw_destroy(w); },
      };
    },
  };
}
