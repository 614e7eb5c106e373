// bench:node's cases as the page bench's reports read them: its system keys renamed to the page's, so that the
// page's comparisons (lib/findings.mjs: Cleave against each peer, the plan spread) run unchanged on Node's figures.
// Pure: records in, records out.

/** @import { CaseRecord, NodeCaseRecord, NodeSystemKey } from '../types.js' */

/** Node's key of each system, the page's key of it. @type {Readonly<Record<NodeSystemKey, string>>} */
const PAGE_KEYS = {
  cleave: 'cleave-gpu',
  'forced-alias': 'cleave-gpu-alias',
  'forced-copy': 'cleave-gpu-copy',
  'forced-gather': 'cleave-gpu-gather',
  separate: 'cleave-gpu-separate',
  ort: 'ort-gpu',
  tfjs: 'tfjs-gpu',
  'copy-limit': 'copy-limit',
  'shader-limit': 'shader-limit',
};

/**
 * The cases that ran (a skipped case left out), with the page's system keys.
 * @param {readonly (Pick<NodeCaseRecord, 'case' | 'systems'> & { skipped?: string | undefined })[]} records
 * @returns {CaseRecord[]}
 */
export const pageView = (records) =>
  records
    .filter((r) => !r.skipped)
    .map((r) => ({
      id: r.case.id,
      case: /** @type {CaseRecord['case']} */ (r.case),
      systems: Object.fromEntries(
        Object.entries(r.systems).map(([k, s]) => [PAGE_KEYS[/** @type {NodeSystemKey} */ (k)] ?? k, s]),
      ),
    }));
