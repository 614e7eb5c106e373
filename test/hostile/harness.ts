// The hostile tier's bookkeeping: what a call did (a SplitError and its code, another exception,
// a resolution, a hang), tallied per public function, and failures grouped by kind so that each
// distinct bug is reported once, with a count and a repro. Shared by the in-process tier and the
// child processes (it imports nothing from vitest).

import { SplitError, type SplitErrorCode } from '../../src/index.js';

/** HOSTILE_SEED: the seed of the tier's seeded files. */
export const SEED = Number(process.env.HOSTILE_SEED ?? 20261122);
/**
 * HOSTILE_SCALE: how many cases the seeded files run, as a multiple of their defaults. An empty, zero, negative or
 * non-numeric scale fails the tier (each file asserts `scaleValid`), never empties it.
 */
export const SCALE = Number(process.env.HOSTILE_SCALE ?? 1);
export const scaleValid = (): boolean => Number.isFinite(SCALE) && SCALE > 0;

/** A prepared split's functions: `engine.prepare`, and the prepared split's `split` and `encode`. */
export const PREPARED_FNS = ['prepare', 'prepared.split', 'prepared.encode'] as const;
export type PreparedFn = (typeof PREPARED_FNS)[number];

/** The public functions the tier calls. `destroy` counts the calls made on a destroyed engine. */
export const FNS = [
  'createSplitEngine',
  'split',
  'run',
  'encodeSplit',
  'upload',
  'download',
  'release',
  'destroy',
  'inferShapes',
  'resolveNode',
  'planSplit',
  'fromOrtTensor',
  'toOrtTensor',
  ...PREPARED_FNS,
] as const;
export type Fn = (typeof FNS)[number] | 'equalParts';

export type Outcome =
  | { readonly kind: 'error'; readonly code: SplitErrorCode; readonly message: string; readonly error: SplitError }
  | { readonly kind: 'foreign'; readonly name: string; readonly message: string }
  | { readonly kind: 'resolved'; readonly value: unknown }
  | { readonly kind: 'hang' };

/** A call that must fail with `code`. `gpu`: it reaches the GPU before failing (GPU_ERROR), so it may take buffers. */
export interface BadCall {
  readonly fn: Fn;
  /** A stable description of the hostile value and where it goes ("options.sizes: a Proxy whose get throws"). */
  readonly what: string;
  readonly code: SplitErrorCode;
  readonly call: () => unknown;
  readonly gpu?: boolean;
  /** Extra checks on the error (e.g. the message names an unknown key); returns what is wrong. */
  readonly check?: (e: SplitError) => string | undefined;
  /** Runs after the call whatever happened (destroys buffers and engines the case made). */
  readonly cleanup?: () => void;
}

/** A hostile call that is valid all the same (a getter that changes after the first read, a frozen object): it must resolve, exactly. */
export interface ValidCall {
  readonly fn: Fn;
  readonly what: string;
  readonly call: () => unknown;
  /** Checks the result; returns what is wrong. */
  readonly verify: (value: unknown) => Promise<string | undefined> | string | undefined;
  readonly cleanup?: () => void;
}

const HANG = Symbol('hang');

/** Runs a call (sync or async) with a time limit and says how it ended. */
export async function outcomeOf(call: () => unknown, timeoutMs: number): Promise<Outcome> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const value = await Promise.race([
      Promise.resolve().then(call),
      new Promise<typeof HANG>((resolve) => {
        timer = setTimeout(() => resolve(HANG), timeoutMs);
      }),
    ]);
    return value === HANG ? { kind: 'hang' } : { kind: 'resolved', value };
  } catch (e) {
    if (e instanceof SplitError) return { kind: 'error', code: e.code, message: e.message, error: e };
    const name =
      typeof e === 'object' && e !== null && typeof (e as Error).name === 'string' ? (e as Error).name : typeof e;
    return { kind: 'foreign', name, message: String((e as Error)?.message ?? e) };
  } finally {
    clearTimeout(timer);
  }
}

export function describeOutcome(o: Outcome): string {
  switch (o.kind) {
    case 'error':
      return o.code;
    case 'foreign':
      return `${o.name} (not a SplitError)`;
    case 'resolved':
      return 'resolved (silent acceptance)';
    case 'hang':
      return 'hang (no answer in time)';
  }
}

export interface Failure {
  readonly fn: Fn;
  readonly what: string;
  readonly expected: string;
  readonly got: string;
  readonly message: string;
  readonly repro: string;
}

