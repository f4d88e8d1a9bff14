// The preconditions of an update, as the cluster-version-operator checks them (pkg/payload/precondition/
// clusterversion): no rollback, no hop over a minor version, Upgradeable not False for a minor update
// (blocking unless forced), and a recommended target (a warning only). Upgradeable comes from the
// ClusterOperators that say they must not take a minor update and from the administrator acknowledgements.
import semver from 'semver';
import type { Condition } from '../conditions.js';
import type { ClusterOperatorObject } from './gate.js';
import type { Hold } from './adminAcks.js';
import type { Target } from './resolve.js';

export interface Precondition {
  name: string;
  reason: string;
  message: string;
  /** A blocking failure stops the update unless forced; a warning is only recorded. */
  blocking: boolean;
}

export const describePrecondition = (p: Precondition): string =>
  `Precondition "${p.name}" failed because of "${p.reason}": ${p.message}`;

/** Step 5, for an update from `current` to the payload's version. */
export function preconditions(
  current: string,
  target: Target,
  version: string,
  upgradeable: Condition | undefined,
): Precondition[] {
  const out: Precondition[] = [];
  const from = semver.parse(current);
  const to = semver.parse(version);
  if (from && to) {
    if (semver.lt(to, from)) {
      out.push({
        name: 'ClusterVersionRollback',
        reason: 'Downgrade',
        message: `the update from ${current} to ${version} is a rollback, which is not supported`,
        blocking: true,
      });
    }
    const minorUpdate = to.major !== from.major || to.minor !== from.minor;
    if (to.major !== from.major || to.minor > from.minor + 1) {
      out.push({
        name: 'MinorVersionHop',
        reason: 'MinorVersionHop',
        message: `the update from ${current} to ${version} skips a minor version; update to ${from.major}.${from.minor + 1} first`,
        blocking: true,
      });
    }
    if (minorUpdate && semver.gt(to, from) && upgradeable?.status === 'False') {
      out.push({
        name: 'ClusterVersionUpgradeable',
        reason: upgradeable.reason || 'NotUpgradeable',
        message: upgradeable.message,
        blocking: true,
      });
    }
  }
  if (target.recommended && target.recommended.status !== 'True') {
    out.push({
      name: 'RecommendedUpdate',
      reason: target.recommended.reason,
      message: target.recommended.message,
      blocking: false,
    });
  } else if (target.explicit) {
    out.push({
      name: 'RecommendedUpdate',
      reason: 'UnknownUpdate',
      message: `${version} is not in the update recommendations of this cluster`,
      blocking: false,
    });
  }
  return out;
}

/**
 * The cluster's Upgradeable condition: False when ClusterOperators say they must not take a minor update,
 * or when `adminAck` (adminAcks.ts) holds minor updates back; several holds are MultipleReasons.
 */
export function upgradeableFrom(operators: ClusterOperatorObject[], at: string, adminAck?: Hold): Condition {
  const holds = [adminAck, operatorsHold(operators)].filter((h): h is Hold => !!h);
  const base = { type: 'Upgradeable', lastTransitionTime: at };
  if (holds.length === 0) return { ...base, status: 'True', reason: '', message: '' };
  if (holds.length === 1) return { ...base, status: 'False', ...holds[0]! };
  return { ...base, status: 'False', reason: 'MultipleReasons', message: holds.map((h) => h.message).join('\n') };
}

/** What the ClusterOperators that say they must not take a minor update hold back, if any. */
function operatorsHold(operators: ClusterOperatorObject[]): Hold | undefined {
  const blocked = operators
    .map((co) => ({
      name: co.metadata.name,
      c: co.status?.conditions?.find((k) => k.type === 'Upgradeable' && k.status === 'False'),
    }))
    .filter((x): x is { name: string; c: Condition } => !!x.c);
  if (blocked.length === 0) return undefined;
  if (blocked.length === 1) {
    const { name, c } = blocked[0]!;
    return {
      reason: c.reason || 'ClusterOperatorNotUpgradeable',
      message: `Cluster operator ${name} should not be upgraded between minor versions: ${c.message}`,
    };
  }
  return {
    reason: 'ClusterOperatorsNotUpgradeable',
    message: `Multiple cluster operators should not be upgraded between minor versions:\n${blocked
      .map(
        ({ name, c }) =>
          `* Cluster operator ${name} should not be upgraded between minor versions: ${c.reason}: ${c.message}`,
      )
      .join('\n')}`,
  };
}
