// What differs between the browsers' WebGPU implementations on one Vulkan driver (SwiftShader
// here), as Cleave sees it: Chromium runs Dawn (WGSL compiled by Tint), Firefox runs wgpu (WGSL
// compiled by naga). The facts come from test/browser/fixtures/resident.mjs's setup; each
// difference is asserted by name, and the ones that are figures are printed, never asserted.

import { expect } from 'vitest';

export interface AdapterFacts {
  readonly userAgent: string;
  readonly backend: string;
  /** Cleave's `engine.adapterInfo`. */
  readonly engineInfo: { readonly vendor: string; readonly architecture: string };
  readonly adapter: {
    readonly info: { vendor: string; architecture: string; device: string; description: string };
    readonly features: readonly string[];
  };
  readonly adapterLimits: Readonly<Record<string, number>>;
  /** The features and limits of the device Cleave requested. */
  readonly deviceFeatures: readonly string[];
  readonly deviceLimits: Readonly<Record<string, number>>;
  /** Median ms from a submit to its readback. */
  readonly readbackMs: number;
}

/**
 * The limits Cleave's device asks the adapter's values of (src/gpu/device.ts), written here on purpose rather than
 * read from src/: buffers, bindings, grids, workgroups.
 */
export const RAISED_LIMITS = [
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

/** The limits Cleave's device raises, and the alignment its planner reads. */
const CLEAVE_LIMITS = ['minStorageBufferOffsetAlignment', ...RAISED_LIMITS] as const;

const pick = (limits: Readonly<Record<string, number>>) => Object.fromEntries(CLEAVE_LIMITS.map((k) => [k, limits[k]]));
const only = (a: readonly string[], b: readonly string[]) => a.filter((x) => !b.includes(x));

export function expectDifferences(chromium: AdapterFacts | undefined, firefox: AdapterFacts | undefined): void {
  expect(chromium, 'chromium was set up').toBeDefined();
  expect(firefox, 'firefox was set up').toBeDefined();
  const [c, f] = [chromium!, firefox!];
  // Firefox names no adapter: Cleave's adapterInfo is empty there, so nothing (the demo page
  // included) can tell SwiftShader from a hardware GPU in Firefox.
  expect(f.adapter.info).toEqual({ vendor: '', architecture: '', device: '', description: '' });
  expect(f.engineInfo).toEqual({ vendor: '', architecture: '' });
  expect(c.engineInfo.vendor + c.engineInfo.architecture).not.toBe('');
  // Firefox has no 'subgroups' (Cleave's shaders use none). Both give 'timestamp-query', which
  // Cleave's calibration times with; 'shader-f16' is on both or neither.
  expect(c.adapter.features).toContain('subgroups');
  expect(f.adapter.features).not.toContain('subgroups');
  for (const b of [c, f]) expect(b.deviceFeatures).toContain('timestamp-query');
  expect(f.deviceFeatures.includes('shader-f16')).toBe(c.deviceFeatures.includes('shader-f16'));
  // The limits Cleave plans with are the same on both: it asks for the adapter's own.
  expect(pick(f.deviceLimits)).toEqual(pick(c.deviceLimits));
  for (const k of CLEAVE_LIMITS) expect(f.deviceLimits[k], k).toBe(f.adapterLimits[k]);
  const differing = Object.keys({ ...c.adapterLimits, ...f.adapterLimits }).filter(
    (k) => c.adapterLimits[k] !== f.adapterLimits[k],
  );
  console.log(
    `adapter limits that differ (chromium vs firefox): ${differing
      .map((k) => `${k} ${c.adapterLimits[k] ?? '-'} vs ${f.adapterLimits[k] ?? '-'}`)
      .join(', ')}\n` +
      `features only in chromium: ${only(c.adapter.features, f.adapter.features).join(', ')}; ` +
      `only in firefox: ${only(f.adapter.features, c.adapter.features).join(', ') || 'none'}\n` +
      `a submit's readback: chromium ${c.readbackMs.toFixed(1)} ms, firefox ${f.readbackMs.toFixed(1)} ms ` +
      '(Firefox answers waits for the GPU when it next polls it)',
  );
}
