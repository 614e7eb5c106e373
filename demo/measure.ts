// Running one node three ways and timing each: with its data already on the GPU (uploaded once,
// outputs stay there and are released), host -> GPU -> host, and on the CPU path. GPU-resident
// runs are timed in batches that end by draining the queue, so queued work is counted. The outputs
// of every path are compared bit for bit with the CPU path's.

import type { EngineStats, FixedDType, GpuTensor, HostTensor, SplitEngine, SplitNode } from '../src/index.js';

export interface Timing {
  /** Median milliseconds per run. */
  readonly ms: number;
  readonly runs: number;
}

/** A path the page times: what the engine did and how long it took, or why it was not taken. */
export type PathResult = { readonly time: Timing; readonly stats: EngineStats } | { readonly skipped: string };

export interface Measured {
  readonly resident: PathResult;
  readonly host: PathResult;
  readonly cpu: Timing;
  /** Whether every GPU path gave the CPU path's bits (undefined without WebGPU). */
  readonly same: boolean | undefined;
  /** GPU-resident outputs read back for that check, of how many (all of them up to MAX_READBACKS). */
  readonly readBack?: { readonly checked: number; readonly of: number };
}

/**
 * GPU-resident outputs read back to check them: each read is its own copy and map, so 4096 outputs
 * would take long; beyond this many, the first and last halves.
 */
const MAX_READBACKS = 64;

/**
 * Time of one run: the median over batches of k runs, k chosen so a batch lasts at least 5 ms
 * (a single submit's wait varies a lot on a software adapter), as many batches as fit in about 200 ms (5 at
 * least, so one slow batch does not decide the number). A first, untimed batch warms the path up
 * (pool buffers, pipelines), so it does not pick k.
 */
export async function timePerRun(batch: (k: number) => Promise<void>): Promise<Timing> {
  const timed = async (k: number) => {
    const t0 = performance.now();
    await batch(k);
    return (performance.now() - t0) / k;
  };
  await batch(1);
  let k = 1;
  while (k < 1024 && (await timed(k)) * k < 5) k *= 4;
  const times: number[] = [];
  const begin = performance.now();
  while (times.length < 5 || (times.length < 31 && performance.now() - begin < 200)) times.push(await timed(k));
  times.sort((a, b) => a - b);
  return { ms: times[times.length >> 1]!, runs: k * times.length };
}

/** Runs `node` on the host path of `engine` k times per batch. */
const hostBatch = (engine: SplitEngine, node: SplitNode) => async (k: number) => {
  for (let i = 0; i < k; i++) await engine.run(node);
};

/**
 * Measures every path of a node the GPU engine already ran once (`outs`, `stats`). `gpu` is
 * undefined when this browser has no WebGPU.
 */
export async function measure(
  gpu: SplitEngine | undefined,
  cpu: SplitEngine,
  node: SplitNode,
  outs: HostTensor[],
  stats: EngineStats,
): Promise<Measured> {
  const cpuOuts = (await cpu.run(node)) as HostTensor[];
  const cpuTime = await timePerRun(hostBatch(cpu, node));
  if (!gpu)
    return {
      resident: { skipped: 'not available: no WebGPU' },
      host: { skipped: 'not available: no WebGPU' },
      cpu: cpuTime,
      same: undefined,
    };
  const agree = (ts: HostTensor[]) => ts.length === cpuOuts.length && ts.every((t, i) => sameTensor(t, cpuOuts[i]!));
  const host: PathResult =
    stats.strategy === 'cpu'
      ? { skipped: `not used: ${node.inputs[0]!.dtype} host tensors are split on the CPU path` }
      : { time: await timePerRun(hostBatch(gpu, node)), stats };
  const x = node.inputs[0] as HostTensor;
  if (x.dtype === 'string')
    return {
      resident: { skipped: 'not possible: string tensors cannot live on the GPU' },
      host,
      cpu: cpuTime,
      same: agree(outs),
    };
  const r = await measureResident(gpu, node, x);
  const wanted = sampled(cpuOuts);
  const same =
    agree(outs) && r.outputs.length === wanted.length && r.outputs.every((t, i) => sameTensor(t, wanted[i]!));
  return { resident: r.result, host, cpu: cpuTime, same, readBack: { checked: r.outputs.length, of: cpuOuts.length } };
}

/** The outputs the GPU-resident check reads back: all, or the first and last MAX_READBACKS / 2. */
function sampled<T>(xs: readonly T[]): T[] {
  return xs.length <= MAX_READBACKS ? [...xs] : [...xs.slice(0, MAX_READBACKS / 2), ...xs.slice(-MAX_READBACKS / 2)];
}

/** The GPU-resident path: one upload, then runs whose outputs are released as soon as they exist. */
async function measureResident(
  gpu: SplitEngine,
  node: SplitNode,
  x: HostTensor,
): Promise<{ result: PathResult; outputs: HostTensor[] }> {
  const gx = gpu.upload(x as HostTensor<FixedDType>);
  try {
    const resident = { ...node, inputs: [gx, ...node.inputs.slice(1)] as [GpuTensor, ...SplitNode['inputs']] };
    const first = await gpu.run(resident);
    const stats = gpu.stats;
    const outputs = await Promise.all(sampled(first).map((t) => gpu.download(t)));
    for (const t of first) gpu.release(t);
    const time = await timePerRun(async (k) => {
      for (let i = 0; i < k; i++) {
        for (const t of await gpu.run(resident)) gpu.release(t);
      }
      await gpu.device!.queue.onSubmittedWorkDone();
    });
    return { result: { time, stats }, outputs };
  } finally {
    gpu.release(gx);
  }
}

/** Whether two host tensors hold the same dtype, shape and bits. */
function sameTensor(a: HostTensor, b: HostTensor): boolean {
  if (a.dtype !== b.dtype || a.shape.length !== b.shape.length || a.shape.some((d, i) => d !== b.shape[i]))
    return false;
  if (Array.isArray(a.data) || Array.isArray(b.data)) {
    const x = a.data as string[];
    const y = b.data as string[];
    return x.length === y.length && x.every((s, i) => s === y[i]);
  }
  const x = new Uint8Array(a.data.buffer, a.data.byteOffset, a.data.byteLength);
  const y = new Uint8Array(b.data.buffer, b.data.byteOffset, b.data.byteLength);
  return x.length === y.length && x.every((v, i) => v === y[i]);
}
