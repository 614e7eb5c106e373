// Valid control splits between the hostile calls: host and GPU-resident, through split, run,
// encodeSplit, a second engine on the same device and the CPU backend, several dtypes each. Every
// output is compared byte for byte with the reference split of test/helpers/reference.ts, which shares
// no code with Cleave.

import type { FixedDType, GpuTensor, HostTensor } from '../../src/index.js';
import { bitsOf, firstMismatch, referenceSplit } from '../helpers/reference.js';
import { downloadAll } from '../helpers/download.js';
import { validOptions } from './option-faults.js';
import { KINDS, dtypesFor, nodeBase } from './node-faults.js';
import { type Ctx, GPU_DTYPES, HOST_DTYPES, type Rng, base, pick } from './tensors.js';

/** What is wrong with `outs` as the split of `x` into `sizes` along `axis` (shapes as given), or undefined. */
export function splitProblem(
  outs: unknown,
  x: HostTensor,
  axis: number,
  sizes: readonly number[],
  shapes?: readonly (readonly number[])[],
): string | undefined {
  if (!Array.isArray(outs)) return `resolved with ${typeof outs}, not an array of tensors`;
  if (outs.length !== sizes.length) return `${outs.length} outputs, want ${sizes.length}`;
  const ax = axis < 0 ? axis + x.shape.length : axis;
  const want = referenceSplit(x, ax, sizes);
  for (const [i, o] of (outs as HostTensor[]).entries()) {
    const shape = shapes?.[i] ?? x.shape.map((d, k) => (k === ax ? sizes[i]! : d));
    if (o.dtype !== x.dtype) return `output ${i} has dtype ${String(o.dtype)}, want ${x.dtype}`;
    if (o.shape.length !== shape.length || o.shape.some((d, k) => !Object.is(d, shape[k]))) {
      return `output ${i} has shape [${o.shape.map(String).join(', ')}], want [${shape.join(', ')}]`;
    }
    const m = firstMismatch(bitsOf(o), want[i]!);
    if (m) return `output ${i}: ${m}`;
  }
  return undefined;
}

/** What is wrong with `back` as the same tensor as `x`, byte for byte (padding bits of packed types included). */
export function roundTripProblem(back: HostTensor, x: HostTensor): string | undefined {
  if (back.dtype !== x.dtype || JSON.stringify(back.shape) !== JSON.stringify(x.shape)) {
    return `came back as ${String(back.dtype)} [${back.shape.join(', ')}], want ${x.dtype} [${x.shape.join(', ')}]`;
  }
  const m = firstMismatch(bitsOf(back), bitsOf(x));
  return m && `round trip: ${m}`;
}

export interface ControlResult {
  readonly kind: string;
  readonly problem: string | undefined;
  readonly repro: string;
}

const show = (x: HostTensor, o: unknown) => `${x.dtype} [${x.shape.join(', ')}] ${JSON.stringify(o)}`;

/** One valid split of a random kind; its outputs compared with the reference. */
export async function control(ctx: Ctx, r: Rng): Promise<ControlResult> {
  const kind = pick(r, [
    'host split',
    'host split',
    'GPU-resident split',
    'GPU-resident split',
    'encodeSplit',
    'run (host node)',
    'run (GPU node)',
    'second engine',
    'CPU backend',
    'upload/download',
  ] as const);
  const onGpu =
    kind === 'GPU-resident split' || kind === 'encodeSplit' || kind === 'run (GPU node)' || kind === 'upload/download';
  const b = base(r, onGpu ? GPU_DTYPES : HOST_DTYPES);
  const { options, sizes } = validOptions(b, r);
  const x = b.host;
  const repro = show(x, options);
  try {
    switch (kind) {
      case 'host split':
        return { kind, repro, problem: splitProblem(await ctx.e.split(x, options as never), x, b.axis, sizes) };
      case 'second engine':
        return { kind, repro, problem: splitProblem(await ctx.e2.split(x, options as never), x, b.axis, sizes) };
      case 'CPU backend':
        return { kind, repro, problem: splitProblem(await ctx.cpu.split(x, options as never), x, b.axis, sizes) };
      case 'GPU-resident split': {
        const layout = pick(r, [undefined, 'shared', 'separate']);
        const alias = pick(r, [undefined, 'owned', 'any', 'none']);
        const gx = ctx.e.upload(x as HostTensor<FixedDType>);
        const outs = (await ctx.e.split(gx, {
          ...options,
          ...(layout && { layout }),
          ...(alias && { alias }),
        } as never)) as GpuTensor[];
        const problem = splitProblem(await downloadAll(ctx.e, outs), x, b.axis, sizes);
        for (const t of [...outs, gx]) ctx.e.release(t);
        return { kind, repro: `${repro} layout ${layout} alias ${alias}`, problem };
      }
      case 'encodeSplit': {
        const gx = ctx.e.upload(x as HostTensor<FixedDType>);
        const enc = ctx.device.createCommandEncoder();
        const outs = ctx.e.encodeSplit(enc, gx, options as never) as GpuTensor[];
        ctx.device.queue.submit([enc.finish()]);
        const problem = splitProblem(await downloadAll(ctx.e, outs), x, b.axis, sizes);
        for (const t of [...outs, gx]) ctx.e.release(t);
        return { kind, repro, problem };
      }
      case 'upload/download': {
        const gx = ctx.e2.upload(x as HostTensor<FixedDType>);
        const back = await ctx.e2.download(gx);
        ctx.e2.release(gx);
        return { kind, repro, problem: roundTripProblem(back, x) };
      }
      case 'run (host node)':
      case 'run (GPU node)': {
        const k = pick(r, KINDS);
        const nb0 = base(r, kind === 'run (GPU node)' ? dtypesFor(k).filter((d) => d !== 'string') : dtypesFor(k));
        const data = kind === 'run (GPU node)' ? ctx.e.upload(nb0.host as HostTensor<FixedDType>) : nb0.host;
        const nb = nodeBase(k, nb0, data, r);
        const outs = await ctx.e.run(nb.node as never);
        const host = kind === 'run (GPU node)' ? await downloadAll(ctx.e, outs as GpuTensor[]) : outs;
        const problem = splitProblem(host, nb0.host, nb.axis, nb.sizes, nb.shapes);
        if (kind === 'run (GPU node)') for (const t of [...(outs as GpuTensor[]), data as GpuTensor]) ctx.e.release(t);
        return { kind, repro: `${show(nb0.host, nb.node.attrs)} ${k}`, problem };
      }
    }
  } catch (e) {
    return { kind, repro, problem: `threw ${(e as Error)?.name}: ${(e as Error)?.message}` };
  }
}
