// The decode step of a browser inference runtime, as bench:node's case 'decode-step' (bench/cases.mjs DECODE_STEPS):
// a fused float16 QKV [1, 3H, 1, D] in a buffer of the runtime's, split along axis 1 by a split prepared once on an
// engine made with `createSplitEngine({ device })` on the runtime's own device: Q into a buffer of the runtime's, K
// and V into two heads-major caches [1, H, T, D] at a slot that moves one position per step (a destination [1, H, 1,
// D] at byte slot * D * 2, strides [H*T*D, T*D, D, 1]), each step recorded into the runtime's own encoder with the
// prepared `encode(encoder, x, into)` and submitted by the runtime. Run twice, the gather forced and the planner's
// choice, each on a device of its own opened as bench:node opens its own (the same adapter, features and limits):
// a runtime's device that no Cleave work has touched, so what `ready` compiles is seen.
//
// Counted, by wrapping the device's and the queue's methods (the runtime calls the originals it kept, so every
// wrapped call is Cleave's): pipelines compiled at creation, in prepare until `ready`, at the first step and over
// every step; GPU work no call of the runtime recorded (anything Cleave does while the runtime is in no call of it,
// and encoders, passes, copies or submits of its own inside a step); and per step, by wrapping the runtime's encoder
// and its passes, what Cleave records (passes, dispatches, setPipeline, setBindGroup, copies) and makes (buffers,
// bind groups, writeBuffer), averaged over the steps after the warm-up (both alignment classes of the slot met).
// Checked: the caches and Q's buffer against the bench's reference split scattered at every slot the steps wrote,
// each step with an input of its own, over noise. Timed: each slot's calls into the encoder are captured (arguments
// as given: descriptor, pipeline, bind groups and their dynamic offsets, dispatch sizes, copies), then rounds of a
// batch of steps each, timed as a whole with performance.now(), the GPU drained off the clock: (a) Cleave's step
// (encoder, encode, finish, submit, and the release of its outputs, as a runtime releases them), the same without
// the release, and (b) the captured calls replayed bare for the same slots (encoder, the calls, finish, submit),
// in an order that turns each round; per run, the fastest round of each and their ratio, and the median of the
// rounds' ratios. The two engines' runs are interleaved, so that neither is always the one that runs second.

import { msg, progress } from '../page/log.mjs';
import { summary } from '../page/timing.mjs';

/** @import { SplitEngine } from 'cleave-gpu' */
/**
 * @import { DecodeStepCounts, DecodeStepHostRun, DecodeStepPhase, DecodeStepRecord, DecodeStepRun,
 *   DecodeStepSettings, DecodeStepSpec, DeviceTally } from '../types.js'
 */

/** The two engines: the gather forced, and the planner's choice. */
const STRATEGIES = /** @type {const} */ (['gather', 'auto']);

/**
 * Steps counted after the warm-up, runs and rounds of the timing; `--quick` shortens them (the GPU tier's test).
 * @param {boolean} quick @returns {DecodeStepSettings}
 */
export const decodeStepSettings = (quick) =>
  quick
    ? { counted: 16, runs: 2, rounds: 6, stepsPerRound: 64 }
    : { counted: 32, runs: 5, rounds: 24, stepsPerRound: 64 };

/** How long the runtime stays idle after the steps, its GPU waits going on, while Cleave's calls are counted. */
const IDLE_MS = 200;

const USAGE_TENSOR = 0x80 | 0x4 | 0x8; // STORAGE | COPY_SRC | COPY_DST

/**
 * The decode step, both engines, each on a device of its own: each made, prepared, counted, checked and captured in
 * turn; then the host time, the engines' runs interleaved (run r of each in turn, the first one changing with r: the
 * one that runs second pays for what the first left behind); then each idle, checked again and closed.
 * @param {DecodeStepSpec} spec @param {DecodeStepSettings} settings
 * @param {(label: string, errors: string[]) => Promise<GPUDevice>} open  a device of the runtime's own
 * @returns {Promise<DecodeStepRecord>}
 */
