// Demo page entry: two engines (WebGPU when this browser has an adapter, and the CPU path), the
// node from the controls shown as code, run, timed on every path and drawn. Every failure lands on
// the page: a SplitError next to the control its subject names, anything else in the result line.

import './style.css';
import {
  type EngineStats,
  type HostTensor,
  type SplitEngine,
  SplitError,
  createSplitEngine,
  planSplit,
  resolveNode,
} from '../src/index.js';
import { CodeView, nodeCode } from './code.js';
import { Controls } from './controls.js';
import { byId, el } from './dom.js';
import { type Picture, drawPicture } from './draw.js';
import { measure } from './measure.js';
import { setupPipeline } from './pipeline-view.js';
import { statRow, statsRows } from './report.js';
import { FieldError, type NodeRequest } from './request.js';
import { Tooltip } from './tooltip.js';

/** The WebGPU engine, or undefined (with the reason) when this browser cannot give one. */
async function openGpu(): Promise<{ engine?: SplitEngine; why?: string }> {
  if (!('gpu' in navigator) || !navigator.gpu) return { why: 'navigator.gpu is missing' };
  try {
    return { engine: await createSplitEngine({ backend: 'webgpu' }) };
  } catch (e) {
    return { why: e instanceof Error ? e.message : String(e) };
  }
}

const gpu = await openGpu();
const cpu = await createSplitEngine({ backend: 'cpu' });
const main = gpu.engine ?? cpu;

/**
 * The adapter in words, and whether it runs GPU work on the CPU: SwiftShader by name (Dawn names it in the
 * architecture, wgpu in the description where it gives one), or any adapter the browser calls a fallback
 * (Firefox names none, but says that).
 */
function adapterOf(engine: SplitEngine): { name: string; software: boolean } {
  const info: Partial<GPUAdapterInfo> = engine.device?.adapterInfo ?? engine.adapterInfo ?? {};
  const name = [info.vendor, info.architecture || info.description].filter(Boolean).join(' ') || 'unnamed adapter';
  const swiftshader = /swiftshader/i.test(`${info.architecture} ${info.description}`);
  const software = swiftshader || info.isFallbackAdapter === true;
  return { name: software && !swiftshader ? `${name} (software)` : name, software };
}

if (gpu.engine) {
  const adapter = adapterOf(gpu.engine);
  byId('adapter').textContent = `WebGPU · ${adapter.name}`;
  if (adapter.software) {
    byId('timing-note').append(
      ' This adapter is a software one (SwiftShader, or another fallback), which runs GPU work on the CPU: compare ' +
        'the paths with each other here, not with a hardware GPU.',
    );
  }
} else {
  byId('adapter').textContent = 'CPU path';
  byId('adapter').classList.add('cpu');
  const notice = byId('notice');
  notice.textContent =
    `No WebGPU in this browser (${gpu.why}): every split runs on Cleave's CPU path. ` +
    'Open the page in Chrome or Edge 113+ (or Chromium with --enable-unsafe-webgpu) to see the GPU path.';
  notice.hidden = false;
}

const tip = new Tooltip();
const code = new CodeView();
byId('call').append(code.root);
let timer: ReturnType<typeof setTimeout> | undefined;
let busy = false;
let again = false;
let runs = 0;

// body[data-state] is 'pending' from the moment an edit schedules a run until the last run it
// caused is drawn ('done'), so a watcher (the e2e test) never reads a stale picture.
let pending = false;
const controls = new Controls(byId('controls') as HTMLFormElement, (now) => {
  clearTimeout(timer);
  pending = true;
  document.body.dataset.state = 'pending';
  timer = setTimeout(
    () => {
      pending = false;
      schedule();
      setupPipeline(gpu.engine ? undefined : gpu.why).catch((e: unknown) => console.error(e));
    },
    now ? 0 : 300,
  );
});

/** Runs one update at a time; edits made meanwhile are picked up by one more update. */
function schedule(): void {
  if (busy) {
    again = true;
    return;
  }
  busy = true;
  document.body.dataset.state = 'running';
  void (async () => {
    do {
      again = false;
      await update().catch((e: unknown) => unexpected(e));
    } while (again);
    busy = false;
    document.body.dataset.runs = String(++runs);
    document.body.dataset.state = pending ? 'pending' : 'done';
  })();
}

