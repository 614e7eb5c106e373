// The shapes the bench passes between the driver (Node), the page (Chromium) and the report, and writes
// to bench/results/*.json. Types only: the bench is plain JavaScript that tsc checks against these
// (checkJs, `npm run typecheck`).

import type { DType, FixedDType, GpuTensor, HostTensor, SplitEngine } from '../src/index.js';

/** GPU-resident Cleave with a strategy forced, timed beside its own choice. */
export type ForcedKey = 'cleave-gpu-alias' | 'cleave-gpu-copy' | 'cleave-gpu-gather';
export type SystemKey =
  | 'cleave-gpu'
  | ForcedKey
  | 'cleave-host'
  | 'ort-gpu'
  | 'ort-host'
  | 'tfjs-gpu'
  | 'copy-limit'
  | 'shader-limit'
  | 'cleave-cpu';
/** A pipeline's: ORT's whole graph (WebGPU EP, and its CPU EP), and ORT A -> Cleave -> ORT B. */
export type PipelineKey = 'ort-whole' | 'cleave-pipeline' | 'ort-whole-cpu';
/** A decode loop's: ORT's whole graph, and the example's loop with split, encodeSplit, and B under graph capture. */
export type DecodeKey = 'ort-whole' | 'cleave-pipeline' | 'cleave-encode' | 'cleave-capture';

/** One entry of bench/cases.mjs (its fields are documented there). */
export interface CaseSpec {
  readonly id: string;
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly axis: number;
  readonly parts?: number;
  readonly sizes?: readonly number[];
  readonly op?: 'Split' | 'SplitToSequence';
  readonly cold?: boolean;
  readonly strategy?: 'alias' | 'copy' | 'gather';
  readonly quick?: boolean;
  readonly sameBytesAs?: readonly string[];
  readonly sameElementsAs?: string;
  readonly scopeCost?: boolean;
  readonly nodeQuick?: boolean;
  readonly nodeOnly?: boolean;
}

/** A case resolved by bench/lib/resolve-cases.mjs: what the page runs and the report reads. */
export interface BenchCase extends CaseSpec {
  readonly axis: number;
  readonly sizes: readonly number[];
  readonly op: 'Split' | 'SplitToSequence';
  readonly outputs: number;
  readonly numel: number;
  /** The input's bytes (packed types: ceil(numel * bits / 8)). */
  readonly bytes: number;
  /** Served at /model/<model>; absent when ONNX Runtime cannot run the case (see ortSkip). */
  readonly model?: string;
  readonly ortSkip?: string;
}

export interface Settings {
  budgetMs: number;
  minReps: number;
  maxReps: number;
  batchMs: number;
  warmupMs: number;
  warmupIters: number;
  maxBatch: number;
  maxLiveBytes: number;
  coldReps: number;
  scopeLoops: number;
  scopeReps: number;
  /** Per-call cost: calls timed per variant (a case's own `calls` in a full run), in this many rounds. */
  calls?: number | undefined;
  callRounds: number;
  /** Pipelines and decode loops: at least this many reps (a run takes long, and the systems differ by little). */
  pipelineMinReps: number;
  /** --probes: GPU calls counted per split, the error scopes' cost. */
  probes: boolean;
}

export interface Summary {
  median: number;
  min: number;
  max: number;
  n: number;
}

/** GPU calls of one split (--probes). */
export interface CallCounts {
  submits: number;
  commandBuffers: number;
  copies: number;
  dispatches: number;
  passes: number;
  buffersCreated: number;
  bindGroups: number;
  writeBuffers: number;
  mapAsyncs: number;
  errorScopes: number;
  /** Error-scope pops still unsettled when the call resolved: it did not wait for them. */
  scopesPending: number;
}

/** Cleave's engine.stats after one split, with the pipelines its engine had compiled. */
export interface PlanStats {
  strategy: string;
  unitBits: number;
  dispatches: number;
  copies: number;
  commands: number;
  pipelines: number;
}

export interface SystemResult {
  ok: boolean;
  verified: boolean;
  error?: string | undefined;
  skip?: string | undefined;
  webgpuError?: string | undefined;
  fallback?: 'cpu-ep' | undefined;
  /** ms per split (or inference, or sequence). */
  wall?: Summary | undefined;
  /** ms of GPU time per split (timestamp queries). */
  gpu?: Summary | undefined;
  batch?: number | undefined;
  calls?: CallCounts | undefined;
  stats?: PlanStats | undefined;
}

/**
 * What the per-split error scopes cost (--probes), µs per loop iteration: an empty submit with and
 * without the pair, and the case's split of an engine-owned input (no scopes) and of a caller's buffer.
 */
export interface ScopeCost {
  loops: number;
  withScopesUs: Summary;
  withoutScopesUs: Summary;
  ownedSplitUs?: Summary | undefined;
  callerSplitUs?: Summary | undefined;
  callerError?: string | undefined;
}

/** How an item's run went, beside its figures. */
export interface RunOutcome {
  id: string;
  reps?: number;
  crashed?: string;
  gpuErrors?: string[];
  deviceLost?: string | undefined;
  seconds?: number;
}

export interface CaseResult extends RunOutcome {
  systems: Partial<Record<SystemKey, SystemResult>>;
  cpuPathError?: string | undefined;
  errorScopes?: ScopeCost | undefined;
}
export interface CaseRecord extends CaseResult {
  case: BenchCase;
}

/** One pipeline of bench/cases.mjs (its fields are documented there). */
export interface PipelineSpec {
  readonly id: string;
  readonly seq: number;
  readonly width: number;
  readonly hidden: number;
  readonly heads: number;
  readonly quick?: boolean;
}