export async function runDecodeStep(spec, settings, open) {
  const t0 = performance.now();
  const { createSplitEngine } = await import('cleave-gpu');
  /** @type {{ run: DecodeStepRun, device?: GPUDevice, on?: Engine }[]} */
  const engines = [];
  for (const strategy of STRATEGIES) {
    /** @type {DecodeStepRun} */
    const run = { strategy, gpuErrors: [] };
    const e = /** @type {(typeof engines)[number]} */ ({ run });
    engines.push(e);
    await attempt(e, async () => {
      e.device = await open(`bench:node ${spec.id} (${strategy})`, run.gpuErrors);
      e.on = await readyOn(e.device, run, spec, settings, (o) => createSplitEngine(o));
    });
  }
  /** @type {Map<Engine, DecodeStepHostRun[]>} */
  const timed = new Map();
  for (let r = 0; r < settings.runs; r++)
    for (const e of r % 2 ? [...engines].reverse() : engines)
      await attempt(e, async () => {
        const on = /** @type {Engine} */ (e.on);
        progress(`${spec.id} (${e.run.strategy}): timing, run ${r + 1}/${settings.runs}`);
        timed.set(on, [...(timed.get(on) ?? []), await hostRun(on, settings)]);
      });
  for (const e of engines) {
    await attempt(e, async () => {
      const on = /** @type {Engine} */ (e.on);
      e.run.host = hostOf(timed.get(on) ?? [], settings.stepsPerRound);
      await finishOn(on, e.run, spec, settings);
    });
    e.device?.destroy();
  }
  return { id: spec.id, spec, settings, runs: engines.map((e) => e.run), seconds: (performance.now() - t0) / 1000 };
}

/**
 * Runs `f` for an engine that has not failed; a failure is its run's error, and ends its part.
 * @param {{ run: DecodeStepRun, on?: Engine }} e @param {() => Promise<void>} f
 */
async function attempt(e, f) {
  if (e.run.error) return;
  try {
    await f();
  } catch (err) {
    e.run.error = msg(err);
  }
}

/** A tally of nothing. @returns {DeviceTally} */
const zero = () => ({
  compiles: 0,
  compilesAsync: 0,
  encoders: 0,
  passes: 0,
  copies: 0,
  submits: 0,
  commandBuffers: 0,
  buffers: 0,
  bindGroups: 0,
  writeBuffers: 0,
});

const PHASES = /** @type {const} */ ([
  'creation',
  'ready',
  'first',
  'warmup',
  'counted',
  'capture',
  'timed',
  'outside',
]);

/**
 * Wraps the device's and the queue's methods, for good (the device is the run's own): each call is tallied under
 * the phase the runtime is in. Returns the tallies and the runtime's own calls: the originals, never tallied.
 * @param {GPUDevice} device
 */
