// The picture: the input as a grid in the planner's [outer, axis, inner] view (rows = outer,
// column groups = positions along the axis, columns inside a group = the inner run), each output
// chunk in its own colour, and the outputs below as grids of their own. Small tensors show their
// values in the cells; every cell tells its index and value on hover. Large grids are drawn as one
// band per chunk, so any size costs a bounded number of SVG elements.

import type { HostTensor } from '../src/index.js';
import { el } from './controls.js';
import { formatValue, unravel } from './values.js';

const SVG = 'http://www.w3.org/2000/svg';
/** Beyond this many columns a cell stands for a whole inner run. */
const MAX_COLUMNS = 160;
/** Beyond this many cells, a grid is drawn as bands (one per chunk and row, or per chunk). */
const MAX_CELLS = 2400;
const MAX_CELL_WIDTH = 46;
/** Up to this many columns, cells stay at least 3 px wide (the grid scrolls sideways) so every chunk shows. */
const MAX_SCROLL_COLUMNS = 8192;
const MAX_ROW_HEIGHT = 26;
/** Output cells match the input's width, but stay wide enough for a few digits. */
const MIN_CARD_CELL = 32;
/** Output grids drawn; the rest are summarised by shape. */
export const MAX_CARDS = 24;
const PALETTE = ['#8ab4f8', '#f6ae6f', '#81c995', '#f28b82', '#c58af9', '#fdd663', '#78d9ec', '#ff8bcb', '#b8c26a', '#d7aefb'];

/** What the picture shows: the input in its view and, after a run, the outputs and their chunks. */
export interface Picture {
  readonly input: HostTensor;
  /** Normalised axis, and the [outer, axis, inner] view of the input. */
  readonly axis: number;
  readonly outer: number;
  readonly axisLen: number;
  readonly inner: number;
  /** Chunk lengths and starts along the axis; absent when the engine refused the node. */
  readonly sizes?: readonly number[];
  readonly starts?: readonly number[];
  readonly outputs?: readonly HostTensor[];
  /** 'out' or 'seq' (SplitToSequence returns one sequence). */
  readonly outputName: string;
}

export function chunkColor(i: number, n: number): string {
  if (n <= PALETTE.length) return PALETTE[i % PALETTE.length]!;
  // Many outputs: step the hue by the golden angle, so neighbouring chunks never look alike.
  return `hsl(${Math.round((i * 137.508) % 360)} 70% ${i % 2 ? 70 : 80}%)`;
}

interface Grid {
  readonly rows: number;
  readonly axisLen: number;
  readonly inner: number;
  /** Chunk index per axis position (-1: no chunk, drawn grey). */
  readonly chunkAt: (a: number) => number;
  readonly color: (chunk: number) => string;
  readonly value?: (flat: number) => string;
  /** Hover text of the element at flat index `flat` (first of its inner run when runs are collapsed). */
  readonly tip: (flat: number, collapsed: boolean) => string;
  readonly maxWidth: number;
  readonly maxHeight: number;
  readonly cellWidth?: number;
}

