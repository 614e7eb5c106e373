// The bare calls: the copies a split of the per-call input makes, as plain WebGPU calls (one encoder, a
// copyBufferToBuffer per output, finish, submit): what every per-call variant is compared with. And the same calls
// inside error scopes, to find what keeping blame costs (a GPU error landing on the call that caused it, as a split
// of a caller's buffer does): a validation scope per call, its pop not awaited (Cleave's split of a caller's buffer
// it has seen, whose outputs a late error poisons); one scope around each batch of calls in a row (blame on the
// batch); and a scope per call, its pop awaited (blame before the call resolves).

import { msg } from './log.mjs';
import { createBuffer } from './gpu-probe.mjs';
import { STORAGE } from './systems/limits.mjs';
import { inARow, repeat, unavailable, variant } from './call-variants.mjs';

/** @import { GpuTensor, SplitEngine } from '/dist/cleave.js' */
/** @import { CallCostRow } from '../types.js' */
/** @import { How, Variant } from './call-variants.mjs' */
/** @typedef {{ axis: number, parts: number, alias: 'none' }} Options */

/**
 * The bare calls, then the same inside error scopes. They copy what a split of `x` with copies copies: from the
 * input's chunk to the output's place, in buffers of the output buffers' sizes, read from one such split. An error
 * a scope catches (none should) goes to `errors`, the run's GPU errors.
 * @param {SplitEngine} engine @param {GpuTensor} x @param {Options} options @param {readonly number[]} outer
 * @param {string[]} errors @returns {Promise<Variant[]>}
 */
export async function bareVariants(engine, x, options, outer, errors) {
  const device = /** @type {GPUDevice} */ (engine.device);
  /** @type {How} */
  const how = { fn: 'bare', variant: 'bare', label: 'bare calls', aligned: true, owner: 'engine' };
  const copies = await copiesOf(engine, x, options, outer);
  if (typeof copies === 'string') return [unavailable(how, x, copies)];
  const copy = () => {
    const enc = device.createCommandEncoder();
    for (const c of copies) enc.copyBufferToBuffer(x.buffer, c.from, c.to, c.offset, c.size);
    device.queue.submit([enc.finish()]);
  };
  const outs = copies.map((c) => ({ buffer: c.to, byteOffset: c.offset, byteLength: c.size }));
  /** @param {(n: number) => Promise<void> | void} calls @param {() => Promise<void> | void} one */
  const make = (/** @type {How} */ h, calls, one) => {
    const once = async () => {
      await one();
      return { outs, release() {} };
    };
    return variant(h, x, once, inARow(device, calls));
  };
  const label = `bare calls: 1 encoder, ${copies.length} copyBufferToBuffer, finish, submit`;
  const bare = make({ ...how, label }, repeat(copy), copy);
  const scoped = SCOPES.map(([scope, id, words]) => {
    const calls = scopedCalls(device, copy, scope, words, errors);
    const v = make({ ...how, fn: 'scoped', variant: id, label: `${label}, ${words}` }, calls, () => calls(1));
    v.row.scope = scope;
    return v;
  });
  return [bare, ...scoped];
}

/**
 * The error scopes around the bare calls: [scope, id, in words].
 * @type {readonly [NonNullable<CallCostRow['scope']>, string, string][]}
 */
const SCOPES = [
  ['call', 'bare-scope-call', 'inside a validation scope per call, its pop not awaited'],
  ['batch', 'bare-scope-batch', 'inside one validation scope per batch of calls in a row'],
  ['call-awaited', 'bare-scope-awaited', 'inside a validation scope per call, its pop awaited'],
];

/**
 * n bare calls in a row inside validation scopes, one per call or one per batch; an error a scope catches (none
 * should) goes to `errors`, so the run reports it.
 * @param {GPUDevice} device @param {() => void} copy @param {NonNullable<CallCostRow['scope']>} scope
 * @param {string} words @param {string[]} errors @returns {(n: number) => Promise<void> | void}
 */
function scopedCalls(device, copy, scope, words, errors) {
  const caught = (/** @type {GPUError | null} */ e) => {
    if (e) errors.push(`bare calls ${words}: ${e.message}`);
  };
  const lost = () => {};
  const push = () => device.pushErrorScope('validation');
  if (scope === 'batch')
    return (n) => {
      push();
      for (let i = 0; i < n; i++) copy();
      device.popErrorScope().then(caught, lost);
    };
  if (scope === 'call')
    return (n) => {
      for (let i = 0; i < n; i++) {
        push();
        copy();
        device.popErrorScope().then(caught, lost);
      }
    };
  return async (n) => {
    for (let i = 0; i < n; i++) {
      push();
      copy();
      caught(await device.popErrorScope());
    }
  };
}

/**
 * The bare calls' copies, read from one split of `x` with copies; why there are none, if so.
 * @param {SplitEngine} engine @param {GpuTensor} x @param {Options} options @param {readonly number[]} outer
 * @returns {Promise<{ from: number, to: GPUBuffer, offset: number, size: number }[] | string>}
 */
async function copiesOf(engine, x, options, outer) {
  const device = /** @type {GPUDevice} */ (engine.device);
  if (outer.some((d) => d !== 1)) return 'the bare calls need one chunk per output: dims before the axis 1';
  let outs;
  try {
    outs = await engine.split(x, options);
  } catch (e) {
    return `the split they copy after failed: ${msg(e)}`;
  }
  /** @type {Map<GPUBuffer, GPUBuffer>} */
  const twin = new Map(outs.map((t) => [t.buffer, createBuffer(device, { size: t.buffer.size, usage: STORAGE })]));
  let at = x.byteOffset;
  const copies = outs.map((t) => {
    const c = { from: at, to: /** @type {GPUBuffer} */ (twin.get(t.buffer)), offset: t.byteOffset, size: t.byteLength };
    at += t.byteLength;
    return c;
  });
  for (const t of outs) engine.release(t);
  return copies;
}
