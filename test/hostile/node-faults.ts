// Operator nodes (Split 2/11/13/18, SplitToSequence 11/24, VariadicSplit-1): a valid node for a
// base tensor with the output shapes it must give, and one-fault mutations of it (the node
// object, op, opset, inputs, attributes, declared outputs, parameter tensors) with their codes.

import type { DType, HostTensor, SplitErrorCode } from '../../src/index.js';
import { int, randomTensor } from '../helpers/cases.js';
import { type OptionFault, chunks, namesKey, unknownKey } from './option-faults.js';
import { type Base, type Mutation, type Rng, hostFault, pick } from './tensors.js';
import {
  JUNK,
  changingGetter,
  honestProxy,
  lyingLength,
  nullProto,
  revokedProxy,
  throwingGet,
  throwingGetter,
  throwingProxy,
} from './values.js';

export type Kind =
  | 'Split-18'
  | 'Split-13'
  | 'Split-11'
  | 'Split-2'
  | 'SplitToSequence-scalar'
  | 'SplitToSequence-ones'
  | 'SplitToSequence-list'
  | 'VariadicSplit';
export const KINDS: readonly Kind[] = [
  'Split-18',
  'Split-13',
  'Split-11',
  'Split-2',
  'SplitToSequence-scalar',
  'SplitToSequence-ones',
  'SplitToSequence-list',
  'VariadicSplit',
];

export interface NodeBase {
  readonly kind: Kind;
  readonly b: Base;
  /** The data input as given (a host tensor, or a GPU tensor the caller made). */
  readonly data: unknown;
  readonly node: Record<PropertyKey, unknown>;
  /** Output shapes the node must give. */
  readonly shapes: number[][];
  readonly sizes: number[];
  /** The axis as resolved (non-negative). */
  readonly axis: number;
}

export const i64 = (v: readonly number[], shape: number[] = [v.length]): HostTensor<'int64'> => ({
  dtype: 'int64',
  shape,
  data: BigInt64Array.from(v.map(BigInt)),
});
const int32 = (v: readonly number[], shape: number[] = [v.length]): HostTensor<'int32'> => ({
  dtype: 'int32',
  shape,
  data: Int32Array.from(v),
});

/** The ONNX dtypes Split takes at every version from 13 (no packed OpenVINO types); 11 and 2 also lack bfloat16. */
const ONNX_DATA: readonly DType[] = [
  'float32',
  'uint8',
  'int64',
  'float16',
  'bool',
  'complex64',
  'string',
  'int32',
  'float64',
  'bfloat16',
  'int8',
  'uint64',
];

/** Which dtypes a node kind takes as data. */
export function dtypesFor(kind: Kind): readonly DType[] {
  if (kind === 'VariadicSplit')
    return ['float32', 'uint8', 'int64', 'int4', 'uint1', 'uint3', 'float8e5m2', 'string', 'complex128', 'bool'];
  if (kind === 'Split-11' || kind === 'Split-2') return ONNX_DATA.filter((d) => d !== 'bfloat16');
  return ONNX_DATA;
}

