// The graph the agent tests poll: 4.16.3 running in stable-4.16, z-streams with risks of every kind (a
// PromQL rule that matches on AWS, one that does not, Always, and one whose query answers two samples).
import type { ClusterVersion } from '../../src/agent/clusterVersion.js';
import { release, writeTree } from './trees.js';

export const digest = (v: string): string =>
  Buffer.from(v.padEnd(32, '.')).toString('hex').slice(0, 64).padEnd(64, '0');
const rec = (v: string, previous: string[]): string =>
  release(v, {
    previous,
    payload: `quay.example/ocp/release@sha256:${digest(v)}`,
    metadata: { url: `https://errata.example/${v}` },
  });
const risk = (to: string, name: string, rules: string): string =>
  `to: ${to}\nfrom: 4[.]16[.]3[+]\nurl: https://issues.example/${name}\nname: ${name}\nmessage: ${name} hurts.\nmatchingRules:\n${rules}`;
const promql = (q: string): string => `- type: PromQL\n  promql:\n    promql: '${q}'\n`;

export function writeAgentTree(dir: string): string {
  const z = [3, 4, 5, 6, 7, 8].map((n) => `4.16.${n}`);
  return writeTree(dir, {
    'channels/stable-4.1.yaml': undefined,
    'blocked-edges/4.1.1-Risk.yaml': undefined,
    'releases/amd64/4.1.0.json': undefined,
    'releases/amd64/4.1.1.json': undefined,
    ...Object.fromEntries(z.map((v, i) => [`releases/amd64/${v}.json`, rec(v, z.slice(0, i))])),
    'releases/amd64/4.17.0.json': rec('4.17.0', ['4.16.8']),
    'channels/stable-4.16.yaml': `name: stable-4.16\nversions: [${z.join(', ')}]\n`,
    'channels/candidate-4.17.yaml': 'name: candidate-4.17\nversions: [4.16.8, 4.17.0]\n',
    'blocked-edges/4.16.5-OnAWS.yaml': risk(
      '4.16.5',
      'OnAWS',
      promql('group(cluster_infrastructure_provider{type="AWS"}) or 0 * group(cluster_version)'),
    ),
    'blocked-edges/4.16.6-OnGCP.yaml': risk(
      '4.16.6',
      'OnGCP',
      promql('group(cluster_infrastructure_provider{type="GCP"}) or 0 * group(cluster_version)'),
    ),
    'blocked-edges/4.16.7-Everywhere.yaml': risk('4.16.7', 'Everywhere', '- type: Always\n'),
    'blocked-edges/4.16.8-TwoSamples.yaml': risk('4.16.8', 'TwoSamples', promql('cluster_operator_up')),
  });
}

export type Status = ClusterVersion['status'];

export const retrieved = (s: Status) => s.conditions!.find((c) => c.type === 'RetrievedUpdates')!;

/** Each conditional update's Recommended condition, as `status/reason`. */
export const recommendedOf = (s: Status): Record<string, string> =>
  Object.fromEntries(
    (s.conditionalUpdates ?? []).map((c) => [
      c.release.version,
      ((k) => `${k.status}/${k.reason}`)(c.conditions.find((k) => k.type === 'Recommended')!),
    ]),
  );
