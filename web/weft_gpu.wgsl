// The three solvers' kernels in WGSL: a port of src/vulkan/shaders/ (per-range path) with the same
// float operations in the same order, so that an IEEE device (SwiftShader, like lavapipe natively)
// gives the CPU solver's bits. WGSL has no `precise`; none of these expressions is contracted by
// Tint or SwiftShader (tests/web/page_test.mjs checks the bits).
// Bindings and structs mirror src/gpu/kernel_abi.h (binding numbers too); each entry point's
// layout ("auto") holds only the buffers it uses.

const GROUP_SIZE = 128u;
const NONE = 0xffffffffu;
const FLAG_SPHERE = 1u;
const FLAG_FLOOR = 2u;
const FLAG_STOP = 4u;
const FLAG_WAVE = 8u;
const FLAG_JACOBI_DEGREE = 16u;
const FLAG_MOVES = 64u; // wfWorldDef.velocity "moves": every move in a substep also into the velocity
const FLAG_AERO = 32u; // drag and lift: the substep's aerodynamic acceleration is in prev (aero)
const PUSH_FIRST_ITERATION = 1u;
const PUSH_DAMPED = 2u;
const PUSH_SHIFT = 8u;
const PUSH_TETHER = 32u;     // predict: only the tethers (wfCpuTethers)
const PUSH_TETHER_VEL = 64u; // with PUSH_TETHER: the outward velocity removed too (springs)

// wfGpuClothParams, field by field.
struct Shape { base: vec4f, size: vec4f, halfExtents: vec4f }
struct ClothParams {
  gravity: vec4f, windDir: vec4f, grabTarget: vec4f, alphaTilde: vec4f, aero: vec4f, aeroCoeff: vec4f,
  shift: vec4f, sphereCenter: vec4f, contactBand: vec4f, floor: vec4f,
  h: f32, velFactor: f32, damping: f32, mass: f32, stiffness: f32, springDamping: f32, relaxation: f32,
  windStrength: f32, windFrequency: f32, windPhasePerColumn: f32, sphereR: f32, floorY: f32, friction: f32,
  flags: u32, grabIndex: i32, cols: u32, particleCount: u32, colorCount: u32, maxSpeed: f32,
  shapeCount: u32, tetherBase: u32, contactX: f32, contactY: f32, contactZ: f32, collisionGroup: u32, collisionMask: u32,
  invH: f32, velScale: f32,
  colorStart: array<u32, 32>,
  shapes: array<Shape, 32>,
}
struct Substep { sphereMotion: vec4f, sphereVel: vec4f, accel: vec4f }
const MAX_SUBSTEPS = 4096u;
// The colliders' records follow the substeps' (kernel_abi.h's WF_GPU_FRAME_RECORDS): two a collider a
// substep, S[MAX_SUBSTEPS + 2 (substep shapeCount + k)] and the next.
const MAX_SHAPE_STEPS = 2048u;
const FRAME_RECORDS = MAX_SUBSTEPS + 2u * MAX_SHAPE_STEPS;
const COLLIDER_SPHERE = 0u;
const COLLIDER_CAPSULE = 1u;
const COLLIDER_BOX = 2u;
// wave: wave wind's factor 0.5 + 0.5 sin(...) per substep and column, from the core's wfSinf.
struct FrameBuf { P: ClothParams, S: array<Substep, FRAME_RECORDS>, wave: array<f32> }
// The push constants of the Vulkan kernels: one small uniform per dispatch (its own bind group).
struct Push { lo: u32, count: u32, substep: u32, flags: u32 }

@group(0) @binding(0) var<storage, read> F: FrameBuf;
@group(0) @binding(1) var<storage, read_write> pos: array<vec4f>;
@group(0) @binding(2) var<storage, read_write> vel: array<vec4f>;
@group(0) @binding(3) var<storage, read_write> posAlt: array<vec4f>;
@group(0) @binding(4) var<storage, read_write> velAlt: array<vec4f>;
@group(0) @binding(5) var<storage, read_write> prev: array<vec4f>;
@group(0) @binding(6) var<storage, read_write> lambdas: array<f32>;
@group(0) @binding(7) var<storage, read> con: array<vec4u>;
@group(0) @binding(8) var<storage, read> adjStart: array<u32>;
@group(0) @binding(9) var<storage, read> adj: array<vec2u>; // (constraint, other particle)
@group(0) @binding(11) var<storage, read> jacobiWeight: array<f32>;
@group(0) @binding(12) var<storage, read_write> normals: array<vec4f>;
@group(0) @binding(13) var<storage, read> triStart: array<u32>;
@group(0) @binding(14) var<storage, read> triList: array<u32>;
@group(0) @binding(15) var<storage, read> indices: array<u32>;
// The frame check's results (wfGpuStatus): first bad particles, the reference particle, the energy
// pre-test's sums (gain, start kinetic energy per unit mass, magnitude, free particles).
struct Status { firstNonFinite: atomic<u32>, firstUnstable: atomic<u32>, firstUnstableInContact: atomic<u32>,
                firstTunnelled: atomic<u32>, reference: vec4f, energy: vec4f }