/** A valid node of the given kind over `data` (the base's tensor, host or GPU). */
export function nodeBase(kind: Kind, b: Base, data: unknown, r: Rng): NodeBase {
  const dim = b.shape[b.axis]!;
  const axisAttr = r() < 0.3 ? b.axis - b.shape.length : b.axis;
  const out = (node: Record<string, unknown>, sizes: number[], drop = false): NodeBase => ({
    kind,
    b,
    data,
    node,
    sizes,
    axis: b.axis,
    shapes: sizes.map((s) =>
      drop ? b.shape.filter((_, i) => i !== b.axis) : b.shape.map((d, i) => (i === b.axis ? s : d)),
    ),
  });
  const declare = (n: number) => (r() < 0.5 ? { outputs: n } : {});
  switch (kind) {
    case 'Split-18': {
      const n = int(r, 1, dim + 1);
      return out(
        {
          op: 'Split',
          opset: pick(r, [18, 19, 25]),
          inputs: [data],
          attrs: { axis: axisAttr, num_outputs: n },
          ...declare(n),
        },
        chunks(dim, n),
      );
    }
    case 'Split-13':
      return out(
        {
          op: 'Split',
          opset: int(r, 13, 17),
          inputs: [data, i64(b.sizes)],
          attrs: { axis: axisAttr },
          ...declare(b.sizes.length),
        },
        b.sizes,
      );
    case 'Split-11':
      return out(
        {
          op: 'Split',
          opset: int(r, 11, 12),
          inputs: [data],
          attrs: { axis: axisAttr, split: [...b.sizes] },
          ...declare(b.sizes.length),
        },
        b.sizes,
      );
    case 'Split-2': {
      const k = pick(
        r,
        Array.from({ length: dim }, (_, i) => i + 1).filter((x) => dim % x === 0),
      );
      return out(
        { op: 'Split', opset: int(r, 2, 10), inputs: [data], attrs: { axis: axisAttr }, outputs: k },
        new Array(k).fill(dim / k),
      );
    }
    case 'SplitToSequence-scalar': {
      const k = int(r, 1, dim);
      const sizes: number[] = [];
      for (let at = 0; at < dim; at += k) sizes.push(Math.min(k, dim - at));
      const split = r() < 0.5 ? i64([k], []) : int32([k], []);
      return out({ op: 'SplitToSequence', opset: 24, inputs: [data, split], attrs: { axis: axisAttr } }, sizes);
    }
    case 'SplitToSequence-ones': {
      const keepdims = int(r, 0, 1);
      return out(
        { op: 'SplitToSequence', opset: 24, inputs: [data], attrs: { axis: axisAttr, keepdims } },
        new Array(dim).fill(1),
        keepdims === 0,
      );
    }
    case 'SplitToSequence-list':
      return out({ op: 'SplitToSequence', inputs: [data, i64(b.sizes)], attrs: { axis: axisAttr } }, b.sizes);
    case 'VariadicSplit': {
      const lengths = [...b.sizes];
      if (r() < 0.5) lengths[int(r, 0, lengths.length - 1)] = -1;
      const axisT = r() < 0.5 ? int32([axisAttr], []) : { dtype: 'uint8', shape: [1], data: Uint8Array.of(b.axis) };
      return out({ op: 'VariadicSplit', inputs: [data, axisT, i64(lengths)], ...declare(b.sizes.length) }, b.sizes);
    }
  }
}

type Gen = (n: NodeBase, r: Rng) => OptionFault | undefined;
const m = (what: string, code: SplitErrorCode, value: unknown, check?: OptionFault['check']): OptionFault => ({
  what,
  code,
  value,
  check,
});
const clone = (n: NodeBase): Record<PropertyKey, unknown> => ({
  ...n.node,
  inputs: [...(n.node.inputs as unknown[])],
  attrs: { ...(n.node.attrs as object) },
});
const withInput = (n: NodeBase, i: number, v: unknown) => {
  const x = clone(n);
  (x.inputs as unknown[])[i] = v;
  return x;
};
const withAttr = (n: NodeBase, k: string, v: unknown) => {
  const x = clone(n);
  (x.attrs as Record<string, unknown>)[k] = v;
  return x;
};
/** Without a declared output count: for faults that change the number of lengths, which a declared count would refuse first. */
const undeclared = (x: Record<PropertyKey, unknown>) => {
  delete x.outputs;
  return x;
};
const isStS = (n: NodeBase) => n.kind.startsWith('SplitToSequence');
const hasOpset = (n: NodeBase) => n.kind !== 'VariadicSplit';

