// Split options ({ axis, sizes | parts, layout, alias }): a valid set for a base tensor, one-fault
// mutations of it with the code each must fail with, and valid options in hostile forms.

import type { SplitError, SplitErrorCode } from '../../src/index.js';
import { int } from '../helpers/cases.js';
import { type Base, type Mutation, type Rng, pick } from './tensors.js';
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

export type Opts = Record<PropertyKey, unknown>;

/** Valid options for the base: its sizes, or a part count (uneven and empty tails allowed). */
export function validOptions(b: Base, r: Rng): { options: Opts; sizes: number[] } {
  const dim = b.shape[b.axis]!;
  const axis = r() < 0.3 ? b.axis - b.shape.length : b.axis;
  if (r() < 0.5) return { options: { axis, sizes: [...b.sizes] }, sizes: b.sizes };
  const parts = int(r, 1, dim + 2);
  return { options: { axis, parts }, sizes: chunks(dim, parts) };
}

/** The README's rule for parts, written here independently: chunks of ceil(dim / n), clamped to what remains. */
export function chunks(dim: number, n: number): number[] {
  const c = Math.ceil(dim / n);
  const out: number[] = [];
  let left = dim;
  for (let i = 0; i < n; i++) {
    out.push(Math.min(c, left));
    left -= out[i]!;
  }
  return out;
}

export const TYPO_KEYS = [
  'axsi',
  'Axis',
  'part',
  'Parts',
  'size',
  'sizes ',
  'layot',
  'alais',
  'split',
  'num_outputs',
  'lenghts',
];
export const JUNK_KEYS = [
  'foo',
  'constructor',
  'toString',
  'hasOwnProperty',
  '',
  ' ',
  '0',
  'then',
  'prototype',
  'valueOf',
];

/** An error for an unknown key must name it: in its message and as its subject. */
export function namesKey(key: string): (e: SplitError) => string | undefined {
  return (e) =>
    e.message.includes(`'${key}'`) && e.subject?.name === key
      ? undefined
      : `does not name the key '${key}' (message: ${e.message.slice(0, 120)}; subject ${JSON.stringify(e.subject)})`;
}

export interface OptionFault extends Mutation {
  readonly check?: (e: SplitError) => string | undefined;
}

const m = (what: string, code: SplitErrorCode, value: unknown, check?: OptionFault['check']): OptionFault => ({
  what,
  code,
  value,
  check,
});

/** An unknown key added to valid options (shared by every options object Cleave takes). */
export function unknownKey(o: Opts, r: Rng, where: string, code: SplitErrorCode = 'BAD_OPTIONS'): OptionFault {
  const kind = r();
  if (kind < 0.1) return m(`${where}: an unknown Symbol key`, code, { ...o, [Symbol('axis')]: 1 });
  if (kind < 0.2) {
    const x = { ...o };
    Object.defineProperty(x, '__proto__', { value: 1, enumerable: true });
    return m(`${where}: an own '__proto__' key`, code, x, namesKey('__proto__'));
  }
  if (kind < 0.3) {
    const x = { ...o };
    Object.defineProperty(x, 'axsi', { value: 1, enumerable: false });
    return m(`${where}: a non-enumerable unknown key`, code, x, namesKey('axsi'));
  }
  const key = pick(r, kind < 0.7 ? TYPO_KEYS : JUNK_KEYS);
  return m(`${where}: an unknown key${kind < 0.7 ? ' (a near miss)' : ''}`, code, { ...o, [key]: 1 }, namesKey(key));
}

const AXIS_TYPES: readonly (readonly [string, () => unknown])[] = [
  ['null', () => null],
  ["a string '0'", () => '0'],
  ['0.5', () => 0.5],
  ['NaN', () => NaN],
  ['Infinity', () => Infinity],
  ['a Symbol', () => Symbol('axis')],
  ['an object', () => ({})],
  ['an array [0]', () => [0]],
  ['true', () => true],
  ['a bigint', () => 0n],
  ['a Number object', () => new Number(0)],
  ['a null-prototype object', () => Object.create(null)],
  ['2^53', () => 2 ** 53],
];
const BAD_PARTS: readonly (readonly [string, () => unknown])[] = [
  ['0', () => 0],
  ['-1', () => -1],
  ['-0', () => -0],
  ['1.5', () => 1.5],
  ['NaN', () => NaN],
  ['Infinity', () => Infinity],
  ["a string '2'", () => '2'],
  ['a bigint', () => 2n],
  ['null', () => null],
  ['true', () => true],
  ['a Symbol', () => Symbol('p')],
  ['an object', () => ({})],
  ['an array [2]', () => [2]],
  ['a Number object', () => new Number(2)],
  ['2^53', () => 2 ** 53],
  ['a null-prototype object', () => Object.create(null)],
];
const HUGE_PARTS = [65537, 2 ** 31, 2 ** 40, 2 ** 53 - 1];
const BAD_LENGTHS: readonly (readonly [string, () => unknown])[] = [
  ['-1', () => -1],
  ['1.5', () => 1.5],
  ['NaN', () => NaN],
  ['Infinity', () => Infinity],
  ["a string '2'", () => '2'],
  ['a bigint', () => 2n],
  ['null', () => null],
  ['undefined', () => undefined],
  ['a Symbol', () => Symbol('s')],
  ['an object', () => ({})],
  ['an array [1]', () => [1]],
  ['true', () => true],
  ['2^53', () => 2 ** 53],
  ['a null-prototype object', () => Object.create(null)],
  ['a Number object', () => new Number(1)],
];
const NOT_ARRAYS: readonly (readonly [string, () => unknown])[] = [
  ['null', () => null],
  ['a number', () => 6],
  ["a string '6'", () => '6'],
  ['an array-like object', () => ({ length: 1, 0: 6 })],
  ['an Int32Array', () => Int32Array.of(6)],
  ['a Symbol', () => Symbol('sizes')],
  ['an object', () => ({})],
  ['a Set', () => new Set([6])],
  ['true', () => true],
];

