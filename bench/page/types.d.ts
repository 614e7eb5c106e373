// The page's own shapes: a case as the page holds it, what a system builder gets, and a system through a case.

import type { FixedDType, GpuTensor, HostTensor, SplitEngine } from '../../src/index.js';
import type { BenchCase, CallCounts, PlanStats, SystemKey } from '../types.js';

/** A case as the page holds it: its input, the reference outputs and how to call Cleave. */
export interface Prepared extends BenchCase {
  host: HostTensor<FixedDType>;
  /** The input's bytes. */
  input: Uint8Array;
  /** Each output's bytes from the reference split. */
  ref: Uint8Array[];
  outShapes: number[][];
  modelBytes?: Uint8Array | undefined;
  split: SplitCalls;
}

export interface SplitCalls {
  gpu(engine: SplitEngine, x: GpuTensor): Promise<GpuTensor[]>;
  host(engine: SplitEngine, x: HostTensor<FixedDType>): Promise<HostTensor[]>;
}

/** What a system builder gets: the device, the input on it, and whatever is shared (warm runs). */
export interface Env {
  device: GPUDevice;
  gx: GpuTensor;
  /** A shared engine; absent: the builder creates (and closes) its own. */
  engine?: SplitEngine | undefined;
  cpu?: SplitEngine | undefined;
  copyPipeline?: GPUComputePipeline | undefined;
  /** Give ONNX Runtime this device; absent: ORT's own (the page's shared device). */
  ortDevice?: GPUDevice | undefined;
}

/**
 * One system, ready to run. `iter` starts one split; `sync` waits for the GPU work of all started;
 * `check` compares one split's outputs with the reference (before `free`).
 */
export interface Runner<T = unknown> {
  iter(): Promise<T> | T;
  sync(): Promise<unknown>;
  check(out: T): Promise<string | undefined>;
  free(out: T): void;
  /** Cleave only: what its last split did. */
  stats?(): PlanStats;
  close?(): Promise<void> | void;
}

export interface System<K extends string = SystemKey> {
  key: K;
  /** Whether the GPU time of its batches is measured. */
  gpuTimed: boolean;
  /** Bytes its outputs keep alive per iteration until freed (caps the batch size). */
  outputBytes: number;
  // Runner<any>: each system has its own output type, and only its own runner sees it (an existential
  // type, which TypeScript spells any here: Runner is invariant in its output).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  run?: Runner<any>;
  skip?: string | undefined;
  error?: string | undefined;
  webgpuError?: string | undefined;
  /** 'cpu-ep': ORT ran on its CPU EP (its WebGPU EP refused); 'cpu': a peer did no GPU work (TF.js's CPU path). */
  fallback?: 'cpu-ep' | 'cpu' | undefined;
  /** Where a peer ran, in its own words (ORT's log of its nodes' placement) or as counted (TF.js's dispatches). */
  placement?: string | undefined;
}

/** A system through one case: its verification, calibration and timings. */
export interface Slot<K extends string = SystemKey> {
  sys: System<K>;
  failed?: string | undefined;
  verified: boolean;
  calls?: CallCounts | undefined;
  stats?: PlanStats | undefined;
  /** Iterations per batch, and the calibration's ms per iteration. */
  cal?: { k: number; perIterMs: number } | undefined;
  /** ms per split, one entry per batch. */
  wall: number[];
  gpu: (number | undefined)[];
}
