// The crash-prone hostile cases, run in a child process (bundled with the library by
// crash.test.ts, run with plain Node): shared, resizable and detached host memory (a SharedArrayBuffer
// view reaching Dawn's writeBuffer segfaults the process), proxies of native GPU objects (a
// forwarding Proxy of a GPUBuffer reaching Dawn segfaults it), absurd output counts (V8 aborts on
// huge allocations), and a canary that crashes on purpose. Protocol, one JSON object per line on
// stdout, written synchronously so that a crash loses nothing: {"start": i} before case i, then
// {"i", "fn", "what", "expected", "got", "message", "ok"}; {"done": n} at the end.
//
// Usage: node child.js <group> [first case index]

import { writeSync } from 'node:fs';
import {
  type FixedDType,
  type GpuTensor,
  type HostTensor,
  type SplitEngine,
  type SplitErrorCode,
  createSplitEngine,
  equalParts,
  inferShapes,
  planSplit,
  resolveNode,
} from '../../src/index.js';
import { acquireDevice } from '../../src/gpu/device.js';
import { fromOrtTensor, toOrtTensor } from '../../src/ort.js';
import { randomTensor, rng } from '../helpers/cases.js';
import { roundTripProblem, splitProblem } from './controls.js';
import { downloadAll } from '../helpers/download.js';
import { type Fn, describeOutcome, outcomeOf } from './harness.js';
import { i64 } from './node-faults.js';
import { type Rng, bytesOfHost } from './tensors.js';
import { detached, honestProxy, inMemory, lyingLength } from './values.js';

interface Env {
  readonly e: SplitEngine;
  readonly e2: SplitEngine;
  readonly cpu: SplitEngine;
  readonly device: GPUDevice;
  readonly r: Rng;
}

interface ChildCase {
  readonly fn: Fn;
  readonly what: string;
  /** A code the call must fail with, or 'exact': it must resolve and `verify` must find nothing wrong. */
  readonly expect: SplitErrorCode | 'exact';
  readonly call: () => unknown;
  readonly verify?: (v: unknown) => Promise<string | undefined> | string | undefined;
  readonly timeoutMs?: number;
}

const bad = (fn: Fn, what: string, expect: SplitErrorCode, call: () => unknown): ChildCase => ({
  fn,
  what,
  expect,
  call,
});
/** A case's time limit unless it says otherwise: a refusal takes microseconds, a small split milliseconds. */
const CASE_MS = 3000;

// ---------------------------------------------------------------------------------------------
// Shared, growable, resizable and length-tracking memory: copied at the call and split exactly;
// detached memory refused (DATA_TYPE); memory changed after the call never reaches the outputs.

type Kind = 'shared' | 'growable' | 'resizable' | 'tracking';
const KINDS: readonly Kind[] = ['shared', 'growable', 'resizable', 'tracking'];
type Ctor = new (b: ArrayBufferLike, o: number, n?: number) => HostTensor['data'];

/** The tensor with its data copied into memory of the given kind. */
function moved(x: HostTensor, kind: Kind, C: Ctor, k: number): HostTensor {
  return { ...x, data: inMemory(kind, bytesOfHost(x), (b, o, n) => new C(b, o, n), k) } as HostTensor;
}