@group(0) @binding(16) var<storage, read_write> status: Status;
// The frame-start state (the copy a bad frame is restored from) and the check's per-particle terms.
@group(0) @binding(17) var<storage, read> backupPos: array<vec4f>;
@group(0) @binding(18) var<storage, read> backupVel: array<vec4f>;
@group(0) @binding(19) var<storage, read_write> partials: array<vec4f>;
// Each particle's air share (the model's restPositions[i].w; aero).
@group(0) @binding(20) var<storage, read> airShare: array<f32>;
@group(1) @binding(0) var<uniform> pc: Push;

// The element of this invocation, or NONE past the end of the dispatch's range.
fn element(local: u32) -> u32 {
  return select(NONE, pc.lo + local, local < pc.count);
}

// wfExternalAccel: gravity plus wind at the start of the substep (the wave's sine from the core).
fn externalAccel(substep: u32, column: u32, invMass: f32) -> vec3f {
  if ((F.P.flags & FLAG_WAVE) == 0u) {
    return F.S[substep].accel.xyz;
  }
  var a = F.P.gravity.xyz;
  let len = F.P.windDir.w;
  if (len > 0.0) {
    let f = F.P.windStrength * invMass / len * F.wave[substep * F.P.cols + column];
    a.x += F.P.windDir.x * f;
    a.y += F.P.windDir.y * f;
    a.z += F.P.windDir.z * f;
  }
  return a;
}

// Respond (cpu_stages.c): STOP zeroes the velocity; FRICTION removes the approaching normal part
// of the relative velocity and applies Coulomb friction to the tangential part.
fn respond(v: ptr<function, vec4f>, nx: f32, ny: f32, nz: f32, vs: vec3f) {
  if ((F.P.flags & FLAG_STOP) != 0u) {
    (*v) = vec4f(0.0, 0.0, 0.0, (*v).w);
    return;
  }
  let rx = (*v).x - vs.x;
  let ry = (*v).y - vs.y;
  let rz = (*v).z - vs.z;
  let vn = rx * nx + ry * ny + rz * nz;
  if (vn >= 0.0) {
    return;
  }
  let tx = rx - vn * nx;
  let ty = ry - vn * ny;
  let tz = rz - vn * nz;
  let vt = sqrt(tx * tx + ty * ty + tz * tz);
  var scale = 0.0;
  if (vt > F.P.friction * -vn) {
    scale = 1.0 - F.P.friction * -vn / vt;
  }
  (*v).x = vs.x + tx * scale;
  (*v).y = vs.y + ty * scale;
  (*v).z = vs.z + tz * scale;
}

// Pushes x to q + n r and responds against the collider's surface velocity there: v + w x (x - c)
// (cpu_stages.c PushOut, SurfaceVelocity).
fn pushOut(x: ptr<function, vec4f>, v: ptr<function, vec4f>, c: vec3f, vel: vec3f, w: vec3f, q: vec3f, n: vec3f, r: f32) {
  (*x).x = q.x + n.x * r;
  (*x).y = q.y + n.y * r;
  (*x).z = q.z + n.z * r;
  let rx = (*x).x - c.x;
  let ry = (*x).y - c.y;
  let rz = (*x).z - c.z;
  let vs = vec3f(vel.x + w.y * rz - w.z * ry, vel.y + w.z * rx - w.x * rz, vel.z + w.x * ry - w.y * rx);
  respond(v, n.x, n.y, n.z, vs);
}

