// The conformance suite's cases, generated once and run on every WebGPU implementation (Dawn in
// Node, wgpu in Deno): GPU-resident splits of every dtype a GPU buffer holds, along the first,
// a middle and the last axis; output layouts and alias rules; each shader word width; 4096
// one-element outputs; destinations in the caller's buffers (`into`); splits recorded into the
// caller's encoder (`encodeSplit`); a grid past 65,535 workgroups; and prepared splits
// (`engine.prepare`), called again and again on new inputs and destinations. Imports nothing at run time
// but the tests' own helpers, so the vitest parent lists the same cases its Deno child runs.

import { ParamsBuilder, hashParams, randomSplit, rng } from '../helpers/cases.js';
import { FIXED_REF_DTYPES, REF_TYPES, type RefDType } from '../helpers/dtypes.js';

export type FixedRefDType = Exclude<RefDType, 'string'>;

/**
 * Where the input lives and where outputs go. 'shared': the engine's upload, outputs in one buffer
 * (views where the chunks allow); 'separate': a buffer per output; 'alias-none': never views;
 * 'caller': the input in the caller's buffer (copied by default); 'alias-any': the caller's
 * buffer, viewed where the chunks allow.
 */
export type Place = 'shared' | 'separate' | 'alias-none' | 'caller' | 'alias-any';

/** 'split' awaits; 'encode' records into the caller's encoder; 'encode-rewrite' also rewrites the input first. */
export type Call = 'split' | 'encode' | 'encode-rewrite';

/**
 * A split prepared once (`engine.prepare`) and called on new tensors of its dtype and shape. 'offsets': inputs in the
 * caller's buffers at offsets a whole 256 bytes from the prepared one and at offsets that are not; 'kv-cache': K and V
 * into a cache slot that moves at every call (`into` given at the call); 'host': host tensors.
 */
export type Prepared = 'offsets' | 'kv-cache' | 'host';

export interface ConformanceCase {
  readonly name: string;
  readonly family: string;
  readonly dtype: FixedRefDType;
  readonly shape: readonly number[];
  readonly axis: number;
  readonly sizes: readonly number[];
  readonly place: Place;
  readonly call: Call;
  /** Outputs written into the caller's buffers (about 70% of them, random windows and strides). */
  readonly into: boolean;
  readonly strategy: 'auto' | 'gather' | 'copy';
  /** The shader word width the case must run with, where the case is about it. */
  readonly unitBits?: 1 | 32 | 64 | 128;
  /** Called through a prepared split (check-prepared.ts), not engine.split. */
  readonly prepared?: Prepared;
  readonly seed: number;
}

type Spec = Omit<ConformanceCase, 'name' | 'family' | 'seed' | 'place' | 'call' | 'into' | 'strategy'> &
  Partial<Pick<ConformanceCase, 'place' | 'call' | 'into' | 'strategy'>>;

function named(family: string, s: Spec): ConformanceCase {
  const c = { place: 'shared', call: 'split', into: false, strategy: 'auto', ...s } as const;
  const sizes = c.sizes.length > 12 ? `${c.sizes.length} outputs` : `[${c.sizes.join(',')}]`;
  const extras = [
    c.place !== 'shared' && c.place,
    c.call !== 'split' && c.call,
    c.into && 'into',
    c.strategy !== 'auto' && c.strategy,
    c.unitBits && `${c.unitBits}-bit words`,
    c.prepared && `prepared ${c.prepared}`,
  ].filter(Boolean);
  const name = [`${family}: ${c.dtype} [${c.shape.join(',')}] axis ${c.axis} ${sizes}`, ...extras].join(' ');
  return { ...c, name, family, seed: hashParams({ name }) };
}

