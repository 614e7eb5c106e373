// A split call's arguments, each read once and checked before any GPU work: the input and its
// buffer's usage, the split options into a plan (kept plans answer repeated splits), and the output
// options into what the executor takes (layout, alias rule, the caller's destinations).

import { SplitError, asInt, check, show } from '../errors.js';
import { readChoice, readCount, readLengths, readOptions } from '../read/options.js';
import { type TensorView, readTensor } from '../read/tensor.js';
import { readInto } from '../read/into.js';
import { type SplitPlan, equalParts, normalizeAxis } from '../planner/split.js';
import { planSplitRecent } from '../cache/recent-plans.js';
import { USAGE, missingUsage } from '../usage.js';
import { checkLive } from '../gpu/leases.js';
import type { SplitRequest } from '../gpu/executor.js';

/** Output options as read, each still to be checked against the input (`requestOf`). */
export type OutputFields = { readonly layout?: unknown; readonly alias?: unknown; readonly into?: unknown };

/** The input, plan and output options of split() and encodeSplit(), each read once. */
export function splitArguments(what: string, x: unknown, options: unknown): [TensorView, SplitPlan, OutputFields] {
  const view = readTensor(x, `${what}: input`);
  requireInputUsage(view, what);
  const o = readOptions(options, what, ['axis', 'sizes', 'parts', 'layout', 'alias', 'into']);
  check(
    (o.sizes === undefined) !== (o.parts === undefined),
    'BAD_OPTIONS',
    () => `${what}: give exactly one of sizes and parts`,
    'option:sizes',
  );
  const axis = o.axis === undefined ? 0 : asInt(o.axis);
  check(axis !== undefined, 'AXIS_RANGE', () => `${what}: axis must be an integer, got ${show(o.axis)}`, 'option:axis');
  const sizes =
    o.sizes !== undefined
      ? readLengths(o.sizes, what, 'option:sizes')
      : equalParts(
          view.shape[normalizeAxis(axis, view.shape.length, what)]!,
          readCount(o.parts, what, 'option:parts', 'BAD_PARTS'),
        );
  const plan = planSplitRecent(view.dtype, view.shape, axis, sizes, what, {
    axis: 'option:axis',
    sizes: o.sizes ? 'option:sizes' : 'option:parts',
  });
  return [view, plan, o];
}

/** What the executor is asked to do: the plan, with the output options checked (`alias` by default). */
export function requestOf(
  plan: SplitPlan,
  x: TensorView,
  shapes: SplitRequest['shapes'],
  out: OutputFields,
  alias: SplitRequest['alias'],
  strategy: SplitRequest['strategy'],
): SplitRequest {
  return {
    plan,
    shapes,
    strategy,
    layout: readChoice(out.layout, ['shared', 'separate'] as const, 'shared', 'split', 'option:layout'),
    alias: readChoice(out.alias, ['owned', 'any', 'none'] as const, alias, 'split', 'option:alias'),
    into:
      x.kind === 'gpu' ? readInto(out.into, x, shapes, plan.outputShapes, plan.axis, 'split', checkLive) : undefined,
  };
}

/**
 * A GPU input's buffer needs STORAGE | COPY_SRC, whatever the plan: which of the two a split uses
 * depends on the shapes and the device, so a buffer that worked for one split would fail another.
 */
export function requireInputUsage(x: TensorView, what: string): void {
  // One read of the usage on every call; the names of what is missing only for the message.
  if (x.kind !== 'gpu' || (~x.buffer.usage & (USAGE.STORAGE | USAGE.COPY_SRC)) === 0) return;
  throw new SplitError(
    'BAD_INPUT',
    `${what}: the input's GPU buffer needs usage ${missingUsage(x.buffer, ['STORAGE', 'COPY_SRC']).join(' | ')}: ` +
      "every split's input needs STORAGE | COPY_SRC " +
      '(create it with GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC, or TENSOR_USAGE from cleave-gpu)',
    'input:input.buffer',
  );
}
