// The hostile-input tier: seeded, reproducible bad calls over every public function and argument
// position (test/hostile/calls.ts), each with the SplitError code it must give, between valid
// control splits checked byte for byte. Asserted: no exception other than SplitError, no bad call
// that resolves, no hang, the right code, no GPU buffer created by a call refused on the CPU, no GPU
// error leaking out of Cleave's own scopes (gpuTest), and every control exact. A prepared split makes its GPU work
// ahead (`ready`: its table, its bind groups, output buffers from the pool), after prepare returned: every `ready`
// started settles before a bad call's buffers are counted, so the count is the bad call's own.
//
// HOSTILE_SEED=<n> picks another seed; HOSTILE_SCALE=<x> multiplies the call counts; HOSTILE_TRACE=1 prints each call
// first.

import { writeSync } from 'node:fs';
import * as ort from 'onnxruntime-web';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type GpuTensor, type SplitEngine, createSplitEngine, tensor } from '../../src/index.js';
import { acquireDevice } from '../../src/gpu/device.js';
import { hashParams, rng } from '../helpers/cases.js';
import { type GpuFixture, gpuTest } from '../helpers/gpu.js';
import { BAD, type CaseCtx, TWISTS } from './calls.js';
import { control } from './controls.js';
import { FNS, type Fn, PREPARED_FNS, SCALE, SEED, Tally, outcomeOf, scaleValid } from './harness.js';
import { PREPARED_BAD, PREPARED_TWISTS, preparedControl } from './prepared-calls.js';

/** The fewest bad calls a function's test may run, whatever the scale. */
const FLOOR = 10;
const TIMEOUT_MS = 10_000;
/** HOSTILE_TRACE=1 prints each bad call before it runs (to find one that kills the process). */
const TRACE = process.env.HOSTILE_TRACE === '1';

/** Bad calls per function (6,300 in all at scale 1), and how many bad calls pass between two controls. */
const COUNTS: Readonly<Record<(typeof FNS)[number], number>> = {
  createSplitEngine: 300,
  split: 1200,
  run: 700,
  encodeSplit: 350,
  upload: 350,
  download: 300,
  release: 250,
  destroy: 150,
  inferShapes: 450,
  resolveNode: 300,
  planSplit: 300,
  fromOrtTensor: 300,
  toOrtTensor: 250,
  prepare: 300,
  'prepared.split': 500,
  'prepared.encode': 300,
};
const PURE = new Set<Fn>(['inferShapes', 'resolveNode', 'planSplit', 'createSplitEngine']);
/** A prepared split's functions: every other control is a prepared split too. */
const PREPARED = new Set<Fn>(PREPARED_FNS);
const GENS = { ...BAD, ...PREPARED_BAD };
const ALL_TWISTS = { ...TWISTS, ...PREPARED_TWISTS };

const tally = new Tally();
let foreign: GPUDevice;
let extra: SplitEngine[] = [];

beforeAll(async () => {
  const found = await acquireDevice();
  if ('reason' in found) throw new Error(`a second WebGPU device is needed: ${found.reason}`);
  foreign = found.device;
});

afterAll(() => {
  for (const e of extra) e.destroy();
  foreign?.destroy();
  const count = (m: Map<unknown, number>) => [...m.entries()].map(([k, v]) => `${String(k)} ${v}`).join(', ');
  const kinds = new Map([...tally.kinds.entries()].map(([k, v]) => [k, v.size]));
  console.log(
    `hostile tier, seed ${SEED}: ${tally.total(tally.bad)} bad calls (${count(tally.bad)}) of ${tally.total(kinds)} kinds (${count(kinds)}); ` +
      `${tally.total(tally.valid)} hostile-but-valid calls (${count(tally.valid)}); ${tally.total(tally.controls)} controls (${count(tally.controls)}); ` +
      `${tally.failures.length} failures`,
  );
});

/** The `ready` of every prepared split made on the tier's engines and not yet waited for. */
const readying: Promise<unknown>[] = [];

/** `e`, its prepare wrapped to note each prepared split's `ready` (prepare's result and errors as they were). */
function noteReady(e: SplitEngine): SplitEngine {
  const prepare = e.prepare as (...a: unknown[]) => { readonly ready: Promise<void> };
  const noted = (...a: unknown[]) => {
    const p = prepare(...a);
    readying.push(p.ready);
    return p;
  };
  return Object.assign(e, { prepare: noted as unknown as SplitEngine['prepare'] });
}

