// What every admin write shares: one transaction, audit entries, then a rebuild when it changed
// something; and the 400 that names every problem of a request.
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';
import type { ChannelRef } from '../../store/channels.js';
import { StoreUnavailable } from '../../store/sql.js';
import type { Store, StoreTx } from '../../store/store.js';
import type { Problem } from '../../validation/problems.js';
import type { GraphService } from '../graphService.js';

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
  ) {}

  now(): Date {
    return new Date(this.clock.now());
  }

  /**
   * Runs a write in one transaction and, when it changed something, asks for a rebuild (off the
   * request path; `GraphService.caughtUp` says when it is served). A database that cannot take the
   * write (unreachable, or its write lock held by another process for too long) is a 503 that wrote
   * nothing.
   */
  async run<T>(fn: (tx: StoreTx, at: string) => Promise<WriteOutcome<T>>): Promise<T> {
    let outcome: WriteOutcome<T>;
    try {
      outcome = await this.store.write(async (tx) => {
        const written = await fn(tx, this.now().toISOString());
        if (written.channels) tx.changedOnly(written.channels);
        return written;
      });
    } catch (err) {
      if (err instanceof StoreUnavailable) throw unavailable(err);
      throw err;
    }
    const { result, changed, channels } = outcome;
    if (changed) void this.graph.refresh(channels && { channels });
    return result;
  }

  /** An audit entry, inside the caller's transaction. */
  record(
    tx: StoreTx,
    at: string,
    actor: Actor,
    action: string,
    target: string,
    before: unknown,
    after: unknown,
    reason: string | null = null,
  ): Promise<void> {
    return tx.audit.record({ at, actor: actor.subject, action, target, before, after, reason });
  }
}

/** The 503 of a write the database could not take. */
function unavailable(err: StoreUnavailable): ApiError {
  return new ApiError(
    'service_unavailable',
    err.uncertain ? err.message : `${err.message}; nothing was written, try again`,
  );
}

/** Every problem of a request as one 400, each named `where: message`. */
export function invalidRequest(problems: Problem[]): ApiError {
  const where = (p: Problem): string => (p.field === '(document)' || p.field === '-' ? p.file : `${p.file}.${p.field}`);
  return new ApiError('invalid_request', problems.map((p) => `${where(p)}: ${p.message}`).join('; '));
}
