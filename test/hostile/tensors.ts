// Valid base tensors, and one-fault mutations of them: each mutation breaks exactly one thing of a
// valid tensor (the object, its dtype, shape, data, buffer, offsets or lease), so the code it must
// fail with follows from the contract (docs of src/errors.ts) and nothing else. The contexts hold
// the devices and engines the GPU cases need. Lengths and array classes come from the tests' own
// dtype table (test/helpers/dtypes.ts), never from src's.

import {
  type DType,
  type FixedDType,
  type GpuTensor,
  type HostTensor,
  type SplitEngine,
  type SplitErrorCode,
} from '../../src/index.js';
import { int, randomSizes, randomTensor } from '../helpers/cases.js';
import { REF_TYPES, TENSOR_USAGE, align4, numel, refByteLength, refHostLength } from '../helpers/dtypes.js';
import { isPackedType } from '../helpers/packed.js';
import { bitsOf } from '../helpers/reference.js';
import {
  JUNK,
  changingGetter,
  detached,
  honestProxy,
  lyingLength,
  nullProto,
  revokedProxy,
  throwingGet,
  throwingGetter,
  throwingProxy,
} from './values.js';

export type Rng = () => number;
export const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

/** What the GPU cases need: the fixture's device, a second device, engines on the first, a destroyed one and a CPU one. */
export interface Ctx {
  readonly device: GPUDevice;
  readonly foreign: GPUDevice;
  readonly e: SplitEngine;
  readonly e2: SplitEngine;
  readonly dead: SplitEngine;
  readonly cpu: SplitEngine;
  /** Buffers a case made; the runner destroys them after the case. */
  readonly made: GPUBuffer[];
  /** Cleave tensors a case made and left live; the runner releases them after the case. */
  readonly leased: GpuTensor[];
}

/** A fault: the hostile value, the code it must fail with, and whether failing takes GPU work (GPU_ERROR). */
export interface Mutation {
  readonly what: string;
  readonly code: SplitErrorCode;
  readonly value: unknown;
  readonly gpu?: boolean;
  /** Needs an engine to be caught (a lease, a destroyed or foreign buffer): pure functions accept it. */
  readonly engineOnly?: boolean;
  /** The tensor the value claims to be when that differs from the base (a reshaped copy): options are made for it. */
  readonly base?: Base;
  /** An absurd length (2^31 entries): functions that may allocate for it before checking run it in a child process. */
  readonly absurd?: boolean;
}

export interface Base {
  readonly dtype: DType;
  readonly shape: number[];
  readonly axis: number;
  readonly sizes: number[];
  /** The valid tensor (host); never mutated. */
  readonly host: HostTensor;
}

export const HOST_DTYPES: readonly DType[] = [
  'float32',
  'uint8',
  'int64',
  'float16',
  'bool',
  'int4',
  'uint1',
  'complex64',
  'string',
  'int32',
  'float64',
  'bfloat16',
];
export const GPU_DTYPES: readonly FixedDType[] = [
  'float32',
  'uint8',
  'int64',
  'float16',
  'bool',
  'int4',
  'uint3',
  'int32',
  'float64',
  'uint16',
  'complex64',
];

/** A valid tensor of rank 1 to 3 (each dimension 1 to 5) with an axis and split lengths (zeros allowed). */
export function base(r: Rng, dtypes: readonly DType[] = HOST_DTYPES): Base {
  const dtype = pick(r, dtypes);
  const shape = Array.from({ length: int(r, 1, 3) }, () => int(r, 1, 5));
  const axis = int(r, 0, shape.length - 1);
  const sizes = randomSizes(shape[axis]!, int(r, 1, 4), r);
  return { dtype, shape, axis, sizes, host: randomTensor(dtype, shape, r) };
}

export const hostCopy = (b: Base): Record<PropertyKey, unknown> => ({
  dtype: b.dtype,
  shape: [...b.shape],
  data: b.host.data,
});

/** The bytes of a fixed-width host tensor. */
export function bytesOfHost(t: HostTensor): Uint8Array {
  return bitsOf(t) as Uint8Array;
}