const NOT_INTS: readonly (readonly [string, () => unknown])[] = [
  ['1.5', () => 1.5],
  ["a string '1'", () => '1'],
  ['null', () => null],
  ['a Symbol', () => Symbol('n')],
  ['NaN', () => NaN],
  ['true', () => true],
  ['an object', () => ({})],
  ['a bigint', () => 1n],
];

const nodeObjectFaults: Gen[] = [
  (_n, r) => {
    const [name, v] = pick(r, JUNK);
    return m(`node: ${name}`, 'BAD_OPTIONS', v());
  },
  () => m('node: an empty array', 'BAD_OPTIONS', []),
  (n) => m('node: a Proxy whose every trap throws', 'BAD_INPUT', throwingProxy(clone(n))),
  () => m('node: a revoked Proxy', 'BAD_INPUT', revokedProxy()),
  (n, r) => unknownKey(clone(n), r, 'node'),
  (n, r) => {
    const ops: [string, unknown][] = [
      ["'split'", 'split'],
      ["'Slice'", 'Slice'],
      ['an empty string', ''],
      ['null', null],
      ['a number', 5],
      ['a Symbol', Symbol('Split')],
      ['missing', undefined],
    ];
    const [name, v] = pick(r, ops);
    return m(`node.op: ${name}`, 'BAD_OPTIONS', { ...clone(n), op: v });
  },
  (n, r) => {
    if (!hasOpset(n)) return undefined;
    const bad: [string, unknown][] = [
      ["a string '18'", '18'],
      ['0', 0],
      ['-1', -1],
      ['1.5', 1.5],
      ['NaN', NaN],
      ['null', null],
      ['a Symbol', Symbol('o')],
      ['true', true],
      ['2^53', 2 ** 53],
      ...(isStS(n) ? [['10, before the operator existed', 10] as [string, unknown]] : []),
    ];
    const [name, v] = pick(r, bad);
    return m(`node.opset: ${name}`, 'BAD_OPSET', { ...clone(n), opset: v });
  },
  (n) => m('node.opset: a getter that throws', 'BAD_INPUT', throwingGetter(clone(n), 'opset')),
];

const inputsFaults: Gen[] = [
  (n, r) => {
    const bad: [string, unknown][] = [
      ['null', null],
      ['the tensor itself', n.data],
      ['an object', {}],
      ['a string', 'x'],
      ['a number', 5],
      ['a Symbol', Symbol('i')],
    ];
    const [name, v] = pick(r, bad);
    return m(`node.inputs: ${name}`, 'BAD_INPUT', { ...clone(n), inputs: v });
  },
  (n) => m('node.inputs: empty', 'BAD_INPUT', { ...clone(n), inputs: [] }),
  (n) => m('node.inputs: the data input undefined', 'BAD_INPUT', withInput(n, 0, undefined)),
  (n) => {
    const count =
      { 'Split-18': 2, 'Split-13': 2, 'Split-11': 1, 'Split-2': 1, VariadicSplit: 3 }[n.kind as string] ?? 2;
    const inputs = [...(n.node.inputs as unknown[])];
    while (inputs.length <= count) inputs.push(i64([1]));
    return m('node.inputs: one more input than the version takes', 'BAD_INPUT', { ...clone(n), inputs });
  },
  (n) => m('node.inputs: 9 inputs', 'BAD_INPUT', { ...clone(n), inputs: [n.data, ...new Array(8).fill(i64([1]))] }),
  (n) =>
    m('node.inputs: a Proxy saying length 2^31', 'TOO_LARGE', {
      ...clone(n),
      inputs: lyingLength(n.node.inputs as unknown[], 2 ** 31),
    }),
  (n) =>
    m('node.inputs: a sparse array of length 2^32 - 1', 'TOO_LARGE', {
      ...clone(n),
      inputs: Object.assign(new Array(2 ** 32 - 1), { 0: n.data }),
    }),
  (n) =>
    m('node.inputs: a Proxy whose get throws', 'BAD_INPUT', {
      ...clone(n),
      inputs: throwingGet([...(n.node.inputs as unknown[])]),
    }),
  (n) => m('node.inputs: a revoked Proxy', 'BAD_INPUT', { ...clone(n), inputs: revokedProxy() }),
  (n) => m('node.inputs: a getter that throws', 'BAD_INPUT', throwingGetter(clone(n), 'inputs')),
  (n, r) => {
    // int4 is an OpenVINO type no ONNX version lists; Split-2 and Split-11 also lack bfloat16.
    if (n.kind === 'VariadicSplit') return undefined;
    const other: DType = (n.kind === 'Split-11' || n.kind === 'Split-2') && r() < 0.5 ? 'bfloat16' : 'int4';
    return m(
      `data: ${other}, which the version does not take`,
      'BAD_DTYPE',
      withInput(n, 0, randomTensor(other, n.b.shape, r)),
    );
  },
];

