// Administrator acknowledgements not given, as risks of the minor and major updates, as the newest
// cluster-version-operator's pkg/risk/adminack source makes them: each gate of openshift-config-managed/
// admin-gates for the current minor (`ack-<major>.<minor>-<what>`) whose key openshift-config/admin-acks
// does not set to "true" is a risk `AdminAck-<gate>` whose message is the gate's text; a malformed gate
// or an empty one is a risk saying so; a ConfigMap that cannot be read is `AdminAckUnknown`.
import semver from 'semver';
import { RESOURCES } from '../../cluster/resources.js';
import type { ClusterApi } from '../../cluster/api.js';
import { ADMIN_ACKS, ADMIN_GATES } from '../update/adminAcks.js';
import {
  forVersions,
  majorAndMinorUpdates,
  PRODUCT_DOCS,
  unknownRisk,
  type RiskSource,
  type SourceRisk,
} from './source.js';
import { ADMIN_ACK_SOURCE } from './names.js';

const GATE = /^ack-([4-5][.][0-9]{1,})-[^-]/;
/** Where the CVO points an unacknowledged gate, its text being expected to carry the real link. */
const GATE_URL = 'https://example.com/FIXME-look-for-a-URI-in-the-message';

interface ConfigMap {
  data?: Record<string, string>;
}

export function adminAckSource(api: ClusterApi): RiskSource {
  return {
    name: ADMIN_ACK_SOURCE,
    async risks(versions, cv) {
      const current = semver.parse(cv.status.desired?.version);
      if (!current)
        return unknownRisk(
          ADMIN_ACK_SOURCE,
          `Failed to parse cluster version to check admin-acks: ${JSON.stringify(cv.status.desired?.version ?? '')} is not SemVer`,
          PRODUCT_DOCS,
          versions,
        );
      const read = async (ref: { namespace: string; name: string }): Promise<ConfigMap | string> =>
        api
          .get<ConfigMap>(RESOURCES.configMaps, ref)
          .catch(
            (err: unknown) =>
              `Failed to retrieve ConfigMap ${ref.name} from namespace ${ref.namespace}: ${(err as Error).message}`,
          );
      const [gates, acks] = await Promise.all([read(ADMIN_GATES), read(ADMIN_ACKS)]);
      if (typeof gates === 'string' || typeof acks === 'string') {
        const failed = typeof gates === 'string' ? gates : (acks as string);
        return unknownRisk(ADMIN_ACK_SOURCE, failed, PRODUCT_DOCS, majorAndMinorUpdates(current, versions));
      }
      const risks = Object.entries(gates.data ?? {})
        .flatMap(([gate, text]) => gateRisk(gate, text, current, acks.data ?? {}))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      return { risks, versions: forVersions(risks, majorAndMinorUpdates(current, versions)) };
    },
  };
}

/** The risk of one gate, or none when it is for another minor or acknowledged (pkg/risk/adminack checkAdminGate). */
function gateRisk(gate: string, text: string, current: semver.SemVer, acks: Record<string, string>): SourceRisk[] {
  const name = `${ADMIN_ACK_SOURCE}-${gate}`;
  const risk = (message: string, url = PRODUCT_DOCS): SourceRisk[] => [
    { name, message, url, matchingRules: [{ type: 'Always' }] },
  ];
  const m = GATE.exec(gate);
  if (!m)
    return risk(
      `${ADMIN_GATES.name} configmap gate ${JSON.stringify(gate)} is invalid: ${ADMIN_GATES.name} configmap gate name ${gate} has invalid format; must comply with ${JSON.stringify(GATE.source)}`,
    );
  const [major, minor] = m[1]!.split('.').map(Number);
  if (major !== current.major || minor !== current.minor) return [];
  if (text === '') return risk(`${ADMIN_GATES.name} configmap gate ${gate} must contain a non-empty value.`);
  return acks[gate] === 'true' ? [] : risk(text, GATE_URL);
}
