// The picture: the input as a grid in the planner's [outer, axis, inner] view (rows = outer,
// column groups = positions along the axis, columns inside a group = the inner run), each output
// chunk in its own colour, and the outputs below as grids of their own. Small tensors show their
// values in the cells; every cell tells its index and value on hover or tap (and, for packed
// sub-byte dtypes, the byte and bits that hold it). Large grids are drawn as one band per chunk, so
// any size costs a bounded number of SVG elements. Grids fit the width of their box, or scroll in it.

import { type HostTensor, elementBits, isMsbFirst, isPacked } from '../src/index.js';
import { el } from './dom.js';
import type { Tooltip } from './tooltip.js';
import { bitsOf, formatValue, unravel } from './format.js';

const SVG = 'http://www.w3.org/2000/svg';
/** Beyond this many columns a cell stands for a whole inner run. */
const MAX_COLUMNS = 160;
/** Beyond this many cells, a grid is drawn as bands (one per chunk and row, or per chunk). */
const MAX_CELLS = 2400;
const MAX_CELL_WIDTH = 46;
/**
 * Up to this many columns, cells widen to 3 px when the narrowest chunk would be thinner than that
 * (the grid then scrolls sideways), so every chunk shows; grids whose chunks are wide fit the box.
 */
const MAX_SCROLL_COLUMNS = 8192;
const MAX_ROW_HEIGHT = 26;
/** Output cells match the input's width, but stay wide enough for a few digits. */
const MIN_CARD_CELL = 32;
/** Output grids drawn; the rest are summarised by shape. */
export const MAX_CARDS = 24;
const PALETTE = [
  '#8ab4f8',
  '#f6ae6f',
  '#81c995',
  '#f28b82',
  '#c58af9',
  '#fdd663',
  '#78d9ec',
  '#ff8bcb',
  '#b8c26a',
  '#d7aefb',
];

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
  /** Tooltip text (hover or tap) of the element at `flat` (the first of its inner run when runs are collapsed). */
  readonly tip: (flat: number, collapsed: boolean) => string;
  readonly maxWidth: number;
  readonly maxHeight: number;
  readonly cellWidth?: number;
  /** Axis positions in the shortest non-empty chunk. */
  readonly minChunk: number;
}

/** Where a grid's cells go: columns (inner runs collapse to one cell when too many), sizes in px. */
interface Layout {
  readonly innerCols: number;
  readonly cols: number;
  readonly cw: number;
  readonly rh: number;
  readonly width: number;
  readonly height: number;
  readonly groupWidth: number;
}

function layoutOf(g: Grid): Layout {
  const innerCols = g.axisLen * g.inner <= MAX_COLUMNS ? g.inner : 1;
  const cols = g.axisLen * innerCols;
  const fit = Math.min(g.cellWidth ?? MAX_CELL_WIDTH, MAX_CELL_WIDTH, g.maxWidth / Math.max(cols, 1));
  const narrow = g.minChunk * innerCols * fit < 3;
  const cw = cols <= MAX_SCROLL_COLUMNS && narrow ? Math.max(fit, 3) : fit;
  const rh = Math.min(MAX_ROW_HEIGHT, g.maxHeight / Math.max(g.rows, 1));
  return { innerCols, cols, cw, rh, width: cols * cw, height: g.rows * rh, groupWidth: innerCols * cw };
}

/** Adds SVG elements to one svg. */
type Add = (tag: string, attrs: Record<string, string | number>, text?: string) => void;

/** Draws a grid; returns the svg and the cell width it used. */
function drawGrid(g: Grid, tip: Tooltip): { svg: SVGSVGElement; cellWidth: number } {
  const L = layoutOf(g);
  const svg = document.createElementNS(SVG, 'svg');
  const w = Math.max(L.width, 1);
  const h = Math.max(L.height, 1);
  svg.setAttribute('width', String(w));
  svg.setAttribute('height', String(h));
  svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
  const add: Add = (tag, attrs, text) => {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = text;
    svg.append(e);
  };
  // Cells thinner than 2 px would blur into stripes: draw those grids as bands too.
  if (g.rows * L.cols <= MAX_CELLS && L.cw >= 2) drawCells(g, L, add);
  else drawBands(g, L, add);
  drawLines(g, L, add);
  tip.attach(svg, (e) => {
    const box = svg.getBoundingClientRect();
    const c = clamp(Math.floor(((e.clientX - box.left) / box.width) * L.cols), L.cols);
    const o = clamp(Math.floor(((e.clientY - box.top) / box.height) * g.rows), g.rows);
    const a = Math.floor(c / L.innerCols);
    const flat = (o * g.axisLen + a) * g.inner + (L.innerCols === g.inner ? c % L.innerCols : 0);
    return g.tip(flat, L.innerCols !== g.inner && g.inner > 1);
  });
  return { svg, cellWidth: L.cw };
}

