// Instruments WebGPU for the bench, by swapping prototype methods only while a measurement needs
// them (zero cost otherwise), so every system (Cleave, ONNX Runtime's wasm-driven EP, the limits) is
// observed the same way without touching its code:
// - timestamps: GPU time of every command buffer submitted, measured with an empty timestamped
//   compute pass at its start and at its end, so idle gaps between submits are not counted;
// - counting (--probes): GPU calls one split makes (submits, copies and their bytes, dispatches, buffers,
//   scopes, ...).

/** @import { CallCounts } from '../types.js' */

const DEV = GPUDevice.prototype;
const ENC = GPUCommandEncoder.prototype;
const QUEUE = GPUQueue.prototype;
const orig = {
  createCommandEncoder: DEV.createCommandEncoder,
  createBuffer: DEV.createBuffer,
  beginComputePass: ENC.beginComputePass,
  finish: ENC.finish,
  copyBufferToBuffer: ENC.copyBufferToBuffer,
  submit: QUEUE.submit,
  mapAsync: GPUBuffer.prototype.mapAsync,
};

/**
 * Wraps `proto[key]` so each call first runs `before(this, args)`; returns the undo.
 * @param {object} proto @param {string} key @param {(self: unknown, args: unknown[]) => void} before
 */
function around(proto, key, before) {
  const o = /** @type {Record<string, (...a: unknown[]) => unknown>} */ (proto);
  const f = /** @type {(...a: unknown[]) => unknown} */ (o[key]);
  o[key] = function (/** @type {unknown[]} */ ...a) {
    before(this, a);
    return f.apply(this, a);
  };
  return () => {
    o[key] = f;
  };
}

// ---- counting (--probes) ---------------------------------------------------------------------
/** Which calls count as what: [prototype, method, counter]. */
const COUNTED = /** @type {const} */ ([
  [DEV, 'pushErrorScope', 'errorScopes'],
  [DEV, 'createBuffer', 'buffersCreated'],
  [DEV, 'createBindGroup', 'bindGroups'],
  [ENC, 'copyBufferToBuffer', 'copies'],
  [ENC, 'beginComputePass', 'passes'],
  [GPUComputePassEncoder.prototype, 'dispatchWorkgroups', 'dispatches'],
  [GPUComputePassEncoder.prototype, 'dispatchWorkgroupsIndirect', 'dispatches'],
  [QUEUE, 'submit', 'submits'],
  [QUEUE, 'writeBuffer', 'writeBuffers'],
  [GPUBuffer.prototype, 'mapAsync', 'mapAsyncs'],
]);

/** Calls counted beside the WebGPU ones: a peer's own entry points (ORT's session.run), added by countAlso. */
/** @type {[object, string, 'sessionRuns'][]} */
const ALSO = [];

/**
 * Counts the calls of `proto[key]` too (once per prototype and key) under `counter`.
 * @param {object} proto @param {string} key @param {'sessionRuns'} counter
 */
export function countAlso(proto, key, counter) {
  if (!ALSO.some(([p, k]) => p === proto && k === key)) ALSO.push([proto, key, counter]);
}

/**
 * Runs `fn` and returns [its result, the GPU calls it made]; `scopesPending` counts the error-scope
 * pops still unsettled when it resolved (it did not wait for them).
 * @template T
 * @param {() => Promise<T>} fn
 * @returns {Promise<[T, CallCounts]>}
 */
export async function countCalls(fn) {
  const counted = [...COUNTED, ...ALSO];
  const names = [...counted.map((x) => x[2]), 'commandBuffers', 'bytesCopied', 'scopesPending'];
  const c = /** @type {Required<CallCounts>} */ (/** @type {unknown} */ (Object.fromEntries(names.map((k) => [k, 0]))));
  const pending = new Set();
  const undo = counted.map(([proto, key, counter]) =>
    around(proto, key, (_, a) => {
      c[counter]++;
      if (key === 'submit') c.commandBuffers += [.../** @type {Iterable<unknown>} */ (a[0])].length;
      if (key === 'copyBufferToBuffer') c.bytesCopied += copySize(a);
    }),
  );
  const pop = DEV.popErrorScope;
  DEV.popErrorScope = function () {
    const p = pop.call(this);
    pending.add(p);
    const done = () => pending.delete(p);
    p.then(done, done);
    return p;
  };
  try {
    const value = await fn();
    c.scopesPending = pending.size;
    return [value, c];
  } finally {
    DEV.popErrorScope = pop;
    for (const u of undo) u();
  }
}

/**
 * The bytes a copyBufferToBuffer call copies, in either form: (source, sourceOffset, destination,
 * destinationOffset, size?) or (source, destination, size?); without a size, the rest of the source.
 * @param {unknown[]} a
 */