function memoryCases(env: Env): ChildCase[] {
  const { e, cpu, r } = env;
  const f32 = randomTensor('float32', [2, 6], r) as HostTensor<'float32'>;
  const u8 = randomTensor('uint8', [3, 5], r) as HostTensor<'uint8'>;
  const c64 = randomTensor('complex64', [2, 3], r) as HostTensor<'complex64'>;
  const i64x = randomTensor('int64', [4, 2], r) as HostTensor<'int64'>;
  const out: ChildCase[] = [];
  const exact = (fn: Fn, what: string, call: () => unknown, verify: ChildCase['verify']): ChildCase => ({
    fn,
    what,
    expect: 'exact',
    call,
    verify,
  });
  for (const kind of KINDS) {
    const F = moved(f32, kind, Float32Array as unknown as Ctor, 4);
    const U = moved(u8, kind, Uint8Array as unknown as Ctor, 1);
    const Cx = moved(c64, kind, Float32Array as unknown as Ctor, 4);
    const I = moved(i64x, kind, BigInt64Array as unknown as Ctor, 8);
    out.push(
      exact(
        'split',
        `${kind} memory: float32 host split (GPU gather)`,
        () => e.split(F, { axis: 1, sizes: [1, 5] }),
        (v) => splitProblem(v, f32, 1, [1, 5]),
      ),
      exact(
        'split',
        `${kind} memory: uint8 host split (bit-level gather)`,
        () => e.split(U, { axis: 1, sizes: [2, 3] }),
        (v) => splitProblem(v, u8, 1, [2, 3]),
      ),
      exact(
        'split',
        `${kind} memory: int64 host split (copies)`,
        () => e.split(I, { axis: 0, sizes: [1, 3] }),
        (v) => splitProblem(v, i64x, 0, [1, 3]),
      ),
      exact(
        'split',
        `${kind} memory: complex64 (CPU path of a GPU engine)`,
        () => e.split(Cx, { axis: 1, parts: 2 }),
        (v) => splitProblem(v, c64, 1, [2, 1]),
      ),
      exact(
        'split',
        `${kind} memory: CPU backend`,
        () => cpu.split(F, { axis: 1, parts: 4 }),
        (v) => splitProblem(v, f32, 1, [2, 2, 2, 0]),
      ),
      exact(
        'upload',
        `${kind} memory: upload then download`,
        () => e.upload(F as HostTensor<FixedDType>),
        async (gx) => {
          const back = await e.download(gx as GpuTensor);
          e.release(gx as GpuTensor);
          return roundTripProblem(back, f32);
        },
      ),
      exact(
        'run',
        `${kind} memory: Split-18 data input`,
        () => e.run({ op: 'Split', opset: 18, inputs: [F], attrs: { axis: 1, num_outputs: 3 } }),
        (v) => splitProblem(v, f32, 1, [2, 2, 2]),
      ),
      exact(
        'run',
        `${kind} memory: Split-13 'split' input`,
        () =>
          e.run({
            op: 'Split',
            opset: 13,
            inputs: [u8, moved(i64([4, 1]), kind, BigInt64Array as unknown as Ctor, 8)],
            attrs: { axis: 1 },
          }),
        (v) => splitProblem(v, u8, 1, [4, 1]),
      ),
      exact(
        'inferShapes',
        `${kind} memory: VariadicSplit axis and split_lengths`,
        () =>
          inferShapes({
            op: 'VariadicSplit',
            inputs: [
              f32,
              moved(i64([1], []), kind, BigInt64Array as unknown as Ctor, 8),
              moved(i64([-1, 2]), kind, BigInt64Array as unknown as Ctor, 8),
            ],
          }),
        (v) =>
          JSON.stringify((v as { shape: number[] }[]).map((s) => s.shape)) === '[[2,4],[2,2]]'
            ? undefined
            : `shapes ${JSON.stringify(v)}`,
      ),
    );
  }
  const sab = new SharedArrayBuffer(u8.data.byteLength);
  new Uint8Array(sab).set(u8.data);
  out.push(
    exact(
      'split',
      'a Node Buffer over a SharedArrayBuffer as uint8 data',
      () => e.split({ ...u8, data: Buffer.from(sab) }, { axis: 0, sizes: [2, 1] }),
      (v) => splitProblem(v, u8, 0, [2, 1]),
    ),
  );
  out.push(...afterCall(env, f32), ...detachedCases(env, f32));
  return out;
}

