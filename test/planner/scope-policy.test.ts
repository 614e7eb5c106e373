// The scope policy of a GPU-resident split (scopesFor, src/gpu/split.ts), in plain Node: which error
// scopes its commands run inside, and when it resolves before they report. Every combination of
// the facts it reads, each with the outcome the module's header argues for.
import { describe, expect, test } from 'vitest';
import { scopesFor as scopePolicy } from '../../src/gpu/split.js';
import { SCOPES } from '../../src/gpu/executor.js';

const { both: BOTH, validation: VALIDATION, none: NONE } = SCOPES;

describe('scopePolicy', () => {
  test('the filter lists: both scopes, validation only, none', () => {
    expect(BOTH).toEqual(['out-of-memory', 'validation']);
    expect(VALIDATION).toEqual(['validation']);
    expect(NONE).toEqual([]);
  });

  // [theirs, seen, pooled] -> [scopes, early]
  const cases = [
    // Only this engine's own live buffers, nothing allocated: nothing can fail, no scope.
    [0, true, true, NONE, false],
    // Only its own buffers, but an output buffer is new: an allocation may run out of memory.
    [0, true, false, BOTH, false],
    // A caller's buffer split here before without error, nothing allocated: resolves early, and
    // only validation (the caller destroyed it since) can report, later.
    [1, true, true, VALIDATION, true],
    [3, true, true, VALIDATION, true],
    // A caller's buffer never split here (or whose last split failed): both scopes, awaited.
    [1, false, true, BOTH, false],
    [2, false, true, BOTH, false],
    // A caller's buffer seen before, but an allocation: both scopes, awaited.
    [1, true, false, BOTH, false],
    [1, false, false, BOTH, false],
  ] as const;

  test.each(cases)('theirs %d, seen %s, pooled %s', (theirs, seen, pooled, scopes, early) => {
    const p = scopePolicy(theirs, seen, pooled);
    expect(p.scopes).toBe(scopes);
    expect(p.early).toBe(early);
  });

  test('with no buffer of the caller, whether they were seen does not matter', () => {
    for (const pooled of [true, false]) expect(scopePolicy(0, false, pooled)).toEqual(scopePolicy(0, true, pooled));
  });

  test('a split that resolves early always keeps the validation scope', () => {
    for (const theirs of [0, 1, 2])
      for (const seen of [true, false])
        for (const pooled of [true, false]) {
          const p = scopePolicy(theirs, seen, pooled);
          if (p.early) expect(p.scopes).toContain('validation');
          else if (theirs > 0) expect(p.scopes).toBe(BOTH);
        }
  });
});
