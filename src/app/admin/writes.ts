// What every admin write shares: one transaction, audit entries, then a rebuild when it changed
// something; and the 400 that names every problem of a request.
import { setTimeout } from 'node:timers/promises';
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';
import type { Store } from '../../store/store.js';
import type { Problem } from '../../validation/problems.js';
import type { ChannelRef, GraphService } from '../graphService.js';

/** What a write returns, and what it changed: `channels` when it changed those channels and nothing else. */
export interface WriteOutcome<T> {
  result: T;
  changed: boolean;
  channels?: ChannelRef[];
}

/** Who a write is audited as: a token's subject, `feeder` for auto-promotion. */
export interface Actor {
  subject: string;
}

export class AuditedWrites {
  constructor(
    readonly store: Store,
    readonly graph: GraphService,
    private readonly clock: Clock,
    /** How long a write waits for another process's write lock before its 503. */
    private readonly busyWaitMs = BUSY_WAIT_MS,
  ) {}

  now(): Date {
    return new Date(this.clock.now());
  }

  /**
   * Runs a write in one transaction and, when it changed something, asks for a rebuild (off the
   * request path; `GraphService.caughtUp` says when it is served). While another process (a
   * `cincy import`) holds the database's write lock, the write waits for it without blocking the
   * thread, up to `busyWaitMs`, then answers 503: nothing of it was written.
   */
  async run<T>(fn: (at: string) => WriteOutcome<T>): Promise<T> {
    const deadline = performance.now() + this.busyWaitMs;
    for (let pause = 10; ; pause = Math.min(pause * 2, 250)) {
      try {
        const at = this.now().toISOString();
        const { result, changed, channels } = this.store.transaction(() => fn(at));
        if (changed) void this.graph.refresh(channels && { channels });
        return result;
      } catch (err) {
        if (!isBusy(err)) throw err;
        if (performance.now() + pause > deadline)
          throw new ApiError(
            'service_unavailable',
            `the database is busy: another process has held its write lock for ${this.busyWaitMs / 1000} s; nothing was written, try again`,
          );
        await setTimeout(pause);
      }
    }
  }

  /** An audit entry, inside the caller's transaction. */
  record(
    at: string,
    actor: Actor,
    action: string,
    target: string,
    before: unknown,
    after: unknown,
    reason: string | null = null,
  ): void {
    this.store.audit.record({ at, actor: actor.subject, action, target, before, after, reason });
  }
}

/** How long a write waits for another process's write lock before a 503. */
export const BUSY_WAIT_MS = 20_000;

/** SQLite's answer when another connection holds the write lock (BEGIN IMMEDIATE fails before anything ran). */
function isBusy(err: unknown): boolean {
  return err instanceof Error && 'code' in err && (err.code === 'SQLITE_BUSY' || err.code === 'SQLITE_BUSY_SNAPSHOT');
}

/** Every problem of a request as one 400, each named `where: message`. */
export function invalidRequest(problems: Problem[]): ApiError {
  const where = (p: Problem): string => (p.field === '(document)' || p.field === '-' ? p.file : `${p.file}.${p.field}`);
  return new ApiError('invalid_request', problems.map((p) => `${where(p)}: ${p.message}`).join('; '));
}
