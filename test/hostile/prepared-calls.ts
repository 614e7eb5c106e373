// The bad calls of a prepared split's functions (`engine.prepare`, and the prepared split's `split` and `encode`): a
// valid call with one fault, and the code that fault must give. A prepared call's own rules (issue 38, api.ts): a
// tensor of another dtype, shape or kind is BAD_DTYPE, BAD_SHAPE or BAD_INPUT with a message that names the prepared
// tensor and the given one; a destination not placed as prepared is BAD_OPTIONS naming it; every other fault gives
// what `engine.split` gives for it. Also the valid prepared splits the fuzz tier runs between them (controls), and
// hostile-but-valid prepared calls.

import type { FixedDType, GpuTensor, HostTensor, SplitEngine, SplitError, SplitErrorCode } from '../../src/index.js';
import { int, randomTensor } from '../helpers/cases.js';
import { scatter, widthOf } from '../helpers/destinations.js';
import { downloadAll, readBuffer } from '../helpers/download.js';
import { TENSOR_USAGE, align4, numel } from '../helpers/dtypes.js';
import { bitsOf, firstMismatch, referenceSplit } from '../helpers/reference.js';
import { ENCODERS, type Gen, type Twist, bad, engineOf, recordOnlyFault } from './calls.js';
import type { ControlResult } from './controls.js';
import type { BadCall, PreparedFn } from './harness.js';
import { type IntoSet, intoFault, outputShapes, placeSet, restrided, validInto } from './into-faults.js';
import { type Opts, optionFault, optionTwist, validOptions } from './option-faults.js';
import {
  type Base,
  type Ctx,
  GPU_DTYPES,
  HOST_DTYPES,
  type Mutation,
  type Rng,
  base,
  bytesOfHost,
  callerTensor,
  gpuFault,
  hostFault,
  pick,
} from './tensors.js';
import { JUNK, changingGetter, honestProxy } from './values.js';

/** A prepared split's calls, as plain JavaScript sees them. */
export interface AnyPrepared {
  split(x: unknown, into?: unknown): Promise<unknown>;
  encode(encoder: unknown, x: unknown, into?: unknown): unknown;
}

/** A valid prepared split, a valid input for its calls, and how it was made. */
export interface Prepared {
  readonly b: Base;
  readonly where: 'host' | 'gpu';
  readonly e: SplitEngine;
  readonly options: Opts;
  readonly sizes: number[];
  readonly p: AnyPrepared;
  /** The destinations it was prepared with. */
  readonly set: IntoSet | undefined;
  /** A valid input for a call: another tensor of the prepared dtype and shape (its data in `b2.host`). */
  readonly x: Record<PropertyKey, unknown> | HostTensor;
  readonly b2: Base;
}

const WHAT: Readonly<Record<PreparedFn, string>> = {
  prepare: 'prepare',
  'prepared.split': 'prepared split',
  'prepared.encode': 'prepared encode',
};

/** A GPU tensor of `b` for a call: the caller's buffer, or an engine upload (released after the case). */
function gpuInput(ctx: Ctx, b: Base, r: Rng): Record<PropertyKey, unknown> {
  if (r() < 0.5) return callerTensor(ctx, b);
  const t = ctx.e.upload(b.host as HostTensor<FixedDType>);
  ctx.leased.push(t);
  return t as unknown as Record<PropertyKey, unknown>;
}