/** Draws a grid; returns the svg and the cell width it used. */
function drawGrid(g: Grid, tip: Tooltip): { svg: SVGSVGElement; cellWidth: number } {
  const innerCols = g.axisLen * g.inner <= MAX_COLUMNS ? g.inner : 1;
  const cols = g.axisLen * innerCols;
  const fit = Math.min(g.cellWidth ?? MAX_CELL_WIDTH, MAX_CELL_WIDTH, g.maxWidth / Math.max(cols, 1));
  const cw = cols <= MAX_SCROLL_COLUMNS ? Math.max(fit, 3) : fit;
  const rh = Math.min(MAX_ROW_HEIGHT, g.maxHeight / Math.max(g.rows, 1));
  const width = cols * cw;
  const height = g.rows * rh;
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('width', String(Math.max(width, 1)));
  svg.setAttribute('height', String(Math.max(height, 1)));
  svg.setAttribute('viewBox', `0 0 ${Math.max(width, 1)} ${Math.max(height, 1)}`);
  const add = (tag: string, attrs: Record<string, string | number>) => {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    svg.append(e);
  };
  // White edges separate cells, but would wash out cells only a few pixels wide.
  const rect = (x: number, y: number, width: number, height: number, fill: string) =>
    add('rect', { x, y, width, height, fill, class: width >= 6 && height >= 6 ? 'cell edged' : 'cell' });
  const line = (x1: number, y1: number, x2: number, y2: number, cls: string) => add('line', { x1, y1, x2, y2, class: cls });
  const colorAt = (a: number) => { const c = g.chunkAt(a); return c < 0 ? '#d5d9e0' : g.color(c); };
  const groupWidth = innerCols * cw;

  if (g.rows * cols <= MAX_CELLS) {
    const showValues = g.value !== undefined && innerCols === g.inner && cw >= 14 && rh >= 14;
    for (let o = 0; o < g.rows; o++) {
      for (let c = 0; c < cols; c++) {
        const a = Math.floor(c / innerCols);
        rect(c * cw, o * rh, cw, rh, colorAt(a));
        if (!showValues) continue;
        const text = g.value!((o * g.axisLen + a) * g.inner + (c % innerCols));
        if (text.length * 6.4 > cw - 3) continue;
        const t = document.createElementNS(SVG, 'text');
        t.setAttribute('x', String(c * cw + cw / 2));
        t.setAttribute('y', String(o * rh + rh / 2));
        t.setAttribute('class', 'v');
        t.textContent = text;
        svg.append(t);
      }
    }
  } else {
    // Bands: one rect per run of equal colour along the axis, per row when rows are tall enough to see.
    const bandRows = rh >= 3 ? g.rows : 1;
    const bh = bandRows === 1 ? height : rh;
    for (let o = 0; o < bandRows; o++) {
      let a = 0;
      while (a < g.axisLen) {
        let b = a + 1;
        while (b < g.axisLen && g.chunkAt(b) === g.chunkAt(a)) b++;
        rect(a * groupWidth, o * bh, (b - a) * groupWidth, bh, colorAt(a));
        a = b;
      }
    }
  }
  // Axis positions grouped when each holds several inner elements; chunk boundaries stand out.
  if (innerCols > 1 && groupWidth >= 6) {
    for (let a = 1; a < g.axisLen; a++) line(a * groupWidth, 0, a * groupWidth, height, 'group');
  }
  if (groupWidth >= 8) {
    for (let a = 1; a < g.axisLen; a++) {
      if (g.chunkAt(a) !== g.chunkAt(a - 1)) line(a * groupWidth, 0, a * groupWidth, height, 'boundary');
    }
  }

  svg.addEventListener('pointermove', (e) => {
    const box = svg.getBoundingClientRect();
    const c = clamp(Math.floor(((e.clientX - box.left) / box.width) * cols), cols);
    const o = clamp(Math.floor(((e.clientY - box.top) / box.height) * g.rows), g.rows);
    const a = Math.floor(c / innerCols);
    const flat = (o * g.axisLen + a) * g.inner + (innerCols === g.inner ? c % innerCols : 0);
    tip.show(e, g.tip(flat, innerCols !== g.inner && g.inner > 1));
  });
  svg.addEventListener('pointerleave', () => tip.hide());
  return { svg, cellWidth: cw };
}

function clamp(i: number, n: number): number {
  return Math.max(0, Math.min(n - 1, i));
}

/** One floating tooltip for every grid on the page. */
export class Tooltip {
  readonly node = el('div', { id: 'tip', role: 'tooltip' });
  constructor() {
    this.node.hidden = true;
    document.body.append(this.node);
  }
  show(e: PointerEvent, text: string): void {
    this.node.textContent = text;
    this.node.hidden = false;
    this.node.style.left = `${e.pageX + 14}px`;
    this.node.style.top = `${e.pageY + 14}px`;
  }
  hide(): void {
    this.node.hidden = true;
  }
}

const fmtShape = (s: readonly number[]) => `[${s.join(', ')}]`;

