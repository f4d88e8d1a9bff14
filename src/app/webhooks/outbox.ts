// From changes to deliveries: the ChangeSink that, in the transaction recording changes, queues one
// outbox row per change and subscription wanting it, and the body each delivery carries.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { StoreTx } from '../../store/store.js';
import type { WebhookSubscription } from '../../store/webhooks.js';
import type { Change } from '../../history/change.js';
import type { ChangeSink } from '../../store/changeSink.js';

/** What a receiver is sent: `id` is also X-Cincy-Event-Id, the same on every attempt. */
export interface WebhookEvent {
  id: string;
  /** A change kind, or `ping` (POST /api/v1/webhooks/{id}/ping). */
  kind: string;
  /** When the service queued it (ISO 8601). */
  queuedAt: string;
  subscription: string;
  /** The change, as graph history records it (absent for a ping). */
  change?: Change;
}

/** Whether `s` wants `change`: its kind, and its channel and arch when the subscription names them. */
export function wants(s: Pick<WebhookSubscription, 'kinds' | 'channel' | 'arch'>, change: Change): boolean {
  return (
    s.kinds.includes(change.kind) &&
    (s.channel === null || change.channel === s.channel) &&
    (s.arch === null || change.arch === s.arch)
  );
}

/** The events `changes` make for `subscriptions`, in order. */
export function eventsFor(
  changes: readonly Change[],
  subscriptions: readonly WebhookSubscription[],
  queuedAt: string,
  newId: () => string = randomUUID,
): WebhookEvent[] {
  const events: WebhookEvent[] = [];
  for (const change of changes)
    for (const s of subscriptions)
      if (wants(s, change)) events.push({ id: newId(), kind: change.kind, queuedAt, subscription: s.id, change });
  return events;
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
