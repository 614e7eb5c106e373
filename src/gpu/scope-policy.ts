// Which error scopes a GPU-resident split runs inside, and whether it resolves before they report:
// a pure function of what the split touches (tested in plain Node).
//
// Commands on this engine's own live buffers, all taken from the pool, cannot fail: they skip the
// error scopes' round trip (most of a small split's time in a browser). Anything else runs inside
// them. A caller's buffer split here before without error is on this device, and with every output
// from the pool nothing is allocated: the one error left is the caller having destroyed it since.
// Such a split resolves without waiting for its scopes (`early`); an error they report later
// poisons its outputs and goes to the engine's late errors. The same holds for a caller's
// destinations (`into`): every one seen before, or all unscoped only when every buffer is this
// engine's own, live.

/** Both scopes: a call that may allocate, or whose input may be another device's. */
export const BOTH: readonly GPUErrorFilter[] = ['out-of-memory', 'validation'];
/** Nothing allocated: an out-of-memory error cannot happen, and only validation is scoped. */
export const VALIDATION: readonly GPUErrorFilter[] = ['validation'];
export const NONE: readonly GPUErrorFilter[] = [];

export interface ScopePolicy {
  /** The scopes its commands are recorded inside, outermost first. */
  readonly scopes: readonly GPUErrorFilter[];
  /** It resolves before its scopes report; an error they report comes later. */
  readonly early: boolean;
}

/**
 * The policy of a resident split that touches `theirs` of the caller's buffers (its input's, its
 * destinations'), `seen` when every one of those was split here before with no GPU error, and
 * `pooled` when every output buffer it takes is free in the pool (nothing is allocated).
 */
export function scopePolicy(theirs: number, seen: boolean, pooled: boolean): ScopePolicy {
  const early = theirs > 0 && pooled && seen;
  return { early, scopes: theirs === 0 && pooled ? NONE : early ? VALIDATION : BOTH };
}
