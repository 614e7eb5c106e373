// The pipeline section of the page: the model in one line (from pipeline/case.json), a button that
// runs it three ways (demo/pipeline.ts), then each way's timing or ORT's error quoted word for
// word, what Cleave's split did, and the bit-for-bit check. section[data-state] goes loading ->
// idle (or unavailable, without WebGPU) -> running -> done (or failed), so a watcher (the e2e test)
// knows when to read it.

import { byId, el } from './dom.js';
import type { Timing } from './measure.js';
import { type PipelineCase, type PipelineOutcome, type WayResult, runPipeline } from './pipeline.js';
import { statRow, timeCell, workWords } from './report.js';

const INFERENCE = 'inference';

/** Fills in the model's line and wires the button; without WebGPU the section says why it cannot run. */
export async function setupPipeline(noWebGpu: string | undefined): Promise<void> {
  const section = byId('pipeline');
  const button = byId('pipe-run') as HTMLButtonElement;
  const status = byId('pipe-status');
  button.disabled = true;
  const c = (await (await fetch(new URL('pipeline/case.json', document.baseURI))).json()) as PipelineCase;
  byId('pipe-graph').textContent = graphLine(c);
  if (noWebGpu) {
    status.textContent = `This section needs WebGPU, which this browser does not give (${noWebGpu}).`;
    section.dataset.state = 'unavailable';
    return;
  }
  button.disabled = false;
  section.dataset.state = 'idle';
  button.addEventListener('click', () => {
    button.disabled = true;
    section.dataset.state = 'running';
    byId('pipe-stats').replaceChildren();
    runPipeline(c, (what) => {
      status.textContent = `${what}…`;
    }).then(
      (o) => {
        status.textContent = `Ran with ONNX Runtime Web ${o.ort}.`;
        byId('pipe-stats').replaceChildren(...rows(o, c));
        section.dataset.state = 'done';
        button.disabled = false;
        button.textContent = 'Run again';
      },
      (e: unknown) => {
        console.error(e);
        const why = e instanceof Error ? e.message : String(e);
        status.textContent = `The section failed (a bug in Cleave or this page): ${why}`;
        section.dataset.state = 'failed';
        button.disabled = false;
      },
    );
  });
}

function graphLine(c: PipelineCase): string {
  const [S, D, H] = [c.seq, c.width, c.hidden];
  return (
    `x [1, ${S}, ${D}] → MatMul → qkv [1, ${S}, ${3 * H}] → Split into ${c.names.length} × [1, ${S}, ${H / c.heads}] ` +
    `→ ${c.heads} heads of (q · kᵀ) · v → Concat → y [1, ${S}, ${H}]`
  );
}

/** ORT's message word for word (less the line break it ends with), the sentence that says what broke in bold. */
function quote(error: string): HTMLElement {
  const message = error.trim();
  const at = message.search(/Too many storage buffers/);
  return at < 0
    ? el('q', { className: 'quote' }, message)
    : el('q', { className: 'quote' }, message.slice(0, at), el('strong', {}, message.slice(at)));
}

const timeOf = (w: WayResult): Timing | undefined => ('time' in w ? w.time : undefined);
const same = (p: Uint32Array, q: Uint32Array) => p.length === q.length && p.every((v, i) => v === q[i]);

function rows(o: PipelineOutcome, c: PipelineCase): HTMLElement[] {
  const slowest = Math.max(...[o.whole, o.viaCleave, o.cpu].map((w) => timeOf(w)?.ms ?? 0));
  // Only the whole graph's failure is surely ORT's to explain; the pipeline's could be Cleave's.
  const way = (w: WayResult, how: string, id: string) =>
    'error' in w
      ? el('span', { id }, id === 'pipe-whole' ? 'fails, and ORT says:' : 'fails:', quote(w.error))
      : el('span', { id }, timeCell(w.time, how, slowest, INFERENCE));
  const list = [
    statRow("ORT's whole graph, WebGPU EP", way(o.whole, 'x from the host, y read back', 'pipe-whole')),
    statRow(
      'ORT A → Cleave → ORT B, WebGPU',
      way(
        o.viaCleave,
        `x from the host, y read back; qkv and its ${c.names.length} parts stay on the GPU`,
        'pipe-cleave',
      ),
    ),
  ];
  if (o.split)
    list.push(
      statRow(
        "of which Cleave's split",
        el(
          'span',
          { id: 'pipe-split' },
          timeCell(o.split.time, workWords(o.split.stats, 'float32', true), timeOf(o.viaCleave)?.ms ?? o.split.time.ms),
        ),
      ),
    );
  list.push(
    statRow("ORT's whole graph, CPU EP", way(o.cpu, 'wasm, one thread; x and y on the host', 'pipe-cpu')),
    statRow('check', check(o), 'pipe-agree'),
  );
  return list;
}

/** The pipeline's y against the CPU EP's and the reference (and the whole graph's on WebGPU, when it ran). */
function check(o: PipelineOutcome): string {
  if ('error' in o.viaCleave) return 'the pipeline did not run ✗';
  const y = o.viaCleave.y;
  const parts = [
    'error' in o.cpu
      ? "ORT's CPU EP did not run ✗"
      : same(y, o.cpu.y)
        ? `y through Cleave equals ORT's CPU EP, bit for bit ✓ (${y.length} values)`
        : "y through Cleave DIFFERS from ORT's CPU EP ✗",
    same(y, o.ref) ? 'and the reference computed in doubles ✓' : 'but not the reference computed in doubles ✗',
  ];
  if (!('error' in o.whole))
    parts.push(same(y, o.whole.y) ? "and ORT's whole graph on WebGPU ✓" : "but not ORT's whole graph on WebGPU ✗");
  return parts.join(', ');
}