/** A valid prepared split of a random base (GPU: with a random layout and alias, and destinations if `into`). */
export function prepared(ctx: Ctx, r: Rng, where: 'host' | 'gpu', into: boolean): Prepared {
  const b = base(r, where === 'host' ? HOST_DTYPES : GPU_DTYPES);
  const { options, sizes } = validOptions(b, r);
  const b2: Base = { ...b, host: randomTensor(b.dtype, b.shape, r) };
  if (where === 'host') {
    const e = pick(r, [ctx.e, ctx.e, ctx.e2, ctx.cpu]);
    return {
      b,
      where,
      e,
      options,
      sizes,
      p: e.prepare(b.host, options as never) as never,
      set: undefined,
      x: b2.host,
      b2,
    };
  }
  const e = engineOf(ctx, r);
  const set = into ? validInto(ctx, b, sizes, r) : undefined;
  const all: Opts = { ...options, ...(set && { into: set.into }) };
  const layout = pick(r, [undefined, undefined, 'shared', 'separate']);
  const alias = pick(r, [undefined, undefined, 'owned', 'any', 'none']);
  if (layout) all.layout = layout;
  if (alias) all.alias = alias;
  const p = e.prepare(gpuInput(ctx, b, r) as never, all as never) as unknown as AnyPrepared;
  return { b, where, e, options: all, sizes, p, set, x: gpuInput(ctx, b2, r), b2 };
}

const tensorText = (kind: string, dtype: string, shape: readonly number[]) =>
  `${kind === 'gpu' ? 'a GPU' : 'a host'} tensor of ${dtype} [${shape.join(', ')}]`;

/** The error must name the prepared tensor and the given one, and the input as its subject. */
function names(what: string, s: Prepared, kind: string, dtype: string, shape: readonly number[]) {
  const prepared = tensorText(s.where, s.b.dtype, s.b.shape);
  const want = `${what}: prepared for ${prepared}, got ${tensorText(kind, dtype, shape)}`;
  return (e: SplitError) =>
    e.message === want && e.subject?.kind === 'input' && e.subject.name === 'input'
      ? undefined
      : `says '${e.message}' (subject ${JSON.stringify(e.subject)}), want '${want}'`;
}

/** A valid tensor that is not of the prepared dtype, shape or kind. */
function mismatch(ctx: Ctx, s: Prepared, r: Rng, what: string): Mutation & { check: BadCall['check'] } {
  const b = s.b;
  const k = r();
  const make = (kind: string, nb: Base) => (kind === 'gpu' ? callerTensor(ctx, nb) : nb.host);
  if (k < 0.4) {
    const dtype = pick(
      r,
      (s.where === 'gpu' ? GPU_DTYPES : HOST_DTYPES).filter((d) => d !== b.dtype),
    );
    const nb = { ...b, dtype, host: randomTensor(dtype, b.shape, r) };
    const check = names(what, s, s.where, dtype, b.shape);
    return { what: `another dtype (${dtype})`, code: 'BAD_DTYPE', value: make(s.where, nb), check };
  }
  const kind = s.where === 'gpu' ? 'host' : 'gpu';
  if (k < 0.6 && b.dtype !== 'string') {
    const check = names(what, s, kind, b.dtype, b.shape);
    return { what: `a ${kind} tensor of the prepared dtype and shape`, code: 'BAD_INPUT', value: make(kind, b), check };
  }
  const shape = [...b.shape];
  if (r() < 0.5) shape.push(1);
  else shape[int(r, 0, shape.length - 1)]! += 1;
  const nb = { ...b, shape, host: randomTensor(b.dtype, shape, r) };
  const check = names(what, s, s.where, b.dtype, shape);
  return { what: `another shape ([${shape.join(', ')}])`, code: 'BAD_SHAPE', value: make(s.where, nb), check };
}

/** A fault of the input's tensor; a reshaped copy of a released tensor is refused for its shape first. */
function inputFault(ctx: Ctx, s: Prepared, r: Rng, recordOnly: boolean): Mutation {
  for (;;) {
    const f =
      s.where === 'host'
        ? hostFault(s.b, r)
        : recordOnly
          ? recordOnlyFault(ctx, s.b, r)
          : gpuFault(ctx, s.b, r, { engine: true });
    // With alias 'any', a caller's buffer is viewed, not read: a buffer the GPU refuses resolves, as with split.
    if (f.gpu && s.options.alias === 'any') continue;
    return f.base ? { ...f, code: 'BAD_SHAPE', what: `${f.what} (another shape)` } : f;
  }
}

