// The bad calls of each public function: a valid call with one fault at one argument position,
// and the code that fault must give. Also hostile-but-valid calls (getters that change after the
// first read, frozen and null-prototype objects, proxies that forward) that must split exactly.

import {
  type FixedDType,
  type GpuTensor,
  type HostTensor,
  type PreparedHostSplit,
  type PreparedSplit,
  type SplitError,
  type SplitErrorCode,
  createSplitEngine,
  inferShapes,
  isPacked as isPackedDType,
  planSplit,
  resolveNode,
} from '../../src/index.js';
import { fromOrtTensor, toOrtTensor } from '../../src/ort.js';
import { randomTensor } from '../helpers/cases.js';
import type { BadCall, Fn, PreparedFn, ValidCall } from './harness.js';
import { roundTripProblem, splitProblem } from './controls.js';
import { downloadAll } from '../helpers/download.js';
import { KINDS, type NodeBase, dtypesFor, nodeBase, nodeFault, nodeTwist } from './node-faults.js';
import { type Opts, optionFault, optionTwist, unknownKey, validOptions } from './option-faults.js';
import {
  BAD_DTYPES,
  type Base,
  type Ctx,
  SHAPE_FAULTS,
  GPU_DTYPES,
  HOST_DTYPES,
  type Mutation,
  type Rng,
  base,
  bytesOfHost,
  callerTensor,
  gpuFault,
  hostFault,
  hostTwist,
  pick,
} from './tensors.js';
import { TENSOR_USAGE, numel } from '../helpers/dtypes.js';
import { JUNK, changingGetter, honestProxy, revokedProxy, throwingGetter, throwingProxy } from './values.js';

/** The part of onnxruntime-web's namespace the ORT cases use. */
export interface OrtNamespace {
  readonly Tensor: { fromGpuBuffer(b: GPUBuffer, o: { dataType: string; dims: readonly number[] }): unknown };
}

export interface CaseCtx extends Ctx {
  readonly ort: OrtNamespace;
  /** Prepared splits (of a GPU and a host float32 [2, 4], parts 2) of an engine destroyed since. */
  readonly doomed: {
    readonly gpu: PreparedSplit<'float32'>;
    readonly host: PreparedHostSplit<'float32', Float32Array>;
  };
}

export type Gen = (ctx: CaseCtx, r: Rng) => BadCall;
export type Twist = (ctx: CaseCtx, r: Rng) => ValidCall;

export const bad = (
  fn: Fn,
  what: string,
  code: SplitErrorCode,
  call: () => unknown,
  extra: Partial<BadCall> = {},
): BadCall => ({ fn, what, code, call, ...extra });
const FIXED = HOST_DTYPES.filter((d) => d !== 'string') as FixedDType[];
const ORT_DTYPES: readonly FixedDType[] = ['float32', 'float16', 'int32', 'int64', 'uint32', 'uint8', 'bool'];

/** A fault of a GPU tensor for calls that submit nothing themselves (encodeSplit, toOrtTensor): no destroyed or foreign buffers. */
export function recordOnlyFault(ctx: Ctx, b: Base, r: Rng): Mutation {
  for (;;) {
    const f = gpuFault(ctx, b, r, { engine: true });
    if (!f.gpu) return f;
  }
}

/** A GPU tensor fault that keeps the base's shape (a node's attributes are made for that shape). */
function sameShapeFault(ctx: Ctx, b: Base, r: Rng, engine: boolean): Mutation {
  for (;;) {
    const f = gpuFault(ctx, b, r, { engine });
    if (!f.base) return f;
  }
}

export const engineOf = (ctx: Ctx, r: Rng) => (r() < 0.75 ? ctx.e : ctx.e2);