/** Counts per function and failures grouped by (function, case, expected, got). */
export class Tally {
  readonly bad = new Map<Fn, number>();
  /** Distinct kinds of bad call (argument position and hostile value) per function. */
  readonly kinds = new Map<Fn, Set<string>>();
  readonly valid = new Map<Fn, number>();
  readonly controls = new Map<string, number>();
  readonly failures: Failure[] = [];

  /** Judges a bad call's outcome; returns the failure, if any. */
  judgeBad(c: BadCall, o: Outcome, repro: string): Failure | undefined {
    this.bad.set(c.fn, (this.bad.get(c.fn) ?? 0) + 1);
    if (!this.kinds.has(c.fn)) this.kinds.set(c.fn, new Set());
    this.kinds.get(c.fn)!.add(c.what);
    let problem: string | undefined;
    if (o.kind !== 'error' || o.code !== c.code) problem = describeOutcome(o);
    else problem = malformed(o.error) ?? c.check?.(o.error);
    if (problem === undefined) return undefined;
    const message = o.kind === 'error' || o.kind === 'foreign' ? o.message : '';
    return this.fail({ fn: c.fn, what: c.what, expected: c.code, got: problem, message, repro });
  }

  judgeValid(c: ValidCall, o: Outcome, problem: string | undefined, repro: string): Failure | undefined {
    this.valid.set(c.fn, (this.valid.get(c.fn) ?? 0) + 1);
    const got = o.kind !== 'resolved' ? describeOutcome(o) : problem;
    if (got === undefined) return undefined;
    const message = o.kind === 'error' || o.kind === 'foreign' ? o.message : '';
    return this.fail({ fn: c.fn, what: c.what, expected: 'resolves exactly', got, message, repro });
  }

  control(kind: string, problem: string | undefined, repro: string): void {
    this.controls.set(kind, (this.controls.get(kind) ?? 0) + 1);
    if (problem !== undefined)
      this.fail({ fn: 'split', what: `control: ${kind}`, expected: 'exact', got: problem, message: '', repro });
  }

  fail(f: Failure): Failure {
    this.failures.push(f);
    return f;
  }

  total(m: Map<unknown, number>): number {
    return [...m.values()].reduce((a, b) => a + b, 0);
  }

  /** One line per distinct failure: how often, what was expected and got, the first message and repro. */
  report(): string {
    const groups = new Map<string, { f: Failure; n: number }>();
    for (const f of this.failures) {
      const key = `${f.fn} | ${f.what} | expected ${f.expected} | got ${f.got}`;
      const g = groups.get(key);
      if (g) g.n++;
      else groups.set(key, { f, n: 1 });
    }
    return [...groups.entries()]
      .map(
        ([key, { f, n }]) =>
          `${n}x ${key}${f.message ? `\n     message: ${f.message.split('\n')[0]!.slice(0, 200)}` : ''}\n     repro: ${f.repro}`,
      )
      .join('\n');
  }
}

const CODES = new Set([
  'BAD_DTYPE',
  'DATA_TYPE',
  'DATA_LENGTH',
  'BAD_SHAPE',
  'RANK',
  'AXIS_RANGE',
  'BAD_SIZE',
  'SIZE_SUM',
  'BAD_PARTS',
  'NOT_DIVISIBLE',
  'BAD_OPTIONS',
  'BAD_INPUT',
  'BAD_ATTRIBUTE',
  'BAD_OPSET',
  'OUTPUT_COUNT',
  'TOO_LARGE',
  'NO_WEBGPU',
  'WRONG_BACKEND',
  'RELEASED',
  'DEVICE_LOST',
  'GPU_ERROR',
]);
const KINDS = new Set(['input', 'attribute', 'option', 'node', 'engine']);
const PARTS = new Set([undefined, 'dtype', 'shape', 'data', 'buffer', 'values']);

/** What is wrong with a SplitError's form (the contract: name, a known code, a message, a well-formed subject), if anything. */
export function malformed(e: SplitError): string | undefined {
  if (!(e instanceof Error) || e.name !== 'SplitError') return `a SplitError named ${String(e.name)}`;
  if (!CODES.has(e.code)) return `an unknown code ${String(e.code)}`;
  if (typeof e.message !== 'string' || e.message.length === 0) return 'an empty message';
  const s = e.subject as { kind?: unknown; name?: unknown; part?: unknown } | undefined;
  if (
    s !== undefined &&
    (!KINDS.has(s.kind as string) || typeof s.name !== 'string' || !PARTS.has(s.part as string | undefined))
  ) {
    return `a malformed subject ${JSON.stringify(s)}`;
  }
  return undefined;
}
