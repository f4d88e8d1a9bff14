// Regular expressions the generated files carry: feeder filters and blocked-edge `from` patterns.

const digitClass = (a, b) => (a === b ? String(a) : `[${a}-${b}]`);

/** Alternatives matching exactly the numbers from `a` to `b`, both written with the same number of digits. */
function sameLengthRange(a, b) {
  if (a === b) return [a];
  if (a.length === 1) return [digitClass(+a, +b)];
  if (a[0] === b[0]) return sameLengthRange(a.slice(1), b.slice(1)).map((p) => a[0] + p);
  const nines = '9'.repeat(a.length - 1);
  const zeros = '0'.repeat(a.length - 1);
  const out = [];
  let first = +a[0];
  let last = +b[0];
  if (a.slice(1) !== zeros) {
    out.push(...sameLengthRange(a.slice(1), nines).map((p) => a[0] + p));
    first += 1;
  }
  const tail = b.slice(1) !== nines;
  if (tail) last -= 1;
  if (first <= last) out.push(digitClass(first, last) + '[0-9]'.repeat(a.length - 1));
  if (tail) out.push(...sameLengthRange(zeros, b.slice(1)).map((p) => b[0] + p));
  return out;
}

/** Alternation (without outer parentheses) matching exactly the integers lo..hi. */
export function numRange(lo, hi) {
  if (lo > hi) throw new Error(`bad range ${lo}..${hi}`);
  const parts = [];
  for (let d = String(lo).length; d <= String(hi).length; d++) {
    const a = Math.max(lo, d === 1 ? 0 : 10 ** (d - 1));
    const b = Math.min(hi, 10 ** d - 1);
    if (a <= b) parts.push(...sameLengthRange(String(a), String(b)));
  }
  return parts.join('|');
}

/** A feeder filter for the versions of the given 4.y minors. */
export const minorFilter = (...minors) =>
  minors.length === 1 ? `4[.]${minors[0]}[.][0-9].*` : `4[.](${minors.join('|')})[.][0-9].*`;
