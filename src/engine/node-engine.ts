// The engine with operator nodes: `run` reads a node with its operator's front-end (ops/), which checks its
// version's rules and plans it, and runs the plan like any split. Kept apart from engine.ts so that the engine of
// `cleave-gpu/core`, which has no `run`, leaves the front-ends out of an application's bundle.

import { Engine } from './engine.js';
import { requireInputUsage } from './arguments.js';
import { readOptions } from '../read/options.js';
import { type CheckedNode, type SplitNode, type TensorLike, resolveRun } from '../ops/index.js';
import type { NodeOutputs, SplitEngine } from './api.js';
import type { OutputOptions } from './options.js';

export class NodeEngine extends Engine implements SplitEngine {
  constructor(...args: ConstructorParameters<typeof Engine>) {
    super(...args);
    // Taken off the engine (`const { run } = engine`), it still works, as the other methods do.
    this.run = this.run.bind(this);
  }

  async run<const N extends SplitNode<TensorLike>>(
    node: CheckedNode<N>,
    options?: OutputOptions,
  ): Promise<NodeOutputs<N>> {
    this.usable('run');
    const r = resolveRun(node);
    requireInputUsage(r.data, 'run');
    return (await this.execute(
      r.plan,
      r.data,
      r.outputShapes,
      readOptions(options, 'run', ['layout', 'alias', 'into']),
    )) as NodeOutputs<N>;
  }
}
