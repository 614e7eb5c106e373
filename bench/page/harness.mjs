// The bench page: every system of issue 4 side by side on ONE device (ONNX Runtime Web's), driven
// case by case from bench/run.mjs through `window.bench`. For each case it builds the input,
// verifies every system's outputs against a plain JavaScript reference (and checks Cleave's CPU
// path against it too), then times all systems interleaved, batch by batch, so a load change on
// this shared machine hits them alike.
import { createSplitEngine } from '/dist/cleave.js';
import * as ort from '/node_modules/onnxruntime-web/dist/ort.webgpu.min.mjs';
import { GpuTimer, countCalls, createBuffer, pipelinesOn } from './gpu-probe.mjs';

/** Bytes per element on the GPU, and the host array each dtype travels in (Cleave's convention). */
const DTYPES = {
  float32: { bytes: 4, Array: Float32Array, lanes: 1 },
  float16: { bytes: 2, Array: Uint16Array, lanes: 1 },
  int64: { bytes: 8, Array: BigInt64Array, lanes: 1 },
  uint8: { bytes: 1, Array: Uint8Array, lanes: 1 },
  bool: { bytes: 1, Array: Uint8Array, lanes: 1 },
  complex64: { bytes: 8, Array: Float32Array, lanes: 2 },
  int32: { bytes: 4, Array: Int32Array, lanes: 1 },
};

const STORAGE = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
const now = () => performance.now();
const msg = (e) => (e && typeof e === 'object' && 'message' in e ? String(e.message) : String(e));

let ctx; // set by init()

function progress(text) {
  if (typeof window.__benchProgress === 'function') void window.__benchProgress(text);
}

// ---- data ----------------------------------------------------------------------------------------

/** Deterministic input bytes: finite floats (no NaN, so every path moves them bit-exact), 0/1 bools. */
function makeHost(dtype, shape, seed = 1) {
  const info = DTYPES[dtype];
  const n = shape.reduce((a, b) => a * b, 1);
  const bytes = new Uint8Array(n * info.bytes);
  const words = new Uint32Array(bytes.buffer, 0, bytes.byteLength >> 2);
  let s = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < words.length; i++) {
    s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
    words[i] = s;
  }
  for (let i = words.length * 4; i < bytes.length; i++) bytes[i] = (i * 131 + seed) & 0xff;
  if (dtype === 'float32' || dtype === 'complex64') for (let i = 0; i < words.length; i++) words[i] &= ~0x40000000;
  if (dtype === 'float16') { const h = new Uint16Array(bytes.buffer); for (let i = 0; i < h.length; i++) h[i] &= ~0x4000; }
  if (dtype === 'bool') for (let i = 0; i < bytes.length; i++) bytes[i] &= 1;
  const data = new info.Array(bytes.buffer, 0, n * info.lanes);
  return { dtype, shape: [...shape], data };
}

const bytesOf = (a) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

/** The plain reference: each output's bytes, cut from the input's row-major bytes. */
function referenceSplit(x, axis, sizes) {
  const eb = DTYPES[x.dtype].bytes;
  const outer = x.shape.slice(0, axis).reduce((a, b) => a * b, 1);
  const inner = x.shape.slice(axis + 1).reduce((a, b) => a * b, 1) * eb;
  const row = x.shape[axis] * inner;
  const src = bytesOf(x.data);
  let start = 0;
  return sizes.map((s) => {
    const run = s * inner;
    const out = new Uint8Array(outer * run);
    for (let o = 0; o < outer; o++) out.set(src.subarray(o * row + start * inner, o * row + start * inner + run), o * run);
    start += s;
    return out;
  });
}

