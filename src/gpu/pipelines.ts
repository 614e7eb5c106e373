// Compute pipelines, cached per device on the only things that change them: the shader text (the
// Word alias) and the entry point. Split sizes, offsets and counts are data, never part of the key,
// so after warm-up a split compiles nothing. One explicit bind group layout is shared by every variant.

import { SplitError } from '../errors.js';
import { WORDS_PER_THREAD } from '../planner.js';
import { type UnitBytes, entryPoint, gatherLayout, shaderText } from './shader.js';

interface DeviceKit {
  readonly bindGroupLayout: GPUBindGroupLayout;
  readonly pipelineLayout: GPUPipelineLayout;
  readonly modules: Map<string, GPUShaderModule>;
  readonly pipelines: Map<string, Promise<GPUComputePipeline>>;
  created: number;
}

const kits = new WeakMap<GPUDevice, DeviceKit>();

function kit(device: GPUDevice): DeviceKit {
  let k = kits.get(device);
  if (!k) {
    const b = gatherLayout().bindings;
    const bindGroupLayout = device.createBindGroupLayout({
      label: 'cleave-gather',
      entries: [
        { binding: b.params, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'uniform' } },
        { binding: b.regions, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'read-only-storage' } },
        { binding: b.src, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'read-only-storage' } },
        { binding: b.dst, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'storage' } },
      ],
    });
    const pipelineLayout = device.createPipelineLayout({ label: 'cleave-gather', bindGroupLayouts: [bindGroupLayout] });
    k = { bindGroupLayout, pipelineLayout, modules: new Map(), pipelines: new Map(), created: 0 };
    kits.set(device, k);
  }
  return k;
}

export function gatherBindGroupLayout(device: GPUDevice): GPUBindGroupLayout {
  return kit(device).bindGroupLayout;
}

/**
 * The pipeline for a word width, compiled asynchronously (never blocking a browser's main thread)
 * on first request; concurrent requests share one compilation.
 */
export function gatherPipeline(device: GPUDevice, unit: UnitBytes): Promise<GPUComputePipeline> {
  const k = kit(device);
  const code = shaderText(unit);
  const entry = entryPoint(unit);
  const key = `${entry}\n${code}`;
  let p = k.pipelines.get(key);
  if (!p) {
    let module = k.modules.get(code);
    if (!module) {
      module = device.createShaderModule({ label: `cleave-gather-${unit}`, code });
      k.modules.set(code, module);
    }
    p = device.createComputePipelineAsync({
      label: `cleave-${entry}-${unit}`, layout: k.pipelineLayout,
      compute: { module, entryPoint: entry, constants: { WORDS_PER_THREAD } },
    }).catch((e: unknown) => {
      k.pipelines.delete(key); // a later split may try again
      throw new SplitError('GPU_ERROR', `compiling the gather shader (${unit}-byte words) failed: ${(e as Error).message}`);
    });
    k.pipelines.set(key, p);
    k.created++;
  }
  return p;
}

/** Starts compiling the variants most splits use (4- and 16-byte words), so a first split rarely waits. */
export function warmUp(device: GPUDevice): void {
  for (const unit of [16, 4] as const) void gatherPipeline(device, unit).catch(() => undefined);
}

/** How many pipelines Cleave has compiled on this device. */
export function pipelinesCreated(device: GPUDevice): number {
  return kits.get(device)?.created ?? 0;
}
