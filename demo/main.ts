// Demo page entry: two engines (WebGPU when this browser has an adapter, and the CPU path), the
// node from the controls run on both and timed, then the picture drawn. Every failure lands on
// the page: a SplitError next to the control that caused it, anything else in the result line.

import './style.css';
import {
  type EngineStats, type HostTensor, type SplitEngine, type SplitNode,
  SplitError, createSplitEngine, planSplit, resolveNode,
} from '../src/index.js';
import { Controls, FieldError, type NodeRequest, el } from './controls.js';
import { type Picture, Tooltip, drawPicture } from './draw.js';
import { sameTensor } from './values.js';

const $ = (id: string) => document.getElementById(id)!;

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

if (gpu.engine) {
  const info = gpu.engine.adapterInfo;
  $('adapter').textContent = `WebGPU · ${[info?.vendor, info?.architecture].filter(Boolean).join(' ') || 'unnamed adapter'}`;
} else {
  $('adapter').textContent = 'CPU path';
  $('adapter').classList.add('cpu');
  const notice = $('notice');
  notice.textContent = `No WebGPU in this browser (${gpu.why}): every split runs on Cleave's CPU path. ` +
    'Open the page in Chrome or Edge 113+ (or Chromium with --enable-unsafe-webgpu) to see the GPU path.';
  notice.hidden = false;
}

const tip = new Tooltip();
let timer: ReturnType<typeof setTimeout> | undefined;
let busy = false;
let again = false;
let runs = 0;

// body[data-state] is 'pending' from the moment an edit schedules a run until the last run it
// caused is drawn ('done'), so a watcher (the e2e test) never reads a stale picture.
let pending = false;
const controls = new Controls($('controls') as HTMLFormElement, (now) => {
  clearTimeout(timer);
  pending = true;
  document.body.dataset.state = 'pending';
  timer = setTimeout(() => { pending = false; schedule(); }, now ? 0 : 300);
});

/** Runs one update at a time; edits made meanwhile are picked up by one more update. */
function schedule(): void {
  if (busy) { again = true; return; }
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
    refused(`The page could not read '${controls.labelOf(at)}'.`, undefined);
    return;
  }
  let outs: HostTensor[];
  let stats: EngineStats;
  try {
    outs = await main.run(req.node) as HostTensor[];
    stats = main.stats;
  } catch (e) {
    if (!(e instanceof SplitError)) throw e;
    const at = controls.showError(controls.fieldFor(e), e.message, e.code);
    refused(`The engine refused this node (${e.code}); the message is next to ${controls.labelOf(at)}.`, req);
    return;
  }
  // A GPU engine still splits strings (and complex host tensors) on the CPU: no GPU time to show then.
  const gpuRan = main !== cpu && stats.strategy !== 'cpu';
  const timeMain = await timePerRun(main, req.node);
  let same: boolean | undefined;
  let timeCpu = timeMain;
  if (main !== cpu) {
    const cpuOuts = await cpu.run(req.node) as HostTensor[];
    same = cpuOuts.length === outs.length && cpuOuts.every((t, i) => sameTensor(t, outs[i]!));
    timeCpu = await timePerRun(cpu, req.node);
  }
  showStats(req, outs, stats, gpuRan ? timeMain : undefined, timeCpu, same);
  const picture = pictureOf(req, outs);
  if (!picture) throw new Error(`the engine ran a node whose axis ${req.axis} the page cannot place`);
  drawPicture($('input'), $('outputs'), picture, tip);
  const what = `${outs.length} ${req.version.op === 'SplitToSequence' ? 'tensor' : 'output'}${outs.length === 1 ? '' : 's'}`;
  setResult(`${req.version.id} gave ${what}: lengths ${listOf(picture.sizes!)} along axis ${picture.axis}.`, 'ok');
}

/** A list, shortened in the middle when long. */
function listOf(xs: readonly number[]): string {
  return xs.length <= 12 ? `[${xs.join(', ')}]` : `[${xs.slice(0, 8).join(', ')}, …, ${xs.slice(-2).join(', ')}]`;
}

