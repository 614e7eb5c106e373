// What an implementation offers and what Cleave's device got from it, gathered the same way under
// every runtime (Dawn in Node, wgpu in Deno) so a test can name each difference between them: the
// adapter's info, features and limits, the limits of a device asked for nothing, the features and
// limits of the device Cleave made, and whether timestamps written in a compute pass come back
// (Cleave's calibration times its probes with them), and what its compiler says of Cleave's shader.
// Nothing here imports vitest or Cleave.

import type { SplitEngine } from '../../src/index.js';

export interface Facts {
  /** navigator.userAgent, or Node's version where there is no navigator. */
  readonly runtime: string;
  readonly adapter: {
    readonly info: { readonly vendor: string; readonly architecture: string; readonly description: string };
    readonly features: readonly string[];
    readonly limits: Readonly<Record<string, number>>;
  };
  /** A device asked for no limits: the WebGPU defaults, as this implementation gives them. */
  readonly defaultLimits: Readonly<Record<string, number>>;
  /** The device of an engine Cleave made itself (`backend: 'webgpu'`). */
  readonly cleave: {
    readonly backend: string;
    readonly adapterInfo: { readonly vendor: string; readonly architecture: string } | undefined;
    readonly features: readonly string[];
    readonly limits: Readonly<Record<string, number>>;
  };
  /** Two timestamps around a compute pass, read back, as decimal strings (or why there are none). */
  readonly timestamps: readonly string[] | string;
  /** The compiler's messages on shaders/split-gather.wgsl as written ('error: …', 'warning: …'). */
  readonly shaderMessages: readonly string[];
}

/** Every numeric limit, read through the getters (they are not own properties). */
function limitsOf(l: GPUSupportedLimits): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k in l) {
    const v = (l as unknown as Record<string, unknown>)[k];
    if (typeof v === 'number') out[k] = v;
  }
  return out;
}

/** Timestamps at the start and the end of an empty compute pass, through resolveQuerySet and a readback. */
async function timestamps(device: GPUDevice): Promise<readonly string[] | string> {
  if (!device.features.has('timestamp-query')) return 'no timestamp-query on the device';
  device.pushErrorScope('validation');
  const set = device.createQuerySet({ type: 'timestamp', count: 2 });
  const [MAP_READ, COPY_SRC, COPY_DST, QUERY_RESOLVE] = [0x1, 0x4, 0x8, 0x200];
  const resolve = device.createBuffer({ size: 16, usage: QUERY_RESOLVE | COPY_SRC });
  const read = device.createBuffer({ size: 16, usage: MAP_READ | COPY_DST });
  const enc = device.createCommandEncoder();
  enc
    .beginComputePass({ timestampWrites: { querySet: set, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 } })
    .end();
  enc.resolveQuerySet(set, 0, 2, resolve, 0);
  enc.copyBufferToBuffer(resolve, 0, read, 0, 16);
  device.queue.submit([enc.finish()]);
  const error = await device.popErrorScope();
  if (error) return `validation error: ${error.message}`;
  await read.mapAsync(MAP_READ);
  const stamps = [...new BigInt64Array(read.getMappedRange())].map(String);
  read.unmap();
  for (const x of [set, resolve, read]) x.destroy();
  return stamps;
}

/** The compiler's messages on `code`, and the validation error of creating its module, if any. */
async function compile(device: GPUDevice, code: string): Promise<string[]> {
  device.pushErrorScope('validation');
  const info = await device.createShaderModule({ code }).getCompilationInfo();
  const error = await device.popErrorScope();
  return [...info.messages.map((m) => `${m.type}: ${m.message}`), ...(error ? [`validation: ${error.message}`] : [])];
}

/** The facts of the implementation behind `gpu`; `engine` is one Cleave made on it, `shader` Cleave's WGSL. */
export async function gatherFacts(
  gpu: Pick<GPU, 'requestAdapter'>,
  engine: SplitEngine,
  shader: string,
): Promise<Facts> {
  const adapter = await gpu.requestAdapter();
  if (!adapter) throw new Error('requestAdapter() gave no adapter');
  const info = adapter.info;
  const plain = await adapter.requestDevice();
  const defaultLimits = limitsOf(plain.limits);
  plain.destroy();
  const device = engine.device!;
  const nav = (globalThis as { navigator?: { userAgent?: string } }).navigator;
  const node = (globalThis as { process?: { version?: string } }).process?.version;
  return {
    runtime: nav?.userAgent ?? `Node/${node}`,
    adapter: {
      info: { vendor: info.vendor, architecture: info.architecture, description: info.description },
      features: [...adapter.features].sort(),
      limits: limitsOf(adapter.limits),
    },
    defaultLimits,
    cleave: {
      backend: engine.backend,
      adapterInfo: engine.adapterInfo,
      features: [...device.features].sort(),
      limits: limitsOf(device.limits),
    },
    timestamps: await timestamps(device),
    shaderMessages: await compile(device, shader),
  };
}