/** A valid destination for output `i` where the prepared split places none: row-major, in a buffer of its own. */
function extraDestination(ctx: Ctx, s: Prepared, i: number) {
  const shape = outputShapes(s.b, s.sizes)[i]!;
  const bytes = Math.ceil((numel(shape) * widthOf(s.b.dtype)) / 8);
  const buffer = ctx.device.createBuffer({ size: align4(bytes + 8), usage: TENSOR_USAGE });
  ctx.made.push(buffer);
  return { dtype: s.b.dtype, shape, buffer, byteOffset: 0 };
}

/** Destinations given at the call that are valid, but not placed as prepared: BAD_OPTIONS naming the destination. */
function placementFault(ctx: Ctx, s: Prepared, r: Rng, what: string): Mutation & { check: BadCall['check'] } {
  const set = s.set!;
  const moved = placeSet(ctx, set.plan, 4 * int(r, 0, 70), r);
  const placed = set.plan.map((d, i) => (d ? i : -1)).filter((i) => i >= 0);
  const free = set.plan.map((d, i) => (d ? -1 : i)).filter((i) => i >= 0);
  const k = r();
  let i: number;
  let into: unknown[];
  if (k < 0.35 || free.length === 0) {
    i = pick(r, placed);
    into = k < 0.2 ? restrided(ctx, moved, i) : moved.into.map((d, j) => (j === i ? undefined : d));
  } else {
    i = pick(r, free);
    into = moved.into.map((d, j) => (j === i ? extraDestination(ctx, s, i) : d));
  }
  const d = set.plan[i];
  const want =
    `${what}: into[${i}] must be placed as prepared: ` +
    (d ? `a destination with strides [${d.strides.join(', ')}]` : 'no destination (the engine places it)');
  const check = (e: SplitError) =>
    e.message === want && e.subject?.name === `into[${i}]` ? undefined : `says '${e.message}', want '${want}'`;
  const how = !d ? 'given where none was prepared' : into[i] === undefined ? 'left out' : 'with other strides';
  return { what: `into[${i}]: ${how}`, code: 'BAD_OPTIONS', value: into, check };
}

/** A prepared split whose destination `i` is a Cleave tensor, released after prepare: its calls are RELEASED. */
function releasedDestination(ctx: Ctx, r: Rng): { p: AnyPrepared; x: unknown; what: string } {
  const b = base(r, GPU_DTYPES);
  const { options, sizes } = validOptions(b, r);
  const shapes = outputShapes(b, sizes);
  const i = shapes.findIndex((s) => numel(s) > 0);
  const t = ctx.e.upload(randomTensor(b.dtype, shapes[i]!, r) as HostTensor<FixedDType>);
  const into = shapes.map((_, k) => (k === i ? t : undefined));
  const p = ctx.e.prepare(callerTensor(ctx, b) as never, { ...options, into } as never) as unknown as AnyPrepared;
  ctx.e.release(t);
  return { p, x: callerTensor(ctx, { ...b, host: randomTensor(b.dtype, b.shape, r) }), what: `into[${i}]` };
}

/** Any message of a prepared split's refusal names the function first ('prepare: ...', 'prepare options ...'). */
const prefixed =
  (what: string, more?: BadCall['check']) =>
  (e: SplitError): string | undefined =>
    /^[:\s]/.test(e.message.slice(what.length, what.length + 1)) && e.message.startsWith(what)
      ? more?.(e)
      : `does not name '${what}' first: ${e.message.slice(0, 120)}`;

const mk = (fn: PreparedFn, what: string, code: SplitErrorCode, call: () => unknown, extra: Partial<BadCall> = {}) =>
  bad(fn, what, code, call, { ...extra, check: prefixed(WHAT[fn], extra.check) });

