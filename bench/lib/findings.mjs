// What one run shows, as comparisons, computed once for the text report: GPU-resident Cleave against each
// GPU-resident peer (ORT Web, TF.js) where Cleave does GPU work, the zero-copy cases apart; the default
// plan against the device's copy limits and against each strategy forced; a case against the cases of the
// same bytes or the same elements; pipelines against ORT's whole graph; per-call costs. Pure: records in,
// numbers out.

import { medianOf, ratioOf, ratiosOf } from './ratios.mjs';

/** @import { CallCostRecord, CaseRecord, PipelineRecord, SystemKey, SystemResult } from '../types.js' */

export { ratioOf };
/** @param {SystemResult | undefined} s */
export const med = (s) => medianOf(s, 'wall');
/** @param {SystemResult | undefined} s */
export const gpuMed = (s) => medianOf(s, 'gpu');
/** @param {readonly number[]} xs */
export const geomean = (xs) => Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);

/** The warm cases where the planner chose (no strategy forced by the case). @param {readonly CaseRecord[]} results */
export const ownCases = (results) => results.filter((r) => !r.case.cold && !r.crashed && !r.case.strategy);

/**
 * GB/s (10^9 bytes per second) of a system in a case: the tensor's bytes, each delivered once into an
 * output, over its median wall time; none where Cleave made views instead (alias: no bytes moved).
 * @param {CaseRecord} r @param {SystemKey} key
 */
export function throughput(r, key) {
  const m = med(r.systems[key]);
  const aliased = r.systems[key]?.stats?.strategy === 'alias';
  return m === undefined || m <= 0 || aliased ? undefined : r.case.bytes / (m * 1e6);
}

/** The GPU-resident peers Cleave is compared with. @type {readonly { key: SystemKey, name: string }[]} */
export const PEERS = [
  { key: 'ort-gpu', name: 'ORT Web' },
  { key: 'tfjs-gpu', name: 'TF.js' },
];

/** ratio: the peer's ms / Cleave's. @typedef {{ id: string, ratio: number, strategy: string, cpuEp: boolean }} Row */

/**
 * GPU-resident Cleave against a GPU-resident peer in three groups: Cleave does GPU work and the peer runs on
 * WebGPU (the geometric mean judges these), Cleave made views (no GPU work), ORT ran on its CPU EP.
 * @param {readonly CaseRecord[]} results @param {SystemKey} peer
 */
export function versusPeer(results, peer) {
  /** @type {Row[]} */
  const rows = [];
  for (const r of ownCases(results)) {
    const ratio = ratioOf(med(r.systems[peer]), med(r.systems['cleave-gpu']));
    const strategy = r.systems['cleave-gpu']?.stats?.strategy ?? '?';
    if (ratio !== undefined) rows.push({ id: r.case.id, ratio, strategy, cpuEp: !!r.systems[peer]?.fallback });
  }
  const gpuWork = rows.filter((x) => x.strategy !== 'alias' && !x.cpuEp);
  const zeroCopy = rows.filter((x) => x.strategy === 'alias' && !x.cpuEp);
  return {
    gpuWork,
    zeroCopy,
    cpuEp: rows.filter((x) => x.cpuEp),
    geomean: gpuWork.length ? geomean(gpuWork.map((x) => x.ratio)) : undefined,
  };
}

/** The strategies forced beside the planner's choice, with the system that runs each. */
export const FORCED = /** @type {const} */ (['cleave-gpu-alias', 'cleave-gpu-copy', 'cleave-gpu-gather']);

/**
 * Per warm case where the planner chose: its plan, its time, each strategy forced, and its ratios to the
 * copy limits and to the fastest strategy forced (wall and GPU time); `chosen`: the planner's strategy
 * forced over the fastest forced one (engines of one kind: the choice alone).
 * @param {readonly CaseRecord[]} results
 */
export function limitRows(results) {
  return ownCases(results).map((r) => {
    const own = r.systems['cleave-gpu'];
    const ratios = ratiosOf(r.systems, 'cleave-gpu', FORCED);
    const forced = FORCED.map((k) => ({
      strategy: k.split('-').at(-1),
      ms: med(r.systems[k]),
      gpuMs: gpuMed(r.systems[k]),
    }));
    const best = ratios.wall.bestForcedStrategy;
    const pick = (/** @type {string | undefined} */ s) => forced.find((f) => f.strategy === s)?.ms;
    const chosen = ratioOf(pick(own?.stats?.strategy), pick(best));
    return { id: r.case.id, plan: own?.stats, ms: med(own), gpuMs: gpuMed(own), forced, ratios, chosen };
  });
}

