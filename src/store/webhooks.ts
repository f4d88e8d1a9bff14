// Webhooks as the store keeps them: the subscriptions (at most MAX_SUBSCRIPTIONS) and the outbox, one
// row per delivery owed to a subscription. Rows are queued in the write transaction that records the
// change (app/webhooks/outbox.ts) and claimed by a delivery loop for a lease: a claim is a write, and
// writes apply one at a time across every process and replica (SQLite's lock, PostgreSQL's advisory
// lock), so a row is claimed by one of them only; a claim whose process died expires with its lease
// and the row is claimed again. Times are milliseconds since 1970.
import type { Sql } from './sql.js';

export const MAX_SUBSCRIPTIONS = 100;

export interface WebhookSubscription {
  id: string;
  url: string;
  kinds: string[];
  channel: string | null;
  arch: string | null;
  secret: string;
  createdAt: number;
  createdBy: string;
}

/** A delivery to make, as claimed: the row and where it goes. */
export interface ClaimedDelivery {
  id: number;
  subscriptionId: string;
  url: string;
  secret: string;
  eventId: string;
  body: string;
  /** Attempts made before this one. */
  attempts: number;
  createdAt: number;
}

export interface DeliveryStats {
  subscriptionId: string;
  pending: number;
  failed: number;
  delivered: number;
  lastDeliveredAt: number | null;
  lastError: string | null;
}

interface SubscriptionRow {
  id: string;
  url: string;
  kinds: string;
  channel: string | null;
  arch: string | null;
  secret: string;
  createdAt: number | string;
  createdBy: string;
}

const SELECT_SUBSCRIPTION =
  'SELECT id, url, kinds, channel, arch, secret, created_at AS "createdAt", created_by AS "createdBy" ' +
  'FROM webhook_subscriptions';
const UNFINISHED = 'delivered_at IS NULL AND failed_at IS NULL';

/** Rows looked at per claim, among which each subscription gets its share. */
const CLAIM_SCAN = 500;

export class WebhookRepository {
  constructor(private readonly sql: Sql) {}

  async subscriptions(): Promise<WebhookSubscription[]> {
    return (await this.sql.all<SubscriptionRow>(`${SELECT_SUBSCRIPTION} ORDER BY created_at, id`)).map(subscription);
  }

  async subscription(id: string): Promise<WebhookSubscription | undefined> {
    const row = await this.sql.get<SubscriptionRow>(`${SELECT_SUBSCRIPTION} WHERE id = ?`, [id]);
    return row && subscription(row);
  }

  async countSubscriptions(): Promise<number> {
    const row = await this.sql.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM webhook_subscriptions');
    return Number(row?.n ?? 0);
  }

  async addSubscription(s: WebhookSubscription): Promise<void> {
    await this.sql.run(
      'INSERT INTO webhook_subscriptions (id, url, kinds, channel, arch, secret, created_at, created_by) ' +
        'VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      [s.id, s.url, JSON.stringify(s.kinds), s.channel, s.arch, s.secret, s.createdAt, s.createdBy],
    );
  }

  /** Removes a subscription and whatever its outbox still held; false when there was none. */
  async deleteSubscription(id: string): Promise<boolean> {
    await this.sql.run('DELETE FROM webhook_outbox WHERE subscription_id = ?', [id]);
    return (await this.sql.run('DELETE FROM webhook_subscriptions WHERE id = ?', [id])) > 0;
  }

  /** Queues deliveries, due at once. */
  async enqueue(rows: ReadonlyArray<{ subscriptionId: string; eventId: string; body: string }>, at: number) {
    for (const r of rows)
      await this.sql.run(
        'INSERT INTO webhook_outbox (subscription_id, event_id, body, attempts, created_at, next_attempt_at) ' +
          'VALUES (?, ?, ?, 0, ?, ?)',
        [r.subscriptionId, r.eventId, r.body, at, at],
      );
  }

  /**
   * Claims due deliveries for `owner` until `until`: at most `limit` in all and `perSubscription` of
   * each subscription, none of the subscriptions in `skip` (those the caller is busy with already).
   * Call it in a write transaction.
   */
  async claim(opts: {
    owner: string;
    now: number;
    until: number;
    limit: number;
    perSubscription: number;
    skip?: ReadonlyMap<string, number>;
  }): Promise<ClaimedDelivery[]> {
    const due = await this.sql.all<{
      id: number | string;
      subscriptionId: string;
      url: string;
      secret: string;
      eventId: string;
      body: string;
      attempts: number | string;
      createdAt: number | string;
    }>(
      'SELECT o.id, o.subscription_id AS "subscriptionId", s.url, s.secret, o.event_id AS "eventId", o.body, ' +
        'o.attempts, o.created_at AS "createdAt" FROM webhook_outbox o ' +
        'JOIN webhook_subscriptions s ON s.id = o.subscription_id ' +
        'WHERE o.delivered_at IS NULL AND o.failed_at IS NULL AND o.next_attempt_at <= ? ' +
        'AND (o.claimed_until IS NULL OR o.claimed_until <= ?) ORDER BY o.next_attempt_at, o.id LIMIT ?',
      [opts.now, opts.now, CLAIM_SCAN],
    );
    const taken = new Map(opts.skip ?? []);
    const claimed: ClaimedDelivery[] = [];
    for (const r of due) {
      if (claimed.length >= opts.limit) break;
      const n = taken.get(r.subscriptionId) ?? 0;
      if (n >= opts.perSubscription) continue;
      taken.set(r.subscriptionId, n + 1);
      claimed.push({ ...r, id: Number(r.id), attempts: Number(r.attempts), createdAt: Number(r.createdAt) });
    }
    for (const c of claimed)
      await this.sql.run('UPDATE webhook_outbox SET claimed_by = ?, claimed_until = ? WHERE id = ?', [
        opts.owner,
        opts.until,
        c.id,
      ]);
    return claimed;
  }

