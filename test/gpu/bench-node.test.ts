// The Node bench (bench/node) end to end on one tiny case, wall time only (the path of an adapter
// without timestamp queries): it exits 0, its JSON (results format 2) holds verified outputs and figures
// for every system that applies, and it renders its HTML report beside it. Runs the built dist/ in a child process, as `npm run bench:node` does.
// Figures are read for presence, never compared with a time.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';

interface Summary {
  readonly median: number;
  readonly n: number;
}
interface SystemRecord {
  readonly verified: boolean;
  readonly skip?: string;
  readonly error?: string;
  readonly stats?: { readonly strategy: string };
  readonly wall?: Summary;
  readonly gpu?: Summary;
}

test('bench:node runs a tiny case in wall time only, every output verified', () => {
  expect(existsSync('dist/cleave.js'), 'dist/ is built (npm run build)').toBe(true);
  const out = mkdtempSync(join(tmpdir(), 'bench-node-'));
  try {
    const args = ['bench/node/run.mjs', '--quick', '--cases', '^tiny-f32-6-a0-3$', '--wall-only', '--out', out];
    const r = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 90_000 });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/GPU time: none \(--wall-only\): wall time only/);
    const files = readdirSync(out).filter((f) => /^node-.*\.json$/.test(f));
    expect(files).toHaveLength(1);
    const report = JSON.parse(readFileSync(join(out, files[0]!), 'utf8'));
    expect(report.format).toBe(2);
    expect(readFileSync(join(out, 'node-report.html'), 'utf8')).toContain('<h4>tiny-f32-6-a0-3: float32 [6] a0');
    expect(report.timestamps).toBe(false);
    expect(report.adapter.vendor).toBeTypeOf('string');
    expect(Object.keys(report.costs)).toEqual(['copyCommandNs', 'dispatchNs', 'copyByteNs', 'gatherByteNs']);
    expect(report.cases).toHaveLength(1);
    const systems: Record<string, SystemRecord> = report.cases[0].systems;
    expect(Object.keys(systems)).toEqual([
      'cleave',
      'forced-alias',
      'forced-copy',
      'forced-gather',
      'separate',
      'copy-limit',
      'shader-limit',
    ]);
    const ran = Object.entries(systems).filter(([, s]) => !s.skip);
    // [6] into 3 cannot be views (outputs start at 256-byte offsets): alias is the one that does not apply.
    expect(ran.map(([k]) => k)).toEqual([
      'cleave',
      'forced-copy',
      'forced-gather',
      'separate',
      'copy-limit',
      'shader-limit',
    ]);
    for (const [key, s] of ran) {
      expect(s.error, key).toBeUndefined();
      expect(s.verified, key).toBe(true);
      expect(s.wall?.n, key).toBeGreaterThan(0);
      expect(Number.isFinite(s.wall?.median), key).toBe(true);
      expect(s.gpu, `${key}: no GPU time without timestamps`).toBeUndefined();
    }
    expect(systems['forced-copy']!.stats!.strategy).toBe('copy');
    expect(systems['forced-gather']!.stats!.strategy).toBe('gather');
    expect(report.cases[0].gpuErrors).toEqual([]);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