const colorAt = (g: Grid, a: number) => {
  const c = g.chunkAt(a);
  return c < 0 ? '#d5d9e0' : g.color(c);
};

// White edges separate cells, but would wash out cells only a few pixels wide.
const cellClass = (width: number, height: number) => (width >= 6 && height >= 6 ? 'cell edged' : 'cell');

/** One rect per element, with its value when the cell is wide enough to hold the text. */
function drawCells(g: Grid, L: Layout, add: Add): void {
  const showValues = g.value !== undefined && L.innerCols === g.inner && L.cw >= 14 && L.rh >= 14;
  for (let o = 0; o < g.rows; o++) {
    for (let c = 0; c < L.cols; c++) {
      const a = Math.floor(c / L.innerCols);
      add('rect', {
        x: c * L.cw,
        y: o * L.rh,
        width: L.cw,
        height: L.rh,
        fill: colorAt(g, a),
        class: cellClass(L.cw, L.rh),
      });
      if (!showValues) continue;
      const text = g.value!((o * g.axisLen + a) * g.inner + (c % L.innerCols));
      if (text.length * 6.4 <= L.cw - 3)
        add('text', { x: c * L.cw + L.cw / 2, y: o * L.rh + L.rh / 2, class: 'v' }, text);
    }
  }
}

/** One rect per run of equal colour along the axis, per row when rows are tall enough to see. */
function drawBands(g: Grid, L: Layout, add: Add): void {
  const bandRows = L.rh >= 3 ? g.rows : 1;
  const bh = bandRows === 1 ? L.height : L.rh;
  for (let o = 0; o < bandRows; o++) {
    let a = 0;
    while (a < g.axisLen) {
      let b = a + 1;
      while (b < g.axisLen && g.chunkAt(b) === g.chunkAt(a)) b++;
      const width = (b - a) * L.groupWidth;
      add('rect', {
        x: a * L.groupWidth,
        y: o * bh,
        width,
        height: bh,
        fill: colorAt(g, a),
        class: cellClass(width, bh),
      });
      a = b;
    }
  }
}

/** Axis positions grouped when each holds several inner elements; chunk boundaries stand out. */
function drawLines(g: Grid, L: Layout, add: Add): void {
  const line = (x: number, cls: string) => add('line', { x1: x, y1: 0, x2: x, y2: L.height, class: cls });
  if (L.innerCols > 1 && L.groupWidth >= 6) {
    for (let a = 1; a < g.axisLen; a++) line(a * L.groupWidth, 'group');
  }
  if (L.groupWidth >= 8) {
    for (let a = 1; a < g.axisLen; a++) if (g.chunkAt(a) !== g.chunkAt(a - 1)) line(a * L.groupWidth, 'boundary');
  }
}

function clamp(i: number, n: number): number {
  return Math.max(0, Math.min(n - 1, i));
}

const fmtShape = (s: readonly number[]) => `[${s.join(', ')}]`;

/** A cell's tooltip text: its index and value, and for packed dtypes the byte and bits that hold it. */
function cellText(name: string, t: HostTensor, flat: number, collapsed: boolean): string {
  const bits = bitsOf(t.dtype, flat);
  const at = `${unravel(flat, t.shape).join(', ')}${collapsed ? '…' : ''}`;
  return `${name}[${at}] = ${formatValue(t, flat)}${bits ? ` (${bits})` : ''}`;
}