function watch(device) {
  const queue = device.queue;
  const o = {
    createComputePipeline: device.createComputePipeline,
    createComputePipelineAsync: device.createComputePipelineAsync,
    createCommandEncoder: device.createCommandEncoder,
    createBuffer: device.createBuffer,
    createBindGroup: device.createBindGroup,
    submit: queue.submit,
    writeBuffer: queue.writeBuffer,
  };
  /** @type {{ phase: DecodeStepPhase, by: Record<DecodeStepPhase, DeviceTally> }} */
  const w = {
    phase: 'outside',
    by: /** @type {Record<DecodeStepPhase, DeviceTally>} */ (Object.fromEntries(PHASES.map((p) => [p, zero()]))),
  };
  const add = (/** @type {keyof DeviceTally} */ k, n = 1) => {
    w.by[w.phase][k] += n;
  };
  // An encoder of Cleave's own: what it records there, no call of the runtime's recorded.
  const own = (/** @type {GPUCommandEncoder} */ enc) => {
    const [pass, copy] = [enc.beginComputePass, enc.copyBufferToBuffer];
    enc.beginComputePass = (d) => (add('passes'), pass.call(enc, d));
    enc.copyBufferToBuffer = /** @type {GPUCommandEncoder['copyBufferToBuffer']} */ (
      (/** @type {any[]} */ ...a) => (add('copies'), Reflect.apply(copy, enc, a))
    );
    return enc;
  };
  device.createComputePipeline = (d) => (add('compiles'), o.createComputePipeline.call(device, d));
  device.createComputePipelineAsync = (d) => (add('compilesAsync'), o.createComputePipelineAsync.call(device, d));
  device.createCommandEncoder = (d) => (add('encoders'), own(o.createCommandEncoder.call(device, d)));
  device.createBuffer = (d) => (add('buffers'), o.createBuffer.call(device, d));
  device.createBindGroup = (d) => (add('bindGroups'), o.createBindGroup.call(device, d));
  queue.submit = (cbs) => {
    add('submits');
    add('commandBuffers', [...cbs].length);
    return o.submit.call(queue, cbs);
  };
  queue.writeBuffer = /** @type {GPUQueue['writeBuffer']} */ (
    (/** @type {any[]} */ ...a) => (add('writeBuffers'), Reflect.apply(o.writeBuffer, queue, a))
  );
  const runtime = {
    encoder: () => o.createCommandEncoder.call(device),
    /** @param {GPUCommandBuffer} cb */
    submit: (cb) => o.submit.call(queue, [cb]),
    /** @param {GPUBuffer} b @param {Uint8Array<ArrayBuffer>} data */
    write: (b, data) => o.writeBuffer.call(queue, b, 0, data),
    /** @param {number} size @param {number} usage */
    buffer: (size, usage) => o.createBuffer.call(device, { size, usage }),
  };
  return { w, runtime };
}

/**
 * One call into the runtime's encoder or its compute pass, as Cleave made it: the method (the prototype's), the
 * arguments (arrays copied: the replay gives the same values), and whether it opened the pass.
 * @typedef {{ on: 'encoder' | 'pass', fn: Function, args: unknown[], opens: boolean }} Op
 */

/** An own function-valued property of a prototype (accessors left alone). @param {object} proto */
const methodsOf = (proto) =>
  Object.getOwnPropertyNames(proto).flatMap((name) => {
    const v = Object.getOwnPropertyDescriptor(proto, name)?.value;
    return typeof v === 'function' && name !== 'constructor' ? [/** @type {[string, Function]} */ ([name, v])] : [];
  });

/**
 * Wraps the runtime's encoder for one step (every method but finish, which the runtime calls), and the compute passes
 * it opens: each call Cleave makes is counted by method in `calls` and, with `ops`, kept for the replay.
 * @param {GPUCommandEncoder} enc @param {Record<string, number>} calls @param {Op[] | undefined} ops
 */
function recordInto(enc, calls, ops) {
  const copied = (/** @type {unknown} */ a) => (Array.isArray(a) ? [...a] : a instanceof Uint32Array ? a.slice() : a);
  /** @param {object} target @param {'encoder' | 'pass'} on @param {object} proto @param {string[]} skip */
  const wrap = (target, on, proto, skip) => {
    for (const [name, fn] of methodsOf(proto)) {
      if (skip.includes(name)) continue;
      /** @type {Record<string, unknown>} */ (target)[name] = (/** @type {unknown[]} */ ...args) => {
        calls[name] = (calls[name] ?? 0) + 1;
        const opens = name === 'beginComputePass';
        ops?.push({ on, fn, args: args.map(copied), opens });
        const r = Reflect.apply(fn, target, args);
        if (opens) wrap(/** @type {object} */ (r), 'pass', GPUComputePassEncoder.prototype, []);
        return r;
      };
    }
  };
  wrap(enc, 'encoder', GPUCommandEncoder.prototype, ['finish']);
}

/**
 * Replays one step's captured calls into `enc`, bare.
 * @param {GPUCommandEncoder} enc @param {readonly Op[]} ops
 */
function replay(enc, ops) {
  /** @type {unknown} */
  let pass;
  for (const op of ops) {
    const r = op.fn.apply(op.on === 'encoder' ? enc : pass, op.args);
    if (op.opens) pass = r;
  }
}

/**
 * The runtime's side of one engine's run: its device watched, its buffers (the input, Q's and the caches, over noise:
 * bytes no step writes must stay as they were) and each slot's destinations, made once as a runtime makes them.
 * @param {GPUDevice} device @param {DecodeStepSpec} spec
 * @param {(dtype: any, shape: number[], seed: number) => { data: unknown }} makeHost
 */
