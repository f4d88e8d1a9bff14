// Where risks other than the update service's come from, as the newest cluster-version-operator's
// pkg/risk Source: a source names itself and answers the risks it sees now and, for each, the update
// versions it applies to. Their answers are taken together as pkg/risk/aggregate takes them: the first
// definition of a name stands, a different one from another source is reported, and a source that fails
// is reported while the others still count.
import semver from 'semver';
import type { Risk } from '../../graph/model.js';
import type { ClusterVersion } from '../clusterVersion.js';
import type { Condition } from '../conditions.js';

/** A risk of a source; one whose exposure the source already knows (a firing alert) carries its Applies condition. */
export type SourceRisk = Risk & { applies?: Condition };

export interface SourceAnswer {
  risks: SourceRisk[];
  /** Risk name -> the update versions it applies to. */
  versions: Map<string, string[]>;
  /** What went wrong, when something did; the risks still count (a source may answer one for its own failure). */
  problem?: string;
}

export interface RiskSource {
  readonly name: string;
  risks(versions: string[], cv: ClusterVersion): Promise<SourceAnswer>;
}

/** Every source's answer taken together; `problems` has one line per thing that went wrong. */
export async function collectRisks(
  sources: readonly RiskSource[],
  versions: string[],
  cv: ClusterVersion,
): Promise<{ risks: SourceRisk[]; versions: Map<string, string[]>; problems: string[] }> {
  const risks: SourceRisk[] = [];
  const byName = new Map<string, SourceRisk>();
  const merged = new Map<string, string[]>();
  const problems: string[] = [];
  const answers = await Promise.all(
    sources.map((s) =>
      s
        .risks(versions, cv)
        .catch((err: unknown): SourceAnswer => ({ risks: [], versions: new Map(), problem: (err as Error).message })),
    ),
  );
  answers.forEach((answer, i) => {
    const source = sources[i]!;
    if (answer.problem) problems.push(`${source.name}: ${answer.problem}`);
    // Each source within its own share, so a storm of one kind (alerts) cannot push the others out; names
    // the merge will refuse are passed on (a few) for it to report, and do not take a share.
    const valid = answer.risks.filter((r) => isRiskName(r.name));
    const refused = answer.risks.filter((r) => !isRiskName(r.name)).slice(0, MAX_REPORTED_INVALID);
    if (valid.length > MAX_RISKS_PER_SOURCE)
      problems.push(
        `${source.name}: ${valid.length} risks, only the first ${MAX_RISKS_PER_SOURCE} merged (a ClusterVersion holds 200 risks an update, 500 in all)`,
      );
    const kept = [...valid.slice(0, MAX_RISKS_PER_SOURCE), ...refused];
    for (const risk of kept) {
      const known = byName.get(risk.name);
      if (!known) {
        byName.set(risk.name, risk);
        risks.push(risk);
      } else if (!sameDefinition(known, risk))
        problems.push(`divergent definitions of risk ${JSON.stringify(risk.name)} from ${JSON.stringify(source.name)}`);
    }
    for (const risk of kept) {
      const vs = answer.versions.get(risk.name);
      if (vs) merged.set(risk.name, [...new Set([...(merged.get(risk.name) ?? []), ...vs])]);
    }
  });
  return { risks, versions: merged, problems };
}

/** The CVO's risk-naming convention (pkg/risk validName), and the schema's 256 characters for a name in riskNames. */
export const RISK_NAME = /^[A-Z][A-Za-z0-9.-]*$/;
export const isRiskName = (name: string): boolean => RISK_NAME.test(name) && name.length <= 256;

/**
 * The most risks one source adds: with three sources and the graph's own (a few an update on real data)
 * they stay within what the ClusterVersion schema holds (200 risks an update, 500 in all), so a cluster
 * with a storm of alerts still gets its lists written rather than refused whole.
 */
export const MAX_RISKS_PER_SOURCE = 50;
/** Risks with names the merge refuses, passed on for it to report: a few say enough. */
const MAX_REPORTED_INVALID = 5;
/** The parts of two definitions of one risk that must agree (the conditions they carry may differ). */
export const sameDefinition = (a: SourceRisk, b: SourceRisk): boolean =>
  a.name === b.name &&
  a.message === b.message &&
  a.url === b.url &&
  JSON.stringify(a.matchingRules) === JSON.stringify(b.matchingRules);

/**
 * The versions of `versions` a major or minor version beyond `current`, and those that are not SemVer
 * (pkg/risk/upgradeable MajorAndMinorUpdates); `current` must be SemVer.
 */
export function majorAndMinorUpdates(current: semver.SemVer, versions: string[]): string[] {
  return versions.filter((v) => {
    const p = semver.parse(v);
    return !p || p.major > current.major || (p.major === current.major && p.minor > current.minor);
  });
}

/** The docs of the current minor's ClusterOperator condition types, as the CVO links Upgradeable risks. */
export const conditionTypesDocs = (v: semver.SemVer): string =>
  `https://docs.redhat.com/en/documentation/openshift_container_platform/${v.major}.${v.minor}/html/updating_clusters/understanding-openshift-updates-1#understanding_clusteroperator_conditiontypes_understanding-openshift-updates`;
export const PRODUCT_DOCS = 'https://docs.redhat.com/en/documentation/openshift_container_platform/';

/** The same risk for every version given, as most sources answer. */
export const forVersions = (risks: SourceRisk[], versions: string[]): Map<string, string[]> =>
  new Map(versions.length ? risks.map((r) => [r.name, versions]) : []);

/** The one risk a source answers when it cannot look: `<source>Unknown`, always applying; `problem` is what is logged. */
export function unknownRisk(
  source: string,
  message: string,
  url: string,
  versions: string[],
  problem = message,
): SourceAnswer {
  const risk: SourceRisk = { name: `${source}Unknown`, message, url, matchingRules: [{ type: 'Always' }] };
  return { risks: [risk], versions: forVersions([risk], versions), problem };
}