function copySize(a) {
  const src = /** @type {GPUBuffer} */ (a[0]);
  const [offset, size] = typeof a[1] === 'number' ? [a[1], a[4]] : [0, a[2]];
  return typeof size === 'number' ? size : src.size - offset;
}

// ---- timestamps ------------------------------------------------------------------------------
const CAPACITY = 4096; // maxQuerySetSize-safe; two queries per command buffer

/** @typedef {{ ns: number, commandBuffers: number, overflow: number }} GpuSpan */

/** GPU time of command buffers on one device. Usable only when the device has 'timestamp-query'. */
export class GpuTimer {
  /** @param {GPUDevice} device */
  constructor(device) {
    this.device = device;
    this.ok = device.features.has('timestamp-query');
    this.querySet = this.ok ? device.createQuerySet({ type: 'timestamp', count: CAPACITY }) : undefined;
    this.resolveBuf = orig.createBuffer.call(device, {
      size: CAPACITY * 8,
      usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC,
    });
    this.readBuf = orig.createBuffer.call(device, {
      size: CAPACITY * 8,
      usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    });
  }

  /**
   * Runs `fn` (which must leave its GPU work submitted and finished: it awaits the queue itself)
   * and returns [its result, the summed GPU span of its command buffers].
   * @template T
   * @param {() => Promise<T>} fn
   * @returns {Promise<[T, GpuSpan | undefined]>}
   */
  async time(fn) {
    const qs = this.querySet;
    if (!qs) return [await fn(), undefined];
    const marks = instrument(this.device, qs);
    let result;
    try {
      result = await fn();
    } finally {
      marks.undo();
    }
    if (marks.used() === 0) return [result, { ns: 0, commandBuffers: 0, overflow: marks.overflow() }];
    return [result, await this.read(qs, marks.used(), marks.submitted, marks.overflow())];
  }

  /**
   * @param {GPUQuerySet} qs @param {number} used @param {readonly number[]} submitted @param {number} overflow
   * @returns {Promise<GpuSpan>}
   */
  async read(qs, used, submitted, overflow) {
    const enc = orig.createCommandEncoder.call(this.device);
    enc.resolveQuerySet(qs, 0, used, this.resolveBuf, 0);
    orig.copyBufferToBuffer.call(enc, this.resolveBuf, 0, this.readBuf, 0, used * 8);
    orig.submit.call(this.device.queue, [orig.finish.call(enc)]);
    await orig.mapAsync.call(this.readBuf, GPUMapMode.READ, 0, used * 8);
    const t = new BigUint64Array(this.readBuf.getMappedRange(0, used * 8).slice(0));
    this.readBuf.unmap();
    let ns = 0;
    let counted = 0;
    for (const i of submitted) {
      const a = /** @type {bigint} */ (t[i]);
      const b = /** @type {bigint} */ (t[i + 1]);
      if (a > 0n && b >= a) {
        ns += Number(b - a);
        counted++;
      }
    }
    return { ns, commandBuffers: counted, overflow };
  }
}

/**
 * Until undo(): every command encoder created on `device` opens and closes with a timestamped
 * empty pass (queries i and i+1), and submit records which pairs reached the queue.
 * @param {GPUDevice} device @param {GPUQuerySet} qs
 */
function instrument(device, qs) {
  let next = 0;
  let overflow = 0;
  /** @type {WeakMap<GPUCommandBuffer, number>} */
  const pairOf = new WeakMap();
  /** @type {number[]} */
  const submitted = [];
  /** @param {GPUCommandEncoder} enc @param {number} index */
  const stamp = (enc, index) =>
    orig.beginComputePass.call(enc, { timestampWrites: { querySet: qs, beginningOfPassWriteIndex: index } }).end();
  DEV.createCommandEncoder = function (d) {
    const enc = orig.createCommandEncoder.call(this, d);
    if (this !== device) return enc;
    if (next + 2 > CAPACITY) {
      overflow++;
      return enc;
    }
    const i = next;
    next += 2;
    stamp(enc, i);
    enc.finish = function (fd) {
      enc.finish = orig.finish;
      stamp(this, i + 1);
      const cb = orig.finish.call(this, fd);
      pairOf.set(cb, i);
      return cb;
    };
    return enc;
  };
  QUEUE.submit = function (cbs) {
    for (const cb of cbs) {
      const i = pairOf.get(cb);
      if (i !== undefined) submitted.push(i);
    }
    return orig.submit.call(this, cbs);
  };
  return {
    submitted,
    used: () => next,
    overflow: () => overflow,
    undo() {
      DEV.createCommandEncoder = orig.createCommandEncoder;
      QUEUE.submit = orig.submit;
    },
  };
}

/**
 * The original createBuffer, for the bench's own buffers (never counted).
 * @param {GPUDevice} device @param {GPUBufferDescriptor} desc
 */
export function createBuffer(device, desc) {
  return orig.createBuffer.call(device, desc);
}