/** The base's bytes in a buffer the caller owns (on `device`), as a plain GPU tensor object. */
export function callerTensor(
  ctx: Ctx,
  b: Base,
  device = ctx.device,
  usage = TENSOR_USAGE,
): Record<PropertyKey, unknown> {
  const bytes = bytesOfHost(b.host);
  const buffer = device.createBuffer({ size: align4(bytes.byteLength), usage });
  ctx.made.push(buffer);
  if (usage & 0x8) {
    const padded = new Uint8Array(align4(bytes.byteLength));
    padded.set(bytes);
    device.queue.writeBuffer(buffer, 0, padded);
  }
  return { dtype: b.dtype, shape: [...b.shape], buffer, byteOffset: 0, byteLength: bytes.byteLength };
}

// ---------------------------------------------------------------------------------------------
// The tensor object itself, its dtype and its shape: the same faults for host and GPU tensors.

export type Gen = (b: Base, r: Rng, make: () => Record<PropertyKey, unknown>) => Mutation | undefined;

const m = (what: string, code: SplitErrorCode, value: unknown, extra: Partial<Mutation> = {}): Mutation => ({
  what,
  code,
  value,
  ...extra,
});
const set = (t: Record<PropertyKey, unknown>, k: PropertyKey, v: unknown) => {
  t[k] = v;
  return t;
};

export const BAD_DTYPES: readonly (readonly [string, () => unknown])[] = [
  ['an unknown name', () => 'float'],
  ['a capitalised name', () => 'Float32'],
  ['an upper-case name', () => 'FLOAT32'],
  ['a padded name', () => ' float32'],
  ['a name with NUL', () => 'float32\u0000'],
  ["'toString'", () => 'toString'],
  ["'__proto__'", () => '__proto__'],
  ["'constructor'", () => 'constructor'],
  ['an empty string', () => ''],
  ['a number', () => 1],
  ['null', () => null],
  ['a Symbol', () => Symbol('float32')],
  ['a String object', () => new String('float32')],
  ['an object with toString', () => ({ toString: () => 'float32' })],
  ['a null-prototype object', () => Object.create(null)],
  ['an array', () => ['float32']],
];

const BAD_DIMS: readonly (readonly [string, () => unknown])[] = [
  ['-1', () => -1],
  ['1.5', () => 1.5],
  ['NaN', () => NaN],
  ['Infinity', () => Infinity],
  ['-Infinity', () => -Infinity],
  ["a string '3'", () => '3'],
  ['a bigint', () => 3n],
  ['null', () => null],
  ['undefined', () => undefined],
  ['a Symbol', () => Symbol('d')],
  ['an object', () => ({})],
  ['a null-prototype object', () => Object.create(null)],
  ['an array [3]', () => [3]],
  ['true', () => true],
  ['2^53', () => 2 ** 53],
  ['Number.MAX_VALUE', () => Number.MAX_VALUE],
  ['a Number object', () => new Number(3)],
];

const BAD_SHAPES: readonly (readonly [string, () => unknown])[] = [
  ['null', () => null],
  ['undefined', () => undefined],
  ['a number', () => 6],
  ["a string '6'", () => '6'],
  ['an array-like object', () => ({ length: 1, 0: 6 })],
  ['an Int32Array', () => Int32Array.of(6)],
  ['a Set', () => new Set([6])],
  ['a Symbol', () => Symbol('shape')],
  ['a null-prototype object', () => Object.create(null)],
];

const objectFaults: Gen[] = [
  (_b, r) => {
    const [name, v] = pick(r, JUNK);
    return m(`tensor: ${name}`, 'BAD_INPUT', v());
  },
  () => m('tensor: an empty array', 'BAD_INPUT', []),
  (_b, _r, make) => m('tensor: an array holding the tensor', 'BAD_INPUT', [make()]),
  () => m('tensor: an empty object', 'BAD_INPUT', {}),
  () => m('tensor: an empty null-prototype object', 'BAD_INPUT', Object.create(null)),
  (_b, _r, make) => m('tensor: a Proxy whose every trap throws', 'BAD_INPUT', throwingProxy(make())),
  () => m('tensor: a revoked Proxy', 'BAD_INPUT', revokedProxy()),
];