// wfCpuCollideShape: collider k at the end of substep `substep` (its frame-start centre in P.shapes,
// the substep's displacement, axes, velocity and spin in the two records after the substeps').
fn collideShape(x: ptr<function, vec4f>, v: ptr<function, vec4f>, substep: u32, k: u32) {
  let at = MAX_SUBSTEPS + 2u * (substep * F.P.shapeCount + k);
  let base = F.P.shapes[k].base;
  let size = F.P.shapes[k].size;
  let shift = F.S[at].sphereMotion.xyz;
  let ax = F.S[at].sphereVel.xyz;
  let ay = F.S[at].accel.xyz;
  let az = F.S[at + 1u].sphereMotion.xyz;
  let vel = F.S[at + 1u].sphereVel.xyz;
  let w = F.S[at + 1u].accel.xyz;
  let c = vec3f(base.x + shift.x, base.y + shift.y, base.z + shift.z);
  let t = size.w; // the contact thickness
  let dx = (*x).x - c.x;
  let dy = (*x).y - c.y;
  let dz = (*x).z - c.z;
  let kind = u32(base.w);
  if (kind == COLLIDER_SPHERE || kind == COLLIDER_CAPSULE) {
    let L = size.z;
    var u = dx * ax.x + dy * ax.y + dz * ax.z;
    if (u < -L) {
      u = -L;
    } else if (u > L) {
      u = L;
    }
    var f = 0.0;
    if (L > 0.0) {
      f = 0.5 * (u / L + 1.0);
    }
    let r = size.x + (size.y - size.x) * f + t;
    let q = vec3f(c.x + ax.x * u, c.y + ax.y * u, c.z + ax.z * u);
    let ex = (*x).x - q.x;
    let ey = (*x).y - q.y;
    let ez = (*x).z - q.z;
    let d2 = ex * ex + ey * ey + ez * ez;
    if (d2 >= r * r) {
      return;
    }
    let d = sqrt(d2);
    if (d > 1e-12) {
      pushOut(x, v, c, vel, w, q, vec3f(ex / d, ey / d, ez / d), r);
    } else {
      pushOut(x, v, c, vel, w, q, ay, r);
    }
  } else if (kind == COLLIDER_BOX) {
    var l = array<f32, 3>(dx * ax.x + dy * ax.y + dz * ax.z, dx * ay.x + dy * ay.y + dz * ay.z, dx * az.x + dy * az.y + dz * az.z);
    var e = array<f32, 3>(F.P.shapes[k].halfExtents.x + t, F.P.shapes[k].halfExtents.y + t, F.P.shapes[k].halfExtents.z + t);
    var axis = -1;
    var least = 0.0;
    for (var i = 0; i < 3; i++) {
      let depth = e[i] - abs(l[i]);
      if (depth <= 0.0) {
        return;
      }
      if (axis < 0 || depth < least) {
        axis = i;
        least = depth;
      }
    }
    var sign = 1.0;
    if (l[axis] < 0.0) {
      sign = -1.0;
    }
    var n = az;
    if (axis == 0) {
      n = ax;
    } else if (axis == 1) {
      n = ay;
    }
    pushOut(x, v, c, vel, w, (*x).xyz, n * sign, least);
  } else {
    let d = dx * ay.x + dy * ay.y + dz * ay.z;
    if (d >= t) {
      return;
    }
    pushOut(x, v, c, vel, w, (*x).xyz, ay, t - d);
  }
}

// wfCpuCollide for one particle: out of the sphere and above the floor, then fix the velocity.
fn collide(x: ptr<function, vec4f>, v: ptr<function, vec4f>, substep: u32) {
  if ((*x).w == 0.0) {
    return;
  }
  if ((F.P.flags & FLAG_SPHERE) != 0u) {
    let c = F.P.sphereCenter.xyz + F.S[substep].sphereMotion.xyz;
    let R = F.P.sphereR;
    let dx = (*x).x - c.x;
    let dy = (*x).y - c.y;
    let dz = (*x).z - c.z;
    let d2 = dx * dx + dy * dy + dz * dz;
    let RR = R * R;
    if (d2 < RR) {
      let d = sqrt(d2);
      var nx = 0.0;
      var ny = 1.0;
      var nz = 0.0;
      if (d > 1e-12) {
        nx = dx / d;
        ny = dy / d;
        nz = dz / d;
      }
      (*x).x = c.x + nx * R;
      (*x).y = c.y + ny * R;
      (*x).z = c.z + nz * R;
      respond(v, nx, ny, nz, F.S[substep].sphereVel.xyz);
    }
  }
  if ((F.P.flags & FLAG_FLOOR) != 0u && (*x).y < F.P.floorY) {
    (*x).y = F.P.floorY;
    respond(v, F.P.floor.x, F.P.floor.y, F.P.floor.z, F.P.floor.www); // not constants: see kernel_abi.h
  }
  for (var k = 0u; k < F.P.shapeCount; k++) {
    collideShape(x, v, substep, k);
  }
}

