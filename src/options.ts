// Options objects from the outside world, read once: only known keys (an unknown one is refused
// by name, with the nearest known key as a suggestion), each value read a single time, and the
// split arguments (axis, sizes, parts, layout, alias) checked before anything is allocated.

import { type SplitSubject, check, guardRead, show } from './errors.js';
import { MAX_OUTPUTS } from './planner/split.js';

/**
 * The known keys of an options object, read once. `undefined` reads as `{}` when `optional`.
 * Keys are own properties only; a Symbol key or an unknown name is refused.
 */
export function readOptions<K extends string>(o: unknown, what: string, keys: readonly K[], kind: SplitSubject['kind'] = 'option',
  optional = true): { [P in K]?: unknown } {
  if (o === undefined && optional) return {};
  return guardRead(what, () => {
    check(typeof o === 'object' && o !== null && !Array.isArray(o), 'BAD_OPTIONS',
      () => `${what}: expected an options object, got ${show(o)}`, { kind, name: what });
    const out: { [P in K]?: unknown } = {};
    for (const key of Reflect.ownKeys(o)) {
      if (typeof key === 'symbol' || !(keys as readonly string[]).includes(key)) {
        const near = typeof key === 'string' ? nearest(key, keys) : undefined;
        check(false, 'BAD_OPTIONS', () => `${what}: unknown option ${show(key)}${near ? ` (did you mean '${near}'?)` : ''}; ` +
          `the options are ${keys.map((k) => `'${k}'`).join(', ')}`, { kind, name: String(typeof key === 'string' ? key : 'Symbol') });
      }
      out[key as K] = (o as Record<string, unknown>)[key];
    }
    return out;
  });
}

/** The known key within edit distance 2 of `key`, if one is. */
function nearest(key: string, keys: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = 3;
  for (const k of keys) {
    const d = distance(key.toLowerCase(), k.toLowerCase());
    if (d < bestD) [best, bestD] = [k, d];
  }
  return best;
}

function distance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2 || a.length > 40) return 3;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** One of a fixed set of strings; undefined gives `fallback`. */
export function readChoice<T extends string>(v: unknown, allowed: readonly T[], fallback: T, what: string, subject: SplitSubject): T {
  if (v === undefined) return fallback;
  check(typeof v === 'string' && (allowed as readonly string[]).includes(v), 'BAD_OPTIONS',
    () => `${what}: '${subject.name}' must be ${allowed.map((a) => `'${a}'`).join(', ').replace(/, ([^,]*)$/, ' or $1')}, got ${show(v)}`, subject);
  return v as T;
}

/** An integer option (axis); undefined gives `fallback`, null and anything else is refused. */
export function readInteger(v: unknown, fallback: number, what: string, subject: SplitSubject): number {
  if (v === undefined) return fallback;
  check(typeof v === 'number' && Number.isSafeInteger(v), subject.name === 'axis' ? 'AXIS_RANGE' : 'BAD_OPTIONS',
    () => `${what}: '${subject.name}' must be an integer, got ${show(v)}`, subject);
  return v + 0;
}

/** A list of split lengths: an array of at most MAX_OUTPUTS entries, copied (validated by the planner). */
export function readLengths(v: unknown, what: string, subject: SplitSubject): unknown[] {
  check(Array.isArray(v), 'BAD_SIZE', () => `${what}: '${subject.name}' must be an array of lengths, got ${show(v)}`, subject);
  const n = v.length;
  check(n <= MAX_OUTPUTS, 'TOO_LARGE', () => `${what}: '${subject.name}' lists ${n} lengths; a split makes at most ${MAX_OUTPUTS} outputs`, subject);
  return Array.from({ length: n }, (_, i) => v[i] as unknown);
}

/** A count of outputs (parts, num_outputs): an integer from 1 to MAX_OUTPUTS. */
export function readCount(v: unknown, what: string, subject: SplitSubject, code: 'BAD_PARTS' | 'BAD_ATTRIBUTE' | 'OUTPUT_COUNT'): number {
  check(typeof v === 'number' && Number.isSafeInteger(v) && v >= 1, code,
    () => `${what}: '${subject.name}' must be an integer >= 1, got ${show(v)}`, subject);
  check(v <= MAX_OUTPUTS, 'TOO_LARGE', () => `${what}: '${subject.name}' is ${v}; a split makes at most ${MAX_OUTPUTS} outputs`, subject);
  return v;
}
