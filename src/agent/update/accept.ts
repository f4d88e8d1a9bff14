// Whether the agent takes an update, before it touches anything (update-workflow.md §A steps 1 and 5):
// the desired update resolved only from the recommendations (or a conditional update whose risks are
// all accepted), and the preconditions — no rollback, no hop over a minor version, Upgradeable for a
// minor update (blocking), a recommended target (a warning).
import semver from 'semver';
import type { Release } from '../cincinnati.js';
import type { Condition } from '../status.js';
import type { ClusterVersion } from '../clusterVersion.js';
import type { ClusterOperatorObject } from './gate.js';

export interface Target {
  release: Release;
  force: boolean;
  /** The conditional update it came from, when it is one: its Recommended condition decides a warning. */
  recommended?: Condition;
  /** Given by image with no recommendation behind it. */
  explicit: boolean;
}

export type Resolution = { kind: 'none' } | { kind: 'target'; target: Target } | { kind: 'invalid'; message: string };

const sameRelease = (a: { version?: string; image?: string }, b: { version?: string; image?: string } | undefined): boolean =>
  !!b && (!a.version || a.version === b.version) && (!a.image || a.image === b.image);

/** Step 1: what spec.desiredUpdate asks for, resolved against status; `none` when the cluster is there already. */
export function resolveDesired(cv: ClusterVersion): Resolution {
  const d = cv.spec.desiredUpdate;
  if (!d || (!d.version && !d.image) || sameRelease(d, cv.status.desired)) return { kind: 'none' };
  const force = d.force === true;
  const available = cv.status.availableUpdates ?? [];
  const conditional = cv.status.conditionalUpdates ?? [];
  const matches = (r: Release): boolean => (d.image ? r.image === d.image : r.version === d.version) && (!d.version || r.version === d.version);
  const listed = available.find(matches);
  if (listed) return { kind: 'target', target: { release: listed, force, explicit: false } };
  const c = conditional.find((u) => matches(u.release));
  if (c) {
    const accepted = new Set((d.acceptRisks ?? []).map((r) => r.name));
    const rec = c.conditions.find((k) => k.type === 'Recommended');
    // Recommended=True here means every applying risk is accepted; the poll may not have caught up with a
    // new acceptRisks yet, so accepting every risk of the update counts too.
    if (rec?.status === 'True' || c.risks.every((r) => accepted.has(r.name))) {
      return { kind: 'target', target: { release: c.release, force, recommended: rec, explicit: false } };
    }
    return { kind: 'invalid', message: `spec.desiredUpdate.${d.image ? 'image' : 'version'}: Invalid value: "${d.image ?? d.version}": the update is not recommended for this cluster (${rec?.reason ?? 'Unknown'}); accept its risks (${c.risks.map((r) => r.name).join(', ')}) in spec.desiredUpdate.acceptRisks to take it` };
  }
  if (d.image) return { kind: 'target', target: { release: { version: d.version ?? '', image: d.image }, force, explicit: true } };
  // A version the cluster ran before (a rollback, which the preconditions then refuse unless forced).
  const ran = cv.status.history?.find((h) => h.version === d.version && h.state === 'Completed');
  if (ran) return { kind: 'target', target: { release: { version: ran.version, image: ran.image }, force, explicit: true } };
  return { kind: 'invalid', message: `spec.desiredUpdate.version: Invalid value: "${d.version}": when image is empty the update must be a previous version or an available update` };
}

export interface Precondition {
  name: string;
  reason: string;
  message: string;
  /** A blocking failure stops the update unless forced; a warning is only recorded. */
  blocking: boolean;
}

export const describePrecondition = (p: Precondition): string => `Precondition "${p.name}" failed because of "${p.reason}": ${p.message}`;

/** Step 5, for an update from `current` to the payload's version. */
export function preconditions(current: string, target: Target, version: string, upgradeable: Condition | undefined): Precondition[] {
  const out: Precondition[] = [];
  const from = semver.parse(current);
  const to = semver.parse(version);
  if (from && to) {
    if (semver.lt(to, from)) {
      out.push({ name: 'ClusterVersionRollback', reason: 'Downgrade', message: `the update from ${current} to ${version} is a rollback, which is not supported`, blocking: true });
    }
    const minorUpdate = to.major !== from.major || to.minor !== from.minor;
    if (to.major !== from.major || to.minor > from.minor + 1) {
      out.push({ name: 'MinorVersionHop', reason: 'MinorVersionHop', message: `the update from ${current} to ${version} skips a minor version; update to ${from.major}.${from.minor + 1} first`, blocking: true });
    }
    if (minorUpdate && semver.gt(to, from) && upgradeable?.status === 'False') {
      out.push({ name: 'ClusterVersionUpgradeable', reason: upgradeable.reason || 'NotUpgradeable', message: upgradeable.message, blocking: true });
    }
  }
  if (target.recommended && target.recommended.status !== 'True') {
    out.push({ name: 'RecommendedUpdate', reason: target.recommended.reason, message: target.recommended.message, blocking: false });
  } else if (target.explicit) {
    out.push({ name: 'RecommendedUpdate', reason: 'UnknownUpdate', message: `${version} is not in the update recommendations of this cluster`, blocking: false });
  }
  return out;
}

/** The cluster's Upgradeable condition, from the ClusterOperators that say they must not take a minor update. */
export function upgradeableFrom(operators: ClusterOperatorObject[], at: string): Condition {
  const blocked = operators
    .map((co) => ({ name: co.metadata.name, c: co.status?.conditions?.find((k) => k.type === 'Upgradeable' && k.status === 'False') }))
    .filter((x): x is { name: string; c: Condition } => !!x.c);
  if (blocked.length === 0) return { type: 'Upgradeable', status: 'True', lastTransitionTime: at, reason: '', message: '' };
  if (blocked.length === 1) {
    const { name, c } = blocked[0]!;
    return { type: 'Upgradeable', status: 'False', lastTransitionTime: at, reason: c.reason || 'ClusterOperatorNotUpgradeable', message: `Cluster operator ${name} should not be upgraded between minor versions: ${c.message}` };
  }
  return {
    type: 'Upgradeable',
    status: 'False',
    lastTransitionTime: at,
    reason: 'ClusterOperatorsNotUpgradeable',
    message: `Multiple cluster operators should not be upgraded between minor versions:\n${blocked.map(({ name, c }) => `* Cluster operator ${name} should not be upgraded between minor versions: ${c.reason}: ${c.message}`).join('\n')}`,
  };
}
