// `npm run docs:check` (in `npm test`): the API reference in docs/api/ is what `npm run docs` writes from the
// sources now. It runs `npm run docs` into a temporary folder (so an undocumented export or a broken link fails here
// too) and compares every file with docs/api/; a difference fails with one line naming the first file that differs.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const COMMITTED = join(ROOT, 'docs/api');

/** Every file under `dir`, as sorted paths relative to it. */
const filesIn = (/** @type {string} */ dir) =>
  existsSync(dir)
    ? readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => relative(dir, join(e.parentPath, e.name)))
        .sort()
    : [];

const out = mkdtempSync(join(tmpdir(), 'cleave-api-'));
try {
  execFileSync('npm', ['run', '--silent', 'docs', '--', '--out', out, '--logLevel', 'Warn'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  const [fresh, committed] = [filesIn(out), filesIn(COMMITTED)];
  const differs = [...new Set([...fresh, ...committed])]
    .sort()
    .find(
      (f) =>
        !fresh.includes(f) ||
        !committed.includes(f) ||
        !readFileSync(join(out, f)).equals(readFileSync(join(COMMITTED, f))),
    );
  if (differs !== undefined) {
    console.error(`docs/api/ is stale (${differs} differs from the sources' doc comments): run \`npm run docs\``);
    process.exitCode = 1;
  }
} catch {
  // `npm run docs` printed what failed.
  process.exitCode = 1;
} finally {
  rmSync(out, { recursive: true, force: true });
}