const dtypeFaults: Gen[] = [
  (_b, r, make) => {
    const [name, v] = pick(r, BAD_DTYPES);
    return m(`dtype: ${name}`, 'BAD_DTYPE', set(make(), 'dtype', v()));
  },
  (_b, _r, make) => {
    const t = make();
    delete t.dtype;
    return m('dtype: missing', 'BAD_DTYPE', t);
  },
  (_b, _r, make) => m('dtype: a getter that throws', 'BAD_INPUT', throwingGetter(make(), 'dtype')),
  (b, _r, make) =>
    m('dtype: a getter whose first read is bad', 'BAD_DTYPE', changingGetter(make(), 'dtype', ['float', b.dtype])),
  (_b, _r, make) =>
    m(
      "tensor: a Proxy whose get throws for 'dtype'",
      'BAD_INPUT',
      throwingGet(make(), ['shape', 'data', 'buffer', 'byteOffset', 'byteLength']),
    ),
];

export const SHAPE_FAULTS: readonly Gen[] = [
  (_b, r, make) => {
    const [name, v] = pick(r, BAD_SHAPES);
    return m(`shape: ${name}`, 'BAD_SHAPE', set(make(), 'shape', v()));
  },
  (b, r, make) => {
    if (b.shape.length === 0) return undefined;
    const [name, v] = pick(r, BAD_DIMS);
    const shape: unknown[] = [...b.shape];
    shape[int(r, 0, shape.length - 1)] = v();
    return m(`shape: a dimension that is ${name}`, 'BAD_SHAPE', set(make(), 'shape', shape));
  },
  (b, r, make) => {
    if (b.shape.length === 0) return undefined;
    const shape: unknown[] = [...b.shape];
    delete shape[int(r, 0, shape.length - 1)];
    return m('shape: a sparse array (a hole)', 'BAD_SHAPE', set(make(), 'shape', shape));
  },
  (_b, _r, make) => m('shape: 65 dimensions of 1', 'TOO_LARGE', set(make(), 'shape', new Array(65).fill(1))),
  (_b, _r, make) =>
    m('shape: a sparse array of length 2^32 - 1', 'TOO_LARGE', set(make(), 'shape', new Array(2 ** 32 - 1)), {
      absurd: true,
    }),
  (b, _r, make) =>
    m('shape: a Proxy saying length 2^31', 'TOO_LARGE', set(make(), 'shape', lyingLength(b.shape, 2 ** 31)), {
      absurd: true,
    }),
  (b, _r, make) =>
    m(
      'shape: a Proxy saying one more dimension than it has',
      'BAD_SHAPE',
      set(make(), 'shape', lyingLength(b.shape, b.shape.length + 1)),
    ),
  (_b, _r, make) => m('shape: more elements than 2^53', 'TOO_LARGE', set(make(), 'shape', [2 ** 40, 2 ** 20])),
  (b, _r, make) => m('shape: a Proxy whose get throws', 'BAD_INPUT', set(make(), 'shape', throwingGet([...b.shape]))),
  (_b, _r, make) => m('shape: a revoked Proxy', 'BAD_INPUT', set(make(), 'shape', revokedProxy())),
  (_b, _r, make) => m('shape: a getter that throws', 'BAD_INPUT', throwingGetter(make(), 'shape')),
  (b, _r, make) =>
    m('shape: a getter whose first read is bad', 'BAD_SHAPE', changingGetter(make(), 'shape', [[-1], b.shape])),
];

/** Faults common to host and GPU tensors: the object, the dtype, the shape. */
export const COMMON_FAULTS: readonly Gen[] = [...objectFaults, ...dtypeFaults, ...SHAPE_FAULTS];

// ---------------------------------------------------------------------------------------------
// Host data.

/** The host array class of a dtype, from the tests' own table (test/helpers/dtypes.ts), not src's. */
const arrayOf = (d: DType): string => REF_TYPES[d].array;

const CTORS: Record<string, new (n: number) => ArrayLike<unknown>> = {
  Float32Array,
  Float64Array,
  Uint16Array,
  Int8Array,
  Uint8Array,
  Int16Array,
  Int32Array,
  Uint32Array,
  BigInt64Array,
  BigUint64Array,
  Uint8ClampedArray,
};

function ctorOf(d: DType): new (b: ArrayBuffer) => ArrayLike<unknown> {
  return CTORS[arrayOf(d)] as unknown as new (b: ArrayBuffer) => ArrayLike<unknown>;
}

