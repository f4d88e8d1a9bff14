// What every admin write shares: one transaction, audit entries, then one rebuild and snapshot swap
// when it changed something; and the 400 that names every problem of a request.
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';
import type { Store } from '../../store/store.js';
import type { Problem } from '../../validation/problems.js';
import type { GraphService } from '../graphService.js';

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

  /** Runs a write in one transaction, then rebuilds once when it changed something. */
  run<T>(fn: (at: string) => { result: T; changed: boolean }): T {
    const at = this.now().toISOString();
    const { result, changed } = this.store.transaction(() => fn(at));
    if (changed) this.graph.rebuild();
    return result;
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

/** Every problem of a request as one 400, each named `where: message`. */
export function invalidRequest(problems: Problem[]): ApiError {
  const where = (p: Problem): string => (p.field === '(document)' || p.field === '-' ? p.file : `${p.file}.${p.field}`);
  return new ApiError('invalid_request', problems.map((p) => `${where(p)}: ${p.message}`).join('; '));
}
