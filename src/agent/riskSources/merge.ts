// Risks from sources other than the update service merged into the update lists, as the newest
// cluster-version-operator merges them (pkg/risk/risk.go Merge): each risk named by the convention or
// refused, the first definition of a name kept and a different one reported, a risk moving a recommended
// update into the conditional ones or joining a conditional update's risks (unless one of that name is
// there), conditional updates in version order with their risks in name order. Nothing here throws: what
// does not merge is reported beside the lists, which merge as far as they can.
import semver from 'semver';
import type { ClusterRelease } from '../clusterVersion.js';
import type { ConditionalUpdate } from '../cincinnati.js';
import { isRiskName, RISK_NAME, sameDefinition, type SourceRisk } from './source.js';

export interface Merged {
  available: ClusterRelease[];
  conditional: Array<ConditionalUpdate & { risks: SourceRisk[] }>;
  problems: string[];
}

export function mergeRisks(
  available: ClusterRelease[],
  conditional: ConditionalUpdate[],
  risks: SourceRisk[],
  versions: ReadonlyMap<string, string[]>,
): Merged {
  const problems: string[] = [];
  const byName = new Map<string, SourceRisk>();
  const invalid = new Set<string>();
  for (const risk of risks) {
    if (!isRiskName(risk.name)) {
      invalid.add(risk.name);
      problems.push(
        risk.name.length > 256
          ? `invalid risk name ${JSON.stringify(`${risk.name.slice(0, 64)}…`)} is longer than 256 characters`
          : `invalid risk name ${JSON.stringify(risk.name)} does not match ${JSON.stringify(RISK_NAME.source)}`,
      );
      continue;
    }
    const known = byName.get(risk.name);
    if (!known) byName.set(risk.name, risk);
    else if (!sameDefinition(known, risk))
      problems.push(`divergent definitions of risk ${JSON.stringify(risk.name)} from the merging source`);
  }

  let recommendedLeft = [...available];
  const updates: Merged['conditional'] = conditional.map((c) => ({ ...c, risks: [...c.risks] }));
  const unknownRisks: string[] = [];
  for (const name of [...versions.keys()].filter((n) => !invalid.has(n)).sort()) {
    const risk = byName.get(name);
    if (!risk) {
      unknownRisks.push(name);
      continue;
    }
    for (const version of versions.get(name)!) {
      const recommended = recommendedLeft.find((r) => r.version === version);
      if (recommended) {
        updates.push({ release: recommended, risks: [risk] });
        recommendedLeft = recommendedLeft.filter((r) => r !== recommended);
        continue;
      }
      const targets = updates.filter((c) => c.release.version === version);
      if (targets.length === 0)
        problems.push(
          `cannot merge risk ${JSON.stringify(name)} into unknown release version ${JSON.stringify(version)}`,
        );
      for (const target of targets) {
        const existing = target.risks.find((r) => r.name === name);
        if (!existing) target.risks.push(risk);
        else if (!sameDefinition(existing, risk))
          problems.push(`divergent definitions of risk ${JSON.stringify(name)}`);
      }
    }
  }
  if (unknownRisks.length) problems.push(`merge versions referenced unknown risks: ${unknownRisks.sort().join(', ')}`);

  updates.sort((a, b) => byVersion(a.release.version, b.release.version));
  for (const u of updates) u.risks.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { available: recommendedLeft, conditional: updates, problems };
}

/** SemVer order, versions that do not parse before those that do, in string order among themselves. */
function byVersion(a: string, b: string): number {
  const va = semver.valid(a);
  const vb = semver.valid(b);
  if (va && vb) return semver.compare(va, vb);
  if (va) return 1;
  if (vb) return -1;
  return a < b ? -1 : a > b ? 1 : 0;
}