// Predict (XPBD and Jacobi): v = v / (1 + h w d) + h a (XPBD damping, on v only) or v += h a; p = x; x += h v.
// A grabbed particle (inverse mass 0) is placed at the grab target. PUSH_SHIFT: only the frame
// start's re-centring, x -= shift.
@compute @workgroup_size(GROUP_SIZE)
fn predict(@builtin(global_invocation_id) gid: vec3u) {
  let i = element(gid.x);
  if (i == NONE) {
    return;
  }
  let x = pos[i];
  if ((pc.flags & PUSH_SHIFT) != 0u) {
    pos[i] = vec4f(x.x - F.P.shift.x, x.y - F.P.shift.y, x.z - F.P.shift.z, x.w);
    return;
  }
  if ((pc.flags & PUSH_TETHER) != 0u) {
    // wfCpuTethers: back within the limit of the anchor (pinned at creation, so never moved here).
    let t = con[F.P.tetherBase + i];
    if (t.y == NONE || x.w == 0.0) {
      return;
    }
    let q = pos[t.y];
    let limit = bitcast<f32>(t.z);
    let dx = x.x - q.x;
    let dy = x.y - q.y;
    let dz = x.z - q.z;
    let d2 = dx * dx + dy * dy + dz * dz;
    if (d2 <= limit * limit) {
      return;
    }
    let d = sqrt(d2);
    let s = limit / d;
    let y = vec4f(q.x + dx * s, q.y + dy * s, q.z + dz * s, x.w);
    pos[i] = y;
    if ((pc.flags & PUSH_TETHER_VEL) == 0u) {
      // XPBD, Jacobi: the move into the substep's velocity (wfCpuMoved).
      if ((F.P.flags & FLAG_MOVES) == 0u) {
        return;
      }
      let v = vel[i];
      let ih = F.P.invH;
      vel[i] = vec4f(v.x + (y.x - x.x) * ih, v.y + (y.y - x.y) * ih, v.z + (y.z - x.z) * ih, v.w);
    } else {
      let nx = dx / d;
      let ny = dy / d;
      let nz = dz / d;
      let v = vel[i];
      let vn = v.x * nx + v.y * ny + v.z * nz;
      if (vn > 0.0) {
        vel[i] = vec4f(v.x - vn * nx, v.y - vn * ny, v.z - vn * nz, 0.0);
      }
    }
    return;
  }
  var air = vec3f(0.0);
  if ((F.P.flags & FLAG_AERO) != 0u) {
    air = prev[i].xyz;
  }
  prev[i] = x;
  if (x.w == 0.0) {
    if (i32(i) == F.P.grabIndex) {
      pos[i] = vec4f(F.P.grabTarget.xyz, x.w);
    }
    return;
  }
  var a = externalAccel(pc.substep, i % F.P.cols, x.w);
  if ((F.P.flags & FLAG_AERO) != 0u) {
    a.x += air.x;
    a.y += air.y;
    a.z += air.z;
  }
  let h = F.P.h;
  var v = vel[i];
  if ((pc.flags & PUSH_DAMPED) != 0u) {
    let k = 1.0 + h * x.w * F.P.damping;
    v.x = v.x / k + h * a.x;
    v.y = v.y / k + h * a.y;
    v.z = v.z / k + h * a.z;
  } else {
    v.x += h * a.x;
    v.y += h * a.y;
    v.z += h * a.z;
  }
  vel[i] = v;
  pos[i] = vec4f(x.x + h * v.x, x.y + h * v.y, x.z + h * v.z, x.w);
}

