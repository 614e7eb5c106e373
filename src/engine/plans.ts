// The one plan cache: an engine's programs (program.ts), found by the split and the key a call asks for, the least
// recently used dropped past its bound and its table retired. A program joins it once a call of it went through, and
// leaves it when a call of it fails; one it let go of never comes back.

/** What the cache needs of a program: whether it is a prepared split's own, and whether it was let go of. */
export type Entry = { readonly prepared: boolean; dropped: boolean };

/** Programs an engine keeps (most recently used last): a model's distinct splits, each under a key or two. */
export const KEPT_PROGRAMS = 32;

/** The one plan cache of an engine: its programs, most recently used last, at most KEPT_PROGRAMS. */
export class PlanCache<P extends Entry> {
  private readonly list: P[] = [];

  constructor(private readonly retire: (p: P) => void) {}

  get size(): number {
    return this.list.length;
  }

  /** The newest program that `match`es, now the most recently used; undefined when none does. */
  find(match: (p: P) => boolean): P | undefined {
    const list = this.list;
    for (let k = list.length - 1; k >= 0; k--) {
      const p = list[k]!;
      if (!match(p)) continue;
      if (k !== list.length - 1) list.push(...list.splice(k, 1));
      return p;
    }
    return undefined;
  }

  /**
   * Keeps `p` as the most recently used; never a prepared split's own program (its caller's), nor one dropped before
   * (a call of it that went through after another failed, or after the cache let it go: its table is retired).
   */
  keep(p: P): void {
    if (p.prepared || p.dropped || this.list[this.list.length - 1] === p) return;
    const k = this.list.indexOf(p);
    if (k >= 0) this.list.splice(k, 1);
    if (this.list.push(p) > KEPT_PROGRAMS) this.drop(this.list.shift()!);
  }

  /** Drops `p` (a call of it failed), its table retired. */
  forget(p: P): void {
    const k = this.list.indexOf(p);
    if (k >= 0) this.drop(this.list.splice(k, 1)[0]!);
    p.dropped = true;
  }

  private drop(p: P): void {
    p.dropped = true;
    this.retire(p);
  }
}