/**
 * Each case that names cases of the same bytes (sameBytesAs) or of the same elements and split in
 * another dtype (sameElementsAs), with GPU-resident Cleave's time over theirs.
 * @param {readonly CaseRecord[]} results
 */
export function sameAsRows(results) {
  return results.flatMap((r) =>
    [...(r.case.sameBytesAs ?? []), ...(r.case.sameElementsAs ? [r.case.sameElementsAs] : [])].flatMap((id) => {
      const peer = results.find((x) => x.case.id === id);
      const timeRatio = ratioOf(med(r.systems['cleave-gpu']), med(peer?.systems['cleave-gpu']));
      return peer && timeRatio !== undefined
        ? [{ r, peer, timeRatio, bytesRatio: r.case.bytes / peer.case.bytes }]
        : [];
    }),
  );
}

/**
 * Each pipeline: ms per inference of ORT's whole graph, of ORT A -> Cleave -> ORT B and of ORT's whole
 * graph on its CPU EP, the pipeline's time over the whole graph's, and ORT's error where it failed.
 * @param {readonly PipelineRecord[]} pipelines
 */
export function pipelineRows(pipelines) {
  return pipelines.map((r) => {
    const [whole, via] = [r.systems['ort-whole'], r.systems['cleave-pipeline']];
    return {
      r,
      ratio: ratioOf(med(via), med(whole)),
      wholeError: whole && !whole.ok ? whole.error : undefined,
      viaError: via && !via.ok ? via.error : undefined,
    };
  });
}

/**
 * The per-call cost rows, each with its record's id, its input in words, its error scopes in words and the
 * bare calls' µs of its record (median over rounds, and fastest round).
 * @param {readonly CallCostRecord[]} records
 */
export function callCostRows(records) {
  return records.flatMap((r) => {
    const bare = r.rows.find((x) => x.fn === 'bare')?.us;
    return r.rows.map((x) => ({
      id: r.id,
      row: x,
      bareUs: bare?.median,
      bareFastestUs: bare?.min,
      input: `${x.aligned ? 'aligned' : 'at byte 4'}, ${x.owner === 'engine' ? 'engine upload' : "caller's buffer"}`,
      scopes: x.gpuCalls
        ? x.gpuCalls.errorScopes > 0
          ? x.gpuCalls.scopesPending
            ? 'not awaited'
            : 'awaited'
          : 'none'
        : '-',
    }));
  });
}

/**
 * An error scope around the bare calls in words; `n`: the calls in a row of a batch.
 * @param {import('../types.js').CallCostRow['scope']} scope @param {number | undefined} n
 */
export const scopeWords = (scope, n) =>
  scope === 'call'
    ? 'a validation scope per call, its pop not awaited'
    : scope === 'batch'
      ? `one validation scope per batch of ${n ?? 'N'} calls`
      : scope === 'call-awaited'
        ? 'a validation scope per call, its pop awaited'
        : 'no error scope';

/**
 * What keeping blame costs: the bare calls with no scope, then inside each kind of error scope the run timed, with
 * the µs per call each scope adds to the bare calls, fastest round over fastest round (`addedUs`).
 * @param {CallCostRecord} r
 */
export function scopeStudy(r) {
  const n = r.spec?.callsInARow;
  const bare = r.rows.find((x) => x.fn === 'bare');
  const scoped = r.rows.filter((x) => x.fn === 'scoped' && x.scope);
  if (!bare?.us || scoped.length === 0) return [];
  const fastest = bare.us.min;
  return [bare, ...scoped].map((x) => ({
    row: x,
    words: scopeWords(x.scope, n),
    addedUs: x.us && x !== bare ? x.us.min - fastest : undefined,
  }));
}

/**
 * The adapter in words, and whether it is SwiftShader (shaders on the CPU). Firefox names no adapter: there,
 * the Vulkan driver it was given (VK_ICD_FILENAMES) says which it is.
 * @param {import('../types.js').PageEnv & { browser?: import('../types.js').BrowserInfo | undefined }} env
 */
export function adapterOf(env) {
  const a = env.adapter;
  const name = [a.vendor, a.architecture].filter(Boolean).join('/');
  const icd = env.browser?.vkIcd;
  if (!name && !a.description && icd)
    return {
      text: `not named by the browser; Vulkan driver VK_ICD_FILENAMES=${icd}`,
      software: /swiftshader/i.test(icd),
    };
  return {
    text: a.description ? `${name || 'unknown adapter'} (${a.description})` : name || 'unknown adapter',
    software: /swiftshader/i.test(`${a.architecture} ${a.description} ${a.device}`),
  };
}