/** Draws the input (coloured by chunk when there are outputs) and the output cards. */
export function drawPicture(inputRoot: HTMLElement, outputRoot: HTMLElement, p: Picture, tip: Tooltip): void {
  const { input, sizes, starts } = p;
  const n = sizes?.length ?? 0;
  const chunkOfAxis = new Int32Array(p.axisLen).fill(-1);
  sizes?.forEach((s, i) => chunkOfAxis.fill(i, starts![i]!, starts![i]! + s));
  const numel = p.outer * p.axisLen * p.inner;
  const small = numel <= MAX_CELLS;

  const caption = el('p', { className: 'caption' },
    'input ', el('code', {}, `${input.dtype} ${fmtShape(input.shape)}`), ' seen as ',
    el('code', {}, `[outer ${p.outer}, axis ${p.axisLen}, inner ${p.inner}]`),
    `: ${p.outer === 1 ? 'one row' : `${p.outer} rows`}, ${p.axisLen} positions along axis ${p.axis}` +
    (p.inner > 1 ? `, each holding ${p.inner} elements` : '') +
    (p.axisLen * p.inner > MAX_COLUMNS && p.inner > 1 ? ' (one cell per position)' : '') +
    (numel === 0 ? '.' : `. ${sizes ? 'Each colour is one output; hover' : 'Hover'} a cell for its index and value` +
      (p.axisLen * Math.min(p.inner, MAX_COLUMNS) > 860 / 3 ? ' (the grid scrolls sideways).' : '.')));
  inputRoot.replaceChildren(caption);
  if (numel === 0) {
    inputRoot.append(el('p', { className: 'empty' }, `no elements: shape ${fmtShape(input.shape)} holds nothing, so every output is empty too`));
  } else {
    const { svg, cellWidth } = drawGrid({
      rows: p.outer, axisLen: p.axisLen, inner: p.inner,
      chunkAt: (a) => chunkOfAxis[a]!,
      color: (c) => chunkColor(c, n),
      ...(small ? { value: (f: number) => formatValue(input, f) } : {}),
      tip: (flat, collapsed) => {
        const a = Math.floor(flat / p.inner) % p.axisLen;
        const k = chunkOfAxis[a]!;
        const where = collapsed ? `input[${unravel(flat, input.shape).join(', ')}…] (a run of ${p.inner}), first value` : `input[${unravel(flat, input.shape).join(', ')}]`;
        return `${where} = ${formatValue(input, flat)}` + (k >= 0 ? ` → ${p.outputName} ${k}` : '');
      },
      maxWidth: 860, maxHeight: 240,
    }, tip);
    inputRoot.append(el('div', { className: 'grid' }, svg));
    drawOutputs(outputRoot, p, tip, cellWidth);
    return;
  }
  drawOutputs(outputRoot, p, tip, MAX_CELL_WIDTH);
}

function drawOutputs(root: HTMLElement, p: Picture, tip: Tooltip, cellWidth: number): void {
  const { sizes, outputs } = p;
  if (!sizes || !outputs) return;
  const n = outputs.length;
  const cards = outputs.slice(0, MAX_CARDS).map((t, i) => {
    const size = sizes[i]!;
    const head = el('header', {},
      el('span', { className: 'swatch' }), `${p.outputName} ${i} `, el('code', { className: 'shape' }, fmtShape(t.shape)));
    (head.firstChild as HTMLElement).style.background = chunkColor(i, n);
    const card = el('div', { className: 'card' }, head);
    card.dataset.index = String(i);
    card.dataset.shape = fmtShape(t.shape);
    const count = p.outer * size * p.inner;
    if (count === 0) {
      card.append(el('div', { className: 'empty' }, 'empty'));
    } else {
      const { svg } = drawGrid({
        rows: p.outer, axisLen: size, inner: p.inner,
        chunkAt: () => i, color: () => chunkColor(i, n),
        ...(count <= MAX_CELLS ? { value: (f: number) => formatValue(t, f) } : {}),
        tip: (flat, collapsed) => `${p.outputName} ${i}[${unravel(flat, t.shape).join(', ')}${collapsed ? '…' : ''}] = ${formatValue(t, flat)}`,
        maxWidth: 420, maxHeight: 160, cellWidth: Math.max(cellWidth, MIN_CARD_CELL),
      }, tip);
      card.append(el('div', { className: 'grid' }, svg));
    }
    return card;
  });
  root.replaceChildren(...cards);
  if (n > MAX_CARDS) {
    const byShape = new Map<string, number>();
    for (const t of outputs.slice(MAX_CARDS)) byShape.set(fmtShape(t.shape), (byShape.get(fmtShape(t.shape)) ?? 0) + 1);
    const list = [...byShape].map(([s, k]) => `${k} × ${s}`).join(', ');
    root.append(el('p', { className: 'more' }, `… and ${n - MAX_CARDS} more: ${list}`));
  }
}