const split: Gen = (ctx, r) => {
  const where = r() < 0.55 ? 'host' : 'gpu';
  const b = base(r, where === 'host' ? HOST_DTYPES : GPU_DTYPES);
  const e = engineOf(ctx, r);
  const k = r();
  if (k < 0.45) {
    const f = where === 'host' ? hostFault(b, r) : gpuFault(ctx, b, r, { engine: true });
    const { options } = validOptions(f.base ?? b, r);
    return bad('split', `input (${where}): ${f.what}`, f.code, () => e.split(f.value as never, options as never), {
      gpu: f.gpu,
    });
  }
  const { options } = validOptions(b, r);
  const x = where === 'host' ? b.host : callerTensor(ctx, b);
  if (k < 0.97) {
    const f = optionFault(options, b, r, where);
    return bad('split', `options (${where} input): ${f.what}`, f.code, () => e.split(x as never, f.value as never), {
      check: f.check,
    });
  }
  return where === 'gpu'
    ? bad('split', 'a GPU tensor on a CPU engine', 'WRONG_BACKEND', () => ctx.cpu.split(x as never, options as never))
    : bad('split', 'a second options argument that is junk (ignored) with bad options', 'BAD_OPTIONS', () =>
        (e.split as (...a: unknown[]) => unknown)(x, null, { parts: 1 }),
      );
};

export const ENCODERS: readonly (readonly [string, (ctx: Ctx) => unknown])[] = [
  ...JUNK.map(([n, f]) => [n, () => f()] as const),
  ['an empty object', () => ({})],
  [
    'a fake encoder object',
    () => ({
      beginComputePass() {
        return { setPipeline() {}, setBindGroup() {}, dispatchWorkgroups() {}, end() {} };
      },
      copyBufferToBuffer() {},
      finish() {},
    }),
  ],
  ['the GPUDevice', (ctx) => ctx.device],
  ['the GPUQueue', (ctx) => ctx.device.queue],
  ['a compute pass encoder', (ctx) => ctx.device.createCommandEncoder().beginComputePass()],
  [
    'a GPUBuffer',
    (ctx) => {
      const b = ctx.device.createBuffer({ size: 16, usage: TENSOR_USAGE });
      ctx.made.push(b);
      return b;
    },
  ],
];

const encodeSplit: Gen = (ctx, r) => {
  const b = base(r, GPU_DTYPES);
  const { options } = validOptions(b, r);
  const e = engineOf(ctx, r);
  const k = r();
  const enc = ctx.device.createCommandEncoder();
  if (k < 0.3) {
    const [name, v] = pick(r, ENCODERS);
    const x = callerTensor(ctx, b);
    const value = v(ctx);
    return bad('encodeSplit', `encoder: ${name}`, 'BAD_INPUT', () =>
      e.encodeSplit(value as never, x as never, options as never),
    );
  }
  if (k < 0.62) {
    const f = recordOnlyFault(ctx, b, r);
    const o = f.base ? validOptions(f.base, r).options : options;
    return bad('encodeSplit', `input: ${f.what}`, f.code, () => e.encodeSplit(enc, f.value as never, o as never));
  }
  const x = callerTensor(ctx, b);
  if (k < 0.95) {
    const f = optionFault(options, b, r, 'gpu');
    return bad('encodeSplit', `options: ${f.what}`, f.code, () => e.encodeSplit(enc, x as never, f.value as never), {
      check: f.check,
    });
  }
  return k < 0.975
    ? bad('encodeSplit', 'a host tensor', 'BAD_INPUT', () => e.encodeSplit(enc, b.host as never, options as never))
    : bad('encodeSplit', 'a CPU engine', 'WRONG_BACKEND', () => ctx.cpu.encodeSplit(enc, x as never, options as never));
};

const upload: Gen = (ctx, r) => {
  const b = base(r, FIXED);
  const e = engineOf(ctx, r);
  const k = r();
  if (k < 0.9) {
    const f = hostFault(b, r);
    return bad('upload', `input: ${f.what}`, f.code, () => e.upload(f.value as never));
  }
  if (k < 0.94) {
    const x = callerTensor(ctx, b);
    return bad('upload', 'a GPU tensor', 'BAD_INPUT', () => e.upload(x as never));
  }
  if (k < 0.97)
    return bad('upload', 'a string tensor', 'WRONG_BACKEND', () =>
      e.upload({ dtype: 'string', shape: [2], data: ['a', 'b'] } as never),
    );
  return bad('upload', 'a CPU engine', 'WRONG_BACKEND', () => ctx.cpu.upload(b.host as never));
};

