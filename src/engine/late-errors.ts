// The late-error ledger: GPU errors of splits that resolved before their GPU errors were known (a
// caller's buffer split again in steady state, then found destroyed). Without the caller's
// `onLateError` they stay here, oldest first, until `acknowledge()`; while one stays, the engine
// refuses its calls, so no later work builds on a split that never happened.

import { SplitError } from '../errors.js';

export interface LateErrors {
  add(e: SplitError): void;
  /** A copy: the caller may keep it while the ledger changes. */
  list(): readonly SplitError[];
  /** The errors, handed over and cleared: the engine takes calls again. */
  acknowledge(): SplitError[];
  /** Throws while an error is unacknowledged, naming the oldest. */
  refuse(what: string): void;
}

export function lateErrorLedger(): LateErrors {
  let errors: SplitError[] = [];
  return {
    add: (e) => void errors.push(e),
    list: () => [...errors],
    acknowledge: () => {
      const all = errors;
      errors = [];
      return all;
    },
    refuse: (what) => {
      const [first] = errors;
      if (first)
        throw new SplitError(
          'GPU_ERROR',
          `${what}: refused until engine.acknowledge(): ${first.message}`,
          'engine:engine',
        );
    },
  };
}
