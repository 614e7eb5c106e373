// Instruments WebGPU for the bench, by swapping prototype methods only while a measurement needs
// them (zero cost otherwise), so every system (Cleave, ONNX Runtime's wasm-driven EP, the limits) is
// observed the same way without touching its code:
// - counting: GPU calls one split makes (submits, copies, dispatches, buffers, bind groups, ...);
// - timestamps: GPU time of every command buffer submitted, measured with an empty timestamped
//   compute pass at its start and at its end, so idle gaps between submits are not counted;
// - pipelines: compute pipelines created per device over the whole run (always on; rare calls).

const DEV = GPUDevice.prototype;
const ENC = GPUCommandEncoder.prototype;
const PASS = GPUComputePassEncoder.prototype;
const QUEUE = GPUQueue.prototype;
const BUF = GPUBuffer.prototype;
const orig = {
  createCommandEncoder: DEV.createCommandEncoder,
  createBuffer: DEV.createBuffer,
  createBindGroup: DEV.createBindGroup,
  createComputePipeline: DEV.createComputePipeline,
  createComputePipelineAsync: DEV.createComputePipelineAsync,
  createShaderModule: DEV.createShaderModule,
  copyBufferToBuffer: ENC.copyBufferToBuffer,
  beginComputePass: ENC.beginComputePass,
  finish: ENC.finish,
  dispatchWorkgroups: PASS.dispatchWorkgroups,
  dispatchWorkgroupsIndirect: PASS.dispatchWorkgroupsIndirect,
  submit: QUEUE.submit,
  writeBuffer: QUEUE.writeBuffer,
  mapAsync: BUF.mapAsync,
};

// ---- pipelines, always counted -------------------------------------------------------------
const pipelines = new WeakMap();
const bump = (dev) => pipelines.set(dev, (pipelines.get(dev) ?? 0) + 1);
DEV.createComputePipeline = function (d) { bump(this); return orig.createComputePipeline.call(this, d); };
DEV.createComputePipelineAsync = function (d) { bump(this); return orig.createComputePipelineAsync.call(this, d); };
/** Compute pipelines created on `device` since the page loaded, by anyone. */
export function pipelinesOn(device) {
  return pipelines.get(device) ?? 0;
}

// ---- counting --------------------------------------------------------------------------------
/** Runs `fn` and returns [its result, the GPU calls it made]. */
export async function countCalls(fn) {
  const c = { submits: 0, commandBuffers: 0, copies: 0, dispatches: 0, passes: 0, buffersCreated: 0, bindGroups: 0, writeBuffers: 0, mapAsyncs: 0 };
  DEV.createBuffer = function (d) { c.buffersCreated++; return orig.createBuffer.call(this, d); };
  DEV.createBindGroup = function (d) { c.bindGroups++; return orig.createBindGroup.call(this, d); };
  ENC.copyBufferToBuffer = function (...a) { c.copies++; return orig.copyBufferToBuffer.apply(this, a); };
  ENC.beginComputePass = function (d) { c.passes++; return orig.beginComputePass.call(this, d); };
  PASS.dispatchWorkgroups = function (...a) { c.dispatches++; return orig.dispatchWorkgroups.apply(this, a); };
  PASS.dispatchWorkgroupsIndirect = function (...a) { c.dispatches++; return orig.dispatchWorkgroupsIndirect.apply(this, a); };
  QUEUE.submit = function (cbs) { c.submits++; c.commandBuffers += cbs.length; return orig.submit.call(this, cbs); };
  QUEUE.writeBuffer = function (...a) { c.writeBuffers++; return orig.writeBuffer.apply(this, a); };
  BUF.mapAsync = function (...a) { c.mapAsyncs++; return orig.mapAsync.apply(this, a); };
  try {
    return [await fn(), c];
  } finally {
    for (const [o, k] of [[DEV, 'createBuffer'], [DEV, 'createBindGroup'], [ENC, 'copyBufferToBuffer'], [ENC, 'beginComputePass'],
      [PASS, 'dispatchWorkgroups'], [PASS, 'dispatchWorkgroupsIndirect'], [QUEUE, 'submit'], [QUEUE, 'writeBuffer'], [BUF, 'mapAsync']]) {
      o[k] = orig[k];
    }
  }
}

// ---- timestamps ------------------------------------------------------------------------------
const CAPACITY = 4096; // maxQuerySetSize-safe; two queries per command buffer

/** GPU time of command buffers on one device. Usable only when the device has 'timestamp-query'. */
export class GpuTimer {
  constructor(device) {
    this.device = device;
    this.ok = device.features.has('timestamp-query');
    if (!this.ok) return;
    this.querySet = device.createQuerySet({ type: 'timestamp', count: CAPACITY });
    this.resolveBuf = orig.createBuffer.call(device, { size: CAPACITY * 8, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
    this.readBuf = orig.createBuffer.call(device, { size: CAPACITY * 8, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  }

  /**
   * Runs `fn` (which must leave its GPU work submitted and finished: it awaits the queue itself)
   * and returns [its result, { ns: summed GPU time, commandBuffers, overflow }].
   */
  async time(fn) {
    if (!this.ok) return [await fn(), undefined];
    const device = this.device;
    const qs = this.querySet;
    let next = 0;
    let overflow = 0;
    const pairOf = new WeakMap();
    const submitted = [];
    DEV.createCommandEncoder = function (d) {
      const enc = orig.createCommandEncoder.call(this, d);
      if (this !== device) return enc;
      if (next + 2 > CAPACITY) { overflow++; return enc; }
      const i = next;
      next += 2;
      orig.beginComputePass.call(enc, { timestampWrites: { querySet: qs, beginningOfPassWriteIndex: i } }).end();
      enc.finish = function (fd) {
        delete this.finish;
        orig.beginComputePass.call(this, { timestampWrites: { querySet: qs, beginningOfPassWriteIndex: i + 1 } }).end();
        const cb = orig.finish.call(this, fd);
        pairOf.set(cb, i);
        return cb;
      };
      return enc;
    };
    QUEUE.submit = function (cbs) {
      for (const cb of cbs) if (pairOf.has(cb)) submitted.push(pairOf.get(cb));
      return orig.submit.call(this, cbs);
    };
    let result;
    try {
      result = await fn();
    } finally {
      DEV.createCommandEncoder = orig.createCommandEncoder;
      QUEUE.submit = orig.submit;
    }
    if (next === 0) return [result, { ns: 0, commandBuffers: 0, overflow }];
    const enc = orig.createCommandEncoder.call(device);
    enc.resolveQuerySet(qs, 0, next, this.resolveBuf, 0);
    orig.copyBufferToBuffer.call(enc, this.resolveBuf, 0, this.readBuf, 0, next * 8);
    orig.submit.call(device.queue, [orig.finish.call(enc)]);
    await orig.mapAsync.call(this.readBuf, GPUMapMode.READ, 0, next * 8);
    const t = new BigUint64Array(this.readBuf.getMappedRange(0, next * 8).slice(0));
    this.readBuf.unmap();
    let ns = 0;
    let counted = 0;
    for (const i of submitted) {
      const a = t[i];
      const b = t[i + 1];
      if (a > 0n && b >= a) { ns += Number(b - a); counted++; }
    }
    return [result, { ns, commandBuffers: counted, overflow }];
  }
}

/** The original createBuffer, for the bench's own buffers (never counted). */
export function createBuffer(device, desc) {
  return orig.createBuffer.call(device, desc);
}
