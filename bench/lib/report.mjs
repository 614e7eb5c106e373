// Renders one run: the terminal table, the targets, and report.html, a single self-contained file
// (inline CSS and SVG, no script, no network) with a chart per case and the full figures.

export const SYSTEMS = [
  { key: 'cleave-gpu', label: 'Cleave GPU-resident', short: 'Cleave GPU', color: '#1f6feb' },
  { key: 'cleave-host', label: 'Cleave host in/out', short: 'Cleave host', color: '#79b8ff' },
  { key: 'ort-gpu', label: 'ORT Web GPU-resident', short: 'ORT GPU', color: '#d73a49' },
  { key: 'ort-host', label: 'ORT Web host in/out', short: 'ORT host', color: '#f9a3ab' },
  { key: 'copy-limit', label: 'copy limit (copyBufferToBuffer)', short: 'copy limit', color: '#6a737d' },
  { key: 'shader-limit', label: 'shader-copy limit (vec4<u32> kernel)', short: 'shader limit', color: '#a371f7' },
  { key: 'cleave-cpu', label: 'Cleave CPU backend, host in/out (reference)', short: 'Cleave CPU', color: '#2ea043' },
];

/** Milliseconds with about 3 significant digits. */
export function ms(v) {
  if (v === undefined || v === null || !Number.isFinite(v)) return '-';
  if (v >= 100) return v.toFixed(0);
  if (v >= 10) return v.toFixed(1);
  if (v >= 1) return v.toFixed(2);
  if (v >= 0.1) return v.toFixed(3);
  return v.toPrecision(2);
}

function cell(s) {
  if (!s) return '-';
  if (s.skip) return 'n/a';
  if (!s.ok) return 'ERR';
  const w = ms(s.wall?.median);
  const g = s.gpu?.median !== undefined ? ` (${ms(s.gpu.median)})` : '';
  return `${w}${g}${s.fallback ? ' cpu' : ''}`;
}

function strategyOf(r) {
  const s = r.systems?.['cleave-gpu']?.stats;
  if (!s) return '-';
  return `${s.strategy}${s.strategy === 'gather' ? ` ${s.unitBytes}B` : ''}`;
}

function limitRatio(r) {
  const c = r.systems?.['cleave-gpu'];
  const key = r.case.contiguous ? 'copy-limit' : 'shader-limit';
  const l = r.systems?.[key];
  if (r.case.cold || !c?.ok || !l?.ok) return '-';
  return `${(c.wall.median / l.wall.median).toFixed(2)}x ${r.case.contiguous ? 'copy' : 'shader'}`;
}

function ortRatio(r) {
  const c = r.systems?.['cleave-gpu'];
  const o = r.systems?.['ort-gpu'];
  if (!c?.ok || !o?.ok) return '-';
  return `${(o.wall.median / c.wall.median).toFixed(1)}x${o.fallback ? ' cpu' : ''}`;
}

function shortShape(c) {
  const how = c.op === 'SplitToSequence' ? 'seq' : c.sizes.length > 4 ? `${c.sizes.length}` : `[${c.sizes.join(',')}]`;
  return `${c.dtype} [${c.shape.join(',')}] a${c.axis} -> ${how}`;
}

function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows.map((r, j) => {
    const line = r.map((v, i) => (i < 2 ? String(v).padEnd(widths[i]) : String(v).padStart(widths[i]))).join('  ');
    return j === 0 ? `${line}\n${widths.map((w) => '-'.repeat(w)).join('  ')}` : line;
  }).join('\n');
}

export function renderTable(report) {
  const head = ['case', 'split', 'strategy', 'cmds', ...SYSTEMS.map((s) => s.short), 'Cleave/limit', 'ORT/Cleave'];
  const rows = [head];
  for (const r of report.results) {
    const st = r.systems?.['cleave-gpu']?.stats;
    rows.push([r.case.id, shortShape(r.case), r.case.cold ? `${strategyOf(r)} cold` : strategyOf(r), st ? String(st.commands) : '-',
      ...SYSTEMS.map((s) => cell(r.systems?.[s.key])), limitRatio(r), ortRatio(r)]);
  }
  return `Median ms per split: wall (GPU time). GPU-resident systems: wall = batch of splits + one onSubmittedWorkDone, per split.\n` +
    `"cpu": ORT ran on its CPU EP (its WebGPU EP refused the graph). cmds: GPU commands per Cleave split (dispatches + copies).\n` +
    `cold row: first call on a fresh engine and device (ORT: session create + first run).\n\n${table(rows)}`;
}