async function context(g: GpuFixture): Promise<CaseCtx> {
  const e = noteReady(await g.engine());
  const e2 = noteReady(await g.engine());
  const dead = noteReady(await g.engine());
  const x = tensor('float32', new Float32Array(8), [2, 4]);
  const doomed = { gpu: dead.prepare(dead.upload(x), { parts: 2 }), host: dead.prepare(x, { parts: 2 }) };
  dead.destroy();
  const cpu = await createSplitEngine({ backend: 'cpu' });
  extra = [...extra, cpu];
  const made: GPUBuffer[] = [];
  const orts = ort as unknown as CaseCtx['ort'];
  return { device: g.device, foreign, e, e2, dead, cpu, made, leased: [], ort: orts, doomed };
}

/** Frees what a case made, and whatever a bad call that resolved handed out. */
function cleanup(ctx: CaseCtx, value: unknown): void {
  for (const t of ctx.leased.splice(0)) ctx.e.release(t);
  for (const b of ctx.made.splice(0)) b.destroy();
  const items = Array.isArray(value) ? value : [value];
  for (const v of items) {
    try {
      if (v && typeof v === 'object' && 'destroy' in v && typeof (v as SplitEngine).split === 'function')
        (v as SplitEngine).destroy();
      else if (v && typeof v === 'object' && 'buffer' in v) ctx.e.release(v as GpuTensor);
    } catch {
      /* a copy or a foreign object: nothing of ours to free */
    }
  }
}

for (const fn of FNS) {
  gpuTest(
    `${fn}: ${Math.round(COUNTS[fn] * SCALE)} bad calls, each a SplitError with its code, between exact controls`,
    async (g) => {
      const ctx = await context(g);
      const r = rng(SEED ^ hashParams({ fn }));
      const n = Math.round(COUNTS[fn] * SCALE);
      expect(n, `bad calls to run at HOSTILE_SCALE=${process.env.HOSTILE_SCALE}`).toBeGreaterThanOrEqual(FLOOR);
      const every = PURE.has(fn) ? 25 : 6;
      const before = tally.failures.length;
      const ran = { bad: tally.bad.get(fn) ?? 0, controls: tally.total(tally.controls) };
      for (let i = 0; i < n; i++) {
        const repro = `seed ${SEED}, ${fn} case ${i}`;
        if (i % every === 0) {
          const c = PREPARED.has(fn) && i % (2 * every) === 0 ? await preparedControl(ctx, r) : await control(ctx, r);
          tally.control(c.kind, c.problem, `${repro} (control before it: ${c.repro})`);
        }
        const twists = ALL_TWISTS[fn];
        if (twists && r() < 0.1) {
          const t = twists[Math.floor(r() * twists.length)]!(ctx, r);
          const o = await outcomeOf(t.call, TIMEOUT_MS);
          const problem = o.kind === 'resolved' ? await t.verify(o.value) : undefined;
          tally.judgeValid(t, o, problem, `${repro} (valid call before it)`);
          cleanup(ctx, undefined);
        }
        const c = GENS[fn](ctx, r);
        if (TRACE) writeSync(2, `${repro}: ${c.what}\n`);
        await Promise.allSettled(readying.splice(0));
        const live = g.live.size;
        const o = await outcomeOf(c.call, TIMEOUT_MS);
        tally.judgeBad(c, o, repro);
        if (o.kind === 'error' && !c.gpu && g.live.size !== live) {
          tally.fail({
            fn,
            what: c.what,
            expected: 'no GPU work before a CPU-side refusal',
            got: `${g.live.size - live} buffers created`,
            message: o.message,
            repro,
          });
        }
        cleanup(ctx, o.kind === 'resolved' ? o.value : undefined);
        c.cleanup?.();
      }
      for (const e of [ctx.e, ctx.e2]) {
        const c = await control({ ...ctx, e }, r);
        tally.control(c.kind, c.problem, `seed ${SEED}, ${fn}, last control (${c.repro})`);
      }
      expect((tally.bad.get(fn) ?? 0) - ran.bad, 'bad calls judged').toBe(n);
      expect(tally.total(tally.controls) - ran.controls, 'controls checked').toBe(Math.ceil(n / every) + 2);
      const mine = tally.failures.slice(before);
      expect(mine.length, `failures of ${fn}:\n${report(mine)}`).toBe(0);
    },
    120_000,
  );
}

test('the tier ran: a positive scale, and every bad call of every function judged', () => {
  expect(scaleValid(), `HOSTILE_SCALE=${process.env.HOSTILE_SCALE}`).toBe(true);
  const want = FNS.reduce((a, fn) => a + Math.round(COUNTS[fn] * SCALE), 0);
  expect(tally.total(tally.bad)).toBe(want);
  expect(want).toBeGreaterThanOrEqual(FNS.length * FLOOR);
});

function report(failures: Tally['failures']): string {
  const t = new Tally();
  for (const f of failures) t.fail(f);
  return t.report();
}
