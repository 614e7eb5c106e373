// The crash-prone hostile cases, each group in child processes (test/hostile/child.ts, bundled with
// the library's current sources). The parent asserts each child's exit, and every case's result.
// A case that kills its process is recorded as a crash (with the signal) and the group resumes in
// a fresh child from the next case; one that stalls is recorded as a hang, the child killed.

import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const OUT = join(ROOT, 'node_modules/.cache', `cleave-hostile-${process.pid}`);
const CHILD = join(OUT, 'child.js');
/** Time a child gets beyond a case's own limit (its start-up, a stalled event loop) before the case counts as a hang. */
const GRACE_MS = 2_000;

interface Result {
  readonly i: number;
  readonly fn: string;
  readonly what: string;
  readonly expected: string;
  readonly got: string;
  readonly ok: boolean;
  readonly message: string;
}

beforeAll(() => {
  mkdirSync(OUT, { recursive: true });
  const built = spawnSync(process.execPath, [join(ROOT, 'test/hostile/build-child.mjs'), OUT], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (built.status !== 0) throw new Error(`building the child bundle failed:\n${built.stdout}\n${built.stderr}`);
}, 120_000);

afterAll(() => rmSync(OUT, { recursive: true, force: true }));

interface Run {
  readonly lines: Record<string, unknown>[];
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stalled: boolean;
  readonly stderr: string;
}

/** One child from case `from`; killed when a case runs past its limit (plus GRACE_MS). */
function runChild(group: string, from: number): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CHILD, group, String(from)], {
      cwd: ROOT,
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: Record<string, unknown>[] = [];
    let buffered = '';
    let stderr = '';
    let stalled = false;
    const arm = (ms: number) =>
      setTimeout(() => {
        stalled = true;
        child.kill('SIGKILL');
      }, ms + GRACE_MS);
    let watchdog = arm(30_000); // start-up: bundle import, adapter, device
    child.stdout.on('data', (d: Buffer) => {
      buffered += d.toString();
      const parts = buffered.split('\n');
      buffered = parts.pop()!;
      for (const p of parts) {
        if (!p.trim()) continue;
        const line = JSON.parse(p) as Record<string, unknown>;
        lines.push(line);
        clearTimeout(watchdog);
        watchdog = arm(typeof line.limitMs === 'number' ? line.limitMs : 20_000);
      }
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('close', (code, signal) => {
      clearTimeout(watchdog);
      resolve({
        lines,
        code,
        signal,
        stalled,
        stderr: stderr
          .split('\n')
          .filter((l) => !/XDG_RUNTIME_DIR/.test(l))
          .join('\n'),
      });
    });
  });
}

/** Every case of a group: children resume after a crash or a hang at the case that caused it. */
async function runGroup(group: string): Promise<{ results: Result[]; total: number; children: number }> {
  const results: Result[] = [];
  let total = 0;
  let from = 0;
  let children = 0;
  for (;;) {
    const run = await runChild(group, from);
    children++;
    const fatal = run.lines.find((l) => 'fatal' in l);
    if (fatal) throw new Error(`child ${group} failed to start: ${String(fatal.fatal)}\n${run.stderr}`);
    for (const l of run.lines) {
      if ('cases' in l) total = l.cases as number;
      if ('ok' in l) results.push(l as unknown as Result);
    }
    if (run.lines.some((l) => 'done' in l) && run.code === 0) return { results, total, children };
    const started = run.lines.filter((l) => 'start' in l).at(-1);
    if (!started || results.some((x) => x.i === started.start)) {
      throw new Error(
        `child ${group} exited (code ${run.code}, signal ${run.signal}) outside any case:\n${run.stderr}`,
      );
    }
    const i = started.start as number;
    const got = run.stalled
      ? `hang (no answer in ${((started.limitMs as number) + GRACE_MS) / 1000} s; child killed)`
      : `crash (exit code ${run.code}, signal ${run.signal})`;
    results.push({
      i,
      fn: String(started.fn),
      what: String(started.what),
      expected: String(started.expected),
      got,
      ok: false,
      message: run.stderr.trim().split('\n').at(-1) ?? '',
    });
    from = i + 1;
    if (from >= total) return { results, total, children };
  }
}

function report(results: readonly Result[]): string {
  return results
    .filter((r) => !r.ok)
    .map(
      (r) =>
        `#${r.i} ${r.fn} | ${r.what} | expected ${r.expected} | got ${r.got}` +
        (r.message ? `\n     message: ${r.message}` : ''),
    )
    .join('\n');
}

for (const [group, title] of [
  [
    'memory',
    'shared, growable, resizable and detached host memory on every path: copied and split exactly, or DATA_TYPE',
  ],
  [
    'native',
    'proxies and look-alikes of GPUBuffer, GPUCommandEncoder and GPUDevice are refused before they reach Dawn',
  ],
  ['counts', 'absurd output counts and sizes are TOO_LARGE before anything is allocated; 65536 outputs work'],
] as const) {
  test(`child processes, ${group}: ${title}`, async () => {
    const { results, total } = await runGroup(group);
    expect(results.length, 'every case ran').toBe(total);
    console.log(`hostile child tier, ${group}: ${total} cases, ${results.filter((r) => !r.ok).length} failing`);
    expect(results.filter((r) => !r.ok).length, `failing cases of group ${group}:\n${report(results)}`).toBe(0);
  }, 180_000);
}

test('child processes: a case that kills its process is seen as a crash, and the group goes on', async () => {
  const { results, children } = await runGroup('canary');
  expect(children).toBe(1);
  expect(results).toHaveLength(1);
  expect(results[0]!.got).toMatch(/crash .*SIGSEGV/);
}, 60_000);
