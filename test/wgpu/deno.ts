// Runs test/wgpu/deno-main.ts in Deno (the `deno` devDependency, node_modules/.bin/deno) on the
// built bundle and returns its report. WebGPU there is wgpu, pinned to its Vulkan backend
// (DENO_WEBGPU_BACKEND) so it drives the same ICD as Dawn in Node (VK_ICD_FILENAMES, SwiftShader
// here): unpinned, wgpu would take another backend without saying so. A missing Deno, a missing
// bundle, a crash or a run without its JSON line throws: the tier fails, never skips.

import { execFile } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { RunReport } from '../conformance/suite.js';

const root = resolve(import.meta.dirname, '../..');
export const DENO = join(root, 'node_modules/.bin/deno');
const MAIN = join(root, 'test/wgpu/deno-main.ts');
const BUNDLE = join(root, 'dist/cleave.js');

export interface DenoRun {
  readonly report: RunReport;
  readonly stderr: string;
  /** Wall time of the whole child, start-up included, in ms. */
  readonly ms: number;
}

/**
 * deno-main.ts in a child Deno with `args` ('--facts': the facts alone), its environment this
 * process's plus `env` (a value of undefined removes the variable).
 */
export async function runDeno(args: readonly string[] = [], env: Record<string, string | undefined> = {}) {
  if (!existsSync(DENO))
    throw new Error(`Deno is missing at ${DENO}: the wgpu tier needs the 'deno' devDependency (npm install)`);
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run npm run build first (npm test does)`);
  // Deno's cache for the TypeScript it transpiles, outside the repository.
  const denoDir = join(tmpdir(), 'cleave-deno-dir');
  mkdirSync(denoDir, { recursive: true });
  const childEnv: Record<string, string | undefined> = {
    ...process.env,
    DENO_DIR: denoDir,
    DENO_WEBGPU_BACKEND: 'vulkan',
    DENO_NO_UPDATE_CHECK: '1',
    NO_COLOR: '1',
    ...env,
  };
  for (const k of Object.keys(childEnv)) if (childEnv[k] === undefined) delete childEnv[k];
  const flags = ['run', '--sloppy-imports', `--allow-read=${root}`, '--allow-env', MAIN, ...args];
  const t0 = performance.now();
  const { stdout, stderr, error } = await new Promise<{ stdout: string; stderr: string; error: Error | null }>((ok) =>
    execFile(DENO, flags, { env: childEnv, timeout: 240_000, maxBuffer: 64 << 20 }, (error, stdout, stderr) =>
      ok({ stdout, stderr, error }),
    ),
  );
  const ms = Math.round(performance.now() - t0);
  const line = stdout.trim().split('\n').at(-1) ?? '';
  if (error || !line.startsWith('{'))
    throw new Error(`deno ${flags.join(' ')} failed (${error?.message ?? 'no JSON line'}):\n${stderr.slice(-2000)}`);
  return { report: JSON.parse(line) as RunReport, stderr, ms } satisfies DenoRun;
}
