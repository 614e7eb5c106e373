// `npm run bench:node`'s results as an HTML page: the header, the cases where Cleave does GPU work (its default plan
// beside each strategy forced, GB/s, and per case every system over the copy limit), the cases where its outputs are
// views apart, the per-call section (--calls: the page's own section), and whatever went wrong.

import { bytesText } from '../format.mjs';
import { callsSection } from './calls.mjs';
import { caseFigure } from './cases.mjs';
import { deviceDetails, nodeHeader } from './header.mjs';
import { Charts, para } from './markup.mjs';
import { gbpsFigure, plansFigure } from './plans.mjs';

/** @import { NodeCaseRecord, NodeReport } from '../../../types.js' */
/** @import { CaseView, SystemDef } from './cases.mjs' */

/** @type {readonly SystemDef[]} */
const DEFS = [
  { key: 'cleave', name: 'Cleave (default plan)', color: '#1f6feb' },
  { key: 'forced-alias', name: 'alias forced', color: '#59a14f' },
  { key: 'forced-copy', name: 'copy forced', color: '#e15759' },
  { key: 'forced-gather', name: 'gather forced', color: '#b07aa1' },
  { key: 'separate', name: "layout 'separate'", color: '#0a3069' },
  { key: 'copy-limit', name: 'copy limit', color: '#6e7781' },
  { key: 'shader-limit', name: 'shader limit', color: '#24292f' },
];
const FORCED = ['forced-alias', 'forced-copy', 'forced-gather'];

/** @param {NodeCaseRecord} r @returns {CaseView} */
const viewOf = (r) => {
  const c = r.case;
  return {
    id: c.id,
    about: `${c.dtype} [${c.shape.join(',')}] a${c.axis} -> [${c.sizes.join(',')}], ${bytesText(c.bytes)}`,
    systems: r.systems,
    defs: DEFS,
    moved: 2 * c.bytes,
    problems: r.gpuErrors.map((e) => `GPU error: ${e}`),
  };
};

/** @param {Charts} charts @param {readonly NodeCaseRecord[]} cases */
const plans = (charts, cases) =>
  plansFigure(
    charts,
    cases
      .filter((r) => !r.case.strategy)
      .map((r) => ({ id: r.case.id, systems: r.systems, own: 'cleave', forced: FORCED })),
  );

const GBPS_RULE = "GB/s: the tensor's bytes read plus written per median wall second, 10^9 bytes.";

/** @param {NodeReport} report @returns {{ title: string, body: string, charts: Charts['specs'] }} */
export function nodeRun(report) {
  const charts = new Charts();
  const views = (/** @type {NodeCaseRecord} */ r) => r.systems.cleave?.stats?.strategy === 'alias';
  const headline = report.cases.filter((r) => !views(r));
  const apart = report.cases.filter(views);
  const out = [nodeHeader(report)];
  if (headline.length)
    out.push(
      '<h2>Where Cleave does GPU work</h2>',
      para(
        "Cleave's kernels through Dawn on one device with the adapter's full limits: the default plan (its engine " +
          'calibrated), each strategy forced, one copyBufferToBuffer and a vec4 copy kernel of the same bytes; every ' +
          'output checked before timing, medians of interleaved batches.',
        'muted',
      ),
      plans(charts, headline),
      gbpsFigure(charts, headline.map(viewOf), DEFS, GBPS_RULE),
      '<h3>Per case</h3>',
      ...headline.map((r) => caseFigure(charts, viewOf(r))),
    );
  if (apart.length)
    out.push(
      "<h2>Where Cleave's outputs are views</h2>",
      para(
        "Cleave's default plan makes views of the input here: nothing copied, nothing submitted (GPU time 0). " +
          'Kept out of the headline.',
        'muted',
      ),
      plans(charts, apart),
      ...apart.map((r) => caseFigure(charts, viewOf(r))),
    );
  out.push(callsSection(charts, { callCosts: report.callCosts ?? [] }));
  out.push(deviceDetails(report.features, report.limits, report.settings));
  return { title: `Cleave bench:node ${report.started}`, body: out.join('\n'), charts: charts.specs };
}
