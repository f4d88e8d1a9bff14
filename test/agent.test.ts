// The agent end to end, all as processes: `cincy serve`, `cincy mock-cluster`, a real Prometheus
// scraping the mock cluster, and `cincy agent --once` writing the ClusterVersion status.
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { cincy, cincyAsync, serveCli, useCleanup } from './support/cli.js';
import { CONFORMANCE_DIR, conformanceAvailable } from './support/conformance.js';
import { serveMock, type Mock } from './support/mock.js';
import { prometheusAvailable, startPrometheus } from './support/prometheus.js';
import { release, writeTree } from './support/trees.js';

const cleanup = useCleanup();
const CV = { group: 'config.openshift.io', version: 'v1', plural: 'clusterversions', name: 'version' };
const digest = (v: string): string => Buffer.from(v.padEnd(32, '.')).toString('hex').slice(0, 64).padEnd(64, '0');
const rec = (v: string, previous: string[]): string => release(v, { previous, payload: `quay.example/ocp/release@sha256:${digest(v)}`, metadata: { url: `https://errata.example/${v}` } });
const risk = (to: string, name: string, rules: string): string => `to: ${to}\nfrom: 4[.]16[.]3[+]\nurl: https://issues.example/${name}\nname: ${name}\nmessage: ${name} hurts.\nmatchingRules:\n${rules}`;
const promql = (q: string): string => `- type: PromQL\n  promql:\n    promql: '${q}'\n`;

function tree(dir: string): string {
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
    'blocked-edges/4.16.5-OnAWS.yaml': risk('4.16.5', 'OnAWS', promql('group(cluster_infrastructure_provider{type="AWS"}) or 0 * group(cluster_version)')),
    'blocked-edges/4.16.6-OnGCP.yaml': risk('4.16.6', 'OnGCP', promql('group(cluster_infrastructure_provider{type="GCP"}) or 0 * group(cluster_version)')),
    'blocked-edges/4.16.7-Everywhere.yaml': risk('4.16.7', 'Everywhere', '- type: Always\n'),
    'blocked-edges/4.16.8-TwoSamples.yaml': risk('4.16.8', 'TwoSamples', promql('cluster_operator_up')),
  });
}

