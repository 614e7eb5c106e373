// Per-call cost: what one call of a split costs in JavaScript and WebGPU calls, for a decode-step shape that a
// token-by-token decoder splits once per layer per token, against the bare calls the same copies need: one
// encoder, a copyBufferToBuffer per copy (the split's own sizes and offsets, into buffers of the split's sizes),
// finish and submit (bare-calls.mjs, with the same calls inside error scopes beside them). Each variant is one
// function on one input: aligned (byte 0 of its buffer) or at byte 4, in an engine upload (the engine owns it: a
// split skips the error scopes) or in a caller's buffer (a split runs inside them; the warm-up makes it a buffer
// the engine has split before, so in this steady state the split resolves without waiting for the pops). Every
// variant is warmed up, then verified once (with --probes, its GPU calls counted), then timed: each round calls
// every variant `callsInARow` times in a row, timed as a whole (the release of the outputs included), the GPU
// drained off the clock, the variants in an order shuffled each round. A variant's figures: µs per call by round;
// its ratio over the bare calls' µs in the same round, median over the rounds; and its fastest round over the bare
// calls' fastest round (the least disturbed rounds, on a machine that runs the GPU's work beside the page). It runs
// on the device and engine it is given, in the page (main.mjs gives it the page's shared ones) and in Node
// (bench/node/calls.mjs, on Dawn): nothing here imports the page's context.

import { equalParts } from '/dist/cleave.js';
import { msg, now, progress } from './log.mjs';
import { compare, makeHost, readTensors, referenceSplit } from './data.mjs';
import { countCalls, createBuffer } from './gpu-probe.mjs';
import { xorshift32 } from './random.mjs';
import { statsOf } from './systems/cleave.mjs';
import { STORAGE } from './systems/limits.mjs';
import { shuffled, summary } from './timing.mjs';
import { bareVariants } from './bare-calls.mjs';
import { encodeVariant, preparedVariant, splitVariant } from './call-variants.mjs';

/** @import { GpuTensor, SplitEngine } from '/dist/cleave.js' */
/** @import { CallCostResult, CallCostSpec, Settings } from '../types.js' */
/** @import { How, Variant } from './call-variants.mjs' */

/**
 * Where the section runs: the device, Cleave's engine on it (calibrated, as a long-lived application has it) and
 * the device's uncaptured errors, which the run empties first and reports.
 * @typedef {{ device: GPUDevice, engine: SplitEngine, errors: string[] }} CallContext
 */

/**
 * @param {CallCostSpec} spec @param {Settings} settings @param {CallContext} s
 * @returns {Promise<CallCostResult>}
 */
export async function runCallCost(spec, settings, s) {
  const t0 = now();
  s.errors.length = 0;
  const n = spec.callsInARow;
  const host = makeHost(spec.dtype, spec.shape, 11);
  const input = new Uint8Array(/** @type {Float32Array} */ (host.data).buffer);
  const axis = spec.axis < 0 ? spec.axis + spec.shape.length : spec.axis;
  const sizes = equalParts(/** @type {number} */ (spec.shape[axis]), spec.parts);
  const ref = referenceSplit(input, spec.dtype, spec.shape, axis, sizes);
  const x = callersBuffers(s.engine, s.device, spec, input, axis, sizes);
  const variants = await variantsOf(s.engine, x, spec, axis, s.errors);
  for (const v of variants) {
    progress(`${spec.id}: warm-up and check, ${v.row.label}`);
    await check(s, v, ref, 2 * n, settings.probes);
  }
  const live = variants.filter((v) => !v.row.error && !v.row.skip);
  const next = xorshift32(settings.callRounds);
  for (let r = 0; r < settings.callRounds; r++) {
    progress(`${spec.id}: round ${r + 1}/${settings.callRounds}, ${n} calls in a row per variant`);
    for (const v of shuffled(live, next)) v.us[r] = await timeBlock(v, n);
  }
  x.free();
  summarize(variants, n);
  return { id: spec.id, rows: variants.map((v) => v.row), gpuErrors: [...s.errors], seconds: (now() - t0) / 1000 };
}

/**
 * Each variant's figures: calls timed, µs per call over the rounds, and (but the bare calls') its ratio over the
 * bare calls, round by round (overBare) and fastest round over fastest round (fastestOverBare).
 * @param {Variant[]} variants  the bare calls first @param {number} n
 */