type Gen = (o: Opts, b: Base, r: Rng) => OptionFault | undefined;

const withSizes = (o: Opts, sizes: unknown): Opts => {
  const x: Opts = { ...o, sizes };
  delete x.parts;
  return x;
};
const withParts = (o: Opts, parts: unknown): Opts => {
  const x: Opts = { ...o, parts };
  delete x.sizes;
  return x;
};

const wholeFaults: Gen[] = [
  (_o, _b, r) => {
    const [name, v] = pick(r, JUNK);
    return m(`options: ${name}`, 'BAD_OPTIONS', v());
  },
  () => m('options: an empty array', 'BAD_OPTIONS', []),
  (o) => m('options: an array holding the options', 'BAD_OPTIONS', [o]),
  (o) => m('options: inherited from a prototype only', 'BAD_OPTIONS', Object.create(o)),
  (o) => m('options: a Proxy whose every trap throws', 'BAD_INPUT', throwingProxy(o)),
  () => m('options: a revoked Proxy', 'BAD_INPUT', revokedProxy()),
  (o, _b, r) => unknownKey(o, r, 'options'),
  (o, _b, r) => unknownKey(o, r, 'options'),
  (o, b) => m('options: both sizes and parts', 'BAD_OPTIONS', { ...o, sizes: [...b.sizes], parts: 1 }),
  (o) => m('options: neither sizes nor parts', 'BAD_OPTIONS', withParts(o, undefined)),
];

const axisFaults: Gen[] = [
  (o, _b, r) => {
    const [name, v] = pick(r, AXIS_TYPES);
    return m(`options.axis: ${name}`, 'AXIS_RANGE', { ...o, axis: v() });
  },
  (o, b, r) => {
    const rank = b.shape.length;
    return m('options.axis: out of range', 'AXIS_RANGE', {
      ...o,
      axis: pick(r, [rank, rank + 1, -rank - 1, 2 ** 31, -(2 ** 31), 2 ** 53 - 1]),
    });
  },
  (o) => m('options.axis: a getter that throws', 'BAD_INPUT', throwingGetter({ ...o }, 'axis')),
  (o) => m('options.axis: a getter whose first read is bad', 'AXIS_RANGE', changingGetter({ ...o }, 'axis', [null, 0])),
];

const partsFaults: Gen[] = [
  (o, _b, r) => {
    const [name, v] = pick(r, BAD_PARTS);
    return m(`options.parts: ${name}`, 'BAD_PARTS', withParts(o, v()));
  },
  (o, _b, r) => m('options.parts: more than 65536', 'TOO_LARGE', withParts(o, pick(r, HUGE_PARTS))),
  (o) => m('options.parts: a getter that throws', 'BAD_INPUT', throwingGetter(withParts(o, 1), 'parts')),
  (o) =>
    m('options.parts: a getter whose first read is bad', 'BAD_PARTS', changingGetter(withParts(o, 1), 'parts', [0, 1])),
];

