// A case's data: its input (built with the library's dtype table), the reference split every
// system is checked against, and the byte-for-byte comparison.
//
// The reference split is an oracle and stays independent of Cleave on purpose: it takes each
// dtype's width from its own table below (written from the ONNX and OpenVINO specs, never read from
// the built library) and cuts the input's bit stream itself, bit by bit where a chunk starts or
// ends inside a byte, with the packed bit order written here (OpenVINO's element_iterator: uint1
// MSB-first, every other packed type LSB-first).

import { byteLengthOf, elementBits, hostDataFromBytes, isMsbFirst, isPacked } from '/dist/cleave.js';
import { createBuffer } from './gpu-probe.mjs';
import { xorshift32 } from './random.mjs';

/** @import { FixedDType, HostTensor } from '/dist/cleave.js' */
/** @import { BenchCase } from '../types.js' */

/** @param {readonly number[]} xs */
const product = (xs) => xs.reduce((a, b) => a * b, 1);

/**
 * Deterministic input: xorshift bytes, floats kept finite (no NaN, so every path moves them
 * bit-exact), bools 0/1, and the unused bits of a packed tensor's last byte zero.
 * @param {FixedDType} dtype
 * @param {readonly number[]} shape
 * @param {number} seed
 * @returns {HostTensor<FixedDType>}
 */
export function makeHost(dtype, shape, seed) {
  const numel = product(shape);
  const bytes = randomBytes(byteLengthOf(dtype, numel), seed);
  const lane = hostDataFromBytes(dtype, new Uint8Array(0)).BYTES_PER_ELEMENT;
  // Clearing the exponent's top bit (bit 6 of each lane's last byte, little-endian) rules out
  // NaN and Inf in every float layout: float8 to float64, complex lanes alike.
  if (/^(b?float|complex)/.test(dtype) && !isPacked(dtype))
    for (let i = lane - 1; i < bytes.length; i += lane) bytes[i] &= ~0x40;
  if (dtype === 'bool') for (let i = 0; i < bytes.length; i++) bytes[i] &= 1;
  const used = (numel * elementBits(dtype)) % 8;
  if (isPacked(dtype) && used !== 0)
    bytes[bytes.length - 1] &= isMsbFirst(dtype) ? (0xff << (8 - used)) & 0xff : (1 << used) - 1;
  return /** @type {HostTensor<FixedDType>} */ ({
    dtype,
    shape: [...shape],
    data: hostDataFromBytes(dtype, bytes, false),
  });
}

/**
 * A resolved case's data: its input (seed 7), the input's bytes, the reference outputs and their shapes.
 * @param {BenchCase} spec
 */
export function caseData(spec) {
  const dtype = /** @type {FixedDType} */ (spec.dtype);
  const host = makeHost(dtype, spec.shape, 7);
  const d = /** @type {ArrayBufferView} */ (host.data);
  const input = new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
  return {
    host,
    input,
    ref: referenceSplit(input, dtype, spec.shape, spec.axis, spec.sizes),
    outShapes: spec.sizes.map((s) => spec.shape.map((d, i) => (i === spec.axis ? s : d))),
  };
}

/** @param {number} n @param {number} seed */
function randomBytes(n, seed) {
  const bytes = new Uint8Array(n);
  const words = new Uint32Array(bytes.buffer, 0, n >> 2);
  const next = xorshift32(seed);
  for (let i = 0; i < words.length; i++) words[i] = next();
  for (let i = words.length * 4; i < n; i++) bytes[i] = (i * 131 + seed) & 0xff;
  return bytes;
}

/** Bits per element, the oracle's own: ONNX's types (complex = two floats), OpenVINO's float8 and packed ones. */
const WIDTHS = Object.fromEntries(
  (
    'float32 32 float64 64 float16 16 bfloat16 16 int8 8 uint8 8 int16 16 uint16 16 int32 32 uint32 32 int64 64 ' +
    'uint64 64 bool 8 complex64 64 complex128 128 float8e4m3fn 8 float8e5m2 8 float8e8m0 8 int4 4 uint4 4 nf4 4 ' +
    'float4e2m1 4 uint1 1 uint2 2 uint3 3 uint6 6'
  )
    .match(/\S+ \d+/g)
    ?.map((pair) => [pair.split(' ')[0], Number(pair.split(' ')[1])]) ?? [],
);

/** Packed types whose first value sits in bit 7 of byte 0 (the oracle's own knowledge). */
const MSB_FIRST = new Set(['uint1']);

/**
 * The reference: each output's bytes, cut from the input's bit stream.
 * @param {Uint8Array} src  the input's bytes
 * @param {FixedDType} dtype
 * @param {readonly number[]} shape
 * @param {number} axis
 * @param {readonly number[]} sizes
 */
export function referenceSplit(src, dtype, shape, axis, sizes) {
  const bits = WIDTHS[dtype];
  if (bits === undefined) throw new Error(`the reference has no width for dtype ${dtype}`);
  const msb = MSB_FIRST.has(dtype);
  const outer = product(shape.slice(0, axis));
  const inner = product(shape.slice(axis + 1)) * bits;
  const row = (shape[axis] ?? 0) * inner;
  let start = 0;
  return sizes.map((s) => {
    const run = s * inner;
    const out = new Uint8Array(Math.ceil((outer * run) / 8));
    for (let o = 0; o < outer; o++) copyBits(src, o * row + start * inner, out, o * run, run, msb);
    start += s;
    return out;
  });
}

