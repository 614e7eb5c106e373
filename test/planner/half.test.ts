// float16 and bfloat16 to and from numbers (src/half.ts) against the test's own reference, which
// shares nothing with it on purpose: a 16-bit pattern is decoded by writing a float64's bits, and a
// number is rounded by searching the sorted finite values for its neighbours and comparing it with
// their midpoint (ties to the even pattern), past the largest finite value with 2^(emax + 1) as the
// next one (IEEE's overflow to infinity). Every pattern, every midpoint and the doubles either side
// of it, and seeded random doubles; for bfloat16 also random float32s against the integer rounding
// of a float32's bits that ML frameworks use.
import { describe, expect, test } from 'vitest';
import {
  bfloat16ToNumber,
  bfloat16sFrom,
  halfToNumber,
  halvesFrom,
  numberToBfloat16,
  numberToHalf,
} from '../../src/index.js';
import { rng } from '../helpers/cases.js';

interface Format {
  readonly name: string;
  readonly exp: number;
  readonly frac: number;
  readonly toBits: (x: number) => number;
  readonly toNumber: (bits: number) => number;
  readonly fromNumbers: (xs: Iterable<number> | ArrayLike<number>) => Uint16Array;
}

const FORMATS: readonly Format[] = [
  { name: 'float16', exp: 5, frac: 10, toBits: numberToHalf, toNumber: halfToNumber, fromNumbers: halvesFrom },
  {
    name: 'bfloat16',
    exp: 8,
    frac: 7,
    toBits: numberToBfloat16,
    toNumber: bfloat16ToNumber,
    fromNumbers: bfloat16sFrom,
  },
];

const f64 = new DataView(new ArrayBuffer(8));

/** A float64 from its sign, unbiased exponent and the top 20 fraction bits (the rest zero). */
function double(sign: number, e: number, fracHigh20: number): number {
  f64.setUint32(0, ((sign << 31) | ((e + 1023) << 20) | fracHigh20) >>> 0);
  f64.setUint32(4, 0);
  return f64.getFloat64(0);
}

/** The reference decoder: a 16-bit pattern's value, written as a float64's bits. */
function decode(f: Format, bits: number): number {
  const bias = 2 ** (f.exp - 1) - 1;
  const sign = (bits >> 15) & 1;
  const e = (bits >> f.frac) & (2 ** f.exp - 1);
  let m = bits & (2 ** f.frac - 1);
  if (e === 2 ** f.exp - 1) return m ? NaN : sign ? -Infinity : Infinity;
  if (e === 0 && m === 0) return sign ? -0 : 0;
  let unbiased = e - bias;
  if (e === 0) {
    // A subnormal: normalize, so that its leading 1 becomes the implicit bit.
    unbiased = 1 - bias;
    while (m < 2 ** f.frac) {
      m *= 2;
      unbiased--;
    }
    m -= 2 ** f.frac;
  }
  return double(sign, unbiased, m * 2 ** (20 - f.frac));
}

/** The largest finite pattern, and the value after it (2^(emax + 1)), where rounding goes to infinity. */
const maxFinite = (f: Format) => ((2 ** f.exp - 1) << f.frac) - 1;
const beyond = (f: Format) => 2 ** (2 ** (f.exp - 1));

/** The reference encoder: the nearest pattern by search, ties to the even one; NaN as any NaN pattern. */
function encode(f: Format, x: number): number {
  if (Number.isNaN(x)) return -1;
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  let lo = 0;
  let hi = maxFinite(f);
  while (lo < hi) {
    const m = Math.ceil((lo + hi) / 2);
    if (decode(f, m) <= a) lo = m;
    else hi = m - 1;
  }
  const below = decode(f, lo);
  if (below === a) return sign | lo;
  const above = lo === maxFinite(f) ? beyond(f) : decode(f, lo + 1);
  const mid = (below + above) / 2; // exact: both have few significant bits
  const up = a > mid || (a === mid && lo % 2 === 1);
  return sign | (up ? lo + 1 : lo);
}

const isNaNBits = (f: Format, bits: number) =>
  ((bits >> f.frac) & (2 ** f.exp - 1)) === 2 ** f.exp - 1 && (bits & (2 ** f.frac - 1)) !== 0;

/** The float64s next to x (x finite and not 0). */
function neighbours(x: number): [number, number] {
  f64.setFloat64(0, x);
  const hi = f64.getUint32(0);
  const lo = f64.getUint32(4);
  const step = (d: number) => {
    const l = lo + d;
    f64.setUint32(0, hi + (l < 0 ? -1 : l > 0xffffffff ? 1 : 0));
    f64.setUint32(4, l >>> 0);
    return f64.getFloat64(0);
  };
  const [a, b] = [step(-1), step(1)];
  return a < b ? [a, b] : [b, a];
}

/** Every mismatch of `toBits` with the reference over `xs`, as text (at most 5). */
function mismatches(f: Format, xs: Iterable<number>): string[] {
  const out: string[] = [];
  for (const x of xs) {
    const got = f.toBits(x);
    const want = encode(f, x);
    const ok = want < 0 ? isNaNBits(f, got) : got === want;
    if (!ok && out.push(`${x}: got 0x${got.toString(16)}, want 0x${want.toString(16)}`) >= 5) break;
  }
  return out;
}