/**
 * A fault of prepare's input that prepare itself must refuse. Left out: a buffer the GPU refuses (destroyed, of
 * another device), which only a call's commands find; a mapped buffer, a state a call checks when it runs; and a
 * released tensor, which prepare accepts today (prepared-lifetime.test.ts holds the failing test of that).
 */
function prepareInputFault(ctx: Ctx, b: Base, where: 'host' | 'gpu', r: Rng): Mutation {
  for (;;) {
    const f = where === 'host' ? hostFault(b, r) : gpuFault(ctx, b, r, { engine: true });
    if (!f.gpu && f.code !== 'RELEASED' && !f.what.startsWith('buffer: mapped')) return f;
  }
}

const prepare: Gen = (ctx, r) => {
  const where = r() < 0.4 ? 'host' : 'gpu';
  const b = base(r, where === 'host' ? HOST_DTYPES : GPU_DTYPES);
  // A GPU tensor on a CPU engine is left out: prepare accepts it today (the failing test is prepared-lifetime's).
  const e = where === 'host' ? pick(r, [ctx.e, ctx.e, ctx.e2, ctx.cpu]) : engineOf(ctx, r);
  const { options, sizes } = validOptions(b, r);
  const x = where === 'host' ? b.host : callerTensor(ctx, b);
  const k = r();
  const at = `(${where} input)`;
  if (k < 0.35) {
    const f = prepareInputFault(ctx, b, where, r);
    const o = f.base ? validOptions(f.base, r).options : options;
    return mk('prepare', `input ${at}: ${f.what}`, f.code, () => e.prepare(f.value as never, o as never));
  }
  if (k < 0.75) {
    const f = optionFault(options, b, r, where);
    return mk('prepare', `options ${at}: ${f.what}`, f.code, () => e.prepare(x as never, f.value as never), {
      check: f.check,
    });
  }
  if (k < 0.93) {
    if (where === 'host')
      return mk('prepare', 'options.into: given for a host input', 'BAD_OPTIONS', () =>
        e.prepare(x as never, { ...options, into: sizes.map(() => undefined) } as never),
      );
    const set = validInto(ctx, b, sizes, r);
    const f = intoFault(ctx, set, r, (x as { buffer: GPUBuffer }).buffer, false);
    return mk('prepare', `options.${f.what}`, f.code, () =>
      e.prepare(x as never, { ...options, into: f.value } as never),
    );
  }
  const junk = r() < 0.3;
  return mk('prepare', `on a destroyed engine ${at}${junk ? ', with junk options' : ''}`, 'RELEASED', () =>
    ctx.dead.prepare(x as never, (junk ? null : options) as never),
  );
};

/** A lifetime fault of a prepared call: a destroyed engine's prepared split, or a prepared destination released. */
function lifetimeFault(ctx: Parameters<Gen>[0], r: Rng, fn: 'prepared.split' | 'prepared.encode'): BadCall {
  const enc = ctx.device.createCommandEncoder();
  const run = (p: AnyPrepared, x: unknown) => () => (fn === 'prepared.split' ? p.split(x) : p.encode(enc, x));
  if (r() < 0.5) {
    const d = releasedDestination(ctx, r);
    return mk(fn, `a prepared destination (${d.what}) released since`, 'RELEASED', run(d.p, d.x));
  }
  const host = fn === 'prepared.split' && r() < 0.4;
  const b: Base = { dtype: 'float32', shape: [2, 4], axis: 0, sizes: [1, 1], host: randomTensor('float32', [2, 4], r) };
  let [name, x]: [string, unknown] = ['a valid tensor', host ? b.host : callerTensor(ctx, b)];
  if (r() < 0.3) {
    const [n, v] = pick(r, JUNK);
    [name, x] = [n, v()];
  }
  const p = (host ? ctx.doomed.host : ctx.doomed.gpu) as unknown as AnyPrepared;
  return mk(fn, `a destroyed engine's prepared split (${host ? 'host' : 'GPU'}), given ${name}`, 'RELEASED', run(p, x));
}