// environment.c TriangleAero: one triangle's drag and lift from the state at the substep start.
fn triangleAero(t: u32) -> vec3f {
  let i0 = indices[3u * t];
  let i1 = indices[3u * t + 1u];
  let i2 = indices[3u * t + 2u];
  let p0 = pos[i0];
  let p1 = pos[i1];
  let p2 = pos[i2];
  let v0 = vel[i0];
  let v1 = vel[i1];
  let v2 = vel[i2];
  let ax = p1.x - p0.x;
  let ay = p1.y - p0.y;
  let az = p1.z - p0.z;
  let bx = p2.x - p0.x;
  let by = p2.y - p0.y;
  let bz = p2.z - p0.z;
  let nx = ay * bz - az * by;
  let ny = az * bx - ax * bz;
  let nz = ax * by - ay * bx;
  let len = sqrt(nx * nx + ny * ny + nz * nz);
  if (!(len > 1e-20)) {
    return vec3f(0.0);
  }
  let ux = nx / len;
  let uy = ny / len;
  let uz = nz / len;
  let q = F.P.aero.w * (0.5 * len);
  let three = F.P.aeroCoeff.z; // 3, from the host: see aero
  let rx = F.P.aero.x - (v0.x + v1.x + v2.x) / three;
  let ry = F.P.aero.y - (v0.y + v1.y + v2.y) / three;
  let rz = F.P.aero.z - (v0.z + v1.z + v2.z) / three;
  let rn = rx * ux + ry * uy + rz * uz;
  let drag = q * F.P.aeroCoeff.x * abs(rn) * rn;
  var f = vec3f(drag * ux, drag * uy, drag * uz);
  let s2 = rx * rx + ry * ry + rz * rz;
  if (F.P.aeroCoeff.y != 0.0 && s2 > 1e-24) {
    let lift = q * F.P.aeroCoeff.y * rn * sqrt(s2);
    let k = rn / s2;
    f.x += lift * (ux - k * rx);
    f.y += lift * (uy - k * ry);
    f.z += lift * (uz - k * rz);
  }
  return f;
}

// wfAeroAccel into prev, before predict reads it: the corner's third of each incident triangle's
// force, times the inverse mass and the particle's air share (XPBD and Jacobi).
@compute @workgroup_size(GROUP_SIZE)
fn aero(@builtin(global_invocation_id) gid: vec3u) {
  let i = element(gid.x);
  if (i == NONE) {
    return;
  }
  var sx = 0.0;
  var sy = 0.0;
  var sz = 0.0;
  for (var e = triStart[i]; e < triStart[i + 1u]; e++) {
    let f = triangleAero(triList[e]);
    sx += f.x;
    sy += f.y;
    sz += f.z;
  }
  // The divisor 3 comes from the host (aeroCoeff.z): a constant one is compiled to a multiplication
  // by its rounded reciprocal, which gives other bits than the CPU's division.
  let three = F.P.aeroCoeff.z;
  let w = pos[i].w;
  let share = airShare[i];
  prev[i] = vec4f(sx * w / three * share, sy * w / three * share, sz * w / three * share, 0.0);
}

// XPBD: one pass over one colour range [lo, lo + count). No two constraints of a colour share a
// particle, so the threads of a dispatch never touch the same particle.
@compute @workgroup_size(GROUP_SIZE)
fn xpbdSolve(@builtin(global_invocation_id) gid: vec3u) {
  let k = element(gid.x);
  if (k == NONE) {
    return;
  }
  let q = con[k];
  let firstPass = (pc.flags & PUSH_FIRST_ITERATION) != 0u;
  let a = pos[q.x];
  let b = pos[q.y];
  let wsum = a.w + b.w;
  let dx = a.x - b.x;
  let dy = a.y - b.y;
  let dz = a.z - b.z;
  let len = sqrt(dx * dx + dy * dy + dz * dz);
  if (wsum == 0.0 || len < 1e-12) {
    if (firstPass) {
      lambdas[k] = 0.0;
    }
    return;
  }
  // dLambda = -(C + alpha~ lambda) / (w_a + w_b + alpha~), gradient n = (a - b) / |a - b|.
  let at = F.P.alphaTilde[q.w];
  let lam = select(lambdas[k], 0.0, firstPass);
  let dl = -(len - bitcast<f32>(q.z) + at * lam) / (wsum + at);
  lambdas[k] = lam + dl;
  let s = dl / len;
  let sa = s * a.w;
  let sb = s * b.w;
  let ma = vec3f(sa * dx, sa * dy, sa * dz);
  let mb = vec3f(sb * dx, sb * dy, sb * dz);
  pos[q.x] = vec4f(a.x + ma.x, a.y + ma.y, a.z + ma.z, a.w);
  pos[q.y] = vec4f(b.x - mb.x, b.y - mb.y, b.z - mb.z, b.w);
  // The moves into the ends' velocities (wfCpuMoved).
  if ((F.P.flags & FLAG_MOVES) == 0u) {
    return;
  }
  let ih = F.P.invH;
  let va = vel[q.x];
  let vb = vel[q.y];
  vel[q.x] = vec4f(va.x + ma.x * ih, va.y + ma.y * ih, va.z + ma.z * ih, va.w);
  vel[q.y] = vec4f(vb.x - mb.x * ih, vb.y - mb.y * ih, vb.z - mb.z * ih, vb.w);
}

