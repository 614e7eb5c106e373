// Finding a WebGPU device, the device's numbers the planner needs (its limits, and its costs once measured), and what
// Cleave keeps per device. The device: `navigator.gpu` in a browser; in Node the optional `webgpu` package (Dawn),
// imported by a computed name so browser bundles never contain it. The device asks the adapter for the largest buffers
// and bindings it has, since the split of a large tensor needs them. When there is none, the result says why, in words
// a user can act on. Nothing is written onto globalThis: the package's classes go to webgpu-object.ts for its checks.

import { useWebGpuClasses } from '../read/webgpu-object.js';
import type { GpuLimits } from '../planner/types.js';
import { type CostModel, DEFAULT_COSTS } from '../planner/costs.js';
import type { GatherKit } from './pipelines.js';

type GpuEntry = Pick<GPU, 'requestAdapter'>;

export interface AcquiredDevice {
  readonly device: GPUDevice;
  readonly adapterInfo: { readonly vendor: string; readonly architecture: string };
}

// Dawn aborts the process if the object returned by create() is garbage-collected: keep it for good.
let nodeGpu: Promise<GpuEntry | string> | undefined;

// The package name arrives as an argument: a literal (or a constant the library build folds into
// one) would make consumers' bundlers resolve a Node-only package for the browser, and Vite wrap
// the import in its preload helper.
async function loadNodeGpu(specifier: string): Promise<GpuEntry | string> {
  let mod: { create(flags: string[]): GpuEntry; globals: object };
  try {
    mod = (await import(/* @vite-ignore */ specifier)) as typeof mod;
  } catch (e) {
    const missing = /Cannot find (package|module)|ERR_MODULE_NOT_FOUND/.test(String((e as Error).message ?? e));
    return missing
      ? "Node has no WebGPU without the optional 'webgpu' package (Dawn): npm install webgpu"
      : `the 'webgpu' package failed to load: ${(e as Error).message ?? String(e)}`;
  }
  useWebGpuClasses(mod.globals);
  return mod.create([]);
}

const isNode = () =>
  typeof (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions?.node === 'string';

// The adapter missing is Dawn's only where Cleave loaded the `webgpu` package: Deno's `process` claims a Node
// version too, but its WebGPU is navigator.gpu (wgpu).
function noAdapter(): string {
  if (!nodeGpu) return 'navigator.gpu.requestAdapter() found no adapter (no usable GPU, or WebGPU is blocked for it)';
  const icd = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.VK_ICD_FILENAMES;
  return (
    'Dawn found no WebGPU adapter' +
    (icd
      ? ` with VK_ICD_FILENAMES=${icd} (check that the file exists and names a working Vulkan driver)`
      : '; without a GPU, point VK_ICD_FILENAMES at a software Vulkan driver before starting Node, e.g. ' +
        "VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json (SwiftShader, from Debian's chromium package)")
  );
}

/** WebGPU's entry point: `navigator.gpu`, or in Node the `webgpu` package's (created once), or why there is none. */
export async function gpuEntry(): Promise<GpuEntry | string> {
  const gpu = (globalThis as { navigator?: { gpu?: GpuEntry } }).navigator?.gpu;
  if (gpu) return gpu;
  return isNode()
    ? await (nodeGpu ??= loadNodeGpu('webgpu'))
    : 'this browser has no navigator.gpu (WebGPU is off or unsupported here)';
}

/** A device with raised storage limits, or the reason there is none. */
export async function acquireDevice(): Promise<AcquiredDevice | { readonly reason: string }> {
  const gpu = await gpuEntry();
  if (typeof gpu === 'string') return { reason: gpu };
  try {
    const adapter = await gpu.requestAdapter();
    if (!adapter) return { reason: noAdapter() };
    // The adapter's largest buffers and bindings (a large tensor's split needs them), and what a
    // partner such as ONNX Runtime asks for when it makes its own device: more storage buffers per
    // stage, larger workgroups, and f16 shaders.
    const limits = [
      'maxStorageBufferBindingSize',
      'maxBufferSize',
      'maxComputeWorkgroupsPerDimension',
      'maxStorageBuffersPerShaderStage',
      'maxComputeWorkgroupStorageSize',
      'maxComputeInvocationsPerWorkgroup',
      'maxComputeWorkgroupSizeX',
      'maxComputeWorkgroupSizeY',
      'maxComputeWorkgroupSizeZ',
    ] as const;
    const device = await adapter.requestDevice({
      label: 'cleave',
      requiredLimits: Object.fromEntries(
        limits.filter((k) => typeof adapter.limits[k] === 'number').map((k) => [k, adapter.limits[k]]),
      ),
      // Timestamps time the calibration of the planner's costs (calibrate.ts).
      requiredFeatures: (['shader-f16', 'timestamp-query'] as const).filter((f) => adapter.features.has(f)),
    });
    const info = adapter.info ?? { vendor: '', architecture: '' };
    return { device, adapterInfo: { vendor: info.vendor, architecture: info.architecture } };
  } catch (e) {
    return { reason: `requesting a WebGPU device failed: ${(e as Error).message ?? String(e)}` };
  }
}

/** The device's numbers the planner needs: its limits, and its costs (DEFAULT_COSTS until measured). */
export function limitsOf(device: GPUDevice): GpuLimits {
  const l = device.limits;
  const record = deviceRecord(device);
  return {
    alignment: Math.max(4, l.minStorageBufferOffsetAlignment),
    maxBindingBytes: l.maxStorageBufferBindingSize,
    maxBufferBytes: l.maxBufferSize,
    get costs() {
      return record.costs;
    },
  };
}

/**
 * What Cleave keeps per device, made on first use and found once per engine: its costs (DEFAULT_COSTS until measured,
 * and the measurement once started), which a split reads as a plain property, and the gather's bind group layouts
 * and pipelines (pipelines.ts).
 */
export interface DeviceRecord {
  costs: CostModel;
  running?: Promise<CostModel>;
  gather?: GatherKit;
}

const records = new WeakMap<GPUDevice, DeviceRecord>();

/** The device's record, made on first use. */
export function deviceRecord(device: GPUDevice): DeviceRecord {
  let r = records.get(device);
  if (!r) records.set(device, (r = { costs: DEFAULT_COSTS }));
  return r;
}

/** The device's measured costs; DEFAULT_COSTS before (or without) a measurement. */
export function costsOf(device: GPUDevice): CostModel {
  return deviceRecord(device).costs;
}
