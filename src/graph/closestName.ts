// "Did you mean": the known name closest to a mistyped one, by edit distance (a swap of two neighbouring
// characters counts as one edit, as a typist makes it), for messages about a channel that does not exist.
// Only names with the same digits are offered: in a channel's name they are its version.

/** Edits (insert, delete, replace, swap two neighbours) from `a` to `b`, case ignored. */
export function editDistance(a: string, b: string): number {
  a = a.toLowerCase();
  b = b.toLowerCase();
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2]! + 1);
      row.push(best);
    }
    before = previous;
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * The name of `known` closest to `name`, when one is near enough to be what was meant: at most two edits,
 * and fewer than a third of the name's length (so that short names do not match everything). The first in
 * `known` wins a tie; a name that is known itself has no other meant.
 */
export function closestName(name: string, known: Iterable<string>): string | undefined {
  const allowed = Math.min(2, Math.ceil(name.length / 3) - 1);
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    if (candidate === name) return undefined;
    // Other digits name another version, not a typo: stable-4.18 is not stable-4.16 mistyped.
    if (digitsOf(candidate) !== digitsOf(name)) continue;
    const distance = editDistance(name, candidate);
    if (distance <= allowed && (!best || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
}

/** The digits of a name, sorted: the same for a name whose digits were only swapped or moved. */
const digitsOf = (name: string): string => [...name.replace(/\D/g, '')].sort().join('');

/** `: did you mean NAME?` for the closest known name, or '' when none is close. */
export function didYouMean(name: string, known: Iterable<string>): string {
  const closest = closestName(name, known);
  return closest ? `: did you mean ${closest}?` : '';
}
