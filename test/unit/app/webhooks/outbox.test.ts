// The parts of webhooks that need no server: which subscriptions want which change (src/app/webhooks/outbox.ts).
// Signatures, backoff, what a subscription request must be and which addresses deliveries may go to are
// beside it (signature, backoff, validation, destination, send).
import { describe, expect, it } from 'vitest';
import {
  eventsFor,
  MAX_CHANGES_PER_EVENT,
  MAX_EVENT_BYTES,
  pingEvent,
  wants,
} from '../../../../src/app/webhooks/outbox.js';
import type { Change } from '../../../../src/history/change.js';
import type { WebhookSubscription } from '../../../../src/store/webhooks.js';

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
      [
        change('edge-added', 'stable-4.16', 'arm64'),
        change('risk-declared'),
        change('edge-added', 'stable-4.16', 'amd64'),
        change('edge-added', 'fast-4.16', 'arm64'),
      ],
      [all, stable, arm],
      'at',
      () => `e${n++}`,
    );
    // One event per subscription and kind, listing the changes of that kind it wants, in order.
    expect(events.map((e) => [e.id, e.subscription, e.kind, e.changes!.map((c) => `${c.channel} ${c.arch}`)])).toEqual([
      ['e0', 'a', 'edge-added', ['stable-4.16 arm64', 'stable-4.16 amd64', 'fast-4.16 arm64']],
      ['e1', 'a', 'risk-declared', ['undefined undefined']],
      ['e2', 'b', 'edge-added', ['stable-4.16 arm64', 'stable-4.16 amd64']],
      ['e3', 'c', 'edge-added', ['stable-4.16 arm64', 'fast-4.16 arm64']],
    ]);
    expect(pingEvent('a', 'at', () => 'p')).toEqual({ id: 'p', kind: 'ping', queuedAt: 'at', subscription: 'a' });
  });

  it('splits a large batch of one kind into events of at most MAX_CHANGES_PER_EVENT changes', () => {
    const all = sub('a', ['edge-added']);
    const many = Array.from({ length: 2 * MAX_CHANGES_PER_EVENT + 1 }, () => change('edge-added', 'x'));
    expect(eventsFor(many, [all], 'at').map((e) => e.changes!.length)).toEqual([
      MAX_CHANGES_PER_EVENT,
      MAX_CHANGES_PER_EVENT,
      1,
    ]);
  });

  it('splits by size too: no event of several changes over MAX_EVENT_BYTES', () => {
    const all = sub('a', ['risk-declared']);
    const big = (i: number): Change => ({ ...change('risk-declared', 'x'), detail: { edges: 'e'.repeat(10_000), i } });
    const events = eventsFor(
      Array.from({ length: 20 }, (_, i) => big(i)),
      [all],
      'at',
    );
    expect(events.length).toBeGreaterThan(1);
    for (const e of events) expect(JSON.stringify(e.changes).length).toBeLessThanOrEqual(MAX_EVENT_BYTES);
    expect(events.flatMap((e) => e.changes!.map((c) => c.detail!.i))).toEqual(Array.from({ length: 20 }, (_, i) => i));
    // One change over the size goes alone, whole.
    const huge = { ...change('risk-declared', 'x'), detail: { edges: 'e'.repeat(100_000) } };
    expect(eventsFor([huge], [all], 'at').map((e) => e.changes!.length)).toEqual([1]);
  });
});