function summarize(variants, n) {
  const bare = /** @type {Variant} */ (variants[0]).us;
  const bareFastest = summary(bare)?.min;
  for (const v of variants) {
    const ratios = v.us.map((us, r) =>
      us === undefined || !bare[r] ? undefined : us / /** @type {number} */ (bare[r]),
    );
    const us = summary(v.us);
    Object.assign(v.row, { calls: v.us.filter((x) => x !== undefined).length * n, us });
    if (v.row.fn === 'bare') continue;
    v.row.overBare = summary(ratios);
    if (us && bareFastest) v.row.fastestOverBare = us.min / bareFastest;
  }
}

/**
 * The variants of split, encodeSplit and engine.prepare: [function, id, label, input, alias 'none' (else the
 * default; 'into': the caller's three destinations, each output at byte 0 of its own buffer; 'moving': prepared with
 * slot 0 of three caches, each call given the next slot's destinations, as a KV cache's decode step gives them)].
 * @typedef {'owned' | 'caller' | 'ownedAt4' | 'callerAt4'} At
 * @type {readonly [How['fn'], string, string, At, boolean | 'into' | 'moving'][]}
 */
const VARIANTS = [
  ['split', 'split-upload-copies', "split of an engine upload, alias 'none'", 'owned', true],
  ['split', 'split-caller-seen', "split of a caller's buffer the engine has seen", 'caller', false],
  ['encodeSplit', 'encode-upload', 'encodeSplit of an engine upload + encoder, finish, submit', 'owned', false],
  ['split', 'split-upload-views', 'split of an engine upload into views (no GPU work)', 'owned', false],
  ['split', 'split-upload-at4', 'split of an engine upload at byte 4', 'ownedAt4', false],
  ['split', 'split-caller-at4', "split of a caller's buffer at byte 4", 'callerAt4', false],
  [
    'encodeSplit',
    'encode-caller-at4',
    "encodeSplit of a caller's buffer at byte 4 + encoder, finish, submit",
    'callerAt4',
    false,
  ],
  [
    'prepared.encode',
    'prepared-encode-into',
    "prepared encode into the caller's three buffers + encoder, finish, submit",
    'owned',
    'into',
  ],
  [
    'prepared.encode',
    'prepared-encode-moving',
    'prepared encode into the next slot of three caches, given at the call + encoder, finish, submit',
    'owned',
    'moving',
  ],
  ['prepared.split', 'prepared-split-copies', "prepared split of an engine upload, alias 'none'", 'owned', true],
  ['prepared.split', 'prepared-split-into', "prepared split into the caller's three buffers", 'owned', 'into'],
  [
    'prepared.split',
    'prepared-split-moving',
    'prepared split into the next slot of three caches, given at the call',
    'owned',
    'moving',
  ],
  [
    'prepared.split',
    'prepared-split-caller-seen',
    "prepared split of a caller's buffer the engine has seen",
    'caller',
    false,
  ],
];

/**
 * The bare calls (first) and their scoped forms, then VARIANTS.
 * @param {SplitEngine} engine @param {ReturnType<typeof callersBuffers>} x @param {CallCostSpec} spec
 * @param {number} axis @param {string[]} errors @returns {Promise<Variant[]>}
 */
async function variantsOf(engine, x, spec, axis, errors) {
  const options = { axis: spec.axis, parts: spec.parts };
  const copies = { ...options, alias: /** @type {const} */ ('none') };
  const bare = await bareVariants(engine, x.owned, copies, spec.shape.slice(0, axis), errors);
  const out = [...bare];
  for (const [fn, id, label, at, alias] of VARIANTS) {
    const owner = at.startsWith('owned') ? 'engine' : 'caller';
    /** @type {How} */
    const how = { fn, variant: id, label, aligned: !at.endsWith('At4'), owner };
    const t = x[at];
    const into = alias === 'moving' ? x.slots[0] : x.into;
    const opts = alias === 'into' || alias === 'moving' ? { ...options, into } : alias ? copies : options;
    if (fn === 'split') out.push(splitVariant(engine, how, t, () => engine.split(t, opts)));
    else if (fn === 'encodeSplit') out.push(encodeVariant(engine, how, t, (enc) => engine.encodeSplit(enc, t, opts)));
    else out.push(await preparedVariant(engine, how, t, opts, into, alias === 'moving' ? x.nextSlot : undefined));
  }
  return out;
}