const attrsFaults: Gen[] = [
  (n, r) => {
    const bad: [string, unknown][] = [
      ['null', null],
      ['a number', 5],
      ['a string', 'axis'],
      ['an array', [1]],
      ['true', true],
      ['a Symbol', Symbol('a')],
      ['a function', () => 0],
    ];
    const [name, v] = pick(r, bad);
    return m(`node.attrs: ${name}`, 'BAD_ATTRIBUTE', { ...clone(n), attrs: v });
  },
  (n) =>
    m('node.attrs: a Proxy whose every trap throws', 'BAD_INPUT', {
      ...clone(n),
      attrs: throwingProxy({ ...(n.node.attrs as object) }),
    }),
  (n) =>
    m('node.attrs: a Symbol key', 'BAD_ATTRIBUTE', {
      ...clone(n),
      attrs: { ...(n.node.attrs as object), [Symbol('axis')]: 1 },
    }),
  (n, r) => {
    const key = pick(r, ['axsi', 'Axis', 'num_output', 'splits', 'foo', 'constructor']);
    return m('node.attrs: an unknown attribute', 'BAD_ATTRIBUTE', withAttr(n, key, 1), namesKey(key));
  },
  (n, r) => {
    if (n.kind === 'VariadicSplit')
      return m(
        'node.attrs: any attribute (VariadicSplit has none)',
        'BAD_ATTRIBUTE',
        withAttr(n, pick(r, ['axis', 'split']), 0),
      );
    const wrong =
      n.kind === 'Split-18'
        ? ['split', 'keepdims']
        : n.kind === 'Split-13'
          ? ['num_outputs', 'split']
          : isStS(n)
            ? ['split', 'num_outputs']
            : ['num_outputs', 'keepdims'];
    const key = pick(r, wrong);
    return m(
      `node.attrs: '${key}', which the version does not have`,
      'BAD_ATTRIBUTE',
      withAttr(n, key, key === 'split' ? [...n.sizes] : 1),
      namesKey(key),
    );
  },
  (n, r) => {
    if (n.kind === 'VariadicSplit') return undefined;
    const [name, v] = pick(r, NOT_INTS);
    return m(`node.attrs.axis: ${name}`, 'BAD_ATTRIBUTE', withAttr(n, 'axis', v()));
  },
  (n, r) => {
    if (n.kind === 'VariadicSplit') return undefined;
    const rank = n.b.shape.length;
    return m(
      'node.attrs.axis: out of range',
      'AXIS_RANGE',
      withAttr(n, 'axis', pick(r, [rank, -rank - 1, 2 ** 31, 2 ** 53 - 1])),
    );
  },
  (n) => m('node.attrs: a getter that throws', 'BAD_INPUT', throwingGetter(clone(n), 'attrs')),
];

