// The bench's one pseudo-random source (xorshift32): inputs' bytes and the order systems take
// turns in, the same on every run.

/**
 * A new 32-bit word per call, from `seed`.
 * @param {number} seed @returns {() => number}
 */
export function xorshift32(seed) {
  let s = (seed * 2654435761) >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>>= 0);
  };
}