const download: Gen = (ctx, r) => {
  const b = base(r, GPU_DTYPES);
  const e = engineOf(ctx, r);
  const k = r();
  if (k < 0.9) {
    const f = gpuFault(ctx, b, r, { engine: true });
    return bad('download', `input: ${f.what}`, f.code, () => e.download(f.value as never), { gpu: f.gpu });
  }
  if (k < 0.95) return bad('download', 'a host tensor', 'BAD_INPUT', () => e.download(b.host as never));
  const x = callerTensor(ctx, b);
  return bad('download', 'a CPU engine', 'WRONG_BACKEND', () => ctx.cpu.download(x as never));
};

const release: Gen = (ctx, r) => {
  const b = base(r, GPU_DTYPES);
  const e = pick(r, [ctx.e, ctx.e, ctx.e2, ctx.cpu, ctx.dead]);
  const live = () => {
    const t = ctx.e.upload(b.host as HostTensor<FixedDType>);
    ctx.leased.push(t);
    return t;
  };
  const values: [string, () => unknown][] = [
    ...JUNK.filter(([n]) => n !== 'undefined'),
    ['an empty array', () => []],
    ['an empty object', () => ({})],
    ['a host tensor', () => b.host],
    ['a GPU tensor the caller made', () => callerTensor(ctx, b)],
    ['a spread copy of a live tensor', () => ({ ...live() })],
    [
      'a spread copy of a released tensor',
      () => {
        const t = ctx.e.upload(b.host as HostTensor<FixedDType>);
        ctx.e.release(t);
        return { ...t };
      },
    ],
    ['a Proxy of a live tensor', () => honestProxy(live())],
    ['an object whose prototype is a live tensor', () => Object.create(live())],
    ['a Proxy whose every trap throws', () => throwingProxy({})],
    ['a revoked Proxy', () => revokedProxy()],
    ['an array of live tensors', () => [live()]],
  ];
  const [name, v] = pick(r, values);
  const value = v();
  return bad('release', `tensor: ${name}`, 'BAD_INPUT', () => e.release(value as never));
};

/** Calls on a destroyed engine: RELEASED, whatever the arguments. */
const destroy: Gen = (ctx, r) => {
  const b = base(r, GPU_DTYPES);
  const { options } = validOptions(b, r);
  const junk = r() < 0.3;
  const x = junk ? null : b.host;
  const gx = junk ? null : callerTensor(ctx, b);
  const calls: [string, () => unknown][] = [
    ['split of a host tensor', () => ctx.dead.split(x as never, (junk ? null : options) as never)],
    ['split of a GPU tensor', () => ctx.dead.split(gx as never, options as never)],
    ['split of a string tensor', () => ctx.dead.split({ dtype: 'string', shape: [2], data: ['a', 'b'] }, { parts: 2 })],
    ['upload', () => ctx.dead.upload(x as never)],
    ['download', () => ctx.dead.download(gx as never)],
    ['run', () => ctx.dead.run(nodeBase('Split-18', b, b.host, r).node as never)],
    ['encodeSplit', () => ctx.dead.encodeSplit(ctx.device.createCommandEncoder(), gx as never, options as never)],
  ];
  const [name, call] = pick(r, calls);
  return bad('destroy', `after destroy: ${name}${junk ? ' (with bad arguments too)' : ''}`, 'RELEASED', call);
};