const outputsFaults: Gen[] = [
  (n, r) => {
    const [name, v] = pick(r, [...NOT_INTS, ['-1', () => -1]] as [string, () => unknown][]);
    return m(`node.outputs: ${name}`, 'OUTPUT_COUNT', { ...clone(n), outputs: v() });
  },
  (n, r) => m('node.outputs: 1e8 (or 2^40)', 'TOO_LARGE', { ...clone(n), outputs: pick(r, [1e8, 2 ** 40, 65537]) }),
  (n) => {
    if (n.kind === 'Split-2')
      return m('node.outputs: a count that does not divide the axis', 'NOT_DIVISIBLE', {
        ...clone(n),
        outputs: n.b.shape[n.axis]! + 1,
      });
    return m('node.outputs: one more than the split gives', 'OUTPUT_COUNT', {
      ...clone(n),
      outputs: n.sizes.length + 1,
    });
  },
];

/** A fault of a parameter input (a host tensor the planner reads): any tensor fault keeps its code. */
function paramTensorFault(n: NodeBase, i: number, r: Rng): OptionFault {
  const t = (n.node.inputs as HostTensor[])[i]!;
  const b: Base = { dtype: t.dtype, shape: [...t.shape], axis: 0, sizes: [], host: t };
  for (;;) {
    const f: Mutation = hostFault(b, r);
    if (f.value === undefined) continue; // an omitted optional input is not a fault
    return m(
      `${i === 1 && n.kind === 'VariadicSplit' ? 'axis' : 'split'} input: ${f.what}`,
      f.code,
      withInput(n, i, f.value),
    );
  }
}