/** Memory written, shrunk or grown right after the call: the split is of the bytes at call time. */
function afterCall(env: Env, f32: HostTensor<'float32'>): ChildCase[] {
  const { e, cpu } = env;
  const cases: ChildCase[] = [];
  for (const [kind, change] of [
    ['shared', (b: ArrayBufferLike) => new Uint8Array(b).fill(0xee)],
    [
      'growable',
      (b: ArrayBufferLike) => {
        (b as unknown as { grow(n: number): void }).grow(b.byteLength + 16);
        new Uint8Array(b).fill(0xee);
      },
    ],
    ['resizable', (b: ArrayBufferLike) => (b as unknown as { resize(n: number): void }).resize(0)],
    ['tracking', (b: ArrayBufferLike) => (b as unknown as { resize(n: number): void }).resize(4)],
  ] as const) {
    for (const [engine, name] of [
      [e, 'GPU engine'],
      [cpu, 'CPU backend'],
    ] as const) {
      cases.push({
        fn: 'split',
        what: `${kind} memory changed right after the call (${name})`,
        expect: 'exact',
        call: () => {
          const x = moved(f32, kind, Float32Array as unknown as Ctor, 4);
          const p = engine.split(x, { axis: 1, sizes: [3, 3] });
          change((x.data as Float32Array).buffer);
          return p;
        },
        verify: (v) => splitProblem(v, f32, 1, [3, 3]),
      });
    }
  }
  return cases;
}

function detachedCases(env: Env, f32: HostTensor<'float32'>): ChildCase[] {
  const { e, cpu } = env;
  const gone = (): HostTensor<'float32'> => ({
    ...f32,
    data: detached((b) => new Float32Array(b), f32.data.byteLength),
  });
  const goneI64 = (): HostTensor<'int64'> => ({
    dtype: 'int64',
    shape: [2],
    data: detached((b) => new BigInt64Array(b), 16),
  });
  return [
    bad('split', 'detached memory: host split (GPU engine)', 'DATA_TYPE', () => e.split(gone(), { axis: 1, parts: 2 })),
    bad('split', 'detached memory: CPU backend', 'DATA_TYPE', () => cpu.split(gone(), { axis: 1, parts: 2 })),
    bad('upload', 'detached memory: upload', 'DATA_TYPE', () => e.upload(gone())),
    bad('run', 'detached memory: Split-18 data input', 'DATA_TYPE', () =>
      e.run({ op: 'Split', opset: 18, inputs: [gone()], attrs: { num_outputs: 2 } }),
    ),
    bad('run', "detached memory: Split-13 'split' input", 'DATA_TYPE', () =>
      e.run({ op: 'Split', opset: 13, inputs: [f32, goneI64()], attrs: { axis: 1 } }),
    ),
    bad('inferShapes', "detached memory: SplitToSequence 'split' input", 'DATA_TYPE', () =>
      inferShapes({ op: 'SplitToSequence', inputs: [f32, goneI64()], attrs: { axis: 1 } }),
    ),
  ];
}

// ---------------------------------------------------------------------------------------------
// Proxies and look-alikes of native GPU objects: refused before they reach Dawn.

/** What the native cases build on: a host tensor, a real buffer holding it, a GPU tensor over any buffer. */
function nativeFixtures(env: Env) {
  const host = randomTensor('float32', [2, 32], env.r) as HostTensor<'float32'>;
  const real = () => {
    const b = env.device.createBuffer({ size: 256, usage: 0x80 | 0x4 | 0x8 });
    env.device.queue.writeBuffer(b, 0, host.data);
    return b;
  };
  const gt = (buffer: unknown) =>
    ({ dtype: 'float32', shape: [2, 32], buffer, byteOffset: 0, byteLength: 256 }) as unknown as GpuTensor<'float32'>;
  return { host, real, gt };
}