const preparedSplit: Gen = (ctx, r) => {
  const where = r() < 0.3 ? 'host' : 'gpu';
  const s = prepared(ctx, r, where, where === 'gpu' && r() < 0.4);
  const fn = 'prepared.split';
  const host = where === 'host';
  const k = r();
  if (k < (host ? 0.6 : 0.35)) {
    const f = inputFault(ctx, s, r, false);
    return mk(fn, `input (${where}): ${f.what}`, f.code, () => s.p.split(f.value), { gpu: f.gpu });
  }
  if (k < (host ? 0.8 : 0.5)) {
    const f = mismatch(ctx, s, r, 'prepared split');
    return mk(fn, `input (${where}): ${f.what}`, f.code, () => s.p.split(f.value), { check: f.check });
  }
  if (host && k < 0.88)
    return mk(fn, 'into: given for a host input', 'BAD_OPTIONS', () =>
      s.p.split(
        s.x,
        s.sizes.map(() => undefined),
      ),
    );
  if (!host && k < 0.9) return intoCall(ctx, s, r, fn, (into) => s.p.split(s.x, into));
  return lifetimeFault(ctx, r, fn);
};

/** A call with faulted destinations: placed otherwise than prepared, or one fault of a valid set for the call. */
function intoCall(
  ctx: Ctx,
  s: Prepared,
  r: Rng,
  fn: 'prepared.split' | 'prepared.encode',
  call: (into: unknown) => unknown,
): BadCall {
  const what = WHAT[fn];
  const tag = s.set ? 'prepared with into' : 'prepared without into';
  if (s.set && r() < 0.3) {
    const f = placementFault(ctx, s, r, what);
    return mk(fn, `${f.what} (${tag})`, f.code, () => call(f.value), { check: f.check });
  }
  const set = s.set ? placeSet(ctx, s.set.plan, 4 * int(r, 0, 70), r) : validInto(ctx, s.b, s.sizes, r);
  const input = (s.x as { buffer?: GPUBuffer }).buffer;
  const f = intoFault(ctx, set, r, input, fn === 'prepared.split');
  return mk(fn, `${f.what} (${tag})`, f.code, () => call(f.value), { gpu: f.gpu });
}

const preparedEncode: Gen = (ctx, r) => {
  const fn = 'prepared.encode';
  const enc = ctx.device.createCommandEncoder();
  if (r() < 0.06) {
    const s = prepared(ctx, r, 'host', false);
    return mk(fn, `a host-prepared split (${s.e.backend} engine)`, 'BAD_INPUT', () => s.p.encode(enc, s.x));
  }
  const s = prepared(ctx, r, 'gpu', r() < 0.4);
  const k = r();
  if (k < 0.25) {
    const [name, v] = pick(r, ENCODERS);
    const value = v(ctx);
    return mk(fn, `encoder: ${name}`, 'BAD_INPUT', () => s.p.encode(value, s.x));
  }
  if (k < 0.5) {
    const f = inputFault(ctx, s, r, true);
    return mk(fn, `input: ${f.what}`, f.code, () => s.p.encode(enc, f.value));
  }
  if (k < 0.62) {
    const f = mismatch(ctx, s, r, 'prepared encode');
    return mk(fn, `input: ${f.what}`, f.code, () => s.p.encode(enc, f.value), { check: f.check });
  }
  if (k < 0.92) return intoCall(ctx, s, r, fn, (into) => s.p.encode(enc, s.x, into));
  return lifetimeFault(ctx, r, fn);
};

export const PREPARED_BAD: Readonly<Record<PreparedFn, Gen>> = {
  prepare,
  'prepared.split': preparedSplit,
  'prepared.encode': preparedEncode,
};

// ---------------------------------------------------------------------------------------------
// Valid prepared calls: the controls between bad calls, and hostile-but-valid forms.

