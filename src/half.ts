// The 16-bit floats, float16 (IEEE binary16) and bfloat16, whose host data is raw bits in a Uint16Array: one value
// to and from its bits, and numbers to bits. A number rounds to the nearest 16-bit value, ties to even, straight
// from its 64 bits: never through float32, which would round twice.

/** A binary float format: its exponent and fraction widths in bits. */
type Format = { readonly exp: number; readonly frac: number };

/** Scratch space for reading a float64's exponent field. */
const F64 = new DataView(new ArrayBuffer(8));

const HALF: Format = { exp: 5, frac: 10 };
const BFLOAT16: Format = { exp: 8, frac: 7 };

/** `q` rounded to an integer, ties to even. */
function roundEven(q: number): number {
  const f = Math.floor(q);
  const r = q - f; // exact: q and f lie within 1 of each other
  return r > 0.5 || (r === 0.5 && f % 2 === 1) ? f + 1 : f;
}

function toBits(x: number, f: Format): number {
  const bias = (1 << (f.exp - 1)) - 1;
  const inf = ((1 << f.exp) - 1) << f.frac;
  if (Number.isNaN(x)) return inf | (1 << (f.frac - 1));
  const sign = x < 0 || Object.is(x, -0) ? 1 << (f.exp + f.frac) : 0;
  const a = Math.abs(x);
  if (a >= 2 ** (bias + 1)) return sign | inf;
  // e: the exponent of a's leading bit, read from its float64 bits (exact, unlike log2), no lower than the
  // subnormals' 1 - bias.
  F64.setFloat64(0, a);
  const e = Math.max((F64.getUint16(0) >> 4) - 1023, 1 - bias);
  // m: a in units of the last fraction bit at exponent e (scaling by a power of two is exact), rounded. A normal
  // value's m has its leading bit at 2^frac, so adding (e + bias - 1) << frac writes its exponent; a subnormal's has
  // e + bias - 1 = 0. A carry from rounding (m = 2^(frac + 1)) moves to the next exponent, or to infinity.
  const m = roundEven(a * 2 ** (f.frac - e));
  return sign | (((e + bias - 1) << f.frac) + m);
}

function fromBits(bits: number, f: Format): number {
  const bias = (1 << (f.exp - 1)) - 1;
  const top = (1 << f.exp) - 1;
  const e = (bits >> f.frac) & top;
  const m = bits & ((1 << f.frac) - 1);
  const sign = bits & (1 << (f.exp + f.frac)) ? -1 : 1;
  if (e === top) return m ? NaN : sign * Infinity;
  return sign * (e ? m + (1 << f.frac) : m) * 2 ** (Math.max(e, 1) - bias - f.frac);
}

/**
 * Reads a float16 value: float16 host data in a `Uint16Array` is raw IEEE binary16 bits.
 *
 * @param h - The 16 bits, as an integer (one entry of float16 host data).
 * @returns The value they encode (NaN, infinities and -0 included).
 * @example
 * ```ts
 * import { halfToNumber } from 'cleave-gpu';
 *
 * console.log(halfToNumber(0x3c00), halfToNumber(0xc000)); // 1 -2
 * ```
 */
export function halfToNumber(h: number): number {
  return fromBits(h, HALF);
}

/**
 * The float16 bits of a number: the nearest float16 value, ties to even, with subnormals; past 65504 (from 65520 on)
 * it rounds to infinity, and NaN gives the quiet NaN 0x7e00. {@link halfToNumber} reads the bits back.
 *
 * @param x - Any number.
 * @returns The IEEE binary16 bits, an integer in [0, 0xffff].
 * @example
 * ```ts
 * import { numberToHalf } from 'cleave-gpu';
 *
 * console.log(numberToHalf(1).toString(16), numberToHalf(-2).toString(16)); // 3c00 c000
 * ```
 */
export function numberToHalf(x: number): number {
  return toBits(x, HALF);
}

/**
 * Reads a bfloat16 value: bfloat16 host data is raw bits, the upper half of a float32's.
 *
 * @param b - The 16 bits, as an integer (one entry of bfloat16 host data).
 * @returns The value they encode (NaN, infinities and -0 included).
 * @example
 * ```ts
 * import { bfloat16ToNumber } from 'cleave-gpu';
 *
 * console.log(bfloat16ToNumber(0x3f80), bfloat16ToNumber(0xc040)); // 1 -3
 * ```
 */
export function bfloat16ToNumber(b: number): number {
  return fromBits(b, BFLOAT16);
}

/**
 * The bfloat16 bits of a number: the nearest bfloat16 value, ties to even, with subnormals; past the largest finite
 * value it rounds to infinity, and NaN gives the quiet NaN 0x7fc0. Rounded once, from the number's 64 bits.
 * {@link bfloat16ToNumber} reads the bits back.
 *
 * @param x - Any number.
 * @returns The bfloat16 bits, an integer in [0, 0xffff].
 * @example
 * ```ts
 * import { numberToBfloat16 } from 'cleave-gpu';
 *
 * console.log(numberToBfloat16(1).toString(16), numberToBfloat16(-3).toString(16)); // 3f80 c040
 * ```
 */
export function numberToBfloat16(x: number): number {
  return toBits(x, BFLOAT16);
}

/**
 * Numbers as float16 host data: each one's {@link numberToHalf} bits. Where the runtime has `Float16Array`,
 * `new Float16Array(numbers)` is float16 host data too; a polyfill's `Float16Array` is no typed array, and passes
 * through this: `halvesFrom(polyfilled)`.
 *
 * @param numbers - The values, in order.
 * @returns Their float16 bits.
 * @example
 * ```ts
 * import { halfToNumber, halvesFrom, tensor } from 'cleave-gpu';
 *
 * const x = tensor('float16', halvesFrom([0.1, 1, 65504, 1e6]), [4]);
 * console.log(Array.from(x.data, halfToNumber)); // [0.0999755859375, 1, 65504, Infinity]
 * ```
 */
export function halvesFrom(numbers: Iterable<number> | ArrayLike<number>): Uint16Array {
  return Uint16Array.from(numbers as ArrayLike<number>, (x) => numberToHalf(x));
}

/**
 * Numbers as bfloat16 host data: each one's {@link numberToBfloat16} bits.
 *
 * @param numbers - The values, in order.
 * @returns Their bfloat16 bits.
 * @example
 * ```ts
 * import { bfloat16ToNumber, bfloat16sFrom, tensor } from 'cleave-gpu';
 *
 * const x = tensor('bfloat16', bfloat16sFrom([0.1, 1, 257]), [3]);
 * console.log(Array.from(x.data, bfloat16ToNumber)); // [0.10009765625, 1, 256]
 * ```
 */
export function bfloat16sFrom(numbers: Iterable<number> | ArrayLike<number>): Uint16Array {
  return Uint16Array.from(numbers as ArrayLike<number>, (x) => numberToBfloat16(x));
}
