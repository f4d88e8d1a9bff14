// A self-test of the generator's integer-range patterns: the `from` patterns of blocked edges are
// built with them, and an off-by-one there would block the wrong z-streams without failing anything else.
import { numRange } from '../patterns.mjs';

const RANGES = [[0, 0], [0, 9], [0, 12], [3, 47], [10, 19], [0, 99], [7, 123], [95, 205], [1, 1], [20, 29]];

export function checkNumRange(report) {
  const wrong = [];
  for (const [lo, hi] of RANGES) {
    const re = new RegExp(`^(${numRange(lo, hi)})$`);
    const miss = Array.from({ length: 301 }, (_, n) => n).find((n) => re.test(String(n)) !== (n >= lo && n <= hi));
    if (miss !== undefined) wrong.push(`numRange(${lo}, ${hi}) is wrong at ${miss}`);
  }
  report.problems('numRange builds exact integer ranges', wrong);
}
