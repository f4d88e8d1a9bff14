// The administrator acknowledgements an update waits for (src/agent/update/adminAcks.ts: admin-gates,
// admin-acks), and how they join the Upgradeable condition: decisions of an update that need no cluster.
// The others are beside it (resolve, preconditions, gate, verify).
import { describe, expect, it } from 'vitest';
import { adminAckHold } from '../../../../src/agent/update/adminAcks.js';
import { upgradeableFrom } from '../../../../src/agent/update/preconditions.js';
import { cond } from '../../../support/clusterVersions.js';

describe('administrator acknowledgements (admin-gates, admin-acks)', () => {
  const gate = 'ack-4.15-kube-1.29-api-removals-in-4.16';
  it('holds minor updates back for a gate of the current minor version until it is acknowledged with "true"', () => {
    expect(adminAckHold('4.15.9', { [gate]: 'APIs go away.' }, {})).toEqual({
      reason: 'AdminAckRequired',
      message: 'APIs go away.',
    });
    expect(adminAckHold('4.15.9', { [gate]: 'APIs go away.' }, { [gate]: 'yes' })?.reason).toBe('AdminAckRequired');
    expect(adminAckHold('4.15.9', { [gate]: 'APIs go away.' }, { [gate]: 'true' })).toBeUndefined();
    expect(adminAckHold('4.16.0', { [gate]: 'APIs go away.' }, {})).toBeUndefined();
  });
  it('names a missing ConfigMap, a malformed gate and an empty description, and joins several reasons', () => {
    expect(adminAckHold('4.15.9', undefined, {})?.reason).toBe('UnableToAccessAdminGatesConfigMap');
    expect(adminAckHold('4.15.9', {}, undefined)?.reason).toBe('UnableToAccessAdminAcksConfigMap');
    expect(adminAckHold('4.15.9', { 'ack-4.15': 'x' }, {})?.reason).toBe('AdminAckConfigMapGateNameError');
    expect(adminAckHold('4.15.9', { [gate]: '' }, {})?.reason).toBe('AdminAckConfigMapGateValueError');
    expect(adminAckHold('4.15.9', { [gate]: 'b', 'ack-4.15-other-gate': 'a', 'bad-gate': 'x' }, {})).toMatchObject({
      reason: 'MultipleReasons',
    });
    const both = upgradeableFrom(
      [{ metadata: { name: 'etcd' }, status: { conditions: [cond('Upgradeable', 'False', 'R', 'etcd says no')] } }],
      'now',
      { reason: 'AdminAckRequired', message: 'ack it' },
    );
    expect(both).toMatchObject({ status: 'False', reason: 'MultipleReasons' });
    expect(both.message).toContain('ack it\nCluster operator etcd should not be upgraded');
  });
});