export function renderTargets(report) {
  const rows = [['target', 'goal', 'measured', 'met']];
  for (const t of report.targets) rows.push([t.name.length > 90 ? `${t.name.slice(0, 87)}...` : t.name, t.goal, t.value, t.met === null ? 'n/a' : t.met ? 'yes' : 'NO']);
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  const lines = rows.map((r) => r.map((v, i) => String(v).padEnd(widths[i])).join('  '));
  lines.splice(1, 0, widths.map((w) => '-'.repeat(w)).join('  '));
  const pipes = report.final ? `\nPipelines: Cleave compiled ${report.final.cleavePipelines} on the shared device; live Cleave buffers at the end: ${report.final.liveBuffers}.` : '';
  return `Targets (issue 4), measured on ${report.env?.adapter?.vendor}/${report.env?.adapter?.architecture}:\n${lines.join('\n')}${pipes}`;
}

// ---- HTML ---------------------------------------------------------------------------------------

const esc = (s) => String(s ?? '').replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

/** A horizontal bar chart, log scale, one bar per system: median wall, min-max whisker, GPU-time tick. */
function caseChart(r) {
  const bars = SYSTEMS.map((s) => ({ s, v: r.systems?.[s.key] })).filter((b) => b.v);
  const values = bars.flatMap(({ v }) => (v.ok ? [v.wall?.min, v.wall?.max, v.gpu?.min, v.gpu?.median].filter((x) => x > 0) : []));
  if (values.length === 0) return '<p class="muted">no timings</p>';
  const lo = 10 ** Math.floor(Math.log10(Math.min(...values)));
  const hi = 10 ** Math.ceil(Math.log10(Math.max(...values)));
  const W = 760, left = 170, right = 130, rowH = 22, top = 8;
  const H = top + bars.length * rowH + 26;
  const { x, grid } = logAxis(lo, hi, left, W - right, top, H, ' ms');
  const parts = [...grid];
  bars.forEach(({ s, v }, i) => {
    const y = top + i * rowH;
    parts.push(`<text x="${left - 6}" y="${y + 15}" text-anchor="end" class="lb">${esc(s.short)}</text>`);
    if (!v.ok) {
      parts.push(`<text x="${left + 4}" y="${y + 15}" class="err">${esc(v.skip ? 'n/a' : `failed: ${(v.error ?? '').slice(0, 90)}`)}</text>`);
      return;
    }
    const m = v.wall.median;
    parts.push(`<rect x="${left}" y="${y + 4}" width="${Math.max(1, x(m) - left)}" height="${rowH - 8}" fill="${s.color}"${v.fallback ? ' fill-opacity="0.45"' : ''}><title>${esc(s.label)}: median ${ms(m)} ms, min ${ms(v.wall.min)}, max ${ms(v.wall.max)} (n=${v.wall.n})</title></rect>`);
    parts.push(`<line x1="${x(v.wall.min)}" x2="${x(v.wall.max)}" y1="${y + rowH / 2}" y2="${y + rowH / 2}" stroke="#222"/>`,
      `<line x1="${x(v.wall.min)}" x2="${x(v.wall.min)}" y1="${y + 6}" y2="${y + rowH - 6}" stroke="#222"/>`,
      `<line x1="${x(v.wall.max)}" x2="${x(v.wall.max)}" y1="${y + 6}" y2="${y + rowH - 6}" stroke="#222"/>`);
    if (v.gpu?.median > 0) {
      parts.push(`<path d="M${x(v.gpu.median)} ${y + 2} l-4 -0 l4 6 l4 -6 z" fill="#000"><title>GPU time median ${ms(v.gpu.median)} ms</title></path>`);
    }
    parts.push(`<text x="${W - right + 6}" y="${y + 15}" class="val">${ms(m)}${v.gpu?.median !== undefined ? ` (${ms(v.gpu.median)})` : ''}${v.fallback ? ' CPU EP' : ''}</text>`);
  });
  return `<svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(r.case.id)}">${parts.join('')}</svg>`;
}