  /** The receiver acknowledged the delivery; false when the claim was no longer `owner`'s. */
  async delivered(id: number, owner: string, at: number): Promise<boolean> {
    const n = await this.sql.run(
      'UPDATE webhook_outbox SET delivered_at = ?, attempts = attempts + 1, last_error = NULL, ' +
        'claimed_by = NULL, claimed_until = NULL WHERE id = ? AND claimed_by = ?',
      [at, id, owner],
    );
    return n > 0;
  }

  /** The attempt failed: tried again at `nextAt`, or given up on (`nextAt` undefined) and kept as failed. */
  async attemptFailed(id: number, owner: string, at: number, error: string, nextAt: number | undefined) {
    await this.sql.run(
      'UPDATE webhook_outbox SET attempts = attempts + 1, last_error = ?, next_attempt_at = ?, failed_at = ?, ' +
        'claimed_by = NULL, claimed_until = NULL WHERE id = ? AND claimed_by = ?',
      [error.slice(0, 500), nextAt ?? at, nextAt === undefined ? at : null, id, owner],
    );
  }

  /** Each subscription's outbox in numbers. */
  async stats(): Promise<Map<string, DeliveryStats>> {
    const rows = await this.sql.all<{
      subscriptionId: string;
      pending: number | string | null;
      failed: number | string | null;
      delivered: number | string | null;
      lastDeliveredAt: number | string | null;
    }>(
      'SELECT subscription_id AS "subscriptionId", ' +
        `SUM(CASE WHEN ${UNFINISHED} THEN 1 ELSE 0 END) AS pending, ` +
        'SUM(CASE WHEN failed_at IS NOT NULL THEN 1 ELSE 0 END) AS failed, ' +
        'SUM(CASE WHEN delivered_at IS NOT NULL THEN 1 ELSE 0 END) AS delivered, ' +
        'MAX(delivered_at) AS "lastDeliveredAt" FROM webhook_outbox GROUP BY subscription_id',
    );
    const errors = await this.sql.all<{ subscriptionId: string; lastError: string }>(
      'SELECT subscription_id AS "subscriptionId", last_error AS "lastError" FROM webhook_outbox o ' +
        'WHERE last_error IS NOT NULL AND id = (SELECT MAX(id) FROM webhook_outbox i ' +
        'WHERE i.subscription_id = o.subscription_id AND i.last_error IS NOT NULL)',
    );
    const lastError = new Map(errors.map((e) => [e.subscriptionId, e.lastError]));
    return new Map(
      rows.map((r) => [
        r.subscriptionId,
        {
          subscriptionId: r.subscriptionId,
          pending: Number(r.pending ?? 0),
          failed: Number(r.failed ?? 0),
          delivered: Number(r.delivered ?? 0),
          lastDeliveredAt: r.lastDeliveredAt === null ? null : Number(r.lastDeliveredAt),
          lastError: lastError.get(r.subscriptionId) ?? null,
        },
      ]),
    );
  }

  /** Removes deliveries acknowledged before `before`; returns how many. */
  prune(before: number): Promise<number> {
    return this.sql.run('DELETE FROM webhook_outbox WHERE delivered_at IS NOT NULL AND delivered_at < ?', [before]);
  }

  /** The earliest time a delivery not yet made is due (undefined: none owed). */
  async nextDue(): Promise<number | undefined> {
    const row = await this.sql.get<{ next: number | string | null }>(
      `SELECT MIN(CASE WHEN claimed_until IS NULL OR claimed_until < next_attempt_at THEN next_attempt_at ` +
        `ELSE claimed_until END) AS next FROM webhook_outbox WHERE ${UNFINISHED}`,
    );
    return row?.next === null || row?.next === undefined ? undefined : Number(row.next);
  }
}

function subscription(r: SubscriptionRow): WebhookSubscription {
  return { ...r, kinds: JSON.parse(r.kinds) as string[], createdAt: Number(r.createdAt) };
}