function versionFaults(n: NodeBase, r: Rng): Gen[] {
  const dim = n.b.shape[n.axis]!;
  const gpuParam =
    (i: number): Gen =>
    () =>
      m(
        'a parameter input on the GPU',
        'BAD_INPUT',
        withInput(n, i, { dtype: 'int64', shape: [1], buffer: {}, byteOffset: 0, byteLength: 8 }),
      );
  switch (n.kind) {
    case 'Split-18':
      return [
        (x) => {
          const [name, v] = pick(r, [...NOT_INTS, ['0', () => 0], ['-1', () => -1]] as [string, () => unknown][]);
          return m(`num_outputs: ${name}`, 'BAD_ATTRIBUTE', withAttr(x, 'num_outputs', v()));
        },
        (x) =>
          m('num_outputs: 2^31 or 2^40', 'TOO_LARGE', withAttr(x, 'num_outputs', pick(r, [2 ** 31, 2 ** 40, 65537]))),
        (x) => m("num_outputs and the 'split' input both", 'BAD_OPTIONS', withInput(x, 1, i64(n.sizes))),
        (x) => m("neither num_outputs nor 'split'", 'BAD_OPTIONS', withAttr(x, 'num_outputs', undefined)),
      ];
    case 'Split-13':
      return [
        (x) => m('split input: int32 (must be int64)', 'BAD_DTYPE', withInput(x, 1, int32(n.sizes))),
        gpuParam(1),
        (x) => m('split input: rank 0', 'BAD_INPUT', withInput(x, 1, i64([dim], []))),
        (x) => m('split input: rank 2', 'BAD_INPUT', withInput(x, 1, i64(n.sizes, [1, n.sizes.length]))),
        (x) => m('split input: a negative length', 'BAD_SIZE', undeclared(withInput(x, 1, i64([dim + 1, -1])))),
        (x) => m('split input: a sum one too large', 'SIZE_SUM', undeclared(withInput(x, 1, i64([...n.sizes, 1])))),
        (x) => m('split input: empty', 'BAD_SIZE', withInput(x, 1, i64([]))),
        (x) => m('split input: 65537 values', 'TOO_LARGE', withInput(x, 1, i64(new Array(65537).fill(0)))),
        (x) =>
          m(
            'split input: a value beyond 2^53',
            'BAD_SIZE',
            withInput(x, 1, { dtype: 'int64', shape: [1], data: BigInt64Array.of(2n ** 62n) }),
          ),
        (x) => paramTensorFault(x, 1, r),
      ];
    case 'Split-11':
      return [
        (x) => {
          const [name, v] = pick(r, [
            ['null', () => null],
            ['a number', () => 3],
            ['a string', () => '3'],
            ['an object', () => ({})],
          ] as [string, () => unknown][]);
          return m(`split attribute: ${name}`, 'BAD_ATTRIBUTE', withAttr(x, 'split', v()));
        },
        (x) =>
          m(
            'split attribute: a string entry',
            'BAD_ATTRIBUTE',
            withAttr(x, 'split', [...n.sizes.slice(1), String(n.sizes[0])]),
          ),
        (x) => m('split attribute: a negative entry', 'BAD_SIZE', undeclared(withAttr(x, 'split', [dim + 1, -1]))),
        (x) => m('split attribute: a fractional entry', 'BAD_SIZE', undeclared(withAttr(x, 'split', [dim - 0.5, 0.5]))),
        (x) => m('split attribute: a sum one too large', 'SIZE_SUM', undeclared(withAttr(x, 'split', [...n.sizes, 1]))),
        (x) => m('split attribute: empty', 'BAD_SIZE', withAttr(x, 'split', [])),
        (x) =>
          m('split attribute: a sparse array of length 2^31', 'TOO_LARGE', withAttr(x, 'split', new Array(2 ** 31))),
        (x) =>
          m('split attribute: a Proxy whose get throws', 'BAD_INPUT', withAttr(x, 'split', throwingGet([...n.sizes]))),
        (x) => m("split attribute and a 'split' input", 'BAD_INPUT', withInput(x, 1, i64(n.sizes))),
      ];
    case 'Split-2':
      return [
        (x) => m('no split and no declared outputs', 'OUTPUT_COUNT', { ...clone(x), outputs: undefined }),
        (x) => m('outputs: 0', 'OUTPUT_COUNT', { ...clone(x), outputs: 0 }),
      ];
    case 'VariadicSplit':
      return [
        (x) =>
          m(
            'axis input: float32',
            'BAD_DTYPE',
            withInput(x, 1, { dtype: 'float32', shape: [], data: Float32Array.of(n.axis) }),
          ),
        (x) => m('axis input: shape [2]', 'BAD_INPUT', withInput(x, 1, int32([n.axis, n.axis]))),
        (x) => m('axis input: rank 2', 'BAD_INPUT', withInput(x, 1, int32([n.axis], [1, 1]))),
        (x) =>
          m(
            'axis input: out of range',
            'AXIS_RANGE',
            withInput(x, 1, int32([pick(r, [n.b.shape.length, -n.b.shape.length - 1, 2 ** 31 - 1])], [])),
          ),
        (x) => m('axis input: missing', 'BAD_INPUT', withInput(x, 1, undefined)),
        (x) =>
          m('split_lengths: missing', 'BAD_INPUT', { ...clone(x), inputs: (x.node.inputs as unknown[]).slice(0, 2) }),
        (x) => m('split_lengths: two -1', 'BAD_SIZE', withInput(x, 2, i64([-1, -1, ...n.sizes]))),
        (x) => m('split_lengths: -2', 'BAD_SIZE', withInput(x, 2, i64([-2, dim + 2]))),
        (x) => m('split_lengths: the others already exceed the axis', 'SIZE_SUM', withInput(x, 2, i64([dim + 1, -1]))),
        (x) => m('split_lengths: a sum one too large', 'SIZE_SUM', undeclared(withInput(x, 2, i64([...n.sizes, 1])))),
        (x) => m('split_lengths: empty', 'BAD_SIZE', withInput(x, 2, i64([]))),
        (x) =>
          m(
            'split_lengths: float32',
            'BAD_DTYPE',
            withInput(x, 2, { dtype: 'float32', shape: [1], data: Float32Array.of(dim) }),
          ),
        gpuParam(2),
        (x) => paramTensorFault(x, 1 + int(r, 0, 1), r),
      ];
    default:
      return [
        (x) => {
          const [name, v] = pick(r, [
            ['2', () => 2],
            ['-1', () => -1],
            ["a string '0'", () => '0'],
            ['null', () => null],
            ['0.5', () => 0.5],
          ] as [string, () => unknown][]);
          return m(`keepdims: ${name}`, 'BAD_ATTRIBUTE', withAttr(x, 'keepdims', v()));
        },
        (x) =>
          m(
            'split input: int8 (type I is int32 or int64)',
            'BAD_DTYPE',
            withInput(x, 1, { dtype: 'int8', shape: [], data: Int8Array.of(1) }),
          ),
        (x) => m('split input: rank 2', 'BAD_INPUT', withInput(x, 1, i64([1], [1, 1]))),
        (x) => m('split input: a scalar 0', 'BAD_SIZE', withInput(x, 1, i64([0], []))),
        (x) => m('split input: a scalar -1', 'BAD_SIZE', withInput(x, 1, i64([-1], []))),
        (x) => m('split input: lengths one too many', 'SIZE_SUM', undeclared(withInput(x, 1, i64([...n.sizes, 1])))),
        (x) => m('split input: empty, for a non-empty axis', 'SIZE_SUM', withInput(x, 1, i64([]))),
        gpuParam(1),
        (x) => (x.kind === 'SplitToSequence-ones' ? undefined : paramTensorFault(x, 1, r)),
      ];
  }
}

