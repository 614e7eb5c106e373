// The one error class Cleave throws. Every check runs on the CPU before any GPU work, so a
// SplitError never leaves half-done work on the device. `code` is stable; the message names the
// operation, the rule broken and the values involved; `subject` says which input, attribute or
// option broke it, for callers that point at the culprit (the demo does).

export type SplitErrorCode =
  | 'BAD_DTYPE' // dtype unknown, or not allowed here (operator version, GPU path)
  | 'DATA_TYPE' // host data array of the wrong class for the dtype, or detached
  | 'DATA_LENGTH' // host data length does not match the shape, or GPU bytes outside their buffer
  | 'BAD_SHAPE' // a dimension that is negative, fractional or unsafe
  | 'RANK' // rank-0 data where an axis is needed
  | 'AXIS_RANGE' // axis outside [-rank, rank-1]
  | 'BAD_SIZE' // a split length that is negative or not an integer
  | 'SIZE_SUM' // split lengths that do not add up to the axis length
  | 'BAD_PARTS' // a part count below 1 or fractional
  | 'NOT_DIVISIBLE' // equal split required but the axis does not divide
  | 'BAD_OPTIONS' // an options object that is not one, an unknown key, both or neither of two exclusive keys
  | 'BAD_INPUT' // an argument that is not what the call takes (a tensor, a buffer, an encoder)
  | 'BAD_ATTRIBUTE' // an attribute the operator version does not have or allow
  | 'BAD_OPSET' // an opset that is not an integer >= 1, or before the operator existed
  | 'OUTPUT_COUNT' // declared output count disagrees with the split
  | 'TOO_LARGE' // beyond a documented cap, or what the GPU can address or allocate
  | 'NO_WEBGPU' // WebGPU asked for but no adapter or device
  | 'WRONG_BACKEND' // a GPU call on a CPU engine, or a string tensor for the GPU
  | 'RELEASED' // a GPU tensor used after release, or an engine after destroy
  | 'DEVICE_LOST' // the device is gone
  | 'GPU_ERROR'; // the device refused a split's own commands

/** What broke the rule: an operator input, an attribute, a split option, a node field or an engine option. */
export interface SplitSubject {
  readonly kind: 'input' | 'attribute' | 'option' | 'node' | 'engine';
  /** The name the caller wrote: 'input', 'split', 'num_outputs', 'axis', 'sizes', 'outputs', 'device', ... */
  readonly name: string;
  /** For a tensor: which part of it. */
  readonly part?: 'dtype' | 'shape' | 'data' | 'buffer' | 'values';
}

/** A subject written as 'kind:name' or 'kind:name.part' (how Cleave's own checks name one). */
export type SubjectKey = `${SplitSubject['kind']}:${string}`;

export class SplitError extends Error {
  override readonly name = 'SplitError';
  readonly subject: SplitSubject | undefined;
  constructor(
    readonly code: SplitErrorCode,
    message: string,
    subject?: SplitSubject | SubjectKey,
  ) {
    super(message);
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
    if (e instanceof SplitError) throw e;
    throw new SplitError('BAD_INPUT', `${what}: reading it threw ${show((e as Error)?.message ?? e)}`, subject);
  }
}