const createEngine: Gen = (ctx, r) => {
  const k = r();
  const mk = (what: string, code: SplitErrorCode, value: unknown, check?: BadCall['check']) =>
    bad('createSplitEngine', what, code, () => createSplitEngine(value as never), { check });
  if (k < 0.2) {
    const [name, v] = pick(
      r,
      JUNK.filter(([n]) => n !== 'undefined'),
    );
    return mk(`options: ${name}`, 'BAD_OPTIONS', v());
  }
  if (k < 0.25)
    return pick(r, [
      mk('options: an empty array', 'BAD_OPTIONS', []),
      mk('options: a Proxy whose every trap throws', 'BAD_INPUT', throwingProxy({})),
      mk('options: a revoked Proxy', 'BAD_INPUT', revokedProxy()),
    ]);
  if (k < 0.45) {
    const f = unknownKey(r() < 0.5 ? { backend: 'cpu' } : { device: ctx.device }, r, 'options');
    return mk(f.what, f.code, f.value, f.check);
  }
  if (k < 0.7) {
    const devices: [string, () => unknown][] = [
      ['an empty object', () => ({})],
      ['null', () => null],
      ['a number', () => 5],
      ['a string', () => 'gpu'],
      ['a fake device object', () => ({ createBuffer() {}, queue: {}, limits: {}, lost: new Promise(() => {}) })],
      [
        'a GPUBuffer',
        () => {
          const x = ctx.device.createBuffer({ size: 16, usage: TENSOR_USAGE });
          ctx.made.push(x);
          return x;
        },
      ],
      ['the GPUQueue', () => ctx.device.queue],
      ['a Symbol', () => Symbol('device')],
    ];
    const [name, v] = pick(r, devices);
    return mk(`device: ${name}`, 'BAD_OPTIONS', { device: v() });
  }
  if (k < 0.8) {
    const [name, v] = pick(r, [
      ["'gpu'", 'gpu'],
      ["'WEBGPU'", 'WEBGPU'],
      ['null', null],
      ['1', 1],
      ['a Symbol', Symbol('b')],
      ["'cpu ' (padded)", 'cpu '],
    ] as [string, unknown][]);
    return mk(`backend: ${name}`, 'BAD_OPTIONS', { backend: v });
  }
  if (k < 0.9) {
    const [name, v] = pick(r, [
      ["'fast'", 'fast'],
      ['null', null],
      ["'Gather'", 'Gather'],
      ['0', 0],
      ['a Symbol', Symbol('s')],
    ] as [string, unknown][]);
    return mk(`strategy: ${name}`, 'BAD_OPTIONS', { backend: 'cpu', strategy: v });
  }
  if (k < 0.95) return mk("a device with backend 'cpu'", 'BAD_OPTIONS', { device: ctx.device, backend: 'cpu' });
  return mk('a device getter that throws', 'BAD_INPUT', throwingGetter({ backend: 'cpu' }, 'device'));
};

/** A valid node over a host or GPU data input (GPU data: a caller buffer, or a Cleave upload). */
function someNode(ctx: Ctx, r: Rng, gpu: boolean): NodeBase {
  const kind = pick(r, KINDS);
  const b = base(r, gpu ? dtypesFor(kind).filter((d) => d !== 'string') : dtypesFor(kind));
  return nodeBase(kind, b, gpu ? callerTensor(ctx, b) : b.host, r);
}

const RUN_OPTIONS_JUNK = JUNK.filter(([n]) => n !== 'undefined');

const run: Gen = (ctx, r) => {
  const gpu = r() < 0.35;
  const n = someNode(ctx, r, gpu);
  const e = engineOf(ctx, r);
  const k = r();
  if (k < 0.72) {
    const f = nodeFault(n, r, () => (gpu ? sameShapeFault(ctx, n.b, r, true) : hostFault(n.b, r)));
    return bad('run', `node (${gpu ? 'GPU' : 'host'} data): ${f.what}`, f.code, () => e.run(f.value as never), {
      gpu: (f as Mutation).gpu,
      check: f.check,
    });
  }
  if (k < 0.95) {
    const faults: (() => {
      what: string;
      code: SplitErrorCode;
      value: unknown;
      check?: (e: SplitError) => string | undefined;
    })[] = [
      () => {
        const [name, v] = pick(r, RUN_OPTIONS_JUNK);
        return { what: `options: ${name}`, code: 'BAD_OPTIONS', value: v() };
      },
      () => ({ what: 'options: an array', code: 'BAD_OPTIONS', value: [] }),
      () => unknownKey({}, r, 'options'),
      () => ({ what: 'options: a Proxy whose every trap throws', code: 'BAD_INPUT', value: throwingProxy({}) }),
      () => ({ what: "options.layout: 'Separate'", code: 'BAD_OPTIONS', value: { layout: 'Separate' } }),
      () => ({ what: 'options.alias: null', code: 'BAD_OPTIONS', value: { alias: null } }),
      ...(gpu
        ? []
        : [
            () => ({
              what: 'options.layout: given for host data',
              code: 'BAD_OPTIONS' as SplitErrorCode,
              value: { layout: pick(r, ['shared', 'separate']) },
            }),
            () => ({
              what: 'options.alias: given for host data',
              code: 'BAD_OPTIONS' as SplitErrorCode,
              value: { alias: 'none' },
            }),
          ]),
    ];
    const f = pick(r, faults)();
    return bad(
      'run',
      `run options (${gpu ? 'GPU' : 'host'} data): ${f.what}`,
      f.code,
      () => e.run(n.node as never, f.value as never),
      { check: f.check },
    );
  }
  const g = someNode(ctx, r, true);
  return bad('run', 'GPU data on a CPU engine', 'WRONG_BACKEND', () => ctx.cpu.run(g.node as never));
};

