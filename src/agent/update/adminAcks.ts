// Administrator acknowledgements, as the cluster-version-operator checks them (pkg/cvo/upgradeable.go):
// ConfigMap openshift-config-managed/admin-gates holds gates `ack-<major>.<minor>-<what>` whose value
// says what the administrator must consider; a gate of the cluster's current minor version holds minor
// updates back (Upgradeable=False, AdminAckRequired) until openshift-config/admin-acks has the same key
// set to "true". A missing ConfigMap or a malformed gate holds them back too, with its own reason.
import semver from 'semver';

export const ADMIN_GATES = { namespace: 'openshift-config-managed', name: 'admin-gates' } as const;
export const ADMIN_ACKS = { namespace: 'openshift-config', name: 'admin-acks' } as const;

const GATE_NAME = /^ack-[4-5][.]([0-9]{1,})-[^-]/;

/** Why minor updates are held back, or undefined when every gate of the current version is acknowledged. */
export interface Hold {
  reason: string;
  message: string;
}

/**
 * The admin-ack check of a cluster at `current`; `gates` and `acks` are the ConfigMaps' data, or
 * undefined when the ConfigMap does not exist. Messages of one reason are sorted and joined; several
 * reasons are MultipleReasons.
 */
export function adminAckHold(
  current: string,
  gates: Record<string, string> | undefined,
  acks: Record<string, string> | undefined,
): Hold | undefined {
  if (!gates)
    return { reason: 'UnableToAccessAdminGatesConfigMap', message: `${ADMIN_GATES.name} configmap not found.` };
  if (!acks) return { reason: 'UnableToAccessAdminAcksConfigMap', message: `${ADMIN_ACKS.name} configmap not found.` };
  const version = semver.parse(current);
  if (!version) return undefined;
  const byReason = new Map<string, string[]>();
  const add = (reason: string, message: string): void =>
    void byReason.set(reason, [...(byReason.get(reason) ?? []), message]);
  for (const [gate, description] of Object.entries(gates)) {
    const m = GATE_NAME.exec(gate);
    if (!m) {
      add(
        'AdminAckConfigMapGateNameError',
        `${ADMIN_GATES.name} configmap gate name ${gate} has invalid format; must comply with "${GATE_NAME.source}".`,
      );
      continue;
    }
    const gateVersion = /^ack-(\d+)[.](\d+)/.exec(gate)!;
    if (Number(gateVersion[1]) !== version.major || Number(gateVersion[2]) !== version.minor) continue;
    if (!description) {
      add(
        'AdminAckConfigMapGateValueError',
        `${ADMIN_GATES.name} configmap gate ${gate} must contain a non-empty value.`,
      );
      continue;
    }
    if (acks[gate] !== 'true') add('AdminAckRequired', description);
  }
  if (byReason.size === 0) return undefined;
  const joined = [...byReason].map(([reason, messages]) => ({ reason, message: messages.sort().join(' ') }));
  if (joined.length === 1) return joined[0];
  return {
    reason: 'MultipleReasons',
    message: joined
      .map((j) => j.message)
      .sort()
      .join(' '),
  };
}
