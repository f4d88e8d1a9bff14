// `cincy adm upgrade recommend`, as `oc adm upgrade recommend` (pkg/cli/admin/upgrade/recommend): what
// stands in the way of updating (Failing, an update in progress, the precheck's findings from the
// cluster's alerts, updates that cannot be refreshed), then the recommended updates by minor version, the
// newest first, each with the issues known for this cluster; or, with --version, the context of one target,
// exiting non-zero when an issue applies that --accept did not name.
import semver from 'semver';
import { acceptedRiskNames } from '../../agent/acceptRisks.js';
import type { ClusterRelease, ClusterVersion } from '../../agent/clusterVersion.js';
import type { Condition } from '../../agent/conditions.js';
import type { Risk } from '../../graph/model.js';
import { alignColumns } from '../table.js';
import type { Finding } from './recommend/alerts.js';
import { bySemverDesc, conditionBlock, conditionOf, indent } from './report.js';

export interface RecommendOptions {
  version?: string;
  showOutdatedReleases?: boolean;
  accept?: string[];
}

/** The precheck's result: its findings, or why (some of) it could not run. */
export interface Precheck {
  findings: Finding[];
  error?: string;
}

interface Target {
  release: ClusterRelease;
  risks: Risk[];
  conditions: Condition[];
}

/** The checks of the options that need no cluster. */
export function checkRecommendOptions(o: RecommendOptions): void {
  if (o.version === undefined) return;
  if (o.showOutdatedReleases) throw new Error('when --version is set, --show-outdated-releases is unnecessary');
  if (!semver.valid(o.version)) throw new Error(`cannot parse SemVer target "${o.version}"`);
}

/** A target's Recommended condition when it is not True; undefined for a recommended one. */
function notRecommended(t: Target): Condition | undefined {
  if (!t.risks.length) return undefined;
  const c = t.conditions.find((k) => k.type === 'Recommended');
  if (c) return c.status === 'True' ? undefined : c;
  const names = t.risks.map((r) => r.name).sort();
  return {
    type: 'Recommended',
    status: 'Unknown',
    lastTransitionTime: '',
    reason: 'NoConditions',
    message: `Conditional update to ${t.release.version} has risks (${names.join(', ')}), but no conditions.`,
  };
}

/** Upgradeable=False is a risk of every update to a later minor (or major) version. */
function withUpgradeable(t: Target, current: semver.SemVer, upgradeable: Condition): Target {
  const v = semver.parse(t.release.version)!;
  if (v.major < current.major || (v.major === current.major && v.minor <= current.minor)) return t;
  if (t.risks.some((r) => r.message.includes(upgradeable.message))) return t;
  const docs =
    current.minor <= 13
      ? `https://docs.openshift.com/container-platform/${current.major}.${current.minor}/updating/index.html#understanding_clusteroperator_conditiontypes_updating-clusters-overview`
      : `https://docs.openshift.com/container-platform/${current.major}.${current.minor}/updating/preparing_for_updates/updating-cluster-prepare.html#cluster-upgradeable_updating-cluster-prepare`;
  const risks = [
    ...t.risks,
    { url: docs, name: 'UpgradeableFalse', message: upgradeable.message, matchingRules: [{ type: 'Always' }] },
  ] as Risk[];
  const rec = t.conditions.find((k) => k.type === 'Recommended');
  const recommended: Condition = !rec
    ? { ...upgradeable, type: 'Recommended', status: 'False' }
    : rec.status === 'True'
      ? { ...rec, status: 'False', reason: upgradeable.reason, message: upgradeable.message }
      : { ...rec, status: 'False', reason: 'MultipleReasons', message: `${upgradeable.message}\n\n${rec.message}` };
  return {
    ...t,
    risks,
    conditions: rec ? t.conditions.map((k) => (k === rec ? recommended : k)) : [...t.conditions, recommended],
  };
}

/** The targets by major and minor version: the conditional updates, and the plain ones not among them. */
function buckets(cv: ClusterVersion, warn: (line: string) => void): Map<number, Map<number, Target[]>> {
  const out = new Map<number, Map<number, Target[]>>();
  const add = (t: Target): void => {
    const v = semver.parse(t.release.version);
    if (!v) return warn(`warning: Cannot parse SemVer available update "${t.release.version}"`);
    const minors = out.get(v.major) ?? new Map<number, Target[]>();
    out.set(v.major, minors.set(v.minor, [...(minors.get(v.minor) ?? []), t]));
  };
  const conditional = cv.status.conditionalUpdates ?? [];
  for (const c of conditional) add({ release: c.release, risks: c.risks, conditions: c.conditions });
  for (const u of cv.status.availableUpdates ?? [])
    if (!conditional.some((c) => c.release.image === u.image)) add({ release: u, risks: [], conditions: [] });
  const upgradeable = conditionOf(cv, 'Upgradeable');
  const current = semver.parse(cv.status.desired?.version ?? '');
  if (upgradeable?.status === 'False') {
    if (!current)
      warn(
        `warning: Cannot inject Upgradeable=False as a conditional update risk: cannot parse SemVer version "${cv.status.desired?.version ?? ''}"\n\nReason: ${upgradeable.reason}\n  Message: ${indent(upgradeable.message)}\n`,
      );
    else
      for (const minors of out.values())
        for (const [minor, targets] of minors)
          minors.set(
            minor,
            targets.map((t) => withUpgradeable(t, current, upgradeable)),
          );
  }
  return out;
}

