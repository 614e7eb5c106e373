// Cleave's dtype table (src/dtype.ts) against the tests' own, written from the specs
// (test/helpers/dtypes.ts): the same names, the same ONNX subset, widths, host arrays and lengths.
import { expect, test } from 'vitest';
import * as cleave from '../../src/index.js';
import {
  FIXED_REF_DTYPES,
  ONNX_REF_DTYPES,
  REF_DTYPES,
  REF_TYPES,
  refByteLength,
  refHostLength,
} from '../helpers/dtypes.js';

test('the same dtype names, and the same 16 ONNX ones', () => {
  expect([...cleave.DTYPES].sort()).toEqual([...REF_DTYPES].sort());
  expect([...cleave.ONNX_DTYPES].sort()).toEqual([...ONNX_REF_DTYPES].sort());
  expect(ONNX_REF_DTYPES.length).toBe(16);
});

test('every dtype: width in bits, host array class, host length and byte length', () => {
  for (const d of FIXED_REF_DTYPES) {
    const ref = REF_TYPES[d];
    expect([cleave.elementBits(d), cleave.hostArrayName(d)], d).toEqual([ref.bits, ref.array]);
    for (const n of [0, 1, 3, 7, 8, 9, 4097]) {
      expect([cleave.hostLength(d, n), cleave.byteLengthOf(d, n)], `${d} x ${n}`).toEqual([
        refHostLength(d, n),
        refByteLength(d, n),
      ]);
    }
  }
  expect(cleave.hostArrayName('string')).toBe('string[]');
});