// One averaged Jacobi sweep (cpu_jacobi.c): every particle gathers the corrections of its
// constraints from pos into posAlt and its move into its velocity from vel into velAlt; the two bind
// groups swap both pairs.
@compute @workgroup_size(GROUP_SIZE)
fn jacobiSweep(@builtin(global_invocation_id) gid: vec3u) {
  let i = element(gid.x);
  if (i == NONE) {
    return;
  }
  let xi = pos[i];
  let vi = vel[i];
  if (xi.w == 0.0) {
    posAlt[i] = xi;
    velAlt[i] = vi;
    return;
  }
  var cx = 0.0;
  var cy = 0.0;
  var cz = 0.0;
  let byDegree = (F.P.flags & FLAG_JACOBI_DEGREE) != 0u;
  let lo = adjStart[i];
  let hi = adjStart[i + 1u];
  for (var e = lo; e < hi; e++) {
    let kj = adj[e];
    let xj = pos[kj.y];
    let dx = xj.x - xi.x;
    let dy = xj.y - xi.y;
    let dz = xj.z - xi.z;
    let len = sqrt(dx * dx + dy * dy + dz * dz);
    if (len < 1e-12) {
      continue;
    }
    var f = 1.0;
    if (!byDegree) {
      f = 2.0 * xi.w / (xi.w + xj.w);
    }
    let gain = jacobiWeight[kj.x] * f * (len - bitcast<f32>(con[kj.x].z)) / len;
    cx += gain * dx;
    cy += gain * dy;
    cz += gain * dz;
  }
  // wfCpuJacobiSubstep's per-particle factor: s / deg(i) (degree weights) or s.
  var s = F.P.relaxation;
  if (byDegree) {
    s = select(0.0, F.P.relaxation / f32(hi - lo), hi > lo);
  }
  let m = vec3f(s * cx, s * cy, s * cz);
  posAlt[i] = vec4f(xi.x + m.x, xi.y + m.y, xi.z + m.z, xi.w);
  // The move into the substep's velocity (wfCpuMoved), ping-ponged with the positions (without
  // FLAG_MOVES velAlt is a copy: the finish reads the positions).
  let ih = select(0.0, F.P.invH, (F.P.flags & FLAG_MOVES) != 0u);
  velAlt[i] = vec4f(vi.x + m.x * ih, vi.y + m.y * ih, vi.z + m.z * ih, vi.w);
}

// One explicit mass-spring substep (cpu_springs.c): reads (pos, vel), writes (posAlt, velAlt),
// semi-implicit Euler, then the collision of the written particle.
@compute @workgroup_size(GROUP_SIZE)
fn springs(@builtin(global_invocation_id) gid: vec3u) {
  let i = element(gid.x);
  if (i == NONE) {
    return;
  }
  let xi = pos[i];
  let vi = vel[i];
  if (xi.w == 0.0) {
    posAlt[i] = select(xi, vec4f(F.P.grabTarget.xyz, 0.0), i32(i) == F.P.grabIndex);
    velAlt[i] = vec4f(0.0);
    return;
  }
  let a = externalAccel(pc.substep, i % F.P.cols, xi.w);
  let mass = F.P.mass;
  let k2 = F.P.stiffness;
  let damping = F.P.springDamping;
  let h = F.P.h;
  var fx = mass * a.x;
  var fy = mass * a.y;
  var fz = mass * a.z;
  let lo = adjStart[i];
  let hi = adjStart[i + 1u];
  for (var e = lo; e < hi; e++) {
    let kj = adj[e];
    let xj = pos[kj.y];
    let vj = vel[kj.y];
    var dx = xj.x - xi.x;
    var dy = xj.y - xi.y;
    var dz = xj.z - xi.z;
    let len = sqrt(dx * dx + dy * dy + dz * dz);
    if (len < 1e-12) {
      continue;
    }
    dx /= len;
    dy /= len;
    dz /= len;
    let spring = k2 * (len - bitcast<f32>(con[kj.x].z));
    let damper = damping * ((vj.x - vi.x) * dx + (vj.y - vi.y) * dy + (vj.z - vi.z) * dz);
    fx += (spring + damper) * dx;
    fy += (spring + damper) * dy;
    fz += (spring + damper) * dz;
  }
  var v = vec4f(vi.x + h * fx * xi.w, vi.y + h * fy * xi.w, vi.z + h * fz * xi.w, 0.0);
  var x = vec4f(xi.x + h * v.x, xi.y + h * v.y, xi.z + h * v.z, xi.w);
  collide(&x, &v, pc.substep);
  posAlt[i] = x;
  velAlt[i] = v;
}