/** One chart over all cases: how many times faster GPU-resident Cleave is than each other system. */
function overviewChart(report) {
  const rows = report.results.filter((r) => !r.case.cold && r.systems?.['cleave-gpu']?.ok);
  if (!rows.length) return '';
  const others = SYSTEMS.filter((s) => ['ort-gpu', 'copy-limit', 'shader-limit'].includes(s.key));
  const ratios = rows.flatMap((r) => others.map((s) => {
    const o = r.systems[s.key];
    return o?.ok ? o.wall.median / r.systems['cleave-gpu'].wall.median : undefined;
  })).filter((v) => v > 0);
  const lo = Math.min(0.1, 10 ** Math.floor(Math.log10(Math.min(...ratios))));
  const hi = Math.max(10, 10 ** Math.ceil(Math.log10(Math.max(...ratios))));
  const W = 900, left = 230, right = 20, rowH = 14 * others.length + 8, top = 24;
  const H = top + rows.length * rowH + 28;
  const { x, grid } = logAxis(lo, hi, left, W - right, top, H, 'x');
  const p = [...grid];
  for (const [v, c] of [[3, '#d73a49'], [1 / 1.3, '#6a737d']]) {
    p.push(`<line x1="${x(v)}" x2="${x(v)}" y1="${top}" y2="${H - 22}" stroke="${c}" stroke-dasharray="4 3"/>`);
  }
  others.forEach((s, j) => p.push(`<rect x="${left + j * 170}" y="4" width="10" height="10" fill="${s.color}"/><text x="${left + 14 + j * 170}" y="13" class="lb2">${esc(s.short)} / Cleave</text>`));
  rows.forEach((r, i) => {
    const y = top + i * rowH;
    p.push(`<text x="${left - 6}" y="${y + rowH / 2 + 4}" text-anchor="end" class="lb">${esc(r.case.id)}</text>`);
    others.forEach((s, j) => {
      const o = r.systems[s.key];
      if (o && !o.ok) {
        p.push(`<text x="${x(1) + 4}" y="${y + 13 + j * 14}" class="err">${esc(s.short)}: ${o.skip ? 'n/a' : 'failed (see the case)'}</text>`);
        return;
      }
      if (!o?.ok) return;
      const v = o.wall.median / r.systems['cleave-gpu'].wall.median;
      const x0 = x(Math.min(1, v));
      const x1 = x(Math.max(1, v));
      p.push(`<rect x="${x0}" y="${y + 4 + j * 14}" width="${Math.max(1, x1 - x0)}" height="11" fill="${s.color}"${o.fallback ? ' fill-opacity="0.45"' : ''}><title>${esc(r.case.id)}: ${esc(s.short)} ${ms(o.wall.median)} ms / Cleave ${ms(r.systems['cleave-gpu'].wall.median)} ms = ${v.toFixed(2)}x</title></rect>`);
    });
  });
  return `<svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="overview">${p.join('')}</svg>`;
}

function statsCell(v) {
  if (!v?.wall) return '';
  const g = v.gpu ? `<br><span class="muted">GPU ${ms(v.gpu.median)} [${ms(v.gpu.min)}–${ms(v.gpu.max)}]</span>` : '';
  return `${ms(v.wall.median)} <span class="muted">[${ms(v.wall.min)}–${ms(v.wall.max)}] n=${v.wall.n}${v.batch ? ` ×${v.batch}` : ''}</span>${g}`;
}

function callsCell(c) {
  if (!c) return '';
  return esc(`${c.submits} submit, ${c.copies} copy, ${c.dispatches} dispatch, ${c.buffersCreated} createBuffer, ${c.bindGroups} bindGroup, ${c.writeBuffers} writeBuffer, ${c.mapAsyncs} mapAsync`);
}