function entryBytes(d: DType): number {
  return (CTORS[arrayOf(d)] as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;
}

const dataFaults: Gen[] = [
  (b, r, make) => {
    const want = refHostLength(b.dtype, numel(b.shape));
    const names = Object.keys(CTORS).filter((n) => n !== arrayOf(b.dtype));
    const name = pick(r, names);
    return m(`data: a ${name} (wrong class)`, 'DATA_TYPE', set(make(), 'data', new CTORS[name]!(want)));
  },
  (b, r, make) => {
    if (b.dtype === 'string') return undefined;
    const want = refHostLength(b.dtype, numel(b.shape));
    const others: [string, () => unknown][] = [
      ['a plain array of numbers', () => new Array(want).fill(0)],
      ['a DataView', () => new DataView(new ArrayBuffer(want * 8))],
      ['an ArrayBuffer', () => new ArrayBuffer(want * 8)],
      ['an array-like object', () => ({ length: want })],
      [
        "an object claiming Symbol.toStringTag '" + arrayOf(b.dtype) + "'",
        () => ({ length: want, [Symbol.toStringTag]: arrayOf(b.dtype) }),
      ],
      ['a Proxy of the right typed array', () => honestProxy(b.host.data as object)],
      ['a Node Buffer', () => Buffer.alloc(want)],
      ...JUNK.map(([n, f]) => [n, f] as [string, () => unknown]),
    ];
    const [name, v] = pick(
      r,
      others.filter(([n]) => !(n === 'a Node Buffer' && arrayOf(b.dtype) === 'Uint8Array')),
    );
    return m(`data: ${name}`, 'DATA_TYPE', set(make(), 'data', v()));
  },
  (b, r, make) => {
    if (b.dtype === 'string') return undefined;
    const want = refHostLength(b.dtype, numel(b.shape));
    const n = pick(r, [want + 1, 2 * want + 1, ...(want > 0 ? [want - 1, 0] : [])]);
    return m(
      'data: the right class, the wrong length',
      'DATA_LENGTH',
      set(make(), 'data', new CTORS[arrayOf(b.dtype)]!(n)),
    );
  },
  (b, _r, make) => {
    if (b.dtype === 'string') return undefined;
    const C = ctorOf(b.dtype);
    const bytes = refHostLength(b.dtype, numel(b.shape)) * entryBytes(b.dtype);
    return m(
      'data: the right class over a detached ArrayBuffer',
      'DATA_TYPE',
      set(
        make(),
        'data',
        detached((ab) => new C(ab), bytes),
      ),
    );
  },
  (_b, _r, make) => m('data: a getter that throws', 'BAD_INPUT', throwingGetter(make(), 'data')),
  (b, _r, make) =>
    m('data: a getter whose first read is bad', 'DATA_TYPE', changingGetter(make(), 'data', [null, b.host.data])),
  (b, r, make) => {
    if (b.dtype !== 'string') return undefined;
    const n = numel(b.shape);
    const data: unknown[] = [...(b.host.data as string[])];
    const i = int(r, 0, n - 1);
    const kinds: [string, () => void][] = [
      [
        'a sparse string array',
        () => {
          delete data[i];
        },
      ],
      [
        'a number among the strings',
        () => {
          data[i] = 5;
        },
      ],
      [
        'null among the strings',
        () => {
          data[i] = null;
        },
      ],
      [
        'a String object among the strings',
        () => {
          data[i] = new String('s');
        },
      ],
      [
        'a Symbol among the strings',
        () => {
          data[i] = Symbol('s');
        },
      ],
    ];
    const [name, f] = pick(r, kinds);
    f();
    return m(`data: ${name}`, 'DATA_TYPE', set(make(), 'data', data));
  },
  (b, r, make) => {
    if (b.dtype !== 'string') return undefined;
    const n = numel(b.shape);
    return pick(r, [
      m('data: a string array of the wrong length', 'DATA_LENGTH', set(make(), 'data', new Array(n + 1).fill('s'))),
      m(
        'data: a string array Proxy whose get throws',
        'BAD_INPUT',
        set(make(), 'data', throwingGet([...(b.host.data as string[])])),
      ),
      m(
        'data: a string array Proxy saying length 2^31',
        'DATA_LENGTH',
        set(make(), 'data', lyingLength(b.host.data as string[], 2 ** 31)),
      ),
    ]);
  },
];

/** One fault of a valid host tensor. */
export function hostFault(b: Base, r: Rng): Mutation {
  const make = () => hostCopy(b);
  const gens = [
    ...COMMON_FAULTS,
    ...dataFaults,
    ...dataFaults,
    (_b: Base, r2: Rng, mk: () => Record<PropertyKey, unknown>) =>
      m("tensor: both 'data' and 'buffer'", 'BAD_INPUT', set(mk(), 'buffer', pick(r2, [{}, null]))),
  ];
  for (;;) {
    const f = pick(r, gens)(b, r, make);
    if (f) return f;
  }
}

// ---------------------------------------------------------------------------------------------
// GPU tensors: the buffer, its offsets, its usage and state, and leases.

function bufferFaults(ctx: Ctx): Gen[] {
  const want = (b: Base) => refByteLength(b.dtype, numel(b.shape));
  const fake = () => ({
    size: 1024,
    usage: TENSOR_USAGE,
    mapState: 'unmapped',
    mapAsync: async () => {},
    destroy() {},
    getMappedRange() {
      return new ArrayBuffer(1024);
    },
    unmap() {},
  });
  const junkBuffers: [string, () => unknown][] = [
    // Proxies and look-alikes of a real GPUBuffer run in child processes (child.ts): one reaching Dawn crashes it.
    ...JUNK,
    ['an empty object', () => ({})],
    ['a fake buffer object', fake],
    ['a GPUDevice', () => ctx.device],
    ['a GPUTexture', () => ctx.device.createTexture({ size: [1, 1], format: 'r8unorm', usage: 0x4 })],
    ['a typed array', () => new Uint8Array(1024)],
  ];
  return [
    (_b, r, make) => {
      const [name, v] = pick(r, junkBuffers);
      return m(`buffer: ${name}`, 'BAD_INPUT', set(make(), 'buffer', v()));
    },
    (_b, _r, make) => {
      const t = make();
      delete t.buffer;
      return m("buffer: missing (no 'data' either)", 'BAD_INPUT', t);
    },
    (_b, _r, make) => m('buffer: a getter that throws', 'BAD_INPUT', throwingGetter(make(), 'buffer')),
    (_b, r, make) => {
      // Not a non-negative safe integer: BAD_INPUT, as for a destination; one past the buffer: DATA_LENGTH. Absent, it
      // is 0 (a control).
      const bad: [string, () => unknown, SplitErrorCode][] = [
        ['-4', () => -4, 'BAD_INPUT'],
        ['1.5', () => 1.5, 'BAD_INPUT'],
        ['NaN', () => NaN, 'BAD_INPUT'],
        ["a string '0'", () => '0', 'BAD_INPUT'],
        ['null', () => null, 'BAD_INPUT'],
        ['Infinity', () => Infinity, 'BAD_INPUT'],
        ['2^53', () => 2 ** 53, 'BAD_INPUT'],
        ['a Symbol', () => Symbol('o'), 'BAD_INPUT'],
        ['past the end of the buffer', () => 4096, 'DATA_LENGTH'],
        ['a bigint', () => 0n, 'BAD_INPUT'],
      ];
      const [name, v, code] = pick(r, bad);
      return m(`byteOffset: ${name}`, code, set(make(), 'byteOffset', v()));
    },
    (b, r, make) => {
      const w = want(b);
      const [name, v] = pick(r, [
        ['one byte more', w + 1],
        ['-1', -1],
        ['a string', String(w)],
        ['NaN', NaN],
        ['null', null],
        ...(w > 0
          ? [
              ['one byte less', w - 1],
              ['0', 0],
            ]
          : []),
      ] as [string, unknown][]);
      return m(`byteLength: ${name}`, 'DATA_LENGTH', set(make(), 'byteLength', v));
    },
    (b, _r, make) => {
      if (want(b) <= 4) return undefined;
      const small = ctx.device.createBuffer({ size: 4, usage: TENSOR_USAGE });
      ctx.made.push(small);
      return m('buffer: a real buffer smaller than the tensor', 'DATA_LENGTH', set(make(), 'buffer', small));
    },
    (b, _r, make) => {
      let size = want(b) + 1;
      while (size % 4 === 0) size++;
      const odd = ctx.device.createBuffer({ size, usage: TENSOR_USAGE });
      ctx.made.push(odd);
      return m('buffer: a size that is not a multiple of 4', 'BAD_INPUT', set(make(), 'buffer', odd));
    },
    (b) => {
      if (want(b) === 0) return undefined;
      const t = callerTensor(ctx, b, ctx.device, 0x8);
      return m('buffer: without COPY_SRC or STORAGE usage', 'BAD_INPUT', t, { engineOnly: true });
    },
    (b) => {
      if (want(b) === 0) return undefined;
      const buffer = ctx.device.createBuffer({ size: align4(want(b)), usage: 0x2 | 0x4, mappedAtCreation: true });
      ctx.made.push(buffer);
      return m(
        'buffer: mapped (mappedAtCreation, MAP_WRITE | COPY_SRC)',
        'BAD_INPUT',
        { dtype: b.dtype, shape: [...b.shape], buffer, byteOffset: 0, byteLength: want(b) },
        { engineOnly: true },
      );
    },
    (b) => {
      if (want(b) === 0) return undefined;
      const t = callerTensor(ctx, b);
      (t.buffer as GPUBuffer).destroy();
      return m('buffer: destroyed by the caller', 'GPU_ERROR', t, { gpu: true, engineOnly: true });
    },
    (b) => {
      if (want(b) === 0) return undefined;
      return m('buffer: a buffer of another GPUDevice', 'GPU_ERROR', callerTensor(ctx, b, ctx.foreign), {
        gpu: true,
        engineOnly: true,
      });
    },
    (_b, _r, make) => m("dtype: 'string' on the GPU", 'WRONG_BACKEND', set(make(), 'dtype', 'string')),
    (b, _r, make) => {
      if (isPackedType(b.dtype) || b.shape.length < 2 || b.shape[b.shape.length - 1]! < 2) return undefined;
      return m(
        'shape: a Proxy saying one dimension fewer than it has',
        'DATA_LENGTH',
        set(make(), 'shape', lyingLength(b.shape, b.shape.length - 1)),
      );
    },
  ];
}

/** Tensors whose lease is over: released, copies of released ones, tensors of a destroyed engine. */
function leaseFaults(ctx: Ctx): Gen[] {
  const up = (b: Base, e: SplitEngine = ctx.e) => e.upload(b.host as HostTensor<FixedDType>);
  const released = (b: Base, e?: SplitEngine) => {
    const t = up(b, e);
    ctx.e.release(t);
    return t;
  };
  const r = (what: string, value: unknown) => m(what, 'RELEASED', value, { engineOnly: true });
  return [
    (b) => r('lease: a released tensor', released(b)),
    (b) => r('lease: a released tensor of the second engine', released(b, ctx.e2)),
    (b) => r('lease: a spread copy of a released tensor', { ...released(b) }),
    (b) => {
      const shape = [...b.shape, 1];
      return {
        ...r('lease: a reshaped copy of a released tensor', { ...released(b), shape }),
        base: { ...b, shape, host: { ...b.host, shape } as HostTensor },
      };
    },
    (b) => {
      const t = released(b);
      return r('lease: a fresh object naming a freed Cleave buffer', {
        dtype: t.dtype,
        shape: [...t.shape],
        buffer: t.buffer,
        byteOffset: t.byteOffset,
        byteLength: t.byteLength,
      });
    },
    (b) => {
      const t = released(b);
      const live = ctx.e.upload({ dtype: 'uint8', shape: [4096], data: new Uint8Array(4096) }); // another size: never t's buffer
      const lease = Object.getOwnPropertySymbols(live).map(
        (s) => [s, (live as unknown as Record<symbol, unknown>)[s]] as const,
      );
      ctx.leased.push(live);
      return r(
        "lease: a released tensor's copy carrying a live tensor's lease",
        Object.assign({ ...t }, Object.fromEntries(lease)),
      );
    },
    (b) => {
      const t = released(b);
      return r('lease: a Proxy of a released tensor', honestProxy(t));
    },
  ];
}

/** A fault of a GPU tensor (the base's bytes in a caller buffer, or a Cleave upload for lease faults). */
export function gpuFault(ctx: Ctx, b: Base, r: Rng, opts: { engine: boolean }): Mutation {
  const make = () => callerTensor(ctx, b);
  const gens = [
    ...COMMON_FAULTS,
    ...bufferFaults(ctx),
    ...bufferFaults(ctx),
    ...(opts.engine ? leaseFaults(ctx) : []),
    (_b: Base, _r: Rng, mk: () => Record<PropertyKey, unknown>) =>
      m("tensor: both 'data' and 'buffer'", 'BAD_INPUT', set(mk(), 'data', new Uint8Array(4))),
  ];
  for (;;) {
    const f = pick(r, gens)(b, r, make);
    if (f && (opts.engine || !f.engineOnly)) return f;
  }
}

// ---------------------------------------------------------------------------------------------
// Hostile but valid tensors: they must split exactly as the base does.

export interface Twist {
  readonly what: string;
  readonly value: unknown;
}

class ProtoTensor {
  constructor(private readonly t: HostTensor) {}
  get dtype() {
    return this.t.dtype;
  }
  get shape() {
    return this.t.shape;
  }
  get data() {
    return this.t.data;
  }
}

/** A valid host tensor in a hostile form. */
export function hostTwist(b: Base, r: Rng): Twist {
  const make = () => hostCopy(b);
  const twists: (() => Twist | undefined)[] = [
    () => ({
      what: 'a frozen tensor with a frozen shape',
      value: Object.freeze({ ...make(), shape: Object.freeze([...b.shape]) }),
    }),
    () => ({ what: 'a null-prototype tensor', value: nullProto(make()) }),
    () => ({ what: 'a class instance with prototype getters', value: new ProtoTensor(b.host) }),
    () => ({ what: 'a Proxy that forwards every read', value: honestProxy(make()) }),
    () => ({
      what: 'a shape getter that turns bad after the first read',
      value: changingGetter(make(), 'shape', [b.shape, [-1], null]),
    }),
    () => ({
      what: 'a dtype getter that turns bad after the first read',
      value: changingGetter(make(), 'dtype', [b.dtype, 'bogus']),
    }),
    () => ({
      what: 'a data getter that turns bad after the first read',
      value: changingGetter(make(), 'data', [b.host.data, null]),
    }),
    () => {
      const shape = [...b.shape];
      changingGetter(shape, 0, [b.shape[0], -1]);
      return { what: 'a shape entry getter that turns bad after the first read', value: { ...make(), shape } };
    },
    () => ({ what: 'extra unknown fields on the tensor', value: { ...make(), name: 'x', location: 'cpu', dims: [1] } }),
    () => {
      if (b.dtype === 'string') return undefined;
      const data = (b.host.data as Uint8Array).slice();
      Object.defineProperty(data, 'length', { value: 1e9 });
      Object.defineProperty(data, Symbol.toStringTag, { value: 'Float64Array' });
      return { what: "data with an own 'length' and Symbol.toStringTag that lie", value: { ...make(), data } };
    },
    () => {
      if (arrayOf(b.dtype) !== 'Uint8Array') return undefined;
      // Buffer.from(array) of a small length comes from Node's shared pool: a non-zero byteOffset.
      return {
        what: 'a Node Buffer from the shared pool (non-zero byteOffset)',
        value: { ...make(), data: Buffer.from(b.host.data as Uint8Array) },
      };
    },
    () => {
      if (b.dtype === 'string') return undefined;
      const src = bytesOfHost(b.host);
      const C = CTORS[arrayOf(b.dtype)] as unknown as new (ab: ArrayBuffer, o: number, n: number) => ArrayLike<unknown>;
      const k = entryBytes(b.dtype);
      const ab = new ArrayBuffer(src.byteLength + 8 * k);
      new Uint8Array(ab, 3 * k).set(src);
      return {
        what: 'data at a non-zero byteOffset of a larger ArrayBuffer',
        value: { ...make(), data: new C(ab, 3 * k, src.byteLength / k) },
      };
    },
  ];
  for (;;) {
    const t = pick(r, twists)();
    if (t) return t;
  }
}
