// The admin-ack and ClusterOperator Upgradeable sources, as pkg/risk/adminack and pkg/risk/upgradeable
// make their risks, against a cluster given as the objects an API would answer.
import { describe, expect, it } from 'vitest';
import type { ClusterApi } from '../../../../src/cluster/api.js';
import { ClusterApiError } from '../../../../src/cluster/api.js';
import type { ClusterVersion } from '../../../../src/agent/clusterVersion.js';
import { adminAckSource } from '../../../../src/agent/riskSources/adminAck.js';
import { upgradeableSource } from '../../../../src/agent/riskSources/upgradeable.js';

const cvAt = (version: string) => ({ status: { desired: { version, image: 'i' } } }) as unknown as ClusterVersion;
const VERSIONS = ['4.16.9', '4.17.0', '5.0.0', 'not-semver'];

/** Answers get and list from fixed objects; a missing one is a 404, as the API server says it. */
function apiOf(objects: Record<string, unknown>, operators: unknown[] | Error = []): ClusterApi {
  return {
    get: async (_r: unknown, key: { namespace?: string; name: string }) => {
      const o = objects[`${key.namespace}/${key.name}`];
      if (!o) throw new ClusterApiError(404, 'NotFound', `configmaps "${key.name}" not found`);
      return o;
    },
    list: async () => {
      if (operators instanceof Error) throw operators;
      return { items: operators };
    },
  } as unknown as ClusterApi;
}

describe('the admin-ack source', () => {
  const gates = {
    'ack-4.16-kube-1.30-api-removals-in-4.17': 'Removed APIs: see https://access.redhat.com/articles/x',
    'ack-4.16-empty': '',
    'ack-4.15-old': 'an older minor',
    'bad-gate': 'x',
  };
  const cm = (data: Record<string, string>) => ({ data });

  it('a gate of the current minor not acknowledged, an empty one and a malformed one are risks of minor updates only', async () => {
    const api = apiOf({
      'openshift-config-managed/admin-gates': cm(gates),
      'openshift-config/admin-acks': cm({}),
    });
    const a = await adminAckSource(api).risks(VERSIONS, cvAt('4.16.3'));
    expect(a.risks.map((r) => [r.name, r.message])).toEqual([
      ['AdminAck-ack-4.16-empty', 'admin-gates configmap gate ack-4.16-empty must contain a non-empty value.'],
      ['AdminAck-ack-4.16-kube-1.30-api-removals-in-4.17', gates['ack-4.16-kube-1.30-api-removals-in-4.17']],
      [
        'AdminAck-bad-gate',
        'admin-gates configmap gate "bad-gate" is invalid: admin-gates configmap gate name bad-gate has invalid format; must comply with "^ack-([4-5][.][0-9]{1,})-[^-]"',
      ],
    ]);
    expect(a.versions.get('AdminAck-ack-4.16-empty')).toEqual(['4.17.0', '5.0.0', 'not-semver']);
  });

  it('acknowledged gates are no risk; a ConfigMap missing is AdminAckUnknown, reported', async () => {
    const acked = apiOf({
      'openshift-config-managed/admin-gates': cm({ 'ack-4.16-a': 'text' }),
      'openshift-config/admin-acks': cm({ 'ack-4.16-a': 'true' }),
    });
    expect((await adminAckSource(acked).risks(VERSIONS, cvAt('4.16.3'))).risks).toEqual([]);
    const missing = await adminAckSource(apiOf({})).risks(VERSIONS, cvAt('4.16.3'));
    expect(missing.risks.map((r) => r.name)).toEqual(['AdminAckUnknown']);
    expect(missing.problem).toMatch(
      /^Failed to retrieve ConfigMap admin-gates from namespace openshift-config-managed: /,
    );
  });
});

describe('the ClusterOperator Upgradeable source', () => {
  const operator = (name: string, status: string, message = `${name} says no`) => ({
    metadata: { name },
    status: { conditions: [{ type: 'Upgradeable', status, message }] },
  });

  it('one risk per operator that says Upgradeable=False, in name order, for minor and major updates', async () => {
    const api = apiOf({}, [operator('network', 'False'), operator('dns', 'True'), operator('authentication', 'False')]);
    const a = await upgradeableSource(api).risks(VERSIONS, cvAt('4.16.3'));
    expect(a.risks.map((r) => [r.name, r.message])).toEqual([
      ['ClusterOperatorUpgradeable-authentication', 'authentication says no'],
      ['ClusterOperatorUpgradeable-network', 'network says no'],
    ]);
    expect(a.risks[0]!.url).toContain('/openshift_container_platform/4.16/html/updating_clusters/');
    expect(a.versions.get('ClusterOperatorUpgradeable-network')).toEqual(['4.17.0', '5.0.0', 'not-semver']);
  });

  it('operators that cannot be listed, or a current version that is not SemVer: ClusterOperatorUpgradeableUnknown', async () => {
    const down = await upgradeableSource(apiOf({}, new Error('connection refused'))).risks(VERSIONS, cvAt('4.16.3'));
    expect(down.risks.map((r) => r.name)).toEqual(['ClusterOperatorUpgradeableUnknown']);
    expect(down.problem).toBe(
      'Failed to retrieve ClusterOperators to check Upgradeable conditions: connection refused',
    );
    const odd = await upgradeableSource(apiOf({})).risks(VERSIONS, cvAt('four'));
    expect(odd.risks[0]!.message).toMatch(/^Failed to parse cluster version to check Upgradeable conditions/);
    expect(odd.versions.get('ClusterOperatorUpgradeableUnknown')).toEqual(VERSIONS);
  });
});
