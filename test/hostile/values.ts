// Hostile values: proxies that throw or lie, getters that change between reads, revoked proxies,
// null prototypes, odd primitives, and host memory that is shared, resizable or detached.

const TRAPS = [
  'get',
  'has',
  'ownKeys',
  'getOwnPropertyDescriptor',
  'getPrototypeOf',
  'set',
  'defineProperty',
  'deleteProperty',
  'isExtensible',
  'preventExtensions',
] as const;

/** A proxy every trap of which throws. */
export function throwingProxy<T extends object>(target: T): T {
  const h: ProxyHandler<T> = {};
  for (const t of TRAPS)
    (h as Record<string, unknown>)[t] = () => {
      throw new Error(`hostile trap '${t}'`);
    };
  return new Proxy(target, h);
}

/** A proxy whose `get` throws for every key but those listed. */
export function throwingGet<T extends object>(target: T, except: readonly PropertyKey[] = []): T {
  return new Proxy(target, {
    get(t, k, r) {
      if (except.includes(k)) return Reflect.get(t, k, r);
      throw new Error(`hostile get of ${String(k)}`);
    },
  });
}

/** A revoked proxy: even Array.isArray throws on it. */
export function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

/** An array proxy whose `length` says `length`, whatever it holds. */
export function lyingLength<T>(values: readonly T[], length: number): T[] {
  return new Proxy([...values], {
    get(t, k, r) {
      return k === 'length' ? length : Reflect.get(t, k, r);
    },
  });
}

/** A proxy that forwards every read (a logging wrapper): valid wherever its target is. */
export function honestProxy<T extends object>(target: T): T {
  return new Proxy(target, { get: (t, k) => Reflect.get(t, k) });
}

/** Defines `key` on `obj` as a getter that returns `values[0]` on the first read, then `values[1]`, ... (the last one repeats). */
export function changingGetter<T extends object>(obj: T, key: PropertyKey, values: readonly unknown[]): T {
  let reads = 0;
  Object.defineProperty(obj, key, {
    get: () => values[Math.min(reads++, values.length - 1)],
    enumerable: true,
    configurable: true,
  });
  return obj;
}

/** Defines `key` on `obj` as a getter that throws. */
export function throwingGetter<T extends object>(obj: T, key: PropertyKey): T {
  Object.defineProperty(obj, key, {
    get: () => {
      throw new Error(`hostile getter '${String(key)}'`);
    },
    enumerable: true,
    configurable: true,
  });
  return obj;
}

/** The same own properties on an object with a null prototype. */
export function nullProto<T extends object>(obj: T): T {
  return Object.assign(Object.create(null) as T, obj);
}

/** Values that are not what any field takes, each with a name for reports. */
export const JUNK: readonly [string, () => unknown][] = [
  ['null', () => null],
  ['undefined', () => undefined],
  ['a number', () => 5],
  ['NaN', () => NaN],
  ['a string', () => 'tensor'],
  ['a Symbol', () => Symbol('hostile')],
  ['a bigint', () => 10n],
  ['a boolean', () => true],
  ['a function', () => () => 0],
  ['a Map', () => new Map([['dtype', 'float32']])],
  ['a Date', () => new Date(0)],
];

/** A typed array of the same class whose ArrayBuffer has been transferred away (detached). */
export function detached<T>(make: (b: ArrayBuffer) => T, bytes: number): T {
  const ab = new ArrayBuffer(bytes);
  const t = make(ab);
  structuredClone(ab, { transfer: [ab] });
  return t;
}

/** ES2024 constructors with a maximum length (resizable ArrayBuffer, growable SharedArrayBuffer); lib ES2022 lacks them. */
type Sized<T> = new (n: number, o: { maxByteLength: number }) => T;

/** A copy of `src`'s bytes in memory of the given kind, viewed by `make`. */
export function inMemory<T>(
  kind: 'shared' | 'growable' | 'resizable' | 'tracking',
  src: Uint8Array,
  make: (b: ArrayBufferLike, byteOffset: number, length?: number) => T,
  elementBytes: number,
): T {
  const n = src.byteLength;
  const room = n + 64;
  const b: ArrayBufferLike =
    kind === 'shared'
      ? new SharedArrayBuffer(n)
      : kind === 'growable'
        ? new (SharedArrayBuffer as unknown as Sized<SharedArrayBuffer>)(n, { maxByteLength: room })
        : new (ArrayBuffer as unknown as Sized<ArrayBuffer>)(n, { maxByteLength: room });
  new Uint8Array(b).set(src);
  // 'tracking': a length-tracking view (no length given) over a resizable buffer.
  return kind === 'tracking' ? make(b, 0) : make(b, 0, n / elementBytes);
}
