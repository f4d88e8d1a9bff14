// Writes per subject (a token's, or a cluster's reports): a fixed one-minute window on the clock. The
// subject is known only once the token verified, so only authorized writes count.
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';

const WINDOW_MS = 60_000;
/** Windows kept before the ended ones are dropped. */
const SWEEP_AT = 10_000;

export interface WriteAllowance {
  /** Writes allowed per window. */
  limit: number;
  remaining: number;
  /** Set when the subject is over the limit: the error to answer and when to try again. */
  refused?: { error: ApiError; retryAfterSeconds: number };
}

export class WriteRateLimit {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private lastSweep = 0;

  constructor(
    private readonly limit: number,
    private readonly clock: Clock,
  ) {}

  /** Counts one write of `subject`. */
  count(subject: string): WriteAllowance {
    const now = this.clock.now();
    // With a subject per cluster, windows that ended go, at most once a minute.
    if (this.windows.size >= SWEEP_AT && now - this.lastSweep >= WINDOW_MS) {
      this.lastSweep = now;
      for (const [k, ended] of this.windows) if (now - ended.start >= WINDOW_MS) this.windows.delete(k);
    }
    let w = this.windows.get(subject);
    if (!w || now - w.start >= WINDOW_MS) this.windows.set(subject, (w = { start: now, count: 0 }));
    w.count += 1;
    const allowance: WriteAllowance = { limit: this.limit, remaining: Math.max(0, this.limit - w.count) };
    if (w.count <= this.limit) return allowance;
    const error = new ApiError('rate_limited', `more than ${this.limit} writes in a minute by '${subject}'`);
    return { ...allowance, refused: { error, retryAfterSeconds: Math.ceil((w.start + WINDOW_MS - now) / 1000) } };
  }
}
