// What Cleave keeps per device for the gather: its bind group and pipeline layouts, a spare buffer bound where a
// dispatch has fewer targets than the shader's bindings, and its compute pipelines, cached on the only things that
// change them: the shader text (the Word alias), the entry point and the bit order constant. Split sizes, offsets and
// counts are data, never part of the key: one pipeline per variant, at most five per device (three word widths, two
// bit orders). Nothing is made before a split needs it: a prepared split's `ready` compiles its variant
// asynchronously, as does a split that returns a promise; only a call that must record at once (an encode) compiles
// a missing variant synchronously.

import { SplitError } from '../errors.js';
import type { UnitBits } from '../planner/types.js';
import { USAGE } from '../usage.js';
import { GROUPS, TARGETS_PER_DISPATCH, bindGroupLayoutEntries, entryPoint, shaderText } from './shader.js';

/** The gather's layouts, spare buffer and pipelines on one device. */
export interface GatherKit {
  readonly layouts: readonly GPUBindGroupLayout[];
  readonly pipelineLayout: GPUPipelineLayout;
  /** Targets bound at a dynamic offset: the device's dynamic storage buffers less the source's. */
  readonly moving: number;
  /** Bound, a window of its own each (`spareStride` bytes apart), in the target bindings a dispatch leaves empty. */
  readonly spare: GPUBuffer;
  readonly spareStride: number;
  readonly pipelines: Map<Variant, GPUComputePipeline | Promise<GPUComputePipeline>>;
}

/** The variants: a word width, or the bit-level variant in either bit order. */
const VARIANTS = [32, 64, 128, 'bits', 'bits-msb'] as const;
type Variant = (typeof VARIANTS)[number];

/** The most compute pipelines an engine compiles on one device, whatever it splits: one per shader variant. */
export const SHADER_VARIANTS = VARIANTS.length;

const variantOf = (unit: UnitBits, msbFirst: boolean): Variant => (unit !== 1 ? unit : msbFirst ? 'bits-msb' : 'bits');

const kits = new WeakMap<GPUDevice, GatherKit>();

/** The device's kit, made on first use. */
export function gatherKit(device: GPUDevice): GatherKit {
  let k = kits.get(device);
  if (k) return k;
  const moving = Math.min(TARGETS_PER_DISPATCH, device.limits.maxDynamicStorageBuffersPerPipelineLayout - 1);
  const layouts = GROUPS.map((g) =>
    device.createBindGroupLayout({ label: `cleave-gather-${g}`, entries: bindGroupLayoutEntries(g, moving) }),
  );
  const pipelineLayout = device.createPipelineLayout({ bindGroupLayouts: layouts });
  const spareStride = device.limits.minStorageBufferOffsetAlignment;
  const size = TARGETS_PER_DISPATCH * spareStride;
  const spare = device.createBuffer({ label: 'cleave-spare', size, usage: USAGE.STORAGE });
  kits.set(device, (k = { layouts, pipelineLayout, moving, spare, spareStride, pipelines: new Map() }));
  return k;
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

/** The variant's pipeline if it is compiled; undefined while it is not (or still compiling). */
export function compiled(device: GPUDevice, unit: UnitBits, msbFirst: boolean): GPUComputePipeline | undefined {
  const p = gatherKit(device).pipelines.get(variantOf(unit, msbFirst));
  return p instanceof Promise ? undefined : p;
}

/**
 * The variant's pipeline now, for a call that records at once: compiled synchronously when missing or still
 * compiling (a browser returns at once and compiles in its GPU process).
 */
export function pipelineNow(device: GPUDevice, unit: UnitBits, msbFirst: boolean): GPUComputePipeline {
  const made = compiled(device, unit, msbFirst);
  if (made) return made;
  const k = gatherKit(device);
  const v = variantOf(unit, msbFirst);
  const p = device.createComputePipeline(descriptor(k, device, v));
  k.pipelines.set(v, p);
  return p;
}

/**
 * The variant's pipeline, compiled asynchronously once: concurrent callers share the compile, and a failed compile is
 * dropped (the next call tries again) and rejects with GPU_ERROR, the device's error as its cause.
 */
export function compile(device: GPUDevice, unit: UnitBits, msbFirst: boolean): Promise<GPUComputePipeline> {
  const k = gatherKit(device);
  const v = variantOf(unit, msbFirst);
  const had = k.pipelines.get(v);
  if (had) return Promise.resolve(had);
  const p = device.createComputePipelineAsync(descriptor(k, device, v)).then(
    (made) => (k.pipelines.set(v, made), made),
    (e: unknown) => {
      k.pipelines.delete(v);
      throw new SplitError(
        'GPU_ERROR',
        `compiling the gather shader (${v}) failed: ${(e as Error)?.message}`,
        undefined,
        e,
      );
    },
  );
  k.pipelines.set(v, p);
  return p;
}

/** Compiles the variants most splits use (vec4<u32> and u32 words): for an engine on a device it found itself. */
export async function warmUp(device: GPUDevice): Promise<void> {
  await Promise.all([compile(device, 128, false), compile(device, 32, false)]).catch(() => undefined);
}

/** How many pipelines Cleave has compiled, or is compiling, on this device. */
export function pipelinesCreated(device: GPUDevice): number {
  return kits.get(device)?.pipelines.size ?? 0;
}