// End of an XPBD or Jacobi substep: v = factor (x - p) (factor 1/h or retention/h), then collide.
@compute @workgroup_size(GROUP_SIZE)
fn finish(@builtin(global_invocation_id) gid: vec3u) {
  let i = element(gid.x);
  if (i == NONE) {
    return;
  }
  var x = pos[i];
  if (x.w == 0.0) {
    vel[i] = vec4f(0.0);
    return;
  }
  // v = f v: the velocity the substep's moves left (wfCpuMoved), f 1 or Jacobi's retention; without
  // FLAG_MOVES v = f (x - p), f 1/h or retention/h.
  var v: vec4f;
  if ((F.P.flags & FLAG_MOVES) != 0u) {
    let u = vel[i];
    let f = F.P.velScale;
    v = vec4f(u.x * f, u.y * f, u.z * f, 0.0);
  } else {
    let p = prev[i];
    let f = F.P.velFactor;
    v = vec4f((x.x - p.x) * f, (x.y - p.y) * f, (x.z - p.z) * f, 0.0);
  }
  if ((F.P.flags & (FLAG_SPHERE | FLAG_FLOOR)) != 0u || F.P.shapeCount > 0u) {
    collide(&x, &v, pc.substep);
    pos[i] = x;
  }
  vel[i] = v;
}

// Area-weighted vertex normals (wfComputeNormals) as a gather: each particle sums the unnormalised
// normals of its triangles in ascending triangle order, the order in which the CPU scatters them.
@compute @workgroup_size(GROUP_SIZE)
fn computeNormals(@builtin(global_invocation_id) gid: vec3u) {
  let i = element(gid.x);
  if (i == NONE) {
    return;
  }
  var sx = 0.0;
  var sy = 0.0;
  var sz = 0.0;
  let hi = triStart[i + 1u];
  for (var e = triStart[i]; e < hi; e++) {
    let t = triList[e];
    let p0 = pos[indices[3u * t]];
    let p1 = pos[indices[3u * t + 1u]];
    let p2 = pos[indices[3u * t + 2u]];
    let ax = p1.x - p0.x;
    let ay = p1.y - p0.y;
    let az = p1.z - p0.z;
    let bx = p2.x - p0.x;
    let by = p2.y - p0.y;
    let bz = p2.z - p0.z;
    sx += ay * bz - az * by;
    sy += az * bx - ax * bz;
    sz += ax * by - ay * bx;
  }
  let len = sqrt(sx * sx + sy * sy + sz * sz);
  var nv = vec4f(0.0, 1.0, 0.0, 0.0);
  if (len > 1e-20) {
    nv = vec4f(sx / len, sy / len, sz / len, 0.0);
  }
  normals[i] = nv;
}

// The frame check's speed test, as wfCheckFrame: |v|^2 > maxSpeed^2.
fn tooFast(v: vec3f) -> bool {
  let s2 = v.x * v.x + v.y * v.y + v.z * v.z;
  let l2 = F.P.maxSpeed * F.P.maxSpeed;
  return s2 > l2;
}

// wfInContact: within the contact band of the sphere's or the floor's surface at the end of the substep.
fn inContact(x: vec3f, substep: u32) -> bool {
  if ((F.P.flags & FLAG_SPHERE) != 0u) {
    let c = F.P.sphereCenter.xyz + F.S[substep].sphereMotion.xyz;
    let dx = x.x - c.x;
    let dy = x.y - c.y;
    let dz = x.z - c.z;
    let r = F.P.contactBand.x;
    let d2 = dx * dx + dy * dy + dz * dz;
    let r2 = r * r;
    if (d2 <= r2) {
      return true;
    }
  }
  return (F.P.flags & FLAG_FLOOR) != 0u && x.y <= F.P.contactBand.y;
}

// wfTunnelled, operation for operation: the frame path from the backup start x0 to the end x1,
// relative to the sphere's centre after the first (c0) and the last (c1) substep; r2 the radius
// squared, n4 = 4 S^2.
fn tunnelled(x0: vec3f, x1: vec3f, c0: vec3f, c1: vec3f, r2: f32, n4: f32) -> bool {
  let sx = (x0.x - F.P.shift.x) - c0.x;
  let sy = (x0.y - F.P.shift.y) - c0.y;
  let sz = (x0.z - F.P.shift.z) - c0.z;
  let ex = x1.x - c1.x;
  let ey = x1.y - c1.y;
  let ez = x1.z - c1.z;
  let s2 = sx * sx + sy * sy + sz * sz;
  let e2 = ex * ex + ey * ey + ez * ez;
  let dx = ex - sx;
  let dy = ey - sy;
  let dz = ez - sz;
  let l2 = dx * dx + dy * dy + dz * dz;
  let along = -(sx * dx + sy * dy + sz * dz);
  let inside = r2 * l2 - (s2 * l2 - along * along);
  let l4 = l2 * l2;
  let limit = n4 * inside;
  return s2 >= r2 && e2 >= r2 && along > 0.0 && along < l2 && inside > 0.0 && l4 > limit;
}

