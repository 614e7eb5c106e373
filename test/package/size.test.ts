// The bundle's sizes, as docs/size.md gives them: scripts/size.mjs measures again from dist/ (run `npm run build`
// first; `npm test` does) and names in one line what docs/size.json or docs/size.md no longer holds. Then what the
// docs say about the figures: `cleave-gpu/core` leaves the operator front-ends out, and the messages weigh something.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import { APPS, type Sizes, buildApp, measure, staleness } from '../../scripts/size.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
let fresh: Sizes;

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist/core.js'))) throw new Error("dist/ is missing: run 'npm run build' first");
  fresh = await measure();
});

test('docs/size.json and docs/size.md hold the sizes of this build', async () => {
  for (const { id } of APPS)
    console.log(`size: ${id}: ${fresh.apps[id]?.minified} B minified, ${fresh.apps[id]?.gzip} B gzip`);
  expect(await staleness(fresh)).toBe('');
});

// The operator front-ends' messages name their operators and attributes: the same application built with
// `cleave-gpu`'s createSplitEngine holds them (the control), with `cleave-gpu/core`'s it does not.
test('an application of cleave-gpu/core holds none of the operator front-ends', async () => {
  const js = async (id: string) => (await buildApp(APPS.find((a) => a.id === id)!)).join('\n');
  const [split, core] = [await js('split'), await js('core')];
  for (const op of ['SplitToSequence', 'VariadicSplit', 'num_outputs']) {
    expect(split).toContain(op);
    expect(core).not.toContain(op);
  }
  expect(core).toContain('createSplitEngine');
});

test('the build without messages is smaller than the whole API (docs/size.md says by how much)', () => {
  const [whole, floor] = [fresh.apps.whole!, fresh.apps.floor!];
  expect(floor.minified).toBeLessThan(whole.minified);
  expect(floor.gzip).toBeLessThan(whole.gzip);
});