function runtimeOf(device, spec, makeHost) {
  const { heads: H, tokens: T, headDim: D } = spec;
  const { w, runtime } = watch(device);
  const shape = [1, 3 * H, 1, D];
  const sizes = [3 * H * D * 2, H * D * 2, H * T * D * 2, H * T * D * 2];
  const [xb, qb, kb, vb] = /** @type {GPUBuffer[]} */ (sizes.map((n) => runtime.buffer(n, USAGE_TENSOR)));
  const noise = sizes.slice(1).map((n, i) => bytesOf(makeHost('uint8', [n], 900 + i)));
  [qb, kb, vb].forEach((b, i) => runtime.write(/** @type {GPUBuffer} */ (b), /** @type {Bytes} */ (noise[i])));
  const half = (/** @type {GPUBuffer} */ buffer, /** @type {number[]} */ shape, byteOffset = 0) => ({
    dtype: /** @type {const} */ ('float16'),
    shape,
    buffer,
    byteOffset,
  });
  const x = { ...half(xb, shape), byteLength: sizes[0] };
  const q = half(qb, [1, H, 1, D]);
  const strides = [H * T * D, T * D, D, 1];
  const slot = (/** @type {GPUBuffer} */ b, /** @type {number} */ t) => ({
    ...half(b, [1, H, 1, D], t * D * 2),
    strides,
  });
  const intos = Array.from({ length: T }, (_, t) => [q, slot(kb, t), slot(vb, t)]);
  return { device, w, runtime, shape, xb, x, intos, outputs: [qb, kb, vb], noise, buffers: [xb, qb, kb, vb] };
}

/** @typedef {ReturnType<typeof runtimeOf>} Runtime */
/** @typedef {Uint8Array<ArrayBuffer>} Bytes */
/** @typedef {import('cleave-gpu').PreparedSplit<'float16'>} Prepared */

/**
 * An engine's first part, into `run`: the engine made and the split prepared, the steps counted and checked, each
 * slot's calls captured, the timed systems warmed up. Returns what the timing and the end need.
 * @param {GPUDevice} device @param {DecodeStepRun} run @param {DecodeStepSpec} spec
 * @param {DecodeStepSettings} settings @param {(o: object) => Promise<SplitEngine>} create
 */
async function readyOn(device, run, spec, settings, create) {
  const { makeHost, referenceSplit } = await import('../page/data.mjs');
  const rt = runtimeOf(device, spec, makeHost);
  const { w } = rt;
  w.phase = 'creation';
  const engine = await create(run.strategy === 'gather' ? { device, strategy: 'gather' } : { device });
  w.phase = 'ready';
  const p = /** @type {Prepared} */ (engine.prepare(rt.x, { axis: 1, parts: 3, into: rt.intos[0] }));
  await p.ready;
  w.phase = 'outside';
  const steps = spec.warmup + settings.counted;
  if (steps > spec.tokens) throw new Error(`${steps} steps need ${steps} slots; the caches have ${spec.tokens}`);
  // Each warm-up and counted step has an input of its own; the last one stays from there on.
  const inputs = Array.from({ length: steps }, (_, t) => bytesOf(makeHost('float16', rt.shape, 100 + t)));
  const split = (/** @type {Bytes} */ b) =>
    referenceSplit(b, 'float16', rt.shape, 1, [spec.heads, spec.heads, spec.heads]);
  const calls = await countSteps(rt, engine, p, inputs, spec.warmup);
  const s = engine.stats;
  run.plan = { strategy: s.strategy, unitBits: s.unitBits, dispatches: s.dispatches, copies: s.copies };
  run.exact = await check(
    rt,
    spec,
    inputs.map((b, slot) => ({ slot, parts: split(b) })),
  );
  const ops = await capture(rt, engine, p, spec.tokens);
  const on = {
    rt,
    engine,
    calls,
    last: split(/** @type {Bytes} */ (inputs[steps - 1])),
    batch: timer(rt, engine, p, ops, settings),
  };
  // Off the record: a round in each order (the JIT settles).
  for (const order of ORDERS) for (const i of order) await on.batch(i);
  return on;
}

