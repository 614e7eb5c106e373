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

/** Objects that passed a class's native check, per class: the same buffer is split again and again. */
const branded = new WeakMap<object, WeakSet<object>>();

/** Each class's native `label` getter (or none), found once: a split checks a buffer on every call. */
const labels = new WeakMap<object, (() => unknown) | null>();

function labelGetter(c: abstract new () => object): (() => unknown) | undefined {
  let get = labels.get(c);
  if (get === undefined) {
    let proto: object | null = c.prototype as object;
    while (proto && !(get = Object.getOwnPropertyDescriptor(proto, 'label')?.get))
      proto = Object.getPrototypeOf(proto) as object | null;
    labels.set(c, (get ??= null));
  }
  return get ?? undefined;
}

/**
 * Whether `x` is a real instance of WebGPU's `cls`: an instance, then branded, checked through the
 * class's own native `label` getter, which refuses proxies and objects made from its prototype. Where
 * no such class is known (Node, with a device made by the caller's own `webgpu` import and no
 * globals), it must quack like one. `remember`: the object is met again and again (a buffer, a
 * device), so its native check is made once; an encoder is new for every call and never kept.
 */
export function isA(x: unknown, cls: string, methods: readonly string[], remember = true): boolean {
  const c = ((globalThis as Record<string, unknown>)[cls] ?? loaded[cls]) as (abstract new () => object) | undefined;
  if (typeof c !== 'function') {
    return (
      typeof x === 'object' &&
      x !== null &&
      methods.every((m) => typeof (x as Record<string, unknown>)[m] === 'function')
    );
  }
  // instanceof first: Dawn's native getters trust the wrapped type, so one of another class (a
  // GPUBuffer given as a device) would crash the process instead of throwing.
  if (!(x instanceof c)) return false;
  // The native getter's check costs a generic call (a microsecond in Firefox): once per object kept.
  let real = branded.get(c);
  if (!real) branded.set(c, (real = new WeakSet()));
  if (remember && real.has(x)) return true;
  const get = labelGetter(c);
  try {
    if (get) Reflect.apply(get, x, []);
  } catch {
    return false;
  }
  if (remember) real.add(x);
  return true;
}
