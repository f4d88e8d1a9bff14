// The agent's rules on plain values: whether the accept-risks feature is on (src/agent/acceptRisks.ts),
// read from the cluster's FeatureGate. The agent's other rules are in cincinnati.test.ts,
// recommendations.test.ts and risks.test.ts.
import { describe, expect, it } from 'vitest';
import { acceptRisksOn } from '../../../src/agent/acceptRisks.js';
import { ClusterApiError, type ClusterApi } from '../../../src/cluster/api.js';

describe('agent rules', () => {
  it('reads the accept-risks gate from the FeatureGate for the running version; off without one it may read', async () => {
    const cv = { metadata: {}, spec: { clusterID: 'x' }, status: { desired: { version: '4.16.3', image: 'i' } } };
    const gates = (status: number | undefined, enabled: string[] = []) =>
      ({
        get: async () => {
          if (status) throw new ClusterApiError(status, 'Forbidden', 'no');
          return { status: { featureGates: [{ version: '4.16.3', enabled: enabled.map((name) => ({ name })) }] } };
        },
      }) as unknown as ClusterApi;
    expect(await acceptRisksOn(gates(undefined, ['ClusterUpdateAcceptRisks']), cv, 'auto')).toBe(true);
    expect(await acceptRisksOn(gates(undefined, ['Other']), cv, 'auto')).toBe(false);
    expect(await acceptRisksOn(gates(404), cv, 'auto')).toBe(false);
    expect(await acceptRisksOn(gates(403), cv, 'auto')).toBe(false);
    expect(await acceptRisksOn(gates(403), cv, 'enabled')).toBe(true);
    expect(await acceptRisksOn(gates(undefined, ['ClusterUpdateAcceptRisks']), cv, 'disabled')).toBe(false);
    await expect(acceptRisksOn(gates(500), cv, 'auto')).rejects.toThrow('no');
  });
});