/** Compares outputs (typed arrays or byte arrays) with the reference; returns undefined or what differs. */
function compare(outs, ref, what) {
  if (outs.length !== ref.length) return `${what}: ${outs.length} outputs, expected ${ref.length}`;
  for (let i = 0; i < ref.length; i++) {
    const a = outs[i] instanceof Uint8Array ? outs[i] : bytesOf(outs[i]);
    const b = ref[i];
    if (a.byteLength !== b.byteLength) return `${what}: output ${i} has ${a.byteLength} bytes, expected ${b.byteLength}`;
    for (let k = 0; k < b.length; k++) {
      if (a[k] !== b[k]) return `${what}: output ${i} differs at byte ${k} (${a[k]} vs ${b[k]})`;
    }
  }
  return undefined;
}

async function readBuffer(device, buffer, offset, size) {
  const padded = Math.max(4, Math.ceil(size / 4) * 4);
  const staging = createBuffer(device, { size: padded, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const enc = device.createCommandEncoder();
  enc.copyBufferToBuffer(buffer, offset, staging, 0, padded);
  device.queue.submit([enc.finish()]);
  await staging.mapAsync(GPUMapMode.READ);
  const out = new Uint8Array(staging.getMappedRange()).slice(0, size);
  staging.unmap();
  staging.destroy();
  return out;
}

// ---- init ----------------------------------------------------------------------------------------

// The shader-copy limit: one vec4<u32> per thread, nothing else. Workgroup size 256 (the adapter's
// maximum here) was the fastest of 64/128/256 for this kernel on SwiftShader.
const COPY_KERNEL = /* wgsl */ `
@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
override WG: u32 = 64u;
@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * nwg.x + wid.x) * WG + lid;
  if (i < arrayLength(&dst)) { dst[i] = src[i]; }
}`;

async function fetchModel(name) {
  const r = await fetch(`/model/${name}`);
  if (!r.ok) throw new Error(`model ${name}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

async function init(opts) {
  ort.env.wasm.wasmPaths = '/node_modules/onnxruntime-web/dist/';
  ort.env.wasm.numThreads = opts.ortThreads ?? 1;
  ort.env.logLevel = 'error';
  // A session that stays open for the whole run: the native EP destroys its device with its last session.
  const keepAlive = await ort.InferenceSession.create(await fetchModel('keepalive'), { executionProviders: ['webgpu'] });
  const device = ort.env.webgpu.device;
  if (!(device instanceof GPUDevice)) throw new Error(`ort.env.webgpu.device is not a GPUDevice: ${String(device)}`);
  const errors = [];
  device.addEventListener('uncapturederror', (e) => errors.push(e.error.message));
  let lost;
  void device.lost.then((i) => { lost = `${i.reason}: ${i.message}`; });
  const adapter = ort.env.webgpu.adapter ?? await navigator.gpu.requestAdapter();
  const engine = await createSplitEngine({ device });
  const cpu = await createSplitEngine({ backend: 'cpu' });
  const module = device.createShaderModule({ code: COPY_KERNEL });
  const wg = opts.copyWorkgroup ?? 256;
  const copyPipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main', constants: { WG: wg } } });
  ctx = { device, adapter, engine, cpu, keepAlive, copyPipeline, wg, timer: new GpuTimer(device), errors, lost: () => lost, opts };
  const limits = {};
  for (const k of ['maxStorageBufferBindingSize', 'maxBufferSize', 'minStorageBufferOffsetAlignment', 'maxComputeWorkgroupsPerDimension', 'maxStorageBuffersPerShaderStage']) limits[k] = device.limits[k];
  const floor = await timestampFloor();
  return {
    userAgent: navigator.userAgent,
    crossOriginIsolated,
    adapter: { vendor: adapter.info?.vendor, architecture: adapter.info?.architecture, description: adapter.info?.description, device: adapter.info?.device },
    features: [...device.features],
    limits,
    ort: ort.env.versions,
    cleaveBackend: engine.backend,
    timestampQuery: ctx.timer.ok,
    timestampFloorUs: floor,
    copyKernelWorkgroup: wg,
  };
}

/** GPU time of an empty command buffer: the floor every "GPU time" figure includes. */
async function timestampFloor() {
  if (!ctx.timer.ok) return undefined;
  const [, t] = await ctx.timer.time(async () => {
    for (let i = 0; i < 64; i++) ctx.device.queue.submit([ctx.device.createCommandEncoder().finish()]);
    await ctx.device.queue.onSubmittedWorkDone();
  });
  return t.ns / t.commandBuffers / 1000;
}

// ---- systems ---------------------------------------------------------------------------------------
// A system: { key, label, gpuTimed, iter() -> outputs, sync(), free(outputs), verify() -> error? }

function cleaveGpu(c) {
  const engine = c.engine;
  const callSplit = c.callSplit;
  return {
    key: 'cleave-gpu', gpuTimed: true,
    iter: () => callSplit(engine, c.gx),
    sync: () => ctx.device.queue.onSubmittedWorkDone(),
    free: (outs) => { for (const t of outs) engine.release(t); },
    outputBytes: c.bytes,
    async verify() {
      const [outs, calls] = await countCalls(async () => {
        const o = await callSplit(engine, c.gx);
        await ctx.device.queue.onSubmittedWorkDone();
        return o;
      });
      const stats = engine.stats;
      const got = [];
      for (const t of outs) got.push(t.byteLength === 0 ? new Uint8Array(0) : await readBuffer(ctx.device, t.buffer, t.byteOffset, t.byteLength));
      const shapes = outs.map((t) => t.shape);
      for (const t of outs) engine.release(t);
      const bad = compare(got, c.ref, 'Cleave GPU-resident') ?? shapeError(shapes, c);
      return { error: bad, calls, stats: pickStats(stats) };
    },
  };
}

function cleaveHost(c) {
  return hostSystem(c, c.engine, 'cleave-host', 'Cleave host', true);
}

/** Cleave's CPU backend, host in/out: a reference for what a GPU round trip costs on small tensors. */
function cleaveCpu(c) {
  return hostSystem(c, ctx.cpu, 'cleave-cpu', 'Cleave CPU backend', false);
}

/** A Cleave engine fed host tensors; `gpuTimed` ones also report GPU calls and the engine's stats. */
function hostSystem(c, engine, key, label, gpuTimed) {
  return {
    key, gpuTimed,
    iter: () => c.callSplit(engine, c.host),
    sync: async () => {},
    free: () => {},
    outputBytes: 0,
    async verify() {
      const [outs, calls] = gpuTimed ? await countCalls(() => c.callSplit(engine, c.host)) : [await c.callSplit(engine, c.host)];
      const error = compare(outs.map((t) => t.data), c.ref, label) ?? shapeError(outs.map((t) => t.shape), c);
      return gpuTimed ? { error, calls, stats: pickStats(engine.stats) } : { error };
    },
  };
}

function pickStats(s) {
  return { strategy: s.strategy, unitBytes: s.unitBytes, dispatches: s.dispatches, copies: s.copies, commands: s.dispatches + s.copies };
}

function shapeError(shapes, c) {
  for (let i = 0; i < c.outShapes.length; i++) {
    if (String(shapes[i]) !== String(c.outShapes[i])) return `output ${i} has shape [${shapes[i]}], expected [${c.outShapes[i]}]`;
  }
  return undefined;
}

async function ortSession(c, gpuOut, allowFallback) {
  const options = {
    executionProviders: ['webgpu'],
    ...(gpuOut ? { preferredOutputLocation: 'gpu-buffer' } : {}),
    ...(allowFallback ? {} : { extra: { session: { disable_cpu_ep_fallback: '1' } } }),
  };
  return ort.InferenceSession.create(c.model, options);
}

/** ORT with GPU-resident input and outputs, or host in/out. Falls back to its CPU EP only visibly. */
async function ortSystem(c, gpu) {
  const key = gpu ? 'ort-gpu' : 'ort-host';
  const sys = { key, gpuTimed: true, outputBytes: gpu ? c.bytes : 0 };
  if (!c.model) return { ...sys, skip: 'no ONNX model for this case' };
  let session;
  let webgpuError;
  try {
    session = await ortSession(c, gpu, false);
  } catch (e) {
    webgpuError = msg(e);
  }
  if (!session) {
    try {
      session = await ortSession(c, gpu, true);
    } catch (e) {
      return { ...sys, error: `InferenceSession.create failed: ${msg(e)}`, webgpuError };
    }
  }
  let input;
  try {
    input = gpu
      ? ort.Tensor.fromGpuBuffer(c.gx.buffer, { dataType: c.dtype, dims: c.shape })
      : new ort.Tensor(c.dtype, c.host.data, c.shape);
  } catch (e) {
    await session.release();
    return { ...sys, error: `ort.Tensor failed: ${msg(e)}`, webgpuError };
  }
  const feeds = { x: input };
  const names = session.outputNames;
  return {
    ...sys,
    session,
    webgpuError,
    fallback: webgpuError ? 'cpu-ep' : undefined,
    iter: () => session.run(feeds),
    sync: () => ctx.device.queue.onSubmittedWorkDone(),
    free: (r) => { if (gpu) for (const n of names) r[n].dispose(); },
    async verify() {
      let r;
      let calls;
      try {
        [r, calls] = await countCalls(async () => {
          const out = await session.run(feeds);
          await ctx.device.queue.onSubmittedWorkDone();
          return out;
        });
      } catch (e) {
        return { error: `session.run failed: ${msg(e)}`, runError: true };
      }
      const got = [];
      for (const n of names) got.push(gpu ? await r[n].getData() : r[n].data);
      const shapes = names.map((n) => r[n].dims);
      if (gpu) for (const n of names) r[n].dispose();
      return { error: compare(got, c.ref, `ORT ${gpu ? 'GPU-resident' : 'host'}`) ?? shapeError(shapes, c), calls };
    },
    async close() { await session.release(); },
  };
}

/** The copy limit: one copyBufferToBuffer of the input's bytes (rounded up to 4). */
function copyLimit(c) {
  const { device } = ctx;
  const size = Math.max(4, Math.ceil(c.bytes / 4) * 4);
  const dst = createBuffer(device, { size, usage: STORAGE });
  const iter = () => {
    const enc = device.createCommandEncoder();
    enc.copyBufferToBuffer(c.gx.buffer, 0, dst, 0, size);
    device.queue.submit([enc.finish()]);
  };
  return {
    ...limitSystem(c, 'copy-limit', 'copy limit', iter, dst),
    close() { dst.destroy(); },
  };
}

/** A limit system: `iter` copies the input's bytes into `dst`, which verify reads back. */
function limitSystem(c, key, label, iter, dst) {
  const { device } = ctx;
  return {
    key, gpuTimed: true, outputBytes: 0,
    iter, sync: () => device.queue.onSubmittedWorkDone(), free: () => {},
    async verify() {
      const [, calls] = await countCalls(async () => { iter(); await device.queue.onSubmittedWorkDone(); });
      return { error: compare([await readBuffer(device, dst, 0, c.bytes)], [bytesOf(c.host.data)], label), calls };
    },
  };
}

/** The shader-copy limit: the vec4<u32> kernel over the input's bytes (rounded up to 16). */
function shaderLimit(c) {
  const { device, copyPipeline, wg } = ctx;
  const size = Math.max(16, Math.ceil(c.bytes / 16) * 16);
  let src = c.gx.buffer;
  let own;
  if (src.size < size) {
    own = createBuffer(device, { size, usage: STORAGE });
    const enc = device.createCommandEncoder();
    enc.copyBufferToBuffer(c.gx.buffer, 0, own, 0, c.gx.buffer.size);
    device.queue.submit([enc.finish()]);
    src = own;
  }
  const dst = createBuffer(device, { size, usage: STORAGE });
  const bind = device.createBindGroup({
    layout: copyPipeline.getBindGroupLayout(0),
    entries: [{ binding: 0, resource: { buffer: src, offset: 0, size } }, { binding: 1, resource: { buffer: dst, offset: 0, size } }],
  });
  const groups = Math.ceil(size / 16 / wg);
  const maxDim = device.limits.maxComputeWorkgroupsPerDimension;
  const y = Math.ceil(groups / maxDim);
  const x = Math.ceil(groups / y);
  const iter = () => {
    const enc = device.createCommandEncoder();
    const pass = enc.beginComputePass();
    pass.setPipeline(copyPipeline);
    pass.setBindGroup(0, bind);
    pass.dispatchWorkgroups(x, y);
    pass.end();
    device.queue.submit([enc.finish()]);
  };
  return {
    ...limitSystem(c, 'shader-limit', 'shader-copy limit', iter, dst),
    close() { dst.destroy(); own?.destroy(); },
  };
}

// ---- timing ----------------------------------------------------------------------------------------

/** Runs `k` iterations back to back, then waits for the GPU; returns ms per iteration. */
async function batch(sys, k) {
  const outs = [];
  const t0 = now();
  for (let i = 0; i < k; i++) outs.push(await sys.iter());
  await sys.sync();
  const t1 = now();
  for (const o of outs) sys.free(o);
  return (t1 - t0) / k;
}

async function gpuBatch(sys, k) {
  const outs = [];
  const [, t] = await ctx.timer.time(async () => {
    for (let i = 0; i < k; i++) outs.push(await sys.iter());
    await sys.sync();
  });
  for (const o of outs) sys.free(o);
  // No command buffer at all (e.g. Cleave's alias strategy) is a GPU time of 0.
  return t && t.overflow === 0 ? t.ns / 1e6 / k : undefined;
}

function summary(xs) {
  const v = xs.filter((x) => x !== undefined && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return undefined;
  const mid = v.length >> 1;
  const median = v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
  return { median, min: v[0], max: v[v.length - 1], n: v.length };
}

/** Warm-up and batch size: iterations per submit-and-wait so one batch lasts about batchMs. */
async function calibrate(sys, s) {
  const t0 = now();
  let single = [];
  while (single.length < s.warmupIters || (now() - t0 < s.warmupMs && single.length < 50)) single.push(await batch(sys, 1));
  const est = Math.min(...single);
  const k0 = Math.max(1, Math.min(s.maxBatch, Math.round(s.batchMs / Math.max(est, 1e-3))));
  const per = k0 > 1 ? await batch(sys, k0) : est;
  const memCap = sys.outputBytes > 0 ? Math.max(1, Math.floor(s.maxLiveBytes / sys.outputBytes)) : s.maxBatch;
  const k = Math.max(1, Math.min(s.maxBatch, memCap, Math.round(s.batchMs / Math.max(per, 1e-3))));
  return { k, perIterMs: per };
}

async function measureAll(systems, s, label) {
  const live = systems.filter((x) => x.iter && !x.failed);
  for (const sys of live) {
    progress(`${label}: warm-up ${sys.key}`);
    try {
      sys.cal = await calibrate(sys, s);
    } catch (e) {
      sys.failed = `warm-up failed: ${msg(e)}`;
    }
  }
  const timed = live.filter((x) => !x.failed);
  const slowest = Math.max(...timed.map((x) => x.cal.k * x.cal.perIterMs), 1);
  const reps = Math.max(s.minReps, Math.min(s.maxReps, Math.floor(s.budgetMs / slowest)));
  for (const sys of timed) { sys.wall = []; sys.gpu = []; }
  let lastNote = now();
  for (let r = 0; r < reps; r++) {
    // Rotate the order so no system always runs right after the same neighbour.
    for (let j = 0; j < timed.length; j++) {
      const sys = timed[(r + j) % timed.length];
      if (sys.failed) continue;
      try {
        sys.wall.push(await batch(sys, sys.cal.k));
        if (r % 2 === 1 && sys.gpuTimed && ctx.timer.ok) sys.gpu.push(await gpuBatch(sys, sys.cal.k));
      } catch (e) {
        sys.failed = `timing failed at rep ${r}: ${msg(e)}`;
      }
    }
    if (now() - lastNote > 1500) { progress(`${label}: rep ${r + 1}/${reps}`); lastNote = now(); }
  }
  return reps;
}

// ---- one case ----------------------------------------------------------------------------------------

function describeCall(spec) {
  if (spec.op === 'SplitToSequence') {
    return async (engine, x) => {
      if (ctx.runWorks !== false) {
        try {
          const outs = await engine.run({ op: 'SplitToSequence', opset: spec.opset ?? 11, inputs: [x], attrs: { axis: spec.axis } });
          ctx.runWorks = true;
          return outs;
        } catch (e) {
          if (ctx.runWorks === true) throw e;
          ctx.runWorks = false;
          ctx.runError = msg(e);
        }
      }
      return engine.split(x, { axis: spec.axis, parts: spec.shape[spec.axis] });
    };
  }
  return (engine, x) => engine.split(x, { axis: spec.axis, sizes: spec.sizes });
}

async function prepare(spec) {
  const host = makeHost(spec.dtype, spec.shape, spec.seed ?? 7);
  const bytes = host.data.byteLength;
  const ref = referenceSplit(host, spec.axis, spec.sizes);
  const outShapes = spec.sizes.map((s) => spec.shape.map((d, i) => (i === spec.axis ? s : d)));
  let model;
  if (spec.model) model = await fetchModel(spec.model);
  return { ...spec, host, bytes, ref, outShapes, model, callSplit: describeCall(spec) };
}

async function runCase(spec, settings) {
  const t0 = now();
  const label = spec.id;
  const out = { id: spec.id, systems: {}, notes: [] };
  ctx.errors.length = 0;
  progress(`${label}: preparing`);
  const c = await prepare(spec);
  out.bytes = c.bytes;

  // Cleave's CPU path against the plain reference: the "CPU path" every system is checked against.
  const cpuOuts = await ctx.cpu.split(c.host, { axis: spec.axis, sizes: spec.sizes });
  out.cpuPathError = compare(cpuOuts.map((t) => t.data), c.ref, 'Cleave CPU path');
  if (spec.cold) return coldCase(c, settings, out, t0);

  c.engine = spec.strategy ? await createSplitEngine({ device: ctx.device, strategy: spec.strategy }) : ctx.engine;
  c.gx = ctx.engine.upload(c.host);
  progress(`${label}: creating sessions`);
  const systems = [cleaveGpu(c), cleaveHost(c), await ortSystem(c, true), await ortSystem(c, false), copyLimit(c), shaderLimit(c), cleaveCpu(c)];
  if (spec.op === 'SplitToSequence' && ctx.runWorks === undefined) {
    await c.callSplit(ctx.engine, c.host); // learns whether engine.run works yet
  }
  for (const sys of systems) {
    if (!sys.iter) continue;
    progress(`${label}: verifying ${sys.key}`);
    try {
      const v = await sys.verify();
      sys.verified = !v.error;
      sys.verifyInfo = v;
      if (v.error) sys.failed = v.error;
    } catch (e) {
      sys.failed = `verify failed: ${msg(e)}`;
    }
  }
  const reps = await measureAll(systems, settings, label);
  for (const sys of systems) {
    out.systems[sys.key] = {
      ok: !!sys.iter && !sys.failed && !sys.skip && !sys.error,
      verified: sys.verified ?? false,
      error: sys.error ?? sys.failed,
      skip: sys.skip,
      webgpuError: sys.webgpuError,
      fallback: sys.fallback,
      wall: sys.wall ? summary(sys.wall) : undefined,
      gpu: sys.gpu ? summary(sys.gpu) : undefined,
      batch: sys.cal?.k,
      calls: sys.verifyInfo?.calls,
      stats: sys.verifyInfo?.stats,
    };
  }
  out.reps = reps;
  if (spec.op === 'SplitToSequence') {
    out.notes.push(ctx.runWorks ? 'Cleave ran engine.run({op: SplitToSequence})'
      : `engine.run is not available yet (${ctx.runError}); Cleave timed engine.split(x, {axis: ${spec.axis}, parts: ${spec.shape[spec.axis]}}), the same plan`);
  }
  for (const sys of systems) if (sys.close) await sys.close();
  ctx.engine.release(c.gx);
  if (c.engine !== ctx.engine) {
    out.notes.push(`Cleave ran with strategy '${spec.strategy}' forced (createSplitEngine({ strategy }))`);
    c.engine.destroy();
  }
  await ctx.device.queue.onSubmittedWorkDone();
  out.gpuErrors = [...ctx.errors];
  if (ctx.lost()) out.deviceLost = ctx.lost();
  out.pipelinesSoFar = ctx.engine.stats.pipelinesCreated;
  out.seconds = (now() - t0) / 1000;
  return out;
}

// ---- cold start: the first call on a fresh engine, on a fresh device each time --------------------

/** A new device like the shared one (an adapter gives one device only, so a new adapter too). */
async function freshDevice() {
  const l = ctx.device.limits;
  const adapter = await navigator.gpu.requestAdapter();
  return adapter.requestDevice({
    requiredFeatures: [...ctx.device.features].filter((f) => adapter.features.has(f)),
    requiredLimits: { maxStorageBufferBindingSize: l.maxStorageBufferBindingSize, maxBufferSize: l.maxBufferSize },
  });
}

async function coldCase(c, s, out, t0) {
  const runs = { 'cleave-gpu': [], 'cleave-host': [], 'ort-gpu': [], 'ort-host': [], 'copy-limit': [], 'shader-limit': [] };
  const info = {};
  const errs = {};
  const note = (k, e) => { errs[k] ??= msg(e); };
  for (let r = 0; r < s.coldReps; r++) {
    progress(`${c.id}: cold rep ${r + 1}/${s.coldReps}`);
    // Cleave, GPU-resident: engine creation + first split + wait. Upload happens before the clock.
    try {
      const dev = await freshDevice();
      const engine = await createSplitEngine({ device: dev });
      const gx = engine.upload(c.host);
      await dev.queue.onSubmittedWorkDone();
      const a = now();
      const outs = await c.callSplit(engine, gx);
      await dev.queue.onSubmittedWorkDone();
      runs['cleave-gpu'].push(now() - a);
      info['cleave-gpu'] ??= { stats: pickStats(engine.stats), pipelines: engine.stats.pipelinesCreated };
      if (r === 0) {
        const got = [];
        for (const t of outs) got.push(await readBuffer(dev, t.buffer, t.byteOffset, t.byteLength));
        const bad = compare(got, c.ref, 'Cleave GPU-resident (cold)');
        if (bad) note('cleave-gpu', bad);
      }
      engine.destroy();
      dev.destroy();
    } catch (e) { note('cleave-gpu', e); }
    // Cleave, host in/out.
    try {
      const dev = await freshDevice();
      const a = now();
      const engine = await createSplitEngine({ device: dev });
      const outs = await c.callSplit(engine, c.host);
      runs['cleave-host'].push(now() - a);
      info['cleave-host'] ??= { stats: pickStats(engine.stats), pipelines: engine.stats.pipelinesCreated };
      const bad = r === 0 ? compare(outs.map((t) => t.data), c.ref, 'Cleave host (cold)') : undefined;
      if (bad) note('cleave-host', bad);
      engine.destroy();
      dev.destroy();
    } catch (e) { note('cleave-host', e); }
    // ORT: session creation + first run, on a fresh device given to the EP.
    for (const gpu of [true, false]) {
      const key = gpu ? 'ort-gpu' : 'ort-host';
      let dev;
      let session;
      try {
        dev = await freshDevice();
        let buf;
        if (gpu) {
          buf = createBuffer(dev, { size: Math.ceil(c.bytes / 4) * 4, usage: STORAGE, mappedAtCreation: true });
          new Uint8Array(buf.getMappedRange()).set(bytesOf(c.host.data));
          buf.unmap();
        }
        const a = now();
        session = await ort.InferenceSession.create(c.model, {
          executionProviders: [{ name: 'webgpu', device: dev }],
                ...(gpu ? { preferredOutputLocation: 'gpu-buffer' } : {}),
          extra: { session: { disable_cpu_ep_fallback: '1' } },
        });
        const input = gpu ? ort.Tensor.fromGpuBuffer(buf, { dataType: c.dtype, dims: c.shape }) : new ort.Tensor(c.dtype, c.host.data, c.shape);
        const res = await session.run({ x: input });
        await dev.queue.onSubmittedWorkDone();
        runs[key].push(now() - a);
        if (r === 0) {
          const got = [];
          for (const n of session.outputNames) got.push(gpu ? await res[n].getData() : res[n].data);
          const bad = compare(got, c.ref, `ORT ${key} (cold)`);
          if (bad) note(key, bad);
        }
        if (gpu) for (const n of session.outputNames) res[n].dispose();
        buf?.destroy();
      } catch (e) { note(key, e); }
      try { await session?.release(); } catch { /* the device goes with it */ }
      dev?.destroy();
    }
    // The limits, cold: a fresh device's first copy, and its first shader copy (compile included).
    try {
      const dev = await freshDevice();
      const size = Math.ceil(c.bytes / 16) * 16;
      const src = createBuffer(dev, { size, usage: STORAGE });
      const dst = createBuffer(dev, { size, usage: STORAGE });
      let a = now();
      let enc = dev.createCommandEncoder();
      enc.copyBufferToBuffer(src, 0, dst, 0, size);
      dev.queue.submit([enc.finish()]);
      await dev.queue.onSubmittedWorkDone();
      runs['copy-limit'].push(now() - a);
      a = now();
      const module = dev.createShaderModule({ code: COPY_KERNEL });
      const p = dev.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main', constants: { WG: ctx.wg } } });
      const bind = dev.createBindGroup({ layout: p.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: src } }, { binding: 1, resource: { buffer: dst } }] });
      enc = dev.createCommandEncoder();
      const pass = enc.beginComputePass();
      pass.setPipeline(p);
      pass.setBindGroup(0, bind);
      pass.dispatchWorkgroups(Math.ceil(size / 16 / ctx.wg));
      pass.end();
      dev.queue.submit([enc.finish()]);
      await dev.queue.onSubmittedWorkDone();
      runs['shader-limit'].push(now() - a);
      dev.destroy();
    } catch (e) { note('copy-limit', e); note('shader-limit', e); }
  }
  for (const [k, v] of Object.entries(runs)) {
    out.systems[k] = {
      ok: v.length > 0 && !errs[k], verified: v.length > 0 && !errs[k] && !k.endsWith('limit'),
      error: errs[k], wall: summary(v), first: v[0], stats: info[k]?.stats, coldPipelines: info[k]?.pipelines,
    };
  }
  out.reps = s.coldReps;
  out.notes.push('each rep uses a fresh GPUDevice, so every first call compiles its pipeline; ORT times InferenceSession.create + first run; the limits time a fresh device\'s first copy and first shader copy (module + pipeline + dispatch)');
  out.gpuErrors = [...ctx.errors];
  out.pipelinesSoFar = ctx.engine.stats.pipelinesCreated;
  out.seconds = (now() - t0) / 1000;
  return out;
}

async function finish() {
  return {
    cleavePipelines: ctx.engine.stats.pipelinesCreated,
    devicePipelines: pipelinesOn(ctx.device),
    liveBuffers: ctx.engine.stats.liveBuffers,
    gpuErrors: [...ctx.errors],
    deviceLost: ctx.lost(),
  };
}

window.bench = { init, runCase, finish };
window.benchReady = true;
