// A KV cache's moving slot under fire: a prepared split of a fused float16 QKV writes K and V into heads-major caches
// at a slot given at every call, and a seeded share of the calls gives a bad destination instead (an offset not a
// multiple of 4, negative, or one slot past the cache; other strides, dtype or shape; a buffer too small, without
// COPY_DST, the input's, or not a buffer). Each bad call must be refused with its code, naming `into[i]`, and write
// nothing: the caches at the end are the oracle's, built from the valid steps alone. Copies and the gather, split and
// encode. Then a loop whose device is lost midway: every later call DEVICE_LOST, none hanging.
import { describe, expect, test } from 'vitest';
import { type HostTensor, type Into, createSplitEngine } from '../../src/index.js';
import { acquireDevice } from '../../src/gpu/device.js';
import { int, randomTensor, rng } from '../helpers/cases.js';
import { bufferOf, cacheSlot, noise, scatter } from '../helpers/destinations.js';
import { readBuffer } from '../helpers/download.js';
import { gpuTest } from '../helpers/gpu.js';
import { firstMismatch, referenceSplit } from '../helpers/reference.js';
import { describeOutcome, outcomeOf } from './harness.js';

const [H, T, D] = [4, 8, 8]; // heads, slots, head size: caches [1, H, T, D] of float16
const BYTES = H * T * D * 2;
const STRIDES = [H * T * D, T * D, D, 1];

type Fault = [what: string, code: string, change: (d: Into<'float16'>, ctx: Faults) => Into<'float16'> | number];
interface Faults {
  readonly device: GPUDevice;
  readonly input: GPUBuffer;
  readonly made: GPUBuffer[];
}

const FAULTS: readonly Fault[] = [
  ['byteOffset 2 bytes on (not a multiple of 4)', 'BAD_INPUT', (d) => ({ ...d, byteOffset: d.byteOffset! + 2 })],
  ['byteOffset -4', 'BAD_INPUT', (d) => ({ ...d, byteOffset: -4 })],
  ['byteOffset a string', 'BAD_INPUT', (d) => ({ ...d, byteOffset: '0' as unknown as number })],
  ['the slot one past the cache', 'DATA_LENGTH', (d) => ({ ...d, byteOffset: T * D * 2 })],
  ['other strides', 'BAD_OPTIONS', (d) => ({ ...d, strides: [H * T * D, D, T * D, 1] })],
  ['row-major strides', 'BAD_OPTIONS', (d) => ({ ...d, strides: undefined })],
  ['strides whose elements meet', 'BAD_SHAPE', (d) => ({ ...d, strides: [0, 0, 0, 0] })],
  ['dtype float32', 'BAD_DTYPE', (d) => ({ ...d, dtype: 'float32' as 'float16' })],
  ['shape of two slots', 'BAD_SHAPE', (d) => ({ ...d, shape: [1, H, 2, D] })],
  ['byteLength one byte more', 'DATA_LENGTH', (d) => ({ ...d, byteLength: H * D * 2 + 1 })],
  ['a buffer too small', 'DATA_LENGTH', (d, c) => ({ ...d, buffer: made(c, BYTES / 2, 0x80 | 0x8) })],
  ['a buffer without COPY_DST', 'BAD_INPUT', (d, c) => ({ ...d, buffer: made(c, BYTES, 0x80 | 0x4) })],
  ["the input's buffer", 'BAD_INPUT', (d, c) => ({ ...d, buffer: c.input })],
  ['not a buffer', 'BAD_INPUT', (d) => ({ ...d, buffer: {} as GPUBuffer })],
  ['no destination', 'BAD_OPTIONS', () => 0],
];

function made(c: Faults, size: number, usage: number): GPUBuffer {
  const b = c.device.createBuffer({ size, usage });
  c.made.push(b);
  return b;
}

