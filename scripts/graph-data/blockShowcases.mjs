// Shapes of blocked edge the dataset must show at least once, added when the random draws did not
// produce them (in practice only the small demo needs any): a risk with both rule types, a release
// with two risks, an arm64-only hard block, and hard blocks whose file name carries a suffix.
import { blockedEdge } from './blockedEdgeSet.mjs';
import { arm64ZStreams, HARD_SLUGS, nextUsable, olderThanFloor, usable } from './blockTargets.mjs';
import { RESPIN } from './risks.mjs';

export function addShowcases(set, supply) {
  ensureRiskWithBothRules(set);
  ensureReleaseWithTwoRisks(set, supply);
  ensureArm64HardBlock(set, supply.history);
  ensureSuffixedHardBlocks(set, supply.history);
}

function ensureRiskWithBothRules(set) {
  const risks = set.entries().filter((b) => b.risk);
  if (risks.some((b) => b.risk.rules.length > 1)) return;
  const b = risks.find((x) => x.risk.rules[0].type === 'PromQL' && x.risk !== RESPIN);
  if (b) b.risk.rules.push({ type: 'Always' });
}

function ensureReleaseWithTwoRisks(set, { history, nextRisk }) {
  if ([...set.riskTargets.values()].some((n) => n >= 2)) return;
  const minor = history.minors.get(history.newest - 1);
  const v = usable(minor).find((x) => set.riskTargets.has(x.name)) ?? usable(minor)[1];
  const addRisk = () => {
    const risk = nextRisk('promql', minor.m);
    set.add(`${v.name}-${risk.name}`, blockedEdge(v.name, '.*', { risk }));
  };
  addRisk();
  if (set.riskTargets.get(v.name) < 2) addRisk();
}

function ensureArm64HardBlock(set, { minors, newest }) {
  if (set.hardBlocks().some(([, b]) => b.to.endsWith('+arm64'))) return;
  const minor = minors.get(newest - 1);
  const unblocked = arm64ZStreams(minor).filter((x) => !set.has(`${x.name}+arm64`));
  const v = unblocked[Math.floor(unblocked.length / 3)];
  if (v) set.add(`${v.name}+arm64`, blockedEdge(`${v.name}+arm64`, '.*', { fixedIn: nextUsable(minor, v) }));
}

/** At least three hard blocks, one of them in a file named `<to>-<suffix>`, from the newest minors down. */
function ensureSuffixedHardBlocks(set, { profile, minors }) {
  const ms = profile.minors;
  for (let i = 0; i < ms.length; i++) {
    const hard = set.hardBlocks();
    if (hard.some(([file, b]) => file !== b.to) && hard.length >= 3) return;
    const minor = minors.get(ms[ms.length - 2 - i] ?? ms[0]);
    const older = minors.get(minor.m - 1);
    const v = usable(minor)[1];
    if (!v || !older || minor.floorIdx < 0) continue;
    set.add(`${v.name}-${HARD_SLUGS[i % HARD_SLUGS.length]}`, blockedEdge(v.name, olderThanFloor(older, minor)));
  }
}