/**
 * What is wrong with `outs` as the split of `x` (host or GPU outputs): outputs with a destination of `set` are read
 * from its buffers against the reference scattered over their bytes before; the others are downloaded. Releases them.
 */
export async function outputsProblem(
  ctx: Ctx,
  outs: unknown,
  x: HostTensor,
  b: Base,
  sizes: readonly number[],
  set?: IntoSet,
): Promise<string | undefined> {
  if (!Array.isArray(outs) || outs.length !== sizes.length) return `not ${sizes.length} outputs`;
  try {
    return (
      (await outputsOffset(ctx, outs as (HostTensor | GpuTensor)[], x, b, sizes, set)) ??
      (await destinationsOff(ctx, x, b, sizes, set))
    );
  } finally {
    for (const o of outs as GpuTensor[]) if ('buffer' in o) ctx.e.release(o);
  }
}

/** The outputs' dtypes, shapes and places, and the bytes of those without a destination. */
async function outputsOffset(
  ctx: Ctx,
  outs: (HostTensor | GpuTensor)[],
  x: HostTensor,
  b: Base,
  sizes: readonly number[],
  set: IntoSet | undefined,
): Promise<string | undefined> {
  const ref = referenceSplit(x, b.axis, sizes);
  const got = await downloadAll(ctx.e, outs.filter((o, i) => 'buffer' in o && !set?.plan[i]) as GpuTensor[]);
  const shapes = outputShapes(b, sizes);
  for (const [i, o] of outs.entries()) {
    if (o.dtype !== x.dtype || o.shape.join() !== shapes[i]!.join())
      return `output ${i} is ${o.dtype} [${o.shape.join(', ')}], want ${x.dtype} [${shapes[i]!.join(', ')}]`;
    const d = set?.plan[i];
    if (d && ((o as GpuTensor).buffer !== set!.buffers[d.target] || (o as GpuTensor).byteOffset !== d.byteOffset))
      return `output ${i} is not at its destination`;
    const m = d ? undefined : firstMismatch(bitsOf('buffer' in o ? got.shift()! : o), ref[i]!);
    if (m) return `output ${i}: ${m}`;
  }
  return undefined;
}

/** The destination buffers: each output at its place, every other byte as it was. */
async function destinationsOff(
  ctx: Ctx,
  x: HostTensor,
  b: Base,
  sizes: readonly number[],
  set: IntoSet | undefined,
): Promise<string | undefined> {
  if (!set) return undefined;
  const ref = referenceSplit(x, b.axis, sizes) as Uint8Array[];
  for (const t of [0, 1] as const) {
    let want = set.before[t];
    for (const [i, d] of set.plan.entries())
      if (d?.target === t) want = scatter(want, ref[i]!, d.dtype, d.shape, d.byteOffset, d.strides);
    const m = firstMismatch(await readBuffer(ctx.device, set.buffers[t]), want);
    if (m) return `destination buffer ${t}: ${m}`;
  }
  return undefined;
}

/** One valid prepared call of a random kind, on a tensor other than the one prepared for. */
export async function preparedControl(ctx: Ctx, r: Rng): Promise<ControlResult> {
  const kind = pick(r, ['prepared split', 'prepared encode', 'prepared split into', 'prepared host split'] as const);
  const s = prepared(ctx, r, kind === 'prepared host split' ? 'host' : 'gpu', kind === 'prepared split into');
  const repro = `${s.b.dtype} [${s.b.shape.join(', ')}] ${JSON.stringify({ ...s.options, into: s.set && 'given' })}`;
  try {
    if (kind === 'prepared encode') {
      const enc = ctx.device.createCommandEncoder();
      const outs = s.p.encode(enc, s.x);
      ctx.device.queue.submit([enc.finish()]);
      return { kind, repro, problem: await outputsProblem(ctx, outs, s.b2.host, s.b, s.sizes, s.set) };
    }
    // Destinations at the call: the prepared ones moved to new buffers, by whole words or a whole alignment.
    const set = kind === 'prepared split into' ? placeSet(ctx, s.set!.plan, pick(r, [4, 12, 256, 260]), r) : s.set;
    const outs = await s.p.split(s.x, set?.into);
    return { kind, repro, problem: await outputsProblem(ctx, outs, s.b2.host, s.b, s.sizes, set) };
  } catch (e) {
    return { kind, repro, problem: `threw ${(e as Error)?.name}: ${(e as Error)?.message}` };
  }
}