/**
 * The report, and for --version the failure (exit 1) when the target cannot be shown or an issue applies
 * that was not accepted; what precedes a failure is printed first, as oc prints it as it goes.
 */
export function recommendReport(
  cv: ClusterVersion,
  o: RecommendOptions,
  precheck: Precheck | undefined,
): { out: string; err: string; failure?: string } {
  let out = '';
  let err = '';
  const issues = new Set<string>();
  const accept = new Set(o.accept ?? []);
  const acceptedPrefix = (issue: string): string => (accept.has(issue) ? 'accepted ' : '');

  const failing = conditionOf(cv, 'Failing');
  if (!failing) {
    err += `${acceptedPrefix('Failing')}warning: No current Failing info, see \`oc describe clusterversion\` for more details.\n`;
    issues.add('Failing');
  } else if (failing.status !== 'False') {
    out += acceptedPrefix('Failing') + conditionBlock(failing, ':');
    issues.add('Failing');
  }
  const progressing = conditionOf(cv, 'Progressing');
  if (progressing?.status === 'True' && progressing.message) {
    out += `${acceptedPrefix('Progressing')}info: An update is in progress.  You may wish to let this update complete before requesting a new update.\n  ${indent(progressing.message)}\n\n`;
    issues.add('Progressing');
  }

  if (precheck) {
    if (precheck.error) {
      out += `Failed to check for at least some preconditions: ${precheck.error}\n`;
      issues.add('FailedToCompletePrecheck');
    }
    const happy: string[] = [];
    const accepted: string[] = [];
    const unhappy: string[] = [];
    for (const f of precheck.findings) {
      if (f.status === 'True') happy.push(`${f.type} (${f.reason})`);
      else {
        issues.add(f.acceptance);
        (accept.has(f.acceptance) ? accepted : unhappy).push(f.type);
      }
    }
    if (happy.length)
      out += `The following conditions found no cause for concern in updating this cluster to later releases: ${happy.sort().join(', ')}\n\n`;
    if (accepted.length)
      out += `The following conditions found cause for concern in updating this cluster to later releases, but were explicitly accepted via --accept: ${accepted.sort().join(', ')}\n\n`;
    if (unhappy.length) {
      out += `The following conditions found cause for concern in updating this cluster to later releases: ${unhappy.sort().join(', ')}\n\n`;
      for (const f of precheck.findings)
        if (f.status !== 'True')
          out += conditionBlock(
            { type: f.type, status: f.status, reason: f.reason, message: f.message, lastTransitionTime: '' },
            ':',
          );
    }
  }

  const retrieved = conditionOf(cv, 'RetrievedUpdates');
  if (retrieved && retrieved.status !== 'True') {
    err += `warning: Cannot refresh available updates:\n  Reason: ${retrieved.reason}\n  Message: ${indent(retrieved.message)}\n\n`;
    issues.add('CannotRetrieveUpdates');
  }
  if (cv.spec.channel) {
    out += cv.spec.upstream
      ? `Upstream update service: ${cv.spec.upstream}\n`
      : 'Upstream update service is unset, so the cluster will use an appropriate default.\n';
    const channels = cv.status.desired?.channels ?? [];
    out += channels.length
      ? `Channel: ${cv.spec.channel} (available channels: ${channels.join(', ')})\n`
      : `Channel: ${cv.spec.channel}\n`;
  }

  const targets = buckets(cv, (line) => (err += line));
  if (o.version !== undefined) {
    const one = oneTarget(targets, o.version, issues, accept, acceptedByCluster(cv));
    return { out: out + one.out, err, failure: one.failure };
  }
  if (!targets.size)
    return {
      out: `${out}No updates available. You may still upgrade to a specific release image with --to-image or wait for new updates to be available.\n`,
      err,
    };
  for (const major of [...targets.keys()].sort((a, b) => b - a)) {
    const minors = targets.get(major)!;
    for (const minor of [...minors.keys()].sort((a, b) => b - a))
      out += minorSection(major, minor, minors.get(minor)!, !!o.showOutdatedReleases);
  }
  return { out, err };
}

