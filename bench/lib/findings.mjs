// What one run shows a reader, computed once for the terminal, report.html and the targets:
// GPU-resident Cleave against each GPU-resident peer (ORT Web, TF.js) only where Cleave does GPU
// work (a headline per peer), the
// zero-copy (alias) cases on their own, throughput, packed sub-byte dtypes against uint8 with the
// same element count, what Cleave's per-split error scopes cost, ORT -> Cleave -> ORT pipelines
// against ORT's whole graph, the per-call cost of split and encodeSplit, and the planner's choice
// against every strategy forced. All reported, never asserted.

/** @import { CallCostRecord, CaseRecord, PipelineRecord, SystemKey, SystemResult } from '../types.js' */

/** @param {SystemResult | undefined} s */
export const med = (s) => (s?.ok ? s.wall?.median : undefined);
/** @param {SystemResult | undefined} s */
export const gpuMed = (s) => (s?.ok ? s.gpu?.median : undefined);
/** @param {readonly number[]} xs */
export const geomean = (xs) => Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);
/** @param {number | undefined} a @param {number | undefined} b */
export const ratioOf = (a, b) => (a !== undefined && b !== undefined && b > 0 ? a / b : undefined);

/**
 * The warm cases where the planner chose (no forced strategy): the ones a headline may judge.
 * @param {readonly CaseRecord[]} results
 */
export const ownCases = (results) => results.filter((r) => !r.case.cold && !r.crashed && !r.case.strategy);

/**
 * Bytes a system moved in one split: the tensor's bytes, each delivered once into an output
 * (reads and writes are not counted twice); 0 where Cleave made views instead (alias).
 * @param {CaseRecord} r @param {SystemKey} key
 */
export function bytesMoved(r, key) {
  return r.systems[key]?.stats?.strategy === 'alias' ? 0 : r.case.bytes;
}

/**
 * GB/s (10^9 bytes per second) of a system in a case: bytesMoved over its median wall time.
 * @param {CaseRecord} r @param {SystemKey} key
 */
export function throughput(r, key) {
  const m = med(r.systems[key]);
  const b = bytesMoved(r, key);
  return m === undefined || m <= 0 || b === 0 ? undefined : b / (m * 1e6);
}

/**
 * The GPU-resident peers Cleave is measured against, each with a headline of its own.
 * @type {readonly { key: SystemKey, name: string }[]}
 */
export const PEERS = [
  { key: 'ort-gpu', name: 'ORT Web' },
  { key: 'tfjs-gpu', name: 'TF.js' },
];

/**
 * @typedef {object} PeerRow
 * @property {string} id
 * @property {number} ratio  the peer's median wall / Cleave's
 * @property {number | undefined} gpuRatio  the same in GPU time
 * @property {number} cleaveMs
 * @property {number} peerMs
 * @property {string} strategy  Cleave's
 * @property {boolean} cpuEp  ORT ran on its CPU EP (its WebGPU EP refused the graph)
 */
/** @typedef {PeerRow} OrtRow */

/**
 * GPU-resident Cleave against a GPU-resident peer, split three ways: the headline (Cleave does GPU
 * work, the peer on WebGPU), the zero-copy cases (Cleave aliased: no GPU work at all), and the
 * cases ORT could only run on its CPU EP.
 * @param {readonly CaseRecord[]} results @param {SystemKey} peer
 */
export function versusPeer(results, peer) {
  /** @type {PeerRow[]} */
  const rows = [];
  for (const r of ownCases(results)) {
    const c = r.systems['cleave-gpu'];
    const o = r.systems[peer];
    const cleaveMs = med(c);
    const peerMs = med(o);
    if (cleaveMs === undefined || peerMs === undefined) continue;
    rows.push({
      id: r.case.id,
      ratio: peerMs / cleaveMs,
      gpuRatio: ratioOf(gpuMed(o), gpuMed(c)),
      cleaveMs,
      peerMs,
      strategy: c?.stats?.strategy ?? '?',
      cpuEp: !!o?.fallback,
    });
  }
  const gpuWork = rows.filter((x) => x.strategy !== 'alias' && !x.cpuEp);
  const zeroCopy = rows.filter((x) => x.strategy === 'alias' && !x.cpuEp);
  const cpuEp = rows.filter((x) => x.cpuEp);
  /** @param {PeerRow[]} xs */
  const gm = (xs) => (xs.length ? geomean(xs.map((x) => x.ratio)) : undefined);
  return { gpuWork, zeroCopy, cpuEp, headline: gm(gpuWork), zeroCopyGeomean: gm(zeroCopy) };
}

/** GPU-resident Cleave against GPU-resident ORT (the headline target: at least 3x). @param {readonly CaseRecord[]} results */
export const versusOrt = (results) => versusPeer(results, 'ort-gpu');

/**
 * Each case with a `sameElementsAs` peer: time, GPU time, bytes and GB/s of GPU-resident Cleave,
 * the peer's alongside.
 * @param {readonly CaseRecord[]} results
 */
export function packedVsPeer(results) {
  return results
    .filter((r) => r.case.sameElementsAs && !r.case.cold)
    .map((r) => {
      const peer = results.find((x) => x.case.id === r.case.sameElementsAs);
      return {
        case: r,
        peer,
        timeRatio: peer ? ratioOf(med(r.systems['cleave-gpu']), med(peer.systems['cleave-gpu'])) : undefined,
      };
    });
}

/**
 * What the error scopes cost: the pair on an empty submit, and the case's GPU-resident split with
 * an engine-owned input (no scopes) beside the same split of a caller's buffer (scoped).
 * @param {readonly CaseRecord[]} results
 */
