// The one error class Cleave throws. Every check runs on the CPU before any GPU work, so a
// SplitError never leaves half-done work on the device. `code` is stable; the message names the
// operation, the rule broken and the values involved; `subject` says which input, attribute or
// option broke it, for callers that point at the culprit (the demo does).

/**
 * A {@link SplitError}'s `code`: which kind of rule a call broke. Codes are stable: branch on them, not on
 * messages.
 */
export type SplitErrorCode =
  /** Dtype unknown, or not allowed here (operator version, GPU path). */
  | 'BAD_DTYPE'
  /** Host data array of the wrong class for the dtype, or detached. */
  | 'DATA_TYPE'
  /** Host data length does not match the shape, or GPU bytes outside their buffer. */
  | 'DATA_LENGTH'
  /** A dimension that is negative, fractional or unsafe. */
  | 'BAD_SHAPE'
  /** Rank-0 data where an axis is needed. */
  | 'RANK'
  /** Axis outside [-rank, rank-1]. */
  | 'AXIS_RANGE'
  /** A split length that is negative or not an integer. */
  | 'BAD_SIZE'
  /** Split lengths that do not add up to the axis length. */
  | 'SIZE_SUM'
  /** A part count below 1 or fractional. */
  | 'BAD_PARTS'
  /** Equal split required but the axis does not divide. */
  | 'NOT_DIVISIBLE'
  /** An options object that is not one, an unknown key, both or neither of two exclusive keys. */
  | 'BAD_OPTIONS'
  /** An argument that is not what the call takes (a tensor, a buffer, an encoder). */
  | 'BAD_INPUT'
  /** An attribute the operator version does not have or allow. */
  | 'BAD_ATTRIBUTE'
  /** An opset that is not an integer >= 1, or before the operator existed. */
  | 'BAD_OPSET'
  /** Declared output count disagrees with the split. */
  | 'OUTPUT_COUNT'
  /** Beyond a documented cap, or what the GPU can address or allocate. */
  | 'TOO_LARGE'
  /** WebGPU asked for but no adapter or device. */
  | 'NO_WEBGPU'
  /** A GPU call on a CPU engine, or a string tensor for the GPU. */
  | 'WRONG_BACKEND'
  /** A GPU tensor used after release, or an engine after destroy. */
  | 'RELEASED'
  /** The device is gone. */
  | 'DEVICE_LOST'
  /** The device refused a split's own commands. */
  | 'GPU_ERROR';

/** What broke the rule: an operator input, an attribute, a split option, a node field or an engine option. */
export interface SplitSubject {
  /** Which kind of thing broke the rule. */
  readonly kind: 'input' | 'attribute' | 'option' | 'node' | 'engine';
  /** The name the caller wrote: 'input', 'split', 'num_outputs', 'axis', 'sizes', 'outputs', 'device', ... */
  readonly name: string;
  /** For a tensor: which part of it. */
  readonly part?: 'dtype' | 'shape' | 'data' | 'buffer' | 'values';
}

/** A subject written as 'kind:name' or 'kind:name.part' (how Cleave's own checks name one). */
export type SubjectKey = `${SplitSubject['kind']}:${string}`;

/**
 * The one error class Cleave throws (or rejects with). Every check runs before any GPU work, so a bad call leaves
 * nothing half done on the device.
 *
 * @example
 * ```ts
 * import { SplitError, planSplit } from 'cleave-gpu';
 *
 * try {
 *   planSplit('float32', [2, 6], 1, [3, 4]);
 * } catch (e) {
 *   if (e instanceof SplitError) console.log(e.code, e.subject); // SIZE_SUM { kind: 'option', name: 'sizes' }
 * }
 * ```
 */
export class SplitError extends Error {
  /** Always 'SplitError'. */
  override readonly name = 'SplitError';
  /** What broke the rule, when one input, attribute, option, node field or engine option did; else undefined. */
  readonly subject: SplitSubject | undefined;
  /**
   * @param code - The kind of rule broken.
   * @param message - The operation, the rule and the values involved.
   * @param subject - What broke it, as an object or written 'kind:name' or 'kind:name.part'.
   * @param cause - What the device or runtime threw, when it threw (`error.cause`).
   */
  constructor(
    /** The kind of rule broken: stable, unlike the message. */
    readonly code: SplitErrorCode,
    message: string,
    subject?: SplitSubject | SubjectKey,
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    if (typeof subject === 'string') {
      const [kind, name, part] = subject.split(/[:.]/) as [SplitSubject['kind'], string, SplitSubject['part']];
      subject = part ? { kind, name, part } : { kind, name };
    }
    this.subject = subject;
  }
}

/** Throws a SplitError when `ok` is false; `message` is built only on failure. */
export function check(ok: boolean, code: SplitErrorCode, message: () => string, subject?: SubjectKey): asserts ok {
  if (!ok) throw new SplitError(code, message(), subject);
}

/**
 * A caller's value as message text. Never throws, whatever it is given: Symbols, null-prototype
 * objects, proxies that trap every read, getters that throw.
 */
export function show(x: unknown): string {
  try {
    if (typeof x === 'string') return `'${x.slice(0, 40)}'`;
    if (typeof x === 'symbol') return 'a Symbol';
    if (Array.isArray(x))
      return x.length > 8
        ? `an array of ${x.length}`
        : `[${x.map((v) => (typeof v === 'object' && v ? '{...}' : show(v))).join(', ')}]`;
    const name =
      typeof x === 'object' && x
        ? (Object.getPrototypeOf(x) as { constructor?: { name?: string } } | null)?.constructor?.name
        : 0;
    if (name !== 0) return !name || name === 'Object' ? 'an object' : `a ${name}`;
    return Object.is(x, -0) ? '-0' : typeof x === 'bigint' ? `${x}n` : String(x);
  } catch {
    return 'an unreadable value';
  }
}

/** `v` as a safe integer >= `min`, -0 read as 0; undefined for anything else. The one way Cleave reads an integer. */
export function asInt(v: unknown, min = -Infinity): number | undefined {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= min ? v + 0 : undefined;
}

/** A list of numbers as message text, shortened past 16 entries. */
export function showList(xs: readonly number[]): string {
  return `[${xs.length > 16 ? `${xs.slice(0, 12).join(', ')}, ... (${xs.length} in all)` : xs.join(', ')}]`;
}

/** Runs `read` (which reads a caller's object); anything it throws that is not a SplitError becomes one. */
export function guardRead<T>(what: string, read: () => T, subject?: SubjectKey): T {
  try {
    return read();
  } catch (e) {
    throw readFailure(e, what, subject);
  }
}

/** What a read of a caller's object threw, as a SplitError. */
export function readFailure(e: unknown, what: string, subject?: SubjectKey): SplitError {
  if (e instanceof SplitError) return e;
  return new SplitError('BAD_INPUT', `${what}: reading it threw ${show((e as Error)?.message ?? e)}`, subject);
}