describe.each(FORMATS)('$name', (f) => {
  test('every one of the 65536 patterns: decoded as the reference decodes it, and encoded back to itself', () => {
    const wrong: string[] = [];
    let nans = 0;
    for (let h = 0; h < 0x10000; h++) {
      const v = f.toNumber(h);
      const ref = decode(f, h);
      if (!Object.is(v, ref)) wrong.push(`0x${h.toString(16)} reads ${v}, want ${ref}`);
      if (Number.isNaN(ref)) {
        nans++;
        if (!isNaNBits(f, f.toBits(v))) wrong.push(`0x${h.toString(16)}: NaN encodes as a number`);
      } else if (f.toBits(v) !== h) wrong.push(`0x${h.toString(16)} encodes back as 0x${f.toBits(v).toString(16)}`);
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(nans).toBe(2 * (2 ** f.frac - 1));
  });

  test('every midpoint between neighbours ties to even; the doubles either side round to the nearer one', () => {
    const xs: number[] = [];
    for (let h = 0; h <= maxFinite(f); h++) {
      const mid = (decode(f, h) + (h === maxFinite(f) ? beyond(f) : decode(f, h + 1))) / 2;
      for (const x of [mid, ...neighbours(mid)]) xs.push(x, -x);
    }
    expect(xs.length).toBe(6 * (maxFinite(f) + 1));
    expect(mismatches(f, xs)).toEqual([]);
    // The reference itself: a midpoint goes to the even pattern, its neighbours do not tie.
    expect(encode(f, (decode(f, 1) + decode(f, 2)) / 2)).toBe(2);
    expect(encode(f, (decode(f, 2) + decode(f, 3)) / 2)).toBe(2);
  });

  test('edges: zeros, infinities, NaN, overflow, the subnormal floor, doubles far out of range', () => {
    const min = decode(f, 1); // the smallest subnormal
    const cases: [number, number][] = [
      [0, 0],
      [-0, 0x8000],
      [Infinity, maxFinite(f) + 1],
      [-Infinity, 0x8000 | (maxFinite(f) + 1)],
      [min / 2, 0], // a tie between 0 and the smallest subnormal: 0 is even
      [neighbours(min / 2)[1], 1],
      [-min / 2, 0x8000],
      [(min * 3) / 2, 2], // a tie between patterns 1 and 2
      [decode(f, maxFinite(f)), maxFinite(f)],
      [(decode(f, maxFinite(f)) + beyond(f)) / 2, maxFinite(f) + 1], // the largest value's pattern is odd
      [neighbours((decode(f, maxFinite(f)) + beyond(f)) / 2)[0], maxFinite(f)],
      [Number.MIN_VALUE, 0],
      [-Number.MIN_VALUE, 0x8000],
      [Number.MAX_VALUE, maxFinite(f) + 1],
      [1, (2 ** (f.exp - 1) - 1) << f.frac],
    ];
    expect(cases.map(([x]) => f.toBits(x))).toEqual(cases.map(([, bits]) => bits));
    expect(cases.map(([x]) => encode(f, x))).toEqual(cases.map(([, bits]) => bits));
    expect(isNaNBits(f, f.toBits(NaN))).toBe(true);
    expect(Object.is(f.toNumber(0x8000), -0)).toBe(true);
  });

  test('every power of two in range and the doubles either side of it (where the exponent of a value changes)', () => {
    const top = 2 ** (f.exp - 1);
    const xs = Array.from({ length: 2 * top + f.frac + 4 }, (_, i) => 2 ** (i - top - f.frac - 2));
    expect(
      mismatches(
        f,
        xs.flatMap((x) => [x, ...neighbours(x)]),
      ),
    ).toEqual([]);
  });

  test('100000 random doubles across and beyond the range', () => {
    const r = rng(f.exp);
    const top = 2 ** (f.exp - 1);
    const xs = Array.from({ length: 100_000 }, () => {
      const e = Math.floor(r() * (4 * top + 40)) - 2 * top - 20; // from far below the subnormals to past emax
      return (r() < 0.5 ? -1 : 1) * (1 + r()) * 2 ** e;
    });
    expect(mismatches(f, xs)).toEqual([]);
  });

  test('arrays of numbers: the same bits as one number at a time, from an array or any iterable', () => {
    const xs = [0.1, -2.5, 1e-7, 70000, NaN, -0, 3];
    const bits = f.fromNumbers(xs);
    expect(bits).toBeInstanceOf(Uint16Array);
    expect([...bits]).toEqual(xs.map((x) => f.toBits(x)));
    expect([...f.fromNumbers(xs.values())]).toEqual([...bits]);
    expect([...f.fromNumbers(Float64Array.from(xs))]).toEqual([...bits]);
  });
});

test('bfloat16: random float32s round as the integer rule on their bits does', () => {
  const r = rng(7);
  const f32 = new Float32Array(1);
  const u32 = new Uint32Array(f32.buffer);
  const wrong: string[] = [];
  for (let i = 0; i < 200_000 && wrong.length < 5; i++) {
    u32[0] = Math.floor(r() * 2 ** 32);
    const x = f32[0]!;
    if (Number.isNaN(x)) continue;
    const u = u32[0]!;
    const want = ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff;
    if (numberToBfloat16(x) !== want) wrong.push(`${x} (0x${u.toString(16)}): 0x${numberToBfloat16(x).toString(16)}`);
  }
  expect(wrong).toEqual([]);
});
