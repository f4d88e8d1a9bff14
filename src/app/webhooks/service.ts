// What the webhooks API does: subscriptions added, listed (never with their secret, with their
// deliveries in numbers), removed, pinged; each write audited with its actor, as admin writes are.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';
import type { Store } from '../../store/store.js';
import { MAX_SUBSCRIPTIONS, type DeliveryStats, type WebhookSubscription } from '../../store/webhooks.js';
import type { Actor } from '../admin/writes.js';
import type { ChangeSink } from '../../store/changeSink.js';
import type { DeliveryLoop } from './delivery.js';
import { enqueueEvents, pingEvent, webhookSink } from './outbox.js';
import { subscriptionProblems, type SubscriptionRequest } from './validation.js';

/** A subscription as the API shows it. */
export interface SubscriptionView {
  id: string;
  url: string;
  kinds: string[];
  channel?: string;
  arch?: string;
  createdAt: string;
  createdBy: string;
  deliveries: { pending: number; failed: number; delivered: number; lastDeliveredAt?: string; lastError?: string };
}

export class Webhooks {
  /** The ChangeSink producers call in their write transactions; wakes the delivery loop. */
  readonly sink: ChangeSink;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** The loop of this process; start() and close() are the service's. */
    readonly delivery: DeliveryLoop,
  ) {
    this.sink = webhookSink(clock, () => delivery.wake());
  }

  async add(r: SubscriptionRequest, actor: Actor): Promise<SubscriptionView> {
    const problems = subscriptionProblems(r);
    if (problems.length) throw new ApiError('invalid_params', problems.join('; '));
    const now = this.clock.now();
    const s: WebhookSubscription = {
      id: randomUUID(),
      url: r.url,
      kinds: r.kinds,
      channel: r.channel ?? null,
      arch: r.arch ?? null,
      secret: r.secret,
      createdAt: now,
      createdBy: actor.subject,
    };
    await this.store.write(async (tx) => {
      if ((await tx.webhooks.countSubscriptions()) >= MAX_SUBSCRIPTIONS)
        throw new ApiError('conflict', `there are ${MAX_SUBSCRIPTIONS} webhooks already: remove one first`);
      await tx.webhooks.addSubscription(s);
      await tx.audit.record({
        at: new Date(now).toISOString(),
        actor: actor.subject,
        action: 'webhook-add',
        target: s.id,
        before: undefined,
        after: withoutSecret(s),
        reason: null,
      });
    });
    return view(s, undefined);
  }

  async list(): Promise<SubscriptionView[]> {
    return this.store.read(async (tx) => {
      const stats = await tx.webhooks.stats();
      return (await tx.webhooks.subscriptions()).map((s) => view(s, stats.get(s.id)));
    });
  }

  async get(id: string): Promise<SubscriptionView> {
    const found = (await this.list()).find((s) => s.id === id);
    if (!found) throw new ApiError('does_not_exist', `no webhook ${id}`);
    return found;
  }

  async remove(id: string, actor: Actor): Promise<void> {
    await this.store.write(async (tx) => {
      const s = await tx.webhooks.subscription(id);
      if (!s) throw new ApiError('does_not_exist', `no webhook ${id}`);
      await tx.webhooks.deleteSubscription(id);
      await tx.audit.record({
        at: new Date(this.clock.now()).toISOString(),
        actor: actor.subject,
        action: 'webhook-remove',
        target: id,
        before: withoutSecret(s),
        after: undefined,
        reason: null,
      });
    });
  }

  /** Queues a ping event for the subscription; returns its event id. */
  async ping(id: string): Promise<{ eventId: string }> {
    const now = this.clock.now();
    const event = pingEvent(id, new Date(now).toISOString());
    await this.store.write(
      async (tx) => {
        if (!(await tx.webhooks.subscription(id))) throw new ApiError('does_not_exist', `no webhook ${id}`);
        await enqueueEvents(tx, [event], now);
      },
      { unserved: true },
    );
    this.delivery.wake();
    return { eventId: event.id };
  }
}

function withoutSecret(s: WebhookSubscription): Omit<WebhookSubscription, 'secret'> {
  return {
    id: s.id,
    url: s.url,
    kinds: s.kinds,
    channel: s.channel,
    arch: s.arch,
    createdAt: s.createdAt,
    createdBy: s.createdBy,
  };
}

function view(s: WebhookSubscription, stats: DeliveryStats | undefined): SubscriptionView {
  return {
    id: s.id,
    url: s.url,
    kinds: s.kinds,
    ...(s.channel !== null && { channel: s.channel }),
    ...(s.arch !== null && { arch: s.arch }),
    createdAt: new Date(s.createdAt).toISOString(),
    createdBy: s.createdBy,
    deliveries: {
      pending: stats?.pending ?? 0,
      failed: stats?.failed ?? 0,
      delivered: stats?.delivered ?? 0,
      ...(stats?.lastDeliveredAt != null && { lastDeliveredAt: new Date(stats.lastDeliveredAt).toISOString() }),
      ...(stats?.lastError != null && { lastError: stats.lastError }),
    },
  };
}
