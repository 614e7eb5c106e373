// Compute pipelines, cached per device (in its record, device.ts) on the only things that change them: the shader text
// (the Word alias), the entry point and the bit order constant. Split sizes, offsets and counts are data, never part
// of the key, so after warm-up a split compiles nothing: one pipeline per variant, at most five per device (three word
// widths, two bit orders). One explicit set of bind group layouts serves every variant.

import type { UnitBits } from '../planner/types.js';
import { GROUPS, bindGroupLayoutEntries, entryPoint, shaderText } from './shader.js';
import { deviceRecord } from './device.js';

/** The gather's bind group layouts (one per group of the shader), its pipeline layout and its pipelines. */
export interface GatherKit {
  readonly layouts: readonly GPUBindGroupLayout[];
  readonly pipelineLayout: GPUPipelineLayout;
  readonly pipelines: Map<Variant, GPUComputePipeline | Promise<GPUComputePipeline>>;
}

/** The variants: a word width, or the bit-level variant in either bit order. */
const VARIANTS = [32, 64, 128, 'bits', 'bits-msb'] as const;
type Variant = (typeof VARIANTS)[number];

/** The most compute pipelines an engine compiles on one device, whatever it splits: one per shader variant. */
export const SHADER_VARIANTS = VARIANTS.length;

const variantOf = (unit: UnitBits, msbFirst: boolean): Variant => (unit !== 1 ? unit : msbFirst ? 'bits-msb' : 'bits');

/** The device's kit, made on first use. */
export function gatherKit(device: GPUDevice): GatherKit {
  const record = deviceRecord(device);
  if (record.gather) return record.gather;
  const layouts = GROUPS.map((g) =>
    device.createBindGroupLayout({ label: `cleave-gather-${g}`, entries: bindGroupLayoutEntries(g) }),
  );
  const pipelineLayout = device.createPipelineLayout({ bindGroupLayouts: layouts });
  return (record.gather = { layouts, pipelineLayout, pipelines: new Map() });
}

function descriptor(k: GatherKit, device: GPUDevice, v: Variant): GPUComputePipelineDescriptor {
  const unit = typeof v === 'number' ? v : 1;
  const module = device.createShaderModule({ label: 'cleave-gather', code: shaderText(unit) });
  return {
    label: `cleave-gather-${v}`,
    layout: k.pipelineLayout,
    compute: { module, entryPoint: entryPoint(unit), constants: v === 'bits-msb' ? { MSB_FIRST: 1 } : {} },
  };
}

/**
 * The pipeline for a word width, now: a split records its commands at the call. A variant not yet
 * compiled is compiled synchronously (a browser returns at once and compiles in its GPU process).
 */
export function pipelineFor(device: GPUDevice, unit: UnitBits, msbFirst: boolean): GPUComputePipeline {
  const k = gatherKit(device);
  const v = variantOf(unit, msbFirst);
  const p = k.pipelines.get(v);
  if (p && !(p instanceof Promise)) return p;
  const made = device.createComputePipeline(descriptor(k, device, v));
  k.pipelines.set(v, made);
  return made;
}

/**
 * Compiles the variants most splits use (vec4<u32> and u32 words) asynchronously, once per device.
 * The planner's costs are measured later, off the first split's path (calibrate.ts).
 */
export async function warmUp(device: GPUDevice): Promise<void> {
  const k = gatherKit(device);
  await Promise.all(
    ([128, 32] as const).map(async (unit) => {
      if (k.pipelines.has(unit)) return;
      const p = device.createComputePipelineAsync(descriptor(k, device, unit));
      k.pipelines.set(unit, p);
      try {
        k.pipelines.set(unit, await p);
      } catch {
        k.pipelines.delete(unit);
      }
    }),
  );
}

/** How many pipelines Cleave has compiled on this device. */
export function pipelinesCreated(device: GPUDevice): number {
  return deviceRecord(device).gather?.pipelines.size ?? 0;
}
