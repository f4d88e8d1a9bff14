// Webhooks over real HTTP: the API with JWT scopes, and deliveries to real receivers that check each
// signature. A change queued in a write transaction is delivered; a receiver answering 500 gets the
// event again until it acknowledges it; a receiver that does not answer holds up no other receiver.
/* eslint-disable @typescript-eslint/no-explicit-any -- the answers are read as JSON, checked field by field */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HIDDEN_URL } from '../../../../src/app/webhooks/hiddenUrls.js';
import { createToken } from '../../../../src/cli/token.js';
import { BUNDLED_GRAPH_DATA } from '../../../../src/settings.js';
import type { Change } from '../../../../src/history/change.js';
import { startServer, tempDir, type TestServer } from '../../../support/server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../../support/webhookReceiver.js';

const SECRET = 'receiver-secret-0123456789';

describe('webhooks', () => {
  let server: TestServer;
  let token: string;
  let otherToken: string;
  let riskToken: string;
  const receivers: WebhookReceiver[] = [];
  const dir = tempDir();

  const call = async (method: string, path: string, body?: unknown, bearer = token) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${bearer}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as any) : undefined };
  };
  const receiver = async (): Promise<WebhookReceiver> => {
    const r = await startWebhookReceiver(SECRET);
    receivers.push(r);
    return r;
  };
  const subscribe = async (url: string, kinds: string[], extra: object = {}): Promise<string> => {
    const res = await call('POST', '/api/v1/webhooks', { url, kinds, secret: SECRET, ...extra });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const enqueue = (changes: Change[]) => server.store.write((tx) => server.webhooks.sink(tx, changes));
  const change = (kind: Change['kind'], n: number, channel = 'stable-4.16'): Change => ({
    kind,
    at: new Date().toISOString(),
    channel,
    arch: 'amd64',
    from: '4.16.0',
    to: `4.16.${n}`,
  });

  beforeAll(async () => {
    const secretFile = join(dir.path, 'secret');
    writeFileSync(secretFile, 'a-secret-that-is-long-enough-for-hs256-0123456789\n');
    server = await startServer({
      graphData: BUNDLED_GRAPH_DATA,
      auth: { secretFile, rateLimit: 10_000 },
      webhooks: { allowLoopback: true, timeoutMs: 60_000, concurrency: 8, pollMs: 100 },
    });
    const make = (scope: string) =>
      createToken({ adminJwtSecretFile: secretFile, scope, ttl: '1h', subject: 'hook-admin' });
    token = await make('webhooks:write');
    otherToken = await make('fleet:read');
    riskToken = await make('risks:write');
  });
  afterAll(async () => {
    await server?.close();
    for (const r of receivers) await r.stop();
    dir.remove();
  });

  it('needs a token with webhooks:write', async () => {
    expect((await fetch(`${server.url}/api/v1/webhooks`)).status).toBe(401);
    expect((await call('GET', '/api/v1/webhooks', undefined, otherToken)).status).toBe(403);
    expect((await call('GET', '/api/v1/webhooks')).status).toBe(200);
  });

  it('refuses a bad subscription naming the field', async () => {
    const good = { url: 'https://hooks.example.com/x', kinds: ['edge-added'], secret: SECRET };
    for (const [bad, field] of [
      [{ url: 'ftp://x/y' }, 'url'],
      [{ kinds: ['edge-added', 'nope'] }, 'kinds'],
      [{ secret: 'short' }, 'secret'],
      [{ channel: 'no spaces' }, 'channel'],
    ] as const) {
      const res = await call('POST', '/api/v1/webhooks', { ...good, ...bad });
      expect(res.status).toBe(400);
      expect(res.body.value).toContain(`${field}:`);
    }
    const missing = await call('POST', '/api/v1/webhooks', { url: good.url, kinds: good.kinds });
    expect(missing.status).toBe(400);
    expect(missing.body.value).toContain('secret');
  });

  it('adds, lists without the secret, pings, removes, and audits', async () => {
    const r = await receiver();
    const id = await subscribe(r.url, ['risk-declared'], { channel: 'stable-4.16' });
    const one = await call('GET', `/api/v1/webhooks/${id}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      id,
      url: r.url,
      kinds: ['risk-declared'],
      channel: 'stable-4.16',
      createdBy: 'hook-admin',
    });
    expect(JSON.stringify((await call('GET', '/api/v1/webhooks')).body)).not.toContain(SECRET);
    const ping = await call('POST', `/api/v1/webhooks/${id}/ping`);
    expect(ping.status).toBe(202);
    await r.acknowledged(1);
    expect(r.received[0]).toMatchObject({ eventId: ping.body.eventId, signed: true, attempt: 1 });
    expect(r.received[0]!.body).toMatchObject({ kind: 'ping', subscription: id });
    const listed = await call('GET', `/api/v1/webhooks/${id}`);
    expect(listed.body.deliveries).toMatchObject({ pending: 0, failed: 0, delivered: 1 });
    expect((await call('DELETE', `/api/v1/webhooks/${id}`)).status).toBe(204);
    expect((await call('GET', `/api/v1/webhooks/${id}`)).status).toBe(404);
    expect((await call('DELETE', `/api/v1/webhooks/${id}`)).status).toBe(404);
    const audit = await server.store.read((tx) =>
      tx.sql.all<{ action: string; after: string | null; before: string | null }>(
        "SELECT action, after, before FROM audit WHERE action LIKE 'webhook-%' AND target = ?",
        [id],
      ),
    );
    expect(audit.map((a) => a.action)).toEqual(['webhook-add', 'webhook-remove']);
    expect(JSON.stringify(audit)).not.toContain(SECRET);
    // Through the API: the URL to a token that may manage webhooks, hidden from any other.
    const read = async (bearer: string) =>
      (await call('GET', '/api/v1/audit?limit=1000', undefined, bearer)).body.entries.filter(
        (e: any) => e.target === id,
      );
    expect((await read(token)).map((e: any) => (e.after ?? e.before).url)).toEqual([r.url, r.url]);
    const hidden = await read(otherToken);
    expect(hidden.map((e: any) => (e.after ?? e.before).url)).toEqual([HIDDEN_URL, HIDDEN_URL]);
    expect(JSON.stringify(hidden)).not.toContain(r.url);
  });

  it('delivers the changes each subscription wants, signed, once a change is queued in a transaction', async () => {
    const edges = await receiver();
    const risks = await receiver();
    const e = await subscribe(edges.url, ['edge-added', 'edge-removed'], { channel: 'stable-4.16' });
    const k = await subscribe(risks.url, ['risk-declared']);
    await enqueue([
      change('edge-added', 1),
      change('edge-added', 2, 'fast-4.16'),
      change('risk-declared', 3),
      change('edge-removed', 4),
    ]);
    await edges.acknowledged(2);
    await risks.acknowledged(1);
    // Deliveries are not ordered.
    expect(edges.received.map((d) => [d.body.kind, d.body.changes?.map((c) => c.to).join(), d.signed]).sort()).toEqual([
      ['edge-added', '4.16.1', true],
      ['edge-removed', '4.16.4', true],
    ]);
    expect(risks.received.map((d) => [d.body.kind, d.body.subscription, d.signed])).toEqual([
      ['risk-declared', k, true],
    ]);
    for (const d of [...edges.received, ...risks.received]) {
      expect(d.eventId).toBe(d.body.id);
      expect(Number(d.headers['x-cincy-timestamp'])).toBeGreaterThan(0);
    }
    await call('DELETE', `/api/v1/webhooks/${e}`);
    await call('DELETE', `/api/v1/webhooks/${k}`);
  });

  it('a change in a transaction that rolls back is not delivered', async () => {
    const r = await receiver();
    const id = await subscribe(r.url, ['release-withdrawn', 'risk-withdrawn']);
    await expect(
      server.store.write(async (tx) => {
        await server.webhooks.sink(tx, [
          { kind: 'release-withdrawn', at: new Date().toISOString(), version: '4.16.9' },
        ]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await enqueue([{ kind: 'risk-withdrawn', at: new Date().toISOString(), risk: 'R' }]);
    await r.acknowledged(1);
    expect(r.received.map((d) => d.body.kind)).toEqual(['risk-withdrawn']);
    await call('DELETE', `/api/v1/webhooks/${id}`);
  });

  it('tries again after 500s until the receiver acknowledges, with the same event id', async () => {
    const r = await receiver();
    r.answer.status = 500;
    const id = await subscribe(r.url, ['clusters-exposed']);
    await enqueue([{ kind: 'clusters-exposed', at: new Date().toISOString(), risk: 'R', detail: { clusters: 3 } }]);
    while (r.received.length < 2) await new Promise((resolve) => setTimeout(resolve, 50));
    const failing = await call('GET', `/api/v1/webhooks/${id}`);
    expect(failing.body.deliveries.pending).toBe(1);
    expect(failing.body.deliveries.lastError).toContain('500');
    r.answer.status = 204;
    await r.acknowledged(1);
    const ids = new Set(r.received.map((d) => d.eventId));
    expect(ids.size).toBe(1);
    expect(r.received.map((d) => d.attempt)).toEqual(r.received.map((_, i) => i + 1));
    expect((await call('GET', `/api/v1/webhooks/${id}`)).body.deliveries).toMatchObject({ pending: 0, delivered: 1 });
    await call('DELETE', `/api/v1/webhooks/${id}`);
  });

  it('sends a risk written through the admin API as one event listing every change it made', async () => {
    const r = await receiver();
    const id = await subscribe(r.url, ['risk-declared']);
    // An edge the graph serves, on every arch that has it.
    const graph = (await (
      await fetch(`${server.url}/graph?channel=stable-4.16`, { headers: { accept: 'application/json' } })
    ).json()) as { nodes: Array<{ version: string }>; edges: Array<[number, number]> };
    const [f, t] = graph.edges[0]!;
    const written = await call(
      'POST',
      '/api/v1/risks',
      {
        to: graph.nodes[t]!.version,
        // Matched against version+arch, as the reference matches a blocked edge's `from`.
        from: `^${graph.nodes[f]!.version.replace(/\./g, '[.]')}[+]`,
        name: 'OneEventRisk',
        url: 'https://risks.example/one',
        message: 'One write, one event.',
        matchingRules: [{ type: 'Always' }],
      },
      riskToken,
    );
    expect(written.status, JSON.stringify(written.body)).toBe(201);
    // The write answers before the graph is rebuilt and its changes recorded and queued.
    await r.acknowledged(1);
    await server.history.idle();
    const recorded = (await (await fetch(`${server.url}/api/v1/changes?kind=risk-declared&limit=1000`)).json()) as {
      changes: Array<{ risk: string }>;
    };
    const made = recorded.changes.filter((c) => c.risk === 'OneEventRisk');
    expect(made.length).toBeGreaterThan(1); // one per channel (and arch) that has the edge
    await new Promise((resolve) => setTimeout(resolve, 500)); // time for a second event, were there one
    expect(r.received).toHaveLength(1);
    expect(r.received[0]!.body.changes).toHaveLength(made.length);
    await call('DELETE', `/api/v1/webhooks/${id}`);
  });

  it('a receiver that does not answer holds up no other', async () => {
    const slow = await receiver();
    const fast = await receiver();
    slow.answer.delayMs = 3_600_000; // answers after the test is over
    const s = await subscribe(slow.url, ['clusters-stranded']);
    const f = await subscribe(fast.url, ['clusters-stranded']);
    const changes = Array.from({ length: 20 }, (_, i) => ({
      kind: 'clusters-stranded' as const,
      at: new Date().toISOString(),
      channel: `c-${i}`,
    }));
    for (const c of changes) await enqueue([c]); // twenty writes: twenty events
    // Every event reaches the fast receiver while the slow one still holds its first ones.
    await fast.acknowledged(20);
    expect(slow.ackCount()).toBe(0);
    expect(new Set(fast.received.map((d) => d.body.changes?.[0]?.channel)).size).toBe(20);
    // The slow receiver holds at most its share of the deliveries in flight.
    expect(slow.received.length).toBeLessThanOrEqual(2);
    await slow.stop();
    await call('DELETE', `/api/v1/webhooks/${s}`);
    await call('DELETE', `/api/v1/webhooks/${f}`);
  });
});