export function renderHtml(report) {
  const env = report.env ?? {};
  const caseBlocks = report.results.map((r) => {
    const c = r.case;
    const rowsHtml = SYSTEMS.map((s) => {
      const v = r.systems?.[s.key];
      if (!v) return '';
      const status = v.skip ? `n/a: ${esc(v.skip)}` : v.ok ? (v.verified ? 'verified' : 'ran') : `<span class="err">failed: ${esc(v.error)}</span>`;
      const fb = v.webgpuError ? `<br><span class="warn">ORT's WebGPU EP refused this graph, so this ran on ORT's CPU EP. ORT said: ${esc(v.webgpuError)}</span>` : '';
      const st = v.stats ? `${esc(v.stats.strategy)}${v.stats.strategy === 'gather' ? ` (${v.stats.unitBytes}-byte words)` : ''}, ${v.stats.commands} GPU command(s)` : '';
      return `<tr><td><span class="sw" style="background:${s.color}"></span>${esc(s.label)}</td><td>${statsCell(v)}${v.first !== undefined ? `<br><span class="muted">first ${ms(v.first)}</span>` : ''}</td><td>${status}${fb}</td><td>${st}</td><td class="small">${callsCell(v.calls)}</td></tr>`;
    }).join('');
    const notes = [c.note, ...(r.notes ?? []), r.crashed && `page failed: ${r.crashed}`, r.cpuPathError && `CPU path: ${r.cpuPathError}`, ...(r.gpuErrors ?? []).map((e) => `GPU error: ${e}`)].filter(Boolean);
    return `<section id="${esc(c.id)}"><h3>${esc(c.id)}</h3>
<p class="muted">${esc(shortShape(c))} · ${c.op}${c.cold ? ' · cold start' : ''} · ${c.outputs} output(s) · ${(c.bytes / 1024).toFixed(c.bytes < 10240 ? 2 : 0)} KiB · ${c.contiguous ? 'contiguous chunks (compared with the copy limit)' : 'strided chunks (compared with the shader-copy limit)'} · ${r.reps ?? '?'} rep(s)</p>
${notes.map((n) => `<p class="note">${esc(n)}</p>`).join('')}
${caseChart(r)}
<table><tr><th>system</th><th>ms per split: median [min–max] n × batch</th><th>status</th><th>Cleave plan</th><th>GPU calls in one split</th></tr>${rowsHtml}</table></section>`;
  }).join('\n');
  const targets = report.targets.map((t) => `<tr class="${t.met === null ? '' : t.met ? 'ok' : 'miss'}"><td>${esc(t.name)}</td><td>${esc(t.goal)}</td><td>${esc(t.value)}${t.details?.length ? `<details><summary>details</summary><ul>${t.details.map((d) => `<li>${esc(d)}</li>`).join('')}</ul></details>` : ''}</td><td>${t.met === null ? 'n/a' : t.met ? 'met' : 'missed'}</td></tr>`).join('');
  const pre = esc(`${renderTable(report)}\n\n${renderTargets(report)}`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Cleave bench ${esc(report.startedAt)}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1000px;color:#1b1f23;padding:0 12px}
h1{font-size:22px}h2{font-size:18px;margin-top:32px}h3{font-size:15px;margin:24px 0 4px;font-family:ui-monospace,monospace}
table{border-collapse:collapse;width:100%;margin:6px 0}td,th{border-bottom:1px solid #e1e4e8;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f6f8fa}.muted{color:#6a737d}.small{font-size:12px}.err{color:#cb2431;fill:#cb2431;font-size:12px}.warn{color:#b08800}
.note{margin:2px 0;color:#444}.ok td:last-child{color:#22863a;font-weight:600}.miss td:last-child{color:#cb2431;font-weight:600}
.sw{display:inline-block;width:10px;height:10px;margin-right:6px}svg text{font:12px system-ui,sans-serif}svg .ax{fill:#6a737d;font-size:11px}
svg .val{font-size:11px;fill:#333}pre{font-size:11px;overflow-x:auto;background:#f6f8fa;padding:8px}
</style></head><body>
<h1>Cleave bench</h1>
<p>${esc(report.startedAt)} · ${esc(report.command)} · ${report.seconds?.toFixed(0)} s · adapter <b>${esc(env.adapter?.vendor)}/${esc(env.adapter?.architecture)}</b> (${esc(env.adapter?.description)}) · ONNX Runtime Web ${esc(env.ort?.web)} · ${esc(env.userAgent)} · timestamp-query: ${env.timestampQuery ? `yes (empty command buffer ${ms(env.timestampFloorUs)} µs)` : 'no'} · Node ${esc(report.machine?.node)}, ${report.machine?.cpus} CPU(s), load ${report.machine?.loadavg?.map((l) => l.toFixed(1)).join(' ')}</p>
<p class="muted">All systems run in one page on one GPUDevice (ONNX Runtime's, shared with Cleave). Every system's outputs were checked byte for byte against a plain JavaScript split (and Cleave's CPU path against it) before timing. Wall time: milliseconds per split; GPU-resident systems run a batch of splits and then wait once with onSubmittedWorkDone. GPU time: the summed span of every command buffer the split submitted, from timestamp queries at each command buffer's start and end (queue.writeBuffer uploads are not in it). Medians over interleaved batches; whiskers show min–max.</p>
<h2>Targets</h2>
<table><tr><th>target</th><th>goal</th><th>measured</th><th></th></tr>${targets}</table>
<h2>Overview: how many times slower than GPU-resident Cleave</h2>
<p class="muted">Per case, each system's median wall time divided by GPU-resident Cleave's (log scale; right of 1x: Cleave is faster). Dashed: 3x (the target against ORT) and 1/1.3 (the target against the limits). Faded bars: ORT on its CPU EP, its WebGPU EP having refused the graph.</p>
${overviewChart(report)}
<h2>Cases</h2>
${caseBlocks}
<h2>Terminal table</h2>
<pre>${pre}</pre>
</body></html>
`;
}

/** A log-scale x axis from lo to hi (powers of ten) over [x0, x1]: the mapping and its grid lines (1 in black). */
function logAxis(lo, hi, x0, x1, top, H, unit) {
  const x = (v) => x0 + (Math.log10(v / lo) / Math.log10(hi / lo)) * (x1 - x0);
  const grid = [];
  for (let d = lo; d <= hi * 1.0001; d *= 10) {
    grid.push(`<line x1="${x(d)}" x2="${x(d)}" y1="${top}" y2="${H - 22}" stroke="${unit === 'x' && Math.abs(d - 1) < 1e-9 ? '#000' : '#ddd'}"/>`,
      `<text x="${x(d)}" y="${H - 8}" text-anchor="middle" class="ax">${d >= 1 ? d : d.toPrecision(1)}${unit}</text>`);
  }
  return { x, grid };
}