/** @typedef {Awaited<ReturnType<typeof readyOn>>} Engine */

/**
 * An engine's end, into `run`: the runtime idle, the caches checked again (after the capture and the timed rounds
 * every slot holds the last input's K and V), the engine destroyed, the counts.
 * @param {Engine} on @param {DecodeStepRun} run @param {DecodeStepSpec} spec @param {DecodeStepSettings} settings
 */
async function finishOn({ rt, engine, calls, last }, run, spec, settings) {
  await idle(rt.device);
  run.exactAfterTiming = await check(
    rt,
    spec,
    Array.from({ length: spec.tokens }, (_, slot) => ({ slot, parts: last })),
  );
  engine.destroy();
  Object.assign(run, figures(rt.w.by, calls, settings.counted));
  for (const b of rt.buffers) b.destroy();
}

/**
 * One step as the runtime takes it: its encoder (wrapped, to count and capture what Cleave records there, when told
 * to), Cleave's encode into it at the slot and the release of the outputs (in `phase`), the runtime's submit.
 * @param {Runtime} rt @param {SplitEngine} engine @param {Prepared} p @param {number} slot
 * @param {DecodeStepPhase} phase @param {Record<string, number> | undefined} calls @param {Op[] | undefined} ops
 */
function step(rt, engine, p, slot, phase, calls, ops) {
  const enc = rt.runtime.encoder();
  if (calls) recordInto(enc, calls, ops);
  rt.w.phase = phase;
  for (const o of p.encode(enc, rt.x, rt.intos[slot])) engine.release(o);
  rt.w.phase = 'outside';
  rt.runtime.submit(enc.finish());
}

/**
 * The warm-up and counted steps, slot t at step t, each with its input written first by the runtime; returns the calls
 * Cleave recorded into the counted steps' encoders, by method.
 * @param {Runtime} rt @param {SplitEngine} engine @param {Prepared} p @param {Bytes[]} inputs @param {number} warmup
 */
async function countSteps(rt, engine, p, inputs, warmup) {
  /** @type {Record<string, number>} */
  const calls = {};
  inputs.forEach((input, t) => {
    rt.runtime.write(rt.xb, input);
    const counted = t >= warmup;
    step(rt, engine, p, t, t === 0 ? 'first' : counted ? 'counted' : 'warmup', counted ? calls : undefined, undefined);
  });
  await rt.device.queue.onSubmittedWorkDone();
  return calls;
}

/** Each slot's calls into the runtime's encoder, as Cleave makes them. @param {Runtime} rt @param {SplitEngine} engine
 * @param {Prepared} p @param {number} slots */
async function capture(rt, engine, p, slots) {
  /** @type {Op[][]} */
  const ops = [];
  for (let t = 0; t < slots; t++) step(rt, engine, p, t, 'capture', {}, (ops[t] = []));
  await rt.device.queue.onSubmittedWorkDone();
  return ops;
}

/**
 * The timed systems of an engine, as a batch: `batch(i)` runs `settings.stepsPerRound` steps of system i (0: Cleave's
 * step with the release of its outputs, 1: without it, 2: the captured calls replayed bare), the slots in turn, timed
 * as a whole; the GPU drained after it off the clock. Returns µs per step.
 * @param {Runtime} rt @param {SplitEngine} engine @param {Prepared} p @param {Op[][]} ops
 * @param {DecodeStepSettings} settings
 */
