// The agent's poll in-process: the poller against the mock cluster's API server in this process, and the
// update service in this process (test/support/pollRig.ts). With a real Prometheus (a process) scraping
// the mock cluster's metrics: test/e2e/agent-prometheus.test.ts. One process-level test,
// test/e2e/agent.test.ts, runs the poll as a user does.
import { createServer, type Server } from 'node:http';
import { describe, expect, it } from 'vitest';
import { MAX_CACHE_MS, UpdatesPoller } from '../../../src/agent/poll.js';
import { RiskEvaluator } from '../../../src/agent/risks.js';
import { TRUSTED_CA_BUNDLE } from '../../../src/agent/transport.js';
import { retrieved } from '../../support/agentFixtures.js';
import { useCleanup } from '../../support/cleanup.js';
import { poller } from '../../support/inProcessAgent.js';
import { prometheusStub } from '../../support/localServers.js';
import { rig as pollRig } from '../../support/pollRig.js';

const cleanup = useCleanup();
const rig = (o: Parameters<typeof pollRig>[1] = {}) => pollRig(cleanup, o);

/** An upstream relaying the update service's answers, or answering 503 while `down` is set; it counts requests. */
async function switchableUpstream(graphUrl: string): Promise<{ url: string; down: boolean; requests: number }> {
  const upstream = { url: '', down: false, requests: 0 };
  const server: Server = createServer((req, res) => {
    upstream.requests += 1;
    if (upstream.down) return void res.writeHead(503).end('maintenance');
    fetch(`${graphUrl}${req.url}`, { headers: { accept: 'application/json' } })
      .then(async (answer) =>
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text()),
      )
      .catch(() => res.writeHead(502).end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.add(() => new Promise((r) => server.close(r)));
  upstream.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/upgrades_info/v1/graph`;
  return upstream;
}

/** A graph server that answers what a test says, for the malformed cases our own server never produces. */
async function stubUpstream(body: () => string): Promise<string> {
  const server: Server = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(body()),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.add(() => new Promise((r) => server.close(r)));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/graph`;
}

describe('the agent poll, in-process', () => {
  it('reports VersionNotFound, NoChannel and ResponseInvalid with the cluster-version-operator messages', async () => {
    const r = await rig();
    r.setSpec({ channel: 'candidate-4.17' });
    await r.poll();
    expect(retrieved(r.status())).toMatchObject({
      status: 'False',
      reason: 'VersionNotFound',
      message:
        'Unable to retrieve available updates: currently reconciling cluster version 4.16.3 not found in the "candidate-4.17" channel',
    });
    r.setSpec({ channel: null });
    await r.poll();
    expect(retrieved(r.status())).toMatchObject({
      status: 'False',
      reason: 'NoChannel',
      message: 'The update channel has not been configured.',
    });
    r.setSpec({
      channel: 'stable-4.16',
      upstream: await stubUpstream(() => '{"nodes":[{"version":"four","payload":"x"}]}'),
    });
    await r.poll();
    expect(retrieved(r.status())).toMatchObject({ status: 'False', reason: 'ResponseInvalid' });
  });

  it('clears the lists when the current version is not in the new channel, keeping them only through a failed answer of the same upstream', async () => {
    const r = await rig();
    const agent = poller(r.cluster); // one agent process: it remembers what it retrieved last
    await agent.poll();
    const good = r.status();
    expect(good.availableUpdates!.map((u) => u.version)).toEqual(['4.16.4']);
    expect(good.conditionalUpdates!.length).toBe(4);

    // candidate-4.17 does not hold 4.16.3: nothing of stable-4.16 may stay listed, as recommended or not.
    r.setSpec({ channel: 'candidate-4.17' });
    await agent.poll();
    const switched = r.status();
    expect(retrieved(switched)).toMatchObject({ status: 'False', reason: 'VersionNotFound' });
    expect(switched.availableUpdates).toBeNull();
    expect(switched.conditionalUpdates).toEqual([]);
    r.setSpec({ channel: 'stable-4.16' });
    await agent.poll();
    expect(r.status().availableUpdates).toEqual(good.availableUpdates);
    r.setSpec({ channel: null });
    await agent.poll();
    expect(retrieved(r.status()).reason).toBe('NoChannel');
    expect(r.status().availableUpdates).toBeNull();

    // The same upstream and channel failing to answer: the lists stand, for at most 24 hours.
    const upstream = await switchableUpstream(r.graphUrl);
    r.setSpec({ channel: 'stable-4.16', upstream: upstream.url });
    await agent.poll();
    expect(r.status().availableUpdates).toEqual(good.availableUpdates);
    upstream.down = true;
    await agent.poll();
    expect(retrieved(r.status())).toMatchObject({
      status: 'False',
      reason: 'ResponseFailed',
      message: 'Unable to retrieve available updates: unexpected HTTP status: 503 Service Unavailable',
    });
    expect(r.status().availableUpdates).toEqual(good.availableUpdates);
    expect(r.status().conditionalUpdates).toEqual(good.conditionalUpdates);
    // A restarted agent knows nothing of what it retrieved before: its first failure clears them.
    await poller(r.cluster).poll();
    expect(r.status().availableUpdates).toBeNull();
    upstream.down = false;
    await agent.poll();
    expect(r.status().availableUpdates).toEqual(good.availableUpdates);
    upstream.down = true;
    r.cluster.clock.advance(MAX_CACHE_MS - 60_000);
    await agent.poll();
    expect(r.status().availableUpdates).toEqual(good.availableUpdates);
    r.cluster.clock.advance(60_000);
    await agent.poll();
    expect(retrieved(r.status()).reason).toBe('ResponseFailed');
    expect(r.status().availableUpdates).toBeNull();
  });

  it('keeps the conditional entry of a target that is also unconditional, and drops a target listed in two entries', async () => {
    const r = await rig();
    const node = (v: string): object => ({
      version: v,
      payload: `quay.example/ocp/release@sha256:${v.replace(/\D/g, '').padEnd(64, '0')}`,
      metadata: {},
    });
    const risk = (name: string): object => ({
      url: `https://issues.example/${name}`,
      name,
      message: 'm',
      matchingRules: [{ type: 'Always' }],
    });
    const graph = {
      version: 1,
      nodes: [node('4.16.3'), node('4.16.4'), node('4.16.5'), node('4.16.6')],
      edges: [
        [0, 1],
        [0, 3],
      ],
      conditionalEdges: [
        { edges: [{ from: '4.16.3', to: '4.16.4' }], risks: [risk('Both')] },
        { edges: [{ from: '4.16.3', to: '4.16.5' }], risks: [risk('TwiceA')] },
        { edges: [{ from: '4.16.3', to: '4.16.5' }], risks: [risk('TwiceB')] },
      ],
    };
    r.setSpec({ upstream: await stubUpstream(() => JSON.stringify(graph)) });
    await r.poll();
    const s = r.status();
    expect(s.availableUpdates!.map((u) => u.version)).toEqual(['4.16.6']);
    expect(s.conditionalUpdates!.map((c) => c.release.version)).toEqual(['4.16.4']);
  });

  it("quotes each target's own risk, when two targets carry a risk of the same name with other words", async () => {
    const r = await rig();
    const node = (v: string): object => ({
      version: v,
      payload: `quay.example/ocp/release@sha256:${v.replace(/\D/g, '').padEnd(64, '0')}`,
      metadata: {},
    });
    // As at 4.11.12 in stable-4.12: one risk name, a text and an issue per target.
    const risk = (target: string, bug: string): object => ({
      url: `https://issues.example/${bug}`,
      name: 'SharedName',
      message: `The ${target} release only resolves ${bug}.`,
      matchingRules: [{ type: 'Always' }],
    });
    const graph = {
      version: 1,
      nodes: [node('4.16.3'), node('4.16.4'), node('4.17.1')],
      edges: [],
      conditionalEdges: [
        { edges: [{ from: '4.16.3', to: '4.17.1' }], risks: [risk('4.17.1', 'BUG-2')] },
        { edges: [{ from: '4.16.3', to: '4.16.4' }], risks: [risk('4.16.4', 'BUG-1')] },
      ],
    };
    r.setSpec({ upstream: await stubUpstream(() => JSON.stringify(graph)) });
    await r.poll();
    const byTarget = new Map(r.status().conditionalUpdates!.map((c) => [c.release.version, c]));
    for (const [target, bug] of [
      ['4.16.4', 'BUG-1'],
      ['4.17.1', 'BUG-2'],
    ] as const) {
      const c = byTarget.get(target)!;
      expect(c.risks.map((k) => k.url)).toEqual([`https://issues.example/${bug}`]);
      expect(c.conditions.find((k) => k.type === 'Recommended')).toMatchObject({
        status: 'False',
        reason: 'SharedName',
        message: `The ${target} release only resolves ${bug}. https://issues.example/${bug}`,
      });
    }
  });

  it("asks for the control plane's architecture, its own only when it may not list nodes, and fails the poll on another error", async () => {
    const r = await rig();
    const asked = (): string[] => r.cluster.requests.filter((q) => q.path === '/api/v1/nodes').map(() => 'nodes');
    await r.poll();
    expect(asked()).toHaveLength(1);
    r.cluster.fail({ method: 'GET', path: /^\/api\/v1\/nodes$/, status: 403, times: 1 });
    await r.poll(); // forbidden: the agent's own architecture (amd64 here, as the nodes say)
    expect(retrieved(r.status()).status).toBe('True');
    r.setSpec({ channel: 'candidate-4.17' }); // a change the failed poll must not act on
    const before = JSON.stringify(r.status());
    r.cluster.fail({ method: 'GET', path: /^\/api\/v1\/nodes$/, status: 500, times: 1 });
    await expect(r.poll()).rejects.toThrow('injected failure of GET /api/v1/nodes');
    expect(JSON.stringify(r.status())).toBe(before);
  });

  it('fails the poll, keeping the updates it had, when the CA bundle or the proxy cannot be read; absent, they are not needed', async () => {
    const r = await rig();
    // No trusted-ca-bundle ConfigMap and no Proxy object (404): the system's CAs, no proxy.
    expect(r.cluster.get('ConfigMap', TRUSTED_CA_BUNDLE.namespace, TRUSTED_CA_BUNDLE.name)).toBeUndefined();
    await r.poll();
    expect(retrieved(r.status()).status).toBe('True');
    r.setSpec({ channel: 'candidate-4.17' }); // a change the failed polls must not act on
    const changed = JSON.stringify(r.status());
    r.cluster.fail({
      method: 'GET',
      path: new RegExp(`/configmaps/${TRUSTED_CA_BUNDLE.name}$`),
      status: 403,
      times: 1,
    });
    await expect(r.poll()).rejects.toThrow(
      `cannot read ConfigMap openshift-config-managed/trusted-ca-bundle: injected failure`,
    );
    expect(JSON.stringify(r.status())).toBe(changed);
    r.cluster.fail({ method: 'GET', path: /\/proxies\/cluster$/, status: 500, times: 1 });
    await expect(r.poll()).rejects.toThrow('cannot read Proxy cluster: injected failure');
    expect(JSON.stringify(r.status())).toBe(changed);
    // Once they read again, the poll goes on with the change.
    await r.poll();
    expect(retrieved(r.status())).toMatchObject({ status: 'False', reason: 'VersionNotFound' });
  });

  it('hostile finding 4: queues PromQL evaluations over the once-a-second rate instead of waiting, and comes back for them on the same graph', async () => {
    const r = await rig();
    const prometheus = await prometheusStub(() => ['0'], cleanup);
    const upstream = await switchableUpstream(r.graphUrl);
    r.setSpec({ upstream: upstream.url });
    // The real rate: one query a second.
    const evaluator = new RiskEvaluator({ url: prometheus.url });
    const agent = new UpdatesPoller({ api: r.cluster.client().api, evaluator, clock: r.cluster.clock });

    // Three PromQL risks: the first poll queries one and queues two, their updates Unknown meanwhile.
    const first = await agent.poll();
    expect(first.queuedEvaluations).toBe(2);
    const throttled = (r.status().conditionalUpdates ?? [])
      .map((c) => c.conditions[0]!)
      .filter((k) => k.message.includes('client-side throttling: only'));
    expect(throttled.length).toBeGreaterThan(0);
    expect(throttled[0]).toMatchObject({ status: 'Unknown', reason: 'EvaluationFailed' });
    expect(throttled[0]!.message).toContain(
      'this cached cluster condition request has been queued for later execution',
    );
    // A second apart, the polls come back for them, on the graph already fetched.
    let polls = 1;
    for (let last = first; last.queuedEvaluations > 0; polls++) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      last = await agent.poll();
    }
    expect({ polls, queries: prometheus.queries(), fetches: upstream.requests }).toEqual({
      polls: 3,
      queries: 3,
      fetches: 1,
    });
    expect(JSON.stringify(r.status().conditionalUpdates)).not.toContain('client-side throttling');
  });

  it('hostile finding 7: says RetrievedUpdates=False when the API server refuses the lists, instead of keeping True over stale ones', async () => {
    const r = await rig();
    await r.poll();
    expect(retrieved(r.status())).toMatchObject({ status: 'True' });
    // The next write of the lists is refused as too large; the condition write after it goes through.
    r.cluster.fail({ method: 'PUT', path: /clusterversions\/version\/status$/, status: 413, times: 1 });
    // A spec change (a new generation to observe) gives the poll something to write.
    r.setSpec({ channel: 'candidate-4.17' });
    r.setSpec({ channel: 'stable-4.16' });
    const before = r.status().conditionalUpdates;
    await r.poll().catch(() => undefined);
    expect(retrieved(r.status())).toMatchObject({ status: 'False', reason: 'StatusWriteRefused' });
    expect(retrieved(r.status()).message).toMatch(/^Unable to record the available updates: /);
    expect(r.status().conditionalUpdates).toEqual(before);
    // Once the server takes the write again, the next poll records the lists and says True.
    await r.poll();
    expect(retrieved(r.status())).toMatchObject({ status: 'True' });
  });

  it("counts only this poll's queued evaluations: a risk no longer asked for does not bring the poll back", async () => {
    const r = await rig();
    const prometheus = await prometheusStub(() => ['0'], cleanup);
    const agent = new UpdatesPoller({
      api: r.cluster.client().api,
      evaluator: new RiskEvaluator({ url: prometheus.url }),
      clock: r.cluster.clock,
    });
    expect((await agent.poll()).queuedEvaluations).toBe(2);
    // A channel without the current version: nothing to evaluate, so nothing waits.
    r.setSpec({ channel: 'candidate-4.17' });
    const moved = await agent.poll();
    expect(moved.retrieved).toMatchObject({ status: 'False', reason: 'VersionNotFound' });
    expect(moved.queuedEvaluations).toBe(0);
  });
});
