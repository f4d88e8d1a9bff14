// From changes to deliveries: the ChangeSink that, in the transaction recording a write's changes,
// queues one outbox row per subscription and kind of change it wants, and the body each delivery carries.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { StoreTx } from '../../store/store.js';
import type { WebhookSubscription } from '../../store/webhooks.js';
import type { Change } from '../../history/change.js';
import type { ChangeSink } from '../../store/changeSink.js';

/** The most changes one event lists: a larger batch of one kind is sent as several events. */
export const MAX_CHANGES_PER_EVENT = 500;
/**
 * About the largest body of an event listing several changes (bytes of JSON): under the 100 KB many
 * receivers' JSON parsers take by default. One change larger than this is sent alone.
 */
export const MAX_EVENT_BYTES = 64 * 1024;

/** What a receiver is sent: `id` is also X-Cincy-Event-Id, the same on every attempt. */
export interface WebhookEvent {
  id: string;
  /** A change kind, or `ping` (POST /api/v1/webhooks/{id}/ping). */
  kind: string;
  /** When the service queued it (ISO 8601). */
  queuedAt: string;
  subscription: string;
  /** The changes of this kind that one write made, as graph history records them (absent for a ping). */
  changes?: Change[];
}

/** Whether `s` wants `change`: its kind, and its channel and arch when the subscription names them. */
export function wants(s: Pick<WebhookSubscription, 'kinds' | 'channel' | 'arch'>, change: Change): boolean {
  return (
    s.kinds.includes(change.kind) &&
    (s.channel === null || change.channel === s.channel) &&
    (s.arch === null || change.arch === s.arch)
  );
}

/**
 * The events `changes` (the changes of one write) make for `subscriptions`: for each subscription, one
 * event per kind listing the changes of that kind it wants, in order (a promotion is one edge-added
 * event listing its edges, not one event per edge), split at MAX_CHANGES_PER_EVENT changes or about
 * MAX_EVENT_BYTES.
 */
export function eventsFor(
  changes: readonly Change[],
  subscriptions: readonly WebhookSubscription[],
  queuedAt: string,
  newId: () => string = randomUUID,
): WebhookEvent[] {
  const events: WebhookEvent[] = [];
  for (const s of subscriptions) {
    const byKind = new Map<string, Change[]>();
    for (const change of changes) {
      if (!wants(s, change)) continue;
      const list = byKind.get(change.kind);
      if (list) list.push(change);
      else byKind.set(change.kind, [change]);
    }
    for (const [kind, wanted] of byKind)
      for (const changes of chunks(wanted)) events.push({ id: newId(), kind, queuedAt, subscription: s.id, changes });
  }
  return events;
}

/** `changes` in order, in lists of at most MAX_CHANGES_PER_EVENT changes and about MAX_EVENT_BYTES of JSON. */
function chunks(changes: readonly Change[]): Change[][] {
  const lists: Change[][] = [];
  let list: Change[] = [];
  let bytes = 0;
  for (const change of changes) {
    const size = JSON.stringify(change).length + 1;
    if (list.length > 0 && (list.length >= MAX_CHANGES_PER_EVENT || bytes + size > MAX_EVENT_BYTES)) {
      lists.push(list);
      list = [];
      bytes = 0;
    }
    list.push(change);
    bytes += size;
  }
  if (list.length > 0) lists.push(list);
  return lists;
}

export function pingEvent(subscription: string, queuedAt: string, newId: () => string = randomUUID): WebhookEvent {
  return { id: newId(), kind: 'ping', queuedAt, subscription };
}

/** Queues events in the caller's transaction. */
export async function enqueueEvents(tx: StoreTx, events: readonly WebhookEvent[], now: number): Promise<void> {
  await tx.webhooks.enqueue(
    events.map((e) => ({ subscriptionId: e.subscription, eventId: e.id, body: JSON.stringify(e) })),
    now,
  );
}

/**
 * The ChangeSink of webhooks: queues the deliveries `changes` make, in the caller's transaction, and
 * calls `queued` once some were (the delivery loop is woken after the commit, see DeliveryLoop.wake).
 */
export function webhookSink(clock: Clock, queued: () => void = () => {}): ChangeSink {
  return async (tx, changes) => {
    if (changes.length === 0) return;
    const subscriptions = await tx.webhooks.subscriptions();
    if (subscriptions.length === 0) return;
    const now = clock.now();
    const events = eventsFor(changes, subscriptions, new Date(now).toISOString());
    if (events.length === 0) return;
    await enqueueEvents(tx, events, now);
    queued();
  };
}
