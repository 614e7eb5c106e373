// The Node bench's device: Dawn (the `webgpu` package) on whatever adapter it finds, with the
// adapter's full limits (a large split needs its largest buffers and bindings) and, unless told
// otherwise, timestamp queries. When Dawn finds no adapter with VK_ICD_FILENAMES unset, the process
// runs itself again with it set (Dawn reads the variable once, at its first create()) to the first
// ICD file here of: a GPU driver's that the Vulkan loader does not look for (NVIDIA's container
// runtime puts its own under /usr/local/nvidia), then SwiftShader's. And, for an item that needs a device no other
// work has touched (the decode step), another device like it: a new adapter asked for the same way, the same features
// and limits.

import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { create, globals } from 'webgpu';
import { SWIFTSHADER } from '../lib/cli.mjs';

// Dawn aborts the process if the object create() returns is garbage-collected: kept for good.
/** @type {GPU | undefined} */
let gpu;

/** What openDevice asked the adapter for: another device asks for the same (openAnother). */
/** @type {GPUDeviceDescriptor | undefined} */
let asked;

/** ICD files tried, in order, when Dawn finds no adapter with VK_ICD_FILENAMES unset. */
const FALLBACKS = ['/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json', SWIFTSHADER];

/**
 * @typedef {object} Opened
 * @property {GPUDevice} device
 * @property {{ vendor: string, architecture: string, device: string, description: string }} adapter
 * @property {string} icd  VK_ICD_FILENAMES as the process saw it ('unset': the loader's own search)
 * @property {string[]} features  the device's
 * @property {Record<string, number>} limits  the device's
 * @property {boolean} timestamps  GPU time is measured
 * @property {string[]} errors  uncaptured GPU errors so far (the caller empties it per case)
 * @property {() => string | undefined} lost  why the device was lost, once it is
 */

/**
 * The device, or never returns: runs the process again with an ICD file of FALLBACKS, or exits saying why
 * there is none.
 * @param {{ timestamps: boolean }} o @returns {Promise<Opened>}
 */
export async function openDevice(o) {
  Object.assign(globalThis, globals);
  gpu = create([]);
  // Node has no navigator: the peers look for WebGPU there (ONNX Runtime asks it for an adapter even when it is
  // handed a device; TF.js's WebGPU backend registers itself only if navigator.gpu exists when it loads).
  const open = { writable: true, configurable: true };
  if (!globalThis.navigator) Object.defineProperty(globalThis, 'navigator', { value: {}, ...open });
  Object.defineProperty(globalThis.navigator, 'gpu', { value: gpu, ...open });
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  const icd = process.env.VK_ICD_FILENAMES;
  if (!adapter) {
    const fallback = icd ? undefined : FALLBACKS.find((f) => existsSync(f));
    if (fallback) rerunWith(fallback);
    console.error(`bench:node: Dawn found no WebGPU adapter (VK_ICD_FILENAMES ${icd ?? 'unset'})`);
    process.exit(1);
  }
  /** @type {Record<string, number>} */
  const requiredLimits = {};
  for (const k of limitNames(adapter.limits)) requiredLimits[k] = /** @type {number} */ (limitOf(adapter.limits, k));
  const wanted = /** @type {GPUFeatureName[]} */ (o.timestamps ? ['timestamp-query', 'shader-f16'] : ['shader-f16']);
  asked = { requiredLimits, requiredFeatures: wanted.filter((f) => adapter.features.has(f)) };
  const device = await adapter.requestDevice({ label: 'bench:node', ...asked });
  /** @type {string[]} */
  const errors = [];
  device.addEventListener('uncapturederror', (e) =>
    errors.push(/** @type {GPUUncapturedErrorEvent} */ (e).error.message),
  );
  /** @type {string | undefined} */
  let lost;
  void device.lost.then((l) => {
    lost = `${l.reason}: ${l.message}`;
    errors.push(`device lost: ${lost}`);
  });
  const info = adapter.info;
  /** @type {Record<string, number>} */
  const limits = {};
  for (const k of limitNames(device.limits)) limits[k] = /** @type {number} */ (limitOf(device.limits, k));
  return {
    device,
    adapter: {
      vendor: info.vendor,
      architecture: info.architecture,
      device: info.device,
      description: info.description,
    },
    icd: icd ?? 'unset',
    features: [...device.features].sort(),
    limits,
    timestamps: device.features.has('timestamp-query'),
    errors,
    lost: () => lost,
  };
}

/**
 * Another device like openDevice's, from an adapter of its own (an adapter gives one device): its features and
 * limits; nothing else has run on it. Its uncaptured errors go to `errors`.
 * @param {string} label @param {string[]} errors @returns {Promise<GPUDevice>}
 */
export async function openAnother(label, errors) {
  if (!gpu || !asked) throw new Error('openAnother: openDevice first');
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) throw new Error('Dawn found no adapter for another device');
  const device = await adapter.requestDevice({ label, ...asked });
  device.addEventListener('uncapturederror', (e) =>
    errors.push(/** @type {GPUUncapturedErrorEvent} */ (e).error.message),
  );
  void device.lost.then((l) => {
    if (l.reason !== 'destroyed') errors.push(`device lost: ${l.reason}: ${l.message}`);
  });
  return device;
}

/** @param {string} icd @returns {never} */
function rerunWith(icd) {
  console.log(`bench:node: no adapter with VK_ICD_FILENAMES unset; running again with VK_ICD_FILENAMES=${icd}`);
  const args = [...process.execArgv, ...process.argv.slice(1)];
  const r = spawnSync(process.execPath, args, { stdio: 'inherit', env: { ...process.env, VK_ICD_FILENAMES: icd } });
  process.exit(r.status ?? 1);
}

/** A GPUSupportedLimits object's numeric limits (getters on its prototype). @param {GPUSupportedLimits} l */
function limitNames(l) {
  const names = new Set([...Object.keys(l), ...Object.getOwnPropertyNames(Object.getPrototypeOf(l))]);
  return [...names].filter((k) => typeof limitOf(l, k) === 'number').sort();
}

/** @param {GPUSupportedLimits} l @param {string} k */
const limitOf = (l, k) => /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (l))[k];