interface Status {
  availableUpdates: Array<{ version: string; image: string; url?: string; channels?: string[] }> | null;
  conditionalUpdates: Array<{ release: { version: string }; risks: Array<{ name: string }>; conditions: Array<{ type: string; status: string; reason: string; message: string; lastTransitionTime: string }> }>;
  conditions: Array<{ type: string; status: string; reason: string; message: string; lastTransitionTime: string }>;
  desired: { version: string; channels?: string[] };
}
const statusOf = async (m: Mock): Promise<Status> => ((await m.kc.makeApiClient(k8s.CustomObjectsApi).getClusterCustomObject(CV)) as { status: Status }).status;
const setSpec = (m: Mock, spec: Record<string, unknown>): Promise<unknown> =>
  m.kc.makeApiClient(k8s.CustomObjectsApi).patchClusterCustomObject({ ...CV, body: { spec } }, k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
const retrieved = (s: Status): { status: string; reason: string; message: string } => s.conditions.find((c) => c.type === 'RetrievedUpdates')!;
const recommendedOf = (s: Status): Record<string, string> =>
  Object.fromEntries(s.conditionalUpdates.map((c) => [c.release.version, ((k) => `${k.status}/${k.reason}`)(c.conditions.find((k) => k.type === 'Recommended')!)]));

/** A graph server that answers what a test says, for the malformed cases our own server never produces. */
async function stubUpstream(body: () => string): Promise<string> {
  const server: Server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body()));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.add(() => new Promise((r) => server.close(r)));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/graph`;
}

describe.runIf(prometheusAvailable())('agent, end to end', () => {
  let graphUrl: string;

  type Run = Awaited<ReturnType<typeof cincyAsync>>;
  async function cluster(args: string[] = [], graphData = tree(join(cleanup.dir(), 'tree'))): Promise<{ m: Mock; prom: string; agent: (extra?: string[]) => Promise<Run> }> {
    graphUrl = (await serveCli(['--db', ':memory:', '--graph-data', graphData], cleanup)).url;
    const dir = cleanup.dir();
    const m = await serveMock(['--version', '4.16.3', '--channel', 'stable-4.16', '--upstream', `${graphUrl}/api/upgrades_info/v1/graph`, '--platform', 'AWS', ...args], dir, cleanup);
    const caFile = join(dir, 'mock-ca.crt');
    writeFileSync(caFile, Buffer.from(m.kc.getCurrentCluster()!.caData!, 'base64'));
    const prom = await startPrometheus(new URL(m.url).host, dir, cleanup, caFile);
    const agent = (extra: string[] = []): Promise<Run> => cincyAsync(['agent', '--kubeconfig', m.kubeconfig, '--once', '--prometheus-url', prom, '--log-level', 'warn', ...extra]);
    return { m, prom, agent };
  }

  it('fills availableUpdates and conditionalUpdates from the graph and real PromQL, and adm upgrade reports them', async () => {
    const { m, agent } = await cluster();
    const r = await agent();
    expect(r.code, r.stderr).toBe(0);
    const s = await statusOf(m);
    expect(retrieved(s)).toMatchObject({ status: 'True', reason: '', message: '' });
    expect(s.availableUpdates!.map((u) => u.version)).toEqual(['4.16.6', '4.16.4']);
    expect(s.availableUpdates![1]).toMatchObject({ image: `quay.example/ocp/release@sha256:${digest('4.16.4')}`, url: 'https://errata.example/4.16.4', channels: ['stable-4.16'] });
    expect(s.conditionalUpdates.map((c) => c.release.version)).toEqual(['4.16.8', '4.16.7', '4.16.6', '4.16.5']);
    expect(recommendedOf(s)).toEqual({ '4.16.8': 'Unknown/EvaluationFailed', '4.16.7': 'False/Everywhere', '4.16.6': 'True/NotExposedToRisks', '4.16.5': 'False/OnAWS' });
    const unknown = s.conditionalUpdates[0]!.conditions[0]!;
    expect(unknown.message).toMatch(/^Could not evaluate exposure to update risk TwoSamples \(invalid PromQL result length must be one, but is \d+\)\n {2}TwoSamples description: TwoSamples hurts\.\n {2}TwoSamples URL: https:\/\/issues\.example\/TwoSamples$/);
    expect(s.conditionalUpdates[3]!.conditions[0]!.message).toBe('OnAWS hurts. https://issues.example/OnAWS');
    expect(s.desired.channels).toEqual(['stable-4.16']);

    // Nothing changed: the next poll writes nothing, and transition times stay.
    const before = JSON.stringify(s);
    expect((await agent()).code).toBe(0);
    expect(JSON.stringify(await statusOf(m))).toBe(before);

    const report = cincy(['adm', 'upgrade', '--kubeconfig', m.kubeconfig]);
    expect(report.stdout).toContain('Cluster version is 4.16.3\n');
    expect(report.stdout).toContain(`Upstream: ${graphUrl}/api/upgrades_info/v1/graph`);
    expect(report.stdout).toContain('Channel: stable-4.16 (available channels: stable-4.16)');
    expect(report.stdout).toMatch(/Recommended updates:\n\n {2}VERSION +IMAGE\n {2}4\.16\.6 +quay\.example/);
    expect(report.stdout).toContain('Additional updates which are not recommended based on your cluster configuration are available');
    const full = cincy(['adm', 'upgrade', '--kubeconfig', m.kubeconfig, '--include-not-recommended']).stdout;
    expect(full).toContain('Supported but not recommended updates:\n\n  Version: 4.16.8');
    expect(full).toContain('  Recommended: False\n  Reason: OnAWS\n  Message: OnAWS hurts. https://issues.example/OnAWS');

    expect(cincy(['adm', 'upgrade', '--kubeconfig', m.kubeconfig, '-o', 'json']).stdout).toContain('"conditionalUpdates"');
    expect(cincy(['adm', 'upgrade', 'channel', 'candidate-4.17', '--kubeconfig', m.kubeconfig]).stdout).toBe('Updated the channel to "candidate-4.17"\n');
    expect(cincy(['adm', 'upgrade', '--kubeconfig', m.kubeconfig, 'channel', 'fast-4.17']).stdout).toBe('Updated the channel to "fast-4.17"\n');
    await setSpec(m, { channel: 'stable-4.16' });

    // Accepting the risk that applies makes its update recommended.
    await setSpec(m, { desiredUpdate: { acceptRisks: [{ name: 'OnAWS' }] } });
    await agent();
    expect(recommendedOf(await statusOf(m))['4.16.5']).toBe('True/AllExposedRisksAccepted');
  });

  it('keeps the updates with the right reason when the upstream or Prometheus fail, and recovers', async () => {
    const { m, agent } = await cluster();
    await agent();
    const good = await statusOf(m);
    // Prometheus down: PromQL risks become Unknown, the rest is unaffected.
    await agent(['--prometheus-url', 'http://127.0.0.1:1']);
    const noProm = await statusOf(m);
    expect(recommendedOf(noProm)).toEqual({ '4.16.8': 'Unknown/EvaluationFailed', '4.16.7': 'False/Everywhere', '4.16.6': 'Unknown/EvaluationFailed', '4.16.5': 'Unknown/EvaluationFailed' });
    expect(noProm.availableUpdates!.map((u) => u.version)).toEqual(['4.16.4']);
    await agent();
    // Upstream down: False/RemoteFailed, updates kept; then back.
    await setSpec(m, { upstream: 'http://127.0.0.1:1/graph' });
    await agent();
    const down = await statusOf(m);
    expect(retrieved(down)).toMatchObject({ status: 'False', reason: 'RemoteFailed' });
    expect(retrieved(down).message).toMatch(/^Unable to retrieve available updates: /);
    expect(down.availableUpdates).toEqual(good.availableUpdates);
    await setSpec(m, { upstream: `${graphUrl}/api/upgrades_info/v1/graph` });
    await agent();
    expect(retrieved(await statusOf(m)).status).toBe('True');
  });

  it('reports VersionNotFound, NoChannel and ResponseInvalid with the cluster-version-operator messages', async () => {
    const { m, agent } = await cluster();
    await setSpec(m, { channel: 'candidate-4.17' });
    await agent();
    expect(retrieved(await statusOf(m))).toMatchObject({ status: 'False', reason: 'VersionNotFound', message: 'Unable to retrieve available updates: currently reconciling cluster version 4.16.3 not found in the "candidate-4.17" channel' });
    await setSpec(m, { channel: null });
    await agent();
    expect(retrieved(await statusOf(m))).toMatchObject({ status: 'False', reason: 'NoChannel', message: 'The update channel has not been configured.' });
    await setSpec(m, { channel: 'stable-4.16', upstream: await stubUpstream(() => '{"nodes":[{"version":"four","payload":"x"}]}') });
    await agent();
    expect(retrieved(await statusOf(m))).toMatchObject({ status: 'False', reason: 'ResponseInvalid' });
  });

  it('keeps the conditional entry of a target that is also unconditional, and drops a target listed in two entries', async () => {
    const { m, agent } = await cluster();
    const node = (v: string): object => ({ version: v, payload: `quay.example/ocp/release@sha256:${digest(v)}`, metadata: {} });
    const r = (name: string): object => ({ url: `https://issues.example/${name}`, name, message: 'm', matchingRules: [{ type: 'Always' }] });
    const graph = {
      version: 1,
      nodes: [node('4.16.3'), node('4.16.4'), node('4.16.5'), node('4.16.6')],
      edges: [[0, 1], [0, 3]],
      conditionalEdges: [
        { edges: [{ from: '4.16.3', to: '4.16.4' }], risks: [r('Both')] },
        { edges: [{ from: '4.16.3', to: '4.16.5' }], risks: [r('TwiceA')] },
        { edges: [{ from: '4.16.3', to: '4.16.5' }], risks: [r('TwiceB')] },
      ],
    };
    await setSpec(m, { upstream: await stubUpstream(() => JSON.stringify(graph)) });
    await agent();
    const s = await statusOf(m);
    expect(s.availableUpdates!.map((u) => u.version)).toEqual(['4.16.6']);
    expect(s.conditionalUpdates.map((c) => c.release.version)).toEqual(['4.16.4']);
  });

  it.runIf(conformanceAvailable())('on the real graph: every available update is a direct edge or a conditional one whose risks all evaluate false', async () => {
    const { m, agent } = await cluster(['--version', '4.14.10', '--channel', 'stable-4.14'], join(CONFORMANCE_DIR, 'real-2024-08-09', 'graph-data'));
    await setSpec(m, { channel: 'stable-4.14' });
    const r = await agent();
    expect(r.code, r.stderr).toBe(0);
    const s = await statusOf(m);
    expect(retrieved(s).status).toBe('True');
    const res = await fetch(`${graphUrl}/graph?channel=stable-4.14&arch=amd64`, { headers: { accept: 'application/json' } });
    const g = (await res.json()) as { nodes: Array<{ version: string }>; edges: Array<[number, number]>; conditionalEdges: Array<{ edges: Array<{ from: string; to: string }> }> };
    const from = g.nodes.findIndex((n) => n.version === '4.14.10');
    const direct = new Set(g.edges.filter(([a]) => a === from).map(([, b]) => g.nodes[b]!.version));
    const conditional = new Set(g.conditionalEdges.flatMap((c) => c.edges.filter((e) => e.from === '4.14.10').map((e) => e.to)));
    const recommendedConditional = new Set(s.conditionalUpdates.filter((c) => c.conditions[0]!.status === 'True').map((c) => c.release.version));
    expect(s.availableUpdates!.length).toBeGreaterThan(0);
    for (const u of s.availableUpdates!) expect(direct.has(u.version) || recommendedConditional.has(u.version), u.version).toBe(true);
    expect(new Set(s.availableUpdates!.map((u) => u.version))).toEqual(new Set([...direct, ...recommendedConditional]));
    expect(new Set(s.conditionalUpdates.map((c) => c.release.version))).toEqual(conditional);
  });
});