/** One fault of a valid node. `dataFault` makes a fault of the data input (host or GPU). */
export function nodeFault(n: NodeBase, r: Rng, dataFault: () => Mutation): OptionFault {
  const gens: Gen[] = [
    ...nodeObjectFaults,
    ...inputsFaults,
    ...attrsFaults,
    ...outputsFaults,
    ...versionFaults(n, r),
    ...versionFaults(n, r),
    () => {
      const f = dataFault();
      return { ...m(`data input: ${f.what}`, f.code, withInput(n, 0, f.value)), gpu: f.gpu };
    },
    () => {
      const f = dataFault();
      return { ...m(`data input: ${f.what}`, f.code, withInput(n, 0, f.value)), gpu: f.gpu };
    },
  ];
  for (;;) {
    const f = pick(r, gens)(n, r);
    if (f) return f;
  }
}

/** A valid node in a hostile form: it must give the same outputs. */
export function nodeTwist(n: NodeBase, r: Rng): { what: string; value: unknown } {
  const twists: (() => { what: string; value: unknown })[] = [
    () => ({
      what: 'a frozen node with frozen inputs and attrs',
      value: Object.freeze({
        ...clone(n),
        inputs: Object.freeze([...(n.node.inputs as unknown[])]),
        attrs: Object.freeze({ ...(n.node.attrs as object) }),
      }),
    }),
    () => ({
      what: 'a null-prototype node and attrs',
      value: nullProto({ ...clone(n), attrs: nullProto({ ...(n.node.attrs as object) }) }),
    }),
    () => ({ what: 'a Proxy node that forwards every read', value: honestProxy(clone(n)) }),
    () => ({
      what: 'an inputs getter that turns bad after the first read',
      value: changingGetter(clone(n), 'inputs', [n.node.inputs, null]),
    }),
    () => ({
      what: 'an attrs getter that turns bad after the first read',
      value: changingGetter(clone(n), 'attrs', [n.node.attrs, 5]),
    }),
    () => ({
      what: 'an undefined attribute (ignored)',
      value: withAttr(n, n.kind === 'Split-18' ? 'split' : 'num_outputs', undefined),
    }),
    () => ({
      what: 'trailing omitted optional inputs',
      value: { ...clone(n), inputs: [...(n.node.inputs as unknown[]), undefined, undefined] },
    }),
  ];
  return pick(r, twists)();
}