function nativeCases(env: Env): ChildCase[] {
  const { e, device } = env;
  const { host, real, gt } = nativeFixtures(env);
  const forwarding = <T extends object>(x: T) => honestProxy(x);
  const plain = <T extends object>(x: T) => new Proxy(x, {});
  return [
    bad('download', 'a forwarding Proxy of a GPUBuffer', 'BAD_INPUT', () => e.download(gt(forwarding(real())))),
    bad('download', 'an empty-handler Proxy of a GPUBuffer', 'BAD_INPUT', () => e.download(gt(plain(real())))),
    bad('download', 'an object with GPUBuffer.prototype', 'BAD_INPUT', () =>
      e.download(gt(Object.create(GPUBuffer.prototype))),
    ),
    bad('split', 'an object with GPUBuffer.prototype', 'BAD_INPUT', () =>
      e.split(gt(Object.create(GPUBuffer.prototype)), { axis: 1, sizes: [1, 31] }),
    ),
    bad('split', 'a forwarding Proxy of a GPUBuffer (gather)', 'BAD_INPUT', () =>
      e.split(gt(forwarding(real())), { axis: 1, sizes: [1, 31] }),
    ),
    bad('split', 'a forwarding Proxy of a GPUBuffer (copies)', 'BAD_INPUT', () =>
      e.split(gt(forwarding(real())), { axis: 0, sizes: [1, 1] }),
    ),
    bad('split', 'a forwarding Proxy of a GPUBuffer (alias any)', 'BAD_INPUT', () =>
      e.split(gt(forwarding(real())), { axis: 0, sizes: [1, 1], alias: 'any' }),
    ),
    bad('encodeSplit', 'a forwarding Proxy of a GPUBuffer', 'BAD_INPUT', () =>
      e.encodeSplit(device.createCommandEncoder(), gt(forwarding(real())), { axis: 1, sizes: [1, 31] }),
    ),
    bad('run', 'a forwarding Proxy of a GPUBuffer as GPU data', 'BAD_INPUT', () =>
      e.run({ op: 'Split', opset: 18, inputs: [gt(forwarding(real()))], attrs: { axis: 1, num_outputs: 2 } }),
    ),
    bad('encodeSplit', 'a forwarding Proxy of a GPUCommandEncoder', 'BAD_INPUT', () =>
      e.encodeSplit(forwarding(device.createCommandEncoder()), gt(real()), { axis: 1, sizes: [1, 31] }),
    ),
    bad('encodeSplit', 'an object with GPUCommandEncoder.prototype', 'BAD_INPUT', () =>
      e.encodeSplit(Object.create(GPUCommandEncoder.prototype), gt(real()), { axis: 1, sizes: [1, 31] }),
    ),
    bad('createSplitEngine', 'a forwarding Proxy of a GPUDevice', 'BAD_OPTIONS', () =>
      createSplitEngine({ device: forwarding(device) }),
    ),
    bad('createSplitEngine', 'an empty-handler Proxy of a GPUDevice', 'BAD_OPTIONS', () =>
      createSplitEngine({ device: plain(device) }),
    ),
    bad('createSplitEngine', 'an object with GPUDevice.prototype', 'BAD_OPTIONS', () =>
      createSplitEngine({ device: Object.create(GPUDevice.prototype) }),
    ),
    {
      fn: 'split',
      what: 'after all of that, a valid GPU-resident split',
      expect: 'exact',
      call: async () => downloadAll(e, await e.split(gt(real()), { axis: 1, sizes: [1, 31] })),
      verify: (v) => splitProblem(v, host, 1, [1, 31]),
    },
  ];
}

