// `npm run bench:node -- --calls`: the page bench's per-call section (bench/page/calls.mjs, the same module) in
// Node, on Dawn: what one call of a decode step's split costs in JavaScript and WebGPU calls, against the bare
// calls its copies need, each variant verified against the reference before its rounds. Runs on the device and
// the calibrated engine run.mjs opened; the page modules load here, once the WebGPU globals exist (run.mjs's
// loader hook maps their '/dist/…' imports to dist/). Text: bench/lib/report/calls.mjs, as the page bench prints it.

import { CALL_COSTS } from '../cases.mjs';
import { log } from '../lib/cli.mjs';
import { renderCallCosts, renderScopeStudy, scopeFindings } from '../lib/report/calls.mjs';
import { ms } from '../lib/report/format.mjs';

/** @import { SplitEngine } from 'cleave-gpu' */
/** @import { CallCostRecord, Settings } from '../types.js' */

/**
 * Rounds of the per-call section: `--call-rounds N`, else 7 in a quick run and 21 in a full one (as the page's).
 * @param {boolean} quick @param {number | undefined} rounds
 */
export const callRoundsFor = (quick, rounds) => rounds ?? (quick ? 7 : 21);

/**
 * Runs every per-call item (the quick ones in a quick run), prints its tables and returns its records;
 * `failed`: the items with a variant that failed (n/a is not a failure) or a GPU error.
 * @param {{ device: GPUDevice, engine: SplitEngine, errors: string[] }} shared
 * @param {Settings} settings @param {boolean} quick
 * @returns {Promise<{ records: CallCostRecord[], failed: string[] }>}
 */
export async function runCalls(shared, settings, quick) {
  const { runCallCost } = await import('../page/calls.mjs');
  /** @type {CallCostRecord[]} */
  const records = [];
  for (const spec of CALL_COSTS.filter((c) => !quick || c.quick)) {
    const r = await runCallCost(spec, settings, shared);
    records.push({ ...r, spec });
    log(`\n${spec.id} (${spec.dtype} [${spec.shape}] axis ${spec.axis} into ${spec.parts}, ${ms(r.seconds)} s)`);
  }
  const report = { callCosts: records, settings };
  log(`\n${renderCallCosts(report)}`);
  const scopes = renderScopeStudy(report);
  if (scopes) log(`\n${scopes}`);
  for (const line of scopeFindings(report)) log(`\n${line}`);
  const failed = records.filter((r) => r.gpuErrors?.length || r.rows.some((x) => x.error));
  for (const r of failed) {
    for (const x of r.rows) if (x.error) log(`  ${r.id}: ${x.variant}: ${x.error}`);
    for (const e of r.gpuErrors ?? []) log(`  ${r.id}: GPU error: ${e}`);
  }
  return { records, failed: failed.map((r) => r.id) };
}
