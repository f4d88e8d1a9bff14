// The ClusterOperator gate (src/agent/update/gate.ts) with its reasons and timings: a decision of an update
// that needs no cluster. The others are beside it (resolve, preconditions, adminAcks, verify).
import { describe, expect, it } from 'vitest';
import type { Condition } from '../../../../src/agent/conditions.js';
import { FAIL_AFTER_MS, gateOperators, operatorReason } from '../../../../src/agent/update/gate.js';
import { cond } from '../../../support/clusterVersions.js';

describe('the ClusterOperator gate (step 9)', () => {
  const expected = { name: 'etcd', versions: [{ name: 'operator', version: '4.16.5' }] };
  const co = (versions: Array<{ name: string; version: string }>, ...conditions: Condition[]) => ({
    metadata: { name: 'etcd' },
    status: { versions, conditions },
  });
  const at = (v: string) => [{ name: 'operator', version: v }];
  const healthy = [cond('Available', 'True'), cond('Degraded', 'False')];

  it('names the reason in the order the CVO checks them', () => {
    expect(operatorReason(expected, co(at('4.16.5'), ...healthy))).toBeUndefined();
    expect(operatorReason(expected, undefined)).toBe('ClusterOperatorNotAvailable');
    expect(operatorReason(expected, co(at('4.16.5'), cond('Available', 'True')))).toBe('ClusterOperatorDegraded'); // missing Degraded counts as degraded
    expect(operatorReason(expected, co(at('4.15.9'), cond('Available', 'True'), cond('Degraded', 'True')))).toBe(
      'ClusterOperatorDegraded',
    );
    expect(operatorReason(expected, co(at('4.16.5'), cond('Available', 'False'), cond('Degraded', 'False')))).toBe(
      'ClusterOperatorNotAvailable',
    );
    expect(operatorReason(expected, co([], ...healthy))).toBe('ClusterOperatorNoVersions');
    expect(operatorReason(expected, co(at('4.15.9'), ...healthy))).toBe('ClusterOperatorUpdating');
  });

  it('waits, then fails a degraded operator after 40 minutes, and calls a slow one slow after 30', () => {
    const degraded = [co(at('4.15.9'), cond('Available', 'True'), cond('Degraded', 'True'))];
    const early = gateOperators([expected], degraded, FAIL_AFTER_MS - 1, '4.16.5', 100, 400);
    expect(early).toMatchObject({
      done: false,
      failing: { status: 'False' },
      progressing: { message: 'Working towards 4.16.5: 100 of 400 done (25% complete), waiting on etcd' },
    });
    const late = gateOperators([expected], degraded, FAIL_AFTER_MS, '4.16.5', 100, 400);
    expect(late.failing).toEqual({
      status: 'True',
      reason: 'ClusterOperatorDegraded',
      message: 'Cluster operator etcd is degraded',
    });
    expect(late.progressing.message).toBe(
      'Unable to apply 4.16.5: wait has exceeded 40 minutes for these operators: etcd',
    );

    const updating = [co(at('4.15.9'), ...healthy)];
    const slow = gateOperators([expected], updating, 31 * 60_000, '4.16.5', 100, 400);
    expect(slow.failing.status).toBe('False'); // slow is not failing
    expect(slow.progressing.message).toBe(
      'Working towards 4.16.5: 100 of 400 done (25% complete), waiting on etcd over 30 minutes which is longer than expected',
    );
    const mco = { name: 'machine-config', versions: expected.versions };
    const mcoStatus = [{ ...updating[0]!, metadata: { name: 'machine-config' } }];
    expect(gateOperators([mco], mcoStatus, 60 * 60_000, '4.16.5', 1, 2).progressing.message).toBe(
      'Working towards 4.16.5: 1 of 2 done (50% complete), waiting on machine-config',
    );
    expect(gateOperators([mco], mcoStatus, 90 * 60_000, '4.16.5', 1, 2).progressing.message).toBe(
      'Working towards 4.16.5: 1 of 2 done (50% complete), waiting on machine-config over 90 minutes which is longer than expected',
    );
    expect(gateOperators([expected], [co(at('4.16.5'), ...healthy)], 0, '4.16.5', 400, 400).done).toBe(true);
  });

  it('joins several failing operators', () => {
    const two = [
      {
        metadata: { name: 'etcd' },
        status: { versions: at('4.15.9'), conditions: [cond('Available', 'True'), cond('Degraded', 'True')] },
      },
      {
        metadata: { name: 'dns' },
        status: { versions: at('4.15.9'), conditions: [cond('Available', 'True'), cond('Degraded', 'True')] },
      },
    ];
    const v = gateOperators([expected, { ...expected, name: 'dns' }], two, FAIL_AFTER_MS, '4.16.5', 1, 2);
    expect(v.failing).toEqual({
      status: 'True',
      reason: 'ClusterOperatorsDegraded',
      message: 'Cluster operators etcd, dns are degraded',
    });
    const mixed = [
      two[0]!,
      {
        metadata: { name: 'dns' },
        status: { versions: at('4.15.9'), conditions: [cond('Available', 'False'), cond('Degraded', 'False')] },
      },
    ];
    expect(
      gateOperators([expected, { ...expected, name: 'dns' }], mixed, FAIL_AFTER_MS, '4.16.5', 1, 2).failing,
    ).toEqual({
      status: 'True',
      reason: 'MultipleErrors',
      message:
        'Multiple errors are preventing progress:\n* Cluster operator etcd is degraded\n* Cluster operator dns is not available',
    });
  });
});
