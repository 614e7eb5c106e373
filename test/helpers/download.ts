// Reading GPU outputs back in tests, with src/'s hostDataFromBytes (readback.ts holds the reads).
// No vitest import: the crash tier's child processes bundle it.
import { type GpuTensor, type HostTensor, type SplitEngine, hostDataFromBytes } from '../../src/index.js';
import { downloadOutputs } from './readback.js';

export { readBuffer } from './readback.js';

/** Every output's data, from one download per buffer the outputs share. */
export function downloadAll(engine: SplitEngine, outs: readonly GpuTensor[]): Promise<HostTensor[]> {
  return downloadOutputs(engine, outs, hostDataFromBytes);
}