/** The same look-alikes given to a prepared split (and to a destination, `into`, which split takes too). */
function preparedNativeCases(env: Env): ChildCase[] {
  const { e, device } = env;
  const { host, real, gt } = nativeFixtures(env);
  const into = (buffer: unknown) => [undefined, { dtype: 'float32', shape: [2, 31], buffer, byteOffset: 0 } as never];
  const forwarding = <T extends object>(x: T) => honestProxy(x);
  const options = { axis: 1, sizes: [1, 31] };
  const p = (o: object = options) => e.prepare(gt(real()), o as never);
  const encoder = () => device.createCommandEncoder();
  return [
    bad('split', 'into[1].buffer: a forwarding Proxy of a GPUBuffer', 'BAD_INPUT', () =>
      e.split(gt(real()), { ...options, into: into(forwarding(real())) }),
    ),
    bad('prepare', 'a forwarding Proxy of a GPUBuffer', 'BAD_INPUT', () => e.prepare(gt(forwarding(real())), options)),
    bad('prepare', 'into[1].buffer: a forwarding Proxy of a GPUBuffer', 'BAD_INPUT', () =>
      p({ ...options, into: into(forwarding(real())) }),
    ),
    bad('prepared.split', 'a forwarding Proxy of a GPUBuffer (gather)', 'BAD_INPUT', () =>
      p().split(gt(forwarding(real()))),
    ),
    bad('prepared.split', 'a forwarding Proxy of a GPUBuffer (copies)', 'BAD_INPUT', () =>
      p({ axis: 0, sizes: [1, 1] }).split(gt(forwarding(real()))),
    ),
    bad('prepared.split', 'an empty-handler Proxy of a GPUBuffer', 'BAD_INPUT', () =>
      p().split(gt(new Proxy(real(), {}))),
    ),
    bad('prepared.split', 'an object with GPUBuffer.prototype', 'BAD_INPUT', () =>
      p().split(gt(Object.create(GPUBuffer.prototype))),
    ),
    bad('prepared.split', 'into[1].buffer: a forwarding Proxy of a GPUBuffer', 'BAD_INPUT', () =>
      p().split(gt(real()), into(forwarding(real()))),
    ),
    bad('prepared.encode', 'a forwarding Proxy of a GPUBuffer', 'BAD_INPUT', () =>
      p().encode(encoder(), gt(forwarding(real()))),
    ),
    bad('prepared.encode', 'a forwarding Proxy of a GPUCommandEncoder', 'BAD_INPUT', () =>
      p().encode(forwarding(encoder()), gt(real())),
    ),
    bad('prepared.encode', 'an object with GPUCommandEncoder.prototype', 'BAD_INPUT', () =>
      p().encode(Object.create(GPUCommandEncoder.prototype), gt(real())),
    ),
    bad('prepared.encode', 'into[1].buffer: a forwarding Proxy of a GPUBuffer', 'BAD_INPUT', () =>
      p().encode(encoder(), gt(real()), into(forwarding(real()))),
    ),
    {
      fn: 'prepared.split',
      what: 'after all of that, a valid prepared split',
      expect: 'exact',
      call: async () => downloadAll(e, await p().split(gt(real()))),
      verify: (v) => splitProblem(v, host, 1, [1, 31]),
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// Absurd counts: refused (TOO_LARGE) before anything is allocated.

function countCases(env: Env): ChildCase[] {
  const { e } = env;
  const x6: HostTensor<'float32'> = { dtype: 'float32', shape: [6], data: Float32Array.from([1, 2, 3, 4, 5, 6]) };
  const empty = (shape: number[]): HostTensor<'float32'> => ({ dtype: 'float32', shape, data: new Float32Array(0) });
  const gx = () => e.upload(x6);
  const node = (n: Record<string, unknown>) => n as never;
  const big = (n: number) => new Array<number>(n);
  // toOrtTensor with an ORT-like namespace that hands back what it was given (ORT itself is not bundled here).
  const ORT_LIKE = {
    Tensor: {
      fromGpuBuffer: (b: GPUBuffer, o: { dataType: string; dims: readonly number[] }) => ({ gpuBuffer: b, ...o }),
    },
  };
  const ortTensor = () => ({
    dtype: 'float32',
    shape: [6],
    buffer: env.device.createBuffer({ size: 24, usage: 0x80 | 0x4 | 0x8 }),
    byteOffset: 0,
    byteLength: 24,
  });
  const out: ChildCase[] = [];
  for (const parts of [2 ** 31, 2 ** 40, 2 ** 53 - 1, 65537]) {
    out.push(bad('split', `parts ${parts} on a [6] host tensor`, 'TOO_LARGE', () => e.split(x6, { parts })));
  }
  out.push(
    bad('split', 'parts 2^31 on a [6] GPU tensor', 'TOO_LARGE', () => e.split(gx(), { parts: 2 ** 31 })),
    bad('encodeSplit', 'parts 2^31 on a [6] GPU tensor', 'TOO_LARGE', () =>
      e.encodeSplit(env.device.createCommandEncoder(), gx(), { parts: 2 ** 31 }),
    ),
    bad('split', 'sizes: a sparse array of length 2^31', 'TOO_LARGE', () => e.split(x6, { sizes: big(2 ** 31) })),
    bad('split', 'sizes: a Proxy saying length 2^53 - 1', 'TOO_LARGE', () =>
      e.split(x6, { sizes: lyingLength([6], 2 ** 53 - 1) }),
    ),
    bad('split', 'sizes: 65537 lengths', 'TOO_LARGE', () => e.split(x6, { sizes: [6, ...new Array(65536).fill(0)] })),
    bad('split', 'shape: a sparse array of length 2^32 - 1', 'TOO_LARGE', () =>
      e.split({ ...x6, shape: big(2 ** 32 - 1) }, { parts: 1 }),
    ),
    bad('split', 'shape: 2^26 x 2^27 (2^53 elements)', 'TOO_LARGE', () =>
      e.split(empty([2 ** 26, 2 ** 27]), { parts: 1 }),
    ),
    bad('split', 'shape: 2^25 x 2^27 with no data', 'DATA_LENGTH', () =>
      e.split(empty([2 ** 25, 2 ** 27]), { parts: 1 }),
    ),
    bad('split', 'a string tensor of 2^24 + 1 elements with no data', 'TOO_LARGE', () =>
      e.split({ dtype: 'string', shape: [2 ** 24 + 1], data: [] }, { parts: 1 }),
    ),
    bad('upload', 'shape [1e9] with one float', 'DATA_LENGTH', () =>
      e.upload({ dtype: 'float32', shape: [1e9], data: new Float32Array(1) }),
    ),
    bad('download', 'shape [2^40] claiming 2^42 bytes of a 256-byte buffer', 'DATA_LENGTH', () => {
      const b = env.device.createBuffer({ size: 256, usage: 0x4 | 0x8 });
      return e.download({ dtype: 'float32', shape: [2 ** 40], buffer: b, byteOffset: 0, byteLength: 2 ** 42 });
    }),
  );
  const nodes: [string, SplitErrorCode, Record<string, unknown>][] = [
    [
      'Split-18 num_outputs 2^40 on [6]',
      'TOO_LARGE',
      { op: 'Split', opset: 18, inputs: [x6], attrs: { num_outputs: 2 ** 40 } },
    ],
    [
      'Split-18 num_outputs 2^31 on [6]',
      'TOO_LARGE',
      { op: 'Split', opset: 18, inputs: [x6], attrs: { num_outputs: 2 ** 31 } },
    ],
    ['SplitToSequence of [1e8, 0] (no split)', 'TOO_LARGE', { op: 'SplitToSequence', inputs: [empty([1e8, 0])] }],
    [
      'SplitToSequence of [1e8, 0], scalar split 1',
      'TOO_LARGE',
      { op: 'SplitToSequence', inputs: [empty([1e8, 0]), i64([1], [])] },
    ],
    [
      'SplitToSequence-11 of [65537] (no split)',
      'TOO_LARGE',
      { op: 'SplitToSequence', opset: 11, inputs: [{ dtype: 'uint8', shape: [65537], data: new Uint8Array(65537) }] },
    ],
    ['Split-13 outputs 1e8 on [0]', 'TOO_LARGE', { op: 'Split', opset: 13, inputs: [empty([0])], outputs: 1e8 }],
    ['Split-2 outputs 1e8 on [0]', 'TOO_LARGE', { op: 'Split', opset: 2, inputs: [empty([0])], outputs: 1e8 }],
    [
      'Split-11 split attribute: a sparse array of length 2^31',
      'TOO_LARGE',
      { op: 'Split', opset: 11, inputs: [x6], attrs: { split: big(2 ** 31) } },
    ],
    [
      'Split-11 split attribute: a Proxy saying length 2^53 - 1',
      'TOO_LARGE',
      { op: 'Split', opset: 11, inputs: [x6], attrs: { split: lyingLength([6], 2 ** 53 - 1) } },
    ],
    [
      'Split-13 split input of 65537 values',
      'TOO_LARGE',
      { op: 'Split', opset: 13, inputs: [x6, i64(new Array(65537).fill(0))] },
    ],
    [
      'VariadicSplit split_lengths of 65537 values',
      'TOO_LARGE',
      { op: 'VariadicSplit', inputs: [x6, i64([0], []), i64(new Array(65537).fill(0))] },
    ],
    [
      'inputs: a sparse array of length 2^32 - 1',
      'TOO_LARGE',
      { op: 'Split', inputs: Object.assign(big(2 ** 32 - 1), { 0: x6 }) },
    ],
  ];
  for (const [what, code, n] of nodes) {
    out.push(
      bad('inferShapes', what, code, () => inferShapes(node(n))),
      bad('resolveNode', what, code, () => resolveNode(node(n))),
      bad('run', what, code, () => e.run(node(n))),
    );
  }
  out.push(
    bad('planSplit', 'sizes: a sparse array of length 2^31', 'TOO_LARGE', () =>
      planSplit('float32', [6], 0, big(2 ** 31)),
    ),
    bad('planSplit', 'shape: a sparse array of length 2^32 - 1', 'TOO_LARGE', () =>
      planSplit('float32', big(2 ** 32 - 1), 0, [1]),
    ),
    bad('planSplit', 'shape: a Proxy saying length 2^31', 'TOO_LARGE', () =>
      planSplit('float32', lyingLength([6], 2 ** 31), 0, [6]),
    ),
    bad('planSplit', 'sizes: a Proxy saying length 2^53 - 1', 'TOO_LARGE', () =>
      planSplit('float32', [6], 0, lyingLength([6], 2 ** 53 - 1)),
    ),
    bad('planSplit', 'sizes: 65537 lengths', 'TOO_LARGE', () =>
      planSplit('float32', [6], 0, [6, ...new Array(65536).fill(0)]),
    ),
    bad('toOrtTensor', 'shape: a sparse array of length 2^32 - 1', 'TOO_LARGE', () =>
      toOrtTensor(ORT_LIKE, { ...ortTensor(), shape: big(2 ** 32 - 1) } as never),
    ),
    bad('toOrtTensor', 'shape: a Proxy saying length 2^31', 'TOO_LARGE', () =>
      toOrtTensor(ORT_LIKE, { ...ortTensor(), shape: lyingLength([6], 2 ** 31) } as never),
    ),
    bad('fromOrtTensor', 'dims: a sparse array of length 2^32 - 1', 'TOO_LARGE', () =>
      fromOrtTensor({
        location: 'gpu-buffer',
        type: 'float32',
        dims: big(2 ** 32 - 1),
        gpuBuffer: env.device.createBuffer({ size: 24, usage: 0x80 | 0x4 | 0x8 }),
      }),
    ),
    bad('fromOrtTensor', 'dims: a Proxy saying length 2^31', 'TOO_LARGE', () =>
      fromOrtTensor({
        location: 'gpu-buffer',
        type: 'float32',
        dims: lyingLength([6], 2 ** 31),
        gpuBuffer: env.device.createBuffer({ size: 24, usage: 0x80 | 0x4 | 0x8 }),
      }),
    ),
    {
      fn: 'split',
      what: '65536 outputs (the cap itself) of a [6] tensor: valid',
      expect: 'exact',
      timeoutMs: 20_000,
      call: () => e.split(x6, { parts: 65536 }),
      verify: (v) => splitProblem(v, x6, 0, [1, 1, 1, 1, 1, 1, ...new Array(65530).fill(0)]),
    },
    // equalParts is exported: its arguments are checked like parts (last, since a regression may allocate 2^31
    // entries).
    bad('equalParts', 'parts 0', 'BAD_PARTS', () => equalParts(6, 0)),
    bad('equalParts', 'parts -1', 'BAD_PARTS', () => equalParts(6, -1)),
    bad('equalParts', 'parts 1.5', 'BAD_PARTS', () => equalParts(6, 1.5)),
    bad('equalParts', 'parts NaN', 'BAD_PARTS', () => equalParts(6, NaN)),
    bad('equalParts', 'dim -6', 'BAD_SHAPE', () => equalParts(-6, 2)),
    bad('equalParts', 'dim 2.5', 'BAD_SHAPE', () => equalParts(2.5, 2)),
    bad('equalParts', 'parts 65537', 'TOO_LARGE', () => equalParts(6, 65537)),
    bad('equalParts', 'parts 2^31', 'TOO_LARGE', () => equalParts(6, 2 ** 31)),
  );
  return out;
}

// ---------------------------------------------------------------------------------------------

const GROUPS: Record<string, (env: Env) => ChildCase[]> = {
  memory: memoryCases,
  native: (env) => [...nativeCases(env), ...preparedNativeCases(env)],
  counts: countCases,
  /** Crashes on purpose: proves the parent sees a crash as one. */
  canary: () => [
    {
      fn: 'split',
      what: 'the process kills itself with SIGSEGV',
      expect: 'exact',
      call: () => process.kill(process.pid, 'SIGSEGV'),
    },
  ],
};

const emit = (o: object) => writeSync(1, `${JSON.stringify(o)}\n`);

async function main(): Promise<void> {
  const [group, from = '0'] = process.argv.slice(2);
  const make = GROUPS[group ?? ''];
  if (!make) throw new Error(`unknown group ${group}; the groups are ${Object.keys(GROUPS).join(', ')}`);
  // Cleave leaves globalThis alone; the cases name GPUBuffer and friends as a browser does.
  Object.assign(globalThis, (await import('webgpu')).globals);
  const found = await acquireDevice();
  if ('reason' in found) throw new Error(`no WebGPU adapter: ${found.reason}`);
  const device = found.device;
  const env: Env = {
    device,
    e: await createSplitEngine({ device }),
    e2: await createSplitEngine({ device }),
    cpu: await createSplitEngine({ backend: 'cpu' }),
    r: rng(0xc41d + group!.length),
  };
  const cases = make(env);
  emit({ cases: cases.length });
  for (let i = Number(from); i < cases.length; i++) {
    const c = cases[i]!;
    emit({
      start: i,
      fn: c.fn,
      what: c.what,
      expected: c.expect === 'exact' ? 'resolves exactly' : c.expect,
      limitMs: c.timeoutMs ?? CASE_MS,
    });
    const o = await outcomeOf(c.call, c.timeoutMs ?? CASE_MS);
    let got = describeOutcome(o);
    let ok: boolean;
    if (c.expect === 'exact') {
      const problem = o.kind === 'resolved' ? await c.verify?.(o.value) : undefined;
      ok = o.kind === 'resolved' && problem === undefined;
      if (o.kind === 'resolved') got = problem ?? 'resolved exactly';
    } else {
      ok = o.kind === 'error' && o.code === c.expect;
    }
    emit({
      i,
      fn: c.fn,
      what: c.what,
      expected: c.expect === 'exact' ? 'resolves exactly' : c.expect,
      got,
      ok,
      message: o.kind === 'error' || o.kind === 'foreign' ? o.message.split('\n')[0]!.slice(0, 200) : '',
    });
  }
  emit({ done: cases.length });
  device.destroy();
}

main().then(
  () => process.exit(0),
  (e) => {
    emit({ fatal: String((e as Error)?.stack ?? e) });
    process.exit(2);
  },
);
