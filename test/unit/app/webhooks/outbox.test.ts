// The parts of webhooks that need no server: signatures, backoff, which subscriptions want which
// change, what a subscription request must be, and which addresses deliveries may go to.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BACKOFF, nextAttemptAt } from '../../../../src/app/webhooks/backoff.js';
import { refusedAddress } from '../../../../src/app/webhooks/destination.js';
import { eventsFor, pingEvent, wants } from '../../../../src/app/webhooks/outbox.js';
import { sign } from '../../../../src/app/webhooks/signature.js';
import { verifyWebhookSignature } from '../../../support/webhookReceiver.js';
import { subscriptionProblems } from '../../../../src/app/webhooks/validation.js';
import type { Change } from '../../../../src/history/change.js';
import type { WebhookSubscription } from '../../../../src/store/webhooks.js';

describe('signatures', () => {
  it('are sha256= and the hex HMAC-SHA256 of the raw body', () => {
    const body = '{"id":"x"}';
    expect(sign(body, 'k'.repeat(16))).toBe(
      `sha256=${createHmac('sha256', 'k'.repeat(16)).update(body).digest('hex')}`,
    );
  });
  it('verify only with the same secret and body', () => {
    const s = sign('body', 'secret-0123456789');
    expect(verifyWebhookSignature('body', 'secret-0123456789', s)).toBe(true);
    expect(verifyWebhookSignature('body ', 'secret-0123456789', s)).toBe(false);
    expect(verifyWebhookSignature('body', 'secret-0123456788', s)).toBe(false);
    expect(verifyWebhookSignature('body', 'secret-0123456789', undefined)).toBe(false);
    expect(verifyWebhookSignature('body', 'secret-0123456789', 'sha256=00')).toBe(false);
  });
});

describe('backoff', () => {
  const t0 = 1_000_000;
  it('doubles from 1 s to 10 min, shortened by at most a fifth', () => {
    expect(nextAttemptAt(1, t0, t0, () => 0)).toBe(t0 + 1000);
    expect(nextAttemptAt(2, t0, t0, () => 0)).toBe(t0 + 2000);
    expect(nextAttemptAt(5, t0, t0, () => 0)).toBe(t0 + 16_000);
    expect(nextAttemptAt(40, t0, t0, () => 0)).toBe(t0 + BACKOFF.lastMs);
    const jittered = nextAttemptAt(3, t0, t0, () => 0.999)! - t0;
    expect(jittered).toBeGreaterThan(4000 * 0.8);
    expect(jittered).toBeLessThanOrEqual(4000);
  });
  it('gives up once the delivery was queued 3 days ago', () => {
    expect(nextAttemptAt(9, t0, t0 + BACKOFF.giveUpAfterMs - 1)).toBeDefined();
    expect(nextAttemptAt(9, t0, t0 + BACKOFF.giveUpAfterMs)).toBeUndefined();
  });
});

describe('which subscriptions want a change', () => {
  const sub = (id: string, kinds: string[], channel: string | null = null, arch: string | null = null) =>
    ({ id, url: 'https://x', kinds, channel, arch, secret: 's', createdAt: 0, createdBy: 'a' }) as WebhookSubscription;
  const change = (kind: Change['kind'], channel?: string, arch?: string): Change => ({
    kind,
    at: '2026-01-01T00:00:00Z',
    ...(channel && { channel }),
    ...(arch && { arch }),
  });
  it('filters by kind, and by channel and arch when named', () => {
    const all = sub('a', ['edge-added', 'risk-declared']);
    const stable = sub('b', ['edge-added'], 'stable-4.16');
    const arm = sub('c', ['edge-added'], null, 'arm64');
    expect(wants(all, change('edge-added', 'x'))).toBe(true);
    expect(wants(all, change('edge-removed', 'x'))).toBe(false);
    expect(wants(stable, change('edge-added', 'stable-4.16', 'amd64'))).toBe(true);
    expect(wants(stable, change('edge-added', 'fast-4.16'))).toBe(false);
    expect(wants(stable, change('edge-added'))).toBe(false);
    expect(wants(arm, change('edge-added', 'x', 'amd64'))).toBe(false);
    let n = 0;
    const events = eventsFor(
      [change('edge-added', 'stable-4.16', 'arm64'), change('risk-declared')],
      [all, stable, arm],
      'at',
      () => `e${n++}`,
    );
    expect(events.map((e) => [e.id, e.subscription, e.kind])).toEqual([
      ['e0', 'a', 'edge-added'],
      ['e1', 'b', 'edge-added'],
      ['e2', 'c', 'edge-added'],
      ['e3', 'a', 'risk-declared'],
    ]);
    expect(events[0]!.change).toEqual(change('edge-added', 'stable-4.16', 'arm64'));
    expect(pingEvent('a', 'at', () => 'p')).toEqual({ id: 'p', kind: 'ping', queuedAt: 'at', subscription: 'a' });
  });
});

describe('subscription requests', () => {
  const ok = { url: 'https://hooks.example.com/cincy', kinds: ['edge-added'], secret: 's'.repeat(16) };
  it('take a valid one', () => {
    expect(subscriptionProblems(ok)).toEqual([]);
    expect(subscriptionProblems({ ...ok, channel: 'stable-4.16', arch: 'amd64' })).toEqual([]);
  });
  it.each([
    [{ url: 'not a url' }, 'url:'],
    [{ url: 'ftp://x/y' }, 'url: the scheme'],
    [{ url: 'https://u:p@x/y' }, 'url: must not hold'],
    [{ kinds: [] }, 'kinds: name at least one'],
    [{ kinds: ['edge-added', 'nope'] }, 'kinds: "nope"'],
    [{ kinds: ['edge-added', 'edge-added'] }, 'kinds: names a kind twice'],
    [{ secret: 'short' }, 'secret: must be 16 to 256'],
    [{ secret: 'x'.repeat(257) }, 'secret: must be 16 to 256'],
    [{ channel: 'bad channel' }, 'channel:'],
    [{ arch: '../x' }, 'arch:'],
  ])('refuse %j naming the field', (bad, message) => {
    const problems = subscriptionProblems({ ...ok, ...bad });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(message);
  });
});

describe('destinations', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '::1',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '0.0.0.0',
  ])('refuse %s', (ip) => expect(refusedAddress(ip)).toMatch(/loopback, link-local or private/));
  it.each(['8.8.8.8', '1.1.1.1', '2606:4700::1111', '172.32.0.1'])('allow %s', (ip) =>
    expect(refusedAddress(ip)).toBeUndefined(),
  );
});

describe('a sender', () => {
  it('refuses loopback by address and by name unless allowed, checking the resolved address', async () => {
    const { createServer } = await import('node:http');
    const { Sender } = await import('../../../../src/app/webhooks/send.js');
    const server = createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const attempt = (url: string) => ({ url, secret: 's'.repeat(16), eventId: 'e', body: '{}', attempt: 1, now: 0 });
    const strict = new Sender({ timeoutMs: 5000, allowLoopback: false });
    const open = new Sender({ timeoutMs: 5000, allowLoopback: true });
    try {
      expect(await strict.send(attempt(`http://127.0.0.1:${port}/`))).toMatch(/loopback/);
      expect(await strict.send(attempt(`http://localhost:${port}/`))).toMatch(/loopback/);
      expect(await open.send(attempt(`http://localhost:${port}/`))).toBeUndefined();
    } finally {
      await strict.close();
      await open.close();
      server.close();
    }
  });
});
