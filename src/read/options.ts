// Options objects from the outside world, read once: own keys only, an unknown key refused by
// name (with the nearest known key as a suggestion), each value read a single time, and the split
// arguments checked before anything is allocated.

import type { SplitErrorCode, SplitSubject, SubjectKey } from '../errors.js';
import { SplitError, asInt, check, readFailure, show } from '../errors.js';
import { MAX_OUTPUTS } from '../shape.js';

/**
 * Every own property of an ordinary object, read once (inherited keys are not options). A Symbol
 * key is refused with `code`, and so is an array or a built-in object (a Map, a Date). With `known`,
 * which refuses a key it does not know, the copy is an ordinary object (it runs on every split, and no
 * key can be `__proto__`); without, any key is copied into an object with no prototype, where
 * `__proto__` is an ordinary key.
 */
export function ownFields(
  o: unknown,
  what: string,
  code: SplitErrorCode,
  subject: SubjectKey,
  known?: (key: string) => void,
): Record<string, unknown> {
  // A caller's getter or Proxy that throws becomes a SplitError (no closure: this runs on every split).
  try {
    if (!isPlainObject(o)) throw new SplitError(code, `${what} must be a plain object, got ${show(o)}`, subject);
    const out = (known ? {} : Object.create(null)) as Record<string, unknown>;
    for (const key of Reflect.ownKeys(o)) {
      if (typeof key !== 'string') throw new SplitError(code, `${what}: Symbol keys are not options`, subject);
      known?.(key);
      out[key] = (o as Record<string, unknown>)[key];
    }
    return out;
  } catch (e) {
    throw readFailure(e, what, subject);
  }
}

/** The known keys of an options object; `undefined` reads as `{}`. An unknown key is BAD_OPTIONS, by name. */
export function readOptions<K extends string>(
  o: unknown,
  what: string,
  keys: readonly K[],
  kind: SplitSubject['kind'] = 'option',
): { [P in K]?: unknown } {
  if (o === undefined) return {};
  return ownFields(o, `${what} options`, 'BAD_OPTIONS', `${kind}:${what}`, (key) => {
    if ((keys as readonly string[]).includes(key)) return;
    // Refused by name, with the nearest known key as a suggestion.
    const near = keys.find((k) => distance(k, key) < 3);
    const hint = near ? ` (did you mean '${near}'?)` : '';
    throw new SplitError(
      'BAD_OPTIONS',
      `${what}: unknown option '${key}'${hint}; the options are ${keys.join(', ')}`,
      `${kind}:${key}`,
    );
  }) as { [P in K]?: unknown };
}

/**
 * An ordinary object, not an array or a built-in one (a Map, a Date). A literal's prototype is this realm's
 * Object.prototype, which answers at once; anything else (another realm's object, a null prototype) asks its
 * tag, a generic call that costs a microsecond a split in Firefox.
 */
function isPlainObject(o: unknown): o is object {
  if (typeof o !== 'object' || o === null) return false;
  return Object.getPrototypeOf(o) === Object.prototype || Object.prototype.toString.call(o) === '[object Object]';
}

/** Edit distance, capped at 3. */
function distance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2 || a.length > 32) return 3;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + +(a[i - 1] !== b[j - 1]));
    prev = cur;
  }
  return prev[b.length]!;
}

/** One of a fixed set of strings; undefined gives `fallback`. */
export function readChoice<T extends string, F extends T | undefined = T>(
  v: unknown,
  allowed: readonly T[],
  fallback: F,
  what: string,
  subject: SubjectKey,
): T | F {
  check(
    v === undefined || allowed.includes(v as T),
    'BAD_OPTIONS',
    () => `${what}: '${subject.split(':')[1]}' must be one of ${allowed.join(', ')}, got ${show(v)}`,
    subject,
  );
  return (v ?? fallback) as T | F;
}

/** A copy of an array, its length read once and capped (TOO_LARGE, or `code`) before anything is allocated. */
export function copyArray(
  v: readonly unknown[],
  max: number,
  what: string,
  subject: SubjectKey,
  code: SplitErrorCode = 'TOO_LARGE',
): unknown[] {
  const n = v.length;
  check(n <= max, code, () => `${what}: ${n} entries; at most ${max}`, subject);
  // A plain loop, not Array.from with a callback: this runs on every call, on up to MAX_OUTPUTS entries.
  const out: unknown[] = [];
  for (let i = 0; i < n; i++) out.push(v[i]);
  return out;
}

/** A list of split sizes: an array of at most MAX_OUTPUTS entries, copied (the planner checks each). */
export function readSizes(v: unknown, what: string, subject: SubjectKey, code: SplitErrorCode = 'BAD_SIZE'): unknown[] {
  try {
    check(
      Array.isArray(v),
      code,
      () => `${what}: '${subject.split(':')[1]}' must be an array of integers, got ${show(v)}`,
      subject,
    );
    return copyArray(v, MAX_OUTPUTS, what, subject);
  } catch (e) {
    throw readFailure(e, what, subject);
  }
}

/** A count of outputs (parts, num_outputs): an integer from 1 to MAX_OUTPUTS. */
export function readCount(v: unknown, what: string, subject: SubjectKey, code: SplitErrorCode): number {
  const n = asInt(v, 1);
  if (n !== undefined && n <= MAX_OUTPUTS) return n;
  const name = subject.split(':')[1];
  throw n === undefined
    ? new SplitError(code, `${what}: '${name}' must be an integer >= 1, got ${show(v)}`, subject)
    : new SplitError('TOO_LARGE', `${what}: '${name}' is ${n}; a split makes at most ${MAX_OUTPUTS} outputs`, subject);
}