async function update(): Promise<void> {
  controls.clearErrors();
  let req: NodeRequest;
  try {
    req = controls.request();
  } catch (e) {
    if (!(e instanceof FieldError)) throw e;
    const at = controls.showError(e.field, e.message);
    code.show('// no call: the page could not read the form');
    refused(`The page could not read '${controls.labelOf(at)}'.`, undefined);
    return;
  }
  code.show(nodeCode(req.node));
  // For the console, and for the e2e test, which runs the code view and compares with this node.
  (globalThis as { cleaveDemo?: unknown }).cleaveDemo = { node: req.node };
  let outs: HostTensor[];
  let stats: EngineStats;
  try {
    outs = (await main.run(req.node)) as HostTensor[];
    stats = main.stats;
  } catch (e) {
    if (!(e instanceof SplitError)) throw e;
    const at = controls.showError(controls.fieldFor(e), e.message, e.code);
    refused(`The engine refused this node (${e.code}); the message is next to ${controls.labelOf(at)}.`, req);
    return;
  }
  const m = await measure(gpu.engine, cpu, req.node, outs, stats);
  byId('stats').replaceChildren(...statsRows(m, req.input.dtype));
  const picture = pictureOf(req, outs);
  if (!picture) throw new Error(`the engine ran a node whose axis ${req.axis} the page cannot place`);
  draw(picture);
  const noun = req.version.op === 'SplitToSequence' ? 'tensor' : 'output';
  const what = `${outs.length} ${noun}${outs.length === 1 ? '' : 's'}`;
  setResult(`${req.version.id} gave ${what}: lengths ${listOf(picture.sizes!)} along axis ${picture.axis}.`, 'ok');
}

/** A list, shortened in the middle when long. */
function listOf(xs: readonly number[]): string {
  return xs.length <= 12 ? `[${xs.join(', ')}]` : `[${xs.slice(0, 8).join(', ')}, …, ${xs.slice(-2).join(', ')}]`;
}

/** A refused node: no outputs, but the input is still drawn when its shape and axis allow. */
function refused(message: string, req: NodeRequest | undefined): void {
  setResult(message, 'refused');
  byId('stats').replaceChildren(statRow('result', 'no outputs'));
  const picture = req && pictureOf(req, undefined);
  byId('outputs').replaceChildren();
  if (picture) {
    draw(picture);
  } else {
    shown = undefined;
    byId('input').replaceChildren(
      el('p', { className: 'empty' }, 'The input is drawn once its shape and axis are valid.'),
    );
  }
}

function unexpected(e: unknown): void {
  console.error(e);
  setResult(`Unexpected error (a bug in Cleave or this page): ${e instanceof Error ? e.message : String(e)}`, 'bug');
}

function setResult(text: string, kind: 'ok' | 'refused' | 'bug'): void {
  const r = byId('result');
  r.textContent = text;
  r.className = kind;
  document.body.dataset.result = kind;
}

/** The picture on the page, redrawn when the window's width changes (a phone turned sideways). */
let shown: Picture | undefined;
let shownWidth = innerWidth;

function draw(p: Picture): void {
  shown = p;
  shownWidth = innerWidth;
  drawPicture(byId('input'), byId('outputs'), p, tip);
}

addEventListener('resize', () => {
  if (shown && innerWidth !== shownWidth) draw(shown);
});

/**
 * The [outer, axis, inner] view and chunks: the engine's own plan of the node when it ran, or the
 * input alone (when its shape and axis allow) when it was refused.
 */
function pictureOf(req: NodeRequest, outs: HostTensor[] | undefined): Picture | undefined {
  const x = req.input;
  const outputName = req.version.op === 'SplitToSequence' ? 'seq' : 'out';
  if (outs) {
    const { plan } = resolveNode(req.node);
    const view = { input: x, axis: plan.axis, outer: plan.outer, axisLen: plan.axisLen, inner: plan.inner, outputName };
    return { ...view, sizes: [...plan.sizes], starts: [...plan.starts], outputs: outs };
  }
  const rank = x.shape.length;
  const raw = req.axis ?? 0;
  if (rank === 0 || !Number.isInteger(raw) || raw < -rank || raw >= rank) return undefined;
  const axis = raw < 0 ? raw + rank : raw;
  if (!x.shape.every((d) => Number.isSafeInteger(d) && d >= 0)) return undefined;
  const view = planSplit(x.dtype, x.shape, axis, [x.shape[axis]!]);
  return { input: x, axis, outer: view.outer, axisLen: view.axisLen, inner: view.inner, outputName };
}

schedule();
setupPipeline(gpu.engine ? undefined : gpu.why).catch((e: unknown) => console.error(e));