function pureNode(fn: 'inferShapes' | 'resolveNode', call: (node: unknown) => unknown): Gen {
  return (ctx, r) => {
    const gpu = r() < 0.2;
    const n = someNode(ctx, r, gpu);
    const f = nodeFault(n, r, () => (gpu ? sameShapeFault(ctx, n.b, r, false) : hostFault(n.b, r)));
    return bad(fn, `node (${gpu ? 'GPU' : 'host'} data): ${f.what}`, f.code, () => call(f.value), { check: f.check });
  };
}

const planSplitGen: Gen = (_ctx, r) => {
  const b = base(r, HOST_DTYPES);
  const args: unknown[] = [b.dtype, [...b.shape], b.axis, [...b.sizes]];
  const k = r();
  let what: string;
  let code: SplitErrorCode;
  if (k < 0.2) {
    const [name, v] = pick(r, BAD_DTYPES);
    args[0] = v();
    [what, code] = [`dtype: ${name}`, 'BAD_DTYPE'];
  } else if (k < 0.5) {
    const f = shapeFault(b, r);
    args[1] = f.value;
    [what, code] = [f.what, f.code];
  } else if (k < 0.95) {
    const f = optionFault({ axis: b.axis, sizes: [...b.sizes] }, b, r, 'gpu');
    const o = f.value as Opts;
    if (
      /2\^31|2\^53|65537/.test(f.what) ||
      (!f.what.startsWith('options.axis') && !f.what.startsWith('options.sizes')) ||
      typeof o !== 'object' ||
      o === null ||
      Object.getOwnPropertyDescriptor(o, f.what.startsWith('options.axis') ? 'axis' : 'sizes')?.get
    ) {
      return planSplitGen(_ctx, r);
    }
    if (f.what.startsWith('options.axis')) args[2] = o.axis;
    else args[3] = o.sizes;
    [what, code] = [f.what.replace('options.', ''), f.code];
  } else {
    args[3] = [...b.sizes, 1];
    const [name, v] = pick(r, [
      ['a Symbol', Symbol('who')],
      [
        'an object whose toString throws',
        {
          toString() {
            throw new Error('who');
          },
        },
      ],
      ['null subjects', null],
      ['subjects of numbers', { axis: 1, sizes: 2 }],
    ] as [string, unknown][]);
    if (name.includes('subjects')) args.push('planSplit', v);
    else args.push(v);
    [what, code] = [`who/subjects: ${name} (with sizes summing one too many)`, 'SIZE_SUM'];
  }
  return bad('planSplit', what, code, () => (planSplit as (...a: unknown[]) => unknown)(...args));
};

/** A fault of a shape, as planSplit and fromOrtTensor take one (a bare array). */
function shapeFault(b: Base, r: Rng): { what: string; code: SplitErrorCode; value: unknown } {
  for (;;) {
    const f = pick(r, SHAPE_FAULTS)(b, r, () => ({ dtype: b.dtype, shape: [...b.shape] }));
    if (!f || f.absurd) continue; // absurd lengths for planSplit and fromOrtTensor: in child.ts (they may allocate first)
    const d = Object.getOwnPropertyDescriptor(f.value as object, 'shape');
    if (!d || d.get) continue; // getter faults are about a tensor's field, not a bare shape
    return { what: f.what, code: f.code, value: d.value };
  }
}