export function scopeCosts(results) {
  return results.flatMap((r) => {
    const s = r.errorScopes;
    if (!s) return [];
    return [
      {
        id: r.case.id,
        loops: s.loops,
        withUs: s.withScopesUs,
        withoutUs: s.withoutScopesUs,
        pairUs: s.withScopesUs.median - s.withoutScopesUs.median,
        ownedUs: s.ownedSplitUs,
        callerUs: s.callerSplitUs,
        ownedStrategy: s.ownedStrategy,
        callerStrategy: s.callerStrategy,
        callerError: s.callerError,
        roundTripUs: s.ownedSplitUs && s.callerSplitUs ? s.callerSplitUs.median - s.ownedSplitUs.median : undefined,
      },
    ];
  });
}

/**
 * Each pipeline: the median ms per inference of ORT's whole graph, of ORT A -> Cleave -> ORT B and
 * of ORT's whole graph on its CPU EP; the pipeline's time over the whole graph's (<= 1: no slower);
 * whether the outputs agree; and ORT's error where its whole graph failed.
 * @param {readonly PipelineRecord[] | undefined} pipelines
 */
export function pipelineRows(pipelines) {
  return (pipelines ?? []).map((r) => {
    const whole = r.systems['ort-whole'];
    const via = r.systems['cleave-pipeline'];
    return {
      r,
      id: r.id,
      wholeMs: med(whole),
      viaMs: med(via),
      cpuMs: med(r.systems['ort-whole-cpu']),
      ratio: ratioOf(med(via), med(whole)),
      gpuRatio: ratioOf(gpuMed(via), gpuMed(whole)),
      wholeError: whole && !whole.ok ? whole.error : undefined,
      viaError: via && !via.ok ? via.error : undefined,
      split: via?.stats,
    };
  });
}

/**
 * The per-call cost rows of every per-call case, with what each call did in words.
 * @param {readonly CallCostRecord[] | undefined} records
 */
export function callCostRows(records) {
  return (records ?? []).flatMap((r) =>
    r.rows.map((x) => ({
      id: r.id,
      spec: r.spec,
      row: x,
      chunk: r.chunk,
      input: `${x.aligned ? 'aligned' : 'unaligned'} (byte ${x.byteOffset}), ${x.owner === 'engine' ? 'engine upload' : "caller's buffer"}`,
      scopes: x.gpuCalls?.errorScopes === undefined ? undefined : x.gpuCalls.errorScopes > 0,
      /** Whether the call waited for its scopes' pops (runs saved before this was counted always did). */
      awaited: !x.gpuCalls?.scopesPending,
    })),
  );
}

/**
 * The adapter in words, and whether it is SwiftShader (shaders on the CPU).
 * @param {import('../types.js').PageEnv | undefined} env
 */
export function adapterOf(env) {
  const a = env?.adapter ?? {};
  const name = [a.vendor, a.architecture].filter(Boolean).join('/') || 'unknown adapter';
  const text = a.description ? `${name} (${a.description})` : name;
  const software = /swiftshader/i.test(`${a.architecture} ${a.description} ${a.device}`);
  return { name, text, software };
}

/** The strategies the bench forces beside the planner's choice, with the system that runs each. */
export const FORCED = /** @type {const} */ ([
  { strategy: 'alias', key: 'cleave-gpu-alias' },
  { strategy: 'copy', key: 'cleave-gpu-copy' },
  { strategy: 'gather', key: 'cleave-gpu-gather' },
]);

/**
 * @typedef {object} PlanChoiceRow
 * @property {string} id
 * @property {string} chosen  the planner's strategy (cleave-gpu)
 * @property {number | undefined} defaultMs
 * @property {{ strategy: string, ms: number | undefined, gpuMs: number | undefined, skip?: string | undefined }[]} forced
 * @property {string | undefined} best  the fastest forced strategy
 * @property {number | undefined} bestMs
 * @property {number | undefined} ratio  the default's median wall over the best forced one's
 * @property {number | undefined} choiceRatio  the chosen strategy forced over the best forced one: like for like
 *   (engines of the same kind), so it judges the choice alone; the default's own engine is the shared one
 */

/**
 * Per warm case where the planner chose: its plan's wall time beside each applicable strategy
 * forced (each its own system, timed in turn with the others in the same batches).
 * @param {readonly CaseRecord[]} results @returns {PlanChoiceRow[]}
 */
export function planChoiceRows(results) {
  return ownCases(results).flatMap((r) => {
    const forced = FORCED.map(({ strategy, key }) => ({
      strategy,
      ms: med(r.systems[key]),
      gpuMs: gpuMed(r.systems[key]),
      skip: r.systems[key]?.skip ?? r.systems[key]?.error,
    }));
    const timed = forced.filter((f) => f.ms !== undefined);
    if (timed.length === 0) return [];
    const best = timed.reduce((a, b) => (/** @type {number} */ (b.ms) < /** @type {number} */ (a.ms) ? b : a));
    const defaultMs = med(r.systems['cleave-gpu']);
    const chosen = r.systems['cleave-gpu']?.stats?.strategy ?? '?';
    return [
      {
        id: r.case.id,
        chosen,
        defaultMs,
        forced,
        best: best.strategy,
        bestMs: best.ms,
        ratio: ratioOf(defaultMs, best.ms),
        choiceRatio: ratioOf(forced.find((f) => f.strategy === chosen)?.ms, best.ms),
      },
    ];
  });
}
