// The Node bench's figures in words: ratios of Cleave's default plan to the two limits and to the
// best strategy forced (wall and GPU time), GB/s counting bytes read plus written, and the text
// tables. Pure: records in, strings out.

import { medianOf as ms, ratiosOf as ratios } from '../lib/ratios.mjs';
import { bytesText as size, ms as fmt, times } from '../lib/report/format.mjs';

/** @import { SystemResult } from '../types.js' */
/** @typedef {{ case: { id: string, bytes: number }, systems: Record<string, SystemResult> }} CaseRecord */

export { fmt, size };

/** Every ratio of a case, per clock (bench/lib/ratios.mjs). @param {CaseRecord} r */
export const ratiosOf = (r) => ratios(r.systems, 'cleave', ['forced-alias', 'forced-copy', 'forced-gather']);

/** GB/s moving the input's bytes once in and once out. @param {number} bytes @param {number | undefined} t */
const gbps = (bytes, t) => (t === undefined || t <= 0 ? undefined : (2 * bytes) / (t * 1e6));

/** @param {import('../types.js').PlanStats | undefined} st */
export function planOf(st) {
  if (!st) return '?';
  if (st.strategy === 'gather') return `gather ${st.unitBits === 1 ? 'bits' : `${st.unitBits}-bit`} x${st.dispatches}`;
  return st.strategy === 'copy' ? `copy x${st.copies}` : st.strategy;
}

/** A column of `n` characters, a space at least after `s`. @param {string} s @param {number} n */
const pad = (s, n) => `${s} `.padEnd(n);

/** A case's table: each system's ms, GB/s and plan, then its ratios. @param {CaseRecord} r */
export function renderCase(r) {
  const lines = [`  ${pad('system', 14)}${pad('wall ms', 10)}${pad('GPU ms', 10)}${pad('GB/s wall/GPU', 16)}plan`];
  for (const [key, s] of Object.entries(r.systems)) {
    const why = s.skip ?? (s.error ? `FAILED: ${s.error}` : undefined);
    if (why) {
      lines.push(`  ${pad(key, 14)}${why}`);
      continue;
    }
    const [w, g] = [ms(s, 'wall'), ms(s, 'gpu')];
    const rate = `${fmt(gbps(r.case.bytes, w))} / ${fmt(gbps(r.case.bytes, g))}`;
    const plan = s.stats ? planOf(s.stats) : '';
    lines.push(`  ${pad(key, 14)}${pad(fmt(w), 10)}${pad(fmt(g), 10)}${pad(rate, 16)}${plan}`.trimEnd());
  }
  const q = ratiosOf(r);
  const x = times;
  lines.push(
    `  default / copy limit ${x(q.wall.copyLimit)} (GPU ${x(q.gpu.copyLimit)}), / shader limit ` +
      `${x(q.wall.shaderLimit)} (GPU ${x(q.gpu.shaderLimit)}), / best forced ${x(q.wall.bestForced)} ` +
      `(${q.wall.bestForcedStrategy ?? '-'}; GPU ${x(q.gpu.bestForced)}, ${q.gpu.bestForcedStrategy ?? '-'})`,
  );
  return lines.join('\n');
}

/** One line per case: the plan chosen and every ratio. @param {readonly CaseRecord[]} records */
export function renderSummary(records) {
  const w = Math.max(4, ...records.map((r) => r.case.id.length)) + 2;
  const head = `${pad('case', w)}${pad('default plan', 18)}${pad('ms wall (GPU)', 18)}`;
  const lines = [`${head}${pad('/copy limit', 16)}${pad('/shader limit', 16)}/best forced (which)`];
  const x = times;
  for (const r of records) {
    const c = r.systems.cleave;
    const q = ratiosOf(r);
    const both = (/** @type {'copyLimit' | 'shaderLimit' | 'bestForced'} */ k) => `${x(q.wall[k])} (${x(q.gpu[k])})`;
    const which = `${q.wall.bestForcedStrategy ?? '-'}/${q.gpu.bestForcedStrategy ?? '-'}`;
    const time = c?.error ? 'FAILED' : `${fmt(ms(c, 'wall'))} (${fmt(ms(c, 'gpu'))})`;
    lines.push(
      `${pad(r.case.id, w)}${pad(planOf(c?.stats), 18)}${pad(time, 18)}${pad(both('copyLimit'), 16)}` +
        `${pad(both('shaderLimit'), 16)}${both('bestForced')} ${which}`,
    );
  }
  return lines.join('\n');
}