function timer(rt, engine, p, ops, settings) {
  const { runtime, x, intos, w } = rt;
  const [n, slots] = [settings.stepsPerRound, intos.length];
  /** @type {((slot: number) => void)[]} */
  const systems = [
    (slot) => {
      const enc = runtime.encoder();
      const outs = p.encode(enc, x, intos[slot]);
      runtime.submit(enc.finish());
      for (const o of outs) engine.release(o);
    },
    (slot) => {
      const enc = runtime.encoder();
      p.encode(enc, x, intos[slot]);
      runtime.submit(enc.finish());
    },
    (slot) => {
      const enc = runtime.encoder();
      replay(enc, /** @type {Op[]} */ (ops[slot]));
      runtime.submit(enc.finish());
    },
  ];
  return async (/** @type {number} */ i) => {
    const f = /** @type {(slot: number) => void} */ (systems[i]);
    w.phase = 'timed';
    const t0 = performance.now();
    for (let k = 0; k < n; k++) f(k % slots);
    const us = ((performance.now() - t0) * 1000) / n;
    w.phase = 'outside';
    await rt.device.queue.onSubmittedWorkDone();
    return us;
  };
}

/**
 * One run of the host time: its first batch of each system off the record, then `settings.rounds` rounds, a batch
 * of each system per round in the order of ORDERS in turn.
 * @param {Engine} on @param {DecodeStepSettings} settings @returns {Promise<DecodeStepHostRun>}
 */
async function hostRun({ batch }, settings) {
  for (const i of [0, 1, 2]) await batch(i);
  /** @type {[number[], number[], number[]]} */
  const us = [[], [], []];
  for (let k = 0; k < settings.rounds; k++)
    for (const i of /** @type {number[]} */ (ORDERS[k % ORDERS.length])) us[i]?.push(await batch(i));
  return hostFigures(us, settings.rounds);
}

/**
 * The runs' figures, and their medians over the runs.
 * @param {DecodeStepHostRun[]} runs @param {number} n @returns {NonNullable<DecodeStepRun['host']>}
 */
function hostOf(runs, n) {
  const med = (/** @type {(h: DecodeStepHostRun) => number} */ f) =>
    /** @type {number} */ (summary(runs.map(f))?.median);
  return {
    stepsPerRound: n,
    runs,
    fastest: { release: med((h) => h.fastest.release), noRelease: med((h) => h.fastest.noRelease) },
    roundMedian: { release: med((h) => h.ratios.release.median), noRelease: med((h) => h.ratios.noRelease.median) },
  };
}

