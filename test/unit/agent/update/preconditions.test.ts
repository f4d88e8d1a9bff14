// The preconditions of an update and the Upgradeable condition (src/agent/update/preconditions.ts): decisions
// of an update that need no cluster. The others are beside it (resolve, adminAcks, gate, verify).
import { describe, expect, it } from 'vitest';
import type { Condition } from '../../../../src/agent/conditions.js';
import { preconditions, upgradeableFrom } from '../../../../src/agent/update/preconditions.js';
import type { Target } from '../../../../src/agent/update/resolve.js';
import { cond, rel } from '../../../support/clusterVersions.js';

describe('preconditions (step 5)', () => {
  const target = (v: string, extra: Partial<Target> = {}): Target => ({
    release: rel(v),
    force: false,
    explicit: false,
    ...extra,
  });
  const names = (ps: ReturnType<typeof preconditions>): string[] =>
    ps.map((p) => `${p.name}:${p.blocking ? 'blocking' : 'warning'}`);

  it('blocks a rollback, a hop over a minor version, and a minor update while not Upgradeable', () => {
    expect(preconditions('4.15.9', target('4.16.5'), '4.16.5', cond('Upgradeable', 'True'))).toEqual([]);
    expect(names(preconditions('4.16.5', target('4.16.3'), '4.16.3', undefined))).toEqual([
      'ClusterVersionRollback:blocking',
    ]);
    expect(names(preconditions('4.15.9', target('4.17.1'), '4.17.1', undefined))).toEqual(['MinorVersionHop:blocking']);
    const notUpgradeable = cond('Upgradeable', 'False', 'AdminAckRequired', 'Kubernetes 1.29 removes APIs');
    const blocked = preconditions('4.15.9', target('4.16.5'), '4.16.5', notUpgradeable);
    expect(blocked).toEqual([
      {
        name: 'ClusterVersionUpgradeable',
        reason: 'AdminAckRequired',
        message: 'Kubernetes 1.29 removes APIs',
        blocking: true,
      },
    ]);
    // A z-stream update is not a minor update: Upgradeable=False does not block it.
    expect(preconditions('4.16.3', target('4.16.5'), '4.16.5', notUpgradeable)).toEqual([]);
  });

  it('warns, without blocking, about a target that is not recommended or not in the recommendations', () => {
    expect(
      names(
        preconditions(
          '4.15.9',
          target('4.16.6', { recommended: cond('Recommended', 'False', 'OnAWS', 'AWS hurts.') }),
          '4.16.6',
          undefined,
        ),
      ),
    ).toEqual(['RecommendedUpdate:warning']);
    expect(names(preconditions('4.15.9', target('4.16.5', { explicit: true }), '4.16.5', undefined))).toEqual([
      'RecommendedUpdate:warning',
    ]);
  });

  it('derives Upgradeable from the ClusterOperators', () => {
    const co = (name: string, ...conditions: Condition[]) => ({ metadata: { name }, status: { conditions } });
    expect(upgradeableFrom([co('etcd', cond('Upgradeable', 'True'))], 'now').status).toBe('True');
    const one = upgradeableFrom(
      [co('etcd', cond('Upgradeable', 'False', 'AdminAckRequired', 'ack it')), co('dns')],
      'now',
    );
    expect(one).toMatchObject({
      status: 'False',
      reason: 'AdminAckRequired',
      message: 'Cluster operator etcd should not be upgraded between minor versions: ack it',
    });
    const two = upgradeableFrom(
      [co('etcd', cond('Upgradeable', 'False', 'A', 'a')), co('dns', cond('Upgradeable', 'False', 'B', 'b'))],
      'now',
    );
    expect(two).toMatchObject({ status: 'False', reason: 'ClusterOperatorsNotUpgradeable' });
  });
});
