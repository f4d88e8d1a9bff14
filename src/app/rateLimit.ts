// Work per subject in a fixed one-minute window on the clock: admin writes per token subject, reports per
// cluster, paths planned per client address. A request counts what it costs in units (a write is one; a
// mirror plan is one per source). Writes count once the token verified, so only authorized ones do.
import type { Clock } from '../clock.js';
import { ApiError } from '../errors.js';

const WINDOW_MS = 60_000;
/** Windows kept before the ended ones are dropped. */
const SWEEP_AT = 10_000;

export interface Allowance {
  /** Units allowed per window. */
  limit: number;
  remaining: number;
  /** Set when the subject is over the limit: the error to answer and when to try again. */
  refused?: { error: ApiError; retryAfterSeconds: number };
}

export class RateLimit {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private lastSweep = 0;

  constructor(
    private readonly limit: number,
    private readonly clock: Clock,
    /** What a unit is, for the error: "writes". */
    private readonly units = 'writes',
  ) {}

  /** Counts `units` of `subject`'s; refused when that takes it over the limit (and then counts nothing). */
  count(subject: string, units = 1): Allowance {
    const now = this.clock.now();
    // With a subject per cluster, windows that ended go, at most once a minute.
    if (this.windows.size >= SWEEP_AT && now - this.lastSweep >= WINDOW_MS) {
      this.lastSweep = now;
      for (const [k, ended] of this.windows) if (now - ended.start >= WINDOW_MS) this.windows.delete(k);
    }
    let w = this.windows.get(subject);
    if (!w || now - w.start >= WINDOW_MS) this.windows.set(subject, (w = { start: now, count: 0 }));
    if (w.count + units <= this.limit) {
      w.count += units;
      return { limit: this.limit, remaining: this.limit - w.count };
    }
    // Over: counted anyway when a unit each (a client that keeps trying stays refused), not when a
    // large request would not fit (a smaller one may).
    if (units === 1) w.count += 1;
    const error = new ApiError('rate_limited', `more than ${this.limit} ${this.units} in a minute by '${subject}'`);
    const allowance = { limit: this.limit, remaining: Math.max(0, this.limit - w.count) };
    return { ...allowance, refused: { error, retryAfterSeconds: Math.ceil((w.start + WINDOW_MS - now) / 1000) } };
  }
}