const ORT_LOCATIONS: readonly (readonly [string, unknown])[] = [
  ["'cpu'", 'cpu'],
  ["'cpu-pinned'", 'cpu-pinned'],
  ["'texture'", 'texture'],
  ["'ml-tensor'", 'ml-tensor'],
  ['null', null],
  ['undefined', undefined],
  ["'GPU-BUFFER'", 'GPU-BUFFER'],
];

function ortLike(ctx: Ctx, b: Base): Record<string, unknown> {
  const t = callerTensor(ctx, b);
  return { location: 'gpu-buffer', type: b.dtype, dims: [...b.shape], gpuBuffer: t.buffer };
}

const fromOrt: Gen = (ctx, r) => {
  const b = base(r, ORT_DTYPES);
  const t = ortLike(ctx, b);
  const mk = (what: string, code: SplitErrorCode, value: unknown) =>
    bad('fromOrtTensor', what, code, () => fromOrtTensor(value as never));
  const k = r();
  if (k < 0.12) {
    const [name, v] = pick(r, JUNK);
    return mk(`tensor: ${name}`, 'BAD_INPUT', v());
  }
  if (k < 0.18)
    return pick(r, [
      mk('tensor: a Proxy whose every trap throws', 'BAD_INPUT', throwingProxy(t)),
      mk('tensor: a revoked Proxy', 'BAD_INPUT', revokedProxy()),
    ]);
  if (k < 0.3) {
    const [name, v] = pick(r, ORT_LOCATIONS);
    return mk(`location: ${name}`, 'BAD_INPUT', { ...t, location: v });
  }
  if (k < 0.42) {
    const [name, v] = pick(r, [
      ["'float'", 'float'],
      ["'string'", 'string'],
      ['null', null],
      ['a Symbol', Symbol('t')],
      ["'Float32'", 'Float32'],
      ['undefined', undefined],
    ] as [string, unknown][]);
    return mk(`type: ${name}`, 'BAD_DTYPE', { ...t, type: v });
  }
  if (k < 0.7) {
    const f = shapeFault(b, r);
    return mk(`dims: ${f.what.replace('shape: ', '')}`, f.code, { ...t, dims: f.value });
  }
  if (k < 0.88) {
    const [name, v] = pick(r, [
      ...JUNK,
      ['an empty object', () => ({})],
      ['a fake buffer', () => ({ size: 1 << 20, usage: TENSOR_USAGE, mapAsync: async () => {} })],
      ['a Proxy of a real buffer', () => honestProxy(t.gpuBuffer as object)],
      ['an object with GPUBuffer.prototype', () => Object.create(GPUBuffer.prototype)],
    ] as [string, () => unknown][]);
    return mk(`gpuBuffer: ${name}`, 'BAD_INPUT', { ...t, gpuBuffer: v() });
  }
  if (k < 0.94)
    return mk('dims: more bytes than the buffer holds', 'DATA_LENGTH', { ...t, dims: [numel(b.shape) * 64 + 64] });
  const key = pick(r, ['location', 'type', 'dims', 'gpuBuffer']);
  return mk(`${key}: a getter that throws`, 'BAD_INPUT', throwingGetter({ ...t }, key));
};

const ORT_LIKE = (called: unknown[]): OrtNamespace => ({
  Tensor: {
    fromGpuBuffer: (b, o) => {
      called.push(b);
      return { location: 'gpu-buffer', gpuBuffer: b, type: o.dataType, dims: o.dims };
    },
  },
});

