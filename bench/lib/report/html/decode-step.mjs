// The decode step on the runtime's own device, as a section of bench:node's page: what a step is, the counts per
// engine (compiles by phase, GPU work no call recorded, calls and objects per step, the caches checked), and the host
// time of its steps against the same calls replayed bare, per run and over the runs, against the target. The
// figures and words are lib/report/decode-step.mjs's, as the text report gives them.

import {
  aboutText,
  countRows,
  decodeStepFailures,
  engineName,
  hostRows,
  hostRule,
  offExpected,
  targetText,
} from '../decode-step.mjs';
import { esc, notes, para, table } from './markup.mjs';

/** @import { DecodeStepRecord } from '../../../types.js' */

/** The section, or nothing when the run did not take the case. @param {readonly DecodeStepRecord[]} records */
export function decodeStepSection(records) {
  if (records.length === 0) return '';
  return [
    `<h2>${esc("The decode step on the runtime's device")}</h2>`,
    ...records.map((r) => {
      const c = countRows(r);
      const h = hostRows(r);
      const off = r.runs.flatMap((e) => offExpected(e).map((o) => ({ text: `${engineName(e)}: ${o}`, cls: 'warn' })));
      const failed = decodeStepFailures(r).map((f) => ({ text: f, cls: 'err' }));
      return (
        `<h3>${esc(r.id)}</h3>${para(aboutText(r), 'muted')}${table(c.head, c.rows)}` +
        (off.length ? notes(off) : para('Every count as the issue expects.')) +
        `${para(hostRule(r), 'muted')}${table(h.head, h.rows, 2)}${notes(r.runs.map((e) => targetText(r, e)))}` +
        notes(failed)
      );
    }),
  ].join('\n');
}
