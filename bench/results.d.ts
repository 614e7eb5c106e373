// What a run gives: the results the page returns and bench/results/<timestamp>.json holds, and the page's API.

import type { CostModel } from '../src/index.js';
import type {
  BenchCase,
  BenchDecode,
  BenchPipeline,
  CallCostSpec,
  DecodeKey,
  DecodeStepSettings,
  DecodeStepSpec,
  PipelineKey,
  Settings,
  SystemKey,
} from './types.js';

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
  /** The sizes of its copyBufferToBuffer calls, summed. */
  bytesCopied: number;
  dispatches: number;
  passes: number;
  buffersCreated: number;
  bindGroups: number;
  writeBuffers: number;
  mapAsyncs: number;
  /** Bytes moved by copy commands (copyBufferToBuffer); absent in files written before it was counted. */
  bytesCopied?: number | undefined;
  errorScopes: number;
  /** Error-scope pops still unsettled when the call resolved: it did not wait for them. */
  scopesPending: number;
  /** ORT's session.run calls, where the bench counts them (bench:node's peers, pipelines and decode loops). */
  sessionRuns?: number | undefined;
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
  /** 'cpu-ep': ORT ran on its CPU EP (its WebGPU EP refused); 'cpu': a peer did no GPU work (TF.js's CPU path). */
  fallback?: 'cpu-ep' | 'cpu' | undefined;
  /** bench:node's peers: where it ran, in ORT's own log's words, or TF.js's dispatches counted in one split. */
  placement?: string | undefined;
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
  /** bench:node: where ORT placed each model's nodes, by model ('whole', 'a', 'b'; 'whole-1': of steps of 1). */
  placement?: Record<string, string> | undefined;
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