const toOrt: Gen = (ctx, r) => {
  const b = base(r, ORT_DTYPES);
  const ort = r() < 0.5 ? ctx.ort : ORT_LIKE([]);
  const mk = (what: string, code: SplitErrorCode, o: unknown, t: unknown) =>
    bad('toOrtTensor', what, code, () => toOrtTensor(o as never, t as never));
  const k = r();
  const t = callerTensor(ctx, b);
  if (k < 0.2) {
    const orts: [string, () => unknown][] = [
      ...JUNK,
      ['an empty object', () => ({})],
      ['Tensor: null', () => ({ Tensor: null })],
      ['Tensor: {}', () => ({ Tensor: {} })],
      ['fromGpuBuffer: a number', () => ({ Tensor: { fromGpuBuffer: 5 } })],
      ['a Proxy whose every trap throws', () => throwingProxy({})],
    ];
    const [name, v] = pick(r, orts);
    return mk(`ort: ${name}`, 'BAD_INPUT', v(), t);
  }
  if (k < 0.8) {
    const f = recordOnlyFault(ctx, b, r);
    // Usage and mapping are ORT's business; a 'string' dtype is refused as WRONG_BACKEND or BAD_DTYPE alike;
    // absurd shape lengths run in child.ts (ORT may allocate for them).
    if ((f.engineOnly && f.code !== 'RELEASED') || f.code === 'WRONG_BACKEND' || f.absurd) return toOrt(ctx, r);
    return mk(`tensor: ${f.what}`, f.code, ort, f.value);
  }
  if (k < 0.87) return mk('tensor: a host tensor', 'BAD_INPUT', ort, b.host);
  if (k < 0.94) {
    const big = ctx.device.createBuffer({
      size: 256 + Math.max(4, Math.ceil((numel(b.shape) * 8) / 4) * 4),
      usage: TENSOR_USAGE,
    });
    ctx.made.push(big);
    const bytes = t.byteLength as number;
    return mk('tensor: byteOffset 256 (valid, but ORT takes whole buffers)', 'BAD_INPUT', ort, {
      ...t,
      buffer: big,
      byteOffset: 256,
      byteLength: bytes,
    });
  }
  const other = pick(r, ['float64', 'int8', 'uint16', 'int4', 'complex64', 'bfloat16'] as const);
  const ob: Base = { ...b, dtype: other, host: randomTensor(other, b.shape, r) };
  return mk(
    `tensor: dtype ${other}, which ORT's WebGPU EP does not keep on the GPU`,
    'BAD_DTYPE',
    ort,
    callerTensor(ctx, ob),
  );
};

/** The bad calls of every function but a prepared split's (prepared-calls.ts has those). */
export const BAD: Readonly<Record<Exclude<Fn, PreparedFn>, Gen>> = {
  createSplitEngine: createEngine,
  split,
  run,
  encodeSplit,
  upload,
  download,
  release,
  destroy,
  inferShapes: pureNode('inferShapes', (n) => inferShapes(n as never)),
  resolveNode: pureNode('resolveNode', (n) => resolveNode(n as never)),
  planSplit: planSplitGen,
  fromOrtTensor: fromOrt,
  toOrtTensor: toOrt,
  equalParts: () => {
    throw new Error('equalParts runs in the child tier only');
  },
};

// ---------------------------------------------------------------------------------------------
// Hostile but valid calls.

const hostSplitTwist: Twist = (ctx, r) => {
  const b = base(r, HOST_DTYPES);
  const { options, sizes } = validOptions(b, r);
  const tw = r() < 0.6 ? hostTwist(b, r) : undefined;
  const ot = tw ? { what: '', value: options } : optionTwist(options, r);
  return {
    fn: 'split',
    what: tw ? `input: ${tw.what}` : `options: ${ot.what}`,
    call: () => ctx.e.split((tw ? tw.value : b.host) as never, ot.value as never),
    verify: (v) => splitProblem(v, b.host, b.axis, sizes),
  };
};

