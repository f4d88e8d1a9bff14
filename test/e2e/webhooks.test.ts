// Webhooks as an operator runs them: `cincy serve` processes delivering to a real receiver. A change
// acknowledged (committed to the outbox) is delivered even when the service is killed with SIGKILL
// while its receiver is down; two replicas sharing one PostgreSQL deliver each event exactly once.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BUNDLED_GRAPH_DATA } from '../../src/settings.js';
import type { Change } from '../../src/history/change.js';
import { cincyAsync, serveCli, useCleanup, type Served } from '../support/cli.js';
import { usePostgres } from '../support/postgres.js';
import { until } from '../support/processes.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver.js';

const cleanup = useCleanup();
const postgres = usePostgres();
const SECRET = 'e2e-receiver-secret-0123456789';
const ENQUEUE = join(import.meta.dirname, '..', 'support', 'enqueueChanges.mjs');

function secretFile(): string {
  const secret = join(cleanup.dir(), 'secret');
  writeFileSync(secret, 'an-admin-secret-of-more-than-thirty-two-bytes\n');
  return secret;
}

async function tokenFor(secret: string): Promise<string> {
  const r = await cincyAsync(['token', 'create', '--admin-jwt-secret-file', secret, '--scope', 'webhooks:write']);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

async function subscribe(server: string, token: string, url: string): Promise<string> {
  const res = await fetch(`${server}/api/v1/webhooks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url, kinds: ['edge-added', 'risk-declared'], secret: SECRET }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** Queues `n` edge-added changes from another process, as a producer's write transaction does. */
async function enqueue(db: string, n: number): Promise<void> {
  const changes: Change[] = Array.from({ length: n }, (_, i) => ({
    kind: 'edge-added',
    at: new Date().toISOString(),
    channel: 'stable-4.16',
    arch: 'amd64',
    from: '4.16.0',
    to: `4.16.${i + 1}`,
  }));
  const file = join(cleanup.dir(), 'changes.json');
  writeFileSync(file, JSON.stringify(changes));
  await promisify(execFile)(process.execPath, [ENQUEUE, db, file]);
}

const receiverFor = async (): Promise<WebhookReceiver> => {
  const r = await startWebhookReceiver(SECRET);
  cleanup.add(() => r.stop());
  return r;
};

const delivered = (r: WebhookReceiver): string[] =>
  r.received.filter((d) => d.signed).flatMap((d) => (d.body.changes ?? []).map((c) => c.to as string));

describe('webhooks of a cincy serve process', { timeout: 120_000 }, () => {
  it('delivers what was queued across a SIGKILL while the receiver was down', async () => {
    const secret = secretFile();
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
        ],
        cleanup,
      );
    let server = await serve();
    const receiver = await receiverFor();
    // Subscribed with the CLI, the secret read from a file.
    const env = { CINCY_SERVER: server.url, CINCY_TOKEN: await tokenFor(secret) };
    const secretOfHook = join(cleanup.dir(), 'hook-secret');
    writeFileSync(secretOfHook, `${SECRET}\n`);
    const added = await cincyAsync(
      ['webhooks', 'add', receiver.url, '--kinds', 'edge-added', '--secret-file', secretOfHook, '-o', 'json'],
      env,
    );
    expect(added.code, added.stderr).toBe(0);
    const { id } = JSON.parse(added.stdout) as { id: string };
    await receiver.stop(); // down: every attempt fails to connect
    await enqueue(db, 20);
    server.child.kill('SIGKILL');
    await new Promise((resolve) => server.child.once('exit', resolve));

    server = await serve();
    await receiver.restart();
    await until('every event delivered', async () => new Set(delivered(receiver)).size === 20 || undefined);
    expect(new Set(delivered(receiver))).toEqual(new Set(Array.from({ length: 20 }, (_, i) => `4.16.${i + 1}`)));
    expect(receiver.received.every((d) => d.signed)).toBe(true);
    const ls = async (): Promise<{ webhooks: Array<{ id: string; deliveries: { pending: number } }> }> => {
      const r = await cincyAsync(['webhooks', 'ls', '-o', 'json'], { ...env, CINCY_SERVER: server.url });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as never;
    };
    await until('the outbox emptied', async () => (await ls()).webhooks[0]?.deliveries.pending === 0 || undefined);
    const rm = await cincyAsync(['webhooks', 'rm', id], { ...env, CINCY_SERVER: server.url });
    expect(rm.code, rm.stderr).toBe(0);
    expect((await ls()).webhooks).toEqual([]);
  });
});

describe.skipIf(!postgres.available)('webhooks of replicas sharing one PostgreSQL', { timeout: 120_000 }, () => {
  it('delivers each event exactly once', async () => {
    const secret = secretFile();
    const db = await postgres.database();
    const args = ['--db', db, '--graph-data', BUNDLED_GRAPH_DATA, '--admin-jwt-secret-file', secret];
    const a = await serveCli([...args, '--webhook-allow-loopback'], cleanup);
    const b = await serveCli([...args, '--webhook-allow-loopback'], cleanup);
    const receiver = await receiverFor();
    const token = await tokenFor(secret);
    const id = await subscribe(a.url, token, receiver.url);
    await enqueue(db, 100);
    await receiver.acknowledged(100);
    // Both replicas had a second more to deliver any event twice.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const ids = receiver.received.map((d) => d.eventId);
    expect(ids).toHaveLength(100);
    expect(new Set(ids).size).toBe(100);
    expect(new Set(delivered(receiver)).size).toBe(100);
    // Either replica shows the outbox as the two of them left it.
    const seen = await fetch(`${b.url}/api/v1/webhooks/${id}`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await seen.json()) as { deliveries: unknown }).deliveries).toMatchObject({
      pending: 0,
      failed: 0,
      delivered: 100,
    });
  });
});