describe('a moving slot, seeded bad destinations between valid steps', () => {
  for (const strategy of ['copy', 'gather'] as const)
    for (const call of ['split', 'encode'] as const)
      gpuTest(`${strategy}, prepared ${call}: each bad slot refused by name, nothing written`, async (g) => {
        const e = await g.engine({ strategy });
        const next = rng(strategy.length * 7 + call.length);
        const images = [noise(BYTES, next), noise(BYTES, next)];
        const caches = images.map((b) => bufferOf(g.device, b));
        const slot = (c: number, t: number): Into<'float16'> => cacheSlot(caches[c]!, [H, T, D], t);
        const x = randomTensor('float16', [1, 3 * H, 1, D], next) as HostTensor<'float16'>;
        const gx = e.upload(x);
        const ctx: Faults = { device: g.device, input: gx.buffer, made: [] };
        const p = e.prepare(gx, { axis: 1, parts: 3, into: [undefined, slot(0, 0), slot(1, 0)] });
        const ref = referenceSplit(x, 1, [H, H, H]) as Uint8Array[];
        const want = images.map((b) => b.slice() as Uint8Array);
        const failures: string[] = [];
        let [valid, refused] = [0, 0];
        for (let step = 0; step < 48; step++) {
          const t = int(next, 0, T - 1);
          const into: (Into<'float16'> | undefined)[] = [undefined, slot(0, t), slot(1, t)];
          const bad = next() < 0.5 ? FAULTS[int(next, 0, FAULTS.length - 1)]! : undefined;
          const at = int(next, 1, 2);
          if (bad) {
            const changed = bad[2](into[at]!, ctx);
            into[at] = typeof changed === 'number' ? undefined : changed;
          }
          const o = await outcomeOf(async () => {
            if (call === 'split') return p.split(gx, into);
            const enc = g.device.createCommandEncoder();
            const outs = p.encode(enc, gx, into);
            g.device.queue.submit([enc.finish()]);
            return outs;
          }, 10_000);
          if (!bad) {
            if (o.kind !== 'resolved') failures.push(`step ${step}, slot ${t}: ${describeOutcome(o)}`);
            else for (const out of o.value as { buffer: GPUBuffer }[]) e.release(out as never);
            for (const c of [0, 1])
              want[c] = scatter(want[c]!, ref[c + 1]!, 'float16', [1, H, 1, D], t * D * 2, STRIDES);
            valid++;
            continue;
          }
          refused++;
          const got = describeOutcome(o);
          const named = o.kind === 'error' && o.message.includes(`into[${at}]`);
          if (got !== bad[1] || !named) failures.push(`step ${step}, into[${at}] ${bad[0]}: ${bad[1]}, got ${got}`);
        }
        expect(failures).toEqual([]);
        expect(
          [valid, refused].every((n) => n >= 10),
          `valid ${valid}, refused ${refused}`,
        ).toBe(true);
        // Nothing a refused call gave was written: the caches hold the valid steps' slots over the noise, and only them.
        for (const c of [0, 1])
          expect(firstMismatch(await readBuffer(g.device, caches[c]!), want[c]!), `cache ${c}`).toBeUndefined();
        e.release(gx);
        for (const b of [...caches, ...ctx.made]) b.destroy();
      });
});

test('a moving slot whose device is lost midway: every later call DEVICE_LOST, none hangs', async () => {
  const found = await acquireDevice();
  if ('reason' in found) throw new Error(found.reason);
  const device = found.device;
  const e = await createSplitEngine({ device });
  const next = rng(5);
  const caches = [0, 1].map(() => bufferOf(device, noise(BYTES, next)));
  const slot = (c: number, t: number): Into<'float16'> => cacheSlot(caches[c]!, [H, T, D], t);
  const gx = e.upload(randomTensor('float16', [1, 3 * H, 1, D], next) as HostTensor<'float16'>);
  const p = e.prepare(gx, { axis: 1, parts: 3, into: [undefined, slot(0, 0), slot(1, 0)] });
  const outcomes: string[] = [];
  for (let step = 0; step < 2 * T; step++) {
    if (step === T) device.destroy();
    const into = [undefined, slot(0, step % T), slot(1, step % T)];
    const o = await outcomeOf(async () => {
      if (step % 2) return p.split(gx, into);
      const enc = device.createCommandEncoder();
      return p.encode(enc, gx, into);
    }, 10_000);
    outcomes.push(describeOutcome(o));
  }
  expect(
    outcomes.slice(0, T).every((o) => o.startsWith('resolved')),
    outcomes.join(),
  ).toBe(true);
  expect(outcomes.slice(T)).toEqual(Array<string>(T).fill('DEVICE_LOST'));
  e.destroy();
});
