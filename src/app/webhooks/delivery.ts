// The delivery loop: claims due outbox rows (for a lease, so no other process or replica delivers
// them meanwhile), sends each, and records the outcome: delivered, or tried again later (backoff.ts),
// or given up on. Deliveries run side by side up to --webhook-concurrency, and one subscription takes
// at most a quarter of that, so a slow or failing receiver leaves room for the others; nothing else
// the service does waits on a delivery. The loop looks for due rows every second, and at once when
// woken (a change was queued in this process).
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Log } from '../../log.js';
import type { Store } from '../../store/store.js';
import type { ClaimedDelivery } from '../../store/webhooks.js';
import { nextAttemptAt } from './backoff.js';
import { Sender } from './send.js';

export interface WebhookSettings {
  /** How long a receiver has to answer one delivery. */
  timeoutMs: number;
  /** Deliveries in flight at once, in this process. */
  concurrency: number;
  /** Deliver to loopback, link-local and private addresses too. */
  allowLoopback: boolean;
  /** How often the outbox is looked at (default 1 s). */
  pollMs?: number;
}

export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = { timeoutMs: 10_000, concurrency: 16, allowLoopback: false };

/** How long delivered rows are kept (they show in the delivery counts meanwhile). */
export const KEEP_DELIVERED_MS = 7 * 24 * 3600_000;
const PRUNE_EVERY_MS = 3600_000;

export class DeliveryLoop {
  /** Who claims rows: unique to this loop, so a claim left by a killed process is not taken for its own. */
  readonly owner = `${hostname()}/${process.pid}/${randomUUID()}`;
  private readonly sender: Sender;
  private readonly inFlight = new Map<number, Promise<void>>();
  private readonly bySubscription = new Map<string, number>();
  private running: Promise<void> | undefined;
  private stopped = false;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private lastPrune = 0;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly settings: WebhookSettings,
    private readonly log: Pick<Log, 'info' | 'warn'>,
  ) {
    this.sender = new Sender(settings);
  }

  /** Starts delivering (once). */
  start(): void {
    this.running ??= this.run();
  }

  /** Looks at the outbox now rather than at the next poll. Safe to call from inside a transaction. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /**
   * Stops claiming, cuts the deliveries in flight short and closes the connections. What was cut short
   * stays claimed until its lease runs out, then any process or replica delivers it.
   */
  async close(): Promise<void> {
    this.stopped = true;
    this.wakeUp?.();
    await this.running;
    await this.sender.close();
    await Promise.allSettled([...this.inFlight.values()]);
  }

  private get perSubscription(): number {
    return Math.max(1, Math.floor(this.settings.concurrency / 4));
  }

  /**
   * How long a claim holds: the attempt's timeout, and as long again (at least 5 s more) to record its
   * outcome. A process killed meanwhile leaves its claims to be taken up when this runs out.
   */
  private get leaseMs(): number {
    return this.settings.timeoutMs * 2 + 5_000;
  }

  private async run(): Promise<void> {
    const pollMs = this.settings.pollMs ?? 1000;
    while (!this.stopped) {
      this.woken = false;
      let pause = pollMs;
      try {
        pause = await this.claimAndSend(pollMs);
        await this.prune();
      } catch (err) {
        this.log.warn({ problem: (err as Error).message }, 'webhook deliveries could not be claimed; trying again');
      }
      if (this.stopped || this.woken) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pause);
        timer.unref();
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = undefined;
    }
  }

  /** Claims what is due and room allows, and starts sending it; returns how long to wait before looking again. */
  private async claimAndSend(pollMs: number): Promise<number> {
    const room = this.settings.concurrency - this.inFlight.size;
    if (room <= 0) return pollMs;
    const now = this.clock.now();
    const next = await this.store.read((tx) => tx.webhooks.nextDue());
    if (next === undefined) return pollMs;
    if (next > now) return Math.max(10, Math.min(pollMs, next - now));
    const claimed = await this.store.write(
      (tx) =>
        tx.webhooks.claim({
          owner: this.owner,
          now,
          until: now + this.leaseMs,
          limit: room,
          perSubscription: this.perSubscription,
          skip: this.bySubscription,
        }),
      { unserved: true },
    );
    for (const c of claimed) this.launch(c);
    return pollMs;
  }

  private launch(c: ClaimedDelivery): void {
    this.bySubscription.set(c.subscriptionId, (this.bySubscription.get(c.subscriptionId) ?? 0) + 1);
    const done = this.deliver(c)
      .catch((err: Error) =>
        // The lease runs out and the row is claimed again: delivered at least once.
        this.log.warn({ eventId: c.eventId, problem: err.message }, 'the outcome of a webhook delivery was not stored'),
      )
      .finally(() => {
        this.inFlight.delete(c.id);
        const n = (this.bySubscription.get(c.subscriptionId) ?? 1) - 1;
        if (n > 0) this.bySubscription.set(c.subscriptionId, n);
        else this.bySubscription.delete(c.subscriptionId);
        this.wake();
      });
    this.inFlight.set(c.id, done);
  }

  private async deliver(c: ClaimedDelivery): Promise<void> {
    const attempt = c.attempts + 1;
    const error = await this.sender.send({ ...c, attempt, now: this.clock.now() });
    if (this.sender.closed) return;
    const at = this.clock.now();
    if (error === undefined) {
      await this.store.write((tx) => tx.webhooks.delivered(c.id, this.owner, at), { unserved: true });
      return;
    }
    const nextAt = nextAttemptAt(attempt, c.createdAt, at);
    await this.store.write((tx) => tx.webhooks.attemptFailed(c.id, this.owner, at, error, nextAt), {
      unserved: true,
    });
    if (nextAt === undefined)
      this.log.warn(
        { eventId: c.eventId, subscription: c.subscriptionId, problem: error },
        'webhook delivery given up',
      );
  }

  private async prune(): Promise<void> {
    const now = this.clock.now();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    await this.store.write((tx) => tx.webhooks.prune(now - KEEP_DELIVERED_MS), { unserved: true });
  }
}