/**
 * One round of a variant: µs per call, undefined (and the row's error set) when it failed.
 * @param {Variant} v @param {number} n
 */
async function timeBlock(v, n) {
  try {
    return ((await v.block(n)) * 1000) / n;
  } catch (e) {
    v.row.error = `timing failed: ${msg(e)}`;
    return undefined;
  }
}

/** Slots of each cache the moving variants write in turn. */
const SLOTS = 8;

/**
 * The input four ways: an engine upload (aligned), an upload one float longer viewed from byte 4, and the same
 * two placements in buffers the caller (the bench) made; the caller's destinations for `into`, a buffer of
 * its own per output, each output at byte 0; and three caches of SLOTS slots an output long, with each slot's
 * destinations (made before the clock, as a decoder makes them once per step whatever it calls).
 * @param {SplitEngine} engine @param {GPUDevice} device @param {CallCostSpec} spec @param {Uint8Array} input
 * @param {number} axis @param {readonly number[]} sizes
 */
function callersBuffers(engine, device, spec, input, axis, sizes) {
  const n = input.byteLength;
  const tensor = (/** @type {GPUBuffer} */ buffer, /** @type {number} */ byteOffset) =>
    /** @type {GpuTensor} */ ({ dtype: spec.dtype, shape: [...spec.shape], buffer, byteOffset, byteLength: n });
  const callers = [0, 4].map((at) => {
    const b = createBuffer(device, { size: n + at, usage: STORAGE, mappedAtCreation: true });
    new Uint8Array(b.getMappedRange()).set(input, at);
    b.unmap();
    return b;
  });
  const into = sizes.map((size) => {
    const shape = spec.shape.map((d, i) => (i === axis ? size : d));
    const buffer = createBuffer(device, {
      size: (n / /** @type {number} */ (spec.shape[axis])) * size,
      usage: STORAGE,
    });
    return { dtype: spec.dtype, shape, buffer, byteOffset: 0 };
  });
  const caches = into.map((d) => createBuffer(device, { size: d.buffer.size * SLOTS, usage: STORAGE }));
  const slots = Array.from({ length: SLOTS }, (_, k) =>
    into.map((d, i) => ({ ...d, buffer: /** @type {GPUBuffer} */ (caches[i]), byteOffset: k * d.buffer.size })),
  );
  let step = 0;
  const owned = engine.upload({
    dtype: spec.dtype,
    shape: [...spec.shape],
    data: new Float32Array(input.buffer.slice(0)),
  });
  const longer = new Float32Array(n / 4 + 1);
  new Uint8Array(longer.buffer).set(input, 4);
  const upload4 = engine.upload({ dtype: spec.dtype, shape: [n / 4 + 1], data: longer });
  return {
    owned,
    ownedAt4: tensor(upload4.buffer, 4),
    caller: tensor(/** @type {GPUBuffer} */ (callers[0]), 0),
    callerAt4: tensor(/** @type {GPUBuffer} */ (callers[1]), 4),
    into,
    slots,
    nextSlot: () => /** @type {typeof into} */ (slots[++step % SLOTS]),
    free() {
      engine.release(owned);
      engine.release(upload4);
      for (const b of [...callers, ...into.map((d) => d.buffer), ...caches]) b.destroy();
    },
  };
}

/**
 * Warms the variant up (the pool then holds its buffers, as in a decoder's steady state), then makes one
 * call (with `count`, its GPU calls counted) and compares its outputs with the reference.
 * @param {CallContext} s @param {Variant} v @param {readonly Uint8Array[]} ref @param {number} warmup
 * @param {boolean} count
 */
async function check(s, v, ref, warmup, count) {
  const { engine, device } = s;
  if (v.row.error || v.row.skip) return;
  try {
    await v.block(warmup);
    const [{ outs, release }, calls] = count ? await countCalls(v.once) : [await v.once(), undefined];
    if (v.row.fn !== 'bare' && v.row.fn !== 'scoped') v.row.stats = statsOf(engine);
    v.row.gpuCalls = calls;
    const got = await readTensors(device, outs);
    release();
    const error = compare(got, ref, v.row.label);
    if (error) v.row.error = error;
  } catch (e) {
    v.row.error = `check failed: ${msg(e)}`;
  }
}