/** An input of the prepared dtype and shape in a hostile but valid form. */
function inputTwist(ctx: Ctx, s: Prepared, r: Rng): [string, unknown] {
  const x = s.x as Record<PropertyKey, unknown>;
  const unaligned = () => {
    const bytes = bytesOfHost(s.b2.host);
    const k = 4 * int(r, 1, 70);
    const buffer = ctx.device.createBuffer({ size: align4(k + bytes.length + 4), usage: TENSOR_USAGE });
    const padded = new Uint8Array(buffer.size);
    padded.set(bytes, k);
    ctx.device.queue.writeBuffer(buffer, 0, padded);
    ctx.made.push(buffer);
    return { dtype: s.b.dtype, shape: [...s.b.shape], buffer, byteOffset: k, byteLength: bytes.length };
  };
  const forms: [string, () => unknown][] = [
    ['a spread copy', () => ({ ...x })],
    ['a frozen copy with a frozen shape', () => Object.freeze({ ...x, shape: Object.freeze([...s.b.shape]) })],
    ['a Proxy that forwards every read', () => honestProxy(x)],
    ['a shape getter that turns bad after the first read', () => changingGetter({ ...x }, 'shape', [s.b.shape, [-1]])],
    ['a dtype getter that turns bad after the first read', () => changingGetter({ ...x }, 'dtype', [s.b.dtype, 'x'])],
  ];
  if (s.where === 'gpu') forms.push(['a caller buffer at another offset (planned again when unaligned)', unaligned]);
  const [what, v] = pick(r, forms);
  return [what, v()];
}

/** Changes every option the caller passed to prepare, in place (arrays too): prepare read them once. */
function scramble(options: Opts): void {
  if (Array.isArray(options.sizes)) (options.sizes as number[]).reverse().push(1);
  if (Array.isArray(options.into)) (options.into as unknown[]).fill(5);
  Object.assign(options, { axis: 9, parts: 0, layout: 'Shared', alias: null, extra: 1 });
}

const preparedTwist: Twist = (ctx, r) => {
  const where = r() < 0.3 ? 'host' : 'gpu';
  const s = prepared(ctx, r, where, where === 'gpu' && r() < 0.3);
  const k = r();
  let what: string;
  let call: () => Promise<unknown>;
  let set = s.set;
  if (k < 0.5) {
    const [name, x] = inputTwist(ctx, s, r);
    [what, call] = [`input (${where}): ${name}`, () => s.p.split(x)];
  } else if (k < 0.75) {
    const t = optionTwist(s.options, r);
    const p = s.e.prepare(s.x as never, t.value as never) as unknown as AnyPrepared;
    if (!('into' in (t.value as object))) set = undefined; // a twist that rebuilds the options drops it
    scramble(s.options);
    [what, call] = [`prepared with ${t.what} (${where}), the options changed after`, () => p.split(s.x)];
  } else {
    scramble(s.options);
    [what, call] = [`the options changed after prepare (${where})`, () => s.p.split(s.x)];
  }
  return {
    fn: 'prepared.split',
    what,
    call,
    verify: (outs) => outputsProblem(ctx, outs, s.b2.host, s.b, s.sizes, set),
  };
};

export const PREPARED_TWISTS: Partial<Record<PreparedFn, Twist[]>> = { 'prepared.split': [preparedTwist] };
