// Reading the golden files (test/golden/*.json, format in test/golden/README.md) into nodes and
// tensors, and comparing outputs with them bit for bit.

import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import {
  type DType,
  type GpuTensor,
  type HostTensor,
  type OpName,
  type SplitErrorCode,
  type SplitNode,
  SplitError,
} from '../../src/index.js';

export const GOLDEN_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'golden');

type Token = number | string;
type JsonData = Token[] | { base64: string };

export interface JsonTensor {
  readonly dtype: DType;
  readonly shape: number[];
  readonly data: JsonData;
  /** Give this (parameter) input as a GPU tensor. */
  readonly gpu?: boolean;
}

export interface GoldenCase {
  readonly name: string;
  readonly source: 'spec' | 'policy' | 'edge' | 'error';
  /** Overrides the file's opset; null gives the node no opset at all. */
  readonly opset?: number | null;
  readonly inputs: (JsonTensor | null)[];
  readonly attrs?: Record<string, unknown>;
  readonly outputs?: number;
  readonly expect?: { shape: number[]; data: JsonData }[];
  readonly error?: { code: SplitErrorCode; prefix?: string; includes: string[] };
}

export interface GoldenFile {
  /** File name without .json, e.g. 'Split-18': also the label messages must start with. */
  readonly label: string;
  readonly op: OpName;
  readonly opset: number;
  readonly cases: GoldenCase[];
}

export function loadGolden(): GoldenFile[] {
  return readdirSync(GOLDEN_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => ({
      label: f.replace(/\.json$/, ''),
      ...(JSON.parse(readFileSync(join(GOLDEN_DIR, f), 'utf8')) as Omit<GoldenFile, 'label'>),
    }));
}

/** The node a case describes; `input(i)` supplies each present input (host or GPU). */
export function nodeOf(file: GoldenFile, c: GoldenCase, inputs: (HostTensor | GpuTensor | undefined)[]): SplitNode {
  const opset = c.opset === null ? undefined : (c.opset ?? file.opset);
  return {
    op: file.op,
    ...(opset === undefined ? {} : { opset }),
    inputs,
    ...(c.attrs ? { attrs: c.attrs as SplitNode['attrs'] } : {}),
    ...(c.outputs === undefined ? {} : { outputs: c.outputs }),
  };
}

// ---------------------------------------------------------------------------------------------
// Decoding

const FLOAT_WORDS: Partial<Record<DType, 32 | 64>> = { float32: 32, complex64: 32, float64: 64, complex128: 64 };

export function decode(dtype: DType, shape: readonly number[], data: JsonData): HostTensor {
  return { dtype, shape: [...shape], data: decodeData(dtype, data) } as HostTensor;
}

function decodeData(dtype: DType, data: JsonData): HostTensor['data'] {
  if (!Array.isArray(data)) {
    const bytes = Uint8Array.from(Buffer.from(data.base64, 'base64'));
    return viewBytes(dtype, bytes);
  }
  if (dtype === 'string') return data.map(String);
  const words = FLOAT_WORDS[dtype];
  if (words === 32) {
    const f = new Float32Array(data.length);
    const u = new Uint32Array(f.buffer);
    data.forEach((t, i) => {
      if (isHex(t)) u[i] = Number(BigInt(t));
      else f[i] = floatToken(t);
    });
    return f;
  }
  if (words === 64) {
    const f = new Float64Array(data.length);
    const u = new BigUint64Array(f.buffer);
    data.forEach((t, i) => {
      if (isHex(t)) u[i] = BigInt(t);
      else f[i] = floatToken(t);
    });
    return f;
  }
  if (dtype === 'int64') return BigInt64Array.from(data.map((t) => BigInt(t)));
  if (dtype === 'uint64') return BigUint64Array.from(data.map((t) => BigInt(t)));
  const C = {
    float16: Uint16Array,
    bfloat16: Uint16Array,
    int8: Int8Array,
    uint8: Uint8Array,
    int16: Int16Array,
    uint16: Uint16Array,
    int32: Int32Array,
    uint32: Uint32Array,
    bool: Uint8Array,
  }[dtype as 'int8'];
  return C.from(data.map((t) => (isHex(t) ? Number(BigInt(t)) : Number(t))));
}

function viewBytes(dtype: DType, bytes: Uint8Array): HostTensor['data'] {
  const C = {
    float32: Float32Array,
    float64: Float64Array,
    float16: Uint16Array,
    bfloat16: Uint16Array,
    int8: Int8Array,
    uint8: Uint8Array,
    int16: Int16Array,
    uint16: Uint16Array,
    int32: Int32Array,
    uint32: Uint32Array,
    int64: BigInt64Array,
    uint64: BigUint64Array,
    bool: Uint8Array,
    complex64: Float32Array,
    complex128: Float64Array,
  }[dtype as 'int8'];
  return new C(bytes.buffer, bytes.byteOffset, bytes.byteLength / C.BYTES_PER_ELEMENT);
}

const isHex = (t: Token): t is string => typeof t === 'string' && /^0x[0-9a-f]+$/i.test(t);

function floatToken(t: Token): number {
  if (typeof t === 'number') return t;
  const named: Record<string, number> = { NaN, '-0': -0, Infinity, '-Infinity': -Infinity };
  if (t in named) return named[t]!;
  throw new Error(`golden: bad float token ${t}`);
}

// ---------------------------------------------------------------------------------------------
// Comparing

/** Raw bytes of a host tensor's data (strings as a JSON array), so floats compare by bits. */
export function bitsOf(t: HostTensor): string {
  if (Array.isArray(t.data)) return JSON.stringify(t.data);
  const d = t.data as Uint8Array;
  return Buffer.from(d.buffer, d.byteOffset, d.byteLength).toString('hex');
}

export function expectOutputs(got: readonly HostTensor[], c: GoldenCase, dtype: DType, where: string): void {
  const want = c.expect!;
  expect(got.length, `${where}: output count`).toBe(want.length);
  want.forEach((w, i) => {
    const g = got[i]!;
    expect(g.dtype, `${where}: output ${i} dtype`).toBe(dtype);
    expect([...g.shape], `${where}: output ${i} shape`).toEqual(w.shape);
    expect(bitsOf(g), `${where}: output ${i} bits`).toBe(bitsOf(decode(dtype, w.shape, w.data)));
  });
}

/** Asserts that `run` throws (or rejects with) the case's SplitError. */
export async function expectCaseError(run: () => unknown, c: GoldenCase, label: string, where: string): Promise<void> {
  const want = c.error!;
  let caught: unknown;
  try {
    await run();
  } catch (e) {
    caught = e;
  }
  expect(caught, `${where}: expected ${want.code}`).toBeInstanceOf(SplitError);
  const e = caught as SplitError;
  expect(e.code, `${where}: code (message: ${e.message})`).toBe(want.code);
  expect(
    e.message.startsWith(want.prefix ?? `${label}:`),
    `${where}: message '${e.message}' starts with ${want.prefix ?? `${label}:`}`,
  ).toBe(true);
  for (const part of want.includes) expect(e.message, `${where}: message`).toContain(part);
}