const PATTERNS: Readonly<Record<string, (dim: number) => number[]>> = {
  even: (d) => [d / 3, d / 3, d / 3],
  uneven: (d) => [1, d - 4, 3],
  zeroLength: (d) => [0, d - 2, 0, 2, 0],
  moreThan8: (d) => [...Array<number>(9).fill(3), d - 27],
};
const AXES = { first: 0, middle: 1, last: 2 } as const;
const shapeFor = (axis: number, dim: number) => [3, 2, 5].map((n, k) => (k === axis ? dim : n));
const DTYPES = FIXED_REF_DTYPES as readonly FixedRefDType[];
/** One of each width and kind: words of 32, 64 and 128 bits, bytes, halves, and packed types (both bit orders). */
const SOME: readonly FixedRefDType[] = [
  'float32',
  'float64',
  'complex128',
  'uint8',
  'bfloat16',
  'int4',
  'uint1',
  'uint6',
];

/** Every dtype x axis x pattern, GPU-resident, the outputs placed by the engine. */
function generated(): ConformanceCase[] {
  return ParamsBuilder.start()
    .combine('dtype', DTYPES)
    .combine('axis', Object.keys(AXES) as (keyof typeof AXES)[])
    .combine('pattern', Object.keys(PATTERNS))
    .cases.map((p) => {
      const axis = AXES[p.axis];
      return named('generated', { dtype: p.dtype, shape: shapeFor(axis, 30), axis, sizes: PATTERNS[p.pattern]!(30) });
    });
}

/** Elements in a row of 2048 bits times what it takes to start every row at a 256-byte offset. */
const alignedRow = (d: FixedRefDType) => 2048 / gcd(REF_TYPES[d].bits, 2048);
const gcd = (a: number, b: number): number => (b ? gcd(b, a % b) : a);

/** Each place, for chunks that may be views (whole aligned rows) and for strided chunks. */
function layouts(): ConformanceCase[] {
  return ParamsBuilder.start()
    .combine('dtype', SOME)
    .combine('place', ['shared', 'separate', 'alias-none', 'caller', 'alias-any'] as const)
    .combine('chunks', ['rows', 'strided'] as const)
    .cases.map((p) => {
      const n = alignedRow(p.dtype);
      return p.chunks === 'rows'
        ? named('layout', { dtype: p.dtype, shape: [4, n], axis: 0, sizes: [1, 2, 1], place: p.place })
        : named('layout', { dtype: p.dtype, shape: [3, n], axis: 1, sizes: [1, n - 3, 2], place: p.place });
    });
}

/** Each shader variant, by a split whose offsets its word width divides and the next one's does not. */
function words(): ConformanceCase[] {
  const w = (dtype: FixedRefDType, shape: number[], sizes: number[], unitBits: 1 | 32 | 64 | 128) =>
    named('words', { dtype, shape, axis: 1, sizes, strategy: 'gather', unitBits });
  return [
    w('float32', [4, 16], [8, 8], 128),
    w('float32', [4, 6], [2, 4], 64),
    w('float32', [4, 6], [1, 5], 32),
    w('float64', [4, 3], [1, 2], 64),
    w('int64', [4, 4], [2, 2], 128),
    w('complex128', [4, 3], [1, 2], 128),
    w('uint8', [4, 6], [1, 5], 1),
    w('uint1', [4, 40], [13, 27], 1),
  ];
}

/** 4096 one-element outputs along the first and the last axis. */
function outputs4096(): ConformanceCase[] {
  return ParamsBuilder.start()
    .combine('dtype', SOME)
    .combine('axis', [0, 1] as const)
    .cases.map((p) =>
      named('outputs4096', {
        dtype: p.dtype,
        shape: p.axis === 0 ? [4096, 3] : [3, 4096],
        axis: p.axis,
        sizes: Array<number>(4096).fill(1),
      }),
    );
}