const gpuSplitTwist: Twist = (ctx, r) => {
  const b = base(r, GPU_DTYPES);
  const { options, sizes } = validOptions(b, r);
  const gx = ctx.e.upload(b.host as HostTensor<FixedDType>);
  ctx.leased.push(gx);
  const forms: [string, () => unknown][] = [
    ['a spread copy of a live tensor', () => ({ ...gx })],
    ['a frozen copy of a live tensor', () => Object.freeze({ ...gx })],
    ['a Proxy of a live tensor', () => honestProxy(gx)],
    ['a byteOffset getter that turns bad after the first read', () => changingGetter({ ...gx }, 'byteOffset', [0, -1])],
    [
      'a buffer getter that turns bad after the first read',
      () => changingGetter({ ...gx }, 'buffer', [gx.buffer, null]),
    ],
  ];
  const unaligned = () => {
    // Element-aligned, but not at a multiple of 4 (1- and 2-byte types) or of the 256-byte storage alignment.
    const bytes = bytesOfHost(b.host);
    const element = isPackedDType(b.dtype) ? 1 : bytes.byteLength / numel(b.shape);
    const k = element * pick(r, [1, 2, 3, 5, 65]);
    const padded = new Uint8Array(Math.ceil((k + bytes.byteLength) / 4) * 4 + 4);
    padded.set(bytes, k);
    const buffer = ctx.device.createBuffer({ size: padded.byteLength, usage: TENSOR_USAGE });
    ctx.device.queue.writeBuffer(buffer, 0, padded);
    ctx.made.push(buffer);
    return { dtype: b.dtype, shape: [...b.shape], buffer, byteOffset: k, byteLength: bytes.byteLength };
  };
  forms.push(['a caller buffer holding the tensor at an unaligned byteOffset', unaligned]);
  const [what, v] = pick(r, forms);
  const x = v();
  return {
    fn: 'split',
    what: `GPU input: ${what}`,
    call: () => ctx.e.split(x as never, options as never),
    verify: async (outs) => {
      if (!Array.isArray(outs)) return 'not an array';
      const problem = splitProblem(await downloadAll(ctx.e, outs as GpuTensor[]), b.host, b.axis, sizes);
      for (const t of outs as GpuTensor[]) ctx.e.release(t);
      return problem;
    },
  };
};

const runTwist: Twist = (ctx, r) => {
  const n = someNode(ctx, r, false);
  const t = nodeTwist(n, r);
  return {
    fn: 'run',
    what: `node: ${t.what}`,
    call: () => ctx.e.run(t.value as never),
    verify: (v) => splitProblem(v, n.b.host, n.axis, n.sizes, n.shapes),
  };
};

const inferTwist: Twist = (ctx, r) => {
  const n = someNode(ctx, r, false);
  const t = nodeTwist(n, r);
  return {
    fn: 'inferShapes',
    what: `node: ${t.what}`,
    call: () => inferShapes(t.value as never),
    verify: (v) => {
      const got = JSON.stringify((v as { shape: number[] }[]).map((s) => s.shape));
      return got === JSON.stringify(n.shapes) ? undefined : `shapes ${got}, want ${JSON.stringify(n.shapes)}`;
    },
  };
};

const uploadTwist: Twist = (ctx, r) => {
  const b = base(r, FIXED);
  const tw = hostTwist(b, r);
  return {
    fn: 'upload',
    what: `input: ${tw.what}`,
    call: () => ctx.e.upload(tw.value as never),
    verify: async (gx) => {
      const back = await ctx.e.download(gx as GpuTensor);
      ctx.e.release(gx as GpuTensor);
      return roundTripProblem(back, b.host);
    },
  };
};

const fromOrtTwist: Twist = (ctx, r) => {
  const b = base(r, ORT_DTYPES);
  const t = ortLike(ctx, b);
  const forms: [string, () => unknown][] = [
    [
      'a real ort.Tensor',
      () => ctx.ort.Tensor.fromGpuBuffer(t.gpuBuffer as GPUBuffer, { dataType: b.dtype, dims: b.shape }),
    ],
    [
      'a location getter that turns bad after the first read',
      () => changingGetter({ ...t }, 'location', ['gpu-buffer', 'cpu']),
    ],
    ['dims getter that turns bad after the first read', () => changingGetter({ ...t }, 'dims', [b.shape, [-1]])],
    ['a frozen object', () => Object.freeze({ ...t })],
  ];
  const [what, v] = pick(r, forms);
  const x = v();
  return {
    fn: 'fromOrtTensor',
    what,
    call: () => fromOrtTensor(x as never),
    verify: async (g) => {
      return roundTripProblem(await ctx.e.download(g as GpuTensor), b.host);
    },
  };
};

export const TWISTS: Partial<Record<Fn, Twist[]>> = {
  split: [hostSplitTwist, hostSplitTwist, gpuSplitTwist],
  run: [runTwist],
  inferShapes: [inferTwist],
  resolveNode: [inferTwist],
  upload: [uploadTwist],
  fromOrtTensor: [fromOrtTwist],
};
