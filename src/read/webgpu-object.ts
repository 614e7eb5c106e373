// Is this really a WebGPU object? Dawn crashes the process on a look-alike or a Proxy of a real
// one, so every GPU object a caller hands Cleave (device, buffer, encoder) is checked here first.
// The classes come from globalThis (a browser, or a Node program that installed the `webgpu`
// package's globals), else from the `webgpu` package Cleave loaded itself: Cleave never writes
// them onto globalThis.

import { SplitError, show } from '../errors.js';

let loaded: Readonly<Record<string, unknown>> = {};

/** Records the WebGPU classes of the `webgpu` package Cleave loaded in Node. */
export function useWebGpuClasses(classes: object): void {
  loaded = classes as Record<string, unknown>;
}

/**
 * Whether `x` is a real instance of WebGPU's `cls`: an instance, then branded, checked through the
 * class's own native `label` getter, which refuses proxies and objects made from its prototype. Where
 * no such class is known (Node, with a device made by the caller's own `webgpu` import and no
 * globals), it must quack like one.
 */
export function isA(x: unknown, cls: string, methods: readonly string[]): boolean {
  const c = ((globalThis as Record<string, unknown>)[cls] ?? loaded[cls]) as (abstract new () => object) | undefined;
  const o = x as Record<string, unknown>;
  if (typeof c !== 'function')
    return typeof x === 'object' && x !== null && methods.every((m) => typeof o[m] === 'function');
  // instanceof first: Dawn's native getters trust the wrapped type, so one of another class (a
  // GPUBuffer given as a device) would crash the process instead of throwing.
  if (!(x instanceof c)) return false;
  // Then the brand, through the first `label` getter on the class's prototype chain (the native one).
  let get: (() => unknown) | undefined;
  for (let proto = c.prototype as object | null; proto && !get; proto = Object.getPrototypeOf(proto) as object | null)
    get = Object.getOwnPropertyDescriptor(proto, 'label')?.get;
  try {
    if (get) Reflect.apply(get, x, []);
  } catch {
    return false;
  }
  return true;
}

/**
 * What Cleave knows of a GPUBuffer: what never changes (size, usage), read once, since a split reads it on every call
 * and each native read costs; and, for a caller's buffer, whether its last split settled with no GPU error (`clean`:
 * it is on the engine's device and was not destroyed then; gpu/split.ts's scope policy).
 */
export type BufferFacts = { readonly size: number; readonly usage: number; clean?: boolean };

const facts = new WeakMap<object, BufferFacts>();

/** A real GPUBuffer's facts (not a Proxy of one, not a look-alike: Dawn would crash on those), else undefined. */
export function bufferFacts(b: unknown): BufferFacts | undefined {
  let f = typeof b === 'object' && b !== null ? facts.get(b) : undefined;
  if (!f && isA(b, 'GPUBuffer', ['mapAsync', 'destroy'])) facts.set(b as GPUBuffer, (f = readFacts(b as GPUBuffer)));
  return f;
}

/** A buffer Cleave created, its facts from its descriptor. */
export function madeBuffer(b: GPUBuffer, size: number, usage: number): void {
  facts.set(b, { size, usage });
}

const readFacts = (b: GPUBuffer): BufferFacts => ({ size: b.size, usage: b.usage });

/** The caller's encoder. */
export function readEncoder(encoder: unknown, what: string): GPUCommandEncoder {
  if (!isA(encoder, 'GPUCommandEncoder', ['beginComputePass']))
    throw new SplitError('BAD_INPUT', `${what}: expected a GPUCommandEncoder, got ${show(encoder)}`, 'input:encoder');
  return encoder as GPUCommandEncoder;
}