/** Random destinations of random splits, three for every dtype, the last forced to copies where the plan allows. */
function destinations(): ConformanceCase[] {
  return ParamsBuilder.start()
    .combine('dtype', DTYPES)
    .combine('draw', [1, 2, 3])
    .cases.map((p) => {
      const split = randomSplit(rng(hashParams(p)));
      const strategy = p.draw === 3 ? 'copy' : 'auto';
      return named('into', { dtype: p.dtype, ...split, into: true, strategy });
    });
}

/** encodeSplit: copies by default, views on request, into destinations, after the caller's own write of the input. */
function encoded(): ConformanceCase[] {
  return ParamsBuilder.start()
    .combine('dtype', SOME)
    .combine('variant', ['encode', 'views', 'into', 'encode-rewrite'] as const)
    .cases.map((p) => {
      const n = alignedRow(p.dtype);
      const base = { dtype: p.dtype, shape: [4, n], call: 'encode' as Call };
      if (p.variant === 'views') return named('encodeSplit', { ...base, axis: 0, sizes: [2, 2], place: 'alias-any' });
      if (p.variant === 'into') return named('encodeSplit', { ...base, axis: 1, sizes: [1, n - 3, 2], into: true });
      return named('encodeSplit', { ...base, axis: 1, sizes: [3, n - 3], call: p.variant });
    });
}

/** 65,536 outputs of two rows each: a tile per output, a grid of 65,536 workgroups folded into 2-D. */
function grids(): ConformanceCase[] {
  return (['float32', 'uint8'] as const).map((dtype) =>
    named('grid', { dtype, shape: [2, 65_536], axis: 1, sizes: Array<number>(65_536).fill(1), strategy: 'gather' }),
  );
}

/** A word, a byte and a packed type: [3, n] into pieces of 256 bits, rows of 256 bytes: copies, gather or views. */
const PREPARED: readonly FixedRefDType[] = ['float32', 'uint8', 'int4'];

/**
 * Prepared splits: split or encoded, inputs at moving offsets (copies, gather, views of the caller's buffer), K and V
 * into a moving cache slot (copies, gather), and host tensors (split only: a host tensor has no encode).
 */
function prepared(): ConformanceCase[] {
  return ParamsBuilder.start()
    .combine('dtype', PREPARED)
    .combine('prepared', ['offsets', 'kv-cache', 'host'] as const)
    .combine('strategy', ['copy', 'gather', 'views'] as const)
    .combine('call', ['split', 'encode'] as const)
    .filter(
      (p) => (p.prepared === 'offsets' || p.strategy !== 'views') && (p.prepared !== 'host' || p.call === 'split'),
    )
    .cases.map((p) => {
      const n = alignedRow(p.dtype);
      const strategy: ConformanceCase['strategy'] = p.strategy === 'views' ? 'auto' : p.strategy;
      const base = { dtype: p.dtype, call: p.call, prepared: p.prepared, strategy };
      if (p.prepared === 'kv-cache') {
        const [H, d] = [3, 512 / REF_TYPES[p.dtype].bits]; // a 64-byte slot row: four to an alignment
        return named('prepared', { ...base, shape: [1, 3 * H, 1, d], axis: 1, sizes: [H, H, H], into: true });
      }
      if (p.strategy === 'views')
        return named('prepared', { ...base, shape: [4, n], axis: 0, sizes: [1, 2, 1], place: 'alias-any' });
      const place = p.prepared === 'host' ? 'shared' : 'caller';
      return named('prepared', { ...base, shape: [3, n], axis: 1, sizes: [n / 8, (6 * n) / 8, n / 8], place });
    });
}

/** The control first: the simplest split, which must pass wherever anything does. */
export function conformanceCases(): ConformanceCase[] {
  const control = named('control', { dtype: 'float32', shape: [2, 3], axis: 1, sizes: [1, 2] });
  return [
    control,
    ...generated(),
    ...layouts(),
    ...words(),
    ...outputs4096(),
    ...destinations(),
    ...encoded(),
    ...grids(),
    ...prepared(),
  ];
}