// The energy pre-test's terms of one particle (wfMotionAdd): x the gain 1/2 |v1|^2 - 1/2 |v0|^2 -
// g . (x1 - x0 + shift), y 1/2 |v0|^2, z their magnitude, w 1; all 0 for a fixed particle.
fn motionTerms(x0: vec4f, v0: vec3f, x1: vec3f, v1: vec3f) -> vec4f {
  if (x0.w == 0.0) {
    return vec4f(0.0);
  }
  let k0 = v0.x * v0.x + v0.y * v0.y + v0.z * v0.z;
  let k1 = v1.x * v1.x + v1.y * v1.y + v1.z * v1.z;
  let ex = x1.x - x0.x + F.P.shift.x;
  let ey = x1.y - x0.y + F.P.shift.y;
  let ez = x1.z - x0.z + F.P.shift.z;
  let fall = F.P.gravity.x * ex + F.P.gravity.y * ey + F.P.gravity.z * ez;
  let h0 = 0.5 * k0;
  let h1 = 0.5 * k1;
  return vec4f(h1 - h0 - fall, h0, h0 + h1 + abs(fall), 1.0);
}

// Frame check (wfCheckFrame): the first particle with a non-finite value and the first moving
// faster than maxSpeed; the page compares them as the CPU's ordered scan would. The reference
// particle's position goes along for the next frame's re-centring. With them the motion tests
// against the frame-start state (the backup): the first particle that passed the tunnelling test,
// and the energy pre-test's terms of each particle into `partials` (checkSum adds them up).
@compute @workgroup_size(GROUP_SIZE)
fn check(@builtin(global_invocation_id) gid: vec3u) {
  let i = element(gid.x);
  if (i != NONE) {
    let x = pos[i];
    let v = vel[i];
    let s = x.x + x.y + x.z + v.x + v.y + v.z;
    // Exponent bits all ones: inf or NaN.
    if ((bitcast<u32>(s) & 0x7f800000u) == 0x7f800000u) {
      atomicMin(&status.firstNonFinite, i);
    } else if (tooFast(v.xyz)) {
      atomicMin(&status.firstUnstable, i);
      if (inContact(x.xyz, pc.substep)) {
        atomicMin(&status.firstUnstableInContact, i);
      }
    }
    if (i == F.P.particleCount / 2u) {
      status.reference = vec4f(x.xyz, 0.0);
    }
    let x0 = backupPos[i];
    if ((F.P.flags & FLAG_SPHERE) != 0u) {
      let c0 = F.P.sphereCenter.xyz + F.S[0].sphereMotion.xyz;
      let c1 = F.P.sphereCenter.xyz + F.S[pc.substep].sphereMotion.xyz;
      let r2 = F.P.contactBand.z * F.P.contactBand.z;
      let k = f32(pc.substep + 1u);
      let n4 = 4.0 * k * k;
      if (tunnelled(x0.xyz, x.xyz, c0, c1, r2, n4)) {
        atomicMin(&status.firstTunnelled, i);
      }
    }
    partials[i] = motionTerms(x0, backupVel[i].xyz, x.xyz, v.xyz);
  }
}

var<workgroup> sSum: array<vec4f, GROUP_SIZE>;

// The energy pre-test's sums over the check's pc.count particles, in one workgroup (after check:
// WebGPU orders the dispatches): invocation t adds particles t, t + GROUP_SIZE, ..., invocation 0
// adds those. One barrier: SwiftShader pays for each (a tree of halves cost the page a fifth of its step).
@compute @workgroup_size(GROUP_SIZE)
fn checkSum(@builtin(local_invocation_index) t: u32) {
  var total = vec4f(0.0);
  for (var k = t; k < pc.count; k = k + GROUP_SIZE) {
    total = total + partials[k];
  }
  sSum[t] = total;
  workgroupBarrier();
  if (t == 0u) {
    var sum = vec4f(0.0);
    for (var k = 0u; k < GROUP_SIZE; k = k + 1u) {
      sum = sum + sSum[k];
    }
    status.energy = sum;
  }
}