/** The runtime idle for IDLE_MS, its GPU waits going on: Cleave has nothing to do. @param {GPUDevice} device */
async function idle(device) {
  const end = performance.now() + IDLE_MS;
  while (performance.now() < end) {
    await device.queue.onSubmittedWorkDone();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * The record's counts from the phases' tallies and the counted steps' calls.
 * @param {Record<DecodeStepPhase, DeviceTally>} by @param {Record<string, number>} calls @param {number} counted
 */
function figures(by, calls, counted) {
  const compiled = (/** @type {DeviceTally[]} */ ...ts) => ({
    sync: ts.reduce((a, t) => a + t.compiles, 0),
    async: ts.reduce((a, t) => a + t.compilesAsync, 0),
  });
  const inSteps = [by.first, by.warmup, by.counted, by.capture, by.timed];
  const sum = (/** @type {keyof DeviceTally} */ k) => inSteps.reduce((a, t) => a + t[k], 0);
  return {
    compiles: {
      creation: compiled(by.creation),
      ready: compiled(by.ready),
      firstCall: compiled(by.first),
      steps: compiled(...inSteps),
    },
    unrecorded: {
      outside: by.outside,
      inSteps: {
        encoders: sum('encoders'),
        passes: sum('passes'),
        copies: sum('copies'),
        submits: sum('submits'),
        commandBuffers: sum('commandBuffers'),
      },
    },
    perStep: perStep(calls, by.counted, counted),
    phases: by,
  };
}

/** The orders of the three variants (Cleave with release, without, the replay): each in every place, in turn. */
const ORDERS = [
  [0, 1, 2],
  [2, 1, 0],
  [1, 2, 0],
  [0, 2, 1],
  [2, 0, 1],
  [1, 0, 2],
];

/**
 * A run's figures from its rounds' µs: [with release, without, bare].
 * @param {number[][]} us @param {number} rounds @returns {DecodeStepHostRun}
 */
function hostFigures(us, rounds) {
  const [a, b, bare] = /** @type {[number[], number[], number[]]} */ (us);
  const s = (/** @type {number[]} */ v) => /** @type {import('../types.js').Summary} */ (summary(v));
  const [ua, ub, ubare] = [s(a), s(b), s(bare)];
  const over = (/** @type {number[]} */ v) => s(v.map((x, k) => x / /** @type {number} */ (bare[k])));
  return {
    rounds,
    us: { release: ua, noRelease: ub, bare: ubare },
    fastest: { release: ua.min / ubare.min, noRelease: ub.min / ubare.min },
    ratios: { release: over(a), noRelease: over(b) },
  };
}

/**
 * The per-step figures: the calls recorded into the runtime's encoder and what the counted steps made, per step.
 * @param {Record<string, number>} calls @param {DeviceTally} made @param {number} steps @returns {DecodeStepCounts}
 */
function perStep(calls, made, steps) {
  const c = (/** @type {string} */ k) => (calls[k] ?? 0) / steps;
  return {
    steps,
    passes: c('beginComputePass'),
    dispatches: c('dispatchWorkgroups') + c('dispatchWorkgroupsIndirect'),
    setPipeline: c('setPipeline'),
    setBindGroup: c('setBindGroup'),
    copies: c('copyBufferToBuffer'),
    calls: Object.values(calls).reduce((a, v) => a + v, 0) / steps,
    buffers: made.buffers / steps,
    bindGroups: made.bindGroups / steps,
    writeBuffers: made.writeBuffers / steps,
  };
}

/** A host tensor's bytes (makeHost's data is over an ArrayBuffer of its own). @param {{ data: unknown }} t */
function bytesOf(t) {
  const d = /** @type {ArrayBufferView<ArrayBuffer>} */ (t.data);
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}

/**
 * Reads Q's buffer and the caches back (through the runtime's own calls) and compares them with what the steps
 * should have left: the noise, each written step's K and V at its slot, and the last step's Q. 'exact', or where
 * the first difference is.
 * @param {Runtime} rt @param {DecodeStepSpec} spec
 * @param {readonly { slot: number, parts: Uint8Array[] }[]} written  in step order
 */
async function check(rt, spec, written) {
  const { heads: H, tokens: T, headDim: D } = spec;
  const want = rt.noise.map((b) => b.slice());
  const row = D * 2;
  for (const { slot, parts } of written) {
    /** @type {Uint8Array} */ (want[0]).set(/** @type {Uint8Array} */ (parts[0]));
    for (const c of [1, 2])
      for (let h = 0; h < H; h++)
        /** @type {Uint8Array} */ (want[c]).set(
          /** @type {Uint8Array} */ (parts[c]).subarray(h * row, (h + 1) * row),
          (h * T + slot) * row,
        );
  }
  const got = await readBack(rt, rt.outputs);
  const names = ['Q', 'K cache', 'V cache'];
  for (let i = 0; i < 3; i++) {
    const [a, b] = [/** @type {Uint8Array} */ (got[i]), /** @type {Uint8Array} */ (want[i])];
    const k = b.findIndex((v, j) => a[j] !== v);
    if (k < 0) continue;
    const where = i === 0 ? '' : ` (head ${Math.floor(k / (T * row))}, slot ${Math.floor(k / row) % T})`;
    return `${names[i]} differs at byte ${k}${where}: ${a[k]}, expected ${b[k]}`;
  }
  return 'exact';
}

/**
 * The buffers' bytes, through a staging buffer each, with the runtime's own calls (never tallied as Cleave's).
 * @param {Runtime} rt @param {GPUBuffer[]} buffers
 */
async function readBack({ device, runtime }, buffers) {
  const staging = buffers.map((b) => runtime.buffer(b.size, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST));
  const enc = runtime.encoder();
  buffers.forEach((b, i) => enc.copyBufferToBuffer(b, 0, /** @type {GPUBuffer} */ (staging[i]), 0, b.size));
  runtime.submit(enc.finish());
  await device.queue.onSubmittedWorkDone();
  await Promise.all(staging.map((s) => s.mapAsync(GPUMapMode.READ)));
  const out = staging.map((s) => new Uint8Array(s.getMappedRange()).slice());
  for (const s of staging) s.destroy();
  return out;
}
