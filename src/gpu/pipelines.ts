// Compute pipelines, cached per device on the only things that change them: the shader text (the
// Word alias) and the entry point. Split sizes, offsets and counts are data, never part of the key,
// so after warm-up a split compiles nothing. One explicit bind group layout serves every variant.

import { SplitError } from '../errors.js';
import { type UnitBits, WORDS_PER_THREAD } from '../planner/dispatch.js';
import { bindGroupLayoutEntries } from './layout.js';
import { entryPoint, shaderText } from './shader.js';

interface Entry {
  readonly promise: Promise<GPUComputePipeline>;
  ready: GPUComputePipeline | undefined;
}

interface DeviceKit {
  readonly bindGroupLayout: GPUBindGroupLayout;
  readonly pipelineLayout: GPUPipelineLayout;
  readonly modules: Map<string, GPUShaderModule>;
  readonly pipelines: Map<string, Entry>;
  created: number;
}

const kits = new WeakMap<GPUDevice, DeviceKit>();

function kit(device: GPUDevice): DeviceKit {
  let k = kits.get(device);
  if (!k) {
    const bindGroupLayout = device.createBindGroupLayout({ label: 'cleave-gather', entries: bindGroupLayoutEntries() });
    const pipelineLayout = device.createPipelineLayout({ label: 'cleave-gather', bindGroupLayouts: [bindGroupLayout] });
    k = { bindGroupLayout, pipelineLayout, modules: new Map(), pipelines: new Map(), created: 0 };
    kits.set(device, k);
  }
  return k;
}

export function gatherBindGroupLayout(device: GPUDevice): GPUBindGroupLayout {
  return kit(device).bindGroupLayout;
}

function descriptor(device: GPUDevice, k: DeviceKit, unit: UnitBits): GPUComputePipelineDescriptor {
  const code = shaderText(unit);
  let module = k.modules.get(code);
  if (!module) k.modules.set(code, (module = device.createShaderModule({ label: `cleave-gather-${unit}`, code })));
  const entry = entryPoint(unit);
  return { label: `cleave-${entry}-${unit}`, layout: k.pipelineLayout, compute: { module, entryPoint: entry, constants: { WORDS_PER_THREAD } } };
}

/**
 * The pipeline for a word width, compiled asynchronously (never blocking a browser's main thread)
 * on first request; concurrent requests share one compilation; a failed one is dropped so a later
 * split may try again.
 */
export function gatherPipeline(device: GPUDevice, unit: UnitBits): Promise<GPUComputePipeline> {
  const k = kit(device);
  const key = `${unit === 1 ? 1 : 32}:${shaderText(unit)}`;
  let e = k.pipelines.get(key);
  if (!e) {
    const promise = device.createComputePipelineAsync(descriptor(device, k, unit)).then((p) => {
      entry.ready = p;
      return p;
    }, (err: unknown) => {
      k.pipelines.delete(key);
      throw new SplitError('GPU_ERROR', `compiling the gather shader (${unit}-bit units) failed: ${(err as Error).message}`);
    });
    const entry: Entry = { promise, ready: undefined };
    k.pipelines.set(key, (e = entry));
    k.created++;
  }
  return e.promise;
}

/**
 * The pipeline now, for a caller's encoder that cannot wait: compiled pipelines come from the
 * cache; a variant never requested is compiled synchronously (once).
 */
export function gatherPipelineNow(device: GPUDevice, unit: UnitBits): GPUComputePipeline {
  const k = kit(device);
  const key = `${unit === 1 ? 1 : 32}:${shaderText(unit)}`;
  const e = k.pipelines.get(key);
  if (e?.ready) return e.ready;
  const p = device.createComputePipeline(descriptor(device, k, unit));
  if (!e) {
    k.pipelines.set(key, { promise: Promise.resolve(p), ready: p });
    k.created++;
  } else {
    e.ready = p; // an async compile of this variant is still running: this one serves until it lands
    k.created++;
  }
  return p;
}

/** Compiles the variants most splits use (vec4<u32> and u32 words), so a first split rarely waits. */
export async function warmUp(device: GPUDevice): Promise<void> {
  await Promise.all(([128, 32] as const).map((u) => gatherPipeline(device, u).catch(() => undefined)));
}

/** How many pipelines Cleave has compiled on this device. */
export function pipelinesCreated(device: GPUDevice): number {
  return kits.get(device)?.created ?? 0;
}
