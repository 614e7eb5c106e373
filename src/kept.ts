// Lists of the last few things made, kept to be found again (an engine's programs, a program's placements, a
// placement's bind groups): searched newest first, the one found moved last, the oldest dropped past a limit.

/** The newest kept item that `match`es, moved last (the most recently used); undefined when none does. */
export function findKept<T>(list: T[], match: (t: T) => boolean): T | undefined {
  for (let k = list.length - 1; k >= 0; k--) {
    const t = list[k]!;
    if (!match(t)) continue;
    if (k !== list.length - 1) list.push(...list.splice(k, 1));
    return t;
  }
  return undefined;
}

/** Keeps `t` as the newest; the oldest, dropped when the list is past `max`, is returned for its owner to free. */
export function keep<T>(list: T[], t: T, max: number): T | undefined {
  return list.push(t) > max ? list.shift() : undefined;
}