/**
 * Copies `n` bits of stream `src` from bit `from` to bit `to` of `dst`; whole bytes where it can.
 * @param {Uint8Array} src @param {number} from @param {Uint8Array} dst @param {number} to @param {number} n
 * @param {boolean} msb  bit k of a byte is its (7 - k)th least significant bit
 */
function copyBits(src, from, dst, to, n, msb) {
  if (from % 8 === 0 && to % 8 === 0 && n % 8 === 0) {
    dst.set(src.subarray(from / 8, (from + n) / 8), to / 8);
    return;
  }
  for (let k = 0; k < n; k++) {
    const a = from + k;
    const b = to + k;
    const bit = ((src[a >> 3] ?? 0) >> (msb ? 7 - (a & 7) : a & 7)) & 1;
    if (bit) dst[b >> 3] = (dst[b >> 3] ?? 0) | (1 << (msb ? 7 - (b & 7) : b & 7));
  }
}

/**
 * Compares outputs with the reference; returns what differs, or undefined.
 * @param {readonly ArrayBufferView[]} outs
 * @param {readonly Uint8Array[]} ref
 * @param {string} what
 */
export function compare(outs, ref, what) {
  if (outs.length !== ref.length) return `${what}: ${outs.length} outputs, expected ${ref.length}`;
  for (let i = 0; i < ref.length; i++) {
    const o = /** @type {ArrayBufferView} */ (outs[i]);
    const a = new Uint8Array(o.buffer, o.byteOffset, o.byteLength);
    const b = /** @type {Uint8Array} */ (ref[i]);
    if (a.byteLength !== b.byteLength)
      return `${what}: output ${i} has ${a.byteLength} bytes, expected ${b.byteLength}`;
    for (let k = 0; k < b.length; k++) {
      if (a[k] !== b[k]) return `${what}: output ${i} differs at byte ${k} (${a[k]} vs ${b[k]})`;
    }
  }
  return undefined;
}

/**
 * A case's outputs against the reference: their bytes, then their shapes; what differs first, or undefined.
 * @param {{ ref: readonly Uint8Array[], outShapes: readonly (readonly number[])[] }} c @param {string} what
 * @param {readonly ArrayBufferView[]} outs @param {readonly (readonly number[])[]} shapes
 */
export function checkOutputs(c, what, outs, shapes) {
  const i = c.outShapes.findIndex((want, j) => String(shapes[j]) !== String(want));
  return compare(outs, c.ref, what) ?? (i < 0 ? undefined : `${what}: output ${i} has shape [${shapes[i]}]`);
}

/**
 * `size` bytes of `buffer` from `offset`, through a staging buffer the probes do not count.
 * @param {GPUDevice} device @param {GPUBuffer} buffer @param {number} offset @param {number} size
 */
export async function readBuffer(device, buffer, offset, size) {
  return /** @type {Uint8Array} */ ((await readBuffers(device, [{ buffer, offset, size }]))[0]);
}

/**
 * The bytes of GPU tensors (or anything placed like one), read together (readBuffers).
 * @param {GPUDevice} device @param {readonly { buffer: GPUBuffer, byteOffset: number, byteLength: number }[]} ts
 */
export const readTensors = (device, ts) =>
  readBuffers(
    device,
    ts.map((t) => ({ buffer: t.buffer, offset: t.byteOffset, size: t.byteLength })),
  );

/** Bytes of one staging buffer at most: a large output is read through one of its own. */
const STAGING_BYTES = 64 << 20;

/**
 * Each part's bytes, read with one submit and one wait for the GPU however many parts there are (Firefox
 * answers each wait at its next poll of the GPU, about every 100 ms: 4096 outputs read one by one take
 * minutes there), through staging buffers the probes do not count.
 * @param {GPUDevice} device @param {readonly { buffer: GPUBuffer, offset: number, size: number }[]} parts
 * @returns {Promise<Uint8Array[]>}
 */
export async function readBuffers(device, parts) {
  const padded = (/** @type {number} */ n) => Math.ceil(n / 4) * 4;
  /** @type {number[]} */
  const sizes = [];
  const places = parts.map((p) => {
    const last = sizes.length - 1;
    if (last < 0 || (sizes[last] > 0 && sizes[last] + padded(p.size) > STAGING_BYTES)) sizes.push(0);
    const group = sizes.length - 1;
    const at = /** @type {number} */ (sizes[group]);
    sizes[group] = at + padded(p.size);
    return { group, at };
  });
  const usage = GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST;
  const staging = sizes.map((size) => createBuffer(device, { size: Math.max(4, size), usage }));
  const enc = device.createCommandEncoder();
  for (const [i, p] of parts.entries()) {
    const { group, at } = /** @type {{ group: number, at: number }} */ (places[i]);
    if (p.size > 0)
      enc.copyBufferToBuffer(p.buffer, p.offset, /** @type {GPUBuffer} */ (staging[group]), at, padded(p.size));
  }
  device.queue.submit([enc.finish()]);
  await Promise.all(staging.map((b) => b.mapAsync(GPUMapMode.READ)));
  const mapped = staging.map((b) => new Uint8Array(b.getMappedRange()));
  const out = parts.map((p, i) => {
    const { group, at } = /** @type {{ group: number, at: number }} */ (places[i]);
    return /** @type {Uint8Array} */ (mapped[group]).slice(at, at + p.size);
  });
  for (const b of staging) b.destroy();
  return out;
}
