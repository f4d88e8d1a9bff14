// The blocked-edges/ files: hard blocks of releases held in candidate, then per minor a budget of
// edges made by random scenarios (blockScenarios.mjs), then the showcases (blockShowcases.mjs).
import { addShowcases } from './blockShowcases.mjs';
import { BlockedEdgeSet, blockedEdge } from './blockedEdgeSet.mjs';
import { pickScenario, SCENARIOS } from './blockScenarios.mjs';
import { nextUsable } from './blockTargets.mjs';
import { riskSupply } from './risks.mjs';

/** Map of file name (without .yaml) -> `{ to, from, fixedIn?, risk? }`. */
export function blockedEdgesFor(history, random) {
  const set = new BlockedEdgeSet(history.profile, random);
  const supply = { history, random, ...riskSupply(random) };
  blockHeldBack(set, history);
  for (const m of history.profile.minors) blockMinor(set, history.minors.get(m), supply);
  addShowcases(set, supply);
  return set.byFile;
}

/** A release held back in candidate is blocked outright, from every source. */
function blockHeldBack(set, { versions, minors }) {
  for (const v of versions.values()) {
    if (!v.candidateOnly) continue;
    set.add(v.name, blockedEdge(v.name, '.*', { fixedIn: nextUsable(minors.get(v.minor), v) }));
  }
}

/** Draws scenarios until the minor's budget (counting its held-back blocks) is spent, or 400 attempts. */
function blockMinor(set, minor, supply) {
  const budget = supply.history.profile.blockedBudget(minor.m);
  const older = supply.history.minors.get(minor.m - 1);
  let made = set.entries().filter((b) => b.to.startsWith(`4.${minor.m}.`) && !b.risk).length;
  for (let attempt = 0; made < budget && attempt < 400; attempt++) {
    const key = [minor.m, attempt];
    const scenario = pickScenario(supply, minor, older, key);
    made += SCENARIOS[scenario](set, minor, key, budget - made, supply);
  }
}