/** Draws the input (coloured by chunk when there are outputs) and the output cards. */
export function drawPicture(inputRoot: HTMLElement, outputRoot: HTMLElement, p: Picture, tip: Tooltip): void {
  const { input, sizes, starts } = p;
  const n = sizes?.length ?? 0;
  const chunkOfAxis = new Int32Array(p.axisLen).fill(-1);
  sizes?.forEach((s, i) => chunkOfAxis.fill(i, starts![i]!, starts![i]! + s));
  const numel = p.outer * p.axisLen * p.inner;
  const maxWidth = Math.max(inputRoot.clientWidth, 120);
  if (numel === 0) {
    inputRoot.replaceChildren(
      caption(p, 0, maxWidth),
      el(
        'p',
        { className: 'empty' },
        `no elements: shape ${fmtShape(input.shape)} holds nothing, so every output is empty too`,
      ),
    );
    drawOutputs(outputRoot, p, tip, MAX_CELL_WIDTH);
    return;
  }
  const { svg, cellWidth } = drawGrid(
    {
      rows: p.outer,
      axisLen: p.axisLen,
      inner: p.inner,
      chunkAt: (a) => chunkOfAxis[a]!,
      color: (c) => chunkColor(c, n),
      ...(numel <= MAX_CELLS ? { value: (f: number) => formatValue(input, f) } : {}),
      tip: (flat, collapsed) => {
        const k = chunkOfAxis[Math.floor(flat / p.inner) % p.axisLen]!;
        const text = cellText('input', input, flat, collapsed);
        return (collapsed ? `${text}: first of a run of ${p.inner}` : text) + (k >= 0 ? ` → ${p.outputName} ${k}` : '');
      },
      maxWidth,
      maxHeight: 240,
      minChunk: Math.min(p.axisLen, ...(sizes ?? []).filter((x) => x > 0)),
    },
    tip,
  );
  inputRoot.replaceChildren(caption(p, svg.width.baseVal.value, maxWidth), el('div', { className: 'grid' }, svg));
  drawOutputs(outputRoot, p, tip, cellWidth);
}

/** What the input grid shows, in words (and how packed values sit in bytes). */
function caption(p: Picture, svgWidth: number, width: number): HTMLElement {
  const { input, sizes } = p;
  const numel = p.outer * p.axisLen * p.inner;
  const scrolls = svgWidth > width;
  const packed = isPacked(input.dtype)
    ? ` ${input.dtype} values are ${elementBits(input.dtype)} bits each, packed into bytes ` +
      `${isMsbFirst(input.dtype) ? 'MSB-first' : 'LSB-first'}: ` +
      'chunk boundaries can fall inside a byte, and each output starts at bit 0 of its own first byte.'
    : '';
  return el(
    'p',
    { className: 'caption' },
    'input ',
    el('code', {}, `${input.dtype} ${fmtShape(input.shape)}`),
    ' seen as ',
    el('code', {}, `[outer ${p.outer}, axis ${p.axisLen}, inner ${p.inner}]`),
    `: ${p.outer === 1 ? 'one row' : `${p.outer} rows`}, ${p.axisLen} positions along axis ${p.axis}` +
      (p.inner > 1 ? `, each holding ${p.inner} elements` : '') +
      (p.axisLen * p.inner > MAX_COLUMNS && p.inner > 1 ? ' (one cell per position)' : '') +
      (numel === 0
        ? '.'
        : `. ${sizes ? 'Each colour is one output; hover or tap' : 'Hover or tap'} a cell for its index and value` +
          (scrolls ? ' (the grid scrolls sideways).' : '.')) +
      packed,
  );
}

function drawOutputs(root: HTMLElement, p: Picture, tip: Tooltip, cellWidth: number): void {
  const { sizes, outputs } = p;
  if (!sizes || !outputs) return;
  const n = outputs.length;
  // A card's border and padding take 18 px; its grid scrolls inside it when wider.
  const maxWidth = Math.max(Math.min(420, root.clientWidth - 18), 100);
  const cards = outputs.slice(0, MAX_CARDS).map((t, i) => {
    const head = el(
      'header',
      {},
      el('span', { className: 'swatch' }),
      `${p.outputName} ${i} `,
      el('code', { className: 'shape' }, fmtShape(t.shape)),
    );
    (head.firstChild as HTMLElement).style.background = chunkColor(i, n);
    const card = el('div', { className: 'card' }, head);
    card.dataset.index = String(i);
    card.dataset.shape = fmtShape(t.shape);
    const count = p.outer * sizes[i]! * p.inner;
    if (count === 0) {
      card.append(el('div', { className: 'empty' }, 'empty'));
      return card;
    }
    const { svg } = drawGrid(
      {
        rows: p.outer,
        axisLen: sizes[i]!,
        inner: p.inner,
        chunkAt: () => i,
        color: () => chunkColor(i, n),
        ...(count <= MAX_CELLS ? { value: (f: number) => formatValue(t, f) } : {}),
        tip: (flat, collapsed) => cellText(`${p.outputName} ${i}`, t, flat, collapsed),
        maxWidth,
        maxHeight: 160,
        cellWidth: Math.max(cellWidth, MIN_CARD_CELL),
        minChunk: sizes[i]!,
      },
      tip,
    );
    card.append(el('div', { className: 'grid' }, svg));
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
