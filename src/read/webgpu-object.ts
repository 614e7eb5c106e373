// Is this really a WebGPU object? Dawn crashes the process on a look-alike or a Proxy of a real
// one, so every GPU object a caller hands Cleave (device, buffer, encoder) is checked here first.
// The classes come from globalThis (a browser, or a Node program that installed the `webgpu`
// package's globals), else from the `webgpu` package Cleave loaded itself: Cleave never writes
// them onto globalThis.

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
  if (typeof c !== 'function') {
    return (
      typeof x === 'object' &&
      x !== null &&
      methods.every((m) => typeof (x as Record<string, unknown>)[m] === 'function')
    );
  }
  let proto: object | null = c.prototype as object;
  let get: (() => unknown) | undefined;
  while (proto && !(get = Object.getOwnPropertyDescriptor(proto, 'label')?.get))
    proto = Object.getPrototypeOf(proto) as object | null;
  // instanceof first: Dawn's native getters trust the wrapped type, so one of another class (a
  // GPUBuffer given as a device) would crash the process instead of throwing.
  if (!(x instanceof c)) return false;
  try {
    return !get || (Reflect.apply(get, x, []), true);
  } catch {
    return false;
  }
}