export interface PipelineResult extends RunOutcome {
  systems: Partial<Record<PipelineKey, SystemResult>>;
  /** The pipeline's wall time over the whole graph's, batch by batch within each rep. */
  pairedRatio?: Summary | undefined;
}
export interface PipelineRecord extends PipelineResult {
  pipeline: BenchPipeline;
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

/**
 * One variant of the per-call section: the bare calls (what the split's copies need: one encoder, a
 * copyBufferToBuffer per copy, finish, submit), a split or an encodeSplit (with its encoder, finish and submit),
 * on one input. Each round times `callsInARow` calls of every variant as a whole, the GPU drained off the clock.
 */
export interface CallCostRow {
  /**
   * What a call is: the bare WebGPU calls, the same inside error scopes ('scoped'), engine.split,
   * engine.encodeSplit, or a prepared split's split or encode (engine.prepare).
   */
  fn: 'bare' | 'scoped' | 'split' | 'encodeSplit' | 'prepared.split' | 'prepared.encode';
  /**
   * Stable id: 'bare', 'bare-scope-call', 'bare-scope-batch', 'bare-scope-awaited', 'split-upload-copies',
   * 'split-caller-seen', 'encode-upload', 'split-upload-views', 'split-upload-at4', 'split-caller-at4',
   * 'encode-caller-at4', 'prepared-encode-into', 'prepared-split-copies', 'prepared-split-caller-seen'.
   */
  variant: string;
  /** The variant in words. */
  label: string;
  /** The input: aligned (byte 0 of its buffer) or at byte 4; an engine upload or a caller's buffer. */
  aligned: boolean;
  owner: 'engine' | 'caller';
  byteOffset: number;
  /**
   * 'scoped' only: a validation scope pushed and popped around each call (its pop not awaited, or awaited:
   * 'call-awaited'), or around each batch of calls in a row.
   */
  scope?: 'call' | 'batch' | 'call-awaited' | undefined;
  /** Calls timed, all rounds together. */
  calls: number;
  stats?: PlanStats | undefined;
  /** --probes: what one call did on the GPU, error scopes pushed included. */
  gpuCalls?: CallCounts | undefined;
  /** µs per call, one sample per round: the calls and the release of their outputs. */
  us?: Summary | undefined;
  /** Each round's µs per call over the bare calls' µs in the same round; summary over the rounds. */
  overBare?: Summary | undefined;
  /** The variant's fastest round (µs per call) over the bare calls' fastest round, in the same run. */
  fastestOverBare?: number | undefined;
  /** Why it cannot run here (n/a), e.g. a build of Cleave without engine.prepare; not timed. */
  skip?: string | undefined;
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

/**
 * What Cleave did on the device in one phase of the decode step (bench/node/decode-step.mjs), counted by wrapping the
 * device's and the queue's methods (the runtime calls the originals: every wrapped call is Cleave's): pipelines
 * compiled (createComputePipeline, createComputePipelineAsync), command encoders of its own and the passes and copies
 * recorded into them, submits and their command buffers, buffers and bind groups created, writeBuffer calls.
 */
export interface DeviceTally {
  compiles: number;
  compilesAsync: number;
  encoders: number;
  passes: number;
  copies: number;
  submits: number;
  commandBuffers: number;
  buffers: number;
  bindGroups: number;
  writeBuffers: number;
}

/**
 * The decode step's phases: creating the engine, prepare until `ready` settled, the first step, the other warm-up
 * steps, the counted steps, the steps whose calls are captured for the replay, the timed steps (inside each step:
 * Cleave's encode and release), and 'outside': whenever the runtime is in no call of Cleave's (between steps, the GPU
 * drained between rounds, idle after the steps).
 */
export type DecodeStepPhase = 'creation' | 'ready' | 'first' | 'warmup' | 'counted' | 'capture' | 'timed' | 'outside';

/** What Cleave recorded into the runtime's encoder per step, averaged over the counted steps, and what it made. */
export interface DecodeStepCounts {
  /** Steps counted (after the warm-up). */
  steps: number;
  passes: number;
  dispatches: number;
  setPipeline: number;
  setBindGroup: number;
  copies: number;
  /** Every call into the encoder or its passes (pass ends included). */
  calls: number;
  buffers: number;
  bindGroups: number;
  writeBuffers: number;
}

/** One run of the host-time measurement: rounds of (a) Cleave's steps, with and without release, and (b) the replay. */
export interface DecodeStepHostRun {
  rounds: number;
  /** µs per step, one sample per round: Cleave with the release of its outputs, without it, and the bare replay. */
  us: { release: Summary; noRelease: Summary; bare: Summary };
  /** Cleave's fastest round over the bare replay's fastest round. */
  fastest: { release: number; noRelease: number };
  /** Each round's ratio over the bare replay's µs in the same round, over the rounds. */
  ratios: { release: Summary; noRelease: Summary };
}

/** One engine's run of the decode step: the gather forced, or the planner's choice ('auto'). */
export interface DecodeStepRun {
  strategy: 'gather' | 'auto';
  /** engine.stats after the counted steps. */
  plan?: { strategy: string; unitBits: number; dispatches: number; copies: number } | undefined;
  /** Pipelines compiled, by phase: { sync, async }; `steps`: the first step's and every later one's (timed too). */
  compiles?: Record<'creation' | 'ready' | 'firstCall' | 'steps', { sync: number; async: number }> | undefined;
  /**
   * GPU work no call of the runtime recorded: whatever Cleave did while the runtime was in no call of it (every
   * field of 'outside'), and inside the steps the encoders, passes, copies and submits of its own.
   */
  unrecorded?:
    | {
        outside: DeviceTally;
        inSteps: Pick<DeviceTally, 'encoders' | 'passes' | 'copies' | 'submits' | 'commandBuffers'>;
      }
    | undefined;
  perStep?: DecodeStepCounts | undefined;
  /** Every phase's tally, as counted. */
  phases?: Record<DecodeStepPhase, DeviceTally> | undefined;
  host?:
    | {
        stepsPerRound: number;
        runs: DecodeStepHostRun[];
        /** The median over the runs of each run's fastest-round ratio, and of its median round ratio. */
        fastest: { release: number; noRelease: number };
        roundMedian: { release: number; noRelease: number };
      }
    | undefined;
  /** The caches and Q's buffer against the reference after the warm-up and counted steps: 'exact' or what differs. */
  exact?: string | undefined;
  /** The same after the capture and the timed rounds (Cleave's steps and the replay at every slot). */
  exactAfterTiming?: string | undefined;
  gpuErrors: string[];
  error?: string | undefined;
}

export interface DecodeStepRecord {
  id: string;
  spec: DecodeStepSpec;
  settings: DecodeStepSettings;
  runs: DecodeStepRun[];
  seconds: number;
}

/** The browser that ran the page; vkIcd: VK_ICD_FILENAMES as Firefox (no software adapter of its own) saw it. */
export interface BrowserInfo {
  name: 'chromium' | 'firefox';
  version: string;
  vkIcd?: string | undefined;
}

export interface PageEnv {
  userAgent: string;
  /** The browser that ran the page; absent in files written before it was recorded (see userAgent). */
  browser?: BrowserInfo | undefined;
  crossOriginIsolated: boolean;
  adapter: { vendor?: string; architecture?: string; description?: string; device?: string };
  features: string[];
  limits: Record<string, number>;
  ort: Record<string, string | undefined>;
  tfjs?: string | undefined;
  cleaveBackend: string;
  timestampQuery: boolean;
  /** Median ms of an empty submit and its onSubmittedWorkDone: what one wait for the GPU costs in this browser. */
  gpuWaitMs?: number | undefined;
}

export interface FinalState {
  cleavePipelines: number;
  liveBuffers: number;
  gpuErrors: string[];
  deviceLost?: string | undefined;
}

/** The version of the results files both commands write: bench:report reads this one only. */
export type ResultsFormat = 2;

/** `npm run bench`'s results file. */
export interface Report {
  format: ResultsFormat;
  startedAt: string;
  finishedAt: string;
  seconds: number;
  command: string;
  settings: Settings;
  machine: { node: string; platform: string; cpus: number; cpuModel?: string | undefined; loadavg: number[] };
  env: PageEnv & { browser: BrowserInfo };
  final?: FinalState | undefined;
  results: CaseRecord[];
  pipelines: PipelineRecord[];
  decodes: DecodeRecord[];
  callCosts: CallCostRecord[];
}

/** The default plan's ratios on one clock (bench/lib/ratios.mjs). */
export interface ClockRatios {
  copyLimit?: number | undefined;
  shaderLimit?: number | undefined;
  bestForced?: number | undefined;
  bestForcedStrategy?: string | undefined;
  /** bench:node: ORT's time over the default plan's (where both ran and verified). */
  ort?: number | undefined;
  /** bench:node: TF.js's time over the default plan's. */
  tfjs?: number | undefined;
}

/**
 * bench:node's systems: the default plan, each strategy forced, the default plan with layout 'separate', the peers
 * (ONNX Runtime Web's WebGPU EP, TF.js's tf.split, GPU-resident on the same device), the two limits.
 */
export type NodeSystemKey =
  | 'cleave'
  | 'forced-alias'
  | 'forced-copy'
  | 'forced-gather'
  | 'separate'
  | 'ort'
  | 'tfjs'
  | 'copy-limit'
  | 'shader-limit';

export interface NodeCaseRecord {
  case: Pick<BenchCase, 'id' | 'dtype' | 'shape' | 'axis' | 'sizes' | 'bytes' | 'strategy'>;
  systems: Partial<Record<NodeSystemKey, SystemResult>>;
  /** Why no system ran: the device cannot hold the input (the limit named). */
  skipped?: string | undefined;
  gpuErrors: string[];
  seconds: number;
  ratios: { wall: ClockRatios; gpu: ClockRatios };
}

/** A peer of bench:node: its version and how long loading and its first run took (off the clock), or why not. */
export interface PeerLoad {
  version?: string | undefined;
  /** Loading and the first run, s; ORT: of which its first run (V8 compiling its wasm meanwhile), s. */
  warmUpS?: number | undefined;
  firstRunS?: number | undefined;
  error?: string | undefined;
}
export interface PeerInfo {
  ort?: PeerLoad | undefined;
  tfjs?: PeerLoad | undefined;
}

/** One run merged into a campaign's file (bench/node/merge.mjs): what it was and where its figures came from. */
export interface NodePart {
  name: string;
  args: string[];
  started: string;
  finished: string;
  settings: Settings;
  cases: number;
  pipelines: number;
  decodes: number;
  callCosts: number;
  /** Decode-step records (absent in files written before the case). */
  decodeSteps?: number | undefined;
}

/** `npm run bench:node`'s results file. */
export interface NodeReport {
  format: ResultsFormat;
  started: string;
  finished: string;
  node: string;
  args: string[];
  adapter: { vendor: string; architecture: string; device: string; description: string };
  /** VK_ICD_FILENAMES as the process saw it ('unset': the loader's own search). */
  icd: string;
  features: string[];
  limits: Record<string, number>;
  /** GPU time was measured (timestamp queries). */
  timestamps: boolean;
  /** The calibrated cost model (engine.stats.costs). */
  costs?: CostModel | undefined;
  settings: Settings;
  /** The cases (none in a per-call run, `--calls`). */
  cases: NodeCaseRecord[];
  /** The peers loaded, or why not (absent: a per-call run, or a file from before the peers). */
  peers?: PeerInfo | undefined;
  /** The page bench's pipelines and decode loops, run in Node (they need ORT). */
  pipelines?: PipelineRecord[] | undefined;
  decodes?: DecodeRecord[] | undefined;
  /** The decode step on the runtime's own device (bench/node/decode-step.mjs), where the run took it. */
  decodeSteps?: DecodeStepRecord[] | undefined;
  /** What the run could not do, in words (no models, no ORT for the pipelines). */
  notes?: string[] | undefined;
  /** `--calls`: the per-call section, as the page's (its settings: callRounds, probes). */
  callCosts?: CallCostRecord[] | undefined;
  /** A campaign's file (bench/node/merge.mjs): the runs it holds, in order; figures compare within a run only. */
  parts?: NodePart[] | undefined;
}

export interface BenchApi {
  init(o: { ortThreads: number }): Promise<PageEnv>;
  runCase(c: BenchCase, s: Settings): Promise<CaseResult>;
  runPipeline(p: BenchPipeline, s: Settings): Promise<PipelineResult>;
  runDecode(p: BenchDecode, s: Settings): Promise<DecodeResult>;
  runCallCost(c: CallCostSpec, s: Settings): Promise<CallCostResult>;
  finish(): Promise<FinalState>;
}

declare global {
  interface Window {
    bench: BenchApi;
    benchReady?: boolean;
    benchLoadError?: string;
    __benchProgress?: (text: string) => Promise<void>;
  }
}