/** "Updates to M.m:" with the newest two (all with --show-outdated-releases). */
function minorSection(major: number, minor: number, list: Target[], outdated: boolean): string {
  let out = `\nUpdates to ${major}.${minor}:\n`;
  // Rows wait in a table that is laid out when flushed, as oc's tabwriter does; the header is queued first.
  let table: string[][] = [['  VERSION', 'ISSUES']];
  let headerQueued = true;
  const flush = (): void => {
    out += alignColumns(table, { minWidth: 14, padding: 1 });
    table = [];
  };
  let lastWasLong = false;
  const sorted = [...list].sort((a, b) => bySemverDesc(a.release.version, b.release.version));
  for (const [i, t] of sorted.entries()) {
    const c = notRecommended(t);
    if (lastWasLong || (c && !outdated)) {
      out += '\n';
      if (!c && !headerQueued) {
        table.push(['  VERSION', 'ISSUES']);
        headerQueued = true;
      }
      lastWasLong = false;
    }
    if (i === 2 && !outdated) {
      out += `And ${sorted.length - 2} older ${major}.${minor} updates you can see with '--show-outdated-releases' or '--version VERSION'.\n`;
      lastWasLong = true;
      break;
    }
    if (!c) {
      table.push([`  ${t.release.version}`, 'no known issues relevant to this cluster']);
      if (!outdated) {
        headerQueued = false;
        flush();
      }
    } else if (outdated) {
      table.push([`  ${t.release.version}`, c.reason]);
    } else {
      out += `  Version: ${t.release.version}\n  Image: ${t.release.image}\n`;
      out += `  Reason: ${c.reason}\n  Message: ${indent(c.message.trim())}\n`;
      lastWasLong = true;
    }
  }
  if (outdated) flush();
  return out;
}

/**
 * The risks the cluster's administrators accepted (spec.desiredUpdate.acceptRisks) that apply to it, by the
 * Applies conditions of status.conditionalUpdateRisks (the accept-risks feature); none without them.
 */
function acceptedByCluster(cv: ClusterVersion): string[] {
  const accepted = acceptedRiskNames(cv);
  return (cv.status.conditionalUpdateRisks ?? [])
    .filter((r) => accepted.has(r.name) && r.conditions.some((k) => k.type === 'Applies' && k.status === 'True'))
    .map((r) => r.name);
}

/**
 * --version: the context of one target; an issue not accepted is an error. A target recommended because the
 * cluster accepted the risks that apply names them as accepted issues, as oc does.
 */
function oneTarget(
  targets: Map<number, Map<number, Target[]>>,
  version: string,
  issues: Set<string>,
  accept: Set<string>,
  clusterAccepted: string[],
): { out: string; failure?: string } {
  const v = semver.parse(version)!;
  const cannot = (what: string): { out: string; failure: string } => ({
    out: '',
    failure: `${what}, so cannot display context for the requested release ${version}`,
  });
  if (!targets.size) return cannot('no updates available');
  if (!targets.has(v.major)) return cannot(`no updates to ${v.major} available`);
  const list = targets.get(v.major)!.get(v.minor);
  if (!list) return cannot(`no updates to ${v.major}.${v.minor} available`);
  const t = list.find((u) => u.release.version === version);
  if (!t)
    return {
      out: '',
      failure: `no update to ${version} available, so cannot display context for the requested release`,
    };
  let out = '\n';
  const url = t.release.url ?? '';
  const c = notRecommended(t);
  if (!c) {
    out += `Update to ${version} has no known issues relevant to this cluster.\nImage: ${t.release.image}\nRelease URL: ${url}\n`;
    if (t.conditions.some((k) => k.type === 'Recommended' && k.reason === 'AllExposedRisksAccepted'))
      for (const name of clusterAccepted) {
        issues.add(name);
        accept.add(name);
      }
  } else {
    const acceptedPrefix = accept.has('ConditionalUpdateRisk') ? 'accepted ' : '';
    out += `Update to ${version} ${c.type}=${c.status}:\nImage: ${t.release.image}\nRelease URL: ${url}\nReason: ${acceptedPrefix}${c.reason}\nMessage: ${indent(c.message)}\n`;
    issues.add('ConditionalUpdateRisk');
  }
  const unaccepted = [...issues].filter((i) => !accept.has(i)).sort();
  if (unaccepted.length)
    return {
      out,
      failure: `issues that apply to this cluster but which were not included in --accept: ${unaccepted.join(',')}`,
    };
  if (issues.size)
    out += `Update to ${version} has no known issues relevant to this cluster other than the accepted ${[...issues].sort().join(',')}.\n`;
  return { out };
}
