// The pool's size classes (sizeClass, src/gpu/pool.ts), in plain Node: every class holds its size, is a multiple of 4,
// wastes at most 1/8 of it from 32 bytes up (below 32: the next multiple of 4, under 4 bytes over), and never shrinks
// as the size grows. Sizes: every one up to 64 KiB, then around every power of two to 2^52, and random ones.
import { describe, expect, test } from 'vitest';
import { sizeClass } from '../../src/gpu/pool.js';
import { rng } from '../helpers/cases.js';

/** Sizes to check: the dense range, each power of two and its neighbours, random sizes of every magnitude. */
function sizes(): number[] {
  const all = Array.from({ length: (1 << 16) + 1 }, (_, i) => i);
  for (let k = 16; k <= 52; k++) for (let d = -9; d <= 9; d++) all.push(2 ** k + d);
  const next = rng(11);
  for (let i = 0; i < 20_000; i++) all.push(Math.floor(2 ** (5 + next() * 47)));
  return all.sort((a, b) => a - b);
}

describe('sizeClass', () => {
  const all = sizes();

  test('a class holds its size, is a multiple of 4, and is at most 1/8 over it (under 4 bytes over below 32)', () => {
    const bad: string[] = [];
    for (const s of all) {
      const c = sizeClass(s);
      const ok = c >= s && c % 4 === 0 && (s < 32 ? c - s < 4 : c <= s * (9 / 8));
      if (!ok && bad.push(`${s} -> ${c}`) >= 10) break;
    }
    expect(bad).toEqual([]);
  });

  test('monotone: a larger size never gets a smaller class', () => {
    let bad: string | undefined;
    for (let i = 1; i < all.length && !bad; i++)
      if (sizeClass(all[i]!) < sizeClass(all[i - 1]!)) bad = `${all[i - 1]} -> ${sizeClass(all[i - 1]!)}, ${all[i]}`;
    expect(bad).toBeUndefined();
  });

  test('a class is its own class; from 32 up, the sizes of [2^k, 2^(k+1)) fall in 2^k + j * 2^(k-3), j = 0 to 8', () => {
    for (const s of all) expect(sizeClass(sizeClass(s))).toBe(sizeClass(s));
    // The pool's point: sizes that drift by a few bytes a step reuse one class for many steps.
    for (let k = 5; k < 16; k++) {
      const classes = new Set<number>();
      for (let s = 2 ** k; s < 2 ** (k + 1); s++) classes.add(sizeClass(s));
      expect([...classes], `[2^${k}, 2^${k + 1})`).toEqual(
        Array.from({ length: 9 }, (_, j) => 2 ** k + j * 2 ** (k - 3)),
      );
    }
    expect([0, 1, 4, 5, 31, 32, 33, 36, 64, 65, 1000, 1024, 1025].map(sizeClass)).toEqual([
      0, 4, 4, 8, 32, 32, 36, 36, 64, 72, 1024, 1024, 1152,
    ]);
  });
});
