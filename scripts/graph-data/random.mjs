// Seeded randomness: one independent stream per purpose, named by keys, so that adding a draw for one
// purpose never shifts the draws of another. The output depends on the seed and the keys only.

/** 32-bit FNV-1a hash of a string: turns a stream's name into its starting state. */
function fnv1a(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The mulberry32 generator: small, fast, and good enough for made-up data. Returns numbers in [0, 1). */
function mulberry32(state) {
  return function next() {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Draws for one seed. Every function takes the keys that name its stream last. */
export function seededRandom(seed) {
  const stream = (...keys) => mulberry32(fnv1a(`${seed}|${keys.join('|')}`));
  const rand = (...keys) => stream(...keys)();
  const chance = (p, ...keys) => rand(...keys) < p;
  const randInt = (lo, hi, ...keys) => lo + Math.floor(rand(...keys) * (hi - lo + 1));

  function shuffled(list, ...keys) {
    const next = stream('shuffle', ...keys);
    const out = list.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }

  /** A key of `weights` (an object of key -> weight), drawn in proportion to its weight. */
  function pickWeighted(weights, ...keys) {
    const entries = Object.entries(weights).filter(([, w]) => w > 0);
    const total = entries.reduce((s, [, w]) => s + w, 0);
    let x = rand(...keys) * total;
    for (const [k, w] of entries) {
      if ((x -= w) < 0) return k;
    }
    return entries[entries.length - 1][0];
  }

  return { rand, chance, randInt, shuffled, pickWeighted };
}
