// The whole chain an operator relies on, in a `cincy serve` process: clusters poll, a risk is written
// through the admin API, graph history records it and the fleet alerts count the clusters it exposes
// (and the ones stranded), each queued for a webhook in the transaction that records it. The receiver
// is down and the process is killed with SIGKILL after the write was acknowledged; once both are back,
// every event arrives, signed.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLED_GRAPH_DATA } from '../../src/settings.js';
import { cincyAsync, serveCli, useCleanup, type Served } from '../support/cli.js';
import { until } from '../support/processes.js';
import { startWebhookReceiver } from '../support/webhookReceiver.js';

const cleanup = useCleanup();
const HOOK_SECRET = 'fleet-webhooks-receiver-secret-0123';
const CHANNEL = 'stable-4.16';
const ARCH = 'amd64';
const LACKED = '4.11.0';
const uuid = (i: number): string => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

describe('a risk written through the admin API, to the webhook', { timeout: 180_000 }, () => {
  it('delivers the risk and the clusters it exposes, and the stranded ones, across a SIGKILL after the write', async () => {
    const secret = join(cleanup.dir(), 'secret');
    writeFileSync(secret, 'an-admin-secret-of-more-than-thirty-two-bytes\n');
    const db = join(cleanup.dir(), 'cincy.db');
    const serve = (): Promise<Served> =>
      serveCli(
        [
          '--db',
          db,
          '--graph-data',
          BUNDLED_GRAPH_DATA,
          '--admin-jwt-secret-file',
          secret,
          '--webhook-allow-loopback',
          '--webhook-timeout',
          '2s',
          '--fleet-flush-interval',
          '1s',
        ],
        cleanup,
      );
    const token = async (scope: string): Promise<string> => {
      const r = await cincyAsync(['token', 'create', '--admin-jwt-secret-file', secret, '--scope', scope]);
      expect(r.code, r.stderr).toBe(0);
      return r.stdout.trim();
    };
    let server = await serve();
    const receiver = await startWebhookReceiver(HOOK_SECRET);
    cleanup.add(() => receiver.stop());
    const [hooks, risks, fleet] = [
      await token('webhooks:write'),
      await token('risks:write'),
      await token('fleet:read'),
    ];

    const subscribed = await fetch(`${server.url}/api/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hooks}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        url: receiver.url,
        kinds: ['risk-declared', 'clusters-exposed', 'clusters-stranded'],
        channel: CHANNEL,
        arch: ARCH,
        secret: HOOK_SECRET,
      }),
    });
    expect(subscribed.status, await subscribed.clone().text()).toBe(201);

    // A recommended edge of the channel with no conditional update at its start, for the risk.
    const graph = (await (
      await fetch(`${server.url}/graph?channel=${CHANNEL}&arch=${ARCH}`, { headers: { accept: 'application/json' } })
    ).json()) as {
      nodes: Array<{ version: string }>;
      edges: Array<[number, number]>;
      conditionalEdges: Array<{ edges: Array<{ from: string }> }>;
    };
    const versions = graph.nodes.map((n) => n.version);
    const conditionalFrom = new Set(graph.conditionalEdges.flatMap((c) => c.edges.map((e) => e.from)));
    const edge = graph.edges.find(([a]) => !conditionalFrom.has(versions[a]!))!;
    const [from, to] = [versions[edge[0]]!, versions[edge[1]]!];

    // Five clusters at the edge's start, three at a version the channel lacks.
    const poll = async (id: string, version: string): Promise<void> => {
      const res = await fetch(`${server.url}/graph?channel=${CHANNEL}&arch=${ARCH}&id=${id}&version=${version}`, {
        headers: { accept: 'application/json' },
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    };
    for (let i = 0; i < 5; i++) await poll(uuid(i), from);
    for (let i = 5; i < 8; i++) await poll(uuid(i), LACKED);
    await until('the polls written', async () => {
      const res = await fetch(`${server.url}/api/v1/fleet`, { headers: { authorization: `Bearer ${fleet}` } });
      return ((await res.json()) as { clusters: number }).clusters === 8 || undefined;
    });

    // The polls may have been written in more than one flush, and each comparison of the fleet reports what
    // grew since the last: a first clusters-stranded event may count fewer than three, then another the
    // rest. Whatever the polls caused is delivered before the receiver goes down.
    const pending = async (url: string): Promise<number> => {
      const res = await fetch(`${url}/api/v1/webhooks`, { headers: { authorization: `Bearer ${hooks}` } });
      const body = (await res.json()) as { webhooks: Array<{ deliveries: { pending: number } }> };
      return body.webhooks[0]!.deliveries.pending;
    };
    await until("the polls' events delivered", async () => (await pending(server.url)) === 0 || undefined);
    // One stranded group (this channel and arch): each event lists its one change.
    const strandedOf = (d: { body: { kind: string; changes?: Array<Record<string, unknown>> } }) =>
      d.body.kind === 'clusters-stranded'
        ? (d.body.changes?.[0]?.detail as { clusters: number; before: number })
        : undefined;
    const strandedSoFar = receiver.received.map(strandedOf).filter(Boolean).at(-1)?.clusters ?? 0;
    await receiver.stop(); // down: nothing can be delivered before the kill
    const written = await fetch(`${server.url}/api/v1/risks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${risks}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        to,
        from: `^${from.replace(/\./g, '[.]')}[+]`,
        name: 'ChainTestRisk',
        url: 'https://risks.example/chain',
        message: 'A risk written while clusters poll.',
        matchingRules: [{ type: 'Always' }],
      }),
    });
    expect(written.status, await written.clone().text()).toBe(201);
    // Acknowledged and queued: the outbox holds graph history's event and the alerts' (the risk's exposure,
    // and the stranded clusters not yet reported).
    const queued = 2 + (strandedSoFar < 3 ? 1 : 0);
    await until(`the ${queued} events queued`, async () => (await pending(server.url)) === queued || undefined);
    server.child.kill('SIGKILL');
    await new Promise((resolve) => server.child.once('exit', resolve));

    server = await serve();
    await receiver.restart();
    const kinds = (): string[] => [...new Set(receiver.received.filter((d) => d.signed).map((d) => d.body.kind))];
    await until(
      'every event delivered',
      async () => (kinds().length === 3 && (await pending(server.url)) === 0) || undefined,
    );
    expect(receiver.received.every((d) => d.signed)).toBe(true);
    const changeOf = (kind: string): Record<string, unknown> | undefined =>
      receiver.received.find((d) => d.body.kind === kind)?.body.changes?.[0];
    expect(changeOf('risk-declared')).toMatchObject({ risk: 'ChainTestRisk', channel: CHANNEL, arch: ARCH });
    expect(changeOf('clusters-exposed')).toMatchObject({
      risk: 'ChainTestRisk',
      channel: CHANNEL,
      arch: ARCH,
      detail: { clusters: 5, before: 0 },
    });
    // The stranded clusters, counted from none to three, each event from where the last one left off.
    const stranded = receiver.received.filter((d) => d.body.kind === 'clusters-stranded');
    for (const d of stranded)
      expect(d.body.changes).toEqual([
        expect.objectContaining({
          channel: CHANNEL,
          arch: ARCH,
          detail: expect.objectContaining({ reason: 'version-not-in-channel' }),
        }),
      ]);
    const counts = stranded.map(strandedOf).map((c) => [c!.before, c!.clusters]);
    expect(counts[0]?.[0]).toBe(0);
    expect(counts.at(-1)?.[1]).toBe(3);
    for (let i = 1; i < counts.length; i++) expect(counts[i]![0]).toBe(counts[i - 1]![1]);
  });
});
