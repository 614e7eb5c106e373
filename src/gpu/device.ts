// Finding a WebGPU device: `navigator.gpu` in a browser; in Node the `webgpu` package (Dawn),
// imported by a computed name so browser bundles never contain it. The device asks the adapter for
// the largest buffers and bindings it has, since the split of a large tensor needs them.

type GpuEntry = Pick<GPU, 'requestAdapter'>;

// Dawn aborts the process if the object returned by create() is garbage-collected: keep it for good.
let nodeGpu: Promise<GpuEntry | undefined> | undefined;

async function loadNodeGpu(): Promise<GpuEntry | undefined> {
  try {
    const name = 'webgpu';
    const mod = (await import(/* @vite-ignore */ name)) as { create(flags: string[]): GpuEntry; globals: object };
    for (const [k, v] of Object.entries(mod.globals)) {
      if (!(k in globalThis)) (globalThis as Record<string, unknown>)[k] = v;
    }
    return mod.create([]);
  } catch {
    return undefined;
  }
}

export interface AcquiredDevice {
  readonly device: GPUDevice;
  readonly adapterInfo: { readonly vendor: string; readonly architecture: string };
}

/** A device with raised storage limits, or undefined when this environment has no WebGPU adapter. */
export async function acquireDevice(): Promise<AcquiredDevice | undefined> {
  const nav = (globalThis as { navigator?: { gpu?: GpuEntry } }).navigator;
  const inNode = typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === 'string';
  const gpu = nav?.gpu ?? (inNode ? await (nodeGpu ??= loadNodeGpu()) : undefined);
  const adapter = await gpu?.requestAdapter();
  if (!adapter) return undefined;
  const a = adapter.limits;
  const device = await adapter.requestDevice({
    label: 'cleave',
    requiredLimits: {
      maxStorageBufferBindingSize: a.maxStorageBufferBindingSize,
      maxBufferSize: a.maxBufferSize,
      maxComputeWorkgroupsPerDimension: a.maxComputeWorkgroupsPerDimension,
    },
  });
  const info = adapter.info ?? { vendor: '', architecture: '' };
  return { device, adapterInfo: { vendor: info.vendor, architecture: info.architecture } };
}
