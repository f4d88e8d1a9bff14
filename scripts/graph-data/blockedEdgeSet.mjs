// The blocked edges generated so far, by file name (without .yaml), with what later choices depend
// on: which targets already carry a risk, and whether the mix of rules is PromQL-heavy enough.

/** A blocked-edge entry: `to` and `from`, plus `fixedIn` and `risk` when they are set. */
export const blockedEdge = (to, from, { fixedIn, risk } = {}) => ({
  to,
  from,
  ...(fixedIn && { fixedIn }),
  ...(risk && { risk }),
});

export class BlockedEdgeSet {
  /** file name -> entry, in the order the edges were made. */
  byFile = new Map();
  /** `to` -> how many risk files name it. */
  riskTargets = new Map();

  constructor(profile, random) {
    this.profile = profile;
    this.random = random;
  }

  /** Adds an edge under a file name not yet taken; returns whether it did. */
  add(file, entry) {
    if (this.byFile.has(file)) return false;
    this.byFile.set(file, entry);
    if (entry.risk) this.riskTargets.set(entry.to, (this.riskTargets.get(entry.to) ?? 0) + 1);
    return true;
  }

  /** Adds each [file, entry] pair; returns how many were added. */
  addAll(pairs) {
    return pairs.filter(([file, entry]) => this.add(file, entry)).length;
  }

  has(file) {
    return this.byFile.has(file);
  }

  entries() {
    return [...this.byFile.values()];
  }

  /** [file, entry] of every hard block (an edge without a risk). */
  hardBlocks() {
    return [...this.byFile.entries()].filter(([, b]) => !b.risk);
  }

  /** The rules of the next risk: drawn by the profile's weights, but PromQL while the mix has too little. */
  ruleKind(...keys) {
    const all = this.entries();
    const promql = all.filter((b) => b.risk?.rules.some((r) => r.type === 'PromQL')).length;
    if (all.length >= 4 && promql / all.length < this.profile.minPromqlShare) return 'promql';
    return this.random.pickWeighted(this.profile.ruleWeights, 'rulekind', ...keys);
  }
}