/** A pipeline resolved by bench/lib/pipelines.mjs: its split, its files and what its reference says. */
export interface BenchPipeline extends PipelineSpec {
  /** Outputs of the split of qkv [1, S, 3H] along its last axis: 3 x heads. */
  readonly parts: number;
  /** B's inputs (and the whole graph's Split outputs), in the split's order. */
  readonly names: readonly string[];
  /** Served at /model/<name>: models A, B and the whole graph; x and the reference y as float32 bytes. */
  readonly files: {
    readonly a: string;
    readonly b: string;
    readonly whole: string;
    readonly x: string;
    readonly ref: string;
  };
  /** The largest sum of |terms| of any dot product in the graph (below 2^24: float32 exact in any order). */
  readonly maxTermSum: number;
}

export interface PipelineResult extends RunOutcome {
  systems: Partial<Record<PipelineKey, SystemResult>>;
  /** The pipeline's wall time over the whole graph's, batch by batch within each rep. */
  pairedRatio?: Summary | undefined;
}
export interface PipelineRecord extends PipelineResult {
  pipeline: BenchPipeline;
}

/** One decode loop of bench/cases.mjs (its fields are documented there). */
export interface DecodeSpec {
  readonly id: string;
  readonly width: number;
  readonly heads: number;
  readonly headDim: number;
  readonly prefill?: number;
  readonly decodeSteps: number;
  readonly quick?: boolean;
}

/** A decode loop resolved by bench/lib/decode.mjs; its files are served at /model/<id>/<name>. */
export interface BenchDecode extends DecodeSpec {
  /** Tokens of each step, in order. */
  readonly steps: readonly number[];
  /** T: cache slots, the sequence's tokens. */
  readonly tokens: number;
  /** The largest sum of |terms| of any dot product (below 2^24: float32 exact in any order). */
  readonly maxTermSum: number;
}

export interface DecodeResult extends RunOutcome {
  /** wall: ms per sequence (per step: divide by the steps). */
  systems: Partial<Record<DecodeKey, SystemResult>>;
  /** A second check of every step's y and the final caches, after timing: undefined when it passed. */
  afterTiming: Partial<Record<DecodeKey, string | undefined>>;
  /** Each Cleave system's time over the whole graph's, batch by batch within each rep. */
  pairedRatio: Partial<Record<DecodeKey, Summary>>;
  /** µs of JavaScript per step in Cleave's part: until the call returned (sync), until it resolved (call). */
  jsCost: Partial<Record<DecodeKey, { syncUs: Summary; callUs: Summary }>>;
}
export interface DecodeRecord extends DecodeResult {
  decode: BenchDecode;
}

/** One per-call cost case of bench/cases.mjs (its fields are documented there). */
export interface CallCostSpec {
  readonly id: string;
  readonly dtype: 'float32';
  readonly shape: readonly number[];
  readonly axis: number;
  readonly parts: number;
  readonly calls: number;
  readonly quick?: boolean;
}

/** One variant: a function, an input alignment and owner, and its µs per call (one sample per round). */
export interface CallCostRow {
  fn: 'split' | 'encodeSplit';
  aligned: boolean;
  owner: 'engine' | 'caller';
  byteOffset: number;
  calls: number;
  stats?: PlanStats | undefined;
  /** --probes: what one call did on the GPU, error scopes pushed included. */
  gpuCalls?: CallCounts | undefined;
  /** split: call, await, release the outputs; encodeSplit: the call alone (submit and release off the clock). */
  us?: Summary | undefined;
  /** split only: the part before the call returned its promise. */
  syncUs?: Summary | undefined;
  error?: string | undefined;
}

export interface CallCostResult {
  id: string;
  rows: CallCostRow[];
  crashed?: string;
  gpuErrors?: string[];
  seconds?: number;
}
export interface CallCostRecord extends CallCostResult {
  spec: CallCostSpec;
}

export interface PageEnv {
  userAgent: string;
  crossOriginIsolated: boolean;
  adapter: { vendor?: string; architecture?: string; description?: string; device?: string };
  features: string[];
  limits: Record<string, number>;
  ort: Record<string, string | undefined>;
  tfjs?: string | undefined;
  cleaveBackend: string;
  timestampQuery: boolean;
}

export interface FinalState {
  cleavePipelines: number;
  liveBuffers: number;
  gpuErrors: string[];
  deviceLost?: string | undefined;
}

export interface Report {
  startedAt: string;
  finishedAt: string;
  seconds: number;
  command: string;
  settings: Settings;
  machine: { node: string; platform: string; cpus: number; cpuModel?: string | undefined; loadavg: number[] };
  env: PageEnv;
  final?: FinalState | undefined;
  results: CaseRecord[];
  pipelines: PipelineRecord[];
  decodes: DecodeRecord[];
  callCosts: CallCostRecord[];
}

export interface BenchApi {
  init(o: { ortThreads: number }): Promise<PageEnv>;
  runCase(c: BenchCase, s: Settings): Promise<CaseResult>;
  runPipeline(p: BenchPipeline, s: Settings): Promise<PipelineResult>;
  runDecode(p: BenchDecode, s: Settings): Promise<DecodeResult>;
  runCallCost(c: CallCostSpec, s: Settings): Promise<CallCostResult>;
  finish(): Promise<FinalState>;
}

// ---- the page's own shapes ----------------------------------------------------------------------

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
  fallback?: 'cpu-ep' | undefined;
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

declare global {
  interface Window {
    bench: BenchApi;
    benchReady?: boolean;
    benchLoadError?: string;
    __benchProgress?: (text: string) => Promise<void>;
  }
}
