// A ClusterVersion and its conditions as the tests of an update's decisions write them: 4.15.9 running in
// stable-4.16, 4.16.5 recommended and 4.16.6 a conditional update exposed to OnAWS (test/unit/agent/update/
// and test/unit/cli/adm/: request, report).
import type { ClusterVersion } from '../../src/agent/clusterVersion.js';
import type { Condition } from '../../src/agent/conditions.js';

/** The release image of version `v`, pinned by a digest made from the version. */
export const img = (v: string): string =>
  `quay.example/ocp/release@sha256:${Buffer.from(v).toString('hex').padEnd(64, '0')}`;
export const rel = (v: string) => ({ version: v, image: img(v) });
export const cond = (type: string, status: string, reason = '', message = ''): Condition => ({
  type,
  status: status as Condition['status'],
  lastTransitionTime: '2026-01-01T00:00:00Z',
  reason,
  message,
});

export function clusterVersion(
  desiredUpdate?: ClusterVersion['spec']['desiredUpdate'],
  status: Partial<ClusterVersion['status']> = {},
): ClusterVersion {
  return {
    metadata: { generation: 2 },
    spec: { clusterID: '00000000-0000-4000-8000-000000000000', channel: 'stable-4.16', desiredUpdate },
    status: {
      desired: rel('4.15.9'),
      availableUpdates: [rel('4.16.5')],
      conditionalUpdates: [
        {
          release: rel('4.16.6'),
          risks: [{ name: 'OnAWS', url: 'https://x/1', message: 'AWS hurts.', matchingRules: [{ type: 'Always' }] }],
          conditions: [cond('Recommended', 'False', 'OnAWS', 'AWS hurts. https://x/1')],
        },
      ],
      ...status,
    },
  };
}
