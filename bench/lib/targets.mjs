// Issue 4's targets, evaluated on one run's results. They are reported, never asserted: a miss is
// a row with the measured gap. All ratios compare medians of wall time per split measured side by
// side in the same page (GPU-resident systems: batches of splits, then one onSubmittedWorkDone).

/** Shader variants Cleave can compile: u32, vec2<u32> and vec4<u32> words (gather_words) and gather_bytes. */
export const SHADER_VARIANTS = 4;

const med = (s) => s?.ok ? s.wall?.median : undefined;
const gmed = (s) => s?.ok ? s.gpu?.median : undefined;
const geomean = (xs) => Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);

export function evaluateTargets(results, final) {
  const timed = results.filter((r) => !r.case.cold && !r.crashed);
  // Cases that force a strategy explain other cases; the targets judge the planner's own choices.
  const own = timed.filter((r) => !r.case.strategy);
  const out = [];

  // 1. Every case runs and verifies for Cleave.
  const broken = [];
  for (const r of results) {
    if (r.crashed) { broken.push(`${r.case.id}: page failed: ${r.crashed}`); continue; }
    if (r.cpuPathError) broken.push(`${r.case.id}: CPU path: ${r.cpuPathError}`);
    for (const k of ['cleave-gpu', 'cleave-host']) {
      const s = r.systems[k];
      if (!s?.ok || !s.verified) broken.push(`${r.case.id} ${k}: ${s?.error ?? 'did not run'}`);
    }
  }
  out.push({
    id: 'runs', name: 'Every case runs and verifies for Cleave (GPU-resident and host, every dtype, every output count)',
    goal: '0 failures', value: `${broken.length} failure(s) in ${results.length} case(s)`, met: broken.length === 0, details: broken,
  });

  // 2. GPU-resident Cleave vs ORT GPU-resident, geometric mean over the cases ORT runs.
  const onWebgpu = [];
  const withFallback = [];
  for (const r of own) {
    const c = med(r.systems['cleave-gpu']);
    const o = med(r.systems['ort-gpu']);
    if (c === undefined || o === undefined) continue;
    const row = { id: r.case.id, ratio: o / c, gpuRatio: ratioOf(gmed(r.systems['ort-gpu']), gmed(r.systems['cleave-gpu'])) };
    withFallback.push(row);
    if (!r.systems['ort-gpu'].fallback) onWebgpu.push(row);
  }
  const gm = onWebgpu.length ? geomean(onWebgpu.map((x) => x.ratio)) : undefined;
  const gmAll = withFallback.length ? geomean(withFallback.map((x) => x.ratio)) : undefined;
  out.push({
    id: 'vs-ort', name: 'GPU-resident: Cleave at least 3x faster than ORT Web GPU-resident (geometric mean over the cases ORT runs on its WebGPU EP)',
    goal: '>= 3x', value: gm === undefined ? 'no case' : `${gm.toFixed(2)}x over ${onWebgpu.length} case(s)` +
      (gmAll !== undefined && withFallback.length > onWebgpu.length ? `; ${gmAll.toFixed(2)}x counting the ${withFallback.length - onWebgpu.length} case(s) ORT runs on its CPU EP` : ''),
    met: gm === undefined ? null : gm >= 3, ratio: gm,
    details: withFallback.map((x) => `${x.id}: ${x.ratio.toFixed(2)}x wall${x.gpuRatio ? `, ${x.gpuRatio.toFixed(2)}x GPU time` : ''}${onWebgpu.includes(x) ? '' : ' (ORT on CPU EP)'}`),
  });

  // 3 and 4. Against the copy limit (contiguous chunks) or the shader-copy limit (other cases).
  for (const [id, contiguous, limitKey, name] of [
    ['copy-limit', true, 'copy-limit', 'Contiguous chunks (all dims before the axis are 1): GPU-resident Cleave within 1.3x of the copy limit'],
    ['shader-limit', false, 'shader-limit', 'Other cases: GPU-resident Cleave within 1.3x of the shader-copy limit'],
  ]) {
    const rows = [];
    for (const r of own.filter((x) => x.case.contiguous === contiguous)) {
      const c = med(r.systems['cleave-gpu']);
      const l = med(r.systems[limitKey]);
      if (c === undefined || l === undefined) { rows.push({ id: r.case.id, missing: true }); continue; }
      rows.push({ id: r.case.id, ratio: c / l, gpuRatio: ratioOf(gmed(r.systems['cleave-gpu']), gmed(r.systems[limitKey])), strategy: r.systems['cleave-gpu'].stats?.strategy });
    }
    const misses = rows.filter((x) => x.missing || x.ratio > 1.3);
    const worst = rows.filter((x) => !x.missing).reduce((a, x) => Math.max(a, x.ratio), 0);
    out.push({
      id, name, goal: '<= 1.3x each',
      value: rows.length ? `${rows.length - misses.length}/${rows.length} within; worst ${worst.toFixed(2)}x` : 'no case in this run',
      met: rows.length === 0 ? null : misses.length === 0,
      details: rows.map((x) => (x.missing ? `${x.id}: not measured` : `${x.id}: ${x.ratio.toFixed(2)}x wall${x.gpuRatio ? `, ${x.gpuRatio.toFixed(2)}x GPU time` : ''} (${x.strategy})`)),
    });
  }

  // 5. Many outputs vs fewer outputs of the same bytes: judged against the first case named in
  // sameBytesAs (the planner's own choice); the others (e.g. the same strategy forced) explain it.
  for (const r of timed.filter((x) => x.case.sameBytesAs)) {
    const names = [r.case.sameBytesAs].flat();
    const rows = [];
    let ratio;
    let judged;
    for (const [j, id] of names.entries()) {
      const base = timed.find((x) => x.case.id === id);
      if (!base) { rows.push(`${id}: not in this run`); continue; }
      for (const k of ['cleave-gpu', 'cleave-host']) {
        const a = med(r.systems[k]);
        const b = med(base.systems[k]);
        if (a === undefined || b === undefined) continue;
        if (j === 0 && k === 'cleave-gpu') { ratio = a / b; judged = base; }
        rows.push(`vs ${id}, ${k}: ${a.toPrecision(3)} ms vs ${b.toPrecision(3)} ms = ${(a / b).toFixed(2)}x` +
          ` (${r.systems[k].stats?.strategy} vs ${base.systems[k].stats?.strategy})`);
      }
    }
    out.push({
      id: 'outputs', name: `${r.case.outputs} outputs cost at most 2x the ${judged?.case.outputs ?? '?'}-output case of the same bytes (${r.case.id} vs ${names[0]}, GPU-resident)`,
      goal: '<= 2x', value: ratio === undefined ? 'not measured (run both cases)' : `${ratio.toFixed(2)}x`, met: ratio === undefined ? null : ratio <= 2, details: rows,
    });
  }

  // 6. Tiny case, host in/out, vs ORT host in/out.
  for (const r of timed.filter((x) => x.case.tiny)) {
    const c = med(r.systems['cleave-host']);
    const o = med(r.systems['ort-host']);
    const ratio = c && o ? o / c : undefined;
    out.push({
      id: 'tiny', name: `Tiny case (${r.case.id}), host in/out: Cleave at least 3x faster than ORT Web`,
      goal: '>= 3x', value: ratio === undefined ? 'not measured' : `${ratio.toFixed(2)}x (Cleave ${c.toPrecision(3)} ms, ORT ${o.toPrecision(3)} ms)`,
      met: ratio === undefined ? null : ratio >= 3,
      details: r.systems['ort-host']?.fallback ? ['ORT ran on its CPU EP'] : [],
    });
  }

  // 7. Pipelines compiled over the whole run.
  const units = new Set();
  for (const r of timed) for (const k of ['cleave-gpu', 'cleave-host']) {
    const s = r.systems[k]?.stats;
    if (s?.strategy === 'gather') units.add(s.unitBytes);
  }
  const n = final?.cleavePipelines;
  out.push({
    id: 'pipelines', name: 'Pipelines Cleave compiled over the whole run: no more than the number of shader variants',
    goal: `<= ${SHADER_VARIANTS} (variants)`,
    value: n === undefined ? 'not measured' : `${n} on the shared device (gather word sizes used: ${[...units].sort().join(', ') || 'none'})`,
    met: n === undefined ? null : n <= SHADER_VARIANTS,
    details: [`compute pipelines created on the shared device by anyone (Cleave + ORT + the bench's copy kernel): ${final?.devicePipelines ?? '?'}`,
      'an engine starts compiling the 4- and 16-byte word variants when it is created, so a short run may compile one it never uses',
      'the cold-start case compiles one more on each fresh device, by design'],
  });
  return out;
}

function ratioOf(a, b) {
  return a !== undefined && b !== undefined && b > 0 ? a / b : undefined;
}
