// The result panel: the three timings side by side (a bar each, so the fastest path is plain to
// see), what the engine did on the GPU in words (views, copies or one gather dispatch), and whether
// every path gave the same bits.

import type { EngineStats } from '../src/index.js';
import { el } from './dom.js';
import type { Measured, PathResult, Timing } from './measure.js';

function fmtTime(ms: number): string {
  return ms < 0.1 ? `${(ms * 1000).toFixed(0)} µs` : ms < 10 ? `${ms.toFixed(2)} ms` : `${ms.toFixed(1)} ms`;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** What a split did, from engine.stats, in words (`separate`: its outputs each in a buffer of its own). */
export function workWords(s: EngineStats, dtype: string, separate = false): string {
  switch (s.strategy) {
    case 'cpu':
      return cpuWords(dtype);
    case 'alias':
      return (
        'no GPU work: every chunk starts at an aligned offset, so the outputs are aliased views of the input ' +
        'buffer'
      );
    case 'copy':
      return `${plural(s.copies, 'buffer copy', 'buffer copies')} (copyBufferToBuffer), no shader`;
    case 'gather': {
      const variant =
        s.unitBits === 1 ? 'bit-level variant, for chunk boundaries inside bytes' : `${s.unitBits}-bit words`;
      if (separate) {
        const n = plural(s.dispatches, 'dispatch', 'dispatches');
        return `${n} of the gather shader (${variant}), writing each output into its own buffer, six a dispatch`;
      }
      const dispatches =
        s.dispatches === 1
          ? 'one dispatch'
          : `${s.dispatches} dispatches (one per tile: the tensor is larger than one storage binding)`;
      return `${dispatches} of the gather shader (${variant}) writes every output`;
    }
  }
}

const cpuWords = (dtype: string) =>
  `split on the CPU: ${dtype} host tensors take the CPU path even when WebGPU is there`;

const PATHS = [
  {
    key: 'resident',
    id: 't-resident',
    name: 'GPU-resident',
    how: 'data already on the GPU (uploaded once), outputs stay there',
  },
  { key: 'host', id: 't-host', name: 'host → GPU → host', how: 'upload, split, read every output back' },
  { key: 'cpu', id: 't-cpu', name: 'CPU path', how: 'plain JavaScript, no GPU' },
] as const;

/** The stats list: timings, the GPU work in words, the check. */
export function statsRows(m: Measured, dtype: string): HTMLElement[] {
  const times = { resident: timeOf(m.resident), host: timeOf(m.host), cpu: m.cpu };
  const slowest = Math.max(...Object.values(times).map((t) => t?.ms ?? 0));
  const rows = PATHS.map((p) => {
    const t = times[p.key];
    const result = p.key === 'cpu' ? undefined : m[p.key];
    return statRow(
      p.name,
      t ? timeCell(t, p.how, slowest) : result && 'skipped' in result ? result.skipped : '—',
      p.id,
    );
  });
  rows.push(statRow('GPU work', gpuWork(m, dtype), 'work'));
  if (m.same !== undefined) {
    const sample =
      m.readBack && m.readBack.checked < m.readBack.of
        ? ` (GPU-resident: ${m.readBack.checked} of ${m.readBack.of} outputs read back)`
        : '';
    rows.push(
      statRow(
        'check',
        m.same ? `every path gave the CPU path\u2019s outputs, bit for bit ✓${sample}` : 'the paths DIFFER ✗',
        'agree',
      ),
    );
  }
  return rows;
}

function timeOf(p: PathResult): Timing | undefined {
  return 'time' in p ? p.time : undefined;
}

/** A timing with its bar, drawn to scale against the slowest of its list; `unit` is what one run is. */
export function timeCell(t: Timing, how: string, slowest: number, unit = 'split'): HTMLElement {
  const bar = el('span', { className: 'bar' });
  bar.style.width = `${Math.max(1, (100 * t.ms) / slowest).toFixed(1)}%`;
  return el(
    'span',
    { className: 'timing' },
    el('span', { className: 'track' }, bar),
    el('span', {}, el('b', { className: 'ms' }, fmtTime(t.ms)), ` per ${unit} (median of ${t.runs} runs; ${how})`),
  );
}

/** One line when both GPU paths did the same, else one per path. */
function gpuWork(m: Measured, dtype: string): string {
  const resident = 'stats' in m.resident ? workWords(m.resident.stats, dtype) : undefined;
  const host = 'stats' in m.host ? workWords(m.host.stats, dtype) : undefined;
  if (!resident && !host) return m.same === undefined ? 'none: no WebGPU in this browser' : cpuWords(dtype);
  if (resident === host) return `${resident} (both GPU paths)`;
  return [resident && `GPU-resident: ${resident}.`, host && `Host round trip: ${host}.`].filter(Boolean).join(' ');
}

export function statRow(name: string, value: string | HTMLElement, id?: string): HTMLElement {
  return el('div', {}, el('dt', {}, name), el('dd', id ? { id } : {}, value));
}