/** A refused node: no outputs, but the input is still drawn when its shape and axis allow. */
function refused(message: string, req: NodeRequest | undefined): void {
  setResult(message, 'refused');
  $('stats').replaceChildren(statRow('result', 'no outputs'));
  const picture = req && pictureOf(req, undefined);
  if (picture) {
    drawPicture($('input'), $('outputs'), picture, tip);
  } else {
    $('input').replaceChildren(el('p', { className: 'empty' }, 'The input is drawn once its shape and axis are valid.'));
  }
  $('outputs').replaceChildren();
}

function unexpected(e: unknown): void {
  console.error(e);
  setResult(`Unexpected error (a bug in Cleave or this page): ${e instanceof Error ? e.message : String(e)}`, 'bug');
}

function setResult(text: string, kind: 'ok' | 'refused' | 'bug'): void {
  const r = $('result');
  r.textContent = text;
  r.className = kind;
  document.body.dataset.result = kind;
}

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

/**
 * Time of one run: the median over batches of k runs, k chosen so a batch lasts at least 2 ms
 * (without cross-origin isolation the browser's clock only ticks every 100 µs), as many batches
 * as fit in about 150 ms (5 at least, so one slow submit does not decide the number).
 */
async function timePerRun(engine: SplitEngine, node: SplitNode): Promise<{ ms: number; runs: number }> {
  const batch = async (k: number) => {
    const t0 = performance.now();
    for (let i = 0; i < k; i++) await engine.run(node);
    return (performance.now() - t0) / k;
  };
  let k = 1;
  while (k < 1024 && (await batch(k)) * k < 2) k *= 4;
  const times: number[] = [];
  const begin = performance.now();
  while (times.length < 5 || (times.length < 31 && performance.now() - begin < 150)) times.push(await batch(k));
  times.sort((a, b) => a - b);
  return { ms: times[times.length >> 1]!, runs: k * times.length };
}

function fmtTime(ms: number): string {
  return ms < 0.1 ? `${(ms * 1000).toFixed(0)} µs` : ms < 10 ? `${ms.toFixed(2)} ms` : `${ms.toFixed(1)} ms`;
}

function gpuWork(s: EngineStats, dtype: string): string {
  switch (s.strategy) {
    case 'cpu': return `none: ${dtype} tensors are split on the CPU path even when WebGPU is there`;
    case 'alias': return '0 dispatches: the outputs are views of the input buffer';
    case 'copy': return `0 dispatches, ${s.copies} copyBufferToBuffer command${s.copies === 1 ? '' : 's'}`;
    case 'gather': return `${s.dispatches} dispatch${s.dispatches === 1 ? '' : 'es'} of the gather shader (${s.unitBits === 1 ? 'bit-level variant' : `${s.unitBits / 8}-byte words`})` +
      (s.copies ? `, ${s.copies} copy commands` : '');
  }
}

function showStats(req: NodeRequest, outs: HostTensor[], stats: EngineStats, gpuTime: { ms: number; runs: number } | undefined,
  cpuTime: { ms: number; runs: number }, same: boolean | undefined): void {
  const rows = [
    statRow('GPU path', gpuTime
      ? `${fmtTime(gpuTime.ms)} per run (median over ${gpuTime.runs} runs, host → GPU → host)`
      : same === undefined ? 'not available: no WebGPU' : `not used: ${req.input.dtype} tensors stay on the CPU path`, 't-gpu'),
    statRow('CPU path', `${fmtTime(cpuTime.ms)} per run (median over ${cpuTime.runs} runs)`, 't-cpu'),
    statRow('GPU work', same === undefined ? '—' : gpuWork(stats, req.input.dtype), 'dispatches'),
  ];
  if (same !== undefined) {
    rows.push(statRow('check', same ? `GPU and CPU outputs identical (${outs.length} tensors, bit for bit) ✓` : 'GPU and CPU outputs DIFFER ✗', 'agree'));
  }
  $('stats').replaceChildren(...rows);
}

function statRow(name: string, value: string, id?: string): HTMLElement {
  const dd = el('dd', id ? { id } : {}, value);
  return el('div', {}, el('dt', {}, name), dd);
}

schedule();
