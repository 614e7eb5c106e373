// What Cleave keeps per device for the gather: its bind group and pipeline layouts, a spare buffer bound where a
// dispatch has fewer targets than the shader's bindings, and its compute pipelines, cached on the only things that
// change them: the shader text (the Word alias), the entry point and the two constants (the bit order, and whether the
// plan has one target). Split sizes, offsets and counts are data, never part of the key: one pipeline per variant, at
// most ten per device (three word widths and two bit orders, each for one target or many). Nothing is made before a
// split needs it: a prepared split's `ready` compiles its variant asynchronously, as does a split that returns a
// promise; only a call that must record at once (an encode) compiles a missing variant synchronously.

import { SplitError } from '../errors.js';
import type { GpuPlan } from '../planner/types.js';
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

/** What of a plan picks its pipeline: its word, its bit order and its number of targets. */
export type Gather = Pick<GpuPlan, 'unitBits' | 'msbFirst'> & { readonly targets: ArrayLike<unknown> };

/** The variants: a word width, or the bit-level variant in either bit order; each for one target or many. */
const KINDS = ['32', '64', '128', 'bits', 'bits-msb'] as const;
type Variant = `${(typeof KINDS)[number]}${'' | '-one'}`;

/** The most compute pipelines an engine compiles on one device, whatever it splits: one per shader variant. */
export const SHADER_VARIANTS = KINDS.length * 2;

/**
 * A plan's variant. One target compiles the target switch away (ONE_TARGET): a software adapter runs a switch on
 * data as divergent, each case masked, which halves its copy rate.
 */
function variantOf(g: Gather): Variant {
  const kind = g.unitBits > 1 ? (`${g.unitBits}` as (typeof KINDS)[number]) : g.msbFirst ? 'bits-msb' : 'bits';
  return g.targets.length === 1 ? `${kind}-one` : kind;
}

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

function descriptor(k: GatherKit, device: GPUDevice, g: Gather): GPUComputePipelineDescriptor {
  const unit = g.unitBits || 1;
  const module = device.createShaderModule({ label: 'cleave-gather', code: shaderText(unit) });
  const constants = { ONE_TARGET: Number(g.targets.length === 1), ...(unit === 1 && g.msbFirst && { MSB_FIRST: 1 }) };
  return {
    label: `cleave-gather-${variantOf(g)}`,
    layout: k.pipelineLayout,
    compute: { module, entryPoint: entryPoint(unit), constants },
  };
}

/** The variant's pipeline if it is compiled; undefined while it is not (or still compiling). */
export function compiled(device: GPUDevice, g: Gather): GPUComputePipeline | undefined {
  const p = gatherKit(device).pipelines.get(variantOf(g));
  return p instanceof Promise ? undefined : p;
}

/**
 * The variant's pipeline now, for a call that records at once: compiled synchronously when missing or still
 * compiling (a browser returns at once and compiles in its GPU process).
 */
export function pipelineNow(device: GPUDevice, g: Gather): GPUComputePipeline {
  const made = compiled(device, g);
  if (made) return made;
  const k = gatherKit(device);
  const p = device.createComputePipeline(descriptor(k, device, g));
  k.pipelines.set(variantOf(g), p);
  return p;
}

/**
 * The variant's pipeline, compiled asynchronously once: concurrent callers share the compile, and a failed compile is
 * dropped (the next call tries again) and rejects with GPU_ERROR, the device's error as its cause.
 */
export function compile(device: GPUDevice, g: Gather): Promise<GPUComputePipeline> {
  const k = gatherKit(device);
  const v = variantOf(g);
  const had = k.pipelines.get(v);
  if (had) return Promise.resolve(had);
  const p = device.createComputePipelineAsync(descriptor(k, device, g)).then(
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

/** Compiles the variants most splits use (vec4<u32> and u32 words, one target): for an engine on its own device. */
export async function warmUp(device: GPUDevice): Promise<void> {
  const one = (unitBits: 32 | 128): Gather => ({ unitBits, msbFirst: false, targets: [0] });
  await Promise.all([compile(device, one(128)), compile(device, one(32))]).catch(() => undefined);
}

/** How many pipelines Cleave has compiled, or is compiling, on this device. */
export function pipelinesCreated(device: GPUDevice): number {
  return kits.get(device)?.pipelines.size ?? 0;
}
