// Finding a WebGPU device: `navigator.gpu` in a browser; in Node the optional `webgpu` package (Dawn), imported by a
// computed name so browser bundles never contain it. The device asks the adapter for the largest buffers and bindings
// it has (the split of a large tensor needs them) and for the dynamic storage buffers that let one gather dispatch
// write more targets at moving offsets. When there is none, the result says why, in words a user can act on. Nothing
// is written onto globalThis: the package's classes go to webgpu-object.ts for its checks.

import { useWebGpuClasses } from '../read/webgpu-object.js';
import type { AdapterFacts } from '../planner/costs.js';

type GpuEntry = Pick<GPU, 'requestAdapter'>;

export type AcquiredDevice = { readonly device: GPUDevice; readonly adapterInfo: AdapterFacts };

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
    // The adapter's largest buffers and bindings (a large tensor's split needs them), more targets at moving offsets
    // per gather dispatch, and what a partner such as ONNX Runtime asks for when it makes its own device: more
    // storage buffers per stage, larger workgroups, and f16 shaders.
    const limits = [
      'maxStorageBufferBindingSize',
      'maxBufferSize',
      'maxDynamicStorageBuffersPerPipelineLayout',
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
      // Timestamps time `engine.calibrate()`'s measurement of the planner's costs (calibrate.ts).
      requiredFeatures: (['shader-f16', 'timestamp-query'] as const).filter((f) => adapter.features.has(f)),
    });
    // Older implementations say it of the adapter itself.
    const fallback = adapter.info?.isFallbackAdapter ?? (adapter as { isFallbackAdapter?: boolean }).isFallbackAdapter;
    return { device, adapterInfo: { ...facts(adapter.info), isFallbackAdapter: fallback } };
  } catch (e) {
    return { reason: `requesting a WebGPU device failed: ${(e as Error).message ?? String(e)}` };
  }
}

/** What an adapter's info says of it, read once into a plain object (its fields are getters on a WebGPU object). */
export function facts(info: Partial<GPUAdapterInfo> | undefined): AdapterFacts {
  return {
    vendor: info?.vendor ?? '',
    architecture: info?.architecture ?? '',
    device: info?.device ?? '',
    description: info?.description ?? '',
    isFallbackAdapter: info?.isFallbackAdapter,
  };
}