const sizesFaults: Gen[] = [
  (o, _b, r) => {
    const [name, v] = pick(r, NOT_ARRAYS);
    return m(`options.sizes: ${name}`, 'BAD_SIZE', withSizes(o, v()));
  },
  (o, b, r) => {
    const [name, v] = pick(r, BAD_LENGTHS);
    const sizes: unknown[] = [...b.sizes];
    sizes[int(r, 0, sizes.length - 1)] = v();
    return m(`options.sizes: an entry that is ${name}`, 'BAD_SIZE', withSizes(o, sizes));
  },
  (o, b, r) => {
    const sizes: unknown[] = [...b.sizes];
    delete sizes[int(r, 0, sizes.length - 1)];
    return m('options.sizes: a sparse array (a hole)', 'BAD_SIZE', withSizes(o, sizes));
  },
  (o, b, r) => {
    const sizes = [...b.sizes];
    sizes[int(r, 0, sizes.length - 1)]! += 1;
    return m('options.sizes: a sum one too large', 'SIZE_SUM', withSizes(o, sizes));
  },
  (o, b) => m('options.sizes: one length too many', 'SIZE_SUM', withSizes(o, [...b.sizes, 1])),
  (o) => m('options.sizes: empty, for a non-empty axis', 'BAD_SIZE', withSizes(o, [])),
  (o) => m('options.sizes: 65537 lengths', 'TOO_LARGE', withSizes(o, new Array(65537).fill(0))),
  (o) => m('options.sizes: a sparse array of length 2^31', 'TOO_LARGE', withSizes(o, new Array(2 ** 31))),
  (o, b) =>
    m('options.sizes: a Proxy saying length 2^53 - 1', 'TOO_LARGE', withSizes(o, lyingLength(b.sizes, 2 ** 53 - 1))),
  (o, b) =>
    m(
      'options.sizes: a Proxy saying one length more than it has',
      'BAD_SIZE',
      withSizes(o, lyingLength(b.sizes, b.sizes.length + 1)),
    ),
  (o, b) => m('options.sizes: a Proxy whose get throws', 'BAD_INPUT', withSizes(o, throwingGet([...b.sizes]))),
  (o) => m('options.sizes: a revoked Proxy', 'BAD_INPUT', withSizes(o, revokedProxy())),
  (o, b) => m('options.sizes: a getter that throws', 'BAD_INPUT', throwingGetter(withSizes(o, b.sizes), 'sizes')),
  (o, b) =>
    m(
      'options.sizes: a getter whose first read is bad',
      'BAD_SIZE',
      changingGetter(withSizes(o, b.sizes), 'sizes', [[-1], b.sizes]),
    ),
];

function placementFaults(where: 'host' | 'gpu'): Gen[] {
  const bad: readonly (readonly [string, () => unknown])[] = [
    ["'Shared'", () => 'Shared'],
    ["'SEPARATE'", () => 'SEPARATE'],
    ['an empty string', () => ''],
    ['null', () => null],
    ['0', () => 0],
    ['a Symbol', () => Symbol('layout')],
    ['a String object', () => new String('shared')],
  ];
  const badAlias: readonly (readonly [string, () => unknown])[] = [
    ["'all'", () => 'all'],
    ['null', () => null],
    ['false', () => false],
    ["'Owned'", () => 'Owned'],
    ['a Symbol', () => Symbol('alias')],
  ];
  const gens: Gen[] = [
    (o, _b, r) => {
      const [name, v] = pick(r, bad);
      return m(`options.layout: ${name}`, 'BAD_OPTIONS', { ...o, layout: v() });
    },
    (o, _b, r) => {
      const [name, v] = pick(r, badAlias);
      return m(`options.alias: ${name}`, 'BAD_OPTIONS', { ...o, alias: v() });
    },
  ];
  if (where === 'host') {
    gens.push(
      (o, _b, r) =>
        m('options.layout: given for a host input', 'BAD_OPTIONS', { ...o, layout: pick(r, ['shared', 'separate']) }),
      (o, _b, r) =>
        m('options.alias: given for a host input', 'BAD_OPTIONS', { ...o, alias: pick(r, ['owned', 'any', 'none']) }),
    );
  }
  return gens;
}

/** One fault of valid split options (`where`: the input is a host or a GPU tensor). */
export function optionFault(o: Opts, b: Base, r: Rng, where: 'host' | 'gpu'): OptionFault {
  const gens = [...wholeFaults, ...axisFaults, ...partsFaults, ...sizesFaults, ...placementFaults(where)];
  for (;;) {
    const f = pick(r, gens)(o, b, r);
    if (f) return f;
  }
}

/** Valid options in a hostile form (they must give the same split). */
export function optionTwist(o: Opts, r: Rng): { what: string; value: unknown } {
  const twists: (() => { what: string; value: unknown })[] = [
    () => ({ what: 'frozen options', value: Object.freeze({ ...o }) }),
    () => ({ what: 'null-prototype options', value: nullProto({ ...o }) }),
    () => ({ what: 'a Proxy that forwards every read', value: honestProxy({ ...o }) }),
    () => ({
      what: 'junk keys on the prototype only',
      value: Object.assign(Object.create({ axsi: 1, layout: 'bogus' }), o),
    }),
    () => ({
      what: 'an axis getter that turns bad after the first read',
      value: changingGetter({ ...o }, 'axis', [o.axis, null]),
    }),
    () => {
      const k = 'sizes' in o ? 'sizes' : 'parts';
      return {
        what: `a '${k}' getter that turns bad after the first read`,
        value: changingGetter({ ...o }, k, [o[k], Symbol('later')]),
      };
    },
    () => {
      if (!('sizes' in o))
        return {
          what: 'a non-enumerable parts key',
          value: Object.defineProperty({ axis: o.axis }, 'parts', { value: o.parts, enumerable: false }),
        };
      const sizes = Object.freeze((o.sizes as number[]).map((s) => (s === 0 ? -0 : s)));
      return { what: 'frozen sizes with -0 for 0', value: { ...o, sizes } };
    },
  ];
  return pick(r, twists)();
}
